"""A value cut short in a message says so: an ellipsis and, for text quoted from a file, its length (a cut value
must not be read as the whole value)."""

from __future__ import annotations

import pytest

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError, cut_repr, quoted
from clirkit.formats import read_run
from clirkit.termcounts import read_counts


def test_quoted_keeps_a_short_text_and_marks_a_long_one_with_its_length():
    assert quoted("abc") == "'abc'"
    assert quoted("x" * 40) == repr("x" * 40)
    assert quoted("x" * 41) == f"'{'x' * 40}...' (41 characters)"
    assert quoted("é" * 2000, 5) == "'ééééé...' (2,000 characters)"
    assert cut_repr([1, 2]) == "[1, 2]"
    assert cut_repr(list(range(100)), 12) == "[0, 1, 2,..." and len(cut_repr(list(range(100)))) == 40


@pytest.mark.parametrize("column, value", [(4, "1" * 60 + "x"), (3, "7" * 50 + "a")])
def test_a_long_bad_score_or_rank_of_a_run_is_shown_cut_with_its_length(tmp_path, column, value):
    fields = ["q1", "Q0", "d1", "1", "2.5", "tag"]
    fields[column] = value
    path = tmp_path / "a.run"
    path.write_text(" ".join(fields) + "\n", encoding="utf-8")
    with pytest.raises(ClirkitError) as caught:
        read_run(path)
    assert f"{value[:40]}...' ({len(value)} characters)" in str(caught.value)


def test_a_long_bad_line_of_a_term_count_file_is_shown_cut_with_its_length(tmp_path):
    path = tmp_path / "eng.cnt"
    line = "12 " + "word " * 30
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"\.\.\.' \(153 characters\)$"):
        read_counts(path, Analyzer("en"))
