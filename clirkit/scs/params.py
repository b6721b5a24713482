"""The groups of an :class:`~clirkit.scs.model.SCSModel`'s hyper-parameters (issue 38): the model's shape
(:class:`Shape`), the loss (:class:`Objective`), the sampling of the training units (:class:`UnitSampling`) and the
training schedule (:class:`Schedule`). Each is a :class:`~clirkit.paramgroups.Group`:
``SCSModel(shape=Shape(dim=32))``, or ``model.set_params(shape__dim=32)``; what each parameter does is said in
:class:`~clirkit.scs.model.SCSModel`'s docstring."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Sequence

from clirkit.constraints import FiniteNumbers, Interval, StrOptions
from clirkit.paramgroups import Group
from clirkit.scs.losses import LOSSES

PAIR_WEIGHTS = ("uniform", "grade")


class Shape(Group):
    """The encoders and their similarity: ``dim`` (embedding dimension), ``eps`` (smoothing of the cosine),
    ``init_scale`` (standard deviation of the random start)."""

    _parameter_constraints = {
        "dim": [Interval(Integral, 1, None, closed="left")],
        "eps": [Interval(Real, 0, 1e6, closed="both")],
        "init_scale": [Interval(Real, 0, 10, closed="right")],
    }

    def __init__(self, *, dim: int = 64, eps: float = 1.0, init_scale: float = 0.1) -> None:
        self.dim = dim
        self.eps = eps
        self.init_scale = init_scale


class Objective(Group):
    """The loss: ``loss``, SOSL's ``thresholds``, MSE's ``mse_targets``, the hinge loss's ``margin``."""

    _parameter_constraints = {
        "loss": [StrOptions(set(LOSSES))],
        "thresholds": [FiniteNumbers()],
        "mse_targets": [None, FiniteNumbers(-1, 1)],
        "margin": [Interval(Real, 0, 2, closed="both")],
    }

    def __init__(
        self,
        *,
        loss: str = "sosl",
        thresholds: Sequence[float] = (0.2, 0.7),
        mse_targets: Sequence[float] | None = None,
        margin: float = 0.2,
    ) -> None:
        self.loss = loss
        self.thresholds = thresholds
        self.mse_targets = mse_targets
        self.margin = margin


class UnitSampling(Group):
    """The training units: ``negatives`` (irrelevant documents sampled per query), and for the pairwise losses
    ``max_pairs_per_query`` and ``pair_weight``."""

    _parameter_constraints = {
        "negatives": [Interval(Integral, 0, None, closed="left")],
        "max_pairs_per_query": [None, Interval(Integral, 1, None, closed="left")],
        "pair_weight": [StrOptions(set(PAIR_WEIGHTS))],
    }

    def __init__(
        self, *, negatives: int = 40, max_pairs_per_query: int | None = 100, pair_weight: str = "uniform"
    ) -> None:
        self.negatives = negatives
        self.max_pairs_per_query = max_pairs_per_query
        self.pair_weight = pair_weight


class Schedule(Group):
    """The training schedule: ``epochs``, ``batch_size``, ``lr`` (Adam's learning rate), ``lazy_adam``."""

    _parameter_constraints = {
        "lr": [Interval(Real, 0, 10, closed="right")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "epochs": [Interval(Integral, 1, None, closed="left")],
        "lazy_adam": ["boolean"],
    }

    def __init__(self, *, lr: float = 0.01, batch_size: int = 128, epochs: int = 10, lazy_adam: bool = True) -> None:
        self.lr = lr
        self.batch_size = batch_size
        self.epochs = epochs
        self.lazy_adam = lazy_adam
