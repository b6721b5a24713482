"""The filters an :class:`clirkit.analysis.Analyzer` applies to the tokens a text was cut into (Lucene's token
filters): tokens longer than :data:`MAX_TOKEN_LENGTH` cut into pieces, tokens with no letter or digit dropped, CJK
runs cut into character bigrams."""

from __future__ import annotations

import functools
import re
from typing import Callable

from clirkit.segmenters import CJK, cjk_bigrams

MAX_TOKEN_LENGTH = 255  #: characters; from normalization version 3 a longer token is cut into pieces this long
_WORD_CHAR = re.compile(r"\w")  # (also "_": a word character of versions 1 and 2)
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_CJK_CHAR = re.compile(f"[{CJK}]")


def filtered(
    tokens: list[str], version: int, *, strip_punctuation: bool, bigrams: str | None, marks: bool = False
) -> list[str]:
    """``tokens`` (a text's, in order, lowercased) after the filters of normalization ``version``:

    - a token longer than :data:`MAX_TOKEN_LENGTH` cut into pieces that long (:func:`cut_long`; as Lucene's
      StandardTokenizer's ``maxTokenLength``): from version 3, first; from version 4, last, so that no bigram is lost
      where a run of CJK text was cut (its bigrams are short; a long word of another script is cut as before);
    - with ``strip_punctuation``, a token with no letter or digit dropped (versions 1 and 2: no word character, so
      ``___`` was kept);
    - with ``bigrams`` (``"bigrams"`` or ``"unigrams+bigrams"``, the segmenter), when a token holds CJK text, each
      token's CJK runs cut into bigrams and its other runs into words (:func:`clirkit.segmenters.cjk_bigrams`; with
      ``marks`` a combining mark kept in its word).
    """
    long = version >= 3 and bool(tokens) and max(map(len, tokens)) > MAX_TOKEN_LENGTH
    if long and version == 3:
        tokens = cut_long(tokens)
    word = _WORD_CHAR if version < 3 else _LETTER_OR_DIGIT
    if strip_punctuation:
        tokens = [t for t in tokens if t.isalnum() or word.search(t)]  # (isalnum: the same answer, faster)
    if bigrams is not None and any(_CJK_CHAR.search(t) for t in tokens):
        unigrams = bigrams == "unigrams+bigrams"
        cut = functools.partial(cjk_bigrams, unigrams=unigrams, marks=marks, drop_orphan_marks=version >= 3)
        tokens = [b for t in tokens for b in cut(t, strip_punctuation)]
    if long and version >= 4:
        tokens = cut_long(tokens, (lambda t: t.isalnum() or word.search(t) is not None) if strip_punctuation else None)
    return tokens


def cut_long(tokens: list[str], keep: Callable[[str], bool] | None = None) -> list[str]:
    """``tokens`` with each one longer than :data:`MAX_TOKEN_LENGTH` replaced by its consecutive pieces that long
    (the last shorter; an empty token has none), less the pieces of a cut token that ``keep`` (a test of a piece, or
    None: all kept) is false of."""
    out: list[str] = []
    for token in tokens:
        pieces = [token[i : i + MAX_TOKEN_LENGTH] for i in range(0, len(token), MAX_TOKEN_LENGTH)]
        out.extend(pieces if keep is None or len(pieces) < 2 else [p for p in pieces if keep(p)])
    return out
