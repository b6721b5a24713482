"""SCS training speed: this code (numpy, and compiled where numba is installed) against another checkout.

Usage:
    python eval/bench_scs.py --old ../clirkit-old            # git worktree add ../clirkit-old <commit to compare with>
    python eval/bench_scs.py --old ../clirkit-old --batches 3000 --repeat 3

The demo's SCS (``SCSModel(schedule=Schedule(epochs=2), shape=Shape(eps=0.25))``, otherwise defaults: dim 64,
SOSL, batches of 128, 40 negatives per query, LazyAdam) on the nave-en-es training queries: each variant trains
the first ``--batches`` batches of one epoch in a fresh process, the variants taking turns, ``--repeat`` times:

  old        the other checkout (``PYTHONPATH``), whatever it does
  numpy      this code with ``CLIRKIT_NUMBA=0``
  compiled   this code with numba (skipped without it); its first batch, which loads the kernels, is
             timed apart

and prints each one's CPU seconds per batch (median), the ratios, and whether the three trained tables are
the same bits. The inputs (tokens, qrels) are made once into ``--work``. The machine is shared: the load
average is printed with every number.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def prepare(work: Path) -> Path:
    path = work / "scs-inputs.pkl"
    if path.exists():
        return path
    from clirkit import datasets
    from clirkit.analysis import Analyzer

    work.mkdir(parents=True, exist_ok=True)
    c = datasets.load("nave-en-es")
    train = c.queries("train")
    docids, texts = c.documents()
    inputs = {
        "qids": list(train),
        "q_tokens": Analyzer(c.source_lang).tokenize_many(list(train.values())),
        "docids": docids,
        "doc_tokens": Analyzer(c.target_lang).tokenize_many(texts),
        "qrels": c.qrels("train"),
    }
    with open(path, "wb") as f:
        pickle.dump(inputs, f, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def train_once(inputs: Path, batches: int) -> None:
    """Train ``batches`` batches in this process (whichever clirkit it imports); print a JSON line."""
    import numpy as np

    from clirkit.scs import SCSModel

    with open(inputs, "rb") as f:
        inp = pickle.load(f)
    make = getattr(SCSModel, "from_flat", SCSModel)  # the grouped parameters (issue 38), or a version before them
    model = make(epochs=1, eps=0.25, random_state=0)
    batch_size = model.schedule.batch_size if hasattr(model, "schedule") else model.batch_size
    data = model.prepare(inp["qids"], inp["q_tokens"], inp["docids"], inp["doc_tokens"], inp["qrels"])
    data = data.take(np.arange(min(len(data), batches * batch_size)))
    first = data.take(np.arange(batch_size))
    start = time.process_time()
    model.train(first)  # one batch: the first call of each kernel (numba loads or compiles it)
    first_seconds = time.process_time() - start
    start = time.process_time()
    model.train(data)
    seconds = time.process_time() - start
    tables = model.query_embeddings_.tobytes() + model.doc_embeddings_.tobytes()
    print(
        json.dumps(
            {
                "seconds": seconds,
                "first_batch": first_seconds,
                "batches": -(-len(data) // batch_size),
                "sha256": hashlib.sha256(tables).hexdigest(),
            }
        )
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--old", type=Path, required=True, help="a checkout of the code to compare with")
    p.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "clirkit-bench-scs")
    p.add_argument("--batches", type=int, default=3000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--once", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.once:
        train_once(args.once, args.batches)
        return
    inputs = prepare(args.work)
    try:
        import numba  # noqa: F401

        variants = ["old", "numpy", "compiled"]
    except ImportError:
        variants = ["old", "numpy"]
    rows: dict[str, list[dict]] = {v: [] for v in variants}
    for i in range(args.repeat):
        for name in variants:
            env = dict(os.environ, PYTHONPATH=str(args.old if name == "old" else ROOT))
            env["CLIRKIT_NUMBA"] = "0" if name == "numpy" else "1"
            before = load()
            res = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--old",
                    str(args.old),
                    "--once",
                    str(inputs),
                    "--batches",
                    str(args.batches),
                ],
                env=env,
                check=True,
                capture_output=True,
                text=True,
                cwd=args.old if name == "old" else ROOT,
            )
            row = json.loads(res.stdout.strip().splitlines()[-1])
            rows[name].append(row)
            print(
                f"{name} #{i + 1}: {row['seconds'] / row['batches'] * 1e3:.3f} ms/batch CPU over {row['batches']} "
                f"batches, first batch {row['first_batch']:.2f} s, sha256 {row['sha256'][:16]} "
                f"(load {before} -> {load()})",
                flush=True,
            )
    med = {n: statistics.median(r["seconds"] / r["batches"] for r in rs) for n, rs in rows.items()}
    same = len({r["sha256"] for rs in rows.values() for r in rs}) == 1
    print(
        "median ms/batch: "
        + ", ".join(f"{n} {v * 1e3:.3f}" for n, v in med.items())
        + "; "
        + ", ".join(f"old/{n} {med['old'] / med[n]:.2f}x" for n in variants[1:])
        + f"; tables {'the same bits' if same else 'DIFFER'}"
    )


if __name__ == "__main__":
    main()
