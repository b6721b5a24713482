"""Paired significance tests over per-query values of two systems.

Both tests take two equally long arrays, ``a`` (the baseline) and ``b``, whose
i-th entries are the two systems' values of one measure on the same query
(e.g. ``Evaluation.column("AP")`` of two runs evaluated on the same qrels
with ``average="qrels"``). Both are two-sided.

- :func:`randomization_test`: the paired randomization (sign-flip
  permutation) test used by the BoostCLIR papers (Smucker, Allan & Carterette
  2007): under H0 each per-query difference is equally likely to have either
  sign. Seeded and vectorized: random sign matrices (random bytes unpacked
  to bits) in chunks, one matrix product per chunk. When 2^n <=
  ``permutations`` all sign vectors are enumerated and the p-value is exact.
- :func:`paired_t_test`: Student's paired t-test (:func:`scipy.stats.ttest_rel`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Callable

import numpy as np

from clirkit.errors import ClirkitError

_CHUNK_CELLS = 1 << 22  # sign-matrix cells per chunk (32 MiB as float64)


@dataclass(frozen=True)
class TestResult:
    """Outcome of a paired test.

    Attributes:
        method: ``"randomization"`` or ``"t-test"``.
        mean_difference: mean of ``b - a`` over the queries.
        statistic: the test statistic (mean difference, or Student's t).
        p_value: two-sided p-value in [0, 1]; NaN when the test is undefined (the t-test of fewer than 2
            queries, or of the same nonzero difference on every query).
        n: number of queries (pairs).
        permutations: sign vectors drawn (or enumerated when ``exact``); 0 for the t-test.
        exact: whether all 2^n sign vectors were enumerated.
    """

    __test__ = False  # not a pytest class despite the name

    method: str
    mean_difference: float
    statistic: float
    p_value: float
    n: int
    permutations: int = 0
    exact: bool = False

    def significant(self, alpha: float = 0.05) -> bool:
        return bool(self.p_value < alpha)


def _pairs(a, b) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` as float64 arrays of per-query values: each a one-dimensional sequence (a list, a tuple, a
    numpy array, a pandas Series), the two equally long, not empty, finite; ClirkitError otherwise."""
    a, b = _values(a, "a"), _values(b, "b")
    if len(a) != len(b):
        raise ClirkitError(f"paired test needs equally many values, got {len(a)} and {len(b)}")
    if len(a) == 0:
        raise ClirkitError("paired test needs at least one query")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ClirkitError("paired test got a NaN or infinite per-query value")
    return a, b


def _values(given, name: str) -> np.ndarray:
    """``given`` (one system's per-query values) as a one-dimensional float64 array; ClirkitError for a mapping or
    a set (no order of queries to pair), a table of several columns, or values that are not numbers."""
    if isinstance(given, (Mapping, AbstractSet, str, bytes)):
        raise ClirkitError(
            f"paired test: {name} is a {type(given).__name__}: give the per-query values as a one-dimensional "
            "sequence, both systems' in the same order of queries (e.g. Evaluation.column(measure))"
        )
    if isinstance(given, Iterator):  # (a generator: read once)
        given = list(given)
    try:
        values = np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError):
        raise ClirkitError(f"paired test: {name} holds values that are not numbers") from None
    if values.ndim != 1:
        raise ClirkitError(
            f"paired test: {name} has shape {values.shape}: give one value per query, a one-dimensional sequence "
            "(one measure's column, e.g. Evaluation.column(measure))"
        )
    return values


def _whole(value, name: str, low: int) -> int:
    """``value`` as an int: an integer (a numpy one too; not a bool, not a float such as 100.0) >= ``low``;
    ClirkitError ``NAME must be an integer >= LOW, got V`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ClirkitError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def exact_enumeration(n: int, permutations: int) -> bool:
    """Whether :func:`randomization_test` of ``n`` pairs weighs all 2^n sign vectors: there are at most
    ``permutations`` of them."""
    return n < 63 and (1 << n) <= permutations


def sign_vectors(n: int, permutations: int) -> int:
    """How many sign vectors :func:`randomization_test` of ``n`` pairs weighs (all, or ``permutations``)."""
    return 1 << n if exact_enumeration(n, permutations) else permutations


def randomization_test(
    a, b, *, permutations: int = 10_000, seed: int = 0, advance: Callable[[int], object] | None = None
) -> TestResult:
    """Two-sided paired randomization test of mean(b - a) = 0.

    Args:
        a, b: per-query values of the baseline and of the other system.
        permutations: random sign vectors to draw, an integer >= 1.
        seed: seed of :func:`numpy.random.default_rng`, an integer >= 0; same seed, same p-value.
        advance: called with the count of each block of sign vectors weighed (a progress bar's ``update``).

    Returns:
        A :class:`TestResult`. With random signs the p-value is
        (1 + #{|mean(s * d)| >= |mean(d)|}) / (1 + permutations) (never 0;
        Phipson & Smyth 2010); with exact enumeration it is the fraction of
        all 2^n sign vectors (the identity included) reaching |mean(d)|.
        Identical systems give p = 1. ClirkitError for ``permutations`` or ``seed`` out of their ranges (or not
        integers), before any work.
    """
    permutations, seed = _whole(permutations, "permutations", 1), _whole(seed, "seed", 0)
    a, b = _pairs(a, b)
    d = b - a
    n = len(d)
    observed = abs(d.sum())
    # sums of the same numbers with flipped signs may differ from |sum d| in the last bits
    tolerance = 1e-9 * max(np.abs(d).sum(), 1e-300)
    threshold = observed - tolerance
    exact = exact_enumeration(n, permutations)
    rows = max(1, _CHUNK_CELLS // n)
    total_d = d.sum()
    count = 0
    # a sign vector s = 1 - 2 f (f: 0/1 flips) gives s . d = sum(d) - 2 f . d
    if exact:
        drawn = 1 << n
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, drawn, rows):
            codes = np.arange(start, min(start + rows, drawn), dtype=np.int64)
            flips = ((codes[:, None] >> bits) & 1).astype(np.float64)
            count += int((np.abs(total_d - 2.0 * (flips @ d)) >= threshold).sum())
            if advance is not None:
                advance(len(codes))
        p = count / drawn
    else:
        rng = np.random.default_rng(seed)
        drawn, done = permutations, 0
        while done < permutations:
            m = min(rows, permutations - done)
            raw = np.frombuffer(rng.bytes((m * n + 7) // 8), dtype=np.uint8)
            flips = np.unpackbits(raw, count=m * n).reshape(m, n).astype(np.float64)
            count += int((np.abs(total_d - 2.0 * (flips @ d)) >= threshold).sum())
            done += m
            if advance is not None:
                advance(m)
        p = (count + 1) / (permutations + 1)
    mean = float(d.mean())
    return TestResult("randomization", mean, mean, min(1.0, float(p)), n, int(drawn), exact)


def paired_t_test(a, b) -> TestResult:
    """Two-sided paired t-test of mean(b - a) = 0 (scipy.stats.ttest_rel).

    All differences zero gives t = 0, p = 1 (identical systems, as the randomization test says; scipy would give
    NaN). Undefined, t and p NaN: fewer than 2 queries, and the same nonzero difference on every query (zero
    variance: t would divide by 0; scipy gives t = +-inf, p = 0 with a warning that the result may be unreliable,
    R's t.test refuses the data as constant).
    """
    a, b = _pairs(a, b)
    d = b - a
    mean = float(d.mean())
    if not d.any():
        return TestResult("t-test", 0.0, 0.0, 1.0, len(d))
    if len(d) < 2 or np.ptp(d) <= 1e-12 * abs(mean):
        # one query, or the same nonzero difference on every query: no variance to scale the mean by
        return TestResult("t-test", mean, math.nan, math.nan, len(d))
    from scipy.stats import ttest_rel

    res = ttest_rel(b, a)
    return TestResult("t-test", mean, float(res.statistic), float(res.pvalue), len(d))


def paired_test(
    a,
    b,
    method: str = "randomization",
    *,
    permutations: int = 10_000,
    seed: int = 0,
    advance: Callable[[int], object] | None = None,
) -> TestResult:
    """Run the named test (``"randomization"`` or ``"t-test"``); ``permutations`` and ``seed`` are checked as
    :func:`randomization_test` checks them whatever the test, which alone calls ``advance``."""
    _whole(permutations, "permutations", 1)
    _whole(seed, "seed", 0)
    if method == "randomization":
        return randomization_test(a, b, permutations=permutations, seed=seed, advance=advance)
    if method == "t-test":
        return paired_t_test(a, b)
    raise ClirkitError(f"unknown significance test {method!r} (choose randomization or t-test)")
