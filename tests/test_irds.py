"""The ir_datasets adapter (``datasets.load("irds:NAME")``), on small local datasets registered the way
ir_datasets documents it (``registry.register`` of a ``Dataset`` of ``TsvDocs``/``TsvQueries``/``TrecQrels``
over ``LocalDownload``): ir_datasets cannot download anything here.

Documents are Reina-Valera 1909 verses (the bundled collection's), queries are fragments of them.
"""

from __future__ import annotations

import itertools
import json
from typing import NamedTuple

import numpy as np
import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.formats import read_documents, read_queries, write_run
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.index import Index
from clirkit.retrieval.query import StructuredQueries

QUERIES_ES = {
    "LUZ.1": "la luz y las tinieblas",
    "AGUAS.1": "las aguas de la expansión",
    "VERBO.1": "el Verbo era Dios",
}
QRELS = [
    ("LUZ.1", "Gen.1.4", 2),
    ("LUZ.1", "John.1.5", 1),
    ("AGUAS.1", "Gen.1.6", 2),
    ("AGUAS.1", "Gen.1.7", 1),
    ("VERBO.1", "John.1.1", 2),
    ("VERBO.1", "Gen.1.1", 0),
]

_ids = itertools.count()


@pytest.fixture
def irds():
    return pytest.importorskip("ir_datasets")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CLIRKIT_CACHE", str(tmp_path / "cache"))


def unique(stem: str) -> str:
    """A dataset id not yet in ir_datasets' (process-wide) registry."""
    return f"clirkit-test-{next(_ids)}/{stem}"


def write_lines(path, lines) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def local(irds, path):
    return irds.util.LocalDownload(path)


def docs_tsv(irds, tmp_path, verses, *, lang="es", name="docs.tsv"):
    path = write_lines(tmp_path / name, [f"{d}\t{t}" for d, t in verses.items()])
    return irds.formats.TsvDocs(local(irds, path), lang=lang)


def queries_tsv(irds, tmp_path, queries=QUERIES_ES, *, lang="es", name="queries.tsv"):
    path = write_lines(tmp_path / name, [f"{q}\t{t}" for q, t in queries.items()])
    return irds.formats.TsvQueries(local(irds, path), lang=lang)


def qrels_trec(irds, tmp_path, rows=QRELS, *, name="qrels.txt"):
    path = write_lines(tmp_path / name, [f"{q} 0 {d} {r}" for q, d, r in rows])
    return irds.formats.TrecQrels(local(irds, path), {0: "not relevant", 1: "related", 2: "relevant"})


def register(irds, dataset_id: str, *components) -> None:
    irds.registry.register(dataset_id, irds.datasets.base.Dataset(*components))


def bm25_run(docids, texts, queries, path) -> bytes:
    """The BM25 run (Spanish analyzer, depth 10) of ``queries`` over the documents, as written bytes."""
    analyzer = Analyzer("es")
    index = Index.from_tokens(docids, analyzer.tokenize_many(texts), analyzer)
    structured = StructuredQueries.from_tokens(
        list(queries), analyzer.tokenize_many(list(queries.values())), index.vocabulary
    )
    write_run(BM25(index).search(structured, depth=10, tag="BM25"), path)
    return path.read_bytes()


# --------------------------------------------------------------------------- one dataset, one split


def test_a_dataset_with_queries_is_one_test_split_with_the_languages_ir_datasets_gives(irds, tmp_path, verses_es):
    name = unique("es")
    register(irds, name, docs_tsv(irds, tmp_path, verses_es), queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    c = datasets.load(f"irds:{name}")
    assert (c.name, c.variant, c.splits, c.split_ids) == (f"irds:{name}", "standard", ["test"], {"test": name})
    assert (c.source_lang, c.target_lang) == ("es", "es")
    assert c.queries("test") == QUERIES_ES and list(c.queries("test")) == list(QUERIES_ES)
    qrels = c.qrels("test")
    assert list(zip(qrels.qids.tolist(), qrels.docids.tolist(), qrels.rels.tolist())) == QRELS
    assert c.documents() == (list(verses_es), list(verses_es.values()))
    assert c.excluded("test") == {}
    assert c.counts == {"documents": 10, "test": {"queries": 3, "qrels": {"0": 1, "1": 2, "2": 3}}}


def test_an_unknown_split_is_an_error_listing_the_splits(irds, tmp_path, verses_es):
    name = unique("es")
    register(irds, name, docs_tsv(irds, tmp_path, verses_es), queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    c = datasets.load(f"irds:{name}")
    for method in (c.queries, c.qrels, c.excluded):
        with pytest.raises(ClirkitError, match=rf"^irds:{name}: unknown split 'dev' \(choose test\)$"):
            method("dev")


def test_there_is_no_parallel_corpus(irds, tmp_path, verses_es):
    name = unique("es")
    register(irds, name, docs_tsv(irds, tmp_path, verses_es), queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    c = datasets.load(f"irds:{name}")
    with pytest.raises(ClirkitError, match="no parallel corpus"):
        c.parallel()
    with pytest.raises(ClirkitError, match="no parallel corpus"):
        c.parallel_ids()


# --------------------------------------------------------------------------- splits from the datasets below


def test_splits_are_the_datasets_one_level_below_over_the_same_documents(irds, tmp_path, verses_es):
    name = unique("es")
    docs = docs_tsv(irds, tmp_path, verses_es)
    register(irds, name, docs)
    for split in ("test", "dev", "train"):  # registered out of order: the splits still come train, dev, test
        queries = {f"{q}.{split}": t for q, t in QUERIES_ES.items()}
        rows = [(f"{q}.{split}", d, r) for q, d, r in QRELS]
        register(
            irds,
            f"{name}/{split}",
            docs,
            queries_tsv(irds, tmp_path, queries, name=f"q.{split}.tsv"),
            qrels_trec(irds, tmp_path, rows, name=f"qrels.{split}.txt"),
        )
    other = docs_tsv(irds, tmp_path, dict(list(verses_es.items())[:3]), name="other.tsv")
    register(irds, f"{name}/filtered", other, queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    register(irds, f"{name}/2023", docs, queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    register(irds, f"{name}/train/small", docs, queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    c = datasets.load(f"irds:{name}")
    assert c.splits == ["train", "dev", "test", "2023"]  # not filtered (other documents), not train/small
    assert c.split_ids == {
        "train": f"{name}/train",
        "dev": f"{name}/dev",
        "test": f"{name}/test",
        "2023": f"{name}/2023",
    }
    assert list(c.queries("dev")) == ["LUZ.1.dev", "AGUAS.1.dev", "VERBO.1.dev"]
    assert c.qrels("train").qids.tolist()[0] == "LUZ.1.train"
    assert len(c.documents()[0]) == 10
    # the filtered dataset is a collection of its own, with one split
    f = datasets.load(f"irds:{name}/filtered")
    assert f.splits == ["test"] and f.documents()[0] == ["Gen.1.1", "Gen.1.2", "Gen.1.3"]


def test_a_parent_that_is_not_a_dataset_takes_the_documents_its_splits_share(irds, tmp_path, verses_es):
    # as CLIRMatrix's clirmatrix/fa/bi139-base/en, whose train, dev, test1, test2 exist and it does not
    name = unique("es")
    docs = docs_tsv(irds, tmp_path, verses_es)
    for split in ("test1", "train"):
        register(irds, f"{name}/{split}", docs, queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    c = datasets.load(f"irds:{name}")
    assert c.splits == ["train", "test1"] and len(c.documents()[0]) == 10
    other = unique("es")
    register(irds, f"{other}/train", docs, queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    register(
        irds,
        f"{other}/test",
        docs_tsv(irds, tmp_path, verses_es, name="copy.tsv"),
        queries_tsv(irds, tmp_path),
        qrels_trec(irds, tmp_path),
    )
    with pytest.raises(
        ClirkitError,
        match=rf"irds:{other}: has no documents, and {other}/train and {other}/test "
        "below it search different ones; name one of them",
    ):
        datasets.load(f"irds:{other}")


def test_a_dataset_without_judged_queries_below_it_is_an_error_listing_what_is_there(irds, tmp_path, verses_es):
    name = unique("es")
    register(irds, name, docs_tsv(irds, tmp_path, verses_es))
    register(
        irds, f"{name}/queries-only", docs_tsv(irds, tmp_path, verses_es, name="d2.tsv"), queries_tsv(irds, tmp_path)
    )
    with pytest.raises(
        ClirkitError,
        match=rf"^irds:{name}: neither it nor the datasets one level below it "
        rf"\({name}/queries-only\) have queries with relevance judgments",
    ):
        datasets.load(f"irds:{name}")


def test_an_unknown_dataset_names_close_ones(irds, tmp_path, verses_es):
    name = unique("spanish")
    register(irds, name, docs_tsv(irds, tmp_path, verses_es), queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    with pytest.raises(ClirkitError, match=rf"has no dataset '{name[:-1]}' \(close: {name}[,)]"):
        datasets.load(f"irds:{name[:-1]}")


# --------------------------------------------------------------------------- languages and fields


def test_languages_ir_datasets_does_not_give_must_be_named(irds, tmp_path, verses_es):
    name = unique("es")
    register(
        irds,
        name,
        docs_tsv(irds, tmp_path, verses_es),
        queries_tsv(irds, tmp_path, lang=None),
        qrels_trec(irds, tmp_path),
    )
    with pytest.raises(ClirkitError) as err:
        datasets.load(f"irds:{name}")
    assert str(err.value) == (
        f"irds:{name}: ir_datasets does not say the language of the queries; name it: "
        f"irds:{name}?source_lang=LANG (an ISO 639-1 code such as en)"
    )
    c = datasets.load(f"irds:{name}?source_lang=en")
    assert (c.name, c.source_lang, c.target_lang) == (f"irds:{name}?source_lang=en", "en", "es")
    d = datasets.load(f"irds:{name}?source_lang=en&target_lang=pt")
    assert (d.source_lang, d.target_lang) == ("en", "pt")
    from clirkit.datasets import irds as adapter

    assert adapter.load(f"irds:{name}", source_lang="en").name == c.name


class TitledDoc(NamedTuple):
    doc_id: str
    title: str
    text: str
    url: str


def test_title_and_text_joined_and_topic_titles_by_default_other_fields_by_option(irds, tmp_path):
    name = unique("es")
    path = write_lines(
        tmp_path / "docs.tsv",
        [
            "Ps.23.1\tSalmo de David.\tJEHOVÁ es mi pastor; nada me faltará.\tu1",
            "Gen.1.1\t\tEN el principio crió Dios los cielos y la tierra.\tu2",
        ],
    )
    docs = irds.formats.TsvDocs(local(irds, path), doc_cls=TitledDoc, lang="es")
    topics = write_lines(tmp_path / "topics.tsv", ["PASTOR.1\tpastor\tel Señor es mi pastor\tnarr"])
    queries = irds.formats.TsvQueries(local(irds, topics), query_cls=irds.formats.TrecQuery, lang="es")
    register(irds, name, docs, queries, qrels_trec(irds, tmp_path, [("PASTOR.1", "Ps.23.1", 1)]))
    c = datasets.load(f"irds:{name}")
    assert c.documents() == (
        ["Ps.23.1", "Gen.1.1"],
        ["Salmo de David. JEHOVÁ es mi pastor; nada me faltará.", "EN el principio crió Dios los cielos y la tierra."],
    )
    assert c.queries() == {"PASTOR.1": "pastor"}
    d = datasets.load(f"irds:{name}?doc_fields=text&query_fields=title+description")
    assert d.documents()[1][0] == "JEHOVÁ es mi pastor; nada me faltará."
    assert d.queries() == {"PASTOR.1": "pastor el Señor es mi pastor"}
    with pytest.raises(
        ClirkitError,
        match=rf'^irds:{name}: no document text field "body" '
        r"\(found: doc_id, title, text, url\)$",
    ):
        datasets.load(f"irds:{name}?doc_fields=body")


def test_documents_ir_datasets_cannot_read_are_an_error_not_a_traceback(irds, tmp_path):
    name = unique("es")
    missing = irds.formats.TsvDocs(local(irds, tmp_path / "not-downloaded.tsv"), lang="es")
    register(irds, name, missing, queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    c = datasets.load(f"irds:{name}")
    with pytest.raises(
        ClirkitError,
        match=rf"^irds:{name}: ir_datasets could not read the documents "
        r"\(FileNotFoundError: .*not-downloaded.tsv\)",
    ):
        c.documents()


def test_bad_ids_and_repeated_documents_name_the_record(irds, tmp_path, verses_es):
    name = unique("es")
    register(
        irds,
        name,
        docs_tsv(irds, tmp_path, {"Gen.1.1": "a", "Gen 1.2": "b"}),
        queries_tsv(irds, tmp_path),
        qrels_trec(irds, tmp_path),
    )
    with pytest.raises(ClirkitError) as err:  # it said no fix
        datasets.load(f"irds:{name}").documents()
    assert str(err.value) == (
        f"irds:{name} documents:2: doc_id 'Gen 1.2' contains whitespace: runs and qrels "
        f"separate their columns by whitespace, so an id is one token; export the dataset with "
        f"the spaces of its ids replaced (e.g. by '_') and make a collection of those files "
        f"(`clirkit collection`)"
    )
    name = unique("es")
    path = write_lines(tmp_path / "dup.tsv", ["Gen.1.1\ta", "Gen.1.2\tb", "Gen.1.1\tc"])
    register(
        irds,
        name,
        irds.formats.TsvDocs(local(irds, path), lang="es"),
        queries_tsv(irds, tmp_path),
        qrels_trec(irds, tmp_path),
    )
    with pytest.raises(ClirkitError, match=rf"^irds:{name} documents:3: document id Gen.1.1 appears twice"):
        datasets.load(f"irds:{name}").documents()


def test_a_judgment_given_twice_is_kept_once_at_its_first_grade(irds, tmp_path, verses_es):
    name = unique("es")
    register(
        irds,
        name,
        docs_tsv(irds, tmp_path, verses_es),
        queries_tsv(irds, tmp_path),
        qrels_trec(irds, tmp_path, [("LUZ.1", "Gen.1.4", 2), ("LUZ.1", "Gen.1.4", 1), ("LUZ.1", "Gen.1.3", 1)]),
    )
    qrels = datasets.load(f"irds:{name}").qrels()
    assert qrels.docids.tolist() == ["Gen.1.4", "Gen.1.3"] and qrels.rels.tolist() == [2, 1]


# --------------------------------------------------------------------------- the experiment runner's needs


def test_folder_holds_a_manifest_that_experiment_records_hash(irds, tmp_path, verses_es):
    from clirkit.experiment import _collection_record

    name = unique("es")
    register(
        irds,
        name,
        docs_tsv(irds, tmp_path, verses_es),
        queries_tsv(irds, tmp_path, lang=None),
        qrels_trec(irds, tmp_path),
    )
    c = datasets.load(f"irds:{name}?source_lang=es")
    assert c.folder.parent == tmp_path / "cache" / "irds"
    manifest = json.loads((c.folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["splits"] == {"test": name} and manifest["source_lang"] == "es"
    assert manifest["doc_fields"] == ["doc_id", "text"] and manifest["query_fields"] == {"test": ["query_id", "text"]}
    record = _collection_record(c)
    assert record["name"] == f"irds:{name}?source_lang=es" and record["variant"] == "standard"
    assert _collection_record(datasets.load(f"irds:{name}?source_lang=es")) == record  # stable across loads
    assert _collection_record(datasets.load(f"irds:{name}?source_lang=pt"))["manifest"] != record["manifest"]


# --------------------------------------------------------------------------- same collection, four layouts


def test_tsv_with_header_jsonl_ir_datasets_jsonl_pyserini_and_the_adapter_give_byte_identical_runs(
    irds, tmp_path, verses_es
):
    runs = {}
    # 1. TSV with header lines
    docs = write_lines(tmp_path / "docs.tsv", ["docid\ttext"] + [f"{d}\t{t}" for d, t in verses_es.items()])
    queries = write_lines(tmp_path / "queries.tsv", ["qid\ttext"] + [f"{q}\t{t}" for q, t in QUERIES_ES.items()])
    runs["tsv"] = bm25_run(*read_documents(docs), read_queries(queries), tmp_path / "tsv.run")
    # 2. JSONL with ir_datasets' field names
    docs = write_lines(
        tmp_path / "irds-docs.jsonl",
        [json.dumps({"doc_id": d, "text": t}, ensure_ascii=False) for d, t in verses_es.items()],
    )
    queries = write_lines(
        tmp_path / "irds-queries.jsonl",
        [json.dumps({"query_id": q, "text": t}, ensure_ascii=False) for q, t in QUERIES_ES.items()],
    )
    runs["irds-jsonl"] = bm25_run(*read_documents(docs), read_queries(queries), tmp_path / "irds.run")
    # 3. JSONL with Pyserini's field names
    docs = write_lines(
        tmp_path / "pyserini.jsonl",
        [json.dumps({"id": d, "contents": t}, ensure_ascii=False) for d, t in verses_es.items()],
    )
    queries = write_lines(
        tmp_path / "pyserini-queries.jsonl",
        [json.dumps({"id": q, "text": t}, ensure_ascii=False) for q, t in QUERIES_ES.items()],
    )
    runs["pyserini-jsonl"] = bm25_run(*read_documents(docs), read_queries(queries), tmp_path / "pyserini.run")
    # 4. the ir_datasets adapter over a registered local dataset
    name = unique("es")
    register(irds, name, docs_tsv(irds, tmp_path, verses_es), queries_tsv(irds, tmp_path), qrels_trec(irds, tmp_path))
    c = datasets.load(f"irds:{name}")
    runs["adapter"] = bm25_run(*c.documents(), c.queries("test"), tmp_path / "adapter.run")
    assert len(runs["tsv"].splitlines()) > 3
    assert {layout: run == runs["tsv"] for layout, run in runs.items()} == dict.fromkeys(runs, True)
    assert np.array_equal(c.qrels().rels, [r for _, _, r in QRELS])
