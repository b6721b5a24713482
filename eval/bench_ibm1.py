"""Benchmark: IBM Model 1 training time, and PSQ vs DT retrieval time, on ``nave-en-es``.

1. IBM Model 1 on the collection's parallel corpus (English WEB <-> Spanish RV1909 verse pairs,
   ~31k pairs), 5 EM iterations, p(Spanish word | English word). Tokenization (clirkit's Analyzer,
   sacremoses) is timed separately; "setup" is the one-time layout of the corpus as incidence
   arrays, "EM" the iterations themselves. Peak RSS growth is the Linux VmHWM increase during
   training (reset just before).
2. Retrieval of the test queries over the Spanish verse index (BM25 k1=1.2, b=0.75, lucene idf,
   top 1,000): DT (1-best word translation from the same table) and PSQ (L=0.005, C=0.95).
   Each is timed end to end from query text to Run (tokenizing, building the structured queries,
   pruning the table for PSQ, scoring, top-k), best of ``--repeats``. MAP is shown as a sanity check.

    python eval/bench_ibm1.py                 # prints a Markdown table
    python eval/bench_ibm1.py --json out.json --variant strict

Not a test: timings depend on the machine and its load.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time


def _vm(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="standard", choices=("standard", "strict"))
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--split", default="test", help="query split for the retrieval timing")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1, help="tokenization processes")
    ap.add_argument("--json", default=None, help="also write the numbers as JSON here")
    args = ap.parse_args(argv)

    from clirkit import datasets
    from clirkit.analysis import Analyzer
    from clirkit.bm25 import BM25
    from clirkit.dt import dt_queries
    from clirkit.index import Index
    from clirkit.metrics import evaluate
    from clirkit.psq import prepare_table, psq_queries
    from clirkit.translation import train_ibm1

    out: dict = {"collection": "nave-en-es", "variant": args.variant, "python": platform.python_version(),
                 "cpus": os.cpu_count()}
    c = datasets.load("nave-en-es", variant=args.variant)
    english, spanish = c.parallel()
    out["pairs"] = len(english)

    t0 = time.perf_counter()
    en = Analyzer("en").tokenize_many(english, jobs=args.jobs)
    es = Analyzer("es").tokenize_many(spanish, jobs=args.jobs)
    out["tokenize_s"] = time.perf_counter() - t0

    rss0 = _vm("VmRSS")
    _reset_peak()
    t0 = time.perf_counter()
    table = train_ibm1(en, es, iterations=0)               # the one-time layout alone
    out["setup_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    table = train_ibm1(en, es, iterations=args.iterations)
    out["train_s"] = time.perf_counter() - t0
    out["em_s"] = out["train_s"] - out["setup_s"]
    peak = _vm("VmHWM")
    out["train_peak_rss_mb"] = round((peak - rss0) / 2**20, 1) if peak and rss0 else None
    out.update(iterations=args.iterations, n_source=table.n_source, n_target=table.n_target,
               table_entries=table.nnz, incidences=table.params["n_incidences"])
    print(f"IBM1: {out['pairs']} pairs, {args.iterations} iterations: {out['train_s']:.2f} s "
          f"(setup {out['setup_s']:.2f} s, EM {out['em_s']:.2f} s)", file=sys.stderr)

    docids, texts = c.documents()
    index = Index.build(zip(docids, texts), Analyzer("es"), jobs=args.jobs)
    queries = c.queries(args.split)
    qrels = c.qrels(args.split)
    qids, qtexts = list(queries), list(queries.values())
    source = Analyzer("en")
    bm25 = BM25(index)
    bm25.posting_weights()          # precomputed once per index in both cases

    def dt():
        return bm25.search(dt_queries(qids, source.tokenize_many(qtexts), table, index.vocabulary), tag="dt")

    def psq():
        prepared = prepare_table(table)
        return bm25.search(psq_queries(qids, source.tokenize_many(qtexts), prepared, index.vocabulary), tag="psq")

    out["queries"] = len(qids)
    for name, fn in (("dt", dt), ("psq", psq)):
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            run = fn()
            times.append(time.perf_counter() - t0)
        out[f"{name}_s"] = min(times)
        out[f"{name}_map"] = float(evaluate(run, qrels, ["AP"]).mean()["AP"])
    out["psq_over_dt"] = out["psq_s"] / out["dt_s"]

    print(f"| step | seconds |\n|---|---|\n"
          f"| tokenize {out['pairs']} pairs (en + es) | {out['tokenize_s']:.2f} |\n"
          f"| IBM1 setup (incidence layout, {out['incidences']:,} incidences) | {out['setup_s']:.2f} |\n"
          f"| IBM1 EM, {args.iterations} iterations | {out['em_s']:.2f} |\n"
          f"| IBM1 total (peak RSS +{out['train_peak_rss_mb']} MB) | {out['train_s']:.2f} |\n"
          f"| DT, {len(qids)} {args.split} queries (MAP {out['dt_map']:.4f}) | {out['dt_s']:.3f} |\n"
          f"| PSQ, same queries (MAP {out['psq_map']:.4f}) | {out['psq_s']:.3f} |\n"
          f"| PSQ / DT time | {out['psq_over_dt']:.2f}x |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
