"""Saving and loading clirkit's files: one ``.npz`` holding numpy arrays plus a JSON header.

The header (stored as UTF-8 bytes under the key ``__header__``) names the kind
of file, its format version and the parameters that made it. Loading never
unpickles (``allow_pickle=False``), so opening a file cannot run code.

Each loader then checks every header value and array it uses before using it,
with the helpers of :mod:`clirkit.npzchecks` (:func:`require_field`, :func:`require_analyzer`,
:func:`require_array`, :func:`require_csr` inside :func:`checking`): a tampered
or damaged file is one line, ``FILE: corrupt index: doc_lengths has NaN at 17``,
never a traceback and never a silently wrong result.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import struct
import threading
import tokenize
import zipfile
import zlib
from typing import Mapping, Sequence

import numpy as np

from clirkit.errors import ClirkitError, cut_repr
from clirkit.fileio import atomic_writer

HEADER_KEY = "__header__"
# held while an npz member is read: numpy parses each array's header with ast.literal_eval, which CPython 3.11
# can fail with "AST constructor recursion depth mismatch" when two threads parse at once (python/cpython#106905),
# as the threads searching a sharded index open its shards
MEMBER_LOCK = threading.RLock()
# what to do about a damaged, edited or unsupported file of each kind: the loaders' messages end with it
REMAKE = {
    "index": "rebuild the index with `clirkit index`",
    "sharded-index": "rebuild the index with `clirkit index --shards N`",
    "projected-index": "translate the documents again with `clirkit psq --save-index`",
    "sharded-projected-index": "translate the documents again with `clirkit psq --save-index`",
    "translation-table": "make the table again (`clirkit ttable train`, or `ttable convert` of its source)",
    "boost-model": "train the model again with `clirkit boost-train`",
    "scs-model": "train the model again with `clirkit scs-train`",
}
# the command that makes a file of each kind: said when the file is not there
MADE_BY = {
    "index": "an index is made by `clirkit index`",
    "sharded-index": "a sharded index is made by `clirkit index --shards N`",
    "translation-table": "a table is made by `clirkit ttable train` or `ttable convert`",
    "boost-model": "a boosted model is made by `clirkit boost-train`",
    "scs-model": "an SCS model is made by `clirkit scs-train`",
}


_IN_A_FOLDER = {"index": "index.npz", "translation-table": "table.npz"}  # the names an experiment folder gives them


def check_file(path: str | os.PathLike[str], kind: str, what: str) -> None:
    """ClirkitError if ``path``, where ``what`` (a file of ``kind``) is expected, names nothing (said with the command
    that makes one) or a folder (an experiment folder: said with the file in it), or is no path at all (None, a
    number: a number would be read as an open file descriptor)."""
    if isinstance(path, bool) or not isinstance(path, (str, bytes, os.PathLike)):
        raise ClirkitError(f"expected the path of {what} (a str or a path), got {path!r}")
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


def save_npz(
    path: str | os.PathLike[str],
    kind: str,
    version: int,
    header: Mapping,
    arrays: Mapping[str, np.ndarray],
    *,
    deflate: bool = False,
) -> None:
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
    with zipfile.ZipFile(
        fh,
        mode="w",
        compression=zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED,
        compresslevel=DEFLATE_LEVEL if deflated else None,
        allowZip64=True,
    ) as zf:
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


def load_npz(
    path: str | os.PathLike[str], kind: str, versions: tuple[int, ...], required: tuple[str, ...], *, mmap: bool = False
) -> tuple[dict, dict[str, np.ndarray]]:
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
            raise ClirkitError(
                f"{path}: not {what} or corrupt (not a zip archive, as every .npz file is): check "
                f"the path, or {remake(kind)}"
            )
        with np.load(path, allow_pickle=False) as npz:
            if HEADER_KEY not in npz.files:
                raise ClirkitError(f"{path}: not {what} (no clirkit header): check the path")
            meta = _header_of(path, kind, member(npz, HEADER_KEY).tobytes())
            if not isinstance(meta, dict):
                raise ClirkitError(
                    f"{path}: not {what} (its header is JSON but not an object): check the path, or {remake(kind)}"
                )
            if meta.get("kind") != kind:
                raise ClirkitError(f"{path}: not {what} (its kind is {cut_repr(meta.get('kind'), 60)}): check the path")
            version = meta.get("format_version")
            if not any(version == v and type(version) is type(v) for v in versions):
                raise ClirkitError(
                    f"{path}: {kind} format version {show(version)} is not supported by this "
                    f"clirkit (supported: {', '.join(map(str, versions))}): {remake(kind)} of "
                    f"this version, or use the clirkit that wrote it"
                )
            missing = [name for name in required if name not in npz.files]
            if missing:
                raise ClirkitError(f"{path}: corrupt {kind} file: missing {', '.join(missing)}; {remake(kind)}")
            names = [name for name in npz.files if name != HEADER_KEY]
            mapped = _mapped_members(path, names) if mmap else {}
            arrays = {name: mapped[name] if name in mapped else member(npz, name) for name in names}
    except ClirkitError:
        raise
    except (
        OSError,
        ValueError,
        zipfile.BadZipFile,
        json.JSONDecodeError,
        UnicodeDecodeError,
        EOFError,
        RuntimeError,
        MemoryError,
        zlib.error,
        struct.error,
        NotImplementedError,
        OverflowError,
        TypeError,
        SyntaxError,
        tokenize.TokenError,
    ) as exc:
        # deep JSON, encrypted members or unknown compression methods, damaged deflate streams, huge shapes,
        # array headers numpy cannot parse (it tries them as Python literals, then tokenizes them)
        problem = " ".join(str(exc).split())  # one line, whatever the library said
        raise ClirkitError(
            f"{path}: not {what} or corrupt ({problem[:200]}): check the path, or {remake(kind)}"
        ) from None
    return meta, arrays


def member(npz, name: str) -> np.ndarray:
    """The array ``name`` of an open npz (``np.load``), read under :data:`MEMBER_LOCK`."""
    with MEMBER_LOCK:
        return npz[name]


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
        problem = (
            "holds an integer of more than 4,300 digits"
            if "integer string conversion" in str(exc)
            else f"cannot be read ({' '.join(str(exc).split())[:120]})"
        )
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
            read_header = {
                (1, 0): np.lib.format.read_array_header_1_0,
                (2, 0): np.lib.format.read_array_header_2_0,
            }.get(version)
            if read_header is None:
                continue
            with MEMBER_LOCK:
                shape, fortran, dtype = read_header(fh)
            if dtype.hasobject or fortran or not shape or 0 in shape:
                continue
            if fh.tell() + math.prod(shape) * dtype.itemsize != start + info.file_size:
                continue  # the sizes disagree: np.load says how
            out[name] = np.memmap(fh.name, dtype=dtype, mode="r", offset=fh.tell(), shape=shape)
    return out


# ----------------------------------------------------------------------------------------------


def header_of(path: str | os.PathLike[str]) -> dict | None:
    """The JSON header of a clirkit npz file (its member :data:`HEADER_KEY` alone is read), or None when there is
    none to read (the file's own loader then says why)."""
    import json
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as npz:
            if HEADER_KEY not in npz.files:
                return None
            header = json.loads(member(npz, HEADER_KEY).tobytes().decode("utf-8"))
    except (OSError, ValueError, EOFError, AttributeError, RecursionError, zipfile.BadZipFile, UnicodeDecodeError):
        return None
    return header if isinstance(header, dict) else None


def show(value: object, limit: int = 40) -> str:
    """``value`` as JSON (as the header spells it), cut to ``limit`` characters."""
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate is shown, not printed
    return text if len(text) <= limit else text[: limit - 3] + "..."
