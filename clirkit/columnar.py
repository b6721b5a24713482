"""Whitespace-separated column files (TREC runs and qrels) read at C speed with numpy.

The fast path reads the layout nearly every such file has: one space (or one tab) between the
columns, the same number of columns on every line, tokens of printable ASCII. A block of lines
(a few MiB of text) is split with two searches over its bytes (line ends, delimiters) and a check
that the i-th line holds the i-th ``columns - 1`` delimiters, none at an edge and none next to
another; each column is then gathered into a byte matrix (one row per line), from which ids become
string arrays and numbers are parsed, with no Python object per line. Memory: the arrays kept plus
one block and a few times its size in positions.

Numbers are read as Python's ``int`` and ``float`` read them. A decimal score (``12.3456``,
``-1.5e-3``) whose digits make an integer ``M`` of at most 2**53 and whose power of ten ``E`` is
within 22 is ``M * 10**E`` or ``M / 10**-E``: both operands are exact doubles, so the one IEEE
operation rounds correctly (Clinger's fast path, the one ``float`` itself takes); the other scores
(17-digit ``repr``s, huge exponents) go to pyarrow's correctly rounded parser, imported only then.

Anything else (several spaces between columns, other whitespace, non-ASCII ids, a number the
grammar below does not accept, a corrupt gzip stream, stdin) raises :class:`NotPlain`, and the
caller parses the file line by line instead: that parser accepts exactly the same files (with the
same result) and reports the first bad line as ``FILE:LINE: problem``. So the fast path decides
nothing on its own: it is an optimisation of the line parser, never a second reading of the format.
"""

from __future__ import annotations

import gzip
import os
import zlib
from typing import Iterator, Sequence

import numpy as np

ID = "id"  # a string column (at most ``max_id`` characters), returned as a byte matrix (see :func:`strings`)
TOKEN = "token"  # a column that is checked and dropped (TREC's Q0 and iter columns): None
HEAD = "head"  # a string column of which only the first value is returned (a run's tag)
INTEGER = "integer"  # an integer of any length (a run's rank), checked and dropped: None
GRADE = "grade"  # an integer of at most 9 digits (a relevance grade), returned as int64
FLOAT = "float"  # a finite number in Python's float syntax, returned as float64
KINDS = (ID, TOKEN, HEAD, INTEGER, GRADE, FLOAT)

BLOCK_BYTES = 1 << 20  # the positions and byte matrices of a block take a few times its size (cache-sized)


class NotPlain(Exception):
    """The file is not in the plain layout: parse it line by line."""


def iter_column_batches(
    path: str | os.PathLike[str], layouts: Sequence[Sequence[str]], *, max_id: int, block_bytes: int = BLOCK_BYTES
) -> Iterator[list[np.ndarray | None]]:
    """Yield, block by block of lines, one value per column of the file at ``path``.

    Args:
        path: a text file, or a gzip-compressed one (recognised by its magic bytes); not ``-``.
        layouts: the allowed layouts, each the kind of every column (see the constants above);
            the first line's number of columns picks one, and every line must have as many.
        max_id: the longest id allowed, in characters.
        block_bytes: the size of the blocks read and parsed (bytes of text).

    Yields:
        per block, a list with one entry per column: a uint8 matrix (``id``: one row per line,
        the id's ASCII bytes padded with zeros; :func:`strings` turns blocks of them into a str
        array), a one-element str array (``head``, in the first block; empty later), an int64
        array (``grade``), a float64 array (``float``) or None (``token``, ``integer``). Blank lines are skipped; line
        ends
        may be LF, CRLF or CR, and a UTF-8 byte-order mark is skipped, as the line reader does.

    Raises:
        NotPlain: the file (or the block just read) is not in the plain layout, or cannot be
            read: the caller must parse it line by line. Blocks already yielded are then moot.
    """
    if not isinstance(path, (str, os.PathLike)) or str(path) == "-" or not os.path.isfile(path):  # (an int: an fd)
        raise NotPlain
    try:
        with open(path, "rb") as fh:
            gzipped = fh.read(2) == b"\x1f\x8b"
            fh.seek(0)
            stream = gzip.GzipFile(fileobj=fh) if gzipped else fh
            blocks = _line_blocks(stream, block_bytes)
            block = next(blocks, b"").removeprefix(_BOM)
            layout = _Layout(block, layouts, max_id)
            while block:
                yield layout.columns(block)
                block = next(blocks, b"")
    except (OSError, EOFError, ValueError, zlib.error):
        raise NotPlain from None


_BOM = b"\xef\xbb\xbf"
_ALLOWED = bytes(range(0x21, 0x7F)) + b"\n\r"  # what a plain file may hold, and its delimiter


def _line_blocks(stream, block_bytes: int) -> Iterator[bytes]:
    """The stream's bytes in blocks of about ``block_bytes`` that end at a line end (the last may not)."""
    rest = b""
    while chunk := stream.read(block_bytes):
        text = rest + chunk
        cut = max(text.rfind(b"\n"), text.rfind(b"\r")) + 1
        if cut:
            yield text[:cut]
        rest = text[cut:]
        if len(rest) > block_bytes:
            raise NotPlain  # a line this long has a value no reader of these files expects: the line reader says
    if rest:
        yield rest


class _Layout:
    """The columns of a file, decided from its first line, and the reading of its blocks."""

    def __init__(self, block: bytes, layouts: Sequence[Sequence[str]], max_id: int) -> None:
        first_line = block.lstrip(b"\r\n").split(b"\n", 1)[0].split(b"\r", 1)[0]
        self.delimiter = b"\t" if b"\t" in first_line and b" " not in first_line else b" "
        kinds = next((k for k in layouts if len(k) == first_line.count(self.delimiter) + 1), None)
        if kinds is None:
            raise NotPlain
        self.kinds, self.max_id = kinds, max_id
        self.head: list[bytes] | None = first_line.split(self.delimiter)
        self.allowed = _ALLOWED + self.delimiter

    def columns(self, block: bytes) -> list[np.ndarray | None]:
        """One entry per column of the lines of ``block`` (see :func:`iter_column_batches`)."""
        # Only printable ASCII, the delimiter and line ends; every non-blank line with exactly one
        # delimiter between its fields and none at its edges: then the fields are exactly the
        # whitespace-split tokens of each line, which the line reader sees.
        if block.translate(None, self.allowed):  # what is left are the bytes not allowed
            raise NotPlain
        if b"\r" in block:  # CRLF and CR end lines as LF does; the blank lines this makes are skipped
            block = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if not block.endswith(b"\n"):
            block += b"\n"
        text = np.frombuffer(block, dtype=np.uint8)
        ends = np.flatnonzero(text == 10)
        starts = np.concatenate(([0], ends[:-1] + 1))
        lines = ends > starts  # blank lines have no byte
        if not lines.all():
            starts, ends = starts[lines], ends[lines]
        n, k = len(starts), len(self.kinds)
        delims = np.flatnonzero(text == self.delimiter[0])
        if len(delims) != n * (k - 1):
            raise NotPlain
        if n and ((delims[1:] - delims[:-1]) < 2).any():  # two delimiters in a row: an empty field
            raise NotPlain
        # Delimiters and lines are both in file order, so row i holds the delimiters of line i exactly
        # when none of its row falls before the line's first byte or at or after its last one.
        delims = delims.reshape(n, k - 1)
        if n and ((delims[:, 0] <= starts).any() or (delims[:, -1] >= ends - 1).any()):
            raise NotPlain
        out: list[np.ndarray | None] = []
        for i, kind in enumerate(self.kinds):
            if kind == TOKEN:
                out.append(None)
                continue
            if kind == HEAD:
                out.append(self._head(i))
                continue
            first = starts if i == 0 else delims[:, i - 1] + 1
            lengths = (ends if i == k - 1 else delims[:, i]) - first
            out.append(_column(text, first, lengths, kind, self.max_id))
        self.head = None
        return out

    def _head(self, i: int) -> np.ndarray:
        """A ``head`` column's value: the first line's, as a one-element str array; empty after the first block."""
        if self.head is None:
            return np.zeros(0, dtype="<U1")
        value = self.head[i]
        if len(value) > self.max_id:
            raise NotPlain
        return np.array([value.decode("ascii")])


def _column(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray, kind: str, max_id: int) -> np.ndarray | None:
    """Convert one column of a block (fields of printable ASCII at ``starts``, non-empty) as its ``kind`` says."""
    longest = int(lengths.max()) if len(lengths) else 1
    if kind == ID:
        if longest > max_id:
            raise NotPlain
        return _byte_matrix(text, starts, lengths, longest).T
    if kind == FLOAT:
        return _floats(text, starts, lengths)
    if longest > _WIDEST_INTEGER:  # an integer column of ranks this long: check it byte by byte
        if kind == GRADE:
            raise NotPlain
        _check_long_integers(text, starts, lengths)
        return None
    matrix = _byte_matrix(text, starts, lengths, longest)  # one row per character position
    digits = np.subtract(matrix, 0x30, dtype=np.uint8)  # the padding and every non-digit become >= 10
    signed = ((matrix[0] == 0x2B) | (matrix[0] == 0x2D)) & (lengths > 1)
    other = (digits >= 10) & (matrix != 0)
    other[0] &= ~signed
    if other.any():
        raise NotPlain  # Python's int() reads more (underscores, spaces), which the line reader names
    if kind == INTEGER:
        return None
    if len(lengths) and (lengths - signed).max() > 9:
        raise NotPlain
    is_digit = digits < 10
    values = np.zeros(len(lengths), dtype=np.int64)
    for j in range(longest):
        values *= np.where(is_digit[j], 10, 1)
        values += np.where(is_digit[j], digits[j], 0)
    values[matrix[0] == 0x2D] *= -1
    return values


_WIDEST_INTEGER = 24  # integers longer than this are checked without a byte matrix


def _check_long_integers(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
    """NotPlain unless every field is an optional sign and at least one digit, counted over the
    whole block (for columns too wide for a byte matrix)."""
    other = np.concatenate(([0], np.cumsum(np.subtract(text, 0x30, dtype=np.uint8) >= 10, dtype=np.int64)))
    others = other[starts + lengths] - other[starts]  # the non-digits of each field
    signed = np.isin(text[starts], (0x2B, 0x2D)) & (lengths > 1)
    if (others != signed).any():
        raise NotPlain


_POWERS = np.array([float(10**e) for e in range(23)])  # exact doubles
_EXACT = 1 << 53  # every integer up to this is an exact double
_WIDEST_FAST_FLOAT = 40  # longer scores go to the general parser


def _floats(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The fields as Python's ``float`` reads them (finite ones only; NotPlain otherwise).

    Every field must match ``[+-]? (D+ (. D*)? | . D+) ([eE] [+-]? D+)?`` (``float`` reads more:
    ``inf``, ``nan``, underscores, which the line reader names). Fields within Clinger's fast path
    are computed here; the others by pyarrow's correctly rounded parser."""
    n = len(lengths)
    width = min(int(lengths.max()) if n else 1, _WIDEST_FAST_FLOAT)
    long = lengths > width  # checked and parsed by pyarrow alone
    matrix = _byte_matrix(text, starts, np.minimum(lengths, width), width)  # one row per character position
    position = np.arange(width, dtype=np.int16)[:, None]
    digits = np.subtract(matrix, 0x30, dtype=np.uint8)
    is_digit = digits < 10
    dot = matrix == 0x2E
    exp = (matrix | 0x20) == 0x65
    sign = (matrix == 0x2B) | (matrix == 0x2D)
    if ((matrix != 0) & ~(is_digit | dot | exp | sign)).any():  # 0 is the padding: fields hold no NUL
        raise NotPlain
    n_dots = dot.sum(axis=0, dtype=np.int16)
    lead = sign[0].astype(np.int16)
    if exp.any():
        n_exps = exp.sum(axis=0, dtype=np.int16)
        if n_exps.max() > 1:
            raise NotPlain
        has_exp = n_exps > 0
        at_e = np.where(has_exp, (exp * position).sum(axis=0, dtype=np.int64), lengths)
        after_e = position == at_e + 1
        exp_sign = has_exp & (sign & after_e).any(axis=0)
        exp_negative = exp_sign & ((matrix == 0x2D) & after_e).any(axis=0)
        in_exponent = is_digit & (position > at_e)
        exp_digits = np.where(has_exp, in_exponent.sum(axis=0), 1)
    else:
        has_exp, at_e, exp_sign = np.zeros(n, dtype=bool), lengths, np.zeros(n, dtype=bool)
        exp_digits = np.ones(n, dtype=np.int64)
    has_dot = n_dots > 0
    at_dot = np.where(has_dot, (dot * position).sum(axis=0, dtype=np.int64), at_e)
    mantissa_digits = at_e - lead - has_dot
    if (
        ~long
        & (
            (n_dots > 1)
            | (sign.sum(axis=0, dtype=np.int16) != lead + exp_sign)
            | (at_dot > at_e)
            | (mantissa_digits < 1)
            | (exp_digits < 1)
        )
    ).any():
        raise NotPlain  # two dots, a sign elsewhere, a dot in the exponent, no digit before or after the e
    in_mantissa = is_digit & (position < at_e) if has_exp.any() else is_digit
    # Horner's rule over the digit positions; rows of more than 19 digits wrap around: not fast (below)
    scale = in_mantissa * np.uint8(9) + np.uint8(1)
    add = digits * in_mantissa
    mantissa = np.zeros(n, dtype=np.uint64)
    for j in range(width):
        mantissa *= scale[j]
        mantissa += add[j]
    power = np.where(has_dot, at_dot + 1 - at_e, 0)
    if has_exp.any():
        exponent = np.zeros(n, dtype=np.int64)
        for j in range(width):
            use = in_exponent[j] & (exponent < 10_000)  # beyond, only a zero mantissa is fast
            exponent += exponent * np.where(use, 9, 0) + np.where(use, digits[j], 0)
        power += np.where(exp_negative, -exponent, exponent)
    zero = ~(add > 0).any(axis=0)  # every digit of the mantissa is 0, however many
    # Clinger's fast path: at most 19 digits (no wrap-around), an exact double, an exact power of ten
    fast = ~long & (zero | (mantissa_digits <= 19) & (mantissa <= _EXACT) & (np.abs(power) <= 22))
    values = mantissa.astype(np.float64)
    tens = _POWERS[np.minimum(np.abs(power), 22)]
    values = np.where(power >= 0, values * tens, values / tens)
    values[zero] = 0.0
    values[matrix[0] == 0x2D] *= -1.0
    slow = np.flatnonzero(~fast)
    if len(slow):
        values[slow] = _parse_floats(text, starts[slow], lengths[slow])
    if not np.isfinite(values).all():  # 1e999: the line reader names it
        raise NotPlain
    return values


def _parse_floats(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Fields of the float grammar parsed by pyarrow (a subset of what ``float()`` reads, with the same,
    correctly rounded, values); NotPlain if it refuses one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets = np.concatenate(([0], np.cumsum(lengths)))
    if offsets[-1] >= 1 << 31:
        raise NotPlain
    chars = text[np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])]
    strings_ = pa.Array.from_buffers(
        pa.string(), len(lengths), [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(chars)]
    )
    try:
        parsed = pc.cast(strings_, pa.float64())
    except pa.ArrowException:
        raise NotPlain from None
    if parsed.null_count:
        raise NotPlain
    # the values buffer as is: to_numpy() would import pandas when it is installed (and swallow a Ctrl-C
    # that lands during that import)
    values = parsed.buffers()[1]
    return np.frombuffer(values, dtype=np.float64, count=len(parsed), offset=parsed.offset * 8).copy()


def _byte_matrix(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """The fields ``text[starts[i]:starts[i] + lengths[i]]`` as the columns of a uint8 matrix of ``width``
    rows (one per character position) padded with zeros, gathered at once (no pass per field)."""
    matrix = text.take(starts + np.arange(width)[:, None], mode="clip")
    matrix *= np.arange(width)[:, None] < lengths
    return matrix


def strings(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """One str array of the rows of byte matrices (ASCII, zero-padded), in order: each character
    widened to numpy's 4-byte code points, with no Python object per string."""
    width = max((b.shape[1] for b in blocks), default=1)
    chars = np.zeros((sum(len(b) for b in blocks), width), dtype=np.uint32)
    row = 0
    for block in blocks:
        chars[row : row + len(block), : block.shape[1]] = block
        row += len(block)
    return chars.view(f"<U{width}").reshape(len(chars))
