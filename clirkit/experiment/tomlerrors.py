"""What is wrong with an experiment file that is not TOML, said in one line naming the line (:func:`not_toml`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from clirkit.errors import FIX_SURROGATE, REMOVE_NUL, ClirkitError

_TOML_FIX = 'correct the line (TOML: key = value, strings in "quotes", tables under [name] headers)'
_TOML_AT = re.compile(r"^(.*) \(at line (\d+), column (\d+)\)$")


def not_toml(path: str | os.PathLike[str], exc: ValueError) -> ClirkitError:
    """The error for an experiment file that tomllib refused with ``exc``: a NUL byte, bytes that are not UTF-8 or a
    byte-order mark named as such (tomllib says "Expected newline" or "Invalid statement"), a TOML error at the
    line it names, with what to do."""
    from clirkit.fileio import looks_utf16

    data = Path(path).read_bytes()
    if looks_utf16(data[:4096], True):
        return ClirkitError(
            f"{path}:1: the file is UTF-16, not UTF-8 as TOML must be; convert it to UTF-8: "
            f"`iconv -f utf-16 -t utf-8 FILE > NEW`"
        )
    at = data.find(b"\0")
    if at >= 0:
        nul_line, nul_column = data.count(b"\n", 0, at) + 1, at - data.rfind(b"\n", 0, at)
        return ClirkitError(
            f"{path}:{nul_line}: a NUL byte (column {nul_column}): an experiment file is TOML text; {REMOVE_NUL}"
        )
    if isinstance(exc, UnicodeDecodeError):
        bad_line = data.count(b"\n", 0, exc.start) + 1
        from clirkit.fileio import TO_UTF8

        return ClirkitError(
            f"{path}:{bad_line}: not valid UTF-8 (byte {data[exc.start]:#04x}), as TOML must be{TO_UTF8}"
        )
    if data.startswith(b"\xef\xbb\xbf"):
        return ClirkitError(
            f"{path}:1: starts with a byte-order mark, which TOML does not allow; save the file as UTF-8 without it"
        )
    problem = " ".join(str(exc).split())
    if "integer string conversion" in problem:
        return ClirkitError(
            f"{path}: not a valid TOML file (an integer of more than 4,300 digits); write it with fewer digits"
        )
    m = _TOML_AT.match(problem)
    if m is None:
        return ClirkitError(f"{path}: not a valid TOML file ({problem[:200]}); {_TOML_FIX}")
    what, line, column = m.groups()
    if b"\r" in data and b"\n" not in data:
        return ClirkitError(
            f"{path}: its lines end with CR only (an old Mac file), which TOML does not allow; "
            f"convert them to LF (`tr '\\r' '\\n' < FILE > NEW`)"
        )
    if "Unicode scalar" in what:
        return ClirkitError(
            f"{path}:{line}: not a valid TOML file (an escape that is half a character, column "
            f"{column}); {FIX_SURROGATE}"
        )
    if what.startswith(("Cannot overwrite", "Cannot declare")):
        return ClirkitError(
            f"{path}:{line}: not a valid TOML file (a key or table given twice, column {column}); keep one of them"
        )
    return ClirkitError(f"{path}:{line}: not a valid TOML file ({what[:200]}, column {column}); {_TOML_FIX}")
