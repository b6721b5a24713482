"""Relevance judgments: TREC ``qid iter docid rel`` or the 3-column ``qid docid rel``; and their writer.

A file in the plain layout is read by :mod:`clirkit.columnar` (numpy passes over blocks of bytes); any
other, or one with a problem, by the line parser, which names the first bad line.
"""

from __future__ import annotations

import os
from operator import itemgetter

import numpy as np

from clirkit.errors import ClirkitError, located, quoted
from clirkit.fileio import atomic_writer
from clirkit.formats.ids import (
    INT,
    INTS,
    MAX_ID_LENGTH,
    check_id,
    check_ids,
    chunks,
    first_appearance,
    first_appearance_codes,
    parse_lines,
    plain_ids,
    repeated_pair,
)
from clirkit.run import Qrels

_GRADES = "; give an integer grade (0: not relevant; 1, 2, ...: relevant)"


def read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read judgments: TREC ``qid iter docid rel`` or ``qid docid rel``.

    Columns are whitespace-separated; the first line decides between 4 and 3
    columns and every later line must match. ``rel`` is an integer grade
    (<= 0 means not relevant); ``iter`` is ignored. Rows keep file order.
    A file without a judgment line (empty, or blank lines only) is a ClirkitError ``FILE: the qrels judge
    nothing``: every consumer (evaluation, tuning, datasets) needs a judgment; a missing file is
    ``FILE: no such file: check the path``.
    """
    qrels = _read_qrels_columns(path)
    if qrels is not None:
        return qrels
    qids, docids, rels = parse_lines(path, _parse_qrels_fast, _parse_qrels_checked)
    return Qrels(np.array(qids), np.array(docids), np.array(rels, dtype=np.int64))


def _read_qrels_columns(path: str | os.PathLike[str]) -> Qrels | None:
    """The qrels of a file in the plain layout read by :mod:`clirkit.columnar`; None when it is not
    (or judges a pair twice), for the line parser to read or to report."""
    from clirkit.columnar import GRADE, ID, TOKEN, NotPlain, iter_column_batches, strings

    blocks = []
    try:
        for columns in iter_column_batches(path, ((ID, TOKEN, ID, GRADE), (ID, ID, GRADE)), max_id=MAX_ID_LENGTH):
            blocks.append([c for c in columns if c is not None])
    except NotPlain:
        return None
    if not sum(len(b[2]) for b in blocks):
        return None
    qids, docids = strings([b[0] for b in blocks]), strings([b[1] for b in blocks])
    rels = np.concatenate([b[2] for b in blocks])
    if repeated_pair(first_appearance_codes(qids), docids) is not None:
        return None
    return Qrels(qids, docids, rels)


def _parse_qrels_fast(rows: list[tuple[int, str]]) -> tuple[list[str], list[str], list[int]] | None:
    """Parse well-formed qrels lines with C-level passes; None if any line is not."""
    lines = list(map(itemgetter(1), rows))
    widths = set(map(len, map(str.split, lines)))
    if widths not in ({3}, {4}):
        return None
    (ncols,) = widths
    tokens = " ".join(lines).split()
    qids, docids, grades = tokens[0::ncols], tokens[ncols - 2 :: ncols], tokens[ncols - 1 :: ncols]
    if not INTS.fullmatch(" ".join(grades)) or max(map(len, grades), default=0) > 9:
        return None
    (q_codes, q_distinct), (d_codes, d_distinct) = first_appearance(qids), first_appearance(docids)
    if not plain_ids(q_distinct + d_distinct):
        return None
    keys = np.sort(q_codes * len(d_distinct) + d_codes)
    if (keys[1:] == keys[:-1]).any():  # a (qid, docid) pair judged twice
        return None
    return qids, docids, list(map(int, grades))


def _parse_qrels_checked(name: str, rows: list[tuple[int, str]]) -> tuple[list[str], list[str], list[int]]:
    """Parse qrels lines one by one, raising ``file:line: problem`` at the first bad one (``file: the qrels
    judge nothing`` when there is no line: no consumer has a use for such qrels)."""
    if not rows:
        raise located(
            name, None, "the qrels judge nothing (no judgment line; a qrels file holds qid iter docid rel lines)"
        )
    qids: list[str] = []
    docids: list[str] = []
    rels: list[int] = []
    where: dict[tuple[str, str], int] = {}
    ncols = 0
    for lineno, line in rows:
        cols = line.split()
        if ncols == 0:
            if len(cols) not in (3, 4):
                raise located(name, lineno, f"expected 4 columns (qid iter docid rel) or 3, got {len(cols)}")
            ncols = len(cols)
        elif len(cols) != ncols:
            layout = "qid iter docid rel" if ncols == 4 else "qid docid rel"
            raise located(name, lineno, f"expected {ncols} columns ({layout}) like line 1, got {len(cols)}")
        qid, docid, rel = check_id(name, lineno, cols[0], "qid"), check_id(name, lineno, cols[-2], "docid"), cols[-1]
        if not INT.fullmatch(rel):
            raise located(name, lineno, f"relevance grade {quoted(rel)} is not an integer{_GRADES}")
        if len(rel.lstrip("+-")) > 9:
            raise located(name, lineno, f"relevance grade {quoted(rel, 20)} is out of range (|grade| < 10^9){_GRADES}")
        first = where.setdefault((qid, docid), lineno)
        if first != lineno:
            raise located(
                name,
                lineno,
                f"docid {docid} appears twice for query {qid} (first at line {first}): a "
                f"document is judged once per query; remove one of the two lines",
            )
        qids.append(qid)
        docids.append(docid)
        rels.append(int(rel))
    return qids, docids, rels


def write_qrels(qrels: Qrels, path: str | os.PathLike[str]) -> None:
    """Write judgments as TREC 4 columns ``qid 0 docid rel``, in the Qrels' row order. ClirkitError, and nothing
    written, for what :func:`read_qrels` refuses: an id that is not one (:func:`~clirkit.formats.ids.check_ids`), a
    grade of more than 9 digits, a document judged twice for a query. Qrels of no row are written as an empty file
    (a collection's split without judgments), which :func:`read_qrels` refuses as judging nothing when it is read."""
    check_ids(qrels.qids, "query id")
    check_ids(qrels.docids, "document id")
    wide = (qrels.rels >= 10**9) | (qrels.rels <= -(10**9))  # (not np.abs: it overflows at -2**63)
    if wide.any():
        i = int(np.argmax(wide))
        raise ClirkitError(
            f"cannot write relevance grade {int(qrels.rels[i])} of query {qrels.qids[i]}, document "
            f"{qrels.docids[i]}: a qrels file holds grades of at most 9 digits"
        )
    repeat = repeated_pair(first_appearance_codes(qrels.qids), qrels.docids) if len(qrels) else None
    if repeat is not None:
        i, first = repeat
        raise ClirkitError(
            f"cannot write qrels that judge document {qrels.docids[i]} twice for query {qrels.qids[i]} (rows "
            f"{first + 1} and {i + 1}): a qrels file judges a document once per query"
        )
    rows = zip(qrels.qids.tolist(), qrels.docids.tolist(), qrels.rels.tolist())
    with atomic_writer(path) as out:
        for chunk in chunks(rows):
            out.write("".join([f"{q} 0 {d} {r}\n" for q, d, r in chunk]))


def check_judged_documents(path, judged: list[Qrels], known: set[str], documents) -> None:
    """ClirkitError ``path:LINE: N of the M judgments name documents not in DOCUMENTS (the first: DOCID)`` when
    judgments of ``judged`` (the :class:`~clirkit.run.Qrels` read from ``path``, of the queries kept) name a
    document not in ``known`` (the ids of the file ``documents``): every measure would count them as relevant
    documents no run can find (a run of the wrong collection scores 0 with no word), and training would leave
    them out, so the qrels and documents disagree."""
    from clirkit.fileio import iter_lines

    missing: set[tuple[str, str]] = set()
    total = 0
    for kept in judged:
        total += len(kept)
        out = np.fromiter((d not in known for d in kept.docids.tolist()), dtype=bool, count=len(kept))
        missing.update(zip(kept.qids[out].tolist(), kept.docids[out].tolist()))
    if not missing:
        return
    line, first = None, min(missing)
    for lineno, text in iter_lines(path):  # the first such judgment in file order (a pair is judged once)
        fields = text.split()
        if len(fields) in (3, 4) and (fields[0], fields[-2]) in missing:
            line, first = lineno, (fields[0], fields[-2])
            break
    n = len(missing)
    names = "names a document" if n == 1 else "name documents"
    raise located(
        path,
        line,
        f"{n:,} of the {total:,} judgments {names} not in {documents} (the first: query {first[0]}, document "
        f"{first[1]}): are these the qrels of these documents?",
    )
