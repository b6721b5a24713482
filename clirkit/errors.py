"""The one error type for user mistakes."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


class ClirkitError(Exception):
    """A problem with the user's input or options.

    The message says where (``file:line:`` when a file is involved) and what is
    wrong. The command line prints it as one line and exits with status 2.
    """


class ClirkitTypeError(ClirkitError, TypeError):
    """An argument of the wrong kind (a list where a mapping is expected): a user mistake, so a
    :class:`ClirkitError`, and a TypeError still for code that caught the TypeError raised before."""


class LineAfterCR(int):
    """The number of a line of a file of LF-ended lines after a lone carriage return, which
    :func:`clirkit.fileio.iter_lines` reads as a line end too: ``physical``, its number as most editors and ``sed
    -n`` count lines (by LF); ``first_cr``, the line (so counted) of the first such CR; ``at_cr``, whether a CR
    began this line. :func:`located` says so: else the line named is not the one the user sees."""

    physical: int
    first_cr: int
    at_cr: bool

    def __new__(cls, number: int, physical: int, first_cr: int, at_cr: bool) -> "LineAfterCR":
        line = super().__new__(cls, number)
        line.physical, line.first_cr, line.at_cr = physical, first_cr, at_cr
        return line

    def __reduce__(self):  # pickled as made (a worker's error)
        return type(self), (int(self), self.physical, self.first_cr, self.at_cr)

    def note(self) -> str:
        """Where the line is for an editor, and why the numbers differ."""
        if self.at_cr:
            return (
                f"line {self} begins at a carriage return inside line {self.physical} as most editors number lines: "
                f"a lone CR ends a line; remove it if it should not"
            )
        return (
            f"line {self} is line {self.physical} as most editors number lines: a lone carriage return inside line "
            f"{self.first_cr} ends a line too"
        )


def located(path: object, lineno: int | None, problem: str) -> ClirkitError:
    """Build a ``ClirkitError`` whose message is ``path:lineno: problem``, with a note when lone carriage returns
    make the line's number differ from an editor's (:class:`LineAfterCR`)."""
    where = f"{path}:{lineno}" if lineno is not None else f"{path}"
    if isinstance(lineno, LineAfterCR):
        problem += f" ({lineno.note()})"
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


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and the noun for it, in the singular for 1: ``counted(1, "entry", "entries")`` is ``1 entry``,
    ``counted(1234, "option")`` is ``1,234 options`` (``plural`` defaults to ``singular + "s"``)."""
    return f"1 {singular}" if n == 1 else f"{n:,} {plural or singular + 's'}"


def nth(i: int) -> str:
    """``i`` as the messages count the arguments given: ``1st``, ``2nd``, ``3rd``, ``4th``, ``11th`` to ``13th``,
    ``21st``, ``22nd``, ``111th``, ..."""
    last = 0 if 11 <= i % 100 <= 13 else i % 10
    return f"{i}{'st' if last == 1 else 'nd' if last == 2 else 'rd' if last == 3 else 'th'}"


def quoted(text: str, most: int = 40) -> str:
    """``text`` quoted (``repr``) for a message: its first ``most`` characters, an ellipsis and its length when it
    is longer (``'abc...' (1,234 characters)``), so a cut value is not read as the whole."""
    return repr(text) if len(text) <= most else f"{text[:most] + '...'!r} ({len(text):,} characters)"


def cut_repr(value: object, most: int = 40) -> str:
    """``repr(value)`` for a message, at most ``most`` characters, the last three ``...`` when it is cut."""
    text = repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."


#: numpy's ValueError messages for an array too big to address (it raises MemoryError for one it cannot allocate).
_TOO_BIG = ("array is too big", "Maximum allowed dimension exceeded", "Maximum allowed size exceeded")


@contextmanager
def too_big_as_memory() -> Iterator[None]:
    """Within the block, numpy's refusal of an array too big to address (a ValueError: a count of 2**70 asked for)
    is raised as the MemoryError numpy raises for one too big to allocate, so callers handle both alike (a
    ClirkitError that is a ValueError, whose message may quote the user's words, is left as it is)."""
    try:
        yield
    except ValueError as exc:
        if not isinstance(exc, ClirkitError) and any(words in str(exc) for words in _TOO_BIG):
            raise MemoryError(
                f"an array larger than memory can address ({str(exc).split(';')[0].rstrip('.')})"
            ) from None
        raise
