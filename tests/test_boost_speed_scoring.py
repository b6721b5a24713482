"""The dev MAP of re-ranked candidates from one sort of integer keys (clirkit.boost.scoring._CandidateAP): the
number clirkit.metrics.evaluate gives for the run of those candidates, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.boost.scoring import _CandidateAP, docid_tie_key
from clirkit.metrics import evaluate
from clirkit.run import Qrels, Run

DOCIDS = np.array([f"Gen.1.{i}" for i in range(1, 31)] + [f"John.1.{i}" for i in range(1, 11)])


def candidates(seed):
    """Rows of 6 queries (one with no judgment, one judged but not listed, one with more judged documents than
    listed), grouped by query, and graded qrels."""
    rng = np.random.default_rng(seed)
    qids = np.array([f"q{i}" for i in range(6)])
    qrow, drow = [], []
    for q in range(5):
        docs = np.sort(rng.choice(len(DOCIDS), int(rng.integers(5, 25)), replace=False))
        qrow += [q] * len(docs)
        drow += docs.tolist()
    qrow, drow = np.array(qrow), np.array(drow)
    judged = [(q, d, int(rng.integers(0, 3))) for q, d in zip(qrow, drow) if q != 3 and rng.random() < 0.4]
    judged += [(5, 0, 2), (1, int(rng.integers(0, 40)), 1), (4, 39, 0)]
    judged = list({(q, d): g for q, d, g in judged}.items())
    qrels = Qrels([qids[q] for (q, _), _ in judged], [DOCIDS[d] for (_, d), _ in judged], [g for _, g in judged])
    return qrow, drow, qids, qrels


def reference(qrow, drow, qids, qrels, scores):
    """clirkit.metrics.evaluate's AP of the run of the candidates ranked by the scores (ties: docid)."""
    tie = docid_tie_key(DOCIDS)[drow]
    order = np.lexsort((tie, -scores, qrow))
    run = Run(qids[qrow[order]], DOCIDS[drow[order]], scores[order])
    return float(evaluate(run, qrels, ["AP"], depth=1000).mean()["AP"])


@pytest.mark.parametrize("seed", range(6))
def test_candidate_ap_is_evaluates_ap_bit_for_bit_ties_and_signed_zeros_included(seed):
    qrow, drow, qids, qrels = candidates(seed)
    ap = _CandidateAP.of(qrow, drow, qids, DOCIDS, docid_tie_key(DOCIDS)[drow], qrels)
    rng = np.random.default_rng(100 + seed)
    n = len(qrow)
    for scores in (
        rng.standard_normal(n),
        np.round(rng.standard_normal(n), 1),  # float64 ties: broken by docid, descending
        1 + rng.standard_normal(n) * 1e-9,  # apart in float64, tied in float32 (trec_eval)
        np.where(rng.random(n) < 0.5, -0.0, 0.0),  # -0.0 ties 0.0
        rng.standard_normal(n) * 1e39,  # beyond float32: +-inf, tied
        np.zeros(n),
    ):
        assert ap(scores) == reference(qrow, drow, qids, qrels, scores)


def test_candidate_ap_is_not_made_for_a_query_listing_a_document_twice():
    qrow, drow, qids, qrels = candidates(0)
    qrow, drow = np.append(qrow, qrow[-1]), np.append(drow, drow[-1])
    assert _CandidateAP.of(qrow, drow, qids, DOCIDS, docid_tie_key(DOCIDS)[drow], qrels) is None
