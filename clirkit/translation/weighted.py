"""Translation resources that carry their own probabilities: Moses phrase tables and HLTCOE PSQ tables.

Formats (``format=`` names of :func:`clirkit.translation.load_table`):

- ``phrase-table``: a Moses phrase table (``phrase-table`` or ``phrase-table.gz``), one phrase pair a line,
  ``source phrase ||| target phrase ||| scores [||| alignment ||| counts ...]``. Moses writes four scores in
  this order: p(s|t), lex(s|t), p(t|s), lex(t|s); ``score_column`` (counted from 1, as ``cut -f`` counts)
  chooses the one read as p(t|s), 3 by default. Moses's escapes of its tokenizer (``&apos;``, ``&amp;``,
  ``&#124;``, ...) are undone. ``reverse=True`` reads the table the other way round (the target phrases
  become the source), with column 1, p(s|t), by default.
- ``psq-json``: the translation tables of HLTCOE's PSQ (the ``fast_psq`` package): one JSON object
  (``.json`` or ``.json.gz``) of objects, source word -> target word -> probability.

Both become p(e|f) as :mod:`clirkit.translation.dictionaries` turns a dictionary into a table, except for the
weights, which are the file's (not uniform or rank weights): :func:`weighted_table`

1. analyzes both sides with the Analyzer of each language when the languages are known (given, or from the
   file name), so entries that analyze alike ("house", "houses") merge and their probabilities add up;
   without languages, both sides are lowercased (unless ``lowercase=False``) and split at spaces;
2. keeps a source side of several terms as a phrase, terms joined by one space (a PSQ table's words that the
   analysis cuts: a Chinese word split by the segmenter; matched in queries, :mod:`clirkit.translation.phrases`),
   or drops it (a Moses phrase table, whose multi-word sources are most of it and match what Model 1 tables already
   give) (``multiword_source``; counted either way), and drops the entries with a side left without terms
   (punctuation);
3. splits a multi-word target into its words, each with an equal share of the entry's p (``multiword_target``:
   ``split``; ``phrase`` keeps it whole, words joined by one space; ``drop`` drops it), as for dictionaries;
4. renormalizes every row that does not sum to 1 (a phrase table loses the mass of what step 2 or 3 dropped;
   a pruned table never had it), and counts them (``params["n_rows_renormalized"]``).

``params`` records the format, the file, the options, the languages and the counts: ``n_entries_read``,
``n_multiword_source``, ``n_multiword_source_dropped``, ``n_multiword_target``, ``n_without_terms``,
``n_rows_renormalized``.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Iterable, Iterator

import numpy as np

from clirkit.errors import ClirkitError, counted
from clirkit.fileio import GZIP_ERRORS, damaged_gzip, display_name, file_float, iter_lines, open_binary, undecodable
from clirkit.translation.arguments import TableArgumentError
from clirkit.translation.dictionaries import (
    MULTIWORD_TARGET,
    PHRASE_JOINER,
    EntryError,
    _format_error,
    _term_maker,
    analysis_settings,
    check_words,
    multiword_report,
    resolve_languages,
)
from clirkit.translation.table import TableFormatError, TranslationTable, normalize_rows

WEIGHTED_FORMATS = ("phrase-table", "psq-json")
#: Moses's score order in a phrase table; column 3 (p(t|s)) is read by default.
MOSES_SCORES = ("p(s|t)", "lex(s|t)", "p(t|s)", "lex(t|s)")
#: A row whose probabilities sum to 1 within this is left as it is.
ROW_SUM_TOLERANCE = 1e-6
#: The escapes of Moses's tokenizer (escape-special-chars), undone in phrase tables.
MOSES_ESCAPES = {
    "&amp;": "&",
    "&#124;": "|",
    "&lt;": "<",
    "&gt;": ">",
    "&apos;": "'",
    "&quot;": '"',
    "&#91;": "[",
    "&#93;": "]",
}
_MOSES_ESCAPE = re.compile("|".join(map(re.escape, MOSES_ESCAPES)))


def unescape_moses(text: str) -> str:
    """``text`` with the escapes of Moses's tokenizer (``&apos;``, ``&amp;``, ``&#124;``, ...) undone."""
    return _MOSES_ESCAPE.sub(lambda m: MOSES_ESCAPES[m.group(0)], text) if "&" in text else text


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ----------------------------------------------------------------------------------------------
# readers: each yields (source, target, p) in file order


def phrase_table_entries(path: str | os.PathLike[str], score_column: int = 3) -> Iterator[tuple[str, str, float]]:
    """The ``(source phrase, target phrase, p)`` of a Moses phrase table, p the score in ``score_column``
    (from 1; 3 = p(t|s) in Moses's order p(s|t) lex(s|t) p(t|s) lex(t|s)). A line that does not fit, or repeats
    the pair of a line before it among its source phrase's lines, raises ``TableFormatError("FILE:LINE: problem")``."""
    if not isinstance(score_column, int) or isinstance(score_column, bool) or score_column < 1:
        raise ClirkitError(f"score column must be an integer >= 1 (3 = p(t|s) in Moses's order), got {score_column!r}")
    name = display_name(path)
    k = score_column - 1
    last_source, lines_of_targets = None, {}
    for lineno, line in iter_lines(path):
        fields = line.split("|||")
        if len(fields) < 3:
            raise _format_error(
                name,
                lineno,
                f"expected 'source ||| target ||| scores' (Moses phrase table), "
                f"found {len(fields) - 1} '|||' separators",
            )
        source, target = " ".join(fields[0].split()), " ".join(fields[1].split())
        if not source or not target:
            raise _format_error(
                name, lineno, f"empty {'source' if not source else 'target'} phrase; remove the line or give the phrase"
            )
        scores = fields[2].split()
        if len(scores) <= k:
            raise _format_error(
                name,
                lineno,
                f"{len(scores)} scores, no column {score_column} (--score-column; "
                f"Moses writes 4: {' '.join(MOSES_SCORES)})",
            )
        try:
            p = file_float(scores[k])
        except ValueError:
            raise _format_error(
                name, lineno, f"score {_cut(scores[k])!r} (column {score_column}) is not a number"
            ) from None
        if not (math.isfinite(p) and 0.0 <= p <= 1.0):
            raise _format_error(
                name,
                lineno,
                f"score {_cut(scores[k])} (column {score_column}) is not a "
                f"probability in [0, 1]; choose the column of p(t|s) with "
                f"--score-column (Moses writes {' '.join(MOSES_SCORES)})",
            )
        source, target = unescape_moses(source), unescape_moses(target)
        check_words(name, lineno, source, target)
        if source != last_source:  # a pair given twice: on neighbouring lines in a table sorted by source
            last_source, lines_of_targets = source, {}
        if target in lines_of_targets:
            raise _format_error(
                name,
                lineno,
                f"{_cut(source)!r} ||| {_cut(target)!r} repeats line {lines_of_targets[target]}; keep one of the two",
            )
        lines_of_targets[target] = lineno
        yield source, target, p


def psq_json_entries(path: str | os.PathLike[str]) -> Iterator[tuple[str, str, float]]:
    """The ``(source, target, p)`` of an HLTCOE PSQ table (``fast_psq``): a JSON object of objects, source
    word -> target word -> probability (``.gz`` read transparently), in file order. Invalid JSON, a value that
    is not an object, a probability that is not a number in [0, 1], an empty word or a key given twice raise
    ``TableFormatError("FILE:LINE: problem")`` naming the line of the entry."""
    name = display_name(path)
    with open_binary(path) as fh:
        try:
            raw = fh.read()
        except GZIP_ERRORS as exc:
            raise damaged_gzip(name, None, exc) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        start = raw.rfind(b"\n", 0, exc.start) + 1
        problem = undecodable(raw[start : start + 4096], exc.start - start, line == 1)
        raise _format_error(name, line, problem, EntryError) from None
    try:
        data = json.loads(text, object_pairs_hook=_Object)  # pairs in file order, repeated keys kept
    except json.JSONDecodeError as exc:
        raise _format_error(name, exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno}); {_PSQ_FIX}") from None
    except (ValueError, RecursionError) as exc:  # an integer of thousands of digits; arrays nested thousands deep
        problem = (
            f"nested too deep; {_PSQ_FIX}"
            if isinstance(exc, RecursionError)
            else "a number of thousands of digits; write it with fewer digits"
        )
        raise _format_error(name, None, f"invalid JSON for a PSQ table: {problem}") from None
    if not isinstance(data, _Object):
        raise _format_error(
            name,
            1,
            "expected a JSON object {source word: {target word: probability}} "
            f"(HLTCOE PSQ table), found {_json_type(data)}",
        )

    def bad(i: int, j: int | None, problem: str) -> TableFormatError:
        return _format_error(name, _json_line(text, i, j), problem)

    seen_sources: set[str] = set()
    for i, (source, translations) in enumerate(data):
        if not source.strip():
            raise bad(i, None, "an empty source word; remove the entry or give its word")
        if source in seen_sources:
            raise bad(i, None, f"source word {_cut(source)!r} given twice; give all its translations in one object")
        seen_sources.add(source)
        if not isinstance(translations, _Object):
            raise bad(
                i,
                None,
                f"the translations of {_cut(source)!r} must be an object {{target word: "
                f"probability}}, found {_json_type(translations)}",
            )
        seen: set[str] = set()
        for j, (target, p) in enumerate(translations):
            if not target.strip():
                raise bad(i, j, f"an empty target word among the translations of {_cut(source)!r}; remove it")
            if target in seen:
                raise bad(i, j, f"{_cut(source)!r} -> {_cut(target)!r} given twice; keep one of the two")
            seen.add(target)
            if isinstance(p, bool) or not isinstance(p, (int, float)):
                raise bad(
                    i,
                    j,
                    f"the probability of {_cut(source)!r} -> {_cut(target)!r} is {_json_type(p)}, not a number{_P_FIX}",
                )
            if not (0 <= p <= 1 if isinstance(p, int) else math.isfinite(p) and 0.0 <= p <= 1.0):  # ints exactly
                raise bad(
                    i,
                    j,
                    f"the probability of {_cut(source)!r} -> {_cut(target)!r} is {_cut(str(p))}, not in [0, 1]{_P_FIX}",
                )
            try:
                check_words(name, None, source, target)
            except EntryError as exc:  # named at the entry's line, still an error no other format would avoid
                raise EntryError(str(bad(i, j, str(exc)[len(name) + 2 :]))) from None
            yield source, target, float(p)


_PSQ_FIX = "fix the JSON: a PSQ table is one object {source word: {target word: probability}}"
_P_FIX = "; give a number from 0 to 1"


class _Object(list):
    """A JSON object as its (key, value) pairs in file order (``object_pairs_hook``): repeats stay visible."""


def _json_type(value) -> str:
    """The JSON type of ``value`` with its article: ``an object``, ``a list``, ``a string``, ... ."""
    if isinstance(value, _Object):
        return "an object"
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


_WS = re.compile(r"[ \t\n\r]*")


def _json_line(text: str, i: int, j: int | None) -> int:
    """The line of the i-th key of the top object of ``text`` (a valid JSON object), or with ``j`` of the j-th
    key of its value: for error messages only (the file was parsed by :func:`json.loads`)."""
    from json.decoder import scanstring

    decoder = json.JSONDecoder()

    def keys(pos: int) -> Iterator[tuple[int, int]]:
        """(start of the key, start of the value) of each member of the object at ``pos``."""
        pos = _WS.match(text, pos + 1).end()
        while text[pos] != "}":
            start = pos
            _, pos = scanstring(text, pos + 1)
            pos = _WS.match(text, pos).end() + 1  # past ':'
            value = _WS.match(text, pos).end()
            yield start, value
            _, pos = decoder.raw_decode(text, value)
            pos = _WS.match(text, pos).end()
            if text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()

    top = _WS.match(text, 0).end()
    for k, (start, value) in enumerate(keys(top)):
        if k == i:
            if j is not None and text[value] == "{":
                for m, (inner, _) in enumerate(keys(value)):
                    if m == j:
                        start = inner
                        break
            return text.count("\n", 0, start) + 1
    return 1


# ----------------------------------------------------------------------------------------------
# entries -> table


def weighted_table(
    entries: Iterable[tuple[str, str, float]],
    params: dict | None = None,
    *,
    lowercase: bool = True,
    multiword_target: str = "split",
    multiword_source: str = "drop",
    source_lang: str | None = None,
    target_lang: str | None = None,
    source_analyzer=None,
    target_analyzer=None,
) -> TranslationTable:
    """The table p(e|f) of weighted ``entries`` (source, target, p): the steps of the module docstring.
    ``source_analyzer``/``target_analyzer`` (both or neither) make each side's terms and are recorded; without
    them a side is lowercased (``lowercase``) and split at spaces. ``params`` is merged into the table's."""
    if multiword_target not in MULTIWORD_TARGET:
        raise TableArgumentError(
            f"multiword_target must be one of {', '.join(MULTIWORD_TARGET)}, got {multiword_target!r}"
        )
    source_terms = _term_maker(source_analyzer, lowercase)
    target_terms = _term_maker(target_analyzer, lowercase)
    sources: list[str] = []
    targets: list[str] = []
    probs: list[float] = []
    n_read = n_multi_source = n_multi_target = n_empty = 0
    for f, e, p in entries:
        n_read += 1
        f_words = source_terms(f)
        if len(f_words) > 1:
            n_multi_source += 1
            if multiword_source == "drop":  # most of a phrase table: its target is not analyzed
                continue
            f_words = [PHRASE_JOINER.join(f_words)]
        e_words = target_terms(e) if f_words else []
        if not e_words:
            n_empty += 1
            continue
        if len(e_words) > 1:
            n_multi_target += 1
            if multiword_target == "drop":
                continue
            if multiword_target == "phrase":
                e_words = [PHRASE_JOINER.join(e_words)]
        share = p / len(e_words)
        for word in e_words:
            sources.append(f_words[0])
            targets.append(word)
            probs.append(share)
    if source_analyzer is not None and target_analyzer is not None:
        params = {
            **(params or {}),
            "source_analyzer": source_analyzer.to_dict(),
            "target_analyzer": target_analyzer.to_dict(),
        }
    params = {
        **(params or {}),
        "lowercase": lowercase,
        "multiword_target": multiword_target,
        "source_lang": source_lang,
        "target_lang": target_lang,
        "n_entries_read": n_read,
        "multiword_source": multiword_source,
        "n_multiword_source": n_multi_source,
        "n_multiword_source_dropped": n_multi_source if multiword_source == "drop" else 0,
        "n_multiword_target": n_multi_target,
        "n_without_terms": n_empty,
    }
    table = TranslationTable.from_triples(sources, targets, probs, params, merged=True)
    sums = table.row_sums()
    filled = np.diff(table.probs.indptr) > 0
    off = filled & (np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    table.params["n_rows_renormalized"] = int(off.sum())
    if off.any():
        table = TranslationTable(table.source_vocab, table.target_vocab, normalize_rows(table.probs), table.params)
    return table


def load_weighted(
    path: str | os.PathLike[str],
    format: str,
    *,
    lowercase: bool = True,
    multiword_target: str = "split",
    source_lang: str | None = None,
    target_lang: str | None = None,
    reverse: bool = False,
    stemmer: str | None = "snowball",
    segmenter: str | None = "auto",
    chinese_script: str | None = "auto",
    score_column: int | None = None,
    normalization_version: int | None = None,
) -> TranslationTable:
    """Read a Moses phrase table (``format="phrase-table"``) or an HLTCOE PSQ table (``"psq-json"``) as a table
    (module docstring). The languages are the given ones, else the file name's (``en-es.phrase-table.gz``);
    when both are known each side is analyzed by ``Analyzer(lang, lowercase=lowercase, stemmer=stemmer,
    segmenter=segmenter, chinese_script=chinese_script)``, of ``normalization_version`` when given (else the
    newest), as :func:`~clirkit.translation.dictionary_readers.load_dictionary` reads a dictionary.
    ``score_column`` (phrase tables: default 3, p(t|s); 1, p(s|t), with ``reverse``) and ``reverse`` (the
    target phrases as the source) apply to phrase tables only."""
    from clirkit.analysis import Analyzer

    if format not in WEIGHTED_FORMATS:
        raise ClirkitError(f"unknown format {format!r} (choose from {', '.join(WEIGHTED_FORMATS)})")
    name = display_name(path)
    if format == "psq-json":
        if reverse:
            raise ClirkitError(
                f"{name}: reversing applies to dictionaries and phrase tables, not to a PSQ table "
                f"p(e|f) (its reverse direction is another table)"
            )
        if score_column is not None:
            raise ClirkitError(f"{name}: --score-column applies to Moses phrase tables, not to a PSQ table")
        entries: Iterable[tuple[str, str, float]] = psq_json_entries(path)
    else:
        if score_column is None:
            score_column = 1 if reverse else 3
        entries = phrase_table_entries(path, score_column)
        if reverse:
            entries = ((e, f, p) for f, e, p in entries)
    src, tgt, how = resolve_languages(path, format, source_lang, target_lang, reverse)
    params = {"model": format, "format": format, "file": name, "reverse": reverse, "languages_from": how}
    if format == "phrase-table":
        params["score_column"] = score_column
    settings = analysis_settings(lowercase, stemmer, segmenter, chinese_script, normalization_version)
    analyzers = (
        (Analyzer(src, **settings), Analyzer(tgt, **settings)) if src is not None and tgt is not None else (None, None)
    )
    table = weighted_table(
        entries,
        params,
        lowercase=lowercase,
        multiword_target=multiword_target,
        multiword_source="phrase" if format == "psq-json" else "drop",
        source_lang=src,
        target_lang=tgt,
        source_analyzer=analyzers[0],
        target_analyzer=analyzers[1],
    )
    if table.nnz == 0:
        raise ClirkitError(
            f"{name}: no usable translations ({counted(table.params['n_entries_read'], 'entry', 'entries')} read, "
            f"{table.params['n_multiword_source_dropped']} with a multi-word source side)"
        )
    return table


def load_phrase_table(path: str | os.PathLike[str], **options) -> TranslationTable:
    """A Moses phrase table (:func:`phrase_table_entries`); ``options`` as :func:`load_weighted`."""
    return load_weighted(path, "phrase-table", **options)


def load_psq_json(path: str | os.PathLike[str], **options) -> TranslationTable:
    """An HLTCOE PSQ table (:func:`psq_json_entries`); ``options`` as :func:`load_weighted`."""
    return load_weighted(path, "psq-json", **options)


def weighted_report(table: TranslationTable) -> list[str]:
    """One-line messages on what reading a phrase table or PSQ table dropped, split, renormalized or guessed
    (empty for other tables)."""
    p = table.params
    if p.get("model") not in WEIGHTED_FORMATS:
        return []
    one, what = {"phrase-table": ("phrase pair", "phrase pairs"), "psq-json": ("PSQ table entry", "PSQ table entries")}[
        p["model"]
    ]
    n = p.get("n_entries_read", 0)
    column = (
        f", p = score column {p['score_column']} ({MOSES_SCORES[p['score_column'] - 1]})"
        if p.get("score_column") and p["score_column"] <= len(MOSES_SCORES)
        else ""
    )
    sizes = f"{counted(table.n_source, 'source word')}, {counted(table.nnz, 'option')}"
    out = [f"{p.get('file')}: {counted(n, one, what)} -> {sizes}{column}"]
    out += multiword_report(p, n, what, "the p")
    if p.get("n_without_terms"):
        out.append(f"{p['n_without_terms']:,} of {n:,} {what} have a side without terms (punctuation): dropped")
    if p.get("n_rows_renormalized"):
        out.append(
            f"{p['n_rows_renormalized']:,} of {table.n_source:,} source words had p summing to other than 1: "
            f"renormalized"
        )
    if p.get("source_lang") or p.get("target_lang"):
        out.append(f"languages {p.get('source_lang')} -> {p.get('target_lang')} ({p.get('languages_from')})")
    return out
