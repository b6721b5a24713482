"""Edge round 25 (issue 40, "Trust at the edges"), the Python API: a wrong-typed or empty argument to a public
function is refused in one line naming the function (or class) and what it expected, never a traceback from deep
inside nor a silent acceptance; a Run refuses at its making the ids and tags write_run would refuse."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from clirkit.errors import ClirkitError, nth
from clirkit.run import Qrels, Run, ScoredDoc
from clirkit.systems import DT, BM25Search

RULE = "non-empty, without whitespace or NUL, at most 1,000 characters"


def _one_line(caught) -> str:
    text = str(caught.value)
    assert "\n" not in text, text
    return text


# 1. Qrels.subset -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("qids", [1, None, 2.5, b"q1"])
def test_qrels_subset_refuses_what_is_no_query_ids(qids):
    qrels = Qrels(np.array(["q1", "q2"]), np.array(["d1", "d2"]), np.array([1, 0]))
    with pytest.raises(ClirkitError) as caught:
        qrels.subset(qids)
    assert _one_line(caught).startswith("Qrels.subset: qids must be query ids (a list of them, or one as a str), got ")
    assert len(qrels.subset("q1")) == 1 and len(qrels.subset(["q1", "q2"])) == 2 and len(qrels.subset({"q2"})) == 1


# 2. from_records -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, says",
    [
        (
            lambda: Run.from_records(None),
            "Run.from_records: records must be an iterable of records with query_id, doc_id and score fields, got None",
        ),
        (lambda: Run.from_records(7), "Run.from_records: records must be an iterable of records with "),
        (
            lambda: Qrels.from_records(None),
            "Qrels.from_records: records must be an iterable of records with query_id, doc_id and relevance fields, "
            "got None",
        ),
    ],
)
def test_from_records_refuses_what_is_no_iterable_of_records(make, says):
    with pytest.raises(ClirkitError) as caught:
        make()
    assert _one_line(caught).startswith(says)
    assert len(Run.from_records([ScoredDoc("q1", "d1", 1.0)])) == 1


# 3. a Run refuses what write_run would, where it is made ------------------------------------------------------------

_FRAME = pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "score": [1.0]})
_RUN = Run(["q1"], ["d1"], [1.0])


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda: Run(["q 1"], ["d1"], [1.0]), "Run row 1 has query id 'q 1', which contains whitespace"),
        (lambda: Run(["  "], ["d1"], [1.0]), "Run row 1 has query id '  ', which contains whitespace"),
        (lambda: Run(["q1", "q1"], ["d1", "\t"], [2.0, 1.0]), "Run row 2 has document id '\\t', which contains "),
        (lambda: Run(["q1"], ["d\0x"], [1.0]), "Run row 1 has document id 'd\\x00x', which contains a NUL character"),
        (lambda: Run(["q1"], ["d" * 1001], [1.0]), "Run row 1 has document id 'ddd"),
        (lambda: Run.ranked(["q1", "q1"], ["d 2", "d1"], [1.0, 2.0]), "Run row 1 has document id 'd 2', which "),
        (lambda: Run.from_groups(["q1", "q 2"], [1, 1], ["d1", "d2"], [1.0, 2.0]), "Run row 2 has query id 'q 2'"),
        (lambda: Run.from_dict({"q1": {"d 1": 1.0}}), "a run dict: query 'q1', document 'd 1' has document id "),
        (lambda: Run.from_records([ScoredDoc(" ", "d1", 1.0)]), "a run record (number 1) has query id ' ', which "),
        (lambda: Run(["q1"], ["d1"], [1.0], tag=None), f"Run tag must be a str ({RULE}), got None"),
        (
            lambda: Run(["q1"], ["d1"], [1.0], tag="my run"),
            f"Run tag 'my run' contains whitespace: a tag (a run file's sixth column) must be {RULE}",
        ),
        (lambda: Run(["q1"], ["d1"], [1.0], tag=""), "Run tag '' is empty: a tag"),
        (lambda: Run(["q1"], ["d1"], [1.0], tag="PSQ\0"), "Run tag 'PSQ\\x00' contains a NUL character: a tag"),
        (lambda: Run.ranked(["q1"], ["d1"], [1.0], tag=None), "Run tag must be a str"),
        (lambda: Run.from_groups(["q1"], [1], ["d1"], [1.0], tag=" "), "Run tag ' ' contains whitespace"),
        (lambda: Run.from_dict({"q1": {"d1": 1.0}}, tag=None), "Run tag must be a str"),
        (lambda: Run.from_frame(_FRAME, tag="a b"), "Run tag 'a b' contains whitespace"),
        (lambda: Run.from_records([ScoredDoc("q1", "d1", 1.0)], tag=3), "Run tag must be a str"),
        (lambda: _RUN.with_tag(None), "Run tag must be a str"),
        (lambda: _RUN.with_tag("x\ty"), "Run tag 'x\\ty' contains whitespace"),
    ],
)
def test_a_run_refuses_an_id_or_tag_no_run_file_holds_where_it_is_made(make, says):
    with pytest.raises(ClirkitError) as caught:
        make()
    assert _one_line(caught).startswith(says)


def test_a_run_made_with_a_tag_a_file_holds_is_written_and_read_back_and_with_tag_checks_its_new_tag(tmp_path):
    from clirkit.formats import read_run, write_run

    run = Run.ranked(["q1", "q1", "q2"], ["d1", "dé", "d1"], [1.0, 2.0, 3.0], tag="PSQ").with_tag("DT")
    write_run(run, tmp_path / "a.run")
    back = read_run(tmp_path / "a.run")
    assert back.tag == "DT" and back.docids.tolist() == run.docids.tolist() == ["dé", "d1", "d1"]
    with pytest.raises(ClirkitError, match="^Run tag 'D T' contains whitespace"):
        back.with_tag("D T")


# 4. datasets.load ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [None, 1, ["nave-en-es"]])
def test_datasets_load_refuses_a_name_that_is_no_text(name):
    import clirkit.datasets

    with pytest.raises(ClirkitError) as caught:
        clirkit.datasets.load(name)
    assert _one_line(caught).startswith(
        "clirkit.datasets.load: name must be a collection name (clirkit.datasets.names()), a collection folder or "
        "'irds:ID', got "
    )


# 5. Index.from_tokens --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "docids, token_lists, says",
    [
        (["d1"], None, "Index.from_tokens takes a list of token lists (one per document), got None"),
        (["d1"], 5, "Index.from_tokens takes a list of token lists (one per document), got 5"),
        (["d1"], [None], "Index.from_tokens: document 1 (in input order) is None (NoneType), not a list of its terms"),
        (["d1", "d2"], [["casa"], None], "Index.from_tokens: document 2 (in input order) is None (NoneType)"),
        (["d1"], [7], "Index.from_tokens: document 1 (in input order) is 7 (int), not a list of its terms"),
        (["d1"], [{"casa": 3}], "Index.from_tokens: document 1 (in input order) is {'casa': 3} (dict), not a list"),
    ],
)
def test_index_from_tokens_refuses_a_document_or_list_that_is_no_list_of_terms(docids, token_lists, says):
    from clirkit.retrieval.index import Index

    with pytest.raises(ClirkitError) as caught:
        Index.from_tokens(docids, token_lists)
    assert _one_line(caught).startswith(says)


def test_index_from_tokens_refuses_a_dict_of_counts_but_takes_tuples_and_arrays_of_terms():
    from clirkit.retrieval.index import Index

    with pytest.raises(ClirkitError, match=r"^Index.from_tokens: document 2 \(in input order\) is \{'perro': 2\}"):
        Index.from_tokens(["d1", "d2"], [["casa"], {"perro": 2}])  # (its keys would be indexed, each once)
    index = Index.from_tokens(["d1", "d2", "d3"], [("casa", "casa"), np.array(["perro"]), []])
    assert index.stats()["n_tokens"] == 3


# 6. DT and BM25Search name themselves ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, says",
    [
        (
            lambda: DT(foo=1),
            "DT() got an unexpected keyword argument 'foo'; DT takes k1, b, k3, idf, precision, source_lang, "
            "source_stopwords, source_stopwords_top, decompound (by name)",
        ),
        (lambda: DT(1.2), "DT() got an unexpected positional argument 1.2; DT "),
        (
            lambda: BM25Search(source_lang="es"),
            "BM25Search() got an unexpected keyword argument 'source_lang'; BM25Search takes k1, b, k3, idf, "
            "precision (by name)",
        ),
    ],
)
def test_a_bm25_system_refuses_an_argument_it_does_not_take_naming_itself(make, says):
    with pytest.raises(TypeError) as caught:
        make()
    assert _one_line(caught).startswith(says)


def test_dt_keeps_its_parameters_and_signature():
    import inspect

    assert DT(k1=1.0, decompound="none").get_params()["k1"] == 1.0
    assert list(inspect.signature(DT).parameters)[:2] == ["k1", "b"] and DT.__init__.__qualname__ == "DT.__init__"
    assert BM25Search._get_param_names() == ["b", "idf", "k1", "k3", "precision"]


# 7. train_table of an empty corpus --------------------------------------------------------------------------------


@pytest.mark.parametrize("train", ["train_table", "train_ibm1"])
def test_training_on_an_empty_parallel_corpus_is_refused_as_the_command_refuses_it(train):
    import clirkit.translation.ibm1 as ibm1
    from clirkit.analysis import Analyzer

    args = ([], [], Analyzer("es"), Analyzer("en")) if train == "train_table" else ([], [])
    with pytest.raises(ValueError) as caught:
        getattr(ibm1, train)(*args)
    assert isinstance(caught.value, ClirkitError)
    assert _one_line(caught) == "source: empty parallel corpus: give at least one pair of sentences"


# 8. nth ----------------------------------------------------------------------------------------------------------


def test_nth_says_the_english_ordinal():
    said = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd"}
    said |= {23: "23rd", 101: "101st", 111: "111th", 112: "112th", 113: "113th", 1002: "1002nd", 10011: "10011th"}
    assert {i: nth(i) for i in said} == said


@pytest.mark.parametrize("kind, name", [("DT", "DT"), ("Boost", "BoostRanker")])
def test_search_split_given_no_resources_says_what_it_takes(kind, name):
    from clirkit import systems

    with pytest.raises(ClirkitError, match=rf"^{name}\.search_split takes Resources: .*, got NoneType$"):
        getattr(systems, kind)().search_split(None, "test")
