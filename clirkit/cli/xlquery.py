"""Options and helpers shared by the cross-language verbs ``dt`` and ``psq``."""
from __future__ import annotations

import argparse


def add_query_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", required=True, help="target-language index made by `clirkit index`")
    p.add_argument("--queries", required=True, help="source-language queries (qid TAB text, JSONL or TREC)")
    p.add_argument("-o", "--output", required=True, help="run file to write (TREC 6 columns; - for stdout)")
    p.add_argument("--lang-source", default=None,
                   help="query language for the tokenizer (default: the table's source analyzer, else en)")
    p.add_argument("--source-stopwords", default=None, help="file of source-language stopwords to drop")


def source_analyzer(args, table=None):
    """The analyzer for the source queries: --lang-source, else the one the table was trained
    with, else English; --source-stopwords added."""
    from clirkit.analysis import Analyzer, read_stopwords

    stop = read_stopwords(args.source_stopwords) if args.source_stopwords else None
    settings = (table.params.get("source_analyzer") if table is not None else None)
    if args.lang_source is None and settings:
        analyzer = Analyzer.from_dict(settings)
        if stop:
            analyzer = Analyzer(analyzer.lang, lowercase=analyzer.lowercase,
                                strip_punctuation=analyzer.strip_punctuation,
                                stopwords=set(analyzer.stopwords) | set(stop))
        return analyzer
    return Analyzer(args.lang_source or "en", stopwords=stop)


def load_index_and_queries(args):
    from clirkit.formats import read_queries
    from clirkit.index import Index

    return Index.load(args.index), read_queries(args.queries)


def search_and_write(index, sq, args, default_tag: str) -> None:
    from clirkit.cli.search import make_bm25, report_unmatched
    from clirkit.formats import write_run

    run = make_bm25(index, args).search(sq, depth=args.depth, quiet=args.quiet, tag=args.tag or default_tag)
    report_unmatched(sq, run, args.quiet)
    write_run(run, args.output)
