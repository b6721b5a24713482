"""Boosting training speed and memory: the demo's PSQ-Boost fit and the standalone bigram set-up, this code
against another checkout of clirkit (e.g. the previous commit) measured in the same session.

Usage:
    python eval/bench_boost.py prepare                      # once: the demo's inputs into --work
    python eval/bench_boost.py psq-boost --old ../clirkit-old     # the demo's PSQ-Boost fit, old and new, --repeat 3
    python eval/bench_boost.py bigram --old ../clirkit-old        # boost-train --ngram 2 --rounds 20: peak memory
    python eval/bench_boost.py bigram --old ../clirkit-old --files --rounds 2000   # the README's command
    git worktree add ../clirkit-old HEAD~N                        # a checkout of the code to compare with

``prepare`` runs ``clirkit run`` on a PSQ-only copy of the demo's experiment (nave-en-es, IBM Model 1 with 5
iterations, 400 dev queries seeded 0) to make the index and the table the runner makes for PSQ: PSQ translates
the documents by default (issue 29), so that is the reverse table (``table.reverse.npz``, p(query word |
document word)), and ``PSQ().fit(Resources(index=..., reverse_table=...))`` translates the index through it, as
the runner's ``PSQ.fit(resources)`` does (its dev run is the runner's ``psq.dev.run.gz``, row for row). It searches
the 10,615 training and the 400 dev queries with that PSQ (1,000 at a time, as ``Boost(base=PSQ())`` does) into a
CompactRun, tokenizes queries and documents, and pickles all of it in ``--work``.

``psq-boost`` fits ``BoostRanker.from_flat(base=<that run>, rounds=3000, max_df=0.05, eval_every=100, jobs=2)`` with
``fit_tokens`` (the demo's PSQ-Boost: beta tuned on the dev MAP over 2, 5, 10, 20, with the demo's jobs = 2,
which the code since issue 28 gives such a ranker, and code before it ignored with one bag; ``--jobs 1`` for
one worker) in a fresh process per fit, the two code versions taking turns, and prints each fit's seconds,
the sha256 of the model's content (its header and arrays, as numpy reads them: tables and models store their
non-float members deflated since 2026-11-27, so the file's bytes changed while what it holds did not) and the
process's peak RSS (the workers' are not counted); then the medians and the ratio old / new. The models must
hold the same bits.

``bigram`` runs ``clirkit boost-train --collection nave-en-es --ngram 2 --rounds 20 --quiet`` under
``/usr/bin/time -v`` once per version (the set-up's peak does not depend on the rounds); with ``--files``, the
README's command instead: the collection exported into ``--work``/export (``clirkit datasets export``, once) and
``boost-train --queries ... --dev-queries ... --ngram 2 --rounds R``, whose dev evaluations add to the peak.
The peak is printed in GiB and GB (issue 28's bar: 5 GB).

The machine is shared: the load average is printed with every number.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXPERIMENT = """\
name = "bench-boost"
collection = "nave-en-es"
variant = "standard"
measures = ["AP"]
baseline = "PSQ"
seed = 0
jobs = 1
dev_queries = 400

[table]
iterations = 5

[systems.PSQ]
kind = "psq"
"""
PSQ_BOOST = {"rounds": 3000, "max_df": 0.05, "eval_every": 100}  # the demo's [systems.PSQ-Boost]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def prepare(work: Path) -> None:
    from clirkit import datasets
    from clirkit.analysis import Analyzer
    from clirkit.boost.base import CompactRun
    from clirkit.experiment.artifacts import sample
    from clirkit.retrieval.index import Index
    from clirkit.systems import PSQ, Resources
    from clirkit.translation import load_table

    work.mkdir(parents=True, exist_ok=True)
    (work / "psq.toml").write_text(EXPERIMENT)
    subprocess.run(
        [sys.executable, "-m", "clirkit", "run", str(work / "psq.toml"), "-o", str(work / "exp"), "-q"], check=True
    )
    c = datasets.load("nave-en-es")
    train, dev = c.queries("train"), sample(c.queries("dev"), 400, seed=0)
    table = next(p for p in (work / "exp" / "table.npz", work / "exp" / "table.reverse.npz") if p.exists())
    role = "reverse_table" if table.name == "table.reverse.npz" else "table"  # the side the runner's PSQ translated
    psq = PSQ().fit(Resources(index=Index.load(work / "exp" / "index.npz"), **{role: load_table(table)}))
    ids = list(train)
    parts = [psq.search({q: train[q] for q in ids[a : a + 1000]}) for a in range(0, len(ids), 1000)]
    base = CompactRun.from_runs(parts + [psq.search(dev)])
    src, tgt = Analyzer(c.source_lang), Analyzer(c.target_lang)
    docids, texts = c.documents()
    inputs = {
        "queries": dict(zip(train, src.tokenize_many(list(train.values())))),
        "qrels": c.qrels("train"),
        "docids": docids,
        "doc_tokens": tgt.tokenize_many(texts),
        "dev_queries": dict(zip(dev, src.tokenize_many(list(dev.values())))),
        "dev_qrels": c.qrels("dev").subset(dev),
        "base": base,
        "langs": (c.source_lang, c.target_lang),
    }
    with open(work / "inputs.pkl", "wb") as f:
        pickle.dump(inputs, f, protocol=pickle.HIGHEST_PROTOCOL)
    print(f"prepared {work / 'inputs.pkl'}: {len(train)} training, {len(dev)} dev queries, {len(base):,} base rows")


def fit_once(work: Path, out: Path, jobs: int) -> None:
    """One PSQ-Boost fit in this process (whichever clirkit it imports): prints a JSON line."""
    import resource

    import clirkit
    from clirkit.boost import BoostRanker

    with open(work / "inputs.pkl", "rb") as f:
        inp = pickle.load(f)
    source_lang, target_lang = inp["langs"]
    make = getattr(BoostRanker, "from_flat", BoostRanker)  # the grouped parameters (issue 38), or a version before
    ranker = make(
        base=inp["base"], source_lang=source_lang, target_lang=target_lang, quiet=True, jobs=jobs, **PSQ_BOOST
    )
    start = time.perf_counter()
    ranker.fit_tokens(
        inp["queries"],
        inp["qrels"],
        inp["docids"],
        inp["doc_tokens"],
        dev_queries=inp["dev_queries"],
        dev_qrels=inp["dev_qrels"],
    )
    seconds = time.perf_counter() - start
    ranker.save(out)
    print(
        json.dumps(
            {
                "code": str(Path(clirkit.__file__).parent.parent),
                "seconds": seconds,
                "sha256": content_sha256(out),
                "json_sha256": hashlib.sha256(Path(f"{out}.json").read_bytes()).hexdigest()
                if Path(f"{out}.json").exists()
                else None,
                "beta": ranker.beta_,
                "rounds": ranker.model_.params["bag_rounds"],
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def content_sha256(path: Path) -> str:
    """sha256 of what the npz at ``path`` holds: each member's name, dtype, shape and bytes, in name order (the
    same whether a member is stored or deflated)."""
    h = hashlib.sha256()
    with np.load(path, allow_pickle=False) as npz:
        for name in sorted(npz.files):
            arr = np.ascontiguousarray(npz[name])
            h.update(f"{name}:{arr.dtype.str}:{arr.shape}".encode())
            h.update(arr.tobytes())
    return h.hexdigest()


def _env(code: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(code)  # ahead of the editable install's finder
    return env


def psq_boost(work: Path, old: Path, repeat: int, jobs: int) -> None:
    rows: dict[str, list[dict]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat):
            for name, code in (("old", old), ("new", ROOT)):
                before = load()
                out = Path(tmp) / f"{name}-{i}.npz"
                res = subprocess.run(
                    [sys.executable, __file__, "fit-once", "--work", str(work), "--out", str(out), "--jobs", str(jobs)],
                    env=_env(code),
                    check=True,
                    capture_output=True,
                    text=True,
                    cwd=code,
                )
                row = json.loads(res.stdout.strip().splitlines()[-1])
                row["load_before"], row["load_after"] = before, load()
                rows[name].append(row)
                print(
                    f"{name} #{i + 1}: {row['seconds']:.1f} s, peak {row['peak_mb']:.0f} MB, beta {row['beta']}, "
                    f"rounds {row['rounds']}, content sha256 {row['sha256'][:16]} "
                    f"(load {before} -> {row['load_after']})",
                    flush=True,
                )
    hashes = {(r["sha256"], r["json_sha256"]) for rs in rows.values() for r in rs}
    med = {n: statistics.median(r["seconds"] for r in rs) for n, rs in rows.items()}
    print(
        f"median old {med['old']:.1f} s, new {med['new']:.1f} s: {med['old'] / med['new']:.2f}x; "
        f"models {'the same content' if len(hashes) == 1 else 'DIFFER'} ({len(hashes)} distinct)"
    )


def readme_inputs(work: Path) -> list[str]:
    """The README's ``$train $dev`` over the collection exported into ``work/export`` (made once)."""
    d = work / "export"
    if not (d / "docs.tsv").exists():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "clirkit", "datasets", "export", "nave-en-es", "-o", str(d)], check=True)
    return [
        "--queries",
        f"{d}/queries.train.tsv",
        "--qrels",
        f"{d}/train.qrels",
        "--documents",
        f"{d}/docs.tsv",
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "--dev-queries",
        f"{d}/queries.dev.tsv",
        "--dev-qrels",
        f"{d}/dev.qrels",
    ]


def bigram(old: Path | None, rounds: int, files: Path | None = None) -> None:
    versions = ([("old", old)] if old else []) + [("new", ROOT)]
    inputs = readme_inputs(files) if files else ["--collection", "nave-en-es"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, code in versions:
            before = load()
            out = Path(tmp) / f"{name}.npz"
            cmd = [
                "/usr/bin/time",
                "-v",
                sys.executable,
                "-m",
                "clirkit",
                "boost-train",
                *inputs,
                "--ngram",
                "2",
                "--rounds",
                str(rounds),
                "--quiet",
                "-o",
                str(out),
            ]
            res = subprocess.run(cmd, env=_env(code), capture_output=True, text=True, cwd=code)
            if res.returncode:
                sys.exit(res.stderr)
            peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", res.stderr).group(1))
            wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", res.stderr).group(1)
            print(
                f"{name}: peak {peak / 2**20:.2f} GiB = {peak * 1024 / 1e9:.2f} GB, wall {wall}, content sha256 "
                f"{content_sha256(out)[:16]} (load {before} -> {load()})",
                flush=True,
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["prepare", "psq-boost", "bigram", "fit-once"])
    p.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "clirkit-bench-boost")
    p.add_argument("--old", type=Path, default=None, help="a checkout of the code to compare with")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2, help="psq-boost: workers (the demo's jobs = 2)")
    p.add_argument("--rounds", type=int, default=20, help="bigram: boosting rounds")
    p.add_argument("--files", action="store_true", help="bigram: the README's command, on exported files")
    p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.what == "prepare":
        prepare(args.work)
    elif args.what == "fit-once":
        fit_once(args.work, args.out, args.jobs)
    elif args.what == "psq-boost":
        if args.old is None:
            sys.exit("psq-boost: give --old DIR, a checkout to compare with (git worktree add ../clirkit-old HEAD)")
        psq_boost(args.work, args.old, args.repeat, args.jobs)
    else:
        bigram(args.old, args.rounds, args.work if args.files else None)


if __name__ == "__main__":
    main()
