import numpy as np
import pytest

from clirkit import pipeline
from clirkit.fusion import interpolate
from clirkit.run import Qrels, Run


def _run(rows, tag):
    q, d, s = zip(*rows)
    return Run(list(q), list(d), list(s), tag=tag)


def test_drop_excluded_removes_only_the_listed_pairs():
    run = _run([("q1", "Gen.1.1", 3.0), ("q1", "Gen.1.2", 2.0), ("q2", "Gen.1.1", 1.0)], "x")
    kept = pipeline.drop_excluded(run, {"q1": {"Gen.1.1"}})
    assert list(zip(kept.qids, kept.docids)) == [("q1", "Gen.1.2"), ("q2", "Gen.1.1")]
    assert pipeline.drop_excluded(run, {}) is run


def test_tuned_interpolation_picks_dev_weights_and_shifts_negative_runs():
    # dev: only the second (negative-scored) system finds the relevant document first
    dev_a = _run([("q1", "Gen.1.1", 2.0), ("q1", "Gen.1.2", 1.0)], "a")
    dev_b = _run([("q1", "Gen.1.2", -0.1), ("q1", "Gen.1.1", -0.9)], "b")
    test_a = _run([("q2", "John.1.1", 2.0), ("q2", "John.1.5", 1.0)], "a")
    test_b = _run([("q2", "John.1.5", -0.2), ("q2", "John.1.1", -0.5)], "b")
    fused, weights = pipeline.tuned_interpolation([dev_a, dev_b], [test_a, test_b],
                                                  Qrels(["q1"], ["Gen.1.2"], [1]), tag="a+b")
    assert weights[0] < 0.5 and sum(weights) == pytest.approx(1.0)
    expected = interpolate([test_a, test_b], weights, transform=["none", "shift"], tag="a+b")
    assert fused.docids.tolist() == expected.docids.tolist() and np.allclose(fused.scores, expected.scores)
    assert fused.tag == "a+b"


def test_steps_add_up_time_per_name():
    steps = pipeline.Steps()
    for _ in range(2):
        with steps.time("index"):
            pass
    assert list(steps.seconds) == ["index"] and steps.seconds["index"] >= 0
