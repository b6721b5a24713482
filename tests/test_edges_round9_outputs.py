"""Outputs and their inputs at their edges (edge test 9): ``aggregate --tune`` (and a Python fusion) refuses dev
runs given in another order than the runs, as their tags show."""

from __future__ import annotations

import re

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.formats import read_qrels, read_run
from clirkit.systems import Fusion

# ------------------------------------------------------------------ 4. dev runs paired with the runs by position


def _runs(tmp_path, tags=("DT", "PSQ"), dev_tags=("DT", "PSQ")) -> tuple[list[str], list[str], str]:
    """Two test runs and two dev runs (tagged ``tags`` and ``dev_tags``) and the dev qrels: on dev, the second
    system finds the relevant document."""
    runs, devs = [], []
    for i, (tag, dev_tag) in enumerate(zip(tags, dev_tags)):
        good, bad = (2, 1) if i == 0 else (1, 2)
        (tmp_path / f"t{i}.run").write_text(f"t Q0 x{i} 1 5 {tag}\n", encoding="utf-8")
        dev = f"q Q0 bad {bad} {4 - bad} {dev_tag}\nq Q0 good {good} {4 - good} {dev_tag}\n"
        (tmp_path / f"d{i}.run").write_text(dev, encoding="utf-8")
        runs.append(str(tmp_path / f"t{i}.run"))
        devs.append(str(tmp_path / f"d{i}.run"))
    (tmp_path / "dev.qrels").write_text("q 0 good 1\n", encoding="utf-8")
    return runs, devs, str(tmp_path / "dev.qrels")


def _aggregate(tmp_path, runs, devs, qrels) -> list[str]:
    out = ["-o", str(tmp_path / "f.run"), "--sweep-csv", str(tmp_path / "sweep.csv"), "-q"]
    return ["aggregate", *runs, "--tune", "--dev-runs", *devs, "--dev-qrels", qrels, *out]


def test_aggregate_tune_refuses_dev_runs_whose_tags_are_the_runs_in_another_order(tmp_path, capsys):
    runs, devs, qrels = _runs(tmp_path, dev_tags=("PSQ", "DT"))
    capsys.readouterr()
    assert main(_aggregate(tmp_path, runs, devs, qrels)) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"clirkit: error: {devs[0]}: the 1st of --dev-runs (tag PSQ) is paired with the 1st RUN {runs[0]} (tag DT), "
        "but has the tag of the 2nd RUN: give --dev-runs in the same order as the RUNs\n"
    )
    assert captured.out == "" and not (tmp_path / "f.run").exists() and not (tmp_path / "sweep.csv").exists()


@pytest.mark.parametrize(
    "tags, dev_tags",
    [
        (("DT", "PSQ"), ("DT", "PSQ")),  # the same order
        (("DT", "PSQ"), ("a", "b")),  # other tools' tags
        (("clirkit", "clirkit"), ("clirkit", "clirkit")),  # all equal: the tags say nothing
        (("DT", "PSQ"), ("PSQ", "PSQ")),  # not the runs' tags reordered
    ],
    ids=["same order", "all different", "all equal", "repeated"],
)
def test_aggregate_tune_pairs_runs_whose_tags_do_not_show_a_swap(tmp_path, capsys, tags, dev_tags):
    runs, devs, qrels = _runs(tmp_path, tags, dev_tags)
    assert main(_aggregate(tmp_path, runs, devs, qrels)) == 0
    assert "best weights 0, 1 " in capsys.readouterr().out  # the second system finds it on dev
    assert read_run(tmp_path / "f.run").docids.tolist() == ["x1", "x0"]


def test_a_fusion_fit_on_dev_runs_refuses_runs_given_in_another_order(tmp_path):
    runs, devs, qrels = _runs(tmp_path)
    fusion = Fusion().fit_runs([read_run(p) for p in devs], read_qrels(qrels))
    test = [read_run(p) for p in runs]
    assert fusion.fuse(test).docids.tolist() == ["x1", "x0"]
    said = "run 1 (tag 'PSQ') is paired with dev run 1 (tag 'DT'), which has the tag of run 2: give the runs in the "
    with pytest.raises(ClirkitError, match=f"^{re.escape(said)}order of the dev runs the fusion was fit on$"):
        fusion.fuse(test[::-1])
