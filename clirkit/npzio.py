"""Saving and loading clirkit's files: one ``.npz`` holding numpy arrays plus a JSON header.

The header (stored as UTF-8 bytes under the key ``__header__``) names the kind
of file, its format version and the parameters that made it. Loading never
unpickles (``allow_pickle=False``), so opening a file cannot run code.

Each loader then checks every header value and array it uses before using it,
with the helpers below (:func:`require_field`, :func:`require_analyzer`,
:func:`require_array`, :func:`require_csr` inside :func:`checking`): a tampered
or damaged file is one line, ``FILE: corrupt index: doc_lengths has NaN at 17``,
never a traceback and never a silently wrong result.
"""
from __future__ import annotations

import builtins
import io
import json
import math
import os
import stat
import struct
import tokenize
import zipfile
import zlib
from contextlib import contextmanager
from typing import Iterator, Mapping, Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.fileio import atomic_writer

HEADER_KEY = "__header__"
_min, _max = builtins.min, builtins.max  # the checks below name their bounds min and max
# what to do about a damaged, edited or unsupported file of each kind: the loaders' messages end with it
REMAKE = {"index": "rebuild the index with `clirkit index`",
          "sharded-index": "rebuild the index with `clirkit index --shards N`",
          "translation-table": "make the table again (`clirkit ttable train`, or `ttable convert` of its source)",
          "boost-model": "train the model again with `clirkit boost-train`",
          "scs-model": "train the model again with `clirkit scs-train`"}
# the command that makes a file of each kind: said when the file is not there
MADE_BY = {"index": "an index is made by `clirkit index`",
           "sharded-index": "a sharded index is made by `clirkit index --shards N`",
           "translation-table": "a table is made by `clirkit ttable train` or `ttable convert`",
           "boost-model": "a boosted model is made by `clirkit boost-train`",
           "scs-model": "an SCS model is made by `clirkit scs-train`"}


_IN_A_FOLDER = {"index": "index.npz", "translation-table": "table.npz"}  # the names an experiment folder gives them


def check_file(path: str | os.PathLike[str], kind: str, what: str) -> None:
    """ClirkitError if ``path``, where ``what`` (a file of ``kind``) is expected, names nothing (said with the command
    that makes one) or a folder (an experiment folder: said with the file in it)."""
    if not os.path.exists(path):
        made = MADE_BY.get(kind)
        raise ClirkitError(f"{path}: no such file: check the path{f' ({made})' if made else ''}")
    if os.path.isdir(path):
        inside = os.path.join(path, _IN_A_FOLDER.get(kind, ""))
        hint = f" (an experiment folder? give {inside})" if kind in _IN_A_FOLDER and os.path.isfile(inside) else ""
        raise ClirkitError(f"{path}: is a directory, expected {what}: check the path{hint}")


def remake(kind: str) -> str:
    """What to do about a damaged or unsupported file of ``kind`` (``index``, ``translation table``, ...)."""
    return REMAKE.get(kind.lower().replace(" ", "-"), "write the file again with clirkit")


def encode_header(meta: Mapping) -> np.ndarray:
    """The header as stored: sorted JSON, UTF-8 bytes, as a uint8 array (under :data:`HEADER_KEY`)."""
    return np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)


def save_npz(path: str | os.PathLike[str], kind: str, version: int, header: Mapping,
             arrays: Mapping[str, np.ndarray], *, deflate: bool = False) -> None:
    """Write ``arrays`` and a JSON header ``{"kind", "format_version", **header}`` atomically.

    With ``deflate`` (tables and models, which are read whole, never memory-mapped), the members
    that are not floating-point numbers (vocabularies, indices, the header) are stored deflated
    (zlib level :data:`DEFLATE_LEVEL`): they shrink 2-20x, where probabilities and embeddings
    shrink 3-4% for most of the writing time. Without it every member is stored as ``np.savez``
    stores it (the same bytes), so that ``load_npz(mmap=True)`` can map them.
    """
    payload = {HEADER_KEY: encode_header({"kind": kind, "format_version": version, **header})}
    for name, arr in arrays.items():
        arr = np.asarray(arr)
        if arr.dtype == object:
            raise TypeError(f"array {name!r} has dtype object; store str arrays as fixed-width unicode")
        payload[name] = arr
    deflated = {name for name, arr in payload.items() if deflate and arr.dtype.kind not in "fc"}
    with atomic_writer(path, binary=True) as fh:
        if _regular_file(fh):
            _write_members(fh, payload, deflated)
        else:  # a device or FIFO written in place: zipfile must not seek or trust tell() (/dev/null says 0)
            buffer = io.BytesIO()
            _write_members(buffer, payload, deflated)
            fh.write(buffer.getvalue())


DEFLATE_LEVEL = 1  # a table's indices: 7.4 MB -> 3.2 MB in 0.08 s (level 6: 2.8 MB in 0.35 s)


def _write_members(fh, payload: Mapping[str, np.ndarray], deflated: set[str]) -> None:
    """Write ``payload`` as an npz into ``fh``: member ``NAME.npy`` for each array, deflated if its name is in
    ``deflated``, else stored; dated 1980 (zipfile's default), so the same arrays give the same bytes, and
    with nothing deflated the bytes ``np.savez`` writes."""
    with zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED,
                         compresslevel=DEFLATE_LEVEL if deflated else None, allowZip64=True) as zf:
        for name, arr in payload.items():
            member: str | zipfile.ZipInfo = f"{name}.npy"
            if deflated and name not in deflated:
                member = zipfile.ZipInfo(member)  # stored (ZipInfo's default), in a file that deflates the others
            with zf.open(member, "w", force_zip64=True) as out:
                np.lib.format.write_array(out, arr, allow_pickle=False)


def _regular_file(fh) -> bool:
    """Whether ``fh`` writes to a regular file (not a device, a FIFO, a pipe or a socket)."""
    try:
        return stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


def load_npz(path: str | os.PathLike[str], kind: str, versions: tuple[int, ...],
             required: tuple[str, ...], *, mmap: bool = False) -> tuple[dict, dict[str, np.ndarray]]:
    """Read a file written by :func:`save_npz`, checking its kind, version and arrays.

    Returns ``(header, arrays)``. With ``mmap``, the arrays stored uncompressed (as :func:`save_npz`
    stores them) are read-only memory maps of the file: opening reads only the headers, and the
    pages are read when used (and can be dropped again by the system). Raises ``ClirkitError``
    naming the file when it is missing, not an npz, of another kind or version, or lacks an array.
    """
    what = f"a clirkit {kind} file"
    check_file(path, kind, what)
    try:
        with open(path, "rb") as fh:  # np.load reads any other bytes as a pickle (and advises loading it unsafely)
            magic = fh.read(4)
        if magic not in (b"PK\x03\x04", b"PK\x05\x06"):
            raise ClirkitError(f"{path}: not {what} or corrupt (not a zip archive, as every .npz file is): check "
                               f"the path, or {remake(kind)}")
        with np.load(path, allow_pickle=False) as npz:
            if HEADER_KEY not in npz.files:
                raise ClirkitError(f"{path}: not {what} (no clirkit header): check the path")
            meta = _header_of(path, kind, npz[HEADER_KEY].tobytes())
            if not isinstance(meta, dict):
                raise ClirkitError(f"{path}: not {what} (its header is JSON but not an object): check the path, "
                                   f"or {remake(kind)}")
            if meta.get("kind") != kind:
                raise ClirkitError(f"{path}: not {what} (it holds a {repr(meta.get('kind'))[:60]}): check the path")
            version = meta.get("format_version")
            if not any(version == v and type(version) is type(v) for v in versions):
                raise ClirkitError(f"{path}: {kind} format version {show(version)} is not supported by this "
                                   f"clirkit (supported: {', '.join(map(str, versions))}): {remake(kind)} of "
                                   f"this version, or use the clirkit that wrote it")
            missing = [name for name in required if name not in npz.files]
            if missing:
                raise ClirkitError(f"{path}: corrupt {kind} file: missing {', '.join(missing)}; {remake(kind)}")
            names = [name for name in npz.files if name != HEADER_KEY]
            mapped = _mapped_members(path, names) if mmap else {}
            arrays = {name: mapped[name] if name in mapped else npz[name] for name in names}
    except ClirkitError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError, EOFError,
            RuntimeError, MemoryError, zlib.error, struct.error, NotImplementedError, OverflowError, TypeError,
            SyntaxError, tokenize.TokenError) as exc:
        # deep JSON, encrypted members or unknown compression methods, damaged deflate streams, huge shapes,
        # array headers numpy cannot parse (it tries them as Python literals, then tokenizes them)
        problem = " ".join(str(exc).split())  # one line, whatever the library said
        raise ClirkitError(f"{path}: not {what} or corrupt ({problem[:200]}): check the path, or "
                           f"{remake(kind)}") from None
    return meta, arrays


def _header_of(path: str | os.PathLike[str], kind: str, raw: bytes) -> object:
    """The parsed JSON header ``raw`` of the npz at ``path``, or ClirkitError saying what is wrong with it in the
    user's words (not the JSON library's advice to raise Python's digit limit)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        problem = "is not UTF-8 text"
    except json.JSONDecodeError as exc:
        problem = f"is not valid JSON ({exc.msg} at character {exc.pos + 1})"
    except RecursionError:
        problem = "is JSON nested too deeply"
    except ValueError as exc:  # Python's limit on the digits of an integer read from text
        problem = ("holds an integer of more than 4,300 digits" if "integer string conversion" in str(exc)
                   else f"cannot be read ({' '.join(str(exc).split())[:120]})")
    raise ClirkitError(f"{path}: corrupt {kind} file: its header {problem}; {remake(kind)}")


def _mapped_members(path: str | os.PathLike[str], names: Sequence[str]) -> dict[str, np.ndarray]:
    """Read-only memory maps of the members ``NAME.npy`` of the npz at ``path`` that are stored
    uncompressed, unencrypted and hold no Python objects (the others are left to ``np.load``)."""
    out = {}
    with open(path, "rb") as fh, zipfile.ZipFile(fh) as zf:
        for name in names:
            info = zf.getinfo(f"{name}.npy")
            if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:
                continue
            fh.seek(info.header_offset)
            local = fh.read(30)  # the local file header; its name and extra field lengths sit at 26 and 28
            if len(local) != 30 or local[:4] != b"PK\x03\x04":
                continue
            name_len, extra_len = struct.unpack("<HH", local[26:30])
            start = info.header_offset + 30 + name_len + extra_len
            fh.seek(start)
            version = np.lib.format.read_magic(fh)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                           (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read_header is None:
                continue
            shape, fortran, dtype = read_header(fh)
            if dtype.hasobject or fortran or not shape or 0 in shape:
                continue
            if fh.tell() + math.prod(shape) * dtype.itemsize != start + info.file_size:
                continue  # the sizes disagree: np.load says how
            out[name] = np.memmap(fh.name, dtype=dtype, mode="r", offset=fh.tell(), shape=shape)
    return out


# ----------------------------------------------------------------------------------------------
# checking what a file holds before it is used
#
# A loader reads the file with load_npz, then checks every header value and array it uses inside
# ``with checking(path, "index"):``. The checks raise Corrupt("problem"); checking turns it into one
# line, ``FILE: corrupt index: problem``. Array checks are vectorized (no Python loop per element).

class Corrupt(ClirkitError):
    """A problem found by the checks below; :func:`checking` adds the file and what it should hold."""


@contextmanager
def checking(path: str | os.PathLike[str], what: str, *, remedy: bool = False) -> Iterator[None]:
    """Turn the :class:`Corrupt` problems raised inside into ``ClirkitError("PATH: corrupt WHAT: problem")``,
    with ``remedy`` followed by what to do (``; rebuild the index with `clirkit index```, :func:`remake`)."""
    try:
        yield
    except Corrupt as exc:
        fix = f"; {remake(what)}" if remedy else ""
        raise ClirkitError(f"{path}: corrupt {what}: {exc}{fix}") from None


def show(value: object, limit: int = 40) -> str:
    """``value`` as JSON (as the header spells it), cut to ``limit`` characters."""
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate is shown, not printed
    return text if len(text) <= limit else text[:limit - 3] + "..."


_JSON_KINDS = {"int": "an integer", "number": "a finite number", "str": "a string", "bool": "true or false",
               "object": "an object", "list": "a list"}
_PLURAL = {"int": "integers", "number": "finite numbers", "str": "strings", "bool": "booleans",
           "object": "objects", "list": "lists"}


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


def _bounds(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f" in {_num(lo)}..{_num(hi)}"
    if lo is not None:
        return f" >= {_num(lo)}"
    if hi is not None:
        return f" <= {_num(hi)}"
    return ""


_MISSING = object()


def require_field(header: Mapping, name: str | tuple[str | int, ...], kind: str, *, choices: Sequence | None = None,
                  min: float | None = None, max: float | None = None, items: str | None = None,
                  length: int | None = None, nullable: bool = False, default: object = _MISSING) -> object:
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
        ok = ((length is None or len(value) == length)
              and (items is None or all(_in_range(v, items, choices, min, max) for v in value)))
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

    label = label or f"header {name}"
    if name not in header:
        raise Corrupt(f"{label} is missing")
    try:
        return Analyzer.from_dict(header[name], where=label)
    except ClirkitError as exc:
        raise Corrupt(str(exc)) from None


_ARRAY_KINDS = {"str": ("U", "strings"), "int": ("iu", "integers"), "float": ("f", "floats"),
                "number": ("fiu", "numbers")}


def _at(arr: np.ndarray, flat: int) -> str:
    """Where the ``flat``-th element of ``arr`` is, as a message says it."""
    if arr.ndim <= 1:
        return f"at {flat}"
    return "at (" + ", ".join(str(int(i)) for i in np.unravel_index(flat, arr.shape)) + ")"


def _value(x: object) -> str:
    return repr(x.item() if hasattr(x, "item") else x)


def require_array(arrays: Mapping[str, np.ndarray], name: str, kind: str, ndim: int = 1, *,
                  shape: tuple[int | None, ...] | None = None, finite: bool = True, min: float | None = None,
                  max: float | None = None, sorted: bool = False, unique: bool = False,
                  dtype: np.dtype | type | str | None = None, optional: bool = False,
                  label: str | None = None) -> np.ndarray | None:
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
            raise Corrupt(f"{name} holds a string that is not valid Unicode (a lone surrogate) "
                          f"{_at(arr, int(np.argmax(bad)))}")
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
            raise Corrupt(f"{name} has {_value(arr.flat[i])} {_at(arr, i)}, below the minimum {_num(min)}")
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


def require_csr(arrays: Mapping[str, np.ndarray], names: tuple[str, str, str], shape: tuple[int, int], kind: str,
                *, min: float | None = None, max: float | None = None, dtype: np.dtype | type | str | None = None,
                entries: bool = True):
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
        raise Corrupt(f"{indptr_name} ends at {nnz} but {data_name} holds {len(data)} and {indices_name} "
                      f"{len(indices)} entries")
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
        raise Corrupt(f"{indices_name} of row {row_of(int(np.argmax(bad)))} has a column outside "
                      f"[0, {matrix.shape[1] - 1}]")
    if min is not None and len(data) and data.min() < min:
        raise Corrupt(f"{data_name} of row {row_of(int(np.argmax(data < min)))} has a value below the minimum "
                      f"{_num(min)}")
    unsorted = _first_unsorted(indices, offsets)
    if unsorted is not None:
        raise Corrupt(f"{indices_name} of row {int(rows[unsorted[0]])} are not strictly increasing")
