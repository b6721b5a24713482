"""`clirkit aggregate` with no flag but ``--kappa 0.5`` or ``--method borda`` fuses every pair of clirkit's own
runs (DT, PSQ, PSQ-Boost, a standalone Boost, SCS, monolingual-style BM25), made for real on a small slice of
nave-en-es, exactly as the experiment runner fuses them with the same weights (issue 30): the verb and the runner
read one default transform, :class:`clirkit.systems.Fusion`'s ``auto``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from clirkit import datasets
from clirkit.cli import main
from clirkit.experiment import Experiment, run_experiment
from clirkit.formats import read_run, write_run
from clirkit.systems import Fusion

# tiny rounds and epochs: the runs only need the sign patterns of the real systems (boosted and SCS scores
# can be negative, the BM25 ones cannot), not good rankings
EXPERIMENT = """
collection = "{folder}"
measures = ["AP"]
baseline = "PSQ"
seed = 3
figures = false

[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"

[systems.PSQ-Boost]
kind = "boost"
base = "PSQ"
rounds = 60
eval_every = 20
beta = 0.5
significance = 0        # the rounds early stopping chose: a run with negative scores

[systems.Boost]
kind = "boost"
rounds = 20
eval_every = 10

[systems.SCS]
kind = "scs"
epochs = 2
dim = 16
eps = 0.25

[fusions."PSQ+PSQ-Boost(k=0.5)"]
systems = ["PSQ", "PSQ-Boost"]
weights = [0.5, 0.5]

[fusions."Boost+SCS(k=0.5)"]
systems = ["Boost", "SCS"]
weights = [0.5, 0.5]

[fusions."PSQ-Boost+SCS(Borda)"]
systems = ["PSQ-Boost", "SCS"]
method = "borda"
"""
SYSTEMS = ["DT", "PSQ", "PSQ-Boost", "Boost", "SCS", "BM25"]


@pytest.fixture(scope="module")
def folder(mini, tmp_path_factory):
    """The runner's output folder: ``runs/NAME.{dev,test}.run`` of the five systems and of the three fusions,
    and ``runs/bm25.{dev,test}.run`` made by ``clirkit search`` of the runner's Spanish index with the
    queries' (English) text: a monolingual-style BM25 run, its scores >= 0."""
    work = tmp_path_factory.mktemp("fusion-defaults")
    path = work / "mini.toml"
    path.write_text(EXPERIMENT.format(folder=mini), encoding="utf-8")
    run_experiment(Experiment.read(path), work / "out", quiet=True)
    c = datasets.load(str(mini))
    for split in ("dev", "test"):
        queries = work / f"{split}.tsv"
        queries.write_text("".join(f"{q}\t{t}\n" for q, t in c.queries(split).items()), encoding="utf-8")
        assert (
            main(
                [
                    "search",
                    "--index",
                    str(work / "out" / "index.npz"),
                    "--queries",
                    str(queries),
                    "-o",
                    str(work / "out" / "runs" / f"bm25.{split}.run.gz"),
                    "--tag",
                    "BM25",
                    "-q",
                ]
            )
            == 0
        )
    return work / "out"


def run_file(folder, name: str, split: str = "test") -> str:
    return str(folder / "runs" / f"{name.lower()}.{split}.run.gz")


def test_the_slice_has_runs_with_negative_scores_and_runs_without(folder):
    lows = {name: read_run(run_file(folder, name)).scores.min() for name in SYSTEMS}
    assert lows["DT"] >= 0 and lows["PSQ"] >= 0 and lows["BM25"] >= 0
    assert lows["PSQ-Boost"] < 0 and lows["Boost"] < 0 and lows["SCS"] < 0  # what the old default ("none") refused


@pytest.mark.parametrize("first,second", list(itertools.combinations(SYSTEMS, 2)))
def test_kappa_and_borda_fuse_every_pair_with_no_other_flag_as_the_runner_does(folder, first, second, tmp_path, capsys):
    a, b = run_file(folder, first), run_file(folder, second)
    dev = [read_run(run_file(folder, n, "dev")) for n in (first, second)]
    test = [read_run(a), read_run(b)]
    for argv, params in (
        ([a, b, "--kappa", "0.5"], {"weights": [0.5, 0.5]}),
        ([a, b, "--method", "borda"], {"method": "borda"}),
    ):
        out = tmp_path / "out.run"
        assert main(["aggregate", *argv, "-o", str(out)]) == 0, capsys.readouterr().err
        # the runner's way: Fusion(systems, **spec) with the system's defaults, fitted on the dev runs,
        # fusing the test runs
        expected = Fusion(**params).fit_runs(dev, None).fuse(test)  # fixed weights: no qrels
        write_run(expected, tmp_path / "expected.run")
        assert out.read_bytes() == (tmp_path / "expected.run").read_bytes(), argv
        if "borda" not in argv:
            negative = [r.scores.min() < 0 for r in test]
            assert read_run(out).tag == "interp:w=0.5,0.5:t=" + ",".join("shift" if n else "none" for n in negative)


@pytest.mark.parametrize(
    "fused,first,second,argv",
    [
        ("psq_psq-boost-k-0.5", "PSQ", "PSQ-Boost", ["--kappa", "0.5"]),
        ("boost_scs-k-0.5", "Boost", "SCS", ["--kappa", "0.5"]),
        ("psq-boost_scs-borda", "PSQ-Boost", "SCS", ["--method", "borda"]),
    ],
)
def test_the_command_gives_the_runners_own_fusion_run(folder, fused, first, second, argv, tmp_path, capsys):
    out = tmp_path / "out.run"
    assert main(["aggregate", run_file(folder, first), run_file(folder, second), *argv, "-o", str(out)]) == 0
    got = read_run(out)
    ran = read_run(str(folder / "runs" / f"{fused}.test.run.gz"))  # the fixed-weight fusions of EXPERIMENT
    assert len(got) == len(ran) > 0
    assert got.qids.tolist() == ran.qids.tolist() and got.docids.tolist() == ran.docids.tolist()
    np.testing.assert_array_equal(got.scores, ran.scores)


def test_an_explicit_transform_none_on_a_negative_run_is_a_one_line_error(folder, tmp_path, capsys):
    out = tmp_path / "out.run"
    capsys.readouterr()
    for second in ("PSQ-Boost", "SCS"):
        assert (
            main(
                [
                    "aggregate",
                    run_file(folder, "PSQ"),
                    run_file(folder, second),
                    "--kappa",
                    "0.5",
                    "--transform",
                    "none",
                    "-o",
                    str(out),
                ]
            )
            == 2
        )
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("clirkit: error: ") and "negative scores" in err
        assert "--transform shift" in err and not out.exists()


def test_fusion_defaults_to_the_auto_transform():
    assert Fusion().transform == "auto"


def test_the_demo_fuses_psq_and_boost_untuned_at_kappa_0_5_beside_the_tuned_fusion():
    from clirkit.experiment import shipped

    fusions = Experiment.read(shipped("demo")).fusions
    assert fusions["PSQ+Boost(k=0.5)"] == {"systems": ["PSQ", "Boost"], "weights": [0.5, 0.5]}
    assert fusions["PSQ+Boost"]["systems"] == ["PSQ", "Boost"] and "weights" not in fusions["PSQ+Boost"]
    assert not any("transform" in spec for spec in fusions.values())  # all take the one default, auto
