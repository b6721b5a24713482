"""The SCS model (Liu, Zhang, Goldwasser, Wang, COLING 2020) in numpy, with hand-derived gradients.

Encoders: ``f_q(q) = tanh(A_q E_q)`` and ``f_d(d) = tanh(A_d E_d)`` where
``A`` averages a text's real (in-vocabulary) tokens (:mod:`.encoding`) and
``E`` are the embedding tables (``dim`` columns). Relevance is the smooth
cosine ``r = f_q . f_d / ((|f_q| + eps)(|f_d| + eps))`` (``r = 0`` when a
vector is zero). Losses are in :mod:`.losses`, the optimizer in :mod:`.optim`.

Backward pass, for one batch of (query, document) pairs with ``g = dL/dr``::

    dL/df_q = g * ( f_d / ((|f_q|+eps)(|f_d|+eps)) - r f_q / ((|f_q|+eps)|f_q|) )
    dL/da_q = dL/df_q * (1 - f_q^2)          (a_q = A_q E_q, summed over the pairs of each query)
    dL/dE_q = A_q^T dL/da_q                  (a sparse product over the batch's words only)

and symmetrically for documents.
"""

from __future__ import annotations

import functools
import time
from numbers import Integral
from typing import Mapping, Sequence

import numpy as np

from clirkit.constraints import Interval
from clirkit.documents import Documents
from clirkit.errors import ClirkitError, counted
from clirkit.estimator import DEPTH, Resources, System, fit_given
from clirkit.paramgroups import Grouped
from clirkit.progress import progress, say
from clirkit.run import Qrels, Run
from clirkit.scs import losses
from clirkit.scs.encoding import averaging_matrix, initial_table, unit_norm, vector_coverage, vocabulary_of
from clirkit.scs.gradient import loss_and_gradient
from clirkit.scs.modelfile import check_languages, read_model, write_model
from clirkit.scs.optim import Adam
from clirkit.scs.params import Objective, Schedule, Shape, UnitSampling, set_away_from_defaults, unused_by_loss
from clirkit.scs.training import TrainingData, check_terms, judged_units, lookup, triplets
from clirkit.searchoptions import as_excluded, drop_excluded, search_depth

ZERO_EPOCHS = "{} 0 trains nothing (the model would be its random start): give at least 1"
"""The refusal of a schedule of 0 epochs, with the parameter's name as the user wrote it (``epochs``, ``--epochs``)."""

# the flat names of the parameters (an experiment file's keys, a model file's record) in the order they had before
# they were grouped (issue 38)
FLAT_ORDER = (
    *("dim", "eps", "loss", "thresholds", "mse_targets", "margin", "pair_weight", "max_pairs_per_query", "lr"),
    *("batch_size", "epochs", "negatives", "init_scale", "lazy_adam", "source_lang", "target_lang", "random_state"),
)


class SCSModel(Grouped, System):
    """Smooth-cosine bilingual retrieval model trained with SOSL, MSE or a pairwise rank loss.

    Hyper-parameters, four of them groups (:mod:`clirkit.scs.params`; ``get_params(deep=True)`` names their
    parameters ``shape__dim`` etc., :meth:`from_flat` takes them by their own names, as an experiment file does):

    ``shape`` (:class:`~clirkit.scs.params.Shape`):
        dim: embedding dimension (64 in the paper).
        eps: smoothing of the cosine (``eps = 0`` is the plain cosine).
        init_scale: standard deviation of the random normal embedding initialization.

    ``objective`` (:class:`~clirkit.scs.params.Objective`):
        loss: ``sosl`` | ``mse`` (pointwise) | ``hinge`` | ``logistic`` | ``exp`` (pairwise).
        thresholds: the pointwise losses' inner thresholds (finite numbers): SOSL's segments; grades
            0..len(thresholds) are allowed (a pairwise loss takes any grade).
        mse_targets: MSE's target score per grade (finite numbers; the MSE loss only); default the middle of each
            SOSL segment.
        margin: the hinge loss's margin.

    ``sampling`` (:class:`~clirkit.scs.params.UnitSampling`):
        negatives: irrelevant documents sampled per training query (once, before training).
        max_pairs_per_query: pairwise losses: sample at most this many triplets per query (None:
            all; a nave-en-es topic with 2,000 judged verses would give 10^5 triplets).
        pair_weight: pairwise losses: ``uniform`` (1) or ``grade`` (grade(d+) - grade(d-)).

    ``schedule`` (:class:`~clirkit.scs.params.Schedule`):
        lr, batch_size, epochs: Adam learning rate, units per batch, passes over the units (at least 1).
        lazy_adam: Adam on the rows a batch touches only (TensorFlow's LazyAdam; default: with
            vocabularies of 10^4-10^5 words it is 3-4x faster per step than the textbook
            dense Adam, which moves every row every step; ``False`` gives the dense one).

    And:
        source_lang, target_lang: languages of the query and document analyzers (clirkit's defaults for them when
            the resources have none; the resources' must be of these languages).
        random_state: seed of initialization, negative sampling and shuffling.

    Learned attributes: ``query_vocab_``, ``doc_vocab_`` (sorted str arrays),
    ``query_embeddings_``, ``doc_embeddings_`` (float64), ``history_`` (per
    epoch: mean loss and mean gradient norm), ``query_analyzer_`` and
    ``doc_analyzer_`` (settings dicts, None when fitted on tokens).
    """

    groups = {"shape": Shape, "objective": Objective, "sampling": UnitSampling, "schedule": Schedule}
    flat_order = FLAT_ORDER
    shape: Shape
    objective: Objective
    sampling: UnitSampling
    schedule: Schedule

    def __init__(
        self,
        *,
        shape: Shape | None = None,
        objective: Objective | None = None,
        sampling: UnitSampling | None = None,
        schedule: Schedule | None = None,
        source_lang: str = "en",
        target_lang: str = "es",
        random_state: int = 0,
        **flat,
    ) -> None:
        self._set_groups({"shape": shape, "objective": objective, "sampling": sampling, "schedule": schedule}, flat)
        self.source_lang = source_lang
        self.target_lang = target_lang
        self.random_state = random_state

    _parameter_constraints = {
        "shape": [Shape],
        "objective": [Objective],
        "sampling": [UnitSampling],
        "schedule": [Schedule],
        "source_lang": [str],
        "target_lang": [str],
        "random_state": [Interval(Integral, 0, None, closed="left")],
    }
    default_tag = "SCS"
    keeps_model = True
    searches_in_blocks = False  # a score's last bits depend on the queries multiplied with it (BLAS's kernels)

    @classmethod
    def params_from(cls, resources: Resources, given) -> dict:
        """The collection's languages and the experiment's seed."""
        return {
            "source_lang": resources.source_lang,
            "target_lang": resources.target_lang,
            "random_state": resources.seed,
        }

    def inputs(self, resources: Resources) -> dict:
        """The training topics (and the analysis, when not the default)."""
        return {"train": resources.record("train"), **resources.analysis_record()}

    def restore(self, path, resources: Resources) -> "SCSModel":
        """The model saved at ``path``, ranking the documents of ``resources``; returns self."""
        return self.load_model(path, resources.documents())

    def curves(self, name: str) -> dict[str, dict]:
        """The mean training loss by epoch."""
        history = getattr(self, "history_", [])
        if not history:
            return {}
        losses = [h["loss"] if isinstance(h, dict) else h[0] for h in history]
        return {
            f"{name} (training loss by epoch)": {
                "curves": {name: (list(range(1, len(losses) + 1)), losses)},
                "xlabel": "epochs",
                "ylabel": "mean training loss",
                "best": "min",
            }
        }

    def check_params(self) -> None:
        """Each hyper-parameter against its constraints (a group's named as the model's), and a training that
        uses them: at least one epoch, none set away from its default that the loss leaves unused
        (:func:`~clirkit.scs.params.unused_by_loss`: MSE targets with another loss, a margin with another than the
        hinge, ...)."""
        if isinstance(self.schedule.epochs, Integral) and self.schedule.epochs == 0:  # the constraint says >= 1
            raise ClirkitError(ZERO_EPOCHS.format("epochs"))
        self._check_constraints()
        changed = set_away_from_defaults(self.objective, self.sampling)
        for name, why in unused_by_loss(self.objective.loss, changed)[:1]:
            raise ClirkitError(f"{name}: {why}")

    def _check_constraints(self) -> None:
        super().check_params()
        self.check_flat_params()

    def _validate(self, *, trained: bool = False) -> None:
        """The hyper-parameters (:meth:`check_params`; only their constraints when ``trained``: a model read
        from a file) and the thresholds with the MSE targets, one per grade."""
        self._check_constraints() if trained else self.check_params()
        self.check_options({})

    def check_options(self, options) -> None:
        """The thresholds increase strictly inside (-1, 1), with one MSE target (if given) per grade (checked by
        :meth:`fit`, and by an experiment file when it is read)."""
        full = losses.check_thresholds(self.objective.thresholds)
        if self.objective.mse_targets is not None and len(self.objective.mse_targets) != len(full) - 1:
            raise ClirkitError(
                f"give one MSE target per grade ({len(full) - 1}), got {len(self.objective.mse_targets)}"
            )

    @property
    def n_grades(self) -> int:
        return len(self.objective.thresholds) + 1

    # training -----------------------------------------------------------------------------------

    def fit(self, resources: Resources, *rest, **keywords) -> "SCSModel":
        """Learn from ``resources`` (:class:`~clirkit.estimator.Resources`): its train topics and graded qrels, its
        documents (the collection negatives are sampled from), analyzed with its analyzers (else the defaults of
        its languages, or of ``source_lang``/``target_lang``), its word vectors (``query_vectors``,
        ``doc_vectors``: optional ``(words, vectors)`` starts, :func:`~clirkit.scs.encoding.read_word_vectors`),
        with its ``quiet`` and ``jobs``; then :meth:`fit_tokens`."""
        if rest or keywords or not isinstance(resources, Resources):
            raise ClirkitError(
                "SCSModel.fit takes one Resources, e.g. fit(Resources(topics={'train': topics}, qrels={'train': "
                "qrels}, documents=(docids, texts))) (clirkit.estimator.Resources), got "
                + fit_given((resources, *rest), keywords)
            )
        self._validate()  # before the documents are read and tokenized
        topics, qrels = resources.topics("train"), resources.qrels("train")
        quiet, jobs = resources.quiet, resources.jobs
        qa, da = resources.analyzers((self.source_lang, self.target_lang))
        check_languages((qa.lang, da.lang), self.source_lang, self.target_lang)
        documents = Documents.of(resources.documents())
        qids = list(topics)
        q_tokens = qa.tokenize_many([topics[q] for q in qids], quiet=quiet, jobs=jobs, desc="queries")
        self.fit_tokens(
            qids,
            q_tokens,
            documents.docids,
            documents.tokens(da, quiet=quiet),
            qrels,
            query_vectors=resources.word_vectors("query"),
            doc_vectors=resources.word_vectors("doc"),
            quiet=quiet,
        )
        self.query_analyzer_, self.doc_analyzer_ = qa.to_dict(), da.to_dict()
        self.documents_ = documents
        return self

    def fit_tokens(
        self,
        query_ids: Sequence[str],
        query_tokens: Sequence[Sequence[str]],
        doc_ids: Sequence[str],
        doc_tokens: Sequence[Sequence[str]],
        qrels: Qrels,
        *,
        query_vectors: tuple[np.ndarray, np.ndarray] | None = None,
        doc_vectors: tuple[np.ndarray, np.ndarray] | None = None,
        quiet: bool = True,
    ) -> "SCSModel":
        """Train on tokenized queries and documents; returns self."""
        data = self.prepare(
            query_ids,
            query_tokens,
            doc_ids,
            doc_tokens,
            qrels,
            query_vectors=query_vectors,
            doc_vectors=doc_vectors,
            quiet=quiet,
        )
        self.train(data, quiet=quiet)
        return self

    def prepare(
        self,
        query_ids,
        query_tokens,
        doc_ids,
        doc_tokens,
        qrels: Qrels,
        *,
        query_vectors=None,
        doc_vectors=None,
        quiet: bool = True,
    ) -> TrainingData:
        """Build vocabularies, initialize embeddings, sample negatives, list the training units.

        Consumes the random stream in a fixed order (query table, document
        table, negatives), so the same seed gives the same units. Units that
        would train nothing are refused (:func:`~clirkit.scs.training.check_terms`).
        """
        self._validate()
        if len(query_ids) != len(query_tokens) or len(doc_ids) != len(doc_tokens):
            raise ValueError("ids and token lists differ in length")
        rng = np.random.default_rng(self.random_state)
        self._rng = rng
        self.query_analyzer_ = self.doc_analyzer_ = None
        q_extra = () if query_vectors is None else query_vectors[0]
        self.query_vocab_ = vocabulary_of(query_tokens, q_extra)
        self.doc_vocab_ = vocabulary_of(doc_tokens)
        self.query_embeddings_ = initial_table(rng, self.query_vocab_, self.shape, query_vectors, "query")
        self.doc_embeddings_ = initial_table(rng, self.doc_vocab_, self.shape, doc_vectors, "document")
        if query_vectors is not None or doc_vectors is not None:
            say(vector_coverage(query_tokens, query_vectors, self.doc_vocab_, doc_vectors), quiet=quiet)
        A_q = averaging_matrix(query_tokens, self.query_vocab_)
        A_d = averaging_matrix(doc_tokens, self.doc_vocab_)

        uq, ud, ug, counts = judged_units(
            query_ids,
            doc_ids,
            qrels,
            n_grades=self.n_grades if self.objective.loss in losses.POINTWISE else None,
            thresholds=self.objective.thresholds,
            negatives=self.sampling.negatives,
            rng=rng,
            quiet=quiet,
        )
        check_terms(query_ids, A_q, A_d, uq, ud, quiet=quiet)
        self.training_stats_ = {
            **counts,
            "query_vocabulary": int(len(self.query_vocab_)),
            "doc_vocabulary": int(len(self.doc_vocab_)),
        }
        if self.objective.loss in losses.POINTWISE:
            data = TrainingData(A_q, A_d, uq, doc=ud, grade=ug)
        else:
            data = triplets(
                rng,
                A_q,
                A_d,
                uq,
                ud,
                ug,
                max_pairs=self.sampling.max_pairs_per_query,
                pair_weight=self.sampling.pair_weight,
            )
            if not len(data):
                raise ClirkitError("no (relevant, less relevant) document pair to train a pairwise loss on")
        self.training_stats_["units"] = int(len(data))
        return data

    def train(self, data: TrainingData, *, quiet: bool = True, on_epoch=None) -> "SCSModel":
        """Run ``epochs`` passes of shuffled mini-batch Adam over ``data``.

        ``on_epoch(model, record)``, if given, is called after every epoch
        (e.g. to evaluate on a dev set); it must not use the model's random stream.
        """
        rng = self._rng
        adam = Adam(self.schedule.lr, lazy=self.schedule.lazy_adam)
        params = {"query": self.query_embeddings_, "doc": self.doc_embeddings_}
        self.history_ = []
        self.epoch_seconds_ = []
        n = len(data)
        for epoch in range(1, self.schedule.epochs + 1):
            start = time.perf_counter()
            perm = rng.permutation(n)
            total, grad_norms = 0.0, []
            batches = range(0, n, self.schedule.batch_size)
            for b in progress(
                batches, desc=f"epoch {epoch}/{self.schedule.epochs}", total=len(batches), quiet=quiet, unit="batch"
            ):
                idx = perm[b : b + self.schedule.batch_size]
                loss, grads = self.loss_and_gradient(data.take(idx))
                total += loss * len(idx)
                grad_norms.append(np.sqrt(sum(float(np.sum(g * g)) for _, g in grads.values())))
                adam.step(params, grads)
            self.epoch_seconds_.append(time.perf_counter() - start)
            record = {
                "epoch": epoch,
                "loss": total / max(n, 1),
                "grad_norm_mean": float(np.mean(grad_norms)) if grad_norms else 0.0,
                "grad_norm_max": float(np.max(grad_norms)) if grad_norms else 0.0,
            }
            self.history_.append(record)
            if not (
                np.isfinite(record["loss"])
                and np.all(np.isfinite(self.query_embeddings_))
                and np.all(np.isfinite(self.doc_embeddings_))
            ):
                raise ClirkitError(
                    f"SCS training diverged at epoch {epoch} (non-finite loss or embeddings): "
                    f"lower lr ({self.schedule.lr:g}) or init_scale ({self.shape.init_scale:g})"
                )
            say(
                f"scs: epoch {epoch}/{self.schedule.epochs} loss {record['loss']:.6f} "
                f"|grad| mean {record['grad_norm_mean']:.4g} max {record['grad_norm_max']:.4g} "
                f"({self.epoch_seconds_[-1]:.1f} s)",
                quiet=quiet,
            )
            if on_epoch is not None:
                on_epoch(self, record)
        return self

    def loss_and_gradient(self, batch: TrainingData) -> tuple[float, dict[str, tuple[np.ndarray, np.ndarray]]]:
        """Mean loss of ``batch`` and its gradient ``{"query"|"doc": (rows, values)}``
        (:func:`clirkit.scs.gradient.loss_and_gradient` with this model's tables, eps and loss)."""
        return loss_and_gradient(
            self.query_embeddings_,
            self.doc_embeddings_,
            batch,
            eps=self.shape.eps,
            pointwise=self.objective.loss in losses.POINTWISE,
            loss_of=functools.partial(
                losses.batch_loss,
                self.objective.loss,
                thresholds=self.objective.thresholds,
                mse_targets=self.objective.mse_targets,
                margin=self.objective.margin,
            ),
        )

    # scoring ------------------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "query_embeddings_"):
            raise ClirkitError("the SCS model is not trained: call fit() or load a model file")

    def encode_queries(self, token_lists: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """``(f_q / (|f_q| + eps), known)`` per query; ``known`` is False for queries with no known word."""
        self._check_fitted()
        A = averaging_matrix(token_lists, self.query_vocab_)
        return unit_norm(np.tanh(A @ self.query_embeddings_), self.shape.eps), np.diff(A.indptr) > 0

    def encode_documents(self, token_lists: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """``(f_d / (|f_d| + eps), known)`` per document."""
        self._check_fitted()
        A = averaging_matrix(token_lists, self.doc_vocab_)
        return unit_norm(np.tanh(A @ self.doc_embeddings_), self.shape.eps), np.diff(A.indptr) > 0

    def similarity(self, query_tokens, doc_tokens) -> np.ndarray:
        """Smooth cosine ``r`` of every query with every document (``n_queries x n_docs``)."""
        U, _ = self.encode_queries(query_tokens)
        V, _ = self.encode_documents(doc_tokens)
        return U @ V.T

    def search(
        self,
        topics: Mapping[str, str],
        *,
        depth: int = DEPTH,
        excluded: Mapping[str, set[str]] | None = None,
        tag: str | None = None,
        quiet: bool = True,
        documents=None,
        rerank: Run | None = None,
        jobs: int = 1,
    ) -> Run:
        """Rank the documents of :meth:`fit` (or ``documents``: :class:`~clirkit.documents.Documents` or
        ``(docids, texts)``) for ``topics = {qid: text}``, or re-score the rows of ``rerank``; the
        ``excluded`` documents of each query are left out (see :meth:`score_tokens`)."""
        from clirkit.analysis import Analyzer

        if not hasattr(self, "query_analyzer_"):
            raise ClirkitError("SCS is not fitted: call fit first (or load a saved model)")
        if self.query_analyzer_ is None:
            raise ClirkitError("this SCS model was trained on tokens and has no analyzers; use score_tokens")
        if documents is None:
            if getattr(self, "documents_", None) is None:
                raise ClirkitError("give the documents to rank (a loaded model does not keep them)")
            documents = self.documents_
        documents = Documents.of(documents)
        qa, da = Analyzer.from_dict(self.query_analyzer_), Analyzer.from_dict(self.doc_analyzer_)
        qids = list(topics)
        q_tokens = qa.tokenize_many([topics[q] for q in qids], quiet=quiet, jobs=jobs, desc="queries")
        docids, d_tokens = documents.docids, None
        if rerank is not None:  # only the documents the run names need encoding
            pick = np.flatnonzero(np.isin(np.asarray(docids, dtype=str), rerank.docids)).tolist()
            docids = [docids[i] for i in pick]
            if documents.texts is not None:
                d_tokens = da.tokenize_many(
                    [documents.texts[i] for i in pick], quiet=quiet, jobs=jobs, desc="documents"
                )
            else:
                all_tokens = documents.tokens(da)
                d_tokens = [all_tokens[i] for i in pick]
        else:
            d_tokens = documents.tokens(da, quiet=quiet)
        excluded, docids, tag = as_excluded(excluded, qids), list(docids), tag or self.default_tag
        deeper = search_depth(depth, excluded)  # the excluded documents leave before the cut at depth
        run = self.score_tokens(qids, q_tokens, docids, d_tokens, depth=deeper, rerank=rerank, tag=tag, quiet=quiet)
        return drop_excluded(run, excluded, depth)

    reranks = True

    def rerank_rows(self, topics: Mapping[str, str], run: Run, *, tag: str, quiet: bool) -> Run:
        """The rows of ``run`` re-scored by the smooth cosine (as ``clirkit scs-score --rerank``)."""
        return self.search(topics, rerank=run, tag=tag, quiet=quiet)

    def score_tokens(
        self,
        query_ids: Sequence[str],
        query_tokens,
        doc_ids: Sequence[str],
        doc_tokens,
        *,
        depth: int = 1000,
        rerank: Run | None = None,
        tag: str = "scs",
        quiet: bool = True,
        batch_queries: int = 256,
    ) -> Run:
        """A run of smooth-cosine scores.

        Without ``rerank``: every document is scored for every query by dense
        products ``(queries x dim) @ (dim x docs)`` in batches of queries, and
        the top ``depth`` are kept (ties: docid ascending). Queries with no
        known word and documents with no known word are left out (said on
        stderr). With ``rerank``: the run's rows are re-scored (queries and
        documents absent from the inputs are an error).
        """
        U, q_known = self.encode_queries(query_tokens)
        V, d_known = self.encode_documents(doc_tokens)
        qids, dids = np.asarray(query_ids, dtype=str), np.asarray(doc_ids, dtype=str)
        if rerank is not None:
            qi, q_ok = lookup(qids, rerank.qids)
            di, d_ok = lookup(dids, rerank.docids)
            if not q_ok.all():
                missing = str(rerank.qids[~q_ok][0])
                raise ClirkitError(f"the run to re-rank has query {missing!r}, absent from the queries")
            if not d_ok.all():
                raise ClirkitError(
                    f"the run to re-rank has document {str(rerank.docids[~d_ok][0])!r}, absent from the documents"
                )
            r = np.einsum("ij,ij->i", U[qi], V[di])
            return Run.ranked(rerank.qids, rerank.docids, r, tag=tag, query_order=rerank.query_ids)
        if not q_known.all():
            n = int((~q_known).sum())
            them = "it" if n == 1 else "them"
            say(
                f"scs: {counted(n, 'query has', 'queries have')} no word known to the model; no results for {them}",
                quiet=quiet,
            )
        if not d_known.all():
            n = int((~d_known).sum())
            say(
                f"scs: {counted(n, 'document has', 'documents have')} no word known to the model; left out", quiet=quiet
            )
        V, dids = V[d_known], dids[d_known]
        live = np.flatnonzero(q_known)
        out_q, out_d, out_s = [], [], []
        k = min(depth, len(dids))
        for b in progress(
            range(0, len(live), batch_queries),
            desc="scoring",
            total=-(-len(live) // batch_queries),
            quiet=quiet,
            unit="batch",
        ):
            rows = live[b : b + batch_queries]
            S = U[rows] @ V.T
            if k == 0:
                continue
            if k < S.shape[1]:
                kth = np.partition(S, S.shape[1] - k, axis=1)[:, S.shape[1] - k]
                ri, ci = np.nonzero(S >= kth[:, None])
            else:
                ri, ci = np.nonzero(np.ones_like(S, dtype=bool))
            out_q.append(qids[rows][ri])
            out_d.append(dids[ci])
            out_s.append(S[ri, ci])
        if not out_q:
            return Run(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0), tag=tag)
        return Run.ranked(
            np.concatenate(out_q),
            np.concatenate(out_d),
            np.concatenate(out_s),
            tag=tag,
            depth=depth,
            query_order=qids[live],
        )

    # files --------------------------------------------------------------------------------------

    def save(self, path) -> None:
        """Write the model as ``.npz`` arrays plus a JSON header (atomic; no pickle; :mod:`clirkit.scs.modelfile`).

        Identical models give identical bytes (no timestamps are stored).
        """
        self._check_fitted()
        write_model(self, path)

    def load_model(self, path, documents=None) -> "SCSModel":
        """Take the learned state of the model saved at ``path`` (its hyper-parameters must equal this
        model's), searching ``documents`` by default; returns self."""
        loaded = type(self).load(path)
        own = {k: (tuple(v) if isinstance(v, list) else v) for k, v in self.flat_params().items()}
        if loaded.flat_params() != own:
            saved = loaded.flat_params()
            other = next(
                (f" ({k}: {saved.get(k)!r}, not {own[k]!r})" for k in sorted(own) if saved.get(k) != own[k]), ""
            )
            raise ClirkitError(
                f"{path}: saved with other hyper-parameters than this SCS model's{other}; load it with "
                f"SCSModel.load(path), which takes the file's"
            )
        for name, value in vars(loaded).items():
            if name.endswith("_"):
                setattr(self, name, value)
        self.documents_ = None if documents is None else Documents.of(documents)
        return self

    @classmethod
    def load(cls, path, resources: Resources | None = None) -> "SCSModel":
        """Read a model written by :meth:`save`, checking every value before use
        (:func:`clirkit.scs.modelfile.read_model`); with ``resources`` (:class:`~clirkit.estimator.Resources`), it
        ranks their documents by default."""
        model = read_model(cls, path)
        if resources is not None:
            model.documents_ = resources.documents()
        return model
