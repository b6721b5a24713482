"""The experiment's output folder is replaced as a whole (clirkit.experiment.store): a rerun killed or interrupted
at any point leaves the previous results byte for byte, the next run resumes and finishes, and a folder that is
not an experiment's is never replaced."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment, run_experiment
from clirkit.experiment.store import Store

FILE = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n[systems.PSQ]\nkind = "psq"\n{more}'


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def previous(mini, tmp_path_factory):
    """An experiment folder of DT and PSQ, and its files."""
    work = tmp_path_factory.mktemp("store")
    (work / "a.toml").write_text(FILE.format(mini=mini, more=""), encoding="utf-8")
    run_experiment(Experiment.read(work / "a.toml"), work / "first", quiet=True)
    return work, _tree(work / "first")


def _interrupted(work: Path, out: Path, toml: Path, stage: str, sig: int) -> int | None:
    """Start ``clirkit run TOML -o OUT``, send ``sig`` as soon as ``stage`` appears in its staging folder; its
    exit status (None if it had finished first)."""
    staged = out.with_name(f".{out.name}.partial") / stage
    proc = subprocess.Popen(
        [sys.executable, "-m", "clirkit", "run", str(toml), "-o", str(out), "-q"],
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    while proc.poll() is None and not staged.exists():
        time.sleep(0.002)
    if proc.poll() is not None:
        return None
    proc.send_signal(sig)
    proc.wait(timeout=60)
    return proc.returncode


@pytest.mark.slow
@pytest.mark.parametrize(
    "stage, sig",
    [
        ("index.npz", signal.SIGKILL),
        ("runs/dt.test.run.gz", signal.SIGINT),
        ("runs/psq.dev.run.gz", signal.SIGKILL),
        ("results.txt", signal.SIGINT),
        ("report.md", signal.SIGKILL),
    ],
)
def test_a_rerun_killed_at_any_point_leaves_the_previous_results_whole(previous, mini, stage, sig):
    import shutil

    work, files = previous
    out = work / f"out-{stage.replace('/', '-')}-{sig}"
    shutil.copytree(work / "first", out)
    changed = work / f"b-{out.name}.toml"  # other PSQ settings and one more system: every run made again
    changed.write_text(
        FILE.format(mini=mini, more='alpha = 0.2\n[systems.PSQ2]\nkind = "psq"\nmin_prob = 0.001\n'), encoding="utf-8"
    )
    status = _interrupted(work, out, changed, stage, sig)
    after = _tree(out)
    if status is None or (stage in ("results.txt", "report.md") and after != files):
        # finished (or switched) before the signal: then the folder is the new run's, whole
        assert "runs/psq2.test.run.gz" in after and b"\nPSQ2 " in after["results.txt"]
    else:
        assert status in (130, -signal.SIGKILL, -signal.SIGINT), status
        assert after == files  # the previous results, byte for byte
    run_experiment(Experiment.read(changed), out, quiet=True)  # the next run resumes and finishes
    fresh = work / f"fresh-{out.name}"
    run_experiment(Experiment.read(changed), fresh, quiet=True)
    assert _tree(out) == _tree(fresh) and not out.with_name(f".{out.name}.partial").exists()


def test_the_folder_holds_exactly_what_the_last_run_made(previous, mini):
    work, files = previous
    out = work / "shrinks"
    (work / "c.toml").write_text(FILE.format(mini=mini, more=""), encoding="utf-8")
    run_experiment(Experiment.read(work / "c.toml"), out, quiet=True)
    (work / "d.toml").write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n', encoding="utf-8"
    )
    run_experiment(Experiment.read(work / "d.toml"), out, quiet=True)
    assert sorted(p.name for p in (out / "runs").iterdir()) == [
        "dt.dev.run.gz",
        "dt.dev.run.gz.json",
        "dt.test.run.gz",
        "dt.test.run.gz.json",
    ]


def test_a_folder_that_is_not_an_experiments_is_refused_not_replaced(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("keep me", encoding="utf-8")
    with pytest.raises(
        ClirkitError,
        match=r"mine: holds 'thesis.tex', which is not an experiment's output; the "
        r"folder would be replaced as a whole: give a new or empty folder",
    ):
        Store(tmp_path / "mine")
    assert (tmp_path / "mine" / "thesis.tex").read_text() == "keep me"
    with pytest.raises(ClirkitError, match="give a folder name for the output"):
        Store(Path("."))


@pytest.mark.parametrize(
    "added", ["runs/my-own.run", "runs/mine/notes.txt", "runs/dt.test.run", "models/mine.npz", "collection/notes.txt"]
)
def test_a_file_of_the_users_inside_an_experiment_folder_is_refused_not_removed(previous, tmp_path, added):
    """A file added in ``runs/`` (a natural place for one's own run), ``models/`` or ``collection/`` is no
    artifact of the run (it has no record; the manifest does not name it): the rerun refuses the folder as it
    refuses one at its top level (edge test 9: it was removed with the previous output)."""
    import shutil

    work, files = previous
    out = tmp_path / "out"
    shutil.copytree(work / "first", out)
    mine = out / added
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("keep me", encoding="utf-8")
    shown = "/".join(added.split("/")[:2])  # a folder of one's own is named as such
    with pytest.raises(ClirkitError, match=rf"out: holds '{shown}', which is not an experiment's output"):
        run_experiment(Experiment.read(work / "a.toml"), out, quiet=True)
    assert mine.read_text() == "keep me" and not (tmp_path / ".out.partial").exists()
    shutil.rmtree(out / shown) if (out / shown).is_dir() else mine.unlink()
    if added.startswith("collection/"):
        (out / "collection").rmdir()
    run_experiment(Experiment.read(work / "a.toml"), out, quiet=True)  # the folder as the run wrote it: replaced
    assert _tree(out) == files


def test_a_run_removed_to_save_room_is_made_again_and_a_lone_run_or_bad_manifest_is_named(previous, tmp_path):
    """(A re-check of edge test 9: removing a run, or its record, made the rerun refuse the folder as "not an
    experiment's output".) A record whose run was removed is the run's: the rerun makes it again; a run without
    its record, or a collection folder whose manifest cannot be read, is refused saying so."""
    import shutil

    work, files = previous
    out = tmp_path / "out"
    shutil.copytree(work / "first", out)
    (out / "runs" / "dt.test.run.gz").unlink()
    run_experiment(Experiment.read(work / "a.toml"), out, quiet=True)
    assert _tree(out) == files
    (out / "runs" / "dt.test.run.gz.json").unlink()
    with pytest.raises(ClirkitError, match=r"holds 'runs/dt.test.run.gz', .* \(no record dt.test.run.gz.json beside"):
        run_experiment(Experiment.read(work / "a.toml"), out, quiet=True)
    (out / "runs" / "dt.test.run.gz").unlink()
    (out / "collection").mkdir()
    (out / "collection" / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"holds 'collection/' whose manifest.json cannot be read"):
        run_experiment(Experiment.read(work / "a.toml"), out, quiet=True)


def test_an_index_and_tables_made_before_texts_were_composed_are_made_again(previous, tmp_path):
    """Their records hold analyzer settings without ``compose`` (written before the analysis composed texts): the
    rerun makes them again rather than reusing an index of other terms (a re-check of edge test 9: an old folder of
    NFD documents gave DT .2857 where a new one gives .2824)."""
    import json
    import shutil

    work, _ = previous
    out = tmp_path / "out"
    shutil.copytree(work / "first", out)
    before = {}
    for name in ("index.npz", "table.npz"):
        record = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
        text = json.dumps(record)
        assert '"compose": true' in text
        (out / f"{name}.json").write_text(text.replace(', "compose": true', ""), encoding="utf-8")
        before[name] = os.stat(out / name).st_ino
    run_experiment(Experiment.read(work / "a.toml"), out, quiet=True)
    for name in ("index.npz", "table.npz"):
        assert '"compose": true' in (out / f"{name}.json").read_text(encoding="utf-8")
        assert os.stat(out / name).st_ino != before[name]  # made again, not linked from the previous folder


def test_two_runs_never_write_one_folder_at_once(tmp_path):
    (tmp_path / ".out.partial").mkdir()
    (tmp_path / ".out.partial" / ".owner").write_text("1", encoding="ascii")  # process 1 is always alive
    with pytest.raises(ClirkitError, match=r"out: another clirkit run \(process 1\) is writing this folder"):
        Store(tmp_path / "out")


def test_a_switch_cut_between_its_two_renames_is_put_back_by_the_next_run(tmp_path, monkeypatch):
    from clirkit.experiment import store

    monkeypatch.setattr(store, "_exchange", lambda a, b: False)  # a system without renameat2
    first = Store(tmp_path / "out")
    (first.folder / "results.txt").write_text("first\n", encoding="utf-8")
    first.commit()
    second = Store(tmp_path / "out")
    (second.folder / "results.txt").write_text("second\n", encoding="utf-8")
    os.rename(tmp_path / "out", tmp_path / ".out.old")  # killed after the first rename
    third = Store(tmp_path / "out")
    assert (tmp_path / "out" / "results.txt").read_text() == "first\n" and not (tmp_path / ".out.old").exists()
    assert (third.folder / "results.txt").read_text() == "second\n"  # what the cut run made is resumed
    third.commit()
    assert (tmp_path / "out" / "results.txt").read_text() == "second\n"
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_a_gzip_run_artifact_is_the_same_bytes_each_time_and_is_taken_from_the_previous_folder(tmp_path):
    # runs kept as NAME.SPLIT.run.gz: written with a zero mtime (the same run, the same bytes), read back
    # transparently, and linked in from the previous output when its record is unchanged
    from clirkit.formats import read_run, write_run
    from clirkit.run import Run

    run = Run(["ABIRAM.1"] * 3, ["Num.16.1", "Num.16.2", "Deut.11.6"], [7.25, 3.5, 0.5], tag="PSQ")
    record = {"system": "PSQ", "split": "test"}
    first = Store(tmp_path / "out")
    path = first.folder / "runs" / "psq.test.run.gz"
    path.parent.mkdir()
    write_run(run, path)
    first.remember(path, record)
    made = path.read_bytes()
    assert made[:2] == b"\x1f\x8b" and made[4:8] == b"\0\0\0\0"  # gzip, mtime 0
    first.commit()
    again = Store(tmp_path / "out")
    write_run(run, again.folder / "x.run.gz")
    assert (again.folder / "x.run.gz").read_bytes() == made
    (again.folder / "x.run.gz").unlink()
    assert again.fresh(again.folder / "runs" / "psq.test.run.gz", record)
    back = read_run(again.folder / "runs" / "psq.test.run.gz")
    assert back.docids.tolist() == run.docids.tolist() and back.scores.tolist() == run.scores.tolist()
    assert not again.fresh(again.folder / "runs" / "psq.test.run.gz", {**record, "split": "dev"})


PLAIN = (
    'measures = ["AP"]\n[collection]\ndocuments = "docs.tsv"\nqueries = "q.tsv"\nqrels = "q.qrels"\n'
    'source_lang = "en"\ntarget_lang = "es"\n[systems.DT]\nkind = "dt"\ntable = "{table}"\n'
)


@pytest.fixture
def plain(tmp_path):
    """A [collection] of two verses and two queries, and a dictionary: the checks read the files into collection/
    before a system's missing table file is found."""
    (tmp_path / "docs.tsv").write_text("d1\tla luz\nd2\tlas tinieblas\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tlight\nq2\tdarkness\n", encoding="utf-8")
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq2 0 d2 1\n", encoding="utf-8")
    (tmp_path / "en-es.txt").write_text("light luz\ndarkness tinieblas\n", encoding="utf-8")
    return tmp_path


def test_a_check_failing_before_the_work_leaves_no_staging_folder_of_its_own(plain, capsys):
    from clirkit.cli import main

    (plain / "e.toml").write_text(PLAIN.format(table="nope.txt"), encoding="utf-8")
    assert main(["run", str(plain / "e.toml"), "-o", str(plain / "out"), "-q"]) == 2
    assert (
        capsys.readouterr().err == f"clirkit: error: {plain / 'e.toml'}: system 'DT': table file "
        f"{plain / 'nope.txt'}: no such file\n"
    )
    assert not (plain / "out").exists() and not (plain / ".out.partial").exists()
    (plain / "e.toml").write_text(PLAIN.format(table="en-es.txt") + 'table_format = "pairs"\n', encoding="utf-8")
    assert main(["run", str(plain / "e.toml"), "-o", str(plain / "out"), "-q"]) == 0  # corrected: it runs
    assert (plain / "out" / "runs" / "dt.test.run.gz").is_file() and not (plain / ".out.partial").exists()


def test_an_interrupted_runs_staging_folder_is_kept_when_a_check_fails(plain):
    """What an interrupted run made (its collection, an index) stays for the next run to resume from, though this
    run stops at a check."""
    staging = plain / ".out.partial"
    staging.mkdir()
    (staging / ".owner").write_text("999999999", encoding="ascii")  # a process that is gone
    (staging / "index.npz").write_bytes(b"made by the interrupted run")
    (staging / "index.npz.json").write_text("{}\n", encoding="utf-8")
    (plain / "e.toml").write_text(PLAIN.format(table="nope.txt"), encoding="utf-8")
    with pytest.raises(ClirkitError, match="table file .*nope.txt: no such file"):
        run_experiment(Experiment.read(plain / "e.toml"), plain / "out", quiet=True)
    assert (staging / "index.npz").read_bytes() == b"made by the interrupted run"
    assert (staging / "collection").is_dir()  # and what this run read, for the resumed run


def test_a_run_interrupted_before_the_work_keeps_what_it_made_for_the_next(plain, monkeypatch):
    from clirkit.experiment import runner

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner.Runner, "build_all", interrupted)  # Ctrl-C after the [collection] was read
    (plain / "e.toml").write_text(PLAIN.format(table="en-es.txt") + 'table_format = "pairs"\n', encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        run_experiment(Experiment.read(plain / "e.toml"), plain / "out", quiet=True)
    assert (plain / ".out.partial" / "collection" / "manifest.json").is_file()
