"""``clirkit aggregate RUN1 RUN2 [RUN ...] -o OUT``: combine runs (SPEC §6) with the
:class:`clirkit.systems.Fusion` system, whose defaults the options take.

``--method interpolation`` (default) interpolates per-query sum-normalized scores with ``--kappa``
(two runs) or ``--weights`` (default: equal); ``--method borda`` adds ``K - rank + 1`` points per list, times
the run's weight (``--kappa K`` is ``--weights K 1-K`` under either method).
``--transform auto`` (the system's default) shifts a run with negative scores (PSQ-Boost, Boost, SCS) per
query before normalizing, so any two of clirkit's runs combine with no other flag; ``--transform none``
keeps SPEC §6's formula as written and refuses negative scores.
``--tune`` grid-searches the weights on dev runs and dev qrels, prints the sweep (not with ``--quiet``),
then applies the best weights to the RUNs; the dev measure is averaged over the judged queries the dev runs
cover (said on stderr), so dev runs made for part of the dev queries are not scored 0 on the rest. A long grid
shows a progress bar on stderr, and a flat sweep (every weight vector scoring the same on dev) is said there too
(neither with ``--quiet``).
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from clirkit.cli.common import add_depth, add_quiet, add_verb, finite_float, param_type, run_tag
from clirkit.errors import nth


def add_parser(sub) -> None:
    from clirkit.cli.params import add_param
    from clirkit.fusion import METHODS, TRANSFORMS
    from clirkit.systems import Fusion

    p = add_verb(sub, "aggregate", "combine runs: interpolation of sum-normalized scores, or Borda count", run)
    p.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files to combine (the test runs with --tune)")
    p.add_argument("-o", "--output", required=True, help="run file to write (- for stdout)")
    add_param(p, Fusion, "method", "--method", choices=tuple(METHODS), help="aggregation method")
    p.add_argument(
        "--kappa",
        type=finite_float(0, 1),
        default=None,
        help="weight of RUN1 of two runs, RUN2 gets 1 - kappa: the same as --weights kappa 1-kappa (interpolation "
        "and borda alike)",
    )
    add_param(
        p,
        Fusion,
        "weights",
        "--weights",
        type=finite_float(0),
        nargs="+",
        metavar="W",
        help="one weight per run (interpolation: >= 0 and summing to 1; borda: >= 0, not all 0), or none (the "
        "default): equal weights, tuned ones with --tune",
    )
    add_param(
        p,
        Fusion,
        "transform",
        "--transform",
        nargs="+",
        choices=(*TRANSFORMS, "auto"),
        metavar="T",
        help=f"per-query score transform before sum normalization: auto shifts a run with negative "
        f"scores (boosted and SCS runs) and leaves the others as they are, or one of "
        f"{', '.join(TRANSFORMS)} (none refuses negative scores); one for all runs or one per run",
    )
    add_depth(p, help="list depth: inputs and output are cut to it (Borda's K)")
    p.add_argument(
        "--tag", type=run_tag, default=None, help="run tag of the output (default records the method and weights)"
    )
    g = p.add_argument_group("tuning the weights on dev")
    g.add_argument("--tune", action="store_true", help="grid-search the weights on --dev-runs with --dev-qrels")
    g.add_argument(
        "--dev-qrels",
        "--qrels",
        dest="qrels",
        help="dev judgments for --tune (averaged over the judged queries the dev runs cover)",
    )
    g.add_argument("--dev-runs", nargs="+", metavar="DEV", help="the systems' runs on the dev queries, in RUN order")
    add_param(g, Fusion, "measure", "--measure", help="measure maximized by --tune (any `clirkit eval` measure)")
    add_param(
        g,
        Fusion,
        "step",
        "--step",
        type=param_type(Fusion, "step"),
        help="weight grid step: 0, step, ..., 1 per weight (it must divide 1)",
    )
    g.add_argument("--sweep-csv", metavar="FILE", help="also write the sweep (weights, measure) as CSV")
    add_quiet(p)


def run(args) -> int:
    from clirkit.errors import ClirkitError, counted
    from clirkit.fileio import check_outputs, written_together
    from clirkit.formats import read_qrels, write_run
    from clirkit.fusion import METHODS
    from clirkit.progress import say

    _check_distinct("among the RUNs", args.runs)
    fusion = _fusion(args)
    n = len(args.runs)  # before any run is read (Borda's points, and their sums over the runs, bound the depth)
    METHODS[fusion.method].check(args.depth, fusion.weights if fusion.weights is not None else [1.0] * n)
    if args.tune:
        if not args.qrels or not args.dev_runs:
            raise ClirkitError("--tune needs --dev-qrels DEVQRELS and --dev-runs DEV...")
        if len(args.dev_runs) != len(args.runs):
            raise ClirkitError(f"{len(args.dev_runs)} dev runs for {len(args.runs)} runs: give one dev run per RUN")
        _check_distinct("in --dev-runs", args.dev_runs)
    elif args.sweep_csv:
        raise ClirkitError(
            "--sweep-csv writes the sweep of --tune: give --tune (with --dev-qrels and --dev-runs), or drop --sweep-csv"
        )
    if args.sweep_csv == "-" and args.output == "-":
        raise ClirkitError(
            "-o - and --sweep-csv - both write to stdout, where the CSV would run into the run: give one of them a "
            "file name"
        )
    check_outputs(  # before the work: no sweep printed, then a missing folder or an input overwritten
        {"-o/--output": args.output, "--sweep-csv": args.sweep_csv},
        {"RUN": args.runs, "--dev-runs": args.dev_runs, "--dev-qrels": args.qrels},
    )
    runs = _read_runs(args.runs, args)
    with _named(args.runs):
        fusion.check_scores(runs)  # (--transform none and a negative score: refused before the tuning)
    with written_together():  # the sweep's CSV and the run, or neither
        if args.tune:
            dev_runs = _read_runs(args.dev_runs, args)
            _check_order(args, runs, dev_runs)
            with _named(args.dev_runs):
                fusion.fit_runs(dev_runs, read_qrels(args.qrels), depth=args.depth, quiet=args.quiet)
            _report_sweep(fusion, args)
        else:
            with _named(args.runs):
                fusion.fit_runs(runs, None)
        with _named(args.runs):
            fused = fusion.fuse(runs, depth=args.depth, tag=args.tag)
        say(
            f"aggregate: {len(runs)} runs -> {counted(len(fused), 'row')} for "
            f"{counted(len(fused.query_ids), 'query', 'queries')} ({fused.tag})",
            quiet=args.quiet,
        )
        write_run(fused, args.output)
    return 0


@contextlib.contextmanager
def _named(paths: list[str]) -> Iterator[None]:
    """Around a fusion of the runs read from ``paths``: an error about the scores of one names its file (runs may
    share a tag, by which the library names them)."""
    from clirkit.errors import ClirkitError
    from clirkit.fileio import display_name
    from clirkit.fusion.interpolation import RunScoresError

    try:
        yield
    except RunScoresError as exc:
        if exc.index is None:
            raise
        raise ClirkitError(f"{display_name(paths[exc.index])}: {exc}") from None


def _read_runs(paths: list[str], args) -> list:
    """The runs of ``paths``, cut at ``--depth`` while read (memory of the depth); a file of no results (a
    ranking verb's run where no query matched) is a run of no rows, which contributes nothing: said once
    per such file on stderr unless ``--quiet``."""
    from clirkit.fileio import display_name
    from clirkit.formats import read_run
    from clirkit.progress import say

    runs = [read_run(path, depth=args.depth) for path in paths]
    for path, run in zip(paths, runs):
        if not len(run):
            say(f"aggregate: {display_name(path)} holds no results: it contributes nothing", quiet=args.quiet)
    return runs


def _check_unused(args) -> None:
    """ClirkitError for an option given that the command would not read: ``--dev-runs``, ``--dev-qrels``,
    ``--measure`` and ``--step`` without ``--tune`` (equal weights would be used while the user believes them
    tuned), ``--transform`` under a method of ranks (:func:`clirkit.fusion.system.unused_params`)."""
    from clirkit.cli.params import given, params_of
    from clirkit.errors import ClirkitError
    from clirkit.fusion.system import unused_params

    if not args.tune:
        for option, set_ in (
            ("--dev-runs", args.dev_runs is not None),
            ("--dev-qrels", args.qrels is not None),
            ("--measure", given(args, "measure")),
            ("--step", given(args, "step")),
        ):
            if set_:
                raise ClirkitError(
                    f"{option} is read only with --tune: give --tune (with --dev-runs and --dev-qrels), or drop "
                    f"{option}"
                )
    params = params_of(args)
    if given(args, "transform"):
        for _, why in unused_params(params["method"], params["weights"] is not None, ["transform"]):
            raise ClirkitError(f"--{why}: drop --transform")


def _check_distinct(what: str, paths: list[str]) -> None:
    """ClirkitError if a run file is given twice (the same path, however written): a fusion fuses distinct runs."""
    from clirkit.errors import ClirkitError
    from clirkit.fileio import repeated_file

    repeat = repeated_file(paths)
    if repeat is not None:
        first, again = repeat[0] + 1, repeat[1] + 1
        raise ClirkitError(
            f"{paths[again - 1]}: given twice {what} ({nth(first)} and {nth(again)}): a fusion fuses distinct "
            "runs, give each once"
        )


def _check_order(args, runs, dev_runs) -> None:
    """ClirkitError when ``--dev-runs`` (``dev_runs``, read) are the RUNs' (``runs``) in another order, as their
    tags show (:func:`clirkit.fusion.system.crossed_pair`): the weights would be tuned for the wrong runs."""
    from clirkit.errors import ClirkitError
    from clirkit.fusion.system import crossed_pair

    crossed = crossed_pair([run.tag for run in runs], [run.tag for run in dev_runs])
    if crossed is not None:
        i, j = crossed
        raise ClirkitError(
            f"{args.dev_runs[i]}: the {nth(i + 1)} of --dev-runs (tag {dev_runs[i].tag}) is paired with the "
            f"{nth(i + 1)} RUN {args.runs[i]} (tag {runs[i].tag}), but has the tag of the {nth(j + 1)} RUN: "
            "give --dev-runs in the same order as the RUNs"
        )


def _fusion(args):
    """The :class:`~clirkit.systems.Fusion` of the options, checked for the RUNs (:meth:`Fusion.check_runs`), no
    option given that it would not read (:func:`_check_unused`): ``--kappa`` as the weights of two runs, equal
    weights when none are given and none are tuned."""
    from clirkit.cli.params import params_of
    from clirkit.errors import ClirkitError, counted
    from clirkit.fusion import METHODS
    from clirkit.fusion.interpolation import kappa_weights
    from clirkit.fusion.weights import SMALLEST_WEIGHT
    from clirkit.systems import Fusion

    params, n = params_of(args), len(args.runs)
    if args.kappa is not None:
        if params["weights"] is not None:
            raise ClirkitError("--kappa and --weights both weigh the runs: give one of them")
        if n < 2:
            raise ClirkitError(f"a fusion needs at least two runs, got {n}")
        if n > 2:
            raise ClirkitError(f"--kappa weighs exactly two runs, got {n}: give --weights for three or more")
        if 0 < args.kappa < SMALLEST_WEIGHT:
            raise ClirkitError(
                f"--kappa must be 0 or at least {SMALLEST_WEIGHT:.3g} (a smaller weight is a subnormal float64, which "
                f"keeps too few digits: so would the fused scores), got {args.kappa!r}"
            )
        params["weights"] = kappa_weights(args.kappa)  # 1 - kappa as written: --kappa K == --weights K 1-K
    tuned = METHODS[params["method"]].tuned
    if args.tune and (params["weights"] is not None or not tuned):
        raise ClirkitError("--tune chooses the interpolation weights; drop --kappa/--weights/--method borda")
    if params["weights"] is None and not args.tune and tuned:
        params["weights"] = [1 / n] * n
    transform = params.pop("transform")  # the default, or one per run given
    if not isinstance(transform, str) and len(transform) not in (1, n):
        raise ClirkitError(
            f"--transform: {counted(len(transform), 'transform')} for {counted(n, 'RUN')}: give one for all the RUNs, "
            "or one per RUN"
        )
    transform = transform if isinstance(transform, str) else (transform[0] if len(transform) == 1 else transform)
    fusion = Fusion(transform=transform, **params)
    fusion.check_params()  # the values first, then whether they are read
    _check_unused(args)
    fusion.check_runs(n, depth=args.depth)
    return fusion


def _report_sweep(fusion, args) -> None:
    """The tuned weights: the dev queries on stderr, the sweep and the best weights on stdout (stderr when the
    run or the CSV goes to stdout), none of them with ``--quiet``; a flat sweep (``weights_tied_``) said on stderr
    unless ``--quiet``; the sweep as CSV in ``--sweep-csv`` (with ``--quiet`` too)."""
    import sys

    from clirkit.errors import counted
    from clirkit.fileio import atomic_writer
    from clirkit.fusion.weights import weight_text
    from clirkit.progress import say

    queries = counted(fusion.dev_queries_, "dev query", "dev queries")
    say(
        f"aggregate --tune: {fusion.measure} averaged over {queries}, the judged queries the dev runs cover",
        quiet=args.quiet,
    )
    table = fusion.sweep_.to_csv()
    weights = ", ".join(map(weight_text, fusion.weights_))
    if not args.quiet:
        out = sys.stderr if "-" in (args.output, args.sweep_csv) else sys.stdout
        print(table.replace(",", "\t"), end="", file=out)
        print(
            f"best weights {weights} ({fusion.measure} {fusion.dev_score_:.4f} on {queries}; ties go to the first in "
            "grid order)",
            file=out,
        )
    if fusion.weights_tied_:
        say(
            f"aggregate --tune: every weight vector scores {fusion.measure} {fusion.dev_score_:.4f} on the dev "
            f"queries: the dev runs tell no weights apart, so {weights} (the first in grid order) are not tuned "
            "ones; check the dev qrels and --measure",
            quiet=args.quiet,
        )
    if args.sweep_csv:
        with atomic_writer(args.sweep_csv) as fh:
            fh.write(table)
