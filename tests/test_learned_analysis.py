"""The analysis reaches the learned systems (issue 36): a boosted ranker and SCS analyze with the experiment file's
``[analysis]``, with ``boost-train``/``scs-train --stemmer/--segmenter/...``, and with ``fit(..., analyzers=)``;
the same model from each, and an experiment makes them again when ``[analysis]`` changes."""

from __future__ import annotations

import json

import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.experiment import Experiment, run_experiment

EXPERIMENT = """collection = "{folder}"
measures = ["AP"]
seed = 3
{analysis}
[systems.Boost]
kind = "boost"
rounds = 10
eval_every = 10

[systems.SCS]
kind = "scs"
epochs = 1
dim = 8
"""


def _run(mini, folder, analysis: str):
    path = folder / "exp.toml"
    path.write_text(EXPERIMENT.format(folder=mini, analysis=analysis), encoding="utf-8")
    return run_experiment(Experiment.read(path), folder / "out", quiet=True)


@pytest.fixture(scope="module")
def unstemmed(mini, tmp_path_factory):
    folder = tmp_path_factory.mktemp("unstemmed")
    _run(mini, folder, '[analysis]\nstemmer = "none"\n')
    return folder / "out"


def test_the_experiments_analysis_reaches_boost_and_scs(unstemmed):
    from clirkit.boost import BoostModel
    from clirkit.scs import SCSModel

    boost = BoostModel.load(unstemmed / "models" / "boost.npz")
    assert boost.source_analyzer.stemmer is None and boost.target_analyzer.stemmer is None
    scs = SCSModel.load(unstemmed / "models" / "scs.npz")
    assert scs.query_analyzer_["stemmer"] is None and scs.doc_analyzer_["stemmer"] is None
    record = json.loads((unstemmed / "runs" / "boost.test.run.gz.json").read_text())
    assert record["analysis"]["source"]["stemmer"] is None


def test_an_experiment_without_analysis_records_none_and_stems(mini, tmp_path):
    from clirkit.boost import BoostModel

    _run(mini, tmp_path, "")
    assert BoostModel.load(tmp_path / "out" / "models" / "boost.npz").source_analyzer == Analyzer("en")
    assert "analysis" not in json.loads((tmp_path / "out" / "runs" / "boost.test.run.gz.json").read_text())


def test_boost_train_and_python_give_the_experiments_model(unstemmed, mini, tmp_path):
    from clirkit.systems import Boost

    c = datasets.load(str(mini))
    assert (
        main(
            [
                "boost-train",
                "--collection",
                str(mini),
                "--rounds",
                "10",
                "--eval-every",
                "10",
                "--seed",
                "3",
                "--stemmer",
                "none",
                "-o",
                str(tmp_path / "cli.npz"),
                "-q",
            ]
        )
        == 0
    )
    boost = Boost(rounds=10, eval_every=10, random_state=3, quiet=True)
    boost.fit(
        c.queries("train"),
        c.qrels("train"),
        c.documents(),
        dev_topics=c.queries("dev"),
        dev_qrels=c.qrels("dev"),
        analyzers=(Analyzer("en", stemmer=None), Analyzer("es", stemmer=None)),
    )
    boost.model_.save(tmp_path / "api.npz")
    made = (unstemmed / "models" / "boost.npz").read_bytes()
    assert (tmp_path / "cli.npz").read_bytes() == made == (tmp_path / "api.npz").read_bytes()


def test_scs_train_takes_the_analysis(mini, tmp_path):
    from clirkit.scs import SCSModel

    assert (
        main(
            [
                "scs-train",
                "--collection",
                str(mini),
                "--epochs",
                "1",
                "--dim",
                "8",
                "--segmenter",
                "bigrams",
                "--stemmer",
                "none",
                "-o",
                str(tmp_path / "scs.npz"),
                "-q",
            ]
        )
        == 0
    )
    model = SCSModel.load(tmp_path / "scs.npz")
    assert model.query_analyzer_["stemmer"] is None and model.doc_analyzer_["lang"] == "es"
