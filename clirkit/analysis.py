"""Text analysis: tokenization, case and punctuation folding, stopwords, n-grams.

An :class:`Analyzer` turns a text into a list of index terms, deterministically
and without network access: sacremoses (Moses) tokenization for the language,
lowercasing, removal of tokens made only of punctuation or symbols, and an
optional stopword list. Its settings are plain data (:meth:`Analyzer.to_dict`)
and are stored in every index, so queries are analyzed as the documents were.

Tokenizing is the slow part of building a table or an index (sacremoses is pure Python):
:meth:`Analyzer.tokenize_many` spreads it over processes (``jobs``), and within a
:func:`cached_tokens` block (the experiment runner's) a text is tokenized once per
analyzer settings however many tables, indexes and models read it.
"""
from __future__ import annotations

import functools
import json
import os
import re
from collections import Counter
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Iterator, Sequence

from clirkit.errors import ClirkitError

_WORD_CHAR = re.compile(r"\w")
_QUOTES = (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"'))  # curly -> straight quotes
_CHUNK = 2000  # texts per worker task in tokenize_many
_CACHE: ContextVar[dict | None] = ContextVar("clirkit_token_cache", default=None)  # see cached_tokens


class Analyzer:
    """Turns text into index terms for one language.

    Args:
        lang: ISO 639-1 code given to the Moses tokenizer (e.g. "en", "es", "de").
        lowercase: lowercase every token.
        strip_punctuation: drop tokens with no letter or digit.
        stopwords: terms to drop (compared after lowercasing), or None.
    """

    def __init__(self, lang: str = "en", *, lowercase: bool = True, strip_punctuation: bool = True,
                 stopwords: Iterable[str] | None = None) -> None:
        from clirkit.languages import check_language

        try:
            check_language(lang)
        except ValueError as exc:
            raise ClirkitError(f"language: {exc}") from None
        self.lang = lang
        self.lowercase = lowercase
        self.strip_punctuation = strip_punctuation
        self.stopwords = frozenset(stopwords) if stopwords else frozenset()
        self._moses = None

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_moses"] = None
        return state

    def __repr__(self) -> str:
        return (f"Analyzer(lang={self.lang!r}, lowercase={self.lowercase}, "
                f"strip_punctuation={self.strip_punctuation}, stopwords={len(self.stopwords)} terms)")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Analyzer) and self.to_dict() == other.to_dict()

    def tokenize(self, text: str) -> list[str]:
        """The index terms of ``text``, in order (a term may repeat)."""
        if not isinstance(text, str):
            raise TypeError(f"Analyzer.tokenize expects a str, got {type(text).__name__}")
        if self._moses is None:
            self._moses = _moses_class()(lang=self.lang)
        for curly, straight in _QUOTES:  # str.replace: ~10x faster than str.translate with a dict
            text = text.replace(curly, straight)
        tokens = self._moses.tokenize(text, escape=False)
        if self.lowercase:
            tokens = [t.lower() for t in tokens]
        if self.strip_punctuation:
            tokens = [t for t in tokens if _WORD_CHAR.search(t)]
        if self.stopwords:
            tokens = [t for t in tokens if t not in self.stopwords]
        return tokens

    def tokenize_many(self, texts: Sequence[str], *, quiet: bool = True, jobs: int = 1,
                      desc: str = "tokenizing") -> list[list[str]]:
        """The token lists of ``texts`` (str; any iterable but a str itself), in order, as
        ``[self.tokenize(t) for t in texts]``.

        ``jobs > 1`` tokenizes chunks of ``_CHUNK`` texts in that many processes (joblib, loky); the
        result does not depend on ``jobs``. Within a :func:`cached_tokens` block, a text tokenized before
        by an analyzer with the same language, case and punctuation settings is not tokenized again (the
        stopwords, which may differ, are dropped from the kept tokens); each call returns new lists.
        ``quiet``: no progress bar; ``desc``: its label.
        """
        if isinstance(texts, str):
            raise TypeError("Analyzer.tokenize_many expects a sequence of str, got a str")
        texts = texts if isinstance(texts, (list, tuple)) else list(texts)
        cache = _CACHE.get()
        if cache is None or not all(isinstance(t, str) for t in texts):  # (tokenize names a non-str)
            return self._tokenize_all(texts, quiet=quiet, jobs=jobs, desc=desc)
        bare = Analyzer(self.lang, lowercase=self.lowercase, strip_punctuation=self.strip_punctuation)
        known = cache.setdefault(json.dumps(bare.to_dict(), sort_keys=True), {})
        new = list(dict.fromkeys(t for t in texts if t not in known))
        if new:
            known.update(zip(new, bare._tokenize_all(new, quiet=quiet, jobs=jobs, desc=desc)))
        stop = self.stopwords
        return [[w for w in known[t] if w not in stop] if stop else list(known[t]) for t in texts]

    def _tokenize_all(self, texts: Sequence[str], *, quiet: bool, jobs: int, desc: str) -> list[list[str]]:
        from clirkit.progress import progress

        chunks = [texts[i:i + _CHUNK] for i in range(0, len(texts), _CHUNK)]
        if jobs == 1 or len(chunks) <= 1:
            out: list[list[str]] = []
            for chunk in progress(chunks, desc=desc, quiet=quiet, unit="chunk"):
                out.extend(self.tokenize(t) for t in chunk)
            return out
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=jobs, return_as="generator")(
            delayed(_tokenize_chunk)(self, chunk) for chunk in chunks)
        out = []
        for part in progress(results, desc=desc, total=len(chunks), quiet=quiet, unit="chunk"):
            out.extend(part)
        return out

    def to_dict(self) -> dict:
        """The settings as JSON-ready data (stopwords sorted)."""
        return {"lang": self.lang, "lowercase": self.lowercase,
                "strip_punctuation": self.strip_punctuation, "stopwords": sorted(self.stopwords)}

    @classmethod
    def from_dict(cls, settings: dict, *, where: str = "analyzer settings") -> "Analyzer":
        """Rebuild an analyzer from :meth:`to_dict`'s output.

        Malformed settings (not an object, a key missing or unknown, a value of the wrong type, an
        unknown language) raise ClirkitError ``WHERE: problem`` (``where`` names the settings).
        """
        from clirkit.languages import check_language

        known = ("lang", "lowercase", "strip_punctuation", "stopwords")

        def bad(problem: str) -> ClirkitError:
            return ClirkitError(f"{where}: {problem}")

        def shown(value: object) -> str:
            text = repr(value)
            return text if len(text) <= 40 else text[:37] + "..."

        if not isinstance(settings, dict):
            raise bad(f"expected an object with lang, lowercase and strip_punctuation, got {shown(settings)}")
        missing = [k for k in ("lang", "lowercase", "strip_punctuation") if k not in settings]
        if missing:
            raise bad(f"missing {', '.join(missing)}")
        unknown = sorted(str(k) for k in settings if k not in known)
        if unknown:
            raise bad(f"unknown setting {unknown[0]!r} (known: {', '.join(known)})")
        try:
            check_language(settings["lang"])
        except ValueError as exc:
            raise bad(f"lang: {exc}") from None
        for key in ("lowercase", "strip_punctuation"):
            if not isinstance(settings[key], bool):
                raise bad(f"{key} must be true or false, got {shown(settings[key])}")
        stopwords = settings.get("stopwords")
        if stopwords is not None and (not isinstance(stopwords, (list, tuple, set, frozenset))
                                      or not all(isinstance(w, str) for w in stopwords)):
            raise bad(f"stopwords must be a list of strings, got {shown(stopwords)}")
        return cls(settings["lang"], lowercase=settings["lowercase"], strip_punctuation=settings["strip_punctuation"],
                   stopwords=stopwords or None)


@contextmanager
def cached_tokens() -> Iterator[None]:
    """A block within which :meth:`Analyzer.tokenize_many` tokenizes each distinct text once per language,
    case and punctuation settings (whatever the stopwords), and keeps its tokens until the block ends.

    The experiment runner runs inside one, so that a table, an index and a boosted model made from the
    same texts tokenize them once (e.g. the documents that are also the parallel corpus's target side, a
    parallel corpus's source side read again as a boosted model's known-item queries, topics searched by
    several systems). Memory: the token lists of every distinct text met (the strings are shared with the
    lists handed out). A nested block uses the outer block's cache; the cache is this thread's (or
    task's), and worker processes only ever see the texts they are sent.
    """
    if _CACHE.get() is not None:
        yield
        return
    token = _CACHE.set({})
    try:
        yield
    finally:
        _CACHE.reset(token)


@functools.cache
def _moses_class() -> type:
    """sacremoses' ``MosesTokenizer`` with its two character-class tests on sets built once.

    sacremoses rebuilds ``set(IsLower)`` / ``set(IsAlpha)`` (thousands of characters) on every call of
    ``islower`` / ``isanyalpha``, which its non-breaking-prefix rule makes for each token ending with a
    full stop: a third to a half of the time of tokenizing English verses. The answers are the same (all
    characters lowercase; any character alphabetic), so the tokens are too."""
    from sacremoses import MosesTokenizer

    class Moses(MosesTokenizer):
        _lower = frozenset(MosesTokenizer.IsLower)
        _alpha = frozenset(MosesTokenizer.IsAlpha)

        def islower(self, text: str) -> bool:
            return self._lower.issuperset(text)

        def isanyalpha(self, text: str) -> bool:
            return not self._alpha.isdisjoint(text)

    return Moses


def _tokenize_chunk(analyzer: Analyzer, texts: Sequence[str]) -> list[list[str]]:
    return [analyzer.tokenize(t) for t in texts]


def ngrams(tokens: Sequence[str], n: int) -> list[str]:
    """All 1..n-grams of ``tokens``: unigrams first, then bigrams, ...; words joined by a space."""
    if n < 1:
        raise ValueError(f"n-gram order must be >= 1, got {n}")
    out = list(tokens)
    for k in range(2, n + 1):
        out.extend(" ".join(tokens[i:i + k]) for i in range(len(tokens) - k + 1))
    return out


def frequent_terms(token_lists: Iterable[Sequence[str]], n: int) -> list[str]:
    """The ``n`` terms with the highest collection frequency (ties by term), a corpus-derived stoplist."""
    counts: Counter[str] = Counter()
    for tokens in token_lists:
        counts.update(tokens)
    return [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def read_stopwords(path: str | os.PathLike[str]) -> list[str]:
    """Read a stopword file: one term per line; ``#`` starts a comment."""
    from clirkit.fileio import iter_lines

    words = []
    for _, line in iter_lines(path):
        word = line.split("#", 1)[0].strip()
        if word:
            words.append(word)
    return words
