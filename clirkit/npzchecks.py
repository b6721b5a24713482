"""The checks of what a clirkit file holds, before it is used: its header values (:func:`require_field`,
:func:`require_analyzer`) and arrays (:func:`require_array`, :func:`require_csr`, :func:`check_csr_rows`), each
raising :class:`Corrupt` with the problem, which :func:`checking` turns into one line naming the file
(``FILE: corrupt index: doc_lengths has NaN at 17``). Vectorized: no Python loop per element."""

from __future__ import annotations

import builtins
import math
import os
from contextlib import contextmanager
from typing import Any, Iterator, Literal, Mapping, Sequence, overload

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.npzio import remake, show

_min, _max = builtins.min, builtins.max  # the checks below name their bounds min and max

# checking what a file holds before it is used
#
# A loader reads the file with load_npz, then checks every header value and array it uses inside
# ``with checking(path, "index"):``. The checks raise Corrupt("problem"); checking turns it into one
# line, ``FILE: corrupt index: problem``. Array checks are vectorized (no Python loop per element).


class Corrupt(ClirkitError):
    """A problem found by the checks below; :func:`checking` adds the file and what it should hold."""


class Newer(Corrupt):
    """A file a newer clirkit wrote (a setting of a version this one does not know): not corrupt, but not
    readable here; :func:`checking` says so, with the remedy."""


@contextmanager
def checking(path: str | os.PathLike[str], what: str, *, remedy: bool = False) -> Iterator[None]:
    """Turn the :class:`Corrupt` problems raised inside into ``ClirkitError("PATH: corrupt WHAT: problem")``,
    with ``remedy`` followed by what to do (``; rebuild the index with `clirkit index```, :func:`remake`)."""
    try:
        yield
    except Newer as exc:
        raise ClirkitError(f"{path}: {exc}: use the clirkit that wrote it, or {remake(what)} with this one") from None
    except Corrupt as exc:
        fix = f"; {remake(what)}" if remedy else ""
        raise ClirkitError(f"{path}: corrupt {what}: {exc}{fix}") from None


_JSON_KINDS = {
    "int": "an integer",
    "number": "a finite number",
    "str": "a string",
    "bool": "true or false",
    "object": "an object",
    "list": "a list",
}
_PLURAL = {
    "int": "integers",
    "number": "finite numbers",
    "str": "strings",
    "bool": "booleans",
    "object": "objects",
    "list": "lists",
}


def _is_json_kind(value: object, kind: str) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        try:
            return math.isfinite(float(value))
        except OverflowError:  # an integer of hundreds of digits
            return False
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "list":
        return isinstance(value, list)
    raise ValueError(f"unknown header value kind {kind!r}")


def _one_of(items: Sequence[object]) -> str:
    shown = [show(x) for x in items]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _num(x: float) -> str:
    return str(x) if isinstance(x, (int, np.integer)) else f"{x:g}"


def _under(lo: float, lead: str) -> str:
    """What a value under the bound ``lo`` is: ``below the minimum 1``; ``lead`` + ``not > 0`` when ``lo`` is the
    smallest positive float (the bound of a count that is a positive fraction)."""
    return f"{lead}not > 0" if lo == np.finfo(np.float64).tiny else f"below the minimum {_num(lo)}"


def _bounds(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f" in {_num(lo)}..{_num(hi)}"
    if lo is not None:
        return f" >= {_num(lo)}"
    if hi is not None:
        return f" <= {_num(hi)}"
    return ""


_MISSING = object()


def require_field(
    header: Mapping,
    name: str | tuple[str | int, ...],
    kind: str,
    *,
    choices: Sequence | None = None,
    min: float | None = None,
    max: float | None = None,
    items: str | None = None,
    length: int | None = None,
    nullable: bool = False,
    default: object = _MISSING,
) -> Any:  # of the JSON type ``kind`` says (checked here)
    """The header value ``name`` (a key, or a path of keys and list positions into nested values), checked.

    ``kind`` is its JSON type: ``int``, ``number`` (finite; an int or a float, never a bool),
    ``str``, ``bool``, ``object`` or ``list`` (of ``items``, each of that kind, ``length`` long).
    ``choices``, ``min`` and ``max`` bound it (for a list: each item); ``nullable`` allows null;
    without ``default`` the value is required. Raises :class:`Corrupt`:
    ``header ngram must be 1, 2 or 3, got -5``.
    """
    path = (name,) if isinstance(name, str) else tuple(name)
    label = "header " + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path)[1:]
    value: object = header
    for key in path:
        if isinstance(key, int) and isinstance(value, list) and 0 <= key < len(value):
            value = value[key]
        elif isinstance(key, str) and isinstance(value, Mapping) and key in value:
            value = value[key]
        elif default is not _MISSING:
            return default
        else:
            raise Corrupt(f"{label} is missing")
    if value is None and nullable:
        return None
    if choices is not None:
        expected = _one_of(choices)
    else:
        expected = _JSON_KINDS[kind]
        if kind == "list" and items is not None:
            expected += f" of {length} " if length is not None else " of "
            expected += _PLURAL[items] + _bounds(min, max)
        else:
            expected += _bounds(min, max)
    if nullable:
        expected += " or null"
    ok = _is_json_kind(value, kind)
    if ok and kind == "list":
        ok = (length is None or len(value) == length) and (
            items is None or all(_in_range(v, items, choices, min, max) for v in value)
        )
    elif ok:
        ok = _in_range(value, kind, choices, min, max)
    if not ok:
        raise Corrupt(f"{label} must be {expected}, got {show(value)}")
    return value


def _in_range(value: object, kind: str, choices: Sequence | None, lo: float | None, hi: float | None) -> bool:
    if not _is_json_kind(value, kind):
        return False
    if choices is not None:
        return any(value == c and type(value) is type(c) for c in choices)
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def require_analyzer(header: Mapping, name: str, *, label: str | None = None):
    """The analyzer whose settings are the header value ``name`` (:meth:`Analyzer.from_dict`), checked;
    messages call it ``label`` (default ``header NAME``)."""
    from clirkit.analysis import Analyzer
    from clirkit.unicodefold import NORMALIZATION_VERSIONS

    label = label or f"header {name}"
    if name not in header:
        raise Corrupt(f"{label} is missing")
    version = header[name].get("normalization_version") if isinstance(header[name], dict) else None
    if type(version) is int and version > NORMALIZATION_VERSIONS[-1]:
        raise Newer(
            f"{label}: normalization version {version} is newer than this clirkit's (it reads versions "
            f"{NORMALIZATION_VERSIONS[0]}-{NORMALIZATION_VERSIONS[-1]})"
        )
    try:
        return Analyzer.from_dict(header[name], where=label)
    except ClirkitError as exc:
        raise Corrupt(str(exc)) from None


_ARRAY_KINDS = {
    "str": ("U", "strings"),
    "int": ("iu", "integers"),
    "float": ("f", "floats"),
    "number": ("fiu", "numbers"),
}


def _at(arr: np.ndarray, flat: int) -> str:
    """Where the ``flat``-th element of ``arr`` is, as a message says it."""
    if arr.ndim <= 1:
        return f"at {flat}"
    return "at (" + ", ".join(str(int(i)) for i in np.unravel_index(flat, arr.shape)) + ")"


def _value(x: object) -> str:
    return repr(x.item() if hasattr(x, "item") else x)


@overload
def require_array(
    arrays: Mapping[str, np.ndarray],
    name: str,
    kind: str,
    ndim: int = 1,
    *,
    shape: tuple[int | None, ...] | None = None,
    finite: bool = True,
    min: float | None = None,
    max: float | None = None,
    sorted: bool = False,
    unique: bool = False,
    dtype: np.dtype | type | str | None = None,
    optional: Literal[False] = False,
    label: str | None = None,
) -> np.ndarray: ...


@overload
def require_array(
    arrays: Mapping[str, np.ndarray],
    name: str,
    kind: str,
    ndim: int = 1,
    *,
    shape: tuple[int | None, ...] | None = None,
    finite: bool = True,
    min: float | None = None,
    max: float | None = None,
    sorted: bool = False,
    unique: bool = False,
    dtype: np.dtype | type | str | None = None,
    optional: bool,
    label: str | None = None,
) -> np.ndarray | None: ...


def require_array(
    arrays: Mapping[str, np.ndarray],
    name: str,
    kind: str,
    ndim: int = 1,
    *,
    shape: tuple[int | None, ...] | None = None,
    finite: bool = True,
    min: float | None = None,
    max: float | None = None,
    sorted: bool = False,
    unique: bool = False,
    dtype: np.dtype | type | str | None = None,
    optional: bool = False,
    label: str | None = None,
) -> np.ndarray | None:
    """The array ``name`` of a loaded file, checked before use (in native byte order, cast to ``dtype``).

    ``kind``: ``str`` (unicode), ``int`` (signed or unsigned), ``float`` or ``number`` (any of
    those). ``shape`` may hold None for any length. Numbers must be ``finite`` (floats), within
    ``min``/``max``; a 1-d array may have to be ``sorted`` (non-decreasing; with ``unique``:
    strictly increasing) or just ``unique``. Raises :class:`Corrupt` naming the array and the
    first offending position: ``doc_lengths has NaN at 17`` (``label`` instead of the name if given).
    A missing ``optional`` array is None.
    """
    if name not in arrays:
        if optional:
            return None
        raise Corrupt(f"{label or name} is missing")
    arr = arrays[name]
    name = label or name
    kinds, plural = _ARRAY_KINDS[kind]
    if arr.dtype.kind not in kinds:
        raise Corrupt(f"{name} must hold {plural}, got {arr.dtype}")
    if arr.ndim != ndim:
        raise Corrupt(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if shape is not None and any(want is not None and got != want for got, want in zip(arr.shape, shape)):
        expected = "(" + ", ".join("any" if s is None else str(s) for s in shape) + (",)" if ndim == 1 else ")")
        raise Corrupt(f"{name} must have shape {expected}, got {arr.shape}")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.size and arr.dtype.kind == "U":  # UTF-32 code units: a lone surrogate cannot be written as UTF-8
        codes = np.ascontiguousarray(arr).view(np.uint32).reshape(arr.size, -1)
        bad = ((codes >= 0xD800) & (codes <= 0xDFFF)).any(axis=1)
        if bad.any():
            raise Corrupt(
                f"{name} holds a string that is not valid Unicode (a lone surrogate) {_at(arr, int(np.argmax(bad)))}"
            )
    if arr.size and arr.dtype.kind == "f" and finite:
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.argmax(bad.ravel()))
            what = "NaN" if np.isnan(arr.flat[i]) else "an infinite value"
            raise Corrupt(f"{name} has {what} {_at(arr, i)}")
    if dtype is not None and np.dtype(dtype).kind in "iu" and arr.dtype.kind in "iu":
        info = np.iinfo(dtype)  # the cast below must not wrap around
        min = info.min if min is None else _max(min, info.min)
        max = info.max if max is None else _min(max, info.max)
    if arr.size and min is not None:
        low = arr < min
        if low.any():
            i = int(np.argmax(low.ravel()))
            raise Corrupt(f"{name} has {_value(arr.flat[i])} {_at(arr, i)}, {_under(min, 'which is ')}")
    if arr.size and max is not None:
        high = arr > max
        if high.any():
            i = int(np.argmax(high.ravel()))
            raise Corrupt(f"{name} has {_value(arr.flat[i])} {_at(arr, i)}, above the maximum {_num(max)}")
    if sorted and len(arr) > 1:
        out = arr[1:] <= arr[:-1] if unique else arr[1:] < arr[:-1]
        if out.any():
            i = int(np.argmax(out)) + 1
            order = "strictly increasing" if unique else "in increasing order"
            raise Corrupt(f"{name} is not {order} at {i} ({_value(arr[i - 1])} then {_value(arr[i])})")
    elif unique and len(arr) > 1:
        s = np.sort(arr, kind="stable")
        same = s[1:] == s[:-1]
        if same.any():
            raise Corrupt(f"{name} holds {_value(s[int(np.argmax(same))])} more than once")
    return arr if dtype is None else arr.astype(dtype, copy=False)


def require_csr(
    arrays: Mapping[str, np.ndarray],
    names: tuple[str, str, str],
    shape: tuple[int, int],
    kind: str,
    *,
    min: float | None = None,
    max: float | None = None,
    dtype: np.dtype | type | str | None = None,
    entries: bool = True,
):
    """The CSR matrix of ``shape`` stored as the arrays ``names = (data, indices, indptr)``, checked.

    ``data`` holds ``kind`` values (finite, within ``min``/``max``, cast to ``dtype``); ``indptr``
    starts at 0, never decreases and ends at the number of entries; each row's ``indices`` are
    column numbers in increasing order without repeats (scipy's canonical format, which the
    loaders rely on). Raises :class:`Corrupt`.

    Without ``entries``, ``data`` and ``indices`` (which must be stored as ``dtype`` and int32) are only
    checked for their type and length, not read: :func:`check_csr_rows` checks the rows a reader uses.
    """
    import scipy.sparse as sp

    data_name, indices_name, indptr_name = names
    n_rows, n_cols = shape
    indptr = require_array(arrays, indptr_name, "int", shape=(n_rows + 1,), min=0, sorted=True)
    nnz = int(indptr[-1])
    if indptr[0] != 0:
        raise Corrupt(f"{indptr_name} must start at 0, got {_value(indptr[0])}")
    if entries or not (stored_as(arrays, data_name, dtype) and stored_as(arrays, indices_name, np.int32)):
        data = require_array(arrays, data_name, kind, min=min, max=max, dtype=dtype)
        indices = require_array(arrays, indices_name, "int", min=0, max=n_cols - 1)
        entries = True
    else:
        data, indices = arrays[data_name], arrays[indices_name]
    if len(data) != nnz or len(indices) != nnz:
        raise Corrupt(
            f"{indptr_name} ends at {nnz} but {data_name} holds {len(data)} and {indices_name} {len(indices)} entries"
        )
    unsorted = _first_unsorted(indices, indptr) if entries else None
    if unsorted is not None:
        row, k = unsorted
        raise Corrupt(f"{indices_name} of row {row} are not strictly increasing (at {k})")
    matrix = sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_cols))
    matrix.has_sorted_indices = True
    matrix.has_canonical_format = True
    return matrix


def stored_as(arrays: Mapping[str, np.ndarray], name: str, dtype) -> bool:
    """Whether the 1-d array ``name`` is stored in ``dtype`` (native byte order): usable without a copy."""
    arr = arrays.get(name)
    return arr is not None and arr.ndim == 1 and dtype is not None and arr.dtype == np.dtype(dtype)


def _first_unsorted(indices: np.ndarray, indptr: np.ndarray) -> tuple[int, int] | None:
    """``(row, position)`` of the first entry whose column does not rise above the one before it in its row
    (rows delimited by ``indptr``), or None when every row's ``indices`` strictly increase."""
    nnz = len(indices)
    if nnz < 2:
        return None
    rising = indices[1:] > indices[:-1]
    starts = indptr[1:-1]
    rising[starts[(starts > 0) & (starts < nnz)] - 1] = True  # a row may start lower than the last ended
    if rising.all():
        return None
    k = int(np.argmin(rising)) + 1
    return int(np.searchsorted(indptr, k, side="right")) - 1, k


def check_csr_rows(matrix, rows: np.ndarray, names: tuple[str, str], *, min: float | None = None) -> None:
    """Check the entries of the CSR ``matrix``'s ``rows`` (ascending int array) as :func:`require_csr` would:
    each row's column numbers in range and strictly increasing, its values >= ``min``. Raises
    :class:`Corrupt` naming the arrays ``names = (data, indices)`` and the row."""
    data_name, indices_name = names
    rows = np.asarray(rows, dtype=np.int64)
    lo, hi = matrix.indptr[rows].astype(np.int64), matrix.indptr[rows + 1].astype(np.int64)
    counts = hi - lo
    offsets = np.concatenate(([0], np.cumsum(counts)))  # the rows' entries, gathered one after another
    at = np.repeat(lo - offsets[:-1], counts) + np.arange(int(offsets[-1]))
    indices, data = matrix.indices[at], matrix.data[at]  # read from a memory map

    def row_of(i: int) -> int:
        return int(rows[np.searchsorted(offsets, i, side="right") - 1])

    bad = (indices < 0) | (indices >= matrix.shape[1])
    if bad.any():
        raise Corrupt(
            f"{indices_name} of row {row_of(int(np.argmax(bad)))} has a column outside [0, {matrix.shape[1] - 1}]"
        )
    if min is not None and len(data) and data.min() < min:
        raise Corrupt(f"{data_name} of row {row_of(int(np.argmax(data < min)))} has a value {_under(min, 'that is ')}")
    unsorted = _first_unsorted(indices, offsets)
    if unsorted is not None:
        raise Corrupt(f"{indices_name} of row {int(rows[unsorted[0]])} are not strictly increasing")
