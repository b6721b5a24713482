"""Edge cases of ``boost-train``: qrels judging every document relevant (no negative to sample), a --candidates
run missing the training queries, ``none`` for --beta and --significance, and the base ranker's options without
--base-run."""

from __future__ import annotations

import shutil
import signal
from contextlib import contextmanager

import numpy as np
import pytest

from clirkit.boost.tuples import make_tuples
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

DOCS = {
    "Gen.1.3": "Y dijo Dios: Sea la luz: y fué la luz.",
    "Gen.1.4": "Y vió Dios que la luz era buena: y apartó Dios la luz de las tinieblas.",
    "John.1.5": "Y la luz en las tinieblas resplandece; mas las tinieblas no la comprendieron.",
}
QUERIES = {"LIGHT.1": "Light: created", "DARK.1": "Darkness: separated from light"}


@contextmanager
def deadline(seconds: int):
    """A TimeoutError after ``seconds`` (an endless loop fails the test instead of hanging it)."""

    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def write_files(tmp_path, qrels: list[tuple[str, str, int]]) -> list[str]:
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in DOCS.items()), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()), encoding="utf-8")
    (tmp_path / "all.qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
    files = ["--queries", str(tmp_path / "q.tsv"), "--qrels", str(tmp_path / "all.qrels")]
    return [*files, "--documents", str(tmp_path / "docs.tsv"), "--source-lang", "en", "--target-lang", "es"]


def write_run(path, rows: list[tuple[str, str, float]]) -> str:
    path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} base\n" for i, (q, d, s) in enumerate(rows)))
    return str(path)


ALL_RELEVANT = [("LIGHT.1", d, 1) for d in DOCS]  # LIGHT.1 judges every document relevant
ONE_RELEVANT = [("DARK.1", "John.1.5", 1)]


# ------------------------------------------------------------------ 1. every document relevant: no negative


def test_qrels_judging_every_document_relevant_are_a_one_line_error_naming_the_file_not_a_hang(tmp_path, capsys):
    files = write_files(tmp_path, ALL_RELEVANT)
    out = tmp_path / "b.npz"
    with deadline(30):
        status = main(["boost-train", *files, "--rounds", "3", "-o", str(out), "-q"])
    err = capsys.readouterr().err
    assert status == 2 and not out.exists()
    assert err.strip().splitlines() == [
        f"clirkit: error: {tmp_path / 'all.qrels'}: no training tuple: every training query judges every document "
        "relevant (query LIGHT.1), so no negative document can be sampled"
    ]


def test_a_query_judging_every_document_relevant_gives_no_uniform_tuple_and_is_said_once(tmp_path, capsys):
    files = write_files(tmp_path, ALL_RELEVANT + ONE_RELEVANT)
    out = tmp_path / "b.npz"
    with deadline(30):
        status = main(["boost-train", *files, "--rounds", "3", "--bags", "2", "--bootstrap", "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 0 and out.exists()
    said = "boost: 1 of the 2 training queries with a relevant document judge every document relevant"
    assert err.count(said) == 1


def test_every_sampler_gives_up_on_a_query_judging_every_document_relevant(capsys):
    docs = list(DOCS)
    qrels = Qrels(["q1"] * 3 + ["q2"], docs + [docs[0]], [2, 1, 1, 1])  # q1: every document relevant
    candidates = Run(["q1", "q1", "q2", "q2"], [docs[0], docs[1], docs[1], docs[2]], [2.0, 1.0, 2.0, 1.0])
    with deadline(30):
        uniform = make_tuples(qrels, ["q1", "q2"], docs, negatives=4, quiet=False)
        hard = make_tuples(qrels, ["q1", "q2"], docs, negatives=4, candidates=candidates, candidate_depth=2)
        graded = make_tuples(qrels, ["q1", "q2"], docs, negatives=2, grade_pairs=2, weighting="one")
        with pytest.raises(ClirkitError, match="every training query judges every document relevant"):
            make_tuples(qrels, ["q1"], docs, negatives=3)
    assert "1 of the 2 training queries with a relevant document judge every" in capsys.readouterr().err
    for t in (uniform, hard):
        assert set(t.query.tolist()) == {1} and len(t) == 4 and not np.any(t.neg == 0)
    # q1's grade pairs (grade 2 over grade 1) are its only tuples: its d+ of grade 2 against its two of grade 1
    q1 = graded.query == 0
    assert np.all(graded.pos[q1] == 0) and set(graded.neg[q1].tolist()) <= {1, 2} and q1.sum() == 2


# ------------------------------------------------------------------ 2. --candidates missing the training queries


def test_candidates_with_no_row_for_a_training_query_are_an_error_and_some_missing_are_said(tmp_path, capsys):
    files = write_files(tmp_path, [("LIGHT.1", "Gen.1.3", 1), *ONE_RELEVANT])
    out = tmp_path / "c.npz"
    elsewhere = write_run(tmp_path / "dev.run", [("OTHER.1", "Gen.1.4", 2.0), ("OTHER.1", "John.1.5", 1.0)])
    assert main(["boost-train", *files, "--rounds", "3", "--candidates", elsewhere, "-o", str(out), "-q"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"clirkit: error: --candidates: {elsewhere} has no row for any training query"
    ]
    assert not out.exists()
    some = write_run(tmp_path / "some.run", [("LIGHT.1", "Gen.1.4", 2.0), ("LIGHT.1", "John.1.5", 1.0)])
    assert main(["boost-train", *files, "--rounds", "3", "--candidates", some, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("boost: the candidate run has no non-relevant row for 1 of the 2 training queries") == 1


# ------------------------------------------------------------------ 3. none for --beta and --significance


def test_beta_and_significance_take_none_and_need_a_base_run(tmp_path, capsys):
    from clirkit.boost import BoostModel

    files = write_files(tmp_path, [("LIGHT.1", "Gen.1.3", 1), *ONE_RELEVANT])
    dev = [
        "--dev-queries",
        str(shutil.copy(tmp_path / "q.tsv", tmp_path / "dev.tsv")),
        "--dev-qrels",
        str(tmp_path / "all.qrels"),
    ]
    rows = [(q, d, 3.0 - i) for q in QUERIES for i, d in enumerate(DOCS)]
    base = ["--base-run", write_run(tmp_path / "base.run", rows)]
    common = ["boost-train", *files, *dev, "--rounds", "4", "--eval-every", "2", "-q"]
    none = tmp_path / "none.npz"
    assert main([*common, *base, "--beta", "none", "--beta-grid", "1", "--significance", "none", "-o", str(none)]) == 0
    zero = tmp_path / "zero.npz"
    assert main([*common, *base, "--beta-grid", "1", "--significance", "0", "-o", str(zero)]) == 0
    assert BoostModel.load(none).beta == 1.0  # tuned on dev over the grid
    assert none.read_bytes() == zero.read_bytes()  # significance none is 0: the rounds early stopping chose
    capsys.readouterr()
    for option in (["--significance", "0.1"], ["--significance", "0.05"], ["--significance", "none"]):
        assert main([*common, *option, "-o", str(tmp_path / "x.npz")]) == 2
        assert capsys.readouterr().err.strip().splitlines() == [
            "clirkit: error: --significance tests the boosted model against a base ranker: give --base-run too"
        ]
    assert main([*common, "--beta", "none", "-o", str(tmp_path / "x.npz")]) == 2
    assert "--beta weighs a base ranker's scores: give --base-run too" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()


def test_significance_given_without_dev_queries_is_refused(tmp_path, capsys):
    files = write_files(tmp_path, [("LIGHT.1", "Gen.1.3", 1), *ONE_RELEVANT])
    rows = [(q, d, 3.0 - i) for q in QUERIES for i, d in enumerate(DOCS)]
    base = ["--base-run", write_run(tmp_path / "base.run", rows), "--beta", "2"]
    common = ["boost-train", *files, *base, "--rounds", "4", "-q"]  # no --eval-every: no dev queries to score
    assert main([*common, "-o", str(tmp_path / "ok.npz")]) == 0  # the default level: not tested, no dev queries
    assert main([*common, "--significance", "0.01", "-o", str(tmp_path / "x.npz")]) == 2
    assert "--significance tests the boosted model against a base ranker on the dev queries" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()
