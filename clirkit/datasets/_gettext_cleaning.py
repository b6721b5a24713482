"""Cleaning gettext messages, for :mod:`clirkit.datasets.gettext_catalogs`: a catalog entry as plain words
(:func:`clean_message`), whether a cleaned (msgid, msgstr) pair is kept (:func:`usable`, :func:`word_count`)
and when two messages are the same text (:func:`text_key`).

Combining marks (Thai vowel and tone marks) count as letters, in words, keys and options alike.
"""

from __future__ import annotations

import html
import re
import sys
import unicodedata

MIN_WORDS = 3
MAX_WORDS = 60
MIN_LETTER_SHARE = 0.5


def _mark_ranges() -> str:
    """A character class body of every combining mark (Unicode M*: Thai vowel and tone marks, ...)."""
    marks = [c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c))[0] == "M"]
    starts = [c for i, c in enumerate(marks) if i == 0 or marks[i - 1] != c - 1]
    ends = [c for i, c in enumerate(marks) if i + 1 == len(marks) or marks[i + 1] != c + 1]
    return "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in zip(starts, ends))


# combining marks are parts of words, though \w and str.isalpha leave them out
_MARKS = _mark_ranges()

_PRINTF = re.compile(
    r"%(?:\d+\$)?[-+#0']*(?:\d+|\*(?:\d+\$)?)?(?:\.(?:\d+|\*(?:\d+\$)?))?"
    r"(?:<PRI\w+>|p[A-Z]|(?:hh|ll|[hlLqjzZt])?[diouxXeEfFgGaAcCsSpm])"
)
# BFD's %B, e2fsck's %Q, ...: another letter after the %, not followed by a letter
_OTHER_DIRECTIVE = re.compile(r"%[A-Za-z](?![A-Za-z])")
_PYFORMAT = re.compile(r"%\(\w+\)[-+#0 ]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")
_BRACES = re.compile(r"\{\w*(?:\.\w+)*(?:![rsa])?(?::[^{}]*)?\}")
_MARKUP = re.compile(r"</?(?:b|i|u|s|tt|big|small|span|a|sub|sup|br|p|em|strong|markup)(?:\s[^<>]*)?/?>", re.I)
_PAREN_ACCEL = re.compile(r"\s?[(\uff08][_&][^\W_][)\uff09]")
_AMP_ACCEL = re.compile(r"&(?!(?:amp|lt|gt|quot|apos|#\d+);)(?=[^\W_])")
_WORD_UNDERSCORE = re.compile(rf"(?<![\w{_MARKS}])_(?=[^\W_])")
_ONE_OPTION = rf"(?<![\w{_MARKS}-])--?[^\W\d_][\w{_MARKS}-]*(?:\[?=[\w{_MARKS}<>\[\].-]*\]?)?"
# options with the commas between and after them: "-B, --before-context=NUM, "
_OPTION = re.compile(rf"{_ONE_OPTION}(?:\s*,\s*{_ONE_OPTION})*(?:\s*,)?")
_TRAILING = re.compile(r"[\s:\uff1a]+$")
_LEADING = re.compile(r"^[\s:,;\uff1a\uff0c\uff1b\u3001]+")
_HOLE = "\x01"  # where a directive was, until the quotes around it are removed
_QUOTE_PAIRS = [
    "''",
    '""',
    "`'",
    "\u00ab\u00bb",
    "\u00bb\u00ab",
    "\u201e\u201c",
    "\u201c\u201d",
    "\u2018\u2019",
    "\u201a\u2018",
    "\u300c\u300d",
    "\u300e\u300f",
    "\u300a\u300b",
    "\u3010\u3011",
    "\uff08\uff09",
    "()",
    "[]",
    "<>",
    "\u2039\u203a",
    "\u203a\u2039",
]
_EMPTY_QUOTES = re.compile(
    "|".join(f"{re.escape(a)}[\\s\\x01]*\\x01[\\s\\x01]*{re.escape(b)}" for a, b in _QUOTE_PAIRS)
)


def clean_message(text: str) -> str:
    """One message as plain words: ``"Cannot open '%s': %m\\n"`` -> ``"Cannot open"``.

    Removes printf directives (``%s``, ``%-10lu``, ``%1$s``, ``%<PRIu64>``, BFD's ``%B`` and
    ``%pA``; ``%%`` becomes ``%``), Python ``%(name)s`` and ``{name}`` fields and command-line options
    with the commas between them (``-a, --all``, ``--block-size=SIZE``), each with the quotes or
    brackets left empty around it (``'%s'``, ``»%s«``, ``“%s”``, ``(%d)``, ``'--help'``); accelerator
    marks (``_File``, ``Ö_ffnen`` when the message has one ``_``, ``&File``, ``文件(_F)``); Pango/HTML
    markup tags and entities; then folds line breaks, tabs and runs of spaces into one space and strips
    leading spaces, colons and commas and trailing spaces and colons.
    """
    text = _PYFORMAT.sub(_HOLE, text.replace("%0A", " "))  # GnuPG's escaped line break
    text = text.replace("%%", "\0")
    text = _OTHER_DIRECTIVE.sub(_HOLE, _PRINTF.sub(_HOLE, text)).replace("\0", "%")
    text = _BRACES.sub(_HOLE, text)
    text = _OPTION.sub(_HOLE, text)
    text = _EMPTY_QUOTES.sub(" ", text).replace(_HOLE, " ")
    text = _MARKUP.sub("", text)
    text = _PAREN_ACCEL.sub("", text)
    text = _AMP_ACCEL.sub("", text).replace("&&", "&")
    text = html.unescape(text) if "&" in text else text
    if text.count("_") == 1:
        text = re.sub(r"_(?=[^\W_])", "", text)
    else:
        text = _WORD_UNDERSCORE.sub("", text)
    text = " ".join(text.split())
    return _TRAILING.sub("", _LEADING.sub("", text))


# a letter: one of \w's letters, or a combining mark
_LETTERS = re.compile(rf"[^\W\d_]|[{_MARKS}]")
_WORD = re.compile(rf"(?:[^\W\d_]|[{_MARKS}])+")
_NOT_KEY = re.compile(rf"(?:[^\w{_MARKS}]|_)+")
_E2FSCK_CODE = re.compile(r"(?<!\w)@[a-zA-Z](?!\w)")  # e2fsck's abbreviations (@i = inode), expanded at run time


def word_count(text: str) -> int:
    """Number of words (runs of letters and combining marks) in ``text``."""
    return len(_WORD.findall(text))


def usable(english: str, translation: str) -> bool:
    """Whether a cleaned (msgid, msgstr) pair is kept: the English has 3 to 60 words, at least half
    of its non-space characters are letters, and the translation is non-empty, has a letter and differs
    from the English (case folded); e2fsck's messages with abbreviation codes (``@i``) are not kept."""
    if not MIN_WORDS <= word_count(english) <= MAX_WORDS:
        return False
    compact = english.replace(" ", "")
    if len(_LETTERS.findall(compact)) < MIN_LETTER_SHARE * len(compact):
        return False
    if _E2FSCK_CODE.search(english):
        return False
    if not _LETTERS.search(translation):
        return False
    return translation.casefold() != english.casefold()


def text_key(text: str) -> str:
    """The form under which two messages are the same text: case folded, punctuation folded to spaces
    (combining marks kept: Thai tone marks tell words apart)."""
    return " ".join(_NOT_KEY.sub(" ", text.casefold()).split())
