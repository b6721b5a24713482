"""Scripts written without spaces: word segmenters, Chinese script conversion, Thai marks, dictionary phrases, no
empty stems, and the segmentation recorded and checked like the rest of the analysis."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest

from clirkit.analysis import SNOWBALL_STEMMERS, SNOWBALL_STOPWORDS, Analyzer, snowball_stopwords
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.formats import read_run
from clirkit.retrieval.index import Index
from clirkit.systems import PSQ, BM25Search
from clirkit.translation import load_table
from clirkit.translation.phrases import join_phrases

CHINESE = ["我们今天去北京大学看书。", "他不喜欢喝咖啡，但是很喜欢茶。", "这个程序无法打开文件"]
JAPANESE = ["東京都庁に行きました。", "ファイルを開くことができません"]
THAI = ["ไม่ต้องการใช้ไม้", "ภาษาไทยง่ายนิดเดียว", "ไม่สามารถเปิดแฟ้มได้"]


def words_only(tokens):
    """``tokens`` less whitespace and punctuation, as the analyzer drops them."""
    return [t for t in tokens if any(c.isalnum() or unicodedata.category(c)[0] == "M" for c in t)]


@pytest.mark.parametrize("lang, sentences", [("zh", CHINESE), ("ja", JAPANESE), ("th", THAI)])
def test_icu_segmentation_is_icus_own_word_break_iterator(lang, sentences):
    from icu4py.breakers import WordBreaker
    from icu4py.locale import Locale

    analyzer = Analyzer(lang, segmenter="icu", chinese_script=None, stemmer=None)
    for text in sentences:
        expected = words_only([text[a:b] for a, b in WordBreaker(text, Locale(lang)).segments()])
        assert analyzer.tokenize(text) == [t.lower() for t in expected]


def test_jieba_segmentation_is_jiebas_own_cut():
    jieba = pytest.importorskip("jieba")
    analyzer = Analyzer("zh", segmenter="jieba", chinese_script=None)
    for text in CHINESE:
        assert analyzer.tokenize(text) == words_only(jieba.lcut(text))


def test_sudachi_segmentation_is_sudachis_own_shortest_units_in_dictionary_form():
    sudachipy = pytest.importorskip("sudachipy")
    pytest.importorskip("sudachidict_core")
    dictionary = sudachipy.Dictionary(dict="core")
    tokenizer = (getattr(dictionary, "tokenizer", None) or dictionary.create)(sudachipy.SplitMode.A)
    analyzer = Analyzer("ja", segmenter="sudachi")
    for text in JAPANESE:
        assert analyzer.tokenize(text) == words_only([m.dictionary_form() for m in tokenizer.tokenize(text)])


def test_kiwi_segmentation_is_kiwis_own_morphemes_less_noris_stop_tags():
    kiwipiepy = pytest.importorskip("kiwipiepy")
    from clirkit.segmenters import KIWI_DROPPED

    kiwi, analyzer = kiwipiepy.Kiwi(), Analyzer("ko", segmenter="kiwi")
    for text in ("나는 학교에 갑니다", "파일을 열 수 없습니다"):
        assert analyzer.tokenize(text) == [t.form for t in kiwi.tokenize(text) if not t.tag.startswith(KIWI_DROPPED)]
    assert analyzer.tokenize("학교에 갑니다") == ["학교", "가"]


def test_defaults_segment_by_language_and_leave_languages_with_spaces_alone():
    assert Analyzer("zh").tokenize("我们今天去北京大学") == ["我们", "今天", "去", "北京", "大学"]
    assert (Analyzer("zh").segmenter, Analyzer("th").segmenter, Analyzer("ko").segmenter) == ("icu", "icu", "bigrams")
    assert Analyzer("en").segmenter is None and Analyzer("en", segmenter="icu").segmenter is None
    assert Analyzer("en", chinese_script="simplified").chinese_script is None
    assert Analyzer("zh").chinese_script == "simplified" and Analyzer("ja").chinese_script is None
    with pytest.raises(ClirkitError, match="segmenter: expected auto, none or one of"):
        Analyzer("zh", segmenter="mecab")


def test_settings_round_trip_and_old_files_read_as_bigrams():
    for analyzer in (
        Analyzer("zh"),
        Analyzer("zh", segmenter="unigrams+bigrams", chinese_script="traditional"),
        Analyzer("th", segmenter=None),
        Analyzer("ja", segmenter="bigrams"),
    ):
        assert Analyzer.from_dict(analyzer.to_dict()) == analyzer
    old = {
        "lang": "zh",
        "lowercase": True,
        "strip_punctuation": True,
        "stopwords": [],
        "stemmer": None,
        "cjk_bigrams": True,
    }
    made = Analyzer.from_dict(old)
    assert made.segmenter == "bigrams" and made.chinese_script is None and made.to_dict() == old
    with pytest.raises(ClirkitError, match="segmenter must be one of"):
        Analyzer.from_dict({**old, "segmenter": "words"})
    assert not Analyzer("zh").same_terms_as(Analyzer("zh", segmenter="bigrams"))
    assert not Analyzer("zh").same_terms_as(Analyzer("zh", chinese_script=None))


def test_traditional_and_simplified_forms_reach_the_same_documents():
    simplified, traditional = "这个程序无法打开文件", "這個程式無法開啟檔案"
    analyzer = Analyzer("zh")
    assert analyzer.tokenize("電腦學習時間") == analyzer.tokenize("电脑学习时间")
    docs = ["这个程序无法打开文件", "电脑学习时间", "无法连接服务器"]
    index = Index.from_tokens(["d1", "d2", "d3"], analyzer.tokenize_many(docs), analyzer)
    searcher = BM25Search().fit(Resources(index=index))
    runs = [searcher.search({"q": text}) for text in (simplified, "這個程序無法打開文件")]
    assert runs[0].docids.tolist() == runs[1].docids.tolist() and runs[0].scores.tolist() == runs[1].scores.tolist()
    assert runs[0].docids.tolist()[0] == "d1"
    assert set(Analyzer("zh", chinese_script=None).tokenize(traditional)).isdisjoint(analyzer.tokenize(simplified))


@pytest.mark.parametrize("segmenter", ["auto", None, "bigrams"])
def test_thai_combining_marks_are_never_dropped(segmenter):
    analyzer = Analyzer("th", segmenter=segmenter)
    for text in THAI:
        tokens = analyzer.tokenize(text)
        assert "".join(tokens) == text.replace(" ", "")  # every character kept, marks included
    not_, wood = analyzer.tokenize("ไม่"), analyzer.tokenize("ไม้")  # "not" and "wood" differ only by a tone mark
    assert not_ != wood and not_ == ["ไม่"]


def test_a_stem_that_would_be_empty_keeps_its_word_in_every_snowball_language():
    words = ["όταν", "έως", "ίδια", "ότι"] + [
        w for lang in sorted(SNOWBALL_STOPWORDS) for w in snowball_stopwords(lang)
    ]
    for lang in SNOWBALL_STEMMERS:
        tokens = Analyzer(lang).finish(list(words))
        assert len(tokens) == len(words) and all(tokens), lang
    assert Analyzer("el", normalization_version=4).tokenize("όταν έως σπίτι") == ["όταν", "έως", "σπιτ"]
    assert Analyzer("el").tokenize("όταν έως σπίτι") == ["οταν", "εωσ", "σπιτ"]  # (version 5: Greek lowercased bare)


def test_join_phrases_takes_the_longest_phrase_from_the_left():
    vocab = ["北京 京大 大学", "北京", "大学 学生", "a menudo"]
    assert join_phrases([["在北", "北京", "京大", "大学", "学生"], ["a", "menudo", "va"], ["x"]], vocab) == [
        ["在北", "北京 京大 大学", "学生"],
        ["a menudo", "va"],
        ["x"],
    ]
    assert join_phrases([["北京", "京大"]], ["北京"]) == [["北京", "京大"]]  # no phrase in the table


@pytest.fixture
def zh_dictionary(tmp_path):
    """A small Chinese-English dictionary in MUSE's format, traditional characters as MUSE zh-en writes them."""
    path = tmp_path / "zh-en.txt"
    path.write_text(
        "北京大學 peking\n大學 university\n我 i\n書 book\n看 read\n咖啡 coffee\n圖書館 library\n", encoding="utf-8"
    )
    return path


@pytest.mark.parametrize("segmenter", ["auto", "bigrams", "unigrams+bigrams"])
def test_dictionary_words_of_three_and_one_characters_are_found_by_queries(zh_dictionary, segmenter):
    table = load_table(zh_dictionary, "muse", source_lang="zh", target_lang="en", segmenter=segmenter)
    assert table.params["n_empty_dropped"] == 0 and table.params["n_multiword_source_dropped"] == 0
    en = Analyzer("en")
    docs = {"d1": "Peking university library", "d2": "I read a book", "d3": "coffee and tea", "d4": "a library"}
    index = Index.from_tokens(list(docs), en.tokenize_many(list(docs.values())), en)
    psq = PSQ().fit(Resources(index=index, table=table))
    run = psq.search({"q1": "我在北京大学的图书馆", "q2": "我看书"})
    top = {q: run.docids[run.qids == q].tolist() for q in ("q1", "q2")}
    assert top["q1"][0] == "d1"  # 北京大学 (4 characters) and 图书馆 (3) found
    if segmenter != "bigrams":  # bigrams cannot hold a one-character word
        assert top["q2"][0] == "d2"  # 看 and 书, one character each


def test_a_greek_dictionary_converts_and_psq_runs_on_it(tmp_path):
    path = tmp_path / "el-en.txt"
    path.write_text("όταν when\nέως until\nσπίτι house\nσπίτια houses\n", encoding="utf-8")
    out, index_path, run_path = tmp_path / "el-en.npz", tmp_path / "en.npz", tmp_path / "run"
    (tmp_path / "docs.tsv").write_text("d1\tthe house stood until winter\nd2\twhen it rains\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tσπίτι όταν\n", encoding="utf-8")
    assert (
        main(
            [
                "ttable",
                "convert",
                str(path),
                "--format",
                "muse",
                "--source-lang",
                "el",
                "--target-lang",
                "en",
                "-o",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "en", "-o", str(index_path), "-q"]) == 0
    assert (
        main(
            [
                "psq",
                "--index",
                str(index_path),
                "--queries",
                str(tmp_path / "q.tsv"),
                "--table",
                str(out),
                "-o",
                str(run_path),
                "-q",
            ]
        )
        == 0
    )
    assert set(read_run(run_path).docids.tolist()) == {"d1", "d2"}


def test_psq_mode_all_counts_the_query_terms_found_in_the_table(tmp_path, capsys):
    (tmp_path / "es-en.txt").write_text("casa house\ncasa home\nluz light\n", encoding="utf-8")
    (tmp_path / "docs.tsv").write_text("d1\tthe house\nd2\tthe light\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tcasa luz perro\n", encoding="utf-8")
    table, index = tmp_path / "t.npz", tmp_path / "en.npz"
    assert (
        main(
            [
                "ttable",
                "convert",
                str(tmp_path / "es-en.txt"),
                "--format",
                "muse",
                "--source-lang",
                "es",
                "--target-lang",
                "en",
                "-o",
                str(table),
                "-q",
            ]
        )
        == 0
    )
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "en", "-o", str(index), "-q"]) == 0
    for mode in ("psq", "all"):
        capsys.readouterr()
        assert (
            main(
                [
                    "psq",
                    "--index",
                    str(index),
                    "--queries",
                    str(tmp_path / "q.tsv"),
                    "--table",
                    str(table),
                    "--mode",
                    mode,
                    "-o",
                    str(tmp_path / f"{mode}.run"),
                ]
            )
            == 0
        )
        assert "PSQ: 2 of 3 query terms found in the table" in capsys.readouterr().err, mode


def test_ttable_convert_reports_kept_merged_and_dropped_and_segmenter_mismatch_is_one_line(
    tmp_path, zh_dictionary, capsys
):
    out, index_path = tmp_path / "t.npz", tmp_path / "zh.npz"
    assert (
        main(
            [
                "ttable",
                "convert",
                str(zh_dictionary),
                "--format",
                "muse",
                "--source-lang",
                "zh",
                "--target-lang",
                "en",
                "--segmenter",
                "bigrams",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "of 7 pairs: 7 (100.0%) kept, 0 (0.0%) merged" in err
    assert "2 of 7 MUSE pairs have a source side of several terms once analyzed: kept as phrases" in err
    docs = tmp_path / "docs.tsv"
    docs.write_text("d1\t北京大学\n", encoding="utf-8")
    assert main(["index", str(docs), "--lang", "zh", "-o", str(index_path), "-q"]) == 0
    queries = tmp_path / "q.tsv"
    queries.write_text("q1\tpeking\n", encoding="utf-8")
    assert (
        main(
            [
                "ttable",
                "convert",
                str(zh_dictionary),
                "--format",
                "muse",
                "--source-lang",
                "en",
                "--target-lang",
                "zh",
                "--reverse",
                "--segmenter",
                "bigrams",
                "-o",
                str(out),
                "-q",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert (
        main(
            [
                "dt",
                "--index",
                str(index_path),
                "--queries",
                str(queries),
                "--table",
                str(out),
                "-o",
                str(tmp_path / "run"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bigrams segmenter" in err and "icu segmenter" in err
    assert not (tmp_path / "run").exists()


def test_phrases_are_shown_kept_from_psq_tables_and_left_out_of_moses_text_with_a_notice(
    tmp_path, zh_dictionary, capsys
):
    npz, lex = tmp_path / "t.npz", tmp_path / "t.lex"
    args = [
        "ttable",
        "convert",
        str(zh_dictionary),
        "--format",
        "muse",
        "--source-lang",
        "zh",
        "--target-lang",
        "en",
        "--segmenter",
        "bigrams",
    ]
    assert main([*args, "-o", str(npz), "-q"]) == 0
    capsys.readouterr()
    assert main(["ttable", "show", str(npz), "北京大學"]) == 0
    assert "北京大學 -> 北京 京大 大学\t(1 translation)\n  peke\t1.0" in capsys.readouterr().out  # as DT, PSQ match it
    assert main([*args, "-o", str(lex)]) == 0
    assert "t.lex is Moses text, which holds single words: 2 source phrases not written" in capsys.readouterr().err
    assert "北京" not in lex.read_text(encoding="utf-8") and "book 书" in lex.read_text(encoding="utf-8")
    psq_json = tmp_path / "zh-en.psq.json"
    psq_json.write_text('{"耗尽": {"exhaust": 1.0}, "错误": {"error": 1.0}}', encoding="utf-8")
    table = load_table(psq_json, "psq-json", source_lang="zh", target_lang="en", segmenter="bigrams")
    assert table.translations("耗尽") == [("exhaust", 1.0)]
    table = load_table(psq_json, "psq-json", source_lang="zh", target_lang="en", segmenter="unigrams+bigrams")
    assert table.params["n_multiword_source"] == 2 and table.translations("耗 耗尽 尽") == [("exhaust", 1.0)]


def test_dt_counts_phrases_as_one_term_and_an_unanalyzed_table_meets_unconverted_queries(
    tmp_path, zh_dictionary, capsys
):
    en = Analyzer("en")
    docs = {"d1": "computer network", "d2": "peking university"}
    index_path = tmp_path / "en.npz"
    Index.from_tokens(list(docs), en.tokenize_many(list(docs.values())), en).save(index_path)
    queries = tmp_path / "q.tsv"
    queries.write_text("q1\t北京大学\n", encoding="utf-8")
    table = tmp_path / "t.npz"
    assert (
        main(
            [
                "ttable",
                "convert",
                str(zh_dictionary),
                "--format",
                "muse",
                "--source-lang",
                "zh",
                "--target-lang",
                "en",
                "--segmenter",
                "bigrams",
                "-o",
                str(table),
                "-q",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "dt",
                "--index",
                str(index_path),
                "--queries",
                str(queries),
                "--table",
                str(table),
                "-o",
                str(tmp_path / "dt.run"),
            ]
        )
        == 0
    )
    assert "DT: 1 of 1 query terms translated" in capsys.readouterr().err
    lex = tmp_path / "tw.lex"  # Moses text records no analysis: its traditional words stay as they are written
    lex.write_text("computer 電腦 1.0\nnetwork 網路 1.0\n", encoding="utf-8")
    queries.write_text("q1\t電腦網路\n", encoding="utf-8")
    assert (
        main(
            [
                "psq",
                "--index",
                str(index_path),
                "--queries",
                str(queries),
                "--table",
                str(lex),
                "--table-format",
                "moses",
                "--source-lang",
                "zh",
                "-o",
                str(tmp_path / "psq.run"),
            ]
        )
        == 0
    )
    assert "PSQ: 2 of 2 query terms found in the table" in capsys.readouterr().err
    assert read_run(tmp_path / "psq.run").docids.tolist() == ["d1"]


def test_translating_the_documents_counts_the_tables_phrases(tmp_path, capsys):
    es = Analyzer("es")
    docs = {"d1": "a menudo llueve", "d2": "la casa"}
    index = Index.from_tokens(list(docs), es.tokenize_many(list(docs.values())), es)
    path = tmp_path / "es-en.txt"
    path.write_text("a menudo\toften\ncasa\thouse\nllueve\trains\n", encoding="utf-8")
    table = load_table(path, "pairs", source_lang="es", target_lang="en")
    system = PSQ().fit(Resources(index=index, reverse_table=table, quiet=False))
    assert "1 of the table's 3 source words are phrases of several terms" in capsys.readouterr().err
    assert system.search({"q": "house"}).docids.tolist() == ["d2"]
    assert system.search({"q": "often"}).docids.tolist() == ["d1"]  # "a menudo": counted by its terms


@pytest.mark.parametrize("verb", ["dt", "psq"])
def test_a_phrase_holding_a_stopword_is_found_when_the_query_drops_stopwords(tmp_path, capsys, verb):
    """ "a menudo" (often): "a" is a Snowball stopword of Spanish; the phrase is joined before the stopwords drop, and
    the stopwords outside it ("lo") still drop."""
    (tmp_path / "es-en.json").write_text('{"a menudo": {"often": 1.0}, "vemos": {"see": 1.0}}', encoding="utf-8")
    (tmp_path / "docs.tsv").write_text("d1\twe see it often\nd2\twe see it\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tlo vemos a menudo\n", encoding="utf-8")
    table, index = tmp_path / "t.npz", tmp_path / "en.npz"
    assert (
        main(
            [
                "ttable",
                "convert",
                str(tmp_path / "es-en.json"),
                "--format",
                "psq-json",
                "--source-lang",
                "es",
                "--target-lang",
                "en",
                "-o",
                str(table),
                "-q",
            ]
        )
        == 0
    )
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "en", "-o", str(index), "-q"]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                verb,
                "--index",
                str(index),
                "--queries",
                str(tmp_path / "q.tsv"),
                "--table",
                str(table),
                "--source-stopwords",
                "snowball",
                "-o",
                str(tmp_path / "run"),
            ]
        )
        == 0
    )
    assert "2 of 2 query terms " in capsys.readouterr().err  # vemos, a menudo ("lo" dropped)
    assert read_run(tmp_path / "run").docids.tolist()[0] == "d1"


def test_tokenize_with_phrases_drops_the_stopwords_outside_phrases_as_the_analyzer_does():
    from clirkit.analysis import Analyzer
    from clirkit.translation.phrases import tokenize_with_phrases

    es = Analyzer("es", stopwords="snowball")
    texts = ["lo vemos a menudo en la casa", "a la casa", ""]
    words = np.array(["a menud", "cas", "en la cas"])
    assert tokenize_with_phrases(es, texts, words) == [["vem", "a menud", "en la cas"], ["cas"], []]
    assert tokenize_with_phrases(es, texts, np.array(["cas"])) == es.tokenize_many(texts)
    assert tokenize_with_phrases(es.without_stopwords(), texts, words) == es.without_stopwords().tokenize_many(texts)
