"""Fusion: interpolation of sum-normalized scores, Borda, kappa search (SPEC §6)."""
from __future__ import annotations

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.fusion import borda, interpolate, kappa_grid, transform_scores, tune_kappa
from clirkit.run import Run


def run_of(rows, tag="r"):
    """rows: list of (qid, docid, score)."""
    q, d, s = zip(*rows)
    return Run.ranked(q, d, s, tag=tag)


def as_dict(run):
    return {(q, d): s for q, d, s in zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist())}


A = run_of([("q1", "Gen.1.1", 3.0), ("q1", "Gen.1.2", 1.0), ("q2", "Exod.1.1", 2.0)], "A")
B = run_of([("q1", "Gen.1.2", 4.0), ("q1", "Gen.1.3", 1.0), ("q3", "Lev.1.1", 5.0)], "B")


def test_interpolation_matches_hand_formula_with_documents_missing_from_one_list():
    fused = interpolate([A, B], kappa=0.3)
    got = as_dict(fused)
    expected = {
        ("q1", "Gen.1.1"): 0.3 * 3 / 4,                      # missing from B -> 0 there
        ("q1", "Gen.1.2"): 0.3 * 1 / 4 + 0.7 * 4 / 5,
        ("q1", "Gen.1.3"): 0.7 * 1 / 5,                      # missing from A
        ("q2", "Exod.1.1"): 0.3 * 2 / 2,                     # query only in A
        ("q3", "Lev.1.1"): 0.7 * 5 / 5,                      # query only in B
    }
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-15)
    # rank order within q1 follows the fused scores; queries in first-appearance order
    assert fused.for_query("q1")[0].tolist() == ["Gen.1.2", "Gen.1.1", "Gen.1.3"]
    assert fused.query_ids == ["q1", "q2", "q3"]
    assert fused.tag == "interp:w=0.3,0.7:t=none,none"


def test_three_runs_with_weights_sum_the_weighted_normalized_scores():
    C = run_of([("q1", "Gen.1.3", 2.0), ("q1", "Gen.1.1", 2.0)], "C")
    got = as_dict(interpolate([A, B, C], [0.5, 0.25, 0.25]))
    assert got[("q1", "Gen.1.1")] == pytest.approx(0.5 * 3 / 4 + 0.25 * 2 / 4)
    assert got[("q1", "Gen.1.3")] == pytest.approx(0.25 * 1 / 5 + 0.25 * 2 / 4)


def test_negative_scores_need_an_explicit_transform():
    neg = run_of([("q1", "Gen.1.1", -1.0), ("q1", "Gen.1.2", -3.0), ("q1", "Gen.1.4", 1.0)], "boost")
    with pytest.raises(ClirkitError, match="negative scores.*--transform shift"):
        interpolate([A, neg], kappa=0.5)
    # shift: subtract the query's minimum (-3): 2, 0, 4 -> sum 6
    got = as_dict(interpolate([A, neg], kappa=0.5, transform=["none", "shift"]))
    assert got[("q1", "Gen.1.1")] == pytest.approx(0.5 * 3 / 4 + 0.5 * 2 / 6)
    assert got[("q1", "Gen.1.2")] == pytest.approx(0.5 * 1 / 4 + 0.0)
    assert got[("q1", "Gen.1.4")] == pytest.approx(0.5 * 4 / 6)


def test_minmax_and_shift_agree_after_sum_normalization_and_are_recorded_in_the_tag():
    neg = run_of([("q1", "a", -1.0), ("q1", "b", -3.0), ("q1", "c", 1.0), ("q2", "a", -7.0)], "s")
    np.testing.assert_allclose(transform_scores(neg, "minmax"), [1.0, 0.5, 0.0, 0.0])
    np.testing.assert_allclose(transform_scores(neg, "shift"), [4.0, 2.0, 0.0, 0.0])
    shifted = interpolate([neg, neg], kappa=0.5, transform="shift")
    scaled = interpolate([neg, neg], kappa=0.5, transform="minmax")
    np.testing.assert_allclose(shifted.scores, scaled.scores)
    assert scaled.tag.endswith(":t=minmax,minmax")


@pytest.mark.parametrize("kappa, which", [(1.0, 0), (0.0, 1)])
def test_kappa_one_and_zero_reproduce_each_input_ranking(kappa, which):
    rng = np.random.default_rng(7)
    runs = []
    for tag in ("x", "y"):
        q = np.repeat([f"q{i}" for i in range(5)], 30)
        d = np.array([f"d{j}" for j in rng.integers(0, 60, size=150)])
        keep = np.unique(np.char.add(np.char.add(q, " "), d), return_index=True)[1]
        runs.append(Run.ranked(q[keep], d[keep], rng.random(len(keep)).round(2), tag=tag))
    fused = interpolate(runs, kappa=kappa)
    source = runs[which]
    for qid in source.query_ids:
        docs = source.for_query(qid)[0]
        assert fused.for_query(qid)[0][:len(docs)].tolist() == docs.tolist()


def test_depth_cuts_inputs_before_normalizing_and_the_output():
    run = run_of([("q", f"d{i}", float(10 - i)) for i in range(5)])
    got = interpolate([run, run], kappa=0.5, depth=2)
    assert got.docids.tolist() == ["d0", "d1"]
    np.testing.assert_allclose(got.scores, [10 / 19, 9 / 19])


def test_bad_weights_are_user_errors():
    with pytest.raises(ClirkitError, match="sum to 1"):
        interpolate([A, B], [0.5, 0.6])
    with pytest.raises(ClirkitError, match="2 weights for 3 runs"):
        interpolate([A, B, A], [0.5, 0.5])
    with pytest.raises(ClirkitError, match="kappa must be in"):
        interpolate([A, B], kappa=1.5)
    with pytest.raises(ClirkitError, match="unknown score transform"):
        interpolate([A, B], transform="log")


def test_borda_gives_K_minus_rank_plus_one_points_per_list():
    # K = 3: A ranks d1, d2; B ranks d2, d3, d1
    a = run_of([("q", "d1", 9.0), ("q", "d2", 1.0)])
    b = run_of([("q", "d2", -1.0), ("q", "d3", -2.0), ("q", "d1", -5.0)])
    got = borda([a, b], depth=3)
    assert as_dict(got) == {("q", "d1"): 3 + 1, ("q", "d2"): 2 + 3, ("q", "d3"): 0 + 2}
    assert got.docids.tolist() == ["d2", "d1", "d3"]
    weighted = as_dict(borda([a, b], [2.0, 0.5], depth=3))
    assert weighted == {("q", "d1"): 2 * 3 + 0.5 * 1, ("q", "d2"): 2 * 2 + 0.5 * 3, ("q", "d3"): 0.5 * 2}


def test_tune_kappa_returns_the_sweep_and_breaks_ties_toward_smaller_kappa():
    a = run_of([("q", "good", 1.0), ("q", "bad", 3.0)])
    b = run_of([("q", "good", 3.0), ("q", "bad", 1.0)])

    def rr_of_good(run):
        return 1.0 / (run.docids.tolist().index("good") + 1)

    sweep = tune_kappa(a, b, rr_of_good, measure="RR")
    np.testing.assert_allclose(sweep.kappas, kappa_grid(0.05))
    # good wins while (1-k)*3/4 + k/4 > k*3/4 + (1-k)/4, i.e. k < 0.5; at 0.5 the docid tie-break puts bad first
    assert sweep.values.tolist() == [1.0 if k < 0.5 else 0.5 for k in sweep.kappas]
    assert sweep.best_kappa == 0.0 and sweep.best_value == 1.0
    assert sweep.to_csv().splitlines()[:3] == ["kappa,RR", "0,1", "0.05,1"]


# command line -----------------------------------------------------------------------------------

def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_evaluator_uses_trec_eval_average_precision():
    from clirkit.fusion import evaluator
    from clirkit.run import Qrels

    qrels = Qrels(["q", "q", "r"], ["good", "also", "x"], [1, 2, 1])
    run = run_of([("q", "bad", 3.0), ("q", "good", 2.0), ("q", "also", 1.0)])
    # q: AP = (1/2 + 2/3) / 2; r is missing from the run and counts 0
    assert evaluator(qrels, "AP")(run) == pytest.approx(((1 / 2 + 2 / 3) / 2 + 0) / 2)
    # tune_kappa takes qrels directly: with kappa 1 the run itself is evaluated
    sweep = tune_kappa(run, run_of([("q", "x", 1.0)]), qrels, measure="AP", grid=[1.0])
    assert sweep.best_value == pytest.approx(((1 / 2 + 2 / 3) / 2 + 0) / 2)


def test_aggregate_command_interpolates_two_run_files(tmp_path, capsys):
    from clirkit.cli import main
    from clirkit.formats import read_run

    a = write_lines(tmp_path / "a.run", ["q1 Q0 Gen.1.1 1 3 A", "q1 Q0 Gen.1.2 2 1 A"])
    b = write_lines(tmp_path / "b.run", ["q1 Q0 Gen.1.2 1 4 B", "q1 Q0 Gen.1.3 2 1 B"])
    out = tmp_path / "fused.run"
    assert main(["aggregate", a, b, "-o", str(out), "--kappa", "0.3", "-q"]) == 0
    got = read_run(out)
    assert got.docids.tolist() == ["Gen.1.2", "Gen.1.1", "Gen.1.3"]
    np.testing.assert_allclose(got.scores, [0.3 / 4 + 0.7 * 4 / 5, 0.3 * 3 / 4, 0.7 / 5])
    assert main(["aggregate", a, b, "-o", str(out), "--method", "borda", "--depth", "3", "-q"]) == 0
    assert as_dict(read_run(out)) == {("q1", "Gen.1.1"): 3, ("q1", "Gen.1.2"): 3 + 2, ("q1", "Gen.1.3"): 2}


def test_aggregate_command_refuses_negative_scores_without_transform(tmp_path, capsys):
    from clirkit.cli import main

    a = write_lines(tmp_path / "a.run", ["q1 Q0 d1 1 3 A"])
    b = write_lines(tmp_path / "b.run", ["q1 Q0 d1 1 -0.5 boost", "q1 Q0 d2 2 -1 boost"])
    out = tmp_path / "fused.run"
    assert main(["aggregate", a, b, "-o", str(out)]) == 2
    assert "negative scores" in capsys.readouterr().err and not out.exists()
    assert main(["aggregate", a, b, "-o", str(out), "--transform", "none", "shift", "-q"]) == 0
    assert out.read_text().split("\n")[0].endswith("interp:w=0.5,0.5:t=none,shift")


def test_aggregate_tune_picks_kappa_on_dev_and_applies_it_to_test(tmp_path, capsys):
    from clirkit.cli import main
    from clirkit.formats import read_run

    # dev: run 2 finds the relevant document, run 1 does not -> best kappa is 0 (ties go to the smaller)
    d1 = write_lines(tmp_path / "d1.run", ["q Q0 bad 1 3 X", "q Q0 good 2 1 X"])
    d2 = write_lines(tmp_path / "d2.run", ["q Q0 good 1 3 Y", "q Q0 bad 2 1 Y"])
    qrels = write_lines(tmp_path / "dev.qrels", ["q 0 good 1"])
    t1 = write_lines(tmp_path / "t1.run", ["t Q0 x 1 5 X"])
    t2 = write_lines(tmp_path / "t2.run", ["t Q0 y 1 5 Y"])
    out, sweep = tmp_path / "test.run", tmp_path / "sweep.csv"
    assert main(["aggregate", t1, t2, "-o", str(out), "--tune", "--qrels", qrels, "--dev-runs", d1, d2,
                 "--grid-step", "0.25", "--sweep-csv", str(sweep), "-q"]) == 0
    printed = capsys.readouterr().out
    assert "best kappa 0 " in printed
    # at 0.5 good and bad tie; trec_eval breaks ties by docid descending, so good comes first
    assert sweep.read_text().splitlines() == ["kappa,AP", "0,1", "0.25,1", "0.5,1", "0.75,0.5", "1,0.5"]
    assert read_run(out).tag == "interp:w=0,1:t=none,none"


def test_id_factorization_is_exact_even_when_the_hash_collides(monkeypatch):
    from clirkit import fusion

    ids = np.array(["Gen.1.2", "Gen.1.10", "Exod.3.1", "Gen.1.2", "Gen.1.1"])
    for collide in (False, True):
        if collide:
            monkeypatch.setattr(fusion, "_string_hash", lambda v: np.zeros(len(v), dtype=np.uint64))
        uniques, codes, appearance = fusion._factorize(ids)
        assert uniques.tolist() == sorted(set(ids.tolist()))
        assert uniques[codes].tolist() == ids.tolist()
        # first-appearance position of each sorted id: Exod.3.1 third, Gen.1.1 fourth, Gen.1.10 second, Gen.1.2 first
        assert appearance.tolist() == [2, 3, 1, 0]


def test_a_list_whose_scores_sum_to_zero_contributes_nothing():
    flat = run_of([("q1", "Gen.1.1", 2.0), ("q1", "Gen.1.5", 2.0)], "flat")  # shift makes both 0
    got = as_dict(interpolate([A, flat], kappa=0.5, transform="shift"))
    assert got[("q1", "Gen.1.5")] == 0.0
    assert got[("q1", "Gen.1.1")] == pytest.approx(0.5 * (3 - 1) / 2)  # A shifted: 2, 0


def test_weight_grid_covers_the_simplex_at_the_step():
    from clirkit.fusion import weight_grid

    grid = weight_grid(3, 0.5)
    assert grid.tolist() == [[0, 0, 1], [0, 0.5, 0.5], [0, 1, 0], [0.5, 0, 0.5], [0.5, 0.5, 0], [1, 0, 0]]
    assert len(weight_grid(3, 0.1)) == 66 and np.allclose(weight_grid(4, 0.25).sum(axis=1), 1)


def test_tune_weights_with_two_runs_agrees_with_tune_kappa():
    from clirkit.fusion import tune_kappa, tune_weights
    from clirkit.run import Qrels, Run

    a = Run(["q1"] * 3 + ["q2"] * 2, ["d1", "d2", "d3", "d4", "d5"], [3.0, 2.0, 1.0, 2.0, 1.0])
    b = Run(["q1"] * 3 + ["q2"] * 2, ["d3", "d2", "d1", "d5", "d4"], [3.0, 2.0, 1.0, 2.0, 1.0])
    qrels = Qrels(["q1", "q2"], ["d3", "d5"], [1, 2])
    weights, value = tune_weights([a, b], qrels, step=0.05)
    sweep = tune_kappa(a, b, qrels)
    assert weights[0] == pytest.approx(sweep.best_kappa) and value == pytest.approx(sweep.best_value)
    assert value == 1.0  # b ranks both relevant documents first
