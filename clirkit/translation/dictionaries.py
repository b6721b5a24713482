"""Bilingual dictionaries as translation tables: :func:`dictionary_table`, which turns (source, target) pairs in
file order into p(e|f), and the checks, language guesses and reports the table readers share. The readers of plain
pairs, MUSE, FreeDict and Ding files and :func:`~clirkit.translation.dictionary_readers.load_dictionary` are in
:mod:`clirkit.translation.dictionary_readers`.

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
   (for Ding, the entries where f is the headword first:
   :func:`~clirkit.translation.dictionary_readers.ding_entries`): its **rank** (1 = listed first), stored in
   the table (:attr:`TranslationTable.ranks`) and used by DT among equal p;
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

import os
import re
from pathlib import Path
from typing import Iterable

import numpy as np
import scipy.sparse as sp

from clirkit.errors import FIX_SURROGATE, REMOVE_NUL, ClirkitError, counted, quoted
from clirkit.translation.arguments import TableArgumentError
from clirkit.translation.phrases import PHRASE_JOINER
from clirkit.translation.table import TableFormatError, TranslationTable

DICTIONARY_FORMATS = ("pairs", "muse", "freedict", "ding")
#: How a multi-word translation becomes table entries (see the module docstring).
MULTIWORD_TARGET = ("split", "phrase", "drop")
#: Weights of a word's translations: ``auto`` is ``uniform`` (every format; see the module docstring).
WEIGHTINGS = ("auto", "uniform", "rank")
#: How a source side of several terms becomes a table entry: kept as a phrase (matched in queries), or dropped.
MULTIWORD_SOURCE = ("phrase", "drop")
DISPLAY = {
    "pairs": "pairs",
    "muse": "MUSE",
    "freedict": "FreeDict",
    "ding": "Ding",
    "moses": "Moses",
    "npz": "npz",
    "phrase-table": "Moses phrase table",
    "psq-json": "PSQ json",
}


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
            problem = f"{quoted(word, 50)} contains a NUL character; {REMOVE_NUL}"
        elif len(word) > MAX_WORD_LENGTH:
            problem = (
                f"an entry of {len(word):,} characters (at most {MAX_WORD_LENGTH:,}); check the line: an "
                f"entry is a word or a short phrase (is a line break missing?)"
            )
        else:
            try:
                word.encode("utf-8")
            except UnicodeEncodeError:  # a JSON escape such as \ud800: not text, and no file could hold it
                problem = f"{quoted(word, 50)} holds an unpaired surrogate (not valid Unicode); {FIX_SURROGATE}"
        if problem is not None:
            raise _format_error(name, lineno, problem, EntryError)


# ----------------------------------------------------------------------------------------------
# languages

#: ISO 639-2 (T and B) codes, as FreeDict names its files, -> ISO 639-1.
ISO_639_2 = dict(
    pair.split(":")
    for pair in """
afr:af amh:am ara:ar aze:az bel:be ben:bn bos:bs bre:br bul:bg cat:ca ces:cs cze:cs cym:cy wel:cy dan:da
deu:de ger:de ell:el gre:el eng:en epo:eo est:et eus:eu baq:eu fao:fo fas:fa per:fa fin:fi fra:fr fre:fr
fry:fy gla:gd gle:ga glg:gl grn:gn guj:gu hau:ha heb:he hin:hi hrv:hr hun:hu hye:hy arm:hy ido:io ina:ia
ind:id isl:is ice:is ita:it jpn:ja kat:ka geo:ka kaz:kk khm:km kin:rw kor:ko kur:ku lat:la lav:lv lit:lt
ltz:lb mal:ml mar:mr mkd:mk mac:mk mlg:mg mlt:mt mon:mn mri:mi mao:mi msa:ms may:ms nep:ne nld:nl dut:nl
nno:nn nob:nb nor:no oci:oc pan:pa pol:pl por:pt que:qu roh:rm ron:ro rum:ro rus:ru san:sa sin:si slk:sk
slo:sk slv:sl som:so spa:es sqi:sq alb:sq srp:sr swa:sw swh:sw swe:sv tam:ta tel:te tgk:tg tgl:tl tha:th
tur:tr ukr:uk urd:ur uzb:uz vie:vi wol:wo xho:xh yid:yi yor:yo zho:zh chi:zh zul:zu
""".split()
)

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


def resolve_languages(
    path, fmt: str, source_lang: str | None, target_lang: str | None, reverse: bool
) -> tuple[str | None, str | None, str | None]:
    """``(source_lang, target_lang, how)`` of a dictionary read from ``path`` in format ``fmt``: the
    given languages, else the file name's (swapped by ``reverse``), else Ding's German :: English layout;
    ``how`` says where they came from (None when nothing tells them)."""
    natural, how = languages_from_name(path), "the file name"
    if natural is None and fmt == "ding":
        natural, how = ("de", "en"), "Ding's German :: English layout"
    if natural is not None and reverse:
        if (source_lang, target_lang) == natural and natural[0] != natural[1]:
            raise ClirkitError(
                f"{path}: --source-lang {source_lang} --target-lang {target_lang} name the languages of the table "
                f"made, and --reverse makes it {natural[1]} -> {natural[0]} ({how} says {natural[0]} -> "
                f"{natural[1]}): give --source-lang {natural[1]} --target-lang {natural[0]}, or neither"
            )
        natural = (natural[1], natural[0])
    src, tgt = natural if natural else (None, None)
    given = [v for v in (source_lang, target_lang) if v]
    if given:
        how = "given" if len(given) == 2 or natural is None else f"given and {how}"
    src, tgt = source_lang or src, target_lang or tgt
    return src, tgt, (how if (src or tgt) else None)


def analysis_settings(
    lowercase: bool, stemmer: str | None, segmenter: str | None, chinese_script: str | None, version: int | None
) -> dict:
    """The keywords of :class:`clirkit.analysis.Analyzer` that analyze both sides of a dictionary or a phrase table
    read from text: these settings, and ``normalization_version`` when ``version`` is given (None: the newest)."""
    settings = {"lowercase": lowercase, "stemmer": stemmer, "segmenter": segmenter, "chinese_script": chinese_script}
    return settings if version is None else {**settings, "normalization_version": version}


# ----------------------------------------------------------------------------------------------
# pairs -> table


def dictionary_table(
    pairs: Iterable[tuple],
    params: dict | None = None,
    *,
    lowercase: bool = True,
    weighting: str = "uniform",
    multiword_target: str = "split",
    multiword_source: str = "phrase",
    source_lang: str | None = None,
    target_lang: str | None = None,
    source_analyzer=None,
    target_analyzer=None,
) -> TranslationTable:
    """The table p(e|f) of dictionary ``pairs`` (source, target) given in file order: the steps of the
    module docstring. ``weighting`` is ``uniform`` or ``rank``; ``params`` is merged into the table's.
    ``source_analyzer``/``target_analyzer`` (Analyzers, both or neither) make each side's terms and are
    recorded (``params["source_analyzer"]``, ...); without them a side is lowercased (``lowercase``) and split
    at spaces.

    A pair may carry a third item, a priority (int, lower first) that ranks a word's translations before
    file order does (Ding's headword entries, :func:`~clirkit.translation.dictionary_readers.ding_entries`); a
    translation given several times keeps its lowest priority."""
    if weighting not in ("uniform", "rank"):
        raise TableArgumentError(f"weighting must be 'uniform' or 'rank', got {weighting!r}")
    if multiword_target not in MULTIWORD_TARGET:
        raise TableArgumentError(
            f"multiword_target must be one of {', '.join(MULTIWORD_TARGET)}, got {multiword_target!r}"
        )
    if multiword_source not in MULTIWORD_SOURCE:
        raise TableArgumentError(
            f"multiword_source must be one of {', '.join(MULTIWORD_SOURCE)}, got {multiword_source!r}"
        )
    entries: dict[str, dict[str, int]] = {}
    n_read = n_multi_source = n_multi_target = n_empty = n_merged = 0
    n_empty_side = {"source": 0, "target": 0}  # pairs a side of which the analysis leaves empty
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
            n_empty_side["source"] += not f_words
            n_empty_side["target"] += not e_words
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
        params = {
            **(params or {}),
            "source_analyzer": source_analyzer.to_dict(),
            "target_analyzer": target_analyzer.to_dict(),
        }
    params = {
        **(params or {}),
        "lowercase": lowercase,
        "weighting": weighting,
        "multiword_target": multiword_target,
        "multiword_source": multiword_source,
        "source_lang": source_lang,
        "target_lang": target_lang,
        "n_pairs_read": n_read,
        "n_multiword_source": n_multi_source,
        "n_multiword_source_dropped": n_multi_source if multiword_source == "drop" else 0,
        "n_empty_dropped": n_empty,
        "n_merged": n_merged,
        "n_multiword_target": n_multi_target,
        "n_entries": sum(len(t) for t in entries.values()),
    }
    if not sources:  # each side's empty pairs say why (kept out of a usable table's params: its header stays as it was)
        empty = {f"n_empty_{side}": n for side, n in n_empty_side.items()}
        return TranslationTable(
            np.array([], dtype=str), np.array([], dtype=str), sp.csr_matrix((0, 0)), {**params, **empty, "n_pairs": 0}
        )
    table = TranslationTable.from_triples(sources, targets, probs, params, ranks)
    table.params["n_pairs"] = table.nnz
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


def multiword_report(p: dict, n: int, what: str, weight: str) -> list[str]:
    """The report lines on multi-word sides of a table's ``params`` ``p``: ``n`` entries read, called ``what``
    (e.g. "MUSE pairs"); ``weight`` names what a split phrase's words share (e.g. "the pair's weight")."""
    out = []
    if p.get("n_multiword_source_dropped"):
        out.append(
            f"{p['n_multiword_source_dropped']:,} of {n:,} {what} have a multi-word source side: "
            f"dropped (a query token is one word)"
        )
    elif p.get("n_multiword_source"):
        out.append(
            f"{p['n_multiword_source']:,} of {n:,} {what} have a source side of several terms once analyzed: "
            f"kept as phrases, which a query matches where their terms stand in a row"
        )
    if p.get("n_multiword_target"):
        how = {
            "split": f"split into their words, {weight} shared (--multiword-target phrase keeps them whole)",
            "phrase": f"kept whole, words joined by {PHRASE_JOINER!r} (they match only an index of n-grams)",
            "drop": "dropped",
        }[p.get("multiword_target", "split")]
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
    out = [
        f"{p.get('file')}: {counted(n_read, fmt + ' pair')} -> {counted(p.get('n_entries', 0), 'entry', 'entries')}, "
        f"{counted(table.n_source, 'source word')}, {counted(p.get('n_pairs', table.nnz), 'option')} "
        f"({p.get('weighting')} weights)"
    ]
    if "n_merged" in p:
        dropped = (
            p.get("n_empty_dropped", 0)
            + p.get("n_multiword_source_dropped", 0)
            + (p.get("n_multiword_target", 0) if p.get("multiword_target") == "drop" else 0)
        )
        kept = n_read - dropped - p["n_merged"]
        out.append(
            f"of {n_read:,} pairs: {_share(kept, n_read)} kept, {_share(p['n_merged'], n_read)} merged (the "
            f"same terms as an earlier pair once analyzed), {_share(dropped, n_read)} dropped "
            f"({p.get('n_empty_dropped', 0):,} with no term left by the analysis on a side)"
        )
    out += multiword_report(p, n_read, f"{fmt} pairs", "the pair's weight")
    if p.get("source_lang") or p.get("target_lang"):
        out.append(f"languages {p.get('source_lang')} -> {p.get('target_lang')} ({p.get('languages_from')})")
    return out


#: What :func:`dictionary_table` records of how it read a dictionary (kept when :func:`reanalyzed` reads it again).
READING = ("model", "format", "file", "reverse", "languages_from")


def reanalyzed(table: TranslationTable, source_analyzer, target_analyzer) -> TranslationTable:
    """A dictionary's table read without analysis (:func:`load_dictionary` knowing one language or none: each side
    lowercased and split at spaces) as :func:`dictionary_table` reads its pairs with ``source_analyzer`` and
    ``target_analyzer``: each source word's translations given again in their dictionary ranks' order (the words of a
    translation split into words together again), with the weighting and multi-word settings it was read with.

    The table :func:`load_dictionary` makes of the file knowing both languages, but for what the first reading lost:
    the case (every analysis that lowercases, the default, lowercases it again) and, where the analysis makes two
    source entries one ("house", "houses": the stem "hous"), which of their translations the file listed first (those
    of the first source word in the table's order come first)."""
    from itertools import groupby

    params = table.params
    rows = np.repeat(np.arange(table.n_source), np.diff(table.probs.indptr))
    ranks, cols = table.entry_ranks(), table.probs.indices
    priority = np.where(ranks > 0, ranks, ranks.max(initial=0) + 1)  # an option without a rank: after the ranked
    alone = np.where(ranks > 0, 0, np.arange(1, len(ranks) + 1))  # ... each its own translation
    order = np.lexsort((cols, alone, priority, rows)).tolist()
    source, target = table.source_vocab.tolist(), table.target_vocab.tolist()
    pairs = [
        (source[row], " ".join(target[cols[i]] for i in group), rank)
        for (row, rank, _), group in groupby(order, key=lambda i: (int(rows[i]), int(priority[i]), int(alone[i])))
    ]
    return dictionary_table(
        pairs,
        {key: params[key] for key in READING if key in params},
        lowercase=params.get("lowercase", True),
        weighting=params.get("weighting", "uniform"),
        multiword_target=params.get("multiword_target", "split"),
        multiword_source=params.get("multiword_source", "phrase"),
        source_lang=source_analyzer.lang,
        target_lang=target_analyzer.lang,
        source_analyzer=source_analyzer,
        target_analyzer=target_analyzer,
    )
