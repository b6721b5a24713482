import pickle

import pytest

from clirkit.analysis import Analyzer, frequent_terms, ngrams, read_stopwords
from clirkit.errors import ClirkitError


def test_tokenize_lowercases_and_drops_punctuation_only_tokens(verses_es):
    assert Analyzer("es").tokenize(verses_es["Gen.1.3"]) == ["y", "dijo", "dios", "sea", "la", "luz", "y", "fué",
                                                             "la", "luz"]


def test_tokenize_keeps_case_and_punctuation_when_asked():
    tokens = Analyzer("es", lowercase=False, strip_punctuation=False).tokenize("Y dijo Dios: Sea la luz.")
    assert tokens == ["Y", "dijo", "Dios", ":", "Sea", "la", "luz", "."]


def test_curly_apostrophe_is_folded_to_the_ascii_one():
    assert Analyzer("en").tokenize("God’s Spirit") == Analyzer("en").tokenize("God's Spirit")


def test_stopwords_are_removed_after_lowercasing():
    assert Analyzer("es", stopwords={"la", "y"}).tokenize("Y dijo Dios: Sea la luz") == ["dijo", "dios", "sea", "luz"]


def test_settings_round_trip_through_dict():
    a = Analyzer("es", lowercase=False, stopwords=["de", "la"])
    b = Analyzer.from_dict(a.to_dict())
    assert b == a and b.to_dict()["stopwords"] == ["de", "la"]


def test_malformed_settings_raise_clirkit_error():
    with pytest.raises(ClirkitError, match="analyzer settings"):
        Analyzer.from_dict({"lang": "es"})


def test_tokenize_rejects_non_string_input():
    with pytest.raises(TypeError, match="expects a str"):
        Analyzer("en").tokenize(["a", "list"])


def test_bad_language_code_is_a_user_error():
    with pytest.raises(ClirkitError, match="language code"):
        Analyzer("e s")


def test_tokenize_many_in_processes_equals_sequential(verses_es):
    texts = list(verses_es.values()) * 500  # > one chunk, so two processes really split it
    a = Analyzer("es")
    assert a.tokenize_many(texts, jobs=2) == a.tokenize_many(texts)


def test_analyzer_pickles_without_its_tokenizer_state():
    a = Analyzer("es")
    a.tokenize("hola")
    assert pickle.loads(pickle.dumps(a)).tokenize("Hola, mundo") == ["hola", "mundo"]


def test_ngrams_lists_unigrams_then_bigrams():
    assert ngrams(["la", "luz", "era"], 2) == ["la", "luz", "era", "la luz", "luz era"]
    assert ngrams(["luz"], 3) == ["luz"]
    with pytest.raises(ValueError):
        ngrams(["a"], 0)


def test_frequent_terms_orders_by_count_then_term():
    assert frequent_terms([["y", "la", "luz"], ["la", "y", "dios"], ["y"]], 2) == ["y", "la"]


def test_read_stopwords_skips_comments_and_blanks(tmp_path):
    path = tmp_path / "stop.txt"
    path.write_text("# Spanish\nde\n\nla  # article\n", encoding="utf-8")
    assert read_stopwords(path) == ["de", "la"]
