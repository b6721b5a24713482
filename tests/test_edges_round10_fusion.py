"""Edge cases of fusion found by an outside tester (round 10): Borda weights that are all 0, fusion options that
would do nothing (``aggregate`` without ``--tune``, Borda, given weights), the depth and the runs of
``interpolate``/``borda``, a fusion naming a fusion, and an experiment's empty name."""

from __future__ import annotations

import os

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.constraints import InvalidParameterError
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment
from clirkit.fusion import borda, interpolate
from clirkit.run import Run
from clirkit.systems import Fusion

A = Run(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([2.0, 1.0]), tag="a")
B = Run(np.array(["q1", "q1"]), np.array(["d2", "d3"]), np.array([5.0, 1.0]), tag="b")
_BASE = 'collection = "nave-en-es"\nfigures = false\n[systems.DT]\nkind = "dt"\n[systems.BM25]\nkind = "bm25"\n'
_ALL_ZERO = "must be finite and >= 0, not all 0 (borda: weights all 0 give every document 0 points), got 0 0"


@pytest.fixture
def runs(tmp_path, monkeypatch):
    """Two run files and a qrels file in the current folder (``tmp_path``)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\n", encoding="utf-8")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 3 b\nq1 Q0 d2 2 2 b\nq1 Q0 d9 3 1 b\n", encoding="utf-8")
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    return tmp_path


def _aggregate_refused(capsys, *given: str) -> str:
    """``clirkit aggregate a.run b.run GIVEN -o out.run`` stops with exit 2, one line and no output: that line."""
    capsys.readouterr()
    assert main(["aggregate", "a.run", "b.run", *given, "-o", "out.run", "-q"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert captured.out == "" and len(lines) == 1 and lines[0].startswith("clirkit: error: "), captured.err
    assert not os.path.exists("out.run")
    return lines[0].removeprefix("clirkit: error: ")


def _file_refused(tmp_path, capsys, text: str) -> str:
    """The experiment file ``text`` is refused when read, in one line, and ``clirkit run`` stops on it with exit 2
    and that line, writing nothing: the message after the file's name."""
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Experiment.read(path)
    assert "\n" not in str(err.value) and str(err.value).startswith(f"{path}: ")
    capsys.readouterr()
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {err.value}\n" and not (tmp_path / "out").exists()
    return str(err.value).removeprefix(f"{path}: ")


# Borda weights all 0 -------------------------------------------------------------------------------------------


def test_borda_weights_all_zero_are_refused_by_the_command(runs, capsys):
    said = _aggregate_refused(capsys, "--method", "borda", "--weights", "0", "0")
    assert said == f"--weights (Fusion's weights) {_ALL_ZERO}"
    assert main(["aggregate", "a.run", "b.run", "--method", "borda", "--weights", "1", "0", "-o", "z.run", "-q"]) == 0
    assert (runs / "z.run").read_text(encoding="utf-8").splitlines()[0].split()[2:4] == ["d1", "1"]


def test_borda_weights_all_zero_are_refused_by_an_experiment_file(tmp_path, capsys):
    more = '[fusions.F]\nsystems = ["DT", "BM25"]\nmethod = "borda"\nweights = [0, 0.0]\n'
    assert _file_refused(tmp_path, capsys, _BASE + more) == f"fusion 'F': weights {_ALL_ZERO}"


def test_borda_weights_all_zero_are_refused_by_the_fusion_system_and_the_function():
    with pytest.raises(InvalidParameterError) as err:
        Fusion(method="borda", weights=[0, 0]).fit_runs([A, B], None)
    assert str(err.value) == f"The 'weights' parameter of Fusion {_ALL_ZERO}"
    with pytest.raises(ClirkitError) as err:
        borda([A, B], [0, 0])
    assert str(err.value) == f"weights {_ALL_ZERO}"
    assert borda([A, B], [0.0, 1.0]).docids.tolist() == ["d2", "d3", "d1"]  # one weight 0 is fine


# options that would do nothing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given, option",
    [
        (["--dev-runs", "a.run", "b.run"], "--dev-runs"),
        (["--dev-qrels", "q.qrels"], "--dev-qrels"),
        (["--qrels", "q.qrels"], "--dev-qrels"),
        (["--measure", "P@1"], "--measure"),
        (["--measure", "AP"], "--measure"),  # given at its default: still not read
        (["--step", "0.5"], "--step"),
        (["--dev-runs", "a.run", "b.run", "--dev-qrels", "q.qrels", "--measure", "P@1", "--step", "0.5"], "--dev-runs"),
        (["--method", "borda", "--step", "0.5"], "--step"),
        (["--weights", "0.5", "0.5", "--measure", "P@1"], "--measure"),
    ],
)
def test_the_tuning_options_without_tune_are_refused(runs, capsys, given, option):
    assert _aggregate_refused(capsys, *given) == (
        f"{option} is read only with --tune: give --tune (with --dev-runs and --dev-qrels), or drop {option}"
    )


@pytest.mark.parametrize("transform", [["minmax"], ["auto"], ["none", "shift"]])
def test_a_transform_under_borda_is_refused_by_the_command(runs, capsys, transform):
    said = _aggregate_refused(capsys, "--method", "borda", "--transform", *transform)
    assert said == "--transform applies to interpolation, not borda: drop --transform"


def test_the_options_a_fusion_reads_are_still_taken_by_the_command(runs, capsys):
    tune = ["--tune", "--dev-runs", "a.run", "b.run", "--dev-qrels", "q.qrels", "--measure", "P@1", "--step", "0.5"]
    for given in (
        ["--method", "borda"],
        ["--method", "borda", "--weights", "2", "1"],
        ["--weights", "1", "0", "--transform", "minmax"],
        tune,
        [*tune, "--transform", "shift"],
    ):
        assert main(["aggregate", "a.run", "b.run", *given, "-o", "ok.run", "-q"]) == 0, capsys.readouterr().err
    assert main(["aggregate", "a.run", "b.run", "--step", "0", "-o", "ok.run", "-q"]) == 2  # a bad value first
    assert "(0.0, 1.0]" in capsys.readouterr().err


@pytest.mark.parametrize(
    "more, said",
    [
        ('method = "borda"\nstep = 0.5\n', "step applies to tuned weights, and borda tunes none: remove step"),
        ('method = "borda"\nstep = 0.1\n', "step applies to tuned weights, and borda tunes none: remove step"),
        (
            'method = "borda"\nmeasure = "P@10"\n',
            "measure applies to tuned weights, and borda tunes none: remove measure",
        ),
        ('method = "borda"\ntransform = "minmax"\n', "transform applies to interpolation, not borda: remove transform"),
        ('method = "borda"\ntransform = "auto"\n', "transform applies to interpolation, not borda: remove transform"),
        ("weights = [0.5, 0.5]\nstep = 0.5\n", "step applies to tuned weights, and the weights are given: remove step"),
        (
            'weights = [0.5, 0.5]\nmeasure = "P@10"\n',
            "measure applies to tuned weights, and the weights are given: remove measure",
        ),
    ],
)
def test_fusion_keys_that_would_do_nothing_are_refused_when_the_file_is_read(tmp_path, capsys, more, said):
    text = _BASE + '[fusions.F]\nsystems = ["DT", "BM25"]\n' + more
    assert _file_refused(tmp_path, capsys, text) == f"fusion 'F': {said}"


def test_fusion_keys_that_are_read_are_still_taken_by_an_experiment_file(tmp_path):
    path = tmp_path / "x.toml"
    for more in (
        'method = "borda"\nweights = [2, 1]\n',
        'weights = [0.5, 0.5]\ntransform = "minmax"\n',
        'step = 0.5\nmeasure = "P@10"\ntransform = "shift"\n',
    ):
        path.write_text(_BASE + '[fusions.F]\nsystems = ["DT", "BM25"]\n' + more, encoding="utf-8")
        Experiment.read(path)


@pytest.mark.parametrize(
    "params, said",
    [
        (
            {"method": "borda", "step": 0.5, "measure": "P@10", "transform": "minmax"},
            "step applies to tuned weights, and borda tunes none: leave step out (got step=0.5)",
        ),
        (
            {"method": "borda", "transform": "minmax"},
            "transform applies to interpolation, not borda: leave transform out (got transform='minmax')",
        ),
        (
            {"weights": [0.5, 0.5], "measure": "P@10"},
            "measure applies to tuned weights, and the weights are given: leave measure out (got measure='P@10')",
        ),
    ],
)
def test_fusion_parameters_that_would_do_nothing_are_refused_by_the_system(params, said):
    from clirkit.estimator import Resources

    with pytest.raises(ClirkitError) as err:
        Fusion(**params).fit_runs([A, B], None)
    assert str(err.value) == said
    with pytest.raises(ClirkitError, match=f"^{said[:20]}"):
        Fusion([_Never(), _Never()], **params).fit(Resources())  # before any system searches


class _Never:
    """A fusion member that must not be asked to search."""

    def search(self, *args, **kw):  # pragma: no cover - fails the test when called
        raise AssertionError("searched")


def test_the_defaults_of_the_fusion_system_stay_accepted_with_borda_and_given_weights():
    assert Fusion(method="borda").fit_runs([A, B], None).fuse([A, B]).tag == "borda:K=1000:w=1,1"
    fused = Fusion(weights=[0.5, 0.5], transform="minmax").fit_runs([A, B], None).fuse([A, B])
    assert fused.tag == "interp:w=0.5,0.5:t=minmax,minmax"


# interpolate and borda: depth and runs ---------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [0, -5, 1.5, True, "3"])
def test_interpolate_and_borda_take_an_integer_depth_from_1_only(depth):
    for fuse in (interpolate, borda):
        with pytest.raises(ClirkitError) as err:
            fuse([A, B], depth=depth)
        assert str(err.value) == f"depth must be an integer >= 1, got {depth!r}"
    assert interpolate([A, B], depth=np.int64(1)).docids.tolist() == ["d1"]  # a numpy integer is one


def test_interpolate_and_borda_need_a_run():
    for fuse in (interpolate, borda):
        with pytest.raises(ClirkitError, match="^aggregation needs at least one run$"):
            fuse([])


# a fusion naming a fusion ------------------------------------------------------------------------------------


@pytest.mark.parametrize("g_first", [True, False])
def test_a_fusion_naming_a_fusion_is_told_a_fusion_fuses_systems(tmp_path, capsys, g_first):
    g = '[fusions.G]\nsystems = ["DT", "BM25"]\n'
    f = '[fusions.F]\nsystems = ["DT", "G"]\n'
    said = _file_refused(tmp_path, capsys, _BASE + (g + f if g_first else f + g))
    assert (
        said
        == """fusion 'F': 'G' is a fusion; a fusion fuses systems (list G's systems in F instead: ["DT", "BM25"])"""
    )
    more = '[fusions.F]\nsystems = ["DT", "G"]\n[fusions.G]\nsystems = "DT"\n'  # G's own systems are not a list
    assert _file_refused(tmp_path, capsys, _BASE + more) == "fusion 'F': 'G' is a fusion; a fusion fuses systems"
    more = '[fusions.F]\nsystems = ["DT", "H"]\n'
    assert _file_refused(tmp_path, capsys, _BASE + more) == "fusion 'F': unknown system 'H'"


# the experiment's name -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", ".", ".x", "-", " "])
def test_an_experiment_name_without_a_letter_or_digit_or_with_a_leading_dot_is_refused(tmp_path, capsys, name):
    said = _file_refused(tmp_path, capsys, f"name = {name!r}\n" + _BASE)
    assert said == (
        f"name {name!r}: the experiment's name needs a letter or digit and does not start with a dot "
        "(it heads the report)"
    )


def test_an_experiment_name_with_a_letter_is_taken(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text('name = "my run 2"\n' + _BASE, encoding="utf-8")
    assert Experiment.read(path).name == "my run 2"
