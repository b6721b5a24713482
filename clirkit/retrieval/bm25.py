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
:mod:`clirkit.retrieval.kernels` when numba is installed, else by its numpy twin
(:mod:`clirkit.retrieval.topk`): the same runs.

The parameters' defaults (:data:`K1`, :data:`B`, ...), ranges and checks, and the idf variants, are stated once in
:mod:`clirkit.retrieval.bm25params`.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError
from clirkit.retrieval import topk
from clirkit.retrieval.bm25params import EPSILON, IDF, K1, K3, PRECISION, B, check_settings, idf
from clirkit.retrieval.index import Index
from clirkit.retrieval.query import StructuredQueries
from clirkit.retrieval.stats import CollectionStats
from clirkit.retrieval.weightings import DEFAULT_ALPHA, Weighting, background_of, described
from clirkit.retrieval.weightings import weighting as find_weighting
from clirkit.run import Run, check_depth, take_strings
from clirkit.sortedunique import sorted_unique

_POSTINGS_PER_BATCH = 20_000_000  # bounds the intermediate sparse products
_QUERIES_PER_STEP = 250  # a step of the progress shown when nothing bounds a batch
# a unit matching this share of the documents is added as a dense vector, a vectorized pass over the
# documents (about 0.5 ns each, either precision and either path), where a scatter-add costs per posting
# 1.4 ns compiled and 3 ns in numpy (measured on the Zipf benchmark: 0.3 is the fastest of 0.1-0.5)
_DENSE_FRACTION = 0.3
_DENSE_BYTES = 256 * 2**20  # memory for such dense vectors
_WEIGHT_CHUNK = 1_000_000  # postings weighted at once (their float64 temporaries: some 50 MB)


def union_counts(translations: sp.csr_matrix, tf: sp.csr_matrix) -> np.ndarray:
    """For each translation row, the number of documents of ``tf`` (terms x docs) holding any of its
    target terms (float64): the df of a Pirkola query term."""
    rows, rows_tf = _used_rows(translations, tf)
    return np.diff(((rows != 0).astype(np.float64) @ (rows_tf != 0)).tocsr().indptr).astype(np.float64)


def _used_rows(translations: sp.csr_matrix, tf: sp.csr_matrix) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """``translations`` over only the target terms it uses, and those rows of ``tf``: the same product
    (summed in the same order) without converting the whole index."""
    used = sorted_unique(translations.indices)
    compact = sp.csr_matrix(
        (translations.data, np.searchsorted(used, translations.indices), translations.indptr),
        shape=(translations.shape[0], len(used)),
    )
    return compact, tf[used]


class BM25:
    """BM25 ranking over an :class:`~clirkit.retrieval.index.Index`.

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
        weighting: the posting weighting, a name of :data:`clirkit.retrieval.weightings.WEIGHTINGS`: ``bm25`` (the
            default) or ``lm`` (the smoothed query likelihood, :mod:`clirkit.retrieval.lm`), or one registered there.
        background, alpha, lengths: what a weighting of the ``background`` statistic takes (``lm``): p_bg of
            each index term (float64, > 0), its weight in (0, 1), and the documents' lengths (default: their own,
            :attr:`~clirkit.retrieval.index.Index.own_lengths`).
    """

    def __init__(
        self,
        index: Index,
        *,
        k1: float = K1,
        b: float = B,
        k3: float | None = K3,
        idf: str = IDF,
        epsilon: float = EPSILON,
        stats: CollectionStats | None = None,
        precision: str = PRECISION,
        weighting: "str | Weighting" = "bm25",
        background: np.ndarray | None = None,
        alpha: float = DEFAULT_ALPHA,
        lengths: np.ndarray | None = None,
    ) -> None:
        check_settings(k1=k1, b=b, k3=k3, idf=idf, epsilon=epsilon, precision=precision)
        self._weighting, self.alpha = find_weighting(weighting), alpha
        self.weighting = self._weighting.name
        self.index, self.k1, self.b, self.k3, self.idf_variant, self.epsilon = index, k1, b, k3, idf, epsilon
        self.precision, self._dtype = precision, np.dtype(precision)
        self.stats = stats
        self._n_docs = index.n_docs if stats is None else stats.n_docs  # idf's N and df: the collection's
        df = index.df if stats is None else stats.df
        # each term's statistic, which the weighting makes its rows' values of: df, or the background p_bg
        p_bg = background_of(self._weighting, background, alpha, index.n_terms)
        self._term_stats = df if p_bg is None else p_bg
        self._lengths = lengths
        avgdl = (index.avgdl if stats is None else stats.avgdl) or 1.0
        with np.errstate(over="ignore"):
            self.length_norms = k1 * (1.0 - b + b * index.doc_lengths / avgdl)  # K_d per document
        self._mean_rsj = _mean_rsj(df, self._n_docs) if idf == "bm25okapi" else None
        self._weights: sp.csr_matrix | None = None
        self._dense: np.ndarray | None = None  # dense rows of very common terms' posting weights (filled rows)
        self._dense_slot: np.ndarray | None = None  # (n_terms,) each term's row of _dense, -1: none
        self._n_dense = 0  # the rows of _dense in use
        self._positive: bool | None = None  # whether every posting weight is > 0
        self._lazy: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # memory-mapped: term -> (docs, weights)
        self._lazy_units: tuple[sp.csr_matrix, np.ndarray] | None = None  # the last rows made of them, terms

    @property
    def lengths(self) -> np.ndarray:
        """The documents' lengths a weighting divides by (float64): given, or their own."""
        if self._lengths is None or self._lengths.dtype != np.float64:
            own = self.index.own_lengths if self._lengths is None else self._lengths
            self._lengths = np.asarray(own, dtype=np.float64)
        return self._lengths

    def params(self) -> dict:
        bm25 = {
            "k1": self.k1,
            "b": self.b,
            "k3": self.k3,
            "idf": self.idf_variant,
            "epsilon": self.epsilon,
            "precision": self.precision,
        }
        return described(self._weighting, self.alpha, bm25)

    def idf(self, df: np.ndarray) -> np.ndarray:
        """This model's idf of (fractional) document frequencies."""
        return idf(df, self._n_docs, self.idf_variant, okapi_epsilon=self.epsilon, okapi_mean_idf=self._mean_rsj)

    def query_weights(self, qtf: np.ndarray) -> np.ndarray:
        """w_q of each source term from its query tf (k3-saturated if k3 is set)."""
        qtf = np.asarray(qtf, dtype=np.float64)
        if self.k3 is None:
            return qtf
        with np.errstate(over="ignore", invalid="ignore"):
            return self._finite((self.k3 + 1.0) * qtf / (self.k3 + qtf), "query term weights")

    def _finite(self, values: np.ndarray, what: str) -> np.ndarray:
        """``values``, or ClirkitError if a parameter so large made one overflow (inf or NaN): a run with such
        scores would be silently wrong."""
        if not np.isfinite(values).all():
            if self.weighting not in ("bm25", "lm"):  # a weighting of the user's: its functions made them
                raise ClirkitError(f"the {self.weighting!r} weighting gave {what} that are not finite numbers")
            if self.weighting == "lm":  # log(1 + (1 - alpha) / alpha ...): alpha alone can make it overflow
                raise ClirkitError(
                    f"language-model {what} overflow the float range with alpha={self.alpha:g}: take a larger alpha"
                )
            raise ClirkitError(
                f"BM25 {what} overflow the float range with k1={self.k1:g}, b={self.b:g}, k3="
                f"{'none' if self.k3 is None else format(self.k3, 'g')}: take smaller parameters"
            )
        return values

    def posting_weights(self) -> sp.csr_matrix:
        """idf(df) * saturated tf for every posting (terms x docs, in this model's precision), computed once,
        with the dense rows of the most common terms (the first search needs no warm-up)."""
        if self._weights is None:
            tf = self.index.tf
            self._weights = sp.csr_matrix(
                (self._row_weights(tf, self._term_stats), tf.indices, tf.indptr), shape=tf.shape
            )
            if self._positive_weights():
                self._keep_dense(self._weights, np.arange(tf.shape[0]))
        return self._weights

    def _row_weights(self, tf_rows: sp.csr_matrix, statistic: np.ndarray) -> np.ndarray:
        """The weighting's weight of each posting of ``tf_rows`` (CSR rows of counts over the documents, one
        statistic per row: df, or p_bg), in this model's precision; computed a chunk of rows at a time, so that
        the float64 temporaries (some 50 bytes a posting) stay within _WEIGHT_CHUNK postings."""
        indptr = tf_rows.indptr
        per_row = np.asarray(self._weighting.rows(self, statistic))
        if per_row.shape != (tf_rows.shape[0],):
            raise ClirkitError(
                f"the {self.weighting!r} weighting's rows gave shape {per_row.shape}, not one value per row "
                f"({tf_rows.shape[0]})"
            )
        out = np.empty(tf_rows.nnz, dtype=self._dtype)
        lo = 0
        while lo < len(indptr) - 1:
            hi = max(lo + 1, int(np.searchsorted(indptr, indptr[lo] + _WEIGHT_CHUNK, side="right")) - 1)
            hi = min(hi, len(indptr) - 1)
            a, b = indptr[lo], indptr[hi]
            weights = np.asarray(
                self._weighting.postings(
                    self,
                    tf_rows.data[a:b].astype(np.float64),
                    tf_rows.indices[a:b],
                    np.repeat(per_row[lo:hi], np.diff(indptr[lo : hi + 1])),
                )
            )
            if weights.shape != (b - a,):
                raise ClirkitError(
                    f"the {self.weighting!r} weighting's postings gave shape {weights.shape}, not one weight per "
                    f"posting ({b - a})"
                )
            out[a:b] = weights
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
            rows = sp.csr_matrix(
                (self._row_weights(rows, self._term_stats[chunk]), rows.indices, rows.indptr), shape=rows.shape
            )
            for i, term in enumerate(chunk.tolist()):  # the docids read where they are mapped, not copied
                self._lazy[term] = (
                    tf.indices[tf.indptr[term] : tf.indptr[term + 1]],
                    rows.data[rows.indptr[i] : rows.indptr[i + 1]],
                )
            self._keep_dense(rows, chunk)
        parts = [self._lazy[t] for t in terms.tolist()]
        indptr = np.concatenate(([0], np.cumsum([len(p[0]) for p in parts], dtype=np.int64)))
        units = sp.csr_matrix(
            (
                np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, self._dtype),
                np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int32),
                indptr,
            ),
            shape=(len(terms), self.index.n_docs),
        )
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
        dense, slot = self._dense, self._dense_slot
        assert slot is not None  # made with the dense vectors
        wide = self._wide(rows, np.arange(rows.shape[0]), len(dense) - self._n_dense)
        _fill_dense(rows, wide, dense[self._n_dense : self._n_dense + len(wide)])
        slot[terms[wide]] = np.arange(self._n_dense, self._n_dense + len(wide))
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
        return wide[np.argsort(-lengths[wide], kind="stable")][: max(max_rows, 0)]

    def _dense_units(self, units: sp.csr_matrix, units_used: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Dense vectors of very common unit rows and the row of each of ``units_used`` in them (-1: none):
        kept for the index's own terms (also memory-mapped), made here for a per-batch unit that two
        queries share."""
        lazy = self._lazy_units
        if units is self._weights or (lazy is not None and units is lazy[0]):
            terms = units_used if units is self._weights or lazy is None else lazy[1][units_used]
            if self._dense is None or self._dense_slot is None:  # (no term was queried yet)
                return self._no_dense(len(units_used))
            return self._dense[: self._n_dense], self._dense_slot[terms]
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
        return (
            np.repeat(queries.source_query[sources], counts),
            per_source.indices,
            per_source.data * np.repeat(weights, counts),
        )

    def _gathered(self, queries: StructuredQueries) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """The scoring-unit row of every source term that has one, the source ids, and their w_q."""
        self._check(queries)
        unit_rows, unit_of_source = self._scoring_units(queries)
        sources = np.flatnonzero(unit_of_source >= 0)
        return unit_rows[unit_of_source[sources]], sources, self.query_weights(queries.source_weight[sources])

    def _top_rows(
        self, queries: StructuredQueries, depth: int, floors: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The top ``depth`` documents of each query of a batch as ``(sizes, documents, scores)``: how many
        each query keeps (int64, one per query, 0 for a query matching nothing), then the kept documents
        (int64) and scores (float64) in run order (:meth:`_ranking_arguments`, then :meth:`_rank`)."""
        return self._rank(self._ranking_arguments(queries), depth, 0, queries.n_queries, floors)

    def _ranking_arguments(self, queries: StructuredQueries) -> tuple:
        """The arguments of the ranking kernel for a batch of queries, less ``k`` (:meth:`_rank`).

        A query's scores are the sums of its source terms' weighted unit rows, added in source order into
        one dense row of the documents, and its top cells are taken before the next query: by the compiled
        kernel (:mod:`clirkit.retrieval.kernels`) when numba is installed, else by numpy
        (:func:`clirkit.retrieval.topk.rank_sums`), the same sums either way. A cell matching no term is 0 when every
        contribution is positive (a match is > 0), else it is skipped by a flag.
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
        return (
            bounds.astype(np.int64),
            units.indptr[units_used].astype(np.int64),
            units.indptr[units_used + 1].astype(np.int64),
            term_weights,
            slots.astype(np.int64),
            units.indices,
            units.data,
            dense,
            self.index.n_docs,
            positive,
        )

    def _rank(
        self, arguments: tuple, depth: int, lo: int, hi: int, floors: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_top_rows` of the queries ``lo:hi`` of the batch whose :meth:`_ranking_arguments` are
        ``arguments`` (a query's terms are found from its bounds alone: a range needs no arguments of its
        own); with ``floors`` (of the range's queries), only the documents scoring above their query's."""
        bounds, starts, ends, weights, slots, indices, data, dense, n_docs, positive = arguments
        a, b = int(bounds[lo]), int(bounds[hi])  # the range's terms only (numpy's ranker lists what it is given)
        floors = np.full(hi - lo, -np.inf) if floors is None else np.asarray(floors, dtype=np.float64)
        args = (
            bounds[lo : hi + 1] - a,
            starts[a:b],
            ends[a:b],
            weights[a:b],
            slots[a:b],
            indices,
            data,
            dense,
            n_docs,
            depth,
            positive,
            floors,
        )
        rank = topk.compiled_ranker()
        if rank is not None:
            try:
                counts, cols, values = rank(*args)
                return counts, cols, values.astype(np.float64, copy=False)
            except Exception as error:
                if not type(error).__module__.startswith("numba"):
                    raise
                topk.without_numba(error)  # it could not compile the kernel here
        return topk.rank_sums(*args)

    def _scoring_units(self, queries: StructuredQueries) -> tuple[sp.csr_matrix, np.ndarray]:
        """Rows of the weighting's weights of tf~ per document (BM25: idf(df~) * saturated tf~), and the row of each
        source term (-1: none).

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
            terms = sorted_unique(t.indices)  # memory-mapped: the weights of the rows queried, made once each
            unit_of_source[has_target] = np.searchsorted(terms, t.indices)
            return self._lazy_weights(terms), unit_of_source
        unit_of_source = np.full(len(has_target), -1, dtype=np.int64)
        with_target = np.flatnonzero(has_target)
        distinct, unit_of_source[with_target] = np.unique(first_alike(t)[with_target], return_inverse=True)
        t_units = t[distinct]
        compact, tf_rows = _used_rows(t_units, self.index.tf)
        tf_units = (compact @ tf_rows.astype(np.float64)).tocsr()
        if queries.df_union and self._weighting.statistic == "df":  # Pirkola: documents holding any synonym
            union = getattr(self.stats, "union_df", None)
            stat_units = union(t_units) if union is not None else union_counts(t_units, self.index.tf)
        else:  # the expected df~, or p_bg(f) = sum_e p(e|f) p_bg(e)
            stat_units = t_units @ self._term_stats.astype(np.float64)
        data = self._row_weights(tf_units, stat_units)
        return sp.csr_matrix((data, tf_units.indices, tf_units.indptr), shape=tf_units.shape), unit_of_source

    def score_matrix(self, queries: StructuredQueries) -> sp.csr_matrix:
        """BM25 scores as a CSR matrix (n_queries x n_docs); absent entries match nothing."""
        rows, cols, values = self.contributions(queries)
        return sp.csr_matrix((values, (rows, cols)), shape=(queries.n_queries, self.index.n_docs))

    def search(self, queries: StructuredQueries, *, depth: int = 1000, quiet: bool = True, tag: str = "clirkit") -> Run:
        """Rank the top ``depth`` documents of every query (score desc, ties by docid asc).

        Queries are processed in batches sized to bound memory; a query that
        matches no document has no rows in the run.
        """
        if not isinstance(queries, StructuredQueries):
            raise ClirkitError(
                f"BM25.search takes StructuredQueries (StructuredQueries.from_tokens(qids, tokens, "
                f"index.vocabulary)), got {type(queries).__name__}; to search texts: "
                f"clirkit.systems.BM25Search().fit(Resources(index=index)).search(topics)"
            )
        sizes, cols, scores = self._search_sizes(queries, depth, quiet)
        names = take_strings(self.index.docids, cols)  # an index's documents, each once per query
        return Run._from_groups(queries.qids, sizes, names, scores, tag=tag, pairs_known=True)

    def search_blocks(self, queries: StructuredQueries, **options) -> Iterator[Run]:
        """:meth:`search`'s run (``options``: its keywords) as runs of blocks of queries, as a sharded index's
        (:meth:`clirkit.retrieval.shardsearch.ShardedBM25.search_blocks`) gives it: here, one run."""
        yield self.search(queries, **options)

    def search_sizes(
        self, queries: StructuredQueries, *, depth: int = 1000, quiet: bool = True, floors: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`search` as ``(sizes, document position, score)``: how many rows each query has (int64, one
        per query), then the rows' documents (int64) and scores (float64) in run order: what a shard of
        :mod:`clirkit.retrieval.shardsearch` gives to be merged. With ``floors`` (float64, one per query), a query keeps
        only the documents scoring above its floor (a shard searched after others: the score at which the
        query's merged list is full)."""
        return self._search_sizes(queries, depth, quiet, floors)

    def ready_for(self, queries: StructuredQueries) -> bool:
        """Make now what searching ``queries`` computes once and keeps (the posting weights, for one-to-one
        queries), and say whether searches of such queries then only read this model, so that threads may run
        them at once: not over a memory-mapped index, whose searches weight the postings they read as they go."""
        if self.index.lazy:
            return False
        if queries.is_one_to_one():
            self._positive_weights()  # (the posting weights made first)
        return True

    def _search_sizes(
        self, queries: StructuredQueries, depth: int, quiet: bool, floors: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`search` as ``(sizes, document position, score)``: how many rows each query has (int64, one
        per query), then the rows' documents (int64) and scores (float64) in run order."""
        from clirkit.progress import progress

        check_depth(depth)
        parts = []
        batches = list(self._batches(queries))
        # over the precomputed weights every batch ranks with the same units: their arguments made once
        whole = self._ranking_arguments(queries) if self._shared_units(queries) else None
        for lo, hi in progress(batches, desc="searching", quiet=quiet, unit="batch"):
            with np.errstate(over="ignore", invalid="ignore"):
                floor = None if floors is None else floors[lo:hi]
                if whole is not None:
                    sizes, cols, scores = self._rank(whole, depth, lo, hi, floor)
                else:
                    sizes, cols, scores = self._top_rows(queries.block(lo, hi), depth, floor)
            self._finite(scores, "scores")
            parts.append((sizes, cols, scores))
        if not parts:
            return np.zeros(queries.n_queries, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
        sizes, cols, scores = (np.concatenate(arrays) for arrays in zip(*parts))
        return sizes, cols, scores

    def _check(self, queries: StructuredQueries) -> None:
        if queries.translations.shape[1] != self.index.n_terms:
            raise ValueError(
                f"structured queries address {queries.translations.shape[1]} target terms, "
                f"the index has {self.index.n_terms}"
            )

    def _shared_units(self, queries: StructuredQueries) -> bool:
        """Whether every batch of ``queries`` ranks with the same scoring units: one-to-one queries over the
        precomputed posting weights (an index not memory-mapped)."""
        return queries.is_one_to_one() and not self.index.lazy

    def _batches(self, queries: StructuredQueries):
        """Query ranges [lo, hi) whose distinct translation rows (each projected once per batch) hold at most
        the budget of postings of the intermediate products; for one-to-one queries over precomputed
        weights (nothing is projected), ranges of a fixed number of queries. The scores are summed one query
        at a time, whatever the batch."""
        if self._shared_units(queries):  # batches only for the progress shown
            yield from (
                (lo, min(lo + _QUERIES_PER_STEP, queries.n_queries))
                for lo in range(0, queries.n_queries, _QUERIES_PER_STEP)
            )
            return
        t = queries.translations
        cost = (t != 0).astype(np.float64) @ self.index.df.astype(np.float64)  # postings of each source's row
        first = first_alike(t)
        order = np.argsort(queries.source_query, kind="stable")
        bounds = np.searchsorted(queries.source_query[order], np.arange(queries.n_queries + 1)).tolist()
        lo, acc, seen = 0, 0.0, set[int]()
        for q in range(queries.n_queries):
            rows = set(first[order[bounds[q] : bounds[q + 1]]].tolist())
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
