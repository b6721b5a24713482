"""The training of a :class:`~clirkit.boost.ranker.BoostRanker` from token lists (its ``fit_tokens``): the pair
features, the tuples (joined by the extra known-item queries'), the bags boosted standalone or the beta sweep
boosted from the base ranker's margins (early-stopped on dev), and the model's record of how it was made."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.analysis import Analyzer
from clirkit.boost import pairmap
from clirkit.boost.bagging import (
    BoostData,
    BoostParams,
    bag_rows,
    bagged_dev_score,
    boost_scored_each,
    kept_if_significant,
    train_bags,
    warm_kernels,
    worker_groups,
)
from clirkit.boost.base import NORMALIZATION, BaseScores, CompactRun, base_system, compact, held_run
from clirkit.boost.features import PairFeatures
from clirkit.boost.model import BoostModel
from clirkit.boost.pairgroups import PairCache
from clirkit.boost.scoring import DevEvaluator, RerankEvaluator
from clirkit.boost.sweep import BetaSweep, betas_to_try, sweep_betas
from clirkit.boost.trained import unrecorded
from clirkit.boost.tuples import ExtraTupleError, NoTupleError, Tuples, index_of, make_tuples
from clirkit.boost.unused import check_eval_every, set_away_from_defaults
from clirkit.errors import ClirkitError, counted
from clirkit.parallel import run_tasks, workers_started
from clirkit.progress import say
from clirkit.run import Qrels, Run
from clirkit.sortedunique import sorted_unique

if TYPE_CHECKING:
    from clirkit.boost.ranker import BoostRanker

# hyper-parameters a model's params leave out: how it ran (jobs, backend, scheduler, quiet), what the model keeps
# elsewhere (the analyzers' languages, the base, beta; the seed as "seed"), what is recorded only when it matters
# (doc_weighting, candidate_depth, parallel_weight, hard_negatives, max_buckets), and the depth of the dev evaluations
_NOT_RECORDED = frozenset(
    {
        "jobs",
        "backend",
        "scheduler",
        "quiet",
        "source_lang",
        "target_lang",
        "base",
        "beta",
        "beta_grid",
        "random_state",
        "doc_weighting",
        "candidate_depth",
        "parallel_weight",
        "hard_negatives",
        "eval_depth",
        "significance",
        "max_buckets",
    }
)


def fit_tokens(
    ranker: "BoostRanker",
    queries: Mapping[str, Sequence[str]],
    qrels: Qrels,
    docids: Sequence[str],
    doc_tokens: Sequence[Sequence[str]],
    *,
    dev_queries: Mapping[str, Sequence[str]] | None,
    dev_qrels: Qrels | None,
    candidates: Run | None,
    source_analyzer: Analyzer | None,
    target_analyzer: Analyzer | None,
    extra_queries: Mapping[str, Sequence[str]] | None,
    extra_qrels: Qrels | None,
    base_made_by: dict | None,
    base_run,
) -> None:
    """:meth:`BoostRanker.fit_tokens <clirkit.boost.ranker.BoostRanker.fit_tokens>` on ``ranker``: the pair
    features, the tuples, the bags (standalone) or the beta sweep from the base's margins, and the model and the
    fitted attributes it sets."""
    has_dev = dev_queries is not None and dev_qrels is not None
    base_run = check_fit(ranker, queries, docids, doc_tokens, candidates, extra_queries, extra_qrels, has_dev, base_run)
    qids, extra_ids = list(queries), list(extra_queries or ())
    query_ids = qids + extra_ids
    dev = (dev_queries, dev_qrels) if has_dev else None
    # the workers import and read the kernels while the tuples are made
    with workers_started(parallel_jobs(ranker), BOOSTING_MODULES, warm=warm_kernels):
        features = PairFeatures.fit(
            [queries[q] for q in qids] + [extra_queries[q] for q in extra_ids],
            doc_tokens,
            ngram=ranker.features.ngram,
            max_df=ranker.features.max_df,
            frequent_word_ngrams=ranker.features.frequent_word_ngrams,
            doc_weighting=ranker._doc_weighting(),
            hash_seed=ranker.features.hash_seed,
        )
        train_base = train_base_scores(ranker, base_run, query_ids, len(qids), docids)
        check_candidates(ranker, candidates, qids, docids, qrels)
        tuples, n_extra = training_tuples(
            ranker, qrels, extra_qrels if extra_ids else None, query_ids, docids, candidates, train_base
        )
        check_training_set(ranker, features, len(tuples), len(query_ids), len(docids))
        say(
            f"boost: {counted(len(tuples), 'tuple')} ({n_extra:,} extra) from "
            f"{counted(len(sorted_unique(tuples.query)), 'query', 'queries')}; "
            f"{len(features.source):,} source and {len(features.target):,} target {ranker.features.ngram}-grams",
            quiet=ranker.quiet,
        )
        evaluator = dev_evaluator(ranker, dev, features, docids) if ranker.base is None else None
    if ranker.base is None:
        sweep, base_info = None, None
        results = boost_bags(ranker, features, tuples, evaluator)
    else:
        sweep, results = boost_from_base(ranker, features, tuples, train_base, base_run, dev, docids)
        base_info = {"normalization": NORMALIZATION, **base_run.describe(), "made_by": dict(base_made_by or {})}
    say_dropped(results, ranker.features.max_buckets, quiet=ranker.quiet)
    ranker.model_ = BoostModel.from_results(
        results,
        features.source.terms,
        features.target.terms,
        ngram=ranker.features.ngram,
        source_analyzer=source_analyzer or Analyzer(ranker.source_lang),
        target_analyzer=target_analyzer or Analyzer(ranker.target_lang),
        params=model_record(ranker, tuples, n_extra, results, sweep, candidates),
        beta=0.0 if sweep is None else sweep.best,
        base=base_info,
        doc_weighting=features.doc_weighting,
        tgt_idf=features.idf,
    )
    ranker.results_, ranker.tuples_, ranker.beta_sweep_ = results, tuples, sweep
    ranker.docids_, ranker.doc_tokens_ = list(docids), doc_tokens
    if sweep is not None:
        ranker.beta_, ranker.beta_scores_ = sweep.best, sweep.by_beta()


def check_fit(
    ranker: "BoostRanker", queries, docids, doc_tokens, candidates, extra_queries, extra_qrels, has_dev: bool, base_run
) -> CompactRun | None:
    """The hyper-parameters (:meth:`check_params`, then none left unused: :meth:`check_unused`) and what
    :meth:`fit_tokens` is given; returns the base run, encoded:
    ``base_run`` when given, else the run the base system holds (a run given as ``base``:
    :func:`~clirkit.boost.base.held_run`); None standalone."""
    ranker.check_params()
    ranker.check_unused(extra=extra_queries is not None, dev=has_dev, candidates=candidates is not None)
    if "eval_every" in set_away_from_defaults(ranker.flat_params()):  # the default is what the rounds allow
        check_eval_every(ranker.boosting.rounds, ranker.boosting.eval_every, has_dev)
    if ranker.base is not None and base_run is None:
        base_run = held_run(base_system(ranker.base))
        if base_run is None:
            raise ClirkitError("fit_tokens with a base system needs its run (base_run); fit makes it")
    if len(docids) != len(doc_tokens):
        raise ClirkitError(f"{len(docids)} document ids but {len(doc_tokens)} documents")
    if not queries:
        raise ClirkitError("no training queries (the train topics are empty): give the queries to learn from")
    if ranker.base is not None and candidates is not None:
        raise ClirkitError("give a base run or a candidate run, not both: the base run gives the hard negatives")
    if (extra_queries is None) != (extra_qrels is None):
        raise ClirkitError("extra tuples need both extra queries and their qrels")
    clash = set(queries) & set(extra_queries or ())
    if clash:
        raise ClirkitError(f"extra query id {sorted(clash)[0]!r} is also a training query id")
    if ranker.base is not None and ranker.boosting.beta is None and not has_dev:
        raise ClirkitError("tuning beta needs dev queries and qrels; give them, or give beta")
    return compact(base_run) if ranker.base is not None else None


def check_training_set(ranker: "BoostRanker", features: PairFeatures, n_tuples: int, n_queries: int, n_docs: int):
    """ClirkitError, before any boosting, when ``max_df`` left no source or no target n-gram of the ``n_queries``
    training queries (the extra ones too) and ``n_docs`` documents, or ``bag_fraction`` of the ``n_tuples`` is less
    than one tuple a bag (:func:`~clirkit.boost.bagging.bag_rows` would draw one): each says what to change."""
    max_df = ranker.features.max_df
    for terms, n, what in ((features.source, n_queries, "query"), (features.target, n_docs, "document")):
        if len(terms) == 0 and max_df < 1:
            raise ClirkitError(
                f"max_df {max_df:g} drops every {what} n-gram (the smallest fraction of the {n} {what} texts an "
                f"n-gram can be in is 1/{n} = {1 / n:.3g}): give a larger max_df (--max-df)"
            )
        if len(terms) == 0:  # (nothing to learn: an empty model would be written)
            raise ClirkitError(
                f"no {what} text holds a term after analysis ({counted(n, f'{what} text')}): they are empty, "
                f"stopwords or of another language; check the {what} texts, the stopwords and the languages"
            )
    fraction = ranker.bagging.bag_fraction
    if fraction < 1 and round(fraction * n_tuples) < 1:
        raise ClirkitError(
            f"bag_fraction {fraction:g} of the {n_tuples} tuples is less than one tuple a bag (each would hold one): "
            f"give bag_fraction >= 1/{n_tuples} = {1 / n_tuples:.3g} (--bag-fraction)"
        )


def train_base_scores(
    ranker: "BoostRanker", base_run: CompactRun | None, query_ids: list[str], n_train: int, docids
) -> BaseScores | None:
    """The base scores of the training queries (the first ``n_train`` of ``query_ids``) and the extra ones."""
    if base_run is None:
        return None
    unknown = np.flatnonzero(index_of(base_run.doc_ids, docids) < 0)
    if len(unknown):
        raise ClirkitError(
            f"the base run names document {str(base_run.doc_ids[unknown[0]])!r}, which is not among the documents: "
            "give a run of these queries over these documents"
        )
    train_base = BaseScores(base_run, query_ids, docids)
    if len(train_base) == 0:
        raise ClirkitError("the base run has no row for a training query and a known document")
    say_uncovered(ranker, train_base, query_ids, "training", "their tuples start from margin 0", n_train)
    return train_base


def say_uncovered(ranker: "BoostRanker", base: BaseScores, qids: list[str], what: str, effect: str, n=None) -> None:
    """Say on stderr (unless the ranker is quiet) how many of the first ``n`` (all if None) of ``qids`` (the
    ``what`` queries, in the order ``base`` was made with) the base run has no row for, the first of them, and
    ``effect``, what that does to the training."""
    listed = base.listed_queries(len(qids))
    missing = [q for q, has in zip(qids[:n], listed.tolist()) if not has]
    if missing:
        say(
            f"boost: the base run has no row for {len(missing)} of the {len(qids[:n])} {what} queries (the first: "
            f"{missing[0]!r}; {effect})",
            quiet=ranker.quiet,
        )


def uncovered_queries(run: Run, qids: Sequence[str], docids: Sequence[str]) -> list[str]:
    """The queries of ``qids`` (in their order) that ``run`` has no row for at a document of ``docids``."""
    known = index_of(run.docids, docids) >= 0
    covered = set(sorted_unique(run.qids[known]).tolist())
    return [q for q in qids if q not in covered]


def queries_without_negatives(
    run: Run, qids: Sequence[str], docids: Sequence[str], qrels: Qrels, min_grade: int, depth: int | None
) -> list[str]:
    """The queries of ``qids`` (in their order) that ``run``'s top ``depth`` rows (all if None) give no candidate
    negative: no row at a document of ``docids`` that the query does not judge relevant (grade >= ``min_grade``),
    as :func:`~clirkit.boost.tuples.make_tuples` draws them. They include the :func:`uncovered_queries`."""
    n_docs = len(docids)
    top = run.top(depth) if depth is not None else run
    cq, cd = index_of(top.qids, qids), index_of(top.docids, docids)
    rel = qrels.rels >= min_grade
    rq, rd = index_of(qrels.qids[rel], qids), index_of(qrels.docids[rel], docids)
    relevant = (rq * n_docs + rd)[(rq >= 0) & (rd >= 0)]
    keys = (cq * n_docs + cd)[(cq >= 0) & (cd >= 0)]
    with_negative = np.zeros(len(qids), dtype=bool)
    with_negative[keys[~np.isin(keys, relevant)] // max(n_docs, 1)] = True
    return [q for q, has in zip(qids, with_negative) if not has]


def all_relevant_rows(depth: int, min_grade: int) -> str:
    """Why a candidate run with rows for the training queries gives none of them a candidate negative."""
    return f"its top {depth} rows for them are all documents they judge relevant (grade >= {min_grade})"


def candidates_lacking(
    candidates: Run, qids: list[str], docids, qrels: Qrels, min_grade: int, depth: int
) -> tuple[str | None, int]:
    """``(problem, n)``: ``n`` training queries ``qids`` the candidate run gives no candidate negative, and the
    problem when that is every one of them, ``"no row"`` (no row at a document of ``docids``) or ``"all
    relevant"`` (its top ``depth`` rows for them are all judged relevant), else None."""
    if len(uncovered_queries(candidates, qids, docids)) == len(qids):
        return "no row", len(qids)
    lacking = len(queries_without_negatives(candidates, qids, docids, qrels, min_grade, depth))
    return ("all relevant" if lacking == len(qids) else None), lacking


def check_candidates(ranker: "BoostRanker", candidates: Run | None, qids: list[str], docids, qrels: Qrels) -> None:
    """The candidate run against the training queries ``qids``, as the base run is (:func:`train_base_scores`):
    an error when it has no row for any of them (at a known document), or no row of a document they do not
    judge relevant (``qrels``: no candidate negative for any of them), else said how many it gives no candidate
    negative (their negatives are drawn uniformly)."""
    if candidates is None:
        return
    problem, lacking = candidates_lacking(
        candidates, qids, docids, qrels, ranker.sampling.min_grade, ranker._candidate_depth()
    )
    if problem == "no row":
        raise ClirkitError("the candidate run has no row for a training query and a known document")
    if problem == "all relevant":
        raise ClirkitError(
            "the candidate run has no non-relevant row for a training query and a known document: "
            + all_relevant_rows(ranker._candidate_depth(), ranker.sampling.min_grade)
        )
    if lacking:
        say(
            f"boost: the candidate run has no non-relevant row for {lacking} of the {len(qids)} training queries "
            "(their negatives are drawn uniformly)",
            quiet=ranker.quiet,
        )


def training_tuples(
    ranker: "BoostRanker",
    qrels: Qrels,
    extra_qrels: Qrels | None,
    query_ids: list[str],
    docids,
    candidates,
    base: BaseScores | None,
) -> tuple[Tuples, int]:
    """The training tuples (:func:`make_tuples`) joined by the extra queries' (weighing ``parallel_weight``
    times their grade weight), and how many of them are extra."""
    tuples = make_tuples(
        qrels,
        query_ids,
        docids,
        negatives=ranker.sampling.negatives,
        min_grade=ranker.sampling.min_grade,
        candidates=candidates,
        base=base,
        candidate_depth=ranker._candidate_depth(),
        grade_pairs=ranker.sampling.grade_pairs,
        weighting=ranker.sampling.weighting,
        max_positives=ranker.sampling.max_positives,
        hard_negatives=ranker.sampling.hard_negatives if ranker.base is not None else 0,
        seed=ranker.random_state,
        quiet=ranker.quiet,
    )
    if extra_qrels is None:
        return tuples, 0
    try:
        extra = make_tuples(
            extra_qrels,
            query_ids,
            docids,
            negatives=max(ranker.sampling.negatives, 1),
            min_grade=ranker.sampling.min_grade,
            weighting=ranker.sampling.weighting,
            seed=[ranker.random_state, 1],
            what="extra",
            quiet=ranker.quiet,
        )
    except NoTupleError as exc:
        raise ExtraTupleError(str(exc)) from None
    except ClirkitError as exc:
        raise ClirkitError(f"extra tuples: {exc}") from None
    return tuples.joined(extra, ranker.sampling.parallel_weight), len(extra)


#: What a worker boosting bags or betas imports (:func:`clirkit.parallel.workers_started`), numba's kernels with them.
BOOSTING_MODULES = ("clirkit.boost.bagging", "clirkit.boost.kernels", "clirkit.retrieval.kernels")


def parallel_jobs(ranker: "BoostRanker") -> int:
    """The ``jobs`` of the loky workers that will boost ``ranker``'s bags, or the betas it tries from a base, in
    parallel; 1 when none will (one bag, a beta given, another backend)."""
    parallel = ranker.bagging.bags > 1 or (ranker.base is not None and ranker.boosting.beta is None)
    return ranker.jobs if parallel and ranker.backend == "loky" else 1


def boost_bags(
    ranker: "BoostRanker", features: PairFeatures, tuples: Tuples, dev, cache: PairCache | None = None
) -> list:
    """The bags boosted on ``tuples`` (:func:`~clirkit.boost.bagging.train_bags`), early-stopped by ``dev``."""
    data = BoostData(features.Qm, features.Dm, tuples, features.src_hash, features.tgt_hash, dev, cache)
    return train_bags(
        data,
        BoostParams.of(ranker.flat_params()),
        bags=ranker.bagging.bags,
        fraction=ranker.bagging.bag_fraction,
        replace=ranker.bagging.bootstrap,
        seed=ranker.random_state,
        jobs=ranker.jobs,
        backend=ranker.backend,
        scheduler=ranker.scheduler,
        quiet=ranker.quiet,
    )


def boost_from_base(
    ranker: "BoostRanker",
    features: PairFeatures,
    tuples: Tuples,
    train_base: BaseScores,
    base_run: CompactRun,
    dev,
    docids,
) -> tuple[BetaSweep, list]:
    """Boosted from the base margins once per beta tried (:func:`~clirkit.boost.sweep.sweep_betas`), each
    early-stopped by re-ranking the dev queries' base run."""
    betas = betas_to_try(ranker.boosting.beta, ranker.boosting.beta_grid)
    rerank = None
    if dev is not None:
        dqids, Qdev, judged = dev_matrices(ranker, *dev, features)
        dev_base = BaseScores(base_run, dqids, docids)
        if len(dev_base) == 0:
            raise ClirkitError(
                "the base run has no row for any dev query: it must cover the training and the dev queries"
            )
        say_uncovered(ranker, dev_base, list(dqids), "dev", "they add AP 0 to every dev MAP")

        rerank = RerankEvaluator(
            Qdev, features.Dm, dqids, docids, judged, dev_base, 0.0, depth=ranker.boosting.eval_depth
        ).with_beta  # the dev candidates held once, for every beta

    # the betas boost the same tuples from other weights: their pairs are mapped and grouped by bucket once
    cache = PairCache() if len(betas) > 1 and ranker.bagging.bags == 1 else None

    def boost(beta: float):
        evaluator = rerank(beta) if rerank is not None else None
        results = boost_bags(ranker, features, train_base.start_tuples(tuples, beta), evaluator, cache)
        return results, bagged_dev_score(results, evaluator) if evaluator is not None else None

    def boost_all(betas: tuple[float, ...]) -> list:
        """The betas boosted by ``jobs`` workers (:func:`~clirkit.parallel.run_tasks`), the pairs mapped here
        first (the workers take the map with the cache); the results in the betas' order."""
        params = BoostParams.of(ranker.flat_params())
        rows = bag_rows(
            len(tuples),
            0,
            seed=ranker.random_state,
            fraction=ranker.bagging.bag_fraction,
            replace=ranker.bagging.bootstrap,
        )
        if pairmap.mapped():
            cache.pair_map(
                sp.csr_matrix(features.Qm, dtype=np.float64),
                sp.csr_matrix(features.Dm, dtype=np.float64),
                tuples.subset(rows),
                features.src_hash,
                features.tgt_hash,
                params.hash_seed,
                params.bits,
                budget=params.max_buckets,
            )
        data = []
        for beta in betas:
            evaluator = rerank(beta) if rerank is not None else None
            data.append(
                BoostData(
                    features.Qm,
                    features.Dm,
                    train_base.start_tuples(tuples, beta),
                    features.src_hash,
                    features.tgt_hash,
                    evaluator,
                    cache,
                )
            )
        kw = {"fraction": ranker.bagging.bag_fraction, "replace": ranker.bagging.bootstrap, "seed": ranker.random_state}
        groups = worker_groups(len(betas), ranker.jobs, ranker.backend)
        done = run_tasks(
            [(boost_scored_each, ([data[i] for i in group], params), kw) for group in groups],
            jobs=ranker.jobs,
            backend=ranker.backend,
            scheduler=ranker.scheduler,
            desc=f"betas ({len(betas)})",
            unit="group",
            quiet=ranker.quiet,
        )
        return [result for results in done for result in results]

    parallel = cache is not None and ranker.jobs != 1
    sweep, results = sweep_betas(
        betas, boost, tune=ranker.boosting.beta is None, quiet=ranker.quiet, boost_all=boost_all if parallel else None
    )
    if rerank is None or not ranker.boosting.significance:
        return sweep, results
    return sweep, kept_if_significant(
        results, rerank(sweep.best), ranker.boosting.significance, seed=ranker.random_state
    )


def model_record(
    ranker: "BoostRanker", tuples: Tuples, n_extra: int, results: list, sweep: BetaSweep | None, candidates
) -> dict:
    """The model's ``params``: the hyper-parameters that shape it (:meth:`get_params`, less
    :data:`_NOT_RECORDED`; the ones a setting makes matter only when it does), every one it was trained with by its
    flat name (``hyper_params``, :func:`trained_params`: what a loaded ranker reports), the seed, the tuples and
    what each bag kept (rounds, pairs, buckets, dev curve), and the dev MAP of each beta tried."""
    info = {k: v for k, v in ranker.flat_params().items() if k not in _NOT_RECORDED}
    info.update(
        hyper_params=trained_params(ranker, budget_used=any("dropped" in r.info for r in results)),
        seed=ranker.random_state,
        n_tuples=len(tuples),
        bag_rounds=[int(r.best_round) for r in results],
        bag_pairs=[int(r.n_pairs) for r in results],
        bag_buckets=[int(r.n_buckets) for r in results],
        dev_curves=[{"rounds": r.eval_rounds.tolist(), "map": r.eval_scores.tolist()} for r in results],
    )
    if ranker._doc_weighting() != "binary":
        info.update(doc_weighting=ranker._doc_weighting())
    if candidates is not None or ranker.base is not None:
        info.update(candidate_depth=ranker._candidate_depth())
    if n_extra:
        info.update(n_extra_tuples=n_extra, parallel_weight=ranker.sampling.parallel_weight)
    if any("not_kept" in r.info for r in results):  # rounds dev chose but the guard against the base dropped
        info.update(bag_not_kept=[r.info.get("not_kept") for r in results])
    if any("dropped" in r.info for r in results):  # what the budget of buckets left out, bag by bag
        info.update(
            max_buckets=ranker.features.max_buckets,
            bag_dropped=[r.info.get("dropped", {"pairs": 0, "buckets": 0, "support": 0}) for r in results],
        )
    if sweep is not None:  # a beta given without dev queries has no dev MAP: recorded as none (an empty map)
        info.update(
            hard_negatives=ranker.sampling.hard_negatives,
            beta_dev_map={b: m for b, m in sweep.dev_map().items() if m is not None},
        )
    return info


def trained_params(ranker: "BoostRanker", *, budget_used: bool = True) -> dict:
    """``{flat name: value}`` (JSON-ready) of the hyper-parameters ``ranker`` trains with: all but its ``base`` (a
    system, given again at load), its ``runtime_params`` (how it runs, not what it learns) and ``max_buckets`` when
    the budget left nothing out (``budget_used`` False: the model is the same bytes under any budget it fits); a
    ``significance`` of 0 as None, the same setting."""
    from clirkit.estimator import jsonable

    skip = unrecorded(ranker, budget_used=budget_used)
    params = {k: v for k, v in ranker.flat_params().items() if k not in skip}
    return jsonable({**params, "significance": params["significance"] or None})  # (0 is None: the same test)


def say_dropped(results: list, budget: int | None, *, quiet: bool) -> None:
    """One line on stderr when the budget of buckets (``max_buckets``) left pairs out of a bag: how many pairs
    and buckets (summed over the bags, or over the betas' boostings: the same for each) and the least support
    kept."""
    dropped = [r.info["dropped"] for r in results if "dropped" in r.info]
    if not dropped:
        return
    first = dropped[0]
    same = all(d == first for d in dropped)
    pairs = first["pairs"] if same else sum(d["pairs"] for d in dropped)
    buckets = first["buckets"] if same else sum(d["buckets"] for d in dropped)
    each = "" if len(dropped) == 1 else (" in each boosting" if same else f" over {len(dropped)} bags")
    say(
        f"boost: max_buckets {budget:,} kept the buckets of most pair occurrences (at least "
        f"{min(d['support'] for d in dropped)}); {pairs:,} pairs in {buckets:,} buckets were left out{each}",
        quiet=quiet,
    )


def dev_matrices(ranker: "BoostRanker", dev_queries, dev_qrels: Qrels, features: PairFeatures):
    """``(dev qids, dev query matrix over the training source n-grams, dev qrels of those queries)``."""
    dqids = list(dev_queries)
    Qdev = features.queries([dev_queries[q] for q in dqids])
    judged = dev_qrels.subset(dqids)
    if not np.any(judged.rels >= 1):
        raise ClirkitError("the dev qrels judge no dev query relevant to any document")
    return dqids, Qdev, judged


def dev_evaluator(ranker: "BoostRanker", dev, features: PairFeatures, docids) -> DevEvaluator | None:
    """Standalone early stopping: the dev queries ranked over the whole collection (None without dev)."""
    if dev is None:
        return None
    dqids, Qdev, judged = dev_matrices(ranker, *dev, features)
    return DevEvaluator(Qdev, features.Dm, dqids, docids, judged, depth=ranker.boosting.eval_depth)
