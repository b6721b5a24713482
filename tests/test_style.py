"""The code passes ruff (pyflakes, import order, line length 120: pyproject.toml's [tool.ruff]), as CI checks."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install '.[test]')")
    done = subprocess.run([ruff, "check", "--no-cache", "--output-format", "concise", str(ROOT)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
