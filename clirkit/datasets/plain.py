"""A collection of plain files (documents, topics, TREC qrels, an optional parallel corpus), written as a
collection folder: the same :class:`~clirkit.datasets.collection.Collection` the bundled ones are.

The files are read, checked and split once, and written with :func:`clirkit.datasets._store.write_variant`
(``documents.tsv``, ``queries.SPLIT.tsv``, ``qrels.SPLIT.txt``, ``parallel.tsv``, ``manifest.json``) plus
``sources.json``: the settings and the SHA-256 of every file read, which the experiment runner records (a
changed file makes the index, tables and runs again). Writing a folder rather than adapting the files on
every read gives one reader for every collection, a split drawn once and kept (the folder shows which
query is in which split), topics in any format read once into ``queries.SPLIT.tsv``, and the same folder
from ``clirkit collection -o DIR`` and from an experiment file's ``[collection]`` table (which the runner
writes as ``collection/`` in its output folder).

Keys (:data:`KEYS`; ``[collection]`` in an experiment file, ``--documents``... for ``clirkit collection``):

- ``documents``: ``docid TAB text`` (TSV, a header line allowed) or JSONL (``.jsonl``/``.json``), ``.gz`` fine;
- ``queries``: one file, or one per split (``{dev = "dev.xml", test = "test.xml"}``): ``qid TAB text``, JSONL,
  TREC SGML, CLEF XML, NTCIR XML or HC4/NeuCLIR JSONL topics (detected, :func:`clirkit.formats.read_queries`);
- ``query_fields``: the topic fields making a query (``"title,desc"``; default title);
- ``qrels``: TREC qrels (``qid 0 docid grade``), one file or one per split;
- ``source_lang``, ``target_lang``: ISO 639-1 codes of the queries and of the documents;
- ``parallel`` (optional): ``id TAB source TAB target`` lines, or two files aligned line by line
  (``["europarl.en", "europarl.de"]``); needed to train IBM Model 1, not when a table file is given;
- ``split`` (one queries file): fractions per split, e.g. ``{dev = 0.5, test = 0.5}``: the query ids are
  sorted, shuffled with ``split_seed`` (default 0) and cut in that order (train, dev, test); without it, every
  query is a test query;
- ``name``: the collection's name in reports (default: the experiment's, or the documents file's).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from clirkit.constraints import int64_at_least
from clirkit.errors import ClirkitError, counted, cut_repr
from clirkit.formats.qrels import check_judged_documents

SPLITS = ("train", "dev", "test")
KEYS = {
    "documents": "the documents: docid TAB text (TSV) or JSONL, .gz fine",
    "queries": "the topics: one file, or one per split ({dev = FILE, test = FILE}); TSV, JSONL, TREC, CLEF, "
    "NTCIR or HC4 (detected)",
    "query_fields": 'the topic fields that make a query, e.g. "title,desc" (default: title)',
    "qrels": "TREC qrels (qid 0 docid grade): one file, or one per split",
    "source_lang": "the queries' language (ISO 639-1, e.g. en)",
    "target_lang": "the documents' language (ISO 639-1)",
    "parallel": "a parallel corpus: id TAB source TAB target, or [source file, target file] aligned by line "
    "(needed for IBM Model 1, not with a table file)",
    "split": "with one queries file: fractions per split, e.g. {dev = 0.5, test = 0.5} (default: all test)",
    "split_seed": "the seed of that split (default 0)",
    "name": "the collection's name in reports (default: the experiment's)",
}
SOURCES = "sources.json"


@dataclass
class PlainCollection:
    """The plain files of one collection, checked (:meth:`from_dict`), then read (:meth:`read`) or written as a
    collection folder (:meth:`write`)."""

    name: str
    documents: Path
    queries: dict[str, Path] | Path
    qrels: dict[str, Path] | Path
    source_lang: str
    target_lang: str
    parallel: tuple[Path, ...] = ()
    split: dict[str, float] | None = None
    split_seed: int = 0
    query_fields: str | None = None
    named: bool = True  # False: no name given (clirkit collection without -o or --name): the notes name the files

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        where: str,
        base: Path | None = None,
        label: Callable[[str], str] = str,
        name: str | None = "collection",
    ) -> "PlainCollection":
        """Check the keys (:data:`KEYS`) of ``data``; paths are relative to ``base`` (None: the current folder).
        ClirkitError ``where: KEY ...`` (``label(key)``: the key as the user wrote it) otherwise. ``name``: the
        name when ``data`` gives none; None: the collection has no name (its notes name its files, its data the
        documents file's stem)."""
        from clirkit.formats.topics import split_field_names
        from clirkit.languages import check_language

        def bad(key: str, expected: str, value) -> ClirkitError:
            return ClirkitError(f"{where}{label(key)} must be {expected}, got {cut_repr(value, 60)}")

        unknown = [k for k in data if k not in KEYS]
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], KEYS, n=1)
            hint = f"did you mean {label(close[0])!r}?; " if close else ""
            raise ClirkitError(
                f"{where}unknown key {label(unknown[0])!r} ({hint}the keys: {', '.join(map(label, KEYS))})"
            )
        for key in ("documents", "queries", "qrels", "source_lang", "target_lang"):
            if key not in data:
                raise ClirkitError(f"{where}{label(key)} is missing: give {KEYS[key]}")

        def path(key: str, value) -> Path:
            if not isinstance(value, (str, os.PathLike)) or not str(value).strip() or "\0" in str(value):
                raise bad(key, "a file name", value)
            found = Path(value) if base is None or Path(value).is_absolute() else base / value
            if found.is_dir():
                raise ClirkitError(f"{where}{label(key)}: {found}: is a folder; give a file")
            if found.exists() and not found.is_file():  # a pipe (<(...)), a FIFO, /dev/null
                raise ClirkitError(
                    f"{where}{label(key)}: {found}: is not a regular file (a pipe or a device), and a collection's "
                    f"files are read more than once: save it to a file and give that"
                )
            if not found.is_file():
                relative = f" (a relative path is read from {base})" if found != Path(value) else ""
                raise ClirkitError(f"{where}{label(key)}: {found}: no such file: check the path{relative}")
            return found

        def by_split(key: str):
            value = data[key]
            if isinstance(value, Mapping):
                if not value or any(s not in SPLITS for s in value):
                    raise bad(key, f"a file, or a table of files by split ({', '.join(SPLITS)})", value)
                if "test" not in value:
                    raise ClirkitError(
                        f"{where}{label(key)} names no test split (the split an experiment reports): give test = FILE"
                    )
                return {s: path(f"{key}.{s}", value[s]) for s in SPLITS if s in value}
            return path(key, value)

        languages = {}
        for key in ("source_lang", "target_lang"):
            try:
                languages[key] = check_language(data[key])
            except ValueError as exc:
                raise ClirkitError(f"{where}{label(key)}: {exc}") from None
        queries, qrels = by_split("queries"), by_split("qrels")
        if isinstance(qrels, dict) and not (isinstance(queries, dict) and set(qrels) == set(queries)):
            raise ClirkitError(
                f"{where}{label('qrels')} by split needs {label('queries')} by the same splits "
                f"({', '.join(qrels)}); or give one qrels file for every split"
            )
        parallel = data.get("parallel")
        if parallel is None:
            pair: tuple[Path, ...] = ()
        elif isinstance(parallel, list) and len(parallel) == 2:
            pair = (path("parallel", parallel[0]), path("parallel", parallel[1]))
        elif isinstance(parallel, list):
            raise bad("parallel", "a file (id TAB source TAB target), or two files (source, target)", parallel)
        else:
            pair = (path("parallel", parallel),)
        split = _split_rule(data.get("split"), queries, where, label, bad)
        seed = data.get("split_seed", 0)
        if not int64_at_least(seed, 0):  # as --split-seed and an experiment's seed
            raise bad("split_seed", "an integer >= 0 (at most 2**63 - 1)", seed)
        if "split_seed" in data and split is None:  # a seed of no split would do nothing
            raise ClirkitError(
                f"{where}{label('split_seed')} is read only with {label('split')}: give {label('split')} "
                f"(one queries file divided by split), or drop {label('split_seed')}"
            )
        fields = data.get("query_fields")
        if fields is not None:
            try:
                fields = ",".join(split_field_names(fields))
            except ClirkitError as exc:
                raise ClirkitError(f"{where}{label('query_fields')}: {exc}") from None
        given = data.get("name", name)
        named = given is not None
        if not named:
            given = re.sub(r"[^\w.+-]+", "-", Path(str(data["documents"])).name.split(".")[0]) or "plain"
        if not isinstance(given, str) or not re.fullmatch(r"[\w.+-]+", given):
            raise bad("name", "a name (letters, digits, '.', '_', '+' or '-')", given)
        return cls(
            name=given,
            documents=path("documents", data["documents"]),
            queries=queries,
            qrels=qrels,
            parallel=pair,
            split=split,
            split_seed=seed,
            query_fields=fields,
            named=named,
            **languages,
        )

    def files(self) -> list[Path]:
        """Every file it reads."""

        def listed(value):
            return list(value.values()) if isinstance(value, dict) else [value]

        return [self.documents, *listed(self.queries), *listed(self.qrels), *self.parallel]

    def record(self) -> dict:
        """The settings and the SHA-256 of every file: what makes the folder (``sources.json``)."""
        from clirkit.fileio import display_name, file_digest

        def shown(value):  # (a name's undecodable bytes as \xNN: JSON of valid text)
            return {s: display_name(p) for s, p in value.items()} if isinstance(value, dict) else display_name(value)

        return {
            "name": self.name,
            "source_lang": self.source_lang,
            "target_lang": self.target_lang,
            "documents": shown(self.documents),
            "queries": shown(self.queries),
            "qrels": shown(self.qrels),
            "parallel": [shown(p) for p in self.parallel],
            "split": self.split,
            "split_seed": self.split_seed,
            "query_fields": self.query_fields,
            "sha256": {shown(p): file_digest(p) for p in self.files()},
        }

    def read(self, *, quiet: bool = True):
        """Every file read and checked, the queries split: a
        :class:`~clirkit.datasets._store.VariantData`."""
        from clirkit.datasets._store import VariantData
        from clirkit.formats import read_documents, read_qrels
        from clirkit.progress import say

        docids, texts = read_documents(self.documents)
        queries = self._split_queries()
        unknown: set[str] = set()
        if isinstance(self.qrels, dict):
            qrels = {s: read_qrels(self.qrels[s]).subset(queries[s]) for s in queries}
        else:
            judged = read_qrels(self.qrels)
            qrels = {s: judged.subset(queries[s]) for s in queries}
            unknown = set(judged.query_ids) - set().union(*map(set, queries.values()))
        known_docs = set(docids)
        for source in dict.fromkeys(self._listed(self.qrels)):  # each file once, its judgments of the queries
            check_judged_documents(
                source, [qrels[s] for s in queries if self._qrels_file(s) == source], known_docs, self.documents
            )
        if unknown:
            say(
                f"{self.qrels}: {counted(len(unknown), 'judged query', 'judged queries')} "
                f"{'is' if len(unknown) == 1 else 'are'} not in the queries (e.g. {sorted(unknown)[0]}): left out",
                quiet=quiet,
            )
        for s in queries:
            source = self._qrels_file(s)
            if not len(qrels[s]):
                raise ClirkitError(
                    f"{source}: judges none of the {len(queries[s])} {s} queries (e.g. "
                    f"{next(iter(queries[s]))}): are these the qrels of those topics?"
                )
            unjudged = len(set(queries[s]) - set(qrels[s].query_ids))
            if unjudged:
                say(
                    f"{self.name if self.named else source}: {unjudged} of the {len(queries[s])} {s} queries "
                    f"{'has' if unjudged == 1 else 'have'} no judgment (trec_eval leaves them out)",
                    quiet=quiet,
                )
        self._say_empty(queries)
        ids, sources, targets = self._parallel()
        self._say_languages(texts, queries, sources, targets)
        from clirkit.fileio import display_name

        description = (  # (a name's undecodable bytes written as \xNN)
            f"plain files: documents {display_name(self.documents.name)}, queries "
            f"{', '.join(display_name(p.name) for p in self._listed(self.queries))}, qrels "
            f"{', '.join(display_name(p.name) for p in self._listed(self.qrels))}"
        )
        return VariantData(
            name=self.name,
            variant="standard",
            source_lang=self.source_lang,
            target_lang=self.target_lang,
            description=description,
            docids=docids,
            doc_texts=texts,
            pair_ids=ids,
            pair_sources=sources,
            pair_targets=targets,
            queries=queries,
            qrels=qrels,
        )

    def _say_empty(self, queries: dict[str, dict[str, str]]) -> None:
        """Say on stderr (``--quiet`` too) how many queries of each split have no text: judged, they find nothing
        and score 0, with no other sign."""
        from clirkit.progress import say

        for split, topics in queries.items():
            empty = [q for q, text in topics.items() if not text.strip()]
            if empty:
                where = self.name if self.named else ", ".join(map(str, self._listed(self.queries)))
                say(
                    f"{where}: {len(empty)} of the {len(topics)} {split} queries {'is' if len(empty) == 1 else 'are'} "
                    f"empty (e.g. {empty[0]}): {'it finds' if len(empty) == 1 else 'they find'} nothing and "
                    "score 0"
                )

    def _say_languages(self, texts, queries, sources, targets) -> None:
        """Say on stderr (``--quiet`` too) when the documents, the queries or a side of the parallel text read as
        another language than the one given (:func:`clirkit.langcheck.language_notice`: swapped source_lang and
        target_lang)."""
        from clirkit.langcheck import say_language_notices

        of = {  # what each side is of: the collection, or (none named) the files the user gave
            "documents": self.documents,
            "queries": ", ".join(map(str, self._listed(self.queries))),
            "source": self.parallel[0] if self.parallel else None,
            "target": self.parallel[-1] if self.parallel else None,
        }
        of = {k: self.name for k in of} if self.named else of
        sides = (
            (texts, self.target_lang, f"the documents of {of['documents']}"),
            ([t for s in queries.values() for t in s.values()], self.source_lang, f"the queries of {of['queries']}"),
            (sources, self.source_lang, f"the parallel text's source side of {of['source']}"),
            (targets, self.target_lang, f"the parallel text's target side of {of['target']}"),
        )
        say_language_notices(sides)

    def _qrels_file(self, split: str) -> Path:
        """The qrels file judging ``split``'s queries."""
        return self.qrels[split] if isinstance(self.qrels, dict) else self.qrels

    @staticmethod
    def _listed(value) -> list[Path]:
        return list(value.values()) if isinstance(value, dict) else [value]

    def _read_queries(self, path: Path) -> dict[str, str]:
        from clirkit.formats import read_queries

        return read_queries(path, fields=self.query_fields, lang=self.source_lang)

    def _split_queries(self) -> dict[str, dict[str, str]]:
        """``{split: {qid: text}}``: one file per split (a query in two is an error), or one file split by the
        rule (or all test)."""
        import numpy as np

        if isinstance(self.queries, dict):
            out: dict[str, dict[str, str]] = {}
            seen: dict[str, tuple[str, Path]] = {}
            for s, path in self.queries.items():
                out[s] = self._read_queries(path)
                for qid in out[s]:
                    if qid in seen:
                        raise ClirkitError(
                            f"{path}: query {qid} is also in {seen[qid][1]} (the {seen[qid][0]} "
                            f"split): a query belongs to one split"
                        )
                    seen[qid] = (s, path)
            return out
        topics = self._read_queries(self.queries)
        if self.split is None:
            return {"test": topics}
        ids = sorted(topics)
        order = np.random.default_rng(self.split_seed).permutation(len(ids))
        cuts = np.round(np.cumsum(list(self.split.values())) * len(ids)).astype(int)
        chosen, start = {}, 0
        for s, end in zip(self.split, cuts.tolist()):
            members = {ids[i] for i in order[start:end].tolist()}
            if not members:
                rule = ", ".join(f"{k} = {f}" for k, f in self.split.items())
                fraction, n = self.split[s], len(ids)
                raise ClirkitError(
                    f"{self.queries}: the split {{{rule}}} leaves the {s} split empty: {fraction} of "
                    f"the {n} queries rounds to none; give {s} a larger fraction (one query is "
                    f"{1 / n:.2g} of them), or give the {s} queries a file of their own"
                )
            chosen[s] = {q: t for q, t in topics.items() if q in members}  # file order in each split
            start = end
        return chosen

    def _parallel(self) -> tuple[list[str], list[str], list[str]]:
        """``(ids, sources, targets)`` of the parallel corpus (none: empty lists). ClirkitError ``FILE: ...`` for
        two files of different line counts, and for a corpus with no pair holding text (every line empty on both
        sides: an empty pair is no pair; IBM Model 1 would learn nothing)."""
        from clirkit.datasets.parallel import read_parallel
        from clirkit.fileio import iter_lines

        if not self.parallel:
            return [], [], []
        if len(self.parallel) == 1:
            ids, sources, targets = read_parallel(self.parallel[0])  # (no line: refused there)
            if not any(a.strip() or b.strip() for a, b in zip(sources, targets)):
                raise ClirkitError(
                    f"{self.parallel[0]}: no sentence pair: the source and target of its "
                    f"{counted(len(ids), 'line')} are empty; check the path (a parallel file holds id TAB source "
                    f"TAB target lines)"
                )
            return ids, sources, targets
        sides = [[text.replace("\t", " ") for _, text in iter_lines(p, skip_blank=False)] for p in self.parallel]
        if len(sides[0]) != len(sides[1]):
            raise ClirkitError(
                f"{self.parallel[0]} has {len(sides[0])} lines but {self.parallel[1]} has "
                f"{len(sides[1])}: the two sides of a parallel corpus are aligned line by line"
            )
        if not any(a.strip() or b.strip() for a, b in zip(*sides)):
            held = f"{counted(len(sides[0]), 'empty line')} each" if sides[0] else "no line"
            raise ClirkitError(
                f"{self.parallel[0]}: no sentence pair: it and {self.parallel[1]} hold {held}; check the paths "
                f"(the two sides of a parallel corpus, one sentence a line)"
            )
        return [str(i + 1) for i in range(len(sides[0]))], sides[0], sides[1]

    def write(self, folder: str | os.PathLike[str], *, quiet: bool = True, record: dict | None = None) -> dict:
        """Read the files and write them into ``folder`` as a collection folder with ``sources.json``; returns the
        manifest (its counts). Nothing is written if a file is bad."""
        from clirkit.datasets._store import write_variant
        from clirkit.fileio import atomic_writer

        data = self.read(quiet=quiet)
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        with atomic_writer(folder / SOURCES) as out:
            out.write(json.dumps(record or self.record(), indent=1, sort_keys=True) + "\n")
        return write_variant(data, folder, compress=False)


def _split_rule(split, queries, where: str, label: Callable[[str], str], bad) -> dict[str, float] | None:
    """The ``split`` key of a [collection] table: fractions of its one queries file by split, summing to 1, with a
    test split (None: no rule). ``bad(key, expected, value)`` makes the error of a value of the wrong kind."""
    if split is None:
        return None
    if isinstance(queries, dict):
        raise ClirkitError(
            f"{where}{label('split')} divides one queries file; queries given by split need no split rule"
        )
    problem = _split_problem(split)
    if problem is not None:
        expected = (
            f"fractions of the queries by split summing to 1, with a test split, each split one of "
            f"{', '.join(SPLITS)} (e.g. {{dev = 0.5, test = 0.5}})"
        )
        raise ClirkitError(f"{bad('split', expected, split)}: {problem}")
    return {s: float(split[s]) for s in SPLITS if s in split}


def _split_problem(split) -> str | None:
    """What is wrong with a split rule (a mapping of split name -> fraction of the queries), first problem
    first, or None when it is right: fractions in (0, 1] summing to 1, names among :data:`SPLITS`, a test
    split."""
    if not isinstance(split, Mapping) or not split:
        return "give a table of fractions by split"
    for name, fraction in split.items():
        if name not in SPLITS:
            return f"{cut_repr(name, 30)} is not a split (the splits: {', '.join(SPLITS)}, in lower case)"
        if not isinstance(fraction, (int, float)) or isinstance(fraction, bool) or math.isnan(fraction):
            return f"the fraction of {name!r}, {cut_repr(fraction, 30)}, is not a number"
        if fraction <= 0:
            return f"the fraction of {name!r} is {fraction:g}: give each split a fraction > 0, or leave it out"
        if fraction > 1:
            return f"the fraction of {name!r} is {fraction:g}, over 1"
    if not math.isclose(sum(split.values()), 1.0):
        return f"the fractions sum to {sum(split.values()):g}, not 1"
    if "test" not in split:
        return "there is no test split"
    return None
