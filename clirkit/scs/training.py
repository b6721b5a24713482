"""What SCS trains on: the training units (:class:`TrainingData`, made by :meth:`SCSModel.prepare`), ids
looked up in id arrays, and unjudged documents sampled as negatives."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass
class TrainingData:
    """Training units built by :meth:`clirkit.scs.SCSModel.prepare`.

    Pointwise losses use ``(query, doc, grade)`` rows; pairwise losses use
    ``(query, pos, neg, weight)`` triplets. Indices point into the training
    queries' and the documents' averaging matrices ``A_q`` and ``A_d``.
    """

    A_q: sp.csr_matrix
    A_d: sp.csr_matrix
    query: np.ndarray
    doc: np.ndarray | None = None
    grade: np.ndarray | None = None
    pos: np.ndarray | None = None
    neg: np.ndarray | None = None
    weight: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.query)

    def take(self, idx: np.ndarray) -> "TrainingData":
        pick = lambda a: None if a is None else a[idx]  # noqa: E731
        return TrainingData(self.A_q, self.A_d, self.query[idx], pick(self.doc), pick(self.grade),
                            pick(self.pos), pick(self.neg), pick(self.weight))


def lookup(ids: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``values`` in the id array ``ids`` and whether each was found."""
    position = {v: i for i, v in enumerate(ids.tolist())}
    pos = np.fromiter((position.get(v, -1) for v in np.asarray(values).tolist()), dtype=np.int64,
                      count=len(values))
    return np.maximum(pos, 0), pos >= 0


def sample_negatives(rng: np.random.Generator, queries: np.ndarray, judged_keys: np.ndarray, n_docs: int,
                      k: int) -> tuple[np.ndarray, np.ndarray]:
    """``k`` distinct unjudged documents per query, uniformly (fewer if the collection runs out).

    Keys are ``query * n_docs + doc``. Draws ``2k`` candidates per query at once,
    drops judged and repeated ones, keeps the first ``k``; the rare query left
    short is completed from its exact complement.
    """
    if k == 0 or len(queries) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    judged_keys = np.unique(judged_keys)
    draw = rng.integers(0, n_docs, size=(len(queries), 2 * k))
    keys = queries[:, None].astype(np.int64) * n_docs + draw
    flat = keys.ravel()
    _, first = np.unique(flat, return_index=True)
    fresh = np.zeros(flat.size, dtype=bool)
    fresh[first] = True
    valid = (fresh & ~np.isin(flat, judged_keys)).reshape(keys.shape)
    valid &= np.cumsum(valid, axis=1) <= k
    out_q = [np.repeat(queries, valid.sum(axis=1))]
    out_d = [draw[valid]]
    for row in np.flatnonzero(valid.sum(axis=1) < k).tolist():
        q = int(queries[row])
        taken = np.concatenate([judged_keys[(judged_keys // n_docs) == q] % n_docs, draw[row][valid[row]]])
        rest = np.setdiff1d(np.arange(n_docs), taken)
        extra = rng.permutation(rest)[:k - int(valid[row].sum())]
        out_q.append(np.full(len(extra), q))
        out_d.append(extra)
    return np.concatenate(out_q), np.concatenate(out_d)
