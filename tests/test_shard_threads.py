"""Sharded search in threads (clirkit.retrieval.shardsearch, backend ``threading``): the queries cut into one block
of consecutive queries per worker, each block searched over every shard, the shards opened and weighted once and
shared; the run is the unsharded index's byte for byte whatever the system, the number of threads and the
number of queries, memory-mapped shards included."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.docpsq import ShardedProjectedIndex
from clirkit.estimator import Resources
from clirkit.formats import write_run
from clirkit.retrieval import shardsearch
from clirkit.retrieval.index import Index
from clirkit.retrieval.shards import ShardedIndex
from clirkit.retrieval.shardsearch import query_blocks
from clirkit.systems import DT, PSQ, BM25Search
from clirkit.translation import train_table


@pytest.fixture(scope="module")
def nave(mini):
    """The test slice of nave-en-es: its Spanish verses indexed, p(es|en) and p(en|es) trained on its verse pairs,
    its English queries (every split) and Spanish queries (the first 40 verse pairs' Spanish side)."""
    c = datasets.load(str(mini))
    en, es = Analyzer("en"), Analyzer("es")
    texts = dict(zip(*c.documents()))
    sources, targets = c.parallel()
    table = train_table(en.tokenize_many(sources), es.tokenize_many(targets), en, es, iterations=3)
    reverse = train_table(es.tokenize_many(targets), en.tokenize_many(sources), es, en, iterations=3)
    topics = {q: t for split in ("train", "dev", "test") for q, t in c.queries(split).items()}
    spanish = {f"v{i}": t for i, t in enumerate(targets[:40])}
    return Index.build(texts.items(), es), table, reverse, topics, spanish


def run_bytes(run, path) -> bytes:
    write_run(run, path)
    return path.read_bytes()


def threaded(index: ShardedIndex, jobs: int) -> ShardedIndex:
    index.jobs, index.backend = jobs, "threading"
    return index


def test_query_blocks_are_runs_of_consecutive_queries_as_equal_as_can_be():
    assert query_blocks(10, 2) == [(0, 5), (5, 10)]
    assert query_blocks(5, 3) == [(0, 1), (1, 3), (3, 5)]
    assert query_blocks(2, 8) == [(0, 1), (1, 2)]
    assert query_blocks(7, 1) == [(0, 7)]
    assert query_blocks(0, 4) == [(0, 0)]  # no query: one empty block


SYSTEMS = [
    (DT, {}, "table"),
    (PSQ, {}, "table"),
    (PSQ, {"mode": "pirkola"}, "table"),
    (PSQ, {"scoring": "lm"}, "table"),
    (BM25Search, {}, None),
]


@pytest.mark.parametrize("cls,params,resource", SYSTEMS, ids=["dt", "psq", "pirkola", "psq-lm", "bm25"])
@pytest.mark.parametrize("jobs", [2, 3])
def test_threads_over_query_blocks_give_the_unsharded_run_byte_for_byte(nave, tmp_path, cls, params, resource, jobs):
    index, table, _, topics, spanish = nave
    topics = spanish if resource is None else topics
    given = {resource: table} if resource else {}
    expected = run_bytes(cls(**params).fit(Resources(index=index, **given)).search(topics, depth=60), tmp_path / "a")
    ShardedIndex.split(index, 4).save(tmp_path / "ix.npz")
    sharded = threaded(ShardedIndex.load(tmp_path / "ix.npz"), jobs)
    system = cls(**params).fit(Resources(index=sharded, **given))
    for _ in range(2):  # the second search finds the shards open and weighted
        assert run_bytes(system.search(topics, depth=60), tmp_path / "b") == expected
    assert sorted(sharded._open) == [0, 1, 2, 3]  # each shard opened once, in this process


def test_each_block_of_queries_is_searched_over_every_shard_in_order(nave, tmp_path, monkeypatch):
    index, _, _, _, spanish = nave
    calls: list[tuple[int, int, int]] = []  # (block of queries, shard, queries)
    searched = shardsearch.SearchableShard.search

    def search(shard, params, queries, depth, union, floors):
        calls.append((id(queries), int(shard.where.rsplit(" ", 1)[-1]), queries.n_queries))
        return searched(shard, params, queries, depth, union, floors)

    monkeypatch.setattr(shardsearch.SearchableShard, "search", search)
    sharded = threaded(ShardedIndex.split(index, 3), 2)
    expected = run_bytes(BM25Search().fit(Resources(index=index)).search(spanish), tmp_path / "a")
    assert run_bytes(BM25Search().fit(Resources(index=sharded)).search(spanish), tmp_path / "b") == expected
    assert sorted((shard, n) for _, shard, n in calls) == [(s, 20) for s in (0, 0, 1, 1, 2, 2)]
    blocks = {b for b, _, _ in calls}  # each block over every shard, in shard order
    assert len(blocks) == 2 and all([s for b, s, _ in calls if b == one] == [0, 1, 2] for one in blocks)
    models = [id(shard._bm25[1]) for shard in sharded._open.values()]
    BM25Search().fit(Resources(index=sharded)).search(spanish)  # the same parameters: the same models, kept
    assert [id(shard._bm25[1]) for shard in sharded._open.values()] == models


def test_memory_mapped_shards_are_searched_one_thread_at_a_time_with_the_same_run(nave, tmp_path):
    index, _, _, _, spanish = nave
    cuts = [0, 120, 260, index.n_docs]
    for k, (lo, hi) in enumerate(zip(cuts[:-1], cuts[1:])):
        Index(
            index.docids[lo:hi], index.terms, index.tf[:, lo:hi].tocsr(), index.doc_lengths[lo:hi], index.analyzer
        ).save(tmp_path / f"p{k}.npz")
    parts = [Index.load(tmp_path / f"p{k}.npz", mmap=True) for k in range(3)]
    assert all(part.lazy for part in parts)
    sharded = threaded(ShardedIndex.from_shards(parts), 2)
    expected = run_bytes(BM25Search().fit(Resources(index=index)).search(spanish), tmp_path / "a")
    for _ in range(2):
        assert run_bytes(BM25Search().fit(Resources(index=sharded)).search(spanish), tmp_path / "b") == expected


@pytest.mark.parametrize("scoring", ["bm25", "lm"])
def test_a_sharded_translated_index_in_threads_is_the_translated_index_run(nave, tmp_path, scoring):
    index, _, reverse, topics, _ = nave
    one = PSQ(translate="documents", scoring=scoring).fit(Resources(index=index, reverse_table=reverse))
    expected = run_bytes(one.search(topics, depth=100), tmp_path / "a")
    ShardedProjectedIndex.split(one.index_, 3).save(tmp_path / "t.npz")
    sharded = threaded(ShardedProjectedIndex.load(tmp_path / "t.npz"), 2)
    system = PSQ(scoring=scoring).fit(Resources(index=sharded))
    assert run_bytes(system.search(topics, depth=100), tmp_path / "b") == expected


def test_fewer_queries_than_threads_and_no_query_at_all(nave, tmp_path):
    index, _, _, _, spanish = nave
    one = dict(list(spanish.items())[:1])
    expected = run_bytes(BM25Search().fit(Resources(index=index)).search(one), tmp_path / "a")
    sharded = threaded(ShardedIndex.split(index, 3), 4)
    assert run_bytes(BM25Search().fit(Resources(index=sharded)).search(one), tmp_path / "b") == expected
    assert np.array_equal(BM25Search().fit(Resources(index=sharded)).search({"empty": "zzzz qqqq"}).scores, np.zeros(0))


def test_jobs_minus_one_is_one_thread_per_core(nave, tmp_path):
    from clirkit.retrieval.shards import load_index

    index, _, _, _, spanish = nave
    ShardedIndex.split(index, 3).save(tmp_path / "ix.npz")
    expected = run_bytes(BM25Search().fit(Resources(index=index)).search(spanish), tmp_path / "a")
    sharded = load_index(tmp_path / "ix.npz", jobs=-1)
    assert run_bytes(BM25Search().fit(Resources(index=sharded)).search(spanish), tmp_path / "b") == expected
