"""Bible verse files and OSIS references, shared by the Bible-based collections.

A verse file is the ``osis_id TAB text`` export in ``shared/data/bible``
(a header line ``osis_id TAB text`` first), or the OSIS XML that SWORD's ``mod2osis`` writes of a module
(``NAME.osis.xml``, ``.gz`` fine), from which those files were made: :func:`osis_verses` gives the same verses
(the shared folder's Reina-Valera 1909 and KJV exports convert to their verse files byte for byte). OSIS ids look
like ``Gen.1.1``; a reference is a verse (``Exod.4.14``), a whole chapter (``1Chr.24``) or a range within a book
(``Exod.4.14-Exod.4.16``).
"""

from __future__ import annotations

import bisect
import hashlib
import html
import os
import re
from dataclasses import dataclass, field
from typing import Iterator

from clirkit.errors import located, quoted
from clirkit.fileio import display_name, iter_lines

# the 27 New Testament books, by their OSIS names
NT_BOOKS = frozenset(
    "Matt Mark Luke John Acts Rom 1Cor 2Cor Gal Eph Phil Col 1Thess 2Thess 1Tim 2Tim Titus Phlm "
    "Heb Jas 1Pet 2Pet 1John 2John 3John Jude Rev".split()
)

_VERSE_ID = re.compile(r"([1-4]?[A-Za-z]+)\.(\d+)\.(\d+)")
_CHAPTER_ID = re.compile(r"([1-4]?[A-Za-z]+)\.(\d+)")


def book_of(osis_id: str) -> str:
    """The book part of an OSIS id (``"1Chr.24.3"`` -> ``"1Chr"``)."""
    return osis_id.split(".", 1)[0]


OSIS_SUFFIXES = (".osis.xml", ".osis.xml.gz")
"""The names of mod2osis exports, which :func:`read_verses` reads with :func:`osis_verses`."""

_OSIS_VERSE = re.compile(r"<verse\b([^>]*[^/])>(.*?)</verse>", re.S)  # a container: <verse osisID=...>...</verse>
_OSIS_OPEN = re.compile(r"<verse\b[^>]*[^/]>")
_OSIS_ID = re.compile(r'\bosisID="([^"]*)"')
_OSIS_DROPPED = re.compile(r"<(note|title)\b.*?</\1>", re.S)  # footnotes; headings such as a psalm's title
# the end of a chapter or book: what a verse holds after it (a glossary glued onto Rev.22.21) is not the verse's
_OSIS_END = re.compile(r'<chapter\b[^>]*\beID=|<div\b(?=[^>]*\beID=)(?=[^>]*\btype="book")')
_OSIS_TAG = re.compile(r"<[^>]*>")


def osis_verses(path: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    """``(osis_id, text)`` of each verse of the OSIS XML that SWORD's ``mod2osis`` writes of a Bible module, as
    the verse files of ``shared/data/bible`` were made of it: footnotes (``<note>``) and headings (``<title>``)
    dropped, what follows the end of a chapter or book in a verse dropped, markup removed, entities decoded,
    whitespace collapsed to single spaces; a verse left empty (one numbered in the module's versification that
    the translation lacks) is skipped. The file is read as text (mod2osis does not always write well-formed XML:
    a footnote may hold an unclosed tag), each ``<verse osisID="Book.C.V">...</verse>`` by itself.
    ClirkitError("file:line: ...") for a verse element that is not closed or whose id is not a verse's."""
    name = display_name(path)
    text = "\n".join(line for _, line in iter_lines(path, skip_blank=False))

    def unclosed(at: int, where: str = ""):
        return located(
            name,
            text.count("\n", 0, at) + 1,
            f"a <verse> element that is not closed (</verse>){where}: a truncated or damaged export",
        )

    found = end_of_last = 0
    for m in _OSIS_VERSE.finditer(text):
        found, end_of_last = found + 1, m.end()
        if _OSIS_OPEN.search(m.group(2)):  # this verse's </verse> or the next one's is missing
            raise unclosed(m.start(), " before the next one")
        osis = _OSIS_ID.search(m.group(1))
        if osis is None or not _VERSE_ID.fullmatch(osis.group(1)):
            got = osis.group(1) if osis else "none"
            raise located(
                name,
                text.count("\n", 0, m.start()) + 1,
                f"a <verse> whose osisID is not one verse's Book.C.V (got {quoted(got)}): not a mod2osis "
                f"export of a Bible module",
            )
        body = _OSIS_DROPPED.sub("", m.group(2))
        end = _OSIS_END.search(body)
        verse = " ".join(html.unescape(_OSIS_TAG.sub("", body[: end.start()] if end else body)).split())
        if verse:
            yield osis.group(1), verse
    left = _OSIS_OPEN.search(text, end_of_last)
    if left is not None:
        raise unclosed(left.start())
    if not found:
        raise located(
            name,
            None,
            "no <verse osisID=...>...</verse> element: not the OSIS export of a Bible module "
            "that mod2osis writes (mod2osis MODULE > MODULE.osis.xml)",
        )


def verses_digest(ids: list[str], texts: list[str]) -> str:
    """A short digest of a Bible's verses as a verse file holds them (``id TAB text`` lines)."""
    return hashlib.sha256("".join(f"{i}\t{t}\n" for i, t in zip(ids, texts)).encode("utf-8")).hexdigest()[:16]


def read_verses(path: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """Read a verse file as ``(osis_ids, texts)`` in file (canonical) order.

    The first line must be the header ``osis_id TAB text``; every other line
    ``Book.C.V TAB text``. A malformed line or a repeated id raises
    ``ClirkitError("file:line: ...")``. A mod2osis export (a name ending in one of :data:`OSIS_SUFFIXES`) is read
    with :func:`osis_verses` (a repeated id is an error there too).
    """
    if str(path).endswith(OSIS_SUFFIXES):
        verses: dict[str, str] = {}
        for osis, text in osis_verses(path):
            if osis in verses:
                raise located(display_name(path), None, f"verse {osis} appears twice")
            verses[osis] = text
        return list(verses), list(verses.values())
    ids: list[str] = []
    texts: list[str] = []
    seen: dict[str, int] = {}
    for lineno, line in iter_lines(path):
        osis, tab, text = line.partition("\t")
        if lineno == 1 and osis == "osis_id":
            continue
        if not tab or not _VERSE_ID.fullmatch(osis):
            raise located(path, lineno, f"expected Book.C.V TAB text, got {quoted(line)}")
        first = seen.setdefault(osis, lineno)
        if first != lineno:
            raise located(path, lineno, f"verse {osis} appears twice (first at line {first})")
        ids.append(osis)
        texts.append(text.strip())
    return ids, texts


@dataclass
class VerseIndex:
    """Positions of the verses of one Bible, for expanding references.

    Built from the verse ids in canonical order; a reference expands to the
    positions of the verses it covers that exist in this Bible.
    """

    ids: list[str]
    position: dict[str, int] = field(init=False)
    _books: dict[str, tuple[list[tuple[int, int]], list[int]]] = field(init=False)

    def __post_init__(self) -> None:
        self.position = {v: i for i, v in enumerate(self.ids)}
        books: dict[str, tuple[list[tuple[int, int]], list[int]]] = {}
        for i, v in enumerate(self.ids):
            b, c, n = _VERSE_ID.fullmatch(v).groups()
            keys, pos = books.setdefault(b, ([], []))
            keys.append((int(c), int(n)))
            pos.append(i)
        for b, (keys, pos) in books.items():
            order = sorted(range(len(keys)), key=keys.__getitem__)
            books[b] = ([keys[j] for j in order], [pos[j] for j in order])
        self._books = books

    def _between(self, book: str, lo: tuple[int, int], hi: tuple[int, int]) -> list[int]:
        keys, pos = self._books.get(book, ([], []))
        start = bisect.bisect_left(keys, lo)
        stop = bisect.bisect_right(keys, hi)
        return pos[start:stop]

    def expand(self, ref: str) -> list[int] | None:
        """Positions of the verses ``ref`` covers (in verse order within the book).

        Returns ``None`` if ``ref`` is not a well-formed OSIS reference, and an
        empty list if it is well formed but covers no verse of this Bible.
        A range covers every verse between its ends (by chapter and verse
        number), so an end missing from this versification still bounds it.
        """
        start, dash, end = ref.partition("-")
        if not dash:
            if _VERSE_ID.fullmatch(ref):
                return [self.position[ref]] if ref in self.position else []
            if m := _CHAPTER_ID.fullmatch(ref):
                b, c = m.group(1), int(m.group(2))
                return self._between(b, (c, 0), (c, 10**9))
            return None
        m1, m2 = _VERSE_ID.fullmatch(start), _VERSE_ID.fullmatch(end)
        if m1 and m2 and m1.group(1) == m2.group(1):
            lo = (int(m1.group(2)), int(m1.group(3)))
            hi = (int(m2.group(2)), int(m2.group(3)))
            return self._between(m1.group(1), lo, hi)
        c1, c2 = _CHAPTER_ID.fullmatch(start), _CHAPTER_ID.fullmatch(end)
        if c1 and c2 and c1.group(1) == c2.group(1):
            return self._between(c1.group(1), (int(c1.group(2)), 0), (int(c2.group(2)), 10**9))
        return None
