"""Word segmentation of scripts written without spaces, and Chinese script normalization.

An :class:`clirkit.analysis.Analyzer` hands each run of the scripts its segmenter handles to the segmenter and every
other run to the Moses tokenizer. The segmenters (``segmenter=`` of the analyzer):

- ``bigrams``: overlapping character bigrams of Han, kana and Hangul runs (Lucene's CJKAnalyzer; a run of one
  character stays whole); applied to the Moses tokens (:func:`cjk_bigrams`);
- ``unigrams+bigrams``: every character of such a run and its overlapping bigrams, in position order
  (Lucene's ``CJKBigramFilter`` with ``outputUnigrams``): a one-character word then matches too;
- ``icu``: ICU's word break iterator (icu4py, the ICU4C library; Lucene's ICUTokenizer): dictionary-based words
  for Chinese, Japanese, Thai, Lao, Khmer and Burmese, and the runs between spaces for Korean;
- ``jieba``: jieba's dictionary and HMM segmentation of Chinese (``pip install jieba``), applied to Han runs;
- ``sudachi``: Sudachi's shortest units of Japanese in their dictionary forms (``pip install sudachipy
  sudachidict_core``; Lucene's Kuromoji with its base-form filter), applied to Han and kana runs;
- ``kiwi``: Kiwi's Korean morphemes less endings, particles and affixes (``pip install kiwipiepy``; Lucene's Nori),
  applied to Hangul text.

``chinese_script`` converts Chinese text to one script before anything else (OpenCC: ``simplified`` is
traditional -> simplified, ``traditional`` the reverse), so that a dictionary written in one script meets
text written in the other.

Runs of Thai, Lao, Khmer and Burmese are never handed to the Moses tokenizer, which splits them at every vowel
and tone mark and drops the marks as punctuation: without a word segmenter each run stays one token.
"""

from __future__ import annotations

import functools
import re

from clirkit.errors import ClirkitError
from clirkit.unicodefold import mark_class, split_keeping_marks

SEGMENTERS = ("bigrams", "unigrams+bigrams", "icu", "jieba", "sudachi", "kiwi")
#: The language each segmenter made for one language segments (the others serve every language without spaces).
SEGMENTER_LANGUAGE = {"jieba": "zh", "sudachi": "ja", "kiwi": "ko"}
CHINESE_SCRIPTS = ("simplified", "traditional")
#: Each language's segmenter when the analyzer's is ``"auto"`` (languages not named: none), chosen on the dev
#: splits of the collections of the language (baselines/README.md, "Languages written without spaces").
DEFAULT_SEGMENTERS = {"zh": "icu", "ja": "icu", "ko": "bigrams", "th": "icu", "lo": "icu", "km": "icu", "my": "icu"}
#: Chinese text is converted to this script when the analyzer's ``chinese_script`` is ``"auto"``.
DEFAULT_CHINESE_SCRIPT = "simplified"

# Han (with extensions and compatibility ideographs), kana, Hangul syllables and compatibility jamo (regex class
# bodies)
_HAN = "\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HANGUL_SYLLABLES = "\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff"
#: The scripts Lucene's CJK bigram filter pairs: Han, Hiragana, Katakana, Hangul.
CJK = _HAN + _KANA + _HANGUL_SYLLABLES
# Thai, Lao, Myanmar, Khmer (with the Khmer symbols and Myanmar extensions): written without spaces between words,
# with combining vowel and tone marks that the Moses tokenizer takes for punctuation
COMPLEX = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\ua9e0-\ua9ff\uaa60-\uaa7f"
_WORD_IN_RUN = re.compile(r"\w(?:[\w.,'-]*\w)?")  # a word within a non-CJK run next to CJK text
_CJK_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"  # ideographic punctuation, full- and half-width forms
#: The characters each word segmenter is given (in runs); the rest of a text goes to the Moses tokenizer.
SEGMENTED = {
    "icu": CJK + _CJK_PUNCTUATION + COMPLEX,
    "jieba": _HAN + _CJK_PUNCTUATION,
    "sudachi": _HAN + _KANA + _CJK_PUNCTUATION,
    "kiwi": "\u1100-\u11ff" + _HANGUL_SYLLABLES + " ",
}


def runs(text: str, chars: str, marks: bool = False) -> list[tuple[bool, str]]:
    """``text`` cut into maximal runs of the characters ``chars`` (a regex class body) and of the others, in
    order: ``(True, run)`` for a run of ``chars``; with ``marks`` the combining marks after a character of
    ``chars`` are in its run (they belong to it: ``辻`` and a variation selector, ``中`` and an accent)."""
    splitter, inside = _patterns(chars, marks)
    return [(bool(inside.match(run)), run) for run in splitter.findall(text)]


@functools.cache
def _patterns(chars: str, marks: bool) -> tuple[re.Pattern, re.Pattern]:
    tail = f"(?:[{chars}]|[{mark_class()}])*" if marks else f"[{chars}]*"
    return re.compile(f"[{chars}]{tail}|[^{chars}]+"), re.compile(f"[{chars}]")


def check_segmenter(name: object, lang: str) -> str | None:
    """``name`` resolved for language ``lang``: ``"auto"`` is :data:`DEFAULT_SEGMENTERS`' choice, ``"none"`` or
    None is None; a language written with spaces (not in :data:`DEFAULT_SEGMENTERS`) has none whatever the name,
    so that one setting serves both sides of a table. ClirkitError for an unknown name, or a segmenter made for
    another language (:data:`SEGMENTER_LANGUAGE`)."""
    if name is not None and name not in ("auto", "none", *SEGMENTERS):
        raise ClirkitError(f"segmenter: expected auto, none or one of {', '.join(SEGMENTERS)}, got {name!r}")
    if name == "auto":
        return DEFAULT_SEGMENTERS.get(lang)
    if name in (None, "none") or lang not in DEFAULT_SEGMENTERS:
        return None
    made_for = SEGMENTER_LANGUAGE.get(str(name))
    if made_for is not None and made_for != lang:
        raise ClirkitError(
            f"segmenter {name}: it segments {made_for!r} text, not {lang!r} (for {lang!r}: auto, icu, bigrams or "
            f"unigrams+bigrams)"
        )
    return str(name)


def check_chinese_script(name: object, lang: str) -> str | None:
    """``name`` resolved for language ``lang``: ``"auto"`` is :data:`DEFAULT_CHINESE_SCRIPT`, ``"none"`` or None is
    None; a language other than Chinese has none whatever the name. ClirkitError for an unknown name."""
    if name is not None and name not in ("auto", "none", *CHINESE_SCRIPTS):
        raise ClirkitError(f"chinese_script: expected auto, none, simplified or traditional, got {name!r}")
    if lang != "zh" or name in (None, "none"):
        return None
    return DEFAULT_CHINESE_SCRIPT if name == "auto" else str(name)


def word_segmenter(name: str, lang: str):
    """A function from a run of :data:`SEGMENTED` ``[name]``'s characters to its words (str -> list of str),
    whitespace and punctuation included (the analyzer drops them); ClirkitError naming the package to install
    when the segmenter's library is missing."""
    if name == "icu":
        try:
            from icu4py.breakers import WordBreaker
            from icu4py.locale import Locale
        except ImportError:  # pragma: no cover - a core dependency
            raise ClirkitError("the icu segmenter needs icu4py: pip install icu4py") from None
        locale = Locale(lang)

        def icu_words(run: str) -> list[str]:
            return [run[a:b] for a, b in WordBreaker(run, locale).segments()]

        return icu_words
    if name == "jieba":
        return _jieba().lcut
    if name == "sudachi":
        return _sudachi()
    if name == "kiwi":
        return _kiwi()
    raise ValueError(f"no word segmenter {name!r}")


@functools.cache
def _sudachi():
    """Sudachi's shortest units (mode A) of its core dictionary, each as its dictionary form (Lucene's Kuromoji with
    its base-form filter): 行きました -> 行く, ます, た."""
    try:
        from sudachipy import Dictionary, SplitMode
    except ImportError:
        raise ClirkitError(
            "the sudachi segmenter needs SudachiPy and its dictionary: pip install sudachipy sudachidict_core"
        ) from None
    dictionary = Dictionary(dict="core")
    make = getattr(dictionary, "tokenizer", None) or dictionary.create  # `create`: older SudachiPy (deprecated in 0.7)
    tokenizer = make(SplitMode.A)
    return lambda run: [m.dictionary_form() for m in tokenizer.tokenize(run)]


#: Kiwi's part-of-speech tags (Sejong) of the morphemes the kiwi segmenter drops, as Lucene's Nori drops them by
#: default: endings, particles, suffixes and prefixes, interjections, adverbs, determiners, punctuation
KIWI_DROPPED = ("E", "J", "XS", "XP", "IC", "MAG", "MAJ", "MM", "SF", "SP", "SS", "SE", "SO", "SW")


@functools.cache
def _kiwi():
    """Kiwi's morphemes (kiwipiepy, Korean), less those of :data:`KIWI_DROPPED` (Lucene's Nori)."""
    try:
        from kiwipiepy import Kiwi
    except ImportError:
        raise ClirkitError("the kiwi segmenter needs kiwipiepy: pip install kiwipiepy") from None
    kiwi = Kiwi()
    return lambda run: [t.form for t in kiwi.tokenize(run) if not t.tag.startswith(KIWI_DROPPED)]


@functools.cache
def _jieba():
    try:
        import jieba
    except ImportError:
        raise ClirkitError("the jieba segmenter needs jieba: pip install jieba") from None
    import logging

    jieba.setLogLevel(logging.WARNING)  # its "Building prefix dict" lines are not clirkit's progress
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


@functools.cache
def script_converter(script: str):
    """A function converting Chinese text to ``script`` (``simplified`` or ``traditional``), OpenCC's character
    and phrase tables (``t2s``, ``s2t``)."""
    try:
        import opencc
    except ImportError:  # pragma: no cover - a core dependency
        raise ClirkitError("Chinese script conversion needs opencc: pip install opencc") from None
    return opencc.OpenCC("t2s" if script == "simplified" else "s2t").convert


def character_bigrams(run: str, unigrams: bool = False) -> list[str]:
    """The overlapping bigrams of ``run`` (a run of one character stays whole; Lucene's CJKBigramFilter), or with
    ``unigrams`` each character followed by its bigram with the next (the filter's ``outputUnigrams``):
    ``"東京都"`` -> ``["東京", "京都"]``, with unigrams ``["東", "東京", "京", "京都", "都"]``."""
    if not unigrams:
        return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    out: list[str] = []
    for i, char in enumerate(run):
        out.append(char)
        if i + 1 < len(run):
            out.append(run[i : i + 2])
    return out


def cjk_bigrams(
    token: str,
    strip_punctuation: bool = True,
    *,
    unigrams: bool = False,
    marks: bool = False,
    drop_orphan_marks: bool = False,
) -> list[str]:
    """``token`` with each run of CJK characters replaced by its overlapping bigrams (a run of one character
    stays whole; with ``unigrams`` each character precedes its bigram) and each other run by its words
    (``strip_punctuation``, a combining mark kept in its word with ``marks``, one with no base kept dropped with
    ``drop_orphan_marks``; else kept whole): ``"東京都庁、ab"`` -> ``["東京", "京都", "都庁", "ab"]``."""
    out: list[str] = []
    for inside, run in runs(token, CJK):
        if inside:
            out.extend(character_bigrams(run, unigrams))
        elif strip_punctuation:
            out.extend(
                split_keeping_marks(_WORD_IN_RUN.findall, run, drop_orphans=drop_orphan_marks)
                if marks
                else _WORD_IN_RUN.findall(run)
            )
        else:
            out.append(run)
    return out
