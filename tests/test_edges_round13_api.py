"""Issue 40, edge test 13B: the Python API says what it does (set_params after fit, loaded systems' parameters and
tags, run round trips, the inputs of paired tests, of search, of a sharded build, generators, float ids)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.retrieval.index import Index
from clirkit.run import Qrels, Run
from clirkit.systems import BM25Search, Fusion, Resources


@pytest.fixture
def cats():
    docs = [("d1", "cat cat cat dog"), ("d2", "cat bird bird bird bird bird bird"), ("d3", "dog")]
    return Resources(index=Index.build(docs, Analyzer("en")))


def _ab():
    a = Run.from_dict({"q": {"d1": 3.0, "d2": 1.0}}, tag="A")
    return a, Run.from_dict({"q": {"d2": 3.0, "d1": 1.0}}, tag="B")


# --------------------------------------------------------------------------- 4: set_params after fit


def test_set_params_that_changes_a_parameter_of_a_fitted_system_makes_it_unfitted(cats):
    system = BM25Search().fit(cats)
    system.set_params(k1=1.2)  # the same value: still fitted
    system.search("cat")
    system.set_params(k1=0.1, b=1.0)
    with pytest.raises(ClirkitError, match=r"^BM25Search is not fitted: call fit\(Resources\(index=...\)\) first$"):
        system.search("cat")
    fresh = BM25Search(k1=0.1, b=1.0).fit(cats).search("cat").to_dict()
    assert system.fit(cats).search("cat").to_dict() == fresh


def test_set_params_of_a_fitted_fusion_makes_it_unfitted_and_runtime_params_keep_a_boosted_fit():
    from clirkit.boost import BoostRanker

    a, b = _ab()
    fusion = Fusion(weights=[0.5, 0.5]).fit_runs([a, b], None)
    fusion.set_params(weights=np.array([0.5, 0.5]))  # the same weights
    fusion.fuse([a, b])
    fusion.set_params(weights=[0.9, 0.1])
    with pytest.raises(ClirkitError, match="the fusion is not fitted"):
        fusion.fuse([a, b])
    ranker = BoostRanker()
    ranker.model_ = "learned"
    ranker.set_params(quiet=True, jobs=2)
    assert ranker.model_ == "learned"
    ranker.set_params(boosting__rounds=5)
    assert not hasattr(ranker, "model_")


# --------------------------------------------------------------------------- 5: a loaded fusion keeps its dev tags


def test_a_saved_and_loaded_fusion_refuses_runs_given_in_the_other_order_as_the_fitted_one_does(tmp_path):
    dt = Run.from_dict({"q": {"d1": 3.0, "d2": 1.0, "d3": 0.5}}, tag="DT")
    psq = Run.from_dict({"q": {"d2": 2.0, "d3": 1.0}}, tag="PSQ")
    fusion = Fusion().fit_runs([dt, psq], Qrels(np.array(["q"]), np.array(["d2"]), np.array([1])))
    fusion.save(tmp_path / "fusion.npz")
    loaded = Fusion.load(tmp_path / "fusion.npz")
    message = r"^run 1 \(tag 'PSQ'\) is paired with dev run 1 \(tag 'DT'\), which has the tag of run 2: give the runs"
    for system in (fusion, loaded):
        with pytest.raises(ClirkitError, match=message):
            system.fuse([psq, dt])
    assert loaded.fuse([dt, psq]).to_dict() == fusion.fuse([dt, psq]).to_dict()


# --------------------------------------------------------------------------- 10: the inputs of the paired tests


@pytest.mark.parametrize(
    "a, b, message",
    [
        pytest.param(
            np.zeros((30, 3)),
            np.ones((30, 3)),
            r"^paired test: a has shape \(30, 3\): give one value per query, a one-dimensional sequence",
            id="2-D",
        ),
        pytest.param(
            {"q1": 0.1, "q2": 0.3},
            {"q1": 0.2, "q2": 0.5},
            r"^paired test: a is a dict: give the per-query values as a one-dimensional sequence, both systems'",
            id="dict",
        ),
        pytest.param([0.1, 0.3], {0.2, 0.5}, "^paired test: b is a set: give", id="set"),
        pytest.param([0.1, "x"], [0.2, 0.3], "^paired test: a holds values that are not numbers$", id="text"),
    ],
)
def test_the_paired_tests_take_one_dimensional_sequences_only(a, b, message):
    from clirkit.significance import paired_t_test, randomization_test

    for test in (randomization_test, paired_t_test):
        with pytest.raises(ClirkitError, match=message):
            test(a, b)


def test_the_paired_tests_take_a_series_and_a_generator_as_one_dimensional_sequences():
    import pandas as pd

    from clirkit.significance import paired_t_test

    given = paired_t_test(pd.Series([0.1, 0.2, 0.4]), (v for v in [0.3, 0.3, 0.6]))
    assert given == paired_t_test([0.1, 0.2, 0.4], [0.3, 0.3, 0.6])


# --------------------------------------------------------------------------- 12: a loaded ranker's parameters


@pytest.fixture(scope="module")
def boosted(tmp_path_factory):
    from clirkit.boost import Boosting, BoostRanker, PairFeatures

    texts = ["casa grande", "perro negro", "gato blanco", "agua fría", "casa blanca", "perro grande"]
    docs = ([f"d{i}" for i in range(len(texts))], texts)
    train = {"t1": "big house", "t2": "black dog", "t3": "white cat", "t4": "cold water"}
    qrels = Qrels(np.array(list(train)), np.array(["d0", "d1", "d2", "d3"]), np.array([1, 1, 1, 1]))
    res = Resources(topics={"train": train}, qrels={"train": qrels}, documents=docs, source_lang="en", target_lang="es")
    features = PairFeatures(ngram=2, bits=16, doc_weighting="idf")
    ranker = BoostRanker(features=features, boosting=Boosting(rounds=5, eps=0.5), quiet=True).fit(res)
    path = tmp_path_factory.mktemp("boost") / "boost.npz"
    ranker.save(path)
    return ranker, path, res


def test_a_loaded_boosted_ranker_reports_the_parameters_it_was_trained_with_and_refits_alike(boosted):
    from sklearn.base import clone

    from clirkit.boost import BoostRanker

    ranker, path, res = boosted
    loaded = BoostRanker.load(path, res.documents(), quiet=True)
    assert loaded.get_params() == {**ranker.get_params(), "quiet": True}
    assert repr(loaded.features) == "PairFeatures(bits=16, doc_weighting='idf', ngram=2)"
    again = clone(loaded).fit(res).search("big dog").to_dict()
    assert again == loaded.search("big dog").to_dict() == ranker.search("big dog").to_dict()


def test_a_boosted_ranker_loaded_with_a_recorded_parameter_of_another_value_is_refused(boosted):
    from clirkit.boost import BoostRanker

    _, path, _ = boosted
    with pytest.raises(ClirkitError, match=r"the model was trained with random_state=0, not 3: leave random_state"):
        BoostRanker.load(path, random_state=3)
    assert BoostRanker.load(path, random_state=0, jobs=2).jobs == 2


# --------------------------------------------------------------------------- 13: run round trips keep tied scores' order


def test_a_runs_frame_dict_and_records_read_back_to_the_same_run_tied_scores_in_their_order(tmp_path):
    from clirkit.formats import read_run
    from clirkit.metrics import evaluate

    (tmp_path / "ties.run").write_text("q Q0 dB 1 1.0 x\nq Q0 dA 2 1.0 x\nq Q0 dC 3 0.5 x\n")
    run = read_run(tmp_path / "ties.run")
    back = [
        Run.from_frame(run.to_frame()),
        Run.from_frame(run.to_frame("pyterrier")),
        Run.from_dict(run.to_dict()),
        Run.from_records(run.to_records()),
    ]
    qrels = Qrels(np.array(["q"]), np.array(["dB"]), np.array([1]))
    for again in back:
        assert again.docids.tolist() == ["dB", "dA", "dC"]
        assert evaluate(again, qrels, ["RR"], ties="run").mean() == {"RR": 1.0}
    assert Run.from_dict({"q": {"dC": 0.5, "dB": 1.0, "dA": 1.0}}).docids.tolist() == ["dB", "dA", "dC"]


# --------------------------------------------------------------------------- 18: a sharded build takes pairs


def test_a_sharded_build_takes_the_docid_text_pairs_index_build_takes(tmp_path):
    from clirkit.formats import iter_documents
    from clirkit.retrieval.shards import ShardedIndex

    docs = tmp_path / "docs.tsv"
    docs.write_text("d3\tel agua\nd1\tel perro\nd2\tla casa\nd4\tla luz\n", encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ShardedIndex.build(lambda: iter_documents(docs), 2, Analyzer("es"), tmp_path / "a" / "ix.npz")
    ShardedIndex.split(Index.build(iter_documents(docs), Analyzer("es")), 2).save(tmp_path / "b" / "ix.npz")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert len(names) == 3 and names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    with pytest.raises(ClirkitError, match=r"^document 2 \(in input order\) is a str: give \(docid, text\) pairs"):
        ShardedIndex.build(lambda: iter([("d1", "a"), "xy"]), 2, Analyzer("es"), tmp_path / "c.npz")
    assert not (tmp_path / "c.npz").exists()


# --------------------------------------------------------------------------- 16: a topics file's path to search


def test_search_refuses_a_topics_files_path_as_one_querys_text(cats, tmp_path, monkeypatch):
    system = BM25Search().fit(cats)
    (tmp_path / "queries.tsv").write_text("q1\tcat\n", encoding="utf-8")
    (tmp_path / "cat").write_text("q1\tcat\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for path in (str(tmp_path / "queries.tsv"), "queries.tsv", "missing.tsv", str(tmp_path / "cat")):
        with pytest.raises(ClirkitError, match=r"^topics: '.+' is a topics file's path, not a query: read it with "):
            system.search(path)
    assert Resources(topics={"test": "queries.tsv"}).topics("test") == {"q1": "cat"}
    assert system.search("cat").qids.tolist() == ["1", "1"]  # (a file named cat here: one word, a text)
    assert system.search(["queries.tsv"]).qids.tolist() == [] == system.search("AC/DC").qids.tolist()


# --------------------------------------------------------------------------- 20: generators where lists are read


def test_generators_are_read_once_where_a_list_is_expected():
    from clirkit.fusion import borda, interpolate

    a, b = _ab()
    made = Index.from_tokens((d for d in ["a", "b"]), [["x"], ["y"]], Analyzer("en"))
    assert made.docids.tolist() == ["a", "b"]
    assert interpolate([a, b], (w for w in [0.3, 0.7])).to_dict() == interpolate([a, b], [0.3, 0.7]).to_dict()
    assert borda([a, b], (w for w in [1, 2])).to_dict() == borda([a, b], [1, 2]).to_dict()
    fusion = Fusion(weights=[0.5, 0.5]).fit_runs([a, b], None)
    assert fusion.fuse(r for r in [a, b]).to_dict() == fusion.fuse([a, b]).to_dict()
    for runs, got in ((a, "a Run"), ([a, "x"], "a str among them")):
        with pytest.raises(ClirkitError, match=rf"^runs: expected a list of runs \(clirkit Runs\), got {got}$"):
            fusion.fuse(runs)
    with pytest.raises(ClirkitError, match="^Index.from_tokens takes a list of docids, not a int$"):
        Index.from_tokens(5, [["x"]])


# --------------------------------------------------------------------------- 21: float ids refused by Run(...)


@pytest.mark.parametrize(
    "make, message",
    [
        pytest.param(
            lambda: Run(np.array([1.0, 1.0]), np.array(["7", "8"]), np.array([2.0, 1.0])),
            r"^Run qids hold floating-point numbers \(1.0\): give ids as strings \(or whole numbers\)$",
            id="Run qids",
        ),
        pytest.param(
            lambda: Run(np.array(["1"]), [7.0], [1.0]),
            r"^Run docids hold floating-point numbers \(7.0\): give ids",
            id="Run docids",
        ),
        pytest.param(
            lambda: Run.ranked([True], ["7"], [1.0]), r"^Run qids hold booleans \(True\): give ids", id="ranked"
        ),
        pytest.param(
            lambda: Run.from_groups([1.0], [1], ["7"], [1.0]),
            r"^Run query ids hold floating-point numbers \(1.0\): give ids",
            id="from_groups",
        ),
        pytest.param(
            lambda: Qrels(np.array([1.0]), np.array(["7"]), np.array([1])),
            r"^Qrels qids hold floating-point numbers \(1.0\): give ids",
            id="Qrels",
        ),
    ],
)
def test_runs_and_qrels_refuse_float_ids_as_a_frame_does(make, message):
    with pytest.raises(ClirkitError, match=message):
        make()


def test_runs_and_qrels_take_whole_number_ids_in_decimal():
    assert Run(np.array([1, 1]), np.array([7, 8]), np.array([2.0, 1.0])).qids.tolist() == ["1", "1"]
    assert Qrels([3], [np.int64(9)], [1]).docids.tolist() == ["9"]


# --------------------------------------------------------------------------- 22: --stopwords-top from Python


def test_drop_terms_of_the_most_frequent_terms_is_the_stopwords_top_index_byte_for_byte(tmp_path):
    from clirkit.cli import main
    from clirkit.formats import iter_documents
    from clirkit.retrieval.index import drop_terms

    docs = tmp_path / "docs.tsv"
    docs.write_text("d1\tel perro y el gato\nd2\tla casa y el perro\nd3\tel agua\n", encoding="utf-8")
    cli = tmp_path / "cli.npz"
    assert main(["index", str(docs), "-o", str(cli), "--lang", "es", "--stopwords-top", "2", "-q"]) == 0
    index = Index.build(iter_documents(docs), Analyzer("es"))
    drop_terms(index, index.most_frequent_terms(2)).save(tmp_path / "py.npz")
    assert (tmp_path / "py.npz").read_bytes() == cli.read_bytes()
    guide = (Path(__file__).parents[1] / "docs" / "index.md").read_text(encoding="utf-8")
    assert "drop_terms(index, index.most_frequent_terms(100))" in guide and "--stopwords-top N" in guide
