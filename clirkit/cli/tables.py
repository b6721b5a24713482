"""Command-line options and steps shared by the verbs that read translation tables (ttable, dt, psq): a table's
format, a phrase table's score column, PSQ's pruning, the tables read as dt and psq read them."""

from __future__ import annotations

import argparse

from clirkit.cli.common import param_type, positive_int

TABLE_FORMAT_HELP = (
    "table format (a file whose bytes are an npz is read as one: with --table2, the format of the other table; "
    "a text format named for npz tables alone is refused): auto (detected: npz by its bytes, psq-json by its "
    "leading '{', freedict by its .index/.dict.dz files, else by the first lines' content, else by the name: "
    ".dict = muse, other = moses; 'source target' lines that could be muse or pairs are refused), "
    "moses ('e f p' lines = p(e|f): Moses's lex.f2e, or lex.e2f for the other direction), npz, "
    "phrase-table (Moses 'src ||| tgt ||| scores', p = --score-column), psq-json (HLTCOE PSQ "
    "table: {source: {target: p}}), or a dictionary: pairs ('source target' lines), "
    "muse (MUSE's 'source target' lines, a word's translations on consecutive lines, likeliest "
    "first; or its hunalign copies' 'target @ source'), freedict (dictd .index beside .dict.dz), "
    "ding ('German :: English', '|' alternatives, ';' synonyms)"
)


def add_table_format(p: argparse.ArgumentParser, flag: str = "--table-format") -> None:
    from clirkit.translation.tableio import FORMATS

    p.add_argument(flag, choices=FORMATS, default="auto", help=TABLE_FORMAT_HELP)


def add_score_column(p) -> None:
    """``--score-column`` of dt and psq: the score of a Moses phrase table read as p (as ``ttable convert``'s)."""
    from clirkit.translation.weighted import MOSES_SCORES

    p.add_argument(
        "--score-column",
        type=positive_int,
        default=None,
        metavar="N",
        help=f"a phrase-table's score read as p(target|source), counted from 1; Moses writes "
        f"{' '.join(MOSES_SCORES)} (default: 3, p(t|s)); as ttable convert --score-column, so "
        f"converting first gives the same run",
    )


def load_tables(args, *paths: str | None, languages: tuple | None = None, analyzer=None) -> list:
    """The tables at ``paths`` (None: no table) read as dt and psq read them: ``args.table_format``, and
    ``args.score_column`` for each that is a Moses phrase table (an error when none is); a dictionary or phrase
    table whose file name says no languages read with ``languages`` (source, target) and ``analyzer``'s analysis
    when given (:func:`dictionary_reading`)."""
    from clirkit.errors import ClirkitError
    from clirkit.fileio import display_name, repeated_file
    from clirkit.secondtable import same_table
    from clirkit.translation import format_of
    from clirkit.translation.tableio import DISPLAY, check_named_format

    given = [p for p in paths if p is not None and p != "-"]
    repeat = repeated_file(given)
    if repeat is not None:
        raise ClirkitError(f"{given[repeat[1]]}: {same_table('--table', '--table2')}")
    column, fmt = getattr(args, "score_column", None), args.table_format
    check_named_format(paths, fmt, "--table-format")
    formats = {p: format_of(p, fmt) for p in paths if p is not None and (column or languages or analyzer)}
    if column is not None and "phrase-table" not in formats.values():
        if not formats:
            raise ClirkitError("--score-column applies to a --table that is a Moses phrase table")
        path, found = next(iter(formats.items()))
        raise ClirkitError(
            f"{display_name(path)}: --score-column applies to Moses phrase tables, not to a {DISPLAY[found]} file"
        )
    return [None if p is None else _read(args, p, formats.get(p), languages, analyzer) for p in paths]


def _read(args, path: str, found: str | None, languages: tuple | None, analyzer):
    """The table at ``path`` (of format ``found``, None when not looked up: not a phrase table, no languages) read
    in ``args.table_format`` (npz when it is one: the format then names the other table's), with
    ``args.score_column`` when a phrase table and :func:`dictionary_reading`'s languages."""
    from clirkit.translation import load_table
    from clirkit.translation.tableio import format_for

    column = getattr(args, "score_column", None) if found == "phrase-table" else None
    fmt = format_for(path, args.table_format)
    return load_table(path, fmt, score_column=column, **dictionary_reading(path, found, languages, analyzer))


def dictionary_reading(path: str, fmt: str | None, languages: tuple | None, analyzer) -> dict:
    """:func:`~clirkit.translation.load_table`'s keywords for a table whose words are read from text (format
    ``fmt``: a dictionary, a phrase table or a PSQ table) at ``path`` over an index of ``analyzer``: its normalization
    version (an index an older clirkit made meets a dictionary read as it was made); and for a dictionary or a phrase
    table whose file name says no languages, ``languages`` (source, target) and ``analyzer``'s analysis, as an
    experiment file reads it (read without them, a dictionary met the index unstemmed where its conversion was
    stemmed: another run); ``{}`` for any other table, or without ``analyzer``."""
    from clirkit.translation import languages_from_name
    from clirkit.translation.dictionaries import DICTIONARY_FORMATS
    from clirkit.translation.dictionary_readers import freedict_index_path
    from clirkit.translation.weighted import WEIGHTED_FORMATS

    if analyzer is None or fmt not in (*DICTIONARY_FORMATS, *WEIGHTED_FORMATS):
        return {}
    version = {"normalization_version": analyzer.normalization_version}
    if languages is None or fmt == "psq-json":
        return version
    if languages_from_name(freedict_index_path(path) if fmt == "freedict" else path) is not None:
        return version
    return {
        "source_lang": languages[0],
        "target_lang": languages[1],
        "stemmer": analyzer.stemmer,
        "segmenter": analyzer.segmenter,
        "chinese_script": analyzer.chinese_script,
        **version,
    }


def table_languages(args, index, *, documents: bool) -> tuple | None:
    """``(source, target)`` of the tables dt and psq read: the queries' language (:func:`query_language`) and the
    index's, from the index's when they translate the ``documents``; None when the queries' is not known."""
    from clirkit.cli.xlquery import query_language

    lang, own = query_language(args), index.analyzer.lang
    if lang is None:
        return None
    return (own, lang) if documents else (lang, own)


def labelled(args, index, tables: list, paths: list, *, documents: bool) -> list:
    """``tables`` (read by :func:`load_tables` without languages, before their side was known: psq's
    ``--translate auto``) with each dictionary or phrase table that says no languages read again with them
    (:func:`table_languages`, :func:`dictionary_reading`); as they are from stdin (``-``: read once)."""
    from clirkit.translation import format_of

    languages = table_languages(args, index, documents=documents)
    out = []
    for table, path in zip(tables, paths):
        says = table is None or any(table.params.get(f"{s}_lang") for s in ("source", "target"))
        fmt = None if says or path == "-" else format_of(path, args.table_format)
        again = fmt is not None and "source_lang" in dictionary_reading(path, fmt, languages, index.analyzer)
        out.append(_read(args, path, fmt, languages, index.analyzer) if again else table)
    return out


def add_prune_options(p: argparse.ArgumentParser):
    """PSQ's pruning options (SPEC §4 step 2), with :class:`clirkit.systems.PSQ`'s defaults; returns the group."""
    from clirkit.cli.params import add_param
    from clirkit.systems import PSQ

    g = p.add_argument_group("pruning (as PSQ prunes its table)")
    add_param(
        g,
        PSQ,
        "min_prob",
        "--min-prob",
        type=param_type(PSQ, "min_prob"),
        help="L: drop options with p < L (auto: 0.1 for a table of the queries, 1e-4 for a table of the documents)",
    )
    add_param(
        g,
        PSQ,
        "cumulative",
        "--cumulative",
        type=param_type(PSQ, "cumulative"),
        help="C: keep the most probable options until their sum reaches C (1 keeps all; auto: 0.95 for the "
        "queries, 0.99 for the documents)",
    )
    add_param(
        g,
        PSQ,
        "max_options",
        "--max-options",
        type=param_type(PSQ, "max_options"),
        help="M: at most M options per word (auto: no limit for the queries, 64 for the documents; none: no limit)",
    )
    g.add_argument(
        "--target-stopwords",
        metavar="LIST",
        default=None,
        help="target terms to drop from the options: none (the default), snowball (the Snowball list of "
        "the target language, analyzed as the index's (psq) or the table's target terms (ttable prune)) "
        "or a FILE (one per line)",
    )
    return g


def say_rows_above_one(verb: str, path: str, table, quiet: bool) -> None:
    """Say how many source words of a Moses table read from ``path`` have p summing to more than 1 (and the
    first): what ``show``, DT and PSQ read is each row scaled to sum to 1."""
    import numpy as np

    from clirkit.errors import counted
    from clirkit.progress import say

    sums = np.asarray(table.probs.sum(axis=1)).ravel()
    above = np.flatnonzero(sums > 1 + 1e-6)
    if len(above):
        first, has = int(above[0]), "has" if len(above) == 1 else "have"
        say(
            f"{verb}: {path}: {counted(len(above), 'source word')} of {table.n_source:,} {has} p summing to more "
            f"than 1 (first: {table.source_vocab[first]}, {sums[first]:.6g}): show, DT and PSQ read each row "
            f"scaled to sum to 1",
            quiet=quiet,
        )
