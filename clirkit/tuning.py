"""Choosing fusion weights on dev queries (SPEC §6: kappa by grid search on dev for MAP, then frozen).

Kept apart from the fusion methods (:mod:`clirkit.fusion`), as ranx keeps
``fusion_optimization`` apart from ``fusion``. A sweep aligns the dev runs
once (:func:`clirkit.fusion.align.align`) and sum-normalizes them once
(:func:`clirkit.fusion.interpolation.sum_normalized`); each grid point is then
one weighted sum and one evaluation, giving the same numbers as calling
:func:`clirkit.fusion.interpolate` at every point. With an :func:`evaluator`'s
objective no fused run is made: the pairs' grades are looked up once and each
point is ranked by a per-query top-k on the aligned codes (:class:`_PairGrades`).

- :func:`tune_kappa`: two runs, weights ``(kappa, 1 - kappa)`` over :func:`kappa_grid`;
- :func:`tune_weights`: any number of runs, weight vectors over :func:`weight_grid`;
- :func:`evaluator`: the ``run -> mean measure`` function both maximize, built
  from dev qrels (optionally averaged over :func:`covered_queries` only).

Both return the whole sweep (:class:`KappaSweep`, :class:`WeightSweep`):
every weight vector tried with its dev score, and the best one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.fusion.align import AlignedRuns, align
from clirkit.fusion.interpolation import combined, sum_normalized, transform_list, weighted_sum
from clirkit.metricchecks import check_qrels
from clirkit.run import Qrels, Run, take_strings
from clirkit.sortedunique import sorted_unique


@dataclass(frozen=True, eq=False)
class WeightSweep:
    """Result of :func:`tune_weights`: every weight vector tried and its dev score.

    Attributes:
        weights: the grid, one weight vector per row (float64, shape ``(points, runs)``;
            each row >= 0 and summing to 1).
        scores: the mean measure of the interpolated dev run at each row (float64,
            shape ``(points,)``); higher is better.
        measure: the measure's name (a label when the evaluation was a function).
        transforms: the per-query score transform of each run.

    The best point is the first row reaching the maximum score (:attr:`tied` says when every row reaches it).
    Like scipy's result objects, a sweep unpacks as ``best, best_score = sweep``.
    """

    weights: np.ndarray
    scores: np.ndarray
    measure: str
    transforms: tuple[str, ...]

    @property
    def best_index(self) -> int:
        """Row of the best point: the first reaching the maximum score."""
        return int(np.argmax(self.scores))

    @property
    def tied(self) -> bool:
        """Whether every grid point scored the same (a flat sweep): the dev evaluation tells no weights apart, and
        :attr:`best` is the first row only by grid order."""
        return bool(len(self.scores) and (self.scores == self.scores[0]).all())

    @property
    def best(self) -> np.ndarray:
        """The best weight vector (float64, one weight per run)."""
        return self.weights[self.best_index]

    @property
    def best_score(self) -> float:
        """The dev score of :attr:`best`."""
        return float(self.scores[self.best_index])

    def __iter__(self) -> Iterator:
        """``(best, best_score)``, so that ``weights, value = tune_weights(...)`` works."""
        return iter((self.best, self.best_score))

    def to_csv(self) -> str:
        """The sweep as CSV text: a header ``w1,...,wn,<measure>``, then one line per grid point."""
        lines = [",".join([f"w{i + 1}" for i in range(self.weights.shape[1])] + [self.measure])]
        lines += [
            ",".join([f"{x:.4g}" for x in w] + [f"{v:.10g}"])
            for w, v in zip(self.weights.tolist(), self.scores.tolist())
        ]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True, eq=False)
class KappaSweep(WeightSweep):
    """Result of :func:`tune_kappa`: a :class:`WeightSweep` over rows ``(kappa, 1 - kappa)``.

    Adds the kappa view of it: :attr:`kappas`, :attr:`values`, :attr:`best_kappa`,
    :attr:`best_value`. On an ascending grid, ties in the measure go to the
    smaller kappa (the first row reaching the maximum).
    """

    @property
    def kappas(self) -> np.ndarray:
        """The kappa of each grid point (the weight of the first run; float64)."""
        return self.weights[:, 0]

    @property
    def values(self) -> np.ndarray:
        """The dev score at each kappa (same as :attr:`scores`)."""
        return self.scores

    @property
    def best_kappa(self) -> float:
        """The kappa of the best point."""
        return float(self.kappas[self.best_index])

    @property
    def best_value(self) -> float:
        """The dev score at :attr:`best_kappa` (same as :attr:`best_score`)."""
        return self.best_score

    def to_csv(self) -> str:
        """The sweep as CSV text: a header ``kappa,<measure>``, then one line per kappa."""
        lines = [f"kappa,{self.measure}"]
        lines += [f"{k:.4g},{v:.10g}" for k, v in zip(self.kappas.tolist(), self.values.tolist())]
        return "\n".join(lines) + "\n"


MAX_GRID_POINTS = 1_000_000  # weight vectors a grid search may try (each one evaluates a fused run)
PROGRESS_POINTS = 1_000  # grids of at least this many points show a progress bar (unless quiet)


def kappa_grid(step: float = 0.05) -> np.ndarray:
    """Kappas 0, step, 2 step, ..., 1 (float64, rounded to 10 decimals so 0.15 prints as 0.15)."""
    if not (math.isfinite(step) and 0 < step <= 1):
        raise ClirkitError(f"kappa step must be in (0, 1], got {step:g}")
    if 1.0 / step >= MAX_GRID_POINTS:
        raise ClirkitError(f"kappa step {step:g} gives more than {MAX_GRID_POINTS:,} kappas: take a larger step")
    n = int(round(1.0 / step))
    return np.round(np.linspace(0.0, 1.0, n + 1), 10)


def grid_points(n_runs: int, step: float) -> int:
    """The number of weight vectors :func:`weight_grid` gives, checking its arguments first (cheap: call it
    before reading runs). ClirkitError if ``step`` does not divide 1, fewer than 2 runs, or more than
    :data:`MAX_GRID_POINTS` vectors."""
    if not (math.isfinite(step) and 0 < step <= 1):
        raise ClirkitError(f"weight step must divide 1, got {step:g}")
    steps = 1.0 / step  # (inf for a step below 1/1.8e308: far more points than allowed)
    if math.isfinite(steps) and abs(round(steps) * step - 1.0) > 1e-9:
        raise ClirkitError(f"weight step must divide 1, got {step:g}")
    if n_runs < 2:
        raise ClirkitError(f"need at least 2 runs to weigh, got {n_runs}")
    # multisets: n steps shared among n_runs weights, at least n + 1 of them (counted only when that is few)
    points = math.comb(round(steps) + n_runs - 1, n_runs - 1) if steps <= MAX_GRID_POINTS else None
    if points is None or points > MAX_GRID_POINTS:
        count = f"{points:,} points, more than" if points is not None and points < 10**12 else "more than"
        raise ClirkitError(
            f"the weight grid of {n_runs} runs at step {step:g} has {count} {MAX_GRID_POINTS:,} points: take a "
            "larger step"
        )
    return points


def weight_grid(n_runs: int, step: float = 0.1) -> np.ndarray:
    """All weight vectors of ``n_runs`` non-negative multiples of ``step`` summing to 1.

    Returns a float64 array of shape ``(points, n_runs)``, rows in lexicographic
    order of the integer multiples (the vector with the largest first weight last).
    ``step`` must divide 1, and the grid have at most :data:`MAX_GRID_POINTS` rows.
    """
    grid_points(n_runs, step)
    n = int(round(1.0 / step))
    points = [(i,) for i in range(n + 1)]
    for _ in range(n_runs - 2):
        points = [p + (i,) for p in points for i in range(n + 1 - sum(p))]
    return np.round(np.array([p + (n - sum(p),) for p in points], dtype=np.float64) / n, 10)


def covered_queries(runs: Sequence[Run], qrels: Qrels) -> list[str]:
    """The judged queries the runs cover: the union of the runs' query ids that ``qrels`` judges,
    in the qrels' order. Dev runs made for part of the dev queries are tuned on these only. ClirkitError for
    ``qrels`` not :class:`~clirkit.run.Qrels` (:func:`~clirkit.metricchecks.check_qrels`)."""
    check_qrels(qrels)
    seen = set()
    for run in runs:
        seen.update(run.query_ids)
    return [q for q in qrels.query_ids if q in seen]


def evaluator(
    qrels: Qrels, measure: str = "AP", *, depth: int = 1000, queries: Iterable[str] | None = None
) -> Callable[[Run], float]:
    """A ``run -> mean measure`` function, the objective of :func:`tune_kappa` and :func:`tune_weights`.

    Args:
        qrels: the dev judgments.
        measure: any measure name of :func:`clirkit.metrics.parse_measure` (e.g. ``AP``) whose cutoff, if
            any, is within ``depth``.
        depth: ranks evaluated per query.
        queries: the queries to average over (all judged by ``qrels``), e.g.
            :func:`covered_queries` of the dev runs. Default: every query of the qrels.

    Returns:
        A function mapping a run to its measure (trec_eval semantics, via
        :func:`clirkit.metrics.evaluate`) averaged over those queries; a query
        missing from the run counts 0.

    Raises:
        ClirkitError: ``qrels`` is not :class:`~clirkit.run.Qrels`, ``queries`` is empty or names a query the
            qrels do not judge, or the measure's cutoff is beyond ``depth`` (``R@2000`` at 1000 would count a
            document at rank 1500 as not retrieved).
    """
    from clirkit import metrics  # imported lazily: only tuning needs it
    from clirkit.measures import beyond_depth

    check_qrels(qrels)
    spec = metrics.parse_measure(measure)
    if beyond_depth([spec], depth) is not None:  # refused now: the sweep need not call evaluate
        raise ClirkitError(
            f"the dev measure {spec.label} reads ranks beyond depth {depth}, where the tuning cuts the dev runs: "
            f"measure at most {depth} ranks (e.g. {spec.kind}@{depth})"
        )
    name = spec.name
    if queries is not None:
        queries = list(queries)
        if not queries:
            raise ClirkitError("no queries to average over: none of the runs' queries is judged")
        judged = set(qrels.query_ids)
        unjudged = [q for q in queries if q not in judged]
        if unjudged:
            raise ClirkitError(
                f"{len(unjudged)} of the {len(queries)} queries to average over are not judged "
                f"in the qrels (e.g. {str(unjudged[0])!r}); average over judged queries only"
            )
        qrels = qrels.subset(queries)
    return _Evaluator(qrels, name, depth)


class _Evaluator:
    """What :func:`evaluator` returns: ``run -> mean measure``, whose qrels, measure and depth a sweep reads to
    evaluate its grid points on the aligned pairs (:class:`_PairGrades`) instead of on fused runs."""

    def __init__(self, qrels: Qrels, measure: str, depth: int) -> None:
        self.qrels, self.measure, self.depth = qrels, measure, depth

    def __call__(self, run: Run) -> float:
        from clirkit import metrics

        return metrics.evaluate(run, self.qrels, [self.measure], depth=self.depth, average="qrels").mean()[self.measure]


def tune_kappa(
    run1: Run,
    run2: Run,
    evaluate: Callable[[Run], float] | Qrels,
    *,
    measure: str = "AP",
    grid: Sequence[float] | None = None,
    transform: str | Sequence[str] = "none",
    depth: int = 1000,
    quiet: bool = True,
) -> KappaSweep:
    """Grid-search kappa for ``interpolate([run1, run2], kappa=...)``.

    Args:
        run1, run2: the two systems' dev runs; kappa weighs ``run1``.
        evaluate: maps a run to its mean measure (higher is better), e.g. MAP
            on dev qrels; given :class:`Qrels` instead, :func:`evaluator` builds
            it for ``measure`` over every query of the qrels.
        measure: the measure's name (used to build the evaluation from qrels, and as a label).
        grid: the kappas to try, each in [0, 1]. Default: :func:`kappa_grid` (step 0.05).
        transform: per-query score transform of both runs, or one per run
            (see :func:`clirkit.fusion.transform_scores`).
        depth: list depth of the inputs and of the interpolated run.
        quiet: False: a progress bar on stderr for a grid of :data:`PROGRESS_POINTS` points or more.

    Returns:
        The :class:`KappaSweep`; ``best_kappa`` is the first grid kappa reaching
        the maximum (the smallest on an ascending grid).
    """
    kappas = kappa_grid() if grid is None else np.asarray(grid, dtype=np.float64)
    if kappas.size == 0:
        raise ClirkitError("the kappa grid is empty")
    if kappas.ndim != 1:
        raise ClirkitError(f"the kappa grid must be a list of kappas, got an array of shape {kappas.shape}")
    if not np.all((kappas >= 0) & (kappas <= 1)):
        raise ClirkitError(f"kappas must be in [0, 1], got {' '.join(f'{k:g}' for k in kappas)}")
    weights = np.stack([kappas, 1.0 - kappas], axis=1)
    return _sweep(KappaSweep, [run1, run2], weights, evaluate, measure, transform, depth, quiet)


def tune_weights(
    runs: Sequence[Run],
    evaluate: Callable[[Run], float] | Qrels,
    *,
    measure: str = "AP",
    step: float = 0.1,
    grid: np.ndarray | None = None,
    transform: str | Sequence[str] = "none",
    depth: int = 1000,
    quiet: bool = True,
) -> WeightSweep:
    """Grid-search the weights of :func:`clirkit.fusion.interpolate`: the generalization of
    :func:`tune_kappa` to any number of runs.

    Args:
        runs: the systems' dev runs (at least 2).
        evaluate: a ``run -> mean measure`` function, or :class:`Qrels` (see :func:`tune_kappa`).
        measure: the measure's name (used to build the evaluation from qrels, and as a label).
        step: spacing of the default grid, :func:`weight_grid` ``(len(runs), step)``.
        grid: the weight vectors to try instead (shape ``(points, len(runs))``,
            rows >= 0 summing to 1).
        transform: per-query score transform of all runs, or one per run.
        depth: list depth of the inputs and of the interpolated run.
        quiet: False: a progress bar on stderr for a grid of :data:`PROGRESS_POINTS` points or more.

    Returns:
        The :class:`WeightSweep`: every weight vector with its dev score;
        ``best`` is the first reaching the maximum. It unpacks as
        ``best, best_score``.
    """
    runs = list(runs)
    if grid is None:
        grid = weight_grid(len(runs), step)
    else:
        grid = np.asarray(grid, dtype=np.float64)
        if grid.ndim != 2 or grid.shape[1] != len(runs) or grid.shape[0] == 0:
            raise ClirkitError(
                f"the weight grid must have one column per run ({len(runs)}) and at least one row, "
                f"got shape {grid.shape}"
            )
        if not np.all(np.isfinite(grid)) or np.any(grid < 0) or np.any(np.abs(grid.sum(axis=1) - 1.0) > 1e-6):
            raise ClirkitError("every row of the weight grid must be >= 0 and sum to 1")
    return _sweep(WeightSweep, runs, grid, evaluate, measure, transform, depth, quiet)


def _sweep(
    cls: type[WeightSweep],
    runs: list[Run],
    grid: np.ndarray,
    evaluate: Callable[[Run], float] | Qrels,
    measure: str,
    transform: str | Sequence[str],
    depth: int,
    quiet: bool = True,
) -> WeightSweep:
    """Evaluate the interpolation of ``runs`` at every row of ``grid``, aligning and normalizing once (a progress
    bar on stderr for a long grid unless ``quiet``)."""
    from clirkit.progress import progress

    if isinstance(evaluate, Qrels):
        evaluate = evaluator(evaluate, measure, depth=depth)
    names = transform_list(transform, len(runs))
    aligned = align(runs, depth)  # once: only the weights change along the grid
    normalized = sum_normalized(aligned, names)
    graded = _PairGrades.of(aligned, evaluate, depth) if isinstance(evaluate, _Evaluator) else None
    rows = progress(
        grid, desc="weights tried", total=len(grid), quiet=quiet or len(grid) < PROGRESS_POINTS, unit="points"
    )
    if graded is not None:
        scores = np.array([graded.mean(combined(aligned, normalized, w)) for w in rows], dtype=np.float64)
    else:
        scores = np.array(
            [float(evaluate(weighted_sum(aligned, normalized, w, names, depth=depth))) for w in rows], dtype=np.float64
        )
    return cls(grid, scores, measure, tuple(names))


class _PairGrades:
    """The dev evaluation of interpolated runs made on the aligned pairs, for many weight vectors: each pair's
    grade is looked up once, and a grid point's fused scores are evaluated without making its run.

    The run :meth:`AlignedRuns.ranked` would make holds each query's top ``depth`` pairs (:class:`TopK`); the
    evaluation (:func:`clirkit.metrics.evaluate`) re-ranks them by score as a 32-bit float, descending, ties by
    docid descending. Every built-in measure reads only where the rows of positive grade land, so only those
    are placed: one integer key per kept pair (query, float32 score, docid) sorted, and each positive pair's
    rank found among them. The measure is then computed on the same rows in the same order as
    :func:`clirkit.metrics.evaluate` computes it, so each grid point scores the same bits as evaluating its run.
    """

    def __init__(
        self,
        aligned: AlignedRuns,
        evaluation: _Evaluator,
        depth: int,
        judged,
        group_of: np.ndarray,
        group_code: np.ndarray,
        positive: np.ndarray,
        grades: np.ndarray,
    ) -> None:
        from clirkit.metrics import parse_measure

        self.top = aligned.top_k(depth)
        self.judged, self.group_code = judged, group_code
        spec = parse_measure(evaluation.measure)
        self.compute, self.cutoff, self.level = spec.definition.compute, spec.cutoff, spec.level(1, 2)
        self.measured = spec.name
        n_groups = len(group_code)
        self.pair_group = group_of[aligned.pair_q]
        kept = np.minimum(np.bincount(self.pair_group[self.pair_group >= 0], minlength=n_groups), depth)
        self.kept_before = np.cumsum(kept) - kept  # a group's first place among the kept pairs' sorted keys
        rows = kept if evaluation.depth is None else np.minimum(kept, evaluation.depth)  # evaluated rows
        self.group = np.repeat(np.arange(n_groups), rows)
        self.starts = np.cumsum(rows) - rows
        self.rank = np.arange(len(self.group), dtype=np.int64) - np.repeat(self.starts, rows) + 1
        self.rows = rows
        self.doc_bits = int(len(aligned.ud)).bit_length()
        self.fixed_key = (np.maximum(self.pair_group, 0) << (32 + self.doc_bits)) | (len(aligned.ud) - aligned.pair_d)
        unjudged = self.pair_group < 0
        self.unjudged = unjudged if unjudged.any() else None
        self.positive, self.grades = positive, grades
        self.qrels_order = judged.codes_of(np.asarray(evaluation.qrels.query_ids))  # the rows averaged

    @classmethod
    def of(cls, aligned: AlignedRuns, evaluation: _Evaluator, depth: int) -> _PairGrades | None:
        """The evaluation of ``evaluation`` on ``aligned`` cut to ``depth``; None where a fused run must be
        made and evaluated instead: a measure registered outside clirkit (it may read grades below 1), no run
        query judged (the evaluation's error is then the user's), or keys wider than 64 bits."""
        from clirkit.metrics import _JudgedQueries, _lookup_grades, parse_measure

        if parse_measure(evaluation.measure).definition.compute.__module__ != "clirkit.measures":
            return None
        judged = _JudgedQueries(evaluation.qrels)
        code = judged.codes_of(aligned.uq)
        by_rank = np.argsort(aligned.query_rank)  # the fused run's queries: first-appearance order
        groups = by_rank[code[by_rank] >= 0]  # ... those the qrels judge
        if not len(groups) or len(groups).bit_length() + 32 + int(len(aligned.ud)).bit_length() > 63:
            return None
        group_of = np.full(aligned.n_queries, -1, dtype=np.int64)
        group_of[groups] = np.arange(len(groups))
        # the pairs of judged documents of judged queries, looked up once
        judged_doc = np.isin(aligned.ud, sorted_unique(evaluation.qrels.docids))
        candidates = np.flatnonzero((group_of[aligned.pair_q] >= 0) & judged_doc[aligned.pair_d])
        grades = _lookup_grades(
            code[aligned.pair_q[candidates]],
            take_strings(aligned.ud, aligned.pair_d[candidates]),
            judged,
            unique_pairs=True,
        )
        positive = grades > 0
        return cls(aligned, evaluation, depth, judged, group_of, code[groups], candidates[positive], grades[positive])

    def mean(self, fused: np.ndarray) -> float:
        """The mean measure of the run :meth:`AlignedRuns.ranked` makes of ``fused`` (one score per pair)."""
        from clirkit.metrics import Evaluation, RankedQueries

        kept = self.top.mask(fused)
        if self.unjudged is not None:
            kept &= ~self.unjudged
        place = np.searchsorted(np.sort(self._keys(fused, np.flatnonzero(kept))), self._keys(fused, self.positive))
        group = self.pair_group[self.positive]
        rank = place - self.kept_before[group] + 1  # (a rank among the kept pairs: only those kept are placed)
        placed = np.flatnonzero(kept[self.positive] & (rank <= self.rows[group]))
        grades = np.zeros(len(self.group), dtype=np.int64)
        grades[self.starts[group[placed]] + rank[placed] - 1] = self.grades[placed]
        ranking = RankedQueries(self.group, self.rank, grades, self.starts, self.judged, self.group_code)
        values = self.compute(ranking, self.cutoff, self.level).reshape(-1, 1)
        table = np.zeros((len(self.judged.ids), 1), dtype=np.float64)
        table[self.group_code] = values
        return Evaluation((self.measured,), self.judged.ids[self.qrels_order], table[self.qrels_order], "qrels").mean()[
            self.measured
        ]

    def _keys(self, fused: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        """One int64 key per pair of ``pairs`` (of judged queries), ascending in the evaluation's order: group,
        score as a 32-bit float descending, docid descending."""
        with np.errstate(over="ignore"):
            bits = (fused[pairs].astype(np.float32) + np.float32(0)).view(np.uint32)  # (+0: -0.0 is 0.0)
        ascending = np.where(bits >> 31, ~bits, bits | np.uint32(1 << 31))  # ascending as the float
        keys = (~ascending).astype(np.int64) << self.doc_bits
        keys |= self.fixed_key[pairs]
        return keys
