"""The Moses tokenizer (sacremoses) as :class:`clirkit.analysis.Analyzer` uses it: its class made faster, which
words it provably keeps whole, and the hyphens its tokens keep where a run of text meets a run of another script."""

from __future__ import annotations

import functools
import re

from clirkit.segmenters import COMPLEX

QUOTES = (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"'))  # curly -> straight quotes
_COMPLEX_CHAR = re.compile(f"[{COMPLEX}]")
_PLAIN_WORDS = re.compile("[A-Za-z0-9]+(?: [A-Za-z0-9]+)*")
_DIGITS = frozenset("0123456789")


@functools.cache
def moses_class() -> type:
    """sacremoses' ``MosesTokenizer`` with its two character-class tests on sets built once.

    sacremoses rebuilds ``set(IsLower)`` / ``set(IsAlpha)`` (thousands of characters) on every call of
    ``islower`` / ``isanyalpha``, which its non-breaking-prefix rule makes for each token ending with a
    full stop: a third to a half of the time of tokenizing English verses. The answers are the same (all
    characters lowercase; any character alphabetic), so the tokens are too."""
    from sacremoses import MosesTokenizer

    class Moses(MosesTokenizer):
        _lower = frozenset(MosesTokenizer.IsLower)
        _alpha = frozenset(MosesTokenizer.IsAlpha)
        alnum = frozenset(MosesTokenizer.IsAlnum)  # the characters (marks among them) Moses never cuts a word at

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._prefixes = frozenset(self.NONBREAKING_PREFIXES)  # sacremoses scans its lists
            self._numeric_only = frozenset(self.NUMERIC_ONLY_PREFIXES)

        def islower(self, text: str) -> bool:
            return self._lower.issuperset(text)

        def isanyalpha(self, text: str) -> bool:
            return not self._alpha.isdisjoint(text)

        def handles_nonbreaking_prefixes(self, text: str) -> str:
            # sacremoses' rule without a regular expression per token and with sets for its lists: a token of the
            # split matches ^(\S+)\.$ when it ends with a full stop after one character or more (it holds no
            # space), and a next token matches ^[0-9]+ when its first character is an ASCII digit
            tokens = text.split()
            last = len(tokens) - 1
            for i, token in enumerate(tokens):
                if len(token) < 2 or token[-1] != ".":
                    continue
                prefix = token[:-1]
                if (
                    ("." in prefix and self.isanyalpha(prefix))
                    or (prefix in self._prefixes and prefix not in self._numeric_only)
                    or (i != last and self.islower(tokens[i + 1][0]))
                ):
                    continue
                if prefix in self._numeric_only and i < last and tokens[i + 1][0] in _DIGITS:
                    continue
                tokens[i] = prefix + " ."
            return " ".join(tokens)

    return Moses


def without_edge_hyphens(words: list[str], after_a_run: bool, before_a_run: bool) -> list[str]:
    """``words`` (the tokens of a run of text between runs of another script) without the hyphens at the start of
    the first when ``after_a_run`` and at the end of the last when ``before_a_run`` (a word left empty is dropped
    later, as punctuation)."""
    if not words or not (after_a_run or before_a_run):
        return words
    words = list(words)
    if after_a_run:
        words[0] = words[0].lstrip("-")
    if before_a_run:
        words[-1] = words[-1].rstrip("-")
    return words


def kept_whole(word: str) -> bool:
    """Whether Moses, and the split of Thai, Lao, Khmer and Burmese runs, keep ``word`` (letters or digits) whole
    in any text: whether every character is one Moses never cuts a word at and none is of those scripts. (Moses
    cuts at the others, such as mathematical letters or lowercase Cherokee, and a Thai run ends at a Latin letter.)
    """
    return moses_class().alnum.issuperset(word) and not _COMPLEX_CHAR.search(word)


def plain_words(text: str) -> list[str] | None:
    """The Moses tokens of a text of ASCII letters and digits in words each followed by one space but the last (the
    words; Moses changes nothing in such a text, a pre-tokenized query's, say): None for any other text, and for
    one holding ``DOTMULTI`` (Moses reads it as its own mark of a run of dots)."""
    if not text.isascii() or "DOTMULTI" in text or not _PLAIN_WORDS.fullmatch(text):
        return None
    return text.split(" ")
