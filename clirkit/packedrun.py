"""A run held as integer codes: its queries once with their row counts, its documents as codes into their distinct
ids. What the experiment runner keeps of every run it makes, and what its systems make a split's run as, so that a
run of millions of rows never holds the two id strings of every row (numpy's fixed-width strings: 4 bytes a
character of the longest id, 300 bytes a row for a 75-character query id)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Iterable, Iterator

import numpy as np

from clirkit.errors import ClirkitError, counted
from clirkit.hashing import string_hash
from clirkit.run import Run, check_depth, check_run_tag
from clirkit.runchecks import split_query
from clirkit.runinputs import real_scores, shown
from clirkit.sortedunique import sorted_unique


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
        scores rising within a query or not finite numbers, a pair listed twice: two codes of one query naming one
        id, ``documents`` holding it twice; a tag :func:`~clirkit.run.check_run_tag` refuses) and for counts and
        codes that do not fit (sizes not one per query or negative, a code not an integer or outside ``documents``:
        checked before the codes are cast to int32).
        """
        check_run_tag(tag)
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
        if packed.documents.ndim != 1:
            raise ClirkitError(f"packed run: documents must be a list of document ids, got {shown(documents)}")
        packed.codes = _checked_codes(codes, len(packed.documents))
        packed.scores, packed.tag = _checked_scores(scores), tag
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
        """ClirkitError for a query in two groups, scores rising within a query, or a (query, document) pair listed
        twice (two codes of one query naming one id, :meth:`_id_codes`)."""
        if len(sorted_unique(self.query_order)) != len(self.query_order):
            raise ClirkitError("packed run: a query has two groups of rows")
        group = np.repeat(np.arange(len(self.sizes)), self.sizes)
        if ((self.scores[1:] > self.scores[:-1]) & (group[1:] == group[:-1])).any():
            raise ClirkitError("packed run: scores rise within a query (a run's rows are in rank order)")
        width = max(len(self.documents), 1)
        keys = np.sort(group * width + self._id_codes())
        twice = np.flatnonzero(keys[1:] == keys[:-1])
        if len(twice):
            query, code = divmod(int(keys[twice[0]]), width)
            raise ClirkitError(
                f"packed run: a query lists a document twice (query {str(self.query_order[query])!r}, document "
                f"{str(self.documents[code])!r}): a run lists each pair once (is an id repeated in documents?)"
            )

    def _id_codes(self) -> np.ndarray:
        """The rows' codes, those of one id made one (the least), so that an id ``documents`` holds twice counts
        as one document: ``codes`` itself when the ids the rows name are distinct, which is checked on those ids
        only, by 64-bit hash (:func:`~clirkit.hashing.string_hash`; equal hashes compared as strings), not on the
        whole of ``documents``, which a search's blocks share (each block: a sort of its codes, a hash of its
        documents)."""
        ordered = np.sort(self.codes)  # (np.unique of integers is a hash table in numpy 2.4: many times slower)
        used = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if len(ordered) else ordered
        hashes = np.sort(string_hash(self.documents[used]))
        if not len(hashes) or not (hashes[1:] == hashes[:-1]).any():
            return self.codes
        ids, first, inverse = np.unique(self.documents[used], return_index=True, return_inverse=True)
        if len(ids) == len(used):  # (a collision of hashes, no id twice)
            return self.codes
        return used[first][inverse.ravel()][np.searchsorted(used, self.codes)]

    @classmethod
    def concat(cls, parts: Iterable["PackedRun"], *, tag: str) -> "PackedRun":
        """One packed run of ``parts`` (runs of different queries, in this order): the run of their rows one part
        after the other. ClirkitError for a query in two parts."""
        parts = list(parts)
        odd = next((p for p in parts if not isinstance(p, PackedRun)), None)
        if odd is not None:
            raise ClirkitError(f"packed runs: expected PackedRuns (PackedRun.of(run)), got a {type(odd).__name__}")
        order = np.concatenate([p.query_order for p in parts]) if parts else np.zeros(0, dtype=str)
        if len(sorted_unique(order)) != len(order):
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
        """The document id of each of ``rows`` (all rows by default), as a str array: ``rows`` a slice, row
        positions (integers from ``-len(self)`` to ``len(self) - 1``; one integer gives one id) or a mask (one
        boolean per row). ClirkitError for anything else, and for a position beyond the rows."""
        if isinstance(rows, slice):
            return self.documents[self.codes[rows]]
        n, given = len(self.codes), np.asarray(rows)
        mask = given.dtype.kind == "b" and given.ndim == 1 and len(given) == n
        if not mask and (given.ndim > 1 or (given.dtype.kind not in "iu" and given.size)):
            raise ClirkitError(
                f"PackedRun.document_ids: rows must be a slice, row positions (integers) or one boolean per row "
                f"({counted(n, 'row')}), got {shown(rows)}"
            )
        if not mask:
            given = given.astype(np.int64)
            beyond = given[(given < -n) | (given >= n)]
            if beyond.size:
                raise ClirkitError(
                    f"PackedRun.document_ids: row {int(beyond.flat[0])} is beyond the run's {counted(n, 'row')}: "
                    f"give positions from 0 to {n - 1} (or from -{n}, counting from the end)"
                )
        return self.documents[self.codes[given]]

    def blocks(self, queries: int | None = None) -> Iterator[Run]:
        """The run this was made of as runs of ``queries`` queries each (default :data:`SPLIT_BLOCK`), in its order:
        what :func:`~clirkit.formats.write_run_blocks` writes as the file of the whole run, one block unpacked at a
        time."""
        queries = check_count(queries, "blocks: queries", SPLIT_BLOCK)
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


def check_count(value, what: str, default: int | None = None) -> int:
    """``value`` as an int if it is an integer >= 1 (a numpy integer too; ``True`` is not one), ``default`` for
    None when there is one; else ClirkitError ``WHAT must be an integer >= 1 (or None: DEFAULT), got VALUE``, before
    any work (a count of queries or rows taken at a time: 0 or -1 would loop on nothing, or never end)."""
    if value is None and default is not None:
        return default
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        alternative = "" if default is None else f" (or None: {default})"
        raise ClirkitError(f"{what} must be an integer >= 1{alternative}, got {shown(value)}")
    return int(value)


def _checked_codes(codes, n: int) -> np.ndarray:
    """``codes`` (of rows: positions in ``n`` documents) as int32 (int64 from 2^31 documents); ClirkitError, before
    the cast (which would make 2**32 a 0 and 1.2 a 1), for codes that are not integers or outside 0 to ``n - 1``."""
    given = np.asarray(codes)
    if given.ndim != 1 or (given.dtype.kind not in "iu" and given.size):
        raise ClirkitError(
            f"packed run: codes must be integers, one per row (positions in the documents), got {shown(codes)}"
        )
    outside = np.flatnonzero((given < 0) | (given >= n)) if given.size else given
    if len(outside):
        i = int(outside[0])
        room = f"from 0 to {n - 1}" if n else "none: there are no documents"
        raise ClirkitError(
            f"packed run: a document code outside the {counted(n, 'document')}: code {given[i].item()} of row "
            f"{i + 1} (codes are positions in documents: {room})"
        )
    return given.astype(np.int32 if n < 2**31 else np.int64, copy=False)


def _checked_scores(scores) -> np.ndarray:
    """``scores`` (one per row) as float64; ClirkitError for what is not a list of numbers (None, texts)."""
    try:
        values = real_scores(scores)
    except (TypeError, ValueError, OverflowError):
        values = None
    if values is None or values.ndim != 1:
        raise ClirkitError(f"packed run: scores must be numbers, one per row, got {shown(scores)}")
    return values


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

    ClirkitError, before any search, for a ``block`` that is not an integer >= 1 (:func:`check_count`) and a ``tag``
    a run file cannot hold (:func:`~clirkit.run.check_run_tag`).
    """
    from clirkit.progress import gathered_notes, merged_notes, progress, say

    block = check_count(block, "packed_in_blocks: block", SPLIT_BLOCK)
    if tag is not None:
        check_run_tag(tag)
    ids = list(topics)
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
