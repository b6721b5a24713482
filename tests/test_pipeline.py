import numpy as np
import pytest

from clirkit import pipeline
from clirkit.fusion import interpolate
from clirkit.run import Qrels, Run


def _run(rows, tag):
    q, d, s = zip(*rows)
    return Run(list(q), list(d), list(s), tag=tag)


def _weak_and_strong():
    """12 queries with one relevant verse each: ``weak`` ranks it second, ``strong`` first."""
    qids = [f"q{i}" for i in range(12)]
    qrels = Qrels(qids, [f"Gen.{i}.1" for i in range(12)], [1] * 12)
    weak = _run([(q, d, s) for i, q in enumerate(qids) for d, s in ((f"John.{i}.1", 2.0), (f"Gen.{i}.1", 1.0))], "w")
    strong = _run([(q, f"Gen.{i}.1", 1.0) for i, q in enumerate(qids)], "s")
    return qrels, weak, strong


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
    fused, weights, dev_map = pipeline.tuned_interpolation([dev_a, dev_b], [test_a, test_b],
                                                           Qrels(["q1"], ["Gen.1.2"], [1]), tag="a+b")
    assert dev_map == 1.0  # Gen.1.2 first on dev
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


def test_score_table_is_the_eval_text_layout_with_a_star_on_the_run_better_on_every_query():
    from clirkit.metrics import evaluate

    qrels, weak, strong = _weak_and_strong()
    text = pipeline.score_table({"weak": weak, "strong": strong}, qrels, ("AP", "P@1"), qrels_label="toy")
    lines = text.split("\n")
    assert lines[0].split() == ["run", "queries", "AP", "P@1"]
    assert lines[1].split() == ["weak", "12", "0.5000", "0.0000"]        # AP 1/2, P@1 0 on every query
    assert lines[2].split() == ["strong", "12", "*1.0000", "*1.0000"]    # better on all 12: p = 1/10001
    assert lines[3] == "# qrels toy: mean over the 12 queries of the qrels; a query without run lines scores 0"
    assert lines[4].startswith("# * = p < 0.05 against weak (paired randomization test")
    assert evaluate(strong, qrels, ["AP"]).mean()["AP"] == 1.0 and not text.endswith("\n")
    flipped = pipeline.score_table({"weak": weak, "strong": strong}, qrels, ("AP",), baseline="strong")
    assert flipped.split("\n")[1].split() == ["weak", "12", "*0.5000"] and "against strong" in flipped


def test_score_table_gains_are_mean_differences_in_points_with_p_values():
    qrels, weak, strong = _weak_and_strong()
    text = pipeline.score_table({"weak": weak, "strong": strong}, qrels, ("AP", "P@1"), baseline="weak",
                                gains=("AP", "P@1"))
    p = 2 / 2 ** 12  # exact enumeration of the 12 signs: only all + and all - reach the observed mean
    assert text.split("\n\n")[1].split("\n") == ["gains over weak in points:",
                                                 f"strong vs weak: AP +50.00 (p {p:.4f}), P@1 +100.00 (p {p:.4f})"]


def test_psq_base_run_encodes_psq_batch_by_batch(index):
    from clirkit.analysis import Analyzer
    from clirkit.translation import TranslationTable

    table = TranslationTable.from_triples(["light", "god", "light"], ["luz", "dios", "buena"], [0.7, 1.0, 0.3])
    queries = {"q1": "light", "q2": "god", "q3": "god light"}
    analyzer = Analyzer("en")
    whole = pipeline.psq_run(index, table, queries, analyzer)
    base = pipeline.psq_base_run(index, table, queries, analyzer, batch=2)
    assert base.query_ids.tolist() == whole.query_ids and len(base) == len(whole)
    np.testing.assert_array_equal(base.doc_ids[base.dcode], whole.docids)
    np.testing.assert_array_equal(base.query_ids[base.qcode], whole.qids)
    top = np.repeat([whole.scores[whole.qids == q].max() for q in whole.query_ids],
                    [np.sum(whole.qids == q) for q in whole.query_ids])
    np.testing.assert_allclose(base.f0, whole.scores / top, rtol=1e-15)
