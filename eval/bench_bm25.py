"""Benchmark: clirkit's BM25 index and ranking against bm25s (numpy, numba) and rank-bm25.

Every (system, corpus) pair runs in its own subprocess, so each peak RSS is its
own. The corpus is made (or read and tokenized) before measuring; indexing
starts from the same token lists for every system. Index memory is the peak
RSS during indexing (Linux VmHWM, reset just before) minus the RSS before it.
Ranking is the top 1,000 of every query, all with k1=1.5, b=0.75, lucene idf,
repeated (``--repeat``, default 3): the best and the first run are reported
(clirkit's first run also expands the posting rows of very common terms), and next to the floor the median of
the runs after the first.
rank-bm25 ranks a subset of queries once; its time is extrapolated to all.
``clirkit`` is the exact float64 path, ``clirkit-float32`` the ``precision="float32"`` one, both ranked by
the compiled kernel when numba is installed (its compilation, or loading from numba's cache, is in the first
run); ``clirkit-numpy`` is the exact path ranked by numpy (``CLIRKIT_NUMBA=0``), the same run.

The memory-bandwidth floor is measured in the clirkit workers, after ranking: the time of one streaming pass
(``np.max``) over as many bytes as the postings the queries read (the sum of the query terms' document
frequencies) at 12 bytes a posting (int32 docid + float64 weight) or 8 (float32 weight), best of 5 (over a
512 MB buffer, scaled to that many bytes).

    python eval/bench_bm25.py                    # both corpora, prints a Markdown table
    python eval/bench_bm25.py --corpus bible --json out.json

Needs the `bench` extra (bm25s, numba). Not a test: timings vary by machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SYSTEMS = ("clirkit", "clirkit-float32", "clirkit-numpy", "bm25s-numpy", "bm25s-numba", "rank-bm25")
SHARED = Path(__file__).resolve().parents[2] / "shared"


def zipf_corpus(n_docs: int, vocab: int, n_queries: int, seed: int = 0):
    """Documents of ~150 tokens (Poisson) and queries of ~5 tokens (1 + Poisson(4)), Zipf(1.1) over ``vocab`` terms."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab + 1) ** 1.1
    cdf = np.cumsum(p / p.sum())
    words = np.array([f"t{i}" for i in range(vocab)], dtype=object)
    lengths = np.maximum(rng.poisson(150, n_docs), 1)
    flat = words[np.minimum(np.searchsorted(cdf, rng.random(lengths.sum())), vocab - 1)]
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    docs = [flat[bounds[i] : bounds[i + 1]].tolist() for i in range(n_docs)]
    qlen = 1 + rng.poisson(4, n_queries)
    qflat = words[np.minimum(np.searchsorted(cdf, rng.random(qlen.sum())), vocab - 1)]
    qb = np.concatenate(([0], np.cumsum(qlen)))
    queries = [qflat[qb[i] : qb[i + 1]].tolist() for i in range(n_queries)]
    return [f"d{i:07d}" for i in range(n_docs)], docs, queries


def bible_corpus(n_queries: int, seed: int = 0):
    """The Spanish RV1909 verses; queries are 5 random tokens of random verses."""
    from clirkit.analysis import Analyzer

    path = SHARED / "data" / "bible" / "spaRV1909eb.tsv"
    rows = [line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    docs = Analyzer("es").tokenize_many([t for _, t in rows])
    rng = np.random.default_rng(seed)
    queries = []
    for i in rng.choice(len(docs), n_queries, replace=True):
        toks = docs[i]
        queries.append([toks[j] for j in rng.choice(len(toks), min(5, len(toks)), replace=False)])
    return [d for d, _ in rows], docs, queries


def _rss_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def worker(system: str, corpus: str, args) -> dict:
    if corpus == "zipf":
        docids, docs, queries = zipf_corpus(args.docs, args.vocab, args.queries)
    else:
        docids, docs, queries = bible_corpus(args.queries)
    base = _rss_kb("VmRSS")
    _reset_peak()
    t0 = time.perf_counter()
    if system.startswith("clirkit"):
        if system == "clirkit-numpy":
            os.environ["CLIRKIT_NUMBA"] = "0"
        from clirkit.retrieval.bm25 import BM25
        from clirkit.retrieval.index import Index
        from clirkit.retrieval.query import StructuredQueries

        index = Index.from_tokens(docids, docs)
        model = BM25(index, k1=1.5, b=0.75, idf="lucene", precision="float32" if "float32" in system else "float64")
        model.posting_weights()  # part of indexing, as bm25s precomputes its scores at index time
    elif system.startswith("bm25s"):
        import bm25s

        model = bm25s.BM25(k1=1.5, b=0.75, method="lucene", backend=system.split("-")[1])
        model.index(docs, show_progress=False)
    else:
        from rank_bm25 import BM25Okapi

        model = BM25Okapi(docs, k1=1.5, b=0.75)
    index_s = time.perf_counter() - t0
    index_peak_mb = (_rss_kb("VmHWM") - base) / 1024

    n_rank = args.rank_bm25_queries if system == "rank-bm25" else len(queries)
    qs = queries[:n_rank]
    if system == "bm25s-numba":  # JIT compilation is excluded from the timing
        model.retrieve(qs[:2], k=1000, show_progress=False, n_threads=1)
    times = []
    for _ in range(1 if system == "rank-bm25" else args.repeat):
        t0 = time.perf_counter()
        if system.startswith("clirkit"):
            sq = StructuredQueries.from_tokens([str(i) for i in range(len(qs))], qs, index.vocabulary)
            run = model.search(sq, depth=1000)
            first = run.scores[run.qids == "0"][:10]
        elif system.startswith("bm25s"):
            _, scores = model.retrieve(qs, k=min(1000, len(docs)), show_progress=False, n_threads=1)
            first = scores[0][:10]
        else:
            for q in qs:
                scores = model.get_scores(q)
                _top = np.argsort(-scores, kind="stable")[:1000]  # timed: what a peer's caller does
            first = np.sort(model.get_scores(qs[0]))[::-1][:10]
        times.append((time.perf_counter() - t0) * len(queries) / n_rank)
    rank_s, rank_first_s, rank_median_s = min(times), times[0], float(np.median(times[1:] or times))
    floor = {}
    if system.startswith("clirkit"):
        postings = int(index.df[sq.translations.indices].sum())
        floor = {"postings_read": postings, "floor_s": bandwidth_floor(postings, 8 if "float32" in system else 12)}
        if system == "clirkit" and args.mmap:
            floor.update(mmap_measure(index, qs, run))
    return {
        **floor,
        "system": system,
        "corpus": corpus,
        "n_docs": len(docs),
        "n_queries": len(queries),
        "index_s": index_s,
        "index_peak_mb": index_peak_mb,
        "rank_s": rank_s,
        "rank_first_s": rank_first_s,
        "rank_median_s": rank_median_s,
        "rank_extrapolated_from": n_rank,
        "top10_first_query": [float(x) for x in first],
    }


MMAP_CHILD = """
import json, sys, time
import numpy as np
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.index import Index
from clirkit.retrieval.query import StructuredQueries
path, queries = sys.argv[1], json.load(open(sys.argv[2]))
t0 = time.perf_counter()
index = Index.load(path, mmap=True)
t1 = time.perf_counter()
sq = StructuredQueries.from_tokens([str(i) for i in range(len(queries))], queries, index.vocabulary)
t2 = time.perf_counter()
run = BM25(index, k1=1.5, b=0.75, idf="lucene").search(sq, depth=1000)
t3 = time.perf_counter()
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the forking process (the worker's RSS)
peak_kb = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])
print(json.dumps({"mmap_open_s": t1 - t0, "mmap_vocabulary_s": t2 - t1, "mmap_search_s": t3 - t2,
                  "mmap_peak_mb": peak_kb / 1024,
                  "mmap_docids": run.docids.tolist(), "mmap_scores": run.scores.tolist()}))
"""


def mmap_measure(index, queries, run) -> dict:
    """The index saved, then opened memory-mapped in a fresh process that searches ``queries``: seconds to
    open, to build the vocabulary and structure the queries, to search; the process's peak RSS (MB); and
    whether its run equals ``run`` (the in-memory one)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.npz"
        t0 = time.perf_counter()
        index.save(path)
        save_s = time.perf_counter() - t0
        (Path(tmp) / "q.json").write_text(json.dumps(queries))
        out = subprocess.run(
            [sys.executable, "-c", MMAP_CHILD, str(path), str(Path(tmp) / "q.json")],
            capture_output=True,
            text=True,
            check=True,
        )
        got = json.loads(out.stdout)
        same = got.pop("mmap_docids") == run.docids.tolist() and got.pop("mmap_scores") == run.scores.tolist()
        return {**got, "mmap_same_run": same, "index_file_mb": path.stat().st_size / 2**20, "save_s": save_s}


def bandwidth_floor(postings: int, bytes_per_posting: int, repeat: int = 5, buffer_bytes: int = 512 * 2**20) -> float:
    """Seconds of one streaming pass over ``postings`` x ``bytes_per_posting`` bytes (best of ``repeat``): the
    pass over at most ``buffer_bytes`` (far beyond the caches), scaled to all the bytes."""
    total = postings * bytes_per_posting
    data = np.ones(max(1, min(total, buffer_bytes) // 4), dtype=np.float32)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        data.max()
        best = min(best, time.perf_counter() - t0)
    return best * total / (4 * len(data))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=("zipf", "bible", "both"), default="both")
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--vocab", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--rank-bm25-queries", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3, help="ranking runs per system (best and first reported)")
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=SYSTEMS)
    ap.add_argument("--json", help="write all results here")
    ap.add_argument(
        "--mmap",
        action="store_true",
        help="clirkit: also save the index and search it memory-mapped in a fresh process (open time, peak RSS)",
    )
    ap.add_argument("--worker", nargs=2, metavar=("SYSTEM", "CORPUS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, args)))
        return
    corpora = ("zipf", "bible") if args.corpus == "both" else (args.corpus,)
    passthrough = [
        "--docs",
        str(args.docs),
        "--vocab",
        str(args.vocab),
        "--queries",
        str(args.queries),
        "--rank-bm25-queries",
        str(args.rank_bm25_queries),
        "--repeat",
        str(args.repeat),
    ]
    passthrough += ["--mmap"] if args.mmap else []
    results = []
    for corpus in corpora:
        for system in args.systems:
            out = subprocess.run(
                [sys.executable, __file__, "--worker", system, corpus, *passthrough],
                capture_output=True,
                text=True,
                check=True,
            )
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(
                f"# {corpus} {system}: index {results[-1]['index_s']:.2f} s, "
                f"+{results[-1]['index_peak_mb']:.0f} MB, rank {results[-1]['rank_s']:.2f} s",
                file=sys.stderr,
            )
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


def table(results: list[dict]) -> str:
    floors = []
    lines = [
        "| corpus | system | index s | index peak MB | rank all queries s (best; first) | "
        "clirkit rank speed-up | clirkit index speed-up | clirkit memory ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        ours = next(x for x in results if x["corpus"] == r["corpus"] and x["system"] == "clirkit")
        if "mmap_open_s" in r:
            floors.append(
                f"- {r['corpus']}, memory-mapped ({r['index_file_mb']:.0f} MB file): open "
                f"{r['mmap_open_s']:.3f} s, vocabulary and queries {r['mmap_vocabulary_s']:.2f} s, first "
                f"search {r['mmap_search_s']:.2f} s, peak RSS {r['mmap_peak_mb']:.0f} MB, same run: "
                f"{r['mmap_same_run']}"
            )
        if "floor_s" in r:
            floors.append(
                f"- {r['corpus']}, {r['system']}: {r['postings_read'] / 1e6:.1f}M postings read, floor "
                f"{r['floor_s']:.3f} s, ranking {r['rank_s']:.3f} s = "
                f"{r['rank_s'] / r['floor_s']:.2f}x the floor (median {r['rank_median_s']:.3f} s "
                f"= {r['rank_median_s'] / r['floor_s']:.2f}x)"
            )
        extrapolated = f" (extrapolated from {r['rank_extrapolated_from']})" if r["system"] == "rank-bm25" else ""
        lines.append(
            f"| {r['corpus']} ({r['n_docs']} docs, {r['n_queries']} q) | {r['system']} | "
            f"{r['index_s']:.2f} | {r['index_peak_mb']:.0f} | {r['rank_s']:.2f}; {r['rank_first_s']:.2f}"
            f"{extrapolated} | "
            f"{r['rank_s'] / ours['rank_s']:.1f}x | {r['index_s'] / ours['index_s']:.2f}x | "
            f"{ours['index_peak_mb'] / max(r['index_peak_mb'], 1):.2f} |"
        )
    return "\n".join(
        lines + ["", "Memory-bandwidth floor (one streaming pass over the bytes of the postings read):"] + floors
    )


if __name__ == "__main__":
    os.environ.setdefault("TQDM_DISABLE", "1")
    main()
