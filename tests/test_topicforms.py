"""The query ids of every form of topics (clirkit.topicforms): a str or a whole number is a qid, anything else is a
one-line ClirkitError before any search (edge round 12, findings 7, 10 and 14)."""

from __future__ import annotations

import numpy as np
import pytest
from test_python_api import _one_line_error as _error

from clirkit.systems import BM25Search, Resources
from clirkit.topicforms import as_topics

pd = pytest.importorskip("pandas")


@pytest.fixture
def bm25(index):
    return BM25Search().fit(Resources(index=index))


def test_whole_numbers_are_qids_as_their_decimal_text_in_every_form(bm25):
    assert list(as_topics({1: "luz", np.int64(2): "aguas"})) == ["1", "2"]
    assert list(as_topics(pd.Series(["luz", "aguas"], index=[1, 2]))) == ["1", "2"]
    assert list(as_topics(pd.DataFrame({"qid": pd.array([1, 2], dtype="Int64"), "query": ["luz", "aguas"]}))) == [
        "1",
        "2",
    ]
    assert bm25.search({7: "luz"}).to_dict() == bm25.search({"7": "luz"}).to_dict()


@pytest.mark.parametrize(
    "topics, says",
    [
        (
            pd.DataFrame({"qid": pd.array([1, None], dtype="Int64"), "query": ["luz", "aguas"]}),
            "topics: row 1 has no qid (<NA>); give every row its qid",
        ),
        (pd.DataFrame({"qid": [1.0, 2.0], "query": ["luz", "aguas"]}), "topics: row 0 has qid 1.0, a float"),
        (pd.Series(["luz", "aguas"], index=["q1", np.nan]), "topics: query 2 has no qid (nan)"),
        (pd.Series(["luz"], index=[1.0]), "topics: query 1 has qid 1.0, a float"),
        ({None: "luz"}, "topics: query 1 has no qid (None); give every query its qid"),
        ({"q1": "luz", 2.0: "aguas"}, "topics: query 2 has qid 2.0, a float: give ids as strings (or whole numbers)"),
        ({True: "luz"}, "topics: query 1 has qid True, a bool"),
        ({("a", "b"): "luz"}, "topics: query 1 has qid ('a', 'b'), a tuple"),
        ({"q 1": "luz"}, "topics: query id 'q 1' contains whitespace"),
        ({"": "luz"}, "topics: query id '' is empty"),
    ],
)
def test_a_missing_float_or_odd_qid_is_refused_before_the_search(bm25, topics, says):
    assert _error(lambda: bm25.search(topics)).startswith(says)


def test_the_topics_naming_one_query_twice_say_so(bm25):
    message = _error(lambda: bm25.search({1: "luz", "1": "aguas"}))
    assert message == "topics name query '1' twice (1 and '1'); give each query once"


@pytest.mark.parametrize("texts", [{"luz", "aguas"}, frozenset({"luz"})])
def test_a_set_of_texts_has_no_order_and_is_refused(bm25, texts):
    message = _error(lambda: bm25.search(texts))
    assert message.startswith("topics: a set (") and "give a list or a dict {qid: text}" in message


def test_a_dicts_values_lose_its_qids_and_are_refused(bm25):
    message = _error(lambda: bm25.search({"q1": "luz", "q2": "aguas"}.values()))
    assert message == "topics: a dict's values (dict_values) leave its qids behind: give the dict"


def test_resources_read_their_topics_the_same_way():
    assert Resources(topics={"test": {1: "luz"}}).topics("test") == {"1": "luz"}
    assert "test topics: query 1 has no qid (None)" in _error(lambda: Resources(topics={"test": {None: "luz"}}))
