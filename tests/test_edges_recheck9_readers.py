"""Issue 40, re-check of edge test 9: the readers and their messages. TSV header lines matched without regard to
case, with the names PyTerrier and MS MARCO use (``qid TAB query TAB narr``, ``docno TAB title TAB body``,
``pid TAB passage``); a header error names only what the verb reading the file offers; ``psq --index`` given a
table; backslashes in Markdown cells; the id rule in a frame's message.

The texts are the Genesis verses of conftest.py and Nave's topic words.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_edges_cli5 import _psq_files
from test_formats import error_of, write_text

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.metrics import Evaluation
from clirkit.report import Report
from clirkit.run import Run

ANALYZER = Analyzer("es")


# --------------------------------------------------------------------------- R11: '\' in Markdown cells


def test_a_report_s_markdown_escapes_a_backslash_before_a_pipe():
    # "a\|b" written as "a\\|b" would end the cell at the "|" (GFM): the backslash is escaped first
    evaluation = Evaluation(("AP",), np.array(["LIGHT.1"]), np.array([[0.5]]), "qrels", "t", (), ())
    table = Report(["DT\\|PSQ*"], [evaluation], qrels="qrels").markdown().splitlines()
    assert table[2] == "| DT\\\\\\|PSQ\\* | 1 | 0.5000 |"


# --------------------------------------------------------------------------- R9: the id rule of a frame's message


@pytest.mark.parametrize(
    ("docno", "problem"), [("Gen.1\x00.1", "contains a NUL character"), ("G" * 1001, "is longer than 1,000 characters")]
)
def test_a_frame_s_bad_id_message_states_the_whole_rule(docno, problem):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["LIGHT"], "docno": [docno], "score": [1.0]})
    message = error_of(Run.from_frame, frame)
    assert problem in message
    assert message.endswith(
        "give every row a docno a run file can hold (non-empty, without whitespace or NUL, at most 1,000 characters)"
    )


# --------------------------------------------------------------------------- new problem 8: a table as psq's --index


def test_psq_given_a_table_as_its_index_says_so_not_that_table_is_required(tmp_path, capsys):
    psq = _psq_files(tmp_path)  # ix.npz, q.tsv and the tables t.npz, t2.npz
    capsys.readouterr()
    table = str(tmp_path / "t.npz")
    argv = [*psq[:1], "--index", table, *psq[3:], "-o", str(tmp_path / "x.run"), "-q"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {table}: not a clirkit index file (it holds a 'translation-table')")
    assert err.count("\n") == 1 and "--table is required" not in err
    assert not (tmp_path / "x.run").exists()
