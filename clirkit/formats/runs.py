"""Runs: TREC ``qid Q0 docid rank score tag``, read (optionally cut to a depth while reading) and written
bit-exactly.

A file in the plain layout is read by :mod:`clirkit.columnar` (numpy passes over blocks of bytes); any
other, or one with a problem, by the line parser, which names the first bad line.
"""

from __future__ import annotations

import itertools
import math
import os
from operator import itemgetter
from typing import Iterable, Iterator

import numpy as np

from clirkit.errors import ClirkitError, located, quoted
from clirkit.fileio import atomic_writer, file_float
from clirkit.formats.floattext import repr_matrix
from clirkit.formats.ids import (
    INT,
    INTS,
    MAX_ID_LENGTH,
    WRITE_CHUNK,
    Coded,
    check_id,
    check_ids,
    check_tag,
    first_appearance,
    first_appearance_codes,
    parse_lines,
    plain_ids,
    repeated_pair,
)
from clirkit.parallel import check_jobs, ordered_threads, processes
from clirkit.run import Run

EMPTY_TAG = "clirkit"  # the tag of a run read from a file without lines (Run's default)
RUN_GZIP_LEVEL = 1  # a run's text compresses 2.9x at level 1 and 3.3x at 9, which takes 12x the time


def read_run(path: str | os.PathLike[str], *, depth: int | None = None) -> Run:
    """Read a TREC run ``qid Q0 docid rank score tag``.

    Queries keep the order of their first line; a query's rows need not be
    contiguous. Within a query rows are ordered by score descending, ties in
    file order (the rank column must be an integer but does not decide the
    order, as in trec_eval). The tag of the first line becomes ``Run.tag``.
    Scores must be finite numbers; a docid may appear once per query. A file
    without a result line (empty, or blank lines only: what a ranking verb
    writes when no query matched a document) is a run of no rows, tagged
    ``clirkit``; saying so is the caller's job. A missing file is a
    ClirkitError ``FILE: no such file: check the path``.

    With ``depth``, only what can be in a query's top ``depth`` in any order of
    ties is kept: the rows whose score, as a 32-bit float (trec_eval compares
    scores so), is at least the query's ``depth``-th best, ties at the cut
    included. It is applied while reading, block by block, so a deep run read
    for a shallow evaluation costs the memory of the shallow one; cut the
    result to exactly ``depth`` rows in the order you rank by (``Run.top``, or
    the evaluation's own depth).
    """
    if depth is not None and depth < 1:
        raise ClirkitError(f"depth must be at least 1, got {depth}")
    run = _read_run_columns(path, depth)
    if run is not None:
        return run
    (qpos, query_ids), (dcode, doc_ids), scores, tag = parse_lines(path, _parse_run_fast, _parse_run_checked)
    if depth is not None:
        keep = _top_rows(qpos, scores, depth)
        qpos, dcode, scores = qpos[keep], dcode[keep], scores[keep]
    order = np.lexsort((np.arange(len(scores)), -scores, qpos))
    # build the string arrays from the distinct ids, which is much cheaper than from every row
    return Run(np.array(query_ids)[qpos[order]], np.array(doc_ids)[dcode[order]], scores[order], tag=tag or EMPTY_TAG)


def _read_run_columns(path: str | os.PathLike[str], depth: int | None) -> Run | None:
    """The run of a file in the plain layout read by :mod:`clirkit.columnar` (``depth`` as in
    :func:`read_run`); None when it is not (or lists a document twice for a query, or may: then the
    line parser reads it and reports the line)."""
    from clirkit.columnar import NotPlain, strings

    try:
        blocks, tag, pairs = _run_blocks(path, depth)
    except NotPlain:
        return None
    if tag is None or (pairs is not None and _repeats_a_hash(np.concatenate(pairs))):
        return None
    checked, pairs = pairs is not None, None
    qids = strings([b[0] for b in blocks])
    blocks = [(None, d, s) for _, d, s in blocks]  # each column's blocks freed once joined
    docids = strings([b[1] for b in blocks])
    scores = np.concatenate([b[2] for b in blocks])
    del blocks
    qpos = first_appearance_codes(qids)
    if not checked and repeated_pair(qpos, docids) is not None:  # (with a depth, every row's pair was checked above)
        return None
    if depth is not None:
        keep = _top_rows(qpos, scores, depth)
        if not keep.all():  # (a copy of every column otherwise)
            qids, docids, scores, qpos = qids[keep], docids[keep], scores[keep], qpos[keep]
    rising = scores[1:] > scores[:-1]  # (compared, not subtracted: finite scores near 1e308 overflow a difference)
    in_order = (np.diff(qpos) >= 0).all() and not (rising & (np.diff(qpos) == 0)).any()
    if not in_order:
        order = np.lexsort((np.arange(len(scores)), -scores, qpos))
        qids, docids, scores = qids[order], docids[order], scores[order]
    return Run._unique_rows(qids, docids, scores, tag=tag)  # checked above


def _run_blocks(
    path: str | os.PathLike[str], depth: int | None
) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray]], str | None, list[np.ndarray] | None]:
    """Read a run file in the plain layout block by block of lines (:func:`clirkit.columnar.iter_column_batches`).

    Returns:
        the blocks, each (qid byte matrix, docid byte matrix, float64 scores), with ``depth`` cut to
        what can be in the top ``depth`` of each run of consecutive rows of a query; the tag (None
        if the file has no row); and, with ``depth``, the :func:`_pair_hashes` of every row of the
        file, cut or not, so that a repeated pair is found even when a copy falls below the depth
        (None without ``depth``: all rows are kept and checked).

    Raises:
        NotPlain: the file is not in the plain layout.
    """
    from clirkit.columnar import FLOAT, HEAD, ID, INTEGER, TOKEN, iter_column_batches

    blocks, tag = [], None
    pairs: list[np.ndarray] | None = None if depth is None else []
    for qids, _, docids, _, scores, head in iter_column_batches(
        path, ((ID, TOKEN, ID, INTEGER, FLOAT, HEAD),), max_id=MAX_ID_LENGTH
    ):
        tag = tag if tag is not None or not len(head) else str(head[0])
        if depth is not None:  # per block of lines: a query's runs of consecutive rows, each cut alone
            pairs.append(_pair_hashes(qids, docids))
            new_query = (qids[1:] != qids[:-1]).any(axis=1)
            keep = _top_rows(np.cumsum(np.concatenate(([0], new_query))), scores, depth)
            if not keep.all():
                qids, docids, scores = qids[keep], docids[keep], scores[keep]
        blocks.append((qids, docids, scores))
    return blocks, tag, pairs


_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_FNV_STEP = np.where(np.arange(256) == 0, np.uint64(1), _FNV_PRIME)  # a padding byte (0) is no step


def _pair_hashes(qids: np.ndarray, docids: np.ndarray) -> np.ndarray:
    """64-bit FNV-1a hash (uint64, one per row) of the bytes ``qid SPACE docid`` of each row of a block,
    given as the zero-padded id byte matrices of :func:`clirkit.columnar.iter_column_batches`. The
    padding is skipped, so a pair hashes alike in blocks of any width; computed a byte position at a
    time over all rows."""
    hashes = np.full(len(qids), _FNV_OFFSET, dtype=np.uint64)
    for i, matrix in enumerate((qids, docids)):
        if i:
            hashes ^= np.uint64(0x20)  # the space between: no id holds one, so qid and docid cannot blur
            hashes *= _FNV_PRIME
        for byte in matrix.T:
            hashes ^= byte
            hashes *= _FNV_STEP.take(byte)
    return hashes


def _repeats_a_hash(hashes: np.ndarray) -> bool:
    """Whether two rows share a hash (uint64, sorted in place): a repeated pair, or almost never a
    collision (the line parser then decides)."""
    hashes.sort()
    return bool((hashes[1:] == hashes[:-1]).any())


def _top_rows(groups: np.ndarray, scores: np.ndarray, depth: int) -> np.ndarray:
    """Mask of the rows that may be in their group's top ``depth`` in any order of ties: score as
    float32 >= the group's ``depth``-th best float32 score (``groups``: int64 codes, any order)."""
    sizes = np.bincount(groups)
    if not len(sizes) or sizes.max() <= depth:
        return np.ones(len(scores), dtype=bool)
    score32 = scores.astype(np.float32)
    order = np.lexsort((-score32, groups))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    cut = np.full(len(sizes), -np.inf, dtype=np.float32)
    deep = np.flatnonzero(sizes > depth)
    cut[deep] = score32[order[starts[deep] + depth - 1]]
    return score32 >= cut[groups]


_SCORE = "; give each result a finite score such as 12.5 (column 5: qid Q0 docid rank score tag)"
_RunColumns = tuple[Coded, Coded, np.ndarray, str]  # (qid codes, ids), (docid codes, ids), scores, tag


def _parse_run_fast(rows: list[tuple[int, str]]) -> _RunColumns | None:
    """Parse well-formed run lines with C-level passes; None if any line is not."""
    lines = list(map(itemgetter(1), rows))
    if set(map(len, map(str.split, lines))) != {6}:
        return None
    tokens = " ".join(lines).split()
    qids, docids, ranks, score_text = tokens[0::6], tokens[2::6], tokens[3::6], tokens[4::6]
    try:
        scores = np.fromiter(map(float, score_text), dtype=np.float64, count=len(score_text))
    except ValueError:
        return None
    written = "".join(score_text)
    if not np.isfinite(scores).all() or "_" in written or not written.isascii() or not INTS.fullmatch(" ".join(ranks)):
        return None
    queries = first_appearance(qids)
    docs = first_appearance(docids)
    if not plain_ids(queries[1] + docs[1] + tokens[5:6]):
        return None
    keys = np.sort(queries[0] * len(docs[1]) + docs[0])
    if (keys[1:] == keys[:-1]).any():
        return None
    return queries, docs, scores, tokens[5]


def _parse_run_checked(name: str, rows: list[tuple[int, str]]) -> _RunColumns:
    """Parse run lines one by one, raising ``file:line: problem`` at the first bad one."""
    qids: list[str] = []
    docids: list[str] = []
    scores: list[float] = []
    where: dict[tuple[str, str], int] = {}
    tag = ""
    for lineno, line in rows:
        cols = line.split()
        if len(cols) != 6:
            raise located(name, lineno, f"expected 6 columns (qid Q0 docid rank score tag), got {len(cols)}")
        qid, _, docid, rank, score, line_tag = cols
        check_id(name, lineno, qid, "qid")
        check_id(name, lineno, docid, "docid")
        if not tag:
            check_id(name, lineno, line_tag, "run tag")
        try:
            value = file_float(score)  # (float() alone reads '١٢'; trec_eval's atof, 0)
        except ValueError:
            value = None
        if value is None:
            raise located(name, lineno, f"score {quoted(score)} is not a number{_SCORE}")
        if not math.isfinite(value):
            raise located(name, lineno, f"score {quoted(score)} is not a finite number{_SCORE}")
        if not INT.fullmatch(rank):
            raise located(
                name,
                lineno,
                f"rank {quoted(rank)} is not an integer; give the result's rank as a whole "
                f"number (1, 2, ...) in column 4",
            )
        first = where.setdefault((qid, docid), lineno)
        if first != lineno:
            raise located(
                name,
                lineno,
                f"docid {docid} appears twice for query {qid} (first at line {first}): a run "
                f"lists a document once per query; remove one of the two lines",
            )
        tag = tag or line_tag
        qids.append(qid)
        docids.append(docid)
        scores.append(value)
    return first_appearance(qids), first_appearance(docids), np.array(scores, dtype=np.float64), tag


def write_run(
    run: Run,
    path: str | os.PathLike[str],
    *,
    depth: int | None = None,
    tag: str | None = None,
    compresslevel: int = RUN_GZIP_LEVEL,
    jobs: int = 1,
) -> None:
    """Write a run as TREC 6 columns ``qid Q0 docid rank score tag``.

    Rows are written in the Run's order with rank 1..K per query (K <= depth
    if given). ClirkitError, and nothing written, for what :func:`read_run` refuses: a score that is not a
    finite number, an id that is not one (:func:`~clirkit.formats.ids.check_ids`), a document listed twice for a
    query. A run of no rows is written as an empty file, which :func:`read_run` reads back as such.
    Scores are written as ``repr(float)``, the shortest string
    that reads back to the same float64, so write -> read is bit-exact.
    ``tag`` defaults to ``run.tag``. A path ending in ``.gz`` is gzip-compressed at ``compresslevel``
    (:data:`RUN_GZIP_LEVEL` by default).

    The lines are assembled as bytes by numpy, :data:`WRITE_CHUNK` rows at a time (:func:`_ascii_lines`): the
    ids' code points, the ranks' digits and the scores' text (:mod:`clirkit.formats.floattext`: pyarrow's cast,
    ``repr``'s bytes) side by side, by ``jobs`` threads (-1: one per core) a chunk each, written in order; a run
    with an id beyond ASCII is joined as Python strings, the same bytes.
    """
    check_jobs(jobs)
    if depth is not None:
        if depth < 1:
            raise ClirkitError(f"depth must be at least 1, got {depth}")
        run = run.top(depth)
    write_run_blocks([run], path, tag=tag, compresslevel=compresslevel, jobs=jobs)


def write_run_blocks(
    runs: Iterable[Run],
    path: str | os.PathLike[str],
    *,
    tag: str | None = None,
    compresslevel: int = RUN_GZIP_LEVEL,
    jobs: int = 1,
) -> None:
    """Write runs of different queries one after the other as one run file: the file :func:`write_run` writes of
    their rows joined in the order given, written as the runs come (the blocks of queries of a search, each
    written while the next is searched: :meth:`clirkit.bm25system.BM25System.search_structured_blocks`).

    Each run is checked as :func:`write_run` checks one before its lines are made, and a query of two runs is
    refused; on an error nothing is written (the file is renamed into place at the end). ``tag`` defaults to
    each run's own; ``compresslevel`` and ``jobs`` (threads making the lines) are :func:`write_run`'s."""
    check_jobs(jobs)
    if tag is not None:
        check_tag(tag)
    with atomic_writer(path, binary=True, compresslevel=compresslevel) as out:
        workers = 1 if jobs == 1 else processes(jobs)
        for lines in ordered_threads(_chunk_lines, _chunks(runs, tag), workers=workers):
            out.write(lines)


def _chunks(runs: Iterable[Run], tag: str | None) -> Iterator[tuple]:
    """The :data:`WRITE_CHUNK`-row pieces of ``runs`` to write, each run checked (:func:`_check_readable`, a query
    of an earlier run refused) before its first piece: ``(run, ranks, start, suffix, ASCII ids)``."""
    seen: set[str] = set()
    for run in runs:
        suffix = f" {check_tag(run.tag if tag is None else tag)}\n"
        _check_readable(run)
        again = seen.intersection(run.query_ids)
        if again:
            raise ClirkitError(
                f"cannot write query {min(again)} twice: runs written together must hold different queries"
            )
        seen.update(run.query_ids)
        ascii_ids = _is_ascii(run.qids) and _is_ascii(run.docids)
        if not ascii_ids or run.docids.dtype.itemsize // 4 > MAX_ID_LENGTH:
            check_ids(run.docids, "document id")
        ranks = run.ranks()
        yield from ((run, ranks, lo, suffix, ascii_ids) for lo in range(0, len(run), WRITE_CHUNK))


def _chunk_lines(chunk: tuple) -> bytes:
    """The lines of rows ``start : start + WRITE_CHUNK`` of a run (a piece of :func:`_chunks`): assembled by numpy
    (:func:`_ascii_lines`, mostly without the GIL) for ASCII ids, else joined as Python strings (the same bytes)."""
    run, all_ranks, lo, suffix, ascii_ids = chunk
    sl = slice(lo, lo + WRITE_CHUNK)
    if ascii_ids:
        return _ascii_lines(run.qids[sl], run.docids[sl], all_ranks[sl], run.scores[sl], suffix)
    # repr of a whole list formats every float with repr() in one C call
    ranks = repr(all_ranks[sl].tolist())[1:-1].split(", ")
    scores = repr(run.scores[sl].tolist())[1:-1].split(", ")
    fields = zip(run.qids[sl].tolist(), itertools.repeat("Q0"), run.docids[sl].tolist(), ranks, scores)
    return "".join(" ".join(f) + suffix for f in fields).encode("utf-8")


def _check_readable(run: Run) -> None:
    """ClirkitError for what :func:`read_run` would refuse in the lines of ``run``, before any is written: a score
    that is not a finite number, a query id that is no id, a document listed twice for a query."""
    finite = np.isfinite(run.scores)
    if not finite.all():
        i = int(np.argmin(finite))
        raise ClirkitError(
            f"cannot write the run's score {float(run.scores[i])!r} of query {run.qids[i]}, document "
            f"{run.docids[i]}: a run file holds finite numbers"
        )
    sizes = run.query_sizes()
    check_ids(run._query_order, "query id")  # (one per query: its rows are contiguous)
    repeat = None if run._unique_pairs else repeated_pair(np.repeat(np.arange(len(sizes)), sizes), run.docids)
    if repeat is not None:
        i, first = repeat
        raise ClirkitError(
            f"cannot write a run that lists document {run.docids[i]} twice for query {run.qids[i]} (rows "
            f"{first + 1} and {i + 1}): a run file lists a document once per query"
        )


_ASCII_SPACE = np.array([chr(c).isspace() for c in range(256)])  # indexed by the code points below 128


def _is_ascii(ids: np.ndarray) -> bool:
    """Whether every id of a str array is ASCII and without NUL (each id's characters are the non-zero
    code points of its row)."""
    ids = np.ascontiguousarray(ids)
    if ids.dtype.kind != "U" or not len(ids) or not ids.dtype.itemsize:
        return False
    chars = ids.view(np.uint32)
    return not (chars >= 128).any() and int(np.count_nonzero(chars)) == int(np.char.str_len(ids).sum())


def _id_matrix(ids: np.ndarray, what: str) -> np.ndarray:
    """ASCII ids without NUL (:func:`_is_ascii`) as a (row, character) uint8 matrix padded with zeros, checked as
    :func:`clirkit.formats.ids.check_ids` checks them (non-empty, no whitespace)."""
    ids = np.ascontiguousarray(ids)
    chars = ids.view(np.uint32).reshape(len(ids), ids.dtype.itemsize // 4).astype(np.uint8)
    if not chars[:, 0].all():
        raise ClirkitError(f"cannot write an empty {what}")
    spaced = _ASCII_SPACE[chars].any(axis=1)
    if spaced.any():
        raise ClirkitError(f"cannot write {what} {str(ids[int(np.flatnonzero(spaced)[0])])!r}: it contains whitespace")
    return chars


def _digit_matrix(values: np.ndarray) -> np.ndarray:
    """The decimal digits of positive integers as a (row, digit) uint8 matrix padded with zeros; looked up in the
    matrix of 0 to the largest value when that is shorter (ranks: 1 to a query's rows)."""
    top = int(values.max(initial=0))
    if top + 1 < len(values):
        return _digit_matrix(np.arange(top + 1))[values]
    lengths = np.searchsorted(_POWERS_OF_TEN[1:], values, side="right") + 1
    places = lengths[:, None] - 1 - np.arange(int(lengths.max(initial=1)))  # each digit's power of ten; < 0: past
    digits = (values[:, None] // _POWERS_OF_TEN[np.maximum(places, 0)] % 10 + 48).astype(np.uint8)
    digits[places < 0] = 0
    return digits


_POWERS_OF_TEN = 10 ** np.arange(19, dtype=np.int64)


def _ascii_lines(qids: np.ndarray, docids: np.ndarray, ranks: np.ndarray, scores: np.ndarray, suffix: str) -> bytes:
    """The lines ``qid Q0 docid rank score`` + ``suffix`` of rows with ASCII ids and no NUL (at least one), the
    scores written as ``repr`` writes them (:func:`clirkit.formats.floattext.repr_matrix`): the columns side by
    side in one (row, byte) matrix, each padded with zeros, and the zeros dropped."""
    n = len(qids)

    def constant(text: str) -> np.ndarray:
        return np.broadcast_to(np.frombuffer(text.encode("utf-8"), dtype=np.uint8), (n, len(text.encode("utf-8"))))

    matrix = np.hstack(
        [
            _id_matrix(qids, "query id"),
            constant(" Q0 "),
            _id_matrix(docids, "document id"),
            constant(" "),
            _digit_matrix(ranks),
            constant(" "),
            repr_matrix(scores),
            constant(suffix),
        ]
    )
    return matrix[matrix != 0].tobytes()


def first_line_where(path: str | os.PathLike[str], wanted) -> tuple[int, list[str]] | None:
    """``(line number, fields)`` of the first line of the run file at ``path`` whose fields (the line split on
    whitespace, padded with "" to the six of a run line) ``wanted(fields)`` holds true of; None when none does or
    ``path`` is ``-`` (stdin, read once). The file is read again, for a message naming the line of a row found
    wanting after the run was read (an unknown document, a negative score)."""
    from clirkit.fileio import iter_lines

    if str(path) == "-":
        return None
    for lineno, line in iter_lines(path):
        fields = line.split()
        fields += [""] * (6 - len(fields))
        if wanted(fields):
            return lineno, fields
    return None


def below_zero(score: str) -> bool:
    """Whether a run line's score field is a number below 0 (False for one that is not a number)."""
    try:
        return float(score) < 0
    except ValueError:
        return False
