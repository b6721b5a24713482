"""Speed of aggregation and of the SCS model.

- aggregation: interpolation (none / shift) and Borda over runs of 1,000
  queries x 1,000 documents each (document ids drawn from the nave-en-es
  verse ids, so about half of each pair of lists overlap; seeded scores);
- SCS on nave-en-es: tokenization, training-data preparation, wall time per
  training epoch (train split, paper settings: dim 64, batch 128, 40
  negatives), and scoring the whole collection (31,084 verses) for the test
  queries with top-1000 per query.

    python eval/bench_fusion_scs.py                 # both
    python eval/bench_fusion_scs.py --skip-scs      # aggregation only (seconds)

Times are wall-clock seconds, best of ``--repeat`` for aggregation. The
machine's load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from clirkit.run import Run
from clirkit.scs.params import Schedule


def fusion_inputs(n_queries: int, depth: int, n_runs: int, seed: int) -> list[Run]:
    from clirkit import datasets

    pool = np.asarray(datasets.load("nave-en-es").documents()[0])[: 2 * depth]
    rng = np.random.default_rng(seed)
    runs = []
    for i in range(n_runs):
        docs = np.stack([rng.choice(len(pool), size=depth, replace=False) for _ in range(n_queries)])
        qids = np.repeat([f"Q{q:04d}" for q in range(n_queries)], depth)
        scores = rng.normal(size=n_queries * depth) * (5.0 if i % 2 else 1.0)
        runs.append(Run.ranked(qids, pool[docs.ravel()], scores, tag=f"r{i}"))
    return runs


def best_of(repeat: int, fn) -> tuple[float, float, object]:
    """Best wall-clock and CPU seconds of ``repeat`` calls, and the last result."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), out


def bench_fusion(args) -> None:
    from clirkit import fusion

    runs = fusion_inputs(args.queries, args.depth, 2, args.seed)
    print(f"aggregation: 2 runs x {args.queries} queries x {args.depth} documents ({sum(len(r) for r in runs):,} rows)")
    for name, fn in [
        ("interp kappa=0.5, transform shift", lambda: fusion.interpolate(runs, kappa=0.5, transform="shift")),
        ("interp kappa=0.5, transform minmax", lambda: fusion.interpolate(runs, kappa=0.5, transform="minmax")),
        ("borda K=1000", lambda: fusion.borda(runs, depth=args.depth)),
    ]:
        wall, cpu, out = best_of(args.repeat, fn)
        print(f"  {name:38s} {wall:7.2f} s wall {cpu:7.2f} s CPU  ({len(out):,} output rows)")


def bench_scs(args) -> None:
    from clirkit import datasets
    from clirkit.analysis import Analyzer
    from clirkit.scs import SCSModel

    c = datasets.load("nave-en-es")
    start = time.perf_counter()
    docids, texts = c.documents()
    doc_tokens = Analyzer(c.target_lang).tokenize_many(texts, jobs=args.jobs)
    qa = Analyzer(c.source_lang)
    train_q, test_q = c.queries("train"), c.queries("test")
    train_tok, test_tok = qa.tokenize_many(list(train_q.values())), qa.tokenize_many(list(test_q.values()))
    print(f"scs on nave-en-es: tokenization {time.perf_counter() - start:.1f} s")
    for lazy in [True, False] if args.dense_adam else [True]:
        model = SCSModel(schedule=Schedule(epochs=args.scs_epochs, lazy_adam=lazy), random_state=args.seed)
        start = time.perf_counter()
        data = model.prepare(list(train_q), train_tok, docids, doc_tokens, c.qrels("train"))
        prep = time.perf_counter() - start
        cpu = time.process_time()
        model.train(data, quiet=True)
        cpu = (time.process_time() - cpu) / max(args.scs_epochs, 1)
        s = model.training_stats_
        per_epoch = np.mean(model.epoch_seconds_)
        print(
            f"  {'lazy' if lazy else 'dense'} Adam: prepare {prep:.1f} s; {s['units']:,} training pairs "
            f"({-(-s['units'] // model.schedule.batch_size):,} batches of {model.schedule.batch_size}) -> "
            f"{per_epoch:.1f} s wall, {cpu:.1f} s CPU per epoch (mean of {len(model.epoch_seconds_)})"
        )
    wall, cpu, run = best_of(1, lambda: model.score_tokens(list(test_q), test_tok, docids, doc_tokens, depth=1000))
    print(
        f"  scoring {len(test_q):,} test queries x {len(docids):,} verses, top 1000: {wall:.1f} s wall "
        f"{cpu:.1f} s CPU ({len(run):,} rows)"
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--scs-epochs", type=int, default=1)
    p.add_argument("--dense-adam", action="store_true", help="also time the textbook dense Adam")
    p.add_argument("--jobs", type=int, default=1, help="tokenization workers")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-fusion", action="store_true")
    p.add_argument("--skip-scs", action="store_true")
    args = p.parse_args(argv)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    if not args.skip_fusion:
        bench_fusion(args)
    if not args.skip_scs:
        bench_scs(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
