"""Issue 40, edge round 13 (13A-3): a text format named for an npz table (dt and psq's --table-format, ttable's
--format, load_table's format, an experiment's table_format or [table] format) was ignored, the file read as npz and
an experiment's run recording the format named; now refused in one line, as an npz format named for a text file
is. With --table2 (or a system's table2) the format names the other table's, and the npz is read as npz."""

from __future__ import annotations

import pytest
from test_edges_experiment import _refused

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment
from clirkit.translation import load_table, save_table


@pytest.fixture
def folder(tmp_path):
    """A Spanish index, English queries, an en-es npz table and the same pairs as a dictionary file."""
    (tmp_path / "docs.tsv").write_text("d1\tla casa blanca\nd2\tel perro negro\n", encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q"]) == 0
    (tmp_path / "q.tsv").write_text("q1\thouse\nq2\tdog\n", encoding="utf-8")
    (tmp_path / "en-es.txt").write_text("house casa\ndog perro\n", encoding="utf-8")
    save_table(load_table(tmp_path / "en-es.txt", "pairs", source_lang="en", target_lang="es"), tmp_path / "t.npz")
    return tmp_path


def _search(folder, verb, *more):
    args = [verb, "--index", str(folder / "ix.npz"), "--queries", str(folder / "q.tsv"), "--table", "t.npz"]
    return main([*args, *more, "-o", str(folder / "out.run"), "-q"])


@pytest.mark.parametrize("verb", ["dt", "psq"])
@pytest.mark.parametrize("fmt, shown", [("muse", "MUSE"), ("ding", "Ding"), ("psq-json", "PSQ json")])
def test_a_text_format_named_for_an_npz_table_is_refused(folder, capsys, monkeypatch, verb, fmt, shown):
    monkeypatch.chdir(folder)
    assert _search(folder, verb, "--table-format", fmt) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: t.npz: the file is an npz table, not {shown} (--table-format {fmt}): leave --table-format "
        "out, or give npz\n"
    )
    assert not (folder / "out.run").exists()


@pytest.mark.parametrize("verb", ["dt", "psq"])
def test_npz_or_auto_named_for_an_npz_table_reads_it(folder, monkeypatch, verb):
    monkeypatch.chdir(folder)
    runs = [
        (_search(folder, verb, *more), (folder / "out.run").read_text()) for more in ([], ["--table-format", "npz"])
    ]
    assert runs[0] == runs[1] and runs[0][0] == 0


def test_the_format_of_a_second_table_beside_an_npz_is_taken(folder, monkeypatch):
    monkeypatch.chdir(folder)
    more = ["--table2", "en-es.txt", "--translate", "queries", "--source-lang", "en"]
    assert _search(folder, "psq", *more, "--table-format", "pairs") == 0


@pytest.mark.parametrize("action, more", [("convert", ["-o", "c.npz"]), ("show", ["house"])])
def test_ttable_refuses_a_text_format_named_for_an_npz_table(folder, capsys, monkeypatch, action, more):
    monkeypatch.chdir(folder)
    assert main(["ttable", action, "t.npz", "--format", "ding", *more, "-q"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "clirkit: error: t.npz: the file is an npz table, not Ding (--format ding): leave --format out, or give npz\n"
    )
    assert not (folder / "c.npz").exists()


def test_load_table_refuses_a_text_format_named_for_an_npz_table(folder):
    with pytest.raises(ClirkitError, match=r"t.npz: the file is an npz table, not Moses \(format moses\)"):
        load_table(folder / "t.npz", "moses")
    assert load_table(folder / "t.npz", "npz").n_source == 2


_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n{top}[systems.DT]\nkind = "dt"\n{more}'


@pytest.mark.parametrize(
    "top, more, key",
    [
        ('[table]\nfile = "t.npz"\n', 'table_format = "muse"\n', "table_format muse"),
        ('[table]\nfile = "t.npz"\nformat = "muse"\n', "", "[table] format muse"),
        ("", 'table = "t.npz"\ntable_format = "muse"\n', "table_format muse"),
    ],
)
def test_an_experiment_refuses_a_text_format_named_for_an_npz_table(mini, folder, capsys, top, more, key):
    option = key.rsplit(" ", 1)[0]
    _refused(
        folder,
        capsys,
        _ONE.format(mini=mini, top=top, more=more),
        f"system 'DT': {folder / 't.npz'}: the file is an npz table, not MUSE ({key}): leave {option} out, or give npz",
    )


def test_an_experiment_takes_the_format_of_a_second_table_beside_an_npz(mini, folder):
    more = 'table = "t.npz"\ntable2 = "en-es.txt"\ntable_format = "pairs"\n'
    text = _ONE.format(mini=mini, top="", more=more).replace('kind = "dt"', 'kind = "psq"\ntranslate = "queries"')
    (folder / "x.toml").write_text(text, encoding="utf-8")
    assert Experiment.read(folder / "x.toml").systems["DT"]["table_format"] == "pairs"
