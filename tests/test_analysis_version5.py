"""Normalization version 5 of the analysis (issue 40, "trust at the edges"): the other default-ignorable characters
that cut a word are removed, ZWJ and ZWNJ between Armenian, Georgian or Hangul letters too, the Hebrew maqaf is a
hyphen and a geresh or gershayim between two Hebrew letters goes, and Greek is lowercased without accents and final
sigma; version 4, which the files written before record, analyzes exactly as before."""

from __future__ import annotations

import hashlib
import json

import pytest
from test_analysis_version4 import ANALYZERS, FROZEN, STRINGS

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.retrieval.index import Index
from clirkit.systems import BM25Search, Resources
from clirkit.unicodefold import NORMALIZATION_VERSIONS, greek_folded, letters_folded, may_change, without_ignorables

#: The strings of version 5's folds, added to those versions 3 and 4 were pinned on.
STRINGS5 = [
    "f\u2061x a\u2062b sin\u2064x p\u2063q",
    "ᠮᠣᠩᠭᠣᠯ\u180eᠠ ᠪᠢ\u180bᠴᠢᠭ",
    "ក\u17b4ខ",
    "բա\u200dրև բարև",
    "გა\u200cმარჯობა გამარჯობა",
    "안\u200d녕 안녕",
    "צה״ל צה\"ל צה''ל ג׳ירפה ג'ירפה ״ציטוט״ \"מרכאות\" בית־ספר בית-ספר שָׁלוֹם׳",
    "Καλημέρα καλημερα ΚΑΛΗΜΕΡΑ πόλεις Ελλάς ΕΛΛΑΣ ῶρα ὥρα ΐ ϋ",
]
MORE_ANALYZERS = {
    "hy": {"lang": "hy"},
    "ka": {"lang": "ka"},
    "ko-none": {"lang": "ko", "segmenter": None},
    "mn": {"lang": "mn"},
    "km": {"lang": "km"},
    "el-none": {"lang": "el", "stemmer": None},
    "he-none": {"lang": "he", "stemmer": None},
}
#: SHA-256 of the version 4 tokens of FROZEN's strings, STRINGS and STRINGS5 under ANALYZERS and MORE_ANALYZERS,
#: made before version 5 existed (commit 9412f6b): sorted JSON {label: [tokens of each string]}, UTF-8.
VERSION_4_DIGEST = "8a498dc386f8eb35a5a09c9f55f7d3e68d8c622ea55028f1f33d2fa3f5fb6b4d"


def test_version_four_gives_the_tokens_of_before_version_five_byte_for_byte():
    tokens = {}
    for label, settings in sorted({**ANALYZERS, **MORE_ANALYZERS}.items()):
        settings = dict(settings)
        v4 = Analyzer(settings.pop("lang"), **settings, normalization_version=4)
        tokens[label] = [v4.tokenize(text) for text in FROZEN["strings"] + STRINGS + STRINGS5]
    blob = json.dumps(tokens, ensure_ascii=False, sort_keys=True).encode("utf-8")
    assert hashlib.sha256(blob).hexdigest() == VERSION_4_DIGEST


def test_new_analyzers_are_version_five_and_a_newer_version_is_refused():
    assert NORMALIZATION_VERSIONS[-1] == 5 and Analyzer("he").normalization_version == 5
    assert Analyzer.from_dict(Analyzer("el").to_dict()) == Analyzer("el")
    with pytest.raises(ClirkitError, match=r"^normalization_version: expected one of 1, 2, 3, 4, 5, got 6$"):
        Analyzer("en", normalization_version=6)


# ------------------------------------------------------------------ the folds, each against version 4


@pytest.mark.parametrize(
    "lang, text, v5, v4",
    [
        ("en", "f\u2061x sin\u2064x", ["fx", "sinx"], ["f", "x", "sin", "x"]),  # invisible operators
        ("mn", "ᠮᠣᠩᠭᠣᠯ\u180eᠠ", ["ᠮᠣᠩᠭᠣᠯᠠ"], ["ᠮᠣᠩᠭᠣᠯ", "ᠠ"]),  # the Mongolian vowel separator
        ("hy", "բա\u200dրև", ["բարև"], ["բա", "րև"]),
        ("ka", "გა\u200cმარჯობა", ["გამარჯობა"], ["გა", "მარჯობა"]),
        ("ko", "안\u200d녕", ["안녕"], ["안", "녕"]),
        ("he", "צה״ל", ["צהל"], ["צה", "ל"]),  # gershayim in an acronym
        ("he", 'צה"ל', ["צהל"], ["צה", "ל"]),  # ... typed as an ASCII quotation mark
        ("he", "ג׳ירפה ג'ירפה", ["גירפה", "גירפה"], ["ג", "ירפה", "ג", "ירפה"]),  # geresh, and typed as '
        ("he", "בית־ספר", ["בית-ספר"], ["בית", "ספר"]),  # the maqaf is the hyphen typed for it
        ("he", '״ציטוט״ "מרכאות"', ["ציטוט", "מרכאות"], ["ציטוט", "מרכאות"]),  # quotes around a word: punctuation
        ("he", 'דו"חות', ["דוחות"], ["דו", "חות"]),  # a plural acronym
        ("fr", "cafe\u2061\u0301", ["café"], ["cafe"]),  # composed again where an invisible character stood
    ],
)
def test_each_fold_of_version_five_makes_one_word_where_version_four_cut_it(lang, text, v5, v4):
    assert Analyzer(lang, stemmer=None).tokenize(text) == v5
    assert Analyzer(lang, stemmer=None, normalization_version=4).tokenize(text) == v4
    assert (may_change(text, 5) or v5 == v4) and not may_change("plain ascii 'quoted' \"text\"", 5)


def test_the_joiners_of_other_scripts_and_the_ascii_quotes_of_other_letters_stay():
    assert letters_folded("کتاب\u200cها", 5) == "کتاب\u200cها"  # Persian ZWNJ separates
    assert letters_folded("👨\u200d👩", 5) == "👨\u200d👩"  # an emoji sequence
    assert letters_folded("it's ל'", 5) == "it's ל'"  # not between two Hebrew letters
    assert without_ignorables("a\u200bb", 5) == "a\u200bb"  # ZERO WIDTH SPACE is a word boundary


@pytest.mark.parametrize(
    "lang, text, tokens",
    [
        ("yi", "ס'איז גוט כ'האב ס׳איז", ["ס", "איז", "גוט", "כ", "האב", "ס", "איז"]),  # Yiddish: two words, as before
        ("en", 'word "שלום""ברכה"', ["word", "שלום", "ברכה"]),  # two quotation marks cut, as before
        ("he", "שלום''''ברכה", ["שלום", "ברכה"]),
        ("he", '"כן"ו"לא"', ["כן", "ו", "לא"]),  # quotation marks around words, a prefix letter joined
        ("he", "כל־ הארץ ־ספר ספר־", ["כל", "הארץ", "ספר", "ספר"]),  # a maqaf not between letters: a space
    ],
)
def test_the_hebrew_marks_that_are_not_within_a_word_cut_as_before(lang, text, tokens):
    assert Analyzer(lang, stemmer=None).tokenize(text) == tokens
    assert Analyzer(lang, stemmer=None, normalization_version=4).tokenize(text) == tokens


def test_a_greek_word_in_another_languages_text_meets_the_greek_index():
    en, el = Analyzer("en", stemmer=None), Analyzer("el", stemmer=None)
    words = "Καλημέρα ΟΔΟΣ Σωκράτης"
    assert en.tokenize(words) == el.tokenize(words) == ["καλημερα", "οδοσ", "σωκρατησ"]
    assert en.as_token("Σωκράτης") == "σωκρατησ" and en.tokenize("café") == ["café"]


def test_greek_is_lowercased_without_accents_breathings_and_final_sigma():
    none, v4 = Analyzer("el", stemmer=None), Analyzer("el", stemmer=None, normalization_version=4)
    words = "Καλημέρα καλημερα ΚΑΛΗΜΕΡΑ Ελλάς ΕΛΛΑΣ ελλασ ῶρα ὥρα ΰ"
    assert none.tokenize(words) == ["καλημερα"] * 3 + ["ελλασ"] * 3 + ["ωρα", "ωρα", "υ"]
    assert v4.tokenize(words)[:3] == ["καλημέρα", "καλημερα", "καλημερα"]  # (what version 4 missed)
    assert greek_folded("café όχι") == "café οχι"  # only a Greek letter's marks
    stemmed, stemmed4 = Analyzer("el"), Analyzer("el", normalization_version=4)
    monotonic = "Καλημέρα πόλεις Ελλάδα αγαπημένος ΔΡΌΜΟΣ"  # Snowball removed these accents itself: the same stems
    assert stemmed.tokenize(monotonic) == stemmed4.tokenize(monotonic)
    assert stemmed.tokenize("ῶρα ὥρα ωρα") == [stemmed.tokenize("ωρα")[0]] * 3  # polytonic: one stem now
    assert Analyzer("el", stemmer=None, stopwords=["Και"]).tokenize("ΚΑΙ και καί σπίτι") == ["σπιτι"]


def test_a_query_meets_a_document_written_with_the_other_spelling():
    docs = [("d1", "צה״ל הודיע"), ("d2", "בית־ספר חדש"), ("d3", "Η ΕΛΛΑΣ"), ("d4", "մի բան")]
    he = BM25Search().fit(Resources(index=Index.build(docs[:2], Analyzer("he", stemmer=None))))
    assert list(he.search({"q": 'צה"ל'}).to_dict()["q"]) == ["d1"]
    assert list(he.search({"q": "בית-ספר"}).to_dict()["q"]) == ["d2"]
    el = BM25Search().fit(Resources(index=Index.build(docs[2:3], Analyzer("el", stemmer=None))))
    assert list(el.search({"q": "Ελλάς"}).to_dict()["q"]) == ["d3"]
