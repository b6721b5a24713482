"""The hyper-parameters of a :class:`~clirkit.boost.ranker.BoostRanker` that a training leaves unused: those of a
base ranker without one, the weight of the extra tuples without any, early stopping without dev queries, the
depth of a candidate run without one. The library (:meth:`~clirkit.boost.ranker.BoostRanker.fit`), the command
line (``clirkit boost-train``) and the experiment file refuse them through :func:`unused_params`, each naming the
parameter and its remedy in its own words."""

from __future__ import annotations

import inspect
from typing import Iterable, NamedTuple

from clirkit.errors import ClirkitError

# what a training needs for a parameter to have an effect: a base ranker, extra tuples, dev queries, or a run
# that ranks candidates (a base run, or a candidate run)
BASE, EXTRA, DEV, RANKED = "base", "extra", "dev", "ranked"
NO_BETA = "no beta"  # what beta_grid needs besides a base: no beta given

# what each parameter does (for its message), and what it needs
NEEDS = {
    "beta": ("weighs a base ranker's scores", BASE),
    "beta_grid": ("gives the weights of a base ranker's scores tried on dev", BASE),
    "significance": ("tests the boosted model against a base ranker", BASE),
    "hard_negatives": ("draws negatives from a base ranker's run", BASE),
    "parallel_weight": ("weighs the extra tuples (parallel or known-item ones)", EXTRA),
    "candidate_depth": ("gives the ranks of a candidate or base run that hard negatives come from", RANKED),
    "patience": ("stops boosting early on the dev queries", DEV),
    "eval_every": ("scores the dev queries every N rounds for early stopping", DEV),
    "eval_depth": ("scores the dev queries at this depth for early stopping", DEV),
}


class Unused(NamedTuple):
    """A parameter a training leaves unused: its name, what it does, and what it needs (:data:`NEEDS`)."""

    name: str
    does: str
    needs: str


def unused_params(
    names: Iterable[str], *, base: bool, extra: bool, dev: bool | None, candidates: bool = False, beta: bool = False
) -> list[Unused]:
    """The parameters of ``names`` (in their order; names not in :data:`NEEDS` are always read) that a training
    leaves unused: with a base ranker (``base``) or not, extra tuples (``extra``), dev queries (``dev``; None when
    not yet known: early stopping's parameters are then not judged), a candidate run (``candidates``), and a
    ``beta`` given (``beta``: then ``beta_grid``, the betas tried without one, is unused too; its ``needs`` is
    ``"no beta"``; ``significance`` with a base needs dev queries too)."""
    have = {BASE: base, EXTRA: extra, DEV: True if dev is None else dev, RANKED: base or candidates}
    out = []
    for name in names:
        if name in NEEDS and not have[NEEDS[name][1]]:
            out.append(Unused(name, *NEEDS[name]))
        elif name == "beta_grid" and beta:
            out.append(Unused(name, "gives the betas tried on dev without a beta", NO_BETA))
        elif name == "significance" and dev is False:  # with a base: the test is made on the dev queries
            out.append(Unused(name, "tests the boosted model against a base ranker on the dev queries", DEV))
    return out


def set_away_from_defaults(params: dict) -> list[str]:
    """The parameters of :data:`NEEDS` in ``params`` (a ranker's, by flat name) whose values differ from the
    ranker's defaults (a sequence equal to a tuple default item by item is not)."""
    from clirkit.boost.params import Bagging, Boosting, PairFeatures, TupleSampling

    defaults = {
        name: parameter.default
        for group in (PairFeatures, TupleSampling, Boosting, Bagging)
        for name, parameter in inspect.signature(group).parameters.items()
    }
    out = []
    for name in NEEDS:
        value, default = params[name], defaults[name]
        if isinstance(default, tuple):
            same = not isinstance(value, str) and list(value) == list(default)
        else:
            same = value is default if default is None or value is None else value == default
        if not same:
            out.append(name)
    return out


def set_or_written(params: dict, written) -> list[str]:
    """The parameters of :data:`NEEDS` (in its order) set away from their defaults in ``params``
    (:func:`set_away_from_defaults`) or among ``written``, the keys an experiment file writes (even at their
    defaults: the file says the training reads them)."""
    away = set(set_away_from_defaults(params))
    return [name for name in NEEDS if name in away or name in written]


# what to write for a key to have an effect, in an experiment file's words
_FILE_REMEDY = {
    "base": 'add base = "SYSTEM"',
    "extra": "add parallel_tuples = true",
    "dev": "give the collection a dev split",
    "ranked": 'add base = "SYSTEM"',
    "no beta": "remove beta",
}


def check_unused_keys(written, options, dev: bool | None = None) -> None:
    """ClirkitError for a key of ``written`` (a boost system's parameter keys of an experiment file) that the
    file's other keys (``options``: its ``base`` and ``parallel_tuples``) and the collection's dev split (``dev``,
    None when not known) leave unused (:func:`unused_params`), e.g. ``beta weighs a base
    ranker's scores: add base = "SYSTEM", or remove beta``."""
    written = list(written)
    unused = unused_params(
        written,
        base="base" in options,
        extra=bool(options.get("parallel_tuples")),
        dev=dev,
        beta="beta" in written,
    )
    for name, does, needs in unused[:1]:
        raise ClirkitError(f"{name} {does}: {_FILE_REMEDY[needs]}, or remove {name}")


def check_eval_every(
    rounds: int, eval_every: int, dev: bool, names: tuple[str, str] = ("rounds", "eval_every")
) -> None:
    """ClirkitError when dev queries are given (``dev``) with an ``eval_every`` (rounds between two dev scores; call
    this only when it was given, not left at its default) more than ``rounds`` (the most boosted): the dev queries
    would be scored only after the last round, with no early stopping. ``names``: how the two are called
    (``--rounds``, ``--eval-every`` on the command line)."""
    if dev and eval_every > rounds:
        raise ClirkitError(
            f"{names[1]} {eval_every} is more than {names[0]} {rounds}: the dev queries would be scored only after "
            f"the last round (no early stopping); give {names[1]} <= {names[0]}, or leave it out"
        )
