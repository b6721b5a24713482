"""Smoothed query likelihood: the language-model scoring of the reference PSQ implementation (``fast-psq``'s
"HMM" model; Xu and Weischedel's cross-language HMM), served by BM25's engine with the ``lm`` weighting
(:mod:`clirkit.retrieval.weightings`).

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

from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.weightings import DEFAULT_ALPHA, checked_background  # noqa: F401 - read from here too


class QueryLikelihood(BM25):
    """Smoothed query likelihood (module docstring) over ``index``, with :class:`~clirkit.retrieval.bm25.BM25`'s search.

    Args:
        index: the searched index (counts may be fractional).
        background: float64 (n_terms,): p_bg of each index term, > 0 (:func:`clirkit.docpsq.background`).
        alpha: the background's weight, in (0, 1).
        lengths: |d| per document (default: the documents' own lengths,
            :attr:`~clirkit.retrieval.index.Index.own_lengths`: over a projected index, their lengths before
        translation, as the reference divides by them). precision: ``float64`` or ``float32``, as BM25's.
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
        super().__init__(
            index, precision=precision, weighting="lm", background=background, alpha=alpha, lengths=lengths
        )
