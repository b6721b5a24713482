"""Rank aggregation (SPEC §6): fusion methods as plain functions over runs, one module per method.

- :func:`interpolate` (:mod:`clirkit.fusion.interpolation`): weighted
  interpolation of per-query sum-normalized scores, after an optional
  per-query score transform (:func:`transform_scores`, :data:`TRANSFORMS`);
- :func:`borda` (:mod:`clirkit.fusion.borda_count`): rank-based Borda count.

All take and return :class:`clirkit.run.Run` objects (packed runs, :class:`~clirkit.packedrun.PackedRun`, fuse
into one). Both put their input rows on a common (query, document) index with :func:`clirkit.fusion.align.align`.
Choosing kappa or weights on dev queries is kept apart, in :mod:`clirkit.tuning`.

:data:`METHODS` is the table the :class:`~clirkit.systems.Fusion` system and ``clirkit aggregate`` dispatch
through, by name: a new method is one module with a ``fuse`` function and one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from clirkit.fusion import borda_count, interpolation
from clirkit.fusion.borda_count import borda
from clirkit.fusion.interpolation import TRANSFORMS, interpolate, transform_scores
from clirkit.packedrun import PackedRun
from clirkit.run import Run, check_depth


@dataclass(frozen=True)
class Method:
    """A fusion method of :data:`METHODS`.

    Attributes:
        fuse: ``fuse(runs, weights, *, transforms, depth, tag) -> Run``: one weight and one score transform
            name (:data:`TRANSFORMS`) per run, the depth of the lists, the run tag (None: the method's own).
        tuned: whether weights that are not given are tuned on dev (else each run weighs 1).
        weights_sum_to_one: whether given weights must sum to 1 (else they must not all be 0).
        transforms: whether the runs' scores go through their score transforms (a method of ranks ignores them).
        check_depth: ``check_depth(depth, weights)``: ClirkitError, before any work, for a depth the method cannot
            fuse at with these weights (one per run, or None: not known yet) (None: :func:`clirkit.run.check_depth`,
            which every method's depth passes; Borda's points bound it further, with the weights' sum too).
    """

    fuse: Callable[..., Run | PackedRun]
    tuned: bool
    weights_sum_to_one: bool
    transforms: bool = True
    check_depth: Callable[[int, Any], None] | None = None

    def check(self, depth: int, weights=None) -> None:
        """ClirkitError for a ``depth`` this method cannot fuse at with ``weights`` (one per run; None: whatever the
        weights) (:attr:`check_depth`)."""
        if self.check_depth is None:
            check_depth(depth)
        else:
            self.check_depth(depth, weights)


METHODS = {
    "interpolation": Method(interpolation.fuse, tuned=True, weights_sum_to_one=True, transforms=True),
    "borda": Method(
        borda_count.fuse,
        tuned=False,
        weights_sum_to_one=False,
        transforms=False,
        check_depth=borda_count.check_points_depth,
    ),
}
"""Fusion method name -> :class:`Method`."""

__all__ = ["METHODS", "TRANSFORMS", "Method", "borda", "interpolate", "transform_scores"]
