"""Choosing beta, the weight of the base scores (SPEC §5), on the dev queries' MAP.

A ranker boosted from a base ranker boosts the same tuples once per beta tried, each time from the margins
beta * (f0(q, d+) - f0(q, d-)), and keeps the beta whose bag-averaged model ranks the dev queries best (as
:mod:`clirkit.tuning` chooses fusion weights on dev). :func:`sweep_betas` runs it and keeps only the best
beta's bags in memory; :class:`BetaSweep` is what it learned (``BoostRanker.beta_sweep_``): every beta tried and
its dev MAP, and the best one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from clirkit.boost.result import BoostResult
from clirkit.progress import say


@dataclass(frozen=True, eq=False)
class BetaSweep:
    """Every beta tried and the dev MAP of its model.

    Attributes:
        betas: the betas tried, in the order tried (distinct floats).
        scores: the dev MAP at each beta, or None for each when there were no dev queries (a given beta,
            not tuned).

    The best beta is the first reaching the highest dev MAP (the first beta without dev queries).
    """

    betas: tuple[float, ...]
    scores: tuple[float | None, ...]

    @property
    def best_index(self) -> int:
        """Position of the best beta: the first reaching the highest dev MAP (0 without dev scores)."""
        known = [s for s in self.scores if s is not None]
        return self.scores.index(max(known)) if known else 0

    @property
    def best(self) -> float:
        """The beta kept."""
        return self.betas[self.best_index]

    @property
    def best_score(self) -> float | None:
        """The dev MAP of :attr:`best` (None without dev queries)."""
        return self.scores[self.best_index]

    def by_beta(self) -> dict[float, float | None]:
        """``{beta: dev MAP}`` in the order tried."""
        return dict(zip(self.betas, self.scores))

    def dev_map(self) -> dict[str, float | None]:
        """``{beta written with %g: dev MAP}``, as a boosted model records it (``params["beta_dev_map"]``)."""
        return {f"{b:g}": s for b, s in zip(self.betas, self.scores)}


def betas_to_try(beta: float | None, grid: Sequence[float]) -> tuple[float, ...]:
    """``(beta,)`` when beta is given, else the distinct betas of ``grid`` in their order, as floats."""
    return tuple(dict.fromkeys(float(b) for b in ((beta,) if beta is not None else grid)))


def sweep_betas(
    betas: Sequence[float],
    boost: Callable[[float], tuple[list[BoostResult], float | None]],
    *,
    tune: bool,
    quiet: bool = False,
    boost_all: Callable[[Sequence[float]], list] | None = None,
) -> tuple[BetaSweep, list[BoostResult]]:
    """Boost once per beta of ``betas`` (``boost(beta)`` gives the bags' results and their dev MAP, or None
    without dev queries); ``(the sweep, the best beta's results)``. With ``tune``, each beta's dev MAP is
    said on stderr (unless ``quiet``). ``boost_all(betas)``, when given, gives every beta's ``boost(beta)``
    at once, in order (the betas boosted in parallel); else they are boosted one after the other, only the
    best so far kept in memory."""
    scores: list[float | None] = []
    kept: list[BoostResult] = []
    done = iter(boost_all(betas)) if boost_all is not None else (boost(beta) for beta in betas)
    for i, (beta, (results, score)) in enumerate(zip(betas, done)):
        scores.append(score)
        if tune:
            say(f"boost: beta {beta:g}: dev MAP {score:.4f}", quiet=quiet)
        if BetaSweep(tuple(betas[: i + 1]), tuple(scores)).best_index == i:  # the best so far: keep its bags only
            kept = results
    return BetaSweep(tuple(betas), tuple(scores)), kept
