"""Bible verse files and OSIS references, shared by the Bible-based collections.

A verse file is the ``osis_id TAB text`` export in ``shared/data/bible``
(a header line ``osis_id TAB text`` first). OSIS ids look like ``Gen.1.1``;
a reference is a verse (``Exod.4.14``), a whole chapter (``1Chr.24``) or a
range within a book (``Exod.4.14-Exod.4.16``).
"""
from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field

from clirkit.errors import located
from clirkit.fileio import iter_lines

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


def read_verses(path: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """Read a verse file as ``(osis_ids, texts)`` in file (canonical) order.

    The first line must be the header ``osis_id TAB text``; every other line
    ``Book.C.V TAB text``. A malformed line or a repeated id raises
    ``ClirkitError("file:line: ...")``.
    """
    ids: list[str] = []
    texts: list[str] = []
    seen: dict[str, int] = {}
    for lineno, line in iter_lines(path):
        osis, tab, text = line.partition("\t")
        if lineno == 1 and osis == "osis_id":
            continue
        if not tab or not _VERSE_ID.fullmatch(osis):
            raise located(path, lineno, f"expected Book.C.V TAB text, got {line[:40]!r}")
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
