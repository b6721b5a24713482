"""The phrase-table model: scoring by hand, ranking, re-ranking, files, display, and the estimator."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit.analysis import Analyzer
from clirkit.boost import BoostModel, BoostRanker
from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

DOCIDS = ["Gen.1.1", "Gen.1.3", "John.1.1", "John.1.5"]
DOCS = [["en", "el", "principio", "crió", "dios", "los", "cielos"],
        ["dijo", "dios", "sea", "la", "luz"],
        ["en", "el", "principio", "era", "el", "verbo"],
        ["la", "luz", "en", "las", "tinieblas"]]


def small_model() -> BoostModel:
    src = ["god", "light", "beginning", "word"]
    tgt = ["dios", "luz", "principio", "verbo", "tinieblas"]
    W = sp.csr_matrix(np.array([[1.5, 0, 0, 0, 0],
                                [0, 2.0, 0, 0, -0.5],
                                [0, 0, 1.0, 0.25, 0],
                                [0, 0, 0, 3.0, 0]]))
    history = {"bag": np.array([0, 0]), "round": np.array([1, 2]), "bucket": np.array([7, 9]),
               "alpha": np.array([2.0, 1.5]), "ptr": np.array([0, 1, 3]),
               "pair_src": np.array([1, 0, 3]), "pair_tgt": np.array([1, 0, 3])}
    return BoostModel(src, tgt, W, ngram=1, source_analyzer=Analyzer("en"), target_analyzer=Analyzer("es"),
                      history=history, params={"rounds": 2})


def hand_score(query, doc):
    table = {("god", "dios"): 1.5, ("light", "luz"): 2.0, ("light", "tinieblas"): -0.5,
             ("beginning", "principio"): 1.0, ("beginning", "verbo"): 0.25, ("word", "verbo"): 3.0}
    return sum(w for (s, t), w in table.items() if s in query and t in doc)


def test_scores_are_sums_of_phrase_table_weights():
    model = small_model()
    queries = {"q1": ["light", "god"], "q2": ["beginning", "word", "word"], "q3": ["light", "darkness"]}
    run = model.rank(queries, DOCIDS, DOCS)
    for qid, toks in queries.items():
        docs, scores = run.for_query(qid)
        expected = {d: hand_score(set(toks), set(t)) for d, t in zip(DOCIDS, DOCS)
                    if any((s, x) for s in toks for x in t if hand_score({s}, {x}) != 0)}
        assert dict(zip(docs.tolist(), scores.tolist())) == pytest.approx(expected, rel=1e-12)
        assert list(scores) == sorted(scores, reverse=True)
    # q3: Gen.1.3 has luz (2.0), John.1.5 luz and tinieblas (2.0 - 0.5)
    assert run.for_query("q3")[0].tolist() == ["Gen.1.3", "John.1.5"]


def test_a_query_sharing_no_table_ngram_gets_no_result_and_ties_go_to_smaller_docid():
    model = small_model()
    run = model.rank({"q1": ["unknown"], "q2": ["god"]}, DOCIDS, DOCS)
    assert run.query_ids == ["q2"]
    assert run.for_query("q2")[0].tolist() == ["Gen.1.1", "Gen.1.3"]  # both 1.5


def test_rerank_rescores_every_candidate_row():
    model = small_model()
    cand = Run(["q1"] * 3, ["John.1.1", "John.1.5", "Gen.1.1"], [3.0, 2.0, 1.0])
    run = model.rerank(cand, {"q1": ["light"]}, DOCIDS, DOCS)
    assert run.docids.tolist() == ["John.1.5", "Gen.1.1", "John.1.1"]
    assert run.scores.tolist() == [1.5, 0.0, 0.0]


def test_save_load_round_trip(tmp_path):
    model = small_model()
    path = tmp_path / "m.npz"
    model.save(path)
    back = BoostModel.load(path)
    assert back.src_terms.tolist() == model.src_terms.tolist() and back.tgt_terms.tolist() == model.tgt_terms.tolist()
    assert (back.W != model.W).nnz == 0 and back.ngram == 1 and back.params == {"rounds": 2}
    assert back.source_analyzer == model.source_analyzer
    for k, v in model.history.items():
        np.testing.assert_array_equal(back.history[k], v)


def test_loading_a_corrupt_or_foreign_file_fails_clearly(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ClirkitError, match="bad.npz"):
        BoostModel.load(bad)
    other = tmp_path / "other.npz"
    from clirkit.npzio import save_npz
    save_npz(other, "index", 1, {}, {"x": np.zeros(2)})
    with pytest.raises(ClirkitError, match="not a clirkit boost-model"):
        BoostModel.load(other)


def test_rounds_table_prints_t_h_w_like_the_slides():
    rows = small_model().rounds_table(5)
    assert rows == [(0, 1, "light - luz", 2.0), (0, 2, "god - dios, word - verbo", 1.5)]
    assert small_model().top_entries(2) == [("word", "verbo", 3.0), ("light", "luz", 2.0)]


def test_ranker_learns_translations_from_a_tiny_collection():
    queries = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
    qrels = Qrels(["q1", "q1", "q2", "q2", "q3", "q4"],
                  ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"], [2, 1, 2, 2, 2, 1])
    r = BoostRanker(rounds=6, negatives=3, bits=20, quiet=True).fit_tokens(queries, qrels, DOCIDS, DOCS)
    top = {(s, t) for s, t, w in r.model_.top_entries(10) if w > 0}
    assert ("light", "luz") in top
    run = r.model_.rank({"x": ["light"]}, DOCIDS, DOCS)
    assert set(run.docids[:2].tolist()) == {"Gen.1.3", "John.1.5"}


def test_truncated_model_equals_training_fewer_rounds():
    queries = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
    qrels = Qrels(["q1", "q1", "q2", "q2", "q3", "q4"],
                  ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"], [2, 1, 2, 2, 2, 1])
    kw = dict(negatives=3, bits=20, quiet=True, bags=2, bag_fraction=0.8, backend="threading")
    long = BoostRanker(rounds=6, **kw).fit_tokens(queries, qrels, DOCIDS, DOCS).model_
    short = BoostRanker(rounds=3, **kw).fit_tokens(queries, qrels, DOCIDS, DOCS).model_
    cut = long.truncated(3)
    as_dict = lambda m: {(m.src_terms[i], m.tgt_terms[j]): v  # noqa: E731
                         for i, j, v in zip(*sp.find(m.W)) if v != 0}
    assert as_dict(cut) == pytest.approx(as_dict(short), rel=1e-12)
    assert cut.rounds_table(10, bag=1) == short.rounds_table(10, bag=1)


def test_dev_map_used_for_early_stopping_is_the_map_of_the_ranked_run():
    from clirkit.metrics import evaluate

    queries = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
    qrels = Qrels(["q1", "q1", "q2", "q2", "q3", "q4"],
                  ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"], [2, 1, 2, 2, 2, 1])
    r = BoostRanker(rounds=4, negatives=3, bits=20, eval_every=1, quiet=True)
    r.fit_tokens(queries, qrels, DOCIDS, DOCS, dev_queries=queries, dev_qrels=qrels)
    res = r.results_[0]
    best = res.eval_scores[list(res.eval_rounds).index(res.best_round)]
    run = r.model_.rank(queries, DOCIDS, DOCS)
    assert evaluate(run, qrels, ["AP"]).mean()["AP"] == pytest.approx(best, abs=1e-12)
    assert best == max(res.eval_scores)


def test_top_k_returns_nonzero_scores_in_order_with_ties_at_the_cut_to_smaller_keys():
    from clirkit.boost.scoring import top_k

    rng = np.random.default_rng(0)
    Qm = sp.csr_matrix((rng.random((5, 6)) < 0.5).astype(float))
    W = sp.csr_matrix(rng.integers(-2, 3, size=(6, 7)).astype(float))
    Dm = sp.csr_matrix((rng.random((40, 7)) < 0.4).astype(float))
    tie = rng.permutation(40)
    for depth in (1, 3, 10, 50):
        got = [np.concatenate(x) for x in zip(*top_k(Qm, W, Dm.T.tocsr(), tie, depth=depth, batch=2))]
        scores = (Qm @ W @ Dm.T).toarray()
        shares = scores != 0  # sparse products drop entries whose weights cancel exactly
        exp_q, exp_d, exp_s = [], [], []
        for q in range(5):
            docs = sorted(np.flatnonzero(shares[q]), key=lambda d: (-scores[q, d], tie[d]))[:depth]
            exp_q += [q] * len(docs)
            exp_d += docs
            exp_s += [scores[q, d] for d in docs]
        assert got[0].tolist() == exp_q and got[1].tolist() == exp_d
        np.testing.assert_allclose(got[2], exp_s, atol=1e-12)


@pytest.mark.parametrize("jobs", [1, 2])
def test_same_inputs_and_seed_give_a_byte_identical_model_file_whatever_the_workers(tmp_path, jobs):
    queries = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
    qrels = Qrels(["q1", "q1", "q2", "q2", "q3", "q4"],
                  ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"], [2, 1, 2, 2, 2, 1])
    kw = dict(rounds=5, negatives=3, bits=20, quiet=True, bags=2, bag_fraction=0.8, random_state=3)
    BoostRanker(jobs=1, **kw).fit_tokens(queries, qrels, DOCIDS, DOCS, dev_queries=queries,
                                          dev_qrels=qrels).model_.save(tmp_path / "a.npz")
    BoostRanker(jobs=jobs, **kw).fit_tokens(queries, qrels, DOCIDS, DOCS, dev_queries=queries,
                                             dev_qrels=qrels).model_.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_top_entries_lists_the_largest_or_the_most_negative_weights():
    m = small_model()
    assert m.top_entries(2) == [("word", "verbo", 3.0), ("light", "luz", 2.0)]
    assert m.top_entries(5, negative=True) == [("light", "tinieblas", -0.5)]


def test_a_saved_ranker_loads_back_and_searches_as_before(tmp_path):
    from clirkit.boost import BoostRanker

    queries = {"q1": ["light"], "q2": ["god", "waters"]}
    qrels = Qrels(["q1", "q2"], [DOCIDS[0], DOCIDS[1]], [1, 1])
    ranker = BoostRanker(rounds=4, bits=20, quiet=True).fit_tokens(queries, qrels, DOCIDS, DOCS)
    ranker.save(tmp_path / "m.npz")
    loaded = BoostRanker.load(tmp_path / "m.npz", quiet=True)
    assert loaded.model_.params == ranker.model_.params and len(loaded.model_) == len(ranker.model_)
