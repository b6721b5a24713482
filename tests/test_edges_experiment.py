"""Edge cases of experiment files and `clirkit aggregate` found by an outside tester: names that write the same run
files, fusion weights checked when the file is read, a system or run fused twice, and ``--kappa K`` fusing as
``--weights K 1-K`` written out."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment

_PAIR = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.PSQ]\nkind = "psq"\n[systems.DT]\nkind = "dt"\n{more}'


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


@pytest.mark.parametrize(
    "more, message",
    [
        pytest.param(
            '[systems.psq]\nkind = "bm25"\n',
            "systems 'PSQ' and 'psq' would write the same run files (psq.*); rename one",
            id="PSQ and psq",
        ),
        pytest.param(
            '[systems.dt_psq]\nkind = "bm25"\n[fusions."DT+PSQ"]\nsystems = ["DT", "PSQ"]\nweights = [0.5, 0.5]\n',
            "system 'dt_psq' and fusion 'DT+PSQ' would write the same run files (dt_psq.*); rename one",
            id="dt_psq and DT+PSQ",
        ),
        pytest.param(
            '[fusions.F]\nsystems = ["DT", "PSQ"]\nmethod = "borda"\n[fusions.f]\nsystems = ["PSQ", "DT"]\n'
            'method = "borda"\n',
            "fusions 'F' and 'f' would write the same run files (f.*); rename one",
            id="F and f",
        ),
    ],
)
def test_two_names_that_become_the_same_file_name_are_refused_when_the_file_is_read(
    mini, tmp_path, capsys, more, message
):
    _refused(tmp_path, capsys, _PAIR.format(mini=mini, more=more), message)


@pytest.mark.parametrize(
    "more, message",
    [
        pytest.param("weights = [-1.0, 0.0]\n", "fusion 'F': weights must be finite and >= 0, got -1 0", id="neg"),
        pytest.param(
            'method = "borda"\nweights = [2, -0.5]\n',
            "fusion 'F': weights must be finite and >= 0, got 2 -0.5",
            id="borda-neg",
        ),
        pytest.param(
            "weights = [0.3, 0.3]\n",
            "fusion 'F': weights must be numbers that sum to 1 (interpolation), got 0.3 0.3",
            id="sum",
        ),
    ],
)
def test_bad_fusion_weights_are_refused_when_the_file_is_read_naming_the_fusion(mini, tmp_path, capsys, more, message):
    path = tmp_path / "x.toml"
    text = _PAIR.format(mini=mini, more='[fusions.F]\nsystems = ["PSQ", "DT"]\n' + more)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Experiment.read(path)
    assert str(err.value).startswith(f"{path}: {message}") and "\n" not in str(err.value)
    _refused(tmp_path, capsys, text, str(err.value).removeprefix(f"{path}: "))


def test_a_fusion_listing_a_system_twice_is_refused_naming_the_fusion_and_the_system(mini, tmp_path, capsys):
    more = '[fusions.F]\nsystems = ["PSQ", "DT", "PSQ"]\nmethod = "borda"\n'
    _refused(
        tmp_path,
        capsys,
        _PAIR.format(mini=mini, more=more),
        "fusion 'F': system 'PSQ' is listed twice: list each fused system once",
    )


def _write(path, lines) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_aggregate_refuses_the_same_run_file_given_twice(tmp_path, capsys):
    a = _write(tmp_path / "a.run", ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 1 A"])
    b = _write(tmp_path / "b.run", ["q1 Q0 d2 1 4 B"])
    out = tmp_path / "fused.run"
    same = str(tmp_path / "." / "a.run")  # the same file, written otherwise
    for runs, says in (
        ([a, a], f"{a}: given twice among the RUNs (1st and 2nd)"),
        ([a, b, same], f"{same}: given twice among the RUNs (1st and 3rd)"),
    ):
        assert main(["aggregate", *runs, "-o", str(out), "-q"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"clirkit: error: {says}") and err.count("\n") == 1 and not out.exists()
    dev = ["--tune", "--dev-qrels", a, "--dev-runs", b, b]
    assert main(["aggregate", a, b, *dev, "-o", str(out), "-q"]) == 2
    assert capsys.readouterr().err.startswith(f"clirkit: error: {b}: given twice in --dev-runs (1st and 2nd)")
    assert not out.exists()


def test_kappa_fuses_as_the_weights_k_and_1_minus_k_written_out_byte_for_byte(tmp_path, capsys):
    from clirkit.formats import read_run
    from clirkit.fusion import interpolate

    # Borda at depth 10 with weights 0.9, 0.1: u (A rank 10: 1 point, B rank 2: 9 points) ties v (A rank 9: 2 points)
    # at 1.8 exactly; with 1 - 0.9 = 0.09999999999999998 u scores 1.7999999999999998 and falls below v
    a = _write(tmp_path / "a.run", [f"q1 Q0 {d} {r} {20 - r} A" for r, d in enumerate([*"abcdefgh", "v", "u"], 1)])
    b = _write(tmp_path / "b.run", ["q1 Q0 x 1 5 B", "q1 Q0 u 2 4 B", "q1 Q0 y 3 1 B"])
    for method, kappa, weights in (("borda", "0.9", ["0.9", "0.1"]), ("interpolation", "0.7", ["0.7", "0.3"])):
        k, w = tmp_path / "k.run", tmp_path / "w.run"
        common = [a, b, "--method", method, "--depth", "10", "-q"]
        assert main(["aggregate", *common, "--kappa", kappa, "-o", str(k)]) == 0
        assert main(["aggregate", *common, "--weights", *weights, "-o", str(w)]) == 0
        assert k.read_bytes() == w.read_bytes(), method
    runs = [read_run(a), read_run(b)]
    by_kappa, by_weights = interpolate(runs, kappa=0.7), interpolate(runs, [0.7, 0.3])
    assert by_kappa.docids.tolist() == by_weights.docids.tolist()
    assert by_kappa.scores.tolist() == by_weights.scores.tolist() and by_kappa.tag == by_weights.tag
    from clirkit.fusion.interpolation import kappa_weights  # the one place kappa becomes weights

    assert kappa_weights(0.9) == [0.9, 0.1] and kappa_weights(0.5) == [0.5, 0.5]  # the demo's kappa: unchanged
    assert kappa_weights(0.0) == [0.0, 1.0] and kappa_weights(1) == [1.0, 0.0]
