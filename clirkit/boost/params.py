"""The groups of a :class:`~clirkit.boost.ranker.BoostRanker`'s hyper-parameters (issue 38): the hashed pair
features (:class:`PairFeatures`), the sampling of the training tuples (:class:`TupleSampling`), the boosting rounds,
their early stopping and the weight of a base ranker (:class:`Boosting`), and the bags (:class:`Bagging`). Each is a
:class:`~clirkit.paramgroups.Group`: ``BoostRanker(features=PairFeatures(ngram=2))``, or
``ranker.set_params(features__ngram=2)``. The defaults are the ranker's (results/2026-11-29-boost-settings.md); what
each parameter does is said in :class:`~clirkit.boost.ranker.BoostRanker`'s docstring."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Sequence

from clirkit.boost.base import MAX_BETA
from clirkit.boost.budget import MAX_BUCKETS
from clirkit.boost.tuples import WEIGHTINGS
from clirkit.boost.weighting import SCHEMES
from clirkit.constraints import Interval, MinimumGrade, Number, Numbers, StrOptions, at_least_zero, positive
from clirkit.paramgroups import Group

BETA_GRID = (2.0, 5.0, 10.0, 20.0)  # base-score weights tried on dev when beta is not given


class PairFeatures(Group):
    """The (source n-gram, target n-gram) pairs and their hashing: ``ngram``, ``bits``, ``max_buckets``,
    ``hash_seed``, ``max_df``, ``frequent_word_ngrams``, ``doc_weighting`` (the document side of q^T W d)."""

    _parameter_constraints = {
        "ngram": [Interval(Integral, 1, 3, closed="both")],
        "bits": [Interval(Integral, 1, 32, closed="both")],
        "max_buckets": [None, Interval(Integral, 1, None, closed="left")],
        "hash_seed": [Interval(Integral, 0, 2**32 - 1, closed="both")],
        "max_df": [Interval(Real, 0, 1, closed="right")],
        "frequent_word_ngrams": ["boolean"],
        "doc_weighting": [None, StrOptions(set(SCHEMES))],
    }

    def __init__(
        self,
        *,
        ngram: int = 1,
        bits: int = 30,
        max_buckets: int | None = MAX_BUCKETS,
        hash_seed: int = 0,
        max_df: float = 1.0,
        frequent_word_ngrams: bool = True,
        doc_weighting: str | None = None,
    ) -> None:
        self.ngram = ngram
        self.bits = bits
        self.max_buckets = max_buckets
        self.hash_seed = hash_seed
        self.max_df = max_df
        self.frequent_word_ngrams = frequent_word_ngrams
        self.doc_weighting = doc_weighting


class TupleSampling(Group):
    """The training tuples (q, d+, d-) and their importance D (:func:`clirkit.boost.tuples.make_tuples`):
    ``negatives``, ``hard_negatives``, ``min_grade``, ``grade_pairs``, ``weighting``, ``max_positives``,
    ``candidate_depth``, ``parallel_weight`` (of the extra known-item queries' tuples)."""

    _parameter_constraints = {
        "negatives": [at_least_zero()],
        "hard_negatives": [at_least_zero()],
        "min_grade": [MinimumGrade()],
        "grade_pairs": [at_least_zero()],
        "weighting": [StrOptions(set(WEIGHTINGS))],
        "max_positives": [at_least_zero()],
        "candidate_depth": [None, positive()],
        "parallel_weight": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        negatives: int = 1,
        hard_negatives: int = 3,
        min_grade: int = 1,
        grade_pairs: int = 0,
        weighting: str = "difference",
        max_positives: int = 0,
        candidate_depth: int | None = None,
        parallel_weight: float = 1.0,
    ) -> None:
        self.negatives = negatives
        self.hard_negatives = hard_negatives
        self.min_grade = min_grade
        self.grade_pairs = grade_pairs
        self.weighting = weighting
        self.max_positives = max_positives
        self.candidate_depth = candidate_depth
        self.parallel_weight = parallel_weight


class Boosting(Group):
    """The rounds, their early stopping on the dev MAP, and the weight of a base ranker's scores: ``rounds``,
    ``rule``, ``eps``, ``eval_every``, ``patience``, ``eval_depth``, ``beta``, ``beta_grid``, ``significance``."""

    _parameter_constraints = {
        "rounds": [positive()],
        "rule": [StrOptions({"exact", "r"})],
        "eps": [None, Interval(Real, 1e-12, 1, closed="both")],
        "eval_every": [positive()],
        "patience": [at_least_zero()],
        "eval_depth": [positive()],
        "beta": [None, Number(Real, 0, MAX_BETA, closed="both")],
        "beta_grid": [Numbers(Real, 0, MAX_BETA, closed="both")],
        "significance": [None, Number(Real, 0, 1, closed="both")],
    }

    def __init__(
        self,
        *,
        rounds: int = 6000,
        rule: str = "exact",
        eps: float | None = None,
        eval_every: int = 100,
        patience: int = 0,
        eval_depth: int = 1000,
        beta: float | None = None,
        beta_grid: Sequence[float] = BETA_GRID,
        significance: float | None = 0.05,
    ) -> None:
        self.rounds = rounds
        self.rule = rule
        self.eps = eps
        self.eval_every = eval_every
        self.patience = patience
        self.eval_depth = eval_depth
        self.beta = beta
        self.beta_grid = beta_grid
        self.significance = significance


class Bagging(Group):
    """Bags of tuples boosted independently and averaged (1 bag of every tuple: plain boosting): ``bags``,
    ``bag_fraction``, ``bootstrap``."""

    _parameter_constraints = {
        "bags": [positive()],
        "bag_fraction": [Interval(Real, 0, 1, closed="right")],
        "bootstrap": ["boolean"],
    }

    def __init__(self, *, bags: int = 1, bag_fraction: float = 1.0, bootstrap: bool = False) -> None:
        self.bags = bags
        self.bag_fraction = bag_fraction
        self.bootstrap = bootstrap
