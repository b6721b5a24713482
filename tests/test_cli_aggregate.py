"""`clirkit aggregate`: interpolation and Borda of run files, negative scores, kappa tuning on dev runs."""

from __future__ import annotations

import numpy as np

from clirkit.cli import main
from clirkit.formats import read_run


def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def as_dict(run):
    return {(q, d): s for q, d, s in zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist())}


def test_aggregate_command_interpolates_two_run_files(tmp_path, capsys):
    a = write_lines(tmp_path / "a.run", ["q1 Q0 Gen.1.1 1 3 A", "q1 Q0 Gen.1.2 2 1 A"])
    b = write_lines(tmp_path / "b.run", ["q1 Q0 Gen.1.2 1 4 B", "q1 Q0 Gen.1.3 2 1 B"])
    out = tmp_path / "fused.run"
    assert main(["aggregate", a, b, "-o", str(out), "--kappa", "0.3", "-q"]) == 0
    got = read_run(out)
    assert got.docids.tolist() == ["Gen.1.2", "Gen.1.1", "Gen.1.3"]
    np.testing.assert_allclose(got.scores, [0.3 / 4 + 0.7 * 4 / 5, 0.3 * 3 / 4, 0.7 / 5])
    assert main(["aggregate", a, b, "-o", str(out), "--method", "borda", "--depth", "3", "-q"]) == 0
    assert as_dict(read_run(out)) == {("q1", "Gen.1.1"): 3, ("q1", "Gen.1.2"): 3 + 2, ("q1", "Gen.1.3"): 2}


def test_aggregate_command_shifts_negative_scores_by_default_and_refuses_them_with_transform_none(tmp_path, capsys):
    a = write_lines(tmp_path / "a.run", ["q1 Q0 d1 1 3 A"])
    b = write_lines(tmp_path / "b.run", ["q1 Q0 d1 1 -0.5 boost", "q1 Q0 d2 2 -1 boost"])
    out = tmp_path / "fused.run"
    assert main(["aggregate", a, b, "-o", str(out), "--transform", "none"]) == 2
    assert capsys.readouterr().err == (  # (the library names its keyword instead: transform="shift")
        f"clirkit: error: {b}: run 'boost' has negative scores (min -1); sum normalization needs scores >= 0: choose a "
        "per-query transform with --transform shift or --transform minmax\n"
    )
    assert not out.exists()
    assert main(["aggregate", a, b, "-o", str(out), "-q"]) == 0  # the default, auto: shift b, leave a
    assert out.read_text().split("\n")[0].endswith("interp:w=0.5,0.5:t=none,shift")
    # b shifted per query: d1 0.5, d2 0 -> sum-normalized d1 1, d2 0; a: d1 1
    assert as_dict(read_run(out)) == {("q1", "d1"): 0.5 * 1 + 0.5 * 1, ("q1", "d2"): 0.0}
    assert main(["aggregate", a, b, "-o", str(out), "--transform", "auto", "-q"]) == 0
    assert out.read_text().split("\n")[0].endswith("interp:w=0.5,0.5:t=none,shift")
    assert main(["aggregate", a, b, "-o", str(out), "--transform", "none", "shift", "-q"]) == 0
    assert out.read_text().split("\n")[0].endswith("interp:w=0.5,0.5:t=none,shift")


def test_aggregate_tune_picks_kappa_on_dev_and_applies_it_to_test(tmp_path, capsys):
    # dev: run 2 finds the relevant document, run 1 does not -> best kappa is 0 (ties go to the smaller)
    d1 = write_lines(tmp_path / "d1.run", ["q Q0 bad 1 3 X", "q Q0 good 2 1 X"])
    d2 = write_lines(tmp_path / "d2.run", ["q Q0 good 1 3 Y", "q Q0 bad 2 1 Y"])
    qrels = write_lines(tmp_path / "dev.qrels", ["q 0 good 1"])
    t1 = write_lines(tmp_path / "t1.run", ["t Q0 x 1 5 X"])
    t2 = write_lines(tmp_path / "t2.run", ["t Q0 y 1 5 Y"])
    out, sweep = tmp_path / "test.run", tmp_path / "sweep.csv"
    assert (
        main(
            [
                "aggregate",
                t1,
                t2,
                "-o",
                str(out),
                "--tune",
                "--qrels",
                qrels,
                "--dev-runs",
                d1,
                d2,
                "--step",
                "0.25",
                "--sweep-csv",
                str(sweep),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out  # without -q: the sweep and the best weights
    assert "best weights 0, 1 " in printed
    # at 0.5 good and bad tie; trec_eval breaks ties by docid descending, so good comes first
    assert sweep.read_text().splitlines() == [
        "w1,w2,AP",
        "0,1,1",
        "0.25,0.75,1",
        "0.5,0.5,1",
        "0.75,0.25,0.5",
        "1,0,0.5",
    ]
    assert read_run(out).tag == "interp:w=0,1:t=none,none"


def test_aggregate_tune_averages_over_the_judged_queries_the_dev_runs_cover(tmp_path, capsys):
    # the dev qrels judge q1..q4, the dev runs cover q1, q2 (and q9, unjudged): MAP is over q1, q2 only
    qrels = write_lines(tmp_path / "dev.qrels", ["q1 0 good 1", "q2 0 rel 1", "q3 0 a 1", "q4 0 b 1"])
    d1 = write_lines(
        tmp_path / "d1.run",
        ["q1 Q0 bad 1 3 X", "q1 Q0 good 2 1 X", "q2 Q0 x 1 2 X", "q2 Q0 rel 2 1 X", "q9 Q0 good 1 1 X"],
    )
    d2 = write_lines(tmp_path / "d2.run", ["q1 Q0 good 1 3 Y", "q1 Q0 bad 2 1 Y", "q2 Q0 x 1 2 Y", "q2 Q0 rel 2 1 Y"])
    t1 = write_lines(tmp_path / "t1.run", ["t Q0 x 1 5 X"])
    t2 = write_lines(tmp_path / "t2.run", ["t Q0 y 1 5 Y"])
    out, sweep = tmp_path / "test.run", tmp_path / "sweep.csv"
    assert (
        main(
            [
                "aggregate",
                t1,
                t2,
                "-o",
                str(out),
                "--tune",
                "--qrels",
                qrels,
                "--dev-runs",
                d1,
                d2,
                "--step",
                "0.25",
                "--sweep-csv",
                str(sweep),
                "-q",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert captured.out == captured.err == ""  # -q: the sweep goes to --sweep-csv only
    # q1: good first (AP 1) while kappa <= 0.5 (a tie at 0.5 goes to good, docid descending), else second (1/2);
    # q2: both lists rank x (2/3) above rel (1/3), so rel is second at every kappa (AP 1/2)
    ap_q2 = 1 / 2
    good_first, good_second = (1 + ap_q2) / 2, (1 / 2 + ap_q2) / 2  # over q1, q2; over q1..q4 it would be / 4
    rows = [line.split(",") for line in sweep.read_text().splitlines()[1:]]
    assert [float(v) for _, _, v in rows] == [good_first, good_first, good_first, good_second, good_second]
    tuned = ["aggregate", t1, t2, "-o", str(out), "--tune", "--qrels", qrels, "--dev-runs", d1, d2, "--step", "0.25"]
    assert main(tuned) == 0  # without -q, stderr says what the dev measure averages
    captured = capsys.readouterr()
    assert "AP averaged over 2 dev queries, the judged queries the dev runs cover" in captured.err
    assert f"best weights 0, 1 (AP {good_first:.4f} on 2 dev queries" in captured.out


def test_aggregate_tune_refuses_dev_runs_that_no_qrels_query_judges(tmp_path, capsys):
    qrels = write_lines(tmp_path / "dev.qrels", ["q1 0 good 1"])
    d, d2 = (write_lines(tmp_path / f"{n}.run", ["q7 Q0 good 1 1 X"]) for n in ("d", "d2"))
    t, t2 = (write_lines(tmp_path / f"{n}.run", ["t Q0 x 1 5 X"]) for n in ("t", "t2"))  # a run given twice: refused
    out = tmp_path / "test.run"
    assert main(["aggregate", t, t2, "-o", str(out), "--tune", "--qrels", qrels, "--dev-runs", d, d2, "-q"]) == 2
    assert "the dev qrels judge none of the dev runs' queries" in capsys.readouterr().err and not out.exists()


def test_kappa_with_one_or_three_runs_or_with_weights_says_which(tmp_path, capsys):
    """(--kappa with one run said "give --weights for more"; with --weights, "exactly two runs".)"""
    a = write_lines(tmp_path / "a.run", ["q1 Q0 d1 1 3 A"])
    b = write_lines(tmp_path / "b.run", ["q1 Q0 d2 1 3 B"])
    c = write_lines(tmp_path / "c.run", ["q1 Q0 d3 1 3 C"])
    out = str(tmp_path / "f.run")
    cases = {
        (a,): "a fusion needs at least two runs, got 1",
        (a, b, c): "--kappa weighs exactly two runs, got 3: give --weights for three or more",
    }
    for runs, said in cases.items():
        assert main(["aggregate", *runs, "--kappa", "0.5", "-o", out, "-q"]) == 2
        assert said in capsys.readouterr().err
    assert main(["aggregate", a, b, "--kappa", "0.5", "--weights", "0.5", "0.5", "-o", out, "-q"]) == 2
    assert "--kappa and --weights both weigh the runs: give one of them" in capsys.readouterr().err
    assert not (tmp_path / "f.run").exists()
