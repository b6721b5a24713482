"""A command's standard output, guarded: a write that fails (a full disk, ``> /dev/full``, a lost device) is a
one-line error (:class:`StdoutLost`, a ClirkitError), not a traceback; a closed pipe (``| head``) is left to the
caller (BrokenPipeError)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from clirkit.errors import ClirkitError


class StdoutLost(ClirkitError):
    """The standard output could not be written; what was still to be written is dropped."""


def _lost(exc: OSError) -> StdoutLost:
    with contextlib.suppress(OSError, ValueError):  # the interpreter's last flush then writes nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.__stdout__.fileno())
    return StdoutLost(f"cannot write to the standard output: {exc.strerror or exc}")


class _Guarded:
    """``stream`` (text or binary) whose write, writelines and flush raise :class:`StdoutLost` for an OSError
    other than a closed pipe; every other attribute is the stream's."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def _guard(self, method, *args):
        try:
            return method(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _lost(exc) from None

    def write(self, data):
        return self._guard(self._stream.write, data)

    def writelines(self, lines) -> None:
        self._guard(self._stream.writelines, lines)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    @property
    def buffer(self):
        return _Guarded(self._stream.buffer)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextlib.contextmanager
def guarded_stdout() -> Iterator[None]:
    """``sys.stdout`` guarded (see the module docstring) within the block, and flushed at its end."""
    stream = sys.stdout
    sys.stdout = _Guarded(stream)
    try:
        yield
        sys.stdout.flush()
    finally:
        sys.stdout = stream
