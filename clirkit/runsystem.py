"""A run made elsewhere as a system: :class:`RunFile`. Its ``search`` gives the rows the run holds for the topics
asked, so a run of another toolkit (Anserini, PyTerrier, an MT system's BM25) can be a boosted ranker's base, a
member of a fusion, and a row of an experiment's report (kind ``run``), like any system of clirkit's own."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.estimator import DEPTH, Resources, System, as_run, drop_excluded


class RunFile(System):
    """The rows of a given run, as a system.

    Args:
        run: the run: a :class:`~clirkit.run.Run`, a DataFrame of ``qid``, ``docno`` and ``score``, or a run file's
            path (TREC 6 columns, ``.gz`` fine); None in an experiment file, whose ``file`` key names it
            (relative to the experiment file). It holds the rows of every query the system will be asked for
            (the train, dev and test topics of an experiment: one file, or their files concatenated).

    ``fit`` reads it (``run_``; ``rows_``: each query's rows); ``search(topics)`` gives, for each topic in order,
    its rows (their top ``depth``, less the ``excluded`` documents), tagged ``tag``; topics the run has no row for
    are said on stderr (unless ``quiet``) and get none. Nothing is learned.
    """

    _parameter_constraints = {"run": "no_validation"}
    default_tag = "run"
    fit_call = "fit()"
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
        given = self.run
        if given is None:
            given = resources.path("file") if resources is not None else None
            if given is None:
                raise ClirkitError(
                    "a run system needs its run: RunFile(run=...) (a Run, a DataFrame or a run file), or an "
                    'experiment file\'s file = "RUN"'
                )
        self.run_ = as_run(given)
        if hasattr(self.run_, "unpack"):
            self.run_ = self.run_.unpack()
        self.rows_ = dict(self.run_.groups())  # each query's rows, found once (searched in batches)
        return self

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
        from clirkit.run import Run

        if not hasattr(self, "run_"):
            raise ClirkitError("RunFile is not fitted: call fit first")
        run, where = self.run_, self.rows_
        wanted = [q for q in topics if q in where]
        missing = len(topics) - len(wanted)
        if missing:
            say(f"{tag or self.default_tag}: the run has no row for {missing} of {len(topics)} queries", quiet=quiet)
        if not wanted:
            none = np.zeros(0, dtype=str)
            return Run(none, none, np.zeros(0), tag=tag or self.default_tag)
        rows = np.concatenate(
            [np.arange(where[q].start, min(where[q].stop, where[q].start + depth), dtype=np.int64) for q in wanted]
        )
        picked = Run(run.qids[rows], run.docids[rows], run.scores[rows], tag=tag or self.default_tag)
        return drop_excluded(picked, excluded)
