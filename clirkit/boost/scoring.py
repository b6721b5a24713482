"""Scoring with a bilinear model as sparse products, top-k per query, and dev MAP for early stopping.

Scores are ``Qm @ W @ Dm.T``: Qm (queries x S, binary), W (S x T, the phrase
table), Dm (documents x T, binary). A document is retrieved for a query when
its score is non-zero (it shares phrase-table pairs with the query whose
weights do not cancel exactly); scores may be negative. Queries are processed in batches
so memory stays bounded by ``batch`` rows of the (queries x documents) product.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.sortedunique import sorted_unique


def docid_tie_key(docids: Sequence[str]) -> np.ndarray:
    """Rank of each docid in ascending string order (ties in a ranking go to the smaller docid)."""
    arr = np.asarray(docids, dtype=str)
    key = np.empty(len(arr), dtype=np.int64)
    key[np.argsort(arr, kind="stable")] = np.arange(len(arr))
    return key


def top_k(
    Qm: sp.csr_matrix, W: sp.csr_matrix, DmT: sp.csr_matrix, tie_key: np.ndarray, *, depth: int, batch: int = 256
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Yield ``(query_rows, doc_rows, scores)`` per batch, in rank order.

    Args:
        Qm: queries x S CSR; W: S x T CSR; DmT: T x documents CSR (``Dm.T``).
        tie_key: a permutation of the documents; equal scores rank by ascending key
            (pass the rank of each docid in sorted order for docid ties).
        depth: documents kept per query.
    Rows are grouped by query (ascending), score descending, ties by ``tie_key``.
    The selection is :func:`clirkit.retrieval.topk.top_k` on the scores with columns relabelled by ``tie_key``.
    """
    from clirkit.retrieval.topk import top_k as top_stored_entries

    document_of_key = np.empty_like(tie_key)
    document_of_key[tie_key] = np.arange(len(tie_key))
    QW = (Qm @ W).tocsr()
    for start in range(0, Qm.shape[0], batch):
        S = (QW[start : start + batch] @ DmT).tocsr()
        by_key = sp.csr_matrix((S.data, tie_key[S.indices], S.indptr), shape=S.shape)
        rows, keys, vals = top_stored_entries(by_key, depth)
        yield rows + start, document_of_key[keys], vals


class DevEvaluator:
    """Dev-set MAP of a set of weighted pairs, used for early stopping.

    Ranks the dev queries over the whole collection exactly as
    :meth:`clirkit.boost.BoostModel.rank_matrices` does and scores the run with
    :func:`clirkit.metrics.evaluate` (AP, trec_eval semantics, averaged over the
    queries of the dev qrels), so the dev MAP is the number a user would get.

    Args:
        Qm: dev queries x S (source ids of the training vocabulary), binary CSR.
        Dm: documents x T, binary CSR.
        qids, docids: ids of the rows of ``Qm`` and ``Dm``.
        qrels: the dev judgments.
        depth: ranking depth (1000 in the SPEC).
    """

    def __init__(
        self, Qm: sp.csr_matrix, Dm: sp.csr_matrix, qids, docids, qrels, *, depth: int = 1000, batch: int = 256
    ) -> None:
        self.Qm = sp.csr_matrix(Qm, dtype=np.float64)
        self.DmT = sp.csr_matrix(Dm, dtype=np.float64).T.tocsr()
        self.qids = np.asarray(qids, dtype=str)
        self.docids = np.asarray(docids, dtype=str)
        self.tie_key = docid_tie_key(self.docids)
        self.qrels = qrels
        self.depth = depth
        self.batch = batch

    def __call__(self, src: np.ndarray, tgt: np.ndarray, weights: np.ndarray) -> float:
        from clirkit.metrics import evaluate
        from clirkit.run import Run

        S, T = self.Qm.shape[1], self.DmT.shape[0]
        W = sp.csr_matrix((weights, (src, tgt)), shape=(S, T))
        W.sum_duplicates()
        parts = list(top_k(self.Qm, W, self.DmT, self.tie_key, depth=self.depth, batch=self.batch))
        q = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        if len(q) == 0:
            return 0.0
        d = np.concatenate([p[1] for p in parts])
        s = np.concatenate([p[2] for p in parts])
        run = Run(self.qids[q], self.docids[d], s)
        return float(evaluate(run, self.qrels, ["AP"], depth=self.depth).mean()["AP"])


def pair_scores(
    QW: sp.csr_matrix, Dm: sp.csr_matrix, qrow: np.ndarray, drow: np.ndarray, *, batch_rows: int = 200_000
) -> np.ndarray:
    """q^T W d at each (query row, document row) pair.

    Args:
        QW: queries x T CSR, the product ``Qm @ W``; Dm: documents x T CSR.
        qrow, drow: int arrays of equal length (rows of ``QW`` and ``Dm``).
    Returns:
        float64 array: the row-wise dot products of ``QW[qrow]`` and ``Dm[drow]``,
        in slices of ``batch_rows`` pairs so memory stays bounded.
    """
    out = np.zeros(len(qrow))
    for a in range(0, len(qrow), batch_rows):
        sl = slice(a, a + batch_rows)
        out[sl] = np.asarray(QW[qrow[sl]].multiply(Dm[drow[sl]]).sum(axis=1)).ravel()
    return out


class RerankEvaluator:
    """Dev-set MAP of a base run re-ranked with beta * f0 + q^T W d (boosting from a base ranker; with no pair,
    the base run's own order).

    Scores each dev candidate row of ``base`` as :meth:`clirkit.boost.BoostModel.rerank`
    does, orders each query's rows by score (ties by docid), keeps ``depth`` and
    averages AP over the queries of the dev qrels.

    Args:
        Qm: dev queries x S binary CSR; Dm: documents x T CSR.
        qids, docids: ids of the rows of ``Qm`` and ``Dm``.
        qrels: the dev judgments.
        base: :class:`clirkit.boost.base.BaseScores` of the base run over the dev queries.
        beta: weight of the base scores.
    """

    from_base = True  # rounds that do not beat the base alone on dev are not kept (clirkit.boost.bagging.train_bag)

    def __init__(
        self, Qm: sp.csr_matrix, Dm: sp.csr_matrix, qids, docids, qrels, base, beta: float, *, depth: int = 1000
    ) -> None:
        self.Qm = sp.csr_matrix(Qm, dtype=np.float64)
        self.Dcsc = sp.csc_matrix(Dm, dtype=np.float64)
        self.qids = np.asarray(qids, dtype=str)
        self.docids = np.asarray(docids, dtype=str)
        grouped = np.argsort(base.qrow, kind="stable")  # rows grouped by query, once
        self.qrow, self.drow = base.qrow[grouped], base.drow[grouped]
        self.row_qids = self.qids[self.qrow]  # stays right after any within-query re-ordering
        self._f0 = base.f0[grouped]
        self.base_part = beta * self._f0
        self.tie = docid_tie_key(self.docids)[self.drow]
        per_query = np.bincount(self.qrow) if len(self.qrow) else np.zeros(1, np.int64)
        self.cut = int(per_query.max()) > depth
        self.qrels = qrels
        self.depth = depth
        self._slots = _QuerySlots(self.qrow, self.tie)
        # no query cut at depth: AP needs only where the relevant rows land, found once the rows are sorted
        self._ap = None if self.cut else _CandidateAP.of(self.qrow, self.drow, self.qids, self.docids, self.tie, qrels)

    def with_beta(self, beta: float) -> "RerankEvaluator":
        """This evaluator for another ``beta``: every array shared with this one but the base part, beta * f0
        (the betas of one sweep hold the dev candidates once)."""
        import copy

        other = copy.copy(self)
        other.base_part = beta * self._f0
        return other

    def scores(self, src: np.ndarray, tgt: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """beta * f0 + q^T W d of every candidate row, W made of the weighted pairs (src, tgt)."""
        cols, tgt_c = np.unique(np.asarray(tgt, dtype=np.int64), return_inverse=True)
        W = sp.csr_matrix((weights, (src, tgt_c)), shape=(self.Qm.shape[1], len(cols)))
        W.sum_duplicates()
        QW = (self.Qm @ W).tocsr()
        return self.base_part + pair_scores(QW, self.Dcsc[:, cols].tocsr(), self.qrow, self.drow)

    def per_query(self, src: np.ndarray, tgt: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """AP of each query of the dev qrels (in their order; 0 for a query without candidates) for the
        candidates re-ranked with the weighted pairs (none: the base run's order)."""
        from clirkit.metrics import evaluate

        run = self._run(self.scores(src, tgt, weights))
        return np.asarray(evaluate(run, self.qrels, ["AP"], depth=self.depth).column("AP"), dtype=np.float64)

    def _run(self, s: np.ndarray):
        """The candidates ranked by the scores ``s`` (one per row): each query's rows by score, ties by docid,
        cut at ``depth``."""
        from clirkit.run import Run

        order = self._slots.order(s)
        run = Run(self.row_qids, self.docids[self.drow[order]], s[order])
        return run.top(self.depth) if self.cut else run

    def __call__(self, src: np.ndarray, tgt: np.ndarray, weights: np.ndarray) -> float:
        """Dev MAP (AP over the dev qrels' queries) of the candidates re-ranked with the weighted pairs."""
        from clirkit.metrics import evaluate

        s = self.scores(src, tgt, weights)
        if self._ap is not None:
            return self._ap(s)
        return float(evaluate(self._run(s), self.qrels, ["AP"], depth=self.depth).mean()["AP"])


class _CandidateAP:
    """Mean AP of scores over fixed candidate rows, the number :func:`clirkit.metrics.evaluate` gives (AP,
    trec_eval ties, average over the qrels' queries) for the run of those rows ranked by the scores, when no
    query has more rows than the depth.

    trec_eval ranks a query's rows by float32 score descending, then docid descending, and AP reads only the
    ranks of the relevant rows: one sort of 64-bit keys ``(query, float32 score descending, docid descending)``
    gives them (about 6 ms for 400 dev queries x 1,000 rows, against 40 for the run of strings and its
    evaluation). Each query's AP is then summed as :mod:`clirkit.measures` sums it: ``k / rank`` over its k-th
    relevant row in rank order, from 0, divided by its judged relevant count, and the queries' values averaged
    as an :class:`~clirkit.metrics.Evaluation` averages them (``mean(axis=0)`` of the qrels' queries in their
    order, 0 for a query without rows).

    Args:
        qrow, drow: each candidate's query and document (rows grouped by query); tie: each row's docid rank in
            ascending order; qids, docids: the ids the rows index; qrels: the judgments.
    """

    def __init__(self, qrow, tie, relevant, n_queries, tie_bits, judged_rows, n_judged) -> None:
        self.qrow, self.tie, self.relevant = qrow, tie, relevant
        self.shift_q, self.tie_bits = 32 + tie_bits, tie_bits
        self.starts = np.searchsorted(qrow, np.arange(n_queries))  # rows sorted by key keep the queries' bounds
        self.judged_rows, self.n_judged = judged_rows, n_judged

    @classmethod
    def of(
        cls, qrow: np.ndarray, drow: np.ndarray, qids: np.ndarray, docids: np.ndarray, tie: np.ndarray, qrels
    ) -> "_CandidateAP | None":
        """The evaluator, or None when the keys do not fit 64 bits (queries x documents > 2**32) or a query
        lists a document twice (:func:`~clirkit.metrics.evaluate` refuses that run)."""
        from clirkit.boost.tuples import index_of

        n_queries, n_docs = len(qids), len(docids)
        tie_bits = max(1, int(n_docs - 1).bit_length())
        if max(1, int(n_queries - 1).bit_length()) + 32 + tie_bits > 63 or np.any(np.diff(qrow) < 0):
            return None
        keys = qrow.astype(np.int64) * n_docs + drow
        if len(sorted_unique(keys)) != len(keys):
            return None
        qi, di = index_of(qrels.qids, qids), index_of(qrels.docids, docids)
        judged = (qrels.rels >= 1) & (qi >= 0) & (di >= 0)
        relevant = np.flatnonzero(np.isin(keys, qi[judged] * n_docs + di[judged]))
        order = qrels.query_ids  # the qrels' queries in their order (a row each); those not in qids count 0
        at = index_of(qids, order)  # the row of each of qids, -1 if the qrels do not judge it
        n_judged = np.zeros(len(order), dtype=np.int64)  # judged relevant documents of each qrels query
        np.add.at(n_judged, index_of(qrels.qids[qrels.rels >= 1], order), 1)
        return cls(qrow, tie, relevant, n_queries, tie_bits, at, n_judged)

    def __call__(self, scores: np.ndarray) -> float:
        with np.errstate(over="ignore"):
            s32 = scores.astype(np.float32)  # as trec_eval: beyond float32's range becomes +-inf
        s32 += np.float32(0.0)  # -0.0 ties +0.0
        bits = s32.view(np.uint32).astype(np.uint64)
        negative = bits >= np.uint64(1 << 31)
        ascending = np.where(negative, ~bits & np.uint64(0xFFFFFFFF), bits | np.uint64(1 << 31))  # float order
        keys = (
            (self.qrow.astype(np.uint64) << np.uint64(self.shift_q))
            | ((np.uint64(0xFFFFFFFF) - ascending) << np.uint64(self.tie_bits))
            | (np.uint64((1 << self.tie_bits) - 1) - self.tie.astype(np.uint64))
        )
        ranked = np.sort(keys)
        rel = self.relevant
        rank = np.searchsorted(ranked, keys[rel]) - self.starts[self.qrow[rel]] + 1
        hits = np.lexsort((rank, self.qrow[rel]))  # by query, then rank
        query, rank = self.qrow[rel][hits], rank[hits]
        first = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1]))) if len(query) else query
        nth = np.arange(1, len(query) + 1) - np.repeat(first, np.diff(np.append(first, len(query))))
        sums = np.bincount(query, weights=nth / rank, minlength=len(self.starts))
        ap = np.zeros((len(self.n_judged), 1))
        mine = self.judged_rows >= 0
        den = self.n_judged[self.judged_rows[mine]].astype(np.float64)
        ap[self.judged_rows[mine], 0] = np.divide(sums[mine], den, out=np.zeros(len(den)), where=den > 0)
        return float(ap.mean(axis=0)[0])


class _QuerySlots:
    """The rows of a base run sorted by (query, score descending, tie key ascending), fast.

    The order is ``np.lexsort((tie, -scores, qrow))`` (the tie keys of one query's rows are distinct, so the
    order is unique), made by one short sort per query: the rows are laid once into a queries x longest-query
    table of slots, each query's rows in tie-key order, the other slots padding; a call scatters the negated
    scores into it (+inf in the padding, which sorts last) and sorts every row of the table stably, which
    breaks equal scores by the tie key. On 400 dev queries x 1,000 rows this is about 5x faster than the
    lexsort, which it replaces when the padding is at most 3 slots per row (else it uses the lexsort).

    Args:
        qrow: query of each row, grouped (non-decreasing); tie: the rows' tie keys.
    """

    def __init__(self, qrow: np.ndarray, tie: np.ndarray) -> None:
        self.qrow, self.tie = qrow, tie
        n = len(qrow)
        starts = np.flatnonzero(np.concatenate(([True], qrow[1:] != qrow[:-1]))) if n else np.zeros(0, np.int64)
        sizes = np.diff(np.append(starts, n))
        self.shape = (len(starts), int(sizes.max()) if n else 0)
        self.table = n > 0 and self.shape[0] * self.shape[1] <= 4 * n
        if self.table:
            self.rows = np.lexsort((tie, qrow))  # each query's rows in tie-key order
            self.slot = np.repeat(np.arange(len(starts)) * self.shape[1] - starts, sizes) + np.arange(n)
            self.row_of_slot = np.full(self.shape[0] * self.shape[1], -1, dtype=np.int64)
            self.row_of_slot[self.slot] = self.rows

    def order(self, scores: np.ndarray) -> np.ndarray:
        """Row permutation: grouped by query, ``scores`` descending, ties by ascending tie key."""
        if not self.table:
            return np.lexsort((self.tie, -scores, self.qrow))
        keys = np.full(self.shape[0] * self.shape[1], np.inf)
        keys[self.slot] = -scores[self.rows]
        within = np.argsort(keys.reshape(self.shape), axis=1, kind="stable")
        within += (np.arange(self.shape[0]) * self.shape[1])[:, None]
        rows = self.row_of_slot[within.ravel()]
        return rows[rows >= 0]
