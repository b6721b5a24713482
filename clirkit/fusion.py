"""Rank aggregation: interpolation of sum-normalized scores, Borda count, kappa search.

All functions take and return :class:`clirkit.run.Run` objects. The rows of
all input runs are aligned on integer (query, document) codes (ids grouped by
a verified 64-bit hash, then one ``np.unique`` over the combined codes);
per-query sums, minima and maxima are ``bincount``/``reduceat`` segment
reductions, and the output is one integer ``lexsort``: nothing is looped per
document.

Interpolation follows SPEC §6 exactly::

    f_agg(q, d) = sum_i w_i * t_i(q, d) / sum_{d' in list_i(q)} t_i(q, d')

where ``t_i`` is run i's score after its per-query transform (``none``: the
score itself, ``shift``: score minus the query's minimum, ``minmax``: (score
- min) / (max - min)), the sum runs over run i's retrieved list for q (its top
``depth`` rows), and a document missing from list i gets 0 there. With two
runs and ``kappa``, the weights are ``(kappa, 1 - kappa)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run

TRANSFORMS = ("none", "shift", "minmax")


@dataclass(frozen=True)
class _Aligned:
    """All runs' rows on a common index of (query, document) pairs.

    ``pair[i]`` maps the rows of run i to pair numbers and ``row_query[i]``
    to query codes; pair p is query ``uq[pair_q[p]]``, document
    ``ud[pair_d[p]]``. ``uq``/``ud`` are sorted, so code order is id order;
    ``query_rank`` gives each query code's position in first-appearance order.
    """

    runs: list[Run]
    pair: list[np.ndarray]
    row_query: list[np.ndarray]
    pair_q: np.ndarray
    pair_d: np.ndarray
    uq: np.ndarray
    ud: np.ndarray
    query_rank: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.uq)

    def ranked(self, scores: np.ndarray, depth: int, tag: str) -> Run:
        """The pairs as a run: queries in first-appearance order, score descending, ties docid ascending."""
        # pairs are numbered in (query, docid) order and lexsort is stable: equal scores keep docid order
        order = np.lexsort((-scores, self.query_rank[self.pair_q]))
        q = self.pair_q[order]
        starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if len(q) else np.zeros(0, dtype=np.int64)
        rank = np.arange(len(q)) - np.repeat(starts, np.diff(np.r_[starts, len(q)]))
        keep = order[rank < depth]
        return Run(self.uq[self.pair_q[keep]], self.ud[self.pair_d[keep]], scores[keep], tag=tag)


def _string_hash(values: np.ndarray) -> np.ndarray:
    """A 64-bit polynomial hash of each string of one unicode array (over its code points and padding)."""
    width = values.dtype.itemsize // 4
    chars = values.view(np.uint32).reshape(len(values), width).astype(np.uint64)
    h = np.zeros(len(values), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(width):
            h = h * np.uint64(0x100000001B3) + chars[:, j] * np.uint64(0x9E3779B97F4A7C15) + np.uint64(j + 1)
            h ^= h >> np.uint64(29)
    return h


def _factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sorted uniques, code of each value, first-appearance rank of each unique)``.

    Groups equal strings by a 64-bit hash (one integer sort instead of a
    string sort of every row), checks that every member of a group equals
    its representative, and falls back to ``np.unique`` on a collision.
    """
    values = np.ascontiguousarray(values if values.dtype.kind == "U" else values.astype(str))
    if len(values) == 0:
        return values, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(_string_hash(values), return_index=True, return_inverse=True)
    reps = values[first]
    if not np.array_equal(reps[inverse], values):
        _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        reps = values[first]
    order = np.argsort(reps, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    appearance = np.empty(len(order), dtype=np.int64)
    appearance[rank[np.argsort(first, kind="stable")]] = np.arange(len(order))
    return reps[order], rank[inverse], appearance


def _align(runs: Sequence[Run], depth: int | None) -> _Aligned:
    if len(runs) == 0:
        raise ClirkitError("aggregation needs at least one run")
    cut = [run.top(depth) if depth is not None else run for run in runs]
    # a run's rows are grouped by query: factorize one id per group, then repeat it over the group
    starts = [_segment_starts(r) for r in cut]
    heads = np.concatenate([r.qids[s] for r, s in zip(cut, starts)])
    sizes = np.concatenate([np.diff(np.append(s, len(r))) for r, s in zip(cut, starts)])
    uq, head_code, query_rank = _factorize(heads)
    qinv = np.repeat(head_code, sizes)
    docids = np.concatenate([r.docids for r in cut])
    ud, dinv, _ = _factorize(docids)
    width = max(len(ud), 1)
    ukey, kinv = np.unique(qinv.astype(np.int64) * width + dinv, return_inverse=True)
    bounds = np.cumsum([0] + [len(r) for r in cut])
    pair = [kinv[bounds[i]:bounds[i + 1]] for i in range(len(cut))]
    row_query = [qinv[bounds[i]:bounds[i + 1]] for i in range(len(cut))]
    return _Aligned(cut, pair, row_query, ukey // width, ukey % width, uq, ud, query_rank)


def _segment_starts(run: Run) -> np.ndarray:
    """Offsets where each query's rows begin (rows of a query are contiguous)."""
    if len(run) == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(run.qids[1:] != run.qids[:-1]) + 1
    return np.concatenate(([0], change)).astype(np.int64)


def transform_scores(run: Run, transform: str) -> np.ndarray:
    """Per-query transformed scores of ``run`` (float64, one per row).

    ``none`` returns the scores; ``shift`` subtracts each query's minimum (so
    the lowest document of a list gets 0); ``minmax`` maps each query's scores
    to [0, 1] (a list whose scores are all equal maps to all 0). ``none`` on a
    run with a negative score raises ``ClirkitError``: sum-normalizing mixed
    signs is meaningless.
    """
    if transform not in TRANSFORMS:
        raise ClirkitError(f"unknown score transform {transform!r}; choose one of {', '.join(TRANSFORMS)}")
    scores = run.scores
    if transform == "none":
        if len(scores) and scores.min() < 0:
            raise ClirkitError(
                f"run {run.tag!r} has negative scores (min {scores.min():.6g}); sum normalization needs "
                "scores >= 0: choose a per-query transform with --transform shift or --transform minmax")
        return scores.copy()
    if len(scores) == 0:
        return scores.copy()
    starts = _segment_starts(run)
    counts = np.diff(np.append(starts, len(scores)))
    low = np.repeat(np.minimum.reduceat(scores, starts), counts)
    shifted = scores - low
    if transform == "shift":
        return shifted
    span = np.repeat(np.maximum.reduceat(scores, starts), counts) - low
    out = np.zeros_like(scores)
    np.divide(shifted, span, out=out, where=span > 0)
    return out


def _check_weights(weights, n: int) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise ClirkitError(f"got {w.size} weights for {n} runs; give one weight per run")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ClirkitError(f"weights must be finite and >= 0, got {' '.join(f'{x:g}' for x in w)}")
    if abs(w.sum() - 1.0) > 1e-6:
        raise ClirkitError(f"weights must sum to 1, got {' '.join(f'{x:g}' for x in w)} (sum {w.sum():g})")
    return w


def _transforms(transform: str | Sequence[str], n: int) -> list[str]:
    if isinstance(transform, str):
        return [transform] * n
    names = list(transform)
    if len(names) != n:
        raise ClirkitError(f"got {len(names)} transforms for {n} runs; give one, or one per run")
    return names


def interpolate(runs: Sequence[Run], weights: Sequence[float] | None = None, *,
                kappa: float | None = None, transform: str | Sequence[str] = "none",
                depth: int = 1000, tag: str | None = None) -> Run:
    """Weighted interpolation of per-query sum-normalized scores (SPEC §6).

    Args:
        runs: the runs to combine (each grouped by query, in rank order).
        weights: one weight per run, >= 0, summing to 1. Default: equal weights.
        kappa: shorthand for two runs: weights ``(kappa, 1 - kappa)``.
        transform: ``none`` | ``shift`` | ``minmax``, for all runs or one per
            run, applied per query before sum normalization.
        depth: each input list is cut to its top ``depth`` rows before
            normalizing, and the output keeps the top ``depth`` per query.
        tag: the output's run tag; default records weights and transforms,
            e.g. ``interp:w=0.5,0.5:t=shift,none``.

    Returns:
        A run over the union of the input lists (ties: docid ascending). A
        query's list whose transformed scores sum to 0 contributes 0.

    Note: min-max scaling divides a query's shifted scores by a constant that
    sum normalization then cancels, so ``shift`` and ``minmax`` give the same
    aggregate; both are offered because users ask for them by name.
    """
    runs = list(runs)
    if kappa is not None:
        if weights is not None:
            raise ClirkitError("give either kappa or weights, not both")
        if len(runs) != 2:
            raise ClirkitError(f"kappa combines exactly two runs, got {len(runs)}; use weights")
        if not 0.0 <= kappa <= 1.0:
            raise ClirkitError(f"kappa must be in [0, 1], got {kappa:g}")
        weights = [kappa, 1.0 - kappa]
    if weights is None:
        weights = [1.0 / len(runs)] * len(runs)
    w = _check_weights(weights, len(runs))
    names = _transforms(transform, len(runs))
    al = _align(runs, depth)
    return _weighted(al, _normalized(al, names), w, names, depth, tag)


def _normalized(al: _Aligned, names: list[str]) -> list[np.ndarray]:
    """Each run's transformed, per-query sum-normalized scores on the aligned pairs (0 where absent)."""
    out = []
    for i, run in enumerate(al.runs):
        t = transform_scores(run, names[i])
        sums = np.bincount(al.row_query[i], weights=t, minlength=al.n_queries)
        denom = sums[al.row_query[i]]
        normed = np.zeros_like(t)
        np.divide(t, denom, out=normed, where=denom > 0)
        out.append(np.bincount(al.pair[i], weights=normed, minlength=len(al.pair_q)))
    return out


def _weighted(al: _Aligned, normalized: list[np.ndarray], w: np.ndarray, names: list[str], depth: int,
              tag: str | None) -> Run:
    fused = np.zeros(len(al.pair_q), dtype=np.float64)
    for wi, contribution in zip(w, normalized):
        fused += wi * contribution
    if tag is None:
        tag = "interp:w=" + ",".join(f"{x:g}" for x in w) + ":t=" + ",".join(names)
    return al.ranked(fused, depth, tag)


def borda(runs: Sequence[Run], weights: Sequence[float] | None = None, *, depth: int = 1000,
          tag: str | None = None) -> Run:
    """Rank-based Borda count, optionally weighted.

    Each list (cut to its top ``depth`` rows) gives the document at rank k
    ``K - k + 1`` points with ``K = depth`` for every list, so rank 1 is worth
    the same in a short list as in a full one; a document missing from a list
    gets 0 there. Points are summed with ``weights`` (default 1 per run; any
    non-negative weights, they need not sum to 1). Ties: docid ascending.
    """
    runs = list(runs)
    if depth < 1:
        raise ClirkitError(f"depth must be >= 1, got {depth}")
    w = np.ones(len(runs)) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (len(runs),) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ClirkitError(f"Borda needs one finite weight >= 0 per run ({len(runs)} runs)")
    al = _align(runs, depth)
    points = np.zeros(len(al.pair_q), dtype=np.float64)
    for i, run in enumerate(al.runs):
        points += w[i] * np.bincount(al.pair[i], weights=(depth - run.ranks() + 1).astype(np.float64),
                                     minlength=len(points))
    if tag is None:
        tag = f"borda:K={depth}" + ("" if weights is None else ":w=" + ",".join(f"{x:g}" for x in w))
    return al.ranked(points, depth, tag)


@dataclass(frozen=True)
class KappaSweep:
    """Result of :func:`tune_kappa`: the grid, the mean measure at each point, the best kappa.

    Ties in the measure are broken toward the smaller kappa.
    """

    kappas: np.ndarray
    values: np.ndarray
    measure: str
    best_kappa: float
    best_value: float

    def to_csv(self) -> str:
        lines = [f"kappa,{self.measure}"]
        lines += [f"{k:.4g},{v:.10g}" for k, v in zip(self.kappas.tolist(), self.values.tolist())]
        return "\n".join(lines) + "\n"


def kappa_grid(step: float = 0.05) -> np.ndarray:
    """0, step, 2 step, ..., 1 (rounded to 10 decimals so 0.15 prints as 0.15)."""
    if not 0 < step <= 1:
        raise ClirkitError(f"kappa step must be in (0, 1], got {step:g}")
    n = int(round(1.0 / step))
    return np.round(np.linspace(0.0, 1.0, n + 1), 10)


def tune_kappa(run1: Run, run2: Run, evaluate: Callable[[Run], float] | Qrels, *, measure: str = "AP",
               grid: Sequence[float] | None = None, transform: str | Sequence[str] = "none",
               depth: int = 1000) -> KappaSweep:
    """Grid-search kappa for ``interpolate([run1, run2], kappa=...)``.

    ``evaluate`` maps a run to its mean measure (higher is better), e.g. MAP
    on dev qrels; given :class:`Qrels` instead, :func:`evaluator` builds it
    for ``measure``. Returns the sweep; ``best_kappa`` is the smallest kappa
    reaching the maximum.
    """
    if isinstance(evaluate, Qrels):
        evaluate = evaluator(evaluate, measure, depth=depth)
    kappas = kappa_grid() if grid is None else np.asarray(grid, dtype=np.float64)
    if kappas.size == 0:
        raise ClirkitError("the kappa grid is empty")
    values = np.array([float(evaluate(interpolate([run1, run2], kappa=float(k), transform=transform,
                                                  depth=depth))) for k in kappas])
    best = int(np.argmax(values))
    return KappaSweep(kappas, values, measure, float(kappas[best]), float(values[best]))


def weight_grid(n_runs: int, step: float = 0.1) -> np.ndarray:
    """All weight vectors of ``n_runs`` non-negative multiples of ``step`` summing to 1
    (rows in lexicographic order of the integer multiples, largest first weight last)."""
    n = int(round(1.0 / step))
    if not 0 < step <= 1 or abs(n * step - 1.0) > 1e-9:
        raise ClirkitError(f"weight step must divide 1, got {step:g}")
    if n_runs < 2:
        raise ClirkitError(f"need at least 2 runs to weigh, got {n_runs}")
    points = [(i,) for i in range(n + 1)]
    for _ in range(n_runs - 2):
        points = [p + (i,) for p in points for i in range(n + 1 - sum(p))]
    return np.round(np.array([p + (n - sum(p),) for p in points], dtype=np.float64) / n, 10)


def tune_weights(runs: Sequence[Run], evaluate: Callable[[Run], float] | Qrels, *, measure: str = "AP",
                 step: float = 0.1, transform: str | Sequence[str] = "none",
                 depth: int = 1000) -> tuple[np.ndarray, float]:
    """Grid-search the weights of :func:`interpolate` over :func:`weight_grid`.

    The generalization of :func:`tune_kappa` to any number of runs. Returns the
    best weights (the first grid point reaching the maximum) and their value.
    """
    if isinstance(evaluate, Qrels):
        evaluate = evaluator(evaluate, measure, depth=depth)
    grid = weight_grid(len(runs), step)
    names = _transforms(transform, len(runs))
    al = _align(list(runs), depth)  # once: only the weights change along the grid
    normalized = _normalized(al, names)
    values = np.array([float(evaluate(_weighted(al, normalized, w, names, depth, None))) for w in grid])
    best = int(np.argmax(values))
    return grid[best], float(values[best])


def evaluator(qrels: Qrels, measure: str = "AP", *, depth: int = 1000) -> Callable[[Run], float]:
    """A ``run -> mean measure`` function over the queries of ``qrels``.

    Uses :func:`clirkit.metrics.evaluate` with trec_eval semantics, averaged
    over the queries of the qrels (a query missing from the run counts 0).
    """
    from clirkit import metrics  # imported lazily: only tuning needs it

    name = metrics.parse_measure(measure).name

    def evaluate(run: Run) -> float:
        return metrics.evaluate(run, qrels, [name], depth=depth, average="qrels").mean()[name]

    return evaluate
