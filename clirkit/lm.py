"""Smoothed query likelihood: the language-model scoring of the reference PSQ implementation (``fast-psq``'s
"HMM" model; Xu and Weischedel's cross-language HMM), served by BM25's engine.

A document's model of a query term t is interpolated with a background model (weight ``alpha``):

    P(q|d) = prod_t [(1 - alpha) p(t|d) + alpha p_bg(t)]^qtf(t),      p(t|d) = tf(t,d) / |d|

Dividing by prod_t (alpha p_bg(t))^qtf(t), which does not depend on d, gives the same ranking as

    score(q, d) = sum_t qtf(t) log(1 + (1 - alpha) p(t|d) / (alpha p_bg(t)))

a sum over the query terms a document holds (a term it lacks adds log 1 = 0): one positive weight per posting,
precomputed, and a query is a sparse row sum, as for BM25 (the reference scores the same quantity). Over a
projected index (:mod:`clirkit.docpsq`) tf is the expected count and |d| the document's own length. Over a
translated query (query-side PSQ) the term is a query word f with p(f|d) = sum_e p(e|f) tf(e,d) / |d| and
p_bg(f) = sum_e p(e|f) p_bg(e).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from clirkit.bm25 import BM25, _used_rows, first_alike
from clirkit.errors import ClirkitError
from clirkit.query import StructuredQueries

DEFAULT_ALPHA = 0.1  # the reference's default


def checked_background(background: np.ndarray, alpha: float, n_terms: int) -> np.ndarray:
    """``background`` as float64, checked with ``alpha`` for an index of ``n_terms`` terms (ClirkitError for an
    alpha out of (0, 1); ValueError unless one p_bg > 0 per term)."""
    if not 0.0 < alpha < 1.0:
        raise ClirkitError(f"alpha must be in (0, 1), got {alpha}")
    background = np.asarray(background, dtype=np.float64)
    if background.shape != (n_terms,) or not np.all(background > 0):
        raise ValueError(f"background must hold one probability > 0 per index term ({n_terms})")
    return background


class QueryLikelihood(BM25):
    """Smoothed query likelihood (module docstring) over ``index``, with :class:`~clirkit.bm25.BM25`'s search.

    Args:
        index: the searched index (counts may be fractional).
        background: float64 (n_terms,): p_bg of each index term, > 0 (:func:`clirkit.docpsq.background`).
        alpha: the background's weight, in (0, 1).
        lengths: |d| per document (default: the index's ``doc_lengths``; over a projected index, the documents'
            own lengths, as the reference divides by them).
        precision: ``float64`` or ``float32``, as BM25's.
    """

    def __init__(
        self,
        index,
        background: np.ndarray,
        *,
        alpha: float = DEFAULT_ALPHA,
        lengths: np.ndarray | None = None,
        precision: str = "float64",
    ) -> None:
        background = checked_background(background, alpha, index.n_terms)
        super().__init__(index, precision=precision)
        self.alpha = alpha
        # BM25 hands the per-term values it keeps as df to _row_weights: here they are the background
        self._df = background
        self._lengths = np.asarray(index.doc_lengths if lengths is None else lengths, dtype=np.float64)
        self._ratio = (1.0 - alpha) / alpha

    def params(self) -> dict:
        return {"scoring": "lm", "alpha": self.alpha, "precision": self.precision}

    def _per_row(self, background: np.ndarray) -> np.ndarray:
        """The value of each row a posting's weight is made with (BM25's :meth:`~clirkit.bm25.BM25._row_weights`
        computes them a chunk of postings at a time): its term's p_bg."""
        return np.asarray(background, dtype=np.float64)

    def _chunk_weights(self, tf: np.ndarray, docs: np.ndarray, background: np.ndarray) -> np.ndarray:
        """log(1 + (1 - alpha) tf / (|d| alpha p_bg)) of postings of counts ``tf`` in documents ``docs``, each
        with its row's p_bg."""
        p = tf / self._lengths[docs]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return np.log1p(self._ratio * p / background)

    def _scoring_units(self, queries: StructuredQueries) -> tuple[sp.csr_matrix, np.ndarray]:
        """The posting weights for one-to-one queries (BM25's); for translated ones, a row per distinct
        translation: p(f|d) and p_bg(f) as sums over its options, weighted as the postings are."""
        if queries.is_one_to_one():
            return super()._scoring_units(queries)
        t = queries.translations
        self.index.check_rows(t.indices)
        has_target = np.flatnonzero(np.diff(t.indptr) > 0)
        unit_of_source = np.full(t.shape[0], -1, dtype=np.int64)
        distinct, unit_of_source[has_target] = np.unique(first_alike(t)[has_target], return_inverse=True)
        t_units = t[distinct]
        compact, tf_rows = _used_rows(t_units, self.index.tf)
        tf_units = (compact @ tf_rows.astype(np.float64)).tocsr()
        weights = self._row_weights(tf_units, t_units @ self._df)
        return sp.csr_matrix((weights, tf_units.indices, tf_units.indptr), shape=tf_units.shape), unit_of_source
