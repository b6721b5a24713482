"""``clirkit psq``: probabilistic structured queries + BM25 over the target index (SPEC §4): the
:class:`clirkit.systems.PSQ` system, its options' defaults being the system's."""

from __future__ import annotations

from clirkit.cli.common import add_query_fields, add_quiet, add_verb, query_fields


def add_parser(sub) -> None:
    from clirkit.cli.common import param_type, positive_int
    from clirkit.cli.indexes import add_bm25_options, add_shard_options
    from clirkit.cli.params import add_param
    from clirkit.cli.tables import add_prune_options, add_score_column, add_table_format
    from clirkit.cli.xlquery import add_query_options
    from clirkit.systems import PSQ

    p = add_verb(
        sub,
        "psq",
        "PSQ: each query word -> p(e|f) over target words (interpolated, pruned), "
        "scored by BM25 with fractional tf and df",
        run,
    )
    add_query_options(p, PSQ, search_optional="--save-index")
    p.add_argument(
        "--table",
        default=None,
        help="translation table (required): from the documents' language into the queries', p(query "
        "word | document word), to translate the documents (the default, --translate auto, does "
        "then), or from the queries' language into the documents', p(e|f), to translate the "
        "queries; none when --index was translated before",
    )
    p.add_argument(
        "--table2",
        default=None,
        help="a second table, interpolated with --lambda, in --table's direction: with a table from the "
        "documents' language, the documents are translated through both (e.g. a corpus's reverse "
        "table and a dictionary read the other way, `ttable convert --reverse`)",
    )
    add_param(
        p,
        PSQ,
        "lam",
        "--lambda",
        type=param_type(PSQ, "lam"),
        help="weight of --table when interpolating with --table2",
    )
    add_table_format(p)
    add_score_column(p)
    g = add_prune_options(p)
    add_param(
        g,
        PSQ,
        "target_stopwords_top",
        "--target-stopwords-top",
        type=param_type(PSQ, "target_stopwords_top"),
        metavar="N",
        help="also drop the N most frequent terms of the index from the options (a corpus-derived target "
        "stoplist: IBM Model 1 tables give function words much mass)",
    )
    add_param(
        p,
        PSQ,
        "renormalize_in_vocabulary",
        "--renormalize-in-vocabulary",
        action="store_true",
        help="rescale each word's options found in the index to sum 1 (Ivory); by default the mass of "
        "translations absent from the index is kept (cclir)",
    )
    add_param(
        p,
        PSQ,
        "mode",
        "--mode",
        choices=("auto", "psq", "pirkola", "all"),
        help="psq: weights p(e|f); pirkola: a word's translations are synonyms (tf summed over them, df of "
        "the set); all: every translation its own query term (the naive dictionary baseline); auto: "
        "pirkola for a dictionary alone (its p are not learned), psq otherwise",
    )
    add_param(
        p,
        PSQ,
        "unknown",
        "--unknown",
        choices=("pass", "drop"),
        help="a query word absent from the table: pass through as itself with p = 1, or drop it",
    )
    g = p.add_argument_group("translated documents and language-model scoring")
    add_param(
        g,
        PSQ,
        "translate",
        "--translate",
        choices=("auto", "queries", "documents"),
        help="queries: each query word -> p(e|f) over the index's terms; documents: the index is translated "
        "into the queries' language through --table (the reverse table, pruned by the same options) and "
        "searched as a monolingual index (the reference implementation's way); auto: documents when "
        "--table translates from the index's language (or --index was translated before), else queries",
    )
    g.add_argument(
        "--save-index",
        default=None,
        metavar="FILE",
        help="with --translate documents: write the translated index to FILE (npz), to search it again "
        "with --index FILE and no --table",
    )
    g.add_argument(
        "--shards",
        metavar="N",
        type=positive_int,
        default=None,
        help="with --save-index: write the translated index in N shards (FILE.shard-000.DIGEST.npz, ... "
        "beside FILE, as `clirkit index --shards`); default: as many as --index has (a sharded "
        "--index is translated shard by shard)",
    )
    add_param(
        g,
        PSQ,
        "scoring",
        "--scoring",
        choices=("auto", "bm25", "lm"),
        help="bm25, or lm: the smoothed query likelihood of the reference (log(1 + (1-alpha) p(t|d) / "
        "(alpha p_bg(t))) per query term); auto: lm translating the documents, bm25 the queries",
    )
    add_param(g, PSQ, "alpha", "--alpha", type=param_type(PSQ, "alpha"), help="weight of the background in lm scoring")
    add_param(
        g,
        PSQ,
        "background",
        "--background",
        metavar="collection|FILE",
        help="background of lm scoring: collection (the searched index's term frequencies) or, with "
        "--translate documents, a term-count file of query-language words (COUNT TOKEN lines)",
    )
    add_bm25_options(p, PSQ)
    add_query_fields(p)
    add_shard_options(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.cli.common import say_unmatched_stopwords, stopword_option
    from clirkit.cli.psqchecks import check_request, open_inputs, resources
    from clirkit.cli.xlquery import checked_system, query_language, say_language, source_stopwords
    from clirkit.errors import ClirkitError
    from clirkit.formats import read_queries
    from clirkit.progress import held_until_checked
    from clirkit.systems import PSQ
    from clirkit.tablefit import SecondTableMismatch, TableMismatch, table_language

    psq = checked_system(PSQ, args)
    check_request(args, psq)
    with held_until_checked():  # the queries' language said once the tables are found to fit the index
        index, table, table2, documents = open_inputs(args, psq)
        if documents:  # the queries are in the reverse table's target language
            lang = query_language(args) or (table_language(table, "target") if table else index.analyzer.lang)
        else:
            lang = query_language(args, table, table2)
        queries = read_queries(args.queries, **query_fields(args, lang=lang)) if args.queries is not None else None
        if queries and lang:
            say_language(queries, lang, args)
        psq.set_params(
            source_stopwords=source_stopwords(args),
            target_stopwords=stopword_option(args.target_stopwords, "--target-stopwords"),
        )
        if documents and psq.background == "parallel":  # before the documents are translated
            raise ClirkitError(
                "--background parallel: clirkit psq has no parallel corpus (an experiment's psq system has one): give "
                "collection or a COUNT TOKEN file"
            )
        try:
            psq.fit(resources(index, table, table2, documents=documents, quiet=args.quiet))
        except TableMismatch as exc:  # the message says what is wrong with the table: named first
            raise ClirkitError(
                f"{args.table2 if isinstance(exc, SecondTableMismatch) else args.table}: {exc}"
            ) from None
    say_unmatched_stopwords(psq.analyzer_, args.source_stopwords, quiet=args.quiet)
    kept = _save_index(psq, args)
    if queries is None:  # the translated index only (the document side's indexing)
        return 0
    try:
        _search(psq, args, queries, documents)
    except ClirkitError as exc:  # the index stays (costly, whole on its own), as on a Ctrl-C: said on the line
        if kept:
            raise ClirkitError(f"{exc}; {kept}") from None
        raise
    return 0


def _save_index(psq, args) -> str:
    """Write the fitted ``psq``'s translated index to ``--save-index`` (in ``--shards``) when given; returns what a
    failure of the search that follows leaves (said on its one line, and on a Ctrl-C's), or "" when not given."""
    from clirkit.cli import note_on_interrupt
    from clirkit.docpsq import ShardedProjectedIndex

    if not args.save_index:
        return ""
    split = args.shards is not None and args.shards > 1 and not psq.index_.sharded
    (ShardedProjectedIndex.split(psq.index_, args.shards) if split else psq.index_).save(args.save_index)
    kept = f"the translated index {args.save_index} is written and whole; the run is not"
    note_on_interrupt(kept)
    return kept


def _search(psq, args, queries, documents: bool) -> None:
    """Search ``queries`` with the fitted ``psq`` (``documents``: over its translated documents), saying how many
    query terms it knows, and write the run to ``-o``."""
    from clirkit.cli.indexes import search_and_write
    from clirkit.progress import say

    tokens = psq.query_tokens(queries, quiet=args.quiet)
    sq = psq.structured_from_tokens(list(queries), tokens, quiet=args.quiet)
    if documents:
        known = sum(t in psq.index_.vocabulary for t in sq.source_terms)
        say(
            f"PSQ over translated documents: {known} of {len(sq.source_terms)} query terms found in the "
            f"{psq.index_.n_terms} terms of the translated index ({psq.index_.stats()['n_postings']} expected counts)",
            quiet=args.quiet,
        )
    else:
        from clirkit.translation.phrases import terms_found

        known, total = terms_found(tokens, psq.table_)  # each query's distinct terms, whatever the --mode
        say(
            f"PSQ: {known} of {total} query terms found in the table ({psq.table_.nnz} options after pruning)",
            quiet=args.quiet,
        )
    search_and_write(psq, args, sq)
