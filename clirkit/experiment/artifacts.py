"""The runner's resources: made from the collection and the experiment file on first use, kept for every
system, saved in the output folder with the record of what made them (a rerun reads them back).

:class:`Artifacts` is the :class:`~clirkit.estimator.Resources` every system of an experiment is fitted
on. The values are shared by the per-system views (:meth:`~clirkit.estimator.Resources.for_system`, which
carry a system's ``table``/``table2``/``parallel_tuples`` keys), through one :class:`_Made` object.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from clirkit.errors import ClirkitError, counted
from clirkit.estimator import Resources
from clirkit.experiment.devsample import sample
from clirkit.experiment.packedruns import PackedRuns


def digest(values) -> str:
    """A short digest of strings (e.g. a split's query ids): what the records compare."""
    return hashlib.sha256("\n".join(values).encode("utf-8")).hexdigest()[:16]


def collection_record(c, *, contents: bool = False) -> dict:
    """A collection's name, variant, manifest digest, its files' sizes and mtimes (a folder edited since; with
    ``contents``, digests of their bytes: for a folder an experiment writes from its ``[collection]`` files, so
    that two fresh runs record the same) and the digest of the record of the plain files it was made of
    (:mod:`clirkit.datasets.plain`)."""
    manifest = (c.folder / "manifest.json").read_bytes()
    record = {"name": c.name, "variant": c.variant, "manifest": hashlib.sha256(manifest).hexdigest()[:16]}
    if hasattr(c, "file_states"):  # a collection folder, not ir_datasets'
        record["files"] = c.file_states(contents=contents)
    sources = c.folder / "sources.json"  # clirkit.datasets.plain.SOURCES
    if sources.is_file():
        record["sources"] = hashlib.sha256(sources.read_bytes()).hexdigest()[:16]
    return record


class _Made:
    """What the views of one experiment's resources share: the values made so far and the runs."""

    def __init__(self) -> None:
        self.values: dict[Any, Any] = {}
        self.runs: dict[str, PackedRuns] = {}  # split -> the runs of the systems, by name
        self.names: dict[int, str] = {}  # id(system) -> its name in the file


class Artifacts(Resources):
    """The resources of experiment ``exp`` on collection ``c``, made on first use into the folder of ``out``
    (a :class:`~clirkit.experiment.store.Store`), timed in ``steps``.

    Topics: ``train`` (the first ``train_queries``), ``dev`` (a seeded sample of ``dev_queries``), ``test``;
    qrels: the judgments of those topics (all of train's). Tables: a system's ``table``/``table2`` file, or
    ``"ibm1"``, or (no ``table``) the file's ``[table]``: its ``file``, else IBM Model 1 on the parallel
    corpus, trained once as ``table.npz`` (and the other way, for PSQ translating the documents, as
    ``table.reverse.npz``). The index (``index.npz``) is of the documents with the file's
    ``[analysis]``.
    """

    def __init__(self, exp, c, out, steps, quiet: bool) -> None:
        super().__init__(
            source_lang=c.source_lang, target_lang=c.target_lang, seed=exp.seed, quiet=quiet, jobs=exp.jobs
        )
        self.exp, self.c, self.out, self.steps = exp, c, out, steps
        self.where = exp.source or "experiment"
        self.collection = collection_record(c, contents=exp.plain is not None)
        self.made = _Made()
        self.searched: list[str] | None = None  # the splits a system's view is searched on (the runner's)

    def _once(self, key, make):
        if key not in self.made.values:
            self.made.values[key] = make()
        return self.made.values[key]

    # topics, qrels, exclusions ------------------------------------------------------------------

    @property
    def splits(self) -> list[str]:
        return list(self.c.splits)

    def topics(self, split: str) -> dict[str, str]:
        if split not in self.c.splits:
            raise ClirkitError(f"{self.c.name} has no {split} split (its splits: {', '.join(self.c.splits)})")

        def make():
            topics = self.c.queries(split)
            if split == "train" and self.exp.train_queries:
                return dict(list(topics.items())[: self.exp.train_queries])
            if split == "dev":
                return sample(topics, self.exp.dev_queries, seed=self.exp.seed)
            return topics

        return self._once(("topics", split), make)

    def qrels(self, split: str):
        if split == "train":
            return self.c.qrels(split)
        return self._once(("qrels", split), lambda: self.c.qrels(split).subset(self.topics(split)))

    def excluded(self, *splits: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for split in splits:
            if split in self.c.splits:
                out.update(self._once(("excluded", split), lambda: self.c.excluded(split)))
        return out

    # documents, index, tables -------------------------------------------------------------------

    def documents(self):
        from clirkit.documents import Documents

        return self._once("documents", lambda: Documents(*self.c.documents(), jobs=self.exp.jobs))

    def docids(self) -> list[str]:
        return self.documents().docids

    def query_ids(self) -> set[str]:
        """The ids of every query of the collection's splits (not only the samples tuned and trained on)."""
        return self._once("query_ids", lambda: {q for split in self.c.splits for q in self.c.queries(split)})

    def searched_splits(self) -> list[str]:
        """The splits the runner makes this system's runs of (``searched``, set on a system's view), else every
        split."""
        return list(self.searched) if self.searched is not None else self.splits

    def documents_read(self) -> bool:
        """Whether the documents were read (the report counts them then, else takes the manifest's count)."""
        return "documents" in self.made.values

    def analyzer(self, lang: str):
        """The analyzer of the file's ``[analysis]`` for language ``lang``."""
        from clirkit.analysis import Analyzer

        stop = self.exp.analysis.get("stopwords", "none")
        stemmer = self.exp.analysis.get("stemmer", "snowball")
        try:
            return Analyzer(
                lang,
                stemmer=None if stemmer == "none" else stemmer,
                stopwords=None if stop == "none" else stop,
                segmenter=self.exp.analysis.get("segmenter", "auto"),
                chinese_script=self.exp.analysis.get("chinese_script", "auto"),
            )
        except ClirkitError as exc:
            raise ClirkitError(f"{self.where}: [analysis]: {exc}") from None

    def _index_record(self) -> dict:
        return {
            "collection": self.collection,
            "lang": self.c.target_lang,
            "analyzer": self.analyzer(self.c.target_lang).to_dict(),
        }

    def index(self):
        return self._once("index", self._make_index)

    def _make_index(self):
        from clirkit.progress import say
        from clirkit.retrieval.index import Index

        path, record = self.out.folder / "index.npz", self._index_record()
        if self.out.fresh(path, record):
            return Index.load(path)
        with self.steps.time("index"):
            analyzer = self.analyzer(self.c.target_lang)
            documents = self.documents()
            say(f"indexing {counted(len(documents), 'document')}", quiet=self.quiet)
            index = Index.from_tokens(documents.docids, documents.tokens(analyzer, quiet=self.quiet), analyzer)
            index.save(path)
            self.out.remember(path, record)
        return index

    def path(self, key: str) -> str | None:
        """The file the system's key ``key`` names, relative to the experiment file's folder; ClirkitError naming
        the system's key when there is no such file."""
        given = self.option(key)
        if given is None:
            return None
        path = self._relative(given)
        self._check_file(f"{key} {given}", path)
        return path

    def _check_file(self, shown: str, path: str) -> None:
        """ClirkitError ``WHERE: <shown>: ...`` unless ``path`` is a file (a folder is said as such)."""
        if Path(path).is_dir():
            raise ClirkitError(f"{self.where}: {shown}: is a folder, expected a file")
        if not Path(path).is_file():
            raise ClirkitError(f"{self.where}: {shown}: no such file")
        self.out.check_outside(f"{self.where}: {shown}", path)

    def _table_file(self, given: str | None) -> str | None:
        """The table file ``given`` names (``"ibm1"``: none; None: ``[table] file``), relative to the file's folder."""
        if given in (None, "ibm1"):
            given = None if given == "ibm1" else self.exp.table.get("file")
        return None if given is None else self._relative(given)

    def _relative(self, given: str) -> str:
        """The path ``given`` in the experiment file, relative to the file's folder (as it is when absolute)."""
        from clirkit.experiment.systemchecks import relative

        return relative(given, self.exp.source)

    def _table_record(self, given: str | None) -> dict:
        """What a table is made from: a file, or IBM Model 1 on the parallel corpus (ClirkitError if there is none)."""
        from clirkit.fileio import file_digest

        path = self._table_file(given)
        fmt = self._table_format(path)
        if path is not None:
            self._check_file(f"table file {path}", path)
            column = self._score_column(path, fmt)
            return {
                "file": str(Path(path).resolve()),
                "sha256": file_digest(path),
                "format": fmt,
                **({"score_column": column} if column is not None else {}),
                "analysis": self.analysis(),
            }
        self._need_parallel(
            "IBM Model 1 trains on it; or give a table file: the system's table = FILE ([table] file = FILE too for "
            "a table of the queries; a table from the documents' language, as docpsq reads, is the system's only)"
        )
        return {
            "collection": self.collection,
            "iterations": int(self.exp.table.get("iterations", 5)),
            "analysis": self.analysis(),
        }

    def _score_column_given(self) -> int | None:
        """The system's ``score_column``, else ``[table]``'s, else None."""
        return self.option("score_column") or self.exp.table.get("score_column")

    def _score_column(self, path: str, fmt: str) -> int | None:
        """The ``score_column`` (the system's, else ``[table]``'s) that applies to the table file at ``path``: None
        unless it is a Moses phrase table."""
        column = self._score_column_given()
        if column is None:
            return None
        from clirkit.translation import format_of

        return column if format_of(path, fmt) == "phrase-table" else None

    def _check_score_column(self) -> None:
        """ClirkitError when a ``score_column`` is given and none of the system's table files is a phrase table."""
        if self._score_column_given() is None:
            return
        given = [self.option(key) for key in ("table", "table2") if key == "table" or self.option(key) is not None]
        files: list[str] = [p for p in map(self._table_file, given) if p is not None and Path(p).is_file()]
        if not any(self._score_column(p, self._table_format()) is not None for p in files):
            what = f"not to {', '.join(files)}" if files else "and the table is IBM Model 1's"
            raise ClirkitError(
                f"{self.where}: score_column applies to a table file that is a Moses phrase table, "
                f"{what} (remove score_column, or give the phrase table)"
            )

    def _need_parallel(self, why: str) -> None:
        if self.c.counts.get("parallel_pairs", 1) == 0:
            raise ClirkitError(f"{self.c.name} has no parallel corpus ([collection] parallel = ...): {why}")

    def table(self, key: str = "table"):
        given = self.option(key)
        if key != "table" and given is None:
            return None
        path = self._table_file(given)
        if path is None:
            return self._once("ibm1", self._trained_table)
        return self._file_table(path, reverse=False, key=key)

    def translates_documents(self) -> bool:
        """As :meth:`Resources.translates_documents`, and also, as ``clirkit psq --table FILE [--table2 FILE]``
        places the tables:

        - IBM Model 1 is the first table, and the ``table2`` file translates from the documents' language
          (:meth:`_second_from_documents`);
        - the ``table`` file translates from the documents' language into the queries' as its header or name says
          (its ``table2`` then too);
        - the ``table`` file is a Moses text table that says nothing, there is no ``table2``, and its words are
          the documents' (:meth:`_placed`)."""
        if super().translates_documents():
            return True
        given = self.option("table")
        if given in (None, "ibm1"):
            return self._second_from_documents()
        path = self._relative(given)
        made, _ = self._file_languages(path)
        if made is None and self._moses_without_languages(path):
            return self.option("table2") is None and self._placed(path) == "documents"
        return made == (self.c.target_lang, self.c.source_lang) and made[0] != made[1]

    def _second_from_documents(self) -> bool:
        """Whether the system's ``table2`` file translates from the documents' language into the queries': as its
        header or name says, or for a Moses text table that says nothing, as its words show (:meth:`_placed`, else
        :meth:`_placed_by_parallel`). IBM
        Model 1, trained both ways, is then the first table of PSQ translating the documents, as ``clirkit psq
        --table F2E --table2 FILE`` reads a second table from the documents' language."""
        second = self.option("table2")
        if second in (None, "ibm1"):
            return False
        path = self._relative(second)
        made, _ = self._file_languages(path)
        if made is None and self._moses_without_languages(path):
            return (self._placed(path) or self._placed_by_parallel(path)) == "documents"
        return made == (self.c.target_lang, self.c.source_lang) and made[0] != made[1]

    def _placed_by_parallel(self, path: str) -> str | None:
        """The side a Moses text table translates by the words of the parallel corpus' two sides, IBM Model 1's
        (:func:`~clirkit.tablefit.side_by_parallel`), when the index's alone do not tell."""
        from clirkit.tablefit import side_by_parallel

        analyzers = self.analyzer(self.c.source_lang), self.analyzer(self.c.target_lang)
        return self._once(
            ("parallel", path), lambda: side_by_parallel(self._moses_table(path), self.c.parallel(), analyzers)
        )

    def _moses_without_languages(self, path: str) -> bool:
        return Path(path).is_file() and self._says_no_languages(path, self._table_format())

    def _placed(self, path: str) -> str | None:
        """The side a Moses text table at ``path`` translates by its words (:func:`~clirkit.tablefit.side_by_words`),
        found once."""
        from clirkit.tablefit import side_by_words

        return self._once(("placed", path), lambda: side_by_words(self.index(), self._moses_table(path)))

    def _moses_table(self, path: str):
        """The Moses text table at ``path``, read once, without languages (its file says none)."""
        from clirkit.translation import load_table

        return self._once(("moses", path), lambda: load_table(path, "moses"))

    def _table_format(self, path: str | None = None) -> str:
        from clirkit.translation.tableio import format_for

        return format_for(path, self.option("table_format") or self.exp.table.get("format", "auto"))

    @staticmethod
    def _says_no_languages(path: str, fmt: str) -> bool:
        """Whether the table file at ``path`` is a Moses lexical table (``e f p`` lines), whose file says nothing of its
        languages: the runner does not label it with the collection's (a table the other way round would be read
        as this way round)."""
        from clirkit.translation import format_of, guess_format

        try:
            return (guess_format(path)[0] if fmt == "auto" else format_of(path, fmt)) == "moses"
        except ClirkitError:  # the reader says what it cannot tell, when it reads the file
            return False

    def check_table_files(self, *, reverse: bool = False, query_side=()) -> None:
        """ClirkitError, before anything runs, when a table file the system reads (its ``table`` or ``table2``, or
        the file's ``[table] file`` for a table of the queries) translates another way than from the queries'
        language into the documents' (``reverse``: the other way): a clirkit npz table says so in its header, a
        dictionary, phrase table or PSQ table by the languages its file name gives (``es-en.dict``), which
        ``clirkit dt`` and ``psq`` read too, the message naming the keys ``query_side`` that only translating the
        queries reads (:func:`~clirkit.experiment.systemchecks.reversed_table_hint`); or when ``table2`` is the
        table again."""
        want = (self.c.source_lang, self.c.target_lang)
        want = (want[1], want[0]) if reverse else want
        tables: dict[str, str | None] = {}  # key -> the file read (None: IBM Model 1)
        for key in ("table", "table2"):
            given = self.option(key)
            if key == "table2" and given is None:
                continue
            label = key
            if given is None and not reverse and self.exp.table.get("file"):
                label, given = "[table] file", self.exp.table["file"]
            path = None if given in (None, "ibm1") else self._relative(given)
            tables[key] = path
            made, how = self._file_languages(path)
            if made is not None and None not in made and made != want:
                from clirkit.experiment.systemchecks import reversed_table_hint

                ibm1 = key == "table2" and self.option("table") in (None, "ibm1")
                hint = "" if reverse or made != want[::-1] else reversed_table_hint(given, made, ibm1, query_side)
                raise ClirkitError(
                    f"{label} {given}: translates {made[0]} -> {made[1]}{how}; this system reads a table from "
                    f"{want[0]} into {want[1]}{hint}"
                )
        if "table2" not in tables:
            return
        from clirkit.fileio import same_file

        first, second = tables.get("table"), tables["table2"]
        if first is None and second is None:
            raise ClirkitError(
                'table2 = "ibm1": the same table as table (IBM Model 1 on the parallel corpus): interpolating a '
                "table with itself changes nothing"
            )
        if first is not None and second is not None and same_file(first, second):
            raise ClirkitError(
                f"table2 {self.option('table2')}: the same file as table: interpolating a table with itself changes "
                "nothing"
            )

    def _file_languages(self, path: str | None) -> tuple[tuple | None, str]:
        """``((source, target), how)``: the languages a table file at ``path`` translates between, as far as they
        are known before it is read, with how they are known (``""``: its header): a clirkit npz table's header, or
        the name of a dictionary, phrase table or PSQ table (as :func:`~clirkit.translation.load_table` reads it
        without languages given); ``(None, "")`` when neither says."""
        from clirkit.npzio import header_of

        if path is None or not Path(path).is_file():
            return None, ""
        header = header_of(path)
        if header is not None:
            params = header.get("params") if header.get("kind") == "translation-table" else None
            if not isinstance(params, dict):
                return None, ""
            return (params.get("source_lang"), params.get("target_lang")), ""
        from clirkit.translation import guess_format, languages_from_name
        from clirkit.translation.dictionaries import DICTIONARY_FORMATS
        from clirkit.translation.dictionary_readers import freedict_index_path
        from clirkit.translation.weighted import WEIGHTED_FORMATS

        fmt = self._table_format()
        if fmt == "auto":
            try:
                fmt = guess_format(path)[0]
            except ClirkitError:  # the reader says what it cannot tell, when it reads the file
                return None, ""
        if fmt not in DICTIONARY_FORMATS + WEIGHTED_FORMATS:
            return None, ""  # a Moses lexical table's name says nothing of its languages
        named = languages_from_name(freedict_index_path(path) if fmt == "freedict" else path)
        return named, " (its file name says so)"

    def reverse_file(self, key: str = "table"):
        """The system's ``key`` file read as a table from the documents' language into the queries' (a
        document-side PSQ's own table), or None when the system names no file there."""
        given = self.option(key)
        path = None if given in (None, "ibm1") else self._table_file(given)
        return None if path is None else self._file_table(path, reverse=True, key=key)

    def _file_table(self, path: str, *, reverse: bool, key: str = "table"):
        """The table file ``path`` (the system's ``key``), read once, from the queries' language into the documents'
        (or the other way round, ``reverse``). A Moses text table, whose file says nothing of its languages, is
        labelled with the collection's only when its words agree (:meth:`_placed`); else a ClirkitError naming
        ``key``, as ``clirkit dt`` says."""
        fmt = self._table_format(path)
        column = self._score_column(path, fmt)
        source, target = self.c.source_lang, self.c.target_lang
        if reverse:
            source, target = target, source
        unlabelled = self._says_no_languages(path, fmt)

        def read():
            from clirkit.translation import TranslationTable, load_table

            if unlabelled:  # the table its side was placed by, labelled once its words agree
                placed, want = self._placed(path), "documents" if reverse else "queries"
                if placed not in (None, want):
                    raise ClirkitError(
                        f"{key} {path}: its words say it translates {'from' if placed == 'documents' else 'into'} "
                        f"the documents' language; this system reads a table "
                        f"{'from' if want == 'documents' else 'into'} it"
                    )
                read = self._moses_table(path)
                labels = {"source_lang": source, "target_lang": target}
                return TranslationTable(read.source_vocab, read.target_vocab, read.probs, {**read.params, **labels})
            analysis = self.exp.analysis
            return load_table(
                path,
                fmt,
                stemmer=self.analyzer(self.c.target_lang).stemmer,
                segmenter=analysis.get("segmenter", "auto"),
                chinese_script=analysis.get("chinese_script", "auto"),
                source_lang=source,
                target_lang=target,
                score_column=column,
            )

        return self._once(("table", path, fmt, column, reverse), read)

    def _trained_table(self):
        from clirkit.progress import say
        from clirkit.translation import load_table, save_table, train_table

        path, record = self.out.folder / "table.npz", self._table_record("ibm1")
        if self.out.fresh(path, record):
            return load_table(path)
        with self.steps.time("IBM Model 1"):
            source, target = self.c.parallel()
            analyzers = self.analyzer(self.c.source_lang), self.analyzer(self.c.target_lang)
            tokens = [
                analyzer.tokenize_many(texts, quiet=self.quiet, jobs=self.exp.jobs, desc=f"tokenizing {side}")
                for analyzer, texts, side in zip(analyzers, (source, target), ("source", "target"))
            ]
            say(
                f"training IBM Model 1 on {len(source)} sentence pairs, {record['iterations']} iterations",
                quiet=self.quiet,
            )
            table = train_table(*tokens, *analyzers, iterations=record["iterations"], quiet=self.quiet)
            save_table(table, path)
            self.out.remember(path, record)
        return table

    def reverse_table(self):
        """The table of PSQ translating the documents: the one given, else IBM Model 1 trained once from the
        documents' side of the parallel corpus to the queries' side into ``table.reverse.npz`` (reused on a
        rerun whose record, the forward table's, is unchanged), with the analysis and iterations of the
        forward table. A system's ``table`` file is a query-side table: refused."""
        if self._tables.get("reverse") is None:
            given = self.option("table")
            if given not in (None, "ibm1"):
                raise ClirkitError(
                    f"table = {given!r} translates the queries; translate = documents trains its table "
                    f"the other way on the parallel corpus (leave table out, or use clirkit psq "
                    f"--translate documents --table FILE with a table from the documents' language)"
                )
            self._tables["reverse"] = self._once("ibm1-reverse", self._trained_reverse)
        return self._tables["reverse"]

    def _trained_reverse(self):
        from clirkit.progress import say
        from clirkit.translation import load_table, save_table, train_table

        forward = self._table_record("ibm1")
        path, record = self.out.folder / "table.reverse.npz", {"reversed": forward}
        if self.out.fresh(path, record):
            return load_table(path)
        with self.steps.time("IBM Model 1, the other way"):
            source, target = self.c.parallel()
            queries, documents = self.analyzer(self.c.source_lang), self.analyzer(self.c.target_lang)
            tokens = [
                a.tokenize_many(texts, quiet=self.quiet, jobs=self.exp.jobs, desc=f"tokenizing {side}")
                for a, texts, side in ((documents, target, "target"), (queries, source, "source"))
            ]
            say(
                f"training IBM Model 1 the other way ({documents.lang} -> {queries.lang}) on {len(source)} "
                f"sentence pairs, {forward['iterations']} iterations",
                quiet=self.quiet,
            )
            table = train_table(*tokens, documents, queries, iterations=forward["iterations"], quiet=self.quiet)
            save_table(table, path)
            self.out.remember(path, record)
        return table

    def known_items(self):
        def make():
            from clirkit.boost.parallel import known_item_queries

            documents = self.documents()
            sources, targets = self.c.parallel()
            return known_item_queries(
                sources, self.c.parallel_ids(), documents.docids, target_texts=targets, doc_texts=documents.texts
            )

        return self._once("known_items", make)

    # records and runs ---------------------------------------------------------------------------

    def record(self, what: str) -> dict | None:
        if what == "index":
            return self._index_record()
        if what in ("table", "table2"):
            self._check_score_column()
            given = self.option(what)
            return None if what == "table2" and given is None else self._table_record(given)
        if what == "train":
            if self.option("parallel_tuples"):
                self._need_parallel("parallel_tuples adds its pairs to the training tuples")
            return {
                "queries": digest(self.topics("train")),
                "dev": digest(self.topics("dev") if "dev" in self.splits else {}),
                "parallel_tuples": bool(self.option("parallel_tuples", False)),
            }
        if what == "dev":
            return {"queries": digest(self.topics("dev"))} if "dev" in self.splits else None
        raise ValueError(f"no record of {what!r}")  # pragma: no cover

    def keep(self, name: str, system, split: str | None = None, run=None) -> None:
        """Remember that ``system`` is called ``name`` (and its run of ``split``)."""
        self.made.names[id(system)] = name
        if split is not None:
            self.made.runs.setdefault(split, PackedRuns())[name] = run

    def run_tag(self, system) -> str | None:
        return self.made.names.get(id(system))

    def run(self, system, split: str, *, packed: bool = False):
        name = self.made.names.get(id(system))
        runs = self.made.runs.get(split, PackedRuns())
        if name is not None and name in runs:
            return runs.packed(name) if packed else runs[name]
        return system.search_split(self, split)

    def runs(self, split: str) -> "PackedRuns":
        """``{name: Run}`` of ``split``, in the order they were made (each unpacked when read: :class:`PackedRuns`)."""
        return self.made.runs.get(split, PackedRuns())
