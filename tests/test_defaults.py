"""The defaults that transfer beyond the Bible (baselines/README.md, "Defaults across collections"): Snowball
stemming everywhere text is analyzed, no corpus-frequency stoplists, no query silently emptied, and a table
whose terms are not the index's is a one-line error."""

from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.index import Index
from clirkit.retrieval.query import StructuredQueries
from clirkit.systems import DT, PSQ
from clirkit.translation import load_table, train_table

ENGLISH = {  # WEB verses beside the Reina-Valera ones of conftest.GENESIS_ES
    "Gen.1.1": "In the beginning, God created the heavens and the earth.",
    "Gen.1.3": "God said, Let there be light, and there was light.",
    "Gen.1.4": "God saw the light, and saw that it was good. God divided the light from the darkness.",
    "Gen.1.5": "God called the light Day, and the darkness he called Night. There was evening and there was "
    "morning, the first day.",
    "Gen.1.6": "God said, Let there be an expanse in the middle of the waters, and let it divide the waters "
    "from the waters.",
    "Gen.1.8": "God called the expanse sky. There was evening and there was morning, a second day.",
}


def small_table(verses_es, **analysis):
    english, spanish = Analyzer("en", **analysis), Analyzer("es", **analysis)
    ids = sorted(ENGLISH)
    return train_table(
        english.tokenize_many([ENGLISH[i] for i in ids]),
        spanish.tokenize_many([verses_es[i] for i in ids]),
        english,
        spanish,
    )


def indexed(verses_es, **analysis) -> Index:
    analyzer = Analyzer("es", **analysis)
    docids = sorted(verses_es)
    return Index.from_tokens(docids, analyzer.tokenize_many([verses_es[d] for d in docids]), analyzer)


def test_bm25_on_stemmed_tokens_equals_rank_bm25_on_the_same_tokens(verses_es):
    index = indexed(verses_es)
    docids = sorted(verses_es)
    tokens = [index.analyzer.tokenize(verses_es[d]) for d in docids]
    assert "tiniebl" in index.vocabulary and "tinieblas" not in index.vocabulary  # really stemmed
    queries = ["las tinieblas y la luz", "llamó á la expansión", "aguas separadas"]
    qtokens = [index.analyzer.tokenize(q) for q in queries]
    sq = StructuredQueries.from_tokens([f"q{i}" for i in range(len(queries))], qtokens, index.vocabulary)
    run = BM25(index, k1=1.2, b=0.75, idf="bm25okapi").search(sq, depth=len(docids))
    reference = BM25Okapi(tokens, k1=1.2, b=0.75, epsilon=0.25)
    for i, q in enumerate(qtokens):
        expected = dict(zip(docids, reference.get_scores(q).tolist()))
        got = run.scores[run.qids == f"q{i}"]
        got_docs = run.docids[run.qids == f"q{i}"]
        assert len(got_docs) > 0
        np.testing.assert_allclose(got, [expected[d] for d in got_docs], rtol=1e-9)


def test_dt_and_psq_default_to_no_corpus_stoplist():
    assert DT().source_stopwords_top == 0
    assert PSQ().source_stopwords_top == 0 and PSQ().target_stopwords_top == 0


def test_a_35_term_collection_gets_a_non_empty_psq_run(verses_es):
    small = {d: t for d, t in verses_es.items() if d in ("Gen.1.1", "Gen.1.3", "Gen.1.4", "Gen.1.5")}
    index = indexed(small)
    assert len(index.vocabulary) < 35
    table = small_table(verses_es)
    topics = {"q1": "God divided the light from the darkness", "q2": "the heavens and the earth"}
    for system in (PSQ(), DT()):
        run = system.fit(Resources(index=index, table=table)).search(topics)
        assert set(run.qids.tolist()) == {"q1", "q2"}
    # the old default (the 100 most frequent index terms dropped from PSQ's options) emptied every query; such a
    # query is searched with all its translations now (test_a_query_the_target_stoplist_empties_...)
    assert len(PSQ(target_stopwords_top=100).fit(Resources(index=index, table=table)).search(topics)) > 0


def test_a_query_the_target_stoplist_empties_is_searched_with_all_its_translations_and_counted(verses_es, capsys):
    index, table = indexed(verses_es), small_table(verses_es)
    topics = {"q1": "God divided the light from the darkness", "q2": "God", "q3": "zzz"}
    frequent = set(index.most_frequent_terms(5))
    psq = PSQ(target_stopwords_top=5).fit(Resources(index=index, table=table))
    god = dict(psq.unfiltered_.translations("god"))
    assert god and set(god) <= frequent  # every translation of "god" is one of the 5 most frequent terms
    assert not psq.table_.translations("god")
    sq = psq.structured_queries(topics, quiet=False)
    assert (
        "1 of 3 queries had only target stopwords among their translations: searched with all their "
        "translations" in capsys.readouterr().err
    )
    rows = {t: sq.translations[i] for i, t in enumerate(sq.source_terms) if sq.source_query[i] == 1}
    assert {str(index.terms[c]) for c in rows["god"].indices} == set(god)
    # q1 keeps its other words' options and none of the stoplist's; q3 (no translation at all) stays empty
    q1 = [sq.translations[i] for i in range(len(sq.source_terms)) if sq.source_query[i] == 0]
    assert not any(frequent & {str(index.terms[c]) for c in row.indices} for row in q1)
    assert set(psq.search(topics).qids.tolist()) == {"q1", "q2"}
    # the Snowball list on the options falls back the same way; quiet by default
    psq = PSQ(target_stopwords=list(god)).fit(Resources(index=index, table=table))
    assert set(psq.search({"q2": "God"}).qids.tolist()) == {"q2"} and capsys.readouterr().err == ""


def test_a_query_of_stopwords_only_is_searched_with_all_its_terms_and_counted(verses_es, capsys):
    index, table = indexed(verses_es), small_table(verses_es)
    topics = {"q1": "light and darkness", "q2": "there was the"}
    psq = PSQ(source_stopwords="snowball").fit(Resources(index=index, table=table))
    tokens = psq.query_tokens(topics, quiet=False)
    assert tokens == [["light", "dark"], ["there", "was", "the"]]
    assert "1 of 2 queries had only stopwords: searched with all their terms" in capsys.readouterr().err
    assert set(psq.search(topics).qids.tolist()) == {"q1", "q2"}
    # the corpus-derived stoplist (analyzed terms of the table's corpus) falls back the same way
    dt = DT(source_stopwords_top=3).fit(Resources(index=index, table=table))
    frequent = table.params["source_frequent"][:3]
    assert dt.query_tokens({"q": " ".join(frequent)}) == [frequent]


def test_the_source_stoplist_drops_analyzed_terms_of_the_tables_corpus(verses_es):
    index, table = indexed(verses_es), small_table(verses_es)
    frequent = set(table.params["source_frequent"][:5])
    dt = DT(source_stopwords_top=5).fit(Resources(index=index, table=table))
    [tokens] = dt.query_tokens({"q": "God called the light Day and the darkness Night"})
    assert tokens and not frequent & set(tokens)


def test_a_table_whose_terms_are_not_the_indexs_is_a_one_line_error(verses_es, tmp_path, capsys):
    from clirkit.translation import save_table

    index, table = indexed(verses_es), small_table(verses_es, stemmer=None)
    with pytest.raises(
        ClirkitError,
        match="analyzed as es, no stemming, lowercased but the index's terms as es, Snowball stems, lowercased",
    ):
        PSQ().fit(Resources(index=index, table=table))
    index.save(tmp_path / "ix.npz")
    save_table(table, tmp_path / "t.npz")
    (tmp_path / "q.tsv").write_text("q1\tlight\n", encoding="utf-8")
    code = main(
        [
            "psq",
            "--index",
            str(tmp_path / "ix.npz"),
            "--queries",
            str(tmp_path / "q.tsv"),
            "--table",
            str(tmp_path / "t.npz"),
            "-o",
            str(tmp_path / "r.run"),
            "-q",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "rebuild one of them" in err[0]
    assert not (tmp_path / "r.run").exists()
    # the same table with the index's analysis works; so does an unstemmed index
    assert len(PSQ().fit(Resources(index=index, table=small_table(verses_es))).search({"q1": "light"})) > 0
    assert len(PSQ().fit(Resources(index=indexed(verses_es, stemmer=None), table=table)).search({"q1": "light"})) > 0


def test_a_dictionarys_entries_are_analyzed_as_the_text_and_merge_by_stem(tmp_path):
    path = tmp_path / "es-en.txt"
    path.write_text("casa house\ncasas houses\ncasa home\ntinieblas darkness\n", encoding="utf-8")
    table = load_table(path, "pairs")
    assert table.params["source_analyzer"]["stemmer"] == "snowball"
    row = dict(table.translations("cas"))
    assert row == {"hous": 0.5, "home": 0.5}  # "house" and "houses" are one translation
    plain = load_table(path, "pairs", stemmer=None)
    assert dict(plain.translations("casas")) == {"houses": 1.0}


def test_the_index_verb_stems_by_default_and_not_with_stemmer_none(tmp_path, verses_es):
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in verses_es.items()), encoding="utf-8")
    assert main(["index", str(docs), "-o", str(tmp_path / "a.npz"), "--lang", "es", "-q"]) == 0
    assert (
        main(
            [
                "index",
                str(docs),
                "-o",
                str(tmp_path / "b.npz"),
                "--lang",
                "es",
                "-q",
                "--stemmer",
                "none",
                "--stopwords",
                "snowball",
            ]
        )
        == 0
    )
    stemmed, plain = Index.load(tmp_path / "a.npz"), Index.load(tmp_path / "b.npz")
    assert "tiniebl" in stemmed.vocabulary and "tinieblas" in plain.vocabulary
    assert stemmed.analyzer == Analyzer("es") and "las" not in plain.vocabulary


def test_ttable_show_looks_a_word_up_as_dt_and_psq_analyze_it(capsys):
    from pathlib import Path

    dictionary = Path(__file__).parent / "data" / "dictionaries" / "es-en.dict"
    assert main(["ttable", "show", str(dictionary), "casa", "-n", "1", "-q"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["casa -> cas\t(2 translations)", "  hous\t0.500000"]


def test_psq_prunes_options_below_a_tenth_but_never_empties_a_row():
    import scipy.sparse as sp

    from clirkit.psq import SIDE_DEFAULTS
    from clirkit.translation import TranslationTable, prune

    # row 0: IBM Model 1-like, a tail below L; row 1: a uniform dictionary word with 12 translations
    probs = sp.csr_matrix(np.array([[0.6, 0.3, 0.06, 0.04] + [0.0] * 8, [1 / 12] * 12]))
    table = TranslationTable(np.array(["f", "g"]), np.array([f"e{i:02d}" for i in range(12)]), probs, {})
    assert PSQ().min_prob == "auto" and SIDE_DEFAULTS["queries"]["min_prob"] == 0.1
    pruned = prune(table, min_prob=SIDE_DEFAULTS["queries"]["min_prob"], cumulative=None)
    assert dict(pruned.translations("f")) == pytest.approx({"e00": 2 / 3, "e01": 1 / 3})
    assert len(pruned.translations("g")) == 12  # all below L, all tied: kept


def test_psq_treats_a_dictionary_alone_as_pirkola_synonyms_and_a_learned_table_as_probabilities(verses_es, tmp_path):
    index = indexed(verses_es)
    path = tmp_path / "en-es.txt"
    path.write_text("light luz\nlight lumbrera\ndarkness tinieblas\n", encoding="utf-8")
    dictionary, learned = load_table(path, "pairs"), small_table(verses_es)
    assert PSQ().fit(Resources(index=index, table=dictionary)).mode_ == "pirkola"
    assert PSQ().fit(Resources(index=index, table=learned)).mode_ == "psq"
    assert (
        PSQ().fit(Resources(index=index, table=learned, table2=dictionary)).mode_ == "psq"
    )  # interpolated: probabilities again
    assert PSQ(mode="psq").fit(Resources(index=index, table=dictionary)).mode_ == "psq"
    topics = {"q": "light and darkness"}
    pirkola = PSQ(mode="pirkola").fit(Resources(index=index, table=dictionary)).search(topics)
    auto = PSQ().fit(Resources(index=index, table=dictionary)).search(topics)
    assert auto.docids.tolist() == pirkola.docids.tolist() and auto.scores.tolist() == pirkola.scores.tolist()


def test_dt_over_a_dictionary_alone_says_that_psq_is_the_recipe(verses_es, tmp_path, capsys):
    index = indexed(verses_es)
    path = tmp_path / "en-es.txt"
    path.write_text("light luz\nlight lumbrera\ndarkness tinieblas\n", encoding="utf-8")
    DT().fit(Resources(index=index, table=load_table(path, "pairs"), quiet=False))
    assert "over a dictionary alone PSQ" in capsys.readouterr().err
    DT().fit(Resources(index=index, table=load_table(path, "pairs")))  # quiet: nothing said
    DT().fit(Resources(index=index, table=small_table(verses_es), quiet=False))  # a learned table: nothing said
    assert capsys.readouterr().err == ""
