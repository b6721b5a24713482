"""Compact positions of the non-empty hash buckets.

Boosting keeps W+/W- only for the buckets that hold a training pair (sorted
bucket ids, compact arrays), so memory follows the number of distinct pairs,
not ``2**bits``. :class:`BucketIndex` maps a bucket id to its position in the
sorted ids with a directory over the top bits of the id: bucket ids are hash
values, hence uniform, so each directory slot holds one or two ids and a
lookup costs two random reads instead of a binary search's ~25.
"""

from __future__ import annotations

import numpy as np

_SLICE = 1 << 22  # ids counted into the directory at a time (a whole bincount held 8 bytes a slot)


class BucketIndex:
    """Position of each present bucket id in ``ids``.

    Args:
        ids: sorted unique bucket ids (an integer array, uint32 or int64, each in ``[0, 2**bits)``; kept, not
            copied).
        bits: the hash width the ids were reduced to.
    """

    def __init__(self, ids: np.ndarray, bits: int) -> None:
        self.ids = np.asarray(ids)
        if self.ids.dtype.kind not in "iu":
            self.ids = self.ids.astype(np.int64)
        slots_log2 = min(bits, max(0, int(np.ceil(np.log2(max(len(self.ids), 1))))))
        self.shift = bits - slots_log2
        dtype = np.int32 if len(self.ids) < 2**31 else np.int64
        self.directory = np.zeros((1 << slots_log2) + 1, dtype=dtype)
        for a in range(0, len(self.ids), _SLICE):  # the ids are sorted: a slice's slots are a short range
            slots = (self.ids[a : a + _SLICE] >> self.shift).astype(np.int64)
            self.directory[1 + slots[0] : 2 + slots[-1]] += np.bincount(slots - slots[0]).astype(dtype)
        np.cumsum(self.directory, out=self.directory)

    def __len__(self) -> int:
        return len(self.ids)

    def lookup(self, buckets: np.ndarray) -> np.ndarray:
        """Positions (int64) of ``buckets`` in ``ids``; every bucket must be present."""
        buckets = np.asarray(buckets, dtype=np.int64)
        pos = self.directory[buckets >> self.shift].astype(np.int64)
        behind = np.flatnonzero(self.ids[pos] < buckets)
        while len(behind):
            pos[behind] += 1
            behind = behind[self.ids[pos[behind]] < buckets[behind]]
        return pos
