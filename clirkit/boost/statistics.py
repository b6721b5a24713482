"""The statistics a :class:`~clirkit.boost.rounds.PairBooster` starts from when its pairs are not mapped
(:class:`~clirkit.boost.pairmap.PairMap`): W+ and W- of every non-empty bucket (of those ``max_buckets`` keeps,
:mod:`clirkit.boost.budget`) at the tuples' starting weights, and how the rounds find a bucket's pairs.

- :func:`grouped_statistics`: every distinct pair kept (its key, grouped by bucket, :mod:`clirkit.boost.pairgroups`),
  about 40 bytes a pair at the set-up's peak, for up to :data:`GROUPED_LIMIT` pair occurrences (or when the hash
  is too costly to invert: fewer than ``32 - log2(INVERT_LIMIT / min(S, T))`` bits, 25 for 32,000 n-grams);
- :func:`streamed_statistics`: past that, no pair kept (:mod:`clirkit.boost.streamed`): W+/W- and a bit per hash
  bucket, whatever the number of pairs.

Both give the same statistics (each bucket's sum over its pairs in key order), so the same rounds and models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from clirkit.boost.buckets import BucketIndex
from clirkit.boost.budget import Dropped
from clirkit.boost.pairgroups import (
    PairCache,
    PairGroups,
    _bucket_order,
    _keys_in_bucket_order,
    _segment_sums,
    grouping_key,
)
from clirkit.boost.streamed import (
    BucketPairs,
    ProductBlocks,
    kept_groups,
    keys_at,
    stream_buckets,
    stream_sums,
)

if TYPE_CHECKING:
    from clirkit.boost.rounds import PairBooster

# pair occurrences (and difference entries) past which the pairs are streamed, not kept, when a bucket's pairs
# are found by inverting the hash in at most INVERT_LIMIT hashes (min(S, T) * 2**(32 - bits))
GROUPED_LIMIT = 1 << 25
INVERT_LIMIT = 1 << 21


def grouped_statistics(self: "PairBooster", cache: PairCache | None, side_by_side: int) -> None:
    """W+ and W- of every bucket, the pairs grouped by bucket (from ``cache`` when it has them), from the
    product of all the tuples (``_pair_stats``); past ``max_buckets``, of the buckets it keeps
    (:func:`~clirkit.boost.streamed.kept_groups`). Sets the booster's statistics, pairs and index."""
    src_ptr, tgt, wp, wm = self._pair_stats(np.arange(self.n), self.w)
    if len(tgt) > side_by_side:  # many pairs: the set-up's peak is ahead, so the rounds subtract their rows
        self._signed = None
    digest = (
        grouping_key(src_ptr, tgt, self.src_hash, self.tgt_hash, self.T, self.hash_seed, self.bits, self.max_buckets)
        if cache is not None
        else None
    )
    groups = cache.get(digest) if cache is not None else None
    dropped = None
    if groups is None:
        order, ptr, bucket_ids = _bucket_order(src_ptr, tgt, self.src_hash, self.tgt_hash, self.hash_seed, self.bits)
        if self.max_buckets is not None and len(bucket_ids) > self.max_buckets:
            order, ptr, bucket_ids, dropped = kept_groups(
                ProductBlocks(self.Qm, self.Dm, self.tuples),
                src_ptr,
                tgt,
                order,
                ptr,
                bucket_ids,
                self.bits,
                self.max_buckets,
            )
    else:
        order, ptr = groups.order, groups.bucket_ptr
    nb = len(ptr) - 1
    if nb <= side_by_side:  # a bucket's W+ and W- in one 16-byte row: a round's reads miss once, not twice
        W = np.empty((nb, 2))
        self.Wp, self.Wm = W[:, 0], W[:, 1]
        _segment_sums(wp, order, ptr, out=self.Wp)
        del wp
        _segment_sums(wm, order, ptr, out=self.Wm)
    else:  # apart, each freed value made before the next array (the standalone bigram model's set-up)
        self.Wp = _segment_sums(wp, order, ptr)
        del wp
        self.Wm = _segment_sums(wm, order, ptr)
    del wm
    if groups is None:
        if dropped is None:
            pair_keys = _keys_in_bucket_order(src_ptr, tgt, order, self.T)
        else:
            pair_keys = keys_at(src_ptr, tgt, order, self.T)
        del tgt
        if cache is None:
            del order  # before the directory is made
            order = None
        groups = PairGroups(pair_keys, bucket_ids, ptr, BucketIndex(bucket_ids, self.bits), order, dropped)
        if cache is not None:
            cache.put(digest, groups)
    self._groups(groups)


def streams(self: "PairBooster") -> bool:
    """Whether the pairs are streamed (:func:`streamed_statistics`): past :data:`GROUPED_LIMIT` pair
    occurrences (or difference entries), when a bucket's pairs are found in at most :data:`INVERT_LIMIT`
    hashes."""
    q_nnz, d_nnz = np.diff(self.Qm.indptr), np.diff(self.Dm.indptr)
    rows = d_nnz[self.tuples.pos] + d_nnz[self.tuples.neg]
    self._cost = q_nnz[self.tuples.query] * rows
    if max(int(self._cost.sum()), int(rows.sum())) <= GROUPED_LIMIT:
        return False
    return BucketPairs.cost(self.Qm.shape[1], self.T, self.bits) <= INVERT_LIMIT


def streamed_statistics(self: "PairBooster", cache: PairCache | None, side_by_side: int) -> bool:
    """W+ and W- of every bucket (past ``max_buckets``, of those it keeps) from the pairs streamed twice
    (:mod:`clirkit.boost.streamed`), the buckets a bitmap (from ``cache`` when it has it). False (nothing made,
    the pairs are then kept) when a pair's sums are 0 (only an underflow of the weights could do that), or when
    the buckets of three pairs or more, all kept, hold more than :data:`~clirkit.boost.streamed.SHARED_LIMIT`
    pairs (so many collisions: a few bits for many pairs); over the budget those are then summed one after the
    other."""
    blocks = ProductBlocks(self.Qm, self.Dm, self.tuples)
    args = (self.Qm, self.Dm, self.tuples, self.src_hash, self.tgt_hash, self.hash_seed, self.bits)
    digest = cache.key(*args, self.max_buckets) if cache is not None else None
    found = cache.get(digest) if cache is not None else None
    if found is None:
        found = stream_buckets(blocks, *args[3:], self.max_buckets)
    if found.shared is None and found.dropped is None:
        return False
    nb = len(found.bitmap)
    if nb <= side_by_side:
        W = np.zeros((nb, 2))
        Wp, Wm = W[:, 0], W[:, 1]
    else:
        Wp, Wm = np.zeros(nb), np.zeros(nb)
    left_out, seen = stream_sums(blocks, self.w, found, Wp, Wm, *args[3:])
    if seen != found.pairs:
        return False
    if cache is not None:
        cache.put(digest, found)
    self.Wp, self.Wm, self.index = Wp, Wm, found.bitmap
    self.pair_keys = self.bucket_ids = self.bucket_ptr = None
    self.n_pairs, self.n_buckets = found.pairs - left_out, nb
    dropped = found.dropped
    self.dropped = None if dropped is None else Dropped(left_out, dropped.buckets, dropped.support)
    self._partial = dropped is not None
    self._finder = BucketPairs(self.src_hash, self.tgt_hash, self.hash_seed, self.bits)
    return True
