"""Benchmark: IBM Model 1 training time, and PSQ vs DT retrieval time, on ``nave-en-es``.

1. IBM Model 1 on the collection's parallel corpus (English WEB <-> Spanish RV1909 verse pairs,
   ~31k pairs), 5 EM iterations, p(Spanish word | English word). Tokenization (clirkit's Analyzer,
   sacremoses) is timed separately; "setup" is the one-time layout of the corpus as incidence
   arrays (a training run with 0 iterations), "EM" the iterations themselves (a full run minus
   the setup run, each the best of 3). Peak RSS growth is the Linux VmHWM increase during
   training (reset just before).
2. Retrieval of the test queries over the Spanish verse index (BM25 k1=1.2, b=0.75, lucene idf,
   top 1,000): DT (1-best word translation from the same table), PSQ (L=0.005, C=0.95), and PSQ
   with the ``--stopwords-top`` most frequent index terms dropped from the options. "build" is
   query text -> structured queries (tokenizing, pruning the table for PSQ), "search" is BM25
   scoring and top-k; best of ``--repeats``. MAP and P@10 are shown as a sanity check.

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
    ap.add_argument("--stopwords-top", type=int, default=200,
                    help="for the third system: drop the N most frequent index terms from PSQ's options")
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
    setup_times, train_times = [], []
    for _ in range(3):  # best of 3 of each, so that their difference (the EM iterations) is not noise
        t0 = time.perf_counter()
        table = train_ibm1(en, es, iterations=0)           # the one-time layout alone
        setup_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        table = train_ibm1(en, es, iterations=args.iterations)
        train_times.append(time.perf_counter() - t0)
    out["setup_s"], out["train_s"] = min(setup_times), min(train_times)
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

    from clirkit.index import most_frequent_terms

    stop = most_frequent_terms(index, args.stopwords_top)

    def dt():
        return dt_queries(qids, source.tokenize_many(qtexts), table, index.vocabulary)

    def psq():
        return psq_queries(qids, source.tokenize_many(qtexts), prepare_table(table), index.vocabulary)

    def psq_stop():
        return psq_queries(qids, source.tokenize_many(qtexts), prepare_table(table, target_stopwords=stop),
                           index.vocabulary)

    out["queries"] = len(qids)
    systems = (("dt", "DT (1-best)", dt), ("psq", "PSQ", psq),
               ("psq_stop", f"PSQ, top {args.stopwords_top} index terms dropped from options", psq_stop))
    rows = []
    for name, label, build in systems:
        build_times, search_times = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            sq = build()
            t1 = time.perf_counter()
            run = bm25.search(sq, tag=name)
            search_times.append(time.perf_counter() - t1)
            build_times.append(t1 - t0)
        out[f"{name}_build_s"], out[f"{name}_search_s"] = min(build_times), min(search_times)
        out[f"{name}_s"] = out[f"{name}_build_s"] + out[f"{name}_search_s"]
        means = evaluate(run, qrels, ["AP", "P@10"]).mean()
        out[f"{name}_map"], out[f"{name}_p10"] = means["AP"], means["P@10"]
        rows.append(f"| {label} | {out[name + '_build_s']:.3f} | {out[name + '_search_s']:.3f} | "
                    f"{out[name + '_s']:.3f} | {out[name + '_s'] / out['dt_s']:.2f}x | "
                    f"{out[name + '_map']:.4f} | {out[name + '_p10']:.4f} |")

    print(f"| IBM Model 1 step | seconds |\n|---|---|\n"
          f"| tokenize {out['pairs']} pairs (en + es) | {out['tokenize_s']:.2f} |\n"
          f"| setup (incidence layout, {out['incidences']:,} incidences) | {out['setup_s']:.2f} |\n"
          f"| EM, {args.iterations} iterations | {out['em_s']:.2f} |\n"
          f"| total (peak RSS +{out['train_peak_rss_mb']} MB) | {out['train_s']:.2f} |\n")
    print(f"| {len(qids)} {args.split} queries | build s | search s | total s | vs DT | MAP | P@10 |\n"
          f"|---|---|---|---|---|---|---|\n" + "\n".join(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
