"""The command line at its edges (independent testing, round 5): an experiment file's ``lam`` written without
``table2`` is refused even at its default (0.5); a TOML boolean given to a system's number (``max_buckets = true``,
``rounds = true``) is refused, not read as 1; ``clirkit collection --split`` names the splits it takes; the
``gettext-en-XX`` builder says in one line that its output folder cannot be made."""

from __future__ import annotations

import pytest
from test_edges_experiment import _refused

from clirkit.cli import main
from clirkit.experiment import Experiment

LAM = "lam (--lambda): the weight of a second table (table2, --table2), and there is none"


@pytest.mark.parametrize("kind", ["psq", "querypsq", "docpsq"])
@pytest.mark.parametrize("lam", ["0.5", "0.3"])
def test_lam_without_table2_is_refused_even_at_its_default(tmp_path, capsys, kind, lam):
    text = f'collection = "nave-en-es"\n[systems.S]\nkind = "{kind}"\nlam = {lam}\n'
    _refused(tmp_path, capsys, text, f"system 'S': {LAM}")


def test_lam_with_table2_is_read(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text('collection = "nave-en-es"\n[systems.S]\nkind = "psq"\ntable2 = "ibm1"\nlam = 0.5\n')
    assert Experiment.read(path).systems["S"]["lam"] == 0.5


@pytest.mark.parametrize(
    "kind, key, allowed",
    [
        (
            "boost",
            "max_buckets = true",
            "'max_buckets' parameter of BoostRanker must be None or an int in the range [1, inf)",
        ),
        ("boost", "rounds = true", "'rounds' parameter of BoostRanker must be an int in the range [1, inf)"),
        ("boost", "bits = false", "'bits' parameter of BoostRanker must be an int in the range [1, 32]"),
        ("psq", "k1 = true", "'k1' parameter of PSQ must be a float in the range [0.0, inf)"),
    ],
)
def test_a_toml_boolean_is_no_number_of_a_system(tmp_path, capsys, kind, key, allowed):
    value = key.split(" = ")[1].capitalize()
    text = f'collection = "nave-en-es"\n[systems.S]\nkind = "{kind}"\n{key}\n'
    _refused(tmp_path, capsys, text, f"system 'S': The {allowed}. Got {value} instead.")


def test_a_toml_boolean_is_read_where_a_system_takes_one(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text('collection = "nave-en-es"\n[systems.B]\nkind = "boost"\nbootstrap = true\nbags = 2\n')
    assert Experiment.read(path).systems["B"]["bootstrap"] is True


def test_collection_split_names_the_splits_it_takes(tmp_path, capsys):
    (tmp_path / "d.tsv").write_text("d1\tuno\nd2\tdos\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tone\nq2\ttwo\n", encoding="utf-8")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\n", encoding="utf-8")
    args = ["collection", "--documents", str(tmp_path / "d.tsv"), "--queries", str(tmp_path / "q.tsv")]
    args += ["--qrels", str(tmp_path / "qrels"), "--source-lang", "en", "--target-lang", "es", "-q"]
    assert main([*args, "--split", "foo=0.5,test=0.5", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("clirkit: error: --split must be fractions")
    assert "each split one of train, dev, test" in err and "{'foo': 0.5, 'test': 0.5}" in err
    assert not (tmp_path / "out").exists()


def test_the_reverse_gettext_builder_says_in_one_line_that_its_output_is_a_file(tmp_path, capsys):
    from clirkit.datasets import gettext_reverse

    (tmp_path / "afile").write_text("", encoding="utf-8")
    assert gettext_reverse.main(["-o", str(tmp_path / "afile"), "--languages", "th", "-q"]) == 2
    err = capsys.readouterr().err
    assert err == f"gettext_reverse: error: {tmp_path / 'afile' / 'gettext-en-th' / 'standard'}: Not a directory\n"


def _psq_files(tmp_path):
    """A Spanish index, English queries and a Spanish-English table (documents' language to the queries')."""
    (tmp_path / "docs.tsv").write_text("d1\tla casa roja\nd2\tel perro\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tred house\n", encoding="utf-8")
    (tmp_path / "t.txt").write_text("house casa 0.9\nred roja 0.8\ndog perro 1.0\n", encoding="utf-8")  # e f p
    (tmp_path / "t2.txt").write_text("home casa 0.7\nred roja 1.0\ndog perro 1.0\n", encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "es", "-o", str(tmp_path / "ix.npz"), "-q"]) == 0
    for name in ("t", "t2"):
        convert = ["ttable", "convert", str(tmp_path / f"{name}.txt"), "--format", "moses"]
        convert += ["--source-lang", "es", "--target-lang", "en", "-o", str(tmp_path / f"{name}.npz"), "-q"]
        assert main(convert) == 0
    return ["psq", "--index", str(tmp_path / "ix.npz"), "--queries", str(tmp_path / "q.tsv"), "--source-lang", "en"]


@pytest.mark.parametrize("lam", ["0.5", "0.3"])
def test_psq_lambda_without_table2_is_refused_even_at_its_default(tmp_path, capsys, lam):
    psq = _psq_files(tmp_path)
    argv = [*psq, "--table", str(tmp_path / "t.npz"), "--lambda", lam, "-o", str(tmp_path / "r.run"), "-q"]
    capsys.readouterr()
    assert main(argv) == 2
    assert capsys.readouterr().err == f"clirkit: error: {LAM}\n"
    assert not (tmp_path / "r.run").exists()


def test_psq_lambda_is_taken_with_a_second_table_or_an_index_translated_through_two(tmp_path):
    psq = _psq_files(tmp_path)
    tables = ["--table", str(tmp_path / "t.npz"), "--table2", str(tmp_path / "t2.npz"), "--lambda", "0.5"]
    assert main([*psq, *tables, "-o", str(tmp_path / "a.run"), "--save-index", str(tmp_path / "tx.npz"), "-q"]) == 0
    again = ["psq", "--index", str(tmp_path / "tx.npz"), "--queries", str(tmp_path / "q.tsv"), "--lambda", "0.5"]
    assert main([*again, "--source-lang", "en", "-o", str(tmp_path / "b.run"), "-q"]) == 0
    assert (tmp_path / "a.run").read_bytes() == (tmp_path / "b.run").read_bytes()


def test_a_ctrl_c_after_psq_saved_its_translated_index_says_the_index_is_kept(tmp_path, monkeypatch, capsys):
    import clirkit.cli.indexes as indexes

    psq = _psq_files(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(indexes, "search_and_write", interrupted)
    argv = [*psq, "--table", str(tmp_path / "t.npz"), "-o", str(tmp_path / "r.run")]
    capsys.readouterr()
    assert main([*argv, "--save-index", str(tmp_path / "tx.npz"), "-q"]) == 130
    said = f"clirkit: interrupted; the translated index {tmp_path / 'tx.npz'} is written and whole; the run is not\n"
    assert capsys.readouterr().err == said
    assert (tmp_path / "tx.npz").exists() and not (tmp_path / "r.run").exists()
    assert main([*argv, "-q"]) == 130  # the next command in this process: no note of the earlier one
    assert capsys.readouterr().err == "clirkit: interrupted\n"


def test_a_dictionary_without_languages_is_refused_before_any_report_of_it(tmp_path, capsys):
    (tmp_path / "q.tsv").write_text("q1\tred house\nq2\tdogs\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["ttable", "convert", str(tmp_path / "q.tsv"), "-o", str(tmp_path / "qq.npz")]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"clirkit: error: {tmp_path / 'q.tsv'}: a dictionary whose languages") and err.count("\n") == 1
    )
    assert not (tmp_path / "qq.npz").exists()


def test_ttable_train_to_moses_text_says_the_analysis_is_not_kept(tmp_path, capsys):
    # a text table records no analysis: psq and dt then match its stems as written, and queries miss them silently
    (tmp_path / "p.en").write_text("the houses are red\nthe dog runs\n", encoding="utf-8")
    (tmp_path / "p.es").write_text("las casas son rojas\nel perro corre\n", encoding="utf-8")
    train = ["ttable", "train", "--source", str(tmp_path / "p.en"), "--target", str(tmp_path / "p.es")]
    train += ["--source-lang", "en", "--target-lang", "es"]
    capsys.readouterr()
    assert main([*train, "-o", str(tmp_path / "en-es.lex.gz")]) == 0
    assert "languages and analysis (dt and psq read its words by how they meet the index" in capsys.readouterr().err
    assert main([*train, "-o", str(tmp_path / "en-es.npz")]) == 0
    assert "analysis" not in capsys.readouterr().err
