"""Today's no-flag defaults against the defaults before issue 23, the every-translation bag and the monolingual
ceiling, on the 14 dev collections (baselines/README.md, "Today's defaults"), and the measurements
around them: DT fused with PSQ translating the documents, PSQ over an out-of-domain corpus translating the
documents, and MUSE's rank against uniform weights interpolated with IBM Model 1.

Per collection, on the dev and test splits, the per-query AP, R@1000 and PRES@1000 of (``GROUPS``):

- ``core``: ``new`` = ``PSQ()`` with the collection's parallel corpus as ``clirkit run`` fits ``kind = "psq"``
  (IBM Model 1 both ways; the documents translated through p(query word | document word), pruned 1e-4 / .99 /
  64, the smoothed query likelihood); ``old`` = the defaults before issue 23 (whole words, no stemming, the
  100 most frequent source words of the corpus and index terms dropped, L .005, C .95, query side, BM25, no
  decompounding; as ``baselines/transfer.py``'s analysis ``old``, the CJK bigrams kept); ``bag`` = every
  translation of every query word its own BM25 term over the query-side table pruned at L .005
  (``docpsq_vs_bag.BAG``); ``mono`` = BM25 of the English originals of the queries, where the collection has
  them (``english-queries``); ``DT`` = ``DT()``; ``PSQ-sw`` = the default with the Snowball lists on the
  queries and on the translations' query-language words;
- ``fusion``: DT and ``new`` fused (sum-normalized interpolation) with the weights tuned on the dev MAP (step .1,
  as the experiment runner tunes ``[fusions]``), or fixed (DT's weight kappa .3, .5, .7);
- ``muse`` (the 10 collections with MUSE): query-side PSQ over IBM Model 1 interpolated with MUSE (lam .5), MUSE
  alone (Pirkola), and the document side over the reverse table interpolated with the reverse MUSE dictionary
  (lam .5), each with MUSE's rank weights (``-rank``) and uniform weights (``-uni``);
- ``ood`` (the 6 collections with an out-of-domain corpus, ``transfer.RESOURCES``): PSQ over that corpus's
  tables translating the documents (``D[ood]``) and the queries (``Q[ood]``), the query side interpolated with
  MUSE, the document side interpolated with the reverse MUSE, and the bags of the corpus and of MUSE.

Results are kept in ``OUT/NAME.json`` (a group already there is skipped; ``--force`` redoes it), the tables in
``OUT/work/NAME``; ``--report`` prints the Markdown tables of baselines/README.md from them (two-sided paired
randomization tests, 10,000 sign flips, seed 0, p < 0.05).

    python baselines/defaults_now.py -o baselines/results/defaults                    # every group, 14 collections
    python baselines/defaults_now.py -o baselines/results/defaults --groups core fusion --collections nave-en-es
    python baselines/defaults_now.py -o baselines/results/defaults --report
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "eval")]
import bench_docpsq as bench  # noqa: E402  (eval/ and baselines/ are not packages)
import transfer  # noqa: E402
from docpsq_vs_bag import BAG  # noqa: E402

from clirkit import datasets  # noqa: E402
from clirkit.analysis import Analyzer, cached_tokens  # noqa: E402
from clirkit.errors import ClirkitError  # noqa: E402
from clirkit.estimator import Resources  # noqa: E402
from clirkit.metrics import evaluate  # noqa: E402
from clirkit.retrieval.index import Index  # noqa: E402
from clirkit.significance import paired_test  # noqa: E402
from clirkit.systems import DT, PSQ, BM25Search, Fusion  # noqa: E402
from clirkit.translation import interpolate, load_table, save_table, train_table  # noqa: E402

MEASURES = ["AP", "R@1000", "PRES@1000"]
SPLITS = ("dev", "test")
GROUPS = ("core", "fusion", "muse", "ood")
KAPPAS = (0.3, 0.5, 0.7)
LAM = 0.5
# the defaults before issue 23 (baselines/README.md, "Parameters of that time"), every parameter that changed since
OLD = {
    "translate": "queries",
    "scoring": "bm25",
    "min_prob": 0.005,
    "cumulative": 0.95,
    "max_options": None,
    "mode": "psq",
    "source_stopwords_top": 100,
    "target_stopwords_top": 100,
    "decompound": "none",
}
MUSE = Path(__file__).resolve().parents[2] / "shared" / "data" / "muse"


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def scores(run, qrels) -> dict[str, dict[str, float]]:
    """``{measure: {qid: value}}`` over every query of the qrels (a query the run lacks scores 0)."""
    table = evaluate(run, qrels, MEASURES)
    return {m: dict(zip(table.qids.tolist(), table.column(m).tolist())) for m in MEASURES}


class Collection:
    """One collection's topics, qrels, index and tables (each trained once, kept in ``work``)."""

    def __init__(self, name: str, work: Path) -> None:
        self.name, self.work = name, work
        self.p = bench.prepared(name, work)
        self.c = self.p["c"]
        self.topics = {s: self.p["topics"][s] for s in SPLITS}
        self.qrels = {s: self.c.qrels(s) for s in SPLITS}
        self.kept: dict[str, dict] = {}
        self.resources = Resources(
            index=self.p["index"],
            table=self.p["tables"]["fwd"],
            reverse_table=self.p["tables"]["rev"],
            parallel=self.p["parallel"],
            source_lang=self.c.source_lang,
            target_lang=self.c.target_lang,
        )

    def runs(self, system, keep: str | None = None) -> dict:
        """``{split: per-query values}`` of a fitted system (a run of many queries is large: scored at once), its
        runs kept in ``kept[keep]`` when ``keep`` is given (to fuse them)."""
        runs = {s: system.search(self.topics[s]) for s in SPLITS}
        if keep:
            self.kept[keep] = runs
        return {s: scores(run, self.qrels[s]) for s, run in runs.items()}

    def table(self, key: str, source: Analyzer, target: Analyzer, pair) -> object:
        """IBM Model 1 p(target | source) of the parallel ``pair`` (source texts, target texts), kept as
        ``work/KEY.npz``."""
        path = self.work / f"{key}.npz"
        if not path.exists():
            t0 = time.time()
            save_table(
                train_table(
                    source.tokenize_many(pair[0], jobs=2), target.tokenize_many(pair[1], jobs=2), source, target
                ),
                path,
            )
            say(f"  {key}: trained in {time.time() - t0:.0f} s")
        return load_table(path)

    def muse(self, weighting: str, reverse: bool = False):
        """The MUSE dictionary of the queries' language into the documents' (``reverse``: the other way, the
        file of that direction), with ``weighting``; None without one."""
        src, tgt = self.c.source_lang, self.c.target_lang
        if reverse:
            src, tgt = tgt, src
        path = MUSE / f"{src}-{tgt}.dict"
        if "dict" not in transfer.RESOURCES.get(self.name, {}) or not path.exists():
            return None
        return load_table(path, source_lang=src, target_lang=tgt, weighting=weighting)


def core(col: Collection) -> dict:
    """``{label: {split: per-query values}}`` of new, old, bag, mono, DT and PSQ-sw (the runs of DT and new kept)."""
    out = {}
    new = PSQ().fit(col.resources)
    assert new.translate_ == "documents" and new.system_.scoring == "lm", (new.translate_, new.system_.scoring)
    out["new"] = col.runs(new, keep="new")
    out["bag"] = col.runs(PSQ(**BAG).fit(col.resources))
    out["DT"] = col.runs(DT().fit(col.resources), keep="DT")
    try:
        out["PSQ-sw"] = col.runs(PSQ(source_stopwords="snowball", target_stopwords="snowball").fit(col.resources))
    except ClirkitError as exc:  # no Snowball list for this language
        say(f"  PSQ-sw: {exc}")
    out["old"] = old_runs(col)
    if "english-queries" in datasets.variants(col.name):
        mono = datasets.load(col.name, variant="english-queries")
        searcher = BM25Search().fit(Resources(index=col.p["index"]))
        out["mono"] = {s: scores(searcher.search(mono.queries(s)), col.qrels[s]) for s in SPLITS}
    return out


def old_runs(col: Collection) -> dict:
    """The runs of PSQ with the defaults before issue 23 (:data:`OLD`), over its own unstemmed index and table."""
    c = col.c
    src, tgt = Analyzer(c.source_lang, stemmer=None), Analyzer(c.target_lang, stemmer=None)
    docids, texts = c.documents()
    index = Index.from_tokens(docids, tgt.tokenize_many(texts, jobs=2), tgt)
    table = col.table("fwd-old", src, tgt, col.p["parallel"])
    old = PSQ(**OLD).fit(Resources(index=index, table=table))
    old.system_.unfiltered_ = None  # then, a query whose every translation the target stoplist dropped stayed empty
    return col.runs(old)


def fusion(col: Collection) -> tuple[dict, dict]:
    """DT and the new PSQ fused (their runs kept by :func:`core`, or made here): ``({label: {split: values}},
    {label: weights})``."""
    if "DT" not in col.kept:
        col.runs(DT().fit(col.resources), keep="DT")
        col.runs(PSQ().fit(col.resources), keep="new")
    out, weights = {}, {}
    pair = [col.kept["DT"], col.kept["new"]]
    for label, given in [("DT+PSQ-tuned", None)] + [(f"DT+PSQ-k{k}", [k, round(1 - k, 10)]) for k in KAPPAS]:
        fused = Fusion(weights=given).fit_runs([r["dev"] for r in pair], col.qrels["dev"])
        out[label] = {s: scores(fused.fuse([r[s] for r in pair]), col.qrels[s]) for s in SPLITS}
        weights[label] = list(fused.weights_)
    return out, weights


def muse(col: Collection) -> dict:
    """The per-query values of the MUSE systems, rank and uniform weights (none without MUSE)."""
    out = {}
    fwd, rev, index = col.p["tables"]["fwd"], col.p["tables"]["rev"], col.p["index"]
    for w, tag in (("rank", "rank"), ("uniform", "uni")):
        muse, reverse = col.muse(w), col.muse(w, reverse=True)
        if muse is None:
            return out
        out[f"Q[corpus+dict]-{tag}"] = col.runs(PSQ(lam=LAM).fit(Resources(index=index, table=fwd, table2=muse)))
        out[f"Q[dict]-{tag}"] = col.runs(PSQ().fit(Resources(index=index, table=muse)))
        if reverse is not None:
            both = interpolate(rev, reverse, LAM)
            out[f"D[corpus+rdict]-{tag}"] = col.runs(
                PSQ(translate="documents").fit(Resources(index=index, reverse_table=both))
            )
    return out


def ood(col: Collection) -> dict:
    """The per-query values of the systems over the out-of-domain corpus (none without one)."""
    name = transfer.RESOURCES.get(col.name, {}).get("ood")
    if name is None:
        return {}
    c, index = col.c, col.p["index"]
    src, tgt = Analyzer(c.source_lang), Analyzer(c.target_lang)
    pair = datasets.load(name).parallel()
    fwd = col.table(f"ood-{name}-fwd", src, tgt, pair)
    rev = col.table(f"ood-{name}-rev", tgt, src, pair[::-1])
    out = {
        "D[ood]": col.runs(PSQ(translate="documents").fit(Resources(index=index, reverse_table=rev))),
        "Q[ood]": col.runs(PSQ().fit(Resources(index=index, table=fwd))),
        "bag[ood]": col.runs(PSQ(**BAG).fit(Resources(index=index, table=fwd))),
    }
    for w, tag in (("rank", "rank"), ("uniform", "uni")):
        muse, reverse = col.muse(w), col.muse(w, reverse=True)
        if muse is None:
            continue
        out[f"Q[ood+dict]-{tag}"] = col.runs(PSQ(lam=LAM).fit(Resources(index=index, table=fwd, table2=muse)))
        if reverse is not None:
            both = interpolate(rev, reverse, LAM)
            out[f"D[ood+rdict]-{tag}"] = col.runs(
                PSQ(translate="documents").fit(Resources(index=index, reverse_table=both))
            )
        if w == "rank":
            out["bag[dict]"] = col.runs(PSQ(**BAG).fit(Resources(index=index, table=muse)))
    return out


def measure(name: str, out: Path, groups: list[str], force: bool) -> None:
    """Run ``groups`` of collection ``name`` and merge their per-query values into ``OUT/NAME.json``."""
    path = out / f"{name}.json"
    kept = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"groups": [], "weights": {}}
    todo = [g for g in groups if force or g not in kept["groups"]]
    if not todo:
        return
    t0 = time.time()
    with cached_tokens():
        col = Collection(name, out / "work" / name)
        runs: dict = {}  # {label: {split: per-query values}}
        if "core" in todo:
            runs.update(core(col))
        if "fusion" in todo:
            fused, weights = fusion(col)
            runs.update(fused)
            kept["weights"].update(weights)
        if "muse" in todo:
            runs.update(muse(col))
        if "ood" in todo:
            runs.update(ood(col))
    for split in SPLITS:
        kept.setdefault(split, {}).update({label: values[split] for label, values in runs.items()})
    kept["groups"] = sorted(set(kept["groups"]) | set(todo))
    path.write_text(json.dumps(kept), encoding="utf-8")
    say(f"{name}: {', '.join(todo)} in {time.time() - t0:.0f} s")


# report -----------------------------------------------------------------------------------------------------


def load(out: Path) -> dict[str, dict]:
    found = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in out.glob("*.json")}
    return {n: found[n] for n in bench.DEV_COLLECTIONS if n in found}


def mean(values: dict[str, float]) -> float:
    return float(np.mean(list(values.values())))


def test(runs: dict, a: str, b: str, m: str = "AP") -> tuple[float, float]:
    """(mean of a - mean of b, the paired test's p) over the queries of ``b`` (the same set: checked)."""
    x, y = runs[a][m], runs[b][m]
    if set(x) != set(y):
        raise SystemExit(f"{a} and {b} were measured on different queries")
    qids = sorted(y)
    return mean(x) - mean(y), paired_test([x[q] for q in qids], [y[q] for q in qids]).p_value


def mark(runs: dict, a: str, b: str, m: str = "AP") -> str:
    """``+`` / ``-`` when ``a`` is significantly above / below ``b`` on ``m`` (p < 0.05), else nothing."""
    if a not in runs or b not in runs or a == b:
        return ""
    diff, p = test(runs, a, b, m)
    return ("+" if diff > 0 else "-") if p < 0.05 else ""


def cell(runs: dict, key: str, against: str | None, measures=("AP", "R@1000")) -> str:
    if key not in runs:
        return "-"
    return " / ".join(f"{mean(runs[key][m]):.3f}{mark(runs, key, against, m) if against else ''}" for m in measures)


def done_when(results: dict, split: str) -> str:
    """The table of issue 23's Done-when for today's defaults."""
    lines = [
        f"| collection ({split} queries) | old | bag | **new** | mono | new - old, MAP points | "
        f"new - bag, MAP points |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    gains, counts = [], {"above bag": 0, "below bag": 0, "above old": 0, "below old": 0}
    for name, res in results.items():
        runs = res[split]
        d_old, p_old = test(runs, "new", "old")
        d_bag, p_bag = test(runs, "new", "bag")
        gains.append(d_old)
        for label, d, p in (("old", d_old, p_old), ("bag", d_bag, p_bag)):
            if p < 0.05:
                counts[f"{'above' if d > 0 else 'below'} {label}"] += 1
        lines.append(
            f"| {name} ({len(runs['new']['AP']):,}) | {cell(runs, 'old', 'bag')} | "
            f"{cell(runs, 'bag', None)} | {cell(runs, 'new', 'bag')} | {cell(runs, 'mono', None)} | "
            f"{100 * d_old:+.1f} (p {p_old:.4f}) | {100 * d_bag:+.1f} (p {p_bag:.4f}) |"
        )
    means = {
        k: [mean(r[split][k]["AP"]) for r in results.values() if k in r[split]] for k in ("old", "bag", "new", "mono")
    }
    recall = {k: [mean(r[split][k]["R@1000"]) for r in results.values() if k in r[split]] for k in means}
    n = len(results)
    lines.append(
        f"| mean of {n} | "
        + " | ".join(
            f"{np.mean(v):.3f} / {np.mean(recall[k]):.3f}" + ("" if len(v) == n else f" ({len(v)})")
            for k, v in means.items()
        )
        + f" | {100 * np.mean(gains):+.1f} | {100 * (np.mean(means['new']) - np.mean(means['bag'])):+.1f} |"
    )
    pres = {k: np.mean([mean(r[split][k]["PRES@1000"]) for r in results.values()]) for k in ("old", "bag", "new")}
    lines += [
        "",
        f"{split}: new significantly above / below the bag on MAP on {counts['above bag']} / "
        f"{counts['below bag']} of {n}; above / below old on {counts['above old']} / {counts['below old']}; "
        f"mean PRES@1000 old {pres['old']:.3f}, bag {pres['bag']:.3f}, new {pres['new']:.3f}",
    ]
    return "\n".join(lines)


def summary(results: dict, rows: list[tuple[str, str]], against: str, name: str) -> str:
    """One row per system (label, key) over the collections that have it: its mean dev and test MAP (with, when it
    lacks some collections, the mean of ``against`` over the same ones), and on how many collections it is
    significantly above / below ``against`` (called ``name``) on each split (paired test, p < 0.05)."""
    lines = [
        f"| system | collections | dev MAP | test MAP | dev: above / below {name} | test: above / below {name} |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, key in rows:
        have = [r for r in results.values() if key in r["dev"]]
        counts = {}
        for split in SPLITS:
            signs = [
                np.sign(d)
                for d, p in (test(r[split], key, against) for r in have if against in r[split])
                if p < 0.05 and key != against
            ]
            counts[split] = f"{signs.count(1)} / {signs.count(-1)}" if key != against else ""
        maps = {s: f"{np.mean([mean(r[s][key]['AP']) for r in have]):.3f}" for s in SPLITS}
        if len(have) < sum(against in r["dev"] for r in results.values()):
            maps = {s: f"{v} ({np.mean([mean(r[s][against]['AP']) for r in have]):.3f})" for s, v in maps.items()}
        lines.append(f"| {label} | {len(have)} | {maps['dev']} | {maps['test']} | {counts['dev']} | {counts['test']} |")
    return "\n".join(lines)


def means_table(results: dict, keys: list[tuple[str, str]], split: str, against: str | None = None) -> str:
    """Per collection, each key's MAP / R@1000 on ``split`` (marked against ``against``), and each key's mean MAP
    on ``split`` and on dev."""
    have = {n: r for n, r in results.items() if any(k in r[split] for _, k in keys)}
    lines = ["| collection | " + " | ".join(label for label, _ in keys) + " |", "|---|" + "---:|" * len(keys)]
    for name, res in have.items():
        lines.append(f"| {name} | " + " | ".join(cell(res[split], k, against) for _, k in keys) + " |")
    for s in dict.fromkeys((split, "dev")):
        lines.append(
            f"| mean MAP, {s} | "
            + " | ".join(f"{np.mean([mean(r[s][k]['AP']) for r in have.values() if k in r[s]]):.3f}" for _, k in keys)
            + " |"
        )
    return "\n".join(lines)


FUSIONS = (
    [("PSQ (the default)", "new"), ("DT", "DT"), ("DT+PSQ, weights tuned on dev", "DT+PSQ-tuned")]
    + [(f"DT+PSQ, kappa {k}", f"DT+PSQ-k{k}") for k in KAPPAS]
    + [("PSQ, Snowball lists", "PSQ-sw")]
)
WITH_MUSE = [
    ("PSQ (the default)", "new"),
    ("query side, IBM1 + MUSE (table2), rank", "Q[corpus+dict]-rank"),
    ("query side, IBM1 + MUSE (table2), uniform", "Q[corpus+dict]-uni"),
    ("MUSE alone (Pirkola), rank", "Q[dict]-rank"),
    ("MUSE alone (Pirkola), uniform", "Q[dict]-uni"),
    ("document side, reverse IBM1 + reverse MUSE, rank", "D[corpus+rdict]-rank"),
    ("document side, reverse IBM1 + reverse MUSE, uniform", "D[corpus+rdict]-uni"),
]
OUT_OF_DOMAIN = [
    ("bag", "bag[ood]"),
    ("MUSE bag", "bag[dict]"),
    ("PSQ, queries", "Q[ood]"),
    ("PSQ, documents", "D[ood]"),
    ("MUSE alone, uniform", "Q[dict]-uni"),
    ("+ MUSE, queries, uniform", "Q[ood+dict]-uni"),
    ("+ MUSE, documents, rank", "D[ood+rdict]-rank"),
]


def report(results: dict) -> str:
    """The tables of baselines/README.md, "Today's defaults"."""
    ood = {n: r for n, r in results.items() if "D[ood]" in r["dev"]}
    weights = [f"{n} {r['weights']['DT+PSQ-tuned']}" for n, r in results.items() if "DT+PSQ-tuned" in r["weights"]]
    return "\n".join(
        [
            "### The table: today's defaults, the old ones, the bag and the ceiling (test split, MAP / R@1000)",
            "",
            done_when(results, "test"),
            "",
            "dev split:",
            "",
            done_when(results, "dev"),
            "",
            "### DT fused with PSQ translating the documents; the Snowball lists",
            "",
            summary(results, FUSIONS, "new", "PSQ"),
            "",
            "weights (DT, PSQ) tuned on dev: " + ", ".join(weights),
            "",
            "### A parallel corpus and MUSE; MUSE's weights",
            "",
            summary({n: r for n, r in results.items() if "Q[dict]-rank" in r["dev"]}, WITH_MUSE, "new", "PSQ"),
            "",
            "An out-of-domain corpus and MUSE, against MUSE's bag:",
            "",
            summary(
                ood,
                [(label, key) for label, key in OUT_OF_DOMAIN if "dict]" in key]
                + [
                    ("+ MUSE, queries, rank", "Q[ood+dict]-rank"),
                    ("+ MUSE, documents, uniform", "D[ood+rdict]-uni"),
                    ("MUSE alone, rank", "Q[dict]-rank"),
                ],
                "bag[dict]",
                "the MUSE bag",
            ),
            "",
            "### An out-of-domain corpus (test split, MAP / R@1000, + / -: against the MUSE bag)",
            "",
            means_table(ood, OUT_OF_DOMAIN, "test", "bag[dict]"),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", required=True, help="folder of the results (and the tables, OUT/work)")
    parser.add_argument("--collections", nargs="+", default=list(bench.DEV_COLLECTIONS))
    parser.add_argument("--groups", nargs="+", default=list(GROUPS), choices=GROUPS)
    parser.add_argument("--force", action="store_true", help="redo the groups already measured")
    parser.add_argument("--report", action="store_true", help="print the tables from OUT")
    args = parser.parse_args(argv)
    out = Path(args.output)
    if args.report:
        print(report(load(out)))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for name in args.collections:
        measure(name, out, args.groups, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
