"""Document-side weights of the bilinear scorer: hand values, boosting with real-valued features, model files."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit.boost import Boosting, BoostRanker, PairFeatures, TupleSampling
from clirkit.boost.features import NgramVocabulary, hash_strings
from clirkit.boost.model import BoostModel
from clirkit.boost.rounds import PairBooster
from clirkit.boost.tuples import Tuples
from clirkit.boost.weighting import idf_weights, weigh_documents
from clirkit.errors import ClirkitError

DOC_TOKENS = [["luz", "dios"], ["tinieblas"], ["luz"], ["aguas", "dios", "cielos", "tierra"]]


def binary_docs():
    vocab = NgramVocabulary()
    return vocab, vocab.matrix(DOC_TOKENS, 1, grow=True)


def test_idf_is_log_n_over_df_divided_by_log_n():
    vocab, D = binary_docs()
    idf = dict(zip(vocab.terms, idf_weights(D)))
    assert idf["luz"] == pytest.approx(math.log(4 / 2) / math.log(4), rel=1e-12)
    assert idf["tinieblas"] == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("scheme", ["binary", "idf", "length", "idf-length"])
def test_each_scheme_gives_the_hand_weight(scheme):
    vocab, D = binary_docs()
    idf = idf_weights(D)
    W = weigh_documents(D, DOC_TOKENS, scheme, idf).toarray()
    col = {t: j for j, t in enumerate(vocab.terms)}
    expected_idf = math.log(2) / math.log(4) if "idf" in scheme else 1.0  # "dios" is in 2 of 4 documents
    expected_len = 1 / math.sqrt(4) if "length" in scheme else 1.0  # the fourth document has 4 tokens
    assert W[3, col["dios"]] == pytest.approx(expected_idf * expected_len, rel=1e-12)
    assert W[1, col["dios"]] == 0.0


def test_unknown_scheme_is_refused():
    with pytest.raises(ClirkitError, match="The .doc_weighting. parameter of BoostRanker must be"):
        BoostRanker(features=PairFeatures(doc_weighting="tfidf")).fit_tokens({"q": ["light"]}, None, ["d"], [["luz"]])


def weighted_booster():
    """q0 = {a}; d0 = {x: 0.5}, d1 = {x: 1}, d2 = {y: 0.6}; tuples (q0, d1, d0) and (q0, d0, d2), D = 1."""
    qv = NgramVocabulary()
    Q = qv.matrix([["a"]], 1, grow=True)
    dv = NgramVocabulary(["x", "y"])
    D = sp.csr_matrix(np.array([[0.5, 0.0], [1.0, 0.0], [0.0, 0.6]]))
    t = Tuples.from_arrays([0, 0], [1, 0], [0, 2], [1, 1])
    return (
        qv,
        dv,
        PairBooster(
            Q, D, t, src_hash=hash_strings(qv.terms, 0), tgt_hash=hash_strings(dv.terms, 0), bits=24, rule="exact"
        ),
    )


def test_real_valued_features_weigh_w_plus_and_w_minus_by_x():
    qv, dv, b = weighted_booster()
    # (a, x): x = 1 - 0.5 in tuple 0 and 0.5 - 0 in tuple 1 -> W+ = 0.5 * 0.5 + 0.5 * 0.5 = 0.5, W- = 0
    # (a, y): x = 0 in tuple 0 and 0 - 0.6 in tuple 1 -> W+ = 0, W- = 0.5 * 0.6 = 0.3; gain 0.3 < 0.5
    k, alpha, gain = b.choose()
    i, j = b.pairs_of(k)
    assert (qv.terms[i[0]], dv.terms[j[0]]) == ("a", "x")
    eps = 1 / 2
    assert gain == pytest.approx(0.5, rel=1e-12)
    assert alpha == pytest.approx(0.5 * math.log((0.5 + eps) / eps), rel=1e-12)
    rows, x = b.tuples_with(k)
    assert rows.tolist() == [0, 1] and x.tolist() == [0.5, 0.5]
    b.update(rows, x, alpha)
    full_p, full_m = b.full_statistics()
    np.testing.assert_allclose(b.Wp, full_p, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(b.Wm, full_m, rtol=1e-12, atol=1e-15)
    assert b.training_loss() == pytest.approx(math.exp(-alpha * 0.5), rel=1e-12)


def test_binary_weighting_is_the_plain_model_bit_for_bit():
    queries = {"q1": ["light", "created"], "q2": ["waters", "divided"]}
    docs = [["luz", "dios"], ["aguas", "cielos"], ["tinieblas"], ["luz", "buena"]]
    from clirkit.run import Qrels

    qrels = Qrels(["q1", "q2"], ["d0", "d1"], [2, 2])
    docids = ["d0", "d1", "d2", "d3"]
    a = BoostRanker(
        features=PairFeatures(bits=20), sampling=TupleSampling(negatives=2), boosting=Boosting(rounds=5), quiet=True
    ).fit_tokens(queries, qrels, docids, docs)
    b = BoostRanker(
        features=PairFeatures(bits=20, doc_weighting="binary"),
        sampling=TupleSampling(negatives=2),
        boosting=Boosting(rounds=5),
        quiet=True,
    ).fit_tokens(queries, qrels, docids, docs)
    assert np.array_equal(a.model_.W.data, b.model_.W.data)


def test_idf_length_model_round_trips_and_scores_with_the_stored_idf(tmp_path):
    queries = {"q1": ["light", "created"], "q2": ["waters", "divided"], "q3": ["light", "good"]}
    docs = [["luz", "dios"], ["aguas", "cielos", "dios"], ["tinieblas"], ["luz", "buena"]]
    from clirkit.run import Qrels

    qrels = Qrels(["q1", "q2", "q3"], ["d0", "d1", "d3"], [2, 2, 2])
    docids = ["d0", "d1", "d2", "d3"]
    r = BoostRanker(
        features=PairFeatures(bits=20, doc_weighting="idf-length"),
        sampling=TupleSampling(negatives=2),
        boosting=Boosting(rounds=4),
        quiet=True,
    )
    model = r.fit_tokens(queries, qrels, docids, docs).model_
    model.save(tmp_path / "m.npz")
    again = BoostModel.load(tmp_path / "m.npz")
    assert again.doc_weighting == "idf-length"
    np.testing.assert_array_equal(again.tgt_idf, model.tgt_idf)
    # the stored idf scores a one-document set, where df-based idf would be undefined
    enc = again.encode_documents([["luz", "luz", "aguas", "x"]]).toarray()[0]
    col = {t: j for j, t in enumerate(again.tgt_terms)}
    if "luz" in col:
        assert enc[col["luz"]] == pytest.approx(again.tgt_idf[col["luz"]] / 2, rel=1e-12)
    run_a = model.rank(queries, docids, docs)
    run_b = again.rank(queries, docids, docs)
    np.testing.assert_array_equal(run_a.scores, run_b.scores)
