"""``BoostRanker``: the estimator that turns training queries, qrels and documents into a BoostModel.

Standalone (the paper's method) it ranks the whole collection with q^T W d. Given
a base system's run (``base``), it is boosted from that base ranker
(:mod:`clirkit.boost.base`): tuples start from the base margins, hard negatives
come from the base run, early stopping re-ranks the base run of the dev
queries, and beta is tuned on dev over ``beta_grid`` unless given.
"""

from __future__ import annotations

from numbers import Integral
from typing import Mapping, Sequence

from clirkit.analysis import Analyzer
from clirkit.boost.base import BaseRun, CompactRun, base_system, held_run
from clirkit.boost.model import BoostModel
from clirkit.boost.params import BETA_GRID, Bagging, Boosting, PairFeatures, TupleSampling
from clirkit.boost.trained import as_trained
from clirkit.boost.training import fit_tokens
from clirkit.constraints import Interval, StrOptions, at_least_zero
from clirkit.documents import Documents
from clirkit.errors import ClirkitError
from clirkit.estimator import DEPTH, Resources, System, fit_given, takes_resources
from clirkit.parallel import BACKENDS, Scheduler
from clirkit.paramgroups import Grouped
from clirkit.progress import progress, say
from clirkit.run import Qrels, Run
from clirkit.searchoptions import as_excluded, drop_excluded, search_depth

__all__ = ["BETA_GRID", "BoostRanker", "FLAT_ORDER"]

BASE_BATCH = 250  # training queries a base system searches at a time (its run is kept as integer codes)
# the flat names of the parameters (an experiment file's keys, a model's record) in the order they had before they
# were grouped (issue 38), the order in which an experiment file's keys are listed
FLAT_ORDER = (
    *("ngram", "rounds", "rule", "bits", "max_buckets", "hash_seed", "eps", "negatives", "min_grade", "grade_pairs"),
    *("weighting", "max_positives", "candidate_depth", "bags", "bag_fraction", "bootstrap", "eval_every", "patience"),
    *("eval_depth", "jobs", "backend", "scheduler", "source_lang", "target_lang", "max_df", "frequent_word_ngrams"),
    *("base", "beta", "beta_grid", "hard_negatives", "significance", "parallel_weight", "doc_weighting"),
    *("random_state", "quiet"),
)


class BoostRanker(Grouped, System):
    """Boosted bilinear ranker over hashed (source n-gram, target n-gram) pairs (SPEC §5).

    Hyper-parameters (scikit-learn style; learned state ends with ``_``), four of them groups
    (:mod:`clirkit.boost.params`; ``get_params(deep=True)`` names their parameters ``features__ngram`` etc.,
    :meth:`from_flat` takes them by their own names, as an experiment file does):

    ``features`` (:class:`~clirkit.boost.params.PairFeatures`), the pairs:
        ngram: 1 (Boost-1g), 2 (Boost-2g: unigrams and bigrams) or 3 (unigrams to trigrams).
        bits: pairs are hashed into 2**bits buckets (<= 32).
        max_buckets: the most buckets given boosting state (W+/W-, 16 bytes each); a set of tuples whose pairs
            fill more keeps those of most pair occurrences (:mod:`clirkit.boost.budget`) and leaves the other
            buckets' pairs out (said on stderr, recorded in the model). None: every non-empty bucket. The default
            (2**27) holds the standalone bigram model of nave-en-es (1.0e8 buckets) whole.
        hash_seed: MurmurHash3 seed.
        max_df: drop source n-grams in more than this fraction of the training
            queries and target n-grams in more than this fraction of the documents (1: keep all;
            with a base, level with 0.05 on the mean dev AP over seven dev collections, and better on
            nave-en-es: results/2026-11-29-boost-settings.md).
        frequent_word_ngrams: keep n-grams (n >= 2) containing a word that max_df
            drops; False keeps only n-grams made of kept words.
        doc_weighting: document side of the bilinear scorer: ``binary`` (the
            paper), ``idf``, ``length`` or ``idf-length`` (:mod:`clirkit.boost.weighting`).
            None: ``binary`` standalone, ``length`` with ``base`` (the best of
            the four on the nave-en-es dev split, boosting/README.md).

    ``sampling`` (:class:`~clirkit.boost.params.TupleSampling`), the training tuples:
        negatives, min_grade, grade_pairs, weighting, max_positives:
            tuple sampling, see :func:`clirkit.boost.tuples.make_tuples`.
        hard_negatives: with ``base``, d- per d+ drawn from the base run's top
            ``candidate_depth`` (only for a d+ the base run retrieves), in
            addition to the ``negatives`` uniform ones (3: best of 1, 2, 3 on
            the nave-en-es dev split, boosting/README.md).
        candidate_depth: ranks of the candidate or base run giving hard
            negatives (None: 100 with ``base``, 1000 otherwise).
        parallel_weight: importance of the extra tuples (the known-item queries of
            :class:`~clirkit.estimator.Resources`, e.g. parallel sentences) relative to the others.

    ``boosting`` (:class:`~clirkit.boost.params.Boosting`), the rounds:
        rounds: maximum boosting rounds per bag (6,000 and ``eval_every`` 100: early stopping on dev chose
            100-5,900 of them across the dev collections, results/2026-11-29-boost-settings.md).
        rule: step rule, ``"exact"`` or ``"r"``.
        eps: smoothing of the exact step (None = 1 / number of tuples).
        eval_every, patience, eval_depth: early stopping on the dev set's MAP.
        beta: weight of the base scores (>= 0); None tunes it on the dev MAP
            over ``beta_grid`` (needs dev queries).
        significance: with ``base`` and dev queries, the level of the paired randomization test the boosted
            model must reach on dev against the base alone to keep its rounds; otherwise it keeps none and ranks
            as the base (:func:`~clirkit.boost.bagging.kept_if_significant`), and no round that scores below the
            base alone on dev is kept. None or 0 (an experiment file's way) keeps the rounds early stopping chose.

    ``bagging`` (:class:`~clirkit.boost.params.Bagging`):
        bags, bag_fraction, bootstrap: bagging (1 bag of all tuples = plain boosting).

    And:
        base: a base system (fitted, e.g. :class:`clirkit.systems.PSQ`): it
            searches the training and dev queries at :meth:`fit` and the queries
            of :meth:`search`, whose run this ranker re-ranks; or its run over the training (and dev) queries: a
            Run, Runs that split it by query, or a
            :class:`~clirkit.boost.base.CompactRun`. None: standalone boosting.
        jobs, backend, scheduler: joblib parallelism over bags, or over the betas
            tried when one bag is boosted from a base (``loky``, ``threading``
            or ``dask`` with a scheduler address or Client); the same models.
        source_lang, target_lang: analyzer languages (used by :meth:`fit` when the resources have none).
        random_state: seed of tuple sampling and bagging.
        quiet: no progress on stderr.
    """

    _parameter_constraints = {
        "features": [PairFeatures],
        "sampling": [TupleSampling],
        "boosting": [Boosting],
        "bagging": [Bagging],
        "jobs": [Interval(Integral, 1, None, closed="left")],  # as --jobs and an experiment's jobs: no -1
        "backend": [StrOptions(set(BACKENDS))],
        "scheduler": [Scheduler()],
        "source_lang": [str],
        "target_lang": [str],
        "base": "no_validation",
        "random_state": [at_least_zero()],
        "quiet": ["boolean"],
    }
    groups = {"features": PairFeatures, "sampling": TupleSampling, "boosting": Boosting, "bagging": Bagging}
    features: PairFeatures
    sampling: TupleSampling
    boosting: Boosting
    bagging: Bagging
    flat_order = FLAT_ORDER
    default_tag = "Boost"
    keeps_model = True
    runtime_params = ("jobs", "backend", "scheduler", "quiet")  # the same models (above): set_params keeps the fit
    file_keys = {
        "parallel_tuples": (
            bool,
            "true: the parallel corpus's pairs are added as known-item training "
            "queries (a source sentence finds its aligned document)",
        )
    }
    system_keys = ("base",)

    def __init__(
        self,
        *,
        features: PairFeatures | None = None,
        sampling: TupleSampling | None = None,
        boosting: Boosting | None = None,
        bagging: Bagging | None = None,
        base: BaseRun | None = None,
        source_lang: str = "en",
        target_lang: str = "es",
        jobs: int = 1,
        backend: str = "loky",
        scheduler=None,
        random_state: int = 0,
        quiet: bool = False,
        **flat,
    ) -> None:
        self._set_groups({"features": features, "sampling": sampling, "boosting": boosting, "bagging": bagging}, flat)
        self.base = base
        self.source_lang = source_lang
        self.target_lang = target_lang
        self.jobs = jobs
        self.backend = backend
        self.scheduler = scheduler
        self.random_state = random_state
        self.quiet = quiet

    def check_params(self) -> None:
        """Each hyper-parameter against its constraints (a group's named as the ranker's), and bags that can
        differ: bags of every tuple drawn without replacement would be the same bag trained again; betas to try
        when no beta is given, a scheduler only with the dask backend and the dask backend only with one (checked here,
        not first in :meth:`fit`: an experiment file checks them when read)."""
        super().check_params()
        self.check_flat_params()
        if self.boosting.beta is None and not self.boosting.beta_grid:
            raise ClirkitError("beta_grid is empty: give betas to try, or beta")
        if self.backend == "dask" and self.scheduler is None:
            raise ClirkitError("backend dask needs scheduler, the dask scheduler's address (or a Client)")
        if self.scheduler is not None and self.backend != "dask":
            raise ClirkitError(
                f"scheduler is read only with backend dask (the backend is {self.backend}): give backend dask, "
                "or no scheduler"
            )
        bagging = self.bagging
        if bagging.bags > 1 and bagging.bag_fraction >= 1 and not bagging.bootstrap:
            raise ClirkitError(
                f"{bagging.bags} bags of every tuple without replacement would all be the same bag: "
                f"give bag_fraction < 1 (--bag-fraction) or bootstrap (--bootstrap)"
            )

    def check_options(self, options) -> None:
        """A parameter set away from its default that the experiment file's other keys leave unused (``beta``
        without a ``base`` key, ``parallel_weight`` without ``parallel_tuples``, ...:
        :func:`~clirkit.boost.unused.check_unused_keys`, which also sees the keys written at their defaults): refused
        when the file is read."""
        from clirkit.boost.unused import check_unused_keys, set_away_from_defaults

        check_unused_keys(set_away_from_defaults(self.flat_params()), options)

    def check_inputs(self, resources: Resources) -> None:
        """A parameter of early stopping set away from its default, or written in the experiment file even at its
        default (``resources.written``), when the collection has no dev split (``patience``, ``eval_every``, ...:
        :func:`~clirkit.boost.unused.check_unused_keys`): refused before anything runs."""
        from clirkit.boost.unused import check_unused_keys, set_or_written

        options = {
            "parallel_tuples": resources.option("parallel_tuples"),
            **({"base": 1} if self.base is not None else {}),
        }
        names = set_or_written(self.flat_params(), resources.written)
        check_unused_keys(names, options, dev="dev" in resources.splits)

    def check_unused(self, *, extra: bool, dev: bool, candidates: bool) -> None:
        """ClirkitError for a parameter set away from its default that a training with this ``base``, extra tuples
        (``extra``), dev queries (``dev``) and a candidate run (``candidates``) leaves unused
        (:func:`~clirkit.boost.unused.unused_params`): ``beta`` without a base weighs nothing."""
        from clirkit.boost.unused import set_away_from_defaults, unused_params

        names = set_away_from_defaults(self.flat_params())
        unused = unused_params(
            names,
            base=self.base is not None,
            extra=extra,
            dev=dev,
            candidates=candidates,
            beta=self.boosting.beta is not None,
        )
        for name, does, needs in unused[:1]:
            raise ClirkitError(f"{name} {does}: give {_PYTHON_REMEDY[needs]}")

    def _doc_weighting(self) -> str:
        if self.features.doc_weighting is not None:
            return self.features.doc_weighting
        return "binary" if self.base is None else "length"

    def _base_system(self) -> System | None:
        """``base`` as a system (:func:`~clirkit.boost.base.base_system`), made once for the ``base`` it is given
        (a run given as the base is encoded once, not at every search)."""
        made = self.__dict__.get("_made_base")
        if made is None or made[0] is not self.base:
            made = self.__dict__["_made_base"] = (self.base, base_system(self.base))
        return made[1]

    def _candidate_depth(self) -> int:
        if self.sampling.candidate_depth is not None:
            return self.sampling.candidate_depth
        return 1000 if self.base is None else 100

    @classmethod
    def params_from(cls, resources: Resources, given) -> dict:
        """The collection's languages, the experiment's seed, progress, and its jobs when there are bags or betas
        to try (boosted from a base without a beta)."""
        parallel = given.get("bags", 1) > 1 or (given.get("base") is not None and given.get("beta") is None)
        return {
            "source_lang": resources.source_lang,
            "target_lang": resources.target_lang,
            "random_state": resources.seed,
            "quiet": resources.quiet,
            "jobs": resources.jobs if parallel else 1,
        }

    def inputs(self, resources: Resources) -> dict:
        """The training topics (and the analysis, when not the default)."""
        return {"train": resources.record("train"), **resources.analysis_record()}

    def fit(self, resources: Resources, *rest, **keywords) -> "BoostRanker":
        """Learn from ``resources`` (:class:`~clirkit.estimator.Resources`): its train topics and qrels, its
        documents, its dev topics and qrels (if any: early stopping, and beta tuned without one), the train and dev
        exclusions, its analyzers (else the defaults of its languages, or of ``source_lang``/``target_lang``), its
        candidate run (standalone: hard negatives), and its known-item pairs when its option ``parallel_tuples`` is
        true (extra tuples weighing ``parallel_weight``); then :meth:`fit_tokens`.

        With a base *system*, it first searches the training topics (``BASE_BATCH`` at a time) and the
        dev topics, without each query's excluded documents; its run is the base run. A base given as a run is
        recorded in the model with ``resources.record("base")`` (e.g. the files it was read from).
        """
        if rest or keywords or not isinstance(resources, Resources):
            raise ClirkitError(_FIT_TAKES.format(name=type(self).__name__, got=fit_given((resources, *rest), keywords)))
        topics, qrels = resources.topics("train"), resources.qrels("train")
        documents = resources.documents()
        has_dev = "dev" in resources.splits
        dev_topics = resources.topics("dev") if has_dev else None
        dev_qrels = resources.qrels("dev") if has_dev else None
        extra_topics, extra_qrels = resources.known_items() if resources.option("parallel_tuples") else (None, None)
        excluded = resources.excluded("train", "dev")
        src, tgt = resources.analyzers((self.source_lang, self.target_lang))
        documents = Documents.of(documents)

        def tokens(*groups):  # the queries of every group at once, in the documents' tokenizing processes
            texts = [text for group in groups if group is not None for text in group.values()]
            made = iter(src.tokenize_many(texts, quiet=self.quiet, jobs=documents.jobs, desc="tokenizing queries"))
            return [None if group is None else {q: next(made) for q in group} for group in groups]

        base = self._base_system()
        base_run = held_run(base)  # a run given as the base: every row of it, as given
        base_made_by = None
        if base is not None and base_run is None:  # a base that searches: the training and dev topics
            base_run = self._base_run(topics, dev_topics, excluded, tag=resources.run_tag(base))
            base_made_by = base.describe()
        elif base is not None:
            base_made_by = resources.record("base")
        q_tok, dev_tok, extra_tok = tokens(topics, dev_topics, extra_topics)
        d_tok = documents.tokens(tgt, quiet=self.quiet)
        return self.fit_tokens(
            q_tok,
            qrels,
            documents.docids,
            d_tok,
            dev_queries=dev_tok,
            dev_qrels=dev_qrels,
            candidates=resources.candidates(),
            source_analyzer=src,
            target_analyzer=tgt,
            extra_queries=extra_tok,
            extra_qrels=extra_qrels,
            base_made_by=base_made_by,
            base_run=base_run,
        )

    def _base_run(self, topics: Mapping[str, str], dev_topics: Mapping[str, str] | None, excluded, *, tag=None):
        """The base system's run over the training topics and the dev topics, as integer codes, tagged ``tag``
        (None: the base's own tag)."""
        ids = list(topics)
        say(
            f"boost: the base system searches {len(ids)} training and {len(dev_topics or ())} dev queries",
            quiet=self.quiet,
        )

        def runs():  # one bar over the batches (each search's own would print two bars a batch)
            batches = range(0, len(ids), BASE_BATCH)
            for a in progress(batches, desc="base searching", unit="batch", quiet=self.quiet or len(batches) < 2):
                batch = {q: topics[q] for q in ids[a : a + BASE_BATCH]}
                yield self.base.search(batch, excluded=excluded, tag=tag, quiet=True)
            if dev_topics:
                yield self.base.search(dev_topics, excluded=excluded, tag=tag, quiet=True)

        return CompactRun.from_runs(runs())

    def search_split(self, resources: Resources, split: str, *, tag: str | None = None, packed: bool = False):
        """:meth:`search` of the split's topics; boosted from a base system, the base's run of ``split`` that
        ``resources`` hold (the runner's) is re-ranked, not searched again (``packed``: as a
        :class:`~clirkit.packedrun.PackedRun`)."""
        takes_resources(self, resources, "search_split")
        base = self._base_system() if hasattr(self, "model_") and self.model_.from_base else None
        if base is None:
            return super().search_split(resources, split, tag=tag, packed=packed)
        candidates = resources.run(base, split, packed=True)
        if not packed or self.base is None:
            return self.search(resources.topics(split), tag=tag, quiet=resources.quiet, candidates=candidates)
        queries = self._query_tokens(resources.topics(split), quiet=resources.quiet)
        return self.model_.rerank(
            candidates, queries, self.docids_, self.doc_tokens_, tag=tag or self.default_tag, packed=True
        )

    def _query_tokens(self, topics: Mapping[str, str], *, quiet: bool) -> dict[str, list[str]]:
        """``{qid: tokens}`` of ``topics`` by the model's source analyzer."""
        return dict(zip(topics, self.model_.source_analyzer.tokenize_many(list(topics.values()), quiet=quiet)))

    def search(
        self,
        topics: Mapping[str, str],
        *,
        depth: int = DEPTH,
        excluded: Mapping[str, set[str]] | None = None,
        tag: str | None = None,
        quiet: bool = True,
        documents=None,
        candidates=None,
    ) -> Run:
        """The run of ``topics`` ``{qid: text}`` over the documents of :meth:`fit` (or ``documents``): with a
        base system, its run (or ``candidates``, that run made before) re-ranked by beta f0 + q^T W d (every row
        kept); standalone, the top ``depth`` documents by q^T W d. ``excluded`` documents are left out of both."""
        if not hasattr(self, "model_"):
            raise ClirkitError("the boosted ranker is not fitted: call fit first")
        model = self.model_
        if documents is not None:
            documents = Documents.of(documents)
            docids, doc_tokens = documents.docids, documents.tokens(model.target_analyzer, quiet=quiet)
        else:
            docids, doc_tokens = self.docids_, self.doc_tokens_
        queries = self._query_tokens(topics, quiet=quiet)
        tag = tag or self.default_tag
        if model.from_base:
            if self.base is None:
                raise ClirkitError(
                    "searching with a ranker boosted from a base ranker needs the base system "
                    "(set base to a fitted system), or use model_.rerank on its run"
                )
            if candidates is None:
                base = self._base_system()  # a run given as the base: its rows for the topics
                assert base is not None
                _check_base_rows(base, topics)
                candidates = base.search(topics, depth=depth, excluded=excluded, quiet=quiet)
            return model.rerank(candidates, queries, docids, doc_tokens, tag=tag)
        excluded = as_excluded(excluded, list(queries))
        ranked = model.rank(queries, docids, doc_tokens, depth=search_depth(depth, excluded), tag=tag)
        return drop_excluded(ranked, excluded, depth)

    reranks = True

    def rerank_rows(self, topics: Mapping[str, str], run: Run, *, tag: str, quiet: bool) -> Run:
        """The rows of ``run`` re-scored by the model (with a base: beta times their scores plus q^T W d) over
        the documents of :meth:`fit` (as ``clirkit boost-rank --candidates``)."""
        if not hasattr(self, "model_"):
            raise ClirkitError("the boosted ranker is not fitted: call fit first")
        if not hasattr(self, "docids_"):
            raise ClirkitError(
                "the boosted ranker has no documents: load it with its documents (Boost.load(path, "
                "documents)) to re-rank"
            )
        return self.model_.rerank(run, self._query_tokens(topics, quiet=True), self.docids_, self.doc_tokens_, tag=tag)

    def rerank_uses_scores(self) -> bool:
        return bool(getattr(getattr(self, "model_", None), "from_base", False))

    def save(self, path) -> None:
        """Write the learned model (:meth:`BoostModel.save`: npz + JSON, no pickle)."""
        if not hasattr(self, "model_"):
            raise ClirkitError("the boosted ranker is not fitted: nothing to save")
        self.model_.save(path)

    @classmethod
    def load(cls, path, documents=None, **params) -> "BoostRanker":
        """A ranker whose learned model is the one saved at ``path``, with the hyper-parameters it was trained with
        (those the model records: :func:`~clirkit.boost.training.trained_params`) and ``params`` (e.g. ``base=`` a
        fitted base system, ``quiet``; one the model records must be its value, else a ClirkitError);
        ``documents`` (or the documents of :class:`~clirkit.estimator.Resources`) are what :meth:`search` ranks (or
        give them to ``search``)."""
        model = BoostModel.load(path)
        ranker = as_trained(cls(**params), model, params, path)
        if isinstance(documents, Resources):
            return ranker.restore(path, documents)
        if documents is not None:
            return ranker.load_model(path, documents)
        ranker.model_ = model
        return ranker

    def restore(self, path, resources: Resources) -> "BoostRanker":
        """The model saved at ``path``, searching the documents of ``resources``; returns self."""
        return self.load_model(path, resources.documents())

    def notes(self, name: str) -> list[str]:
        """Beta and the dev MAP of each beta tried (boosted from a base), the rounds kept, the table's size."""
        model = self.model_
        params = model.params
        kept = params.get("bag_rounds")  # recorded by the trainer; a model made otherwise may lack it
        size = f"{len(model)} phrase-table entries"
        if kept is None:
            return [f"{name}: {size}"]
        if model.from_base:
            scores = params.get("beta_dev_map", {})
            tried = (
                "given, no dev queries"
                if not scores
                else "dev MAP by beta: "
                + ", ".join(f"{b} {m:.4f}" for b, m in sorted(scores.items(), key=lambda kv: float(kv[0])))
            )
            return [f"{name}: beta {model.beta:g} ({tried}), {kept[0]} rounds{_why_none(params)}, {size}"]
        return [f"{name}: {', '.join(map(str, kept))} rounds kept{_why_none(params)}, {size}"]

    def curves(self, name: str) -> dict[str, dict]:
        """Dev MAP by boosting round, one curve per bag."""
        dev_curves = self.model_.params.get("dev_curves", [])
        curves = {
            f"{name} bag {i + 1}" if len(dev_curves) > 1 else name: (c["rounds"], c["map"])
            for i, c in enumerate(dev_curves)
            if c["rounds"]
        }
        if not curves:
            return {}
        return {
            f"{name} (dev MAP by boosting round)": {"curves": curves, "xlabel": "boosting rounds", "ylabel": "dev MAP"}
        }

    def load_model(self, path, documents) -> "BoostRanker":
        """Take the model saved at ``path`` as the learned state, searching ``documents`` (a
        :class:`~clirkit.documents.Documents` or ``(docids, texts)``); returns self."""
        self.model_ = BoostModel.load(path)
        documents = Documents.of(documents)
        self.docids_ = documents.docids
        self.doc_tokens_ = documents.tokens(self.model_.target_analyzer, quiet=self.quiet)
        return self

    def fit_tokens(
        self,
        queries: Mapping[str, Sequence[str]],
        qrels: Qrels,
        docids: Sequence[str],
        doc_tokens: Sequence[Sequence[str]],
        *,
        dev_queries: Mapping[str, Sequence[str]] | None = None,
        dev_qrels: Qrels | None = None,
        candidates: Run | None = None,
        source_analyzer: Analyzer | None = None,
        target_analyzer: Analyzer | None = None,
        extra_queries: Mapping[str, Sequence[str]] | None = None,
        extra_qrels: Qrels | None = None,
        base_made_by: dict | None = None,
        base_run=None,
    ) -> "BoostRanker":
        """Train from token lists.

        Args:
            queries, qrels: training queries ``{qid: tokens}`` and their judgments.
            docids, doc_tokens: the collection.
            dev_queries, dev_qrels: early stopping (and beta tuning) on dev MAP.
            candidates: standalone only: a run whose top ``candidate_depth``
                non-relevant documents replace the uniform negatives.
            extra_queries, extra_qrels: more training queries whose tuples weigh
                ``parallel_weight`` times their grade weight, e.g. the source side
                of a parallel corpus whose target side is the collection (query:
                a source sentence, relevant: its aligned document); their ids must
                differ from the training queries'.
            base_made_by: JSON-ready description of how ``base`` was made, kept in the model.
            base_run: the base run, when ``base`` is a system that searches (:meth:`fit` makes it); a run
                given as ``base`` is its own base run.

        Sets ``model_`` (:class:`BoostModel`), ``results_`` (one
        :class:`~clirkit.boost.rounds.BoostResult` per bag), ``tuples_`` (weights D
        before the base margins' factor), ``beta_sweep_`` (the
        :class:`~clirkit.boost.sweep.BetaSweep` when boosting from a base ranker, else
        None) and, from a base ranker, ``beta_`` and ``beta_scores_`` (its best beta and
        its ``{beta: dev MAP}``).
        """
        fit_tokens(
            self,
            queries,
            qrels,
            docids,
            doc_tokens,
            dev_queries=dev_queries,
            dev_qrels=dev_qrels,
            candidates=candidates,
            source_analyzer=source_analyzer,
            target_analyzer=target_analyzer,
            extra_queries=extra_queries,
            extra_qrels=extra_qrels,
            base_made_by=base_made_by,
            base_run=base_run,
        )
        return self


# what to give for a parameter to have an effect (:data:`clirkit.boost.unused.NEEDS`), in the library's words
_PYTHON_REMEDY = {
    "base": "a base run too",
    "extra": "extra tuples too (extra_queries and extra_qrels; known items to fit)",
    "dev": "dev queries and qrels too",
    "ranked": "a base run or a candidate run too",
    "no beta": "beta or beta_grid, not both",
}


def _check_base_rows(base: System, topics: Mapping[str, str]) -> None:
    """ClirkitError when ``base`` is a run (a :class:`~clirkit.runsystem.RunFile`, or a run given as the base) with
    no row for any of ``topics``: there would be nothing to re-rank. Topics it partly lacks are said on stderr by
    its own search, as a run system's are."""
    rows = getattr(base, "rows_", None)
    if rows is None or not topics or any(q in rows for q in topics):
        return
    tag = base._run_tag() if hasattr(base, "_run_tag") else base.default_tag
    raise ClirkitError(
        f"the base run ({tag}) has no row for any of the {len(topics):,} queries (first: {next(iter(topics))!r}): "
        "the ranker re-ranks its base's rows; give the base's run over these queries with candidates=..."
    )


_FIT_TAKES = (
    "{name}.fit takes one Resources, e.g. fit(Resources(topics={{'train': topics, 'dev': ...}}, qrels={{'train': "
    "qrels, ...}}, documents=(docids, texts))) (clirkit.estimator.Resources), got {got}"
)


def _why_none(params: dict) -> str:
    """Why the rounds dev chose were not kept (a model boosted from a base: the guard of ``significance``), or
    nothing."""
    dropped = next((d for d in params.get("bag_not_kept") or [] if isinstance(d, dict)), None)
    if dropped is None:
        return ""
    return (
        f" (the {dropped.get('rounds')} rounds dev chose were not kept: {dropped.get('why')}; the ranker is the base)"
    )
