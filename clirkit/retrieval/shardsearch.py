"""Search over a sharded index (:mod:`clirkit.retrieval.shards`): each shard scored where its worker runs, the
results merged.

Search (:class:`ShardedBM25`): the queries are structured once over the whole vocabulary. A worker opens a
shard with its terms placed at their rows of the whole vocabulary (a longer ``indptr``, the postings
untouched) and scores it with :class:`~clirkit.retrieval.bm25.BM25` given the whole collection's n_docs, avgdl and df
(:class:`~clirkit.retrieval.bm25.CollectionStats`), so every document gets the float64 score it gets in the unsharded
index. The shards are cut into one group of consecutive shards per worker (:func:`shard_groups`); a task
searches its group's shards one after the other and merges each shard's top ``depth`` per query into the
group's as it comes (:func:`clirkit.retrieval.rankmerge.merge_ranked`: score descending, ties to the earlier shard,
whose docids are smaller, then in the shard's order), so a worker pays its fixed costs once and gives one ranked
list (of a block of queries); the groups' lists are merged the same way, in group order: the unsharded run, byte for byte. Pirkola
queries (``df_union``) first count, group by group, the documents holding any of a term's translations, and give
each shard the sums.

Groups run through :func:`clirkit.parallel.run_tasks` on joblib's ``loky`` worker processes or ``dask`` on a
distributed cluster (the workers open the shard files, so a cluster needs them on a shared file system); a loky
or dask worker process keeps the ceil(shards / groups) it opened last (keyed by path, size and modification time),
and a task there takes a group whose shards its worker holds when one is left, so later searches find their shards
open. Such a task searches its group block by block (about :data:`BLOCK_QUERIES` queries), leaving each block's
rows in a folder this process reads (:func:`_blocks_by_workers`). With one job, or ``threading``, the shards are searched in this process, which opens each once (the
:class:`~clirkit.retrieval.shards.ShardedIndex` keeps them): ``threading`` cuts the queries into blocks of
consecutive queries (:func:`query_blocks`, at least one per worker), each block searched over every shard by a
thread, the shards' posting weights shared (the ranking kernel runs without the GIL), the blocks' runs put one
after the other: the rows of a query are the same whichever block holds it, so the run is the same.
:meth:`ShardedBM25.search_blocks` gives the blocks' runs as they come, so that a caller writes one while the
threads search the next.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, cast

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError
from clirkit.parallel import Background, check_workers, ordered_threads, run_tasks
from clirkit.retrieval.bm25 import union_counts
from clirkit.retrieval.bm25params import EPSILON, IDF, K1, K3, PRECISION, B, check_settings
from clirkit.retrieval.query import StructuredQueries
from clirkit.retrieval.rankmerge import Ranked, merge_ranked, warm_merge
from clirkit.retrieval.searchableshard import SearchableShard, UnionDf
from clirkit.retrieval.shards import ShardedIndex, load_index
from clirkit.retrieval.weightings import DEFAULT_ALPHA, Weighting, background_of, described
from clirkit.retrieval.weightings import weighting as find_weighting
from clirkit.run import Run, check_depth, take_strings


class ShardedBM25:
    """BM25 over a :class:`ShardedIndex`: the same parameters and :meth:`search` as
    :class:`~clirkit.retrieval.bm25.BM25`, the same run as over the unsharded index."""

    def __init__(
        self,
        index: ShardedIndex,
        *,
        k1: float = K1,
        b: float = B,
        k3: float | None = K3,
        idf: str = IDF,
        epsilon: float = EPSILON,
        precision: str = PRECISION,
        weighting: "str | Weighting" = "bm25",
        background: np.ndarray | None = None,
        alpha: float = DEFAULT_ALPHA,
    ) -> None:
        check_settings(k1=k1, b=b, k3=k3, idf=idf, epsilon=epsilon, precision=precision)
        self.index = index
        self.bm25_params: dict[str, Any] = {
            "k1": k1,
            "b": b,
            "k3": k3,
            "idf": idf,
            "epsilon": epsilon,
            "precision": precision,
        }
        self._weighting, self._alpha = find_weighting(weighting), alpha
        p_bg = background_of(self._weighting, background, alpha, index.n_terms)
        if self._weighting.name != "bm25":  # a shard's BM25 (clirkit.retrieval.bm25) takes these keywords as they are
            self.bm25_params["weighting"] = self._weighting  # the functions, not the name: a worker may lack one
            if p_bg is not None:
                self.bm25_params.update(alpha=alpha, background=p_bg)

    def params(self) -> dict:
        bm25 = {k: self.bm25_params[k] for k in ("k1", "b", "k3", "idf", "epsilon", "precision")}
        return described(self._weighting, self._alpha, bm25)

    def search(self, queries: StructuredQueries, *, depth: int = 1000, quiet: bool = True, tag: str = "clirkit") -> Run:
        """The top ``depth`` documents of every query over all the shards (score desc, ties by docid asc);
        a query that matches no document has no rows."""
        return _joined(list(self.search_blocks(queries, depth=depth, quiet=quiet, tag=tag)), tag)

    def search_blocks(
        self, queries: StructuredQueries, *, depth: int = 1000, quiet: bool = True, tag: str = "clirkit"
    ) -> Iterator[Run]:
        """:meth:`search`'s run as the runs of blocks of consecutive queries, in order, each given as soon as it is
        searched: with the ``threading`` backend and more than one worker, or by worker processes (loky, dask),
        blocks of about :data:`BLOCK_QUERIES` queries (:func:`_blocks_here`, :func:`_blocks_by_workers`),
        searched while the caller works on the blocks given (writes them); otherwise one run of every query."""
        ix = self.index
        check_depth(depth)
        if queries.translations.shape[1] != ix.n_terms:
            raise ValueError(
                f"structured queries address {queries.translations.shape[1]} target terms, "
                f"the sharded index has {ix.n_terms}"
            )
        check_workers(ix.jobs, ix.backend)  # (set after loading, too)
        union = None
        if queries.df_union and queries.translations.nnz:  # Pirkola: documents holding any translation, summed
            counts = _run(_union_part, (queries.translations,), ix, "counting", quiet)
            union = UnionDf(queries.translations, np.sum(counts, axis=0))
        if ix.backend == "threading" and _workers(ix) > 1 and queries.n_queries > 1:
            yield from _blocks_here(ix, self.bm25_params, queries, depth, union, quiet, tag)
        elif _in_process(ix):
            merged = _merged_over(_here(ix), self.bm25_params, queries, depth, union, quiet)
            yield _named(merged, _ready_to_merge(ix), queries.qids, tag)  # docids of the shards opened here
        else:
            yield from _blocks_by_workers(ix, self.bm25_params, queries, depth, union, quiet, tag)


class ShardedQueryLikelihood(ShardedBM25):
    """The smoothed query likelihood (:class:`~clirkit.retrieval.lm.QueryLikelihood`) over a :class:`ShardedIndex`: each
    shard scored with the whole collection's ``background`` (one p_bg per term of the whole vocabulary) and its
    documents' own lengths, the same run as over the unsharded index."""

    def __init__(
        self, index: ShardedIndex, background: np.ndarray, *, alpha: float, precision: str = PRECISION
    ) -> None:
        super().__init__(index, precision=precision, weighting="lm", background=background, alpha=alpha)


def _ready_to_merge(index: ShardedIndex) -> list[np.ndarray]:
    """The docids of every shard (from the shards opened in this process, else read from the shard files), the
    merge's compiled kernel loaded."""
    warm_merge()
    return [index._docids(i) for i in range(index.n_shards)]


def _in_process(index: ShardedIndex) -> bool:
    """Whether the shards are searched in this process (one job, or threads), not by worker processes."""
    return index.backend == "threading" or (index.jobs == 1 and index.backend != "dask")


def query_blocks(n_queries: int, workers: int) -> list[tuple[int, int]]:
    """The query positions cut into ``min(n_queries, workers)`` ranges ``(lo, hi)`` of consecutive queries, as
    equal as can be (at least one range): the queries a thread searches over every shard at a time."""
    n_blocks = max(1, min(n_queries, workers))
    bounds = [n_queries * k // n_blocks for k in range(n_blocks + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


BLOCK_QUERIES = 250  # queries a thread searches over every shard at a time (about 250k rows at depth 1000)


def _blocks_here(
    index: ShardedIndex,
    params: dict,
    queries: StructuredQueries,
    depth: int,
    union: "UnionDf | None",
    quiet: bool,
    tag: str,
) -> Iterator[Run]:
    """The runs of blocks of consecutive queries (:func:`query_blocks`: about :data:`BLOCK_QUERIES` each, at
    least one per worker), in order, searched over every shard by the ``threading`` backend's threads, the
    shards' models shared (the ranking kernel runs without the GIL).

    The threads first open and weight the shards (each takes the next shard left), then each searches a block
    over every shard and names its rows; while the caller works on the blocks given, the threads search the
    next ones. A query's rows are the same whichever block holds it, so the blocks' rows one after the other
    are the run of one block of every query."""
    from clirkit.progress import progress

    workers = _workers(index)
    if union is not None:
        union.ready()
    for _ in ordered_threads(partial(_prepared, index, params, union, queries), range(index.n_shards), workers=workers):
        pass
    docids = _ready_to_merge(index)
    blocks = query_blocks(queries.n_queries, max(workers, -(-queries.n_queries // BLOCK_QUERIES)))

    def searched(block: tuple[int, int]) -> Run:
        lo, hi = block
        merged = _merged_over(_here(index), params, queries.block(lo, hi), depth, union, True)
        return _named(merged, docids, queries.qids[lo:hi], tag)

    found = ordered_threads(searched, blocks, workers=workers)
    yield from progress(found, desc="searching", total=len(blocks), quiet=quiet, unit="block")


def _prepared(
    index: ShardedIndex, params: dict, union: "UnionDf | None", queries: StructuredQueries, number: int
) -> None:
    """Open shard ``number`` of ``index`` in this process and make what searching ``queries`` keeps (its
    posting weights), so that threads searching blocks of queries find it ready."""
    _opened_here(index, number).ready(params, union, queries)


def _joined(runs: list[Run], tag: str) -> Run:
    """The run of ``runs`` (of blocks of consecutive queries) one after the other."""
    if len(runs) == 1:
        return runs[0]
    sizes = np.concatenate([run.query_sizes() for run in runs])
    return Run._made(
        np.concatenate([run.qids for run in runs]),
        np.concatenate([run.docids for run in runs]),
        np.concatenate([run.scores for run in runs]),
        tag,
        groups=(np.concatenate(([0], np.cumsum(sizes))), np.concatenate([run._query_order for run in runs])),
        pairs_known=True,
    )


def _here(index: ShardedIndex) -> list[tuple[int, Callable[[], "SearchableShard"]]]:
    """Every shard of ``index`` by number, opened in this process when first searched (and kept by the index)."""
    return [(number, partial(_opened_here, index, number)) for number in range(index.n_shards)]


def _merged_over(
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
        floors = None if merged is None else _full_at(merged, depth)
        found = Ranked.of_part(number, *opened().search(params, queries, depth, union, floors))
        merged = found if merged is None else merge_ranked(merged, found, depth)
    assert merged is not None  # an index holds at least one shard
    return merged


def shard_groups(n_shards: int, workers: int) -> list[list[int]]:
    """The shards' numbers cut into ``min(n_shards, workers)`` runs of consecutive shards, as equal as can be
    (the first ones one longer): the shards one task searches, one after the other."""
    n_groups = max(1, min(n_shards, workers))
    bounds = [n_shards * g // n_groups for g in range(n_groups + 1)]
    return [list(range(bounds[g], bounds[g + 1])) for g in range(n_groups)]


def _workers(index: ShardedIndex) -> int:
    """How many tasks share the shards: the dask cluster's workers, else the joblib workers ``jobs`` stands for
    (-1: one per core; at most one per core: :func:`clirkit.parallel.processes`)."""
    if index.backend == "dask":
        from clirkit.parallel import dask_workers

        return dask_workers(index.scheduler)
    if index.jobs == 1:
        return 1
    from clirkit.parallel import processes

    return processes(index.jobs)


def _run(
    function, args: tuple, index: ShardedIndex, desc: str, quiet: bool, folder: str | None = None, aborts=None
) -> list:
    """``function(work, g, *args)`` for every group g of consecutive shards (:func:`shard_groups`, one per
    worker), in group order, on the index's backend.

    A task searches its group's shards one after the other and merges their results as it goes, so a worker
    pays its fixed costs once and sends back one ranked list. Searching in this process (one job, threads),
    the index keeps the shards it opened; a loky or dask worker process keeps the ceil(shards / groups) it
    opened last, and a task there takes a group its worker holds if one is left (claimed by creating a file,
    :func:`_claims_folder`; ``folder``: one the caller made and removes), so later searches find their shards
    open."""
    import shutil

    single = _in_process(index)
    groups = shard_groups(index.n_shards, _workers(index))
    keep = index.n_shards if single else max(len(g) for g in groups)
    parts = [[_part(index, i, single) for i in group] for group in groups]
    claims = None if single or index.shards is not None else (folder or _claims_folder(index))
    here = single and len(groups) == 1
    if claims is not None:
        work = _Work(dict(enumerate(parts)), dict(enumerate(groups)), keep, claims, quiet=quiet or not here)
        tasks: list[tuple] = [(function, (work, g, *args), {}) for g in range(len(groups))]
    else:  # each task ships its own group only (its shards may be in memory)
        tasks = [
            (function, (_Work({g: p}, {g: groups[g]}, keep, quiet=quiet or not here), g, *args), {})
            for g, p in enumerate(parts)
        ]
    try:
        done = run_tasks(
            tasks,
            jobs=index.jobs,
            backend=index.backend,
            scheduler=index.scheduler,
            desc=desc,
            unit="group",
            quiet=quiet,
            share_arrays=False,  # (queries: small, sent; run from a thread by _blocks_by_workers)
            aborts=aborts,
        )
    finally:
        if claims is not None and folder is None:
            shutil.rmtree(claims, ignore_errors=True)
    return [result for _, result in sorted(done, key=lambda d: d[0])]


def _claims_folder(index: ShardedIndex) -> str | None:
    """A new folder where the tasks of one search claim shards: in the temporary folder (loky: this machine),
    beside the manifest (dask: the workers share its file system), or None if it cannot be made there (each
    task then takes its own shard)."""
    import tempfile

    try:
        return tempfile.mkdtemp(prefix=".clirkit-claims-", dir=index._folder() if index.backend == "dask" else None)
    except OSError:
        return None


def _named(merged: Ranked, docids: Sequence[np.ndarray], qids: Sequence[str], tag: str) -> Run:
    """The run of the merged rows: each row's document named by its shard's ``docids``."""
    names = np.concatenate(docids) if docids else np.zeros(0, dtype="<U1")
    offsets = np.cumsum([0] + [len(ids) for ids in docids])
    positions = offsets[merged.parts] + merged.cols
    named = take_strings(names, positions)  # the shards' documents, each once per query
    return Run._from_groups(np.asarray(list(qids)), merged.sizes, named, merged.scores, tag=tag, pairs_known=True)


@dataclass
class _Work:
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
            return _opened_here(self.owner, self.number)
        return self.shard if self.shard is not None else _opened(self, keep)


def _search_part(
    work: _Work,
    number: int,
    params: dict,
    queries: StructuredQueries,
    depth: int,
    union: UnionDf | None,
    outbox: str | None = None,
    blocks: Sequence[tuple[int, int]] = (),
) -> tuple[int, Ranked | None]:
    """The group's shards searched one after the other in a worker process, their top ``depth`` rows merged
    as each comes (:func:`_merged_over`): returned, or with an ``outbox`` folder, for each of ``blocks`` (query
    ranges) in turn, left there as ``GROUP.BLOCK.npz`` (:func:`_leave`) and None returned."""
    number, shards = work.take(number)
    opened = [(shard_number, partial(part.open, work.keep)) for shard_number, part in shards]
    if outbox is None:
        merged = _merged_over(opened, params, queries, depth, union, work.quiet)
        _held_is_no_leak()
        return number, merged
    for block, (lo, hi) in enumerate(blocks):
        _leave(_merged_over(opened, params, queries.block(lo, hi), depth, union, True), outbox, number, block)
    _held_is_no_leak()
    return number, None


def _leave(ranked: Ranked, outbox: str, group: int, block: int) -> None:
    """Write ``ranked`` into ``outbox`` as ``GROUP.BLOCK.npz``, whole when the name appears (written under
    another name, then renamed)."""
    path = os.path.join(outbox, f"{group}.{block}.npz")
    np.savez(path + ".part.npz", **ranked._asdict())
    os.replace(path + ".part.npz", path)


def _blocks_by_workers(
    index: ShardedIndex,
    params: dict,
    queries: StructuredQueries,
    depth: int,
    union: UnionDf | None,
    quiet: bool,
    tag: str,
) -> Iterator[Run]:
    """The runs of blocks of consecutive queries (about :data:`BLOCK_QUERIES` each), in order, searched by
    worker processes (loky, dask), each over its group of shards (:func:`_run`), block after block.

    A task leaves each block's rows in a file of a new folder (on this machine for loky, beside the manifest for
    dask, whose workers share its file system: :func:`_claims_folder`, where the tasks claim their groups too,
    removed here, on a Ctrl-C too); this process merges the groups' rows of
    a block in group order (the run of the whole, block by block), names and gives them while the workers
    search the next blocks. Without such a folder, one run of every query from the groups' returned rows."""
    import shutil

    from clirkit.progress import progress

    n_blocks = -(-queries.n_queries // BLOCK_QUERIES)
    outbox = None if n_blocks < 2 or (index.backend == "dask" and index.path is None) else _claims_folder(index)
    blocks = query_blocks(queries.n_queries, n_blocks if outbox is not None else 1)
    args = (_search_part, (params, queries, depth, union, outbox, blocks), index, "searching shards")
    aborts: list = []  # (what stops the workers' tasks, once they run)
    searching = Background(_run, *args, quiet or outbox is not None, outbox, aborts)  # (progress: the blocks')
    groups = len(shard_groups(index.n_shards, _workers(index)))
    try:
        docids = _ready_to_merge(index)  # (while the workers start and search)
        if outbox is None:
            found = searching.result()
        for block in progress(range(len(blocks)), desc="searching", quiet=quiet or outbox is None, unit="block"):
            if outbox is not None:
                found = [_left(outbox, group, block, searching) for group in range(groups)]
            merged = found[0]
            for more in found[1:]:  # groups in shard order: ties go to the earlier group, the smaller docids
                merged = merge_ranked(merged, more, depth)
            lo, hi = blocks[block]
            yield _named(merged, docids, queries.qids[lo:hi], tag)
        searching.result()  # (an error after the last block)
    except BaseException:  # a Ctrl-C, or the caller's error: the workers' tasks stopped before this ends
        with contextlib.suppress(BaseException):
            for abort in aborts if not searching.done() else ():
                abort()
            searching.result(timeout=60)
        raise
    finally:
        if outbox is not None:
            shutil.rmtree(outbox, ignore_errors=True)


def _left(outbox: str, group: int, block: int, searching: Background) -> Ranked:
    """The rows of ``block`` that ``group``'s task left in ``outbox`` (waiting for them; the file removed once
    read), or the error that ended the search."""
    path = os.path.join(outbox, f"{group}.{block}.npz")
    wait = 0.001
    while not os.path.exists(path):
        if searching.done():
            searching.result()  # its error, if any
            if not os.path.exists(path):
                raise RuntimeError(f"the search ended without leaving block {block} of group {group}")
        time.sleep(wait)
        wait = min(2 * wait, 0.02)
    with np.load(path) as left:
        ranked = Ranked(*(left[name] for name in Ranked._fields))
    os.unlink(path)
    return ranked


def _full_at(ranked: Ranked, depth: int) -> np.ndarray:
    """Per query, the score of its ``depth``-th row, or -inf if it has fewer rows."""
    floors = np.full(len(ranked.sizes), -np.inf)
    full = ranked.sizes >= depth
    floors[full] = ranked.scores[(np.cumsum(ranked.sizes) - 1)[full]]
    return floors


def _union_part(work: _Work, number: int, translations: sp.csr_matrix) -> tuple[int, np.ndarray]:
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


def _part(index: ShardedIndex, number: int, here: bool) -> _Part:
    """What a task needs to search shard ``number`` of ``index``: in this process (``here``), the index, which
    keeps the shards it opens; in a worker process, the shard itself (built in memory) or where to open it."""
    if here:
        return _Part(owner=index, number=number)
    if index.shards is not None:
        return _Part(shard=_opened_here(index, number))
    file = index._folder() / index.records[number]["file"]
    return _Part(manifest=_identity(str(index.path)), number=number, file=_identity(file), shown=str(index.path))


def _opened_here(index: ShardedIndex, number: int) -> SearchableShard:
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
    assert part.manifest is not None and part.file is not None  # a part opened by a worker (_part)
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
    if _identity(Path(part.manifest[0]).parent / name) != part.file:
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
