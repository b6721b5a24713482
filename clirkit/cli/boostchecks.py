"""The checks of ``clirkit boost-train``'s request: the options that go together (:func:`check_options`, before
any input is read), the options that need dev queries against those read (:func:`check_dev`), and the runs
it is given, read and checked (:func:`read_candidates`, :func:`read_base_run`). Each error names the option or
file."""

from __future__ import annotations

# what to give for an option to have an effect (:data:`clirkit.boost.unused.NEEDS`), in the command line's words
_REMEDY = {
    "base": "give --base-run too",
    "extra": "give --parallel-tuples or --extra-tuples too",
    "dev": "give --dev-queries and --dev-qrels (or --collection with a dev split)",
    "ranked": "give --candidates or --base-run too",
    "no beta": "give --beta or --beta-grid, not both",
}


def check_unused(args, params: dict, data=None) -> None:
    """ClirkitError for an option given (even at its default) that the others leave unused
    (:func:`~clirkit.boost.unused.unused_params`): ``--beta`` without ``--base-run``, ``--patience`` without dev
    queries, ...; those of early stopping only once the data are read (``data``: :func:`clirkit.cli.data.load_data`'s)
    (``params``: the ranker's, from the options)."""
    from clirkit.boost.unused import NEEDS, unused_params
    from clirkit.cli.params import given
    from clirkit.errors import ClirkitError

    unused = unused_params(
        [name for name in NEEDS if given(args, name)],
        base=bool(args.base_run),
        extra=bool(args.parallel_tuples or args.extra_tuples),
        dev=None if data is None else bool(data.dev_queries),
        candidates=bool(args.candidates),
        beta=params["beta"] is not None,
    )
    for name, does, needs in unused[:1]:
        raise ClirkitError(f"--{name.replace('_', '-')} {does}: {_REMEDY[needs]}")


def check_backend(params: dict) -> None:
    """ClirkitError for ``--backend dask`` without ``--scheduler`` or ``--scheduler`` with another backend
    (``params``: the ranker's, from the options)."""
    from clirkit.errors import ClirkitError

    if params["backend"] == "dask" and not params["scheduler"]:
        raise ClirkitError("--backend dask needs --scheduler ADDRESS")
    if params["scheduler"] and params["backend"] != "dask":
        raise ClirkitError(
            f"--scheduler is read only with --backend dask (the backend is {params['backend']}): give --backend "
            "dask, or drop --scheduler"
        )


def check_options(args, params: dict) -> None:
    """ClirkitError for options of ``args`` that do not go together (``params``: the ranker's, from them), or an
    output that would overwrite an input."""
    from clirkit.cli.common import side_stopword_files
    from clirkit.cli.data import data_files
    from clirkit.errors import ClirkitError
    from clirkit.fileio import check_outputs

    if args.candidates and args.base_run:
        raise ClirkitError("give --base-run or --candidates, not both (the base run gives the hard negatives)")
    check_unused(args, params)
    if args.parallel_tuples and not args.collection:
        raise ClirkitError("--parallel-tuples needs --collection (its parallel corpus); with files use --extra-tuples")
    inputs = {"--candidates": args.candidates, "--base-run": args.base_run, "--extra-tuples": args.extra_tuples}
    check_outputs({"-o": args.output}, {**data_files(args), **inputs, **side_stopword_files(args)})


def check_dev(args, params: dict, data) -> None:
    """ClirkitError for an option of early stopping, or ``--significance`` (the test against the base, made on the
    dev queries), given without dev queries in ``data`` (the data read: :func:`clirkit.cli.data.load_data`), or an
    ``--eval-every`` given beyond ``--rounds`` with them (:func:`~clirkit.boost.unused.check_eval_every`)."""
    from clirkit.boost.unused import check_eval_every
    from clirkit.cli.params import given

    check_unused(args, params, data)
    if given(args, "eval_every"):  # its default is what the rounds allow
        check_eval_every(params["rounds"], params["eval_every"], bool(data.dev_queries), ("--rounds", "--eval-every"))


def read_candidates(args, data, min_grade: int, depth: int):
    """The run of ``--candidates`` (None when not given), checked against the training queries and qrels of
    ``data`` (:func:`check_candidates`, its top ``depth`` rows, relevant from grade ``min_grade``); a row naming a
    document not among ``data``'s is an error ``FILE:LINE`` (:func:`~clirkit.cli.data.read_run_of`), as with
    ``--base-run``."""
    from clirkit.cli.data import read_run_of

    if not args.candidates:
        return None
    candidates = read_run_of(args.candidates, data, queries=False)
    check_candidates(args.candidates, candidates, list(data.queries), data.documents[0], data.qrels, min_grade, depth)
    return candidates


def check_candidates(path: str, candidates, qids: list[str], docids, qrels, min_grade: int, depth: int) -> None:
    """A --candidates run with no row for any training query (at a document of the collection), or whose top
    ``depth`` rows for them are all documents they judge relevant (no candidate negative for any), is an error
    naming it; the training queries it gives no candidate negative when it gives some are said by the
    training."""
    from clirkit.boost.training import all_relevant_rows, candidates_lacking
    from clirkit.errors import ClirkitError

    problem, _ = candidates_lacking(candidates, qids, docids, qrels, min_grade, depth)
    if problem == "no row":
        known = " at a document of the collection" if set(qids) & set(candidates.qids.tolist()) else ""
        raise ClirkitError(f"--candidates: {path} has no row for any training query{known}")
    if problem == "all relevant":
        raise ClirkitError(
            f"--candidates: {path} has no non-relevant row for any training query: "
            + all_relevant_rows(depth, min_grade)
        )


def read_base_run(args, data):
    """The runs of ``--base-run``, encoded one after the other (:class:`~clirkit.boost.base.CompactRun`), or None
    when not given; ClirkitError ``FILE:LINE: problem`` for a row whose document is not among the documents of
    ``data`` (:func:`~clirkit.cli.data.read_run_of`, as ``boost-rank --candidates``) or whose score is negative,
    and a one-line error for a file given twice, a query in two files or files without a row. Files whose rows
    carry different tags (the train run of one system, the dev run of another) are said on stderr."""
    if not args.base_run:
        return None
    from clirkit.boost.base import CompactRun
    from clirkit.cli.data import read_run_of
    from clirkit.errors import ClirkitError
    from clirkit.fileio import display_name, same_file
    from clirkit.progress import say

    paths = list(args.base_run)
    for i, path in enumerate(paths):
        for other in paths[:i]:
            if same_file(path, other):
                raise ClirkitError(f"--base-run: {display_name(path)} is given twice")
    runs = [read_run_of(path, data, queries=False) for path in paths]
    owner: dict[str, str] = {}
    for path, run in zip(paths, runs):
        check_base_scores(path, run)
        for q in run.query_ids:
            if owner.setdefault(q, path) != path:
                raise ClirkitError(
                    f"--base-run: query {q!r} is in {display_name(owner[q])} and in {display_name(path)}: give each "
                    "query's rows once (the base system's run of the training queries, then of the dev queries)"
                )
    if not any(len(run) for run in runs):
        raise ClirkitError(
            f"--base-run: {', '.join(map(display_name, paths))} {'holds' if len(paths) == 1 else 'hold'} no rows"
        )
    tags = sorted({run.tag for run in runs if len(run)})
    if len(tags) > 1:
        say(
            f"note: the --base-run files carry the tags {', '.join(map(repr, tags))}: they should be one base "
            "system's runs (its train and dev runs)",
            quiet=args.quiet,
        )
    return CompactRun.from_runs(runs)


def check_base_scores(path: str, run) -> None:
    """ClirkitError ``FILE:LINE: negative score ...`` at the first row of ``run`` (read from ``path``) whose score
    is below 0: a base run's scores are divided by their query's largest
    (:func:`~clirkit.boost.base.normalized_scores`)."""
    import numpy as np

    from clirkit.errors import located
    from clirkit.fileio import display_name
    from clirkit.formats.runs import below_zero, first_line_where

    if not len(run) or run.scores.min() >= 0:
        return
    problem = "negative score: a base run's scores must be >= 0 (BM25, DT, PSQ or a fusion of them)"
    found = first_line_where(path, lambda fields: below_zero(fields[4]))  # (the line, read again only now)
    if found is not None:
        raise located(display_name(path), found[0], f"{problem} ({found[1][4]})")
    first = int(np.argmax(run.scores < 0))
    raise located(display_name(path), None, f"{problem} ({run.scores[first]:g}, query {str(run.qids[first])!r})")
