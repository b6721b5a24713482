"""Character normalization of the analysis: composed form, widths, joiners, Thai and Lao SARA AM, Turkish and Greek
case, combining marks kept in their word, control characters, Hebrew and Arabic points and marks, compatibility
letters.

:class:`clirkit.analysis.Analyzer` applies these before and after it cuts a text into tokens. What it applies is
recorded in its settings (``normalization_version``), so that an index made before reads back with the analysis
that made it:

- version 1 (files written before): :func:`composed` only (when the analyzer composes);
- version 2: also :func:`normalized` and :func:`folded_widths` before segmentation, :func:`turkish_lower` for
  Turkish and Azeri, and :func:`split_keeping_marks` around the tokenizer, so a letter and a combining mark Unicode
  has no composed letter for (Russian stress, Yoruba tones) stay one word;
- version 3: also :func:`without_ignorables` before segmentation (invisible format characters and variation
  selectors removed), and a combining mark never moved across a space onto the next word (``drop_orphans`` of
  :func:`split_keeping_marks`); the analyzer's other steps of version 3 are listed in
  :class:`clirkit.analysis.Analyzer`;
- version 4: also :func:`controls_as_spaces` first (a control character separates words), and
  :func:`letters_folded` before segmentation: Hebrew points and cantillation and Arabic harakat removed, Latin
  ligatures and mathematical letters and digits made plain (NFKC of these alone), ZWJ and ZWNJ between two Latin,
  Greek or Cyrillic letters removed; the analyzer's other step of version 4 (no CJK bigram lost where a long token
  is cut) is listed in :class:`clirkit.analysis.Analyzer`;
- version 5: also the other default-ignorable characters that cut a word removed (:func:`without_ignorables`),
  ZWJ and ZWNJ between Armenian, Georgian or Hangul letters removed, the Hebrew maqaf made a hyphen and a geresh or
  gershayim within a Hebrew word removed (:func:`hebrew_marks_folded`), and Greek letters lowercased without accents
  and final sigma in any language (:func:`greek_folded`); what removing an invisible character puts side by side is
  composed again.

Each function returns its input unchanged, and fast, for a text without the characters it folds.
"""

from __future__ import annotations

import functools
import numbers
import re
import unicodedata
from typing import Callable, Collection

#: The normalization versions an analyzer can record; the last is the default of new analyzers.
NORMALIZATION_VERSIONS = (1, 2, 3, 4, 5)
#: Languages lowercased as Lucene's TurkishLowerCaseFilter does (dotted and dotless i).
TURKIC = frozenset({"tr", "az"})

# Lucene's CJKWidthFilter: full-width ASCII variants -> basic Latin, half-width katakana -> full-width (its
# table is NFKC's for these characters; the half-width voiced marks become the combining ones, then composed)
_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {
    c: ord(unicodedata.normalize("NFKC", chr(c))) for c in range(0xFF65, 0xFFA0)
}
_VOICED = re.compile("[\u30a6-\u30fd][\u3099\u309a]")  # a katakana and a voiced sound mark: composed when Unicode can
_JOINERS = re.compile("(?<=[\u0900-\u0dff])[\u200c\u200d]+")  # ZWNJ, ZWJ after a letter or mark of an Indic script
_SARA_AM = (  # NIKHAHIT (a tone mark) SARA AA -> (the tone mark) SARA AM, in Thai and in Lao
    (re.compile("\u0e4d([\u0e48-\u0e4b]?)\u0e32"), "\\1\u0e33"),
    (re.compile("\u0ecd([\u0ec8-\u0ecb]?)\u0eb2"), "\\1\u0eb3"),
)
_WIDE = "\uff01-\uff5e\uff65-\uff9f"  # the characters folded_widths() changes (a regex class body)
_FOLDED = "\u200c\u200d\u0e4d\u0ecd"  # the characters normalized() looks for
_WIDE_CHAR, _FOLDED_CHAR = re.compile(f"[{_WIDE}]"), re.compile(f"[{_FOLDED}]")
# Invisible format characters (Unicode category Cf) no script needs inside a word, and the variation selectors
# (default-ignorable marks that choose a glyph): direction marks and controls, word joiners, tags
_FORMAT = "\u061c\u200e\u200f\u202a-\u202e\u2060\u2066-\u206f\ufeff"
_SELECTORS = "\ufe00-\ufe0f\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef"  # variation selectors, tags
_IGNORABLE = re.compile(f"[{_FORMAT}{_SELECTORS}]+")
# Version 5: the other default-ignorable characters that cut a word: the invisible mathematical operators, the
# Mongolian free variation selectors and vowel separator, the Khmer inherent vowels, the shorthand format controls
# and the musical formatting controls
_MORE_FORMAT = "\u2061-\u2064\u180b-\u180f\u17b4\u17b5\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
_IGNORABLE_5 = re.compile(f"[{_FORMAT}{_MORE_FORMAT}{_SELECTORS}]+")
# Version 5 in Hebrew: the maqaf (a hyphen) and the geresh and gershayim (or the ASCII quotes typed for them)
# between two letters
_HEBREW_LETTER = "\u05d0-\u05ea\u05f0-\u05f2"
# a gershayim (or "", or '') or a geresh (or ') after a letter and before the letters that end the word: not the
# quotation marks around a word a prefix letter is joined to (ו"לא", two words as written)
_WORD_END = f"(?=[{_HEBREW_LETTER}]+(?![{_HEBREW_LETTER}\"'\u05f3\u05f4]))"
_GERSHAYIM = re.compile(f"(?<=[{_HEBREW_LETTER}])(?:\u05f4|\"|''){_WORD_END}")
_GERESH = re.compile(f"(?<=[{_HEBREW_LETTER}])[\u05f3']{_WORD_END}")
_MAQAF = re.compile(f"(?<=[{_HEBREW_LETTER}])\u05be(?=[{_HEBREW_LETTER}])|(\u05be)")
_HEBREW_MARKS = re.compile(f"\u05be|(?<=[{_HEBREW_LETTER}])[\u05f3\u05f4\"']")  # (a fast test)
_GREEK = "\u0370-\u03ff\u1f00-\u1fff"  # the Greek and Coptic block, Greek Extended
_GREEK_LETTER = re.compile(f"[{_GREEK}]")
_GREEK_MARKED = re.compile("[\u0386\u0388-\u0390\u03aa-\u03b0\u03ca-\u03ce\u1f00-\u1fff\u0300-\u036f]")
_GREEK_MARKS = re.compile(f"(?<=[{_GREEK}])[\u0300-\u036f]+")
# Version 4: the control characters (Unicode category Cc) str.isspace does not take for whitespace; Hebrew points,
# cantillation and the dots of shin, sin and the masora (not the maqaf, paseq, sof pasuq or nun hafukha), and Arabic
# harakat (Lucene's ArabicNormalizer: FATHATAN to SUKUN) and the tatweel (a stretch of the line, which that
# normalizer removes too); Latin ligatures and mathematical letters and digits (with
# the marks after them, composed with them)
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")
_POINTS = (
    "\u034f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0640\u064b-\u0652\u0670"
    "\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed"
)
# the letterlike symbols that fill the holes of the mathematical alphabets (italic h, script e, double-struck R...)
_LETTERLIKE = "\u2102\u210a-\u210e\u2110-\u2112\u2115\u2119-\u211d\u2124\u2128\u212c\u212d\u212f-\u2131\u2133\u2134"
_LIGATURES = "\u0132\u0133\u017f\u01c4-\u01cc\u01f1-\u01f3\ufb00-\ufb06" + _LETTERLIKE
_COMPATIBLE = re.compile(f"[{_LIGATURES}\U0001d400-\U0001d7ff][{_LIGATURES}\U0001d400-\U0001d7ff\u0300-\u036f]*")
_JOINER_RUN = re.compile("[\u200c\u200d]+")
_POINTS_RUN = re.compile(f"[{_POINTS}]+")
_LETTER_FOLDS = re.compile(f"[{_POINTS}{_LIGATURES}\U0001d400-\U0001d7ff\u200c\u200d]")
_POINT_CHARS = frozenset(c for c in map(chr, range(0x34F, 0x6EE)) if _POINTS_RUN.fullmatch(c))


def is_version(value: object) -> bool:
    """Whether ``value`` is one of :data:`NORMALIZATION_VERSIONS` (an integer: not a bool, not 2.0)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value in NORMALIZATION_VERSIONS


def composed(text: str) -> str:
    """``text`` in Unicode's composed form (NFC) without soft hyphens (U+00AD): a letter and its accent typed as
    two characters (as macOS and some corpora write them) are one where Unicode has the composed letter, as they are
    in the text it is matched with, and an invisible hyphenation point does not cut a word (Moses cuts at both: NFD
    "acción" gave "acci" "n")."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", text.replace("\u00ad", ""))


def may_change(text: str, version: int = 2) -> bool:
    """Whether normalization ``version`` (2 or more) may give ``text`` other tokens than version 1 (Turkish case
    aside): whether it holds a character :func:`normalized` or :func:`folded_widths` changes, a combining mark, a
    character beyond the Basic Multilingual Plane, (version 3) one :func:`without_ignorables` removes, or (version 4)
    one :func:`letters_folded` changes, (version 5) or one of its Hebrew marks (one fast test: the analyzer skips the
    rest for the others). Control characters aside: :func:`controls_as_spaces` is applied to every text."""
    if text.isascii():
        return False
    if _changing(version >= 3, version >= 4, version >= 5).search(text) is not None:
        return True
    return version >= 5 and _HEBREW_MARKS.search(text) is not None


@functools.cache
def _changing(format_characters: bool, ligatures: bool = False, more_format: bool = False) -> re.Pattern:
    # (version 4's points, joiners and mathematical letters are marks, folded and beyond the BMP: already in; the
    # tatweel is a letter; version 5's Mongolian selectors and Khmer vowels are marks)
    return _marks(
        frozenset(),
        _WIDE
        + _FOLDED
        + (_FORMAT if format_characters else "")
        + (_LIGATURES + "\u0640" if ligatures else "")
        + (_MORE_FORMAT if more_format else ""),
    )


def folded(text: str, version: int, lang: str | None = None) -> str:
    """``text`` (of language ``lang``) with the folds normalization ``version`` (2 or more) makes before it is cut
    into words: :func:`normalized`, then (version 3) :func:`without_ignorables`, then (version 4)
    :func:`letters_folded`. Widths are folded later, run by run (:func:`folded_widths`)."""
    text = normalized(text)
    if version >= 3:
        text = _visible(text, version)
    return letters_folded(text, version, lang) if version >= 4 else text


def _visible(text: str, version: int) -> str:
    """:func:`without_ignorables` of ``text``; version 5 composes again what removing them put side by side (a
    letter and the accent an invisible character stood between: ``e`` U+2061 U+0301 is ``é``)."""
    visible = without_ignorables(text, version)
    return composed(visible) if version >= 5 and len(visible) != len(text) else visible


def folded_word(word: str, version: int, lang: str | None = None) -> str:
    """``word`` (one token of language ``lang``, as a list or a table holds it) with the folds of normalization
    ``version``: version 2 :func:`normalized` and :func:`folded_widths`, 3 also :func:`without_ignorables`, 4 also
    :func:`controls_as_spaces` and :func:`letters_folded` (version 1: none)."""
    if version >= 2:
        word = folded_widths(normalized(word))
    if version >= 3:
        word = _visible(word, version)
    if version >= 4:  # (a control character at an end is a space there: not part of the word)
        word = letters_folded(controls_as_spaces(word).strip(), version, lang)
    return word


def controls_as_spaces(text: str) -> str:
    """``text`` with each control character (Unicode category Cc: C0, DEL, C1) that is not whitespace made a space
    (version 4, before anything else): Moses deletes them, which joined the words either side (``dog`` BEL
    ``bird`` was ``dogbird``); now they separate words as a space does, in every script."""
    if text.isprintable():  # (no Cc character; str.isprintable is a fast test, ASCII text or not)
        return text
    return _CONTROL.sub(" ", text)


def letters_folded(text: str, version: int = 4, lang: str | None = None) -> str:
    """``text`` with the other ways of writing a word's letters made the common one (version 4), as search
    engines fold them:

    - Hebrew points and cantillation marks (U+0591-05BD, U+05BF, U+05C1, U+05C2, U+05C4, U+05C5, U+05C7) and the
      combining grapheme joiner pointed text puts between two points (U+034F), Arabic harakat (U+064B-0652), the
      superscript alef (U+0670), the Quranic marks (U+06D6-06ED's combining ones) and the tatweel (U+0640)
      removed (Lucene's ArabicNormalizer removes the harakat and the tatweel): ``שָׁלוֹם`` is ``שלום``, ``كَتَبَ`` is
      ``كتب``, ``هٰذَا`` is ``هذا`` (the Arabic and Yiddish Snowball stemmers removed harakat and points already;
      the maqaf and the other Hebrew punctuation stay);
    - the Latin ligatures and digraphs (U+FB00-FB06, ``ĳ``, ``ǆ``, ``ǉ``, ``ǌ``, ``ǳ`` and their capitals, the long
      ``ſ``: ``ﬁ`` -> ``fi``) and the mathematical letters and digits (U+1D400-1D7FF and the letterlike symbols
      that fill its alphabets' holes, ``ℎ``, ``ℯ``, ``ℝ``...: ``𝐇𝐞𝐥𝐥𝐨`` -> ``Hello``) in their NFKC form (these
      alone: ``²``, ``™`` and ``ℓ`` stay);
    - ZWJ and ZWNJ (U+200D, U+200C) between two letters of the Latin, Greek or Cyrillic script (marks after the
      first allowed) removed: ``bo`` ZWJ ``ok`` is ``book`` (Persian ZWNJ and emoji sequences stay); version 5: of
      the Armenian, Georgian and Hangul scripts too;
    - version 5, in Hebrew script (:func:`hebrew_marks_folded`): the maqaf between two letters is a hyphen, the
      gershayim and geresh within a word removed.
    """
    if version >= 5 and not text.isascii():
        text = hebrew_marks_folded(text, lang)
    found = () if text.isascii() else frozenset(_LETTER_FOLDS.findall(text))  # (one scan tells which folds apply)
    if not found:
        return text
    if not found.isdisjoint(_POINT_CHARS):
        text = _POINTS_RUN.sub("", text)
        if version >= 5:  # (a geresh after a pointed letter: after a letter only now)
            text = hebrew_marks_folded(text, lang)
    if any(c not in _POINT_CHARS and c not in "\u200c\u200d" for c in found):
        text = _COMPATIBLE.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    return _without_alphabet_joiners(text, version) if "\u200c" in found or "\u200d" in found else text


def hebrew_marks_folded(text: str, lang: str | None = None) -> str:
    """``text`` with the marks of Hebrew words written the one way (version 5):

    - a maqaf (U+05BE) between two letters is the hyphen typed for it (``בית־ספר`` is ``בית-ספר``, one word as
      Moses keeps a hyphenated word); elsewhere a space (``כל־ הארץ``: ``כל``, ``הארץ``);
    - a gershayim (U+05F4, or the ``"`` or ``''`` typed for it) and a geresh (U+05F3, or ``'``) after a letter and
      before the letters that end the word are removed: the acronym ``צה״ל`` (``צה"ל``, ``צה''ל``) is the one word
      ``צהל``, ``דו"חות`` is ``דוחות``, ``ג׳ירפה`` is ``גירפה``, where they cut the word in two; the quotation marks
      around a word stay (``"כן" ו"לא"``). Not the geresh in Yiddish (``lang`` ``yi``), whose apostrophe joins two
      words (``ס'איז``: ``ס``, ``איז``)."""
    if not _HEBREW_MARKS.search(text):
        return text
    text = _MAQAF.sub(lambda m: " " if m.group(1) else "-", text)
    text = _GERSHAYIM.sub("", text)
    return text if lang == "yi" else _GERESH.sub("", text)


def _without_alphabet_joiners(text: str, version: int) -> str:
    """``text`` without the runs of ZWJ and ZWNJ between two letters of :func:`_alphabet_letters` of ``version``
    (combining marks after the first allowed)."""
    letters = _alphabet_letters(version >= 5)
    kept, at = [], 0  # (the pieces joined once: a text of many joiners is cut in linear time)
    for run in _JOINER_RUN.finditer(text):
        before = run.start() - 1
        while before >= 0 and unicodedata.category(text[before])[0] == "M":
            before -= 1
        if before >= 0 and text[before] in letters and run.end() < len(text) and text[run.end()] in letters:
            kept.append(text[at : run.start()])
            at = run.end()
    return "".join(kept) + text[at:] if kept else text


@functools.cache
def _alphabet_letters(more: bool = False) -> frozenset[str]:
    """The letters (Unicode category L) of the Latin, Greek and Cyrillic scripts in the Basic Multilingual Plane (by
    their names: ``LATIN SMALL LETTER A``, ``FULLWIDTH LATIN ...``, ``GREEK ...``, ``CYRILLIC ...``); ``more``
    (version 5): of the Armenian, Georgian and Hangul scripts too (``HANGUL SYLLABLE GA``)."""
    scripts = {"LATIN", "GREEK", "CYRILLIC"} | ({"ARMENIAN", "GEORGIAN", "HANGUL"} if more else set())
    return frozenset(
        chr(c)
        for c in range(0x10000)
        if unicodedata.category(chr(c))[0] == "L" and not scripts.isdisjoint(unicodedata.name(chr(c), "").split())
    )


def without_ignorables(text: str, version: int = 3) -> str:
    """``text`` without the invisible characters that must not cut a word (version 3), as the soft hyphen is
    removed (:func:`composed`) and as Lucene's ICU folding removes them: direction marks (LRM, RLM, ALM) and the
    embedding, override and isolate controls, WORD JOINER and ZERO WIDTH NO-BREAK SPACE (U+2060, U+FEFF), the
    deprecated format characters U+206A-206F, tag characters, and variation selectors (U+FE00-FE0F,
    U+E0100-E01EF: ``辻`` with an ideographic variation selector is ``辻``). Kept: ZWNJ and ZWJ (Persian and
    emoji need them; :func:`normalized` removes them in Indic words), ZERO WIDTH SPACE (a word boundary), and the
    other format characters a script writes inside its words. Version 5 also removes the other default-ignorable
    characters that cut a word: the invisible mathematical operators (U+2061-2064: ``f`` FUNCTION APPLICATION ``x``
    was ``f``, ``x``), the Mongolian free variation selectors and vowel separator (U+180B-180F), the Khmer inherent
    vowels (U+17B4, U+17B5), the shorthand format controls and the musical formatting controls."""
    if text.isascii():
        return text
    return (_IGNORABLE_5 if version >= 5 else _IGNORABLE).sub("", text)


def folded_widths(text: str) -> str:
    """``text`` with widths folded as Lucene's CJKWidthFilter (CJKAnalyzer) folds them: full-width ASCII
    variants (U+FF01-FF5E, ``ＮＨＫ１２３``) become basic Latin, half-width katakana (U+FF65-FF9F) full-width, a
    half-width voiced sound mark composed with its katakana (``ｶﾞ`` -> ``ガ``).

    The analyzer folds each run it gives a word segmenter or the Moses tokenizer (:func:`clirkit.segmenters.runs`),
    so that full-width punctuation still ends a segmenter's run where it did (a full-width comma before a number
    folded first would make Moses's token ``,42``)."""
    if text.isascii() or not _WIDE_CHAR.search(text):
        return text
    text = text.translate(_WIDTH)
    if "\u3099" in text or "\u309a" in text:
        text = _VOICED.sub(lambda m: unicodedata.normalize("NFC", m.group()), text)
    return text


def normalized(text: str) -> str:
    """``text`` with the forms of one word that look alike made one, before it is cut into words:

    - ZWNJ and ZWJ (U+200C, U+200D) after a character of an Indic script (Devanagari to Sinhala, U+0900-0DFF) removed,
      as Lucene's HindiNormalizer removes them: ``हिन्\u200cदी`` is ``हिन्दी`` (Persian and Arabic ZWNJ is kept: it
      separates words there, as Lucene's PersianCharFilter takes it);
    - Thai NIKHAHIT + SARA AA (U+0E4D U+0E32), with a tone mark (U+0E48-0E4B) before or between them, become the tone
      mark and SARA AM (U+0E33): ``น้ํา``, ``นํ้า`` and ``น้ำ`` are one word; Lao likewise (U+0ECD U+0EB2 -> U+0EB3,
      tone marks U+0EC8-0ECB).
    """
    if text.isascii() or not _FOLDED_CHAR.search(text):
        return text
    text = _JOINERS.sub("", text)
    for pattern, replacement in _SARA_AM:
        text = pattern.sub(replacement, text)
    return text


def turkish_lower(token: str) -> str:
    """``token`` lowercased as Lucene's TurkishLowerCaseFilter does: ``İ`` -> ``i``, ``I`` -> ``ı``, and the
    combining dot above of ``I``/``i`` + U+0307 removed (``str.lower`` gives ``i`` + U+0307 for ``İ``, ``i`` for
    ``I``)."""
    if token.isascii():
        return token.replace("I", "ı").lower()
    token = token.replace("I\u0307", "i").replace("İ", "i").replace("I", "ı").lower()
    return token.replace("i\u0307", "i")


def lowercaser(lang: str, version: int, text: str = "") -> Callable[[str], str]:
    """The function that lowercases a token of ``lang`` under normalization ``version``; from version 5, of a
    ``text`` holding a Greek letter (in any language: a Greek name in an English query meets a Greek index), also
    :func:`greek_folded`."""
    lower = turkish_lower if version >= 2 and lang in TURKIC else str.lower
    if version >= 5 and not text.isascii() and _GREEK_LETTER.search(text):
        return lambda token: greek_folded(lower(token))
    return lower


@functools.lru_cache(maxsize=1 << 16)  # a Greek text's words repeat: its tokenizing 1.4x version 4's time, 1.1x so
def greek_folded(token: str) -> str:
    """``token`` (lowercased) as Lucene's GreekLowerCaseFilter leaves it (version 5): the accents, diaeresis and
    breathings of its Greek letters (the combining marks of their decomposed form) removed and final sigma ``ς``
    made ``σ``, so that ``Καλημέρα``, ``ΚΑΛΗΜΕΡΑ`` and ``καλημερα`` are one word without a stemmer (``ῶρα`` is
    ``ωρα``; Snowball's Greek stemmer removed the tonos itself, and made a diaeresis ``ϊ`` an ``η``)."""
    if token.isascii() or not _GREEK_MARKED.search(token):
        return token.replace("\u03c2", "\u03c3")
    decomposed = unicodedata.normalize("NFD", token)
    bare = _GREEK_MARKS.sub("", decomposed)
    return (unicodedata.normalize("NFC", bare) if bare != decomposed else token).replace("\u03c2", "\u03c3")


def split_keeping_marks(
    split: Callable[[str], list[str]], text: str, kept: Collection[str] = (), *, drop_orphans: bool = False
) -> list[str]:
    """``split(text)`` (a tokenizer: text -> its pieces in order) with each combining mark (Unicode category M)
    ``split`` would cut the text at or drop put back in the piece of the character it follows, so that
    ``ударе́ние`` stays one word. A mark after a space or a dropped character, or at the start of ``text``, is in
    the next piece; with ``drop_orphans`` (version 3) it is dropped with that character instead: it never crosses a
    space onto the next word.

    ``split`` is given the text without those marks (the marks of ``kept``, which ``split`` keeps in their word
    itself, stay); it may drop characters or add spaces but not change a letter, digit or the order: when its pieces
    are not so, the result is ``split(text)``.
    """
    if text.isascii():
        return split(text)
    kept = frozenset(kept)
    cut = [m.start() for m in _marks(kept).finditer(text) if unicodedata.category(m.group())[0] == "M"]
    if not cut:
        return split(text)
    bare: list[str] = []
    after: dict[int, list[str]] = {}  # after[i]: the marks after bare[i] (lists: many marks joined once)
    lead: list[str] = []  # the marks before any character
    start = 0
    for i in [*cut, len(text)]:
        bare.extend(text[start:i])
        if i < len(text):
            (after.setdefault(len(bare) - 1, []) if bare else lead).append(text[i])
        start = i + 1
    marks = {i: "".join(m) for i, m in after.items()}
    plain = "".join(bare)
    out = []
    at, pending = 0, "" if drop_orphans else "".join(lead)
    for piece in split(plain):
        chars = []
        for char in piece:
            while at < len(plain) and plain[at] != char:
                if plain[at].isalnum() or plain[at] == "_":  # split changed a letter or digit: no alignment
                    return split(text)
                if not drop_orphans:
                    pending += marks.get(at, "")
                at += 1
            if at == len(plain):
                return split(text)
            chars.append(pending + char + marks.get(at, ""))
            pending = ""
            at += 1
        out.append("".join(chars))
    return out


@functools.cache
def mark_class() -> str:
    """A regex class body of every combining mark (Unicode category M; they are in planes 0, 1 and 14), as ranges."""
    codes = [c for c in [*range(0x300, 0x20000), *range(0xE0000, 0xE1000)] if unicodedata.category(chr(c))[0] == "M"]
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "".join(re.escape(chr(a)) + ("" if a == b else "-" + re.escape(chr(b))) for a, b in ranges)


@functools.cache
def _marks(kept: frozenset[str], also: str = "") -> re.Pattern:
    """A pattern of the combining marks (Unicode category M) of the Basic Multilingual Plane not in ``kept``, of
    every character beyond it (whose category the caller checks), and of the class body ``also``: made once, a fast
    test of a text."""
    marks = (chr(c) for c in range(0x300, 0x10000) if unicodedata.category(chr(c))[0] == "M")
    return re.compile("[" + "".join(re.escape(c) for c in marks if c not in kept) + also + "\U00010000-\U0010ffff]")
