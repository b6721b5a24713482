"""PSQ: structured queries from (interpolated, pruned) tables, scored by BM25 with fractional tf/df."""

from __future__ import annotations

import math

import numpy as np
import pytest

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.dt import dt_queries
from clirkit.estimator import Resources
from clirkit.psq import prepare_table, psq_queries
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.index import Index
from clirkit.translation import TranslationTable, save_table

# English -> Spanish p(e|f); "lumbre" does not occur in the Genesis slice of the collection
TABLE = TranslationTable.from_triples(
    ["light", "light", "light", "god", "god", "the", "the"],
    ["luz", "lumbre", "la", "dios", "de", "la", "las"],
    [0.5, 0.25, 0.25, 0.9, 0.1, 0.5, 0.5],
)
ONE_TO_ONE = TranslationTable.from_triples(
    ["god", "light", "darkness", "waters", "the", "and"], ["dios", "luz", "tinieblas", "aguas", "la", "y"], [1.0] * 6
)


def row(sq, i, index):
    t = sq.translations[i]
    return {str(index.terms[c]): v for c, v in zip(t.indices, t.data)}


def test_rows_hold_in_vocabulary_options_with_their_mass_kept(index):
    sq = psq_queries(["q"], [["light", "god", "light"]], prepare_table(TABLE), index.vocabulary)
    assert sq.source_terms == ["light", "god"] and sq.source_weight.tolist() == [2.0, 1.0]
    # light: luz .5, la .25, lumbre .25 all kept (.5, .75 < .95); lumbre is not in the index
    assert row(sq, 0, index) == pytest.approx({"luz": 0.5, "la": 0.25})
    # god: dios .9 then de .1 crosses .95
    assert row(sq, 1, index) == pytest.approx({"dios": 0.9, "de": 0.1})


def test_renormalize_in_vocabulary_rescales_the_remaining_options(index):
    sq = psq_queries(["q"], [["light"]], prepare_table(TABLE), index.vocabulary, renormalize_in_vocabulary=True)
    assert row(sq, 0, index) == pytest.approx({"luz": 0.5 / 0.75, "la": 0.25 / 0.75})


def test_terms_unknown_to_the_table_pass_through_or_are_dropped(index):
    sq = psq_queries(["q"], [["día", "zzz", "light"]], prepare_table(TABLE), index.vocabulary)
    assert row(sq, 0, index) == {"día": 1.0}  # passes through, found in the index
    assert row(sq, 1, index) == {}  # passes through, matches nothing
    sq = psq_queries(["q"], [["día", "light"]], prepare_table(TABLE), index.vocabulary, unknown="drop")
    assert row(sq, 0, index) == {} and row(sq, 1, index)


def test_known_term_whose_options_are_all_pruned_contributes_nothing(index):
    prepared = prepare_table(TABLE, target_stopwords=["la", "las"])
    sq = psq_queries(["q"], [["the", "light"]], prepared, index.vocabulary)
    assert row(sq, 0, index) == {}  # not passed through as "the"
    # light without "la": luz .5, lumbre .25 renormalized; lumbre is not in the index
    assert row(sq, 1, index) == pytest.approx({"luz": 0.5 / 0.75})


def test_a_query_the_target_stopwords_empty_is_translated_by_the_unfiltered_table_and_counted(index, capsys):
    prepared = prepare_table(TABLE, target_stopwords=["la", "las"])
    unfiltered = prepare_table(TABLE)
    qids, tokens = ["q1", "q2", "q3"], [["the"], ["the", "light"], ["zzz"]]
    sq = psq_queries(qids, tokens, prepared, index.vocabulary, unfiltered=unfiltered, quiet=False)
    assert "1 of 3 queries had only target stopwords among their translations" in capsys.readouterr().err
    assert row(sq, 0, index) == {"la": 0.5, "las": 0.5}  # q1: "the" with its stopwords again
    assert row(sq, 1, index) == {}  # q2 keeps an option (luz): filtered as before
    assert row(sq, 2, index) == pytest.approx({"luz": 0.5 / 0.75})
    assert row(sq, 3, index) == {}  # q3 has no option either way: not counted
    plain = psq_queries(qids, tokens, prepared, index.vocabulary)  # without the unfiltered table: emptied
    assert row(plain, 0, index) == {} and (plain.translations[1:] != sq.translations[1:]).nnz == 0
    psq_queries(qids, tokens, prepared, index.vocabulary, unfiltered=unfiltered)  # quiet by default
    assert capsys.readouterr().err == ""


def test_two_tables_are_interpolated_with_lambda_then_pruned():
    second = TranslationTable.from_triples(["light"], ["lumbre"], [1.0])
    prepared = prepare_table(TABLE, second, lam=0.6, min_prob=0.005, cumulative=0.95)
    # light: luz .3, lumbre .15 + .4 = .55, la .15 -> sorted lumbre .55, luz .3 (.85), la .15 crosses .95
    assert dict(prepared.translations("light")) == pytest.approx({"lumbre": 0.55, "luz": 0.3, "la": 0.15})
    prepared = prepare_table(TABLE, second, lam=0.6, cumulative=0.8)
    assert dict(prepared.translations("light")) == pytest.approx({"lumbre": 0.55 / 0.85, "luz": 0.3 / 0.85})


def test_psq_score_equals_the_spec_formula_by_hand(index):
    sq = psq_queries(["q"], [["light", "light"]], prepare_table(TABLE), index.vocabulary)
    scores = BM25(index, k1=1.2, b=0.75, idf="lucene").score_matrix(sq).toarray()[0]
    tf = index.tf.toarray()
    luz, la = index.vocabulary["luz"], index.vocabulary["la"]
    df = (tf > 0).sum(axis=1)
    n, avgdl = index.n_docs, index.doc_lengths.mean()
    tf_tilde = 0.5 * tf[luz] + 0.25 * tf[la]
    df_tilde = 0.5 * df[luz] + 0.25 * df[la]
    idf = math.log(1 + (n - df_tilde + 0.5) / (df_tilde + 0.5))
    k = 1.2 * (1 - 0.75 + 0.75 * index.doc_lengths / avgdl)
    expected = 2.0 * idf * tf_tilde * 2.2 / (k + tf_tilde)
    np.testing.assert_allclose(scores, expected, rtol=1e-12)


def test_psq_with_a_one_to_one_table_gives_exactly_the_dt_scores(index):
    queries = [["the", "light", "and", "the", "darkness"], ["god", "waters", "unknown"], ["light", "light", "god"]]
    qids = ["q1", "q2", "q3"]
    bm25 = BM25(index)
    psq = psq_queries(qids, queries, prepare_table(ONE_TO_ONE), index.vocabulary)
    dt = dt_queries(qids, queries, ONE_TO_ONE, index.vocabulary)
    assert np.array_equal(bm25.score_matrix(psq).toarray(), bm25.score_matrix(dt).toarray())
    a, b = bm25.search(psq), bm25.search(dt)
    assert a.qids.tolist() == b.qids.tolist() and a.docids.tolist() == b.docids.tolist()
    assert np.array_equal(a.scores, b.scores) and len(a.scores) > 0


@pytest.fixture
def cli_files(indexed_dir):
    queries = indexed_dir / "q.tsv"
    queries.write_text("q1\tthe light of God\nq2\tGod and the waters\n", encoding="utf-8")
    save_table(TABLE, indexed_dir / "t.npz")
    save_table(ONE_TO_ONE, indexed_dir / "one.e2f")
    return indexed_dir, queries


def psq_cli(tmp, queries, out, *extra):
    return main(
        [
            "psq",
            "--index",
            str(tmp / "ix.npz"),
            "--queries",
            str(queries),
            "--table",
            str(tmp / "t.npz"),
            "-o",
            str(tmp / out),
            "-q",
            *([] if "--target-stopwords-top" in extra else ["--target-stopwords-top", "0"]),  # (an option once)
            "--source-lang",
            "en",
            *extra,
        ]
    )


def test_psq_verb_is_byte_identical_across_invocations(cli_files):
    tmp, queries = cli_files
    assert psq_cli(tmp, queries, "a.run") == 0 and psq_cli(tmp, queries, "b.run") == 0
    assert (tmp / "a.run").read_bytes() == (tmp / "b.run").read_bytes()
    assert (tmp / "a.run").read_text().split("\n")[0].split()[5] == "PSQ"


def test_psq_verb_options_change_the_run(cli_files):
    tmp, queries = cli_files
    psq_cli(tmp, queries, "plain.run")
    assert psq_cli(tmp, queries, "renorm.run", "--renormalize-in-vocabulary") == 0
    assert psq_cli(tmp, queries, "two.run", "--table2", str(tmp / "one.e2f"), "--lambda", "0.5") == 0
    plain = (tmp / "plain.run").read_bytes()
    assert plain != (tmp / "renorm.run").read_bytes() and plain != (tmp / "two.run").read_bytes()


def test_psq_verb_bad_lambda_exits_2_and_writes_nothing(cli_files, capsys):
    tmp, queries = cli_files
    assert psq_cli(tmp, queries, "x.run", "--table2", str(tmp / "one.e2f"), "--lambda", "1.5") == 2
    assert (
        "--lambda (PSQ's lam) must be a float in the range [0.0, 1.0]. Got 1.5" in capsys.readouterr().err
        and not (tmp / "x.run").exists()
    )


def test_target_stopwords_top_n_equals_a_stopword_file_of_the_most_frequent_index_terms(cli_files):
    from clirkit.retrieval.index import Index, most_frequent_terms

    tmp, queries = cli_files
    top = most_frequent_terms(Index.load(tmp / "ix.npz"), 3)
    assert "la" in top  # so the option la of "light"/"the" is dropped
    (tmp / "stop.txt").write_text("\n".join(top) + "\n", encoding="utf-8")
    assert psq_cli(tmp, queries, "top.run", "--target-stopwords-top", "3") == 0
    assert psq_cli(tmp, queries, "file.run", "--target-stopwords", str(tmp / "stop.txt")) == 0
    psq_cli(tmp, queries, "plain.run")
    assert (tmp / "top.run").read_bytes() == (tmp / "file.run").read_bytes() != (tmp / "plain.run").read_bytes()


def _merged_index(verses, merge):
    """The conftest verses indexed with the words of ``merge`` replaced by one token: Pirkola's oracle."""
    analyzer = Analyzer("es", stemmer=None)  # as the conftest index
    docids = sorted(verses)
    tokens = [["SYN" if t in merge else t for t in analyzer.tokenize(verses[d])] for d in docids]
    return Index.from_tokens(docids, tokens, analyzer)


def test_pirkola_mode_scores_translations_as_one_synonym_set(index, verses_es):
    from clirkit.retrieval.bm25 import BM25
    from clirkit.retrieval.query import StructuredQueries

    table = TranslationTable.from_triples(["light", "light"], ["luz", "tinieblas"], [0.9, 0.1])
    pirkola = psq_queries(["q"], [["light"]], table, index.vocabulary, mode="pirkola")
    assert pirkola.df_union and pirkola.translations.data.tolist() == [1.0, 1.0]
    got = BM25(index).search(pirkola)
    merged = _merged_index(verses_es, {"luz", "tinieblas"})
    expected = BM25(merged).search(StructuredQueries.from_tokens(["q"], [["SYN"]], merged.vocabulary))
    assert got.docids.tolist() == expected.docids.tolist()
    np.testing.assert_allclose(got.scores, expected.scores, rtol=1e-12)


def test_all_mode_is_every_translation_as_its_own_query_term(index):
    from clirkit.retrieval.bm25 import BM25
    from clirkit.retrieval.query import StructuredQueries

    table = TranslationTable.from_triples(["light", "light", "god"], ["luz", "tinieblas", "dios"], [0.9, 0.1, 1.0])
    every = psq_queries(["q"], [["light", "god", "light"]], table, index.vocabulary, mode="all")
    assert every.is_one_to_one() and every.source_weight.tolist() == [2.0, 2.0, 1.0]
    expected = StructuredQueries.from_tokens(
        ["q"], [["luz", "tinieblas", "dios", "luz", "tinieblas"]], index.vocabulary
    )
    a, b = BM25(index).search(every), BM25(index).search(expected)
    assert a.docids.tolist() == b.docids.tolist() and np.array_equal(a.scores, b.scores)


def test_psq_verb_mode_gives_the_systems_run(cli_files, index, tmp_path):
    from clirkit.formats import write_run
    from clirkit.systems import PSQ

    tmp, queries = cli_files
    for mode in ("pirkola", "all"):
        assert psq_cli(tmp, queries, f"{mode}.run", "--mode", mode, "--cumulative", "1", "--min-prob", "0") == 0
        psq = PSQ(mode=mode, cumulative=1.0, min_prob=0.0, target_stopwords_top=0, source_lang="en")
        topics = dict(line.split("\t") for line in queries.read_text(encoding="utf-8").splitlines())
        write_run(
            psq.fit(Resources(index=Index.load(tmp / "ix.npz"), table=TABLE)).search(topics),
            tmp_path / f"{mode}.api.run",
        )
        assert (tmp / f"{mode}.run").read_bytes() == (tmp_path / f"{mode}.api.run").read_bytes()
