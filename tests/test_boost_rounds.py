"""RankBoost rounds: hand-computed first rounds, loss, incremental W+/W- statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit.boost.features import NgramVocabulary, hash_strings, pair_buckets
from clirkit.boost.pairgroups import PairCache
from clirkit.boost.rounds import PairBooster
from clirkit.boost.tuples import Tuples


def tiny():
    """q0 = {a}, q1 = {c}; d0 = {x, y}, d1 = {z}, d2 = {x}, d3 = {w}.

    Tuples (q, d+, d-, D): (q0, d0, d1, 2), (q0, d2, d3, 1), (q1, d1, d0, 1), (q1, d1, d3, 1);
    normalized weights 0.4, 0.2, 0.2, 0.2.
    """
    qv, dv = NgramVocabulary(), NgramVocabulary()
    Q = qv.matrix([["a"], ["c"]], 1, grow=True)
    D = dv.matrix([["x", "y"], ["z"], ["x"], ["w"]], 1, grow=True)
    t = Tuples.from_arrays([0, 0, 1, 1], [0, 2, 1, 1], [1, 3, 0, 3], [2, 1, 1, 1])
    return qv, dv, Q, D, t


def booster(rule, bits=24, **kw):
    qv, dv, Q, D, t = tiny()
    b = PairBooster(
        Q, D, t, src_hash=hash_strings(qv.terms, 0), tgt_hash=hash_strings(dv.terms, 0), bits=bits, rule=rule, **kw
    )
    return qv, dv, b


def chosen_pairs(qv, dv, result, r):
    a, z = result.pair_ptr[r], result.pair_ptr[r + 1]
    return [(qv.terms[i], dv.terms[j]) for i, j in zip(result.pair_src[a:z], result.pair_tgt[a:z])]


def test_tiny_set_has_no_bucket_collision():
    qv, dv, b = booster("exact")
    assert len(b.bucket_ids) == len(b.pair_keys) == 8  # 4 pairs of q0 + 4 pairs of q1


def test_exact_rule_first_two_rounds_match_hand_computation():
    qv, dv, b = booster("exact")
    res = b.run(2, quiet=True)
    eps = 1 / 4
    # round 1: W+(a,x) = 0.4 + 0.2 = 0.6, W- = 0 is the largest (sqrt W+ - sqrt W-)^2
    assert chosen_pairs(qv, dv, res, 0) == [("a", "x")]
    alpha1 = 0.5 * math.log((0.6 + eps) / (0 + eps))
    assert res.alphas[0] == pytest.approx(alpha1, rel=1e-12)
    # tuples 1 and 2 shrink by exp(-alpha1); (c, z) has W+ = 0.4 / Z, beating (a, x) at 0.6 e^-alpha1 / Z
    z = 0.6 * math.exp(-alpha1) + 0.4
    assert chosen_pairs(qv, dv, res, 1) == [("c", "z")]
    assert res.alphas[1] == pytest.approx(0.5 * math.log((0.4 / z + eps) / eps), rel=1e-12)


def test_r_rule_first_two_rounds_match_hand_computation():
    qv, dv, b = booster("r")
    res = b.run(2, quiet=True)
    # round 1: r(a,x) = 0.6, alpha = 0.5 ln(1.6 / 0.4) = ln 2
    assert chosen_pairs(qv, dv, res, 0) == [("a", "x")]
    assert res.alphas[0] == pytest.approx(math.log(2), rel=1e-12)
    # weights become 0.2, 0.1, 0.2, 0.2 -> 2/7, 1/7, 2/7, 2/7; r(c,z) = 4/7 beats r(a,x) = 3/7
    assert chosen_pairs(qv, dv, res, 1) == [("c", "z")]
    assert res.alphas[1] == pytest.approx(0.5 * math.log((1 + 4 / 7) / (1 - 4 / 7)), rel=1e-12)


def test_r_rule_weights_after_first_round_are_hand_values():
    qv, dv, b = booster("r")
    b.run(1, quiet=True)
    assert b.weights == pytest.approx(np.array([2, 1, 2, 2]) / 7, rel=1e-12)


def random_problem(seed=0, n_queries=30, n_docs=60, n_tuples=300, S=25, T=40):
    rng = np.random.default_rng(seed)
    Q = sp.random(n_queries, S, density=0.15, random_state=rng, format="csr")
    D = sp.random(n_docs, T, density=0.12, random_state=rng, format="csr")
    Q.data[:] = 1
    D.data[:] = 1
    q = rng.integers(0, n_queries, n_tuples)
    p = rng.integers(0, n_docs, n_tuples)
    n = (p + 1 + rng.integers(0, n_docs - 1, n_tuples)) % n_docs
    t = Tuples.from_arrays(q, p, n, rng.integers(1, 3, n_tuples))
    src_hash = hash_strings([f"s{i}" for i in range(S)], 0)
    tgt_hash = hash_strings([f"t{j}" for j in range(T)], 0)
    return Q, D, t, src_hash, tgt_hash


@pytest.mark.parametrize("rule", ["exact", "r"])
@pytest.mark.parametrize("bits", [24, 6])  # 2**6 buckets forces collisions
def test_incremental_statistics_equal_full_recomputation(rule, bits):
    Q, D, t, sh, th = random_problem()
    b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=bits, rule=rule)
    for _ in range(15):
        k, alpha, _ = b.choose()
        rows, x = b.tuples_with(k)
        b.update(rows, x, alpha)
        wp, wm = b.full_statistics()
        np.testing.assert_allclose(b.Wp, wp, rtol=1e-9, atol=1e-13)
        np.testing.assert_allclose(b.Wm, wm, rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("rule", ["exact", "r"])
def test_choice_is_the_full_argmax_every_round(rule, monkeypatch):
    """The lazily refreshed block maxima never hide the best bucket (lowest index on ties)."""
    import clirkit.boost.rounds as rounds

    monkeypatch.setattr(rounds, "_BLOCK", 4)  # many small blocks, so stale blocks occur
    Q, D, t, sh, th = random_problem(seed=5)
    b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=24, rule=rule)
    stale_seen = False
    for _ in range(25):
        gains = b._gains(b.Wp, b.Wm)
        stale_seen |= bool(b._block_stale.any())
        k, alpha, gain = b.choose()
        assert k == int(np.argmax(gains))
        assert gain == pytest.approx(gains.max() / b.wsum, rel=1e-12)
        rows, x = b.tuples_with(k)
        b.update(rows, x, alpha)
    assert stale_seen  # the lazy refresh was exercised


def test_feature_values_equal_brute_force_over_tuples():
    Q, D, t, sh, th = random_problem(seed=3)
    b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=5, rule="exact")
    Qd, Dd = Q.toarray(), D.toarray()
    keys = b.pair_keys
    buckets = pair_buckets(sh, th, keys // D.shape[1], keys % D.shape[1], seed=0, bits=5)
    for k in range(len(b.bucket_ids)):
        pairs = keys[buckets == b.bucket_ids[k]]
        Wk = np.zeros(Q.shape[1] * D.shape[1])
        Wk[pairs] = 1
        Wk = Wk.reshape(Q.shape[1], D.shape[1])
        x = np.einsum("ti,ij,tj->t", Qd[t.query], Wk, Dd[t.pos] - Dd[t.neg])
        rows, xv = b.tuples_with(k)
        np.testing.assert_array_equal(rows, np.flatnonzero(x))
        np.testing.assert_array_equal(xv, x[rows])


@pytest.mark.parametrize("bits", [32, 5])
def test_initial_statistics_equal_brute_force_over_tuples(bits):
    """W+_k = sum_t w_t sum_{(i,j) in bucket k} q_i(t) [j only in d+], likewise W- (bits 32: top bucket bit set)."""
    Q, D, t, sh, th = random_problem(seed=4)
    b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=bits, rule="exact")
    Qd, Dd = Q.toarray(), D.toarray()
    plus = Dd[t.pos] * (1 - Dd[t.neg])
    minus = Dd[t.neg] * (1 - Dd[t.pos])
    w = t.weight / t.weight.sum()
    pair_wp = np.einsum("t,ti,tj->ij", w, Qd[t.query], plus).ravel()
    pair_wm = np.einsum("t,ti,tj->ij", w, Qd[t.query], minus).ravel()
    keys = np.flatnonzero((pair_wp > 0) | (pair_wm > 0))
    np.testing.assert_array_equal(np.sort(b.pair_keys), keys)
    buckets = pair_buckets(sh, th, keys // D.shape[1], keys % D.shape[1], seed=0, bits=bits)
    ids, inv = np.unique(buckets, return_inverse=True)
    np.testing.assert_array_equal(b.bucket_ids, ids)
    np.testing.assert_allclose(b.Wp, np.bincount(inv, pair_wp[keys]), rtol=1e-12)
    np.testing.assert_allclose(b.Wm, np.bincount(inv, pair_wm[keys]), rtol=1e-12)
    if bits == 32:
        assert b.bucket_ids.max() >= 2**31


def test_set_up_in_small_slices_equals_set_up_in_one(monkeypatch):
    """Hashing and scoring the pairs a few at a time changes nothing (pairs grouped by bucket, in key order)."""
    import clirkit.boost.rounds as rounds

    Q, D, t, sh, th = random_problem(seed=6)
    whole = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=5, rule="exact")
    monkeypatch.setattr(rounds, "_HASH_SLICE", 7)
    sliced = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=5, rule="exact")
    assert len(whole.pair_keys) > 10 * 7
    for name in ("pair_keys", "bucket_ids", "bucket_ptr", "Wp", "Wm", "_block_max"):
        np.testing.assert_array_equal(getattr(sliced, name), getattr(whole, name))
    keys = whole.pair_keys
    buckets = pair_buckets(sh, th, keys // D.shape[1], keys % D.shape[1], seed=0, bits=5)
    assert np.all(np.diff(buckets) >= 0)
    for a, b in zip(whole.bucket_ptr[:-1], whole.bucket_ptr[1:]):
        assert np.all(np.diff(keys[a:b]) > 0)


@pytest.mark.parametrize("bits", [24, 5])
def test_a_round_added_in_small_slices_of_pairs_equals_one_slice(bits, monkeypatch):
    """A round's product entries hashed and added a few at a time: the same statistics, gains and rounds (a
    bucket's gain recomputed in a later slice ends as if computed once)."""
    import clirkit.boost.rounds as rounds

    Q, D, t, sh, th = random_problem(seed=8)
    whole = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=bits, rule="exact")
    a = whole.run(15, quiet=True)
    monkeypatch.setattr(rounds, "_ENTRIES_PER_SLICE", 3)
    sliced = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=bits, rule="exact")
    b = sliced.run(15, quiet=True)
    for name in ("buckets", "alphas", "pair_src", "pair_tgt", "loss"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    for name in ("Wp", "Wm", "_block_max", "w"):
        np.testing.assert_array_equal(getattr(sliced, name), getattr(whole, name))


@pytest.mark.parametrize("rule", ["exact", "r"])
@pytest.mark.parametrize("renormalize", [False, True])
def test_gains_made_on_demand_equal_gains_stored_from_the_start(rule, renormalize, monkeypatch):
    """Gains made from W+/W- where they are read (the default from the product) choose the same buckets, with the
    same bits, as every gain stored and kept up to date (as before, and as the compiled rounds of mapped pairs
    keep them), also when each round renormalizes the weights (the stored gains are then divided by the sum,
    which on-demand gains would not reproduce)."""
    import clirkit.boost.pairmap as pairmap
    import clirkit.boost.rounds as rounds

    monkeypatch.setattr(pairmap, "_MAPPED", False)  # the rounds from the product, whose gains are made on demand
    monkeypatch.setattr(rounds, "_BLOCK", 4)
    if renormalize:
        monkeypatch.setattr(rounds, "_WSUM_RANGE", (0.999999, 1.000001))
    Q, D, t, sh, th = random_problem(seed=9)
    lazy = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=6, rule=rule)
    stored = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=6, rule=rule)
    gains = np.full(len(stored._block_max) * 4, -np.inf)
    gains[: len(stored.Wp)] = stored._gains(stored.Wp, stored.Wm)
    stored._gain = gains
    a, b = lazy.run(30, quiet=True), stored.run(30, quiet=True)
    assert (lazy._gain is not None) == renormalize
    for name in ("buckets", "alphas", "pair_src", "pair_tgt", "loss"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    for name in ("Wp", "Wm", "_block_max", "w"):
        np.testing.assert_array_equal(getattr(lazy, name), getattr(stored, name))


@pytest.mark.parametrize("bits", [24, 5])
def test_tuples_boosted_again_with_other_weights_take_the_pair_grouping_from_the_cache(bits):
    """A second beta's booster: the cached grouping (shared, not copied) and every array and round as made afresh."""
    Q, D, t, sh, th = random_problem(seed=7)
    cache = PairCache()
    first = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=bits, rule="exact", cache=cache)
    again = Tuples.from_arrays(t.query, t.pos, t.neg, t.weight * np.exp(-np.random.default_rng(1).random(len(t))))
    fresh = PairBooster(Q, D, again, src_hash=sh, tgt_hash=th, bits=bits, rule="exact")
    cached = PairBooster(Q, D, again, src_hash=sh, tgt_hash=th, bits=bits, rule="exact", cache=cache)
    assert cached.pair_keys is first.pair_keys and cached.index is first.index
    for name in ("pair_keys", "bucket_ids", "bucket_ptr", "Wp", "Wm", "_block_max"):
        np.testing.assert_array_equal(getattr(cached, name), getattr(fresh, name))
    a, b = fresh.run(12, quiet=True), cached.run(12, quiet=True)
    for name in ("buckets", "alphas", "pair_ptr", "pair_src", "pair_tgt", "loss"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    other = PairBooster(
        Q, D, t.subset(np.arange(len(t) // 2)), src_hash=sh, tgt_hash=th, bits=bits, rule="exact", cache=cache
    )
    assert other.pair_keys is not first.pair_keys  # other tuples, other pairs: grouped afresh


@pytest.mark.parametrize("rule", ["exact", "r"])
def test_training_loss_decreases_every_round_and_matches_margins(rule):
    Q, D, t, sh, th = random_problem(seed=1)
    b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=24, rule=rule)
    res = b.run(40, quiet=True)
    assert len(res.loss) == 40
    assert np.all(np.diff(np.concatenate(([1.0], res.loss))) < 0)
    assert res.loss[-1] == pytest.approx(b.training_loss(), rel=1e-9)


def test_margins_equal_phrase_table_scores():
    Q, D, t, sh, th = random_problem(seed=2)
    b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=24, rule="exact")
    res = b.run(25, quiet=True)
    src, tgt, w = res.entries()
    W = sp.coo_matrix((w, (src, tgt)), shape=(Q.shape[1], D.shape[1])).toarray()
    Qd, Dd = Q.toarray(), D.toarray()
    f = lambda q, d: np.einsum("ti,ij,tj->t", Qd[q], W, Dd[d])  # noqa: E731
    np.testing.assert_allclose(b.margin, f(t.query, t.pos) - f(t.query, t.neg), atol=1e-12)


def test_a_feature_can_be_chosen_again():
    qv, dv, b = booster("exact")
    res = b.run(6, quiet=True)
    assert len(set(res.buckets.tolist())) < len(res.buckets)


def test_early_stopping_keeps_the_best_dev_round():
    qv, dv, b = booster("exact")
    scores = iter([0.1, 0.5, 0.3, 0.2])
    res = b.run(4, evaluate=lambda s, t_, w: next(scores), eval_every=1, quiet=True)
    assert res.best_round == 2
    assert res.eval_rounds.tolist() == [1, 2, 3, 4]
    assert res.truncated(res.best_round).alphas.tolist() == res.alphas[:2].tolist()


def test_source_ids_of_any_slice_of_pairs_listed_source_after_source():
    """``_sources(src_ptr, a, b)`` equals the slice ``a:b`` of every pair's source id, empty sources included."""
    from clirkit.boost.pairgroups import _sources

    counts = np.array([0, 3, 0, 0, 1, 2, 0, 5, 0])
    src_ptr = np.concatenate(([0], np.cumsum(counts)))
    every = np.repeat(np.arange(len(counts)), counts)
    for a in range(len(every) + 1):
        for b in range(a, len(every) + 1):
            np.testing.assert_array_equal(_sources(src_ptr, a, b), every[a:b])
