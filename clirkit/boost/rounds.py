"""RankBoost rounds over hashed bilingual n-gram pairs (SPEC §5).

Inputs are matrices, not texts: ``Qm`` (queries x S source n-grams, binary
CSR), ``Dm`` (documents x T target n-grams, CSR: binary as in the paper, or
weights in (0, 1], see :mod:`clirkit.boost.weighting`) and :class:`Tuples`.
For a tuple t, Qt[t] is its query's row and Delta+[t] / Delta-[t] are the target
n-grams only in d+ / only in d-. With normalized tuple weights w, the pair
statistics are the entries of the S x T products

    W+_pair = Qt^T diag(w) Delta+        W-_pair = Qt^T diag(w) Delta-

summed into the pair's hash bucket k: W+_k, W-_k. The tuple x feature matrix
is never built: the initial products are taken in blocks of source n-grams,
later corrections over the changed tuples only. A bucket's weak
learner is h_k(q, d) = sum of q_i d_j over the training pairs (i, j) hashed
into k (the hashing trick: colliding pairs add up), so x_k(t) = h_k(q, d+) -
h_k(q, d-) is -1, 0 or +1 unless pairs collide inside one tuple.

After bucket k is chosen with step alpha, only the tuples with x_k(t) != 0
change weight, w_t <- w_t exp(-alpha x_k(t)); the statistics of exactly the
pairs of those tuples are corrected by subtracting their old and adding their
new contributions (the slides' trick, after Collins & Koo 2005), then all
weights are renormalized to sum 1.

Only buckets that hold at least one training pair are kept (compact arrays indexed by the sorted bucket ids,
:class:`BucketIndex`; the pairs grouped by bucket in :mod:`clirkit.boost.pairgroups`), so memory grows with the
distinct pairs, not with 2**bits; past 2^25 pair occurrences the pairs are streamed, not kept
(:mod:`clirkit.boost.statistics`, :mod:`clirkit.boost.streamed`), and memory grows with the buckets only, at most
``max_buckets`` of them (:mod:`clirkit.boost.budget`). The argmax over buckets reads per-block upper bounds
refreshed lazily; the gain and step of a bucket are :mod:`clirkit.boost.rules`'. Where numba is installed and the
pair occurrences are at most :data:`~clirkit.boost.pairmap.MAP_LIMIT`, each tuple's pairs are mapped once to their
buckets
(:class:`~clirkit.boost.pairmap.PairMap`) and a round is one compiled loop
(:func:`clirkit.boost.kernels.round_update`); past that, a round is made from the documents' rows by one compiled
loop too (:func:`clirkit.boost.productkernels.product_round`, a row of the product at a time): the same additions
in the same order, so the same models.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.sparse as sp

from clirkit.boost import pairmap
from clirkit.boost.buckets import BucketBitmap, BucketIndex
from clirkit.boost.budget import MAX_BUCKETS, Dropped
from clirkit.boost.features import pair_buckets
from clirkit.boost.pairgroups import (
    _HASH_SLICE,
    PairCache,
    PairGroups,
    _concat_ranges,
    _segment_sums,
    _sources,
    mapped_pairs,
    pair_stats,
)
from clirkit.boost.pairmap import PairMap, round_lists
from clirkit.boost.productround import ProductRound
from clirkit.boost.result import BoostResult
from clirkit.boost.rules import RULES, gains, step
from clirkit.boost.statistics import grouped_statistics, streamed_statistics, streams
from clirkit.boost.streamed import BucketPairs, ProductBlocks, stream_buckets, stream_sums
from clirkit.boost.tuples import Tuples
from clirkit.sortedunique import sorted_unique

_PAIRS_PER_CHUNK = 20_000_000  # pair occurrences per sparse product when computing statistics
_BLOCK = 2048  # buckets per block of the block-maximum index used by choose()
# entries of the tuples' document rows up to which their differences are kept for the rounds (<= 400 MB), when
# the distinct pairs are at most _SIDE_BY_SIDE too (past it, the set-up's peak is still ahead: freed before it)
_KEPT_DIFFS = 1 << 25
_SIDE_BY_SIDE = 1 << 25  # buckets up to which W+ and W- share rows (512 MB; the standalone bigram's 10^8 do not)
_ENTRIES_PER_SLICE = 1 << 20  # product entries hashed and added at a time in a round (bounds its temporaries)
_WSUM_RANGE = (1e-150, 1e150)  # the weights and statistics are divided by their sum when it leaves this range


class PairBooster:
    """Boosting state over one set of tuples.

    Args:
        Qm: queries x S binary CSR (rows indexed by ``tuples.query``).
        Dm: documents x T CSR, binary or with weights in (0, 1] (rows indexed by ``tuples.pos``/``tuples.neg``).
        tuples: the training tuples, sorted by query.
        src_hash, tgt_hash: uint32 MurmurHash3 of each source / target n-gram string.
        hash_seed, bits: pair hashing parameters (buckets in ``[0, 2**bits)``).
        rule: ``"exact"`` or ``"r"`` (SPEC §5).
        eps: smoothing of the exact step (default 1 / number of tuples); for
            the r rule |r| is clipped to ``1 - eps`` so steps stay finite.
        cache: a :class:`PairCache` to take the grouping of the pairs by bucket from, when these tuples were
            boosted before with other weights, and to leave it in otherwise.
        max_buckets: the most buckets with W+/W- (None: every non-empty one); past it, the buckets of most pair
            occurrences (:mod:`clirkit.boost.budget`), the others' pairs left out (``dropped`` says how many).

    Past :data:`~clirkit.boost.statistics.GROUPED_LIMIT` pair occurrences the pairs are not kept but streamed
    (:mod:`clirkit.boost.streamed`; ``pair_keys``, ``bucket_ids`` and ``bucket_ptr`` are then None and
    :meth:`pairs_of` inverts the hash), so the memory is W+/W- and a bit per hash bucket whatever the number of
    pairs: the same statistics, the same rounds.
    """

    def __init__(
        self,
        Qm: sp.csr_matrix,
        Dm: sp.csr_matrix,
        tuples: Tuples,
        *,
        src_hash: np.ndarray,
        tgt_hash: np.ndarray,
        hash_seed: int = 0,
        bits: int = 30,
        rule: str = "exact",
        eps: float | None = None,
        cache: "PairCache | None" = None,
        max_buckets: int | None = MAX_BUCKETS,
    ) -> None:
        if rule not in RULES:
            raise ValueError(f"unknown step rule {rule!r}; choose one of {RULES}")
        if len(tuples) == 0:
            raise ValueError("no training tuples")
        if np.any(np.diff(tuples.query) < 0):
            raise ValueError("tuples must be sorted by query")
        self.Qm = sp.csr_matrix(Qm, dtype=np.float64)
        self.Dm = sp.csr_matrix(Dm, dtype=np.float64)
        self.tuples = tuples
        self.rule = rule
        self.n = len(tuples)
        self.eps = 1.0 / self.n if eps is None else float(eps)
        self.T = self.Dm.shape[1]
        self.Qcsc = self.Qm.tocsc()
        self.Dcsc = self.Dm.tocsc()
        self.qptr = np.searchsorted(tuples.query, np.arange(self.Qm.shape[0] + 1)).astype(np.int64)
        self._docval = np.zeros(self.Dm.shape[0])  # one target n-gram's document values, scattered
        self._cost: np.ndarray | None = None  # each tuple's pair occurrences at most (_chunks)
        # every tuple's |d+ - d-| in its sign's column (Delta's pattern, see _delta) when small: a round takes rows
        self._signed: sp.csr_matrix | None = None
        self.binary = bool(np.all(self.Dm.data == 1.0))
        self.D = tuples.weight.astype(np.float64)
        self.w = self.D / self.D.sum()
        self.margin = np.zeros(self.n)
        self.loss = 1.0  # sum D exp(-margin) / sum D

        self.src_hash, self.tgt_hash = src_hash, tgt_hash
        self.hash_seed, self.bits, self.max_buckets = hash_seed, bits, max_buckets
        self.dropped: Dropped | None = None  # what max_buckets left out
        self._partial = False  # whether a product entry's bucket may have no statistics (then skipped)
        self._finder: BucketPairs | None = None  # streamed: a bucket's pairs from its id
        self._found: tuple[int, tuple[np.ndarray, np.ndarray]] | None = None  # the last bucket's pairs
        self._product: ProductRound | bool | None = None  # the compiled product round (False: none here)
        # a bucket's gain is computed from its W+/W- where it is read (8 bytes a bucket less); stored only after a
        # renormalization (see update), where the stored gains divided by the sum are not the sums' gains, or
        # from the start beside W+/W- when the pairs are mapped (the same values)
        self._gain: np.ndarray | None = None
        # each array is freed as soon as what it makes is made (the standalone bigram model has ~10^8 pairs)
        self._map = self._pair_map(cache)
        if self._map is not None:
            self._mapped_statistics()
        if self._map is None and not (streams(self) and streamed_statistics(self, cache, _SIDE_BY_SIDE)):
            grouped_statistics(self, cache, _SIDE_BY_SIDE)
        self.wsum = 1.0  # true weights / statistics = stored ones / wsum
        self._block_max = self._gain_maxima()
        self._block_stale = np.zeros(len(self._block_max), dtype=bool)

    def _mapped_statistics(self) -> None:
        """W+, W- and the gain of every bucket, from the pair map's sums (:meth:`PairMap.code_sums`), side by side
        in the rows of ``_W`` (32 bytes, so a round reads and writes a bucket in one cache line; ``Wp``, ``Wm``
        and the stored gains ``_gain`` are its columns); the map is let go when a pair's sums are both 0 (the
        product would not list it: only an underflow of the positive weights could do that)."""
        m = self._map
        wp, wm = m.code_sums(self.w)
        if np.any((wp == 0) & (wm == 0)):
            self._map = None
            return
        groups = m.groups
        ptr = groups.bucket_ptr
        nb = len(ptr) - 1
        self._W = np.zeros((nb, 4))
        self._W[:, 0] = _segment_sums(wp, m.order_code, ptr)
        del wp
        self._W[:, 1] = _segment_sums(wm, m.order_code, ptr)
        del wm
        self.Wp, self.Wm, self._gain = self._W[:, 0], self._W[:, 1], self._W[:, 2]
        for a in range(0, nb, _HASH_SLICE):
            self._gain[a : a + _HASH_SLICE] = self._gains(self.Wp[a : a + _HASH_SLICE], self.Wm[a : a + _HASH_SLICE])
        # the compiled round's dense row of the product (sums, first delta entries, codes, columns) and its lists
        self._row = (
            np.zeros(2 * self.T),
            np.full(2 * self.T, -1, dtype=np.int64),
            np.zeros(2 * self.T, np.int64),
            np.zeros(2 * self.T, np.int64),
        )
        self._lists = round_lists(1 << 16)
        self._groups(groups)

    def _groups(self, groups: PairGroups) -> None:
        self.pair_keys, self.bucket_ids, self.bucket_ptr = groups.pair_keys, groups.bucket_ids, groups.bucket_ptr
        self.index: BucketIndex | BucketBitmap = groups.index
        self.n_pairs, self.n_buckets = len(groups.pair_keys), len(groups.bucket_ids)
        self.dropped, self._partial = groups.dropped, groups.dropped is not None

    def _pair_map(self, cache: "PairCache | None") -> PairMap | None:
        """The tuples' pairs mapped once and grouped by bucket (:func:`mapped_pairs`), from ``cache`` when it has
        them; None when the rounds are not compiled (numba), or when there may be more than
        :data:`~clirkit.boost.pairmap.MAP_LIMIT` pair occurrences."""
        if not pairmap.mapped():
            return None
        args = (self.Qm, self.Dm, self.tuples, self.src_hash, self.tgt_hash, self.hash_seed, self.bits)
        if cache is not None:
            return cache.pair_map(*args, budget=self.max_buckets)
        return mapped_pairs(*args, budget=self.max_buckets)

    # -- statistics -------------------------------------------------------------------------------

    def _cost_bound(self) -> int:
        """The entries of every tuple's d+ and d- rows (a bound on the entries of their differences)."""
        d_nnz = np.diff(self.Dm.indptr)
        return int(d_nnz[self.tuples.pos].sum() + d_nnz[self.tuples.neg].sum())

    def _chunks(self, rows: np.ndarray):
        """Slices of ``rows`` whose tuples hold about ``_PAIRS_PER_CHUNK`` pair occurrences each (one slice, the
        rounds' usual case, found from the total alone)."""
        if self._cost is None:  # each tuple's bound: |q| x (|d+| + |d-|)
            q_nnz, d_nnz = np.diff(self.Qm.indptr), np.diff(self.Dm.indptr)
            self._cost = q_nnz[self.tuples.query] * (d_nnz[self.tuples.pos] + d_nnz[self.tuples.neg])
        cost = self._cost[rows]
        if len(rows) and int(cost.sum()) <= _PAIRS_PER_CHUNK:
            yield slice(0, len(rows))
            return
        cost = np.cumsum(cost)
        cuts = np.searchsorted(cost, np.arange(_PAIRS_PER_CHUNK, cost[-1] if len(cost) else 0, _PAIRS_PER_CHUNK))
        bounds = sorted_unique(np.concatenate(([0], cuts, [len(rows)])))
        for a, b in zip(bounds[:-1], bounds[1:]):
            yield slice(int(a), int(b))

    def _delta(self, rows: np.ndarray, v: np.ndarray) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """Qt (tuples ``rows`` x S) and Delta (tuples x 2T) of the tuples ``rows``.

        Delta interleaves the signs: column 2j holds v_t |x_j(t)| where x_j(t) =
        d+_j - d-_j > 0, column 2j + 1 where it is < 0 (|x| = 1 for binary
        documents). With this order a row-sorted product Qt^T Delta lists W+ and
        W- of a pair side by side.
        """
        t = self.tuples
        if self._signed is not None:
            signed = self._signed[rows]
        else:
            diff = (self.Dm[t.pos[rows]] - self.Dm[t.neg[rows]]).tocsr()
            diff.eliminate_zeros()
            signed = sp.csr_matrix(
                (np.abs(diff.data), 2 * diff.indices + (diff.data < 0), diff.indptr), shape=(len(rows), 2 * self.T)
            )
            del diff
            if len(rows) == self.n and self._cost_bound() <= _KEPT_DIFFS:  # the set-up's: kept for the rounds
                self._signed = signed
        values = np.repeat(np.asarray(v, dtype=np.float64), np.diff(signed.indptr))
        if not self.binary:
            values *= signed.data
        delta = sp.csr_matrix((values, signed.indices, signed.indptr), shape=(len(rows), 2 * self.T))
        return self.Qm[t.query[rows]], delta

    def _chunk_products(self, rows: np.ndarray, v: np.ndarray):
        """(source ids, target ids, values, is_plus) of the pairs of the tuples ``rows`` weighted by ``v``, in
        slices of at most ``_ENTRIES_PER_SLICE`` pairs (the product's order, one after the other).

        An entry adds ``value`` to W+ of the pair when ``is_plus`` and to W-
        otherwise. A pair appears at most once per sign.
        """
        Qt, delta = self._delta(rows, v)
        prod = Qt.T.tocsr() @ delta
        del Qt, delta
        for a in range(0, prod.nnz, _ENTRIES_PER_SLICE):
            b = min(a + _ENTRIES_PER_SLICE, prod.nnz)
            first, last = np.searchsorted(prod.indptr, [a, b - 1], side="right") - 1  # the rows of entries a:b
            counts = np.diff(np.clip(prod.indptr[first : last + 2], a, b))
            src = np.repeat(np.arange(first, last + 1, dtype=np.int64), counts)
            col = prod.indices[a:b].astype(np.int64)
            yield src, col >> 1, prod.data[a:b], (col & 1) == 0

    def _compact_buckets(self, src: np.ndarray, tgt: np.ndarray) -> np.ndarray:
        """Compact bucket index of each training pair (source id, target id); -1 for a bucket left out."""
        ids = pair_buckets(self.src_hash, self.tgt_hash, src, tgt, seed=self.hash_seed, bits=self.bits)
        if self._partial and isinstance(self.index, BucketIndex):
            return self.index.find(ids)
        return self.index.lookup(ids)

    def _pair_stats(self, rows: np.ndarray, v: np.ndarray):
        """Pair statistics of tuples ``rows`` with weights ``v``: ``(src_ptr, tgt, W+, W-)``
        (:func:`~clirkit.boost.pairgroups.pair_stats` of their Qt and Delta)."""
        return pair_stats(lambda: self._delta(rows, v), self.T, _PAIRS_PER_CHUNK)

    def full_statistics(self) -> tuple[np.ndarray, np.ndarray]:
        """W+ and W- per kept bucket recomputed from scratch (stored units: divide by ``wsum`` for true values)."""
        nb = self.n_buckets
        if self._finder is not None:
            wp, wm = np.zeros(nb), np.zeros(nb)
            blocks, args = ProductBlocks(self.Qm, self.Dm, self.tuples), (self.src_hash, self.tgt_hash)
            found = stream_buckets(blocks, *args, self.hash_seed, self.bits, self.max_buckets)  # (shared let go)
            stream_sums(blocks, self.w, found, wp, wm, *args, self.hash_seed, self.bits)
            return wp, wm
        src_ptr, tgt, wp, wm = self._pair_stats(np.arange(self.n), self.w)
        cb = self._compact_buckets(_sources(src_ptr, 0, len(tgt)), tgt)
        kept = cb >= 0
        return np.bincount(cb[kept], wp[kept], minlength=nb), np.bincount(cb[kept], wm[kept], minlength=nb)

    # -- one round --------------------------------------------------------------------------------

    def _gains(self, wp: np.ndarray, wm: np.ndarray) -> np.ndarray:
        """Selection criterion of buckets with statistics wp, wm (:func:`~clirkit.boost.rules.gains`)."""
        return gains(self.rule, wp, wm)

    def _bucket_gains(self, a: int, b: int) -> np.ndarray:
        """Gains of compact buckets ``a:b`` (stored units): the stored ones after a renormalization, else made
        from W+ and W- (the same values: each is made by the same element-wise operations)."""
        if self._gain is not None:
            return self._gain[a:b]
        return self._gains(self.Wp[a:b], self.Wm[a:b])

    def _gain_maxima(self) -> np.ndarray:
        """The maximum gain of each block of ``_BLOCK`` buckets (the last one padded with -inf), a slice at a
        time (``_gains`` makes several temporaries)."""
        nb = len(self.Wp)
        n_blocks = -(-nb // _BLOCK)
        out = np.empty(n_blocks)
        step = max(1, _HASH_SLICE // _BLOCK)
        for c in range(0, n_blocks, step):
            d = min(c + step, n_blocks)
            gains = np.full((d - c) * _BLOCK, -np.inf)
            a, b = c * _BLOCK, min(d * _BLOCK, nb)
            gains[: b - a] = self._bucket_gains(a, b)
            out[c:d] = gains.reshape(d - c, _BLOCK).max(axis=1)
        return out

    @property
    def weights(self) -> np.ndarray:
        """Normalized tuple weights w_t (sum 1)."""
        return self.w / self.wsum

    def choose(self) -> tuple[int, float, float]:
        """The best bucket (compact index, lowest on ties), its step alpha and its gain under the rule.

        The argmax runs over a block-maximum index whose entries are upper bounds
        (a block whose gains may have dropped is marked stale): the top block is
        refreshed until it is exact, so a round costs O(blocks + block size) per
        refresh plus the buckets whose statistics changed. No bucket (max_df dropped every n-gram a tuple
        holds): ``(-1, 0.0, 0.0)``, a gain no round takes.
        """
        if len(self._block_max) == 0:
            return -1, 0.0, 0.0
        while True:
            block = int(np.argmax(self._block_max))
            if not self._block_stale[block]:
                break
            self._block_max[block] = self._bucket_gains(block * _BLOCK, (block + 1) * _BLOCK).max()
            self._block_stale[block] = False
        gains = self._bucket_gains(block * _BLOCK, (block + 1) * _BLOCK)
        j = int(np.argmax(gains))
        k = block * _BLOCK + j
        wp = max(float(self.Wp[k]), 0.0) / self.wsum
        wm = max(float(self.Wm[k]), 0.0) / self.wsum
        return k, step(self.rule, wp, wm, self.eps), float(gains[j] / self.wsum)

    def bucket_id(self, k: int) -> int:
        """The hash bucket of compact bucket ``k``."""
        return self.index.id_of(k) if self._finder is not None else int(self.bucket_ids[k])

    def pairs_of(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Source and target ids (int64) of the training pairs in compact bucket ``k``, in key order; streamed,
        found from the bucket's id (:class:`~clirkit.boost.streamed.BucketPairs`: each candidate pair that some
        tuple has)."""
        if self._finder is None:
            keys = self.pair_keys[self.bucket_ptr[k] : self.bucket_ptr[k + 1]]
            return keys // self.T, keys % self.T
        if self._found is None or self._found[0] != k:
            self._found = (k, self._finder.of(self.bucket_id(k), self._is_pair))
        return self._found[1]

    def _is_pair(self, i: int, j: int) -> bool:
        """Whether a tuple has source n-gram ``i`` in its query and target n-gram ``j`` in one of d+ and d-."""
        return len(self._pair_tuples(np.array([i], np.int64), np.array([j], np.int64))[0]) > 0

    def tuples_with(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Tuples t with x_k(t) != 0 (sorted) and their x_k(t) (float64); compiled where numba is."""
        return self._pair_tuples(*self.pairs_of(k))

    def _pair_tuples(self, src: np.ndarray, tgt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`tuples_with` of the pairs (``src``, ``tgt``)."""
        t = self.tuples
        if pairmap.kernels() is not None:
            i, j = src, tgt
            done, out = pairmap.call(
                "tuples_with",
                i,
                j,
                self.Qcsc.indptr,
                self.Qcsc.indices,
                self.qptr,
                self.Dcsc.indptr,
                self.Dcsc.indices,
                self.Dcsc.data,
                t.pos,
                t.neg,
                self._docval,
            )
            if done:
                return out
        ts_l, x_l = [], []
        for i, j in zip(src, tgt):
            queries = self.Qcsc.indices[self.Qcsc.indptr[i] : self.Qcsc.indptr[i + 1]]
            ts = _concat_ranges(self.qptr[queries], self.qptr[queries + 1])
            span = slice(self.Dcsc.indptr[j], self.Dcsc.indptr[j + 1])
            docs = self.Dcsc.indices[span]
            self._docval[docs] = self.Dcsc.data[span]
            x = self._docval[t.pos[ts]] - self._docval[t.neg[ts]]
            self._docval[docs] = 0.0
            nz = x != 0
            ts_l.append(ts[nz]), x_l.append(x[nz])
        ts = np.concatenate(ts_l)
        uniq, inv = np.unique(ts, return_inverse=True)
        x = np.bincount(inv, np.concatenate(x_l), minlength=len(uniq))
        nz = x != 0
        return uniq[nz], x[nz]

    def update(self, rows: np.ndarray, x: np.ndarray, alpha: float) -> None:
        """Apply step ``alpha`` to the tuples ``rows`` with feature values ``x``; correct W+/W- there.

        Weights and statistics are stored up to a common factor (``wsum``), so a
        round touches only the changed tuples and their pairs' buckets; a block
        whose gains rose takes the new maximum, one whose gains fell is marked
        stale for :meth:`choose` to refresh.
        """
        old = self.w[rows]
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow ends the boosting (loop.boost)
            new = old * np.exp(-alpha * x)
        self.margin[rows] += alpha * x
        if len(rows):
            change = new - old
            for sl in self._chunks(rows):  # the gains of a bucket met again in a later slice are recomputed there
                if self._map is not None:
                    self._add_mapped(rows[sl], change[sl])
                    continue
                if self._product_round(rows[sl], change[sl]):
                    continue
                for src, tgt, vals, is_plus in self._chunk_products(rows[sl], change[sl]):
                    self._add(src, tgt, vals, is_plus)
        self.w[rows] = new
        z = float(self.w.sum())
        self.loss *= z / self.wsum
        self.wsum = z
        if not _WSUM_RANGE[0] < z < _WSUM_RANGE[1] and np.isfinite(z):
            if self._gain is None:  # the gains divided by z, as they were before the gains were made on demand
                nb = len(self.Wp)
                self._gain = np.full(len(self._block_max) * _BLOCK, -np.inf)
                for a in range(0, nb, _HASH_SLICE):
                    b = min(a + _HASH_SLICE, nb)
                    self._gain[a:b] = self._gains(self.Wp[a:b], self.Wm[a:b])
            self.w /= z
            self.Wp /= z
            self.Wm /= z
            self._gain /= z
            self._block_max /= z
            self.wsum = 1.0

    def _product_round(self, rows: np.ndarray, change: np.ndarray) -> bool:
        """:meth:`_chunk_products` and :meth:`_add` of the tuples ``rows`` weighted by ``change`` (one chunk) in one
        compiled loop (:class:`~clirkit.boost.productround.ProductRound`: the same bits); False where it is not
        compiled (then numpy does it)."""
        if self._product is None:
            self._product = ProductRound.of(self, _ENTRIES_PER_SLICE)
        return self._product is not False and self._product.add(self, rows, change, _BLOCK)

    def _add(self, src: np.ndarray, tgt: np.ndarray, vals: np.ndarray, is_plus: np.ndarray) -> None:
        """Add the product entries to W+ and W- (in order) and refresh their buckets' gains and blocks."""
        cb = self._compact_buckets(src, tgt)
        if self._partial:  # the entries of buckets left out (max_buckets) are skipped
            kept = cb >= 0
            cb, vals, is_plus = cb[kept], vals[kept], is_plus[kept]
        before = self._gains(self.Wp[cb], self.Wm[cb]) if self._gain is None else self._gain[cb]
        np.add.at(self.Wp, cb[is_plus], vals[is_plus])
        np.add.at(self.Wm, cb[~is_plus], vals[~is_plus])
        gain = self._gains(self.Wp[cb], self.Wm[cb])
        dropped = gain < before
        if self._gain is not None:
            self._gain[cb] = gain
        self._block_stale[cb[dropped] // _BLOCK] = True
        np.maximum.at(self._block_max, cb // _BLOCK, gain)

    def _add_mapped(self, rows: np.ndarray, change: np.ndarray) -> None:
        """:meth:`_add` of the product of the tuples ``rows`` weighted by ``change`` (one chunk), from the pair
        map: each pair's sum added to its bucket's W+ or W-, the sums of a bucket of several pairs in the
        product's order (source, then the delta entry that first had the pair, descending), each bucket's gain
        and block refreshed once (the same choices as slice by slice). Compiled where numba is, else numpy."""
        m, exact = self._map, self.rule == "exact"
        while True:
            done, more = pairmap.call(
                "round_update",
                *m.arrays(),
                rows,
                change,
                self._W,
                m.extra_bucket,
                self._block_max,
                self._block_stale,
                _BLOCK,
                exact,
                self.Qm.shape[1],
                *self._row,
                *self._lists,
            )
            if not done or more == 0:
                break
            self._lists = round_lists(-2 * more)  # too short for this chunk: nothing was done
        if done:
            return
        bucket, sign, sums, first, src, before = self._update_numpy(rows, change)
        if len(bucket) == 0:
            return
        at = np.lexsort((-first, src, sign, bucket))  # a shared bucket's sums in the product's order
        for s, W in ((0, self.Wp), (1, self.Wm)):
            np.add.at(W, bucket[at[sign[at] == s]], sums[at[sign[at] == s]])
        self._refresh(bucket, before)

    def _refresh(self, bucket: np.ndarray, before: np.ndarray) -> None:
        """The gains of ``bucket`` after a chunk (``before``: before it), stored, their blocks' maxima raised, a
        block where one fell marked stale."""
        gain = self._gains(self.Wp[bucket], self.Wm[bucket])
        self._gain[bucket] = gain
        self._block_stale[bucket[gain < before] // _BLOCK] = True
        np.maximum.at(self._block_max, bucket // _BLOCK, gain)

    def _update_numpy(self, rows: np.ndarray, change: np.ndarray) -> tuple:
        """The compiled ``round_update`` with numpy (:meth:`PairMap.round_sums`): the unshared buckets updated,
        the shared buckets' entries returned."""
        m = self._map
        ids, sums, first = m.round_sums(rows, change)
        keep = sums != 0  # the product lists no entry whose sum is 0
        ids, sums, first = ids[keep], sums[keep], first[keep]
        code, sign = ids >> 1, ids & 1
        bucket = code.copy()
        extra = code >= m.n_buckets
        bucket[extra] = m.extra_bucket[code[extra] - m.n_buckets]
        before = self._gain[bucket]
        shared = m.shared[bucket]
        alone = ~shared
        self._W[bucket[alone], sign[alone]] += sums[alone]  # one sum a bucket
        self._refresh(bucket[alone], before[alone])
        at = np.flatnonzero(shared)
        code = code[at]
        pos = np.where(
            code < m.n_buckets,
            self.bucket_ptr[np.minimum(code, m.n_buckets)],
            m.extra_pos[np.maximum(code - m.n_buckets, 0)],
        )
        return bucket[at], sign[at], sums[at], first[at], self.pair_keys[pos] // self.T, before[at]

    def training_loss(self) -> float:
        """sum_t D_t exp(-margin_t) / sum_t D_t computed from the margins."""
        return float(np.dot(self.D, np.exp(-self.margin)) / self.D.sum())

    # -- the loop ---------------------------------------------------------------------------------

    def run(
        self,
        rounds: int,
        *,
        evaluate: Callable[[np.ndarray, np.ndarray, np.ndarray], float] | None = None,
        eval_every: int = 50,
        patience: int = 0,
        quiet: bool = False,
        desc: str = "boosting",
    ) -> BoostResult:
        """Boost for up to ``rounds`` rounds (:func:`clirkit.boost.loop.boost`)."""
        from clirkit.boost.loop import boost

        return boost(self, rounds, evaluate=evaluate, eval_every=eval_every, patience=patience, quiet=quiet, desc=desc)
