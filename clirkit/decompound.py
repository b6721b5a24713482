"""Compound splitting for German and Dutch: the frequency method of Koehn and Knight (2003).

P. Koehn and K. Knight, "Empirical Methods for Compound Splitting", EACL 2003, section 3 ("frequency
based metric"): a word may be split into parts that are all known words of a lexicon with counts (from
the same corpus); of all its splits, the word unsplit included, the one with the highest geometric mean
of its parts' counts wins::

    argmax over splits S of word:  (prod_{p in S} count(p)) ** (1 / |S|)

so "verwaltungsprogramm" (4 occurrences) becomes ["verwaltung", "programm"] when those two are frequent
(141 and 143: sqrt(141 * 143) = 142.0 > 4), while "entwicklungsdateien" (800) stays whole against
"entwicklung" (135) and "dateien" (315), sqrt(135 * 315) = 206.2 < 800.

:class:`CompoundSplitter` holds the lexicon and splits words, token lists and whole corpora; it is built
from counts or from token lists, and stored as two arrays (:meth:`CompoundSplitter.to_arrays`) for an
``.npz`` file. Words are compared exactly as given: pass lowercased surface tokens (as
:meth:`clirkit.analysis.Analyzer.surface_tokens` makes them), before stopwords and stemming.
"""

from __future__ import annotations

import numbers
from collections import Counter
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from clirkit.errors import ClirkitError, ClirkitTypeError

GERMAN_FILLERS = ("", "s", "es", "n", "en", "e", "er")  # Fugenelemente: Arbeit-s-platz, Tag-es-licht, Stern-en-himmel
DUTCH_FILLERS = ("", "s", "e", "en")  # tussenklanken: stad-s-plan, pann-en-koek


def _check_counts(counts: Mapping) -> None:
    """TypeError for a word of ``counts`` that is not a str, ClirkitError for a count that is not an integer >= 0
    (a bool is not one)."""
    for word, count in counts.items():
        if not isinstance(word, str):
            raise ClirkitTypeError(f"CompoundSplitter: the words of counts must be str, got {type(word).__name__}")
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 0:
            raise ClirkitError(f"counts: the count of {word!r} must be an integer >= 0, got {count!r}")


class CompoundSplitter:
    """Splits compound words into known words, by the frequency method of Koehn and Knight (2003).

    A split of a word is a sequence of 1 to ``max_parts`` parts, each a word of the lexicon at least
    ``min_part`` characters long, that spell the word when joined with a linking element (a *filler*)
    between each two parts: ``"arbeitsplatz" = "arbeit" + "s" + "platz"``. The fillers are dropped from
    the result. The word unsplit is the one-part split whose count is the word's own (0 when it is not in
    the lexicon). The split with the highest geometric mean of its parts' counts is chosen; ties go to
    fewer parts, then to the lexicographically smallest list of parts (Python's string order, by code
    point), so the result never depends on the order of the lexicon. The geometric means are compared
    exactly, in integers. A dynamic programme over the positions where a part may start finds the best
    split of each size (about 0.1 ms for a word of 40 letters).

    Left unsplit (returned alone): words of fewer than ``2 * min_part`` characters, words with any
    character that is not a letter (``str.isalpha``: digits, hyphens, apostrophes), and words with no
    split into known parts.

    Koehn and Knight allowed parts of 3 letters and kept function words (prepositions, determiners)
    out of the parts; this class has no function-word list and takes parts of at least 4 letters by
    default instead, which keeps most function words ("der", "und", "von") out. A part must appear in
    the lexicon as written: a part whose final "e" the compound drops ("Hilfe" in "Hilfswerkzeug",
    which would need "hilf") is not restored, and fillers are not letters removed from a part.

    Args:
        counts: the lexicon: word -> number of occurrences (an integer >= 0), e.g. a corpus's token
            counts. Words with a count below ``min_count`` and words that are not all letters are left
            out (they could never be a part).
        min_part: the fewest characters of a part (>= 1).
        max_parts: the most parts of a split (>= 1; 1 never splits).
        fillers: the linking elements allowed between two parts, each a str; ``""`` lets two parts meet
            directly. The default is German's (:data:`GERMAN_FILLERS`); Dutch: :data:`DUTCH_FILLERS`.
        min_count: the least count of a lexicon word (>= 1).
        key: what of a part (or of the word) is looked up in the lexicon: None, the part itself; or a
            function of it, e.g. a stemmer's, so that the lexicon can be the stemmed terms of a translation
            table (a part is known when its stem is a term of the table).
    """

    def __init__(
        self,
        counts: Mapping[str, int],
        *,
        min_part: int = 4,
        max_parts: int = 3,
        fillers: Sequence[str] = GERMAN_FILLERS,
        min_count: int = 1,
        key: Callable[[str], str] | None = None,
    ) -> None:
        if not isinstance(counts, Mapping):
            raise ClirkitTypeError(f"CompoundSplitter expects a mapping word -> count, got {type(counts).__name__}")
        self.min_part = _positive_int("min_part", min_part)
        self.max_parts = _positive_int("max_parts", max_parts)
        self.min_count = _positive_int("min_count", min_count)
        if isinstance(fillers, str) or not all(isinstance(f, str) for f in fillers):
            raise ClirkitError(f"fillers: expected a sequence of str (e.g. ('', 's', 'es')), got {fillers!r}")
        self.fillers = tuple(dict.fromkeys(fillers))  # each once, in the order given
        if not all(type(word) is str and type(count) is int and count >= 0 for word, count in counts.items()):
            _check_counts(counts)  # (other integer types pass; the message names the first bad entry)
        self._lexicon = {w: int(c) for w, c in counts.items() if c >= self.min_count and w.isalpha()}
        self._key = key
        self._longest = max(map(len, self._lexicon), default=0)

    @classmethod
    def from_tokens(cls, token_lists: Iterable[Sequence[str]], **params) -> "CompoundSplitter":
        """A splitter whose lexicon counts every token of ``token_lists`` (lists of str, e.g. a corpus's
        lowercased surface tokens); ``params``: the keywords of :class:`CompoundSplitter`."""
        if isinstance(token_lists, str):
            raise ClirkitTypeError("CompoundSplitter.from_tokens expects token lists, got a str")
        counts: Counter[str] = Counter()
        for tokens in token_lists:
            if isinstance(tokens, str):
                raise ClirkitTypeError("CompoundSplitter.from_tokens expects token lists, got a str among them")
            counts.update(tokens)
        return cls(counts, **params)

    def __len__(self) -> int:
        """The number of words in the lexicon (after ``min_count`` and the letters-only filter)."""
        return len(self._lexicon)

    def __repr__(self) -> str:
        return (
            f"CompoundSplitter({len(self)} words, min_part={self.min_part}, max_parts={self.max_parts}, "
            f"fillers={self.fillers!r}, min_count={self.min_count})"
        )

    def get_params(self) -> dict:
        """The keywords that, with :meth:`to_arrays`, remake this splitter (:meth:`from_arrays`): plain
        JSON data, for a file's header."""
        return {
            "min_part": self.min_part,
            "max_parts": self.max_parts,
            "fillers": list(self.fillers),
            "min_count": self.min_count,
        }

    def count(self, word: str) -> int:
        """The lexicon count of ``word`` (0 when it is not in the lexicon)."""
        return self._lexicon.get(word, 0)

    def split(self, word: str) -> list[str]:
        """The parts of ``word`` (str), fillers dropped, in order; ``[word]`` when it stays whole."""
        if not isinstance(word, str):
            raise ClirkitTypeError(f"CompoundSplitter.split expects a str, got {type(word).__name__}")
        return list(self._split(word))

    def split_tokens(self, tokens: Sequence[str]) -> list[str]:
        """``tokens`` (a list of str) with each token replaced by its parts (:meth:`split`), in order."""
        return self.split_many([tokens])[0]

    def split_many(self, token_lists: Iterable[Sequence[str]]) -> list[list[str]]:
        """:meth:`split_tokens` of each list in ``token_lists``, splitting each distinct word once (the
        377,000 tokens of debian-desc-de-en's German parallel text take about half a second)."""
        if isinstance(token_lists, str):
            raise ClirkitTypeError("CompoundSplitter.split_many expects token lists, got a str")
        known: dict[str, tuple[str, ...]] = {}
        out: list[list[str]] = []
        for tokens in token_lists:
            if isinstance(tokens, str):
                raise ClirkitTypeError("CompoundSplitter expects a list of tokens, got a str")
            split: list[str] = []
            for token in tokens:
                parts = known.get(token)
                if parts is None:
                    if not isinstance(token, str):
                        raise ClirkitTypeError(f"CompoundSplitter expects str tokens, got {type(token).__name__}")
                    parts = known[token] = self._split(token)
                split.extend(parts)
            out.append(split)
        return out

    def _split(self, word: str) -> tuple[str, ...]:
        """The chosen parts of ``word``: a dynamic programme over the positions where a part may start."""
        n, lo, parts_max = len(word), self.min_part, self.max_parts
        if parts_max < 2 or n < 2 * lo or not word.isalpha():
            return (word,)
        fillers, key = self.fillers, self._key
        if key is None:
            lexicon, hi = self._lexicon, self._longest
        else:  # a part's key may be shorter than the part (a stem): every length is tried
            lexicon, hi = _KeyedLexicon(self._lexicon, key), n
        # best[i][k - 1]: (product of counts, parts) of the best split of word[i:] into exactly k parts, or
        # None; filled from the end, so a part's successors are known when the part is tried
        best: list[list[tuple[int, tuple[str, ...]] | None]] = [[None] * parts_max for _ in range(n + 1)]
        for i in range(n - lo, -1, -1):
            row = best[i]
            for j in range(i + lo, min(n, i + hi) + 1):
                part = word[i:j]
                count = lexicon.get(part)
                if count is None:
                    continue
                if j == n:  # the last part (at i == 0: the word itself, weighed apart below)
                    _better(row, 0, count, (part,))
                    continue
                for filler in fillers:
                    if not word.startswith(filler, j):
                        continue
                    rest = best[j + len(filler)]
                    for k in range(parts_max - 1):
                        if rest[k] is not None:
                            product, tail = rest[k]
                            _better(row, k + 1, count * product, (part,) + tail)
        # the word unsplit (its own count, 0 when unknown) against the best split of each size: the highest
        # geometric mean, compared exactly (a ** (1/k) > b ** (1/m)  <=>  a ** m > b ** k); ties: fewer parts
        chosen, chosen_product, chosen_size = (word,), lexicon.get(word) or 0, 1
        for k, candidate in enumerate(best[0][1:], start=2):
            if candidate is not None and candidate[0] ** chosen_size > chosen_product**k:
                chosen_product, chosen, chosen_size = candidate[0], candidate[1], k
        return chosen

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The lexicon as arrays for an ``.npz`` file: ``words`` (fixed-width unicode, sorted by code point,
        unique) and ``counts`` (int64, aligned); the other settings are :meth:`get_params`."""
        words = sorted(self._lexicon)
        return {
            "words": np.array(words, dtype=str),
            "counts": np.array([self._lexicon[w] for w in words], dtype=np.int64),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], **params) -> "CompoundSplitter":
        """The splitter of :meth:`to_arrays`'s ``arrays`` (checked: a damaged pair raises
        :class:`clirkit.npzchecks.Corrupt` naming the array and position) with ``params``, the keywords of
        :class:`CompoundSplitter` (:meth:`get_params`)."""
        from clirkit.npzchecks import require_array

        words = require_array(arrays, "words", "str", sorted=True, unique=True)
        counts = require_array(arrays, "counts", "int", shape=(len(words),), min=0, dtype=np.int64)
        return cls(dict(zip(words.tolist(), counts.tolist())), **params)


class _KeyedLexicon:
    """The counts of a lexicon looked up by ``key(word)`` (``get`` as a dict's), each key computed once."""

    def __init__(self, lexicon: Mapping[str, int], key: Callable[[str], str]) -> None:
        self._lexicon, self._key, self._keys = lexicon, key, {}

    def get(self, word: str) -> int | None:
        k = self._keys.get(word)
        if k is None:
            k = self._keys[word] = self._key(word)
        return self._lexicon.get(k)


def _better(row: list, k: int, product: int, parts: tuple[str, ...]) -> None:
    """Keep (product, parts) in ``row[k]`` if it beats what is there: a higher product, or the same
    product and lexicographically smaller parts."""
    held = row[k]
    if held is None or product > held[0] or (product == held[0] and parts < held[1]):
        row[k] = (product, parts)


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ClirkitError(f"{name}: expected an integer >= 1, got {value!r}")
    return int(value)


#: the linking elements of each language whose compounds :func:`table_splitter` splits
COMPOUNDING = {"de": GERMAN_FILLERS, "nl": DUTCH_FILLERS}
#: the languages whose queries are split under ``"auto"``: German, where it was measured (baselines/README.md:
#: better on every German collection and resource, significantly on most); Dutch is split only when asked
AUTO_LANGUAGES = ("de",)
#: the settings of :attr:`clirkit.systems.DT.decompound` (and PSQ's)
DECOMPOUND_CHOICES = ("auto", "table", "none")


def table_splitter(mode: str, table_terms: Iterable[str], analyzer) -> "CompoundSplitter | None":
    """The splitter of a query analyzed by ``analyzer`` against a translation table's source terms (None: the
    queries are not split).

    ``mode``: ``none``; ``table``: a query word that is not a term of the table (``table_terms``, stemmed as
    ``analyzer`` stems) is split into parts whose stems are terms of it (each term counts 1, so a word the
    table knows stays whole, and of the splits into known parts the one with the fewest parts wins); ``auto``:
    ``table`` for the languages of :data:`AUTO_LANGUAGES` (German), ``none`` for the others. The linking
    elements are the language's (:data:`COMPOUNDING`: German's, Dutch's; none for another language)."""
    if mode not in DECOMPOUND_CHOICES:
        raise ClirkitError(f"decompound must be one of {', '.join(DECOMPOUND_CHOICES)}, got {mode!r}")
    if mode == "none" or (mode == "auto" and analyzer.lang not in AUTO_LANGUAGES):
        return None
    bare = analyzer.without_stopwords()

    def stem(word: str) -> str:
        return bare.finish([word])[0]

    return CompoundSplitter(dict.fromkeys(table_terms, 1), fillers=COMPOUNDING.get(analyzer.lang, ("",)), key=stem)


def split_texts(analyzer, splitter: "CompoundSplitter", texts: Sequence[str], *, quiet: bool = True) -> list[list[str]]:
    """The terms of ``texts`` as ``analyzer.tokenize_many`` makes them, each surface word first replaced by its
    compound parts (``splitter``): tokenized, case-folded, split, then stopwords dropped and stems taken."""
    surface = analyzer.replace(stopwords=None, stemmer=None).tokenize_many(texts, quiet=quiet)
    return [analyzer.finish(parts) for parts in splitter.split_many(surface)]
