import pickle
import random
import re
from collections import Counter

import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer, cached_tokens, frequent_terms, ngrams, read_stopwords
from clirkit.errors import ClirkitError


def test_tokenize_lowercases_and_drops_punctuation_only_tokens(verses_es):
    assert Analyzer("es", stemmer=None).tokenize(verses_es["Gen.1.3"]) == [
        "y",
        "dijo",
        "dios",
        "sea",
        "la",
        "luz",
        "y",
        "fué",
        "la",
        "luz",
    ]


def test_the_default_analysis_stems_with_the_languages_snowball_stemmer(verses_es):
    assert Analyzer("es").tokenize(verses_es["Gen.1.3"]) == [
        "y",
        "dij",
        "dios",
        "sea",
        "la",
        "luz",
        "y",
        "fue",
        "la",
        "luz",
    ]
    assert Analyzer("es").stemmer == "snowball" and Analyzer("en").tokenize("the houses") == ["the", "hous"]


def test_tokenize_keeps_case_and_punctuation_when_asked():
    tokens = Analyzer("es", lowercase=False, strip_punctuation=False, stemmer=None).tokenize("Y dijo Dios: Sea la luz.")
    assert tokens == ["Y", "dijo", "Dios", ":", "Sea", "la", "luz", "."]


def test_curly_apostrophe_is_folded_to_the_ascii_one():
    assert Analyzer("en").tokenize("God’s Spirit") == Analyzer("en").tokenize("God's Spirit")


def test_stopwords_are_removed_after_lowercasing():
    assert Analyzer("es", stopwords={"la", "y"}, stemmer=None).tokenize("Y dijo Dios: Sea la luz") == [
        "dijo",
        "dios",
        "sea",
        "luz",
    ]


def test_stopwords_are_compared_with_the_word_before_it_is_stemmed():
    # "dijo" stems to "dij": the listed word is the word as written, as Lucene's stop filter sees it
    assert Analyzer("es", stopwords={"dijo"}).tokenize("Y dijo Dios") == ["y", "dios"]
    assert Analyzer("es", stopwords={"dij"}).tokenize("Y dijo Dios") == ["y", "dij", "dios"]


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


def test_tokenize_many_rejects_a_string_for_its_texts_and_takes_any_iterable():
    with pytest.raises(TypeError, match="expects a sequence of str, got a str"):
        Analyzer("en").tokenize_many("God said")
    assert Analyzer("en").tokenize_many(t for t in ("God said", "Let there be light")) == [
        ["god", "said"],
        ["let", "there", "be", "light"],
    ]


def test_bad_language_code_is_a_user_error():
    with pytest.raises(ClirkitError, match="language code"):
        Analyzer("e s")


def test_tokenize_many_in_processes_equals_sequential(verses_es):
    texts = list(verses_es.values()) * 500  # > one chunk, so two processes really split it
    a = Analyzer("es")
    assert a.tokenize_many(texts, jobs=2) == a.tokenize_many(texts)


def test_tokens_are_those_of_sacremoses_on_verses_and_topics_with_full_stops():
    """clirkit's Moses tokenizer (sacremoses' with its character-class tests on sets built once) gives
    sacremoses' tokens, also where those tests decide: a full stop before a lowercase word, R. V. and a.V."""
    from sacremoses import MosesTokenizer

    c = datasets.load("nave-en-es")
    english, spanish = c.parallel()
    topics = [t for split in ("train", "dev", "test") for t in c.queries(split).values()]
    texts = {
        "en": english[:200]
        + [t for t in english if re.search(r"\.\s+[a-z]", t)]
        + [t for t in topics if re.search(r"\w\.\s*\w\.", t)],
        "es": spanish[:200],
    }
    assert len(texts["en"]) > 200
    for lang, some in texts.items():
        moses = MosesTokenizer(lang=lang)
        folded = [
            t.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"') for t in some
        ]
        analyzer = Analyzer(lang, lowercase=False, strip_punctuation=False, stemmer=None)
        assert [analyzer.tokenize(t) for t in some] == [moses.tokenize(t, escape=False) for t in folded]


@pytest.mark.parametrize("lang", ["en", "fr", "de", "fi", "it", "ca", "zh", "th"])
def test_a_text_of_plain_ascii_words_gives_sacremoses_tokens_without_calling_it(lang):
    """Words of ASCII letters and digits, one space apart, are split at the spaces (what Moses gives, checked
    against sacremoses) without Moses; any other text, and one holding Moses' DOTMULTI, goes through Moses."""
    from sacremoses import MosesTokenizer

    rng = random.Random(7)
    texts = ["".join(rng.choices("abzAZ09 ", k=rng.randint(1, 14))) for _ in range(400)]
    texts += ["w17 w3 W2000", "x DOTMULTIy z", "aDOTDOTMULTI b", "a  b", " a b", "a b ", "a\tb", "don t", "a.b c"]
    moses = MosesTokenizer(lang=lang)
    analyzer = Analyzer(lang, lowercase=False, strip_punctuation=False, stemmer=None)
    assert [analyzer.tokenize(t) for t in texts] == [moses.tokenize(t, escape=False) for t in texts]
    plain = Analyzer(lang, lowercase=False, strip_punctuation=False, stemmer=None)
    assert plain.tokenize("w17 w3 W2000 Zz9") == ["w17", "w3", "W2000", "Zz9"] and plain._moses is None
    assert plain.tokenize("x DOTMULTIy z") == moses.tokenize("x DOTMULTIy z", escape=False) and plain._moses
    for word in ("fooDOTMULTIbar", "DOTMULTI", "xDOTDOTMULTIy"):  # one word alone as in a text (Moses' dots)
        assert plain.tokenize(word) == moses.tokenize(word, escape=False)
        assert plain.tokenize(f"{word} baz") == plain.tokenize(word) + ["baz"]


def test_within_cached_tokens_a_text_is_tokenized_once_per_settings_whatever_the_stopwords(verses_es, monkeypatch):
    texts = list(verses_es.values())
    plain = [Analyzer("es").tokenize(t) for t in texts]
    stopped = [Analyzer("es", stopwords={"la", "y"}).tokenize(t) for t in texts]
    cased = Analyzer("es", lowercase=False).tokenize(texts[0])
    calls: Counter = Counter()
    tokenize = Analyzer.tokenize

    def counted(self, text):
        calls[self.lowercase, text] += 1
        return tokenize(self, text)

    monkeypatch.setattr(Analyzer, "tokenize", counted)
    with cached_tokens():
        first = Analyzer("es").tokenize_many(texts)
        first[0].append("changed by a caller")
        assert Analyzer("es").tokenize_many(texts[::-1] + texts[:1]) == plain[::-1] + plain[:1]
        assert Analyzer("es", stopwords={"la", "y"}).tokenize_many(texts) == stopped
        assert Analyzer("es", lowercase=False).tokenize_many(texts[:1]) == [cased]
    assert calls == Counter({(True, t): 1 for t in texts} | {(False, texts[0]): 1})
    assert Analyzer("es").tokenize_many(texts[:1]) == plain[:1] and calls[True, texts[0]] == 2  # block ended


def test_analyzer_pickles_without_its_tokenizer_state():
    a = Analyzer("es")
    a.tokenize("hola")
    assert pickle.loads(pickle.dumps(a)).tokenize("Hola, mundo") == ["hol", "mund"]


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


# Snowball stemming, stopword lists, CJK bigrams ------------------------------------------------------------

WORDS = {
    "es": ["corriendo", "casas", "niños", "Jehová", "principio", "tinieblas", "apartó", "desordenada", "luz"],
    "en": ["running", "houses", "generously", "relational", "light", "darkness", "beginning", "ponies"],
    "de": ["Häuser", "laufend", "Bücher", "Zusammenfassung", "Lichter", "Finsternis"],
    "fr": ["maisons", "continuellement", "lumière", "commencement"],
    "ru": ["домами", "бегущий", "светом", "начале"],
    "pt": ["corações", "luzes", "princípio"],
}


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_stems_equal_the_stemming_librarys_own_output(lang):
    import Stemmer

    from clirkit.analysis import SNOWBALL_STEMMERS

    oracle = Stemmer.Stemmer(SNOWBALL_STEMMERS[lang])
    words = WORDS[lang]
    assert Analyzer(lang).tokenize(" ".join(words)) == oracle.stemWords([w.lower() for w in words])


def test_a_language_without_a_snowball_stemmer_is_not_stemmed():
    a = Analyzer("ja")
    assert a.stemmer is None and a.to_dict()["stemmer"] is None
    assert Analyzer("sw").tokenize("watoto wanacheza") == ["watoto", "wanacheza"]


def test_stemmer_must_be_snowball_or_none():
    with pytest.raises(ClirkitError, match="stemmer"):
        Analyzer("en", stemmer="porter2")
    with pytest.raises(ClirkitError, match="stemmer must be"):
        Analyzer.from_dict({"lang": "en", "lowercase": True, "strip_punctuation": True, "stemmer": "lovins"})


def test_snowball_stopwords_are_the_snowball_projects_list_with_its_comments_removed():
    from clirkit.analysis import snowball_stopwords

    spanish = snowball_stopwords("es")
    assert spanish[:5] == ["de", "la", "que", "el", "en"] and len(spanish) == len(set(spanish)) == 308
    assert "|" not in "".join(spanish) and "from" not in spanish  # the English glosses are comments
    assert len(snowball_stopwords("en")) == 174 and "the" in snowball_stopwords("en")
    assert "и" in snowball_stopwords("ru") and snowball_stopwords("nb") == snowball_stopwords("no")
    assert Analyzer("es", stopwords="snowball", stemmer=None).tokenize("Y dijo Dios: Sea la luz") == [
        "dijo",
        "dios",
        "luz",
    ]
    with pytest.raises(ClirkitError, match="no stopword list for 'zh'"):
        Analyzer("zh", stopwords="snowball")


def test_cjk_runs_become_overlapping_bigrams_as_lucenes_cjk_analyzer_makes_them():
    zh, ja, ko = (Analyzer(lang, segmenter="bigrams") for lang in ("zh", "ja", "ko"))
    assert zh.tokenize("我爱北京天安门。") == ["我爱", "爱北", "北京", "京天", "天安", "安门"]
    assert zh.tokenize("用Python写代码，很好！") == ["用", "python", "写代", "代码", "很好"]
    assert ja.tokenize("東京都庁") == ["東京", "京都", "都庁"]
    assert ko.tokenize("서울 한국어") == ["서울", "한국", "국어"]
    assert zh.tokenize("水") == ["水"]  # a lone character stays a unigram
    assert Analyzer("en").cjk_bigrams is False and zh.cjk_bigrams is True and Analyzer("ko").cjk_bigrams is True
    # with unigrams (Lucene's CJKBigramFilter outputUnigrams): each character before its bigram
    assert Analyzer("ja", segmenter="unigrams+bigrams").tokenize("東京都") == ["東", "東京", "京", "京都", "都"]


def test_settings_written_before_stemming_mean_no_stemming_and_no_bigrams():
    old = {"lang": "es", "lowercase": True, "strip_punctuation": True, "stopwords": []}
    a = Analyzer.from_dict(old)
    assert a.stemmer is None and a.cjk_bigrams is False and a.tokenize("las casas") == ["las", "casas"]
    assert Analyzer.from_dict(Analyzer("zh", stopwords=["的"]).to_dict()) == Analyzer("zh", stopwords=["的"])


def test_same_terms_as_ignores_stopwords_but_not_stemming_case_or_language():
    a = Analyzer("es")
    assert a.same_terms_as(Analyzer("es", stopwords="snowball"))
    assert not a.same_terms_as(Analyzer("es", stemmer=None))
    assert not a.same_terms_as(Analyzer("es", lowercase=False))
    assert not a.same_terms_as(Analyzer("pt"))


def test_cached_tokens_give_each_analyzer_its_own_stems_and_stopwords(verses_es):
    texts = list(verses_es.values())
    analyzers = [Analyzer("es"), Analyzer("es", stemmer=None), Analyzer("es", stopwords="snowball")]
    expected = [[a.tokenize(t) for t in texts] for a in analyzers]
    with cached_tokens():
        assert [a.tokenize_many(texts) for a in analyzers] == expected


def test_replace_changes_only_the_settings_given():
    a = Analyzer("es", lowercase=False, stopwords=["la"], stemmer=None)
    assert a.replace(stemmer="snowball") == Analyzer("es", lowercase=False, stopwords=["la"])
    assert a.without_stopwords() == Analyzer("es", lowercase=False, stemmer=None)
    assert Analyzer("zh").replace(stopwords=["的"]).segmenter == Analyzer("zh").segmenter


@pytest.mark.parametrize(
    "lang, text",
    [
        ("es", "la acción de Dios"),
        ("de", "Müller über Öl"),
        ("ru", "йод и ёлка"),
        ("vi", "tiếng việt"),
        ("ko", "하나님"),
    ],
)
def test_decomposed_text_gives_the_terms_of_its_composed_form(lang, text):
    """A letter and its accent typed as two characters (NFD: macOS, some corpora) are the composed letter, as the
    queries and tables they meet usually have it (edge test 9: NFD "acción" was "acci" "n", DT lost 1.3 AP)."""
    import unicodedata

    analyzer = Analyzer(lang)
    decomposed = unicodedata.normalize("NFD", text)
    assert decomposed != text
    assert analyzer.tokenize(decomposed) == analyzer.tokenize(text)


def test_a_soft_hyphen_does_not_cut_a_word():
    assert Analyzer("es").tokenize("la lu\u00adz de Dios") == Analyzer("es").tokenize("la luz de Dios")
    assert Analyzer("es", stemmer=None).tokenize("\u00ad") == []


def test_an_index_of_decomposed_documents_holds_the_terms_of_the_composed_ones(tmp_path):
    import unicodedata

    from clirkit.cli import main
    from clirkit.retrieval.shards import load_index

    texts = ["la acción de Dios", "el niño y la señal", "Müller"]
    for name, form in (("nfc", "NFC"), ("nfd", "NFD")):
        (tmp_path / f"{name}.tsv").write_text(
            "".join(f"d{i}\t{unicodedata.normalize(form, t)}\n" for i, t in enumerate(texts)), encoding="utf-8"
        )
        assert (
            main(["index", str(tmp_path / f"{name}.tsv"), "-o", str(tmp_path / f"{name}.npz"), "--lang", "es", "-q"])
            == 0
        )
    nfc, nfd = (load_index(str(tmp_path / f"{n}.npz")) for n in ("nfc", "nfd"))
    assert sorted(nfd.vocabulary) == sorted(nfc.vocabulary)


def test_stopwords_and_moses_table_words_are_composed_as_texts_are(tmp_path):
    """(A re-check of edge test 9: an NFD stopword list never matched, an NFD Moses table kept NFD words.)"""
    import unicodedata

    from clirkit.translation.tableio import load_moses

    nfd = [unicodedata.normalize("NFD", w) for w in ("más", "él", "aquí")]
    analyzer = Analyzer("es", stemmer=None, stopwords=nfd)
    assert analyzer.tokenize("él y más aquí") == ["y"] and not analyzer.unmatched_stopwords()
    (tmp_path / "t.lex").write_text(f"more {nfd[0]} 1.0\nhere {nfd[2]} 1.0\n", encoding="utf-8")
    assert sorted(load_moses(tmp_path / "t.lex").source_vocab.tolist()) == ["aquí", "más"]
    assert Analyzer("es", compose=False).tokenize(nfd[0]) != Analyzer("es").tokenize(nfd[0])  # old files' analysis


@pytest.mark.parametrize("name", ["lowercase", "strip_punctuation", "cjk_bigrams", "compose"])
@pytest.mark.parametrize("value", ["no", "false", 0, 1, None])
def test_an_on_off_setting_takes_only_true_or_false(name, value):
    """(Edge test 12B, finding 5: ``lowercase="no"`` lowercased, and ``lowercase=0`` made an index that could not be
    loaded.) ``cjk_bigrams=None`` is the setting not given."""
    if name == "cjk_bigrams" and value is None:
        return
    with pytest.raises(ClirkitError, match=f"^{name}: expected True or False, got {value!r}$"):
        Analyzer("ja", **{name: value})


def test_a_numpy_bool_is_a_bool_and_the_index_saves_and_loads(tmp_path):
    import numpy as np

    from clirkit.retrieval.index import Index

    analyzer = Analyzer("en", lowercase=np.bool_(False), strip_punctuation=np.True_, cjk_bigrams=np.False_)
    assert type(analyzer.lowercase) is bool and analyzer.lowercase is False
    Index.build([("d1", "The Cat")], analyzer).save(tmp_path / "ix.npz")
    assert Index.load(tmp_path / "ix.npz").analyzer == analyzer
