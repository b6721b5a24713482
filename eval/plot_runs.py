"""Plots for evaluation: per-query differences between two runs, or a kappa sweep.

Usage:
    python eval/plot_runs.py diff --qrels QRELS BASELINE RUN [-m AP] [-o diff.png] [--csv diff.csv]
                             [--test randomization|t-test|none] [--permutations 10000] [--seed 0]
                             [--names BASELINE_NAME RUN_NAME]
    python eval/plot_runs.py kappa SWEEP.csv [-o kappa.png]

``diff`` evaluates both runs over the qrels' queries (trec_eval semantics, a query
without run lines scores 0), tests the mean difference (paired randomization test by
default) and plots RUN - BASELINE per query with :func:`clirkit.plots.per_query_difference`:
queries sorted by difference, every non-zero difference visible, the mean, the p-value and
the counts better/worse/tied in the title; the runs are named by their file names
(or ``--names``).
``--csv`` writes the differences (qid, baseline, run, difference) and needs no matplotlib.
``kappa`` plots every measure column of a sweep CSV of two runs (``w1,w2,MEASURE``, as written by
``clirkit aggregate --tune --sweep-csv``, or ``kappa,MEASURE...``) against kappa, the weight of the first
run (w1), with :func:`clirkit.plots.kappa_sweep` and marks the best point. matplotlib is optional:
without it the plot is skipped with a message and the CSV output (if any) is still written.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import sys
from pathlib import Path

import numpy as np


def _have_matplotlib() -> bool:
    if importlib.util.find_spec("matplotlib") is None:
        print("plot_runs: matplotlib is not installed (pip install 'clirkit[plot]'); plot skipped", file=sys.stderr)
        return False
    return True


def _run_name(path: str) -> str:
    """A run's name for titles: its file name without the folder, ``.gz`` and the last suffix."""
    name = Path(path).name
    name = name[:-3] if name.endswith(".gz") else name
    return Path(name).stem or name


def per_query_differences(qrels_path: str, baseline_path: str, run_path: str, measure: str):
    """(qids, baseline values, run values) over the qrels' queries."""
    from clirkit.formats import read_qrels, read_run
    from clirkit.metrics import evaluate

    qrels = read_qrels(qrels_path)
    base = evaluate(read_run(baseline_path), qrels, [measure])
    other = evaluate(read_run(run_path), qrels, [measure])
    return base.qids, base.values[:, 0], other.values[:, 0], base.measures[0]


def cmd_diff(args) -> int:
    from clirkit.plots import difference_layout, per_query_difference
    from clirkit.significance import paired_test

    qids, a, b, name = per_query_differences(args.qrels, args.baseline, args.run, args.measure)
    d = b - a
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["qid", f"baseline_{name}", f"run_{name}", "difference"])
            w.writerows(zip(qids.tolist(), a.tolist(), b.tolist(), d.tolist()))
    p_value = None
    if args.test != "none" and len(d):
        p_value = paired_test(a, b, args.test, permutations=args.permutations, seed=args.seed).p_value
    layout = difference_layout(qids, b, a)
    p_text = "" if p_value is None else f", p = {p_value:.4g} ({args.test})"
    if p_value is not None and p_value != p_value:  # NaN: a t-test of 1 query, or of one difference on every query
        p_text = f", no p-value ({args.test} undefined: 1 query, or the same difference on every query)"
    print(
        f"{name}: {layout.better} queries better, {layout.worse} worse, {layout.tied} equal; "
        f"mean difference {layout.mean:+.4f}{p_text}"
    )
    if args.output and _have_matplotlib():
        base_name, run_name = args.names or (_run_name(args.baseline), _run_name(args.run))
        per_query_difference(
            qids,
            b,
            a,
            name=run_name,
            baseline=base_name,
            measure=name,
            p_value=p_value,
            path=args.output,
            test=None if args.test == "none" else args.test,
        )
    return 0


KAPPA_AXIS = "kappa = w1 (weight of the first run; the second gets 1 - kappa)"


def read_kappa_sweep(path: str) -> tuple[np.ndarray, list[str], np.ndarray]:
    """``(kappas, measure names, values (points x measures))`` of a sweep CSV of two runs.

    Reads the header ``w1,w2,MEASURE`` that ``clirkit aggregate --tune --sweep-csv`` writes (kappa is w1, the
    weight of the first run: ``--kappa K`` fuses K * run1 + (1 - K) * run2) and ``kappa,MEASURE...`` (the
    kappa view, :meth:`clirkit.tuning.KappaSweep.to_csv`). A sweep of three or more runs has no kappa: refused.
    """
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemExit(f"plot_runs: {path}: cannot read the sweep: {exc}") from None
    header = [h.strip() for h in rows[0]] if rows else []
    weights = 0
    while weights < len(header) and header[weights].lower() == f"w{weights + 1}":
        weights += 1
    if header[:1] and header[0].lower() == "kappa":
        skip = 1
    elif weights == 2:
        skip = 2
    elif weights > 2:
        raise SystemExit(
            f"plot_runs: {path}: a sweep of {weights} runs ({','.join(header[:weights])}) has no kappa, the weight "
            f"of the first of two runs; plot a sweep of two runs (clirkit aggregate RUN1 RUN2 --tune --sweep-csv)"
        )
    else:
        raise SystemExit(
            f"plot_runs: {path}: expected a CSV with header 'w1,w2,MEASURE' (clirkit aggregate --tune "
            f"--sweep-csv of two runs) or 'kappa,MEASURE...', got {','.join(header)[:80]!r}"
        )
    measures = header[skip:]
    if not measures:
        raise SystemExit(f"plot_runs: {path}: the header names no measure after {','.join(header)!r}")
    data = []
    for lineno, r in enumerate(rows[1:], start=2):
        if not r:
            continue
        try:
            values = [float(x) for x in r]
        except ValueError:
            raise SystemExit(
                f"plot_runs: {path}:{lineno}: expected {len(header)} numbers, got {','.join(r)!r}"
            ) from None
        if len(values) != len(header):
            raise SystemExit(f"plot_runs: {path}:{lineno}: expected {len(header)} numbers, got {len(values)}")
        data.append(values)
    if not data:
        raise SystemExit(f"plot_runs: {path}: no sweep points after the header")
    table = np.array(data, dtype=float)
    return table[:, 0], measures, table[:, skip:]


def cmd_kappa(args) -> int:
    kappas, names, values = read_kappa_sweep(args.sweep)
    for j, name in enumerate(names):
        best = int(np.argmax(values[:, j]))
        print(f"{name}: best kappa {kappas[best]:g} ({values[best, j]:.4f})")
    if args.output and _have_matplotlib():
        from clirkit.plots import kappa_sweep

        kappa_sweep(
            {name: (kappas, values[:, j]) for j, name in enumerate(names)},
            measure=" / ".join(names),
            path=args.output,
            title=f"{' / '.join(names)} by kappa",
            xlabel=KAPPA_AXIS,
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    d = sub.add_parser("diff", help="per-query differences of RUN against BASELINE")
    d.add_argument("--qrels", required=True)
    d.add_argument("baseline")
    d.add_argument("run")
    d.add_argument("-m", "--measure", default="AP")
    d.add_argument("-o", "--output", help="image file (png, pdf, svg)")
    d.add_argument("--csv", help="write qid, baseline, run, difference as CSV")
    d.add_argument(
        "--test",
        choices=("randomization", "t-test", "none"),
        default="randomization",
        help="paired significance test of the mean difference (default: %(default)s)",
    )
    d.add_argument(
        "--permutations", type=int, default=10_000, help="sign vectors of the randomization test (default: %(default)s)"
    )
    d.add_argument(
        "--names",
        nargs=2,
        metavar=("BASELINE_NAME", "RUN_NAME"),
        help="names of the two runs in the title (default: their file names without suffix)",
    )
    d.add_argument("--seed", type=int, default=0, help="random seed of the randomization test (default: %(default)s)")
    d.set_defaults(func=cmd_diff)
    k = sub.add_parser("kappa", help="plot a kappa sweep CSV")
    k.add_argument("sweep")
    k.add_argument("-o", "--output", help="image file (png, pdf, svg)")
    k.set_defaults(func=cmd_kappa)
    args = ap.parse_args(argv)
    from clirkit.errors import ClirkitError

    try:
        return args.func(args)
    except ClirkitError as exc:
        print(f"plot_runs: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
