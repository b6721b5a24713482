"""Posting weightings: how the engine (:class:`clirkit.retrieval.bm25.BM25`: posting weights, sparse row sums, top k)
turns the count of a term in a document into the weight a query sums, as bm25s names its variants.

A weighting is two small functions (:class:`Weighting`): ``rows(scorer, statistic)``, one value per row of
postings from the row's collection statistic (a term's df, or a translated query word's expected df~; the
smoothed query likelihood's background probability instead), and ``postings(scorer, tf, docs, values)``, the
weights of postings of counts ``tf`` (float64, fractional over a translated index or query) in documents ``docs``
(positions in the index searched), each with its row's value. ``scorer`` holds the parameters and the
per-document arrays (BM25's ``k1``, ``b`` and length norms; the likelihood's lengths and ``alpha``). Every index
kind (one file, shards, an index translated by document-side PSQ, its shards) and every query (one-to-one,
translated) is searched with whichever weighting is named: adding one is a function pair and a line in
:data:`WEIGHTINGS` (``clirkit.retrieval.bm25.BM25(index, weighting=NAME)``, ``ShardedBM25(index, weighting=NAME)``).
A weighting must give weights > 0 to be searched with the floors of sharded search (BM25 with a negative idf
is searched without them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from clirkit.errors import ClirkitError

DEFAULT_ALPHA = 0.1  # the smoothed query likelihood's background weight: the reference's default
STATISTICS = ("df", "background")  # what a weighting's rows are made from


@dataclass(frozen=True)
class Weighting:
    """A named posting weighting (module docstring).

    Attributes:
        rows: ``(scorer, statistic) -> values``: float64, one per row, from the rows' statistic (float64).
        postings: ``(scorer, tf, docs, values) -> weights``: float64, one per posting.
        statistic: the statistic a row takes: ``"df"`` (document frequency over the collection) or
            ``"background"`` (a background probability the scorer is given).
        name: its name (:func:`weighting` gives the registry's key).
    """

    rows: Callable[..., np.ndarray]
    postings: Callable[..., np.ndarray]
    statistic: str = "df"
    name: str = ""

    def __post_init__(self) -> None:
        if self.statistic not in STATISTICS:
            raise ClirkitError(f"Weighting statistic must be one of {', '.join(STATISTICS)}, got {self.statistic!r}")
        if not (callable(self.rows) and callable(self.postings)):
            raise ClirkitError("Weighting rows and postings must be functions (module docstring)")


def bm25_rows(scorer, df: np.ndarray) -> np.ndarray:
    """BM25's row values: the idf of each row's (expected) df, in the scorer's idf variant."""
    return scorer.idf(df)


def bm25_postings(scorer, tf: np.ndarray, docs: np.ndarray, idf: np.ndarray) -> np.ndarray:
    """BM25's posting weights: idf * tf (k1 + 1) / (K_d + tf), K_d = k1 (1 - b + b |d| / avgdl)."""
    with np.errstate(over="ignore", invalid="ignore"):
        data = tf * (scorer.k1 + 1.0) / (scorer.length_norms[docs] + tf)
        data *= idf
    return data


def likelihood_rows(scorer, background: np.ndarray) -> np.ndarray:
    """The query likelihood's row values: each row's background probability p_bg."""
    return np.asarray(background, dtype=np.float64)


def likelihood_postings(scorer, tf: np.ndarray, docs: np.ndarray, background: np.ndarray) -> np.ndarray:
    """The smoothed query likelihood's posting weights: log(1 + (1 - alpha) tf / (|d| alpha p_bg))
    (:mod:`clirkit.retrieval.lm`)."""
    p = tf / scorer.lengths[docs]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return np.log1p((1.0 - scorer.alpha) / scorer.alpha * p / background)


WEIGHTINGS: dict[str, Weighting] = {
    "bm25": Weighting(bm25_rows, bm25_postings),
    "lm": Weighting(likelihood_rows, likelihood_postings, statistic="background"),
}
"""Weighting name -> :class:`Weighting`: the one table of weightings."""


def checked_background(background: np.ndarray, alpha: float, n_terms: int) -> np.ndarray:
    """``background`` as float64, checked with ``alpha`` for an index of ``n_terms`` terms (ClirkitError for an
    alpha out of (0, 1); ValueError unless one p_bg > 0 per term)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0.0 < alpha < 1.0:
        raise ClirkitError(f"alpha must be a number in (0, 1), got {alpha!r}")
    try:
        background = np.asarray(background, dtype=np.float64)
    except (TypeError, ValueError):
        background = np.zeros(0)
    if background.shape != (n_terms,) or not np.all(np.isfinite(background) & (background > 0)):
        raise ClirkitError(
            f"background must be an array of one finite probability > 0 per index term ({n_terms}), e.g. "
            f"clirkit.docpsq.background('collection', index)"
        )
    return background


def background_of(weighting: Weighting, background: np.ndarray | None, alpha: float, n_terms: int):
    """The checked background (:func:`checked_background`) a weighting of the ``background`` statistic takes over
    an index of ``n_terms`` terms, None for any other weighting; ClirkitError when it needs one and has none."""
    if weighting.statistic != "background":
        if background is not None or alpha != DEFAULT_ALPHA:
            raise ClirkitError(
                f"background and alpha are a background weighting's (lm); the {weighting.name} weighting takes none"
            )
        return None
    if background is None:
        raise ClirkitError(f"the {weighting.name} weighting needs a background model (background=)")
    return checked_background(background, alpha, n_terms)


def described(weighting: Weighting, alpha: float, bm25: dict) -> dict:
    """A scorer's parameters as its ``params()`` gives them: the likelihood's scoring, ``alpha`` and precision;
    else ``bm25`` (k1, b, k3, idf, epsilon, precision), after the scoring's name unless it is ``bm25``."""
    if weighting.statistic == "background":
        return {"scoring": weighting.name, "alpha": alpha, "precision": bm25["precision"]}
    return {**({} if weighting.name == "bm25" else {"scoring": weighting.name}), **bm25}


def weighting(name: "str | Weighting") -> Weighting:
    """The weighting ``name`` (a key of :data:`WEIGHTINGS`), named; a :class:`Weighting` itself (what a search
    ships to its worker processes, which may not have the registry's later entries). ClirkitError naming the
    known ones for an unknown name."""
    if isinstance(name, Weighting):
        return name
    found = WEIGHTINGS.get(name)
    if found is None:
        raise ClirkitError(f"unknown weighting {name!r}; choose one of {', '.join(WEIGHTINGS)}")
    return replace(found, name=name)
