"""Structured queries: the input of the BM25 engine.

Each query is a bag of *source terms*; each source term carries a query
weight (its query tf) and a distribution over *target terms* of an index's
vocabulary. DT is the special case of one target term with weight 1 per
source term; PSQ uses p(e|f). The BM25 engine turns these into fractional
tf~ = sum_e p(e|f) tf(e,d) and df~ = sum_e p(e|f) df(e) (SPEC §2, §4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class StructuredQueries:
    """A batch of structured queries in columnar form.

    Attributes:
        qids: query ids, length n_queries.
        source_query: int64 array (n_source,): the query each source-term row belongs to.
        source_weight: float64 array (n_source,): the source term's query tf (before k3 saturation).
        translations: CSR float64 matrix (n_source x n_target_vocabulary): the target
            terms of each source term with their weights. An empty row contributes nothing.
        source_terms: the source term string of each row (for display and debugging).
        df_union: the df of a source term is the number of documents holding any of its target terms
            (Pirkola's structured queries: translations as synonyms) instead of sum_e weight * df(e).
    """

    qids: list[str]
    source_query: np.ndarray
    source_weight: np.ndarray
    translations: sp.csr_matrix
    source_terms: list[str]
    df_union: bool = False

    def __post_init__(self) -> None:
        n = len(self.source_terms)
        if not (len(self.source_query) == len(self.source_weight) == self.translations.shape[0] == n):
            raise ValueError("StructuredQueries arrays differ in length")

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @classmethod
    def from_rows(
        cls, qids: Sequence[str], rows: Sequence[Sequence[tuple[str, float, Mapping[int, float]]]], n_targets: int
    ) -> "StructuredQueries":
        """Build from per-query lists of ``(source_term, query_tf, {target_id: weight})``."""
        source_query, source_weight, source_terms = [], [], []
        indptr: list[int] = [0]
        indices: list[int] = []
        data: list[float] = []
        for qi, query_rows in enumerate(rows):
            for term, qtf, targets in query_rows:
                source_query.append(qi)
                source_weight.append(qtf)
                source_terms.append(term)
                ids = sorted(targets)
                indices.extend(ids)
                data.extend(targets[i] for i in ids)
                indptr.append(len(indices))
        translations = sp.csr_matrix(
            (
                np.asarray(data, dtype=np.float64),
                np.asarray(indices, dtype=np.int64),
                np.asarray(indptr, dtype=np.int64),
            ),
            shape=(len(source_terms), n_targets),
        )
        return cls(
            list(qids),
            np.asarray(source_query, dtype=np.int64),
            np.asarray(source_weight, dtype=np.float64),
            translations,
            source_terms,
        )

    @classmethod
    def from_tokens(
        cls, qids: Sequence[str], token_lists: Sequence[Sequence[str]], vocabulary: Mapping[str, int]
    ) -> "StructuredQueries":
        """Monolingual (and DT) queries: each distinct token maps to itself with weight 1.

        Tokens absent from ``vocabulary`` get an empty row (they match nothing).
        """
        flat: list = []
        ends = []
        for tokens in token_lists:
            if isinstance(tokens, str):
                raise TypeError("StructuredQueries.from_tokens expects lists of tokens, got a str")
            flat.extend(tokens)
            ends.append(len(flat))
        # each query's distinct tokens in order of first occurrence, with their counts, at once: the tokens
        # numbered over the batch, then the (query, number) pairs made unique
        numbers = {t: i for i, t in enumerate(dict.fromkeys(flat))}
        number = np.fromiter(map(numbers.__getitem__, flat), dtype=np.int64, count=len(flat))
        sizes: np.ndarray = np.diff(np.asarray(ends, dtype=np.int64), prepend=0)
        query = np.repeat(np.arange(len(ends), dtype=np.int64), sizes)
        _, first, counts = np.unique(query * max(len(numbers), 1) + number, return_index=True, return_counts=True)
        by_position = np.argsort(first, kind="stable")
        first, counts = first[by_position], counts[by_position]
        source_terms = [flat[i] for i in first.tolist()]
        target_of = np.fromiter(
            (vocabulary[t] if t in vocabulary else -1 for t in numbers), dtype=np.int64, count=len(numbers)
        )
        targets = target_of[number[first]]
        known = targets >= 0
        translations = sp.csr_matrix(
            (np.ones(int(known.sum())), targets[known], np.concatenate(([0], np.cumsum(known, dtype=np.int64)))),
            shape=(len(source_terms), len(vocabulary)),
        )
        return cls(list(qids), query[first], counts.astype(np.float64), translations, source_terms)

    def is_one_to_one(self) -> bool:
        """True when every source term has at most one target term, with weight 1."""
        t = self.translations
        return bool(np.all(np.diff(t.indptr) <= 1) and np.all(t.data == 1.0))

    def block(self, lo: int, hi: int) -> "StructuredQueries":
        """Queries ``lo:hi`` (query positions) as a batch of their own: their source rows, in order."""
        rows = np.flatnonzero((self.source_query >= lo) & (self.source_query < hi))
        return StructuredQueries(
            self.qids[lo:hi],
            self.source_query[rows] - lo,
            self.source_weight[rows],
            self.translations[rows],
            [self.source_terms[i] for i in rows.tolist()],
            df_union=self.df_union,
        )
