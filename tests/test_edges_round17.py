"""Edge cases of the seventeenth round of independent testing, and leftovers of the sixteenth: each a one-line
error or notice that names the problem, or a message in the words the count calls for."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.errors import counted


def test_counted_gives_the_singular_for_one():
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(0, "entry", "entries") == "0 entries"
    assert counted(1234, "option") == "1,234 options"


def test_table_reports_of_one_pair_are_in_the_singular(tmp_path, capsys):
    (tmp_path / "pt").write_text("casa ||| house ||| 0.5 0.5 0.9 0.5\n", encoding="utf-8")
    argv = ["ttable", "convert", str(tmp_path / "pt"), "--format", "phrase-table", "--source-lang", "es"]
    assert main([*argv, "--target-lang", "en", "-o", str(tmp_path / "t.npz")]) == 0
    err = capsys.readouterr().err
    assert "1 phrase pair -> 1 source word, 1 option, p = score column 3" in err
    assert "1 x 1 words, 1 entry ->" in err
    (tmp_path / "pt").write_text("casa ||| house ||| 0.5 0.5 0 0.5\n", encoding="utf-8")
    assert main([*argv, "--target-lang", "en", "-o", str(tmp_path / "t.npz")]) == 2
    assert "no usable translations (1 entry read, 0 with a multi-word source side)" in capsys.readouterr().err
    (tmp_path / "d.tsv").write_text("casa\thouse\n", encoding="utf-8")
    argv = ["ttable", "convert", str(tmp_path / "d.tsv"), "--format", "pairs", "--source-lang", "es"]
    assert main([*argv, "--target-lang", "en", "-o", str(tmp_path / "d.npz")]) == 0
    assert "1 dictionary pair -> 1 entry, 1 source word, 1 option (uniform weights)" in capsys.readouterr().err
