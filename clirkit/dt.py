"""DT (direct translation): queries translated 1-best, then searched monolingually (SPEC §3).

Two sources of the translation:

- :func:`translate_tokens`: clirkit's built-in word-by-word 1-best translation from a table p(e|f):
  each source token becomes its most probable target word (ties: the alphabetically first target
  word); a token with no translation in the table (and the ``NULL`` pseudo-word) passes through
  unchanged, so names and numbers still match;
- :func:`translated_queries`: any MT system's output, a file of translated queries, analyzed with
  the target index's analyzer.

Both give :class:`~clirkit.query.StructuredQueries` over the target index's vocabulary (each
distinct target token with weight 1 and its query tf), ready for :class:`~clirkit.bm25.BM25`.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from clirkit.query import StructuredQueries
from clirkit.translation.table import NULL, TranslationTable


def best_translation_map(table: TranslationTable) -> dict[str, str]:
    """Source word -> its most probable target word, for every word with a translation."""
    best = table.best_targets()
    has = np.flatnonzero(best >= 0)
    return dict(zip(table.source_vocab[has].tolist(), table.target_vocab[best[has]].tolist()))


def translate_tokens(table: TranslationTable, token_lists: Sequence[Sequence[str]]) -> list[list[str]]:
    """Translate each token 1-best (see module docstring); one output token per input token."""
    best = best_translation_map(table)
    best.pop(NULL, None)
    out = []
    for tokens in token_lists:
        if isinstance(tokens, str):
            raise TypeError("translate_tokens expects lists of tokens, got a str")
        out.append([best.get(t, t) for t in tokens])
    return out


def dt_queries(qids: Sequence[str], token_lists: Sequence[Sequence[str]], table: TranslationTable,
               vocabulary: Mapping[str, int]) -> StructuredQueries:
    """Structured queries of the 1-best table translation of tokenized source queries."""
    return StructuredQueries.from_tokens(list(qids), translate_tokens(table, token_lists), vocabulary)


def translated_queries(queries: Mapping[str, str], analyzer, vocabulary: Mapping[str, int], *,
                       quiet: bool = True) -> StructuredQueries:
    """Structured queries from queries already translated into the target language (qid -> text),
    tokenized with ``analyzer`` (the target index's)."""
    tokens = analyzer.tokenize_many(list(queries.values()), quiet=quiet)
    return StructuredQueries.from_tokens(list(queries), tokens, vocabulary)
