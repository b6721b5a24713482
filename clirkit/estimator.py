"""The contract of every way of making a run (DESIGN.md, "Systems and experiments").

A *system* has its hyper-parameters and their defaults in ``__init__`` (scikit-learn's
``BaseEstimator``: ``get_params``/``set_params``/``clone`` for free), declares their constraints
once in ``_parameter_constraints`` (checked by :meth:`System.check_params` at ``fit``, with
messages naming the parameter, the allowed range and the value), learns in ``fit`` (returns
self; learned state in attributes ending with ``_``) and makes runs with
``search(topics) -> Run``. The command-line verbs and the experiment runner only build systems
and call them, so the same settings give the same run whichever way it was asked for.
"""
from __future__ import annotations

from typing import Mapping

from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import InvalidParameterError

from clirkit.errors import ClirkitError

DEPTH = 1000  # results per query of every system's search


class System(BaseEstimator):
    """Base class of DT, PSQ, the boosted ranker, SCS and fusions (see the module docstring)."""

    _parameter_constraints: dict = {}
    default_tag = "run"

    def check_params(self) -> None:
        """Check every hyper-parameter against ``_parameter_constraints``; ClirkitError if one is off."""
        try:
            self._validate_params()
        except InvalidParameterError as exc:
            raise ClirkitError(str(exc)) from None

    def search(self, topics: Mapping[str, str], *, depth: int = DEPTH,
               excluded: Mapping[str, set[str]] | None = None, tag: str | None = None, quiet: bool = True):
        """The run of ``topics`` (``{qid: text}``): the top ``depth`` documents per query, without the
        ``excluded`` documents of each query (e.g. the translation mates of a topical task), tagged
        ``tag`` (default: the system's name)."""
        raise NotImplementedError  # pragma: no cover

    def describe(self) -> dict:
        """JSON-ready record of the system: its class and hyper-parameters (nested systems described too)."""
        return {"system": type(self).__name__, "params": jsonable(self.get_params(deep=False))}


def jsonable(value):
    """``value`` with systems described, tuples as lists and numpy scalars as Python numbers."""
    if isinstance(value, System):
        return value.describe()
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def drop_excluded(run, excluded: Mapping[str, set[str]] | None):
    """``run`` without, per query, the documents listed in ``excluded`` (the run itself when none are)."""
    import numpy as np

    from clirkit.run import Run

    if not excluded:
        return run
    keep = np.fromiter((d not in excluded.get(q, ()) for q, d in zip(run.qids.tolist(), run.docids.tolist())),
                       dtype=bool, count=len(run))
    return Run(run.qids[keep], run.docids[keep], run.scores[keep], tag=run.tag)
