"""The one check of a fusion's given weights, :func:`weights_problem`: made by :func:`~clirkit.fusion.interpolate`,
:func:`~clirkit.fusion.borda` and the :class:`~clirkit.systems.Fusion` system (so by ``clirkit aggregate
--weights`` and an experiment file's ``weights`` too, each saying it in its own words)."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from numbers import Real

import numpy as np

SMALLEST_WEIGHT = sys.float_info.min
"""The smallest weight above 0 (2.2250738585072014e-308, the smallest normal float64): a smaller one is subnormal,
keeps fewer digits than a float64 does, and so do its products with the scores (1e-320 x 0.4284 is 4.284e-321,
four digits), so the fused scores would not be the formula's."""


def given_weights(weights):
    """``weights`` as given, an iterator (a generator) read once into a list (every other check reads them again)."""
    return list(weights) if isinstance(weights, Iterator) else weights


def weights_problem(weights, n: int, *, method: str, sum_to_one: bool) -> tuple[str, str] | None:
    """What is wrong with ``weights`` as the weights of ``n`` runs fused by ``method``, or None.

    Args:
        weights: the weights given (a sequence).
        n: the number of runs fused.
        method: the method's name, for the message.
        sum_to_one: whether the method's weights sum to 1 (interpolation); otherwise they must not all be 0
            (Borda: weights all 0 give every document 0 points, a run in docid order).

    Returns:
        None when ``weights`` are one finite number >= 0 per run (a bool is not one), each 0 or at least
        :data:`SMALLEST_WEIGHT`, that sum to 1 (``sum_to_one``) or are not all 0; else ``(allowed, got)``, which read
        ``weights must be ALLOWED GOT``, e.g. ``("finite and >= 0", ", got -1 2")`` (no full stop at the end: a
        caller may add to it).
    """
    try:
        values = list(weights)
    except TypeError:
        return "one weight per run (a list)", f", got {weights!r}"
    if len(values) != n:
        return "one weight per run", f", got {len(values)} weight{'s' * (len(values) != 1)} for {n} runs"
    shown = " ".join(weight_text(w) if isinstance(w, Real) and not isinstance(w, bool) else _shown(w) for w in values)
    if not all(isinstance(w, Real) and not isinstance(w, bool) and 0 <= float(w) < math.inf for w in values):
        return "finite and >= 0", f", got {shown}"
    if any(0 < float(w) < SMALLEST_WEIGHT for w in values):
        return (
            f"0 or at least {SMALLEST_WEIGHT:.3g} each (a smaller weight is a subnormal float64, which keeps too few "
            "digits: so would the fused scores)",
            f", got {shown}",
        )
    try:
        total = math.fsum(values)
    except OverflowError:  # finite weights summing beyond the float range (1e308 1e308): their sum is +inf
        total = math.inf
    if sum_to_one and abs(total - 1.0) > 1e-6:
        return f"numbers that sum to 1 ({method})", f", got {shown} (sum {total:g})"
    if not sum_to_one and total <= 0:
        return f"finite and >= 0, not all 0 ({method}: weights all 0 give every document 0 points)", f", got {shown}"
    return None


def weight_text(weight) -> str:
    """A weight (a number) as a message or a run tag writes it: ``%g`` (six significant digits), ``-0`` as ``0``;
    a subnormal one (refused by :func:`weights_problem`) as Python writes it (``1e-320``), not as ``%g`` does
    (``9.99989e-321``)."""
    value = float(weight) + 0.0  # (-0.0 + 0.0 is 0.0)
    return repr(value) if 0 < abs(value) < SMALLEST_WEIGHT else f"{value:g}"


def _shown(weight) -> str:
    """A weight that is no number as the user wrote it: a numpy scalar of an array's as its Python value."""
    return repr(weight.item() if isinstance(weight, np.generic) else weight)
