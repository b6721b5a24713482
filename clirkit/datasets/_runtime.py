"""Finding the shared data folder and building collections from it once, into the cache."""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import clirkit
from clirkit.datasets._store import VariantData, write_variant
from clirkit.datasets.collection import cache_dir
from clirkit.errors import ClirkitError

# bump when a runtime builder changes what it writes, so cached builds are redone
BUILDER_VERSION = 3


def default_shared() -> Path:
    """``$CLIRKIT_SHARED`` if set, else the folder ``shared`` beside the repository root (for a
    source checkout), else ``../shared`` from the working directory (for an installed clirkit run
    from the repository root); the first holding ``data/``."""
    env = os.environ.get("CLIRKIT_SHARED")
    if env:
        return Path(env)
    candidates = [Path(clirkit.__file__).resolve().parents[2] / "shared", Path.cwd().resolve().parent / "shared"]
    return next((c for c in candidates if (c / "data").is_dir()), candidates[0])


def require(shared: str | os.PathLike[str] | None, relative: list[str], collection: str) -> tuple[Path, list[Path]]:
    """The shared folder and the source files of ``collection``; ClirkitError naming what is missing."""
    root = Path(shared) if shared is not None else default_shared()
    paths = [root / "data" / r for r in relative]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise ClirkitError(
            f"collection {collection} is built from the shared data folder, but {missing[0]} is missing "
            f"({len(missing)} of {len(paths)} source files absent); pass shared=... or set CLIRKIT_SHARED "
            f"to the folder holding data/ (it is never bundled with clirkit)")
    return root, paths


def _fingerprint(name: str, sources: list[Path]) -> str:
    h = hashlib.sha256(f"{name} builder {BUILDER_VERSION}\n".encode())
    for p in sources:
        h.update(p.name.encode() + b"\n")
        with open(p, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:16]


def build_cached(name: str, sources: list[Path], build: Callable[[], dict[str, VariantData]]) -> Path:
    """The cache folder holding ``name``'s variant folders, running ``build`` only if it is not there yet.

    The folder is keyed by a digest of the source files' contents and the
    builder version, and appears atomically (built in a temporary folder,
    then renamed), so concurrent or interrupted builds never leave a half one.
    """
    final = cache_dir() / "collections" / name / _fingerprint(name, sources)
    if (final / "done").is_file():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=final.parent))
    try:
        for variant, data in build().items():
            write_variant(data, tmp / variant, compress=False)
        (tmp / "done").write_text("ok\n")
        try:
            os.replace(tmp, final)
        except OSError:
            if not (final / "done").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final
