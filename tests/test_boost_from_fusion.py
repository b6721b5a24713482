"""Boosting from a fusion (issue 37): an experiment file's boost names a fusion as its ``base``; the runner makes
the fusion first, and the same run comes from Python (``Boost(base=Fusion([DT, PSQ]))``) and from the command
line (the fused train and dev runs of ``clirkit aggregate`` given to ``boost-train --base-run``)."""

from __future__ import annotations

import gzip
import json

import pytest

from clirkit.boost import Boosting
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.experiment import Experiment, run_experiment
from clirkit.formats import write_run

EXPERIMENT = """
collection = "{folder}"
measures = ["AP"]
baseline = "PSQ"
seed = 3

[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"
translate = "queries"
target_stopwords_top = 20   # the query-side PSQ, as PSQ(...).fit(Resources(index=..., table=...)) in Python

[systems.Boost]
kind = "boost"
base = "DT+PSQ"
rounds = 20
eval_every = 10
beta_grid = [2.0, 5.0]

[fusions."DT+PSQ"]
systems = ["DT", "PSQ"]
weights = [0.3, 0.7]
"""


@pytest.fixture(scope="module")
def ran(mini, tmp_path_factory):
    work = tmp_path_factory.mktemp("fusion-base")
    path = work / "exp.toml"
    path.write_text(EXPERIMENT.format(folder=mini), encoding="utf-8")
    result = run_experiment(Experiment.read(path), work / "out", quiet=True)
    return work / "out", result


def test_the_fusion_is_made_before_the_system_that_boosts_from_it_and_reported_after(ran):
    out, result = ran
    lines = result.text.split("\n")
    assert [ln.split()[0] for ln in lines[3:7]] == ["DT", "PSQ", "Boost", "DT+PSQ"]
    record = json.loads((out / "runs" / "boost.test.run.gz.json").read_text())
    assert record["base"]["system"]["params"]["weights"] == [0.3, 0.7]
    assert [r["system"]["system"] for r in record["base"]["systems"]] == ["DT", "PSQ"]


def test_boost_from_a_fusion_gives_the_same_run_from_runner_python_and_command(ran, mini, tmp_path):
    from test_experiment import _api_resources

    from clirkit.systems import DT, PSQ, Boost, Fusion

    out, _ = ran
    c, table, index, documents = _api_resources(mini)
    fusion = Fusion(
        [
            DT().fit(Resources(index=index, table=table)),
            PSQ(target_stopwords_top=20).fit(Resources(index=index, table=table)),
        ],
        weights=[0.3, 0.7],
    ).fit_runs(None, None, n=2)
    boost = Boost(
        boosting=Boosting(rounds=20, eval_every=10, beta_grid=(2.0, 5.0)), base=fusion, random_state=3, quiet=True
    )
    boost.fit(
        Resources(
            topics={"train": c.queries("train"), "dev": c.queries("dev")},
            qrels={"train": c.qrels("train"), "dev": c.qrels("dev")},
            documents=documents,
        )
    )
    write_run(boost.search(c.queries("test"), tag="Boost"), tmp_path / "api.run")
    expected = gzip.decompress((out / "runs" / "boost.test.run.gz").read_bytes())
    assert (tmp_path / "api.run").read_bytes() == expected and expected
    # the command line: DT's and PSQ's runs fused by `aggregate` are the base runs, then re-rank the fused test run
    fused = {}
    for split in ("train", "dev", "test"):
        paths = [tmp_path / f"{name}.{split}.run" for name in ("dt", "psq")]
        for system, path in zip(fusion.systems, paths):
            write_run(system.search(c.queries(split)), path)
        fused[split] = tmp_path / f"fused.{split}.run"
        assert main(["aggregate", *map(str, paths), "--weights", "0.3", "0.7", "-o", str(fused[split]), "-q"]) == 0
    assert (
        main(
            [
                "boost-train",
                "--collection",
                str(mini),
                "--base-run",
                str(fused["train"]),
                str(fused["dev"]),
                "--rounds",
                "20",
                "--eval-every",
                "10",
                "--beta-grid",
                "2",
                "5",
                "--seed",
                "3",
                "-o",
                str(tmp_path / "m.npz"),
                "-q",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "boost-rank",
                str(tmp_path / "m.npz"),
                "--collection",
                str(mini),
                "--candidates",
                str(fused["test"]),
                "--tag",
                "Boost",
                "-o",
                str(tmp_path / "cli.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (tmp_path / "cli.run").read_bytes() == expected


@pytest.mark.parametrize(
    "systems, fusions, message",
    [
        (
            '[systems.B]\nkind = "boost"\nbase = "F"\n[systems.A]\nkind = "psq"\n[systems.C]\nkind = "dt"\n',
            '[fusions.F]\nsystems = ["A", "C"]\n',
            "base 'F' must be a system declared before it (or a fusion of such",
        ),
        (
            '[systems.A]\nkind = "psq"\n[systems.B]\nkind = "boost"\nbase = "F"\n',
            '[fusions.F]\nsystems = ["A", "B"]\n',
            "base 'F' must be a system declared before it (or a fusion of such",
        ),
    ],
)
def test_a_base_fusion_of_later_systems_is_refused(tmp_path, systems, fusions, message):
    path = tmp_path / "bad.toml"
    path.write_text(f'collection = "nave-en-es"\n{systems}{fusions}', encoding="utf-8")
    with pytest.raises(ClirkitError, match=message.replace("(", r"\(")):
        Experiment.read(path)


def test_the_runners_model_names_its_base_as_its_runs_are_tagged_and_boost_rank_takes_them_without_a_note(
    ran, mini, tmp_path, capsys
):
    from clirkit.boost import BoostModel

    out, _ = ran
    assert BoostModel.load(out / "models" / "boost.npz").base["tag"] == "DT+PSQ"  # the fusion's kept runs' tag
    fused = out / "runs" / "dt_psq.test.run.gz"
    args = ["boost-rank", str(out / "models" / "boost.npz"), "--collection", str(mini), "--candidates", str(fused)]
    assert main([*args, "--tag", "Boost", "-o", str(tmp_path / "b.run"), "-q"]) == 0
    assert "note" not in capsys.readouterr().err
    assert (tmp_path / "b.run").read_bytes() == gzip.decompress((out / "runs" / "boost.test.run.gz").read_bytes())
