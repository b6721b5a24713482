"""Checks of the numbers in a run and in qrels, each over whole arrays (no Python step per row): a run's scores
in rank order within each query (:func:`check_score_order`), whole-number grades (:func:`whole_grades`) and the
query whose rows come in two groups (:func:`split_query`).

Below :mod:`clirkit.run`, which calls them when a Run or Qrels is made; they know nothing of those classes.
"""

from __future__ import annotations

import numpy as np

from clirkit.errors import ClirkitError

_INT64_END = 2.0**63  # the first float beyond int64 (-2**63 is the lowest int64 and an exact float)


def check_score_order(qids: np.ndarray, docids: np.ndarray, scores: np.ndarray, starts: np.ndarray) -> None:
    """ClirkitError unless each query's scores (``starts``: the offsets of the queries' rows, then ``len(scores)``)
    do not rise from a row to the next, ties allowed; and for a NaN score, which has no place in such an order.

    Args:
        qids, docids: the rows' ids (str arrays), named in the message.
        scores: float64, one per row.
        starts: int64, the first row of each query and the number of rows.
    """
    nan = np.isnan(scores)
    if nan.any():
        i = int(np.argmax(nan))
        raise ClirkitError(f"Run score of query {qids[i]}, document {docids[i]} is NaN: give every row a number")
    rising = scores[1:] > scores[:-1]  # (compared, not subtracted: finite scores near 1e308 overflow a difference)
    rising[starts[1:-1] - 1] = False  # a query's first row against the previous query's last
    if rising.any():
        i = int(np.argmax(rising)) + 1
        rank = i - int(starts[np.searchsorted(starts, i, side="right") - 1]) + 1  # within the query
        raise ClirkitError(
            f"Run rows of query {qids[i]} are not in score order (rank {rank} scores {float(scores[i])!r} after "
            f"{float(scores[i - 1])!r}): build it with Run.ranked"
        )


def whole_grades(values, what: str) -> np.ndarray:
    """``values`` (an array or list of grades) as int64; integers as they are, numbers that are whole and within
    int64 (``1.0``) converted. ClirkitError ``WHAT must be whole numbers (grades), got V`` naming the first that
    is not (``0.5``, NaN; ``1e20``: beyond int64), or ``WHAT is not a number``."""
    try:
        given = np.asarray(values)
        exact = _exact_integers(given)
        if exact is not None:
            return exact
        grades = np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ClirkitError(f"{what} is not a number") from None
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(grades) | (grades != np.round(grades)) | (grades < -_INT64_END) | (grades >= _INT64_END)
    if bad.any():
        i = int(np.argmax(bad))
        value, grade = given.reshape(-1)[i], grades.reshape(-1)[i]
        whole = np.isfinite(grade) and grade == np.round(grade)
        rule = "whole numbers (grades) within int64 (|grade| < 2**63)" if whole else "whole numbers (grades)"
        raise ClirkitError(f"{what} must be {rule}, got {getattr(value, 'item', lambda: value)()!r}")
    return grades.astype(np.int64)


def _exact_integers(given: np.ndarray) -> np.ndarray | None:
    """``given`` as int64 when it holds integers within int64, converted exactly (no float64 on the way: 2**53 + 1
    stays itself); None when it holds anything else (floats, an integer beyond int64), for the float path to
    judge. An integer dtype is compared in integer space; an object array is converted to int64 and kept when
    every converted value equals its original (Python's comparison, exact for ints: ``0.5`` truncated to 0 is
    not kept)."""
    if given.dtype.kind in "bi":
        return given.astype(np.int64)
    if given.dtype.kind == "u":
        fits = not given.size or given.max() <= np.iinfo(np.int64).max  # (integer against integer: no rounding)
        return given.astype(np.int64) if fits else None
    if given.dtype.kind != "O":
        return None
    try:
        exact = given.astype(np.int64)
    except (TypeError, ValueError, OverflowError):  # NaN, inf, beyond int64, no number
        return None
    return exact if bool((exact == given).all()) else None


def split_query(order: np.ndarray) -> str:
    """The first query of ``order`` (each group's query id, in row order) that owns two groups of rows."""
    _, first, counts = np.unique(order, return_index=True, return_counts=True)
    return str(order[first[counts > 1].min()])
