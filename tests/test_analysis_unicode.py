"""Character normalization of the analysis (clirkit/unicodefold.py; issue 40, edge test 12B findings 1, 2, 3 and
15): combining marks stay in their word, Indic joiners do not cut it, Turkish case, widths, Thai and Lao SARA AM; and
the settings of files written before read back with the analysis that made them."""

from __future__ import annotations

import re
import unicodedata

import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.retrieval.index import Index
from clirkit.segmenters import COMPLEX
from clirkit.systems import BM25Search, Resources
from clirkit.unicodefold import folded_widths, split_keeping_marks


def _old(lang: str, **settings) -> Analyzer:
    """The analysis of files written before the normalization version was recorded."""
    return Analyzer(lang, **settings, normalization_version=1)


# ------------------------------------------------------------------ finding 1: combining marks, Indic joiners


@pytest.mark.parametrize(
    "lang, text, word",
    [
        ("ru", "Словарь: ударе\u0301ние в слове", "ударе\u0301ние"),  # Russian stress on е (no composed letter)
        ("yo", "Ẹ\u0300kọ\u0301 ọ\u0300rọ\u0300", "ẹ\u0300kọ\u0301"),  # Yoruba tones on dotted vowels
        ("lt", "ą\u0303žuolas", "ą\u0303žuolas"),  # Lithuanian tilde on ą
        ("sr", "гра\u0311д", "гра\u0311д"),  # Serbian accentuation, inverted breve
        ("en", "x\u0301y", "x\u0301y"),
    ],
)
def test_a_letter_and_a_mark_without_a_composed_letter_stay_one_word(lang, text, word):
    """SPEC §1: combining marks belong to their word and are never dropped (the Moses tokenizer cut the word at the
    mark and the mark was dropped as punctuation: 'ударе́ние' gave 'ударе', 'ние')."""
    assert unicodedata.normalize("NFC", word) == word  # no composed letter: NFC keeps the mark apart
    tokens = Analyzer(lang, stemmer=None).tokenize(text)
    assert word.lower() in tokens
    assert all(unicodedata.category(t[0])[0] != "M" for t in tokens)
    assert _old(lang, stemmer=None).tokenize(text) != tokens  # the old analysis, which old files keep, cut it


def test_a_marked_word_is_one_term_next_to_cjk_text_and_in_documents_and_queries_alike():
    analyzer = Analyzer("ko")  # character bigrams: the Moses tokens' non-CJK runs are cut into words again
    assert analyzer.tokenize("ударе\u0301ние 한국어 हिन्दी") == ["ударе\u0301ние", "한국", "국어", "हिन्दी"]
    index = Index.build([("d1", "Словарь: ударе\u0301ние"), ("d2", "слово")], Analyzer("ru"))
    run = BM25Search().fit(Resources(index=index)).search({"q": "ударе\u0301ние"})
    assert list(run.to_dict()["q"]) == ["d1"]


def test_split_keeping_marks_puts_each_mark_back_after_its_character():
    def words(text: str) -> list[str]:
        return text.replace(",", " ").split()

    assert split_keeping_marks(words, "a\u0301b,c\u0301 \u0301d") == ["a\u0301b", "c\u0301", "\u0301d"]

    def at_marks(text: str) -> list[str]:
        return text.split("\u0301")

    assert split_keeping_marks(at_marks, "a\u0301b") == ["a\u0301b"]
    assert split_keeping_marks(at_marks, "a\u0301b", kept="\u0301") == ["a", "b"]  # given to split as it is
    assert split_keeping_marks(lambda t: [t.upper()], "a\u0301b") == ["A\u0301B"]
    assert split_keeping_marks(lambda t: ["z"], "a\u0301b") == ["z"]  # a changed letter: split(text) as it is


@pytest.mark.parametrize("joined, plain", [("हिन्\u200cदी", "हिन्दी"), ("क्\u200dष", "क्ष"), ("ক্\u200cষ", "ক্ষ")])
def test_zwj_and_zwnj_inside_an_indic_word_do_not_cut_it(joined, plain):
    """As Lucene's HindiNormalizer removes them (UAX #29 counts them as Extend: part of the word)."""
    for lang in ("hi", "bn"):
        assert Analyzer(lang).tokenize(joined) == Analyzer(lang).tokenize(plain)
        assert len(Analyzer(lang, stemmer=None).tokenize(joined)) == 1


def test_a_persian_zwnj_still_separates_as_before():
    """Persian ZWNJ is left as it was (the Moses tokens either side, as Lucene's PersianCharFilter makes it a
    space)."""
    assert Analyzer("fa").tokenize("می\u200cخواهم") == _old("fa").tokenize("می\u200cخواهم")


# ------------------------------------------------------------------ finding 2: Turkish and Azeri case


@pytest.mark.parametrize("lang", ["tr", "az"])
def test_turkish_capitals_lowercase_to_the_turkish_letters(lang):
    analyzer = Analyzer(lang, stemmer=None)
    assert analyzer.tokenize("İSTANBUL İstanbul istanbul i\u0307stanbul") == ["istanbul"] * 4
    assert analyzer.tokenize("KIRMIZI Kırmızı kırmızı") == ["kırmızı"] * 3
    assert Analyzer(lang, stopwords=["İÇİN"], stemmer=None).tokenize("İÇİN için Için") == ["ıçin"]
    assert Analyzer(lang, stopwords=["için"], lowercase=False).tokenize("İÇİN için") == ["İÇİN"]


def test_other_languages_lowercase_as_before():
    assert Analyzer("en", stemmer=None).tokenize("I İ") == ["i", "i\u0307"]
    assert _old("tr", stemmer=None).tokenize("İSTANBUL KIRMIZI") == ["i\u0307stanbul", "kirmizi"]


# ------------------------------------------------------------------ finding 3: widths


def test_full_width_ascii_and_half_width_katakana_fold_as_lucenes_cjk_width_filter():
    ja = Analyzer("ja")
    assert ja.tokenize("ＮＨＫ ｶﾀｶﾅ １２３") == ja.tokenize("NHK カタカナ 123") == ["nhk", "カタカナ", "123"]
    for segmenter in ("icu", "bigrams", "unigrams+bigrams"):
        zh = Analyzer("zh", segmenter=segmenter)
        assert zh.tokenize("ＧＤＰ增长") == zh.tokenize("GDP增长")
    assert Analyzer("en").tokenize("ｈｅｌｌｏ ＡＢＣ") == ["hello", "abc"]
    assert folded_widths("ＮＨＫ！１２３ｶﾀｶﾅｶﾞﾊﾟｳﾞ") == "NHK!123カタカナガパヴ"
    assert folded_widths("ｶﾞ") == "ガ" and folded_widths("ｱﾞ") == "ア\u3099"  # no composed letter: the mark stays


def test_full_width_punctuation_before_a_number_still_ends_the_number():
    """Widths are folded in each run a segmenter or Moses is given: a full-width comma folded first would reach
    Moses as ',42', which it keeps as one token."""
    assert Analyzer("zh").tokenize("是的，42 就是") == _old("zh").tokenize("是的，42 就是")
    assert "42" in Analyzer("zh").tokenize("是的，42 就是")


def test_jieba_keeps_a_full_width_word_whole():
    pytest.importorskip("jieba")
    assert Analyzer("zh", segmenter="jieba").tokenize("ＧＤＰ１２３") == ["gdp123"]


def test_a_query_in_ascii_finds_a_document_in_full_width():
    index = Index.build([("d1", "ＧＤＰ增长"), ("d2", "增长")], Analyzer("zh"))
    assert list(BM25Search().fit(Resources(index=index)).search({"q": "GDP"}).to_dict()["q"]) == ["d1"]


# ------------------------------------------------------------------ finding 15: Thai and Lao SARA AM


def test_thai_sara_am_typed_three_ways_is_one_term():
    forms = (
        "น\u0e49\u0e4d\u0e32 น\u0e49\u0e33 น\u0e4d\u0e49\u0e32"  # tone, NIKHAHIT, AA / tone, AM / NIKHAHIT, tone, AA
    )
    for segmenter in ("icu", None):
        assert Analyzer("th", segmenter=segmenter).tokenize(forms) == ["น\u0e49\u0e33"] * 3
    assert Analyzer("th").tokenize("ทํางาน") == Analyzer("th").tokenize("ทำงาน")


def test_lao_sara_am_typed_three_ways_is_one_term():
    forms = "ນ\u0ec9\u0ecd\u0eb2 ນ\u0ec9\u0eb3 ນ\u0ecd\u0ec9\u0eb2"
    assert Analyzer("lo", segmenter=None).tokenize(forms) == ["ນ\u0ec9\u0eb3"] * 3


# ------------------------------------------------------------------ files written before


def test_settings_without_the_normalization_version_read_back_as_the_old_analysis(tmp_path):
    new = Analyzer("ru", stemmer=None)
    assert new.normalization_version == 5 and new.to_dict()["normalization_version"] == 5
    old_settings = {k: v for k, v in new.to_dict().items() if k != "normalization_version"}
    old = Analyzer.from_dict(old_settings)
    assert old.normalization_version == 1 and old.to_dict() == old_settings  # the records of an old folder differ
    assert old != new and old == _old("ru", stemmer=None)
    assert old.tokenize("ударе\u0301ние") == ["ударе", "ние"]  # exactly as the file's terms were made
    index = Index.build([("d1", "ударе\u0301ние")], old)
    index.save(tmp_path / "old.npz")
    loaded = Index.load(tmp_path / "old.npz")
    assert loaded.analyzer.normalization_version == 1 and "normalization_version" not in loaded.analyzer.to_dict()
    assert Analyzer.from_dict(new.to_dict()) == new
    assert old.replace(stemmer="snowball").normalization_version == 1


@pytest.mark.parametrize("value", [6, 0, True, "2", 2.0, None])
def test_a_bad_normalization_version_is_refused(value):
    with pytest.raises(
        ClirkitError, match=r"^analyzer settings: normalization_version must be one of 1, 2, 3, 4, 5, got "
    ):
        Analyzer.from_dict({"lang": "en", "lowercase": True, "strip_punctuation": True, "normalization_version": value})
    with pytest.raises(ClirkitError, match=r"^normalization_version: expected one of 1, 2, 3, 4, 5, got "):
        Analyzer("en", normalization_version=value)


def _without_these_characters(text: str) -> bool:
    """No character version 2 folds or keeps otherwise: widths, joiners, NIKHAHIT, a combining mark outside the
    scripts never given to Moses (Thai, Lao, Khmer, Burmese)."""
    text = re.sub(f"[{COMPLEX}]", "", unicodedata.normalize("NFC", text))
    return not re.search("[\uff01-\uff9f\u200c\u200d\u0e4d\u0ecd]", text) and not any(
        unicodedata.category(c)[0] == "M" for c in text
    )


@pytest.mark.parametrize(
    "name, lang, settings",
    [
        ("nave-en-es", "es", {}),
        ("gettext-de-en", "de", {"stopwords": "snowball"}),
        ("gettext-ru-en", "ru", {}),
        ("gettext-en-zh", "zh", {}),
        ("gettext-en-ja", "ja", {"segmenter": "bigrams"}),
        ("gettext-en-ko", "ko", {}),
        ("gettext-en-th", "th", {}),
    ],
)
def test_texts_without_these_characters_give_the_tokens_of_before(name, lang, settings):
    """(Measured on ~4,000 texts of each of es, en, de, fr, ru, ja, zh, ko and th under 19 analyzers: identical;
    here 300 of each collection's texts in the language.)"""
    collection = datasets.load(name)
    texts = collection.documents()[1] if collection.target_lang == lang else list(collection.queries("test").values())
    plain = [t for t in texts[:300] if _without_these_characters(t)]
    assert len(plain) > 200
    new, old = Analyzer(lang, **settings, normalization_version=2), _old(lang, **settings)
    assert [new.tokenize(t) for t in plain] == [old.tokenize(t) for t in plain]
