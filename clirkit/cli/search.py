"""``clirkit search --index I --queries Q -o RUN``: BM25 with the queries untranslated, analyzed as the index
(:class:`clirkit.systems.BM25Search`); ``--source-lang`` chooses the version of topics given in several languages
(HC4/NeuCLIR, CLEF), by default the index's language."""

from __future__ import annotations

from clirkit.cli.common import add_query_fields, add_quiet, add_verb, language, query_fields
from clirkit.cli.indexes import add_bm25_options, add_shard_options, open_index, search_and_write, with_shards


def add_parser(sub) -> None:
    from clirkit.systems import BM25Search

    p = add_verb(
        sub,
        "search",
        "BM25 search of an index with the queries untranslated, analyzed as the index's "
        'documents (the BM25Search system; kind = "bm25" in an experiment file)',
        run,
    )
    p.add_argument("--index", required=True, help="index file made by `clirkit index` (sharded or not)")
    p.add_argument(
        "--queries",
        required=True,
        help="queries file (qid TAB text, JSONL, or TREC, CLEF, NTCIR or HC4/NeuCLIR topics)",
    )
    p.add_argument("-o", "--output", required=True, help="run file to write (TREC 6 columns; - for stdout)")
    add_bm25_options(p, BM25Search)
    add_query_fields(p)
    p.add_argument(
        "--source-lang",
        type=language,
        default=None,
        metavar="LANG",
        help="the queries' language, ISO 639-1: which version of topics given in several languages "
        "(HC4/NeuCLIR, CLEF) is read and searched untranslated, e.g. en for HC4's English topics "
        "over a Persian index; topics declared in one language (CLEF's lang=, NTCIR's <SLANG>) are "
        "read in that one only (default: the index's language)",
    )
    add_shard_options(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.cli.params import params_of
    from clirkit.estimator import Resources
    from clirkit.fileio import check_outputs
    from clirkit.systems import BM25Search

    system = BM25Search(**params_of(args))
    system.check_params()  # before any input is read
    check_outputs({"-o": args.output}, {**with_shards("--index", args.index), "--queries": args.queries})
    queries = read_queries_in(args, args.source_lang) if args.source_lang else None  # before the index opens
    index = open_index(args)
    if queries is None:  # by default, the queries are in the index's language
        queries = read_queries_in(args, index.analyzer.lang)
    system.fit(Resources(index=index, quiet=args.quiet))
    search_and_write(system, args, system.structured_queries(queries, quiet=args.quiet))
    return 0


def read_queries_in(args, lang: str) -> dict[str, str]:
    """The queries of ``--queries`` (a file or standard input) in ``lang``; ClirkitError when ``--source-lang`` is
    given over queries in one language, which it neither chooses nor checks."""
    from clirkit.errors import ClirkitError
    from clirkit.fileio import display_name
    from clirkit.formats.queries import read_queries_choosing

    queries, chosen = read_queries_choosing(args.queries, **query_fields(args, lang=lang))
    if args.source_lang and not chosen:
        raise ClirkitError(
            f"--source-lang chooses the version of topics given in several languages (CLEF, HC4/NeuCLIR); "
            f"{display_name(args.queries)} holds queries in one language, searched as the index analyzes text: "
            "drop --source-lang"
        )
    return queries
