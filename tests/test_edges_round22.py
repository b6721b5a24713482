"""Edge round 22 (an independent test of normalization version 4 and boosting's inputs): a stopword or table word
holding a control character, the letterlike symbols of the mathematical alphabets, the Dutch ligature and the
Latin digraphs, Hebrew's combining grapheme joiner, Arabic's superscript alef and Quranic marks, many joiners in
one text, a file of a newer normalization version, and ``boost-rank --candidates`` with a negative score."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_boost_cli import write_base_run
from test_edges_round15_boost import dev_run, one_error_line
from test_edges_round21_boost import base_args

from clirkit.analysis import Analyzer, read_stopwords
from clirkit.cli import main
from clirkit.errors import ClirkitError


def analyzer(lang: str, version: int) -> Analyzer:
    return Analyzer(lang, normalization_version=version)


# -- 1: control characters in stopwords and table words --------------------------------------------------------


@pytest.mark.parametrize("line", ["dog\x07bird", "and\x1a", "\x7fthe"])
def test_a_stopword_line_holding_a_control_character_is_refused_at_its_line(tmp_path, line):
    path = tmp_path / "sw.txt"
    path.write_text(f"the\n{line}\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=rf"^{path}:2: .* holds a control character: a stopword is one token"):
        read_stopwords(path)


def test_index_with_such_a_stopword_file_exits_2_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "docs.tsv").write_text("d1\tdog bird fly\nd2\tthe cat\n", encoding="utf-8")
    (tmp_path / "sw.txt").write_text("dog\x07bird\n", encoding="utf-8")
    out = tmp_path / "ix.npz"
    argv = [
        "index",
        str(tmp_path / "docs.tsv"),
        "-o",
        str(out),
        "--lang",
        "en",
        "--stopwords",
        str(tmp_path / "sw.txt"),
    ]
    assert main(argv) == 2
    assert "sw.txt:1: 'dog\\x07bird' holds a control character" in capsys.readouterr().err
    assert not out.exists()


def test_a_stopword_or_table_word_is_folded_before_it_is_checked_and_its_ends_trimmed():
    """Through the library: a control character inside a word is a space (refused: two tokens), at an end it is
    no part of the word, as the analysis of a text has it."""
    with pytest.raises(ClirkitError, match="holds a space: a stopword is one token"):
        Analyzer("en", stopwords=["dog\x07bird"])
    a = Analyzer("en", stopwords=["and\x1a"])
    assert a.stopwords == frozenset({"and"}) and a.tokenize("bread and butter") == ["bread", "butter"]
    assert a.as_token("flor\x1a") == "flor" == a.tokenize("flor\x1a")[0]
    assert analyzer("en", 3).as_token("flor\x1a") == "flor\x1a"  # version 3 as it was


# -- 2, 6: mathematical letters in Letterlike Symbols, ligatures and digraphs ----------------------------------


@pytest.mark.parametrize(
    "written, plain",
    [
        ("𝑡ℎ𝑒𝑜𝑟𝑦", "theory"),  # italic h is U+210E
        ("𝓉ℎℯ ℬ𝓇ℴ𝓌𝓃 𝒹ℴℊ", "the Brown dog"),  # script e, o, g, B
        ("ℭ𝔥𝔞𝔯𝔩𝔢𝔰 ℌ𝔢𝔞𝔯", "Charles Hear"),  # fraktur C, H
        ("ℚ𝕦𝕚𝕔𝕜 ℝ𝕖𝕒𝕝", "Quick Real"),  # double-struck Q, R
        ("Ĳsland ĳs", "IJsland ijs"),
        ("ǆungla ǈudi ǋegoš ǲemlja", "džungla Ljudi Njegoš Dzemlja"),
        ("Caſtle", "Castle"),
    ],
)
def test_letters_written_another_way_are_the_plain_ones(written, plain):
    lang = "nl" if "ij" in plain.lower() else "hr" if "ž" in plain or "Lj" in plain else "en"
    assert Analyzer(lang).tokenize(written) == Analyzer(lang).tokenize(plain)
    assert analyzer(lang, 3).tokenize(written) != analyzer(lang, 3).tokenize(plain)


def test_symbols_that_are_not_letters_of_an_alphabet_stay():
    for kept in ("ℓ", "℮", "ℏ", "²", "™"):
        assert Analyzer("en", strip_punctuation=False).as_token(kept) == kept.lower()


# -- 4, 5: Hebrew's CGJ, Arabic's superscript alef and Quranic marks ---------------------------------------------


@pytest.mark.parametrize(
    "lang, pointed, plain",
    [
        ("he", "יְרוּשָׁלַ\u034fִם", "ירושלם"),  # patah, CGJ, hiriq: the order of two points kept
        ("ar", "هٰذَا ذٰلِكَ الرَّحْمٰنِ", "هذا ذلك الرحمن"),
        ("fa", "هٰذَا", "هذا"),
        ("ar", "ذَٰلِكَ ٱلْكِتَٰبُ لَا رَيْبَ ۛ فِيهِ ۛ", "ذلك ٱلكتب لا ريب فيه"),  # Quranic marks (U+06DB) removed
    ],
)
def test_a_pointed_word_meets_its_plain_spelling_with_these_marks_too(lang, pointed, plain):
    assert Analyzer(lang).tokenize(pointed) == Analyzer(lang).tokenize(plain)


# -- 3: many joiners -------------------------------------------------------------------------------------------


def test_many_joiners_in_one_text_are_each_removed_where_they_join_letters():
    """(They were cut one at a time, the text rebuilt each time: quadratic; 160,000 of them took 42 s.)"""
    text = "Auf\u200claage Schiff\u200cfahrt " * 20000
    tokens = Analyzer("de", stemmer=None).tokenize(text)
    assert tokens == ["auflaage", "schifffahrt"] * 20000


# -- 7: a file of a newer normalization version -------------------------------------------------------------


def test_an_index_of_a_newer_normalization_version_is_said_to_be_newer_not_corrupt(tmp_path, capsys):
    from clirkit.npzio import HEADER_KEY
    from clirkit.retrieval.index import Index

    path = tmp_path / "ix.npz"
    Index.from_tokens(["d1", "d2"], [["a", "b"], ["b", "c"]], Analyzer("en")).save(path)
    arrays = dict(np.load(path))
    header = json.loads(bytes(arrays[HEADER_KEY]).decode())
    header["analyzer"]["normalization_version"] = 6
    arrays[HEADER_KEY] = np.frombuffer(json.dumps(header, sort_keys=True).encode(), dtype=np.uint8)
    np.savez(path, **arrays)
    with pytest.raises(ClirkitError) as caught:
        Index.load(path)
    assert str(caught.value) == (
        f"{path}: header analyzer: normalization version 6 is newer than this clirkit's (it reads versions 1-5): "
        "use the clirkit that wrote it, or rebuild the index with `clirkit index` with this one"
    )


# -- 8: boost-rank --candidates with a negative score ------------------------------------------------------------


def test_boost_rank_candidates_with_a_negative_score_are_refused_at_their_line(tmp_path, capsys):
    base = write_base_run(tmp_path)
    assert main(base_args(tmp_path, base, dev_run(tmp_path)) + ["--quiet"]) == 0
    cands = tmp_path / "neg.run"
    lines = Path(base).read_text().splitlines()
    fields = lines[3].split()
    fields[4] = "-2"
    lines[3] = " ".join(fields)
    cands.write_text("\n".join(lines) + "\n")
    q, docs = str(tmp_path / "q.tsv"), str(tmp_path / "docs.tsv")
    out = tmp_path / "r.run"
    argv = ["boost-rank", str(tmp_path / "m.npz"), "--queries", q, "--documents", docs, "--candidates", str(cands)]
    assert main([*argv, "-o", str(out)]) == 2
    assert one_error_line(capsys) == (
        f"clirkit: error: {cands}:4: negative score: a base run's scores must be >= 0 (BM25, DT, PSQ or a fusion of "
        "them) (-2)"
    )
    assert not out.exists()
