"""Command-line options and steps shared by the verbs that search an index (search, dt, psq): the index opened
as ``--jobs``/``--backend``/``--mmap`` say, the BM25 options, the queries that matched nothing."""

from __future__ import annotations

from clirkit.cli.common import add_jobs


def add_shard_options(p) -> None:
    """``--jobs``, ``--backend`` and ``--scheduler``: how the shards of a sharded index (``clirkit index
    --shards``) are searched, with the vocabulary of ``boost-train``; shared by search, dt and psq."""
    from clirkit.parallel import BACKENDS, SEARCH_BACKEND

    g = p.add_argument_group("sharded index")
    add_jobs(
        g,
        help="workers searching the shards (at most one per core; threads unless --backend says), and "
        "threads writing the run",
    )
    g.add_argument(
        "--backend",
        choices=BACKENDS,
        default=SEARCH_BACKEND,
        help="how the workers search the shards: threading (threads searching blocks of the queries over every "
        "shard, the run written as they come), "
        "loky (a run of shards per worker process), or dask (a run of shards per cluster worker)",
    )
    g.add_argument(
        "--scheduler", default=None, help="dask scheduler address (with --backend dask), e.g. tcp://host:8786"
    )
    p.add_argument(
        "--mmap",
        action="store_true",
        help="memory-map an unsharded index instead of reading it: it opens at once and the search "
        "reads (and checks) only the postings of the query terms",
    )


def with_shards(option: str, path: str | None) -> dict:
    """``{option: path}`` and, when ``path`` is a sharded index's manifest, its shard files under the label
    ``"OPTION PATH's shard"``: the files of an index for :func:`clirkit.fileio.check_outputs`, as an input read
    (no output may overwrite a shard) or an output replaced (its shards are removed when it is written)."""
    from clirkit.retrieval.shardfiles import shard_paths

    return {option: path, f"{option} {path}'s shard": shard_paths(path) if path else []}


def open_index(args):
    """The index of ``--index``: an :class:`~clirkit.retrieval.index.Index`, or a sharded index searched as ``--jobs``,
    ``--backend`` and ``--scheduler`` say (ClirkitError for ``--backend dask`` without ``--scheduler``)."""
    from clirkit.errors import ClirkitError
    from clirkit.parallel import SEARCH_BACKEND
    from clirkit.progress import say
    from clirkit.retrieval.shardfiles import manifest_of_shard
    from clirkit.retrieval.shards import load_index

    if args.backend == "dask" and not args.scheduler:
        raise ClirkitError("--backend dask needs --scheduler ADDRESS")
    if args.scheduler and args.backend != "dask":
        raise ClirkitError(
            f"--scheduler is read only with --backend dask (the backend is {args.backend}): give --backend dask, "
            "or drop --scheduler"
        )
    index = load_index(args.index, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, mmap=args.mmap)
    shard_of = None if index.sharded else manifest_of_shard(args.index)
    if shard_of is not None:
        say(
            f"note: {args.index} is shard {shard_of[1]} of {shard_of[0]}: searched alone, with its own statistics "
            f"(give {shard_of[0]} to search the whole index)",
            quiet=args.quiet,
        )
    if not index.sharded and (args.jobs > 1 or args.backend != SEARCH_BACKEND):
        say(
            f"note: {args.index} is not sharded, so it is searched in this process by one thread (--jobs here "
            f"sets only the threads writing the run; searching, --jobs and --backend apply to an index made by "
            f"`clirkit index --shards N`)",
            quiet=args.quiet,
        )
    if index.sharded and args.mmap:
        say(
            f"note: {args.index} is sharded: its shards are read whole by the process that searches each (--mmap "
            f"applies to an index in one file)",
            quiet=args.quiet,
        )
    return index


def add_bm25_options(p, cls) -> None:
    """BM25 options (defaults: those of the system ``cls``) and the output options shared by search, dt and psq.
    The values are parsed here and range-checked by the system's ``check_params`` before any input is read."""
    from clirkit.cli.common import add_depth, param_type, run_tag
    from clirkit.cli.params import add_param
    from clirkit.retrieval.bm25params import IDF_VARIANTS, PRECISIONS

    g = p.add_argument_group("BM25")
    add_param(g, cls, "k1", "--k1", type=param_type(cls, "k1"), help="term frequency saturation")
    add_param(g, cls, "b", "--b", type=param_type(cls, "b"), help="document length normalization")
    add_param(g, cls, "k3", "--k3", type=param_type(cls, "k3"), help="query tf saturation (none: raw query tf)")
    add_param(g, cls, "idf", "--idf", choices=IDF_VARIANTS, help="idf variant")
    add_param(
        g,
        cls,
        "precision",
        "--precision",
        choices=PRECISIONS,
        help="float64: exact (rank-bm25's scores to 1e-9); float32: posting weights and sums in float32, "
        "half the weight memory (not reliably faster), scores within ~1e-6 relative",
    )
    add_depth(p)
    p.add_argument("--tag", type=run_tag, default=None, help="run tag (6th column; default: the method's name)")


def search_and_write(system, args, queries) -> None:
    """Search the structured ``queries`` with the fitted ``system`` and write the run to ``-o``, each block of
    queries as the search gives it (:meth:`~clirkit.bm25system.BM25System.search_structured_blocks`: a sharded
    index's threads search the next blocks meanwhile), then say which queries matched no document."""
    from clirkit.formats.runs import write_run_blocks

    found: list[str] = []

    def noted(blocks):
        for block in blocks:
            found.extend(block.query_ids)
            yield block

    blocks = system.search_structured_blocks(queries, depth=args.depth, tag=args.tag, quiet=args.quiet)
    write_run_blocks(noted(blocks), args.output, jobs=args.jobs)
    report_unmatched(list(queries.qids), found, args.quiet)


def report_unmatched(qids, found, quiet: bool) -> None:
    """Say on stderr which of the queries ``qids`` matched no document: not among the queries ``found`` in the
    run."""
    from clirkit.progress import say

    found = set(found)
    missing = [q for q in qids if q not in found]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        say(f"{len(missing)} of {len(qids)} queries matched no document: {shown}", quiet=quiet)
