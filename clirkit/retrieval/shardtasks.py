"""What a task of a sharded search does where it runs (:mod:`clirkit.retrieval.shardsearch` cuts the work): search
a list of shards one after the other, merging their rows as they come (:func:`merged_over`); a worker process's
tasks (:func:`search_part`, :func:`union_part`: a group of shards, claimed in a folder, :class:`Work`), each block's
rows left in that folder (:func:`_leave`); and the shards a process has opened and keeps (:func:`opened_here` in
this process, :func:`_opened` in a worker process, the least recently used closed first)."""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable, Sequence, cast

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError
from clirkit.retrieval.bm25 import union_counts
from clirkit.retrieval.query import StructuredQueries
from clirkit.retrieval.rankmerge import Ranked, merge_ranked
from clirkit.retrieval.searchableshard import SearchableShard, UnionDf
from clirkit.retrieval.shards import ShardedIndex, load_index


def merged_over(
    shards: Sequence[tuple[int, Callable[[], "SearchableShard"]]],
    params: dict,
    queries: StructuredQueries,
    depth: int,
    union: "UnionDf | None",
    quiet: bool,
) -> Ranked:
    """The top ``depth`` rows of each query over ``shards`` (``(number, open)`` pairs in shard order, ``open``
    giving the shard ready to search), searched one after the other, each shard's rows merged as they come.

    A shard after the first keeps only the documents that enter the merged list: those scoring above the
    score at which a query's list is full (a document scoring the same ranks after the list's, which come
    from earlier shards, whose docids are smaller)."""
    from clirkit.progress import progress

    merged = None
    for number, opened in progress(shards, desc="searching shards", quiet=quiet, unit="shard"):
        floors = None if merged is None else full_at(merged, depth)
        found = Ranked.of_part(number, *opened().search(params, queries, depth, union, floors))
        merged = found if merged is None else merge_ranked(merged, found, depth)
    assert merged is not None  # an index holds at least one shard
    return merged


CLAIMS = ".clirkit-claims-"  # a search's folder: CLAIMS + HOST-PID-random (the process that made it, and removes it)


def claims_folder(index: ShardedIndex) -> str | None:
    """A new folder (an absolute path) where the tasks of one search claim shards and leave their blocks: in the
    temporary folder (loky: this machine), beside the manifest (dask: the workers share its file system), or None
    if it cannot be made there (each task then takes its own shard). The folders there of this machine's searches
    whose process is gone (killed before it could remove them) are removed first."""
    import socket
    import tempfile

    where = os.path.abspath(index._folder()) if index.backend == "dask" else tempfile.gettempdir()
    mine = f"{CLAIMS}{socket.gethostname()}-"
    _remove_left(where, mine)
    try:
        return tempfile.mkdtemp(prefix=f"{mine}{os.getpid()}-", dir=where)
    except OSError:
        return None


def _remove_left(where: str, mine: str) -> None:
    """Remove the folders in ``where`` named ``mine`` (this machine's prefix) + PID + ``-...`` whose process is
    gone."""
    import shutil

    from clirkit.fileio import left_by_gone_process

    try:
        left = [e.path for e in os.scandir(where) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for path in left:
        if left_by_gone_process(os.path.basename(path), mine, "-"):
            shutil.rmtree(path, ignore_errors=True)


@dataclass
class Work:
    """What a task searches: groups of shards by number (task g: group g, unless it claims another), the
    shards' numbers of each group, how many shards a process keeps open, the folder where tasks claim groups
    (None: no claims), and whether progress over the shards stays quiet."""

    parts: dict[int, list["_Part"]]
    numbers: dict[int, list[int]]
    keep: int
    claims: str | None = None
    quiet: bool = True

    def take(self, number: int) -> tuple[int, list[tuple[int, "_Part"]]]:
        """``(group number, [(shard number, part), ...])`` of task ``number``: with claims, the first group
        left among those whose shards this process holds, else among all."""
        if self.claims is not None:
            with _LOCK:
                held = [g for g, ps in self.parts.items() if all((p.manifest, p.file) in _SHARDS for p in ps)]
            number = next(g for g in held + list(self.parts) if self._claim(g))
        return number, list(zip(self.numbers[number], self.parts[number]))

    def _claim(self, number: int) -> bool:
        assert self.claims is not None  # (take claims only with a folder)
        try:
            os.close(os.open(os.path.join(self.claims, str(number)), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True


@dataclass
class _Part:
    """A task's shard ``number``: opened by its ``owner`` index (in this process), the ``shard`` itself (in
    memory), or the files to open (``(path, size, mtime)`` identities of the manifest and the shard)."""

    owner: ShardedIndex | None = None
    shard: "SearchableShard | None" = None
    manifest: tuple | None = None
    number: int = 0
    file: tuple | None = None
    shown: str = ""  # the manifest's path as the caller gave it (messages)

    def open(self, keep: int) -> "SearchableShard":
        """The shard, opened if needed (a worker process keeps at most ``keep`` open)."""
        if self.owner is not None:
            return opened_here(self.owner, self.number)
        return self.shard if self.shard is not None else _opened(self, keep)


def search_part(
    work: Work,
    number: int,
    params: dict,
    queries: StructuredQueries,
    depth: int,
    union: UnionDf | None,
    outbox: str | None = None,
    blocks: Sequence[tuple[int, int]] = (),
) -> tuple[int, Ranked | None]:
    """The group's shards searched one after the other in a worker process, their top ``depth`` rows merged
    as each comes (:func:`merged_over`): returned, or with an ``outbox`` folder, for each of ``blocks`` (query
    ranges) in turn, left there as ``GROUP.BLOCK.npz`` (:func:`_leave`) and None returned."""
    number, shards = work.take(number)
    opened = [(shard_number, partial(part.open, work.keep)) for shard_number, part in shards]
    if outbox is None:
        merged = merged_over(opened, params, queries, depth, union, work.quiet)
        _held_is_no_leak()
        return number, merged
    for block, (lo, hi) in enumerate(blocks):
        if not _room_for(outbox, number, block):
            break  # (the search was stopped: its folder is gone)
        _leave(merged_over(opened, params, queries.block(lo, hi), depth, union, True), outbox, number, block)
    _held_is_no_leak()
    return number, None


AHEAD = 4  # blocks a task leaves that the search has not read yet, at most


def _room_for(outbox: str, group: int, block: int) -> bool:
    """Wait until the search has read ``group``'s block ``block - AHEAD`` (so that a slow reader holds the
    folder to :data:`AHEAD` blocks a group); False if the folder is gone (the search stopped)."""
    wait = 0.002
    while os.path.exists(os.path.join(outbox, f"{group}.{block - AHEAD}.npz")):
        time.sleep(wait)
        wait = min(2 * wait, 0.05)
    return os.path.isdir(outbox)


def _leave(ranked: Ranked, outbox: str, group: int, block: int) -> None:
    """Write ``ranked`` into ``outbox`` as ``GROUP.BLOCK.npz``, whole when the name appears (written under
    another name, then renamed). ClirkitError when it cannot be written (a full disk)."""
    path = os.path.join(outbox, f"{group}.{block}.npz")
    try:
        np.savez(path + ".part.npz", **ranked._asdict())
        os.replace(path + ".part.npz", path)
    except OSError as exc:
        raise ClirkitError(
            f"{outbox}: cannot write the rows of a block of queries there: {exc.strerror or exc} (the search's "
            f"folder for its workers' rows, about {ranked.scores.nbytes * 2:,} bytes a block: give it room, or with "
            f"loky set TMPDIR to another folder)"
        ) from None


def full_at(ranked: Ranked, depth: int) -> np.ndarray:
    """Per query, the score of its ``depth``-th row, or -inf if it has fewer rows."""
    floors = np.full(len(ranked.sizes), -np.inf)
    full = ranked.sizes >= depth
    floors[full] = ranked.scores[(np.cumsum(ranked.sizes) - 1)[full]]
    return floors


def union_part(work: Work, number: int, translations: sp.csr_matrix) -> tuple[int, np.ndarray]:
    number, shards = work.take(number)
    counts = sum(union_counts(translations, part.open(work.keep).index.tf).astype(np.int64) for _, part in shards)
    _held_is_no_leak()
    return number, np.asarray(counts, dtype=np.int64)


def _held_is_no_leak() -> None:
    """In a joblib loky worker, count the memory this process holds now (its open shards, their BM25 weights)
    as no leak.

    A loky worker exits when its memory has grown by more than 300 MB since its first task (joblib's guard
    against leaks, which reads the margin from ``_MAX_MEMORY_LEAK_SIZE`` at each check): open shards would
    trip it, and every search would reopen them in fresh workers. The margin becomes the memory held now
    plus the default; a real leak still trips it. Outside a loky worker this changes nothing."""
    import sys

    executor = sys.modules.get("joblib.externals.loky.process_executor")
    if executor is None or not getattr(executor, "_USE_PSUTIL", False) or not _SHARDS:
        return
    import psutil

    held = psutil.Process().memory_info().rss
    margin = max(getattr(executor, "_MAX_MEMORY_LEAK_SIZE", 0), held + int(3e8))
    executor._MAX_MEMORY_LEAK_SIZE = margin  # type: ignore[attr-defined]


# the shards a process has opened ------------------------------------------------------------------

_LOCK = threading.Lock()
_MANIFESTS: OrderedDict = OrderedDict()  # manifest identity -> ShardedIndex, in a worker process
_SHARDS: OrderedDict = OrderedDict()  # (manifest identity, shard file identity) -> _Shard, in a worker process


def task_part(index: ShardedIndex, number: int, here: bool) -> _Part:
    """What a task needs to search shard ``number`` of ``index``: in this process (``here``), the index, which
    keeps the shards it opens; in a worker process, the shard itself (built in memory) or where to open it."""
    if here:
        return _Part(owner=index, number=number)
    if index.shards is not None:
        return _Part(shard=opened_here(index, number))
    file = index._folder() / index.records[number]["file"]
    return _Part(manifest=_identity(str(index.path)), number=number, file=_identity(file), shown=str(index.path))


def opened_here(index: ShardedIndex, number: int) -> SearchableShard:
    """Shard ``number`` of ``index`` ready to search in this process, opened once (and kept by the index)."""
    with index._lock:
        opened = index._open.get(number)
    if opened is None:
        where = f"{index.path}: shard {number} ({index.records[number]['file']})" if index.path else f"shard {number}"
        opened = SearchableShard(index.shard(number), index.terms, index.collection_stats(), where)
        with index._lock:
            opened = index._open.setdefault(number, opened)
    return opened


def _identity(path: str | os.PathLike[str]) -> tuple:
    """``(absolute path, size, modification time)`` of a file: a rewritten file is another file."""
    stat = os.stat(path)
    return (os.path.abspath(path), stat.st_size, stat.st_mtime_ns)


def _opened(part: _Part, keep: int) -> SearchableShard:
    """The process's open shard of ``part``, opening it (and its manifest) if needed; at most ``keep``
    shards stay open (the least recently used are closed first, so memory holds ``keep`` shards at most)."""
    assert part.manifest is not None and part.file is not None  # a part opened by a worker (task_part)
    key = (part.manifest, part.file)
    with _LOCK:
        if key in _SHARDS:
            _SHARDS.move_to_end(key)
            return _SHARDS[key]
        while len(_SHARDS) >= max(keep, 1):
            _SHARDS.popitem(last=False)
        manifest = _MANIFESTS.get(part.manifest)
    if manifest is None:
        manifest = cast(ShardedIndex, load_index(part.manifest[0]))  # or a ShardedProjectedIndex
        if _identity(part.manifest[0]) != part.manifest:
            raise ClirkitError(f"{part.manifest[0]}: the sharded index changed during the search")
    try:
        shard = manifest._read_shard(part.number)
    except ClirkitError as e:  # named as the caller named the manifest, not by its absolute path
        raise ClirkitError(str(e).replace(part.manifest[0], part.shown, 1)) from None
    name = manifest.records[part.number]["file"]
    if _identity(Path(os.path.realpath(part.manifest[0])).parent / name) != part.file:
        raise ClirkitError(f"{part.manifest[0]}: shard {part.number} ({name}) changed during the search")
    opened = SearchableShard(
        shard, manifest.terms, manifest.collection_stats(), f"{part.manifest[0]}: shard {part.number} ({name})"
    )
    with _LOCK:
        _MANIFESTS[part.manifest] = manifest
        while len(_MANIFESTS) > 2:
            _MANIFESTS.popitem(last=False)
        opened = _SHARDS.setdefault(key, opened)
        _SHARDS.move_to_end(key)
        while len(_SHARDS) > max(keep, 1):
            _SHARDS.popitem(last=False)
    return opened
