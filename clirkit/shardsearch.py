"""Search over a sharded index (:mod:`clirkit.shards`): each shard scored where its worker runs, the results merged.

Search (:class:`ShardedBM25`): the queries are structured once over the whole vocabulary. A worker opens a
shard with its terms placed at their rows of the whole vocabulary (a longer ``indptr``, the postings
untouched) and scores it with :class:`~clirkit.bm25.BM25` given the whole collection's n_docs, avgdl and df
(:class:`~clirkit.bm25.CollectionStats`), so every document gets the float64 score it gets in the unsharded
index. Each shard returns its top ``depth`` per query; the merge orders them by score descending, ties in
shard order then in the shard's order (docid ascending: shards hold increasing docid ranges), and cuts at
``depth``: the unsharded run, byte for byte. Pirkola queries (``df_union``) first count, shard by shard, the
documents holding any of a term's translations, and give each shard the sums.

Shards run through :func:`clirkit.parallel.run_tasks`: joblib's ``loky`` worker processes, ``threading``, or
``dask`` on a distributed cluster (the workers open the shard files, so a cluster needs them on a shared file
system). Searching in this process (one job, or threads), the
:class:`~clirkit.shards.ShardedIndex` keeps the shards it opened; a loky or dask worker process keeps the
ceil(shards / jobs)
it opened last (keyed by path, size and modification time), and a task there takes a shard its worker holds
when one is left, so later searches find their shards open.
"""
from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.bm25 import (
    BM25,
    EPSILON,
    IDF,
    K1,
    K3,
    PRECISION,
    B,
    CollectionStats,
    check_settings,
    row_key,
    union_counts,
)
from clirkit.errors import ClirkitError
from clirkit.index import Index
from clirkit.parallel import check_backend, run_tasks
from clirkit.query import StructuredQueries
from clirkit.run import Run
from clirkit.shards import ShardedIndex, load_index

_MERGE_CELLS = 4_000_000  # padded (queries x rows) block of the merge


class ShardedBM25:
    """BM25 over a :class:`ShardedIndex`: the same parameters and :meth:`search` as :class:`~clirkit.bm25.BM25`,
    the same run as over the unsharded index."""

    def __init__(self, index: ShardedIndex, *, k1: float = K1, b: float = B, k3: float | None = K3, idf: str = IDF,
                 epsilon: float = EPSILON, precision: str = PRECISION) -> None:
        check_settings(k1=k1, b=b, k3=k3, idf=idf, epsilon=epsilon, precision=precision)
        self.index = index
        self.bm25_params = {"k1": k1, "b": b, "k3": k3, "idf": idf, "epsilon": epsilon, "precision": precision}

    def search(self, queries: StructuredQueries, *, depth: int = 1000, quiet: bool = True,
               tag: str = "clirkit") -> Run:
        """The top ``depth`` documents of every query over all the shards (score desc, ties by docid asc);
        a query that matches no document has no rows."""
        ix = self.index
        if depth < 1:
            raise ClirkitError(f"depth must be >= 1, got {depth}")
        if queries.translations.shape[1] != ix.n_terms:
            raise ValueError(f"structured queries address {queries.translations.shape[1]} target terms, "
                             f"the sharded index has {ix.n_terms}")
        check_backend(ix.backend)
        union = None
        if queries.df_union and queries.translations.nnz:  # Pirkola: documents holding any translation, summed
            counts = _run(_union_part, (queries.translations,), ix, "counting", quiet)
            union = _UnionDf(queries.translations, np.sum(counts, axis=0))
        found = _run(_search_part, (self.bm25_params, queries, depth, union), ix, "searching shards", quiet)
        return _merge(found, [ix._docids(i) for i in range(ix.n_shards)], queries.qids, depth, tag)


class ShardedQueryLikelihood(ShardedBM25):
    """The smoothed query likelihood (:class:`~clirkit.lm.QueryLikelihood`) over a :class:`ShardedIndex`: each
    shard scored with the whole collection's ``background`` (one p_bg per term of the whole vocabulary) and its
    documents' own lengths, the same run as over the unsharded index."""

    def __init__(self, index: ShardedIndex, background: np.ndarray, *, alpha: float,
                 precision: str = PRECISION) -> None:
        from clirkit.lm import checked_background

        self.index = index
        self.bm25_params = {"scoring": "lm", "alpha": alpha, "precision": precision,
                            "background": checked_background(background, alpha, index.n_terms)}

    def params(self) -> dict:
        return {"scoring": "lm", "alpha": self.bm25_params["alpha"], "precision": self.bm25_params["precision"]}


def _run(function, args: tuple, index: ShardedIndex, desc: str, quiet: bool) -> list:
    """``function(work, i, *args)`` for every shard i, in shard order, on the index's backend.

    Searching in this process (one job, threads), the index keeps the shards it opened; a loky or dask
    worker process keeps the ceil(shards / jobs) it opened last, and a task there takes a shard its worker
    holds if one is left (claimed by creating a file, :func:`_claims_folder`), so later searches find their
    shards open."""
    import shutil

    single = index.backend == "threading" or (index.jobs == 1 and index.backend != "dask")
    keep = index.n_shards if single else math.ceil(index.n_shards / index.jobs)
    parts = [_part(index, i, single) for i in range(index.n_shards)]
    claims = None if single or index.shards is not None else _claims_folder(index)
    if claims is not None:
        work = _Work(dict(enumerate(parts)), keep, claims)
        tasks = [(function, (work, i, *args), {}) for i in range(len(parts))]
    else:  # each task ships its own shard only (it may be in memory)
        tasks = [(function, (_Work({i: p}, keep), i, *args), {}) for i, p in enumerate(parts)]
    try:
        done = run_tasks(tasks, jobs=index.jobs, backend=index.backend, scheduler=index.scheduler, desc=desc,
                         unit="shard", quiet=quiet)
    finally:
        if claims is not None:
            shutil.rmtree(claims, ignore_errors=True)
    return [result for _, result in sorted(done, key=lambda d: d[0])]


def _claims_folder(index: ShardedIndex) -> str | None:
    """A new folder where the tasks of one search claim shards: in the temporary folder (loky: this machine),
    beside the manifest (dask: the workers share its file system), or None if it cannot be made there (each
    task then takes its own shard)."""
    import tempfile

    try:
        return tempfile.mkdtemp(prefix=".clirkit-claims-", dir=Path(index.path).parent if index.backend == "dask"
                                else None)
    except OSError:
        return None


def _merge(found: list[tuple[np.ndarray, np.ndarray, np.ndarray]], docids: Sequence[np.ndarray], qids: Sequence[str],
           depth: int, tag: str) -> Run:
    """One run of the shards' ``(query position, document position, score)`` rows (in shard order, each in
    rank order; ``docids``: each shard's): by query, score descending, ties in shard order then rank order
    (docid ascending), ``depth`` per query.

    The rows of a query are its shards' ranked lists one after the other; a stable sort of each query's
    row of -scores (padded with +inf, in blocks of queries) merges them, in about linear time."""
    qidx = np.concatenate([f[0] for f in found]).astype(np.int64)
    scores = np.concatenate([f[2] for f in found])
    by_query = np.argsort(qidx, kind="stable")  # interleaves the shards' runs; keeps shard order within a query
    counts = np.bincount(qidx, minlength=len(qids))
    starts = np.cumsum(counts) - counts
    picked = []
    step = max(1, _MERGE_CELLS // max(int(counts.max(initial=1)), 1))
    for lo in range(0, len(qids), step):
        n, width = counts[lo:lo + step], int(counts[lo:lo + step].max(initial=0))
        rows = np.repeat(np.arange(len(n)), n)
        first = by_query[starts[lo]:starts[lo] + int(n.sum())]
        key = np.full((len(n), width), np.inf)
        key[rows, np.arange(len(rows)) - np.repeat(np.cumsum(n) - n, n)] = -scores[first]
        top = np.argsort(key, axis=1, kind="stable")[:, :depth]
        picked.append(by_query[(starts[lo:lo + step, None] + top)[top < n[:, None]]])
    order = np.concatenate(picked) if picked else np.zeros(0, dtype=np.int64)
    shard_of = np.repeat(np.arange(len(found)), [len(f[0]) for f in found])[order]
    cols = np.concatenate([f[1] for f in found])[order]
    names = np.zeros(len(order), dtype=np.result_type(*docids) if docids else "<U1")
    for s, ids in enumerate(docids):  # the kept rows' docids, shard by shard
        mine = shard_of == s
        names[mine] = ids[cols[mine]]
    return Run(np.asarray(list(qids))[qidx[order]], names, scores[order], tag=tag)


@dataclass
class _Work:
    """What a task searches: shards by number (task i: shard i, unless it claims one), how many shards a
    process keeps open, and the folder where tasks claim shards (None: no claims)."""

    parts: dict[int, "_Part"]
    keep: int
    claims: str | None = None

    def take(self, number: int) -> tuple[int, "_Shard"]:
        """``(shard number, open shard)`` of task ``number``: with claims, the first shard left among those
        this process holds, else among all."""
        if self.claims is not None:
            with _LOCK:
                held = [i for i, p in self.parts.items() if (p.manifest, p.file) in _SHARDS]
            number = next(i for i in held + list(self.parts) if self._claim(i))
        return number, self.parts[number].open(self.keep)

    def _claim(self, number: int) -> bool:
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
    shard: "_Shard | None" = None
    manifest: tuple | None = None
    number: int = 0
    file: tuple | None = None

    def open(self, keep: int) -> "_Shard":
        """The shard, opened if needed (a worker process keeps at most ``keep`` open)."""
        if self.owner is not None:
            return _opened_here(self.owner, self.number)
        return self.shard if self.shard is not None else _opened(self, keep)


class _Shard:
    """A shard ready to search: its index with its terms at their rows of the whole vocabulary ``terms``,
    the whole collection's ``stats``, and the BM25 of the parameters used last."""

    def __init__(self, shard: Index, terms: np.ndarray, stats: CollectionStats, where: str) -> None:
        rows = np.searchsorted(terms, shard.terms)
        if len(rows) and (rows[-1] >= len(terms) or np.any(terms[np.minimum(rows, len(terms) - 1)] != shard.terms)):
            raise ClirkitError(f"{where} holds terms the whole vocabulary lacks: rebuild the index")
        counts = np.zeros(len(terms), dtype=np.int64)
        counts[rows] = np.diff(shard.tf.indptr)
        if np.any(counts > stats.df):
            raise ClirkitError(f"{where} holds more documents of a term than its df in the whole collection: "
                               f"rebuild the index")
        indptr = np.concatenate(([0], np.cumsum(counts))).astype(shard.tf.indptr.dtype)
        tf = sp.csr_matrix((shard.tf.data, shard.tf.indices, indptr), shape=(len(terms), shard.n_docs))
        tf.has_sorted_indices = True
        self.index = replace(shard, terms=terms, tf=tf, _vocabulary=None)  # a translated shard keeps its lengths
        self.stats, self.where = stats, where
        self._bm25: tuple[dict, BM25] | None = None
        self.lock = threading.Lock()

    def __getstate__(self) -> dict:  # shipped to a worker process: without the lock and the BM25 weights
        return {"index": self.index, "stats": self.stats, "where": self.where}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _bm25=None, lock=threading.Lock())

    def bm25(self, params: dict, union: "_UnionDf | None" = None) -> BM25:
        if union is not None:  # a Pirkola batch's own counts: a BM25 for this search only
            return BM25(self.index, **params, stats=replace(self.stats, union_df=union))
        if self._bm25 is None or not _same_params(self._bm25[0], params):
            self._bm25 = (dict(params), self._model(params))
        return self._bm25[1]

    def _model(self, params: dict) -> BM25:
        """BM25 over this shard with the collection's statistics, or the query likelihood (``scoring = lm``)
        with the collection's background and the documents' own lengths (a translated shard's)."""
        if params.get("scoring") != "lm":
            return BM25(self.index, **params, stats=self.stats)
        from clirkit.lm import QueryLikelihood

        return QueryLikelihood(self.index, params["background"], alpha=params["alpha"],
                               lengths=getattr(self.index, "source_lengths", None), precision=params["precision"])

    def search(self, params: dict, queries: StructuredQueries, depth: int,
               union: "_UnionDf | None") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(query position, document position in the shard, score)`` of the shard's top ``depth`` per query,
        in query then rank order (positions as int32: a quarter of the bytes of docids to send back)."""
        with self.lock:
            rows, cols, scores = self.bm25(params, union).search_positions(queries, depth=depth)
        return rows.astype(np.int32), cols.astype(np.int32), scores


def _same_params(a: dict, b: dict) -> bool:
    """Whether two scorings' parameters (values may be arrays: a background) are the same."""
    return a.keys() == b.keys() and all(
        np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) or isinstance(b[k], np.ndarray) else a[k] == b[k]
        for k in a)


class _UnionDf:
    """The Pirkola df of translation rows counted over the whole collection, found by each row's content
    (the rows BM25 asks about are rows of ``translations``)."""

    def __init__(self, translations: sp.csr_matrix, counts: np.ndarray) -> None:
        self.translations, self.counts = translations, np.asarray(counts, dtype=np.float64)
        self._table: dict | None = None

    def __getstate__(self) -> dict:
        return {"translations": self.translations, "counts": self.counts, "_table": None}

    def __call__(self, rows: sp.csr_matrix) -> np.ndarray:
        if self._table is None:
            t = self.translations
            self._table = {row_key(t, r): c for r, c in enumerate(self.counts.tolist())}
        return np.asarray([self._table[row_key(rows, r)] for r in range(rows.shape[0])], dtype=np.float64)


def _search_part(work: _Work, number: int, params: dict, queries: StructuredQueries, depth: int,
                 union: _UnionDf | None) -> tuple[int, tuple]:
    number, shard = work.take(number)
    found = shard.search(params, queries, depth, union)
    _held_is_no_leak()
    return number, found


def _union_part(work: _Work, number: int, translations: sp.csr_matrix) -> tuple[int, np.ndarray]:
    number, shard = work.take(number)
    counts = union_counts(translations, shard.index.tf).astype(np.int64)
    _held_is_no_leak()
    return number, counts


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
    executor._MAX_MEMORY_LEAK_SIZE = max(getattr(executor, "_MAX_MEMORY_LEAK_SIZE", 0), held + int(3e8))


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
    file = Path(index.path).parent / index.records[number]["file"]
    return _Part(manifest=_identity(index.path), number=number, file=_identity(file))


def _opened_here(index: ShardedIndex, number: int) -> _Shard:
    """Shard ``number`` of ``index`` ready to search in this process, opened once (and kept by the index)."""
    with index._lock:
        opened = index._open.get(number)
    if opened is None:
        where = f"shard {number}" if index.path is None else \
            f"{index.path}: shard {number} ({index.records[number]['file']})"
        opened = _Shard(index.shard(number), index.terms, index.collection_stats(), where)
        with index._lock:
            opened = index._open.setdefault(number, opened)
    return opened


def _identity(path: str | os.PathLike[str]) -> tuple:
    """``(absolute path, size, modification time)`` of a file: a rewritten file is another file."""
    stat = os.stat(path)
    return (os.path.abspath(path), stat.st_size, stat.st_mtime_ns)


def _opened(part: _Part, keep: int) -> _Shard:
    """The process's open shard of ``part``, opening it (and its manifest) if needed; at most ``keep``
    shards stay open (the least recently used are closed first, so memory holds ``keep`` shards at most)."""
    key = (part.manifest, part.file)
    with _LOCK:
        if key in _SHARDS:
            _SHARDS.move_to_end(key)
            return _SHARDS[key]
        while len(_SHARDS) >= max(keep, 1):
            _SHARDS.popitem(last=False)
        manifest = _MANIFESTS.get(part.manifest)
    if manifest is None:
        manifest = load_index(part.manifest[0])  # a ShardedIndex, or a ShardedProjectedIndex
        if _identity(part.manifest[0]) != part.manifest:
            raise ClirkitError(f"{part.manifest[0]}: the sharded index changed during the search")
    shard = manifest._read_shard(part.number)
    name = manifest.records[part.number]["file"]
    if _identity(Path(part.manifest[0]).parent / name) != part.file:
        raise ClirkitError(f"{part.manifest[0]}: shard {part.number} ({name}) changed during the search")
    opened = _Shard(shard, manifest.terms, manifest.collection_stats(), f"{part.manifest[0]}: shard {part.number} "
                    f"({name})")
    with _LOCK:
        _MANIFESTS[part.manifest] = manifest
        while len(_MANIFESTS) > 2:
            _MANIFESTS.popitem(last=False)
        opened = _SHARDS.setdefault(key, opened)
        _SHARDS.move_to_end(key)
        while len(_SHARDS) > max(keep, 1):
            _SHARDS.popitem(last=False)
    return opened
