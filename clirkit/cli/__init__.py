"""The ``clirkit`` command: one subcommand per user task.

Each verb lives in its own module of this package and exposes
``add_parser(subparsers)``, which registers the verb and sets ``func`` to a
function taking the parsed arguments and returning an exit status. ``main``
turns :class:`~clirkit.errors.ClirkitError` into ``clirkit: error: ...`` on
stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from clirkit import __version__
from clirkit.errors import ClirkitError

# verb modules, in the order `clirkit --help` lists them
COMMAND_MODULES = [
    "demo",
    "index",
    "search",
    "ttable",
    "dt",
    "psq",
    "eval",
    "scs_train",
    "scs_score",
    "aggregate",
    "boost_train",
    "boost_rank",
    "boost_show",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="clirkit",
        description="Cross-language information retrieval: baselines, boosting, aggregation, evaluation.",
    )
    parser.add_argument("--version", action="version", version=f"clirkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(f"clirkit.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
    except ClirkitError as exc:
        message = " ".join(str(exc).split("\n"))
        print(f"clirkit: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("clirkit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return int(status or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
