"""Document-side weights of the bilinear scorer: d_j in q^T W d as binary, idf or length-normalized.

The paper's d is binary (d_j = 1 when target n-gram j is in the document). The
variants keep every weight in (0, 1], so a weak learner h_k(q, d) = q_i d_j stays
in [0, 1] and RankBoost's step rules apply (with real-valued x_k(t) the exact
rule minimizes the usual upper bound of the loss):

- ``binary``: d_j = 1;
- ``idf``: d_j = ln(N / df_j) / ln(N), N documents, df_j of the training documents;
- ``length``: d_j = 1 / sqrt(number of tokens of d);
- ``idf-length``: the product of the two.

The idf values are those of the training documents and are stored in the model,
so a model scores any document set the same way.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError

SCHEMES = ("binary", "idf", "length", "idf-length")


def check_scheme(scheme: str) -> None:
    """Raise ClirkitError unless ``scheme`` is one of ``SCHEMES``."""
    if scheme not in SCHEMES:
        raise ClirkitError(f"unknown document weighting {scheme!r}; choose one of {', '.join(SCHEMES)}")


def idf_weights(Dm: sp.csr_matrix) -> np.ndarray:
    """ln(N / df_j) / ln(N) of each column of the binary documents x n-grams matrix (float64, in [0, 1])."""
    n = Dm.shape[0]
    df = np.bincount(Dm.indices, minlength=Dm.shape[1]).astype(np.float64)
    if n < 2:
        return np.ones(Dm.shape[1])
    return np.log(n / np.maximum(df, 1.0)) / np.log(n)


def weigh_documents(
    Dm: sp.csr_matrix, doc_tokens: Sequence[Sequence[str]], scheme: str, idf: np.ndarray | None = None
) -> sp.csr_matrix:
    """The binary documents x n-grams matrix ``Dm`` with the ``scheme``'s weights as values.

    Args:
        Dm: binary CSR (documents x n-grams).
        doc_tokens: the documents' tokens (their counts give the lengths).
        scheme: one of ``SCHEMES``; ``binary`` returns ``Dm`` itself.
        idf: per-column idf (``idf_weights`` of the training documents); needed by the idf schemes.
    """
    check_scheme(scheme)
    if scheme == "binary":
        return Dm
    values = np.ones(Dm.nnz)
    if "idf" in scheme:
        if idf is None or len(idf) != Dm.shape[1]:
            raise ValueError("the idf scheme needs one idf value per column")
        values *= idf[Dm.indices]
    if "length" in scheme:
        lengths = np.fromiter((len(t) for t in doc_tokens), np.float64, len(doc_tokens))
        values *= np.repeat(1.0 / np.sqrt(np.maximum(lengths, 1.0)), np.diff(Dm.indptr))
    W = sp.csr_matrix((values, Dm.indices.copy(), Dm.indptr.copy()), shape=Dm.shape)
    W.eliminate_zeros()
    return W
