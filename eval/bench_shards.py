"""Benchmark: sharded BM25 search (clirkit.retrieval.shards) with 1 worker vs 2, against the unsharded index.

A synthetic Zipf corpus (the generator of eval/bench_bm25.py: ~150 tokens per document, queries of ~5 tokens)
is indexed once and saved twice: as one index and as ``--shards`` shards (``clirkit index --shards``'s
files). Each configuration then runs in its own process: it opens the index and ranks the top 1,000 of
every query (k1=1.2, b=0.75, lucene idf), ``--repeat`` times. Reported per configuration:

- open + first search: the manifest or index read, the workers opening their shards (read, checked,
  posting weights computed) and the first search: what one ``clirkit search`` pays;
- search: the best of the later searches (each process keeps the shards it opened; a loky task may land on
  the worker holding the other shard, which then opens it: the spread is reported);
- the CPU seconds of that search, summed over this process and its worker processes: on a loaded machine
  (a load average above the 2 cores) the wall-clock speed-up cannot show, but equal CPU seconds for 1 and 2
  workers say the parallel search does no extra work;
- whether the run file is byte-identical to the unsharded one.

The row "bound" is what this machine allows: two independent processes, each holding one shard (plain
:class:`~clirkit.retrieval.bm25.BM25`, no joblib, no merge), searching at the same time; its search time is the slower
of the two, and its speed-up the best a 2-worker sharded search could reach here.

The loky workers are started before the clock (their start-up, ~1 s, is reported apart). The configurations
run ``--rounds`` times, interleaved, and each reports its fastest open + first search and its fastest search
(with that round's load average of the machine, 1 minute, before and after): the 2-worker speed-up needs 2
idle cores.

    python eval/bench_shards.py --docs 1000000       # prints a Markdown table

Not a test: timings vary by machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIGS = {  # name -> (index file, jobs, backend)
    "unsharded": ("whole.npz", 1, None),
    "shards, 1 worker": ("sharded.npz", 1, "loky"),
    "shards, 2 loky workers": ("sharded.npz", 2, "loky"),
    "shards, 2 threads": ("sharded.npz", 2, "threading"),
    "shards, dask LocalCluster (2 processes)": ("sharded.npz", 2, "dask"),
}
PAIR = "bound: 2 independent processes, one shard each, BM25 only"


def build(args, folder: Path) -> dict:
    """Make the corpus, write ``whole.npz``, ``sharded.npz`` (+ shards) and ``queries.json``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_bm25 import zipf_corpus

    from clirkit.retrieval.index import Index
    from clirkit.retrieval.shards import ShardedIndex

    t0 = time.perf_counter()
    docids, docs, queries = zipf_corpus(args.docs, args.vocab, args.queries)
    made = time.perf_counter() - t0
    t0 = time.perf_counter()
    index = Index.from_tokens(docids, docs)
    del docs
    indexed = time.perf_counter() - t0
    index.save(folder / "whole.npz")
    t0 = time.perf_counter()
    ShardedIndex.split(index, args.shards).save(folder / "sharded.npz")
    sharded = time.perf_counter() - t0
    (folder / "queries.json").write_text(json.dumps(queries))
    return {"corpus_s": made, "index_s": indexed, "shard_and_save_s": sharded, **index.stats()}


def worker(args, folder: Path, name: str) -> dict:
    """Open the index of configuration ``name`` and search all queries ``--repeat`` times; write the run."""
    from clirkit.formats import write_run
    from clirkit.retrieval.query import StructuredQueries
    from clirkit.retrieval.shards import load_index

    file, jobs, backend = CONFIGS[name]
    queries = json.loads((folder / "queries.json").read_text())
    qids = [f"q{i}" for i in range(len(queries))]
    cluster = client = None
    start_workers = 0.0
    if backend == "dask":
        from dask.distributed import Client, LocalCluster

        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        client.run(lambda: __import__("clirkit.retrieval.shardsearch"))
        start_workers = time.perf_counter() - t0
    elif backend == "loky" and jobs > 1:
        from joblib import Parallel, delayed

        t0 = time.perf_counter()
        Parallel(n_jobs=jobs, backend="loky")(delayed(__import__)("clirkit.retrieval.shards") for _ in range(2 * jobs))
        start_workers = time.perf_counter() - t0
    load_before = os.getloadavg()[0]
    times, cpu = [], []
    t0, c0 = time.perf_counter(), _cpu_seconds()
    index = load_index(folder / file, jobs=jobs, backend=backend or "loky", scheduler=client)
    sq = StructuredQueries.from_tokens(qids, queries, index.vocabulary)
    searcher = index.bm25()
    for _ in range(args.repeat + 1):
        run = searcher.search(sq, depth=1000)
        times.append(time.perf_counter() - t0)
        cpu.append(_cpu_seconds() - c0)
        t0, c0 = time.perf_counter(), _cpu_seconds()
    out = folder / f"run-{list(CONFIGS).index(name)}.txt"
    write_run(run, out)
    if client is not None:
        client.close()
        cluster.close()
    best = 1 + min(range(args.repeat), key=lambda i: times[1 + i])
    return {
        "config": name,
        "open_search_s": times[0],
        "search_s": times[best],
        "search_max_s": max(times[1:]),
        "open_search_cpu_s": cpu[0],
        "search_cpu_s": cpu[best],
        "start_workers_s": start_workers,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "run": out.name,
        "rows": len(run),
    }


def one_shard(args, folder: Path, number: int) -> dict:
    """Search one shard file with plain BM25 (warmed up), starting with the other process (``pair``)."""
    from clirkit.retrieval.bm25 import BM25
    from clirkit.retrieval.index import Index
    from clirkit.retrieval.query import StructuredQueries
    from clirkit.retrieval.shards import ShardedIndex

    queries = json.loads((folder / "queries.json").read_text())
    index = Index.load(folder / ShardedIndex.load(folder / "sharded.npz").records[number]["file"])
    sq = StructuredQueries.from_tokens([f"q{i}" for i in range(len(queries))], queries, index.vocabulary)
    bm25 = BM25(index)
    bm25.search(sq, depth=1000)
    (folder / f"ready-{number}").touch()
    while not all((folder / f"ready-{i}").exists() for i in range(2)):
        time.sleep(0.01)
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        bm25.search(sq, depth=1000)
        times.append(time.perf_counter() - t0)
    return {"times": times}


def pair(args, folder: Path) -> dict:
    """The ``PAIR`` row: shards 0 and 1 searched by two processes at once."""
    for i in range(2):
        (folder / f"ready-{i}").unlink(missing_ok=True)
    load_before = os.getloadavg()[0]
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", f"shard-{i}", "--folder", str(folder), "--repeat", str(args.repeat)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    times = [json.loads(p.communicate()[0].strip().splitlines()[-1])["times"] for p in procs]
    slower = [max(a, b) for a, b in zip(*times)]
    return {
        "config": PAIR,
        "open_search_s": float("nan"),
        "open_search_cpu_s": float("nan"),
        "search_s": min(slower),
        "search_max_s": max(slower),
        "search_cpu_s": float("nan"),
        "start_workers_s": 0.0,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "run": None,
        "rows": 0,
    }


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process and its live child processes (loky or dask workers)."""
    import psutil

    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--vocab", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="searches after the first (the best is reported)")
    ap.add_argument(
        "--rounds", type=int, default=1, help="runs of each configuration, interleaved (the best is reported)"
    )
    ap.add_argument("--configs", nargs="+", default=[*CONFIGS, PAIR], choices=[*CONFIGS, PAIR])
    ap.add_argument(
        "--folder",
        help="work folder, kept, whose corpus and indexes are reused by a later run with the "
        "same --docs, --vocab, --queries and --shards (default: a temporary folder)",
    )
    ap.add_argument("--json", help="write all results here")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if PAIR in args.configs and args.shards != 2:
        sys.exit(f"the row {PAIR!r} needs --shards 2")
    if args.worker:
        folder = Path(args.folder)
        if args.worker == "build":
            result = build(args, folder)
        elif args.worker.startswith("shard-"):
            result = one_shard(args, folder, int(args.worker[6:]))
        elif args.worker == PAIR:
            result = pair(args, folder)
        else:
            result = worker(args, folder, args.worker)
        print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.folder or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        made = {"docs": args.docs, "vocab": args.vocab, "queries": args.queries, "shards": args.shards}
        passthrough = [
            "--docs",
            str(args.docs),
            "--vocab",
            str(args.vocab),
            "--queries",
            str(args.queries),
            "--shards",
            str(args.shards),
            "--repeat",
            str(args.repeat),
            "--folder",
            str(folder),
        ]

        def sub(what: str) -> dict:
            out = subprocess.run(
                [sys.executable, __file__, "--worker", what, *passthrough], capture_output=True, text=True
            )
            if out.returncode:
                sys.exit(f"{what} failed:\n{out.stderr}")
            return json.loads(out.stdout.strip().splitlines()[-1])

        done = folder / "built.json"
        if done.exists() and json.loads(done.read_text())["made"] == made:
            built = json.loads(done.read_text())["built"]
        else:
            built = sub("build")
            done.write_text(json.dumps({"made": made, "built": built}))
        print(
            f"# {built['n_docs']} documents, {built['n_postings']} postings, {built['n_terms']} terms; corpus "
            f"{built['corpus_s']:.0f} s, index {built['index_s']:.0f} s, split into {args.shards} shards and saved "
            f"{built['shard_and_save_s']:.0f} s",
            file=sys.stderr,
        )
        rounds: dict[str, list[dict]] = {name: [] for name in args.configs}
        reference = None
        for _ in range(args.rounds):
            for name in args.configs:
                r = sub(name)
                if r["run"] is not None:
                    reference = (folder / r["run"]).read_bytes() if reference is None else reference
                    r["identical"] = (folder / r["run"]).read_bytes() == reference
                rounds[name].append(r)
                print(
                    f"# {name}: open+search {r['open_search_s']:.2f} s, search {r['search_s']:.2f} s "
                    f"(load {r['load_before']:.2f})",
                    file=sys.stderr,
                )
        results = []
        for runs in rounds.values():
            cold = min(runs, key=lambda r: r["open_search_s"])
            results.append(
                {
                    **min(runs, key=lambda r: r["search_s"]),
                    "open_search_s": cold["open_search_s"],
                    "open_search_cpu_s": cold["open_search_cpu_s"],
                    "identical": all(r.get("identical") for r in runs),
                    "rounds": runs,
                }
            )
    print(table(built, results, args))
    if args.json:
        Path(args.json).write_text(json.dumps({"build": built, "results": results}, indent=1))


def _num(x: float, fmt: str, suffix: str = "") -> str:
    """``x`` formatted (then ``suffix``), or "-" for NaN: a value the row does not measure."""
    return "-" if x != x else format(x, fmt) + suffix


def table(built: dict, results: list[dict], args) -> str:
    one = next((r for r in results if r["config"] == "shards, 1 worker"), None)
    lines = [
        f"Zipf corpus: {built['n_docs']:,} documents, {built['n_postings']:,} postings, {args.queries:,} "
        f"queries, top 1,000, {args.shards} shards; run identical to the first row's.",
        "",
        "| configuration | open + first search s | search s (best; worst) | speed-up vs 1 worker "
        "(open+search; search) | CPU s (open+search; search) | identical run | workers start s | "
        "load avg before; after |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for r in results:
        cold = _num(one["open_search_s"] / r["open_search_s"], ".2f", "x") if one else ""
        speed = f"{cold}; {one['search_s'] / r['search_s']:.2f}x" if one else ""
        lines.append(
            f"| {r['config']} | {_num(r['open_search_s'], '.2f')} | {r['search_s']:.2f}; "
            f"{r['search_max_s']:.2f} | {speed} | {_num(r['open_search_cpu_s'], '.1f')}; "
            f"{_num(r['search_cpu_s'], '.1f')} | "
            f"{'-' if r['run'] is None else 'yes' if r['identical'] else 'NO'} | {r['start_workers_s']:.1f} | "
            f"{r['load_before']:.2f}; {r['load_after']:.2f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    os.environ.setdefault("TQDM_DISABLE", "1")
    main()
