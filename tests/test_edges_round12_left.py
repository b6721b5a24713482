"""Issue 40, edge round 12, left by the testers (L1..L8): a memory-mapped translated index's counts are checked
before the language model's background sums them (L1); a stopword list refused from Python as from an experiment
file (L4); make_tuples refuses the min_grade the ranker refuses (L5); search --source-lang over queries in one language on
standard input, refused as over a file (L6); a Borda count deeper than float64 tells ranks apart, refused (L7); a table read as the terms it holds has
them normalized as the analyzer's tokens are (L8)."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError

DOCS = "d1\tthe house is red\nd2\tthe dog eats bread\nd3\tthe cat sleeps\n"


def one_line_error(capsys, prefix: str) -> str:
    captured = capsys.readouterr()
    assert captured.err.startswith(f"clirkit: error: {prefix}") and captured.err.count("\n") == 1, captured.err
    return captured.err


# ------------------------------------------------------------------ L1. a memory-mapped translated index, lm


def test_a_memory_mapped_translated_index_with_a_negative_count_is_named_by_the_lm_scoring(tmp_path, capsys, tamper):
    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tcasa\n", encoding="utf-8")
    (tmp_path / "p.en").write_text("the house\nthe dog\n", encoding="utf-8")
    (tmp_path / "p.es").write_text("la casa\nel perro\n", encoding="utf-8")
    index, translated = str(tmp_path / "idx.npz"), str(tmp_path / "t-idx.npz")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", index, "--lang", "en", "-q"]) == 0
    table = ["--source", str(tmp_path / "p.en"), "--target", str(tmp_path / "p.es"), "--source-lang", "en"]
    assert main(["ttable", "train", *table, "--target-lang", "es", "-o", str(tmp_path / "t.npz"), "-q"]) == 0
    assert main(["psq", "--index", index, "--table", str(tmp_path / "t.npz"), "--save-index", translated, "-q"]) == 0
    with np.load(translated) as npz:
        negative = npz["tf_data"].copy()
    negative[1] = -5.0
    bad = tamper(translated, tmp_path / "bad.npz", tf_data=negative)
    search = ["psq", "--index", str(bad), "--queries", str(tmp_path / "q.tsv"), "-o", str(tmp_path / "run")]
    assert main([*search, "--mmap", "--scoring", "lm", "-q"]) == 2
    one_line_error(capsys, f"{bad}: corrupt projected-index: tf_data of row 1 has a value that is not > 0")
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------ L4. stopword lists from Python

STOPWORD_LISTS = [
    ("target_stopwords", [1], "expected words (str), got 1"),
    ("target_stopwords", ["de la"], "'de la' holds a space: a stopword is one token"),
    ("target_stopwords", [], 'an empty list: list the words, or give "none" for no list'),
    ("source_stopwords", [1], "expected words (str), got 1"),
    ("source_stopwords", ["  "], "'  ' is empty: a stopword is one token"),
]


@pytest.mark.parametrize("kind", ["DT", "PSQ", "QueryPSQ", "DocPSQ"])
@pytest.mark.parametrize("key, words, problem", STOPWORD_LISTS)
def test_a_stopword_list_from_python_is_refused_by_check_params_as_an_experiment_file_refuses_it(
    kind, key, words, problem
):
    # PSQ(target_stopwords=[1]) was a TypeError traceback deep in fit; source_stopwords=[1] said "stopwords: ..."
    import clirkit.systems

    cls = getattr(clirkit.systems, kind)
    if key not in cls().get_params(deep=False):
        pytest.skip(f"{kind} has no {key}")
    with pytest.raises(ClirkitError, match=f"^{re.escape(key)}: {re.escape(problem)}$"):
        cls(**{key: words}).check_params()


# ------------------------------------------------------------------ L5. make_tuples' min_grade


@pytest.mark.parametrize("min_grade", [0, -1, 1.5])
def test_make_tuples_refuses_a_min_grade_the_ranker_refuses_with_the_same_constraint(min_grade):
    from clirkit.boost import BoostRanker
    from clirkit.boost.tuples import make_tuples
    from clirkit.run import Qrels

    allowed = "must be an int in the range [1, inf) (unjudged documents have grade 0)"
    with pytest.raises(ClirkitError, match=re.escape(f"The 'min_grade' parameter of make_tuples {allowed}")):
        make_tuples(Qrels(["q1"], ["d1"], [1]), ["q1"], ["d1", "d2"], min_grade=min_grade)
    with pytest.raises(ClirkitError, match=re.escape(f"The 'min_grade' parameter of BoostRanker {allowed}")):
        BoostRanker.from_flat(min_grade=min_grade).check_params()


# ------------------------------------------------------------------ L6. search --source-lang, queries on stdin


@pytest.mark.parametrize(
    "given, refused",
    [
        ("q1\thouse\n", True),
        ('{"qid": "q1", "text": "house"}\n', True),
        ("<top>\n<num> 1\n<EN-title> house\n<ES-title> casa\n</top>\n", False),
    ],
    ids=["tsv", "jsonl", "clef"],
)
def test_search_source_lang_over_standard_input_is_checked_as_over_a_file(
    tmp_path, capsys, monkeypatch, given, refused
):
    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    index = str(tmp_path / "idx.npz")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", index, "--lang", "en", "-q"]) == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(given.encode()), encoding="utf-8"))
    status = main(["search", "--index", index, "--queries", "-", "--source-lang", "en", "-o", "-", "-q"])
    if refused:
        assert status == 2
        said = one_line_error(capsys, "--source-lang chooses the version of topics given in several languages (")
        assert "; <stdin> holds queries in one language, searched as the index analyzes text: drop" in said
    else:
        assert status == 0 and capsys.readouterr().out.startswith("1 Q0 d1 1 ")


# ------------------------------------------------------------------ L7. Borda beyond 2**53


def test_a_borda_count_deeper_than_2_to_the_53_is_refused_before_any_work(tmp_path, capsys):
    from clirkit.fusion import borda
    from clirkit.run import Run
    from clirkit.systems import Fusion

    a = Run(["q"] * 3, ["d1", "d2", "d3"], [3.0, 2.0, 1.0])
    b = Run(["q"] * 3, ["d3", "d2", "d1"], [3.0, 2.0, 1.0])
    problem = "a Borda count's depth must be at most 2**53 = 9007199254740992 (its points K - rank + 1 are float64"
    assert borda([a], depth=2**53).scores.tolist() == [2.0**53, 2.0**53 - 1, 2.0**53 - 2]  # one list: exact
    with pytest.raises(ClirkitError, match=re.escape(problem)):
        borda([a, b], depth=2**53 + 1)
    with pytest.raises(ClirkitError, match=re.escape(problem)):  # before the systems search (here, none)
        Fusion([], method="borda").search({"q": "x"}, depth=2**60)
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\n", encoding="utf-8")
    runs = [str(tmp_path / "a.run"), str(tmp_path / "missing.run")]  # refused before any run is read
    out = tmp_path / "f.run"
    assert main(["aggregate", *runs, "--method", "borda", "--depth", str(2**53 + 1), "-o", str(out), "-q"]) == 2
    one_line_error(capsys, problem)
    assert not out.exists()


# ------------------------------------------------------------------ L8. a table of terms, full-width


@pytest.mark.parametrize("gdp, pib", [("ＧＤＰ", "pib"), ("gdp", "ＰＩＢ"), ("GDP", "PIB")])
def test_a_table_read_as_the_terms_it_holds_meets_them_normalized_as_tokens(tmp_path, capsys, gdp, pib):
    # a Moses table of 100 words or more whose words are their own stems is read as the terms it holds, as written:
    # a full-width (or upper-case) word in it met no query word and no index term
    many = range(150)
    docs = "".join(f"d{i}\tw{i:03d} casa\n" for i in many) + "dp\tpib crece\n"
    (tmp_path / "docs.tsv").write_text(docs, encoding="utf-8")
    table = "".join(f"w{i:03d} x{i:03d} 1.0\n" for i in many) + f"{pib} {gdp} 1.0\n"
    (tmp_path / "lex.f2e").write_text(table, encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tgdp\nq2\tx001\n", encoding="utf-8")
    index = str(tmp_path / "idx.npz")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", index, "--lang", "es", "-q"]) == 0
    psq = ["psq", "--index", index, "--queries", str(tmp_path / "q.tsv"), "--table", str(tmp_path / "lex.f2e")]
    assert main([*psq, "--source-lang", "en", "--translate", "queries", "-o", "-", "-q"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("q1 Q0 dp 1 ")
