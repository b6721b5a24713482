"""Posting weightings (clirkit.retrieval.weightings): a weighting registered in WEIGHTINGS (one function pair and one line:
here a toy raw tf x idf) searches every kind of index (one file, its shards, the index translated by document-side
PSQ, that index's shards) with the scores an oracle computes by hand from the counts, and the same run from every
kind; BM25 and the query likelihood are the registry's own entries; an unknown name is a one-line error."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.docpsq import ShardedProjectedIndex, project
from clirkit.errors import ClirkitError
from clirkit.formats import write_run
from clirkit.psq import prepare_table
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.bm25params import idf
from clirkit.retrieval.query import StructuredQueries
from clirkit.retrieval.shards import ShardedIndex, load_index
from clirkit.retrieval.weightings import WEIGHTINGS, Weighting
from clirkit.translation import TranslationTable

TOY = "toy-tfidf"
# Spanish -> English p(e|f), translating the Genesis verses into English (document-side PSQ)
REVERSE = TranslationTable.from_triples(
    ["luz", "luz", "dios", "tinieblas", "tierra", "día"],
    ["light", "lamp", "god", "darkness", "earth", "day"],
    [0.7, 0.3, 1.0, 1.0, 1.0, 1.0],
    params={"source_lang": "es", "target_lang": "en"},
)


def toy_rows(scorer, df):
    return scorer.idf(df)


def toy_postings(scorer, tf, docs, values):
    return tf * values


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(WEIGHTINGS, TOY, Weighting(toy_rows, toy_postings))


def oracle(index, queries: dict[str, list[str]]) -> list[tuple[str, str, float]]:
    """(qid, docid, score) of every document holding a query term, by score then docid: sum over the query's
    tokens of tf(t, d) x the Lucene idf of df(t), from the index's counts, one document at a time."""
    tf = index.tf.toarray()
    df = (tf > 0).sum(axis=1)
    rows = []
    for qid, tokens in queries.items():
        found = []
        for d, docid in enumerate(index.docids.tolist()):
            score, holds = 0.0, False
            for token in tokens:
                t = index.vocabulary.get(token)
                if t is not None and tf[t, d] > 0:
                    holds = True
                    score += tf[t, d] * float(idf(np.array([df[t]]), index.n_docs)[0])
            if holds:
                found.append((-score, docid))
        rows += [(qid, docid, -negative) for negative, docid in sorted(found)]
    return rows


def run_rows(run) -> list[tuple[str, str, float]]:
    return list(zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()))


def structured(index, queries: dict[str, list[str]]) -> StructuredQueries:
    return StructuredQueries.from_tokens(list(queries), list(queries.values()), index.vocabulary)


def check(found, expected) -> None:
    assert [r[:2] for r in found] == [r[:2] for r in expected]
    assert [r[2] for r in found] == pytest.approx([r[2] for r in expected], rel=1e-12)


def test_a_registered_weighting_searches_an_index_and_its_shards_as_the_oracle(toy, index, tmp_path):
    queries = {"a": ["luz", "tinieblas"], "b": ["dios", "dios", "tierra"], "c": ["ninguna"]}
    one = BM25(index, weighting=TOY).search(structured(index, queries), depth=100)
    check(run_rows(one), oracle(index, queries))
    write_run(one, tmp_path / "one.run")
    for shards in (2, 3):
        sharded = ShardedIndex.split(index, shards)
        scorer = sharded.bm25(weighting=TOY)  # the index kind's scorer (clirkit.retrieval.indexkinds)
        assert scorer.params()["scoring"] == TOY
        write_run(scorer.search(structured(sharded, queries), depth=100), tmp_path / "sharded.run")
        assert (tmp_path / "sharded.run").read_bytes() == (tmp_path / "one.run").read_bytes()


def test_a_registered_weighting_searches_a_translated_index_and_its_shards_as_the_oracle(toy, index, tmp_path):
    translated = project(index, prepare_table(REVERSE, min_prob=0.0, cumulative=1.0), unknown="drop")
    assert translated.tf.dtype == np.float64 and set(translated.terms.tolist()) >= {"light", "lamp", "god"}
    queries = {"a": ["light", "darkness"], "b": ["god", "earth", "god"], "c": ["lamp"]}
    one = translated.bm25(weighting=TOY).search(structured(translated, queries), depth=100)
    check(run_rows(one), oracle(translated, queries))  # fractional expected counts, weighted as they are
    write_run(one, tmp_path / "one.run")
    sharded = ShardedProjectedIndex.split(translated, 3)
    write_run(sharded.bm25(weighting=TOY).search(structured(sharded, queries), depth=100), tmp_path / "s.run")
    assert (tmp_path / "s.run").read_bytes() == (tmp_path / "one.run").read_bytes()


def test_bm25_is_the_registrys_default_and_the_same_run_named(index):
    queries = structured(index, {"a": ["luz", "tinieblas", "luz"]})
    assert run_rows(BM25(index).search(queries)) == run_rows(BM25(index, weighting="bm25").search(queries))
    assert set(WEIGHTINGS) >= {"bm25", "lm"}


def test_an_unknown_weighting_is_one_error_naming_the_known_ones(index):
    with pytest.raises(ClirkitError, match=r"^unknown weighting 'dfr'; choose one of bm25, lm"):
        BM25(index, weighting="dfr")
    with pytest.raises(ClirkitError, match="unknown weighting 'dfr'"):
        ShardedIndex.split(index, 2).bm25(weighting="dfr")
    with pytest.raises(ClirkitError, match="needs a background model"):
        BM25(index, weighting="lm")


def test_a_weighting_registered_in_this_process_reaches_the_worker_processes(toy, index, tmp_path):
    """A sharded search ships the weighting's functions to its loky workers, which have not run the registration."""
    queries = {"a": ["luz", "tinieblas"], "b": ["dios", "tierra"]}
    write_run(BM25(index, weighting=TOY).search(structured(index, queries)), tmp_path / "one.run")
    ShardedIndex.split(index, 3).save(tmp_path / "ix.npz")
    sharded = load_index(tmp_path / "ix.npz", jobs=2)
    write_run(sharded.bm25(weighting=TOY).search(structured(sharded, queries)), tmp_path / "workers.run")
    assert (tmp_path / "workers.run").read_bytes() == (tmp_path / "one.run").read_bytes()
