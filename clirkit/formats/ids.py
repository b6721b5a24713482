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

from clirkit.errors import REMOVE_NUL, SHORTEN_ID, ClirkitError, located
from clirkit.fileio import display_name, iter_lines
from clirkit.run import MAX_ID_LENGTH, first_bad_id

WRITE_CHUNK = 100_000  # rows joined into one string per write
INT = re.compile(r"[+-]?[0-9]+")
INTS = re.compile(r"[+-]?[0-9]+(?: [+-]?[0-9]+)*")  # space-separated integers

_SPACE = re.compile(r"\s")


def has_space(s: str) -> bool:
    return _SPACE.search(s) is not None


def check_id(name: str, lineno: int | None, value: str, key: str) -> str:
    """``value`` if it can be an id (a docid, a qid, a word): non-empty, without whitespace, without NUL (numpy
    string arrays drop trailing NULs, so ``"d\\0"`` would silently become ``"d"``), at most
    :data:`MAX_ID_LENGTH` characters; else ``ClirkitError("name:lineno: problem")`` naming ``key``."""
    if not value:
        raise located(name, lineno, f"empty {key}; give each record its {key}")
    if has_space(value):
        raise located(name, lineno, f"{key} {value[:50]!r} contains whitespace")
    if "\0" in value:
        raise located(name, lineno, f"{key} {value[:50]!r} contains a NUL character; {REMOVE_NUL}")
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
            f"cannot write {what} {value[:50]!r}: it {bad[1]}" if value else f"cannot write an empty {what}"
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


def first_appearance_codes(ids: np.ndarray) -> np.ndarray:
    """Code of each id of ``ids`` (a str array): the order of its first appearance (int64), computed
    from the runs of equal consecutive ids, so the cost is in the number of runs, not of rows."""
    change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    starts = np.concatenate(([0], change))
    distinct, first, inverse = np.unique(ids[starts], return_index=True, return_inverse=True)
    code_of_distinct = np.empty(len(distinct), dtype=np.int64)
    code_of_distinct[np.argsort(first, kind="stable")] = np.arange(len(distinct))
    return np.repeat(code_of_distinct[inverse.reshape(-1)], np.diff(np.append(starts, len(ids))))


def repeated_pair(codes: np.ndarray, docids: np.ndarray) -> tuple[int, int] | None:
    """The first row whose (code, docid) pair an earlier row holds, and that earlier row; None when no pair repeats
    (the readers' test for a repeat, and the writers' for the rows to name). The pairs' 64-bit keys are sorted at
    once; only the few rows whose keys repeat are compared exactly."""
    from clirkit.hashing import pair_keys

    ordered = pair_keys(codes, docids)
    ordered.sort()  # (in place: no copy of the keys on the common path, where no pair repeats)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(repeated):
        return None
    rows = np.flatnonzero(np.isin(pair_keys(codes, docids), repeated))
    first: dict[tuple[int, str], int] = {}
    for row, pair in zip(rows.tolist(), zip(codes[rows].tolist(), docids[rows].tolist())):
        if first.setdefault(pair, row) != row:
            return row, first[pair]
    return None  # (keys equal by a hash collision only)


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
