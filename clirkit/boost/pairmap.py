"""Each tuple's pairs mapped once to their buckets, so a boosting round adds up its pairs without a hash.

A round of :class:`~clirkit.boost.rounds.PairBooster` corrects W+/W- over the pairs of the tuples whose weight
changed. Made from the matrices, that is a sparse product ``Qt^T diag(change) Delta``, then a hash and a bucket
look-up for every pair it lists, every round. :class:`PairMap` does the part that does not depend on the weights
once, for a set of tuples (all the betas of a ranker boosted from a base boost the same tuples):

- ``Delta`` of every tuple: the target n-grams j where d+ and d- differ (``dcol``, ``dval = d+_j - d-_j``, in the
  product's order), each also named by its position ``du`` in its query's target list (the sorted target
  n-grams of the deltas of all that query's tuples);
- a table per query: ``code[qb[q] + a * nu[q] + u]`` names the pair (the query's a-th source n-gram, the u-th
  n-gram of its target list) by its bucket: the first pair of bucket k (in key order) is code k, and the few
  others of buckets of two pairs or more come after the buckets (:meth:`PairMap.coded`).

A round (:func:`clirkit.boost.kernels.round_update`, compiled) then makes the product as scipy makes it, source
after source in a dense row, a column's sum from 0 over the tuples in ascending order, and adds each sum to its
bucket, found in the table: the same additions in the same order, so the same W+/W-, gains and models.
:meth:`PairMap.code_sums` makes every pair's sums for the set-up; :meth:`PairMap.round_sums` is a round's sums
with numpy (used only if numba fails to compile the loops).

The map of the demo's PSQ-Boost (867 k tuples, 17.6 M delta entries, 7.4 M pairs) takes about 0.4 GB and 2.5 s,
once for its 4 betas; a set of tuples whose pair occurrences may exceed :data:`MAP_LIMIT` (the standalone bigram
model) is boosted from the matrices (:meth:`PairMap.build` gives None), as are all where numba is not installed
(:func:`mapped`: numpy's rounds from the map are no faster than from the product).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from clirkit import jit
from clirkit.boost.tuples import Tuples

MAP_LIMIT = 1 << 28  # at most this many pair occurrences (sum over tuples of |q| x |d+ u d-|) to map the pairs
MAP_DELTAS = 1 << 25  # ... and this many entries of the tuples' differences (16 bytes each in the map)
MAP_PAIRS = 1 << 24  # ... and this many distinct pairs (the map's coding and W+/W-: about 60 bytes a pair)
_BLOCK_ENTRIES = 1 << 22  # keys sorted at a time while the map is made
COMPILED = jit.Kernels("clirkit.boost.kernels", "boosting rounds add with numpy, the same models")  # .off: numpy
_MAPPED = None  # None: the pairs are mapped where the rounds are compiled; True / False: always / never (tests)


def kernels():
    """:mod:`clirkit.boost.kernels`, or None without numba, with ``CLIRKIT_NUMBA=0`` or after numba failed
    (imported once, on first use: :func:`clirkit.jit.kernels`)."""
    return COMPILED.kernels()


def mapped() -> bool:
    """Whether boosting maps the pairs (:class:`PairMap`): where numba compiles the rounds (numpy's rounds
    from the map are no faster than from the product, and the map costs memory)."""
    return kernels() is not None if _MAPPED is None else _MAPPED


def call(name: str, *args) -> tuple[bool, object]:
    """``(True, kernels().name(*args))``, or ``(False, None)``: no kernel, or numba failed to compile it (said
    once; numpy then does this work and every later call's, to the same bits)."""
    return COMPILED.call(name, *args)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])`` (int64), vectorized."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total, dtype=np.int64)


def _blocks(counts: np.ndarray, size: int) -> list[tuple[int, int]]:
    """Consecutive ``(a, b)`` ranges of ``counts`` whose sums are about ``size`` (at least one item each)."""
    ends = np.cumsum(counts)
    bounds = [0]
    while bounds[-1] < len(counts):
        a = bounds[-1]
        before = int(ends[a - 1]) if a else 0
        bounds.append(max(a + 1, int(np.searchsorted(ends, before + size, side="right"))))
    return list(zip(bounds[:-1], bounds[1:]))


@dataclass(eq=False)
class PairMap:
    """The pairs of a set of tuples, mapped once (see the module's docstring).

    Attributes:
        query: each tuple's query row (int64, ascending); qptr, qsrc: ``Qm``'s indptr and indices (query q's
            source n-grams are ``qsrc[qptr[q]:qptr[q + 1]]``).
        dptr: tuple t's delta entries are ``dptr[t]:dptr[t + 1]``; dcol (int32): each entry's target n-gram j,
            du (int32) its position in its query's target list; dval: ``d+_j - d-_j`` (float64, non-zero).
        qb, nu: query q's table starts at ``qb[q]`` and its target list holds ``nu[q]`` n-grams (int64).
        code: the table (int32): each entry's pair id (key order) as made; once :meth:`coded`, its code (``-1 -
            code`` for a pair of a bucket of several pairs).
        src_ptr, tgt: the distinct pairs in key order (source s holds pair ids ``src_ptr[s]:src_ptr[s + 1]``,
            ``tgt`` their target ids), until :meth:`coded`.
        n_pairs, n_sources, n_targets: how many distinct pairs, source and target n-grams.
        n_buckets, extra_bucket, extra_pos, shared, order_code: set by :meth:`coded` (see there).
    """

    query: np.ndarray
    qptr: np.ndarray
    qsrc: np.ndarray
    dptr: np.ndarray
    dcol: np.ndarray
    du: np.ndarray
    dval: np.ndarray
    qb: np.ndarray
    nu: np.ndarray
    code: np.ndarray
    src_ptr: np.ndarray | None
    tgt: np.ndarray | None
    n_pairs: int
    n_sources: int
    n_targets: int
    n_buckets: int = 0
    extra_bucket: np.ndarray | None = None
    extra_pos: np.ndarray | None = None
    shared: np.ndarray | None = None
    order_code: np.ndarray | None = None
    groups: object = None  # the pairs' grouping by bucket (rounds.PairGroups), kept with the map

    @classmethod
    def build(cls, Qm: sp.csr_matrix, Dm: sp.csr_matrix, tuples: Tuples, *, limit: int = MAP_LIMIT) -> "PairMap | None":
        """The map of ``tuples`` (sorted by query) over ``Qm`` (queries x S) and ``Dm`` (documents x T, CSR),
        its table holding pair ids; None when their pair occurrences may exceed ``limit``."""
        qlen, dlen = np.diff(Qm.indptr), np.diff(Dm.indptr)
        T = Dm.shape[1]
        bound = int(
            np.dot(qlen[tuples.query].astype(np.float64), (dlen[tuples.pos] + dlen[tuples.neg]).astype(np.float64))
        )
        if bound > limit or T >= 2**31 or len(tuples) == 0:
            return None
        if int(dlen[tuples.pos].sum() + dlen[tuples.neg].sum()) > MAP_DELTAS:
            return None
        delta = _deltas(Dm, tuples)
        dptr = delta.indptr.astype(np.int64)
        n_queries = Qm.shape[0]
        qbound = np.searchsorted(tuples.query, np.arange(n_queries + 1))
        qptr, qsrc = Qm.indptr.astype(np.int64), Qm.indices.astype(np.int64)
        dcol = delta.indices.astype(np.int32, copy=False)
        dval = delta.data.astype(np.float64, copy=False)
        found = _compiled_table(qbound, dptr, dcol, qptr, qsrc, qlen, Qm.shape[1], T)
        if found is not None:
            du, nu, qb, table, src_ptr, tgt = found
            return cls(
                np.asarray(tuples.query, dtype=np.int64),
                qptr,
                qsrc,
                dptr,
                dcol,
                du,
                dval,
                qb[:-1],
                nu,
                table,
                src_ptr,
                tgt,
                len(tgt),
                Qm.shape[1],
                T,
            )
        # each query's target list: the distinct target n-grams of its tuples' deltas (tuples come by query)
        du = np.empty(delta.nnz, dtype=np.int32)
        targets, nu = [], np.zeros(n_queries, dtype=np.int64)
        for a, b in _blocks(np.diff(dptr[qbound]), _BLOCK_ENTRIES):  # queries a:b
            lo, hi = int(dptr[qbound[a]]), int(dptr[qbound[b]])
            owner = np.repeat(tuples.query[qbound[a] : qbound[b]], np.diff(dptr[qbound[a] : qbound[b] + 1]))
            keys, inverse = np.unique(owner * T + delta.indices[lo:hi], return_inverse=True)
            starts = np.searchsorted(keys, np.arange(a, b + 1, dtype=np.int64) * T)
            du[lo:hi] = inverse.ravel() - starts[owner - a]
            nu[a:b] = np.diff(starts)
            targets.append((keys % T).astype(np.int32))
        targets = np.concatenate(targets) if targets else np.zeros(0, dtype=np.int32)
        ustart = np.zeros(n_queries + 1, dtype=np.int64)
        np.cumsum(nu, out=ustart[1:])
        qb = np.zeros(n_queries + 1, dtype=np.int64)
        np.cumsum(qlen * nu, out=qb[1:])
        src_ptr, tgt, table = _pair_table(Qm, T, targets, ustart, nu, qb)
        return cls(
            np.asarray(tuples.query, dtype=np.int64),
            qptr,
            qsrc,
            dptr,
            dcol,
            du,
            dval,
            qb[:-1],
            nu,
            table,
            src_ptr,
            tgt,
            len(tgt),
            Qm.shape[1],
            T,
        )

    def coded(self, order: np.ndarray, ptr: np.ndarray) -> None:
        """Number the pairs by bucket: ``keys[order]`` lists bucket k's pairs at ``ptr[k]:ptr[k + 1]`` (key order
        within a bucket). The first pair of bucket k gets code k, the others (``n_pairs - n_buckets`` of them,
        in buckets of two pairs or more) ``n_buckets + r`` in that order; ``extra_bucket[r]`` and
        ``extra_pos[r]`` are the bucket and the position in ``order`` of code ``n_buckets + r``, ``shared``
        (bool, a bucket) says which buckets hold more than one pair and ``order_code`` is the code at each
        position of ``order``. The table then holds the codes, ``-1 - code`` for a pair of a shared bucket (a
        round adds those in the product's order); ``src_ptr`` and ``tgt`` are let go."""
        nb = len(ptr) - 1
        sizes = np.diff(ptr)
        head = np.zeros(len(order), dtype=bool)
        head[ptr[:-1]] = True
        extra_pos = np.flatnonzero(~head)
        order_code = np.empty(len(order), dtype=self.code.dtype)
        order_code[ptr[:-1]] = np.arange(nb)
        order_code[extra_pos] = nb + np.arange(len(extra_pos))
        code_of_pair = np.empty(len(order), dtype=self.code.dtype)
        code_of_pair[order] = np.where(np.repeat(sizes > 1, sizes), -1 - order_code, order_code)
        for a in range(0, len(self.code), _BLOCK_ENTRIES):
            self.code[a : a + _BLOCK_ENTRIES] = code_of_pair[self.code[a : a + _BLOCK_ENTRIES]]
        del code_of_pair
        self.n_buckets = nb
        self.extra_pos = extra_pos
        self.extra_bucket = np.repeat(np.arange(nb, dtype=np.int64), sizes)[extra_pos]
        self.shared = sizes > 1
        self.order_code = order_code
        self.src_ptr = self.tgt = None

    def arrays(self) -> tuple:
        """The arrays of a round (:func:`clirkit.boost.kernels.round_update`), in its order."""
        return (self.query, self.qptr, self.qsrc, self.dptr, self.du, self.dcol, self.dval, self.qb, self.nu, self.code)

    def code_sums(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """W+ and W- of every pair, by code, with tuple weights ``weights``: the compiled product (source by source,
        :func:`clirkit.boost.kernels.code_sums`), or numpy's ``np.add.at`` over the occurrences listed tuple
        after tuple (the same additions in the same order)."""
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        wp, wm = np.zeros(self.n_pairs), np.zeros(self.n_pairs)
        if call("code_sums", *self.arrays(), weights, self.n_sources, self.n_targets, wp, wm)[0]:
            return wp, wm
        counts = (self.qptr[self.query + 1] - self.qptr[self.query]) * np.diff(self.dptr)
        for a, b in _blocks(counts, _BLOCK_ENTRIES):
            ids, values = self.occurrences(np.arange(a, b), weights[a:b])[:2]
            minus = (ids & 1).astype(bool)
            np.add.at(wp, ids[~minus] >> 1, values[~minus])
            np.add.at(wm, ids[minus] >> 1, values[minus])
        return wp, wm

    def occurrences(self, rows: np.ndarray, change: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair occurrence of the tuples ``rows`` (ascending) weighted by ``change``, tuple after tuple:
        ``(ids, values, entries)``, ids ``2 * code + (x < 0)``, values ``change[t] |x_j(t)|``, entries the delta
        entry of each."""
        q = self.query[rows]
        nq = self.qptr[q + 1] - self.qptr[q]
        d0 = self.dptr[rows]
        ta = np.repeat(np.arange(len(rows)), nq)  # (tuple, source) pairs
        a = np.arange(len(ta)) - np.repeat(np.cumsum(nq) - nq, nq)
        base = self.qb[q[ta]] + a * self.nu[q[ta]]
        cnt = (self.dptr[rows + 1] - d0)[ta]
        occ = np.repeat(np.arange(len(ta)), cnt)
        e = _ranges(d0[ta], cnt)
        x = self.dval[e]
        code = self.code[base[occ] + self.du[e]].astype(np.int64)
        ids = 2 * np.where(code < 0, -1 - code, code) + (x < 0)
        return ids, change[ta[occ]] * np.abs(x), e

    def round_sums(self, rows: np.ndarray, change: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs of the tuples ``rows`` (ascending) weighted by ``change``, with numpy: ``(ids, sums, first)``.

        ``ids`` are ``2 * code + (x < 0)`` (W+ or W-), each once (ascending), ``sums`` the sum over the tuples of
        ``change[t] |x_j(t)|`` in ascending order from 0 (the product's entry), ``first`` the delta entry (an
        index into ``dval``) that first has it: the product lists a source's pairs in descending order of it.
        The occurrences are grouped by id with one sort of ``(id, position)`` and each group summed in its
        positions' order (``np.bincount``).
        """
        ids, values, e = self.occurrences(rows, change)
        n = len(ids)
        if n == 0:
            return ids, values, ids
        shift = max(1, n.bit_length())
        keys = (ids << shift) | np.arange(n, dtype=np.int64)
        keys.sort()
        pos = keys & ((1 << shift) - 1)
        keys >>= shift
        new = np.empty(n, dtype=bool)
        new[0] = True
        np.not_equal(keys[1:], keys[:-1], out=new[1:])
        group = np.empty(n, dtype=np.int64)
        group[pos] = np.cumsum(new) - 1
        return keys[new], np.bincount(group, values), e[pos[new]]


def _deltas(Dm: sp.csr_matrix, tuples: Tuples) -> sp.csr_matrix:
    """``Dm[pos] - Dm[neg]`` of every tuple without its zeros, as :meth:`PairBooster._delta` makes it row by row
    (compiled where numba is and ``Dm`` is canonical: the same rows)."""
    if Dm.has_canonical_format:
        rows = (tuples.pos, tuples.neg, *map(_read_only, (Dm.indptr, Dm.indices, Dm.data)))
        done, ptr = call("tuple_delta_ptr", *rows)
        if done:
            cols, values = np.empty(int(ptr[-1]), Dm.indices.dtype), np.empty(int(ptr[-1]))
            if call("tuple_delta_entries", *rows, ptr, cols, values)[0]:
                return sp.csr_matrix((values, cols, ptr), shape=(len(tuples), Dm.shape[1]))
    delta = (Dm[tuples.pos] - Dm[tuples.neg]).tocsr()
    delta.eliminate_zeros()
    return delta


def _read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array``: numba compiles a kernel apart for read-only arrays, which a worker's
    memory-mapped large ones are and its small ones are not; given views alike, it compiles one
    (:func:`clirkit.boost.bagging.warm_kernels` then reads it from its cache before the worker's first bag)."""
    view = array.view()
    view.flags.writeable = False
    return view


def _compiled_table(
    qbound: np.ndarray,
    dptr: np.ndarray,
    dcol: np.ndarray,
    qptr: np.ndarray,
    qsrc: np.ndarray,
    qlen: np.ndarray,
    n_sources: int,
    n_targets: int,
) -> tuple | None:
    """``(du, nu, qb, table, src_ptr, tgt)`` of :meth:`PairMap.build` by the compiled loops
    (:func:`~clirkit.boost.kernels.target_lists`, :func:`~clirkit.boost.kernels.pair_ids`) into arrays numpy
    allocates (a large one in huge pages: a few page faults where numba's memory took one every 4 KiB); None
    without them. The table is int32 when its ids fit."""
    du, targets = np.empty(len(dcol), np.int32), np.empty(len(dcol), np.int32)
    done, lists = call("target_lists", qbound, dptr, dcol, n_targets, du, targets)
    if not done:
        return None
    nu, uptr = lists
    qb = np.zeros(len(nu) + 1, dtype=np.int64)
    np.cumsum(qlen * nu, out=qb[1:])
    size = int(qb[-1])
    table = np.empty(size, np.int32 if size < 2**31 else np.int64)
    tgt = np.empty(size, np.int32)
    done, src_ptr = call("pair_ids", qb, uptr, nu, targets, qptr, qsrc, n_sources, n_targets, table, tgt)
    if not done:
        return None
    return du, nu, qb, table, src_ptr, tgt[: int(src_ptr[-1])].copy()


def _pair_table(
    Qm: sp.csr_matrix, T: int, targets: np.ndarray, ustart: np.ndarray, nu: np.ndarray, qb: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(src_ptr, tgt, qpid)``: the distinct pairs (source, u-th target of a query of that source) in key
    order, and each table entry's pair id. Made a block of source n-grams at a time (a source's pairs are all
    in its block), each block's keys sorted once."""
    S = Qm.shape[1]
    # the (query, a) entries of Qm by source: CSC of each entry's CSR position
    at = sp.csr_matrix((np.arange(Qm.nnz, dtype=np.int64), Qm.indices, Qm.indptr), shape=Qm.shape).tocsc()
    at.sort_indices()
    entry_query = np.repeat(np.arange(Qm.shape[0], dtype=np.int64), np.diff(Qm.indptr))
    per_entry = nu[entry_query]  # table entries of each (query, a)
    per_source = np.bincount(Qm.indices, weights=per_entry, minlength=S).astype(np.int64)
    qpid = np.empty(int(qb[-1]), dtype=np.int32 if per_source.sum() < 2**31 else np.int64)
    tgt_l, counts = [], np.zeros(S, dtype=np.int64)
    n_pairs = 0
    for a, b in _blocks(per_source, _BLOCK_ENTRIES):  # sources a:b
        entries = at.data[at.indptr[a] : at.indptr[b]]  # CSR positions, by source then query
        q = entry_query[entries]
        src = np.repeat(np.arange(a, b, dtype=np.int64), np.diff(at.indptr[a : b + 1]))
        k = nu[q]
        slots = _ranges(qb[q] + (entries - Qm.indptr[q]) * k, k)  # where each key's pair id goes
        keys = np.repeat(src * T, k) + targets[_ranges(ustart[q], k)]
        del entries, src
        uniq, inverse = np.unique(keys, return_inverse=True)
        del keys
        qpid[slots] = inverse.ravel() + n_pairs
        counts[a:b] = np.bincount(uniq // T - a, minlength=b - a)
        tgt_l.append((uniq % T).astype(np.int32))
        n_pairs += len(uniq)
    src_ptr = np.zeros(S + 1, dtype=np.int64)
    np.cumsum(counts, out=src_ptr[1:])
    return src_ptr, np.concatenate(tgt_l) if tgt_l else np.zeros(0, dtype=np.int32), qpid


def round_lists(n: int) -> tuple:
    """The compiled round's lists, ``n`` entries each (:func:`clirkit.boost.kernels.round_update`)."""
    return np.empty(n, np.int64), np.empty(n), np.empty(n), np.empty(n, np.int64), np.empty(n)
