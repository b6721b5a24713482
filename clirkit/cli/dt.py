"""``clirkit dt``: direct translation (1-best) + BM25 over the target index (SPEC §3)."""
from __future__ import annotations

from clirkit.cli.common import add_quiet, add_verb


def add_parser(sub) -> None:
    from clirkit.cli.search import add_bm25_options
    from clirkit.cli.ttable import add_table_format
    from clirkit.cli.xlquery import add_query_options

    p = add_verb(sub, "dt", "DT: translate queries 1-best (a table's best word, or an MT system's output "
                            "file) and search the target index with BM25", run)
    add_query_options(p)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--table", help="translation table p(e|f): each query word -> its most probable "
                                        "translation; words not in the table pass through unchanged")
    source.add_argument("--translated", help="the queries already translated by an MT system (qid TAB text "
                                             "in the target language); --queries is then only checked for ids")
    add_table_format(p)
    add_bm25_options(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.cli.xlquery import load_index_and_queries, search_and_write, source_analyzer
    from clirkit.dt import dt_queries, translated_queries
    from clirkit.errors import ClirkitError
    from clirkit.formats import read_queries
    from clirkit.progress import say

    index, queries = load_index_and_queries(args)
    if args.translated:
        translated = read_queries(args.translated)
        missing = [q for q in queries if q not in translated]
        if missing:
            raise ClirkitError(f"{args.translated}: no translation for {len(missing)} of the {len(queries)} "
                               f"queries of {args.queries} (first: {missing[0]})")
        sq = translated_queries({q: translated[q] for q in queries}, index.analyzer, index.vocabulary,
                                quiet=args.quiet)
    else:
        from clirkit.translation import load_table

        table = load_table(args.table, args.table_format)
        tokens = source_analyzer(args, table).tokenize_many(list(queries.values()), quiet=args.quiet)
        sq = dt_queries(list(queries), tokens, table, index.vocabulary)
        known = sum(t in table for ts in tokens for t in set(ts))
        total = sum(len(set(ts)) for ts in tokens)
        say(f"DT: {known} of {total} query terms translated, the others passed through", quiet=args.quiet)
    search_and_write(index, sq, args, "dt")
    return 0
