"""Rank aggregation (SPEC §6): fusion methods as plain functions over runs, one module per method.

- :func:`interpolate` (:mod:`clirkit.fusion.interpolation`): weighted
  interpolation of per-query sum-normalized scores, after an optional
  per-query score transform (:func:`transform_scores`, :data:`TRANSFORMS`);
- :func:`borda` (:mod:`clirkit.fusion.borda_count`): rank-based Borda count.

All take and return :class:`clirkit.run.Run` objects. Both put their input
rows on a common (query, document) index with :func:`clirkit.fusion.align.align`.
Choosing kappa or weights on dev queries is kept apart, in :mod:`clirkit.tuning`.
"""
from __future__ import annotations

from clirkit.fusion.borda_count import borda
from clirkit.fusion.interpolation import TRANSFORMS, interpolate, transform_scores

__all__ = ["TRANSFORMS", "borda", "interpolate", "transform_scores"]
