"""clirkit.significance: paired randomization test and paired t-test on known answers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.significance import paired_t_test, paired_test, randomization_test


def _exact_p(d: np.ndarray) -> float:
    """Brute-force oracle: fraction of all 2^n sign vectors with |sum| >= |sum d|."""
    observed = abs(d.sum())
    hits = sum(abs(np.dot(s, d)) >= observed - 1e-12 for s in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


def test_identical_systems_give_p_one():
    a = np.random.default_rng(0).random(50)
    assert randomization_test(a, a).p_value == 1.0
    assert paired_t_test(a, a).p_value == 1.0
    small = a[:5]
    assert randomization_test(small, small).p_value == 1.0  # exact enumeration path


def test_a_clear_difference_gives_a_small_p_value():
    rng = np.random.default_rng(1)
    a = rng.random(40) * 0.5
    b = a + 0.1 + rng.normal(0, 0.02, 40)
    r = randomization_test(a, b, permutations=10_000, seed=3)
    assert r.p_value == pytest.approx(1 / 10_001)  # no random sign vector reaches it: the minimum
    assert r.mean_difference == pytest.approx(float(np.mean(b - a)))
    assert paired_t_test(a, b).p_value < 1e-10


def test_same_seed_same_p_value_and_other_seeds_differ_slightly():
    rng = np.random.default_rng(2)
    a = rng.random(30)
    b = a + rng.normal(0.03, 0.1, 30)
    p1 = randomization_test(a, b, seed=11).p_value
    assert randomization_test(a, b, seed=11).p_value == p1
    p2 = randomization_test(a, b, seed=12).p_value
    assert p1 != p2 and abs(p1 - p2) < 0.03
    assert randomization_test(a, b, seed=11).permutations == 10_000


def test_small_query_sets_are_enumerated_exactly():
    d = np.array([1.0, 1.0, 1.0])
    r = randomization_test(np.zeros(3), d)
    assert r.exact and r.p_value == 2 / 8  # only all-plus and all-minus reach |sum| = 3
    d = np.array([0.3, -0.1, 0.2, 0.05, 0.4, -0.2, 0.1, 0.0, 0.15, 0.25])
    assert randomization_test(np.zeros(10), d).p_value == pytest.approx(_exact_p(d))


def test_random_signs_approximate_the_exact_p_value():
    rng = np.random.default_rng(4)
    d = rng.normal(0.05, 0.2, 14)  # 2^14 = 16384 > 10000: sampled
    r = randomization_test(np.zeros(14), d, permutations=10_000, seed=0)
    exact = _exact_p(d)
    assert not r.exact
    assert abs(r.p_value - exact) < 4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-4


def test_the_test_is_two_sided_and_symmetric_in_its_arguments():
    rng = np.random.default_rng(5)
    a, b = rng.random(25), rng.random(25)
    assert randomization_test(a, b, seed=1).p_value == randomization_test(b, a, seed=1).p_value
    assert paired_t_test(a, b).p_value == pytest.approx(paired_t_test(b, a).p_value)


def test_t_test_matches_the_hand_formula():
    a = np.array([0.2, 0.4, 0.1, 0.5, 0.3])
    b = np.array([0.25, 0.45, 0.2, 0.5, 0.4])
    d = b - a
    t = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
    r = paired_t_test(a, b)
    assert r.statistic == pytest.approx(t)
    # Student's t CDF with 4 degrees of freedom in closed form: 1/2 + 3/8 u (1 - u^2 / 12 ... ) with
    # u = t / sqrt(1 + t^2/4): F(t) = 1/2 + (3/8) u (1 - t^2 / (12 (1 + t^2/4)))
    u = t / math.sqrt(1 + t * t / 4)
    cdf = 0.5 + 0.375 * u * (1 - t * t / (12 * (1 + t * t / 4)))
    assert r.p_value == pytest.approx(2 * (1 - cdf))


def test_bad_input_is_reported():
    with pytest.raises(ClirkitError, match="equally many"):
        randomization_test([1, 2], [1])
    with pytest.raises(ClirkitError, match="at least one"):
        paired_t_test([], [])
    with pytest.raises(ClirkitError, match="NaN"):
        randomization_test([1, np.nan], [1, 2])
    with pytest.raises(ClirkitError, match="permutations"):
        randomization_test([1, 2], [2, 3], permutations=0)
    with pytest.raises(ClirkitError, match="unknown significance test"):
        paired_test([1, 2], [2, 3], "wilcoxon")
    assert math.isnan(paired_t_test([1.0], [2.0]).p_value)


@pytest.mark.parametrize(
    "given, says",
    [
        ({"seed": -1}, "seed must be an integer >= 0, got -1"),
        ({"seed": 1.5}, "seed must be an integer >= 0, got 1.5"),
        ({"seed": None}, "seed must be an integer >= 0, got None"),
        ({"seed": True}, "seed must be an integer >= 0, got True"),
        ({"permutations": 100.5}, "permutations must be an integer >= 1, got 100.5"),
        ({"permutations": 100.0}, "permutations must be an integer >= 1, got 100.0"),
        ({"permutations": None}, "permutations must be an integer >= 1, got None"),
        ({"permutations": 0}, "permutations must be an integer >= 1, got 0"),
    ],
)
def test_the_randomization_tests_draws_and_seed_are_integers_in_range_or_a_one_line_error(given, says):
    for method in ("randomization", "t-test"):  # (paired_test checks them whatever the test)
        with pytest.raises(ClirkitError, match=f"^{says.replace('.', '[.]')}$"):
            paired_test([0.1, 0.2, 0.3], [0.2, 0.2, 0.5], method, **given)
    with pytest.raises(ClirkitError, match=f"^{says.replace('.', '[.]')}$"):
        randomization_test([0.1, 0.2, 0.3], [0.2, 0.2, 0.5], **given)


def test_numpy_integers_are_draws_and_seeds_too():
    a, b = [0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.5, 0.1]
    assert randomization_test(a, b, permutations=np.int64(3), seed=np.uint8(7)) == randomization_test(
        a, b, permutations=3, seed=7
    )
