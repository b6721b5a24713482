"""Floats as the text Python's ``repr`` gives them, for many at once: the scores column of a run file.

Python's ``repr(float)`` is the shortest decimal string that reads back to the same float64, in fixed notation
from 1e-4 up to 1e16 and with ``.0`` after a whole number. pyarrow's float-to-string cast makes the same
shortest digits in C++, without the GIL and about five times faster than ``repr`` of a list, and writes them in
the same notation for the values that are not whole numbers from 1e-4 up to 1e10 (``ARROW_LOW``,
``ARROW_HIGH``): those are cast by pyarrow, the others (whole numbers, tiny and huge magnitudes) by ``repr``.
A pyarrow that writes any of :data:`PROBES` otherwise than ``repr`` casts none (:func:`arrow_agrees`).
"""

from __future__ import annotations

import functools

import numpy as np

ARROW_LOW, ARROW_HIGH = 1e-4, 1e10  # |value| in [low, high), not a whole number: pyarrow writes it as repr does

# values at the range's edges and of every length of digits, each written by pyarrow as by repr (checked once)
PROBES = (
    1e-4,
    0.00010000000000000002,
    0.00012345,
    0.0009765625,
    0.1,
    0.5,
    1.5,
    2.675,
    1 / 3,
    12.25,
    123.456,
    -7.25,
    -0.00031,
    2 / 3 * 1e9,
    9999999999.5,
    9999999999.999998,
    123456789.12345679,
)


def repr_matrix(values: np.ndarray) -> np.ndarray:
    """The ``repr`` of each float64 of ``values`` (finite, at least one) as a (value, byte) uint8 matrix of ASCII
    codes, each row padded with zeros on the right to the longest. A value equal to the one before it (a tie:
    a third of a BM25 run's rows) is written once and its row repeated."""
    bits = values.view(np.int64)  # (-0.0 is not 0.0)
    new_value = np.concatenate(([True], bits[1:] != bits[:-1]))
    starts, lengths, chars = repr_parts(values[new_value])
    columns = np.arange(int(lengths.max()))
    at = np.minimum(starts[:, None] + columns, len(chars) - 1)
    matrix = np.where(columns < lengths[:, None], chars[at], np.uint8(0))
    return matrix[np.cumsum(new_value) - 1]


def repr_parts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, lengths, chars)``: the ``repr`` of value i is ``chars[starts[i] : starts[i] + lengths[i]]``
    (ASCII codes, uint8), for float64 ``values`` (finite, at least one)."""
    magnitude = np.abs(values)
    by_arrow = (magnitude >= ARROW_LOW) & (magnitude < ARROW_HIGH) & (values != np.floor(values))
    if not by_arrow.any() or not arrow_agrees():
        return _by_repr(values)
    starts = np.empty(len(values), dtype=np.int64)
    lengths = np.empty(len(values), dtype=np.int64)
    offsets, arrow_chars = _by_arrow(values[by_arrow])
    starts[by_arrow], lengths[by_arrow] = offsets[:-1], np.diff(offsets)
    if by_arrow.all():
        return starts, lengths, arrow_chars
    rest_starts, rest_lengths, rest_chars = _by_repr(values[~by_arrow])
    starts[~by_arrow], lengths[~by_arrow] = rest_starts + len(arrow_chars), rest_lengths
    return starts, lengths, np.concatenate((arrow_chars, rest_chars))


@functools.cache
def arrow_agrees() -> bool:
    """Whether this pyarrow writes every one of :data:`PROBES` (and their negatives) as ``repr`` does."""
    probes = np.array(PROBES + tuple(-p for p in PROBES))
    offsets, chars = _by_arrow(probes)
    cast = [chars[a:b].tobytes().decode("ascii") for a, b in zip(offsets[:-1], offsets[1:])]
    return cast == [repr(p) for p in probes.tolist()]


def _by_arrow(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, chars)`` of pyarrow's string cast of float64 ``values`` (at least one): value i's text is
    ``chars[offsets[i] : offsets[i + 1]]``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = np.ascontiguousarray(values, dtype=np.float64)  # seen by pyarrow as it is (pa.array imports pandas)
    text = pc.cast(pa.Array.from_buffers(pa.float64(), len(values), [None, pa.py_buffer(values)]), pa.string())
    _, offsets, data = text.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int32, count=len(text) + 1, offset=4 * text.offset)
    return offsets.astype(np.int64), np.frombuffer(data, dtype=np.uint8)


def _by_repr(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`repr_parts` by Python's ``repr`` of the values' list (a C call, holding the GIL), cut at its
    commas (a float's ``repr`` holds none)."""
    chars = np.frombuffer(repr(values.tolist())[1:-1].encode("ascii"), dtype=np.uint8)
    commas = np.flatnonzero(chars == ord(","))
    starts = np.concatenate(([0], commas + 2))
    return starts, np.concatenate((commas, [len(chars)])) - starts, chars
