"""Re-check of edge round 10 (issue 40): a run file of no results is a run of no rows (written by a ranking verb
when no query matched, read back, evaluated as 0, fused as nothing); qrels that judge nothing are refused by the
reader (written empty: a split without judgments); exact remote grades; the score-order message gives the rank
within the query."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.formats import read_qrels, read_run, write_qrels, write_run
from clirkit.metrics import evaluate
from clirkit.run import Qrels, Run

EMPTY_RUN = Run(np.array([], dtype=str), np.array([], dtype=str), np.array([]), tag="bm25")
QRELS = "ABDI.1 0 1Chr.6.44 1\nACHOR.1 0 Josh.7.24 2\n"
RUN = "ABDI.1 Q0 1Chr.6.44 1 3.5 bm25\nABDI.1 Q0 Ezra.8.28 2 1.5 bm25\n"


@pytest.mark.parametrize("text", ["", "\n\n"])
def test_a_run_file_without_lines_reads_as_a_run_of_no_rows(tmp_path, text):
    (tmp_path / "e.run").write_text(text, encoding="utf-8")
    run = read_run(tmp_path / "e.run")
    assert len(run) == 0 and list(run.query_ids) == []
    assert len(read_run(tmp_path / "e.run", depth=10)) == 0


def test_an_empty_run_written_reads_back_as_empty(tmp_path):
    write_run(EMPTY_RUN, tmp_path / "e.run")
    assert (tmp_path / "e.run").read_bytes() == b"" and len(read_run(tmp_path / "e.run")) == 0


def test_a_missing_run_or_qrels_file_keeps_its_own_message(tmp_path):
    with pytest.raises(ClirkitError, match=r"nope\.run: no such file: check the path$"):
        read_run(tmp_path / "nope.run")
    with pytest.raises(ClirkitError, match=r"nope\.qrels: no such file: check the path$"):
        read_qrels(tmp_path / "nope.qrels")


@pytest.mark.parametrize("text", ["", "\n"])
def test_qrels_that_judge_nothing_are_refused_naming_the_file_not_the_path(tmp_path, text):
    path = tmp_path / "e.qrels"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClirkitError) as caught:
        read_qrels(path)
    assert str(caught.value) == (
        f"{path}: the qrels judge nothing (no judgment line; a qrels file holds qid iter docid rel lines)"
    )


def test_qrels_of_no_row_are_written_empty_and_read_back_as_judging_nothing(tmp_path):
    # a built collection's split may have no judgments (a small export): its file is written, and refused when read
    empty = Qrels(np.array([], dtype=str), np.array([], dtype=str), np.array([], dtype=np.int64))
    write_qrels(empty, tmp_path / "e.qrels")
    assert (tmp_path / "e.qrels").read_bytes() == b""
    with pytest.raises(ClirkitError, match=r"e\.qrels: the qrels judge nothing"):
        read_qrels(tmp_path / "e.qrels")


def test_evaluate_scores_each_judged_query_0_for_a_run_of_no_rows():
    qrels = Qrels(np.array(["q1", "q2"]), np.array(["a", "b"]), np.array([1, 2]))
    ev = evaluate(EMPTY_RUN, qrels, ["AP", "P@10"])
    assert ev.qids.tolist() == ["q1", "q2"] and not ev.values.any() and ev.missing_queries == ("q1", "q2")
    with pytest.raises(ClirkitError, match="^the run holds no results: there is no run query to average over"):
        evaluate(EMPTY_RUN, qrels, ["AP"], average="run")


def _files(tmp_path):
    (tmp_path / "q.qrels").write_text(QRELS, encoding="utf-8")
    (tmp_path / "a.run").write_text(RUN, encoding="utf-8")
    (tmp_path / "e.run").write_text("", encoding="utf-8")


def test_eval_of_an_empty_run_scores_0_and_says_so_once(tmp_path, capsys):
    _files(tmp_path)
    assert main(["eval", "--qrels", str(tmp_path / "q.qrels"), "-m", "AP", "--", str(tmp_path / "e.run")]) == 0
    out, err = capsys.readouterr()
    assert "  2        0.0000" in out
    assert err == f"{tmp_path / 'e.run'}: holds no results: each of the 2 judged queries scores 0\n"
    assert main(["eval", "--qrels", str(tmp_path / "q.qrels"), "--quiet", "--", str(tmp_path / "e.run")]) == 0
    assert capsys.readouterr().err == ""


def test_eval_with_qrels_that_judge_nothing_is_one_line(tmp_path, capsys):
    _files(tmp_path)
    (tmp_path / "q.qrels").write_text("", encoding="utf-8")
    assert main(["eval", "--qrels", str(tmp_path / "q.qrels"), str(tmp_path / "a.run")]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {tmp_path / 'q.qrels'}: the qrels judge nothing (no " + (
        "judgment line; a qrels file holds qid iter docid rel lines)\n"
    )


def test_aggregate_with_an_empty_run_fuses_the_others_and_says_so_once(tmp_path, capsys):
    _files(tmp_path)
    out = tmp_path / "f.run"
    assert main(["aggregate", str(tmp_path / "e.run"), str(tmp_path / "a.run"), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert (
        err.count("holds no results") == 1
        and f"aggregate: {tmp_path / 'e.run'} holds no results: it contributes nothing\n" in err
    )
    assert [line.split()[2] for line in out.read_text().splitlines()] == ["1Chr.6.44", "Ezra.8.28"]


# -- N4: remote grades ---------------------------------------------------------------------------------------------


def test_the_largest_uint64_grade_within_int64_is_kept():
    qrels = Qrels(np.array(["q1"]), np.array(["d1"]), np.array([2**63 - 1], dtype=np.uint64))
    assert qrels.rels.tolist() == [2**63 - 1]


def test_an_object_array_of_big_integers_is_converted_exactly():
    qrels = Qrels(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([2**53 + 1, -(2**63)], dtype=object))
    assert qrels.rels.tolist() == [2**53 + 1, -(2**63)]


@pytest.mark.parametrize("grade", [0.5, float("nan"), 2**63])
def test_an_object_array_of_what_is_no_int64_grade_is_still_refused(grade):
    with pytest.raises(ClirkitError, match="^Qrels rels must be whole numbers"):
        Qrels(np.array(["q1"]), np.array(["d1"]), np.array([grade], dtype=object))


def test_write_qrels_refuses_the_lowest_int64_grade(tmp_path):
    with pytest.raises(ClirkitError, match="grade -9223372036854775808 .* at most 9 digits"):
        write_qrels(Qrels(np.array(["q1"]), np.array(["d1"]), np.array([-(2**63)])), tmp_path / "g.qrels")
    assert not (tmp_path / "g.qrels").exists()


# -- the score-order message -------------------------------------------------------------------------------------


def test_the_score_order_message_gives_the_rank_within_the_query():
    with pytest.raises(ClirkitError) as caught:
        Run(["q1", "q1", "q2", "q2", "q2"], ["a", "b", "c", "d", "e"], [2.0, 1.0, 3.0, 1.0, 2.0])
    assert str(caught.value) == (
        "Run rows of query q2 are not in score order (rank 3 scores 2.0 after 1.0): build it with Run.ranked"
    )
