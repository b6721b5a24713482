"""Issue 40, edge test 12 (and what round 11 left): inputs refused with one line before any work."""

from __future__ import annotations

import pytest
from test_edges_experiment import _refused

from clirkit.boost import BoostRanker
from clirkit.errors import ClirkitError

_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n{more}'


# --------------------------------------------------------------------------- left by round 11: scheduler, backend


@pytest.mark.parametrize(
    "more, message",
    [
        pytest.param(
            '[systems.B]\nkind = "boost"\nrounds = 3\nscheduler = "tcp://127.0.0.1:1"\n',
            "system 'B': scheduler is read only with backend dask (the backend is loky): give backend dask, "
            "or no scheduler",
            id="scheduler without dask",
        ),
        pytest.param(
            '[systems.B]\nkind = "boost"\nrounds = 3\nbackend = "dask"\n',
            "system 'B': backend dask needs scheduler, the dask scheduler's address (or a Client)",
            id="dask without scheduler",
        ),
    ],
)
def test_a_boost_scheduler_and_backend_that_do_not_go_together_are_refused_when_read(
    mini, tmp_path, capsys, more, message
):
    _refused(tmp_path, capsys, _ONE.format(mini=mini, more=more), message)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"scheduler": "tcp://127.0.0.1:1", "backend": "threading"}, "scheduler is read only with backend dask"),
        ({"backend": "dask"}, "backend dask needs scheduler"),
    ],
)
def test_the_ranker_refuses_a_scheduler_it_would_not_read(params, message):
    with pytest.raises(ClirkitError, match=message):
        BoostRanker.from_flat(rounds=3, **params).check_params()


# --------------------------------------------------------------------------- a dev measure beyond the tuning depth


def test_a_fusion_refuses_a_dev_measure_beyond_the_depth_it_tunes_at_before_any_run_is_read():
    from clirkit.systems import Fusion

    with pytest.raises(ClirkitError, match=r"R@2000 reads ranks beyond 1000 \(e.g. R@1000\)"):
        Fusion(measure="R@2000").check_runs(2)
    Fusion(measure="R@1000").check_runs(2)


def test_aggregate_refuses_a_dev_measure_beyond_the_tuning_depth_before_reading_the_runs(tmp_path, capsys):
    from clirkit.cli import main

    missing = [str(tmp_path / name) for name in ("a.run", "b.run", "a.dev", "b.dev", "dev.qrels")]
    argv = ["aggregate", *missing[:2], "--tune", "--dev-runs", *missing[2:4], "--dev-qrels", missing[4]]
    assert main([*argv, "--measure", "R@2000", "-o", str(tmp_path / "f.run"), "-q"]) == 2
    assert "R@2000 reads ranks beyond 1000" in capsys.readouterr().err
