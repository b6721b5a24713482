"""Benchmark: BM25 indexing and ranking as the collection grows (10k, 100k, 1M Zipf documents), against bm25s.

For each size, ``bench_bm25.py``'s workers index the same synthetic Zipf(1.1) corpus (documents of ~150
tokens over a 200,000-word vocabulary, 1,000 queries of ~5 tokens, seed 0) with clirkit (float64, the exact
path; and float32) and bm25s-numba, each in its own process, and rank the top 1,000 of every query
(k1 = 1.5, b = 0.75, lucene idf, one thread, best of ``--repeat``). Reported per size and system: index
build seconds, peak memory during indexing over the process before it (MB), ranking seconds, and clirkit's
ratios against bm25s-numba measured in the same run; with the memory-bandwidth floor of clirkit's ranking,
and the float64 index saved and searched memory-mapped in a fresh process (open time, peak RSS).

    python eval/bench_scale.py                              # 10k, 100k, 1M: about 25 minutes
    python eval/bench_scale.py --sizes 10000 100000 --json scale.json

Needs the ``bench`` extra (bm25s, numba). Not a test: timings depend on the machine and its load (printed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SYSTEMS = ("clirkit", "clirkit-float32", "bm25s-numba")


def measure(size: int, system: str, repeat: int, queries: int) -> dict:
    """One bench_bm25 worker's numbers for ``system`` on the Zipf corpus of ``size`` documents."""
    mmap = ["--mmap"] if system == "clirkit" else []  # the index saved and searched memory-mapped
    out = subprocess.run(
        [
            sys.executable,
            str(HERE / "bench_bm25.py"),
            "--worker",
            system,
            "zipf",
            "--docs",
            str(size),
            "--queries",
            str(queries),
            "--repeat",
            str(repeat),
            *mmap,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(results: list[dict]) -> str:
    lines = [
        "| documents | system | index s | index peak MB | rank s (best) | floor s | rank / floor | "
        "bm25s index time / clirkit | bm25s rank time / clirkit | clirkit peak / bm25s |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        peer = next((x for x in results if x["n_docs"] == r["n_docs"] and x["system"] == "bm25s-numba"), None)
        floor = f"{r['floor_s']:.3f} | {r['rank_s'] / r['floor_s']:.1f}x" if "floor_s" in r else " | "
        ratios = (
            f"{peer['index_s'] / r['index_s']:.2f}x | {peer['rank_s'] / r['rank_s']:.2f}x | "
            f"{r['index_peak_mb'] / max(peer['index_peak_mb'], 1):.2f}"
            if peer and r is not peer
            else " | | "
        )
        lines.append(
            f"| {r['n_docs']:,} | {r['system']} | {r['index_s']:.2f} | {r['index_peak_mb']:.0f} | "
            f"{r['rank_s']:.3f} | {floor} | {ratios} |"
        )
    mapped = [
        f"- {r['n_docs']:,} documents ({r['index_file_mb']:.0f} MB file): opened memory-mapped in "
        f"{r['mmap_open_s']:.3f} s, vocabulary and queries {r['mmap_vocabulary_s']:.2f} s, first search "
        f"{r['mmap_search_s']:.2f} s, peak RSS {r['mmap_peak_mb']:.0f} MB, same run as in memory: "
        f"{r['mmap_same_run']}"
        for r in results
        if "mmap_open_s" in r
    ]
    return "\n".join(
        lines
        + (["", "The clirkit index saved, then searched memory-mapped in a fresh process:"] + mapped if mapped else [])
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=SYSTEMS)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the numbers here")
    args = ap.parse_args()
    results = []
    print(f"load average before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    for size in args.sizes:
        for system in args.systems:
            results.append(measure(size, system, args.repeat, args.queries))
            r = results[-1]
            print(
                f"# {size} {system}: index {r['index_s']:.1f} s, +{r['index_peak_mb']:.0f} MB, "
                f"rank {r['rank_s']:.2f} s (load {os.getloadavg()[0]:.2f})",
                file=sys.stderr,
            )
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1))
    print(table(results))


if __name__ == "__main__":
    os.environ.setdefault("TQDM_DISABLE", "1")
    main()
