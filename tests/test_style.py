"""The code passes ruff (pyflakes, import order, line length 120: pyproject.toml's [tool.ruff]), is laid out by
``ruff format``, and the modules listed in pyproject.toml's [tool.mypy] pass mypy, as CI checks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    """The path of the console script ``name`` installed beside this Python, else on PATH; skip if neither."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install '.[test]')")
    return found


def test_ruff_check_is_clean():
    done = subprocess.run(
        [_tool("ruff"), "check", "--no-cache", "--output-format", "concise", str(ROOT)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_is_laid_out_by_ruff_format():
    done = subprocess.run(
        [_tool("ruff"), "format", "--check", "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, "run `ruff format .`; " + done.stdout + done.stderr


def test_the_listed_modules_pass_mypy(tmp_path):
    done = subprocess.run(
        [_tool("mypy"), "--cache-dir", str(tmp_path / "cache"), "--no-error-summary"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
