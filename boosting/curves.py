"""MAP and PRES of a trained model cut after R rounds, on dev and test.

    python boosting/curves.py boosting/out/nave-en-es/boost-1g.npz --rounds 1000 2000 4000 8000 16000 32000

Boosting is sequential, so the model cut after R rounds (``BoostModel.truncated``) is the
model trained for R rounds. Writes ``boosting/results/<model>-rounds.tsv``. The test
columns are for reading only; the recipe picks the number of rounds on dev.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from clirkit import datasets
from clirkit.boost import BoostModel
from clirkit.metrics import evaluate

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model")
    p.add_argument("--rounds", type=int, nargs="+", required=True)
    p.add_argument("--collection", default="nave-en-es")
    p.add_argument("--variant", default="standard")
    a = p.parse_args(argv)
    model = BoostModel.load(a.model)
    c = datasets.load(a.collection, variant=a.variant)
    docids, texts = c.documents()
    d_tok = model.target_analyzer.tokenize_many(texts, jobs=2)
    lines = ["rounds\tentries\tdev_MAP\tdev_PRES\ttest_MAP\ttest_PRES"]
    for r in a.rounds:
        m = model.truncated(r)
        row = [str(r), str(len(m))]
        for split in ("dev", "test"):
            queries = c.queries(split)
            q_tok = dict(zip(queries, m.source_analyzer.tokenize_many(list(queries.values()))))
            ev = evaluate(m.rank(q_tok, docids, d_tok), c.qrels(split), ["AP", "PRES@1000"]).mean()
            row += [f"{ev['AP']:.4f}", f"{ev['PRES@1000']:.4f}"]
        lines.append("\t".join(row))
        print(lines[-1], flush=True)
    out = HERE / "results" / a.collection / (Path(a.model).stem + "-rounds.tsv")
    out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
