"""docs/reference.md is what the docstrings make (docs/reference.py): the Python reference cannot fall behind."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_reference_is_what_the_docstrings_make():
    made_with = re.search(r"with Python (\d+\.\d+)\.", (ROOT / "docs" / "reference.md").read_text(encoding="utf-8"))
    if made_with is None or made_with.group(1) != f"{sys.version_info.major}.{sys.version_info.minor}":
        pytest.skip("docs/reference.md was written by another Python (signatures may be written otherwise)")
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "reference.py"), "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr


def test_the_reference_names_every_system_and_the_contract():
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    for name in (
        "BM25Search",
        "DT",
        "PSQ",
        "QueryPSQ",
        "DocPSQ",
        "Boost",
        "SCS",
        "Fusion",
        "RunFile",
        "Resources",
        "BoostRanker",
    ):
        assert f"### `{name}(" in text, name
