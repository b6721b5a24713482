"""The analysis reaches the learned systems (issue 36): a boosted ranker and SCS analyze with the experiment file's
``[analysis]``, with ``boost-train``/``scs-train --stemmer/--segmenter/...``, and with ``fit(..., analyzers=)``;
the same model from each, and an experiment makes them again when ``[analysis]`` changes."""

from __future__ import annotations

import json

import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.boost import Boosting
from clirkit.cli import main
from clirkit.estimator import Resources
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


def _python_boost(c, analyzers, path) -> None:
    """The boosted ranker of boost-train's settings in the tests (10 rounds, seed 3), fitted in Python with
    ``analyzers`` on collection ``c``, its model saved at ``path``."""
    from clirkit.systems import Boost

    boost = Boost(boosting=Boosting(rounds=10, eval_every=10), random_state=3, quiet=True)
    boost.fit(
        Resources(
            topics={"train": c.queries("train"), "dev": c.queries("dev")},
            qrels={"train": c.qrels("train"), "dev": c.qrels("dev")},
            documents=c.documents(),
            analyzers=analyzers,
        )
    )
    boost.model_.save(path)


def test_boost_train_and_python_give_the_experiments_model(unstemmed, mini, tmp_path):

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
    _python_boost(c, (Analyzer("en", stemmer=None), Analyzer("es", stemmer=None)), tmp_path / "api.npz")
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


def test_each_sides_stopwords_from_a_file_reach_boost_and_scs_as_python_gives_them(mini, tmp_path):
    from clirkit.boost import BoostModel
    from clirkit.scs import SCSModel

    (tmp_path / "en.txt").write_text("# English words dropped\nthe\nof\nand\n", encoding="utf-8")
    sides = ["--source-stopwords", str(tmp_path / "en.txt"), "--target-stopwords", "snowball"]
    common = ["--collection", str(mini), "--seed", "3", "-q"]
    boost_args = ["boost-train", *common, "--rounds", "10", "--eval-every", "10", *sides]
    assert main([*boost_args, "-o", str(tmp_path / "cli.npz")]) == 0
    model = BoostModel.load(tmp_path / "cli.npz")
    assert model.source_analyzer.stopwords == frozenset({"the", "of", "and"})
    assert model.target_analyzer == Analyzer("es", stopwords="snowball")
    c = datasets.load(str(mini))
    analyzers = (Analyzer("en", stopwords=["the", "of", "and"]), Analyzer("es", stopwords="snowball"))
    _python_boost(c, analyzers, tmp_path / "api.npz")
    assert (tmp_path / "cli.npz").read_bytes() == (tmp_path / "api.npz").read_bytes()
    scs_args = ["scs-train", *common, "--epochs", "1", "--dim", "8", *sides, "-o", str(tmp_path / "scs.npz")]
    assert main(scs_args) == 0
    assert set(SCSModel.load(tmp_path / "scs.npz").query_analyzer_["stopwords"]) == {"the", "of", "and"}


def test_a_stopword_file_for_both_sides_is_one_error_naming_the_side_options(mini, tmp_path, capsys):
    (tmp_path / "en.txt").write_text("the\n", encoding="utf-8")
    args = ["boost-train", "--collection", str(mini), "--stopwords", str(tmp_path / "en.txt"), "-o", "m.npz", "-q"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--source-stopwords or --target-stopwords" in err and len(err.strip().splitlines()) == 1
