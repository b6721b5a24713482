"""Runs and qrels as columnar arrays.

A :class:`Run` is what every method produces: parallel arrays of query ids,
document ids and scores, grouped by query (queries in first-appearance order)
and, within a query, in rank order. :class:`Qrels` holds graded judgments the
same way. Both are plain data; reading and writing them is in
:mod:`clirkit.formats`.

Both go to and come from the other libraries' shapes: pandas frames (``to_frame``/``from_frame``, in clirkit's
column names or PyTerrier's: a result frame ``qid, docno, score, rank`` with ranks from 0, a qrels frame ``qid,
docno, label``) and namedtuples (``to_records``/``from_records``: :data:`ScoredDoc` and :data:`Qrel`, the fields of
ir_datasets' ``scoreddocs_iter()`` and ``qrels_iter()`` and of ir_measures' inputs).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping

import numpy as np

from clirkit.errors import ClirkitError, quoted
from clirkit.runchecks import (
    check_score_order,
    first_appearance_codes,
    first_empty,
    repeated_document,
    repeated_pair,
    split_query,
    whole_grades,
)
from clirkit.runinputs import (  # (first_bad_id, check_frame_ids, MAX_ID_LENGTH: importers' names here too)
    ID_RULE,
    MAX_ID_LENGTH,  # noqa: F401
    check_frame_ids,  # noqa: F401
    finite_scores,
    first_bad_id,
    frame_ids,
    frame_scores,
    id_array,
    real_scores,
    record_columns,
    row_label,
    shown,
)

ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
ScoredDoc.__doc__ = "One row of a run, fields named as ir_datasets' GenericScoredDoc and ir_measures' ScoredDoc."
Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance"])
Qrel.__doc__ = "One judgment, fields named as ir_measures' Qrel and ir_datasets' TrecQrel (less its iteration)."

FRAME_STYLES = ("clirkit", "pyterrier")
"""Column names of ``to_frame``: clirkit's (``docid``, ``rank`` from 1, ``rel``) or PyTerrier's (``docno``, ``rank``
from 0, ``label``)."""


def _str_array(values) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size == 0:
        return np.zeros(0, dtype="<U1")
    if arr.dtype.kind != "U":
        arr = arr.astype(str)
    return arr


def take_strings(strings: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``strings[positions]`` for a str array, gathered as raw fixed-size records (about 1.5x faster than
    gathering them as str)."""
    return np.take(_records(strings), positions).view(strings.dtype)


def _repeat_strings(strings: np.ndarray, repeats: np.ndarray) -> np.ndarray:
    """``np.repeat(strings, repeats)`` for a str array, copied as raw fixed-size records."""
    return np.repeat(_records(strings), repeats).view(strings.dtype)


def _records(strings: np.ndarray) -> np.ndarray:
    """A str array seen as raw records of its width (itself if the width is 0)."""
    return strings.view(np.dtype((np.void, strings.dtype.itemsize))) if strings.dtype.itemsize else strings


MAX_DEPTH = 2**63 - 1
"""The largest ``depth`` (int64's): a larger one is refused (a run's row counts are int64)."""


def check_depth(depth, *, every_row: bool = False) -> None:
    """The one check of a ``depth`` (results kept per query) given to a search or a run: an integer from 1 to
    :data:`MAX_DEPTH` (a numpy integer too; ``True`` is not one), or None with ``every_row``; ClirkitError
    otherwise, before any work."""
    if every_row and depth is None:
        return
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)) or depth < 1:
        if every_row:
            raise ClirkitError(f"depth must be a whole number >= 1 (or None: every row), got {depth!r}")
        raise ClirkitError(f"depth must be an integer >= 1, got {depth!r}")
    if depth > MAX_DEPTH:
        raise ClirkitError(f"depth must be at most 2**63 - 1 (int64), got {depth!r}: give a smaller depth")


def check_run_tag(tag) -> str:
    """``tag`` if a run file can hold it as its sixth column, by the rule of its ids (:func:`first_bad_id`, the check
    :func:`~clirkit.formats.write_run` makes of them): a str, non-empty, without whitespace or NUL, at most
    :data:`MAX_ID_LENGTH` characters; else ClirkitError ``Run tag 'a b' contains whitespace: ...``."""
    if not isinstance(tag, str):
        raise ClirkitError(f"Run tag must be a str ({ID_RULE}), got {shown(tag)}")
    as_array = np.array([tag])
    bad = (0, "contains a NUL character") if len(as_array[0]) != len(tag) else first_bad_id(as_array)
    if bad is not None:  # (a NUL at the end is gone from the numpy array: seen in the length)
        raise ClirkitError(f"Run tag {quoted(tag, 50)} {bad[1]}: a tag (a run file's sixth column) must be {ID_RULE}")
    return tag


def _columns(qids, docids, values, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The columns of rows as arrays, ids as str and ``values`` (scores) as float64; ClirkitError naming ``what``
    (``Run``) for a column that is not one-dimensional, values that are not numbers or columns of different
    lengths."""
    qids, docids = id_array(qids, f"{what} qids"), id_array(docids, f"{what} docids")
    try:
        values = real_scores(values)
    except (TypeError, ValueError):
        raise ClirkitError(f"{what} scores must be numbers, got {shown(values)}") from None
    qids, docids, values = _aligned(what, qids=qids, docids=docids, scores=values)
    return qids, docids, values


def _aligned(what: str, **columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """``columns`` (name -> array), checked to be one-dimensional and equally long (ClirkitError naming ``what``
    and the column otherwise)."""
    for name, column in columns.items():
        if column.ndim != 1:
            raise ClirkitError(
                f"{what} {name} must be one-dimensional (one per row), got an array of shape {column.shape}"
            )
    lengths = [len(c) for c in columns.values()]
    if len(set(lengths)) > 1:
        raise ClirkitError(f"{what} arrays differ in length: {', '.join(map(str, lengths))}")
    return tuple(columns.values())


def _group_bounds(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets of the runs of equal consecutive ``keys`` and their values."""
    if len(keys) == 0:
        return np.zeros(1, dtype=np.int64), keys[:0]
    change = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    starts = np.concatenate(([0], change, [len(keys)])).astype(np.int64)
    return starts, keys[starts[:-1]]


@dataclass(frozen=True)
class Run:
    """A ranked result list for many queries, as parallel arrays.

    Attributes:
        qids: query id of each row (str array, length n).
        docids: document id of each row (str array, length n).
        scores: score of each row (float64 array, length n); higher is better.
        tag: the run name written in the sixth TREC column.

    Rows of one query are contiguous and in rank order (rank 1 first): their
    scores do not rise. ClirkitError otherwise, and for what no run file holds:
    a score that is not a finite number (NaN, an infinity), an id or a tag
    :func:`~clirkit.formats.write_run` would refuse (empty, with whitespace or
    NUL, over 1,000 characters: :func:`first_bad_id`, :func:`check_run_tag`), a
    document listed twice for a query (:func:`clirkit.runchecks.repeated_document`:
    about 0.3 s for 5 million rows); and for arrays of different lengths or not
    one-dimensional. Use :meth:`ranked` to build a run from unordered rows with
    clirkit's deterministic order: score descending, ties by docid ascending.
    """

    qids: np.ndarray
    docids: np.ndarray
    scores: np.ndarray
    tag: str = "clirkit"
    _starts: np.ndarray = field(init=False, repr=False, compare=False)
    _query_order: np.ndarray = field(init=False, repr=False, compare=False)
    _unique_pairs: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._settle()

    def _settle(self, *, groups=None, pairs_known: bool = False, given=None, row_of=None) -> None:
        """Check the rows (see the class docstring) and set the arrays and the groups of queries.

        Args:
            groups: ``(starts, query order)`` when the maker knows them (else found from the query ids).
            pairs_known: the rows are known to list no pair twice (taken from such a run): not checked again.
            given, row_of: for the messages, the position where each row was given (a ranking's input; None: in
                this order) and ``row_of(position)``, the words naming a row there (default ``Run row N``).
        """
        check_run_tag(self.tag)
        qids, docids, scores = _columns(self.qids, self.docids, self.scores, "Run")
        for name, value in (("qids", qids), ("docids", docids), ("scores", scores), ("_unique_pairs", True)):
            object.__setattr__(self, name, value)
        starts, order = _group_bounds(qids) if groups is None else groups
        if groups is None and len(set(order.tolist())) != len(order):
            raise ClirkitError(
                f"Run rows of one query must be contiguous: query {split_query(order)!r} has two groups of rows; "
                "build it with Run.ranked"
            )
        object.__setattr__(self, "_starts", starts)
        object.__setattr__(self, "_query_order", order)
        row_of = row_of or (lambda i: f"Run row {i + 1}")
        named = (lambda i: row_of(int(given[i]))) if given is not None else row_of
        for ids, rows, what in ((order, starts[:-1], "query"), (docids, None, "document")):
            empty = first_empty(ids)
            if empty is not None:
                i = int(empty if rows is None else rows[empty])
                raise ClirkitError(f"{named(i)} has an empty {what} id: give every row a {what} id ({ID_RULE})")
        if not pairs_known:  # (a reader's or a search's rows hold no such id)
            for ids, rows, what in ((order, starts[:-1], "query"), (docids, None, "document")):
                bad = first_bad_id(ids)  # (the rule write_run applies)
                if bad is not None:
                    i, bad_id = int(bad[0] if rows is None else rows[bad[0]]), str(ids[bad[0]])
                    if "surrogate" in bad[1]:
                        raise ClirkitError(
                            f"{named(i)} has a {what} id holding a lone surrogate ({ascii(bad_id)}): no UTF-8 "
                            f"text holds one; give the id as text"
                        )
                    raise ClirkitError(
                        f"{named(i)} has {what} id {quoted(bad_id, 50)}, which {bad[1]}: give every row a {what} id "
                        f"a run file can hold ({ID_RULE})"
                    )
        check_score_order(qids, docids, scores, starts)
        repeat = None if pairs_known else repeated_document(docids, starts, given)
        if repeat is not None:
            i = repeat[0] if given is None else int(np.flatnonzero(given == repeat[0])[0])
            raise ClirkitError(
                f"{named(i)} repeats query {qids[i]} and document {docids[i]}: a run lists each pair once"
            )

    @classmethod
    def from_groups(cls, query_ids, sizes, docids, scores, *, tag: str = "clirkit") -> "Run":
        """A run from its queries in run order and the number of rows of each, the rows (documents and
        scores) being already in rank order: query ``query_ids[i]`` owns the next ``sizes[i]`` rows, and a
        query with 0 rows is left out. The same run as ``Run(qids, docids, scores)`` with each query id
        repeated over its rows (the same checks), without comparing the ids of consecutive rows to find the queries.
        """
        return cls._from_groups(query_ids, sizes, docids, scores, tag=tag, pairs_known=False)

    @classmethod
    def _from_groups(cls, query_ids, sizes, docids, scores, *, tag: str, pairs_known: bool) -> "Run":
        """:meth:`from_groups`; ``pairs_known``: the rows are known to list no pair twice (a fusion's pairs, a
        packed run's rows): not checked again."""
        query_ids, docids = id_array(query_ids, "Run query ids"), id_array(docids, "Run docids")
        sizes, scores = np.asarray(sizes, dtype=np.int64), np.asarray(scores, dtype=np.float64)
        if len(query_ids) != len(sizes) or (sizes < 0).any() or not int(sizes.sum()) == len(docids) == len(scores):
            raise ClirkitError(
                f"Run groups do not match the rows: {len(query_ids)} queries, {len(sizes)} sizes "
                f"summing to {int(sizes.sum())}, {len(docids)} documents, {len(scores)} scores"
            )
        kept = sizes > 0
        order = query_ids[kept]
        if len(set(order.tolist())) != len(order):
            raise ClirkitError(
                f"Run rows of one query must be contiguous: query {split_query(order)!r} has two groups of rows"
            )
        starts, qids = np.concatenate(([0], np.cumsum(sizes[kept]))), _str_array(_repeat_strings(order, sizes[kept]))
        return cls._made(qids, docids, scores, tag, groups=(starts, order), pairs_known=pairs_known)

    @classmethod
    def _made(cls, qids, docids, scores, tag: str, **checks) -> "Run":
        """The run of these fields, made without ``__init__``, checked by :meth:`_settle` with ``checks``."""
        run = object.__new__(cls)
        for name, value in (("qids", qids), ("docids", docids), ("scores", scores), ("tag", tag)):
            object.__setattr__(run, name, value)
        run._settle(**checks)
        return run

    @classmethod
    def _unique_rows(cls, qids, docids, scores, *, tag: str = "clirkit") -> "Run":
        """``Run(qids, docids, scores, tag=tag)`` of rows a reader has checked to list no pair twice (not checked
        again). For readers only."""
        return cls._made(qids, docids, scores, tag, pairs_known=True)

    @classmethod
    def ranked(cls, qids, docids, scores, *, tag: str = "clirkit", depth: int | None = None, query_order=None) -> "Run":
        """Sort rows into clirkit's order and keep the top ``depth`` per query.

        Queries come in ``query_order`` if given (ids absent from it are
        dropped), else in order of first appearance. Within a query: score
        descending, ties by docid ascending. ClirkitError for a ``depth`` that is not an integer >= 1 (or None),
        and for rows a :class:`Run` refuses (a row is named by its place in the rows given).
        """
        return cls._ranked(qids, docids, scores, tag=tag, depth=depth, query_order=query_order)

    @classmethod
    def _ranked(cls, qids, docids, scores, *, tag, depth, query_order=None, row_of=None, ties="docid") -> "Run":
        """:meth:`ranked`, a refused row named by ``row_of(its position in the rows given)`` (default ``Run row
        N``); ``ties="given"``: tied scores keep the order they are given in (a run's own rows read back, as
        :func:`~clirkit.formats.read_run` keeps a file's), not the docids' order."""
        check_depth(depth, every_row=True)
        qids, docids, scores = _columns(qids, docids, scores, "Run")
        if query_order is None:
            _, first = np.unique(qids, return_index=True)
            query_order = qids[np.sort(first)]
        query_order = _str_array(query_order)
        position = {q: i for i, q in enumerate(query_order.tolist())}
        qpos = np.fromiter((position.get(q, -1) for q in qids.tolist()), dtype=np.int64, count=len(qids))
        keep = qpos >= 0
        qids, docids, scores, qpos = qids[keep], docids[keep], scores[keep], qpos[keep]
        order = np.lexsort((docids if ties == "docid" else np.arange(len(scores)), -scores, qpos))
        given = np.flatnonzero(keep)[order]
        run = cls._made(qids[order], docids[order], scores[order], tag, given=given, row_of=row_of)
        return run.top(depth) if depth is not None else run

    def __len__(self) -> int:
        return len(self.qids)

    @property
    def query_ids(self) -> list[str]:
        """The run's queries, in the run's order."""
        return self._query_order.tolist()

    def groups(self) -> Iterator[tuple[str, slice]]:
        """Yield ``(qid, slice)`` of each query's rows, in the run's order."""
        for i, q in enumerate(self._query_order.tolist()):
            yield q, slice(int(self._starts[i]), int(self._starts[i + 1]))

    def query_sizes(self) -> np.ndarray:
        """The number of rows of each query, in the run's order (int64)."""
        return np.diff(self._starts)

    def ranks(self) -> np.ndarray:
        """1-based rank of each row within its query (int64 array)."""
        counts = np.diff(self._starts)
        return np.arange(len(self.qids), dtype=np.int64) - np.repeat(self._starts[:-1], counts) + 1

    def top(self, depth: int) -> "Run":
        """The first ``depth`` rows of every query (this run itself when no query has more); ClirkitError for a
        ``depth`` that is not an integer >= 1."""
        check_depth(depth)
        if len(self) == 0 or np.diff(self._starts).max() <= depth:
            return self
        keep = self.ranks() <= depth
        return Run._made(self.qids[keep], self.docids[keep], self.scores[keep], self.tag, pairs_known=True)

    def for_query(self, qid: str) -> tuple[np.ndarray, np.ndarray]:
        """``(docids, scores)`` of one query (empty arrays if absent)."""
        for q, sl in self.groups():
            if q == qid:
                return self.docids[sl], self.scores[sl]
        return self.docids[:0], self.scores[:0]

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {docid: score}}`` in run order (pytrec_eval's and ranx's run layout)."""
        out: dict[str, dict[str, float]] = {}
        for q, sl in self.groups():
            out[q] = dict(zip(self.docids[sl].tolist(), self.scores[sl].tolist()))
        return out

    @classmethod
    def from_dict(cls, run: dict, *, tag: str = "clirkit", depth: int | None = None) -> "Run":
        """A run from ``{qid: {docid: score}}``, ranked by score descending, tied scores in the dict's order (so
        :meth:`to_dict` reads back to the same run).
        ClirkitError for a query not mapped to ``{docid: score}``, or a score that is not a finite number."""
        if not isinstance(run, Mapping):
            raise ClirkitError(f"a run dict: expected {{qid: {{docid: score}}}}, got {type(run).__name__}")
        qids, docids, scores = [], [], []
        for q, docs in run.items():
            if not isinstance(docs, Mapping):
                raise ClirkitError(f"a run dict: query {q!r} maps to a {type(docs).__name__}, not to {{docid: score}}")
            qids += [q] * len(docs)
            docids += list(docs)
            scores += list(docs.values())
        row_of = lambda i: f"a run dict: query {qids[i]!r}, document {docids[i]!r}"  # noqa: E731
        values = finite_scores(scores, row_of)
        return cls._ranked(
            qids, docids, values, tag=tag, depth=depth, query_order=list(run), row_of=row_of, ties="given"
        )

    def to_frame(self, style: str = "clirkit"):
        """A pandas DataFrame of the rows in run order (pandas is optional): ``style="clirkit"``: columns ``qid,
        docid, rank, score``, ranks from 1; ``"pyterrier"``: PyTerrier's result frame, ``qid, docno, score, rank``,
        ranks from 0 as PyTerrier numbers them. :meth:`from_frame` reads either back to this run."""
        import pandas as pd

        if _style(style) == "pyterrier":
            return pd.DataFrame(
                {
                    "qid": self.qids.astype(object),
                    "docno": self.docids.astype(object),
                    "score": self.scores,
                    "rank": self.ranks() - 1,
                }
            )
        return pd.DataFrame({"qid": self.qids, "docid": self.docids, "rank": self.ranks(), "score": self.scores})

    @classmethod
    def from_frame(cls, frame, *, tag: str = "clirkit", depth: int | None = None) -> "Run":
        """A run from a DataFrame with columns ``qid``, ``docno`` (PyTerrier's) or ``docid`` and ``score``, in any
        row order, ranked by score descending, tied scores in row order (so :meth:`to_frame` reads back to the same
        run; a ``rank`` column is not read: a PyTerrier re-ranker may leave it stale). With both ``docno`` and
        ``docid`` (a frame of Terrier's, whose ``docid`` is its internal number), ``docno`` is the document id.
        ClirkitError naming the row for a missing id (NaN, None) or a score that is not a finite number."""
        check_depth(depth, every_row=True)
        qids, docids = frame_ids(frame, "a run frame", "score", "results")
        scores = frame_scores(frame, "a run frame")
        row_of = lambda i: f"a run frame: row {row_label(frame, i)}"  # noqa: E731
        return cls._ranked(qids, docids, scores, tag=tag, depth=depth, row_of=row_of, ties="given")

    def to_records(self) -> list[ScoredDoc]:
        """The rows in run order as :data:`ScoredDoc` namedtuples ``(query_id, doc_id, score)``, the shape of
        ir_datasets' ``scoreddocs_iter()`` and of ir_measures' run input."""
        return list(map(ScoredDoc, self.qids.tolist(), self.docids.tolist(), self.scores.tolist()))

    @classmethod
    def from_records(cls, records: Iterable, *, tag: str = "clirkit", depth: int | None = None) -> "Run":
        """A run from records with ``query_id``, ``doc_id`` and ``score`` attributes (ir_datasets'
        ``dataset.scoreddocs_iter()``, ir_measures' ScoredDoc, :meth:`to_records`), ranked by score descending, tied
        scores in the records' order (so :meth:`to_records` reads back to the same run).
        ClirkitError for a score that is not a finite number, and for ``records`` that are no iterable (None)."""
        _check_records(records, "Run.from_records", "query_id, doc_id and score")
        qids, docids, scores = record_columns(
            records, ("query_id", "doc_id", "score"), "a run record", "an ir_datasets ScoredDoc"
        )
        row_of = lambda i: f"a run record (number {i + 1})"  # noqa: E731
        values = finite_scores(scores, row_of)
        return cls._ranked(qids, docids, values, tag=tag, depth=depth, row_of=row_of, ties="given")

    def with_tag(self, tag: str) -> "Run":
        return Run._made(
            self.qids, self.docids, self.scores, tag, groups=(self._starts, self._query_order), pairs_known=True
        )


@dataclass(frozen=True)
class Qrels:
    """Graded relevance judgments as parallel arrays.

    Attributes:
        qids, docids: str arrays, length n.
        rels: int64 grades, length n; rel <= 0 means judged not relevant. Given as integers or whole numbers
            (``1.0``); ClirkitError for any other (``0.5``, NaN, beyond int64).

    ClirkitError too for what no qrels file holds: an empty id, a document judged twice for a query; and for
    arrays of different lengths or not one-dimensional.
    """

    qids: np.ndarray
    docids: np.ndarray
    rels: np.ndarray

    def __post_init__(self) -> None:
        self._settle()

    def _settle(self, *, pairs_known: bool = False, row_of=None) -> None:
        """Check the judgments (see the class docstring) and set the arrays; ``pairs_known``: they are known to
        judge no pair twice (taken from such qrels); ``row_of(i)``: the words naming row ``i`` in a message
        (default ``Qrels row N``)."""
        qids, docids = id_array(self.qids, "Qrels qids"), id_array(self.docids, "Qrels docids")
        rels = whole_grades(self.rels, "Qrels rels")
        qids, docids, rels = _aligned("Qrels", qids=qids, docids=docids, rels=rels)
        for name, value in (("qids", qids), ("docids", docids), ("rels", rels)):
            object.__setattr__(self, name, value)
        row_of = row_of or (lambda i: f"Qrels row {i + 1}")
        for ids, what in ((qids, "query"), (docids, "document")):
            empty = first_empty(ids)
            if empty is not None:
                raise ClirkitError(
                    f"{row_of(empty)} has an empty {what} id: give every judgment a {what} id ({ID_RULE})"
                )
            bad = None if pairs_known else first_bad_id(ids)  # (the rule write_qrels applies; a reader's hold none)
            if bad is not None:
                raise ClirkitError(
                    f"{row_of(int(bad[0]))} has {what} id {ascii(str(ids[bad[0]]))[:60]}, which {bad[1]}: give every "
                    f"judgment a {what} id a qrels file can hold ({ID_RULE})"
                )
        repeat = None if pairs_known or not len(qids) else repeated_pair(first_appearance_codes(qids), docids)
        if repeat is not None:
            i = repeat[0]
            raise ClirkitError(
                f"{row_of(i)} repeats query {qids[i]} and document {docids[i]}: qrels judge each pair once"
            )

    @classmethod
    def _made(cls, qids, docids, rels, **checks) -> "Qrels":
        """The qrels of these fields, made without ``__init__``, checked by :meth:`_settle` with ``checks``."""
        qrels = object.__new__(cls)
        for name, value in (("qids", qids), ("docids", docids), ("rels", rels)):
            object.__setattr__(qrels, name, value)
        qrels._settle(**checks)
        return qrels

    def __len__(self) -> int:
        return len(self.qids)

    @property
    def query_ids(self) -> list[str]:
        """Judged queries in order of first appearance."""
        _, first = np.unique(self.qids, return_index=True)
        return self.qids[np.sort(first)].tolist()

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{qid: {docid: grade}}`` (the shape pytrec_eval takes)."""
        out: dict[str, dict[str, int]] = {}
        for q, d, r in zip(self.qids.tolist(), self.docids.tolist(), self.rels.tolist()):
            out.setdefault(q, {})[d] = r
        return out

    def subset(self, qids) -> "Qrels":
        """The judgments of the given queries only: ``qids`` a list (any iterable) of query ids, or one id as a
        str (``subset("q1")``: the judgments of query q1); ClirkitError for anything else (None, a number, bytes)."""
        if isinstance(qids, (bytes, bytearray)) or not isinstance(qids, (str, Iterable)):
            raise ClirkitError(
                f"Qrels.subset: qids must be query ids (a list of them, or one as a str), got {shown(qids)}"
            )
        wanted = id_array([qids] if isinstance(qids, str) else list(qids), "Qrels.subset qids")
        keep = np.isin(self.qids, wanted)
        return Qrels._made(self.qids[keep], self.docids[keep], self.rels[keep], pairs_known=True)

    def to_frame(self, style: str = "clirkit"):
        """A pandas DataFrame of the judgments: columns ``qid, docid, rel`` (``style="clirkit"``) or PyTerrier's
        ``qid, docno, label`` (``"pyterrier"``, what ``pt.Experiment`` takes as qrels)."""
        import pandas as pd

        if _style(style) == "pyterrier":
            return pd.DataFrame(
                {"qid": self.qids.astype(object), "docno": self.docids.astype(object), "label": self.rels}
            )
        return pd.DataFrame({"qid": self.qids, "docid": self.docids, "rel": self.rels})

    @classmethod
    def from_frame(cls, frame) -> "Qrels":
        """Judgments from a DataFrame with columns ``qid``, ``docno`` or ``docid``, and ``label`` (PyTerrier's) or
        ``rel`` (whole-number grades); ClirkitError for a ``frame`` that is no DataFrame (None, a dict), as
        :meth:`Run.from_frame`."""
        grade = next((c for c in ("label", "rel") if c in getattr(frame, "columns", ())), "label")
        qids, docids = frame_ids(frame, "a qrels frame", grade, "judgments")
        rels = whole_grades(frame[grade].to_numpy(), "a qrels frame's " + grade, lambda i: f"row {row_label(frame, i)}")
        return cls._made(qids, docids, rels, row_of=lambda i: f"a qrels frame: row {row_label(frame, i)}")

    def to_records(self) -> list[Qrel]:
        """The judgments as :data:`Qrel` namedtuples ``(query_id, doc_id, relevance)`` (ir_measures' qrels input)."""
        return list(map(Qrel, self.qids.tolist(), self.docids.tolist(), self.rels.tolist()))

    @classmethod
    def from_records(cls, records: Iterable) -> "Qrels":
        """Judgments from records with ``query_id``, ``doc_id`` and ``relevance`` attributes (ir_datasets'
        ``dataset.qrels_iter()``, ir_measures' Qrel, :meth:`to_records`)."""
        _check_records(records, "Qrels.from_records", "query_id, doc_id and relevance")
        qids, docids, rels = record_columns(
            records, ("query_id", "doc_id", "relevance"), "a qrels record", "an ir_datasets TrecQrel"
        )
        grades = whole_grades(rels, "a qrels record's relevance", lambda i: f"record number {i + 1}")
        return cls._made(qids, docids, grades, row_of=lambda i: f"a qrels record (number {i + 1})")


def _check_records(records, what: str, fields: str) -> None:
    """ClirkitError ``WHAT: records must be ...`` for ``records`` that are not an iterable of records (None, a
    number); a str or a dict is one, of records its first item names as lacking ``fields``."""
    if not isinstance(records, Iterable):
        raise ClirkitError(f"{what}: records must be an iterable of records with {fields} fields, got {shown(records)}")


def _style(style: str) -> str:
    if style not in FRAME_STYLES:
        raise ClirkitError(f"style must be one of {', '.join(FRAME_STYLES)}, got {style!r}")
    return style
