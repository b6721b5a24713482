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
SYSTEM_KIND = "clirkit-system"
SYSTEM_VERSION = 1


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

    def learned_state(self) -> dict:
        """JSON-ready learned state written by :meth:`save` (none by default: DT and PSQ learn nothing; their
        index and table are files of their own)."""
        return {}

    def restore_state(self, state: dict) -> None:
        """Set the learned state read back by :meth:`load`."""

    def save(self, path) -> None:
        """Write the system's class, hyper-parameters and learned state as ``.npz`` + JSON (no pickle).
        Nested systems (a fusion's members) are described, not saved: save them on their own."""
        from clirkit.npzio import save_npz

        save_npz(path, SYSTEM_KIND, SYSTEM_VERSION, {**self.describe(), "state": self.learned_state()}, {})

    @classmethod
    def load(cls, path, **params) -> "System":
        """Read a system written by :meth:`save` (``params`` set the ones not saved, e.g. a fusion's
        ``systems``); it must be of this class. DT and PSQ then need ``fit(index, table)``."""
        from clirkit.npzio import load_npz

        header, _ = load_npz(path, SYSTEM_KIND, (SYSTEM_VERSION,), ())
        if header.get("system") != cls.__name__:
            raise ClirkitError(f"{path}: holds a {header.get('system')!r} system, not a {cls.__name__}")
        saved = header.get("params")
        if not isinstance(saved, dict):
            raise ClirkitError(f"{path}: corrupt system file (params is not an object)")
        given = {k: v for k, v in saved.items() if not _describes_systems(v)}
        try:
            system = cls(**{**given, **params})
        except TypeError as exc:
            raise ClirkitError(f"{path}: corrupt system file ({exc})") from None
        system.check_params()
        system.restore_state(header.get("state") or {})
        return system

    def describe(self) -> dict:
        """JSON-ready record of the system: its class and hyper-parameters (nested systems described too)."""
        return {"system": type(self).__name__, "params": jsonable(self.get_params(deep=False))}


def _describes_systems(value) -> bool:
    """True for a :meth:`System.describe` record, or a non-empty list of them (nested systems in a file)."""
    if isinstance(value, list):
        return bool(value) and all(_describes_systems(v) for v in value)
    return isinstance(value, dict) and "system" in value and "params" in value


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
