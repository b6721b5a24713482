"""The lexical translation table p(e|f): a sparse matrix over two vocabularies."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

#: The source word that Model 1 aligns unaligned target words to (GIZA++ / Moses spelling).
NULL = "NULL"


@dataclass
class TranslationTable:
    """Translation probabilities p(e|f) from source words f to target words e.

    Attributes:
        source_vocab: str array (n_source,) of source words f, sorted ascending, unique.
        target_vocab: str array (n_target,) of target words e, sorted ascending, unique.
        probs: CSR float64 matrix (n_source x n_target); row f holds p(. | f). Rows of a
            trained table sum to 1; a loaded, pruned or dictionary table need not have full
            rows (but every stored value is in (0, 1]). Indices are sorted within rows.
        params: JSON-ready description of how the table was made (stored in saved files).
    """

    source_vocab: np.ndarray
    target_vocab: np.ndarray
    probs: sp.csr_matrix
    params: dict = field(default_factory=dict)
    _source_index: dict | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.source_vocab = np.asarray(self.source_vocab, dtype=str)
        self.target_vocab = np.asarray(self.target_vocab, dtype=str)
        probs = sp.csr_matrix(self.probs, dtype=np.float64)
        probs.sum_duplicates()
        probs.eliminate_zeros()
        probs.sort_indices()
        self.probs = probs
        shape = (len(self.source_vocab), len(self.target_vocab))
        if probs.shape != shape:
            raise ValueError(f"probability matrix has shape {probs.shape}, vocabularies give {shape}")

    # ------------------------------------------------------------------------------------------
    @classmethod
    def from_triples(cls, sources: Sequence[str], targets: Sequence[str], probs: Iterable[float],
                     params: Mapping | None = None) -> "TranslationTable":
        """Build from parallel sequences (f, e, p(e|f)); duplicate (f, e) pairs are summed."""
        src_vocab, src_ids = np.unique(np.asarray(sources, dtype=str), return_inverse=True)
        tgt_vocab, tgt_ids = np.unique(np.asarray(targets, dtype=str), return_inverse=True)
        p = np.fromiter(probs, dtype=np.float64, count=len(src_ids))
        matrix = sp.csr_matrix((p, (src_ids.ravel(), tgt_ids.ravel())),
                               shape=(len(src_vocab), len(tgt_vocab)))
        return cls(src_vocab, tgt_vocab, matrix, dict(params or {}))

    @property
    def n_source(self) -> int:
        return len(self.source_vocab)

    @property
    def n_target(self) -> int:
        return len(self.target_vocab)

    @property
    def nnz(self) -> int:
        return int(self.probs.nnz)

    @property
    def source_index(self) -> dict[str, int]:
        """Source word -> row id."""
        if self._source_index is None:
            self._source_index = {w: i for i, w in enumerate(self.source_vocab.tolist())}
        return self._source_index

    def __contains__(self, word: str) -> bool:
        """True when ``word`` has a row with at least one translation."""
        row = self.source_index.get(word)
        return row is not None and self.probs.indptr[row + 1] > self.probs.indptr[row]

    def translations(self, word: str, n: int | None = None) -> list[tuple[str, float]]:
        """The translations of source ``word`` as ``(e, p(e|f))``, most probable first.

        Ties are ordered by the target word. An unknown word gives an empty list.
        """
        row = self.source_index.get(word)
        if row is None:
            return []
        lo, hi = self.probs.indptr[row], self.probs.indptr[row + 1]
        cols, vals = self.probs.indices[lo:hi], self.probs.data[lo:hi]
        order = np.lexsort((cols, -vals))[:n]
        return [(str(self.target_vocab[c]), float(v)) for c, v in zip(cols[order], vals[order])]

    def best_targets(self) -> np.ndarray:
        """For each source row, the column of its most probable target (ties: lowest column,
        i.e. the alphabetically first word); -1 for an empty row. int64 array (n_source,)."""
        p = self.probs
        best = np.full(self.n_source, -1, dtype=np.int64)
        if p.nnz == 0:
            return best
        rows = np.repeat(np.arange(self.n_source), np.diff(p.indptr))
        nonempty = np.diff(p.indptr) > 0
        row_max = np.full(self.n_source, -np.inf)
        row_max[nonempty] = np.maximum.reduceat(p.data, p.indptr[:-1][nonempty])
        at_max = np.flatnonzero(p.data == row_max[rows])
        # columns are sorted within each row, so a row's first entry at its maximum has the lowest column
        winners, first = np.unique(rows[at_max], return_index=True)
        best[winners] = p.indices[at_max[first]]
        return best

    def row_sums(self) -> np.ndarray:
        """sum_e p(e|f) for each source word, float64 (n_source,)."""
        return np.asarray(self.probs.sum(axis=1)).ravel()

    @classmethod
    def load(cls, path, format: str = "auto") -> "TranslationTable":
        """Read a table file (:func:`clirkit.translation.load_table`: npz, Moses, pairs, MUSE, FreeDict)."""
        from clirkit.translation.tableio import load_table

        return load_table(path, format)

    def save(self, path, format: str = "auto") -> None:
        """Write the table (:func:`clirkit.translation.save_table`: ``.npz`` compact, else Moses lines)."""
        from clirkit.translation.tableio import save_table

        save_table(self, path, format)

    def normalized(self) -> "TranslationTable":
        """A copy whose non-empty rows sum to 1."""
        return TranslationTable(self.source_vocab, self.target_vocab, normalize_rows(self.probs),
                                dict(self.params))


def normalize_rows(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """Divide every row of a non-negative CSR matrix by its sum (empty rows stay empty)."""
    m = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    lengths = np.diff(m.indptr)
    rows = np.repeat(np.arange(m.shape[0]), lengths)
    sums = np.bincount(rows, weights=m.data, minlength=m.shape[0])
    m.data /= sums[rows]
    return m
