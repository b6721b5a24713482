"""The :class:`Fusion` system: the runs of several systems fused into one by a method of
:data:`clirkit.fusion.METHODS` (SPEC §6), its weights given or tuned on dev (:mod:`clirkit.tuning`); also the
fusion of runs made elsewhere (``clirkit aggregate``). One of :mod:`clirkit.systems`, importable from there.
"""

from __future__ import annotations

import inspect
from numbers import Real
from typing import Iterable, Mapping, Sequence

import numpy as np

from clirkit.constraints import Interval, InvalidParameterError, StrOptions
from clirkit.errors import ClirkitError, counted
from clirkit.estimator import DEPTH, Resources, System, jsonable, takes_resources
from clirkit.fusion import METHODS
from clirkit.fusion.weights import weight_text, weights_problem
from clirkit.packedrun import PackedRun
from clirkit.run import check_depth, check_run_tag


class Fusion(System):
    """Runs of several systems fused into one (SPEC §6).

    Args:
        systems: the fused systems (fitted before :meth:`fit`); none for a fusion of runs made elsewhere
            (:meth:`fit_runs` and :meth:`fuse`, as ``clirkit aggregate`` fuses run files).
        method: a name of :data:`clirkit.fusion.METHODS`: ``interpolation`` (weighted sum of sum-normalized
            scores) or ``borda``.
        weights: the systems' weights (a list, a tuple or a one-dimensional numpy array); None tunes them on the
            dev MAP (``measure``) over a grid of ``step`` (interpolation), or weighs them equally (Borda).
        step: grid step of the tuned weights.
        measure: the dev measure the weights maximize. ``step`` and ``measure`` set with the weights given, or
            with Borda, which read neither, are refused (:func:`unused_params`).
        transform: score transform before sum normalization (SPEC §6; Borda reads none: set, it is refused),
            one for all systems or one per system: ``auto`` (the default): ``shift`` for a system whose dev
            run (or, at search time, whose run) has a negative score, ``none`` otherwise, so every pair of
            clirkit's own runs (PSQ-Boost and SCS scores can be negative) fuses without a choice; ``none`` (the
            formula as written; negative scores are an error), ``shift`` (per query, minus the minimum) or
            ``minmax``. The transforms chosen are recorded in ``transforms_`` and in the fused run's default tag.

    Learned: ``weights_``, ``transforms_``, ``dev_score_`` (over ``dev_queries_`` queries) and ``sweep_``
    (every weight vector tried with its dev score; None when the weights were given); ``weights_tied_``, True when
    the weights were tuned and every weight vector of the grid scored the same on dev (a flat sweep: the dev runs
    tell no weights apart, e.g. dev qrels of no relevant document; ``weights_`` are then the first in grid order, the
    last system alone, not weights the dev queries chose), False otherwise; ``dev_tags_``, the dev
    runs' tags, so that :meth:`fuse` refuses runs given in another order (:func:`crossed_pair`); ``depth_``, the
    depth the weights were tuned at (None when they were not tuned); ``dev_runs_`` and ``dev_qrels_``, the dev runs
    (packed: :class:`~clirkit.packedrun.PackedRun`, ``unpack()`` gives each Run) and qrels they were tuned on (kept in
    memory, not saved), and ``depth_weights_``, the weights tuned at each
    depth searched at so far (:meth:`weights_at`).

    ``fit(resources)`` tunes on the systems' dev runs (:meth:`Resources.run`: each system's search of the dev
    topics, less their excluded documents; the experiment runner's, the runs it made) and the dev qrels
    (``fit(Resources(topics={"dev": topics}, qrels={"dev": qrels}))``) at the depth of every search (1,000).
    :meth:`search` and :meth:`fuse` at another depth ``d`` tune the weights again on those dev runs cut to ``d``
    (the weights of ``fit_runs(dev_runs, dev_qrels, depth=d)``: each input's cut, and the sum normalization over
    it, change with the depth, and so do the best weights); a fusion loaded from a file, which keeps no dev runs,
    fuses at the depth it was tuned at only. Given weights (or Borda) need no qrels, nor a dev split.
    """

    _parameter_constraints = {
        "systems": [list, tuple],
        "method": [StrOptions(METHODS.keys())],  # a live view: every method of the table
        "weights": [None, list, tuple, np.ndarray],  # (a numpy array, as interpolate and borda take one)
        "step": [Interval(Real, 0, 1, closed="right")],
        "measure": [str],
        "transform": [list, tuple, str],
    }
    default_tag = "fusion"
    fit_call = "fit(Resources(topics={'dev': ...}, qrels={'dev': ...}))"
    system_keys = ("systems",)
    _tuning = {"step": "the step of a grid of weights", "measure": "a measure of `clirkit eval`"}

    def __init__(
        self,
        systems: Sequence[System] = (),
        *,
        method: str = "interpolation",
        weights: Sequence[float] | None = None,
        step: float = 0.1,
        measure: str = "AP",
        transform: str | Sequence[str] = "auto",
    ) -> None:
        self.systems = systems
        self.method = method
        self.weights = weights
        self.step = step
        self.measure = measure
        self.transform = transform

    def fit(self, resources: Resources) -> "Fusion":
        """Tune the weights on the systems' dev runs and the dev qrels of ``resources``
        (:class:`~clirkit.estimator.Resources`, see the class docstring): with the weights given (or Borda), the dev
        runs only choose the ``auto`` transforms, and no dev split is needed; returns self. The systems and the
        parameters are checked first (:meth:`check_runs`), before any system searches."""
        takes_resources(self, resources)
        self.check_params()  # systems a list or tuple before its members are asked for search
        for i, system in enumerate(self.systems, 1):
            if not callable(getattr(system, "search", None)):  # what a fusion asks of its members
                raise ClirkitError(
                    f"systems: member {i} is a {type(system).__name__} ({system!r:.40}), not a system: give fitted "
                    "systems (e.g. DT().fit(...), RunFile(run=...).fit() for a run)"
                )
            same = _earlier_same(self.systems, i)
            if same is not None:  # as an experiment file's fusion refuses a system listed twice
                raise ClirkitError(f"systems: member {i} is member {same} again: list each fused system once")
        self.check_runs(len(self.systems))
        if "dev" not in resources.splits:
            return self.fit_runs(None, None, n=len(self.systems))
        runs = [resources.run(s, "dev", packed=True) for s in self.systems]  # (unpacked only while tuned)
        return self.fit_runs(runs, resources.qrels("dev") if self._tuned() else None, quiet=resources.quiet)

    def inputs(self, resources: Resources) -> dict:
        """The dev topics its weights are tuned on (the systems' records are the runner's); ClirkitError when
        the weights are to be tuned and there is no dev split."""
        dev = resources.record("dev")
        if dev is None and self._tuned():
            raise ClirkitError(
                "its weights are tuned on dev, and there is no dev split: give the weights (one per "
                "system, e.g. weights = [0.5, 0.5]) or a dev split"
            )
        return {} if dev is None else {"dev": dev}

    def fit_runs(
        self, dev_runs: Sequence | None, dev_qrels, *, n: int | None = None, depth: int = DEPTH, quiet: bool = True
    ) -> "Fusion":
        """Tune the weights on the systems' dev runs (in the order of ``systems``); returns self.

        Each weight vector is scored on the fused dev run as :meth:`fuse` at ``depth`` writes it: each dev run
        cut to its top ``depth``, and so the fused list (ties at the cut as :meth:`fuse` breaks them), so that
        the sweep's scores are those of evaluating the fused dev run (``clirkit aggregate --tune --depth N``).
        The dev runs and qrels are kept (``dev_runs_``, ``dev_qrels_``), so that :meth:`search` and :meth:`fuse`
        at another depth tune the weights again at it (:meth:`weights_at`); ``depth`` (an integer >= 1) is
        checked before anything else.

        The dev measure is averaged over the judged queries the dev runs cover
        (:func:`clirkit.tuning.covered_queries`), so dev runs made for part of the dev queries are not
        scored 0 on the rest; a dev run of which the dev qrels judge no query (e.g. a test run given by mistake)
        is refused (ClirkitError naming its position). With ``weights`` given (or Borda), ``dev_qrels`` may be
        None, and so may ``dev_runs`` (give ``n``, the number of systems): a transform ``auto`` is then chosen on
        each run fused. ``quiet`` False shows a progress bar on stderr while a long grid is tried
        (:func:`clirkit.tuning.tune_weights`). ClirkitError, before any work, for ``dev_runs`` not a list of runs
        (:func:`given_runs`) and ``dev_qrels`` given and not :class:`~clirkit.run.Qrels`; and, to tune on, for one run
        given twice."""
        from clirkit.metricchecks import check_qrels

        self.check_depth(depth)
        dev_runs = None if dev_runs is None else given_runs(dev_runs, "dev_runs")
        if dev_qrels is not None:
            check_qrels(dev_qrels, "dev_qrels")
        n = len(dev_runs) if dev_runs is not None else (n or 0)
        self.check_runs(n, depth=depth)
        if dev_runs is None and self._tuned():
            raise ClirkitError("tuning the fusion weights needs dev runs and qrels (or give the weights)")
        self.transforms_ = (
            self._transforms(dev_runs)
            if dev_runs is not None
            else ["none" if t == "auto" else t for t in self._given_transforms(n)]
        )
        self.sweep_ = self.dev_score_ = self.depth_ = self.dev_runs_ = self.dev_qrels_ = None
        self.depth_weights_ = {}
        self.dev_queries_ = 0
        self.weights_tied_ = False
        self.dev_tags_ = None if dev_runs is None else [str(run.tag) for run in dev_runs]
        if self.weights is not None:
            if len(self.weights) != n:
                raise ClirkitError(f"{len(self.weights)} weights for {n} systems")
            self.weights_ = [float(w) for w in self.weights]
        elif not METHODS[self.method].tuned:
            self.weights_ = [1.0] * n
        else:
            if dev_qrels is None:
                raise ClirkitError("tuning the fusion weights needs the dev qrels (or give the weights)")
            assert dev_runs is not None  # refused above when the weights are tuned
            _check_distinct(dev_runs)
            sweep, self.dev_queries_ = self._sweep(list(dev_runs), dev_qrels, int(depth), quiet=quiet)
            self.weights_ = [float(w) for w in sweep.best]
            self.dev_score_ = float(sweep.best_score)
            self.weights_tied_ = sweep.tied
            self.sweep_, self.depth_ = sweep, int(depth)
            self.dev_runs_, self.dev_qrels_ = [PackedRun.of(run) for run in dev_runs], dev_qrels
            self.depth_weights_ = {self.depth_: self.weights_}
        return self

    def _sweep(self, dev_runs: list, dev_qrels, depth: int, *, quiet: bool = True):
        """``(sweep, queries)``: the :class:`~clirkit.tuning.WeightSweep` of the weights on ``dev_runs`` (in the
        order of ``systems``) cut to ``depth`` ranks per query, scored by the dev measure, evaluated at ``depth``,
        over the ``queries`` judged queries the dev runs cover, with the transforms ``transforms_`` (a progress bar
        on stderr for a long grid unless ``quiet``)."""
        from clirkit.tuning import covered_queries, evaluator, tune_weights

        dev_runs = [run.unpack() if isinstance(run, PackedRun) else run for run in dev_runs]
        queries = covered_queries(dev_runs, dev_qrels)
        if not queries:
            raise ClirkitError("the dev qrels judge none of the dev runs' queries: are they the dev qrels?")
        _check_each_judged(dev_runs, set(queries))
        score = evaluator(dev_qrels, self.measure, depth=depth, queries=queries)
        sweep = tune_weights(
            dev_runs, score, measure=self.measure, step=self.step, transform=self.transforms_, depth=depth, quiet=quiet
        )
        return sweep, len(queries)

    def describe(self) -> dict:
        """:meth:`System.describe`, weights given as a numpy array recorded as the list of their values."""
        if not isinstance(self.weights, np.ndarray):
            return super().describe()
        params = {**self.get_params(deep=False), "weights": self.weights.tolist()}
        return {"system": type(self).__name__, "params": jsonable(params)}

    def notes(self, name: str) -> list[str]:
        """The weights (and the dev score they reached, when tuned, labelled with the queries it averages: a
        report's dev table averages over every judged dev query, a query without run lines counted 0), and when
        every weight vector tied on dev (``weights_tied_``), that the dev score did not choose them."""
        if not hasattr(self, "weights_"):
            return []
        said = (
            f"dev {self.measure} {self.dev_score_:.4f} over the {self.dev_queries_} judged dev queries its "
            f"systems' runs cover"
            if self.dev_score_ is not None
            else ""
        )
        if getattr(self, "weights_tied_", False):
            said = f"every weight tied on dev: {said + '; ' if said else ''}the dev score did not choose these weights"
        return [f"{name}: weights {', '.join(map(weight_text, self.weights_))}{f' ({said})' if said else ''}"]

    def search_split(self, resources: Resources, split: str, *, tag: str | None = None, packed: bool = False):
        """The fusion of its systems' runs of ``split`` (:meth:`Resources.run`: the runner's, not made again, fused
        as they are kept); ``packed``: as a :class:`~clirkit.packedrun.PackedRun` (the same rows). ClirkitError for
        ``resources`` not :class:`~clirkit.estimator.Resources`."""
        takes_resources(self, resources, "search_split")
        fused = self.fuse([PackedRun.of(resources.run(s, split, packed=True)) for s in self.systems], tag=tag)
        return fused if packed else fused.unpack()  # (packed runs fuse into a packed run)

    def learned_state(self) -> dict:
        if not hasattr(self, "weights_"):
            return {}
        return {
            "weights": self.weights_,
            "transforms": self.transforms_,
            "dev_score": self.dev_score_,
            "dev_queries": self.dev_queries_,
            "dev_tags": self.dev_tags_,
            "depth": self.depth_,
            "weights_tied": getattr(self, "weights_tied_", False),
        }

    def restore_state(self, state: dict) -> None:
        if state:
            try:
                self.weights_ = [float(w) for w in state["weights"]]
                self.transforms_ = [str(t) for t in state["transforms"]]
            except (KeyError, TypeError, ValueError):
                raise ClirkitError("corrupt fusion state (weights and transforms)") from None
            if len(self.weights_) != len(self.transforms_):
                raise ClirkitError("corrupt fusion state: as many weights as transforms expected")
            tags = state.get("dev_tags")  # (none in a file written before they were saved)
            if tags is not None and not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
                raise ClirkitError("corrupt fusion state: dev_tags is not a list of tags")
            self.dev_tags_ = tags
            depth = state.get("depth")  # (none in a file written before it was saved: not known, not checked)
            if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
                raise ClirkitError("corrupt fusion state: depth is not an integer >= 1")
            self.depth_ = depth
            tied = state.get("weights_tied", False)  # (none in a file written before it was saved: not known, False)
            if not isinstance(tied, bool):
                raise ClirkitError("corrupt fusion state: weights_tied is not true or false")
            self.weights_tied_ = tied
            self.dev_runs_ = self.dev_qrels_ = None  # (not saved: the fusion fuses at depth_ only)
            self.depth_weights_ = {} if depth is None else {depth: self.weights_}
            self.dev_score_, self.dev_queries_, self.sweep_ = state.get("dev_score"), state.get("dev_queries", 0), None

    def check_runs(self, n: int, *, depth: int = DEPTH) -> None:
        """Check, before any run is read, that these parameters can fuse ``n`` runs at ``depth``: the constraints
        (:meth:`check_params`), at least two runs, one transform or one per run, given weights one per run,
        finite and >= 0, summing to 1 where the method's do (interpolation), not all 0 where they do not
        (:func:`~clirkit.fusion.weights.weights_problem`), no ``step``, ``measure`` or ``transform`` set away from
        its default that the fusion would not read (:func:`unused_params`), and weights to tune a grid ``step``
        that divides 1 into a grid of bounded size and a known ``measure`` of the ranking within the ``depth`` the
        weights are tuned at (the fused dev runs are evaluated at it, so ``R@1000`` at depth 100 is refused, not
        computed as ``R@100``). ClirkitError naming the parameter otherwise."""
        from clirkit.measures import beyond_depth, depends_on_ranking, parse_measure
        from clirkit.tuning import grid_points

        self.check_params()
        if n < 2:
            raise ClirkitError(f"a fusion needs at least two runs, got {n}")
        self._given_transforms(n)
        method = METHODS[self.method]
        if self.weights is not None:
            problem = weights_problem(self.weights, n, method=self.method, sum_to_one=method.weights_sum_to_one)
            if problem is not None:
                raise InvalidParameterError("weights", "Fusion", problem[0], self.weights, got=problem[1])
        changed = [k for k in ("step", "measure", "transform") if getattr(self, k) != _DEFAULTS[k]]
        for name, why in unused_params(self.method, self.weights is not None, changed)[:1]:
            raise ClirkitError(f"{why}: leave {name} out (got {name}={getattr(self, name)!r})")
        if self._tuned():
            for name, check in (
                ("step", lambda: grid_points(n, self.step)),
                ("measure", lambda: parse_measure(self.measure)),
            ):
                try:
                    check()
                except ClirkitError as exc:
                    raise InvalidParameterError(
                        name, "Fusion", self._tuning[name], getattr(self, name), got=f": {exc}"
                    ) from None
            deep = beyond_depth([parse_measure(self.measure)], depth)
            if deep is not None:  # (the sweep evaluates the fused dev runs at the depth they are cut to)
                raise InvalidParameterError(
                    "measure",
                    "Fusion",
                    f"a measure within the {counted(depth, 'rank')} the weights are tuned at",
                    self.measure,
                    got=f": {deep.label} reads ranks beyond {depth} (e.g. {deep.kind}@{depth})",
                )
            if not depends_on_ranking(parse_measure(self.measure)):
                raise InvalidParameterError(
                    "measure",
                    "Fusion",
                    "a measure of the ranking",
                    self.measure,
                    got=f": {self.measure} does not depend on the order of the documents, so it cannot choose "
                    "weights (every weight ties)",
                )

    def check_depth(self, depth) -> None:
        """ClirkitError, before any work, for a ``depth`` (results per query) that is not an integer >= 1
        (:func:`clirkit.run.check_depth`) or that the method cannot fuse at (Borda's points bound it)."""
        check_depth(depth)
        method = METHODS.get(self.method)  # (an unknown method is named by check_params)
        if method is not None:
            method.check(depth)  # (with the weights, Borda's sums of points are checked as it fuses)

    def weights_at(self, depth: int) -> list[float]:
        """The weights that fuse at ``depth`` (results per query): ``weights_``, unless they were tuned at another
        depth (``depth_``), in which case those tuned on the dev runs cut to ``depth`` (as
        ``fit_runs(dev_runs_, dev_qrels_, depth=depth)`` tunes them), tuned once per depth and kept in
        ``depth_weights_``. ClirkitError for a fusion loaded from a file, which keeps no dev runs to tune them
        again."""
        tuned = getattr(self, "depth_", None)
        if tuned is None or depth == tuned:
            return self.weights_
        weights = self.depth_weights_.get(int(depth))
        if weights is None:
            if self.dev_runs_ is None:
                raise ClirkitError(
                    f"the weights were tuned on the fused dev runs cut to {tuned} ranks, and this fusion, loaded from "
                    f"a file, keeps no dev runs to tune them again at depth {depth}: give depth={tuned}, or fit it "
                    "again (fit, or fit_runs) to fuse at any depth"
                )
            sweep, _ = self._sweep(self.dev_runs_, self.dev_qrels_, int(depth))
            weights = self.depth_weights_[int(depth)] = [float(w) for w in sweep.best]
        return weights

    def _tuned(self) -> bool:
        """Whether the weights are to be tuned on dev (not given, and the method tunes them)."""
        method = METHODS.get(self.method)
        return self.weights is None and (method is None or method.tuned)

    def _given_transforms(self, n: int) -> list[str]:
        given = [self.transform] * n if isinstance(self.transform, str) else list(self.transform)
        if len(given) != n:
            raise ClirkitError(f"{len(given)} transforms for {n} systems: give one, or one per system")
        return given

    def check_scores(self, runs: Sequence) -> None:
        """Before any work on ``runs`` (the runs to fuse, in the order of ``systems``): a
        :class:`~clirkit.fusion.interpolation.RunScoresError` naming the position of the first run with a negative
        score whose transform is ``none`` (given, not ``auto``), which :meth:`fuse` would refuse after the tuning;
        nothing for a method of ranks (Borda reads no scores)."""
        from clirkit.fusion.interpolation import check_untransformed

        if not METHODS[self.method].transforms:
            return
        for i, (given, run) in enumerate(zip(self._given_transforms(len(runs)), runs)):
            if given == "none":
                check_untransformed(run, i)

    def _transforms(self, runs: Sequence) -> list[str]:
        return [
            ("shift" if run.scores.min(initial=0.0) < 0 else "none") if t == "auto" else t
            for t, run in zip(self._given_transforms(len(runs)), runs)
        ]

    def fuse(self, runs: Sequence, *, depth: int = DEPTH, tag: str | None = None):
        """Fuse the systems' runs (in the order of ``systems``) with the learned weights, keeping ``depth``
        documents per query (with the weights tuned at ``depth``, when tuned: :meth:`weights_at`); ``tag`` None
        records the method and weights, else a tag a run file can hold (:func:`~clirkit.run.check_run_tag`,
        checked first, with ``runs``: :func:`given_runs`)."""
        self.check_depth(depth)
        if tag is not None:
            check_run_tag(tag)
        if not hasattr(self, "weights_"):
            raise ClirkitError("the fusion is not fitted: call fit (or fit_runs) first")
        runs = given_runs(runs)
        if len(runs) != len(self.weights_):
            raise ClirkitError(f"{len(runs)} runs for a fusion of {len(self.weights_)} systems")
        dev_tags = getattr(self, "dev_tags_", None) or []  # none: fit on no dev runs, or a file saved before them
        crossed = crossed_pair([run.tag for run in runs], dev_tags)
        if crossed is not None:
            i, j = crossed
            raise ClirkitError(
                f"run {i + 1} (tag {runs[i].tag!r}) is paired with dev run {i + 1} (tag {dev_tags[i]!r}), "
                f"which has the tag of run {j + 1}: give the runs in the order of the dev runs the fusion was fit on"
            )
        transforms = [
            ("shift" if given == "auto" and run.scores.min(initial=0.0) < 0 else t)
            for given, t, run in zip(self._given_transforms(len(runs)), self.transforms_, runs)
        ]
        weights = self.weights_at(depth)
        return METHODS[self.method].fuse(list(runs), weights, transforms=transforms, depth=depth, tag=tag)

    def search(
        self,
        topics: Mapping[str, str],
        *,
        depth: int = DEPTH,
        excluded: Mapping[str, set[str]] | None = None,
        tag: str | None = None,
        quiet: bool = True,
    ):
        """The fused run of the systems' runs of ``topics`` (with the weights tuned at ``depth``, when tuned:
        :meth:`weights_at`)."""
        self.check_depth(depth)  # before the systems search
        if hasattr(self, "weights_"):
            self.weights_at(depth)  # tuned again, or refused, before the systems search
        runs = [s.search(topics, depth=depth, excluded=excluded, quiet=quiet) for s in self.systems]
        return self.fuse(runs, depth=depth, tag=tag or self.default_tag)


_DEFAULTS = {k: p.default for k, p in inspect.signature(Fusion).parameters.items()}


def unused_params(method: str, weights_given: bool, names: Iterable[str]) -> list[tuple[str, str]]:
    """``(name, why)`` for each parameter of ``names`` that a fusion by ``method`` does not read, its weights
    given or not (``weights_given``): ``step`` and ``measure`` tune the weights, so do nothing when they are given
    or the method tunes none (Borda); ``transform`` does nothing to a method of ranks (Borda). ``why`` is a clause
    starting with the name, e.g. ``"transform applies to interpolation, not borda"``, for the library, the
    command line and the experiment file to end in their own words."""
    spec = METHODS[method]
    out = []
    for name in names:
        if name == "transform" and not spec.transforms:
            scored = " or ".join(m for m, other in METHODS.items() if other.transforms)
            out.append((name, f"transform applies to {scored}, not {method}"))
        elif name in ("step", "measure") and not spec.tuned:
            out.append((name, f"{name} applies to tuned weights, and {method} tunes none"))
        elif name in ("step", "measure") and weights_given:
            out.append((name, f"{name} applies to tuned weights, and the weights are given"))
    return out


def given_runs(runs, name: str = "runs") -> list:
    """``runs`` (a list, a tuple, a generator: read once) as a list; ClirkitError naming the argument ``name`` for
    one run, or anything not a sequence of clirkit runs (a member None too)."""
    from clirkit.run import Run

    if isinstance(runs, (str, bytes, Run, PackedRun, Mapping)) or not isinstance(runs, Iterable):
        raise ClirkitError(f"{name}: expected a list of runs (clirkit Runs), got a {type(runs).__name__}")
    listed = list(runs)
    odd = next((i for i, r in enumerate(listed) if not isinstance(r, (Run, PackedRun))), None)
    if odd is not None:
        raise ClirkitError(
            f"{name}: expected a list of runs (clirkit Runs), got a {type(listed[odd]).__name__} among them"
        )
    return listed


def _earlier_same(items, i: int) -> int | None:
    """The number (from 1) of an item of ``items`` before the ``i``-th that is the very same object, or None."""
    return next((j for j, other in enumerate(items[: i - 1], 1) if other is items[i - 1]), None)


def _check_distinct(dev_runs: list) -> None:
    """ClirkitError for one run object given twice among the ``dev_runs`` to tune on: the sweep would split one
    system's weight as if they were two systems' (as :meth:`Fusion.fit` refuses a system listed twice, and the
    command a run file given twice)."""
    for i in range(2, len(dev_runs) + 1):
        same = _earlier_same(dev_runs, i)
        if same is not None:
            raise ClirkitError(f"dev_runs: run {i} is run {same} again: a fusion fuses distinct runs, give each once")


def _check_each_judged(dev_runs: list, judged: set) -> None:
    """Refuse a dev run of some queries none of which is in ``judged`` (the judged queries the dev runs cover):
    tuned on it, its system would score 0 and get weight 0 (e.g. a test run given as a dev run). A
    :class:`~clirkit.fusion.interpolation.RunScoresError` with its position, so that the command names its file;
    a dev run of no rows is let through (it contributes nothing, and the command says so)."""
    from clirkit.fusion.interpolation import RunScoresError

    for j, run in enumerate(dev_runs):
        ids = list(run.query_ids)
        if ids and not judged.intersection(ids):
            raise RunScoresError(
                f"dev run {j + 1} ({str(run.tag)!r}): none of its {len(ids)} queries (e.g. {str(ids[0])!r}) is in "
                f"the dev qrels: is it the dev run of system {j + 1}?",
                j,
            )


def crossed_pair(tags: Sequence[str], dev_tags: Sequence[str]) -> tuple[int, int] | None:
    """``(i, j)`` when the runs of tags ``tags`` are paired by position with dev runs of tags ``dev_tags`` that show
    another pairing: the runs' tags all distinct, and dev run ``i`` (the first such) has the tag of run ``j != i``
    (some or all of the runs swapped, or two dev runs of one tag). None otherwise: each dev run has its run's tag or
    none of the runs' tags (other tools' runs, tagged as they like), or the runs' tags repeat (all ``clirkit``)."""
    if len(set(tags)) != len(tags):
        return None
    where = {tag: j for j, tag in enumerate(tags)}
    for i, dev in enumerate(dev_tags[: len(tags)]):
        j = where.get(dev, i)
        if j != i:
            return i, j
    return None
