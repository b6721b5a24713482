"""Edge cases of round 15b (miscellaneous): a dev run of ``aggregate --tune`` / ``Fusion.fit_runs`` that shares no
query with the dev qrels is refused, naming it; a bad ``--split`` (or [collection] ``split``) names its problem (a
zero fraction, an unknown split, a fraction that is not a number); a model file of another kind says its kind
without a wrong article; one field is "1 field"; ``aggregate --tune -q`` prints no sweep; SCS word vectors are said
to match analyzed (stemmed) terms."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError


def _write(path, lines) -> str:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def _tune_files(tmp_path):
    """Two test runs, two dev runs of q1/q2 and dev qrels judging q1/q2, and a test run of q9 (no dev query)."""
    qrels = _write(tmp_path / "dev.qrels", ["q1 0 good 1", "q2 0 rel 1"])
    d1 = _write(tmp_path / "d1.run", ["q1 Q0 good 1 2 A", "q1 Q0 bad 2 1 A", "q2 Q0 rel 1 2 A"])
    d2 = _write(tmp_path / "d2.run", ["q1 Q0 bad 1 2 B", "q1 Q0 good 2 1 B", "q2 Q0 rel 1 2 B"])
    t1 = _write(tmp_path / "t1.run", ["q9 Q0 x 1 2 A", "q9 Q0 y 2 1 A"])
    t2 = _write(tmp_path / "t2.run", ["q9 Q0 y 1 2 B", "q9 Q0 x 2 1 B"])
    return qrels, d1, d2, t1, t2


# 1. a dev run that shares no query with the dev qrels ------------------------------------------------------------


def test_aggregate_tune_refuses_one_dev_run_that_covers_no_dev_query_naming_its_file(tmp_path, capsys):
    qrels, d1, d2, t1, t2 = _tune_files(tmp_path)
    out = tmp_path / "x.run"
    argv = ["aggregate", t1, t2, "--tune", "--dev-qrels", qrels, "-o", str(out)]
    assert main([*argv, "--dev-runs", t1, d2]) == 2  # the test run given as the first dev run
    err = capsys.readouterr().err
    assert err.startswith(
        f"clirkit: error: {t1}: dev run 1 ('A'): none of its 1 queries (e.g. 'q9') is in the dev qrels"
    )
    assert err.count("\n") == 1 and "best weights" not in err and not out.exists()
    assert main([*argv, "--dev-runs", d1, t2, "-q"]) == 2  # the second one
    assert capsys.readouterr().err.startswith(f"clirkit: error: {t2}: dev run 2 ('B'): none of its 1 queries")
    assert main([*argv, "--dev-runs", d1, d2, "-q"]) == 0 and out.exists()  # both cover dev queries: tuned


def test_fusion_fit_runs_refuses_one_dev_run_that_covers_no_dev_query_naming_its_position(tmp_path):
    from clirkit.formats import read_qrels, read_run
    from clirkit.systems import Fusion

    qrels, d1, d2, t1, _ = _tune_files(tmp_path)
    with pytest.raises(ClirkitError, match=r"^dev run 2 \('A'\): none of its 1 queries \(e\.g\. 'q9'\) is in the dev"):
        Fusion().fit_runs([read_run(d2), read_run(t1)], read_qrels(qrels))
    assert Fusion().fit_runs([read_run(d1), read_run(d2)], read_qrels(qrels)).weights_ is not None


