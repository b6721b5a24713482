"""Recipe: Boost-1g / Boost-2g on the bundled nave-en-es collection (train -> dev early stopping -> test).

    python boosting/nave.py --ngram 1 --rounds 6000
    python boosting/nave.py --ngram 2 --rounds 6000

Writes into ``boosting/results/`` (committed: small): ``boost-{n}g.json`` (test MAP/PRES/...,
timings, settings), ``boost-{n}g-curve.tsv`` (dev MAP vs rounds) and ``boost-{n}g-table.tsv``
(the first rounds "t, h_t, w_t" and the top entries); and into ``boosting/out/`` (not committed:
large): the model ``.npz`` and the test run ``.run.gz``.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.boost import BoostRanker
from clirkit.formats import write_run
from clirkit.metrics import evaluate

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "PRES@1000", "nDCG@10", "P@10", "RR"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ngram", type=int, default=1)
    p.add_argument("--rounds", type=int, default=6000)
    p.add_argument("--eval-every", type=int, default=500)
    p.add_argument("--rule", default="exact", choices=("exact", "r"))
    p.add_argument("--negatives", type=int, default=1)
    p.add_argument("--max-df", type=float, default=0.05)
    p.add_argument("--bits", type=int, default=30)
    p.add_argument("--bags", type=int, default=1)
    p.add_argument("--bag-fraction", type=float, default=1.0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--variant", default="standard")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default=None, help="result name (default boost-{ngram}g)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    name = args.name or f"boost-{args.ngram}g"
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "out").mkdir(exist_ok=True)

    c = datasets.load("nave-en-es", variant=args.variant)
    src, tgt = Analyzer(c.source_lang), Analyzer(c.target_lang)
    docids, texts = c.documents()
    t0 = time.perf_counter()
    doc_tokens = tgt.tokenize_many(texts, quiet=args.quiet, jobs=2, desc="tokenizing documents")
    tok = {s: dict(zip(c.queries(s), src.tokenize_many(list(c.queries(s).values())))) for s in ("train", "dev", "test")}
    t_tok = time.perf_counter() - t0

    t0 = time.perf_counter()
    ranker = BoostRanker(ngram=args.ngram, rounds=args.rounds, rule=args.rule, bits=args.bits,
                         negatives=args.negatives, max_df=args.max_df, eval_every=args.eval_every,
                         bags=args.bags, bag_fraction=args.bag_fraction, jobs=args.jobs,
                         source_lang=c.source_lang, target_lang=c.target_lang, random_state=args.seed,
                         quiet=args.quiet)
    ranker.fit_tokens(tok["train"], c.qrels("train"), docids, doc_tokens, dev_queries=tok["dev"],
                      dev_qrels=c.qrels("dev"), source_analyzer=src, target_analyzer=tgt)
    t_fit = time.perf_counter() - t0
    model = ranker.model_
    model.save(HERE / "out" / f"{name}.npz")

    t0 = time.perf_counter()
    run = model.rank(tok["test"], docids, doc_tokens, depth=1000, tag=name, quiet=args.quiet)
    t_rank = time.perf_counter() - t0
    write_run(run, HERE / "out" / f"{name}-test.run.gz")
    ev = evaluate(run, c.qrels("test"), MEASURES)

    res0 = ranker.results_[0]
    report = {
        "name": name, "collection": f"nave-en-es/{args.variant}", "split": "test", "measures": ev.mean(),
        "averaged_over": ev.describe(), "queries_without_result": len(tok["test"]) - len(run.query_ids),
        "phrase_table_entries": len(model), "params": model.params,
        "seconds": {"tokenize": round(t_tok, 1), "fit": round(t_fit, 1), "rank_test": round(t_rank, 1)},
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2),
        "command": "python boosting/nave.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    (HERE / "results" / f"{name}.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    with open(HERE / "results" / f"{name}-curve.tsv", "w") as f:
        f.write("round\tdev_MAP\n")
        for r, m in zip(res0.eval_rounds.tolist(), res0.eval_scores.tolist()):
            f.write(f"{r}\t{m:.4f}\n")
    with open(HERE / "results" / f"{name}-table.tsv", "w") as f:
        f.write("t\th_t\tw_t\n")
        for _, t, pairs, w in model.rounds_table(40):
            f.write(f"{t}\t{pairs}\t{w:.2f}\n")
        f.write("\nsource\ttarget\tweight (top entries of the averaged table)\n")
        for s, t, w in model.top_entries(40):
            f.write(f"{s}\t{t}\t{w:.2f}\n")
    print(json.dumps({"name": name, **ev.mean(), "rounds_kept": model.params["bag_rounds"],
                      "fit_s": round(t_fit, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
