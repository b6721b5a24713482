"""DT: 1-best word translation from a table, MT-translated query files, and the `dt` verb."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.dt import dt_queries, translate_tokens, translated_queries
from clirkit.formats import read_run
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.query import StructuredQueries
from clirkit.translation import NULL, TranslationTable, save_table

# English -> Spanish, p(e|f) with f English
TABLE = TranslationTable.from_triples(
    ["god", "god", "light", "light", "light", "waters", "the", "the", NULL, "darkness"],
    ["dios", "de", "luz", "lumbre", "la", "aguas", "la", "las", "y", "tinieblas"],
    [0.9, 0.1, 0.5, 0.25, 0.25, 1.0, 0.5, 0.5, 1.0, 1.0],
)


def test_each_token_becomes_its_most_probable_translation_unranked_ties_alphabetical():
    out = translate_tokens(TABLE, [["god", "light", "the", "god"]])
    assert out == [["dios", "luz", "la", "dios"]]  # "the": la .5 / las .5 -> la


# ties: light (p 1/3 each) ranked luz, lumbre, claridad; darkness ranked oscuridad (not in the verses),
# tinieblas; god unranked over deidad (not in the verses), dios (in 9 verses), verbo (in 1)
TIES = TranslationTable.from_triples(
    ["light", "light", "light", "darkness", "darkness", "god", "god", "god", "waters"],
    ["luz", "lumbre", "claridad", "oscuridad", "tinieblas", "deidad", "dios", "verbo", "aguas"],
    [1 / 3, 1 / 3, 1 / 3, 0.5, 0.5, 1 / 3, 1 / 3, 1 / 3, 1.0],
    ranks=[1, 2, 3, 1, 2, 0, 0, 0, 0],
)


def test_tied_translations_follow_probability_rank_collection_frequency_then_word(index):
    # 1. p first (TABLE: god -> dios .9 over de .1); 2. the dictionary rank, even over an absent word
    assert translate_tokens(TIES, [["light", "darkness"]]) == [["luz", "oscuridad"]]
    assert translate_tokens(TIES, [["light", "darkness"]], vocabulary=index.vocabulary) == [["luz", "oscuridad"]]
    # 3. unranked ties: a word of the collection before an absent one, then the rarest (by df here)
    df = dict(zip(index.terms.tolist(), index.df.tolist()))
    assert (df["dios"], df["verbo"], "deidad" in df) == (9, 1, False)
    assert translate_tokens(TIES, [["god"]], vocabulary=index.vocabulary) == [["dios"]]
    assert translate_tokens(TIES, [["god"]], vocabulary=index.vocabulary, frequency=index.df) == [["verbo"]]
    # 4. nothing else known: the alphabetically first
    assert translate_tokens(TIES, [["god"]]) == [["deidad"]]
    sq = dt_queries(["q"], [["god", "light"]], TIES, index.vocabulary, frequency=index.df)
    assert sq.source_terms == ["verbo", "luz"]
    assert dt_queries(["q"], [["god"]], TIES, index.vocabulary).source_terms == ["dios"]
    with pytest.raises(ValueError, match="give the vocabulary"):
        translate_tokens(TIES, [["god"]], frequency=index.df)


def test_dt_with_a_dictionary_takes_its_first_translation_never_the_alphabetical(tmp_path):
    # a hand-made English -> Spanish dictionary whose alphabetically first translations are listed last
    (tmp_path / "en-es.txt").write_text(
        "light\tluz\nlight\tlumbre\nlight\tclaridad\ngod\tdios\ngod\tdeidad\n", encoding="utf-8"
    )
    from clirkit.translation import load_table

    table = load_table(tmp_path / "en-es.txt", "pairs", stemmer=None)  # whole words: the order is tested
    assert table.translations("light") == [("luz", 1 / 3), ("lumbre", 1 / 3), ("claridad", 1 / 3)]
    assert translate_tokens(table, [["light", "god"]]) == [["luz", "dios"]]


def test_unknown_tokens_and_null_pass_through_unchanged():
    assert translate_tokens(TABLE, [["moses", "light", NULL, "1909"]]) == [["moses", "luz", NULL, "1909"]]
    with pytest.raises(TypeError):
        translate_tokens(TABLE, ["god light"])


def test_dt_queries_are_monolingual_queries_of_the_translation(index):
    sq = dt_queries(["q1"], [["god", "light", "god", "darkness"]], TABLE, index.vocabulary)
    expected = StructuredQueries.from_tokens(["q1"], [["dios", "luz", "dios", "tinieblas"]], index.vocabulary)
    assert sq.source_terms == expected.source_terms == ["dios", "luz", "tinieblas"]
    assert sq.source_weight.tolist() == [2.0, 1.0, 1.0]
    assert (sq.translations != expected.translations).nnz == 0
    assert sq.is_one_to_one()


def test_translated_file_queries_use_the_target_analyzer(index):
    sq = translated_queries({"q1": "La LUZ de Dios", "q2": "Moisés"}, index.analyzer, index.vocabulary)
    assert sq.qids == ["q1", "q2"]
    assert sq.source_terms == ["la", "luz", "de", "dios", "moisés"]
    assert sq.translations[4].nnz == 0  # not in the collection: matches nothing


def test_dt_run_equals_bm25_of_the_hand_translated_query(index):
    bm25 = BM25(index)
    ours = bm25.score_matrix(dt_queries(["q"], [["light", "darkness"]], TABLE, index.vocabulary)).toarray()
    hand = bm25.score_matrix(StructuredQueries.from_tokens(["q"], [["luz", "tinieblas"]], index.vocabulary))
    assert np.array_equal(ours, hand.toarray()) and ours.max() > 0


@pytest.fixture
def cli_files(indexed_dir):
    queries = indexed_dir / "q.tsv"
    queries.write_text("q1\tthe light of God\nq2\tGod and the waters\nq3\tunknownword\n", encoding="utf-8")
    save_table(TABLE, indexed_dir / "t.e2f")
    return indexed_dir, queries


def test_dt_verb_with_a_table_is_byte_identical_across_invocations(cli_files):
    tmp, queries = cli_files
    outs = []
    for name in ("a", "b"):
        assert (
            main(
                [
                    "dt",
                    "--index",
                    str(tmp / "ix.npz"),
                    "--queries",
                    str(queries),
                    "--table",
                    str(tmp / "t.e2f"),
                    "-o",
                    str(tmp / f"{name}.run"),
                    "-q",
                    "--source-lang",
                    "en",
                ]
            )
            == 0
        )
        outs.append((tmp / f"{name}.run").read_bytes())
    assert outs[0] == outs[1]
    assert read_run(tmp / "a.run").query_ids == ["q1", "q2"]  # q3 (unknown, not in the index) matches nothing
    assert outs[0].decode().split("\n")[0].split()[5] == "DT"


def test_dt_verb_with_translated_queries_equals_search_of_that_text(cli_files):
    tmp, queries = cli_files
    translated = tmp / "mt.tsv"
    translated.write_text("q1\tla luz de Dios\nq2\tDios y las aguas\nq3\tpalabra\n", encoding="utf-8")
    assert (
        main(
            [
                "dt",
                "--index",
                str(tmp / "ix.npz"),
                "--queries",
                str(queries),
                "--translated",
                str(translated),
                "-o",
                str(tmp / "dt.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "search",
                "--index",
                str(tmp / "ix.npz"),
                "--queries",
                str(translated),
                "-o",
                str(tmp / "mono.run"),
                "-q",
                "--tag",
                "DT",
            ]
        )
        == 0
    )
    assert (tmp / "dt.run").read_bytes() == (tmp / "mono.run").read_bytes()


def test_dt_verb_missing_translation_exits_2(cli_files, capsys):
    tmp, queries = cli_files
    translated = tmp / "mt.tsv"
    translated.write_text("q1\tla luz de Dios\n", encoding="utf-8")
    assert (
        main(
            [
                "dt",
                "--index",
                str(tmp / "ix.npz"),
                "--queries",
                str(queries),
                "--translated",
                str(translated),
                "-o",
                str(tmp / "dt.run"),
                "-q",
            ]
        )
        == 2
    )
    assert "no translation for 2 of the 3 queries" in capsys.readouterr().err
    assert not (tmp / "dt.run").exists()


def test_dt_verb_bad_table_line_exits_2_with_file_and_line(cli_files, capsys):
    tmp, queries = cli_files
    (tmp / "bad.e2f").write_text("dios god 0.9\nluz light\n", encoding="utf-8")
    assert (
        main(
            [
                "dt",
                "--index",
                str(tmp / "ix.npz"),
                "--queries",
                str(queries),
                "--table",
                str(tmp / "bad.e2f"),
                "-o",
                str(tmp / "dt.run"),
                "-q",
            ]
        )
        == 2
    )
    assert f"{tmp / 'bad.e2f'}:2: expected 3 fields" in capsys.readouterr().err


def test_dt_verb_needs_the_query_language_when_the_table_does_not_say_it(cli_files, capsys):
    tmp, queries = cli_files
    assert (
        main(
            [
                "dt",
                "--index",
                str(tmp / "ix.npz"),
                "--queries",
                str(queries),
                "--table",
                str(tmp / "t.e2f"),
                "-o",
                str(tmp / "x.run"),
                "-q",
            ]
        )
        == 2
    )
    assert "the table does not say its source language: give source_lang (--source-lang)" in capsys.readouterr().err
    assert not (tmp / "x.run").exists()
