"""Losses of the SCS model as functions of the relevance score r, with their derivatives.

Every function is vectorized over a batch and returns ``(loss, dloss)``: the
per-item loss values and the derivative of each with respect to its score(s)
(float64 arrays). The model chains these with the encoder's gradient.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from clirkit.errors import ClirkitError

POINTWISE = ("sosl", "mse")
PAIRWISE = ("hinge", "logistic", "exp")
LOSSES = POINTWISE + PAIRWISE


def check_thresholds(thresholds) -> np.ndarray:
    """The full threshold vector ``-1 = th_0 < th_1 < ... < th_K = 1`` from the inner ones."""
    inner = np.asarray(thresholds, dtype=np.float64).ravel()
    full = np.concatenate(([-1.0], inner, [1.0]))
    if inner.size == 0 or np.any(np.diff(full) <= 0):
        raise ClirkitError(
            f"SOSL thresholds must increase strictly inside (-1, 1), got {' '.join(f'{t:g}' for t in inner)}"
        )
    return full


def sosl(r: np.ndarray, grade: np.ndarray, thresholds) -> tuple[np.ndarray, np.ndarray]:
    """Smooth Ordinal Search Loss (Liu et al. 2020, eq. 2).

    A pair of grade g (0 = irrelevant, ..., K-1) belongs in the segment
    ``[th_g, th_{g+1}]`` of the full threshold vector; the loss is the squared
    distance to that segment: ``(r - th_{g+1})^2`` above it, ``(th_g - r)^2``
    below it, 0 inside. It is continuously differentiable: the derivative is
    ``2 (r - th_{g+1})`` above, ``2 (r - th_g)`` below, 0 inside.
    """
    full = check_thresholds(thresholds)
    grade = np.asarray(grade, dtype=np.int64)
    if grade.size and (grade.min() < 0 or grade.max() > len(full) - 2):
        raise ClirkitError(
            f"SOSL with {len(full) - 2} inner thresholds handles grades 0..{len(full) - 2}, "
            f"got grade {grade.max() if grade.max() > 0 else grade.min()}"
        )
    low, high = full[grade], full[grade + 1]
    above = np.maximum(r - high, 0.0)
    below = np.minimum(r - low, 0.0)
    return above**2 + below**2, 2.0 * (above + below)


def segment_midpoints(thresholds) -> np.ndarray:
    """The middle of each grade's SOSL segment: the default MSE targets."""
    full = check_thresholds(thresholds)
    return (full[:-1] + full[1:]) / 2.0


def mse(r: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Squared error ``(r - target)^2`` and its derivative ``2 (r - target)``."""
    diff = r - target
    return diff**2, 2.0 * diff


def pairwise(kind: str, r_pos: np.ndarray, r_neg: np.ndarray, *, margin: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise rank loss ``l(delta)`` of ``delta = r_neg - r_pos`` (rank-loss notes).

    ``hinge``: max(0, margin + delta); ``logistic``: log(1 + exp(delta));
    ``exp``: exp(delta). Returns ``(loss, dl/ddelta)``; the derivative with
    respect to ``r_pos`` is minus it, with respect to ``r_neg`` it is itself.
    The hinge's derivative at its kink is taken as 0.
    """
    delta = r_neg - r_pos
    if kind == "hinge":
        z = margin + delta
        return np.maximum(z, 0.0), (z > 0).astype(np.float64)
    if kind == "logistic":
        return np.logaddexp(0.0, delta), expit(delta)
    if kind == "exp":
        e = np.exp(delta)
        return e, e
    raise ClirkitError(f"unknown pairwise loss {kind!r}; choose one of {', '.join(PAIRWISE)}")


def batch_loss(
    kind: str, r: np.ndarray, batch, *, thresholds, mse_targets=None, margin: float = 0.2
) -> tuple[float, np.ndarray]:
    """Mean loss of kind ``kind`` and dL/dr for every scored pair of ``batch`` (a
    :class:`~clirkit.scs.training.TrainingData`; ``r``: the pointwise pairs' scores, or the (query, pos) then the
    (query, neg) scores); ``thresholds``, ``mse_targets`` and ``margin`` as the model's."""
    if kind == "sosl":
        values, g = sosl(r, batch.grade, thresholds)
        return float(values.mean()), g / len(r)
    if kind == "mse":
        targets = segment_midpoints(thresholds) if mse_targets is None else np.asarray(mse_targets, dtype=np.float64)
        values, g = mse(r, targets[batch.grade])
        return float(values.mean()), g / len(r)
    m = len(batch.query)
    values, g = pairwise(kind, r[:m], r[m:], margin=margin)
    w = batch.weight
    return float(np.sum(w * values) / m), np.concatenate([-w * g, w * g]) / m
