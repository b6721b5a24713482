"""``BoostRanker``: the estimator that turns training queries, qrels and documents into a BoostModel."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from clirkit.analysis import Analyzer
from clirkit.boost.bagging import BoostData, BoostParams, train_bags
from clirkit.boost.features import NgramVocabulary, hash_strings
from clirkit.boost.model import BoostModel
from clirkit.boost.scoring import DevEvaluator
from clirkit.boost.tuples import make_tuples
from clirkit.errors import ClirkitError
from clirkit.progress import say
from clirkit.run import Qrels, Run


class BoostRanker:
    """Boosted bilinear ranker over hashed (source n-gram, target n-gram) pairs (SPEC §5).

    Hyper-parameters (scikit-learn style; learned state ends with ``_``):
        ngram: 1 (Boost-1g) or 2 (Boost-2g: unigrams and bigrams).
        rounds: maximum boosting rounds per bag.
        rule: step rule, ``"exact"`` or ``"r"``.
        bits: pairs are hashed into 2**bits buckets (<= 32).
        hash_seed: MurmurHash3 seed.
        eps: smoothing of the exact step (None = 1 / number of tuples).
        negatives, min_grade, grade_pairs, weighting, max_positives, candidate_depth:
            tuple sampling, see :func:`clirkit.boost.tuples.make_tuples`.
        bags, bag_fraction, bootstrap: bagging (1 bag of all tuples = plain boosting).
        eval_every, patience, eval_depth: early stopping on the dev set's MAP.
        jobs, backend, scheduler: joblib parallelism over bags (``loky``,
            ``threading`` or ``dask`` with a scheduler address or Client).
        source_lang, target_lang: analyzer languages (used by :meth:`fit`).
        max_df: drop source n-grams in more than this fraction of the training
            queries and target n-grams in more than this fraction of the documents.
        frequent_word_ngrams: keep n-grams (n >= 2) containing a word that max_df
            drops; False keeps only n-grams made of kept words.
        random_state: seed of tuple sampling and bagging.
        quiet: no progress on stderr.
    """

    def __init__(self, *, ngram: int = 1, rounds: int = 1000, rule: str = "exact", bits: int = 30,
                 hash_seed: int = 0, eps: float | None = None, negatives: int = 1, min_grade: int = 1,
                 grade_pairs: int = 0, weighting: str = "difference", max_positives: int = 0,
                 candidate_depth: int = 1000, bags: int = 1, bag_fraction: float = 1.0, bootstrap: bool = False,
                 eval_every: int = 50, patience: int = 0, eval_depth: int = 1000, jobs: int = 1,
                 backend: str = "loky", scheduler=None, source_lang: str = "en", target_lang: str = "es",
                 max_df: float = 1.0, frequent_word_ngrams: bool = True, random_state: int = 0,
                 quiet: bool = False) -> None:
        self.ngram = ngram
        self.rounds = rounds
        self.rule = rule
        self.bits = bits
        self.hash_seed = hash_seed
        self.eps = eps
        self.negatives = negatives
        self.min_grade = min_grade
        self.grade_pairs = grade_pairs
        self.weighting = weighting
        self.max_positives = max_positives
        self.candidate_depth = candidate_depth
        self.bags = bags
        self.bag_fraction = bag_fraction
        self.bootstrap = bootstrap
        self.eval_every = eval_every
        self.patience = patience
        self.eval_depth = eval_depth
        self.jobs = jobs
        self.backend = backend
        self.scheduler = scheduler
        self.source_lang = source_lang
        self.target_lang = target_lang
        self.max_df = max_df
        self.frequent_word_ngrams = frequent_word_ngrams
        self.random_state = random_state
        self.quiet = quiet

    def _check(self) -> None:
        if self.ngram not in (1, 2, 3):
            raise ClirkitError(f"ngram must be 1, 2 or 3, got {self.ngram}")
        if not 1 <= self.bits <= 32:
            raise ClirkitError(f"bits must be in 1..32, got {self.bits}")
        if self.rule not in ("exact", "r"):
            raise ClirkitError(f"unknown step rule {self.rule!r}; choose exact or r")
        if self.rounds < 1:
            raise ClirkitError(f"rounds must be >= 1, got {self.rounds}")

    def fit(self, queries: Mapping[str, str], qrels: Qrels, docids: Sequence[str], doc_texts: Sequence[str], *,
            dev_queries: Mapping[str, str] | None = None, dev_qrels: Qrels | None = None,
            candidates: Run | None = None) -> "BoostRanker":
        """Analyze the texts with ``source_lang``/``target_lang`` analyzers, then :meth:`fit_tokens`."""
        src, tgt = Analyzer(self.source_lang), Analyzer(self.target_lang)
        q_tok = dict(zip(queries, src.tokenize_many(list(queries.values()), quiet=self.quiet,
                                                    desc="tokenizing queries")))
        d_tok = tgt.tokenize_many(list(doc_texts), quiet=self.quiet, desc="tokenizing documents")
        dev_tok = None
        if dev_queries is not None:
            dev_tok = dict(zip(dev_queries, src.tokenize_many(list(dev_queries.values()), quiet=True)))
        return self.fit_tokens(q_tok, qrels, docids, d_tok, dev_queries=dev_tok, dev_qrels=dev_qrels,
                               candidates=candidates, source_analyzer=src, target_analyzer=tgt)

    def fit_tokens(self, queries: Mapping[str, Sequence[str]], qrels: Qrels, docids: Sequence[str],
                   doc_tokens: Sequence[Sequence[str]], *, dev_queries: Mapping[str, Sequence[str]] | None = None,
                   dev_qrels: Qrels | None = None, candidates: Run | None = None,
                   source_analyzer: Analyzer | None = None, target_analyzer: Analyzer | None = None
                   ) -> "BoostRanker":
        """Train from token lists.

        Sets ``model_`` (:class:`BoostModel`), ``results_`` (one
        :class:`~clirkit.boost.rounds.BoostResult` per bag) and ``tuples_``.
        """
        self._check()
        if len(docids) != len(doc_tokens):
            raise ClirkitError(f"{len(docids)} document ids but {len(doc_tokens)} documents")
        qids = list(queries)
        src_vocab, tgt_vocab = NgramVocabulary(), NgramVocabulary()
        pruning = {"max_df": self.max_df, "frequent_word_ngrams": self.frequent_word_ngrams}
        Qm = src_vocab.fit_matrix([queries[q] for q in qids], self.ngram, **pruning)
        Dm = tgt_vocab.fit_matrix(doc_tokens, self.ngram, **pruning)
        tuples = make_tuples(qrels, qids, docids, negatives=self.negatives, min_grade=self.min_grade,
                             candidates=candidates, candidate_depth=self.candidate_depth,
                             grade_pairs=self.grade_pairs, weighting=self.weighting,
                             max_positives=self.max_positives, seed=self.random_state)
        say(f"boost: {len(tuples)} tuples from {len(np.unique(tuples.query))} queries; "
            f"{len(src_vocab)} source and {len(tgt_vocab)} target {self.ngram}-grams", quiet=self.quiet)
        dev = None
        if dev_queries is not None and dev_qrels is not None:
            dev = self._dev_evaluator(dev_queries, dev_qrels, src_vocab, docids, Dm)
        data = BoostData(Qm, Dm, tuples, hash_strings(src_vocab.terms, self.hash_seed),
                         hash_strings(tgt_vocab.terms, self.hash_seed), dev)
        params = BoostParams(rounds=self.rounds, rule=self.rule, bits=self.bits, hash_seed=self.hash_seed,
                             eps=self.eps, eval_every=self.eval_every, patience=self.patience)
        results = train_bags(data, params, bags=self.bags, fraction=self.bag_fraction, replace=self.bootstrap,
                             seed=self.random_state, jobs=self.jobs, backend=self.backend,
                             scheduler=self.scheduler, quiet=self.quiet)
        info = {
            "ngram": self.ngram, "rounds": self.rounds, "rule": self.rule, "bits": self.bits,
            "hash_seed": self.hash_seed, "eps": self.eps, "negatives": self.negatives,
            "min_grade": self.min_grade, "grade_pairs": self.grade_pairs, "weighting": self.weighting,
            "max_positives": self.max_positives, "bags": self.bags, "bag_fraction": self.bag_fraction,
            "bootstrap": self.bootstrap, "eval_every": self.eval_every, "patience": self.patience,
            "max_df": self.max_df, "frequent_word_ngrams": self.frequent_word_ngrams, "seed": self.random_state,
            "n_tuples": len(tuples),
            "bag_rounds": [int(r.best_round) for r in results],
            "bag_pairs": [int(r.n_pairs) for r in results],
            "bag_buckets": [int(r.n_buckets) for r in results],
            "seconds_per_round": [round(float(r.seconds_per_round), 6) for r in results],
            "dev_curves": [{"rounds": r.eval_rounds.tolist(), "map": r.eval_scores.tolist()} for r in results],
        }
        self.model_ = BoostModel.from_results(results, src_vocab.terms, tgt_vocab.terms, ngram=self.ngram,
                                              source_analyzer=source_analyzer or Analyzer(self.source_lang),
                                              target_analyzer=target_analyzer or Analyzer(self.target_lang),
                                              params=info)
        self.results_ = results
        self.tuples_ = tuples
        return self

    def _dev_evaluator(self, dev_queries, dev_qrels: Qrels, src_vocab: NgramVocabulary, docids, Dm):
        dqids = list(dev_queries)
        Qdev = src_vocab.matrix([dev_queries[q] for q in dqids], self.ngram, grow=False)
        judged = dev_qrels.subset(dqids)
        if not np.any(judged.rels >= 1):
            raise ClirkitError("the dev qrels judge no dev query relevant to any document")
        return DevEvaluator(Qdev, Dm, dqids, docids, judged, depth=self.eval_depth)
