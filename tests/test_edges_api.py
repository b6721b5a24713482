"""The Python API at its edges (issue 40, independent testing): a re-ranker takes the run as a DataFrame or a run
file too (or says what it takes), an unfitted SCS says so, and the weightings check what they are given in one
line: alpha and the background, a statistic, a user's weighting that makes NaN named as its own."""

from __future__ import annotations

import numpy as np
import pytest
from test_rerank_contract import rows, stage  # noqa: F401 - the fixture

from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.formats import write_run
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.query import StructuredQueries
from clirkit.retrieval.weightings import WEIGHTINGS, Weighting
from clirkit.scs.params import Schedule, Shape
from clirkit.systems import SCS


def test_a_reranker_takes_the_run_as_a_frame_or_a_file_and_refuses_other_things(stage, tmp_path):  # noqa: F811
    c, _, topics, first = stage
    scs = SCS(shape=Shape(dim=8), schedule=Schedule(epochs=1), random_state=2).fit(
        Resources(topics={"train": c.queries("train")}, qrels={"train": c.qrels("train")}, documents=c.documents())
    )
    expected = scs.rerank(topics, first, tag="SCS")
    write_run(first, tmp_path / "first.run")
    for given in (first.to_frame(), str(tmp_path / "first.run"), tmp_path / "first.run"):
        run = scs.rerank(topics, given, tag="SCS")
        assert rows(run) == rows(expected) and run.scores.tolist() == expected.scores.tolist()
    with pytest.raises(ClirkitError, match="run: expected a clirkit Run, a DataFrame .* got list"):
        scs.rerank(topics, [("q", "d", 1.0)])
    with pytest.raises(ClirkitError, match="SCS is not fitted: call fit first"):
        SCS().rerank(topics, first)


def test_the_weightings_check_alpha_the_background_and_the_statistic(index):
    queries = StructuredQueries.from_tokens(["q"], [["luz"]], index.vocabulary)
    background = np.full(index.n_terms, 1.0 / index.n_terms)
    for alpha in ("0.1", None, 1.0, True):
        with pytest.raises(ClirkitError, match="alpha must be a number in .0, 1."):
            BM25(index, weighting="lm", background=background, alpha=alpha)
    for bad in ("collection", background[:-1], background * np.inf, -background):
        with pytest.raises(ClirkitError, match="background must be an array of one finite probability > 0"):
            BM25(index, weighting="lm", background=bad)
    assert len(BM25(index, weighting="lm", background=background).search(queries)) > 0
    with pytest.raises(ClirkitError, match="Weighting statistic must be one of df, background, got 'foo'"):
        Weighting(WEIGHTINGS["bm25"].rows, WEIGHTINGS["bm25"].postings, statistic="foo")


def test_a_users_weighting_that_makes_nan_is_named_not_bm25s_parameters(index, monkeypatch):
    nan = Weighting(lambda scorer, df: scorer.idf(df), lambda scorer, tf, docs, values: tf * np.nan)
    monkeypatch.setitem(WEIGHTINGS, "nanw", nan)
    queries = StructuredQueries.from_tokens(["q"], [["luz"]], index.vocabulary)
    with pytest.raises(ClirkitError, match="the 'nanw' weighting gave .* not finite numbers"):
        BM25(index, weighting="nanw").search(queries)


def test_a_run_frame_with_a_pair_twice_float_ids_or_a_bad_depth_is_refused(capsys):
    import pandas as pd

    from clirkit.run import Run

    frame = pd.DataFrame({"qid": ["q1", "q1", "q1"], "docno": ["d1", "d2", "d1"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(ClirkitError, match="a run frame: row 2 repeats query q1 and document d1"):
        Run.from_frame(frame)
    with pytest.raises(ClirkitError, match="the qid column holds floating-point numbers"):
        Run.from_frame(pd.DataFrame({"qid": [1.0], "docno": ["d1"], "score": [1.0]}))
    for depth in (-1, 0, 1.5):
        with pytest.raises(ClirkitError, match="depth must be a whole number >= 1"):
            Run.from_frame(frame.iloc[:2], depth=depth)
    assert len(Run.from_frame(frame.iloc[:2], depth=1)) == 1


def test_scs_train_refuses_zero_epochs(tmp_path, capsys):
    from clirkit.cli import main

    assert main(["scs-train", "--collection", "nave-en-es", "--epochs", "0", "-o", str(tmp_path / "m.npz")]) == 2
    assert (
        capsys.readouterr().err
        == "clirkit: error: --epochs 0 trains nothing (the model would be its random start): give at least 1\n"
    )
    assert not (tmp_path / "m.npz").exists()


def test_fit_takes_paths_and_says_what_it_takes_otherwise(index, tmp_path):
    from clirkit.systems import DT, PSQ, BM25Search
    from clirkit.translation import TranslationTable, save_table

    table = TranslationTable.from_triples(["light"], ["luz"], [1.0], params={"source_lang": "en", "target_lang": "es"})
    index.save(tmp_path / "ix.npz")
    save_table(table, tmp_path / "t.npz")
    topics = {"q": "light"}
    by_path = DT().fit(Resources(index=str(tmp_path / "ix.npz"), table=str(tmp_path / "t.npz"))).search(topics)
    assert by_path.docids.tolist() == DT().fit(Resources(index=index, table=table)).search(topics).docids.tolist()
    assert len(BM25Search().fit(Resources(index=tmp_path / "ix.npz")).search({"q": "luz"})) > 0
    for system in (DT(), PSQ(translate="queries")):
        with pytest.raises(ClirkitError, match=rf"^{type(system).__name__}.fit takes Resources: .*, got Index$"):
            system.fit(index)
        with pytest.raises(ClirkitError, match=r"the resources have no translation table \(give table="):
            system.fit(Resources(index=index))
    with pytest.raises(ClirkitError, match="index: expected an index .* got dict"):
        BM25Search().fit(Resources(index={}))
    with pytest.raises(ClirkitError, match="BM25.search takes StructuredQueries"):
        BM25(index).search({"q": "luz"})


def test_a_weightings_shapes_and_a_background_given_to_bm25_are_checked(index, monkeypatch):
    queries = StructuredQueries.from_tokens(["q"], [["luz"]], index.vocabulary)
    short_postings = Weighting(lambda s, df: s.idf(df), lambda s, tf, docs, values: (tf * values)[:1])
    short_rows = Weighting(lambda s, df: s.idf(df)[:1], lambda s, tf, docs, values: tf * values)
    monkeypatch.setitem(WEIGHTINGS, "short", short_postings)
    monkeypatch.setitem(WEIGHTINGS, "rows1", short_rows)
    with pytest.raises(ClirkitError, match="the 'short' weighting's postings gave shape .1,., not one weight per"):
        BM25(index, weighting="short").search(queries)
    with pytest.raises(ClirkitError, match="the 'rows1' weighting's rows gave shape .1,., not one value per row"):
        BM25(index, weighting="rows1").search(queries)
    with pytest.raises(ClirkitError, match="background and alpha are a background weighting's"):
        BM25(index, alpha=0.3)
    with pytest.raises(ClirkitError, match="background and alpha are a background weighting's"):
        BM25(index, background=np.full(index.n_terms, 0.1))
