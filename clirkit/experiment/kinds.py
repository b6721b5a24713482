"""The kinds of system an experiment file names, and the class of each: the one table the runner reads.

A kind is a :class:`clirkit.estimator.System` subclass; everything the runner and the file checks need of it
is asked of the class (its parameters, ``file_keys``, ``system_keys``, ``params_from``, ``inputs``,
``keeps_model``, ``restore``, ``notes``, ``curves``, ``search_split``), so adding a kind is one entry here.
A test may add one (``monkeypatch.setitem(KINDS, "toy", Toy)``). Classes are named by import path so that
reading a file imports only the systems it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from clirkit.errors import ClirkitError

if TYPE_CHECKING:
    from clirkit.estimator import System

KINDS: dict[str, "str | type[System]"] = {
    "dt": "clirkit.systems:DT",
    "psq": "clirkit.psqsystem:PSQ",  # the side chosen from the resources: one of the next two
    "querypsq": "clirkit.querypsq:QueryPSQ",
    "docpsq": "clirkit.docpsqsystem:DocPSQ",
    "boost": "clirkit.boost:BoostRanker",
    "scs": "clirkit.scs:SCSModel",
    "bm25": "clirkit.systems:BM25Search",  # the queries untranslated (clirkit search): the floor
    "run": "clirkit.runsystem:RunFile",  # a run made elsewhere (its file key)
}
"""``kind = "..."`` of a ``[systems.NAME]`` table -> its class (or ``"module:Class"``)."""

FILE_PARAMS: dict[str, tuple[tuple[str, ...], str]] = {
    "background": (("collection", "parallel"), "a COUNT TOKEN file"),  # PSQ's and DocPSQ's language model's
}
"""Parameters that may name a file, whichever kind has them: ``{name: (its values that name none, the file it
names)}``. In an experiment file such a path is relative to the file, checked when the file is read and recorded by
its SHA-256 (a changed file makes the runs again)."""

FUSION = "clirkit.fusion.system:Fusion"
"""The class of every ``[fusions.NAME]`` table."""


def system_class(kind: str) -> "type[System]":
    """The class of ``kind`` (a key of :data:`KINDS`, or ``"fusion"``)."""
    entry = FUSION if kind == "fusion" else KINDS.get(kind)
    if entry is None:
        raise ClirkitError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if isinstance(entry, str):
        module, _, name = entry.partition(":")
        return getattr(importlib.import_module(module), name)
    return entry


def keys_of(cls: "type[System]") -> list[str]:
    """The keys of a system of class ``cls`` in an experiment file, after ``kind``: its file keys, the
    parameters naming other systems, then its other parameters, in their order (not those given in Python only,
    ``python_only``: a file key stands for them). A parameter in a group is a key of its own (``ngram``, not
    ``features``: :func:`~clirkit.paramgroups.flat_names`)."""
    from clirkit.paramgroups import flat_names

    params = [k for k in flat_names(cls) if k not in cls.python_only]
    return [*cls.file_keys, *cls.system_keys, *(k for k in params if k not in cls.system_keys)]
