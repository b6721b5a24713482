"""Text analysis: tokenization, case and punctuation folding, CJK bigrams, stopwords, stemming, n-grams.

An :class:`Analyzer` turns a text into a list of index terms, deterministically
and without network access: sacremoses (Moses) tokenization for the language,
lowercasing, removal of tokens made only of punctuation or symbols, overlapping
character bigrams of Chinese, Japanese and Korean runs (as Lucene's CJK
analyzer), an optional stopword list (the Snowball project's list of the
language, or any words; compared with the lowercased token before stemming, as
Lucene's stop filter), and Snowball stemming (PyStemmer, the Snowball project's
compiled stemmers) for every language Snowball has. Its settings are plain data
(:meth:`Analyzer.to_dict`) and are stored in every index, table and model, so
documents, queries, parallel text and dictionary entries are analyzed alike.

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
# Han (with extensions and compatibility ideographs), Hiragana, Katakana, Hangul: the scripts Lucene's CJK
# bigram filter pairs
_CJK = ("\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff"
        "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
        "\U00020000-\U0003134f")
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_SPLIT = re.compile(f"[{_CJK}]+|[^{_CJK}]+")
_WORD_IN_RUN = re.compile(r"\w(?:[\w.,'-]*\w)?")  # a word within a non-CJK run next to CJK text
CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})  # bigrams on by default
# ISO 639-1 -> the name of its Snowball stemmer (PyStemmer) and stopword list (clirkit/resources/stopwords)
SNOWBALL_STEMMERS = {
    "ar": "arabic", "ca": "catalan", "cs": "czech", "da": "danish", "de": "german", "el": "greek",
    "en": "english", "eo": "esperanto", "es": "spanish", "et": "estonian", "eu": "basque", "fa": "persian",
    "fi": "finnish", "fr": "french", "ga": "irish", "hi": "hindi", "hu": "hungarian", "hy": "armenian",
    "id": "indonesian", "it": "italian", "lt": "lithuanian", "nb": "norwegian", "ne": "nepali", "nl": "dutch",
    "no": "norwegian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "st": "sesotho", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}
SNOWBALL_STOPWORDS = frozenset({"da", "de", "en", "es", "fi", "fr", "ga", "hu", "id", "it", "nb", "nl", "no", "pt",
                                "ru", "st", "sv"})
STEMMERS = ("snowball",)
_QUOTES = (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"'))  # curly -> straight quotes
_CHUNK = 2000  # texts per worker task in tokenize_many
_CACHE: ContextVar[dict | None] = ContextVar("clirkit_token_cache", default=None)  # see cached_tokens


class Analyzer:
    """Turns text into index terms for one language.

    A text becomes terms in this order: Moses tokens; lowercased; tokens with no letter or digit dropped;
    runs of CJK characters cut into overlapping bigrams (a lone character stays a unigram); stopwords
    dropped (compared with the lowercased token); the rest stemmed.

    Args:
        lang: ISO 639-1 code given to the Moses tokenizer and naming the stemmer and stopword list
            (e.g. "en", "es", "de").
        lowercase: lowercase every token.
        strip_punctuation: drop tokens with no letter or digit.
        stopwords: ``"snowball"`` (the Snowball project's list of ``lang``: :func:`snowball_stopwords`),
            terms to drop, or None.
        stemmer: ``"snowball"``: the Snowball stemmer of ``lang`` where Snowball has one (the languages of
            :data:`SNOWBALL_STEMMERS`; others are not stemmed and :attr:`stemmer` is None), or None.
        cjk_bigrams: cut CJK runs into bigrams; None: for zh, ja and ko only.
    """

    def __init__(self, lang: str = "en", *, lowercase: bool = True, strip_punctuation: bool = True,
                 stopwords: str | Iterable[str] | None = None, stemmer: str | None = "snowball",
                 cjk_bigrams: bool | None = None) -> None:
        from clirkit.languages import check_language

        try:
            check_language(lang)
        except ValueError as exc:
            raise ClirkitError(f"language: {exc}") from None
        if stemmer is not None and stemmer not in STEMMERS:
            raise ClirkitError(f"stemmer: expected 'snowball' or None, got {stemmer!r}")
        self.lang = lang
        self.lowercase = lowercase
        self.strip_punctuation = strip_punctuation
        if isinstance(stopwords, str):
            if stopwords != "snowball":
                raise ClirkitError(f"stopwords: expected 'snowball', a list of words or None, got {stopwords!r}")
            stopwords = snowball_stopwords(lang)
        self.stopwords = frozenset(stopwords) if stopwords else frozenset()
        self.stemmer = stemmer if stemmer is not None and lang in SNOWBALL_STEMMERS else None
        self.cjk_bigrams = lang in CJK_LANGUAGES if cjk_bigrams is None else bool(cjk_bigrams)
        self._moses = None
        self._stem = None

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_moses"] = None
        state["_stem"] = None
        return state

    def __repr__(self) -> str:
        return (f"Analyzer(lang={self.lang!r}, lowercase={self.lowercase}, "
                f"strip_punctuation={self.strip_punctuation}, stopwords={len(self.stopwords)} terms, "
                f"stemmer={self.stemmer!r}, cjk_bigrams={self.cjk_bigrams})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Analyzer) and self.to_dict() == other.to_dict()

    def tokenize(self, text: str) -> list[str]:
        """The index terms of ``text``, in order (a term may repeat)."""
        return self.finish(self.surface_tokens(text))

    def surface_tokens(self, text: str) -> list[str]:
        """The tokens of ``text`` before stopwords and stemming: tokenized, case-folded, punctuation
        dropped, CJK runs cut into bigrams."""
        if not isinstance(text, str):
            raise TypeError(f"Analyzer.tokenize expects a str, got {type(text).__name__}")
        if (text.isalpha() or text.isdecimal()) and not _CJK_CHAR.search(text):  # one word: Moses keeps it whole
            tokens = [text]
        else:
            if self._moses is None:
                self._moses = _moses_class()(lang=self.lang)
            for curly, straight in _QUOTES:  # str.replace: ~10x faster than str.translate with a dict
                text = text.replace(curly, straight)
            tokens = self._moses.tokenize(text, escape=False)
        if self.lowercase:
            tokens = [t.lower() for t in tokens]
        if self.strip_punctuation:
            tokens = [t for t in tokens if _WORD_CHAR.search(t)]
        if self.cjk_bigrams and any(_CJK_CHAR.search(t) for t in tokens):
            tokens = [b for t in tokens for b in cjk_bigrams(t, self.strip_punctuation)]
        return tokens

    def finish(self, tokens: list[str]) -> list[str]:
        """``tokens`` (from :meth:`surface_tokens`) less the stopwords, stemmed: the index terms."""
        if self.stopwords:
            tokens = [t for t in tokens if t not in self.stopwords]
        if self.stemmer is not None and tokens:
            if self._stem is None:
                self._stem = _snowball(SNOWBALL_STEMMERS[self.lang])
            tokens = self._stem.stemWords(tokens)
        return tokens

    def replace(self, **changes) -> "Analyzer":
        """This analyzer with the settings in ``changes`` (keywords of :class:`Analyzer` but ``lang``) changed."""
        settings = {"lowercase": self.lowercase, "strip_punctuation": self.strip_punctuation,
                    "stopwords": self.stopwords or None, "stemmer": self.stemmer, "cjk_bigrams": self.cjk_bigrams}
        return Analyzer(self.lang, **{**settings, **changes})

    def without_stopwords(self) -> "Analyzer":
        """This analyzer with no stopwords (the same tokens, case, bigrams and stems)."""
        return self.replace(stopwords=None)

    def same_terms_as(self, other: "Analyzer") -> bool:
        """Whether ``other`` makes the same terms of a word as this analyzer does (the same language, case,
        punctuation, bigram and stemming settings; stopwords may differ): a table and an index, or a query
        analyzer and an index, must agree on these."""
        mine, theirs = self.to_dict(), other.to_dict()
        return all(mine[k] == theirs[k] for k in _TERM_SETTINGS)

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
        bare = self.replace(stopwords=None, stemmer=None)
        known = cache.setdefault(json.dumps(bare.to_dict(), sort_keys=True), {})
        new = list(dict.fromkeys(t for t in texts if t not in known))
        if new:
            known.update(zip(new, bare._tokenize_all(new, quiet=quiet, jobs=jobs, desc=desc)))
        return [self.finish(list(known[t])) for t in texts]

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
                "strip_punctuation": self.strip_punctuation, "stopwords": sorted(self.stopwords),
                "stemmer": self.stemmer, "cjk_bigrams": self.cjk_bigrams}

    @classmethod
    def from_dict(cls, settings: dict, *, where: str = "analyzer settings") -> "Analyzer":
        """Rebuild an analyzer from :meth:`to_dict`'s output.

        Malformed settings (not an object, a key missing or unknown, a value of the wrong type, an
        unknown language) raise ClirkitError ``WHERE: problem`` (``where`` names the settings). Settings
        written before stemming and bigrams existed (no ``stemmer``, no ``cjk_bigrams``) mean neither.
        """
        from clirkit.languages import check_language

        known = ("lang", "lowercase", "strip_punctuation", "stopwords", "stemmer", "cjk_bigrams")

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
        for key in ("lowercase", "strip_punctuation", "cjk_bigrams"):
            if key in settings and not isinstance(settings[key], bool):
                raise bad(f"{key} must be true or false, got {shown(settings[key])}")
        stemmer = settings.get("stemmer")
        if stemmer is not None and stemmer not in STEMMERS:
            raise bad(f"stemmer must be one of {', '.join(map(repr, STEMMERS))} or null, got {shown(stemmer)}")
        stopwords = settings.get("stopwords")
        if stopwords is not None and (not isinstance(stopwords, (list, tuple, set, frozenset))
                                      or not all(isinstance(w, str) for w in stopwords)):
            raise bad(f"stopwords must be a list of strings, got {shown(stopwords)}")
        return cls(settings["lang"], lowercase=settings["lowercase"], strip_punctuation=settings["strip_punctuation"],
                   stopwords=list(stopwords) if stopwords else None, stemmer=stemmer,
                   cjk_bigrams=settings.get("cjk_bigrams", False))


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


_TERM_SETTINGS = ("lang", "lowercase", "strip_punctuation", "stemmer", "cjk_bigrams")


@functools.cache
def _snowball(name: str):
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer(name)


def cjk_bigrams(token: str, strip_punctuation: bool = True) -> list[str]:
    """``token`` with each run of CJK characters replaced by its overlapping bigrams (a run of one character
    stays whole) and each other run by its words (``strip_punctuation``; else kept whole):
    ``"東京都庁、ab"`` -> ``["東京", "京都", "都庁", "ab"]``."""
    out: list[str] = []
    for run in _CJK_SPLIT.findall(token):
        if _CJK_CHAR.match(run):
            out.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
        elif strip_punctuation:
            out.extend(_WORD_IN_RUN.findall(run))
        else:
            out.append(run)
    return out


@functools.cache
def _snowball_list(lang: str) -> tuple[str, ...]:
    from importlib.resources import files

    name = "no" if lang == "nb" else lang
    text = files("clirkit").joinpath(f"resources/stopwords/{name}.txt").read_text(encoding="utf-8")
    return tuple(w for line in text.splitlines() for w in line.split("|", 1)[0].split())


def snowball_stopwords(lang: str) -> list[str]:
    """The Snowball project's stopword list of ``lang`` (``clirkit/resources/stopwords``, their ``stop.txt``
    files: `|` starts a comment); ClirkitError for a language Snowball has no list of."""
    if lang not in SNOWBALL_STOPWORDS:
        raise ClirkitError(f"stopwords: Snowball has no stopword list for {lang!r} "
                           f"(lists: {', '.join(sorted(SNOWBALL_STOPWORDS))}); give a file of words instead")
    return list(_snowball_list(lang))


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
