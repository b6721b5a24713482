"""Defaults across collection kinds: DT, PSQ and the every-translation bag under each analysis, on every dev
collection, with each translation resource the collection has (baselines/README.md, "Defaults across
collections").

For each collection and each *analysis* (stemming and stoplists, below) it builds the index of the documents,
the IBM Model 1 tables (the collection's own parallel corpus, and an out-of-domain corpus where one is named),
the MUSE dictionary table where one exists, and runs on the dev and test topics:

- ``DT`` and ``PSQ`` with the analysis's stoplists, over each resource (``PSQ`` over a corpus table and the
  dictionary also interpolated, lam = 0.5: ``PSQ[corpus+dict]``);
- ``bag``: every translation of every query word its own BM25 query term (``PSQ(mode="all")``), no stoplist,
  the naive baseline a default must never fall significantly below;
- ``mono``: monolingual BM25 of the same topics in the documents' language, where the collection has an
  ``english-queries`` variant (the ceiling).

Per-query AP and R@1000 of every run are kept in ``OUT/COLLECTION.json`` (a rerun skips the collections already
there; ``--force`` redoes them); ``--report`` prints the Markdown tables of baselines/README.md from them
(paired randomization tests, 10,000 sign flips, seed 0).

    python baselines/transfer.py -o baselines/results/transfer            # all collections (about 40 min)
    python baselines/transfer.py -o baselines/results/transfer --report   # the tables
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from clirkit import datasets
from clirkit.analysis import SNOWBALL_STOPWORDS, Analyzer, cached_tokens
from clirkit.bm25 import BM25
from clirkit.errors import ClirkitError
from clirkit.index import Index
from clirkit.metrics import evaluate
from clirkit.query import StructuredQueries
from clirkit.significance import paired_test
from clirkit.systems import DT, PSQ
from clirkit.translation import TranslationTable, load_table, train_table

MEASURES = ["AP", "R@1000"]
SPLITS = ("dev", "test")
OLD_STOPLIST = 100  # the corpus-frequency stoplists on by default until this study

# analysis name -> (stemmer, Snowball stopword list on every side, corpus-frequency stoplists' size)
ANALYSES = {
    "old": (None, False, OLD_STOPLIST),  # the defaults before this study
    "plain": (None, False, 0),
    "stop": (None, True, 0),
    "stem": ("snowball", False, 0),  # the new defaults
    "stem+stop": ("snowball", True, 0),
    "new": ("snowball", False, 0),  # DT() and PSQ() with no argument: clirkit's defaults as they are now
}

PRUNINGS = {"C.8": {"cumulative": 0.8}, "C.6": {"cumulative": 0.6}, "L.1": {"min_prob": 0.1}}

# collection -> MUSE dictionary (in ../shared/data/muse) and out-of-domain parallel corpus (another collection)
RESOURCES = {
    "nave-en-es": {"dict": "en-es.dict"},
    "bible-verse-es-en": {"dict": "es-en.dict"},
    "multi30k-de-en": {"dict": "de-en.dict"},
    "debian-desc-es-en": {"dict": "es-en.dict", "ood": "bible-verse-es-en"},
    "debian-desc-de-en": {"dict": "de-en.dict", "ood": "multi30k-de-en"},
    "debian-desc-ru-en": {},
    "debian-desc-fr-en": {"dict": "fr-en.dict"},
    "gettext-es-en": {"dict": "es-en.dict", "ood": "bible-verse-es-en"},
    "gettext-de-en": {"dict": "de-en.dict", "ood": "multi30k-de-en"},
    "gettext-ru-en": {},
    "gettext-zh-en": {},
    "manpages-es-en": {"dict": "es-en.dict", "ood": "bible-verse-es-en"},
    "manpages-de-en": {"dict": "de-en.dict", "ood": "multi30k-de-en"},
    "manpages-ru-en": {},
}


# PSQ's parameters before this study, pinned so that every variant below says what it changes from them
MEASURED = {"min_prob": 0.005, "cumulative": 0.95, "mode": "psq"}


def psq(**params) -> PSQ:
    """PSQ with :data:`MEASURED` and ``params`` (the runs keep their meaning whatever PSQ's defaults)."""
    return PSQ(**{**MEASURED, **params})


def defaults_systems(index, tables: dict) -> dict:
    """DT and PSQ with clirkit's defaults over each table (PSQ over a corpus table also interpolated with the
    dictionary), and over the dictionary the bag of every translation, unpruned."""
    systems = {}
    for kind, table in tables.items():
        if kind != "dictu":
            systems[f"DT[{kind}]"] = DT().fit(index, table)
        systems[f"PSQ[{kind}]"] = PSQ().fit(index, table)
        if kind in ("corpus", "ood") and "dict" in tables:
            systems[f"PSQ[{kind}+dict]"] = PSQ().fit(index, table, tables["dict"])
        if kind == "dict":
            systems["bag-all[dict]"] = PSQ(mode="all", min_prob=0.0, cumulative=1.0).fit(index, table)
        if kind == "dictu":  # DT's tie rule: a word's translations all tie; without the dictionary's ranks the
            # rarest one in the collection wins (with them, the one listed first)
            unranked = TranslationTable(table.source_vocab, table.target_vocab, table.probs, table.params)
            systems["DT-rarest[dict]"] = DT().fit(index, unranked)
            systems["DT-first[dict]"] = DT().fit(index, table)
    return systems


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def analyzer(lang: str, analysis: str) -> Analyzer:
    stemmer, stop, _ = ANALYSES[analysis]
    try:
        return Analyzer(lang, stemmer=stemmer, stopwords="snowball" if stop else None)
    except ClirkitError:  # no Snowball list for this language
        return Analyzer(lang, stemmer=stemmer)


def scores(run, qrels) -> dict[str, dict[str, float]]:
    """``{measure: {qid: value}}`` of ``run`` (every query of the qrels; a missing one scores 0)."""
    table = evaluate(run, qrels, MEASURES)  # rows: every query of the qrels, a missing one 0
    qids = table.qids.tolist()
    return {m: dict(zip(qids, table.column(m).tolist())) for m in MEASURES}


def collection_runs(name: str, shared: str | None, analyses: list[str], resources: list[str]) -> dict:
    """Every run of one collection: ``{split: {system: {measure: {qid: value}}}}``, over the ``resources``
    (``corpus``, ``ood``, ``dict``) it has."""
    c = datasets.load(name, shared=shared)
    res = RESOURCES.get(name, {})
    out: dict[str, dict] = {s: {} for s in SPLITS}
    docids, texts = c.documents()
    topics = {s: c.queries(s) for s in SPLITS}
    qrels = {s: c.qrels(s) for s in SPLITS}
    source, target = c.parallel()
    ood = datasets.load(res["ood"], shared=shared).parallel() if "ood" in res and "ood" in resources else None
    muse = (Path(shared or "../shared") / "data" / "muse" / res["dict"]
            if "dict" in res and "dict" in resources else None)
    for analysis in analyses:
        t0 = time.time()
        src, tgt = analyzer(c.source_lang, analysis), analyzer(c.target_lang, analysis)
        top = ANALYSES[analysis][2]
        index = Index.from_tokens(docids, tgt.tokenize_many(texts, jobs=2), tgt)
        tables = {}
        if "corpus" in resources:
            tables["corpus"] = train_table(src.tokenize_many(source, jobs=2), tgt.tokenize_many(target, jobs=2),
                                           src, tgt)
        if ood is not None:
            tables["ood"] = train_table(src.tokenize_many(ood[0], jobs=2), tgt.tokenize_many(ood[1], jobs=2),
                                        src, tgt)
        if muse is not None:
            tables["dict"] = load_table(muse, source_lang=c.source_lang, target_lang=c.target_lang,
                                        stemmer=ANALYSES[analysis][0])
            if analysis in ("plain", "stem", "new"):  # the dictionary's other weighting, and Pirkola's query
                tables["dictu"] = load_table(muse, source_lang=c.source_lang, target_lang=c.target_lang,
                                             stemmer=ANALYSES[analysis][0], weighting="uniform")
        systems = {}
        if analysis == "new":
            systems = defaults_systems(index, tables)
            tables = {}
        listed = analysis in ("plain", "stem") and c.target_lang in SNOWBALL_STOPWORDS
        for kind, table in tables.items():
            systems[f"DT[{kind}]"] = DT(source_stopwords_top=top).fit(index, table)
            systems[f"PSQ[{kind}]"] = psq(source_stopwords_top=top, target_stopwords_top=top).fit(index, table)
            if analysis in ("plain", "stem"):
                systems[f"bag[{kind}]"] = psq(mode="all").fit(index, table)
            if listed:  # the Snowball list on the translation options only (tsw), or on the queries too (sw)
                systems[f"PSQ-tsw[{kind}]"] = psq(target_stopwords="snowball").fit(index, table)
                if c.source_lang in SNOWBALL_STOPWORDS:
                    systems[f"PSQ-sw[{kind}]"] = psq(target_stopwords="snowball",
                                                     source_stopwords="snowball").fit(index, table)
            if analysis == "stem":  # PSQ's pruning: cumulative mass C (default .95), minimum probability L (.005)
                for label, pruning in PRUNINGS.items():
                    systems[f"PSQ-{label}[{kind}]"] = psq(**pruning).fit(index, table)
                    if kind in ("corpus", "ood") and "dict" in tables:
                        systems[f"PSQ-{label}[{kind}+dict]"] = psq(lam=0.5, **pruning).fit(index, table, tables["dict"])
            if kind in ("dict", "dictu") and analysis in ("plain", "stem"):
                systems[f"pirkola[{kind}]"] = psq(mode="pirkola", min_prob=0.005).fit(index, table)
                systems[f"pirkola-L.1[{kind}]"] = psq(mode="pirkola", min_prob=0.1).fit(index, table)
            if kind in ("corpus", "ood") and "dict" in tables:
                systems[f"PSQ[{kind}+dict]"] = psq(source_stopwords_top=top, target_stopwords_top=top,
                                                   lam=0.5).fit(index, table, tables["dict"])
                if listed:
                    systems[f"PSQ-tsw[{kind}+dict]"] = psq(target_stopwords="snowball", lam=0.5).fit(
                        index, table, tables["dict"])
        for label, system in systems.items():
            for s in SPLITS:
                out[s][f"{analysis}:{label}"] = scores(system.search(topics[s]), qrels[s])
        if analysis in ("plain", "stem") and "english-queries" in datasets.variants(name) and "corpus" in resources:
            mono = datasets.load(name, variant="english-queries", shared=shared)
            en = analyzer(c.target_lang, analysis)
            for s in SPLITS:
                q = mono.queries(s)
                sq = StructuredQueries.from_tokens(list(q), en.tokenize_many(list(q.values())), index.vocabulary)
                run = BM25(index).search(sq)
                out[s][f"{analysis}:mono"] = scores(run, qrels[s])
        say(f"{name} {analysis}: {len(systems)} systems in {time.time() - t0:.0f} s")
    return out


# report -----------------------------------------------------------------------------------------------------


def load_results(folder: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def mean(per: dict[str, float]) -> float:
    return sum(per.values()) / len(per) if per else 0.0


def cell(runs: dict, system: str, against, measure: str = "AP") -> str:
    """``system``'s mean ``measure``, marked ``-`` when a paired randomization test puts it significantly below
    one of the runs ``against`` (a key or a list of keys; p < 0.05), ``+`` when significantly above all of them."""
    if system not in runs:
        return "-"
    value = mean(runs[system][measure])
    others = [k for k in ([against] if isinstance(against, str) else against or []) if k in runs and k != system]
    marks = []
    for other in others:
        a, b = runs[system][measure], runs[other][measure]
        qids = sorted(a)
        test = paired_test([a[q] for q in qids], [b[q] for q in qids])
        marks.append(("+" if value > mean(b) else "-") if test.p_value < 0.05 else "")
    mark = "-" if "-" in marks else ("+" if marks and all(m == "+" for m in marks) else "")
    return f"{value:.3f}{mark}"


BAGS = {"corpus": ["stem:bag[corpus]"], "ood": ["stem:bag[ood]"], "dict": ["stem:bag[dict]", "new:bag-all[dict]"]}

# the tables of baselines/README.md: (title, resource, [(column label, system key)])
TABLES = [
    ("the collection's own parallel corpus (IBM Model 1)", "corpus", [
        ("bag", "stem:bag[corpus]"), ("DT old", "old:DT[corpus]"), ("PSQ old", "old:PSQ[corpus]"),
        ("DT new", "new:DT[corpus]"), ("PSQ new", "new:PSQ[corpus]"), ("PSQ new + MUSE", "new:PSQ[corpus+dict]"),
        ("mono", "stem:mono")]),
    ("a dictionary only (MUSE)", "dict", [
        ("bag", "stem:bag[dict]"), ("bag, unpruned", "new:bag-all[dict]"), ("DT old", "old:DT[dict]"),
        ("PSQ old", "old:PSQ[dict]"), ("DT new", "new:DT[dict]"), ("PSQ new (Pirkola)", "new:PSQ[dict]")]),
    ("an out-of-domain parallel corpus (es: Bible verses, de: Multi30k captions)", "ood", [
        ("bag", "stem:bag[ood]"), ("DT old", "old:DT[ood]"), ("PSQ old", "old:PSQ[ood]"),
        ("DT new", "new:DT[ood]"), ("PSQ new", "new:PSQ[ood]"), ("PSQ old + MUSE", "old:PSQ[ood+dict]"),
        ("PSQ new + MUSE", "new:PSQ[ood+dict]")]),
]


def report(folder: Path, split: str, tables=TABLES) -> str:
    """Markdown tables of ``split``: per collection, each column's MAP and R@1000, marked + / - where a paired
    randomization test puts it significantly above / below the bag(s) of the resource (p < 0.05; :func:`cell`);
    the last row is each column's mean MAP over the collections that have it (how many, when not all)."""
    results = load_results(folder)
    lines = []
    for title, kind, columns in tables:
        lines += [f"**{title}**, {split} split: MAP / R@1000", "",
                  "| collection | " + " | ".join(label for label, _ in columns) + " |",
                  "|---|" + "---:|" * len(columns)]
        column_maps: list[list[float]] = [[] for _ in columns]
        for name, res in results.items():
            runs = res[split]
            if BAGS[kind][0] not in runs:
                continue
            cells = [" / ".join(cell(runs, key, None if "bag" in key or "mono" in key else BAGS[kind], m)
                                for m in MEASURES) for _, key in columns]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
            for values, (_, key) in zip(column_maps, columns):
                if key in runs:
                    values.append(mean(runs[key]["AP"]))
        rows = max(map(len, column_maps))
        lines.append("| mean MAP | " + " | ".join(
            f"{sum(v) / len(v):.3f}" + ("" if len(v) == rows else f" ({len(v)})") if v else "" for v in column_maps)
            + " |")
        lines.append("")
    return "\n".join(lines)


def choices(folder: Path, split: str = "dev") -> str:
    """For each resource, every system variant's mean AP over the collections that have it (with how many),
    best first, and the collections where it is significantly below the bag of its analysis on ``split``: the
    table the defaults are chosen from (on dev)."""
    results = load_results(folder)
    lines = []
    for kind in ("corpus", "corpus+dict", "dict", "dictu", "ood", "ood+dict"):
        base = kind.split("+")[0].replace("dictu", "dict")
        keys = sorted({k for res in results.values() for k in res[split] if k.endswith(f"[{kind}]")})
        rows = []
        for key in keys:
            have = [n for n, res in results.items() if key in res[split]]
            values = [mean(results[n][split][key]["AP"]) for n in have]
            below = []
            for n in have:
                runs = results[n][split]
                bag = f"{'plain' if key.startswith(('plain', 'old')) else 'stem'}:bag[{base}]"
                if bag in runs and cell(runs, key, bag).endswith("-"):
                    below.append(n)
            rows.append((sum(values) / len(values), key, len(have), below))
        lines.append(f"{kind}:")
        for value, key, n, below in sorted(rows, reverse=True):
            lines.append(f"  {value:.4f}  {key:30s} ({n} collections){'  below bag: ' + ', '.join(below) if below else ''}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True, help="folder of per-collection JSON results")
    ap.add_argument("--collections", nargs="*", default=list(RESOURCES))
    ap.add_argument("--analyses", nargs="*", default=["old", "plain", "stem", "stem+stop", "new"], choices=list(ANALYSES))
    ap.add_argument("--resources", nargs="*", default=["corpus", "ood", "dict"], choices=["corpus", "ood", "dict"],
                    help="the translation resources to run (the runs are merged into an existing file)")
    ap.add_argument("--shared", default=None, help="the shared data folder (default: clirkit's own search)")
    ap.add_argument("--force", action="store_true", help="redo collections already in the output folder")
    ap.add_argument("--merge", action="store_true", help="add these runs to a collection's existing file")
    ap.add_argument("--report", action="store_true", help="print the tables from the output folder")
    ap.add_argument("--choices", action="store_true",
                    help="print each system variant's mean AP over the collections, per resource")
    ap.add_argument("--split", default="test", choices=SPLITS)
    args = ap.parse_args(argv)
    folder = Path(args.output)
    if args.report:
        print(report(folder, args.split))
        return 0
    if args.choices:
        print(choices(folder, args.split))
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    with cached_tokens():
        for name in args.collections:
            path = folder / f"{name}.json"
            partial = args.merge or set(args.resources) != {"corpus", "ood", "dict"}
            if path.exists() and not (args.force or partial):
                continue
            try:
                runs = collection_runs(name, args.shared, args.analyses, args.resources)
            except ClirkitError as exc:
                say(f"{name}: skipped ({exc})")
                continue
            if partial and path.exists():  # merge these resources' runs into the file's
                kept = json.loads(path.read_text())
                for split in runs:
                    kept[split].update(runs[split])
                runs = kept
            path.write_text(json.dumps(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
