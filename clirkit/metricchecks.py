"""The checks of :func:`clirkit.metrics.evaluate`'s inputs, made before any work.

:func:`checked_measures` parses the measures and refuses one whose cutoff reads ranks beyond the depth;
:func:`check_evaluation` refuses a run or qrels of another type, an option of a wrong type or out of range, empty
qrels and NaN scores. Each error is one :class:`~clirkit.errors.ClirkitError` line naming the parameter.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from clirkit.constraints import positive, validate
from clirkit.errors import ClirkitError
from clirkit.measures import Measure, beyond_depth, parse_measures
from clirkit.run import Qrels, Run, check_depth

AVERAGES = ("qrels", "run")
TIES = ("trec_eval", "run")
NAMES = ("canonical", "given")
_GRADES = {"rel_threshold": [positive()], "main_grade": [positive()]}


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


def check_evaluation(
    run: Run,
    qrels: Qrels,
    *,
    ties: str,
    average: str,
    names: str,
    depth: int | None,
    rel_threshold: int,
    main_grade: int,
) -> None:
    """ClirkitError unless ``run`` is a :class:`Run` and ``qrels`` :class:`Qrels`, the options of
    :func:`~clirkit.metrics.evaluate` are known and in range (``depth`` a whole number >= 1 or None, the grades
    whole numbers >= 1), the qrels non-empty, the run non-empty unless averaged over the qrels, and the run's
    scores numbers."""
    if not isinstance(run, Run):
        raise ClirkitError(f"run: expected a Run (Run.from_dict(...), read_run(path)), got {type(run).__name__}")
    if not isinstance(qrels, Qrels):
        raise ClirkitError(
            f"qrels: expected Qrels (read_qrels(path), Qrels.from_records(...)), got {type(qrels).__name__}"
        )
    for name, value, known in (("ties", ties, TIES), ("average", average, AVERAGES), ("names", names, NAMES)):
        if not isinstance(value, str) or value not in known:
            raise ClirkitError(f"{name} must be one of {', '.join(known)}, got {value!r}")
    check_depth(depth, every_row=True)
    # (a threshold <= 0 would make the unjudged documents, grade 0 here, relevant)
    validate(_GRADES, {"rel_threshold": rel_threshold, "main_grade": main_grade}, "evaluate", bools_as_ints=False)
    if main_grade < rel_threshold:
        raise ClirkitError(f"main_grade ({main_grade}) must not be below rel_threshold ({rel_threshold})")
    if len(qrels) == 0:
        raise ClirkitError("the qrels are empty: no judgments")
    if len(run) == 0 and average != "qrels":
        raise ClirkitError(
            "the run holds no results: there is no run query to average over "
            "(averaged over the qrels, each judged query scores 0)"
        )
    nan = np.isnan(run.scores)
    if nan.any():
        i = int(np.flatnonzero(nan)[0])
        raise ClirkitError(f"the run's score for query {run.qids[i]}, document {run.docids[i]} is NaN")
