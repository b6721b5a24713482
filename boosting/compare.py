"""Markdown table of the test runs of ``boosting/experiment.py`` next to DT and PSQ, with p-values.

    python boosting/compare.py --collection nave-en-es --baseline boost-1g
    python boosting/compare.py --collection bible-verse-es-en --variants standard topical --baseline boost-1g

Reads ``boosting/out/<collection>/*-test.run.gz`` and ``baselines/results/<collection>/<variant>/
{dt,psq}.test.run``, removes each variant's excluded documents, and prints per variant MAP,
PRES@1000, nDCG@10, P@10 and RR with the two-sided paired randomization test (10,000 sign flips,
seed 0) of each run against ``--baseline``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from clirkit import datasets
from clirkit.formats import read_run
from clirkit.metrics import evaluate
from clirkit.pipeline import drop_excluded
from clirkit.significance import randomization_test

HERE = Path(__file__).resolve().parent
BASELINES = HERE.parent / "baselines" / "results"
MEASURES = ["AP", "PRES@1000", "nDCG@10", "P@10", "RR"]


def test_evaluations(collection: str, variant: str, runs: dict) -> dict:
    """Evaluations (name -> :class:`clirkit.metrics.Evaluation`) on the ``variant``'s test qrels of
    ``runs`` plus the baselines' DT and PSQ test runs where present, each run without the variant's
    excluded documents."""
    c = datasets.load(collection, variant=variant)
    runs = dict(runs)
    for base in ("dt", "psq"):
        path = BASELINES / collection / variant / f"{base}.test.run"
        if path.exists():
            runs[base.upper()] = read_run(path)
    excluded, qrels = c.excluded("test"), c.qrels("test")
    return {name: evaluate(drop_excluded(run, excluded), qrels, MEASURES) for name, run in runs.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--collection", default="nave-en-es")
    p.add_argument("--variants", nargs="+", default=["standard"])
    p.add_argument("--baseline", default="boost-1g", help="run name the others are tested against")
    a = p.parse_args(argv)
    boost_runs = {f.name[:-len("-test.run.gz")]: read_run(f)
                  for f in sorted((HERE / "out" / a.collection).glob("*-test.run.gz"))}
    for variant in a.variants:
        evs = test_evaluations(a.collection, variant, boost_runs)
        base = evs[a.baseline]
        print(f"\n{a.collection} ({variant}), test, {base.describe()}; p: paired randomization test vs {a.baseline}\n")
        print("| system | " + " | ".join(MEASURES) + " | " + " | ".join(f"p {m}" for m in MEASURES[:2]) + " |")
        print("|---" * (1 + len(MEASURES) + 2) + "|")
        for name, ev in evs.items():
            means = ev.mean()
            ps = ["" if name == a.baseline else
                  f"{randomization_test(ev.column(m), base.column(m), seed=0).p_value:.4f}" for m in MEASURES[:2]]
            print(f"| {name} | " + " | ".join(f"{means[m]:.4f}" for m in MEASURES) + " | " + " | ".join(ps) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
