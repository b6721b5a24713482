"""The compiled round from the product (:func:`clirkit.boost.productkernels.product_round`): its arguments.

:class:`ProductRound` holds what the kernel takes that does not change from round to round (the matrices' and the
tuples' arrays, the hashes, the bucket index's arrays) and its scratch (a row of the product, a slice of its
entries), so that :meth:`~clirkit.boost.rounds.PairBooster.update` hands it only the chunk's tuples and their
weight changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from clirkit import jit
from clirkit.boost import pairmap
from clirkit.boost.buckets import _WORDS_PER_BLOCK, BucketBitmap

if TYPE_CHECKING:
    from clirkit.boost.rounds import PairBooster

PRODUCT = jit.Kernels(
    "clirkit.boost.productkernels", "boosting rounds from the product add with numpy, the same models"
)


@dataclass(eq=False)
class ProductRound:
    """The fixed arguments of :func:`~clirkit.boost.productkernels.product_round` for one booster.

    Attributes:
        matrices: the tuples' queries, ``Qm``'s CSR arrays, the tuples' d+ and d-, ``Dm``'s CSR arrays.
        hashes: the source and target n-grams' hashes, the hash seed and the bucket mask (uint64).
        index: whether the buckets are a :class:`~clirkit.boost.buckets.BucketBitmap`, its words and ranks, its
            words a block, and a :class:`~clirkit.boost.buckets.BucketIndex`'s ids, directory and shift (the kind
            not used given as empty arrays).
        scratch: a row of the product (sums 0.0, links -1: ``2 T`` each) and a slice of entries (``slice_size``).
    """

    matrices: tuple
    hashes: tuple
    index: tuple
    scratch: tuple

    @classmethod
    def of(cls, booster: "PairBooster", slice_size: int) -> "ProductRound | bool":
        """The round of ``booster`` (its product's entries added in slices of ``slice_size``), or False where it is
        not compiled: where the rounds are not (:func:`clirkit.boost.pairmap.kernels` is None: no numba, or
        switched off), or for documents not in canonical CSR form."""
        if pairmap.kernels() is None or PRODUCT.kernels() is None or not booster.Dm.has_canonical_format:
            return False
        size = slice_size
        index, t, Q, D = booster.index, booster.tuples, booster.Qm, booster.Dm
        bits = booster.bits
        if isinstance(index, BucketBitmap):
            found = (True, index.words, index.word_rank, index.block_rank, _WORDS_PER_BLOCK)
            listed = (np.zeros(0, np.int64), np.zeros(1, np.int64), 0)
        else:
            found = (False, np.zeros(1, np.uint64), np.zeros(1, np.uint16), np.zeros(1, np.int64), _WORDS_PER_BLOCK)
            listed = (index.ids, index.directory, index.shift)
        T2 = 2 * booster.T
        return cls(
            (t.query, Q.indptr, Q.indices, Q.data, t.pos, t.neg, D.indptr, D.indices, D.data),
            (
                booster.src_hash,
                booster.tgt_hash,
                np.uint64(booster.hash_seed & 0xFFFFFFFF),
                np.uint64((1 << bits) - 1 if bits < 32 else 0xFFFFFFFF),
            ),
            found + listed,
            (
                np.zeros(T2),
                np.full(T2, -1, np.int64),
                np.empty(size, np.int64),
                np.empty(size),
                np.empty(size, np.uint8),
                np.empty(size),
            ),
        )

    def add(self, booster: "PairBooster", rows: np.ndarray, change: np.ndarray, block: int) -> bool:
        """The product of the tuples ``rows`` (ascending) weighted by ``change`` added to ``booster``'s W+/W-, its
        gains and the maxima of its blocks of ``block`` buckets, as ``_chunk_products`` and ``_add`` add it; False
        if numba failed to compile."""
        stored = booster._gain is not None
        done, _ = PRODUCT.call(
            "product_round",
            np.asarray(rows, np.int64),
            np.asarray(change, np.float64),
            *self.matrices,
            *self.hashes,
            *self.index,
            booster.Wp,
            booster.Wm,
            booster._gain if stored else np.zeros(0),
            stored,
            booster._block_max,
            booster._block_stale,
            block,
            booster.rule == "exact",
            booster.Qm.shape[1],
            *self.scratch,
        )
        return done
