"""Benchmark: PSQ over translated documents (``PSQ(translate="documents")``) and the smoothed query likelihood
(``scoring="lm"``) against the reference PSQ implementation, ``fast-psq`` (github:hltcoe/PSQ, package fast-psq
0.1.0), and against query-side PSQ.

Both toolkits get the same tokens: clirkit's analyzers (Snowball stems, no stopwords) tokenize the documents,
the queries and the parallel corpus once; fast_psq reads them joined by spaces, through its own index and
search scripts (``python -m fast_psq.index`` / ``fast_psq.search``, run by the Python of its own venv) with
its tokenizer replaced by a whitespace split (its README says to replace it by the table's). Its table is the
reverse IBM Model 1 table clirkit trains (p(query word | document word), 5 iterations, written in its
``.json.gz`` format), pruned by its README's settings (min probability 1e-4, 64 alternatives, cdf .99), its
count file the query-language side of the parallel corpus, alpha .1, one worker.

For each collection (``--collections``, default nave-en-es and debian-desc-es-en) it reports, on the test split,
MAP, PRES@1000, nDCG@10 and R@1000 of fast_psq and of clirkit's variants (chosen on dev: the best dev MAP),
with paired randomization tests (10,000 sign flips, seed 0) against fast_psq; index time, peak memory and
size (each step in its own process, from the same token file, as the commands run it: clirkit indexes the
documents, then translates that index; peak = the largest sum of the resident memory of the process and its
children, sampled every 10 ms); the search time of 1,000 queries (the first 1,000 of the collection's test,
dev and train queries): fast_psq's as its search script prints it (the index loaded), clirkit's engine's over
structured queries (the first search, and the best of 6 more, the engines taking turns), against monolingual
BM25 over the documents' own index (the same queries translated one to one, DT: a monolingual query of the
same length), with the postings each reads.

``--sweep`` runs query-side and document-side PSQ, BM25 and LM, on the dev and test splits of the 14 dev
collections (baselines/README.md), one collection at a time, keeping ``OUT/sweep/NAME.json`` (a rerun skips
what is there), then prints the table of mean dev and test MAP.

    python -m venv ../fastpsq-venv && ../fastpsq-venv/bin/pip install fast-psq
    python eval/bench_docpsq.py --fast-psq ../fastpsq-venv/bin/python -o eval/results/docpsq
    python eval/bench_docpsq.py --sweep -o eval/results/docpsq

Not a test: timings vary by machine (and by load).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from clirkit import datasets
from clirkit.analysis import Analyzer, cached_tokens
from clirkit.docpsq import count_terms
from clirkit.dt import dt_queries
from clirkit.estimator import Resources, drop_excluded
from clirkit.formats import read_run
from clirkit.metrics import evaluate
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.index import Index
from clirkit.significance import paired_test
from clirkit.systems import PSQ
from clirkit.translation import NULL, load_table, save_table, train_table

MEASURES = ["AP", "PRES@1000", "nDCG@10", "R@1000"]
REFERENCE = {"min_prob": 1e-4, "max_options": 64, "cumulative": 0.99}  # fast_psq's README pruning
QUERY_SIDE = {"min_prob": 0.1, "max_options": None, "cumulative": 0.95}  # PSQ's pruning translating the queries
Q, D = {"translate": "queries"}, {"translate": "documents"}
BY_BM25, BY_LM = {"scoring": "bm25"}, {"scoring": "lm"}
VARIANTS = {  # clirkit's PSQ variants: name -> parameters, every one given (PSQ()'s "auto" chooses by side)
    "Q-bm25": {**Q, **BY_BM25, **QUERY_SIDE},
    "Q-bm25-ref": {**Q, **BY_BM25, **REFERENCE},
    "Q-lm": {**Q, **BY_LM, **QUERY_SIDE},
    "D-bm25": {**D, **BY_BM25, **QUERY_SIDE},
    "D-lm": {**D, **BY_LM, **QUERY_SIDE},
    "D-lm-par": {**D, **BY_LM, "background": "parallel", **QUERY_SIDE},
    "D-lm-ref": {**D, **BY_LM, **REFERENCE},  # PSQ()'s default given a table from the documents' language
    "Q-lm-ref": {**Q, **BY_LM, **REFERENCE},
    "D-bm25-ref": {**D, **BY_BM25, **REFERENCE},
    "D-lm-par-ref": {**D, **BY_LM, "background": "parallel", **REFERENCE},
    # the reference's model as it has it: document words the table lacks dropped, not passed through
    "D-lm-par-ref-drop": {**D, **BY_LM, "background": "parallel", "unknown": "drop", **REFERENCE},
}
SWEEP = (
    "Q-bm25",
    "D-bm25",
    "Q-bm25-ref",
    "D-bm25-ref",
    "Q-lm",
    "D-lm",
    "D-lm-par",
    "Q-lm-ref",
    "D-lm-ref",
    "D-lm-par-ref",
)
DEV_COLLECTIONS = (
    "nave-en-es",
    "bible-verse-es-en",
    "multi30k-de-en",
    "debian-desc-de-en",
    "debian-desc-es-en",
    "debian-desc-fr-en",
    "debian-desc-ru-en",
    "gettext-de-en",
    "gettext-es-en",
    "gettext-ru-en",
    "gettext-zh-en",
    "manpages-de-en",
    "manpages-es-en",
    "manpages-ru-en",
)
TIMED_QUERIES = 1000

# run by fast_psq's Python: its tokenizer becomes a whitespace split (the texts are clirkit's tokens), then its
# script runs as `python -m` would run it (its worker processes are forked, so they keep the split)
FAST_PSQ = """
import runpy, sys
from fast_psq.tokenizer import PSQTokenizer
def _init(self, lang):
    self.lang, self.stop = lang, None
PSQTokenizer.__init__ = _init
PSQTokenizer.tokenize = lambda self, text, *a, **k: text.split()
module = sys.argv[1]
sys.argv = [module] + sys.argv[2:]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# measuring a process ----------------------------------------------------------------------------------------


def _tree_rss(pid: int) -> int:
    """Resident bytes of process ``pid`` and its descendants (0 once gone)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                total += next((int(line.split()[1]) * 1024 for line in fh if line.startswith("VmRSS:")), 0)
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def measured(command: list[str]) -> dict:
    """Run ``command``; its wall time, peak memory (MB, the process tree) and output."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(0.01)
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} failed ({proc.returncode}): {err[-2000:]}")
    return {"seconds": round(seconds, 2), "peak_mb": round(peak / 2**20, 1), "stdout": out, "stderr": err}


# the collection ---------------------------------------------------------------------------------------------


def prepared(name: str, work: Path) -> dict:
    """A collection's tokens, document index and both tables (trained once, kept in ``work``); called within
    :func:`clirkit.analysis.cached_tokens`, so that the systems' fits and searches tokenize nothing again."""
    c = datasets.load(name)
    src, tgt = Analyzer(c.source_lang), Analyzer(c.target_lang)
    docids, texts = c.documents()
    source, target = c.parallel()
    splits = [s for s in ("test", "dev", "train") if s in c.splits]
    topics = {s: c.queries(s) for s in splits}
    work.mkdir(parents=True, exist_ok=True)
    doc_tokens = tgt.tokenize_many(texts, jobs=2)
    query_tokens = {s: src.tokenize_many(list(t.values())) for s, t in topics.items()}
    tables = {}
    for key, (a, b, ta, tb) in {"fwd": (src, tgt, source, target), "rev": (tgt, src, target, source)}.items():
        path = work / f"{key}.npz"
        if not path.exists():
            save_table(train_table(a.tokenize_many(ta, jobs=2), b.tokenize_many(tb, jobs=2), a, b), path)
        tables[key] = load_table(path)
    query_side = src.tokenize_many(source, jobs=2)
    index = Index.from_tokens(docids, doc_tokens, tgt)
    return {
        "c": c,
        "src": src,
        "tgt": tgt,
        "index": index,
        "docids": list(docids),
        "tables": tables,
        "doc_tokens": doc_tokens,
        "topics": topics,
        "query_tokens": query_tokens,
        "parallel": (source, target),
        "query_side": query_side,
    }


def per_query(run, qrels) -> dict[str, dict[str, float]]:
    table = evaluate(run, qrels, MEASURES)
    return {m: dict(zip(table.qids.tolist(), table.column(m).tolist())) for m in MEASURES}


def clirkit_runs(p: dict, names, splits) -> dict:
    """``{split: {variant: per-query values}}`` of clirkit's ``names`` variants, with their fit times."""
    c = p["c"]
    resources = Resources(
        index=p["index"],
        table=p["tables"]["fwd"],
        reverse_table=p["tables"]["rev"],
        parallel=p["parallel"],
        source_lang=c.source_lang,
        target_lang=c.target_lang,
    )
    out: dict = {s: {} for s in splits}
    out["fit_seconds"] = {}
    for name in names:
        start = time.perf_counter()
        system = PSQ(**VARIANTS[name]).fit(resources)
        out["fit_seconds"][name] = round(time.perf_counter() - start, 2)
        for s in splits:
            out[s][name] = per_query(system.search(p["topics"][s], excluded=c.excluded(s)), c.qrels(s))
        say(f"  {name}: dev AP {mean(out[splits[0]][name]['AP']):.4f} ({out['fit_seconds'][name]} s fit)")
    return out


def mean(values: dict[str, float]) -> float:
    return float(np.mean(list(values.values()))) if values else float("nan")


# fast_psq ---------------------------------------------------------------------------------------------------


def write_inputs(p: dict, folder: Path) -> dict:
    """fast_psq's inputs, of clirkit's tokens: documents (JSONL), the reverse table (.json.gz), the count file of
    the query-language side of the parallel corpus, the test queries and the timed queries (TSV)."""
    folder.mkdir(parents=True, exist_ok=True)
    docids = p["docids"]  # in the order of the tokens
    with open(folder / "docs.jsonl", "w", encoding="utf-8") as fh:
        for d, tokens in zip(docids, p["doc_tokens"]):
            fh.write(json.dumps({"docno": d, "title": "", "body": " ".join(tokens)}, ensure_ascii=False) + "\n")
    rev = p["tables"]["rev"]
    probs = rev.probs
    table = {}
    for i, word in enumerate(rev.source_vocab.tolist()):
        lo, hi = probs.indptr[i], probs.indptr[i + 1]
        if word != NULL and hi > lo:
            table[word] = {str(rev.target_vocab[j]): float(v) for j, v in zip(probs.indices[lo:hi], probs.data[lo:hi])}
    with gzip.open(folder / "table.json.gz", "wt", encoding="utf-8") as fh:
        json.dump(table, fh, ensure_ascii=False)
    counts = count_terms(p["query_side"])
    with open(folder / "counts.txt", "w", encoding="utf-8") as fh:
        fh.writelines(f"{n} {t}\n" for t, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    qids, tokens = timed_queries(p)
    known = set(rev.target_vocab.tolist())
    for name, (ids, toks) in {
        "test": (list(p["topics"]["test"]), p["query_tokens"]["test"]),
        "timed": (qids, tokens),
    }.items():
        # its query matrix has as many rows as the last query holding a known word: a query without one at the
        # end of the file would be an IndexError, so the query with the most known words goes last
        last = max(range(len(ids)), key=lambda i: sum(t in known for t in toks[i]))
        order = [i for i in range(len(ids)) if i != last] + [last]
        with open(folder / f"{name}.tsv", "w", encoding="utf-8") as fh:
            fh.writelines(f"{ids[i]}\t{' '.join(toks[i]) or 'x'}\n" for i in order)
    return {"docs": folder / "docs.jsonl", "table": folder / "table.json.gz", "counts": folder / "counts.txt"}


def timed_queries(p: dict) -> tuple[list[str], list[list[str]]]:
    """The first 1,000 queries of the test, dev and train splits, tokenized."""
    qids, tokens = [], []
    for s, topics in p["topics"].items():
        qids += [f"{s}:{q}" for q in topics]
        tokens += p["query_tokens"][s]
    return qids[:TIMED_QUERIES], tokens[:TIMED_QUERIES]


def fast_psq(p: dict, python: str, folder: Path) -> dict:
    """fast_psq's test run (per-query values), its index time and peak memory, and its search time."""
    files = write_inputs(p, folder)
    index_dir = folder / "index"
    lang_d, lang_q = p["c"].target_lang, p["c"].source_lang
    made = measured(
        [
            python,
            "-c",
            FAST_PSQ,
            "fast_psq.index",
            "--doc_source",
            str(files["docs"]),
            "--lang",
            lang_d,
            "--psq_file",
            str(files["table"]),
            "--count_file",
            str(files["counts"]),
            "--min_translation_prob",
            str(REFERENCE["min_prob"]),
            "--max_translation_alternatives",
            str(REFERENCE["max_options"]),
            "--max_translation_cdf",
            str(REFERENCE["cumulative"]),
            "--alpha",
            "0.1",
            "--docid",
            "docno",
            "--title",
            "title",
            "--body",
            "body",
            "--output_dir",
            str(index_dir),
            "--nworkers",
            "1",
        ]
    )
    out = {
        "index_seconds": made["seconds"],
        "index_peak_mb": made["peak_mb"],
        "index_bytes": sum(f.stat().st_size for f in index_dir.iterdir()),
    }
    for name in ("test", "timed"):
        searched = measured(
            [
                python,
                "-c",
                FAST_PSQ,
                "fast_psq.search",
                "--query_source",
                str(folder / f"{name}.tsv"),
                "--index_dir",
                str(index_dir),
                "--query_lang",
                lang_q,
                "--output_file",
                str(folder / f"{name}.run"),
            ]
        )
        line = next(x for x in searched["stdout"].splitlines() if x.startswith("Searching"))
        out[f"{name}_search_seconds"] = float(line.split(" take ")[1].split(" ms")[0]) / 1000
        out[f"{name}_command_seconds"] = searched["seconds"]
    run = drop_excluded(read_run(folder / "test.run"), p["c"].excluded("test"))
    out["test"] = per_query(run, p["c"].qrels("test"))
    return out


# clirkit's time and memory ----------------------------------------------------------------------------------


def clirkit_index(p: dict, folder: Path) -> dict:
    """clirkit's indexing as its commands do it, each step in its own process: the document index of fast_psq's
    document file (tokens as they are), saved, importing what ``clirkit index`` imports (query-side PSQ's whole
    indexing); then that index translated through the reverse table by ``clirkit psq --save-index FILE`` itself
    (no queries: the translated index only), with PSQ's query-side pruning and with its default (the
    reference's). A document-side index costs both steps: their times are added, its peak is the larger of
    theirs."""
    made = measured(
        [
            sys.executable,
            "-c",
            INDEX_STEP,
            str(folder / "docs.jsonl"),
            p["c"].target_lang,
            str(folder / "clirkit-queries.npz"),
        ]
    )
    out = {
        "queries": {
            "index_seconds": made["seconds"],
            "index_peak_mb": made["peak_mb"],
            "index_bytes": (folder / "clirkit-queries.npz").stat().st_size,
        }
    }
    for side, pruning in (("documents", QUERY_SIDE), ("documents-ref", {})):  # {}: the command's defaults
        target = folder / f"clirkit-{side}.npz"
        options = [f"--{k.replace('_', '-')}={v if v is not None else 10**9}" for k, v in pruning.items()]
        step = measured(
            [
                sys.executable,
                "-m",
                "clirkit",
                "psq",
                "--index",
                str(folder / "clirkit-queries.npz"),
                "--table",
                str(folder.parent / "rev.npz"),
                "--save-index",
                str(target),
                "-q",
                *options,
            ]
        )
        out[side] = {
            "index_seconds": round(made["seconds"] + step["seconds"], 2),
            "index_peak_mb": max(made["peak_mb"], step["peak_mb"]),
            "translate_seconds": step["seconds"],
            "translate_peak_mb": step["peak_mb"],
            "index_bytes": target.stat().st_size,
        }
    return out


# the document index of the token file, with the imports of `clirkit index` (not this script's)
INDEX_STEP = """
import json, sys
from clirkit.analysis import Analyzer
from clirkit.retrieval.index import Index
docs, lang, target = sys.argv[1:]
docids, tokens = [], []
with open(docs, encoding="utf-8") as fh:
    for line in fh:
        record = json.loads(line)
        docids.append(record["docno"])
        tokens.append([sys.intern(t) for t in record["body"].split()])  # one str object per distinct token
Index.from_tokens(docids, tokens, Analyzer(lang)).save(target)
"""


def search_times(p: dict, names, rounds: int = 7) -> dict:
    """Seconds to search the 1,000 timed queries with clirkit's ``names`` variants and monolingual BM25 (DT's
    one-to-one queries over the documents' index): the first search (posting weights made), then the best of
    ``rounds - 1``, the engines taking turns in each round (a burst of load on the shared machine then falls on
    all of them); and the postings the queries read (the sum of their terms' document frequencies, or of
    their translations' for a translated query), the work that does not depend on the load."""
    c = p["c"]
    qids, tokens = timed_queries(p)
    texts = {}
    for s, topics in p["topics"].items():
        texts.update({f"{s}:{q}": t for q, t in topics.items()})
    topics = {q: texts[q] for q in qids}
    resources = Resources(
        index=p["index"],
        table=p["tables"]["fwd"],
        reverse_table=p["tables"]["rev"],
        parallel=p["parallel"],
        source_lang=c.source_lang,
        target_lang=c.target_lang,
    )
    engines = {}
    for name in names:
        system = PSQ(**VARIANTS[name]).fit(resources)
        engines[name] = (system.bm25_, system.structured_queries(topics))
    # DT's queries are one-to-one over the documents' index: monolingual BM25
    engines["mono-BM25"] = (
        BM25(p["index"]),
        dt_queries(qids, tokens, p["tables"]["fwd"], p["index"].vocabulary, frequency=p["index"].df),
    )
    times: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(rounds):
        for name, (engine, queries) in engines.items():
            start = time.perf_counter()
            engine.search(queries, depth=1000)
            times[name].append(time.perf_counter() - start)
    out = {}
    for name, (engine, queries) in engines.items():
        read = (queries.translations != 0).astype(np.float64) @ engine.index.df.astype(np.float64)
        out[name] = {
            "first": round(times[name][0], 3),
            "best": round(min(times[name][1:]), 3),
            "postings": int(read.sum()),
        }
    return out


# reports ----------------------------------------------------------------------------------------------------


def compare_table(name: str, result: dict) -> str:
    """The Markdown table of one collection: test measures, significance against fast_psq, cost."""
    test, dev = result["clirkit"]["test"], result["clirkit"]["dev"]
    rows = ["| system | dev MAP | test MAP | PRES@1000 | nDCG@10 | R@1000 |", "|---|---:|---:|---:|---:|---:|"]
    ref = result.get("fast_psq", {}).get("test")
    if ref:
        rows.append(
            f"| fast_psq (its scripts) | | {mean(ref['AP']):.4f} | {mean(ref['PRES@1000']):.4f} | "
            f"{mean(ref['nDCG@10']):.4f} | {mean(ref['R@1000']):.4f} |"
        )
    for v in test:
        cells = []
        for m in MEASURES:
            text = f"{mean(test[v][m]):.4f}"
            if ref:
                qids = sorted(ref[m])
                r = paired_test([ref[m][q] for q in qids], [test[v][m][q] for q in qids], seed=0)
                text += ("+" if r.mean_difference > 0 else "-") if r.p_value < 0.05 else ""
            cells.append(text)
        rows.append(
            f"| {v}{' (best on dev)' if v == result['best'] else ''} | {mean(dev[v]['AP']):.4f} | "
            + " | ".join(cells)
            + " |"
        )
    return (
        f"{name}, test ({len(next(iter(test.values()))['AP'])} queries); +/-: p < 0.05 against fast_psq\n\n"
        + "\n".join(rows)
    )


def cost_table(results: dict) -> str:
    rows = [
        "| collection | system | index s | index peak MB | index MB | search 1,000 s (first / best) | "
        "vs mono BM25 | postings read |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        mono = r["search"]["mono-BM25"]["best"]
        if "fast_psq" in r:
            f = r["fast_psq"]
            rows.append(
                f"| {name} | fast_psq | {f['index_seconds']} | {f['index_peak_mb']} | "
                f"{f['index_bytes'] / 2**20:.1f} | {f['timed_search_seconds']:.3f} | "
                f"{f['timed_search_seconds'] / mono:.2f}x | |"
            )
        for side, label in (("documents", "D-bm25"), ("documents-ref", "D-bm25-ref"), ("queries", "Q-bm25")):
            i = r["index"][side]
            s = r["search"][label]
            rows.append(
                f"| {name} | clirkit {label} | {i['index_seconds']} | {i['index_peak_mb']} | "
                f"{i['index_bytes'] / 2**20:.1f} | {s['first']} / {s['best']} | {s['best'] / mono:.2f}x | "
                f"{s['postings'] / 1e6:.1f}M |"
            )
        for label in sorted({"D-lm", "D-lm-ref", r["best"]} - {"D-bm25", "D-bm25-ref", "Q-bm25"}) + ["mono-BM25"]:
            s = r["search"][label]
            rows.append(
                f"| {name} | clirkit {label} | | | | {s['first']} / {s['best']} | {s['best'] / mono:.2f}x | "
                f"{s['postings'] / 1e6:.1f}M |"
            )
    return "\n".join(rows)


def _mark(runs: dict, variant: str, baseline: str = "Q-bm25", measure: str = "AP") -> str:
    """``+`` / ``-`` when ``variant`` is significantly above / below ``baseline`` (paired randomization test,
    p < 0.05), else nothing."""
    if variant == baseline:
        return ""
    qids = sorted(runs[baseline][measure])
    r = paired_test([runs[baseline][measure][q] for q in qids], [runs[variant][measure][q] for q in qids], seed=0)
    return ("+" if r.mean_difference > 0 else "-") if r.p_value < 0.05 else ""


def sweep_table(folder: Path, variants=SWEEP) -> str:
    """Dev and test MAP of each variant on each dev collection and their means; a test value marked ``+`` / ``-``
    is significantly above / below query-side PSQ's (Q-bm25, clirkit's default)."""
    results = {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}
    shown = [v for v in variants if all(v in r["dev"] for r in results.values())]  # measured everywhere
    head = "| collection | " + " | ".join(f"{v} dev / test MAP" for v in shown) + " |"
    rows = [head, "|---|" + "---:|" * len(shown)]
    for name in DEV_COLLECTIONS:
        if name in results:
            r = results[name]
            rows.append(
                f"| {name} | "
                + " | ".join(
                    f"{mean(r['dev'][v]['AP']):.4f} / {mean(r['test'][v]['AP']):.4f}{_mark(r['test'], v)}"
                    for v in shown
                )
                + " |"
            )
    done = [results[n] for n in DEV_COLLECTIONS if n in results]
    rows.append(
        f"| mean ({len(done)}) | "
        + " | ".join(
            f"{np.mean([mean(r['dev'][v]['AP']) for r in done]):.4f} / "
            f"{np.mean([mean(r['test'][v]['AP']) for r in done]):.4f}"
            for v in shown
        )
        + " |"
    )
    wins = {v: sum(mean(r["dev"][v]["AP"]) > mean(r["dev"]["Q-bm25"]["AP"]) for r in done) for v in shown[1:]}
    return (
        "\n".join(rows) + "\n\ndev wins over Q-bm25: " + ", ".join(f"{v} {n} of {len(done)}" for v, n in wins.items())
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", required=True, help="folder of the results (and of the work files)")
    parser.add_argument("--collections", nargs="+", default=["nave-en-es", "debian-desc-es-en"])
    parser.add_argument("--fast-psq", default=None, metavar="PYTHON", help="the Python of a venv with fast-psq")
    parser.add_argument("--sweep", action="store_true", help="query- vs document-side over the 14 dev collections")
    parser.add_argument(
        "--variants",
        nargs="+",
        choices=list(VARIANTS),
        default=None,
        help="with --sweep: the variants to add to what is there (default: the sweep's)",
    )
    args = parser.parse_args(argv)
    out = Path(args.output)
    if args.sweep:
        folder = out / "sweep"
        folder.mkdir(parents=True, exist_ok=True)
        wanted = args.variants or list(SWEEP)
        for name in DEV_COLLECTIONS:
            path = folder / f"{name}.json"
            runs = json.loads(path.read_text()) if path.exists() else {"dev": {}, "test": {}, "fit_seconds": {}}
            todo = [v for v in wanted if v not in runs["dev"]]
            if not todo:
                continue
            say(f"{name}")
            with cached_tokens():
                p = prepared(name, out / "work" / name)
                made = clirkit_runs(p, todo, ("dev", "test"))
            for key in ("dev", "test", "fit_seconds"):
                runs[key].update(made[key])
            path.write_text(json.dumps(runs), encoding="utf-8")
            del p
        print(sweep_table(folder))
        return 0
    results = {}
    for name in args.collections:
        say(f"{name}")
        work = out / "work" / name
        with cached_tokens():
            p = prepared(name, work)
            runs = clirkit_runs(p, list(VARIANTS), ("dev", "test"))
        best = max(VARIANTS, key=lambda v: mean(runs["dev"][v]["AP"]))
        result = {"clirkit": runs, "best": best}
        if args.fast_psq:
            result["fast_psq"] = fast_psq(p, args.fast_psq, work / "fastpsq")
            result["index"] = clirkit_index(p, work / "fastpsq")
        result["search"] = search_times(p, sorted({"Q-bm25", "D-bm25", "D-bm25-ref", "D-lm", "D-lm-ref", best}))
        results[name] = result
        (out / f"{name}.json").write_text(json.dumps(result), encoding="utf-8")
        print(compare_table(name, result) + "\n", flush=True)
        del p
    if args.fast_psq:
        print(cost_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
