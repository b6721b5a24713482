"""Edge cases of experiment files found by an outside tester (edge test 4): a boost's base is one name, a dictionary
table file is checked for its direction as the command line checks it, a background file is relative to the
experiment file and recorded by its digest, ``run`` is not an experiment key, a run file is read and checked when the
systems are built (every split it is searched on, the collection's documents), the checks that could be made when
the file is read are made then, and the messages speak of experiment-file keys."""

from __future__ import annotations

import json

import pytest
from test_edges_experiment import _refused

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment


def _stopped(tmp_path, capsys, text: str, message: str) -> None:
    """``clirkit run`` of ``text`` stops with exit 2 on one line ending the message ``FILE: message`` when the
    systems are built, before any of them searched or trained, and leaves no output or staging folder."""
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    Experiment.read(path)  # the file itself is fine
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"clirkit: error: {path}: {message}\n"), err
    assert err.count("clirkit: error") == 1 and "searching" not in err and "training" not in err, err
    assert "indexing" not in err, err
    assert not (tmp_path / "out").exists() and not (tmp_path / ".out.partial").exists()


def _run_file(mini, path, splits=("dev", "test"), docid=lambda d: d, rows: int = 5) -> None:
    """A run file at ``path`` of the ``mini`` collection's queries of ``splits``: ``rows`` of its documents each
    (their ids as ``docid`` writes them)."""
    from clirkit import datasets

    c = datasets.load(str(mini))
    docids, _ = c.documents()
    lines = []
    for split in splits:
        for i, q in enumerate(c.queries(split)):
            lines += [f"{q} Q0 {docid(d)} {r + 1} {10 - r} ext\n" for r, d in enumerate(docids[i : i + rows])]
    path.write_text("".join(lines), encoding="utf-8")


# ------------------------------------------------------------------ 1. a boost's base is one name


def test_a_boosts_base_given_as_a_list_is_refused_when_the_file_is_read(mini, tmp_path, capsys):
    text = f'collection = "{mini}"\n[systems.A]\nkind = "bm25"\n[systems.B]\nkind = "boost"\nbase = ["A"]\n'
    _refused(
        tmp_path,
        capsys,
        text,
        "system 'B': base must be a string (the name of a system declared before it, or of a fusion of such "
        "systems: one name), got ['A']",
    )


# ------------------------------------------------------------------ 3. a dictionary's direction


@pytest.mark.parametrize(
    "spec, said",
    [
        pytest.param(
            'kind = "dt"\ntable = "es-en.txt"',
            "table es-en.txt: translates es -> en (its file name says so); this system reads a table from en into "
            'es (kind = "docpsq" translates the documents with a table from es into en, given as its own table = '
            '"es-en.txt")',
            id="dt",
        ),
        pytest.param(
            'kind = "querypsq"\ntable = "es-en.txt"',
            "table es-en.txt: translates es -> en (its file name says so); this system reads a table from en into "
            'es (kind = "docpsq" translates the documents with a table from es into en, given as its own table = '
            '"es-en.txt")',
            id="querypsq",
        ),
        pytest.param(
            'kind = "docpsq"\ntable = "en-es.txt"',
            "table en-es.txt: translates en -> es (its file name says so); this system reads a table from es into en",
            id="docpsq",
        ),
        pytest.param(
            'kind = "querypsq"\ntable2 = "es-en.txt"',
            "table2 es-en.txt: translates es -> en (its file name says so); this system reads a table from en into "
            'es (kind = "docpsq" reads it as the second table of IBM Model 1 trained the other way)',
            id="table2",
        ),
        pytest.param(
            'kind = "dt"\ntable = "de-en.txt"',
            "table de-en.txt: translates de -> en (its file name says so); this system reads a table from en into es",
            id="other languages",
        ),
    ],
)
def test_a_dictionary_file_named_for_the_other_direction_stops_the_run_before_anything_runs(
    mini, tmp_path, capsys, spec, said
):
    for name in ("en-es.txt", "es-en.txt", "de-en.txt"):
        left, right = ("light", "luz") if name.startswith("en") else ("luz", "light")
        (tmp_path / name).write_text(f"{left} {right}\n", encoding="utf-8")
    text = f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.BM]\nkind = "bm25"\n[systems.S]\n{spec}\n'
    _stopped(tmp_path, capsys, text, f"system 'S': {said}")


def test_a_table_section_dictionary_named_for_the_other_direction_stops_the_run(mini, tmp_path, capsys):
    (tmp_path / "es-en.txt").write_text("luz light\n", encoding="utf-8")
    text = f'collection = "{mini}"\n[table]\nfile = "es-en.txt"\nformat = "pairs"\n[systems.DT]\nkind = "dt"\n'
    _stopped(
        tmp_path,
        capsys,
        text,
        "system 'DT': [table] file es-en.txt: translates es -> en (its file name says so); this system reads a "
        'table from en into es (kind = "docpsq" translates the documents with a table from es into en, given as its '
        'own table = "es-en.txt")',
    )


def test_a_psq_given_a_documents_table_translates_the_documents_as_docpsq_does(mini, tmp_path):
    """(It was refused, pointing to docpsq; `clirkit psq --table es-en.npz` translates the documents: the
    experiment file now does what the command does, edge test round 6.)"""
    import gzip

    from clirkit import datasets
    from clirkit.analysis import Analyzer
    from clirkit.translation import save_table, train_table

    c = datasets.load(str(mini))
    source, target = c.parallel()
    es, en = Analyzer("es"), Analyzer("en")
    save_table(train_table(es.tokenize_many(target), en.tokenize_many(source), es, en), tmp_path / "es-en.npz")
    path = tmp_path / "x.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.P]\nkind = "psq"\ntranslate = "documents"\n'
        'table = "es-en.npz"\n[systems.D]\nkind = "docpsq"\ntable = "es-en.npz"\n',
        encoding="utf-8",
    )
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 0
    runs = {n: gzip.decompress((tmp_path / "out" / "runs" / f"{n}.test.run.gz").read_bytes()) for n in "pd"}
    assert runs["p"].replace(b" P\n", b" D\n") == runs["d"] and runs["p"]


# ------------------------------------------------------------------ 4, 9. a background file


BACKGROUND = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.D]\nkind = "docpsq"\nbackground = "eng.cnt"\n'


def _counts(path, flat: bool) -> None:
    """A term-count file of English words (``COUNT TOKEN`` lines): skewed counts, or all 1 (``flat``)."""
    words = ["the", "and", "of", "god", "light", "darkness", "water", "earth", "heaven", "day"]
    path.write_text("".join(f"{1 if flat else 1000 // (i + 1)} {w}\n" for i, w in enumerate(words)), "utf-8")


def test_a_background_file_is_read_relative_to_the_experiment_file_and_a_changed_one_makes_the_runs_again(
    mini, tmp_path, monkeypatch
):
    from clirkit.experiment import run_experiment

    folder, elsewhere = tmp_path / "exp", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "e.toml").write_text(BACKGROUND.format(mini=mini), encoding="utf-8")
    _counts(folder / "eng.cnt", flat=False)
    _counts(elsewhere / "eng.cnt", flat=True)  # a file of the same name where it runs: not the one named
    monkeypatch.chdir(elsewhere)
    toml = "../exp/e.toml"
    run = tmp_path / "out" / "runs" / "d.test.run.gz"
    run_experiment(Experiment.read(toml), tmp_path / "out", quiet=True)
    first = run.read_bytes()
    record = json.loads((tmp_path / "out" / "runs" / "d.test.run.gz.json").read_text())
    assert record["background"]["sha256"] and record["background"]["path"].endswith("eng.cnt")
    run_experiment(Experiment.read(tmp_path / "exp" / "e.toml"), tmp_path / "fresh-skewed", quiet=True)
    assert (tmp_path / "fresh-skewed" / "runs" / "d.test.run.gz").read_bytes() == first  # the file's, not the cwd's
    _counts(folder / "eng.cnt", flat=True)  # the file changed: the runs are made again
    run_experiment(Experiment.read(toml), tmp_path / "out", quiet=True)
    run_experiment(Experiment.read(toml), tmp_path / "fresh", quiet=True)
    assert run.read_bytes() == (tmp_path / "fresh" / "runs" / "d.test.run.gz").read_bytes() != first


@pytest.mark.parametrize("kind", ["docpsq", "psq"])
def test_a_missing_background_file_is_refused_when_the_file_is_read_naming_it_as_written(
    mini, tmp_path, capsys, monkeypatch, kind
):
    (tmp_path / "elsewhere").mkdir()
    _counts(tmp_path / "elsewhere" / "missing.cnt", flat=True)  # beside where it runs: not beside the file
    monkeypatch.chdir(tmp_path / "elsewhere")
    text = f'collection = "{mini}"\n[systems.S]\nkind = "{kind}"\nbackground = "missing.cnt"\n'
    (tmp_path / "x.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Experiment.read(tmp_path / "x.toml")
    assert str(err.value) == (
        f"{tmp_path / 'x.toml'}: system 'S': background: missing.cnt: no such file (paths are relative to the "
        "experiment file; or one of: collection, parallel)"
    )
    assert main(["run", str(tmp_path / "x.toml"), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {err.value}\n"
    assert not (tmp_path / "out").exists() and not (tmp_path / ".out.partial").exists()


def test_a_background_folder_is_refused_as_a_folder(mini, tmp_path, capsys):
    (tmp_path / "cnt").mkdir()
    text = f'collection = "{mini}"\n[systems.S]\nkind = "docpsq"\nbackground = "cnt"\n'
    _refused(tmp_path, capsys, text, "system 'S': background: cnt: is a folder, expected a COUNT TOKEN file")


# ------------------------------------------------------------------ 5. run is not an experiment key


def test_the_python_parameter_run_is_refused_in_an_experiment_file_like_an_unknown_key(mini, tmp_path, capsys):
    from clirkit.experiment.keyshelp import keys_text

    _run_file(mini, tmp_path / "r.run")
    text = f'collection = "{mini}"\n[systems.E]\nkind = "run"\nfile = "r.run"\nrun = "r.run"\n'
    _refused(tmp_path, capsys, text, "system 'E': unknown key 'run' (a run system's keys: kind, file)")
    assert "  run  " not in keys_text("run") and "kind run:       file\n" in keys_text() + "\n"


# ------------------------------------------------------------------ 6, 7. a run file read when built


RUN_THEN_BM25 = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.Ext]\nkind = "run"\nfile = "{file}"\n' + (
    '[systems.BM]\nkind = "bm25"\n'
)
BM25_THEN_RUN = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.BM]\nkind = "bm25"\n' + (
    '[systems.Ext]\nkind = "run"\nfile = "{file}"\n'
)


def test_a_run_file_without_a_split_the_experiment_searches_stops_the_run_before_anything_runs(mini, tmp_path, capsys):
    _run_file(mini, tmp_path / "test-only.run", splits=("test",))
    said = (
        "system 'Ext': file test-only.run: the run has no row for any of the 12 dev queries (its 12 queries "
        "are others, e.g. 'ABDI.1'): give a run of the dev and test queries (one file, or their files concatenated)"
    )
    _stopped(tmp_path, capsys, RUN_THEN_BM25.format(mini=mini, file="test-only.run"), said)
    _stopped(tmp_path, capsys, BM25_THEN_RUN.format(mini=mini, file="test-only.run"), said)
    _run_file(mini, tmp_path / "test-only.run")  # corrected: it runs (no staging folder is in the way)
    assert main(["run", str(tmp_path / "x.toml"), "-o", str(tmp_path / "out"), "-q"]) == 0


def test_a_boosts_base_run_file_without_the_training_queries_stops_the_run_before_anything_runs(mini, tmp_path, capsys):
    _run_file(mini, tmp_path / "dt.run")
    text = RUN_THEN_BM25.format(mini=mini, file="dt.run") + '[systems.B]\nkind = "boost"\nbase = "Ext"\n'
    _stopped(
        tmp_path,
        capsys,
        text,
        "system 'Ext': file dt.run: the run has no row for any of the 40 train queries (its 24 queries are "
        "others, e.g. 'AARON.1'): give a run of the train, dev and test queries (one file, or their files "
        "concatenated)",
    )
    fused = (
        RUN_THEN_BM25.format(mini=mini, file="dt.run") + '[fusions.F]\nsystems = ["Ext", "BM"]\n'
        '[systems.B]\nkind = "boost"\nbase = "F"\n'
    )
    _stopped(
        tmp_path,
        capsys,
        fused,
        "system 'Ext': file dt.run: the run has no row for any of the 40 train queries (its 24 queries are "
        "others, e.g. 'AARON.1'): give a run of the train, dev and test queries (one file, or their files "
        "concatenated)",
    )


def test_an_empty_run_file_declared_after_another_system_stops_the_run_before_it_searches(mini, tmp_path, capsys):
    (tmp_path / "empty.run").write_text("", encoding="utf-8")
    path = tmp_path / "x.toml"
    path.write_text(BM25_THEN_RUN.format(mini=mini, file="empty.run"), encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("clirkit: error") == 1 and "searching" not in err and "indexing" not in err, err
    last = err.splitlines()[-1]
    assert last.startswith(f"clirkit: error: {path}: system 'Ext': ") and "(it has no rows)" in last, err
    assert not (tmp_path / ".out.partial").exists()


def test_a_run_naming_no_document_of_the_collection_is_refused_and_one_naming_some_gets_a_note(mini, tmp_path, capsys):
    _run_file(mini, tmp_path / "lower.run", docid=str.lower)
    _stopped(
        tmp_path,
        capsys,
        BM25_THEN_RUN.format(mini=mini, file="lower.run"),
        "system 'Ext': file lower.run: none of the run's 120 rows names a document of the collection (first: "
        "'gen.1.1'); check the document ids (their case, a prefix)",
    )
    _run_file(mini, tmp_path / "some.run", docid=lambda d: d if d != "Gen.1.2" else "nope")
    path = tmp_path / "x.toml"
    path.write_text(BM25_THEN_RUN.format(mini=mini, file="some.run"), encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "file some.run: 4 of the run's 120 rows name documents the collection does not have (first: 'nope')\n" in err


def test_a_run_of_every_query_gets_no_note_when_the_experiment_samples_its_dev_queries(mini, tmp_path, capsys):
    _run_file(mini, tmp_path / "all.run", splits=("train", "dev", "test"))
    path = tmp_path / "x.toml"
    path.write_text("dev_queries = 3\n" + BM25_THEN_RUN.format(mini=mini, file="all.run"), encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 0
    assert "none of the collection's" not in capsys.readouterr().err


def test_a_run_holding_queries_the_collection_lacks_gets_a_note(mini, tmp_path, capsys):
    _run_file(mini, tmp_path / "more.run")
    with open(tmp_path / "more.run", "a", encoding="utf-8") as out:
        out.write("nope.1 Q0 Gen.1.1 1 5 ext\nnope.2 Q0 Gen.1.1 1 5 ext\n")
    path = tmp_path / "x.toml"
    path.write_text(BM25_THEN_RUN.format(mini=mini, file="more.run"), encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 0
    assert "file more.run: 2 of the run's 26 queries are none of the collection's (first: 'nope.1')" in (
        capsys.readouterr().err
    )


# ------------------------------------------------------------------ 8. checks made when the file is read


@pytest.mark.parametrize(
    "more, said",
    [
        pytest.param(
            '[systems.S]\nkind = "querypsq"\ntable = "t.txt"\ntable_format = "mosess"\n',
            "system 'S': table_format must be one of auto, moses, npz, phrase-table, psq-json, pairs, muse, "
            "freedict, ding (as ttable convert --format), got 'mosess'",
            id="table_format",
        ),
        pytest.param(
            '[table]\nfile = "t.txt"\nformat = "mosess"\n[systems.S]\nkind = "dt"\n',
            "[table]: format must be one of auto, moses, npz, phrase-table, psq-json, pairs, muse, freedict, ding "
            "(as ttable convert --format), got 'mosess'",
            id="[table] format",
        ),
        pytest.param(
            '[table]\nformat = "mosess"\n[systems.S]\nkind = "dt"\n',
            "[table]: format must be one of auto, moses, npz, phrase-table, psq-json, pairs, muse, freedict, ding "
            "(as ttable convert --format), got 'mosess'",
            id="[table] format, no file",
        ),
        pytest.param(
            '[table]\nformat = "muse"\n[systems.S]\nkind = "dt"\n',
            "[table]: format applies to a table file ([table] file, or a system's table = FILE), and there is none: "
            "remove format",
            id="[table] format for no file",
        ),
    ],
)
def test_a_table_format_is_checked_when_the_file_is_read(mini, tmp_path, capsys, more, said):
    (tmp_path / "t.txt").write_text("light luz\n", encoding="utf-8")
    _refused(tmp_path, capsys, f'collection = "{mini}"\n{more}', said)


def test_a_source_lang_other_than_the_queries_language_stops_the_run_before_anything_runs(mini, tmp_path, capsys):
    text = f'collection = "{mini}"\n[systems.BM]\nkind = "bm25"\n[systems.S]\nkind = "psq"\nsource_lang = "de"\n'
    _stopped(
        tmp_path,
        capsys,
        text,
        "system 'S': source_lang = 'de', but the collection's queries are in 'en': leave source_lang out",
    )


# ------------------------------------------------------------------ 14. checks the command line has


@pytest.mark.parametrize(
    "spec, said",
    [
        pytest.param(
            'kind = "querypsq"\ntable = "en-es.txt"\ntable2 = "./en-es.txt"',
            "table2 ./en-es.txt: the same file as table: interpolating a table with itself changes nothing",
            id="querypsq",
        ),
        pytest.param(
            'kind = "docpsq"\ntable = "es-en.txt"\ntable2 = "es-en.txt"',
            "table2 es-en.txt: the same file as table: interpolating a table with itself changes nothing",
            id="docpsq",
        ),
        pytest.param(
            'kind = "psq"\ntable2 = "ibm1"',
            'table2 = "ibm1": the same table as table (IBM Model 1 on the parallel corpus): interpolating a table '
            "with itself changes nothing",
            id="ibm1 twice",
        ),
    ],
)
def test_table_and_table2_naming_one_table_are_refused_before_anything_runs(mini, tmp_path, capsys, spec, said):
    (tmp_path / "en-es.txt").write_text("light luz\n", encoding="utf-8")
    (tmp_path / "es-en.txt").write_text("luz light\n", encoding="utf-8")
    text = f'collection = "{mini}"\n[systems.BM]\nkind = "bm25"\n[systems.S]\n{spec}\n'
    _stopped(tmp_path, capsys, text, f"system 'S': {said}")


def test_a_run_system_without_its_file_is_refused_when_the_file_is_read(mini, tmp_path, capsys):
    _refused(
        tmp_path,
        capsys,
        f'collection = "{mini}"\n[systems.E]\nkind = "run"\n',
        "system 'E': a run system reads its run from a file: add file = \"RUN\" (TREC 6 columns, .gz fine, "
        "relative to the experiment file)",
    )


# ------------------------------------------------------------------ 15. wording


def test_the_keys_text_lists_every_kind():
    from clirkit.experiment.keyshelp import keys_text
    from clirkit.experiment.kinds import KINDS

    line = next(k for k in keys_text().splitlines() if k.strip().startswith("kind "))
    assert all(kind in line for kind in KINDS), line


def test_a_run_file_that_is_a_folder_or_empty_is_named_so(mini, tmp_path, capsys):
    (tmp_path / "adir.run").mkdir()
    _stopped(
        tmp_path,
        capsys,
        f'collection = "{mini}"\n[systems.E]\nkind = "run"\nfile = "adir.run"\n',
        "system 'E': file adir.run: is a folder, expected a file",
    )
    _refused(
        tmp_path,
        capsys,
        f'collection = "{mini}"\n[systems.E]\nkind = "run"\nfile = ""\n',
        "system 'E': file must be a path, not empty (a run file (TREC 6 columns, .gz fine) holding the rows of "
        "every split's queries, relative to the experiment file)",
    )


def test_a_docpsq_given_ibm1_as_its_second_table_is_told_in_experiment_file_words(mini, tmp_path, capsys):
    _refused(
        tmp_path,
        capsys,
        f'collection = "{mini}"\n[systems.D]\nkind = "docpsq"\ntable2 = "ibm1"\n',
        "system 'D': table2 = \"ibm1\": a docpsq system's second table is a file from the documents' language "
        "into the queries' (IBM Model 1 trained that way is its table, the default)",
    )


def test_a_run_that_came_out_empty_scores_0_and_is_not_kept_so_a_rerun_makes_it(mini, tmp_path, capsys, monkeypatch):
    from clirkit.experiment.kinds import system_class
    from clirkit.packedrun import PackedRun
    from clirkit.run import Run

    cls = system_class("bm25")
    search_split = cls.search_split

    def empty_dev(self, view, split, tag=None, packed=False):
        run = search_split(self, view, split, tag=tag, packed=packed)
        return PackedRun(Run([], [], [], tag=run.tag)) if split == "dev" else run

    monkeypatch.setattr(cls, "search_split", empty_dev)
    path = tmp_path / "x.toml"
    path.write_text(f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.BM]\nkind = "bm25"\n', encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 0  # scored 0, as `clirkit eval` does
    note = "BM: no document for any of the 12 dev queries: it scores 0 on each judged query"
    assert note in capsys.readouterr().err
    assert not (tmp_path / "out" / "runs" / "bm.dev.run.gz").exists()
    monkeypatch.undo()
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "runs" / "bm.dev.run.gz").is_file()


def test_a_run_systems_check_in_python_reads_the_run_once_and_checks_every_split_with_topics():
    from clirkit.estimator import Resources
    from clirkit.run import Run
    from clirkit.runsystem import RunFile

    run = Run(["q1", "q1", "q2"], ["a", "b", "a"], [2.0, 1.0, 1.0], tag="x")
    topics = {"dev": {"q1": "light"}, "test": {"q2": "water", "q3": "earth"}}
    system = RunFile(run=run)
    system.check_inputs(Resources(topics=topics, documents=(["a", "b"], ["x", "y"])))
    assert system.fit().run_ is run  # the run checked, not read again
    with pytest.raises(ClirkitError) as err:
        RunFile(run=run).check_inputs(Resources(topics={**topics, "train": {"q7": "day"}}))
    assert str(err.value) == (
        "the run has no row for any of the 1 train queries (its 2 queries are others, e.g. 'q1'): give a run of the "
        "dev, test and train queries (one file, or their files concatenated)"
    )
    with pytest.raises(
        ClirkitError, match=r"^none of the run's 3 rows names a document of the collection \(first: 'a'\)"
    ):
        RunFile(run=run).check_inputs(Resources(topics=topics, documents=(["A", "B"], ["x", "y"])))
