"""Issue 40, edge test 11: keys of an experiment file and options of the command line checked before anything runs.
A system's parameters whose check lived only in ``fit`` (SCS ``thresholds``, boost ``beta_grid``, boost ``beta``
without ``base``) are refused when the file is read (4)."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment

_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n{more}'


def _refused(tmp_path, capsys, text: str, message: str) -> None:
    """The experiment file ``text`` is refused when read with ``message`` (after the file's name), in one line, and
    ``clirkit run`` stops on it with exit 2 before anything runs (no output folder, no staging folder)."""
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Experiment.read(path)
    assert str(err.value) == f"{path}: {message}"
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {err.value}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before


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
            "system 'B': beta weighs a base system's scores: add base = \"SYSTEM\", or remove beta",
            id="boost beta without base",
        ),
    ],
)
def test_system_parameters_checked_only_in_fit_are_refused_when_the_file_is_read(mini, tmp_path, capsys, more, message):
    _refused(tmp_path, capsys, _ONE.format(mini=mini, more=more), message)


def test_a_boost_beta_with_a_base_and_an_empty_beta_grid_is_accepted_when_read(mini, tmp_path):
    path = tmp_path / "x.toml"
    more = '[systems.B]\nkind = "boost"\nbase = "DT"\nbeta = 0.5\nbeta_grid = []\n'
    path.write_text(_ONE.format(mini=mini, more=more), encoding="utf-8")
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
