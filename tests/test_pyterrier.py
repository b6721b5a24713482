"""clirkit.pyterrier against the real PyTerrier (no Java): an experiment folder's systems as transformers give the
runner's runs byte for byte, pt.Experiment's own evaluation gives clirkit's numbers, PSQ is the first stage of
PyTerrier re-rankers, the learners fit as pt.Estimators, and bad input is a one-line ClirkitError."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest

from clirkit.boost import Boosting
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.experiment import Experiment, run_experiment
from clirkit.formats import read_run, write_run
from clirkit.metrics import evaluate
from clirkit.run import Run
from clirkit.scs.params import Schedule, Shape

try:
    import pyterrier as pt

    from clirkit import pyterrier as cpt
except ImportError:  # every test but the last is skipped (saved)
    pt = cpt = None

MEASURES = ["AP", "nDCG@10", "R@1000"]
EXPERIMENT = """
collection = "{folder}"
measures = ["AP", "nDCG@10", "R@1000"]
baseline = "PSQ"
seed = 3

[systems.BM25]
kind = "bm25"

[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"

[systems.PSQ-Boost]
kind = "boost"
base = "PSQ"
rounds = 30
eval_every = 10
beta_grid = [2.0, 5.0]

[systems.Boost]
kind = "boost"
base = "DT+PSQ"
rounds = 30
eval_every = 10
beta_grid = [2.0, 5.0]

[fusions."PSQ+PSQ-Boost"]
systems = ["PSQ", "PSQ-Boost"]
step = 0.25

[fusions."DT+PSQ"]
systems = ["DT", "PSQ"]
step = 0.25
"""
NAMES = ["BM25", "DT", "PSQ", "PSQ-Boost", "Boost", "PSQ+PSQ-Boost", "DT+PSQ"]


def kept_run(path) -> bytes:
    """The text of a run the experiment runner kept (``runs/NAME.SPLIT.run.gz``)."""
    return gzip.decompress(path.read_bytes())


@pytest.fixture(scope="module")
def saved(mini, tmp_path_factory):
    """The experiment run by clirkit's runner on a slice of nave-en-es, read back as transformers."""
    pytest.importorskip("pyterrier", reason="PyTerrier is not installed: pip install 'clirkit[pyterrier]'")
    work = tmp_path_factory.mktemp("pt")
    path = work / "mini.toml"
    path.write_text(EXPERIMENT.format(folder=mini), encoding="utf-8")
    run_experiment(Experiment.read(path), work / "out", quiet=True)
    return cpt.from_experiment(path, work / "out")


def _bytes(run: Run, path) -> bytes:
    write_run(run, path)
    return path.read_bytes()


def _one_line_error(call) -> str:
    with pytest.raises(ClirkitError) as caught:
        call()
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_each_systems_transformer_gives_the_runners_run_byte_for_byte(saved, tmp_path):
    topics = saved.topics("test")
    for name in NAMES:
        results = saved.retriever(name)(topics)
        assert {"qid", "docno", "score", "rank", "query"} <= set(results.columns)
        made = Run.from_frame(results, tag=name)
        assert _bytes(made, tmp_path / "made.run") == kept_run(saved.folder / "runs" / f"{_file(name)}.test.run.gz")


def _file(name: str) -> str:
    from clirkit.experiment.store import file_name

    return file_name(name)


def test_pt_experiment_gives_clirkit_evals_numbers_for_bm25_dt_psq_psq_boost_and_a_fusion(saved, tmp_path):
    from pyterrier.measures import AP, R, nDCG

    table = pt.Experiment(
        [saved.retriever(n) for n in NAMES],
        saved.topics("test"),
        saved.qrels("test"),
        eval_metrics=[AP, nDCG @ 10, R @ 1000],
        names=NAMES,
    )
    qrels = saved.resources.qrels("test")
    for _, row in table.iterrows():  # clirkit's evaluation of the runs the runner wrote (what `clirkit eval` reads)
        means = evaluate(read_run(saved.folder / "runs" / f"{_file(row['name'])}.test.run.gz"), qrels, MEASURES).mean()
        for measure in MEASURES:
            assert row[measure] == pytest.approx(means[measure], abs=1e-9), (row["name"], measure)
    made = {kept_run(saved.folder / "runs" / f"{_file(name)}.test.run.gz") for name in NAMES}
    assert len(made) == len(NAMES) and table["AP"].nunique() > 1  # different runs, not one run five times


def test_psq_is_the_first_stage_of_a_reranker_written_in_pyterrier(saved):
    psq = saved.retriever("PSQ")
    shorter_first = psq >> pt.apply.doc_score(lambda row: row["score"] / len(row["docno"]))
    results = shorter_first(saved.topics("test"))
    expected = saved.run("PSQ")
    by_row = {
        (q, d): s / len(d)
        for q, d, s in zip(expected.qids.tolist(), expected.docids.tolist(), expected.scores.tolist())
    }
    assert len(results) == len(expected)
    assert all(by_row[(q, d)] == s for q, d, s in zip(results["qid"], results["docno"], results["score"]))
    table = pt.Experiment(
        [psq, shorter_first],
        saved.topics("test"),
        saved.qrels("test"),
        eval_metrics=["map"],
        names=["PSQ", "PSQ >> rescored"],
    )
    reranked = Run.from_dict({q: {d: s for (qq, d), s in by_row.items() if qq == q} for q in expected.query_ids})
    assert table["map"].tolist() == pytest.approx(
        [
            evaluate(expected, saved.resources.qrels("test"), "AP").mean()["AP"],
            evaluate(reranked, saved.resources.qrels("test"), "AP").mean()["AP"],
        ],
        abs=1e-9,
    )


def test_psq_then_the_boosted_reranker_is_the_psq_boost_system(saved):
    topics = saved.topics("test")
    piped = (saved.retriever("PSQ") >> saved.reranker("PSQ-Boost"))(topics)
    whole = saved.retriever("PSQ-Boost")(topics)
    assert piped[["qid", "docno", "score", "rank"]].equals(whole[["qid", "docno", "score", "rank"]])


def test_a_reranker_keeps_the_rows_other_columns_and_needs_the_score_of_a_base_ranker(saved):
    first = saved.retriever("PSQ", depth=5)(saved.topics("test")).assign(note=lambda f: "n" + f["docno"])
    reranked = saved.reranker("PSQ-Boost")(first)
    assert len(reranked) == len(first) and (reranked["note"] == "n" + reranked["docno"]).all()
    assert (reranked.groupby("qid")["rank"].min() == 0).all()
    message = _one_line_error(lambda: saved.reranker("PSQ-Boost")(first.drop(columns=["score"])))
    assert "no score column" in message


def test_scs_reranks_a_results_frame_as_scs_score_rerank_does(saved):
    from clirkit.systems import SCS

    c = saved.resources.c
    scs = SCS(shape=Shape(dim=16), schedule=Schedule(epochs=1), random_state=3).fit(
        Resources(topics={"train": c.queries("train")}, qrels={"train": c.qrels("train")}, documents=c.documents())
    )
    first = saved.retriever("PSQ", depth=20)(saved.topics("test"))
    reranked = cpt.reranker(scs)(first)
    expected = scs.search(c.queries("test"), rerank=Run.from_frame(first))
    assert reranked["docno"].tolist() == expected.docids.tolist()
    assert reranked["score"].tolist() == expected.scores.tolist()
    scored = cpt.retriever(scs)(saved.topics("test"))  # and SCS as a first stage over every document
    assert Run.from_frame(scored).docids.tolist() == scs.search(c.queries("test")).docids.tolist()


def test_bm25_of_the_untranslated_queries_is_a_first_stage_built_from_an_index(saved, tmp_path):
    from clirkit.systems import BM25Search

    bm25 = cpt.retriever(BM25Search().fit(saved.resources))
    assert repr(bm25) == "Retriever(BM25)" and not isinstance(bm25, pt.Estimator)
    made = Run.from_frame(bm25(saved.topics("test")), tag="BM25")
    assert _bytes(made, tmp_path / "made.run") == kept_run(saved.folder / "runs" / "bm25.test.run.gz")
    assert _one_line_error(lambda: cpt.reranker(BM25Search())).startswith("a BM25Search cannot re-rank given results")


def test_a_boosted_ranker_fits_as_a_pyterrier_estimator_and_gives_the_runners_model(saved, tmp_path):
    from clirkit.systems import Boost

    boost = cpt.retriever(
        Boost(
            boosting=Boosting(rounds=30, eval_every=10, beta_grid=(2.0, 5.0)),
            base=saved.system("PSQ"),
            random_state=3,
            quiet=True,
        ),
        resources=saved.resources,
    )
    assert isinstance(boost, pt.Estimator) and not isinstance(saved.retriever("PSQ"), pt.Estimator)
    boost.fit(saved.topics("train"), saved.qrels("train"), saved.topics("dev"), saved.qrels("dev"))
    made = Run.from_frame(boost(saved.topics("test")), tag="PSQ-Boost")
    assert _bytes(made, tmp_path / "made.run") == kept_run(saved.folder / "runs" / "psq-boost.test.run.gz")


def test_a_pipeline_fits_its_reranker_on_the_first_stages_results(saved, tmp_path):
    from clirkit.systems import Boost

    psq = saved.retriever("PSQ")
    rerank = cpt.reranker(
        Boost(
            boosting=Boosting(rounds=30, eval_every=10, beta_grid=(2.0, 5.0)),
            base=saved.system("PSQ"),
            random_state=3,
            quiet=True,
        ),
        resources=saved.resources,
        name="PSQ-Boost",
    )
    pipeline = psq >> rerank
    pipeline.fit(saved.topics("train"), saved.qrels("train"), saved.topics("dev"), saved.qrels("dev"))
    made = Run.from_frame(pipeline(saved.topics("test")), tag="PSQ-Boost")
    assert _bytes(made, tmp_path / "made.run") == kept_run(saved.folder / "runs" / "psq-boost.test.run.gz")


def test_a_fusion_tunes_its_weights_on_the_validation_topics(saved, tmp_path):
    from clirkit.systems import Fusion

    fusion = cpt.retriever(
        Fusion([saved.system("PSQ"), saved.system("PSQ-Boost")], step=0.25),
        resources=saved.resources,
        name="PSQ+PSQ-Boost",
    )
    fusion.fit(saved.topics("train"), saved.qrels("train"), saved.topics("dev"), saved.qrels("dev"))
    made = Run.from_frame(fusion(saved.topics("test")), tag="PSQ+PSQ-Boost")
    assert _bytes(made, tmp_path / "made.run") == kept_run(saved.folder / "runs" / "psq_psq-boost.test.run.gz")


def test_pyterriers_search_of_one_text_runs_the_system(saved):
    psq = saved.retriever("PSQ")
    results = psq.search("the love of God")
    expected = saved.system("PSQ").search("the love of God")
    assert results["docno"].tolist()[:10] == expected.docids.tolist()[:10] and set(results["qid"]) == {"1"}


def test_pyterrier_inspects_the_transformers_columns_without_running_them(saved):
    psq, boost = saved.retriever("PSQ", depth=3), saved.reranker("PSQ-Boost")
    topics = saved.topics("test").assign(narrative="n")
    first = psq(topics)
    assert (
        pt.inspect.transformer_outputs(psq, list(topics.columns))
        == list(first.columns)
        == ["qid", "docno", "score", "rank", "query", "narrative"]
    )
    assert pt.inspect.transformer_outputs(boost, list(first.columns)) == list(boost(first).columns)
    with pytest.raises(pt.validate.InputValidationError):
        pt.inspect.transformer_outputs(psq, ["qid", "text"])


@pytest.mark.parametrize(
    "make_input, says",
    [
        (
            lambda s: s.topics("test").rename(columns={"query": "text"}),
            "Retriever(PSQ): the input frame has no query column (its columns: qid, text)",
        ),
        (
            lambda s: s.retriever("PSQ")(s.topics("test").head(2)),
            "Retriever(PSQ): the input has a docno column (a results frame): this transformer retrieves from a queries "
            "frame; to re-rank results, use reranker(system)",
        ),
        (
            lambda s: "the love of God",
            "Retriever(PSQ): expected a DataFrame with columns qid, query, got str (for one text: .search(text))",
        ),
    ],
)
def test_bad_input_to_a_transformer_is_a_one_line_error(saved, make_input, says):
    assert says in _one_line_error(lambda: saved.retriever("PSQ").transform(make_input(saved)))


def test_a_mapping_called_as_queries_is_refused_in_one_line_not_read_as_its_keys(saved):
    psq = saved.retriever("PSQ")
    says = _one_line_error(lambda: psq({"1": "love"}))
    assert says.startswith("Retriever(PSQ): expected a DataFrame with columns qid, query or a list of such records, ")
    assert "got a dict (one query: [{'qid': ..., 'query': ...}]; one text: .search(text))" in says
    records = psq([{"qid": "1", "query": "the love of God"}])  # a list of records: PyTerrier's other input
    assert isinstance(records, list) and records and records[0]["qid"] == "1"


def test_topics_frame_gives_str_qids_so_pt_experiment_meets_the_qrels_of_a_dict_numbered_by_ints(index):
    pytest.importorskip("pyterrier", reason="PyTerrier is not installed: pip install 'clirkit[pyterrier]'")
    from pyterrier.measures import AP

    from clirkit.run import Qrels
    from clirkit.systems import BM25Search

    bm25 = BM25Search().fit(Resources(index=index))
    topics = cpt.topics_frame({1: "luz", 2: "aguas"})
    assert topics["qid"].tolist() == ["1", "2"]
    qrels = Qrels(["1", "2"], ["Gen.1.3", "Gen.1.6"], [1, 1])
    got = pt.Experiment([cpt.retriever(bm25)], topics, cpt.qrels_frame(qrels), eval_metrics=[AP])
    assert got["AP"].tolist() == [evaluate(bm25.search({"1": "luz", "2": "aguas"}), qrels, ["AP"]).mean()["AP"]]
    message = _one_line_error(lambda: cpt.retriever(bm25, name="my run"))
    assert message.startswith("name 'my run' is the tag of the transformer's runs: run tag 'my run' must be non-empty")


def test_a_system_that_cannot_rerank_is_refused_as_a_reranker(saved):
    assert _one_line_error(lambda: saved.reranker("PSQ")) == (
        "a PSQ cannot re-rank given results (a boosted ranker and SCS can): use retriever(system) as a first stage"
    )
    assert "expected a clirkit system" in _one_line_error(lambda: cpt.retriever("PSQ"))


def test_a_learner_without_resources_says_what_fit_needs(saved):
    from clirkit.systems import Boost

    boost = cpt.retriever(Boost(boosting=Boosting(rounds=5), base=saved.system("PSQ")))
    assert _one_line_error(lambda: boost.fit(saved.topics("train"), saved.qrels("train"))).startswith(
        "Retriever(Boost): fit needs the resources the system learns with"
    )


def test_an_experiment_folder_missing_or_made_by_other_settings_says_to_run_the_experiment(mini, saved, tmp_path):
    path = tmp_path / "other.toml"
    path.write_text(EXPERIMENT.format(folder=mini).replace("rounds = 30", "rounds = 40"), encoding="utf-8")
    message = _one_line_error(lambda: cpt.from_experiment(path, tmp_path / "nowhere"))
    assert (
        message == f"{tmp_path / 'nowhere'}: no such experiment folder: run clirkit run {path} -o "
        f"{tmp_path / 'nowhere'} first"
    )
    other = cpt.from_experiment(path, saved.folder)
    assert other.system("PSQ") is not None  # the same PSQ: its index and table are the folder's
    message = _one_line_error(lambda: other.system("PSQ-Boost"))
    assert message.startswith(
        f"{saved.folder / 'models' / 'psq-boost.npz'}: was made by other settings: run "
        f"clirkit run {path} -o {saved.folder} first"
    )
    assert "has no system 'SCS'" in _one_line_error(lambda: saved.system("SCS"))


def test_without_pyterrier_clirkit_pyterrier_says_what_to_install():
    code = (
        "import sys; sys.modules['pyterrier'] = None\n"
        "try:\n    import clirkit.pyterrier\nexcept Exception as e:\n    print(type(e).__name__, e)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == (
        "ClirkitError clirkit.pyterrier needs PyTerrier and pandas (pyterrier is not installed): "
        "pip install 'clirkit[pyterrier]'"
    )


def test_the_readmes_pyterrier_example_runs_on_an_experiment_folder(saved, capsys):
    import re
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## From PyTerrier", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    call = 'cpt.from_experiment("demo", "clirkit-demo")'
    assert call in code  # the demo's folder there, this test's experiment here
    exec(code.replace(call, f"cpt.from_experiment({saved.experiment.source!r}, {str(saved.folder)!r})"), {})
    table = capsys.readouterr().out
    for name in ("DT", "PSQ", "DT+PSQ", "Boost", "PSQ % 100 >> longer", "DT+PSQ >> Boost"):
        assert f" {name} " in table
