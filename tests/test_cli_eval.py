"""`clirkit eval`: tables in four formats, significance marks, 3-column qrels, error exits."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.metrics import evaluate
from clirkit.run import Qrels, Run

N_QUERIES = 12


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    """Qrels for 12 queries (verse ids as docids); a weak run and a strong run (relevant doc on top)."""
    qrels, weak, strong = [], [], []
    for q in range(N_QUERIES):
        qid = f"Gen.{q + 1}"
        rel = f"Gen.{q + 1}.1"
        qrels += [f"{qid} 0 {rel} 2", f"{qid} 0 Gen.{q + 1}.2 1", f"{qid} 0 Gen.{q + 1}.3 0"]
        others = [f"John.{q + 1}.{i}" for i in range(1, 6)]
        for rank, d in enumerate(others[:3] + [rel] + others[3:], start=1):
            weak.append(f"{qid} Q0 {d} {rank} {10 - rank} weak")
        for rank, d in enumerate([rel] + others, start=1):
            strong.append(f"{qid} Q0 {d} {rank} {10 - rank} strong")
    return {"qrels": _write(tmp_path / "qrels.txt", qrels), "weak": _write(tmp_path / "weak.run", weak),
            "strong": _write(tmp_path / "strong.run", strong), "dir": tmp_path}


def _run(capsys, *argv):
    status = main(["eval", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_text_table_shows_the_library_means_and_marks_the_significant_run(files, capsys):
    status, out, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], files["strong"], "-q")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["run", "queries", "AP", "PRES@1000", "nDCG@10", "P@10", "RR"]
    weak_row, strong_row = lines[1].split(), lines[2].split()
    assert weak_row[:2] == [files["weak"], str(N_QUERIES)] and strong_row[0] == files["strong"]
    from clirkit.formats import read_qrels, read_run

    expected = evaluate(read_run(files["strong"]), read_qrels(files["qrels"])).mean()
    assert strong_row[2] == f"*{expected['AP']:.4f}"  # all 12 queries better: p = 1/10001
    assert strong_row[6] == f"*{expected['RR']:.4f}"
    assert not any(cell.startswith("*") for cell in weak_row)
    assert any("paired randomization test" in line for line in lines if line.startswith("#"))


def test_markdown_csv_and_json_carry_the_same_numbers(files, capsys):
    args = ["--qrels", files["qrels"], files["weak"], files["strong"], "-m", "AP,P_mr@1", "-q"]
    _, md, _ = _run(capsys, *args, "--format", "markdown")
    assert md.splitlines()[0] == "| run | queries | AP | P_mr@1 |"
    assert "\\*1.0000" in md  # strong run: P_mr@1 = 1 on every query, escaped star
    _, text, _ = _run(capsys, *args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert float(rows[1]["P_mr@1"]) == 1.0 and float(rows[0]["P_mr@1"]) == 0.0
    assert float(rows[1]["p(AP)"]) < 0.05 and rows[0]["p(AP)"] == ""
    _, js, _ = _run(capsys, *args, "--format", "json")
    doc = json.loads(js)
    assert doc["average"] == "qrels" and doc["measures"] == ["AP", "P_mr@1"]
    assert doc["runs"][1]["mean"]["AP"] == pytest.approx(float(rows[1]["AP"]))
    assert doc["runs"][1]["significance"]["AP"]["significant"] is True


def test_per_query_output_lists_every_qrels_query_and_the_mean(files, capsys):
    _, out, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], "--per-query", "-m", "RR", "-q",
                     "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == N_QUERIES and {r["qid"] for r in rows} == {f"Gen.{q + 1}" for q in range(N_QUERIES)}
    assert all(float(r["RR"]) == 0.25 for r in rows)
    _, text, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], "--per-query", "-m", "RR", "-q")
    assert text.splitlines()[N_QUERIES + 1].split() == [files["weak"], "all", "0.2500"]


def test_three_column_qrels_are_accepted(files, capsys):
    three = [" ".join(line.split()[i] for i in (0, 2, 3)) for line in open(files["qrels"])]
    path = _write(files["dir"] / "qrels3.txt", three)
    _, out4, _ = _run(capsys, "--qrels", files["qrels"], files["strong"], "-q")
    _, out3, _ = _run(capsys, "--qrels", path, files["strong"], "-q")
    assert out3.splitlines()[:2] == out4.splitlines()[:2]


def test_baseline_option_and_output_file(files, capsys):
    out_path = files["dir"] / "table.md"
    status, out, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], files["strong"], "--baseline",
                          files["strong"], "--format", "markdown", "-o", str(out_path), "-q")
    assert status == 0 and out == ""
    text = out_path.read_text()
    assert f"against {files['strong']}" in text
    assert "| " + files["weak"] + " | 12 | \\*" in text  # the weak run now differs significantly


def test_t_test_and_no_test(files, capsys):
    _, out, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], files["strong"], "--test", "t-test", "-q")
    assert "paired t-test" in out
    _, out, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], files["strong"], "--test", "none", "-q")
    assert "*" not in out


def test_run_queries_missing_from_qrels_are_reported_on_stderr(files, capsys):
    run = _write(files["dir"] / "extra.run", open(files["strong"]).read().splitlines() + ["X.1 Q0 d 1 1 s"])
    status, out, err = _run(capsys, "--qrels", files["qrels"], run)
    assert status == 0 and "1 run queries are not in the qrels" in err


@pytest.mark.parametrize("lines, message", [
    (["Exod.1 Q0 Gen.1.1 1 2.0 t", "Exod.2 Q0 Gen.1.1 1 2.0 t"], "bad.run: none of the run's 2 queries"),
    (["Gen.1 Q0 Gen.1.1 1 2.0 t", "Gen.1 Q0 Gen.1.1 2 1.0 t"], "bad.run:2: docid Gen.1.1 appears twice"),
    (["Gen.1 Q0 Gen.1.1 1 nan t"], "bad.run:1: score 'nan'"),
    ([], "bad.run: empty"),
    (["Gen.1 Q0 Gen.1.1 1 t"], "bad.run:1: expected 6 columns"),
])
def test_bad_runs_exit_2_with_file_and_line(files, capsys, lines, message):
    bad = _write(files["dir"] / "bad.run", lines)
    status, out, err = _run(capsys, "--qrels", files["qrels"], bad)
    assert status == 2 and out == ""
    assert message in err and err.startswith("clirkit: error: ")


def test_bad_options_exit_2(files, capsys):
    for extra, message in [(["-m", "MAP@x"], "unknown measure"), (["--baseline", "nope.run"], "--baseline"),
                           (["--permutations", "0"], "--permutations")]:
        status, _, err = _run(capsys, "--qrels", files["qrels"], files["weak"], *extra)
        assert status == 2 and message in err


def test_clirkit_eval_equals_library_evaluate_on_the_same_data(files, capsys):
    run = Run.ranked(["a"] * 3 + ["b"] * 2, ["d1", "d2", "d3", "d1", "d9"], [3, 2, 1, 5, 4])
    qrels = Qrels(np.array(["a", "a", "b"]), np.array(["d2", "d3", "d9"]), np.array([1, 2, 1]))
    from clirkit.formats import write_qrels, write_run

    write_run(run, files["dir"] / "x.run")
    write_qrels(qrels, files["dir"] / "x.qrels")
    _, out, _ = _run(capsys, "--qrels", str(files["dir"] / "x.qrels"), str(files["dir"] / "x.run"),
                     "--format", "json", "-m", "AP,nDCG@10,PRES@1000,RR")
    assert json.loads(out)["runs"][0]["mean"] == evaluate(run, qrels, ["AP", "nDCG@10", "PRES@1000", "RR"]).mean()


def test_compare_runs_script_writes_the_markdown_table_of_a_folder(files, capsys):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "eval" / "compare_runs.py"
    spec = importlib.util.spec_from_file_location("compare_runs", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = files["dir"] / "runs"
    folder.mkdir()
    for name in ("weak", "strong"):
        (folder / f"{name}.run").write_text(open(files[name]).read())
    (folder / "notes.md").write_text("not a run\n")
    out = files["dir"] / "table.md"
    assert module.main(["--qrels", files["qrels"], str(folder), "--baseline", "weak.run", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "| run | queries | AP | PRES@1000 | nDCG@10 | P@10 | RR |"
    assert lines[2].startswith("| weak.run | 12 | 0.")
    assert lines[3].startswith("| strong.run | 12 | \\*0.5000")  # AP: 1 of 2 relevant found, at rank 1
