"""`clirkit eval`: tables in four formats, significance marks, 3-column qrels, error exits, the three -m forms,
columns named as written, -q refused, pytrec_eval parity through the command."""

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
    return {
        "qrels": _write(tmp_path / "qrels.txt", qrels),
        "weak": _write(tmp_path / "weak.run", weak),
        "strong": _write(tmp_path / "strong.run", strong),
        "dir": tmp_path,
    }


def _run(capsys, *argv):
    status = main(["eval", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_text_table_shows_the_library_means_and_marks_the_significant_run(files, capsys):
    status, out, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], files["strong"], "--quiet")
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
    args = ["--qrels", files["qrels"], files["weak"], files["strong"], "-m", "AP,P_mr@1", "--quiet"]
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
    _, out, _ = _run(
        capsys, "--qrels", files["qrels"], files["weak"], "--per-query", "-m", "RR", "--quiet", "--format", "csv"
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["qid"] for r in rows] == [f"Gen.{q + 1}" for q in range(N_QUERIES)] + ["all"]
    assert all(float(r["RR"]) == 0.25 for r in rows)
    _, text, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], "--per-query", "-m", "RR", "--quiet")
    assert text.splitlines()[N_QUERIES + 1].split() == [files["weak"], "all", "0.2500"]


def test_three_column_qrels_are_accepted(files, capsys):
    three = [" ".join(line.split()[i] for i in (0, 2, 3)) for line in open(files["qrels"])]
    path = _write(files["dir"] / "qrels3.txt", three)
    _, out4, _ = _run(capsys, "--qrels", files["qrels"], files["strong"], "--quiet")
    _, out3, _ = _run(capsys, "--qrels", path, files["strong"], "--quiet")
    assert out3.splitlines()[:2] == out4.splitlines()[:2]


def test_baseline_option_and_output_file(files, capsys):
    out_path = files["dir"] / "table.md"
    status, out, _ = _run(
        capsys,
        "--qrels",
        files["qrels"],
        files["weak"],
        files["strong"],
        "--baseline",
        files["strong"],
        "--format",
        "markdown",
        "-o",
        str(out_path),
        "--quiet",
    )
    assert status == 0 and out == ""
    text = out_path.read_text()
    assert f"against {files['strong']}" in text
    assert "| " + files["weak"] + " | 12 | \\*" in text  # the weak run now differs significantly


def test_t_test_and_no_test(files, capsys):
    _, out, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], files["strong"], "--test", "t-test", "--quiet")
    assert "paired t-test" in out
    _, out, _ = _run(capsys, "--qrels", files["qrels"], files["weak"], files["strong"], "--test", "none", "--quiet")
    assert "*" not in out


def test_run_queries_missing_from_qrels_are_said_once_in_the_table_or_on_stderr(files, capsys):
    run = _write(files["dir"] / "extra.run", open(files["strong"]).read().splitlines() + ["X.1 Q0 d 1 1 s"])
    status, out, err = _run(capsys, "--qrels", files["qrels"], run)  # the table's note says it: not stderr too
    assert status == 0 and "1 run query not in the qrels, ignored" in out and "not in the qrels" not in err
    status, out, err = _run(capsys, "--qrels", files["qrels"], run, "--format", "csv")  # no notes in CSV: stderr
    assert status == 0 and "1 run query is not in the qrels" in err and "not in the qrels" not in out


@pytest.mark.parametrize(
    "lines, message",
    [
        (["Exod.1 Q0 Gen.1.1 1 2.0 t", "Exod.2 Q0 Gen.1.1 1 2.0 t"], "bad.run: none of the run's 2 queries"),
        (["Gen.1 Q0 Gen.1.1 1 2.0 t", "Gen.1 Q0 Gen.1.1 2 1.0 t"], "bad.run:2: docid Gen.1.1 appears twice"),
        (["Gen.1 Q0 Gen.1.1 1 nan t"], "bad.run:1: score 'nan'"),
        (["Gen.1 Q0 Gen.1.1 1 t"], "bad.run:1: expected 6 columns"),
    ],
)
def test_bad_runs_exit_2_with_file_and_line(files, capsys, lines, message):
    bad = _write(files["dir"] / "bad.run", lines)
    status, out, err = _run(capsys, "--qrels", files["qrels"], bad)
    assert status == 2 and out == ""
    assert message in err and err.startswith("clirkit: error: ")


@pytest.mark.parametrize("depth", ["1", "2", "0"])
def test_a_docid_repeated_below_the_depth_exits_2_naming_file_and_line(files, capsys, depth):
    bad = _write(
        files["dir"] / "bad.run", ["Gen.1 Q0 Gen.1.1 1 3.0 t", "Gen.1 Q0 Gen.1.2 2 2.0 t", "Gen.1 Q0 Gen.1.1 3 1.0 t"]
    )
    status, out, err = _run(capsys, "--qrels", files["qrels"], bad, "--depth", depth, "--quiet", "-m", "RR")
    assert status == 2 and out == ""
    assert (
        err
        == f"clirkit: error: {bad}:3: docid Gen.1.1 appears twice for query Gen.1 (first at line 1): a run lists a document once per query; remove one of the two lines\n"
    )


def test_a_measure_cutoff_beyond_the_depth_exits_2_naming_the_measure_and_the_fix(tmp_path, capsys):
    # a relevant document at rank 1500: cut at the default depth 1000, R@2000 would say it was not retrieved
    run = _write(tmp_path / "deep.run", [f"q Q0 d{i} {i} {3000 - i} t" for i in range(1, 2001)])
    qrels = _write(tmp_path / "deep.qrels", ["q 0 d1500 1"])
    status, out, err = _run(capsys, "--qrels", qrels, run, "-m", "AP", "recall_2000", "PRES@2000", "P@2000")
    assert status == 2 and out == ""
    assert err == (
        "clirkit: error: recall_2000 reads ranks beyond depth 1000: give depth >= 2000 (--depth 2000, or 0 for "
        "every rank)\n"
    )
    for depth in ("0", "2000"):  # SPEC §8: PRES = 1 - (1500 - 1) / 2000
        status, out, err = _run(
            capsys, "--qrels", qrels, run, "--depth", depth, "--format", "json", "-m", "recall_2000", "PRES@2000"
        )
        assert status == 0, err
        assert json.loads(out)["runs"][0]["mean"] == pytest.approx({"recall_2000": 1.0, "PRES@2000": 0.2505})
    status, out, err = _run(capsys, "--qrels", qrels, run, "--depth", "10")  # the default measures hold PRES@1000
    assert status == 2 and err == (
        "clirkit: error: PRES@1000 reads ranks beyond depth 10: give depth >= 1000 (--depth 1000, or 0 for every "
        "rank), or measures within it (-m; the default is AP PRES@1000 nDCG@10 P@10 RR)\n"
    )
    status, out, err = _run(capsys, "--qrels", qrels, run, "--depth", "10", "-m", "P@10", "AP", "--quiet")
    assert status == 0 and err == ""


def test_bad_options_exit_2(files, capsys):
    for extra, message in [
        (["-m", "MAP@x"], "unknown measure"),
        (["--baseline", "nope.run"], "--baseline"),
        (["--permutations", "0"], "--permutations"),
    ]:
        status, _, err = _run(capsys, "--qrels", files["qrels"], files["weak"], *extra)
        assert status == 2 and message in err


def test_clirkit_eval_equals_library_evaluate_on_the_same_data(files, capsys):
    run = Run.ranked(["a"] * 3 + ["b"] * 2, ["d1", "d2", "d3", "d1", "d9"], [3, 2, 1, 5, 4])
    qrels = Qrels(np.array(["a", "a", "b"]), np.array(["d2", "d3", "d9"]), np.array([1, 2, 1]))
    from clirkit.formats import write_qrels, write_run

    write_run(run, files["dir"] / "x.run")
    write_qrels(qrels, files["dir"] / "x.qrels")
    _, out, _ = _run(
        capsys,
        "--qrels",
        str(files["dir"] / "x.qrels"),
        str(files["dir"] / "x.run"),
        "--format",
        "json",
        "-m",
        "AP,nDCG@10,PRES@1000,RR",
    )
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


# --------------------------------------------------------------------------- -m, names as written, -q


def test_per_query_csv_ends_each_run_with_its_mean_as_qid_all(files, capsys):
    _, out, _ = _run(
        capsys,
        "--qrels",
        files["qrels"],
        files["weak"],
        files["strong"],
        "--per-query",
        "-m",
        "RR,AP",
        "--quiet",
        "--format",
        "csv",
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 2 * (N_QUERIES + 1)
    weak_all, strong_all = rows[N_QUERIES], rows[-1]
    assert (weak_all["run"], weak_all["qid"]) == (files["weak"], "all") and strong_all["qid"] == "all"
    from clirkit.formats import read_qrels, read_run

    mean = evaluate(read_run(files["strong"]), read_qrels(files["qrels"]), ["RR", "AP"]).mean()
    assert float(strong_all["RR"]) == mean["RR"] and float(strong_all["AP"]) == mean["AP"]


def _header(out: str) -> list[str]:
    return out.splitlines()[0].split()


@pytest.mark.parametrize(
    "argv",
    [
        ["--qrels", "{qrels}", "{weak}", "{strong}", "-m", "AP", "P@10", "nDCG@10"],  # several values
        ["--qrels", "{qrels}", "{weak}", "{strong}", "-m", "AP", "-m", "P@10", "-m", "nDCG@10"],  # repeated
        ["--qrels", "{qrels}", "{weak}", "{strong}", "-m", "AP,P@10,nDCG@10"],  # comma list
        ["--qrels", "{qrels}", "{weak}", "{strong}", "-m", "AP,P@10", "-m", "nDCG@10"],  # mixtures
        ["--qrels", "{qrels}", "{weak}", "{strong}", "-m", "AP", "P@10,nDCG@10", "--format", "text"],
        ["-m", "AP,P@10,nDCG@10", "--qrels", "{qrels}", "{weak}", "{strong}"],  # -m first, one value
        ["--qrels", "{qrels}", "-m", "AP", "P@10", "nDCG@10", "--", "{weak}", "{strong}"],  # -m before, then --
    ],
)
def test_measures_as_several_values_repeats_or_comma_lists_before_or_after_the_runs(files, capsys, argv):
    status, out, _ = _run(capsys, "--quiet", *[a.format(**files) for a in argv])
    assert status == 0
    _, reference, _ = _run(
        capsys,
        "--qrels",
        files["qrels"],
        files["weak"],
        files["strong"],
        "-m",
        "AP",
        "-m",
        "P@10",
        "-m",
        "nDCG@10",
        "--quiet",
    )
    assert _header(out) == ["run", "queries", "AP", "P@10", "nDCG@10"]
    assert out == reference


def test_the_readme_command_line_works(files, capsys, monkeypatch):
    monkeypatch.chdir(files["dir"])
    (files["dir"] / "test.qrels").write_text(open(files["qrels"]).read())
    for name, source in (("dt.run", "weak"), ("psq.run", "weak"), ("agg.run", "strong")):
        (files["dir"] / name).write_text(open(files[source]).read())
    status, out, _ = _run(
        capsys, *"--qrels test.qrels dt.run psq.run agg.run -m AP,PRES@1000,nDCG@10,P@10 --baseline psq.run".split()
    )
    lines = out.splitlines()
    assert status == 0 and lines[0].split() == ["run", "queries", "AP", "PRES@1000", "nDCG@10", "P@10"]
    assert [line.split()[0] for line in lines[1:4]] == ["dt.run", "psq.run", "agg.run"]
    assert lines[3].split()[2].startswith("*") and "against psq.run" in out


def test_a_run_swallowed_by_m_is_an_error_showing_the_double_dash(files, capsys):
    status, out, err = _run(capsys, "--qrels", files["qrels"], "-m", "AP", "P@10", files["weak"])
    assert status == 2 and out == ""
    assert f"no RUN was given: {files['weak']} came after -m and was read as measure names" in err
    assert f"(-m AP P@10 -- {files['weak']})" in err
    status, _, err = _run(capsys, "--qrels", files["qrels"], files["weak"], "-m", "AP", files["strong"])
    assert status == 2 and f"{files['strong']} came after -m and was read as measure names" in err
    assert "write the RUN files together" in err
    status, _, err = _run(capsys, "--qrels", files["qrels"])
    assert status == 2 and "no RUN given" in err


def test_columns_are_headed_by_the_names_as_written_in_every_format(files, capsys):
    names = ["P_10", "ndcg_cut.10", "map", "recip_rank", "P(rel=2)@10", "num_rel_ret", "PRES"]
    args = ["--qrels", files["qrels"], files["weak"], files["strong"], "-m", *names, "--quiet"]
    from clirkit.formats import read_qrels, read_run

    expected = evaluate(read_run(files["strong"]), read_qrels(files["qrels"]), names, names="given").mean()
    assert list(expected) == names
    _, text, _ = _run(capsys, *args)
    assert _header(text) == ["run", "queries", *names]
    assert text.splitlines()[2].split()[4] == f"*{expected['map']:.4f}"  # the test still finds its columns
    _, md, _ = _run(capsys, *args, "--format", "markdown")
    assert md.splitlines()[0] == "| run | queries | " + " | ".join(names) + " |"
    _, out, _ = _run(capsys, *args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0])[2:] == names + [f"p({n})" for n in names]
    assert {n: float(rows[1][n]) for n in names} == expected
    _, js, _ = _run(capsys, *args, "--format", "json", "--per-query")
    doc = json.loads(js)
    assert doc["measures"] == names and doc["runs"][1]["mean"] == expected
    assert list(doc["runs"][1]["significance"]) == names
    assert list(doc["runs"][1]["per_query"]["Gen.1"]) == names
    _, per_query, _ = _run(capsys, *args, "--per-query", "--format", "csv")
    assert next(csv.reader(io.StringIO(per_query))) == ["run", "qid", *names]


@pytest.mark.parametrize(
    "given, said",
    [
        (["P_10", "P@10", "p.10"], "P@10 twice (as 'P_10' and 'P@10')"),
        (["AP,MAP"], "AP twice (as 'AP' and 'MAP')"),
        (["AP", "P@10", "ap"], "AP twice (as 'AP' and 'ap')"),
        (["AP", "-m", "AP"], "'AP' twice"),
    ],
)
def test_a_measure_given_twice_in_any_spelling_is_refused_naming_both_spellings(files, capsys, given, said):
    # two spellings of one measure gave one column under the first, the other dropped without a word
    status, out, err = _run(capsys, "--qrels", files["qrels"], files["weak"], "-m", *given, "--quiet")
    assert (status, out, err) == (2, "", f"clirkit: error: -m lists {said}: list each once\n")


def test_unknown_measure_is_one_line_with_close_matches(files, capsys):
    status, out, err = _run(capsys, "--qrels", files["qrels"], files["weak"], "-m", "AP,nDGC@10")
    assert status == 2 and out == ""
    assert err.startswith("clirkit: error: unknown measure 'nDGC@10' (did you mean nDCG@10?)")
    assert err.count("\n") == 1


def test_dash_q_on_eval_is_refused_naming_per_query_and_quiet(files, capsys):
    with pytest.raises(SystemExit) as info:
        main(["eval", "--qrels", files["qrels"], files["weak"], "-q"])
    _, err = capsys.readouterr()
    assert info.value.code == 2
    assert (
        "clirkit eval: error: -q is trec_eval's per-query flag; here use --per-query (or --quiet to silence progress)"
    ) in err
    run = _write(files["dir"] / "extra.run", open(files["strong"]).read().splitlines() + ["X.1 Q0 d 1 1 s"])
    status, _, err = _run(capsys, "--qrels", files["qrels"], run, "--quiet")
    assert status == 0 and err == ""


def test_other_verbs_keep_q_as_quiet():
    import argparse

    from clirkit.cli import build_parser

    verbs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    checked = 0
    for name, parser in verbs.items():
        quiet = parser._option_string_actions.get("--quiet")
        if name == "eval":
            assert parser._option_string_actions["-q"] is not quiet
        elif quiet is not None:
            assert parser._option_string_actions.get("-q") is quiet, name
            checked += 1
    assert checked >= 5


def test_measure_aliases_through_the_command_match_pytrec_eval_on_every_query(files, capsys):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from clirkit.formats import read_qrels, read_run, write_qrels, write_run

    rng = np.random.default_rng(3)
    pool = [f"Gen.1.{i}" for i in range(1, 40)]
    qids, docids, scores, qq, qd, qg = [], [], [], [], [], []
    for q in range(25):
        docs = rng.choice(pool, int(rng.integers(3, 30)), replace=False)
        qids += [f"Exod.{q + 1}"] * len(docs)
        docids += docs.tolist()
        scores += (rng.integers(0, 5, len(docs)) / 4.0).tolist()  # many ties
        judged = rng.choice(pool, int(rng.integers(1, 15)), replace=False)
        qq += [f"Exod.{q + 1}"] * len(judged)
        qd += judged.tolist()
        qg += rng.integers(0, 4, len(judged)).tolist()
    write_run(Run.ranked(qids, docids, scores), files["dir"] / "r.run")
    write_qrels(Qrels(np.array(qq), np.array(qd), np.array(qg)), files["dir"] / "r.qrels")
    run, qrels = read_run(files["dir"] / "r.run"), read_qrels(files["dir"] / "r.qrels")
    as_dict: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()):
        as_dict.setdefault(q, {})[d] = s
    families = {
        "P",
        "ndcg_cut",
        "map_cut",
        "map",
        "recip_rank",
        "Rprec",
        "num_rel_ret",
        "num_rel",
        "num_ret",
        "success",
    }
    oracle = {
        level: pytrec_eval.RelevanceEvaluator(qrels.to_dict(), families, relevance_level=level).evaluate(as_dict)
        for level in (1, 2)
    }
    spellings = [  # three lists: two spellings of one measure in one list would share a column
        {
            "P.10": ("P_10", 1),
            "ndcg_cut.10": ("ndcg_cut_10", 1),
            "map": ("map", 1),
            "recip_rank": ("recip_rank", 1),
            "Rprec": ("Rprec", 1),
            "num_rel_ret": ("num_rel_ret", 1),
            "num_rel": ("num_rel", 1),
            "num_ret": ("num_ret", 1),
            "P(rel=2)@10": ("P_10", 2),
            "AP@100": ("map_cut_100", 1),
            "success_5": ("success_5", 1),
        },
        {
            "P_10": ("P_10", 1),
            "ndcg_cut_10": ("ndcg_cut_10", 1),
            "map_cut.100": ("map_cut_100", 1),
            "RR(rel=2)": ("recip_rank", 2),
            "NumRelRet(rel=2)": ("num_rel_ret", 2),
        },
        {"nDCG@10": ("ndcg_cut_10", 1), "NumRet": ("num_ret", 1), "Success@1": ("success_1", 1)},
    ]
    for group in spellings:
        status, out, err = _run(
            capsys,
            "--qrels",
            str(files["dir"] / "r.qrels"),
            str(files["dir"] / "r.run"),
            "--per-query",
            "--format",
            "json",
            "--average",
            "run",
            "--depth",
            "0",
            "--quiet",
            "-m",
            ",".join(group),
        )
        assert status == 0, err
        per_query = json.loads(out)["runs"][0]["per_query"]
        assert sorted(per_query) == sorted(oracle[1])
        for qid, values in per_query.items():
            assert list(values) == list(group)
            for name, value in values.items():
                key, level = group[name]
                assert value == pytest.approx(oracle[level][qid][key], abs=1e-6), (qid, name)
