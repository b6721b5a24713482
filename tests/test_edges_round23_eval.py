"""Edge round 23: ``clirkit eval`` reading standard input once, the notes of tests that gave no p-value, ``--test
none`` with one RUN, and the empty run in the docs and messages."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.significance import paired_t_test

ROOT = Path(__file__).parent.parent


def _write(folder: Path, **files: str) -> dict[str, str]:
    """Each ``name=text`` written to ``folder/name``; their paths by name."""
    paths = {}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        paths[name] = str(folder / name)
    return paths


# --------------------------------------------------------------------------- standard input read once


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ["--qrels", "QRELS", "-", "-"],
            "-: given twice among the RUNs (1st and 2nd): standard input can be read once, give it once",
        ),
        (
            ["--qrels", "QRELS", "A", "-", "-"],
            "-: given twice among the RUNs (2nd and 3rd): standard input can be read once, give it once",
        ),
        (
            ["--qrels", "-", "-"],
            "-: given as --qrels and as the 1st RUN: standard input can be read once, give the qrels or the run as "
            "a file",
        ),
    ],
)
def test_eval_refuses_standard_input_read_twice(tmp_path, capsys, args, says):
    paths = _write(tmp_path, QRELS="q1 0 d1 1\n", A="q1 Q0 d1 1 1 a\n")
    args = [paths.get(a, a) for a in args]
    assert main(["eval", *args, "-m", "AP", "--quiet"]) == 2
    assert capsys.readouterr() == ("", f"clirkit: error: {says}\n")


def test_eval_reads_standard_input_once_and_the_same_file_twice(tmp_path, capsys, monkeypatch):
    import io
    import sys

    paths = _write(tmp_path, QRELS="q1 0 d1 1\n", A="q1 Q0 d1 1 1 a\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"q1 Q0 d9 1 1 b\n")))
    assert main(["eval", "--qrels", paths["QRELS"], paths["A"], "-", paths["A"], "-m", "AP", "--quiet"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()[1:4]]
    assert rows == [[paths["A"], "1", "1.0000"], ["<stdin>", "1", "0.0000"], [paths["A"], "1", "1.0000"]]


# --------------------------------------------------------------------------- the empty run in eval/README.md


def test_eval_readme_says_an_empty_run_is_no_error_as_the_command_does(tmp_path, capsys):
    text = " ".join((ROOT / "eval" / "README.md").read_text(encoding="utf-8").split())
    bad_input = text[text.index("**Bad input**") :].split("- **", 1)[0]
    assert "empty run" not in bad_input
    assert "**An empty run** (a file of no lines) is no error" in text
    paths = _write(tmp_path, q3="q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n", empty="")
    assert main(["eval", "--qrels", paths["q3"], paths["empty"], "-m", "AP"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1].split() == [paths["empty"], "3", "0.0000"]
    assert err == f"{paths['empty']}: holds no results: each of the 3 judged queries scores 0\n"


# --------------------------------------------------------------------------- tests that gave no p-value


def test_eval_notes_a_run_sharing_no_judged_query_with_the_baseline(tmp_path, capsys):
    paths = _write(tmp_path, tq="q1 0 d1 1\nq2 0 d1 1\n", A1="q1 Q0 d1 1 1 t\n", B1="q2 Q0 d9 1 1 t\n")
    assert main(["eval", "--qrels", paths["tq"], paths["A1"], paths["B1"], "-m", "AP", "--average", "run"]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("#")]
    assert f"# {paths['B1']}: not tested, it shares no judged query with {paths['A1']}" in notes
    assert not any(line.startswith("# * =") for line in notes)


def test_eval_notes_a_t_test_over_one_shared_query_gave_no_p_value(tmp_path, capsys):
    paths = _write(
        tmp_path,
        tq="q1 0 d1 1\nq2 0 d1 1\n",
        A="q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n",
        B="q1 Q0 d9 1 1 t\nq1 Q0 d1 2 0 t\n",
    )
    args = ["eval", "--qrels", paths["tq"], paths["A"], paths["B"], "-m", "AP", "--average", "run", "--test", "t-test"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"# {paths['B']}: no p-value, it shares 1 query with {paths['A']} and the t-test needs 2\n" in out
    assert main([*args, "--format", "csv", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"{paths['B']},1,0.5,"


def test_t_test_of_the_same_nonzero_difference_on_every_query_is_undefined_and_said(tmp_path, capsys):
    result = paired_t_test([1.0, 1.0, 0.5], [0.5, 0.5, 0.0])
    assert math.isnan(result.p_value) and math.isnan(result.statistic) and result.mean_difference == -0.5
    assert paired_t_test([0.5, 0.25], [0.5, 0.25]).p_value == 1.0  # identical systems, as the randomization test
    paths = _write(
        tmp_path,
        tq="q1 0 d1 1\nq2 0 d1 1\n",
        A="q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n",
        B="q1 Q0 d9 1 1 t\nq1 Q0 d1 2 0 t\nq2 Q0 d9 1 1 t\nq2 Q0 d1 2 0 t\n",
    )
    args = ["eval", "--qrels", paths["tq"], paths["A"], paths["B"], "-m", "AP", "P@1", "--test", "t-test"]
    assert main(args) == 0
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if line.startswith(paths["B"])]
    assert row.split()[1:] == ["2", "0.5000", "0.0000"]  # no * mark
    assert (
        f"# {paths['B']}: no p-value for AP, P@1: the t-test is undefined, the difference from {paths['A']} being "
        "the same on each of the 2 shared queries\n"
    ) in out
    assert main([*args, "--format", "json"]) == 0
    tested = json.loads(capsys.readouterr().out)["runs"][1]["significance"]["AP"]
    assert tested["p_value"] is None and tested["significant"] is False


# --------------------------------------------------------------------------- --test none with one RUN


def test_eval_accepts_test_none_with_one_run(tmp_path, capsys):
    paths = _write(tmp_path, q="q1 0 d1 1\n", a="q1 Q0 d1 1 3.0 a\n")
    assert main(["eval", "--qrels", paths["q"], paths["a"], "--test", "none", "-m", "AP", "--quiet"]) == 0
    assert "1.0000" in capsys.readouterr().out
    assert main(["eval", "--qrels", paths["q"], paths["a"], "--test", "t-test", "-m", "AP", "--quiet"]) == 2
    assert "--test sets the test between runs, and one RUN makes no test: drop --test" in capsys.readouterr().err
    assert (
        main(["eval", "--qrels", paths["q"], paths["a"], "--test", "none", "--baseline", paths["a"], "-m", "AP"]) == 2
    )
    assert "--baseline names the run the others are tested against, and one RUN" in capsys.readouterr().err


# --------------------------------------------------------------------------- the empty run under --average run


EMPTY_UNDER_RUN = (
    "the run holds no results: there is no run query to average over; with --average qrels "
    '(average="qrels" in Python) each judged query would score 0'
)


def test_empty_run_under_average_run_names_the_qrels_average_as_the_other_choice(tmp_path, capsys):
    from clirkit.formats import read_qrels
    from clirkit.metrics import evaluate
    from clirkit.run import Run

    paths = _write(tmp_path, q3="q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n", empty="")
    assert main(["eval", "--qrels", paths["q3"], paths["empty"], "-m", "AP", "--average", "run"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {paths['empty']}: {EMPTY_UNDER_RUN}\n"
    with pytest.raises(ClirkitError) as caught:
        evaluate(Run([], [], []), read_qrels(paths["q3"]), ["AP"], average="run")
    assert str(caught.value) == EMPTY_UNDER_RUN
