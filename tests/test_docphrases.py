"""A table's phrases when the documents are translated (clirkit/docphrases.py, clirkit.docpsq.project): a document
holds a phrase as often as its rarest term, taken from its terms' counts."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit import docphrases
from clirkit.analysis import Analyzer
from clirkit.docpsq import ShardedProjectedIndex, project, project_shards
from clirkit.estimator import Resources
from clirkit.psqsystem import PSQ
from clirkit.retrieval.index import Index
from clirkit.retrieval.shards import ShardedIndex
from clirkit.tablefit import side_of
from clirkit.translation.tableio import load_table


def test_phrase_counts_are_the_fewest_of_their_terms_counts_in_each_document(monkeypatch):
    rng = np.random.default_rng(0)
    tf = sp.random(30, 40, density=0.3, random_state=1, format="csr", data_rvs=lambda n: rng.integers(1, 5, n))
    dense = tf.toarray()
    members = [rng.choice(30, size=rng.integers(2, 5), replace=False) for _ in range(25)]
    monkeypatch.setattr(docphrases, "GATHER", 7)  # many groups of phrases
    counts = docphrases.phrase_counts(tf, members).toarray()
    expected = np.stack([dense[m].min(axis=0) for m in members])
    assert np.array_equal(counts, expected)


def test_a_phrases_counts_come_after_the_terms_which_keep_theirs():
    # terms a, b, c; documents: "a b", "a a b", "b c": the phrase "a b" at most 1, 1, 0 times
    tf = sp.csr_matrix(np.array([[1, 2, 0], [1, 1, 1], [0, 0, 1]], dtype=np.int32))
    out = docphrases.with_phrases(tf, [np.array([0, 1])]).toarray()
    assert out.tolist() == [[1, 2, 0], [1, 1, 1], [0, 0, 1], [1, 1, 0]]


def _korean(tmp_path):
    ko = Analyzer("ko")  # bigrams: a word of three syllables is two terms, a phrase of the table
    docs = {"d1": "아이스크림 가게", "d2": "가게 문", "d3": "크림 빵"}
    index = Index.from_tokens(list(docs), ko.tokenize_many(list(docs.values())), ko)
    path = tmp_path / "ko-en.txt"
    path.write_text("아이스크림 icecream\n가게 shop\n문 door\n", encoding="utf-8")
    return index, load_table(path, "muse", source_lang="ko", target_lang="en")


def test_a_korean_word_cut_into_bigrams_is_found_when_the_documents_are_translated(tmp_path):
    index, table = _korean(tmp_path)
    assert "아이 이스 스크 크림" in table.source_vocab.tolist()
    system = PSQ().fit(Resources(index=index, reverse_table=table))
    assert side_of(index, table, None) == "documents"  # as clirkit psq --table places it: from the documents' language
    assert system.search({"q": "icecream"}).docids.tolist() == ["d1"]  # not d3, which holds 크림 alone
    assert sorted(system.search({"q": "shop"}).docids.tolist()) == ["d1", "d2"]


def test_sharded_translation_is_the_one_file_translation_split(tmp_path):
    index, table = _korean(tmp_path)
    one = project(index, table)
    assert "phrases" in one.translation
    sharded = project_shards(ShardedIndex.split(index, 2), table)
    split = ShardedProjectedIndex.split(one, 2)
    for a, b in zip(sharded.shards, split.shards):
        assert a.terms.tolist() == b.terms.tolist() and a.docids.tolist() == b.docids.tolist()
        assert np.array_equal(a.tf.toarray(), b.tf.toarray()) and np.array_equal(a.doc_lengths, b.doc_lengths)
        assert a.translation == b.translation


def test_a_table_without_phrases_translates_as_before(tmp_path):
    index, _ = _korean(tmp_path)
    path = tmp_path / "plain.txt"
    path.write_text("가게 shop\n문 door\n", encoding="utf-8")
    plain = project(index, load_table(path, "muse", source_lang="ko", target_lang="en"))
    assert "phrases" not in plain.translation


@pytest.mark.parametrize("sharded", [False, True])
def test_the_command_says_how_the_documents_hold_the_phrases(tmp_path, capsys, sharded):
    index, table = _korean(tmp_path)
    given = ShardedIndex.split(index, 2) if sharded else index
    PSQ().fit(Resources(index=given, reverse_table=table, quiet=False))
    assert "a document holds one as often as its rarest term" in capsys.readouterr().err
