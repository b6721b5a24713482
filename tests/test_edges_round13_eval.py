"""Issue 40, edge round 13a: ``clirkit aggregate --tune --depth N`` and ``clirkit eval``'s options."""

from __future__ import annotations

import random

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.run import Qrels, Run

# --------------------------------------------------------------------------- tuning at the depth the run is cut to


def _fused_and_cut(runs: list[dict], weights, depth: int) -> dict:
    """SPEC §6 by hand: each run (qid -> [(docid, score)] in rank order, tied scores taken by docid) cut to
    ``depth``, its scores divided by their query's sum, weighted and added, then each query's top ``depth`` by
    score, ties by docid ascending."""
    fused: dict = {}
    for run, weight in zip(runs, weights):
        for qid, rows in run.items():
            rows = sorted(rows, key=lambda row: (-row[1], row[0]))[:depth]
            total = sum(score for _, score in rows)
            for docid, score in rows:
                share = score / total if total > 0 else 0.0
                fused.setdefault(qid, {}).setdefault(docid, 0.0)
                fused[qid][docid] += weight * share
    return {
        qid: dict(sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:depth]) for qid, scores in fused.items()
    }


def _pytrec_map(fused: dict, qrels: dict) -> float:
    """The mean AP of ``fused`` by pytrec_eval over the judged queries, scores read as 32-bit floats (as a run
    file is read)."""
    import pytrec_eval

    run = {q: {d: float(np.float32(s)) for d, s in docs.items()} for q, docs in fused.items()}
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return sum(values.get(q, {"map": 0.0})["map"] for q in qrels) / len(qrels)


def _as_run(rows: dict, tag: str) -> Run:
    qids, docids, scores = [], [], []
    for qid, ranked in rows.items():
        for docid, score in ranked:
            qids.append(qid), docids.append(docid), scores.append(score)
    return Run(qids, docids, np.array(scores, dtype=np.float64), tag=tag)


def _random_case(seed: int):
    """Two dev runs of three queries over six documents with small integer scores (many ties), and qrels."""
    r = random.Random(seed)
    runs = []
    for _ in range(2):
        run = {}
        for q in ("q1", "q2", "q3"):
            docs = r.sample([f"d{i}" for i in range(6)], r.randint(2, 5))
            scores = sorted((r.randint(1, 3) for _ in docs), reverse=True)
            run[q] = list(zip(docs, [float(s) for s in scores]))
        runs.append(run)
    qrels = {q: {f"d{i}": 1 for i in r.sample(range(6), 2)} for q in ("q1", "q2", "q3")}
    return runs, qrels


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_tuned_weights_score_the_fused_dev_run_as_it_is_cut_and_evaluated(depth):
    from clirkit.systems import Fusion

    for seed in range(8):
        runs, judged = _random_case(seed * 10 + depth)
        qrels = Qrels([q for q in judged for _ in judged[q]], [d for q in judged for d in judged[q]], [1] * 6)
        fusion = Fusion(step=0.25, transform="none").fit_runs(
            [_as_run(run, f"r{i}") for i, run in enumerate(runs)], qrels, depth=depth
        )
        expected = [_pytrec_map(_fused_and_cut(runs, w, depth), judged) for w in fusion.sweep_.weights]
        assert fusion.sweep_.scores.tolist() == pytest.approx(expected, abs=1e-12), (seed, depth)
        assert fusion.weights_ == fusion.sweep_.weights[int(np.argmax(expected))].tolist()


def test_aggregate_tune_depth_chooses_the_weights_of_the_best_written_run(tmp_path, capsys):
    runs = {
        "A.run": "q1 Q0 d3 1 2 A\nq1 Q0 d1 2 1 A\nq2 Q0 d3 1 2 A\nq2 Q0 d1 2 1 A\n",
        "B.run": "q1 Q0 d0 1 2 B\nq1 Q0 d1 2 1 B\nq2 Q0 d3 1 2 B\nq2 Q0 d1 2 1 B\n",
        "dev.qrels": "q1 0 d3 1\nq2 0 d1 1\n",
    }
    for name, text in runs.items():
        (tmp_path / name).write_text(text)
    a, b, qrels, out = (str(tmp_path / n) for n in ("A.run", "B.run", "dev.qrels", "T.run"))
    argv = ["aggregate", a, b, "--tune", "--dev-runs", a, b, "--dev-qrels", qrels, "--step", "0.5", "--depth", "1"]
    assert main([*argv, "-o", out]) == 0  # without -q: the sweep is printed
    printed = capsys.readouterr().out
    assert "0\t1\t0\n0.5\t0.5\t0\n1\t0\t0.5\n" in printed and "best weights 1, 0 (AP 0.5000" in printed
    assert main(["eval", "--qrels", qrels, out, "-m", "AP", "--quiet", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(",0.5")


# --------------------------------------------------------------------------- eval: options no measure or test reads


def _two_runs(tmp_path) -> list[str]:
    (tmp_path / "A.run").write_text("q1 Q0 d3 1 2 A\nq1 Q0 d1 2 1 A\nq2 Q0 d3 1 2 A\nq2 Q0 d1 2 1 A\n")
    (tmp_path / "B.run").write_text("q1 Q0 d0 1 2 B\nq1 Q0 d1 2 1 B\nq2 Q0 d3 1 2 B\nq2 Q0 d1 2 1 B\n")
    (tmp_path / "dev.qrels").write_text("q1 0 d3 1\nq2 0 d1 1\n")
    return ["--qrels", str(tmp_path / "dev.qrels"), str(tmp_path / "A.run"), str(tmp_path / "B.run"), "-m", "AP"]


@pytest.mark.parametrize(
    "options, message",
    [
        (
            ["--test", "t-test", "--permutations", "5"],
            "--permutations is read only by --test randomization (the test is t-test): drop --permutations",
        ),
        (["--test", "t-test", "--seed", "9"], "--seed is read only by --test randomization (the test is t-test)"),
        (
            ["--test", "none", "--permutations", "10000"],
            "--permutations is read only by --test randomization (the test is none)",
        ),
        (["--test", "none", "--seed", "0"], "--seed is read only by --test randomization (the test is none)"),
        (
            ["--test", "none", "--alpha", "0.001"],
            "--alpha is the level of the test's * mark, and --test none makes no test: drop --alpha",
        ),
    ],
)
def test_eval_refuses_a_test_option_the_test_chosen_does_not_read(tmp_path, capsys, options, message):
    out = tmp_path / "table.json"
    assert main(["eval", *_two_runs(tmp_path), "--format", "json", "-o", str(out), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clirkit: error: ") and message in err and err.count("\n") == 1
    assert not out.exists()


def test_eval_takes_the_options_of_the_test_it_runs(tmp_path, capsys):
    import json

    runs = _two_runs(tmp_path)
    assert main(["eval", *runs, "--format", "json", "--permutations", "5", "--seed", "3", "--alpha", "0.1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["test"], doc["permutations"], doc["seed"], doc["alpha"]) == ("randomization", 5, 3, 0.1)
    assert main(["eval", *runs, "--test", "t-test", "--alpha", "0.1", "--quiet"]) == 0
    assert "* = p < 0.1 against" in capsys.readouterr().out


def _graded(tmp_path) -> list[str]:
    """A query whose document of grade 2 is ranked above its document of grade 3."""
    (tmp_path / "g.qrels").write_text("q1 0 d1 2\nq1 0 d2 3\n")
    (tmp_path / "g.run").write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n")
    return ["--qrels", str(tmp_path / "g.qrels"), str(tmp_path / "g.run"), "--format", "csv", "--quiet"]


def test_eval_rel_threshold_above_the_default_main_grade_needs_no_main_grade(tmp_path, capsys):
    graded = _graded(tmp_path)
    assert main(["eval", *graded, "-m", "AP", "--rel-threshold", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(",0.5")
    assert main(["eval", *graded, "-m", "MRR_mr", "--rel-threshold", "3"]) == 0  # the main grade follows: 3
    assert capsys.readouterr().out.splitlines()[-1].endswith(",0.5")
    assert main(["eval", *graded, "-m", "MRR_mr"]) == 0  # the default main grade 2
    assert capsys.readouterr().out.splitlines()[-1].endswith(",1.0")


@pytest.mark.parametrize(
    "options, message",
    [
        (
            ["-m", "AP", "--main-grade", "5"],
            "--main-grade is read only by P_mr and MRR_mr (without a (rel=N) of their "
            "own), and no measure asked reads it: drop --main-grade, or ask for one of them (-m P_mr@10)",
        ),
        (["-m", "P_mr(rel=3)@1", "--main-grade", "3"], "--main-grade is read only by P_mr and MRR_mr"),
        (
            ["-m", "MRR_mr", "--rel-threshold", "3", "--main-grade", "2"],
            "--main-grade must be at least --rel-threshold (3), got 2",
        ),
    ],
)
def test_eval_refuses_a_main_grade_no_measure_reads_or_below_the_threshold(tmp_path, capsys, options, message):
    assert main(["eval", *_graded(tmp_path), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clirkit: error: ") and message in err and err.count("\n") == 1


def test_evaluate_main_grade_defaults_to_the_threshold_when_higher_and_is_refused_unread():
    from clirkit.errors import ClirkitError
    from clirkit.metrics import evaluate

    run = Run(["q1", "q1"], ["d1", "d2"], np.array([2.0, 1.0]))
    qrels = Qrels(["q1", "q1"], ["d1", "d2"], [2, 3])
    assert evaluate(run, qrels, ["AP"], rel_threshold=3).mean()["AP"] == 0.5
    assert evaluate(run, qrels, ["MRR_mr"], rel_threshold=3).mean()["MRR_mr"] == 0.5
    assert evaluate(run, qrels, ["MRR_mr"], main_grade=3).mean()["MRR_mr"] == 0.5
    with pytest.raises(ClirkitError, match=r"main_grade \(3\) is read only by P_mr and MRR_mr"):
        evaluate(run, qrels, ["AP"], main_grade=3)
    with pytest.raises(ClirkitError, match=r"main_grade \(2\) must not be below rel_threshold \(3\)"):
        evaluate(run, qrels, ["MRR_mr"], rel_threshold=3, main_grade=2)


@pytest.mark.parametrize("option", [["--test", "t-test"], ["--alpha", "0.1"], ["--seed", "0"], ["--permutations", "9"]])
def test_eval_of_one_run_refuses_the_options_of_a_test_it_does_not_make(tmp_path, capsys, option):
    one_run = [a for a in _two_runs(tmp_path) if not a.endswith("B.run")]
    assert main(["eval", *one_run, *option, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{option[0]} sets the test between runs, and one RUN makes no test" in err and err.count("\n") == 1
    assert main(["eval", *one_run, "--quiet"]) == 0
