"""clirkit's systems as PyTerrier transformers (``pip install 'clirkit[pyterrier]'``; PyTerrier 1.x, no Java needed).

A clirkit system becomes a ``pt.Transformer`` and takes part in ``pt.Experiment`` and in pipelines (``>>``, ``%``,
``+``) like PyTerrier's own, as its plugins' engines do (pyterrier-dr's ``index.retriever()``)::

    import pyterrier as pt
    from pyterrier.measures import AP, nDCG, R
    from clirkit import pyterrier as cpt

    saved = cpt.from_experiment("demo", "clirkit-demo")       # the systems `clirkit demo` fitted, read back
    psq = saved.retriever("PSQ")                               # queries frame (qid, query) -> results frame
    rerank = psq >> pt.apply.doc_score(lambda row: row["score"] * 2)   # any PyTerrier re-ranker after PSQ
    pt.Experiment([saved.retriever("DT"), psq, saved.retriever("PSQ-Boost"), rerank],
                  saved.topics("test"), saved.qrels("test"), eval_metrics=[AP, nDCG@10, R@1000])

- :func:`retriever` (:class:`Retriever`): any fitted system (BM25 of the untranslated queries, DT, PSQ, PSQ-Boost,
  SCS, a fusion: ``clirkit.systems``) as a first stage: a queries frame (``qid``, ``query``) -> its run as a results
  frame (``qid``, ``docno``, ``score``, ``rank`` from 0, and the input's query columns). The run is the system's
  ``search``: the same run, byte for byte, as ``clirkit run``, the command and Python give.
- :func:`reranker` (:class:`Reranker`): a system that re-scores given (query, document) rows (a boosted ranker, as
  ``clirkit boost-rank --candidates``: with a model boosted from a base ranker, beta times the input's ``score``
  over its query's largest plus q^T W d; SCS, as ``clirkit scs-score --rerank``) re-ranks a results frame.
- A system that learns from queries and judgments (a boosted ranker, SCS, a fusion) is a ``pt.Estimator``:
  ``fit(topics_tr, qrels_tr, topics_va, qrels_va)`` (frames, as PyTerrier gives them; results frames too: their
  queries are taken) is ``system.fit(resources)`` with the training topics as the ``train`` split and the
  validation topics as ``dev`` (early stopping, beta, a fusion's weights), the documents, index and tables taken
  from the ``resources`` the transformer was built with (:class:`~clirkit.estimator.Resources`).
- :func:`from_experiment` reads back the systems an experiment folder holds (``clirkit run FILE -o FOLDER``): its
  index, table and models, and the runs a fusion is tuned on, through the experiment runner itself (nothing is
  trained or written; a stale or missing artifact is an error saying to run the experiment first).

Bad input (a frame without ``qid``/``query``, a row without a qid (NaN, None) or with a score that is not a number,
a results frame given to a first stage, a system that cannot re-rank) is a :class:`~clirkit.errors.ClirkitError` of
one line naming what is wrong (and the row).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from clirkit.errors import ClirkitError
from clirkit.estimator import DEPTH, Resources
from clirkit.run import Qrels, Run, check_frame_ids, frame_scores
from clirkit.topicforms import as_topics

INSTALL = "pip install 'clirkit[pyterrier]'"

try:
    import pandas as pd
    import pyterrier as pt
except ImportError as _missing:
    raise ClirkitError(
        f"clirkit.pyterrier needs PyTerrier and pandas ({_missing.name} is not installed): {INSTALL}"
    ) from None

__all__ = [
    "INSTALL",
    "ExperimentFolder",
    "Reranker",
    "Retriever",
    "from_experiment",
    "qrels_frame",
    "reranker",
    "retriever",
    "topics_frame",
]

RESULT_COLUMNS = ("qid", "docno", "score", "rank")
DOCUMENT_COLUMNS = ("docno", "docid", "score", "rank")  # of a results frame's rows, not of its queries


def topics_frame(topics) -> pd.DataFrame:
    """PyTerrier's queries frame (``qid``, ``query``) of ``topics`` in any form a system's ``search`` takes
    (``{qid: text}``, texts, ir_datasets queries; :func:`clirkit.topicforms.as_topics`), every qid a str (``{1: text}``
    gives ``"1"``), as :func:`qrels_frame` and a run's frame give theirs."""
    topics = as_topics(topics)
    return pd.DataFrame(
        {"qid": pd.Series(list(topics), dtype=object), "query": pd.Series(list(topics.values()), dtype=object)}
    )


def qrels_frame(qrels) -> pd.DataFrame:
    """PyTerrier's qrels frame (``qid``, ``docno``, ``label``) of :class:`~clirkit.run.Qrels` (what ``pt.Experiment``
    takes)."""
    return _as_qrels(qrels, "qrels").to_frame("pyterrier")


def _as_qrels(qrels, what: str) -> Qrels:
    """:class:`Qrels` of a Qrels, a qrels frame (PyTerrier's ``qid, docno, label``) or ir_datasets qrels records."""
    if isinstance(qrels, Qrels):
        return qrels
    if qrels is None:
        raise ClirkitError(f"{what}: no qrels given (a frame with qid, docno and label)")
    if hasattr(qrels, "columns"):
        return Qrels.from_frame(qrels)
    if isinstance(qrels, (str, bytes)) or not hasattr(qrels, "__iter__"):
        raise ClirkitError(
            f"{what}: expected Qrels, a frame with qid, docno and label, or ir_datasets qrels; got "
            f"{type(qrels).__name__}"
        )
    return Qrels.from_records(qrels)


def _learns(system) -> bool:
    """Whether ``system`` learns from queries and judgments: what its ``fit(resources)`` reads includes the train or
    dev split (:meth:`~clirkit.estimator.System.inputs`: a boosted ranker, SCS, a fusion; not BM25, DT or PSQ)."""
    _check_system(system)
    probe = Resources(topics={"train": {}, "dev": {}}, qrels={})
    try:
        return bool({"train", "dev"} & set(system.inputs(probe)))
    except ClirkitError:
        return True


def _check_system(system) -> None:
    from clirkit.estimator import System

    if not isinstance(system, System):
        raise ClirkitError(
            f"expected a clirkit system (clirkit.systems: BM25Search, DT, PSQ, Boost, SCS, Fusion), got "
            f"{type(system).__name__}"
        )


class Retriever(pt.Transformer):
    """A clirkit system as a first stage (see the module docstring; made by :func:`retriever`).

    Args:
        system: a fitted system (or, for a learner, one its :meth:`fit` will fit).
        resources: what a learner's ``fit`` reads beside the topics and qrels (documents, index, tables).
        depth: documents per query.
        excluded: ``{qid: docids}`` a query must not return (the experiment's, from :func:`from_experiment`).
        name: the name ``pt.Experiment`` shows and the run's tag (default: the system's, e.g. ``PSQ``).
        quiet: no progress on stderr.
    """

    needs: tuple[str, ...] = ("qid", "query")
    refuses: tuple[str, ...] = ("docno",)

    def __init__(
        self,
        system,
        *,
        resources: Resources | None = None,
        depth: int = DEPTH,
        excluded: Mapping[str, set[str]] | None = None,
        name: str | None = None,
        quiet: bool = True,
    ) -> None:
        _check_system(system)
        if name is not None:
            from clirkit.formats.ids import check_tag

            try:
                check_tag(name)
            except ClirkitError as exc:
                raise ClirkitError(f"name {name!r} is the tag of the transformer's runs: {exc}") from None
        self.system, self.resources, self.depth, self.excluded = system, resources, depth, excluded
        self.name, self.quiet = name or system.default_tag, quiet

    def __repr__(self) -> str:  # a learner's too: Retriever(PSQ-Boost), not LearningRetriever(...)
        return f"{'Reranker' if isinstance(self, Reranker) else 'Retriever'}({self.name})"

    def __call__(self, inp):
        """PyTerrier's call (a frame in, a frame out; a list of records in, a list out), a mapping refused: its
        keys would be taken for records."""
        if isinstance(inp, Mapping):
            raise ClirkitError(
                f"{self!r}: expected a DataFrame with columns {', '.join(self.needs)} or a list of such "
                f"records, got a {type(inp).__name__} (one query: [{{'qid': ..., 'query': ...}}]; one text: "
                f".search(text))"
            )
        return super().__call__(inp)

    def _check_input(self, inp) -> None:
        if not isinstance(inp, pd.DataFrame):
            raise ClirkitError(
                f"{self!r}: expected a DataFrame with columns {', '.join(self.needs)}, got "
                f"{type(inp).__name__} (for one text: .search(text))"
            )
        missing = [c for c in self.needs if c not in inp.columns]
        if missing:
            raise ClirkitError(
                f"{self!r}: the input frame has no {' and no '.join(missing)} column (its columns: "
                f"{', '.join(map(str, inp.columns)) or 'none'})"
            )
        refused = [c for c in self.refuses if c in inp.columns]
        if refused:
            raise ClirkitError(
                f"{self!r}: the input has a {refused[0]} column (a results frame): this transformer "
                f"retrieves from a queries frame; to re-rank results, use reranker(system) "
                f"(a boosted ranker or SCS)"
            )
        check_frame_ids(inp, [c for c in ("qid", "docno") if c in self.needs], f"{self!r}: the input frame")

    def transform_outputs(self, input_columns: list[str]) -> list[str]:
        """The output columns for ``input_columns`` (PyTerrier's inspection, without running the system)."""
        pt.validate.columns(input_columns, includes=list(self.needs), excludes=list(self.refuses), context=self)
        return [*RESULT_COLUMNS, *(c for c in input_columns if c not in DOCUMENT_COLUMNS and c != "qid")]

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """The results frame of the queries of ``inp`` (``qid``, ``query``): the system's run."""
        self._check_input(inp)
        topics = as_topics(inp, what=repr(self))
        run = (
            self.system.search(topics, depth=self.depth, excluded=self.excluded, tag=self.name, quiet=self.quiet)
            if topics
            else _empty_run()
        )
        return _with_columns(run, inp, on=["qid"])


class Reranker(Retriever):
    """A system that re-scores given rows (a boosted ranker, SCS) as a re-ranker of a results frame (``qid``,
    ``query``, ``docno``, and ``score`` for a model boosted from a base ranker); made by :func:`reranker`. Every input
    row is kept, with its other columns; ``score`` and ``rank`` are the system's."""

    needs = ("qid", "query", "docno")
    refuses = ()

    def __init__(self, system, **kwargs) -> None:
        _check_system(system)
        if not system.reranks:
            raise ClirkitError(
                f"a {type(system).__name__} cannot re-rank given results (a boosted ranker and SCS "
                f"can): use retriever(system) as a first stage"
            )
        super().__init__(system, **kwargs)

    def transform_outputs(self, input_columns: list[str]) -> list[str]:
        pt.validate.columns(input_columns, includes=list(self.needs), context=self)
        return [*RESULT_COLUMNS, *(c for c in input_columns if c not in RESULT_COLUMNS)]

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """``inp``'s rows re-scored by the system and re-ranked."""
        self._check_input(inp)
        topics = as_topics(inp, what=repr(self))
        if not topics:
            return _with_columns(_empty_run(), inp, on=["qid", "docno"])
        twice = inp.duplicated(["qid", "docno"])
        if twice.any():
            row = inp[twice].iloc[0]
            raise ClirkitError(f"{self!r}: document {row['docno']} appears twice for query {row['qid']}")
        if "score" in inp.columns:
            frame_scores(inp, f"{self!r}: the input frame")  # a text or missing score: the row named
            candidates = Run.from_frame(inp)
        elif self._uses_scores():
            raise ClirkitError(
                f"{self!r}: the input frame has no score column: a model boosted from a base ranker "
                f"adds beta times the first stage's score"
            )
        else:
            candidates = Run.from_frame(inp.assign(score=0.0))
        return _with_columns(self._rerank(topics, candidates), inp, on=["qid", "docno"])

    def _uses_scores(self) -> bool:
        return self.system.rerank_uses_scores()

    def _rerank(self, topics: Mapping[str, str], candidates: Run) -> Run:
        """The candidate rows re-scored: the system's :meth:`~clirkit.estimator.System.rerank`."""
        return self.system.rerank(topics, candidates, tag=self.name, quiet=self.quiet)


class _Learner(pt.Estimator):
    """``fit(topics_tr, qrels_tr, topics_va, qrels_va)``: the system fitted on its resources with these topics and
    qrels as its ``train`` and ``dev`` splits (the module docstring)."""

    def fit(self, topics_or_res_tr, qrels_tr, topics_or_res_va=None, qrels_va=None):
        if self.resources is None:
            raise ClirkitError(
                f"{self!r}: fit needs the resources the system learns with beside the topics (the "
                f"documents, index and tables): give retriever() or reranker() "
                f"resources=Resources(...), or use from_experiment"
            )
        splits = {"train": (topics_or_res_tr, qrels_tr)}
        if topics_or_res_va is not None:
            splits["dev"] = (topics_or_res_va, qrels_va)
        topics = {s: as_topics(t, what=f"{self!r}: {s} topics") for s, (t, _) in splits.items()}
        qrels = {s: _as_qrels(q, f"{self!r}: {s} qrels") for s, (_, q) in splits.items()}
        self.system.fit(_GivenTopics(self.resources, topics, qrels, self.excluded))
        return self


class LearningRetriever(_Learner, Retriever):
    """A :class:`Retriever` of a system that learns: a ``pt.Estimator``."""


class LearningReranker(_Learner, Reranker):
    """A :class:`Reranker` of a system that learns: a ``pt.Estimator``."""


def retriever(
    system,
    *,
    resources: Resources | None = None,
    depth: int = DEPTH,
    excluded: Mapping[str, set[str]] | None = None,
    name: str | None = None,
    quiet: bool = True,
) -> Retriever:
    """``system`` as a first-stage transformer (:class:`Retriever`; a ``pt.Estimator`` when it learns)."""
    cls = LearningRetriever if _learns(system) else Retriever
    return cls(system, resources=resources, depth=depth, excluded=excluded, name=name, quiet=quiet)


def reranker(system, *, resources: Resources | None = None, name: str | None = None, quiet: bool = True) -> Reranker:
    """``system`` (a boosted ranker or SCS) as a re-ranker of results frames (:class:`Reranker`; a
    ``pt.Estimator``)."""
    cls = LearningReranker if _learns(system) else Reranker
    return cls(system, resources=resources, name=name, quiet=quiet)


def _empty_run() -> Run:
    return Run([], [], [])


def _with_columns(run: Run, inp: pd.DataFrame, *, on: list[str]) -> pd.DataFrame:
    """``run`` as a results frame with ``inp``'s columns joined on ``on``: a query's columns (``on = [qid]``) or a
    row's (``on = [qid, docno]``), in run order."""
    results = run.to_frame("pyterrier")
    drop = [c for c in (DOCUMENT_COLUMNS if on == ["qid"] else ("score", "rank")) if c in inp.columns]
    extra = inp.drop(columns=drop)
    extra = extra.assign(**{c: extra[c].astype(str) for c in on})
    if on == ["qid"]:
        extra = extra.drop_duplicates("qid")
    if len(extra.columns) == len(on):
        return results
    return results.merge(extra, on=on, how="left", validate="many_to_one")


class _GivenTopics(Resources):
    """The resources of a PyTerrier ``fit``: its topics and qrels by split; the documents, index, tables, parallel
    corpus, options, languages and seed of ``base`` (made by it on first use)."""

    def __init__(self, base: Resources, topics: dict, qrels: dict, excluded: Mapping[str, set[str]] | None) -> None:
        super().__init__(
            topics=topics,
            qrels=qrels,
            excluded={s: dict(excluded or {}) for s in topics},
            options=base.options,
            source_lang=base.source_lang,
            target_lang=base.target_lang,
            seed=base.seed,
            quiet=base.quiet,
            jobs=base.jobs,
        )
        self._base = base

    def documents(self):
        return self._base.documents()

    def index(self):
        return self._base.index()

    def table(self, key: str = "table"):
        return self._base.table(key)

    def reverse_table(self):
        return self._base.reverse_table()

    def parallel(self):
        return self._base.parallel()

    def known_items(self):
        return self._base.known_items()


# --------------------------------------------------------------------------- experiment folders


class _SavedArtifacts:
    """An experiment's output folder as the runner's store, read only: an artifact is used when its record says
    this experiment made it; otherwise ClirkitError (nothing is made again nor written)."""

    def __init__(self, folder: Path, command: str) -> None:
        self.folder, self.command = folder, command

    def fresh(self, path: Path, record: dict) -> bool:
        from clirkit.experiment.store import _made_from

        if not _made_from(path, record):
            state = "is missing" if not path.exists() else "was made by other settings"
            raise ClirkitError(f"{path}: {state}: run {self.command} first (it makes what is missing or stale)")
        return True

    def remember(self, path: Path, record: dict) -> None:  # pragma: no cover (fresh raises first)
        raise ClirkitError(f"{path}: an experiment folder is read, not written, here")

    def check_outside(self, shown: str, path: str | Path) -> None:
        """Nothing to check: the folder is read, never replaced, so no input in it can be lost."""


def shipped_path(name: str) -> Path | None:
    """The shipped experiment file ``name`` (``demo``), None when there is none."""
    from clirkit.experiment import shipped

    try:
        return shipped(name)
    except ClirkitError:
        return None


class ExperimentFolder:
    """The systems of an experiment, read back from the folder ``clirkit run FILE -o FOLDER`` wrote (made by
    :func:`from_experiment`). Each system is made as the runner makes it on a rerun: BM25, DT and PSQ bound to the
    folder's index and table, a boosted ranker's and SCS's models read back with the collection's documents, a
    fusion's weights tuned again on its systems' saved dev runs. Systems are made on first use."""

    def __init__(self, experiment, folder=None, *, quiet: bool = True) -> None:
        from clirkit.experiment import Experiment, shipped
        from clirkit.experiment.artifacts import Artifacts
        from clirkit.experiment.runner import Runner, load_collection
        from clirkit.progress import Steps

        if isinstance(experiment, Experiment):
            exp, default = experiment, Path(experiment.source or experiment.name).stem
        elif Path(experiment).is_file() or Path(experiment).suffix == ".toml":
            exp, default = Experiment.read(experiment), Path(experiment).stem
        else:  # a shipped experiment: "demo", which `clirkit demo` runs into clirkit-demo/
            exp, default = Experiment.read(shipped(str(experiment))), f"clirkit-{experiment}"
        self.folder = Path(folder if folder is not None else default)
        command = (
            f"clirkit {exp.name} -o {self.folder}"
            if exp.source == str(shipped_path(exp.name))
            else f"clirkit run {exp.source or 'FILE'} -o {self.folder}"
        )
        if not self.folder.is_dir():
            raise ClirkitError(f"{self.folder}: no such experiment folder: run {command} first")
        store, steps = _SavedArtifacts(self.folder, command), Steps()
        collection = load_collection(exp, store, steps, quiet)
        self.experiment = exp
        self._runner = Runner(exp, Artifacts(exp, collection, store, steps, quiet))
        self._runner.build_all()
        self._made: set[str] = set()

    @property
    def names(self) -> list[str]:
        """The systems and fusions of the experiment, in file order."""
        return self.experiment.run_names()

    @property
    def collection(self):
        """The experiment's collection (:class:`~clirkit.datasets.Collection`: documents, queries, qrels by split)."""
        return self._runner.resources.c

    @property
    def resources(self) -> Resources:
        """The experiment's resources (the runner's: collection, index, table, documents)."""
        return self._runner.resources

    def system(self, name: str):
        """The clirkit system ``name``, fitted (its model read back), with the systems it is made of."""
        from clirkit.experiment.kinds import system_class

        if name not in self.names:
            raise ClirkitError(
                f"{self.experiment.source or 'the experiment'} has no system {name!r} (its systems: "
                f"{', '.join(self.names)})"
            )
        if name not in self._made:
            kind, spec = self.experiment.spec_of(name)
            for key in system_class(kind).system_keys:
                for member in [spec[key]] if isinstance(spec.get(key), str) else spec.get(key, ()):
                    self.system(member)
            self._runner.make(name)
            self._made.add(name)
        return self._runner.systems[name]

    def run(self, name: str, split: str = "test") -> Run:
        """The run of system ``name`` over ``split`` the folder holds; ClirkitError naming the splits it has runs
        of when it has none of ``split`` (an unknown split; train, of which the experiment makes no run)."""
        self.system(name)
        runs = self._runner.resources.runs(split)
        if name not in runs:
            has = [s for s in self.resources.splits if name in self._runner.resources.runs(s)]
            raise ClirkitError(
                f"{self.folder}: the experiment makes no {split!r} run of {name} (it has runs of "
                f"{', '.join(has) or 'no split'})"
            )
        return runs[name]

    def _excluded(self) -> dict[str, set[str]]:
        return self.resources.excluded(*self.resources.splits)

    def retriever(self, name: str, **kwargs) -> Retriever:
        """System ``name`` as a first stage (:func:`retriever`), named and tagged ``name``, excluding what the
        experiment excludes; a learner refits on the experiment's documents, index and tables."""
        return retriever(
            self.system(name),
            resources=self._runner.views[name],
            **{"excluded": self._excluded(), "name": name, **kwargs},
        )

    def reranker(self, name: str, **kwargs) -> Reranker:
        """System ``name`` (a boosted ranker or SCS) as a re-ranker of results frames (:func:`reranker`)."""
        return reranker(self.system(name), resources=self._runner.views[name], **{"name": name, **kwargs})

    def topics(self, split: str = "test") -> pd.DataFrame:
        """The queries frame (``qid``, ``query``) of ``split`` (train, dev: the experiment's sample, test)."""
        return topics_frame(self.resources.topics(split))

    def qrels(self, split: str = "test") -> pd.DataFrame:
        """The qrels frame (``qid``, ``docno``, ``label``) of ``split``'s queries."""
        return qrels_frame(self.resources.qrels(split))


def from_experiment(experiment, folder=None, *, quiet: bool = True) -> ExperimentFolder:
    """The systems of ``experiment`` (an experiment file, an :class:`~clirkit.experiment.Experiment`, or a shipped
    one's name: ``"demo"``) read back from ``folder`` (default: where ``clirkit run FILE`` writes, the file's stem;
    ``clirkit-demo`` for the demo), as :class:`ExperimentFolder`."""
    return ExperimentFolder(experiment, folder, quiet=quiet)
