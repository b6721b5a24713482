"""``clirkit search --index I --queries Q -o RUN``: monolingual BM25 search."""
from __future__ import annotations

from clirkit.cli.common import add_jobs, add_query_fields, add_quiet, add_verb, query_fields


def add_shard_options(p) -> None:
    """``--jobs``, ``--backend`` and ``--scheduler``: how the shards of a sharded index (``clirkit index
    --shards``) are searched, with the vocabulary of ``boost-train``; shared by search, dt and psq."""
    from clirkit.shards import BACKENDS

    g = p.add_argument_group("sharded index")
    add_jobs(g)
    g.add_argument("--backend", choices=BACKENDS, default="loky",
                   help="joblib backend searching the shards: loky (processes), threading, or dask (a cluster)")
    g.add_argument("--scheduler", default=None,
                   help="dask scheduler address (with --backend dask), e.g. tcp://host:8786")
    p.add_argument("--mmap", action="store_true",
                   help="memory-map an unsharded index instead of reading it: it opens at once and the search "
                        "reads (and checks) only the postings of the query terms")


def open_index(args):
    """The index of ``--index``: an :class:`~clirkit.index.Index`, or a sharded index searched as ``--jobs``,
    ``--backend`` and ``--scheduler`` say (ClirkitError for ``--backend dask`` without ``--scheduler``)."""
    from clirkit.errors import ClirkitError
    from clirkit.progress import say
    from clirkit.shards import ShardedIndex, load_index

    if args.backend == "dask" and not args.scheduler:
        raise ClirkitError("--backend dask needs --scheduler ADDRESS")
    index = load_index(args.index, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, mmap=args.mmap)
    if not isinstance(index, ShardedIndex) and (args.jobs > 1 or args.backend != "loky"):
        say(f"note: {args.index} is not sharded, so it is searched in this process (--jobs and --backend apply "
            f"to an index made by `clirkit index --shards N`)", quiet=args.quiet)
    return index


def add_bm25_options(p, cls=None) -> None:
    """BM25 options (defaults: those of ``cls``, a system or :class:`~clirkit.bm25.BM25`) and the output
    options shared by search, dt and psq. The values are parsed here and range-checked by ``cls``
    (:func:`check_bm25` or the system's ``check_params``) before any input is read."""
    from clirkit.bm25 import IDF_VARIANTS, PRECISIONS
    from clirkit.cli.common import add_depth, param_type, parsed_number, run_tag
    from clirkit.cli.params import add_param

    if cls is None:
        from clirkit.bm25 import BM25 as cls
        from clirkit.bm25 import describe_range

        def number(name):
            return parsed_number(describe_range(name).replace("None or ", ""))
    else:
        def number(name):
            return param_type(cls, name)
    g = p.add_argument_group("BM25")
    add_param(g, cls, "k1", "--k1", type=number("k1"), help="term frequency saturation")
    add_param(g, cls, "b", "--b", type=number("b"), help="document length normalization")
    add_param(g, cls, "k3", "--k3", type=number("k3"), help="query tf saturation (none: raw query tf)")
    add_param(g, cls, "idf", "--idf", choices=IDF_VARIANTS, help="idf variant")
    add_param(g, cls, "precision", "--precision", choices=PRECISIONS,
              help="float64: exact (rank-bm25's scores to 1e-9); float32: posting weights and sums in float32, "
                   "faster and half the memory, scores within ~1e-6 relative")
    add_depth(p)
    p.add_argument("--tag", type=run_tag, default=None, help="run tag (6th column; default: the method's name)")


def check_bm25(args) -> dict:
    """The BM25 options of ``args`` (search), range-checked; ClirkitError naming the option otherwise."""
    from clirkit.bm25 import check_params
    from clirkit.cli.params import params_of

    params = params_of(args)
    check_params(**{k: v for k, v in params.items() if k not in ("idf", "precision")})
    return params


def report_unmatched(qids, run, quiet: bool) -> None:
    """Say on stderr which of the queries ``qids`` matched no document (they have no lines in the run)."""
    from clirkit.progress import say

    found = set(run.query_ids)
    missing = [q for q in qids if q not in found]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        say(f"{len(missing)} of {len(qids)} queries matched no document: {shown}", quiet=quiet)


def add_parser(sub) -> None:
    p = add_verb(sub, "search", "BM25 search of an index with queries in the index's language", run)
    p.add_argument("--index", required=True, help="index file made by `clirkit index` (sharded or not)")
    p.add_argument("--queries", required=True,
                   help="queries file (qid TAB text, JSONL, or TREC, CLEF, NTCIR or HC4/NeuCLIR topics)")
    p.add_argument("-o", "--output", required=True, help="run file to write (TREC 6 columns; - for stdout)")
    add_bm25_options(p)
    add_query_fields(p)
    add_shard_options(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.formats import read_queries, write_run
    from clirkit.query import StructuredQueries
    from clirkit.shards import bm25_of

    params = check_bm25(args)
    index = open_index(args)
    queries = read_queries(args.queries, **query_fields(args, lang=index.analyzer.lang))  # monolingual
    tokens = index.analyzer.tokenize_many(list(queries.values()), quiet=args.quiet)
    sq = StructuredQueries.from_tokens(list(queries), tokens, index.vocabulary)
    run_ = bm25_of(index, **params).search(sq, depth=args.depth, quiet=args.quiet, tag=args.tag or "BM25")
    report_unmatched(list(queries), run_, args.quiet)
    write_run(run_, args.output)
    return 0
