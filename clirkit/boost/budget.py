"""The budget of buckets with boosting state (``max_buckets``): which buckets are kept when the training pairs
fill more, and what is left out.

A bucket's *support* is the number of its pair occurrences: over the tuples t and the pairs (i, j) of the bucket,
the times that source n-gram i is in t's query and target n-gram j in only one of d+ and d- (a pair that cannot
separate more tuples than that cannot be chosen for more). Supports are counted as uint8 that stop at
:data:`SATURATION`, per *slot*: a bucket up to ``bits`` 30, ``2**(bits - 30)`` neighbouring buckets above (the
count array then stays 2**30 bytes). The slots are ranked by support (descending), then by id (ascending), and the
longest prefix of that order whose non-empty buckets fit the budget is kept (:func:`threshold`, :func:`cutoff`):
the same buckets whichever way the supports were counted (:class:`SupportCounts` over the hash space while the
pairs stream, or exactly per bucket, :func:`kept_of_grouped`).

A bucket left out gets no W+/W-: its pairs are never chosen, their product entries are skipped in the rounds.
The buckets kept have the statistics they would have had without the budget, so the rounds are the unbounded
ones until the first round at which a bucket left out would have had the largest gain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clirkit.boost import pairmap

MAX_BUCKETS = 1 << 27  # the default budget: 134,217,728 buckets (W+/W-: 2 GiB)
SATURATION = 255  # supports are counted up to this (uint8)
SLOT_BITS = 30  # above this many bits, supports are counted per slot of 2**(bits - 30) buckets
_SLICE = 1 << 22  # slots scanned at a time


def slot_shift(bits: int) -> int:
    """How many low bits of a bucket id a slot leaves out (0 up to ``bits`` 30)."""
    return max(0, bits - SLOT_BITS)


@dataclass(frozen=True)
class Dropped:
    """What the budget left out of one set of tuples: ``pairs`` and ``buckets`` (counts), and ``support``: the
    support of the last slot kept (every slot kept has at least this support; 255 means 255 or more)."""

    pairs: int
    buckets: int
    support: int

    def record(self) -> dict:
        return {"pairs": int(self.pairs), "buckets": int(self.buckets), "support": int(self.support)}


class SupportCounts:
    """Supports per slot over the whole hash space (uint8, stopping at :data:`SATURATION`): ``2**min(bits, 30)``
    bytes (1 GiB at ``bits`` 30), held while the pairs stream by, before any W+/W- is made; ``hist`` counts the
    slots of each support (1..255) as they change."""

    def __init__(self, bits: int) -> None:
        self.shift = slot_shift(bits)
        self.counts = np.zeros(1 << (bits - self.shift), dtype=np.uint8)
        self.hist = np.zeros(SATURATION + 1, dtype=np.int64)

    def add(self, ids: np.ndarray, occurrences: np.ndarray) -> None:
        """Add ``occurrences`` (integer-valued, one per pair) to the slots of the bucket ids ``ids`` (compiled
        where numba is: the same counts)."""
        slots = np.asarray(ids, dtype=np.int64) >> self.shift
        if pairmap.call("add_support", self.counts, self.hist, slots, occurrences, SATURATION)[0]:
            return
        slots, inverse = np.unique(slots, return_inverse=True)
        total = np.bincount(inverse.ravel(), occurrences, minlength=len(slots))
        old = self.counts[slots].astype(np.int64)
        new = np.minimum(old + total.astype(np.int64), SATURATION)
        changed = new != old
        np.subtract.at(self.hist, old[changed & (old > 0)], 1)
        np.add.at(self.hist, new[changed], 1)
        self.counts[slots] = new.astype(np.uint8)


def threshold(buckets_by_support: np.ndarray, budget: int) -> tuple[int, int]:
    """``(support, room)``: the slots of support above ``support`` are all kept (their buckets fit the budget),
    and ``room`` buckets are left for those of exactly ``support`` (in ascending order, :func:`cutoff`).

    Args:
        buckets_by_support: the non-empty buckets of the slots of each support 0..255 (256 counts).
        budget: the buckets that may be kept.
    """
    above = 0
    for s in range(SATURATION, 0, -1):
        n = int(buckets_by_support[s])
        if above + n > budget:
            return s, budget - above
        above += n
    return 0, budget - above


def cutoff(buckets: np.ndarray, room: int) -> int:
    """How many of the slots of the threshold's support (in ascending order, holding ``buckets`` non-empty
    buckets each) are kept: the longest prefix whose buckets fit ``room``."""
    total = np.cumsum(buckets, dtype=np.int64)
    return int(np.searchsorted(total, room, side="right"))


def _slot_buckets(words: np.ndarray, shift: int) -> np.ndarray:
    """The non-empty buckets of each slot of the bitmap ``words`` (uint64; ``64 >> shift`` slots a word, bucket
    order), uint8: the bits themselves, or each field of ``2**shift`` bits' popcount (SWAR), read a byte at a
    time."""
    if shift == 0:
        return np.unpackbits(words.astype("<u8").view(np.uint8), bitorder="little")
    x = words - ((words >> np.uint64(1)) & np.uint64(0x5555555555555555))  # 2-bit fields: their popcounts
    if shift == 2:
        x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    width = 1 << shift
    byte = x.astype("<u8").view(np.uint8)
    mask = np.uint8((1 << width) - 1)
    return np.stack([(byte >> np.uint8(k)) & mask for k in range(0, 8, width)], axis=-1).ravel()


def _words_of(kept: np.ndarray, shift: int) -> np.ndarray:
    """The uint64 bitmap words that keep the buckets of the slots ``kept`` (bool, ``64 >> shift`` slots a word)."""
    if shift == 0:
        return np.packbits(kept, bitorder="little").view("<u8").astype(np.uint64)
    width = 1 << shift
    per_byte = 8 // width
    fields = kept.reshape(-1, per_byte).astype(np.uint8) * np.uint8((1 << width) - 1)
    byte = np.zeros(len(fields), dtype=np.uint8)
    for k in range(per_byte):
        byte |= fields[:, k] << np.uint8(k * width)
    return byte.view("<u8").astype(np.uint64)


def keep_in_bitmap(bitmap, counts: SupportCounts, budget: int) -> Dropped | None:
    """Clear in ``bitmap`` (a :class:`~clirkit.boost.buckets.BucketBitmap`, filled, not frozen) the buckets the
    budget leaves out, ranked by ``counts``; None when every bucket fits (nothing cleared), else what was left
    out (its ``pairs`` 0: they are counted when the statistics are made)."""
    shift, words, per_word = counts.shift, bitmap.words, 64 >> counts.shift
    step = max(1, _SLICE // per_word)
    slices = [(a, min(a + step, len(words))) for a in range(0, len(words), step)]
    hist = counts.hist.copy()  # a slot of support > 0 is a non-empty bucket: the buckets of each support
    if shift:  # or 1 to 2**shift of them: counted from the bitmap
        hist[:] = 0
        width = (1 << shift) + 1
        for a, b in slices:
            c = counts.counts[a * per_word : b * per_word].astype(np.int64)
            joint = np.bincount(c * width + _slot_buckets(words[a:b], shift), minlength=(SATURATION + 1) * width)
            hist += joint.reshape(SATURATION + 1, width) @ np.arange(width)
        hist[0] = 0
    total = int(hist.sum())
    if total <= budget:
        return None
    support, room = threshold(hist, budget)
    last, left = len(counts.counts), room  # the last slot of that support kept: those up to it, in order
    for a, b in slices:
        tied = np.flatnonzero(counts.counts[a * per_word : b * per_word] == support)
        buckets = _slot_buckets(words[a:b], shift)[tied]
        n = cutoff(buckets, left)
        left -= int(buckets[:n].sum())
        if n < len(tied):
            last = a * per_word + int(tied[n]) - 1  # the first slot of that support left out, less one
            break

    def keep(a: int, b: int) -> np.ndarray:
        c = counts.counts[a * per_word : b * per_word]
        kept = c > support
        if a * per_word <= last:
            kept |= (c == support) & (np.arange(a * per_word, b * per_word) <= last)
        return _words_of(kept, shift)

    bitmap.keep_only(keep)
    return Dropped(0, total - (budget - left), support)


def kept_of_grouped(bucket_ids: np.ndarray, support: np.ndarray, bits: int, budget: int) -> tuple[np.ndarray, int]:
    """``(kept, support)``: the buckets kept (a bool mask over ``bucket_ids``, ascending, each with its exact
    ``support``) as :func:`keep_in_bitmap` keeps them from its saturated counts, and the support of the last slot
    kept."""
    shift = slot_shift(bits)
    slots = np.asarray(bucket_ids, dtype=np.int64) >> shift
    first = np.flatnonzero(np.r_[True, slots[1:] != slots[:-1]]) if len(slots) else np.zeros(0, np.int64)
    slot_support = np.minimum(np.add.reduceat(support, first), SATURATION).astype(np.int64) if len(first) else first
    slot_buckets = np.diff(np.r_[first, len(slots)])
    hist = np.bincount(slot_support, weights=slot_buckets, minlength=SATURATION + 1).astype(np.int64)
    if int(hist.sum()) <= budget:
        return np.ones(len(slots), dtype=bool), 0
    level, room = threshold(hist, budget)
    tied = np.flatnonzero(slot_support == level)
    kept_slot = slot_support > level
    kept_slot[tied[: cutoff(slot_buckets[tied], room)]] = True
    return np.repeat(kept_slot, slot_buckets), level
