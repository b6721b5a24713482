from collections import Counter

import numpy as np
import pytest

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.index import Index, drop_terms, most_frequent_terms


@pytest.fixture
def index(verses_es):
    return Index.build(verses_es.items(), Analyzer("es"))


def test_counts_match_a_direct_count_of_the_tokens(index, verses_es):
    analyzer = Analyzer("es")
    for j, docid in enumerate(index.docids):
        tokens = analyzer.tokenize(verses_es[docid])
        column = index.tf[:, j].toarray().ravel()
        assert {index.terms[i]: column[i] for i in np.flatnonzero(column)} == \
               {t: tokens.count(t) for t in set(tokens)}
        assert index.doc_lengths[j] == len(tokens)


def test_df_counts_documents_containing_the_term(index, verses_es):
    tokenized = [set(Analyzer("es").tokenize(t)) for t in verses_es.values()]
    for term in ["luz", "aguas", "verbo", "dios"]:
        assert index.df[index.vocabulary[term]] == sum(term in toks for toks in tokenized)


def test_documents_and_terms_are_sorted_whatever_the_input_order(verses_es):
    forward = Index.build(verses_es.items(), Analyzer("es"))
    backward = Index.build(reversed(list(verses_es.items())), Analyzer("es"))
    assert list(forward.docids) == sorted(verses_es)
    assert list(forward.terms) == sorted(forward.terms)
    assert (forward.tf != backward.tf).nnz == 0 and list(forward.docids) == list(backward.docids)


def test_save_load_round_trip_is_exact(index, tmp_path):
    path = tmp_path / "ix.npz"
    index.save(path)
    loaded = Index.load(path)
    assert list(loaded.docids) == list(index.docids) and list(loaded.terms) == list(index.terms)
    assert (loaded.tf != index.tf).nnz == 0
    assert np.array_equal(loaded.doc_lengths, index.doc_lengths)
    assert loaded.analyzer == index.analyzer


def test_saving_twice_gives_identical_bytes(index, tmp_path):
    index.save(tmp_path / "a.npz")
    index.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_loading_a_foreign_file_fails_clearly(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, a=np.arange(3))
    with pytest.raises(ClirkitError, match="not a clirkit index file"):
        Index.load(path)


def test_loading_a_corrupt_file_fails_clearly(index, tmp_path):
    path = tmp_path / "ix.npz"
    index.save(path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ClirkitError, match="ix.npz"):
        Index.load(path)


def test_duplicate_docids_are_rejected():
    with pytest.raises(ClirkitError, match="'Gen.1.1' appears more than once"):
        Index.build([("Gen.1.1", "luz"), ("Gen.1.1", "aguas")], Analyzer("es"))


def test_empty_collection_is_rejected():
    with pytest.raises(ClirkitError, match="no documents"):
        Index.build([], Analyzer("es"))


def test_drop_terms_removes_postings_and_shortens_documents(index, verses_es):
    counts = Counter(t for text in verses_es.values() for t in Analyzer("es").tokenize(text))
    top = most_frequent_terms(index, 2)
    assert top == [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:2]] == ["y", "la"]
    smaller = drop_terms(index, top)
    assert "la" not in smaller.vocabulary and smaller.n_terms == index.n_terms - 2
    j = list(index.docids).index("Gen.1.3")  # "Y dijo Dios: Sea la luz: y fué la luz."
    assert index.doc_lengths[j] - smaller.doc_lengths[j] == 4
    assert smaller.analyzer.stopwords == {"la", "y"}
