"""Speed of clirkit.metrics against pytrec_eval, ranx and ir-measures on the same run and qrels.

Usage:
    python eval/bench_metrics.py [--queries 1000] [--depth 1000] [--judged 100] [--repeat 3] [--seed 0]

Data (seeded, synthetic ids, realistic shape): --queries queries x --depth results each, scores
rounded to 4 decimals (so ties occur and every library must break them), docids drawn from a pool
of 5 million; per query --judged judgments (half among its results, biased toward the top, half
unretrieved) with grades 0/1/2.

Every library starts from the same columnar numpy arrays (qids, docids, scores; qids, docids,
grades) - the shape clirkit keeps runs in - and must end with per-query values and their mean of
AP, P@10, nDCG@10 and RR (clirkit also PRES@1000, timed separately). Two timings per library,
best of --repeat:
  total    = conversion from the arrays to the library's natural input + evaluation
             (clirkit: Run/Qrels objects; pytrec_eval, ranx, ir-measures: {qid: {docid: value}} dicts)
  evaluate = evaluation only, from the already converted input.
ranx compiles with numba on first use: its first call is reported separately as "cold" and
excluded from the best-of timings. The script also prints the largest per-query difference of each
library from pytrec_eval, so the speed comparison is between equal answers.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

MEASURES = ["AP", "P@10", "nDCG@10", "RR"]
TREC = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank"}


def make_data(n_queries: int, depth: int, judged: int, seed: int):
    rng = np.random.default_rng(seed)
    qids = np.repeat(np.array([f"Q{i:05d}" for i in range(n_queries)]), depth)
    docs = rng.integers(0, 5_000_000, size=(n_queries, depth * 2))
    docids_all = np.char.add("DOC", docs.astype(str))
    # unique docids per query: keep the first `depth` distinct ones
    rows = []
    for q in range(n_queries):
        _, first = np.unique(docids_all[q], return_index=True)
        rows.append(docids_all[q][np.sort(first)[: depth + judged]])
    pool = np.stack(rows)
    docids = pool[:, :depth].ravel()
    scores = np.round(np.sort(rng.gamma(2.0, 3.0, size=(n_queries, depth)), axis=1)[:, ::-1], 4).ravel()
    # judgments: half among the results (biased toward the top), half unretrieved
    half = judged // 2
    pos = np.minimum((rng.pareto(1.0, size=(n_queries, half * 3)) * 20).astype(int), depth - 1)
    jq, jd = [], []
    for q in range(n_queries):
        picked = np.unique(pos[q])[:half]
        jd.append(np.concatenate((pool[q, picked], pool[q, depth : depth + judged - len(picked)])))
        jq.append(np.full(len(jd[-1]), f"Q{q:05d}"))
    qrels_q, qrels_d = np.concatenate(jq), np.concatenate(jd)
    grades = rng.choice([0, 1, 2], size=len(qrels_q), p=[0.5, 0.35, 0.15])
    return (qids, docids, scores), (qrels_q, qrels_d, grades)


def to_dicts(run_arrays, qrels_arrays):
    run: dict[str, dict[str, float]] = {}
    for q, d, s in zip(*(a.tolist() for a in run_arrays)):
        run.setdefault(q, {})[d] = s
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in zip(*(a.tolist() for a in qrels_arrays)):
        qrels.setdefault(q, {})[d] = g
    return run, qrels


def bench_clirkit(run_arrays, qrels_arrays, measures):
    from clirkit.metrics import evaluate
    from clirkit.run import Qrels, Run

    t0 = time.perf_counter()
    run, qrels = Run(*run_arrays), Qrels(*qrels_arrays)
    t1 = time.perf_counter()
    ev = evaluate(run, qrels, measures, depth=None)
    ev.mean()
    t2 = time.perf_counter()
    return t2 - t0, t2 - t1, {q: v for q, v in ev.per_query().items()}


def bench_pytrec(run_arrays, qrels_arrays, measures):
    import pytrec_eval

    t0 = time.perf_counter()
    run, qrels = to_dicts(run_arrays, qrels_arrays)
    t1 = time.perf_counter()
    res = pytrec_eval.RelevanceEvaluator(qrels, {TREC[m] for m in measures}).evaluate(run)
    {m: np.mean([r[TREC[m]] for r in res.values()]) for m in measures}
    t2 = time.perf_counter()
    return t2 - t0, t2 - t1, {q: {m: r[TREC[m]] for m in measures} for q, r in res.items()}


def bench_ranx(run_arrays, qrels_arrays, measures):
    import ranx

    names = {"AP": "map", "P@10": "precision@10", "nDCG@10": "ndcg@10", "RR": "mrr"}
    t0 = time.perf_counter()
    run_d, qrels_d = to_dicts(run_arrays, qrels_arrays)
    run, qrels = ranx.Run(run_d), ranx.Qrels(qrels_d)
    t1 = time.perf_counter()
    ranx.evaluate(qrels, run, [names[m] for m in measures], make_comparable=True)
    t2 = time.perf_counter()
    per_query = {q: {m: float(run.scores[names[m]][q]) for m in measures} for q in run.scores[names[measures[0]]]}
    return t2 - t0, t2 - t1, per_query


def bench_ir_measures(run_arrays, qrels_arrays, measures):
    import ir_measures
    from ir_measures import AP, RR, P, nDCG

    objs = {"AP": AP, "P@10": P @ 10, "nDCG@10": nDCG @ 10, "RR": RR}
    t0 = time.perf_counter()
    run, qrels = to_dicts(run_arrays, qrels_arrays)
    t1 = time.perf_counter()
    per_query: dict[str, dict[str, float]] = {}
    for m in ir_measures.iter_calc([objs[m] for m in measures], qrels, run):
        per_query.setdefault(m.query_id, {})[str(m.measure)] = m.value
    t2 = time.perf_counter()
    back = {str(objs[m]): m for m in measures}
    return t2 - t0, t2 - t1, {q: {back[k]: v for k, v in r.items()} for q, r in per_query.items()}


def max_difference(a: dict, b: dict, measures) -> float:
    worst = 0.0
    for q, row in b.items():
        for m in measures:
            worst = max(worst, abs(a.get(q, {}).get(m, 0.0) - row[m]))
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--judged", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    run_arrays, qrels_arrays = make_data(args.queries, args.depth, args.judged, args.seed)
    print(
        f"data: {args.queries} queries x {args.depth} results = {len(run_arrays[0]):,} run rows, "
        f"{len(qrels_arrays[0]):,} judgments; measures {', '.join(MEASURES)}"
    )

    benches = {
        "clirkit": bench_clirkit,
        "pytrec_eval": bench_pytrec,
        "ranx": bench_ranx,
        "ir-measures": bench_ir_measures,
    }
    results = {}
    for name, fn in benches.items():
        try:
            if name == "ranx":
                cold = fn(run_arrays, qrels_arrays, MEASURES)
                print(f"ranx cold (numba compilation included): total {cold[0]:.2f} s")
            runs = [fn(run_arrays, qrels_arrays, MEASURES) for _ in range(args.repeat)]
        except ImportError as exc:
            print(f"{name}: not installed ({exc}); skipped")
            continue
        results[name] = (min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2])
    total_p, eval_p, ref = results["pytrec_eval"]
    print(
        f"\n{'library':<12} {'total s':>8} {'evaluate s':>11} {'total / pytrec':>15} {'eval / pytrec':>14}"
        f" {'max |diff| vs pytrec':>21}"
    )
    for name, (total, ev, per_query) in results.items():
        print(
            f"{name:<12} {total:8.3f} {ev:11.3f} {total / total_p:15.2f} {ev / eval_p:14.2f} "
            f"{max_difference(per_query, ref, MEASURES):21.2e}"
        )
    with_pres = [bench_clirkit(run_arrays, qrels_arrays, MEASURES + ["PRES@1000"]) for _ in range(args.repeat)]
    print(
        f"\nclirkit with PRES@1000 as a fifth measure: total {min(r[0] for r in with_pres):.3f} s, "
        f"evaluate {min(r[1] for r in with_pres):.3f} s (no peer computes PRES)"
    )


if __name__ == "__main__":
    main()
