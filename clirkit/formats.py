"""Reading and writing the text formats of IR experiments (SPEC §1).

- queries: ``qid TAB text``, JSONL ``{"qid": ..., "text": ...}``, TREC ``<top>`` topics;
- documents: ``docid TAB text`` or JSONL ``{"docid": ..., "text": ...}``, streamed;
- qrels: TREC ``qid iter docid rel`` or the 3-column ``qid docid rel``;
- runs: TREC ``qid Q0 docid rank score tag``.

Reading is strict: every problem is a :class:`~clirkit.errors.ClirkitError`
whose message is ``file:line: problem``. All reading goes through
:func:`clirkit.fileio.iter_lines` (``.gz`` and ``-`` for stdin work
everywhere) and all writing through :func:`clirkit.fileio.atomic_writer`
(nothing half-written; a ``.gz`` name is compressed).
"""
from __future__ import annotations

import itertools
import json
import math
import os
import re
from operator import itemgetter
from typing import Iterable, Iterator, Mapping

import numpy as np

from clirkit.errors import ClirkitError, located
from clirkit.fileio import atomic_writer, display_name, iter_lines
from clirkit.run import Qrels, Run

_JSON_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz")
_QUERY_FORMATS = ("auto", "tsv", "jsonl", "trec")
_DOC_FORMATS = ("auto", "tsv", "jsonl")
_TOPIC_FIELDS = ("title", "desc", "narr")
_WRITE_CHUNK = 100_000  # rows joined into one string per write


# --------------------------------------------------------------------------- helpers

def _is_json_name(path: str | os.PathLike[str]) -> bool:
    return str(path).lower().endswith(_JSON_SUFFIXES)


def _check_format(fmt: str, allowed: tuple[str, ...], what: str) -> None:
    if fmt not in allowed:
        raise ClirkitError(f"unknown {what} format {fmt!r} (choose {', '.join(allowed[:-1])} or {allowed[-1]})")


_SPACE = re.compile(r"\s")


def _has_space(s: str) -> bool:
    return _SPACE.search(s) is not None


def _split_tab(name: str, lineno: int, line: str, key: str) -> tuple[str, str]:
    """``key TAB text`` split on the first tab; the text is kept whole."""
    key_value, tab, text = line.partition("\t")
    if not tab:
        raise located(name, lineno, f"expected {key} TAB text, found no tab")
    return _check_id(name, lineno, key_value, key), text


MAX_ID_LENGTH = 1000  # characters; ids live in fixed-width numpy string arrays


def _check_id(name: str, lineno: int, value: str, key: str) -> str:
    if not value:
        raise located(name, lineno, f"empty {key}")
    if _has_space(value):
        raise located(name, lineno, f"{key} {value[:50]!r} contains whitespace")
    if len(value) > MAX_ID_LENGTH:
        raise located(name, lineno, f"{key} of {len(value):,} characters (at most {MAX_ID_LENGTH:,})")
    return value


def _json_record(name: str, lineno: int, line: str, key: str) -> tuple[str, str]:
    """``(id, text)`` of one JSONL line ``{key: id, "text": text}``."""
    try:
        obj = json.loads(line)
    except RecursionError:
        raise located(name, lineno, "JSON nested too deeply") from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # e.g. an integer of thousands of digits
            raise located(name, lineno, f"invalid JSON: {exc}") from None
        if lineno == 1 and line.lstrip().startswith("["):
            raise located(name, lineno, "expected one JSON object per line (JSONL), found a JSON array") from None
        raise located(name, lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise located(name, lineno, f"expected a JSON object, got {type(obj).__name__}")
    for k in (key, "text"):
        if k not in obj:
            raise located(name, lineno, f'missing key "{k}"')
    ident, text = obj[key], obj["text"]
    if isinstance(ident, int) and not isinstance(ident, bool):
        ident = str(ident)
    if not isinstance(ident, str):
        raise located(name, lineno, f'"{key}" must be a string, got {type(ident).__name__}')
    if not isinstance(text, str):
        raise located(name, lineno, f'"text" must be a string, got {type(text).__name__}')
    for what, value in ((key, ident), ("text", text)):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise located(name, lineno, f'"{what}" holds an unpaired surrogate {value[exc.start]!r} '
                                        "(not valid Unicode)") from None
    return _check_id(name, lineno, ident, key), text


def _check_writable_text(key: str, ident: str, text: str, *, tsv: bool) -> None:
    if not ident or _has_space(ident):
        raise ClirkitError(f"cannot write {key} {ident!r}: ids must be non-empty and contain no whitespace")
    if tsv and ("\n" in text or "\r" in text):
        raise ClirkitError(f"cannot write the text of {key} {ident!r} as TSV: it contains a line break")


def _write_records(records: Iterable[tuple[str, str]], path: str | os.PathLike[str], key: str) -> None:
    """Write ``(id, text)`` pairs as TSV, or JSONL if the name ends .jsonl/.json."""
    as_json = _is_json_name(path)
    with atomic_writer(path) as out:
        for chunk in _chunks(iter(records)):
            lines = []
            for ident, text in chunk:
                _check_writable_text(key, ident, text, tsv=not as_json)
                if as_json:
                    lines.append(json.dumps({key: ident, "text": text}, ensure_ascii=False))
                else:
                    lines.append(f"{ident}\t{text}")
            out.write("\n".join(lines))
            out.write("\n")


# --------------------------------------------------------------------------- queries

def read_queries(path: str | os.PathLike[str], *, fmt: str = "auto", field: str = "title") -> dict[str, str]:
    """Read queries as ``{qid: text}`` in file order.

    Args:
        path: a file (``.gz`` accepted) or ``-`` for stdin.
        fmt: ``tsv`` (``qid TAB text``; the text is everything after the
            first tab), ``jsonl`` (``{"qid": ..., "text": ...}`` per line),
            ``trec`` (``<top>`` topics) or ``auto``: JSONL if the name ends
            ``.jsonl``/``.json`` (optionally ``.gz``), TREC if the first
            non-blank line starts with ``<top>``, otherwise TSV.
        field: for TREC topics, which part is the query text: ``title``,
            ``desc``, ``narr`` or several joined by ``+`` (``title+desc``).
            Whitespace inside a TREC field is collapsed to single spaces.

    Raises:
        ClirkitError: ``file:line: problem`` for malformed lines, duplicate
            query ids, or an input without queries.
    """
    _check_format(fmt, _QUERY_FORMATS, "query")
    parts = _topic_fields(field)
    name = display_name(path)
    lines = iter_lines(path)
    first = next(lines, None)
    if first is None:
        raise located(name, None, "empty: no queries found")
    lines = itertools.chain([first], lines)
    if fmt == "auto":
        if _is_json_name(path):
            fmt = "jsonl"
        elif first[1].lstrip().lower().startswith("<top>"):
            fmt = "trec"
        else:
            fmt = "tsv"
    if fmt == "trec":
        return _read_trec_topics(name, lines, parts)
    if field != "title":
        raise ClirkitError(f"{name}: field={field!r} applies to TREC topics only; this file is read as {fmt.upper()}")
    queries: dict[str, str] = {}
    where: dict[str, int] = {}
    for lineno, line in lines:
        if fmt == "jsonl":
            qid, text = _json_record(name, lineno, line, "qid")
        else:
            qid, text = _split_tab(name, lineno, line, "qid")
        if qid in where:
            raise located(name, lineno, f"query id {qid} appears twice (first at line {where[qid]})")
        where[qid] = lineno
        queries[qid] = text
    return queries


def _topic_fields(field: str) -> list[str]:
    parts = field.split("+")
    if not all(p in _TOPIC_FIELDS for p in parts):
        raise ClirkitError(f"unknown topic field {field!r} (choose title, desc, narr or a combination like title+desc)")
    return parts


# a tag such as <top>, </title>, <EN-desc> (CLEF prefixes the language)
_TAG = re.compile(r"<(/?)(?:[A-Za-z]{2}-)?([A-Za-z]+)>")
_PREFIX = {
    "num": re.compile(r"^\s*number\s*:", re.I),
    "title": re.compile(r"^\s*topic\s*:", re.I),
    "desc": re.compile(r"^\s*description\s*:", re.I),
    "narr": re.compile(r"^\s*narrative\s*:", re.I),
}


def _read_trec_topics(name: str, lines: Iterator[tuple[int, str]], parts: list[str]) -> dict[str, str]:
    """Parse TREC ``<top>`` topics; field tags may be left unclosed (as in TREC files)."""
    queries: dict[str, str] = {}
    where: dict[str, int] = {}
    top_line: int | None = None  # line of the open <top>, None outside a topic
    fields: dict[str, list[str]] = {}
    num_line = 0
    current: str | None = None  # field receiving text; "" = an ignored field (<dom>, <con>, ...)

    def close_topic() -> None:
        if "num" not in fields:
            raise located(name, top_line, "topic has no <num>")
        qid = " ".join(_PREFIX["num"].sub("", " ".join(fields["num"]), count=1).split())
        if not qid:
            raise located(name, num_line, "empty topic number in <num>")
        if _has_space(qid):
            raise located(name, num_line, f"topic number {qid!r} contains whitespace")
        if qid in where:
            raise located(name, num_line, f"query id {qid} appears twice (first at line {where[qid]})")
        texts = []
        for p in parts:
            if p not in fields:
                raise located(name, top_line, f"topic {qid} has no <{p}>")
            texts.append(" ".join(_PREFIX[p].sub("", " ".join(fields[p]), count=1).split()))
        where[qid] = num_line
        queries[qid] = " ".join(t for t in texts if t)

    for lineno, line in lines:
        pos = 0
        for m in itertools.chain(_TAG.finditer(line), [None]):
            chunk = line[pos:m.start()] if m is not None else line[pos:]
            if chunk.strip():
                if top_line is None:
                    raise located(name, lineno, f"text outside <top> ... </top>: {chunk.strip()[:40]!r}")
                if current:
                    fields[current].append(chunk)
            if m is None:
                break
            pos = m.end()
            closing, tag = m.group(1) == "/", m.group(2).lower()
            if tag == "top":
                if not closing:
                    if top_line is not None:
                        raise located(name, lineno, f"<top> inside the topic opened at line {top_line} (missing </top>)")
                    top_line, fields, current = lineno, {}, None
                else:
                    if top_line is None:
                        raise located(name, lineno, "</top> without <top>")
                    close_topic()
                    top_line, current = None, None
            elif top_line is None:
                raise located(name, lineno, f"<{m.group(1)}{tag}> outside <top> ... </top>")
            elif closing:
                current = None
            elif tag in ("num",) + _TOPIC_FIELDS:
                if tag in fields:
                    raise located(name, lineno, f"second <{tag}> in the topic opened at line {top_line}")
                fields[tag] = []
                current = tag
                if tag == "num":
                    num_line = lineno
            else:
                current = ""
    if top_line is not None:
        raise located(name, top_line, "<top> is never closed by </top>")
    if not queries:
        raise located(name, None, "no <top> topics found")
    return queries


def write_queries(queries: Mapping[str, str], path: str | os.PathLike[str]) -> None:
    """Write ``{qid: text}`` as ``qid TAB text`` lines (JSONL if the name ends .jsonl/.json).

    Raises ClirkitError for an id with whitespace or a TSV text with a line break.
    """
    _write_records(queries.items(), path, "qid")


# --------------------------------------------------------------------------- documents

def _iter_documents_located(path: str | os.PathLike[str], fmt: str) -> Iterator[tuple[int, str, str]]:
    _check_format(fmt, _DOC_FORMATS, "document")
    name = display_name(path)
    if fmt == "auto":
        fmt = "jsonl" if _is_json_name(path) else "tsv"
    found = False
    for lineno, line in iter_lines(path):
        if fmt == "jsonl":
            docid, text = _json_record(name, lineno, line, "docid")
        else:
            docid, text = _split_tab(name, lineno, line, "docid")
        found = True
        yield lineno, docid, text
    if not found:
        raise located(name, None, "empty: no documents found")


def iter_documents(path: str | os.PathLike[str], *, fmt: str = "auto") -> Iterator[tuple[str, str]]:
    """Stream ``(docid, text)`` pairs in file order.

    ``fmt``: ``tsv`` (``docid TAB text``), ``jsonl`` (``{"docid", "text"}``)
    or ``auto`` (JSONL if the name ends .jsonl/.json, optionally .gz, else
    TSV). Duplicates are not checked here (see :func:`read_documents`).
    """
    for _, docid, text in _iter_documents_located(path, fmt):
        yield docid, text


def read_documents(path: str | os.PathLike[str], *, fmt: str = "auto") -> tuple[list[str], list[str]]:
    """Read a whole collection as ``(docids, texts)`` in file order; a repeated docid is an error."""
    name = display_name(path)
    docids: list[str] = []
    texts: list[str] = []
    where: dict[str, int] = {}
    for lineno, docid, text in _iter_documents_located(path, fmt):
        first = where.setdefault(docid, lineno)
        if first != lineno:
            raise located(name, lineno, f"document id {docid} appears twice (first at line {first})")
        docids.append(docid)
        texts.append(text)
    return docids, texts


def write_documents(docids: Iterable[str], texts: Iterable[str], path: str | os.PathLike[str]) -> None:
    """Write documents as ``docid TAB text`` lines (JSONL if the name ends .jsonl/.json)."""
    docids, texts = list(docids), list(texts)
    if len(docids) != len(texts):
        raise ValueError(f"{len(docids)} docids but {len(texts)} texts")
    _write_records(zip(docids, texts), path, "docid")


# --------------------------------------------------------------------------- qrels

_INT = re.compile(r"[+-]?[0-9]+")
_INTS = re.compile(r"[+-]?[0-9]+(?: [+-]?[0-9]+)*")  # space-separated integers


def read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read judgments: TREC ``qid iter docid rel`` or ``qid docid rel``.

    Columns are whitespace-separated; the first line decides between 4 and 3
    columns and every later line must match. ``rel`` is an integer grade
    (<= 0 means not relevant); ``iter`` is ignored. Rows keep file order.
    """
    name = display_name(path)
    rows = list(iter_lines(path))
    if not rows:
        raise located(name, None, "empty: no judgments found")
    parsed = _parse_qrels_fast(rows)
    if parsed is None:  # something is wrong: find and report the first bad line
        parsed = _parse_qrels_checked(name, rows)
    qids, docids, rels = parsed
    return Qrels(np.array(qids), np.array(docids), np.array(rels, dtype=np.int64))


def _parse_qrels_fast(rows: list[tuple[int, str]]) -> tuple[list[str], list[str], list[int]] | None:
    """Parse well-formed qrels lines with C-level passes; None if any line is not."""
    lines = list(map(itemgetter(1), rows))
    widths = set(map(len, map(str.split, lines)))
    if widths not in ({3}, {4}):
        return None
    (ncols,) = widths
    tokens = " ".join(lines).split()
    qids, docids, grades = tokens[0::ncols], tokens[ncols - 2::ncols], tokens[ncols - 1::ncols]
    if not _INTS.fullmatch(" ".join(grades)) or max(map(len, grades), default=0) > 9:
        return None
    if _has_duplicate_pair(qids, docids):
        return None
    return qids, docids, list(map(int, grades))


def _parse_qrels_checked(name: str, rows: list[tuple[int, str]]) -> tuple[list[str], list[str], list[int]]:
    """Parse qrels lines one by one, raising ``file:line: problem`` at the first bad one."""
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
        qid, docid, rel = cols[0], cols[-2], cols[-1]
        if not _INT.fullmatch(rel):
            raise located(name, lineno, f"relevance grade {rel!r} is not an integer")
        if len(rel.lstrip("+-")) > 9:
            raise located(name, lineno, f"relevance grade {rel[:20]!r} is out of range (|grade| < 10^9)")
        first = where.setdefault((qid, docid), lineno)
        if first != lineno:
            raise located(name, lineno, f"docid {docid} appears twice for query {qid} (first at line {first})")
        qids.append(qid)
        docids.append(docid)
        rels.append(int(rel))
    return qids, docids, rels


def _has_duplicate_pair(qids: list[str], docids: list[str]) -> bool:
    keys = np.sort(_first_appearance(qids)[0] * len(set(docids)) + _first_appearance(docids)[0])
    return bool((keys[1:] == keys[:-1]).any())


def write_qrels(qrels: Qrels, path: str | os.PathLike[str]) -> None:
    """Write judgments as TREC 4 columns ``qid 0 docid rel``, in the Qrels' row order."""
    _check_ids(qrels.qids, "query id")
    _check_ids(qrels.docids, "document id")
    rows = zip(qrels.qids.tolist(), qrels.docids.tolist(), qrels.rels.tolist())
    with atomic_writer(path) as out:
        for chunk in _chunks(rows):
            out.write("".join([f"{q} 0 {d} {r}\n" for q, d, r in chunk]))


# --------------------------------------------------------------------------- runs

def read_run(path: str | os.PathLike[str]) -> Run:
    """Read a TREC run ``qid Q0 docid rank score tag``.

    Queries keep the order of their first line; a query's rows need not be
    contiguous. Within a query rows are ordered by score descending, ties in
    file order (the rank column must be an integer but does not decide the
    order, as in trec_eval). The tag of the first line becomes ``Run.tag``.
    Scores must be finite numbers; a docid may appear once per query.
    """
    name = display_name(path)
    rows = list(iter_lines(path))
    if not rows:
        raise located(name, None, "empty: no results found")
    parsed = _parse_run_fast(rows)
    if parsed is None:  # something is wrong: find and report the first bad line
        parsed = _parse_run_checked(name, rows)
    (qpos, query_ids), (dcode, doc_ids), scores, tag = parsed
    order = np.lexsort((np.arange(len(scores)), -scores, qpos))
    # build the string arrays from the distinct ids, which is much cheaper than from every row
    return Run(np.array(query_ids)[qpos[order]], np.array(doc_ids)[dcode[order]], scores[order], tag=tag)


_Coded = tuple[np.ndarray, list[str]]
_RunColumns = tuple[_Coded, _Coded, np.ndarray, str]  # (qid codes, ids), (docid codes, ids), scores, tag


def _first_appearance(values: list[str]) -> _Coded:
    """Code each value by the order of its first appearance; also return the distinct values."""
    distinct = list(dict.fromkeys(values))
    code = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(code.__getitem__, values), dtype=np.int64, count=len(values)), distinct


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
    if not np.isfinite(scores).all() or "_" in "".join(score_text) or not _INTS.fullmatch(" ".join(ranks)):
        return None
    queries = _first_appearance(qids)
    docs = _first_appearance(docids)
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
        try:
            value = float(score)
        except ValueError:
            value = None
        if value is None or "_" in score:
            raise located(name, lineno, f"score {score!r} is not a number")
        if not math.isfinite(value):
            raise located(name, lineno, f"score {score!r} is not a finite number")
        if not _INT.fullmatch(rank):
            raise located(name, lineno, f"rank {rank!r} is not an integer")
        first = where.setdefault((qid, docid), lineno)
        if first != lineno:
            raise located(name, lineno, f"docid {docid} appears twice for query {qid} (first at line {first})")
        tag = tag or line_tag
        qids.append(qid)
        docids.append(docid)
        scores.append(value)
    return _first_appearance(qids), _first_appearance(docids), np.array(scores, dtype=np.float64), tag


def write_run(run: Run, path: str | os.PathLike[str], *, depth: int | None = None, tag: str | None = None) -> None:
    """Write a run as TREC 6 columns ``qid Q0 docid rank score tag``.

    Rows are written in the Run's order with rank 1..K per query (K <= depth
    if given). Scores are written as ``repr(float)``, the shortest string
    that reads back to the same float64, so write -> read is bit-exact.
    ``tag`` defaults to ``run.tag``.
    """
    tag = run.tag if tag is None else tag
    if not tag or _has_space(tag):
        raise ClirkitError(f"run tag {tag!r} must be non-empty and contain no whitespace")
    if depth is not None:
        if depth < 1:
            raise ClirkitError(f"depth must be at least 1, got {depth}")
        run = run.top(depth)
    if not np.isfinite(run.scores).all():
        bad = int(np.flatnonzero(~np.isfinite(run.scores))[0])
        raise ValueError(f"run score of query {run.qids[bad]}, document {run.docids[bad]} is {run.scores[bad]}")
    _check_ids(run.qids, "query id")
    _check_ids(run.docids, "document id")
    all_ranks = run.ranks()
    with atomic_writer(path) as out:
        for lo in range(0, len(run), _WRITE_CHUNK):
            sl = slice(lo, lo + _WRITE_CHUNK)
            # repr of a whole list formats every float with repr() in one C call
            ranks = repr(all_ranks[sl].tolist())[1:-1].split(", ")
            scores = repr(run.scores[sl].tolist())[1:-1].split(", ")
            fields = zip(run.qids[sl].tolist(), itertools.repeat("Q0"), run.docids[sl].tolist(), ranks, scores,
                         itertools.repeat(f"{tag}\n"))
            out.write("".join(map(" ".join, fields)))


def _chunks(rows: Iterator) -> Iterator[list]:
    while chunk := list(itertools.islice(rows, _WRITE_CHUNK)):
        yield chunk


def _check_ids(ids: np.ndarray, what: str) -> None:
    """Ids written into whitespace-separated files must be non-empty and space-free."""
    unique = set(ids.tolist())
    if "" in unique:
        raise ClirkitError(f"cannot write an empty {what}")
    if _has_space("".join(unique)):
        bad = next(i for i in unique if _has_space(i))
        raise ClirkitError(f"cannot write {what} {bad!r}: it contains whitespace")
