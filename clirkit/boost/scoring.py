"""Scoring with a bilinear model as sparse products, top-k per query, and AP for early stopping.

Scores are ``Qm @ W @ Dm.T``: Qm (queries x S, binary), W (S x T, the phrase
table), Dm (documents x T, binary). A document is retrieved for a query when
it shares at least one phrase-table pair with it (a structural non-zero of the
product); its score may be negative or zero. Queries are processed in batches
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
        S = (QW[start:start + batch] @ DmT).tocoo()
        rows = S.row.astype(np.int64)
        order = np.lexsort((tie_key[S.col], -S.data, rows))
        rows, cols, vals = rows[order], S.col[order].astype(np.int64), S.data[order]
        first = np.searchsorted(rows, rows, side="left")
        keep = (np.arange(len(rows)) - first) < depth
        yield rows[keep] + start, cols[keep], vals[keep]


def average_precision(query_rows: np.ndarray, doc_rows: np.ndarray, relevant_keys: np.ndarray,
                      n_docs: int, n_relevant: np.ndarray) -> np.ndarray:
    """AP of each query (SPEC §8) from ranked rows grouped by query.

    Args:
        query_rows, doc_rows: the ranking, grouped by query, in rank order.
        relevant_keys: sorted ``query * n_docs + doc`` of relevant (query, doc) pairs.
        n_relevant: number of relevant documents of each query (length = number of queries).
    Returns:
        float64 AP per query (0 for a query with no relevant document or none retrieved).
    """
    n_q = len(n_relevant)
    ap = np.zeros(n_q)
    if len(query_rows) == 0:
        return ap
    keys = query_rows * n_docs + doc_rows
    pos = np.minimum(np.searchsorted(relevant_keys, keys), max(len(relevant_keys) - 1, 0))
    hit = (relevant_keys[pos] == keys) if len(relevant_keys) else np.zeros(len(keys), bool)
    first = np.searchsorted(query_rows, query_rows, side="left")
    rank = np.arange(len(query_rows)) - first + 1
    cum = np.cumsum(hit)
    before = np.concatenate(([0], cum))[first]
    hits_so_far = cum - before
    prec = np.where(hit, hits_so_far / rank, 0.0)
    sums = np.bincount(query_rows, prec, minlength=n_q)
    with np.errstate(invalid="ignore", divide="ignore"):
        ap = np.where(n_relevant > 0, sums / np.maximum(n_relevant, 1), 0.0)
    return ap


class DevEvaluator:
    """Dev-set MAP of a set of weighted pairs, used for early stopping.

    Args:
        Qm: dev queries x S (source ids of the training vocabulary), binary CSR.
        Dm: documents x T, binary CSR.
        relevant_keys: sorted ``dev_query * n_docs + doc`` with rel >= 1.
        tie_key: see :func:`top_k`.
        depth: ranking depth (1000 in the SPEC).
    MAP averages over all dev queries that have at least one relevant document.
    """

    def __init__(self, Qm: sp.csr_matrix, Dm: sp.csr_matrix, relevant_keys: np.ndarray, tie_key: np.ndarray,
                 *, depth: int = 1000, batch: int = 256) -> None:
        self.Qm = sp.csr_matrix(Qm, dtype=np.float64)
        self.DmT = sp.csr_matrix(Dm, dtype=np.float64).T.tocsr()
        self.n_docs = Dm.shape[0]
        self.relevant_keys = np.asarray(relevant_keys, dtype=np.int64)
        self.n_relevant = np.bincount(self.relevant_keys // self.n_docs, minlength=Qm.shape[0])
        self.tie_key = tie_key
        self.depth = depth
        self.batch = batch

    def __call__(self, src: np.ndarray, tgt: np.ndarray, weights: np.ndarray) -> float:
        S, T = self.Qm.shape[1], self.DmT.shape[0]
        W = sp.csr_matrix((weights, (src, tgt)), shape=(S, T))
        W.sum_duplicates()
        qr, dr = [], []
        for q, d, _ in top_k(self.Qm, W, self.DmT, self.tie_key, depth=self.depth, batch=self.batch):
            qr.append(q), dr.append(d)
        q = np.concatenate(qr) if qr else np.zeros(0, np.int64)
        d = np.concatenate(dr) if dr else np.zeros(0, np.int64)
        ap = average_precision(q, d, self.relevant_keys, self.n_docs, self.n_relevant)
        judged = self.n_relevant > 0
        return float(ap[judged].mean()) if judged.any() else 0.0
