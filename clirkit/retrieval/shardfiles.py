"""The files of a sharded index on disk: the shards' names, their atomic writing beside the manifest, the
removal of what a replaced or killed build left, and the kind a file's header names. No index is read here
(:mod:`clirkit.retrieval.shards` holds :class:`~clirkit.retrieval.shards.ShardedIndex`), so the one-file index can
replace a sharded one without importing it."""

from __future__ import annotations

import contextlib
import json
import os
import re
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.npzchecks import Corrupt, require_field
from clirkit.npzio import HEADER_KEY, member

if TYPE_CHECKING:
    from clirkit.retrieval.index import Index

KIND = "sharded-index"
PROJECTED_KIND = "sharded-projected-index"  # documents translated into the queries' language (clirkit.docpsq)
MANIFESTS = (KIND, PROJECTED_KIND)  # the kinds of a manifest file


_RECORD = {"n_docs": ("int", 1), "n_terms": ("int", 0), "n_postings": ("int", 0), "bytes": ("int", 0)}
_TRANSLATED_RECORD = ("source_tokens",)  # what the record of a translated shard adds (an int >= 0)


def _read_record(header: Mapping, i: int) -> dict:
    """What the manifest's header records of shard ``i`` (checked: :class:`~clirkit.npzchecks.Corrupt` otherwise)."""
    record = {key: require_field(header, ("shards", i, key), kind, min=low) for key, (kind, low) in _RECORD.items()}
    for key in _TRANSLATED_RECORD:
        value = require_field(header, ("shards", i, key), "int", min=0, default=None)
        if value is not None:
            record[key] = value
    for key in ("file", "first_docid", "last_docid"):
        record[key] = require_field(header, ("shards", i, key), "str")
    contents = require_field(header, ("shards", i, "contents"), "str", default=None)  # (none before 2026-11-30)
    record.update({} if contents is None else {"contents": contents})
    if Path(record["file"]).name != record["file"] or record["file"] in ("", ".", ".."):
        raise Corrupt(f"header shards[{i}].file must be a file name beside the manifest, got {record['file']!r}")
    if not record["first_docid"] <= record["last_docid"]:
        raise Corrupt(f"header shards[{i}] has first_docid after last_docid")
    return record


def shard_name(manifest: str | os.PathLike[str], number: int, digest: str | None = None) -> str:
    """File name of shard ``number`` (from 0) of the manifest ``NAME.npz``: ``NAME.shard-000.DIGEST.npz``, DIGEST
    the first 12 hex digits of the SHA-256 of the shard's bytes (``NAME.shard-000.npz`` without ``digest``, as
    builds before the digest named them). The manifest records each shard's name."""
    return f"{_stem(manifest)}.shard-{number:03d}{'' if digest is None else '.' + digest}.npz"


# a name shard_name makes: NAME, the shard's number, the digest (absent in names made before it)
_SHARD_FILE = re.compile(r"(.+)\.shard-(\d{3,})(?:\.([0-9a-f]{12}))?\.npz")


def manifest_of_shard(path: str | os.PathLike[str]) -> tuple[str, int] | None:
    """``(manifest path, shard number)`` when ``path`` is named as a shard of a manifest that is there
    (``NAME.shard-000.DIGEST.npz`` beside ``NAME.npz``), else None."""
    found = _SHARD_FILE.fullmatch(Path(path).name)
    if found is None:
        return None
    manifest = Path(path).with_name(f"{found.group(1)}.npz")
    return (str(manifest), int(found.group(2))) if manifest.is_file() else None


def _stem(manifest: str | os.PathLike[str]) -> str:
    name = Path(manifest).name
    return name[:-4] if name.endswith(".npz") else name


def _check_output(path: str | os.PathLike[str]) -> str:
    """The checks of :func:`clirkit.fileio.atomic_writer`, made before any shard is written; returns the path to
    write the manifest at: the file a symbolic link names (the shards go beside it, where a reader of the link or
    of the file finds them: :meth:`ShardedIndex._folder <clirkit.retrieval.shards.ShardedIndex._folder>`).
    ClirkitError for a folder, and for a device or FIFO (``/dev/null``), which cannot hold shard files beside it."""
    from clirkit.fileio import check_output_folder

    check_output_folder(path)
    if Path(path).is_dir():
        raise ClirkitError(f"{path}: is a folder; give a file name to write")
    real = os.path.realpath(path)
    if os.path.exists(real) and not os.path.isfile(real):
        raise ClirkitError(
            f"{path}: is not a regular file: a sharded index is a manifest with its shard files beside it; "
            "give a file name to write (or leave out --shards)"
        )
    return real if os.path.islink(path) else str(path)


def _write_shard(shard: Index, path: str | os.PathLike[str], number: int, written: list[str]) -> dict:
    """Save shard ``number`` of the manifest ``path`` beside it under a temporary name, then rename it to its
    name (:func:`shard_name`, with the digest of its bytes); returns what the manifest records of the file:
    ``{"file": name, "bytes": size, "contents": contents_code(file)}``. A name already there holds the same bytes
    (the digest says so), so the rename never changes a shard another manifest reads."""
    from clirkit.fileio import file_digest

    folder = Path(path).parent
    part = folder / f".{_stem(path)}.shard-{number:03d}.{os.getpid()}.part"
    try:
        shard._write(part)
        _checkpoint(f"part-{number}")
        name, size, contents = (
            shard_name(path, number, file_digest(part)[:12]),
            part.stat().st_size,
            contents_code(part),
        )
        written.append(name)
        os.replace(part, folder / name)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    _checkpoint(f"shard-{number}")
    return {"file": name, "bytes": size, "contents": contents}


def named_digest_holds(path: str | os.PathLike[str]) -> bool:
    """Whether a shard file named with a digest (``NAME.shard-000.DIGEST.npz``) holds the bytes the digest names
    (a full read: for manifests that record no contents code); True for a name without one."""
    from clirkit.fileio import file_digest

    found = _SHARD_FILE.fullmatch(Path(path).name)
    return found is None or found.group(3) is None or file_digest(path)[:12] == found.group(3)


def contents_code(path: str | os.PathLike[str]) -> str | None:
    """A code of an npz file's contents read from its zip directory alone (no member is read): the CRC-32 the
    zip records of each member, hashed with the members' names (16 hex digits); None if it is no zip. A shard
    swapped for another index's shard, even of the same size, has another code (but for CRC collisions)."""
    import hashlib

    try:
        with zipfile.ZipFile(path) as npz:
            listed = ",".join(f"{info.filename}:{info.CRC:08x}" for info in npz.infolist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return None
    return hashlib.sha256(listed.encode("utf-8")).hexdigest()[:16]


class _replacing:
    """Around the writing of the shards and manifest of ``path``, by one process at a time (:func:`_lock`: another
    is refused at once): the temporaries of killed writes are removed first; on an error or interruption before the
    manifest is switched, the shards written (``written``, names) that the manifest at ``path`` does not name are
    removed; once it is switched, the shard files it does not name (the previous index's, those of killed builds)
    are removed."""

    def __init__(self, path: str | os.PathLike[str], written: list[str]) -> None:
        self.path, self.written = path, written

    def __enter__(self) -> None:
        self.lock = _lock(self.path)
        if isinstance(self.lock, str):
            holder = f" ({self.lock})" if self.lock else ""
            raise ClirkitError(
                f"{self.path}: another clirkit process{holder} is writing this index; wait for it to end, or write "
                "elsewhere"
            )
        _tidy(self.path, None)

    def __exit__(self, kind, value, traceback) -> None:
        try:
            folder, named = Path(self.path).parent, _referenced(self.path)
            if kind is not None:
                for name in self.written:
                    if name not in named:
                        (folder / name).unlink(missing_ok=True)
                return
            _checkpoint("manifest")
            _tidy(self.path, named)
        finally:
            _unlock(self.path, self.lock)


@contextlib.contextmanager
def replacing_shards(path: str | os.PathLike[str]) -> Iterator[None]:
    """Around the (atomic) writing of one file at ``path`` (a plain index) over what may be a sharded index: once
    the file is in place, the shard files of ``path``'s name are removed (those of the index it replaced, and
    strays of killed builds), unless another process is writing a sharded index there (it is then the last
    writer, and removes them); on an error or interruption before, the old index is left whole."""
    yield
    if str(path) != "-" and os.path.isfile(path):  # not stdout or a device
        path = os.path.realpath(path)  # (a link: the shards of the file it names, beside that file)
        _checkpoint("plain")
        lock = _lock(path)
        if not isinstance(lock, str):
            try:
                _tidy(path, set())
            finally:
                _unlock(path, lock)


def _lock_file(path: str | os.PathLike[str]) -> Path:
    return Path(path).with_name(f".{Path(path).name}.lock.tmp")


def _lock(path: str | os.PathLike[str]) -> int | str | None:
    """The right to write (and tidy) the index at ``path``, held until :func:`_unlock`: the descriptor of its lock
    file ``.NAME.lock.tmp`` beside it, locked (``flock``: the system releases it when the process ends, however it
    ends), or, when another process holds it, that process's id as it wrote it (a str, empty if not yet written).
    None where ``flock`` is missing or the lock file cannot be made (the write then fails on its own, or is not
    exclusive)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    lock = _lock_file(path)
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held (BlockingIOError)
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            return holder if holder.isdigit() else ""
        with contextlib.suppress(OSError):
            if os.path.samestat(os.fstat(fd), os.stat(lock)):  # not a file its last holder removed
                os.ftruncate(fd, 0)
                os.write(fd, str(os.getpid()).encode("ascii"))
                return fd
        os.close(fd)


def _unlock(path: str | os.PathLike[str], lock: int | str | None) -> None:
    """Release the lock of :func:`_lock` (``lock``, its descriptor; nothing for what else it returns), removing its
    file first."""
    if not isinstance(lock, int):
        return
    with contextlib.suppress(OSError):
        os.unlink(_lock_file(path))
    os.close(lock)


def shard_paths(path: str | os.PathLike[str]) -> list[str]:
    """The paths of the shard files the manifest at ``path`` records, in their order beside it (none when ``path``
    is not a readable manifest): inputs of a verb that reads the sharded index, or files its writing replaces."""
    if str(path) == "-":
        return []
    folder = Path(os.path.realpath(path)).parent  # (beside the file a link names)
    return [str(folder / name) for name in sorted(_referenced(path)) if (folder / name).is_file()]


def _referenced(path: str | os.PathLike[str]) -> set[str]:
    """The shard file names the manifest at ``path`` records (none if there is none or it cannot be read)."""
    if index_kind(path) not in MANIFESTS:
        return set()
    try:
        with np.load(path, allow_pickle=False) as npz:
            shards = json.loads(member(npz, HEADER_KEY).tobytes().decode("utf-8")).get("shards")
    except (
        OSError,
        ValueError,
        KeyError,
        EOFError,
        AttributeError,
        RecursionError,
        zipfile.BadZipFile,
        UnicodeDecodeError,
    ):
        return set()
    return (
        {r["file"] for r in shards if isinstance(r, dict) and isinstance(r.get("file"), str)}
        if isinstance(shards, list)
        else set()
    )


def _tidy(path: str | os.PathLike[str], keep: set[str] | None) -> None:
    """Remove beside the manifest ``path`` the temporaries of shard writes whose process is gone and, unless
    ``keep`` is None, the shard files of ``path`` not in ``keep`` (a file that is itself a manifest is kept)."""
    from clirkit.fileio import _alive

    folder, stem = Path(path).parent, re.escape(_stem(path))
    shard = re.compile(rf"{stem}\.shard-\d{{3,}}(\.[0-9a-f]{{12}})?\.npz")
    temporary = re.compile(rf"\.\.?{stem}\.shard-\d{{3,}}\.(\d+)\.part")
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        found = temporary.match(entry.name)
        stale = (found is not None and int(found.group(1)) != os.getpid() and not _alive(int(found.group(1)))) or (
            keep is not None
            and shard.fullmatch(entry.name) is not None
            and entry.name not in keep
            and index_kind(entry.path) not in MANIFESTS
        )
        if stale:
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def _checkpoint(point: str) -> None:
    """For tests only: with ``CLIRKIT_TEST_SIGNAL="POINT SIGNAL"`` in the environment (``"shard-0 SIGKILL"``),
    the process sends itself SIGNAL at POINT of a sharded write (``part-N``: shard N written under its temporary
    name; ``shard-N``: renamed; ``shards``: all written, the manifest not yet; ``manifest``: the manifest switched,
    the old shards still there; ``plain``: a plain index written over a sharded one, the old shards still there)."""
    wanted = os.environ.get("CLIRKIT_TEST_SIGNAL", "").split()
    if len(wanted) == 2 and wanted[0] == point:
        import signal

        signal.raise_signal(getattr(signal, wanted[1]))


def index_kind(path: str | os.PathLike[str]) -> str | None:
    """The ``kind`` a clirkit npz file's header names (``index``, ``sharded-index``, ...), or None when it
    cannot be read (the loader then says why). Reads the header only."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            if HEADER_KEY not in npz.files:
                return None
            kind = json.loads(member(npz, HEADER_KEY).tobytes().decode("utf-8")).get("kind")
    except (OSError, ValueError, EOFError, AttributeError, RecursionError, zipfile.BadZipFile, UnicodeDecodeError):
        return None
    return kind if isinstance(kind, str) else None
