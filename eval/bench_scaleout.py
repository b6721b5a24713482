"""Benchmark: scale-out (issue 39): sharded search, parallel indexing and bagging, as speed-up against 1 worker.

A synthetic collection (``--docs`` documents of 20-120 words drawn from Zipf(1.1) over 200,000 words ``w0``,
``w1``, ..., in docid order; ``--queries`` queries of 4 such words; seed 0) is written as a TSV file, as
``bench_scale.py``'s corpus is pre-tokenized (the words pass the English analyzer unchanged), and every step is
the command a user runs, in its own process, timed whole (process start, reading, writing; wall seconds and the
peak resident memory of the process, by ``/usr/bin/time``):

- index: ``clirkit index`` into one file and into ``--shards`` shards, at each number of jobs;
- search: ``clirkit search`` (BM25, top 1,000) over the one-file index (1 job) and over the shards at each number
  of jobs, with ``--backend loky`` (a run of shards per worker process) and ``threading`` (a block of queries per
  thread), each command ``--rounds`` times, interleaved, the median reported (the machine's noise is +-10% a
  command); then in one process (this script's ``--worker``): open + first search, and the best of ``--repeat``
  later searches (shards kept open by their workers: the search alone);
- bound: the machine's own scaling, J independent processes each searching the shards with 1 worker at the
  same time (their throughput over one process's): no parallel search can beat it here;
- document-side PSQ: the one-file and the sharded index translated (``psq --translate documents --save-index``)
  through a table of two translations a word (p(w_i | w_i) = .7, p(w_{i+1} | w_i) = .3), then ``clirkit psq``
  over the translated shards at each number of jobs, with each backend, and in one process as the search part
  measures it (open + first search, the search alone);
- bags: ``clirkit boost-train --collection nave-en-es --bags 4 --bag-fraction 0.5 --rounds 200`` at each number of
  jobs (real text), each ``--rounds`` times, interleaved, the median reported.
- dask: the shards searched through a local dask cluster of J worker processes (``backend = "dask"``), open +
  first search and the best later search, as the search part's worker measures them.

Each run file and model is compared with the 1-job one (byte-identical). A model of where the time goes: each
command's time at ``--docs`` and at a quarter of it gives a fixed part (the intercept: start-up, queries,
writing) and a part per million documents (the slope), so that the time at other sizes, and the best a larger
machine could do (the fixed part plus the per-document part over its workers), can be read off.

    python eval/bench_scaleout.py --docs 1000000 --queries 5000 --folder WORK   # about 30 minutes on 2 cores
    python eval/bench_scaleout.py --docs 200000 --parts search bound                  # a quick look

Not a test: timings vary by machine and by load (the load average is printed with each table).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PARTS = ("index", "search", "bound", "docpsq", "bags", "dask")


def write_corpus(folder: Path, n_docs: int, n_queries: int) -> None:
    """``docs.tsv``, ``queries.tsv`` and ``table.txt`` (Moses ``e f p`` lines) in ``folder``, unless there."""
    import numpy as np

    if (folder / "docs.tsv").exists():
        return
    rng = np.random.default_rng(0)
    vocab = 200_000
    p = 1.0 / np.arange(1, vocab + 1) ** 1.1
    cdf = np.cumsum(p / p.sum())
    words = np.array([f"w{i}" for i in range(vocab)])
    lengths = rng.integers(20, 121, n_docs)
    with open(folder / "docs.tsv", "w", encoding="utf-8") as out:
        for lo in range(0, n_docs, 50_000):
            part = lengths[lo : lo + 50_000]
            flat = words[np.minimum(np.searchsorted(cdf, rng.random(part.sum())), vocab - 1)]
            bounds = np.concatenate(([0], np.cumsum(part)))
            out.write(
                "".join(f"d{lo + i:07d}\t{' '.join(flat[bounds[i] : bounds[i + 1]])}\n" for i in range(len(part)))
            )
    flat = words[np.minimum(np.searchsorted(cdf, rng.random(4 * n_queries)), vocab - 1)]
    (folder / "queries.tsv").write_text(
        "".join(f"q{i}\t{' '.join(flat[4 * i : 4 * i + 4])}\n" for i in range(n_queries)), encoding="utf-8"
    )
    (folder / "table.txt").write_text(
        "".join(f"w{i} w{i} 0.7\nw{i + 1} w{i} 0.3\n" for i in range(vocab)), encoding="utf-8"
    )  # p(query word | document word)


def timed(command: list[str], cwd: Path) -> dict:
    """Run ``command`` in ``cwd`` under ``/usr/bin/time``: wall seconds and peak RSS (MB); exits on failure."""
    clirkit = str(Path(sys.executable).with_name("clirkit"))
    command = [clirkit if c == "clirkit" else c for c in command]
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(command)}\n{out.stderr[-2000:]}")
    wall, rss = out.stderr.strip().splitlines()[-1].split()
    return {"s": float(wall), "mb": int(rss) / 1024}


def same_files(folder: Path, a: str, b: str) -> bool:
    """Whether two outputs (a run, a model, an index) hold the same bytes; a sharded index's shards, and its
    manifest's arrays (its header names the shard files, whose names hold the manifest's)."""
    import numpy as np

    def shards(name: str) -> list[bytes]:
        return [p.read_bytes() for p in sorted(folder.glob(f"{name[:-4]}.shard-*"))]

    if not shards(a):
        return (folder / a).read_bytes() == (folder / b).read_bytes()
    with np.load(folder / a) as x, np.load(folder / b) as y:
        arrays = sorted(k for k in x.files if not k.startswith("__")) == sorted(
            k for k in y.files if not k.startswith("__")
        ) and all(np.array_equal(x[k], y[k]) for k in x.files if not k.startswith("__"))
    return arrays and shards(a) == shards(b)


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def index_part(folder: Path, jobs: list[int], shards: int, docs: str) -> list[dict]:
    rows = []
    for kind, extra in (("one file", []), (f"{shards} shards", ["--shards", str(shards)])):
        for j in jobs:
            name = f"ix-{'one' if not extra else 'sh'}-{docs}-{j}.npz"
            r = timed(["clirkit", "index", docs, "-o", name, "--lang", "en", "--jobs", str(j), "-q", *extra], folder)
            first = f"ix-{'one' if not extra else 'sh'}-{docs}-{jobs[0]}.npz"
            rows.append(
                {"part": "index", "what": kind, "docs": docs, "jobs": j, **r, "same": same_files(folder, first, name)}
            )
    return rows


def configs(one: str, sharded: str, jobs: list[int], stem: str) -> list[tuple]:
    """The searches to time: ``(what, index, jobs, backend, run file, options)`` for the one-file index ``one``
    (1 job), then the sharded index ``sharded`` at each number of ``jobs`` with loky processes and with threads."""
    chosen = [("one file", one, 1, "loky")] + [
        (what, sharded, j, backend)
        for what, backend in (("shards", "loky"), ("shards, threads", "threading"))
        for j in jobs
    ]
    return [
        (what, index, j, backend, f"{stem}-{what.replace(' ', '').replace(',', '-')}-{j}.txt")
        + (["--jobs", str(j), "--backend", backend, "-q"],)
        for what, index, j, backend in chosen
    ]


def in_one_process(folder: Path, index: str, jobs: int, repeat: int, backend: str, system: str) -> dict:
    """The times of :func:`worker` (open + first search, the best later search) in a process of its own."""
    command = [sys.executable, __file__, "--worker", index, str(jobs), str(repeat), backend, system]
    return json.loads(subprocess.run(command, cwd=folder, capture_output=True, text=True, check=True).stdout)


def timed_rounds(commands: list[list[str]], cwd: Path, rounds: int) -> list[dict]:
    """Each of ``commands`` run ``rounds`` times by :func:`timed`, interleaved (every command once, then again), so
    that the machine's drift falls on all of them alike: the median wall seconds, every time (``all_s``), the
    largest peak RSS."""
    import statistics

    times: list[list[float]] = [[] for _ in commands]
    mb = [0.0] * len(commands)
    for _ in range(rounds):
        for i, command in enumerate(commands):
            r = timed(command, cwd)
            times[i].append(r["s"])
            mb[i] = max(mb[i], r["mb"])
    return [{"s": statistics.median(t), "all_s": t, "mb": m} for t, m in zip(times, mb)]


def search_part(folder: Path, jobs: list[int], docs: str, repeat: int, rounds: int) -> list[dict]:
    rows = []
    chosen = configs(f"ix-one-{docs}-{jobs[0]}.npz", f"ix-sh-{docs}-{jobs[0]}.npz", jobs, f"run-{docs}")
    commands = [
        ["clirkit", "search", "--index", index, "--queries", "queries.tsv", "-o", run, *options]
        for _, index, _, _, run, options in chosen
    ]
    for (what, index, j, backend, run, _), r in zip(chosen, timed_rounds(commands, folder, rounds)):
        inside = in_one_process(folder, index, j, repeat, backend, "bm25")
        rows.append(
            {
                "part": "search",
                "what": what,
                "docs": docs,
                "jobs": j,
                **r,
                **inside,
                "same": same_files(folder, f"run-{docs}-onefile-1.txt", run),
            }
        )
    return rows


def bound_part(folder: Path, jobs: list[int], docs: str, repeat: int) -> list[dict]:
    """J processes at once, each searching the shards with 1 worker: the best search of the slowest."""
    rows = []
    for j in jobs:
        procs = [
            subprocess.Popen(
                [sys.executable, __file__, "--worker", f"ix-sh-{docs}-{jobs[0]}.npz", "1", str(repeat), "loky", "bm25"],
                cwd=folder,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(j)
        ]
        searches = [json.loads(p.communicate()[0])["search_s"] for p in procs]
        rows.append(
            {
                "part": "bound",
                "what": f"{j} processes, 1 worker each",
                "docs": docs,
                "jobs": j,
                "search_s": max(searches),
            }
        )
    return rows


def docpsq_part(folder: Path, jobs: list[int], docs: str, shards: int, repeat: int, rounds: int) -> list[dict]:
    """The indexes translated into the queries' words, then PSQ over them (the whole command, then in one process:
    open + first search, and the search alone)."""
    rows = []
    if not (folder / "table.npz").exists():
        timed(
            [
                "clirkit",
                "ttable",
                "convert",
                "table.txt",
                "--format",
                "moses",
                "--source-lang",
                "en",
                "--target-lang",
                "de",
                "-o",
                "table.npz",
                "-q",
            ],
            folder,
        )
    for what, kind in (("translate one file", "one"), (f"translate {shards} shards", "sh")):
        name = f"tr-{kind}-{docs}.npz"  # the shards are translated shard by shard into as many
        r = timed(
            [
                "clirkit",
                "psq",
                "--index",
                f"ix-{kind}-{docs}-{jobs[0]}.npz",
                "--table",
                "table.npz",
                "--translate",
                "documents",
                "--save-index",
                name,
                "--jobs",
                str(jobs[-1]),
                "-q",
            ],
            folder,
        )
        rows.append({"part": "docpsq", "what": what, "docs": docs, "jobs": jobs[-1], **r})
    chosen = configs(f"tr-one-{docs}.npz", f"tr-sh-{docs}.npz", jobs, f"psq-{docs}")
    commands = [
        ["clirkit", "psq", "--index", index, "--queries", "queries.tsv", "-o", run, *options]
        for _, index, _, _, run, options in chosen
    ]
    for (what, index, j, backend, run, _), r in zip(chosen, timed_rounds(commands, folder, rounds)):
        inside = in_one_process(folder, index, j, repeat, backend, "psq")
        rows.append(
            {
                "part": "docpsq",
                "what": what,
                "docs": docs,
                "jobs": j,
                **r,
                **inside,
                "same": same_files(folder, f"psq-{docs}-onefile-1.txt", run),
            }
        )
    return rows


def bags_part(folder: Path, jobs: list[int], rounds: int) -> list[dict]:
    """``boost-train`` of 4 bags at each number of ``jobs``, interleaved ``rounds`` times (:func:`timed_rounds`: a
    command of 10-20 s varies by a second from run to run), and whether each model is the first's."""
    commands = [
        ["clirkit", "boost-train", "--collection", "nave-en-es", "--bags", "4", "--bag-fraction", "0.5"]
        + ["--rounds", "200", "--jobs", str(j), "-o", f"bags-{j}.npz", "-q"]
        for j in jobs
    ]
    return [
        {
            "part": "bags",
            "what": "4 bags, nave-en-es",
            "docs": "-",
            "jobs": j,
            **r,
            "same": same_files(folder, f"bags-{jobs[0]}.npz", f"bags-{j}.npz"),
        }
        for j, r in zip(jobs, timed_rounds(commands, folder, rounds))
    ]


def dask_part(folder: Path, jobs: list[int], docs: str, repeat: int) -> list[dict]:
    """The shards searched through a local dask cluster of J single-threaded worker processes (started before the
    clock): opening and the first search, the best later search, and whether the run is the one-file index's."""
    rows = []
    for j in jobs:
        run = f"run-{docs}-dask-{j}.txt"
        inside = json.loads(
            subprocess.run(
                [sys.executable, __file__, "--dask-worker", f"ix-sh-{docs}-{jobs[0]}.npz", str(j), str(repeat), run],
                cwd=folder,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        same = same_files(folder, f"run-{docs}-onefile-1.txt", run)
        rows.append({"part": "dask", "what": f"dask, {j} workers", "docs": docs, "jobs": j, **inside, "same": same})
    return rows


def searches(start: float, repeat: int, path: str, run: str | None = None, system: str = "bm25", **how) -> dict:
    """Open the index at ``path`` (``how``: load_index's jobs, backend, scheduler) and search ``queries.tsv`` with
    ``system`` (``bm25``: BM25Search; ``psq``: PSQ over an index translated before): the seconds from ``start`` to
    the end of the first search (its run written to ``run`` if given), and the best of ``repeat`` later searches."""
    from clirkit.formats import write_run
    from clirkit.retrieval.shards import load_index
    from clirkit.systems import PSQ, BM25Search, Resources

    topics = dict(line.rstrip("\n").split("\t", 1) for line in open("queries.tsv", encoding="utf-8"))
    system = (BM25Search() if system == "bm25" else PSQ()).fit(Resources(index=load_index(path, **how)))
    queries = system.structured_queries(topics)
    made = system.search_structured(queries)
    if run is not None:
        write_run(made, run)
    first = time.perf_counter() - start
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        system.search_structured(queries)
        best = min(best, time.perf_counter() - t)
    return {"open_first_s": first, "search_s": best}


def dask_worker(index: str, workers: int, repeat: int, run: str) -> None:
    """Print JSON as :func:`worker` does, searching ``index`` through a local dask cluster of ``workers`` worker
    processes (started before the clock), and write the first search's run to ``run``."""
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, Client(cluster) as client:
        print(json.dumps(searches(time.perf_counter(), repeat, index, run, backend="dask", scheduler=client)))


def worker(index: str, jobs: int, repeat: int, backend: str, system: str) -> None:
    """Print JSON: the seconds to open ``index`` (searched by ``jobs`` workers of ``backend``) and search the
    queries once with ``system`` (:func:`searches`; imports included), then the best later search."""
    print(json.dumps(searches(time.perf_counter(), repeat, index, system=system, jobs=jobs, backend=backend)))


def fit(rows: list[dict], small: str, large: str, n_small: int, n_large: int) -> list[dict]:
    """Per (part, what, jobs) measured at both sizes: the fixed seconds and the seconds per million documents."""
    out = []
    for r in rows:
        if r["docs"] != large:
            continue
        twin = next(
            (
                s
                for s in rows
                if s["docs"] == small
                and (s["part"], s["what"], s["jobs"]) == (r["part"], r["what"], r["jobs"])
                and "s" in s
            ),
            None,
        )
        if twin is None or "s" not in r:
            continue
        slope = (r["s"] - twin["s"]) / (n_large - n_small) * 1e6
        out.append({**r, "fixed_s": r["s"] - slope * n_large / 1e6, "per_1m_s": slope})
    return out


def table(rows: list[dict]) -> str:
    header = [
        "part",
        "configuration",
        "jobs",
        "docs",
        "s",
        "speed-up vs 1 job",
        "MB",
        "open + first search s",
        "search s",
        "search speed-up",
        "fixed s",
        "s per 1M docs",
        "identical",
    ]
    lines = [
        f"({load()})",
        "",
        "| " + " | ".join(header) + " |",
        "|---|---|" + "---:|" * (len(header) - 4) + "---|---|",
    ]
    for r in rows:
        ref = next(
            (
                x
                for x in rows
                if x["part"] == r["part"]
                and x["docs"] == r["docs"]
                and x["jobs"] == 1
                and x["what"]
                == ("shards" if r["what"] == "one file" and r["part"] in ("search", "docpsq") else r["what"])
            ),
            None,
        )
        speed = f"{ref['s'] / r['s']:.2f}x" if ref and "s" in r and "s" in ref else "-"
        sspeed = f"{ref['search_s'] / r['search_s']:.2f}x" if ref and "search_s" in ref and "search_s" in r else "-"
        cells = [
            r["part"],
            r["what"],
            r["jobs"],
            r["docs"],
            f"{r['s']:.1f}" if "s" in r else "-",
            speed,
            f"{r['mb']:.0f}" if "mb" in r else "-",
            f"{r['open_first_s']:.2f}" if "open_first_s" in r else "-",
            f"{r['search_s']:.2f}" if "search_s" in r else "-",
            sspeed,
            f"{r['fixed_s']:.1f}" if "fixed_s" in r else "-",
            f"{r['per_1m_s']:.1f}" if "per_1m_s" in r else "-",
            {True: "yes", False: "NO"}.get(r.get("same"), "-"),
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=5000)
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--jobs", type=int, nargs="+", help="numbers of jobs (default: 1, 2, 4, ... up to the cores)")
    ap.add_argument("--repeat", type=int, default=3, help="later searches in one process (the best is reported)")
    ap.add_argument(
        "--rounds", type=int, default=3, help="times each search command is run, interleaved (the median is reported)"
    )
    ap.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS)
    ap.add_argument("--no-fit", action="store_true", help="skip the quarter-size runs of the time model")
    ap.add_argument("--folder", help="work folder, kept (its corpus and indexes are reused)")
    ap.add_argument("--json", help="also write the rows here")
    ap.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--dask-worker", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), int(args.worker[2]), args.worker[3], args.worker[4])
    if args.dask_worker:
        index, workers, repeat, run = args.dask_worker
        return dask_worker(index, int(workers), int(repeat), run)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    jobs = args.jobs or [j for j in (1, 2, 4, 8, 16, 32, 64) if j <= cores]
    folder = Path(args.folder or "bench-scaleout")
    folder.mkdir(parents=True, exist_ok=True)
    write_corpus(folder, args.docs, args.queries)
    sizes = ["docs.tsv"]
    if not args.no_fit:
        quarter = folder / "docs-quarter.tsv"
        if not quarter.exists():
            with open(folder / "docs.tsv", encoding="utf-8") as src, open(quarter, "w", encoding="utf-8") as dst:
                for i, line in enumerate(src):
                    if i == args.docs // 4:
                        break
                    dst.write(line)
        sizes = ["docs-quarter.tsv", "docs.tsv"]
    rows: list[dict] = []
    for docs in sizes:
        if "index" in args.parts or not (folder / f"ix-sh-{docs}-{jobs[0]}.npz").exists():
            rows += index_part(folder, jobs, args.shards, docs)
        if "search" in args.parts:
            rows += search_part(folder, jobs, docs, args.repeat, args.rounds)
        if "bound" in args.parts and docs == "docs.tsv":
            rows += bound_part(folder, jobs, docs, args.repeat)
        if "docpsq" in args.parts:
            rows += docpsq_part(folder, jobs, docs, args.shards, args.repeat, args.rounds)
        if "dask" in args.parts and docs == "docs.tsv":
            rows += dask_part(folder, jobs, docs, args.repeat)
    if "bags" in args.parts:
        rows += bags_part(folder, jobs, args.rounds)
    if len(sizes) == 2:
        fitted = {
            id(r): f
            for r in rows
            for f in fit(rows, sizes[0], sizes[1], args.docs // 4, args.docs)
            if (f["part"], f["what"], f["jobs"], f["docs"]) == (r["part"], r["what"], r["jobs"], r["docs"])
        }
        rows = [fitted.get(id(r), r) for r in rows]
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    if not args.folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
