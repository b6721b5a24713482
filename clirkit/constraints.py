"""Hyper-parameter constraints and the check of a system's parameters against them.

The vocabulary and the messages are scikit-learn's (``sklearn.utils._param_validation``): a parameter's
constraints are a list, satisfied by one of an :class:`Interval` of numbers, an :class:`Options` or
:class:`StrOptions` set, ``None``, a type (an instance of it), or ``"boolean"``; a value that satisfies none is
refused with ``The 'k1' parameter of PSQ must be a float in the range [0.0, inf). Got -1 instead.``. They are
stated here, not imported, because importing scikit-learn costs every command about 0.7 s and 127 MB of
memory (its package imports scipy.stats and pandas; eval/README.md, "the fixed cost of importing the
systems") for a check of a few numbers; ``tests/test_constraints.py`` checks every constraint clirkit's systems
declare against scikit-learn's own on the same values, messages included.
"""

from __future__ import annotations

import math
import operator
from numbers import Integral, Real
from typing import AbstractSet, Any, Mapping

import numpy as np

from clirkit.errors import ClirkitError


class InvalidParameterError(ClirkitError, ValueError, TypeError):
    """A hyper-parameter whose value satisfies none of its constraints (scikit-learn's class of the same name), made
    of its fields: the ``parameter``'s name, the ``caller`` (the system's name), the ``allowed`` values in words and
    the ``value``; ``got`` shows the value after the allowed words (default: ``. Got VALUE instead.``). The message
    is scikit-learn's, ``The 'k1' parameter of PSQ must be ALLOWED. Got -1 instead.``; :meth:`worded` says the same
    of another subject (the command line's ``--k1 (PSQ's k1)``). A user mistake, so a :class:`ClirkitError`."""

    def __init__(self, parameter: str, caller: str, allowed: str, value: Any, *, got: str | None = None) -> None:
        self.parameter, self.caller, self.allowed, self.value = parameter, caller, allowed, value
        self.got = f". Got {value!r} instead." if got is None else got
        super().__init__(self.worded(f"The {parameter!r} parameter of {caller}"))

    def __reduce__(self):  # the fields, not the message, rebuild it (e.g. raised in a worker process)
        return type(self), (self.parameter, self.caller, self.allowed, self.value), {"got": self.got}

    def showing(self, value: Any) -> InvalidParameterError:
        """The same error with ``value`` shown as the value got: the value as the user wrote it (an experiment
        file's list, which becomes a tuple in the system); a ``got`` of the caller's own words is kept."""
        if self.got != f". Got {self.value!r} instead.":
            return self
        return type(self)(self.parameter, self.caller, self.allowed, value)

    def worded(self, subject: str) -> str:
        """The message with ``subject`` in place of ``The 'k1' parameter of PSQ``."""
        return f"{subject} must be {self.allowed}{self.got}"


class Constraint:
    """A set of allowed values: :meth:`is_satisfied_by` a value, and its description in words (``str``)."""

    hidden = False

    def is_satisfied_by(self, val: Any) -> bool:  # pragma: no cover - every constraint has its own
        raise NotImplementedError


class Interval(Constraint):
    """The numbers of ``type`` (``Integral`` or ``Real``) between ``left`` and ``right`` (None: unbounded),
    ``closed`` on the ``left``, the ``right``, ``both`` sides or ``neither``. NaN is in no interval."""

    def __init__(self, type: type, left: float | None, right: float | None, *, closed: str) -> None:
        if type not in (Integral, Real):
            raise ValueError(f"type must be numbers.Integral or numbers.Real, got {type}")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be 'left', 'right', 'both' or 'neither', got {closed!r}")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def __contains__(self, val) -> bool:
        if not isinstance(val, Integral) and math.isnan(val):
            return False
        below = operator.lt if self.closed in ("left", "both") else operator.le
        above = operator.gt if self.closed in ("right", "both") else operator.ge
        left = -np.inf if self.left is None else self.left
        right = np.inf if self.right is None else self.right
        return not below(val, left) and not above(val, right)

    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, self.type) and val in self

    def __str__(self) -> str:
        integers = self.type is Integral
        left = "-inf" if self.left is None else (self.left if integers else float(self.left))
        right = "inf" if self.right is None else (self.right if integers else float(self.right))
        return (
            f"{'an int' if integers else 'a float'} in the range {'[' if self.closed in ('left', 'both') else '('}"
            f"{left}, {right}{']' if self.closed in ('right', 'both') else ')'}"
        )


class Options(Constraint):
    """The values of ``options``, instances of ``type``."""

    def __init__(self, type: type, options: AbstractSet) -> None:
        self.type, self.options = type, options

    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, self.type) and val in self.options

    def __str__(self) -> str:  # sorted: a set's order changes from run to run (scikit-learn's iterates it)
        values = ", ".join(repr(o) for o in _sorted(self.options))
        if self.type is not str:  # numbers as written: "-1", "one of 1, 2" (not "a int among {-1}")
            return values if len(self.options) == 1 else f"one of {values}"
        return f"a {_type_name(self.type)} among {{{values}}}"


def _sorted(options: AbstractSet) -> list:
    """``options`` in order: by value, or by their ``repr`` when they do not compare (a str and a number)."""
    try:
        return sorted(options)
    except TypeError:
        return sorted(options, key=repr)


class StrOptions(Options):
    """The strings of ``options`` (a set, or a live view such as a dict's keys)."""

    def __init__(self, options: AbstractSet[str]) -> None:
        super().__init__(str, options)


class _InstancesOf(Constraint):
    def __init__(self, type: type) -> None:
        self.type = type

    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, self.type)

    def __str__(self) -> str:
        return f"an instance of {_type_name(self.type)!r}"


class _NoneConstraint(Constraint):
    def is_satisfied_by(self, val) -> bool:
        return val is None

    def __str__(self) -> str:
        return "None"


class _Booleans(Constraint):
    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, (bool, np.bool_))

    def __str__(self) -> str:
        return "an instance of 'bool' or an instance of 'numpy.bool'"


def _type_name(t: type) -> str:
    if t.__module__ == "builtins":
        return t.__qualname__
    if t is Real:
        return "float"
    if t is Integral:
        return "int"
    return f"{t.__module__}.{t.__qualname__}"


def make_constraint(constraint) -> Constraint:
    """The :class:`Constraint` a list entry stands for: itself, ``None``, a type or ``"boolean"``."""
    if isinstance(constraint, Constraint):
        return constraint
    if constraint is None:
        return _NoneConstraint()
    if isinstance(constraint, type):
        return _InstancesOf(constraint)
    if constraint == "boolean":
        return _Booleans()
    raise ValueError(f"unknown constraint {constraint!r}")


def validate(
    constraints: Mapping[str, list], params: Mapping[str, Any], caller: str, *, bools_as_ints: bool = True
) -> None:
    """InvalidParameterError naming the first of ``params`` (name -> value) whose value satisfies none of its
    ``constraints`` (name -> list; a parameter without any, or with ``"no_validation"``, is not checked);
    ``caller``: the system's name. ``bools_as_ints=False``: a bool is no number of an :class:`Interval` (an
    experiment file's ``rounds = true`` is not 1 round); scikit-learn's (the default) takes True as 1."""
    for name, value in params.items():
        if name not in constraints or constraints[name] == "no_validation":
            continue
        made = [make_constraint(c) for c in constraints[name]]
        if any(
            c.is_satisfied_by(value) and (bools_as_ints or not (isinstance(value, bool) and isinstance(c, Interval)))
            for c in made
        ):
            continue
        shown = [c for c in made if not c.hidden]
        allowed = str(shown[0]) if len(shown) == 1 else f"{', '.join(str(c) for c in shown[:-1])} or {shown[-1]}"
        raise InvalidParameterError(name, caller, allowed, value)


def int64_at_least(value, least: int) -> bool:
    """Whether ``value`` is an int (not a bool) in ``[least, 2**63 - 1]``: an integer numpy's int64 holds, as an
    experiment file's integers and the command line's (``clirkit.cli.common``) must be."""
    return not isinstance(value, bool) and isinstance(value, int) and least <= value < 2**63


def positive(cls=Integral) -> Interval:
    """An ``Interval`` of ``cls`` from 1 up."""
    return Interval(cls, 1, None, closed="left")


def at_least_zero(cls=Integral) -> Interval:
    """An ``Interval`` of ``cls`` from 0 up."""
    return Interval(cls, 0, None, closed="left")


class MinimumGrade(Interval):
    """The least relevance grade of a relevant document: an int from 1, since every unjudged document has grade 0
    (as ``eval --rel-threshold`` and a measure's ``(rel=N)``)."""

    def __init__(self) -> None:
        super().__init__(Integral, 1, None, closed="left")

    def __str__(self) -> str:
        return f"{super().__str__()} (unjudged documents have grade 0)"


class Number(Interval):
    """scikit-learn's ``Interval`` of real numbers, refusing a bool (True is not a beta of 1)."""

    def is_satisfied_by(self, val) -> bool:
        return not isinstance(val, bool) and super().is_satisfied_by(val)


class Numbers(Number):
    """A list or tuple of numbers, each in the interval (scikit-learn has no constraint for a list of numbers)."""

    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, (list, tuple)) and all(super(Numbers, self).is_satisfied_by(v) for v in val)

    def __str__(self) -> str:
        return f"a list or tuple, each {super().__str__()}"


class FiniteNumbers(Numbers):
    """A list, tuple or one-dimensional array of finite numbers, none a bool, each in ``[low, high]`` when given (an
    SCS model's thresholds; its MSE targets, cosines in [-1, 1])."""

    def __init__(self, low: float | None = None, high: float | None = None) -> None:
        super().__init__(Real, low, high, closed="both" if low is not None and high is not None else "neither")
        self.bounds = (low, high)

    def is_satisfied_by(self, val) -> bool:
        if isinstance(val, np.ndarray):
            val = val.tolist() if val.ndim == 1 else None
        return super().is_satisfied_by(val)

    def __str__(self) -> str:
        low, high = self.bounds
        return "a list or tuple of finite numbers" + (f" in [{low}, {high}]" if low is not None else "")
