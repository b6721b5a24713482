"""Inputs that did nothing, or said the wrong thing (issue 40, independent testing): empty corpora and all-zero
tables refused, a stoplist that would empty the index refused, a dictionary line's empty field named, a shard given
as an index said so, and options that a command would ignore refused."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.systems import PSQ
from clirkit.translation import TranslationTable


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("clirkit: error: "), err
    return err


def test_a_corpus_of_blank_lines_and_an_all_zero_table_are_refused(tmp_path, capsys):
    (tmp_path / "a.zh").write_text("\n\n", encoding="utf-8")
    (tmp_path / "a.en").write_text("\n\n", encoding="utf-8")
    out = tmp_path / "t.npz"
    argv = ["ttable", "train", "--source", str(tmp_path / "a.zh"), "--target", str(tmp_path / "a.en")]
    assert main([*argv, "--source-lang", "zh", "--target-lang", "en", "-o", str(out), "-q"]) == 2
    assert "no line holds a word" in one_error(capsys) and not out.exists()
    (tmp_path / "lex.txt").write_text("perro dog 0\ngato cat 0\n", encoding="utf-8")
    argv = ["ttable", "convert", str(tmp_path / "lex.txt"), "--format", "moses", "--source-lang", "en"]
    assert main([*argv, "--target-lang", "es", "-o", str(out), "-q"]) == 2
    assert "no usable translations (2 entries read, every probability 0)" in one_error(capsys)


def test_a_stoplist_that_would_drop_every_term_is_refused(indexed_dir, capsys):
    out = indexed_dir / "x.npz"
    argv = ["index", str(indexed_dir / "docs.tsv"), "--lang", "es", "-o", str(out), "--stopwords-top", "100000"]
    assert main([*argv, "-q"]) == 2
    assert "would drop every term of the index" in one_error(capsys) and not out.exists()


def test_an_empty_field_of_a_dictionary_line_is_named(tmp_path, capsys):
    (tmp_path / "d.tsv").write_text("dog\tperro\n\tgato\n", encoding="utf-8")
    argv = ["ttable", "convert", str(tmp_path / "d.tsv"), "--format", "pairs", "--source-lang", "en"]
    assert main([*argv, "--target-lang", "es", "-o", str(tmp_path / "d.npz")]) == 2
    assert one_error(capsys).endswith("d.tsv:2: the source field is empty\n")


def test_a_shard_given_as_the_index_is_searched_with_a_note(indexed_dir, capsys):
    assert (
        main(
            ["index", str(indexed_dir / "docs.tsv"), "--lang", "es", "-o", str(indexed_dir / "s.npz")]
            + ["--shards", "2", "-q"]
        )
        == 0
    )
    (shard,) = indexed_dir.glob("s.shard-000.*.npz")
    (indexed_dir / "q.tsv").write_text("q1\tla luz\n", encoding="utf-8")
    argv = ["search", "--index", str(shard), "--queries", str(indexed_dir / "q.tsv"), "-o", str(indexed_dir / "r.run")]
    assert main(argv) == 0
    assert f"note: {shard} is shard 0 of {indexed_dir / 's.npz'}: searched alone" in capsys.readouterr().err


def test_dt_translated_refuses_the_query_language_options(indexed_dir, capsys):
    (indexed_dir / "q.tsv").write_text("q1\tthe light\n", encoding="utf-8")
    (indexed_dir / "t.tsv").write_text("q1\tla luz\n", encoding="utf-8")
    argv = ["dt", "--index", str(indexed_dir / "ix.npz"), "--queries", str(indexed_dir / "q.tsv")]
    argv += ["--translated", str(indexed_dir / "t.tsv"), "-o", str(indexed_dir / "r.run"), "-q"]
    assert main(argv) == 0
    assert main([*argv, "--source-stopwords", "snowball", "--decompound", "table"]) == 2
    assert "--source-stopwords, --decompound: the queries of --translated" in one_error(capsys)


REVERSE = TranslationTable.from_triples(
    ["luz", "dios"], ["light", "god"], [1.0, 1.0], params={"source_lang": "es", "target_lang": "en"}
)
FORWARD = TranslationTable.from_triples(
    ["light", "god"], ["luz", "dios"], [1.0, 1.0], params={"source_lang": "en", "target_lang": "es"}
)


@pytest.mark.parametrize(
    ("params", "table", "said"),
    [
        ({"k1": 2.0}, {"reverse_table": REVERSE}, r"k1 \(--k1\): BM25's, unused by scoring = 'lm'"),  # the LM
        ({"b": 0.3, "scoring": "lm"}, {"table": FORWARD}, r"b \(--b\): BM25's, unused by scoring = 'lm'"),
        ({"alpha": 0.3}, {"table": FORWARD}, r"alpha \(--alpha\): the language model's, unused by scoring = 'bm25'"),
        (
            {"background": "x.cnt", "scoring": "bm25"},
            {"reverse_table": REVERSE},
            r"background \(--background\): the language model's",
        ),
        ({"lam": 0.2}, {"table": FORWARD}, r"lam \(--lambda\): the weight of a second table \(table2, --table2\)"),
    ],
)
def test_psq_refuses_parameters_its_settings_leave_unused(index, params, table, said):
    given = Resources(index=index, **table)  # a table from the documents' language, or into it
    with pytest.raises(ClirkitError, match=said):
        PSQ(source_lang="en", **params).fit(given)
    PSQ(source_lang="en", **{k: v for k, v in params.items() if k == "scoring"}).fit(given)  # without: fine


def test_lam_over_an_index_translated_through_one_table_is_refused(index, tmp_path):
    from clirkit.docpsq import ProjectedIndex

    made = PSQ(source_lang="en").fit(Resources(index=index, reverse_table=REVERSE))
    made.index_.save(tmp_path / "t.npz")
    translated = ProjectedIndex.load(tmp_path / "t.npz")
    PSQ(source_lang="en").fit(Resources(index=translated))
    with pytest.raises(ClirkitError, match=r"lam \(--lambda\)"):
        PSQ(source_lang="en", lam=0.3).fit(Resources(index=translated))


def test_the_sides_own_checks_run_when_an_experiment_file_is_read(mini, tmp_path, capsys):
    from clirkit.cli import main

    base = f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n'
    for spec, said in (
        ('kind = "docpsq"\nk1 = 2.0', "system 'D': k1 (--k1): BM25's, unused by scoring = 'lm'"),
        ('kind = "querypsq"\nalpha = 0.3', "system 'D': alpha (--alpha): the language model's"),
        ('kind = "docpsq"\nbackground = "nofile.cnt"', "system 'D': background: nofile.cnt: no such file"),
        ('kind = "querypsq"\nlam = 0.3', "system 'D': lam (--lambda): the weight of a second table"),
        ('kind = "psq"\nlam = 0.3', "system 'D': lam (--lambda): the weight of a second table"),
    ):
        (tmp_path / "e.toml").write_text(base + "[systems.D]\n" + spec + "\n", encoding="utf-8")
        assert main(["run", str(tmp_path / "e.toml"), "-o", str(tmp_path / "out"), "-q"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err, err
        assert not (tmp_path / "out").exists()


def test_an_experiments_docpsq_reads_its_own_table_file_from_the_documents_language(mini, tmp_path):
    from clirkit import datasets
    from clirkit.analysis import Analyzer
    from clirkit.experiment import Experiment, run_experiment
    from clirkit.formats import read_run
    from clirkit.translation import save_table, train_table

    c = datasets.load(str(mini))
    source, target = c.parallel()
    es, en = Analyzer("es"), Analyzer("en")
    save_table(train_table(es.tokenize_many(target), en.tokenize_many(source), es, en), tmp_path / "es-en.npz")
    text = f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.trained]\nkind = "docpsq"\n'
    text += '[systems.given]\nkind = "docpsq"\ntable = "es-en.npz"\n'
    (tmp_path / "e.toml").write_text(text, encoding="utf-8")
    run_experiment(Experiment.read(tmp_path / "e.toml"), tmp_path / "out", quiet=True)

    def rows(name):
        run = read_run(str(tmp_path / "out" / "runs" / f"{name}.test.run.gz"))
        return list(zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()))

    assert rows("given") == rows("trained") and rows("given")  # the file is the table the runner trains


def test_none_names_no_stopword_list_in_python_and_experiment_files(index):
    topics = {"q1": "the light and the darkness", "q2": "god"}

    def scores(system) -> list:
        return system.search(topics).scores.tolist()

    assert scores(
        PSQ(source_lang="en", source_stopwords="none", target_stopwords="none").fit(
            Resources(index=index, table=FORWARD)
        )
    ) == (scores(PSQ(source_lang="en").fit(Resources(index=index, table=FORWARD))))
    assert scores(
        PSQ(source_lang="en", target_stopwords="none").fit(Resources(index=index, reverse_table=REVERSE))
    ) == scores(PSQ(source_lang="en").fit(Resources(index=index, reverse_table=REVERSE)))
    with pytest.raises(ClirkitError, match="source_stopwords"):
        PSQ(source_stopwords="stop.txt").fit(Resources(index=index, table=FORWARD))


def test_a_target_stopword_file_is_matched_as_the_table_analyzes_its_terms(tmp_path):
    from clirkit.cli import main
    from clirkit.translation import load_table

    (tmp_path / "d.txt").write_text("light luz\nlight lumbreras\ngod dios\n", encoding="utf-8")
    table = tmp_path / "t.npz"
    argv = ["ttable", "convert", str(tmp_path / "d.txt"), "--format", "muse", "--source-lang", "en"]
    assert main([*argv, "--target-lang", "es", "-o", str(table), "-q"]) == 0
    assert "lumbrer" in dict(load_table(str(table)).translations("light"))  # the table's stemmed term
    (tmp_path / "sw.txt").write_text("Lumbreras\n", encoding="utf-8")  # a plain word, capitalized
    out = tmp_path / "p.npz"
    argv = ["ttable", "prune", str(table), "--min-prob", "0", "--target-stopwords", str(tmp_path / "sw.txt")]
    assert main([*argv, "-o", str(out), "-q"]) == 0
    assert dict(load_table(str(out)).translations("light")) and "lumbrer" not in dict(
        load_table(str(out)).translations("light")
    )


def test_psq_target_stopwords_are_matched_as_the_index_analyzes_its_terms(index):
    table = TranslationTable.from_triples(
        ["light", "light"], ["luz", "tinieblas"], [0.5, 0.5], params={"source_lang": "en", "target_lang": "es"}
    )
    psq = PSQ(source_lang="en", translate="queries", min_prob=0.0, target_stopwords=["TINIEBLAS"]).fit(
        Resources(index=index, table=table)
    )
    assert [e for e, _ in psq.table_.translations("light")] == ["luz"]


def test_an_experiments_table_file_that_translates_the_other_way_stops_before_anything_runs(mini, tmp_path, capsys):
    from clirkit import datasets
    from clirkit.analysis import Analyzer
    from clirkit.cli import main
    from clirkit.translation import save_table, train_table

    c = datasets.load(str(mini))
    source, target = c.parallel()
    en, es = Analyzer("en"), Analyzer("es")
    save_table(train_table(en.tokenize_many(source), es.tokenize_many(target), en, es), tmp_path / "en-es.npz")
    save_table(train_table(es.tokenize_many(target), en.tokenize_many(source), es, en), tmp_path / "es-en.npz")
    base = f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n[systems.Q]\n'
    for spec, said in (
        (
            'kind = "querypsq"\ntable = "es-en.npz"',
            "system 'Q': table es-en.npz: translates es -> en; this system reads a table from en into es",
        ),
        (
            'kind = "docpsq"\ntable = "en-es.npz"',
            "system 'Q': table en-es.npz: translates en -> es; this system reads a table from es into en",
        ),
    ):
        (tmp_path / "e.toml").write_text(base + spec + "\n", encoding="utf-8")
        assert main(["run", str(tmp_path / "e.toml"), "-o", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert said in err and "searching" not in err, err  # before DT searched anything
        assert not (tmp_path / "out").exists() and not (tmp_path / ".out.partial").exists()
