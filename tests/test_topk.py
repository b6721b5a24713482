"""clirkit.retrieval.topk: the numpy top-k selection (the twin of clirkit.retrieval.kernels); the oracle is a full sort of each
row, score descending then column (docid) ascending, skipping the cells that match nothing.

(Its :func:`~clirkit.retrieval.topk.rank_sums` is checked against the compiled kernel through BM25's searches, in
tests/test_bm25.py.)
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit.retrieval.topk import _top_k_block, accumulate, top_k, top_k_dense


def test_top_k_breaks_ties_by_docid_and_keeps_only_stored_entries():
    scores = sp.csr_matrix(
        np.array([[0.0, 2.0, 1.0, 2.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [3.0, -1.0, 0.0, 0.0, 0.0, 3.0]])
    )
    rows, cols, values = top_k(scores, 3)
    assert rows.tolist() == [0, 0, 0, 2, 2, 2]
    assert cols.tolist() == [1, 3, 2, 0, 5, 1]
    assert values.tolist() == [2.0, 2.0, 1.0, 3.0, 3.0, -1.0]


@pytest.mark.parametrize("unmatched", [0.0, -np.inf])
def test_top_k_dense_on_wide_rows_equals_a_full_sort(unmatched):
    # wide rows take the sampled-candidate path; scores drawn from few values force ties at the cut-off
    rng = np.random.default_rng(7)
    k, n = 50, 50 * 40
    dense = rng.integers(1, 6, size=(6, n)).astype(float)
    dense[rng.random(dense.shape) < 0.5] = unmatched
    dense[1, :] = unmatched
    dense[1, [5, 9]] = [2.0, 3.0]  # fewer matches than k
    dense[2] = np.where(dense[2] == unmatched, unmatched, 1.0)  # one value only
    rows, cols, values = top_k_dense(dense, unmatched, k)
    for i in range(len(dense)):
        matched = [(-dense[i, j], j) for j in range(n) if dense[i, j] != unmatched]
        expected = sorted(matched)[:k]
        assert cols[rows == i].tolist() == [j for _, j in expected]
        assert values[rows == i].tolist() == [-v for v, _ in expected]


def test_accumulate_of_no_entries_is_a_block_of_minus_infinity():
    empty = np.zeros(0, dtype=np.int64)
    block = accumulate(empty, empty, np.zeros(0), 2, 3)
    assert block.dtype == np.float64 and block.shape == (2, 3) and np.all(block == -np.inf)


@pytest.mark.parametrize("k", [1, 7, 50])
def test_grouped_float32_top_k_equals_the_row_by_row_top_k(k):
    # _top_k_block ranks positive float32 rows a group at a time; few distinct values force ties at the
    # cut-off; rows with fewer matches than k, no match, and all cells matched
    rng = np.random.default_rng(11)
    n = 8 * 50 * 3
    block = rng.integers(1, 6, size=(9, n)).astype(np.float32) * np.float32(0.37)
    block[rng.random(block.shape) < 0.6] = 0
    block[1] = 0
    block[1, [5, 9]] = [2.0, 3.0]
    block[2] = 0
    block[3] = np.where(block[3] > 0, np.float32(1.5), 0)
    block[4] = rng.random(n).astype(np.float32) + np.float32(0.5)
    block[5, :] = 0
    block[5, rng.choice(n, 3 * k + 1, replace=False)] = np.float32(2.0)  # one value above the sample's bound
    block[6] = np.where(np.arange(n) % 8 == 1, np.float32(1.0), 0)  # the sample sees only the 12 high cells:
    block[6, 0 : 8 * 12 : 8] = np.float32(4.0)  # its bound is too high, and the row is redone with every match
    rows, cols, values = _top_k_block(block.copy(), k)
    er, ec, ev = top_k_dense(block.astype(np.float64), 0.0, k)
    assert rows.tolist() == er.tolist() and cols.tolist() == ec.tolist()
    assert values.astype(np.float64).tolist() == ev.tolist()
