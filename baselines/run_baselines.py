"""Re-make the DT and PSQ baseline runs and their tables on the real collections.

For each collection variant: tokenize the parallel corpus, train an IBM Model 1 table
p(target word | source word) on it (5 EM iterations, NULL word), index the documents, run DT
(1-best word translation) and PSQ (L = 0.005, C = 0.95, the 100 most frequent index terms removed
from the options) with BM25 (k1 = 1.2, b = 0.75, Lucene idf, depth 1,000) on the test and dev
queries, remove the variant's ``excluded`` documents, write the runs (TREC format) and a Markdown
table (MAP, PRES@1000, nDCG@10, P@10, MRR, queries, paired randomization test of PSQ vs DT, wall
time of each step, peak RSS). All steps are those of :mod:`clirkit.pipeline`; nothing random
except the randomization test, seeded.

    python baselines/run_baselines.py --no-target-stopwords   # everything, into baselines/results/
    python baselines/run_baselines.py --collections nave-en-es:standard --no-target-stopwords

Each collection variant runs in its own child process (one after the other), so the peak RSS
reported is that variant's own. ``bible-verse-es-en`` and ``multi30k-de-en`` are read from
``../shared``; they are skipped with a message when that folder is absent. ``--no-target-stopwords``
adds the system PSQ-noTSW: PSQ with no target stoplist (``pipeline.psq_run(...,
target_stopwords_top=0)``). The test-query share of IBM Model 1 mass on the target stoplist is
reported too.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_COLLECTIONS = ["nave-en-es:standard", "nave-en-es:strict", "bible-verse-es-en:standard",
                       "bible-verse-es-en:topical", "multi30k-de-en:standard"]
SPLITS = ("test", "dev")
MEASURES = ("AP", "PRES@1000", "nDCG@10", "P@10", "RR")
LABELS = {"AP": "MAP", "RR": "MRR"}
SEED = 0
DEPTH = 1000
ITERATIONS = 5
HERE = Path(__file__).resolve().parent


def say(msg: str, quiet: bool) -> None:
    if not quiet:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def parse_specs(specs: list[str]) -> list[tuple[str, list[str]]]:
    """``name[:variant]`` arguments -> [(name, [variants])] in first-seen order; no variant = all."""
    from clirkit import datasets
    from clirkit.errors import ClirkitError

    grouped: dict[str, list[str]] = {}
    for spec in specs:
        name, _, variant = spec.partition(":")
        try:
            known = datasets.variants(name)
        except ClirkitError as exc:
            raise SystemExit(f"run_baselines: {exc}") from None
        wanted = [variant] if variant else known
        for v in wanted:
            if v not in known:
                raise SystemExit(f"run_baselines: {name} has no variant {v!r} (choose {', '.join(known)})")
            grouped.setdefault(name, [])
            if v not in grouped[name]:
                grouped[name].append(v)
    return list(grouped.items())


# --------------------------------------------------------------------------- one collection

def run_collection(name: str, variants: list[str], out: Path, *, jobs: int, no_tsw: bool,
                   quiet: bool) -> dict | None:
    """Train, index, retrieve and evaluate every variant of one collection; the results as a dict."""
    from clirkit import datasets, pipeline
    from clirkit.errors import ClirkitError
    from clirkit.formats import write_run

    results = {"collection": name, "variants": {}}
    for variant in variants:
        try:
            c = datasets.load(name, variant=variant)
            c.paths  # builds a shared-folder collection on first use, or says what is missing
        except ClirkitError as exc:
            print(f"run_baselines: skipping {name} ({variant}): {exc}", file=sys.stderr, flush=True)
            continue
        say(f"{name} ({variant}): {c.source_lang} queries -> {c.target_lang} documents", quiet)
        steps = pipeline.Steps()
        with steps.time("tokenize"):
            source, target = c.parallel()
            say(f"tokenizing {len(source)} parallel pairs", quiet)
            s_tok = pipeline.tokenize(source, c.source_lang, quiet=quiet, jobs=jobs, desc="tokenizing source")
            t_tok = pipeline.tokenize(target, c.target_lang, quiet=quiet, jobs=jobs, desc="tokenizing target")
        with steps.time("IBM1"):
            say(f"training IBM Model 1, {ITERATIONS} iterations", quiet)
            table = pipeline.train_table(s_tok, t_tok, iterations=ITERATIONS, quiet=quiet)
        analyzer = pipeline.query_analyzer(c.source_lang, s_tok)
        n_pairs = len(source)
        del s_tok, t_tok, source, target
        with steps.time("index"):
            docids, texts = c.documents()
            say(f"indexing {len(docids)} documents", quiet)
            index = pipeline.index_documents(docids, texts, c.target_lang, quiet=quiet, jobs=jobs)
            del docids, texts

        systems = [("DT", pipeline.dt_run, {}), ("PSQ", pipeline.psq_run, {})]
        if no_tsw:
            systems.append(("PSQ-noTSW", pipeline.psq_run, {"target_stopwords_top": 0}))
        folder = out / name / variant
        folder.mkdir(parents=True, exist_ok=True)
        splits = {}
        for split in SPLITS:
            queries, qrels, excluded = c.queries(split), c.qrels(split), c.excluded(split)
            runs = {}
            for system, make, extra in systems:
                say(f"{system} on {len(queries)} {split} queries", quiet)
                with steps.time(f"{system} {split}"):
                    run = make(index, table, queries, analyzer, depth=DEPTH, quiet=quiet, **extra)
                    run = pipeline.drop_excluded(run, excluded)
                write_run(run, folder / f"{system.lower()}.{split}.run", tag=system)
                runs[system] = run
            splits[split] = evaluate_split(runs, qrels, len(queries))
        mass = stopword_mass(table, index, c.queries("test"), analyzer)
        timing = {k: steps.seconds[k] for k in ("tokenize", "IBM1", "index")}
        for system, _, _ in systems:
            timing[system] = sum(steps.seconds[f"{system} {s}"] for s in SPLITS)
            for s in SPLITS:
                timing[f"{system} {s}"] = steps.seconds[f"{system} {s}"]
        results["variants"][variant] = {
            "source_lang": c.source_lang, "target_lang": c.target_lang, "documents": int(len(index.docids)),
            "parallel_pairs": n_pairs, "splits": splits, "seconds": timing, "stopword_mass": mass,
            "peak_rss_mb": peak_rss_mb(), "load_average": [round(x, 2) for x in os.getloadavg()],
        }
        say(f"{name} ({variant}) done; peak RSS {peak_rss_mb():.0f} MiB", quiet)
    return results if results["variants"] else None


def stopword_mass(table, index, queries: dict[str, str], analyzer) -> dict:
    """How much of IBM Model 1's p(. | f) sits on the target stoplist (the ``pipeline.STOPWORDS_TOP``
    most frequent index terms), over the query word occurrences PSQ translates (query stopwords
    removed, words the table knows): mean and quartiles, as fractions."""
    import numpy as np

    from clirkit import pipeline
    from clirkit.index import most_frequent_terms

    stop = np.isin(table.target_vocab, most_frequent_terms(index, pipeline.STOPWORDS_TOP))
    mass = table.probs @ stop.astype(np.float64)
    rows = [table.source_index[t] for tokens in analyzer.tokenize_many(list(queries.values()))
            for t in tokens if t in table]
    m = mass[np.asarray(rows, dtype=np.int64)]
    q1, q2, q3 = np.percentile(m, [25, 50, 75])
    return {"top": pipeline.STOPWORDS_TOP, "occurrences": len(m), "mean": float(m.mean()),
            "q1": float(q1), "median": float(q2), "q3": float(q3)}


def evaluate_split(runs: dict, qrels, n_queries: int) -> dict:
    """Mean measures per system and the p-value of each system against DT, per measure."""
    from clirkit.metrics import evaluate
    from clirkit.significance import randomization_test

    evals = {name: evaluate(run, qrels, MEASURES) for name, run in runs.items()}
    base = evals["DT"]
    out = {"queries": n_queries, "judged_queries": base.n_queries, "systems": {}}
    for name, ev in evals.items():
        entry = {"mean": ev.mean()}
        if name != "DT":
            entry["p_vs_DT"] = {m: randomization_test(base.column(m), ev.column(m), seed=SEED).p_value
                                for m in ev.measures}
        out["systems"][name] = entry
    return out


# --------------------------------------------------------------------------- report

def markdown(results: dict) -> str:
    """The Markdown report of one collection (all its variants)."""
    name = results["collection"]
    lines = [f"## {name}", ""]
    for variant, r in results["variants"].items():
        lines += [f"### {name} ({variant}): {r['source_lang']} queries -> {r['target_lang']} documents, "
                  f"{r['documents']:,} documents, table from {r['parallel_pairs']:,} sentence pairs", ""]
        head = ["split", "system"] + [LABELS.get(m, m) for m in MEASURES] + ["queries"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(MEASURES) + 1)]
        for split in SPLITS:
            s = r["splits"][split]
            for system, e in s["systems"].items():
                cells = []
                for m in MEASURES:
                    mark = ""
                    if "p_vs_DT" in e and e["p_vs_DT"][m] < 0.05:
                        mark = "*"
                    cells.append(f"{e['mean'][m]:.4f}{mark}")
                lines.append(f"| {split} | {system} | " + " | ".join(cells) + f" | {s['judged_queries']} |")
            for system, e in s["systems"].items():
                if "p_vs_DT" in e:
                    cells = [f"{e['p_vs_DT'][m]:.4f}" for m in MEASURES]
                    lines.append(f"| {split} | p ({system} vs DT) | " + " | ".join(cells) + " | |")
        lines += ["", "`*`: differs from DT at p < 0.05 (two-sided paired randomization test, 10,000 "
                  f"sign flips, seed {SEED}); p rows give the p-values.", ""]
        t = r["seconds"]
        systems = [k for k in t if " " not in k and k not in ("tokenize", "IBM1", "index")]
        lines += ["| step | wall time (s) |", "|---|---:|",
                  f"| tokenize parallel corpus | {t['tokenize']:.1f} |",
                  f"| IBM Model 1 ({ITERATIONS} iterations) | {t['IBM1']:.1f} |",
                  f"| index documents | {t['index']:.1f} |"]
        for system in systems:
            lines.append(f"| {system} (test {t[system + ' test']:.1f} + dev {t[system + ' dev']:.1f}) "
                         f"| {t[system]:.1f} |")
        m = r.get("stopword_mass")
        if m:
            lines += ["", f"IBM Model 1 mass on the {m.get('top', 100)} most frequent index terms, over the "
                      f"{m['occurrences']:,} translated test-query word occurrences: mean {m['mean']:.3f}, "
                      f"quartiles {m['q1']:.3f} / {m['median']:.3f} / {m['q3']:.3f}."]
        load = r.get("load_average")
        load = (f"; machine load average (1, 5, 15 min) at the end: {', '.join(map(str, load))}"
                if load else "")
        lines += ["", f"Peak RSS of the process: {r['peak_rss_mb']:.0f} MiB{load}.", ""]
    return "\n".join(lines)


def write_summary(out: Path) -> None:
    """``out/results.md``: the tables of every collection variant with results under ``out``."""
    from clirkit import datasets

    parts = []
    for name in datasets.names():
        merged = {"collection": name, "variants": {}}
        for variant in datasets.variants(name):
            path = out / name / variant / "results.json"
            if path.is_file():
                one = json.loads(path.read_text(encoding="utf-8"))
                merged["variants"][variant] = one["variants"][variant]
        if merged["variants"]:
            parts.append(markdown(merged))
    (out / "results.md").write_text("# DT and PSQ baselines\n\n" + "\n".join(parts), encoding="utf-8")


# --------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collections", nargs="+", default=DEFAULT_COLLECTIONS, metavar="NAME[:VARIANT]",
                    help="collections to run, e.g. nave-en-es:strict (no variant: all of them); "
                         f"default: {' '.join(DEFAULT_COLLECTIONS)}")
    ap.add_argument("--out", default=str(HERE / "results"), help="folder for the runs and tables")
    ap.add_argument("--no-target-stopwords", action="store_true",
                    help="also run PSQ without removing the most frequent index terms from its translation "
                         "options (system PSQ-noTSW)")
    ap.add_argument("--jobs", type=int, default=2, help="tokenization processes")
    ap.add_argument("--in-process", action="store_true", help="run all collections in this process")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = ap.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    groups = parse_specs(args.collections)
    if not args.in_process and sum(len(v) for _, v in groups) > 1:
        status = 0
        for name, variant in [(n, v) for n, vs in groups for v in vs]:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--in-process", "--out", str(out),
                   "--jobs", str(args.jobs), "--collections", f"{name}:{variant}"]
            cmd += ["--no-target-stopwords"] * args.no_target_stopwords + ["--quiet"] * args.quiet
            status = max(status, subprocess.call(cmd))
        write_summary(out)
        say(f"wrote {out / 'results.md'} (all collections) and the runs under {out}/", args.quiet)
        return status

    for name, variants in groups:
        results = run_collection(name, variants, out, jobs=args.jobs, no_tsw=args.no_target_stopwords,
                                 quiet=args.quiet)
        if results is None:
            continue
        for variant, r in results["variants"].items():
            one = {"collection": name, "variants": {variant: r}}
            folder = out / name / variant
            (folder / "results.json").write_text(json.dumps(one, indent=1, sort_keys=True) + "\n",
                                                 encoding="utf-8")
            (folder / "results.md").write_text(markdown(one), encoding="utf-8")
        if not args.quiet:
            print(markdown(results), file=sys.stderr)
    write_summary(out)
    say(f"wrote {out / 'results.md'} (all collections) and the runs under {out}/",
        args.quiet or args.in_process)
    return 0


if __name__ == "__main__":
    sys.exit(main())
