"""A shard of a sharded index ready to search (:class:`SearchableShard`): its terms placed at their rows of the whole
vocabulary, scored by :class:`~clirkit.retrieval.bm25.BM25` with the whole collection's statistics; and the Pirkola
df of a batch of translation rows counted over every shard (:class:`UnionDf`). Used by
:mod:`clirkit.retrieval.shardsearch`, in this process and in worker processes."""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError
from clirkit.retrieval.bm25 import BM25, CollectionStats, row_key
from clirkit.retrieval.index import Index
from clirkit.retrieval.query import StructuredQueries


class SearchableShard:
    """A shard ready to search: its index with its terms at their rows of the whole vocabulary ``terms``,
    the whole collection's ``stats``, and the BM25 of the parameters used last."""

    def __init__(self, shard: Index, terms: np.ndarray, stats: CollectionStats, where: str) -> None:
        rows = np.searchsorted(terms, shard.terms)
        if len(rows) and (rows[-1] >= len(terms) or np.any(terms[np.minimum(rows, len(terms) - 1)] != shard.terms)):
            raise ClirkitError(f"{where} holds terms the whole vocabulary lacks: rebuild the index")
        counts = np.zeros(len(terms), dtype=np.int64)
        counts[rows] = np.diff(shard.tf.indptr)
        if np.any(counts > stats.df):
            raise ClirkitError(
                f"{where} holds more documents of a term than its df in the whole collection: rebuild the index"
            )
        indptr = np.concatenate(([0], np.cumsum(counts))).astype(shard.tf.indptr.dtype)
        tf = sp.csr_matrix((shard.tf.data, shard.tf.indices, indptr), shape=(len(terms), shard.n_docs))
        tf.has_sorted_indices = True
        self.index = replace(shard, terms=terms, tf=tf, _vocabulary=None)  # a translated shard keeps its lengths
        self.stats, self.where = stats, where
        self._bm25: tuple[dict, BM25] | None = None
        self.lock = threading.Lock()

    def __getstate__(self) -> dict:  # shipped to a worker process: without the lock and the BM25 weights
        return {"index": self.index, "stats": self.stats, "where": self.where}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _bm25=None, lock=threading.Lock())

    def bm25(self, params: dict, union: "UnionDf | None" = None) -> BM25:
        if union is not None:  # a Pirkola batch's own counts: a BM25 for this search only
            return BM25(self.index, **params, stats=replace(self.stats, union_df=union))
        if self._bm25 is None or not same_params(self._bm25[0], params):
            self._bm25 = (dict(params), self._model(params))
        return self._bm25[1]

    def _model(self, params: dict) -> BM25:
        """The engine over this shard with the collection's statistics, in the weighting ``params`` names (a
        translated shard's documents keep their own lengths)."""
        return BM25(self.index, **params, stats=self.stats)

    def ready(self, params: dict, union: "UnionDf | None", queries: StructuredQueries) -> bool:
        """The model of ``params`` made, with what searching ``queries`` keeps; whether such searches then only
        read it (:meth:`~clirkit.retrieval.bm25.BM25.ready_for`)."""
        if union is not None:  # (a Pirkola search makes a model of its own counts)
            return True
        with self.lock:
            return self.bm25(params).ready_for(queries)

    def search(
        self, params: dict, queries: StructuredQueries, depth: int, union: "UnionDf | None", floors: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(sizes, document position in the shard, score)`` of the shard's top ``depth`` per query scoring
        above its ``floors`` cell (None: no floor): how many rows each query has, then the rows in query then
        rank order."""
        with self.lock:
            bm25 = self.bm25(params, union)
            if not bm25.ready_for(queries):  # a memory-mapped shard weights what it reads: one search at a time
                return bm25.search_sizes(queries, depth=depth, floors=floors)
        return bm25.search_sizes(queries, depth=depth, floors=floors)


def same_params(a: dict, b: dict) -> bool:
    """Whether two scorings' parameters (values may be arrays: a background) are the same."""
    return a.keys() == b.keys() and all(
        np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) or isinstance(b[k], np.ndarray) else a[k] == b[k]
        for k in a
    )


class UnionDf:
    """The Pirkola df of translation rows counted over the whole collection, found by each row's content
    (the rows BM25 asks about are rows of ``translations``)."""

    def __init__(self, translations: sp.csr_matrix, counts: np.ndarray) -> None:
        self.translations, self.counts = translations, np.asarray(counts, dtype=np.float64)
        self._table: dict | None = None

    def __getstate__(self) -> dict:
        return {"translations": self.translations, "counts": self.counts, "_table": None}

    def ready(self) -> dict:
        """The counts by row content, made once (before threads share this)."""
        if self._table is None:
            t = self.translations
            self._table = {row_key(t, r): c for r, c in enumerate(self.counts.tolist())}
        return self._table

    def __call__(self, rows: sp.csr_matrix) -> np.ndarray:
        table = self.ready()
        return np.asarray([table[row_key(rows, r)] for r in range(rows.shape[0])], dtype=np.float64)
