"""Okapi BM25 over structured queries (SPEC §2, §4), vectorized with scipy.sparse.

For a batch of structured queries the engine computes, for every source term
row r and document d,

    tf~(r,d) = sum_e T[r,e] tf(e,d)     df~(r) = sum_e T[r,e] df(e)
    s(r,d)   = w_q(r) idf(df~(r)) tf~(r,d) (k1+1) / (K_d + tf~(r,d))

as sparse products, then sums the rows of each query. When every source term
has one target term with weight 1 (monolingual search, DT) the per-posting
BM25 weights are precomputed once and a query is a sparse row sum (bm25s's
trick). Only documents that match at least one query term are ranked; top-k
ties are broken by docid ascending (documents are stored in docid order).
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError
from clirkit.index import Index
from clirkit.query import StructuredQueries
from clirkit.run import Run

IDF_VARIANTS = ("lucene", "rsj", "bm25okapi")
_POSTINGS_PER_BATCH = 20_000_000  # bounds the intermediate sparse products
_DENSE_CELLS_PER_BATCH = 16_000_000  # bounds the (queries x docs) score block


def idf(df: np.ndarray, n_docs: int, variant: str = "lucene", *, okapi_epsilon: float = 0.25,
        okapi_mean_idf: float | None = None) -> np.ndarray:
    """Inverse document frequency of (possibly fractional) document frequencies.

    ``rsj`` = ln((N-df+0.5)/(df+0.5)) (negative for df > N/2); ``lucene`` =
    ln(1 + (N-df+0.5)/(df+0.5)); ``bm25okapi`` = rank-bm25's BM25Okapi: rsj, with
    negative values replaced by ``okapi_epsilon`` times ``okapi_mean_idf`` (the
    mean rsj idf over the collection's vocabulary).
    """
    df = np.asarray(df, dtype=np.float64)
    ratio = (n_docs - df + 0.5) / (df + 0.5)
    if variant == "lucene":
        return np.log1p(ratio)
    raw = np.log(ratio)
    if variant == "rsj":
        return raw
    if variant == "bm25okapi":
        if okapi_mean_idf is None:
            raise ValueError("bm25okapi idf needs the collection's mean idf")
        return np.where(raw < 0, okapi_epsilon * okapi_mean_idf, raw)
    raise ClirkitError(f"unknown idf variant {variant!r}; choose one of {', '.join(IDF_VARIANTS)}")


class BM25:
    """BM25 ranking over an :class:`~clirkit.index.Index`.

    Args:
        index: the target-language index.
        k1, b: the usual BM25 parameters (defaults from cclir / Sokolov 2013).
        k3: query-term saturation (k3+1)qtf/(k3+qtf); None keeps the raw query tf.
        idf: ``lucene`` (default, never negative), ``rsj`` or ``bm25okapi``.
        epsilon: rank-bm25's floor factor for negative idfs (``bm25okapi`` only).
    """

    def __init__(self, index: Index, *, k1: float = 1.2, b: float = 0.75, k3: float | None = None,
                 idf: str = "lucene", epsilon: float = 0.25) -> None:
        if idf not in IDF_VARIANTS:
            raise ClirkitError(f"unknown idf variant {idf!r}; choose one of {', '.join(IDF_VARIANTS)}")
        if k1 < 0 or not 0 <= b <= 1 or (k3 is not None and k3 < 0):
            raise ClirkitError(f"BM25 parameters out of range: k1={k1} (>= 0), b={b} (0..1), k3={k3} (>= 0)")
        self.index, self.k1, self.b, self.k3, self.idf_variant, self.epsilon = index, k1, b, k3, idf, epsilon
        avgdl = index.avgdl or 1.0
        self._norm = k1 * (1.0 - b + b * index.doc_lengths / avgdl)  # K_d per document
        self._mean_rsj = float(idf_mean_rsj(index)) if idf == "bm25okapi" else None
        self._weights: sp.csr_matrix | None = None

    def params(self) -> dict:
        return {"k1": self.k1, "b": self.b, "k3": self.k3, "idf": self.idf_variant, "epsilon": self.epsilon}

    def idf(self, df: np.ndarray) -> np.ndarray:
        """This model's idf of (fractional) document frequencies."""
        return idf(df, self.index.n_docs, self.idf_variant, okapi_epsilon=self.epsilon,
                   okapi_mean_idf=self._mean_rsj)

    def query_weights(self, qtf: np.ndarray) -> np.ndarray:
        """w_q of each source term from its query tf (k3-saturated if k3 is set)."""
        qtf = np.asarray(qtf, dtype=np.float64)
        return qtf if self.k3 is None else (self.k3 + 1.0) * qtf / (self.k3 + qtf)

    def _saturate(self, tf: np.ndarray, docs: np.ndarray) -> np.ndarray:
        return tf * (self.k1 + 1.0) / (self._norm[docs] + tf)

    def posting_weights(self) -> sp.csr_matrix:
        """idf(df) * saturated tf for every posting (terms x docs), computed once."""
        if self._weights is None:
            tf = self.index.tf
            data = self._saturate(tf.data.astype(np.float64), tf.indices)
            data *= np.repeat(self.idf(self.index.df), np.diff(tf.indptr))
            self._weights = sp.csr_matrix((data, tf.indices, tf.indptr), shape=tf.shape)
        return self._weights

    # scoring ----------------------------------------------------------------------------------

    def contributions(self, queries: StructuredQueries) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-(source term, document) BM25 terms as ``(query_index, doc_index, value)`` arrays.

        A query's score for a document is the sum of its entries; a document
        with no entry matches none of the query's terms.
        """
        self._check(queries)
        wq = self.query_weights(queries.source_weight)
        unit_rows, unit_of_source = self._scoring_units(queries)
        sources = np.flatnonzero(unit_of_source >= 0)
        per_source = unit_rows[unit_of_source[sources]]
        source_of = np.repeat(sources, np.diff(per_source.indptr))
        return queries.source_query[source_of], per_source.indices, per_source.data * wq[source_of]

    def _scoring_units(self, queries: StructuredQueries) -> tuple[sp.csr_matrix, np.ndarray]:
        """Rows of idf(df~) * saturated tf~ per document, and the row of each source term (-1: none).

        One-to-one queries use the precomputed posting weights (one row per
        target term). Otherwise each distinct translation row (a source term
        repeated across queries) is projected through the index once.
        """
        t = queries.translations
        has_target = np.diff(t.indptr) > 0
        if queries.is_one_to_one():
            unit_of_source = np.full(len(has_target), -1, dtype=np.int64)
            unit_of_source[has_target] = t.indices
            return self.posting_weights(), unit_of_source
        first_of: dict[tuple[bytes, bytes], int] = {}
        unit_of_source = np.full(len(has_target), -1, dtype=np.int64)
        distinct = []
        for r in np.flatnonzero(has_target).tolist():
            lo, hi = t.indptr[r], t.indptr[r + 1]
            key = (t.indices[lo:hi].tobytes(), t.data[lo:hi].tobytes())
            if key not in first_of:
                first_of[key] = len(distinct)
                distinct.append(r)
            unit_of_source[r] = first_of[key]
        t_units = t[distinct]
        tf_units = (t_units @ self.index.tf.astype(np.float64)).tocsr()
        df_units = t_units @ self.index.df.astype(np.float64)
        rows = np.repeat(np.arange(len(distinct)), np.diff(tf_units.indptr))
        data = self._saturate(tf_units.data, tf_units.indices) * self.idf(df_units)[rows]
        return sp.csr_matrix((data, tf_units.indices, tf_units.indptr), shape=tf_units.shape), unit_of_source

    def score_matrix(self, queries: StructuredQueries) -> sp.csr_matrix:
        """BM25 scores as a CSR matrix (n_queries x n_docs); absent entries match nothing."""
        rows, cols, values = self.contributions(queries)
        return sp.csr_matrix((values, (rows, cols)), shape=(queries.n_queries, self.index.n_docs))

    def search(self, queries: StructuredQueries, *, depth: int = 1000, quiet: bool = True,
               tag: str = "clirkit") -> Run:
        """Rank the top ``depth`` documents of every query (score desc, ties by docid asc).

        Queries are processed in batches sized to bound memory; a query that
        matches no document has no rows in the run.
        """
        from clirkit.progress import progress

        if depth < 1:
            raise ClirkitError(f"depth must be >= 1, got {depth}")
        parts = []
        batches = list(self._batches(queries))
        for lo, hi in progress(batches, desc="searching", quiet=quiet, unit="batch"):
            batch = _slice_queries(queries, lo, hi)
            rows, cols, values = self.contributions(batch)
            rows, cols, scores = top_k_dense(accumulate(rows, cols, values, hi - lo, self.index.n_docs), depth)
            parts.append((np.asarray(batch.qids)[rows], self.index.docids[cols], scores))
        if not parts:
            return Run([], [], [], tag=tag)
        return Run(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                   np.concatenate([p[2] for p in parts]), tag=tag)

    def _check(self, queries: StructuredQueries) -> None:
        if queries.translations.shape[1] != self.index.n_terms:
            raise ValueError(f"structured queries address {queries.translations.shape[1]} target terms, "
                             f"the index has {self.index.n_terms}")

    def _batches(self, queries: StructuredQueries):
        """Query ranges [lo, hi) whose postings and dense score block fit the budgets."""
        df = self.index.df.astype(np.float64)
        postings_per_source = (queries.translations != 0).astype(np.float64) @ df
        per_query = np.bincount(queries.source_query, weights=postings_per_source, minlength=queries.n_queries)
        max_queries = max(1, _DENSE_CELLS_PER_BATCH // max(self.index.n_docs, 1))
        lo, acc = 0, 0.0
        for q in range(queries.n_queries):
            if q > lo and (acc + per_query[q] > _POSTINGS_PER_BATCH or q - lo >= max_queries):
                yield lo, q
                lo, acc = q, 0.0
            acc += per_query[q]
        if queries.n_queries > lo:
            yield lo, queries.n_queries


def idf_mean_rsj(index: Index) -> float:
    """Mean rsj idf over the index vocabulary (rank-bm25's ``average_idf``)."""
    if index.n_terms == 0:
        return 0.0
    return float(np.mean(idf(index.df, index.n_docs, "rsj")))


def _slice_queries(queries: StructuredQueries, lo: int, hi: int) -> StructuredQueries:
    keep = (queries.source_query >= lo) & (queries.source_query < hi)
    rows = np.flatnonzero(keep)
    return StructuredQueries(queries.qids[lo:hi], queries.source_query[rows] - lo,
                             queries.source_weight[rows], queries.translations[rows],
                             [queries.source_terms[i] for i in rows.tolist()])


def accumulate(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n_rows: int,
               n_cols: int) -> np.ndarray:
    """Sum ``values`` into a dense (n_rows x n_cols) block; cells with no entry are -inf."""
    keys = rows.astype(np.int64) * n_cols + cols
    dense = np.bincount(keys, weights=values, minlength=n_rows * n_cols)
    if values.size and values.min() > 0:  # then a cell was hit exactly when its sum is positive
        dense[dense == 0] = -np.inf
    else:
        hit = np.zeros(n_rows * n_cols, dtype=bool)
        hit[keys] = True
        dense[~hit] = -np.inf
    return dense.reshape(n_rows, n_cols)


def top_k_dense(dense: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top ``k`` finite cells of each row of a dense score block.

    Returns ``(rows, cols, values)`` ordered by row, then value descending,
    then column ascending (columns are docids in sorted order, so ties go to
    the smaller docid, also at the cut-off). -inf cells are never returned.
    """
    n_rows, n_cols = dense.shape
    kk = min(k, n_cols)
    if kk < n_cols:
        cols = np.argpartition(dense, n_cols - kk, axis=1)[:, n_cols - kk:]
        threshold = np.take_along_axis(dense, cols, axis=1).min(axis=1)
        # argpartition picks arbitrary cells among those equal to the threshold:
        # redo the rows where such ties straddle the cut-off, lowest column first
        above = dense > threshold[:, None]
        n_above = above.sum(axis=1)
        n_at = (dense == threshold[:, None]).sum(axis=1)
        straddle = np.flatnonzero((n_above + n_at > kk) & np.isfinite(threshold))
        if len(straddle):
            cols[straddle] = _lowest_columns_first(dense[straddle], above[straddle], threshold[straddle],
                                                   kk - n_above[straddle], kk)
    else:
        cols = np.broadcast_to(np.arange(n_cols), (n_rows, n_cols))
    values = np.take_along_axis(dense, cols, axis=1)
    order = np.lexsort((cols, -values), axis=-1)
    cols, values = np.take_along_axis(cols, order, axis=1), np.take_along_axis(values, order, axis=1)
    rows = np.repeat(np.arange(n_rows), kk)
    cols, values = cols.ravel(), values.ravel()
    finite = np.isfinite(values)
    return rows[finite], cols[finite], values[finite]


def _lowest_columns_first(block: np.ndarray, above: np.ndarray, threshold: np.ndarray, need: np.ndarray,
                          kk: int) -> np.ndarray:
    """Per row: the columns above the threshold plus the ``need`` lowest columns equal to it."""
    a_rows, a_cols = np.nonzero(above)
    t_rows, t_cols = np.nonzero(block == threshold[:, None])  # row-major: columns ascend within a row
    first_of_row = np.searchsorted(t_rows, np.arange(len(block)))
    keep = np.arange(len(t_rows)) - first_of_row[t_rows] < need[t_rows]
    rows = np.concatenate([a_rows, t_rows[keep]])
    cols = np.concatenate([a_cols, t_cols[keep]])
    return cols[np.argsort(rows, kind="stable")].reshape(len(block), kk)


def top_k(scores: sp.csr_matrix, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`top_k_dense` of a CSR score matrix whose stored entries are the candidates."""
    scores = scores.tocoo()
    return top_k_dense(accumulate(scores.row, scores.col, scores.data, *scores.shape), k)
