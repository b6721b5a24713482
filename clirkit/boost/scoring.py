"""Scoring with a bilinear model as sparse products, top-k per query, and dev MAP for early stopping.

Scores are ``Qm @ W @ Dm.T``: Qm (queries x S, binary), W (S x T, the phrase
table), Dm (documents x T, binary). A document is retrieved for a query when
its score is non-zero (it shares phrase-table pairs with the query whose
weights do not cancel exactly); scores may be negative. Queries are processed in batches
so memory stays bounded by ``batch`` rows of the (queries x documents) product.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np
import scipy.sparse as sp


def top_k(Qm: sp.csr_matrix, W: sp.csr_matrix, DmT: sp.csr_matrix, tie_key: np.ndarray, *, depth: int,
          batch: int = 256) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Yield ``(query_rows, doc_rows, scores)`` per batch, in rank order.

    Args:
        Qm: queries x S CSR; W: S x T CSR; DmT: T x documents CSR (``Dm.T``).
        tie_key: int array over documents; equal scores rank by ascending key
            (pass the rank of each docid in sorted order for docid ties).
        depth: documents kept per query.
    Rows are grouped by query (ascending), score descending, ties by ``tie_key``.
    """
    QW = (Qm @ W).tocsr()
    for start in range(0, Qm.shape[0], batch):
        S = (QW[start:start + batch] @ DmT).tocsr()
        rows = np.repeat(np.arange(S.shape[0], dtype=np.int64), np.diff(S.indptr))
        cols, vals = S.indices.astype(np.int64), S.data
        keep = vals >= _kth_largest(S, depth)[rows]
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
        order = np.lexsort((tie_key[cols], -vals, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        first = np.searchsorted(rows, rows, side="left")
        keep = (np.arange(len(rows)) - first) < depth
        yield rows[keep] + start, cols[keep], vals[keep]


def _kth_largest(S: sp.csr_matrix, k: int, max_cells: int = 1 << 24) -> np.ndarray:
    """Per row of ``S``, its k-th largest stored value (-inf for rows with at most k entries).

    Only entries >= this threshold can be in a row's top k, so the exact sort
    (with docid ties) runs on few entries. Rows are densified in slices of at
    most ``max_cells`` cells for ``np.partition``.
    """
    counts = np.diff(S.indptr)
    out = np.full(S.shape[0], -np.inf)
    long_rows = np.flatnonzero(counts > k)
    step = max(1, max_cells // max(S.shape[1], 1))
    for a in range(0, len(long_rows), step):
        rows = long_rows[a:a + step]
        sub = S[rows]
        dense = np.full(sub.shape, -np.inf)
        dense[np.repeat(np.arange(len(rows)), np.diff(sub.indptr)), sub.indices] = sub.data
        n = dense.shape[1]
        out[rows] = np.partition(dense, n - k, axis=1)[:, n - k]
    return out


class DevEvaluator:
    """Dev-set MAP of a set of weighted pairs, used for early stopping.

    Ranks the dev queries over the whole collection exactly as
    :meth:`clirkit.boost.BoostModel.rank_matrices` does and scores the run with
    :func:`clirkit.metrics.evaluate` (AP, trec_eval semantics, averaged over the
    queries of the dev qrels), so the dev MAP is the number a user would get.

    Args:
        Qm: dev queries x S (source ids of the training vocabulary), binary CSR.
        Dm: documents x T, binary CSR.
        qids, docids: ids of the rows of ``Qm`` and ``Dm``.
        qrels: the dev judgments.
        depth: ranking depth (1000 in the SPEC).
    """

    def __init__(self, Qm: sp.csr_matrix, Dm: sp.csr_matrix, qids, docids, qrels, *, depth: int = 1000,
                 batch: int = 256) -> None:
        self.Qm = sp.csr_matrix(Qm, dtype=np.float64)
        self.DmT = sp.csr_matrix(Dm, dtype=np.float64).T.tocsr()
        self.qids = np.asarray(qids, dtype=str)
        self.docids = np.asarray(docids, dtype=str)
        self.tie_key = np.empty(len(self.docids), dtype=np.int64)
        self.tie_key[np.argsort(self.docids, kind="stable")] = np.arange(len(self.docids))
        self.qrels = qrels
        self.depth = depth
        self.batch = batch

    def __call__(self, src: np.ndarray, tgt: np.ndarray, weights: np.ndarray) -> float:
        from clirkit.metrics import evaluate
        from clirkit.run import Run

        S, T = self.Qm.shape[1], self.DmT.shape[0]
        W = sp.csr_matrix((weights, (src, tgt)), shape=(S, T))
        W.sum_duplicates()
        parts = list(top_k(self.Qm, W, self.DmT, self.tie_key, depth=self.depth, batch=self.batch))
        q = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        if len(q) == 0:
            return 0.0
        d = np.concatenate([p[1] for p in parts])
        s = np.concatenate([p[2] for p in parts])
        run = Run(self.qids[q], self.docids[d], s)
        return float(evaluate(run, self.qrels, ["AP"], depth=self.depth).mean()["AP"])
