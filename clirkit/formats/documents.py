"""Documents: ``docid TAB text`` or JSONL records (:mod:`clirkit.formats.records`), streamed; and their writer."""

from __future__ import annotations

import os
from typing import Iterable, Iterator, Sequence

from clirkit.errors import empty_file, repeated_id
from clirkit.fileio import display_name, iter_lines
from clirkit.formats.records import (
    DOCUMENT,
    check_format,
    check_id_field,
    is_json_name,
    parse_text_fields,
    read_records,
    write_records,
)

_DOC_FORMATS = ("auto", "tsv", "jsonl")


def _iter_documents_located(
    path: str | os.PathLike[str],
    fmt: str,
    header: bool | None,
    id_field: str | None,
    text_fields: str | Sequence[str] | None,
) -> Iterator[tuple[int, str, str]]:
    check_format(fmt, _DOC_FORMATS, "document")
    check_id_field(id_field)
    fields = parse_text_fields(text_fields)
    name = display_name(path)
    if fmt == "auto":
        fmt = "jsonl" if is_json_name(path) else "tsv"
    records = read_records(name, iter_lines(path), fmt, DOCUMENT, header, id_field, fields)
    first = next(records, None)
    if first is None:
        raise empty_file(name, "documents", "a documents file holds docid TAB text lines or JSONL records")
    yield first
    yield from records


def iter_located_documents(
    path: str | os.PathLike[str],
    *,
    fmt: str = "auto",
    id_field: str | None = None,
    text_fields: str | Sequence[str] | None = None,
    header: bool | None = None,
) -> Iterator[tuple[int, str, str]]:
    """:func:`iter_documents` with each document's line number: ``(lineno, docid, text)`` (for errors
    that name FILE:LINE after reading, such as a duplicate document id)."""
    return _iter_documents_located(path, fmt, header, id_field, text_fields)


def iter_documents(
    path: str | os.PathLike[str],
    *,
    fmt: str = "auto",
    id_field: str | None = None,
    text_fields: str | Sequence[str] | None = None,
    header: bool | None = None,
) -> Iterator[tuple[str, str]]:
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
            (:data:`DOC_TEXT_FIELDS`, :func:`choose_fields`); a TSV header
            may also name ``title`` and ``body`` (joined), ``body``,
            ``content`` or ``passage``, in any case. Every later
            record must have the same keys.
        header: TSV only: True if line 1 is a header naming the columns,
            False if it is a document, None to detect it (a line of known
            names in any case, such as ``docid TAB text``, ``DOCNO TAB
            BODY``, ``pid TAB passage``; naming ``id_field`` or
            ``text_fields`` also says there is one; a line of names starting
            with an id's name, such as ``docid TAB passage_text``, is an
            error asking for them). With a
            header, a two-column file still keeps the text whole
            (tabs included); a wider one must have as many columns on every line.

    Duplicates are not checked here (see :func:`read_documents`).
    """
    for _, docid, text in _iter_documents_located(path, fmt, header, id_field, text_fields):
        yield docid, text


def read_documents(
    path: str | os.PathLike[str],
    *,
    fmt: str = "auto",
    id_field: str | None = None,
    text_fields: str | Sequence[str] | None = None,
    header: bool | None = None,
) -> tuple[list[str], list[str]]:
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
            raise repeated_id(name, lineno, "document id", docid, first, "document")
        docids.append(docid)
        texts.append(text)
    return docids, texts


def write_documents(docids: Iterable[str], texts: Iterable[str], path: str | os.PathLike[str]) -> None:
    """Write documents as ``docid TAB text`` lines (JSONL if the name ends .jsonl/.json)."""
    docids, texts = list(docids), list(texts)
    if len(docids) != len(texts):
        raise ValueError(f"{len(docids)} docids but {len(texts)} texts")
    write_records(zip(docids, texts), path, "docid")
