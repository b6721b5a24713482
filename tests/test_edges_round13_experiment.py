"""Issue 40, edge round 13 (13A): keys of an experiment file that the rest of the file leaves without effect, refused
when the file is read, as their siblings already were; what a run stopped by an error leaves, said; the dev
sample, headed as one."""

from __future__ import annotations

import pytest
from test_edges_experiment import _refused
from test_edges_runner import plain  # noqa: F401  (the fixture: two verses, two queries, a dictionary)

from clirkit.experiment import Experiment

_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n{top}[systems.DT]\nkind = "dt"\n{more}'


def _read(tmp_path, text: str) -> Experiment:
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    return Experiment.read(path)


# --------------------------------------------------------------------------- 13A-10: [table] iterations


@pytest.mark.parametrize(
    "more, why",
    [
        ('table = "dict.tsv"\n', "the table files are read"),
        ('[systems.B]\nkind = "bm25"\n', None),  # DT trains IBM Model 1: accepted
    ],
)
def test_table_iterations_are_refused_when_every_system_reads_its_own_table_file(mini, tmp_path, capsys, more, why):
    # [table] file = ... with iterations was refused; a system's own table = FILE let iterations through unused
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    text = _ONE.format(mini=mini, top="[table]\niterations = 3\n", more=more)
    if why is None:
        assert _read(tmp_path, text).table["iterations"] == 3
        return
    _refused(
        tmp_path,
        capsys,
        text,
        "[table]: iterations applies to IBM Model 1 trained on the parallel corpus, and no system trains it "
        f"({why}): remove iterations",
    )


def test_table_iterations_are_refused_when_no_system_translates_with_a_table(mini, tmp_path, capsys):
    text = f'collection = "{mini}"\nmeasures = ["AP"]\n[table]\niterations = 3\n[systems.B]\nkind = "bm25"\n'
    _refused(
        tmp_path,
        capsys,
        text,
        "[table]: iterations applies to IBM Model 1 trained on the parallel corpus, and no system trains it "
        "(no system translates with a table): remove iterations",
    )


@pytest.mark.parametrize(
    "system",
    [
        '[systems.P]\nkind = "psq"\ntable = "dict.tsv"\ntable2 = "ibm1"\n',
        '[systems.P]\nkind = "docpsq"\n',
        '[systems.P]\nkind = "psq"\n',
    ],
)
def test_table_iterations_are_accepted_when_a_system_trains_ibm1_beside_own_table_files(mini, tmp_path, system):
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    text = _ONE.format(mini=mini, top="[table]\niterations = 3\n", more='table = "dict.tsv"\n' + system)
    assert _read(tmp_path, text).table["iterations"] == 3


# --------------------------------------------------------------------------- 13A-9: a system's table_format


@pytest.mark.parametrize(
    "top, system",
    [
        ("", '[systems.P]\nkind = "psq"\ntable_format = "moses"\n'),
        ("", '[systems.P]\nkind = "psq"\ntable = "ibm1"\ntable_format = "moses"\n'),
        ('[table]\nfile = "dict.tsv"\n', '[systems.P]\nkind = "docpsq"\ntable_format = "pairs"\n'),
    ],
)
def test_a_system_table_format_is_refused_when_the_system_reads_no_table_file(mini, tmp_path, capsys, top, system):
    # [table] format without a table file was refused; a system's table_format was accepted and unused
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    _refused(
        tmp_path,
        capsys,
        _ONE.format(mini=mini, top=top, more=system),
        "system 'P': table_format applies to a table file (the system's table = FILE or table2 = FILE, or [table] "
        "file for a table of the queries), and it reads none: remove table_format",
    )


@pytest.mark.parametrize(
    "top, system",
    [
        ("", '[systems.P]\nkind = "psq"\ntable = "dict.tsv"\ntable_format = "pairs"\n'),
        ("", '[systems.P]\nkind = "docpsq"\ntable2 = "dict.tsv"\ntable_format = "pairs"\n'),
        ('[table]\nfile = "dict.tsv"\n', '[systems.P]\nkind = "psq"\ntable_format = "pairs"\n'),
        ('[table]\nfile = "dict.tsv"\n', '[systems.P]\nkind = "querypsq"\ntable_format = "pairs"\n'),
    ],
)
def test_a_system_table_format_is_accepted_when_the_system_reads_a_table_file(mini, tmp_path, top, system):
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    assert _read(tmp_path, _ONE.format(mini=mini, top=top, more=system)).systems["P"]["table_format"] == "pairs"


# --------------------------------------------------------------------------- 13A-4: psq's query-side keys


_AUTO_DOCUMENTS = (
    "system 'P': {key} applies to translating the queries, and this psq system translates the documents (through "
    'IBM Model 1, trained both ways on the parallel corpus): add translate = "queries" to translate the queries, '
    "or remove {key}"
)


@pytest.mark.parametrize(
    "system, message",
    [
        ('kind = "psq"\nmode = "pirkola"\n', _AUTO_DOCUMENTS.format(key="mode")),
        ('kind = "psq"\ntarget_stopwords_top = 3\n', _AUTO_DOCUMENTS.format(key="target_stopwords_top")),
        (
            'kind = "psq"\ntable = "ibm1"\nsource_stopwords_top = 3\n',
            _AUTO_DOCUMENTS.format(key="source_stopwords_top"),
        ),
        ('kind = "psq"\ntranslate = "auto"\nmode = "psq"\n', _AUTO_DOCUMENTS.format(key="mode")),
        (
            'kind = "psq"\ntranslate = "documents"\nmode = "psq"\n',
            "system 'P': mode applies to translating the queries, and translate = \"documents\": remove mode",
        ),
    ],
)
def test_a_psq_query_side_key_is_refused_where_the_system_translates_the_documents(
    mini, tmp_path, capsys, system, message
):
    # mode or a corpus stoplist switched kind = "psq" from the documents to the queries, said nowhere
    _refused(tmp_path, capsys, _ONE.format(mini=mini, top="", more="[systems.P]\n" + system), message)


@pytest.mark.parametrize(
    "top, system",
    [
        ("", 'kind = "psq"\ntranslate = "queries"\nmode = "pirkola"\n'),
        ("", 'kind = "psq"\ntable = "dict.tsv"\nmode = "pirkola"\n'),
        ('[table]\nfile = "dict.tsv"\n', 'kind = "psq"\nmode = "pirkola"\n'),
        ("", 'kind = "psq"\ntable2 = "dict.tsv"\nmode = "pirkola"\n'),
    ],
)
def test_a_psq_query_side_key_is_accepted_where_the_queries_may_be_translated(mini, tmp_path, top, system):
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    text = _ONE.format(mini=mini, top=top, more="[systems.P]\n" + system)
    assert _read(tmp_path, text).systems["P"]["mode"] == "pirkola"


# --------------------------------------------------------------------------- 13A-11: train_queries


@pytest.mark.parametrize("value", [3, 0])
def test_train_queries_are_refused_when_no_system_learns_from_them(mini, tmp_path, capsys, value):
    # accepted and unused, as a fusion's step with given weights no longer is
    _refused(
        tmp_path,
        capsys,
        f"train_queries = {value}\n" + _ONE.format(mini=mini, top="", more=""),
        "train_queries applies to a system that learns from the training queries (kind boost or scs), and there is "
        "none: remove train_queries",
    )


@pytest.mark.parametrize("system", ['kind = "boost"\nrounds = 3\n', 'kind = "scs"\nepochs = 1\n'])
def test_train_queries_are_accepted_with_a_system_that_learns(mini, tmp_path, system):
    text = "train_queries = 3\n" + _ONE.format(mini=mini, top="", more="[systems.L]\n" + system)
    assert _read(tmp_path, text).train_queries == 3


# --------------------------------------------------------------------------- 13A-16: the staging folder kept, said


_PLAIN = (
    'measures = ["AP"]\n[collection]\ndocuments = "docs.tsv"\nqueries = "q.tsv"\nqrels = "q.qrels"\n'
    'source_lang = "en"\ntarget_lang = "es"\n[systems.DT]\nkind = "dt"\ntable = "{table}"\ntable_format = "pairs"\n'
    '[systems.BM]\nkind = "bm25"\n'
)


def test_a_run_stopped_by_an_error_after_its_work_began_says_where_the_work_is_kept(
    plain,  # noqa: F811
    capsys,
    monkeypatch,
):
    # Ctrl-C said "the work done so far is kept in .out.partial"; an error left the hidden folder unsaid
    from clirkit.cli import main
    from clirkit.errors import ClirkitError
    from clirkit.experiment.kinds import system_class

    def search_split(self, view, split, tag=None, packed=False):
        raise ClirkitError("queries: something wrong")

    monkeypatch.setattr(system_class("bm25"), "search_split", search_split)
    (plain / "e.toml").write_text(_PLAIN.format(table="en-es.txt"), encoding="utf-8")
    assert main(["run", str(plain / "e.toml"), "-o", str(plain / "out"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {plain / 'e.toml'}: system 'BM': queries: something wrong (the work done so far is kept in "
        f"{plain / '.out.partial'}; the corrected run into {plain / 'out'} resumes it)\n"
    )
    assert (plain / ".out.partial" / "runs" / "dt.test.run.gz").is_file()


def test_a_run_stopped_by_a_check_keeps_no_staging_folder_and_says_none(plain, capsys):  # noqa: F811
    from clirkit.cli import main

    (plain / "e.toml").write_text(_PLAIN.format(table="nope.txt"), encoding="utf-8")
    assert main(["run", str(plain / "e.toml"), "-o", str(plain / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "nope.txt: no such file" in err and "kept in" not in err and not (plain / ".out.partial").exists()


# --------------------------------------------------------------------------- 13A-17: the dev sample, labelled


def test_the_report_heads_the_dev_sample_as_a_sample_in_the_dev_and_all_tables(mini, tmp_path):
    # with dev_queries = 3 the dev table and the "all queries (dev and test)" table held the 3 sampled dev queries
    from clirkit.experiment import run_experiment

    text = (
        f'collection = "{mini}"\nmeasures = ["AP"]\nfigures = false\ndev_queries = 3\n'
        'report_splits = ["dev", "test", "all"]\n[systems.B]\nkind = "bm25"\n'
    )
    result = run_experiment(_read(tmp_path, text), tmp_path / "out", quiet=True)
    heads = [line for line in result.text.splitlines() if line.endswith(" documents")]
    assert [line.split("), ", 1)[1].rsplit(",", 1)[0] for line in heads] == [
        "dev split sample (dev_queries = 3 of its 12 queries): 3 queries",
        "test split: 12 queries",
        "all queries (the dev sample and test): 15 queries",
    ]
