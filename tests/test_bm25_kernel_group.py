"""clirkit.retrieval.kernels sums positive queries a group at a time (``_add_group``): a dense vector that several rows of
the group add next is read once for all of them, each row keeping its own query's order of additions. Here
many queries share a few dense posting rows (as the very common terms of a benchmark's queries do), in every
order, mixed with scattered ones: the counts, documents and sums must be those of the numpy oracle of
test_kernels (each query's terms added in its order), byte for byte, whatever the group size.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from test_kernels import DTYPES, INEXACT, TIED, assert_same_bytes, oracle_rank  # noqa: E402

from clirkit.retrieval import kernels  # noqa: E402  (after the skip: the module imports numba)


def shared_rank(pool, dense_rows, queries, n_docs: int, k: int, dtype):
    """:func:`clirkit.retrieval.kernels.rank_sums` of ``queries`` (lists of (pool row, w_q)), positive, the ``dense_rows``
    of ``pool`` (lists of (documents, posting weights)) held as dense vectors that every term of that row
    shares, as BM25 passes a term queried many times."""
    flat = [(r, w) for terms in queries for r, w in terms]
    lengths = np.array([len(pool[r][0]) for r, _ in flat], dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    indices = np.concatenate([pool[r][0] for r, _ in flat] + [np.zeros(0, np.int32)]).astype(np.int32)
    data = np.concatenate([pool[r][1].astype(dtype) for r, _ in flat] + [np.zeros(0, dtype)]).astype(dtype)
    weights = np.array([w for _, w in flat], dtype=dtype)
    bounds = np.concatenate([[0], np.cumsum([len(terms) for terms in queries])]).astype(np.int64)
    slot_of = {r: i for i, r in enumerate(sorted(dense_rows))}
    slots = np.array([slot_of.get(r, -1) for r, _ in flat], dtype=np.int64)
    dense = np.zeros((len(slot_of), n_docs), dtype=dtype)
    for r, i in slot_of.items():
        dense[i, pool[r][0]] = pool[r][1].astype(dtype)
    return kernels.rank_sums(
        bounds,
        starts,
        ends,
        weights,
        slots,
        indices,
        data,
        dense,
        int(n_docs),
        int(k),
        True,
        np.full(len(queries), -np.inf),
    )


@st.composite
def shared_batches(draw):
    """A pool of posting rows, some of them dense (held by most documents), and up to 20 queries drawing
    their terms from it, so that rows of one group often have the same dense term next, or later."""
    dtype = draw(st.sampled_from(DTYPES))
    n_docs = draw(st.integers(1, 400))
    k = draw(st.one_of(st.integers(1, 12), st.integers(1, 500)))
    values, weights = draw(st.sampled_from([TIED, INEXACT]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pool = []
    for density in draw(st.lists(st.sampled_from([0.0, 0.05, 0.3, 0.8, 1.0]), min_size=1, max_size=7)):
        docs = np.flatnonzero(rng.random(n_docs) < density).astype(np.int32)
        pool.append((docs, rng.choice(values, size=len(docs))))
    dense_rows = set(draw(st.sets(st.integers(0, len(pool) - 1))))
    queries = []
    for _ in range(draw(st.integers(0, 20))):
        rows = draw(st.lists(st.integers(0, len(pool) - 1), max_size=7))
        queries.append([(r, float(draw(st.sampled_from(weights)))) for r in rows])
    return pool, dense_rows, queries, n_docs, k, dtype


@settings(max_examples=400, deadline=None)
@given(batch=shared_batches())
def test_queries_summed_in_groups_sharing_dense_vectors_equal_the_oracle(batch):
    pool, dense_rows, queries, n_docs, k, dtype = batch
    expected = oracle_rank([[(*pool[r], w) for r, w in terms] for terms in queries], n_docs, k, dtype)
    assert_same_bytes(shared_rank(pool, dense_rows, queries, n_docs, k, dtype), expected)


def test_a_group_fuses_at_most_fused_rows_and_leaves_the_others_their_turn():
    """Every query of a full group has the same dense term first (more rows than one pass takes), then the
    others in different orders; a row whose sample bound is too high is made again from its terms."""
    assert kernels._GROUP > kernels._FUSED
    n_docs, rng = 3_000, np.random.default_rng(7)
    pool = [(np.arange(n_docs, dtype=np.int32), rng.choice(INEXACT[0], n_docs)) for _ in range(3)]
    pool.append((np.arange(0, n_docs, 5, dtype=np.int32), rng.choice(INEXACT[0], n_docs // 5)))
    orders = [[0, 1, 2, 3], [0, 2, 1], [0, 3, 1, 2], [0, 1], [0, 2, 3, 1], [0, 1, 2], [0], [2, 0, 1]]
    queries = [[(r, float(w)) for r, w in zip(rows, rng.choice(INEXACT[1], len(rows)))] for rows in orders]
    for dtype in DTYPES:
        expected = oracle_rank([[(*pool[r], w) for r, w in terms] for terms in queries], n_docs, 40, dtype)
        assert_same_bytes(shared_rank(pool, {0, 1, 2}, queries, n_docs, 40, dtype), expected)
