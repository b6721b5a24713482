"""Recipe: Boost-1g / Boost-2g on a test collection (train -> dev early stopping -> test).

    python boosting/experiment.py --ngram 1 --rounds 40000 --eval-every 1000
    python boosting/experiment.py --ngram 2 --rounds 40000 --eval-every 1000
    python boosting/experiment.py --ngram 2 --content-ngrams --rounds 80000 --eval-every 4000 --name boost-2g-content
    python boosting/experiment.py --collection bible-verse-es-en --eval-variants standard topical --ngram 1

The model is trained on the ``--variant``'s train split and stopped early on its dev MAP, then
ranks the test split; ``--eval-variants`` scores that test run against each listed variant's
test qrels (a variant's ``excluded`` documents, e.g. the topical task's translation mates, are
removed from the run first). DT and PSQ runs of ``baselines/results/<collection>/<variant>/``
are scored alongside when present.

Writes into ``boosting/results/<collection>/`` (committed: small): ``<name>.json`` (measures,
settings, timings), ``<name>-curve.tsv`` (dev MAP every N rounds, as measured during training),
``<name>-table.tsv`` (the first rounds "t, h_t, w_t" and the top entries); and into
``boosting/out/<collection>/`` (not committed: large) the model ``.npz`` and the test run.
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
from clirkit.formats import read_run, write_run
from compare import test_evaluations  # boosting/compare.py, beside this script

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--collection", default="nave-en-es")
    p.add_argument("--variant", default="standard", help="variant whose train/dev splits train the model")
    p.add_argument("--eval-variants", nargs="+", default=None, help="variants scoring the test run (default: --variant)")
    p.add_argument("--ngram", type=int, default=1)
    p.add_argument("--rounds", type=int, default=6000)
    p.add_argument("--eval-every", type=int, default=500)
    p.add_argument("--patience", type=int, default=0)
    p.add_argument("--rule", default="exact", choices=("exact", "r"))
    p.add_argument("--negatives", type=int, default=1)
    p.add_argument("--candidates", default=None,
                   help="run over the training queries: negatives are drawn from its top --candidate-depth "
                        "documents minus the relevant ones (hard negatives)")
    p.add_argument("--candidate-depth", type=int, default=1000)
    p.add_argument("--max-df", type=float, default=0.05)
    p.add_argument("--content-ngrams", action="store_true",
                   help="drop n-grams (n >= 2) that contain a word --max-df drops")
    p.add_argument("--bits", type=int, default=30)
    p.add_argument("--bags", type=int, default=1)
    p.add_argument("--bag-fraction", type=float, default=1.0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default=None, help="result name (default boost-{ngram}g)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    name = args.name or f"boost-{args.ngram}g"
    results, out = HERE / "results" / args.collection, HERE / "out" / args.collection
    results.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)

    c = datasets.load(args.collection, variant=args.variant)
    src, tgt = Analyzer(c.source_lang), Analyzer(c.target_lang)
    docids, texts = c.documents()
    t0 = time.perf_counter()
    doc_tokens = tgt.tokenize_many(texts, quiet=args.quiet, jobs=2, desc="tokenizing documents")
    queries = {s: c.queries(s) for s in ("train", "dev", "test")}
    tok = {s: dict(zip(q, src.tokenize_many(list(q.values())))) for s, q in queries.items()}
    t_tok = time.perf_counter() - t0

    t0 = time.perf_counter()
    ranker = BoostRanker(ngram=args.ngram, rounds=args.rounds, rule=args.rule, bits=args.bits,
                         negatives=args.negatives, candidate_depth=args.candidate_depth,
                         max_df=args.max_df, frequent_word_ngrams=not args.content_ngrams, eval_every=args.eval_every,
                         patience=args.patience, bags=args.bags, bag_fraction=args.bag_fraction, jobs=args.jobs,
                         source_lang=c.source_lang, target_lang=c.target_lang, random_state=args.seed,
                         quiet=args.quiet)
    ranker.fit_tokens(tok["train"], c.qrels("train"), docids, doc_tokens, dev_queries=tok["dev"],
                      dev_qrels=c.qrels("dev"), source_analyzer=src, target_analyzer=tgt,
                      candidates=read_run(args.candidates) if args.candidates else None)
    t_fit = time.perf_counter() - t0
    model = ranker.model_
    model.save(out / f"{name}.npz")

    t0 = time.perf_counter()
    run = model.rank(tok["test"], docids, doc_tokens, depth=1000, tag=name, quiet=args.quiet)
    t_rank = time.perf_counter() - t0
    write_run(run, out / f"{name}-test.run.gz")

    scores = {variant: {system: {"measures": ev.mean(), "averaged_over": ev.describe()}
                        for system, ev in test_evaluations(args.collection, variant, {name: run}).items()}
              for variant in args.eval_variants or [args.variant]}

    res0 = ranker.results_[0]
    report = {
        "name": name, "collection": args.collection, "trained_on": args.variant, "split": "test",
        "scores": scores, "queries_without_result": len(tok["test"]) - len(run.query_ids),
        "phrase_table_entries": len(model), "params": model.params,
        "seconds": {"tokenize": round(t_tok, 1), "fit": round(t_fit, 1), "rank_test": round(t_rank, 1)},
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2),
        "command": "python boosting/experiment.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    (results / f"{name}.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    with open(results / f"{name}-curve.tsv", "w") as f:
        f.write("round\tdev_MAP\n")
        for r, m in zip(res0.eval_rounds.tolist(), res0.eval_scores.tolist()):
            f.write(f"{r}\t{m:.4f}\n")
    with open(results / f"{name}-table.tsv", "w") as f:
        f.write("t\th_t\tw_t\n")
        for _, t, pairs, w in model.rounds_table(40):
            f.write(f"{t}\t{pairs}\t{w:.2f}\n")
        f.write("\nsource\ttarget\tweight (top entries of the averaged table)\n")
        for s, t, w in model.top_entries(40):
            f.write(f"{s}\t{t}\t{w:.2f}\n")
    for variant, table in scores.items():
        print(f"{args.collection}/{variant} test:")
        for system, row in table.items():
            m = row["measures"]
            print(f"  {system:<12} MAP {m['AP']:.4f}  PRES {m['PRES@1000']:.4f}  nDCG@10 {m['nDCG@10']:.4f}")
    print(json.dumps({"name": name, "rounds_kept": model.params["bag_rounds"], "entries": len(model),
                      "fit_s": round(t_fit, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
