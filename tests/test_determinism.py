"""Same inputs and seed, same bytes: every verb that writes a file, run twice on a small slice of the bundled
collection (the ``mini`` collection folder), gives outputs with the same sha256, with ``--jobs 1`` for the
first run and ``--jobs 2`` for the second where the verb has ``--jobs`` (so worker processes change nothing).

The pipeline runs once per module: each verb's first output feeds the verbs after it, and each verb runs a
second time on the very same inputs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from clirkit.cli import main

EXPERIMENT = """\
name = "twice"
collection = "{folder}"
measures = ["AP", "P@10"]
baseline = "PSQ"
seed = 3
jobs = 1

[table]
iterations = 2

[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"

[systems.Boost]
kind = "boost"
rounds = 10
bags = 2
bag_fraction = 0.8
eval_every = 5

[fusions."DT+PSQ"]
systems = ["DT", "PSQ"]
step = 0.25
"""

# verb -> does it take --jobs (the second run then uses --jobs 2)
VERBS = {
    "index": True,
    "ttable train": True,
    "ttable prune": False,
    "ttable convert": False,
    "search": False,
    "dt": False,
    "psq": False,
    "eval": False,
    "aggregate": False,
    "scs-train": True,
    "scs-score": True,
    "boost-train": True,
    "boost-rank": False,
    "run": True,
    "collection": False,
    "datasets export": False,
}


def _sha256(path: Path) -> dict[str, str]:
    """``{relative name: sha256}`` of a file, or of every file under a folder."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {
        str(p.relative_to(path.parent if path.is_file() else path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in files
    }


def _twice(work: Path, name: str, argv: list[str], *, jobs: bool, outputs: tuple[str, ...]) -> dict:
    """Run ``clirkit ARGV`` twice, ``OUT`` in ``argv`` naming ``a/NAME`` then ``b/NAME`` (``--jobs 1``, then
    ``--jobs 2`` if ``jobs``); returns ``{"a": [paths], "b": [paths]}`` of the ``outputs`` (names with ``OUT``)."""
    made = {}
    for run, n_jobs in (("a", "1"), ("b", "2")):
        folder = work / run
        folder.mkdir(exist_ok=True)
        out = str(folder / name)
        args = [a.replace("OUT", out) for a in argv] + (["--jobs", n_jobs] if jobs else [])
        assert main(args) == 0, args
        made[run] = [Path(o.replace("OUT", out)) for o in outputs]
    return made


@pytest.fixture(scope="module")
def twice(mini, tmp_path_factory) -> dict[str, dict]:
    """Every file-writing verb run twice: ``{verb: {"a": [paths], "b": [paths]}}``; texts are tokenized in
    chunks of 64 so that ``--jobs 2`` really spreads them over two processes."""
    import clirkit.analysis

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(clirkit.analysis, "_CHUNK", 64)
        return _pipeline(Path(mini), tmp_path_factory.mktemp("twice"))


def _pipeline(m: Path, work: Path) -> dict[str, dict]:
    en, es = work / "en.tsv", work / "es.tsv"
    pairs = [line.split("\t") for line in (m / "parallel.tsv").read_text(encoding="utf-8").splitlines()]
    en.write_text("".join(f"{p[0]}\t{p[1]}\n" for p in pairs), encoding="utf-8")
    es.write_text("".join(f"{p[0]}\t{p[2]}\n" for p in pairs), encoding="utf-8")
    spanish = work / "es-queries.tsv"  # search is monolingual: Spanish verses as queries
    spanish.write_text("".join(f"q{i}\t{p[2]}\n" for i, p in enumerate(pairs[:12])), encoding="utf-8")
    test, dev = str(m / "queries.test.tsv"), str(m / "queries.dev.tsv")
    done: dict[str, dict] = {}

    def run(verb: str, name: str, argv: list[str], outputs: tuple[str, ...] = ("OUT",)) -> Path:
        done[verb] = _twice(work, name, verb.split() + argv, jobs=VERBS[verb], outputs=outputs)
        return done[verb]["a"][0]

    index = str(run("index", "ix.npz", [str(m / "documents.tsv"), "-o", "OUT", "--lang", "es", "-q"]))
    table = str(
        run(
            "ttable train",
            "t.npz",
            [
                "--source",
                str(en),
                "--target",
                str(es),
                "--aligned-by",
                "id",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "--iterations",
                "3",
                "-o",
                "OUT",
                "-q",
            ],
        )
    )
    run("ttable prune", "pruned.npz", [table, "-o", "OUT", "--cumulative", "0.8", "--max-options", "5", "-q"])
    run("ttable convert", "t.txt.gz", [table, "-o", "OUT", "-q"])
    run("search", "bm25.run", ["--index", index, "--queries", str(spanish), "-o", "OUT", "--depth", "50", "-q"])
    dt = str(run("dt", "dt.run", ["--index", index, "--queries", test, "--table", table, "-o", "OUT", "-q"]))
    psq = str(run("psq", "psq.run", ["--index", index, "--queries", test, "--table", table, "-o", "OUT", "-q"]))
    dev_runs = []
    for verb in ("dt", "psq"):
        dev_runs.append(str(work / f"{verb}.dev.run"))
        assert main([verb, "--index", index, "--queries", dev, "--table", table, "-o", dev_runs[-1], "-q"]) == 0
    run(
        "eval",
        "eval.json",
        [
            "--qrels",
            str(m / "qrels.test.txt"),
            psq,
            dt,
            "--format",
            "json",
            "--permutations",
            "500",
            "--seed",
            "5",
            "-o",
            "OUT",
            "--quiet",
        ],
    )
    run(
        "aggregate",
        "fused.run",
        [
            dt,
            psq,
            "-o",
            "OUT",
            "--tune",
            "--dev-qrels",
            str(m / "qrels.dev.txt"),
            "--dev-runs",
            *dev_runs,
            "--step",
            "0.25",
            "--sweep-csv",
            "OUT.csv",
            "-q",
        ],
        outputs=("OUT", "OUT.csv"),
    )
    scs = str(
        run(
            "scs-train",
            "scs.npz",
            [
                "--collection",
                str(m),
                "--epochs",
                "2",
                "--dim",
                "8",
                "--negatives",
                "5",
                "--seed",
                "7",
                "-o",
                "OUT",
                "-q",
            ],
        )
    )
    run("scs-score", "scs.run", [scs, "--collection", str(m), "--depth", "50", "-o", "OUT", "-q"])
    boost = str(
        run(
            "boost-train",
            "boost.npz",
            [
                "--collection",
                str(m),
                "--rounds",
                "15",
                "--eval-every",
                "5",
                "--bags",
                "2",
                "--bag-fraction",
                "0.8",
                "--seed",
                "4",
                "-o",
                "OUT",
                "-q",
            ],
        )
    )
    run("boost-rank", "boost.run", [boost, "--collection", str(m), "--depth", "50", "-o", "OUT", "-q"])
    experiment = work / "twice.toml"
    experiment.write_text(EXPERIMENT.format(folder=m.as_posix()), encoding="utf-8")
    run("run", "exp", [str(experiment), "-o", "OUT", "-q"])
    run(
        "collection",
        "coll",
        [
            "--documents",
            str(m / "documents.tsv"),
            "--queries",
            test,
            "--qrels",
            str(m / "qrels.test.txt"),
            "--source-lang",
            "en",
            "--target-lang",
            "es",
            "--split",
            "dev=0.5,test=0.5",
            "-o",
            "OUT",
            "-q",
        ],
    )
    run("datasets export", "exported", [str(m), "-o", "OUT", "-q"])
    return done


@pytest.mark.parametrize("verb", list(VERBS))
def test_two_runs_of_a_verb_write_byte_identical_files(twice, verb, capsys):
    capsys.readouterr()
    made = twice[verb]
    for a, b in zip(made["a"], made["b"]):
        first, second = _sha256(a), _sha256(b)
        assert first and set(first) == set(second)
        if verb == "run":  # results.txt ends with the steps' wall times (clirkit.experiment): compare the rest
            for digests, folder in ((first, a), (second, b)):
                text = (folder / "results.txt").read_text(encoding="utf-8")
                digests["results.txt"] = "\n".join(line for line in text.splitlines() if not line.startswith("time:"))
        assert first == second, f"{verb}: {[name for name in first if first[name] != second.get(name)]} differ"


def test_the_pipeline_covers_every_verb_that_writes_a_file():
    from clirkit.cli import VERBS as ALL

    writes = {v for v in ALL if v not in ("ttable", "boost-show", "demo", "datasets")} | {
        "ttable train",
        "ttable prune",
        "ttable convert",
        "datasets export",
    }
    assert writes == set(VERBS)
