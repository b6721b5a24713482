"""``fit(resources)`` is the only ``fit`` (issue 38): every system of clirkit takes one argument besides self, a
:class:`~clirkit.estimator.Resources`, and anything else (an index, a path, a table) is a one-line ClirkitError
saying what it takes."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import clirkit
from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources, System, takes_resources
from clirkit.retrieval.index import Index

CHANGED_SEPARATELY = {"BoostRanker", "SCSModel"}  # their fit and parameters are changed separately (issue 38)
# the run they hold is a parameter: fit() reads no resources (an experiment's RunFile reads its file key)
RUN_HOLDERS = {"RunFile", "HeldRun"}


def an_index() -> Index:
    return Index.from_tokens(["d1"], [["luz"]], Analyzer("es"))


def every_system() -> list[type]:
    """Every subclass of System in clirkit, its modules imported (``__main__`` runs the command: not imported)."""
    for module in pkgutil.walk_packages(clirkit.__path__, "clirkit."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)

    def below(cls: type) -> list[type]:
        return [c for sub in cls.__subclasses__() for c in (sub, *below(sub))]

    found = {c for c in below(System) if c.__module__.startswith("clirkit.")}
    return sorted(found - {c for c in found if c.__name__ in CHANGED_SEPARATELY}, key=lambda c: c.__qualname__)


SYSTEMS = every_system()


def test_the_walk_finds_the_systems_users_fit():
    names = {c.__name__ for c in SYSTEMS}
    assert names >= {"BM25Search", "DT", "PSQ", "QueryPSQ", "DocPSQ", "Fusion", "RunFile"}


@pytest.mark.parametrize("cls", SYSTEMS, ids=lambda c: c.__name__)
def test_fit_takes_one_argument_the_resources(cls):
    parameters = [p for p in inspect.signature(cls.fit).parameters.values() if p.name != "self"]
    assert [(p.name, p.kind) for p in parameters] == [("resources", inspect.Parameter.POSITIONAL_OR_KEYWORD)]


@pytest.mark.parametrize("cls", SYSTEMS, ids=lambda c: c.__name__)
def test_fit_given_an_index_says_in_one_line_that_it_takes_resources(cls):
    with pytest.raises(ClirkitError) as caught:
        cls().fit(an_index())
    message = str(caught.value)
    said = "fit() (the run given)" if cls.__name__ in RUN_HOLDERS else "fit(Resources("
    assert message.startswith(f"{cls.__name__}.fit takes Resources: {said}") and message.endswith("got Index")
    assert "\n" not in message


def test_the_message_names_what_each_system_reads():
    from clirkit.systems import DT, PSQ, BM25Search, DocPSQ, Fusion

    said = {}
    for system, given in ((DT(), "ix.npz"), (BM25Search(), None), (DocPSQ(), {}), (PSQ(), 3), (Fusion(), [])):
        with pytest.raises(ClirkitError) as caught:
            system.fit(given)
        said[type(system).__name__] = str(caught.value)
    assert said == {
        "DT": "DT.fit takes Resources: fit(Resources(index=..., table=...)), got str",
        "BM25Search": "BM25Search.fit takes Resources: fit(Resources(index=...)), got NoneType",
        "DocPSQ": "DocPSQ.fit takes Resources: fit(Resources(index=..., reverse_table=...)), got dict",
        "PSQ": "PSQ.fit takes Resources: fit(Resources(index=..., table=... or reverse_table=...)), got int",
        "Fusion": "Fusion.fit takes Resources: fit(Resources(topics={'dev': ...}, qrels={'dev': ...})), got list",
    }
    with pytest.raises(ClirkitError, match=r"^PSQ.fit takes Resources: .*, got Index$"):
        PSQ().side(an_index())  # side takes what fit takes


def test_the_helper_returns_the_resources_it_is_given():
    from clirkit.systems import DT

    resources = Resources()
    assert takes_resources(DT(), resources) is resources


def test_the_form_from_before_says_in_one_line_that_fit_takes_one_resources():
    from clirkit.systems import DT, PSQ, QueryPSQ

    for cls in (DT, PSQ, QueryPSQ):
        with pytest.raises(ClirkitError) as caught:
            cls().fit(an_index(), "en-es.npz")
        assert str(caught.value) == f"{cls.__name__}.fit takes one Resources: {cls.fit_call}, got Index, str"
