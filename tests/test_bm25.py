import math

import numpy as np
import pytest
import scipy.sparse as sp
from rank_bm25 import BM25Okapi

import clirkit.bm25 as bm25_module
from clirkit.analysis import Analyzer
from clirkit.bm25 import BM25, top_k
from clirkit.errors import ClirkitError
from clirkit.index import Index
from clirkit.query import StructuredQueries

QUERIES = ["la luz y las tinieblas", "el espíritu de dios sobre las aguas", "expansión cielos cielos",
           "el verbo era dios", "principio", "noche día tarde mañana"]


@pytest.fixture
def corpus(verses_es):
    analyzer = Analyzer("es")
    docids = sorted(verses_es)
    tokens = [analyzer.tokenize(verses_es[d]) for d in docids]
    return docids, tokens, Index.from_tokens(docids, tokens, analyzer)


def structured(index, texts):
    tokens = [index.analyzer.tokenize(t) for t in texts]
    return StructuredQueries.from_tokens([f"q{i}" for i in range(len(texts))], tokens, index.vocabulary), tokens


@pytest.mark.parametrize("k1,b", [(1.5, 0.75), (1.2, 0.75), (0.9, 0.4)])
def test_bm25okapi_scores_equal_rank_bm25(corpus, k1, b):
    docids, tokens, index = corpus
    sq, qtokens = structured(index, QUERIES)
    ours = BM25(index, k1=k1, b=b, idf="bm25okapi").score_matrix(sq).toarray()
    reference = BM25Okapi(tokens, k1=k1, b=b)
    for i, q in enumerate(qtokens):
        np.testing.assert_allclose(ours[i], reference.get_scores(q), rtol=0, atol=1e-9)


def _hand_score(index, query_terms, doc, k1, b, idf_of):
    j = list(index.docids).index(doc)
    N, avgdl = index.n_docs, index.doc_lengths.mean()
    K = k1 * ((1 - b) + b * index.doc_lengths[j] / avgdl)
    total = 0.0
    for term in set(query_terms):
        i = index.vocabulary[term]
        tf, df = index.tf[i, j], index.df[i]
        total += query_terms.count(term) * idf_of(N, df) * tf * (k1 + 1) / (K + tf)
    return total


@pytest.mark.parametrize("variant,idf_of", [
    ("rsj", lambda N, df: math.log((N - df + 0.5) / (df + 0.5))),
    ("lucene", lambda N, df: math.log(1 + (N - df + 0.5) / (df + 0.5))),
])
def test_rsj_and_lucene_match_the_hand_formula(corpus, variant, idf_of):
    _, _, index = corpus
    sq, qtokens = structured(index, ["la luz luz de las tinieblas"])
    scores = BM25(index, idf=variant).score_matrix(sq).toarray()[0]
    for doc in ["Gen.1.3", "Gen.1.4", "John.1.5"]:
        expected = _hand_score(index, qtokens[0], doc, 1.2, 0.75, idf_of)
        assert scores[list(index.docids).index(doc)] == pytest.approx(expected, rel=1e-12)


def test_rsj_idf_is_negative_for_terms_in_most_documents(corpus):
    _, _, index = corpus
    assert BM25(index, idf="rsj").idf(np.array([9.0]))[0] == pytest.approx(math.log(1.5 / 9.5))
    assert BM25(index, idf="lucene").idf(np.array([9.0]))[0] > 0


def test_fractional_tf_and_df_give_the_formula_value(corpus):
    _, _, index = corpus
    v = index.vocabulary
    # one source term translated as 0.7 "luz" + 0.3 "tinieblas", query tf 2
    sq = StructuredQueries.from_rows(["q"], [[("light", 2.0, {v["luz"]: 0.7, v["tinieblas"]: 0.3})]], index.n_terms)
    k1, b = 1.2, 0.75
    scores = BM25(index, k1=k1, b=b).score_matrix(sq).toarray()[0]
    N, avgdl = index.n_docs, index.doc_lengths.mean()
    df = 0.7 * index.df[v["luz"]] + 0.3 * index.df[v["tinieblas"]]
    idf = math.log(1 + (N - df + 0.5) / (df + 0.5))
    for j, doc in enumerate(index.docids):
        tf = 0.7 * index.tf[v["luz"], j] + 0.3 * index.tf[v["tinieblas"], j]
        K = k1 * ((1 - b) + b * index.doc_lengths[j] / avgdl)
        expected = 2.0 * idf * tf * (k1 + 1) / (K + tf)
        assert scores[j] == pytest.approx(expected, rel=1e-12, abs=0), doc


def test_k3_saturates_the_query_tf(corpus):
    _, _, index = corpus
    sq, _ = structured(index, ["luz luz luz"])
    plain = BM25(index).score_matrix(sq).toarray()[0]
    saturated = BM25(index, k3=2.0).score_matrix(sq).toarray()[0]
    np.testing.assert_allclose(saturated, plain / 3 * (3 * 3 / (2 + 3)))


def test_one_to_one_fast_path_equals_the_general_path(corpus, monkeypatch):
    _, _, index = corpus
    sq, _ = structured(index, QUERIES)
    fast = BM25(index, idf="rsj").score_matrix(sq).toarray()
    monkeypatch.setattr(StructuredQueries, "is_one_to_one", lambda self: False)
    general = BM25(index, idf="rsj").score_matrix(sq).toarray()
    np.testing.assert_allclose(fast, general, rtol=1e-13, atol=1e-13)


def test_top_k_breaks_ties_by_docid_and_keeps_only_stored_entries():
    scores = sp.csr_matrix(np.array([[0.0, 2.0, 1.0, 2.0, 1.0, 1.0],
                                     [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                                     [3.0, -1.0, 0.0, 0.0, 0.0, 3.0]]))
    rows, cols, values = top_k(scores, 3)
    assert rows.tolist() == [0, 0, 0, 2, 2, 2]
    assert cols.tolist() == [1, 3, 2, 0, 5, 1]
    assert values.tolist() == [2.0, 2.0, 1.0, 3.0, 3.0, -1.0]


def test_search_ranks_by_score_then_docid_and_cuts_at_depth(corpus):
    _, _, index = corpus
    sq, _ = structured(index, QUERIES)
    model = BM25(index)
    dense = model.score_matrix(sq).toarray()
    run = model.search(sq, depth=4)
    for qid, rows in run.groups():
        i = int(qid[1:])
        matched = [(-dense[i, j], index.docids[j]) for j in np.flatnonzero(dense[i] != 0)]
        expected = [d for _, d in sorted(matched)[:4]]
        assert run.docids[rows].tolist() == expected


def test_query_with_only_unknown_terms_returns_no_rows(corpus):
    _, _, index = corpus
    sq, _ = structured(index, ["xyzzy plugh", "luz"])
    run = BM25(index).search(sq)
    assert run.query_ids == ["q1"]


def test_small_batches_give_the_same_run(corpus, monkeypatch):
    _, _, index = corpus
    sq, _ = structured(index, QUERIES)
    whole = BM25(index).search(sq, depth=5)
    monkeypatch.setattr(bm25_module, "_POSTINGS_PER_BATCH", 1)
    batched = BM25(index).search(sq, depth=5)
    assert whole.qids.tolist() == batched.qids.tolist() and whole.docids.tolist() == batched.docids.tolist()
    assert np.array_equal(whole.scores, batched.scores)


def test_bad_parameters_are_user_errors(corpus):
    _, _, index = corpus
    with pytest.raises(ClirkitError, match="unknown idf variant"):
        BM25(index, idf="tfidf")
    with pytest.raises(ClirkitError, match="out of range"):
        BM25(index, b=1.5)


@pytest.mark.parametrize("unmatched", [0.0, -np.inf])
def test_top_k_dense_on_wide_rows_equals_a_full_sort(unmatched):
    # wide rows take the sampled-candidate path; scores drawn from few values force ties at the cut-off
    rng = np.random.default_rng(7)
    k, n = 50, 50 * 40
    dense = rng.integers(1, 6, size=(6, n)).astype(float)
    dense[rng.random(dense.shape) < 0.5] = unmatched
    dense[1, :] = unmatched
    dense[1, [5, 9]] = [2.0, 3.0]  # fewer matches than k
    dense[2] = np.where(dense[2] == unmatched, unmatched, 1.0)  # one value only
    rows, cols, values = bm25_module.top_k_dense(dense, unmatched, k)
    for i in range(len(dense)):
        matched = [(-dense[i, j], j) for j in range(n) if dense[i, j] != unmatched]
        expected = sorted(matched)[:k]
        assert cols[rows == i].tolist() == [j for _, j in expected]
        assert values[rows == i].tolist() == [-v for v, _ in expected]
