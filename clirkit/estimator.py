"""The contract of every way of making a run (DESIGN.md, "Systems and experiments").

A *system* has its hyper-parameters and their defaults in ``__init__`` (scikit-learn's estimator
convention: ``get_params``/``set_params``, and ``sklearn.base.clone`` works on it), declares their constraints
once in ``_parameter_constraints`` (scikit-learn's vocabulary, :mod:`clirkit.constraints`; checked by
:meth:`System.check_params` at ``fit``, with messages naming the parameter, the allowed range and the value),
learns in ``fit`` (returns self; learned state in attributes ending with ``_``) and makes runs with ``search(topics)
-> Run``. The command-line verbs and the experiment runner only build systems and call them, so the same settings
give the same run whichever way it was asked for.

One call fits every system: ``system.fit(resources)``, where :class:`Resources` holds what any system may read
(documents, index, translation tables, topics and qrels by split, the documents each query must not return, known-item
pairs of a parallel corpus, the runs of other systems) and each system takes what it needs. It is the only ``fit``
(``DT().fit(Resources(index=ix, table=t))``): anything else is a one-line ClirkitError. Beside ``fit`` and ``search``, a
system tells the experiment runner what it needs to record and report, so the runner has no branch on a system's kind:

- ``inputs(resources)``: a JSON record of what ``fit`` reads (beyond the parameters): a rerun whose
  record is unchanged reuses the system's runs and model;
- ``keeps_model``: True when fitting is worth saving (``save``) and reading back (``restore(path,
  resources)``, the one load) on a rerun;
- ``notes(name)`` and ``curves(name)``: lines and training curves for the report;
- ``params_from(resources, given)``: parameters an experiment sets when its file does not (languages, seed);
- ``file_keys`` and ``system_keys``: the keys of an experiment file's system that are not parameters (the
  table files a DT or PSQ reads) and the parameters that name other systems (a boosted ranker's ``base``,
  a fusion's ``systems``); ``python_only``: parameters an experiment file does not take (a file key stands
  for them: a run system's ``run`` is its ``file``);
- ``check_options(options)`` when the file is read, ``check_inputs(resources)`` when the runner builds the system;
- ``search_split(resources, split, packed=)``: a split's run (a fusion fuses its systems' runs; packed: the runner's).

Every system's ``search`` takes the queries in any form a user has them in
(:func:`clirkit.topicforms.as_topics`: a text, a list of texts, a ``{qid: text}`` dict, a DataFrame with ``qid``
and ``query`` columns, ir_datasets query namedtuples), and its own ``search`` receives them as ``{qid: text}``:
:class:`System` wraps the ``search`` of each subclass, so no system repeats the conversion and a ``{qid: text}``
dict reaches it unchanged (the same run from every form); the wrapper checks ``depth``, ``excluded`` and ``tag`` too
(:mod:`clirkit.searchoptions`).
"""

from __future__ import annotations

import copy
import functools
import inspect
import os
from typing import Any, Mapping, TypeVar

from clirkit.errors import ClirkitError, ClirkitTypeError
from clirkit.givenpaths import read_if_path
from clirkit.parameters import Parameters
from clirkit.searchoptions import checked_search_options
from clirkit.searchoptions import drop_excluded as drop_excluded  # where it was first, for code importing it here
from clirkit.topicforms import as_topics

DEPTH = 1000  # results per query of every system's search
SYSTEM_KIND = "clirkit-system"
SYSTEM_VERSION = 1
_R = TypeVar("_R", bound="Resources")


class Resources:
    """What a system's ``fit(resources)`` may read; each system takes what it needs (module docstring).

    Args:
        documents: the searched documents (:class:`~clirkit.documents.Documents` or ``(docids, texts)``).
        index: the target-language index (:class:`~clirkit.retrieval.index.Index` or a sharded one).
        table, table2: translation tables p(e|f) (PSQ interpolates the second with the first).
        topics, qrels: ``{split: {qid: text}}`` and ``{split: Qrels}``, splits named ``train``, ``dev``,
            ``test``; a split's given as a path (``os.PathLike``; a str: for topics, one written as a path,
            :func:`~clirkit.givenpaths.read_if_path`, another str being one query's text) are read, as an index is
            (topics in several languages, HC4's or CLEF's, in ``source_lang``).
        excluded: ``{split: {qid: docids}}``, documents a query must not return (e.g. its translation mate).
        known_items: ``(topics, qrels)`` made of a parallel corpus (a source sentence finds its aligned
            document), added to a boosted ranker's training tuples when its file says ``parallel_tuples``.
        reverse_table, reverse_table2: p(query-language word | document-language word), the tables of PSQ
            translating the documents (the second interpolated with the first); none over an index translated before.
        parallel: ``(source sentences, target sentences)``, the aligned parallel corpus (:meth:`parallel`).
        options: the experiment-file keys of one system that are not parameters (its table files).
        source_lang, target_lang, seed, quiet, jobs: the languages, the seed, progress and worker processes.
        analyzers: ``(queries' analyzer, documents' analyzer)`` of a system that analyzes text itself (a boosted
            ranker, SCS); None: clirkit's defaults of the languages (:meth:`analyzers`).
        candidates: a first-stage run over the training topics whose top documents a query does not judge
            relevant are a boosted ranker's negatives (standalone boosting, :meth:`candidates`).
        query_vectors, doc_vectors: ``(words, vectors)`` that start SCS's query and document embeddings
            (:func:`~clirkit.scs.encoding.read_word_vectors`; :meth:`word_vectors`).
        records: ``{name: JSON record}`` of what made values given here, returned by :meth:`record` (e.g.
            ``{"base": {"runs": [paths]}}``: the files of a boosted ranker's base run, kept in its model).

    This class holds values given in Python. The experiment runner's subclass makes each value on first use
    from the collection and the experiment file, keeps it for every system, keeps the runs it made, and says
    what made each value (:meth:`record`).
    """

    def __init__(
        self,
        *,
        documents=None,
        index=None,
        table=None,
        table2=None,
        topics: Mapping[str, Mapping[str, str]] | None = None,
        qrels: Mapping[str, Any] | None = None,
        excluded: Mapping[str, Mapping[str, set[str]]] | None = None,
        known_items=None,
        options: Mapping[str, Any] | None = None,
        source_lang: str | None = None,
        target_lang: str | None = None,
        seed: int = 0,
        quiet: bool = True,
        jobs: int = 1,
        reverse_table=None,
        parallel=None,
        reverse_table2=None,
        analyzers: tuple | None = None,
        candidates=None,
        query_vectors=None,
        doc_vectors=None,
        records: Mapping[str, dict] | None = None,
    ) -> None:
        self._documents, self._index = documents, index
        self._analyzers, self._candidates = analyzers, candidates
        self._vectors = {"query": query_vectors, "doc": doc_vectors}
        self._records = dict(records or {})
        self._tables = dict(table=table, table2=table2, reverse=reverse_table, reverse2=reverse_table2)  # views share
        self._parallel = parallel
        for name, given in (("topics", topics), ("qrels", qrels)):
            if given is not None and not isinstance(given, Mapping):
                raise ClirkitTypeError(
                    f"{name} must map each split to its {name} (e.g. {{'test': ...}}), got {type(given).__name__}"
                )
        self._topics = {
            s: dict(as_topics(read_if_path(t, "queries", source_lang), what=f"{s} topics"))
            for s, t in (topics or {}).items()
        }
        self._qrels = {s: read_if_path(q, "qrels") for s, q in (qrels or {}).items()}
        self._excluded = {s: dict(e) for s, e in (excluded or {}).items()}
        self._known_items = known_items
        self.options = dict(options or {})
        self.written: frozenset[str] = frozenset()  # one system's keys its experiment file writes (:meth:`for_system`)
        self.source_lang, self.target_lang = source_lang, target_lang
        self.seed, self.quiet, self.jobs = seed, quiet, jobs

    def _missing(self, what: str, example: str) -> ClirkitError:
        return ClirkitError(f"the resources have no {what} (give {example})")

    @property
    def splits(self) -> list[str]:
        """The splits with topics, e.g. ``["train", "dev", "test"]``."""
        return list(self._topics)

    def documents(self):
        """The searched documents, as :class:`~clirkit.documents.Documents`."""
        from clirkit.documents import Documents

        if self._documents is None:
            raise self._missing("documents", "documents=(docids, texts)")
        self._documents = Documents.of(self._documents)
        return self._documents

    def index(self):
        """The target-language index (a path is opened once: :func:`~clirkit.retrieval.shards.as_index`)."""
        from clirkit.retrieval.shards import as_index

        if self._index is None:
            raise self._missing("index", "index=Index...")
        self._index = as_index(self._index)
        return self._index

    def analyzer(self, lang: str):
        """The analysis of text in ``lang`` (an :class:`~clirkit.analysis.Analyzer`): clirkit's defaults here,
        the experiment file's ``[analysis]`` in the runner's subclass."""
        from clirkit.analysis import Analyzer

        return Analyzer(lang)

    def analyzers(self, langs: tuple[str, str] | None = None) -> tuple:
        """``(query analyzer, document analyzer)``: those given (``analyzers``), else :meth:`analyzer` of the source
        and target languages (``langs``: the languages when the resources have none, e.g. a system's own)."""
        if self._analyzers is not None:
            return tuple(self._analyzers)
        source, target = self.source_lang, self.target_lang
        if langs is not None:
            source, target = source or langs[0], target or langs[1]
        if source is None or target is None:
            raise self._missing("languages", "source_lang=..., target_lang=...")
        return self.analyzer(source), self.analyzer(target)

    def analysis_record(self) -> dict:
        """``{"analysis": {"source": ..., "target": ...}}`` when :meth:`analyzers` are not clirkit's defaults,
        else ``{}``: part of the record of a system that analyzes text itself (a boosted ranker, SCS), so that
        a change of ``[analysis]`` makes it again and records made before it stay valid."""
        from clirkit.analysis import Analyzer

        if all(a.to_dict() == Analyzer(a.lang).to_dict() for a in self.analyzers()):
            return {}
        return {"analysis": self.analysis()}

    def analysis(self) -> dict:
        """``{"source": ..., "target": ...}``: the settings of :meth:`analyzers` (``Analyzer.to_dict``)."""
        return {side: a.to_dict() for side, a in zip(("source", "target"), self.analyzers())}

    def table(self, key: str = "table"):
        """The translation table ``key``: ``"table"`` (ClirkitError when there is none, saying what to give), or
        ``"table2"``, ``"reverse2"`` (None when there is none)."""
        table = self._tables.get(key)
        if table is None and key == "table" and self._tables.get("reverse") is not None:
            raise ClirkitError(
                "the resources have no translation table: DT, QueryPSQ and PSQ translating the queries take "
                "table=... (a table into the documents' language); the reverse_table=... given translates the "
                "documents (DocPSQ, or PSQ with translate 'auto' or 'documents')"
            )
        if table is None and key == "table":
            hint = (
                "; a parallel corpus is not trained into tables here: train_table(...) makes one"
                if self._parallel
                else ""
            )
            raise self._missing(
                "translation table", f"table=..., or reverse_table=... to translate the documents{hint}"
            )
        return table

    def topics(self, split: str) -> dict[str, str]:
        """``{qid: text}`` of ``split``."""
        if split not in self._topics:
            raise self._missing(f"{split} topics", f"topics={{{split!r}: {{qid: text}}}}")
        return self._topics[split]

    def qrels(self, split: str):
        """The judgments of ``split``'s topics."""
        if split not in self._qrels:
            raise self._missing(f"{split} qrels", f"qrels={{{split!r}: Qrels}}")
        return self._qrels[split]

    def excluded(self, *splits: str) -> dict[str, set[str]]:
        """``{qid: docids}`` a query must not return, over ``splits`` (the ones there are)."""
        out: dict[str, set[str]] = {}
        for split in splits:
            out.update(self._excluded.get(split, {}))
        return out

    def known_items(self):
        """``(topics, qrels)`` of known-item queries made of the parallel corpus."""
        if self._known_items is None:
            raise self._missing("known-item pairs", "known_items=(topics, qrels)")
        return self._known_items

    def candidates(self):
        """The candidate run given (a :class:`~clirkit.run.Run` over the training topics), or None."""
        return self._candidates

    def word_vectors(self, side: str):
        """The ``(words, vectors)`` given to start the ``side`` (``"query"`` or ``"doc"``) embeddings, or None."""
        return self._vectors[side]

    def parallel(self) -> tuple[list[str], list[str]]:
        """``(source sentences, target sentences)``, aligned: the ones given, else the experiment collection's."""
        if self._parallel is not None:
            return self._parallel
        collection = getattr(self, "c", None)
        if collection is None:
            raise self._missing("parallel corpus", "parallel=(source sentences, target sentences)")
        return collection.parallel()

    def reverse_table(self):
        """p(query-language word | document-language word), the table of PSQ translating the documents: the one
        given, None over an index translated before (the experiment runner's trains one on the parallel corpus)."""
        if self._tables.get("reverse") is None and not self._translated_index():
            raise self._missing(
                "reverse table",
                "reverse_table=...: a table from the documents' language, e.g. clirkit.translation.train_table "
                "on the parallel corpus read the other way",
            )
        return self._tables["reverse"]

    def _translated_index(self) -> bool:
        return self._index is not None and getattr(self.index(), "translated", False)

    def check_table_files(self, *, reverse: bool = False, query_side=()) -> None:
        """That the system's table files translate from the queries' language into the documents' (``reverse``:
        the other way; ``query_side``: the keys that chose the queries, named in the message); nothing here (tables
        given in Python are objects, checked when fitted)."""

    def reverse_file(self, key: str = "table"):
        """The system's ``key`` file read as a table from the documents' language (a document-side PSQ's own table
        in an experiment file), or None: in Python, tables are given as objects."""
        return None

    def translates_documents(self) -> bool:
        """Whether ``PSQ(translate="auto")`` translates the documents with these resources: a reverse table or
        an index translated before was given, or (the experiment runner's) the table is IBM Model 1 on the
        collection's parallel corpus, which the runner trains the other way too, and there is no second table.
        A dictionary or a table file is a query-side table: then the queries are translated."""
        if self._tables.get("reverse") is not None or self._translated_index():
            return True
        if self.record("table2") is not None:
            return False
        record = self.record("table") or {}
        return bool(record) and "file" not in record and self.option("table") in (None, "ibm1")

    def reverse_record(self) -> dict | None:
        """A JSON record of what :meth:`reverse_table` is made from: the record of ``table = "ibm1"`` (the
        corpus, the analysis, the iterations), reversed; ``{}`` for values given in Python."""
        record = self.for_system({**self.options, "table": "ibm1"}).record("table")
        return {"reversed": record} if record else {}

    def searched_splits(self) -> list[str]:
        """The splits whose topics the system is searched on (its runs are made of): here every split with topics;
        the experiment runner's, the splits it makes runs of (and ``train`` for a system another learns from)."""
        return self.splits

    def query_ids(self) -> set[str]:
        """The ids of every query the collection has (the experiment runner's: of every split, before the dev and
        train samples), which a run may hold rows for."""
        return {q for split in self.splits for q in self.topics(split)}

    def docids(self) -> list[str] | None:
        """The searched documents' ids, or None when the resources have no documents (no run to check)."""
        return None if self._documents is None else self.documents().docids

    def option(self, key: str, default=None):
        """The system's experiment-file key ``key`` that is not a parameter (e.g. its ``table`` file)."""
        return self.options.get(key, default)

    def path(self, key: str) -> str | None:
        """The file the system's key ``key`` names (None: no such key): as given (the runner's: from its file)."""
        value = self.option(key)
        return None if value is None else str(value)

    def run(self, system: "System", split: str, *, packed: bool = False):
        """``system``'s run of ``split`` (the runner's: the one it made; ``packed``: the PackedRun it keeps)."""
        return system.search_split(self, split)

    def run_tag(self, system: "System") -> str | None:
        """The tag of ``system``'s runs here: None (its own) in Python, its name in the runner (as its kept runs)."""
        return None

    def record(self, what: str) -> dict | None:
        """A JSON record of what made the resource ``what`` (``index``, ``table``, ``table2``, ``train``,
        ``dev``), None when there is no such resource; values given in Python are not recorded: ``{}``, unless
        ``records`` gives theirs."""
        if what in self._records:
            return self._records[what]
        given = {"index": self._index, "table": self._tables["table"], "table2": self._tables["table2"]}
        if what in given:
            return {} if given[what] is not None else None
        return {} if what not in ("train", "dev") or what in self._topics else None

    def for_system(self: _R, options: Mapping[str, Any], written=()) -> _R:
        """The same resources (shared, not copied) with one system's ``options``, of the same class, and the keys
        its experiment file ``written`` (even at their defaults; none for values given in Python)."""
        view = copy.copy(self)
        view.options, view.written = dict(options), frozenset(written)
        return view


class System(Parameters):
    """Base class of DT, PSQ, the boosted ranker, SCS and fusions (see the module docstring). ``set_params`` that
    changes a parameter of a fitted system makes it unfitted (``search`` says to call ``fit`` first), so what it
    reports, saves and searches with are the same parameters; ``runtime_params`` (progress, workers) are kept."""

    default_tag = "run"
    keeps_model = False
    file_keys: dict[str, tuple[type, str]] = {}  # experiment-file keys that are not parameters: (type, what it is)
    system_keys: tuple[str, ...] = ()  # parameters that hold other systems (named in experiment files)
    python_only: tuple[str, ...] = ()  # parameters an experiment file does not take (a file key stands for them)
    reranks = False  # whether rerank re-scores given rows (a boosted ranker, SCS)
    searches_in_blocks = True  # a query's rows the same whatever the queries searched with it (SCS's: not bit for bit)
    fit_call = "fit(Resources(...))"  # what fit takes: said to a call of anything else, and before fit

    def __init_subclass__(cls, **kwargs) -> None:
        """A subclass's own ``search`` is wrapped to take any of :data:`~clirkit.topicforms.TOPIC_FORMS`
        (:func:`~clirkit.topicforms.as_topics`), and its own ``fit`` to say in one line that it takes one Resources
        when given more (``DT().fit(index, table)``, the form before)."""
        super().__init_subclass__(**kwargs)
        search = cls.__dict__.get("search")
        if search is not None and not hasattr(search, "takes_topics_of_any_form"):

            @functools.wraps(search)
            def search_any_topics(self, topics, *args, **kw):
                topics = as_topics(topics)
                return search(self, topics, *args, **checked_search_options(kw, topics))

            setattr(search_any_topics, "takes_topics_of_any_form", True)
            setattr(cls, "search", search_any_topics)  # setattr: mypy refuses a method assigned
        fit = cls.__dict__.get("fit")
        kinds = [p.kind for p in inspect.signature(fit).parameters.values()] if fit is not None else []
        if fit is not None and inspect.Parameter.VAR_POSITIONAL not in kinds:

            @functools.wraps(fit)
            def fit_one_resources(self, *args, **kw):
                if len(args) + len(kw) > 1:  # a form from before fit(resources) was the only fit
                    given = fit_given(args, kw)
                    raise ClirkitError(f"{type(self).__name__}.fit takes one Resources: {self.fit_call}, got {given}")
                return fit(self, *args, **kw)

            setattr(cls, "fit", fit_one_resources)

    def fit(self, resources: Resources) -> "System":
        """Learn from ``resources`` (what the system needs of them); returns self."""
        takes_resources(self, resources)
        raise NotImplementedError  # pragma: no cover

    @classmethod
    def params_from(cls, resources: Resources, given: Mapping[str, Any]) -> dict:
        """Parameters an experiment sets from its collection and settings when its file does not give them
        (``given``: the file's): none by default."""
        return {}

    def inputs(self, resources: Resources) -> dict:
        """A JSON record of what :meth:`fit` reads of ``resources``; nothing by default."""
        return {}

    def search_split(self, resources: Resources, split: str, *, tag: str | None = None, packed: bool = False):
        """The run of the topics of ``split``, without the documents they exclude; ``packed``: as a PackedRun made a
        block of queries at a time (:func:`~clirkit.packedrun.packed_in_blocks`: the same rows in bounded memory)."""
        takes_resources(self, resources, "search_split")
        topics, excluded, quiet = resources.topics(split), resources.excluded(split), resources.quiet
        if not packed:
            return self.search(topics, excluded=excluded, tag=tag, quiet=quiet)
        from clirkit.packedrun import packed_in_blocks

        block = None if self.searches_in_blocks else max(len(topics), 1)  # (else all at once, then packed)
        return packed_in_blocks(self.search, topics, excluded=excluded, tag=tag, quiet=quiet, block=block)

    def restore(self, path, resources: Resources) -> "System":
        """Take the learned state saved at ``path`` by :meth:`save` as this system's (the one load of the
        experiment runner, for systems that keep a model); returns self."""
        loaded = type(self).load(path, **{k: getattr(self, k) for k in self.system_keys})
        if loaded.get_params(deep=False) != self.get_params(deep=False):
            raise ClirkitError(f"{path}: saved with other hyper-parameters than this {type(self).__name__}'s")
        self.restore_state(loaded.learned_state())
        return self

    def notes(self, name: str) -> list[str]:
        """Lines on what was learned, for the report (``name``: the system's name there)."""
        return []

    def curves(self, name: str) -> dict[str, dict]:
        """Training curves for the report's figures: ``{title: {"curves": {label: (xs, ys)}, "xlabel": ...,
        "ylabel": ...}}``."""
        return {}

    def check_inputs(self, resources: "Resources") -> None:
        """Check what the system will read of ``resources`` before anything runs (the experiment runner calls it
        when it builds the system, e.g. that a table file translates the way the system reads it); nothing here."""

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Check the parameters against the experiment-file keys given that are not parameters (``file_keys``, e.g.
        whether a ``table2`` is there; ``system_keys``, e.g. whether a ``base`` is named), when the file is read;
        nothing by default."""

    def check_params(self) -> None:
        """Check every hyper-parameter against ``_parameter_constraints``; if one is off, an InvalidParameterError:
        a ClirkitError whose fields name the parameter, the system, the allowed values and the value."""
        self._validate_params()

    def search(
        self,
        topics: Mapping[str, str],
        *,
        depth: int = DEPTH,
        excluded: Mapping[str, set[str]] | None = None,
        tag: str | None = None,
        quiet: bool = True,
    ):
        """The run of ``topics`` (``{qid: text}``, or any form :func:`as_topics` takes: a text, a list of texts, a
        DataFrame with ``qid`` and ``query`` columns, ir_datasets queries): the top ``depth`` documents per query
        once the ``excluded`` documents of each query (``{qid: docids}``, e.g. the translation mates of a topical
        task) are left out, tagged ``tag`` (default: the system's name). The wrapper every subclass's ``search`` gets
        checks ``depth``, ``excluded`` and ``tag`` (:func:`~clirkit.searchoptions.checked_search_options`) and hands
        ``excluded`` on as :class:`~clirkit.searchoptions.Excluded`; a system ranks
        :func:`~clirkit.searchoptions.search_depth` documents and ends with
        :func:`~clirkit.searchoptions.drop_excluded` ``(run, excluded, depth)``. A ``depth`` beyond
        :data:`~clirkit.searchoptions.MAX_DEPTH` is that one (every document); a ``tag`` must be one a run file can
        hold (:func:`~clirkit.formats.ids.check_tag`)."""
        raise NotImplementedError  # pragma: no cover

    def rerank(self, topics, run, *, tag: str | None = None, quiet: bool = True):
        """The rows of ``run`` (a first stage's results for ``topics``, in any form :func:`as_topics` takes; the run
        a :class:`~clirkit.run.Run`, a DataFrame of ``qid``, ``docno`` and ``score`` or a run file's path)
        re-scored by this system and re-ranked, every row kept, tagged ``tag`` (default: the system's name).
        A system that re-ranks (``reranks``: a boosted ranker, SCS) gives :meth:`rerank_rows`; any other
        is a ClirkitError saying to use it as a first stage."""
        if not self.reranks:
            raise ClirkitError(
                f"a {type(self).__name__} cannot re-rank given results (a boosted ranker and SCS can): use it "
                f"as a first stage (search)"
            )
        topics = as_topics(topics)
        tag = checked_search_options({"tag": tag}, topics)["tag"]
        return self.rerank_rows(topics, as_run(run), tag=tag or self.default_tag, quiet=quiet)

    def rerank_rows(self, topics: Mapping[str, str], run, *, tag: str, quiet: bool):
        """:meth:`rerank` of a system that re-ranks, ``topics`` as ``{qid: text}``."""
        raise NotImplementedError  # pragma: no cover

    def rerank_uses_scores(self) -> bool:
        """Whether :meth:`rerank` reads the given rows' scores (a model boosted from a base adds beta times
        them); False: only which documents each query has."""
        return False

    def learned_state(self) -> dict:
        """JSON-ready learned state written by :meth:`save` (none by default: DT and PSQ learn nothing; their
        index and table are files of their own)."""
        return {}

    def restore_state(self, state: dict) -> None:
        """Set the learned state read back by :meth:`load`."""

    def save(self, path) -> None:
        """Write the system's class, hyper-parameters and learned state as ``.npz`` + JSON (no pickle).
        Nested systems (a fusion's members) are described, not saved: save them on their own."""
        from clirkit.npzio import save_npz

        save_npz(path, SYSTEM_KIND, SYSTEM_VERSION, {**self.describe(), "state": self.learned_state()}, {})

    @classmethod
    def load(cls, path, resources: Resources | None = None, **params) -> "System":
        """Read a system written by :meth:`save` (``params`` set the ones not saved, e.g. a fusion's
        ``systems``); it must be of this class. A system saved without learned state (DT, PSQ) is fitted on
        ``resources`` when given (else it needs ``fit(resources)``)."""
        from clirkit.npzio import load_npz

        header, _ = load_npz(path, SYSTEM_KIND, (SYSTEM_VERSION,), ())
        if header.get("system") != cls.__name__:
            raise ClirkitError(f"{path}: holds a {header.get('system')!r} system, not a {cls.__name__}")
        saved = header.get("params")
        if not isinstance(saved, dict):
            raise ClirkitError(f"{path}: corrupt system file (params is not an object)")
        given = {k: v for k, v in saved.items() if not _describes_systems(v)}
        try:
            system = cls(**{**given, **params})
        except TypeError as exc:
            raise ClirkitError(f"{path}: corrupt system file ({exc})") from None
        system.check_params()
        state = header.get("state") or {}
        system.restore_state(state)
        if resources is not None and not state:  # nothing learned (DT, PSQ): bound to the resources
            system.fit(resources)
        return system

    def describe(self) -> dict:
        """JSON-ready record of the system: its class and hyper-parameters (nested systems described too)."""
        return {"system": type(self).__name__, "params": jsonable(self.get_params(deep=False))}


def fit_given(args: tuple, keywords: Mapping[str, Any]) -> str:
    """What a ``fit`` given anything but one Resources was given, in words for its one-line error: ``a dict`` for
    one argument, else each argument's type and each keyword (``dict, Qrels, dev_topics=...``)."""
    given = [type(a).__name__ for a in args] + [f"{k}=..." for k in keywords]
    return ", ".join(given) if len(given) > 1 else f"a {given[0]}"


def takes_resources(system: System, given, call: str = "fit") -> Resources:
    """``given`` if it is :class:`Resources` (what ``fit`` and ``search_split`` take), else a one-line ClirkitError:
    ``DT.fit takes Resources: fit(Resources(index=..., table=...)), got Index`` (``system.fit_call``)."""
    if isinstance(given, Resources):
        return given
    raise ClirkitError(f"{type(system).__name__}.{call} takes Resources: {system.fit_call}, got {type(given).__name__}")


def _describes_systems(value) -> bool:
    """True for a :meth:`System.describe` record, or a non-empty list of them (nested systems in a file)."""
    if isinstance(value, list):
        return bool(value) and all(_describes_systems(v) for v in value)
    return isinstance(value, dict) and "system" in value and "params" in value


def jsonable(value):
    """``value`` with systems described, tuples as lists and numpy scalars as Python numbers."""
    if isinstance(value, System):
        return value.describe()
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def as_run(run):
    """``run`` as a :class:`~clirkit.run.Run`: a Run as it is, a DataFrame by :meth:`~clirkit.run.Run.from_frame`, a
    path by :func:`~clirkit.formats.read_run`; ClirkitError for anything else."""
    from clirkit.packedrun import PackedRun
    from clirkit.run import Run

    if isinstance(run, (Run, PackedRun)):
        return run
    if isinstance(run, (str, os.PathLike)):
        from clirkit.formats import read_run

        return read_run(run)
    if hasattr(run, "columns"):  # a pandas DataFrame (pandas is not imported for this)
        return Run.from_frame(run)
    raise ClirkitError(
        f"run: expected a clirkit Run, a DataFrame of qid, docno and score, or a run file's path, got "
        f"{type(run).__name__}"
    )
