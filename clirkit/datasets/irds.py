"""Collections from ir_datasets (``irds:NAME``): HC4, NeuCLIR, CLIRMatrix, mMARCO, ... as a :class:`Collection`.

>>> from clirkit import datasets
>>> c = datasets.load("irds:hc4/fa?source_lang=en")     # splits train, dev, test from hc4/fa/{train,dev,test}
>>> c = datasets.load("irds:neuclir/1/zh/hc4-filtered?source_lang=en")   # one split, called test
>>> queries, qrels = c.queries("test"), c.qrels("test")
>>> docids, texts = c.documents()

ir_datasets is an optional extra (``pip install 'clirkit[irds]'``); it downloads the data the first
time (into ``$IR_DATASETS_HOME``, default ``~/.ir_datasets``) or says how to obtain it.

**Splits.** ``irds:NAME`` where the ir_datasets id ``NAME`` has queries and relevance judgments is
one split, named ``test`` (the split an experiment evaluates), whatever the id's last part. Otherwise
the splits are the datasets one level below it, ``NAME/PART``, that have queries and judgments over
the same documents as ``NAME``; each split is called ``PART``, in the order ``train``, ``dev``, ``test``,
then the others as ir_datasets lists them. So ``irds:hc4/fa`` has ``train``, ``dev``, ``test`` from
``hc4/fa/train``, ``hc4/fa/dev``, ``hc4/fa/test``; ``irds:beir/scifact`` (queries without judgments)
``train`` and ``test``; ``irds:neuclir/1/zh`` ``trec-2022`` and ``trec-2023``, without
``hc4-filtered``, which searches other documents (name it to use it). If ``NAME`` has no documents or
is not a dataset itself (``irds:clirmatrix/fa/bi139-base/en``, whose ``.../train``, ``dev``, ``test1``,
``test2`` ir_datasets makes on demand: those five parts are looked up by name), its splits must all
search the same documents.

**Options** follow the name as ``?key=value&key=value`` (or come as keyword arguments of :func:`load`):

- ``source_lang``, ``target_lang``: the languages of the queries and of the documents. By default those
  ir_datasets gives (``queries_lang()``, ``docs_lang()``); when it gives none, naming them is required
  (HC4's English topics: ``irds:hc4/fa?source_lang=en``).
- ``doc_fields``, ``query_fields``: which fields make the text, joined by ``+`` (``title+text``). By
  default the rule of :func:`clirkit.formats.choose_fields`: documents ``title`` and ``text`` joined
  (title first, a space between), else ``text``, else ``contents``; queries ``title``, else
  ``description``, else ``text``. So a collection exported to JSONL with ir_datasets' field names
  reads the same through :func:`clirkit.formats.read_documents`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from pathlib import Path

import numpy as np

from clirkit.datasets.collection import cache_dir
from clirkit.errors import ClirkitError, located, quoted
from clirkit.run import Qrels

PREFIX = "irds:"
INSTALL = "pip install 'clirkit[irds]'"
VARIANT = "standard"
OPTIONS = ("source_lang", "target_lang", "doc_fields", "query_fields")
STANDARD_SPLITS = ("train", "dev", "test")
PROBED_SPLITS = STANDARD_SPLITS + ("test1", "test2")  # looked up by name below NAME (CLIRMatrix: test1, test2)
MANIFEST_FORMAT = "clirkit-irds"


def parse_name(name: str) -> tuple[str, dict[str, str]]:
    """``"irds:hc4/fa?source_lang=en"`` -> ``("hc4/fa", {"source_lang": "en"})``."""
    if not name.startswith(PREFIX):
        raise ClirkitError(f"{name!r} is not an ir_datasets name (irds:NAME)")
    dataset_id, _, query = name[len(PREFIX) :].partition("?")
    if not dataset_id:
        raise ClirkitError(f"{name!r} names no ir_datasets dataset (e.g. irds:hc4/fa)")
    options: dict[str, str] = {}
    for part in query.split("&") if query else ():
        key, eq, value = part.partition("=")
        if key not in OPTIONS:
            raise ClirkitError(f"{name}: unknown option {key!r} (choose {', '.join(OPTIONS)})")
        if not eq or not value:
            raise ClirkitError(f"{name}: option {key} needs a value ({key}=...)")
        if key in options:
            raise ClirkitError(f"{name}: option {key} given twice")
        options[key] = value
    return dataset_id, options


def _ir_datasets(name: str):
    try:
        import ir_datasets
    except ImportError:
        raise ClirkitError(
            f"{name}: reading ir_datasets collections needs the ir_datasets package: {INSTALL}"
        ) from None
    return ir_datasets


def load(
    name: str,
    *,
    variant: str | None = None,
    source_lang: str | None = None,
    target_lang: str | None = None,
    doc_fields: str | None = None,
    query_fields: str | None = None,
) -> "IrdsCollection":
    """Open ``irds:NAME[?options]`` (see the module docstring); keyword options override those in the name.

    ``variant`` must be None or ``"standard"`` (an ir_datasets collection has one variant).
    """
    dataset_id, options = parse_name(name)
    given = {
        "source_lang": source_lang,
        "target_lang": target_lang,
        "doc_fields": doc_fields,
        "query_fields": query_fields,
    }
    options.update({k: v for k, v in given.items() if v is not None})
    if variant not in (None, VARIANT):
        raise ClirkitError(f"{name}: an ir_datasets collection has one variant, {VARIANT!r}, not {variant!r}")
    return IrdsCollection(dataset_id, **options)


def _open(irds, dataset_id: str, label: str):
    """``ir_datasets.load(dataset_id)``, None if there is no such dataset."""
    try:
        return irds.load(dataset_id)
    except KeyError:
        return None
    except (OSError, RuntimeError) as exc:  # datasets registered by pattern may download a file list first
        raise ClirkitError(
            f"{label}: ir_datasets could not open {dataset_id} ({type(exc).__name__}: {exc}); "
            "it keeps its data in $IR_DATASETS_HOME (default ~/.ir_datasets)"
        ) from None


def _safe(call, default=None):
    try:
        return call()
    except (AttributeError, KeyError, OSError, RuntimeError):
        return default


class IrdsCollection:
    """An ir_datasets dataset with the interface of :class:`clirkit.datasets.Collection`.

    Attributes:
        name: ``irds:ID`` with the options that change its contents (``?source_lang=en``).
        variant: ``"standard"``.
        dataset_id: the ir_datasets id.
        split_ids: ``{split: ir_datasets id}``.
        source_lang, target_lang: languages of the queries and of the documents.
        splits: the split names (see the module docstring for the rule).
        counts: ``documents`` (from ir_datasets' metadata, or once read) and, per split read,
            ``queries`` and ``qrels`` (``{grade: count}``), as in a collection's manifest.
        description: one line naming the ir_datasets ids.
        folder: a cache folder holding ``manifest.json``, a description of the collection (ids,
            splits, languages, fields, ir_datasets version) that experiment records hash.
    """

    def __init__(
        self,
        dataset_id: str,
        *,
        source_lang: str | None = None,
        target_lang: str | None = None,
        doc_fields: str | None = None,
        query_fields: str | None = None,
    ) -> None:
        from clirkit.formats import choose_fields, parse_text_fields

        self.dataset_id = dataset_id
        label = PREFIX + dataset_id
        irds = _ir_datasets(label)
        self._version = getattr(irds, "__version__", "unknown")
        self.split_ids, docs = self._find_splits(irds, dataset_id, label)
        self.splits = list(self.split_ids)
        self._docs = docs  # the dataset whose documents are searched
        self._split_datasets = {s: irds.load(i) for s, i in self.split_ids.items()}

        self.target_lang = target_lang or _safe(lambda: docs.docs_lang())
        langs = {s: _safe(lambda: d.queries_lang()) for s, d in self._split_datasets.items()}
        if source_lang is None and len(set(langs.values()) - {None}) > 1:
            said = ", ".join(f"{s}: {lang}" for s, lang in langs.items())
            raise ClirkitError(
                f"{label}: the splits' queries are in different languages ({said}); name one split "
                f"or the language: {label}?source_lang=LANG"
            )
        self.source_lang = source_lang or (None if None in langs.values() else next(iter(langs.values())))
        for side, lang, key in (
            ("queries", self.source_lang, "source_lang"),
            ("documents", self.target_lang, "target_lang"),
        ):
            if not lang:
                raise ClirkitError(
                    f"{label}: ir_datasets does not say the language of the {side}; name it: "
                    f"{label}?{key}=LANG (an ISO 639-1 code such as en)"
                )
        self._options = {
            "source_lang": source_lang,
            "target_lang": target_lang,
            "doc_fields": doc_fields,
            "query_fields": query_fields,
        }

        doc_names = list(docs.docs_cls()._fields)
        try:
            self._doc_id, self._doc_text = choose_fields(
                doc_names,
                "document",
                text_fields=parse_text_fields(doc_fields),
                noun="field",
                id_hint="not a document type this adapter reads",
                text_hint=f"name them: {label}?doc_fields=FIELD+FIELD",
            )
        except ClirkitError as exc:
            raise ClirkitError(f"{label}: {exc}") from None
        self._query_fields: dict[str, tuple[str, tuple[str, ...]]] = {}
        for split, d in self._split_datasets.items():
            names = list(d.queries_cls()._fields)
            try:
                self._query_fields[split] = choose_fields(
                    names,
                    "query",
                    text_fields=parse_text_fields(query_fields),
                    noun="field",
                    id_hint="not a query type this adapter reads",
                    text_hint=f"name them: {label}?query_fields=FIELD+FIELD",
                )
            except ClirkitError as exc:
                raise ClirkitError(f"{PREFIX}{self.split_ids[split]}: {exc}") from None

        shown = "&".join(f"{k}={v}" for k, v in self._options.items() if v is not None)
        self.name = label + (f"?{shown}" if shown else "")
        self.variant = VARIANT
        n_docs = _safe(lambda: docs.docs_metadata().get("count"))  # ir_datasets' own metadata: no download
        self.counts: dict = {"documents": n_docs} if isinstance(n_docs, int) else {}
        ids = ", ".join(sorted(set(self.split_ids.values())))
        self.description = f"ir_datasets {dataset_id} ({ids}), ir_datasets {self._version}"
        self._queries: dict[str, dict[str, str]] = {}
        self._qrels: dict[str, Qrels] = {}
        self._documents: tuple[list[str], list[str]] | None = None
        self._folder: Path | None = None

    def __repr__(self) -> str:
        return f"IrdsCollection({self.name!r}, splits={self.splits!r})"

    # ------------------------------------------------------------------ finding the datasets

    @staticmethod
    def _find_splits(irds, dataset_id: str, label: str) -> tuple[dict[str, str], object]:
        """``({split: id}, the dataset whose documents are searched)`` by the rule of the module docstring."""
        dataset = _open(irds, dataset_id, label)
        if dataset is not None and dataset.has_queries() and dataset.has_qrels():
            if not dataset.has_docs():
                raise ClirkitError(f"{label}: has queries and judgments but no documents")
            return {"test": dataset_id}, dataset
        prefix = dataset_id + "/"
        children = [k for k in irds.registry if k.startswith(prefix) and "/" not in k[len(prefix) :]]
        for part in PROBED_SPLITS:  # datasets registered by pattern (CLIRMatrix) are found only by name
            if prefix + part not in children and _open(irds, prefix + part, label) is not None:
                children.append(prefix + part)
        if dataset is None and not children:
            close = difflib.get_close_matches(dataset_id, list(irds.registry), n=3, cutoff=0.6)
            hint = f" (close: {', '.join(close)})" if close else ""
            raise ClirkitError(
                f"{label}: ir_datasets {irds.__version__} has no dataset {dataset_id!r}{hint}; "
                "see https://ir-datasets.com"
            )
        docs = dataset if dataset is not None and dataset.has_docs() else None
        splits: dict[str, str] = {}
        others: list[str] = []
        for child in children:
            d = irds.load(child)
            if not (d.has_queries() and d.has_qrels() and d.has_docs()):
                continue
            if docs is None:
                docs = d
            if d.docs_handler() != docs.docs_handler():
                if dataset is not None and dataset.has_docs():
                    others.append(child)
                    continue
                raise ClirkitError(
                    f"{label}: has no documents, and {next(iter(splits.values()))} and {child} "
                    "below it search different ones; name one of them"
                )
            splits[child[len(prefix) :]] = child
        if not splits:
            if others:
                raise ClirkitError(
                    f"{label}: has no judged queries, and those below it ({', '.join(others)}) "
                    "search other documents: name one"
                )
            below = ", ".join(children[:8]) + (", ..." if len(children) > 8 else "") if children else "none"
            raise ClirkitError(
                f"{label}: neither it nor the datasets one level below it ({below}) have queries "
                "with relevance judgments; name one that has"
            )
        order = [s for s in STANDARD_SPLITS if s in splits] + [s for s in splits if s not in STANDARD_SPLITS]
        return {s: splits[s] for s in order}, docs

    def _split(self, split: str):
        if split not in self.split_ids:
            raise ClirkitError(f"{self.name}: unknown split {split!r} (choose {', '.join(self.splits)})")
        return self._split_datasets[split]

    def _read(self, what: str, dataset_id: str, make):
        """Run ``make()``, turning ir_datasets' failures to find or download data into a ClirkitError."""
        try:
            return make()
        except (OSError, RuntimeError) as exc:
            raise ClirkitError(
                f"{PREFIX}{dataset_id}: ir_datasets could not read the {what} "
                f"({type(exc).__name__}: {exc}); it keeps its data in $IR_DATASETS_HOME "
                "(default ~/.ir_datasets)"
            ) from None

    # ------------------------------------------------------------------ contents

    def queries(self, split: str = "test") -> dict[str, str]:
        """``{qid: text}`` of one split, in ir_datasets' order."""
        dataset = self._split(split)
        if split not in self._queries:
            from clirkit.formats import check_id, join_text

            dataset_id = self.split_ids[split]
            id_key, text_keys = self._query_fields[split]
            fields = dataset.queries_cls()._fields
            id_pos, text_pos = fields.index(id_key), [fields.index(k) for k in text_keys]
            where = f"{PREFIX}{dataset_id} queries"

            def make() -> dict[str, str]:
                out: dict[str, str] = {}
                for n, q in enumerate(dataset.queries_iter(), 1):
                    qid = check_id(where, n, _id(where, n, q[id_pos], id_key), id_key)
                    if qid in out:
                        raise located(where, n, f"query id {qid} appears twice")
                    out[qid] = join_text([_text(where, n, q[i], k) for i, k in zip(text_pos, text_keys)])
                return out

            self._queries[split] = self._read("queries", dataset_id, make)
            self.counts.setdefault(split, {})["queries"] = len(self._queries[split])
        return self._queries[split]

    def qrels(self, split: str = "test") -> Qrels:
        """Graded judgments of one split's queries (a judgment given twice is kept once, at its first grade)."""
        dataset = self._split(split)
        if split not in self._qrels:
            dataset_id = self.split_ids[split]
            where = f"{PREFIX}{dataset_id} qrels"

            def make() -> tuple[list[str], list[str], list[int]]:
                seen: set[tuple[str, str]] = set()
                qids: list[str] = []
                docids: list[str] = []
                rels: list[int] = []
                for n, j in enumerate(dataset.qrels_iter(), 1):
                    qid, docid, rel = j.query_id, j.doc_id, j.relevance
                    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)):
                        raise located(where, n, f"relevance {rel!r} is not an integer")
                    if (qid, docid) in seen:
                        continue
                    seen.add((qid, docid))
                    qids.append(qid)
                    docids.append(docid)
                    rels.append(int(rel))
                return qids, docids, rels

            qids, docids, rels = self._read("relevance judgments", dataset_id, make)
            qrels = Qrels(np.array(qids, dtype=str), np.array(docids, dtype=str), np.array(rels, dtype=np.int64))
            self._qrels[split] = qrels
            grades, counts = np.unique(qrels.rels, return_counts=True)
            self.counts.setdefault(split, {})["qrels"] = {str(g): int(c) for g, c in zip(grades, counts)}
        return self._qrels[split]

    def excluded(self, split: str = "test") -> dict[str, set[str]]:
        """Always empty: ir_datasets collections exclude nothing from runs."""
        self._split(split)
        return {}

    def documents(self) -> tuple[list[str], list[str]]:
        """``(docids, texts)`` of the searched documents, in ir_datasets' order."""
        if self._documents is None:
            from clirkit.formats import check_id, join_text

            docs_id = _safe(lambda: self._docs.dataset_id(), self.dataset_id)
            fields = self._docs.docs_cls()._fields
            id_key, text_keys = self._doc_id, self._doc_text
            id_pos, text_pos = fields.index(id_key), [fields.index(k) for k in text_keys]
            where = f"{PREFIX}{docs_id} documents"

            def make() -> tuple[list[str], list[str]]:
                docids: list[str] = []
                texts: list[str] = []
                first: dict[str, int] = {}
                single = text_pos[0] if len(text_pos) == 1 else None
                for n, doc in enumerate(self._docs.docs_iter(), 1):
                    docid = check_id(where, n, _id(where, n, doc[id_pos], id_key), id_key)
                    if first.setdefault(docid, n) != n:
                        raise located(where, n, f"document id {docid} appears twice (first at {first[docid]})")
                    if single is not None:
                        text = doc[single]
                        if type(text) is not str:
                            text = _text(where, n, text, text_keys[0])
                    else:
                        text = join_text([_text(where, n, doc[i], k) for i, k in zip(text_pos, text_keys)])
                    docids.append(docid)
                    texts.append(text)
                return docids, texts

            self._documents = self._read("documents", docs_id, make)
            self.counts["documents"] = len(self._documents[0])
        docids, texts = self._documents
        return list(docids), list(texts)

    def parallel(self) -> tuple[list[str], list[str]]:
        """Not available: ir_datasets collections have no parallel corpus (raises ClirkitError)."""
        raise ClirkitError(
            f"{self.name}: ir_datasets gives documents, queries and judgments but no parallel "
            "corpus to train a translation table on; make the table from other parallel text "
            "or a dictionary (clirkit ttable)"
        )

    def parallel_ids(self) -> list[str]:
        """Not available (see :meth:`parallel`)."""
        return self.parallel()  # raises

    # ------------------------------------------------------------------ identity

    def manifest(self) -> dict:
        """What identifies the collection: ids, splits, languages, fields and the ir_datasets version."""
        return {
            "format": MANIFEST_FORMAT,
            "version": 1,
            "name": self.name,
            "variant": self.variant,
            "dataset_id": self.dataset_id,
            "splits": self.split_ids,
            "source_lang": self.source_lang,
            "target_lang": self.target_lang,
            "doc_fields": [self._doc_id, *self._doc_text],
            "query_fields": {s: [i, *t] for s, (i, t) in self._query_fields.items()},
            "ir_datasets": self._version,
        }

    @property
    def folder(self) -> Path:
        """``$CLIRKIT_CACHE/irds/<name>``, holding ``manifest.json`` (:meth:`manifest`), written when asked for."""
        if self._folder is None:
            from clirkit.datasets._runtime import cache_folder
            from clirkit.fileio import atomic_writer

            slug = re.sub(r"[^A-Za-z0-9._-]+", "_", self.name[len(PREFIX) :]).strip("_")[:80]
            digest = hashlib.sha256(self.name.encode("utf-8")).hexdigest()[:8]
            folder = cache_dir() / "irds" / f"{slug}-{digest}"
            text = json.dumps(self.manifest(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
            path = folder / "manifest.json"
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                cache_folder(folder)
                with atomic_writer(path) as out:
                    out.write(text)
            self._folder = folder
        return self._folder


def _id(where: str, n: int, value: object, key: str) -> str:
    """The id in field ``key`` of record ``n``, as text; one with whitespace is refused with what to do (the user
    cannot correct the dataset's ids in place)."""
    text = _text(where, n, value, key)
    if re.search(r"\s", text):
        raise located(
            where,
            n,
            f"{key} {quoted(text, 50)} contains whitespace: runs and qrels separate their columns by "
            f"whitespace, so an id is one token; export the dataset with the spaces of its ids "
            f"replaced (e.g. by '_') and make a collection of those files (`clirkit collection`)",
        )
    return text


def _text(where: str, n: int, value: object, key: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and key.endswith("id"):
        return str(value)
    raise located(where, n, f"field {key!r} holds {type(value).__name__}, not text; choose other fields")
