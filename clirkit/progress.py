"""Progress bars on stderr (tqdm), silenced by ``quiet``."""
from __future__ import annotations

import sys
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def progress(iterable: Iterable[T], *, desc: str, total: int | None = None,
             quiet: bool = False, unit: str = "it") -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm bar on stderr unless ``quiet``."""
    if quiet:
        yield from iterable
        return
    from tqdm import tqdm

    yield from tqdm(iterable, desc=desc, total=total, unit=unit, file=sys.stderr,
                    dynamic_ncols=True, leave=False, mininterval=0.5)


def say(message: str, *, quiet: bool = False) -> None:
    """Print a one-line status message on stderr unless ``quiet``."""
    if not quiet:
        print(message, file=sys.stderr, flush=True)
