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


def empty_file(path: object, what: str, expected: str) -> ClirkitError:
    """The error for a file that holds no ``what`` (``judgments``): ``path: empty: no WHAT found; check the path
    (EXPECTED)``, ``expected`` saying what such a file holds (``a qrels file holds one judgment per line: ...``)."""
    return located(path, None, f"empty: no {what} found; check the path ({expected})")


def repeated_id(path: object, lineno: int, key: str, value: str, first: int, what: str) -> ClirkitError:
    """The error for ``key`` (``query id``) ``value`` given again at line ``lineno`` of ``path``, first given at
    line ``first``, ``what`` being what the file holds one of per id (``topic``): ``path:lineno: query id 7
    appears twice (first at line 3): give each topic its own id, or remove the repeated topic``."""
    return located(
        path,
        lineno,
        f"{key} {value} appears twice (first at line {first}): give each {what} its own "
        f"id, or remove the repeated {what}",
    )


# what to do, ending the messages of problems met in many formats
REMOVE_NUL = "remove the NUL bytes (is it a binary file?)"
FIX_SURROGATE = "write the character itself, or a valid pair of \\uD8xx\\uDCxx escapes"
SHORTEN_ID = "check the line: an id is a short name (is a line break or a tab missing?)"
