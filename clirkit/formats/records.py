"""Records of an id and a text, the layout queries and documents share: TSV (``id TAB text``, or columns named by
a header line) and JSONL (one object per line), with the field names other tools use detected
(:func:`choose_fields`) or named (``id_field=``, ``text_fields=``); and their writer.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from typing import Iterable, Iterator, NamedTuple, Sequence

from clirkit.errors import FIX_SURROGATE, REMOVE_NUL, ClirkitError, located
from clirkit.fileio import atomic_writer
from clirkit.formats.ids import check_id, chunks, has_space

_JSON_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz")


def is_json_name(path: str | os.PathLike[str]) -> bool:
    """Whether the name of ``path`` says JSONL (``.jsonl``, ``.json``, optionally ``.gz``)."""
    return str(path).lower().endswith(_JSON_SUFFIXES)


def check_format(fmt: str, allowed: tuple[str, ...], what: str) -> None:
    if fmt not in allowed:
        raise ClirkitError(f"unknown {what} format {fmt!r} (choose {', '.join(allowed[:-1])} or {allowed[-1]})")


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

# The text columns a TSV header line may name besides those of JSONL keys, looked for after them: the names of
# PyTerrier's frames (query), of MS MARCO and other exports (body, passage), of QA sets (question); the query's are
# a JSONL query's keys too (the same names in both formats). They are not added to DOC_TEXT_FIELDS and
# QUERY_TEXT_FIELDS, which also choose the fields of ir_datasets collections, whose defaults stay as they were.
_TSV_DOC_TEXTS = (("title", "body"), ("body",), ("content",), ("passage",))
_TSV_QUERY_TEXTS = (("query",), ("question",))

# A first TSV line is a header when its columns are distinct names from these two sets, at least one of each
# (PyTerrier's frames: docno, query; TREC topics' short names: desc, narr; MS MARCO's pid, passage), compared
# without regard to case (QID TAB TITLE).
_HEADER_IDS = frozenset(DOC_ID_FIELDS + QUERY_ID_FIELDS + ("osis_id", "docno", "pid"))
_HEADER_TEXTS = frozenset(
    {f for t in DOC_TEXT_FIELDS + QUERY_TEXT_FIELDS + _TSV_DOC_TEXTS + _TSV_QUERY_TEXTS for f in t}
    | {"desc", "narrative", "narr"}
)
# A column name, in a first line taken for a header though some of its names are unknown (_looks_like_header).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
# The name of an id column not among _HEADER_IDS: topic, topic_id, q-id, query-no, num (_names_an_id_and_a_text).
_ID_NAME = re.compile(r"topic|(?:[a-z]+[-_.]?)?(?:id|num|number)|[a-z]+[-_.]?no")


class _Kind(NamedTuple):
    what: str  # "document" or "query", in messages
    key: str  # the id's name in messages about a file without names: "docid", "qid"
    ids: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]
    keyword: str  # the reader's keyword that names the text fields, in messages (the command line names its option)
    tsv_texts: tuple[tuple[str, ...], ...]  # the text columns of a TSV header line, in the order looked for


DOCUMENT = _Kind("document", "docid", DOC_ID_FIELDS, DOC_TEXT_FIELDS, "text_fields=", DOC_TEXT_FIELDS + _TSV_DOC_TEXTS)
QUERY = _Kind("query", "qid", QUERY_ID_FIELDS, QUERY_TEXT_FIELDS, "fields=", QUERY_TEXT_FIELDS + _TSV_QUERY_TEXTS)
_KINDS = {"document": DOCUMENT, "query": QUERY}
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


def check_id_field(id_field: str | None) -> None:
    if id_field is not None and not (isinstance(id_field, str) and id_field):
        raise ClirkitError(f"id_field={id_field!r}: expected a field name such as 'doc_id'")


def choose_fields(
    names: Sequence[str],
    kind: str,
    *,
    id_field: str | None = None,
    text_fields: str | Sequence[str] | None = None,
    noun: str = "key",
    id_hint: str = "name it with id_field=",
    text_hint: str = "name it with text_fields=",
    named_hint: str = "",
) -> tuple[str, tuple[str, ...]]:
    """Which of a record's field ``names`` hold the id and the text of a ``kind`` (``"document"``, ``"query"``).

    A named ``id_field`` or ``text_fields`` must be among ``names``. Otherwise the id is the first of
    :data:`DOC_ID_FIELDS` (:data:`QUERY_ID_FIELDS` for queries) present, and the text the first of
    :data:`DOC_TEXT_FIELDS` (:data:`QUERY_TEXT_FIELDS`) whose fields are all present; a text of several
    fields is their values joined by :data:`TEXT_SEPARATOR`, in the order given.

    Returns ``(id_name, text_names)``. Raises ClirkitError (without a file or line: the caller adds them)
    naming what was looked for and what was found, e.g. ``no document id key (looked for docid, doc_id,
    id, _id; found: pid, body); name it with id_field=``. ``noun`` ("key", "column", "field") and the
    hints (what to do when nothing is found; ``named_hint``: when a field named by ``id_field`` or ``text_fields``
    is not there) word it for the caller.
    """
    return _choose(names, _KINDS[kind], id_field, text_fields, noun, id_hint, text_hint, named_hint)


def _choose(
    names: Sequence[str],
    k: _Kind,
    id_field: str | None,
    text_fields: str | Sequence[str] | None,
    noun: str,
    id_hint: str,
    text_hint: str,
    named_hint: str,
    texts_looked: tuple[tuple[str, ...], ...] | None = None,
) -> tuple[str, tuple[str, ...]]:
    """:func:`choose_fields` for a :class:`_Kind`, the texts looked for being ``texts_looked`` (default: its own)."""
    check_id_field(id_field)
    texts = parse_text_fields(text_fields)
    present = set(names)
    if id_field is not None:
        if id_field not in present:
            raise ClirkitError(f'no {k.what} id {noun} "{id_field}" (found: {_found(names)}){named_hint}')
    else:
        id_field = next((f for f in k.ids if f in present), None)
        if id_field is None:
            raise ClirkitError(
                f"no {k.what} id {noun} (looked for {', '.join(k.ids)}; found: {_found(names)}); {id_hint}"
            )
    if texts is not None:
        if k.what == "query":  # the topic fields' short names find the long keys: desc -> description
            texts = tuple(_QUERY_KEY_ALIASES.get(f, f) if f not in present else f for f in texts)
        missing = [f for f in texts if f not in present]
        if missing:
            raise ClirkitError(f'no {k.what} text {noun} "{missing[0]}" (found: {_found(names)}){named_hint}')
    else:
        looked_for = k.texts if texts_looked is None else texts_looked
        texts = next((t for t in looked_for if all(f in present for f in t)), None)
        if texts is None:
            looked = ", ".join("+".join(t) for t in looked_for)
            raise ClirkitError(f"no {k.what} text {noun} (looked for {looked}; found: {_found(names)}); {text_hint}")
    return id_field, texts


_NAME_ONE = "; name one of those found"  # what to do when a field named by the caller is not in the file


def join_text(parts: Iterable[str]) -> str:
    """The text of several fields: the non-empty ones joined by :data:`TEXT_SEPARATOR`."""
    return TEXT_SEPARATOR.join([p for p in parts if p])


# --------------------------------------------------------------------------- records (id, text)


class _RepeatedKey(ValueError):
    """A key given twice in one JSON object (json would keep the last value without a word)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` of :data:`_DECODER`: the object, or :class:`_RepeatedKey` naming a key given twice."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        raise _RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)  # one decoder: as fast as json.loads


def json_object(name: str, lineno: int, line: str) -> dict:
    """The JSON object of line ``lineno`` of file ``name``; ClirkitError ``NAME:LINE: problem`` for invalid JSON,
    another value than an object, or a key given twice."""
    try:
        obj = json.loads(line) if line.startswith("\ufeff") else _DECODER.decode(line)  # (loads names a BOM)
    except _RepeatedKey as exc:
        raise located(name, lineno, f'key "{exc}" is given twice in one object: keep the one meant') from None
    except RecursionError:
        raise located(
            name,
            lineno,
            'JSON nested too deeply; give one flat JSON object per line, such as {"id": "d1", "text": "..."}',
        ) from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # e.g. an integer of thousands of digits
            problem = (
                "an integer of more than 4,300 digits"
                if "integer string conversion" in str(exc)
                else " ".join(str(exc).split())[:120]
            )  # not Python's advice to raise its digit limit
            raise located(name, lineno, f"invalid JSON: {problem}; write such a value as a string, in quotes") from None
        if lineno == 1 and line.lstrip().startswith("["):
            raise located(name, lineno, "expected one JSON object per line (JSONL), found a JSON array") from None
        if "\x00" in line:  # json says "Extra data" or "Expecting value" there
            raise located(
                name, lineno, f"a NUL byte (column {line.index(chr(0)) + 1}): JSONL is text; {REMOVE_NUL}"
            ) from None
        raise located(name, lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise located(name, lineno, f"expected a JSON object, got {type(obj).__name__}")
    return obj


def json_string(name: str, lineno: int, value: object, key: str, is_id: bool) -> str:
    if type(value) is not str:
        if is_id and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise located(name, lineno, f'"{key}" must be a string, got {type(value).__name__}')
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise located(
            name,
            lineno,
            f'"{key}" holds an unpaired surrogate {value[exc.start]!r} (not valid Unicode); {FIX_SURROGATE}',
        ) from None
    return value


def _json_records(
    name: str, lines: Iterator[tuple[int, str]], kind: _Kind, id_field: str | None, text_fields: tuple[str, ...] | None
) -> Iterator[tuple[int, str, str]]:
    """``(line, id, text)`` of JSONL records; the keys are chosen on the first record, then required of all."""
    wanted: tuple[str, ...] = ()
    for lineno, line in lines:
        obj = json_object(name, lineno, line)
        if not wanted:
            try:  # a query's keys as a TSV header's columns (query, question too, _TSV_QUERY_TEXTS)
                looked = kind.tsv_texts if kind is QUERY else None
                hints = ("name it with id_field=", f"name it with {kind.keyword}", _NAME_ONE)
                id_key, text_keys = _choose(list(obj), kind, id_field, text_fields, "key", *hints, looked)
            except ClirkitError as exc:
                raise located(name, lineno, str(exc)) from None
            wanted = (id_key, *text_keys)
            text_key = text_keys[0] if len(text_keys) == 1 else None
            order = looked or kind.texts  # the keys looked for, best first: those before the chosen ones were absent
            passed = order[: order.index(text_keys)] if text_fields is None and text_keys in order else ()
            passed_ids = kind.ids[: kind.ids.index(id_key)] if id_field is None and id_key in kind.ids else ()
        for k in wanted:
            if k not in obj:
                raise located(name, lineno, f'missing key "{k}"')
        better_id = next((k for k in passed_ids if k in obj), None)
        if better_id is not None:
            raise located(
                name,
                lineno,
                f'this record has "{better_id}", which the first lacks: its id would be read from "{id_key}": '
                "give every record the same keys",
            )
        better_text = next((keys for keys in passed if all(k in obj for k in keys)), None)
        if better_text is not None:
            raise located(
                name,
                lineno,
                f"this record has {'+'.join(better_text)}, which the first lacks: its text would be read from "
                f"{'+'.join(text_keys)} alone: give every record the same keys",
            )
        ident = json_string(name, lineno, obj[id_key], id_key, True)
        if text_key is not None:
            text = json_string(name, lineno, obj[text_key], text_key, False)
        else:
            text = join_text([json_string(name, lineno, obj[k], k, False) for k in text_keys])
        yield lineno, check_id(name, lineno, ident, id_key), text


def _folded(columns: list[str]) -> list[str]:
    """The names of a first TSV line as compared with the known ones: in lower case, trailing empty columns left out
    (a spreadsheet's export may end every line with a tab)."""
    folded = [c.lower() for c in columns]
    while folded and not folded[-1]:
        folded.pop()
    return folded


def _is_header(folded: list[str]) -> bool:
    """Whether a first line (:func:`_folded`) is a header: distinct known names, an id's and a text's; or names only,
    the first an id's name (topic, q-id, topic_id) and the second a known text's (``topic TAB query``)."""
    names = set(folded)
    if len(names) != len(folded) or len(folded) < 2:
        return False
    known = _HEADER_IDS | _HEADER_TEXTS
    if names <= known and names & _HEADER_IDS and names & _HEADER_TEXTS:
        return True
    return (
        folded[1] in _HEADER_TEXTS
        and (folded[0] in _HEADER_IDS or bool(_ID_NAME.fullmatch(folded[0])))
        and all(_NAME.fullmatch(c) for c in folded)
    )


def _looks_like_header(folded: list[str]) -> bool:
    """Whether a first line not known as a header still reads as one: names only, the first an id's name."""
    return len(folded) >= 2 and folded[0] in _HEADER_IDS and all(_NAME.fullmatch(c) for c in folded)


def _unknown_header(name: str, lineno: int, columns: list[str], kind: _Kind) -> ClirkitError:
    """The error for a first line that looks like a header but names columns not detected. It names the reader's
    keywords (``text_fields=``, ``header=False``): the command line names its own options instead, or what to
    change in the file where it has none (:func:`clirkit.cli.params.option_message`)."""
    unknown = ", ".join(c for c in columns if c and c.lower() not in _HEADER_IDS | _HEADER_TEXTS)
    return located(
        name,
        lineno,
        f"looks like a header line naming columns clirkit does not detect ({unknown}); name the text column "
        f"with {kind.keyword}, or give header=False if line {lineno} is a {kind.what}",
    )


def _no_header(name: str, lineno: int, kind: _Kind, keyword: str) -> ClirkitError:
    """The error for columns named (by ``keyword``) in a TSV whose first line names none of them and does not read
    as a header: a ``key TAB text`` file, whose line 1 is a record."""
    example = "title TAB desc" if kind.what == "query" else "title TAB text"
    return located(
        name,
        lineno,
        f"line {lineno} is not a header line naming columns (the file reads as {kind.key} TAB text), so {keyword} "
        f"has no column to pick: leave it out, or insert a header line such as {kind.key} TAB {example}",
    )


def _header_columns(
    name: str, lineno: int, columns: list[str], kind: _Kind, id_field: str | None, text_fields: tuple[str, ...] | None
) -> tuple[int, tuple[int, ...]]:
    """Positions of the id and text columns named by a TSV header line, whose names are compared without regard to
    case (trailing empty columns are no names)."""
    names = _folded(columns)
    if len(set(names)) != len(names):
        dup = next(columns[i] for i, c in enumerate(names) if c in names[:i])
        raise located(name, lineno, f"header line names column {dup!r} twice")
    if id_field is None:  # a TSV's id is its first column unless the header names a known id elsewhere
        id_field = next((c for c in kind.ids if c in names), None) or next(
            (c for c in names if c in _HEADER_IDS), names[0]
        )
    if text_fields is None and len(names) == 2 and not any(all(f in names for f in t) for t in kind.tsv_texts):
        text_fields = tuple(c for c in names if c != id_field.lower()) or None  # id TAB text: the other column
    try:
        id_key, text_keys = _choose(
            names,
            kind,
            id_field.lower(),
            None if text_fields is None else tuple(f.lower() for f in text_fields),
            "column",
            "name it with id_field=",
            f"name it with {kind.keyword}",
            _NAME_ONE,
            kind.tsv_texts,
        )
    except ClirkitError as exc:
        raise located(name, lineno, f"{exc} (header line)") from None
    return names.index(id_key), tuple(names.index(k) for k in text_keys)


def _tsv_two_columns(name: str, lines: Iterable[tuple[int, str]], key: str) -> Iterator[tuple[int, str, str]]:
    """``key TAB text`` lines split on the first tab; the text is kept whole (tabs included)."""
    for lineno, line in lines:
        ident, tab, text = line.partition("\t")
        if not tab:
            raise located(name, lineno, f"expected {key} TAB text, found no tab")
        yield lineno, check_id(name, lineno, ident, key), text


def _tsv_records(
    name: str,
    lines: Iterator[tuple[int, str]],
    kind: _Kind,
    header: bool | None,
    id_field: str | None,
    text_fields: tuple[str, ...] | None,
) -> Iterator[tuple[int, str, str]]:
    """``(line, id, text)`` of TSV lines, after a header line if ``header`` (None: if line 1 is a known
    header, or if ``id_field`` or ``text_fields`` name columns)."""
    first = next(lines, None)
    if first is None:
        return iter(())
    columns = [c.strip() for c in first[1].split("\t")]
    named = id_field is not None or text_fields is not None
    if header is None:  # naming columns says that line 1 names them
        folded = _folded(columns)
        header = named or _is_header(folded)
        if not header and _looks_like_header(folded):
            if not set(folded) <= _HEADER_IDS | _HEADER_TEXTS:
                raise _unknown_header(name, first[0], columns, kind)
            header = True  # known names, one given twice: said by _header_columns
    if not header:
        if named:
            raise located(
                name,
                None,
                "id_field and text_fields name the columns of a TSV header line, and header=False says there is none",
            )
        return _tsv_two_columns(name, itertools.chain([first], lines), kind.key)
    try:
        id_col, text_cols = _header_columns(name, first[0], columns, kind, id_field, text_fields)
    except ClirkitError:
        folded = _folded(columns)
        if named and not (_is_header(folded) or _looks_like_header(folded)):  # line 1 is data, not names
            raise _no_header(name, first[0], kind, kind.keyword if text_fields is not None else "id_field=") from None
        raise
    if len(columns) == 2 and id_col == 0 and text_cols == (1,):  # id TAB text: the text keeps its tabs
        return _tsv_two_columns(name, lines, columns[0])
    return _tsv_columns(name, lines, first[0], len(columns), id_col, text_cols, columns[id_col])


def _tsv_columns(
    name: str,
    lines: Iterator[tuple[int, str]],
    header_line: int,
    ncols: int,
    id_col: int,
    text_cols: tuple[int, ...],
    key: str,
) -> Iterator[tuple[int, str, str]]:
    """Lines of ``ncols`` tab-separated columns: the id and the text (several columns joined) by position."""
    text_col = text_cols[0] if len(text_cols) == 1 else None
    for lineno, line in lines:
        cols = line.split("\t")
        if len(cols) != ncols:
            raise located(
                name,
                lineno,
                f"expected {ncols} tab-separated columns like the header (line {header_line}), got {len(cols)}",
            )
        text = cols[text_col] if text_col is not None else join_text([cols[i] for i in text_cols])
        yield lineno, check_id(name, lineno, cols[id_col], key), text


def read_records(
    name: str,
    lines: Iterator[tuple[int, str]],
    fmt: str,
    kind: _Kind,
    header: bool | None,
    id_field: str | None,
    text_fields: tuple[str, ...] | None,
) -> Iterator[tuple[int, str, str]]:
    """``(line, id, text)`` of the non-blank ``lines`` of a file in ``fmt`` (``jsonl`` or ``tsv``)."""
    if fmt == "jsonl":
        if header:
            raise ClirkitError(f"{name}: header=True applies to TSV files; this file is read as JSONL")
        return _json_records(name, lines, kind, id_field, text_fields)
    return _tsv_records(name, lines, kind, header, id_field, text_fields)


def _check_writable_text(key: str, ident: str, text: str, *, tsv: bool) -> None:
    if not ident or has_space(ident):
        raise ClirkitError(f"cannot write {key} {ident!r}: ids must be non-empty and contain no whitespace")
    if tsv and ("\n" in text or "\r" in text):
        raise ClirkitError(f"cannot write the text of {key} {ident!r} as TSV: it contains a line break")


def write_records(pairs: Iterable[tuple[str, str]], path: str | os.PathLike[str], key: str) -> None:
    """Write ``(id, text)`` pairs as TSV, or JSONL if the name ends .jsonl/.json."""
    as_json = is_json_name(path)
    with atomic_writer(path) as out:
        for chunk in chunks(iter(pairs)):
            lines = []
            for ident, text in chunk:
                _check_writable_text(key, ident, text, tsv=not as_json)
                if as_json:
                    lines.append(json.dumps({key: ident, "text": text}, ensure_ascii=False))
                else:
                    lines.append(f"{ident}\t{text}")
            out.write("\n".join(lines))
            out.write("\n")
