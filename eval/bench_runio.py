"""Evaluation and fusion *from files*: clirkit's commands against pytrec_eval and ranx, time and peak memory.

Usage:
    python eval/bench_runio.py [--repeat 3] [--big-queries 5000] [--skip-ranx]

Data (seeded, written once to a temporary folder; see bench_metrics.make_data for the shape):
``small``: 1,190 queries x 1,000 results (1.19M lines, ~50 MB) and 100 judgments per query;
``big``: --big-queries queries x 1,000 results (5M lines, ~210 MB); each fused with a copy of itself. Scores have 4
decimals, as trec_eval-era tools write them.

Every command runs in a fresh process and the numbers are its wall time (best of --repeat; the
systems of a task take turns, so that a change in the machine's load falls on both) and its peak
resident memory (the kernel's maxrss of that process, from ``os.wait4``), so imports, reading the
files, evaluating and writing all count, as they do for a user:

  eval      clirkit eval --qrels Q R -m AP P@10 nDCG@10 RR      vs  pytrec_eval: parse_qrel + parse_run
            (its own readers) + RelevanceEvaluator(map, P_10, ndcg_cut_10, recip_rank) + means
  eval x2   the same with the two big runs (clirkit only, and pytrec_eval for memory)
  fuse      clirkit aggregate A B --kappa 0.5                      vs  ranx: Run.from_file x2 +
            fuse(norm="sum", method="wsum", params weights 0.5/0.5) + Run.save (trec)
ranx compiles with numba on first use; one untimed ranx call warms its cache first.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_metrics import make_data  # noqa: E402

PYTREC = textwrap.dedent("""
    import sys, pytrec_eval
    with open(sys.argv[1]) as f:
        qrels = pytrec_eval.parse_qrel(f)
    runs = []
    for path in sys.argv[2:]:
        with open(path) as f:
            run = pytrec_eval.parse_run(f)
        ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "ndcg_cut_10", "recip_rank"})
        per_query = ev.evaluate(run)
        del run
        print({m: sum(v[m] for v in per_query.values()) / len(per_query) for m in ("map", "P_10")})
""")
RANX = textwrap.dedent("""
    import sys
    from ranx import Run, fuse
    a, b = Run.from_file(sys.argv[1], kind="trec"), Run.from_file(sys.argv[2], kind="trec")
    fused = fuse(runs=[a, b], norm="sum", method="wsum", params={"weights": [0.5, 0.5]})
    fused.save(sys.argv[3], kind="trec")
""")


def write_files(folder: Path, n_queries: int, name: str, seed: int) -> tuple[Path, Path]:
    """Write ``name.run`` (n_queries x 1000, TREC) and ``name.qrels``; return their paths."""
    (qids, docids, scores), (jq, jd, grades) = make_data(n_queries, 1000, 100, seed)
    run, qrels = folder / f"{name}.run", folder / f"{name}.qrels"
    ranks = np.tile(np.arange(1, 1001), n_queries).astype(str)
    with open(run, "w") as out:
        for lo in range(0, len(qids), 500_000):
            sl = slice(lo, lo + 500_000)
            lines = zip(qids[sl].tolist(), docids[sl].tolist(), ranks[sl].tolist(), np.char.mod("%.4f", scores[sl]))
            out.write("".join(f"{q} Q0 {d} {r} {s} bench\n" for q, d, r, s in lines))
    with open(qrels, "w") as out:
        out.write("".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(jq.tolist(), jd.tolist(), grades.tolist())))
    return run, qrels


def measure(cmds: list[list[str]], repeat: int) -> list[tuple[float, float]]:
    """Best wall time (s) and the largest peak RSS (MB) of each command of ``cmds``, each run ``repeat``
    times in a new process, the commands taking turns (so that a change in the machine's load falls
    on all of them alike)."""
    times: list[list[float]] = [[] for _ in cmds]
    peaks: list[list[float]] = [[] for _ in cmds]
    for _ in range(repeat):
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(proc.pid, 0)
            times[i].append(time.perf_counter() - start)
            if status != 0:
                raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode()[-2000:]}")
            peaks[i].append(usage.ru_maxrss / 1024)
    return [(min(t), max(p)) for t, p in zip(times, peaks)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--big-queries", type=int, default=5000)
    ap.add_argument("--skip-ranx", action="store_true")
    ap.add_argument("--write-files", metavar="FOLDER", help=argparse.SUPPRESS)  # the data, made in a child
    args = ap.parse_args()
    if args.write_files:
        write_files(Path(args.write_files), 1190, "small", 0)
        write_files(Path(args.write_files), args.big_queries, "big", 1)
        return
    py = sys.executable
    clirkit = [py, "-m", "clirkit"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # made in another process: a child forked from a large parent inherits its peak memory in maxrss
        subprocess.run([py, __file__, "--write-files", tmp, "--big-queries", str(args.big_queries)], check=True)
        small, small_qrels, big, big_qrels = (folder / n for n in ("small.run", "small.qrels", "big.run", "big.qrels"))
        small2, big2 = folder / "small2.run", folder / "big2.run"  # copies: aggregate refuses a path given twice
        small2.write_bytes(small.read_bytes())
        big2.write_bytes(big.read_bytes())
        pytrec, ranx = folder / "pytrec.py", folder / "ranx_fuse.py"
        pytrec.write_text(PYTREC)
        ranx.write_text(RANX)
        mb = {p.name: p.stat().st_size / 2**20 for p in (small, big)}
        print(
            f"files: small.run {mb['small.run']:.0f} MB (1,190,000 lines), big.run {mb['big.run']:.0f} MB "
            f"({args.big_queries * 1000:,} lines) x 2; load average {os.getloadavg()[0]:.2f}"
        )
        measures = ["-m", "AP", "P@10", "nDCG@10", "RR", "--"]
        rows = []
        if not args.skip_ranx:  # numba compiles ranx's kernels on first use: warm its cache, untimed
            subprocess.run(
                [py, str(ranx), str(small), str(small), str(folder / "warm.run")],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        cases = [
            ("eval 1.19M lines", "clirkit", clirkit + ["eval", "--qrels", str(small_qrels)] + measures + [str(small)]),
            ("eval 1.19M lines", "pytrec_eval", [py, str(pytrec), str(small_qrels), str(small)]),
            (
                "eval 2 x big",
                "clirkit",
                clirkit + ["eval", "--qrels", str(big_qrels)] + measures + [str(big), str(big2)],
            ),
            ("eval 2 x big", "pytrec_eval", [py, str(pytrec), str(big_qrels), str(big), str(big2)]),
            (
                "fuse 2 x 1.19M lines",
                "clirkit",
                clirkit
                + ["aggregate", str(small), str(small2), "--kappa", "0.5", "-o", str(folder / "f.run"), "--quiet"],
            ),
            ("fuse 2 x 1.19M lines", "ranx", [py, str(ranx), str(small), str(small2), str(folder / "r.run")]),
            (
                "fuse 2 x big",
                "clirkit",
                clirkit + ["aggregate", str(big), str(big2), "--kappa", "0.5", "-o", str(folder / "f.run"), "--quiet"],
            ),
            ("fuse 2 x big", "ranx", [py, str(ranx), str(big), str(big2), str(folder / "r.run")]),
        ]
        cases = [case for case in cases if not (case[1] == "ranx" and args.skip_ranx)]
        for task in dict.fromkeys(task for task, _, _ in cases):  # a task's systems take turns
            peers = [(system, cmd) for t, system, cmd in cases if t == task]
            results = measure([cmd for _, cmd in peers], args.repeat if "big" not in task else 1)
            for (system, _), (seconds, peak) in zip(peers, results):
                rows.append((task, system, seconds, peak))
                print(f"  {task:22s} {system:12s} {seconds:8.2f} s {peak:8.0f} MB", flush=True)
        print(f"\nload average at the end {os.getloadavg()[0]:.2f}\n")
        print("| task | system | wall s | peak MB | clirkit speed-up | clirkit memory ratio |")
        print("|---|---|---:|---:|---:|---:|")
        ours = {task: (s, m) for task, system, s, m in rows if system == "clirkit"}
        for task, system, seconds, peak in rows:
            s, m = ours[task]
            print(f"| {task} | {system} | {seconds:.2f} | {peak:.0f} | {seconds / s:.2f}x | {m / peak:.2f} |")


if __name__ == "__main__":
    main()
