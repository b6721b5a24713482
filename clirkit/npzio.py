"""Saving and loading clirkit's files: one ``.npz`` holding numpy arrays plus a JSON header.

The header (stored as UTF-8 bytes under the key ``__header__``) names the kind
of file, its format version and the parameters that made it. Loading never
unpickles (``allow_pickle=False``), so opening a file cannot run code.
"""
from __future__ import annotations

import json
import os
import zipfile
from typing import Mapping

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.fileio import atomic_writer

HEADER_KEY = "__header__"


def save_npz(path: str | os.PathLike[str], kind: str, version: int, header: Mapping,
             arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` and a JSON header ``{"kind", "format_version", **header}`` atomically."""
    meta = {"kind": kind, "format_version": version, **header}
    payload = {HEADER_KEY: np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)}
    for name, arr in arrays.items():
        arr = np.asarray(arr)
        if arr.dtype == object:
            raise TypeError(f"array {name!r} has dtype object; store str arrays as fixed-width unicode")
        payload[name] = arr
    with atomic_writer(path, binary=True) as fh:
        np.savez(fh, **payload)


def load_npz(path: str | os.PathLike[str], kind: str, versions: tuple[int, ...],
             required: tuple[str, ...]) -> tuple[dict, dict[str, np.ndarray]]:
    """Read a file written by :func:`save_npz`, checking its kind, version and arrays.

    Returns ``(header, arrays)``. Raises ``ClirkitError`` naming the file when it
    is missing, not an npz, of another kind or version, or lacks an array.
    """
    what = f"a clirkit {kind} file"
    if not os.path.exists(path):
        raise ClirkitError(f"{path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as npz:
            if HEADER_KEY not in npz.files:
                raise ClirkitError(f"{path}: not {what} (no clirkit header)")
            meta = json.loads(npz[HEADER_KEY].tobytes().decode("utf-8"))
            if not isinstance(meta, dict):
                raise ClirkitError(f"{path}: not {what} (its header is JSON but not an object)")
            if meta.get("kind") != kind:
                raise ClirkitError(f"{path}: not {what} (it holds a {meta.get('kind')!r})")
            if meta.get("format_version") not in versions:
                raise ClirkitError(f"{path}: {kind} format version {meta.get('format_version')} is not "
                                   f"supported by this clirkit (supported: {', '.join(map(str, versions))})")
            missing = [name for name in required if name not in npz.files]
            if missing:
                raise ClirkitError(f"{path}: corrupt {kind} file: missing {', '.join(missing)}")
            arrays = {name: npz[name] for name in npz.files if name != HEADER_KEY}
    except ClirkitError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError, EOFError) as exc:
        raise ClirkitError(f"{path}: not {what} or corrupt ({exc})") from None
    return meta, arrays
