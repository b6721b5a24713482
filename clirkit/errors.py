"""The one error type for user mistakes."""
from __future__ import annotations


class ClirkitError(Exception):
    """A problem with the user's input or options.

    The message says where (``file:line:`` when a file is involved) and what is
    wrong. The command line prints it as one line and exits with status 2.
    """


def located(path: object, lineno: int | None, problem: str) -> ClirkitError:
    """Build a ``ClirkitError`` whose message is ``path:lineno: problem``."""
    where = f"{path}:{lineno}" if lineno is not None else f"{path}"
    return ClirkitError(f"{where}: {problem}")
