"""``clirkit search --index I --queries Q -o RUN``: monolingual BM25 search."""
from __future__ import annotations

from clirkit.cli.common import add_quiet, add_verb


def add_bm25_options(p) -> None:
    """BM25 and output options shared by search, dt and psq."""
    g = p.add_argument_group("BM25")
    g.add_argument("--k1", type=float, default=1.2, help="term frequency saturation")
    g.add_argument("--b", type=float, default=0.75, help="document length normalization")
    g.add_argument("--k3", type=float, default=None, help="query tf saturation (none: raw query tf)")
    g.add_argument("--idf", choices=("lucene", "rsj", "bm25okapi"), default="lucene", help="idf variant")
    p.add_argument("--depth", type=int, default=1000, help="results per query")
    p.add_argument("--tag", default=None, help="run tag (6th column)")


def make_bm25(index, args):
    from clirkit.bm25 import BM25

    return BM25(index, k1=args.k1, b=args.b, k3=args.k3, idf=args.idf)


def report_unmatched(queries, run, quiet: bool) -> None:
    """Say on stderr which queries matched no document (they have no lines in the run)."""
    from clirkit.progress import say

    missing = [q for q in queries.qids if q not in set(run.query_ids)]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        say(f"{len(missing)} of {queries.n_queries} queries matched no document: {shown}", quiet=quiet)


def add_parser(sub) -> None:
    p = add_verb(sub, "search", "BM25 search of an index with queries in the index's language", run)
    p.add_argument("--index", required=True, help="index file made by `clirkit index`")
    p.add_argument("--queries", required=True, help="queries file (qid TAB text, JSONL or TREC topics)")
    p.add_argument("-o", "--output", required=True, help="run file to write (TREC 6 columns; - for stdout)")
    add_bm25_options(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.formats import read_queries, write_run
    from clirkit.index import Index
    from clirkit.query import StructuredQueries

    index = Index.load(args.index)
    queries = read_queries(args.queries)
    tokens = index.analyzer.tokenize_many(list(queries.values()), quiet=args.quiet)
    sq = StructuredQueries.from_tokens(list(queries), tokens, index.vocabulary)
    run_ = make_bm25(index, args).search(sq, depth=args.depth, quiet=args.quiet, tag=args.tag or "bm25")
    report_unmatched(sq, run_, args.quiet)
    write_run(run_, args.output)
    return 0
