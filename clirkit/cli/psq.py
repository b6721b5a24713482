"""``clirkit psq``: probabilistic structured queries + BM25 over the target index (SPEC §4)."""
from __future__ import annotations

from clirkit.cli.common import add_quiet, add_verb


def add_parser(sub) -> None:
    from clirkit.cli.search import add_bm25_options
    from clirkit.cli.ttable import add_prune_options, add_table_format
    from clirkit.cli.xlquery import add_query_options
    from clirkit.psq import DEFAULT_LAMBDA

    p = add_verb(sub, "psq", "PSQ: each query word -> p(e|f) over target words (interpolated, pruned), "
                             "scored by BM25 with fractional tf and df", run)
    add_query_options(p)
    p.add_argument("--table", required=True, help="translation table p(e|f)")
    p.add_argument("--table2", default=None, help="a second table, interpolated with --lambda")
    p.add_argument("--lambda", dest="lam", type=float, default=DEFAULT_LAMBDA,
                   help="weight of --table when interpolating with --table2")
    add_table_format(p)
    add_prune_options(p)
    p.add_argument("--target-stopwords-top", type=int, default=0, metavar="N",
                   help="also drop the N most frequent terms of the index from the options (a corpus-derived "
                        "target stoplist; IBM Model 1 tables give function words much mass, see psq.py)")
    p.add_argument("--renormalize-in-vocabulary", action="store_true",
                   help="rescale each word's options found in the index to sum 1 (Ivory); by default the "
                        "mass of translations absent from the index is kept (cclir)")
    p.add_argument("--unknown", choices=("pass", "drop"), default="pass",
                   help="a query word absent from the table: pass through as itself with p = 1, or drop it")
    add_bm25_options(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.analysis import read_stopwords
    from clirkit.cli.xlquery import load_index_and_queries, search_and_write, source_analyzer
    from clirkit.errors import ClirkitError
    from clirkit.progress import say
    from clirkit.psq import prepare_table, psq_queries
    from clirkit.translation import load_table

    index, queries = load_index_and_queries(args)
    table = load_table(args.table, args.table_format)
    table2 = load_table(args.table2, args.table_format) if args.table2 else None
    stopwords = set(index.analyzer.stopwords)
    if args.target_stopwords:
        stopwords |= set(read_stopwords(args.target_stopwords))
    if args.target_stopwords_top < 0:
        raise ClirkitError(f"--target-stopwords-top must be >= 0, got {args.target_stopwords_top}")
    if args.target_stopwords_top:
        from clirkit.index import most_frequent_terms

        stopwords |= set(most_frequent_terms(index, args.target_stopwords_top))
    try:
        prepared = prepare_table(table, table2, lam=args.lam, min_prob=args.min_prob,
                                 cumulative=args.cumulative if args.cumulative < 1 else None,
                                 max_options=args.max_options, target_stopwords=stopwords)
    except ValueError as exc:
        raise ClirkitError(str(exc)) from None
    tokens = source_analyzer(args, table).tokenize_many(list(queries.values()), quiet=args.quiet)
    sq = psq_queries(list(queries), tokens, prepared, index.vocabulary,
                     renormalize_in_vocabulary=args.renormalize_in_vocabulary, unknown=args.unknown)
    known = sum(t in prepared.source_index for t in sq.source_terms)
    say(f"PSQ: {known} of {len(sq.source_terms)} query terms found in the table "
        f"({prepared.nnz} options after pruning)", quiet=args.quiet)
    search_and_write(index, sq, args, "psq")
    return 0
