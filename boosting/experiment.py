"""Recipe: a BoostCLIR model on a test collection (train -> dev early stopping and tuning -> test, once).

Standalone (the paper's method, ranks the whole collection):

    python boosting/experiment.py --ngram 1 --rounds 40000 --eval-every 1000
    python boosting/experiment.py --ngram 2 --content-ngrams --rounds 80000 --eval-every 4000 --name boost-2g-content

Boosted from PSQ (re-ranks PSQ's top 1,000; beta tuned on dev unless --beta):

    python boosting/experiment.py --base psq --rounds 1500 --eval-every 50 --name boost-1g-psq

With the parallel corpus's sentences as extra known-item queries (C1, C2):

    python boosting/experiment.py --collection bible-verse-es-en --variant topical --parallel-tuples \\
        --rounds 20000 --eval-every 1000 --name boost-1g-parallel

Every step is the library's: the IBM Model 1 table, the index and PSQ are ``clirkit.pipeline``'s
(PSQ over the training queries is ``pipeline.psq_base_run``: searched in batches of 1,000
queries and kept as a ``CompactRun``); the model is ``BoostRanker``. The model's run on the dev and test queries is
interpolated with PSQ's (``pipeline.tuned_interpolation``: weights tuned on dev MAP, frozen for
test). The test split is scored once, against PSQ, with paired randomization tests.

Writes into ``boosting/results/<collection>/<variant>/`` (committed: small): ``<name>.json`` (measures,
p-values, settings, time and peak memory), ``<name>-curve.tsv`` and ``<name>-curve.png`` (dev MAP
during training), ``<name>-table.tsv`` (the first rounds and the top positive and negative
entries); and into ``boosting/out/<collection>/<variant>/`` (not committed) the model and the test runs.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from clirkit import datasets, pipeline
from clirkit.analysis import Analyzer
from clirkit.boost import BoostRanker
from clirkit.boost.parallel import known_item_queries
from clirkit.formats import write_run
from clirkit.metrics import evaluate
from clirkit.significance import randomization_test
from base_runs import Baseline  # boosting/base_runs.py, beside this script

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "PRES@1000", "nDCG@10", "P@10", "RR"]
TESTED = ["AP", "PRES@1000", "nDCG@10"]  # measures with a p-value against PSQ


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def plot_curves(results, path: Path, title: str, reference: tuple[str, float]) -> None:
    """Dev MAP against rounds, one line per bag (and beta), and a reference system's dev MAP, as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=120)
    for label, rounds, scores in results:
        ax.plot(rounds, scores, marker=".", label=label)
    ax.axhline(reference[1], color="grey", linestyle="--", label=f"{reference[0]} (dev MAP {reference[1]:.4f})")
    ax.set_xlabel("boosting rounds")
    ax.set_ylabel("dev MAP")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--collection", default="nave-en-es")
    p.add_argument("--variant", default="standard", help="variant whose train/dev splits train and tune")
    p.add_argument("--ngram", type=int, default=1)
    p.add_argument("--rounds", type=int, default=6000)
    p.add_argument("--eval-every", type=int, default=500)
    p.add_argument("--patience", type=int, default=0)
    p.add_argument("--rule", default="exact", choices=("exact", "r"))
    p.add_argument("--negatives", type=int, default=1)
    p.add_argument("--max-df", type=float, default=0.05)
    p.add_argument("--content-ngrams", action="store_true",
                   help="drop n-grams (n >= 2) that contain a word --max-df drops")
    p.add_argument("--bits", type=int, default=30)
    p.add_argument("--bags", type=int, default=1)
    p.add_argument("--bag-fraction", type=float, default=1.0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--base", choices=("psq",), default=None, help="boost from this base ranker")
    p.add_argument("--beta", type=float, default=None, help="base-score weight (default: tuned on dev)")
    p.add_argument("--beta-grid", type=float, nargs="+", default=None)
    p.add_argument("--hard-negatives", type=int, default=None, help="default: BoostRanker's")
    p.add_argument("--candidate-depth", type=int, default=None, help="default: BoostRanker's")
    p.add_argument("--parallel-tuples", action="store_true",
                   help="the parallel corpus's source sentences as extra known-item queries")
    p.add_argument("--parallel-weight", type=float, default=1.0)
    p.add_argument("--doc-weighting", default=None, choices=("binary", "idf", "length", "idf-length"),
                   help="default: BoostRanker's (binary standalone, length with --base)")
    p.add_argument("--scs-epochs", type=int, default=0,
                   help="also train SCS (pipeline.scs_model) and tune its combinations with PSQ and the model")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default=None, help="result name (default boost-{ngram}g)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    name = args.name or f"boost-{args.ngram}g"
    results, out = HERE / "results" / args.collection / args.variant, HERE / "out" / args.collection / args.variant
    results.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    seconds = {}

    c = datasets.load(args.collection, variant=args.variant)
    src, tgt = Analyzer(c.source_lang), Analyzer(c.target_lang)
    docids, texts = c.documents()
    t0 = time.perf_counter()
    doc_tokens = tgt.tokenize_many(texts, quiet=args.quiet, jobs=2, desc="tokenizing documents")
    queries = {s: c.queries(s) for s in ("train", "dev", "test")}
    tok = {s: dict(zip(q, src.tokenize_many(list(q.values())))) for s, q in queries.items()}
    seconds["tokenize"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    baseline = Baseline(c, args.quiet)
    psq = {s: pipeline.drop_excluded(baseline.psq(queries[s]), c.excluded(s)) for s in ("dev", "test")}
    seconds["psq_dev_test"] = time.perf_counter() - t0

    extra_queries = extra_qrels = None
    if args.parallel_tuples:
        sources, targets = c.parallel()
        extra_text, extra_qrels = known_item_queries(sources, c.parallel_ids(), docids, target_texts=targets,
                                                     doc_texts=texts)
        extra_queries = dict(zip(extra_text, src.tokenize_many(list(extra_text.values()), jobs=2)))
    base = None
    if args.base == "psq":
        t0 = time.perf_counter()
        base = pipeline.psq_base_run(baseline.index, baseline.table, queries["train"], baseline.analyzer,
                                     excluded=c.excluded("train"), extra=[psq["dev"]], quiet=args.quiet)
        seconds["psq_train"] = time.perf_counter() - t0
    optional = {k: v for k, v in (("beta_grid", args.beta_grid and tuple(args.beta_grid)),
                                  ("hard_negatives", args.hard_negatives), ("candidate_depth", args.candidate_depth),
                                  ("doc_weighting", args.doc_weighting)) if v is not None}
    t0 = time.perf_counter()
    rss_before_fit = peak_rss_gb()
    ranker = BoostRanker(ngram=args.ngram, rounds=args.rounds, rule=args.rule, bits=args.bits,
                         negatives=args.negatives, max_df=args.max_df, frequent_word_ngrams=not args.content_ngrams,
                         eval_every=args.eval_every, patience=args.patience, bags=args.bags,
                         bag_fraction=args.bag_fraction, jobs=args.jobs, source_lang=c.source_lang,
                         target_lang=c.target_lang, base=base, beta=args.beta, parallel_weight=args.parallel_weight,
                         random_state=args.seed, quiet=args.quiet, **optional)
    ranker.fit_tokens(tok["train"], c.qrels("train"), docids, doc_tokens, dev_queries=tok["dev"],
                      dev_qrels=c.qrels("dev"), source_analyzer=src, target_analyzer=tgt,
                      extra_queries=extra_queries, extra_qrels=extra_qrels,
                      base_made_by={"system": "PSQ", "steps": "clirkit.pipeline (IBM Model 1, psq_run)"}
                      if base is not None else None)
    seconds["fit"] = time.perf_counter() - t0
    rss_after_fit = peak_rss_gb()
    model = ranker.model_
    model.save(out / f"{name}.npz")
    del base

    t0 = time.perf_counter()

    def model_run(split):
        if model.from_base:
            return model.rerank(psq[split], tok[split], docids, doc_tokens, depth=1000, tag=name)
        return model.rank(tok[split], docids, doc_tokens, depth=1000, tag=name, quiet=args.quiet)

    systems = {"PSQ": psq, name: {s: model_run(s) for s in ("dev", "test")}}
    seconds["rank_dev_test"] = time.perf_counter() - t0
    if args.scs_epochs:
        t0 = time.perf_counter()
        scs = pipeline.scs_model(tok["train"], c.qrels("train"), docids, doc_tokens, epochs=args.scs_epochs,
                                 seed=args.seed, quiet=args.quiet)
        systems["SCS"] = {s: scs.score_tokens(list(tok[s]), list(tok[s].values()), docids, doc_tokens, tag="SCS")
                          for s in ("dev", "test")}
        seconds["scs"] = time.perf_counter() - t0
    combos = [("PSQ", name)] + ([("PSQ", "SCS"), (name, "SCS"), ("PSQ", name, "SCS")] if args.scs_epochs else [])
    dev_runs = {n: pipeline.drop_excluded(r["dev"], c.excluded("dev")) for n, r in systems.items()}
    test_runs = {n: pipeline.drop_excluded(r["test"], c.excluded("test")) for n, r in systems.items()}

    t0 = time.perf_counter()
    weights = {}
    dev_map = {n: evaluate(r, c.qrels("dev"), ["AP"]).mean()["AP"] for n, r in dev_runs.items()}
    for combo in combos:  # weights tuned on the dev split, then frozen
        label = "+".join(combo)
        test_runs[label], weights[label], dev_map[label] = pipeline.tuned_interpolation(
            [dev_runs[n] for n in combo], [test_runs[n] for n in combo], c.qrels("dev"),
            step=0.1, tag=label)
        write_run(test_runs[label], out / f"{label.replace('+', '_')}-test.run.gz")
    evs = {label: evaluate(run, c.qrels("test"), MEASURES) for label, run in test_runs.items()}
    scores = {system: {"measures": ev.mean(), "averaged_over": ev.describe(),
                       "p_vs_psq": {m: randomization_test(evs["PSQ"].column(m), ev.column(m), seed=0).p_value
                                    for m in TESTED} if system != "PSQ" else {}}
              for system, ev in evs.items()}
    seconds["tune_and_score"] = time.perf_counter() - t0
    for n in systems:
        write_run(test_runs[n], out / f"{n}-test.run.gz")

    report = {
        "name": name, "collection": args.collection, "variant": args.variant, "split": "test",
        "scores": scores, "dev_MAP": dev_map, "interpolation_weights": weights,
        "queries_without_result": len(tok["test"]) - len(systems[name]["test"].query_ids),
        "phrase_table_entries": len(model), "beta": model.beta if model.from_base else None,
        "base": model.base, "params": model.params,
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
        "peak_rss_gb": {"before_fit": round(rss_before_fit, 2), "after_fit": round(rss_after_fit, 2),
                        "end": round(peak_rss_gb(), 2)},
        "command": "python boosting/experiment.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    (results / f"{name}.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    curves = []
    with open(results / f"{name}-curve.tsv", "w") as f:
        f.write("bag\tround\tdev_MAP\n")
        for s, r in enumerate(ranker.results_):
            curves.append((f"bag {s + 1}" + (f", beta {model.beta:g}" if model.from_base else ""),
                           r.eval_rounds.tolist(), r.eval_scores.tolist()))
            for rd, m in zip(*curves[-1][1:]):
                f.write(f"{s + 1}\t{rd}\t{m:.4f}\n")
    plot_curves(curves, results / f"{name}-curve.png", f"{name} on {args.collection} ({args.variant}): dev MAP",
                ("PSQ", dev_map["PSQ"]))
    with open(results / f"{name}-table.tsv", "w") as f:
        f.write("t\th_t\tw_t\n")
        for _, t, pairs, w in model.rounds_table(40):
            f.write(f"{t}\t{pairs}\t{w:.2f}\n")
        for negative in (False, True):
            f.write(f"\nsource\ttarget\tweight (the most {'negative' if negative else 'positive'} entries)\n")
            for s, t, w in model.top_entries(25, negative=negative):
                f.write(f"{s}\t{t}\t{w:.2f}\n")
    print(f"{args.collection}/{args.variant} test:")
    for system, row in scores.items():
        m, pv = row["measures"], row["p_vs_psq"]
        ps = "  ".join(f"p {k} {v:.4f}" for k, v in pv.items())
        print(f"  {system:<24} dev MAP {dev_map[system]:.4f}  MAP {m['AP']:.4f}  PRES {m['PRES@1000']:.4f}  "
              f"nDCG@10 {m['nDCG@10']:.4f}  {ps}")
    print(json.dumps({"name": name, "beta": report["beta"], "rounds_kept": model.params["bag_rounds"],
                      "entries": len(model), "weights": weights, "seconds": report["seconds"],
                      "peak_rss_gb": report["peak_rss_gb"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
