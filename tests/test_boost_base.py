"""Boosting from a base ranker (SPEC §5): f(q, d) = beta * f0(q, d) + q^T W d.

Hand-computed base margins and first rounds, hard negatives from the base run,
re-ranking with beta * f0, model files, extra (parallel) tuples and beta tuning.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from test_boost_model import HISTORY

from clirkit.analysis import Analyzer
from clirkit.boost import Boosting, BoostModel, BoostRanker, PairFeatures, TupleSampling
from clirkit.boost.base import BaseScores, normalized_scores
from clirkit.boost.features import NgramVocabulary, hash_strings
from clirkit.boost.rounds import PairBooster
from clirkit.boost.tuples import Tuples, make_tuples
from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

# -- a tiny collection (Reina-Valera verses as token lists) and English queries ----------------------

DOCIDS = ["Gen.1.1", "Gen.1.3", "John.1.1", "John.1.5"]
DOCS = [
    ["en", "el", "principio", "crió", "dios", "los", "cielos"],
    ["dijo", "dios", "sea", "la", "luz"],
    ["en", "el", "principio", "era", "el", "verbo"],
    ["la", "luz", "en", "las", "tinieblas"],
]
QUERIES = {"q1": ["god"], "q2": ["light"], "q3": ["word"], "q4": ["god", "light"]}
QRELS = Qrels(
    ["q1", "q1", "q2", "q2", "q3", "q4"],
    ["Gen.1.1", "Gen.1.3", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.3"],
    [2, 1, 2, 2, 2, 1],
)
# a BM25-like base run over the training queries: it misses some relevant documents
BASE = Run(
    ["q1"] * 2 + ["q2"] * 2 + ["q3"] * 2 + ["q4"] * 2,
    ["Gen.1.1", "John.1.1", "Gen.1.3", "Gen.1.1", "John.1.1", "John.1.5", "Gen.1.3", "John.1.5"],
    [3.0, 1.0, 2.0, 1.0, 4.0, 2.0, 5.0, 1.0],
    tag="bm25",
)


# -- normalized base scores ----------------------------------------------------------------------------


def test_normalized_scores_divide_each_score_by_its_querys_largest():
    run = Run(
        ["q1", "q1", "q1", "q2", "q2", "q3", "q3"],
        ["Gen.1.1", "Gen.1.3", "John.1.1", "John.1.5", "Gen.1.1", "Gen.1.3", "John.1.1"],
        [4.0, 2.0, 1.0, 0.5, 0.125, 0.0, 0.0],
    )
    f0 = normalized_scores(run)
    # q1: /4; q2: /0.5; q3's largest score is 0, so f0 = 0 everywhere
    assert f0.tolist() == [4.0 / 4.0, 2.0 / 4.0, 1.0 / 4.0, 0.5 / 0.5, 0.125 / 0.5, 0.0, 0.0]


def test_normalized_scores_refuse_negative_or_non_finite_scores():
    with pytest.raises(ClirkitError, match="negative"):
        normalized_scores(Run(["q1", "q1"], ["Gen.1.1", "Gen.1.3"], [1.0, -0.5]))
    with pytest.raises(ClirkitError, match="finite"):
        normalized_scores(Run(["q1", "q1"], ["Gen.1.1", "Gen.1.3"], [np.inf, 0.5]))


def test_base_scores_are_f0_where_the_base_run_lists_the_pair_and_zero_elsewhere():
    base = BaseScores(BASE, ["q1", "q2", "q9"], DOCIDS)  # q3, q4 rows are ignored
    q = np.array([0, 0, 0, 1, 1, 2])
    d = np.array([0, 2, 1, 1, 0, 0])
    # q1: Gen.1.1 3/3, John.1.1 1/3, Gen.1.3 unlisted; q2: Gen.1.3 2/2, Gen.1.1 1/2; q9: no row
    assert base.at(q, d).tolist() == pytest.approx([3 / 3, 1 / 3, 0.0, 2 / 2, 1 / 2, 0.0], rel=1e-15)
    assert base.retrieved(q, d).tolist() == [True, True, False, True, True, False]
    assert len(base) == 4


def test_base_scores_hold_the_rows_by_query_row_then_document_row():
    # query rows q2 = 0, q1 = 1; document rows as DOCIDS: Gen.1.1 0, Gen.1.3 1, John.1.1 2
    base = BaseScores(BASE, ["q2", "q1"], DOCIDS)
    assert base.qrow.tolist() == [0, 0, 1, 1]
    assert base.drow.tolist() == [0, 1, 0, 2]  # q2 lists Gen.1.3 first: held by document row
    assert base.f0.tolist() == pytest.approx([1 / 2, 2 / 2, 3 / 3, 1 / 3], rel=1e-15)
    assert base.rank.tolist() == [2, 1, 1, 2]
    assert base.candidate_keys().tolist() == [0, 1, 4, 6]  # query row * 4 documents + document row
    assert base.candidate_keys(1).tolist() == [1, 4]
    assert BaseScores(BASE, ["q2", "q9", "q1"], DOCIDS).listed_queries(3).tolist() == [True, False, True]


# -- the base margin changes the first round ------------------------------------------------------------


def four_tuples():
    """q0 = {god}, q1 = {light}; d0 = {dios}, d1 = {luz}, d2 = {cielos}, d3 = {tinieblas}.

    Tuples (q, d+, d-, D): t0 (q0, d0, d2, 2), t1 (q0, d0, d3, 1), t2 (q1, d1, d2, 1), t3 (q1, d1, d3, 1).
    Each tuple's d+ and d- share no word, so its pairs are (q word, d+ word) in W+ and (q word, d- word) in W-.
    """
    qv, dv = NgramVocabulary(), NgramVocabulary()
    Q = qv.matrix([["god"], ["light"]], 1, grow=True)
    D = dv.matrix([["dios"], ["luz"], ["cielos"], ["tinieblas"]], 1, grow=True)
    t = Tuples.from_arrays([0, 0, 1, 1], [0, 0, 1, 1], [2, 3, 2, 3], [2, 1, 1, 1])
    return qv, dv, Q, D, t


# base run: q0 lists d0 (4.0 -> f0 1) and d3 (2.0 -> f0 1/2); q1 lists d3 (3.0 -> f0 1) and d1 (1.5 -> f0 1/2)
FOUR_QIDS, FOUR_DOCIDS = ["q0", "q1"], ["d0", "d1", "d2", "d3"]
FOUR_BASE = Run(["q0", "q0", "q1", "q1"], ["d0", "d3", "d3", "d1"], [4.0, 2.0, 3.0, 1.5])


def first_choice(Q, D, t, qv, dv):
    b = PairBooster(
        Q, D, t, src_hash=hash_strings(qv.terms, 0), tgt_hash=hash_strings(dv.terms, 0), bits=32, rule="exact"
    )
    assert len(b.bucket_ids) == len(b.pair_keys) == 6  # no two pairs share a bucket
    k, alpha, gain = b.choose()
    src, tgt = b.pairs_of(k)
    return b, [(qv.terms[i], dv.terms[j]) for i, j in zip(src, tgt)], alpha, gain


def hand_gains(w):
    """W+ / W- of each pair from the normalized weights w of t0..t3; gain (sqrt W+ - sqrt W-)^2."""
    stats = {
        ("god", "dios"): (w[0] + w[1], 0.0),
        ("god", "cielos"): (0.0, w[0]),
        ("god", "tinieblas"): (0.0, w[1]),
        ("light", "luz"): (w[2] + w[3], 0.0),
        ("light", "cielos"): (0.0, w[2]),
        ("light", "tinieblas"): (0.0, w[3]),
    }
    return stats, {p: (math.sqrt(wp) - math.sqrt(wm)) ** 2 for p, (wp, wm) in stats.items()}


def test_start_tuples_multiply_each_weight_by_exp_of_minus_the_base_margin():
    qv, dv, Q, D, t = four_tuples()
    base = BaseScores(FOUR_BASE, FOUR_QIDS, FOUR_DOCIDS)
    beta = 2.0
    started = base.start_tuples(t, beta)
    # margins beta * (f0+ - f0-): t0 (1 - 0), t1 (1 - 1/2), t2 (1/2 - 0), t3 (1/2 - 1)
    expected = [
        2 * math.exp(-beta * (1 - 0)),
        1 * math.exp(-beta * (1 - 0.5)),
        1 * math.exp(-beta * (0.5 - 0)),
        1 * math.exp(-beta * (0.5 - 1)),
    ]
    assert started.weight.tolist() == pytest.approx(expected, rel=1e-14)
    for name in ("query", "pos", "neg"):
        np.testing.assert_array_equal(getattr(started, name), getattr(t, name))
    assert base.start_tuples(t, 0.0) is t  # beta = 0: the very same tuples


def test_base_margin_changes_the_first_chosen_pair_and_its_step_as_the_hand_formula_says():
    qv, dv, Q, D, t = four_tuples()
    eps = 1 / 4  # 1 / number of tuples

    # beta = 0: w = (2, 1, 1, 1) / 5; (god, dios) has W+ = 0.4 + 0.2, the largest gain
    w0 = np.array([2, 1, 1, 1]) / 5
    stats, gains = hand_gains(w0)
    assert max(gains, key=gains.get) == ("god", "dios")
    b, pairs, alpha, gain = first_choice(Q, D, t, qv, dv)
    assert pairs == [("god", "dios")]
    assert alpha == pytest.approx(0.5 * math.log((0.6 + eps) / (0.0 + eps)), rel=1e-12)
    assert gain == pytest.approx(gains[("god", "dios")], rel=1e-12)

    # beta = 2: w_t = D_t exp(-beta (f0+ - f0-)) / sum; q1's tuples (d+ ranked below d3 by the base) now weigh most
    beta = 2.0
    u = np.array([2 * math.exp(-beta * 1), math.exp(-beta * 0.5), math.exp(-beta * 0.5), math.exp(beta * 0.5)])
    w = u / u.sum()
    stats, gains = hand_gains(w)
    assert max(gains, key=gains.get) == ("light", "luz")  # W+ = w2 + w3 beats W-(light, tinieblas) = w3
    started = BaseScores(FOUR_BASE, FOUR_QIDS, FOUR_DOCIDS).start_tuples(t, beta)
    b, pairs, alpha, gain = first_choice(Q, D, started, qv, dv)
    assert b.weights == pytest.approx(w, rel=1e-12)
    assert pairs == [("light", "luz")]
    wp, wm = stats[("light", "luz")]
    assert alpha == pytest.approx(0.5 * math.log((wp + eps) / (wm + eps)), rel=1e-12)
    assert gain == pytest.approx((math.sqrt(wp) - math.sqrt(wm)) ** 2, rel=1e-12)


# -- beta = 0 is plain boosting --------------------------------------------------------------------------


def assert_same_training(a: BoostRanker, b: BoostRanker) -> None:
    ra, rb = a.results_[0], b.results_[0]
    assert np.array_equal(ra.buckets, rb.buckets)
    assert np.array_equal(ra.alphas, rb.alphas)
    for name in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(a.model_.W, name), getattr(b.model_.W, name))
    assert a.model_.src_terms.tolist() == b.model_.src_terms.tolist()
    assert a.model_.tgt_terms.tolist() == b.model_.tgt_terms.tolist()


def test_beta_zero_without_hard_negatives_is_plain_boosting_bit_for_bit():
    """The docs: with a base, ``negatives`` stay uniform and hard negatives come in addition; beta 0 is plain."""
    kw = dict(rounds=6, negatives=3, bits=20, quiet=True)
    from_base = BoostRanker.from_flat(base=BASE, beta=0.0, hard_negatives=0, doc_weighting="binary", **kw).fit_tokens(
        QUERIES, QRELS, DOCIDS, DOCS
    )
    plain = BoostRanker.from_flat(**kw).fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    assert from_base.beta_ == 0.0
    for name in ("query", "pos", "neg", "weight"):
        assert np.array_equal(getattr(from_base.tuples_, name), getattr(plain.tuples_, name)), name
    assert_same_training(from_base, plain)


def test_beta_zero_boosts_exactly_like_plain_boosting_from_the_same_tuples():
    """A base run listing only relevant documents offers no negative, so the tuples are the plain ones."""
    only_relevant = Run(QRELS.qids, QRELS.docids, [2.0, 1.0, 2.0, 1.0, 1.0, 1.0])
    kw = dict(rounds=6, negatives=3, bits=20, quiet=True)
    from_base = BoostRanker.from_flat(
        base=only_relevant, beta=0.0, hard_negatives=0, doc_weighting="binary", **kw
    ).fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    plain = BoostRanker.from_flat(**kw).fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    for name in ("query", "pos", "neg", "weight"):
        assert np.array_equal(getattr(from_base.tuples_, name), getattr(plain.tuples_, name)), name
    assert_same_training(from_base, plain)
    assert from_base.model_.beta == 0.0 and from_base.model_.from_base and not plain.model_.from_base


# -- hard negatives from the base run --------------------------------------------------------------------

HARD_DOCS = [f"d{i}" for i in range(20)]
# q1: d1 (2), d2 (1) relevant, d3 judged non-relevant; q2: d4 (1), d5 (2) relevant
HARD_QRELS = Qrels(["q1", "q1", "q1", "q2", "q2"], ["d1", "d2", "d3", "d4", "d5"], [2, 1, 0, 1, 2])
# q1 lists d1 at rank 2 and d2 at rank 5 (beyond depth 3); q2 lists d4 but not d5
HARD_RUN = Run(
    ["q1"] * 5 + ["q2"] * 4,
    ["d7", "d1", "d8", "d9", "d2", "d6", "d4", "d10", "d11"],
    [5.0, 4.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 0.5],
)


def tuple_counter(t: Tuples) -> Counter:
    return Counter(zip(t.query.tolist(), t.pos.tolist(), t.neg.tolist(), t.weight.tolist()))


def test_hard_negatives_only_for_listed_positives_from_the_top_depth_minus_relevant():
    kw = dict(negatives=2, seed=3)
    base = BaseScores(HARD_RUN, ["q1", "q2"], HARD_DOCS)
    t = make_tuples(HARD_QRELS, ["q1", "q2"], HARD_DOCS, base=base, candidate_depth=3, hard_negatives=20, **kw)
    uniform = make_tuples(HARD_QRELS, ["q1", "q2"], HARD_DOCS, **kw)  # the same seed draws the same uniform d- first
    per_positive = Counter(zip(t.query.tolist(), t.pos.tolist()))
    # listed d+ (q1 d1, q1 d2 at any rank, q2 d4): 2 uniform + 20 hard; unlisted q2 d5: 2 uniform only
    assert per_positive == {(0, 1): 2 + 20, (0, 2): 2 + 20, (1, 4): 2 + 20, (1, 5): 2}
    # the uniform tuples are all still there, for every d+
    assert not tuple_counter(uniform) - tuple_counter(t)
    hard = tuple_counter(t) - tuple_counter(uniform)
    assert sum(hard.values()) == 3 * 20
    assert {(q, p) for q, p, _, _ in hard} == {(0, 1), (0, 2), (1, 4)}
    # hard d-: q1's top 3 {d7, d1, d8} minus relevant d1; q2's top 3 {d6, d4, d10} minus relevant d4
    hard_negs = {q: {n for qq, _, n, _ in hard if qq == q} for q in (0, 1)}
    assert hard_negs == {0: {7, 8}, 1: {6, 10}}
    relevant = {(0, 1), (0, 2), (1, 4), (1, 5)}
    assert all((q, n) not in relevant for q, n in zip(t.query.tolist(), t.neg.tolist()))
    # weights: rel(d+) - rel(d-), with unjudged d- as 0
    grade = {(0, 1): 2, (0, 2): 1, (1, 4): 1, (1, 5): 2}
    assert all(w == grade[(q, p)] for q, p, _, w in hard)


def test_hard_negatives_need_the_base_run():
    with pytest.raises(ClirkitError, match="base"):
        make_tuples(HARD_QRELS, ["q1", "q2"], HARD_DOCS, negatives=1, hard_negatives=1)


def test_ranker_adds_one_hard_tuple_per_listed_positive_from_the_base_runs_top_depth():
    r = BoostRanker(
        features=PairFeatures(bits=20),
        sampling=TupleSampling(hard_negatives=1, candidate_depth=2, negatives=2),
        boosting=Boosting(beta=2.0, rounds=2),
        base=BASE,
        quiet=True,
    ).fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    t = r.tuples_
    qids = list(QUERIES)
    rows = [(qids[q], DOCIDS[p], DOCIDS[n]) for q, p, n in zip(t.query.tolist(), t.pos.tolist(), t.neg.tolist())]
    per_positive = Counter((q, p) for q, p, _ in rows)
    # BASE lists q1: Gen.1.1 (not Gen.1.3), q2: Gen.1.3 (not John.1.5), q3: John.1.1, q4: Gen.1.3
    assert per_positive == {
        ("q1", "Gen.1.1"): 2 + 1,
        ("q1", "Gen.1.3"): 2,
        ("q2", "Gen.1.3"): 2 + 1,
        ("q2", "John.1.5"): 2,
        ("q3", "John.1.1"): 2 + 1,
        ("q4", "Gen.1.3"): 2 + 1,
    }
    # each query's top 2 minus its relevant documents holds one document, so that is the hard d-
    hard = {"q1": "John.1.1", "q2": "Gen.1.1", "q3": "John.1.5", "q4": "John.1.5"}
    for (q, p), count in per_positive.items():
        if count == 2 + 1:
            assert (q, p, hard[q]) in rows


# -- re-ranking with beta * f0 + q^T W d, and model files --------------------------------------------

TABLE = {
    ("god", "dios"): 1.5,
    ("light", "luz"): 2.0,
    ("light", "tinieblas"): -0.5,
    ("beginning", "principio"): 1.0,
    ("beginning", "verbo"): 0.25,
    ("word", "verbo"): 3.0,
}


def table_model(beta: float = 2.5, base: dict | None = None) -> BoostModel:
    src = ["god", "light", "beginning", "word"]
    tgt = ["dios", "luz", "principio", "verbo", "tinieblas"]
    W = sp.lil_matrix((len(src), len(tgt)))
    for (s, t_), w in TABLE.items():
        W[src.index(s), tgt.index(t_)] = w
    history = HISTORY  # the rounds that sum to TABLE, small_model's table (a saved model's W is checked against them)
    return BoostModel(
        src,
        tgt,
        W.tocsr(),
        ngram=1,
        source_analyzer=Analyzer("en"),
        target_analyzer=Analyzer("es"),
        history=history,
        params={"rounds": 2},
        beta=beta,
        base=base,
    )


def hand_table_score(query, doc):
    return sum(w for (s, t_), w in TABLE.items() if s in query and t_ in doc)


RERANK_QUERIES = {"q1": ["light"], "q2": ["god", "word"]}
CANDIDATES = Run(
    ["q1"] * 3 + ["q2"] * 2,
    ["John.1.1", "John.1.5", "Gen.1.1", "Gen.1.3", "John.1.1"],
    [4.0, 2.0, 1.0, 0.8, 0.2],
    tag="bm25",
)


def test_rerank_score_is_beta_times_f0_plus_the_table_weights():
    beta = 2.5
    model = table_model(beta, base={"tag": "bm25"})
    run = model.rerank(CANDIDATES, RERANK_QUERIES, DOCIDS, DOCS)
    doc = dict(zip(DOCIDS, DOCS))
    f0 = {
        ("q1", "John.1.1"): 4.0 / 4.0,
        ("q1", "John.1.5"): 2.0 / 4.0,
        ("q1", "Gen.1.1"): 1.0 / 4.0,
        ("q2", "Gen.1.3"): 0.8 / 0.8,
        ("q2", "John.1.1"): 0.2 / 0.8,
    }
    for qid, toks in RERANK_QUERIES.items():
        expected = {d: beta * f0[(qid, d)] + hand_table_score(set(toks), set(doc[d])) for (q, d) in f0 if q == qid}
        docs, scores = run.for_query(qid)
        assert dict(zip(docs.tolist(), scores.tolist())) == pytest.approx(expected, rel=1e-12)
        assert list(scores) == sorted(scores, reverse=True)
    # q1: John.1.5 = 2.5 * 1/2 + (2.0 - 0.5) overtakes the base's first John.1.1 = 2.5 * 1 + 0
    assert run.for_query("q1")[0].tolist() == ["John.1.5", "John.1.1", "Gen.1.1"]
    assert len(run) == len(CANDIDATES)


def test_a_model_boosted_from_a_base_cannot_rank_the_whole_collection():
    with pytest.raises(ClirkitError, match="base ranker"):
        table_model(2.5, base={"tag": "bm25"}).rank(RERANK_QUERIES, DOCIDS, DOCS)


def header_of(path) -> dict:
    with np.load(path, allow_pickle=False) as npz:
        return json.loads(npz["__header__"].tobytes().decode("utf-8"))


def test_save_load_keeps_beta_and_base_and_reranks_identically(tmp_path):
    base_info = {"normalization": "query-max", "tag": "bm25", "queries": 2, "rows": 5, "made_by": {"k1": 0.9}}
    model = table_model(2.5, base=base_info)
    path = tmp_path / "from_base.npz"
    model.save(path)
    assert header_of(path)["format_version"] == 2
    back = BoostModel.load(path)
    assert back.beta == 2.5 and back.base == base_info and back.from_base
    a = model.rerank(CANDIDATES, RERANK_QUERIES, DOCIDS, DOCS)
    b = back.rerank(CANDIDATES, RERANK_QUERIES, DOCIDS, DOCS)
    assert a.qids.tolist() == b.qids.tolist() and a.docids.tolist() == b.docids.tolist()
    assert np.array_equal(a.scores, b.scores)
    with pytest.raises(ClirkitError):
        back.rank(RERANK_QUERIES, DOCIDS, DOCS)


def test_a_standalone_model_still_saves_as_version_one(tmp_path):
    path = tmp_path / "standalone.npz"
    table_model(0.0, base=None).save(path)
    header = header_of(path)
    assert header["format_version"] == 1 and "beta" not in header and "base" not in header
    back = BoostModel.load(path)
    assert back.beta == 0.0 and back.base is None and not back.from_base


def test_a_trained_model_from_a_base_records_beta_and_reranks_with_it():
    r = BoostRanker(
        features=PairFeatures(bits=20),
        sampling=TupleSampling(hard_negatives=1, negatives=2),
        boosting=Boosting(beta=5.0, rounds=5),
        base=BASE,
        quiet=True,
    )
    r.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, base_made_by={"method": "bm25"})
    m = r.model_
    assert r.beta_ == 5.0 and r.beta_scores_ == {5.0: None} and m.beta == 5.0
    assert m.base["tag"] == "bm25" and m.base["made_by"] == {"method": "bm25"} and m.base["rows"] == len(BASE)
    run = m.rerank(BASE, QUERIES, DOCIDS, DOCS)
    f0 = dict(zip(zip(BASE.qids.tolist(), BASE.docids.tolist()), normalized_scores(BASE).tolist()))
    plain = BoostModel(
        m.src_terms,
        m.tgt_terms,
        m.W,
        ngram=1,
        source_analyzer=m.source_analyzer,
        target_analyzer=m.target_analyzer,
        history=m.history,
        doc_weighting=m.doc_weighting,
        tgt_idf=m.tgt_idf,
    )  # q^T W d alone
    table = plain.rerank(BASE, QUERIES, DOCIDS, DOCS)
    qtwd = dict(zip(zip(table.qids.tolist(), table.docids.tolist()), table.scores.tolist()))
    got = dict(zip(zip(run.qids.tolist(), run.docids.tolist()), run.scores.tolist()))
    assert got == pytest.approx({k: 5.0 * f0[k] + qtwd[k] for k in f0}, rel=1e-12, abs=1e-12)


# -- extra (parallel) tuples -------------------------------------------------------------------------------

# English verses aligned with the documents: each is a known-item query for its verse
EXTRA_QUERIES = {
    "Gen.1.1.en": ["beginning", "god", "created", "heaven", "earth"],
    "Gen.1.3.en": ["god", "said", "let", "there", "be", "light"],
    "John.1.5.en": ["light", "shineth", "darkness"],
}
EXTRA_QRELS = Qrels(["Gen.1.1.en", "Gen.1.3.en", "John.1.5.en"], ["Gen.1.1", "Gen.1.3", "John.1.5"], [1, 2, 1])


def test_extra_tuples_are_counted_and_weighted_by_parallel_weight():
    negatives, w = 2, 0.25
    r = BoostRanker(
        features=PairFeatures(bits=20),
        sampling=TupleSampling(hard_negatives=1, negatives=negatives, parallel_weight=w),
        boosting=Boosting(beta=2.0, rounds=4),
        base=BASE,
        quiet=True,
    )
    r.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, extra_queries=EXTRA_QUERIES, extra_qrels=EXTRA_QRELS)
    n_relevant_extra = 3
    assert r.model_.params["n_extra_tuples"] == n_relevant_extra * negatives
    assert r.model_.params["parallel_weight"] == w
    t = r.tuples_
    query_ids = list(QUERIES) + list(EXTRA_QUERIES)
    extra = t.query >= len(QUERIES)
    assert int(extra.sum()) == n_relevant_extra * negatives
    grade = {
        (q, d): g for q, d, g in zip(EXTRA_QRELS.qids.tolist(), EXTRA_QRELS.docids.tolist(), EXTRA_QRELS.rels.tolist())
    }
    for q, p, n, weight in zip(t.query[extra], t.pos[extra], t.neg[extra], t.weight[extra]):
        assert (query_ids[q], DOCIDS[p]) in grade and DOCIDS[n] != DOCIDS[p]
        assert weight == w * grade[(query_ids[q], DOCIDS[p])]
    # the training tuples keep their grade weights
    train_grade = {(q, d): g for q, d, g in zip(QRELS.qids.tolist(), QRELS.docids.tolist(), QRELS.rels.tolist())}
    assert all(
        weight >= 1 and (query_ids[q], DOCIDS[p]) in train_grade
        for q, p, weight in zip(t.query[~extra], t.pos[~extra], t.weight[~extra])
    )
    assert r.model_.params["n_tuples"] == len(t)


def test_an_extra_query_id_equal_to_a_training_query_id_is_refused():
    r = BoostRanker(features=PairFeatures(bits=20), boosting=Boosting(beta=2.0, rounds=2), base=BASE, quiet=True)
    with pytest.raises(ClirkitError, match="q2"):
        r.fit_tokens(
            QUERIES, QRELS, DOCIDS, DOCS, extra_queries={"q2": ["light"]}, extra_qrels=Qrels(["q2"], ["Gen.1.3"], [1])
        )


# -- beta tuned on dev -----------------------------------------------------------------------------------

DEV_QUERIES = {"dev1": ["light", "darkness"], "dev2": ["word", "god"]}
DEV_QRELS = Qrels(["dev1", "dev1", "dev2"], ["John.1.5", "Gen.1.3", "John.1.1"], [2, 1, 2])
BASE_DEV = Run(
    ["dev1"] * 3 + ["dev2"] * 3,
    ["Gen.1.1", "Gen.1.3", "John.1.5", "John.1.1", "Gen.1.1", "Gen.1.3"],
    [1.0, 1.0, 0.5, 3.0, 2.0, 1.0],
    tag="bm25",
)
# the base run covers the training and the dev queries
BASE_WITH_DEV = Run(
    np.concatenate([BASE.qids, BASE_DEV.qids]),
    np.concatenate([BASE.docids, BASE_DEV.docids]),
    np.concatenate([BASE.scores, BASE_DEV.scores]),
    tag="bm25",
)


def test_beta_tuned_on_dev_is_the_first_grid_value_with_the_best_dev_map():
    from clirkit.metrics import evaluate

    grid = (10.0, 2.0, 0.5, 20.0)  # on this data 2.0 and 0.5 tie for the best dev MAP
    r = BoostRanker(
        features=PairFeatures(bits=20, doc_weighting="binary"),
        sampling=TupleSampling(hard_negatives=1, negatives=2),
        boosting=Boosting(beta=None, beta_grid=grid, rounds=4, eval_every=1, significance=None),
        base=BASE_WITH_DEV,
        quiet=True,
    )
    r.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
    assert list(r.beta_scores_) == list(grid)
    best = max(r.beta_scores_.values())
    tied = [b for b in grid if r.beta_scores_[b] == best]
    assert len(tied) >= 2 and tied[0] != grid[0]  # the data exercise "first on ties", not "first of the grid"
    assert r.beta_ == tied[0]
    assert r.model_.beta == r.beta_
    assert r.model_.params["beta_dev_map"] == {f"{b:g}": s for b, s in r.beta_scores_.items()}
    # the kept model is the one boosted with beta_: re-ranking the dev base run gives its dev MAP
    run = r.model_.rerank(BASE_DEV, DEV_QUERIES, DOCIDS, DOCS)
    assert evaluate(run, DEV_QRELS, ["AP"]).mean()["AP"] == pytest.approx(r.beta_scores_[r.beta_], abs=1e-12)
    # the sweep: every beta tried, in grid order, with its dev MAP, and the best one
    sweep = r.beta_sweep_
    assert (
        sweep.betas == grid and sweep.by_beta() == r.beta_scores_ and sweep.dev_map() == r.model_.params["beta_dev_map"]
    )
    assert sweep.best == r.beta_ and sweep.best_score == best and sweep.best_index == grid.index(tied[0])


def test_a_beta_sweep_keeps_the_first_best_beta_and_the_first_without_dev_scores():
    from clirkit.boost.sweep import BetaSweep, betas_to_try

    assert BetaSweep((5.0, 2.0, 0.5), (0.25, 0.5, 0.5)).best == 2.0
    assert BetaSweep((5.0,), (None,)).best == 5.0 and BetaSweep((5.0,), (None,)).best_score is None
    assert betas_to_try(None, (2, 5.0, 2.0, 0)) == (2.0, 5.0, 0.0)  # distinct floats, in grid order
    assert betas_to_try(3, (2.0, 5.0)) == (3.0,)


def test_the_notes_of_a_given_beta_without_dev_queries_say_so():
    r = BoostRanker(
        features=PairFeatures(bits=20),
        sampling=TupleSampling(hard_negatives=1, negatives=2),
        boosting=Boosting(beta=5.0, rounds=3),
        base=BASE,
        quiet=True,
    )
    r.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    assert r.notes("B") == [
        f"B: beta 5 (given, no dev queries), {r.model_.params['bag_rounds'][0]} rounds, "
        f"{len(r.model_)} phrase-table entries"
    ]


def test_a_standalone_ranker_has_no_beta_sweep():
    r = BoostRanker(features=PairFeatures(bits=20), boosting=Boosting(rounds=2), quiet=True).fit_tokens(
        QUERIES, QRELS, DOCIDS, DOCS
    )
    assert r.beta_sweep_ is None and not hasattr(r, "beta_")


@pytest.mark.parametrize(
    "params, says",
    [
        (
            {"base": BASE, "beta_grid": (1.0, 500.0)},
            "The 'beta_grid' parameter of BoostRanker must be a list or tuple, "
            "each a float in the range [0.0, 100.0]. Got (1.0, 500.0)",
        ),
        ({"base": BASE, "beta_grid": (True,)}, "'beta_grid' parameter"),
        ({"base": BASE, "beta_grid": 3.0}, "'beta_grid' parameter"),
        (
            {"base": BASE, "beta": True},
            "The 'beta' parameter of BoostRanker must be None or a float in the range [0.0, 100.0]. Got True",
        ),
        ({"base": BASE, "beta": float("nan")}, "'beta' parameter"),
        ({"base": BASE, "beta_grid": ()}, "beta_grid is empty: give betas to try, or beta"),
        ({"beta": 1.0}, "beta weighs a base ranker's scores: give a base run too"),
    ],
)
def test_beta_and_its_grid_are_checked_once_before_any_work(params, says):
    r = BoostRanker.from_flat(rounds=2, bits=20, quiet=True, **params)
    with pytest.raises(ClirkitError) as caught:
        r.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
    assert says in str(caught.value)


def test_tuning_beta_without_dev_data_is_refused():
    r = BoostRanker(features=PairFeatures(bits=20), boosting=Boosting(beta=None, rounds=2), base=BASE, quiet=True)
    with pytest.raises(ClirkitError, match="dev"):
        r.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)


def test_rounds_that_do_not_beat_the_base_alone_on_dev_are_not_kept(tmp_path):
    """The dev run of a perfect base (every relevant document first): no round can score above it, so none is kept
    and the ranker re-ranks into the base's own order; the same data with a base that misses keeps rounds."""
    from clirkit.metrics import evaluate

    perfect = Run(
        ["dev1"] * 3 + ["dev2"] * 3,
        ["John.1.5", "Gen.1.3", "Gen.1.1", "John.1.1", "Gen.1.1", "Gen.1.3"],
        [3.0, 2.0, 1.0, 3.0, 2.0, 1.0],
        tag="bm25",
    )
    base = Run(
        np.concatenate([BASE.qids, perfect.qids]),
        np.concatenate([BASE.docids, perfect.docids]),
        np.concatenate([BASE.scores, perfect.scores]),
        tag="bm25",
    )
    r = BoostRanker(
        features=PairFeatures(bits=20, doc_weighting="binary"),
        sampling=TupleSampling(hard_negatives=1, negatives=2),
        boosting=Boosting(beta=2.0, rounds=4, eval_every=1),
        base=base,
        quiet=True,
    )
    r.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
    assert r.results_[0].best_round == 0 and len(r.model_) == 0 and r.model_.params["bag_rounds"] == [0]
    run = r.model_.rerank(perfect, DEV_QUERIES, DOCIDS, DOCS)
    assert run.docids.tolist() == perfect.docids.tolist()
    assert evaluate(run, DEV_QRELS, ["AP"]).mean()["AP"] == 1.0
    r.model_.save(tmp_path / "none.npz")  # a model of no entry is written and read back
    assert (
        BoostModel.load(tmp_path / "none.npz").rerank(perfect, DEV_QUERIES, DOCIDS, DOCS).docids.tolist()
        == perfect.docids.tolist()
    )
    missing = BoostRanker(
        features=PairFeatures(bits=20, doc_weighting="binary"),
        sampling=TupleSampling(hard_negatives=1, negatives=2),
        boosting=Boosting(beta=2.0, rounds=4, eval_every=1, significance=None),
        base=BASE_WITH_DEV,
        quiet=True,
    )
    missing.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
    assert missing.results_[0].best_round > 0
    # two dev queries cannot make a gain significant: with the default level, no round is kept
    guarded = BoostRanker(
        features=PairFeatures(bits=20, doc_weighting="binary"),
        sampling=TupleSampling(hard_negatives=1, negatives=2),
        boosting=Boosting(beta=2.0, rounds=4, eval_every=1),
        base=BASE_WITH_DEV,
        quiet=True,
    )
    guarded.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS, dev_queries=DEV_QUERIES, dev_qrels=DEV_QRELS)
    assert guarded.model_.params["bag_rounds"] == [0] and len(guarded.model_) == 0


class _PerQuery:
    """A dev evaluator whose per-query AP is ``base`` with no pair and ``boosted`` with pairs."""

    def __init__(self, base, boosted):
        self.base, self.boosted = np.asarray(base, float), np.asarray(boosted, float)

    def per_query(self, src, tgt, weights):
        return self.boosted if len(src) else self.base


@pytest.mark.parametrize("boosted, kept", [([0.5] * 30, True), ([0.1] * 15 + [0.3] * 15, False), ([0.0] * 30, False)])
def test_rounds_are_kept_only_when_significantly_above_the_base_on_dev(boosted, kept):
    from clirkit.boost.bagging import kept_if_significant
    from clirkit.boost.result import BoostResult

    result = BoostResult(
        np.array([7]),
        np.array([0.5]),
        np.array([0, 1]),
        np.array([0]),
        np.array([0]),
        np.array([0.9]),
        np.array([1]),
        np.array([0.3]),
        1,
    )
    out = kept_if_significant([result], _PerQuery([0.2] * 30, boosted), 0.05)  # base 0.2 on each of 30 queries
    assert out[0].best_round == (1 if kept else 0)


@pytest.mark.parametrize("from_base", [False, True], ids=["standalone", "from-base"])
def test_a_max_df_that_drops_every_ngram_is_refused_before_any_boosting(from_base):
    """Every n-gram of the tiny collection is in more than 10% of its queries or documents: no pair is left to
    boost (was a traceback: argmax of an empty sequence; then an empty model written with exit 0, edge round 15b
    finding 6); now a ClirkitError saying what left nothing and what to change, and no model."""
    kw = dict(base=BASE, beta=1.0) if from_base else {}
    ranker = BoostRanker.from_flat(rounds=6, max_df=0.1, quiet=True, **kw)
    with pytest.raises(ClirkitError, match=r"max_df 0.1 drops every query n-gram .*1/4 .*give a larger max_df"):
        ranker.fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    assert not hasattr(ranker, "model_")
