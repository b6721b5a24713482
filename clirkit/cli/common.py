"""Options shared by several verbs."""
from __future__ import annotations

import argparse


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default in ``--help``, except for required options, positionals, flags and
    options without a default (no "(default: None)")."""

    def _get_help_string(self, action: argparse.Action) -> str:
        help_text = action.help or ""
        if (action.required or not action.option_strings or action.default in (None, False, argparse.SUPPRESS)
                or "%(default)" in help_text):
            return help_text
        return super()._get_help_string(action)


def add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def add_seed(parser: argparse.ArgumentParser, default: int = 0) -> None:
    parser.add_argument("--seed", type=int, default=default, help="random seed")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_jobs(parser: argparse.ArgumentParser, default: int = 1) -> None:
    parser.add_argument("-j", "--jobs", type=positive_int, default=default, help="parallel worker processes")


def add_verb(sub, name: str, help: str, func) -> argparse.ArgumentParser:
    """Register a verb with clirkit's help formatter and its run function: ``help`` describes it in
    ``clirkit VERB --help``, the one-line summary of :data:`clirkit.cli.VERBS` lists it in ``clirkit --help``."""
    from clirkit.cli import VERBS

    parser = sub.add_parser(name, help=VERBS[name][1], description=help, formatter_class=HelpFormatter)
    parser.set_defaults(func=func)
    return parser


def language(code: str) -> str:
    """argparse type of a language option: an ISO 639-1 code."""
    from clirkit.languages import check_language

    try:
        return check_language(code)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_language_options(group, *, source_default: str | None = None, target_default: str | None = None,
                         files_only: bool = False, source: bool = True, target: bool = True) -> None:
    """``--source-lang`` (the queries' language) and ``--target-lang`` (the documents'), the same two
    names on every verb."""
    note = " (files only: a collection knows its languages)" if files_only else ""
    if source:
        group.add_argument("--source-lang", type=language, default=source_default, metavar="LANG",
                           help=f"language of the queries / source side, ISO 639-1{note}")
    if target:
        group.add_argument("--target-lang", type=language, default=target_default, metavar="LANG",
                           help=f"language of the documents / target side, ISO 639-1{note}")
