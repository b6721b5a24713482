"""Whitespace-separated column files (TREC runs and qrels) read at C speed with pyarrow's CSV reader.

The fast path reads the layout nearly every such file has: one space (or one tab) between the
columns, the same number of columns on every line, tokens of printable ASCII. pyarrow splits the
lines and parses the numbers (its float parser rounds correctly, as Python's ``float`` does, so
``repr``-written scores read back bit for bit), numpy turns the id columns into string arrays
block by block, so a file is never held whole as Python objects. Memory: the arrays kept plus one
block (1 MiB of text) and its parse.

Anything else (several spaces between columns, other whitespace, non-ASCII ids, a number the
grammar below does not accept, a corrupt gzip stream, stdin) raises :class:`NotPlain`, and the
caller parses the file line by line instead: that parser accepts exactly the same files (with the
same result) and reports the first bad line as ``FILE:LINE: problem``. So the fast path decides
nothing on its own: it is an optimisation of the line parser, never a second reading of the format.
"""
from __future__ import annotations

import os
from typing import Iterator, Sequence

import numpy as np

ID = "id"  # a string column (at most ``max_id`` characters), returned as a byte matrix (see :func:`strings`)
TOKEN = "token"  # a column that is checked and dropped (TREC's Q0 and iter columns): None
HEAD = "head"  # a string column of which only the first value is returned (a run's tag)
INTEGER = "integer"  # an integer of any length (a run's rank), checked and dropped: None
GRADE = "grade"  # an integer of at most 9 digits (a relevance grade), returned as int64
FLOAT = "float"  # a finite number in Python's float syntax, returned as float64
KINDS = (ID, TOKEN, HEAD, INTEGER, GRADE, FLOAT)

BLOCK_BYTES = 1 << 20  # pyarrow's parse of a block takes some 30 times its size


class NotPlain(Exception):
    """The file is not in the plain layout: parse it line by line."""


def iter_column_batches(path: str | os.PathLike[str], layouts: Sequence[Sequence[str]], *, max_id: int,
                        block_bytes: int = BLOCK_BYTES) -> Iterator[list[np.ndarray | None]]:
    """Yield, block by block of lines, one value per column of the file at ``path``.

    Args:
        path: a text file, or a gzip-compressed one (recognised by its magic bytes); not ``-``.
        layouts: the allowed layouts, each the kind of every column (see the constants above);
            the first line's number of columns picks one, and every line must have as many.
        max_id: the longest id allowed, in characters.
        block_bytes: the size of the blocks pyarrow reads and parses (bytes of text).

    Yields:
        per block, a list with one entry per column: a uint8 matrix (``id``: one row per line,
        the id's ASCII bytes padded with zeros; :func:`strings` turns blocks of them into a str
        array), a one-element str array (``head``, in the first block; empty later), an int64
        array (``grade``), a float64 array (``float``) or None (``token``, ``integer``). Blank lines are skipped; line ends
        may be LF, CRLF or CR, and a UTF-8 byte-order mark is skipped, as the line reader does.

    Raises:
        NotPlain: the file (or the block just read) is not in the plain layout, or cannot be
            read: the caller must parse it line by line. Blocks already yielded are then moot.
    """
    import pyarrow as pa

    if str(path) == "-" or not os.path.isfile(path):
        raise NotPlain
    try:
        with open(path, "rb") as fh:
            gzipped = fh.read(2) == b"\x1f\x8b"
        with _open(path, gzipped) as stream:
            blocks = _line_blocks(stream, block_bytes)
            block = next(blocks, b"").removeprefix(_BOM)
            layout = _Layout(block, layouts, max_id)
            while block:
                yield layout.columns(block)
                block = next(blocks, b"")
    except (pa.ArrowException, OSError, EOFError, ValueError):
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
        import pyarrow as pa
        import pyarrow.csv as pacsv

        first_line = block.lstrip(b"\r\n").split(b"\n", 1)[0].split(b"\r", 1)[0]
        self.delimiter = b"\t" if b"\t" in first_line and b" " not in first_line else b" "
        kinds = next((k for k in layouts if len(k) == first_line.count(self.delimiter) + 1), None)
        if kinds is None:
            raise NotPlain
        self.kinds, self.max_id = kinds, max_id
        self.head = first_line.split(self.delimiter)
        self.allowed = _ALLOWED + self.delimiter
        names = [f"c{i}" for i in range(len(kinds))]
        # every column is read, the unused ones as bytes (as cheap), so that an empty field shows
        types = {n: pa.binary() if kind in (TOKEN, HEAD) else pa.string() for n, kind in zip(names, kinds)}
        self.options = dict(
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False, block_size=1 << 30),
            parse_options=pacsv.ParseOptions(delimiter=self.delimiter.decode(), quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False, check_utf8=False))

    def columns(self, block: bytes) -> list[np.ndarray | None]:
        """One entry per column of the lines of ``block`` (see :func:`iter_column_batches`)."""
        import pyarrow as pa
        import pyarrow.csv as pacsv

        # Only printable ASCII, the delimiter and line ends, and (checked per column) no empty field: then
        # pyarrow's fields are exactly the whitespace-split tokens of each line, which the line reader sees.
        if block.translate(None, self.allowed):  # what is left are the bytes not allowed
            raise NotPlain
        if not block.strip():
            return [_empty(kind) for kind in self.kinds]
        table = pacsv.read_csv(pa.py_buffer(block), **self.options)
        out = [_column(column.combine_chunks(), kind, self.max_id) if kind not in (TOKEN, HEAD) else
               _nonempty(column.combine_chunks()) or (_head(self.head[i], self.max_id) if kind == HEAD else None)
               for i, (kind, column) in enumerate(zip(self.kinds, table.columns))]
        self.head = [b""] * len(self.kinds)
        return out


def _empty(kind: str) -> np.ndarray | None:
    """A column of no lines."""
    return {ID: np.zeros((0, 1), dtype=np.uint8), HEAD: np.zeros(0, dtype="<U1"), GRADE: np.zeros(0, dtype=np.int64),
            FLOAT: np.zeros(0)}.get(kind)


def _open(path: str | os.PathLike[str], gzipped: bool):
    """An Arrow input stream of the file's text (decompressed in C when ``gzipped``)."""
    import pyarrow as pa

    raw = pa.OSFile(str(path))
    return pa.CompressedInputStream(raw, "gzip") if gzipped else raw


def _nonempty(arr) -> None:
    """NotPlain if a field of the column (an Arrow string or binary array) is empty."""
    if arr.null_count or (len(arr) and np.diff(_buffers(arr)[0]).min() < 1):
        raise NotPlain


def _head(value: bytes, max_id: int) -> np.ndarray:
    """A ``head`` column's value: the first line's, as a one-element str array; empty after the first block."""
    if len(value) > max_id:
        raise NotPlain
    return np.array([value.decode("ascii")]) if value else np.zeros(0, dtype="<U1")


def _column(arr, kind: str, max_id: int) -> np.ndarray | None:
    """Convert one column of a block (an Arrow string array of printable ASCII) as its ``kind`` says."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.null_count:
        raise NotPlain
    offsets, data = _buffers(arr)
    lengths = np.diff(offsets)
    if len(arr) and lengths.min() < 1:
        raise NotPlain
    if kind == ID:
        if len(arr) and lengths.max() > max_id:
            raise NotPlain
        return _byte_matrix(offsets, data, lengths)
    if kind == FLOAT:  # pyarrow reads a subset of what float() reads (checked), correctly rounded
        values = _numbers(pc.cast(arr, pa.float64()), np.float64)
        if not np.isfinite(values).all():  # nan, inf, 1e999: the line reader names them
            raise NotPlain
        return values
    signed = _check_integers(offsets, data, lengths)
    if kind == INTEGER:
        return None
    if len(arr) and (lengths - signed).max() > 9:
        raise NotPlain
    return _numbers(pc.cast(arr, pa.int64()), np.int64)


def _check_integers(offsets: np.ndarray, data: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """NotPlain unless every string is an optional sign and at least one digit; the strings' 0/1
    sign lengths (int64). Python's int() reads exactly these (and more, which the line reader names)."""
    text = data[offsets[0]:offsets[-1]]
    other = np.flatnonzero(np.subtract(text, 0x30, dtype=np.uint8) >= 10) + offsets[0]
    signed = np.zeros(len(lengths), dtype=np.int64)
    if len(other):
        row = np.searchsorted(offsets, other, side="right") - 1
        if not (np.isin(data[other], (0x2B, 0x2D)) & (offsets[row] == other) & (lengths[row] > 1)).all():
            raise NotPlain
        signed[row] = 1
    return signed


def _buffers(arr) -> tuple[np.ndarray, np.ndarray]:
    """The int64 offsets (len + 1) and the bytes of an Arrow string array, as numpy views."""
    _, off, data = arr.buffers()
    offsets = np.frombuffer(off, dtype=np.int32, count=len(arr) + 1, offset=arr.offset * 4).astype(np.int64)
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, dtype=np.uint8)
    return offsets, data


def _numbers(arr, dtype) -> np.ndarray:
    """The values of an Arrow number array without nulls, as a numpy array (a copy)."""
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * np.dtype(dtype).itemsize).copy()


def _byte_matrix(offsets: np.ndarray, data: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The strings ``data[offsets[i]:offsets[i+1]]`` as the rows of a uint8 matrix padded with zeros,
    built one character position at a time (a pass per position of the longest string, none per string)."""
    n = len(lengths)
    width = int(lengths.max()) if n else 1
    padded = np.concatenate((data, np.zeros(width, dtype=np.uint8)))
    matrix = np.empty((n, width), dtype=np.uint8)
    starts = offsets[:-1]
    for j in range(width):
        np.multiply(padded[starts + j], lengths > j, out=matrix[:, j], casting="unsafe")
    return matrix


def strings(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """One str array of the rows of byte matrices (ASCII, zero-padded), in order: each character
    widened to numpy's 4-byte code points, with no Python object per string."""
    width = max((b.shape[1] for b in blocks), default=1)
    chars = np.zeros((sum(len(b) for b in blocks), width), dtype=np.uint32)
    row = 0
    for block in blocks:
        chars[row:row + len(block), :block.shape[1]] = block
        row += len(block)
    return chars.view(f"<U{width}").reshape(len(chars))
