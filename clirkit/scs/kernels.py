"""Compiled SCS training steps (numba), used when numba is installed (:mod:`clirkit.scs.compiled`).

Adam's steps (:class:`clirkit.scs.optim.Adam`) in one pass over the rows they move, where numpy makes about
ten passes and as many temporaries; the rows of an averaging matrix a batch uses, and their products with
the embeddings and with the gradient (:class:`clirkit.scs.encoding.Rows`, scipy's ``csr_matvecs`` and
``csc_matvecs`` loops); the gradient's sums per row (``np.add.at``). Every element gets the same
floating-point operations in the same order as on the numpy path (no fused multiply-add: numba does not
contract without ``fastmath``), so a model is the same bits either way.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def lazy_step(p, m, v, rows, g, b1, b2, c1, c2, lr_t, eps):
    """LazyAdam on the rows ``rows`` (distinct) of ``p`` with gradient ``g`` (one row per row of ``rows``);
    ``c1 = 1 - b1``, ``c2 = 1 - b2``. A row's three short loops are each vectorized (one loop is not)."""
    den = np.empty(p.shape[1])
    for r in range(len(rows)):
        i = rows[r]
        p_row, m_row, v_row, g_row = p[i], m[i], v[i], g[r]
        for d in range(len(den)):
            x = g_row[d]
            m_row[d] = b1 * m_row[d] + c1 * x
            v_row[d] = b2 * v_row[d] + c2 * x * x
        for d in range(len(den)):
            den[d] = np.sqrt(v_row[d]) + eps
        for d in range(len(den)):
            p_row[d] -= lr_t * m_row[d] / den[d]


@numba.njit(cache=True, nogil=True)
def dense_step(p, m, v, rows, g, b1, b2, c1, c2, lr_t, eps):
    """Textbook Adam: every row's moments decay and every row moves; ``rows`` (distinct) get gradient ``g``."""
    row_of = np.full(p.shape[0], -1, np.int64)
    for r in range(len(rows)):
        row_of[rows[r]] = r
    den = np.empty(p.shape[1])
    for i in range(p.shape[0]):
        p_row, m_row, v_row = p[i], m[i], v[i]
        for d in range(len(den)):
            m_row[d] = b1 * m_row[d]
            v_row[d] = b2 * v_row[d]
        r = row_of[i]
        if r >= 0:
            g_row = g[r]
            for d in range(len(den)):
                x = g_row[d]
                m_row[d] = m_row[d] + c1 * x
                v_row[d] = v_row[d] + c2 * x * x
        for d in range(len(den)):
            den[d] = np.sqrt(v_row[d]) + eps
        for d in range(len(den)):
            p_row[d] -= m_row[d] / den[d] * lr_t


@numba.njit(cache=True, nogil=True)
def gather_rows(indptr, indices, data, rows, n_columns):
    """The rows ``rows`` of a CSR matrix (``n_columns`` columns) restricted to the columns they use:
    ``(words, ptr, local, values)``, ``words`` the sorted distinct columns, row ``r`` holding
    ``local[ptr[r]:ptr[r + 1]]`` (positions in ``words``) with ``values``, in the matrix's order."""
    ptr = np.empty(len(rows) + 1, np.int64)
    ptr[0] = 0
    position = np.zeros(n_columns, np.int64)  # 1 + a used column's position in words, else 0
    for r in range(len(rows)):
        ptr[r + 1] = ptr[r] + indptr[rows[r] + 1] - indptr[rows[r]]
        for e in range(indptr[rows[r]], indptr[rows[r] + 1]):
            position[indices[e]] = 1
    n_words = 0
    for w in range(n_columns):
        if position[w]:
            n_words += 1
            position[w] = n_words
    words = np.empty(n_words, np.int64)
    for w in range(n_columns):
        if position[w]:
            words[position[w] - 1] = w
    local = np.empty(ptr[-1], np.int64)
    values = np.empty(ptr[-1], np.float64)
    for r in range(len(rows)):
        start = indptr[rows[r]]
        for e in range(ptr[r], ptr[r + 1]):
            local[e] = position[indices[start + e - ptr[r]]] - 1
            values[e] = data[start + e - ptr[r]]
    return words, ptr, local, values


@numba.njit(cache=True, nogil=True)
def mean_rows(ptr, local, values, words, E):
    """``M @ E[words]`` for the sub-matrix of :func:`gather_rows`: each row summed from 0 in its entries' order."""
    out = np.zeros((len(ptr) - 1, E.shape[1]))
    for r in range(len(ptr) - 1):
        row = out[r]
        for e in range(ptr[r], ptr[r + 1]):
            a = values[e]
            x = E[words[local[e]]]
            for d in range(len(row)):
                row[d] += a * x[d]
    return out


@numba.njit(cache=True, nogil=True)
def back_rows(ptr, local, values, n_words, grad):
    """``M^T @ grad``: the sub-matrix's rows in order, each entry adding its value times the row's gradient."""
    out = np.zeros((n_words, grad.shape[1]))
    for r in range(len(ptr) - 1):
        g = grad[r]
        for e in range(ptr[r], ptr[r + 1]):
            a = values[e]
            row = out[local[e]]
            for d in range(len(row)):
                row[d] += a * g[d]
    return out


@numba.njit(cache=True, nogil=True)
def add_rows(out, index, values):
    """``np.add.at(out, index, values)`` for 2-d ``out`` and ``values``: row ``values[e]`` added to
    ``out[index[e]]``, e ascending."""
    for e in range(len(index)):
        row = out[index[e]]
        v = values[e]
        for d in range(len(row)):
            row[d] += v[d]
