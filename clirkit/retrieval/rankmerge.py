"""Merging ranked lists of disjoint document sets (the shards of one index) into one ranked list.

A :class:`Ranked` list holds, for every query of a batch, its rows in rank order: how many rows each query has,
then each row's part (the shard holding the document), the document's position in that part, and its score.
:func:`merge_ranked` merges two such lists of the same queries into the top ``depth`` rows of each query, score
descending, ties to the first list (whose parts come first in docid order), so that merging the shards' lists
in shard order gives, byte for byte, the run of the unsharded index. The compiled twin
(:func:`clirkit.retrieval.kernels.merge_ranked`, numba) merges in one pass per query; numpy sorts each query's rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from clirkit import jit

_KERNELS = jit.Kernels("clirkit.retrieval.kernels", "merging shards with numpy, the same runs")


class Ranked(NamedTuple):
    """Ranked rows of a batch of queries: ``sizes`` (int64, one per query: its rows, the next ones in order),
    ``parts`` (int32: the part holding each row's document), ``cols`` (int32: the document's position in its
    part) and ``scores`` (float64), the rows in query order then rank order."""

    sizes: np.ndarray
    parts: np.ndarray
    cols: np.ndarray
    scores: np.ndarray

    @classmethod
    def of_part(cls, part: int, sizes: np.ndarray, cols: np.ndarray, scores: np.ndarray) -> "Ranked":
        """The ranked rows of one part (number ``part``), with the given sizes, positions and scores."""
        return cls(
            np.asarray(sizes, dtype=np.int64),
            np.full(len(cols), part, dtype=np.int32),
            np.asarray(cols, dtype=np.int32),
            np.asarray(scores, dtype=np.float64),
        )


def merge_ranked(a: Ranked, b: Ranked, depth: int) -> Ranked:
    """The top ``depth`` rows of each query among its rows of ``a`` and of ``b`` (the same queries), score
    descending; on equal scores a's rows come first, each list's rows in their own order."""
    compiled, merged = _KERNELS.call("merge_ranked", *a, *b, depth)
    if compiled:
        return Ranked(*merged)
    return _merge_numpy(a, b, depth)


def warm_merge() -> None:
    """Load the compiled merge (numba and its cached machine code) now, if there is one: a process that waits
    for its workers can pay for it meanwhile."""
    empty = Ranked.of_part(0, np.zeros(1, dtype=np.int64), np.zeros(0), np.zeros(0))
    merge_ranked(empty, empty, 1)


def _merge_numpy(a: Ranked, b: Ranked, depth: int) -> Ranked:
    """:func:`merge_ranked` with numpy: each query's rows of a then of b, sorted stably by score descending."""
    sizes = a.sizes + b.sizes
    starts = np.cumsum(sizes) - sizes
    # where each row of a and of b goes among its query's rows (a's first)
    at_a = np.repeat(starts, a.sizes) + _ranks(a.sizes)
    at_b = np.repeat(starts + a.sizes, b.sizes) + _ranks(b.sizes)
    parts, cols, scores = (np.empty(int(sizes.sum()), dtype=x.dtype) for x in (a.parts, a.cols, a.scores))
    for out, x, y in ((parts, a.parts, b.parts), (cols, a.cols, b.cols), (scores, a.scores, b.scores)):
        out[at_a], out[at_b] = x, y
    query = np.repeat(np.arange(len(sizes)), sizes)
    order = np.lexsort((-scores, query))  # stable: a's rows before b's on a tie
    kept = order[_ranks(sizes) < depth]
    return Ranked(np.minimum(sizes, depth), parts[kept], cols[kept], scores[kept])


def _ranks(sizes: np.ndarray) -> np.ndarray:
    """0, 1, ..., sizes[0] - 1, 0, 1, ..., sizes[1] - 1, ...: each row's rank within its query."""
    return np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
