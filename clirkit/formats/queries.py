"""Queries: ``qid TAB text`` and JSONL records (:mod:`clirkit.formats.records`), and topic files (TREC, CLEF,
NTCIR markup: :mod:`clirkit.formats.topics`; HC4/NeuCLIR JSONL: :mod:`clirkit.formats.hc4_topics`), told apart by
their content; and their writer.
"""

from __future__ import annotations

import itertools
import os
from typing import Iterator, Mapping, Sequence

from clirkit.errors import ClirkitError, empty_file, located, repeated_id
from clirkit.fileio import GZIP_ERRORS, check_path, damaged_gzip, display_name, iter_lines, open_binary, read_once
from clirkit.formats import hc4_topics, topics
from clirkit.formats.records import (
    QUERY,
    check_format,
    check_id_field,
    is_json_name,
    json_object,
    parse_text_fields,
    read_records,
    write_records,
)

_QUERY_FORMATS = ("auto", "tsv", "jsonl", "trec", "clef", "ntcir", "hc4")
_TOPIC_FIELDS = ("title", "desc", "narr")
_QUERY_LAYOUTS = "a queries file holds qid TAB text lines, JSONL records, or TREC, CLEF, NTCIR or HC4 topics"


def read_queries(
    path: str | os.PathLike[str],
    *,
    fmt: str = "auto",
    field: str | None = None,
    id_field: str | None = None,
    text_fields: str | Sequence[str] | None = None,
    header: bool | None = None,
    fields: str | Sequence[str] | None = None,
    lang: str | None = None,
) -> dict[str, str]:
    """Read queries as ``{qid: text}`` in file order.

    Args:
        path: a file (``.gz`` accepted) or ``-`` for stdin.
        fmt: ``tsv`` (``qid TAB text``; the text is everything after the
            first tab), ``jsonl`` (one JSON object per line; HC4/NeuCLIR
            topics among them), ``trec``, ``clef`` or ``ntcir`` (topic
            markup, one tolerant reader: :mod:`clirkit.formats.topics`), ``hc4``, or
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
            :data:`QUERY_TEXT_FIELDS` (``title``, ``description``, ``text``),
            then ``query`` or ``question``, present in the first record (see
            :func:`choose_fields`); of a TSV header in any case.
        header: TSV only: True if line 1 is a header naming the columns,
            False if it is a query, None to detect it (a line of known names
            in any case, such as ``qid TAB text``, ``QID TAB QUERY`` or ``qid
            TAB title TAB desc``, or of an id's name and a known text's, such
            as ``topic TAB query``; naming ``id_field`` or ``text_fields``
            also says there is one; a line of names starting with an id's
            name, such as ``qid TAB query_text``, is an error asking for
            them). A TSV
            without a header is ``qid TAB text``; with one, a two-column
            file still keeps the text whole and a wider one must have as
            many columns on every line.

    Raises:
        ClirkitError: ``file:line: problem`` for malformed lines, duplicate
            query ids, missing fields, or an input without queries.
    """
    return read_queries_choosing(
        path,
        fmt=fmt,
        field=field,
        id_field=id_field,
        text_fields=text_fields,
        header=header,
        fields=fields,
        lang=lang,
    )[0]


def read_queries_choosing(
    path: str | os.PathLike[str],
    *,
    fmt: str = "auto",
    field: str | None = None,
    id_field: str | None = None,
    text_fields: str | Sequence[str] | None = None,
    header: bool | None = None,
    fields: str | Sequence[str] | None = None,
    lang: str | None = None,
) -> tuple[dict[str, str], bool]:
    """:func:`read_queries`'s queries (the same arguments), and whether they were read as topics that may be given in
    several languages, whose ``lang=`` chooses or checks the version read (TREC, CLEF or NTCIR markup, HC4/NeuCLIR
    JSONL), not as ``qid TAB text`` or JSONL queries, which ``lang=`` leaves alone: known of standard input as of a
    file, as read once."""
    check_path(path)
    check_format(fmt, _QUERY_FORMATS, "query")
    if field is not None:
        if fields is not None:
            raise ClirkitError("give field= or fields=, not both (fields= applies to every format)")
        _topic_fields(field)
    check_id_field(id_field)
    text_fields = parse_text_fields(text_fields)
    name = display_name(path)
    kind, data, lines = _open_queries(path, name, fmt)
    topic_options = (field if field is not None else fields, lang, id_field, text_fields, header)
    if kind == "markup":
        return _markup_queries(name, data, fmt, *topic_options), True
    first = next(lines, None)
    if first is None:
        raise empty_file(name, "queries", _QUERY_LAYOUTS)
    lines = itertools.chain([first], lines)
    if kind == "jsonl":
        obj = json_object(name, first[0], first[1]) if first[1].lstrip().startswith("{") else None
        if fmt == "hc4" or (obj is not None and hc4_topics.is_hc4(obj)):
            return _hc4_queries(name, lines, *topic_options), True
    if field is not None:
        raise ClirkitError(f"{name}: field={field!r} applies to TREC topics only; this file is read as {kind.upper()}")
    if fields is not None:
        if text_fields is not None:
            raise ClirkitError(f"{name}: give fields= or text_fields=, not both")
        text_fields = parse_text_fields(topics.split_field_names(fields))
    return _distinct_queries(name, read_records(name, lines, kind, QUERY, header, id_field, text_fields)), False


def _markup_queries(
    name: str, data: bytes | str, fmt: str, fields, lang, id_field, text_fields, header
) -> dict[str, str]:
    """The queries of a TREC, CLEF or NTCIR topic file (its bytes, or its text from stdin)."""
    label = {"trec": "TREC", "clef": "CLEF", "ntcir": "NTCIR"}.get(fmt) or topics.markup_dialect(
        data if isinstance(data, str) else data.decode("latin-1")
    )
    _topic_only_options(name, label, id_field, text_fields, header)
    parts = topics.topic_fields(fields, name, label)
    text = data if isinstance(data, str) else topics.decode_markup(name, data, say=_say)
    return topics.read_markup_topics(name, text, parts, lang=lang, label=label)


def _hc4_queries(
    name: str, lines: Iterator[tuple[int, str]], fields, lang, id_field, text_fields, header
) -> dict[str, str]:
    """The queries of an HC4/NeuCLIR topic file's non-blank lines."""
    _topic_only_options(name, "HC4", id_field, text_fields, header)
    parts = topics.topic_fields(fields, name, "HC4")
    records = ((n, json_object(name, n, line)) for n, line in lines)
    return hc4_topics.read_hc4_topics(name, records, parts, lang=lang)


def _distinct_queries(name: str, records: Iterator[tuple[int, str, str]]) -> dict[str, str]:
    """``{qid: text}`` of ``(line, qid, text)`` records; a qid given twice is an error."""
    queries: dict[str, str] = {}
    where: dict[str, int] = {}
    for lineno, qid, text in records:
        if qid in where:
            raise repeated_id(name, lineno, "query id", qid, where[qid], "query")
        where[qid] = lineno
        queries[qid] = text
    if not queries:
        raise located(name, None, "no queries found, only a header line: add the queries below it, one per line")
    return queries


_FORCED = {"tsv": "tsv", "jsonl": "jsonl", "hc4": "jsonl", "trec": "markup", "clef": "markup", "ntcir": "markup"}


def _open_queries(
    path: str | os.PathLike[str], name: str, fmt: str
) -> tuple[str, bytes | str | None, Iterator[tuple[int, str]] | None]:
    """``(kind, data, lines)``: kind ``markup``, ``jsonl`` or ``tsv`` (named by ``fmt``, else detected from
    the content, else from the name). Markup comes as ``data``, the file's bytes (its text for stdin); the
    other kinds as ``lines``, the non-blank lines of :func:`~clirkit.fileio.iter_lines`."""
    forced = _FORCED.get(fmt)
    by_name = "jsonl" if is_json_name(path) else "tsv"
    if str(path) == "-" or read_once(path):  # sniff its first non-blank line, keep the rest
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
        head = raw.removeprefix(b"\xef\xbb\xbf").decode("latin-1")
        if forced == "markup" or (raw and _kind_of(head, by_name) == "markup"):
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
        raise ClirkitError(
            f"{name}: id_field, text_fields and header apply to TSV and JSONL queries; "
            f"the text of {label} topics is chosen with field= (--query-fields on the command line)"
        )


def _topic_fields(field: str) -> list[str]:
    parts = field.split("+")
    if not all(p in _TOPIC_FIELDS for p in parts):
        raise ClirkitError(f"unknown topic field {field!r} (choose title, desc, narr or a combination like title+desc)")
    return parts


def write_queries(queries: Mapping[str, str], path: str | os.PathLike[str]) -> None:
    """Write ``{qid: text}`` as ``qid TAB text`` lines (JSONL if the name ends .jsonl/.json).

    Raises ClirkitError for an id with whitespace or a TSV text with a line break.
    """
    write_records(queries.items(), path, "qid")
