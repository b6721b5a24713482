"""The set-up of many training pairs as they stream by (SPEC §5): memory for the buckets, not for the pairs.

:class:`~clirkit.boost.rounds.PairBooster` keeps every distinct pair (its key, 8 bytes, and the pointers that
group the pairs by bucket) when the tuples' pair occurrences are few. Past that (the standalone bigram model of
nave-en-es: 3.6e8 occurrences, 1.07e8 pairs) the pairs are streamed instead, twice, and none is kept
(:mod:`clirkit.boost.statistics` chooses):

- :class:`ProductBlocks` makes the products Qt^T diag(v) Delta a block of source n-grams at a time (a block's
  distinct pairs are final, in key order): compiled, each row from the documents' rows as they are read
  (:func:`clirkit.boost.kernels.block_product`); else with scipy, from Delta, held when it has at most
  :data:`DELTA_LIMIT` entries, past that made for a block's tuples a chunk at a time, each chunk's product added
  to the block's running one through a unit column ahead of it. Every entry is summed over the tuples in
  ascending order from 0, as the one product of the kept pairs sums it;
- :func:`stream_buckets` (pass 1): the non-empty buckets as a :class:`~clirkit.boost.buckets.BucketBitmap`, the
  number of distinct pairs, the buckets of three pairs or more and, when the pairs may fill more buckets than
  the budget (``max_buckets``), their supports, with which :func:`clirkit.boost.budget.keep_in_bitmap` keeps the
  most frequent buckets;
- :func:`stream_sums` (pass 2): W+ and W- of each kept bucket, summed over its pairs in key order as
  ``np.add.reduceat`` sums them for the kept pairs (one pair after the other up to two, the pairs of the buckets
  of three or more kept for ``np.add.reduceat`` itself): the same statistics;
- :class:`BucketPairs`: the pairs of a bucket (one a round: the one chosen), found by inverting the hash
  (:func:`~clirkit.boost.features.murmur3_second_blocks`): for each source n-gram and each of the
  ``2**(32 - bits)`` hashes that reduce to the bucket, the one target hash that makes it, looked up among the
  target n-grams' hashes, each candidate pair then checked against the tuples.

So the set-up holds the bitmap (``2**bits / 6.4`` bytes, and two more in pass 1), W+/W- (16 bytes a kept bucket),
a block's product (about :data:`BLOCK_COST` entries), the supports in pass 1 when the budget may bind
(``2**min(bits, 30)`` bytes), and with scipy the tuples' differences (at most :data:`DELTA_LIMIT` entries, 12
bytes each): whatever the number of pairs. Each pass costs a product of all the tuples (about 15 s compiled for
the bigram model above).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from clirkit.boost import pairmap
from clirkit.boost.buckets import BucketBitmap, BucketIndex
from clirkit.boost.budget import Dropped, SupportCounts, keep_in_bitmap, kept_of_grouped
from clirkit.boost.features import murmur3_first_block, murmur3_first_blocks, murmur3_second_blocks, pair_buckets
from clirkit.boost.pairmap import _blocks
from clirkit.boost.tuples import Tuples
from clirkit.sortedunique import sorted_unique

DELTA_LIMIT = 3 << 24  # tuples' difference entries held at once (50M: 0.6 GB)
SHARED_LIMIT = 1 << 23  # pairs of buckets of three or more kept while W+/W- are made (20 bytes each: 170 MB)
BLOCK_COST = 1 << 22  # pair occurrences of a block of source n-grams (its product's entries at most)
_ROWS_AT_ONCE = 1 << 20  # difference entries made at a time
_CANDIDATES_AT_ONCE = 1 << 22  # hashes inverted at a time


def signed_differences(Dm: sp.csr_matrix, pos: np.ndarray, neg: np.ndarray, *, ones: bool = False) -> sp.csr_matrix:
    """Each tuple's d+ - d- without its zeros, with its sign in the column (2j where d+_j > d-_j, 2j + 1 where it
    is below) and |d+_j - d-_j| as value (1.0 with ``ones``): tuples x 2T, as :meth:`PairBooster._delta` makes
    them, a slice of tuples at a time into arrays of the bound's size."""
    d_nnz = np.diff(Dm.indptr)
    bound = int(d_nnz[pos].sum() + d_nnz[neg].sum())
    wide = 2 * Dm.shape[1] >= 2**31
    indices = np.empty(bound, dtype=np.int64 if wide else np.int32)
    data = np.empty(bound)
    indptr = np.zeros(len(pos) + 1, dtype=np.int64)
    at = 0
    for a, b in _blocks(d_nnz[pos] + d_nnz[neg], _ROWS_AT_ONCE) if len(pos) else []:
        diff = (Dm[pos[a:b]] - Dm[neg[a:b]]).tocsr()
        diff.eliminate_zeros()
        n = diff.nnz
        indices[at : at + n] = 2 * diff.indices.astype(indices.dtype) + (diff.data < 0)
        data[at : at + n] = 1.0 if ones else np.abs(diff.data)
        indptr[a + 1 : b + 1] = at + diff.indptr[1:]
        at += n
    indices.resize(at, refcheck=False)
    data.resize(at, refcheck=False)
    return sp.csr_matrix((data, indices, indptr), shape=(len(pos), 2 * Dm.shape[1]))


class ProductBlocks:
    """The products Qt^T diag(v) Delta of ``tuples`` (sorted by query), a block of source n-grams at a time.

    Args:
        Qm: queries x S binary CSR (float64); Dm: documents x T CSR (float64, binary or weights in (0, 1]).
        tuples: the tuples.
        delta_limit: the difference entries held at once (:data:`DELTA_LIMIT`).
        block_cost: the pair occurrences of a block (:data:`BLOCK_COST`).

    Attributes:
        occurrences: every tuple's pair occurrences at most (|q| x (|d+| + |d-|) summed).
    """

    def __init__(
        self,
        Qm: sp.csr_matrix,
        Dm: sp.csr_matrix,
        tuples: Tuples,
        *,
        delta_limit: int = DELTA_LIMIT,
        block_cost: int = BLOCK_COST,
    ) -> None:
        self.Dm, self.T = Dm, Dm.shape[1]
        self.pos, self.neg = tuples.pos, tuples.neg
        self.binary = bool(np.all(Dm.data == 1.0))
        self.QtT = Qm[tuples.query].T.tocsr()
        self.QtT.sort_indices()
        d_nnz = np.diff(Dm.indptr)
        self.row_bound = d_nnz[tuples.pos] + d_nnz[tuples.neg]
        self.cost = self.QtT @ self.row_bound.astype(np.float64)  # each source's occurrences at most
        self.occurrences = int(self.cost.sum())
        self.delta_limit = delta_limit
        self.bounds = _blocks(self.cost, block_cost) if len(self.cost) else []
        # compiled, each block's product is made from the documents' rows; else from Delta, held when it fits
        self.compiled = pairmap.kernels() is not None and Dm.has_canonical_format
        held = not self.compiled and self.row_bound.sum() <= delta_limit
        self.delta = signed_differences(Dm, self.pos, self.neg) if held else None

    def products(self, v: np.ndarray | None = None):
        """``(a, b, P)`` for each block of source n-grams ``a:b``: P (CSR, sorted indices) is rows ``a:b`` of
        Qt^T diag(v) Delta, each entry the sum over the tuples in ascending order of v_t |d+_j - d-_j| (of the
        pair's sign column); with ``v`` None, the unit product (every value 1: each entry counts its tuples).
        Compiled (:func:`clirkit.boost.kernels.block_product`: the same entries, summed the same way) where numba
        is, else scipy's products."""
        QtT = self.QtT
        A = (
            QtT
            if v is None
            else sp.csr_matrix((np.asarray(v, np.float64)[QtT.indices], QtT.indices, QtT.indptr), shape=QtT.shape)
        )
        Dm, n_cols, start = self.Dm, 2 * self.T, 0
        while self.compiled and start < len(self.bounds):
            a, b = self.bounds[start]
            bound = int(min(self.cost[a:b].sum(), (b - a) * n_cols))
            args = (A.indptr, A.indices, A.data, self.pos, self.neg, Dm.indptr, Dm.indices, Dm.data)
            done, out = pairmap.call("block_product", a, b, *args, v is None, self.T, bound)
            if not done:  # numba failed: scipy from here on
                self.compiled = False
                if self.row_bound.sum() <= self.delta_limit:
                    self.delta = signed_differences(Dm, self.pos, self.neg)
                break
            ptr, indices, data = out
            P = sp.csr_matrix((data, indices, ptr), shape=(b - a, n_cols))
            P.has_sorted_indices = True
            yield a, b, P
            start += 1
        B = self.delta
        if B is not None and v is None and not self.binary:
            B = sp.csr_matrix((np.ones(B.nnz), B.indices, B.indptr), shape=B.shape)
        for a, b in self.bounds[start:]:
            P = A[a:b] @ B if B is not None else self._chunked(A[a:b], ones=v is None)
            P.sort_indices()
            yield a, b, P
        del B

    def _chunked(self, A: sp.csr_matrix, *, ones: bool) -> sp.csr_matrix:
        """``A @ Delta`` with Delta made for ``A``'s tuples a chunk at a time (at most ``delta_limit`` entries), each
        chunk's product taken with the running one ahead: ``[I | A_c] @ [P; Delta_c]`` adds each entry's terms of
        the chunk to it one after the other, as one product would."""
        ts = sorted_unique(A.indices)
        P = None
        for a, b in _blocks(self.row_bound[ts], self.delta_limit) if len(ts) else []:
            chunk = ts[a:b]
            Bc = signed_differences(self.Dm, self.pos[chunk], self.neg[chunk], ones=ones)
            Ac = sp.csr_matrix(A[:, chunk])
            Ac.sort_indices()
            if P is None:
                P = Ac @ Bc
            else:
                eye = sp.identity(A.shape[0], format="csr")
                P = sp.hstack([eye, Ac], format="csr") @ sp.vstack([P, Bc], format="csr")
            del Bc, Ac
        return P if P is not None else sp.csr_matrix((A.shape[0], 2 * self.T))


def _block_pairs(P: sp.csr_matrix, a: int, T: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(source ids, target ids, first entries)`` of the distinct pairs of a block's product ``P`` (rows from
    source ``a``), in key order; a pair's W+ and W- entries are adjacent, its first at ``first``."""
    rows_of = np.repeat(np.arange(a, a + P.shape[0], dtype=np.int64), np.diff(P.indptr))
    tgt = (P.indices >> 1).astype(np.int64)
    first = np.empty(P.nnz, dtype=bool)
    if P.nnz:
        first[0] = True
        np.not_equal(rows_of[1:] * T + tgt[1:], rows_of[:-1] * T + tgt[:-1], out=first[1:])
    at = np.flatnonzero(first)
    return rows_of[at], tgt[at], at


@dataclass
class StreamedBuckets:
    """What pass 1 (:func:`stream_buckets`) found: the kept buckets (``bitmap``, ranks counted), the distinct
    ``pairs``, what the budget left out (``dropped``, None: nothing), and ``shared``: the buckets of three pairs
    or more (their W+/W- are each bucket's pairs' sums added as numpy's ``np.add.reduceat`` adds them, which is
    not one after the other; None when they hold more than :data:`SHARED_LIMIT` pairs, ``shared_pairs``)."""

    bitmap: BucketBitmap
    pairs: int
    dropped: Dropped | None
    shared: BucketBitmap | None
    shared_pairs: int


def stream_buckets(
    blocks: ProductBlocks, src_hash: np.ndarray, tgt_hash: np.ndarray, seed: int, bits: int, budget: int | None
) -> StreamedBuckets:
    """Pass 1 (the unit product): the buckets of the tuples' pairs (the budget's,
    :func:`~clirkit.boost.budget.keep_in_bitmap`, when there are more, ranked by their supports), how many
    distinct pairs, what the budget left out, and the buckets of three pairs or more."""
    bitmap, twice, thrice = BucketBitmap(bits), BucketBitmap(bits), BucketBitmap(bits)
    counts = SupportCounts(bits) if budget is not None and blocks.occurrences > budget else None
    n_pairs = shared_pairs = 0
    for a, _, P in blocks.products(None):
        src, tgt, first = _block_pairs(P, a, blocks.T)
        ids = pair_buckets(src_hash, tgt_hash, src, tgt, seed=seed, bits=bits)
        shared_pairs += bitmap.add(ids, twice, thrice)
        n_pairs += len(ids)
        if counts is not None and len(ids):
            counts.add(ids, np.add.reduceat(P.data, first))
        del P, src, tgt, first, ids
    del twice
    dropped = keep_in_bitmap(bitmap, counts, budget) if counts is not None else None
    del counts
    bitmap.freeze()
    shared = thrice if shared_pairs <= SHARED_LIMIT else None
    return StreamedBuckets(bitmap, n_pairs, dropped, shared, shared_pairs)


def stream_sums(
    blocks: ProductBlocks,
    v: np.ndarray,
    found: StreamedBuckets,
    Wp: np.ndarray,
    Wm: np.ndarray,
    src_hash: np.ndarray,
    tgt_hash: np.ndarray,
    seed: int,
    bits: int,
) -> tuple[int, int]:
    """Pass 2: W+ (``Wp``) and W- (``Wm``) of each bucket kept (``found.bitmap``): each entry of Qt^T diag(v) Delta
    added to its pair's bucket in key order (compiled where numba is), as ``np.add.reduceat`` sums a bucket's
    pairs when it has one or two, and the pairs of the buckets of three or more (``found.shared``) kept and
    summed by ``np.add.reduceat`` itself, bucket by bucket, in key order (all one after the other without
    ``shared``). Returns ``(left out, pairs)``: the distinct pairs whose bucket is not kept, and all of them."""
    left_out, n_pairs = 0, 0
    kept_k, kept_p, kept_m = [], [], []
    for a, _, P in blocks.products(v):
        src, tgt, first = _block_pairs(P, a, blocks.T)
        ids = pair_buckets(src_hash, tgt_hash, src, tgt, seed=seed, bits=bits)
        cb = found.bitmap.lookup(ids)
        left_out += int(np.count_nonzero(cb < 0))
        n_pairs += len(cb)
        first = np.append(first, P.nnz)
        if found.shared is not None:
            shared = found.shared.has(ids) & (cb >= 0)
            if shared.any():
                pair = np.repeat(np.arange(len(cb)), np.diff(first))
                at = np.flatnonzero(shared[pair])
                plus = (P.indices[at] & 1) == 0
                wp, wm = np.zeros(len(cb)), np.zeros(len(cb))
                wp[pair[at[plus]]], wm[pair[at[~plus]]] = P.data[at[plus]], P.data[at[~plus]]
                kept_k.append(cb[shared]), kept_p.append(wp[shared]), kept_m.append(wm[shared])
                cb = np.where(shared, -1, cb)
                del pair, at, plus, wp, wm
        if not pairmap.call("scatter_sums", Wp, Wm, cb, first, P.indices, P.data)[0]:
            entry = np.repeat(cb, np.diff(first))
            plus = (P.indices & 1) == 0
            kept = entry >= 0
            np.add.at(Wp, entry[plus & kept], P.data[plus & kept])
            np.add.at(Wm, entry[~plus & kept], P.data[~plus & kept])
            del entry, plus, kept
        del P, src, tgt, first, cb, ids
    if kept_k:  # the buckets of three pairs or more: their pairs' sums reduced in key order
        k = np.concatenate(kept_k)
        order = np.argsort(k, kind="stable")
        k = k[order]
        starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
        for W, parts in ((Wp, kept_p), (Wm, kept_m)):
            W[k[starts]] = np.add.reduceat(np.concatenate(parts)[order], starts)
    return left_out, n_pairs


def keys_at(src_ptr: np.ndarray, tgt: np.ndarray, order: np.ndarray, T: int) -> np.ndarray:
    """``source id * T + target id`` (int64) of the pairs at the key-order positions ``order`` (pairs listed
    source after source: ``src_ptr``, ``tgt``), a slice at a time."""
    keys = np.empty(len(order), dtype=np.int64)
    for a in range(0, len(order), _ROWS_AT_ONCE):
        at = np.asarray(order[a : a + _ROWS_AT_ONCE], dtype=np.int64)
        keys[a : a + len(at)] = (np.searchsorted(src_ptr, at, side="right") - 1) * T + tgt[at]
    return keys


def kept_groups(
    blocks: ProductBlocks,
    src_ptr: np.ndarray,
    tgt: np.ndarray,
    order: np.ndarray,
    ptr: np.ndarray,
    bucket_ids: np.ndarray,
    bits: int,
    budget: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Dropped]:
    """The grouping ``(order, ptr, bucket_ids)`` of the pairs ``(src_ptr, tgt)`` by bucket (as
    :func:`~clirkit.boost.pairgroups._bucket_order` makes it) cut to the buckets the budget keeps, ranked by their
    exact supports (the unit products of ``blocks``; :func:`~clirkit.boost.budget.kept_of_grouped`), and what was
    left out."""
    keys_l, counts_l = [], []
    for a, _, P in blocks.products(None):
        src, tg, first = _block_pairs(P, a, blocks.T)
        keys_l.append(src * blocks.T + tg)
        counts_l.append(np.add.reduceat(P.data, first) if len(first) else np.zeros(0))
    unit_keys, counts = np.concatenate(keys_l), np.concatenate(counts_l)
    del keys_l, counts_l
    n = len(tgt)
    keys = np.repeat(np.arange(len(src_ptr) - 1, dtype=np.int64), np.diff(src_ptr)) * blocks.T + tgt
    support = counts[np.searchsorted(unit_keys, keys)]  # every pair of the product is one of the unit product's
    del unit_keys, counts, keys
    sizes = np.diff(ptr)
    bucket_support = np.add.reduceat(support[order], ptr[:-1]) if n else np.zeros(0)
    kept, level = kept_of_grouped(bucket_ids, bucket_support, bits, budget)
    in_kept = np.repeat(kept, sizes)
    new_ptr = np.zeros(int(kept.sum()) + 1, dtype=ptr.dtype)
    np.cumsum(sizes[kept], out=new_ptr[1:])
    dropped = Dropped(int(n - in_kept.sum()), int(len(kept) - kept.sum()), level)
    return order[in_kept], new_ptr, bucket_ids[kept], dropped


class BucketPairs:
    """The pairs (source id, target id) hashed into a bucket, found from its id (see the module's docstring).

    Args:
        src_hash, tgt_hash: the n-grams' uint32 hashes; seed, bits: the pairs' hashing.

    The cost is ``min(S, T) * 2**(32 - bits)`` inversions a bucket (:meth:`cost`): 1.3e5 for the standalone
    bigram model at ``bits`` 30.
    """

    def __init__(self, src_hash: np.ndarray, tgt_hash: np.ndarray, seed: int, bits: int) -> None:
        self.seed, self.bits = seed, bits
        self.by_source = len(src_hash) <= len(tgt_hash)
        known, other = (src_hash, tgt_hash) if self.by_source else (tgt_hash, src_hash)
        self.known = np.asarray(known, dtype=np.uint32)
        self.first = murmur3_first_block(self.known, seed) if self.by_source else None
        self.order = np.argsort(other, kind="stable")
        self.other = np.asarray(other, dtype=np.uint32)[self.order]
        self.index = BucketIndex(self.other, 32)  # a hash's first place among them (equal hashes follow it)

    @staticmethod
    def cost(n_sources: int, n_targets: int, bits: int) -> int:
        return min(n_sources, n_targets) << (32 - bits)

    def candidates(self, bucket: int) -> tuple[np.ndarray, np.ndarray]:
        """Every ``(source id, target id)`` whose pair hashes into ``bucket`` (ascending key), training pairs or
        not."""
        n = len(self.known)
        full = (np.arange(1 << (32 - self.bits), dtype=np.int64) << self.bits) | int(bucket)
        per = max(1, _CANDIDATES_AT_ONCE // max(n, 1))
        found_k, found_o = [], []
        for c in range(0, len(full), per):
            hs = full[c : c + per, None]  # a row a hash, a column a known n-gram
            if self.by_source:
                match = murmur3_second_blocks(self.first[None, :], hs).ravel()
            else:
                match = murmur3_first_blocks(self.known[None, :], hs, self.seed).ravel()
            lo = self.index.find(match)
            for h in np.flatnonzero(lo >= 0).tolist():
                at = int(lo[h])
                while at < len(self.other) and self.other[at] == match[h]:
                    found_k.append(h % n), found_o.append(int(self.order[at]))
                    at += 1
        k, o = np.asarray(found_k, dtype=np.int64), np.asarray(found_o, dtype=np.int64)
        src, tgt = (k, o) if self.by_source else (o, k)
        at = np.lexsort((tgt, src))
        return src[at], tgt[at]

    def of(self, bucket: int, is_pair) -> tuple[np.ndarray, np.ndarray]:
        """The training pairs of ``bucket``: its :meth:`candidates` that ``is_pair(i, j)`` accepts, in key order."""
        src, tgt = self.candidates(bucket)
        keep = np.array([bool(is_pair(i, j)) for i, j in zip(src.tolist(), tgt.tolist())], dtype=bool)
        return src[keep] if len(src) else src, tgt[keep] if len(tgt) else tgt
