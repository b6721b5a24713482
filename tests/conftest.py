"""Shared fixtures: small real slices of the Reina-Valera 1909 verses (the bundled collection's documents)."""

from __future__ import annotations

import signal
from pathlib import Path

import numpy as np
import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.retrieval.index import Index

# A test run started in the background by a non-interactive shell inherits SIGINT ignored, and so would every
# command a test starts: the Ctrl-C tests need the default handling, in this process and in its children.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

GENESIS_ES = {
    "Gen.1.1": "EN el principio crió Dios los cielos y la tierra.",
    "Gen.1.2": "Y la tierra estaba desordenada y vacía, y las tinieblas estaban sobre la haz del abismo, "
    "y el Espíritu de Dios se movía sobre la haz de las aguas.",
    "Gen.1.3": "Y dijo Dios: Sea la luz: y fué la luz.",
    "Gen.1.4": "Y vió Dios que la luz era buena: y apartó Dios la luz de las tinieblas.",
    "Gen.1.5": "Y llamó Dios á la luz Día, y á las tinieblas llamó Noche: y fué la tarde y la mañana un día.",
    "Gen.1.6": "Y dijo Dios: Haya expansión en medio de las aguas, y separe las aguas de las aguas.",
    "Gen.1.7": "E hizo Dios la expansión, y apartó las aguas que estaban debajo de la expansión, "
    "de las aguas que estaban sobre la expansión: y fué así.",
    "Gen.1.8": "Y llamó Dios á la expansión Cielos: y fué la tarde y la mañana el día segundo.",
    "John.1.1": "EN el principio era el Verbo, y el Verbo era con Dios, y el Verbo era Dios.",
    "John.1.5": "Y la luz en las tinieblas resplandece; mas las tinieblas no la comprendieron.",
}


@pytest.fixture
def verses_es() -> dict[str, str]:
    return dict(GENESIS_ES)


@pytest.fixture
def index(verses_es) -> Index:
    """The verses indexed in memory as whole words (the Spanish analyzer with ``stemmer=None``), docids sorted:
    the tests over it build queries and tables of whole Spanish words ("luz", "tinieblas", "día")."""
    analyzer = Analyzer("es", stemmer=None)
    docids = sorted(verses_es)
    return Index.from_tokens(docids, [analyzer.tokenize(verses_es[d]) for d in docids], analyzer)


@pytest.fixture
def indexed_dir(tmp_path, verses_es) -> Path:
    """``tmp_path`` holding docs.tsv (the verses) and ix.npz, its index made by ``clirkit index --lang es``."""
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in verses_es.items()), encoding="utf-8")
    assert main(["index", str(docs), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q"]) == 0
    return tmp_path


SPLIT_SIZES = {"train": 40, "dev": 12, "test": 12}


@pytest.fixture(scope="session")
def mini(tmp_path_factory) -> Path:
    """A collection folder: the first nave-en-es queries of each split judging at most 12 verses, their
    judged verses and 300 more, and the verse pairs of those verses."""
    c = datasets.load("nave-en-es")
    folder = tmp_path_factory.mktemp("mini") / "standard"
    queries, qrels = {}, {}
    for split, n in SPLIT_SIZES.items():
        judged = c.qrels(split)
        ids, counts = np.unique(judged.qids, return_counts=True)
        small = set(ids[counts <= 12].tolist())
        chosen = [q for q in c.queries(split) if q in small][:n]
        queries[split] = {q: c.queries(split)[q] for q in chosen}
        qrels[split] = judged.subset(chosen)
    docids, texts = c.documents()
    wanted = set(docids[:300]).union(*(set(q.docids.tolist()) for q in qrels.values()))
    keep = [i for i, d in enumerate(docids) if d in wanted]
    sources, targets = c.parallel()
    pairs = [i for i, p in enumerate(c.parallel_ids()) if p in wanted]
    data = datasets.CollectionData(
        name="mini-nave",
        variant="standard",
        source_lang="en",
        target_lang="es",
        description="a test slice",
        docids=[docids[i] for i in keep],
        doc_texts=[texts[i] for i in keep],
        pair_ids=[c.parallel_ids()[i] for i in pairs],
        pair_sources=[sources[i] for i in pairs],
        pair_targets=[targets[i] for i in pairs],
        queries=queries,
        qrels=qrels,
    )
    datasets.write_collection(data, folder, compress=False)
    return folder


@pytest.fixture
def tamper():
    """A function writing at ``out`` the npz file ``path`` with header values (``"a.b"`` reaches into objects,
    ``"a.1.b"`` into lists)
    and arrays replaced (an array given as None is left out): a tampered model, index or table."""
    import json

    from clirkit.npzio import HEADER_KEY, encode_header

    def tampered(path, out, header=None, **arrays):
        with np.load(path, allow_pickle=False) as npz:
            meta = json.loads(npz[HEADER_KEY].tobytes().decode("utf-8"))
            data = {k: npz[k] for k in npz.files if k != HEADER_KEY}
        for key, value in (header or {}).items():
            *parents, last = key.split(".")
            node = meta
            for k in parents:
                node = node[int(k)] if isinstance(node, list) else node[k]
            node[last] = value
        data.update(arrays)
        np.savez(out, **{HEADER_KEY: encode_header(meta)}, **{k: v for k, v in data.items() if v is not None})
        return out

    return tampered
