"""Edge round 25 (issue 40, "Trust at the edges"), packed runs, fusion and re-ranking: a wrong input to
PackedRun.from_codes, document_ids, blocks, packed_in_blocks, Fusion, align and BoostModel.rerank is refused in one
ClirkitError line naming the argument and what it expects, never a traceback from deep inside nor a silently wrong
run (a pair listed twice through a repeated document id, codes cast to other documents, a batch of no rows)."""

from __future__ import annotations

import numpy as np
import pytest
from test_boost_model import DOCIDS, DOCS, small_model

from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.fusion import borda, interpolate
from clirkit.fusion.align import align
from clirkit.metrics import evaluate
from clirkit.packedrun import PackedRun, packed_in_blocks
from clirkit.run import Qrels, Run
from clirkit.systems import Fusion, RunFile

TAG_RULE = "Run tag must be a str (non-empty, without whitespace or NUL, at most 1,000 characters), got"
A = Run(np.array(["q1", "q1", "q2"]), np.array(["d1", "d2", "d1"]), np.array([3.0, 2.0, 1.0]), tag="a")
B = Run(np.array(["q1", "q1", "q2"]), np.array(["d2", "d3", "d1"]), np.array([3.0, 2.0, 1.0]), tag="b")
QRELS = Qrels(np.array(["q1"]), np.array(["d1"]), np.array([1]))


def _refused(call, *says: str) -> str:
    """``call()`` raises a one-line ClirkitError holding each of ``says``: its message."""
    with pytest.raises(ClirkitError) as caught:
        call()
    text = str(caught.value)
    assert "\n" not in text and all(s in text for s in says), text
    return text


_FALLING = object()


def _codes(codes, documents=("d", "e"), scores=_FALLING, rows: int | None = None, **kwargs):
    """``PackedRun.from_codes`` of one query ``q`` of ``rows`` rows (default ``len(codes)``) holding ``codes``
    (scores falling by default)."""
    rows = len(codes) if rows is None else rows
    scores = [float(rows - i) for i in range(rows)] if scores is _FALLING else scores
    return PackedRun.from_codes(["q"], [rows], documents, codes, scores, **{"tag": "x", **kwargs})


# 1. a pair listed twice through a document id given twice -------------------------------------------------------


def test_from_codes_refuses_a_document_listed_twice_for_a_query_through_an_id_given_twice():
    _refused(lambda: _codes([0, 1], documents=["d", "d"]), "a query lists a document twice", "'q'", "'d'")
    # the same rows as a Run are refused too; evaluate would have scored the document twice
    _refused(lambda: Run(np.array(["q", "q"]), np.array(["d", "d"]), np.array([3.0, 2.0])), "each pair once")
    rows = ["q", "q", "r", "r"], [2, 0, 2], ["d", "e", "d", "f"]
    _refused(lambda: PackedRun.from_codes(["q", "s", "r"], [2, 0, 2], rows[2], [0, 1, 2, 0], [2, 1, 2, 1], tag="x"))
    # an id given twice is one document only where one query names it twice
    run = PackedRun.from_codes(["q", "r"], [2, 2], ["d", "e", "d"], [0, 1, 2, 1], [3.0, 2.0, 1.0, 0.0], tag="x")
    assert run.unpack().to_dict() == {"q": {"d": 3.0, "e": 2.0}, "r": {"d": 1.0, "e": 0.0}}
    unused = _codes([1, 2], documents=["d", "e", "f", "d"])  # (the repeated id named by no row)
    assert unused.document_ids().tolist() == ["e", "f"]


# 2. codes checked before they are cast to int32 -----------------------------------------------------------------


@pytest.mark.parametrize("codes", [[2**40], [2**32, 2**32 + 1], [-1], [2], np.array([2**33], dtype=np.uint64)])
def test_from_codes_refuses_codes_outside_the_documents_before_casting_them(codes):
    _refused(lambda: _codes(codes), "a document code outside the 2 documents: code ", "from 0 to 1")


def test_from_codes_refuses_codes_that_are_not_integers_and_takes_those_of_any_integer_type():
    for codes in ([0.9, 1.2], [0.0, 1.0], ["0", "1"], [True, False], [[0, 1]], 1, None):
        _refused(lambda: _codes(codes, rows=2), "packed run: codes must be integers, one per row")
    for dtype in (np.int8, np.uint16, np.int64, np.uint64):
        assert _codes(np.array([1, 0], dtype=dtype)).document_ids().tolist() == ["e", "d"]


# 3. and 7. BoostModel.rerank -----------------------------------------------------------------------------------

CANDIDATES = Run(np.array(["q1", "q1", "q1"]), np.array(DOCIDS[:3]), np.array([3.0, 2.0, 1.0]), tag="c")
QUERIES = {"q1": ["light", "god"]}


@pytest.mark.parametrize("packed", [False, True])
def test_rerank_refuses_a_batch_that_is_not_a_count_of_rows_and_scores_every_row_in_batches_of_any_count(packed):
    model, candidates = small_model(), PackedRun(CANDIDATES) if packed else CANDIDATES
    for batch_rows in (-1, 0, 1.5, "2", True, None):  # (-1 scored no row: every score 0)
        call = lambda: model.rerank(candidates, QUERIES, DOCIDS, DOCS, batch_rows=batch_rows)  # noqa: E731
        _refused(call, "rerank: batch_rows must be an integer >= 1, got ")
    whole = model.rerank(candidates, QUERIES, DOCIDS, DOCS)
    assert whole.scores.tolist() == [3.5, 1.5, 0.0]
    for batch_rows in (1, np.int64(2), 3, 10**9):
        run = model.rerank(candidates, QUERIES, DOCIDS, DOCS, batch_rows=batch_rows)
        assert run.to_dict() == whole.to_dict()


@pytest.mark.parametrize(
    "args, says",
    [
        ((None, QUERIES, DOCIDS, DOCS), "rerank: candidates must be a Run or a PackedRun"),
        (({"q1": {"Gen.1.1": 1.0}}, QUERIES, DOCIDS, DOCS), "got dict"),
        ((CANDIDATES, None, DOCIDS, DOCS), "rerank: queries must be a mapping {qid: tokens}, got NoneType"),
        ((CANDIDATES, QUERIES, None, DOCS), "rerank: docids must be a list of document ids, got None"),
        ((CANDIDATES, QUERIES, "Gen.1.1", DOCS), "rerank: docids must be a list of document ids"),
        ((CANDIDATES, QUERIES, DOCIDS, None), "rerank: doc_tokens must be a list of token lists, one per docid"),
        ((CANDIDATES, QUERIES, DOCIDS, DOCS[:2]), "rerank: 4 docids but 2 token lists in doc_tokens"),
        ((PackedRun(CANDIDATES), QUERIES, DOCIDS, DOCS[:2]), "rerank: 4 docids but 2 token lists"),
        ((CANDIDATES, QUERIES, DOCIDS, DOCS + [["luz"]]), "rerank: 4 docids but 5 token lists"),
    ],
)
def test_rerank_refuses_what_is_not_its_inputs_in_one_line(args, says):
    model = small_model()
    _refused(lambda: model.rerank(*args), says)
    _refused(lambda: model.rerank(CANDIDATES, QUERIES, DOCIDS, DOCS, tag=5), TAG_RULE)
    _refused(lambda: model.rerank(CANDIDATES, QUERIES, DOCIDS, DOCS, depth=0), "depth must be")


# 4. tags that are not text ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("tag", [None, 5, "a b", ""])
def test_from_codes_refuses_a_tag_no_run_file_holds(tag):
    _refused(lambda: _codes([0], tag=tag), "Run tag ")


def _fitted() -> Fusion:
    return Fusion(method="interpolation", weights=[0.5, 0.5]).fit_runs(None, None, n=2)


def test_a_fusion_refuses_a_tag_no_run_file_holds_of_packed_runs_as_of_runs():
    for runs in ([PackedRun(A), PackedRun(B)], [A, B]):
        _refused(lambda: _fitted().fuse(runs, tag=3), TAG_RULE + " 3")
        for method in (interpolate, borda):
            _refused(lambda: method(runs, [0.5, 0.5], tag=3), TAG_RULE + " 3")
        assert _fitted().fuse(runs, tag="mine").tag == "mine"


# 5. document_ids --------------------------------------------------------------------------------------------------


def test_document_ids_refuses_what_are_no_rows_of_the_run_and_takes_slices_positions_and_masks():
    packed = PackedRun(A)
    for rows, says in (
        (5, "PackedRun.document_ids: row 5 is beyond the run's 3 rows: give positions from 0 to 2"),
        ([7], "row 7 is beyond the run's 3 rows"),
        ([-4], "row -4 is beyond"),
        (["7"], "PackedRun.document_ids: rows must be a slice, row positions (integers) or one boolean per row"),
        ("a", "got 'a'"),
        (1.5, "got 1.5"),
        ([True, False], "got [True, False]"),
        ([[0, 1]], "rows must be a slice"),
    ):
        _refused(lambda: packed.document_ids(rows), says)
    assert packed.document_ids().tolist() == ["d1", "d2", "d1"]
    assert packed.document_ids(slice(1, None)).tolist() == ["d2", "d1"]
    assert packed.document_ids([2, 0, -2]).tolist() == ["d1", "d1", "d2"]
    assert packed.document_ids(np.array([1], dtype=np.uint8)).tolist() == ["d2"]
    assert packed.document_ids([False, True, False]).tolist() == ["d2"]
    assert packed.document_ids([]).tolist() == [] and packed.document_ids(1) == "d2"


# 6. Fusion: runs, qrels and resources ----------------------------------------------------------------------------


@pytest.mark.parametrize("other", [None, 5, {"q1": {"d1": 1.0}}])
def test_a_fusion_refuses_a_member_of_its_runs_that_is_not_a_run(other):
    packed = PackedRun(A)
    name = type(other).__name__
    _refused(
        lambda: _fitted().fuse([packed, other]),
        f"runs: expected a list of runs (clirkit Runs), got a {name} among them",
    )
    tuned = Fusion(method="interpolation")
    _refused(lambda: tuned.fit_runs([packed, other], QRELS), "dev_runs: expected a list of runs", f"{name} among them")
    _refused(lambda: tuned.fit_runs(A, QRELS), "dev_runs: expected a list of runs (clirkit Runs), got a Run")


def test_a_fusion_refuses_dev_qrels_that_are_not_qrels_as_evaluate_does():
    says = "qrels: expected Qrels (read_qrels(path), Qrels.from_records(...)), got dict"
    _refused(lambda: evaluate(A, {"q1": {"d1": 1}}, ["AP"]), says)
    _refused(lambda: Fusion().fit_runs([PackedRun(A), PackedRun(B)], {"q1": {"d1": 1}}), "dev_" + says)
    assert Fusion().fit_runs((r for r in [A, B]), QRELS).weights_ == [0.8, 0.2]  # (a generator of runs: read once)


def test_a_fusion_of_systems_refuses_resources_that_are_not_resources():
    fusion = Fusion([RunFile(run=A).fit(), RunFile(run=B).fit()], weights=[0.5, 0.5])
    _refused(lambda: fusion.search_split(None, "test"), "Fusion.search_split takes Resources", "got NoneType")
    _refused(lambda: fusion.search_split({"test": {}}, "test"), "got dict")
    fusion.fit(Resources(topics={"test": {"q1": "x", "q2": "y"}}))
    assert fusion.search_split(Resources(topics={"test": {"q1": "x", "q2": "y"}}), "test").query_ids == ["q1", "q2"]


# 8. align and AlignedRuns.ranked -------------------------------------------------------------------------------


@pytest.mark.parametrize("other", [None, "x.run"])
def test_align_refuses_a_member_that_is_not_a_run(other):
    _refused(lambda: align([PackedRun(A), other], 10), f"aggregation: run 2 is a {type(other).__name__}, not a run")
    _refused(lambda: align([A, B], 0), "depth must be a whole number >= 1 (or None: every row), got 0")


@pytest.mark.parametrize("packed", [False, True])
def test_ranked_refuses_scores_of_another_length_a_depth_or_tag_before_any_work(packed):
    aligned = align([PackedRun(A), PackedRun(B)] if packed else [A, B], 10)
    n = aligned.n_pairs
    for scores in (np.zeros(n + 1), np.zeros(1), np.zeros(0)):
        _refused(
            lambda: aligned.ranked(scores, 10, "t"), f"AlignedRuns.ranked: scores must be numbers, one per pair ({n})"
        )
    _refused(lambda: aligned.ranked(None, 10, "t"), "got None")
    _refused(lambda: aligned.ranked(np.array(["1"] * n), 10, "t"), "one per pair")
    for depth in (0, "3", 2.0, None):
        _refused(lambda: aligned.ranked(np.zeros(n), depth, "t"), "depth must be an integer >= 1, got")
    _refused(lambda: aligned.top_k(0), "depth must be an integer >= 1, got 0")
    _refused(lambda: aligned.ranked(np.zeros(n), 10, None), TAG_RULE)
    ranked = aligned.ranked(np.arange(n, dtype=np.int64), np.int64(1), "t")
    assert isinstance(ranked, PackedRun) == packed and ranked.query_sizes().tolist() == [1, 1]


# 9. packed_in_blocks' block and from_codes' scores --------------------------------------------------------------


def test_packed_in_blocks_refuses_a_block_that_is_not_a_count_of_queries_before_searching():
    searched = []

    def search(topics, excluded, tag, quiet):
        searched.append(list(topics))
        q = next(iter(topics))
        return Run(np.array([q]), np.array(["d1"]), np.array([3.0 if q == "q1" else 1.0]), tag="a")

    for block in (-1, 0, 1.5, True):  # (-1: an IndexError; 0: taken as 500)
        call = lambda: packed_in_blocks(search, {"q1": "x", "q2": "y"}, tag=None, quiet=True, block=block)  # noqa: E731
        _refused(call, "packed_in_blocks: block must be an integer >= 1 (or None: 500), got ")
    _refused(lambda: packed_in_blocks(search, {"q1": "x"}, tag=5, quiet=True), TAG_RULE)
    assert searched == []
    packed = packed_in_blocks(search, {"q1": "x", "q2": "y"}, tag=None, quiet=True, block=np.int64(1))
    assert searched == [["q1"], ["q2"]]
    assert packed.unpack().to_dict() == {"q1": {"d1": 3.0}, "q2": {"d1": 1.0}}


@pytest.mark.parametrize("scores", [None, "3", ["a"], [[3.0]], 3.0])
def test_from_codes_refuses_scores_that_are_not_numbers_one_per_row(scores):
    _refused(lambda: _codes([0], scores=scores), "packed run: scores must be numbers, one per row, got ")


def test_from_codes_refuses_documents_that_are_not_a_list_of_ids():
    _refused(lambda: _codes([0], documents=None), "packed run: documents must be a list of document ids, got None")


# 10. numpy integers -------------------------------------------------------------------------------------------


def test_blocks_and_top_take_numpy_integers_alike():
    packed = PackedRun(A)
    assert [b.query_ids for b in packed.blocks(np.int64(1))] == [["q1"], ["q2"]]
    assert [b.query_ids for b in packed.blocks(np.uint8(2))] == [["q1", "q2"]]
    assert packed.top(np.int64(1)).query_sizes().tolist() == [1, 1]
    for queries in (np.int64(0), np.True_, 1.0):
        _refused(lambda: list(packed.blocks(queries)), "blocks: queries must be an integer >= 1 (or None: 500), got")
