"""Plots for evaluation: per-query differences between two runs, or a kappa sweep.

Usage:
    python eval/plot_runs.py diff --qrels QRELS BASELINE RUN [-m AP] [-o diff.png] [--csv diff.csv]
    python eval/plot_runs.py kappa SWEEP.csv [-o kappa.png]

``diff`` evaluates both runs over the qrels' queries (trec_eval semantics, a query
without run lines scores 0) and plots RUN - BASELINE per query, sorted, as bars (the usual
per-topic difference plot); ``--csv`` writes the differences (qid, baseline, run,
difference) and needs no matplotlib. ``kappa`` plots every measure column of a sweep CSV
(``kappa,MEASURE...``, as written by ``clirkit aggregate --tune --sweep-csv``) against kappa
and marks the best point. matplotlib is optional: without it the plot is skipped with a
message and the CSV output (if any) is still written.
"""
from __future__ import annotations

import argparse
import csv
import sys

import numpy as np


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_runs: matplotlib is not installed (pip install matplotlib); plot skipped", file=sys.stderr)
        return None
    return plt


def per_query_differences(qrels_path: str, baseline_path: str, run_path: str, measure: str):
    """(qids, baseline values, run values) over the qrels' queries."""
    from clirkit.formats import read_qrels, read_run
    from clirkit.metrics import evaluate

    qrels = read_qrels(qrels_path)
    base = evaluate(read_run(baseline_path), qrels, [measure])
    other = evaluate(read_run(run_path), qrels, [measure])
    return base.qids, base.values[:, 0], other.values[:, 0], base.measures[0]


def cmd_diff(args) -> int:
    qids, a, b, name = per_query_differences(args.qrels, args.baseline, args.run, args.measure)
    d = b - a
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["qid", f"baseline_{name}", f"run_{name}", "difference"])
            w.writerows(zip(qids.tolist(), a.tolist(), b.tolist(), d.tolist()))
    print(f"{name}: {int((d > 0).sum())} queries better, {int((d < 0).sum())} worse, {int((d == 0).sum())} equal; "
          f"mean difference {d.mean():+.4f}")
    if args.output:
        plt = _pyplot()
        if plt is None:
            return 0
        order = np.argsort(-d, kind="stable")
        fig, ax = plt.subplots(figsize=(8, 3.5))
        ax.bar(np.arange(len(d)), d[order], width=1.0, color=np.where(d[order] >= 0, "tab:blue", "tab:red"))
        ax.axhline(0, color="black", linewidth=0.5)
        ax.set_xlabel(f"queries, sorted by difference ({len(d)})")
        ax.set_ylabel(f"{name}: run - baseline")
        ax.set_title(f"{args.run} vs {args.baseline}", fontsize=9)
        fig.tight_layout()
        fig.savefig(args.output, dpi=150)
    return 0


def cmd_kappa(args) -> int:
    with open(args.sweep, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2 or rows[0][0].strip().lower() != "kappa":
        raise SystemExit(f"plot_runs: {args.sweep}: expected a CSV with header 'kappa,MEASURE...'")
    header, data = rows[0], np.array([[float(x) for x in r] for r in rows[1:] if r], dtype=float)
    for j, name in enumerate(header[1:], start=1):
        best = int(np.argmax(data[:, j]))
        print(f"{name}: best kappa {data[best, 0]:g} ({data[best, j]:.4f})")
    if args.output:
        plt = _pyplot()
        if plt is None:
            return 0
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for j, name in enumerate(header[1:], start=1):
            ax.plot(data[:, 0], data[:, j], marker=".", label=name)
            best = int(np.argmax(data[:, j]))
            ax.plot([data[best, 0]], [data[best, j]], "k*")
        ax.set_xlabel("kappa (weight of the first run)")
        ax.set_ylabel("mean over queries")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.output, dpi=150)
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
