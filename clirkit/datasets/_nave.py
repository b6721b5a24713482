"""Parsing Nave's Topical Bible (``nave.imp``) into topics, subtopics and query texts.

``nave.imp`` (a SWORD ``mod2imp`` export) holds entries ``$$$TOPIC`` followed
by one TEI ``<entryFree n="TOPIC">`` line. Inside it ``<lb/>`` starts a
subtopic; the text before the subtopic's first ``<ref osisRef=...>`` is its
heading, and its ``osisRef`` attributes are the verses it cites. A topic
name given twice (two entries) is one topic whose subtopics continue in order.
"""

from __future__ import annotations

import html
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from clirkit.errors import located
from clirkit.fileio import display_name, iter_lines

_TAG = re.compile(r"<[^>]*>")
_OSIS_REF = re.compile(r'<ref\s+osisRef="([^"]*)"')
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_LEADING = re.compile(r"^(?:[\s→.;,:]|\d+\.(?!\d)|[a-z]\.\s)+")
_SPLIT_S = re.compile(r"(\w)' s\b")
_SPACE_BEFORE = re.compile(r"\s+([,;:.!?)”])")
_SPACE_AFTER = re.compile(r"([(“])\s+")
_CAPITALIZED = re.compile(r"[A-Z][a-z]*(?![A-Za-z'])")
_MINOR = frozenset("a an and as at by for from in into of on or the to with".split())


@dataclass
class Subtopic:
    """One ``<lb/>`` segment of a topic: its number, raw heading markup and cited references."""

    number: int
    heading: str
    refs: list[str]


@dataclass
class Topic:
    """A Nave topic (``key`` as in the file, e.g. ``"JESUS, THE CHRIST"``) and its subtopics in order."""

    key: str
    subtopics: list[Subtopic] = field(default_factory=list)


def read_nave(path: str | os.PathLike[str]) -> list[Topic]:
    """Parse ``nave.imp`` into topics in file order (repeated names merged)."""
    name = display_name(path)
    topics: dict[str, Topic] = {}
    key: str | None = None
    for lineno, line in iter_lines(path):
        if line.startswith("$$$"):
            key = line[3:].strip()
            if not key:
                raise located(name, lineno, "empty topic name after $$$")
            continue
        if key is None:
            raise located(name, lineno, "text before the first $$$TOPIC line")
        if not line.lstrip().startswith("<entryFree"):
            raise located(name, lineno, f"expected an <entryFree> line for topic {key}")
        topic = topics.setdefault(key, Topic(key))
        for segment in line.split("<lb/>")[1:]:
            first = segment.find("<ref osisRef")
            heading = segment if first < 0 else segment[:first]
            topic.subtopics.append(Subtopic(len(topic.subtopics) + 1, heading, _OSIS_REF.findall(segment)))
        key = None
    if not topics:
        raise located(name, None, "no $$$TOPIC entries found")
    return list(topics.values())


def topic_slug(key: str) -> str:
    """A readable query-id prefix: ``"JESUS, THE CHRIST"`` -> ``"JESUS_THE_CHRIST"``."""
    return re.sub(r"[^A-Z0-9-]+", "_", key.upper()).strip("_")


class Casing:
    """Decides whether a word is a common (lower-case) word or a proper noun.

    Built from running text: a word is common if it occurs in lower case at
    least as often as capitalized (so also a word never seen). ``lower_texts``
    add only their lower-case words (for text whose capitals are unreliable,
    like Nave's headings). Used to undo Nave's capitalisation
    ("Meets" -> "meets", "WEAPON" -> "weapon") without lower-casing names
    ("Moses", "GESHURITES" -> "Geshurites", "God").
    """

    def __init__(self, texts: Iterable[str], lower_texts: Iterable[str] = ()) -> None:
        counts = Counter(_WORD.findall("\n".join(texts)))
        lower: Counter[str] = Counter(w for w in _WORD.findall("\n".join(lower_texts)) if w.islower())
        upper: Counter[str] = Counter()
        for w, n in counts.items():
            if w.islower():
                lower[w] += n
            elif w[0].isupper() and (len(w) == 1 or w[1:].islower()):
                upper[w.lower()] += n
        self._lower = lower
        self._upper = upper

    def is_common(self, word: str) -> bool:
        w = word.lower()
        return self._lower[w] >= self._upper[w]

    def fix_caps(self, text: str) -> str:
        """All-capital words (2+ letters) to lower case if common, else Capitalized."""

        def repl(m: re.Match[str]) -> str:
            w = m.group(0)
            if len(w) < 2 or not w.isupper():
                return w
            return w.lower() if self.is_common(w) else w.capitalize()

        return _WORD.sub(repl, text)


def title_case(key: str) -> str:
    """Nave's upper-case topic name in title case: ``"ANGEL OF THE CHURCHES"`` -> ``"Angel of the Churches"``."""
    words = _WORD.split(key)
    found = _WORD.findall(key)
    out = [words[0]]
    for i, w in enumerate(found):
        lw = w.lower()
        out.append(lw if i > 0 and lw in _MINOR else lw.capitalize())
        out.append(words[i + 1])
    return "".join(out)


def strip_markup(fragment: str) -> str:
    """Markup removed, entities decoded, whitespace collapsed."""
    text = html.unescape(_TAG.sub(" ", fragment))
    return " ".join(text.split())


def clean_heading(raw: str, casing: Casing) -> str:
    """A subtopic heading as plain text in sentence case.

    Drops the markup, the "→" and enumeration marks ("1.", "a."), repairs
    "God' s" spacing and spaces before punctuation, undoes all-capital
    words, lower-cases a common first word, and removes the comma of Nave's
    inverted headings after a single first word ("Meets, Moses in the
    wilderness" -> "meets Moses in the wilderness"). Empty if nothing is left.
    """
    pieces = [_clean_piece(p, casing) for p in raw.split("<item>")]
    text = " ".join(p for p in pieces if p)
    m = re.match(r"([A-Za-z]+),\s", text)
    if m and casing.is_common(m.group(1)):
        text = m.group(1) + text[m.end(1) + 1 :]
    return text.strip()


def _clean_piece(raw: str, casing: Casing) -> str:
    """One heading piece (the text before or inside one ``<item>``) cleaned, first word in case."""
    text = strip_markup(raw)
    text = _LEADING.sub("", text)
    text = _SPLIT_S.sub(r"\1's", text)
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _SPACE_AFTER.sub(r"\1", text)
    text = text.rstrip(" ,;:-")
    text = casing.fix_caps(text)
    m = _CAPITALIZED.match(text)
    if m and casing.is_common(m.group(0)):
        text = m.group(0).lower() + text[m.end() :]
    return text.strip()


def heading_texts(topics: list[Topic]) -> Iterable[str]:
    """The plain text of every subtopic heading (for :class:`Casing`'s lower-case counts)."""
    for topic in topics:
        for sub in topic.subtopics:
            yield strip_markup(sub.heading)
