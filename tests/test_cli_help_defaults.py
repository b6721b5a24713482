"""Every default a verb's --help shows is the real one: the "(default: X)" of each option that sets a system's
hyper-parameter, read from the help text as a user sees it, is that parameter's default in the system's class
(clirkit.cli.params.default_of), and every such option with a default shows it; --split-seed shows the
[collection] rule's seed."""
from __future__ import annotations

import argparse
import re

import pytest

from clirkit.cli import VERBS, build_parser
from clirkit.cli.params import default_of


def _parsers():
    """``(label, parser)`` of every verb and action."""
    for verb in VERBS:
        sub = next(a for a in build_parser([verb])._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[verb]
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if actions:
            yield from ((f"{verb} {name}", p) for name, p in actions[0].choices.items())
        else:
            yield verb, parser


def shown_defaults(parser: argparse.ArgumentParser, monkeypatch) -> dict[str, str]:
    """``{option: X}`` of the "(default: X)" the --help text shows, each option's entry read as printed (one
    wide line, or its invocation line and the help lines indented below it)."""
    monkeypatch.setenv("COLUMNS", "2000")  # no wrapping inside an entry's help
    entries: list[list[str]] = []
    for line in parser.format_help().splitlines():
        if re.match(r"  -", line):
            entries.append([line])
        elif entries and line.startswith(" " * 8) and line.strip():
            entries[-1].append(line)
        else:
            entries.append([])
    shown = {}
    for entry in filter(None, entries):
        text = " ".join(part.strip() for part in entry)
        invocation = re.split(r"\s{2,}", entry[0].strip())[0]
        found = re.search(r"\(default: (.*)\)$", text)
        for option in re.findall(r"(?:^|, )(--?[\w-]+)", invocation):
            shown[option] = found.group(1) if found else None
    return shown


CASES = list(_parsers())


@pytest.mark.parametrize("label, parser", CASES, ids=[label for label, _ in CASES])
def test_each_help_default_of_a_parameter_is_the_systems(label, parser, monkeypatch):
    shown = shown_defaults(parser, monkeypatch)
    checked = 0
    for action in parser._actions:
        cls = getattr(action, "system", None)
        if cls is None:
            continue
        option = max(action.option_strings, key=len)
        default = default_of(cls, action.dest.removeprefix("param__"))
        expected = list(default) if isinstance(default, tuple) else default
        if action.nargs == 0:  # a flag: its help says what it changes, never "(default: True)" for its parameter
            assert shown[option] not in ("True", "False"), (label, option)
            continue
        if expected is None:  # the help says what none means
            assert shown[option] is None, (label, option)
            continue
        assert shown[option] == str(expected), (label, option, shown[option], expected)
        checked += 1
    if label in ("dt", "psq", "search", "boost-train", "scs-train", "aggregate"):
        assert checked >= 3, label  # the verbs of the systems show their parameters' defaults


def test_the_help_shows_numbers_that_are_zero_as_defaults(monkeypatch):
    from clirkit.datasets.plain import PlainCollection

    parser = dict(CASES)["collection"]
    assert shown_defaults(parser, monkeypatch)["--split-seed"] == str(PlainCollection.__dataclass_fields__[
        "split_seed"].default) == "0"
    assert shown_defaults(dict(CASES)["dt"], monkeypatch)["--source-stopwords-top"] == "0"
