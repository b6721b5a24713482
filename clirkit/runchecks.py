"""Checks of the numbers in qrels, over whole arrays (no Python step per row): whole-number grades
(:func:`whole_grades`).

Below :mod:`clirkit.run`, which calls them when a Qrels is made; they know nothing of that class.
"""

from __future__ import annotations

import numpy as np

from clirkit.errors import ClirkitError

_INT64_END = 2.0**63  # the first float beyond int64 (-2**63 is the lowest int64 and an exact float)


def whole_grades(values, what: str) -> np.ndarray:
    """``values`` (an array or list of grades) as int64; integers as they are, numbers that are whole and within
    int64 (``1.0``) converted. ClirkitError ``WHAT must be whole numbers (grades), got V`` naming the first that
    is not (``0.5``, NaN; ``1e20``: beyond int64), or ``WHAT is not a number``."""
    try:
        given = np.asarray(values)
        if given.dtype.kind in "biu" and not (given.dtype.kind == "u" and given.size and given.max() >= _INT64_END):
            return given.astype(np.int64)
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
