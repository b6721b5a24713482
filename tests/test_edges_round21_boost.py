"""Edge round 21, boosting's inputs (findings 6, 11 and 13's boost-train ones): a ``--base-run`` file given twice,
a query in two of its files, files without a row and a negative score are one line naming the file (and line);
files of different tags, and ``boost-rank --candidates`` of another tag than the base the model learned from, are
said on stderr; a standalone ``--candidates`` row at an unknown document is refused with its file and line as
``--base-run``'s is; the library's message for a negative base score names the tag as a tag."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_boost_base import DEV_QRELS, DEV_QUERIES, DOCIDS, DOCS, QRELS, QUERIES
from test_boost_cli import write_base_run
from test_edges_round15_boost import dev_run, one_error_line, train_args

from clirkit.boost import BoostRanker
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.run import Run


def base_args(tmp_path: Path, *runs: str) -> list[str]:
    return train_args(tmp_path, "--base-run", *runs, "--rounds", "4", "--eval-every", "2")


def test_a_base_run_file_given_twice_is_refused(tmp_path, capsys):
    base = write_base_run(tmp_path)
    assert main(base_args(tmp_path, base, str(Path(base).parent / "." / Path(base).name))) == 2
    assert one_error_line(capsys) == f"clirkit: error: --base-run: {base} is given twice"
    assert not (tmp_path / "m.npz").exists()


def test_a_query_in_two_base_run_files_is_refused_naming_both(tmp_path, capsys):
    base = write_base_run(tmp_path)
    other = write_base_run(tmp_path, "other.run")
    first = Path(base).read_text().split()[0]
    assert main(base_args(tmp_path, base, other)) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"clirkit: error: --base-run: query {first!r} is in {base} and in {other}"), line


def test_base_run_files_without_rows_are_refused_as_such(tmp_path, capsys):
    empty = tmp_path / "empty.run"
    empty.write_text("")
    assert main(base_args(tmp_path, str(empty))) == 2
    assert one_error_line(capsys) == f"clirkit: error: --base-run: {empty} holds no rows"


def test_a_negative_base_score_is_refused_at_its_file_and_line(tmp_path, capsys):
    base = Path(write_base_run(tmp_path))
    lines = base.read_text().splitlines()
    fields = lines[2].split()
    fields[4] = "-0.5"
    lines[2] = " ".join(fields)
    base.write_text("\n".join(lines) + "\n")
    assert main(base_args(tmp_path, str(base), dev_run(tmp_path))) == 2
    assert one_error_line(capsys) == (
        f"clirkit: error: {base}:3: negative score: a base run's scores must be >= 0 (BM25, DT, PSQ or a fusion of "
        "them) (-0.5)"
    )


def test_base_run_files_of_two_tags_are_said_and_quiet_silences_it(tmp_path, capsys):
    base = write_base_run(tmp_path)  # tagged PSQ
    dev = dev_run(tmp_path)  # tagged b
    assert main(base_args(tmp_path, base, dev)) == 0
    said = "note: the --base-run files carry the tags 'PSQ', 'b': they should be one base system's runs"
    assert said in capsys.readouterr().err
    assert main(base_args(tmp_path, base, dev) + ["--quiet"]) == 0
    assert said not in capsys.readouterr().err


def test_candidates_of_another_tag_than_the_models_base_are_said(tmp_path, capsys):
    base = write_base_run(tmp_path)
    assert main(base_args(tmp_path, base, dev_run(tmp_path)) + ["--quiet"]) == 0
    other = tmp_path / "dt.run"
    other.write_text(Path(base).read_text().replace(" PSQ\n", " DT\n"))
    q = str(tmp_path / "q.tsv")
    rank = ["boost-rank", str(tmp_path / "m.npz"), "--queries", q, "--documents", str(tmp_path / "docs.tsv")]
    capsys.readouterr()
    assert main(rank + ["--candidates", base, "-o", str(tmp_path / "a.run")]) == 0
    assert "note: --candidates" not in capsys.readouterr().err
    assert main(rank + ["--candidates", str(other), "-o", str(tmp_path / "b.run")]) == 0
    err = capsys.readouterr().err
    assert f"note: --candidates {other} is tagged 'DT', the run this model was boosted from 'PSQ'" in err


def test_a_standalone_candidate_row_at_an_unknown_document_is_refused_with_its_file_and_line(tmp_path, capsys):
    cands = Path(write_base_run(tmp_path, "cands.run"))
    lines = cands.read_text().splitlines()
    fields = lines[1].split()
    fields[2] = "NOPE.1.1"
    lines[1] = " ".join(fields)
    cands.write_text("\n".join(lines) + "\n")
    assert main(train_args(tmp_path, "--candidates", str(cands), "--rounds", "4", dev=False)) == 2
    assert one_error_line(capsys) == (
        f"clirkit: error: {cands}:2: document 'NOPE.1.1' is not among the documents: give a run of these queries "
        "over these documents"
    )


def test_the_librarys_negative_base_score_message_names_the_tag_as_a_tag():
    rows = [(q, d, 1.0 - 2 * r) for q in QUERIES for r, d in enumerate(DOCIDS[:2])]  # 1.0, then -1.0
    base = Run(*map(np.array, zip(*rows)), tag="Boost")
    ranker = BoostRanker.from_flat(base=base, beta=1.0, rounds=2, bits=20)
    with pytest.raises(ClirkitError, match=r"the base system's run \(tag 'Boost'\) has negative scores"):
        ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
