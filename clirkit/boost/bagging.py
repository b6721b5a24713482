"""Bagging: S bags of tuples boosted independently through joblib, then averaged.

Bag ``s`` is a sample of the tuples drawn with ``numpy.random.default_rng([seed, s])``,
so its content depends only on (seed, s), never on which worker runs it or on
how many workers there are. Bags run through ``joblib.Parallel`` with the
``loky`` (processes), ``threading`` or ``dask`` backend; results come back in
bag order, so the averaged model is byte-identical across backends.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from clirkit.boost.rounds import BoostResult, PairBooster, PairCache
from clirkit.boost.scoring import DevEvaluator
from clirkit.boost.tuples import Tuples
from clirkit.errors import ClirkitError

BACKENDS = ("loky", "threading", "dask")


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

    rounds: int = 1000
    rule: str = "exact"
    bits: int = 30
    hash_seed: int = 0
    eps: float | None = None
    eval_every: int = 50
    patience: int = 0


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


def train_bag(data: BoostData, params: BoostParams, rows: np.ndarray, *, quiet: bool = True,
              desc: str = "boosting") -> BoostResult:
    """Boost on the tuples ``rows`` and keep the rounds up to the best dev MAP."""
    booster = PairBooster(data.Qm, data.Dm, data.tuples.subset(rows), src_hash=data.src_hash,
                          tgt_hash=data.tgt_hash, hash_seed=params.hash_seed, bits=params.bits,
                          rule=params.rule, eps=params.eps, cache=data.pair_cache)
    result = booster.run(params.rounds, evaluate=data.dev, eval_every=params.eval_every,
                         patience=params.patience, quiet=quiet, desc=desc)
    return result.truncated(result.best_round)


def train_bags(data: BoostData, params: BoostParams, *, bags: int = 1, fraction: float = 1.0,
               replace: bool = False, seed: int = 0, jobs: int = 1, backend: str = "loky",
               scheduler=None, quiet: bool = False) -> list[BoostResult]:
    """Train ``bags`` bags and return their results in bag order.

    Args:
        jobs: parallel workers (joblib ``n_jobs``; ignored by the dask backend,
            which uses the cluster's workers).
        backend: ``"loky"``, ``"threading"`` or ``"dask"``.
        scheduler: for dask, the scheduler address (``"tcp://host:8786"``) or a
            ``distributed.Client``; required with the dask backend.
    """
    if bags < 1:
        raise ClirkitError(f"need at least 1 bag, got {bags}")
    if backend not in BACKENDS:
        raise ClirkitError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    n = len(data.tuples)
    row_sets = [bag_rows(n, s, seed=seed, fraction=fraction, replace=replace) for s in range(bags)]
    if bags == 1 and (jobs == 1 or backend != "dask"):
        return [train_bag(data, params, row_sets[0], quiet=quiet)]
    from joblib import Parallel, delayed

    tasks = [delayed(train_bag)(data, params, rows, quiet=True, desc=f"bag {s + 1}")
             for s, rows in enumerate(row_sets)]
    if backend == "dask":
        return _run_dask(tasks, scheduler, quiet)
    from clirkit.progress import progress

    runner = Parallel(n_jobs=jobs, backend=backend, return_as="generator")
    return list(progress(runner(tasks), desc="bags", total=bags, quiet=quiet, unit="bag"))


def _run_dask(tasks, scheduler, quiet: bool) -> list[BoostResult]:
    try:
        from dask.distributed import Client
    except ImportError:
        raise ClirkitError("the dask backend needs the optional extra: pip install 'clirkit[dask]'") from None
    from joblib import Parallel, parallel_config

    if scheduler is None:
        raise ClirkitError("the dask backend needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    own = isinstance(scheduler, str)
    try:
        client = Client(scheduler, set_as_default=False) if own else scheduler
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClirkitError(f"cannot reach the dask scheduler at {scheduler}: {exc}") from None
    try:
        with parallel_config(backend="dask", client=client):
            return list(Parallel()(tasks))
    finally:
        if own:
            client.close()
