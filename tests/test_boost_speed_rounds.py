"""The pairs mapped once (clirkit.boost.pairmap) and the compiled rounds (clirkit.boost.kernels): every round, and
every model, the same bits as the rounds made from the sparse product; the betas boosted in parallel the same
model as one after the other."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import scipy.sparse as sp

import clirkit.boost.pairmap as pairmap
import clirkit.boost.rounds as rounds
from clirkit.boost import BoostRanker
from clirkit.boost.features import hash_strings
from clirkit.boost.pairgroups import PairCache
from clirkit.boost.rounds import PairBooster
from clirkit.boost.tuples import Tuples
from clirkit.run import Run

needs_numba = pytest.mark.skipif(pairmap.kernels() is None, reason="numba is not installed")
PATHS = ["compiled", "numpy"]  # the mapped pairs' rounds with the kernels, and with their numpy twin


def problem(seed=0, n_queries=30, n_docs=60, n_tuples=400, S=25, T=40, weighted=True):
    """Queries and documents as random sparse rows (documents weighted in (0, 1], as the length weighting makes
    them, or binary), tuples of random queries and documents: most pairs occur in several tuples, with both
    signs."""
    rng = np.random.default_rng(seed)
    Q = sp.random(n_queries, S, density=0.15, random_state=rng, format="csr")
    D = sp.random(n_docs, T, density=0.12, random_state=rng, format="csr")
    Q.data[:] = 1
    D.data[:] = rng.choice([0.25, 0.5, 1.0], D.nnz) if weighted else 1
    q = rng.integers(0, n_queries, n_tuples)
    p = rng.integers(0, n_docs, n_tuples)
    n = (p + 1 + rng.integers(0, n_docs - 1, n_tuples)) % n_docs
    t = Tuples.from_arrays(q, p, n, rng.integers(1, 3, n_tuples) * np.exp(-rng.random(n_tuples)))
    return Q, D, t, hash_strings([f"s{i}" for i in range(S)], 0), hash_strings([f"t{j}" for j in range(T)], 0)


def boosted(monkeypatch, path, problem_args, rounds_n=40, **kw):
    """``(booster, result)``: ``rounds_n`` rounds on ``path``: "product" (the rounds from the sparse product),
    "compiled" or "numpy" (from the pair map)."""
    with monkeypatch.context() as m:
        m.setattr(pairmap, "_MAPPED", path != "product")
        if path == "numpy":
            m.setattr(pairmap.COMPILED, "off", True)
        Q, D, t, sh, th = problem(**problem_args)
        b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, **kw)
        assert (b._map is not None) == (path != "product")
        return b, b.run(rounds_n, quiet=True)


def assert_same(a, b):
    (ba, ra), (bb, rb) = a, b
    for name in ("buckets", "alphas", "pair_ptr", "pair_src", "pair_tgt", "loss"):
        np.testing.assert_array_equal(getattr(ra, name), getattr(rb, name))
    for name in ("Wp", "Wm", "_block_max", "_block_stale", "w", "margin"):
        np.testing.assert_array_equal(getattr(ba, name), getattr(bb, name))
    assert ba.wsum == bb.wsum and ba.loss == bb.loss


@pytest.mark.parametrize("path", [pytest.param("compiled", marks=needs_numba), "numpy"])
@pytest.mark.parametrize("rule", ["exact", "r"])
@pytest.mark.parametrize("bits, weighted", [(24, True), (24, False), (5, True), (3, False)])
def test_rounds_of_the_mapped_pairs_are_the_products_bit_for_bit(monkeypatch, path, rule, bits, weighted):
    """W+/W- summed pair by pair in the product's order (a bucket of several pairs, at 2**5 or 2**3 buckets, adds
    its pairs' sums in the order scipy lists them), the gains stored and the block maxima as the product's rounds
    leave them: the same buckets, steps, losses and weights."""
    monkeypatch.setattr(rounds, "_BLOCK", 4)  # many blocks, so some go stale
    args = {"seed": bits, "weighted": weighted}
    assert_same(
        boosted(monkeypatch, "product", args, bits=bits, rule=rule),
        boosted(monkeypatch, path, args, bits=bits, rule=rule),
    )


@pytest.mark.parametrize("path", [pytest.param("compiled", marks=needs_numba), "numpy"])
def test_mapped_rounds_in_several_chunks_and_renormalized_are_the_products(monkeypatch, path):
    """A round's changed tuples taken in chunks (each chunk's sums added before the next), and the weights
    divided by their sum every round (the stored gains divided with them): the same bits."""
    monkeypatch.setattr(rounds, "_PAIRS_PER_CHUNK", 50)
    monkeypatch.setattr(rounds, "_WSUM_RANGE", (0.999999, 1.000001))
    args = {"seed": 4}
    assert_same(boosted(monkeypatch, "product", args, bits=6), boosted(monkeypatch, path, args, bits=6))


@needs_numba
@pytest.mark.parametrize("weighted", [True, False])
def test_the_compiled_map_is_numpys(monkeypatch, weighted):
    """The tuples' deltas, target lists and table made by the compiled loops are numpy's, array for array."""
    from clirkit.boost.pairmap import PairMap

    Q, D, t, _, _ = problem(seed=5, weighted=weighted)
    Q, D = sp.csr_matrix(Q, dtype=np.float64), sp.csr_matrix(D, dtype=np.float64)
    compiled = PairMap.build(Q, D, t)
    monkeypatch.setattr(pairmap.COMPILED, "off", True)
    numpy = PairMap.build(Q, D, t)
    for name in ("query", "qptr", "qsrc", "dptr", "dcol", "du", "dval", "qb", "nu", "code", "src_ptr", "tgt"):
        a, b = getattr(compiled, name), getattr(numpy, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert compiled.n_pairs == numpy.n_pairs > 0


@needs_numba
def test_compiled_and_numpy_code_sums_and_tuples_with_agree(monkeypatch):
    """The set-up's sums of every pair and the tuples of a bucket of several pairs, compiled and with numpy."""
    monkeypatch.setattr(pairmap, "_MAPPED", True)
    Q, D, t, sh, th = problem(seed=3)
    b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=4)
    compiled = b._map.code_sums(b.w)
    shared = int(np.argmax(np.diff(b.bucket_ptr)))
    assert np.diff(b.bucket_ptr)[shared] > 1
    rows, x = b.tuples_with(shared)
    monkeypatch.setattr(pairmap.COMPILED, "off", True)
    for c, n in zip(compiled, b._map.code_sums(b.w)):
        np.testing.assert_array_equal(c, n)
    numpy_rows, numpy_x = b.tuples_with(shared)
    np.testing.assert_array_equal(rows, numpy_rows)
    np.testing.assert_array_equal(x, numpy_x)


def test_boosters_of_the_same_tuples_share_one_map(monkeypatch):
    """The betas' boosters (other weights, the same tuples) take the map made for the first from the cache."""
    monkeypatch.setattr(pairmap, "_MAPPED", True)
    Q, D, t, sh, th = problem(seed=7)
    cache = PairCache()
    first = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=24, cache=cache)
    again = Tuples.from_arrays(t.query, t.pos, t.neg, t.weight * np.exp(-np.random.default_rng(1).random(len(t))))
    cached = PairBooster(Q, D, again, src_hash=sh, tgt_hash=th, bits=24, cache=cache)
    fresh = PairBooster(Q, D, again, src_hash=sh, tgt_hash=th, bits=24)
    assert cached._map is first._map and fresh._map is not first._map
    assert_same((fresh, fresh.run(20, quiet=True)), (cached, cached.run(20, quiet=True)))


def test_tuples_with_more_pair_occurrences_than_the_limit_are_boosted_from_the_product(monkeypatch):
    monkeypatch.setattr(pairmap, "_MAPPED", True)
    monkeypatch.setattr(pairmap, "MAP_LIMIT", 100)
    Q, D, t, sh, th = problem(seed=2)
    assert PairBooster(Q, D, t, src_hash=sh, tgt_hash=th)._map is None


# -- the ranker: the map and the compiled rounds, and the betas in parallel, give the same model ---------------


def base_problem(mini):
    """The mini collection's train and dev queries, tokenized, a base run over them (the judged verses and some
    others, with seeded scores)."""
    from clirkit import datasets
    from clirkit.analysis import Analyzer

    c = datasets.load(str(mini))
    src, tgt = Analyzer(c.source_lang), Analyzer(c.target_lang)
    docids, texts = c.documents()
    train, dev = c.queries("train"), c.queries("dev")
    tokens = {
        split: dict(zip(qs, src.tokenize_many(list(qs.values())))) for split, qs in (("train", train), ("dev", dev))
    }
    rng = np.random.default_rng(0)
    qids, docs, scores = [], [], []
    for split in ("train", "dev"):
        judged = c.qrels(split)
        for q in tokens[split]:
            listed = sorted(set(judged.docids[judged.qids == q].tolist()) | set(rng.choice(docids, 40).tolist()))
            qids += [q] * len(listed)
            docs += listed
            scores += sorted(rng.random(len(listed)) * 10, reverse=True)
    base = Run(qids, docs, scores, tag="base")
    return (tokens["train"], c.qrels("train"), docids, tgt.tokenize_many(texts)), tokens["dev"], c.qrels("dev"), base


def model_bytes(tmp_path, name, ranker, data, dev_queries, dev_qrels):
    ranker.fit_tokens(*data, dev_queries=dev_queries, dev_qrels=dev_qrels)
    path = tmp_path / f"{name}.npz"
    ranker.save(path)
    return hashlib.sha256(path.read_bytes()).hexdigest(), ranker


@pytest.mark.parametrize(
    "path, jobs, backend",
    [
        pytest.param("compiled", 1, "loky", marks=needs_numba),
        ("numpy", 1, "loky"),
        pytest.param("compiled", 2, "loky", marks=needs_numba),
        ("product", 2, "threading"),
    ],
)
def test_a_ranker_boosted_from_a_base_is_the_same_model_mapped_compiled_and_with_its_betas_in_parallel(
    monkeypatch, tmp_path, mini, path, jobs, backend
):
    """The model file of a ranker tuning beta on dev (4 betas, 60 rounds, dev MAP every 10) is the same bytes
    from the product's rounds one beta after the other, from the mapped pairs (compiled or numpy), and with the
    betas boosted by 2 workers."""
    data, dev_queries, dev_qrels, base = base_problem(mini)
    params = {
        "base": base,
        "rounds": 60,
        "eval_every": 10,
        "max_df": 0.3,
        "bits": 16,
        "quiet": True,
        "significance": None,
    }  # the rounds kept whatever the dev queries say: the same bytes to compare
    monkeypatch.setattr(pairmap, "_MAPPED", False)
    reference, r = model_bytes(tmp_path, "product", BoostRanker.from_flat(**params), data, dev_queries, dev_qrels)
    assert len(r.beta_scores_) == 4 and r.model_.params["bag_rounds"][0] > 0
    monkeypatch.setattr(pairmap, "_MAPPED", path != "product")
    if path == "numpy":
        monkeypatch.setattr(pairmap.COMPILED, "off", True)
    digest, _ = model_bytes(
        tmp_path, path, BoostRanker.from_flat(jobs=jobs, backend=backend, **params), data, dev_queries, dev_qrels
    )
    assert digest == reference


def test_an_experiment_gives_its_jobs_to_a_ranker_with_bags_or_betas_to_try():
    """The demo's PSQ-Boost (a base, beta tuned) tries its betas with the experiment's jobs; one bag boosted
    standalone or with a given beta has nothing to run in parallel."""
    from types import SimpleNamespace

    resources = SimpleNamespace(source_lang="en", target_lang="es", seed=0, quiet=True, jobs=2)
    assert BoostRanker.params_from(resources, {"base": "PSQ"})["jobs"] == 2
    assert BoostRanker.params_from(resources, {"bags": 4})["jobs"] == 2
    assert BoostRanker.params_from(resources, {"base": "PSQ", "beta": 5.0})["jobs"] == 1
    assert BoostRanker.params_from(resources, {})["jobs"] == 1


@pytest.mark.parametrize("rule", ["exact", "r"])
@pytest.mark.parametrize("bits, weighted, slice_entries", [(24, True, 1 << 20), (5, False, 7), (3, True, 3)])
def test_product_rounds_with_w_plus_and_minus_side_by_side_are_those_kept_apart(
    monkeypatch, rule, bits, weighted, slice_entries
):
    """The rounds from the product keep W+ and W- in one (buckets x 2) array up to ``_SIDE_BY_SIDE`` buckets and
    the tuples' differences from the set-up (up to ``_KEPT_DIFFS`` entries and ``_SIDE_BY_SIDE`` pairs), else W+
    and W- in two arrays and each round's differences made from the documents' rows; a slice's sources come
    from the product's row pointers: the same bits every way, with a round's entries in one slice or in many."""
    monkeypatch.setattr(rounds, "_ENTRIES_PER_SLICE", slice_entries)
    args = {"seed": 3, "weighted": weighted}
    together = boosted(monkeypatch, "product", args, rule=rule, bits=bits)
    assert together[0].Wp.base is not None and together[0].Wp.base is together[0].Wm.base
    assert together[0]._signed is not None
    monkeypatch.setattr(rounds, "_SIDE_BY_SIDE", 0)  # many pairs and buckets: apart, the differences let go
    apart = boosted(monkeypatch, "product", args, rule=rule, bits=bits)
    assert apart[0].Wp.base is None and apart[0].Wm.base is None and apart[0]._signed is None
    assert_same(together, apart)
    monkeypatch.setattr(rounds, "_SIDE_BY_SIDE", 1 << 25)
    monkeypatch.setattr(rounds, "_KEPT_DIFFS", 0)  # long document rows: the differences never kept
    unkept = boosted(monkeypatch, "product", args, rule=rule, bits=bits)
    assert unkept[0]._signed is None and unkept[0].Wp.base is not None
    assert_same(together, unkept)


@pytest.mark.parametrize(
    "n, jobs, backend, expected",
    [
        (4, 2, "loky", [[0, 1], [2, 3]]),
        (5, 2, "loky", [[0, 1], [2, 3, 4]]),
        (3, 8, "loky", [[0], [1], [2]]),
        (4, 1, "threading", [[0, 1, 2, 3]]),
        (2, 4, "dask", [[0], [1]]),
    ],
)
def test_the_betas_go_to_as_many_tasks_as_workers_in_order(n, jobs, backend, expected, monkeypatch):
    """A worker boosts a group of consecutive betas (making the pairs' grouping once for them); dask's workers
    are the cluster's, so one beta a task there. (On a machine of 16 cores: at most one worker a core.)"""
    from clirkit import parallel
    from clirkit.boost.bagging import worker_groups

    monkeypatch.setattr(parallel, "cores", lambda: 16)
    assert [list(group) for group in worker_groups(n, jobs, backend)] == expected
    assert [list(group) for group in worker_groups(n, -1, "loky")][0][0] == 0


def test_the_betas_go_to_at_most_one_worker_a_core(monkeypatch):
    from clirkit import parallel
    from clirkit.boost.bagging import worker_groups

    monkeypatch.setattr(parallel, "cores", lambda: 2)
    assert [list(group) for group in worker_groups(3, 8, "loky")] == [[0], [1, 2]]
