"""Bilingual n-gram pair features: vocabularies, binary n-gram matrices, hashing.

A query is a binary bag of source n-grams, a document a binary bag of target
n-grams. :class:`NgramVocabulary` maps n-gram strings to integer ids so a set
of texts becomes a CSR matrix (texts x n-grams, entries 1.0). A pair feature
(source n-gram i, target n-gram j) is identified by a bucket in ``2**bits``,
computed like scikit-learn's ``FeatureHasher`` computes its indices, with
MurmurHash3 (unsigned here, since boosting's weak learners are indicators):

    h_s(i) = murmur3_32(utf8(source n-gram i), seed)
    h_t(j) = murmur3_32(utf8(target n-gram j), seed)
    bucket(i, j) = murmur3_32(le32(h_s(i)) + le32(h_t(j)), seed) mod 2**bits

The outer hash of the 8-byte key is computed vectorized in numpy
(:func:`murmur3_pairs`) and agrees bit for bit with ``mmh3.hash`` of those
bytes, so every pair that can occur is hashed without a Python loop.

:class:`PairFeatures` is a training set as boosting sees it: both vocabularies, the query and
document matrices and the n-grams' hashes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.analysis import ngrams
from clirkit.boost.weighting import idf_weights, weigh_documents

_C1 = np.uint32(0xCC9E2D51)
_C2 = np.uint32(0x1B873593)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def murmur3_pairs(a: np.ndarray, b: np.ndarray, seed: int) -> np.ndarray:
    """MurmurHash3_x86_32 of the 8 bytes ``le32(a) + le32(b)``, elementwise.

    Args:
        a, b: uint32 arrays of the same shape.
        seed: the hash seed (0 <= seed < 2**32).
    Returns:
        uint32 array, equal to ``mmh3.hash(struct.pack('<II', a, b), seed, signed=False)``.
    """
    a = np.asarray(a, dtype=np.uint32)
    b = np.asarray(b, dtype=np.uint32)
    with np.errstate(over="ignore"):
        h = np.full(a.shape, seed & 0xFFFFFFFF, dtype=np.uint32)
        for k in (a, b):
            k = k * _C1
            k = _rotl(k, 15)
            k = k * _C2
            h = h ^ k
            h = _rotl(h, 13)
            h = h * np.uint32(5) + np.uint32(0xE6546B64)
        h = h ^ np.uint32(8)
        h = h ^ (h >> np.uint32(16))
        h = h * np.uint32(0x85EBCA6B)
        h = h ^ (h >> np.uint32(13))
        h = h * np.uint32(0xC2B2AE35)
        h = h ^ (h >> np.uint32(16))
    return h


_E = np.uint32(0xE6546B64)
_INV = {c: np.uint32(pow(c, -1, 2**32)) for c in (0xCC9E2D51, 0x1B873593, 5, 0x85EBCA6B, 0xC2B2AE35)}


def _rotr(x: np.ndarray, r: int) -> np.ndarray:
    return (x >> np.uint32(r)) | (x << np.uint32(32 - r))


def murmur3_first_block(a: np.ndarray, seed: int) -> np.ndarray:
    """The state of :func:`murmur3_pairs` after its first 4 bytes ``le32(a)`` (uint32, elementwise): what
    :func:`murmur3_second_blocks` inverts from."""
    a = np.asarray(a, dtype=np.uint32)
    with np.errstate(over="ignore"):
        h = np.uint32(seed & 0xFFFFFFFF) ^ (_rotl(a * _C1, 15) * _C2)
        return _rotl(h, 13) * np.uint32(5) + _E


def murmur3_second_blocks(first: np.ndarray, h) -> np.ndarray:
    """The inverse of :func:`murmur3_pairs` in its second argument: for each state ``first`` (from
    :func:`murmur3_first_block` of ``a``) and hash ``h`` (an int, or uint32 that broadcast with ``first``), the one
    uint32 ``b`` with ``murmur3_pairs(a, b, seed) == h``.

    Every step of MurmurHash3 on 8 bytes is a bijection of the state once the first 4 bytes are known (xor-shifts,
    multiplications by odd constants, rotations, the addition of a constant), so each is undone in turn."""
    with np.errstate(over="ignore"):
        k = _second_step(h) ^ np.asarray(first, dtype=np.uint32)
        return _rotr(k * _INV[0x1B873593], 15) * _INV[0xCC9E2D51]


def _second_step(h) -> np.ndarray:
    """``rotl(state ^ k2, 13)`` undone from the hash ``h``: the state after the first block xor the mixed second
    block (uint32, ``h``'s shape)."""
    with np.errstate(over="ignore"):
        x = np.asarray(np.asarray(h, dtype=np.int64) & 0xFFFFFFFF, dtype=np.uint32)
        x = x ^ (x >> np.uint32(16))
        x = x * _INV[0xC2B2AE35]
        x = x ^ (x >> np.uint32(13)) ^ (x >> np.uint32(26))
        x = x * _INV[0x85EBCA6B]
        x = x ^ (x >> np.uint32(16))
        x = x ^ np.uint32(8)  # the state after the second block
        return _rotr(np.asarray((x - _E) * _INV[5], dtype=np.uint32), 13)


def murmur3_first_blocks(b: np.ndarray, h, seed: int) -> np.ndarray:
    """The inverse of :func:`murmur3_pairs` in its first argument: for each ``b`` and hash ``h`` (broadcast), the
    one uint32 ``a`` with ``murmur3_pairs(a, b, seed) == h`` (as :func:`murmur3_second_blocks`, from the other
    side: the first block's state is the second step's xor of b's mixed block, then that block is undone)."""
    b = np.asarray(b, dtype=np.uint32)
    with np.errstate(over="ignore"):
        state = _second_step(h) ^ (_rotl(b * _C1, 15) * _C2)
        k = _rotr((state - _E) * _INV[5], 13) ^ np.uint32(seed & 0xFFFFFFFF)
        return _rotr(k * _INV[0x1B873593], 15) * _INV[0xCC9E2D51]


def hash_strings(strings: Sequence[str], seed: int) -> np.ndarray:
    """Unsigned 32-bit MurmurHash3 of each string's UTF-8 bytes (uint32 array)."""
    import mmh3

    return np.fromiter((mmh3.hash(s, seed, signed=False) for s in strings), dtype=np.uint32, count=len(strings))


def pair_buckets(
    src_hash: np.ndarray, tgt_hash: np.ndarray, rows: np.ndarray, cols: np.ndarray, *, seed: int, bits: int
) -> np.ndarray:
    """Buckets in ``[0, 2**bits)`` of the pairs (source id ``rows``, target id ``cols``).

    ``src_hash``/``tgt_hash`` are the per-n-gram hashes from :func:`hash_strings`.
    Returns an int64 array.
    """
    h = murmur3_pairs(src_hash[rows], tgt_hash[cols], seed)
    return (h & np.uint32((1 << bits) - 1 if bits < 32 else 0xFFFFFFFF)).astype(np.int64)


class NgramVocabulary:
    """Maps n-gram strings to consecutive ids (in order of first appearance).

    Attributes:
        terms: list of n-gram strings; ``terms[id]`` is the n-gram of ``id``.
        ids: dict n-gram -> id.
    """

    def __init__(self, terms: Iterable[str] = ()) -> None:
        self.terms: list[str] = []
        self.ids: dict[str, int] = {}
        for t in terms:
            if t not in self.ids:
                self.ids[t] = len(self.terms)
                self.terms.append(t)

    def __len__(self) -> int:
        return len(self.terms)

    def matrix(self, token_lists: Sequence[Sequence[str]], n: int, *, grow: bool) -> sp.csr_matrix:
        """Binary CSR matrix (texts x vocabulary) of the 1..n-grams of each token list.

        With ``grow`` unseen n-grams get new ids (the matrix has as many columns
        as the vocabulary after the call); without it they are dropped.
        """
        indptr = [0]
        indices: list[int] = []
        ids = self.ids
        for tokens in token_lists:
            if isinstance(tokens, str):
                raise TypeError("expected a list of tokens, got a str")
            grams = dict.fromkeys(ngrams(tokens, n))
            if grow:
                for g in grams:
                    if g not in ids:
                        ids[g] = len(self.terms)
                        self.terms.append(g)
                row = [ids[g] for g in grams]
            else:
                row = [ids[g] for g in grams if g in ids]
            row.sort()
            indices.extend(row)
            indptr.append(len(indices))
        data = np.ones(len(indices), dtype=np.float64)
        return sp.csr_matrix(
            (data, np.asarray(indices, dtype=np.int32), np.asarray(indptr, dtype=np.int64)),
            shape=(len(token_lists), len(self.terms)),
        )

    def fit_matrix(
        self, token_lists: Sequence[Sequence[str]], n: int, *, max_df: float = 1.0, frequent_word_ngrams: bool = True
    ) -> sp.csr_matrix:
        """:meth:`matrix` growing the vocabulary from ``token_lists``, then :meth:`prune` with these settings."""
        return self.prune(self.matrix(token_lists, n, grow=True), max_df, frequent_word_ngrams=frequent_word_ngrams)

    def prune(self, X: sp.csr_matrix, max_df: float, *, frequent_word_ngrams: bool = True) -> sp.csr_matrix:
        """Drop the n-grams present in more than ``max_df`` (a fraction) of the rows of ``X``.

        Like scikit-learn's ``CountVectorizer(max_df=...)``: very common n-grams
        (stopwords on either side) add many pairs and little evidence. Without
        ``frequent_word_ngrams``, an n-gram of two or more words is dropped too
        when one of its words is a dropped unigram ("of kish", "de la"), so the
        bigrams left are made of content words. The vocabulary is renumbered in
        place; returns ``X`` restricted to the kept columns (same row order).
        """
        if max_df >= 1.0:
            return X
        df = np.bincount(X.indices, minlength=X.shape[1])
        limit = max_df * X.shape[0]
        keep = df <= limit
        if not frequent_word_ngrams:
            frequent = {t for t, d in zip(self.terms, df.tolist()) if d > limit and " " not in t}
            keep &= np.array([" " not in t or frequent.isdisjoint(t.split(" ")) for t in self.terms], dtype=bool)
        keep = np.flatnonzero(keep)
        self.terms = [self.terms[i] for i in keep.tolist()]
        self.ids = {t: i for i, t in enumerate(self.terms)}
        return sp.csr_matrix(X[:, keep])


@dataclass(eq=False)
class PairFeatures:
    """The n-gram features of a training set (the queries and the collection).

    Attributes:
        ngram: the longest n-grams (1: unigrams; 2: unigrams and bigrams; ...).
        source, target: the source n-grams of the training queries and the target n-grams of the documents.
        Qm: training queries x source n-grams, binary CSR.
        Dm: documents x target n-grams CSR, weighted by ``doc_weighting``
            (:func:`clirkit.boost.weighting.weigh_documents`).
        doc_weighting: the document side's scheme; idf: each target n-gram's idf (the idf schemes), or None.
        src_hash, tgt_hash: uint32 MurmurHash3 of each source and target n-gram (:func:`hash_strings`).
    """

    ngram: int
    source: NgramVocabulary
    target: NgramVocabulary
    Qm: sp.csr_matrix
    Dm: sp.csr_matrix
    doc_weighting: str
    idf: np.ndarray | None
    src_hash: np.ndarray
    tgt_hash: np.ndarray

    @classmethod
    def fit(
        cls,
        query_tokens: Sequence[Sequence[str]],
        doc_tokens: Sequence[Sequence[str]],
        *,
        ngram: int,
        max_df: float = 1.0,
        frequent_word_ngrams: bool = True,
        doc_weighting: str = "binary",
        hash_seed: int = 0,
    ) -> "PairFeatures":
        """The vocabularies and matrices of the queries' and the documents' 1..``ngram``-grams, each side pruned
        with ``max_df`` and ``frequent_word_ngrams`` (:meth:`NgramVocabulary.prune`), the documents weighted
        with ``doc_weighting``, the n-grams hashed with ``hash_seed``."""
        source, target = NgramVocabulary(), NgramVocabulary()
        pruning = {"max_df": max_df, "frequent_word_ngrams": frequent_word_ngrams}
        Qm = source.fit_matrix(query_tokens, ngram, **pruning)
        Dm = target.fit_matrix(doc_tokens, ngram, **pruning)
        idf = idf_weights(Dm) if "idf" in doc_weighting else None
        Dm = weigh_documents(Dm, doc_tokens, doc_weighting, idf)
        return cls(
            ngram,
            source,
            target,
            Qm,
            Dm,
            doc_weighting,
            idf,
            hash_strings(source.terms, hash_seed),
            hash_strings(target.terms, hash_seed),
        )

    def queries(self, token_lists: Sequence[Sequence[str]]) -> sp.csr_matrix:
        """Binary CSR of other queries (e.g. the dev queries) over the training queries' source n-grams."""
        return self.source.matrix(token_lists, self.ngram, grow=False)
