"""Options and the run shared by the cross-language verbs ``dt`` and ``psq``: each builds its system
(:mod:`clirkit.systems`) from the options, whose defaults are the system's."""

from __future__ import annotations

import argparse


def add_query_options(p: argparse.ArgumentParser, cls, *, search_optional: str | None = None) -> None:
    """Inputs, output and the query-analysis options of system ``cls`` (DT or PSQ); ``search_optional``: the
    option without which --queries and -o are required (the verb checks), e.g. PSQ's ``--save-index``."""
    from clirkit.cli.common import language, param_type
    from clirkit.cli.params import add_param

    unless = f" (required unless {search_optional})" if search_optional else ""
    p.add_argument("--index", required=True, help="target-language index made by `clirkit index`")
    p.add_argument(
        "--queries",
        required=not search_optional,
        help=f"source-language queries (qid TAB text, JSONL, or TREC, CLEF, NTCIR or HC4/NeuCLIR topics){unless}",
    )
    p.add_argument(
        "-o", "--output", required=not search_optional, help=f"run file to write (TREC 6 columns; - for stdout){unless}"
    )
    g = p.add_argument_group("query analysis")
    add_param(
        g,
        cls,
        "source_lang",
        "--source-lang",
        type=language,
        metavar="LANG",
        help="query language, ISO 639-1 (none: the table's source analyzer)",
    )
    g.add_argument(
        "--source-stopwords",
        metavar="LIST",
        default=None,
        help="source-language stopwords to drop: none (the default), snowball (the Snowball project's list "
        "of the query language) or a FILE of words (one per line); a query left with no word is searched "
        "with all its words",
    )
    add_param(
        g,
        cls,
        "decompound",
        "--decompound",
        choices=("auto", "table", "none"),
        help="table: a query word the table lacks is split into compound parts whose stems it has "
        "(Verwaltungsprogramm -> verwaltung programm); auto: so for German queries; none: never",
    )
    add_param(
        g,
        cls,
        "source_stopwords_top",
        "--source-stopwords-top",
        type=param_type(cls, "source_stopwords_top"),
        metavar="N",
        help="drop the N most frequent source words of the table's training corpus (a corpus-derived "
        "stoplist recorded by `ttable train`)",
    )


def checked_system(cls, args):
    """System ``cls`` (DT or PSQ) built from the options of ``args`` and checked (ClirkitError naming the
    option), before any input is read."""
    from clirkit.cli.params import params_of

    system = cls(**params_of(args))
    system.check_params()
    return system


def query_language(args, *tables) -> str | None:
    """The queries' language: ``--source-lang``, else the source language of the first of ``tables`` that
    records one (it chooses a topic's version in HC4/NeuCLIR files)."""
    from clirkit.cli.params import params_of

    given = params_of(args).get("source_lang") or getattr(args, "source_lang", None)
    if given:
        return given
    return next((t.params.get("source_lang") for t in tables if t is not None and t.params.get("source_lang")), None)


def source_stopwords(args) -> str | list[str] | None:
    """The stopwords ``--source-stopwords`` names (:func:`~clirkit.cli.common.stopword_option`)."""
    from clirkit.cli.common import stopword_option

    return stopword_option(args.source_stopwords, "--source-stopwords")


def say_language(queries: dict, lang: str, args) -> None:
    """Say on stderr (``--quiet`` too) when the queries' words read as another language than ``lang``, the
    language the table or ``--source-lang`` gives them (:func:`clirkit.langcheck.say_language_notices`); within
    :func:`clirkit.progress.held_until_checked`, once its checks pass (not before a table's error)."""
    from clirkit.langcheck import say_language_notices

    say_language_notices(((list(queries.values()), lang, f"the queries of {args.queries}"),))
