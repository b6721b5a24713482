"""Every verb x every input kind x every malformed class: the hardening promises checked from the command line.

Each case runs ``python -m clirkit VERB ...`` as a subprocess, in a folder of its own, on small real inputs:
a slice of the bundled ``nave-en-es`` collection (30 queries, 191 verses, their verse pairs) as loose files in
every layout the readers take and as a collection folder, dictionaries in the pairs, MUSE, Ding and FreeDict
layouts, word vectors, an experiment file, and the artifacts the verbs themselves make from them (an index,
IBM Model 1 tables in npz and Moses text, DT and PSQ runs, a boost model, an SCS model). A *slot* is one verb
reading one input kind with its other inputs clean; each slot is run once clean (its output is the reference)
and then once per malformed class of that input:

- text inputs (documents TSV/JSONL, queries TSV/JSONL, TREC SGML, CLEF XML, NTCIR XML and HC4 JSONL topics,
  qrels, runs, parallel text by line and by id, stopwords, Moses tables and phrase tables, HLTCOE PSQ json
  tables, pairs/MUSE (named, and told by content)/Ding/FreeDict dictionaries, Pharaoh word alignments, word
  vectors, extra tuples, experiment TOML, collection manifests and the files they name): missing file, a folder,
  empty, binary garbage, wrong encoding, lone surrogates (bytes and JSON/TOML escapes), gzip with deflate
  damage, truncated gzip, 20 MB ids, NUL in ids, duplicate ids, grades >= 2^63, 5,000-digit integers, NaN/inf/negative numbers, missing
  fields, deep JSON nesting, values of another type, ...; and neutral changes (CR-only line ends; gzip of
  CRLF lines with a byte-order mark) that must give the clean result;
- ``.npz`` inputs (index, translation table, boost and SCS models): empty, garbage, truncated or damaged
  zip, a header that is valid JSON but not an object, invalid, missing, deeply nested, with a 5,000-digit
  number, another version or kind, a lone surrogate, a pickled array, a missing array; tampered header
  values (``ngram: -5``, ``params`` not an object, ``eps: "x"``, ...) and arrays (negative or NaN
  ``indptr``, string dtypes, NaN ``doc_lengths``, reversed terms, unsorted vocabularies, NaN weights, ...);
  and neutral changes (compressed members, an unknown extra array);
- bad option values per verb (``nan``, negative, zero where invalid, unknown names);
- output paths: ``-o`` an existing folder, ``FILE/x``, a missing folder, an unwritable place, an empty
  name, a dangling symlink, a full device (all errors); a FIFO with a reader, a symlink, a null device
  (written in place or through, the node kept);
- SIGINT to the process group halfway through the clean run's time (and SIGTERM with ``--full``).

By default the matrix is cut to fit in about 15 minutes of two cores (most verbs import scikit-learn: 2-3 s
of CPU per case): every class of an input kind is tried on the first slot reading it (the check is in its
reader), and on every other slot the classes whose handling depends on the verb (damaged gzip and zip
streams, CR-only line ends, neutral npz changes, a non-object or deeply nested header, the tampered values
and arrays that gave silently wrong runs); a missing file and a folder once per verb, three bad option
values per verb, the output paths but a missing folder, a dangling symlink and a full device. ``--full``
runs every class on every slot (1,622 cases: about 50 minutes of CPU, 25-35 minutes with two jobs).

Outcomes: ``ok-error`` (exit 2, exactly one stderr line ``clirkit: error: ...`` naming the file, option or
path, nothing written, no temporary left), ``accepted-equal`` (exit 0 with the clean input's result: a
neutral change, or a malformed line that changes nothing), ``ok-interrupted`` (exit 130 and ``clirkit:
interrupted``, or the signal came as the process exited; no partial output; an experiment keeps the steps
it finished); the failures: ``traceback``,
``silent wrong`` (exit 0 with a result that differs from the clean one, or a FIFO/device/symlink
replaced), ``hang`` (no exit within ``--timeout`` or 4x the clean run's time), ``uncaught`` (another exit
status), ``bad message`` (several lines, warnings, no name of the culprit), ``partial output`` (something
written or left behind by a failed run) and ``refused valid`` (an error for a neutral change).

    python -m tests.hardening.malformed_matrix --jobs 2        # tables on stdout, exit 1 on any failure
    python -m tests.hardening.malformed_matrix --jobs 2 --full --json m.json   # every class on every slot
    python -m tests.hardening.malformed_matrix --verbs index psq
    python -m tests.hardening.malformed_matrix --match "CR-only" --keep matrix-cases   # keep failing cases' folders

(from the repository's root: it is part of the hardening harness kept with the tests, ``tests/hardening``).

``--sample 30`` lists 30 clean error messages drawn at random from the cases run, each marked by whether it says
what to do (a first cut by pattern, to be read by eye), and ``--sample-from m.json --sample 30`` runs again only
the 30 cases drawn from an earlier ``--json`` report (the same draw: to see the same messages after a change).

The report has one table of counts per malformed class and one per verb, the total line
``N cases: ok-error X, accepted-equal Y, ..., tracebacks 0, silent wrong 0, hangs 0, uncaught 0, ...``,
then each failure with its command (run it in the case folder kept by ``--keep`` to reproduce it), and on
stderr the wall time and the CPU time of the clirkit processes (what the machine's load does not change).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np

from .fuzz import alignment_files, as_lines, freedict, muse_text, phrase_table, psq_json, topic_files

HEADER_KEY = "__header__"  # where clirkit's npz files keep their JSON header
SPLITS = {"train": 16, "dev": 6, "test": 8}  # queries per split of the slice
EXTRA_DOCS = 120  # verses beside the judged ones
HUGE_ID = "A" * 20_000_000  # a 20 MB id
BIG_DIGITS = "7" * 5000  # a 5,000-digit integer


# ================================================================================================
# the clean inputs: a slice of nave-en-es, and artifacts made from it by the verbs themselves


def clirkit(argv: list[str], env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``python -m clirkit ARGV``; raise RuntimeError if it fails (used to make the clean artifacts)."""
    done = subprocess.run([sys.executable, "-m", "clirkit", *argv], env=env, capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"clirkit {' '.join(argv)}: exit {done.returncode}\n{done.stderr.decode(errors='replace')}")
    return done


def make_inputs(base: Path, env: dict[str, str] | None = None) -> dict[str, Path]:
    """Write the clean inputs in ``base``: a small slice of the bundled ``nave-en-es`` collection (as a
    collection folder and as loose files in every layout the readers take), dictionaries, word vectors, an
    experiment file, and the artifacts the verbs make from them (index, tables, runs, boost and SCS models), run
    with the environment ``env``.

    Returns ``{name: path}`` of every file made."""
    from clirkit import datasets
    from clirkit.analysis import Analyzer, frequent_terms

    c = datasets.load("nave-en-es")
    queries, qrels = {}, {}
    for split, n in SPLITS.items():
        judged = c.qrels(split)
        ids, counts = np.unique(judged.qids, return_counts=True)
        small = set(ids[(counts >= 2) & (counts <= 8)].tolist())
        chosen = [q for q in c.queries(split) if q in small][:n]
        queries[split] = {q: c.queries(split)[q] for q in chosen}
        qrels[split] = judged.subset(chosen)
    docids, texts = c.documents()
    wanted = set(docids[:EXTRA_DOCS]).union(*(set(q.docids.tolist()) for q in qrels.values()))
    keep = [i for i, d in enumerate(docids) if d in wanted]
    docs = [(docids[i], texts[i]) for i in keep]
    sources, targets = c.parallel()
    pair_ids = c.parallel_ids()
    pairs = [(pair_ids[i], sources[i], targets[i]) for i in range(len(pair_ids)) if pair_ids[i] in wanted]

    base.mkdir(parents=True, exist_ok=True)
    p: dict[str, Path] = {}

    def put(name: str, data: bytes) -> None:
        p[name] = base / name
        p[name].write_bytes(data)

    coll = base / "coll"
    datasets.write_collection(
        datasets.CollectionData(
            name="matrix-nave",
            variant="standard",
            source_lang="en",
            target_lang="es",
            description="a matrix slice",
            docids=[d for d, _ in docs],
            doc_texts=[t for _, t in docs],
            pair_ids=[i for i, _, _ in pairs],
            pair_sources=[s for _, s, _ in pairs],
            pair_targets=[t for _, _, t in pairs],
            queries=queries,
            qrels=qrels,
        ),
        coll,
        compress=False,
    )
    p["coll"] = coll
    put("docs.tsv", as_lines(f"{d}\t{t}" for d, t in docs))
    put("docs.jsonl", as_lines(json.dumps({"docid": d, "text": t}, ensure_ascii=False) for d, t in docs))
    for split, qs in queries.items():
        put(f"queries.{split}.tsv", as_lines(f"{q}\t{t}" for q, t in qs.items()))
        judged = qrels[split]
        put(
            f"qrels.{split}.txt",
            as_lines(
                f"{q} 0 {d} {int(r)}"
                for q, d, r in zip(judged.qids.tolist(), judged.docids.tolist(), judged.rels.tolist())
            ),
        )
    test = queries["test"]
    put("queries.test.jsonl", as_lines(json.dumps({"qid": q, "text": t}, ensure_ascii=False) for q, t in test.items()))
    put(
        "topics.test.txt",
        "".join(
            f"<top>\n<num> Number: {q}\n<title> {t.split(':')[0]}\n<desc> Description:\n{t}\n</top>\n\n"
            for q, t in test.items()
        ).encode("utf-8"),
    )
    spanish = {f"es{i}": t for i, (_, _, t) in enumerate(pairs[:6])}  # monolingual queries for `search`
    put("es.queries.tsv", as_lines(f"{q}\t{t}" for q, t in spanish.items()))
    put("es.queries.jsonl", as_lines(json.dumps({"qid": q, "text": t}, ensure_ascii=False) for q, t in spanish.items()))
    put(
        "es.topics.txt",
        "".join(f"<top>\n<num> Number: {q}\n<title> {t}\n</top>\n\n" for q, t in spanish.items()).encode("utf-8"),
    )
    put("translated.tsv", as_lines(f"{q}\t{pairs[i % len(pairs)][2]}" for i, q in enumerate(test)))
    put("src.en.txt", as_lines(s for _, s, _ in pairs))
    put("tgt.es.txt", as_lines(t for _, _, t in pairs))
    put("src.en.tsv", as_lines(f"{i}\t{s}" for i, s, _ in pairs))
    put("tgt.es.tsv", as_lines(f"{i}\t{t}" for i, _, t in pairs))
    es, en = Analyzer("es"), Analyzer("en")
    put(
        "stop.es.txt",
        as_lines(
            ["# frequent Spanish words of the slice"] + frequent_terms(es.tokenize_many([t for _, t in docs]), 12)
        ),
    )
    put(
        "stop.en.txt",
        as_lines(
            ["# frequent English words of the slice"] + frequent_terms(en.tokenize_many([s for _, s, _ in pairs]), 12)
        ),
    )
    judged = qrels["train"]
    put(
        "extra.tsv",
        as_lines(
            f"{queries['train'][q]}\t{d}\t{int(r)}"
            for q, d, r in list(zip(judged.qids.tolist(), judged.docids.tolist(), judged.rels.tolist()))[:20]
        ),
    )
    rng = np.random.default_rng(0)
    for lang, analyzer, side in (("en", en, [s for _, s, _ in pairs]), ("es", es, [t for _, t in docs])):
        words = frequent_terms(analyzer.tokenize_many(side), 40)
        put(
            f"{lang}.vec",
            as_lines([f"{len(words)} 8"] + [" ".join([w] + [f"{x:.4f}" for x in rng.normal(size=8)]) for w in words]),
        )
    put(
        "exp.toml",
        (
            f'name = "matrix"\ncollection = "{coll.as_posix()}"\nmeasures = ["AP", "P@10"]\n'
            f'baseline = "PSQ"\nseed = 1\njobs = 1\n\n[table]\niterations = 2\n\n'
            f'[systems.DT]\nkind = "dt"\n\n[systems.PSQ]\nkind = "psq"\n'
        ).encode("utf-8"),
    )

    # a [collection] of plain files in an experiment (paths relative to it) and for `clirkit collection`
    put("plain.queries.tsv", p["queries.dev.tsv"].read_bytes() + p["queries.test.tsv"].read_bytes())
    put("plain.qrels.txt", p["qrels.dev.txt"].read_bytes() + p["qrels.test.txt"].read_bytes())
    put("plain.toml", PLAIN_TOML.encode("utf-8"))

    # artifacts, made by the verbs
    def made(name: str, argv: list[str]) -> None:
        p[name] = base / name
        clirkit([a.replace("OUT", str(p[name])) for a in argv], env)

    made("index.npz", ["index", str(p["docs.tsv"]), "-o", "OUT", "--lang", "es", "-q"])
    made(
        "table.npz",
        [
            "ttable",
            "train",
            "--source",
            str(p["src.en.tsv"]),
            "--target",
            str(p["tgt.es.tsv"]),
            "--aligned-by",
            "id",
            "--source-lang",
            "en",
            "--target-lang",
            "es",
            "--iterations",
            "3",
            "-o",
            "OUT",
            "-q",
        ],
    )
    made(
        "table.rev.npz",
        [
            "ttable",
            "train",
            "--source",
            str(p["tgt.es.tsv"]),
            "--target",
            str(p["src.en.tsv"]),
            "--aligned-by",
            "id",
            "--source-lang",
            "es",
            "--target-lang",
            "en",
            "--iterations",
            "3",
            "-o",
            "OUT",
            "-q",
        ],
    )  # p(query word | document word): for psq --translate documents
    made(
        "table.e2f",
        ["ttable", "prune", str(p["table.npz"]), "--min-prob", "0.05", "--max-options", "5", "-o", "OUT", "-q"],
    )
    for split in SPLITS:
        for verb in ("dt", "psq"):
            made(
                f"{verb}.{split}.run",
                [
                    verb,
                    "--index",
                    str(p["index.npz"]),
                    "--queries",
                    str(p[f"queries.{split}.tsv"]),
                    "--table",
                    str(p["table.npz"]),
                    "--depth",
                    "40",
                    "-o",
                    "OUT",
                    "-q",
                ],
            )
    put("psq.traindev.run", p["psq.train.run"].read_bytes() + p["psq.dev.run"].read_bytes())
    made(
        "boost.npz",
        [
            "boost-train",
            "--collection",
            str(coll),
            "--rounds",
            "12",
            "--eval-every",
            "4",
            "--bits",
            "16",
            "-o",
            "OUT",
            "-q",
        ],
    )
    made(
        "scs.npz",
        ["scs-train", "--collection", str(coll), "--dim", "8", "--epochs", "1", "--negatives", "5", "-o", "OUT", "-q"],
    )

    # dictionaries from the table's best translations of the test queries' words
    from clirkit.translation import load_table

    table = load_table(p["table.npz"])
    words = sorted({w for t in test.values() for w in en.tokenize(t) if w in table})[:15]
    options = {w: [e for e, _ in table.translations(w)[:3]] for w in words}
    options = {w: o for w, o in options.items() if o}
    put("en-es.pairs.tsv", as_lines(f"{w}\t{e}" for w, o in options.items() for e in o))
    put("en-es.dict", as_lines(f"{w} {e}" for w, o in options.items() for e in o))
    put(
        "en-es.ding.txt",
        as_lines(
            ["# Version :: matrix seed in Ding's layout"] + [f"{w} {{n}} :: {'; '.join(o)}" for w, o in options.items()]
        ),
    )
    index_bytes, dict_bytes = freedict(list(options.items()), title="English-Spanish matrix seed")
    put("freedict-eng-spa.index", index_bytes)
    put("freedict-eng-spa.dict", dict_bytes)

    # the readers added since: topic files, weighted tables, a MUSE file told by content, word alignments
    for dialect, name in (
        ("clef", "topics.test.clef.xml"),
        ("ntcir", "topics.test.ntcir.xml"),
        ("hc4", "topics.test.hc4.jsonl"),
    ):
        put(name, topic_files(list(test.items()), dialect).encode("utf-8"))
    rows = [(w, e, q) for w in words for e, q in table.translations(w)[:3]]
    put("en-es.phrase-table", phrase_table(rows))
    put("en-es.json", psq_json(rows, indent=1))
    put("en-es.0-5000.txt", muse_text(options))
    for name, data in alignment_files(pairs).items():
        put(name, data)
    return p


PLAIN_TOML = """name = "plain"
measures = ["AP"]
seed = 1
jobs = 1

[collection]
documents = "docs.tsv"
queries = "plain.queries.tsv"
qrels = "plain.qrels.txt"
source_lang = "en"
target_lang = "es"
split = {dev = 0.5, test = 0.5}

[table]
file = "table.npz"

[systems.DT]
kind = "dt"
"""
# [collection] mistakes: (class, old text of PLAIN_TOML, new text)
PLAIN_MISTAKES = [
    ("[collection] unknown key", 'qrels = "plain.qrels.txt"', 'qrels = "plain.qrels.txt"\nqrel = "x.txt"'),
    ("[collection] queries of another type", 'queries = "plain.queries.tsv"', "queries = 5"),
    ("[collection] language of another type", 'source_lang = "en"', "source_lang = 5"),
    ("[collection] unknown language", 'target_lang = "es"', 'target_lang = "xx"'),
    ("[collection] a key missing", 'source_lang = "en"\n', ""),
    ("[collection] qrels path to a missing file", 'qrels = "plain.qrels.txt"', 'qrels = "nothing.txt"'),
    ("[collection] documents path empty", 'documents = "docs.tsv"', 'documents = ""'),
    (
        "[collection] queries by an unknown split",
        'queries = "plain.queries.tsv"',
        'queries = {valid = "plain.queries.tsv"}',
    ),
    ("[collection] split not summing to 1", "split = {dev = 0.5, test = 0.5}", "split = {dev = 0.5, test = 0.7}"),
    ("[collection] split without test", "split = {dev = 0.5, test = 0.5}", "split = {train = 0.5, dev = 0.5}"),
    ("[collection] split of an unknown name", "split = {dev = 0.5, test = 0.5}", "split = {valid = 0.5, test = 0.5}"),
    ("[collection] split NaN fraction", "split = {dev = 0.5, test = 0.5}", "split = {dev = nan, test = 0.5}"),
    ("[collection] split a string", "split = {dev = 0.5, test = 0.5}", 'split = "dev=0.5,test=0.5"'),
    ("[collection] split leaving dev empty", "split = {dev = 0.5, test = 0.5}", "split = {dev = 0.01, test = 0.99}"),
    (
        "[collection] split with queries by split",
        'queries = "plain.queries.tsv"',
        'queries = {test = "plain.queries.tsv"}',
    ),
    ("[collection] split_seed negative", "split = {", "split_seed = -1\nsplit = {"),
    ("[collection] split_seed a string", "split = {", 'split_seed = "x"\nsplit = {'),
    ("[collection] variant with a [collection]", 'name = "plain"', 'name = "plain"\nvariant = "standard"'),
    ("[collection] a table and a collection name", "[collection]\n", 'collection = "nave-en-es"\n[collection]\n'),
]
MANIFEST_BROKEN = (
    "invalid JSON",
    "files missing",
    "path out of the folder",
    "a file that is not there",
    "not an object",
)  # the manifest classes a collection folder is given to `run` and `collection`


# ================================================================================================
# malformed classes: what each input kind is given instead of its clean bytes

DIRECTORY = b"<a directory>"  # the input path names a folder
MISSING = None  # the input path names nothing

# input kind -> where the first record's id is: ("field", separator, index), "json KEY", "topics", or None
ID_AT = {
    "documents_tsv": ("field", "\t", 0),
    "queries_tsv": ("field", "\t", 0),
    "parallel_id": ("field", "\t", 0),
    "qrels": ("field", " ", 2),
    "run": ("field", " ", 2),
    "moses": ("field", " ", 0),
    "pairs": ("field", "\t", 0),
    "muse": ("field", " ", 0),
    "ding": ("field", " ", 0),
    "freedict_index": ("field", "\t", 0),
    "vectors": ("field", " ", 0),
    "extra_tuples": ("field", "\t", 1),
    "parallel_tsv": ("field", "\t", 0),
    "documents_jsonl": "json docid",
    "queries_jsonl": "json qid",
    "topics": "topics",
    "topics_clef": ("tag", "identifier"),
    "topics_ntcir": ("tag", "NUM"),
    "hc4_jsonl": "json topic_id",
    "phrase_table": ("field", " ||| ", 0),
    "muse_text": ("field", " ", 0),
}
# input kind -> (field separator, [(class, field index, value)]): hostile values in one field of a record
VALUES = {
    "qrels": (
        " ",
        [
            ("grade >= 2^63", 3, str(2**63)),
            ("5000-digit grade", 3, BIG_DIGITS),
            ("NaN grade", 3, "nan"),
            ("non-numeric grade", 3, "x"),
        ],
    ),
    "run": (
        " ",
        [
            ("NaN score", 4, "nan"),
            ("infinite score", 4, "inf"),
            ("5000-digit score", 4, BIG_DIGITS),
            ("non-numeric score", 4, "x"),
            ("5000-digit rank", 3, BIG_DIGITS),
        ],
    ),
    "moses": (
        " ",
        [
            ("NaN probability", 2, "nan"),
            ("negative probability", 2, "-0.5"),
            ("probability > 1", 2, "2.5"),
            ("5000-digit probability", 2, BIG_DIGITS),
            ("non-numeric probability", 2, "x"),
        ],
    ),
    "vectors": (
        " ",
        [
            ("NaN in a vector", 3, "nan"),
            ("5000-digit vector value", 3, BIG_DIGITS),
            ("infinite vector value", 3, "inf"),
        ],
    ),
    "extra_tuples": (
        "\t",
        [
            ("grade >= 2^63", 2, str(2**63)),
            ("5000-digit grade", 2, BIG_DIGITS),
            ("non-numeric grade", 2, "x"),
            ("unknown document id", 1, "Nowhere.1.1"),
        ],
    ),
    "freedict_index": (
        "\t",
        [("offset past the end", 1, "/////"), ("non-base64 offset", 1, "!!"), ("5000-digit length", 2, "B" * 5000)],
    ),
    "phrase_table": (
        " ||| ",
        [
            ("NaN probability", 2, "0.5 0.5 nan 0.5"),
            ("probability > 1", 2, "0.5 0.5 2.5 0.5"),
            ("5000-digit probability", 2, f"0.5 0.5 {BIG_DIGITS} 0.5"),
            ("too few scores", 2, "0.5 0.5"),
            ("empty target phrase", 1, " "),
        ],
    ),
    "links": (
        " ",
        [
            ("link past the line's tokens", 0, "999-0"),
            ("not an i-j link", 0, "a-b"),
            ("negative link", 0, "-1-0"),
            ("5000-digit link", 0, f"{BIG_DIGITS}-0"),
        ],
    ),
}
NO_EMPTY = {"stopwords"}  # kinds for which an empty file is a valid input (not checked as malformed)
ONE_TEXT = {"toml", "manifest"}  # kinds read as one text (never gzipped by the user)
JSON_TEXT = {"psq_json"}  # kinds read as one JSON text (gzipped or not)


def _first_record(kind: str, lines: list[str]) -> int:
    """Index of the first line holding a record (after comments and a header)."""
    for i, line in enumerate(lines):
        if not line.strip() or line.startswith("#"):
            continue
        if kind == "vectors" and i == 0:
            continue
        if kind in ("topics", "topics_clef", "topics_ntcir"):
            if line.startswith(("<num>", "<identifier>", "<NUM>")):
                return i
            continue
        if kind == "freedict_index" and line.startswith("00database"):
            continue
        return i
    raise ValueError(f"no record in a {kind} file")


def _edit_id(kind: str, text: str, new) -> str | None:
    """``text`` with the first record's id replaced by ``new(old)`` (a str), or None if the kind has no ids."""
    at = ID_AT.get(kind)
    if at is None:
        return None
    lines = text.split("\n")
    i = _first_record(kind, lines)
    if isinstance(at, tuple) and at[0] == "tag":
        start, end = f"<{at[1]}>", f"</{at[1]}>"
        head, rest = lines[i].split(start, 1)
        ident, tail = rest.split(end, 1)
        lines[i] = f"{head}{start}{new(ident)}{end}{tail}"
    elif isinstance(at, tuple):
        _, sep, k = at
        fields = lines[i].split(sep)
        fields[k] = new(fields[k])
        lines[i] = sep.join(fields)
    elif at == "topics":
        head, _, ident = lines[i].rpartition(" ")
        lines[i] = f"{head} {new(ident)}"
    else:
        key = at.split()[1]
        record = json.loads(lines[i])
        old = record[key]
        record[key] = "\0ID\0"
        lines[i] = json.dumps(record, ensure_ascii=False).replace('"\\u0000ID\\u0000"', new(json.dumps(old)))
    return "\n".join(lines)


def _duplicate(kind: str, text: str) -> str | None:
    """``text`` with its first record repeated at the end, changed where a change makes a conflict."""
    lines = text.rstrip("\n").split("\n")
    if kind in ("documents_tsv", "queries_tsv", "parallel_id", "parallel_tsv"):
        first = lines[_first_record(kind, lines)]
        return text + first.split("\t")[0] + "\tanother text\n"
    if kind in ("documents_jsonl", "queries_jsonl", "hc4_jsonl"):
        return text + lines[_first_record(kind, lines)] + "\n"
    if kind in ("topics_clef", "topics_ntcir"):
        tag = "topic" if kind == "topics_clef" else "TOPIC"
        first = text[text.index(f"<{tag}") : text.index(f"</{tag}>") + len(f"</{tag}>")]
        close = "</topics>" if kind == "topics_clef" else "</TOPICS>"
        return text.replace(
            close, first.replace("<title>", "<title>another ").replace("<TITLE>", "<TITLE>another ") + "\n" + close
        )
    if kind == "links":
        first = lines[_first_record(kind, lines)]
        return text.replace(first, f"{first} {first.split()[0]}", 1)
    if kind == "topics":
        end = text.index("</top>") + len("</top>")
        return text + "\n" + text[:end].replace("<title> ", "<title> another ") + "\n"
    if kind in ("qrels", "run", "moses", "vectors"):
        fields = lines[_first_record(kind, lines)].split(" ")
        at = {"qrels": 3, "run": 4, "moses": 2, "vectors": 1}[kind]
        fields[at] = {"qrels": "0", "run": "-99.5", "moses": "0.25", "vectors": "0.5"}[kind]
        return text + " ".join(fields) + "\n"
    return None


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _damaged_gz(data: bytes) -> bytes:
    """A gzip stream whose deflate data is damaged in the middle (the header and the length are intact)."""
    packed = bytearray(_gz(data))
    body = range(10, len(packed) - 8)
    for k in range(0, max(1, len(body) // 8), max(1, len(body) // 64)):
        packed[body[len(body) // 3 + k]] ^= 0x5A
    return bytes(packed)


def _garbage(seed: int) -> bytes:
    rng = random.Random(seed)
    return b"\xff\xfe\x00" + bytes(rng.randrange(256) for _ in range(4000))


def text_mutations(kind: str, data: bytes) -> list[tuple[str, str, bytes | None]]:
    """The malformed and the neutral variants of a clean text file of ``kind``: ``(class, expect, bytes)``,
    expect being "error" (a clean error is due), "equal" (the same result as the clean file is due) or
    "either" (an error or the same result)."""
    text = data.decode("utf-8")
    lines = text.split("\n")
    out: list[tuple[str, str, bytes | None]] = [("missing file", "error", MISSING), ("directory", "error", DIRECTORY)]
    if kind not in NO_EMPTY:
        out.append(("empty file", "error", b"" if kind in ("toml", "manifest") else b"\n  \n\t\n"))
    out.append(("binary garbage", "error", _garbage(len(data))))
    latin = text.encode("latin-1", "replace")
    if any(byte > 127 for byte in latin):  # accented letters: invalid UTF-8 in Latin-1
        out.append(("wrong encoding (Latin-1)", "error", latin))
    else:
        out.append(("wrong encoding (UTF-16)", "error", text.encode("utf-16")))
    i = _first_record(kind, lines) if kind not in ("stopwords", "toml", "manifest", "freedict_dict") else 0
    if kind == "stopwords":
        i = next(k for k, line in enumerate(lines) if line and not line.startswith("#"))
    surrogate = lines[:i] + [lines[i][:2] + "\ud800" + lines[i][2:]] + lines[i + 1 :]
    out.append(("lone surrogate (bytes)", "error", "\n".join(surrogate).encode("utf-8", "surrogatepass")))
    if kind not in ONE_TEXT and kind != "freedict_dict":
        out += [
            ("corrupt gz (deflate damage)", "error", _damaged_gz(data)),
            ("truncated gz", "error", _gz(data)[: len(_gz(data)) * 3 // 5]),
        ]
    if kind != "freedict_dict":  # its entries are found by byte offsets
        crlf_bom = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8")
        if kind in ONE_TEXT:  # TOML allows LF and CRLF only; a BOM is not TOML either
            out += [
                ("CRLF line ends and a BOM (neutral)", "either", crlf_bom),
                ("CR-only line ends (neutral)", "either", text.replace("\n", "\r").encode("utf-8")),
            ]
        else:
            out += [
                ("gzip of CRLF lines with a BOM (neutral)", "equal", _gz(crlf_bom)),
                ("CR-only line ends (neutral)", "equal", text.replace("\n", "\r").encode("utf-8")),
            ]
    if kind == "freedict_dict":
        out.append(("truncated", "error", data[: len(data) // 2]))
    for cls, new in (
        ("20 MB id", lambda old: HUGE_ID if not old.startswith('"') else json.dumps(HUGE_ID)),
        (
            "NUL in an id",
            lambda old: old[:1] + "\0" + old[1:] if not old.startswith('"') else old[:2] + "\\u0000" + old[2:],
        ),
    ):
        edited = _edit_id(kind, text, new)
        if edited is not None:
            out.append((cls, "error", edited.encode("utf-8")))
    if kind.endswith("jsonl"):
        for cls, value in (
            ("deep JSON nesting", "[" * 100_000 + "]" * 100_000),
            ("5000-digit integer id", BIG_DIGITS),
            ("lone surrogate (JSON escape)", '"Q\\ud800"'),
            ("id of another type", '{"a": 1}'),
        ):
            out.append((cls, "error", _edit_id(kind, text, lambda old, v=value: v).encode("utf-8")))
        out.append(("a line that is not an object", "error", ("[1, 2]\n" + text).encode("utf-8")))
    duplicated = _duplicate(kind, text)
    if duplicated is not None:
        out.append(("duplicate id", "error", duplicated.encode("utf-8")))
    if kind in VALUES:
        sep, rows = VALUES[kind]
        for cls, k, value in rows:
            j = _first_record(kind, lines)
            fields = lines[j].split(sep)
            fields[k] = value
            out.append((cls, "error", "\n".join(lines[:j] + [sep.join(fields)] + lines[j + 1 :]).encode("utf-8")))
    short = {
        "qrels": " ",
        "run": " ",
        "moses": " ",
        "pairs": "\t",
        "extra_tuples": "\t",
        "vectors": " ",
        "documents_tsv": "\t",
        "queries_tsv": "\t",
        "parallel_id": "\t",
        "parallel_tsv": "\t",
        "freedict_index": "\t",
    }
    if kind in short:
        j = _first_record(kind, lines)
        fields = lines[j].split(short[kind])
        cut = {
            "qrels": 2,
            "run": 5,
            "moses": 2,
            "pairs": 1,
            "extra_tuples": 2,
            "vectors": 5,
            "documents_tsv": 1,
            "queries_tsv": 1,
            "parallel_id": 1,
            "parallel_tsv": 2,
            "freedict_index": 2,
        }[kind]
        out.append(
            (
                "missing field",
                "error",
                "\n".join(lines[:j] + [short[kind].join(fields[:cut])] + lines[j + 1 :]).encode("utf-8"),
            )
        )
    if kind in ("parallel_line", "links"):
        out.append(("misaligned (a line less)", "error", "\n".join(lines[:-2] + [""]).encode("utf-8")))
    if kind == "muse_text":  # alphabetical translations: MUSE's order or plain pairs? the user says which
        out.append(
            (
                "alphabetical translations (MUSE or pairs?)",
                "error",
                "".join(f"{line}\n" for line in sorted(line for line in lines if line)).encode("utf-8"),
            )
        )
    if kind == "psq_json":
        table = json.loads(text)
        word = next(iter(table))
        target = next(iter(table[word]))

        def first_p(value) -> str:
            return json.dumps(
                {word: {**table[word], target: value}, **{w: t for w, t in table.items() if w != word}},
                indent=1,
                ensure_ascii=False,
            )

        for cls, raw in (
            ("not an object", "[1, 2]"),
            ("deep nesting", "[" * 100_000 + "]" * 100_000),
            ("invalid JSON", text[: len(text) // 2]),
            ("NaN probability", first_p(float("nan"))),
            ("infinite probability", first_p(float("inf"))),
            ("probability > 1", first_p(2.5)),
            ("negative probability", first_p(-0.5)),
            ("probability of another type", first_p("high")),
            ("translations of another type", json.dumps({**table, word: [target]})),
            ("5000-digit probability", first_p(0.125).replace("0.125", BIG_DIGITS, 1)),
            (
                "lone surrogate (JSON escape)",
                first_p(0.5).replace(json.dumps(target, ensure_ascii=False), '"Q\\ud800"', 1),
            ),
            ("empty source word", json.dumps({"": {target: 1.0}, **table})),
            ("duplicate source word", "{" + json.dumps(word) + ': {"x": 1.0},' + text.lstrip()[1:]),
        ):
            out.append((cls, "error", raw.encode("utf-8")))
    if kind == "vectors":
        head = lines[0].split()
        for cls, header in (("dimension mismatch", f"{head[0]} 9"), ("5000-digit header", f"{BIG_DIGITS} 8")):
            out.append((cls, "error", "\n".join([header] + lines[1:]).encode("utf-8")))
    if kind == "topics":
        out.append(("unclosed <top>", "error", text[: text.rindex("</top>")].encode("utf-8")))
        out.append(("topic without <num>", "error", text.replace("<num> Number:", "<nu>", 1).encode("utf-8")))
    if kind == "toml":
        for cls, first, extra in (
            ("deep nesting", True, "deep = " + "[" * 100_000 + "]" * 100_000),
            ("5000-digit integer", False, f"[extra]\nrounds = {BIG_DIGITS}"),
            ("lone surrogate (TOML escape)", True, 'note = "Q\\ud800"'),
            ("unknown key", True, "colection = 3"),
            ("syntax error", False, "name = "),
            ("duplicate key", True, 'name = "again"'),
        ):  # first: before the tables
            out.append((cls, "error", (extra + "\n" + text if first else text + extra + "\n").encode("utf-8")))
        for cls, old, new in (
            ("NaN seed", "seed = 1", "seed = nan"),
            ("negative iterations", "iterations = 2", "iterations = -2"),
            ("5000-digit seed", "seed = 1", f"seed = {BIG_DIGITS}"),
            ("value of another type", "iterations = 2", 'iterations = "two"'),
            ("unknown system kind", 'kind = "dt"', 'kind = "dtt"'),
        ):
            out.append((cls, "error", text.replace(old, new, 1).encode("utf-8")))
    if kind == "manifest":
        manifest = json.loads(text)
        for cls, value in (
            ("not an object", [1, 2]),
            ("deep nesting", None),
            ("5000-digit integer", None),
            ("lone surrogate (JSON escape)", None),
            ("files missing", "files"),
            ("path out of the folder", "../docs.tsv"),
            ("a file that is not there", "nothing.tsv"),
            ("invalid JSON", None),
        ):
            if cls == "not an object":
                raw = json.dumps(value)
            elif cls == "deep nesting":
                raw = text.replace("{", '{"deep": ' + "[" * 100_000 + "]" * 100_000 + ", ", 1)
            elif cls == "5000-digit integer":
                raw = text.replace("{", f'{{"big": {BIG_DIGITS}, ', 1)
            elif cls == "lone surrogate (JSON escape)":
                raw = json.dumps({**manifest, "name": "Q\ud800"})
            elif cls == "files missing":
                raw = json.dumps({k: v for k, v in manifest.items() if k != "files"})
            elif cls == "invalid JSON":
                raw = text[: len(text) // 2]
            else:
                raw = json.dumps({**manifest, "files": {**manifest["files"], "documents": value}})
            out.append((cls, "error", raw.encode("utf-8", "surrogatepass")))
    return out


def _npz_parts(data: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        meta = json.loads(npz[HEADER_KEY].tobytes().decode("utf-8"))
        return meta, {k: npz[k] for k in npz.files if k != HEADER_KEY}


def _npz_bytes(header: bytes | None, arrays: dict[str, np.ndarray], *, compressed: bool = False) -> bytes:
    out = io.BytesIO()
    payload = dict(arrays) if header is None else {HEADER_KEY: np.frombuffer(header, dtype=np.uint8), **arrays}
    (np.savez_compressed if compressed else np.savez)(out, **payload)
    return out.getvalue()


def _header(meta: dict) -> bytes:
    return json.dumps(meta, sort_keys=True).encode("utf-8")


def _set(meta: dict, key: str, value) -> dict:
    """A deep copy of ``meta`` with ``key`` (``a.b`` reaches into objects) set to ``value``."""
    meta = json.loads(json.dumps(meta))
    *parents, last = key.split(".")
    node = meta
    for k in parents:
        node = node[k]
    node[last] = value
    return meta


def _nan_float(a: np.ndarray, at: int = 1) -> np.ndarray:
    b = a.astype(np.float64).copy()
    b.flat[min(at, b.size - 1)] = np.nan
    return b


def _changed(a: np.ndarray, at: int, value) -> np.ndarray:
    b = a.copy()
    b.flat[at] = value
    return b


def _swapped(a: np.ndarray) -> np.ndarray:
    b = a.copy()
    b[[1, 2]] = b[[2, 1]]
    return b


# npz kind -> (header values, array tampers): what a hand-edited or damaged model, index or table may hold
NPZ_TAMPER = {
    "index_npz": (
        [
            ("analyzer null", "analyzer", None),
            ("analyzer language unknown", "analyzer.lang", "xx"),
            ("analyzer not an object", "analyzer", "es"),
            ("stopwords not a list", "analyzer.stopwords", 5),
        ],
        [
            ("negative indptr", "tf_indptr", lambda a: _changed(a, 1, -5)),
            ("NaN indptr", "tf_indptr", _nan_float),
            ("decreasing indptr", "tf_indptr", lambda a: _changed(a, 2, 0)),
            ("NaN doc_lengths", "doc_lengths", _nan_float),
            ("negative doc_lengths", "doc_lengths", lambda a: _changed(a, 0, -3.0)),
            ("reversed terms", "terms", lambda a: a[::-1].copy()),
            ("unsorted terms", "terms", _swapped),
            ("duplicate docids", "docids", lambda a: _changed(a, 1, a[0])),
            ("negative counts", "tf_data", lambda a: _changed(a, 0, -2)),
            ("column out of range", "tf_indices", lambda a: _changed(a, 0, 10**6)),
            ("string dtype", "tf_indices", lambda a: a.astype(str)),
            ("short doc_lengths", "doc_lengths", lambda a: a[:-3]),
            ("2-d docids", "docids", lambda a: a.reshape(1, -1)),
        ],
    ),
    "table_npz": (
        [
            ("params not an object", "params", "x"),
            ("source analyzer broken", "params.source_analyzer", [1]),
            ("n_source wrong", "n_source", 3),
            ("source language unknown", "params.source_lang", "xx"),
            ("source_frequent not a list of words", "params.source_frequent", [1, None]),
        ],
        [
            ("unsorted source vocabulary", "source_vocab", lambda a: a[::-1].copy()),
            ("unsorted target vocabulary", "target_vocab", _swapped),
            ("NaN probability", "data", _nan_float),
            ("negative probability", "data", lambda a: _changed(a, 0, -0.5)),
            ("probability > 1", "data", lambda a: _changed(a, 0, 7.0)),
            ("decreasing indptr", "indptr", lambda a: _changed(a, 2, 0)),
            ("NaN indptr", "indptr", _nan_float),
            ("column out of range", "indices", lambda a: _changed(a, 0, 10**6)),
            ("string dtype", "indptr", lambda a: a.astype(str)),
        ],
    ),
    "boost_npz": (
        [
            ("ngram -5", "ngram", -5),
            ("ngram not a number", "ngram", "x"),
            ("shape wrong", "shape", [10, 99]),
            ("target analyzer null", "target_analyzer", None),
            ("params not an object", "params", [1]),
        ],
        [
            ("NaN weight", "W_data", _nan_float),
            ("infinite weight", "W_data", lambda a: _changed(a, 0, np.inf)),
            ("column out of range", "W_indices", lambda a: _changed(a, 0, 999)),
            ("negative indptr", "W_indptr", lambda a: _changed(a, 1, -4)),
            ("NaN history alpha", "history_alpha", _nan_float),
            ("negative history round", "history_round", lambda a: _changed(a, 0, -1)),
            ("decreasing history_ptr", "history_ptr", lambda a: _changed(a, 2, 0)),
            ("history pair out of range", "history_pair_src", lambda a: _changed(a, 0, 10**6)),
            ("string dtype", "W_indptr", lambda a: a.astype(str)),
            ("duplicate source terms", "src_terms", lambda a: _changed(a, 1, a[0])),
            ("unsorted source terms", "src_terms", _swapped),
            ("unsorted target terms", "tgt_terms", _swapped),
            ("duplicate target terms", "tgt_terms", lambda a: _changed(a, 1, a[0])),
        ],
    ),
    "scs_npz": (
        [
            ('eps "x"', "params.eps", "x"),
            ("eps NaN", "params.eps", float("nan")),
            ("eps negative", "params.eps", -1),
            ("dim wrong", "params.dim", 9),
            ("loss unknown", "params.loss", "xx"),
            ("thresholds decreasing", "params.thresholds", [0.7, 0.2]),
            ("query analyzer null", "query_analyzer", None),
        ],
        [
            ("NaN embedding", "query_embeddings", _nan_float),
            ("infinite embedding", "doc_embeddings", lambda a: _changed(a.astype(np.float64), 3, np.inf)),
            ("embedding width wrong", "doc_embeddings", lambda a: a[:, :7].copy()),
            ("unsorted vocabulary", "doc_vocab", _swapped),
            ("rows fewer than words", "query_embeddings", lambda a: a[:-2].copy()),
            ("unsorted query vocabulary", "query_vocab", _swapped),
            ("duplicate vocabulary word", "doc_vocab", lambda a: _changed(a, 1, a[0])),
            ("string dtype", "doc_embeddings", lambda a: a.astype(str)),
        ],
    ),
}


# npz kind -> a header string the loader uses, where a lone surrogate goes
SURROGATE_AT = {
    "index_npz": "analyzer.lang",
    "table_npz": "params.source_lang",
    "boost_npz": "source_analyzer.lang",
    "scs_npz": "query_analyzer.lang",
}


def npz_mutations(kind: str, data: bytes) -> list[tuple[str, str, bytes | None]]:
    """The malformed and the neutral variants of a clean ``.npz`` file of ``kind`` (see :func:`text_mutations`)."""
    meta, arrays = _npz_parts(data)
    clean = _header(meta)
    first = next(iter(arrays))
    out: list[tuple[str, str, bytes | None]] = [
        ("missing file", "error", MISSING),
        ("directory", "error", DIRECTORY),
        ("empty file", "error", b""),
        ("binary garbage", "error", _garbage(len(data))),
        ("truncated zip", "error", data[: len(data) // 2]),
        (
            "damaged zip bytes",
            "error",
            data[: len(data) // 2]
            + bytes(b ^ 0x33 for b in data[len(data) // 2 : len(data) // 2 + 64])
            + data[len(data) // 2 + 64 :],
        ),
        ("header valid JSON but a list", "error", _npz_bytes(b"[1, 2]", arrays)),
        ("header invalid JSON", "error", _npz_bytes(b'{"kind": ', arrays)),
        ("header missing", "error", _npz_bytes(None, arrays)),
        (
            "header deep nesting",
            "error",
            _npz_bytes(clean.replace(b"{", b'{"deep": ' + b"[" * 100_000 + b"]" * 100_000 + b", ", 1), arrays),
        ),
        (
            "header 5000-digit integer",
            "error",
            _npz_bytes(
                _header(meta).replace(b'"format_version": 1', b'"format_version": ' + BIG_DIGITS.encode()), arrays
            ),
        ),
        ("header format version 99", "error", _npz_bytes(_header(_set(meta, "format_version", 99)), arrays)),
        ("header kind of another file", "error", _npz_bytes(_header(_set(meta, "kind", "other")), arrays)),
        ("array missing", "error", _npz_bytes(clean, {k: v for k, v in arrays.items() if k != first})),
        ("pickled object array", "error", _pickled(clean, arrays, first)),
        ("compressed members (neutral)", "equal", _npz_bytes(clean, arrays, compressed=True)),
        ("an unknown extra array (neutral)", "equal", _npz_bytes(clean, {**arrays, "zz_extra": np.arange(3)})),
    ]
    out.append(
        ("header lone surrogate", "error", _npz_bytes(_header(_set(meta, SURROGATE_AT[kind], "Q\ud800")), arrays))
    )
    values, tampers = NPZ_TAMPER[kind]
    for cls, key, value in values:
        out.append((f"header {cls}", "error", _npz_bytes(_header(_set(meta, key, value)), arrays)))
    for cls, name, change in tampers:
        out.append((f"array {cls}", "error", _npz_bytes(clean, {**arrays, name: change(arrays[name])})))
    return out


def _pickled(header: bytes, arrays: dict[str, np.ndarray], name: str) -> bytes:
    """The npz with array ``name`` stored as a pickled object array (what allow_pickle=False refuses)."""
    out = io.BytesIO()
    obj = np.empty(len(arrays[name]), dtype=object)
    obj[:] = list(arrays[name].tolist())
    np.savez(out, **{HEADER_KEY: np.frombuffer(header, dtype=np.uint8)}, **{**arrays, name: obj})
    return out.getvalue()


# ================================================================================================
# slots: one verb reading one input kind, the other inputs clean


@dataclasses.dataclass
class Slot:
    """A verb reading an input of a kind: ``argv`` names that input ``IN`` and the output ``OUT``; ``files``
    (``{relative path: bytes}``) are put in the case folder, ``targets`` (``{relative path: mutation kind}``)
    are the files the malformed classes change, ``output`` is ``"file"``, ``"dir"`` or ``"stdout"``."""

    verb: str
    label: str
    argv: list[str]
    files: dict[str, bytes]
    targets: dict[str, str]
    output: str = "file"
    out_name: str = "out"
    name: str = ""  # what IN stands for
    # classes of this slot alone (the new surfaces' own mistakes): (class, expect, {relative path: bytes,
    # MISSING or DIRECTORY} put over the slot's files, extra arguments or None); always run, as a kind's first slot
    extra: list[tuple[str, str, dict[str, bytes | None], list[str] | None]] = dataclasses.field(default_factory=list)


def make_slots(p: dict[str, Path]) -> list[Slot]:
    """Every verb with every input kind it reads (the other inputs are the clean files of ``p``)."""
    P = {k: str(v) for k, v in p.items()}
    coll = {f"coll/{f.name}": f.read_bytes() for f in sorted(p["coll"].iterdir())}
    words = list(
        dict.fromkeys(line.split("\t")[0] for line in p["en-es.pairs.tsv"].read_text("utf-8").split("\n") if line)
    )[:3]
    slots: list[Slot] = []

    def add(
        verb: str,
        label: str,
        argv: list[str],
        name: str,
        kind: str,
        *,
        output: str = "file",
        out: str = "out",
        files: dict[str, bytes] | None = None,
        targets: dict[str, str] | None = None,
    ) -> None:
        files = files if files is not None else {name: p[name].read_bytes()}
        slots.append(
            Slot(
                verb,
                label,
                [name if a == "IN" else a for a in argv],
                files,
                targets if targets is not None else {name: kind},
                output,
                out,
                name,
            )
        )

    def add_coll(verb: str, argv: list[str], extra: dict[str, str] | None = None, **kw) -> None:
        add(
            verb,
            "collection folder",
            argv,
            "coll",
            "",
            files=coll,
            targets={"coll/manifest.json": "manifest", **(extra or {})},
            **kw,
        )

    # index
    ix = ["index", "IN", "-o", "OUT", "--lang", "es", "-q"]
    add("index", "documents TSV", ix, "docs.tsv", "documents_tsv", out="out.npz")
    add("index", "documents JSONL", ix, "docs.jsonl", "documents_jsonl", out="out.npz")
    add(
        "index",
        "stopwords",
        ["index", P["docs.tsv"], "--stopwords", "IN", "-o", "OUT", "--lang", "es", "-q"],
        "stop.es.txt",
        "stopwords",
        out="out.npz",
    )
    # search
    se = ["search", "--index", P["index.npz"], "--queries", P["es.queries.tsv"], "--depth", "30", "-o", "OUT", "-q"]
    add("search", "index npz", _swap(se, "--index"), "index.npz", "index_npz", out="out.run")
    add("search", "queries TSV", _swap(se, "--queries"), "es.queries.tsv", "queries_tsv", out="out.run")
    add("search", "queries JSONL", _swap(se, "--queries"), "es.queries.jsonl", "queries_jsonl", out="out.run")
    add("search", "TREC topics", _swap(se, "--queries"), "es.topics.txt", "topics", out="out.run")
    # ttable
    tr = [
        "ttable",
        "train",
        "--source",
        P["src.en.txt"],
        "--target",
        P["tgt.es.txt"],
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "--iterations",
        "2",
        "-o",
        "OUT",
        "-q",
    ]
    add("ttable train", "parallel source (line)", _swap(tr, "--source"), "src.en.txt", "parallel_line", out="out.npz")
    add("ttable train", "parallel target (line)", _swap(tr, "--target"), "tgt.es.txt", "parallel_line", out="out.npz")
    tr_id = _swap(_swap(tr, "--source", P["src.en.tsv"]), "--target", P["tgt.es.tsv"]) + ["--aligned-by", "id"]
    add("ttable train", "parallel source (id)", _swap(tr_id, "--source"), "src.en.tsv", "parallel_id", out="out.npz")
    freedict = {n: p[n].read_bytes() for n in ("freedict-eng-spa.index", "freedict-eng-spa.dict")}
    fd_targets = {"freedict-eng-spa.index": "freedict_index", "freedict-eng-spa.dict": "freedict_dict"}
    tables = [
        ("table npz", "table.npz", "table_npz"),
        ("Moses table", "table.e2f", "moses"),
        ("pairs dictionary", "en-es.pairs.tsv", "pairs"),
        ("MUSE dictionary", "en-es.dict", "muse"),
        ("Ding dictionary", "en-es.ding.txt", "ding"),
    ]
    for label, name, kind in tables + [("FreeDict dictionary", "freedict-eng-spa.index", "")]:
        extra = {"files": freedict, "targets": fd_targets} if kind == "" else {}
        langs = ["--source-lang", "en", "--target-lang", "es"] if kind == "ding" else []
        add("ttable show", label, ["ttable", "show", "IN", *words, "-q"], name, kind, output="stdout", **extra)
        add(
            "ttable convert",
            label,
            ["ttable", "convert", "IN", "-o", "OUT", *langs, "-q"],
            name,
            kind,
            out="out.e2f",
            **extra,
        )
    pr = ["ttable", "prune", "IN", "-o", "OUT", "--cumulative", "0.9", "-q"]
    for label, name, kind in tables[:2] + tables[3:4]:
        add("ttable prune", label, pr, name, kind, out="out.npz")
    add(
        "ttable prune",
        "target stopwords",
        ["ttable", "prune", P["table.npz"], "--target-stopwords", "IN", "-o", "OUT", "-q"],
        "stop.es.txt",
        "stopwords",
        out="out.npz",
    )
    # dt and psq
    xl = [
        "--index",
        P["index.npz"],
        "--queries",
        P["queries.test.tsv"],
        "--table",
        P["table.npz"],
        "--depth",
        "30",
        "-o",
        "OUT",
        "-q",
    ]
    for verb in ("dt", "psq"):
        add(verb, "index npz", [verb, *_swap(xl, "--index")], "index.npz", "index_npz", out="out.run")
        add(verb, "queries TSV", [verb, *_swap(xl, "--queries")], "queries.test.tsv", "queries_tsv", out="out.run")
        add(verb, "table npz", [verb, *_swap(xl, "--table")], "table.npz", "table_npz", out="out.run")
        add(
            verb,
            "Moses table",
            [verb, *_swap(xl, "--table"), "--source-lang", "en"],
            "table.e2f",
            "moses",
            out="out.run",
        )
    add("dt", "queries JSONL", ["dt", *_swap(xl, "--queries")], "queries.test.jsonl", "queries_jsonl", out="out.run")
    add("dt", "TREC topics", ["dt", *_swap(xl, "--queries")], "topics.test.txt", "topics", out="out.run")
    add("dt", "pairs dictionary", ["dt", *_swap(xl, "--table")], "en-es.pairs.tsv", "pairs", out="out.run")
    add(
        "dt",
        "translated queries",
        ["dt", *[("--translated" if a == "--table" else a) for a in _swap(xl, "--table")]],
        "translated.tsv",
        "queries_tsv",
        out="out.run",
    )
    add("dt", "source stopwords", ["dt", *xl, "--source-stopwords", "IN"], "stop.en.txt", "stopwords", out="out.run")
    add("psq", "second table (MUSE)", ["psq", *xl, "--table2", "IN"], "en-es.dict", "muse", out="out.run")
    add("psq", "target stopwords", ["psq", *xl, "--target-stopwords", "IN"], "stop.es.txt", "stopwords", out="out.run")
    # the readers added since: topic files, weighted tables, MUSE told by content, word alignments
    for label, name, kind in (
        ("CLEF XML topics", "topics.test.clef.xml", "topics_clef"),
        ("NTCIR XML topics", "topics.test.ntcir.xml", "topics_ntcir"),
        ("HC4 JSONL topics", "topics.test.hc4.jsonl", "hc4_jsonl"),
    ):
        add("dt", label, ["dt", *_swap(xl, "--queries"), "--query-fields", "title,desc"], name, kind, out="out.run")
    for label, name, kind in (
        ("Moses phrase table", "en-es.phrase-table", "phrase_table"),
        ("HLTCOE PSQ json", "en-es.json", "psq_json"),
        ("MUSE text (told by content)", "en-es.0-5000.txt", "muse_text"),
    ):
        add("ttable convert", label, ["ttable", "convert", "IN", "-o", "OUT", "-q"], name, kind, out="out.e2f")
    fa = [
        "ttable",
        "from-alignments",
        "--source",
        P["src.en"],
        "--target",
        P["tgt.es"],
        "--alignments",
        P["links.align"],
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "-o",
        "OUT",
        "-q",
    ]
    add("ttable from-alignments", "Pharaoh links", _swap(fa, "--alignments"), "links.align", "links", out="out.npz")
    add("ttable from-alignments", "source sentences", _swap(fa, "--source"), "src.en", "parallel_line", out="out.npz")
    # eval and aggregate
    ev = [
        "eval",
        "--qrels",
        P["qrels.test.txt"],
        P["dt.test.run"],
        P["psq.test.run"],
        "--permutations",
        "200",
        "-o",
        "OUT",
        "--quiet",
    ]
    add("eval", "qrels", _swap(ev, "--qrels"), "qrels.test.txt", "qrels", out="out.txt")
    add("eval", "run", [("IN" if a == P["psq.test.run"] else a) for a in ev], "psq.test.run", "run", out="out.txt")
    ag = ["aggregate", P["dt.test.run"], P["psq.test.run"], "-o", "OUT", "-q"]
    add("aggregate", "run", [("IN" if a == P["psq.test.run"] else a) for a in ag], "psq.test.run", "run", out="out.run")
    tune = ag + [
        "--tune",
        "--dev-qrels",
        P["qrels.dev.txt"],
        "--dev-runs",
        P["dt.dev.run"],
        P["psq.dev.run"],
        "--step",
        "0.25",
    ]
    add("aggregate", "dev qrels", _swap(tune, "--dev-qrels"), "qrels.dev.txt", "qrels", out="out.run")
    add(
        "aggregate",
        "dev run",
        [("IN" if a == P["psq.dev.run"] else a) for a in tune],
        "psq.dev.run",
        "run",
        out="out.run",
    )
    # scs
    st = [
        "scs-train",
        "--queries",
        P["queries.train.tsv"],
        "--documents",
        P["docs.tsv"],
        "--qrels",
        P["qrels.train.txt"],
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "--dim",
        "8",
        "--epochs",
        "1",
        "--negatives",
        "5",
        "-o",
        "OUT",
        "-q",
    ]
    add("scs-train", "queries TSV", _swap(st, "--queries"), "queries.train.tsv", "queries_tsv", out="out.npz")
    add("scs-train", "documents TSV", _swap(st, "--documents"), "docs.tsv", "documents_tsv", out="out.npz")
    add("scs-train", "qrels", _swap(st, "--qrels"), "qrels.train.txt", "qrels", out="out.npz")
    add("scs-train", "query word vectors", st + ["--query-vectors", "IN"], "en.vec", "vectors", out="out.npz")
    add("scs-train", "document word vectors", st + ["--doc-vectors", "IN"], "es.vec", "vectors", out="out.npz")
    add_coll(
        "scs-train",
        ["scs-train", "--collection", "IN", "--dim", "8", "--epochs", "1", "--negatives", "5", "-o", "OUT", "-q"],
        out="out.npz",
    )
    ss = [
        "scs-score",
        P["scs.npz"],
        "--queries",
        P["queries.test.tsv"],
        "--documents",
        P["docs.tsv"],
        "--depth",
        "30",
        "-o",
        "OUT",
        "-q",
    ]
    add(
        "scs-score",
        "SCS model npz",
        [("IN" if a == P["scs.npz"] else a) for a in ss],
        "scs.npz",
        "scs_npz",
        out="out.run",
    )
    add("scs-score", "queries TSV", _swap(ss, "--queries"), "queries.test.tsv", "queries_tsv", out="out.run")
    add("scs-score", "documents TSV", _swap(ss, "--documents"), "docs.tsv", "documents_tsv", out="out.run")
    add("scs-score", "rerank run", ss + ["--rerank", "IN"], "psq.test.run", "run", out="out.run")
    # boost
    bt = [
        "boost-train",
        "--queries",
        P["queries.train.tsv"],
        "--qrels",
        P["qrels.train.txt"],
        "--documents",
        P["docs.tsv"],
        "--dev-queries",
        P["queries.dev.tsv"],
        "--dev-qrels",
        P["qrels.dev.txt"],
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "--rounds",
        "8",
        "--eval-every",
        "4",
        "--bits",
        "16",
        "-o",
        "OUT",
        "-q",
    ]
    for label, option, name, kind in (
        ("queries TSV", "--queries", "queries.train.tsv", "queries_tsv"),
        ("qrels", "--qrels", "qrels.train.txt", "qrels"),
        ("documents TSV", "--documents", "docs.tsv", "documents_tsv"),
        ("dev queries", "--dev-queries", "queries.dev.tsv", "queries_tsv"),
        ("dev qrels", "--dev-qrels", "qrels.dev.txt", "qrels"),
    ):
        add("boost-train", label, _swap(bt, option), name, kind, out="out.npz")
    add("boost-train", "candidates run", bt + ["--candidates", "IN"], "psq.train.run", "run", out="out.npz")
    add("boost-train", "base run", bt + ["--base-run", "IN"], "psq.traindev.run", "run", out="out.npz")
    add("boost-train", "extra tuples", bt + ["--extra-tuples", "IN"], "extra.tsv", "extra_tuples", out="out.npz")
    add_coll(
        "boost-train",
        ["boost-train", "--collection", "IN", "--rounds", "8", "--eval-every", "4", "--bits", "16", "-o", "OUT", "-q"],
        {"coll/documents.tsv": "documents_tsv", "coll/qrels.train.txt": "qrels"},
        out="out.npz",
    )
    br = [
        "boost-rank",
        P["boost.npz"],
        "--queries",
        P["queries.test.tsv"],
        "--documents",
        P["docs.tsv"],
        "--depth",
        "30",
        "-o",
        "OUT",
        "-q",
    ]
    add(
        "boost-rank",
        "boost model npz",
        [("IN" if a == P["boost.npz"] else a) for a in br],
        "boost.npz",
        "boost_npz",
        out="out.run",
    )
    add("boost-rank", "queries TSV", _swap(br, "--queries"), "queries.test.tsv", "queries_tsv", out="out.run")
    add("boost-rank", "documents TSV", _swap(br, "--documents"), "docs.tsv", "documents_tsv", out="out.run")
    add("boost-rank", "candidates run", br + ["--candidates", "IN"], "psq.test.run", "run", out="out.run")
    add("boost-show", "boost model npz", ["boost-show", "IN"], "boost.npz", "boost_npz", output="stdout")
    # experiments
    add("run", "experiment TOML", ["run", "IN", "-o", "OUT", "-q"], "exp.toml", "toml", output="dir")
    add_coll(
        "run",
        ["run", P["exp.toml"], "--collection", "IN", "-o", "OUT", "-q"],
        {"coll/parallel.tsv": "parallel_tsv"},
        output="dir",
    )
    manifest = p["coll"] / "manifest.json"
    broken = [
        (f"broken manifest: {cls}", "error", {"coll/manifest.json": data}, None)
        for cls, _, data in text_mutations("manifest", manifest.read_bytes())
        if cls in MANIFEST_BROKEN
    ]
    slots[-1].extra += broken
    # the new surfaces: [collection] in an experiment, `clirkit collection`, `datasets export`, psq --translate
    # documents (their readers' classes are run on the first slots above; here the mistakes of their own)
    plain = {
        n: p[n].read_bytes() for n in ("plain.toml", "docs.tsv", "plain.queries.tsv", "plain.qrels.txt", "table.npz")
    }
    add(
        "run",
        "experiment TOML with [collection]",
        ["run", "IN", "-o", "OUT", "-q"],
        "plain.toml",
        "",
        output="dir",
        files=plain,
        targets={},
    )
    slots[-1].extra += [
        (cls, "error", {"plain.toml": PLAIN_TOML.replace(old, new, 1).encode("utf-8")}, None)
        for cls, old, new in PLAIN_MISTAKES
    ]
    slots[-1].extra += [
        ("[collection] documents a folder", "error", {"docs.tsv": DIRECTORY}, None),
        ("[collection] qrels missing", "error", {"plain.qrels.txt": MISSING}, None),
    ]
    co = [
        "collection",
        "--documents",
        "IN",
        "--queries",
        "plain.queries.tsv",
        "--qrels",
        "plain.qrels.txt",
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "--split",
        "dev=0.5,test=0.5",
        "-o",
        "OUT",
        "-q",
    ]
    add(
        "collection",
        "documents TSV",
        co,
        "docs.tsv",
        "documents_tsv",
        output="dir",
        files={n: plain[n] for n in ("docs.tsv", "plain.queries.tsv", "plain.qrels.txt")},
    )
    slots[-1].extra += [
        ("--split not summing to 1", "error", {}, ["--split", "dev=0.5,test=0.7"]),
        ("--split of an unknown name", "error", {}, ["--split", "valid=0.5,test=0.5"]),
        ("--split not SPLIT=FRACTION", "error", {}, ["--split", "dev:0.5"]),
        ("--split NaN fraction", "error", {}, ["--split", "dev=nan,test=0.5"]),
        ("--queries by an unknown split", "error", {}, ["--queries", "valid=plain.queries.tsv"]),
        ("--query-fields unknown", "error", {}, ["--query-fields", "nofield"]),
        ("--source-lang unknown", "error", {}, ["--source-lang", "xx"]),
        (
            "-o a collection folder with a broken manifest",
            "either",
            {"out/manifest.json": b"{", "out/documents.tsv": b"x\ty\n"},
            None,
        ),
        ("-o a non-empty folder that is not a collection", "error", {"out/notes.txt": b"keep me\n"}, None),
        (
            "a collection folder as --documents",
            "error",
            {f"coll/{f.name}": f.read_bytes() for f in sorted(p["coll"].iterdir())},
            ["--documents", "coll"],
        ),
        (
            "a collection folder with a broken manifest as --documents",
            "error",
            {"coll/manifest.json": b"{", "coll/documents.tsv": b"x\ty\n"},
            ["--documents", "coll"],
        ),
    ]
    add_coll("datasets export", ["datasets", "export", "IN", "-o", "OUT", "-q"], output="dir")
    slots[-1].extra += broken + [("-o a non-empty folder", "error", {"out/keep.txt": b"keep me\n"}, None)]
    add(
        "psq",
        "translate documents: table npz",
        ["psq", *_swap(xl, "--table"), "--translate", "documents"],
        "table.rev.npz",
        "table_npz",
        out="out.run",
    )
    slots[-1].extra += [
        (
            "table in the wrong direction (queries' to documents' language)",
            "error",
            {"table.rev.npz": p["table.npz"].read_bytes()},
            None,
        ),
        (
            "Moses table in the wrong direction",
            "error",
            {"table.rev.npz": MISSING},
            ["--table", "table.e2f", "--source-lang", "en"],
        ),
        ("--decompound with a bad value", "error", {}, ["--decompound", "yes"]),
    ]
    slots[-1].files["table.e2f"] = p["table.e2f"].read_bytes()
    add_coll("demo", ["demo", "--collection", "IN", "--baselines-only", "-o", "OUT", "-q"], output="dir")
    return slots


def _swap(argv: list[str], option: str, value: str = "IN") -> list[str]:
    """``argv`` with the value after ``option`` replaced by ``value``."""
    i = argv.index(option)
    return argv[: i + 1] + [value] + argv[i + 2 :]


# ================================================================================================
# cases


@dataclasses.dataclass
class Case:
    """One run of a verb: ``argv`` (``OUT`` not yet replaced), the files put in its folder (bytes, MISSING or
    DIRECTORY), what is due (``expect``: "error", "equal", "either", "node" (exit 0, the node kept) or
    "interrupt"), the strings one of which the error line must name."""

    slot: Slot
    group: str  # "input", "option", "output" or "signal"
    cls: str
    expect: str
    argv: list[str]
    files: dict[str, bytes | None]
    names: list[str]
    out: str = ""  # the output path given to -o (default: the slot's out_name)
    prepare: Callable[[Path], None] | None = None
    verify: Callable[[Path], str | None] | None = None
    fifo: bool = False
    signal: tuple[int, float] | None = None
    target: str = ""  # the file changed, when the slot reads several (a collection folder, FreeDict)

    @property
    def what(self) -> str:
        where = self.slot.label if self.group == "input" else self.group
        return f"{self.slot.verb} / {where}{f' ({self.target})' if self.target else ''} / {self.cls}"


# Which classes a slot gets. With --full: every class on every slot. By default (to fit in 15 minutes with
# --jobs 2; importing scikit-learn costs most verbs 2-3 s of CPU per case): every class of a kind on the first slot
# reading it (the check is in its reader), on every slot the classes whose handling depends on the verb (a damaged
# gzip stream or zip, CR-only line ends, neutral npz changes, the tampered arrays that made silently wrong runs), and
# a missing file or a folder once per verb.
EVERY_SLOT = {
    "corrupt gz (deflate damage)",
    "CR-only line ends (neutral)",
    "CRLF line ends and a BOM (neutral)",
    "damaged zip bytes",
    "compressed members (neutral)",
    "header valid JSON but a list",
    "header deep nesting",
    "header ngram -5",
    'header eps "x"',
    "array NaN doc_lengths",
    "array reversed terms",
    "array unsorted source vocabulary",
    "array NaN weight",
    "array NaN history alpha",
}
PER_VERB = {"missing file", "directory"}
FULL_ONLY_OUTPUTS = {
    "-o in a missing folder",
    "-o a dangling symlink into a missing folder",
    "-o a full device (like /dev/full)",
}
OPTIONS_PER_VERB = 3  # bad option values per verb by default (the first ones listed)


def input_cases(slot: Slot, covered: set[str] | None = None) -> list[Case]:
    """The malformed classes of every input file a slot's mutations target: all of them if ``covered`` is None
    or for a kind not in ``covered`` (which is then updated), the :data:`EVERY_SLOT` and :data:`PER_VERB` ones
    for the others."""
    cases = []
    full = covered is None
    covered = set() if covered is None else covered
    for target, kind in slot.targets.items():
        if kind.endswith("_npz"):
            mutations = npz_mutations(kind, slot.files[target])
        else:
            mutations = text_mutations(kind, slot.files[target])
        first = kind not in covered
        covered.add(kind)
        for cls, expect, data in mutations:
            if target.startswith("coll/") and cls == "directory" and target != "coll/manifest.json":
                continue
            if not (full or first or cls in PER_VERB or cls in EVERY_SLOT):
                continue
            files = {**slot.files, target: data}
            cases.append(
                Case(
                    slot,
                    "input",
                    cls,
                    expect,
                    list(slot.argv),
                    files,
                    [Path(target).name, slot.name],
                    target=Path(target).name if len(slot.targets) > 1 else "",
                )
            )
    for cls, expect, changed, more in slot.extra:
        names = [Path(k).name for k in changed] + [slot.name] + list(more or [])  # the file, option or value
        names += [slot.out_name] if any(k.startswith(f"{slot.out_name}/") for k in changed) else []
        cases.append(
            Case(slot, "input", cls, expect, list(slot.argv) + list(more or []), {**slot.files, **changed}, names)
        )
    return cases


# verb -> bad option values (each list is appended to the verb's first slot's arguments), the option named
BAD_OPTIONS = {
    "index": [["--stopwords-top", "-1"], ["--jobs", "0"], ["--lang", "xx"]],
    "search": [
        ["--k1", "nan"],
        ["--k1", "-1"],
        ["--b", "2"],
        ["--k3", "-1"],
        ["--depth", "0"],
        ["--tag", "a b"],
        ["--k1", "1e999"],
    ],
    "ttable train": [["--iterations", "-1"], ["--iterations", "nan"], ["--jobs", "0"], ["--source-lang", "xx"]],
    "ttable show": [["-n", "-1"], ["-n", "0"], ["-n", "nan"]],
    "ttable prune": [
        ["--min-prob", "nan"],
        ["--cumulative", "nan"],
        ["--cumulative", "0"],
        ["--max-options", "0"],
        ["--min-prob", "-0.1"],
    ],
    "ttable convert": [["--source-lang", "xx"], ["--weights", "other"]],
    "ttable from-alignments": [["--source-lang", "xx"], ["--stemmer", "porter"], ["--stopwords", "nowhere.txt"]],
    "dt": [
        ["--decompound", "yes"],
        ["--k1", "nan"],
        ["--b", "-0.5"],
        ["--depth", "-1"],
        ["--source-stopwords-top", "-1"],
        ["--k3", "inf"],
    ],
    "psq": [
        ["--decompound", "yes"],
        ["--cumulative", "nan"],
        ["--min-prob", "1"],
        ["--lambda", "nan"],
        ["--max-options", "0"],
        ["--k1", "nan"],
        ["--target-stopwords-top", "-1"],
        ["--cumulative", "-0.5"],
    ],
    "eval": [
        ["--alpha", "nan"],
        ["--permutations", "0"],
        ["--seed", "-1"],
        ["--depth", "-1"],
        ["--rel-threshold", "0"],
        ["-m", "XYZ"],
        ["--main-grade", "nan"],
    ],
    "scs-train": [
        ["--init-scale", "nan"],
        ["--init-scale", "-1"],
        ["--thresholds", "nan", "0.7"],
        ["--eps", "nan"],
        ["--dim", "0"],
        ["--lr", "inf"],
        ["--seed", "-1"],
        ["--jobs", "0"],
        ["--margin", "nan"],
        ["--epochs", "-1"],
    ],
    "scs-score": [["--depth", "0"], ["--jobs", "0"], ["--depth", "nan"]],
    "aggregate": [
        ["--kappa", "nan"],
        ["--weights", "-1", "2"],
        ["--weights", "nan", "1"],
        ["--depth", "0"],
        ["--transform", "sideways"],
    ],
    "boost-train": [
        ["--eps", "nan"],
        ["--hash-seed", "-1"],
        ["--max-df", "0"],
        ["--jobs", "0"],
        ["--seed", "-1"],
        ["--bits", "33"],
        ["--ngram", "0"],
        ["--rounds", "0"],
        ["--bag-fraction", "nan"],
        ["--beta-grid", "nan"],
        ["--eps", "0"],
    ],
    "boost-rank": [["--depth", "0"], ["--batch", "0"], ["--depth", "nan"]],
    "boost-show": [["-n", "-1"], ["--bag", "0"], ["--bag", "2"]],
    "run": [["--jobs", "0"], ["--variant", "nope"]],
    "demo": [["--jobs", "0"], ["--variant", "nope"]],
}


def option_cases(slot: Slot) -> list[Case]:
    """Bad option values of the slot's verb, on its clean inputs."""
    cases = []
    for given in BAD_OPTIONS.get(slot.verb, []):
        named = [given[0]] + [v for v in given[1:] if v.isalpha() and len(v) > 1]  # the option, or a word given
        cases.append(Case(slot, "option", " ".join(given), "error", slot.argv + given, dict(slot.files), named))
    return cases


def _node_kind(path: Path) -> str:
    st = os.lstat(path)
    for kind, test in (
        ("symlink", stat.S_ISLNK),
        ("fifo", stat.S_ISFIFO),
        ("char device", stat.S_ISCHR),
        ("folder", stat.S_ISDIR),
        ("file", stat.S_ISREG),
    ):
        if test(st.st_mode):
            return kind
    return "other"


def _keeps(name: str, kind: str) -> Callable[[Path], str | None]:
    """A check that ``name`` in the case folder is still a ``kind`` (not replaced by a regular file)."""

    def verify(folder: Path) -> str | None:
        path = folder / name
        if not os.path.lexists(path):
            return f"{name} (a {kind}) was removed"
        found = _node_kind(path)
        return None if found == kind else f"{name} (a {kind}) was replaced by a {found}"

    return verify


def _mknod(name: str, minor: int) -> Callable[[Path], None]:
    def prepare(folder: Path) -> None:
        os.mknod(folder / name, stat.S_IFCHR | 0o666, os.makedev(1, minor))  # 1,3: null; 1,7: full

    return prepare


def output_cases(slot: Slot, can_mknod: bool) -> list[Case]:
    """Output paths a verb must refuse (or write without replacing the node: FIFO, symlink, device)."""
    name = slot.out_name
    cases = []

    def add(cls: str, expect: str, out: str, prepare=None, verify=None, fifo=False) -> None:
        cases.append(
            Case(
                slot,
                "output",
                cls,
                expect,
                list(slot.argv),
                dict(slot.files),
                [out or "''", "output"],
                out=out,
                prepare=prepare,
                verify=verify,
                fifo=fifo,
            )
        )

    if slot.output == "dir":
        add("-o an existing regular file", "error", name, lambda f: (f / name).write_bytes(b"keep me\n"))
    else:
        add("-o an existing folder", "error", name, lambda f: (f / name).mkdir())
    add("-o FILE/x (the parent is a file)", "error", f"afile/{name}", lambda f: (f / "afile").write_bytes(b"x\n"))
    add("-o in a missing folder", "either" if slot.output == "dir" else "error", f"nofolder/{name}")
    if os.geteuid() == 0:
        if Path("/sys").is_dir():
            add("-o an unwritable place", "error", f"/sys/clirkit-matrix-{name}")
    else:

        def read_only(folder: Path) -> None:
            (folder / "ro").mkdir()
            os.chmod(folder / "ro", 0o500)

        add("-o an unwritable place", "error", f"ro/{name}", read_only)
    add("-o an empty name", "error", "")
    if slot.output == "file":
        add(
            "-o a FIFO (a reader attached)",
            "equal",
            name,
            lambda f: os.mkfifo(f / name),
            _keeps(name, "fifo"),
            fifo=True,
        )

        def link(folder: Path) -> None:
            (folder / "real").mkdir()
            os.symlink(f"real/{name}", folder / name)

        add("-o a symlink (written through)", "equal", name, link, _keeps(name, "symlink"))
        add(
            "-o a dangling symlink into a missing folder",
            "error",
            name,
            lambda f: os.symlink(f"gone/{name}", f / name),
            _keeps(name, "symlink"),
        )
        if can_mknod:
            add("-o a device node (like /dev/null)", "node", name, _mknod(name, 3), _keeps(name, "char device"))
            add("-o a full device (like /dev/full)", "error", name, _mknod(name, 7), _keeps(name, "char device"))
    return cases


def signal_cases(slot: Slot) -> list[Case]:
    """Ctrl-C (SIGINT to the process group) and SIGTERM while the verb works (a negative delay is that fraction of
    the clean run's time)."""
    return [
        Case(slot, "signal", cls, "interrupt", list(slot.argv), dict(slot.files), ["interrupted"], signal=sig)
        for cls, sig in (("SIGINT halfway", (signal.SIGINT, -0.5)), ("SIGTERM halfway", (signal.SIGTERM, -0.5)))
    ]


FULL_ONLY_SIGNALS = {"SIGTERM halfway"}  # the same handler as SIGINT's


# ================================================================================================
# running a case and judging its outcome

OK = ("ok-error", "accepted-equal", "ok-interrupted")
FAILURES = ("traceback", "silent wrong", "hang", "uncaught", "bad message", "partial output", "refused valid")
ERROR_LINE = ("clirkit: error: ", "clirkit ")  # ours, and argparse's "clirkit VERB: error: ..."


def _tree(folder: Path) -> dict[str, tuple]:
    """``{relative path: (kind, size, mtime)}`` of everything under ``folder`` (size and mtime of files only)."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            kind = _node_kind(path)
            st = os.lstat(path)
            out[str(path.relative_to(folder))] = (kind, st.st_size, st.st_mtime_ns) if kind == "file" else (kind,)
    return out


def _value(data: bytes, folder: Path, name: str = "") -> object:
    """What is compared with the clean output: the bytes (the case folder's path replaced), an npz's header and
    arrays, a report's lines without the wall times."""
    if data[:2] == b"PK":
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                return {
                    k: (
                        npz[k].dtype.str.lstrip("<>|="),
                        npz[k].shape,
                        npz[k]
                        .astype(npz[k].dtype.newbyteorder("<"))
                        .tobytes()
                        .replace(str(folder).encode(), b"<case>"),
                    )
                    for k in sorted(npz.files)
                }
        except Exception:  # noqa: BLE001 - not an npz after all: compared as bytes
            pass
    data = data.replace(str(folder).encode(), b"<case>").replace(str(folder.resolve()).encode(), b"<case>")
    if name == "results.txt":
        data = b"\n".join(line for line in data.split(b"\n") if not line.startswith(b"time:"))
    if name == "sources.json":  # a collection folder's record of its files: their digests differ by design
        with _suppressed_value():
            record = json.loads(data)
            record.pop("sha256", None)
            data = json.dumps(record, sort_keys=True).encode("utf-8")
    return data


class _suppressed_value:
    """Leave a value as it is when it is not the JSON expected (then it is compared as bytes)."""

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        return kind is not None and issubclass(kind, (ValueError, AttributeError))


def _observe(case: Case, folder: Path, stdout: bytes, fifo: bytes | None) -> object:
    """The output of a run that exited 0 (None if there is none)."""
    if case.slot.output == "stdout":
        return _value(stdout, folder)
    if fifo is not None:
        return _value(fifo, folder)
    path = folder / (case.out or case.slot.out_name)
    if case.slot.output == "dir":
        if not path.is_dir():
            return None
        return {
            str(f.relative_to(path)): _value(f.read_bytes(), folder, f.name)
            for f in sorted(path.rglob("*"))
            if f.is_file() and not (f.suffix == ".json" and f.with_suffix("").is_file())
        }  # not the records
    return _value(path.read_bytes(), folder) if path.is_file() else None


def _drain(path: Path, done: threading.Event, sink: list[bytes]) -> None:
    """Read a FIFO (opened without blocking) until the writer has finished."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                chunk = None
            if chunk:
                sink.append(chunk)
            elif done.is_set():
                break
            else:
                time.sleep(0.005)
    finally:
        os.close(fd)


@dataclasses.dataclass
class Result:
    case: Case
    outcome: str
    detail: str
    seconds: float
    command: str


def run_case(
    case: Case, folder: Path, timeout: float, env: dict[str, str], clean: object = None, clean_seconds: float = 1.0
) -> Result:
    """Run ``case`` in ``folder`` (made here, emptied by the caller) and judge it against ``clean`` (the
    clean run's output, made in ``clean_seconds``)."""
    _place(case, folder)
    out = case.out if case.group == "output" else case.slot.out_name
    argv = [out if a == "OUT" else a for a in case.argv]
    before = _tree(folder)
    command = "clirkit " + " ".join(_quoted(a) for a in argv)
    done, sink = threading.Event(), []
    reader = None
    if case.fifo:
        reader = threading.Thread(target=_drain, args=(folder / out, done, sink), daemon=True)
        reader.start()
    start = time.monotonic()
    for attempt in range(4 if case.signal else 1):  # a run that ends before its signal is tried again, sooner
        proc = subprocess.Popen(
            [sys.executable, "-m", "clirkit", *argv],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        if not case.signal:
            break
        sig, delay = case.signal
        try:
            proc.wait((delay if delay > 0 else -delay * clean_seconds) / 2**attempt)
        except subprocess.TimeoutExpired:
            with _suppressed():
                (os.killpg if sig == signal.SIGINT else os.kill)(proc.pid, sig)
            break
        if attempt < 3:  # ended first (the clean run was timed on a busier machine): undo what it wrote
            proc.communicate()
            for name in sorted(set(_tree(folder)) - set(before), key=len, reverse=True):
                path = folder / name
                with _suppressed():
                    shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        with _suppressed():
            os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        rc = None
    seconds = time.monotonic() - start
    done.set()
    if reader:
        reader.join(5)
    outcome, detail = judge(case, rc, stdout, stderr, folder, before, clean, b"".join(sink) if case.fifo else None)
    if rc is None:
        detail = f"no exit in {timeout:g} s; {detail}"
    return Result(case, outcome, detail, seconds, command)


def _place(case: Case, folder: Path) -> None:
    """Make the case folder: its files, and the output node of an output case."""
    folder.mkdir(parents=True)
    for rel, data in case.files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if data is DIRECTORY:
            path.mkdir()
        elif data is not MISSING:
            path.write_bytes(data)
    if case.prepare:
        case.prepare(folder)


class _suppressed:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        return kind is not None and issubclass(kind, (ProcessLookupError, PermissionError))


def _quoted(arg: str) -> str:
    if len(arg) > 200:
        return f"<{len(arg)} characters>"
    return arg if arg and all(c.isalnum() or c in "-_./=:@+,%" for c in arg) else repr(arg)


def judge(
    case: Case,
    rc: int | None,
    stdout: bytes,
    stderr: bytes,
    folder: Path,
    before: dict,
    clean: object,
    fifo: bytes | None,
) -> tuple[str, str]:
    """The outcome of a run (one of :data:`OK` or :data:`FAILURES`) and what shows it."""
    err = stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    shown = (err if len(err) < 3000 else err[:1000] + "\n[...]\n" + err[-1500:]).rstrip()
    if rc is None:
        return "hang", shown
    if "Traceback (most recent call last)" in err:
        return "traceback", shown
    after = _tree(folder)
    left = sorted(set(after.items()) - set(before.items()))
    if case.slot.output == "dir":  # an experiment keeps the steps it finished (a rerun resumes): only temporaries
        left = [(k, v) for k, v in left if k.endswith(".tmp")]
    changed = case.verify(folder) if case.verify else None
    # -SIG: the signal came as the interpreter exited; -SIGINT also after "interrupted" (CPython re-raises
    # SIGINT at exit once a KeyboardInterrupt went through C code that flags it as unhandled)
    if case.signal and rc in (130, -case.signal[0], -signal.SIGINT):
        if lines not in ([], ["clirkit: interrupted"]):
            return "bad message", shown
        output = _observe(case, folder, stdout, fifo)
        new = [k for k, _ in left if k != case.slot.out_name]
        if case.slot.output == "dir":
            output = None
        if new or changed or (output is not None and output != clean):
            return "partial output", f"exit {rc}, left: {new} {changed or ''} output: {_difference(output, clean)}"
        return "ok-interrupted", f"exit {rc}: " + (lines[0] if lines else "(killed while exiting)")
    if rc == 2:
        line = lines[0] if lines else ""
        if len(lines) != 1 or not line.startswith(ERROR_LINE) or ": error: " not in line:
            return "bad message", f"{len(lines)} stderr lines: {shown}"
        if len(line) > 1000:
            return "bad message", f"an error line of {len(line):,} characters: {line[:300]}..."
        if "np.str_(" in line or not any(n and n in line for n in case.names):
            return "bad message", f"does not name {' or '.join(repr(n) for n in case.names)}: {line}"
        if left or changed or (case.slot.output == "stdout" and stdout.strip()):
            return "partial output", f"{line}; left: {[k for k, _ in left]} {changed or ''} {stdout[:200]!r}"
        if case.expect in ("equal", "node"):
            return "refused valid", line
        return "ok-error", line
    if rc != 0:
        return "uncaught", f"exit status {rc}: {shown}"
    if changed:
        return "silent wrong", f"exit 0, {changed}"
    if case.expect == "node":
        return "accepted-equal", "exit 0, the node kept"
    observed = _observe(case, folder, stdout, fifo)
    if observed is not None and observed == clean:
        return "accepted-equal", "exit 0, the clean input's result"
    what = "no output" if observed is None else "a result that differs from the clean input's"
    return "silent wrong", f"exit 0 and {what}: {_difference(observed, clean)}"


def _difference(observed: object, clean: object) -> str:
    """A short description of how an output differs from the clean one."""
    if isinstance(observed, bytes) and isinstance(clean, bytes):
        a, b = observed.split(b"\n"), clean.split(b"\n")
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        got = a[first][:150] if first < len(a) else b"<end>"
        want = b[first][:150] if first < len(b) else b"<end>"
        return f"{len(a)} lines instead of {len(b)}; line {first + 1}: {got!r}, clean: {want!r}"
    if isinstance(observed, dict) and isinstance(clean, dict):
        differ = sorted(k for k in set(observed) | set(clean) if observed.get(k) != clean.get(k))
        return f"differs in {differ[:8]}"
    return f"{type(observed).__name__} vs {type(clean).__name__}"


# ================================================================================================
# the matrix


def build_cases(slots: list[Slot], can_mknod: bool, full: bool = False) -> list[Case]:
    """Every slot's input classes, and for the first slot of each verb its option, output and signal cases: all
    of them with ``full``, else the selection described at :data:`EVERY_SLOT`."""
    cases: list[Case] = []
    seen: set[str] = set()
    covered: set[str] | None = None if full else set()
    for slot in slots:
        first = slot.verb not in seen
        cases += [c for c in input_cases(slot, covered) if full or first or c.cls not in PER_VERB]
        if first:
            seen.add(slot.verb)
            cases += option_cases(slot)[: None if full else OPTIONS_PER_VERB]
            if slot.output != "stdout":
                cases += [c for c in output_cases(slot, can_mknod) if full or c.cls not in FULL_ONLY_OUTPUTS]
                cases += [c for c in signal_cases(slot) if full or c.cls not in FULL_ONLY_SIGNALS]
    return cases


def _can_mknod(folder: Path) -> bool:
    try:
        _mknod("probe", 3)(folder)
    except OSError:
        return False
    os.unlink(folder / "probe")
    return True


def _env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    repo = str(Path(__file__).resolve().parents[2])
    env.update(
        {
            "CLIRKIT_CACHE": str(work / "cache"),
            "MPLBACKEND": "Agg",
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [repo, env.get("PYTHONPATH")])),
        }
    )
    return env


def run_matrix(
    work: Path,
    *,
    jobs: int,
    timeout: float,
    verbs: list[str] | None,
    match: list[str] | None,
    keep: bool,
    full: bool = False,
    only: set[str] | None = None,
) -> tuple[list[Result], dict]:
    """Make the inputs in ``work``, run every clean slot, then every case (``only``: the cases of these
    :attr:`Case.what`, with ``full``'s selection); returns the results and facts."""
    t0 = time.monotonic()
    env = _env(work)
    paths = make_inputs(work / "inputs", env)
    slots = [
        s
        for s in make_slots(paths)
        if (not verbs or s.verb in verbs or s.verb.split()[0] in verbs)
        and (only is None or any(w.startswith(f"{s.verb} / ") for w in only))
    ]
    facts = {"inputs_seconds": round(time.monotonic() - t0, 1)}
    print(f"matrix: inputs made in {facts['inputs_seconds']} s; {len(slots)} verb/input slots", file=sys.stderr)
    counter = iter(range(10**9))

    def folder() -> Path:
        return work / "cases" / f"{next(counter):05d}"

    clean: dict[int, tuple[object, float]] = {}

    def run_clean(slot: Slot) -> None:
        case = Case(slot, "input", "clean", "equal", list(slot.argv), dict(slot.files), [])
        where = folder()
        _place(case, where)
        start = time.monotonic()
        argv = [slot.out_name if a == "OUT" else a for a in slot.argv]
        done = subprocess.run(
            [sys.executable, "-m", "clirkit", *argv],
            cwd=where,
            env=env,
            capture_output=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"the clean run of {slot.verb} / {slot.label} failed (exit {done.returncode}): "
                f"{' '.join(slot.argv)}\n{done.stderr.decode(errors='replace')}"
            )
        clean[id(slot)] = (_observe(case, where, done.stdout, None), time.monotonic() - start)
        _remove(where)

    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(run_clean, slots))
    facts["clean_seconds"] = round(time.monotonic() - t0 - facts["inputs_seconds"], 1)
    cases = build_cases(slots, _can_mknod(work), full)
    if match:
        cases = [c for c in cases if any(m.lower() in c.what.lower() for m in match)]
    if only is not None:
        cases = [c for c in cases if c.what in only]
    print(f"matrix: clean runs done in {facts['clean_seconds']} s; {len(cases)} cases", file=sys.stderr)
    results: list[Result] = []
    lock = threading.Lock()
    last = [time.monotonic()]

    def one(case: Case) -> Result:
        value, seconds = clean[id(case.slot)]
        where = folder()
        result = run_case(case, where, max(timeout, 4 * seconds), env, value, seconds)
        if not (keep and result.outcome in FAILURES):
            _remove(where)
        else:
            result.detail += f"\n(case folder kept: {where})"
            (where / "case.txt").write_text(
                f"{result.outcome}: {case.what}\n{result.command}\n{result.detail}\n", encoding="utf-8"
            )
        with lock:
            results.append(result)
            if result.outcome in FAILURES:
                print(
                    f"matrix: {result.outcome}: {case.what}: {result.detail.splitlines()[-1][:200]}",
                    file=sys.stderr,
                    flush=True,
                )
            if time.monotonic() - last[0] > 30:
                last[0] = time.monotonic()
                bad = sum(r.outcome in FAILURES for r in results)
                print(f"matrix: {len(results)}/{len(cases)} cases, {bad} failures", file=sys.stderr, flush=True)
        return result

    with ThreadPoolExecutor(jobs) as pool:
        ordered = list(pool.map(one, cases))
    facts["cases_seconds"] = round(time.monotonic() - t0 - facts["inputs_seconds"] - facts["clean_seconds"], 1)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    facts["cpu_seconds"] = round(used.ru_utime + used.ru_stime, 1)  # every clirkit process (and the input makers)
    facts["can_mknod"] = _can_mknod(work)
    return ordered, facts


def _remove(path: Path) -> None:
    for root, dirs, _ in os.walk(path):
        for d in dirs:  # read-only folders made by a case
            with _suppressed():
                os.chmod(Path(root) / d, 0o700)
    shutil.rmtree(path, ignore_errors=True)


def tables(results: list[Result]) -> str:
    """Counts per malformed class and per verb (Markdown), and the total line."""
    columns = OK + FAILURES

    def table(title: str, key: Callable[[Result], str]) -> list[str]:
        rows: dict[str, dict[str, int]] = {}
        for r in results:
            rows.setdefault(key(r), {c: 0 for c in columns})[r.outcome] += 1
        out = [f"| {title} | cases | " + " | ".join(columns) + " |", "|---|---:|" + "---:|" * len(columns)]
        for name, counts in rows.items():
            out.append(f"| {name} | {sum(counts.values())} | " + " | ".join(str(counts[c]) for c in columns) + " |")
        return out

    def cls(r: Result) -> str:
        return {"option": "bad option value", "output": f"output: {r.case.cls}", "signal": f"signal: {r.case.cls}"}.get(
            r.case.group, r.case.cls
        )

    lines = table("malformed class", cls) + [""] + table("verb", lambda r: r.case.slot.verb)
    return "\n".join(lines + ["", total_line(results)])


def total_line(results: list[Result]) -> str:
    n = {c: sum(r.outcome == c for r in results) for c in OK + FAILURES}
    return (
        f"{len(results)} cases: ok-error {n['ok-error']}, accepted-equal {n['accepted-equal']}, "
        f"ok-interrupted {n['ok-interrupted']}, tracebacks {n['traceback']}, silent wrong {n['silent wrong']}, "
        f"hangs {n['hang']}, uncaught {n['uncaught']}, bad messages {n['bad message']}, "
        f"partial outputs {n['partial output']}, refused valid inputs {n['refused valid']}"
    )


# what a message says to do: an instruction (give, use, rebuild, ...), an option or command to use, a choice
_REMEDY = re.compile(
    r"\b(give|use|pass|choose|check|rebuild|make|train|write|get the file|decompress|remove|"
    r"rename|create|convert|add|set|quote|escape|save|run|index them|one of|choose one of|"
    r"keep|fix|correct|put|close|nest|load it|did you mean|"
    r"expected|must be|should be|needs?|is required|allowed|supported)\b|`clirkit |--[a-z]",
    re.IGNORECASE,
)


def says_what_to_do(line: str) -> bool:
    """Whether an error line says what to do (or what is expected instead, which tells the fix): a first cut that
    the sample's reader then checks by eye."""
    problem = re.sub(r"^\S+: ", "", line.split(": error: ", 1)[-1], count=1)  # not the file's name ("run.txt:4: ")
    return bool(_REMEDY.search(problem))


def sample_text(results: list[Result], n: int, seed: int = 0) -> str:
    """``n`` clean error messages drawn at random (``seed``) from the results, each marked by
    :func:`says_what_to_do`, and how many of them say what to do."""
    errors = sorted((r for r in results if r.outcome == "ok-error"), key=lambda r: r.case.what)
    chosen = random.Random(seed).sample(errors, min(n, len(errors)))
    out = []
    for k, r in enumerate(chosen, 1):
        line = r.detail.splitlines()[0]
        out.append(
            f"{k}. [{'says what to do' if says_what_to_do(line) else 'NO FIX SAID'}] {r.case.what}\n   `{line[:400]}`"
        )
    said = sum(says_what_to_do(r.detail.splitlines()[0]) for r in chosen)
    return "\n".join(
        [f"## {len(chosen)} error messages drawn at random (seed {seed}): {said} say what to do", "", *out]
    )


def failures_text(results: list[Result]) -> str:
    out = []
    for r in results:
        if r.outcome in FAILURES:
            out += ["", f"### {r.outcome}: {r.case.what}", f"    {r.command}", "```", r.detail.rstrip()[-2500:], "```"]
    return "\n".join(out)


def sampled_cases(report: str, n: int, seed: int = 0) -> list[str]:
    """The ``what`` of ``n`` clean errors drawn at random (``seed``) from an earlier ``--json`` report: the same
    draw as :func:`sample_text` made on that run."""
    with open(report, encoding="utf-8") as fh:
        rows = json.load(fh)["results"]

    def what(r: dict) -> str:  # as Case.what says it
        where = r["input"] if r["group"] == "input" else r["group"]
        return f"{r['verb']} / {where}{' (' + r['file'] + ')' if r['file'] else ''} / {r['class']}"

    whats = sorted(what(r) for r in rows if r["outcome"] == "ok-error")
    return random.Random(seed).sample(whats, min(n, len(whats)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument("--jobs", type=int, default=1, help="cases run at the same time")
    ap.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds after which a case is a hang (at least 4x its clean run's time)",
    )
    ap.add_argument(
        "--verbs",
        nargs="+",
        default=None,
        metavar="VERB",
        help="only these verbs (e.g. index 'ttable show'; ttable = all its actions)",
    )
    ap.add_argument(
        "--match",
        nargs="+",
        default=None,
        metavar="TEXT",
        help="only the cases whose 'verb / input / class' holds one of these texts",
    )
    ap.add_argument(
        "--full",
        action="store_true",
        help="every class on every slot and every option and output case (1,622 cases, ~30 min)",
    )
    ap.add_argument("--json", default=None, metavar="FILE", help="also write every case and the counts here")
    ap.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="list N clean error messages drawn at random from the cases run, and how many say what to do",
    )
    ap.add_argument(
        "--sample-from",
        default=None,
        metavar="JSON",
        help="run only the N cases of --sample drawn from this earlier --json report (the same draw)",
    )
    ap.add_argument("--sample-seed", type=int, default=0, help="seed of the --sample draw")
    ap.add_argument(
        "--keep",
        default=None,
        metavar="DIR",
        help="work in DIR and keep the folders of failing cases (default: a temporary folder)",
    )
    args = ap.parse_args(argv)
    # a shell starts a background job with SIGINT ignored, which its children would inherit (and the
    # SIGINT cases could not interrupt them): they start with the default handling
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.jobs < 1 or args.timeout <= 0:
        ap.error("--jobs and --timeout must be positive")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="matrix.") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        if args.keep:
            shutil.rmtree(work / "cases", ignore_errors=True)
        try:
            only = None
            if args.sample_from:
                only = set(sampled_cases(args.sample_from, args.sample or 30, args.sample_seed))
            results, facts = run_matrix(
                work,
                jobs=args.jobs,
                timeout=args.timeout,
                verbs=args.verbs,
                match=args.match,
                keep=bool(args.keep),
                full=args.full or only is not None,
                only=only,
            )
        except RuntimeError as exc:  # a clean input or a clean run failed: nothing to compare with
            print(f"matrix: cannot run: {exc}", file=sys.stderr)
            return 2
    seconds = time.monotonic() - start
    print(tables(results))
    print(failures_text(results))
    if args.sample or args.sample_from:
        print("\n" + sample_text(results, args.sample or 30, args.sample_seed))
    print(
        f"\nwall time {seconds / 60:.1f} min with --jobs {args.jobs}; the clirkit processes used "
        f"{facts['cpu_seconds'] / 60:.1f} min of CPU ({facts['cpu_seconds'] / 60 / args.jobs:.1f} min per job)",
        file=sys.stderr,
    )
    if args.json:
        summary = {c: sum(r.outcome == c for r in results) for c in OK + FAILURES}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(
                {
                    "cases": len(results),
                    "counts": summary,
                    "seconds": round(seconds, 1),
                    "jobs": args.jobs,
                    **facts,
                    "results": [
                        {
                            "verb": r.case.slot.verb,
                            "input": r.case.slot.label,
                            "group": r.case.group,
                            "file": r.case.target,
                            "class": r.case.cls,
                            "expect": r.case.expect,
                            "outcome": r.outcome,
                            "detail": r.detail,
                            "command": r.command,
                            "seconds": round(r.seconds, 2),
                        }
                        for r in results
                    ],
                },
                fh,
                indent=1,
            )
    return 1 if any(r.outcome in FAILURES for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
