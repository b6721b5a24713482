"""Options shared by several verbs."""
from __future__ import annotations

import argparse


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default in ``--help``."""


def add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def add_seed(parser: argparse.ArgumentParser, default: int = 0) -> None:
    parser.add_argument("--seed", type=int, default=default, help="random seed")


def add_jobs(parser: argparse.ArgumentParser, default: int = 1) -> None:
    parser.add_argument("-j", "--jobs", type=int, default=default, help="parallel worker processes")


def add_verb(sub, name: str, help: str, func) -> argparse.ArgumentParser:
    """Register a verb with clirkit's help formatter and its run function."""
    parser = sub.add_parser(name, help=help, description=help, formatter_class=HelpFormatter)
    parser.set_defaults(func=func)
    return parser
