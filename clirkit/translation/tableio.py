"""Reading and writing translation tables and bilingual dictionaries.

Formats (``format=`` names):

- ``moses``: text lines ``e f p`` giving p(e|f) (whitespace separated, exactly 3 fields, 0 <= p <= 1, each
  (f, e) pair once); ``.gz`` accepted. Moses writes its two lexical tables in this layout, the predicted word
  first: ``lex.f2e`` holds ``e f p(e|f)`` (rows: the words of Moses's source language f, the language it
  translated from) and ``lex.e2f`` holds ``f e p(f|e)`` (rows: the words of its target language e). Both are
  read as they are: the second column is the table's source (the queries' language), so give ``lex.f2e``
  when Moses translated from the queries' language and ``lex.e2f`` when it translated into it. It keeps
  probabilities only (no languages, no dictionary ranks, no parameters).
- ``npz``: clirkit's compact form: the CSR arrays and both vocabularies, with a JSON header
  (kind ``translation-table``, format version, vocabulary sizes, the parameters that made it,
  languages included), and the dictionary ranks when the table has them (array ``ranks`` parallel
  to ``data``, 0 = unranked).
- ``phrase-table`` (Moses phrase tables, ``src ||| tgt ||| scores ...``) and ``psq-json`` (HLTCOE's PSQ
  tables, a JSON object source -> target -> p): resources with their own probabilities
  (:mod:`clirkit.translation.weighted`, which says how phrases become p(e|f)).
- dictionaries (:mod:`clirkit.translation.dictionary_readers`; :mod:`clirkit.translation.dictionaries` says how
  pairs become p(e|f)):
  ``pairs`` (``source target`` lines), ``muse`` (MUSE's own ``source target`` lines, a word's translations on
  consecutive lines, likeliest first; or the hunalign copies' ``TARGET @ SOURCE`` lines; rank-weighted),
  ``freedict`` (dictd ``.index`` beside ``.dict.dz``), ``ding`` (``German :: English`` lines with ``|``
  alternatives and ``;`` synonyms).

``format="auto"`` detects the format (:func:`detect_format`): from the bytes (npz, a JSON object), the
FreeDict file layout, else from the first lines' content, and only when they fit no format (or for stdin)
from the name. When a file then fails to parse, the error names the guess and how it was made. A file of
``source target`` lines that could be MUSE's (ranked) or plain pairs (unranked) and whose content does not
tell is refused with a message naming ``--format muse|pairs``.
"""

from __future__ import annotations

import math
import os
import re
import zlib

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError, counted
from clirkit.fileio import atomic_writer, display_name, file_float, iter_lines, open_binary, read_once
from clirkit.translation.dictionaries import (
    DICTIONARY_FORMATS,
    DISPLAY,
    MAX_WORD_LENGTH,
    EntryError,
    check_words,
)
from clirkit.translation.dictionary_readers import freedict_index_path, load_dictionary
from clirkit.translation.table import TableFormatError, TranslationTable

KIND = "translation-table"
FORMAT_VERSION = 1
FORMATS = ("auto", "moses", "npz", "phrase-table", "psq-json", "pairs", "muse", "freedict", "ding")
_ZIP_MAGIC = b"PK\x03\x04"
#: Lines read to detect a text format from its content.
SNIFF_LINES = 20
#: Lines read to tell a MUSE dictionary from plain pairs (:func:`_muse_or_pairs`).
MUSE_SNIFF_LINES = 2000
_DICTD_NUMBER = re.compile(r"[A-Za-z0-9+/]+")


# ----------------------------------------------------------------------------------------------
# format detection


def detect_format(path: str | os.PathLike[str]) -> str:
    """Guess a table file's format (:func:`guess_format` without the reason)."""
    return guess_format(path)[0]


def format_of(path: str | os.PathLike[str], format: str = "auto") -> str:
    """The format :func:`load_table` reads ``path`` in when told ``format``: for ``auto``, :func:`guess_format`'s;
    ``npz`` for a file whose bytes are a zip, whatever text format is named (no text format is a zip: dt and psq's
    ``--table-format`` names the format of a dictionary given beside an npz table); else ``format``."""
    if format == "auto":
        return guess_format(path)[0]
    return "npz" if _is_zip(path) else format


def format_for(path: str | os.PathLike[str] | None, format: str) -> str:
    """The format the table file ``path`` is read in when ``format`` names the format of the tables read beside it
    (dt and psq's ``--table-format`` with ``--table2``, a system's ``table_format``): ``npz`` for a file whose bytes
    are a zip (no text format is one), else ``format`` (``auto`` kept; no ``path``: ``format``)."""
    return "npz" if format not in ("auto", "npz") and path is not None and _is_zip(path) else format


def check_named_format(paths, format: str, option: str) -> None:
    """ClirkitError when ``format``, named by ``option`` (``--table-format``, ``format``, ``table_format``...), is a
    text format and every one of ``paths`` (None and stdin aside) is an npz table: each would be read as npz
    (:func:`format_for`), the format named ignored."""
    files = [display_name(p) for p in paths if p is not None and str(p) != "-"]
    if format in ("auto", "npz") or not files or not all(map(_is_zip, files)):
        return
    what = "the file is an npz table" if len(files) == 1 else "the files are npz tables"
    raise ClirkitError(
        f"{', '.join(files)}: {what}, not {DISPLAY[format]} ({option} {format}): leave {option} out, or give npz"
    )


def _is_zip(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a file whose first bytes are a zip's (an npz table's), not stdin."""
    if str(path) == "-" or not os.path.isfile(path):
        return False
    with open(path, "rb") as fh:
        return fh.read(4) == _ZIP_MAGIC


def guess_format(path: str | os.PathLike[str]) -> tuple[str, str]:
    """``(format, how)``: a table file's format and how it was told, in this order:

    1. ``npz`` by its zip bytes; ``psq-json`` by its first character, ``{`` (a JSON object; ``.gz`` read);
    2. ``freedict`` for a ``.index`` or ``.dict.dz`` file, or a ``.dict`` beside a ``.index`` whose lines
       are not MUSE's; ``psq-json`` for a ``.json(.gz)`` file that does not start with ``{`` and ``npz`` for a
       ``.npz`` file that is not a zip (errors then: the reader of that format says what is wrong);
    3. from the content of the first :data:`SNIFF_LINES` lines, when they all fit one layout:
       ``phrase-table`` (``... ||| ... ||| ...``), ``ding`` (``... :: ...``; ``#`` comments), ``muse``
       (``target @ source``), ``moses`` (3 fields, the last a probability), and for 2 fields ``muse`` or
       ``pairs`` as :func:`_muse_or_pairs` tells them (or a ClirkitError naming ``--format muse|pairs``
       when nothing tells them);
    4. from the name: ``.dict`` muse, anything else (and stdin, a pipe) moses.
    """
    p = str(path)
    if p == "-" or read_once(p):
        return "moses", "the default for stdin and pipes, which are read once; give --format if it is another"
    if _is_zip(p):
        return "npz", "its content"
    if os.path.isfile(p) and _json_object(p):
        return "psq-json", "its content (a JSON object)"
    if p.endswith(".index") or p.endswith(".dict.dz"):
        return "freedict", "the name"
    if p.endswith(".json") or p.endswith(".json.gz"):  # whatever its lines look like: the reader says what is wrong
        return "psq-json", "the name"
    if p.endswith(".npz"):  # not a zip (checked above): the npz reader says so, rather than read it as text
        return "npz", "the name"
    sniffed, seen = _sniff(p) if os.path.isfile(p) else (None, "")
    if p.endswith(".dict") and sniffed != "muse" and os.path.isfile(freedict_index_path(p)):
        return "freedict", "the name"
    if sniffed == "pairs":
        return _muse_or_pairs(p)
    if sniffed is not None:
        return sniffed, "the content of its first lines"
    how = f"the name; its first lines fit no one format: {seen}" if seen else "the name"
    if p.endswith(".dict") or p.endswith(".dict.gz"):
        return "muse", how
    return "moses", how


def _json_object(path: str) -> bool:
    """Whether the file (``.gz`` decompressed) starts with ``{`` after blanks (a JSON object)."""
    try:
        with open_binary(path) as fh:
            head = fh.read(512)
    except (ClirkitError, OSError, EOFError, zlib.error):
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


def _muse_or_pairs(path: str) -> tuple[str, str]:
    """``(format, how)`` of a file whose first lines are ``source target`` pairs, from its first
    :data:`MUSE_SNIFF_LINES` lines. MUSE lists each source word's translations on consecutive lines, likeliest
    first (its files are in the order of the source words' frequency), one word on each side; so

    - a line with a multi-word side, or a source word whose lines are not consecutive, or no source word with
      two translations: ``pairs`` (nothing to rank);
    - consecutive translations in an order that is not alphabetical: ``muse``;
    - consecutive translations in alphabetical order: an order that says nothing of likelihood, or a MUSE file
      whose first lines happen to be sorted: ClirkitError asking for ``--format muse`` or ``--format pairs``.
    """
    rows: list[list[str]] = []
    try:
        for _, line in iter_lines(path):
            rows.append(line.split())
            if len(rows) >= MUSE_SNIFF_LINES:
                break
    except ClirkitError:
        return "pairs", "the content of its first lines"  # unreadable: the reader will say where
    how = "the content of its first lines"
    if any(len(r) != 2 for r in rows):
        return "pairs", how
    finished: set[str] = set()
    translations: dict[str, list[str]] = {}
    previous = None
    for f, e in rows:
        if f != previous:
            if f in finished:
                return "pairs", how  # a word's lines apart: not MUSE's layout
            if previous is not None:
                finished.add(previous)
            previous = f
        listed = translations.setdefault(f, [])
        if e not in listed:
            listed.append(e)
    if not any(len(t) > 1 for t in translations.values()):
        return "pairs", how
    sources = list(translations)
    alphabetical = sources == sorted(sources) and all(t == sorted(t) for t in translations.values())
    if not alphabetical:
        return "muse", (
            f"{how}: each word's translations on consecutive lines, not in alphabetical order, "
            f"as MUSE lists them (likeliest first)"
        )
    raise ClirkitError(
        f"{display_name(path)}: 'source target' lines that list each word's translations on "
        f"consecutive lines in alphabetical order: a MUSE dictionary (ranked, likeliest first) or "
        f"plain pairs? Give --format muse or --format pairs (dt, psq: --table-format; both weigh a "
        f"word's translations uniformly unless --weights rank)"
    )


def _is_probability(text: str) -> bool:
    try:
        value = file_float(text)
    except ValueError:
        return False
    return math.isfinite(value) and 0.0 <= value <= 1.0


def _line_kind(line: str) -> str | None:
    """The layout one line fits (None: a comment line that says nothing)."""
    if "|||" in line:
        return "phrase-table"
    if " :: " in line:
        return "ding"
    if line.startswith("#"):
        return None
    if line.count(" @ ") == 1:
        return "muse"
    words = line.split()
    if len(words) == 3 and _is_probability(words[2]):
        return "moses"
    if "\t" in line:
        fields = line.split("\t")
        if len(fields) == 2 and all(f.strip() for f in fields):
            return "pairs"
        if len(fields) == 3 and all(_DICTD_NUMBER.fullmatch(f) for f in fields[1:]):
            return "freedict-index"
        return "other"
    return "pairs" if len(words) == 2 else "other"


def _sniff(path: str) -> tuple[str | None, str]:
    """``(layout, seen)``: the layout all of the first :data:`SNIFF_LINES` informative lines fit (or None),
    and when they fit none or several, what the first lines looked like (``line 1 ding, line 2 other``)."""
    kinds: dict[str, int] = {}
    seen = 0
    for lineno, line in iter_lines(path):  # invalid UTF-8 or a damaged gzip stream here: no reader gets past it
        kind = _line_kind(line)
        if kind is None:
            continue
        kinds.setdefault(kind, lineno)
        seen += 1
        if len(kinds) > 1 or seen >= SNIFF_LINES:
            break
    if len(kinds) == 1 and next(iter(kinds)) in ("phrase-table", "ding", "muse", "moses", "pairs"):
        return next(iter(kinds)), ""
    names = {"other": "no known layout", "freedict-index": "a dictd index line"}
    return None, ", ".join(f"line {n} {names.get(k, k)}" for k, n in kinds.items())


def load_table(
    path: str | os.PathLike[str],
    format: str = "auto",
    *,
    lowercase: bool = True,
    source_lang: str | None = None,
    target_lang: str | None = None,
    multiword_target: str = "split",
    weighting: str = "auto",
    reverse: bool = False,
    stemmer: str | None = "snowball",
    segmenter: str | None = "auto",
    chinese_script: str | None = "auto",
    score_column: int | None = None,
    normalization_version: int | None = None,
) -> TranslationTable:
    """Load a table or dictionary in any of the :data:`FORMATS` (``auto``: :func:`guess_format`; a text format named
    for an npz file is refused, :func:`check_named_format`).

    Every table returned has ``params["source_lang"]`` and ``params["target_lang"]`` (None when unknown).
    ``source_lang``/``target_lang`` set them: for a dictionary, a phrase table or a PSQ table they take precedence
    over its name or format; for a Moses file they are the only source; for an npz table that records other
    languages they are an error. The other options apply to dictionaries
    (:func:`clirkit.translation.dictionary_readers.load_dictionary`): ``lowercase``, ``multiword_target`` (``split``,
    ``phrase``, ``drop``), ``weighting`` (``auto``, ``uniform``, ``rank``), ``reverse``, ``stemmer``, ``segmenter``,
    ``chinese_script`` and ``normalization_version`` (the analysis of both sides, :class:`clirkit.analysis.Analyzer`'s
    keywords; None: the newest version); and, but for ``weighting``, to phrase tables and PSQ tables
    (:func:`clirkit.translation.weighted.load_weighted`), with ``score_column`` for phrase tables (from 1; default
    3, p(t|s) in Moses's order)."""
    from clirkit.translation.weighted import WEIGHTED_FORMATS, load_weighted

    if format not in FORMATS:
        raise ClirkitError(f"unknown table format {format!r} (choose from {', '.join(FORMATS)})")
    check_named_format([path], format, "format")
    if str(path) != "-":
        from clirkit.npzio import check_file

        check_file(path, KIND, "a table or dictionary file")
    how = None
    if format == "auto":
        format, how = guess_format(path)
    else:
        format = format_of(path, format)
    if reverse and format not in DICTIONARY_FORMATS + ("phrase-table",):
        raise ClirkitError(
            f"{display_name(path)}: reversing applies to dictionaries and phrase tables, not to a "
            f"{DISPLAY[format]} table p(e|f) (train the other direction instead)"
        )
    if score_column is not None and format != "phrase-table":
        raise ClirkitError(
            f"{display_name(path)}: --score-column applies to Moses phrase tables, not to a {DISPLAY[format]} file"
        )
    if weighting != "auto" and format not in DICTIONARY_FORMATS:
        raise ClirkitError(
            f"{display_name(path)}: --weights applies to dictionaries; a {DISPLAY[format]} file "
            f"has its own probabilities"
        )
    reading = {  # how a dictionary, a phrase table or a PSQ table is read
        "lowercase": lowercase,
        "multiword_target": multiword_target,
        "source_lang": source_lang,
        "target_lang": target_lang,
        "reverse": reverse,
        "stemmer": stemmer,
        "segmenter": segmenter,
        "chinese_script": chinese_script,
        "normalization_version": normalization_version,
    }
    try:
        if format in DICTIONARY_FORMATS:
            return load_dictionary(path, format, weighting=weighting, **reading)
        if format in WEIGHTED_FORMATS:
            return load_weighted(path, format, score_column=score_column, **reading)
        table = load_npz_table(path) if format == "npz" else load_moses(path)
    except TableFormatError as exc:
        if how is None or isinstance(exc, EntryError):  # no other format would read that entry
            raise
        if format in _SELF_EVIDENT and not how.startswith("the name"):  # its content said what it is
            raise
        others = "|".join(
            f for f in ("ding", "muse", "pairs", "freedict", "moses", "phrase-table", "psq-json") if f != format
        )
        raise TableFormatError(
            f"{exc} ({DISPLAY[format]} format, guessed from {how}); give --format {others} (dt, psq: --table-format)"
        ) from None
    return _with_languages(table, display_name(path), source_lang, target_lang)


# formats whose content names them (``|||`` columns, a JSON object, a zip): told by it, they need no other --format
_SELF_EVIDENT = ("phrase-table", "psq-json", "npz")


def _with_languages(
    table: TranslationTable, name: str, source_lang: str | None, target_lang: str | None
) -> TranslationTable:
    for side, given in (("source", source_lang), ("target", target_lang)):
        key = f"{side}_lang"
        recorded = table.params.get(key)
        if given and recorded and given != recorded:
            raise ClirkitError(f"{name}: the table's {side} language is {recorded!r}, not {given!r}")
        table.params[key] = recorded or given or None
    return table


def save_table(table: TranslationTable, path: str | os.PathLike[str], format: str = "auto") -> None:
    """Write ``table`` as ``npz`` (``format="npz"`` or a name ending in ``.npz``) or ``moses``."""
    if format == "auto":
        format = "npz" if str(path).endswith(".npz") else "moses"
    if format == "npz":
        save_npz_table(table, path)
    elif format == "moses":
        save_moses(table, path)
    else:
        raise ClirkitError(f"cannot write tables in format {format!r} (choose npz or moses)")


# ----------------------------------------------------------------------------------------------
# npz


def save_npz_table(table: TranslationTable, path: str | os.PathLike[str]) -> None:
    """Write the compact form (CSR arrays + vocabularies + JSON header with the parameters, languages
    included; the dictionary ranks if any), atomically."""
    from clirkit.npzio import save_npz

    header = {"n_source": table.n_source, "n_target": table.n_target, "nnz": table.nnz, "params": table.params}
    p = table.probs
    save_npz(
        path,
        KIND,
        FORMAT_VERSION,
        header,
        {
            "source_vocab": table.source_vocab,
            "target_vocab": table.target_vocab,
            "indptr": p.indptr.astype(np.int64),
            "indices": p.indices.astype(np.int32 if table.n_target < 2**31 else np.int64),
            "data": p.data.astype(np.float64),
            **(
                {"ranks": np.minimum(table.entry_ranks(), np.iinfo(np.int32).max).astype(np.int32)}
                if table.ranks is not None
                else {}
            ),
        },
        deflate=True,
    )


def load_npz_table(path: str | os.PathLike[str]) -> TranslationTable:
    """Read a table written by :func:`save_npz_table`, checking every value before use.

    Arrays: both vocabularies strings in strictly increasing order (sorted, no repeats; other code looks
    words up by bisection), every word non-empty and without NUL, source words without whitespace, target
    words with at most single spaces between their words (phrases); the probabilities a canonical CSR
    matrix (source x target words) of numbers in [0, 1]; ``ranks``, if present, one integer >= 0 per entry.
    Header: ``n_source``, ``n_target`` and ``nnz`` as the arrays say; ``params`` an object (or null) whose
    languages are ISO 639-1 codes or null, whose analyzers are valid analyzer settings (of the language recorded
    beside them, when one is) and whose ``source_frequent`` is a list of strings. Anything else raises
    ClirkitError ``FILE: corrupt translation table: problem``.
    """
    from clirkit.languages import check_language
    from clirkit.npzchecks import Corrupt, checking, require_analyzer, require_array, require_csr, require_field
    from clirkit.npzio import load_npz
    from clirkit.translation.arguments import P_MAX

    header, a = load_npz(path, KIND, (FORMAT_VERSION,), ("source_vocab", "target_vocab", "indptr", "indices", "data"))
    with checking(path, "translation table", remedy=True):
        src = require_array(a, "source_vocab", "str", sorted=True, unique=True)
        tgt = require_array(a, "target_vocab", "str", sorted=True, unique=True)
        _check_vocabulary(src, "source_vocab", phrases=True)
        _check_vocabulary(tgt, "target_vocab", phrases=True)
        for key, n, vocab in (("n_source", len(src), "source_vocab"), ("n_target", len(tgt), "target_vocab")):
            if require_field(header, key, "int", min=0) != n:
                raise Corrupt(f"header {key} is {header[key]} but {vocab} holds {n} words")
        probs = require_csr(
            a, ("data", "indices", "indptr"), (len(src), len(tgt)), "number", min=0, max=P_MAX, dtype=np.float64
        )
        if require_field(header, "nnz", "int", min=0) != probs.nnz:
            raise Corrupt(f"header nnz is {header['nnz']} but the table holds {probs.nnz} entries")
        ranks = require_array(a, "ranks", "int", shape=(probs.nnz,), min=0, dtype=np.int64, optional=True)
        params = require_field(header, "params", "object", nullable=True, default=None) or {}
        for side in ("source", "target"):
            lang = require_field(header, ("params", f"{side}_lang"), "str", nullable=True, default=None)
            if lang is not None:  # dt and psq check a query language against it; a pruned copy keeps it
                try:
                    check_language(lang)
                except ValueError as exc:
                    raise Corrupt(f"header params.{side}_lang: {exc}") from None
            if require_field(header, ("params", f"{side}_analyzer"), "object", nullable=True, default=None) is not None:
                analyzer = require_analyzer(params, f"{side}_analyzer", label=f"header params.{side}_analyzer")
                if lang is not None and analyzer.lang != lang:  # dt and psq analyze by one, the checks read the other
                    raise Corrupt(
                        f"header params.{side}_lang is {lang!r} but params.{side}_analyzer.lang is {analyzer.lang!r}: "
                        f"the table records two {side} languages"
                    )
        if params.get("target_analyzer") is not None and params.get("source_analyzer") is None:  # (makers: both)
            raise Corrupt("header params.target_analyzer is recorded without a source_analyzer (queries unstemmed)")
        require_field(header, ("params", "source_frequent"), "list", items="str", nullable=True, default=None)
    rank_matrix = sp.csr_matrix((ranks, probs.indices, probs.indptr), shape=probs.shape) if ranks is not None else None
    params = dict(params)
    for side in ("source", "target"):  # tables saved before the languages were recorded
        analyzer = params.get(f"{side}_analyzer")
        params.setdefault(f"{side}_lang", analyzer.get("lang") if isinstance(analyzer, dict) else None)
    return TranslationTable(src, tgt, probs, params, rank_matrix)


def _check_vocabulary(words: np.ndarray, name: str, *, phrases: bool) -> None:
    """Raise :class:`~clirkit.npzchecks.Corrupt` for a word that is empty, holds NUL, or whitespace (with
    ``phrases``: other than single spaces between words), naming the first one."""
    from clirkit.npzchecks import Corrupt
    from clirkit.npzio import show

    values = words.tolist()
    chars = set("".join(values))
    if values and min(map(len, values)) and "\0" not in chars and not any(c.isspace() for c in chars):
        return  # the common case, decided at once: no whitespace, NUL or empty word at all
    for i, w in enumerate(values):
        if not w:
            raise Corrupt(f"{name} holds an empty word at {i}")
        if "\0" in w:
            raise Corrupt(f"{name} holds a word with a NUL character at {i}: {show(w)}")
        if (" ".join(w.split()) if phrases else "".join(w.split())) != w:
            raise Corrupt(f"{name} holds a word with whitespace at {i}: {show(w)}")


# ----------------------------------------------------------------------------------------------
# Moses lex.e2f


def save_moses(table: TranslationTable, path: str | os.PathLike[str]) -> None:
    """Write ``e f p`` lines (source words in vocabulary order, then target words); p is
    printed with ``repr`` so that reading it back gives the same float64. Only the probabilities are
    written (not the parameters, languages or dictionary ranks: keep those in ``.npz``)."""
    for vocab, side in ((table.source_vocab, "source"), (table.target_vocab, "target")):
        spaced = [w for w in vocab.tolist() if not w or any(c.isspace() for c in w)]
        if spaced:
            raise ClirkitError(
                f"{path}: cannot write {side} word {spaced[0]!r} in the Moses format "
                f"(words must be non-empty and without spaces); save as .npz"
            )
    p = table.probs
    rows = np.repeat(np.arange(table.n_source), np.diff(p.indptr))
    src = table.source_vocab.tolist()
    tgt = table.target_vocab.tolist()
    with atomic_writer(path) as out:
        for r, c, v in zip(rows.tolist(), p.indices.tolist(), p.data.tolist()):
            out.write(f"{tgt[c]} {src[r]} {v!r}\n")


def load_moses(path: str | os.PathLike[str]) -> TranslationTable:
    """Read Moses ``e f p`` lines (p = p(e|f)), words in Unicode's composed form
    (:func:`~clirkit.analysis.composed`); bad lines raise ``ClirkitError`` with file:line. The file
    says nothing of its languages: ``params["source_lang"]``/``["target_lang"]`` are None
    (:func:`load_table` sets them when given)."""
    from clirkit.analysis import composed

    name = display_name(path)
    sources, targets, probs, linenos = [], [], [], []
    for lineno, line in iter_lines(path):
        fields = composed(line).split()  # NFC, as every text clirkit analyzes
        if len(fields) != 3:
            raise _located(name, lineno, f"expected 3 fields 'e f p', got {len(fields)}", after=False)
        try:
            p = file_float(fields[2])
        except ValueError:
            raise _located(
                name, lineno, f"probability {_cut(fields[2])!r} is not a number{_P_RANGE}", after=bool(probs)
            ) from None
        if not (math.isfinite(p) and 0.0 <= p <= 1.0):
            raise _located(name, lineno, f"probability {_cut(fields[2])} is not in [0, 1]{_P_RANGE}", after=bool(probs))
        targets.append(fields[0])
        sources.append(fields[1])
        probs.append(p)
        linenos.append(lineno)
    if not probs:
        raise ClirkitError(f"{name}: empty translation table (no line holds an entry): check the path")
    if not any(probs):
        raise ClirkitError(
            f"{name}: no usable translations ({counted(len(probs), 'entry', 'entries')} read, every probability 0)"
        )
    if "\0" in "".join(sources) + "".join(targets) or max(map(len, sources + targets)) > MAX_WORD_LENGTH:
        for k in range(len(probs)):  # checked at once (fast); the first bad line is named
            check_words(name, linenos[k], targets[k], sources[k])
    src_vocab, src_ids = np.unique(np.asarray(sources, dtype=str), return_inverse=True)
    tgt_vocab, tgt_ids = np.unique(np.asarray(targets, dtype=str), return_inverse=True)
    src_ids, tgt_ids = src_ids.ravel().astype(np.int64), tgt_ids.ravel().astype(np.int64)
    keys = src_ids * len(tgt_vocab) + tgt_ids
    order = np.argsort(keys, kind="stable")  # equal keys stay in line order
    sorted_keys = keys[order]
    starts = np.concatenate([[True], sorted_keys[1:] != sorted_keys[:-1]])
    if not starts.all():
        group_first = order[np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))]
        repeat_pos = np.flatnonzero(~starts)
        k = repeat_pos[np.argmin(order[repeat_pos])]  # the earliest line that repeats a pair
        i, j = int(order[k]), int(group_first[k])
        raise _located(
            name,
            linenos[i],
            f"pair {targets[i]} {sources[i]} repeats line {linenos[j]}: a table gives "
            f"each pair one probability; remove one of the two lines",
            after=True,
        )
    matrix = sp.csr_matrix(
        (np.asarray(probs, dtype=np.float64), (src_ids, tgt_ids)), shape=(len(src_vocab), len(tgt_vocab))
    )
    return TranslationTable(
        src_vocab, tgt_vocab, matrix, {"model": "moses", "file": name, "source_lang": None, "target_lang": None}
    )


def _cut(text: str, limit: int = 40) -> str:
    """A field as an error message shows it: at most ``limit`` characters (a 5,000-digit number is cut)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


_P_RANGE = "; give p(e|f) as a number from 0 to 1 (e.g. 0.25)"


def _located(name: str, lineno: int, problem: str, *, after: bool) -> TableFormatError:
    """The error for line ``lineno`` of a Moses table; ``after``: the line has the format's fields and lines before
    it were read as entries, so the format is right and the line wrong (an :class:`EntryError`: no other
    ``--format`` to try)."""
    return (EntryError if after else TableFormatError)(f"{name}:{lineno}: {problem}")
