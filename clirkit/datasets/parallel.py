"""The parallel-corpus file: ``id TAB source TAB target`` lines (``.gz`` transparently).

``source`` is in the query language, ``target`` in the document language,
so a translation table trained on it maps query terms to document terms.
"""

from __future__ import annotations

import os
from typing import Iterable

from clirkit.errors import ClirkitError, located
from clirkit.fileio import atomic_writer, display_name, iter_lines


def write_parallel(
    ids: Iterable[str], sources: Iterable[str], targets: Iterable[str], path: str | os.PathLike[str]
) -> int:
    """Write aligned pairs as ``id TAB source TAB target`` lines; returns the number written.

    Raises ClirkitError if an id is empty or has whitespace, or a text holds
    a tab or a line break.
    """
    lines = []
    for i, s, t in zip(ids, sources, targets, strict=True):
        if not i or len(i.split()) != 1 or i.strip() != i:
            raise ClirkitError(f"cannot write pair id {i!r}: ids must be non-empty and contain no whitespace")
        for text in (s, t):
            if "\t" in text or "\n" in text or "\r" in text:
                raise ClirkitError(f"cannot write pair {i}: its text contains a tab or a line break")
        lines.append(f"{i}\t{s}\t{t}\n")
    with atomic_writer(path) as out:
        out.write("".join(lines))
    return len(lines)


def read_parallel(path: str | os.PathLike[str]) -> tuple[list[str], list[str], list[str]]:
    """Read ``(ids, sources, targets)`` in file order.

    Every line must have exactly three tab-separated fields and a unique id (non-empty, without
    whitespace or NUL, at most :data:`~clirkit.formats.MAX_ID_LENGTH` characters); otherwise
    ``ClirkitError("file:line: ...")``. An empty file is an error.
    """
    from clirkit.formats import check_id

    name = display_name(path)
    ids: list[str] = []
    sources: list[str] = []
    targets: list[str] = []
    seen: dict[str, int] = {}
    for lineno, line in iter_lines(path):
        fields = line.split("\t")
        if len(fields) != 3:
            raise located(name, lineno, f"expected 3 tab-separated fields (id, source, target), got {len(fields)}")
        check_id(name, lineno, fields[0], "pair id")
        first = seen.setdefault(fields[0], lineno)
        if first != lineno:
            raise located(name, lineno, f"pair id {fields[0]} appears twice (first at line {first})")
        ids.append(fields[0])
        sources.append(fields[1])
        targets.append(fields[2])
    if not ids:
        raise located(
            name,
            None,
            "empty: no sentence pairs found; check the path (a parallel file holds id TAB source TAB target lines)",
        )
    return ids, sources, targets
