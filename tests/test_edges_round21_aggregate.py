"""Issue 40, edge round 21: ``clirkit aggregate``, the fusion's tuning and the significance notes.

Findings 2, 3, 4, 8, 9, 10 and 12 of the round's report, and the fusion ones of its finding 13 (messages, tags,
progress, plurals). The runs are a few hand-written lines, so every expected value is a hand formula.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.formats import read_qrels, read_run
from clirkit.metrics import Evaluation, evaluate
from clirkit.packedrun import PackedRun
from clirkit.report import Report
from clirkit.run import Qrels, Run


def write_lines(path, lines) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def one_line_error(capsys, prefix: str) -> str:
    captured = capsys.readouterr()
    assert captured.err.startswith(f"clirkit: error: {prefix}") and captured.err.count("\n") == 1, captured.err
    assert captured.out == ""
    return captured.err


@pytest.fixture()
def two(tmp_path):
    """Two runs (A, B) of three queries, the same runs as dev runs, and qrels judging a document of each query."""
    a = write_lines(tmp_path / "a.run", ["q1 Q0 d1 1 3.0 A", "q1 Q0 d2 2 2.0 A", "q2 Q0 d1 1 1.0 A"])
    b = write_lines(tmp_path / "b.run", ["q1 Q0 d2 1 5.0 B", "q1 Q0 d4 2 1.0 B", "q3 Q0 d9 1 1.0 B"])
    qrels = write_lines(tmp_path / "qrels", ["q1 0 d2 1", "q1 0 d4 1", "q2 0 d1 1", "q3 0 d9 1"])
    return {"a": a, "b": b, "qrels": qrels, "dir": tmp_path}


# --------------------------------------------------------------------------- 2. --sweep-csv over a --dev-runs file


def test_a_sweep_csv_naming_a_dev_run_is_refused_and_the_dev_run_kept(two, capsys):
    # (not reproduced on the frozen copy nor on main: this pins the refusal the report says was missing)
    dev = write_lines(two["dir"] / "da2.run", ["q1 Q0 d2 1 1.0 A", "q2 Q0 d1 1 1.0 A"])
    before = open(dev).read()
    argv = ["aggregate", two["a"], two["b"], "--tune", "--dev-runs", dev, two["b"], "--dev-qrels", two["qrels"]]
    assert main([*argv, "--sweep-csv", dev, "-o", str(two["dir"] / "x.run"), "-q"]) == 2
    one_line_error(capsys, f"--sweep-csv {dev} is also --dev-runs {dev}: writing it would replace that input")
    assert open(dev).read() == before and not (two["dir"] / "x.run").exists()


# --------------------------------------------------------------------------- 3. -o - and --sweep-csv - together


def test_the_run_and_the_sweep_csv_both_on_stdout_are_refused_before_any_work(two, capsys):
    argv = ["aggregate", two["a"], two["b"], "--tune", "--dev-runs", two["a"], two["b"], "--dev-qrels", two["qrels"]]
    assert main([*argv, "-o", "-", "--sweep-csv", "-"]) == 2
    one_line_error(capsys, "-o - and --sweep-csv - both write to stdout")


def test_a_sweep_csv_on_stdout_leaves_stdout_to_the_csv_alone(two, capsys):
    argv = ["aggregate", two["a"], two["b"], "--tune", "--dev-runs", two["a"], two["b"], "--dev-qrels", two["qrels"]]
    out = two["dir"] / "fused.run"
    assert main([*argv, "-o", str(out), "--sweep-csv", "-"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == "w1,w2,AP" and len(lines) == 1 + 11 and all(line.count(",") == 2 for line in lines)
    assert "best weights 0, 1" in captured.err and "w1\tw2\tAP" in captured.err  # the table for people: stderr
    assert read_run(out).tag == "interp:w=0,1:t=none,none"


# --------------------------------------------------------------------------- 4. the measure's cutoff and --depth


def _deep_runs(tmp_path):
    """Two dev runs of one query over 1,500 documents each (in opposite orders), qrels judging the document at
    rank 1,200 of the first run (rank 301 of the second)."""
    docs = [f"d{i:04d}" for i in range(1500)]
    a = write_lines(tmp_path / "da.run", [f"q Q0 {d} {r + 1} {1500 - r} A" for r, d in enumerate(docs)])
    b = write_lines(tmp_path / "db.run", [f"q Q0 {d} {r + 1} {1500 - r} B" for r, d in enumerate(docs[::-1])])
    qrels = write_lines(tmp_path / "dev.qrels", ["q 0 d1199 1", "q 0 d0000 1"])
    return a, b, qrels


def test_tuning_refuses_a_cutoff_beyond_depth_and_accepts_one_within_it(tmp_path, capsys):
    a, b, qrels = _deep_runs(tmp_path)
    tune = ["aggregate", a, b, "--tune", "--dev-runs", a, b, "--dev-qrels", qrels]
    out = tmp_path / "f.run"
    assert main([*tune, "--depth", "100", "--measure", "R@1000", "-o", str(out), "-q"]) == 2
    one_line_error(
        capsys,
        "--measure (Fusion's measure) must be a measure within the 100 ranks the weights are tuned at: R@1000 reads "
        "ranks beyond 100 (e.g. R@100)",
    )
    assert main([*tune, "--depth", "1", "--measure", "P@10", "-o", str(out), "-q"]) == 2
    one_line_error(capsys, "--measure (Fusion's measure) must be a measure within the 1 rank the weights are tuned at")
    csv = tmp_path / "sweep.csv"
    assert main([*tune, "--depth", "2000", "--measure", "R@2000", "--sweep-csv", str(csv), "-o", str(out), "-q"]) == 0
    # the sweep's R@2000 of each weight vector is that of its fused dev run evaluated at depth 2000
    rows = [line.split(",") for line in csv.read_text().splitlines()[1:]]
    for w1, _, value in rows[:3]:
        fused = tmp_path / f"k{w1}.run"
        assert main(["aggregate", a, b, "--kappa", w1, "--depth", "2000", "-o", str(fused), "-q"]) == 0
        got = evaluate(read_run(fused), read_qrels(qrels), ["R@2000"], depth=2000).mean()["R@2000"]
        assert float(value) == pytest.approx(got)


def test_fit_runs_evaluates_the_dev_measure_at_the_depth_it_tunes_at(tmp_path):
    from clirkit.systems import Fusion

    a, b, qrels = _deep_runs(tmp_path)
    dev = [read_run(a), read_run(b)]
    with pytest.raises(ClirkitError, match=r"within the 100 ranks the weights are tuned at: R@1000 reads ranks"):
        Fusion(measure="R@1000").fit_runs(dev, read_qrels(qrels), depth=100)
    # R@1000 at depth 1000 and R@2000 at depth 2000 differ: the relevant d1199 is at rank 1,200 of run A
    at_1000 = Fusion(measure="R@1000").fit_runs(dev, read_qrels(qrels), depth=1000).sweep_.scores
    at_2000 = Fusion(measure="R@2000").fit_runs(dev, read_qrels(qrels), depth=2000).sweep_.scores
    assert at_2000[-1] == 1.0 and at_1000[-1] == 0.5  # weights 1, 0: run A alone


# --------------------------------------------------------------------------- 8. a flat sweep


def test_a_flat_sweep_is_said_on_stderr_and_recorded_without_changing_the_weights(two, capsys):
    from clirkit.systems import Fusion

    zero = write_lines(two["dir"] / "q0", ["q1 0 d2 0", "q2 0 d1 0"])  # grade 0 only: AP 0 whatever the weights
    argv = ["aggregate", two["a"], two["b"], "--tune", "--dev-runs", two["a"], two["b"], "--dev-qrels", zero]
    out = two["dir"] / "f.run"
    assert main([*argv, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert (
        "aggregate --tune: every weight vector scores AP 0.0000 on the dev queries: the dev runs tell no weights "
        "apart, so 0, 1 (the first in grid order) are not tuned ones; check the dev qrels and --measure\n"
    ) in err
    assert read_run(out).tag == "interp:w=0,1:t=none,none"  # the choice is unchanged
    assert main([*argv, "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().err == ""
    dev = [read_run(two["a"]), read_run(two["b"])]
    flat = Fusion().fit_runs(dev, read_qrels(zero))
    assert flat.weights_tied_ is True and flat.weights_ == [0.0, 1.0]
    tuned = Fusion().fit_runs(dev, read_qrels(two["qrels"]))
    assert tuned.weights_tied_ is False and not tuned.sweep_.tied
    assert Fusion(weights=[0.5, 0.5]).fit_runs(None, None, n=2).weights_tied_ is False
    flat.save(two["dir"] / "flat.npz")
    assert Fusion.load(two["dir"] / "flat.npz").weights_tied_ is True


# --------------------------------------------------------------------------- 9. Borda's sums of points


def test_borda_refuses_a_depth_whose_sums_of_points_run_together(tmp_path, capsys):
    from clirkit.fusion import borda

    a = write_lines(tmp_path / "bA.run", ["q Q0 b 1 4 A", "q Q0 p 2 3 A", "q Q0 a 3 2 A"])
    b = write_lines(tmp_path / "bB.run", ["q Q0 q 1 4 B", "q Q0 r 2 3 B", "q Q0 a 3 2 B", "q Q0 b 4 1 B"])
    missing = str(tmp_path / "missing.run")
    argv = ["aggregate", a, missing, "--method", "borda", "-o", str(tmp_path / "f.run"), "-q"]
    assert main([*argv, "--depth", str(2**53)]) == 2  # refused before any run is read
    one_line_error(capsys, "a Borda count at depth 9007199254740992 with weights 1 1: depth x (sum of the weights)")
    assert main([*argv, "--weights", "1", "3", "--depth", str(2**51 + 1)]) == 2  # 2**51 x 4 / 1 is 2**53
    one_line_error(capsys, "a Borda count at depth 2251799813685249 with weights 1 3")
    # at the deepest accepted, the points are the true ones: b = 2K - 3 above a = 2K - 4
    k = 2**52
    fused = borda([read_run(a), read_run(b)], depth=k)
    assert fused.docids.tolist()[:2] == ["b", "a"] and fused.scores.tolist()[:2] == [2.0 * k - 3, 2.0 * k - 4]
    with pytest.raises(ClirkitError, match=r"give a depth of at most 4503599627370496$"):
        borda([read_run(a), read_run(b)], depth=k + 1)


# --------------------------------------------------------------------------- 10. ties in the input runs


def test_tied_input_scores_are_cut_and_pointed_in_docid_order_whatever_the_line_order(tmp_path, capsys):
    tie = write_lines(tmp_path / "tie.run", ["q1 Q0 d9 1 1.0 A", "q1 Q0 d10 2 1.0 A", "q1 Q0 d2 3 1.0 A"])
    tieb = write_lines(tmp_path / "tieb.run", ["q1 Q0 d2 1 1.0 A", "q1 Q0 d10 2 1.0 A", "q1 Q0 d9 3 1.0 A"])
    other = write_lines(tmp_path / "tie2.run", ["q1 Q0 zz 1 1.0 B"])
    outs = {}
    for name, run in (("tie", tie), ("tieb", tieb)):
        for method in (["--kappa", "1", "--depth", "1"], ["--method", "borda", "--depth", "4"]):
            assert main(["aggregate", run, other, *method, "-o", "-", "-q"]) == 0
            outs[name, method[1]] = capsys.readouterr().out
    assert outs["tie", "1"] == outs["tieb", "1"] == "q1 Q0 d10 1 1.0 interp:w=1,0:t=none,none\n"  # d10 < d2 < d9
    # Borda at K = 4: d10 4 points, d2 3, d9 2, zz 4 (ties of the fused points by docid too)
    assert outs["tie", "borda"] == outs["tieb", "borda"]
    assert [line.split()[2:5:2] for line in outs["tie", "borda"].splitlines()] == [
        ["d10", "4.0"],
        ["zz", "4.0"],
        ["d2", "3.0"],
        ["d9", "2.0"],
    ]


def test_docid_ties_leaves_runs_in_clirkits_order_as_they_are_and_sorts_other_ties():
    from clirkit.fusion import interpolate
    from clirkit.fusion.align import docid_ties

    plain = Run(["q", "q", "r"], ["b", "a", "a"], [2.0, 1.0, 1.0])  # (1.0 twice, in two queries: no tie)
    assert docid_ties(plain) is plain and docid_ties(PackedRun(plain)).__class__ is PackedRun
    ranked = Run.ranked(["q"] * 4 + ["r"] * 2, list("acbzyx"), [3.0, 2.0, 2.0, 1.0, 1.0, 1.0], tag="T")
    assert ranked.docids.tolist() == ["a", "b", "c", "z", "x", "y"]  # clirkit's order: ties by docid
    packed = PackedRun(ranked)
    assert docid_ties(ranked) is ranked and docid_ties(packed) is packed  # nothing to do: a packed run stays packed
    swapped = Run(["q", "q", "q", "q", "r", "r"], list("acbzyx"), [3.0, 2.0, 2.0, 1.0, 1.0, 1.0], tag="T")
    for given in (swapped, PackedRun(swapped)):
        ordered = docid_ties(given)
        assert ordered.docids.tolist() == ["a", "b", "c", "z", "x", "y"] and ordered.tag == "T"
        assert ordered.scores.tolist() == swapped.scores.tolist()
    assert interpolate([swapped], depth=2).for_query("q")[0].tolist() == ["a", "b"]  # (c, in line order)


# --------------------------------------------------------------------------- 12. an exact test says so


def _ev(values_a, qids, tag):
    values = np.array(values_a, dtype=np.float64).reshape(-1, 1)
    return Evaluation(("AP",), np.array(qids), values, "run", tag, (), ())


def test_the_note_says_exact_when_every_sign_vector_was_enumerated():
    five = [f"q{i}" for i in range(5)]
    base, better = _ev([0.1] * 5, five, "a"), _ev([0.5] * 5, five, "b")
    text = Report(["a", "b"], [base, better]).text()
    assert "(paired randomization test, exact: all 2^5 = 32 sign vectors, two-sided)" in text
    doc = json.loads(Report(["a", "b"], [base, better]).json())
    assert (doc["permutations"], doc["seed"]) == (10_000, 0)  # the settings, as given
    assert "exact" not in doc["runs"][0] and (doc["runs"][1]["exact"], doc["runs"][1]["sign_vectors"]) == (True, 32)
    fourteen = [f"q{i}" for i in range(14)]  # 2^14 = 16,384 sign vectors: more than 10,000, drawn
    drawn = Report(["a", "b"], [_ev([0.1] * 14, fourteen, "a"), _ev([0.5] * 14, fourteen, "b")])
    assert "(paired randomization test, 10000 permutations, seed 0, two-sided)" in drawn.text()
    assert (json.loads(drawn.json())["runs"][1]["exact"], json.loads(drawn.json())["runs"][1]["sign_vectors"]) == (
        False,
        10_000,
    )
    mixed = Report(["a", "b", "c"], [_ev([0.1] * 14, fourteen, "a"), better, _ev([0.5] * 14, fourteen, "c")])
    assert (
        "(paired randomization test: exact (all 2^n sign vectors of the n queries a run shares with the baseline) "
        "where 2^n <= 10000, else 10000 permutations, seed 0, two-sided)"
    ) in mixed.text()


def test_eval_on_five_queries_says_the_test_was_exact(tmp_path, capsys):
    qrels = write_lines(tmp_path / "qrels", [f"q{i} 0 good 1" for i in range(5)])
    weak = write_lines(
        tmp_path / "weak.run", [f"q{i} Q0 {d} {r} {3 - r} W" for i in range(5) for r, d in ((1, "bad"), (2, "good"))]
    )
    strong = write_lines(tmp_path / "strong.run", [f"q{i} Q0 good 1 2 S" for i in range(5)])
    assert main(["eval", "--qrels", qrels, weak, strong, "-m", "AP"]) == 0
    assert "exact: all 2^5 = 32 sign vectors" in capsys.readouterr().out
    assert main(["eval", "--qrels", qrels, weak, strong, "-m", "AP", "--format", "json"]) == 0
    strong_doc = json.loads(capsys.readouterr().out)["runs"][1]
    assert (strong_doc["exact"], strong_doc["sign_vectors"]) == (True, 32)
    assert strong_doc["significance"]["AP"]["p_value"] == 2 / 32


# --------------------------------------------------------------------------- 13. messages, tags, progress, plurals


def test_a_tiny_step_is_refused_in_one_short_line(two, capsys):
    argv = ["aggregate", two["a"], two["b"], "--tune", "--dev-runs", two["a"], two["b"], "--dev-qrels", two["qrels"]]
    for step in ("1e-300", "5e-324"):
        assert main([*argv, "--step", step, "-o", str(two["dir"] / "f.run")]) == 2
        err = one_line_error(capsys, "--step (Fusion's step) must be the step of a grid of weights: the weight grid")
        assert err.endswith("has more than 1,000,000 points: take a larger step\n") and len(err) < 200


def test_a_count_of_transforms_names_the_option_and_the_runs(two, capsys):
    assert main(["aggregate", two["a"], two["b"], "--transform", "shift", "none", "minmax", "-o", "-"]) == 2
    one_line_error(capsys, "--transform: 3 transforms for 2 RUNs: give one for all the RUNs, or one per RUN")


def test_kappa_minus_zero_is_kappa_zero_and_subnormal_weights_are_refused(two, capsys):
    from clirkit.fusion import borda, interpolate

    assert main(["aggregate", two["a"], two["b"], "--kappa", "-0", "-o", "-", "-q"]) == 0
    assert capsys.readouterr().out.split("\n")[0].endswith(" interp:w=0,1:t=none,none")
    assert main(["aggregate", two["a"], two["b"], "--weights", "-0", "1", "--method", "borda", "-o", "-", "-q"]) == 0
    assert capsys.readouterr().out.split("\n")[0].endswith(" borda:K=1000:w=0,1")
    assert main(["aggregate", two["a"], two["b"], "--weights", "1e-320", "1", "-o", "-"]) == 2
    one_line_error(capsys, "--weights (Fusion's weights) must be 0 or at least 2.23e-308 each (a smaller weight is a")
    assert main(["aggregate", two["a"], two["b"], "--kappa", "1e-320", "-o", "-"]) == 2
    assert one_line_error(capsys, "--kappa must be 0 or at least 2.23e-308").endswith(", got 1e-320\n")
    runs = [read_run(two["a"]), read_run(two["b"])]
    with pytest.raises(ClirkitError, match=r"^weights must be 0 or at least 2\.23e-308 each .*, got 1e-320 1$"):
        interpolate(runs, weights=[1e-320, 1.0])
    with pytest.raises(ClirkitError, match=r", got 1e-320 1$"):
        borda(runs, weights=[1e-320, 1.0])


def test_a_long_grid_shows_progress_on_stderr_unless_quiet(tmp_path, capsys):
    runs = [
        write_lines(tmp_path / f"{t}.run", [f"q Q0 d{(i * 7 + j) % 5} {j + 1} {5 - j} {t}" for j in range(5)])
        for i, t in enumerate("ABC")
    ]
    qrels = write_lines(tmp_path / "qrels", ["q 0 d2 1"])
    argv = ["aggregate", *runs, "--tune", "--dev-runs", *runs, "--dev-qrels", qrels, "--step", "0.02"]  # 1,326 points
    out = tmp_path / "f.run"
    assert main([*argv, "-o", str(out)]) == 0
    assert "weights tried" in capsys.readouterr().err
    assert main([*argv, "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert main([*argv[:-1], "0.1", "-o", str(out)]) == 0  # 66 points: no bar
    assert "weights tried" not in capsys.readouterr().err


def test_a_negative_run_under_transform_none_is_refused_before_the_tuning(two, capsys):
    neg = write_lines(two["dir"] / "neg.run", ["q1 Q0 d1 1 -3.0 N", "q1 Q0 d2 2 -4.0 N"])
    argv = ["aggregate", neg, two["b"], "--tune", "--dev-runs", two["a"], two["b"], "--dev-qrels", two["qrels"]]
    assert main([*argv, "--transform", "none", "-o", str(two["dir"] / "f.run")]) == 2
    one_line_error(capsys, f"{neg}: run 'N' has negative scores (min -4); sum normalization needs scores >= 0")


def test_counts_of_one_are_in_the_singular(tmp_path, capsys):
    a = write_lines(tmp_path / "a.run", ["q1 Q0 d1 1 2 A", "q1 Q0 d2 2 1 A"])
    b = write_lines(tmp_path / "b.run", ["q1 Q0 d2 1 2 B", "q1 Q0 d3 2 1 B"])
    qrels = write_lines(tmp_path / "qrels", ["q1 0 d2 1", "q2 0 d9 1"])
    assert main(["aggregate", a, b, "--depth", "1", "-o", str(tmp_path / "f.run")]) == 0
    assert "aggregate: 2 runs -> 1 row for 1 query (" in capsys.readouterr().err
    assert (
        main(["aggregate", a, b, "--tune", "--dev-runs", a, b, "--dev-qrels", qrels, "-o", str(tmp_path / "g.run")])
        == 0
    )
    captured = capsys.readouterr()
    assert "AP averaged over 1 dev query, the judged queries the dev runs cover" in captured.err
    assert "on 1 dev query; ties go to the first in grid order)" in captured.out
    extra = write_lines(tmp_path / "extra.run", ["q1 Q0 d2 1 2 E", "qX Q0 d1 1 2 E"])
    assert main(["eval", "--qrels", qrels, extra, "-m", "AP", "--format", "csv"]) == 0
    err = capsys.readouterr().err
    assert "1 run query is not in the qrels and was ignored (e.g. qX)" in err
    assert "1 qrels query has no run line and scores 0 (e.g. q2)" in err
    assert main(["eval", "--qrels", qrels, extra, "-m", "AP"]) == 0
    notes = capsys.readouterr().out
    assert "1 qrels query without run lines" in notes and "1 run query not in the qrels, ignored" in notes
    qrels_obj = Qrels(["q1", "q2", "q3"], ["d2", "d9", "d9"], [1, 1, 1])
    ev = evaluate(read_run(extra), qrels_obj, ["AP"])
    assert "# e: 2 qrels queries without run lines" in Report(["e"], [ev]).text()
