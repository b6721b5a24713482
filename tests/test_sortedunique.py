"""sorted_unique gives np.unique's array (the oracle), whatever the dtype and shape."""

import numpy as np
import pytest

from clirkit.sortedunique import sorted_unique

RNG = np.random.default_rng(7)


@pytest.mark.parametrize(
    "values",
    [
        RNG.integers(0, 50, 1000),
        RNG.integers(-(2**62), 2**62, 1000),
        RNG.integers(0, 2**31, 500).astype(np.uint32),
        RNG.integers(0, 30, 200).astype(str),
        np.array(["b", "a", "", "ab", "a"]),
        np.array([1.5, np.nan, -0.0, 0.0, np.nan, 2.0]),
        np.zeros(0, dtype=np.int64),
        RNG.integers(0, 5, (4, 6)),
        [3, 1, 3, 2],
        np.array([True, False, True]),
    ],
    ids=["few", "wide", "uint32", "str", "short-str", "nan", "empty", "2d", "list", "bool"],
)
def test_sorted_unique_is_numpys_unique(values):
    got, want = sorted_unique(values), np.unique(values)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
