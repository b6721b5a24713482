"""The Python API on text and DataFrames (clirkit.topicforms.as_topics, clirkit.run, clirkit.metrics): every system's
search takes a text, texts, a dict, a queries frame or ir_datasets queries and gives the dict's run; runs and qrels
go to PyTerrier's frames and ir_datasets' namedtuples and back; ir_measures' measure objects are measures; bad input
is a one-line ClirkitError."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.metrics import evaluate
from clirkit.run import Qrels, Run
from clirkit.systems import DT, PSQ, Fusion, Resources
from clirkit.topicforms import as_topics
from clirkit.translation import TranslationTable

pd = pytest.importorskip("pandas")

TABLE = TranslationTable.from_triples(
    ["light", "light", "god", "waters", "darkness", "beginning"],
    ["luz", "la", "dios", "aguas", "tinieblas", "principio"],
    [0.8, 0.2, 1.0, 1.0, 1.0, 1.0],
    params={"source_analyzer": {"lang": "en", "lowercase": True, "strip_punctuation": True, "stopwords": []}},
)
TOPICS = {"q1": "the light of God", "q2": "God and the waters", "q3": "light in the darkness"}


def _same(a: Run, b: Run) -> bool:
    return (
        a.qids.tolist() == b.qids.tolist()
        and a.docids.tolist() == b.docids.tolist()
        and a.scores.tolist() == b.scores.tolist()
    )


def _one_line_error(call) -> str:
    with pytest.raises(ClirkitError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message and message
    return message


@pytest.fixture
def psq(index):
    return PSQ().fit(Resources(index=index, table=TABLE))


# --------------------------------------------------------------------------- search: every form of topics


def test_search_takes_one_text_as_query_1(psq):
    assert _same(psq.search("the light of God"), psq.search({"1": "the light of God"}))
    assert psq.search("the light of God").query_ids == ["1"]


def test_search_takes_a_list_of_texts_numbered_from_1(psq):
    run = psq.search(["the light of God", "God and the waters"])
    assert _same(run, psq.search({"1": "the light of God", "2": "God and the waters"}))


def test_search_takes_a_pyterrier_queries_frame_and_its_extra_columns_do_not_matter(psq):
    frame = pd.DataFrame({"qid": list(TOPICS), "query": list(TOPICS.values()), "narrative": ["x", "y", "z"]})
    assert _same(psq.search(frame), psq.search(TOPICS))
    numbered = pd.DataFrame({"qid": [1, 2], "query": ["light", "waters"]})  # integer qids become strings
    assert psq.search(numbered).query_ids == ["1", "2"]


def test_search_takes_a_results_frame_whose_rows_repeat_each_querys_text(psq):
    frame = pd.DataFrame(
        {
            "qid": ["q1", "q1", "q2"],
            "query": [TOPICS["q1"], TOPICS["q1"], TOPICS["q2"]],
            "docno": ["Gen.1.1", "Gen.1.3", "Gen.1.2"],
        }
    )
    assert _same(psq.search(frame), psq.search({"q1": TOPICS["q1"], "q2": TOPICS["q2"]}))


def test_search_takes_ir_datasets_queries_title_first_and_an_iterator(psq):
    from ir_datasets.formats import GenericQuery, TrecQuery

    trec = [TrecQuery(q, t, "a description", "a narrative") for q, t in TOPICS.items()]
    assert _same(psq.search(trec), psq.search(TOPICS))
    assert _same(psq.search(iter(GenericQuery(q, t) for q, t in TOPICS.items())), psq.search(TOPICS))


def test_search_takes_a_pandas_series_of_texts_by_qid(psq):
    assert _same(psq.search(pd.Series(TOPICS)), psq.search(TOPICS))


def test_every_system_takes_every_form_dt_and_a_fusion_too(index, psq):
    dt = DT().fit(Resources(index=index, table=TABLE))
    fusion = Fusion([dt, psq], weights=[0.5, 0.5]).fit_runs(None, None, n=2)
    frame = pd.DataFrame({"qid": list(TOPICS), "query": list(TOPICS.values())})
    for system in (dt, fusion):
        assert _same(system.search(frame), system.search(TOPICS))
        assert _same(system.search(TOPICS["q1"]), system.search({"1": TOPICS["q1"]}))


def test_a_dict_of_texts_reaches_the_system_unchanged():
    topics = {"q1": "light"}
    assert as_topics(topics) is topics


@pytest.mark.parametrize(
    "bad, says",
    [
        (42, "got int"),
        (b"light", "got bytes"),
        ([1, 2], "got a list of int"),
        ([("q1", "light")], "got a list of tuple"),
        ({"q1": ["light", "god"]}, "the text of query 'q1' is a list, not a str"),
        ({"q1": None}, "the text of query 'q1' is a NoneType"),
    ],
)
def test_a_form_search_does_not_take_is_a_one_line_error_saying_what_it_takes(psq, bad, says):
    message = _one_line_error(lambda: psq.search(bad))
    assert says in message and ("expected a text, a list of texts" in message or "not a str" in message)


def test_a_frame_without_qid_or_query_names_the_missing_and_present_columns(psq):
    message = _one_line_error(lambda: psq.search(pd.DataFrame({"id": ["q1"], "text": ["light"]})))
    assert message == (
        "topics: the DataFrame has no qid and no query column (its columns: id, text); a queries "
        "frame has qid and query"
    )
    message = _one_line_error(lambda: psq.search(pd.DataFrame({"qid": ["q1"], "query": [float("nan")]})))
    assert "the text of query 'q1' is a float" in message


def test_a_query_id_given_twice_with_two_texts_is_an_error(psq):
    frame = pd.DataFrame({"qid": ["q1", "q1"], "query": ["light", "waters"]})
    assert "query 'q1' appears twice with two texts" in _one_line_error(lambda: psq.search(frame))


def test_ir_datasets_queries_without_a_text_field_say_what_was_looked_for(psq):
    from collections import namedtuple

    Odd = namedtuple("Odd", ["query_id", "body"])
    message = _one_line_error(lambda: psq.search([Odd("q1", "light")]))
    assert "no query text field (looked for title, description, text; found: query_id, body)" in message


def test_resources_take_topics_in_every_form():
    frame = pd.DataFrame({"qid": ["q1"], "query": ["light"]})
    resources = Resources(topics={"train": frame, "test": "waters"})
    assert resources.topics("train") == {"q1": "light"} and resources.topics("test") == {"1": "waters"}


# --------------------------------------------------------------------------- runs and qrels, frames and records

RUN = Run.ranked(["q2", "q2", "q1", "q1"], ["Gen.1.3", "Gen.1.1", "Gen.1.2", "Gen.1.5"], [0.5, 2.0, 1.0, 1.0])


def test_a_run_goes_to_pyterriers_result_frame_with_ranks_from_0_and_back():
    frame = RUN.to_frame("pyterrier")
    assert list(frame.columns) == ["qid", "docno", "score", "rank"]
    assert frame["rank"].tolist() == [0, 1, 0, 1] and frame["docno"].tolist() == [
        "Gen.1.1",
        "Gen.1.3",
        "Gen.1.2",
        "Gen.1.5",
    ]
    assert _same(Run.from_frame(frame), RUN)
    assert _same(Run.from_frame(frame.sample(frac=1.0, random_state=2)), Run.from_frame(frame.sort_values("qid")))


def test_from_frame_reads_the_score_not_a_stale_rank_and_prefers_docno_to_terriers_docid():
    frame = RUN.to_frame("pyterrier").assign(docid=[7, 8, 9, 10], rank=[3, 2, 1, 0])
    back = Run.from_frame(frame)
    assert _same(back, RUN)


def test_a_run_goes_to_ir_datasets_scoreddocs_and_back():
    from ir_datasets.formats import GenericScoredDoc

    records = RUN.to_records()
    assert records[0] == ("q2", "Gen.1.1", 2.0) and records[0].query_id == "q2" and records[0].doc_id == "Gen.1.1"
    assert _same(Run.from_records(records), RUN)
    assert _same(Run.from_records([GenericScoredDoc(*r) for r in records]), RUN)


def test_qrels_go_to_pyterriers_qrels_frame_and_ir_datasets_qrels_and_back():
    from ir_datasets.formats import TrecQrel

    qrels = Qrels(["q1", "q1", "q2"], ["Gen.1.2", "Gen.1.5", "Gen.1.1"], [2, 0, 1])
    frame = qrels.to_frame("pyterrier")
    assert list(frame.columns) == ["qid", "docno", "label"] and frame["label"].tolist() == [2, 0, 1]
    for back in (
        Qrels.from_frame(frame),
        Qrels.from_frame(qrels.to_frame()),
        Qrels.from_records(qrels.to_records()),
        Qrels.from_records(TrecQrel(q, d, r, "0") for q, d, r in zip(qrels.qids, qrels.docids, qrels.rels)),
    ):
        assert back.to_dict() == qrels.to_dict()


@pytest.mark.parametrize(
    "call, says",
    [
        (
            lambda: Run.from_frame(pd.DataFrame({"qid": ["q1"], "doc": ["d"]})),
            "a run frame: no docno or docid, no score column (its columns: qid, doc)",
        ),
        (lambda: Run.from_frame({"qid": ["q1"]}), "a run frame: expected a pandas DataFrame, got dict"),
        (lambda: Run.from_records([("q1", "d", 1.0)]), "a run record (number 1) has no query_id field"),
        (
            lambda: Qrels.from_frame(pd.DataFrame({"qid": ["q1"], "docno": ["d"], "label": [0.5]})),
            "a qrels frame's label must be whole numbers (grades), got 0.5",
        ),
        (lambda: Qrels.from_frame(pd.DataFrame({"qid": ["q1"], "docno": ["d"]})), "a qrels frame: no label column"),
        (lambda: RUN.to_frame("trec"), "style must be one of clirkit, pyterrier, got 'trec'"),
    ],
)
def test_a_frame_or_record_of_the_wrong_shape_is_a_one_line_error(call, says):
    assert says in _one_line_error(call)


# --------------------------------------------------------------------------- measures and evaluations

QRELS = Qrels(["q1", "q1", "q2", "q2"], ["Gen.1.2", "Gen.1.7", "Gen.1.3", "Gen.1.4"], [1, 2, 2, 1])


def test_ir_measures_objects_are_the_measures_their_names_say():
    from ir_measures import AP, RR, P, R, nDCG

    objects = evaluate(RUN, QRELS, [AP, nDCG @ 10, R @ 1000, P(rel=2) @ 10, RR])
    names = evaluate(RUN, QRELS, ["AP", "nDCG@10", "R@1000", "P(rel=2)@10", "RR"])
    assert objects.measures == names.measures and np.array_equal(objects.values, names.values)
    assert evaluate(RUN, QRELS, AP).measures == ("AP",)  # one object alone, as one name alone
    assert evaluate(RUN, QRELS, [nDCG @ 10], names="given").measures == ("nDCG@10",)


def test_ir_measures_objects_give_ir_measures_own_numbers():
    import ir_measures
    from ir_measures import AP, R, nDCG

    ours = evaluate(RUN, QRELS, [AP, nDCG @ 10, R @ 1000]).mean()
    theirs = ir_measures.calc_aggregate([AP, nDCG @ 10, R @ 1000], QRELS.to_records(), RUN.to_records())
    assert {str(m): v for m, v in theirs.items()} == pytest.approx(ours, abs=1e-12)


def test_an_ir_measures_parameter_clirkit_does_not_compute_is_an_error_not_ignored():
    from ir_measures import Judged, nDCG

    assert "clirkit's nDCG takes no parameter" in _one_line_error(
        lambda: evaluate(RUN, QRELS, [nDCG(dcg="exp-log2") @ 10])
    )
    assert "unknown measure 'Judged@10'" in _one_line_error(lambda: evaluate(RUN, QRELS, [Judged @ 10]))


def test_an_evaluation_goes_to_a_wide_or_a_long_frame():
    ev = evaluate(RUN, QRELS, ["AP", "P@10"])
    wide = ev.to_frame()
    assert list(wide.columns) == ["qid", "AP", "P@10"] and wide["qid"].tolist() == ev.qids.tolist()
    assert wide["AP"].tolist() == ev.column("AP").tolist()
    long = ev.to_frame("long")
    assert list(long.columns) == ["qid", "measure", "value"] and len(long) == 2 * ev.n_queries
    assert long.pivot(index="qid", columns="measure", values="value").loc["q1", "P@10"] == ev.per_query()["q1"]["P@10"]
    assert "layout must be wide or long" in _one_line_error(lambda: ev.to_frame("tall"))


def test_importing_clirkit_and_its_systems_imports_neither_pyterrier_nor_ir_measures():
    code = (
        "import sys, clirkit, clirkit.systems, clirkit.run, clirkit.metrics, clirkit.estimator; "
        "print(sorted(m for m in ('pyterrier', 'ir_measures') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
