"""An experiment's ``kind = "psq"`` with a table file from the documents' language translates the documents, as
``clirkit psq --table FILE`` does (an independent edge test, round 6: the experiment refused it, so the command
line and the experiment file disagreed), and gives the command's run."""

from __future__ import annotations

from test_experiment import _queries_file, kept_run

from clirkit import datasets
from clirkit.cli import main
from clirkit.experiment import Experiment, run_experiment


def _reverse_table(mini, tmp_path, name: str):
    """The slice's documents indexed (ix.npz), its test queries (test.tsv) and a table from its documents' language
    into its queries' trained on its parallel text, written as ``name`` (.npz or Moses text): the queries' path and
    the table's."""
    c = datasets.load(str(mini))
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in zip(*c.documents())), encoding="utf-8")
    (tmp_path / "en.txt").write_text("\n".join(c.parallel()[0]) + "\n", encoding="utf-8")
    (tmp_path / "es.txt").write_text("\n".join(c.parallel()[1]) + "\n", encoding="utf-8")
    table = tmp_path / name
    train = ["ttable", "train", "--source", str(tmp_path / "es.txt"), "--target", str(tmp_path / "en.txt")]
    assert main([*train, "--source-lang", "es", "--target-lang", "en", "-o", str(table), "-q"]) == 0
    assert main(["index", str(docs), "--lang", "es", "-o", str(tmp_path / "ix.npz"), "-q"]) == 0
    return _queries_file(tmp_path / "test.tsv", c.queries("test")), table


def _experiment_run(mini, tmp_path, table, table2=None) -> bytes:
    path = tmp_path / "x.toml"
    second = f'table2 = "{table2}"\n' if table2 is not None else ""
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.PSQ]\nkind = "psq"\ntable = "{table}"\n{second}',
        encoding="utf-8",
    )
    run_experiment(Experiment.read(path), tmp_path / "o", quiet=True)
    return kept_run(tmp_path / "o" / "runs" / "psq.test.run.gz")


def test_a_reverse_table_file_makes_psq_translate_the_documents_as_the_command_does(mini, tmp_path):
    q, table = _reverse_table(mini, tmp_path, "es-en.npz")
    args = ["psq", "--index", str(tmp_path / "ix.npz"), "--table", str(table), "--queries", q, "-q"]
    assert main([*args, "-o", str(tmp_path / "psq.cli.run")]) == 0
    assert (tmp_path / "psq.cli.run").read_bytes() == _experiment_run(mini, tmp_path, table)


def test_a_reverse_text_table_is_placed_by_its_words_in_an_experiment_as_on_the_command_line(mini, tmp_path, capsys):
    """(A Moses text file says nothing of its languages: the runner labelled it with the collection's, so kind =
    "psq" translated the queries with a table of the other direction, AP .0395 against the command's .2893.)"""
    q, table = _reverse_table(mini, tmp_path, "es-en.lex.gz")
    args = ["psq", "--index", str(tmp_path / "ix.npz"), "--table", str(table), "--queries", q, "-q"]
    assert main([*args, "--source-lang", "en", "-o", str(tmp_path / "psq.cli.run")]) == 0
    assert (tmp_path / "psq.cli.run").read_bytes() == _experiment_run(mini, tmp_path, table)
    path = tmp_path / "dt.toml"
    path.write_text(f'collection = "{mini}"\n[systems.DT]\nkind = "dt"\ntable = "{table}"\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["run", str(path), "-o", str(tmp_path / "o2"), "-q"]) == 2
    assert "translates from the documents' language" in capsys.readouterr().err


def test_two_reverse_table_files_make_psq_translate_the_documents_as_the_command_does(mini, tmp_path):
    """(Round 8, finding 8: kind = "psq" refused a table2 from the documents' language, which clirkit psq
    --table2 interpolates while translating the documents.)"""
    q, table = _reverse_table(mini, tmp_path, "es-en.npz")
    train = ["ttable", "train", "--source", str(tmp_path / "es.txt"), "--target", str(tmp_path / "en.txt")]
    table2 = tmp_path / "es-en.i2.npz"
    assert (
        main([*train, "--source-lang", "es", "--target-lang", "en", "--iterations", "2", "-o", str(table2), "-q"]) == 0
    )
    args = ["psq", "--index", str(tmp_path / "ix.npz"), "--table", str(table), "--table2", str(table2), "--queries", q]
    assert main([*args, "-o", str(tmp_path / "psq.cli.run"), "-q"]) == 0
    assert (tmp_path / "psq.cli.run").read_bytes() == _experiment_run(mini, tmp_path, table, table2)


def test_a_second_table_that_does_not_fit_is_named_as_table2_in_an_experiment(mini, tmp_path, capsys):
    """(A re-check of round 8, N4: an experiment named a bad table2 "table", or not at all.)"""
    _, reverse = _reverse_table(mini, tmp_path, "es-en.lex.gz")
    train = ["ttable", "train", "--source", str(tmp_path / "en.txt"), "--target", str(tmp_path / "es.txt")]
    assert main([*train, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "en-es.npz"), "-q"]) == 0
    cyrillic = str.maketrans("abcdefghijklmnopqrstuvwxyz", "абцдефгхийклмнопярстуввхыз")
    words = "the light of waters dog black house sea".split()
    other = tmp_path / "other.lex"
    other.write_text("".join(f"{w.translate(cyrillic)} {w} 0.5\n" for w in words), encoding="utf-8")
    for second in (reverse, other):
        path = tmp_path / "x.toml"
        systems = f'[systems.X]\nkind = "querypsq"\ntable = "{tmp_path / "en-es.npz"}"\ntable2 = "{second}"\n'
        path.write_text(f'collection = "{mini}"\nmeasures = ["AP"]\n{systems}', encoding="utf-8")
        capsys.readouterr()
        assert main(["run", str(path), "-o", str(tmp_path / "o"), "-q"]) == 2
        err = capsys.readouterr().err
        assert f"system 'X': table2 {second}: " in err and err.count("\n") == 1, err


def test_ibm1_and_a_table2_from_the_documents_language_translate_the_documents(mini, tmp_path, capsys):
    """``kind = "psq"`` given no table file (IBM Model 1, trained both ways) and a ``table2`` from the documents'
    language translates the documents through both, as ``kind = "docpsq"`` with that table2 does (edge test 9,
    finding 6: it was refused, the message suggesting docpsq with the file instead of IBM Model 1); with
    ``translate = "queries"`` the refusal says how to read it."""
    _, table2 = _reverse_table(mini, tmp_path, "es-en.npz")

    def ran(system: str) -> bytes:
        path = tmp_path / "x.toml"
        path.write_text(
            f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.PSQ]\n{system}\ntable2 = "{table2}"\n',
            encoding="utf-8",
        )
        run_experiment(Experiment.read(path), tmp_path / "o", quiet=True)
        return kept_run(tmp_path / "o" / "runs" / "psq.test.run.gz")

    documents = ran('kind = "docpsq"')
    assert ran('kind = "psq"') == documents
    assert ran('kind = "psq"\ntable = "ibm1"') == documents
    path = tmp_path / "q.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.PSQ]\nkind = "psq"\ntranslate = "queries"\n'
        f'table2 = "{table2}"\n',
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["run", str(path), "-o", str(tmp_path / "q"), "-q"]) == 2
    assert capsys.readouterr().err.endswith(
        'this system reads a table from en into es (kind = "docpsq" reads it as the second table of IBM Model 1 '
        "trained the other way)\n"
    )
