"""The learned BoostCLIR model: a sparse bilingual phrase table, saved as .npz + JSON.

The table holds (source n-gram, target n-gram, weight) entries: for every bag
and every kept round, each training pair hashed into the round's bucket gets
that round's step alpha, and bags are averaged (f = (1/S) sum_s f_s). The
score of a query q and document d is f(q, d) = sum of the weights of the
entries whose source n-gram is in q and target n-gram in d (binary bags).
The per-round history (t, h_t, w_t) of each bag is kept for ``boost-show``.

A model boosted from a base ranker (:mod:`clirkit.boost.base`) scores
f(q, d) = beta * f0(q, d) + q^T W d, f0 being the base system's score divided
by its query's largest; it re-ranks the base system's run and remembers beta and
how the base run was made (``base``). A model may weigh the document side
(``doc_weighting``, :mod:`clirkit.boost.weighting`; the idf of its target n-grams
is stored). Such models are written as format version 2.
"""

from __future__ import annotations

import math
import os
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.analysis import Analyzer
from clirkit.boost.features import NgramVocabulary
from clirkit.boost.result import BoostResult
from clirkit.boost.scoring import docid_tie_key, top_k
from clirkit.boost.weighting import SCHEMES, check_scheme, weigh_documents
from clirkit.errors import ClirkitError
from clirkit.npzchecks import Corrupt, checking, require_analyzer, require_array, require_csr, require_field
from clirkit.npzio import load_npz, save_npz, show
from clirkit.packedrun import PackedRun
from clirkit.run import Run

KIND = "boost-model"
FORMAT_VERSION = 1
BASE_FORMAT_VERSION = 2  # adds header fields "beta", "base", "doc_weighting" and the array "tgt_idf"


class BoostModel:
    """A bilingual phrase table and how it was made.

    Attributes:
        src_terms, tgt_terms: str arrays of the n-grams used by the table.
        W: CSR (len(src_terms) x len(tgt_terms)) of summed, bag-averaged weights.
        ngram: n-gram order (1 = Boost-1g, 2 = Boost-2g, 3 = unigrams to trigrams).
        source_analyzer, target_analyzer: how texts become tokens.
        history: per-round arrays ``bag``, ``round``, ``bucket``, ``alpha``, ``ptr``
            (offsets into ``pair_src``/``pair_tgt``, indices into the term arrays).
        params: JSON-ready training parameters and statistics.
        beta: weight of the normalized base scores (0: a standalone model).
        base: JSON-ready description of how the base run was made (None: standalone).
        doc_weighting: document-side weights (``binary``, ``idf``, ``length``, ``idf-length``).
        tgt_idf: idf of each target term (float64, aligned with ``tgt_terms``) for the idf schemes.
    """

    def __init__(
        self,
        src_terms,
        tgt_terms,
        W: sp.csr_matrix,
        *,
        ngram: int,
        source_analyzer: Analyzer,
        target_analyzer: Analyzer,
        history: Mapping[str, np.ndarray],
        params: dict | None = None,
        beta: float = 0.0,
        base: dict | None = None,
        doc_weighting: str = "binary",
        tgt_idf: np.ndarray | None = None,
    ) -> None:
        self.src_terms = np.asarray(src_terms, dtype=str)
        self.tgt_terms = np.asarray(tgt_terms, dtype=str)
        self.W = sp.csr_matrix(W, dtype=np.float64)
        if self.W.shape != (len(self.src_terms), len(self.tgt_terms)):
            raise ValueError(
                f"phrase table shape {self.W.shape} does not match the term arrays "
                f"({len(self.src_terms)}, {len(self.tgt_terms)})"
            )
        history = {k: np.asarray(v) for k, v in history.items()}
        # canonical term order (sorted, as loading checks: a file whose term arrays were shuffled against W is
        # refused, not read as another model); W, the history's pairs and tgt_idf follow their terms
        src_order, tgt_order = np.argsort(self.src_terms, kind="stable"), np.argsort(self.tgt_terms, kind="stable")
        if np.any(src_order != np.arange(len(src_order))) or np.any(tgt_order != np.arange(len(tgt_order))):
            self.src_terms, self.tgt_terms = self.src_terms[src_order], self.tgt_terms[tgt_order]
            self.W = self.W[src_order][:, tgt_order].tocsr()
            for key, order in (("pair_src", src_order), ("pair_tgt", tgt_order)):
                if key in history and len(history[key]):
                    history[key] = np.argsort(order)[history[key]]
            if tgt_idf is not None and len(tgt_idf) == len(tgt_order):
                tgt_idf = np.asarray(tgt_idf)[tgt_order]
        self.W.sum_duplicates()  # canonical (sorted, no repeats), as loading checks
        self.ngram = int(ngram)
        self.source_analyzer = source_analyzer
        self.target_analyzer = target_analyzer
        self.history = history
        self.params = dict(params or {})
        self.beta = float(beta)
        if not (np.isfinite(self.beta) and self.beta >= 0):
            raise ValueError(f"beta must be a finite number >= 0, got {beta}")
        self.base = None if base is None else dict(base)
        check_scheme(doc_weighting)
        self.doc_weighting = doc_weighting
        self.tgt_idf = None if tgt_idf is None else np.asarray(tgt_idf, dtype=np.float64)
        if "idf" in doc_weighting and (self.tgt_idf is None or len(self.tgt_idf) != len(self.tgt_terms)):
            raise ValueError(f"the {doc_weighting} weighting needs one idf value per target term")
        self._src_vocab = NgramVocabulary(self.src_terms.tolist())
        self._tgt_vocab = NgramVocabulary(self.tgt_terms.tolist())

    # -- construction -----------------------------------------------------------------------------

    @classmethod
    def from_results(
        cls, results: Sequence[BoostResult], src_terms: Sequence[str], tgt_terms: Sequence[str], **kwargs
    ) -> "BoostModel":
        """Average the bags' results (each already cut to its kept rounds) into one phrase table."""
        S = len(results)
        src = np.concatenate([r.entries()[0] for r in results]) if S else np.zeros(0, np.int64)
        tgt = np.concatenate([r.entries()[1] for r in results]) if S else np.zeros(0, np.int64)
        wts = np.concatenate([r.entries()[2] for r in results]) / max(S, 1) if S else np.zeros(0)
        used_src, src_new = np.unique(src, return_inverse=True)
        used_tgt, tgt_new = np.unique(tgt, return_inverse=True)
        if kwargs.get("tgt_idf") is not None:
            kwargs["tgt_idf"] = np.asarray(kwargs["tgt_idf"])[used_tgt]
        W = sp.coo_matrix((wts, (src_new, tgt_new)), shape=(len(used_src), len(used_tgt))).tocsr()
        W.sum_duplicates()
        src_terms = np.asarray(src_terms, dtype=object)
        tgt_terms = np.asarray(tgt_terms, dtype=object)
        bag, rnd, bucket, alpha, ptr = [], [], [], [], [0]
        offset = 0
        for s, r in enumerate(results):
            R = r.best_round
            bag.append(np.full(R, s)), rnd.append(np.arange(1, R + 1)), bucket.append(r.buckets[:R])
            alpha.append(r.alphas[:R]), ptr.append(offset + r.pair_ptr[1 : R + 1])
            offset += int(r.pair_ptr[R])
        history = {
            "bag": np.concatenate(bag).astype(np.int64),
            "round": np.concatenate(rnd).astype(np.int64),
            "bucket": np.concatenate(bucket).astype(np.int64),
            "alpha": np.concatenate(alpha).astype(np.float64),
            "ptr": np.concatenate([np.asarray(p, dtype=np.int64).reshape(-1) for p in ptr]),
            "pair_src": src_new.astype(np.int64),
            "pair_tgt": tgt_new.astype(np.int64),
        }
        return cls(
            src_terms[used_src].astype(str) if len(used_src) else np.zeros(0, str),
            tgt_terms[used_tgt].astype(str) if len(used_tgt) else np.zeros(0, str),
            W,
            history=history,
            **kwargs,
        )

    def truncated(self, rounds: int) -> "BoostModel":
        """The model each bag would have had after its first ``rounds`` rounds (rebuilt from the history).

        Boosting is sequential, so this equals training with ``rounds`` rounds
        (and no early stopping); the term arrays are kept as they are.
        """
        h = self.history
        keep = h["round"] <= rounds
        n_bags = _bag_count(h, self.params)
        counts = np.diff(h["ptr"])
        pair_round = np.repeat(np.arange(len(counts)), counts)
        pair_keep = keep[pair_round]
        src, tgt = h["pair_src"][pair_keep], h["pair_tgt"][pair_keep]
        W = sp.coo_matrix((np.repeat(h["alpha"], counts)[pair_keep] / n_bags, (src, tgt)), shape=self.W.shape).tocsr()
        W.sum_duplicates()
        history = {k: h[k][keep] for k in ("bag", "round", "bucket", "alpha")}
        history["ptr"] = np.concatenate(([0], np.cumsum(counts[keep]))).astype(np.int64)
        history["pair_src"], history["pair_tgt"] = src, tgt
        return BoostModel(
            self.src_terms,
            self.tgt_terms,
            W,
            ngram=self.ngram,
            source_analyzer=self.source_analyzer,
            target_analyzer=self.target_analyzer,
            history=history,
            params={**self.params, "truncated_to_rounds": int(rounds)},
            beta=self.beta,
            base=self.base,
            doc_weighting=self.doc_weighting,
            tgt_idf=self.tgt_idf,
        )

    @property
    def from_base(self) -> bool:
        """Whether the model re-ranks a base system's run (boosted from a base ranker)."""
        return self.base is not None

    # -- files ------------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model as ``.npz`` arrays + JSON header (no pickle)."""
        header = {
            "ngram": self.ngram,
            "source_analyzer": self.source_analyzer.to_dict(),
            "target_analyzer": self.target_analyzer.to_dict(),
            "shape": list(self.W.shape),
            "params": self.params,
        }
        arrays = {
            "src_terms": self.src_terms,
            "tgt_terms": self.tgt_terms,
            "W_indptr": self.W.indptr,
            "W_indices": self.W.indices,
            "W_data": self.W.data,
        }
        arrays.update({f"history_{k}": v for k, v in self.history.items()})
        version = FORMAT_VERSION
        if self.from_base or self.doc_weighting != "binary":
            header.update(beta=self.beta, base=self.base, doc_weighting=self.doc_weighting)
            if self.tgt_idf is not None:
                arrays["tgt_idf"] = self.tgt_idf
            version = BASE_FORMAT_VERSION
        save_npz(path, KIND, version, header, arrays, deflate=True)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "BoostModel":
        """Read a model written by :meth:`save`, checking every value before use.

        Header: ``ngram`` 1, 2 or 3, both analyzers' settings, ``shape`` matching the term arrays,
        ``params`` an object (the entries read after loading checked: :func:`_checked_params`); version 2
        also ``beta`` (a finite number >= 0), ``base`` (an object or null) and ``doc_weighting`` (a known
        scheme). Arrays: the term arrays hold distinct strings;
        W is a canonical CSR matrix of finite floats; the history's rounds are numbered 1, 2, ...
        within each bag (bags in order), its steps finite, its offsets increasing from 0 to the
        number of pairs, its pairs inside the term arrays; W is the sum of the history's steps
        averaged over the bags (``params.bag_rounds``), to rounding; ``tgt_idf`` (needed by the idf schemes)
        holds one value in [0, 1] per target term. Anything else raises ClirkitError
        ``FILE: corrupt boost model: problem; train the model again with `clirkit boost-train```.
        """
        hist_keys = ("bag", "round", "bucket", "alpha", "ptr", "pair_src", "pair_tgt")
        required = ("src_terms", "tgt_terms", "W_indptr", "W_indices", "W_data") + tuple(
            f"history_{k}" for k in hist_keys
        )
        meta, arr = load_npz(path, KIND, (FORMAT_VERSION, BASE_FORMAT_VERSION), required)
        with checking(path, "boost model", remedy=True):
            ngram = require_field(meta, "ngram", "int", choices=(1, 2, 3))
            source_analyzer = require_analyzer(meta, "source_analyzer")
            target_analyzer = require_analyzer(meta, "target_analyzer")
            params = _checked_params(meta)
            src_terms = _sorted_terms(arr, "src_terms")
            tgt_terms = _sorted_terms(arr, "tgt_terms")
            shape = (len(src_terms), len(tgt_terms))
            if tuple(require_field(meta, "shape", "list", items="int", length=2, min=0)) != shape:
                raise Corrupt(
                    f"header shape {show(meta['shape'])} does not match the {shape[0]} source and "
                    f"{shape[1]} target terms"
                )
            W = require_csr(arr, ("W_data", "W_indices", "W_indptr"), shape, "float", dtype=np.float64)
            history = _checked_history(arr, shape)
            _check_weights(W, history, _bag_count(history, params), (src_terms, tgt_terms))
            extended = {}
            if meta["format_version"] == BASE_FORMAT_VERSION:
                scheme = require_field(meta, "doc_weighting", "str", choices=SCHEMES)
                extended = {
                    "beta": float(require_field(meta, "beta", "number", min=0)),
                    "base": require_field(meta, "base", "object", nullable=True),
                    "doc_weighting": scheme,
                    "tgt_idf": require_array(
                        arr,
                        "tgt_idf",
                        "float",
                        shape=(shape[1],),
                        min=0,
                        max=1,
                        dtype=np.float64,
                        optional="idf" not in scheme,
                    ),
                }
        return cls(
            src_terms,
            tgt_terms,
            W,
            ngram=ngram,
            source_analyzer=source_analyzer,
            target_analyzer=target_analyzer,
            history=history,
            params=params,
            **extended,
        )

    # -- scoring ----------------------------------------------------------------------------------

    def __len__(self) -> int:
        """Number of phrase-table entries."""
        return int(self.W.nnz)

    def encode_queries(self, token_lists: Sequence[Sequence[str]]) -> sp.csr_matrix:
        """Binary matrix (queries x source terms of the table); other n-grams are dropped."""
        return self._src_vocab.matrix(token_lists, self.ngram, grow=False)

    def encode_documents(self, token_lists: Sequence[Sequence[str]]) -> sp.csr_matrix:
        """Documents x target terms of the table, weighted by ``doc_weighting`` (binary by default);
        other n-grams are dropped."""
        return weigh_documents(
            self._tgt_vocab.matrix(token_lists, self.ngram, grow=False), token_lists, self.doc_weighting, self.tgt_idf
        )

    def rank_matrices(
        self,
        qids: Sequence[str],
        Qm: sp.csr_matrix,
        docids: Sequence[str],
        Dm: sp.csr_matrix,
        *,
        depth: int = 1000,
        batch: int = 256,
        tag: str = "boost",
        quiet: bool = True,
    ) -> Run:
        """Rank all documents for each query: ``Qm @ W @ Dm.T``, top ``depth``, ties by docid.

        A document is retrieved when its score is non-zero (it shares table
        entries with the query); a query sharing none gets no result. A model
        boosted from a base ranker cannot rank a whole collection: use :meth:`rerank`.
        """
        from clirkit.progress import progress

        if self.from_base:
            raise ClirkitError(
                "this model was boosted from a base ranker: it re-ranks the base system's run "
                "(boost-rank --candidates BASE.run)"
            )
        qids_arr = np.asarray(qids, dtype=str)
        docids_arr = np.asarray(docids, dtype=str)
        tie = docid_tie_key(docids_arr)
        parts_q, parts_d, parts_s = [], [], []
        n_batches = -(-Qm.shape[0] // batch) if Qm.shape[0] else 0
        batches = top_k(
            sp.csr_matrix(Qm, dtype=np.float64),
            self.W,
            sp.csr_matrix(Dm, dtype=np.float64).T.tocsr(),
            tie,
            depth=depth,
            batch=batch,
        )
        for q, d, s in progress(batches, desc="ranking", total=n_batches, quiet=quiet, unit="batch"):
            parts_q.append(q), parts_d.append(d), parts_s.append(s)
        q = np.concatenate(parts_q) if parts_q else np.zeros(0, np.int64)
        d = np.concatenate(parts_d) if parts_d else np.zeros(0, np.int64)
        s = np.concatenate(parts_s) if parts_s else np.zeros(0)
        rows = (qids_arr[q], docids_arr[d]) if len(q) else (np.zeros(0, str), np.zeros(0, str))
        return Run(*rows, s, tag=tag)

    def rank(
        self, queries: Mapping[str, Sequence[str]], docids: Sequence[str], doc_tokens: Sequence[Sequence[str]], **kwargs
    ) -> Run:
        """Rank the documents (token lists) for queries ``{qid: tokens}``; see :meth:`rank_matrices`."""
        qids = list(queries)
        return self.rank_matrices(
            qids, self.encode_queries([queries[q] for q in qids]), docids, self.encode_documents(doc_tokens), **kwargs
        )

    def rerank(
        self,
        candidates: Run | PackedRun,
        queries: Mapping[str, Sequence[str]],
        docids: Sequence[str],
        doc_tokens: Sequence[Sequence[str]],
        *,
        depth: int | None = None,
        tag: str = "boost",
        batch_rows: int = 200_000,
        packed: bool = False,
    ) -> Run | PackedRun:
        """Re-score a candidate run's (query, document) rows with the model and re-sort them (``packed``: the
        re-ranked run as a :class:`~clirkit.packedrun.PackedRun`).

        The score is q^T W d, plus beta * f0 for a model boosted from a base ranker (f0: the candidate score divided
        by its query's largest, see :func:`clirkit.boost.base.normalized_scores`; ``candidates`` is then the base
        system's run; a :class:`~clirkit.packedrun.PackedRun` is re-ranked as the run it holds, without unpacking
        it). Every candidate row is kept; rows of queries or documents unknown to ``queries``/``docids`` raise
        ClirkitError, as do the inputs :func:`~clirkit.boost.rerankchecks.check_rerank` refuses, before any work."""
        from clirkit.boost.base import normalized_scores
        from clirkit.boost.rerankchecks import check_rerank
        from clirkit.boost.scoring import pair_scores

        check_rerank(candidates, queries, docids, doc_tokens, depth=depth, tag=tag, batch_rows=batch_rows)
        qids = list(queries)
        qpos = {q: i for i, q in enumerate(qids)}
        sizes = candidates.query_sizes()  # the run's rows are grouped by query: one id look-up per query
        qrow = np.repeat(np.fromiter((qpos[q] for q in candidates.query_ids), np.int64, len(sizes)), sizes)
        coded = isinstance(candidates, PackedRun)  # documents as codes: each distinct one looked up once
        drow = (
            _document_rows(candidates.documents, docids)[candidates.codes]
            if coded
            else _document_rows(candidates.docids, docids, batch_rows)
        )
        QW = (self.encode_queries([queries[q] for q in qids]) @ self.W).tocsr()
        scores = pair_scores(QW, self.encode_documents(doc_tokens), qrow, drow, batch_rows=batch_rows)
        if self.from_base:
            scores = self.beta * normalized_scores(candidates) + scores
        del qrow
        # Run.ranked's order (score descending, ties by docid) within each query's rows, sorted on integers: the
        # rows stay in their query's block, so the qids column is the candidates' as it is
        group = np.repeat(np.arange(len(sizes)), sizes)
        order = np.lexsort((docid_tie_key(docids)[drow], -scores, group))
        del drow, group
        if coded and packed:
            run = PackedRun.from_codes(
                candidates.query_order, sizes, candidates.documents, candidates.codes[order], scores[order], tag=tag
            )
        elif coded:
            run = Run.from_groups(
                candidates.query_order, sizes, candidates.documents[candidates.codes[order]], scores[order], tag=tag
            )
        else:
            run = Run(candidates.qids, candidates.docids[order], scores[order], tag=tag)
            run = PackedRun(run) if packed else run
        return run.top(depth) if depth is not None else run

    # -- display ----------------------------------------------------------------------------------

    def rounds_table(self, n: int = 50, bag: int | None = 0) -> list[tuple[int, int, str, float]]:
        """The first ``n`` rounds of ``bag`` (all bags if None) as (bag, t, h_t, w_t) rows;
        h_t lists the bucket's pairs as "source - target" joined by ", "."""
        h = self.history
        rows = []
        for r in np.flatnonzero(h["bag"] == bag) if bag is not None else range(len(h["round"])):
            if len(rows) >= n:
                break
            a, b = int(h["ptr"][r]), int(h["ptr"][r + 1])
            pairs = ", ".join(
                f"{self.src_terms[i]} - {self.tgt_terms[j]}"
                for i, j in zip(h["pair_src"][a:b].tolist(), h["pair_tgt"][a:b].tolist())
            )
            rows.append((int(h["bag"][r]), int(h["round"][r]), pairs, float(h["alpha"][r])))
        return rows

    def top_entries(self, n: int = 50, *, negative: bool = False) -> list[tuple[str, str, float]]:
        """The ``n`` entries of the averaged table with the largest weights (with ``negative``: the
        most negative ones, which a model boosted from a base ranker uses to correct it); ties by terms."""
        coo = self.W.tocoo()
        src, tgt = self.src_terms[coo.row], self.tgt_terms[coo.col]
        keep = np.flatnonzero(coo.data < 0) if negative else np.arange(len(coo.data))
        order = keep[np.lexsort((tgt[keep], src[keep], coo.data[keep] if negative else -coo.data[keep]))][:n]
        return [(str(src[i]), str(tgt[i]), float(coo.data[i])) for i in order]


def _checked_params(meta: Mapping) -> dict:
    """The header's ``params``: an object, whose entries read after loading (the rounds kept per bag, one or more
    bags; the dev curves; the dev MAP by beta, each beta written with %g as
    :meth:`~clirkit.boost.sweep.BetaSweep.dev_map` writes it), when present, have their types (raises
    :class:`~clirkit.npzchecks.Corrupt`). ``hyper_params`` (the training's settings) is checked by the ranker that
    loads the model (:func:`~clirkit.boost.trained.as_trained`, also for ``boost-rank`` and ``boost-show``); the
    other entries record the training and are read by nothing."""
    params = require_field(meta, "params", "object", default={})
    if require_field(meta, ("params", "bag_rounds"), "list", items="int", min=0, default=None) == []:
        raise Corrupt("header params.bag_rounds lists no bag; a model has one or more")
    for i in range(len(require_field(meta, ("params", "dev_curves"), "list", items="object", default=[]))):
        require_field(meta, ("params", "dev_curves", i, "rounds"), "list", items="int", min=0)
        require_field(meta, ("params", "dev_curves", i, "map"), "list", items="number")
    for key in require_field(meta, ("params", "beta_dev_map"), "object", default={}):
        if not _is_beta_key(key):
            raise Corrupt(
                f"header params.beta_dev_map has the key {show(key)}, which is not a beta >= 0 written with %g"
            )
        require_field(meta, ("params", "beta_dev_map", key), "number")
    return params


def _is_beta_key(key: str) -> bool:
    """Whether ``key`` is a finite number >= 0 as ``f"{beta:g}"`` writes it."""
    try:
        beta = float(key)
    except ValueError:
        return False
    return math.isfinite(beta) and beta >= 0 and f"{beta:g}" == key


def _sorted_terms(arr: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """A term array of a loaded model: distinct strings in increasing order, as the writer leaves them (two
    terms swapped against W would be another model, not a corrupt one, without the order)."""
    terms = require_array(arr, name, "str", unique=True)
    if len(terms) > 1:
        down = np.flatnonzero(terms[1:] < terms[:-1])
        if len(down):
            i = int(down[0]) + 1
            raise Corrupt(f"{name} is not in increasing order at {i} ({str(terms[i - 1])!r} then {str(terms[i])!r})")
    return terms


def _checked_history(arr: Mapping[str, np.ndarray], shape: tuple[int, int]) -> dict[str, np.ndarray]:
    """The per-round history arrays of a loaded model, checked (raises :class:`~clirkit.npzchecks.Corrupt`)."""
    R = len(require_array(arr, "history_round", "int"))
    P = len(require_array(arr, "history_pair_src", "int"))
    h = {
        "bag": require_array(arr, "history_bag", "int", shape=(R,), min=0, sorted=True, dtype=np.int64),
        "round": require_array(arr, "history_round", "int", min=1, dtype=np.int64),
        "bucket": require_array(arr, "history_bucket", "int", shape=(R,), min=0, dtype=np.int64),
        "alpha": require_array(arr, "history_alpha", "float", shape=(R,), dtype=np.float64),
        "ptr": require_array(arr, "history_ptr", "int", shape=(R + 1,), min=0, max=P, sorted=True, dtype=np.int64),
        "pair_src": require_array(arr, "history_pair_src", "int", max=shape[0] - 1, min=0, dtype=np.int64),
        "pair_tgt": require_array(arr, "history_pair_tgt", "int", shape=(P,), min=0, max=shape[1] - 1, dtype=np.int64),
    }
    if h["ptr"][0] != 0 or h["ptr"][-1] != P:
        raise Corrupt(f"history_ptr must run from 0 to the {P} pairs, got {int(h['ptr'][0])}..{int(h['ptr'][-1])}")
    if R:  # each bag's rounds are 1, 2, ... in order
        first = np.r_[True, h["bag"][1:] != h["bag"][:-1]]
        position = np.arange(R)
        expected = position - np.maximum.accumulate(np.where(first, position, 0)) + 1
        wrong = h["round"] != expected
        if wrong.any():
            i = int(np.argmax(wrong))
            raise Corrupt(
                f"history_round has {int(h['round'][i])} at {i}, expected round {int(expected[i])} "
                f"of bag {int(h['bag'][i])}"
            )
    return h


def _bag_count(history: Mapping[str, np.ndarray], params: Mapping) -> int:
    """The number of bags the model averages: one per entry of ``params["bag_rounds"]`` (a bag may keep no round),
    else one per bag of the history (at least 1). Raises :class:`~clirkit.npzchecks.Corrupt` when the history
    holds a bag beyond them."""
    in_history = int(history["bag"].max()) + 1 if len(history["bag"]) else 1
    recorded = params.get("bag_rounds")
    if recorded is None:
        return in_history
    if in_history > max(len(recorded), 1):
        raise Corrupt(f"history_bag holds bag {in_history - 1} but header params.bag_rounds lists {len(recorded)} bags")
    held = np.bincount(history["bag"], minlength=len(recorded)).tolist()
    cut = params.get("truncated_to_rounds")  # (a model cut to its first rounds keeps the bags' record)
    if held != [min(r, cut) if isinstance(cut, int) else r for r in recorded]:
        raise Corrupt(f"header params.bag_rounds is {recorded} but the history holds {held} rounds by bag")
    return max(len(recorded), 1)


def _check_weights(
    W: sp.csr_matrix, history: Mapping[str, np.ndarray], n_bags: int, terms: tuple[np.ndarray, np.ndarray]
) -> None:
    """Check ``W`` against the history it was summed from (raises :class:`~clirkit.npzchecks.Corrupt` naming the
    first pair of ``terms`` (source, target) whose weight differs). :meth:`BoostModel.from_results` makes each
    (source, target) entry the sum of the steps ``alpha / n_bags`` of the rounds whose bucket held that pair.

    Checked by one weighted sum, sum_ij r_i c_j W_ij against the steps', the weights r, c in [1, 2) fixed pseudo-
    random numbers: an entry changed, moved, added or dropped changes it (an edit that keeps it is a coincidence of
    measure zero). Finding each pair's entry instead costs a search per pair of the history, most of the load of a
    large model (2.5M pairs: 0.7 s of 0.96 s); it is made only to name the pair of a model that fails.

    The trainer sums an entry's steps in the order scipy's ``sum_duplicates`` leaves them (an unstable sort), the
    check in other orders: the two sums may differ by rounding. Each is a sum of sums (an entry's steps, a row, the
    rows; a round's pairs, the rounds), each of n terms within (n - 1) eps/2 of the sum of their magnitudes, which
    is below 4 sum|step|: the tolerance adds those n (R, the rounds, bounds an entry's steps; 128 the products and
    numpy's pairwise sums of the rows and rounds) and doubles them."""
    counts = np.diff(history["ptr"])
    rng = np.random.default_rng(0)
    r, c = 1.0 + rng.random(W.shape[0]), 1.0 + rng.random(W.shape[1])
    held = float(np.sum(r * (W @ c)))
    x = r[history["pair_src"]]
    x *= c[history["pair_tgt"]]
    held_pairs = counts > 0  # each round's pairs: from its start to the next round's with pairs
    per_round = np.add.reduceat(x, history["ptr"][:-1][held_pairs]) if len(x) else np.zeros(0)
    built = float(np.sum(history["alpha"][held_pairs] * per_round)) / n_bags
    n_sums = len(counts) + int(counts.max(initial=0)) + int(np.diff(W.indptr).max(initial=0)) + 128
    bound = 4.0 * float(np.dot(np.abs(history["alpha"]), counts)) / n_bags
    if abs(held - built) <= 2 * n_sums * np.finfo(np.float64).eps * bound:
        return
    steps = np.repeat(history["alpha"], counts) / n_bags
    rows = np.repeat(np.arange(W.shape[0], dtype=np.int64), np.diff(W.indptr))
    n_tgt = W.shape[1]
    stored, keys = rows * n_tgt + W.indices, history["pair_src"] * n_tgt + history["pair_tgt"]
    pairs, where = np.unique(np.concatenate([stored, keys]), return_inverse=True)
    got = np.bincount(where[: len(stored)], weights=W.data, minlength=len(pairs))
    summed = np.bincount(where[len(stored) :], weights=steps, minlength=len(pairs))
    size = np.bincount(where[len(stored) :], weights=np.abs(steps), minlength=len(pairs))
    off = np.abs(got - summed) > 2 * len(counts) * np.finfo(np.float64).eps * size
    if not off.any():
        raise Corrupt(f"W disagrees with the history: its weighted sum is {held!r}, the history's {built!r}")
    k = int(np.argmax(off))
    src, tgt = divmod(int(pairs[k]), n_tgt)
    raise Corrupt(
        f"W disagrees with the history at ({str(terms[0][src])!r}, {str(terms[1][tgt])!r}): it holds "
        f"{float(got[k])!r}, the steps of the pair in the history sum to {float(summed[k])!r}"
    )


def _document_rows(run_docids: np.ndarray, docids: Sequence[str], batch_rows: int = 200_000) -> np.ndarray:
    """The row in ``docids`` of each of ``run_docids`` (int64), by a binary search of the sorted ids, ``batch_rows``
    at a time (no Python loop over the run's rows, no copy of its ids); ClirkitError naming a run document absent
    from ``docids``."""
    known = np.asarray(docids, dtype=str)
    order = np.argsort(known, kind="stable")
    ordered = known[order]
    rows = np.empty(len(run_docids), dtype=np.int64)
    for a in range(0, len(run_docids), batch_rows):
        chunk = run_docids[a : a + batch_rows]
        pos = np.minimum(np.searchsorted(ordered, chunk), max(len(ordered) - 1, 0))
        absent = np.flatnonzero(ordered[pos] != chunk) if len(ordered) else np.arange(len(chunk))
        if len(absent):
            raise ClirkitError(f"the candidate run names document {str(chunk[absent[0]])!r}, absent from the documents")
        rows[a : a + batch_rows] = order[pos]
    return rows
