"""Write docs/reference.md, the Python reference, from the docstrings of clirkit's public names.

    python docs/reference.py            # rewrite docs/reference.md
    python docs/reference.py --check    # exit 1 when docs/reference.md is not what the docstrings make

The names are each module's ``__all__`` (or the list in :data:`SECTIONS`); a class shows its constructor's
signature, its docstring and its public methods' signatures with the first paragraph of their docstrings; a
function its signature and docstring; a constant its value. tests/test_reference.py runs ``--check``, so the
reference cannot fall behind the code.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path

OUT = Path(__file__).with_name("reference.md")
#: The Python that wrote the reference (how inspect writes a signature may change between versions).
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"

#: (module, title, names: None for the module's ``__all__``), in the order of the guides' tasks.
SECTIONS = (
    ("clirkit.retrieval.index", "Indexes", ("Index",)),
    ("clirkit.retrieval.shards", "Sharded indexes", ("ShardedIndex", "load_index")),
    ("clirkit.analysis", "Analysis", ("Analyzer",)),
    ("clirkit.translation", "Translation tables", None),
    ("clirkit.systems", "Systems", None),
    ("clirkit.estimator", "The contract", ("Resources", "System")),
    ("clirkit.boost", "BoostCLIR", None),
    ("clirkit.scs", "SCS", None),
    ("clirkit.scs.params", "SCS parameter groups", ("Shape", "Objective", "UnitSampling", "Schedule")),
    ("clirkit.fusion", "Fusion", None),
    ("clirkit.run", "Runs", ("Run",)),
    ("clirkit.formats", "File formats", None),
    ("clirkit.metrics", "Evaluation", ("evaluate", "Evaluation")),
    ("clirkit.significance", "Significance", ("randomization_test",)),
    ("clirkit.experiment", "Experiments", ("Experiment", "run_experiment", "Result")),
    ("clirkit.datasets", "Collections", ("load", "names", "variants", "Collection", "write_collection")),
)


def first_paragraph(doc: str | None) -> str:
    """The first paragraph of a docstring, its lines joined ("" for none)."""
    text = inspect.cleandoc(doc or "")
    return " ".join(text.split("\n\n")[0].split())


def signature(obj) -> str:
    """``(parameters)`` of a callable (a class: its constructor), "" when Python cannot tell."""
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""


def entry(module: str, name: str) -> list[str]:
    """The Markdown lines of one public name of ``module``."""
    obj = getattr(importlib.import_module(module), name)
    if inspect.isclass(obj):
        lines = [f"### `{name}{signature(obj)}`", "", inspect.cleandoc(obj.__doc__ or ""), ""]
        methods = [
            (m, f)
            for m, f in sorted(vars(obj).items())
            if not m.startswith("_") and (inspect.isfunction(f) or isinstance(f, (classmethod, staticmethod)))
        ]
        for m, f in methods:
            function = f.__func__ if isinstance(f, (classmethod, staticmethod)) else f
            lines.append(f"- `{name}.{m}{signature(function)}`: {first_paragraph(function.__doc__)}")
        return [*lines, ""] if methods else lines
    if callable(obj):
        return [f"### `{name}{signature(obj)}`", "", inspect.cleandoc(obj.__doc__ or ""), ""]
    if isinstance(obj, dict):  # (its values may be functions, whose repr holds an address)
        return [f"### `{name}`", "", f"a dict of {', '.join(f'`{k}`' for k in obj)}", ""]
    return [f"### `{name}`", "", f"`{obj!r}`", ""]


def reference() -> str:
    """The text of docs/reference.md."""
    lines = [
        "# clirkit Python reference",
        "",
        "Made from the docstrings by `python docs/reference.py` (do not edit: tests/test_reference.py checks it),",
        f"with Python {PYTHON}.",
        "The task guides ([README.md](README.md)) show how these fit together; `clirkit VERB --help` is the",
        "command line's reference.",
        "",
    ]
    for module, title, names in SECTIONS:
        listed = names if names is not None else importlib.import_module(module).__all__
        lines += [f"## {title} (`{module}`)", ""]
        for name in listed:
            lines += entry(module, name)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/reference.md is out of date")
    args = parser.parse_args(argv)
    text = reference()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.name} is out of date: run python docs/reference.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
