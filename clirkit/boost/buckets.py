"""Compact positions of the non-empty hash buckets.

Boosting keeps W+/W- only for the buckets that hold a training pair (compact arrays in the order of the bucket
ids), so memory follows the number of buckets with pairs, not ``2**bits``. :class:`BucketIndex` maps a bucket id
to its position in the sorted ids with a directory over the top bits of the id: bucket ids are hash values, hence
uniform, so each directory slot holds one or two ids and a lookup costs two random reads instead of a binary
search's ~25 (about 9 bytes a bucket). :class:`BucketBitmap`, when the pairs are streamed and their buckets never
listed (:mod:`clirkit.boost.streamed`), is a bit a bucket of the whole hash space with the rank of each 64-bit
word: ``2**bits / 6.4`` bytes whatever the number of buckets (168 MB at 30 bits, against 0.9 GB for 10^8 ids).
"""

from __future__ import annotations

import numpy as np

from clirkit.boost import pairmap

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

    def find(self, buckets: np.ndarray) -> np.ndarray:
        """Positions (int64) of ``buckets`` in ``ids``, -1 for a bucket that is not there."""
        buckets = np.asarray(buckets, dtype=np.int64)
        n = len(self.ids)
        pos = self.directory[buckets >> self.shift].astype(np.int64)
        behind = np.flatnonzero((pos < n) & (self.ids[np.minimum(pos, n - 1)] < buckets)) if n else pos[:0]
        while len(behind):
            pos[behind] += 1
            at = pos[behind]
            behind = behind[(at < n) & (self.ids[np.minimum(at, n - 1)] < buckets[behind])]
        found = (pos < n) & (self.ids[np.minimum(pos, max(n - 1, 0))] == buckets) if n else np.zeros(len(pos), bool)
        pos[~found] = -1
        return pos


def _popcount(words: np.ndarray) -> np.ndarray:
    """The set bits of each uint64 (as uint64): ``np.bitwise_count`` where numpy has it (2.0), else SWAR."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).astype(np.uint64)
    x = words - ((words >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    with np.errstate(over="ignore"):
        return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


_KEEP_SLICE = 1 << 17  # words masked at a time (the masks are made from a byte a bucket: 8 MB)
_WORDS_PER_BLOCK = 1024  # 64-bit words whose ranks are kept relative to their block's (uint16: < 65,536 bits)


class BucketBitmap:
    """The non-empty buckets as one bit each over the whole hash space, with ranks: the compact position of a
    bucket is the number of non-empty buckets below it.

    About ``2**bits / 6.4`` bytes whatever the number of buckets (168 MB at ``bits`` 30; :class:`BucketIndex`
    takes about 9 bytes a bucket, 0.9 GB for 10^8): a bit a bucket (``words``), and the rank of each 64-bit word,
    as an int64 a block of ``_WORDS_PER_BLOCK`` words and a uint16 within its block. Filled with :meth:`add`,
    then :meth:`freeze` counts the ranks; a bit cleared by :meth:`keep_only` before :meth:`freeze` is a bucket
    left out (:meth:`lookup` gives -1 for it).

    Args:
        bits: the hash width (ids in ``[0, 2**bits)``, ``bits <= 32``).
    """

    def __init__(self, bits: int) -> None:
        self.bits = bits
        n_words = max(1, (1 << bits) >> 6)
        self.words = np.zeros(n_words, dtype=np.uint64)
        self.block_rank: np.ndarray | None = None
        self.word_rank: np.ndarray | None = None

    def add(self, ids: np.ndarray, twice: "BucketBitmap | None" = None, thrice: "BucketBitmap | None" = None) -> int:
        """Set the bits of the bucket ids ``ids`` (int64 or uint32; repeats are fine), and with ``twice`` and
        ``thrice`` those of the buckets met a second and a third time there (each id a pair: the buckets of two
        and of three pairs or more). Returns the pairs of buckets of three or more these ids add (0 without the
        levels); compiled where numba is."""
        ids = np.asarray(ids, dtype=np.int64)
        levels = twice is not None and thrice is not None
        empty = np.zeros(0, dtype=np.uint64)
        done, shared = pairmap.call(
            "set_bits", self.words, twice.words if levels else empty, thrice.words if levels else empty, ids
        )
        if done:
            return int(shared)
        if not levels:
            np.bitwise_or.at(self.words, ids >> 6, np.left_shift(np.uint64(1), (ids & 63).astype(np.uint64)))
            return 0
        ids, counts = np.unique(ids, return_counts=True)  # the level of each bucket: 0..3 pairs met, then more
        level = self.has(ids).astype(np.int64) + twice.has(ids) + thrice.has(ids)
        new = np.minimum(level + counts, 3)
        for bitmap, at in ((self, 1), (twice, 2), (thrice, 3)):
            up = (level < at) & (new >= at)
            np.bitwise_or.at(bitmap.words, ids[up] >> 6, np.left_shift(np.uint64(1), (ids[up] & 63).astype(np.uint64)))
        shared = np.where(level >= 3, counts, np.where(level + counts >= 3, level + counts, 0))
        return int(shared.sum())

    def has(self, ids: np.ndarray) -> np.ndarray:
        """Whether the bits of ``ids`` are set (bool; no ranks needed)."""
        ids = np.asarray(ids, dtype=np.int64)
        return ((self.words[ids >> 6] >> (ids & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)

    def keep_only(self, keep) -> None:
        """Clear the bits of the buckets ``keep(word_index_range)`` does not keep: ``keep(a, b)`` returns the
        uint64 masks of words ``a:b`` (a slice at a time)."""
        for a in range(0, len(self.words), _KEEP_SLICE):
            b = min(a + _KEEP_SLICE, len(self.words))
            self.words[a:b] &= keep(a, b)

    def freeze(self) -> None:
        """Count the ranks (after the last :meth:`add` or :meth:`keep_only`)."""
        n = len(self.words)
        self.word_rank = np.empty(n, dtype=np.uint16)
        n_blocks = -(-n // _WORDS_PER_BLOCK)
        self.block_rank = np.zeros(n_blocks + 1, dtype=np.int64)
        for a in range(0, n, _SLICE):  # _SLICE is a multiple of _WORDS_PER_BLOCK
            b = min(a + _SLICE, n)
            counts = _popcount(self.words[a:b]).astype(np.int64)
            pad = np.zeros(-(-(b - a) // _WORDS_PER_BLOCK) * _WORDS_PER_BLOCK, dtype=np.int64)
            pad[: b - a] = counts
            per = pad.reshape(-1, _WORDS_PER_BLOCK)
            within = np.cumsum(per, axis=1) - per
            self.word_rank[a:b] = within.ravel()[: b - a]
            first = a // _WORDS_PER_BLOCK
            self.block_rank[first + 1 : first + 1 + len(per)] = per.sum(axis=1)
        np.cumsum(self.block_rank, out=self.block_rank)

    def __len__(self) -> int:
        return int(self.block_rank[-1])

    def lookup(self, buckets: np.ndarray) -> np.ndarray:
        """Compact positions (int64) of ``buckets``, -1 for a bucket whose bit is not set."""
        buckets = np.asarray(buckets, dtype=np.int64)
        w = buckets >> 6
        word = self.words[w]
        shift = (buckets & 63).astype(np.uint64)
        below = word & ((np.uint64(1) << shift) - np.uint64(1))
        pos = self.block_rank[w // _WORDS_PER_BLOCK] + self.word_rank[w].astype(np.int64)
        pos += _popcount(below).astype(np.int64)
        pos[((word >> shift) & np.uint64(1)) == 0] = -1
        return pos

    def id_of(self, k: int) -> int:
        """The bucket id at compact position ``k`` (``0 <= k < len(self)``)."""
        block = int(np.searchsorted(self.block_rank, k, side="right")) - 1
        a = block * _WORDS_PER_BLOCK
        ranks = self.word_rank[a : a + _WORDS_PER_BLOCK].astype(np.int64) + self.block_rank[block]
        w = a + int(np.searchsorted(ranks, k, side="right")) - 1
        word, left = int(self.words[w]), k - int(ranks[w - a])
        for bit in range(64):
            if word >> bit & 1:
                if left == 0:
                    return (w << 6) | bit
                left -= 1
        raise IndexError(k)

    def ids(self) -> np.ndarray:
        """Every set bucket id, ascending (uint32; for tests and small spaces)."""
        w = np.flatnonzero(self.words)
        bit = np.arange(64, dtype=np.uint64)
        at = np.nonzero((self.words[w][:, None] >> bit) & np.uint64(1))
        return ((w[at[0]] << 6) | at[1]).astype(np.uint32)
