"""Edge round 23 (an independent tester's findings on a frozen copy of 57cb709), the Python API: documents whose
ids or texts no run can hold, a report without a name for its qrels, a count of 1 in the singular. (A score given
as a numeric text stays read as its number, as a frame's object column is: tests/test_edges_readers.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from clirkit.documents import Documents
from clirkit.errors import ClirkitError
from clirkit.metrics import evaluate
from clirkit.report import Report
from clirkit.run import Qrels, Run

RULE = "give ids non-empty, without whitespace or NUL, at most 1,000 characters"


@pytest.mark.parametrize(
    "docids, texts, message",
    [
        (
            ["d1", "d2"],
            [None, "casa"],
            "document 'd1' (number 1): its text is None, not text: give each document a text",
        ),
        (["d1", "d2"], ["a", math.nan], "document 'd2' (number 2): its text is nan, not text"),
        (["d1", "d1"], ["a", "b"], "document id 'd1' is given twice (documents 1 and 2)"),
        (["d 1", "d2"], ["a", "b"], f"document 1: its id 'd 1' contains whitespace: {RULE}"),
        (["d1", ""], ["a", "b"], f"document 2: its id '' is empty: {RULE}"),
        (["d1", math.nan], ["a", "b"], f"document 2: its id is nan, not text: {RULE}"),
        (["d1", 7], ["a", "b"], f"document 2: its id is 7, not text: {RULE}"),
    ],
)
def test_documents_refuse_what_no_run_could_name_or_no_analyzer_could_read(docids, texts, message):
    with pytest.raises(ClirkitError) as caught:
        Documents(docids, texts)
    assert str(caught.value).startswith(message)


def test_documents_of_text_ids_and_texts_are_taken_as_they_are():
    docs = Documents(np.array(["d1", "d2"]), ["el perro", ""])
    assert docs.docids == ["d1", "d2"] and docs.texts == ["el perro", ""]


def test_a_report_without_a_name_for_its_qrels_says_qrels_once():
    qrels = Qrels(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([1, 0]))
    evaluation = evaluate(Run(["q1", "q1"], ["d1", "d2"], [2.0, 1.0]), qrels, ["AP"])
    assert "# qrels: mean over the 1 query of the qrels" in Report(["a"], [evaluation]).text()
    assert "# qrels q.txt: mean" in Report(["a"], [evaluation], qrels="q.txt").text()


def test_a_run_of_one_query_that_the_qrels_lack_is_said_in_the_singular():
    qrels = Qrels(np.array(["q1"]), np.array(["d1"]), np.array([1]))
    with pytest.raises(
        ClirkitError, match=r"^none of the run's 1 query \(e\.g\. 'q9'\) is in the qrels \(1 query, e\.g"
    ):
        evaluate(Run(["q9"], ["d1"], [1.0]), qrels, ["AP"])


def test_round_24_nits_the_singular_of_one_query():
    from clirkit.datasets._store import describe_counts
    from clirkit.experiment.report import _the_queries

    counts = {"documents": 3, "parallel_pairs": 0, "test": {"queries": 1, "qrels": {1: 2}}}
    assert describe_counts("standard", counts).splitlines()[1] == "  test 1 query; grade 1: 2"
    assert _the_queries(1, "test") == "the 1 test query" and _the_queries(12, "dev") == "any of the 12 dev queries"
