"""A run held as integer codes: its queries once with their row counts, its documents as codes into their distinct
ids. What the experiment runner keeps of every run it makes, and what its systems make a split's run as, so that a
run of millions of rows never holds the two id strings of every row (numpy's fixed-width strings: 4 bytes a
character of the longest id, 300 bytes a row for a 75-character query id)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Iterable, Iterator

import numpy as np

from clirkit.errors import ClirkitError, counted
from clirkit.run import Run, check_depth
from clirkit.runchecks import split_query


class PackedRun:
    """A :class:`~clirkit.run.Run` held compactly: 12 bytes a row (an int32 document code and a float64 score)
    instead of the two id strings of every row; :meth:`unpack` gives back the same run, arrays of the same values
    and dtypes.

    Attributes:
        query_order: the run's queries in its order, each once (str array; a query with no rows is not here).
        sizes: the number of rows of each (int64, each >= 1).
        documents: the distinct document ids the rows name (str array).
        codes: each row's document, as its position in ``documents`` (int32, or int64 beyond 2^31 documents).
        scores: each row's score (float64), rows grouped by query in rank order as in a Run.
        tag: the run's name.
    """

    def __init__(self, run: Run) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        if not isinstance(run, Run):
            raise ClirkitError(f"PackedRun: expected a clirkit Run, got {type(run).__name__}")
        encoded = pc.dictionary_encode(pa.array(run.docids, type=pa.large_string()))  # hashing, not a sort
        self.codes = encoded.indices.to_numpy().astype(np.int32, copy=False)
        self.documents = np.asarray(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=run.docids.dtype)
        self.query_order, self.sizes = run._query_order, run.query_sizes()
        self.scores, self.tag = run.scores, run.tag

    @classmethod
    def of(cls, run: "Run | PackedRun") -> "PackedRun":
        """``run`` packed (a packed run as it is)."""
        return run if isinstance(run, PackedRun) else cls(run)

    @classmethod
    def from_codes(cls, query_ids, sizes, documents, codes, scores, *, tag: str) -> "PackedRun":
        """The packed run of rows already in a :class:`~clirkit.run.Run`'s order, given as codes: query
        ``query_ids[i]`` owns the next ``sizes[i]`` rows (a query of 0 rows is left out), row j names document
        ``documents[codes[j]]``. ClirkitError for what a :class:`~clirkit.run.Run` refuses (a query in two groups,
        scores rising within a query or not finite numbers, a pair listed twice) and for counts and codes that do
        not fit (sizes not one per query or negative, a code outside ``documents``).
        """
        packed = object.__new__(cls)
        sizes, query_ids = np.atleast_1d(np.asarray(sizes)), np.atleast_1d(np.asarray(query_ids, dtype=str))
        if sizes.ndim != 1 or len(sizes) != len(query_ids) or sizes.dtype.kind not in "iu" or (sizes < 0).any():
            raise ClirkitError(
                f"packed run: row counts {sizes.tolist()!r:.60} for {counted(len(query_ids), 'query', 'queries')}: "
                "give one count per query, an integer >= 0"
            )
        sizes = sizes.astype(np.int64)
        kept = sizes > 0
        packed.query_order = query_ids[kept] if len(sizes) else np.zeros(0, dtype=str)
        packed.sizes = sizes[kept]
        packed.documents = np.asarray(documents, dtype=str)
        codes = np.asarray(codes)
        packed.codes = codes.astype(np.int32 if len(packed.documents) < 2**31 else np.int64, copy=False)
        packed.scores, packed.tag = np.asarray(scores, dtype=np.float64), tag
        if not (int(packed.sizes.sum()) == len(packed.codes) == len(packed.scores)):
            raise ClirkitError(
                f"packed run: sizes summing to {int(packed.sizes.sum())} for {len(packed.codes)} codes and "
                f"{len(packed.scores)} scores"
            )
        if not np.isfinite(packed.scores).all():
            raise ClirkitError("packed run: a score that is not a finite number")
        packed._check_rows()
        return packed

    def _check_rows(self) -> None:
        """ClirkitError for a code outside the documents, a query in two groups, scores rising within a query, or
        a (query, document) pair listed twice."""
        if len(self.codes) and (self.codes.min() < 0 or self.codes.max() >= len(self.documents)):
            raise ClirkitError(f"packed run: a document code outside the {len(self.documents)} documents")
        if len(np.unique(self.query_order)) != len(self.query_order):
            raise ClirkitError("packed run: a query has two groups of rows")
        group = np.repeat(np.arange(len(self.sizes)), self.sizes)
        if ((self.scores[1:] > self.scores[:-1]) & (group[1:] == group[:-1])).any():
            raise ClirkitError("packed run: scores rise within a query (a run's rows are in rank order)")
        keys = np.sort(group * max(len(self.documents), 1) + self.codes)
        if (keys[1:] == keys[:-1]).any():
            raise ClirkitError("packed run: a query lists a document twice")

    @classmethod
    def concat(cls, parts: Iterable["PackedRun"], *, tag: str) -> "PackedRun":
        """One packed run of ``parts`` (runs of different queries, in this order): the run of their rows one part
        after the other. ClirkitError for a query in two parts."""
        parts = list(parts)
        odd = next((p for p in parts if not isinstance(p, PackedRun)), None)
        if odd is not None:
            raise ClirkitError(f"packed runs: expected PackedRuns (PackedRun.of(run)), got a {type(odd).__name__}")
        order = np.concatenate([p.query_order for p in parts]) if parts else np.zeros(0, dtype=str)
        if len(np.unique(order)) != len(order):
            raise ClirkitError(f"packed runs: query {split_query(order)!r} is in two of them")
        shared = parts[0].documents if parts else np.zeros(0, dtype=str)
        if all(p.documents is shared for p in parts):  # (the blocks of one index's search)
            codes = [p.codes for p in parts]
        else:
            shared, inverse = np.unique(np.concatenate([p.documents for p in parts]), return_inverse=True)
            bounds = np.cumsum([0] + [len(p.documents) for p in parts])
            codes = [inverse.ravel()[bounds[i] : bounds[i + 1]][p.codes] for i, p in enumerate(parts)]
        return cls.from_codes(
            order,
            np.concatenate([p.sizes for p in parts]) if parts else np.zeros(0, np.int64),
            shared,
            np.concatenate(codes) if codes else np.zeros(0, np.int32),
            np.concatenate([p.scores for p in parts]) if parts else np.zeros(0),
            tag=tag,
        )

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def query_ids(self) -> list[str]:
        """The run's queries, in the run's order (as :attr:`Run.query_ids`)."""
        return self.query_order.tolist()

    def query_sizes(self) -> np.ndarray:
        """The number of rows of each query, in the run's order (int64; as :meth:`Run.query_sizes`)."""
        return self.sizes

    def ranks(self) -> np.ndarray:
        """The 1-based rank of each row within its query (as :meth:`Run.ranks`)."""
        starts = np.cumsum(self.sizes) - self.sizes
        return np.arange(1, len(self.codes) + 1, dtype=np.int64) - np.repeat(starts, self.sizes)

    def top(self, depth: int) -> "PackedRun":
        """The first ``depth`` rows of every query (as :meth:`Run.top`): this packed run when no query has more;
        ClirkitError for a ``depth`` that is not an integer >= 1."""
        check_depth(depth)
        if len(self.sizes) == 0 or self.sizes.max() <= depth:
            return self
        keep = self.ranks() <= depth
        return PackedRun.from_codes(
            self.query_order,
            np.minimum(self.sizes, depth),
            self.documents,
            self.codes[keep],
            self.scores[keep],
            tag=self.tag,
        )

    def document_ids(self, rows=slice(None)) -> np.ndarray:
        """The document id of each of ``rows`` (all rows by default), as a str array."""
        return self.documents[self.codes[rows]]

    def blocks(self, queries: int | None = None) -> Iterator[Run]:
        """The run this was made of as runs of ``queries`` queries each (default :data:`SPLIT_BLOCK`), in its order:
        what :func:`~clirkit.formats.write_run_blocks` writes as the file of the whole run, one block unpacked at a
        time."""
        if queries is not None and (isinstance(queries, bool) or not isinstance(queries, int) or queries < 1):
            raise ClirkitError(f"blocks: queries must be an integer >= 1 (or None: {SPLIT_BLOCK}), got {queries!r}")
        queries = queries or SPLIT_BLOCK
        starts = np.concatenate(([0], np.cumsum(self.sizes)))
        for a in range(0, len(self.sizes), queries):
            b = min(a + queries, len(self.sizes))
            rows = slice(int(starts[a]), int(starts[b]))
            yield Run._from_groups(
                self.query_order[a:b],
                self.sizes[a:b],
                self.document_ids(rows),
                self.scores[rows],
                tag=self.tag,
                pairs_known=True,
            )

    def unpack(self) -> Run:
        """The run this was made of."""
        return Run._from_groups(
            self.query_order, self.sizes, self.document_ids(), self.scores, tag=self.tag, pairs_known=True
        )


SPLIT_BLOCK = 500
"""Queries searched at a time when a split's run is made packed (:func:`packed_in_blocks`): a block's run holds the
id strings of its rows only until it is packed, so the memory of a split's search does not grow with its queries."""


def packed_in_blocks(
    search, topics, *, excluded=None, tag: str | None, quiet: bool, block: int | None = None
) -> PackedRun:
    """The packed run of ``topics`` searched ``block`` queries (default :data:`SPLIT_BLOCK`) at a time.

    Args:
        search: a system's ``search(topics, excluded=, tag=, quiet=)`` -> the :class:`~clirkit.run.Run` of those
            ``{qid: text}`` (each query's rows depending on that query alone: the same rows as one search of all).
        topics: ``{qid: text}``, in the order of the run (the queries with no rows are left out of it).
        excluded: ``{qid: docids}`` the queries must not return (None: none).
        tag: the run's tag (None: the first block's, the system's own).
        quiet: no progress on stderr; with one block, ``search`` shows its own, else one bar counts the blocks and
            the blocks' notes are said once for them all when they are done (:func:`~clirkit.progress.merged_notes`:
            "40 of 500 queries" and "12 of 500 queries" are "52 of 1000 queries").
    """
    from clirkit.progress import gathered_notes, merged_notes, progress, say

    ids, block = list(topics), block or SPLIT_BLOCK
    starts = range(0, max(len(ids), 1), block)
    own = len(starts) == 1
    parts, notes = [], []
    for a in progress(starts, desc="searching", unit="block", quiet=quiet or own):
        some = ids[a : a + block]
        left_out = {q: excluded[q] for q in some if q in excluded} if excluded else excluded
        with gathered_notes() if not own else nullcontext([]) as said:  # (one block: said as they come)
            run = search({q: topics[q] for q in some}, excluded=left_out, tag=tag, quiet=quiet)
        notes.append(said)
        parts.append(PackedRun(run))
    for line in [] if own else merged_notes(notes, [len(ids[a : a + block]) for a in starts]):
        say(line, quiet=quiet)
    return PackedRun.concat(parts, tag=parts[0].tag if tag is None else tag)
