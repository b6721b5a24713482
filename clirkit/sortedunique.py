"""The distinct values of an array, as ``np.unique`` gives them, by numpy's sorting path.

From numpy 2.3, ``np.unique(a)`` with no other output asked finds integers' and strings' distinct values with a
hash set (numpy issue 31969): for a million distinct int64 800 ms against 9 ms by sorting, for a million strings
1.8 s against 0.4 s (measured here with numpy 2.4). Asking numpy for the counts too takes its sorting path.
"""

from __future__ import annotations

import numpy as np


def sorted_unique(values) -> np.ndarray:
    """The sorted distinct values of ``values`` (array-like, flattened): ``np.unique(values)``, the same array
    (values and dtype), by sorting."""
    return np.unique(values, return_counts=True)[0]
