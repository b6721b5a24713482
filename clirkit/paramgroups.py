"""Hyper-parameters in groups (issue 38), scikit-learn style: a system with many hyper-parameters takes some of them
as nested parameter objects (:class:`Group`: the boosted ranker's ``features``, ``sampling``, ``boosting`` and
``bagging``), so ``get_params(deep=True)`` gives ``features__ngram``, ``set_params(features__ngram=2)`` sets it and
``sklearn.base.clone`` copies the groups.

What the user writes flat stays flat: an experiment file's ``ngram = 2`` and a verb's ``--ngram 2``, the parameters
a model file records. The functions of this module speak of any system's parameters by those *flat* names
(:func:`flat_names`, :func:`flat_defaults`, :func:`flat_constraints`, :func:`flat_params`) and build a system of
them (:func:`from_flat`), a system without groups as it is (its flat names are its parameters).
"""

from __future__ import annotations

import inspect
from typing import Any, Mapping

from clirkit.constraints import validate
from clirkit.estimator import Parameters, jsonable


class Group(Parameters):
    """A group of a system's hyper-parameters: keywords of ``__init__`` kept under their names, their constraints in
    ``_parameter_constraints`` (checked by :meth:`check_params`, and by the system's ``check_params`` under the
    system's name); two groups are equal when of the same class with equal parameters."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.get_params(deep=False) == other.get_params(deep=False)  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable (set_params), so not hashable

    def check_params(self) -> None:
        """Each parameter against its constraints (``InvalidParameterError`` naming it and the group)."""
        self._validate_params()


class Grouped:
    """Mixin of a system (before :class:`~clirkit.estimator.System` in its bases) some of whose hyper-parameters
    are in groups: ``groups`` maps each group parameter to its :class:`Group` class (``__init__`` takes it,
    None meaning the class's defaults), ``flat_order`` the order of the flat names (an experiment file's keys)."""

    groups: dict[str, type[Group]] = {}
    flat_order: tuple[str, ...] = ()

    def _set_groups(self, given: Mapping[str, Any], flat: Mapping[str, Any]) -> None:
        """Keep each group given (None: a new one of the group's defaults); a flat keyword (``ngram=2``, the
        keywords before the groups) is a TypeError naming its group."""
        if flat:
            key = next(iter(flat))
            owner = _owner(type(self), key)
            name = type(self).__name__
            if owner is None:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument {key!r}")
            group = self.groups[owner]
            raise TypeError(
                f"{name}.__init__() got an unexpected keyword argument {key!r}: it is a parameter of the group "
                f"{owner!r}, {name}({owner}={group.__name__}({key}=...)) (or {name}.from_flat({key}=...))"
            )
        for key, group in self.groups.items():
            value = given[key]
            setattr(self, key, group() if value is None else value)

    @classmethod
    def from_flat(cls, **params):
        """A system of ``params`` given by their flat names (``ngram=2``), each gathered in its group; the
        groups themselves and the parameters outside them are taken as they are."""
        return cls(**grouped_keywords(cls, params))

    def flat_params(self) -> dict:
        """``{flat name: value}`` of every hyper-parameter (the groups' ones by their own names)."""
        out = {}
        for key, value in self.get_params(deep=False).items():  # type: ignore[attr-defined]
            if key in self.groups:
                out.update(value.get_params(deep=False))
            else:
                out[key] = value
        return out

    def check_flat_params(self) -> None:
        """Each parameter of the groups against its constraints, named as the system's (the messages of the
        parameters before they were grouped: ``The 'ngram' parameter of BoostRanker ...``); a bool is no number
        (``rounds=True`` is not 1 round, as in an experiment file)."""
        flat = self.flat_params()
        inner = {k: v for k, v in flat_constraints(type(self)).items() if k not in _own_names(type(self))}
        validate(inner, {k: flat[k] for k in inner}, type(self).__name__, bools_as_ints=False)

    def describe(self) -> dict:
        """JSON-ready record of the system: its class and its hyper-parameters by their flat names (as before
        they were grouped, so the records of experiments stay the same)."""
        return {"system": type(self).__name__, "params": jsonable(self.flat_params())}

    def _repr_default(self, key: str, defaults: dict) -> Any:
        """A group's default is a group at its defaults (``__repr__`` leaves it out)."""
        return self.groups[key]() if key in self.groups else super()._repr_default(key, defaults)  # type: ignore[misc]


def _groups(cls) -> dict[str, type[Group]]:
    return getattr(cls, "groups", {}) if isinstance(cls, type) and issubclass(cls, Grouped) else {}


def _own_names(cls) -> list[str]:
    """The parameters of ``cls`` that are not groups."""
    groups = _groups(cls)
    return [k for k in cls._get_param_names() if k not in groups]


def _owner(cls, name: str) -> str | None:
    """The group parameter of ``cls`` that holds the flat parameter ``name`` (None: no group holds it)."""
    return next((g for g, group in _groups(cls).items() if name in group._get_param_names()), None)


def _init_order(cls) -> list[str]:
    return [
        p.name
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind != p.VAR_KEYWORD
    ]


def flat_names(cls) -> list[str]:
    """The flat names of the hyper-parameters of ``cls``: its own parameters and its groups' (an experiment
    file's keys), in ``flat_order`` (else ``__init__`` order, a group's in its own)."""
    groups = _groups(cls)
    if not groups:
        return [k for k in _init_order(cls) if k in cls._get_param_names()]
    names = [n for k in _init_order(cls) for n in (_init_order(groups[k]) if k in groups else [k])]
    order = {k: i for i, k in enumerate(getattr(cls, "flat_order", ()))}
    return sorted(names, key=lambda k: order.get(k, len(order)))


def flat_defaults(cls) -> dict[str, Any]:
    """``{flat name: default}`` of the hyper-parameters of ``cls`` (a group's defaults are its class's)."""
    groups = _groups(cls)
    out: dict[str, Any] = {}
    for key, p in inspect.signature(cls.__init__).parameters.items():
        if key in groups:
            out.update(
                {k: q.default for k, q in inspect.signature(groups[key].__init__).parameters.items() if k != "self"}
            )
        elif key != "self" and p.kind != p.VAR_KEYWORD:
            out[key] = p.default
    return out


def flat_constraints(cls) -> dict[str, Any]:
    """``{flat name: constraints}`` of the hyper-parameters of ``cls`` (its own, less the groups', and its groups')."""
    groups = _groups(cls)
    out = {k: v for k, v in cls._parameter_constraints.items() if k not in groups}
    for group in groups.values():
        out.update(group._parameter_constraints)
    return out


def grouped_keywords(cls, params: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of ``cls(...)`` for ``params`` by flat names: each group's gathered in a new group (its other
    parameters at their defaults; a group given whole is taken as it is); an unknown name is left for ``cls`` to
    refuse."""
    groups = _groups(cls)
    out: dict[str, Any] = {}
    inner: dict[str, dict[str, Any]] = {}
    for key, value in params.items():
        owner = None if key in groups else _owner(cls, key)
        if owner is None:
            out[key] = value
        else:
            inner.setdefault(owner, {})[key] = value
    for owner, values in inner.items():
        if out.get(owner) is not None:
            raise TypeError(f"{next(iter(values))!r} is given both flat and in the group {owner!r}")
        out[owner] = groups[owner](**values)
    return out


def from_flat(cls, params: Mapping[str, Any]):
    """A system of class ``cls`` of ``params`` by their flat names (``cls(**params)`` for a class without
    groups)."""
    return cls(**grouped_keywords(cls, params))


def flat_params(system) -> dict[str, Any]:
    """``{flat name: value}`` of the hyper-parameters of ``system``."""
    if isinstance(system, Grouped):
        return system.flat_params()
    return system.get_params(deep=False)
