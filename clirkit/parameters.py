"""scikit-learn's estimator protocol without scikit-learn: :class:`Parameters`, the base of every system
(:class:`clirkit.estimator.System`, which this module's class is imported into) and of the groups of a system's
parameters (:mod:`clirkit.paramgroups`)."""

from __future__ import annotations

from typing import Any

from clirkit.constraints import validate


class Parameters:
    """The hyper-parameters of an object that takes them all as keywords of ``__init__`` and keeps each under its
    name: scikit-learn's ``BaseEstimator`` protocol (``get_params``, ``set_params``, a repr of the changed ones),
    without importing scikit-learn (:mod:`clirkit.constraints` says why); ``sklearn.base.clone`` works on it."""

    _parameter_constraints: dict = {}
    runtime_params: tuple[str, ...] = ()  # parameters of how it runs (progress, workers), not of what it learns

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """The names of ``__init__``'s parameters, sorted."""
        import inspect

        if cls.__init__ is object.__init__:
            return []
        found = [
            p
            for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "self" and p.kind != p.VAR_KEYWORD
        ]
        if any(p.kind == p.VAR_POSITIONAL for p in found):
            raise RuntimeError(f"{cls.__name__}.__init__ takes *args: give every parameter its name")
        return sorted(p.name for p in found)

    def get_params(self, deep: bool = True) -> dict:
        """``{name: value}`` of the parameters (``deep``: with ``name__sub`` for those of nested objects)."""
        out: dict[str, Any] = {}
        for key in self._get_param_names():
            value = getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{key}__{k}", v) for k, v in value.get_params().items())
            out[key] = value
        return out

    def set_params(self, **params) -> "Parameters":
        """Set parameters by name (``name__sub`` sets one of a nested object's); returns self. One that changes a
        parameter other than ``runtime_params`` forgets what was learned with the old one (:meth:`forget_fit`)."""
        if not params:
            return self
        before = self.get_params(deep=True)
        self._set_params(params)
        after = self.get_params(deep=True)
        changed = [k for k, v in after.items() if k not in before or not _same(v, before[k])]
        if any(k.partition("__")[0] not in self.runtime_params for k in changed):
            self.forget_fit()
        return self

    def forget_fit(self) -> None:
        """Drop the learned attributes (those whose names end with ``_``): the object is as before ``fit``."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)

    def _set_params(self, params: dict) -> None:
        valid = self.get_params(deep=True)
        nested: dict[str, dict] = {}
        for key, value in params.items():
            key, delim, sub = key.partition("__")
            if key not in valid:
                raise ValueError(
                    f"Invalid parameter {key!r} for estimator {self}. Valid parameters are: "
                    f"{self._get_param_names()!r}."
                )
            if delim:
                nested.setdefault(key, {})[sub] = value
            else:
                setattr(self, key, value)
                valid[key] = value
        for key, sub_params in nested.items():
            valid[key].set_params(**sub_params)

    def _validate_params(self) -> None:
        validate(self._parameter_constraints, self.get_params(deep=False), type(self).__name__, bools_as_ints=False)

    def __repr__(self) -> str:
        import inspect

        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = []
        for key, value in self.get_params(deep=False).items():
            default = self._repr_default(key, defaults)
            try:
                same = value is default or bool(value == default)
            except (TypeError, ValueError):  # e.g. arrays
                same = False
            if not same:
                changed.append(f"{key}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def _repr_default(self, key: str, defaults: dict) -> Any:
        """The default ``__repr__`` leaves out for parameter ``key`` (``defaults``: the constructor's)."""
        import inspect

        return defaults.get(key, inspect.Parameter.empty)


def _same(a: Any, b: Any) -> bool:
    """Whether parameter values ``a`` and ``b`` are the same (numpy arrays by their elements)."""
    if a is b:
        return True
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return bool(np.array_equal(a, b))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
