"""The SCS model's loss and gradient over a batch, by the backward pass of :mod:`clirkit.scs.model`'s docstring."""

from __future__ import annotations

from typing import Callable

import numpy as np

from clirkit.scs.encoding import Rows, add_rows
from clirkit.scs.training import TrainingData


def loss_and_gradient(
    query_embeddings: np.ndarray,
    doc_embeddings: np.ndarray,
    batch: TrainingData,
    *,
    eps: float,
    pointwise: bool,
    loss_of: Callable[[np.ndarray, TrainingData], tuple[float, np.ndarray]],
) -> tuple[float, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Mean loss of ``batch`` and its gradient ``{"query"|"doc": (rows, values)}`` with respect to the embedding
    tables (``dim`` columns each; ``rows`` are the rows the batch touches).

    The batch's pairs are (query, doc) for a ``pointwise`` loss, else (query, pos) then (query, neg); ``loss_of(r,
    batch)`` gives the mean loss and dL/dr of their smooth cosines r (``eps`` the cosine's smoothing):
    pointwise the mean over pairs of ``l(r, grade)``, pairwise ``sum(w l) / n_triplets``.
    """
    if pointwise:
        q, d = batch.query, batch.doc
    else:
        q = np.concatenate([batch.query, batch.query])
        d = np.concatenate([batch.pos, batch.neg])
    uq, qinv = np.unique(q, return_inverse=True)
    ud, dinv = np.unique(d, return_inverse=True)
    Rq, Rd = Rows(batch.A_q, uq), Rows(batch.A_d, ud)
    Fq = np.tanh(Rq.mean(query_embeddings))
    Fd = np.tanh(Rd.mean(doc_embeddings))
    F, G = Fq[qinv], Fd[dinv]
    nF, nG = np.linalg.norm(F, axis=1), np.linalg.norm(G, axis=1)
    den = (nF + eps) * (nG + eps)
    r = np.zeros(len(q))
    np.divide(np.einsum("ij,ij->i", F, G), den, out=r, where=den > 0)

    loss, g = loss_of(r, batch)
    inv_den = np.zeros_like(den)
    np.divide(1.0, den, out=inv_den, where=den > 0)
    cf = np.zeros_like(nF)
    np.divide(r, (nF + eps) * nF, out=cf, where=nF > 0)
    cg = np.zeros_like(nG)
    np.divide(r, (nG + eps) * nG, out=cg, where=nG > 0)
    gF = g[:, None] * (G * inv_den[:, None] - cf[:, None] * F)
    gG = g[:, None] * (F * inv_den[:, None] - cg[:, None] * G)
    gFq = add_rows(np.zeros_like(Fq), qinv, gF)
    gFd = add_rows(np.zeros_like(Fd), dinv, gG)
    grads = {"query": (Rq.words, Rq.back(gFq * (1.0 - Fq * Fq))), "doc": (Rd.words, Rd.back(gFd * (1.0 - Fd * Fd)))}
    return loss, grads
