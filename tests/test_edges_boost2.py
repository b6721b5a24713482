"""More edge cases of ``boost-train``: a --candidates run whose rows for the training queries are all relevant
documents (no candidate negative), --beta-grid with a fixed --beta, and qrels whose grades are all below the minimum
grade."""

from __future__ import annotations

import shutil

import pytest
from test_edges_boost import DOCS, QUERIES, write_files, write_run

from clirkit.boost import BoostRanker, TupleSampling
from clirkit.boost.training import check_candidates
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

QRELS = [("LIGHT.1", "Gen.1.3", 1), ("DARK.1", "John.1.5", 1)]


# ------------------------------------------------------------------ 1. --candidates of relevant documents only


def test_candidates_whose_rows_are_all_relevant_are_an_error_and_some_are_counted_in_the_note(tmp_path, capsys):
    files = write_files(tmp_path, QRELS)
    out = tmp_path / "c.npz"
    relevant = write_run(tmp_path / "rel.run", [("LIGHT.1", "Gen.1.3", 2.0), ("DARK.1", "John.1.5", 1.0)])
    assert main(["boost-train", *files, "--rounds", "3", "--candidates", relevant, "-o", str(out), "-q"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"clirkit: error: --candidates: {relevant} has no non-relevant row for any training query: its top 1000 "
        "rows for them are all documents they judge relevant (grade >= 1)"
    ]
    assert not out.exists()
    # LIGHT.1's only row is relevant: it has no candidate negative, as a query with no row has none
    some = write_run(tmp_path / "some.run", [("LIGHT.1", "Gen.1.3", 2.0), ("DARK.1", "Gen.1.4", 1.0)])
    assert main(["boost-train", *files, "--rounds", "3", "--candidates", some, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("boost: the candidate run has no non-relevant row for 1 of the 2 training queries") == 1


def test_the_library_refuses_candidates_of_relevant_documents_only_within_the_candidate_depth():
    qrels = Qrels(["q1", "q2"], ["Gen.1.3", "John.1.5"], [1, 1])
    docids = list(DOCS)
    candidates = Run(["q1", "q1", "q2"], ["Gen.1.3", "Gen.1.4", "John.1.5"], [2.0, 1.0, 1.0])
    with pytest.raises(ClirkitError, match=r"^the candidate run has no non-relevant row for a training query .*top 1 "):
        check_candidates(
            BoostRanker(sampling=TupleSampling(candidate_depth=1)), candidates, ["q1", "q2"], docids, qrels
        )
    check_candidates(
        BoostRanker(sampling=TupleSampling(candidate_depth=2)), candidates, ["q1", "q2"], docids, qrels
    )  # q1's Gen.1.4


# ------------------------------------------------------------------ 2. --beta-grid with a fixed --beta


def test_beta_grid_with_a_fixed_beta_is_refused(tmp_path, capsys):
    files = write_files(tmp_path, QRELS)
    dev = [
        "--dev-queries",
        str(shutil.copy(tmp_path / "q.tsv", tmp_path / "dev.tsv")),
        "--dev-qrels",
        str(tmp_path / "all.qrels"),
    ]
    base = write_run(tmp_path / "base.run", [(q, d, 3.0 - i) for q in QUERIES for i, d in enumerate(DOCS)])
    out = tmp_path / "b.npz"
    common = ["boost-train", *files, *dev, "--rounds", "3", "--base-run", base, "-o", str(out), "-q"]
    assert main([*common, "--beta", "1", "--beta-grid", "0", "1"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "clirkit: error: --beta-grid gives the betas tried on dev without a beta: give --beta or --beta-grid, not both"
    ]
    assert not out.exists()
    assert main([*common, "--beta", "none", "--beta-grid", "0", "1"]) == 0  # none: tuned over the grid


# ------------------------------------------------------------------ 3. no grade reaches the minimum grade


@pytest.mark.parametrize(
    "grades, options, least, highest",
    [((-1, 0), [], 1, 0), ((1, 2), ["--min-grade", "3"], 3, 2)],
    ids=["below 1", "below --min-grade 3"],
)
def test_qrels_whose_grades_are_all_below_the_minimum_grade_say_so_naming_the_file(
    tmp_path, capsys, grades, options, least, highest
):
    files = write_files(tmp_path, [("LIGHT.1", "Gen.1.3", grades[0]), ("LIGHT.1", "Gen.1.4", grades[1])])
    out = tmp_path / "n.npz"
    assert main(["boost-train", *files, *options, "--rounds", "3", "-o", str(out), "-q"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"clirkit: error: {tmp_path / 'all.qrels'}: no judgment reaches the minimum grade of a relevant document "
        f"({least}): the highest grade is {highest}"
    ]
    assert not out.exists()
