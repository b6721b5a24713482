"""BucketIndex: directory lookup of present bucket ids equals a binary search."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.boost.buckets import BucketIndex


@pytest.mark.parametrize("bits,n", [(1, 2), (5, 3), (12, 4096), (20, 1000), (30, 50_000), (32, 70_000)])
def test_lookup_equals_searchsorted(bits, n):
    rng = np.random.default_rng(bits)
    ids = np.unique(rng.integers(0, 2**bits, size=n, dtype=np.int64))
    needles = rng.choice(ids, size=5 * len(ids))
    for stored in (ids, ids.astype(np.uint32)):  # boosting keeps its bucket ids as uint32 (bits <= 32)
        index = BucketIndex(stored, bits)
        assert index.ids is stored
        assert np.array_equal(index.lookup(needles), np.searchsorted(ids, needles))


def test_crowded_slots_and_edges():
    """Ids packed into one directory slot, plus the smallest and largest possible ids."""
    bits = 16
    ids = np.array([0, 1, 2, 3, 4, 5, 6, 7, 40000, 65535], dtype=np.int64)
    index = BucketIndex(ids, bits)
    assert np.array_equal(index.lookup(ids[::-1]), np.arange(len(ids))[::-1])
    assert len(index) == len(ids)


def test_directory_counted_in_small_slices_equals_one_bincount(monkeypatch):
    import clirkit.boost.buckets as buckets

    rng = np.random.default_rng(3)
    ids = np.unique(rng.integers(0, 2**20, size=5000)).astype(np.uint32)
    whole = BucketIndex(ids, 20)
    monkeypatch.setattr(buckets, "_SLICE", 7)
    sliced = BucketIndex(ids, 20)
    np.testing.assert_array_equal(sliced.directory, whole.directory)
    per_slot = np.bincount(ids.astype(np.int64) >> whole.shift, minlength=len(whole.directory) - 1)
    np.testing.assert_array_equal(whole.directory, np.concatenate(([0], np.cumsum(per_slot))))
