"""Issue 40, edge test 11: keys of an experiment file and options of the command line checked before anything runs.
A system's parameters whose check lived only in ``fit`` (SCS ``thresholds``, boost ``beta_grid``, boost ``beta``
without ``base``) are refused when the file is read (4)."""

from __future__ import annotations

import pytest
from test_edges_experiment import _refused

from clirkit.cli import main
from clirkit.experiment import Experiment

_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n{more}'


# --------------------------------------------------------------------------- finding 4: checks only in fit


@pytest.mark.parametrize(
    "more, message",
    [
        pytest.param(
            '[systems.S]\nkind = "scs"\nepochs = 1\nthresholds = [0.9, 0.1]\n',
            "system 'S': SOSL thresholds must increase strictly inside (-1, 1), got 0.9 0.1",
            id="scs thresholds decreasing",
        ),
        pytest.param(
            '[systems.S]\nkind = "scs"\nloss = "mse"\nthresholds = [0.0]\nmse_targets = [0.1, 0.5, 0.9]\n',
            "system 'S': give one MSE target per grade (2), got 3",
            id="scs mse targets",
        ),
        pytest.param(
            '[systems.B]\nkind = "boost"\nrounds = 3\nbeta_grid = []\n',
            "system 'B': beta_grid is empty: give betas to try, or beta",
            id="boost beta_grid empty",
        ),
        pytest.param(
            '[systems.B]\nkind = "boost"\nrounds = 3\nbeta = 0.5\n',
            "system 'B': beta weighs a base ranker's scores: add base = \"SYSTEM\", or remove beta",
            id="boost beta without base",
        ),
    ],
)
def test_system_parameters_checked_only_in_fit_are_refused_when_the_file_is_read(mini, tmp_path, capsys, more, message):
    _refused(tmp_path, capsys, _ONE.format(mini=mini, more=more), message)


def test_a_boost_beta_with_a_base_and_a_beta_grid_is_refused_when_read(mini, tmp_path, capsys):
    # the grid (empty here) is tried only without a beta: unused, refused as --beta-grid with --beta is (13A-5)
    more = '[systems.B]\nkind = "boost"\nbase = "DT"\nbeta = 0.5\nbeta_grid = []\n'
    message = "system 'B': beta_grid gives the betas tried on dev without a beta: remove beta, or remove beta_grid"
    _refused(tmp_path, capsys, _ONE.format(mini=mini, more=more), message)


def test_a_boost_beta_with_a_base_is_accepted_when_read(mini, tmp_path):
    path = tmp_path / "x.toml"
    path.write_text(_ONE.format(mini=mini, more='[systems.B]\nkind = "boost"\nbase = "DT"\nbeta = 0.5\n'))
    assert "B" in Experiment.read(path).systems


# --------------------------------------------------------------------------- finding 5: demo --show, --variant


def one_line_error(capsys, text: str) -> None:
    captured = capsys.readouterr()
    assert captured.err == f"clirkit: error: {text}\n" and captured.out == ""


@pytest.mark.parametrize(
    "options, named",
    [
        (["--collection", "col1"], "--collection"),
        (["--variant", "foo"], "--variant"),
        (["--baselines-only"], "--baselines-only"),
        (["-j", "5"], "-j/--jobs"),
        (["-o", "x.toml"], "-o/--output-dir"),
        (["--baselines-only", "-j", "2"], "--baselines-only, -j/--jobs"),
    ],
)
def test_demo_show_refuses_the_options_it_would_ignore(tmp_path, monkeypatch, capsys, options, named):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--show", *options]) == 2
    one_line_error(
        capsys, f"--show prints the shipped experiment file as it is and runs nothing: drop {named} (or --show)"
    )
    assert list(tmp_path.iterdir()) == []


def test_demo_show_alone_prints_the_shipped_file(capsys):
    from clirkit.experiment import shipped

    assert main(["demo", "--show"]) == 0
    assert capsys.readouterr().out == shipped("demo").read_text(encoding="utf-8")


def test_demo_help_says_boost_is_boosted_from_the_fusion_the_shipped_file_names(capsys):
    import tomllib

    from clirkit.experiment import shipped

    assert tomllib.loads(shipped("demo").read_text(encoding="utf-8"))["systems"]["Boost"]["base"] == "DT+PSQ"
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "BoostCLIR boosted from their fusion DT+PSQ" in text and "boosted from PSQ" not in text


def test_run_variant_on_a_file_with_a_collection_table_names_the_option_not_the_file(tmp_path, capsys):
    path = tmp_path / "x.toml"
    path.write_text(
        '[collection]\ndocuments = "d.tsv"\nqueries = "q.tsv"\nqrels = "q.qrels"\nsource_lang = "en"\n'
        'target_lang = "es"\n[systems.DT]\nkind = "dt"\n',
        encoding="utf-8",
    )
    assert main(["run", str(path), "--variant", "strict", "-o", str(tmp_path / "out"), "-q"]) == 2
    one_line_error(
        capsys,
        f"{path}: the variant 'strict' applies to a known collection, not to the file's [collection] table: leave "
        "out the variant (--variant)",
    )
    path.write_text('variant = "strict"\n' + path.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2  # written in the file: the file's
    one_line_error(
        capsys, f"{path}: variant applies to a known collection, not to a [collection] table; remove variant"
    )


# --------------------------------------------------------------------------- finding 9: keys and options that do nothing


@pytest.mark.parametrize(
    "key, listed, twice",
    [
        ("gains", '["AP", "P@10", "AP"]', "AP"),
        ("measures", '["AP", "P@10", "AP"]', "AP"),
        ("report_splits", '["test", "dev", "test"]', "test"),
    ],
)
def test_a_report_list_naming_an_entry_twice_is_refused_naming_it(mini, tmp_path, capsys, key, listed, twice):
    # measures were de-duplicated without a word, a repeated split was told "must list some of" (round 11, left)
    text = f"{key} = {listed}\n" + _ONE.format(mini=mini, more="").replace(
        'measures = ["AP"]\n', 'measures = ["AP", "P@10"]\n' if key != "measures" else ""
    )
    _refused(tmp_path, capsys, text, f"{key} lists {twice!r} twice: list each once")


def test_table_iterations_with_a_table_file_and_no_ibm1_system_are_refused(mini, tmp_path, capsys):
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    more = '[table]\nfile = "dict.tsv"\niterations = 7\n'
    _refused(
        tmp_path,
        capsys,
        _ONE.format(mini=mini, more=more),
        "[table]: iterations applies to IBM Model 1 trained on the parallel corpus, and no system trains it (the "
        "table file is read): remove iterations",
    )


@pytest.mark.parametrize(
    "system",
    [
        '[systems.P]\nkind = "psq"\ntable = "ibm1"\n',
        '[systems.P]\nkind = "psq"\ntranslate = "documents"\n',
        '[systems.P]\nkind = "docpsq"\n',
    ],
)
def test_table_iterations_with_a_table_file_are_accepted_when_a_system_trains_ibm1(mini, tmp_path, system):
    (tmp_path / "dict.tsv").write_text("god\tdios\n", encoding="utf-8")
    path = tmp_path / "x.toml"
    path.write_text(
        _ONE.format(mini=mini, more='[table]\nfile = "dict.tsv"\niterations = 7\n' + system), encoding="utf-8"
    )
    assert Experiment.read(path).table["iterations"] == 7


@pytest.mark.parametrize(
    "verb",
    [
        ["search", "--index", "nothere.npz", "--queries", "q.tsv", "-o", "x.run"],
        ["boost-train", "--documents", "d.tsv", "--source-lang", "en", "--target-lang", "es", "--queries", "q.tsv"]
        + ["--qrels", "q.qrels", "--backend", "threading", "-o", "x.npz"],
    ],
    ids=["search", "boost-train"],
)
def test_scheduler_without_the_dask_backend_is_refused(tmp_path, monkeypatch, capsys, verb):
    monkeypatch.chdir(tmp_path)
    backend = "threading"  # boost-train's given, search's default
    assert main([*verb, "--scheduler", "tcp://x:1"]) == 2
    one_line_error(
        capsys,
        f"--scheduler is read only with --backend dask (the backend is {backend}): give --backend dask, or drop "
        "--scheduler",
    )
    assert list(tmp_path.iterdir()) == []


def test_run_keys_refuses_a_file_and_options_it_would_not_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--keys", "psq", "x.toml", "-o", "out"]) == 2
    one_line_error(
        capsys,
        "--keys lists the keys an experiment file may hold and runs nothing: drop x.toml, -o/--output-dir (or --keys)",
    )
    assert main(["run", "--keys", "psq"]) == 0
    assert "[systems.NAME] of kind psq" in capsys.readouterr().out


def test_number_options_are_worded_as_written_not_as_a_int_among():
    from clirkit.constraints import Options, StrOptions

    assert str(Options(int, {-1})) == "-1"
    assert str(Options(int, {1, 2})) == "one of 1, 2"
    assert str(StrOptions({"auto"})) == "a str among {'auto'}"  # the command line rewrites it as typed


@pytest.mark.parametrize("jobs", [-1, 0])
def test_boost_jobs_take_one_or_more_as_the_command_line_and_the_experiment_jobs_do(mini, tmp_path, capsys, jobs):
    more = f'[systems.B]\nkind = "boost"\nrounds = 3\njobs = {jobs}\n'
    _refused(
        tmp_path,
        capsys,
        _ONE.format(mini=mini, more=more),
        f"system 'B': The 'jobs' parameter of BoostRanker must be an int in the range [1, inf). Got {jobs} instead.",
    )
