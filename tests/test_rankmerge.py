"""clirkit.retrieval.rankmerge and the shards' floors: merging two ranked lists equals the plain stable sort of their rows
(score descending, the first list's rows first on a tie), compiled and numpy alike; and a sharded search whose
later shards keep only the documents above the merged list's floor is the unsharded run byte for byte, over
many shards, with numpy's twins and with the compiled kernels, in one group and in several."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_shards import nave, run_bytes  # noqa: F401  (nave: the module's fixture)

from clirkit.retrieval import rankmerge, topk
from clirkit.retrieval.query import StructuredQueries
from clirkit.retrieval.rankmerge import Ranked, _merge_numpy, merge_ranked
from clirkit.retrieval.shards import ShardedIndex
from clirkit.retrieval.shardsearch import shard_groups


@st.composite
def ranked_lists(draw):
    """Two ranked lists of the same queries (scores from a tiny set, so that ties abound), and a depth."""
    n_queries = draw(st.integers(1, 6))
    lists = []
    for part in (0, 1):
        sizes = draw(st.lists(st.integers(0, 8), min_size=n_queries, max_size=n_queries))
        scores = [
            sorted(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, -1.0]), min_size=n, max_size=n)), reverse=True)
            for n in sizes
        ]
        flat = np.array([s for q in scores for s in q], dtype=np.float64)
        lists.append(
            Ranked(
                np.array(sizes, dtype=np.int64),
                np.full(len(flat), part, dtype=np.int32),
                np.arange(len(flat), dtype=np.int32),
                flat,
            )
        )
    return lists[0], lists[1], draw(st.integers(1, 20))


def oracle_merge(a: Ranked, b: Ranked, depth: int) -> Ranked:
    sizes, parts, cols, scores = [], [], [], []
    starts_a, starts_b = np.cumsum(a.sizes) - a.sizes, np.cumsum(b.sizes) - b.sizes
    for q in range(len(a.sizes)):
        rows = [
            (x.parts[i], x.cols[i], x.scores[i])
            for x, s in ((a, starts_a), (b, starts_b))
            for i in range(s[q], s[q] + x.sizes[q])
        ]
        rows = sorted(rows, key=lambda r: -r[2])[:depth]  # stable: a's rows first on a tie
        sizes.append(len(rows))
        for p, c, v in rows:
            parts.append(p), cols.append(c), scores.append(v)
    return Ranked(
        np.array(sizes, dtype=np.int64),
        np.array(parts, dtype=np.int32),
        np.array(cols, dtype=np.int32),
        np.array(scores, dtype=np.float64),
    )


def assert_same(got: Ranked, expected: Ranked) -> None:
    for name, x, y in zip(Ranked._fields, got, expected):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), f"{name}: {x.tolist()} != {y.tolist()}"


@settings(max_examples=200, deadline=None)
@given(ranked_lists())
def test_merging_two_ranked_lists_is_the_stable_sort_of_their_rows(case):
    a, b, depth = case
    expected = oracle_merge(a, b, depth)
    assert_same(_merge_numpy(a, b, depth), expected)
    assert_same(merge_ranked(a, b, depth), expected)


def test_shard_groups_are_runs_of_consecutive_shards_as_equal_as_can_be():
    assert shard_groups(16, 2) == [list(range(8)), list(range(8, 16))]
    assert shard_groups(5, 3) == [[0], [1, 2], [3, 4]]
    assert shard_groups(2, 8) == [[0], [1]]
    assert shard_groups(4, 1) == [[0, 1, 2, 3]]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize("jobs,backend", [(1, "loky"), (3, "threading")])
@pytest.mark.parametrize("depth", [1, 7, 60])
def test_a_search_over_many_shards_with_floors_is_the_unsharded_run(
    nave,  # noqa: F811
    tmp_path,
    monkeypatch,
    compiled,
    jobs,
    backend,
    depth,
):
    # 9 shards: from the second shard of a group on, a query keeps only what enters its merged list
    if not compiled:
        monkeypatch.setattr(topk, "_ranker", False)
        monkeypatch.setattr(rankmerge._KERNELS, "off", True)
    index, _, topics, _, _ = nave
    sharded = ShardedIndex.split(index, 9)
    sharded.jobs, sharded.backend = jobs, backend
    assert run_bytes(search(sharded, topics, depth), tmp_path, "sharded.txt") == run_bytes(
        search(index, topics, depth), tmp_path, "whole.txt"
    )


def search(index, topics, depth):
    """The BM25 run of ``topics`` over ``index`` (sharded or not), ``depth`` per query."""
    tokens = index.analyzer.tokenize_many(list(topics.values()))
    queries = StructuredQueries.from_tokens(list(topics), tokens, index.vocabulary)
    return index.bm25().search(queries, depth=depth, tag="BM25")
