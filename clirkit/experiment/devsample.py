"""The dev sample an experiment tunes on: a seeded draw of the dev topics."""

from __future__ import annotations

from collections.abc import Mapping


def sample(topics, n: int, *, seed: int = 0) -> dict[str, str]:
    """``n`` of ``topics`` drawn without replacement with ``seed``, in their original order (all of them when
    ``n`` is 0 or at least their number): the dev sample an experiment tunes on. TypeError for ``topics`` that are
    not a mapping of ids to texts, ValueError for an ``n`` or ``seed`` that is not a whole number at least 0."""
    import numpy as np

    if not isinstance(topics, Mapping):
        raise TypeError(f"sample: topics must be a mapping of query ids to texts, not {type(topics).__name__}")
    for name, value in (("n", n), ("seed", seed)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"sample: {name} must be an integer >= 0, got {value!r}")
    ids = list(topics)
    if not 0 < n < len(ids):
        return dict(topics)
    picked = np.sort(np.random.default_rng(seed).choice(len(ids), n, replace=False))
    return {ids[i]: topics[ids[i]] for i in picked.tolist()}
