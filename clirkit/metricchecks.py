"""The checks of :func:`clirkit.metrics.evaluate`'s inputs, made before any work.

:func:`checked_measures` parses the measures and refuses one whose cutoff reads ranks beyond the depth;
:func:`check_evaluation` refuses a run or qrels of another type, an option of a wrong type or out of range, empty
qrels and NaN scores; :func:`main_grade_of` gives the main grade the measures count from, refusing one given that
none reads. Each error is one :class:`~clirkit.errors.ClirkitError` line naming the parameter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import numpy as np

from clirkit.constraints import positive, validate
from clirkit.errors import ClirkitError
from clirkit.measures import Measure, beyond_depth, parse_measures
from clirkit.run import Qrels, Run, check_depth

if TYPE_CHECKING:
    from clirkit.packedrun import PackedRun

AVERAGES = ("qrels", "run")
TIES = ("trec_eval", "run")
NAMES = ("canonical", "given")
_GRADES: dict[str, list] = {"rel_threshold": [positive()], "main_grade": [None, positive()]}
MAIN_GRADE = 2  # the lowest grade of a main-relevant document when none is given (the SCS paper's)


def checked_measures(measures: Iterable[str | Measure] | str, depth: int | None) -> list[Measure]:
    """The parsed ``measures`` (:func:`~clirkit.measures.parse_measures`) once ``depth`` (checked first) is known to
    hold every rank they read: ClirkitError for ``PRES@2000`` at depth 1000, which would count a document at rank
    1500 as not retrieved."""
    check_depth(depth, every_row=True)
    specs = parse_measures(measures)
    deep = beyond_depth(specs, depth)
    if deep is not None:
        raise ClirkitError(
            f"{deep.label} reads ranks beyond depth {depth}: give depth >= {deep.cutoff} "
            f"(depth={deep.cutoff}, or depth=None for every rank)"
        )
    return specs


def reads_main_grade(specs: Iterable[Measure]) -> bool:
    """Whether a measure of ``specs`` counts from the main grade: ``P_mr`` or ``MRR_mr`` without a ``(rel=N)`` of
    its own."""
    return any(spec.definition.level == "main" and spec.rel is None for spec in specs)


def main_grade_of(specs: list[Measure], rel_threshold: int, main_grade: int | None) -> int:
    """The minimum grade of a main-relevant document for the measures ``specs``: ``main_grade``, or when None
    :data:`MAIN_GRADE` raised to ``rel_threshold`` (a main-relevant document is a relevant one). ClirkitError
    for a ``main_grade`` given below ``rel_threshold``, or given while no measure of ``specs`` reads it
    (:func:`reads_main_grade`)."""
    if main_grade is None:
        return max(MAIN_GRADE, rel_threshold)
    if main_grade < rel_threshold:
        raise ClirkitError(f"main_grade ({main_grade}) must not be below rel_threshold ({rel_threshold})")
    if not reads_main_grade(specs):
        raise ClirkitError(
            f"main_grade ({main_grade}) is read only by P_mr and MRR_mr (without a (rel=N) of their own), and no "
            "measure asked reads it: leave main_grade out, or ask for one of them"
        )
    return main_grade


def check_qrels(qrels, name: str = "qrels") -> Qrels:
    """``qrels`` if it is :class:`~clirkit.run.Qrels`, else ClirkitError naming the argument ``name``:
    ``qrels: expected Qrels (read_qrels(path), ...), got dict`` (:func:`~clirkit.metrics.evaluate`'s, a fusion's)."""
    if not isinstance(qrels, Qrels):
        raise ClirkitError(
            f"{name}: expected Qrels (read_qrels(path), Qrels.from_records(...)), got {type(qrels).__name__}"
        )
    return qrels


def check_evaluation(
    run: Run | PackedRun,
    qrels: Qrels,
    *,
    ties: str,
    average: str,
    names: str,
    depth: int | None,
    rel_threshold: int,
    main_grade: int | None,
) -> None:
    """ClirkitError unless ``run`` is a :class:`Run` (or a :class:`~clirkit.packedrun.PackedRun`, whose scores are
    finite) and ``qrels`` :class:`Qrels`, the options of
    :func:`~clirkit.metrics.evaluate` are known and in range (``depth`` a whole number >= 1 or None, the grades
    whole numbers >= 1), the qrels non-empty, the run non-empty unless averaged over the qrels, and the run's
    scores numbers."""
    from clirkit.packedrun import PackedRun

    if not isinstance(run, (Run, PackedRun)):
        raise ClirkitError(f"run: expected a Run (Run.from_dict(...), read_run(path)), got {type(run).__name__}")
    check_qrels(qrels)
    for name, value, known in (("ties", ties, TIES), ("average", average, AVERAGES), ("names", names, NAMES)):
        if not isinstance(value, str) or value not in known:
            raise ClirkitError(f"{name} must be one of {', '.join(known)}, got {value!r}")
    check_depth(depth, every_row=True)
    # (a threshold <= 0 would make the unjudged documents, grade 0 here, relevant)
    validate(_GRADES, {"rel_threshold": rel_threshold, "main_grade": main_grade}, "evaluate", bools_as_ints=False)
    if len(qrels) == 0:
        raise ClirkitError("the qrels are empty: no judgments")
    if len(run) == 0 and average != "qrels":
        raise ClirkitError(
            "the run holds no results: there is no run query to average over; with --average qrels "
            '(average="qrels" in Python) each judged query would score 0'
        )
    nan = np.isnan(run.scores)
    if isinstance(run, Run) and nan.any():  # (a PackedRun's scores are checked finite when it is made)
        i = int(np.flatnonzero(nan)[0])
        raise ClirkitError(f"the run's score for query {run.qids[i]}, document {run.docids[i]} is NaN")
