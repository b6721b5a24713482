"""Reading and writing the text formats of IR experiments (SPEC §1).

- queries: ``qid TAB text``, JSONL ``{"qid": ..., "text": ...}``, TREC ``<top>`` topics;
- documents: ``docid TAB text`` or JSONL ``{"docid": ..., "text": ...}``, streamed;
- the field names other tools use (ir_datasets ``doc_id``/``query_id``, Pyserini
  ``id``/``contents``, BEIR ``_id``/``title``/``text``) are detected (:func:`choose_fields`)
  or named (``id_field=``, ``text_fields=``); a TSV header line (``docid TAB text``) is
  detected or declared (``header=``) and never read as data;
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
from typing import Iterable, Iterator, Mapping, NamedTuple, Sequence

import numpy as np

from clirkit import topics
from clirkit.errors import ClirkitError, located
from clirkit.fileio import GZIP_ERRORS, atomic_writer, damaged_gzip, display_name, iter_lines, open_binary
from clirkit.run import Qrels, Run

_JSON_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz")
_QUERY_FORMATS = ("auto", "tsv", "jsonl", "trec", "clef", "ntcir", "hc4")
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


MAX_ID_LENGTH = 1000  # characters; ids live in fixed-width numpy string arrays


def check_id(name: str, lineno: int | None, value: str, key: str) -> str:
    """``value`` if it can be an id (a docid, a qid, a word): non-empty, without whitespace, without NUL (numpy
    string arrays drop trailing NULs, so ``"d\\0"`` would silently become ``"d"``), at most
    :data:`MAX_ID_LENGTH` characters; else ``ClirkitError("name:lineno: problem")`` naming ``key``."""
    if not value:
        raise located(name, lineno, f"empty {key}")
    if _has_space(value):
        raise located(name, lineno, f"{key} {value[:50]!r} contains whitespace")
    if "\0" in value:
        raise located(name, lineno, f"{key} {value[:50]!r} contains a NUL character")
    if len(value) > MAX_ID_LENGTH:
        raise located(name, lineno, f"{key} of {len(value):,} characters (at most {MAX_ID_LENGTH:,})")
    return value


_check_id = check_id  # the name the ir_datasets adapter uses


# --------------------------------------------------------------------------- field names

DOC_ID_FIELDS = ("docid", "doc_id", "id", "_id")
"""Keys that may hold a document id, in the order looked for (clirkit, ir_datasets, Pyserini, BEIR)."""
DOC_TEXT_FIELDS = (("title", "text"), ("text",), ("contents",))
"""Keys that may hold a document's text, in the order looked for: ``title`` and ``text`` together are
joined, title first (:data:`TEXT_SEPARATOR`); else ``text``; else ``contents``."""
QUERY_ID_FIELDS = ("qid", "query_id", "id", "_id")
"""Keys that may hold a query id, in the order looked for."""
QUERY_TEXT_FIELDS = (("title",), ("description",), ("text",))
"""Keys that may hold a query's text, in the order looked for (TREC-style topics: the title)."""
TEXT_SEPARATOR = " "
"""Between the parts of a text made of several fields (``title`` + ``text``); empty parts are left out."""

# A first TSV line is a header when its columns are distinct names from these two sets, at least one of each.
_HEADER_IDS = frozenset(DOC_ID_FIELDS + QUERY_ID_FIELDS + ("osis_id",))
_HEADER_TEXTS = frozenset(("text", "contents", "title", "description", "narrative"))


class _Kind(NamedTuple):
    what: str  # "document" or "query", in messages
    key: str  # the id's name in messages about a file without names: "docid", "qid"
    ids: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]


_DOCUMENT = _Kind("document", "docid", DOC_ID_FIELDS, DOC_TEXT_FIELDS)
_QUERY = _Kind("query", "qid", QUERY_ID_FIELDS, QUERY_TEXT_FIELDS)
_KINDS = {"document": _DOCUMENT, "query": _QUERY}
_QUERY_KEY_ALIASES = {"desc": "description", "narr": "narrative"}


def _found(names: Sequence[str]) -> str:
    shown = [n if len(n) <= 40 else n[:37] + "..." for n in names[:12]]
    more = f", ... ({len(names)} in all)" if len(names) > 12 else ""
    return ", ".join(shown) + more if shown else "nothing"


def parse_text_fields(text_fields: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``"title+text"`` or ``["title", "text"]`` as a tuple of names (None stays None)."""
    if text_fields is None:
        return None
    parts = text_fields.split("+") if isinstance(text_fields, str) else list(text_fields)
    if not parts or not all(isinstance(p, str) and p for p in parts):
        raise ClirkitError(f"text_fields={text_fields!r}: expected field names such as 'text' or 'title+text'")
    if len(set(parts)) != len(parts):
        raise ClirkitError(f"text_fields={text_fields!r} names a field twice")
    return tuple(parts)


def _check_id_field(id_field: str | None) -> None:
    if id_field is not None and not (isinstance(id_field, str) and id_field):
        raise ClirkitError(f"id_field={id_field!r}: expected a field name such as 'doc_id'")


def choose_fields(names: Sequence[str], kind: str, *, id_field: str | None = None,
                  text_fields: str | Sequence[str] | None = None, noun: str = "key",
                  id_hint: str = "name it with --id-field",
                  text_hint: str = "name it with --text-fields") -> tuple[str, tuple[str, ...]]:
    """Which of a record's field ``names`` hold the id and the text of a ``kind`` (``"document"``, ``"query"``).

    A named ``id_field`` or ``text_fields`` must be among ``names``. Otherwise the id is the first of
    :data:`DOC_ID_FIELDS` (:data:`QUERY_ID_FIELDS` for queries) present, and the text the first of
    :data:`DOC_TEXT_FIELDS` (:data:`QUERY_TEXT_FIELDS`) whose fields are all present; a text of several
    fields is their values joined by :data:`TEXT_SEPARATOR`, in the order given.

    Returns ``(id_name, text_names)``. Raises ClirkitError (without a file or line: the caller adds them)
    naming what was looked for and what was found, e.g. ``no document id key (looked for docid, doc_id,
    id, _id; found: pid, body); name it with --id-field``. ``noun`` ("key", "column", "field") and the
    hints (what to do when nothing is found) word it for the caller.
    """
    k = _KINDS[kind]
    _check_id_field(id_field)
    texts = parse_text_fields(text_fields)
    present = set(names)
    if id_field is not None:
        if id_field not in present:
            raise ClirkitError(f'no {k.what} id {noun} "{id_field}" (found: {_found(names)})')
    else:
        id_field = next((f for f in k.ids if f in present), None)
        if id_field is None:
            raise ClirkitError(f"no {k.what} id {noun} (looked for {', '.join(k.ids)}; found: {_found(names)}); "
                               f"{id_hint}")
    if texts is not None:
        if k is _QUERY:  # the topic fields' short names find the long keys: desc -> description
            texts = tuple(_QUERY_KEY_ALIASES.get(f, f) if f not in present else f for f in texts)
        missing = [f for f in texts if f not in present]
        if missing:
            raise ClirkitError(f'no {k.what} text {noun} "{missing[0]}" (found: {_found(names)})')
    else:
        texts = next((t for t in k.texts if all(f in present for f in t)), None)
        if texts is None:
            looked = ", ".join("+".join(t) for t in k.texts)
            raise ClirkitError(f"no {k.what} text {noun} (looked for {looked}; found: {_found(names)}); "
                               f"{text_hint}")
    return id_field, texts


def join_text(parts: Iterable[str]) -> str:
    """The text of several fields: the non-empty ones joined by :data:`TEXT_SEPARATOR`."""
    return TEXT_SEPARATOR.join([p for p in parts if p])


# --------------------------------------------------------------------------- records (id, text)

def _json_object(name: str, lineno: int, line: str) -> dict:
    try:
        obj = json.loads(line)
    except RecursionError:
        raise located(name, lineno, "JSON nested too deeply") from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # e.g. an integer of thousands of digits
            raise located(name, lineno, f"invalid JSON: {exc}") from None
        if lineno == 1 and line.lstrip().startswith("["):
            raise located(name, lineno, "expected one JSON object per line (JSONL), found a JSON array") from None
        if "\x00" in line:  # json says "Extra data" or "Expecting value" there
            raise located(name, lineno, f"a NUL byte (column {line.index(chr(0)) + 1}): JSONL is text; remove the "
                          f"NUL bytes (is it a binary file?)") from None
        raise located(name, lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise located(name, lineno, f"expected a JSON object, got {type(obj).__name__}")
    return obj


def _json_string(name: str, lineno: int, value: object, key: str, is_id: bool) -> str:
    if type(value) is not str:
        if is_id and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise located(name, lineno, f'"{key}" must be a string, got {type(value).__name__}')
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise located(name, lineno, f'"{key}" holds an unpaired surrogate {value[exc.start]!r} '
                                    "(not valid Unicode)") from None
    return value


def _json_records(name: str, lines: Iterator[tuple[int, str]], kind: _Kind, id_field: str | None,
                  text_fields: tuple[str, ...] | None) -> Iterator[tuple[int, str, str]]:
    """``(line, id, text)`` of JSONL records; the keys are chosen on the first record, then required of all."""
    wanted: tuple[str, ...] = ()
    for lineno, line in lines:
        obj = _json_object(name, lineno, line)
        if not wanted:
            try:
                id_key, text_keys = choose_fields(list(obj), kind.what, id_field=id_field, text_fields=text_fields)
            except ClirkitError as exc:
                raise located(name, lineno, str(exc)) from None
            wanted = (id_key, *text_keys)
            text_key = text_keys[0] if len(text_keys) == 1 else None
        for k in wanted:
            if k not in obj:
                raise located(name, lineno, f'missing key "{k}"')
        ident = _json_string(name, lineno, obj[id_key], id_key, True)
        if text_key is not None:
            text = _json_string(name, lineno, obj[text_key], text_key, False)
        else:
            text = join_text([_json_string(name, lineno, obj[k], k, False) for k in text_keys])
        yield lineno, check_id(name, lineno, ident, id_key), text


def _is_header(columns: list[str]) -> bool:
    names = set(columns)
    return (len(names) == len(columns) >= 2 and names <= _HEADER_IDS | _HEADER_TEXTS
            and bool(names & _HEADER_IDS) and bool(names & _HEADER_TEXTS))


def _header_columns(name: str, lineno: int, columns: list[str], kind: _Kind, id_field: str | None,
                    text_fields: tuple[str, ...] | None) -> tuple[int, tuple[int, ...]]:
    """Positions of the id and text columns named by a TSV header line."""
    if len(set(columns)) != len(columns):
        dup = next(c for i, c in enumerate(columns) if c in columns[:i])
        raise located(name, lineno, f"header line names column {dup!r} twice")
    if id_field is None:  # a TSV's id is its first column unless the header names a known id elsewhere
        id_field = next((c for c in kind.ids if c in columns), None) or next(
            (c for c in columns if c in _HEADER_IDS), columns[0])
    if text_fields is None and len(columns) == 2 and not any(all(f in columns for f in t) for t in kind.texts):
        text_fields = tuple(c for c in columns if c != id_field) or None  # id TAB text: the other column
    try:
        id_key, text_keys = choose_fields(columns, kind.what, id_field=id_field, text_fields=text_fields,
                                          noun="column")
    except ClirkitError as exc:
        raise located(name, lineno, f"{exc} (header line)") from None
    return columns.index(id_key), tuple(columns.index(k) for k in text_keys)


def _tsv_two_columns(name: str, lines: Iterable[tuple[int, str]], key: str) -> Iterator[tuple[int, str, str]]:
    """``key TAB text`` lines split on the first tab; the text is kept whole (tabs included)."""
    for lineno, line in lines:
        ident, tab, text = line.partition("\t")
        if not tab:
            raise located(name, lineno, f"expected {key} TAB text, found no tab")
        yield lineno, check_id(name, lineno, ident, key), text


def _tsv_records(name: str, lines: Iterator[tuple[int, str]], kind: _Kind, header: bool | None,
                 id_field: str | None, text_fields: tuple[str, ...] | None) -> Iterator[tuple[int, str, str]]:
    """``(line, id, text)`` of TSV lines, after a header line if ``header`` (None: if line 1 is a known
    header, or if ``id_field`` or ``text_fields`` name columns)."""
    first = next(lines, None)
    if first is None:
        return iter(())
    columns = [c.strip() for c in first[1].split("\t")]
    named = id_field is not None or text_fields is not None
    if header is None:  # naming columns says that line 1 names them
        header = named or _is_header(columns)
    if not header:
        if named:
            raise located(name, None, "id_field and text_fields name the columns of a TSV header line, "
                                      "and header=False says there is none")
        return _tsv_two_columns(name, itertools.chain([first], lines), kind.key)
    id_col, text_cols = _header_columns(name, first[0], columns, kind, id_field, text_fields)
    if len(columns) == 2 and id_col == 0 and text_cols == (1,):  # id TAB text: the text keeps its tabs
        return _tsv_two_columns(name, lines, columns[0])
    return _tsv_columns(name, lines, first[0], len(columns), id_col, text_cols, columns[id_col])


def _tsv_columns(name: str, lines: Iterator[tuple[int, str]], header_line: int, ncols: int, id_col: int,
                 text_cols: tuple[int, ...], key: str) -> Iterator[tuple[int, str, str]]:
    """Lines of ``ncols`` tab-separated columns: the id and the text (several columns joined) by position."""
    text_col = text_cols[0] if len(text_cols) == 1 else None
    for lineno, line in lines:
        cols = line.split("\t")
        if len(cols) != ncols:
            raise located(name, lineno, f"expected {ncols} tab-separated columns like the header "
                                        f"(line {header_line}), got {len(cols)}")
        text = cols[text_col] if text_col is not None else join_text([cols[i] for i in text_cols])
        yield lineno, check_id(name, lineno, cols[id_col], key), text


def _records(name: str, lines: Iterator[tuple[int, str]], fmt: str, kind: _Kind, header: bool | None,
             id_field: str | None, text_fields: tuple[str, ...] | None) -> Iterator[tuple[int, str, str]]:
    if fmt == "jsonl":
        if header:
            raise ClirkitError(f"{name}: header=True applies to TSV files; this file is read as JSONL")
        return _json_records(name, lines, kind, id_field, text_fields)
    return _tsv_records(name, lines, kind, header, id_field, text_fields)


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

def read_queries(path: str | os.PathLike[str], *, fmt: str = "auto", field: str | None = None,
                 id_field: str | None = None, text_fields: str | Sequence[str] | None = None,
                 header: bool | None = None, fields: str | Sequence[str] | None = None,
                 lang: str | None = None) -> dict[str, str]:
    """Read queries as ``{qid: text}`` in file order.

    Args:
        path: a file (``.gz`` accepted) or ``-`` for stdin.
        fmt: ``tsv`` (``qid TAB text``; the text is everything after the
            first tab), ``jsonl`` (one JSON object per line; HC4/NeuCLIR
            topics among them), ``trec``, ``clef`` or ``ntcir`` (topic
            markup, one tolerant reader: :mod:`clirkit.topics`), ``hc4``, or
            ``auto``, detected from the content: topic markup if the file
            starts with a tag (``<top>``, ``<topic>``, ``<TOPIC>``, or
            ``<?xml ...?>`` before them), JSONL if it starts with ``{`` or its
            name ends ``.jsonl``/``.json`` (optionally ``.gz``), HC4/NeuCLIR
            if its first record has ``topic_id`` and a ``topics`` list,
            otherwise TSV. A markup file that is not UTF-8 is read as Latin-1
            (said on stderr); stdin is read as UTF-8.
        fields: the fields whose text, joined by a space, is the query, as
            ``"title,desc"`` (or ``"title+desc"``, or a list): for topic files
            (TREC, CLEF, NTCIR, HC4) among ``title``, ``desc``, ``narr``
            (default ``title``); for JSONL and a TSV with a header, keys or
            columns (``desc``/``narr`` also find ``description``/``narrative``).
            This is what ``--query-fields`` gives.
        lang: the queries' language (ISO 639-1), which chooses among the
            versions of a topic given in several languages (HC4's ``topics``
            list, CLEF's ``<EN-title>``/``<ES-title>``); without it such a
            file is an error naming its languages.
        field: for topic files only, as ``fields`` (``title``, ``desc``,
            ``narr`` or several joined by ``+``). Whitespace inside a topic
            field is collapsed to single spaces.
        id_field, text_fields: for JSONL keys and TSV header columns, which
            hold the id and the text (``"title+description"``: both, joined
            by a space). By default the id is the first of :data:`QUERY_ID_FIELDS`
            (``qid``, ``query_id``, ``id``, ``_id``) and the text the first of
            :data:`QUERY_TEXT_FIELDS` (``title``, ``description``, ``text``)
            present in the first record (see :func:`choose_fields`).
        header: TSV only: True if line 1 is a header naming the columns,
            False if it is a query, None to detect it (a line of known names
            such as ``qid TAB text`` or ``query_id TAB title``; naming
            ``id_field`` or ``text_fields`` also says there is one). A TSV
            without a header is ``qid TAB text``; with one, a two-column
            file still keeps the text whole and a wider one must have as
            many columns on every line.

    Raises:
        ClirkitError: ``file:line: problem`` for malformed lines, duplicate
            query ids, missing fields, or an input without queries.
    """
    _check_format(fmt, _QUERY_FORMATS, "query")
    if field is not None:
        if fields is not None:
            raise ClirkitError("give field= or fields=, not both (fields= applies to every format)")
        _topic_fields(field)
    _check_id_field(id_field)
    text_fields = parse_text_fields(text_fields)
    name = display_name(path)
    kind, data, lines = _open_queries(path, name, fmt)
    if kind == "markup":
        label = {"trec": "TREC", "clef": "CLEF", "ntcir": "NTCIR"}.get(fmt) or topics.markup_dialect(
            data if isinstance(data, str) else data.decode("latin-1"))
        _topic_only_options(name, label, id_field, text_fields, header)
        parts = topics.topic_fields(field if field is not None else fields, name, label)
        text = data if isinstance(data, str) else topics.decode_markup(name, data, say=_say)
        return topics.read_markup_topics(name, text, parts, lang=lang, label=label)
    first = next(lines, None)
    if first is None:
        raise located(name, None, "empty: no queries found")
    lines = itertools.chain([first], lines)
    if kind == "jsonl":
        obj = _json_object(name, first[0], first[1]) if first[1].lstrip().startswith("{") else None
        if fmt == "hc4" or (obj is not None and topics.is_hc4(obj)):
            _topic_only_options(name, "HC4", id_field, text_fields, header)
            parts = topics.topic_fields(field if field is not None else fields, name, "HC4")
            records = ((n, _json_object(name, n, line)) for n, line in lines)
            return topics.read_hc4_topics(name, records, parts, lang=lang)
    if field is not None:
        raise ClirkitError(f"{name}: field={field!r} applies to TREC topics only; this file is read as {kind.upper()}")
    if fields is not None:
        if text_fields is not None:
            raise ClirkitError(f"{name}: give fields= or text_fields=, not both")
        text_fields = parse_text_fields(topics.split_field_names(fields))
    queries: dict[str, str] = {}
    where: dict[str, int] = {}
    for lineno, qid, text in _records(name, lines, kind, _QUERY, header, id_field, text_fields):
        if qid in where:
            raise located(name, lineno, f"query id {qid} appears twice (first at line {where[qid]})")
        where[qid] = lineno
        queries[qid] = text
    if not queries:
        raise located(name, None, "empty: no queries found (only a header line)")
    return queries


_FORCED = {"tsv": "tsv", "jsonl": "jsonl", "hc4": "jsonl", "trec": "markup", "clef": "markup", "ntcir": "markup"}


def _open_queries(path: str | os.PathLike[str], name: str, fmt: str
                  ) -> tuple[str, bytes | str | None, Iterator[tuple[int, str]] | None]:
    """``(kind, data, lines)``: kind ``markup``, ``jsonl`` or ``tsv`` (named by ``fmt``, else detected from
    the content, else from the name). Markup comes as ``data``, the file's bytes (its text for stdin); the
    other kinds as ``lines``, the non-blank lines of :func:`~clirkit.fileio.iter_lines`."""
    forced = _FORCED.get(fmt)
    by_name = "jsonl" if _is_json_name(path) else "tsv"
    if str(path) == "-":  # stdin is read once: sniff its first non-blank line, keep the rest
        every = iter_lines(path, skip_blank=False)
        seen = []
        for item in every:
            seen.append(item)
            if item[1].strip():
                break
        kind = forced or _kind_of(seen[-1][1] if seen else "", by_name)
        if kind == "markup":
            return kind, "\n".join(line for _, line in itertools.chain(seen, every)), None
        return kind, None, (item for item in itertools.chain(seen, every) if item[1].strip())
    if forced is not None and forced != "markup":
        return forced, None, iter_lines(path)
    raw = b""
    try:
        with open_binary(path) as fh:
            raw = fh.read(1 << 16)
            kind = forced or _kind_of(raw.removeprefix(b"\xef\xbb\xbf").decode("latin-1"), by_name)
            if kind != "markup":
                return kind, None, iter_lines(path)
            return kind, raw + fh.read(), None
    except (*GZIP_ERRORS, OSError) as exc:  # a damaged gzip stream
        if forced == "markup" or (raw and _kind_of(raw.removeprefix(b"\xef\xbb\xbf").decode("latin-1"), by_name) == "markup"):
            if isinstance(exc, GZIP_ERRORS):
                raise damaged_gzip(name, None, exc) from None
            raise located(name, None, f"cannot read: {' '.join(str(exc).split()) or type(exc).__name__}") from None
        return forced or by_name, None, iter_lines(path)  # which says where the stream breaks


def _kind_of(head: str, by_name: str) -> str:
    sniffed = topics.sniff(head)
    return "jsonl" if sniffed == "json" else sniffed or by_name


def _say(message: str) -> None:
    from clirkit.progress import say

    say(message)


def _topic_only_options(name: str, label: str, id_field, text_fields, header) -> None:
    if id_field is not None or text_fields is not None or header:
        raise ClirkitError(f"{name}: id_field, text_fields and header apply to TSV and JSONL queries; "
                           f"the text of {label} topics is chosen with field= (--query-fields on the command line)")


def _topic_fields(field: str) -> list[str]:
    parts = field.split("+")
    if not all(p in _TOPIC_FIELDS for p in parts):
        raise ClirkitError(f"unknown topic field {field!r} (choose title, desc, narr or a combination like title+desc)")
    return parts


def write_queries(queries: Mapping[str, str], path: str | os.PathLike[str]) -> None:
    """Write ``{qid: text}`` as ``qid TAB text`` lines (JSONL if the name ends .jsonl/.json).

    Raises ClirkitError for an id with whitespace or a TSV text with a line break.
    """
    _write_records(queries.items(), path, "qid")


# --------------------------------------------------------------------------- documents

def _iter_documents_located(path: str | os.PathLike[str], fmt: str, header: bool | None, id_field: str | None,
                            text_fields: str | Sequence[str] | None) -> Iterator[tuple[int, str, str]]:
    _check_format(fmt, _DOC_FORMATS, "document")
    _check_id_field(id_field)
    fields = parse_text_fields(text_fields)
    name = display_name(path)
    if fmt == "auto":
        fmt = "jsonl" if _is_json_name(path) else "tsv"
    records = _records(name, iter_lines(path), fmt, _DOCUMENT, header, id_field, fields)
    first = next(records, None)
    if first is None:
        raise located(name, None, "empty: no documents found")
    yield first
    yield from records


def iter_located_documents(path: str | os.PathLike[str], *, fmt: str = "auto", id_field: str | None = None,
                           text_fields: str | Sequence[str] | None = None,
                           header: bool | None = None) -> Iterator[tuple[int, str, str]]:
    """:func:`iter_documents` with each document's line number: ``(lineno, docid, text)`` (for errors
    that name FILE:LINE after reading, such as a duplicate document id)."""
    return _iter_documents_located(path, fmt, header, id_field, text_fields)


def iter_documents(path: str | os.PathLike[str], *, fmt: str = "auto", id_field: str | None = None,
                   text_fields: str | Sequence[str] | None = None,
                   header: bool | None = None) -> Iterator[tuple[str, str]]:
    """Stream ``(docid, text)`` pairs in file order.

    Args:
        path: a file (``.gz`` accepted) or ``-`` for stdin.
        fmt: ``tsv`` (``docid TAB text``: the text is everything after the
            first tab), ``jsonl`` (one JSON object per line) or ``auto``
            (JSONL if the name ends .jsonl/.json, optionally .gz, else TSV).
        id_field, text_fields: for JSONL keys and TSV header columns, which
            hold the id and the text (``"title+text"``: both, joined by a
            space). By default the id is the first of :data:`DOC_ID_FIELDS`
            (``docid``, ``doc_id``, ``id``, ``_id``) present in the first
            record, and the text ``title`` and ``text`` joined (title first)
            if both are present, else ``text``, else ``contents``
            (:data:`DOC_TEXT_FIELDS`, :func:`choose_fields`). Every later
            record must have the same keys.
        header: TSV only: True if line 1 is a header naming the columns,
            False if it is a document, None to detect it (a line of known
            names such as ``docid TAB text``, ``id TAB text``, ``osis_id TAB
            text``; naming ``id_field`` or ``text_fields`` also says there is
            one). With a header, a two-column file still keeps the text whole
            (tabs included); a wider one must have as many columns on every line.

    Duplicates are not checked here (see :func:`read_documents`).
    """
    for _, docid, text in _iter_documents_located(path, fmt, header, id_field, text_fields):
        yield docid, text


def read_documents(path: str | os.PathLike[str], *, fmt: str = "auto", id_field: str | None = None,
                   text_fields: str | Sequence[str] | None = None,
                   header: bool | None = None) -> tuple[list[str], list[str]]:
    """Read a whole collection as ``(docids, texts)`` in file order; a repeated docid is an error.

    The arguments are those of :func:`iter_documents`.
    """
    name = display_name(path)
    docids: list[str] = []
    texts: list[str] = []
    where: dict[str, int] = {}
    for lineno, docid, text in _iter_documents_located(path, fmt, header, id_field, text_fields):
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
    qrels = _read_qrels_columns(path)
    if qrels is not None:
        return qrels
    rows = list(iter_lines(path))
    if not rows:
        raise located(name, None, "empty: no judgments found")
    parsed = _parse_qrels_fast(rows)
    if parsed is None:  # something is wrong: find and report the first bad line
        parsed = _parse_qrels_checked(name, rows)
    qids, docids, rels = parsed
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
    if _repeats_a_pair(_first_appearance_codes(qids), docids):
        return None
    return Qrels(qids, docids, rels)


def _first_appearance_codes(ids: np.ndarray) -> np.ndarray:
    """Code of each id of ``ids`` (a str array): the order of its first appearance (int64), computed
    from the runs of equal consecutive ids, so the cost is in the number of runs, not of rows."""
    change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    starts = np.concatenate(([0], change))
    distinct, first, inverse = np.unique(ids[starts], return_index=True, return_inverse=True)
    code_of_distinct = np.empty(len(distinct), dtype=np.int64)
    code_of_distinct[np.argsort(first, kind="stable")] = np.arange(len(distinct))
    return np.repeat(code_of_distinct[inverse.reshape(-1)], np.diff(np.append(starts, len(ids))))


def _repeats_a_pair(codes: np.ndarray, docids: np.ndarray) -> bool:
    """Whether two rows may hold the same (code, docid) pair: equal 64-bit keys (a real repeat, or
    almost never a hash collision; the line parser then decides)."""
    from clirkit.hashing import pair_keys

    keys = pair_keys(codes, docids)
    keys.sort()
    return bool((keys[1:] == keys[:-1]).any())


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
    (q_codes, q_distinct), (d_codes, d_distinct) = _first_appearance(qids), _first_appearance(docids)
    if not _plain_ids(q_distinct + d_distinct):
        return None
    keys = np.sort(q_codes * len(d_distinct) + d_codes)
    if (keys[1:] == keys[:-1]).any():  # a (qid, docid) pair judged twice
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
        qid, docid, rel = check_id(name, lineno, cols[0], "qid"), check_id(name, lineno, cols[-2], "docid"), cols[-1]
        if not _INT.fullmatch(rel):
            raise located(name, lineno, f"relevance grade {rel[:40]!r} is not an integer")
        if len(rel.lstrip("+-")) > 9:
            raise located(name, lineno, f"relevance grade {rel[:20]!r} is out of range (|grade| < 10^9)")
        first = where.setdefault((qid, docid), lineno)
        if first != lineno:
            raise located(name, lineno, f"docid {docid} appears twice for query {qid} (first at line {first})")
        qids.append(qid)
        docids.append(docid)
        rels.append(int(rel))
    return qids, docids, rels


def _plain_ids(ids: list[str]) -> bool:
    """Whether whitespace-split ``ids`` all pass :func:`check_id` (no NUL, not too long), checked at once."""
    return "\0" not in "".join(ids) and max(map(len, ids), default=0) <= MAX_ID_LENGTH


def write_qrels(qrels: Qrels, path: str | os.PathLike[str]) -> None:
    """Write judgments as TREC 4 columns ``qid 0 docid rel``, in the Qrels' row order."""
    _check_ids(qrels.qids, "query id")
    _check_ids(qrels.docids, "document id")
    rows = zip(qrels.qids.tolist(), qrels.docids.tolist(), qrels.rels.tolist())
    with atomic_writer(path) as out:
        for chunk in _chunks(rows):
            out.write("".join([f"{q} 0 {d} {r}\n" for q, d, r in chunk]))


# --------------------------------------------------------------------------- runs

def read_run(path: str | os.PathLike[str], *, depth: int | None = None) -> Run:
    """Read a TREC run ``qid Q0 docid rank score tag``.

    Queries keep the order of their first line; a query's rows need not be
    contiguous. Within a query rows are ordered by score descending, ties in
    file order (the rank column must be an integer but does not decide the
    order, as in trec_eval). The tag of the first line becomes ``Run.tag``.
    Scores must be finite numbers; a docid may appear once per query.

    With ``depth``, only what can be in a query's top ``depth`` in any order of
    ties is kept: the rows whose score, as a 32-bit float (trec_eval compares
    scores so), is at least the query's ``depth``-th best, ties at the cut
    included. It is applied while reading, block by block, so a deep run read
    for a shallow evaluation costs the memory of the shallow one; cut the
    result to exactly ``depth`` rows in the order you rank by (``Run.top``, or
    the evaluation's own depth).
    """
    name = display_name(path)
    if depth is not None and depth < 1:
        raise ClirkitError(f"depth must be at least 1, got {depth}")
    run = _read_run_columns(path, depth)
    if run is not None:
        return run
    rows = list(iter_lines(path))
    if not rows:
        raise located(name, None, "empty: no results found")
    parsed = _parse_run_fast(rows)
    if parsed is None:  # something is wrong: find and report the first bad line
        parsed = _parse_run_checked(name, rows)
    (qpos, query_ids), (dcode, doc_ids), scores, tag = parsed
    if depth is not None:
        keep = _top_rows(qpos, scores, depth)
        qpos, dcode, scores = qpos[keep], dcode[keep], scores[keep]
    order = np.lexsort((np.arange(len(scores)), -scores, qpos))
    # build the string arrays from the distinct ids, which is much cheaper than from every row
    return Run(np.array(query_ids)[qpos[order]], np.array(doc_ids)[dcode[order]], scores[order], tag=tag)


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
    qpos = _first_appearance_codes(qids)
    if not checked and _repeats_a_pair(qpos, docids):  # (with a depth, every row's pair was checked above)
        return None
    if depth is not None:
        keep = _top_rows(qpos, scores, depth)
        if not keep.all():  # (a copy of every column otherwise)
            qids, docids, scores, qpos = qids[keep], docids[keep], scores[keep], qpos[keep]
    in_order = (np.diff(qpos) >= 0).all() and not ((np.diff(scores) > 0) & (np.diff(qpos) == 0)).any()
    if not in_order:
        order = np.lexsort((np.arange(len(scores)), -scores, qpos))
        qids, docids, scores = qids[order], docids[order], scores[order]
    return Run(qids, docids, scores, tag=tag)._with_unique_pairs()  # checked above


def _run_blocks(path: str | os.PathLike[str], depth: int | None
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
    for qids, _, docids, _, scores, head in iter_column_batches(path, ((ID, TOKEN, ID, INTEGER, FLOAT, HEAD),),
                                                                 max_id=MAX_ID_LENGTH):
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
    if not _plain_ids(queries[1] + docs[1] + tokens[5:6]):
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
            value = float(score)
        except ValueError:
            value = None
        if value is None or "_" in score:
            raise located(name, lineno, f"score {score[:40]!r} is not a number")
        if not math.isfinite(value):
            raise located(name, lineno, f"score {score[:40]!r} is not a finite number")
        if not _INT.fullmatch(rank):
            raise located(name, lineno, f"rank {rank[:40]!r} is not an integer")
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
    """Ids written into whitespace-separated files must be non-empty and space-free (checked on the code
    points, slice by slice: no Python string per id)."""
    ids = np.ascontiguousarray(ids if ids.dtype.kind == "U" else ids.astype(str))
    width = ids.dtype.itemsize // 4
    if not len(ids) or not width:
        if len(ids):
            raise ClirkitError(f"cannot write an empty {what}")
        return
    chars = ids.view(np.uint32).reshape(len(ids), width)
    for lo in range(0, len(ids), _WRITE_CHUNK):
        part = chars[lo:lo + _WRITE_CHUNK]
        if (part[:, 0] == 0).any():
            raise ClirkitError(f"cannot write an empty {what}")
        spaced = np.isin(part, _SPACE_CODES).any(axis=1)
        if spaced.any():
            bad = str(ids[lo + int(np.flatnonzero(spaced)[0])])
            raise ClirkitError(f"cannot write {what} {bad!r}: it contains whitespace")


_SPACE_CODES = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)  # all are below 0x3001
