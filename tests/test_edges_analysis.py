"""Stopword lists and segmenters at the edges (issue 40, independent testing): a list is matched in the text's case
and Chinese script; an entry of two words is an error naming its line; a segmenter made for another language is
refused; every verb's stopword option refuses an empty value by name; ttable train takes each side's list."""

from __future__ import annotations

import pytest

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.retrieval.index import Index


def test_stopwords_are_matched_in_the_texts_case_and_chinese_script():
    assert Analyzer("en", stopwords=["THE", "Of"]).tokenize("The Lord of the rings") == ["lord", "ring"]
    assert Analyzer("en", stopwords=["THE"], lowercase=False).tokenize("THE Lord the") == ["Lord", "the"]
    zh = Analyzer("zh", stopwords=["我們", "喜歡"])  # traditional; the text is converted to simplified
    assert zh.tokenize("我們喜歡學習中文") == zh.without_stopwords().tokenize("學習中文")
    assert Analyzer.from_dict(zh.to_dict()).stopwords == zh.stopwords


def test_a_stopword_of_two_words_is_an_error_naming_the_line(tmp_path, capsys):
    with pytest.raises(ClirkitError, match="'de la' holds a space"):
        Analyzer("es", stopwords=["de la"])
    (tmp_path / "sw.txt").write_text("el\nde la\n", encoding="utf-8")
    (tmp_path / "d.tsv").write_text("d1\tel libro de la casa\n", encoding="utf-8")
    out = tmp_path / "ix.npz"
    argv = ["index", str(tmp_path / "d.tsv"), "--lang", "es", "-o", str(out), "--stopwords", str(tmp_path / "sw.txt")]
    assert main(argv) == 2
    assert (
        capsys.readouterr().err
        == f"clirkit: error: {tmp_path / 'sw.txt'}:2: 'de la' holds a space: a stopword is one token, one a line\n"
    )
    assert not out.exists()


def test_a_traditional_stopword_file_drops_its_words_from_a_simplified_index(tmp_path):
    (tmp_path / "zh.tsv").write_text("z1\t我們喜歡學習中文\n", encoding="utf-8")
    (tmp_path / "sw.txt").write_text("我們\n喜歡\n", encoding="utf-8")
    out = tmp_path / "zh.npz"
    argv = ["index", str(tmp_path / "zh.tsv"), "--lang", "zh", "-o", str(out), "--stopwords", str(tmp_path / "sw.txt")]
    assert main([*argv, "-q"]) == 0
    assert not {"我们", "喜欢"} & set(Index.load(out).terms.tolist())


@pytest.mark.parametrize(("segmenter", "lang"), [("kiwi", "zh"), ("jieba", "ja"), ("sudachi", "ko"), ("jieba", "th")])
def test_a_segmenter_made_for_another_language_is_refused(segmenter, lang, tmp_path, capsys):
    with pytest.raises(ClirkitError, match=f"segmenter {segmenter}: it segments"):
        Analyzer(lang, segmenter=segmenter)
    (tmp_path / "d.tsv").write_text("z1\t我们喜欢学习中文。\n", encoding="utf-8")
    out = tmp_path / "ix.npz"
    assert main(["index", str(tmp_path / "d.tsv"), "--lang", lang, "--segmenter", segmenter, "-o", str(out)]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and not out.exists()
    assert Analyzer("en", segmenter="kiwi").segmenter is None  # a language with spaces has none, whatever the name


def test_an_empty_stopword_value_is_refused_by_the_options_name(indexed_dir, capsys):
    from clirkit.cli.common import stopword_option

    with pytest.raises(ClirkitError, match="--source-stopwords: an empty value"):
        stopword_option(" ", "--source-stopwords")
    argv = ["index", str(indexed_dir / "docs.tsv"), "--lang", "es", "-o", str(indexed_dir / "x.npz")]
    assert main([*argv, "--stopwords", ""]) == 2
    assert (
        capsys.readouterr().err
        == "clirkit: error: --stopwords: an empty value: give none, snowball or a FILE of words\n"
    )


def test_ttable_train_takes_each_sides_stopwords_and_says_where_a_file_goes(tmp_path, capsys):
    from clirkit.translation import load_table

    (tmp_path / "en.txt").write_text("the light\nthe god\n", encoding="utf-8")
    (tmp_path / "es.txt").write_text("la luz\nel dios\n", encoding="utf-8")
    (tmp_path / "sw.txt").write_text("the\n", encoding="utf-8")
    base = ["ttable", "train", "--source", str(tmp_path / "en.txt"), "--target", str(tmp_path / "es.txt")]
    base += ["--source-lang", "en", "--target-lang", "es", "-q"]
    assert main([*base, "-o", str(tmp_path / "t.npz"), "--source-stopwords", str(tmp_path / "sw.txt")]) == 0
    assert "the" not in load_table(str(tmp_path / "t.npz")).source_vocab.tolist()
    assert main([*base, "-o", str(tmp_path / "u.npz"), "--stopwords", str(tmp_path / "sw.txt")]) == 2
    assert "--source-stopwords or --target-stopwords" in capsys.readouterr().err


def test_stopwords_the_analysis_cuts_into_other_tokens_are_noted(tmp_path, capsys):
    assert Analyzer("en", stopwords=["don't", "like"]).unmatched_stopwords() == ["don't"]
    assert Analyzer("ko", stopwords=["우리는", "우리"]).unmatched_stopwords() == ["우리는"]  # bigrams: 우리 리는
    (tmp_path / "d.tsv").write_text("d1\tI don't like it\n", encoding="utf-8")
    (tmp_path / "sw.txt").write_text("don't\nlike\n", encoding="utf-8")
    argv = ["index", str(tmp_path / "d.tsv"), "--lang", "en", "-o", str(tmp_path / "ix.npz")]
    assert main([*argv, "--stopwords", str(tmp_path / "sw.txt")]) == 0
    assert (
        "1 of 2 stopwords are cut by the en analysis into other tokens and can never match (\"don't\" -> don 't)"
        in (capsys.readouterr().err)
    )
    assert main([*argv, "--stopwords", "snowball"]) == 0  # Snowball's own list: no note
    assert "can never match" not in capsys.readouterr().err
