"""Source entries of several terms (phrases) matched in queries.

A dictionary entry that the analysis makes several terms (a Spanish "a menudo", a Chinese word of three characters
cut into bigrams, a Thai compound the segmenter splits) is kept in a table as one source word, its terms joined by
:data:`PHRASE_JOINER`. A query meets it through :func:`join_phrases`: wherever the query's terms hold a phrase's
terms in a row, the longest such phrase starting there (from the left) becomes one query term.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

#: The joiner of a phrase's terms in a table's vocabulary: one space, as clirkit's n-grams.
PHRASE_JOINER = " "


def phrase_rows(words: np.ndarray) -> np.ndarray:
    """The positions of the phrases among ``words`` (a numpy array of a table's source words), found without a
    Python loop over the words."""
    if not words.size:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.char.find(words.astype(str), PHRASE_JOINER) >= 0)


def phrase_set(words: Iterable[str] | np.ndarray) -> tuple[frozenset[tuple[str, ...]], int]:
    """The phrases among ``words`` (a table's source words; a numpy string array is scanned by
    :func:`phrase_rows`) as tuples of terms, and the most terms of one (0 when there is no phrase)."""
    if isinstance(words, np.ndarray):
        words = words[phrase_rows(words)].tolist()
    phrases = frozenset(tuple(w.split(PHRASE_JOINER)) for w in words if PHRASE_JOINER in w)
    return phrases, max(map(len, phrases), default=0)


def terms_found(token_lists: Sequence[Sequence[str]], table) -> tuple[int, int]:
    """How many of the queries' terms ``table`` (a TranslationTable) translates, and how many there are: each query's
    distinct terms once its phrases are joined (:func:`join_phrases`), as DT and PSQ look them up."""
    joined = join_phrases(token_lists, table.source_vocab)
    distinct = [t for tokens in joined for t in dict.fromkeys(tokens)]
    return sum(t in table.source_index for t in distinct), len(distinct)


def join_phrases(token_lists: Sequence[Sequence[str]], words: Iterable[str] | np.ndarray) -> list[list[str]]:
    """``token_lists`` with every run of terms that is a phrase of ``words`` (a table's source words) made one term
    (the phrase), the longest phrase first, scanning each list from the left; lists without a phrase come back as
    they are (copied). A table without phrases leaves every list as it is."""
    phrases, longest = phrase_set(words)
    if not phrases:
        return [list(tokens) for tokens in token_lists]
    return [_joined(list(tokens), phrases, longest)[0] for tokens in token_lists]


def _joined(tokens: list[str], phrases, longest: int) -> tuple[list[str], list[bool]]:
    """``tokens`` with their phrases joined (the longest first, from the left), and whether each output term is a
    phrase."""
    joined: list[str] = []
    is_phrase: list[bool] = []
    i, n = 0, len(tokens)
    while i < n:
        for length in range(min(longest, n - i), 1, -1):
            if tuple(tokens[i : i + length]) in phrases:
                joined.append(PHRASE_JOINER.join(tokens[i : i + length]))
                is_phrase.append(True)
                i += length
                break
        else:
            joined.append(tokens[i])
            is_phrase.append(False)
            i += 1
    return joined, is_phrase


def tokenize_with_phrases(
    analyzer, texts: Sequence[str], words: Iterable[str] | np.ndarray, *, quiet: bool = True
) -> list[list[str]]:
    """The terms of ``texts`` by ``analyzer`` (an Analyzer with stopwords), the phrases of ``words`` (a table's
    source words) joined before the stopwords are dropped: a phrase holding a stopword (Spanish "a menudo") is
    one term, and a stopword outside a phrase is dropped as the analyzer drops it. Without phrases, or without
    stopwords, the analyzer's own terms."""
    phrases, longest = phrase_set(words)
    if not phrases or not analyzer.stopwords:
        return analyzer.tokenize_many(texts, quiet=quiet)
    terms = analyzer.without_stopwords().tokenize_many(texts, quiet=quiet)
    surface = analyzer.replace(stopwords=None, stemmer=None).tokenize_many(texts)  # aligned with terms, 1 to 1
    out = []
    for ts, words_of in zip(terms, surface):
        joined, is_phrase = _joined(ts, phrases, longest)
        kept, i = [], 0
        for term, phrase in zip(joined, is_phrase):
            if phrase or words_of[i] not in analyzer.stopwords:
                kept.append(term)
            i += term.count(PHRASE_JOINER) + 1 if phrase else 1
        out.append(kept)
    return out
