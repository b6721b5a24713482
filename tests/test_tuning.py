"""Dev tuning of fusion weights (SPEC §6): kappa and weight grids, sweeps, the dev evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.fusion import interpolate
from clirkit.fusion.align import align
from clirkit.fusion.interpolation import sum_normalized, weighted_sum
from clirkit.measures import parse_measure
from clirkit.run import Qrels, Run
from clirkit.tuning import (
    KappaSweep,
    WeightSweep,
    covered_queries,
    evaluator,
    kappa_grid,
    tune_kappa,
    tune_weights,
    weight_grid,
)


def run_of(rows, tag="r"):
    """rows: list of (qid, docid, score)."""
    q, d, s = zip(*rows)
    return Run.ranked(q, d, s, tag=tag)


def score_of(docid):
    """An evaluation: the fused score of ``docid`` (its only row)."""

    def evaluate(run):
        return float(run.scores[run.docids.tolist().index(docid)])

    return evaluate


def test_kappa_grid_runs_from_zero_to_one_by_the_step():
    assert kappa_grid(0.25).tolist() == [0, 0.25, 0.5, 0.75, 1]
    assert len(kappa_grid()) == 21 and kappa_grid(0.05)[3] == 0.15
    with pytest.raises(ClirkitError, match="kappa step must be in"):
        kappa_grid(0)


def test_weight_grid_covers_the_simplex_at_the_step():
    grid = weight_grid(3, 0.5)
    assert grid.tolist() == [[0, 0, 1], [0, 0.5, 0.5], [0, 1, 0], [0.5, 0, 0.5], [0.5, 0.5, 0], [1, 0, 0]]
    assert len(weight_grid(3, 0.1)) == 66 and np.allclose(weight_grid(4, 0.25).sum(axis=1), 1)
    with pytest.raises(ClirkitError, match="must divide 1"):
        weight_grid(2, 0.3)
    with pytest.raises(ClirkitError, match="at least 2 runs"):
        weight_grid(1, 0.5)


def test_tune_kappa_returns_the_sweep_and_breaks_ties_toward_smaller_kappa():
    a = run_of([("q", "good", 1.0), ("q", "bad", 3.0)])
    b = run_of([("q", "good", 3.0), ("q", "bad", 1.0)])

    def rr_of_good(run):
        return 1.0 / (run.docids.tolist().index("good") + 1)

    sweep = tune_kappa(a, b, rr_of_good, measure="RR")
    assert isinstance(sweep, KappaSweep)
    np.testing.assert_allclose(sweep.kappas, kappa_grid(0.05))
    # good wins while (1-k)*3/4 + k/4 > k*3/4 + (1-k)/4, i.e. k < 0.5; at 0.5 the docid tie-break puts bad first
    assert sweep.values.tolist() == [1.0 if k < 0.5 else 0.5 for k in sweep.kappas]
    assert sweep.best_kappa == 0.0 and sweep.best_value == 1.0
    assert sweep.to_csv().splitlines()[:3] == ["kappa,RR", "0,1", "0.05,1"]
    # the kappa view of a weight sweep: rows (kappa, 1 - kappa)
    assert sweep.best.tolist() == [0.0, 1.0] and sweep.best_score == 1.0
    np.testing.assert_allclose(sweep.weights[:, 1], 1 - kappa_grid(0.05))


def test_tune_kappa_scores_each_kappa_by_the_hand_formula():
    a = run_of([("q", "good", 1.0), ("q", "bad", 3.0)])
    b = run_of([("q", "good", 3.0), ("q", "bad", 1.0)])
    sweep = tune_kappa(a, b, score_of("good"), grid=[0.0, 0.2, 1.0])
    np.testing.assert_allclose(sweep.values, [k * 1 / 4 + (1 - k) * 3 / 4 for k in (0.0, 0.2, 1.0)], atol=1e-15)


def test_tune_kappa_rejects_an_empty_grid_and_kappas_outside_zero_one():
    with pytest.raises(ClirkitError, match="grid is empty"):
        tune_kappa(run_of([("q", "d", 1.0)]), run_of([("q", "d", 1.0)]), score_of("d"), grid=[])
    with pytest.raises(ClirkitError, match=r"kappas must be in \[0, 1\]"):
        tune_kappa(run_of([("q", "d", 1.0)]), run_of([("q", "d", 1.0)]), score_of("d"), grid=[0.5, 1.5])


def test_tune_weights_returns_every_weight_vector_with_its_dev_score():
    a = run_of([("q", "good", 1.0), ("q", "bad", 3.0)], "a")
    b = run_of([("q", "good", 3.0), ("q", "bad", 1.0)], "b")
    c = run_of([("q", "good", 2.0), ("q", "other", 2.0)], "c")
    sweep = tune_weights([a, b, c], score_of("good"), step=0.5, measure="score")
    assert isinstance(sweep, WeightSweep) and sweep.measure == "score"
    assert sweep.weights.tolist() == weight_grid(3, 0.5).tolist()
    # good's share of each list: a 1/4, b 3/4, c 2/4
    expected = [w0 * 1 / 4 + w1 * 3 / 4 + w2 * 2 / 4 for w0, w1, w2 in sweep.weights.tolist()]
    np.testing.assert_allclose(sweep.scores, expected, atol=1e-15)
    assert sweep.best.tolist() == [0, 1, 0] and sweep.best_score == pytest.approx(3 / 4)
    best, value = sweep  # unpacks like the (weights, value) pair
    assert best.tolist() == [0, 1, 0] and value == sweep.best_score
    assert sweep.to_csv().splitlines()[:2] == ["w1,w2,w3,score", "0,0,1,0.5"]
    assert sweep.transforms == ("none", "none", "none")


def test_tune_weights_takes_an_explicit_grid_and_checks_it():
    a = run_of([("q", "good", 1.0), ("q", "bad", 3.0)])
    b = run_of([("q", "good", 3.0), ("q", "bad", 1.0)])
    sweep = tune_weights([a, b], score_of("good"), grid=[[0.25, 0.75], [1.0, 0.0]])
    np.testing.assert_allclose(sweep.scores, [0.25 * 1 / 4 + 0.75 * 3 / 4, 1 / 4])
    with pytest.raises(ClirkitError, match="one column per run"):
        tune_weights([a, b], score_of("good"), grid=[[0.2, 0.3, 0.5]])
    with pytest.raises(ClirkitError, match="sum to 1"):
        tune_weights([a, b], score_of("good"), grid=[[0.5, 0.6]])


def test_sweeps_score_exactly_what_interpolate_scores_at_each_grid_point():
    rng = np.random.default_rng(3)
    runs = []
    for tag in ("x", "y", "z"):
        q = np.repeat([f"q{i}" for i in range(4)], 20)
        d = np.array([f"Gen.1.{j}" for j in rng.integers(1, 40, size=80)])
        keep = np.unique(np.char.add(np.char.add(q, " "), d), return_index=True)[1]
        runs.append(Run.ranked(q[keep], d[keep], rng.normal(size=len(keep)).round(3), tag=tag))
    qrels = Qrels([f"q{i}" for i in range(5)], [f"Gen.1.{i + 3}" for i in range(5)], [1] * 5)
    transforms = ["shift", "minmax", "shift"]
    sweep = tune_weights(runs, qrels, step=0.25, transform=transforms)
    ap = evaluator(qrels, "AP")
    for w, value in zip(sweep.weights, sweep.scores):
        assert value == ap(interpolate(runs, list(w), transform=transforms))
    kappas = tune_kappa(runs[0], runs[1], qrels, grid=kappa_grid(0.1), transform=transforms[:2])
    for k, value in zip(kappas.kappas, kappas.values):
        assert value == ap(interpolate(runs[:2], kappa=float(k), transform=transforms[:2]))


def test_tune_weights_with_two_runs_agrees_with_tune_kappa():
    a = Run(["q1"] * 3 + ["q2"] * 2, ["d1", "d2", "d3", "d4", "d5"], [3.0, 2.0, 1.0, 2.0, 1.0])
    b = Run(["q1"] * 3 + ["q2"] * 2, ["d3", "d2", "d1", "d5", "d4"], [3.0, 2.0, 1.0, 2.0, 1.0])
    qrels = Qrels(["q1", "q2"], ["d3", "d5"], [1, 2])
    weights, value = tune_weights([a, b], qrels, step=0.05)
    sweep = tune_kappa(a, b, qrels)
    assert weights[0] == pytest.approx(sweep.best_kappa) and value == pytest.approx(sweep.best_value)
    assert value == 1.0  # b ranks both relevant documents first


def test_evaluator_uses_trec_eval_average_precision():
    qrels = Qrels(["q", "q", "r"], ["good", "also", "x"], [1, 2, 1])
    run = run_of([("q", "bad", 3.0), ("q", "good", 2.0), ("q", "also", 1.0)])
    # q: AP = (1/2 + 2/3) / 2; r is missing from the run and counts 0
    assert evaluator(qrels, "AP")(run) == pytest.approx(((1 / 2 + 2 / 3) / 2 + 0) / 2)
    # tune_kappa takes qrels directly: with kappa 1 the run itself is evaluated
    sweep = tune_kappa(run, run_of([("q", "x", 1.0)]), qrels, measure="AP", grid=[1.0])
    assert sweep.best_value == pytest.approx(((1 / 2 + 2 / 3) / 2 + 0) / 2)


def test_evaluator_over_covered_queries_averages_only_the_judged_queries_the_runs_cover():
    qrels = Qrels(["q1", "q2", "q3", "q4"], ["Gen.1.1", "Gen.1.2", "Gen.1.3", "Gen.1.4"], [1, 1, 1, 1])
    dev1 = run_of([("q2", "John.1.1", 2.0), ("q2", "Gen.1.2", 1.0), ("q9", "Gen.1.1", 1.0)])
    dev2 = run_of([("q1", "Gen.1.1", 1.0)])
    # the union of the runs' queries (q2, q9, q1) restricted to the judged ones, in the qrels' order
    assert covered_queries([dev1, dev2], qrels) == ["q1", "q2"]
    fused = interpolate([dev1, dev2], kappa=0.5)
    ap_q1, ap_q2 = 1 / 1, 1 / 2
    assert evaluator(qrels, "AP", queries=["q1", "q2"])(fused) == pytest.approx((ap_q1 + ap_q2) / 2)
    assert evaluator(qrels, "AP")(fused) == pytest.approx((ap_q1 + ap_q2 + 0 + 0) / 4)  # every judged query
    with pytest.raises(ClirkitError, match="not judged"):
        evaluator(qrels, "AP", queries=["q1", "q9"])
    with pytest.raises(ClirkitError, match="no queries to average over"):
        evaluator(qrels, "AP", queries=[])


def _tied_runs(seed: int, n_runs: int = 3, queries: int = 6, per_query: int = 12):
    """Runs with few distinct scores (ties in float64 and in float32) over overlapping documents."""
    rng = np.random.default_rng(seed)
    runs = []
    for i in range(n_runs):
        q = np.repeat([f"q{j}" for j in range(queries)], per_query)
        d = np.array([f"Gen.{k % 5}.{k}" for k in rng.integers(0, 40, size=len(q))])
        keep = np.unique(np.char.add(np.char.add(q, " "), d), return_index=True)[1]
        scores = rng.integers(0, 4, size=len(keep)) * (1.0 + 1e-9 * rng.integers(0, 2, size=len(keep)))
        runs.append(Run.ranked(q[keep], d[keep], scores, tag=f"r{i}"))
    return runs


@pytest.mark.parametrize(
    "measure",
    ["AP", "nDCG@5", "P@3", "RR", "NumRet", "PRES@10", "Rprec", "R@5", "Success@2", "P_mr@1", "AP(rel=2)", "NumRelRet"],
)
@pytest.mark.parametrize("fuse_depth, eval_depth", [(7, 1000), (7, 4), (100, 5)])
def test_the_sweep_scores_each_point_as_evaluating_the_fused_run_does_bit_for_bit(
    measure, fuse_depth, eval_depth, monkeypatch
):
    # the sweep evaluates the aligned pairs' grades, looked up once; the old computation made and evaluated the
    # fused run of every point: ties at the depth cut and in float32, graded and negative judgments, a judged
    # query the runs miss and a run query the qrels do not judge
    runs = _tied_runs(5)
    rng = np.random.default_rng(6)
    judged = [f"q{j}" for j in range(5)] + ["q9"]
    qids, docids = np.repeat(judged, 15), np.array([f"Gen.{k % 5}.{k}" for k in rng.integers(0, 40, size=90)])
    rels = rng.integers(-1, 3, size=90)
    keep = np.sort(np.unique(np.char.add(np.char.add(qids, " "), docids), return_index=True)[1])  # (each pair once)
    qrels = Qrels(qids[keep], docids[keep], rels[keep])
    cutoff = parse_measure(measure).cutoff
    if cutoff is not None and cutoff > eval_depth:  # it would read ranks the evaluation does not keep
        with pytest.raises(ClirkitError, match=f"reads ranks beyond depth {eval_depth}"):
            evaluator(qrels, measure, depth=eval_depth)
        return
    objective = evaluator(qrels, measure, depth=eval_depth)
    with monkeypatch.context() as patched:  # no fused run is made
        patched.setattr("clirkit.tuning.weighted_sum", None)
        sweep = tune_weights(runs, objective, step=0.25, transform="none", depth=fuse_depth)
    aligned = align(runs, fuse_depth)
    normalized = sum_normalized(aligned, ["none"] * 3)
    old = [objective(weighted_sum(aligned, normalized, w, ["none"] * 3, depth=fuse_depth)) for w in sweep.weights]
    assert sweep.scores.tolist() == old
    assert measure == "NumRet" or len(set(old)) > 1  # (the number retrieved does not depend on the weights)


def test_a_dev_measure_whose_cutoff_is_beyond_the_depth_is_refused_before_any_sweep():
    # the sweep scores grid points without calling evaluate: R@2000 at depth 1000 would miss rank 1500
    runs = _tied_runs(5, n_runs=2)
    qrels = Qrels(np.array(["q0"]), np.array(["Gen.0.1"]), np.array([1]))
    for measure in ("R@2000", "recall_1001"):
        with pytest.raises(ClirkitError) as err:
            tune_weights(runs, qrels, measure=measure, step=0.5)
        assert str(err.value) == (
            f"the dev measure {measure} reads ranks beyond depth 1000, where the tuning cuts the dev runs: "
            "measure at most 1000 ranks (e.g. R@1000)"
        )
    assert evaluator(qrels, "R@2000", depth=2000).depth == 2000 and evaluator(qrels, "R@1000").depth == 1000
    from clirkit.fusion.system import Fusion

    with pytest.raises(ClirkitError, match=r"P@1001 reads ranks beyond 1000 \(e.g. P@1000\)$"):
        Fusion(measure="P@1001").fit_runs(runs, qrels)  # (refused by its check_runs, before the sweep)


def test_a_sweep_with_an_objective_of_its_own_evaluates_each_fused_run():
    runs = _tied_runs(7, n_runs=2)
    seen = []
    sweep = tune_weights(runs, lambda run: seen.append(len(run)) or float(len(seen)), step=0.5)
    assert sweep.scores.tolist() == [1.0, 2.0, 3.0] and len(seen) == 3
