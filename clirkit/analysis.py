"""Text analysis: tokenization, case and punctuation folding, CJK bigrams, stopwords, stemming, n-grams.

An :class:`Analyzer` turns a text into a list of index terms, deterministically
and without network access: Unicode's composed form (NFC, soft hyphens dropped),
sacremoses (Moses) tokenization for the language,
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
import sys
from collections import Counter
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterable, Iterator, Sequence

from clirkit.errors import ClirkitError, ClirkitTypeError, located
from clirkit.languages import SNOWBALL_STEMMERS, SNOWBALL_STOPWORDS
from clirkit.mosestokens import QUOTES, kept_whole, moses_class, plain_words, without_edge_hyphens
from clirkit.segmenters import (
    CHINESE_SCRIPTS,
    CJK,
    COMPLEX,
    SEGMENTED,
    SEGMENTERS,
    check_chinese_script,
    check_segmenter,
    runs,
    script_converter,
    word_segmenter,
)
from clirkit.tokenfilters import MAX_TOKEN_LENGTH as MAX_TOKEN_LENGTH  # (the constant is analysis's too)
from clirkit.tokenfilters import filtered
from clirkit.unicodefold import (
    NORMALIZATION_VERSIONS,
    composed,
    controls_as_spaces,
    folded,
    folded_widths,
    folded_word,
    is_version,
    lowercaser,
    may_change,
    split_keeping_marks,
)

_CJK_CHAR = re.compile(f"[{CJK}]")
_COMPLEX_CHAR = re.compile(f"[{COMPLEX}]")
STEMMERS = ("snowball",)
_CHUNK = 2000  # texts per worker task in tokenize_many
_CACHE: ContextVar[dict | None] = ContextVar("clirkit_token_cache", default=None)  # see cached_tokens


class Analyzer:
    """Turns text into index terms for one language.

    A text becomes terms in this order: control characters made spaces (version 4); put in Unicode's composed form
    (``compose``); Chinese converted to one script (``chinese_script``); joiners and Thai and Lao vowels normalized,
    invisible format characters, Hebrew points and Arabic harakat removed, ligatures and mathematical letters made
    plain (``normalization_version``); runs of the scripts a word segmenter handles cut into its words, the rest into
    Moses tokens (each run's widths folded first, a combining mark kept in its word; runs of Thai, Lao, Khmer and
    Burmese are never given to Moses: without a segmenter each stays whole); lowercased (Turkish and Azeri as
    Lucene's TurkishLowerCaseFilter); tokens longer than :data:`MAX_TOKEN_LENGTH` cut into pieces (version 3; version
    4 cuts them after the bigrams); tokens with no letter or digit dropped; CJK runs cut into character bigrams
    (``bigrams``, ``unigrams+bigrams``); stopwords dropped (compared with the lowercased token); the rest stemmed (a
    word whose stem would be empty is kept as it is).

    Args:
        lang: ISO 639-1 code given to the Moses tokenizer and naming the stemmer and stopword list
            (e.g. "en", "es", "de").
        lowercase: lowercase every token.
        strip_punctuation: drop tokens with no letter or digit (a Thai word with its marks has letters; a token of
            underscores alone is dropped from normalization version 3 on).
        stopwords: ``"snowball"`` (the Snowball project's list of ``lang``: :func:`snowball_stopwords`),
            terms to drop, or None.
        stemmer: ``"snowball"``: the Snowball stemmer of ``lang`` where Snowball has one (the languages of
            :data:`SNOWBALL_STEMMERS`; others are not stemmed and :attr:`stemmer` is None), or None.
        segmenter: how scripts written without spaces become terms (:mod:`clirkit.segmenters`): ``"auto"``
            (the language's default, :data:`clirkit.segmenters.DEFAULT_SEGMENTERS`: ICU words for Chinese,
            Japanese, Thai, Lao, Khmer and Burmese, bigrams for Korean, none for others), ``"bigrams"``,
            ``"unigrams+bigrams"``, ``"icu"``, ``"jieba"`` or None.
        chinese_script: ``"auto"`` (simplified for Chinese, none for other languages), ``"simplified"``,
            ``"traditional"`` or None: the script Chinese text is converted to (OpenCC) before tokenizing.
        cjk_bigrams: the settings of old files: True is ``segmenter="bigrams"``, False no segmenter.
        compose: put texts (and stopwords) in Unicode's composed form first (:func:`composed`); False: the
            analysis of files written before clirkit composed texts, which their settings read back as.
        normalization_version: 2: fold widths (:func:`clirkit.unicodefold.folded_widths`), Indic joiners and Thai
            and Lao SARA AM (:func:`clirkit.unicodefold.normalized`), lowercase Turkish and Azeri as Turkish, keep
            combining marks in their word; 3: also remove invisible format characters and variation selectors
            (:func:`clirkit.unicodefold.without_ignorables`), keep a mark in the run of the character it follows and
            drop one that follows a space (never moved onto the next word), cut a text of one word as within a longer
            text (Moses cuts mathematical letters, a Thai run ends at a Latin letter), cut a token longer than
            :data:`MAX_TOKEN_LENGTH` into pieces that long; 4: also make a control character a space
            (:func:`clirkit.unicodefold.controls_as_spaces`: ``dog`` BEL ``bird`` is two words), remove Hebrew points
            and cantillation, Arabic harakat and the tatweel, fold Latin ligatures and mathematical letters and
            digits to plain ones (NFKC of these alone), remove ZWJ and ZWNJ between Latin, Greek or Cyrillic letters
            (:func:`clirkit.unicodefold.letters_folded`), and cut a long token after CJK runs are cut into bigrams
            (no bigram lost at a cut); 5 (the default): also version 5's folds (:mod:`clirkit.unicodefold`: more
            invisible characters, joiners in Armenian, Georgian and Hangul, the Hebrew maqaf and gershayim, Greek
            accents and final sigma); 1: files written before version 2 was recorded; 2 to 4 read back as such.
    """

    def __init__(
        self,
        lang: str = "en",
        *,
        lowercase: bool = True,
        strip_punctuation: bool = True,
        stopwords: str | Iterable[str] | None = None,
        stemmer: str | None = "snowball",
        segmenter: str | None = "auto",
        chinese_script: str | None = "auto",
        cjk_bigrams: bool | None = None,
        compose: bool = True,
        normalization_version: int = NORMALIZATION_VERSIONS[-1],
    ) -> None:
        from clirkit.languages import check_language

        try:
            check_language(lang)
        except ValueError as exc:
            raise ClirkitError(f"language: {exc}") from None
        if stemmer is not None and stemmer not in STEMMERS:
            raise ClirkitError(f"stemmer: expected 'snowball' or None, got {stemmer!r}")
        self.lang = lang
        self.lowercase = _flag("lowercase", lowercase)
        self.strip_punctuation = _flag("strip_punctuation", strip_punctuation)
        self.stemmer = stemmer if stemmer is not None and lang in SNOWBALL_STEMMERS else None
        if cjk_bigrams is not None:
            cjk_bigrams = _flag("cjk_bigrams", cjk_bigrams)
            if segmenter not in ("auto", "bigrams" if cjk_bigrams else None):
                raise ClirkitError(f"segmenter {segmenter!r} and cjk_bigrams={cjk_bigrams}: give one of them")
            segmenter = "bigrams" if cjk_bigrams else None
        self.segmenter = check_segmenter(segmenter, lang)
        self.chinese_script = check_chinese_script(chinese_script, lang)
        self.compose = _flag("compose", compose)
        if not is_version(normalization_version):
            raise ClirkitError(
                f"normalization_version: expected one of {', '.join(map(str, NORMALIZATION_VERSIONS))}, "
                f"got {normalization_version!r}"
            )
        self.normalization_version = int(normalization_version)
        if isinstance(stopwords, str) or not isinstance(stopwords, (Iterable, type(None))):
            if stopwords != "snowball":
                raise ClirkitError(f"stopwords: expected 'snowball', a list of words or None, got {stopwords!r}")
            stopwords = snowball_stopwords(lang)
        self.stopwords = self._as_tokens(stopwords or ())
        self._moses = None
        self._stem = None
        self._words = None

    def _as_tokens(self, words: Iterable[str]) -> frozenset[str]:
        """Stopwords as the tokens they must match (:meth:`surface_tokens`): composed when it composes, in this
        analyzer's Chinese script and, when it lowercases, in lower case. ClirkitError for an entry holding a
        space (no token does)."""
        out = set()
        for word in words:
            if not isinstance(word, str):
                raise ClirkitError(f"stopwords: expected words (str), got {word!r}")
            token = self.as_token(word.strip())  # (version 4: a control character is a space, as in a text)
            if any(c.isspace() for c in token):
                raise ClirkitError(f"stopwords: {word.strip()!r} holds a space: a stopword is one token")
            out.add(token)
        out.discard("")
        return frozenset(out)

    def as_token(self, word: str) -> str:
        """``word``, one token as a list or a table holds it, with the characters' normalization a token of
        :meth:`surface_tokens` has: composed when it composes, the folds of normalization version 2 (widths,
        joiners, Thai and Lao vowels), 3 (invisible format characters), 4 (control characters made spaces, points,
        ligatures, mathematical letters, joiners between letters) and 5 (more format characters and joiners, Hebrew
        marks), this analyzer's Chinese script, and lower case (Turkish and Azeri's own, Greek's) when it lowercases;
        not stemmed."""
        word = folded_word(composed(word) if self.compose else word, self.normalization_version, self.lang)
        if self.chinese_script is not None:
            word = script_converter(self.chinese_script)(word)
        return lowercaser(self.lang, self.normalization_version, word)(word) if self.lowercase else word

    def unmatched_stopwords(self) -> list[str]:
        """The stopwords that no token of this analysis can be (sorted): those it cuts into several tokens or
        none (``don't`` -> ``don``, ``'t``; a Korean word under bigrams; punctuation). For a note to the user who
        gave them; computed when asked."""
        bare = self.replace(stopwords=None, stemmer=None)
        return sorted(w for w in self.stopwords if bare.surface_tokens(w) != [w])

    @property
    def cjk_bigrams(self) -> bool:
        """Whether CJK runs are cut into overlapping bigrams alone (``segmenter == "bigrams"``)."""
        return self.segmenter == "bigrams"

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_moses": None, "_stem": None, "_words": None}

    def __repr__(self) -> str:
        return (
            f"Analyzer(lang={self.lang!r}, lowercase={self.lowercase}, "
            f"strip_punctuation={self.strip_punctuation}, stopwords={len(self.stopwords)} terms, "
            f"stemmer={self.stemmer!r}, segmenter={self.segmenter!r}, chinese_script={self.chinese_script!r}, "
            f"compose={self.compose}, normalization_version={self.normalization_version})"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Analyzer) and self.to_dict() == other.to_dict()

    def tokenize(self, text: str) -> list[str]:
        """The index terms of ``text``, in order (a term may repeat)."""
        return self.finish(self.surface_tokens(text))

    def surface_tokens(self, text: str) -> list[str]:
        """The tokens of ``text`` before stopwords and stemming: composed (:func:`composed`), converted to one
        Chinese script, segmented or tokenized, case-folded, punctuation dropped, CJK runs cut into bigrams."""
        if not isinstance(text, str):
            raise ClirkitTypeError(f"Analyzer.tokenize expects a str, got {type(text).__name__}")
        version = self.normalization_version
        if version >= 4:
            text = controls_as_spaces(text)
        if self.compose:
            text = composed(text)
        if self.chinese_script is not None:
            text = script_converter(self.chinese_script)(text)
        folds = version >= 2 and may_change(text, version)  # (False for most texts: the fast path)
        if folds:
            text = folded(text, version, self.lang)
        chars = SEGMENTED.get(self.segmenter)
        if chars is None:
            tokens = self._moses_tokens(folded_widths(text) if folds else text, folds)
        else:
            tokens = self._segmented_tokens(text, chars, folds)
        if self.lowercase:
            lower = lowercaser(self.lang, self.normalization_version, text)
            tokens = [lower(t) for t in tokens]
        bigrams = self.segmenter if chars is None else None  # (None, or the segmenter cutting CJK runs into bigrams)
        return filtered(tokens, version, strip_punctuation=self.strip_punctuation, bigrams=bigrams, marks=folds)

    def _segmented_tokens(self, text: str, chars: str, folds: bool) -> list[str]:
        """The tokens of ``text``'s runs of ``chars`` (a regex class body), by the word segmenter, and of the other
        runs, by :meth:`_moses_tokens`; with ``folds``, each run's widths folded first and (version 3) a combining
        mark after a character of ``chars`` kept in its run. From version 3, when it strips punctuation, a hyphen
        the Moses tokens keep where a run meets a run of ``chars`` is dropped (``iPhone-新款``: ``iPhone``), as
        the bigram segmenter drops it: the change of script ends the word."""
        if self._words is None:
            self._words = word_segmenter(self.segmenter, self.lang)
        parts = runs(text, chars, marks=folds and self.normalization_version >= 3)
        trim = self.strip_punctuation and self.normalization_version >= 3
        tokens: list[str] = []
        for i, (inside, run) in enumerate(parts):
            run = folded_widths(run) if folds else run
            if inside:
                tokens.extend(self._words(run))
                continue
            words = self._moses_tokens(run, folds)
            tokens.extend(without_edge_hyphens(words, i > 0, i + 1 < len(parts)) if trim else words)
        return tokens

    def _moses_tokens(self, text: str, marks: bool = False) -> list[str]:
        """The Moses tokens of ``text``, each run of Thai, Lao, Khmer or Burmese kept whole (Moses would cut it
        at its marks; from version 3 a hyphen where another run meets it is dropped, as in
        :meth:`_segmented_tokens`), and with ``marks`` a combining mark kept in its word (version 3: in the word or
        run of the character it follows, or dropped with a space it follows: never moved onto the next word)."""
        if (text.isalpha() or text.isdecimal()) and not _CJK_CHAR.search(text) and "DOTMULTI" not in text:
            if text.isascii() or self.normalization_version < 3 or kept_whole(text):  # Moses keeps it whole
                return [text]
        if (words := plain_words(text)) is not None:
            return words
        if _COMPLEX_CHAR.search(text):
            parts = runs(text, COMPLEX, marks=marks and self.normalization_version >= 3)
            trim = self.strip_punctuation and self.normalization_version >= 3
            tokens: list[str] = []
            for i, (inside, run) in enumerate(parts):
                words = [run] if inside else self._moses_tokens(run, marks)
                tokens.extend(without_edge_hyphens(words, i > 0, i + 1 < len(parts)) if trim and not inside else words)
            return tokens
        if self._moses is None:
            self._moses = moses_class()(lang=self.lang)
        for curly, straight in QUOTES:  # str.replace: ~10x faster than str.translate with a dict
            text = text.replace(curly, straight)
        if marks:
            split = functools.partial(self._moses.tokenize, escape=False)
            return split_keeping_marks(split, text, self._moses.alnum, drop_orphans=self.normalization_version >= 3)
        return self._moses.tokenize(text, escape=False)

    def finish(self, tokens: list[str]) -> list[str]:
        """``tokens`` (from :meth:`surface_tokens`) less the stopwords, stemmed (a word whose stem would be empty
        kept as it is): the index terms."""
        if self.stopwords:
            tokens = [t for t in tokens if t not in self.stopwords]
        if self.stemmer is not None and tokens:
            if self._stem is None:
                self._stem = _snowball(SNOWBALL_STEMMERS[self.lang])
            stems = self._stem.stemWords(tokens)
            tokens = stems if all(stems) else [s or t for s, t in zip(stems, tokens)]
        return tokens

    def replace(self, **changes) -> "Analyzer":
        """This analyzer with the settings in ``changes`` (keywords of :class:`Analyzer` but ``lang``) changed."""
        settings = {
            "lowercase": self.lowercase,
            "strip_punctuation": self.strip_punctuation,
            "stopwords": self.stopwords or None,
            "stemmer": self.stemmer,
            "segmenter": self.segmenter,
            "chinese_script": self.chinese_script,
            "compose": self.compose,
            "normalization_version": self.normalization_version,
        }
        return Analyzer(self.lang, **{**settings, **changes})

    def without_stopwords(self) -> "Analyzer":
        """This analyzer with no stopwords (the same tokens, case, bigrams and stems)."""
        return self.replace(stopwords=None)

    def same_terms_as(self, other: "Analyzer") -> bool:
        """Whether ``other`` makes the same terms of a word as this analyzer does (the same language, case,
        punctuation, segmentation, script and stemming settings; stopwords may differ): a table and an index,
        or a query analyzer and an index, must agree on these."""
        return all(getattr(self, k) == getattr(other, k) for k in _TERM_SETTINGS)

    def tokenize_many(
        self, texts: Sequence[str], *, quiet: bool = True, jobs: int = 1, desc: str = "tokenizing"
    ) -> list[list[str]]:
        """The token lists of ``texts`` (str; any iterable but a str itself), in order, as
        ``[self.tokenize(t) for t in texts]``.

        ``jobs > 1`` tokenizes chunks of ``_CHUNK`` texts in that many processes (joblib, loky); the
        result does not depend on ``jobs``. Within a :func:`cached_tokens` block, a text tokenized before
        by an analyzer with the same language, case and punctuation settings is not tokenized again (the
        stopwords, which may differ, are dropped from the kept tokens); each call returns new lists.
        ``quiet``: no progress bar; ``desc``: its label.
        """
        if isinstance(texts, str):
            raise ClirkitTypeError("Analyzer.tokenize_many expects a sequence of str, got a str")
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

    def tokenize_stream(
        self, items: Iterable, texts: Callable[[Any], Sequence[str]], *, jobs: int = 1
    ) -> Iterator[tuple[Any, list[list[str]]]]:
        """``(item, token lists of texts(item))`` for each of ``items`` (chunks of documents, say), in order, as
        :meth:`tokenize_many` gives them: with ``jobs > 1`` the next items are tokenized by worker processes
        while the caller works on one (:func:`clirkit.parallel.ordered_stream`). Within a
        :func:`cached_tokens` block, :meth:`tokenize_many` of each item in turn (its cache kept)."""
        from clirkit.parallel import ordered_stream

        if _CACHE.get() is not None:
            yield from ((item, self.tokenize_many(texts(item), jobs=jobs)) for item in items)
            return
        yield from ordered_stream(functools.partial(_tokenize_chunk, self), items, jobs=jobs, argument=texts)

    def _tokenize_all(self, texts: Sequence[str], *, quiet: bool, jobs: int, desc: str) -> list[list[str]]:
        from clirkit.progress import progress

        chunks = [texts[i : i + _CHUNK] for i in range(0, len(texts), _CHUNK)]
        if jobs == 1 or len(chunks) <= 1:
            out: list[list[str]] = []
            for chunk in progress(chunks, desc=desc, quiet=quiet, unit="chunk"):
                out.extend(self.tokenize(t) for t in chunk)
            return out
        from joblib import Parallel, delayed

        from clirkit.parallel import active_backend, processes

        results = Parallel(n_jobs=processes(jobs), backend=active_backend(), return_as="generator")(
            delayed(_tokenize_chunk)(self, chunk) for chunk in chunks
        )
        out = []
        for part in progress(results, desc=desc, total=len(chunks), quiet=quiet, unit="chunk"):
            out.extend(part)
        return out

    def to_dict(self) -> dict:
        """The settings as JSON-ready data (stopwords sorted). ``cjk_bigrams`` is true for the bigram segmenter
        (as files written before the other segmenters say it); ``segmenter`` is written for the others and
        ``chinese_script`` when there is one, so that the settings of every other analyzer read as before;
        ``compose`` when true and ``normalization_version`` when 2 or more (settings without them are of files written
        before, and read back as such: an experiment's records of them differ, so its index and tables are made
        again)."""
        out = {
            "lang": self.lang,
            "lowercase": self.lowercase,
            "strip_punctuation": self.strip_punctuation,
            "stopwords": sorted(self.stopwords),
            "stemmer": self.stemmer,
            "cjk_bigrams": self.cjk_bigrams,
        }
        if self.segmenter not in (None, "bigrams"):
            out["segmenter"] = self.segmenter
        if self.chinese_script is not None:
            out["chinese_script"] = self.chinese_script
        if self.compose:
            out["compose"] = True
        if self.normalization_version != 1:
            out["normalization_version"] = self.normalization_version
        return out

    @classmethod
    def from_dict(cls, settings: dict, *, where: str = "analyzer settings") -> "Analyzer":
        """Rebuild an analyzer from :meth:`to_dict`'s output.

        Malformed settings (not an object, a key missing or unknown, a value of the wrong type, an
        unknown language) raise ClirkitError ``WHERE: problem`` (``where`` names the settings). Settings
        written before stemming and bigrams existed (no ``stemmer``, no ``cjk_bigrams``) mean neither; without
        ``segmenter`` the segmenter is ``bigrams`` or none as ``cjk_bigrams`` says, without ``chinese_script``
        no script conversion, without ``compose`` texts not composed, without ``normalization_version`` version 1
        (the analysis that made them).
        """
        from clirkit.languages import check_language

        known = (
            "lang",
            "lowercase",
            "strip_punctuation",
            "stopwords",
            "stemmer",
            "cjk_bigrams",
            "segmenter",
            "chinese_script",
            "compose",
            "normalization_version",
        )

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
        for key in ("lowercase", "strip_punctuation", "cjk_bigrams", "compose"):
            if key in settings and not isinstance(settings[key], bool):
                raise bad(f"{key} must be true or false, got {shown(settings[key])}")
        stemmer = settings.get("stemmer")
        if stemmer is not None and stemmer not in STEMMERS:
            raise bad(f"stemmer must be one of {', '.join(map(repr, STEMMERS))} or null, got {shown(stemmer)}")
        stopwords = settings.get("stopwords")
        if stopwords is not None and (
            not isinstance(stopwords, (list, tuple, set, frozenset)) or not all(isinstance(w, str) for w in stopwords)
        ):
            raise bad(f"stopwords must be a list of strings, got {shown(stopwords)}")
        segmenter = settings.get("segmenter", "bigrams" if settings.get("cjk_bigrams", False) else None)
        if segmenter is not None and segmenter not in SEGMENTERS:
            raise bad(f"segmenter must be one of {', '.join(SEGMENTERS)} or null, got {shown(segmenter)}")
        version = settings.get("normalization_version", 1)
        if not is_version(version):
            versions = ", ".join(map(str, NORMALIZATION_VERSIONS))
            raise bad(f"normalization_version must be one of {versions}, got {shown(version)}")
        script = settings.get("chinese_script")
        if script is not None and script not in CHINESE_SCRIPTS:
            raise bad(f"chinese_script must be one of {', '.join(CHINESE_SCRIPTS)} or null, got {shown(script)}")
        return cls(
            settings["lang"],
            lowercase=settings["lowercase"],
            strip_punctuation=settings["strip_punctuation"],
            stopwords=list(stopwords) if stopwords else None,
            stemmer=stemmer,
            segmenter=segmenter,
            chinese_script=script,
            compose=settings.get("compose", False),
            normalization_version=version,
        )


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


def _flag(name: str, value: object) -> bool:
    """``value`` of the on/off setting ``name`` as a bool (a numpy bool converted); ClirkitError for anything else
    (``"no"`` would mean True, and 0 is refused when the settings are read back)."""
    numpy = sys.modules.get("numpy")  # (a numpy bool exists only once numpy is imported)
    if numpy is not None and isinstance(value, numpy.bool_):
        return bool(value)
    if not isinstance(value, bool):
        raise ClirkitError(f"{name}: expected True or False, got {value!r}")
    return value


_TERM_SETTINGS = ("lang", "lowercase", "strip_punctuation", "stemmer", "segmenter", "chinese_script")


@functools.cache
def _snowball(name: str):
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer(name)


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
        raise ClirkitError(
            f"stopwords: Snowball has no stopword list for {lang!r} "
            f"(lists: {', '.join(sorted(SNOWBALL_STOPWORDS))}); give a file of words instead"
        )
    return list(_snowball_list(lang))


def _tokenize_chunk(analyzer: Analyzer, texts: Sequence[str]) -> list[list[str]]:
    return [analyzer.tokenize(t) for t in texts]


def ngrams(tokens: Sequence[str], n: int) -> list[str]:
    """All 1..n-grams of ``tokens``: unigrams first, then bigrams, ...; words joined by a space."""
    if n < 1:
        raise ValueError(f"n-gram order must be >= 1, got {n}")
    out = list(tokens)
    for k in range(2, n + 1):
        out.extend(" ".join(tokens[i : i + k]) for i in range(len(tokens) - k + 1))
    return out


def frequent_terms(token_lists: Iterable[Sequence[str]], n: int) -> list[str]:
    """The ``n`` terms with the highest collection frequency (ties by term), a corpus-derived stoplist."""
    counts: Counter[str] = Counter()
    for tokens in token_lists:
        counts.update(tokens)
    return [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def read_stopwords(path: str | os.PathLike[str]) -> list[str]:
    """Read a stopword file: one term per line; ``#`` starts a comment (ClirkitError ``FILE:LINE`` for a line of
    two words, or holding a NUL byte: a binary file, as the other text readers say)."""
    from clirkit.fileio import NUL_BYTES, iter_lines

    words = []
    for lineno, line in iter_lines(path):
        if "\0" in line:
            raise located(path, lineno, NUL_BYTES)
        word = line.split("#", 1)[0].strip()
        if any(c.isspace() for c in word):
            raise ClirkitError(f"{path}:{lineno}: {word!r} holds a space: a stopword is one token, one a line")
        if not word.isprintable():  # a control character (BEL, a DOS end-of-file Ctrl-Z) separates words too
            raise located(path, lineno, f"{word!r} holds a control character: a stopword is one token, one a line")
        if word:
            words.append(word)
    return words
