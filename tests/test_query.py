"""clirkit.retrieval.query: StructuredQueries, the columnar input of the BM25 engine (DT one-to-one, PSQ distributions)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from clirkit.errors import ClirkitError
from clirkit.retrieval.query import StructuredQueries


def test_from_tokens_gives_one_row_per_distinct_token_with_its_query_tf(index):
    v = index.vocabulary
    tokens = index.analyzer.tokenize("la luz y las tinieblas, la luz")
    sq = StructuredQueries.from_tokens(["Gen.1.4"], [tokens], v)
    # distinct tokens in order of first occurrence, weight = count in the query
    assert sq.source_terms == ["la", "luz", "y", "las", "tinieblas"]
    assert sq.source_weight.tolist() == [2.0, 2.0, 1.0, 1.0, 1.0]
    assert sq.source_query.tolist() == [0] * 5
    assert sq.translations.shape == (5, index.n_terms)
    assert sq.translations.indices.tolist() == [v[t] for t in sq.source_terms]
    assert sq.translations.data.tolist() == [1.0] * 5


def test_from_tokens_gives_unknown_tokens_an_empty_row(index):
    sq = StructuredQueries.from_tokens(["q"], [["xyzzy", "luz"]], index.vocabulary)
    assert sq.source_terms == ["xyzzy", "luz"]
    assert np.diff(sq.translations.indptr).tolist() == [0, 1]
    assert sq.translations.indices.tolist() == [index.vocabulary["luz"]]


def test_from_tokens_numbers_source_rows_by_query_and_keeps_queries_without_terms(index):
    v = index.vocabulary
    sq = StructuredQueries.from_tokens(["a", "empty", "b"], [["dios", "luz"], [], ["aguas"]], v)
    assert sq.qids == ["a", "empty", "b"] and sq.n_queries == 3
    assert sq.source_query.tolist() == [0, 0, 2]  # the empty query has no row but keeps its index
    assert sq.source_query.dtype == np.int64 and sq.source_weight.dtype == np.float64


def test_from_rows_stores_each_source_terms_distribution_sorted_by_target_id(index):
    v = index.vocabulary
    light = {v["tinieblas"]: 0.3, v["luz"]: 0.7}  # PSQ-like: p(e|f) over two target terms
    rows = [[("light", 2.0, light), ("god", 1.0, {v["dios"]: 1.0})], [("xyzzy", 1.0, {})]]
    sq = StructuredQueries.from_rows(["Gen.1.4", "q2"], rows, index.n_terms)
    assert isinstance(sq.translations, sp.csr_matrix)
    assert sq.translations.shape == (3, index.n_terms)
    assert sq.translations.indptr.tolist() == [0, 2, 3, 3]
    assert sq.translations.indices[:2].tolist() == sorted([v["luz"], v["tinieblas"]])
    assert sq.translations[0, v["luz"]] == 0.7 and sq.translations[0, v["tinieblas"]] == 0.3
    assert sq.source_query.tolist() == [0, 0, 1]
    assert sq.source_weight.tolist() == [2.0, 1.0, 1.0]
    assert sq.source_terms == ["light", "god", "xyzzy"]


def test_is_one_to_one_for_dt_queries_and_not_for_distributions(index):
    v = index.vocabulary
    dt = StructuredQueries.from_tokens(["q"], [["luz", "xyzzy"]], v)
    assert dt.is_one_to_one()  # an empty row (unknown token) does not break it
    two = StructuredQueries.from_rows(["q"], [[("light", 1.0, {v["luz"]: 0.5, v["día"]: 0.5})]], index.n_terms)
    assert not two.is_one_to_one()
    fractional = StructuredQueries.from_rows(["q"], [[("light", 1.0, {v["luz"]: 0.7})]], index.n_terms)
    assert not fractional.is_one_to_one()  # one target, but weight 0.7, not 1


def test_arrays_of_different_lengths_are_rejected(index):
    t = sp.csr_matrix((2, index.n_terms))
    with pytest.raises(ValueError, match="differ in length"):
        StructuredQueries(["q"], np.array([0, 0]), np.array([1.0]), t, ["luz", "dios"])
    with pytest.raises(ValueError, match="differ in length"):
        StructuredQueries(["q"], np.array([0, 0]), np.array([1.0, 1.0]), t, ["luz"])


def test_from_tokens_rejects_a_string_in_place_of_a_token_list(index):
    with pytest.raises((ClirkitError, TypeError)):
        StructuredQueries.from_tokens(["Gen.1.3"], ["luz"], index.vocabulary)


def _from_tokens_one_query_at_a_time(qids, token_lists, vocabulary) -> StructuredQueries:
    """from_tokens as it was written first: a Counter per query (the reference of the batched one)."""
    from collections import Counter

    source_query, source_weight, source_terms = [], [], []
    for qi, tokens in enumerate(token_lists):
        counts = Counter(tokens)
        source_terms.extend(counts)
        source_weight.extend(counts.values())
        source_query.extend([qi] * len(counts))
    targets = np.array([vocabulary[t] if t in vocabulary else -1 for t in source_terms], dtype=np.int64)
    known = targets >= 0
    translations = sp.csr_matrix(
        (np.ones(int(known.sum())), targets[known], np.concatenate(([0], np.cumsum(known, dtype=np.int64)))),
        shape=(len(source_terms), len(vocabulary)),
    )
    return StructuredQueries(
        list(qids),
        np.asarray(source_query, dtype=np.int64),
        np.asarray(source_weight, dtype=np.float64),
        translations,
        source_terms,
    )


@settings(max_examples=200, deadline=None)
@given(
    token_lists=st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "x", "y", "zz", ""]), max_size=8), max_size=6)
)
def test_from_tokens_equals_a_counter_per_query(token_lists):
    vocabulary = {"a": 0, "b": 3, "c": 1, "d": 2, "": 4}  # "x", "y", "zz" unknown
    qids = [f"q{i}" for i in range(len(token_lists))]
    got = StructuredQueries.from_tokens(qids, token_lists, vocabulary)
    want = _from_tokens_one_query_at_a_time(qids, token_lists, vocabulary)
    assert got.qids == want.qids and got.source_terms == want.source_terms
    for name in ("source_query", "source_weight"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    for name in ("data", "indices", "indptr"):
        a, b = getattr(got.translations, name), getattr(want.translations, name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert got.translations.shape == want.translations.shape


def test_from_tokens_takes_tuples_and_arrays_of_tokens(index):
    v = index.vocabulary
    sq = StructuredQueries.from_tokens(["a", "b"], [("luz", "dios", "luz"), np.array(["aguas"])], v)
    assert sq.source_terms == ["luz", "dios", "aguas"] and sq.source_weight.tolist() == [2.0, 1.0, 1.0]
    assert sq.translations.indices.tolist() == [v["luz"], v["dios"], v["aguas"]]
