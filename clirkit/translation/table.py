"""The lexical translation table p(e|f): a sparse matrix over two vocabularies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError
from clirkit.translation.arguments import P_MAX, TableArgumentError, probabilities, sequence, whole

#: The source word that Model 1 aligns unaligned target words to (GIZA++ / Moses spelling).
NULL = "NULL"

#: Sort key of an option without a dictionary rank: after every ranked option.
_UNRANKED = np.iinfo(np.int64).max


class TableFormatError(ClirkitError):
    """A line of a table or dictionary file that does not fit the format it is read as
    (``file:line: what is wrong``); :func:`~clirkit.translation.load_table` adds how it guessed the format."""


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
            Keys every table made or loaded by clirkit has:

            - ``source_lang``, ``target_lang``: ISO 639-1 codes of the source words f (the
              queries' language) and of the target words e (the documents'), or None when
              nothing tells them (a Moses text file, a dictionary whose format and name do not
              say and no language was given). A trained table (:func:`~clirkit.translation.train_table`)
              takes them from its analyzers, a dictionary from ``source_lang=``/``target_lang=``,
              else from its format or file name (:func:`~clirkit.translation.load_table`); an npz
              table stores them.

            Other keys depend on the maker: ``source_analyzer``/``target_analyzer`` (the analyzers'
            settings, trained tables), ``model`` (``ibm1``, ``moses``, ``dictionary``), the counts of
            a dictionary's pairs (:func:`~clirkit.translation.dictionary_table`), ``pruning``,
            ``interpolation``.
        ranks: optional CSR int64 matrix of the same shape: the dictionary rank of an option
            (1 = listed first for its source word in the dictionary file, 2 = second, ...), for
            tables read from dictionaries; an option without a stored rank is unranked. Ranks of
            cells without a probability are ignored. :meth:`best_targets`, :meth:`translations`
            and pruning order tied probabilities by rank (see :meth:`best_targets`).
    """

    source_vocab: np.ndarray
    target_vocab: np.ndarray
    probs: sp.csr_matrix
    params: dict = field(default_factory=dict)
    ranks: sp.csr_matrix | None = None
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
            raise TableArgumentError(f"probs: the matrix has shape {probs.shape}, the vocabularies give {shape}")
        if self.ranks is not None:
            self.ranks = self._checked_ranks(self.ranks)

    def _checked_ranks(self, ranks) -> sp.csr_matrix | None:
        r = sp.csr_matrix(ranks, dtype=np.int64, copy=True)
        if r.shape != self.probs.shape:
            raise TableArgumentError(f"ranks: the matrix has shape {r.shape}, the probabilities {self.probs.shape}")
        r.sort_indices()
        r.eliminate_zeros()
        if r.nnz and r.data.min() < 1:
            raise TableArgumentError("ranks must be >= 1")
        keys = _cell_keys(r, self.n_target)
        present = np.isin(keys, _cell_keys(self.probs, self.n_target))
        if not present.all():  # ranks of cells without a probability are ignored
            rows = np.repeat(np.arange(r.shape[0]), np.diff(r.indptr))[present]
            r = sp.csr_matrix((r.data[present], (rows, r.indices[present])), shape=r.shape, dtype=np.int64)
        return r if r.nnz else None

    # ------------------------------------------------------------------------------------------
    @classmethod
    def from_triples(
        cls,
        sources: Sequence[str],
        targets: Sequence[str],
        probs: Iterable[float],
        params: Mapping | None = None,
        ranks: Iterable[int] | None = None,
        *,
        merged: bool = False,
    ) -> "TranslationTable":
        """Build from parallel sequences (f, e, p(e|f)); duplicate (f, e) pairs are summed.

        ``ranks``, if given, is parallel too: each option's dictionary rank (>= 1; 0 = unranked);
        a pair given several times keeps its lowest rank. A probability that is not a number from 0 to 1 (NaN,
        negative, above 1, or a pair whose repeats sum above 1) raises
        :class:`~clirkit.translation.arguments.TableArgumentError`, as :func:`~clirkit.translation.load_table`
        refuses it in a file. ``merged``: a pair's repeats are words an analysis made one (a phrase table's "House"
        and "house"), whose sum may pass 1 until the caller renormalizes the rows: only each probability is
        checked."""
        src_vocab, src_ids = _vocabulary_ids(sequence("sources", sources))
        tgt_vocab, tgt_ids = _vocabulary_ids(sequence("targets", targets))
        if len(src_ids) != len(tgt_ids):
            raise TableArgumentError(f"{len(src_ids)} sources but {len(tgt_ids)} targets")
        p = _parallel_numbers("probs", probs, len(src_ids), np.float64)
        probabilities("probs", p)
        shape = (len(src_vocab), len(tgt_vocab))
        matrix = sp.csr_matrix((p, (src_ids, tgt_ids)), shape=shape)
        over = np.flatnonzero(matrix.data > P_MAX) if not merged else []  # a pair given several times, summed
        if len(over):
            k = int(over[0])
            row, col = int(np.searchsorted(matrix.indptr, k, side="right")) - 1, int(matrix.indices[k])
            raise TableArgumentError(
                f"probs: the pair ({str(src_vocab[row])!r}, {str(tgt_vocab[col])!r}) is given several times, its "
                f"probabilities summing to {float(matrix.data[k])!r}, above 1: give each pair once"
            )
        rank_matrix = None
        if ranks is not None:
            r = _parallel_numbers("ranks", ranks, len(src_ids), np.int64)
            keep = r > 0
            keys = src_ids[keep].astype(np.int64) * max(shape[1], 1) + tgt_ids[keep]
            cells, inverse = np.unique(keys, return_inverse=True)
            lowest = np.full(len(cells), _UNRANKED)
            np.minimum.at(lowest, inverse.ravel(), r[keep])
            rank_matrix = sp.csr_matrix(
                (lowest, (cells // max(shape[1], 1), cells % max(shape[1], 1))), shape=shape, dtype=np.int64
            )
        return cls(src_vocab, tgt_vocab, matrix, dict(params or {}), rank_matrix)

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

    def entry_ranks(self) -> np.ndarray:
        """The dictionary rank of every stored option, parallel to ``probs.data`` (int64; 0 = unranked,
        which is every option of a table without ranks)."""
        out = np.zeros(self.nnz, dtype=np.int64)
        if self.ranks is not None:
            pos = np.searchsorted(_cell_keys(self.probs, self.n_target), _cell_keys(self.ranks, self.n_target))
            out[pos] = self.ranks.data
        return out

    def _rank_keys(self) -> np.ndarray:
        """Sort key per stored option: its rank, unranked options last."""
        ranks = self.entry_ranks()
        return np.where(ranks > 0, ranks, _UNRANKED)

    def translations(self, word: str, n: int | None = None) -> list[tuple[str, float]]:
        """The translations of source ``word`` as ``(e, p(e|f))``, most probable first.

        Ties are ordered by dictionary rank (ranked options first), then by the target word.
        An unknown word gives an empty list. ``n``: at most this many (>= 1; None: all).
        """
        if n is not None:
            n = whole("n", n, minimum=1)
        row = self.source_index.get(word)
        if row is None:
            return []
        lo, hi = self.probs.indptr[row], self.probs.indptr[row + 1]
        cols, vals = self.probs.indices[lo:hi], self.probs.data[lo:hi]
        order = np.lexsort((cols, self._rank_keys()[lo:hi], -vals))[:n]
        return [(str(self.target_vocab[c]), float(v)) for c, v in zip(cols[order], vals[order])]

    def tied_best(self, word: str) -> int:
        """How many translations of source ``word`` tie for the best by the first two steps of
        :meth:`best_targets` (the highest probability, then the lowest dictionary rank): those the collection's
        frequencies (step 3) choose among; 0 for an unknown word."""
        row = self.source_index.get(word)
        if row is None:
            return 0
        lo, hi = self.probs.indptr[row], self.probs.indptr[row + 1]
        vals, ranks = self.probs.data[lo:hi], self._rank_keys()[lo:hi]
        best = vals == vals.max(initial=0.0)
        return int(np.sum(best & (ranks == ranks[best].min(initial=_UNRANKED))))

    def best_targets(self, target_frequency: np.ndarray | None = None) -> np.ndarray:
        """For each source row, the column of its best target; -1 for an empty row. int64 (n_source,).

        The best target is chosen by this rule, each step breaking the ties of the previous one:

        1. the highest probability p(e|f);
        2. the lowest dictionary rank (the translation listed first in the dictionary file;
           ranked options before unranked ones; tables without ranks skip this step);
        3. with ``target_frequency`` (float array over ``target_vocab``: each target word's
           frequency in the collection searched, 0 = absent): a word present in the collection
           before an absent one (an absent word matches nothing), then the rarest present word,
           i.e. the most specific: the words of a multi-word translation split into words tie,
           and "give up" gives "give", not "up";
        4. the alphabetically first target word (lowest column), so the choice is deterministic.
        """
        p = self.probs
        best = np.full(self.n_source, -1, dtype=np.int64)
        if p.nnz == 0:
            return best
        counts = np.diff(p.indptr)
        rows = np.repeat(np.arange(self.n_source), counts)
        filled = counts > 0
        row_max = np.zeros(self.n_source)
        row_max[filled] = np.maximum.reduceat(p.data, p.indptr[:-1][filled])
        top = np.flatnonzero(p.data == row_max[rows])  # step 1 first: only the most probable entries go on
        rows, cols = rows[top], p.indices[top].astype(np.int64)
        keys = [cols]
        if target_frequency is not None:
            freq = np.asarray(target_frequency, dtype=np.float64)
            if freq.shape != (self.n_target,):
                raise TableArgumentError(
                    f"target_frequency has shape {freq.shape}, expected ({self.n_target},): one per target word"
                )
            f = freq[cols]
            keys += [np.where(f > 0, f, np.inf), f <= 0]
        keys += [self._rank_keys()[top], rows]
        order = np.lexsort(keys)
        first = np.concatenate([[True], rows[order][1:] != rows[order][:-1]])
        winners = order[first]
        best[rows[winners]] = cols[winners]
        return best

    def row_sums(self) -> np.ndarray:
        """sum_e p(e|f) for each source word, float64 (n_source,)."""
        return np.asarray(self.probs.sum(axis=1)).ravel()

    def without_phrases(self) -> tuple["TranslationTable", int]:
        """This table less its phrase rows (source words of several terms, :mod:`clirkit.translation.phrases`), and
        how many rows went: what a format of single words (Moses text) can hold."""
        from clirkit.translation.phrases import PHRASE_JOINER

        keep = np.flatnonzero(np.char.find(self.source_vocab.astype(str), PHRASE_JOINER) < 0)
        if len(keep) == len(self.source_vocab):
            return self, 0
        ranks = None if self.ranks is None else self.ranks[keep]
        return (
            TranslationTable(self.source_vocab[keep], self.target_vocab, self.probs[keep], dict(self.params), ranks),
            len(self.source_vocab) - len(keep),
        )

    def normalized(self) -> "TranslationTable":
        """A copy whose non-empty rows sum to 1 (ranks kept)."""
        return TranslationTable(
            self.source_vocab, self.target_vocab, normalize_rows(self.probs), dict(self.params), self.ranks
        )


def _vocabulary_ids(words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(sorted unique words, the id of each word): ``np.unique(..., return_inverse=True)`` through a dict,
    several times faster on long lists of strings (both sort by code point)."""
    words = [str(w) for w in words]
    vocab = sorted(set(words))
    index = {w: i for i, w in enumerate(vocab)}
    ids = np.fromiter((index[w] for w in words), dtype=np.int64, count=len(words))
    return np.asarray(vocab, dtype=str), ids


def _cell_keys(matrix: sp.csr_matrix, n_cols: int) -> np.ndarray:
    """row * n_cols + col for each stored cell of a canonical CSR matrix: ascending."""
    rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), np.diff(matrix.indptr))
    return rows * max(n_cols, 1) + matrix.indices.astype(np.int64)


def normalize_rows(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """Divide every row of a non-negative CSR matrix by its sum (empty rows stay empty)."""
    m = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    lengths = np.diff(m.indptr)
    rows = np.repeat(np.arange(m.shape[0]), lengths)
    sums = np.bincount(rows, weights=m.data, minlength=m.shape[0])
    m.data /= sums[rows]
    return m


def _parallel_numbers(name: str, values: Iterable, n: int, dtype: type) -> np.ndarray:
    """``values`` as an array of ``n`` numbers of ``dtype`` (one per triple); TableArgumentError naming ``name``
    when there are more or fewer, or one is not a number."""
    try:
        out = np.asarray(sequence(name, values), dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        raise TableArgumentError(f"{name}: expected {n} numbers, one per triple, got {values!r:.60}") from None
    if out.shape != (n,):
        raise TableArgumentError(f"{name}: expected {n} numbers, one per triple, got shape {out.shape}")
    return out
