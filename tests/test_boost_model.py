"""The phrase-table model: scoring by hand, ranking, re-ranking, files, display, and the estimator."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit.analysis import Analyzer
from clirkit.boost import Bagging, Boosting, BoostModel, BoostRanker, PairFeatures, TupleSampling
from clirkit.errors import ClirkitError
from clirkit.packedrun import PackedRun
from clirkit.run import Qrels, Run

DOCIDS = ["Gen.1.1", "Gen.1.3", "John.1.1", "John.1.5"]
DOCS = [
    ["en", "el", "principio", "crió", "dios", "los", "cielos"],
    ["dijo", "dios", "sea", "la", "luz"],
    ["en", "el", "principio", "era", "el", "verbo"],
    ["la", "luz", "en", "las", "tinieblas"],
]


# the rounds that sum to small_model's W (a saved model's W is checked against them): light - luz 2.0, then god -
# dios and word - verbo 1.5, word - verbo 1.5 again, ...; pairs by position in small_model's src and tgt lists
HISTORY = {
    "bag": np.zeros(6, dtype=np.int64),
    "round": np.arange(1, 7),
    "bucket": np.array([7, 9, 9, 3, 4, 5]),
    "alpha": np.array([2.0, 1.5, 1.5, 1.0, 0.25, -0.5]),
    "ptr": np.array([0, 1, 3, 4, 5, 6, 7]),
    "pair_src": np.array([1, 0, 3, 3, 2, 2, 1]),
    "pair_tgt": np.array([1, 0, 3, 3, 2, 3, 4]),
}


def small_model() -> BoostModel:
    src = ["god", "light", "beginning", "word"]
    tgt = ["dios", "luz", "principio", "verbo", "tinieblas"]
    W = sp.csr_matrix(np.array([[1.5, 0, 0, 0, 0], [0, 2.0, 0, 0, -0.5], [0, 0, 1.0, 0.25, 0], [0, 0, 0, 3.0, 0]]))
    return BoostModel(
        src,
        tgt,
        W,
        ngram=1,
        source_analyzer=Analyzer("en"),
        target_analyzer=Analyzer("es"),
        history=HISTORY,
        params={"rounds": 2},
    )


def hand_score(query, doc):
    table = {
        ("god", "dios"): 1.5,
        ("light", "luz"): 2.0,
        ("light", "tinieblas"): -0.5,
        ("beginning", "principio"): 1.0,
        ("beginning", "verbo"): 0.25,
        ("word", "verbo"): 3.0,
    }
    return sum(w for (s, t), w in table.items() if s in query and t in doc)


def test_scores_are_sums_of_phrase_table_weights():
    model = small_model()
    queries = {"q1": ["light", "god"], "q2": ["beginning", "word", "word"], "q3": ["light", "darkness"]}
    run = model.rank(queries, DOCIDS, DOCS)
    for qid, toks in queries.items():
        docs, scores = run.for_query(qid)
        expected = {
            d: hand_score(set(toks), set(t))
            for d, t in zip(DOCIDS, DOCS)
            if any((s, x) for s in toks for x in t if hand_score({s}, {x}) != 0)
        }
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


@pytest.mark.parametrize("seed", range(4))
def test_rerank_orders_as_run_ranked_does_on_random_runs_with_ties(seed):
    """The re-ranked run is Run.ranked of the candidates' rows with the model's scores (the oracle: clirkit's
    order by query, score descending, docid ascending), each query's rows kept in the candidates' query order."""
    rng = np.random.default_rng(seed)
    model = small_model()
    queries = {f"q{i}": rng.choice(["light", "god", "word", "unknown"], size=2).tolist() for i in range(6)}
    order = rng.permutation(list(queries)).tolist()
    rows = [
        (q, d) for q in order for d in rng.choice(DOCIDS, size=rng.integers(1, len(DOCIDS) + 1), replace=False).tolist()
    ]
    cand = Run.ranked([q for q, _ in rows], [d for _, d in rows], rng.integers(0, 3, len(rows)).astype(float))
    run = model.rerank(cand, queries, DOCIDS, DOCS)
    rescored = model.rerank(cand, queries, DOCIDS, DOCS, batch_rows=3)
    assert run.qids.tolist() == rescored.qids.tolist() and run.docids.tolist() == rescored.docids.tolist()
    packed = model.rerank(PackedRun(cand), queries, DOCIDS, DOCS)  # the runner's kept runs: the same run
    for name in ("qids", "docids", "scores"):
        assert np.array_equal(getattr(packed, name), getattr(run, name)), name
    expected = Run.ranked(run.qids[::-1], run.docids[::-1], run.scores[::-1], query_order=cand.query_ids)
    assert run.query_ids == cand.query_ids and sorted(zip(run.qids, run.docids)) == sorted(rows)
    assert run.qids.tolist() == expected.qids.tolist() and run.docids.tolist() == expected.docids.tolist()
    assert run.scores.tobytes() == expected.scores.tobytes()


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
    rows = small_model().rounds_table(3)
    assert rows == [(0, 1, "light - luz", 2.0), (0, 2, "god - dios, word - verbo", 1.5), (0, 3, "word - verbo", 1.5)]
    assert small_model().top_entries(2) == [("word", "verbo", 3.0), ("light", "luz", 2.0)]


def test_ranker_learns_translations_from_a_tiny_collection():
    queries = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
    qrels = Qrels(
        ["q1", "q1", "q2", "q2", "q3", "q4"],
        ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"],
        [2, 1, 2, 2, 2, 1],
    )
    r = BoostRanker(
        features=PairFeatures(bits=20), sampling=TupleSampling(negatives=3), boosting=Boosting(rounds=6), quiet=True
    ).fit_tokens(queries, qrels, DOCIDS, DOCS)
    top = {(s, t) for s, t, w in r.model_.top_entries(10) if w > 0}
    assert ("light", "luz") in top
    run = r.model_.rank({"x": ["light"]}, DOCIDS, DOCS)
    assert set(run.docids[:2].tolist()) == {"Gen.1.3", "John.1.5"}


def test_truncated_model_equals_training_fewer_rounds():
    queries = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
    qrels = Qrels(
        ["q1", "q1", "q2", "q2", "q3", "q4"],
        ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"],
        [2, 1, 2, 2, 2, 1],
    )
    kw = dict(negatives=3, bits=20, quiet=True, bags=2, bag_fraction=0.8, backend="threading")
    long = BoostRanker.from_flat(rounds=6, **kw).fit_tokens(queries, qrels, DOCIDS, DOCS).model_
    short = BoostRanker.from_flat(rounds=3, **kw).fit_tokens(queries, qrels, DOCIDS, DOCS).model_
    cut = long.truncated(3)
    as_dict = lambda m: {
        (m.src_terms[i], m.tgt_terms[j]): v  # noqa: E731
        for i, j, v in zip(*sp.find(m.W))
        if v != 0
    }
    assert as_dict(cut) == pytest.approx(as_dict(short), rel=1e-12)
    assert cut.rounds_table(10, bag=1) == short.rounds_table(10, bag=1)


def test_dev_map_used_for_early_stopping_is_the_map_of_the_ranked_run():
    from clirkit.metrics import evaluate

    queries = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
    qrels = Qrels(
        ["q1", "q1", "q2", "q2", "q3", "q4"],
        ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"],
        [2, 1, 2, 2, 2, 1],
    )
    r = BoostRanker(
        features=PairFeatures(bits=20),
        sampling=TupleSampling(negatives=3),
        boosting=Boosting(rounds=4, eval_every=1),
        quiet=True,
    )
    r.fit_tokens(queries, qrels, DOCIDS, DOCS, dev_queries=queries, dev_qrels=qrels)
    res = r.results_[0]
    best = res.eval_scores[list(res.eval_rounds).index(res.best_round)]
    run = r.model_.rank(queries, DOCIDS, DOCS)
    assert evaluate(run, qrels, ["AP"]).mean()["AP"] == pytest.approx(best, abs=1e-12)
    assert best == max(res.eval_scores)


@pytest.mark.parametrize("sizes", [[5, 1, 7, 3], [1, 1, 1], [60, 1, 1, 1, 1]])  # the last: mostly padding, lexsort
def test_rerank_order_of_the_dev_rows_is_the_lexsort_of_query_score_and_tie_key(sizes):
    from clirkit.boost.scoring import _QuerySlots

    rng = np.random.default_rng(len(sizes))
    qrow = np.repeat(np.arange(len(sizes)), sizes)
    tie = rng.permutation(len(qrow))
    slots = _QuerySlots(qrow, tie)
    assert slots.table == (sizes[0] != 60)
    for _ in range(5):
        scores = rng.integers(-2, 3, len(qrow)) / 4  # many equal scores, -0.0 among them
        scores[rng.random(len(qrow)) < 0.2] *= -1
        np.testing.assert_array_equal(slots.order(scores), np.lexsort((tie, -scores, qrow)))


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
    qrels = Qrels(
        ["q1", "q1", "q2", "q2", "q3", "q4"],
        ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"],
        [2, 1, 2, 2, 2, 1],
    )
    kw = dict(rounds=5, negatives=3, bits=20, quiet=True, bags=2, bag_fraction=0.8, random_state=3)
    BoostRanker.from_flat(jobs=1, **kw).fit_tokens(
        queries, qrels, DOCIDS, DOCS, dev_queries=queries, dev_qrels=qrels
    ).model_.save(tmp_path / "a.npz")
    BoostRanker.from_flat(jobs=jobs, **kw).fit_tokens(
        queries, qrels, DOCIDS, DOCS, dev_queries=queries, dev_qrels=qrels
    ).model_.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_top_entries_lists_the_largest_or_the_most_negative_weights():
    m = small_model()
    assert m.top_entries(2) == [("word", "verbo", 3.0), ("light", "luz", 2.0)]
    assert m.top_entries(5, negative=True) == [("light", "tinieblas", -0.5)]


def test_a_saved_ranker_loads_back_and_searches_as_before(tmp_path):
    from clirkit.boost import BoostRanker

    queries = {"q1": ["light"], "q2": ["god", "waters"]}
    qrels = Qrels(["q1", "q2"], [DOCIDS[0], DOCIDS[1]], [1, 1])
    ranker = BoostRanker(features=PairFeatures(bits=20), boosting=Boosting(rounds=4), quiet=True).fit_tokens(
        queries, qrels, DOCIDS, DOCS
    )
    ranker.save(tmp_path / "m.npz")
    loaded = BoostRanker.load(tmp_path / "m.npz", quiet=True)
    assert loaded.model_.params == ranker.model_.params and len(loaded.model_) == len(ranker.model_)


# tampered files: every header value and array is checked before use ---------------------------------


def test_the_params_read_after_loading_may_be_absent_and_the_settings_recorded_are_read_by_nothing(tamper, tmp_path):
    from clirkit.boost import BoostRanker

    based_model().save(tmp_path / "m.npz")
    recorded = {"params.bits": "12", "params.rounds": -1, "params.beta": "x"}
    bad = tamper(tmp_path / "m.npz", tmp_path / "bad.npz", {"params": {}, **recorded})
    ranker = BoostRanker.load(bad)
    assert ranker.notes("B") == ["B: 6 phrase-table entries"] and ranker.curves("B") == {}
    assert ranked(ranker.model_) == ranked(based_model())


def based_model() -> BoostModel:
    """small_model boosted from a base ranker, idf-weighted on the document side (format version 2)."""
    m = small_model()
    return BoostModel(
        m.src_terms,
        m.tgt_terms,
        m.W,
        ngram=2,
        source_analyzer=m.source_analyzer,
        target_analyzer=m.target_analyzer,
        history=m.history,
        params={
            "rounds": 2,
            "bag_rounds": [6],
            "dev_curves": [{"rounds": [1, 2], "map": [0.5, 0.75]}],
            "beta_dev_map": {"2": 0.75, "5": 0.5},
        },
        beta=2.0,
        base={"tag": "PSQ", "normalization": "max"},
        doc_weighting="idf",
        tgt_idf=np.array([0.25, 0.5, 0.75, 1.0, 0.0]),
    )


QUERIES = {"q1": ["light", "god"], "q2": ["beginning", "word", "word"], "q3": ["light", "darkness"]}
CANDIDATES = Run(
    ["q1"] * 4 + ["q2"] * 2,
    ["Gen.1.1", "Gen.1.3", "John.1.1", "John.1.5", "John.1.1", "Gen.1.1"],
    [4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
)


def ranked(model: BoostModel) -> list:
    run = model.rerank(CANDIDATES, QUERIES, DOCIDS, DOCS) if model.from_base else model.rank(QUERIES, DOCIDS, DOCS)
    return list(zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()))


def _set(arr, i, value, dtype=None):
    out = arr.astype(dtype or arr.dtype)
    out[i] = value
    return out


# (version-2 model?, header changes, array changes as functions of the saved arrays, the problem named)
BOOST_TAMPERING = {
    "ngram negative": (False, {"ngram": -5}, {}, "header ngram must be 1, 2 or 3, got -5"),
    "ngram a string": (False, {"ngram": "2"}, {}, 'header ngram must be 1, 2 or 3, got "2"'),
    "ngram missing": (False, {"ngram": None}, {}, "header ngram must be 1, 2 or 3, got null"),
    "params not an object": (False, {"params": "x"}, {}, 'header params must be an object, got "x"'),
    "params dev curves of strings": (
        True,
        {"params.dev_curves": [{"rounds": ["1"], "map": [0.5]}]},
        {},
        'header params.dev_curves[0].rounds must be a list of integers >= 0, got ["1"]',
    ),
    "params beta MAP a string": (
        True,
        {"params.beta_dev_map": {"2": "x"}},
        {},
        'header params.beta_dev_map.2 must be a finite number, got "x"',
    ),
    "params beta MAP keyed by no beta": (
        True,
        {"params.beta_dev_map": {"x": 0.5}},
        {},
        'header params.beta_dev_map has the key "x", which is not a beta >= 0 written with %g',
    ),
    "params of no bag": (
        True,
        {"params.bag_rounds": []},
        {},
        "header params.bag_rounds lists no bag; a model has one or more",
    ),
    "shape of one number": (False, {"shape": [4]}, {}, "header shape must be a list of 2 integers >= 0, got [4]"),
    "shape off the terms": (
        False,
        {"shape": [4, 6]},
        {},
        "header shape [4, 6] does not match the 4 source and 5 target terms",
    ),
    "analyzer null": (False, {"source_analyzer": None}, {}, "header source_analyzer: expected an object"),
    "analyzer incomplete": (
        False,
        {"target_analyzer": {"lang": "es"}},
        {},
        "header target_analyzer: missing lowercase, strip_punctuation",
    ),
    "beta NaN": (True, {"beta": float("nan")}, {}, "header beta must be a finite number >= 0, got NaN"),
    "beta a string": (True, {"beta": "x"}, {}, 'header beta must be a finite number >= 0, got "x"'),
    "beta negative": (True, {"beta": -1}, {}, "header beta must be a finite number >= 0, got -1"),
    "doc weighting unknown": (
        True,
        {"doc_weighting": "tf"},
        {},
        'header doc_weighting must be "binary", "idf", "length" or "idf-length", got "tf"',
    ),
    "base a list": (True, {"base": [1]}, {}, "header base must be an object or null, got [1]"),
    "idf missing": (True, {}, {"tgt_idf": lambda a: None}, "tgt_idf is missing"),
    "idf above 1": (
        True,
        {},
        {"tgt_idf": lambda a: _set(a["tgt_idf"], 1, 2.0)},
        "tgt_idf has 2.0 at 1, above the maximum 1",
    ),
    "idf NaN": (True, {}, {"tgt_idf": lambda a: _set(a["tgt_idf"], 4, np.nan)}, "tgt_idf has NaN at 4"),
    "idf one short": (True, {}, {"tgt_idf": lambda a: a["tgt_idf"][:-1]}, "tgt_idf must have shape (5,), got (4,)"),
    "a repeated source term": (
        False,
        {},
        {"src_terms": lambda a: _set(a["src_terms"], 2, "god")},
        "src_terms holds 'god' more than once",
    ),
    "integer target terms": (
        False,
        {},
        {"tgt_terms": lambda a: np.arange(5)},
        "tgt_terms must hold strings, got int64",
    ),
    "a NaN weight": (False, {}, {"W_data": lambda a: _set(a["W_data"], 2, np.nan)}, "W_data has NaN at 2"),
    "an infinite weight": (
        True,
        {},
        {"W_data": lambda a: _set(a["W_data"], 0, -np.inf)},
        "W_data has an infinite value at 0",
    ),
    "string weights": (False, {}, {"W_data": lambda a: a["W_data"].astype(str)}, "W_data must hold floats, got <U32"),
    "negative row pointers": (
        False,
        {},
        {"W_indptr": lambda a: -a["W_indptr"]},
        "W_indptr has -2 at 1, below the minimum 0",
    ),
    "NaN row pointers": (
        False,
        {},
        {"W_indptr": lambda a: _set(a["W_indptr"], 2, np.nan, np.float64)},
        "W_indptr must hold integers, got float64",
    ),
    "a target out of range": (
        False,
        {},
        {"W_indices": lambda a: _set(a["W_indices"], 1, 5)},
        "W_indices has 5 at 1, above the maximum 4",
    ),
    "a row's targets unsorted": (
        False,
        {},
        {"W_indices": lambda a: _set(a["W_indices"], 1, 2)},
        "W_indices of row 0 are not strictly increasing (at 1)",
    ),
    "history offsets reversed": (
        False,
        {},
        {"history_ptr": lambda a: a["history_ptr"][::-1].copy()},
        "history_ptr is not in increasing order at 1 (7 then 6)",
    ),
    "history offsets short of the pairs": (
        False,
        {},
        {"history_ptr": lambda a: _set(a["history_ptr"], 6, 6)},
        "history_ptr must run from 0 to the 7 pairs, got 0..6",
    ),
    "history rounds skipping": (
        False,
        {},
        {"history_round": lambda a: _set(a["history_round"], 1, 3)},
        "history_round has 3 at 1, expected round 2 of bag 0",
    ),
    "history bags out of order": (
        False,
        {},
        {"history_bag": lambda a: np.array([0, 0, 0, 1, 0, 0])},
        "history_bag is not in increasing order at 4 (1 then 0)",
    ),
    "history one round more": (
        False,
        {},
        {"history_round": lambda a: np.arange(1, 8)},
        "history_bag must have shape (7,), got (6,)",
    ),
    "history step infinite": (
        False,
        {},
        {"history_alpha": lambda a: _set(a["history_alpha"], 0, np.inf)},
        "history_alpha has an infinite value at 0",
    ),
    "history steps strings": (
        False,
        {},
        {"history_alpha": lambda a: a["history_alpha"].astype(str)},
        "history_alpha must hold floats, got <U32",
    ),
    "history pair out of range": (
        False,
        {},
        {"history_pair_src": lambda a: _set(a["history_pair_src"], 2, 9)},
        "history_pair_src has 9 at 2, above the maximum 3",
    ),
    "history pair negative": (
        True,
        {},
        {"history_pair_tgt": lambda a: _set(a["history_pair_tgt"], 0, -1)},
        "history_pair_tgt has -1 at 0, below the minimum 0",
    ),
}


@pytest.mark.parametrize("case", list(BOOST_TAMPERING))
def test_a_tampered_model_is_a_one_line_error_naming_the_file_and_the_problem(tamper, tmp_path, case):
    import re

    version2, header, changes, problem = BOOST_TAMPERING[case]
    good = tmp_path / "m.npz"
    (based_model() if version2 else small_model()).save(good)
    with np.load(good, allow_pickle=False) as npz:
        arrays = {name: change(npz) for name, change in changes.items()}
    bad = tamper(good, tmp_path / "bad.npz", header, **arrays)
    with pytest.raises(ClirkitError) as info:
        BoostModel.load(bad)
    assert re.fullmatch(re.escape(f"{bad}: corrupt boost model: {problem}") + ".*", str(info.value))
    assert "\n" not in str(info.value)


# what the writer guarantees about each array, broken: besides its shape and type, its order or its range
# (the term arrays are sorted, so two terms swapped is an error; a weight is the sum of its pair's steps in the
# history: tests below)
BROKEN = {
    "src_terms": ["first repeated", "reverse"],
    "tgt_terms": ["first repeated", "reverse"],
    "W_data": ["first to NaN"],
    "W_indices": ["first to -1"],
    "W_indptr": ["reverse", "first to -1"],
    "history_bag": ["first to -1"],
    "history_round": ["reverse", "first to -1"],
    "history_ptr": ["reverse", "first to -1"],
    "history_pair_src": ["first to -1"],
    "tgt_idf": ["first to NaN", "first to -1"],
}


@pytest.mark.parametrize("version2", [False, True])
@pytest.mark.parametrize(
    "name, mutation",
    [(name, m) for name, broken in BROKEN.items() for m in broken + ["drop last", "as str", "empty", "2-d"]],
)
def test_a_mutated_model_array_loads_as_the_same_model_or_is_an_error_never_a_different_ranking(
    tamper, tmp_path, version2, name, mutation
):
    good = tmp_path / "m.npz"
    (based_model() if version2 else small_model()).save(good)
    with np.load(good, allow_pickle=False) as npz:
        if name not in npz.files:  # tgt_idf in a version-1 model
            return
        arr = npz[name]
    changed = {
        "reverse": lambda: arr[::-1].copy(),
        "first repeated": lambda: _set(arr, 1, arr[0]),
        "drop last": lambda: arr[:-1],
        "as str": lambda: arr.astype(str),
        "empty": lambda: arr[:0],
        "2-d": lambda: arr.reshape(1, -1),
        "first to NaN": lambda: _set(arr, 0, np.nan, np.float64),
        "first to -1": lambda: _set(arr, 0, -1),
    }
    bad = tamper(good, tmp_path / "bad.npz", **{name: changed[mutation]()})
    expected = ranked(BoostModel.load(good))
    try:
        loaded = BoostModel.load(bad)
    except ClirkitError as exc:
        assert str(exc).startswith(f"{bad}: corrupt boost model: ") and "\n" not in str(exc)
    else:
        assert ranked(loaded) == expected


def test_a_phrase_table_that_disagrees_with_its_history_is_refused(tamper, tmp_path):
    good = tmp_path / "m.npz"
    small_model().save(good)
    with np.load(good, allow_pickle=False) as npz:
        data, indices, alpha = npz["W_data"], npz["W_indices"], npz["history_alpha"]
    moved = _set(indices, 1, 3)  # beginning - verbo (0.25) moved to beginning - tinieblas: the row's sum is kept
    swapped = _set(_set(data, 0, data[1]), 1, data[0])  # two weights of a row swapped: its sum is kept
    for header, arrays, problem in (
        ({}, {"W_data": _set(data, 0, -5 * data[0])}, "('beginning', 'principio'): it holds -5.0, .* sum to 1.0"),
        ({}, {"W_data": swapped}, "('beginning', 'principio'): it holds 0.25, the steps of the pair .* sum to 1.0"),
        ({}, {"W_indices": moved}, "('beginning', 'tinieblas'): it holds 0.25, the steps of the pair .* sum to 0.0"),
        ({}, {"history_alpha": _set(alpha, 0, 3.0)}, "('light', 'luz'): it holds 2.0, .* history sum to 3.0"),
        ({"params.bag_rounds": [6, 0]}, {}, "('beginning', 'principio'): it holds 1.0, .* history sum to 0.5"),
    ):
        bad = tamper(good, tmp_path / "bad.npz", {"params.bag_rounds": [6], **header}, **arrays)
        with pytest.raises(ClirkitError) as info:
            BoostModel.load(bad)
        assert re.fullmatch(
            re.escape(f"{bad}: corrupt boost model: W disagrees with the history at ")
            + re.escape(problem).replace(r"\.\*", ".*")
            + re.escape("; train the model again with `clirkit boost-train`"),
            str(info.value),
        ), str(info.value)
    two = {"history_bag": np.array([0, 0, 0, 1, 1, 1]), "history_round": np.array([1, 2, 3, 1, 2, 3])}
    bad = tamper(good, tmp_path / "bad.npz", {"params.bag_rounds": [3]}, **two)
    with pytest.raises(ClirkitError, match="history_bag holds bag 1 but header params.bag_rounds lists 1 bags"):
        BoostModel.load(bad)


def test_a_model_of_bags_that_kept_no_round_averages_over_every_bag(tmp_path):
    from clirkit.boost.result import BoostResult

    def result(alphas, pairs):
        counts = [len(p) for p in pairs]
        flat = [x for p in pairs for x in p]
        return BoostResult(
            np.arange(len(alphas)),
            np.array(alphas, dtype=np.float64),
            np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            np.array([s for s, _ in flat], dtype=np.int64),
            np.array([t for _, t in flat], dtype=np.int64),
            np.zeros(len(alphas)),
            np.zeros(0),
            np.zeros(0),
            len(alphas),
        )

    kept = result([2.0, 1.5, 0.5], [[(1, 1)], [(0, 0), (1, 1)], [(1, 1)]])  # light - luz three times
    model = BoostModel.from_results(
        [kept, result([], [])],
        ["god", "light"],
        ["dios", "luz"],
        ngram=1,
        source_analyzer=Analyzer("en"),
        target_analyzer=Analyzer("es"),
        params={"bag_rounds": [3, 0]},
    )
    assert model.W.toarray().tolist() == [[0.75, 0.0], [0.0, 2.0]]  # (2 + 1.5 + 0.5) / 2 bags
    model.save(tmp_path / "m.npz")
    back = BoostModel.load(tmp_path / "m.npz")
    assert (back.W != model.W).nnz == 0
    assert back.truncated(1).W.toarray().tolist() == [[0.0, 0.0], [0.0, 1.0]]  # 2 / 2 bags, as trained
    back.truncated(2).save(tmp_path / "cut.npz")
    assert BoostModel.load(tmp_path / "cut.npz").W.toarray().tolist() == [[0.75, 0.0], [0.0, 1.75]]


def test_a_model_boosted_from_a_base_round_trips_with_its_header(tmp_path):
    model = based_model()
    model.save(tmp_path / "m.npz")
    back = BoostModel.load(tmp_path / "m.npz")
    assert (back.beta, back.base, back.doc_weighting, back.ngram) == (2.0, model.base, "idf", 2)
    np.testing.assert_array_equal(back.tgt_idf, model.tgt_idf)
    assert ranked(back) == ranked(model)


def test_a_trained_two_bag_model_round_trips(tmp_path):
    queries = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
    qrels = Qrels(
        ["q1", "q1", "q2", "q2", "q3", "q4"],
        ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"],
        [2, 1, 2, 2, 2, 1],
    )
    model = (
        BoostRanker(
            features=PairFeatures(bits=20),
            sampling=TupleSampling(negatives=3),
            boosting=Boosting(rounds=5, eval_every=1),
            bagging=Bagging(bags=2, bag_fraction=0.8),
            quiet=True,
            backend="threading",
        )
        .fit_tokens(queries, qrels, DOCIDS, DOCS, dev_queries=queries, dev_qrels=qrels)
        .model_
    )
    model.save(tmp_path / "m.npz")
    back = BoostModel.load(tmp_path / "m.npz")
    assert back.params == model.params and ranked(back) == ranked(model)
    assert back.rounds_table(20, bag=None) == model.rounds_table(20, bag=None)
    assert (back.truncated(2).W != model.truncated(2).W).nnz == 0


def _swapped(arr, i, j):
    out = arr.copy()
    out[[i, j]] = out[[j, i]]
    return out


@pytest.mark.parametrize("version2", [False, True])
@pytest.mark.parametrize(
    "name, problem",
    [
        ("src_terms", "src_terms is not in increasing order at 1 ('god' then 'beginning')"),
        ("tgt_terms", "tgt_terms is not in increasing order at 4 ('verbo' then 'tinieblas')"),
    ],
)
def test_term_arrays_shuffled_against_the_phrase_table_are_refused_not_ranked_as_another_model(
    tamper, tmp_path, version2, name, problem
):
    good = tmp_path / "m.npz"
    (based_model() if version2 else small_model()).save(good)
    with np.load(good, allow_pickle=False) as npz:
        terms = npz[name]
    assert terms.tolist() == sorted(terms.tolist())  # the writer sorts them, whatever order they were given in
    i, j = (0, 1) if name == "src_terms" else (3, 4)
    bad = tamper(good, tmp_path / "bad.npz", **{name: _swapped(terms, i, j)})
    with pytest.raises(ClirkitError) as info:
        BoostModel.load(bad)
    assert str(info.value) == f"{bad}: corrupt boost model: {problem}; train the model again with `clirkit boost-train`"


def test_a_model_given_its_terms_in_any_order_ranks_as_given_and_saves_them_sorted(tmp_path):
    src = ["god", "light", "beginning", "word"]  # small_model's terms, in first-seen order
    tgt = ["dios", "luz", "principio", "verbo", "tinieblas"]
    m = small_model()
    model = BoostModel(
        src,
        tgt,
        sp.csr_matrix(np.array([[1.5, 0, 0, 0, 0], [0, 2.0, 0, 0, -0.5], [0, 0, 1.0, 0.25, 0], [0, 0, 0, 3.0, 0]])),
        ngram=2,
        source_analyzer=m.source_analyzer,
        target_analyzer=m.target_analyzer,
        history=HISTORY,
        params={"rounds": 2},
        beta=2.0,
        base={"tag": "PSQ"},
        doc_weighting="idf",
        tgt_idf=np.array([0.25, 0.5, 0.75, 1.0, 0.0]),
    )
    assert model.src_terms.tolist() == ["beginning", "god", "light", "word"]
    assert model.tgt_terms.tolist() == ["dios", "luz", "principio", "tinieblas", "verbo"]
    pairs = {(str(model.src_terms[i]), str(model.tgt_terms[j])): w for i, j, w in zip(*sp.find(model.W))}
    assert pairs == {
        ("god", "dios"): 1.5,
        ("light", "luz"): 2.0,
        ("light", "tinieblas"): -0.5,
        ("beginning", "principio"): 1.0,
        ("beginning", "verbo"): 0.25,
        ("word", "verbo"): 3.0,
    }
    idf = dict(zip(model.tgt_terms.tolist(), model.tgt_idf.tolist()))
    assert idf == {"dios": 0.25, "luz": 0.5, "principio": 0.75, "verbo": 1.0, "tinieblas": 0.0}
    history = [
        (str(model.src_terms[s]), str(model.tgt_terms[t]))
        for s, t in zip(model.history["pair_src"], model.history["pair_tgt"])
    ]
    assert history[:3] == [("light", "luz"), ("god", "dios"), ("word", "verbo")]
    model.save(tmp_path / "m.npz")
    assert ranked(BoostModel.load(tmp_path / "m.npz")) == ranked(model)


def test_a_candidate_run_naming_unknown_queries_or_documents_says_the_id_not_a_numpy_repr():
    model = based_model()
    for run, problem in (
        (Run(["q9"], ["Gen.1.1"], [1.0]), "the candidate run has queries with no text, e.g. 'q9'"),
        (Run(["q1"], ["Rev.1.1"], [1.0]), "the candidate run names document 'Rev.1.1', absent from the documents"),
    ):
        with pytest.raises(ClirkitError) as info:
            model.rerank(run, QUERIES, DOCIDS, DOCS)
        assert str(info.value) == problem
