"""The Python API at its edges (independent testing, round 5): a phrase holding a term twice (a Korean word of
three syllables cut into two equal bigrams) is counted in a document as often as the term's count allows; boosting
whose step overflows the tuple weights stops there instead of writing a model of NaN weights; a TOML boolean is
no number of an experiment file's system."""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit import docphrases
from clirkit.analysis import Analyzer
from clirkit.boost import Boosting, PairFeatures
from clirkit.constraints import Interval, InvalidParameterError, validate
from clirkit.estimator import Resources
from clirkit.psqsystem import PSQ
from clirkit.retrieval.index import Index
from clirkit.tablefit import side_of
from clirkit.translation.tableio import load_table


def test_a_phrase_holding_a_term_twice_needs_two_of_its_occurrences():
    # terms a, b; documents "a", "a a", "a a a b"; the phrase "a a" at most 0, 1, 1 times, "a a b" 0, 0, 1
    tf = sp.csr_matrix(np.array([[1, 2, 3], [0, 0, 1]], dtype=np.int32))
    counts = docphrases.phrase_counts(tf, [np.array([0, 0]), np.array([0, 0, 1]), np.array([0, 1])]).toarray()
    assert counts.tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 1]]


def test_phrase_counts_with_repeated_terms_are_the_per_document_oracle(monkeypatch):
    rng = np.random.default_rng(3)
    tf = sp.random(20, 30, density=0.4, random_state=2, format="csr", data_rvs=lambda n: rng.integers(1, 7, n))
    dense = tf.toarray()
    members = [rng.choice(20, size=rng.integers(2, 5), replace=True) for _ in range(40)]
    monkeypatch.setattr(docphrases, "GATHER", 9)  # many groups of phrases

    def most(m):  # each term's count divided by its times in the phrase, rounded down; the fewest
        terms, times = np.unique(m, return_counts=True)
        return (dense[terms] // times[:, None]).min(axis=0)

    expected = np.stack([most(m) for m in members])
    assert np.array_equal(docphrases.phrase_counts(tf, members).toarray(), expected)


def test_a_korean_word_of_one_syllable_repeated_is_not_found_in_a_document_holding_it_once(tmp_path):
    ko = Analyzer("ko")
    assert ko.tokenize("하하하") == ["하하", "하하"]  # a phrase of one term twice
    docs = {"d1": "하하 좋아요", "d2": "하하하 웃음"}
    index = Index.from_tokens(list(docs), ko.tokenize_many(list(docs.values())), ko)
    path = tmp_path / "ko-en.txt"
    path.write_text("하하하 laughter\n좋아요 good\n웃음 smile\n", encoding="utf-8")
    table = load_table(path, "muse", source_lang="ko", target_lang="en")
    system = PSQ().fit(Resources(index=index, reverse_table=table))
    assert side_of(index, table, None) == "documents"  # as clirkit psq --table places it: from the documents' language
    assert system.search({"q": "laughter"}).docids.tolist() == ["d2"]  # not d1: one 하하 holds no 하하하


@pytest.fixture(scope="module")
def verses():
    """The first 40 training subtopics of nave-en-es, tokenized, the verses they judge and 200 others."""
    from clirkit import datasets

    c = datasets.load("nave-en-es")
    docids, texts = c.documents()
    qrels = c.qrels("train")
    topics = c.queries("train")
    qids = sorted(set(qrels.qids.tolist()))[:40]
    qrels = qrels.subset(qids)
    judged = set(qrels.docids.tolist())
    keep = [i for i, d in enumerate(docids) if d in judged or i < 200]
    queries = dict(zip(qids, Analyzer("en").tokenize_many([topics[q] for q in qids])))
    return queries, qrels, [docids[i] for i in keep], Analyzer("es").tokenize_many([texts[i] for i in keep])


@pytest.mark.parametrize("max_buckets", [None, 1])
def test_boosting_stops_where_its_step_overflows_the_tuple_weights_not_with_nan_weights(verses, max_buckets, capsys):
    """Two hash buckets (bits 1) hold every pair: a step over such a bucket's large feature values overflowed the
    tuple weights, every later round's step was NaN and the model written held NaN weights (exit 0)."""
    from clirkit.boost import BoostRanker

    queries, qrels, docids, doc_tokens = verses
    ngram = 1 if max_buckets is None else 2
    ranker = BoostRanker(
        features=PairFeatures(bits=1, ngram=ngram, max_buckets=max_buckets), boosting=Boosting(rounds=12), quiet=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ranker.fit_tokens(queries, qrels, docids, doc_tokens)
    model = ranker.model_
    assert np.isfinite(model.W.data).all() and np.isfinite(model.history["alpha"]).all()
    assert model.params["bag_rounds"][0] < 12
    err = capsys.readouterr().err
    assert "overflowed the tuple weights" in err


def test_validate_can_refuse_a_bool_as_an_interval_number():
    constraints = {"rounds": [Interval(Integral, 1, None, closed="left")], "flag": ["boolean"]}
    validate(constraints, {"rounds": True, "flag": True}, "X")  # scikit-learn's: True is 1
    with pytest.raises(InvalidParameterError, match=r"The 'rounds' parameter of X must be an int .* Got True"):
        validate(constraints, {"rounds": True, "flag": True}, "X", bools_as_ints=False)
    validate(constraints, {"rounds": 3, "flag": False}, "X", bools_as_ints=False)
