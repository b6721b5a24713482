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
Each query's sums and top k are computed by the compiled kernel of
:mod:`clirkit.kernels` when numba is installed, else by numpy: the same runs.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError
from clirkit.index import Index
from clirkit.query import StructuredQueries
from clirkit.run import Run, take_strings

IDF_VARIANTS = ("lucene", "rsj", "bm25okapi")
PRECISIONS = ("float64", "float32")
_POSTINGS_PER_BATCH = 20_000_000  # bounds the intermediate sparse products
_QUERIES_PER_STEP = 250  # a step of the progress shown when nothing bounds a batch
_DENSE_CELLS_PER_BATCH = 16_000_000  # bounds the (queries x docs) block of top_k's densified slices (128 MB)
# a unit matching this share of the documents is added as a dense vector, a vectorized pass over the
# documents (about 0.5 ns each, either precision and either path), where a scatter-add costs per posting
# 1.4 ns compiled and 3 ns in numpy (measured on the Zipf benchmark: 0.3 is the fastest of 0.1-0.5)
_DENSE_FRACTION = 0.3
_DENSE_BYTES = 256 * 2**20  # memory for such dense vectors
_WEIGHT_CHUNK = 4_000_000  # postings weighted at once
_GROUP_BYTES = 16 * 2**20  # float32 rows ranked together (_top_k_block): they stay in the last-level cache
_ROW_BITS, _VALUE_BITS, _COLUMN_BITS = 9, 31, 24  # the 64-bit sort key of such a group
_ranker: Callable | bool | None = None  # compiled_ranker's answer once asked (False: numpy ranks)


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


# parameter -> (low, high, None allowed): the ranges DT and PSQ declare as scikit-learn constraints
RANGES = {"k1": (0.0, None, False), "b": (0.0, 1.0, False), "k3": (0.0, None, True), "epsilon": (0.0, None, False)}


def describe_range(name: str) -> str:
    """The allowed values of BM25 parameter ``name`` in scikit-learn's words ("a float in the range [0.0, inf)")."""
    low, high, none = RANGES[name]
    text = f"a float in the range [{low!r}, {'inf)' if high is None else repr(high) + ']'}"
    return f"None or {text}" if none else text


def check_params(**params) -> None:
    """ClirkitError unless each BM25 parameter given (k1, b, k3, epsilon) is a finite number in its range,
    worded as scikit-learn words a system's parameter ("The 'k1' parameter of BM25 must be ... Got nan
    instead."), which the command turns into the option's name."""
    import math
    from numbers import Real

    for name, value in params.items():
        low, high, none = RANGES[name]
        if value is None and none:
            continue
        ok = (isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value) and value >= low
              and (high is None or value <= high))
        if not ok:
            shown = repr(float(value)) if isinstance(value, Real) and not isinstance(value, bool) else repr(value)
            raise ClirkitError(f"The {name!r} parameter of BM25 must be {describe_range(name)}. Got {shown} instead "
                               f"(out of range).")


@dataclass(frozen=True)
class CollectionStats:
    """What BM25 takes from the whole collection when it scores a part of it (a shard, :mod:`clirkit.shards`),
    so that every document gets the score it gets in the index of the whole collection.

    Attributes:
        n_docs: documents in the whole collection.
        avgdl: their mean length in tokens (the whole index's ``avgdl``).
        df: int64 (n_terms,): each term's document frequency in the whole collection, in the order of the
            terms of the index searched.
        union_df: for Pirkola queries (``df_union``), a function of translation rows (CSR, over the terms of
            the index searched) giving each row's df counted in the whole collection (float64); None counts
            them in the index searched.
    """

    n_docs: int
    avgdl: float
    df: np.ndarray
    union_df: Callable[[sp.csr_matrix], np.ndarray] | None = None


def union_counts(translations: sp.csr_matrix, tf: sp.csr_matrix) -> np.ndarray:
    """For each translation row, the number of documents of ``tf`` (terms x docs) holding any of its
    target terms (float64): the df of a Pirkola query term."""
    rows, rows_tf = _used_rows(translations, tf)
    return np.diff(((rows != 0).astype(np.float64) @ (rows_tf != 0)).tocsr().indptr).astype(np.float64)


def _used_rows(translations: sp.csr_matrix, tf: sp.csr_matrix) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """``translations`` over only the target terms it uses, and those rows of ``tf``: the same product
    (summed in the same order) without converting the whole index."""
    used = np.unique(translations.indices)
    compact = sp.csr_matrix((translations.data, np.searchsorted(used, translations.indices), translations.indptr),
                            shape=(translations.shape[0], len(used)))
    return compact, tf[used]


class BM25:
    """BM25 ranking over an :class:`~clirkit.index.Index`.

    Args:
        index: the target-language index.
        k1, b: the usual BM25 parameters (defaults from cclir / Sokolov 2013).
        k3: query-term saturation (k3+1)qtf/(k3+qtf); None keeps the raw query tf.
        idf: ``lucene`` (default, never negative), ``rsj`` or ``bm25okapi``.
        epsilon: rank-bm25's floor factor for negative idfs (``bm25okapi`` only).
        stats: the whole collection's n_docs, avgdl and df when ``index`` is a part of it (a shard); None:
            the index's own.
        precision: ``float64`` (default: exact, equal to rank-bm25 to 1e-9) or ``float32``: posting weights
            and score sums in float32, about twice as fast and half the memory, scores within ~1e-6 relative
            (documents whose scores differ by less may swap places).
    """

    def __init__(self, index: Index, *, k1: float = 1.2, b: float = 0.75, k3: float | None = None,
                 idf: str = "lucene", epsilon: float = 0.25, stats: CollectionStats | None = None,
                 precision: str = "float64") -> None:
        if idf not in IDF_VARIANTS:
            raise ClirkitError(f"unknown idf variant {idf!r}; choose one of {', '.join(IDF_VARIANTS)}")
        if precision not in PRECISIONS:
            raise ClirkitError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
        check_params(k1=k1, b=b, k3=k3, epsilon=epsilon)
        self.index, self.k1, self.b, self.k3, self.idf_variant, self.epsilon = index, k1, b, k3, idf, epsilon
        self.precision, self._dtype = precision, np.dtype(precision)
        self.stats = stats
        self._n_docs = index.n_docs if stats is None else stats.n_docs  # idf's N and df: the collection's
        self._df = index.df if stats is None else stats.df
        avgdl = (index.avgdl if stats is None else stats.avgdl) or 1.0
        with np.errstate(over="ignore"):
            self._norm = k1 * (1.0 - b + b * index.doc_lengths / avgdl)  # K_d per document
        self._mean_rsj = _mean_rsj(self._df, self._n_docs) if idf == "bm25okapi" else None
        self._weights: sp.csr_matrix | None = None
        self._dense: np.ndarray | None = None  # dense rows of very common terms' posting weights (filled rows)
        self._dense_slot: np.ndarray | None = None  # (n_terms,) each term's row of _dense, -1: none
        self._n_dense = 0  # the rows of _dense in use
        self._positive: bool | None = None  # whether every posting weight is > 0
        self._lazy: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # memory-mapped: term -> (docs, weights)
        self._lazy_units: tuple[sp.csr_matrix, np.ndarray] | None = None  # the last rows made of them, terms

    def params(self) -> dict:
        return {"k1": self.k1, "b": self.b, "k3": self.k3, "idf": self.idf_variant, "epsilon": self.epsilon,
                "precision": self.precision}

    def idf(self, df: np.ndarray) -> np.ndarray:
        """This model's idf of (fractional) document frequencies."""
        return idf(df, self._n_docs, self.idf_variant, okapi_epsilon=self.epsilon,
                   okapi_mean_idf=self._mean_rsj)

    def query_weights(self, qtf: np.ndarray) -> np.ndarray:
        """w_q of each source term from its query tf (k3-saturated if k3 is set)."""
        qtf = np.asarray(qtf, dtype=np.float64)
        if self.k3 is None:
            return qtf
        with np.errstate(over="ignore", invalid="ignore"):
            return self._finite((self.k3 + 1.0) * qtf / (self.k3 + qtf), "query term weights")

    def _saturate(self, tf: np.ndarray, docs: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            return tf * (self.k1 + 1.0) / (self._norm[docs] + tf)

    def _finite(self, values: np.ndarray, what: str) -> np.ndarray:
        """``values``, or ClirkitError if a parameter so large made one overflow (inf or NaN): a run with such
        scores would be silently wrong."""
        if not np.isfinite(values).all():
            raise ClirkitError(f"BM25 {what} overflow the float range with k1={self.k1:g}, b={self.b:g}, k3="
                               f"{'none' if self.k3 is None else format(self.k3, 'g')}: take smaller parameters")
        return values

    def posting_weights(self) -> sp.csr_matrix:
        """idf(df) * saturated tf for every posting (terms x docs, in this model's precision), computed once,
        with the dense rows of the most common terms (the first search needs no warm-up)."""
        if self._weights is None:
            tf = self.index.tf
            self._weights = sp.csr_matrix((self._row_weights(tf, self._df), tf.indices, tf.indptr), shape=tf.shape)
            if self._positive_weights():
                self._keep_dense(self._weights, np.arange(tf.shape[0]))
        return self._weights

    def _row_weights(self, tf_rows: sp.csr_matrix, df: np.ndarray) -> np.ndarray:
        """idf(df) * saturated tf for each posting of ``tf_rows`` (CSR rows of counts over the documents, one
        df per row), in this model's precision; computed a chunk of rows at a time, so that the float64
        temporaries (some 50 bytes a posting) stay within _WEIGHT_CHUNK postings."""
        indptr = tf_rows.indptr
        idf = self.idf(df)
        out = np.empty(tf_rows.nnz, dtype=self._dtype)
        lo = 0
        while lo < len(indptr) - 1:
            hi = max(lo + 1, int(np.searchsorted(indptr, indptr[lo] + _WEIGHT_CHUNK, side="right")) - 1)
            hi = min(hi, len(indptr) - 1)
            a, b = indptr[lo], indptr[hi]
            data = self._saturate(tf_rows.data[a:b].astype(np.float64), tf_rows.indices[a:b])
            with np.errstate(over="ignore", invalid="ignore"):
                data *= np.repeat(idf[lo:hi], np.diff(indptr[lo:hi + 1]))
            out[a:b] = data
            lo = hi
        return self._finite(out, "term weights")

    def _lazy_weights(self, terms: np.ndarray) -> sp.csr_matrix:
        """The posting weights of ``terms`` (sorted term ids) as CSR rows in that order, for a memory-mapped
        index: each term's row is read and weighted once (as :meth:`posting_weights` would, the same
        values) and kept, with the dense rows of the common ones (as the precomputed weights have)."""
        todo = np.array([t for t in terms.tolist() if t not in self._lazy], dtype=np.int64)
        tf = self.index.tf
        lengths = np.diff(tf.indptr)[todo]
        chunk_of = np.cumsum(lengths) // _WEIGHT_CHUNK  # terms weighted together: bounded temporaries
        for chunk in np.split(todo, np.flatnonzero(np.diff(chunk_of)) + 1) if len(todo) else []:
            rows = tf[chunk]
            rows = sp.csr_matrix((self._row_weights(rows, self._df[chunk]), rows.indices, rows.indptr),
                                 shape=rows.shape)
            for i, term in enumerate(chunk.tolist()):  # the docids read where they are mapped, not copied
                self._lazy[term] = (tf.indices[tf.indptr[term]:tf.indptr[term + 1]],
                                    rows.data[rows.indptr[i]:rows.indptr[i + 1]])
            self._keep_dense(rows, chunk)
        parts = [self._lazy[t] for t in terms.tolist()]
        indptr = np.concatenate(([0], np.cumsum([len(p[0]) for p in parts], dtype=np.int64)))
        units = sp.csr_matrix((np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, self._dtype),
                               np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int32), indptr),
                              shape=(len(terms), self.index.n_docs))
        self._lazy_units = (units, terms)
        return units

    def _positive_weights(self) -> bool:
        """Whether every posting weight is > 0 (so a cell matching no term can be 0), computed once."""
        if self._positive is None:
            w = self.posting_weights()
            self._positive = bool(w.nnz == 0 or w.data.min() > 0)
        return self._positive

    def _keep_dense(self, rows: sp.csr_matrix, terms: np.ndarray) -> None:
        """Keep dense vectors of the very common ones of ``rows`` (the posting weights of ``terms``, one row
        each), the longest first, in what is left of _DENSE_BYTES (allocated once; its pages are used only
        as rows are filled)."""
        n_docs = self.index.n_docs
        if self._dense is None:
            self._dense = np.empty((min(self._dense_capacity(), self.index.n_terms), n_docs), dtype=self._dtype)
            self._dense_slot = np.full(self.index.n_terms, -1, dtype=np.int64)
        wide = self._wide(rows, np.arange(rows.shape[0]), len(self._dense) - self._n_dense)
        _fill_dense(rows, wide, self._dense[self._n_dense:self._n_dense + len(wide)])
        self._dense_slot[terms[wide]] = np.arange(self._n_dense, self._n_dense + len(wide))
        self._n_dense += len(wide)

    def _dense_capacity(self) -> int:
        """How many dense vectors of the documents _DENSE_BYTES holds."""
        return _DENSE_BYTES // max(self._dtype.itemsize * self.index.n_docs, 1)

    def _no_dense(self, n_terms: int) -> tuple[np.ndarray, np.ndarray]:
        """No dense vectors, and no row of them for any of ``n_terms`` terms (:meth:`_dense_units`)."""
        return np.zeros((0, self.index.n_docs), dtype=self._dtype), np.full(n_terms, -1, dtype=np.int64)

    def _wide(self, units: sp.csr_matrix, candidates: np.ndarray, max_rows: int) -> np.ndarray:
        """The ``candidates`` rows of ``units`` matching at least the dense share of the documents, the
        longest first, at most ``max_rows``."""
        lengths = np.diff(units.indptr)
        wide = candidates[lengths[candidates] >= _DENSE_FRACTION * max(self.index.n_docs, 1)]
        return wide[np.argsort(-lengths[wide], kind="stable")][:max(max_rows, 0)]

    def _dense_units(self, units: sp.csr_matrix, units_used: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Dense vectors of very common unit rows and the row of each of ``units_used`` in them (-1: none):
        kept for the index's own terms (also memory-mapped), made here for a per-batch unit that two
        queries share."""
        if units is self._weights or (self._lazy_units is not None and units is self._lazy_units[0]):
            terms = units_used if units is self._weights else self._lazy_units[1][units_used]
            if self._dense is None:  # (no term was queried yet)
                return self._no_dense(len(units_used))
            return self._dense[:self._n_dense], self._dense_slot[terms]
        shared = np.flatnonzero(np.bincount(units_used, minlength=units.shape[0]) >= 2)
        wide = self._wide(units, shared, self._dense_capacity())
        dense = np.empty((len(wide), self.index.n_docs), dtype=self._dtype)
        _fill_dense(units, wide, dense)
        slot = np.full(units.shape[0], -1, dtype=np.int64)
        slot[wide] = np.arange(len(wide))
        return dense, slot[units_used]

    # scoring ----------------------------------------------------------------------------------

    def contributions(self, queries: StructuredQueries) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-(source term, document) BM25 terms as ``(query_index, doc_index, value)`` arrays.

        A query's score for a document is the sum of its entries; a document
        with no entry matches none of the query's terms.
        """
        per_source, sources, weights = self._gathered(queries)
        counts = np.diff(per_source.indptr)
        return (np.repeat(queries.source_query[sources], counts), per_source.indices,
                per_source.data * np.repeat(weights, counts))

    def _gathered(self, queries: StructuredQueries) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """The scoring-unit row of every source term that has one, the source ids, and their w_q."""
        self._check(queries)
        unit_rows, unit_of_source = self._scoring_units(queries)
        sources = np.flatnonzero(unit_of_source >= 0)
        return unit_rows[unit_of_source[sources]], sources, self.query_weights(queries.source_weight[sources])

    def _top_rows(self, queries: StructuredQueries, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The top ``depth`` documents of each query of a batch as ``(sizes, documents, scores)``: how many
        each query keeps (int64, one per query, 0 for a query matching nothing), then the kept documents
        (int64) and scores (float64) in run order.

        A query's scores are the sums of its source terms' weighted unit rows, added in source order into
        one dense row of the documents, and its top cells are taken before the next query: by the compiled
        kernel (:mod:`clirkit.kernels`) when numba is installed, else by numpy (:meth:`_top_rows_numpy`),
        the same sums either way. A cell matching no term is 0 when every contribution is positive (a match
        is > 0), else it is skipped by a flag.
        """
        self._check(queries)
        units, unit_of_source = self._scoring_units(queries)
        weights = self.query_weights(queries.source_weight)
        if units is self._weights:  # checked once for the index's own posting weights
            units_positive = self._positive_weights()
        else:
            units_positive = units.nnz == 0 or units.data.min() > 0
        positive = units_positive and (len(weights) == 0 or weights.min() > 0)
        sources = np.flatnonzero(unit_of_source >= 0)
        sources = sources[np.argsort(queries.source_query[sources], kind="stable")]  # by query, in source order
        units_used = unit_of_source[sources]
        bounds = np.searchsorted(queries.source_query[sources], np.arange(queries.n_queries + 1))
        term_weights = weights[sources].astype(self._dtype)
        # dense vectors add 0 to the cells they do not match: unless positive, the flags would miss them
        dense, slots = self._dense_units(units, units_used) if positive else self._no_dense(len(units_used))
        rank = compiled_ranker()
        if rank is not None:
            try:
                counts, cols, values = rank(bounds.astype(np.int64), units.indptr[units_used].astype(np.int64),
                                            units.indptr[units_used + 1].astype(np.int64), term_weights,
                                            slots.astype(np.int64), units.indices, units.data, dense,
                                            self.index.n_docs, depth, positive)
                return counts, cols, values.astype(np.float64, copy=False)
            except Exception as error:
                if not type(error).__module__.startswith("numba"):
                    raise
                _without_numba(error)  # it could not compile the kernel here
        return self._top_rows_numpy(queries, depth, units, units_used, bounds, term_weights, dense, slots,
                                    positive)

    def _top_rows_numpy(self, queries: StructuredQueries, depth: int, units: sp.csr_matrix,
                        units_used: np.ndarray, bounds: np.ndarray, term_weights: np.ndarray, dense: np.ndarray,
                        slots: np.ndarray, positive: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_top_rows` in numpy, given the query terms' unit rows (``units_used``, query q's being
        ``bounds[q]:bounds[q + 1]``), their w_q, the dense vectors of common rows and each term's row in
        them (-1: none), and whether every contribution is positive.

        A dense vector is added in one vectorized add, an order of magnitude cheaper per posting than a
        scatter-add; positive float32 rows are ranked a group at a time (_top_k_block), others one by one.
        """
        n_docs = self.index.n_docs
        unmatched = 0.0 if positive else -np.inf
        grouped = positive and self._dtype == np.float32 and n_docs < 2**_COLUMN_BITS
        group = max(1, min(2**_ROW_BITS, _GROUP_BYTES // max(4 * n_docs, 1))) if grouped else 1
        block = np.empty((min(group, queries.n_queries), n_docs), dtype=self._dtype)
        hit = None if positive else np.empty(n_docs, dtype=bool)
        pending: list[int] = []  # the queries whose rows fill the block
        indptr, indices, data = units.indptr, units.indices, units.data
        bounds = bounds.tolist()
        terms = list(zip(slots.tolist(), indptr[units_used].tolist(), indptr[units_used + 1].tolist(),
                         term_weights.tolist()))
        out_rows, out_cols, out_values = [], [], []

        def rank_pending() -> None:  # the top cells of the rows in the block, at once
            rows, cols, values = _top_k_block(block[:len(pending)], depth)
            out_rows.append(np.asarray(pending, dtype=np.int64)[rows])
            out_cols.append(cols)
            out_values.append(values)
            pending.clear()

        for q in range(queries.n_queries):
            if bounds[q] == bounds[q + 1]:
                continue
            row = block[len(pending)]
            row.fill(0.0)
            if hit is not None:
                hit.fill(False)
            for slot, lo, hi, w in terms[bounds[q]:bounds[q + 1]]:
                if slot >= 0:
                    row += dense[slot] if w == 1.0 else self._dtype.type(w) * dense[slot]
                    continue
                docs, values = indices[lo:hi], data[lo:hi]
                np.add.at(row, docs, values if w == 1.0 else self._dtype.type(w) * values)
                if hit is not None:
                    hit[docs] = True
            if hit is not None:
                row[~hit] = -np.inf
            if not grouped:
                cols, values = _top_k_row(row, unmatched, depth)
                out_rows.append(np.full(len(cols), q, dtype=np.int64))
                out_cols.append(cols)
                out_values.append(values)
                continue
            pending.append(q)
            if len(pending) == len(block):
                rank_pending()
        if pending:
            rank_pending()
        sizes = np.zeros(queries.n_queries, dtype=np.int64)
        if not out_rows:
            return sizes, np.zeros(0, dtype=np.int64), np.zeros(0)
        sizes += np.bincount(np.concatenate(out_rows), minlength=queries.n_queries)
        return sizes, np.concatenate(out_cols).astype(np.int64), np.concatenate(out_values).astype(np.float64)

    def _scoring_units(self, queries: StructuredQueries) -> tuple[sp.csr_matrix, np.ndarray]:
        """Rows of idf(df~) * saturated tf~ per document, and the row of each source term (-1: none).

        One-to-one queries use the precomputed posting weights (one row per
        target term), unless the index is memory-mapped. Otherwise each distinct
        translation row (a source term repeated across queries) is projected
        through the index once (the same values).
        """
        t = queries.translations
        has_target = np.diff(t.indptr) > 0
        self.index.check_rows(t.indices)  # a memory-mapped index checks the postings it is about to read
        if queries.is_one_to_one():
            unit_of_source = np.full(len(has_target), -1, dtype=np.int64)
            if not self.index.lazy:
                unit_of_source[has_target] = t.indices
                return self.posting_weights(), unit_of_source
            terms = np.unique(t.indices)  # memory-mapped: the weights of the rows queried, made once each
            unit_of_source[has_target] = np.searchsorted(terms, t.indices)
            return self._lazy_weights(terms), unit_of_source
        unit_of_source = np.full(len(has_target), -1, dtype=np.int64)
        with_target = np.flatnonzero(has_target)
        distinct, unit_of_source[with_target] = np.unique(first_alike(t)[with_target], return_inverse=True)
        t_units = t[distinct]
        compact, tf_rows = _used_rows(t_units, self.index.tf)
        tf_units = (compact @ tf_rows.astype(np.float64)).tocsr()
        if queries.df_union:  # Pirkola: the documents holding any of the synonyms
            union = getattr(self.stats, "union_df", None)
            df_units = union(t_units) if union is not None else union_counts(t_units, self.index.tf)
        else:
            df_units = t_units @ self._df.astype(np.float64)
        rows = np.repeat(np.arange(len(distinct)), np.diff(tf_units.indptr))
        with np.errstate(over="ignore", invalid="ignore"):
            data = (self._saturate(tf_units.data, tf_units.indices) * self.idf(df_units)[rows]).astype(self._dtype)
        self._finite(data, "term weights")
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
        sizes, cols, scores = self._search_sizes(queries, depth, quiet)
        return Run.from_groups(queries.qids, sizes, take_strings(self.index.docids, cols), scores, tag=tag)

    def search_positions(self, queries: StructuredQueries, *, depth: int = 1000,
                         quiet: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`search` as ``(query position, document position, score)`` arrays in run order (int64,
        int64, float64): what a shard of :mod:`clirkit.shards` sends back to be merged."""
        sizes, cols, scores = self._search_sizes(queries, depth, quiet)
        return np.repeat(np.arange(queries.n_queries, dtype=np.int64), sizes), cols, scores

    def _search_sizes(self, queries: StructuredQueries, depth: int,
                      quiet: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`search` as ``(sizes, document position, score)``: how many rows each query has (int64, one
        per query), then the rows' documents (int64) and scores (float64) in run order."""
        from clirkit.progress import progress

        if depth < 1:
            raise ClirkitError(f"depth must be >= 1, got {depth}")
        parts = []
        batches = list(self._batches(queries))
        for lo, hi in progress(batches, desc="searching", quiet=quiet, unit="batch"):
            batch = _slice_queries(queries, lo, hi)
            with np.errstate(over="ignore", invalid="ignore"):
                sizes, cols, scores = self._top_rows(batch, depth)
            self._finite(scores, "scores")
            parts.append((sizes, cols, scores))
        if not parts:
            return np.zeros(queries.n_queries, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
        return tuple(np.concatenate(arrays) for arrays in zip(*parts))

    def _check(self, queries: StructuredQueries) -> None:
        if queries.translations.shape[1] != self.index.n_terms:
            raise ValueError(f"structured queries address {queries.translations.shape[1]} target terms, "
                             f"the index has {self.index.n_terms}")

    def _batches(self, queries: StructuredQueries):
        """Query ranges [lo, hi) whose distinct translation rows (each projected once per batch) hold at most
        the budget of postings of the intermediate products; for one-to-one queries over precomputed
        weights (nothing is projected), ranges of a fixed number of queries. The scores are summed one query
        at a time, whatever the batch."""
        if queries.is_one_to_one() and not self.index.lazy:  # batches only for the progress shown
            yield from ((lo, min(lo + _QUERIES_PER_STEP, queries.n_queries))
                        for lo in range(0, queries.n_queries, _QUERIES_PER_STEP))
            return
        t = queries.translations
        cost = (t != 0).astype(np.float64) @ self.index.df.astype(np.float64)  # postings of each source's row
        first = first_alike(t)
        order = np.argsort(queries.source_query, kind="stable")
        bounds = np.searchsorted(queries.source_query[order], np.arange(queries.n_queries + 1)).tolist()
        lo, acc, seen = 0, 0.0, set()
        for q in range(queries.n_queries):
            rows = set(first[order[bounds[q]:bounds[q + 1]]].tolist())
            added = sum(cost[r] for r in rows - seen)
            if q > lo and acc + added > _POSTINGS_PER_BATCH:
                yield lo, q
                lo, acc, seen = q, 0.0, set()
                added = sum(cost[r] for r in rows)
            seen |= rows
            acc += added
        if queries.n_queries > lo:
            yield lo, queries.n_queries


def _fill_dense(units: sp.csr_matrix, chosen: np.ndarray, out: np.ndarray) -> None:
    """Write the ``chosen`` rows of ``units`` into the rows of ``out`` (len(chosen) x n_columns) as dense
    vectors, 0 where a row has no entry."""
    out[:] = 0
    for i, u in enumerate(chosen.tolist()):
        lo, hi = units.indptr[u], units.indptr[u + 1]
        out[i, units.indices[lo:hi]] = units.data[lo:hi]


def compiled_ranker() -> Callable | None:
    """:func:`clirkit.kernels.rank_sums` when numba is installed, else None (numpy ranks); None also when the
    environment variable ``CLIRKIT_NUMBA`` is ``0``. Imported once, on the first search."""
    global _ranker
    if _ranker is None:
        _ranker = False
        if os.environ.get("CLIRKIT_NUMBA", "1") != "0":
            try:
                from clirkit.kernels import rank_sums
            except ImportError:
                pass
            except Exception as error:  # a numba that imports but fails (an incompatible numpy or llvmlite)
                _without_numba(error)
            else:
                _ranker = rank_sums
    return _ranker or None


def _without_numba(error: BaseException) -> None:
    """Rank with numpy from now on, numba having failed with ``error``; say so once on stderr."""
    global _ranker
    import sys

    _ranker = False
    message = " ".join(str(error).split())[:200]
    print(f"clirkit: numba failed ({type(error).__name__}: {message}); ranking with numpy, the same runs",
          file=sys.stderr)


def row_key(m: sp.csr_matrix, r: int) -> tuple[bytes, bytes]:
    """The content of row ``r`` of the CSR ``m`` (its columns and values), as a hashable key."""
    lo, hi = m.indptr[r], m.indptr[r + 1]
    return m.indices[lo:hi].astype(np.int64).tobytes(), m.data[lo:hi].astype(np.float64).tobytes()


def first_alike(m: sp.csr_matrix) -> np.ndarray:
    """For each row of the CSR ``m``, the first row with the same content (int64): a translation row
    repeated across queries is projected once."""
    first: dict[tuple[bytes, bytes], int] = {}
    return np.array([first.setdefault(row_key(m, r), r) for r in range(m.shape[0])], dtype=np.int64)


def idf_mean_rsj(index: Index) -> float:
    """Mean rsj idf over the index vocabulary (rank-bm25's ``average_idf``)."""
    return _mean_rsj(index.df, index.n_docs)


def _mean_rsj(df: np.ndarray, n_docs: int) -> float:
    """Mean rsj idf of the document frequencies ``df`` of a vocabulary (0 for none)."""
    if len(df) == 0:
        return 0.0
    return float(np.mean(idf(df, n_docs, "rsj")))


def _slice_queries(queries: StructuredQueries, lo: int, hi: int) -> StructuredQueries:
    keep = (queries.source_query >= lo) & (queries.source_query < hi)
    rows = np.flatnonzero(keep)
    return StructuredQueries(queries.qids[lo:hi], queries.source_query[rows] - lo,
                             queries.source_weight[rows], queries.translations[rows],
                             [queries.source_terms[i] for i in rows.tolist()], df_union=queries.df_union)


def accumulate(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n_rows: int,
               n_cols: int) -> np.ndarray:
    """Sum ``values`` into a dense (n_rows x n_cols) block; cells with no entry are -inf."""
    keys = rows.astype(np.int64) * n_cols + cols
    # with no entry at all bincount returns integers, which cannot hold -inf
    dense = np.bincount(keys, weights=values, minlength=n_rows * n_cols).astype(np.float64, copy=False)
    hit = np.zeros(n_rows * n_cols, dtype=bool)
    hit[keys] = True
    dense[~hit] = -np.inf
    return dense.reshape(n_rows, n_cols)


def top_k_dense(dense: np.ndarray, unmatched: float, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top ``k`` cells of each row of a dense score block, skipping cells equal to ``unmatched``.

    ``unmatched`` marks documents that match no query term: -inf, or 0 when
    every match scores > 0. Returns ``(rows, cols, values)`` ordered by row,
    then value descending, then column ascending (columns are docids in sorted
    order, so ties go to the smaller docid, also at the cut-off).
    """
    out_cols, out_values = [], []
    for row in dense:
        cols, values = _top_k_row(row, unmatched, k)
        out_cols.append(cols)
        out_values.append(values)
    if not out_cols:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    counts = [len(c) for c in out_cols]
    return (np.repeat(np.arange(len(counts)), counts), np.concatenate(out_cols).astype(np.int64),
            np.concatenate(out_values))


def _top_k_row(row: np.ndarray, unmatched: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` cells of one row as ``(columns, values)``, value descending then column ascending,
    skipping cells equal to ``unmatched`` (:func:`top_k_dense`)."""
    kk = min(k, len(row))
    candidates, bound = _candidates(row, kk, unmatched)
    values = row[candidates]
    if len(values) > kk:
        threshold = np.partition(values, len(values) - kk)[len(values) - kk]  # the row's k-th largest
        above = values > threshold
        tied = np.flatnonzero(values == threshold)[:kk - int(np.count_nonzero(above))]  # smallest docids
        above[tied] = True
        candidates, values = candidates[above], values[above]
        bound = threshold
    if not bound > unmatched:  # cells that match nothing may be among the candidates
        matched = values != unmatched
        candidates, values = candidates[matched], values[matched]
    if unmatched == 0.0 and len(values) > 1:  # positive values: one sort of (float32 value, column) keys
        rounded = values.astype(np.float32)  # rounding keeps the order (ties may appear)
        keys = (~rounded.view(np.uint32)).astype(np.uint64) << np.uint64(32) | candidates.astype(np.uint64)
        keys.sort()
        ordered = (keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
        exact = row[ordered]
        if values.dtype == np.float32:
            return ordered, exact
        bucket = exact.astype(np.float32)  # two values in one float32 bucket: their order is the columns'
        if not np.any((bucket[1:] == bucket[:-1]) & (exact[1:] != exact[:-1])):
            return ordered, exact
    order = np.argsort(-values, kind="stable")  # candidates ascend, so ties keep docid order
    return candidates[order], values[order]


def _top_k_block(block: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`top_k_dense` of a float32 block whose matched cells are > 0 and unmatched ones 0, with at most
    2**_ROW_BITS rows and 2**_COLUMN_BITS columns, in a fixed number of numpy calls whatever its rows.

    A strided 1/8 sample of each row bounds its k-th largest cell from below (about 1.5k cells reach the
    bound); the cells reaching it are sorted at once as 64-bit keys (row, value descending, column), and the
    first k of each row kept. A row where fewer than k cells reach the bound is redone with all its matched
    cells.
    """
    g, n = block.shape
    kk = min(k, n)
    smallest = np.float32(np.finfo(np.float32).tiny)
    bound = np.full(g, smallest, dtype=np.float32)
    if n >= 8 * kk:
        sample = block[:, ::8]
        width = sample.shape[1]
        rank = min(width - 1, max(1, (3 * kk) // 16))
        # unmatched cells become distinct tiny negatives: numpy's introselect is 15x slower on equal values
        # (matched ones do not change: the bound is checked by counting anyway)
        sample = sample - np.arange(1, width + 1, dtype=np.float32) * np.float32(1e-30)
        sample.partition(width - rank, axis=1)
        bound = np.maximum(sample[:, width - rank], smallest)
    flat = block.reshape(-1)  # 2-D nonzero and fancy indexing are 5-10x slower than 1-D
    cells = np.flatnonzero(block >= bound[:, None])
    rows, cols = np.divmod(cells, n)
    short = np.flatnonzero((np.bincount(rows, minlength=g) < kk) & (bound > smallest))
    if len(short):  # the sample's bound was above the k-th cell: take every matched cell of those rows
        redo = np.isin(rows, short, invert=True)
        more_rows, more_cols = np.divmod(np.flatnonzero(block[short] > 0), n)
        rows = np.concatenate([rows[redo], short[more_rows]])
        cols = np.concatenate([cols[redo], more_cols])
        cells = rows * n + cols
    values = flat[cells]
    keys = rows.astype(np.uint64) << np.uint64(_VALUE_BITS + _COLUMN_BITS)
    keys |= (np.uint32(0x7FFFFFFF) - values.view(np.uint32)).astype(np.uint64) << np.uint64(_COLUMN_BITS)
    keys |= cols.astype(np.uint64)
    keys.sort()
    rows = (keys >> np.uint64(_VALUE_BITS + _COLUMN_BITS)).astype(np.int64)
    cols = (keys & np.uint64(2**_COLUMN_BITS - 1)).astype(np.int64)
    counts = np.bincount(rows, minlength=g)
    rank = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    keep = rank < kk
    rows, cols = rows[keep], cols[keep]
    return rows, cols, flat[rows * n + cols]


def _candidates(row: np.ndarray, k: int, unmatched: float) -> tuple[np.ndarray, float]:
    """Ascending columns of a superset of the row's top ``k`` matched cells, and a value all of them reach.

    A strided sample (1/8, or 1/3 to 1/7 of a row shorter than 8k) of the matched cells (> ``unmatched``)
    gives a value with about 2k cells above; keeping the cells >= that value is one comparison pass instead
    of a full selection. If fewer than k cells qualify, the bound was too high: take every matched cell.
    Unmatched cells never enter a selection (numpy's introselect is 15x slower on an array of mostly equal
    values).
    """
    n = len(row)
    stride = min(8, n // max(k, 1))
    if stride >= 3:
        sample = row[::stride]
        sample = sample[sample > unmatched]
        rank = min(len(sample) - 1, max(1, (2 * k) // stride))
        if rank >= 1:
            sample.partition(len(sample) - rank)
            bound = sample[len(sample) - rank]
            candidates = np.flatnonzero(row >= bound)
            if len(candidates) >= k:
                return candidates, float(bound)
    return np.flatnonzero(row > unmatched), unmatched


def top_k(scores: sp.csr_matrix, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`top_k_dense` of a CSR score matrix whose stored entries are the candidates
    (columns are the tie order), densified in row slices of bounded size."""
    scores = scores.tocsr()
    n_rows, n_cols = scores.shape
    step = max(1, _DENSE_CELLS_PER_BATCH // max(n_cols, 1))
    parts = []
    for lo in range(0, n_rows, step):
        block = scores[lo:lo + step].tocoo()
        rows, cols, values = top_k_dense(accumulate(block.row, block.col, block.data, *block.shape), -np.inf, k)
        parts.append((rows + lo, cols, values))
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    return tuple(np.concatenate(arrays) for arrays in zip(*parts))
