"""The checks of the arguments :mod:`clirkit.translation`'s functions take (pruning thresholds, interpolation weights,
iteration counts, word lists, a table's probabilities): a bad one raises :class:`TableArgumentError` naming it."""

from __future__ import annotations

import numpy as np

from clirkit.errors import ClirkitError

#: The largest probability a table holds: 1, with room for the rounding of a sum of parts (a file read back).
P_MAX = 1 + 1e-9


class TableArgumentError(ClirkitError, ValueError, TypeError):
    """A bad argument to a function of :mod:`clirkit.translation`, ``name: problem``: a user mistake, so a
    :class:`~clirkit.errors.ClirkitError` (and a ValueError/TypeError, as these functions raised before)."""


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
