"""Rank-based Borda count (SPEC §6: offered as its own method).

A list cut to its top ``K`` rows gives the document at rank k ``K - k + 1``
points; a document's score is the (weighted) sum of its points over the lists.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.fusion.align import align, fusion_inputs
from clirkit.fusion.weights import given_weights, weight_text, weights_problem
from clirkit.packedrun import PackedRun
from clirkit.run import Run, check_depth

MAX_DEPTH = 2**53  # the largest K whose points K - rank + 1 are all told apart in float64 (integers up to 2**53)


def check_points_depth(depth, weights=None) -> None:
    """The check of a Borda count's ``depth`` ``K``, before any work: an integer >= 1 (:func:`clirkit.run.check_depth`)
    and at most :data:`MAX_DEPTH`, beyond which neighbouring ranks' points ``K - rank + 1`` are one float64 number;
    with ``weights`` (one per run, checked by :func:`~clirkit.fusion.weights.weights_problem`), also the sums of the
    points: ``K`` x (sum of the weights) / (the least weight above 0) at most :data:`MAX_DEPTH`, so that a
    document's points, up to ``K`` times the sum of the weights, still tell one rank of the least weighed list
    from the next (exactly, for weights that are whole multiples of the least: equal weights, the default 1 each).
    ClirkitError otherwise."""
    check_depth(depth)
    if depth > MAX_DEPTH:
        raise ClirkitError(
            f"a Borda count's depth must be at most 2**53 = {MAX_DEPTH} (its points K - rank + 1 are float64 "
            f"numbers, which tell no two neighbouring ranks apart beyond it), got {depth}: give a smaller depth"
        )
    if weights is None:
        return
    w = np.asarray(weights, dtype=np.float64)
    least = w[w > 0].min(initial=np.inf)
    if not np.isfinite(least):  # (weights all 0: weights_problem's to refuse)
        return
    with np.errstate(over="ignore"):
        ratio = math.fsum((w / least).tolist())  # (scaled first: weights near 1e308 sum beyond the float range)
    if depth * ratio > MAX_DEPTH:
        most = int(MAX_DEPTH // ratio)
        shown = " ".join(map(weight_text, w))
        raise ClirkitError(
            f"a Borda count at depth {depth} with weights {shown}: depth x (sum of the weights) / (least weight above "
            f"0) must be at most 2**53 = {MAX_DEPTH} (beyond it float64 sums of points tell no two neighbouring ranks "
            f"apart), got {depth * ratio:.6g}: "
            + (f"give a depth of at most {most}" if most >= 1 else "give the least weight a larger share, or 0")
        )


def borda(
    runs: Sequence[Run], weights: Sequence[float] | None = None, *, depth: int = 1000, tag: str | None = None
) -> Run | PackedRun:
    """Rank-based Borda count, optionally weighted.

    Args:
        runs: the runs to combine (at least one, each grouped by query, in rank order).
        weights: one weight per run, finite and >= 0, not all 0 (they need not sum to 1).
            Default: 1 per run.
        depth: ``K``, an integer from 1 to :data:`MAX_DEPTH` (2**53), and so that ``K`` x (sum of the weights) /
            (least weight above 0) is at most 2**53 too (:func:`check_points_depth`): each list is cut to its top ``K``
            rows, and the output keeps the top ``K`` per query.
        tag: the output's run tag; default ``borda:K=<depth>`` (plus
            ``:w=<weights>`` when weights are given).

    Returns:
        A run (a :class:`~clirkit.packedrun.PackedRun` when every run given is one) over the union of the
        input lists whose scores are points: the
        document at rank k of a list gets ``K - k + 1`` from it, with the same
        ``K = depth`` for every list (rank 1 is worth as much in a short list
        as in a full one), 0 from a list it is missing from. Ties: docid
        ascending.
    """
    runs, weights = fusion_inputs(runs, depth, tag), given_weights(weights)
    check_points_depth(depth)
    problem = None if weights is None else weights_problem(weights, len(runs), method="borda", sum_to_one=False)
    if problem is not None:
        raise ClirkitError("weights must be {}{}".format(*problem))
    w = np.ones(len(runs)) if weights is None else np.asarray(weights, dtype=np.float64)
    check_points_depth(depth, w)
    aligned = align(runs, depth)
    points = np.zeros(aligned.n_pairs, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for i, run in enumerate(aligned.runs):
            points += w[i] * np.bincount(
                aligned.pair[i], weights=(depth - run.ranks() + 1).astype(np.float64), minlength=len(points)
            )
    if not np.isfinite(points).all():
        raise ClirkitError(
            f"Borda points overflow the float range with weights {' '.join(f'{x:g}' for x in w)} "
            f"and depth {depth}: take smaller weights"
        )
    if tag is None:
        tag = f"borda:K={depth}" + ("" if weights is None else ":w=" + ",".join(map(weight_text, w)))
    return aligned.ranked(points, depth, tag)


def fuse(
    runs: Sequence[Run], weights: Sequence[float], *, transforms: Sequence[str], depth: int, tag: str | None
) -> Run | PackedRun:
    """:func:`borda` as an entry of :data:`clirkit.fusion.METHODS` (score transforms do not apply to ranks)."""
    return borda(runs, weights, depth=depth, tag=tag)
