"""DT (direct translation, SPEC §3): the query is translated 1-best, then searched with BM25.

Two sources of the translation:

- :func:`translate_tokens`: clirkit's built-in word-by-word translation from a table p(e|f):
  each source token becomes its best target word; a token with no translation in the table (and the
  ``NULL`` pseudo-word) passes through unchanged, so names and numbers still match. The best target
  among tied translations follows one stated rule (:meth:`TranslationTable.best_targets`):

  1. the highest p(e|f);
  2. the dictionary rank: the translation the dictionary lists first (tables read from dictionaries
     know it: MUSE's order, Ding's and FreeDict's entry order, a pairs file's line order);
  3. the target word's frequency in the collection searched (when known: :func:`dt_queries` knows at
     least which words the index holds): a word in the collection before an absent one, then the
     rarest one, the most specific (the words of a phrase split into words tie: "give up" -> "give");
  4. the alphabetically first word, so the translation is deterministic.

- :func:`translated_queries`: any MT system's output, a file of translated queries, analyzed with
  the target index's analyzer.

Both give :class:`~clirkit.retrieval.query.StructuredQueries` over the target index's vocabulary (each
distinct target token with weight 1 and its query tf), ready for :class:`~clirkit.retrieval.bm25.BM25`.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from clirkit.retrieval.query import StructuredQueries
from clirkit.translation.phrases import join_phrases
from clirkit.translation.table import NULL, TranslationTable


def target_frequencies(
    table: TranslationTable, vocabulary: Mapping[str, int], frequency: Sequence[float] | np.ndarray | None = None
) -> np.ndarray:
    """Each target word of ``table``'s frequency in a collection whose index ``vocabulary`` maps terms to
    ids: ``frequency[id]`` (e.g. ``index.df``), or 1 for every word in the vocabulary when ``frequency``
    is None; 0 for a word not in the vocabulary. float64 (n_target,)."""
    freq = None if frequency is None else np.asarray(frequency, dtype=np.float64)
    out = np.zeros(table.n_target, dtype=np.float64)
    for j, word in enumerate(table.target_vocab.tolist()):
        i = vocabulary.get(word)
        if i is not None:
            out[j] = 1.0 if freq is None else freq[i]
    return out


def best_translation_map(table: TranslationTable, target_frequency: np.ndarray | None = None) -> dict[str, str]:
    """Source word -> its best target word (module docstring), for every word with a translation;
    ``target_frequency`` as :meth:`TranslationTable.best_targets`."""
    best = table.best_targets(target_frequency)
    has = np.flatnonzero(best >= 0)
    return dict(zip(table.source_vocab[has].tolist(), table.target_vocab[best[has]].tolist()))


def translate_tokens(
    table: TranslationTable,
    token_lists: Sequence[Sequence[str]],
    *,
    vocabulary: Mapping[str, int] | None = None,
    frequency: Sequence[float] | np.ndarray | None = None,
) -> list[list[str]]:
    """Translate each token 1-best (see module docstring); one output token per input token, the terms of a phrase
    of the table in a row taken as one token (:func:`clirkit.translation.phrases.join_phrases`).

    ``vocabulary`` (the index's term -> id) and ``frequency`` (per term id) break ties that probability
    and rank leave (:func:`target_frequencies`); without ``vocabulary`` that step is skipped."""
    if frequency is not None and vocabulary is None:
        raise ValueError("frequency is given per vocabulary id: give the vocabulary too")
    target_frequency = None if vocabulary is None else target_frequencies(table, vocabulary, frequency)
    best = best_translation_map(table, target_frequency)
    best.pop(NULL, None)
    if any(isinstance(tokens, str) for tokens in token_lists):
        raise TypeError("translate_tokens expects lists of tokens, got a str")
    return [[best.get(t, t) for t in tokens] for tokens in join_phrases(token_lists, table.source_vocab)]


def dt_queries(
    qids: Sequence[str],
    token_lists: Sequence[Sequence[str]],
    table: TranslationTable,
    vocabulary: Mapping[str, int],
    *,
    frequency: Sequence[float] | np.ndarray | None = None,
) -> StructuredQueries:
    """Structured queries of the 1-best table translation of tokenized source queries.

    Among tied translations a word of the index ``vocabulary`` wins over an absent one, and with
    ``frequency`` (per vocabulary id, e.g. ``index.df``) the rarest present word wins (module docstring)."""
    tokens = translate_tokens(table, token_lists, vocabulary=vocabulary, frequency=frequency)
    return StructuredQueries.from_tokens(list(qids), tokens, vocabulary)


def translated_queries(
    queries: Mapping[str, str], analyzer, vocabulary: Mapping[str, int], *, quiet: bool = True
) -> StructuredQueries:
    """Structured queries from queries already translated into the target language (qid -> text),
    tokenized with ``analyzer`` (the target index's)."""
    tokens = analyzer.tokenize_many(list(queries.values()), quiet=quiet)
    return StructuredQueries.from_tokens(list(queries), tokens, vocabulary)
