"""Sharded indexes: a collection split by docid into shards searched in parallel, ranking as one index would.

A sharded index is a manifest file (``NAME.npz``, kind ``sharded-index``) beside its shard files
(``NAME.shard-000.DIGEST.npz``, ...), each an ordinary index (:class:`~clirkit.retrieval.index.Index`) of a contiguous
docid range with its own vocabulary. The manifest holds what BM25 needs of the whole collection: the vocabulary
(sorted), each term's document and collection frequency, n_docs and avgdl, and a record of each shard (file
name, size, counts, first and last docid) checked when the shard is opened.

Writing is atomic as a whole: a shard is written under a temporary name, then renamed to a name holding the
digest of its bytes (so the same shard always has the same name, and a rebuild never writes over a shard the
current manifest names); the manifest is switched last (one atomic rename), and only then are the shards it
no longer names removed. An interrupted or killed rebuild leaves the previous index whole; what a killed one
left (temporaries of a process that is gone, shards no manifest names) is removed by the next write. One process
writes an index at a time (a lock file beside the manifest): a second is refused, so none removes the other's shards.

Searching is in :mod:`clirkit.retrieval.shardsearch` (:class:`~clirkit.retrieval.shardsearch.ShardedBM25`, from
:meth:`ShardedIndex.bm25`).
"""

from __future__ import annotations

import os
import threading
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence

import numpy as np

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError, counted
from clirkit.npzchecks import Corrupt, checking, require_analyzer, require_array, require_field
from clirkit.npzio import load_npz, member, remake, save_npz
from clirkit.parallel import BACKENDS, SEARCH_BACKEND, check_workers  # noqa: F401  (BACKENDS: searched with)
from clirkit.retrieval.index import TASK_DOCS, Index, check_terms_wanted, document_chunks, located_documents
from clirkit.retrieval.shardfiles import (  # noqa: F401  (PROJECTED_KIND, index_kind, shard_name, replacing_shards: here too)
    _TRANSLATED_RECORD,
    KIND,
    MANIFESTS,
    PROJECTED_KIND,
    _check_output,
    _checkpoint,
    _read_record,
    _replacing,
    _write_shard,
    contents_code,
    index_kind,
    named_digest_holds,
    replacing_shards,
    shard_name,
)
from clirkit.retrieval.stats import CollectionStats
from clirkit.sortedunique import sorted_unique

if TYPE_CHECKING:
    from clirkit.retrieval.shardsearch import ShardedBM25

FORMAT_VERSION = 1


@dataclass(eq=False)
class ShardedIndex:
    """A collection split into shards: the whole collection's statistics, and the shards.

    Attributes:
        terms: the whole vocabulary, str (n_terms,), sorted ascending.
        df: int64 (n_terms,): documents holding each term, in the whole collection.
        cf: int64 (n_terms,): tokens of each term in the whole collection (for corpus-derived stoplists).
        n_docs: documents in the whole collection; avgdl: their mean length in tokens.
        analyzer: the analyzer that made the terms (all shards share it).
        records: one dict per shard, in docid order: ``n_docs``, ``n_terms``, ``n_postings``,
            ``first_docid``, ``last_docid`` (and ``file``, ``bytes`` once saved).
        shards: the shards in memory (a built index), or None (a loaded one: its workers open the files).
        path: the manifest file (a saved or loaded index), or None.
        jobs, backend, scheduler: how searches run: joblib workers (``n_jobs``); ``threading`` (the default:
            one block of the queries per thread, over every shard), ``loky`` (a run of shards per worker process)
            or ``dask``, and for dask the scheduler address or a ``distributed.Client``.
    """

    terms: np.ndarray
    df: np.ndarray
    cf: np.ndarray
    n_docs: int
    avgdl: float
    analyzer: Analyzer
    records: list[dict]
    shards: list[Index] | None = None
    path: str | None = None
    jobs: int = 1
    backend: str = SEARCH_BACKEND
    scheduler: object = None
    _vocabulary: dict | None = field(default=None, repr=False, compare=False)
    _open: dict = field(default_factory=dict, repr=False, compare=False)  # shard number -> _Shard opened here
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _names: dict = field(default_factory=dict, repr=False, compare=False)  # shard number -> docids read here

    kind = KIND  # the manifest's npz kind
    sharded = True  # an Index says False
    translated = False  # a ShardedProjectedIndex (clirkit.docpsq) says True
    shard_type = Index  # the class of its shards (their files' kind)
    remedy = "rebuild the index with `clirkit index --shards N`"  # what to do about a missing or damaged shard

    @property
    def n_terms(self) -> int:
        return len(self.terms)

    @property
    def n_shards(self) -> int:
        return len(self.records)

    @property
    def vocabulary(self) -> dict[str, int]:
        """Term -> row id in the whole vocabulary."""
        if self._vocabulary is None:
            self._vocabulary = {t: i for i, t in enumerate(self.terms.tolist())}
        return self._vocabulary

    def stats(self) -> dict:
        """Counts describing the whole collection (as :meth:`Index.stats`)."""
        return {
            "n_docs": self.n_docs,
            "n_terms": self.n_terms,
            "n_postings": int(self.df.sum()),
            "n_tokens": int(self.cf.sum()),
            "avgdl": self.avgdl,
        }

    def collection_stats(self) -> CollectionStats:
        """What BM25 takes from the whole collection when it scores one shard."""
        return CollectionStats(n_docs=self.n_docs, avgdl=self.avgdl, df=self.df)

    def most_frequent_terms(self, n: int) -> list[str]:
        """The ``n`` terms of highest collection frequency, ties by term
        (:func:`clirkit.retrieval.index.most_frequent_terms`)."""
        check_terms_wanted(n)
        order = np.lexsort((np.arange(self.n_terms), -self.cf))[:n]
        return self.terms[order].tolist()

    def bm25(self, **params) -> "ShardedBM25":
        """BM25 (:class:`~clirkit.retrieval.bm25.BM25`'s parameters) over all the shards
        (:class:`clirkit.retrieval.shardsearch.ShardedBM25`, by :func:`clirkit.retrieval.indexkinds.bm25`)."""
        from clirkit.retrieval.indexkinds import bm25

        return bm25(self, **params)

    # building -----------------------------------------------------------------------------------

    @classmethod
    def split(cls, index: Index, shards: int | None = None, *, starts: Sequence[int] | None = None) -> "ShardedIndex":
        """``index`` split into ``shards`` contiguous docid ranges of (nearly) equal size, or ranges starting
        at the document positions ``starts`` (``[0, ...]``, increasing). A shard keeps only the terms it holds;
        the vocabulary, df and avgdl are ``index``'s, so searching the shards ranks as searching ``index``."""
        n = index.n_docs
        if starts is None:
            if shards is None or not 1 <= shards <= n:
                raise ClirkitError(f"cannot split {n} documents into {shards} shards: give 1 to {n}")
            starts = [(i * n) // shards for i in range(shards)]
        bounds = np.append(np.asarray(starts, dtype=np.int64), n)
        if len(bounds) < 2 or bounds[0] != 0 or np.any(np.diff(bounds) < 1):
            raise ClirkitError(
                f"shard starts must be increasing document positions from 0 below {n}, got {list(starts)}"
            )
        parts = []
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            tf = index.tf[:, lo:hi].tocsr()
            rows = np.flatnonzero(np.diff(tf.indptr) > 0)
            tf = tf[rows]
            tf.sort_indices()
            parts.append(cls._cut(index, lo, hi, rows, tf))
        cf = np.asarray(index.tf.sum(axis=1, dtype=np.int64)).ravel()
        return cls(index.terms, index.df, cf, n, index.avgdl, index.analyzer, [_record(p) for p in parts], shards=parts)

    @classmethod
    def _cut(cls, index: Index, lo: int, hi: int, rows: np.ndarray, tf) -> Index:
        """The shard of ``index``'s documents ``lo:hi``, holding its terms ``rows`` (their counts ``tf``)."""
        return Index(
            _narrow(index.docids[lo:hi]), _narrow(index.terms[rows]), tf, index.doc_lengths[lo:hi], index.analyzer
        )

    @classmethod
    def from_shards(cls, shards: Sequence[Index]) -> "ShardedIndex":
        """A sharded index of indexes built apart (same analyzer, disjoint docid ranges; taken in docid
        order). The vocabulary is the union of the terms holding postings; df, cf and avgdl are summed over
        the shards, so it ranks as one index of all their documents would."""
        parts = sorted((_dense(s) for s in shards), key=lambda s: str(s.docids[0]) if s.n_docs else "")
        if not parts or any(p.n_docs == 0 for p in parts):
            raise ClirkitError("a sharded index needs at least one shard, each with documents")
        for a, b in zip(parts, parts[1:]):
            if a.analyzer != b.analyzer:
                raise ClirkitError("the shards were made by different analyzers: index them with the same settings")
            if not a.docids[-1] < b.docids[0]:
                raise ClirkitError(
                    f"the shards' docid ranges overlap ({a.docids[0]!s}..{a.docids[-1]!s} and "
                    f"{b.docids[0]!s}..{b.docids[-1]!s}): each shard must hold a docid range"
                )
        return cls._merged([_Summary.of(p) for p in parts], parts[0].analyzer, shards=parts)

    @classmethod
    def _merged(cls, parts: Sequence["_Summary"], analyzer: Analyzer, **fields) -> "ShardedIndex":
        """The sharded index of shards summarized by ``parts`` (in docid order): the union of their terms, df
        and cf summed, avgdl over all their documents; ``fields`` as the constructor's."""
        terms = sorted_unique(np.concatenate([p.terms for p in parts]))
        df, cf = np.zeros(len(terms), dtype=np.int64), np.zeros(len(terms), dtype=parts[0].cf.dtype)
        for p in parts:
            rows = np.searchsorted(terms, p.terms)
            df[rows] += p.df
            cf[rows] += p.cf
        lengths = np.concatenate([p.doc_lengths for p in parts])  # the whole index's doc_lengths
        return cls(terms, df, cf, len(lengths), float(lengths.mean()), analyzer, [p.record for p in parts], **fields)

    @classmethod
    def build(
        cls,
        read_documents,
        shards: int,
        analyzer: Analyzer,
        path: str | os.PathLike[str],
        *,
        jobs: int = 1,
        quiet: bool = True,
        source: str | None = None,
    ) -> "ShardedIndex":
        """Index a collection one shard at a time and save it at ``path``, holding at most two shards in memory
        (one written by a thread while the next is made).

        ``read_documents()`` gives a fresh iterator of ``(docid, text)`` pairs or ``(lineno, docid, text)`` records
        (:func:`~clirkit.retrieval.index.located_documents`) each time it is called (a file read again): once for
        the document ids, which set the shards' docid ranges as :meth:`split` would, then once more if the file
        lists its documents by increasing docid (each shard's documents are the next ones), else once per shard,
        indexing only the documents of its range. The files are byte for byte those of ``split(Index.build(...),
        shards).save(path)``, and written as :meth:`save` writes them (atomically as a whole). ``source`` names the file
        in errors (:meth:`Index.build`). If a shard fails (a duplicate document id, Ctrl-C, ...), the shard files
        written are removed and the index that was at ``path`` is left as it was."""
        from clirkit.progress import say

        path = _check_output(path)
        given = read_documents
        read_documents = lambda: located_documents(given())  # noqa: E731
        ids = np.fromiter((docid for _, docid, _ in read_documents()), dtype=object)
        in_order = bool(np.all(ids[1:] > ids[:-1]))  # the file lists its documents by increasing docid
        ids = ids if in_order else np.sort(ids)
        if not 1 <= shards <= len(ids):
            raise ClirkitError(f"cannot split {len(ids)} documents into {shards} shards: give 1 to {len(ids)}")
        firsts = [ids[(i * len(ids)) // shards] for i in range(shards)] + [None]
        del ids
        written: list[str] = []
        parts: list[_Summary] = []

        def finish(i: int, shard: Index, write) -> None:  # shard i written: summarized, said
            saved = write.result()
            parts.append(_Summary.of(shard, saved))
            say(f"shard {i + 1} of {shards}: {counted(shard.n_docs, 'document')} -> {saved['file']}", quiet=quiet)

        made = (
            _in_order_shards(read_documents(), firsts, analyzer, jobs, source)
            if in_order
            else _shard_by_shard(read_documents, firsts, analyzer, jobs, source)
        )
        with _replacing(path, written):
            # each shard is written by a thread while the next one is made (the workers keep tokenizing): at
            # most two shards in memory; the writes end before _replacing cleans up after an error
            with ThreadPoolExecutor(max_workers=1) as writer:
                pending = None
                for i, shard in enumerate(made):
                    if pending is not None:
                        finish(*pending)
                    pending = (i, shard, writer.submit(_write_shard, shard, path, i, written))
                    del shard
                if pending is not None:
                    finish(*pending)
                pending = None
            index = cls._merged(parts, analyzer, path=str(path))
            index._write_manifest(path)
        return index

    # files --------------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the shards (``NAME.shard-000.DIGEST.npz``, ...) then the manifest ``path``, atomically as a
        whole: an error, Ctrl-C or a killed process leaves the index that was at ``path`` usable as it was (a
        symbolic link: the file it names is written, its shards beside that file)."""
        path = _check_output(path)
        records: list[dict] = []
        written: list[str] = []
        with _replacing(path, written):
            for i, record in enumerate(self.records):
                saved = _write_shard(self.shard(i), path, i, written)
                records.append({**{k: v for k, v in record.items() if k not in saved}, **saved})
            self.records = records
            self._write_manifest(path)

    def _write_manifest(self, path: str | os.PathLike[str]) -> None:
        _checkpoint("shards")
        header = {
            "analyzer": self.analyzer.to_dict(),
            "stats": self.stats(),
            "shards": self.records,
            **self._more_header(),
        }
        save_npz(path, self.kind, FORMAT_VERSION, header, {"terms": self.terms, "df": self.df, "cf": self.cf})
        self.path = str(path)

    def _more_header(self) -> dict:
        """What a kind of sharded index adds to the manifest's header."""
        return {}

    @classmethod
    def _more_fields(cls, header: Mapping) -> dict:
        """The constructor's fields read from what :meth:`_more_header` wrote (in a :func:`checking` block)."""
        return {}

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], *, jobs: int = 1, backend: str = SEARCH_BACKEND, scheduler=None
    ) -> "ShardedIndex":
        """Read the manifest written by :meth:`save`, checking it and that each shard file is there with its
        recorded size (the shards themselves are checked when a worker opens them). ``jobs``, ``backend``
        and ``scheduler`` set how searches run (:func:`~clirkit.parallel.check_workers`, first). A damaged manifest
        or a missing shard is a ClirkitError."""
        check_workers(jobs, backend)
        header, a = load_npz(path, cls.kind, (FORMAT_VERSION,), ("terms", "df", "cf"))
        with checking(path, cls.kind, remedy=True):
            analyzer = require_analyzer(header, "analyzer")
            n_docs = require_field(header, ("stats", "n_docs"), "int", min=1)
            avgdl = float(require_field(header, ("stats", "avgdl"), "number", min=0))
            n_shards = len(require_field(header, "shards", "list"))
            records = [_read_record(header, i) for i in range(n_shards)]
            if not records:
                raise Corrupt("header shards is empty")
            if sum(r["n_docs"] for r in records) != n_docs:
                raise Corrupt(
                    f"the shards hold {sum(r['n_docs'] for r in records)} documents, the header stats {n_docs}"
                )
            for i in range(1, n_shards):
                if not records[i - 1]["last_docid"] < records[i]["first_docid"]:
                    raise Corrupt(f"the docid ranges of shards {i - 1} and {i} are not increasing")
            terms = require_array(a, "terms", "str", sorted=True, unique=True)
            df = require_array(a, "df", "int", shape=(len(terms),), min=0, max=n_docs, dtype=np.int64)
            counts = cls.shard_type is Index  # whole tokens, or expected counts (fractional, below df)
            cf = require_array(
                a,
                "cf",
                "int" if counts else "number",
                shape=(len(terms),),
                min=0,
                dtype=np.int64 if counts else np.float64,
            )
            if counts and np.any(cf < df):
                raise Corrupt(f"cf is below df at {int(np.argmax(cf < df))}")
            _check_totals(header, records, df, cf, avgdl, counts)
            more = cls._more_fields(header)
        folder = Path(os.path.realpath(path)).parent  # (beside the file a link names)
        for i, r in enumerate(records):
            file = folder / r["file"]
            if not file.is_file():
                raise ClirkitError(f"{path}: shard {i} ({r['file']}) is missing from {folder}: {cls.remedy}")
            if file.stat().st_size != r["bytes"]:
                raise ClirkitError(
                    f"{path}: shard {i} ({r['file']}) has {file.stat().st_size} bytes, the "
                    f"manifest records {r['bytes']}: it was damaged or replaced; {cls.remedy}"
                )
        return cls(
            terms,
            df,
            cf,
            n_docs,
            avgdl,
            analyzer,
            records,
            path=str(path),
            jobs=jobs,
            backend=backend,
            scheduler=scheduler,
            **more,
        )

    def shard(self, number: int) -> Index:
        """Shard ``number`` as saved (its own vocabulary), from memory or read and checked against its record."""
        if self.shards is not None:
            return self.shards[number]
        return self._read_shard(number)

    def _read_shard(self, number: int) -> Index:
        record = self.records[number]
        file = self._folder() / record["file"]
        where = f"{self.path}: shard {number} ({record['file']})"
        recorded = record.get("contents")  # (none before 2026-11-30: the digest in the name, by a full read)
        if (recorded != contents_code(file)) if recorded is not None else not named_digest_holds(file):
            raise ClirkitError(
                f"{where} holds other contents than the manifest records: it was replaced (or the manifest "
                f"edited); {self.remedy}"
            )
        try:
            shard = self.shard_type.load(file)
        except ClirkitError as e:  # said of the shard of this manifest, with the sharded index's remedy
            problem = str(e).removeprefix(f"{file}: ").replace("check the path, or ", "")
            raise ClirkitError(f"{where}: {problem.replace(remake('index'), self.remedy)}") from None
        got = _record(shard)
        for key in ("n_docs", "n_terms", "n_postings", "first_docid", "last_docid", *_TRANSLATED_RECORD):
            if key not in record:  # a translated shard's own tokens, which manifests before them do not record
                continue
            if got.get(key) != record[key]:
                raise ClirkitError(
                    f"{where} has {key} {got.get(key)!r}, the manifest records {record[key]!r}: it was "
                    f"replaced or edited; {self.remedy}"
                )
        if shard.analyzer != self.analyzer:
            raise ClirkitError(f"{where} was made by another analyzer than the manifest records: {self.remedy}")
        return shard

    def _folder(self) -> Path:
        """The folder of the manifest (a sharded index read from a file, or saved: it has a path)."""
        if self.path is None:
            raise ClirkitError("a sharded index held in memory has no shard files: save it first")
        return Path(os.path.realpath(self.path)).parent  # (a link to a manifest: the shards are beside the file)

    def _docids(self, number: int) -> np.ndarray:
        """The docids of shard ``number``, which name the documents of the merged run: from memory, from the
        shard opened here, or read from the shard file (that array alone, checked against the record; its
        worker checked the whole file)."""
        if self.shards is not None:
            return self.shards[number].docids
        with self._lock:
            known = self._open[number].index.docids if number in self._open else self._names.get(number)
        if known is not None:
            return known
        record = self.records[number]
        where = f"{self.path}: shard {number} ({record['file']})"
        try:
            with np.load(self._folder() / record["file"], allow_pickle=False) as npz:
                ids = member(npz, "docids")
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            raise ClirkitError(f"{where}: cannot read its docids ({' '.join(str(exc).split())[:200]})") from None
        if (
            ids.dtype.kind != "U"
            or ids.shape != (record["n_docs"],)
            or str(ids[0]) != record["first_docid"]
            or str(ids[-1]) != record["last_docid"]
        ):
            raise ClirkitError(f"{where}: its docids are not those the manifest records: {self.remedy}")
        with self._lock:
            return self._names.setdefault(number, ids)

    def __getstate__(self) -> dict:  # picklable: without the shards opened here and the lock
        return {**self.__dict__, "_open": {}, "_lock": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _lock=threading.Lock())


# writing as a whole ----------------------------------------------------------------------------------


def _shard_by_shard(read_documents, firsts: list, analyzer: Analyzer, jobs: int, source: str | None) -> Iterator[Index]:
    """Each shard's index (docid ranges from ``firsts``, None after the last), the file read once per shard."""
    for lo, hi in zip(firsts[:-1], firsts[1:]):
        records = (r for r in read_documents() if lo <= r[1] and (hi is None or r[1] < hi))
        if source is None:  # Index.build takes (docid, text) pairs then
            records = ((docid, text) for _, docid, text in records)
        yield Index.build(records, analyzer, quiet=True, jobs=jobs, source=source)


def _in_order_shards(
    records: Iterator[tuple], firsts: list, analyzer: Analyzer, jobs: int, source: str | None
) -> Iterator[Index]:
    """Each shard's index from ``(lineno, docid, text)`` records in increasing docid order, read once: one
    stream of chunks, none across two shards, tokenized by ``jobs`` workers without a pause between shards."""
    from bisect import bisect_right
    from itertools import chain, groupby

    starts = firsts[1:-1]  # the first docid of each shard after the first
    by_shard = groupby(records, key=lambda record: bisect_right(starts, record[1]))
    chunks = chain.from_iterable(
        ((shard, chunk) for chunk in document_chunks(group, located=True, size=TASK_DOCS)) for shard, group in by_shard
    )
    stream = analyzer.tokenize_stream(chunks, lambda item: item[1][2], jobs=jobs)
    for _, done in groupby(stream, key=lambda item: item[0][0]):
        yield Index.from_tokenized(
            ((lines, ids, tokens) for (_, (lines, ids, _)), tokens in done), analyzer, source=source
        )


def _dense(index: Index) -> Index:
    """``index`` without its terms that hold no posting."""
    rows = np.flatnonzero(index.df > 0)
    if len(rows) == index.n_terms:
        return index
    return Index(index.docids, index.terms[rows], index.tf[rows], index.doc_lengths, index.analyzer)


def _narrow(strings: np.ndarray) -> np.ndarray:
    """A str array as narrow as its longest string (as a shard built on its own stores it)."""
    return strings.astype(f"U{max(1, int(np.char.str_len(strings).max(initial=0)))}")


@dataclass
class _Summary:
    """What the manifest needs of a shard: its terms, their df and cf, its documents' lengths and its record
    (with its file's name and size once saved)."""

    terms: np.ndarray
    df: np.ndarray
    cf: np.ndarray
    doc_lengths: np.ndarray
    record: dict

    @classmethod
    def of(cls, shard: Index, saved: dict | None = None) -> "_Summary":
        whole = shard.tf.dtype.kind in "iu"  # token counts, or expected counts (a translated index)
        cf = np.asarray(shard.tf.sum(axis=1, dtype=np.int64 if whole else np.float64)).ravel()
        return cls(shard.terms, shard.df, cf, shard.doc_lengths, {**_record(shard), **(saved or {})})


def _record(shard: Index) -> dict:
    record = {
        "n_docs": shard.n_docs,
        "n_terms": shard.n_terms,
        "n_postings": int(shard.tf.nnz),
        "first_docid": str(shard.docids[0]),
        "last_docid": str(shard.docids[-1]),
    }
    if shard.translated:  # the tokens of its documents in their own language (what the language model divides by)
        record["source_tokens"] = int(shard.own_lengths.sum())
    return record


def _check_totals(
    header: Mapping, records: list[dict], df: np.ndarray, cf: np.ndarray, avgdl: float, counts: bool
) -> None:
    """Check the manifest's df, cf and avgdl against the totals it records (raises :class:`Corrupt`): the postings
    of the shards (each record's ``n_postings``, checked against its shard when opened) are the sum of df and the
    header's ``stats.n_postings``; cf sums to ``stats.n_tokens``, and avgdl is ``n_tokens / n_docs``: exactly for
    token counts (``counts``: whole numbers, summed exactly), to 1e-9 relative for the expected counts of a
    translated index (``n_tokens`` their sum truncated; avgdl the mean of the documents' expected lengths, summed
    in another order). A value edited alone changes its sum; reading every shard's df to check each term's would
    cost a load of all their vocabularies."""
    n_docs = header["stats"]["n_docs"]
    n_postings = require_field(header, ("stats", "n_postings"), "int", min=0)
    n_tokens = require_field(header, ("stats", "n_tokens"), "int", min=0)
    held = sum(r["n_postings"] for r in records)
    if n_postings != held:
        raise Corrupt(f"header stats.n_postings is {n_postings} but the shards hold {held} postings")
    if int(df.sum()) != held:
        raise Corrupt(f"df sums to {int(df.sum())} but the shards hold {held} postings (one per document of a term)")
    total = cf.sum()
    if counts:
        if int(total) != n_tokens:
            raise Corrupt(f"cf sums to {int(total)} but header stats.n_tokens is {n_tokens}")
        if avgdl != n_tokens / n_docs:
            raise Corrupt(
                f"header stats.avgdl is {avgdl!r} but the {n_docs} documents hold {n_tokens} tokens "
                f"(avgdl {n_tokens / n_docs!r})"
            )
        return
    slack = 1e-9 * float(total)
    if not n_tokens - slack <= total < n_tokens + 1 + slack:
        raise Corrupt(f"cf sums to {float(total)!r} but header stats.n_tokens is {n_tokens}")
    if abs(avgdl * n_docs - total) > slack:
        raise Corrupt(
            f"cf sums to {float(total)!r} expected tokens but header stats.avgdl {avgdl!r} times n_docs {n_docs} is "
            f"{avgdl * n_docs!r}"
        )


def load_index(
    path: str | os.PathLike[str], *, jobs: int = 1, backend: str = SEARCH_BACKEND, scheduler=None, mmap: bool = False
) -> Index | ShardedIndex:
    """The index at ``path``: a :class:`ShardedIndex` (searched with ``jobs``, ``backend``, ``scheduler``)
    if it is a manifest (of a translated index: a :class:`~clirkit.docpsq.ShardedProjectedIndex`), else an
    :class:`~clirkit.retrieval.index.Index` (memory-mapped with ``mmap``; of a translated index in one file, a
    :class:`~clirkit.docpsq.ProjectedIndex`). ClirkitError first for a ``jobs`` or ``backend`` a search refuses."""
    check_workers(jobs, backend)
    kind = index_kind(path)
    from clirkit.retrieval.indexkinds import FILES, file_class, manifest_class

    if kind in MANIFESTS:
        return manifest_class(kind).load(path, jobs=jobs, backend=backend, scheduler=scheduler)
    if kind in FILES:  # an index translated into the queries' language (psq --save-index)
        return file_class(kind).load(path, mmap=mmap)
    return Index.load(path, mmap=mmap)


def as_index(index):
    """``index`` as an index: an index as it is (one file, shards, translated), a path opened by
    :func:`load_index`; ClirkitError naming what a system's ``fit`` takes otherwise."""
    if isinstance(index, (str, os.PathLike)):
        return load_index(index)
    if hasattr(index, "analyzer") and hasattr(index, "bm25"):
        return index
    raise ClirkitError(
        f"index: expected an index (clirkit.retrieval.index.Index, clirkit.retrieval.shards.load_index(path)) or an "
        f"index file's path, got {type(index).__name__}"
    )
