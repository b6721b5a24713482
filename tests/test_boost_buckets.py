"""BucketIndex: directory lookup of present bucket ids equals a binary search."""
from __future__ import annotations

import numpy as np
import pytest

from clirkit.boost.buckets import BucketIndex


@pytest.mark.parametrize("bits,n", [(1, 2), (5, 3), (12, 4096), (20, 1000), (30, 50_000), (32, 70_000)])
def test_lookup_equals_searchsorted(bits, n):
    rng = np.random.default_rng(bits)
    ids = np.unique(rng.integers(0, 2**bits, size=n, dtype=np.int64))
    index = BucketIndex(ids, bits)
    needles = rng.choice(ids, size=5 * len(ids))
    assert np.array_equal(index.lookup(needles), np.searchsorted(ids, needles))


def test_crowded_slots_and_edges():
    """Ids packed into one directory slot, plus the smallest and largest possible ids."""
    bits = 16
    ids = np.array([0, 1, 2, 3, 4, 5, 6, 7, 40000, 65535], dtype=np.int64)
    index = BucketIndex(ids, bits)
    assert np.array_equal(index.lookup(ids[::-1]), np.arange(len(ids))[::-1])
    assert len(index) == len(ids)
