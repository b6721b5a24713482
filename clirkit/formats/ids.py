"""Ids in text files, shared by every format: what an id may be when read (:func:`check_id`) and when
written (:func:`check_ids`), ids coded by their first appearance (the columns of qrels and runs), the
integer columns beside them, the line parsing qrels and runs share (:func:`parse_lines`), and the chunks
writers join rows in.

The lowest layer of :mod:`clirkit.formats`: it imports no other of its modules.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Callable, Iterator, TypeVar

import numpy as np

from clirkit.errors import REMOVE_NUL, SHORTEN_ID, ClirkitError, located, quoted
from clirkit.fileio import display_name, iter_lines
from clirkit.run import ID_RULE, MAX_ID_LENGTH, first_bad_id
from clirkit.runchecks import first_appearance_codes, repeated_pair  # noqa: F401  (the formats' names for them)

WRITE_CHUNK = 100_000  # rows joined into one string per write
INT = re.compile(r"[+-]?[0-9]+")
INTS = re.compile(r"[+-]?[0-9]+(?: [+-]?[0-9]+)*")  # space-separated integers

_SPACE = re.compile(r"\s")


def has_space(s: str) -> bool:
    return _SPACE.search(s) is not None


def check_tag(tag) -> str:
    """``tag`` if a run file can hold it as its sixth column: a str, non-empty, without whitespace or NUL, at most
    :data:`MAX_ID_LENGTH` characters; else ClirkitError ``run tag 'a b' must be ...``."""
    if not isinstance(tag, str):
        raise ClirkitError(f"run tag {tag!r} is not a str: a run tag is a text, {ID_RULE}")
    if not tag or has_space(tag) or "\0" in tag or len(tag) > MAX_ID_LENGTH:
        raise ClirkitError(f"run tag {quoted(tag, 50)} must be {ID_RULE}")
    if any("\ud800" <= c <= "\udfff" for c in tag):
        raise ClirkitError(f"run tag {quoted(tag, 50)} contains a lone surrogate: no UTF-8 text holds one")
    return tag


def check_id(name: str, lineno: int | None, value: str, key: str) -> str:
    """``value`` if it can be an id (a docid, a qid, a word): non-empty, without whitespace, without NUL (numpy
    string arrays drop trailing NULs, so ``"d\\0"`` would silently become ``"d"``), at most
    :data:`MAX_ID_LENGTH` characters; else ``ClirkitError("name:lineno: problem")`` naming ``key``."""
    if not value:
        raise located(name, lineno, f"empty {key}; give each record its {key}")
    if has_space(value):
        raise located(name, lineno, f"{key} {quoted(value, 50)} contains whitespace")
    if "\0" in value:
        raise located(name, lineno, f"{key} {quoted(value, 50)} contains a NUL character; {REMOVE_NUL}")
    if len(value) > MAX_ID_LENGTH:
        raise located(name, lineno, f"{key} of {len(value):,} characters (at most {MAX_ID_LENGTH:,}); {SHORTEN_ID}")
    return value


def plain_ids(ids: list[str]) -> bool:
    """Whether whitespace-split ``ids`` all pass :func:`check_id` (no NUL, not too long), checked at once."""
    return "\0" not in "".join(ids) and max(map(len, ids), default=0) <= MAX_ID_LENGTH


def check_ids(ids: np.ndarray, what: str) -> None:
    """Ids written into whitespace-separated files must be what :func:`check_id` reads back: non-empty, space-free,
    without NUL, at most :data:`MAX_ID_LENGTH` characters (checked on the code points, slice by slice:
    :func:`clirkit.run.first_bad_id`); ClirkitError ``cannot write WHAT 'ID': it contains whitespace`` for the
    first that is not."""
    bad = first_bad_id(ids)
    if bad is not None:
        value = str(ids[bad[0]])
        raise ClirkitError(
            f"cannot write {what} {quoted(value, 50)}: it {bad[1]}" if value else f"cannot write an empty {what}"
        )


def chunks(rows: Iterator) -> Iterator[list]:
    """``rows`` in lists of :data:`WRITE_CHUNK` (joined into one string per write)."""
    while chunk := list(itertools.islice(rows, WRITE_CHUNK)):
        yield chunk


Coded = tuple[np.ndarray, list[str]]


def first_appearance(values: list[str]) -> Coded:
    """Code each value by the order of its first appearance; also return the distinct values."""
    distinct = list(dict.fromkeys(values))
    code = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(code.__getitem__, values), dtype=np.int64, count=len(values)), distinct


Parsed = TypeVar("Parsed")


def parse_lines(
    path: str | os.PathLike[str],
    fast: Callable[[list[tuple[int, str]]], Parsed | None],
    checked: Callable[[str, list[tuple[int, str]]], Parsed],
) -> Parsed:
    """The non-blank lines of ``path`` parsed by ``fast`` (C-level passes over well-formed lines), or by
    ``checked`` (line by line, raising ``file:line: problem`` at the first bad one) when ``fast`` declines.
    A file without lines is given to ``checked`` too, which decides what it is (a run of no rows; qrels
    that judge nothing, an error)."""
    name = display_name(path)
    rows = list(iter_lines(path))
    parsed = fast(rows) if rows else None
    if parsed is None:  # something is wrong: find and report the first bad line
        parsed = checked(name, rows)
    return parsed
