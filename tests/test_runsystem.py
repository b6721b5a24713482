"""A run made elsewhere as a system (clirkit.runsystem.RunFile, experiment kind ``run``): its search gives the run's
rows of the topics asked; in an experiment it is reported, fused and boosted from like a system of clirkit's own,
and boosting from a system's runs given as a file learns what boosting from the system learns."""

from __future__ import annotations

import gzip

import pytest

from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.run import Run
from clirkit.runsystem import RunFile

RUN = Run(["q1", "q1", "q1", "q2", "q2"], ["a", "b", "c", "b", "d"], [3.0, 2.0, 1.0, 5.0, 4.0], tag="x")


def rows(run) -> list:
    return list(zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()))


def test_search_gives_the_runs_rows_of_the_topics_asked_in_their_order(capsys):
    system = RunFile(run=RUN).fit()
    assert rows(system.search({"q2": "", "q1": ""})) == [
        ("q2", "b", 5.0),
        ("q2", "d", 4.0),
        ("q1", "a", 3.0),
        ("q1", "b", 2.0),
        ("q1", "c", 1.0),
    ]
    assert rows(system.search({"q1": ""}, depth=2, excluded={"q1": {"a"}})) == [("q1", "b", 2.0), ("q1", "c", 1.0)]
    run = system.search({"q1": "", "q3": ""}, tag="ext", quiet=False)
    assert run.tag == "ext" and run.query_ids == ["q1"]
    assert "ext: the run has no row for 1 of 2 queries" in capsys.readouterr().err
    assert len(system.search({"q9": ""})) == 0
    frame = RunFile(run=RUN.to_frame()).fit().search({"q1": ""})
    assert rows(frame) == rows(system.search({"q1": ""}))
    with pytest.raises(ClirkitError, match="RunFile is not fitted"):
        RunFile(run=RUN).search({"q1": ""})
    with pytest.raises(ClirkitError, match="a run system needs its run"):
        RunFile().fit()


EXPERIMENT = """collection = "{mini}"
measures = ["AP"]
keep_runs = ["*"]
[systems.{base}]
{spec}
[systems.B]
kind = "boost"
base = "{base}"
rounds = 10
eval_every = 5
significance = 0
[fusions.F]
systems = ["{base}", "B"]
weights = [0.5, 0.5]
"""


def test_an_experiments_run_system_is_reported_fused_and_boosted_from_as_the_system_it_holds(mini, tmp_path):
    from clirkit.experiment import Experiment, run_experiment
    from clirkit.formats import read_run

    first = tmp_path / "psq.toml"
    first.write_text(EXPERIMENT.format(mini=mini, base="PSQ", spec='kind = "psq"'), encoding="utf-8")
    run_experiment(Experiment.read(first), tmp_path / "a", quiet=True)
    # the train run (which the runner does not keep) made by PSQ over the runner's index and reverse table
    from clirkit import datasets
    from clirkit.formats import write_run
    from clirkit.retrieval.index import Index
    from clirkit.systems import PSQ
    from clirkit.translation import load_table

    c = datasets.load(str(mini))
    psq = PSQ(source_lang="en").fit(
        Resources(
            index=Index.load(tmp_path / "a" / "index.npz"),
            reverse_table=load_table(tmp_path / "a" / "table.reverse.npz"),
        )
    )
    assert rows(psq.search(c.queries("test"), tag="PSQ")) == rows(
        read_run(str(tmp_path / "a" / "runs" / "psq.test.run.gz"))
    )
    write_run(psq.search(c.queries("train"), tag="PSQ"), tmp_path / "train.run")
    with gzip.open(tmp_path / "all.run.gz", "wb") as out:  # every split's PSQ run in one file
        out.write((tmp_path / "train.run").read_bytes())
        for split in ("dev", "test"):
            out.write(gzip.decompress((tmp_path / "a" / "runs" / f"psq.{split}.run.gz").read_bytes()))
    second = tmp_path / "ext.toml"
    second.write_text(EXPERIMENT.format(mini=mini, base="ext", spec='kind = "run"\nfile = "all.run.gz"'), "utf-8")
    run_experiment(Experiment.read(second), tmp_path / "b", quiet=True)

    def got(folder: str, name: str) -> list:
        return [r[1:] for r in rows(read_run(str(tmp_path / folder / "runs" / f"{name}.test.run.gz")))]

    assert got("b", "ext") == got("a", "psq")
    assert got("b", "b") == got("a", "b")  # boosted from the file: the model boosted from PSQ
    assert got("b", "f") == got("a", "f")
    (tmp_path / "all.run.gz").unlink()
    with pytest.raises(ClirkitError, match="file all.run.gz: no such file"):
        run_experiment(Experiment.read(second), tmp_path / "c", quiet=True)
