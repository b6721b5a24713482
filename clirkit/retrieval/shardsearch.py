"""Search over a sharded index (:mod:`clirkit.retrieval.shards`): each shard scored where its worker runs, the
results merged.

Search (:class:`ShardedBM25`): the queries are structured once over the whole vocabulary. A worker opens a
shard with its terms placed at their rows of the whole vocabulary (a longer ``indptr``, the postings
untouched) and scores it with :class:`~clirkit.retrieval.bm25.BM25` given the whole collection's n_docs, avgdl and df
(:class:`~clirkit.retrieval.bm25.CollectionStats`), so every document gets the float64 score it gets in the unsharded
index. The shards are cut into one group of consecutive shards per worker (:func:`shard_groups`); a task
searches its group's shards one after the other and merges each shard's top ``depth`` per query into the
group's as it comes (:func:`clirkit.retrieval.shardtasks.merged_over`: score descending, ties to the earlier
shard, whose docids are smaller, then in the shard's order), so a worker pays its fixed costs once and gives one
ranked list (of a block of queries); the groups' lists are merged the same way, in group order: the unsharded run,
byte for byte. Pirkola queries (``df_union``) first count, group by group, the documents holding any of a term's
translations, and give each shard the sums.

Groups run through :func:`clirkit.parallel.run_tasks` on joblib's ``loky`` worker processes or ``dask`` on a
distributed cluster (the workers open the shard files, so a cluster needs them on a shared file system); a loky
or dask worker process keeps the ceil(shards / groups) it opened last (keyed by path, size and modification time),
and a task there takes a group whose shards its worker holds when one is left, so later searches find their shards
open. Such a task searches its group block by block (about :data:`BLOCK_QUERIES` queries), leaving each block's
rows in a folder this process reads (:func:`_blocks_by_workers`; the tasks: :mod:`clirkit.retrieval.shardtasks`).
With one job, or ``threading``, the shards are searched in this process, which opens each once (the
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
import time
from functools import partial
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from clirkit.parallel import Background, check_workers, ordered_threads, run_tasks
from clirkit.retrieval.bm25params import EPSILON, IDF, K1, K3, PRECISION, B, check_settings
from clirkit.retrieval.query import StructuredQueries
from clirkit.retrieval.rankmerge import Ranked, merge_ranked, warm_merge
from clirkit.retrieval.searchableshard import SearchableShard, UnionDf
from clirkit.retrieval.shards import ShardedIndex
from clirkit.retrieval.shardtasks import (
    Work,
    claims_folder,
    merged_over,
    opened_here,
    search_part,
    task_part,
    union_part,
)
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
            counts = _run(union_part, (queries.translations,), ix, "counting", quiet)
            union = UnionDf(queries.translations, np.sum(counts, axis=0))
        if ix.backend == "threading" and _workers(ix) > 1 and queries.n_queries > 1:
            yield from _blocks_here(ix, self.bm25_params, queries, depth, union, quiet, tag)
        elif _in_process(ix):
            merged = merged_over(_here(ix), self.bm25_params, queries, depth, union, quiet)
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
        merged = merged_over(_here(index), params, queries.block(lo, hi), depth, union, True)
        return _named(merged, docids, queries.qids[lo:hi], tag)

    found = ordered_threads(searched, blocks, workers=workers)
    yield from progress(found, desc="searching", total=len(blocks), quiet=quiet, unit="block")


def _prepared(
    index: ShardedIndex, params: dict, union: "UnionDf | None", queries: StructuredQueries, number: int
) -> None:
    """Open shard ``number`` of ``index`` in this process and make what searching ``queries`` keeps (its
    posting weights), so that threads searching blocks of queries find it ready."""
    opened_here(index, number).ready(params, union, queries)


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
    return [(number, partial(opened_here, index, number)) for number in range(index.n_shards)]


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
    function,
    args: tuple,
    index: ShardedIndex,
    desc: str,
    quiet: bool,
    folder: str | None = None,
    aborts=None,
    groups: list[list[int]] | None = None,
) -> list:
    """``function(work, g, *args)`` for every group g of consecutive shards (:func:`shard_groups`, one per
    worker), in group order, on the index's backend.

    A task searches its group's shards one after the other and merges their results as it goes, so a worker
    pays its fixed costs once and sends back one ranked list. Searching in this process (one job, threads),
    the index keeps the shards it opened; a loky or dask worker process keeps the ceil(shards / groups) it
    opened last, and a task there takes a group its worker holds if one is left (claimed by creating a file,
    :func:`claims_folder`; ``folder``: one the caller made and removes), so later searches find their shards
    open. ``groups``: the caller's :func:`shard_groups` (a dask cluster's workers are counted by asking it)."""
    import shutil

    single = _in_process(index)
    groups = groups or shard_groups(index.n_shards, _workers(index))
    keep = index.n_shards if single else max(len(g) for g in groups)
    parts = [[task_part(index, i, single) for i in group] for group in groups]
    claims = None if single or index.shards is not None else (folder or claims_folder(index))
    here = single and len(groups) == 1
    if claims is not None:
        work = Work(dict(enumerate(parts)), dict(enumerate(groups)), keep, claims, quiet=quiet or not here)
        tasks: list[tuple] = [(function, (work, g, *args), {}) for g in range(len(groups))]
    else:  # each task ships its own group only (its shards may be in memory)
        tasks = [
            (function, (Work({g: p}, {g: groups[g]}, keep, quiet=quiet or not here), g, *args), {})
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


def _named(merged: Ranked, docids: Sequence[np.ndarray], qids: Sequence[str], tag: str) -> Run:
    """The run of the merged rows: each row's document named by its shard's ``docids``."""
    names = np.concatenate(docids) if docids else np.zeros(0, dtype="<U1")
    offsets = np.cumsum([0] + [len(ids) for ids in docids])
    positions = offsets[merged.parts] + merged.cols
    named = take_strings(names, positions)  # the shards' documents, each once per query
    return Run._from_groups(np.asarray(list(qids)), merged.sizes, named, merged.scores, tag=tag, pairs_known=True)


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
    dask, whose workers share its file system: :func:`claims_folder`, where the tasks claim their groups too,
    removed here, on a Ctrl-C too); this process merges the groups' rows of
    a block in group order (the run of the whole, block by block), names and gives them while the workers
    search the next blocks. Without such a folder, one run of every query from the groups' returned rows."""
    import shutil

    from clirkit.progress import progress

    n_blocks = -(-queries.n_queries // BLOCK_QUERIES)
    outbox = None if n_blocks < 2 or (index.backend == "dask" and index.path is None) else claims_folder(index)
    blocks = query_blocks(queries.n_queries, n_blocks if outbox is not None else 1)
    args = (search_part, (params, queries, depth, union, outbox, blocks), index, "searching shards")
    aborts: list = []  # (what stops the workers' tasks, once they run)
    groups = shard_groups(index.n_shards, _workers(index))
    searching = Background(_run, *args, quiet or outbox is not None, outbox, aborts, groups)  # (progress: blocks')
    try:
        docids = _ready_to_merge(index)  # (while the workers start and search)
        if outbox is None:
            found = searching.result()
        for block in progress(range(len(blocks)), desc="searching", quiet=quiet or outbox is None, unit="block"):
            if outbox is not None:
                found = [_left(outbox, group, block, searching) for group in range(len(groups))]
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
            if outbox is not None:  # at once, whatever a task writes: tasks waiting for room (dask's) then end
                os.rename(outbox, outbox + GONE)
            searching.result(timeout=60)
        raise
    finally:
        for folder in (outbox, f"{outbox}{GONE}") if outbox is not None else ():
            shutil.rmtree(folder, ignore_errors=True)


GONE = ".gone"  # the name a search's block folder takes when the search stops early


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
