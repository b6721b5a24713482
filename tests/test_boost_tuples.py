"""Training tuples sampled from graded qrels."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.boost.tuples import make_tuples
from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

DOCS = [f"d{i}" for i in range(20)]
QRELS = Qrels(["q1", "q1", "q1", "q2", "q2", "q3"], ["d1", "d2", "d3", "d4", "d5", "d0"], [2, 1, 0, 1, 2, 1])


def test_every_relevant_document_gets_m_negatives_never_judged_relevant():
    t = make_tuples(QRELS, ["q1", "q2"], DOCS, negatives=3, seed=0)
    assert len(t) == 4 * 3  # q1: d1, d2; q2: d4, d5 (q3 is not a training query)
    rel = {(0, 1), (0, 2), (1, 4), (1, 5)}
    assert all((int(q), int(n)) not in rel for q, n in zip(t.query, t.neg))
    assert sorted({(int(q), int(p)) for q, p in zip(t.query, t.pos)}) == sorted(rel)


def test_weight_is_grade_difference_with_judged_nonrelevant_as_zero():
    t = make_tuples(QRELS, ["q1", "q2"], DOCS, negatives=5, seed=1)
    grades = {(0, 1): 2, (0, 2): 1, (1, 4): 1, (1, 5): 2}
    np.testing.assert_array_equal(t.weight, [grades[(int(q), int(p))] for q, p in zip(t.query, t.pos)])


def test_same_seed_same_tuples_and_other_seed_other_tuples():
    a = make_tuples(QRELS, ["q1", "q2"], DOCS, negatives=4, seed=5)
    b = make_tuples(QRELS, ["q1", "q2"], DOCS, negatives=4, seed=5)
    c = make_tuples(QRELS, ["q1", "q2"], DOCS, negatives=4, seed=6)
    assert np.array_equal(a.neg, b.neg) and not np.array_equal(a.neg, c.neg)


def test_grade_pairs_put_grade_two_over_grade_one_with_weight_one():
    t = make_tuples(QRELS, ["q1", "q2"], DOCS, negatives=0, grade_pairs=2, seed=0)
    pairs = sorted(set(zip(t.query.tolist(), t.pos.tolist(), t.neg.tolist(), t.weight.tolist())))
    assert pairs == [(0, 1, 2, 1.0), (1, 5, 4, 1.0)]
    assert len(t) == 4


def test_hard_negatives_come_from_the_candidate_run_minus_relevant():
    cand = Run(["q1"] * 4 + ["q2"] * 2, ["d1", "d7", "d3", "d8", "d4", "d9"], [4, 3, 2, 1, 2, 1])
    t = make_tuples(QRELS, ["q1", "q2"], DOCS, negatives=10, candidates=cand, seed=0)
    assert set(t.neg[t.query == 0].tolist()) <= {7, 3, 8} and set(t.neg[t.query == 1].tolist()) == {9}
    # judged non-relevant d3 has grade 0: weight = rel(d+)
    assert set(t.weight[t.query == 0].tolist()) == {1.0, 2.0}


def test_one_weighting_and_max_positives():
    t = make_tuples(QRELS, ["q1", "q2"], DOCS, negatives=1, weighting="one", max_positives=1, seed=0)
    assert len(t) == 2 and t.weight.tolist() == [1.0, 1.0]


def test_no_relevant_pair_in_the_collection_is_a_user_error():
    with pytest.raises(ClirkitError, match="no relevant"):
        make_tuples(QRELS, ["q9"], DOCS, negatives=1)
    with pytest.raises(ClirkitError, match="weighting"):
        make_tuples(QRELS, ["q1"], DOCS, weighting="sum")
