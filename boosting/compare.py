"""Markdown table of the test runs in a folder (e.g. written by ``clirkit run``), with p-values against one of them.

    python boosting/compare.py --collection nave-en-es --baseline PSQ
    python boosting/compare.py --collection bible-verse-es-en --variant topical --baseline PSQ

Reads ``boosting/out/<collection>/<variant>/*-test.run.gz`` (each experiment writes its model's run,
PSQ's and its combinations'), removes the variant's excluded documents, and prints MAP, PRES@1000,
nDCG@10, P@10 and RR with the two-sided paired randomization test (10,000 sign flips, seed 0) of
each run against ``--baseline``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from clirkit import datasets
from clirkit.estimator import drop_excluded
from clirkit.formats import read_run
from clirkit.metrics import evaluate
from clirkit.significance import randomization_test

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "PRES@1000", "nDCG@10", "P@10", "RR"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--collection", default="nave-en-es")
    p.add_argument("--variant", default="standard")
    p.add_argument("--baseline", default="PSQ", help="run name the others are tested against")
    a = p.parse_args(argv)
    c = datasets.load(a.collection, variant=a.variant)
    runs = {
        f.name[: -len("-test.run.gz")]: read_run(f)
        for f in sorted((HERE / "out" / a.collection / a.variant).glob("*-test.run.gz"))
    }
    if a.baseline not in runs:
        sys.exit(f"compare.py: no run named {a.baseline!r} among {', '.join(runs) or 'none'}")
    evs = {
        name: evaluate(drop_excluded(run, c.excluded("test")), c.qrels("test"), MEASURES) for name, run in runs.items()
    }
    base = evs[a.baseline]
    print(f"\n{a.collection} ({a.variant}), test, {base.describe()}; p: paired randomization test vs {a.baseline}\n")
    print("| system | " + " | ".join(MEASURES) + " | " + " | ".join(f"p {m}" for m in MEASURES[:2]) + " |")
    print("|---" * (1 + len(MEASURES) + 2) + "|")
    for name, ev in evs.items():
        means = ev.mean()
        ps = [
            "" if name == a.baseline else f"{randomization_test(base.column(m), ev.column(m), seed=0).p_value:.4f}"
            for m in MEASURES[:2]
        ]
        print(f"| {name} | " + " | ".join(f"{means[m]:.4f}" for m in MEASURES) + " | " + " | ".join(ps) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
