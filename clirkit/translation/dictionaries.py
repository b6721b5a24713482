"""Bilingual dictionaries as translation tables: readers for plain pairs, MUSE, FreeDict and Ding, and
:func:`dictionary_table`, which turns (source, target) pairs in file order into p(e|f).

Every reader yields the dictionary's pairs in file order; :func:`dictionary_table` then

1. analyzes both sides as text is analyzed (:class:`clirkit.analysis.Analyzer` of each language, recorded in
   the table: tokenized, lowercased, Snowball-stemmed, so "houses" and "house" are one entry and a translation
   matches the stemmed index); without analyzers (languages unknown) it lowercases both sides (unless
   ``lowercase=False``) and splits them at spaces;
2. keeps a *source* side that the analysis makes several terms as one phrase, its terms joined by a space
   (``multiword_source="phrase"``, the default: a query whose terms hold the phrase's in a row meets it,
   :func:`clirkit.translation.phrases.join_phrases`; a Chinese word of three characters cut into bigrams, a Thai
   compound the segmenter splits, a Spanish "a menudo"), or drops it (``"drop"``); counted
   (``params["n_multiword_source"]``, and ``n_multiword_source_dropped`` of them dropped); a pair that the
   analysis leaves no term on one side is dropped and counted (``n_empty_dropped``), and a pair whose terms are
   those of an earlier pair (e.g. "houses" and "house", once stemmed) is merged into it (``n_merged``);
3. keeps each distinct translation of a source word f once, in the order the file first gives it
   (for Ding, the entries where f is the headword first: :func:`ding_entries`): its **rank** (1 = listed
   first), stored in the table (:attr:`TranslationTable.ranks`) and used by DT among equal p;
4. weighs the n(f) translations of f: ``uniform`` p = 1/n(f) (the default, every format: DT still takes the
   translation listed first, the rank breaking the tie), or ``rank`` p = (1/r) / H(n(f)) for the translation of
   rank r, H(n) = 1 + 1/2 + ... + 1/n (normalized 1/rank: the first translation is the most probable, as MUSE
   lists a word's translations most likely first). Uniform weights were chosen for MUSE too, on the mean dev
   MAP of the 10 dev collections with MUSE (baselines/README.md, "Today's defaults"): the dictionary alone
   (Pirkola) .406 against .399 with the rank weights, interpolated with IBM Model 1 (lam .5) .442 against .441,
   with an out-of-domain corpus .452 against .450;
5. a translation of several words (a phrase: ``multiword_target``):

   - ``split`` (default): each of its k words becomes a translation of weight p/k, with the phrase's
     rank (a word that several translations share sums their weights); BM25 matches single tokens,
     so "pick up" serves a query through its words;
   - ``phrase``: kept whole as one target term, its words joined by one space (clirkit's spelling of
     n-grams, :func:`clirkit.analysis.ngrams`): it matches only an index of n-grams;
   - ``drop``: dropped (counted), then each word weighs its remaining translations.

``params`` records the format, file, options, languages and counts: ``n_pairs_read`` (all pairs of the
file), ``n_multiword_source``, ``n_multiword_source_dropped``, ``n_empty_dropped``, ``n_merged``,
``n_multiword_target`` (pairs with a multi-word target: split, kept or
dropped as said),
``n_entries`` (distinct (f, translation) entries kept) and ``n_pairs`` (stored options).

The languages (``params["source_lang"]``, ``["target_lang"]``) come from the caller, else from the
format or the file name (:func:`languages_from_name`: ``es-en.dict``, ``freedict-spa-eng.index``,
``de-en.txt``), else they are None; ``params["languages_from"]`` says which.
"""
from __future__ import annotations

import gzip
import os
import re
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import scipy.sparse as sp

from clirkit.errors import FIX_SURROGATE, REMOVE_NUL, ClirkitError
from clirkit.fileio import GZIP_ERRORS, damaged_gzip, display_name, iter_lines
from clirkit.translation.phrases import PHRASE_JOINER
from clirkit.translation.table import TableFormatError, TranslationTable

DICTIONARY_FORMATS = ("pairs", "muse", "freedict", "ding")
#: How a multi-word translation becomes table entries (see the module docstring).
MULTIWORD_TARGET = ("split", "phrase", "drop")
#: Weights of a word's translations: ``auto`` is ``uniform`` (every format; see the module docstring).
WEIGHTINGS = ("auto", "uniform", "rank")
#: How a source side of several terms becomes a table entry: kept as a phrase (matched in queries), or dropped.
MULTIWORD_SOURCE = ("phrase", "drop")
DISPLAY = {"pairs": "pairs", "muse": "MUSE", "freedict": "FreeDict", "ding": "Ding", "moses": "Moses",
           "npz": "npz", "phrase-table": "Moses phrase table", "psq-json": "PSQ json"}


def _format_error(name: str, lineno: int | None, problem: str, error: type = TableFormatError) -> TableFormatError:
    return error(f"{name}:{lineno}: {problem}" if lineno is not None else f"{name}: {problem}")


#: The longest word or dictionary entry read, in characters: vocabularies are fixed-width numpy string
#: arrays, as wide as their longest word, so one runaway "word" would multiply the memory of all.
MAX_WORD_LENGTH = 1000


class EntryError(TableFormatError):
    """A word or entry that no table format allows (a NUL, a lone surrogate, a runaway length): the error names
    no other format to try."""


def check_words(name: str, lineno: int | None, *words: str) -> None:
    """Raise :class:`EntryError` (``"name:lineno: ..."``) if one of ``words`` (a table's or dictionary's words or
    entries) holds a NUL character (numpy string arrays drop trailing NULs: ``"casa\\0"`` would silently
    become ``"casa"``), is longer than :data:`MAX_WORD_LENGTH` or holds an unpaired surrogate."""
    for word in words:
        problem = None
        if "\0" in word:
            problem = f"{word[:50]!r} contains a NUL character; {REMOVE_NUL}"
        elif len(word) > MAX_WORD_LENGTH:
            problem = (f"an entry of {len(word):,} characters (at most {MAX_WORD_LENGTH:,}); check the line: an "
                       f"entry is a word or a short phrase (is a line break missing?)")
        else:
            try:
                word.encode("utf-8")
            except UnicodeEncodeError:  # a JSON escape such as \ud800: not text, and no file could hold it
                problem = f"{word[:50]!r} holds an unpaired surrogate (not valid Unicode); {FIX_SURROGATE}"
        if problem is not None:
            raise _format_error(name, lineno, problem, EntryError)


# ----------------------------------------------------------------------------------------------
# languages

#: ISO 639-2 (T and B) codes, as FreeDict names its files, -> ISO 639-1.
ISO_639_2 = dict(pair.split(":") for pair in """
afr:af amh:am ara:ar aze:az bel:be ben:bn bos:bs bre:br bul:bg cat:ca ces:cs cze:cs cym:cy wel:cy dan:da
deu:de ger:de ell:el gre:el eng:en epo:eo est:et eus:eu baq:eu fao:fo fas:fa per:fa fin:fi fra:fr fre:fr
fry:fy gla:gd gle:ga glg:gl grn:gn guj:gu hau:ha heb:he hin:hi hrv:hr hun:hu hye:hy arm:hy ido:io ina:ia
ind:id isl:is ice:is ita:it jpn:ja kat:ka geo:ka kaz:kk khm:km kin:rw kor:ko kur:ku lat:la lav:lv lit:lt
ltz:lb mal:ml mar:mr mkd:mk mac:mk mlg:mg mlt:mt mon:mn mri:mi mao:mi msa:ms may:ms nep:ne nld:nl dut:nl
nno:nn nob:nb nor:no oci:oc pan:pa pol:pl por:pt que:qu roh:rm ron:ro rum:ro rus:ru san:sa sin:si slk:sk
slo:sk slv:sl som:so spa:es sqi:sq alb:sq srp:sr swa:sw swh:sw swe:sv tam:ta tel:te tgk:tg tgl:tl tha:th
tur:tr ukr:uk urd:ur uzb:uz vie:vi wol:wo xho:xh yid:yi yor:yo zho:zh chi:zh zul:zu
""".split())

_NAME_PAIR = re.compile(r"(?=(?<![a-z])([a-z]{2,3})[-_]([a-z]{2,3})(?![a-z]))")


def _language_code(code: str) -> str | None:
    from clirkit.languages import ISO_639_1

    if len(code) == 2:
        return code if code in ISO_639_1 else None
    return ISO_639_2.get(code)


def languages_from_name(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """The (left, right) languages a dictionary file's name gives as ``xx-yy`` or ``xxx-yyy`` (ISO 639-1,
    or ISO 639-2 as FreeDict's ``freedict-spa-eng``), read as ISO 639-1 codes; None if it names none."""
    for m in _NAME_PAIR.finditer(Path(str(path)).name.lower()):
        left, right = _language_code(m.group(1)), _language_code(m.group(2))
        if left and right and left != right:
            return left, right
    return None


def resolve_languages(path, fmt: str, source_lang: str | None, target_lang: str | None,
                      reverse: bool) -> tuple[str | None, str | None, str | None]:
    """``(source_lang, target_lang, how)`` of a dictionary read from ``path`` in format ``fmt``: the
    given languages, else the file name's (swapped by ``reverse``), else Ding's German :: English layout;
    ``how`` says where they came from (None when nothing tells them)."""
    natural, how = languages_from_name(path), "the file name"
    if natural is None and fmt == "ding":
        natural, how = ("de", "en"), "Ding's German :: English layout"
    if natural is not None and reverse:
        natural = (natural[1], natural[0])
    src, tgt = natural if natural else (None, None)
    given = [v for v in (source_lang, target_lang) if v]
    if given:
        how = "given" if len(given) == 2 or natural is None else f"given and {how}"
    src, tgt = source_lang or src, target_lang or tgt
    return src, tgt, (how if (src or tgt) else None)


# ----------------------------------------------------------------------------------------------
# pairs -> table

def dictionary_table(pairs: Iterable[tuple], params: dict | None = None, *, lowercase: bool = True,
                     weighting: str = "uniform", multiword_target: str = "split", multiword_source: str = "phrase",
                     source_lang: str | None = None, target_lang: str | None = None, source_analyzer=None,
                     target_analyzer=None) -> TranslationTable:
    """The table p(e|f) of dictionary ``pairs`` (source, target) given in file order: the steps of the
    module docstring. ``weighting`` is ``uniform`` or ``rank``; ``params`` is merged into the table's.
    ``source_analyzer``/``target_analyzer`` (Analyzers, both or neither) make each side's terms and are
    recorded (``params["source_analyzer"]``, ...); without them a side is lowercased (``lowercase``) and split
    at spaces.

    A pair may carry a third item, a priority (int, lower first) that ranks a word's translations before
    file order does (Ding's headword entries, :func:`ding_entries`); a translation given several times
    keeps its lowest priority."""
    if weighting not in ("uniform", "rank"):
        raise ValueError(f"weighting must be 'uniform' or 'rank', got {weighting!r}")
    if multiword_target not in MULTIWORD_TARGET:
        raise ValueError(f"multiword_target must be one of {', '.join(MULTIWORD_TARGET)}, got {multiword_target!r}")
    if multiword_source not in MULTIWORD_SOURCE:
        raise ValueError(f"multiword_source must be one of {', '.join(MULTIWORD_SOURCE)}, got {multiword_source!r}")
    entries: dict[str, dict[str, int]] = {}
    n_read = n_multi_source = n_multi_target = n_empty = n_merged = 0
    prioritized = False
    source_terms = _term_maker(source_analyzer, lowercase)
    target_terms = _term_maker(target_analyzer, lowercase)
    for pair in pairs:
        f, e = pair[0], pair[1]
        priority = pair[2] if len(pair) > 2 else 0
        n_read += 1
        f_words, e_words = source_terms(f), target_terms(e)
        if not f_words or not e_words:
            n_empty += 1
            continue
        if len(f_words) > 1:
            n_multi_source += 1
            if multiword_source == "drop":
                continue
        if len(e_words) > 1:
            n_multi_target += 1
            if multiword_target == "drop":
                continue
        translations = entries.setdefault(PHRASE_JOINER.join(f_words), {})
        e = PHRASE_JOINER.join(e_words)
        if e not in translations:
            translations[e] = priority
        else:
            n_merged += 1
            translations[e] = min(priority, translations[e])
        prioritized = prioritized or priority != 0
    sources: list[str] = []
    targets: list[str] = []
    probs: list[float] = []
    ranks: list[int] = []
    harmonic = [0.0]
    for f, by_priority in entries.items():
        translations = sorted(by_priority, key=by_priority.__getitem__) if prioritized else list(by_priority)
        n = len(translations)
        while len(harmonic) <= n:
            harmonic.append(harmonic[-1] + 1.0 / len(harmonic))
        for r, e in enumerate(translations, 1):
            p = 1.0 / n if weighting == "uniform" else (1.0 / r) / harmonic[n]
            words = e.split(PHRASE_JOINER) if multiword_target == "split" else [e]
            for word in words:
                sources.append(f)
                targets.append(word)
                probs.append(p / len(words))
                ranks.append(r)
    if source_analyzer is not None and target_analyzer is not None:
        params = {**(params or {}), "source_analyzer": source_analyzer.to_dict(),
                  "target_analyzer": target_analyzer.to_dict()}
    params = {**(params or {}), "lowercase": lowercase, "weighting": weighting,
              "multiword_target": multiword_target, "multiword_source": multiword_source,
              "source_lang": source_lang, "target_lang": target_lang, "n_pairs_read": n_read,
              "n_multiword_source": n_multi_source,
              "n_multiword_source_dropped": n_multi_source if multiword_source == "drop" else 0,
              "n_empty_dropped": n_empty, "n_merged": n_merged,
              "n_multiword_target": n_multi_target, "n_entries": sum(len(t) for t in entries.values())}
    if not sources:
        return TranslationTable(np.array([], dtype=str), np.array([], dtype=str), sp.csr_matrix((0, 0)),
                                {**params, "n_pairs": 0})
    table = TranslationTable.from_triples(sources, targets, probs, params, ranks)
    table.params["n_pairs"] = table.nnz
    return table


def multiword_report(p: dict, n: int, what: str, weight: str) -> list[str]:
    """The report lines on multi-word sides of a table's ``params`` ``p``: ``n`` entries read, called ``what``
    (e.g. "MUSE pairs"); ``weight`` names what a split phrase's words share (e.g. "the pair's weight")."""
    out = []
    if p.get("n_multiword_source_dropped"):
        out.append(f"{p['n_multiword_source_dropped']:,} of {n:,} {what} have a multi-word source side: "
                   f"dropped (a query token is one word)")
    elif p.get("n_multiword_source"):
        out.append(f"{p['n_multiword_source']:,} of {n:,} {what} have a source side of several terms once analyzed: "
                   f"kept as phrases, which a query matches where their terms stand in a row")
    if p.get("n_multiword_target"):
        how = {"split": f"split into their words, {weight} shared (--multiword-target phrase keeps them whole)",
               "phrase": f"kept whole, words joined by {PHRASE_JOINER!r} (they match only an index of n-grams)",
               "drop": "dropped"}[p.get("multiword_target", "split")]
        out.append(f"{p['n_multiword_target']:,} of {n:,} {what} have a multi-word target side: {how}")
    return out


def _share(n: int, total: int) -> str:
    return f"{n:,} ({100 * n / total:.1f}%)" if total else f"{n:,}"


def dictionary_report(table: TranslationTable) -> list[str]:
    """One-line messages on what reading a dictionary dropped, split or guessed (empty for other tables)."""
    p = table.params
    if p.get("model") != "dictionary":
        return []
    fmt = "dictionary" if p.get("format") == "pairs" else DISPLAY.get(p.get("format"), p.get("format"))
    n_read = p.get("n_pairs_read", 0)
    out = [f"{p.get('file')}: {n_read:,} {fmt} pairs -> {p.get('n_entries', 0):,} entries, "
           f"{table.n_source:,} source words, {p.get('n_pairs', table.nnz):,} options ({p.get('weighting')} weights)"]
    if "n_merged" in p:
        dropped = p.get("n_empty_dropped", 0) + p.get("n_multiword_source_dropped", 0) + (
            p.get("n_multiword_target", 0) if p.get("multiword_target") == "drop" else 0)
        kept = n_read - dropped - p["n_merged"]
        out.append(f"of {n_read:,} pairs: {_share(kept, n_read)} kept, {_share(p['n_merged'], n_read)} merged (the "
                   f"same terms as an earlier pair once analyzed), {_share(dropped, n_read)} dropped "
                   f"({p.get('n_empty_dropped', 0):,} with no term left by the analysis on a side)")
    out += multiword_report(p, n_read, f"{fmt} pairs", "the pair's weight")
    if p.get("source_lang") or p.get("target_lang"):
        out.append(f"languages {p.get('source_lang')} -> {p.get('target_lang')} ({p.get('languages_from')})")
    return out


# ----------------------------------------------------------------------------------------------
# readers: each yields (source, target) pairs in file order

def pairs_entries(path: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    """``source TAB target`` lines (either side may then hold several words) or ``source target``
    (exactly two whitespace-separated words)."""
    name = display_name(path)
    for lineno, line in iter_lines(path):
        fields = [x.strip() for x in line.split("\t")] if "\t" in line else line.split()
        if len(fields) != 2 or not all(fields):
            raise _format_error(name, lineno, f"expected 2 fields 'source target', got {len(fields)}")
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
                raise _format_error(name, lineno, f"expected 2 fields 'source target' (MUSE text form), "
                                                  f"got {len(fields)}")
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
            raise _format_error(name, lineno, f"expected 3 tab-separated fields 'headword offset length', "
                                              f"got {len(fields)}")
        headword, offset, length = fields
        try:
            start, size = _dictd_number(offset), _dictd_number(length)
        except KeyError:
            raise _format_error(name, lineno, "offset or length is not dictd base64") from None
        if start + size > len(body):
            raise _format_error(name, lineno, f"entry runs past the end of {Path(dict_path).name}")
        end = start + size
        if (start and body[start - 1:start] != b"\n") or (size and end < len(body) and body[end - 1:end] != b"\n"):
            # dictd entries are whole lines: an entry cut mid-line means the index does not match the body
            raise _format_error(name, lineno, f"the entry of {headword[:50]!r} does not start and end at line "
                                              f"ends of {Path(dict_path).name}: the index and the body do not match "
                                              f"(one was damaged or edited); get the dictionary again")
        if headword.startswith("00database") or headword.startswith("00-database"):
            continue
        try:
            entry = body[start:start + size].decode("utf-8")
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
            continue                                      # quoted example phrase in the source language
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
    while previous != text:                             # nested brackets: innermost first
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


def ding_entries(path: str | os.PathLike[str], *, english_right: bool = True,
                 reverse: bool = False) -> Iterator[tuple[str, str, int]]:
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
            raise _format_error(name, lineno, f"expected 'left side :: right side' (Ding format), "
                                              f"found {len(sides) - 1} ' :: ' separators")
        left, right = ([a.strip() for a in side.split("|")] for side in sides)
        if len(left) != len(right):
            raise _format_error(name, lineno, f"{len(left)} alternatives ('|') on the left side but "
                                              f"{len(right)} on the right")
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

def load_dictionary(path: str | os.PathLike[str], format: str, *, lowercase: bool = True, weighting: str = "auto",
                    multiword_target: str = "split", multiword_source: str = "phrase", source_lang: str | None = None,
                    target_lang: str | None = None, reverse: bool = False, stemmer: str | None = "snowball",
                    segmenter: str | None = "auto", chinese_script: str | None = "auto") -> TranslationTable:
    """Read a dictionary in ``format`` (one of :data:`DICTIONARY_FORMATS`) as a table (module docstring).

    ``reverse`` reads each pair the other way round (target side -> source side: e.g. Ding's English
    side as the source); ``weighting="auto"`` is ``uniform`` (``rank`` weighs the r-th listed 1/r). When both
    languages are known, each side is analyzed by ``Analyzer(lang, lowercase=lowercase, stemmer=stemmer,
    segmenter=segmenter, chinese_script=chinese_script)``, the analysis clirkit gives text by default."""
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
    settings = {"lowercase": lowercase, "stemmer": stemmer, "segmenter": segmenter, "chinese_script": chinese_script}
    analyzers = ((Analyzer(src, **settings), Analyzer(tgt, **settings))
                 if src is not None and tgt is not None else (None, None))
    table = dictionary_table(pairs, params, lowercase=lowercase, weighting=weighting,
                             multiword_target=multiword_target, multiword_source=multiword_source,
                             source_lang=src, target_lang=tgt,
                             source_analyzer=analyzers[0], target_analyzer=analyzers[1])
    if table.nnz == 0:
        read = table.params["n_pairs_read"]
        fix = ("check the path (an empty file?)" if not read else
               "check that its source side, the queries' language, holds single words")
        raise ClirkitError(f"{name}: no usable translation pairs in this dictionary ({read} pairs read, "
                           f"{table.params['n_multiword_source_dropped']} with a multi-word source side); {fix}")
    return table


def _term_maker(analyzer, lowercase: bool):
    """A function giving the terms of one side of a dictionary entry: ``analyzer.tokenize`` (memoized: a word
    recurs in many entries), or without an analyzer the entry lowercased (``lowercase``) and split at spaces."""
    if analyzer is None:
        return (lambda text: text.lower().split()) if lowercase else (lambda text: text.split())
    made: dict[str, list[str]] = {}

    def terms(text: str) -> list[str]:
        out = made.get(text)
        if out is None:
            out = made[text] = analyzer.tokenize(text)
        return out

    return terms


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
