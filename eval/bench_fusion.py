"""Fusion tuning's cost: `clirkit aggregate --tune` (weights tuned on dev runs, then the test runs fused) against
`clirkit aggregate --weights` (the same test runs fused with the weights given), on the runs of `clirkit demo`.

Usage:
    clirkit demo --show | sed 's/^keep_runs = .*/keep_runs = ["*"]/' > demo-all.toml
    clirkit run demo-all.toml -o clirkit-demo                    # once: all the demo's runs (runs/NAME.SPLIT.run.gz)
    python eval/bench_fusion.py --runs clirkit-demo/runs --repeat 3
    python eval/bench_fusion.py --runs clirkit-demo/runs --old ../clirkit-old   # also the tuning of another checkout

Each command runs in a fresh process (imports, reading, tuning, fusing and writing all count), the variants
taking turns, ``--repeat`` times; the medians of the wall and CPU times (user + system) and their ratios are printed
with the load average (on a shared machine the CPU times move less than the wall times).
The fixed-weight fusion is given the weights the tuned one chose, so the two write the same bytes (checked).
The dev qrels are the collection's (the tuning averages over the judged queries the dev runs cover).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_file(folder: Path, system: str, split: str) -> str:
    """The runner's run of ``system`` on ``split`` in ``folder``: ``NAME.SPLIT.run`` or ``.run.gz``."""
    for suffix in (".run.gz", ".run"):
        path = folder / f"{system}.{split}{suffix}"
        if path.exists():
            return str(path)
    sys.exit(f"{folder}: no run of {system} on {split} (run `clirkit demo -o ...` first)")


def timed(command: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system) of ``command`` in a process of its own, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())  # (not
    # the working directory, which ``python -m`` would put first on the path)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.stdout


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=Path, default=Path("clirkit-demo/runs"), help="the demo's runs folder")
    parser.add_argument("--systems", nargs="+", default=["psq", "psq-boost", "scs"], help="the fused systems' files")
    parser.add_argument("--collection", default="nave-en-es", help="whose dev qrels tune the weights")
    parser.add_argument("--step", default="0.1", help="weight grid step (0.1: 66 points for 3 runs)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--old", type=Path, help="another checkout whose tuned aggregate is timed too (PYTHONPATH)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "clirkit-bench-fusion")
    args = parser.parse_args()
    args.runs, args.work = args.runs.resolve(), args.work.resolve()

    from clirkit import datasets
    from clirkit.formats import write_qrels

    args.work.mkdir(parents=True, exist_ok=True)
    qrels = args.work / "dev.qrels"
    if not qrels.exists():
        write_qrels(datasets.load(args.collection).qrels("dev"), qrels)
    dev = [run_file(args.runs, s, "dev") for s in args.systems]
    test = [run_file(args.runs, s, "test") for s in args.systems]
    clirkit = [sys.executable, "-m", "clirkit", "aggregate", *test]
    tuned_cmd = clirkit + [
        "--tune",
        "--dev-runs",
        *dev,
        "--dev-qrels",
        str(qrels),
        "--step",
        args.step,
        "-o",
        str(args.work / "tuned.run"),
    ]
    _, _, out = timed(tuned_cmd)
    weights = re.search(r"best weights ([-0-9., e]+) \(", out).group(1).replace(",", " ").split()
    fixed_cmd = clirkit + ["--weights", *weights, "-o", str(args.work / "fixed.run")]
    variants = {"tuned": (tuned_cmd, None), "fixed": (fixed_cmd, None)}
    if args.old:
        old_env = {**os.environ, "PYTHONPATH": str(args.old.resolve())}
        variants["tuned (old)"] = (tuned_cmd[:-1] + [str(args.work / "tuned-old.run")], old_env)
    print(
        f"{len(args.systems)} runs ({', '.join(args.systems)}), step {args.step}, best weights "
        f"{' '.join(weights)}; load average {load()} on {os.cpu_count()} cores",
        flush=True,
    )
    times: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(args.repeat):
        for name, (command, env) in variants.items():
            seconds, cpu_seconds, _ = timed(command, env)
            times[name].append(seconds)
            cpu[name].append(cpu_seconds)
            print(
                f"  {i + 1}/{args.repeat} {name}: {seconds:.2f} s, CPU {cpu_seconds:.2f} s (load {load()})", flush=True
            )
    outputs = {name: digest(args.work / name) for name in ("tuned.run", "fixed.run")}
    if args.old:
        outputs["tuned-old.run"] = digest(args.work / "tuned-old.run")
    wall = {name: statistics.median(t) for name, t in times.items()}
    used = {name: statistics.median(t) for name, t in cpu.items()}
    print("\n| command | median wall s | / fixed | median CPU s | / fixed |\n|---|---:|---:|---:|---:|")
    for name in variants:
        print(
            f"| {name} | {wall[name]:.2f} | {wall[name] / wall['fixed']:.2f}x | {used[name]:.2f} | "
            f"{used[name] / used['fixed']:.2f}x |"
        )
    print(f"\noutputs (sha256): {outputs}; same bytes: {len(set(outputs.values())) == 1}; load average {load()}")


if __name__ == "__main__":
    main()
