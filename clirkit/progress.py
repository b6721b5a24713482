"""Progress on stderr (tqdm bars and one-line messages, silenced by ``quiet``) and step timings."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def progress(
    iterable: Iterable[T], *, desc: str, total: int | None = None, quiet: bool = False, unit: str = "it"
) -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm bar on stderr unless ``quiet``."""
    if quiet:
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
    stays on screen (or a silent stand-in when ``quiet``)."""
    if quiet:
        yield _Silent()
        return
    from tqdm import tqdm

    with tqdm(
        desc=desc, total=total, unit=unit, file=sys.stderr, dynamic_ncols=True, leave=True, mininterval=0.5
    ) as bar:
        yield bar


def say(message: str, *, quiet: bool = False) -> None:
    """Print a one-line status message on stderr unless ``quiet``."""
    if not quiet:
        print(message, file=sys.stderr, flush=True)


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
