"""A run made elsewhere as a system: :class:`RunFile`. Its ``search`` gives the rows the run holds for the topics
asked, so a run of another toolkit (Anserini, PyTerrier, an MT system's BM25) can be a boosted ranker's base, a
member of a fusion, and a row of an experiment's report (kind ``run``), like any system of clirkit's own."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from clirkit.errors import ClirkitError, counted
from clirkit.estimator import DEPTH, Resources, System, as_run, takes_resources
from clirkit.searchoptions import as_excluded, drop_excluded, search_depth


class RunFile(System):
    """The rows of a given run, as a system.

    Args:
        run: the run: a :class:`~clirkit.run.Run`, a DataFrame of ``qid``, ``docno`` and ``score``, or a run file's
            path (TREC 6 columns, ``.gz`` fine); None in an experiment file, whose ``file`` key names it
            (relative to the experiment file). It holds the rows of every query the system will be asked for
            (the train, dev and test topics of an experiment: one file, or their files concatenated).

    ``fit`` reads it (``run_``; ``rows_``: each query's rows); ``search(topics)`` gives, for each topic in order,
    its rows (their top ``depth``, less the ``excluded`` documents), tagged ``tag``; topics the run has no row for
    are said on stderr (unless ``quiet``) and get none. Nothing is learned. In an experiment, the run is read and
    checked when the system is built, before any system's work (:meth:`check_inputs`).
    """

    _parameter_constraints = {"run": "no_validation"}
    default_tag = "run"
    fit_call = "fit() (the run given), or fit(Resources(...)) in an experiment"
    python_only = ("run",)  # an experiment file names the run with its file key
    file_keys = {
        "file": (
            str,
            "a run file (TREC 6 columns, .gz fine) holding the rows of every split's queries, relative to the "
            "experiment file",
        ),
    }

    def __init__(self, *, run=None) -> None:
        self.run = run

    def fit(self, resources: Resources | None = None) -> "RunFile":
        """Read the run (``run``, else the ``file`` of ``resources``' system); returns self."""
        if resources is not None:
            takes_resources(self, resources)
        given = self._given(resources)
        checked = self.__dict__.pop("_checked", None)  # the run check_inputs read, when it is this one
        self.run_ = checked[1] if checked is not None and _same(checked[0], given) else self._read(given)
        self.rows_ = dict(self.run_.groups())  # each query's rows, found once (searched in batches)
        return self

    def _given(self, resources: Resources | None):
        """The run to read: ``run``, else the path of the ``file`` of ``resources``' system."""
        given = self.run
        if given is None:
            given = resources.path("file") if resources is not None else None
            if given is None:
                raise ClirkitError(
                    "a run system needs its run: RunFile(run=...) (a Run, a DataFrame or a run file), or an "
                    'experiment file\'s file = "RUN"'
                )
        return given

    @staticmethod
    def _read(given):
        run = as_run(given)
        return run.unpack() if hasattr(run, "unpack") else run

    def check_options(self, options) -> None:
        """An experiment file's run system names its run file (``file``): refused when the file is read."""
        if self.run is None and not options.get("file"):
            raise ClirkitError(
                'a run system reads its run from a file: add file = "RUN" (TREC 6 columns, .gz fine, relative to '
                "the experiment file)"
            )

    def check_inputs(self, resources: Resources) -> None:
        """The run, read when an experiment builds the system (before any system's work) and kept for ``fit``: it
        has rows for some query of each split the system is searched on
        (:meth:`~clirkit.estimator.Resources.searched_splits`), and its rows name the collection's documents (a
        note on stderr when some do not; an error when none does). The messages name the run file."""
        from clirkit.progress import say

        given = self._given(resources)
        run = self._read(given)
        self._checked = (given, run)
        where = f"file {resources.option('file')}: " if self.run is None else ""
        have = set(run.query_ids)
        splits = [s for s in resources.searched_splits() if s in resources.splits]
        for split in splits:
            topics = resources.topics(split)
            if topics and have.isdisjoint(topics):
                listed = ", ".join(splits[:-1]) + (" and " if len(splits) > 1 else "") + splits[-1]
                others = f"its {len(have):,} queries are others, e.g. {min(have)!r}" if have else "it has no rows"
                raise ClirkitError(
                    f"{where}the run has no row for any of the {len(topics):,} {split} queries ({others}): give a "
                    f"run of the {listed} queries (one file, or their files concatenated)"
                )
        foreign = sorted(have - resources.query_ids())
        if foreign:
            say(
                f"{where}{len(foreign):,} of the run's {counted(len(have), 'query', 'queries')} "
                f"{'is' if len(foreign) == 1 else 'are'} none of the collection's (first: "
                f"{foreign[0]!r}): their rows are not used",
                quiet=resources.quiet,
            )
        docids = resources.docids()
        if docids is None or not len(run):
            return
        unknown = np.flatnonzero(~np.isin(run.docids, np.asarray(docids, dtype=str)))
        if len(unknown) == len(run):
            raise ClirkitError(
                f"{where}none of the run's {len(run):,} rows names a document of the collection (first: "
                f"{str(run.docids[0])!r}); check the document ids (their case, a prefix)"
            )
        if len(unknown):
            say(
                f"{where}{len(unknown):,} of the run's {len(run):,} rows name documents the collection does not have "
                f"(first: {str(run.docids[unknown[0]])!r})",
                quiet=resources.quiet,
            )

    def inputs(self, resources: Resources) -> dict:
        """The run file (its path and SHA-256), when the experiment file names one."""
        from clirkit.fileio import file_digest

        path = resources.path("file")
        return {"file": {"path": path, "sha256": file_digest(path)}} if path is not None else {}

    def search(
        self,
        topics: Mapping[str, str],
        *,
        depth: int = DEPTH,
        excluded: Mapping[str, set[str]] | None = None,
        tag: str | None = None,
        quiet: bool = True,
    ):
        """The run's rows for ``topics`` (see the class docstring)."""
        from clirkit.progress import say
        from clirkit.run import Run, check_depth

        if not hasattr(self, "run_"):
            raise ClirkitError(f"{type(self).__name__} is not fitted: call fit first")
        check_depth(depth)
        tag, where = tag or self._run_tag(), self.rows_
        wanted = [q for q in topics if q in where]
        missing = len(topics) - len(wanted)
        if missing:
            say(f"{tag}: the run has no row for {missing} of {len(topics)} queries", quiet=quiet)
        if not wanted:
            none = np.zeros(0, dtype=str)
            return Run(none, none, np.zeros(0), tag=tag)
        deeper = search_depth(depth, excluded := as_excluded(excluded, wanted))
        rows = np.concatenate(
            [np.arange(where[q].start, min(where[q].stop, where[q].start + deeper), dtype=np.int64) for q in wanted]
        )
        return drop_excluded(self._picked(rows, tag), excluded, depth)

    def _run_tag(self) -> str:
        """The tag of a search that names none."""
        return self.default_tag

    def _picked(self, rows, tag: str):
        """The run of the rows at positions ``rows`` of ``run_`` (those ``rows_`` locates), tagged ``tag``."""
        from clirkit.run import Run

        run = self.run_
        return Run(run.qids[rows], run.docids[rows], run.scores[rows], tag=tag)


def _same(a, b) -> bool:
    """Whether ``a`` and ``b`` give the same run: the same object, or paths written alike."""
    import os

    paths = (str, os.PathLike)
    return a is b or (isinstance(a, paths) and isinstance(b, paths) and os.fspath(a) == os.fspath(b))
