"""Bagging: S bags of tuples boosted independently (:mod:`clirkit.parallel`), then averaged.

Bag ``s`` is a sample of the tuples drawn with ``numpy.random.default_rng([seed, s])``,
so its content depends only on (seed, s), never on which worker runs it or on
how many workers there are. Bags run through :func:`clirkit.parallel.run_tasks`
(joblib's ``loky`` processes or ``threading``, or ``dask``); results come back in
bag order, so the averaged model is byte-identical across backends.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.boost.budget import MAX_BUCKETS
from clirkit.boost.pairgroups import PairCache
from clirkit.boost.result import BoostResult
from clirkit.boost.rounds import PairBooster
from clirkit.boost.scoring import DevEvaluator
from clirkit.boost.tuples import Tuples
from clirkit.errors import ClirkitError
from clirkit.parallel import check_backend, run_tasks


@dataclass
class BoostData:
    """Everything a bag needs, as arrays (shipped to workers; joblib memory-maps large arrays).

    Attributes:
        Qm: training queries x S binary CSR; Dm: documents x T binary CSR.
        tuples: all training tuples (sorted by query).
        src_hash, tgt_hash: uint32 MurmurHash3 of each n-gram string.
        dev: dev-set evaluator for early stopping, or None.
        pair_cache: where the pairs' grouping by bucket is kept when the same tuples are boosted again with
            other weights (the betas of a ranker boosted from a base), or None.
    """

    Qm: sp.csr_matrix
    Dm: sp.csr_matrix
    tuples: Tuples
    src_hash: np.ndarray
    tgt_hash: np.ndarray
    dev: DevEvaluator | None = None
    pair_cache: PairCache | None = None


@dataclass(frozen=True)
class BoostParams:
    """Boosting hyper-parameters shared by every bag (see :class:`clirkit.boost.BoostRanker`)."""

    rounds: int = 6000
    rule: str = "exact"
    bits: int = 30
    hash_seed: int = 0
    eps: float | None = None
    eval_every: int = 100
    patience: int = 0
    significance: float | None = 0.05  # None or 0: the rounds early stopping chose, even below a base
    max_buckets: int | None = MAX_BUCKETS  # None: every non-empty bucket gets W+/W-

    @classmethod
    def of(cls, params: Mapping) -> "BoostParams":
        """The boosting hyper-parameters among ``params`` (e.g. a ranker's ``get_params()``)."""
        return cls(**{f.name: params[f.name] for f in fields(cls)})


def bag_rows(n: int, bag: int, *, seed: int, fraction: float = 1.0, replace: bool = False) -> np.ndarray:
    """Sorted tuple rows of bag ``bag``: all rows when ``fraction >= 1`` without replacement,
    else ``round(fraction * n)`` rows drawn with ``default_rng([seed, bag])``."""
    if fraction <= 0:
        raise ClirkitError(f"bag fraction must be > 0, got {fraction}")
    if fraction >= 1.0 and not replace:
        return np.arange(n, dtype=np.int64)
    rng = np.random.default_rng([seed, bag])
    size = max(1, int(round(fraction * n)))
    if not replace and size > n:
        size = n
    return np.sort(rng.choice(n, size=size, replace=replace)).astype(np.int64)


def train_bag(
    data: BoostData, params: BoostParams, rows: np.ndarray, *, quiet: bool = True, desc: str = "boosting"
) -> BoostResult:
    """Boost on the tuples ``rows`` and keep the rounds up to the best dev MAP; boosted from a base ranker (and a
    ``significance`` set), none when the base alone (no round) scores at least as well on dev: the ranker is then
    the base."""
    booster = PairBooster(
        data.Qm,
        data.Dm,
        data.tuples.subset(rows),
        src_hash=data.src_hash,
        tgt_hash=data.tgt_hash,
        hash_seed=params.hash_seed,
        bits=params.bits,
        rule=params.rule,
        eps=params.eps,
        cache=data.pair_cache,
        max_buckets=params.max_buckets,
    )
    result = booster.run(
        params.rounds, evaluate=data.dev, eval_every=params.eval_every, patience=params.patience, quiet=quiet, desc=desc
    )
    if params.significance and getattr(data.dev, "from_base", False) and len(result.eval_scores):
        nothing = np.zeros(0, np.int64)
        if data.dev(nothing, nothing, np.zeros(0)) >= result.eval_scores.max() and result.best_round:
            return _not_kept(result, "the base alone scores at least as well on dev")
    return result.truncated(result.best_round)


def warm_kernels() -> None:
    """Call the compiled kernels a bag's set-up, rounds and dev ranking call, once each on a bag of two tuples:
    numba reads each from its cache at its first call in a process (0.5-0.6 s in all), which a worker that will
    boost bags then pays while the tuples are made (:func:`clirkit.parallel.workers_started`)."""
    from clirkit.boost.scoring import top_k

    Qm = sp.csr_matrix(np.eye(2))
    Dm = sp.csr_matrix(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]))
    tuples = Tuples.from_arrays(np.array([0, 1]), np.array([0, 1]), np.array([1, 2]))
    data = BoostData(Qm, Dm, tuples, np.array([1, 2], np.uint32), np.array([3, 4, 5], np.uint32))
    train_bag(data, BoostParams(rounds=2, bits=12, significance=None), np.arange(2, dtype=np.int64))
    W = sp.csr_matrix(np.ones((2, 3)))
    list(top_k(Qm, W, Dm.T.tocsr(), np.arange(3, dtype=np.int64), depth=2))


def _not_kept(result: BoostResult, why: str) -> BoostResult:
    """``result`` cut to no round, saying in its ``info`` how many rounds dev had chosen and ``why`` none is kept
    (recorded in the model: :func:`clirkit.boost.training.model_record`)."""
    cut = result.truncated(0)
    cut.info["not_kept"] = {"rounds": int(result.best_round), "why": why}
    return cut


def train_bags(
    data: BoostData,
    params: BoostParams,
    *,
    bags: int = 1,
    fraction: float = 1.0,
    replace: bool = False,
    seed: int = 0,
    jobs: int = 1,
    backend: str = "loky",
    scheduler=None,
    quiet: bool = False,
) -> list[BoostResult]:
    """Train ``bags`` bags and return their results in bag order.

    Args:
        jobs, backend, scheduler: how the bags run (:func:`clirkit.parallel.run_tasks`: joblib workers,
            ``"loky"``, ``"threading"`` or ``"dask"``, and for dask the scheduler address or a
            ``distributed.Client``). One bag runs here, with its rounds' progress, unless on dask.
    """
    if bags < 1:
        raise ClirkitError(f"need at least 1 bag, got {bags}")
    check_backend(backend)
    n = len(data.tuples)
    row_sets = [bag_rows(n, s, seed=seed, fraction=fraction, replace=replace) for s in range(bags)]
    if bags == 1 and (jobs == 1 or backend != "dask"):
        return [train_bag(data, params, row_sets[0], quiet=quiet)]
    groups = worker_groups(bags, jobs, backend)
    tasks = [(train_bags_each, (data, params, [row_sets[s] for s in group]), {}) for group in groups]
    done = run_tasks(tasks, jobs=jobs, backend=backend, scheduler=scheduler, desc="bags", unit="worker", quiet=quiet)
    return [result for results in done for result in results]


def train_bags_each(data: BoostData, params: BoostParams, row_sets: Sequence[np.ndarray]) -> list[BoostResult]:
    """:func:`train_bag` of each of ``row_sets`` in turn, in one task: a worker is sent the data once for all
    its bags."""
    return [train_bag(data, params, rows, quiet=True) for rows in row_sets]


def boost_scored(
    data: BoostData, params: BoostParams, *, fraction: float = 1.0, replace: bool = False, seed: int = 0
) -> tuple[list[BoostResult], float | None]:
    """One bag (:func:`train_bags`, here, without progress) and its dev MAP (None without ``data.dev``): the task
    of one beta when a ranker boosted from a base tries its betas in parallel."""
    results = train_bags(data, params, bags=1, fraction=fraction, replace=replace, seed=seed, quiet=True)
    return results, bagged_dev_score(results, data.dev) if data.dev is not None else None


def boost_scored_each(data: Sequence[BoostData], params: BoostParams, **kwargs) -> list:
    """:func:`boost_scored` of each of ``data`` in turn, in one task: betas boosting the same tuples take the
    pairs' grouping the first made from their shared :class:`~clirkit.boost.rounds.PairCache` (shipped once, as
    one object, with the task)."""
    return [boost_scored(d, params, **kwargs) for d in data]


def worker_groups(n: int, jobs: int, backend: str) -> list[range]:
    """The tasks ``0..n-1`` (bags, betas) in consecutive groups, one task each: as many groups as workers
    (:func:`clirkit.parallel.processes` of ``jobs``: -1 for one a core, at most one a core), so that a worker is
    sent the data once (and makes the pairs' grouping once for its betas); one a group on dask, whose workers are
    the cluster's."""
    if backend == "dask":
        return [range(i, i + 1) for i in range(n)]
    from clirkit.parallel import processes

    k = max(1, min(n, processes(jobs)))
    cuts = [n * i // k for i in range(k + 1)]
    return [range(a, b) for a, b in zip(cuts[:-1], cuts[1:])]


def bagged_dev_score(results: list[BoostResult], dev) -> float:
    """Dev MAP (``dev``: the evaluator of :attr:`BoostData.dev`) of the bag-averaged model made of ``results``
    (each cut to its kept rounds); a single bag's is the evaluation it was kept at (none for no round kept: the
    base alone is evaluated)."""
    if len(results) == 1 and np.any(results[0].eval_rounds == results[0].best_round):
        r = results[0]
        return float(r.eval_scores[r.eval_rounds == r.best_round][0])
    entries = [r.entries() for r in results]
    src = np.concatenate([e[0] for e in entries])
    tgt = np.concatenate([e[1] for e in entries])
    wts = np.concatenate([e[2] for e in entries]) / len(results)
    return dev(src, tgt, wts)


def kept_if_significant(results: list[BoostResult], dev, level: float, *, seed: int = 0) -> list[BoostResult]:
    """``results`` (the bags of the beta kept), or each cut to no round when the model they make is not
    significantly above the base alone on the dev queries of ``dev`` (a :class:`~clirkit.boost.scoring.
    RerankEvaluator`): the per-query AP of both, two-sided paired randomization test (10,000 sign flips,
    ``seed``) at ``level``, and a positive mean difference. A gain the dev queries cannot tell from
    noise is not kept: the ranker is then the base (the same dev queries chose the rounds and beta, so the test
    is a guard, not an estimate)."""
    from clirkit.significance import randomization_test

    if not any(r.best_round for r in results):
        return results
    entries = [r.entries() for r in results]
    boosted = dev.per_query(
        np.concatenate([e[0] for e in entries]),
        np.concatenate([e[1] for e in entries]),
        np.concatenate([e[2] for e in entries]) / len(results),
    )
    nothing = np.zeros(0, np.int64)
    base = dev.per_query(nothing, nothing, np.zeros(0))
    if boosted.mean() <= base.mean():
        return [_not_kept(r, "the boosted model is not above the base on dev") for r in results]
    p = randomization_test(base, boosted, seed=seed).p_value
    if p < level:
        return results
    why = f"not significantly above the base on dev (p = {p:.3g}, level {level:g})"
    return [_not_kept(r, why) for r in results]
