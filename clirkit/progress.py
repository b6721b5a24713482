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
_HELD: ContextVar[list[str] | None] = ContextVar("held", default=None)


def say_unless_stopped(message: str) -> None:
    """:func:`say` ``message`` (under ``--quiet`` too), or within :func:`held_until_checked` when its checks pass."""
    held = _HELD.get()
    if held is None:
        say(message)
    else:
        held.append(message)


@contextmanager
def held_until_checked() -> Iterator[None]:
    """Within it, the lines of :func:`say_unless_stopped` are kept, then said as the block ends without an error:
    a command stopped by a check says its one error line, what else it noticed is for the run that goes on."""
    held: list[str] = []
    token = _HELD.set(held)
    try:
        yield
    finally:
        _HELD.reset(token)
    for line in held:
        say(line)


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
    """The notes of work done in parts as said of the whole, in the order first said, each once:

    - lines alike but for their first count ``N of M`` (``N of the M``) and their quoted examples (``'q1'``, kept
      from the first) are one line: N summed over the parts that said it, and M the sum of ``sizes`` (each part's
      number of queries) when M was the part's size in each;
    - else (a count of something else, e.g. rows) M summed too, unless every part said the very same line (a count
      of the whole, e.g. of a table's words: said as it is). Counts are ``1,234``-style if the first was.
    """
    merged: dict[str, _Said] = {}
    for lines, size in zip(parts, sizes):
        for line in dict.fromkeys(lines):
            found = _COUNTS.search(line)
            key = line if found is None else _QUOTED.sub("''", line[: found.start()] + "\0" + line[found.end() :])
            said = merged.setdefault(key, _Said(line, found))
            if found is not None:
                said.add(int(found.group(1).replace(",", "")), int(found.group(3).replace(",", "")), size, line)
    return [said.line_for(sum(sizes)) for said in merged.values()]


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


class _Said:
    """A note said by one or more parts (:func:`merged_notes`): its first line, where its count is, the counts
    summed, whether each part counted its queries (``of_sizes``) and whether every part said the same line."""

    def __init__(self, line: str, found: re.Match | None) -> None:
        self.line, self.found = line, found
        self.n = self.m = 0
        self.of_sizes = self.same = True

    def add(self, n: int, m: int, size: int, line: str) -> None:
        self.n, self.m = self.n + n, self.m + m
        self.of_sizes, self.same = self.of_sizes and m == size, self.same and line == self.line

    def line_for(self, queries: int) -> str:
        """The line said of the whole, of ``queries`` queries in all."""
        if self.found is None or (self.same and not self.of_sizes):
            return self.line
        shown = (lambda v: f"{v:,}") if "," in self.found.group(0) else str
        m = queries if self.of_sizes else self.m
        count = f"{shown(self.n)} of {self.found.group(2) or ''}{shown(m)}"
        return self.line[: self.found.start()] + count + self.line[self.found.end() :]


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
