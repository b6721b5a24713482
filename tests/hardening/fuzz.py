"""Random mutation fuzzing of clirkit's readers and ``.npz`` loaders.

Every text reader (documents TSV/JSONL, queries TSV/JSONL, topic files in TREC SGML, CLEF XML and SGML,
NTCIR XML and HC4/NeuCLIR JSONL, qrels, runs, parallel TSV, stopword files, translation tables in the Moses
(``source target p`` and phrase tables), HLTCOE PSQ json, pairs, MUSE (named and told by content), Ding and
FreeDict formats, Pharaoh word alignments with their parallel text, word vectors), the collection manifest
and every ``.npz`` loader (index, translation table, boost model, SCS model) is fed mutated copies of real
files: small slices of the bundled ``nave-en-es`` collection and small artifacts trained on them. The promise
checked, per input:

- the reader returns a result that passes basic invariants (ids non-empty without whitespace,
  arrays aligned, scores finite, vocabularies sorted, matrices canonical; see the ``check_*``
  functions), and a cheap use of a loaded artifact (a search, a translation) works;
- or it raises :class:`~clirkit.errors.ClirkitError`;
- never another exception, never a hang;
- and a *neutral* change (gzip the file, CRLF or CR line ends, blank lines, a byte-order mark; for an
  npz: compressed members, big-endian arrays, an unknown extra array, a re-spaced header) gives
  exactly the result of the clean file.

Mutations: bit flips, byte insertions and deletions, truncation, duplicated, dropped and swapped
lines, a field replaced by a hostile value (NaN, inf, 1e309, huge integers, empty, whitespace),
random Unicode (controls, separators, astral characters, encoded surrogates, overlong forms),
JSON values replaced by other types, gzip-compressed then damaged; for npz files: header values
replaced, removed or retyped, arrays with NaN, negatives, huge values, other dtypes (strings,
bytes, bool, complex, big-endian, pickled objects), other shapes, reversed, shuffled, truncated,
removed or swapped, and damage to the zip bytes.

    python -m tests.hardening.fuzz --minutes 10     # all targets, report on stdout, exit 1 if any failure
    python -m tests.hardening.fuzz --minutes 1 --targets qrels run --jobs 2 --json fuzz.json

(from the repository's root: it is part of the hardening harness kept with the tests, ``tests/hardening``).

The report counts, per target, the inputs tried and their outcomes: ``ok`` (a valid result),
``ClirkitError``, ``neutral`` (how many inputs were neutral changes, counted in the others too), and
the failures: ``uncaught`` (another exception while reading), ``wrong`` (an invariant broken, a neutral
change that changed the result, or a ClirkitError of several lines), ``hangs`` and ``use errors`` (an
exception other than ClirkitError while using an artifact that loaded), each kind with its first
input and traceback. Each input ``i`` is made by its own generator seeded with ``(--seed, i)``, so a
failure is reproduced with ``--replay I``. Inputs run in a worker process; one that takes more than
``--timeout`` seconds twice (the second time with three times as long) is a hang: the worker is
killed and restarted after it. ``tests/test_fuzz.py`` drives the same targets and mutations with
hypothesis.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gzip
import html
import io
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path
from typing import Callable

import numpy as np

from clirkit.errors import ClirkitError

HEADER_KEY = "__header__"  # where clirkit's npz files keep their JSON header


class Invalid(AssertionError):
    """A reader returned a result that breaks an invariant (a silent wrong result)."""


class Skip(Exception):
    """A mutation that does not apply to this input (another one is drawn)."""


# ================================================================================================
# seeds: small real files


@dataclasses.dataclass
class Target:
    """A reader or loader under test.

    ``seeds``: the clean inputs, each ``{file name: bytes}`` (the first file is the one read, the
    others sit beside it, e.g. FreeDict's ``.dict``); ``read(path)`` parses the first file;
    ``check(result)`` raises :class:`Invalid` when an invariant is broken; ``use(result)`` exercises a
    loaded artifact; ``mutable``: which files of a seed the mutations may change.
    """

    name: str
    kind: str  # "text", "json" (JSONL and JSON files) or "npz"
    seeds: list[dict[str, bytes]]
    read: Callable[[Path], object]
    check: Callable[[object], None]
    use: Callable[[object], None] | None = None
    mutable: int = 1  # the first ``mutable`` files of a seed may be mutated
    neutral: tuple[str, ...] | None = None  # the neutral changes that apply (None: all of its kind)
    clean: list[object] = dataclasses.field(default_factory=list)  # canonical results of the seeds


def _collection_slice(n_queries: int = 5, n_extra_docs: int = 8):
    """Queries (test split) judging few verses, their judgments, the judged verses and a few more, the
    verse pairs of those verses: raw lines of the bundled files, so seeds are real bytes."""
    from clirkit import datasets
    from clirkit.fileio import iter_lines

    c = datasets.load("nave-en-es")
    qrels = c.qrels("test")
    qids, counts = np.unique(qrels.qids, return_counts=True)
    small = set(qids[(counts >= 2) & (counts <= 6)].tolist())
    queries = [(q, t) for q, t in c.queries("test").items() if q in small][:n_queries]
    chosen = {q for q, _ in queries}
    judged = [
        (q, d, int(r))
        for q, d, r in zip(qrels.qids.tolist(), qrels.docids.tolist(), qrels.rels.tolist())
        if q in chosen
    ]
    wanted = {d for _, d, _ in judged}
    docs = []
    for _, line in iter_lines(c.paths["documents"]):
        docid, _, text = line.partition("\t")
        if docid in wanted or len(docs) < n_extra_docs:
            docs.append((docid, text))
        if len(docs) >= len(wanted) + n_extra_docs and wanted <= {d for d, _ in docs}:
            break
    keep = {d for d, _ in docs}
    pairs = [(i, s, t) for i, s, t in zip(c.parallel_ids(), *c.parallel()) if i in keep]
    return queries, judged, docs, pairs


def as_lines(rows) -> bytes:
    """``rows`` as UTF-8 text, one line each."""
    return "".join(f"{r}\n" for r in rows).encode("utf-8")


def _dictd_number(n: int) -> str:
    digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    out = ""
    while True:
        out = digits[n % 64] + out
        n //= 64
        if not n:
            return out


def freedict(entries: list[tuple[str, list[str]]], title: str = "English-Spanish fuzz seed") -> tuple[bytes, bytes]:
    """A dictd ``.index`` and ``.dict`` holding ``(headword, translations)`` entries (FreeDict's layout),
    the database named ``title``."""
    body, index = b"", []
    for head, translations in [("00databaseshort", [title])] + entries:
        entry = f"{head}\n1. {', '.join(translations)}\n".encode("utf-8")
        index.append(f"{head}\t{_dictd_number(len(body))}\t{_dictd_number(len(entry))}")
        body += entry
    return as_lines(index), body


def build_targets(folder: str | os.PathLike[str]) -> dict[str, Target]:
    """Make the seed files (in ``folder``, which also holds the artifacts) and the targets reading them."""
    from clirkit import datasets
    from clirkit.analysis import Analyzer, frequent_terms
    from clirkit.boost import Boosting, BoostRanker, PairFeatures, TupleSampling
    from clirkit.estimator import Resources
    from clirkit.formats import write_run
    from clirkit.psq import prepare_table, psq_queries
    from clirkit.retrieval.bm25 import BM25
    from clirkit.retrieval.index import Index
    from clirkit.run import Qrels
    from clirkit.scs.model import SCSModel
    from clirkit.scs.params import Schedule, Shape, UnitSampling
    from clirkit.translation import load_table, save_moses, save_npz_table, train_table

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    queries, judged, docs, pairs = _collection_slice()
    en, es = Analyzer("en"), Analyzer("es")
    docids, texts = [d for d, _ in docs], [t for _, t in docs]
    doc_tokens = es.tokenize_many(texts)

    # documents and queries in every layout the readers take
    seeds: dict[str, list[dict[str, bytes]]] = {}
    seeds["documents"] = [
        {"docs.tsv": as_lines(f"{d}\t{t}" for d, t in docs)},
        {"docs.tsv": as_lines(["docid\ttext"] + [f"{d}\t{t}" for d, t in docs])},
        {"docs.tsv": as_lines(["id\ttitle\ttext"] + [f"{d}\t{d.replace('.', ' ')}\t{t}" for d, t in docs])},
        {"docs.jsonl": as_lines(json.dumps({"docid": d, "text": t}, ensure_ascii=False) for d, t in docs)},
        {
            "docs.jsonl": as_lines(
                json.dumps({"_id": d, "title": d.split(".")[0], "text": t}, ensure_ascii=False) for d, t in docs
            )
        },
    ]
    topics = "".join(
        f"<top>\n<num> Number: {q}\n<title> {t.split(':')[0]}\n<desc> Description:\n{t}\n</top>\n\n" for q, t in queries
    )
    seeds["queries"] = [
        {"queries.tsv": as_lines(f"{q}\t{t}" for q, t in queries)},
        {"queries.tsv": as_lines(["qid\ttext"] + [f"{q}\t{t}" for q, t in queries])},
        {"queries.jsonl": as_lines(json.dumps({"qid": q, "text": t}, ensure_ascii=False) for q, t in queries)},
        {
            "queries.jsonl": as_lines(
                json.dumps({"query_id": q, "title": t.split(":")[0], "description": t}, ensure_ascii=False)
                for q, t in queries
            )
        },
        {"topics.txt": topics.encode("utf-8")},
    ]
    seeds["qrels"] = [
        {"qrels.txt": as_lines(f"{q} 0 {d} {r}" for q, d, r in judged)},
        {"qrels.txt": as_lines(f"{q}\t{d}\t{r}" for q, d, r in judged)},
    ]
    seeds["parallel"] = [{"parallel.tsv": as_lines(f"{i}\t{s}\t{t}" for i, s, t in pairs)}]
    frequent = frequent_terms(doc_tokens, 15)
    seeds["stopwords"] = [
        {
            "stopwords.txt": as_lines(
                ["# the most frequent Spanish terms of the slice"]
                + [f"{w}  # {i}" if i % 4 == 0 else w for i, w in enumerate(frequent)]
            )
        }
    ]

    # a translation table trained on the slice's verse pairs, and dictionaries made from it
    table = train_table(
        [en.tokenize(s) for _, s, _ in pairs], [es.tokenize(t) for _, _, t in pairs], en, es, iterations=3
    )
    small = prepare_table(table, min_prob=0.05, cumulative=None, max_options=3)
    small.params = {k: v for k, v in table.params.items() if k != "source_frequent"}
    save_moses(small, folder / "table.e2f")
    save_npz_table(small, folder / "table.npz")
    words = [w for w in en.tokenize(" ".join(t for _, t in queries)) if w in small][:12]
    options = {w: [e for e, _ in small.translations(w)] for w in words}
    ding = [f"{w} {{n}} | {w}s {{pl}} :: {'; '.join(o)} | {o[0]}s" for w, o in options.items()]
    index_bytes, dict_bytes = freedict([(w, o) for w, o in options.items()])
    seeds["moses"] = [{"table.e2f": (folder / "table.e2f").read_bytes()}]
    seeds["pairs"] = [
        {
            "en-es.pairs.tsv": as_lines(
                [f"{w}\t{e}" for w, o in options.items() for e in o]
                + ["bottomless pit\tabismo", "angel\tángel del abismo"]
            )
        },
        {"en-es.pairs.txt": as_lines(f"{w} {e}" for w, o in options.items() for e in o)},
    ]
    seeds["muse"] = [
        {"en-es.dict": as_lines(f"{e} @ {w}" for w, o in options.items() for e in o)},
        {"en-es.txt": as_lines(f"{w} {e}" for w, o in options.items() for e in o)},
    ]
    seeds["ding"] = [{"en-es.ding.txt": as_lines(["# Version :: fuzz seed in Ding's layout"] + ding)}]
    seeds["freedict"] = [{"freedict-eng-spa.index": index_bytes, "freedict-eng-spa.dict": dict_bytes}]
    hand_made = Path(__file__).resolve().parents[1] / "data" / "dictionaries"
    if hand_made.is_dir():  # the test suite's slices of real dictionaries, with their markup
        for name, key in (("es-en.pairs.tsv", "pairs"), ("es-en.dict", "muse"), ("de-en.ding.txt", "ding")):
            seeds[key].append({name: (hand_made / name).read_bytes()})
        seeds["freedict"].append(
            {n: (hand_made / n).read_bytes() for n in ("freedict-spa-eng.index", "freedict-spa-eng.dict")}
        )
    (folder / "en-es.dict").write_bytes(seeds["muse"][0]["en-es.dict"])
    dict_table = load_table(folder / "en-es.dict", "muse")  # dictionary ranks: the npz has a ranks array
    save_npz_table(dict_table, folder / "dict_table.npz")
    seeds["table_npz"] = [
        {"table.npz": (folder / "table.npz").read_bytes()},
        {"table.npz": (folder / "dict_table.npz").read_bytes()},
    ]

    # an index, a run made with it, and the two learned models
    index = Index.build(docs, es)
    index.save(folder / "index.npz")
    seeds["index_npz"] = [{"index.npz": (folder / "index.npz").read_bytes()}]
    q_tokens = [en.tokenize(t) for _, t in queries]
    structured = psq_queries([q for q, _ in queries], q_tokens, small, index.vocabulary)
    write_run(BM25(index).search(structured, depth=8).top(8), folder / "psq.run", tag="PSQ")
    seeds["run"] = [{"psq.run": (folder / "psq.run").read_bytes()}]
    qrels = Qrels([q for q, _, _ in judged], [d for _, d, _ in judged], [r for _, _, r in judged])
    topics_dict = dict(queries)
    given = Resources(topics={"train": topics_dict}, qrels={"train": qrels}, documents=(docids, texts))
    boost = BoostRanker(
        features=PairFeatures(bits=16),
        sampling=TupleSampling(negatives=2),
        boosting=Boosting(rounds=4),
        backend="threading",
        quiet=True,
    )
    boost.fit(given)
    boost.model_.save(folder / "boost.npz")
    idf_boost = BoostRanker(
        features=PairFeatures(bits=16, doc_weighting="idf"),
        sampling=TupleSampling(negatives=2),
        boosting=Boosting(rounds=3),
        backend="threading",
        quiet=True,
    )
    idf_boost.fit(given)
    idf_boost.model_.save(folder / "boost2.npz")
    seeds["boost_npz"] = [
        {"boost.npz": (folder / "boost.npz").read_bytes()},
        {"boost.npz": (folder / "boost2.npz").read_bytes()},
    ]
    scs = SCSModel(
        shape=Shape(dim=4),
        sampling=UnitSampling(negatives=2),
        schedule=Schedule(epochs=1, batch_size=16),
        random_state=0,
    ).fit(given)
    scs.save(folder / "scs.npz")
    seeds["scs_npz"] = [{"scs.npz": (folder / "scs.npz").read_bytes()}]
    vectors = [
        " ".join([w] + [repr(float(x)) for x in row]) for w, row in zip(scs.doc_vocab_.tolist(), scs.doc_embeddings_)
    ][:24]
    seeds["vectors"] = [{"vectors.txt": as_lines([f"{len(vectors)} {scs.shape.dim}", *vectors])}]  # header: count dim

    # topic files in every markup dialect and HC4/NeuCLIR JSONL, read with all three fields
    seeds["topics"] = [
        {"topics.txt": topic_files(queries, dialect).encode("utf-8")}
        for dialect in ("trec-closed", "clef", "clef-sgml", "ntcir")
    ]
    seeds["topics_hc4"] = [{"topics.jsonl": topic_files(queries, "hc4").encode("utf-8")}]

    # a Moses phrase table and an HLTCOE PSQ json table made from the small table, a MUSE text file (its
    # translations in an order that is not alphabetical), word alignments of the verse pairs
    rows = [(w, e, p) for w in small.source_vocab.tolist() for e, p in small.translations(w)][:60]
    seeds["phrase_table"] = [{"en-es.phrase-table": phrase_table(rows)}]
    seeds["psq_json"] = [{"en-es.json": psq_json(rows, indent=1)}, {"en-es.json": psq_json(rows)}]
    seeds["muse_text"] = [{"en-es.0-5000.txt": muse_text(options)}]
    seeds["alignments"] = [alignment_files(pairs)]

    # a collection folder: its manifest is mutated, the files it names are not
    mini = folder / "collection"
    datasets.write_collection(
        datasets.CollectionData(
            name="fuzz-nave",
            variant="standard",
            source_lang="en",
            target_lang="es",
            description="a fuzz seed",
            docids=docids,
            doc_texts=texts,
            pair_ids=[i for i, _, _ in pairs],
            pair_sources=[s for _, s, _ in pairs],
            pair_targets=[t for _, _, t in pairs],
            queries={"test": topics_dict},
            qrels={"test": qrels},
            excluded={"test": qrels.subset([queries[0][0]])},
        ),
        mini,
        compress=False,
    )
    manifest = json.loads((mini / "manifest.json").read_text(encoding="utf-8"))
    books = ["Gen", "Matt", "Ps"]
    subset = {  # the counts a built subset's manifest holds: its own documents'
        **manifest,
        "files": {**manifest["files"], "documents": {"subset_of": "documents.tsv", "books": books}},
        "counts": {**manifest["counts"], "documents": sum(d.split(".", 1)[0] in books for d in docids)},
    }
    others = {p.name: p.read_bytes() for p in sorted(mini.iterdir()) if p.name != "manifest.json"}
    seeds["manifest"] = [
        {"manifest.json": (mini / "manifest.json").read_bytes(), **others},
        {"manifest.json": json.dumps(subset, indent=1).encode("utf-8"), **others},
    ]

    dim = scs.shape.dim
    context = {"docids": docids, "doc_tokens": doc_tokens, "query_tokens": q_tokens}
    targets = [
        Target("documents", "text", seeds["documents"][:3], _read_documents, check_documents),
        Target("documents_jsonl", "json", seeds["documents"][3:], _read_documents, check_documents),
        Target("queries", "text", seeds["queries"][:2] + seeds["queries"][4:], _read_queries, check_queries),
        Target("queries_jsonl", "json", seeds["queries"][2:4], _read_queries, check_queries),
        Target("qrels", "text", seeds["qrels"], _read_qrels, check_qrels),
        Target("run", "text", seeds["run"], _read_run, check_run),
        Target("parallel", "text", seeds["parallel"], _read_parallel, check_parallel),
        Target("stopwords", "text", seeds["stopwords"], _read_stopwords, check_stopwords),
        Target("moses", "text", seeds["moses"], _read_table, check_table, use_table),
        Target("pairs", "text", seeds["pairs"], _read_table, check_table, use_table),
        Target("muse", "text", seeds["muse"], _read_table, check_table, use_table),
        Target("ding", "text", seeds["ding"], _read_table, check_table, use_table),
        Target("freedict", "text", seeds["freedict"], _read_table, check_table, use_table, mutable=2),
        Target("vectors", "text", seeds["vectors"], lambda p: _read_vectors(p, dim), lambda r: check_vectors(r, dim)),
        Target("topics", "text", seeds["topics"], _read_topics, check_queries),
        Target("topics_hc4", "json", seeds["topics_hc4"], _read_topics, check_queries),
        Target("phrase_table", "text", seeds["phrase_table"], _read_table, check_table, use_table),
        Target(
            "psq_json",
            "json",
            seeds["psq_json"],
            _read_table,
            check_table,
            use_table,
            neutral=("gzip", "crlf", "blank_lines", "bom"),
        ),  # one JSON text: a lone CR is not a line end
        Target("muse_text", "text", seeds["muse_text"], _read_table, check_table, use_table),
        Target(
            "alignments",
            "text",
            seeds["alignments"],
            _read_alignments,
            check_table,
            use_table,
            mutable=3,
            neutral=("gzip", "crlf", "cr", "bom"),
        ),  # blank lines are empty sentences
        Target(
            "manifest",
            "json",
            seeds["manifest"],
            _read_collection,
            check_collection,
            neutral=("crlf", "cr", "blank_lines", "bom"),
        ),  # read as one JSON text, never gzipped
        Target("index_npz", "npz", seeds["index_npz"], _load_index, check_index, lambda r: use_index(r, context)),
        Target(
            "table_npz",
            "npz",
            seeds["table_npz"],
            _load_npz_table,
            check_table,
            lambda r: use_table(r, index.vocabulary),
        ),
        Target("boost_npz", "npz", seeds["boost_npz"], _load_boost, check_boost, lambda r: use_boost(r, context)),
        Target("scs_npz", "npz", seeds["scs_npz"], _load_scs, check_scs, lambda r: use_scs(r, context)),
    ]
    out = {}
    work = folder / "clean"
    for t in targets:
        for seed in t.seeds:  # the clean files must parse; their results are what neutral changes must give
            result = t.read(_write_files(work / t.name, seed))
            t.check(result)
            t.clean.append(canonical(result, str(work / t.name)))
        out[t.name] = t
    return out


TARGET_NAMES = (
    "documents",
    "documents_jsonl",
    "queries",
    "queries_jsonl",
    "qrels",
    "run",
    "parallel",
    "stopwords",
    "moses",
    "pairs",
    "muse",
    "ding",
    "freedict",
    "vectors",
    "manifest",
    "topics",
    "topics_hc4",
    "phrase_table",
    "psq_json",
    "muse_text",
    "alignments",
    "index_npz",
    "table_npz",
    "boost_npz",
    "scs_npz",
)


def topic_files(queries: list[tuple[str, str]], dialect: str) -> str:
    """``(qid, text)`` queries as a topic file of ``dialect``: ``trec-closed`` (TREC SGML, tags closed), ``clef``
    (CLEF XML), ``clef-sgml`` (CLEF 2000-2003, language-prefixed tags, some unclosed), ``ntcir`` (NTCIR XML) or
    ``hc4`` (HC4/NeuCLIR JSONL, an English original and a Spanish translation); the title is the text before its
    first colon, the description the text, the narrative a sentence naming the title."""

    def parts(text: str) -> tuple[str, str, str]:
        title = text.split(":")[0].strip() or text
        return title, text, f"A relevant verse tells of {title}."

    if dialect == "hc4":
        return "".join(
            json.dumps(
                {
                    "topic_id": qid,
                    "topics": [
                        {
                            "lang": "spa",
                            "source": "human translation",
                            "topic_title": "t " + title,
                            "topic_description": "d " + desc,
                        },
                        {
                            "lang": "eng",
                            "source": "original",
                            "topic_title": title,
                            "topic_description": desc,
                            "topic_narrative": narr,
                        },
                    ],
                },
                ensure_ascii=False,
            )
            + "\n"
            for qid, (title, desc, narr) in ((qid, parts(text)) for qid, text in queries)
        )
    head, topic, tail = _TOPIC_MARKUP[dialect]
    return (
        head
        + "".join(
            topic.format(qid=qid, title=title, desc=desc, narr=narr)
            for qid, (title, desc, narr) in (
                (qid, [html.escape(x, quote=False) for x in parts(text)]) for qid, text in queries
            )
        )
        + tail
    )


# dialect -> (the file's start, one topic, the file's end)
_TOPIC_MARKUP = {
    "trec-closed": (
        "",
        "<top>\n<num>Number: {qid}</num>\n<title>{title}</title>\n<desc>Description: {desc}</desc>\n"
        "<narr>Narrative: {narr}</narr>\n</top>\n",
        "",
    ),
    "clef": (
        '<?xml version="1.0" encoding="UTF-8"?>\n<topics>\n',
        '<topic lang="en">\n<identifier>{qid}</identifier>\n<title>{title}</title>\n'
        "<description>{desc}</description>\n<narrative>{narr}</narrative>\n</topic>\n",
        "</topics>\n",
    ),
    "clef-sgml": (
        "",
        "<top>\n<num> {qid} </num>\n<EN-title> {title} </EN-title>\n<EN-desc> {desc}\n<EN-narr> {narr}\n</top>\n",
        "",
    ),
    "ntcir": (
        "<TOPICS>\n",
        "<TOPIC>\n<NUM>{qid}</NUM>\n<TITLE>{title}</TITLE>\n<DESC>{desc}</DESC>\n"
        "<NARR><BACK>{narr}</BACK><RELE>{narr}</RELE></NARR>\n<CONC>{title}</CONC>\n</TOPIC>\n",
        "</TOPICS>\n",
    ),
}


def phrase_table(rows: list[tuple[str, str, float]]) -> bytes:
    """``(source, target, p)`` rows as a Moses phrase table: p(t|s) = p in the third of four scores."""
    return as_lines(
        f"{w} ||| {e} ||| {p / 2:.4f} {p / 3:.4f} {p:.6f} {p / 4:.4f} ||| 0-0 ||| {k + 2} {k + 1} 1"
        for k, (w, e, p) in enumerate(rows)
    )


def psq_json(rows: list[tuple[str, str, float]], **options) -> bytes:
    """``(source, target, p)`` rows as an HLTCOE PSQ json table (``json.dumps`` ``options``)."""
    table: dict[str, dict[str, float]] = {}
    for w, e, p in rows:
        table.setdefault(w, {})[e] = round(p, 6)
    return json.dumps(table, ensure_ascii=False, **options).encode("utf-8")


def muse_text(options: dict[str, list[str]]) -> bytes:
    """A MUSE text file (``source target`` lines) of each word's translations, in an order that is not
    alphabetical (so its content tells it from plain pairs)."""
    return as_lines(f"{w} {e}" for w, o in options.items() for e in sorted(o, reverse=True))


def alignment_files(pairs: list[tuple[str, str, str]]) -> dict[str, bytes]:
    """The verse pairs as an aligner sees them (``src.en``, ``tgt.es``: whitespace-separated tokens, one
    sentence a line) and Pharaoh ``i-j`` links (``links.align``, read first) pairing token i with token
    ``i * len(target) // len(source)``, as a diagonal alignment would."""
    src, tgt, links = [], [], []
    for _, s, t in pairs:
        a, b = s.split(), t.split()
        src.append(" ".join(a))
        tgt.append(" ".join(b))
        links.append(" ".join(f"{i}-{i * len(b) // len(a)}" for i in range(len(a))) if a and b else "")
    return {"links.align": as_lines(links), "src.en": as_lines(src), "tgt.es": as_lines(tgt)}


def _write_files(folder: Path, files: dict[str, bytes]) -> Path:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder / next(iter(files))


# ================================================================================================
# readers and loaders


def _read_documents(path):
    from clirkit.formats import read_documents

    return read_documents(path)


def _read_queries(path):
    from clirkit.formats import read_queries

    return read_queries(path)


def _read_qrels(path):
    from clirkit.formats import read_qrels

    return read_qrels(path)


def _read_run(path):
    from clirkit.formats import read_run

    return read_run(path)


def _read_parallel(path):
    from clirkit.datasets.parallel import read_parallel

    return read_parallel(path)


def _read_stopwords(path):
    from clirkit.analysis import read_stopwords

    return read_stopwords(path)


def _read_table(path):
    from clirkit.translation import load_table

    return load_table(path)


def _read_topics(path):
    from clirkit.formats import read_queries

    return read_queries(path, fields="title,desc,narr", lang="en")


def _read_alignments(path):
    from clirkit.translation.alignments import table_from_alignments

    folder = Path(path).parent
    return table_from_alignments(folder / "src.en", folder / "tgt.es", path, "en", "es")


def _read_vectors(path, dim):
    from clirkit.scs.encoding import read_word_vectors

    return read_word_vectors(path, dim)


def _read_collection(path):
    """Open the collection folder and read everything its manifest names."""
    from clirkit import datasets

    c = datasets.load(str(Path(path).parent))
    for split in c.splits[:3]:
        c.queries(split), c.qrels(split), c.excluded(split)
    c.documents(), c.parallel()
    return c


def _load_index(path):
    from clirkit.retrieval.index import Index

    return Index.load(path)


def _load_npz_table(path):
    from clirkit.translation import load_table

    return load_table(path, "npz")


def _load_boost(path):
    from clirkit.boost import BoostModel

    return BoostModel.load(path)


def _load_scs(path):
    from clirkit.scs.model import SCSModel

    return SCSModel.load(path)


# ================================================================================================
# invariants

_SPACE = re.compile(r"\s")


def _require(ok: bool, problem: str) -> None:
    if not ok:
        raise Invalid(problem)


def _check_text(text, what: str) -> None:
    _require(isinstance(text, str), f"{what} is a {type(text).__name__}, not a str")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Invalid(f"{what} {text[:40]!r} is not valid Unicode (lone surrogate)") from None


def _check_id(ident, what: str) -> None:
    _check_text(ident, what)
    _require(ident != "", f"empty {what}")
    _require(not _SPACE.search(ident), f"{what} {ident[:40]!r} contains whitespace")
    _require(len(ident) <= 1000, f"{what} of {len(ident)} characters")


def _check_str_array(arr, what: str, *, ids: bool = False, sorted_unique: bool = False) -> None:
    _require(
        isinstance(arr, np.ndarray) and arr.ndim == 1 and (arr.dtype.kind == "U" or arr.size == 0),
        f"{what} is not a 1-d str array",
    )
    values = arr.tolist()
    for v in values:
        (_check_id if ids else _check_text)(v, what)
    if sorted_unique:
        _require(all(a < b for a, b in zip(values, values[1:])), f"{what} not strictly increasing")


def _check_unique(values, what: str) -> None:
    _require(len(set(values)) == len(values), f"{what} holds a value twice")


def check_documents(result) -> None:
    docids, texts = result
    _require(
        isinstance(docids, list) and isinstance(texts, list) and len(docids) == len(texts) > 0,
        "docids and texts not aligned lists",
    )
    for d in docids:
        _check_id(d, "docid")
    for t in texts:
        _check_text(t, "text")
    _check_unique(docids, "docids")


def check_queries(result) -> None:
    _require(isinstance(result, dict) and len(result) > 0, "queries not a non-empty dict")
    for q, t in result.items():
        _check_id(q, "qid")
        _check_text(t, "query text")


def check_qrels(q) -> None:
    from clirkit.run import Qrels

    _require(isinstance(q, Qrels), "not a Qrels")
    _require(len(q.qids) == len(q.docids) == len(q.rels) > 0, "qrels arrays not aligned")
    _require(q.rels.dtype == np.int64, f"grades of dtype {q.rels.dtype}")
    _check_str_array(q.qids, "qid", ids=True)
    _check_str_array(q.docids, "docid", ids=True)
    _check_unique(list(zip(q.qids.tolist(), q.docids.tolist())), "(qid, docid) pairs")


def check_run(r) -> None:
    from clirkit.run import Run

    _require(isinstance(r, Run), "not a Run")
    _require(len(r.qids) == len(r.docids) == len(r.scores), "run arrays not aligned")  # 0 rows: a file of no lines
    _require(r.scores.dtype == np.float64 and bool(np.isfinite(r.scores).all()), "a score is not finite")
    _check_str_array(r.qids, "qid", ids=True)
    _check_str_array(r.docids, "docid", ids=True)
    _check_id(r.tag, "run tag")
    _check_unique(list(zip(r.qids.tolist(), r.docids.tolist())), "(qid, docid) pairs")
    for _, sl in r.groups():
        _require(bool(np.all(np.diff(r.scores[sl]) <= 0)), "a query's scores are not in decreasing order")


def check_parallel(result) -> None:
    ids, sources, targets = result
    _require(len(ids) == len(sources) == len(targets) > 0, "parallel lists not aligned")
    for i in ids:
        _check_id(i, "pair id")
    for t in sources + targets:
        _check_text(t, "pair text")
        _require("\t" not in t, "a pair text holds a tab")
    _check_unique(ids, "pair ids")


def check_stopwords(words) -> None:
    _require(isinstance(words, list), "not a list")
    for w in words:
        _check_text(w, "stopword")
        _require(w != "" and w == w.strip() and "#" not in w, f"stopword {w!r}")


def _check_csr(m, shape, what: str) -> None:
    import scipy.sparse as sp

    _require(sp.issparse(m) and m.format == "csr" and m.shape == shape, f"{what} is not a CSR of shape {shape}")
    indptr, indices = np.asarray(m.indptr), np.asarray(m.indices)
    _require(
        indptr[0] == 0 and indptr[-1] == len(indices) == len(m.data) and bool(np.all(np.diff(indptr) >= 0)),
        f"{what}: bad row pointers",
    )
    if len(indices):
        _require(int(indices.min()) >= 0 and int(indices.max()) < shape[1], f"{what}: column out of range")
        rows = np.repeat(np.arange(shape[0]), np.diff(indptr))
        keys = rows.astype(np.int64) * max(shape[1], 1) + indices
        _require(bool(np.all(np.diff(keys) > 0)), f"{what}: indices not sorted and unique within rows")
    if m.data.dtype.kind == "f":
        _require(bool(np.isfinite(m.data).all()), f"{what}: a value is not finite")


def check_table(t) -> None:
    from clirkit.translation import TranslationTable

    _require(isinstance(t, TranslationTable), "not a TranslationTable")
    _check_str_array(t.source_vocab, "source word", sorted_unique=True)
    _check_str_array(t.target_vocab, "target word", sorted_unique=True)
    for side, vocab in (("source", t.source_vocab), ("target", t.target_vocab)):
        for w in vocab.tolist():  # a word of either side may be a phrase (words joined by single spaces)
            _require(w != "" and "\0" not in w, f"{side} word {w[:40]!r}")
            joined = " ".join(w.split())
            _require(joined == w, f"{side} word {w[:40]!r} has whitespace")
    _check_csr(t.probs, (t.n_source, t.n_target), "probs")
    _require(
        t.probs.dtype == np.float64 and bool(np.all((t.probs.data > 0) & (t.probs.data <= 1 + 1e-9))),
        "a probability is not in (0, 1]",
    )
    if t.ranks is not None:
        _check_csr(t.ranks, t.probs.shape, "ranks")
        _require(bool(np.all(t.ranks.data >= 1)), "a rank below 1")
    _require(
        isinstance(t.params, dict) and "source_lang" in t.params and "target_lang" in t.params,
        "params without languages",
    )
    json.dumps(t.params)


def check_vectors(result, dim: int) -> None:
    words, vectors = result
    _check_str_array(words, "word")
    for w in words.tolist():
        _require(w != "", "an empty word")
    _check_unique(words.tolist(), "words")
    _require(vectors.dtype == np.float64 and vectors.shape == (len(words), dim), "vectors of the wrong shape")
    _require(bool(np.isfinite(vectors).all()), "a vector component is not finite")


def check_collection(c) -> None:
    for attr in ("name", "variant", "source_lang", "target_lang", "description"):
        _check_text(getattr(c, attr), attr)
    _require(isinstance(c.splits, list) and all(isinstance(s, str) for s in c.splits), "splits")
    for split in c.splits[:3]:
        check_queries(c.queries(split))
        check_qrels(c.qrels(split))
        _require(isinstance(c.excluded(split), dict), "excluded")
    check_documents(c.documents())
    check_parallel((c.parallel_ids(), *c.parallel()))


def check_index(ix) -> None:
    _check_str_array(ix.docids, "docid", sorted_unique=True)
    _check_str_array(ix.terms, "term", sorted_unique=True)
    _check_csr(ix.tf, (ix.n_terms, ix.n_docs), "tf")
    _require(ix.tf.data.dtype.kind == "i" and bool(np.all(ix.tf.data >= 1)), "a count below 1")
    _require(
        ix.doc_lengths.dtype == np.float64
        and ix.doc_lengths.shape == (ix.n_docs,)
        and bool(np.isfinite(ix.doc_lengths).all()),
        "doc_lengths",
    )
    counted = np.bincount(ix.tf.indices, weights=ix.tf.data, minlength=ix.n_docs)
    _require(bool(np.all(counted == ix.doc_lengths)), "doc_lengths are not the sums of the counts")


def check_boost(m) -> None:
    _check_str_array(m.src_terms, "source term")
    _check_str_array(m.tgt_terms, "target term")
    _check_unique(m.src_terms.tolist(), "source terms")
    _check_unique(m.tgt_terms.tolist(), "target terms")
    _check_csr(m.W, (len(m.src_terms), len(m.tgt_terms)), "W")
    _require(m.ngram in (1, 2, 3) and math.isfinite(m.beta) and m.beta >= 0, "ngram or beta")
    h = m.history
    R, P = len(h["round"]), len(h["pair_src"])
    _require(
        all(len(h[k]) == R for k in ("bag", "bucket", "alpha")) and len(h["ptr"]) == R + 1 and len(h["pair_tgt"]) == P,
        "history arrays not aligned",
    )
    _require(bool(np.isfinite(h["alpha"]).all()), "a history step is not finite")
    _require(int(h["ptr"][0]) == 0 and int(h["ptr"][-1]) == P and bool(np.all(np.diff(h["ptr"]) >= 0)), "history_ptr")
    if P:
        _require(0 <= int(h["pair_src"].min()) and int(h["pair_src"].max()) < len(m.src_terms), "history_pair_src")
        _require(0 <= int(h["pair_tgt"].min()) and int(h["pair_tgt"].max()) < len(m.tgt_terms), "history_pair_tgt")
    if m.tgt_idf is not None:
        _require(m.tgt_idf.shape == (len(m.tgt_terms),) and bool(np.isfinite(m.tgt_idf).all()), "tgt_idf")
    json.dumps(m.params)


def check_scs(m) -> None:
    for side in ("query", "doc"):
        vocab, E = getattr(m, f"{side}_vocab_"), getattr(m, f"{side}_embeddings_")
        _check_str_array(vocab, f"{side} word", sorted_unique=True)
        _require(
            E.dtype == np.float64 and E.shape == (len(vocab), m.shape.dim) and bool(np.isfinite(E).all()),
            f"{side} embeddings",
        )
    shape = m.shape
    _require(
        isinstance(shape.dim, int) and shape.dim >= 1 and math.isfinite(shape.eps) and shape.eps >= 0, "dim or eps"
    )


# ================================================================================================
# a cheap use of what was loaded: what was accepted must work


def use_index(ix, context) -> None:
    from clirkit.retrieval.bm25 import BM25
    from clirkit.retrieval.query import StructuredQueries

    words = ix.terms[:3].tolist() + [t for toks in context["doc_tokens"][:2] for t in toks[:3]]
    BM25(ix).search(StructuredQueries.from_tokens(["q"], [words], ix.vocabulary), depth=5)


def use_table(t, vocabulary=None) -> None:
    from clirkit.psq import prepare_table, psq_queries

    words = t.source_vocab[:5].tolist()
    for w in words:
        t.translations(w, 3)
    t.best_targets()
    pruned = prepare_table(t)
    if vocabulary is None:
        vocabulary = {w: i for i, w in enumerate(t.target_vocab.tolist())}
    psq_queries(["q"], [words], pruned, vocabulary)


def use_boost(m, context) -> None:
    from clirkit.run import Run

    m.rounds_table(5, bag=None)
    m.top_entries(5)
    m.truncated(1)
    queries = {"q": m.src_terms[:4].tolist()}
    if m.from_base:
        cand = Run(["q"] * 2, context["docids"][:2], [2.0, 1.0])
        m.rerank(cand, queries, context["docids"], context["doc_tokens"])
    else:
        m.rank(queries, context["docids"], context["doc_tokens"], depth=5)


def use_scs(m, context) -> None:
    m.score_tokens(["q"], [m.query_vocab_[:4].tolist()], context["docids"], context["doc_tokens"], depth=5)


# ================================================================================================
# canonical form: what "the same result" means


def canonical(obj, folder: str | None = None):
    """A comparable, JSON-like form of a reader's result (arrays as lists, matrices as their CSR arrays);
    ``folder`` in strings (a table's ``params["file"]``) is replaced by ``<folder>``."""
    if folder is not None:
        return _unfolder(canonical(obj), folder)
    import scipy.sparse as sp

    from clirkit.analysis import Analyzer

    if isinstance(obj, np.ndarray):
        return ("array", obj.shape, obj.tolist())
    if sp.issparse(obj):
        m = sp.csr_matrix(obj)
        return ("csr", m.shape, m.indptr.tolist(), m.indices.tolist(), m.data.tolist())
    if isinstance(obj, Analyzer):
        return ("analyzer", canonical(obj.to_dict()))
    if isinstance(obj, dict):
        return ("dict", [(canonical(k), canonical(v)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)):
        return [canonical(x) for x in obj]
    if isinstance(obj, (str, int, float, bool, type(None))):
        return obj
    if isinstance(obj, (np.generic,)):
        return obj.item()
    if type(obj).__name__ == "Collection":
        return canonical(
            {
                "name": obj.name,
                "splits": obj.splits,
                "documents": obj.documents(),
                "parallel": obj.parallel(),
                **{s: (obj.queries(s), obj.qrels(s)) for s in obj.splits},
            }
        )
    if hasattr(obj, "__dict__"):
        return (
            type(obj).__name__,
            [
                (k, canonical(v))
                for k, v in sorted(vars(obj).items())
                if not k.startswith("_") and k not in ("documents_",)
            ],
        )
    if dataclasses.is_dataclass(obj):
        return canonical(dataclasses.asdict(obj))
    return repr(obj)


def _unfolder(value, folder: str):
    if isinstance(value, str):
        return value.replace(folder, "<folder>")
    if isinstance(value, (list, tuple)):
        return type(value)(_unfolder(v, folder) for v in value)
    return value


# ================================================================================================
# mutations of text files

NASTY_FIELDS = [
    "",
    " ",
    "\t",
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "1e309",
    "-1e309",
    "1e-400",
    "-0",
    "0",
    "-1",
    "1",
    "2",
    "9" * 12,
    "9" * 20,
    "-" + "9" * 20,
    "1" * 5000,
    "18446744073709551616",
    "0x10",
    "1_000",
    "١٢٣",
    "²",
    "0.5",
    "1.0000000001",
    "+1",
    "--1",
    "1e5",
    ".",
    "#",
    "<top>",
    "</top>",
    "<num>",
    " :: ",
    " @ ",
    "|",
    ";",
    "{",
    "}",
    "(",
    "[",
    "\\",
    '"',
    "'",
    "NULL",
    "00databaseshort",
    "x" * 1200,
    "Gen.1.1",
    "Q0",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x00",
    "\u200b",
    "\ufeff",
    "e\u0301",
    "\U0001f600",
    "\uffff",
    "\U0010ffff",
]
NASTY_BYTES = [
    b"\x00",
    b"\r",
    b"\n",
    b"\r\n",
    b"\t",
    b" ",
    b"\xef\xbb\xbf",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xc0\xaf",
    b"\xc3",
    b"\xe2\x82",
    b"\xf4\x90\x80\x80",
    b"\xff",
    b"\xfe",
    b"\x1f\x8b",
    b"PK\x03\x04",
    b"\xe2\x80\xa8",
    b"\xc2\x85",
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\\",
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b"nan",
    b"inf",
    b"1e309",
    b"-",
    b"#",
    b"<top>",
    b"</top>",
    b" :: ",
    b" @ ",
    b"|",
    b";",
]
NASTY_JSON = [
    None,
    True,
    False,
    0,
    -1,
    -5,
    1,
    2,
    3,
    0.5,
    -0.0,
    2**31,
    2**63,
    2**64,
    -(2**63) - 1,
    10**400,
    1e308,
    -1e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    "",
    " ",
    "x",
    "a b",
    "\t",
    "\n",
    "\ud800",
    "\udfff",
    "\x00",
    "en",
    "es",
    "x" * 1200,
    [],
    [1],
    ["x"],
    [None],
    {},
    {"a": 1},
    {"lang": "en"},
]
_CODEPOINT_RANGES = [
    (0x00, 0x20),
    (0x7F, 0xA0),
    (0xA0, 0x250),
    (0x300, 0x370),
    (0x2000, 0x2030),
    (0x3000, 0x3003),
    (0x4E00, 0x4E10),
    (0xFEFF, 0xFF00),
    (0xFFF0, 0x10000),
    (0x1F600, 0x1F610),
    (0x10FFF0, 0x110000),
]


def _random_unicode(rnd: random.Random) -> bytes:
    chars = []
    for _ in range(rnd.randint(1, 6)):
        lo, hi = rnd.choice(_CODEPOINT_RANGES)
        chars.append(chr(rnd.randrange(lo, hi)))
    text = "".join(chars).encode("utf-8")
    if rnd.random() < 0.3:  # an encoded surrogate or an overlong form: not UTF-8
        text += rnd.choice([b"\xed\xa0\x80", b"\xed\xb2\x80", b"\xc0\x80", b"\xe0\x80\xaf"])
    return text


def _pos(rnd: random.Random, data: bytes) -> int:
    return rnd.randint(0, len(data))


def m_flip(data: bytes, rnd: random.Random) -> bytes:
    if not data:
        raise Skip
    b = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        i = rnd.randrange(len(b))
        b[i] ^= 1 << rnd.randrange(8)
    return bytes(b)


def m_insert(data: bytes, rnd: random.Random) -> bytes:
    i = _pos(rnd, data)
    piece = rnd.choice(NASTY_BYTES) if rnd.random() < 0.6 else rnd.randbytes(rnd.randint(1, 8))
    return data[:i] + piece * rnd.choice([1, 1, 1, 2, 50]) + data[i:]


def m_delete(data: bytes, rnd: random.Random) -> bytes:
    if not data:
        raise Skip
    i = rnd.randrange(len(data))
    return data[:i] + data[i + rnd.randint(1, 32) :]


def m_truncate(data: bytes, rnd: random.Random) -> bytes:
    if not data:
        raise Skip
    return data[: rnd.randrange(len(data))]


def _split_lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if len(lines) < 2:
        raise Skip
    return lines


def m_duplicate_line(data: bytes, rnd: random.Random) -> bytes:
    lines = _split_lines(data)
    lines.insert(rnd.randrange(len(lines)), rnd.choice(lines))
    return b"\n".join(lines)


def m_drop_line(data: bytes, rnd: random.Random) -> bytes:
    lines = _split_lines(data)
    del lines[rnd.randrange(len(lines))]
    return b"\n".join(lines)


def m_swap_lines(data: bytes, rnd: random.Random) -> bytes:
    lines = _split_lines(data)
    i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def m_field(data: bytes, rnd: random.Random) -> bytes:
    """Replace, add or remove one field of one line (tab- or space-separated)."""
    lines = data.split(b"\n")
    k = rnd.randrange(len(lines))
    sep = b"\t" if b"\t" in lines[k] else b" "
    fields = lines[k].split(sep)
    choice = rnd.random()
    value = rnd.choice(NASTY_FIELDS).encode("utf-8", "surrogatepass")
    if choice < 0.7:
        fields[rnd.randrange(len(fields))] = value
    elif choice < 0.85:
        fields.insert(rnd.randint(0, len(fields)), value)
    elif len(fields) > 1:
        del fields[rnd.randrange(len(fields))]
    lines[k] = sep.join(fields)
    return b"\n".join(lines)


_NUMBER = re.compile(rb"(?<![\w.])[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?)(?![\w.])")


def m_number(data: bytes, rnd: random.Random) -> bytes:
    """Replace a number of the file by a hostile one (NaN, inf, huge, negative, not quite a number)."""
    found = list(_NUMBER.finditer(data))
    if not found:
        raise Skip
    m = rnd.choice(found)
    value = rnd.choice(
        [
            "nan",
            "NaN",
            "inf",
            "-inf",
            "1e309",
            "-1e309",
            "1e-400",
            "-0",
            "-1",
            "0",
            "9" * 19,
            "9" * 25,
            "1" * 5000,
            "-" + "9" * 25,
            "0x1f",
            "1_0",
            "١",
            "1e",
            "+",
            ".5",
            "5.",
            "1.5",
        ]
    )
    return data[: m.start()] + value.encode("utf-8") + data[m.end() :]


def m_unicode(data: bytes, rnd: random.Random) -> bytes:
    i = _pos(rnd, data)
    return data[:i] + _random_unicode(rnd) + data[i:]


def m_lone_cr(data: bytes, rnd: random.Random) -> bytes:
    i = _pos(rnd, data)
    return data[:i] + rnd.choice([b"\r", b"\r\r", b"\n\r", b"\r \r"]) + data[i:]


def m_gzip_damaged(data: bytes, rnd: random.Random) -> bytes:
    """gzip-compress, then damage the compressed bytes (or cut them)."""
    z = gzip.compress(data, mtime=0)
    how = rnd.choice([m_flip, m_flip, m_truncate, m_delete, m_insert])
    if how is m_flip and rnd.random() < 0.7:  # mostly in the deflate stream, past the 10-byte header
        head, body = z[:10], z[10:]
        return head + m_flip(body, rnd)
    return how(z, rnd)


def _json_paths(value, path=(), depth=0):
    yield path
    if depth > 6:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _json_paths(v, path + (k,), depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value[:20]):
            yield from _json_paths(v, path + (i,), depth + 1)


def _json_mutated(obj, rnd: random.Random):
    """``obj`` with one value replaced, removed or retyped, or a key added (a copy)."""
    obj = json.loads(json.dumps(obj))
    paths = [p for p in _json_paths(obj) if p]
    if not paths or rnd.random() < 0.1:
        if isinstance(obj, dict):
            obj[rnd.choice(["extra", "id", "text", "docid", "qid", "kind", "format_version"])] = rnd.choice(NASTY_JSON)
            return obj
        return rnd.choice(NASTY_JSON)
    path = rnd.choice(paths)
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    last = path[-1]
    r = rnd.random()
    if r < 0.15 and isinstance(parent, dict):
        del parent[last]
    elif r < 0.25 and isinstance(parent, list):
        del parent[last]
    elif r < 0.35:
        others = [v for v in (parent.values() if isinstance(parent, dict) else parent)]
        parent[last] = rnd.choice(others)
    elif r < 0.4:
        parent[last] = rnd.choice([[[[]]], [[{"a": [[1]]}]], DEEP])
    else:
        parent[last] = rnd.choice(NASTY_JSON)
    return obj


DEEP = "\x00deep\x00"  # stands for JSON nested 5,000 deep (which json.dumps cannot write)
_DEEP_JSON = json.dumps(DEEP)


def _dumps(obj, **options) -> bytes:
    text = json.dumps(obj, **{"ensure_ascii": False, **options})
    return text.replace(_DEEP_JSON, "[" * 5000 + "]" * 5000).encode("utf-8", "surrogatepass")


def m_json_value(data: bytes, rnd: random.Random) -> bytes:
    """Replace a value of one JSON line (or of a whole JSON file) by another type or a hostile value."""
    lines = data.split(b"\n")
    candidates = []
    for k, line in enumerate(lines):
        try:
            candidates.append((k, json.loads(line)))
        except ValueError:
            continue
    if not candidates:
        try:
            whole = json.loads(data)
        except ValueError:
            raise Skip from None
        return _dumps(_json_mutated(whole, rnd), indent=rnd.choice([None, 1]))
    k, obj = rnd.choice(candidates)
    lines[k] = _dumps(_json_mutated(obj, rnd))
    return b"\n".join(lines)


TEXT_MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "flip": m_flip,
    "insert": m_insert,
    "delete": m_delete,
    "truncate": m_truncate,
    "duplicate_line": m_duplicate_line,
    "drop_line": m_drop_line,
    "swap_lines": m_swap_lines,
    "field": m_field,
    "number": m_number,
    "unicode": m_unicode,
    "lone_cr": m_lone_cr,
    "gzip_damaged": m_gzip_damaged,
    "json_value": m_json_value,
}


def n_gzip(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def n_crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def n_cr(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r")


def n_blank_lines(data: bytes) -> bytes:
    return b"\n" + data.replace(b"\n", b"\n\n  \n") + b"\n\n"


def n_bom(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


TEXT_NEUTRAL = {"gzip": n_gzip, "crlf": n_crlf, "cr": n_cr, "blank_lines": n_blank_lines, "bom": n_bom}


# ================================================================================================
# mutations of npz files


def read_npz(data: bytes) -> tuple[object, dict[str, np.ndarray]]:
    """The header (parsed JSON) and the arrays of an npz file's bytes."""
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    header = json.loads(arrays.pop(HEADER_KEY).tobytes().decode("utf-8"))
    return header, arrays


def write_npz(
    header, arrays: dict[str, np.ndarray], *, raw_header: bytes | None = None, compressed: bool = False
) -> bytes:
    if raw_header is None:
        raw_header = _dumps(header, sort_keys=True, ensure_ascii=True)
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(
        buf, **{HEADER_KEY: np.frombuffer(raw_header, dtype=np.uint8)}, **arrays
    )
    return buf.getvalue()


_NASTY_NUMBERS = [np.nan, np.inf, -np.inf, -1, 0, 1, 2, -(2**31), 2**31 - 1, 2**31, 2**63 - 1, 1e300, 0.5, -0.5]
_NASTY_STRINGS = ["", " ", "a b", "\t", "\x00", "x" * 2000, "\ud800", "zzzz", "NULL", "Gen.1.1", "\uffff"]
_DTYPES = [
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint64",
    "bool",
    "complex128",
    ">i8",
    ">f8",
    ">i4",
    "U",
    "S",
    "object",
    "float16",
]


def _with_value(arr: np.ndarray, rnd: random.Random) -> np.ndarray:
    if arr.size == 0:
        raise Skip
    flat = arr.copy().reshape(-1)
    i = rnd.randrange(flat.size)
    if arr.dtype.kind == "U":
        value = rnd.choice(_NASTY_STRINGS + [str(x) for x in flat[:3].tolist()])
        if len(value) > flat.dtype.itemsize // 4:
            flat = flat.astype(f"<U{len(value)}")
        flat[i] = value
        return flat.reshape(arr.shape)
    value = rnd.choice(_NASTY_NUMBERS + [arr.size, arr.size + 1, int(flat.max()) + 1 if arr.dtype.kind in "iu" else 0])
    try:
        with np.errstate(all="ignore"):
            if isinstance(value, float) and not value.is_integer() or not np.isfinite(value):
                flat = flat.astype(np.float64)
            elif arr.dtype.kind in "iu" and not (np.iinfo(flat.dtype).min <= value <= np.iinfo(flat.dtype).max):
                flat = flat.astype(np.float64 if abs(value) > 2**62 else np.int64)
            flat[i] = value
    except (OverflowError, ValueError):
        raise Skip from None
    return flat.reshape(arr.shape)


def _with_dtype(arr: np.ndarray, rnd: random.Random) -> np.ndarray:
    dtype = rnd.choice(_DTYPES)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if dtype == "object":
                return arr.astype(object)
            if dtype == "U":
                return arr.astype(str)
            if dtype == "S":
                return np.char.encode(arr, "utf-8") if arr.dtype.kind == "U" else arr.astype("S")
            if arr.dtype.kind == "U":
                return arr.astype(np.float64 if dtype.startswith(("f", ">f")) else dtype)
            return arr.astype(dtype)
    except (ValueError, TypeError, OverflowError, UnicodeEncodeError):
        raise Skip from None


def _with_shape(arr: np.ndarray, rnd: random.Random) -> np.ndarray:
    how = rnd.choice(
        ["2d", "scalar", "drop_last", "drop_first", "append", "empty", "reverse", "shuffle", "swap", "repeat"]
    )
    if how == "2d":
        return arr.reshape(-1, 1) if arr.ndim == 1 else arr.reshape(-1)
    if how == "scalar":
        return np.asarray(arr.reshape(-1)[0] if arr.size else 0)
    if how == "empty":
        return arr[:0]
    if arr.size == 0:
        raise Skip
    if how == "drop_last":
        return arr[:-1]
    if how == "drop_first":
        return arr[1:]
    if how == "append":
        return np.concatenate([arr, arr[-1:]])
    if how == "reverse":
        return arr[::-1].copy()
    if how == "shuffle":
        return arr[np.array(rnd.sample(range(len(arr)), len(arr)))]
    out = arr.copy()
    i, j = rnd.randrange(len(out)), rnd.randrange(len(out))
    if how == "swap":
        out[[i, j]] = out[[j, i]]
    else:
        out[i] = out[j]
    return out


def npz_mutate(data: bytes, rnd: random.Random) -> tuple[bytes, str]:
    """One structured or raw change to an npz file; returns the bytes and what was done."""
    op = rnd.choice(
        [
            "header_value",
            "header_value",
            "header_raw",
            "array_value",
            "array_value",
            "array_dtype",
            "array_shape",
            "array_shape",
            "array_remove",
            "array_add",
            "array_swap",
            "zip_bytes",
        ]
    )
    if op == "zip_bytes":
        compressed = rnd.random() < 0.4  # deflated members: damage reaches zlib
        if compressed:
            data = write_npz(*read_npz(data), compressed=True)
        how = rnd.choice([m_flip, m_flip, m_truncate, m_delete, m_insert])
        return how(data, rnd), f"zip_bytes{'(compressed)' if compressed else ''}:{how.__name__}"
    header, arrays = read_npz(data)
    if op == "header_value":
        return write_npz(_json_mutated(header, rnd), arrays), op
    if op == "header_raw":
        raw = json.dumps(header, sort_keys=True).encode("utf-8")
        raw = rnd.choice(
            [
                b"[]",
                b'"index"',
                b"null",
                b"1",
                b"\xff\xfe",
                b"{",
                b'{"kind": NaN}',
                b"",
                b"[" * 5000 + b"]" * 5000,
                m_flip(raw, rnd),
                m_truncate(raw, rnd),
                m_unicode(raw, rnd),
            ]
        )
        return write_npz(None, arrays, raw_header=raw), op
    names = sorted(arrays)
    name = rnd.choice(names)
    if op == "array_value":
        arrays[name] = _with_value(arrays[name], rnd)
    elif op == "array_dtype":
        arrays[name] = _with_dtype(arrays[name], rnd)
    elif op == "array_shape":
        arrays[name] = _with_shape(arrays[name], rnd)
    elif op == "array_remove":
        del arrays[name]
    elif op == "array_add":
        extra = rnd.choice(["ranks", "tgt_idf", "history_bag", "unknown", "docids", "data"])
        source = arrays[rnd.choice(names)]
        arrays[extra] = _with_shape(source, rnd) if rnd.random() < 0.5 else source
        name = extra
    else:
        other = rnd.choice(names)
        arrays[name], arrays[other] = arrays[other], arrays[name]
        name = f"{name}<->{other}"
    return write_npz(header, arrays), f"{op}:{name}"


def npz_neutral(data: bytes, how: str) -> bytes:
    header, arrays = read_npz(data)
    if how == "compressed":
        return write_npz(header, arrays, compressed=True)
    if how == "big_endian":
        return write_npz(
            header, {k: v.astype(v.dtype.newbyteorder(">")) if v.dtype.kind in "iufU" else v for k, v in arrays.items()}
        )
    if how == "extra_array":
        return write_npz(header, {**arrays, "zz_unknown": np.arange(3)})
    if how == "respaced_header":
        return write_npz(None, arrays, raw_header=json.dumps(header, indent=2).encode("utf-8"))
    raise ValueError(how)


NPZ_NEUTRAL = ("compressed", "big_endian", "extra_array", "respaced_header")


# ================================================================================================
# one input


def make_input(
    target: Target, rnd: random.Random, op: str | None = None, seed_index: int | None = None
) -> tuple[int, dict[str, bytes], str, bool]:
    """A mutated (or neutrally changed) copy of one of ``target``'s seeds.

    Returns ``(seed index, files, description, neutral)``. ``op`` forces the kind of change: a name of
    :data:`TEXT_MUTATIONS`, ``npz``, ``neutral`` or ``chain`` (1 to 3 random mutations; the default
    draws ``neutral`` one time in ten).
    """
    k = rnd.randrange(len(target.seeds)) if seed_index is None else seed_index
    files = dict(target.seeds[k])
    names = list(files)[: target.mutable]
    if op is None:
        op = "neutral" if rnd.random() < 0.1 else "chain"
    if op == "neutral":
        name = names[0]
        if target.kind == "npz":
            how = rnd.choice(NPZ_NEUTRAL)
            files[name] = npz_neutral(files[name], how)
        else:
            how = rnd.choice(sorted(target.neutral or TEXT_NEUTRAL))
            files[name] = TEXT_NEUTRAL[how](files[name])
        return k, files, f"seed {k}: neutral {how}", True
    if op not in ("chain", "npz") and op not in TEXT_MUTATIONS:
        raise ValueError(f"unknown mutation {op!r}")
    pool = [m for m in TEXT_MUTATIONS if m != "json_value" or target.kind == "json"]
    steps = []
    for _ in range(rnd.choice([1, 1, 1, 2, 3]) if op == "chain" else 1):
        name = rnd.choice(names)
        what = "nothing applicable"
        for _attempt in range(20):
            try:
                if target.kind == "npz" and op in ("chain", "npz"):
                    files[name], what = npz_mutate(files[name], rnd)
                else:
                    kind = op if op in TEXT_MUTATIONS else rnd.choice(pool)
                    files[name] = TEXT_MUTATIONS[kind](files[name], rnd)
                    what = kind
                break
            except Exception:  # noqa: BLE001 - Skip, or an npz already broken by an earlier step
                continue  # a mutation that does not apply here: draw another
        steps.append(f"{name}:{what}")
    return k, files, f"seed {k}: " + ", ".join(steps), False


def run_input(
    target: Target, files: dict[str, bytes], workdir: Path, *, neutral: bool = False, seed_index: int = 0
) -> tuple[str, str]:
    """Read one input; ``(outcome, detail)`` where outcome is ``ok``, ``error`` (a ClirkitError),
    ``uncaught`` (any other exception, with its traceback), ``wrong`` (an invariant broken, or a
    neutral change that gave another result or an error) or ``use`` (an exception other than
    ClirkitError while using what was accepted: a search with a loaded index, a translation...)."""
    path = _write_files(workdir, files)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = target.read(path)
        except ClirkitError as exc:
            if neutral:
                return "wrong", f"a neutral change made it an error: {exc}"
            message = str(exc)
            if "\n" in message:
                return "wrong", f"a ClirkitError of several lines: {message[:300]!r}"
            return "error", message
        except Exception:  # noqa: BLE001 - what the fuzzer looks for
            return "uncaught", traceback.format_exc()
        try:
            target.check(result)
        except Invalid as exc:
            return "wrong", f"invariant broken: {exc}"
        except Exception:  # noqa: BLE001
            return "uncaught", "while checking the result:\n" + traceback.format_exc()
        if neutral and canonical(result, str(workdir)) != target.clean[seed_index]:
            return "wrong", "a neutral change gave another result than the clean file"
        if target.use is not None:
            try:
                target.use(result)
            except ClirkitError:
                pass
            except Exception:  # noqa: BLE001
                return "use", "while using the loaded result:\n" + traceback.format_exc()
    return "ok", ""


def input_random(seed: int, i: int) -> random.Random:
    return random.Random(f"clirkit-fuzz:{seed}:{i}")


# ================================================================================================
# the runner: a worker process per job, a watchdog for hangs


def _worker(conn, targets: list[Target], seed: int, start: int, step: int, workdir: str) -> None:
    """Run inputs ``start, start + step, ...`` forever, sending ``(i, target, outcome, detail, what)``."""
    import resource

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    limit = 4 << 30  # a runaway allocation is a MemoryError (reported), not the machine's memory
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.environ["CLIRKIT_CACHE"] = os.path.join(workdir, "cache")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    i = start
    while True:
        target = targets[i % len(targets)]
        rnd = input_random(seed, i)
        try:
            k, files, what, neutral = make_input(target, rnd)
        except Exception:  # noqa: BLE001 - a bug of this script, reported apart
            conn.send((i, target.name, "harness", traceback.format_exc(), ""))
        else:
            outcome, detail = run_input(target, files, Path(workdir) / target.name, neutral=neutral, seed_index=k)
            conn.send((i, target.name, outcome, detail, what))
        i += step


def fuzz(
    targets: list[Target],
    *,
    minutes: float,
    seed: int = 0,
    jobs: int = 1,
    timeout: float = 10.0,
    workdir: str | os.PathLike[str],
    progress: bool = True,
) -> dict:
    """Fuzz ``targets`` for ``minutes``; per target counts of inputs and outcomes, and failure samples."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    stats = {
        t.name: {
            "inputs": 0,
            "ok": 0,
            "error": 0,
            "neutral": 0,
            "uncaught": 0,
            "wrong": 0,
            "hang": 0,
            "use": 0,
            "harness": 0,
            "failures": {},
        }
        for t in targets
    }

    def failed(name: str, i: int, outcome: str, what: str, detail: str) -> None:
        kinds = stats[name]["failures"]
        key = signature(outcome, detail)
        if key not in kinds:
            kinds[key] = {"count": 0, "input": i, "outcome": outcome, "what": what, "detail": detail}
        kinds[key]["count"] += 1

    deadline = time.monotonic() + minutes * 60
    workers = {}
    retried: set[int] = set()

    def start(j: int, first: int):
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(
            target=_worker, args=(child, targets, seed, first, jobs, os.path.join(workdir, f"w{j}")), daemon=True
        )
        proc.start()
        child.close()
        workers[j] = {"proc": proc, "conn": parent, "next": first, "since": time.monotonic()}

    for j in range(jobs):
        start(j, j)
    last_report = time.monotonic()
    try:
        while time.monotonic() < deadline:
            for j, w in list(workers.items()):
                conn = w["conn"]
                got = False
                try:
                    while conn.poll(0.05 / jobs):
                        i, name, outcome, detail, what = conn.recv()
                        got = True
                        s = stats[name]
                        s["inputs"] += 1
                        s[outcome] += 1
                        s["neutral"] += what.split(": ", 1)[-1].startswith("neutral")
                        if outcome in ("uncaught", "wrong", "use", "harness"):
                            failed(name, i, outcome, what, detail)
                        w["next"] = i + jobs
                        w["since"] = time.monotonic()
                        if time.monotonic() >= deadline:
                            break
                except (EOFError, OSError):
                    got = False
                    w["proc"].join(1)
                    i = w["next"]
                    name = targets[i % len(targets)].name
                    stats[name]["inputs"] += 1
                    stats[name]["uncaught"] += 1
                    failed(name, i, "crash", "", f"the worker died (exit code {w['proc'].exitcode})")
                    start(j, i + jobs)
                    continue
                if not got and time.monotonic() - w["since"] > timeout * (3 if w["next"] in retried else 1):
                    i = w["next"]
                    w["proc"].kill()
                    w["proc"].join()
                    if i not in retried:  # a busy machine stalls too: a hang must repeat, given 3x the time
                        retried.add(i)
                        start(j, i)
                        continue
                    name = targets[i % len(targets)].name
                    stats[name]["inputs"] += 1
                    stats[name]["hang"] += 1
                    failed(name, i, "hang", "", f"no answer in {timeout:g} s, then in {3 * timeout:g} s")
                    start(j, i + jobs)
            if progress and time.monotonic() - last_report > 30:
                last_report = time.monotonic()
                total = sum(s["inputs"] for s in stats.values())
                bad = sum(s["uncaught"] + s["wrong"] + s["hang"] + s["use"] for s in stats.values())
                left = max(0.0, deadline - time.monotonic())
                print(f"fuzz: {total:,} inputs, {bad} failures, {left / 60:.1f} min left", file=sys.stderr, flush=True)
    finally:
        for w in workers.values():
            w["proc"].kill()
            w["proc"].join()
    return stats


def report(stats: dict, minutes: float, seed: int) -> str:
    """The figures as Markdown: a table per target, then each kind of failure with its first input."""
    columns = [
        ("inputs", "inputs"),
        ("ok", "ok"),
        ("error", "ClirkitError"),
        ("neutral", "neutral"),
        ("uncaught", "uncaught"),
        ("wrong", "wrong"),
        ("hang", "hangs"),
        ("use", "use errors"),
        ("harness", "harness"),
    ]
    rows = ["| target | " + " | ".join(title for _, title in columns) + " |", "|---|" + "---:|" * len(columns)]
    total = {k: 0 for k, _ in columns}
    for name, s in stats.items():
        rows.append(f"| {name} | " + " | ".join(f"{s[k]:,}" for k, _ in columns) + " |")
        for k in total:
            total[k] += s[k]
    rows.append("| **all** | " + " | ".join(f"**{total[k]:,}**" for k, _ in columns) + " |")
    lines = [
        f"fuzzing {minutes:g} min, seed {seed}: {total['inputs']:,} inputs, uncaught = {total['uncaught']}, "
        f"wrong = {total['wrong']}, hangs = {total['hang']}, use errors = {total['use']}",
        "",
    ] + rows
    for name, s in stats.items():
        for key, f in sorted(s["failures"].items(), key=lambda kv: -kv[1]["count"]):
            lines += [
                "",
                f"### {name}: {key} ({f['count']} inputs; first: input {f['input']}, {f['what']})",
                "```",
                f["detail"].rstrip()[-2000:],
                "```",
            ]
    return "\n".join(lines)


def signature(outcome: str, detail: str) -> str:
    """What tells failures apart: the exception and the deepest clirkit line of an uncaught one, the
    problem (without numbers and quoted values) of a wrong result."""
    if outcome in ("uncaught", "use", "harness"):
        frames = re.findall(r'File "([^"]*clirkit/[^"]*)", line (\d+)', detail)
        where = f"{frames[-1][0].split('clirkit/', 1)[1]}:{frames[-1][1]}" if frames else "?"
        last = detail.strip().splitlines()[-1] if detail.strip() else ""
        return f"{outcome} {last.split(':', 1)[0]} at {where}"
    text = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "_", detail.split(": /", 1)[0])
    return f"{outcome}: {text[:100]}"


def replay(targets: dict[str, Target], seed: int, i: int, workdir: Path) -> None:
    """Run input ``i`` in this process and print what it was and what happened (its files stay in workdir)."""
    names = [n for n in TARGET_NAMES if n in targets]
    target = targets[names[i % len(names)]]
    k, files, what, neutral = make_input(target, input_random(seed, i))
    outcome, detail = run_input(target, files, workdir / target.name, neutral=neutral, seed_index=k)
    print(f"input {i}: {target.name}, {what}\nfiles in {workdir / target.name}\n{outcome}\n{detail}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument("--minutes", type=float, default=10.0, help="how long to fuzz")
    ap.add_argument("--seed", type=int, default=0, help="seed of the inputs (input i is made from (seed, i))")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds after which an input is a hang")
    ap.add_argument("--targets", nargs="+", choices=TARGET_NAMES, default=None, help="only these targets")
    ap.add_argument("--json", default=None, help="also write the figures here")
    ap.add_argument("--replay", type=int, default=None, metavar="I", help="run input I alone and show it")
    ap.add_argument("--keep", default=None, help="a folder for the seeds and inputs (default: a temporary one)")
    args = ap.parse_args(argv)
    if args.minutes <= 0 or args.jobs < 1 or args.timeout <= 0:
        ap.error("--minutes, --jobs and --timeout must be positive")
    with contextlib.ExitStack() as stack:
        work = Path(args.keep) if args.keep else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="fuzz.")))
        os.environ["CLIRKIT_CACHE"] = str(work / "cache")
        t0 = time.monotonic()
        all_targets = build_targets(work / "seeds")
        chosen = {n: all_targets[n] for n in (args.targets or TARGET_NAMES)}
        print(f"fuzz: {len(chosen)} targets, seeds made in {time.monotonic() - t0:.1f} s", file=sys.stderr)
        if args.replay is not None:
            replay(chosen, args.seed, args.replay, work / "replay")
            return 0
        targets = [chosen[n] for n in TARGET_NAMES if n in chosen]
        stats = fuzz(
            targets,
            minutes=args.minutes,
            seed=args.seed,
            jobs=args.jobs,
            timeout=args.timeout,
            workdir=str(work / "inputs"),
        )
    print(report(stats, args.minutes, args.seed))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"minutes": args.minutes, "seed": args.seed, "jobs": args.jobs, "targets": stats}, fh, indent=1)
    failures = sum(s["uncaught"] + s["wrong"] + s["hang"] + s["use"] + s["harness"] for s in stats.values())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
