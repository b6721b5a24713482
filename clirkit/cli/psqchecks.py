"""The checks of ``clirkit psq``'s request, before any work: the options that go together
(:func:`check_request`), then the index and tables, opened and checked against each other and against
``--translate``, ``--save-index`` and ``--shards`` (:func:`open_inputs`). Each error names the option or file."""

from __future__ import annotations


def check_request(args, psq) -> None:
    """ClirkitError for options of ``args`` that do not go together (``psq``: the PSQ system they built): a
    search needs ``--queries`` and ``-o``, without them ``--save-index``; ``--save-index`` writes a translated
    index and ``--shards`` splits it; no output may overwrite an input."""
    from clirkit.cli.common import listed_file
    from clirkit.cli.indexes import with_shards
    from clirkit.errors import ClirkitError
    from clirkit.fileio import check_outputs

    if (args.queries is None) != (args.output is None):
        raise ClirkitError(
            f"{'-o' if args.output is None else '--queries'} is required with "
            f"{'--queries' if args.output is None else '-o'}: give both to search"
        )
    if args.queries is None and not args.save_index:
        raise ClirkitError(
            "--queries and -o are required (without them, --save-index FILE translates the documents "
            "and writes their index only)"
        )
    if args.save_index and psq.translate == "queries":
        raise ClirkitError("--save-index writes the translated index of --translate documents")
    if args.shards is not None and not args.save_index:
        raise ClirkitError("--shards N writes the translated index of --save-index in N shards: give --save-index")
    check_outputs(  # the shards of --save-index's old index are removed when it is replaced
        {**with_shards("--save-index", args.save_index), "-o": args.output},
        {
            **with_shards("--index", args.index),
            "--queries": args.queries,
            "--table": args.table,
            "--table2": args.table2,
            "--source-stopwords": listed_file(args.source_stopwords),
            "--target-stopwords": listed_file(args.target_stopwords),
            "--background": None if psq.background in ("collection", "parallel") else psq.background,
        },
    )


_UNTRANSLATED = ("index", "sharded-index")  # the kinds of an index in the documents' language (one file, shards)


def open_inputs(args, psq):
    """``(index, table, table2, documents)``: the index of ``--index`` (opened as ``--jobs``, ``--backend`` and
    ``--mmap`` say), the tables of ``--table`` and ``--table2`` (None when not given), and whether ``psq``
    translates the documents (else the queries). ClirkitError for an index translated before with ``--translate
    queries``, no ``--table`` for an index in the documents' language, a ``--shards`` other than the index's,
    or ``--save-index`` with a table that translates the queries, ``--lambda`` given (at any value) without a
    second table."""
    from clirkit.cli.indexes import open_index
    from clirkit.cli.params import given
    from clirkit.cli.tables import labelled, load_tables, table_languages
    from clirkit.docpsq import through_two_tables
    from clirkit.errors import ClirkitError
    from clirkit.querypsq import LAM_WITHOUT_TABLE2
    from clirkit.retrieval.indexkinds import translated
    from clirkit.retrieval.shardfiles import index_kind

    kind = index_kind(args.index)
    before = translated(kind)
    if not before and kind not in _UNTRANSLATED:  # no file, or not an index (a table, a model): the loader's error,
        open_index(args)  # before options that depend on the index
    if before and psq.translate == "queries":
        raise ClirkitError(
            f"{args.index}: an index translated into the queries' language: search it with "
            f"--translate documents or auto (and no --table)"
        )
    if args.table is None and not before:
        raise ClirkitError("--table is required (unless --index was translated before)")
    index = open_index(args)  # a translated index in one file too (clirkit.retrieval.indexkinds.FILES)
    shards = index.n_shards
    if args.shards not in (None, shards) and shards > 1:
        raise ClirkitError(
            f"{args.index} is in {shards} shards, so is its translation: give --shards {shards} or "
            f"none (or index the documents with --shards {args.shards})"
        )
    known = psq.translate if psq.translate != "auto" else ("queries" if psq.query_side_only() else None)
    languages = None if known is None else table_languages(args, index, documents=known == "documents")
    table, table2 = load_tables(args, args.table, args.table2, languages=languages, analyzer=index.analyzer)
    if known == "queries" and psq.translate == "auto":
        check_query_side_table(args, psq, index, table, table2)
    if given(args, "lam") and table2 is None and not through_two_tables(index):
        raise ClirkitError(LAM_WITHOUT_TABLE2)
    documents = side_of_files(psq, index, table, table2) == "documents"
    if known is None:  # the side was placed by the tables read: a dictionary is read again with its languages
        table, table2 = labelled(args, index, [table, table2], [args.table, args.table2], documents=documents)
    if args.save_index and not documents:
        raise ClirkitError(
            f"--save-index writes a translated index: {args.table} translates the queries (into the "
            f"index's language); give a table from the documents' language, or --translate documents"
        )
    return index, table, table2, documents


def check_query_side_table(args, psq, index, table, table2) -> None:
    """ClirkitError when ``--table`` is from the documents' language (:func:`~clirkit.tablefit.side_of`: a table to
    translate the documents, as ``--translate auto`` would) and an option only translating the queries has
    (``--mode pirkola``, ...: :meth:`~clirkit.psqsystem.PSQ.query_side_only`) places the search on the queries'
    side: the message names the option that asks for the other direction, and both ways out. The same when
    ``index`` holds documents translated before (no table needed, none for the queries to read)."""
    from clirkit.errors import ClirkitError
    from clirkit.querypsq import queries_only
    from clirkit.tablefit import side_of, table_language

    lang = index.analyzer.lang
    chose = [(k, getattr(psq, k)) for k in psq.query_side_only()]
    options = " and ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k, v in chose)
    applies = queries_only(options, len(chose))
    if getattr(index, "translated", False):  # (clirkit.docpsq: translated into the queries' language before)
        raise ClirkitError(
            f"{args.index}: an index whose documents were translated already (into {lang!r}), and {applies}: "
            f"search the index in the documents' language with a table into it (--table), or leave out {options}"
            f"{' and --table' if args.table else ''} to search this one"
        )
    if side_of(index, table, table2) != "documents":
        return
    source, target = (table_language(table, side) for side in ("source", "target"))
    made = f"{source} -> {target}, " if source and target else ""
    raise ClirkitError(
        f"{args.table}: translates {made}from the documents' language ({lang!r}): a table to translate the "
        f"documents, and {applies}, which "
        f"needs a table from the queries' language into {lang!r}: give such a table (`clirkit ttable train` the "
        f"other way; a dictionary read the other way: `clirkit ttable convert --reverse`), or leave out {options} "
        "to translate the documents with this one"
    )


def side_of_files(psq, index, table, table2) -> str:
    """The side ``psq`` translates with the tables of ``--table`` and ``--table2``, which the verb places by the
    direction they say (a file has no role of its own, as an experiment's ``table`` key has): ``--translate``,
    else the queries when an option only they have is set (:meth:`~clirkit.psqsystem.PSQ.query_side_only`), else
    :func:`~clirkit.tablefit.side_of` (the documents for a table from the index's language or an index translated
    before). ``psq.side`` then chooses the same side from the resources made of them (:func:`resources`)."""
    from clirkit.tablefit import side_of

    if psq.translate != "auto":
        return psq.translate
    return "queries" if psq.query_side_only() else side_of(index, table, table2)


def resources(index, table, table2, *, documents: bool, quiet: bool):
    """The :class:`~clirkit.estimator.Resources` of ``clirkit psq``: the tables of ``--table`` and ``--table2`` as the
    reverse tables when ``documents`` (:func:`side_of_files`), else as the tables of the queries."""
    from clirkit.estimator import Resources

    if documents:
        return Resources(index=index, reverse_table=table, reverse_table2=table2, quiet=quiet)
    return Resources(index=index, table=table, table2=table2, quiet=quiet)
