"""``clirkit aggregate RUN1 RUN2 [RUN ...] -o OUT``: combine runs (SPEC §6).

``--method interp`` (default) interpolates per-query sum-normalized scores
with ``--kappa`` (two runs) or ``--weights``; ``--method borda`` adds
``K - rank + 1`` points per list. ``--tune`` grid-searches kappa on dev runs
and dev qrels, prints the sweep, then applies the best kappa to the RUNs.
"""
from __future__ import annotations

import sys

from clirkit.cli.common import add_quiet, add_verb
from clirkit.fusion import TRANSFORMS


def add_parser(sub) -> None:
    p = add_verb(sub, "aggregate", "combine runs: interpolation of sum-normalized scores, or Borda count", run)
    p.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files to combine (the test runs with --tune)")
    p.add_argument("-o", "--output", required=True, help="run file to write (- for stdout)")
    p.add_argument("--method", choices=("interp", "borda"), default="interp", help="aggregation method")
    p.add_argument("--kappa", type=float, default=None,
                   help="interp with two runs: weight of RUN1, RUN2 gets 1 - kappa (none given: 0.5)")
    p.add_argument("--weights", type=float, nargs="+", metavar="W",
                   help="one weight per run (interp: >= 0 and summing to 1; borda: >= 0; none given: equal)")
    p.add_argument("--transform", nargs="+", choices=TRANSFORMS, default=["none"], metavar="T",
                   help=f"per-query score transform before sum normalization ({', '.join(TRANSFORMS)}); one for "
                        "all runs or one per run; runs with negative scores need shift or minmax")
    p.add_argument("--depth", type=int, default=1000, help="list depth: inputs and output are cut to it (Borda's K)")
    p.add_argument("--tag", default=None, help="run tag of the output (default records the method and weights)")
    g = p.add_argument_group("kappa tuning")
    g.add_argument("--tune", action="store_true", help="grid-search kappa on --dev-runs with --qrels")
    g.add_argument("--qrels", help="dev judgments for --tune")
    g.add_argument("--dev-runs", nargs=2, metavar=("DEV1", "DEV2"), help="the two systems' runs on the dev queries")
    g.add_argument("--measure", default="AP", help="measure maximized by --tune (any `clirkit eval` measure)")
    g.add_argument("--grid-step", type=float, default=0.05, help="kappa grid: 0, step, ..., 1")
    g.add_argument("--sweep-csv", metavar="FILE", help="also write the sweep (kappa, measure) as CSV")
    add_quiet(p)


def run(args) -> int:
    from clirkit import fusion
    from clirkit.errors import ClirkitError
    from clirkit.fileio import atomic_writer
    from clirkit.formats import read_qrels, read_run, write_run
    from clirkit.progress import say

    if args.depth < 1:
        raise ClirkitError(f"--depth must be at least 1, got {args.depth}")
    if len(args.runs) < 2:
        raise ClirkitError("aggregate needs at least two runs")
    if args.kappa is not None and args.weights is not None:
        raise ClirkitError("give either --kappa or --weights, not both")
    if args.method == "borda" and (args.kappa is not None or args.tune):
        raise ClirkitError("--kappa and --tune belong to --method interp")
    transform = args.transform[0] if len(args.transform) == 1 else args.transform
    runs = [read_run(path) for path in args.runs]

    if args.method == "borda":
        fused = fusion.borda(runs, args.weights, depth=args.depth, tag=args.tag)
    else:
        kappa = args.kappa
        if args.tune:
            if len(runs) != 2 or args.weights is not None or args.kappa is not None:
                raise ClirkitError("--tune chooses kappa for exactly two runs; drop --kappa/--weights")
            if not args.qrels or not args.dev_runs:
                raise ClirkitError("--tune needs --qrels DEVQRELS and --dev-runs DEV1 DEV2")
            from clirkit.metrics import parse_measure

            measure = parse_measure(args.measure).name
            dev = [read_run(path) for path in args.dev_runs]
            sweep = fusion.tune_kappa(dev[0], dev[1], fusion.evaluator(read_qrels(args.qrels), measure),
                                      measure=measure, grid=fusion.kappa_grid(args.grid_step),
                                      transform=transform, depth=args.depth)
            table = sweep.to_csv()
            out = sys.stderr if args.output == "-" else sys.stdout
            print(table.replace(",", "\t"), end="", file=out)
            print(f"best kappa {sweep.best_kappa:g} ({measure} {sweep.best_value:.4f} on dev; "
                  "ties go to the smaller kappa)", file=out)
            if args.sweep_csv:
                with atomic_writer(args.sweep_csv) as fh:
                    fh.write(table)
            kappa = sweep.best_kappa
        elif len(runs) == 2 and args.weights is None and kappa is None:
            kappa = 0.5
        fused = fusion.interpolate(runs, args.weights, kappa=kappa, transform=transform, depth=args.depth,
                                   tag=args.tag)
    say(f"aggregate: {len(runs)} runs -> {len(fused)} rows for {len(fused.query_ids)} queries ({fused.tag})",
        quiet=args.quiet)
    write_run(fused, args.output)
    return 0
