"""Benchmark: IBM Model 1 training against eflomal, tokenization, and PSQ vs DT retrieval, on ``nave-en-es``.

1. Tokenization of the collection's parallel corpus (English WEB <-> Spanish RV1909 verse pairs, ~31k
   pairs) by clirkit's Analyzer (sacremoses), in one process and in ``--jobs`` processes (the default of
   ``clirkit ttable train``); the two must give the same tokens. Each is timed from fresh analyzers; the
   parallel one includes starting the worker processes, as a user's first call does.
2. IBM Model 1, ``--iterations`` (5) iterations, p(Spanish word | English word), from the same token lists,
   against eflomal (``pip install eflomal``, a C Gibbs sampler for IBM1/HMM/fertility models) restricted to
   the like-for-like part: ``-m 1`` (IBM Model 1 only), the same number of iterations (``-1 N -2 0 -3 0``),
   one sampler (``-n 1``) and one thread (``OMP_NUM_THREADS=1``; clirkit's EM is single-threaded too), the
   forward direction only (``-f``: each Spanish token aligned to an English token or NULL, the direction of
   clirkit's table). Compared:

   - *setup*: clirkit's layout of the token lists as incidence arrays (a training run with 0 iterations)
     vs eflomal's preparation of its input (word ids and files, by its own ``read_text``/``write_text``,
     from the same token lists) plus the binary's "Read texts";
   - *EM*: clirkit's iterations (a full run minus the setup run) vs eflomal's "Aligning with model 1 ...
     Done" (its initial counts and the sampling iterations), both as the best of ``--repeats``;
   - *total*: clirkit's full training vs eflomal's preparation plus the binary's wall time (which also
     holds its start, a final argmax pass and writing the links; clirkit's total holds making the table),
     and the same in CPU seconds (less sensitive to the machine's load than wall time).

   Peak memory: clirkit's training is the Linux VmHWM increase during training (reset just before);
   eflomal's is the binary's maximum RSS (``wait4`` from a small helper process that starts it).
3. Retrieval of the test queries over the Spanish verse index (BM25 k1=1.2, b=0.75, lucene idf, top
   1,000): DT (1-best word translation from the same table), PSQ (L=0.005, C=0.95), and PSQ with the
   ``--stopwords-top`` most frequent index terms dropped from the options (default 100, ``clirkit psq
   --target-stopwords-top 100``: the PSQ system's default until it became 0, off, when the defaults were
   measured across collections; with 0 the third system is the second). "build" is query text ->
   structured queries, "search" is BM25 scoring and top-k; best of ``--repeats``. MAP and P@10 are a
   sanity check.

    pip install '.[bench]'                    # eflomal
    python eval/bench_ibm1.py                 # prints Markdown tables
    python eval/bench_ibm1.py --json out.json --variant strict

Not a test: timings depend on the machine and its load (the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

from clirkit.systems import STOPWORDS_TOP  # PSQ's default target stoplist


def _vm(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def bench_tokenize(english: list[str], spanish: list[str], jobs: int) -> tuple[dict, list, list]:
    """Seconds to tokenize both sides with 1 and ``jobs`` processes (fresh analyzers), and the tokens."""
    from clirkit.analysis import Analyzer

    out = {}
    tokens = {}
    for n in (1, jobs):
        t0 = time.perf_counter()
        en = Analyzer("en").tokenize_many(english, jobs=n)
        es = Analyzer("es").tokenize_many(spanish, jobs=n)
        out[f"tokenize_jobs{n}_s"] = time.perf_counter() - t0
        tokens[n] = (en, es)
    out["tokenize_same_tokens"] = tokens[1] == tokens[jobs]
    return out, *tokens[1]


def bench_clirkit(en: list, es: list, iterations: int, repeats: int) -> tuple[dict, object]:
    """clirkit's setup, EM and total seconds (best of ``repeats``), peak RSS growth, and the table."""
    from clirkit.translation import train_ibm1

    rss0 = _vm("VmRSS")
    _reset_peak()
    setup_times, train_times, train_cpu = [], [], []
    for _ in range(repeats):  # best of each, so that their difference (the EM iterations) is not noise
        t0 = time.perf_counter()
        train_ibm1(en, es, iterations=0)  # the one-time layout alone
        setup_times.append(time.perf_counter() - t0)
        t0, c0 = time.perf_counter(), time.process_time()
        table = train_ibm1(en, es, iterations=iterations)
        train_times.append(time.perf_counter() - t0)
        train_cpu.append(time.process_time() - c0)
    peak = _vm("VmHWM")
    out = {
        "clirkit_setup_s": min(setup_times),
        "clirkit_train_s": min(train_times),
        "clirkit_cpu_s": min(train_cpu),
        "clirkit_peak_rss_mb": round((peak - rss0) / 2**20, 1) if peak and rss0 else None,
        "n_source": table.n_source,
        "n_target": table.n_target,
        "table_entries": table.nnz,
        "incidences": table.params["n_incidences"],
    }
    out["clirkit_em_s"] = out["clirkit_train_s"] - out["clirkit_setup_s"]
    return out, table


# Runs the eflomal binary and prints its wall seconds, maximum RSS (KB) and CPU seconds: from this small process, as the
# RSS a child of the benchmark had when it started the binary would count in the binary's maximum.
_SPAWN = """
import os, subprocess, sys, time
t0 = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(proc.pid, 0)
wall = time.perf_counter() - t0
proc.returncode = os.waitstatus_to_exitcode(status)
print(wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
sys.exit(proc.returncode)
"""


def bench_eflomal(en: list, es: list, iterations: int, repeats: int) -> dict:
    """eflomal (model 1, one sampler, one thread, forward links) on the same token lists: preparation,
    the binary's phases and wall time (best of ``repeats``), its maximum RSS."""
    try:
        import eflomal
        from eflomal.cython import read_text, write_text
    except ImportError:
        return {}
    from importlib.metadata import version

    binary = os.path.join(os.path.dirname(eflomal.__file__), "bin", "eflomal")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = {"eflomal_version": version("eflomal")}
    with tempfile.TemporaryDirectory() as tmp:
        src, tgt, links, log = (os.path.join(tmp, name) for name in ("src", "tgt", "links", "log"))
        t0, c0 = time.perf_counter(), time.process_time()
        for path, sentences in ((src, en), (tgt, es)):
            ids, index = read_text([" ".join(s) for s in sentences], False, 0, 0)
            with open(path, "wb") as fh:
                write_text(fh, tuple(ids), len(index))
        out["eflomal_prepare_s"] = time.perf_counter() - t0
        prepare_cpu = time.process_time() - c0
        runs = []
        argv = [
            binary,
            "-m",
            "1",
            "-n",
            "1",
            "-1",
            str(iterations),
            "-2",
            "0",
            "-3",
            "0",
            "-s",
            src,
            "-t",
            tgt,
            "-f",
            links,
        ]
        for _ in range(repeats):
            with open(log, "w") as err:
                helper = subprocess.run(
                    [sys.executable, "-c", _SPAWN, *argv], stderr=err, env=env, stdout=subprocess.PIPE, text=True
                )
            text = open(log).read()
            if helper.returncode:
                raise SystemExit(f"eflomal failed ({helper.returncode}):\n{text}")
            wall, maxrss_kb, cpu = helper.stdout.split()
            phase = re.search(r"Aligning with model 1 .*\nDone: ([0-9.]+) s", text)
            read = re.search(r"Read texts .*: ([0-9.]+) s", text)
            runs.append((float(phase.group(1)), float(wall), float(read.group(1)), int(maxrss_kb) / 1024, float(cpu)))
        out["eflomal_em_s"] = min(r[0] for r in runs)
        out["eflomal_binary_s"] = min(r[1] for r in runs)
        out["eflomal_read_s"] = min(r[2] for r in runs)
        out["eflomal_peak_rss_mb"] = round(max(r[3] for r in runs), 1)
        out["eflomal_cpu_s"] = prepare_cpu + min(r[4] for r in runs)
    out["eflomal_setup_s"] = out["eflomal_prepare_s"] + out["eflomal_read_s"]
    out["eflomal_total_s"] = out["eflomal_prepare_s"] + out["eflomal_binary_s"]
    return out


def bench_retrieval(c, table, args) -> tuple[dict, list[str]]:
    """DT, PSQ and PSQ without the most frequent index terms: build and search seconds, MAP, P@10."""
    from clirkit.analysis import Analyzer
    from clirkit.dt import dt_queries
    from clirkit.metrics import evaluate
    from clirkit.psq import prepare_table, psq_queries
    from clirkit.retrieval.bm25 import BM25
    from clirkit.retrieval.index import Index, most_frequent_terms

    docids, texts = c.documents()
    index = Index.build(zip(docids, texts), Analyzer("es"), jobs=args.jobs)
    queries = c.queries(args.split)
    qrels = c.qrels(args.split)
    qids, qtexts = list(queries), list(queries.values())
    source = Analyzer("en")
    bm25 = BM25(index)
    bm25.posting_weights()  # precomputed once per index in both cases
    stop = most_frequent_terms(index, args.stopwords_top)

    def dt():
        return dt_queries(qids, source.tokenize_many(qtexts), table, index.vocabulary)

    measured = {"min_prob": 0.005}  # PSQ's L when this benchmark's numbers were measured (eval/README.md)

    def psq():
        return psq_queries(qids, source.tokenize_many(qtexts), prepare_table(table, **measured), index.vocabulary)

    def psq_stop():
        return psq_queries(
            qids,
            source.tokenize_many(qtexts),
            prepare_table(table, target_stopwords=stop, **measured),
            index.vocabulary,
        )

    out: dict = {"queries": len(qids)}
    systems = (
        ("dt", "DT (1-best)", dt),
        ("psq", "PSQ", psq),
        (
            "psq_stop",
            f"PSQ, top {args.stopwords_top} index terms dropped from options"
            f"{' (the PSQ system default)' if args.stopwords_top == STOPWORDS_TOP else ''}",
            psq_stop,
        ),
    )
    rows = []
    for name, label, build in systems:
        build_times, search_times = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            sq = build()
            t1 = time.perf_counter()
            run = bm25.search(sq, tag=name)
            search_times.append(time.perf_counter() - t1)
            build_times.append(t1 - t0)
        out[f"{name}_build_s"], out[f"{name}_search_s"] = min(build_times), min(search_times)
        out[f"{name}_s"] = out[f"{name}_build_s"] + out[f"{name}_search_s"]
        means = evaluate(run, qrels, ["AP", "P@10"]).mean()
        out[f"{name}_map"], out[f"{name}_p10"] = means["AP"], means["P@10"]
        rows.append(
            f"| {label} | {out[name + '_build_s']:.3f} | {out[name + '_search_s']:.3f} | "
            f"{out[name + '_s']:.3f} | {out[name + '_search_s'] / out['dt_search_s']:.2f}x | "
            f"{out[name + '_s'] / out['dt_s']:.2f}x | "
            f"{out[name + '_map']:.4f} | {out[name + '_p10']:.4f} |"
        )
    return out, rows


def main(argv: list[str] | None = None) -> int:
    from clirkit.cli.params import tokenize_jobs

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="standard", choices=("standard", "strict"))
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--split", default="test", help="query split for the retrieval timing")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--jobs",
        type=int,
        default=tokenize_jobs(),
        help="tokenization processes of the parallel measurement (default: ttable train's)",
    )
    ap.add_argument(
        "--stopwords-top",
        type=int,
        default=100,
        help="for the third system: drop the N most frequent index terms from PSQ's options "
        f"(the PSQ system's default is {STOPWORDS_TOP})",
    )
    ap.add_argument("--no-retrieval", action="store_true", help="only tokenization and IBM Model 1")
    ap.add_argument("--json", default=None, help="also write the numbers as JSON here")
    args = ap.parse_args(argv)

    from clirkit import datasets

    out: dict = {
        "collection": "nave-en-es",
        "variant": args.variant,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_before": _load(),
        "iterations": args.iterations,
        "jobs": args.jobs,
    }
    c = datasets.load("nave-en-es", variant=args.variant)
    english, spanish = c.parallel()
    out["pairs"] = len(english)

    numbers, en, es = bench_tokenize(english, spanish, args.jobs)
    out.update(numbers)
    keep = [k for k in range(len(en)) if en[k] and es[k]]  # eflomal gets the pairs clirkit trains on
    en, es = [en[k] for k in keep], [es[k] for k in keep]
    out["positions"] = sum(len(t) * (len(s) + 1) for s, t in zip(en, es))  # (target token, source word or NULL)
    numbers, table = bench_clirkit(en, es, args.iterations, args.repeats)
    out.update(numbers)
    out.update(bench_eflomal(en, es, args.iterations, args.repeats))
    out["load_after"] = _load()

    n = args.iterations
    print(
        f"IBM Model 1 on {len(en):,} verse pairs (en -> es), {n} iterations, best of {args.repeats}; "
        f"load average {out['load_before']} before, {out['load_after']} after\n"
    )
    print(
        f"| tokenization (sacremoses), both sides | seconds | speed-up |\n|---|---:|---:|\n"
        f"| 1 process | {out['tokenize_jobs1_s']:.2f} | 1.00x |\n"
        f"| {args.jobs} processes (same tokens: {out['tokenize_same_tokens']}) | "
        f"{out[f'tokenize_jobs{args.jobs}_s']:.2f} | "
        f"{out['tokenize_jobs1_s'] / out[f'tokenize_jobs{args.jobs}_s']:.2f}x |\n"
    )
    if "eflomal_em_s" in out:
        out["clirkit_total_s"] = out["clirkit_train_s"]
        ratio = {k: out[f"clirkit_{k}_s"] / out[f"eflomal_{k}_s"] for k in ("setup", "em", "total")}
        out.update({f"ratio_{k}": v for k, v in ratio.items()})
        print(
            f"| IBM Model 1 step | clirkit s | eflomal {out['eflomal_version']} s | clirkit / eflomal |\n"
            f"|---|---:|---:|---:|\n"
            f"| setup (clirkit: {out['incidences']:,} incidences; eflomal: ids, files, read) | "
            f"{out['clirkit_setup_s']:.2f} | {out['eflomal_setup_s']:.2f} | {ratio['setup']:.2f} |\n"
            f"| EM, {n} iterations (eflomal: model-1 sampling over {out['positions']:,} positions) | "
            f"{out['clirkit_em_s']:.2f} | {out['eflomal_em_s']:.2f} | {ratio['em']:.2f} |\n"
            f"| per iteration | {out['clirkit_em_s'] / n:.3f} | {out['eflomal_em_s'] / n:.3f} | "
            f"{ratio['em']:.2f} |\n"
            f"| total from token lists | {out['clirkit_train_s']:.2f} | {out['eflomal_total_s']:.2f} | "
            f"{ratio['total']:.2f} |\n"
            f"| total CPU seconds (user + sys) | {out['clirkit_cpu_s']:.2f} | {out['eflomal_cpu_s']:.2f} | "
            f"{out['clirkit_cpu_s'] / out['eflomal_cpu_s']:.2f} |\n"
            f"| peak memory, MB | {out['clirkit_peak_rss_mb']} | {out['eflomal_peak_rss_mb']} | "
            f"{out['clirkit_peak_rss_mb'] / out['eflomal_peak_rss_mb']:.2f} |\n"
        )
    else:
        print(
            f"| IBM Model 1 step | clirkit s |\n|---|---:|\n| setup | {out['clirkit_setup_s']:.2f} |\n"
            f"| EM, {n} iterations | {out['clirkit_em_s']:.2f} |\n| total | {out['clirkit_train_s']:.2f} |\n\n"
            f"(eflomal is not installed: pip install eflomal)\n"
        )
    if not args.no_retrieval:
        numbers, rows = bench_retrieval(c, table, args)
        out.update(numbers)
        print(
            f"| {out['queries']} {args.split} queries | build s | search s | total s | search vs DT | "
            f"total vs DT | MAP | P@10 |\n|---|---|---|---|---|---|---|---|\n" + "\n".join(rows)
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
