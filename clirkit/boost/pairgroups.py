"""Each pair of the training tuples grouped by its hash bucket, once per set of tuples (SPEC §5): the layout the
boosting rounds of :class:`~clirkit.boost.rounds.PairBooster` read.

The pairs (source n-gram, target n-gram) of the tuples, listed source after source, are ordered by bucket
(:func:`_bucket_order`, the buckets' first pairs in key order); :class:`PairGroups` holds that order and the
buckets' pointers, :class:`PairCache` keeps it (and the tuples' :class:`~clirkit.boost.pairmap.PairMap`) for the
next beta, which boosts the same tuples from other weights; :func:`mapped_pairs` makes both.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from clirkit.boost import pairmap
from clirkit.boost.buckets import BucketIndex
from clirkit.boost.budget import Dropped
from clirkit.boost.features import pair_buckets
from clirkit.boost.pairmap import PairMap
from clirkit.boost.tuples import Tuples
from clirkit.sortedunique import sorted_unique

_HASH_SLICE = 1 << 22  # pairs (buckets) hashed (scored) at a time during set-up


def _concat_ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(starts[i], stops[i])`` over i, vectorized."""
    lens = stops - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lens) - lens
    return np.repeat(starts - offsets, lens) + np.arange(total, dtype=np.int64)


def _concatenated(parts: list, dtype) -> np.ndarray:
    """``np.concatenate(parts)``, each part let go as soon as it is copied (``parts`` is emptied): the
    whole is never held twice."""
    out = np.empty(sum(len(p) for p in parts), dtype=dtype)
    at = 0
    for i in range(len(parts)):
        part, parts[i] = parts[i], None
        out[at : at + len(part)] = part
        at += len(part)
        del part
    parts.clear()
    return out


def _sources(src_ptr: np.ndarray, a: int, b: int) -> np.ndarray:
    """Source ids (int64) of the pairs ``a:b`` of pairs listed source after source, source ``s`` holding the pairs
    ``src_ptr[s]:src_ptr[s + 1]``."""
    s0 = int(np.searchsorted(src_ptr, a, side="right")) - 1
    s1 = int(np.searchsorted(src_ptr, b, side="left"))
    return np.repeat(np.arange(s0, s1, dtype=np.int64), np.diff(np.clip(src_ptr[s0 : s1 + 1], a, b)))


def _segment_sums(values: np.ndarray, order: np.ndarray, ptr: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.add.reduceat(values[order], ptr[:-1])``, a slice of segments at a time (the same sums: each
    segment is reduced on its own), so that ``values[order]`` is never made whole; into ``out`` if given."""
    n = len(ptr) - 1
    out = np.empty(n) if out is None else out
    for a in range(0, n, _HASH_SLICE):
        b = min(a + _HASH_SLICE, n)
        lo, hi = int(ptr[a]), int(ptr[b])
        out[a:b] = np.add.reduceat(values[order[lo:hi]], ptr[a:b] - lo)
    return out


def pair_stats(made, T: int, chunk: int):
    """Pair statistics of tuples: ``(src_ptr, tgt, W+, W-)``; ``made()`` gives their rows of Qm, Qt, and their
    Delta (:meth:`PairBooster._delta`), held here only (each let go as soon as it is used).

    The distinct pairs are listed in key order (key ``source_id * T + target_id``): source ``s`` holds the
    pairs ``src_ptr[s]:src_ptr[s + 1]`` (int64, S + 1 offsets), ``tgt`` their target ids (int32 when ``T``
    fits, half the bytes of the keys). The product Qt^T diag(v) Delta is taken in blocks of source n-grams (rows
    of the product) of about ``chunk`` pair occurrences, so each block's pairs are final and the blocks' keys
    follow one another in order.
    """
    Qt, delta = made()
    QtT = Qt.T.tocsr()
    del Qt
    cost = np.cumsum(QtT @ np.diff(delta.indptr).astype(np.float64))
    cuts = np.searchsorted(cost, np.arange(chunk, cost[-1] if len(cost) else 0, chunk))
    bounds = sorted_unique(np.concatenate(([0], cuts, [QtT.shape[0]])))
    tgt_type = np.int32 if T < 2**31 else np.int64
    counts = np.zeros(QtT.shape[0], dtype=np.int64)
    tgt_l, p_l, m_l = [], [], []
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        prod = QtT[a:b] @ delta
        prod.sort_indices()
        rows_of = np.repeat(np.arange(a, b, dtype=np.int64), np.diff(prod.indptr))
        keys = rows_of * T + (prod.indices >> 1)  # = ((row * 2T + column) >> 1): sorted
        if len(keys) == 0:
            continue
        first = np.empty(len(keys), dtype=bool)  # a pair's W+ and W- entries are adjacent
        first[0] = True
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
        pair = np.cumsum(first) - 1
        plus = (prod.indices & 1) == 0
        minus = ~plus
        wp = np.zeros(int(pair[-1]) + 1)
        wm = np.zeros(len(wp))
        wp[pair[plus]] = prod.data[plus]
        wm[pair[minus]] = prod.data[minus]
        counts[a:b] = np.bincount(rows_of[first] - a, minlength=b - a)
        tgt_l.append((prod.indices[first] >> 1).astype(tgt_type)), p_l.append(wp), m_l.append(wm)
        del prod, rows_of, keys, first, pair, plus, minus
    del QtT, delta
    src_ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=src_ptr[1:])
    return (src_ptr, _concatenated(tgt_l, tgt_type), _concatenated(p_l, np.float64), _concatenated(m_l, np.float64))


def _bucket_order(
    src_ptr: np.ndarray, tgt: np.ndarray, src_hash: np.ndarray, tgt_hash: np.ndarray, seed: int, bits: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs ``(src_ptr, tgt)`` (as :meth:`PairBooster._pair_stats` lists them: in key order) grouped by bucket:
    ``(order, ptr, bucket_ids)``.

    ``keys[order]`` lists the pairs bucket after bucket (ascending bucket ids, key order within a bucket:
    the keys are sorted and one sort of ``(bucket << 32) | position`` orders both), bucket ``k`` holding
    ``order[ptr[k]:ptr[k + 1]]``. ``order`` and ``ptr`` are int32 when they fit, ``bucket_ids`` uint32
    (``bits <= 32``). Hashed and split in slices, so the temporaries stay small.
    """
    n = len(tgt)
    packed = np.empty(n, dtype=np.uint64)
    for a in range(0, n, _HASH_SLICE):
        b = min(a + _HASH_SLICE, n)
        out = packed[a:b]
        out[:] = pair_buckets(src_hash, tgt_hash, _sources(src_ptr, a, b), tgt[a:b], seed=seed, bits=bits)
        out <<= np.uint64(32)
        out |= np.arange(a, b, dtype=np.uint64)
    packed.sort()
    index_type = np.int32 if n < 2**31 else np.int64

    def firsts(a: int) -> tuple[np.ndarray, np.ndarray]:  # the buckets starting in slice a, and where
        bucket = packed[a : a + _HASH_SLICE] >> np.uint64(32)
        first = np.empty(len(bucket), dtype=bool)
        first[0] = a == 0 or bucket[0] != packed[a - 1] >> np.uint64(32)
        np.not_equal(bucket[1:], bucket[:-1], out=first[1:])
        at = np.flatnonzero(first)
        return at + a, bucket[at]

    # counted first, then written into arrays of that size: no list of parts to concatenate
    nb = sum(len(firsts(a)[0]) for a in range(0, n, _HASH_SLICE))
    ptr = np.empty(nb + 1, dtype=index_type)
    bucket_ids = np.empty(nb, dtype=np.uint32)
    k = 0
    for a in range(0, n, _HASH_SLICE):
        at, ids = firsts(a)
        ptr[k : k + len(at)], bucket_ids[k : k + len(at)] = at, ids
        k += len(at)
    ptr[nb] = n
    if index_type is np.int64:
        packed &= np.uint64(0xFFFFFFFF)
        return packed.view(np.int64), ptr, bucket_ids
    # the positions (the low halves) moved to the front of the same buffer, whose back half is then given
    # back: a slice is written over halves that earlier slices have read (numpy buffers the first one)
    halves = packed.view(np.uint32)
    low = halves[0::2] if sys.byteorder == "little" else halves[1::2]
    for a in range(0, n, _HASH_SLICE):
        b = min(a + _HASH_SLICE, n)
        halves[a:b] = low[a:b]
    del halves, low
    packed.resize((n + 1) // 2, refcheck=False)  # no view of it is left
    return packed.view(np.int32)[:n], ptr, bucket_ids


def _keys_in_bucket_order(src_ptr: np.ndarray, tgt: np.ndarray, order: np.ndarray, T: int) -> np.ndarray:
    """``source id * T + target id`` (int64) of the pairs ``order`` (in key order: ``src_ptr``, ``tgt``).

    The target ids are gathered first; ``tgt`` then takes where each pair went (its buffer is overwritten),
    and the source ids, made a slice at a time in key order, are added there: no whole array of keys in
    key order is held beside the one in bucket order.
    """
    n = len(tgt)
    keys = np.empty(n, dtype=np.int64)
    for a in range(0, n, _HASH_SLICE):
        keys[a : a + _HASH_SLICE] = tgt[order[a : a + _HASH_SLICE]]
    where = tgt if np.iinfo(tgt.dtype).max >= n else np.empty(n, dtype=np.int64)
    for a in range(0, n, _HASH_SLICE):
        b = min(a + _HASH_SLICE, n)
        where[order[a:b]] = np.arange(a, b, dtype=where.dtype)
    for a in range(0, n, _HASH_SLICE):
        b = min(a + _HASH_SLICE, n)
        keys[where[a:b]] += _sources(src_ptr, a, b) * T  # each position once: no repeated index
    return keys


@dataclass
class PairGroups:
    """The distinct training pairs of a set of tuples grouped by hash bucket (see :class:`PairCache`).

    Attributes:
        pair_keys: ``source id * T + target id`` (int64) of each pair, bucket after bucket (ascending ids),
            in key order within a bucket.
        bucket_ids: the non-empty buckets, ascending (uint32).
        bucket_ptr: bucket ``k`` holds ``pair_keys[bucket_ptr[k]:bucket_ptr[k + 1]]`` (int32 when it fits).
        index: :class:`BucketIndex` over ``bucket_ids``.
        order: the position of each pair of ``pair_keys`` among the keys in ascending order, which sums each
            bucket's statistics in the set-up; kept only in a cache.
        dropped: what ``max_buckets`` left out (:class:`~clirkit.boost.budget.Dropped`), or None.
    """

    pair_keys: np.ndarray
    bucket_ids: np.ndarray
    bucket_ptr: np.ndarray
    index: BucketIndex
    order: np.ndarray | None = None
    dropped: Dropped | None = None


class PairCache:
    """Pair groupings kept for boosting the same tuples again with other weights.

    :class:`~clirkit.boost.BoostRanker` boosted from a base ranker boosts the same tuples once per beta
    tried, each time from other starting weights; the distinct pairs, their buckets and the order that groups
    them by bucket do not change, so :class:`PairBooster` makes them once and takes them from here after, and
    so is the tuples' :class:`~clirkit.boost.pairmap.PairMap`. A grouping is found by a digest of the pairs,
    the hashes, the seed and the bits; a map by a digest of the matrices and the tuples' rows.
    """

    def __init__(self) -> None:
        self._groups: dict[bytes, Any] = {}  # PairGroups, or the streamed set-up's buckets
        self._maps: dict[bytes, PairMap | None] = {}

    def get(self, digest: bytes) -> Any:
        return self._groups.get(digest)

    def put(self, digest: bytes, groups: Any) -> None:
        self._groups[digest] = groups

    def pair_map(
        self,
        Qm: sp.csr_matrix,
        Dm: sp.csr_matrix,
        tuples: Tuples,
        src_hash: np.ndarray,
        tgt_hash: np.ndarray,
        hash_seed: int,
        bits: int,
        *,
        budget: int | None = None,
    ) -> PairMap | None:
        """:func:`mapped_pairs` of these (``Qm``, ``Dm``: float64 CSR), made the first time and kept (found by
        :meth:`key`)."""
        digest = self.key(Qm, Dm, tuples, src_hash, tgt_hash, hash_seed, bits, budget)
        if digest not in self._maps:
            self._maps[digest] = mapped_pairs(Qm, Dm, tuples, src_hash, tgt_hash, hash_seed, bits, budget=budget)
        return self._maps[digest]

    @staticmethod
    def key(
        Qm: sp.csr_matrix,
        Dm: sp.csr_matrix,
        tuples: Tuples,
        src_hash: np.ndarray,
        tgt_hash: np.ndarray,
        hash_seed: int,
        bits: int,
        budget: int | None,
    ) -> bytes:
        """A digest of the matrices, the tuples' rows, the hashes, the seed, the bits and the budget."""
        import hashlib

        h = hashlib.blake2b(digest_size=20)
        budget = -1 if budget is None else budget
        h.update(np.array([*Qm.shape, *Dm.shape, len(tuples), hash_seed, bits, budget], dtype=np.int64))
        for array in (
            Qm.indptr,
            Qm.indices,
            Dm.indptr,
            Dm.indices,
            Dm.data,
            tuples.query,
            tuples.pos,
            tuples.neg,
            src_hash,
            tgt_hash,
        ):
            h.update(np.ascontiguousarray(array))
        return h.digest()


def grouping_key(
    src_ptr: np.ndarray,
    tgt: np.ndarray,
    src_hash: np.ndarray,
    tgt_hash: np.ndarray,
    T: int,
    seed: int,
    bits: int,
    budget: int | None = None,
) -> bytes:
    """What the grouping of the pairs ``(src_ptr, tgt)`` by bucket depends on, digested (the :class:`PairCache`
    key): the pairs, the n-grams' hashes, the target n-grams ``T``, the hashing's ``seed`` and ``bits``, and the
    budget of buckets (``max_buckets``, which the tuples' pair occurrences rank)."""
    import hashlib

    h = hashlib.blake2b(digest_size=20)
    h.update(np.array([T, seed, bits, len(tgt), len(src_ptr)], dtype=np.int64).tobytes())
    if budget is not None:  # (the digest of no budget is the one before there was a budget)
        h.update(np.array([budget], dtype=np.int64).tobytes())
    for array in (
        np.ascontiguousarray(src_ptr, dtype=np.int64),
        np.ascontiguousarray(tgt, dtype=np.int64),
        np.ascontiguousarray(src_hash),
        np.ascontiguousarray(tgt_hash),
    ):
        h.update(array)
    return h.digest()


def mapped_pairs(
    Qm: sp.csr_matrix,
    Dm: sp.csr_matrix,
    tuples: Tuples,
    src_hash: np.ndarray,
    tgt_hash: np.ndarray,
    hash_seed: int,
    bits: int,
    *,
    budget: int | None = None,
) -> PairMap | None:
    """The pairs of ``tuples`` mapped once (:class:`~clirkit.boost.pairmap.PairMap`) and grouped by bucket (its
    ``groups``, coded by bucket), or None when there may be more than
    :data:`~clirkit.boost.pairmap.MAP_LIMIT` pair occurrences (or :data:`~clirkit.boost.pairmap.MAP_DELTAS`
    difference entries), there are more than :data:`~clirkit.boost.pairmap.MAP_PAIRS` pairs or more non-empty
    buckets than ``budget`` (the rounds from the product then, which keep only the buckets of the budget)."""
    m = PairMap.build(Qm, Dm, tuples, limit=pairmap.MAP_LIMIT)
    if m is None or m.n_pairs > pairmap.MAP_PAIRS:
        return None
    order, ptr, bucket_ids = _bucket_order(m.src_ptr, m.tgt, src_hash, tgt_hash, hash_seed, bits)
    if budget is not None and len(bucket_ids) > budget:
        return None
    pair_keys = _keys_in_bucket_order(m.src_ptr, m.tgt, order, Dm.shape[1])  # writes over tgt
    m.coded(order, ptr)
    m.groups = PairGroups(pair_keys, bucket_ids, ptr, BucketIndex(bucket_ids, bits))
    return m
