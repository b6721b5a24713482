"""Interpolation of per-query sum-normalized scores (SPEC §6).

Follows SPEC §6 exactly::

    f_agg(q, d) = sum_i w_i * t_i(q, d) / sum_{d' in list_i(q)} t_i(q, d')

where ``t_i`` is run i's score after its per-query transform (``none``: the
score itself, ``shift``: score minus the query's minimum, ``minmax``: (score
- min) / (max - min)), the sum runs over run i's retrieved list for q (its top
``depth`` rows), and a document missing from list i gets 0 there. With two
runs and ``kappa``, the weights are ``(kappa, 1 - kappa)`` (:func:`kappa_weights`: 1 - kappa as written in
decimal, so kappa 0.9 fuses as the weights 0.9 and 0.1 do).

:func:`interpolate` is the method (:func:`fuse` in the table of methods); :func:`sum_normalized` and
:func:`weighted_sum` are its two halves over :func:`clirkit.fusion.align.align`'d
runs, so that :mod:`clirkit.tuning` normalizes once and re-weights per grid point.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.fusion.align import AlignedRuns, align, fusion_inputs, query_starts
from clirkit.fusion.weights import given_weights, weight_text, weights_problem
from clirkit.packedrun import PackedRun
from clirkit.run import Run

TRANSFORMS = ("none", "shift", "minmax")


class RunScoresError(ClirkitError):
    """Scores of one of the runs fused that cannot be interpolated; ``index``: its position (from 0) among the runs
    given, when known, so that a caller that read them from files names the file (runs may share a tag)."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


def transform_scores(run: Run, transform: str) -> np.ndarray:
    """Per-query transformed scores of ``run`` (float64, one per row).

    ``none`` returns the scores; ``shift`` subtracts each query's minimum (so
    the lowest document of a list gets 0); ``minmax`` maps each query's scores
    to [0, 1] (a list whose scores are all equal maps to all 0); scores whose
    spread overflows a float raise ``RunScoresError``. ``none`` on a
    run with a negative score raises ``ClirkitError``: sum-normalizing mixed
    signs is meaningless. It names the keyword to choose another,
    ``transform="shift"``, which the command line says as its option,
    ``--transform shift`` (:func:`clirkit.cli.params.option_message`).
    """
    if transform not in TRANSFORMS:
        raise ClirkitError(f"unknown score transform {transform!r}; choose one of {', '.join(TRANSFORMS)}")
    scores = run.scores
    if transform == "none":
        check_untransformed(run)
        return scores.copy()
    if len(scores) == 0:
        return scores.copy()
    starts = query_starts(run)
    counts = np.diff(np.append(starts, len(scores)))
    low = np.repeat(np.minimum.reduceat(scores, starts), counts)
    with np.errstate(over="ignore"):
        shifted = scores - low
    if not np.isfinite(shifted).all():
        row = int(np.argmin(np.isfinite(shifted)))
        raise RunScoresError(
            f"run {run.tag!r}: the scores of query {str(run.qids[row])!r} span more than the float range (the "
            f"highest minus the lowest overflows): scale the scores down"
        )
    if transform == "shift":
        return shifted
    span = np.repeat(np.maximum.reduceat(scores, starts), counts) - low
    out = np.zeros_like(scores)
    np.divide(shifted, span, out=out, where=span > 0)
    return out


def check_untransformed(run: Run, index: int | None = None) -> None:
    """RunScoresError (with ``index``, the run's position among those fused) when ``run`` has a negative score: its
    transform ``none`` would sum-normalize mixed signs. It names the keyword to choose another,
    ``transform="shift"``, which the command line says as its option, ``--transform shift``."""
    scores = run.scores
    if len(scores) and scores.min() < 0:
        raise RunScoresError(  # (the command line names its option: --transform shift)
            f"run {run.tag!r} has negative scores (min {scores.min():.6g}); sum normalization needs "
            'scores >= 0: choose a per-query transform with transform="shift" or transform="minmax"',
            index,
        )


def transform_list(transform: str | Sequence[str], n_runs: int) -> list[str]:
    """One transform name per run: ``transform`` repeated if it is one name, else checked to have ``n_runs``."""
    if isinstance(transform, str):
        return [transform] * n_runs
    names = list(transform)
    if len(names) != n_runs:
        raise ClirkitError(f"got {len(names)} transforms for {n_runs} runs; give one, or one per run")
    return names


def kappa_weights(kappa: float) -> list[float]:
    """The weights ``(kappa, 1 - kappa)`` of two runs, ``1 - kappa`` computed in decimal from kappa as written
    (``1 - 0.9`` is 0.1, not 0.09999999999999998): the numbers ``weights = [K, 1 - K]`` written out give, so
    kappa K and those weights fuse into the same run, byte for byte. The one place kappa becomes weights
    (:func:`interpolate`, ``clirkit aggregate --kappa``); ClirkitError unless kappa is in [0, 1]."""
    from decimal import Decimal
    from numbers import Real

    if not (isinstance(kappa, Real) and not isinstance(kappa, bool) and 0.0 <= kappa <= 1.0):
        shown = f"{kappa:g}" if isinstance(kappa, Real) else repr(kappa)
        raise ClirkitError(f"kappa must be in [0, 1], got {shown}")
    kappa = float(kappa) + 0.0  # (-0.0 + 0.0 is 0.0: kappa -0 is kappa 0)
    return [kappa, float(Decimal(1) - Decimal(repr(kappa)))]


def _check_weights(weights, n: int) -> np.ndarray:
    """``weights`` as float64, checked (:func:`~clirkit.fusion.weights.weights_problem`) for ``n`` runs."""
    problem = weights_problem(weights, n, method="interpolation", sum_to_one=True)
    if problem is not None:
        raise ClirkitError("weights must be {}{}".format(*problem))
    return np.asarray(weights, dtype=np.float64)


def sum_normalized(aligned: AlignedRuns, transforms: Sequence[str]) -> list[np.ndarray]:
    """Each run's per-query sum-normalized scores on the aligned pairs.

    Args:
        aligned: the runs, from :func:`clirkit.fusion.align.align`.
        transforms: one name of :data:`TRANSFORMS` per run.

    Returns:
        One float64 array per run, of length ``aligned.n_pairs``: ``t_i(q, d) /
        sum_{d'} t_i(q, d')`` for the pairs in run i's list, 0 for the others
        and for every pair of a query whose transformed scores sum to 0.

    Raises:
        RunScoresError: naming run i (``index``): negative scores under ``none``, or scores summing past the float
            range.
    """
    out = []
    for i, run in enumerate(aligned.runs):
        with np.errstate(over="ignore", invalid="ignore"):
            try:
                t = transform_scores(run, transforms[i])
            except RunScoresError as exc:
                raise RunScoresError(str(exc), i) from None
            sums = np.bincount(aligned.row_query[i], weights=t, minlength=aligned.n_queries)
        if not np.isfinite(sums).all():
            q = int(np.flatnonzero(~np.isfinite(sums))[0])
            raise RunScoresError(
                f"run {run.tag!r}: the {transforms[i]!r}-transformed scores of query "
                f"{str(aligned.uq[q])!r} sum beyond the float range: scale the scores down",
                i,
            )
        denom = sums[aligned.row_query[i]]
        normed = np.zeros_like(t)
        np.divide(t, denom, out=normed, where=denom > 0)
        out.append(np.bincount(aligned.pair[i], weights=normed, minlength=aligned.n_pairs))
    return out


def weighted_sum(
    aligned: AlignedRuns,
    normalized: Sequence[np.ndarray],
    weights: Sequence[float],
    transforms: Sequence[str],
    *,
    depth: int,
    tag: str | None = None,
) -> Run | PackedRun:
    """The interpolated run from :func:`sum_normalized` scores: ``sum_i weights[i] * normalized[i]``.

    Args:
        aligned: the runs, from :func:`clirkit.fusion.align.align`.
        normalized: :func:`sum_normalized` of ``aligned``.
        weights: one weight per run (not checked here; :func:`interpolate` checks them).
        transforms: the transform names, recorded in the default tag.
        depth: rows kept per query in the output.
        tag: the output's run tag; default ``interp:w=<weights>:t=<transforms>``.

    Returns:
        The run over the union of the input lists (ties: docid ascending); a
        :class:`~clirkit.packedrun.PackedRun` when every input was one.
    """
    return aligned.ranked(combined(aligned, normalized, weights), depth, _tag(weights, transforms, tag))


def combined(
    aligned: AlignedRuns, normalized: Sequence[np.ndarray], weights: Sequence[float] | np.ndarray
) -> np.ndarray:
    """``sum_i weights[i] * normalized[i]`` over the aligned pairs (float64)."""
    fused = np.zeros(aligned.n_pairs, dtype=np.float64)
    for wi, contribution in zip(weights, normalized):
        fused += wi * contribution
    return fused


def _tag(weights: Sequence[float] | np.ndarray, transforms: Sequence[str], tag: str | None) -> str:
    """``tag``, or by default one recording the weights and transforms."""
    if tag is not None:
        return tag
    return "interp:w=" + ",".join(map(weight_text, weights)) + ":t=" + ",".join(transforms)


def interpolate(
    runs: Sequence[Run],
    weights: Sequence[float] | None = None,
    *,
    kappa: float | None = None,
    transform: str | Sequence[str] = "none",
    depth: int = 1000,
    tag: str | None = None,
) -> Run | PackedRun:
    """Weighted interpolation of per-query sum-normalized scores (SPEC §6).

    Args:
        runs: the runs to combine (at least one, each grouped by query, in rank order).
        weights: one weight per run, >= 0, summing to 1. Default: equal weights.
        kappa: shorthand for two runs: weights ``(kappa, 1 - kappa)``.
        transform: ``none`` | ``shift`` | ``minmax``, for all runs or one per
            run, applied per query before sum normalization.
        depth: an integer >= 1: each input list is cut to its top ``depth``
            rows before normalizing, and the output keeps the top ``depth`` per query.
        tag: the output's run tag; default records weights and transforms,
            e.g. ``interp:w=0.5,0.5:t=shift,none``.

    Returns:
        A run over the union of the input lists (ties: docid ascending; a
        :class:`~clirkit.packedrun.PackedRun` when every run given is one). A
        query's list whose transformed scores sum to 0 contributes 0.

    Note: min-max scaling divides a query's shifted scores by a constant that
    sum normalization then cancels, so ``shift`` and ``minmax`` give the same
    aggregate; both are offered because users ask for them by name.
    """
    runs, weights = fusion_inputs(runs, depth, tag), given_weights(weights)
    if kappa is not None:
        if weights is not None:
            raise ClirkitError("give either kappa or weights, not both")
        if len(runs) != 2:
            raise ClirkitError(f"kappa combines exactly two runs, got {len(runs)}; use weights")
        weights = kappa_weights(kappa)
    if weights is None:
        weights = [1.0 / len(runs)] * len(runs)
    w = _check_weights(weights, len(runs))
    names = transform_list(transform, len(runs))
    aligned = align(runs, depth)
    fused = combined(aligned, sum_normalized(aligned, names), w)  # (the normalized scores freed before ranking)
    return aligned.ranked(fused, depth, _tag(w, names, tag))


def fuse(
    runs: Sequence[Run], weights: Sequence[float], *, transforms: Sequence[str], depth: int, tag: str | None
) -> Run | PackedRun:
    """:func:`interpolate` as an entry of :data:`clirkit.fusion.METHODS`."""
    return interpolate(runs, weights, transform=transforms, depth=depth, tag=tag)
