"""Translation tables from word alignments: eflomal or fast_align output (Pharaoh ``i-j`` links) and the
parallel text it aligned.

Three files with one line per sentence pair: the source side, the target side, and the links, each line a
list of ``i-j`` pairs (0-based: the i-th whitespace token of the source line is aligned to the j-th of the
target line; an empty line is a pair without links). Then

    p(e|f) = count(f aligned to e) / count(f aligned)

counting every link once (a word aligned to two words counts twice in its denominator; unaligned words
count nowhere). The tokens are the whitespace tokens of the lines, so **the text must be tokenized as the
aligner saw it** (the same files given to eflomal or fast_align): the indices count those tokens. Each token
type is then analyzed with the :class:`~clirkit.analysis.Analyzer` of its language (lowercased, Snowball-stemmed
by default: Moses's escapes such as ``&apos;`` undone first), so that the table's terms are the terms of
clirkit's indexes; the counts of tokens that analyze alike add up ("house", "houses"), a token that analyzes to
several terms shares its links among them, and the links of a token without terms (punctuation, a stopword)
are dropped and counted.

All the counting is sparse matrix arithmetic: links -> a (source type x target type) count matrix, mapped
onto terms by two (type x term) matrices.
"""

from __future__ import annotations

import os
import re
from itertools import chain

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError
from clirkit.fileio import display_name, iter_lines
from clirkit.sortedunique import sorted_unique
from clirkit.translation.table import TranslationTable, normalize_rows
from clirkit.translation.weighted import unescape_moses

_LINK = re.compile(r"[0-9]{1,9}-[0-9]{1,9}")
_LINKS = re.compile(r"(?:[0-9]{1,9}-[0-9]{1,9})(?: [0-9]{1,9}-[0-9]{1,9})*")


def _lines(path) -> list[str]:
    return [text for _, text in iter_lines(path, skip_blank=False)]


def _type_ids(token_lists: list[list[str]]) -> tuple[list[str], np.ndarray]:
    """(the distinct tokens in first-seen order, the type id of every token, all lines concatenated)."""
    index: dict[str, int] = {}
    ids = np.fromiter((index.setdefault(t, len(index)) for t in chain.from_iterable(token_lists)), dtype=np.int64)
    return list(index), ids


def _term_matrix(types: list[str], analyzer) -> tuple[np.ndarray, sp.csr_matrix]:
    """(sorted term vocabulary, CSR (type x term) matrix): type t spreads weight 1 over its k terms (1/k each);
    a type without terms has an empty row."""
    terms = [analyzer.tokenize(unescape_moses(t)) for t in types]
    vocab = sorted(set(chain.from_iterable(terms)))
    index = {w: i for i, w in enumerate(vocab)}
    lengths = np.fromiter(map(len, terms), dtype=np.int64, count=len(terms))
    rows = np.repeat(np.arange(len(types)), lengths)
    cols = np.fromiter((index[w] for w in chain.from_iterable(terms)), dtype=np.int64, count=int(lengths.sum()))
    weights = 1.0 / lengths[rows] if len(rows) else np.zeros(0)
    matrix = sp.csr_matrix((weights, (rows, cols)), shape=(len(types), len(vocab)))
    return np.asarray(vocab, dtype=str), matrix


def read_links(
    path: str | os.PathLike[str],
    source_lengths: np.ndarray,
    target_lengths: np.ndarray,
    source_name: str = "the source",
    target_name: str = "the target",
) -> tuple[np.ndarray, ...]:
    """``(line, i, j)`` int64 arrays of the links of a Pharaoh file (line 0-based), checked against the token
    counts of each sentence's sides: a token that is not ``i-j``, an index past its line's tokens or a link given
    twice raises ClirkitError ``FILE:LINE: problem``. The file must have one line per sentence."""
    name = display_name(path)
    lines = _lines(path)
    n = len(source_lengths)
    if len(lines) != n:
        _count_error((name, len(lines)), (source_name, n))
    tokens = [line.split() for line in lines]
    per_line = np.fromiter(map(len, tokens), dtype=np.int64, count=n)
    joined = " ".join(chain.from_iterable(tokens))
    if joined and not _LINKS.fullmatch(joined):
        for k, toks in enumerate(tokens):
            for t in toks:
                if not _LINK.fullmatch(t):
                    shown = t if len(t) <= 30 else t[:27] + "..."
                    raise ClirkitError(
                        f"{name}:{k + 1}: {shown!r} is not a link 'i-j' (Pharaoh format: the "
                        f"0-based indices of a source and a target token, e.g. 0-1); give the "
                        f"aligner's output (fast_align's, eflomal's) as the alignments file"
                    )
    numbers = np.array(joined.replace("-", " ").split(), dtype=np.int64).reshape(-1, 2)
    line = np.repeat(np.arange(n, dtype=np.int64), per_line)
    i, j = numbers[:, 0], numbers[:, 1]
    for side, index, lengths, other in (
        ("source", i, source_lengths, source_name),
        ("target", j, target_lengths, target_name),
    ):
        bad = index >= lengths[line]
        if bad.any():
            k = int(np.argmax(bad))
            raise ClirkitError(
                f"{name}:{line[k] + 1}: link {i[k]}-{j[k]}: {side} index {index[k]} is out of range "
                f"(line {line[k] + 1} of {other} has {lengths[line[k]]} tokens, indices from 0); check "
                f"that the text is tokenized as the aligner saw it and the sides are in the aligner's "
                f"order (source-target)"
            )
    width = int(target_lengths.max(initial=0)) + 1
    keys = (line * (int(source_lengths.max(initial=0)) + 1) + i) * width + j
    order = np.argsort(keys, kind="stable")
    repeats = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if len(repeats):
        k = int(order[1:][repeats].min())
        raise ClirkitError(f"{name}:{line[k] + 1}: link {i[k]}-{j[k]} given twice: remove the repeated link")
    return line, i, j


def _count_error(first: tuple[str, int], second: tuple[str, int]) -> None:
    (longer, n_long), (shorter, n_short) = sorted((first, second), key=lambda x: -x[1])
    raise ClirkitError(
        f"{longer}:{n_short + 1}: {shorter} has only {n_short} line{'' if n_short == 1 else 's'}: the source, the "
        f"target and the alignments must have one line per sentence pair; give the three files of one corpus (an "
        f"empty sentence as an empty line)"
    )


def table_from_alignments(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    alignments: str | os.PathLike[str],
    source_lang: str,
    target_lang: str,
    *,
    lowercase: bool = True,
    stemmer: str | None = "snowball",
    stopwords=None,
    segmenter: str | None = "auto",
    chinese_script: str | None = "auto",
    reverse: bool = False,
) -> TranslationTable:
    """The table p(e|f) of word-aligned parallel text (module docstring): ``source`` and ``target`` the two
    sides as the aligner saw them (one sentence a line, tokens separated by whitespace), ``alignments`` its
    ``i-j`` links (i a source token, j a target token). Each side's tokens are analyzed by
    ``Analyzer(lang, lowercase=lowercase, stemmer=stemmer, stopwords=stopwords, segmenter=segmenter,
    chinese_script=chinese_script)``.

    ``reverse=True`` makes the table the other way round, p(source word | target word): its source language
    is then ``target_lang``. Files whose line counts differ, and links that are not ``i-j``, point past their
    line's tokens or repeat, raise ClirkitError ``FILE:LINE: problem``."""
    from clirkit.analysis import Analyzer

    names = display_name(source), display_name(target), display_name(alignments)
    settings = {
        "lowercase": lowercase,
        "stemmer": stemmer,
        "stopwords": stopwords,
        "segmenter": segmenter,
        "chinese_script": chinese_script,
    }
    analyzers = (Analyzer(source_lang, **settings), Analyzer(target_lang, **settings))
    src_tokens = [line.split() for line in _lines(source)]
    tgt_tokens = [line.split() for line in _lines(target)]
    if len(src_tokens) != len(tgt_tokens):
        _count_error((names[0], len(src_tokens)), (names[1], len(tgt_tokens)))
    if not src_tokens:
        raise ClirkitError(f"{names[0]}: empty parallel corpus: check the path (one sentence a line)")
    n = len(src_tokens)
    src_len = np.fromiter(map(len, src_tokens), dtype=np.int64, count=n)
    tgt_len = np.fromiter(map(len, tgt_tokens), dtype=np.int64, count=n)
    line, i, j = read_links(alignments, src_len, tgt_len, names[0], names[1])
    src_types, src_ids = _type_ids(src_tokens)
    tgt_types, tgt_ids = _type_ids(tgt_tokens)
    src_start = np.concatenate([[0], np.cumsum(src_len)[:-1]]).astype(np.int64)
    tgt_start = np.concatenate([[0], np.cumsum(tgt_len)[:-1]]).astype(np.int64)
    f_types, e_types = src_ids[src_start[line] + i], tgt_ids[tgt_start[line] + j]
    counts = sp.csr_matrix((np.ones(len(f_types)), (f_types, e_types)), shape=(len(src_types), len(tgt_types)))
    n_unaligned = (
        int(src_len.sum()) - len(sorted_unique(src_start[line] + i)),
        int(tgt_len.sum()) - len(sorted_unique(tgt_start[line] + j)),
    )
    sides = [(src_types, analyzers[0], source_lang), (tgt_types, analyzers[1], target_lang)]
    if reverse:
        counts = counts.T.tocsr()
        f_types, e_types = e_types, f_types
        sides.reverse()
    (f_vocab, f_map), (e_vocab, e_map) = (_term_matrix(types, analyzer) for types, analyzer, _ in sides)
    has_terms = (np.diff(f_map.indptr) > 0)[f_types] & (np.diff(e_map.indptr) > 0)[e_types]
    terms = (f_map.T @ counts @ e_map).tocsr()
    terms.eliminate_zeros()
    params = {
        "model": "alignments",
        "source_file": names[1] if reverse else names[0],
        "target_file": names[0] if reverse else names[1],
        "alignments_file": names[2],
        "reverse": reverse,
        "source_lang": sides[0][2],
        "target_lang": sides[1][2],
        "source_analyzer": sides[0][1].to_dict(),
        "target_analyzer": sides[1][1].to_dict(),
        "n_sentence_pairs": n,
        "n_links": len(line),
        "n_links_without_terms": int((~has_terms).sum()),
        "n_source_tokens_unaligned": n_unaligned[1 if reverse else 0],
        "n_target_tokens_unaligned": n_unaligned[0 if reverse else 1],
    }
    if terms.nnz == 0:
        raise ClirkitError(
            f"{names[2]}: no link between two words with terms ({len(line)} links read): check that "
            f"the alignments belong to these files and that the languages are theirs (stopwords "
            f"and stems are chosen by language)"
        )
    return TranslationTable(f_vocab, e_vocab, normalize_rows(terms), params)
