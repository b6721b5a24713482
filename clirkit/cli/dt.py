"""``clirkit dt``: direct translation (1-best) + BM25 over the target index (SPEC §3): the
:class:`clirkit.systems.DT` system, or an MT system's translations searched with BM25."""

from __future__ import annotations

from clirkit.cli.common import add_query_fields, add_quiet, add_verb, query_fields


def add_parser(sub) -> None:
    from clirkit.cli.indexes import add_bm25_options, add_shard_options
    from clirkit.cli.tables import add_score_column, add_table_format
    from clirkit.cli.xlquery import add_query_options
    from clirkit.systems import DT

    p = add_verb(
        sub,
        "dt",
        "DT: translate queries 1-best (a table's best word, or an MT system's output "
        "file) and search the target index with BM25",
        run,
    )
    add_query_options(p, DT)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--table",
        help="translation table p(e|f): each query word -> its most probable "
        "translation; words not in the table pass through unchanged",
    )
    source.add_argument(
        "--translated",
        help="the queries already translated by an MT system (qid TAB text "
        "in the target language); --queries is then only checked for ids",
    )
    add_table_format(p)
    add_score_column(p)
    add_bm25_options(p, DT)
    add_query_fields(p)
    add_shard_options(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.cli.common import listed_file, say_unmatched_stopwords
    from clirkit.cli.indexes import open_index, search_and_write, with_shards
    from clirkit.cli.tables import load_tables, table_languages
    from clirkit.cli.xlquery import checked_system, query_language, say_language, source_stopwords
    from clirkit.errors import ClirkitError
    from clirkit.estimator import Resources
    from clirkit.fileio import check_outputs
    from clirkit.formats import read_queries
    from clirkit.systems import DT
    from clirkit.tablefit import TableMismatch

    dt = checked_system(DT, args)
    inputs = {
        **with_shards("--index", args.index),
        "--queries": args.queries,
        "--table": args.table,
        "--translated": args.translated,
    }
    check_outputs({"-o": args.output}, {**inputs, "--source-stopwords": listed_file(args.source_stopwords)})
    from clirkit.progress import held_until_checked, say
    from clirkit.translation.phrases import terms_found

    with held_until_checked():  # the queries' language said once the table is found to fit the index
        index = open_index(args)
        languages = table_languages(args, index, documents=False)
        (table,) = load_tables(args, args.table, languages=languages, analyzer=index.analyzer)
        lang = query_language(args, table)
        queries = read_queries(args.queries, **query_fields(args, lang=lang))
        if lang:
            say_language(queries, lang, args)
        if args.translated:
            unused = [
                option
                for option, given in (
                    ("--source-stopwords", args.source_stopwords is not None),
                    ("--source-stopwords-top", bool(dt.source_stopwords_top)),
                    ("--decompound", dt.decompound != "auto"),
                )
                if given
            ]
            if unused:
                raise ClirkitError(
                    f"{', '.join(unused)}: the queries of --translated are searched as the index analyzes text; "
                    f"the query-language options do not apply"
                )
        else:
            try:
                dt.set_params(source_stopwords=source_stopwords(args)).fit(
                    Resources(index=index, table=table, quiet=args.quiet)
                )
            except TableMismatch as exc:  # the message says what is wrong with the table: named first
                raise ClirkitError(f"{args.table}: {exc}") from None
    if args.translated:
        return _search_translated(args, index, queries)
    say_unmatched_stopwords(dt.analyzer_, args.source_stopwords, quiet=args.quiet)
    tokens = dt.query_tokens(queries, quiet=args.quiet)
    known, total = terms_found(tokens, dt.table_)  # the table as it met the index (tablefit.words_for_index)
    say(f"DT: {known} of {total} query terms translated, the others passed through", quiet=args.quiet)
    search_and_write(dt, args, dt.structured_from_tokens(list(queries), tokens))
    return 0


def _search_translated(args, index, queries) -> int:
    """BM25 over the MT system's translations of ``queries`` (read from ``--translated``)."""
    from clirkit.cli.indexes import report_unmatched
    from clirkit.cli.params import params_of
    from clirkit.dt import translated_queries
    from clirkit.errors import ClirkitError
    from clirkit.formats import read_queries, write_run

    translated = read_queries(args.translated, **query_fields(args, lang=index.analyzer.lang))
    missing = [q for q in queries if q not in translated]
    if missing:
        raise ClirkitError(
            f"{args.translated}: no translation for {len(missing)} of the {len(queries)} "
            f"queries of {args.queries} (first: {missing[0]})"
        )
    sq = translated_queries({q: translated[q] for q in queries}, index.analyzer, index.vocabulary, quiet=args.quiet)
    bm25 = {k: v for k, v in params_of(args).items() if k in ("k1", "b", "k3", "idf", "precision")}
    run = index.bm25(**bm25).search(sq, depth=args.depth, quiet=args.quiet, tag=args.tag or "DT")
    report_unmatched(list(queries), run.query_ids, args.quiet)
    write_run(run, args.output, jobs=args.jobs)
    return 0
