"""`clirkit demo`: the shipped experiment file, shown, and run (--baselines-only on a small collection)."""

from __future__ import annotations

from clirkit.cli import main
from clirkit.experiment import shipped


def test_demo_show_prints_the_shipped_experiment_file(capsys):
    assert main(["demo", "--show"]) == 0
    assert capsys.readouterr().out == shipped("demo").read_text(encoding="utf-8")


def test_demo_baselines_only_on_another_collection_runs_dt_and_psq(mini, tmp_path, capsys):
    assert main(["demo", "--collection", str(mini), "--baselines-only", "-o", str(tmp_path / "d"), "-q"]) == 0
    out = capsys.readouterr().out.split("\n")
    assert out[0].startswith("mini-nave (standard), test split: 12 queries")
    assert [line.split()[0] for line in out[3:5]] == ["DT", "PSQ"] and out[5].startswith("#")
    # the file keeps PSQ's and PSQ-Boost's test runs; without PSQ-Boost, its pattern is dropped (not an error)
    assert sorted(p.name for p in (tmp_path / "d" / "runs").glob("*.run.gz")) == ["psq.test.run.gz"]


def test_baselines_only_keeps_the_run_patterns_that_still_match_a_run():
    """--baselines-only leaves DT and PSQ: a pattern of keep_runs matching none of their runs is dropped (it would
    be an error), whether a name or a wildcard."""
    from clirkit.cli.demo import kept_runs

    patterns = ["PSQ.test", "PSQ-Boost.test", "*", "*.test", "PSQ*.dev", "SCS.*", "?T.dev"]
    assert kept_runs(patterns, {"DT": {}, "PSQ": {}}) == ["PSQ.test", "*", "*.test", "PSQ*.dev", "?T.dev"]
