"""Markdown comparison table of every run in a folder (MAP, PRES, nDCG, P@10, RR, significance).

Usage:
    python eval/compare_runs.py --qrels QRELS RUNS_DIR [--baseline FILE] [-o table.md]
                                [--pattern GLOB] [-m MEASURE ...] [--test randomization|t-test]

Every file of RUNS_DIR matching --pattern (default: all files except .md/.csv/.json/.png/.pdf
ones) is a TREC run. The baseline (default: the first file by name) comes first; every other
run is compared with it by a paired test over the qrels' queries and marked ``*`` when
p < 0.05. Runs are named by their file names. The table is written with ``clirkit eval
--format markdown``, so it holds exactly the numbers that command prints.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from clirkit.cli import main as clirkit_main

MEASURES = "AP,PRES@1000,nDCG@10,P@10,RR"
NOT_RUNS = {".md", ".csv", ".json", ".png", ".pdf", ".svg", ".txt~"}


def find_runs(folder: Path, pattern: str) -> list[Path]:
    """Run files of ``folder`` matching ``pattern``, sorted by name."""
    runs = sorted(
        p
        for p in folder.glob(pattern)
        if p.is_file() and not p.name.startswith(".") and p.suffix.lower() not in NOT_RUNS
    )
    if not runs:
        raise SystemExit(f"compare_runs: no run files matching {pattern!r} in {folder}")
    return runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument("runs_dir", type=Path, help="folder of TREC run files")
    ap.add_argument("--qrels", required=True, type=Path, help="qrels (4 or 3 columns)")
    ap.add_argument("--baseline", help="file name (in RUNS_DIR) of the baseline run; default: the first by name")
    ap.add_argument("--pattern", default="*", help="glob selecting the run files")
    ap.add_argument("-m", "--measure", action="append", help=f"measures (default {MEASURES})")
    ap.add_argument("--test", choices=("randomization", "t-test", "none"), default="randomization")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--average", choices=("qrels", "run"), default="qrels")
    ap.add_argument("-o", "--output", default="-", help="Markdown file to write (- for stdout)")
    args = ap.parse_args(argv)

    runs = find_runs(args.runs_dir, args.pattern)
    names = [p.name for p in runs]
    if args.baseline is not None:
        if args.baseline not in names:
            raise SystemExit(f"compare_runs: baseline {args.baseline} is not among the runs: {', '.join(names)}")
        names.remove(args.baseline)
        names.insert(0, args.baseline)
    qrels = str(args.qrels.resolve())
    output = args.output if args.output == "-" else str(Path(args.output).resolve())
    argv_eval = [
        "eval",
        "--qrels",
        qrels,
        *names,
        "--format",
        "markdown",
        "-o",
        output,
        "--test",
        args.test,
        "--seed",
        str(args.seed),
        "--permutations",
        str(args.permutations),
        "--average",
        args.average,
    ]
    for m in args.measure or [MEASURES]:
        argv_eval += ["-m", m]
    # run from inside the folder so that the table names runs by their file names
    cwd = os.getcwd()
    os.chdir(args.runs_dir)
    try:
        return clirkit_main(argv_eval)
    finally:
        os.chdir(cwd)


if __name__ == "__main__":
    sys.exit(main())
