"""Edge tests, round 10 (issue 40), findings 1, 5 and 6: Qrels(...) refuses grades that are not whole numbers,
Run(...) refuses a query's rows out of score order (and a NaN score), and write_run / write_qrels refuse what
read_run / read_qrels refuse, writing nothing."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.formats import read_qrels, read_run, write_qrels, write_run
from clirkit.run import Qrels, Run

# -- 1. Qrels(...) grades ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("grade", [0.5, 0.99, 2.7, np.nan, np.inf, -np.inf])
def test_qrels_refuses_a_grade_that_is_not_a_whole_number(grade):
    with pytest.raises(ClirkitError, match=r"^Qrels rels must be whole numbers \(grades\), got "):
        Qrels(np.array(["ABDI.1", "ABDI.1"]), np.array(["1Chr.6.44", "2Chr.29.12"]), np.array([1.0, grade]))


@pytest.mark.parametrize("grade", [1e20, -1e20, 2.0**63])
def test_qrels_refuses_a_whole_grade_beyond_int64(grade):
    with pytest.raises(ClirkitError, match=r"within int64 \(\|grade\| < 2\*\*63\), got "):
        Qrels(np.array(["ABDI.1"]), np.array(["1Chr.6.44"]), np.array([grade]))


def test_qrels_refuses_an_unsigned_grade_beyond_int64():
    with pytest.raises(ClirkitError, match="within int64"):
        Qrels(np.array(["ABDI.1"]), np.array(["1Chr.6.44"]), np.array([2**63], dtype=np.uint64))


def test_qrels_keeps_whole_floats_and_integers_exactly():
    floats = Qrels(["ABDI.1"] * 3, ["1Chr.6.44", "2Chr.29.12", "Ezra.8.28"], np.array([1.0, 0.0, -1.0]))
    assert floats.rels.dtype == np.int64 and floats.rels.tolist() == [1, 0, -1]
    big = Qrels(["ABDI.1"], ["1Chr.6.44"], np.array([2**62 + 1]))  # no trip through float64
    assert big.rels.tolist() == [2**62 + 1]
    assert Qrels(["ABDI.1"], ["1Chr.6.44"], [2]).rels.tolist() == [2]


# -- 5. Run(...) rows in score order -------------------------------------------------------------------------------


def test_run_refuses_a_querys_rows_out_of_score_order():
    with pytest.raises(ClirkitError) as caught:
        Run(np.array(["q1"] * 3), np.array(["d3", "d2", "d1"]), np.array([1.0, 2.0, 3.0]), tag="a")
    assert str(caught.value) == (
        "Run rows of query q1 are not in score order (rank 2 scores 2.0 after 1.0): build it with Run.ranked"
    )


def test_run_names_the_first_rising_row_of_a_later_query():
    with pytest.raises(ClirkitError, match=r"query ACHOR\.1 are not in score order \(rank 2 scores 5\.0 after 4\.0\)"):
        Run(["ABDI.1", "ABDI.1", "ACHOR.1", "ACHOR.1"], ["a", "b", "c", "d"], [2.0, 1.0, 4.0, 5.0])


def test_run_accepts_ties_and_a_score_rising_from_one_query_to_the_next():
    run = Run(["ABDI.1", "ABDI.1", "ACHOR.1", "ACHOR.1"], ["b", "a", "c", "d"], [1.0, 1.0, 9.0, -1e308])
    assert run.ranks().tolist() == [1, 2, 1, 2] and run.docids.tolist() == ["b", "a", "c", "d"]


def test_run_from_groups_checks_the_score_order_too():
    with pytest.raises(ClirkitError, match=r"query q2 are not in score order \(rank 2 scores 2\.0 after 1\.0\)"):
        Run.from_groups(["q1", "q2"], [1, 2], ["a", "b", "c"], [0.5, 1.0, 2.0])


@pytest.mark.parametrize("scores", [[np.nan], [2.0, np.nan], [np.nan, 1.0]])
def test_run_refuses_a_nan_score_wherever_it_is(scores):
    docids = ["Josh.7.24", "Josh.7.26"][: len(scores)]
    with pytest.raises(ClirkitError, match=r"^Run score of query ACHOR\.1, document Josh\.7\.2\d is NaN"):
        Run(["ACHOR.1"] * len(scores), docids, scores)
    with pytest.raises(ClirkitError, match="is NaN"):
        Run.from_groups(["ACHOR.1"], [len(scores)], docids, scores)


def test_run_ranked_orders_the_rows_run_refuses_and_top_keeps_the_best():
    run = Run.ranked(np.array(["q1"] * 3), np.array(["d3", "d2", "d1"]), np.array([1.0, 2.0, 3.0]), tag="a")
    assert run.docids.tolist() == ["d1", "d2", "d3"] and run.top(1).docids.tolist() == ["d1"]


@pytest.mark.parametrize("between", [" ", "  "])  # one space: the columnar reader; two: the line parser
def test_read_run_still_sorts_a_file_whose_rows_are_not_in_score_order(tmp_path, between):
    lines = ["q1 Q0 d3 1 1.0 a", "q1 Q0 d2 2 2.0 a", "q2 Q0 d9 1 0.5 a", "q1 Q0 d1 3 3.0 a"]
    (tmp_path / "u.run").write_text("".join(line.replace(" ", between) + "\n" for line in lines))
    run = read_run(tmp_path / "u.run")
    assert run.qids.tolist() == ["q1", "q1", "q1", "q2"] and run.docids.tolist() == ["d1", "d2", "d3", "d9"]
    assert read_run(tmp_path / "u.run", depth=1).top(1).docids.tolist() == ["d1", "d9"]


# -- 6. the writers refuse what the readers refuse --------------------------------------------------------------


@pytest.mark.parametrize("score", [np.inf, -np.inf])
def test_write_run_refuses_a_score_that_is_not_finite_writing_nothing(tmp_path, score):
    run = Run(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([5.0, 4.0]))
    bad = "d1" if score > 0 else "d2"
    run.scores[int(score < 0)] = score  # (a Run refuses it when made: only arrays changed since can hold it)
    with pytest.raises(ClirkitError, match=f"score -?inf of query q1, document {bad}: a run file holds finite numbers"):
        write_run(run, tmp_path / "x.run")
    assert not (tmp_path / "x.run").exists()


def test_a_run_listing_a_document_twice_for_a_query_is_refused_when_made_so_never_written(tmp_path):
    (tmp_path / "dup.run").write_text("old\n")
    with pytest.raises(ClirkitError) as caught:
        write_run(
            Run(np.array(["q0", "q1", "q1", "q1"]), np.array(["d1", "d1", "d2", "d1"]), np.array([9.0, 3.0, 2.0, 1.0])),
            tmp_path / "dup.run",
        )
    assert str(caught.value) == "Run row 4 repeats query q1 and document d1: a run lists each pair once"
    assert (tmp_path / "dup.run").read_text() == "old\n"


def test_write_run_refuses_a_docid_the_reader_refuses(tmp_path):
    for docid, problem in (("d\0x", "contains a NUL character"), ("d" * 1001, "is longer than 1,000 characters")):
        with pytest.raises(ClirkitError, match=f"cannot write document id .*: it {problem}"):
            write_run(Run._unique_rows(np.array(["q1"]), np.array([docid]), np.array([1.0])), tmp_path / "x.run")
    assert not (tmp_path / "x.run").exists()


@pytest.mark.parametrize("tag", ["PSQ\0x", "t" * 1001])
def test_write_run_refuses_a_tag_the_reader_refuses(tmp_path, tag):
    with pytest.raises(ClirkitError, match="^run tag .* must be non-empty, without whitespace or NUL, at most 1,000"):
        write_run(Run(np.array(["q1"]), np.array(["d1"]), np.array([1.0])), tmp_path / "x.run", tag=tag)
    assert not (tmp_path / "x.run").exists()


def test_the_same_document_in_two_queries_is_written_and_read_back(tmp_path):
    run = Run(np.array(["q1", "q2"]), np.array(["d1", "d1"]), np.array([1.0, 1.0]))
    write_run(run, tmp_path / "ok.run")
    assert read_run(tmp_path / "ok.run").docids.tolist() == ["d1", "d1"]
    write_qrels(Qrels(["q1", "q2"], ["d1", "d1"], [1, -999_999_999]), tmp_path / "ok.qrels")
    assert read_qrels(tmp_path / "ok.qrels").rels.tolist() == [1, -999_999_999]


def test_write_qrels_refuses_a_document_judged_twice_for_a_query(tmp_path):
    with pytest.raises(
        ClirkitError, match="^Qrels row 3 repeats query q1 and document d1: qrels judge each pair once$"
    ):
        Qrels(np.array(["q1", "q2", "q1"]), np.array(["d1", "d1", "d1"]), np.array([1, 0, 0]))
    qrels = Qrels(np.array(["q1", "q2", "q1"]), np.array(["d1", "d1", "d2"]), np.array([1, 0, 0]))
    qrels.docids[2] = "d1"  # (Qrels refuses it when made: only arrays changed since can hold it)
    with pytest.raises(ClirkitError) as caught:
        write_qrels(qrels, tmp_path / "dup.qrels")
    assert str(caught.value) == (
        "cannot write qrels that judge document d1 twice for query q1 (rows 1 and 3): a qrels file judges a "
        "document once per query"
    )
    assert not (tmp_path / "dup.qrels").exists()


def test_write_qrels_refuses_a_grade_the_reader_refuses(tmp_path):
    with pytest.raises(ClirkitError, match="grade -1000000000 of query q1, document d2: .* at most 9 digits"):
        write_qrels(Qrels(["q1", "q1"], ["d1", "d2"], [1, -(10**9)]), tmp_path / "big.qrels")
    assert not (tmp_path / "big.qrels").exists()


def test_duplicates_are_found_exactly_when_every_pair_key_collides(tmp_path, monkeypatch):
    import clirkit.hashing

    monkeypatch.setattr(clirkit.hashing, "pair_keys", lambda codes, docids: np.zeros(len(docids), dtype=np.uint64))
    monkeypatch.setattr(clirkit.hashing, "string_hash", lambda docids: np.zeros(len(docids), dtype=np.uint64))
    run = Run(np.array(["q1", "q1", "q2"]), np.array(["d1", "d2", "d1"]), np.array([2.0, 1.0, 1.0]))
    write_run(run, tmp_path / "a.run")  # every key equal, no pair repeated: made, written
    assert len(read_run(tmp_path / "a.run")) == 3
    with pytest.raises(ClirkitError, match=r"^Run row 3 repeats query q1 and document d2"):
        Run(["q1"] * 3, ["d1", "d2", "d2"], [3.0, 2.0, 1.0])
    with pytest.raises(ClirkitError, match=r"^Run row 3 repeats query q1 and document d1"):  # ranked: as given
        Run.ranked(["q1"] * 3, ["d1", "d2", "d1"], [1.0, 2.0, 3.0])
