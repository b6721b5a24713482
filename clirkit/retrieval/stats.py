"""The statistics of a whole collection that scoring a part of it needs (:class:`CollectionStats`): a shard is scored
with the collection's document count, mean length and document frequencies, so that every document gets the score
it gets in the index of the whole collection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class CollectionStats:
    """What BM25 takes from the whole collection when it scores a part of it (a shard, :mod:`clirkit.retrieval.shards`),
    so that every document gets the score it gets in the index of the whole collection.

    Attributes:
        n_docs: documents in the whole collection.
        avgdl: their mean length in tokens (the whole index's ``avgdl``).
        df: int64 (n_terms,): each term's document frequency in the whole collection, in the order of the
            terms of the index searched.
        union_df: for Pirkola queries (``df_union``), a function of translation rows (CSR, over the terms of
            the index searched) giving each row's df counted in the whole collection (float64); None counts
            them in the index searched.
    """

    n_docs: int
    avgdl: float
    df: np.ndarray
    union_df: Callable[[sp.csr_matrix], np.ndarray] | None = None
