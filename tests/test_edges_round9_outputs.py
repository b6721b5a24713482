"""Outputs and their inputs at their edges (edge test 9): ``aggregate --tune`` (and a Python fusion) refuses dev
runs given in another order than the runs, as their tags show; a verb with two outputs writes both or neither on an
error or a Ctrl-C (``ttable train --direction both``, ``aggregate --sweep-csv``), except ``psq --save-index``, whose
translated index is kept and said to be so."""

from __future__ import annotations

import re
import tempfile

import pytest
from test_edges_cli5 import _psq_files

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.fileio import atomic_writer, written_together
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
    refused_first_swapped(tmp_path, capsys, runs, devs, qrels)


def refused_first_swapped(tmp_path, capsys, runs, devs, qrels) -> None:
    """``aggregate --tune`` of these runs refuses its first dev run, which has the second run's tag: one line,
    nothing written."""
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
        (("DT", "PSQ"), ("DT", "BM25")),  # one dev run has its run's tag, the other none of the runs' tags
    ],
    ids=["same order", "all different", "all equal", "one other tag"],
)
def test_aggregate_tune_pairs_runs_whose_tags_do_not_show_a_swap(tmp_path, capsys, tags, dev_tags):
    runs, devs, qrels = _runs(tmp_path, tags, dev_tags)
    assert main(_aggregate(tmp_path, runs, devs, qrels)[:-1]) == 0  # without -q: the sweep is printed
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


# ------------------------------------------------------------------ 5. two outputs: both or neither


def _failing_write(monkeypatch, name: str) -> None:
    """Make the write of the file ``name`` fail as a full disk or a vanished folder would: its temporary file
    cannot be made."""
    mkstemp = tempfile.mkstemp

    def failing(*args, prefix="", **kwargs):
        if prefix.startswith(f".{name}."):
            raise OSError(28, "No space left on device")
        return mkstemp(*args, prefix=prefix, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", failing)


def test_files_written_together_appear_together_or_not_at_all(tmp_path):
    with pytest.raises(ClirkitError, match="b.txt: not written"):
        with written_together():
            with atomic_writer(tmp_path / "a.txt") as fh:
                fh.write("a\n")
            raise ClirkitError("b.txt: not written")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # neither, nor a temporary file
    with written_together():
        with atomic_writer(tmp_path / "a.txt") as fh:
            fh.write("a\n")
        assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == []  # not yet
        with atomic_writer(tmp_path / "b.txt") as fh:
            fh.write("b\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


def _train(tmp_path) -> list[str]:
    (tmp_path / "p.en").write_text("the houses are red\nthe dog runs\n", encoding="utf-8")
    (tmp_path / "p.es").write_text("las casas son rojas\nel perro corre\n", encoding="utf-8")
    train = ["ttable", "train", "--source", str(tmp_path / "p.en"), "--target", str(tmp_path / "p.es")]
    return [*train, "--source-lang", "en", "--target-lang", "es", "--direction", "both", "-o", str(tmp_path / "t.npz")]


def test_ttable_train_both_interrupted_while_the_second_table_trains_leaves_neither(tmp_path, monkeypatch, capsys):
    import clirkit.translation as translation

    trained = []
    train_table = translation.train_table

    def second_interrupted(*args, **kwargs):
        trained.append(1)
        if len(trained) == 2:
            raise KeyboardInterrupt
        return train_table(*args, **kwargs)

    monkeypatch.setattr(translation, "train_table", second_interrupted)
    capsys.readouterr()
    assert main([*_train(tmp_path), "-q"]) == 130
    assert capsys.readouterr().err == "clirkit: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.en", "p.es"]


def test_ttable_train_both_whose_second_table_cannot_be_written_leaves_neither(tmp_path, monkeypatch, capsys):
    _failing_write(monkeypatch, "t.f2e.npz")
    capsys.readouterr()
    assert main([*_train(tmp_path), "-q"]) == 2
    said = f"clirkit: error: {tmp_path / 't.f2e.npz'}: cannot write in {tmp_path} (No space left on device)\n"
    assert capsys.readouterr().err == said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.en", "p.es"]
    monkeypatch.undo()
    assert main(_train(tmp_path)) == 0
    err = capsys.readouterr().err
    assert "-> " + str(tmp_path / "t.e2f.npz") in err and "-> " + str(tmp_path / "t.f2e.npz") in err
    assert (tmp_path / "t.e2f.npz").exists() and (tmp_path / "t.f2e.npz").exists()


def test_aggregate_whose_run_cannot_be_written_leaves_no_sweep_csv(tmp_path, monkeypatch, capsys):
    runs, devs, qrels = _runs(tmp_path)
    _failing_write(monkeypatch, "f.run")
    capsys.readouterr()
    assert main(_aggregate(tmp_path, runs, devs, qrels)) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {tmp_path / 'f.run'}: cannot write in {tmp_path} (No space left on device)\n"
    )
    assert not (tmp_path / "sweep.csv").exists() and not (tmp_path / "f.run").exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_psq_whose_run_cannot_be_written_keeps_its_translated_index_and_says_so(tmp_path, monkeypatch, capsys):
    psq = _psq_files(tmp_path)
    _failing_write(monkeypatch, "r.run")
    argv = [*psq, "--table", str(tmp_path / "t.npz"), "-o", str(tmp_path / "r.run")]
    capsys.readouterr()
    assert main([*argv, "--save-index", str(tmp_path / "tx.npz"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {tmp_path / 'r.run'}: cannot write in {tmp_path} (No space left on device); the "
        f"translated index {tmp_path / 'tx.npz'} is written and whole; the run is not\n"
    )
    assert (tmp_path / "tx.npz").exists() and not (tmp_path / "r.run").exists()
    assert main([*argv, "-q"]) == 2  # no index saved: nothing more said
    assert capsys.readouterr().err.endswith("(No space left on device)\n")
    monkeypatch.undo()
    again = ["psq", "--index", str(tmp_path / "tx.npz"), "--queries", str(tmp_path / "q.tsv"), "--source-lang", "en"]
    assert main([*again, "-o", str(tmp_path / "r.run"), "-q"]) == 0  # the index kept is searched as it is
