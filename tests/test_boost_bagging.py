"""Bagging: one bag of all tuples is plain boosting; every backend gives the same bags."""

from __future__ import annotations

import numpy as np
import pytest
from test_boost_rounds import random_problem

from clirkit.analysis import Analyzer
from clirkit.boost import Bagging
from clirkit.boost.bagging import BoostData, BoostParams, bag_rows, train_bags
from clirkit.boost.model import BoostModel
from clirkit.boost.rounds import PairBooster


def data():
    Q, D, t, sh, th = random_problem(seed=4, n_tuples=400)
    return BoostData(Q, D, t, sh, th)


def same(a, b):
    for name in ("buckets", "alphas", "pair_ptr", "pair_src", "pair_tgt", "loss"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_one_bag_without_sampling_equals_plain_boosting():
    d = data()
    params = BoostParams(rounds=12, bits=20)
    [bagged] = train_bags(d, params, bags=1, fraction=1.0, seed=9, quiet=True)
    plain = PairBooster(d.Qm, d.Dm, d.tuples, src_hash=d.src_hash, tgt_hash=d.tgt_hash, bits=20).run(12, quiet=True)
    same(bagged, plain)


def test_bag_rows_depend_only_on_seed_and_bag_index():
    a = bag_rows(1000, 3, seed=1, fraction=0.5)
    assert np.array_equal(a, bag_rows(1000, 3, seed=1, fraction=0.5))
    assert not np.array_equal(a, bag_rows(1000, 2, seed=1, fraction=0.5))
    assert len(a) == 500 and np.all(np.diff(a) > 0)
    assert np.array_equal(bag_rows(10, 0, seed=1), np.arange(10))


def test_model_is_the_average_of_the_bag_models():
    d = data()
    results = train_bags(
        d, BoostParams(rounds=5, bits=20), bags=2, fraction=0.6, seed=2, jobs=1, backend="threading", quiet=True
    )
    names_s = [f"s{i}" for i in range(d.Qm.shape[1])]
    names_t = [f"t{j}" for j in range(d.Dm.shape[1])]
    model = BoostModel.from_results(
        results, names_s, names_t, ngram=1, source_analyzer=Analyzer("en"), target_analyzer=Analyzer("es")
    )
    expected = {}
    for r in results:
        for s, t, w in zip(*r.entries()):
            expected[(names_s[s], names_t[t])] = expected.get((names_s[s], names_t[t]), 0.0) + w / 2
    coo = model.W.tocoo()
    got = {(model.src_terms[i], model.tgt_terms[j]): v for i, j, v in zip(coo.row, coo.col, coo.data)}
    assert got.keys() == expected.keys()
    for k in got:
        assert got[k] == pytest.approx(expected[k], rel=1e-12)


def test_loky_threading_and_dask_give_identical_bags():
    d = data()
    params = BoostParams(rounds=8, bits=20)
    kw = dict(bags=3, fraction=0.7, seed=5, quiet=True)
    loky1 = train_bags(d, params, jobs=1, backend="loky", **kw)
    loky2 = train_bags(d, params, jobs=2, backend="loky", **kw)
    threads = train_bags(d, params, jobs=2, backend="threading", **kw)
    runs = [loky2, threads]
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        runs.append(train_bags(d, params, backend="dask", scheduler=client, **kw))
    for other in runs:
        assert len(other) == 3
        for a, b in zip(loky1, other):
            same(a, b)
    assert not np.array_equal(loky1[0].buckets, loky1[1].buckets)


@pytest.mark.parametrize("extra", [{}, {"bag_fraction": 1.0}])
def test_several_bags_that_would_all_be_the_same_are_refused_before_any_work(extra, tmp_path, capsys):
    from clirkit.boost import BoostRanker
    from clirkit.cli import main
    from clirkit.errors import ClirkitError

    with pytest.raises(ClirkitError, match="would all be the same bag"):
        BoostRanker.from_flat(bags=3, **extra).check_params()
    BoostRanker(bagging=Bagging(bags=3, bag_fraction=0.5)).check_params()
    BoostRanker(bagging=Bagging(bags=3, bootstrap=True)).check_params()
    BoostRanker(bagging=Bagging(bags=1)).check_params()
    assert main(["boost-train", "--collection", "nave-en-es", "--bags", "4", "-o", str(tmp_path / "m.npz"), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--bag-fraction" in err[0] and not (tmp_path / "m.npz").exists()
