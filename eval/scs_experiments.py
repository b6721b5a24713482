"""The SCS paper's claims checked in kind on nave-en-es: SOSL vs MSE, eps = 0 vs eps > 0.

Trains one SCS model per configuration on the train split and, after every
``--eval-every`` epochs, evaluates on the test split in two settings:

- ``full``: the whole collection ranked (depth 1000), as used for aggregation;
- ``cand``: the paper's setting: each test query's judged documents plus 40
  sampled unjudged ones (seeded), re-ranked.

Measures: the paper's P_mr@1, P_mr@5, P_r@5, nDCG@5, MAP, MRR_mr, MRR_r (plus
PRES for ``full``), averaged over the test queries of the qrels. Also prints
each epoch's mean and max batch gradient norm (the eps claim is about
gradient stability).

    python eval/scs_experiments.py --configs sosl:1 mse:1 sosl:0 --epochs 4 -o eval/scs_experiments.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.metrics import evaluate
from clirkit.run import Run
from clirkit.scs import SCSModel
from clirkit.scs.params import Objective, Schedule, Shape

PAPER = ["P_mr@1", "P_mr@5", "P_r@5", "nDCG@5", "AP", "MRR_mr", "MRR_r"]


def candidates(qrels, qids, docids, k, seed) -> Run:
    """Judged documents of each query plus ``k`` sampled unjudged ones (scores 0; re-ranked later)."""
    rng = np.random.default_rng(seed)
    judged = qrels.to_dict()
    rows_q, rows_d = [], []
    for q in qids:
        mine = judged.get(q, {})
        pool = rng.choice(len(docids), size=k + len(mine) + 10, replace=False)
        extra = [docids[i] for i in pool.tolist() if docids[i] not in mine][:k]
        docs = list(mine) + extra
        rows_q += [q] * len(docs)
        rows_d += docs
    return Run.ranked(rows_q, rows_d, np.zeros(len(rows_q)), tag="cand")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--configs", nargs="+", default=["sosl:1", "mse:1", "sosl:0"], help="LOSS:EPS ...")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--eval-every", type=int, default=1)
    p.add_argument("--split", default="test")
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dense-adam", action="store_true")
    p.add_argument("--init-scale", type=float, default=0.1, help="std of the random embedding initialization")
    p.add_argument("-o", "--output", help="JSON file for all the numbers")
    args = p.parse_args(argv)

    c = datasets.load("nave-en-es")
    t0 = time.perf_counter()
    docids, texts = c.documents()
    doc_tokens = Analyzer(c.target_lang).tokenize_many(texts, jobs=2)
    qa = Analyzer(c.source_lang)
    train_q, test_q = c.queries("train"), c.queries(args.split)
    train_tok = qa.tokenize_many(list(train_q.values()))
    test_ids = list(test_q)
    test_tok = qa.tokenize_many(list(test_q.values()))
    train_qrels, test_qrels = c.qrels("train"), c.qrels(args.split)
    print(f"tokenized in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    cand = candidates(test_qrels, test_ids, docids, 40, args.seed)

    results = []
    for config in args.configs:
        loss, eps = config.split(":")
        model = SCSModel(
            shape=Shape(dim=args.dim, eps=float(eps), init_scale=args.init_scale),
            objective=Objective(loss=loss),
            schedule=Schedule(epochs=args.epochs, lazy_adam=not args.dense_adam),
            random_state=args.seed,
        )
        data = model.prepare(list(train_q), train_tok, docids, doc_tokens, train_qrels)

        def on_epoch(m, record, loss=loss, eps=eps):
            row = {
                **record,
                "train_loss": record["loss"],
                "loss": loss,
                "eps": float(eps),
                "init_scale": args.init_scale,
                "seconds": m.epoch_seconds_[-1],
            }
            if record["epoch"] % args.eval_every == 0 or record["epoch"] == args.epochs:
                full = m.score_tokens(test_ids, test_tok, docids, doc_tokens, depth=1000)
                rer = m.score_tokens(test_ids, test_tok, docids, doc_tokens, rerank=cand)
                row["full"] = evaluate(full, test_qrels, PAPER + ["PRES"], average="qrels").mean()
                row["cand"] = evaluate(rer, test_qrels, PAPER, average="qrels").mean()
                print(json.dumps(row), file=sys.stderr, flush=True)
            results.append(row)

        model.train(data, quiet=True, on_epoch=on_epoch)

    print(
        "| loss | eps | init | epoch | train loss | |grad| mean | |grad| max | set | " + " | ".join(PAPER) + " | PRES |"
    )
    print("|---" * (len(PAPER) + 9) + "|")
    for row in results:
        for setting in ("cand", "full"):
            if setting in row:
                vals = [f"{row[setting][m]:.3f}" for m in PAPER]
                pres = f"{row[setting]['PRES@1000']:.3f}" if setting == "full" else ""
                print(
                    f"| {row['loss']} | {row['eps']:g} | {row['init_scale']:g} | {row['epoch']} | "
                    f"{row['train_loss']:.4g} | {row['grad_norm_mean']:.3g} | "
                    f"{row['grad_norm_max']:.3g} | {setting} | " + " | ".join(vals) + f" | {pres} |"
                )
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
