"""A boosting round made from the documents' rows, compiled (numba): for tuples whose pairs are not mapped.

Where the pairs are too many to map once (:mod:`clirkit.boost.pairmap`: every n-gram kept on long documents, the
standalone bigram model), :meth:`~clirkit.boost.rounds.PairBooster.update` makes a round from the sparse product
``Qt^T diag(change) Delta`` of the changed tuples, then hashes every entry to its bucket and adds it to W+ or W-
with numpy (:meth:`~clirkit.boost.rounds.PairBooster._add`). :func:`product_round` does all of it in one loop,
holding one row of the product at a time instead of the whole product and its hashes, with the same
floating-point operations in the same order, so the same W+/W-, gains, block maxima and models:

- the product as scipy's ``csr_matmat`` makes it: source after source, its tuples in ascending order, each
  tuple's ``x_j = d+_j - d-_j`` from the two sorted document rows (as scipy subtracts them, a 0 left out; made
  once a chunk, :func:`~clirkit.boost.kernels.tuple_deltas`) adding
  ``q_i (change_t |x_j|)`` to column ``2 j + (x < 0)`` from 0, the row's columns listed latest-met first, a sum of
  0 left out;
- its entries in slices of ``slice_size`` (``_ENTRIES_PER_SLICE``), each slice as ``_add`` takes it: every
  entry's bucket (MurmurHash3 of the pair, its compact position by :class:`~clirkit.boost.buckets.BucketBitmap`
  or :class:`~clirkit.boost.buckets.BucketIndex`, -1 left out) and its gain before the slice, then the sums added
  in order, then the gains after, a block marked stale where a gain fell and its maximum raised.
"""

from __future__ import annotations

import numba
import numpy as np

from clirkit.boost.kernels import _PREFETCH, _by_source, _gain, _prefetch, tuple_deltas

_M32 = np.uint64(0xFFFFFFFF)
_C1, _C2 = np.uint64(0xCC9E2D51), np.uint64(0x1B873593)
_F1, _F2 = np.uint64(0x85EBCA6B), np.uint64(0xC2B2AE35)
_N, _FIVE, _EIGHT = np.uint64(0xE6546B64), np.uint64(5), np.uint64(8)
_S13, _S15, _S16, _S17, _S19 = np.uint64(13), np.uint64(15), np.uint64(16), np.uint64(17), np.uint64(19)
_ONE, _M1, _M2, _M4 = (
    np.uint64(1),
    np.uint64(0x5555555555555555),
    np.uint64(0x3333333333333333),
    np.uint64(0x0F0F0F0F0F0F0F0F),
)
_H01, _S1, _S2, _S4, _S56 = np.uint64(0x0101010101010101), np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(56)
_SIX, _LOW6 = np.uint64(6), np.uint64(63)


@numba.njit(cache=True, nogil=True, inline="always")
def _mix(h, k):
    """One 4-byte block ``k`` of MurmurHash3_x86_32 into the state ``h`` (both 32-bit values in uint64s)."""
    k = (k * _C1) & _M32
    k = ((k << _S15) | (k >> _S17)) & _M32
    k = (k * _C2) & _M32
    h ^= k
    h = ((h << _S13) | (h >> _S19)) & _M32
    return (h * _FIVE + _N) & _M32


@numba.njit(cache=True, nogil=True, inline="always")
def _murmur_pair(a, b, seed):
    """MurmurHash3_x86_32 of ``le32(a) + le32(b)`` with ``seed``: :func:`clirkit.boost.features.murmur3_pairs`."""
    h = _mix(_mix(seed, a), b) ^ _EIGHT
    h ^= h >> _S16
    h = (h * _F1) & _M32
    h ^= h >> _S13
    h = (h * _F2) & _M32
    return h ^ (h >> _S16)


@numba.njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return (x * _H01) >> _S56


@numba.njit(cache=True, nogil=True, inline="always")
def _position(bucket, bitmap, words, word_rank, block_rank, words_per_block, ids, directory, shift):
    """The compact position of hash bucket ``bucket`` (uint64), -1 where it holds no kept pair: in the bitmap
    (``words`` and the ranks) or in the sorted ``ids`` (their ``directory`` over the top bits)."""
    if bitmap:
        w = np.int64(bucket >> _SIX)
        word = words[w]
        bit = bucket & _LOW6
        if (word >> bit) & _ONE == 0:
            return -1
        below = word & ((_ONE << bit) - _ONE)
        return block_rank[w // words_per_block] + np.int64(word_rank[w]) + np.int64(_popcount(below))
    b = np.int64(bucket)
    n = len(ids)
    pos = np.int64(directory[b >> shift])
    while pos < n and np.int64(ids[pos]) < b:
        pos += 1
    return pos if pos < n and np.int64(ids[pos]) == b else -1


@numba.njit(cache=True, nogil=True)
def _positions(n, at, bitmap, words, word_rank, block_rank, words_per_block, ids, directory, shift):
    """The hash buckets ``at[:n]`` replaced by their compact positions (:func:`_position`), the bitmap's words
    and ranks or the directory's slots asked for ahead."""
    for e in range(n):
        if e + _PREFETCH < n:
            ahead = at[e + _PREFETCH]
            if bitmap:
                _prefetch(words, ahead >> 6)
                _prefetch(word_rank, ahead >> 6)
            else:
                _prefetch(directory, ahead >> shift)
        at[e] = _position(
            np.uint64(at[e]), bitmap, words, word_rank, block_rank, words_per_block, ids, directory, shift
        )


@numba.njit(cache=True, nogil=True, inline="always")
def _ahead(Wp, Wm, at, e, n):
    """Ask for W+ and W- of the bucket ``_PREFETCH`` entries after entry ``e`` of ``at[:n]``."""
    if e + _PREFETCH < n and at[e + _PREFETCH] >= 0:
        _prefetch(Wp, at[e + _PREFETCH])
        _prefetch(Wm, at[e + _PREFETCH])


@numba.njit(cache=True, nogil=True)
def _add_slice(n, at, value, minus, before, Wp, Wm, gain, stored, block_max, block_stale, block, exact):
    """``PairBooster._add`` of the slice's ``n`` entries: compact buckets ``at`` (-1: skipped), their sums and
    signs; ``before`` is scratch for their gains before the slice."""
    for e in range(n):
        _ahead(Wp, Wm, at, e, n)
        c = at[e]
        if c >= 0:
            before[e] = gain[c] if stored else _gain(Wp[c], Wm[c], exact)
    for e in range(n):
        _ahead(Wp, Wm, at, e, n)
        c = at[e]
        if c < 0:
            continue
        if minus[e]:
            Wm[c] += value[e]
        else:
            Wp[c] += value[e]
    for e in range(n):
        if e + _PREFETCH < n and at[e + _PREFETCH] >= 0:
            _prefetch(block_max, at[e + _PREFETCH] // block)
        c = at[e]
        if c < 0:
            continue
        g = _gain(Wp[c], Wm[c], exact)
        if stored:
            gain[c] = g
        j = c // block
        if g < before[e]:
            block_stale[j] = True
        if g > block_max[j]:
            block_max[j] = g


@numba.njit(cache=True, nogil=True)
def product_round(
    rows,
    change,
    query,
    qptr,
    qsrc,
    qdata,
    pos,
    neg,
    d_ptr,
    d_idx,
    d_data,
    src_hash,
    tgt_hash,
    seed,
    mask,
    bitmap,
    words,
    word_rank,
    block_rank,
    words_per_block,
    ids,
    directory,
    shift,
    Wp,
    Wm,
    gain,
    stored,
    block_max,
    block_stale,
    block,
    exact,
    n_sources,
    sums,
    following,
    at,
    value,
    minus,
    before,
):
    """One chunk of a round (the tuples ``rows``, ascending, weighted by ``change``) added to ``Wp``/``Wm``: see
    the module's docstring. ``query``, ``qptr``, ``qsrc``, ``qdata``: each tuple's query and ``Qm``'s CSR arrays;
    ``pos``, ``neg``: each tuple's documents and ``d_*`` ``Dm``'s canonical CSR arrays; ``seed``, ``mask``: the
    pair hash's seed and the bucket mask (uint64); ``gain`` the stored gains when ``stored``; ``sums`` (0.0) and
    ``following`` (-1), ``2 T`` entries each, hold a row and are left as found; ``at``, ``value``, ``minus``,
    ``before``: scratch of one slice (its size)."""
    start, entry_row, entry_a = _by_source(query, qptr, qsrc, rows, n_sources)
    dptr, dcol, dval = tuple_deltas(pos[rows], neg[rows], d_ptr, d_idx, d_data)
    slice_size = len(at)
    n = 0
    for i in range(n_sources):
        if start[i] == start[i + 1]:
            continue
        head, length = -2, 0
        for k in range(start[i], start[i + 1]):
            r = entry_row[k]
            qv = qdata[qptr[query[rows[r]]] + entry_a[k]]
            v = change[r]
            for e in range(dptr[r], dptr[r + 1]):
                x = dval[e]
                col = 2 * np.int64(dcol[e])
                if x < 0.0:
                    col += 1
                sums[col] += qv * (v * abs(x))
                if following[col] == -1:
                    following[col] = head
                    head = col
                    length += 1
        hs = np.uint64(src_hash[i])
        for _ in range(length):
            col = head
            s = sums[col]
            if s != 0.0:
                at[n] = np.int64(_murmur_pair(hs, np.uint64(tgt_hash[col >> 1]), seed) & mask)
                value[n] = s
                minus[n] = col & 1
                n += 1
                if n == slice_size:
                    _positions(n, at, bitmap, words, word_rank, block_rank, words_per_block, ids, directory, shift)
                    _add_slice(n, at, value, minus, before, Wp, Wm, gain, stored, block_max, block_stale, block, exact)
                    n = 0
            head = following[col]
            following[col] = -1
            sums[col] = 0.0
    if n:
        _positions(n, at, bitmap, words, word_rank, block_rank, words_per_block, ids, directory, shift)
        _add_slice(n, at, value, minus, before, Wp, Wm, gain, stored, block_max, block_stale, block, exact)
