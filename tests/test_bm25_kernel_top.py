"""clirkit.retrieval.kernels' two steps after a row's scan, against numpy: ``_sort_top`` (the first k candidates in run
order, the others dropped unsorted) and ``_largest`` (the sample's r-th largest, the bound of the scan).

``_sort_top`` keys each value by its float64 bits less the smallest key, shifted into 32 bits: values far
apart make it shift, so that close values share a key and are put in order by exact value; values in a
narrow range are keyed exactly. Both cases, ties, -0.0 and negative values are drawn here; the kernel's
result must be numpy's stable order (value descending, then position) cut at k.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from clirkit.retrieval.kernels import _FEW, _largest, _sort_top  # noqa: E402  (after the skip: the module imports numba)

DTYPES = [np.float64, np.float32]


def expected_top(values: np.ndarray, k: int) -> list[int]:
    """Positions of the first ``k`` of ``values`` by value descending, then position (numpy's stable sort)."""
    return np.lexsort((np.arange(len(values)), -values.astype(np.float64)))[:k].tolist()


def sort_top(values: np.ndarray, k: int, spare: int = 0) -> list[int]:
    n = len(values)
    padded = np.concatenate([values, np.full(spare, np.nan, dtype=values.dtype)])  # cells past n are not read
    work = [
        np.empty(n + spare, np.uint32),
        np.empty(n + spare, np.uint32),
        np.empty(n + spare, np.int64),
        np.empty(n + spare, np.int64),
    ]
    return _sort_top(padded, n, k, *work, np.empty((4, 256), np.int64))[: min(n, k)].tolist()


@st.composite
def candidates(draw):
    """Values as the scan leaves them: some tied, some a few ulps apart, in a narrow or a wide range."""
    dtype = draw(st.sampled_from(DTYPES))
    base = draw(st.lists(st.sampled_from([-2.0, -0.0, 0.0, 0.5, 1.0, 1.5, 7.25, 1e-300, 3e38]), max_size=300))
    values = np.array(base, dtype=np.float64)
    steps = draw(st.lists(st.integers(-3, 3), min_size=len(base), max_size=len(base)))
    for i, s in enumerate(steps):
        for _ in range(abs(s)):
            values[i] = np.nextafter(values[i], np.inf if s > 0 else -np.inf)
    return values.astype(dtype)


@settings(max_examples=300, deadline=None)
@given(values=candidates(), k=st.integers(1, 400), spare=st.integers(0, 3))
def test_sort_top_gives_the_first_k_of_a_stable_descending_sort(values, k, spare):
    assert sort_top(values, k, spare) == expected_top(values, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_top_orders_values_that_share_a_key_when_the_range_is_wide(dtype):
    rng = np.random.default_rng(5)
    close = 1.0 + rng.integers(0, 40, 3_000) * np.finfo(dtype).eps  # many distinct values, many ties
    values = np.concatenate([close, [1e30, 1e-30]]).astype(dtype)  # the range makes the key shift
    rng.shuffle(values)
    for k in (1, 10, 1_000, 2_999, 5_000):
        assert sort_top(values, k) == expected_top(values, k)


def test_sort_top_keeps_the_tied_cells_of_smaller_position_at_the_cut():
    values = np.array([1.0, 3.0, 2.0, 3.0, 2.0, 2.0, 0.5, 2.0])
    assert sort_top(values, 4) == [1, 3, 2, 4]
    assert sort_top(values, 0) == []


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.25, 0.5, 1.0, 1.0, 2.0, 3.0, 3e38]), min_size=1, max_size=400),
    dtype=st.sampled_from(DTYPES),
    data=st.data(),
)
def test_largest_gives_the_rth_largest_as_numpy_sorts_them(values, dtype, data):
    a = np.array(values, dtype=dtype)
    r = data.draw(st.integers(1, len(a)))
    expected = np.sort(a)[len(a) - r]
    assert _largest(a.copy(), len(a), r, np.empty(_FEW, dtype=dtype)) == expected
    if r <= _FEW:  # read, not reordered
        before = a.copy()
        _largest(a, len(a), r, np.empty(_FEW, dtype=dtype))
        assert a.tobytes() == before.tobytes()
