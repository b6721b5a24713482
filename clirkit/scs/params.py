"""The groups of an :class:`~clirkit.scs.model.SCSModel`'s hyper-parameters (issue 38): the model's shape
(:class:`Shape`), the loss (:class:`Objective`), the sampling of the training units (:class:`UnitSampling`) and the
training schedule (:class:`Schedule`). Each is a :class:`~clirkit.paramgroups.Group`:
``SCSModel(shape=Shape(dim=32))``, or ``model.set_params(shape__dim=32)``; what each parameter does is said in
:class:`~clirkit.scs.model.SCSModel`'s docstring."""

from __future__ import annotations

import inspect
from numbers import Integral, Real
from typing import Iterable, Sequence

from clirkit.constraints import FiniteNumbers, Interval, StrOptions
from clirkit.paramgroups import Group
from clirkit.scs.losses import LOSSES, PAIRWISE, POINTWISE

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
    """The loss: ``loss``, the pointwise losses' ``thresholds`` (SOSL's segments, MSE's grades), MSE's
    ``mse_targets``, the hinge loss's ``margin``."""

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


# the parameters that some losses leave unused: (the losses that read it, what it is to them, its pronoun)
READ_BY = {
    "thresholds": (POINTWISE, "the grade thresholds of the pointwise losses", "them"),
    "mse_targets": (("mse",), "the targets of the 'mse' loss", "them"),
    "margin": (("hinge",), "the margin of the 'hinge' loss", "it"),
    "pair_weight": (PAIRWISE, "the weight of a pair in the pairwise losses", "it"),
    "max_pairs_per_query": (PAIRWISE, "the pairs sampled per query by the pairwise losses", "it"),
}


def unused_by_loss(loss: str, names: Iterable[str]) -> list[tuple[str, str]]:
    """``(name, why)`` for each parameter of ``names`` that the loss ``loss`` does not read (:data:`READ_BY`), e.g.
    ``("margin", "the margin of the 'hinge' loss, unused by the 'sosl' loss: leave it out, or train with the
    'hinge' loss")``: the library, the command line and the experiment file put the parameter in their own words
    before ``why``."""
    out = []
    for name in names:
        losses, what, pronoun = READ_BY[name]
        if loss not in losses:
            kind = "pointwise" if losses == POINTWISE else "pairwise"
            train = f"the {losses[0]!r} loss" if len(losses) == 1 else f"a {kind} loss ({', '.join(losses)})"
            out.append((name, f"{what}, unused by the {loss!r} loss: leave {pronoun} out, or train with {train}"))
    return out


def set_away_from_defaults(*groups: Group) -> list[str]:
    """The parameters of :data:`READ_BY` in ``groups`` whose values differ from their groups' defaults (a sequence
    equal to a tuple default item by item is not)."""
    out = []
    for group in groups:
        for name, parameter in inspect.signature(type(group)).parameters.items():
            if name not in READ_BY:
                continue
            value, default = getattr(group, name), parameter.default
            if default is None:
                same = value is None
            elif isinstance(default, tuple):
                same = not isinstance(value, str) and list(value) == list(default)
            else:
                same = value == default
            if not same:
                out.append(name)
    return out
