"""clirkit.retrieval.bm25: BM25 over structured queries; rank-bm25's BM25Okapi is the oracle of the search path.

clirkit's BM25 equals ``rank_bm25.BM25Okapi(tokens, k1, b, epsilon)`` when built as
``BM25(index, k1=k1, b=b, idf="bm25okapi", epsilon=epsilon)`` with the default ``k3=None`` (raw query tf,
as BM25Okapi sums over repeated query tokens): BM25Okapi's idf is rsj, negative values replaced by
epsilon times the mean rsj idf of the vocabulary. The defaults differ (clirkit k1 = 1.2 and the lucene
idf; rank-bm25 k1 = 1.5), epsilon 0.25 and b 0.75 agree. ``search`` ranks only documents matching a
query term (BM25Okapi gives the others 0), score descending, ties by docid ascending.

The verses are analyzed into whole words (``stemmer=None``): the edge cases below are named by the words
that reach them ("fué", "de", "tinieblas"), and BM25's arithmetic does not depend on the analysis.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from rank_bm25 import BM25Okapi

import clirkit.retrieval.bm25 as bm25_module
import clirkit.retrieval.topk as topk_module
from clirkit.analysis import Analyzer
from clirkit.boost import Boosting, PairFeatures
from clirkit.datasets import BUNDLED
from clirkit.errors import ClirkitError
from clirkit.formats import iter_documents
from clirkit.retrieval.bm25 import BM25, idf_mean_rsj
from clirkit.retrieval.index import Index
from clirkit.retrieval.query import StructuredQueries

QUERIES = [
    "la luz y las tinieblas",
    "el espíritu de dios sobre las aguas",
    "expansión cielos cielos",
    "el verbo era dios",
    "principio",
    "noche día tarde mañana",
]
# BM25Okapi edge cases: repeated terms, terms in more than half of the verses (floored idf), terms in
# exactly half of the Genesis verses ("fué", "de": rsj idf 0), an unknown token, only unknown tokens
OKAPI_QUERIES = QUERIES + ["y fué la tarde", "fué", "dios dios", "de las aguas", "xyzzy luz", "xyzzy plugh"]


@pytest.fixture(autouse=True, params=["compiled", "numpy"])
def ranking_path(request, monkeypatch):
    """Every test runs with the compiled kernel (when numba is installed) and with numpy ranking."""
    if request.param == "compiled":
        pytest.importorskip("numba")
        from clirkit.retrieval.kernels import rank_sums

        monkeypatch.setattr(topk_module, "_ranker", rank_sums)
    else:
        monkeypatch.setattr(topk_module, "_ranker", False)
    return request.param


@pytest.fixture
def corpus(verses_es):
    analyzer = Analyzer("es", stemmer=None)
    docids = sorted(verses_es)
    tokens = [analyzer.tokenize(verses_es[d]) for d in docids]
    return docids, tokens, Index.from_tokens(docids, tokens, analyzer)


def structured(index, texts):
    tokens = [index.analyzer.tokenize(t) for t in texts]
    return StructuredQueries.from_tokens([f"q{i}" for i in range(len(texts))], tokens, index.vocabulary), tokens


def okapi_ranking(reference: BM25Okapi, docids, tokens, query, depth=None) -> tuple[list[str], dict[str, float]]:
    """rank-bm25's answer to ``query`` in clirkit's run form: the documents holding a query token,
    by BM25Okapi score descending (scores within 1e-9 are ties), ties by docid ascending; and every
    document's BM25Okapi score."""
    scores = dict(zip(docids, reference.get_scores(query).tolist()))
    matched = [d for d, toks in zip(docids, tokens) if set(query) & set(toks)]
    tied_groups: list[list[str]] = []
    for d in sorted(matched, key=lambda d: -scores[d]):
        if tied_groups and scores[tied_groups[-1][0]] - scores[d] <= 1e-9:
            tied_groups[-1].append(d)
        else:
            tied_groups.append([d])
    ranking = [d for group in tied_groups for d in sorted(group)]
    return ranking[:depth], scores


def assert_run_is_okapi(run, reference, docids, tokens, qtokens, depth=None):
    """Every query's ranking and every returned score equal rank-bm25's (scores to 1e-9)."""
    expected_queries = [f"q{i}" for i, q in enumerate(qtokens) if okapi_ranking(reference, docids, tokens, q)[0]]
    assert run.query_ids == expected_queries  # a query matching nothing has no rows
    for i, q in enumerate(qtokens):
        expected, scores = okapi_ranking(reference, docids, tokens, q, depth)
        got_docids, got_scores = run.for_query(f"q{i}")
        assert got_docids.tolist() == expected, q
        np.testing.assert_allclose(got_scores, [scores[d] for d in expected], rtol=0, atol=1e-9, err_msg=str(q))


# the slices of the verses and what each exercises in BM25.search
OKAPI_SLICES = {
    # y, dios, la, las in more than half of the verses: idf floored to 0.25 x mean idf > 0, every weight > 0
    "ten verses": lambda d: True,
    # N = 8: "fué" and "de" in 4 verses have rsj idf ln(4.5/4.5) = 0; a document matching only them scores 0
    # and is still ranked
    "genesis": lambda d: d.startswith("Gen."),
    # N = 3: the mean rsj idf is negative, so the floor is negative and common terms score below 0
    "three verses": lambda d: d in ("Gen.1.3", "Gen.1.4", "Gen.1.5"),
}


@pytest.mark.parametrize("k1,b,epsilon", [(1.5, 0.75, 0.25), (1.2, 0.75, 0.25), (0.9, 0.4, 0.5), (2.0, 1.0, 0.0)])
@pytest.mark.parametrize("slice_name", list(OKAPI_SLICES))
def test_search_with_bm25okapi_idf_equals_rank_bm25_scores_and_ranking(verses_es, slice_name, k1, b, epsilon):
    analyzer = Analyzer("es", stemmer=None)
    docids = sorted(d for d in verses_es if OKAPI_SLICES[slice_name](d))
    tokens = [analyzer.tokenize(verses_es[d]) for d in docids]
    index = Index.from_tokens(docids, tokens, analyzer)
    sq, qtokens = structured(index, OKAPI_QUERIES)
    run = BM25(index, k1=k1, b=b, idf="bm25okapi", epsilon=epsilon).search(sq)
    assert_run_is_okapi(run, BM25Okapi(tokens, k1=k1, b=b, epsilon=epsilon), docids, tokens, qtokens)


def test_the_slices_reach_the_okapi_edge_cases(verses_es):
    analyzer = Analyzer("es", stemmer=None)
    for name, expected_sign in [("ten verses", 1), ("three verses", -1)]:
        docids = sorted(d for d in verses_es if OKAPI_SLICES[name](d))
        tokens = [analyzer.tokenize(verses_es[d]) for d in docids]
        assert np.sign(idf_mean_rsj(Index.from_tokens(docids, tokens, analyzer))) == expected_sign
    genesis = [analyzer.tokenize(verses_es[d]) for d in sorted(verses_es) if d.startswith("Gen.")]
    assert sum("fué" in toks for toks in genesis) == len(genesis) / 2  # rsj idf exactly 0


def test_rank_bm25_defaults_are_bm25okapi_idf_with_k1_1_5(corpus):
    docids, tokens, index = corpus
    sq, qtokens = structured(index, OKAPI_QUERIES)
    run = BM25(index, k1=1.5, idf="bm25okapi").search(sq)  # clirkit's b and epsilon defaults are rank-bm25's
    assert_run_is_okapi(run, BM25Okapi(tokens), docids, tokens, qtokens)


def test_clirkit_defaults_are_not_bm25okapi(corpus):
    docids, tokens, index = corpus
    sq, qtokens = structured(index, ["la luz"])
    docs, scores = BM25(index).search(sq).for_query("q0")
    reference = dict(zip(docids, BM25Okapi(tokens).get_scores(qtokens[0]).tolist()))
    assert not np.allclose(scores, [reference[d] for d in docs], rtol=0, atol=1e-9)


def test_search_through_the_general_path_equals_rank_bm25(corpus, monkeypatch):
    # the path PSQ takes (each distinct translation row projected through the index) on one-to-one rows
    docids, tokens, index = corpus
    sq, qtokens = structured(index, OKAPI_QUERIES)
    monkeypatch.setattr(StructuredQueries, "is_one_to_one", lambda self: False)
    run = BM25(index, k1=1.5, idf="bm25okapi").search(sq)
    assert_run_is_okapi(run, BM25Okapi(tokens, k1=1.5), docids, tokens, qtokens)


@pytest.fixture(scope="module")
def genesis_400():
    """The first 400 verses of the bundled collection (Gen.1.1 to Gen.17.2), tokenized."""
    analyzer = Analyzer("es", stemmer=None)
    path = BUNDLED / "nave-en-es" / "standard" / "documents.tsv.gz"
    docids, texts = zip(*itertools.islice(iter_documents(path), 400))
    tokens = [analyzer.tokenize(t) for t in texts]
    return list(docids), tokens, Index.from_tokens(docids, tokens, analyzer)


@pytest.mark.parametrize("depth", [1, 10, 1000])
def test_search_depth_on_bundled_verses_keeps_rank_bm25s_top_documents(genesis_400, depth):
    # 400 documents: depth 1 and 10 take the sampled-candidate path of top_k_dense; common words ("dios",
    # "y") tie many verses, so the cut-off falls inside ties, which go to the smaller docid
    docids, tokens, index = genesis_400
    texts = [
        "la luz y las tinieblas",
        "Abram y Sarai su mujer",
        "el arca y las aguas del diluvio",
        "dios",
        "y dijo dios",
        "los hijos de Noé: Sem, Cam y Japhet",
    ]
    sq, qtokens = structured(index, texts)
    run = BM25(index, k1=1.5, b=0.75, idf="bm25okapi").search(sq, depth=depth)
    assert_run_is_okapi(run, BM25Okapi(tokens, k1=1.5, b=0.75), docids, tokens, qtokens, depth=depth)


def test_bundled_slice_has_ties_at_the_depth_cut_off(genesis_400):
    docids, tokens, index = genesis_400
    _, (q,) = structured(index, ["dios"])
    ranking, scores = okapi_ranking(BM25Okapi(tokens), docids, tokens, q)
    assert abs(scores[ranking[9]] - scores[ranking[10]]) <= 1e-9  # so depth 10 cuts inside a tie


def searched(model: BM25, sq: StructuredQueries, qid: str = "q0") -> dict[str, float]:
    """``{docid: score}`` of one query as ``BM25.search`` returns it (every matching document)."""
    docids, scores = model.search(sq, depth=model.index.n_docs).for_query(qid)
    return dict(zip(docids.tolist(), scores.tolist()))


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


@pytest.mark.parametrize(
    "variant,idf_of",
    [
        ("rsj", lambda N, df: math.log((N - df + 0.5) / (df + 0.5))),
        ("lucene", lambda N, df: math.log(1 + (N - df + 0.5) / (df + 0.5))),
    ],
)
def test_rsj_and_lucene_match_the_hand_formula(corpus, variant, idf_of):
    _, _, index = corpus
    sq, qtokens = structured(index, ["la luz luz de las tinieblas"])
    scores = searched(BM25(index, idf=variant), sq)
    for doc in ["Gen.1.3", "Gen.1.4", "John.1.5"]:
        expected = _hand_score(index, qtokens[0], doc, 1.2, 0.75, idf_of)
        assert scores[doc] == pytest.approx(expected, rel=1e-12)


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
    scores = searched(BM25(index, k1=k1, b=b), sq, "q")
    N, avgdl = index.n_docs, index.doc_lengths.mean()
    df = 0.7 * index.df[v["luz"]] + 0.3 * index.df[v["tinieblas"]]
    idf = math.log(1 + (N - df + 0.5) / (df + 0.5))
    for j, doc in enumerate(index.docids):
        tf = 0.7 * index.tf[v["luz"], j] + 0.3 * index.tf[v["tinieblas"], j]
        K = k1 * ((1 - b) + b * index.doc_lengths[j] / avgdl)
        if tf == 0:
            assert doc not in scores  # matches neither translation: not ranked
            continue
        expected = 2.0 * idf * tf * (k1 + 1) / (K + tf)
        assert scores[doc] == pytest.approx(expected, rel=1e-12, abs=0), doc
    assert len(scores) == 5  # Gen.1.2, 1.3, 1.4, 1.5 and John.1.5 hold luz or tinieblas


def test_k3_saturates_the_query_tf(corpus):
    _, _, index = corpus
    sq, _ = structured(index, ["luz luz luz"])
    plain = searched(BM25(index), sq)
    saturated = searched(BM25(index, k3=2.0), sq)
    assert saturated.keys() == plain.keys()
    for doc, score in plain.items():  # query tf 3 becomes (k3 + 1) 3 / (k3 + 3)
        assert saturated[doc] == pytest.approx(score / 3 * (3 * 3 / (2 + 3)), rel=1e-12)


def test_one_to_one_fast_path_equals_the_general_path(corpus, monkeypatch):
    _, _, index = corpus
    sq, _ = structured(index, QUERIES)
    fast = BM25(index, idf="rsj").score_matrix(sq).toarray()
    monkeypatch.setattr(StructuredQueries, "is_one_to_one", lambda self: False)
    general = BM25(index, idf="rsj").score_matrix(sq).toarray()
    np.testing.assert_allclose(fast, general, rtol=1e-13, atol=1e-13)


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


@pytest.mark.parametrize("per_step", [1, 2, 4])
def test_progress_steps_over_the_shared_arguments_give_the_same_run(corpus, monkeypatch, per_step):
    """One-to-one queries over the precomputed weights make the ranking's arguments once and rank a range of
    them per progress step: every step its own queries, the run of one step."""
    _, _, index = corpus
    sq, _ = structured(index, QUERIES)
    assert BM25(index)._shared_units(sq)
    whole = BM25(index).search(sq, depth=5)
    monkeypatch.setattr(bm25_module, "_QUERIES_PER_STEP", per_step)
    stepped = BM25(index).search(sq, depth=5)
    assert whole.qids.tolist() == stepped.qids.tolist() and whole.docids.tolist() == stepped.docids.tolist()
    assert np.array_equal(whole.scores, stepped.scores) and len(set(whole.qids.tolist())) > per_step


def test_bad_parameters_are_user_errors(corpus):
    _, _, index = corpus
    with pytest.raises(ClirkitError, match="unknown idf variant"):
        BM25(index, idf="tfidf")
    with pytest.raises(ClirkitError, match="out of range"):
        BM25(index, b=1.5)


def test_a_boost_query_sharing_no_ngram_with_the_table_has_no_rows():
    from clirkit.boost import BoostRanker
    from clirkit.run import Qrels

    docids, docs = ["Gen.1.1", "Gen.1.3"], [["en", "el", "principio"], ["sea", "la", "luz"]]
    model = (
        BoostRanker(features=PairFeatures(bits=20), boosting=Boosting(rounds=2), quiet=True)
        .fit_tokens({"q1": ["light"], "q2": ["beginning"]}, Qrels(["q1", "q2"], docids[::-1], [1, 1]), docids, docs)
        .model_
    )
    assert len(model.rank({"q": ["zzz"]}, docids, docs)) == 0


# float32 precision ---------------------------------------------------------------------------------


def test_float32_scores_are_the_float64_scores_to_1e6_relative(genesis_400):
    # the whole 400-verse slice ranked: the same documents, scores within float32 rounding
    docids, tokens, index = genesis_400
    texts = ["la luz y las tinieblas", "Abram y Sarai su mujer", "y dijo dios", "dios dios tierra"]
    sq, _ = structured(index, texts)
    exact = BM25(index, k1=1.5, b=0.75).search(sq, depth=len(docids))
    fast = BM25(index, k1=1.5, b=0.75, precision="float32").search(sq, depth=len(docids))
    for qid in sq.qids:
        d64, s64 = exact.for_query(qid)
        d32, s32 = fast.for_query(qid)
        assert sorted(d32.tolist()) == sorted(d64.tolist())
        by_doc = dict(zip(d64.tolist(), s64.tolist()))
        assert np.allclose(s32, [by_doc[d] for d in d32.tolist()], rtol=1e-6, atol=0)
        assert np.all(np.diff(s32) <= 0)


def test_float32_depth_cut_keeps_the_float32_order_with_ties_by_docid(genesis_400):
    docids, tokens, index = genesis_400
    sq, _ = structured(index, ["dios", "y dijo dios"])
    model = BM25(index, precision="float32")
    whole = model.search(sq, depth=len(docids))
    for depth in (1, 10, 37):
        cut = model.search(sq, depth=depth)
        for qid in sq.qids:
            d, s = whole.for_query(qid)
            assert cut.for_query(qid)[0].tolist() == d[:depth].tolist()
            tied = s[:-1] == s[1:]
            assert all(d[i] < d[i + 1] for i in np.flatnonzero(tied))


def test_an_unknown_precision_is_a_user_error(corpus):
    _, _, index = corpus
    with pytest.raises(ClirkitError, match="unknown precision"):
        BM25(index, precision="float16")


def test_the_first_search_needs_no_warm_up_the_dense_rows_are_made_with_the_weights(genesis_400):
    _, _, index = genesis_400
    model = BM25(index)
    model.posting_weights()
    common = index.df >= bm25_module._DENSE_FRACTION * index.n_docs
    assert common.any() and np.flatnonzero(model._dense_slot >= 0).tolist() == np.flatnonzero(common).tolist()
    sq, _ = structured(index, ["y dijo dios"])
    before = model._dense_slot.copy()
    assert model.search(sq).scores.tolist() == model.search(sq).scores.tolist()
    assert model._dense_slot.tolist() == before.tolist()


# the compiled kernel and numpy ranking ----------------------------------------------------------------


def random_structured(index, n_queries, seed, *, one_to_one):
    """Queries of 1-6 source terms, each translated to 1-4 random target terms (weights summing to 1), or
    to one term with weight 1; some source terms repeated across queries, some with no target term."""
    rng = np.random.default_rng(seed)
    common = np.argsort(-index.df, kind="stable")[:40]  # common terms make long rows and many ties
    rows, cols, vals, source_query, pool = [], [], [], [], []
    for q in range(n_queries):
        for _ in range(int(rng.integers(1, 7))):
            if pool and rng.random() < 0.3:
                targets, weights = pool[int(rng.integers(len(pool)))]
            else:
                width = 1 if one_to_one else int(rng.integers(0, 5))
                choice = np.concatenate([common, rng.integers(0, index.n_terms, 40)])
                targets = np.unique(rng.choice(choice, width, replace=False)) if width else np.zeros(0, int)
                weights = (
                    np.ones(len(targets))
                    if one_to_one
                    else rng.dirichlet(np.ones(len(targets)))
                    if len(targets)
                    else np.zeros(0)
                )
                pool.append((targets, weights))
            rows.extend([len(source_query)] * len(targets))
            cols.extend(targets.tolist())
            vals.extend(weights.tolist())
            source_query.append(q)
    n = len(source_query)
    translations = sp.csr_matrix((vals, (rows, cols)), shape=(n, index.n_terms))
    return StructuredQueries(
        [f"q{i}" for i in range(n_queries)],
        np.array(source_query, dtype=np.int64),
        rng.integers(1, 3, n).astype(np.float64),
        translations,
        [f"s{i}" for i in range(n)],
    )


@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("idf", ["lucene", "rsj"])  # rsj: negative weights, matched cells found by a flag
@pytest.mark.parametrize("kind", ["one-to-one", "psq", "pirkola", "memory-mapped"])
def test_the_compiled_kernel_and_numpy_rank_the_same_bytes(
    genesis_400, tmp_path, monkeypatch, ranking_path, precision, idf, kind
):
    if ranking_path == "numpy":
        pytest.skip("compares both paths itself")
    from clirkit.retrieval.kernels import rank_sums

    _, _, index = genesis_400
    if kind == "memory-mapped":
        index.save(tmp_path / "index.npz")
        index = Index.load(tmp_path / "index.npz", mmap=True)
    sq = random_structured(index, 60, seed=len(kind), one_to_one=kind in ("one-to-one", "memory-mapped"))
    if kind == "pirkola":
        sq = StructuredQueries(
            sq.qids, sq.source_query, sq.source_weight, sq.translations, sq.source_terms, df_union=True
        )
    runs = {}
    for path, ranker in (("compiled", rank_sums), ("numpy", False)):
        monkeypatch.setattr(topk_module, "_ranker", ranker)
        model = BM25(index, idf=idf, precision=precision, k3=8.0)
        runs[path] = [model.search_sizes(sq, depth=depth) for depth in (1, 10, 1000)]
        # floors (a shard searched after others): each query's 3rd score, so that ties at the floor occur
        sizes, _, scores = runs[path][-1]
        third = np.where(sizes >= 3, scores[np.minimum(np.cumsum(sizes) - sizes + 2, len(scores) - 1)], -np.inf)
        runs[path].append(model.search_sizes(sq, depth=10, floors=third))
    for compiled, numpy_ in zip(runs["compiled"], runs["numpy"]):
        assert len(compiled[1]) > 0
        for a, b in zip(compiled, numpy_):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


class _CompileError(Exception):
    """Stands for numba's errors (their module is numba's)."""


_CompileError.__module__ = "numba.core.errors"


def test_a_kernel_numba_cannot_compile_falls_back_to_numpy_once_with_one_line(
    genesis_400, monkeypatch, capsys, ranking_path
):
    if ranking_path == "compiled":
        pytest.skip("sets the ranker itself")
    _, _, index = genesis_400
    sq, _ = structured(index, ["y dijo dios", "la luz"])
    monkeypatch.setattr(topk_module, "_ranker", False)
    expected = BM25(index).search(sq)

    def failing(*args):
        raise _CompileError("Failed in nopython mode pipeline\n(step: nopython frontend)")

    monkeypatch.setattr(topk_module, "_ranker", failing)
    model = BM25(index)
    for _ in range(2):
        run = model.search(sq)
        assert (run.docids.tolist(), run.scores.tolist()) == (expected.docids.tolist(), expected.scores.tolist())
    err = capsys.readouterr().err
    assert err == (
        "clirkit: numba failed (_CompileError: Failed in nopython mode pipeline (step: nopython "
        "frontend)); ranking with numpy, the same runs\n"
    )
    assert topk_module.compiled_ranker() is None


def test_an_error_of_the_kernel_that_is_not_numbas_is_raised(genesis_400, monkeypatch, ranking_path):
    if ranking_path == "compiled":
        pytest.skip("sets the ranker itself")
    _, _, index = genesis_400
    sq, _ = structured(index, ["y dijo dios"])

    def failing(*args):
        raise MemoryError

    monkeypatch.setattr(topk_module, "_ranker", failing)
    with pytest.raises(MemoryError):
        BM25(index).search(sq)


@pytest.mark.parametrize("mapped", [False, True])
def test_weights_computed_a_chunk_of_postings_at_a_time_are_the_same(genesis_400, tmp_path, monkeypatch, mapped):
    _, _, index = genesis_400
    if mapped:
        index.save(tmp_path / "index.npz")
        index = Index.load(tmp_path / "index.npz", mmap=True)
    sq, _ = structured(index, ["y dijo dios", "la luz y las tinieblas", "Abram y Sarai su mujer"])
    whole = BM25(index).search_sizes(sq, depth=50)
    weights = None if mapped else BM25(index).posting_weights().data.tobytes()
    assert len(whole[0])
    for chunk in (1, 7, 1000):  # a row longer than a chunk is weighted alone
        monkeypatch.setattr(bm25_module, "_WEIGHT_CHUNK", chunk)
        model = BM25(index)
        if not mapped:
            assert model.posting_weights().data.tobytes() == weights
        assert all(a.tobytes() == b.tobytes() for a, b in zip(model.search_sizes(sq, depth=50), whole))
