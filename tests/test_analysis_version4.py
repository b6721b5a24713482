"""Normalization version 4 of the analysis (issue 40, "trust at the edges"): a control character separates words,
Hebrew points and Arabic harakat are removed, Latin ligatures and mathematical letters are plain letters, ZWJ and
ZWNJ between Latin, Greek or Cyrillic letters are removed, and no CJK bigram is lost where a long token is cut; and
version 3, which the files written before record, analyzes exactly as before."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from pathlib import Path

import pytest

from clirkit.analysis import MAX_TOKEN_LENGTH, Analyzer
from clirkit.errors import ClirkitError
from clirkit.retrieval.index import Index
from clirkit.segmenters import character_bigrams
from clirkit.systems import BM25Search, Resources
from clirkit.translation import load_table, save_table, train_table
from clirkit.unicodefold import (
    NORMALIZATION_VERSIONS,
    controls_as_spaces,
    folded,
    folded_word,
    letters_folded,
    may_change,
)

FROZEN = json.loads((Path(__file__).parent / "data" / "analysis_tokens_before_version3.json").read_text("utf-8"))
#: The strings of the findings here, added to those version 3 was pinned on.
STRINGS = [
    *(
        "dog\x07bird",
        "dog\x00bird\x1bfish",
        "한국\x07서울",
        "собака\x07птица",
        "dog\x7fbird",
        "a\x85b",
        "x\x9fy 中文\x08新闻",
    ),
    *("שָׁלוֹם עוֹלָם", "בְּרֵאשִׁ֖ית בָּרָ֣א", "שלום עולם", "אַ װאָרט", "كَتَبَ الْكِتَابَ", "مُحَمَّد كتـــاب"),
    *("ﬁnance ﬂow oﬃce ﬅ", "𝐇𝐞𝐥𝐥𝐨 𝑤𝑜𝑟𝑙𝑑 𝟏𝟐𝟑 𝛂𝛃", "x² ™"),
    *(
        "bo\u200dok",
        "bo\u200cok",
        "кн\u200dига",
        "βι\u200dβλίο",
        "کتاب\u200cها",
        "👨\u200d👩",
        "a\u200d1",
        "हिन्\u200cदी",
    ),
    *(
        "가나다라마바사아자차" * 30,
        "中文" * 200,
        "x" * 600 + " short",
        "東京" * 150,
        "中" + "x" * 300 + "-" * 300 + "y",
    ),
]
ANALYZERS = {**FROZEN["analyzers"], "he": {"lang": "he"}, "el": {"lang": "el"}, "yi": {"lang": "yi"}}
#: SHA-256 of the version 3 tokens of FROZEN's strings and STRINGS under ANALYZERS, made before version 4 existed
#: (commit f029420): sorted JSON {label: [tokens of each string]}, UTF-8.
VERSION_3_DIGEST = "ff778cb4f0a0e491d812305d7cd21944c3a5ebee56892d8c247fb75e18abc339"
LATEST = NORMALIZATION_VERSIONS[-1]  # the default of new analyzers
CONTROLS = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cc" and not chr(c).isspace()]
HANGUL = "".join(chr(0xAC00 + 7 * i) for i in range(300))  # 300 distinct syllables: each bigram once


def analyzer(lang: str, version: int | None = None, **settings) -> Analyzer:
    return Analyzer(lang, **settings) if version is None else Analyzer(lang, **settings, normalization_version=version)


# ------------------------------------------------------------------ version 3 analyzes as before


def test_version_three_gives_the_tokens_of_before_version_four_byte_for_byte():
    tokens = {}
    for label, settings in sorted(ANALYZERS.items()):
        settings = dict(settings)
        v3 = Analyzer(settings.pop("lang"), **settings, normalization_version=3)
        tokens[label] = [v3.tokenize(text) for text in FROZEN["strings"] + STRINGS]
    blob = json.dumps(tokens, ensure_ascii=False, sort_keys=True).encode("utf-8")
    assert hashlib.sha256(blob).hexdigest() == VERSION_3_DIGEST


def test_an_index_of_version_three_reads_back_as_version_three_and_its_queries_meet_its_terms(tmp_path):
    v3 = Analyzer("en", normalization_version=3)
    Index.build([("d1", "dog\x07bird"), ("d2", "ﬁnance 𝐇𝐞𝐥𝐥𝐨"), ("d3", "a plain dog")], v3).save(tmp_path / "ix.npz")
    loaded = Index.load(tmp_path / "ix.npz")
    assert loaded.analyzer == v3 and loaded.analyzer.normalization_version == 3
    assert sorted(loaded.terms.tolist()) == ["a", "dog", "dogbird", "plain", "ﬁnanc", "𝐇", "𝐞", "𝐥", "𝐨"]
    bm25 = BM25Search().fit(Resources(index=loaded))
    assert list(bm25.search({"q": "dog\x07bird"}).to_dict()["q"]) == ["d1"]  # (the query analyzed as version 3)
    assert list(bm25.search({"q": "ﬁnance"}).to_dict()["q"]) == ["d2"]


# ------------------------------------------------------------------ settings


def test_new_analyzers_are_the_latest_version_and_their_settings_round_trip_through_files(tmp_path):
    en, fr = Analyzer("en"), Analyzer("fr")
    assert en.normalization_version == LATEST and en.to_dict()["normalization_version"] == LATEST
    assert Analyzer.from_dict(en.to_dict()) == en and Analyzer.from_dict(json.loads(json.dumps(en.to_dict()))) == en
    assert en.replace(stemmer=None).normalization_version == LATEST
    Index.build([("d1", "dog\x07bird"), ("d2", "cat")], en).save(tmp_path / "ix.npz")
    assert Index.load(tmp_path / "ix.npz").analyzer == en
    assert sorted(Index.load(tmp_path / "ix.npz").terms.tolist()) == ["bird", "cat", "dog"]
    table = train_table([en.tokenize("the book"), en.tokenize("a dog")], [["livre"], ["chien"]], en, fr)
    save_table(table, tmp_path / "t.npz")
    back = load_table(tmp_path / "t.npz")
    assert back.params["source_analyzer"]["normalization_version"] == LATEST
    assert Analyzer.from_dict(back.params["source_analyzer"]) == en
    assert Analyzer.from_dict(back.params["target_analyzer"]) == fr


def test_settings_and_files_of_a_newer_version_are_refused(tmp_path, tamper):
    versions, newer = ", ".join(map(str, NORMALIZATION_VERSIONS)), LATEST + 1
    with pytest.raises(
        ClirkitError, match=rf"^analyzer settings: normalization_version must be one of {versions}, got {newer}$"
    ):
        Analyzer.from_dict({"lang": "en", "lowercase": True, "strip_punctuation": True, "normalization_version": newer})
    with pytest.raises(ClirkitError, match=rf"^normalization_version: expected one of {versions}, got {newer}$"):
        Analyzer("en", normalization_version=newer)
    Index.build([("d1", "a dog")], Analyzer("en")).save(tmp_path / "ix.npz")
    tamper(tmp_path / "ix.npz", tmp_path / "vN.npz", header={"analyzer.normalization_version": newer})
    with pytest.raises(
        ClirkitError, match=rf"vN\.npz: .*normalization version {newer} is newer than this clirkit"
    ) as info:
        Index.load(tmp_path / "vN.npz")
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------ 1. control characters


@pytest.mark.parametrize(
    "lang, first, second",
    [
        ("en", "dog", "bird"),
        ("ru", "собака", "птица"),
        ("ar", "كتاب", "مكتبة"),
        ("ko", "한국", "서울"),
        ("ja", "東京", "大阪"),
    ],
)
@pytest.mark.parametrize("strip", [True, False])
def test_a_control_character_separates_two_words_as_a_space_does(lang, first, second, strip):
    """(Every Unicode Cc character that is not whitespace: C0 but TAB to CR and the separators, DEL, C1 but NEL.)"""
    v4 = Analyzer(lang, strip_punctuation=strip)
    expected = v4.tokenize(f"{first} {second}")
    assert len(CONTROLS) == 55 and expected[0] != first + second
    assert {repr(c) for c in CONTROLS if v4.tokenize(first + c + second) != expected} == set()


def test_version_three_still_joins_the_words_either_side_of_a_c0_control_character():
    assert analyzer("en", 3).tokenize("dog\x07bird") == ["dogbird"]
    assert analyzer("en", 3).tokenize("dog\x00bird\x1bfish") == ["dogbirdfish"]
    assert analyzer("ko", 3).tokenize("한국\x07서울") == ["한국", "국서", "서울"]
    assert analyzer("en", 3, strip_punctuation=False, stemmer=None).tokenize("dog\x7fbird") == ["dog", "\x7f", "bird"]
    assert analyzer("en").tokenize("dog\x00bird\x1bfish") == ["dog", "bird", "fish"]
    assert analyzer("ko").tokenize("한국\x07서울") == ["한국", "서울"]
    assert analyzer("en", strip_punctuation=False, stemmer=None).tokenize("dog\x7fbird") == ["dog", "bird"]


def test_a_query_finds_a_word_written_next_to_a_control_character():
    index = Index.build([("d1", "the dog\x07bird story"), ("d2", "a cat")], Analyzer("en"))
    assert list(BM25Search().fit(Resources(index=index)).search({"q": "bird"}).to_dict()["q"]) == ["d1"]


# ------------------------------------------------------------------ 2. Hebrew points, Arabic harakat


@pytest.mark.parametrize(
    "lang, pointed, plain",
    [
        ("he", "שָׁלוֹם עוֹלָם", "שלום עולם"),
        ("he", "בְּרֵאשִׁ֖ית בָּרָ֣א", "בראשית ברא"),  # points and cantillation marks
        ("he", "כׇּל־הָאָרֶץ", "כל־הארץ"),  # the maqaf still separates two words
        ("he", "\ufb2a\ufb4b", "שו"),  # presentation forms: NFC's letter and point, the point removed
        ("en", "שָׁלוֹם", "שלום"),
        ("fa", "کِتاب", "کتاب"),  # Arabic harakat (Lucene's ArabicNormalizer)
        ("ur", "کِتاب", "کتاب"),
        ("en", "كَتَبَ", "كتب"),
        ("fa", "کتـــاب", "کتاب"),  # the tatweel (Lucene's ArabicNormalizer and PersianNormalizer)
    ],
)
def test_a_pointed_word_meets_its_plain_spelling(lang, pointed, plain):
    assert Analyzer(lang).tokenize(pointed) == Analyzer(lang).tokenize(plain)
    assert analyzer(lang, 3).tokenize(pointed) != analyzer(lang, 3).tokenize(plain)


def test_arabic_and_yiddish_terms_of_their_snowball_stemmers_are_those_of_version_three():
    """The Arabic and Yiddish Snowball stemmers removed harakat and Hebrew points already: their terms stay."""
    for lang, text in [("ar", "كَتَبَ الْكِتَابَ مُحَمَّد"), ("yi", "אַ װאָרט")]:
        assert Analyzer(lang).tokenize(text) == analyzer(lang, 3).tokenize(text)
    assert Analyzer("ar", stemmer=None).tokenize("كَتَبَ") == ["كتب"]
    assert analyzer("ar", 3, stemmer=None).tokenize("كَتَبَ") == ["كَتَبَ"]


# ------------------------------------------------------------------ 3. ligatures, mathematical letters


@pytest.mark.parametrize(
    "written, plain",
    [
        ("ﬁnance ﬂow oﬃce", "finance flow office"),
        ("𝐇𝐞𝐥𝐥𝐨 𝑤𝑜𝑟𝑙𝑑", "Hello world"),
        ("𝟏𝟐𝟑 𝛂𝛃", "123 αβ"),
        ("𝐞\u0301", "é"),
    ],
)
def test_ligatures_and_mathematical_letters_are_the_plain_letters(written, plain):
    assert Analyzer("en").tokenize(written) == Analyzer("en").tokenize(plain)
    assert analyzer("en", 3).tokenize(written) != analyzer("en", 3).tokenize(plain)


def test_other_compatibility_characters_stay_as_in_version_three():
    assert Analyzer("en").tokenize("x² ™ ½") == analyzer("en", 3).tokenize("x² ™ ½") == ["x", "²", "½"]
    assert analyzer("en", 3).tokenize("𝐇𝐞𝐥𝐥𝐨") == ["𝐇", "𝐞", "𝐥", "𝐥", "𝐨"]


def test_a_query_in_plain_letters_finds_a_document_written_with_ligatures():
    index = Index.build([("d1", "an oﬃcial ﬁnance report"), ("d2", "other news")], Analyzer("en"))
    assert list(BM25Search().fit(Resources(index=index)).search({"q": "official finance"}).to_dict()["q"]) == ["d1"]


# ------------------------------------------------------------------ 4. joiners between letters


@pytest.mark.parametrize(
    "lang, joined, word",
    [
        ("en", "bo\u200dok", "book"),
        ("en", "bo\u200cok", "book"),
        ("ru", "кн\u200dига", "книга"),
        ("el", "βι\u200dβλίο", "βιβλίο"),
    ],
)
def test_a_joiner_between_latin_greek_or_cyrillic_letters_is_removed(lang, joined, word):
    assert Analyzer(lang).tokenize(joined) == Analyzer(lang).tokenize(word)
    assert len(analyzer(lang, 3).tokenize(joined)) == 2


@pytest.mark.parametrize(
    "lang, text",
    [("fa", "کتاب\u200cها"), ("en", "👨\u200d👩 x"), ("en", "a\u200d1"), ("hi", "हिन्\u200cदी"), ("en", "a\u200d б")],
)
def test_persian_joiners_emoji_sequences_and_joiners_beside_other_characters_stay(lang, text):
    assert Analyzer(lang).tokenize(text) == analyzer(lang, 3).tokenize(text)


# ------------------------------------------------------------------ 5. no bigram lost where a long token is cut


@pytest.mark.parametrize("segmenter", ["bigrams", "unigrams+bigrams"])
def test_a_long_korean_run_gives_every_bigram_once(segmenter):
    unigrams = segmenter == "unigrams+bigrams"
    assert Analyzer("ko", segmenter=segmenter).tokenize(HANGUL) == character_bigrams(HANGUL, unigrams)
    assert Analyzer("ja", segmenter=segmenter).tokenize("東京" * 150) == character_bigrams("東京" * 150, unigrams)


def test_version_three_lost_the_bigram_spanning_each_cut():
    tokens = analyzer("ko", 3).tokenize(HANGUL)
    assert len(tokens) == 298 and HANGUL[254:256] not in tokens
    assert tokens == character_bigrams(HANGUL[:255]) + character_bigrams(HANGUL[255:])


def test_a_long_word_of_another_script_is_still_cut_into_pieces_of_the_maximum_length():
    assert MAX_TOKEN_LENGTH == 255
    pieces = ["x" * 255, "x" * 255, "x" * 90, "short"]
    for lang in ("en", "ko", "ja"):
        assert Analyzer(lang, stemmer=None).tokenize("x" * 600 + " short") == pieces
        assert analyzer(lang, 3, stemmer=None).tokenize("x" * 600 + " short") == pieces
    assert Analyzer("ko", segmenter=None).tokenize(HANGUL) == analyzer("ko", 3, segmenter=None).tokenize(HANGUL)
    assert Analyzer("ko").tokenize("中" + "x" * 300) == ["中", "x" * 255, "x" * 45]
    assert Analyzer("ko").tokenize("中" + "x" * 255 + "-" * 300) == ["中", "x" * 255]  # a piece of punctuation dropped


# ------------------------------------------------------------------ the folds leave other text alone


@pytest.mark.parametrize("text", ["a plain line of text, 42.", "acción ударение 中文 한국어 ไทย", "کتاب\u200cها", ""])
def test_the_folds_return_a_text_without_their_characters_itself(text):
    assert controls_as_spaces(text) is text and letters_folded(text) is text
    assert folded(text, 4) == folded(text, 3) and folded_word(text, 4) == folded_word(text, 3)
    assert not may_change("a plain line", 4)
    assert may_change("ﬁ", 4) and not may_change("ﬁ", 3)
