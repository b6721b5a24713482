"""What SCS trains on: the training units (:class:`TrainingData`, made by :meth:`SCSModel.prepare` from the judged
units and sampled negatives, :func:`judged_units`, and the pairwise losses' :func:`triplets`), ids looked up in id
arrays, and unjudged documents sampled as negatives."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from clirkit.errors import ClirkitError, counted, too_big_as_memory
from clirkit.progress import say
from clirkit.run import Qrels
from clirkit.sortedunique import sorted_unique


@dataclass
class TrainingData:
    """Training units built by :meth:`clirkit.scs.SCSModel.prepare`.

    Pointwise losses use ``(query, doc, grade)`` rows; pairwise losses use
    ``(query, pos, neg, weight)`` triplets. Indices point into the training
    queries' and the documents' averaging matrices ``A_q`` and ``A_d``.
    """

    A_q: sp.csr_matrix
    A_d: sp.csr_matrix
    query: np.ndarray
    doc: np.ndarray | None = None
    grade: np.ndarray | None = None
    pos: np.ndarray | None = None
    neg: np.ndarray | None = None
    weight: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.query)

    def take(self, idx: np.ndarray) -> "TrainingData":
        pick = lambda a: None if a is None else a[idx]  # noqa: E731
        return TrainingData(
            self.A_q,
            self.A_d,
            self.query[idx],
            pick(self.doc),
            pick(self.grade),
            pick(self.pos),
            pick(self.neg),
            pick(self.weight),
        )


def lookup(ids: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``values`` in the id array ``ids`` and whether each was found."""
    position = {v: i for i, v in enumerate(ids.tolist())}
    pos = np.fromiter((position.get(v, -1) for v in np.asarray(values).tolist()), dtype=np.int64, count=len(values))
    return np.maximum(pos, 0), pos >= 0


@too_big_as_memory()
def sample_negatives(
    rng: np.random.Generator, queries: np.ndarray, judged_keys: np.ndarray, n_docs: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """``k`` distinct unjudged documents per query, uniformly (fewer if the collection runs out).

    Keys are ``query * n_docs + doc``. Draws ``2k`` candidates per query at once,
    drops judged and repeated ones, keeps the first ``k``; the rare query left
    short is completed from its exact complement.
    """
    if k == 0 or len(queries) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    judged_keys = sorted_unique(judged_keys)
    draw = rng.integers(0, n_docs, size=(len(queries), 2 * k))
    keys = queries[:, None].astype(np.int64) * n_docs + draw
    flat = keys.ravel()
    _, first = np.unique(flat, return_index=True)
    fresh = np.zeros(flat.size, dtype=bool)
    fresh[first] = True
    valid = (fresh & ~np.isin(flat, judged_keys)).reshape(keys.shape)
    valid &= np.cumsum(valid, axis=1) <= k
    out_q = [np.repeat(queries, valid.sum(axis=1))]
    out_d = [draw[valid]]
    for row in np.flatnonzero(valid.sum(axis=1) < k).tolist():
        q = int(queries[row])
        taken = np.concatenate([judged_keys[(judged_keys // n_docs) == q] % n_docs, draw[row][valid[row]]])
        rest = np.delete(np.arange(n_docs), taken)  # (np.setdiff1d hashes: clirkit.sortedunique)
        extra = rng.permutation(rest)[: k - int(valid[row].sum())]
        out_q.append(np.full(len(extra), q))
        out_d.append(extra)
    return np.concatenate(out_q), np.concatenate(out_d)


def triplets(
    rng: np.random.Generator,
    A_q,
    A_d,
    uq: np.ndarray,
    ud: np.ndarray,
    ug: np.ndarray,
    *,
    max_pairs: int | None,
    pair_weight: str,
) -> TrainingData:
    """All (query, d+, d-) with grade(d+) > grade(d-) among each query's units ``(uq, ud, ug)``, sorted by query
    (at most ``max_pairs`` a query, sampled with ``rng``; None: all), weighted 1 or by the grades' difference
    (``pair_weight`` ``"uniform"`` or ``"grade"``)."""
    starts = np.flatnonzero(np.r_[True, uq[1:] != uq[:-1]])
    ends = np.r_[starts[1:], len(uq)]
    parts_q, parts_p, parts_n, parts_w = [], [], [], []
    for s, e in zip(starts.tolist(), ends.tolist()):
        g = ug[s:e]
        i, j = np.nonzero(g[:, None] > g[None, :])
        if not len(i):
            continue
        if max_pairs is not None and len(i) > max_pairs:
            pick = np.sort(rng.choice(len(i), size=max_pairs, replace=False))
            i, j = i[pick], j[pick]
        parts_q.append(np.full(len(i), uq[s]))
        parts_p.append(ud[s + i])
        parts_n.append(ud[s + j])
        parts_w.append((g[i] - g[j]).astype(np.float64) if pair_weight == "grade" else np.ones(len(i)))
    if not parts_q:
        empty = np.zeros(0, dtype=np.int64)
        return TrainingData(A_q, A_d, empty, pos=empty, neg=empty, weight=np.zeros(0))
    return TrainingData(
        A_q,
        A_d,
        np.concatenate(parts_q),
        pos=np.concatenate(parts_p),
        neg=np.concatenate(parts_n),
        weight=np.concatenate(parts_w),
    )


class NoRelevantError(ClirkitError):
    """The training qrels judge no pair relevant: the command line names their file."""


WHY_NO_TERM = "empty, only stopwords, or no word segmented"
"""Why a text holds no term after analysis, as the messages of :func:`check_terms` say it."""


class NoQueryTermError(ClirkitError):
    """No training query holds a term after analysis: the command line can name the queries' file."""


def check_terms(
    query_ids, A_q: sp.csr_matrix, A_d: sp.csr_matrix, uq: np.ndarray, ud: np.ndarray, *, quiet: bool
) -> None:
    """Refuse training units ``(uq, ud)`` (rows of the averaging matrices ``A_q`` and ``A_d``) that train nothing,
    and say on stderr (unless ``quiet``) how many judged training queries (``query_ids``) hold no term.

    A text with no term in the vocabulary encodes as zero, so a unit of it scores 0 and moves no embedding.
    NoQueryTermError when no judged training query holds a term after analysis, ClirkitError when none of the
    units pairs a query and a document that both hold one."""
    q_terms, d_terms = np.diff(A_q.indptr) > 0, np.diff(A_d.indptr) > 0
    judged = sorted_unique(uq)
    empty = judged[~q_terms[judged]]
    if len(empty) == len(judged):
        raise NoQueryTermError(
            f"no judged training query holds a term after analysis ({WHY_NO_TERM}): SCS learns from the queries' words"
        )
    if len(empty):
        one = len(empty) == 1
        say(
            f"scs: {len(empty):,} of {counted(len(judged), 'judged training query', 'judged training queries')} "
            f"{'holds' if one else 'hold'} no term after analysis ({WHY_NO_TERM}) and {'trains' if one else 'train'} "
            f"nothing; {'it' if one else 'the first'} is {str(query_ids[int(empty[0])])!r}",
            quiet=quiet,
        )
    if not (q_terms[uq] & d_terms[ud]).any():
        raise ClirkitError(
            "no training query with a term after analysis has a judged or sampled document with one "
            f"({WHY_NO_TERM}): SCS learns from the documents' words"
        )


def judged_units(
    query_ids,
    doc_ids,
    qrels: Qrels,
    *,
    n_grades: int | None,
    thresholds,
    negatives: int,
    rng: np.random.Generator,
    quiet: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """The pointwise training units ``(query, document, grade)`` (positions in ``query_ids`` and ``doc_ids``):
    each judged pair once at its highest grade (negative grades as 0), and ``negatives`` unjudged documents a judged
    query sampled with ``rng`` as grade 0; sorted by query, grade descending, document. Also the counts of the
    training statistics (queries, documents, judged pairs, sampled negatives). ClirkitError for a grade the
    model's ``n_grades`` (``thresholds``; None for any grade: the pairwise losses read no thresholds) cannot hold,
    no judgment naming a document of the collection, or none relevant (grade >= 1)."""
    qids = np.asarray(query_ids, dtype=str)
    dids = np.asarray(doc_ids, dtype=str)
    q_of, q_ok = lookup(qids, qrels.qids)
    d_of, d_ok = lookup(dids, qrels.docids)
    dropped = int((~(q_ok & d_ok) & np.isin(qrels.qids, qids)).sum())
    if dropped:
        names = counted(dropped, "judgment names a document", "judgments name documents")
        say(f"scs: {names} not in the collection; ignored", quiet=quiet)
    keep = q_ok & d_ok
    jq, jd = q_of[keep], d_of[keep]
    jg = np.maximum(qrels.rels[keep], 0)
    if n_grades is not None and jg.size and jg.max() >= n_grades:
        raise ClirkitError(
            f"qrels have grade {jg.max()} but the model has {n_grades} grades "
            f"(thresholds {' '.join(map(str, thresholds))}); give one more threshold "
            "per extra grade"
        )
    if not jq.size:
        raise ClirkitError("no judgment of the training queries names a document of the collection")
    if not jg.max():  # every unit would be grade 0: a loss of 0 and a model of its initial embeddings
        raise NoRelevantError(
            f"no judgment of the training queries is relevant (the highest grade is {int(qrels.rels[keep].max())}): "
            "SCS learns from relevant (query, document) pairs"
        )
    nd = len(dids)
    # one judgment per (query, doc): the highest grade
    key = jq.astype(np.int64) * nd + jd
    order = np.lexsort((-jg, key))
    first = np.ones(len(order), dtype=bool)
    first[1:] = key[order][1:] != key[order][:-1]
    jq, jd, jg = jq[order][first], jd[order][first], jg[order][first]
    judged_queries = sorted_unique(jq)
    nq_neg, nd_neg = sample_negatives(rng, judged_queries, jq.astype(np.int64) * nd + jd, nd, negatives)
    uq = np.concatenate([jq, nq_neg])
    ud = np.concatenate([jd, nd_neg])
    ug = np.concatenate([jg, np.zeros(len(nq_neg), dtype=np.int64)])
    order = np.lexsort((ud, -ug, uq))
    uq, ud, ug = uq[order], ud[order], ug[order]
    return (
        uq,
        ud,
        ug,
        {
            "queries": int(len(judged_queries)),
            "documents": int(nd),
            "judged_pairs": int(len(jq)),
            "sampled_negatives": int(len(nq_neg)),
        },
    )
