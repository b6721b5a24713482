"""The rows of an experiment's run file (a system of kind ``run``) that the systems and fusions reading its runs
would refuse after work had started, found when the runner builds the systems (where the run is read to check its
splits), and said at the file's line: a document not among the collection's and a negative score, for a boosted
ranker whose ``base`` names the system (it re-ranks the base's rows by their scores divided by each query's
largest); a document not among the collection's, for a boosted ranker whose ``base`` is a fusion of the system (the
fusion's rows hold the run's documents); and a negative score, for an interpolation fusing the system's scores as
they are (``transform = "none"``).

The rows checked are those each reader is given: the system's rows of each split's topics it is searched on, at the
search depth and without each query's excluded documents, as the runner and the boosted ranker search it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clirkit.errors import ClirkitError, located
from clirkit.experiment.kinds import system_class

if TYPE_CHECKING:
    from clirkit.experiment.runner import Runner


def check_run_uses(runner: "Runner", name: str) -> None:
    """ClirkitError ``FILE:LINE: problem`` at the first line of the run file of system ``name`` (built: its class
    has a ``file`` key, the run it holds, and keeps no model: kind ``run``, whose build read the file) that a reader
    of its runs refuses (see the module docstring); nothing for another system, or one nothing reads so."""
    system, view = runner.systems[name], runner.views[name]
    path = view.path("file") if "file" in system.file_keys and not system.keeps_model else None
    if path is None:
        return
    exp = runner.exp
    bases = [s for s, spec in exp.systems.items() if name in _named_by(spec)]
    via = [  # a boosted ranker whose base is a fusion of this run: the fusion's rows hold its documents
        f"system {s!r} boosts from fusion {f!r} of this run"
        for s, spec in exp.systems.items()
        for f in _named_by(spec)
        if f in exp.fusions and name in exp.fusions[f]["systems"]
    ]
    readers = [f"system {s!r} boosts from this run (its base)" for s in bases] + via  # (of its documents)
    flat = [f for f, spec in exp.fusions.items() if _sums_as_they_are(spec, name)]
    if not readers and not flat:
        return
    with_train = ["train"] if "train" in view.splits else []
    base_fusions = {n for spec in exp.systems.values() for n in _named_by(spec) if n in exp.fusions}
    splits = set(runner.splits) | set(with_train if readers or base_fusions & set(flat) else [])
    import numpy as np

    unknown: set[tuple[str, str]] = set()
    negative: set[tuple[str, str]] = set()
    known = np.asarray(view.docids(), dtype=str) if readers else None
    for run in _runs(system, view, [s for s in ("train", "dev", "test") if s in splits]):
        if known is not None:
            unknown.update(_pairs(run, ~np.isin(run.docids, known)))
        if bases or flat:  # (a fusion that transforms the scores takes negative ones)
            negative.update(_pairs(run, run.scores < 0))
    if unknown or negative:
        raise _first_line(path, unknown, negative, readers, bases, flat)


def _named_by(spec: dict[str, Any]) -> list[str]:
    """The systems or fusions a ``[systems.NAME]`` table names (its ``base``)."""
    return [spec[key] for key in system_class(spec["kind"]).system_keys if isinstance(spec.get(key), str)]


def _sums_as_they_are(spec: dict[str, Any], name: str) -> bool:
    """Whether the fusion of ``spec`` interpolates the scores of system ``name`` untransformed (``"none"``)."""
    if name not in spec["systems"] or spec.get("method", "interpolation") == "borda":
        return False
    transform = spec.get("transform", "auto")
    given = transform if isinstance(transform, str) else transform[spec["systems"].index(name)]
    return given == "none"


def _runs(system, view, splits: list[str]):
    """The run the run file's system gives for the topics of each of ``splits``: a copy of it fitted (its run, as
    its build read it, taken), the system itself left to be fitted when the work starts."""
    import copy

    reader = copy.copy(system).fit(view)
    for split in splits:
        yield reader.search(view.topics(split), excluded=view.excluded(split), quiet=True)


def _pairs(run, rows) -> set[tuple[str, str]]:
    """``(query, document)`` of the rows of ``run`` where the mask ``rows`` holds."""
    return set(zip(run.qids[rows].tolist(), run.docids[rows].tolist()))


def _first_line(
    path: str, unknown: set, negative: set, readers: list[str], bases: list[str], flat: list[str]
) -> ClirkitError:
    """The error at the first line of ``path`` whose (query, document) is among the ``unknown`` or the
    ``negative`` rows (``readers``: how the boosted rankers read the run's documents, directly or through a fusion;
    ``bases``: the boosted rankers whose base it is, ``flat``: the fusions summing its scores as they are)."""
    from clirkit.fileio import display_name
    from clirkit.formats.runs import below_zero, first_line_where

    shown = display_name(path)
    found = first_line_where(path, lambda f: (f[0], f[2]) in unknown or ((f[0], f[2]) in negative and below_zero(f[4])))
    if found is None:
        return located(shown, None, "a row changed since it was read: run again")
    lineno, (qid, _, docid, _, score, *_) = found
    if (qid, docid) in unknown:
        return located(
            shown,
            lineno,
            f"document {docid!r} is not among the documents: {readers[0]} and re-ranks its rows over the "
            "collection's documents; give a run of these queries over these documents",
        )
    return located(shown, lineno, f"score {score} (query {qid!r}) is negative: {_needs(bases, flat)}")


def _needs(bases: list[str], flat: list[str]) -> str:
    """Why a negative score is refused: by the first boosted ranker reading the run, else the first fusion."""
    if bases:
        return (
            f"system {bases[0]!r} boosts from this run (its base), and a base ranker's scores must be non-negative "
            "(e.g. BM25, DT or PSQ)"
        )
    return (
        f'fusion {flat[0]!r} sums the scores as they are (transform = "none"), which needs scores >= 0: choose a '
        'per-query transform (transform = "shift" or "minmax")'
    )
