"""Boosting rounds from the product (pairs not mapped: every n-gram kept on long documents, the standalone bigram
model): numpy's rounds against the compiled round (clirkit.boost.productkernels), in the same process and run.

    python eval/bench_boost_rounds.py                                   # debian-deps-en-fr, every n-gram, 300 rounds
    python eval/bench_boost_rounds.py --collection nave-en-es --rounds 500 --negatives 3

Tuples: the collection's training qrels with ``--negatives`` uniform negatives a relevant document (the rounds'
code is the same for the hard negatives of a base run). The pairs are set up once a path (streamed or kept, as
the booster decides), then ``--rounds`` rounds are timed; the paths take turns ``--repeat`` times. For each: the
set-up and rounds' seconds, seconds a round, the peak of the memory numpy allocates during the rounds
(tracemalloc), and a digest of the chosen buckets, steps and W+/W-, which must be the same on every path. The
machine is shared: the load average is printed with every number; the ratio is the medians' numpy / compiled.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import time
import tracemalloc

import numpy as np


def features(collection: str, max_df: float, negatives: int):
    """``(Qm, Dm, tuples, src_hash, tgt_hash)`` of the collection's training queries and documents (unigrams)."""
    from clirkit import datasets
    from clirkit.analysis import Analyzer
    from clirkit.boost.features import PairFeatures
    from clirkit.boost.tuples import make_tuples

    c = datasets.load(collection)
    docids, texts = c.documents()
    queries = c.queries("train")
    q_tok = Analyzer(c.source_lang).tokenize_many(list(queries.values()))
    d_tok = Analyzer(c.target_lang).tokenize_many(texts, jobs=2)
    f = PairFeatures.fit(q_tok, d_tok, ngram=1, max_df=max_df, doc_weighting="binary")
    tuples = make_tuples(c.qrels("train"), list(queries), docids, negatives=negatives, seed=0, quiet=True)
    return f.Qm, f.Dm, tuples, f.src_hash, f.tgt_hash


def boost(inputs, path: str, rounds: int) -> dict:
    """One path's set-up and ``rounds`` rounds: seconds, peak traced bytes during the rounds and the digest."""
    import clirkit.boost.pairmap as pairmap
    import clirkit.boost.productround as productround
    from clirkit.boost.rounds import PairBooster

    Q, D, tuples, src_hash, tgt_hash = inputs
    pairmap._MAPPED = False
    productround.PRODUCT.off = path == "numpy"
    start = time.perf_counter()
    b = PairBooster(Q, D, tuples, src_hash=src_hash, tgt_hash=tgt_hash)
    set_up = time.perf_counter() - start
    tracemalloc.start()
    start = time.perf_counter()
    r = b.run(rounds, quiet=True)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (b._product not in (None, False)) == (path == "compiled")
    h = hashlib.sha256()
    for a in (r.buckets, r.alphas, b.Wp, b.Wm):
        h.update(np.ascontiguousarray(a).tobytes())
    return {"set_up": set_up, "seconds": seconds, "peak": peak, "digest": h.hexdigest()[:16], "rounds": len(r.buckets)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--collection", default="debian-deps-en-fr")
    p.add_argument("--max-df", type=float, default=1.0)
    p.add_argument("--negatives", type=int, default=1)
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    inputs = features(args.collection, args.max_df, args.negatives)
    Q, D, tuples = inputs[:3]
    q_len, d_len = np.diff(Q.indptr), np.diff(D.indptr)
    bound = float(np.dot(q_len[tuples.query].astype(float), (d_len[tuples.pos] + d_len[tuples.neg]).astype(float)))
    print(
        f"{args.collection}, max_df {args.max_df:g}: {len(tuples):,} tuples, {Q.shape[1]:,} source and "
        f"{D.shape[1]:,} target n-grams, at most {bound:,.0f} pair occurrences",
        flush=True,
    )
    boost(inputs, "compiled", 2)  # compiled (or read from numba's cache) before any timing
    seen: dict[str, list] = {"numpy": [], "compiled": []}
    for _ in range(args.repeat):
        for path in seen:
            out = boost(inputs, path, args.rounds)
            seen[path].append(out)
            print(
                f"{path}: set-up {out['set_up']:.1f} s, {out['rounds']} rounds {out['seconds']:.1f} s "
                f"({out['seconds'] / out['rounds']:.4f} s a round), peak during the rounds "
                f"{out['peak'] / 2**20:,.0f} MiB, digest {out['digest']} (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    digests = {o["digest"] for runs in seen.values() for o in runs}
    median = {path: statistics.median(o["seconds"] for o in runs) for path, runs in seen.items()}
    print(
        f"numpy / compiled: {median['numpy'] / median['compiled']:.2f}x the rounds' seconds (medians); "
        f"{'the same' if len(digests) == 1 else 'DIFFERENT'} buckets, steps and W+/W- on every path"
    )


if __name__ == "__main__":
    main()
