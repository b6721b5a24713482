"""Progress on stderr (tqdm bars and one-line messages, silenced by ``quiet``) and step timings."""

from __future__ import annotations

import re
import sys
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def progress(
    iterable: Iterable[T], *, desc: str, total: int | None = None, quiet: bool = False, unit: str = "it"
) -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm bar on stderr unless ``quiet`` (or within :func:`gathered_notes`)."""
    if quiet or _GATHERED.get() is not None:
        yield from iterable
        return
    from tqdm import tqdm

    yield from tqdm(
        iterable, desc=desc, total=total, unit=unit, file=sys.stderr, dynamic_ncols=True, leave=False, mininterval=0.5
    )


class _Silent:
    def update(self, n: int = 1) -> None:
        pass


@contextmanager
def counter(desc: str, *, quiet: bool = False, unit: str = "it", total: int | None = None):
    """A progress bar on stderr advanced by ``update(n)``, left visible when done so the final count
    stays on screen (or a silent stand-in when ``quiet``, or within :func:`gathered_notes`)."""
    if quiet or _GATHERED.get() is not None:
        yield _Silent()
        return
    from tqdm import tqdm

    with tqdm(
        desc=desc, total=total, unit=unit, file=sys.stderr, dynamic_ncols=True, leave=True, mininterval=0.5
    ) as bar:
        yield bar


def say(message: str, *, quiet: bool = False) -> None:
    """Print a one-line status message on stderr unless ``quiet`` (within :func:`gathered_notes`: keep it there)."""
    gathered = _GATHERED.get()
    if gathered is not None and not quiet:
        gathered.append(message)
    elif not quiet:
        print(message, file=sys.stderr, flush=True)


_GATHERED: ContextVar[list[str] | None] = ContextVar("gathered", default=None)
_COUNTS = re.compile(r"\b(\d[\d,]*) of (the )?(\d[\d,]*)\b")


@contextmanager
def gathered_notes() -> Iterator[list[str]]:
    """Within it, no progress bar is shown and the lines :func:`say` is given are kept in the list it yields, not
    printed: for work done in parts (a split searched a block of queries at a time) whose notes are said once,
    :func:`merged_notes`."""
    gathered: list[str] = []
    token = _GATHERED.set(gathered)
    try:
        yield gathered
    finally:
        _GATHERED.reset(token)


def merged_notes(parts: list[list[str]], sizes: list[int]) -> list[str]:
    """The notes of work done in parts as said of the whole, in the order first said: a line said in several parts
    once; lines alike but for their first count ``N of M`` (``N of the M``) one line, N summed over the parts that
    said it and M the sum of ``sizes`` (each part's number of queries) when M was the part's size in each, else
    summed too (``1,234``-style if the first was written so)."""
    merged: dict[str, list] = {}
    for lines, size in zip(parts, sizes):
        for line in dict.fromkeys(lines):
            found = _COUNTS.search(line)
            key = line if found is None else line[: found.start()] + "\0" + line[found.end() :]
            n, m = (int(found.group(1).replace(",", "")), int(found.group(3).replace(",", ""))) if found else (0, 0)
            entry = merged.setdefault(key, [line, found, 0, 0, True])
            entry[2], entry[3], entry[4] = entry[2] + n, entry[3] + m, entry[4] and m == size
    out = []
    for key, (line, found, n, m, of_sizes) in merged.items():
        if found is None:
            out.append(line)
            continue
        m = sum(sizes) if of_sizes else m
        shown = (lambda v: f"{v:,}") if "," in found.group(0) else str
        out.append(key.replace("\0", f"{shown(n)} of {found.group(2) or ''}{shown(m)}", 1))
    return out


class Steps:
    """Wall time in seconds of named steps, in the order they first ran (``with steps.time(name): ...``)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def time(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
