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
from collections import Counter
from pathlib import Path

from clirkit import datasets
from clirkit.analysis import SNOWBALL_STOPWORDS, Analyzer, cached_tokens
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.metrics import evaluate
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.index import Index
from clirkit.retrieval.query import StructuredQueries
from clirkit.significance import paired_test
from clirkit.systems import DT, PSQ, Fusion
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


def defaults_systems(index, tables: dict, counts: dict | None = None) -> dict:
    """DT and PSQ with clirkit's defaults over each table (PSQ over a corpus table also interpolated with the
    dictionary), and over the dictionary the bag of every translation, unpruned; with ``counts`` (the source
    word counts of each corpus table's parallel text, ``{kind: Counter}``) also the variants measured for
    the defaults of 2026-11-26 (:func:`variant_systems`)."""
    systems = {}
    for kind, table in tables.items():
        given = Resources(index=index, table=table)
        if kind != "dictu":
            systems[f"DT[{kind}]"] = DT().fit(given)
        systems[f"PSQ[{kind}]"] = PSQ().fit(given)
        if kind in ("corpus", "ood") and "dict" in tables:
            systems[f"PSQ[{kind}+dict]"] = PSQ().fit(Resources(index=index, table=table, table2=tables["dict"]))
        if kind == "dict":
            systems["bag-all[dict]"] = PSQ(mode="all", min_prob=0.0, cumulative=1.0).fit(given)
        if kind == "dictu":  # DT's tie rule: a word's translations all tie; without the dictionary's ranks the
            # rarest one in the collection wins (with them, the one listed first)
            unranked = TranslationTable(table.source_vocab, table.target_vocab, table.probs, table.params)
            systems["DT-rarest[dict]"] = DT().fit(Resources(index=index, table=unranked))
            systems["DT-first[dict]"] = DT().fit(given)
    if counts is not None:
        systems.update(variant_systems(index, tables, counts, systems))
    return systems


COVERAGE_MUS = (10, 100)  # coverage-weighted interpolation: lam * n / (n + mu), n the word's corpus count
KAPPAS = (0.3, 0.5, 0.7)  # fixed fusion weights of the first system


def variant_systems(index, tables: dict, counts: dict, defaults: dict) -> dict:
    """The variants measured against the defaults (all with clirkit's defaults otherwise):

    - ``bag[kind]``: the every-translation bag over the table pruned as before the study (L .005), the
      comparison of every cell (as ``stem:bag``);
    - ``DT-sw`` / ``PSQ-sw``: the Snowball stopword lists at query time (DT: the query's; PSQ: the query's
      and the options'), with L .1;
    - ``PSQ-cov{mu}[kind+dict]``: a corpus table interpolated with the dictionary, each source word weighted
      ``0.5 n / (n + mu)`` by its count n in the parallel text (a rare or unseen word leans on the dictionary);
    - fusions of runs (sum-normalized interpolation, :class:`~clirkit.systems.Fusion`): ``DT+PSQ`` of a table
      and ``PSQ+dict`` (PSQ over a corpus table with PSQ over the dictionary alone, i.e. Pirkola), each with
      the first system's weight fixed (``k.3``, ``k.5``, ``k.7``) or tuned on the dev MAP (``tuned``, step .1).
    """
    from clirkit.systems import Fusion
    from clirkit.translation.prune import coverage_weights, interpolate

    systems = {}
    listed = index.analyzer.lang in SNOWBALL_STOPWORDS
    for kind, table in tables.items():
        given = Resources(index=index, table=table)
        if kind == "dictu":
            continue
        systems[f"bag[{kind}]"] = psq(mode="all").fit(given)
        source_listed = table.params.get("source_lang") in SNOWBALL_STOPWORDS
        if listed and source_listed:
            systems[f"DT-sw[{kind}]"] = DT(source_stopwords="snowball").fit(given)
            systems[f"PSQ-sw[{kind}]"] = PSQ(source_stopwords="snowball", target_stopwords="snowball").fit(given)
        if listed:
            systems[f"PSQ-tsw[{kind}]"] = PSQ(target_stopwords="snowball").fit(given)
        for k in KAPPAS:
            systems[f"DT+PSQ-k{k}[{kind}]"] = Fusion(
                [defaults[f"DT[{kind}]"], defaults[f"PSQ[{kind}]"]], weights=[k, 1 - k]
            )
        systems[f"DT+PSQ-tuned[{kind}]"] = Fusion([defaults[f"DT[{kind}]"], defaults[f"PSQ[{kind}]"]])
        if kind in ("corpus", "ood") and "dict" in tables:
            for mu in COVERAGE_MUS:
                weights = coverage_weights(table, counts[kind], lam=0.5, mu=mu)
                systems[f"PSQ-cov{mu}[{kind}+dict]"] = PSQ().fit(
                    Resources(index=index, table=interpolate(table, tables["dict"], weights))
                )
            pair = [defaults[f"PSQ[{kind}]"], defaults["PSQ[dict]"]]
            for k in KAPPAS:
                systems[f"PSQ+dict-k{k}[{kind}]"] = Fusion(pair, weights=[k, 1 - k])
            systems[f"PSQ+dict-tuned[{kind}]"] = Fusion(pair)
    return systems


DECOMPOUNDED = ("de", "nl")  # languages whose queries are also measured decompounded
CORPUS_MIN_COUNT = 3  # a part must occur this often in the parallel text (rarer ones are mostly junk)


def stemmer_of(analyzer):
    """The analyzer's stemming of one word (the word itself when its stopwords drop it)."""
    return lambda word: (analyzer.finish([word]) or [word])[0]


def decompounded_runs(src, tgt, index, resources: dict, topics: dict, qrels: dict, defaults: dict, plain: dict) -> dict:
    """``{split: {label: scores}}`` of DT and PSQ (defaults) over each resource with the queries, and the
    corpus's source side, split into compound parts (:class:`clirkit.decompound.CompoundSplitter`, Koehn and
    Knight's frequency rule) before stemming. The splitter's lexicon is the resource's own source side: the
    parallel text's words occurring at least :data:`CORPUS_MIN_COUNT` times (a word of a corpus is split when
    its parts are more frequent than it), or a dictionary's headwords (count 1 each: a word the dictionary
    lacks is split into headwords it has). ``resources``: ``{kind: (source texts, target texts)}`` for a
    corpus, ``{"dict": path}`` for the dictionary. Also (``qdcn``) that rule on the queries only, over the
    counts of the corpus's stemmed source terms, with the tables ``plain`` made without splitting; and
    (``qdc``) every DT and PSQ of ``defaults`` with the queries split on their own table's terms."""
    from clirkit.decompound import CompoundSplitter

    surface = src.replace(stemmer=None, stopwords=None)
    query_surface = {s: surface.tokenize_many(list(topics[s].values()), jobs=2) for s in SPLITS}
    out: dict[str, dict] = {s: {} for s in SPLITS}
    for kind, resource in resources.items():
        if kind == "dict":
            words = load_table(resource, source_lang=src.lang, target_lang=tgt.lang, stemmer=None).source_vocab
            splitter = CompoundSplitter({w: 1 for w in words.tolist()})
            table = load_table(resource, source_lang=src.lang, target_lang=tgt.lang)
        else:
            source_surface = surface.tokenize_many(resource[0], jobs=2)
            splitter = CompoundSplitter.from_tokens(source_surface, min_count=CORPUS_MIN_COUNT)
            table = train_table(
                [src.finish(ts) for ts in splitter.split_many(source_surface)],
                tgt.tokenize_many(resource[1], jobs=2),
                src,
                tgt,
            )
        given = Resources(index=index, table=table)
        for system in (DT().fit(given), PSQ().fit(given)):
            for s in SPLITS:
                tokens = [src.finish(ts) for ts in splitter.split_many(query_surface[s])]
                run = system.search_structured(system.structured_from_tokens(list(topics[s]), tokens))
                out[s][f"new:{type(system).__name__}-dc[{kind}]"] = scores(run, qrels[s])
        if kind != "dict":  # Koehn and Knight's rule on the queries only, over the stemmed corpus's counts
            stem = stemmer_of(src)
            counts = Counter(t for ts in src.tokenize_many(resource[0], jobs=2) for t in ts)
            splits = CompoundSplitter(counts, min_count=CORPUS_MIN_COUNT, key=stem)
            given = Resources(index=index, table=plain[kind])
            for system in (DT().fit(given), PSQ().fit(given)):
                for s in SPLITS:
                    tokens = [src.finish(ts) for ts in splits.split_many(query_surface[s])]
                    run = system.search_structured(system.structured_from_tokens(list(topics[s]), tokens))
                    out[s][f"new:{type(system).__name__}-qdcn[{kind}]"] = scores(run, qrels[s])
    # the queries only, every default system as it is: a query word its table lacks is split into parts whose
    # stems the table has (the table's source terms are the lexicon, count 1 each)
    for label, system in defaults.items():
        if label.split("[")[0] in ("DT", "PSQ") and "[dictu]" not in label:
            table = system.table_
            splits = CompoundSplitter({t: 1 for t in table.source_vocab.tolist()}, key=stemmer_of(src))
            for s in SPLITS:
                tokens = [src.finish(ts) for ts in splits.split_many(query_surface[s])]
                run = system.search_structured(system.structured_from_tokens(list(topics[s]), tokens))
                out[s][f"new:{label.replace('[', '-qdc[', 1)}"] = scores(run, qrels[s])
    return out


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


def collection_runs(
    name: str, shared: str | None, analyses: list[str], resources: list[str], variants: bool = False
) -> dict:
    """Every run of one collection: ``{split: {system: {measure: {qid: value}}}}``, over the ``resources``
    (``corpus``, ``ood``, ``dict``) it has; ``variants``: also :func:`variant_systems` (analysis ``new``); the
    fusions' weights are kept under ``"weights"``."""
    c = datasets.load(name, shared=shared)
    res = RESOURCES.get(name, {})
    out: dict[str, dict] = {s: {} for s in SPLITS}
    docids, texts = c.documents()
    topics = {s: c.queries(s) for s in SPLITS}
    qrels = {s: c.qrels(s) for s in SPLITS}
    source, target = c.parallel()
    ood = datasets.load(res["ood"], shared=shared).parallel() if "ood" in res and "ood" in resources else None
    muse = (
        Path(shared or "../shared") / "data" / "muse" / res["dict"] if "dict" in res and "dict" in resources else None
    )
    for analysis in analyses:
        t0 = time.time()
        src, tgt = analyzer(c.source_lang, analysis), analyzer(c.target_lang, analysis)
        top = ANALYSES[analysis][2]
        index = Index.from_tokens(docids, tgt.tokenize_many(texts, jobs=2), tgt)
        tables, counts = {}, {}
        for kind, pair in (("corpus", (source, target) if "corpus" in resources else None), ("ood", ood)):
            if pair is not None:
                source_tokens = src.tokenize_many(pair[0], jobs=2)
                tables[kind] = train_table(source_tokens, tgt.tokenize_many(pair[1], jobs=2), src, tgt)
                counts[kind] = Counter(t for ts in source_tokens for t in ts)
        if muse is not None:
            tables["dict"] = load_table(
                muse, source_lang=c.source_lang, target_lang=c.target_lang, stemmer=ANALYSES[analysis][0]
            )
            if analysis in ("plain", "stem", "new"):  # the dictionary's other weighting, and Pirkola's query
                tables["dictu"] = load_table(
                    muse,
                    source_lang=c.source_lang,
                    target_lang=c.target_lang,
                    stemmer=ANALYSES[analysis][0],
                    weighting="uniform",
                )
        systems = {}
        made = dict(tables)
        if analysis == "new":
            systems = defaults_systems(index, tables, counts if variants else None)
            tables = {}
        listed = analysis in ("plain", "stem") and c.target_lang in SNOWBALL_STOPWORDS
        for kind, table in tables.items():
            given = Resources(index=index, table=table)
            systems[f"DT[{kind}]"] = DT(source_stopwords_top=top).fit(given)
            systems[f"PSQ[{kind}]"] = psq(source_stopwords_top=top, target_stopwords_top=top).fit(given)
            if analysis in ("plain", "stem"):
                systems[f"bag[{kind}]"] = psq(mode="all").fit(given)
            if listed:  # the Snowball list on the translation options only (tsw), or on the queries too (sw)
                systems[f"PSQ-tsw[{kind}]"] = psq(target_stopwords="snowball").fit(given)
                if c.source_lang in SNOWBALL_STOPWORDS:
                    systems[f"PSQ-sw[{kind}]"] = psq(target_stopwords="snowball", source_stopwords="snowball").fit(
                        given
                    )
            if analysis == "stem":  # PSQ's pruning: cumulative mass C (default .95), minimum probability L (.005)
                for label, pruning in PRUNINGS.items():
                    systems[f"PSQ-{label}[{kind}]"] = psq(**pruning).fit(given)
                    if kind in ("corpus", "ood") and "dict" in tables:
                        systems[f"PSQ-{label}[{kind}+dict]"] = psq(lam=0.5, **pruning).fit(
                            Resources(index=index, table=table, table2=tables["dict"])
                        )
            if kind in ("dict", "dictu") and analysis in ("plain", "stem"):
                systems[f"pirkola[{kind}]"] = psq(mode="pirkola", min_prob=0.005).fit(given)
                systems[f"pirkola-L.1[{kind}]"] = psq(mode="pirkola", min_prob=0.1).fit(given)
            if kind in ("corpus", "ood") and "dict" in tables:
                systems[f"PSQ[{kind}+dict]"] = psq(source_stopwords_top=top, target_stopwords_top=top, lam=0.5).fit(
                    Resources(index=index, table=table, table2=tables["dict"])
                )
                if listed:
                    systems[f"PSQ-tsw[{kind}+dict]"] = psq(target_stopwords="snowball", lam=0.5).fit(
                        Resources(index=index, table=table, table2=tables["dict"])
                    )
        if analysis == "new" and variants and c.source_lang in DECOMPOUNDED:
            parts = {
                k: v
                for k, v in (
                    ("corpus", (source, target) if "corpus" in resources else None),
                    ("ood", ood),
                    ("dict", muse),
                )
                if v is not None
            }
            for s, runs in decompounded_runs(src, tgt, index, parts, topics, qrels, systems, made).items():
                out[s].update(runs)
        for label, system in systems.items():
            if isinstance(system, Fusion):  # weights tuned on (or, given, checked against) the dev topics
                system.fit(Resources(topics={"dev": topics["dev"]}, qrels={"dev": qrels["dev"]}))
                out.setdefault("weights", {})[f"{analysis}:{label}"] = system.weights_
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
    (
        "the collection's own parallel corpus (IBM Model 1)",
        "corpus",
        [
            ("bag", "stem:bag[corpus]"),
            ("DT old", "old:DT[corpus]"),
            ("PSQ old", "old:PSQ[corpus]"),
            ("DT new", "new:DT[corpus]"),
            ("PSQ new", "new:PSQ[corpus]"),
            ("PSQ new + MUSE", "new:PSQ[corpus+dict]"),
            ("mono", "stem:mono"),
        ],
    ),
    (
        "a dictionary only (MUSE)",
        "dict",
        [
            ("bag", "stem:bag[dict]"),
            ("bag, unpruned", "new:bag-all[dict]"),
            ("DT old", "old:DT[dict]"),
            ("PSQ old", "old:PSQ[dict]"),
            ("DT new", "new:DT[dict]"),
            ("PSQ new (Pirkola)", "new:PSQ[dict]"),
        ],
    ),
    (
        "an out-of-domain parallel corpus (es: Bible verses, de: Multi30k captions)",
        "ood",
        [
            ("bag", "stem:bag[ood]"),
            ("DT old", "old:DT[ood]"),
            ("PSQ old", "old:PSQ[ood]"),
            ("DT new", "new:DT[ood]"),
            ("PSQ new", "new:PSQ[ood]"),
            ("PSQ old + MUSE", "old:PSQ[ood+dict]"),
            ("PSQ new + MUSE", "new:PSQ[ood+dict]"),
        ],
    ),
]


# the bags of the study of 2026-11-26 (analysis "new" with --variants): each resource's, pruned as before
BAGS_NEW = {"corpus": ["new:bag[corpus]"], "ood": ["new:bag[ood]"], "dict": ["new:bag[dict]", "new:bag-all[dict]"]}

# the tables of that study in baselines/README.md ("Defaults across collections, round 2")
TABLES_VARIANTS = [
    (
        "the collection's own parallel corpus (IBM Model 1)",
        "corpus",
        [
            ("bag", "new:bag[corpus]"),
            ("DT", "new:DT[corpus]"),
            ("PSQ", "new:PSQ[corpus]"),
            ("DT+PSQ k .5", "new:DT+PSQ-k0.5[corpus]"),
            ("DT+PSQ tuned", "new:DT+PSQ-tuned[corpus]"),
            ("PSQ, Snowball lists", "new:PSQ-sw[corpus]"),
            ("PSQ + MUSE", "new:PSQ[corpus+dict]"),
            ("PSQ + MUSE, coverage", "new:PSQ-cov10[corpus+dict]"),
            ("DT split", "new:DT-qdc[corpus]"),
            ("PSQ split", "new:PSQ-qdc[corpus]"),
            ("PSQ + MUSE split", "new:PSQ-qdc[corpus+dict]"),
        ],
    ),
    (
        "a dictionary only (MUSE)",
        "dict",
        [
            ("bag", "new:bag[dict]"),
            ("DT", "new:DT[dict]"),
            ("PSQ (Pirkola)", "new:PSQ[dict]"),
            ("DT+PSQ k .5", "new:DT+PSQ-k0.5[dict]"),
            ("DT+PSQ tuned", "new:DT+PSQ-tuned[dict]"),
            ("PSQ, Snowball lists", "new:PSQ-sw[dict]"),
            ("DT split", "new:DT-qdc[dict]"),
            ("PSQ split", "new:PSQ-qdc[dict]"),
        ],
    ),
    (
        "an out-of-domain parallel corpus (es: Bible verses, de: Multi30k captions) and MUSE",
        "ood",
        [
            ("bag", "new:bag[ood]"),
            ("MUSE bag", "new:bag[dict]"),
            ("PSQ", "new:PSQ[ood]"),
            ("PSQ MUSE", "new:PSQ[dict]"),
            ("PSQ + MUSE", "new:PSQ[ood+dict]"),
            ("PSQ + MUSE, coverage", "new:PSQ-cov10[ood+dict]"),
            ("PSQ, PSQ MUSE tuned", "new:PSQ+dict-tuned[ood]"),
            ("PSQ MUSE split", "new:PSQ-qdc[dict]"),
            ("PSQ + MUSE split", "new:PSQ-qdc[ood+dict]"),
        ],
    ),
]


def report(folder: Path, split: str, tables=TABLES, bags: dict = BAGS) -> str:
    """Markdown tables of ``split``: per collection, each column's MAP and R@1000, marked + / - where a paired
    randomization test puts it significantly above / below the bag(s) of the resource (``bags``; a column
    using the dictionary also against its bags; p < 0.05; :func:`cell`); the last row is each column's mean
    MAP over the collections that have it (how many, when not all)."""
    results = load_results(folder)

    def against(kind: str, key: str) -> list[str] | None:
        if "bag" in key or "mono" in key:
            return None
        extra = bags["dict"] if kind != "dict" and "dict" in key.split(":", 1)[1] else []
        return bags[kind] + extra

    lines = []
    for title, kind, columns in tables:
        lines += [
            f"**{title}**, {split} split: MAP / R@1000",
            "",
            "| collection | " + " | ".join(label for label, _ in columns) + " |",
            "|---|" + "---:|" * len(columns),
        ]
        column_maps: list[list[float]] = [[] for _ in columns]
        for name, res in results.items():
            runs = res[split]
            if bags[kind][0] not in runs:
                continue
            cells = [" / ".join(cell(runs, key, against(kind, key), m) for m in MEASURES) for _, key in columns]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
            for values, (_, key) in zip(column_maps, columns):
                if key in runs:
                    values.append(mean(runs[key]["AP"]))
        rows = max(map(len, column_maps))
        lines.append(
            "| mean MAP | "
            + " | ".join(
                f"{sum(v) / len(v):.3f}" + ("" if len(v) == rows else f" ({len(v)})") if v else "" for v in column_maps
            )
            + " |"
        )
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
                bags = [f"{'plain' if key.startswith(('plain', 'old')) else 'stem'}:bag[{base}]", f"new:bag[{base}]"]
                if "dict" in key.split(":", 1)[1]:  # a system using the dictionary: its bag too
                    bags.append("new:bag[dict]")
                bags = [b for b in bags if b in runs and b != key]
                if bags and cell(runs, key, bags).endswith("-"):
                    below.append(n)
            rows.append((sum(values) / len(values), key, len(have), below))
        lines.append(f"{kind}:")
        for value, key, n, below in sorted(rows, reverse=True):
            marks = "  below bag: " + ", ".join(below) if below else ""
            lines.append(f"  {value:.4f}  {key:30s} ({n} collections){marks}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True, help="folder of per-collection JSON results")
    ap.add_argument("--collections", nargs="*", default=list(RESOURCES))
    ap.add_argument(
        "--analyses", nargs="*", default=["old", "plain", "stem", "stem+stop", "new"], choices=list(ANALYSES)
    )
    ap.add_argument(
        "--resources",
        nargs="*",
        default=["corpus", "ood", "dict"],
        choices=["corpus", "ood", "dict"],
        help="the translation resources to run (the runs are merged into an existing file)",
    )
    ap.add_argument("--shared", default=None, help="the shared data folder (default: clirkit's own search)")
    ap.add_argument(
        "--variants",
        action="store_true",
        help="with the analysis new, also the variants measured on 2026-11-26 (variant_systems); with "
        "--report, their tables",
    )
    ap.add_argument("--force", action="store_true", help="redo collections already in the output folder")
    ap.add_argument("--merge", action="store_true", help="add these runs to a collection's existing file")
    ap.add_argument("--report", action="store_true", help="print the tables from the output folder")
    ap.add_argument(
        "--choices", action="store_true", help="print each system variant's mean AP over the collections, per resource"
    )
    ap.add_argument("--split", default="test", choices=SPLITS)
    args = ap.parse_args(argv)
    folder = Path(args.output)
    if args.report:
        print(report(folder, args.split, *((TABLES_VARIANTS, BAGS_NEW) if args.variants else ())))
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
                runs = collection_runs(name, args.shared, args.analyses, args.resources, args.variants)
            except ClirkitError as exc:
                say(f"{name}: skipped ({exc})")
                continue
            if partial and path.exists():  # merge these resources' runs into the file's
                kept = json.loads(path.read_text())
                for split in runs:
                    kept.setdefault(split, {}).update(runs[split])
                runs = kept
            path.write_text(json.dumps(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
