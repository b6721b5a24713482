"""The checks of the arguments :mod:`clirkit.translation`'s functions take (pruning thresholds, interpolation weights,
iteration counts, word lists, a table's probabilities): a bad one raises :class:`TableArgumentError` naming it."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from clirkit.errors import ClirkitError

#: The largest probability a table holds: 1, with room for the rounding of a sum of parts (a file read back).
P_MAX = 1 + 1e-9


class TableArgumentError(ClirkitError, ValueError, TypeError):
    """A bad argument to a function of :mod:`clirkit.translation`, ``name: problem``: a user mistake, so a
    :class:`~clirkit.errors.ClirkitError` (and a ValueError/TypeError, as these functions raised before)."""


def fraction(name: str, value, *, zero: bool = True) -> float:
    """``value`` as a float in [0, 1] (``zero=False``: in (0, 1]); :class:`TableArgumentError` naming ``name``
    for anything else (NaN, a bool, a str, a number outside)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not (0.0 <= value <= 1.0 and (zero or value > 0)):
        raise TableArgumentError(f"{name} must be a number in {'[0' if zero else '(0'}, 1], got {value!r}")
    return float(value)


def whole(name: str, value, *, minimum: int) -> int:
    """``value`` as an int >= ``minimum``; :class:`TableArgumentError` naming ``name`` for anything else (a float,
    a bool, a smaller number)."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise TableArgumentError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def sequence(name: str, items) -> list | tuple:
    """``items`` as a list or tuple (any other iterable but a str read into a list, once);
    :class:`TableArgumentError` naming ``name`` for a str or what is not iterable."""
    if isinstance(items, (list, tuple)):
        return items
    if isinstance(items, str) or not hasattr(items, "__iter__"):
        raise TableArgumentError(f"{name}: expected a sequence, got {type(items).__name__}")
    return list(items)


def probabilities(name: str, values: np.ndarray) -> None:
    """:class:`TableArgumentError` ``NAME has NaN at 3`` (a value not finite, below 0 or above :data:`P_MAX`), as
    :func:`~clirkit.translation.load_table` checks a file's probabilities."""
    from clirkit.npzchecks import Corrupt, require_array

    try:
        require_array({name: values}, name, "number", min=0, max=P_MAX)
    except Corrupt as exc:
        raise TableArgumentError(f"{exc}: a probability p(e|f) is a number from 0 to 1") from None


def word_list(name: str, words) -> list[str]:
    """``words`` (any iterable of str but a str itself; None: none) as a list; :class:`TableArgumentError` naming
    ``name`` for a str (whose letters would be taken as the words) or an entry that is not a str."""
    if words is None:
        return []
    if isinstance(words, str):
        raise TableArgumentError(
            f"{name}: expected a list of words or None, got the str {words!r} (one word: [{words!r}])"
        )
    try:
        listed = list(words)
    except TypeError:
        raise TableArgumentError(f"{name}: expected a list of words or None, got {type(words).__name__}") from None
    bad = next((w for w in listed if not isinstance(w, str)), None)
    if bad is not None:
        raise TableArgumentError(
            f"{name}: expected a list of words, got an entry of type {type(bad).__name__}: {bad!r}"
        )
    return listed
