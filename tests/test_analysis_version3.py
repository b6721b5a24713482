"""Normalization version 3 of the analysis (issue 40, edge round 13 findings 13B-1, 6, 7, 11, 14 and 15): a word
gives the same terms alone as in a text, marks never cross a space, no underscore-only terms, no hyphen left at a
script change, no token longer than MAX_TOKEN_LENGTH, no word cut by an invisible format character; and versions 1
and 2, which the files written before record, tokenize exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirkit.analysis import MAX_TOKEN_LENGTH, Analyzer
from clirkit.retrieval.index import Index
from clirkit.systems import BM25Search, Resources
from clirkit.translation import load_table, save_table, train_table

FROZEN = json.loads((Path(__file__).parent / "data" / "analysis_tokens_before_version3.json").read_text("utf-8"))


# ------------------------------------------------------------------ versions 1 and 2 analyze as before


@pytest.mark.parametrize("label", sorted(FROZEN["analyzers"]))
@pytest.mark.parametrize("version", [1, 2])
def test_versions_one_and_two_give_the_tokens_of_before_version_three(label, version):
    """The tokens clirkit gave before version 3 existed (commit b29f5aa), of the strings of every finding here and
    more, under 17 analyzers: an index or table written at version 1 or 2 still meets its queries."""
    settings = dict(FROZEN["analyzers"][label])
    analyzer = Analyzer(settings.pop("lang"), **settings, normalization_version=version)
    expected = FROZEN["tokens"][f"{label} {version}"]
    got = [analyzer.tokenize(text) for text in FROZEN["strings"]]
    assert {s: g for s, g, e in zip(FROZEN["strings"], got, expected) if g != e} == {}


def test_settings_of_version_three_read_back_as_three_and_of_version_two_as_two(tmp_path):
    v3 = Analyzer("en", normalization_version=3)  # (the default until version 4)
    assert v3.to_dict()["normalization_version"] == 3 and Analyzer.from_dict(v3.to_dict()) == v3
    v2 = Analyzer("tr", normalization_version=2)
    assert Analyzer.from_dict(v2.to_dict()).normalization_version == 2
    index = Index.build([("d1", "Wiki\u2060pedia KIZ"), ("d2", "ev")], v2)
    index.save(tmp_path / "ix.npz")
    loaded = Index.load(tmp_path / "ix.npz")
    assert loaded.analyzer == v2 and loaded.analyzer.normalization_version == 2
    assert sorted(loaded.terms.tolist()) == ["ev", "kız", "pedia", "wik"]  # the terms version 2 made (stemmed)
    en2 = Analyzer("en", normalization_version=2)
    table = train_table([en2.tokenize("the girl"), en2.tokenize("a house")], [["kız"], ["ev"]], en2, v2)
    save_table(table, tmp_path / "t.npz")
    back = load_table(tmp_path / "t.npz")
    assert back.params["source_analyzer"]["normalization_version"] == 2
    assert back.params["target_analyzer"]["normalization_version"] == 2
    assert Analyzer.from_dict(back.params["target_analyzer"]) == v2


# ------------------------------------------------------------------ 13B-15: invisible format characters


@pytest.mark.parametrize("mark", ["\u2060", "\u200e", "\u200f", "\u061c", "\ufeff", "\u202a", "\u2066", "\u00ad"])
def test_an_invisible_format_character_inside_a_word_does_not_cut_it(mark):
    assert Analyzer("en").tokenize(f"Wiki{mark}pedia") == ["wikipedia"]
    assert Analyzer("en", normalization_version=2).tokenize(f"Wiki{mark}pedia") == (
        ["wikipedia"] if mark == "\u00ad" else ["wiki", "pedia"]
    )


def test_format_characters_are_removed_in_arabic_and_as_tokens_yet_script_joiners_stay():
    ar = Analyzer("ar")
    assert ar.tokenize("مكت\u200fبة") == ar.tokenize("مكتبة")
    assert ar.as_token("مكت\u200fبة") == ar.as_token("مكتبة")
    fa = Analyzer("fa", stemmer=None)
    assert fa.tokenize("کتاب\u200cها") == Analyzer("fa", stemmer=None, normalization_version=2).tokenize("کتاب\u200cها")
    assert Analyzer("en").tokenize("a\u200bb") == ["a", "b"]  # ZERO WIDTH SPACE is a word boundary
    index = Index.build([("d1", "Wiki\u2060pedia article"), ("d2", "other text")], Analyzer("en"))
    assert list(BM25Search().fit(Resources(index=index)).search({"q": "Wikipedia"}).to_dict()["q"]) == ["d1"]


# ------------------------------------------------------------------ 13B-6: a mark never crosses a space


@pytest.mark.parametrize(
    "lang, text, first",
    [
        ("ja", "辻\U000e0100 news", "辻"),  # an ideographic variation selector (Japanese names): removed
        ("zh", "中\u0301 news", "中\u0301"),  # a mark after a character the word segmenter is given: in its word
        ("en", "ไทย\u0301 news", "ไทย\u0301"),  # after a Thai run, which Moses is not given
        ("th", "ไทย\u0301 news", "ไทย\u0301"),
        ("ja", "ＡＢＡ\u0308 zz", "aba\u0308"),  # after full-width letters
        ("en", "abc \u0301 zz", "abc"),  # after a space: dropped with it
        ("en", "\u0301 zz", None),  # at the start of the text: dropped
        ("ko", "한\u0301 zz", "한"),
    ],
)
def test_a_combining_mark_stays_with_the_character_it_follows_and_never_joins_the_next_word(lang, text, first):
    tokens = Analyzer(lang, stemmer=None).tokenize(text)
    assert tokens == ([first] if first else []) + ["news" if "news" in text else "zz"]


def test_a_word_after_a_marked_kanji_still_matches_itself():
    index = Index.build([("d1", "辻\U000e0100 news today"), ("d2", "sports news")], Analyzer("ja"))
    assert sorted(index.terms.tolist()) == ["news", "sports", "today", "辻"]
    assert set(BM25Search().fit(Resources(index=index)).search({"q": "news"}).to_dict()["q"]) == {"d1", "d2"}


# ------------------------------------------------------------------ 13B-7: underscores are no letter or digit


def test_a_token_of_underscores_alone_is_dropped_as_punctuation():
    en = Analyzer("en")
    assert en.tokenize("foo ___ bar") == ["foo", "bar"]
    assert en.tokenize("snake_case Name: ________") == ["snake", "case", "name"]
    assert Analyzer("ja").tokenize("＿＿ 東京") == ["東京"]
    assert Analyzer("en", strip_punctuation=False, stemmer=None).tokenize("a _ b") == ["a", "_", "b"]
    index = Index.build([("d1", "Sign here: ____"), ("d2", "a plain sentence"), ("d3", "user_name field")], en)
    assert "_" not in index.terms.tolist()
    assert list(BM25Search().fit(Resources(index=index)).search({"q": "max_depth"}).to_dict()) == []


# ------------------------------------------------------------------ 13B-1: a word alone is cut as in a text


@pytest.mark.parametrize(
    "word", ["ไทยThai", "ລາວLao", "𝐇𝐞𝐥𝐥𝐨", "ꮳꮃꭹ", "ab\u0870cd", "𝟏𝟐𝟑", "Hello", "acción", "١٢٣", "ไทย"]
)
@pytest.mark.parametrize("lang", ["en", "th", "zh"])
def test_a_word_alone_gives_the_terms_it_gives_inside_a_text(word, lang):
    """(Over U+0080-U+2FFFF, 'ab' + c + 'cd', '12' + c + '34' and c + c for every letter or digit c: the same terms
    alone and before ' zz' under Analyzer('en', stemmer=None); 17,552 letters differed at version 2.)"""
    analyzer = Analyzer(lang)
    assert analyzer.tokenize(word) == analyzer.tokenize(word + " news")[:-1]


def test_a_one_word_query_finds_the_documents_holding_the_word():
    index = Index.build([("d1", "ไทยThai news today"), ("d2", "𝐇𝐞𝐥𝐥𝐨 world"), ("d3", "other text")], Analyzer("en"))
    bm25 = BM25Search().fit(Resources(index=index))
    assert list(bm25.search({"q": "ไทยThai"}).to_dict()["q"]) == ["d1"]
    assert list(bm25.search({"q": "𝐇𝐞𝐥𝐥𝐨"}).to_dict()["q"]) == ["d2"]


# ------------------------------------------------------------------ 13B-11: no hyphen left at a change of script


@pytest.mark.parametrize(
    "lang, text, expected",
    [
        ("zh", "iPhone-新款", ["iphone", "新", "款"]),
        ("ja", "iPhone-新型", ["iphone", "新型"]),
        ("th", "iPhone-รุ่นใหม่", ["iphone", "รุ่น", "ใหม่"]),
        ("ko", "iPhone-신형", ["iphone", "신형"]),
        ("zh", "新款-iPhone", ["新", "款", "iphone"]),
        ("en", "iPhone-ไทย", ["iphone", "ไทย"]),  # a Thai run without a segmenter
    ],
)
def test_a_hyphen_where_latin_meets_cjk_or_thai_text_is_dropped_under_every_segmenter(lang, text, expected):
    assert Analyzer(lang, stemmer=None).tokenize(text) == expected
    assert Analyzer(lang, stemmer=None).tokenize(text.replace("-", " - ")) == expected


def test_a_hyphen_at_a_change_of_script_stays_when_punctuation_is_kept_and_a_query_finds_the_word():
    assert Analyzer("zh", strip_punctuation=False).tokenize("iPhone-新款") == ["iphone-", "新", "款"]
    assert Analyzer("zh").tokenize("co-op-中文-co-op") == ["co-op", "中文", "co-op"]  # a hyphen within a word stays
    index = Index.build([("d1", "苹果发布iPhone-新款手机"), ("d2", "其他新闻")], Analyzer("zh"))
    assert list(BM25Search().fit(Resources(index=index)).search({"q": "iPhone"}).to_dict()["q"]) == ["d1"]


# ------------------------------------------------------------------ 13B-14: no token longer than MAX_TOKEN_LENGTH


def test_a_token_longer_than_the_maximum_is_cut_into_pieces_of_the_maximum_length():
    assert MAX_TOKEN_LENGTH == 255
    en = Analyzer("en", stemmer=None)
    assert en.tokenize("y" * 255 + " short") == ["y" * 255, "short"]
    assert en.tokenize("X" * 600 + " short") == ["x" * 255, "x" * 255, "x" * 90, "short"]
    assert en.tokenize("z" * 255 + "-" * 5) == ["z" * 255]  # a piece with no letter or digit is punctuation
    assert Analyzer("en", stemmer=None, normalization_version=2).tokenize("x" * 600) == ["x" * 600]


def test_one_very_long_token_does_not_widen_every_term_of_the_vocabulary():
    docs = [(f"d{i}", f"word{i} common") for i in range(50)] + [("blob", "x" * 20000)]
    index = Index.build(docs, Analyzer("en", stemmer=None))
    assert index.terms.dtype.itemsize <= 4 * MAX_TOKEN_LENGTH
    assert list(BM25Search().fit(Resources(index=index)).search({"q": "x" * 255}).to_dict()["q"]) == ["blob"]
