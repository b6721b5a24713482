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

from clirkit.errors import ClirkitError
from clirkit.runchecks import check_score_order, split_query, whole_grades

ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
ScoredDoc.__doc__ = "One row of a run, fields named as ir_datasets' GenericScoredDoc and ir_measures' ScoredDoc."
Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance"])
Qrel.__doc__ = "One judgment, fields named as ir_measures' Qrel and ir_datasets' TrecQrel (less its iteration)."

MAX_ID_LENGTH = 1000  # characters; ids live in fixed-width numpy string arrays
ID_RULE = f"non-empty, without whitespace or NUL, at most {MAX_ID_LENGTH:,} characters"
"""What an id must be for every reader to accept it (:func:`first_bad_id`), in messages."""
_SPACE_CODES = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)  # all are below 0x3001
_ID_SLICE = 100_000  # ids checked at a time
_CODE_SLICE = 1 << 22  # code points checked at a time, when no row is looked at

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
    scores do not rise (ClirkitError otherwise, and for a NaN score).
    Use :meth:`ranked` to build a run from unordered rows with clirkit's
    deterministic order: score descending, ties by docid ascending.
    """

    qids: np.ndarray
    docids: np.ndarray
    scores: np.ndarray
    tag: str = "clirkit"
    _starts: np.ndarray = field(init=False, repr=False, compare=False)
    _query_order: np.ndarray = field(init=False, repr=False, compare=False)
    _unique_pairs: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        qids, docids = _str_array(self.qids), _str_array(self.docids)
        scores = np.asarray(self.scores, dtype=np.float64)
        if not (len(qids) == len(docids) == len(scores)):
            raise ClirkitError(f"Run arrays differ in length: {len(qids)}, {len(docids)}, {len(scores)}")
        object.__setattr__(self, "qids", qids)
        object.__setattr__(self, "docids", docids)
        object.__setattr__(self, "scores", scores)
        starts, order = _group_bounds(qids)
        if len(set(order.tolist())) != len(order):
            raise ClirkitError(
                f"Run rows of one query must be contiguous: query {split_query(order)!r} has two groups of rows; "
                "build it with Run.ranked"
            )
        check_score_order(qids, docids, scores, starts)
        object.__setattr__(self, "_starts", starts)
        object.__setattr__(self, "_query_order", order)

    @classmethod
    def from_groups(cls, query_ids, sizes, docids, scores, *, tag: str = "clirkit") -> "Run":
        """A run from its queries in run order and the number of rows of each, the rows (documents and
        scores) being already in rank order: query ``query_ids[i]`` owns the next ``sizes[i]`` rows, and a
        query with 0 rows is left out. The same run as ``Run(qids, docids, scores)`` with each query id
        repeated over its rows (the same checks of the scores), without comparing the ids of consecutive rows to
        find the queries.
        """
        query_ids, docids = _str_array(query_ids), _str_array(docids)
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
        run = object.__new__(cls)  # the fields __post_init__ would derive, set from the groups
        starts, qids = np.concatenate(([0], np.cumsum(sizes[kept]))), _str_array(_repeat_strings(order, sizes[kept]))
        check_score_order(qids, docids, scores, starts)
        for name, value in (
            ("qids", qids),
            ("docids", docids),
            ("scores", scores),
            ("tag", tag),
            ("_starts", starts),
            ("_query_order", order),
            ("_unique_pairs", False),
        ):
            object.__setattr__(run, name, value)
        return run

    @classmethod
    def ranked(cls, qids, docids, scores, *, tag: str = "clirkit", depth: int | None = None, query_order=None) -> "Run":
        """Sort rows into clirkit's order and keep the top ``depth`` per query.

        Queries come in ``query_order`` if given (ids absent from it are
        dropped), else in order of first appearance. Within a query: score
        descending, ties by docid ascending.
        """
        qids, docids = _str_array(qids), _str_array(docids)
        scores = np.asarray(scores, dtype=np.float64)
        if query_order is None:
            _, first = np.unique(qids, return_index=True)
            query_order = qids[np.sort(first)]
        query_order = _str_array(query_order)
        position = {q: i for i, q in enumerate(query_order.tolist())}
        qpos = np.fromiter((position.get(q, -1) for q in qids.tolist()), dtype=np.int64, count=len(qids))
        keep = qpos >= 0
        qids, docids, scores, qpos = qids[keep], docids[keep], scores[keep], qpos[keep]
        order = np.lexsort((docids, -scores, qpos))
        run = cls(qids[order], docids[order], scores[order], tag=tag)
        return run.top(depth) if depth is not None else run

    def _with_unique_pairs(self) -> "Run":
        """This run, noted as listing no (query, document) pair twice: its reader checked, so
        :func:`clirkit.metrics.evaluate` need not check again. For readers only (the arrays must not
        change afterwards)."""
        object.__setattr__(self, "_unique_pairs", True)
        return self

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
        """The first ``depth`` rows of every query (this run itself when no query has more)."""
        if len(self) == 0 or np.diff(self._starts).max() <= depth:
            return self
        keep = self.ranks() <= depth
        return Run(self.qids[keep], self.docids[keep], self.scores[keep], tag=self.tag)

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
        """A run from ``{qid: {docid: score}}``, ranked by :meth:`ranked` (score descending, ties by docid).
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
        values = finite_scores(scores, lambda i: f"a run dict: query {qids[i]!r}, document {docids[i]!r}")
        return cls.ranked(qids, docids, values, tag=tag, depth=depth, query_order=list(run))

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
        row order, ranked by :meth:`ranked` (score descending, ties by docid; a ``rank`` column is not read: a
        PyTerrier re-ranker may leave it stale). With both ``docno`` and ``docid`` (a frame of Terrier's, whose
        ``docid`` is its internal number), ``docno`` is the document id. ClirkitError naming the row for a missing
        id (NaN, None) or a score that is not a finite number."""
        check_depth(depth, every_row=True)
        qids, docids = _frame_ids(frame, "a run frame", "score", "results")
        pairs = np.char.add(np.char.add(qids, "\t"), docids) if len(qids) else qids
        if len(np.unique(pairs)) != len(pairs):
            _, first = np.unique(pairs, return_index=True)
            pos = int(np.setdiff1d(np.arange(len(pairs)), first)[0])
            raise ClirkitError(
                f"a run frame: row {_row_label(frame, pos)} repeats query {qids[pos]} and document {docids[pos]}: "
                f"a run lists each pair once"
            )
        return cls.ranked(qids, docids, frame_scores(frame, "a run frame"), tag=tag, depth=depth)

    def to_records(self) -> list[ScoredDoc]:
        """The rows in run order as :data:`ScoredDoc` namedtuples ``(query_id, doc_id, score)``, the shape of
        ir_datasets' ``scoreddocs_iter()`` and of ir_measures' run input."""
        return list(map(ScoredDoc, self.qids.tolist(), self.docids.tolist(), self.scores.tolist()))

    @classmethod
    def from_records(cls, records: Iterable, *, tag: str = "clirkit", depth: int | None = None) -> "Run":
        """A run from records with ``query_id``, ``doc_id`` and ``score`` attributes (ir_datasets'
        ``dataset.scoreddocs_iter()``, ir_measures' ScoredDoc, :meth:`to_records`), ranked by :meth:`ranked`.
        ClirkitError for a score that is not a finite number."""
        qids, docids, scores = _record_columns(
            records, ("query_id", "doc_id", "score"), "a run record", "an ir_datasets ScoredDoc"
        )
        values = finite_scores(scores, lambda i: f"a run record (number {i + 1})")
        return cls.ranked(qids, docids, values, tag=tag, depth=depth)

    def with_tag(self, tag: str) -> "Run":
        return Run(self.qids, self.docids, self.scores, tag=tag)


class PackedRun:
    """A :class:`Run` held compactly while it waits to be used (the experiment runner keeps every run it made):
    its queries once with their row counts, its documents as int32 codes into their distinct ids, its scores.
    12 bytes a row instead of the two id strings of every row; :meth:`unpack` gives back the same run, arrays of
    the same values and dtypes."""

    def __init__(self, run: Run) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(pa.array(run.docids, type=pa.large_string()))  # hashing, not a sort
        self.codes = encoded.indices.to_numpy().astype(np.int32, copy=False)
        self.documents = np.asarray(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=run.docids.dtype)
        self.query_order, self.sizes = run._query_order, run.query_sizes()
        self.scores, self.tag = run.scores, run.tag

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

    def top(self, depth: int) -> "PackedRun | Run":
        """The first ``depth`` rows of every query: this packed run when no query has more (as :meth:`Run.top`),
        else the unpacked run's."""
        return self if len(self.sizes) == 0 or self.sizes.max() <= depth else self.unpack().top(depth)

    def unpack(self) -> Run:
        """The run this was made of."""
        return Run.from_groups(self.query_order, self.sizes, self.documents[self.codes], self.scores, tag=self.tag)


@dataclass(frozen=True)
class Qrels:
    """Graded relevance judgments as parallel arrays.

    Attributes:
        qids, docids: str arrays, length n.
        rels: int64 grades, length n; rel <= 0 means judged not relevant. Given as integers or whole numbers
            (``1.0``); ClirkitError for any other (``0.5``, NaN, beyond int64).
    """

    qids: np.ndarray
    docids: np.ndarray
    rels: np.ndarray

    def __post_init__(self) -> None:
        qids, docids = _str_array(self.qids), _str_array(self.docids)
        rels = whole_grades(self.rels, "Qrels rels")
        if not (len(qids) == len(docids) == len(rels)):
            raise ClirkitError(f"Qrels arrays differ in length: {len(qids)}, {len(docids)}, {len(rels)}")
        object.__setattr__(self, "qids", qids)
        object.__setattr__(self, "docids", docids)
        object.__setattr__(self, "rels", rels)

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
        """The judgments of the given queries only."""
        keep = np.isin(self.qids, _str_array(list(qids)))
        return Qrels(self.qids[keep], self.docids[keep], self.rels[keep])

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
        ``rel`` (whole-number grades)."""
        grade = next((c for c in ("label", "rel") if c in frame.columns), "label")
        qids, docids = _frame_ids(frame, "a qrels frame", grade, "judgments")
        return cls(qids, docids, whole_grades(frame[grade].to_numpy(), "a qrels frame's " + grade))

    def to_records(self) -> list[Qrel]:
        """The judgments as :data:`Qrel` namedtuples ``(query_id, doc_id, relevance)`` (ir_measures' qrels input)."""
        return list(map(Qrel, self.qids.tolist(), self.docids.tolist(), self.rels.tolist()))

    @classmethod
    def from_records(cls, records: Iterable) -> "Qrels":
        """Judgments from records with ``query_id``, ``doc_id`` and ``relevance`` attributes (ir_datasets'
        ``dataset.qrels_iter()``, ir_measures' Qrel, :meth:`to_records`)."""
        qids, docids, rels = _record_columns(
            records, ("query_id", "doc_id", "relevance"), "a qrels record", "an ir_datasets TrecQrel"
        )
        return cls(_str_array(qids), _str_array(docids), whole_grades(rels, "a qrels record's relevance"))


def _style(style: str) -> str:
    if style not in FRAME_STYLES:
        raise ClirkitError(f"style must be one of {', '.join(FRAME_STYLES)}, got {style!r}")
    return style


def _frame_ids(frame, what: str, value: str, rows: str) -> tuple[np.ndarray, np.ndarray]:
    """The query ids and document ids (``docno``, else ``docid``) of ``frame`` as str arrays; ClirkitError naming
    the columns it lacks (``value``: the other column it needs), or saying it has no row (``rows``: what its rows
    are, ``results``), as for an empty file."""
    columns = getattr(frame, "columns", None)
    if columns is None:
        raise ClirkitError(f"{what}: expected a pandas DataFrame, got {type(frame).__name__}")
    doc = "docno" if "docno" in columns else "docid"
    missing = [c for c in ("qid", doc, value) if c not in columns]
    if missing:
        wanted = " or ".join(("docno", "docid")) if doc in missing else doc
        names = [wanted if c == doc else c for c in missing]
        raise ClirkitError(
            f"{what}: no {', no '.join(names)} column (its columns: {', '.join(map(str, columns)) or 'none'})"
        )
    if len(frame) == 0:
        raise ClirkitError(f"{what}: empty: no {rows} found (it has the columns but no row)")
    check_frame_ids(frame, ("qid", doc), what)
    for column in ("qid", doc):
        if frame[column].dtype.kind == "f":  # 1.0 would become the id "1.0", matching no qrels' "1"
            raise ClirkitError(
                f"{what}: the {column} column holds floating-point numbers ({_shown(frame[column].iloc[0])}): "
                f"give ids as strings (or whole numbers)"
            )
    return _str_array(frame["qid"].astype(str).to_numpy()), _str_array(frame[doc].astype(str).to_numpy())


def first_bad_id(ids: np.ndarray, *, readable: bool = True) -> tuple[int, str] | None:
    """The position in ``ids`` (a str array) of the first id a run or qrels file cannot hold, and its problem:
    ``is empty`` or ``contains whitespace``; with ``readable`` also what the readers refuse
    (:func:`clirkit.formats.check_id`): ``contains a NUL character``, ``is longer than 1,000 characters``
    (:data:`MAX_ID_LENGTH`). None when there is none. Checked on the code points, slice by slice, without a
    Python string per id (a NUL at an id's end is lost in a numpy string array before any check)."""
    ids = np.ascontiguousarray(ids if ids.dtype.kind == "U" else ids.astype(str))
    width = ids.dtype.itemsize // 4
    if not len(ids) or not width:
        return (0, "is empty") if len(ids) else None
    chars = ids.view(np.uint32).reshape(len(ids), width)
    for lo in range(0, len(ids), _ID_SLICE):
        part = chars[lo : lo + _ID_SLICE]
        if _plain(part, ids[lo : lo + _ID_SLICE], readable=readable):
            continue
        found = [(part[:, 0] == 0, "is empty"), (np.isin(part, _SPACE_CODES).any(axis=1), "contains whitespace")]
        if readable:
            found.append((((part[:, :-1] == 0) & (part[:, 1:] != 0)).any(axis=1), "contains a NUL character"))
            if width > MAX_ID_LENGTH:
                found.append((part[:, MAX_ID_LENGTH] != 0, f"is longer than {MAX_ID_LENGTH:,} characters"))
        rows = [(int(np.argmax(bad)), problem) for bad, problem in found if bad.any()]
        if rows:
            row, problem = min(rows, key=lambda r: r[0])
            return lo + row, problem
    return None


def _plain(part: np.ndarray, ids: np.ndarray, *, readable: bool) -> bool:
    """Whether the ids ``ids`` (their code points ``part``, 0-padded) surely hold none of :func:`first_bad_id`'s
    problems, seen on all their code points at once (a row at a time is 5 to 10 times slower): none empty, no code
    point from 1 to 32 or from 133 up (every whitespace is one), and, ``readable``, as many code points that are not
    0 as the ids' lengths add up to (no NUL inside), none longer than :data:`MAX_ID_LENGTH`. False: look row by row."""
    lengths = np.char.str_len(ids)
    if not lengths.all():
        return False
    flat, filled = part.reshape(-1), 0
    for lo in range(0, len(flat), _CODE_SLICE):  # a code point of 1 to 32: more of them up to 32 than not 0
        points = flat[lo : lo + _CODE_SLICE]
        nonzero = np.count_nonzero(points)
        if np.count_nonzero(points <= 32) != len(points) - nonzero or (points >= 133).any():
            return False
        filled += nonzero
    return not readable or (filled == int(lengths.sum()) and int(lengths.max()) <= MAX_ID_LENGTH)


def check_frame_ids(frame, columns: Iterable[str], what: str) -> None:
    """ClirkitError naming the first row of the DataFrame ``frame`` whose id in one of ``columns`` is missing (NaN,
    None, NA), which would otherwise become the id ``nan`` or ``None``: ``WHAT: row 3 has no qid (nan); give every
    row its id``, the row named by its index label; or, as text, is no id a run file can hold (empty, with
    whitespace: :func:`first_bad_id`): ``WHAT: row 3 has qid 'a b', which contains
    whitespace; ...``."""
    for column in columns:
        missing = frame[column].isna().to_numpy()
        if missing.any():
            pos = int(np.flatnonzero(missing)[0])
            raise ClirkitError(
                f"{what}: row {_row_label(frame, pos)} has no {column} "
                f"({_shown(frame[column].iloc[pos])}); give every row its {column}"
            )
        texts = frame[column].astype(str)
        ids = texts.to_numpy(dtype=str)
        bad = first_bad_id(ids)
        if bad is None:  # a NUL at an id's end is gone from the numpy array: seen in the lengths
            cut = np.flatnonzero(texts.str.len().to_numpy() != np.char.str_len(ids))
            bad = (int(cut[0]), "contains a NUL character") if len(cut) else None
        if bad is not None:
            pos, problem = bad
            raise ClirkitError(
                f"{what}: row {_row_label(frame, pos)} has {column} {_shown(frame[column].iloc[pos])}, which "
                f"{problem}; give every row a {column} a run file can hold ({ID_RULE})"
            )


def _row_label(frame, pos: int) -> str:
    """The index label of row ``pos`` of ``frame``, as the user sees it (``3``, ``'a'``)."""
    return _shown(frame.index[pos])


def _shown(value) -> str:
    """``value`` as the user wrote it, at most 40 characters: a numpy scalar as its Python value (``nan``, not
    ``np.float64(nan)``)."""
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 40 else text[:37] + "..."


def frame_scores(frame, what: str) -> np.ndarray:
    """The ``score`` column of ``frame`` as float64; ClirkitError naming the first row whose score is not a finite
    number (a text, a missing value, an infinity) and its value."""
    return finite_scores(frame["score"].to_numpy(), lambda i: f"{what}: row {_row_label(frame, i)}")


def finite_scores(values, row_of) -> np.ndarray:
    """``values`` (a list or array of scores) as float64; ClirkitError ``ROW has score V, not a finite number``
    for the first that is not one (a text, None, NaN, an infinity, an int beyond the float range), ``row_of(i)``
    naming its row."""
    try:
        scores = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        pos = next((i for i, v in enumerate(values) if not _is_number(v)), 0)
    else:
        bad = np.flatnonzero(~np.isfinite(scores))
        if not len(bad):
            return scores
        pos = int(bad[0])
    raise ClirkitError(
        f"{row_of(pos)} has score {_shown(values[pos])}, not a finite number; give every row a number such as 12.5"
    )


def _is_number(value) -> bool:
    try:
        return bool(np.isfinite(float(value)))
    except (TypeError, ValueError, OverflowError):
        return False


def _record_columns(records: Iterable, fields: tuple[str, ...], what: str, example: str) -> tuple[list, ...]:
    """The values of ``fields`` over ``records``, one list per field; ClirkitError naming the first record without
    one of them."""
    columns: tuple[list, ...] = tuple([] for _ in fields)
    for n, record in enumerate(records, 1):
        try:
            for column, name in zip(columns, fields):
                column.append(getattr(record, name))
        except AttributeError:
            raise ClirkitError(
                f"{what} (number {n}) has no {name} field: expected {', '.join(fields)} "
                f"(e.g. {example}), got {type(record).__name__}"
            ) from None
    return columns
