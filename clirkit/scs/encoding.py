"""Token lists to sparse averaging matrices, the encoders' pieces over them (:class:`Rows`, :func:`unit_norm`),
and word-vector files.

A text becomes one row of a CSR matrix over the vocabulary whose entries are
``count(word) / number of known tokens``, so ``A @ E`` is the mean embedding
over the text's real (in-vocabulary) tokens: no padding ever enters a mean.
"""

from __future__ import annotations

import itertools
import math
import os
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.errors import REMOVE_NUL, ClirkitError, located, quoted, too_big_as_memory
from clirkit.fileio import display_name, iter_lines
from clirkit.scs import compiled
from clirkit.scs.training import lookup


def _check_token_lists(token_lists: Sequence[Sequence[str]], what: str) -> None:
    for i, tokens in enumerate(token_lists):
        if isinstance(tokens, str):
            raise TypeError(f"{what} {i} is a str; expected a list of tokens (tokenize it first)")
        break


def vocabulary_of(token_lists: Sequence[Sequence[str]], extra: Sequence[str] = ()) -> np.ndarray:
    """Sorted unique words of ``token_lists`` plus ``extra`` (str array)."""
    _check_token_lists(token_lists, "text")
    words = set(itertools.chain.from_iterable(token_lists))
    words.update(np.asarray(extra, dtype=str).tolist())
    return np.asarray(sorted(words), dtype=str) if words else np.zeros(0, dtype="<U1")


def averaging_matrix(token_lists: Sequence[Sequence[str]], vocabulary: np.ndarray) -> sp.csr_matrix:
    """CSR ``(n_texts x len(vocabulary))``: each row averages its known tokens.

    Tokens not in ``vocabulary`` are ignored; a text with no known token gets
    an all-zero row (its mean embedding is the zero vector).
    """
    _check_token_lists(token_lists, "text")
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    index = {w: i for i, w in enumerate(np.asarray(vocabulary).tolist())}
    ids = np.fromiter(
        (index.get(t, -1) for t in itertools.chain.from_iterable(token_lists)), dtype=np.int64, count=int(lengths.sum())
    )
    rows = np.repeat(np.arange(len(token_lists), dtype=np.int64), lengths)
    known = ids >= 0
    rows, cols = rows[known], ids[known]
    n_known = np.bincount(rows, minlength=len(token_lists)).astype(np.float64)
    data = 1.0 / n_known[rows] if len(rows) else np.zeros(0)
    matrix = sp.csr_matrix((data, (rows, cols)), shape=(len(token_lists), len(vocabulary)))
    matrix.sum_duplicates()
    matrix.sort_indices()
    return matrix


def _leading_numbers(texts: list[str]) -> list[float]:
    """The numbers that ``texts`` start with, up to the first text that is not one."""
    out: list[float] = []
    for text in texts:
        try:
            out.append(float(text))
        except ValueError:
            break
    return out


class _Header:
    """A word2vec file's first line ``count dim``, and the file's vectors checked against it."""

    def __init__(self, name: str, lineno: int, count: int, dim: int) -> None:
        self.name, self.lineno, self.count, self.dim = name, lineno, count, dim

    def check_vector(self, lineno: int, fields: list[str], held: int) -> None:
        """The vector of the ``fields`` after the word on ``lineno``, the ``held``-th of the file, fits the
        header (fields that are not all numbers are said so first: a word with a space, not a wrong header)."""
        numbers = len(fields)
        if numbers != self.dim:
            parsed = len(_leading_numbers(fields))
            if parsed < numbers:
                raise located(
                    self.name,
                    lineno,
                    f"{numbers:,} field{'s' * (numbers != 1)} after the word, the header (line {self.lineno}) "
                    f"announces {self.dim:,} numbers, and field {parsed + 1} {quoted(fields[parsed])} is not a "
                    f"number: a word with a space? (a line is one word, then its numbers, separated by single "
                    f"spaces)",
                )
            raise located(
                self.name,
                lineno,
                f"a vector of {numbers:,} number{'s' * (numbers != 1)}, the header (line {self.lineno}) "
                f"announces {self.dim:,}; make the header's second number the vectors' size",
            )
        if held > self.count:
            raise located(
                self.name,
                lineno,
                f"a vector more than the header (line {self.lineno}) announces ({self.count:,}); make the "
                f"header's first number the count of vectors, or remove the extra lines",
            )

    def check_count(self, held: int) -> None:
        if held < self.count:
            raise ClirkitError(
                f"{self.name}: the header announces {self.count:,} vectors, the file holds {held:,} (is it "
                f"truncated?); download or export the vectors again, or make the header's first number {held:,}"
            )


class _VectorBuffer:
    """Vectors of one size appended a row at a time into a float64 array that doubles when full."""

    def __init__(self, dim: int, capacity: int) -> None:
        self.array = np.empty((max(1, capacity), dim), dtype=np.float64)
        self.n = 0

    def append(self, values: list[float]) -> None:
        if self.n == len(self.array):
            grown = np.empty((2 * len(self.array), self.array.shape[1]), dtype=np.float64)
            grown[: self.n] = self.array
            self.array = grown
        self.array[self.n] = values
        self.n += 1

    def held(self) -> np.ndarray:
        return self.array[: self.n] if self.n == len(self.array) else self.array[: self.n].copy()


def _header_of(parts: list[str], name: str, lineno: int) -> _Header | None:
    """The word2vec header that the first line's ``parts`` (on ``lineno``) are, or None (two integers make one)."""
    if not (len(parts) == 2 and all(p.isascii() and p.isdigit() for p in parts)):
        return None
    if max(map(len, parts)) > 18:
        raise located(name, lineno, "a header of numbers too large to be a count and a size; give 'count dim'")
    return _Header(name, lineno, int(parts[0]), int(parts[1]))


def read_word_vectors(path: str | os.PathLike[str], dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Read a word-vector text file: lines ``word v1 ... v_dim`` (word2vec/GloVe text).

    A first line of two integers is word2vec's ``count dim`` header: the file must then hold ``count``
    vectors of ``dim`` numbers (a file cut short is an error, not fewer vectors). Returns ``(words, vectors)``
    with words as a str array and vectors as float64 ``(n, dim)``, read a line at a time. A later duplicate
    of a word is an error, and so is an empty word (a line starting with a space), a word with a NUL
    character or longer than :data:`~clirkit.translation.dictionaries.MAX_WORD_LENGTH`.

    The words are kept as written: the model matches them to its analyzed (stemmed, case-folded) terms, so a
    word starts a term only when it is that term (with a Snowball stemmer, ``love`` starts the term of
    *loving*, ``loving`` starts nothing); :func:`vector_coverage` says how many start.
    """
    from clirkit.translation.dictionaries import MAX_WORD_LENGTH

    name = display_name(path)
    words: list[str] = []
    vectors: _VectorBuffer | None = None
    seen: dict[str, int] = {}
    header: _Header | None = None
    first = True
    for lineno, line in iter_lines(path):
        parts = line.rstrip().split(" ")
        if first:
            first = False
            header = _header_of(parts, name, lineno)
            if header is not None:
                continue
        if header is not None:
            header.check_vector(lineno, parts[1:], len(words) + 1)
        if len(parts) != dim + 1:
            raise located(
                name,
                lineno,
                f"expected a word and {dim} numbers, got {len(parts)} field{'' if len(parts) == 1 else 's'} "
                f"(the model's --dim is {dim}); give vectors of --dim numbers, or set "
                f"--dim to the vectors' size (word v1 ... v_dim, separated by single spaces)",
            )
        word = parts[0]
        if not word:
            raise located(
                name, lineno, "empty word (the line starts with a space); remove the space, or give the line its word"
            )
        if "\0" in word:
            raise located(name, lineno, f"word {quoted(word, 50)} contains a NUL character; {REMOVE_NUL}")
        if len(word) > MAX_WORD_LENGTH:
            raise located(
                name,
                lineno,
                f"word of {len(word):,} characters (at most {MAX_WORD_LENGTH:,}); check the "
                f"line: a word is short (is a line break missing?)",
            )
        try:
            values = [float(x) for x in parts[1:]]
        except ValueError:
            bad = parts[1 + len(_leading_numbers(parts[1:]))]
            raise located(
                name,
                lineno,
                f"vector component {quoted(bad)} is not a number; give the word, then {dim} numbers such as 0.25",
            ) from None
        if not all(map(math.isfinite, values)):
            raise located(
                name,
                lineno,
                f"the vector of {word!r} holds inf or nan; give finite numbers (make or export the vectors again)",
            )
        if word in seen:
            raise located(
                name,
                lineno,
                f"word {word!r} already given on line {seen[word]}; give each word "
                f"one vector (remove one of the two lines)",
            )
        seen[word] = lineno
        if vectors is None:  # a header's count is a hint only: a lying one must not reserve the memory it names
            vectors = _VectorBuffer(dim, min(header.count, 65536) if header is not None else 1024)
        words.append(word)
        vectors.append(values)
    if vectors is None:
        raise ClirkitError(
            f"{name}: no word vectors in the file: check the path (word2vec or GloVe text: a word "
            f"and its {dim} numbers a line)"
        )
    if header is not None:
        header.check_count(len(words))
    held = vectors.held()
    too_large = overflowing_rows(held)
    if len(too_large):
        word = words[int(too_large[0])]
        raise located(name, seen[word], f"the vector of {word!r} is {TOO_LARGE}: scale the vectors down")
    return np.asarray(words, dtype=str), held


TOO_LARGE = "too large: its norm overflows float64 (cells of about 1e154 and more)"
"""What :func:`overflowing_rows` finds, said of a word's vector."""


def overflowing_rows(values: np.ndarray) -> np.ndarray:
    """The positions of the rows of ``values`` (``n x dim``) whose Euclidean norm overflows float64 (its sum of
    squares is inf: cells of about 1e154 and more), or that hold inf or NaN. A row that large saturates every tanh
    its word's texts enter, so they encode alike whatever their other words: refused in word vectors and in a model
    file."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.flatnonzero(~np.isfinite(np.einsum("ij,ij->i", values, values)))


@too_big_as_memory()
def initial_table(rng: np.random.Generator, vocab: np.ndarray, shape, vectors, what: str) -> np.ndarray:
    """The start of the embedding table of the words ``vocab`` (``len(vocab) x shape.dim``): normal draws of
    ``rng`` (standard deviation ``shape.init_scale``), a word's row of ``vectors`` (``(words, values)``, or None)
    in place of its draw. ClirkitError for ``values`` of another dimension, or a vector holding inf or NaN or
    too large (``what``: ``query`` or ``document``)."""
    table = rng.normal(0.0, shape.init_scale, size=(len(vocab), shape.dim))
    if vectors is not None:
        words, values = vectors
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 2 or values.shape[1] != shape.dim:
            raise ClirkitError(f"{what} word vectors have dimension {values.shape[-1]}, the model {shape.dim}")
        bad = overflowing_rows(values)
        if len(bad):
            row = int(bad[0])
            problem = TOO_LARGE if np.isfinite(values[row]).all() else "not finite (it holds inf or NaN)"
            raise ClirkitError(f"{what} word vectors: the vector of {str(words[row])!r} is {problem}")
        pos, ok = lookup(vocab, np.asarray(words, dtype=str))
        table[pos[ok]] = values[ok]
    return table


def vector_coverage(query_tokens: Sequence[Sequence[str]], query_vectors, doc_vocab: np.ndarray, doc_vectors) -> str:
    """A line saying how many words of the queries ``query_tokens`` and of the documents' vocabulary
    ``doc_vocab`` the ``(words, vectors)`` given for each side (None: not given) start."""
    parts = []
    for side, vectors in (("query", query_vectors), ("document", doc_vectors)):
        if vectors is not None:
            words = vocabulary_of(query_tokens) if side == "query" else doc_vocab
            found = int(np.isin(words, np.asarray(vectors[0], dtype=str)).sum())
            parts.append(f"{found:,} of the {len(words):,} {side} words")
    return f"scs: word vectors start {' and '.join(parts)} (the others start at random)"


class Rows:
    """Rows ``rows`` of a CSR averaging matrix, restricted to the words they use.

    ``words`` are the distinct columns of those rows and ``M`` is the
    ``len(rows) x len(words)`` sub-matrix, so the forward pass is
    ``M @ E[words]`` and the backward pass ``M^T @ grad``: sparse products
    over the batch's words only. Gathered with numpy indexing and multiplied by
    scipy, or by the compiled kernels where numba is installed (the same sums in
    the same order: :mod:`clirkit.scs.compiled`); ``M`` is then None.
    """

    def __init__(self, A: sp.csr_matrix, rows: np.ndarray) -> None:
        done, parts = compiled.call(
            "gather_rows", A.indptr, A.indices, A.data, np.asarray(rows, dtype=np.int64), A.shape[1]
        )
        if done:
            self.words, self._ptr, self._local, self._values = parts
            self.M = None
            return
        starts, ends = A.indptr[rows], A.indptr[rows + 1]
        lengths = ends - starts
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        take = np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1])
        self.words, local = np.unique(A.indices[take], return_inverse=True)
        self.M = sp.csr_matrix((A.data[take], local, indptr), shape=(len(rows), len(self.words)))

    def _matrix(self) -> sp.csr_matrix:
        """``M`` (made from the kernel's arrays when it gathered them: numba failed after)."""
        if self.M is None:
            self.M = sp.csr_matrix((self._values, self._local, self._ptr), shape=(len(self._ptr) - 1, len(self.words)))
        return self.M

    def mean(self, E: np.ndarray) -> np.ndarray:
        """``A[rows] @ E`` (``n x dim``)."""
        if self.M is None:
            done, out = compiled.call("mean_rows", self._ptr, self._local, self._values, self.words, E)
            if done:
                return out
        return self._matrix() @ E[self.words]

    def back(self, grad_mean: np.ndarray) -> np.ndarray:
        """``A[rows]^T @ grad_mean`` restricted to ``words`` (``len(words) x dim``)."""
        if self.M is None:
            done, out = compiled.call(
                "back_rows",
                self._ptr,
                self._local,
                self._values,
                len(self.words),
                np.ascontiguousarray(grad_mean, dtype=np.float64),
            )
            if done:
                return out
        return self._matrix().T @ grad_mean


def add_rows(out: np.ndarray, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.add.at(out, index, values)`` (row ``values[e]`` added to ``out[index[e]]``, e ascending), compiled
    where numba is installed; returns ``out``."""
    if not compiled.call(
        "add_rows", out, np.asarray(index, dtype=np.int64), np.ascontiguousarray(values, dtype=np.float64)
    )[0]:
        np.add.at(out, index, values)
    return out


def unit_norm(F: np.ndarray, eps: float) -> np.ndarray:
    """``F / (|F| + eps)`` row-wise, zero rows staying zero."""
    norm = np.linalg.norm(F, axis=1) + eps
    out = np.zeros_like(F)
    np.divide(F, norm[:, None], out=out, where=norm[:, None] > 0)
    return out
