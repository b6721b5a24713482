"""Collections built from third-party files (never bundled): where their source files are, building them once
into the cache, and finding that build again without the sources.

A :class:`Recipe` names a collection's source files as they lie in the shared data folder
(``shared/data/openbible_crossrefs/cross_references.txt``). They are found

- in the shared data folder (``load(..., shared=...)``, else ``$CLIRKIT_SHARED``, else ``shared`` beside the
  repository): the route of a source checkout and of CI; or
- in folders a user downloaded (:meth:`Recipe.build_from`, ``clirkit datasets build NAME --from DIR``), each
  laid out as the shared data folder, as the shared folder itself, or as the source's own folder (a clone of
  the Multi30K repository, the folder holding ``cross_references.txt``).

A build goes to ``$CLIRKIT_CACHE/collections/NAME/DIGEST/`` (the digest of the source files' bytes and of
:data:`BUILDER_VERSION`), and ``NAME/built.json`` records the last one, so a later ``load(NAME)`` finds it when
the sources are no longer at hand.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

import clirkit
from clirkit.datasets.collection import cache_dir
from clirkit.errors import ClirkitError

if TYPE_CHECKING:
    from clirkit.datasets._store import VariantData

# bump when a runtime builder changes what it writes, so cached builds are redone
BUILDER_VERSION = 3
RECORD = "built.json"
# a build's staging folder, beside the build: ``.build-PID.xxxxxxxx`` (PID the building process's)
STAGING = ".build-"
_STAGING_PID = re.compile(r"\.build-(\d+)\.")
# a staging folder named without its process (by clirkit before PIDs were in the names) older than this is stale
STALE_UNOWNED_SECONDS = 3600


def default_shared() -> Path:
    """``$CLIRKIT_SHARED`` if set, else the folder ``shared`` beside the repository root (for a
    source checkout), else ``../shared`` from the working directory (for an installed clirkit run
    from the repository root); the first holding ``data/``."""
    env = os.environ.get("CLIRKIT_SHARED")
    if env:
        return Path(env)
    candidates = [Path(clirkit.__file__).resolve().parents[2] / "shared", Path.cwd().resolve().parent / "shared"]
    return next((c for c in candidates if (c / "data").is_dir()), candidates[0])


@dataclass(frozen=True)
class Recipe:
    """How one collection is built from third-party files.

    Attributes:
        name: the collection's name.
        sources: its source files as they lie in the shared data folder, e.g.
            ``openbible_crossrefs/cross_references.txt``.
        files: the same files as a user finds them in the downloads, in a few words (for help and errors).
        download: where a user downloads them (upstream project and page, licence).
        description: one line on what the queries, documents and grades are.
        build: the variants in memory from ``{source: path}``.
        alternatives: other files a source may be given as, beside it (``{source: (path, ...)}``, paths as
            ``sources`` names them; e.g. the OSIS export a verse file was made of): the first found of the
            source and its alternatives is the one ``build`` gets.
    """

    name: str
    sources: tuple[str, ...]
    files: str
    download: str
    description: str
    build: Callable[[dict[str, Path]], dict[str, VariantData]]
    alternatives: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def needs(self) -> str:
        """What to download, in one sentence: the files and where they come from."""
        return f"{self.name} is built from {self.files}: {self.download}"

    def folder(self, shared: str | os.PathLike[str] | None = None) -> Path:
        """The cache folder holding the variant folders: built from the shared folder on first use, else the
        build recorded by :meth:`build_from` (or by an earlier build from the shared folder)."""
        if shared is not None:
            data = Path(shared) / "data"
            files = self._located(
                [data],
                lambda missing: (
                    f"collection {self.name} is built from the shared folder, but {data / missing} is missing"
                ),
            )
        else:
            files = self._find([default_shared() / "data"])
            if files is None:
                built = self.recorded()
                if built is not None:
                    return built
                raise ClirkitError(
                    f"collection {self.name} is not built yet: build it once with `clirkit datasets build "
                    f"{self.name} --from DIR` (in Python datasets.build(NAME, DIR)), DIR holding its downloaded files; "
                    f"{self.needs()} (or set CLIRKIT_SHARED to a folder whose data/ holds them)"
                )
        return build_cached(self.name, [files[s] for s in self.sources], lambda: self.build(files))

    def build_from(self, folders: Iterable[str | os.PathLike[str]]) -> Path:
        """Build (or find already built) the collection from the source files found in ``folders``."""
        files = self.located(folders)
        return build_cached(self.name, [files[s] for s in self.sources], lambda: self.build(files))

    def located(self, folders: Iterable[str | os.PathLike[str]]) -> dict[str, Path]:
        """``{source: path}`` of the source files found in ``folders``; ClirkitError for no folder, one that is
        not there, or a source file in none (naming the first and what to download)."""
        folders = [Path(f) for f in folders]
        if not folders:
            raise ClirkitError(f"give the folder(s) holding the source files; {self.needs()}")
        for f in folders:
            if not f.is_dir():
                raise ClirkitError(f"{f}: no such folder; {self.needs()}")
        where = " or ".join(map(str, folders))
        return self._located(
            folders,
            lambda missing: (
                f"{where}: no " + " or ".join(_inside(n) for n in (missing, *self.alternatives.get(missing, ())))
            ),
        )

    def status(self) -> str:
        """``built`` (a build is in the cache), ``shared`` (the shared folder holds the sources: built on first
        use) or ``to build``."""
        if self.recorded() is not None:
            return "built"
        return "shared" if self._find([default_shared() / "data"]) is not None else "to build"

    def recorded(self) -> Path | None:
        """The cache folder of the last build, if it is complete and made by this builder version."""
        try:
            record = json.loads((cache_dir() / "collections" / self.name / RECORD).read_text(encoding="utf-8"))
            digest = str(record["fingerprint"])
            version = record["builder_version"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        folder = cache_dir() / "collections" / self.name / digest
        ok = version == BUILDER_VERSION and "/" not in digest and (folder / "done").is_file()
        return folder if ok else None

    def _find_each(self, folders: list[Path]) -> dict[str, Path | None]:
        """``{source: path}``, the path None for a source file found in none of ``folders``."""
        return {
            s: next(
                (
                    p
                    for name in (s, *self.alternatives.get(s, ()))
                    for f in folders
                    for p in _candidates(f, name)
                    if p.is_file()
                ),
                None,
            )
            for s in self.sources
        }

    def _find(self, folders: list[Path]) -> dict[str, Path] | None:
        """``{source: path}`` of the source files found in ``folders``, or None if one is missing."""
        files = self._find_each(folders)
        return None if None in files.values() else files

    def _located(self, folders: list[Path], says: Callable[[str], str]) -> dict[str, Path]:
        """:meth:`_find`, or a ClirkitError ``says(first missing source)`` with the count and what to download."""
        files = self._find_each(folders)
        missing = [s for s, p in files.items() if p is None]
        if missing:
            raise ClirkitError(
                f"{says(missing[0])} ({len(missing)} of {len(files)} source files missing); {self.needs()}"
            )
        return files


def _inside(source: str) -> str:
    """A source's path inside its own folder (``multi30k/data/task1/...`` -> ``data/task1/...``)."""
    return source.split("/", 1)[1]


def _candidates(folder: Path, source: str) -> list[Path]:
    """Where ``source`` may lie under ``folder``: a folder laid out as the shared data folder, as the shared
    folder (``data/`` inside), or as the source's own folder."""
    return [folder / source, folder / "data" / source, folder / _inside(source)]


def _fingerprint(name: str, sources: list[Path]) -> str:
    h = hashlib.sha256(f"{name} builder {BUILDER_VERSION}\n".encode())
    for p in sources:
        h.update(p.name.encode() + b"\n")
        with open(p, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:16]


def _record(name: str, digest: str) -> None:
    """Remember ``digest`` as the build of ``name`` that :meth:`Recipe.recorded` finds."""
    from clirkit.fileio import atomic_writer

    path = cache_dir() / "collections" / name / RECORD
    record = {"fingerprint": digest, "builder_version": BUILDER_VERSION}
    try:
        if json.loads(path.read_text(encoding="utf-8")) == record:
            return
    except (OSError, ValueError):
        pass
    with atomic_writer(path) as out:
        out.write(json.dumps(record) + "\n")


def cache_folder(folder: Path) -> Path:
    """``folder`` (a folder inside the cache, :func:`clirkit.datasets.collection.cache_dir`), made if needed; a
    ClirkitError naming ``$CLIRKIT_CACHE`` when it cannot be (:func:`unusable_cache`)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise unusable_cache(exc) from None
    return folder


def unusable_cache(exc: OSError, writing_in: Path | None = None) -> ClirkitError:
    """The one-line error for a cache that cannot hold a build, ``exc`` the failure of making a folder in it (the
    folder ``exc.filename``), or of writing in its folder ``writing_in``: ``$CLIRKIT_CACHE=DIR: is a file, not a
    folder: ...``, ``... DIR/collections cannot be made: REASON`` or ``... cannot be written in: REASON``, and
    what to do."""
    root = cache_dir()
    named = f"$CLIRKIT_CACHE={root}" if os.environ.get("CLIRKIT_CACHE") else f"the cache {root}"

    def part(path: Path) -> str:
        return "" if path == root else f"{path} "

    failed = writing_in or (Path(exc.filename) if exc.filename else root)
    blocker = next((p for p in (failed, *failed.parents) if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        problem = f"{part(blocker)}is a file, not a folder"
    else:
        problem = f"{part(failed)}cannot be {'written in' if writing_in else 'made'}: {exc.strerror or exc}"
    return ClirkitError(
        f"{named}: {problem}: built collections are kept there; set CLIRKIT_CACHE to a folder you can write in"
    )


def _remove_stale_staging(folder: Path) -> None:
    """Remove the staging folders in ``folder`` that no build is writing any more: those of a process that is
    gone (killed before it could clean up), and unowned ones (:data:`STALE_UNOWNED_SECONDS`); those of running
    processes are left alone."""
    from clirkit.fileio import left_by_gone_process

    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(STAGING) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for entry in entries:
        if _STAGING_PID.match(entry.name) is not None:
            stale = left_by_gone_process(entry.name, STAGING, ".")
        else:
            try:
                stale = time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_UNOWNED_SECONDS
            except OSError:
                stale = False
        if stale:
            shutil.rmtree(entry.path, ignore_errors=True)


def build_cached(name: str, sources: list[Path], build: Callable[[], dict[str, VariantData]]) -> Path:
    """The cache folder holding ``name``'s variant folders, running ``build`` only if it is not there yet.

    The folder is keyed by a digest of the source files' contents and the
    builder version, and appears atomically (built in a staging folder,
    then renamed), so concurrent or interrupted builds never leave a half one;
    a build removes the staging folders that killed builds left (:func:`_remove_stale_staging`).
    The folder is recorded as the collection's build (:meth:`Recipe.recorded`).
    A cache that cannot hold it is a ClirkitError (:func:`unusable_cache`), said before ``build`` runs.
    """
    from clirkit.datasets._store import write_variant

    digest = _fingerprint(name, sources)
    final = cache_dir() / "collections" / name / digest
    if not (final / "done").is_file():
        _remove_stale_staging(cache_folder(final.parent))
        try:
            tmp = Path(tempfile.mkdtemp(prefix=f"{STAGING}{os.getpid()}.", dir=final.parent))
        except OSError as exc:
            raise unusable_cache(exc, final.parent) from None
        try:
            variants = build()
            try:
                for variant, data in variants.items():
                    write_variant(data, tmp / variant, compress=False)
                (tmp / "done").write_text("ok\n")
                try:
                    os.replace(tmp, final)
                except OSError:
                    if not (final / "done").is_file():
                        raise
            except OSError as exc:
                raise unusable_cache(exc, final.parent) from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    _record(name, digest)
    return final
