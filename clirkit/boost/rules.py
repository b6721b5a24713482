"""The rules of a boosting round (SPEC §5; rank-loss-notes.md), as pure functions of a bucket's statistics.

For a bucket with normalized statistics W+ (the weight of the tuples its pairs favour) and W- (those they
disfavour), a rule gives the gain by which the round chooses the bucket and the step alpha it adds:

- ``exact`` (RankBoost's exact minimization of the exp-loss bound): gain (sqrt W+ - sqrt W-)^2, alpha
  1/2 ln((W+ + eps) / (W- + eps));
- ``r`` (the r-rule for weak learners in [-1, 1]): gain |W+ - W-|, alpha 1/2 ln((1 + r) / (1 - r)) with
  r = W+ - W- clipped to (-1 + eps, 1 - eps).
"""

from __future__ import annotations

import numpy as np

RULES = ("exact", "r")


def gains(rule: str, wp: np.ndarray, wm: np.ndarray) -> np.ndarray:
    """The gain of buckets with statistics ``wp``, ``wm`` (negative values read as 0) under ``rule``; homogeneous
    of degree 1 in the weights, so unnormalized statistics rank the buckets alike."""
    wp = np.maximum(wp, 0.0)
    wm = np.maximum(wm, 0.0)
    if rule == "exact":
        return (np.sqrt(wp) - np.sqrt(wm)) ** 2
    return np.abs(wp - wm)


def step(rule: str, wp: float, wm: float, eps: float) -> float:
    """The step alpha of a bucket with normalized statistics ``wp``, ``wm`` (>= 0) under ``rule``, smoothed by
    ``eps``."""
    if rule == "exact":
        return float(0.5 * np.log((wp + eps) / (wm + eps)))
    rk = float(np.clip(wp - wm, -1.0 + eps, 1.0 - eps))
    return float(0.5 * np.log((1.0 + rk) / (1.0 - rk)))
