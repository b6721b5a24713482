"""What every system's search takes beside its topics (clirkit.searchoptions): the excluded documents read as docids
and left out before the depth cut, a depth beyond any collection, a tag a run file can hold (edge round 12,
findings 8 and 14)."""

from __future__ import annotations

import numpy as np
import pytest
from test_python_api import _one_line_error as _error

from clirkit.analysis import Analyzer
from clirkit.estimator import drop_excluded
from clirkit.retrieval.index import Index
from clirkit.run import Run
from clirkit.runsystem import RunFile
from clirkit.systems import DT, PSQ, BM25Search, Fusion, Resources
from clirkit.translation import TranslationTable

TABLE = TranslationTable.from_triples(
    ["light", "darkness", "waters"],
    ["luz", "tinieblas", "aguas"],
    [1.0, 1.0, 1.0],
    params={"source_analyzer": {"lang": "en", "lowercase": True, "strip_punctuation": True, "stopwords": []}},
)


def _rows(run) -> list:
    return list(zip(run.qids.tolist(), run.docids.tolist()))


@pytest.fixture
def bm25(index):
    return BM25Search().fit(Resources(index=index))


def _systems(index) -> dict:
    dt = DT().fit(Resources(index=index, table=TABLE))
    psq = PSQ().fit(Resources(index=index, table=TABLE))
    whole = BM25Search().fit(Resources(index=index)).search({"q1": "luz tinieblas"})
    return {
        "BM25": (BM25Search().fit(Resources(index=index)), "luz tinieblas"),
        "DT": (dt, "light darkness"),
        "PSQ": (psq, "light darkness"),
        "fusion": (Fusion([dt, psq], weights=[0.5, 0.5]).fit_runs(None, None, n=2), "light darkness"),
        "run": (RunFile(run=whole).fit(), "luz tinieblas"),
    }


@pytest.mark.parametrize("name", ["BM25", "DT", "PSQ", "fusion", "run"])
def test_the_excluded_documents_leave_before_the_depth_cut_so_a_query_keeps_depth_results(index, name):
    system, text = _systems(index)[name]
    top = system.search({"q1": text}, depth=4)
    first = str(top.docids[0])
    cut = system.search({"q1": text}, depth=3, excluded={"q1": {first}})
    assert _rows(cut) == _rows(top)[1:]


def test_a_str_value_is_one_docid_not_a_set_of_its_substrings():
    index = Index.build([("d1", "luz"), ("d13", "luz luz"), ("d3", "luz aguas")], Analyzer("es"))
    bm25 = BM25Search().fit(Resources(index=index))
    whole = bm25.search({"q": "luz"})
    assert sorted(whole.docids.tolist()) == ["d1", "d13", "d3"]  # "d1" and "d3" are in "d13"
    for value in ("d13", {"d13"}, ["d13"], ("d13",)):
        assert _rows(bm25.search({"q": "luz"}, excluded={"q": value})) == [r for r in _rows(whole) if r[1] != "d13"]


def test_the_excluded_keys_are_matched_as_topics_qids_are(bm25):
    whole = bm25.search({"1": "luz"})
    first = str(whole.docids[0])
    assert first not in bm25.search({"1": "luz"}, excluded={1: {first}}).docids.tolist()
    assert first not in bm25.search({1: "luz"}, excluded={np.int64(1): first}).docids.tolist()


@pytest.mark.parametrize(
    "excluded, says",
    [
        ({"1": None}, "excluded: query '1' has None, not its documents: give a set of docids, one docid, or leave"),
        ({"1": 5}, "excluded: query '1' has 5, not its documents"),
        ({"1": [1.5]}, "excluded: query '1' lists 1.5, a float: give document ids as strings"),
        ({None: {"Gen.1.1"}}, "excluded: entry 1 has no qid (None)"),
        ({1: {"Gen.1.1"}, "1": {"Gen.1.2"}}, "excluded names query '1' twice (1 and '1'); give each query once"),
        (["Gen.1.1"], "excluded: expected {qid: docids} (the documents each query must not return), got list"),
    ],
)
def test_excluded_documents_that_are_no_docids_are_a_one_line_error(bm25, excluded, says):
    assert _error(lambda: bm25.search({"1": "luz"}, excluded=excluded)).startswith(says)


def test_drop_excluded_reads_a_str_as_one_docid_and_cuts_at_depth_after_leaving_out():
    run = Run(["q", "q", "q"], ["d1", "d13", "d3"], [3.0, 2.0, 1.0])
    assert _rows(drop_excluded(run, {"q": "d13"})) == [("q", "d1"), ("q", "d3")]
    assert _rows(drop_excluded(run, {"q": {"d1"}}, 1)) == [("q", "d13")]
    assert drop_excluded(run, {"q": set()}, 3) is run


def test_a_depth_beyond_any_collection_is_every_document_not_an_overflow(bm25):
    every = bm25.search({"q": "luz"}, depth=1000)
    assert _rows(bm25.search({"q": "luz"}, depth=np.iinfo(np.int64).max)) == _rows(every)
    for depth in (2**63, 2**70):  # beyond int64: refused in one line (check_depth)
        assert "depth must be at most 2**63 - 1 (int64)" in _error(lambda: bm25.search({"q": "luz"}, depth=depth))
    assert "depth must be an integer >= 1, got 0" in _error(lambda: bm25.search({"q": "luz"}, depth=0))


@pytest.mark.parametrize(
    "tag, says",
    [
        (5, "run tag 5 is not a str"),
        ("", "run tag '' must be non-empty, without whitespace"),
        ("my run", "run tag 'my run' must be non-empty, without whitespace"),
    ],
)
def test_a_tag_no_run_file_can_hold_is_refused_by_search(bm25, tag, says):
    assert _error(lambda: bm25.search({"q": "luz"}, tag=tag)).startswith(says)
    assert bm25.search({"q": "luz"}, tag="mine").tag == "mine"
