"""Reading bilingual dictionary files: one reader per format, each yielding the dictionary's (source, target)
pairs in file order (:func:`pairs_entries`, :func:`muse_entries`, :func:`freedict_entries`, :func:`ding_entries`),
and :func:`load_dictionary` (:func:`load_pairs`, :func:`load_muse`, :func:`load_freedict`, :func:`load_ding`),
which reads a file as a table with :func:`clirkit.translation.dictionaries.dictionary_table` (whose module says
how pairs become p(e|f)).
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path
from typing import Iterable, Iterator

from clirkit.errors import ClirkitError, quoted
from clirkit.fileio import GZIP_ERRORS, damaged_gzip, display_name, iter_lines
from clirkit.translation.dictionaries import (
    DICTIONARY_FORMATS,
    WEIGHTINGS,
    _format_error,
    analysis_settings,
    check_words,
    dictionary_table,
    resolve_languages,
)
from clirkit.translation.table import TranslationTable

# ----------------------------------------------------------------------------------------------
# readers: each yields (source, target) pairs in file order


def pairs_entries(path: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    """``source TAB target`` lines (either side may then hold several words) or ``source target``
    (exactly two whitespace-separated words)."""
    name = display_name(path)
    for lineno, line in iter_lines(path):
        fields = [x.strip() for x in line.split("\t")] if "\t" in line else line.split()
        if len(fields) != 2:
            raise _format_error(name, lineno, f"expected 2 fields 'source target', got {len(fields)}")
        if not all(fields):
            raise _format_error(name, lineno, f"the {'source' if not fields[0] else 'target'} field is empty")
        check_words(name, lineno, *fields)
        yield fields[0], fields[1]


def muse_entries(path: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    """A MUSE dictionary, in the hunalign form of ``hunalign-dict-muse`` (``TARGET @ SOURCE``: the
    *reversed* order, in ``es-en.dict`` the line ``that @ que`` means Spanish "que" -> English "that") or
    in MUSE's own text form (``source target``, separated by a space or a tab, as in ``es-en.txt`` or
    ``es-en.0-5000.txt``: ``que that``); the first line tells which, every line must follow it. Either way a
    word's translations are on consecutive lines, likeliest first."""
    name = display_name(path)
    hunalign = None
    for lineno, line in iter_lines(path):
        if hunalign is None:
            hunalign = " @ " in line
        if hunalign:
            fields = [x.strip() for x in line.split(" @ ")]
            if len(fields) != 2 or not all(fields):
                raise _format_error(name, lineno, "expected 'target @ source' (MUSE hunalign form)")
            check_words(name, lineno, *fields)
            yield fields[1], fields[0]
        else:
            fields = line.split()
            if len(fields) != 2:
                raise _format_error(
                    name, lineno, f"expected 2 fields 'source target' (MUSE text form), got {len(fields)}"
                )
            check_words(name, lineno, *fields)
            yield fields[0], fields[1]


_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_LABELS = re.compile(r"\([^)]*\)|\[[^\]]*\]|<[^>]*>")
_SENSE_NUMBER = re.compile(r"^\d+\.\s*")


def _dictd_number(text: str) -> int:
    value = 0
    for ch in text:
        value = value * 64 + _B64[ch]
    return value


def freedict_index_path(path: str | os.PathLike[str]) -> str:
    """The ``.index`` file of a FreeDict dictionary named by its index or its ``.dict(.dz)`` body."""
    p = str(path)
    for ext in (".dict.dz", ".dict"):
        if p.endswith(ext):
            return p[: -len(ext)] + ".index"
    return p


def freedict_entries(index_path: str | os.PathLike[str]) -> Iterator[tuple[str, list[str]]]:
    """Yield ``(headword, translations)`` for each entry of a dictd dictionary (metadata entries
    ``00database...`` skipped), in index order. ``index_path`` names the ``.index`` file (``headword TAB
    offset TAB length``, numbers in dictd's base64) beside its ``.dict.dz`` (or ``.dict``); each entry's
    lines after the headword line are senses (``1. a, b``) whose comma- or semicolon-separated items are
    the translations, in order; ``(...)``, ``[...]`` and ``<...>`` labels and quoted example lines are
    removed."""
    index_path = freedict_index_path(index_path)
    name = display_name(index_path)
    base = index_path[: -len(".index")] if index_path.endswith(".index") else index_path
    if not os.path.isfile(index_path):
        raise ClirkitError(f"{name}: no such file (a FreeDict dictionary is read from its .index file)")
    for candidate in (base + ".dict.dz", base + ".dict"):
        if os.path.isfile(candidate):
            dict_path = candidate
            break
    else:
        raise ClirkitError(f"{name}: no {Path(base).name}.dict.dz or .dict beside the index")
    try:
        with open(dict_path, "rb") as fh:
            raw = fh.read()
        body = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    except GZIP_ERRORS as exc:  # truncated or damaged compression
        raise damaged_gzip(dict_path, None, exc, "the dictionary body") from None
    except OSError as exc:
        raise ClirkitError(f"{dict_path}: cannot read the dictionary body ({exc.strerror or exc})") from None
    for lineno, line in iter_lines(index_path):
        fields = line.split("\t")
        if len(fields) != 3:
            raise _format_error(
                name, lineno, f"expected 3 tab-separated fields 'headword offset length', got {len(fields)}"
            )
        headword, offset, length = fields
        try:
            start, size = _dictd_number(offset), _dictd_number(length)
        except KeyError:
            raise _format_error(name, lineno, "offset or length is not dictd base64") from None
        if start + size > len(body):
            raise _format_error(name, lineno, f"entry runs past the end of {Path(dict_path).name}")
        end = start + size
        if (start and body[start - 1 : start] != b"\n") or (size and end < len(body) and body[end - 1 : end] != b"\n"):
            # dictd entries are whole lines: an entry cut mid-line means the index does not match the body
            raise _format_error(
                name,
                lineno,
                f"the entry of {quoted(headword, 50)} does not start and end at line "
                f"ends of {Path(dict_path).name}: the index and the body do not match "
                f"(one was damaged or edited); get the dictionary again",
            )
        if headword.startswith("00database") or headword.startswith("00-database"):
            continue
        try:
            entry = body[start : start + size].decode("utf-8")
        except UnicodeDecodeError:
            raise _format_error(name, lineno, "entry is not valid UTF-8") from None
        translations = _entry_translations(entry)
        check_words(name, lineno, headword, *translations)
        yield headword, translations


def _entry_translations(entry: str) -> list[str]:
    out = []
    for sense in entry.split("\n")[1:]:
        sense = sense.strip()
        if sense.startswith('"'):
            continue  # quoted example phrase in the source language
        sense = _LABELS.sub(" ", _SENSE_NUMBER.sub("", sense))
        for item in re.split(r"[,;]", sense):
            item = " ".join(item.split())
            if item:
                out.append(item)
    return out


_DING_MARKUP = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]|\([^()]*\)|<[^<>]*>")
_DING_STRAY = re.compile(r"[{}\[\]()<>]")
#: Ding's placeholders for an object: English sth./sb. (sb.'s), German etw., jdn., jdm., jds., jd.
_DING_PLACEHOLDER = re.compile(r"(?:sth|sb|etw|jdn|jdm|jds|jd)\.(?:['’]s)?")
_EDGE_PUNCTUATION = ".,:!?¡¿\"'“”„‚‘’«»…"


def _ding_markup_removed(text: str) -> str:
    """A Ding alternative without its markup: ``{f}``, ``{went; gone}``, ``[ugs.]``, ``(comment)``, ``<...>``."""
    previous = None
    while previous != text:  # nested brackets: innermost first
        previous, text = text, _DING_MARKUP.sub(" ", text)
    return _DING_STRAY.sub(" ", text)


def _ding_words(text: str, *, english: bool) -> str:
    """A Ding synonym (markup already removed) without placeholders (``sth.``, ``etw.``, ``jdm./etw.``),
    edge punctuation and, on an English side, the infinitive marker of a verb (``to go`` -> ``go``)."""
    words = []
    for word in text.split():
        if "." in word and all(_DING_PLACEHOLDER.fullmatch(part) for part in word.split("/")):
            continue
        word = word.strip(_EDGE_PUNCTUATION)
        if word:
            words.append(word)
    if english and len(words) > 1 and words[0].lower() == "to":
        words = words[1:]
    return " ".join(words)


def ding_entries(
    path: str | os.PathLike[str], *, english_right: bool = True, reverse: bool = False
) -> Iterator[tuple[str, str, int]]:
    """A Ding dictionary (TU Chemnitz, ``de-en.txt``): one entry per line, ``left side :: right side``
    (German :: English); each side lists aligned alternatives separated by ``|`` (the i-th left one
    translates to the i-th right one: a word, its inflected forms, phrases using it), and each alternative
    lists synonyms separated by ``;``. Every left synonym of an alternative pairs with every right synonym
    of the same alternative. Lines starting with ``#`` are comments. Markup is removed
    (:func:`_ding_markup_removed`, :func:`_ding_words`; the infinitive marker ``to`` only on the right
    side, when ``english_right``).

    Yields ``(source, target, priority)`` in line order (``reverse``: the right side is the source):
    priority 0 when the source is the entry's headword (the first synonym of the line's first
    alternative on its side), else 1. A word's translations are ranked by priority, then file order:
    ``Haus`` ranks the entry ``Haus {n} :: house`` before ``Anstalt {f}; Haus {n} :: establishment``,
    though Ding sorts the lines by their first word."""
    name = display_name(path)
    for lineno, line in iter_lines(path):
        if line.startswith("#"):
            continue
        sides = line.split(" :: ")
        if len(sides) != 2:
            raise _format_error(
                name,
                lineno,
                f"expected 'left side :: right side' (Ding format), found {len(sides) - 1} ' :: ' separators",
            )
        empty = [what for what, side in zip(("left", "right"), sides) if not side.strip()]
        if empty:
            raise _format_error(name, lineno, f"the {empty[0]} side is empty; give its words or remove the line")
        left, right = ([a.strip() for a in side.split("|")] for side in sides)
        if len(left) != len(right):
            raise _format_error(
                name, lineno, f"{len(left)} alternatives ('|') on the left side but {len(right)} on the right"
            )
        for k, (left_alt, right_alt) in enumerate(zip(left, right)):
            sources = [_ding_words(x, english=False) for x in _ding_markup_removed(left_alt).split(";")]
            targets = [_ding_words(x, english=english_right) for x in _ding_markup_removed(right_alt).split(";")]
            if reverse:
                sources, targets = targets, sources
            check_words(name, lineno, *sources, *targets)
            for i, s in enumerate(sources):
                if not s:
                    continue
                priority = 0 if k == 0 and i == 0 else 1
                for t in targets:
                    if t:
                        yield s, t, priority


# ----------------------------------------------------------------------------------------------
# loaders


def load_dictionary(
    path: str | os.PathLike[str],
    format: str,
    *,
    lowercase: bool = True,
    weighting: str = "auto",
    multiword_target: str = "split",
    multiword_source: str = "phrase",
    source_lang: str | None = None,
    target_lang: str | None = None,
    reverse: bool = False,
    stemmer: str | None = "snowball",
    segmenter: str | None = "auto",
    chinese_script: str | None = "auto",
    normalization_version: int | None = None,
) -> TranslationTable:
    """Read a dictionary in ``format`` (one of :data:`DICTIONARY_FORMATS`) as a table (the steps
    of :mod:`clirkit.translation.dictionaries`).

    ``reverse`` reads each pair the other way round (target side -> source side: e.g. Ding's English
    side as the source); ``weighting="auto"`` is ``uniform`` (``rank`` weighs the r-th listed 1/r). When both
    languages are known, each side is analyzed by ``Analyzer(lang, lowercase=lowercase, stemmer=stemmer,
    segmenter=segmenter, chinese_script=chinese_script)``, the analysis clirkit gives text by default, of
    ``normalization_version`` when given (that of an index made by an older clirkit: the words of a dictionary
    have no version of their own), else the newest."""
    from clirkit.analysis import Analyzer

    if format not in DICTIONARY_FORMATS:
        raise ClirkitError(f"unknown dictionary format {format!r} (choose from {', '.join(DICTIONARY_FORMATS)})")
    if weighting not in WEIGHTINGS:
        raise ClirkitError(f"unknown weighting {weighting!r} (choose from {', '.join(WEIGHTINGS)})")
    if format == "freedict":
        path = freedict_index_path(path)
    name = display_name(path)
    src, tgt, how = resolve_languages(path, format, source_lang, target_lang, reverse)
    if format == "pairs":
        pairs: Iterable[tuple[str, str]] = pairs_entries(path)
    elif format == "muse":
        pairs = muse_entries(path)
    elif format == "freedict":
        pairs = ((h, t) for h, translations in freedict_entries(path) for t in translations)
    else:
        right_lang = src if reverse else tgt
        pairs = ding_entries(path, english_right=right_lang in (None, "en"), reverse=reverse)
    if reverse and format != "ding":
        pairs = ((e, f) for f, e in pairs)
    if weighting == "auto":
        weighting = "uniform"
    params = {"model": "dictionary", "format": format, "file": name, "reverse": reverse, "languages_from": how}
    settings = analysis_settings(lowercase, stemmer, segmenter, chinese_script, normalization_version)
    analyzers = (
        (Analyzer(src, **settings), Analyzer(tgt, **settings)) if src is not None and tgt is not None else (None, None)
    )
    table = dictionary_table(
        pairs,
        params,
        lowercase=lowercase,
        weighting=weighting,
        multiword_target=multiword_target,
        multiword_source=multiword_source,
        source_lang=src,
        target_lang=tgt,
        source_analyzer=analyzers[0],
        target_analyzer=analyzers[1],
    )
    if table.nnz == 0:
        raise ClirkitError(f"{name}: no usable translation pairs in this dictionary ({_why_empty(table.params)}")
    return table


def _why_empty(params: dict) -> str:
    """Why a dictionary gave no pair (its table's ``params``): what was read, and what to check."""
    read, multiword = params["n_pairs_read"], params["n_multiword_source_dropped"]
    if not read:
        return "0 pairs read, 0 with a multi-word source side); check the path (an empty file?)"
    empty = {side: params.get(f"n_empty_{side}", 0) for side in ("target", "source")}
    side = max(empty, key=empty.__getitem__)  # the target side first on a tie: its words were dropped too
    if empty[side] > multiword:
        lang = "the documents' language" if side == "target" else "the queries' language"
        counts = ", ".join(f"{n} whose {s} side the analysis leaves empty" for s, n in empty.items() if n)
        return (
            f"{read} pairs read, {counts}); check that its {side} side, {lang}, holds words (punctuation and "
            f"symbols analyze to nothing), and its languages"
        )
    return (
        f"{read} pairs read, {multiword} with a multi-word source side); check that its source side, the queries' "
        f"language, holds single words"
    )


def load_pairs(path: str | os.PathLike[str], **options) -> TranslationTable:
    """A dictionary of ``source target`` lines (:func:`pairs_entries`); ``options`` as :func:`load_dictionary`."""
    return load_dictionary(path, "pairs", **options)


def load_muse(path: str | os.PathLike[str], **options) -> TranslationTable:
    """A MUSE dictionary (:func:`muse_entries`), uniform p = 1/n by default, ranked in file order (DT takes the
    first listed); ``weighting="rank"`` gives the translation of rank r of n p = (1/r) / (1 + 1/2 + ... + 1/n);
    ``options`` as :func:`load_dictionary`."""
    return load_dictionary(path, "muse", **options)


def load_freedict(index_path: str | os.PathLike[str], **options) -> TranslationTable:
    """A FreeDict (dictd) dictionary (:func:`freedict_entries`): headword -> its translations, uniform p,
    ranked in the entry's order; ``options`` as :func:`load_dictionary`."""
    return load_dictionary(index_path, "freedict", **options)


def load_ding(path: str | os.PathLike[str], **options) -> TranslationTable:
    """A Ding dictionary (:func:`ding_entries`), uniform p, ranked in file order (German -> English
    unless the name, the languages given or ``reverse=True`` say otherwise); ``options`` as
    :func:`load_dictionary`."""
    return load_dictionary(path, "ding", **options)
