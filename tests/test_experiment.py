"""The experiment runner (clirkit.experiment, `clirkit run`): on a small slice of nave-en-es, every system
gives the same run byte for byte from the runner, from Python and from its command; reruns reuse; the
report and figures are written; bad files are clean errors."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from clirkit import datasets
from clirkit.boost import Boosting
from clirkit.cli import main
from clirkit.documents import Documents
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.experiment import Experiment, run_experiment, shipped
from clirkit.formats import write_run
from clirkit.run import Qrels
from clirkit.scs.params import Schedule, Shape

EXPERIMENT = """
collection = "{folder}"
measures = ["AP", "P@10"]
baseline = "PSQ"
gains = ["AP"]
seed = 3

[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"
translate = "queries"
target_stopwords_top = 20

[systems.PSQ-Boost]
kind = "boost"
base = "PSQ"
rounds = 30
eval_every = 10
beta_grid = [2.0, 5.0]

[systems.Boost-1g]
kind = "boost"
rounds = 20
eval_every = 10

[systems.SCS]
kind = "scs"
epochs = 1
dim = 16

[fusions."PSQ+SCS"]
systems = ["PSQ", "SCS"]
step = 0.25
transform = "auto"
"""


def kept_run(path) -> bytes:
    """The text of a run the experiment runner kept (``runs/NAME.SPLIT.run.gz``)."""
    return gzip.decompress(path.read_bytes())


@pytest.fixture(scope="module")
def ran(mini, tmp_path_factory):
    """The experiment file, its output folder and the runner's result."""
    work = tmp_path_factory.mktemp("exp")
    path = work / "mini.toml"
    path.write_text(EXPERIMENT.format(folder=mini), encoding="utf-8")
    result = run_experiment(Experiment.read(path), work / "out", quiet=True)
    return path, work / "out", result


def _queries_file(path: Path, topics: dict) -> str:
    path.write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()), encoding="utf-8")
    return str(path)


def _api_resources(mini):
    from clirkit.analysis import Analyzer
    from clirkit.retrieval.index import Index
    from clirkit.translation import train_table

    c = datasets.load(str(mini))
    src, tgt = Analyzer("en"), Analyzer("es")
    source, target = c.parallel()
    table = train_table(src.tokenize_many(source), tgt.tokenize_many(target), src, tgt)
    documents = Documents(*c.documents())
    index = Index.from_tokens(documents.docids, documents.tokens(tgt), tgt)
    return c, table, index, documents


def test_the_runner_writes_runs_models_report_and_figures(ran):
    _, out, result = ran
    for name in ("dt", "psq", "psq-boost", "scs"):
        assert (out / "runs" / f"{name}.dev.run.gz").exists() and (out / "runs" / f"{name}.test.run.gz").exists()
    assert (out / "runs" / "psq_scs.test.run.gz").exists()
    assert (out / "models" / "psq-boost.npz").exists() and (out / "models" / "scs.npz").exists()
    record = json.loads((out / "runs" / "psq.test.run.gz.json").read_text())
    assert record["system"]["params"]["target_stopwords_top"] == 20 and record["split"] == "test"
    report = (out / "report.md").read_text()
    assert "| PSQ+SCS |" in report and "![" in report
    for png in (
        "diff-dt-vs-psq.png",
        "diff-psq_scs-vs-psq.png",
        "kappa-sweep.png",
        "curve-psq-boost.png",
        "curve-scs.png",
    ):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
    lines = result.text.split("\n")
    assert lines[0] == "mini-nave (standard), test split: 12 queries, " + lines[0].split(", ")[-1]
    assert [ln.split()[0] for ln in lines[3:9]] == ["DT", "PSQ", "PSQ-Boost", "Boost-1g", "SCS", "PSQ+SCS"]
    assert (out / "results.txt").read_text() == result.text + "\n"


def test_dt_and_psq_give_the_same_run_from_runner_python_and_command(ran, mini, tmp_path):
    from clirkit.systems import DT, PSQ

    _, out, _ = ran
    c, table, index, _ = _api_resources(mini)
    test = c.queries("test")
    for name, system in (("DT", DT()), ("PSQ", PSQ(target_stopwords_top=20))):
        write_run(system.fit(Resources(index=index, table=table)).search(test, tag=name), tmp_path / f"{name}.api.run")
        assert (tmp_path / f"{name}.api.run").read_bytes() == kept_run(out / "runs" / f"{name.lower()}.test.run.gz")
    # the command line, from the collection's files: table, index, then each verb
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in zip(*c.documents())), encoding="utf-8")
    (tmp_path / "en.txt").write_text("\n".join(c.parallel()[0]) + "\n", encoding="utf-8")
    (tmp_path / "es.txt").write_text("\n".join(c.parallel()[1]) + "\n", encoding="utf-8")
    q = _queries_file(tmp_path / "test.tsv", test)
    assert (
        main(
            [
                "ttable",
                "train",
                "--source",
                str(tmp_path / "en.txt"),
                "--target",
                str(tmp_path / "es.txt"),
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-o",
                str(tmp_path / "t.npz"),
                "-q",
            ]
        )
        == 0
    )
    assert main(["index", str(docs), "--lang", "es", "-o", str(tmp_path / "ix.npz"), "-q"]) == 0
    common = ["--index", str(tmp_path / "ix.npz"), "--table", str(tmp_path / "t.npz"), "--queries", q, "-q"]
    assert main(["dt", *common, "-o", str(tmp_path / "dt.cli.run")]) == 0
    assert main(["psq", *common, "--target-stopwords-top", "20", "-o", str(tmp_path / "psq.cli.run")]) == 0
    assert (tmp_path / "dt.cli.run").read_bytes() == kept_run(out / "runs" / "dt.test.run.gz")
    assert (tmp_path / "psq.cli.run").read_bytes() == kept_run(out / "runs" / "psq.test.run.gz")


def test_boost_from_psq_gives_the_same_run_from_runner_python_and_command(ran, mini, tmp_path):
    from clirkit.systems import PSQ, Boost

    _, out, _ = ran
    c, table, index, documents = _api_resources(mini)
    psq = PSQ(target_stopwords_top=20).fit(Resources(index=index, table=table))
    boost = Boost(
        boosting=Boosting(rounds=30, eval_every=10, beta_grid=(2.0, 5.0)), base=psq, random_state=3, quiet=True
    )
    boost.fit(
        Resources(
            topics={"train": c.queries("train"), "dev": c.queries("dev")},
            qrels={"train": c.qrels("train"), "dev": c.qrels("dev")},
            documents=documents,
        )
    )
    write_run(boost.search(c.queries("test"), tag="PSQ-Boost"), tmp_path / "api.run")
    expected = kept_run(out / "runs" / "psq-boost.test.run.gz")
    assert (tmp_path / "api.run").read_bytes() == expected
    # the command line: PSQ's runs over the train and dev queries are the base run, then re-rank PSQ's test run
    runs = {s: tmp_path / f"psq.{s}.run" for s in ("train", "dev", "test")}
    for split, path in runs.items():
        write_run(psq.search(c.queries(split), tag="PSQ"), path)
    assert (
        main(
            [
                "boost-train",
                "--collection",
                str(mini),
                "--base-run",
                str(runs["train"]),
                str(runs["dev"]),
                "--rounds",
                "30",
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
                str(runs["test"]),
                "--tag",
                "PSQ-Boost",
                "-o",
                str(tmp_path / "cli.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (tmp_path / "cli.run").read_bytes() == expected


def test_standalone_boost_gives_the_same_run_from_runner_python_and_command(ran, mini, tmp_path):
    from clirkit.systems import Boost

    _, out, _ = ran
    c = datasets.load(str(mini))
    boost = Boost(boosting=Boosting(rounds=20, eval_every=10), random_state=3, quiet=True)
    boost.fit(
        Resources(
            topics={"train": c.queries("train"), "dev": c.queries("dev")},
            qrels={"train": c.qrels("train"), "dev": c.qrels("dev")},
            documents=c.documents(),
        )
    )
    write_run(boost.search(c.queries("test"), tag="Boost-1g"), tmp_path / "api.run")
    expected = kept_run(out / "runs" / "boost-1g.test.run.gz")
    assert (tmp_path / "api.run").read_bytes() == expected and len(expected) > 0
    assert (
        main(
            [
                "boost-train",
                "--collection",
                str(mini),
                "--rounds",
                "20",
                "--eval-every",
                "10",
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
                "--tag",
                "Boost-1g",
                "-o",
                str(tmp_path / "cli.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (tmp_path / "cli.run").read_bytes() == expected


def test_scs_gives_the_same_run_from_runner_python_and_command(ran, mini, tmp_path):
    from clirkit.systems import SCS

    _, out, _ = ran
    c = datasets.load(str(mini))
    scs = SCS(shape=Shape(dim=16), schedule=Schedule(epochs=1), random_state=3).fit(
        Resources(topics={"train": c.queries("train")}, qrels={"train": c.qrels("train")}, documents=c.documents())
    )
    write_run(scs.search(c.queries("test"), tag="SCS"), tmp_path / "api.run")
    expected = kept_run(out / "runs" / "scs.test.run.gz")
    assert (tmp_path / "api.run").read_bytes() == expected
    assert (
        main(
            [
                "scs-train",
                "--collection",
                str(mini),
                "--epochs",
                "1",
                "--dim",
                "16",
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
                "scs-score",
                str(tmp_path / "m.npz"),
                "--collection",
                str(mini),
                "--tag",
                "SCS",
                "-o",
                str(tmp_path / "cli.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (tmp_path / "cli.run").read_bytes() == expected


def test_a_fusion_gives_the_same_run_from_runner_python_and_command(ran, mini, tmp_path):
    from clirkit.formats import read_run
    from clirkit.systems import Fusion

    _, out, _ = ran
    c = datasets.load(str(mini))
    dev = [read_run(out / "runs" / f"{n}.dev.run.gz") for n in ("psq", "scs")]
    test = [read_run(out / "runs" / f"{n}.test.run.gz") for n in ("psq", "scs")]
    fusion = Fusion(step=0.25, transform="auto").fit_runs(dev, c.qrels("dev"))  # a fusion of runs: no systems
    write_run(fusion.fuse(test, tag="PSQ+SCS"), tmp_path / "api.run")
    expected = kept_run(out / "runs" / "psq_scs.test.run.gz")
    assert (tmp_path / "api.run").read_bytes() == expected
    (tmp_path / "dev.qrels").write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in zip(c.qrels("dev").qids, c.qrels("dev").docids, c.qrels("dev").rels)),
        encoding="utf-8",
    )
    assert (
        main(
            [
                "aggregate",
                str(out / "runs" / "psq.test.run.gz"),
                str(out / "runs" / "scs.test.run.gz"),
                "--tune",
                "--dev-runs",
                str(out / "runs" / "psq.dev.run.gz"),
                str(out / "runs" / "scs.dev.run.gz"),
                "--dev-qrels",
                str(tmp_path / "dev.qrels"),
                "--step",
                "0.25",
                "--transform",
                "auto",
                "--tag",
                "PSQ+SCS",
                "-o",
                str(tmp_path / "cli.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (tmp_path / "cli.run").read_bytes() == expected


def test_a_rerun_reuses_what_is_there_and_gives_the_same_report(ran):
    path, out, result = ran
    model = out / "models" / "psq-boost.npz"
    before = model.stat().st_mtime_ns, (out / "runs" / "psq.test.run.gz").stat().st_mtime_ns
    again = run_experiment(Experiment.read(path), out, quiet=True)
    assert (model.stat().st_mtime_ns, (out / "runs" / "psq.test.run.gz").stat().st_mtime_ns) == before
    assert again.text == result.text and "time:" not in result.text


def test_the_shipped_demo_file_is_a_valid_experiment():
    exp = Experiment.read(shipped("demo"))
    assert exp.collection == "nave-en-es" and exp.baseline == "PSQ"
    assert list(exp.systems) == ["DT", "PSQ", "Boost", "SCS"] and "PSQ+Boost+SCS" in exp.fusions
    assert exp.systems["Boost"]["base"] == "DT+PSQ" and exp.make_order()[:4] == ["DT", "PSQ", "DT+PSQ", "Boost"]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            'collection = "x"\n[systems.A]\nkind = "lucene"\n',
            "system 'A': kind must be one of dt, psq, querypsq, docpsq, boost, scs, bm25, run,",
        ),
        ('collection = "x"\nbogus = 1\n[systems.A]\nkind = "dt"\n', "unknown key 'bogus'"),
        (
            'collection = "x"\n[systems.B]\nkind = "boost"\nbase = "A"\n[systems.A]\nkind = "psq"\n',
            "base 'A' must be a system declared before it",
        ),
        ('collection = "x"\n[systems.A]\nkind = "dt"\n[fusions.F]\nsystems = ["A", "Z"]\n', "unknown system 'Z'"),
        ('collection = "x"\n[systems.A\n', "not a valid TOML file"),
        (
            'collection = "x"\n[systems.A]\nkind = "dt"\n[systems.B]\nkind = "dt"\n[fusions."A+B (k=0.5)"]\n'
            'systems = ["A", "B"]\n',
            "'A+B (k=0.5)': system and fusion names are run tags: no spaces",
        ),
        (
            'collection = "x"\n[analysis]\nstemmer = "porter"\n[systems.A]\nkind = "dt"\n',
            "[analysis]: stemmer must be 'snowball' or 'none', got 'porter'",
        ),
        ('collection = "x"\n[analysis]\nstem = "none"\n[systems.A]\nkind = "dt"\n', "[analysis]: unknown key 'stem'"),
        ('collection = "x"\nanalysis = 5\n[systems.A]\nkind = "dt"\n', "[analysis] must be a table of keys"),
    ],
)
def test_a_bad_experiment_file_is_a_one_line_error_naming_the_file(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Experiment.read(path)
    assert str(err.value).startswith(str(path)) and message in str(err.value)


def test_clirkit_run_prints_the_report_and_a_bad_parameter_is_exit_2(mini, tmp_path, capsys):
    path = tmp_path / "dt.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\nk1 = -1.0\n', encoding="utf-8"
    )
    assert main(["run", str(path), "-o", str(tmp_path / "o"), "-q"]) == 2
    assert (
        f"{path}: system 'DT': The 'k1' parameter of DT must be a float in the range [0.0, inf). Got -1.0"
        in capsys.readouterr().err
    )
    path.write_text(f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n', encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "o"), "-q"]) == 0
    assert capsys.readouterr().out.startswith("mini-nave (standard), test split: 12 queries")


def test_qrels_subset_keeps_the_split_queries_only(mini):
    c = datasets.load(str(mini))
    assert isinstance(c.qrels("dev"), Qrels) and set(c.qrels("dev").query_ids) == set(c.queries("dev"))


@pytest.mark.parametrize(
    "extra, message",
    [
        ('seed = "a"\n', "seed must be an integer >= 0 (at most 2**63 - 1), got 'a'"),
        ("seed = 9223372036854775808\n", "seed must be an integer >= 0 (at most 2**63 - 1), got 9223372036854775808"),
        ('measures = ["APX"]\n', "unknown measure 'APX' (did you mean AP?)"),
        (
            'measures = ["AP", "recall_2000"]\n',
            "measures: recall_2000 reads ranks beyond 1000, the depth the report evaluates: give a cutoff of at "
            "most 1000 (e.g. R@1000)",
        ),
        ("jobs = 0\n", "jobs must be an integer >= 1 (at most 2**63 - 1), got 0"),
        (
            'report_splits = ["dev", "tset"]\n',
            "report_splits must list some of 'dev', 'test', 'all' (e.g. report_splits",
        ),
        ('report_splits = "all"\n', "report_splits must list some of"),
        (
            "[table]\niteration = 3\n",
            "[table]: unknown key 'iteration' (did you mean 'iterations'?; its keys: iterations, "
            "file, format, score_column)",
        ),
        ("fusions_ = 1\n", "unknown key 'fusions_' (did you mean 'fusions'?; the top-level keys: "),
    ],
)
def test_bad_top_level_values_are_errors_naming_the_file(tmp_path, extra, message):
    path = tmp_path / "bad.toml"
    path.write_text('collection = "x"\n' + extra + '[systems.A]\nkind = "dt"\n', encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Experiment.read(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value) and "\n" not in str(err.value)


def test_a_table_file_replaces_training_on_the_parallel_corpus(ran, mini, tmp_path):
    _, out, _ = ran
    path = tmp_path / "given.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[table]\nfile = "{out / "table.npz"}"\n'
        '[systems.PSQ]\nkind = "psq"\ntarget_stopwords_top = 20\n',
        encoding="utf-8",
    )
    run_experiment(Experiment.read(path), tmp_path / "o", quiet=True)
    assert not (tmp_path / "o" / "table.npz").exists()
    assert kept_run(tmp_path / "o" / "runs" / "psq.test.run.gz") == kept_run(out / "runs" / "psq.test.run.gz")


def test_a_psq_system_may_interpolate_its_own_table_file_with_the_trained_one(ran, mini, tmp_path):
    from clirkit.formats import read_run
    from clirkit.translation import TranslationTable, save_table

    _, out, _ = ran
    muse = tmp_path / "light.npz"
    save_table(
        TranslationTable.from_triples(
            ["light", "god"], ["luz", "dios"], [1.0, 1.0], params={"source_lang": "en", "target_lang": "es"}
        ),
        muse,
    )
    path = tmp_path / "interp.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.PSQ]\nkind = "psq"\ntranslate = "queries"\n'
        "target_stopwords_top = 20\n"
        f'[systems.PSQ-dict]\nkind = "psq"\ntable = "{muse}"\ntable2 = "ibm1"\nlam = 0.5\n'
        "target_stopwords_top = 20\n",
        encoding="utf-8",
    )
    run_experiment(Experiment.read(path), tmp_path / "o", quiet=True)
    plain = kept_run(tmp_path / "o" / "runs" / "psq.test.run.gz")
    assert plain == kept_run(out / "runs" / "psq.test.run.gz")
    mixed = read_run(tmp_path / "o" / "runs" / "psq-dict.test.run.gz")
    assert len(mixed) > 0 and kept_run(tmp_path / "o" / "runs" / "psq-dict.test.run.gz") != plain
    record = json.loads((tmp_path / "o" / "runs" / "psq-dict.test.run.gz.json").read_text())
    assert record["table"]["file"] == str(muse.resolve()) and record["table2"]["iterations"] == 5
    bad = tmp_path / "bad.toml"
    bad.write_text(f'collection = "{mini}"\n[systems.D]\nkind = "dt"\ntable2 = "ibm1"\n', encoding="utf-8")
    with pytest.raises(
        ClirkitError,
        match=r"unknown key .table2. \(it belongs to a psq or querypsq or docpsq system; a dt system.s keys: "
        r"kind, table, table_format, score_column, k1",
    ):
        Experiment.read(bad)


def test_the_runner_tokenizes_each_text_once_whatever_reads_it(mini, tmp_path, monkeypatch):
    """The table's two sides, the index's documents (also the table's target side here), a boosted model's
    documents and known-item queries (the table's source side again) and the topics that several systems
    search: each text goes through the Moses tokenizer once per language."""
    from collections import Counter

    from clirkit.analysis import Analyzer

    calls: Counter = Counter()
    tokenize = Analyzer.tokenize

    def counted(self, text):
        calls[self.lang, text] += 1
        return tokenize(self, text)

    monkeypatch.setattr(Analyzer, "tokenize", counted)
    path = tmp_path / "once.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n'
        '[systems.PSQ]\nkind = "psq"\n[systems.Boost]\nkind = "boost"\nbase = "PSQ"\nrounds = 10\n'
        "eval_every = 10\nparallel_tuples = true\n",
        encoding="utf-8",
    )
    run_experiment(Experiment.read(path), tmp_path / "out", quiet=True)
    c = datasets.load(str(mini))
    sources, targets = c.parallel()
    topics = [t for split in ("train", "dev", "test") for t in c.queries(split).values()]
    read = {("en", t) for t in sources + topics} | {("es", t) for t in targets + list(c.documents()[1])}
    assert set(calls) == read and max(calls.values()) == 1


def test_the_runner_analyzes_with_the_defaults_or_its_analysis_section(ran, mini, tmp_path):
    from clirkit.analysis import Analyzer
    from clirkit.retrieval.index import Index
    from clirkit.translation import load_table

    _, out, _ = ran
    assert Index.load(out / "index.npz").analyzer == Analyzer("es")  # no [analysis]: Snowball stems
    assert load_table(out / "table.npz").params["source_analyzer"] == Analyzer("en").to_dict()
    path = tmp_path / "plain.toml"
    path.write_text(
        f'collection = "{mini}"\n[analysis]\nstemmer = "none"\nstopwords = "snowball"\n[systems.DT]\nkind = "dt"\n',
        encoding="utf-8",
    )
    run_experiment(Experiment.read(path), tmp_path / "out", quiet=True)
    index = Index.load(tmp_path / "out" / "index.npz")
    assert index.analyzer == Analyzer("es", stemmer=None, stopwords="snowball") and "la" not in index.vocabulary
    table = load_table(tmp_path / "out" / "table.npz")
    assert table.params["source_analyzer"] == Analyzer("en", stemmer=None, stopwords="snowball").to_dict()


_TWO = 'collection = "x"\n{top}[systems.A]\nkind = "dt"\n[systems.B]\nkind = "psq"\n{more}'
_FUSION = '[fusions.F]\nsystems = ["A", "B"]\n'


@pytest.mark.parametrize(
    "top, more, message",
    [
        (
            "",
            "[systems]\nDT = 5\n",
            "system 'DT' must be a table of its keys ([systems.DT] with kind = \"psq\", ...), got 5",
        ),
        ("table = 5\n", "", "[table] must be a table of keys, got 5"),
        ("fusions = 5\n", "", "[fusions] must be a table of keys, got 5"),
        ("", "[fusions]\nF = 5\n", "fusion 'F' must be a table of its keys ([fusions.F] with systems = "),
        (
            "",
            '[systems.C]\nkind = "psq"\ntable = 5\n',
            "system 'C': table must be a string (a table or dictionary file, or \"ibm1\"), got 5",
        ),
        ("", '[systems.C]\nkind = "boost"\nbase = 5\n', "system 'C': base must be a string (the name of a system"),
        (
            "",
            '[fusions.F]\nsystems = "A"\n',
            "fusion 'F': systems must list at least two systems (e.g. systems = [\"DT\", \"PSQ\"]), got 'A'",
        ),
        ('figures = "false"\n', "", "figures must be true or false (a TOML boolean, without quotes), got 'false'"),
        ("figures = 1\n", "", "figures must be true or false"),
        ('gains = "AP"\n', "", "gains must be a list of measure names (e.g. gains = [\"AP\"]), got 'AP'"),
        (
            'gains = ["P@5"]\n',
            "",
            "gains measure 'P@5' is not one of the measures (AP, PRES@1000, nDCG@10, P@10): add it",
        ),
        ("", _FUSION + 'step = "0.1"\n', "fusion 'F': step must be a number in (0, 1] (e.g. step = 0.1), got '0.1'"),
        ("", _FUSION + "step = 2\n", "fusion 'F': step must be a number in (0, 1]"),
        ("", _FUSION + "step = true\n", "fusion 'F': step must be a number in (0, 1]"),
        (
            "",
            _FUSION + 'weights = "0.5"\n',
            "fusion 'F': weights must list 2 finite numbers, one per system (or be left out",
        ),
        ("", _FUSION + "weights = [0.5]\n", "fusion 'F': weights must list 2 finite numbers"),
        ("", _FUSION + 'weights = [0.5, "x"]\n', "fusion 'F': weights must list 2 finite numbers"),
        ("", _FUSION + "weights = [0.5, nan]\n", "fusion 'F': weights must list 2 finite numbers"),
        ("", _FUSION + "method = 5\n", 'fusion \'F\': method must be "interpolation" or "borda", got 5'),
        ("", _FUSION + "measure = 5\n", "fusion 'F': measure must be a measure name"),
        ("", _FUSION + 'measure = "APX"\n', "fusion 'F': measure: unknown measure 'APX'"),
        (
            "",
            _FUSION + 'measure = "P@1001"\n',
            "fusion 'F': measure: P@1001 reads ranks beyond 1000, the depth the weights are tuned at: give a cutoff "
            "of at most 1000 (e.g. P@1000)",
        ),
        ("", _FUSION + "transform = 5\n", "fusion 'F': transform must be one of 'auto', 'none', 'shift', 'minmax'"),
        ("", _FUSION + 'transform = ["none"]\n', "fusion 'F': transform must be one of"),
        ("baseline = 5\n", "", "baseline must be a string (a system or fusion name), got 5"),
        ("variant = 5\n", "", "variant must be a string"),
    ],
)
def test_a_value_of_the_wrong_type_is_one_error_naming_the_file_the_key_and_what_is_allowed(
    tmp_path, capsys, top, more, message
):
    path = tmp_path / "bad.toml"
    path.write_text(_TWO.format(top=top, more=more), encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Experiment.read(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value) and "\n" not in str(err.value)
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2  # before anything runs
    assert capsys.readouterr().err == f"clirkit: error: {err.value}\n" and not (tmp_path / "out").exists()


def test_well_typed_fusion_and_top_level_values_are_read_as_given(tmp_path):
    path = tmp_path / "good.toml"
    path.write_text(
        _TWO.format(
            top='figures = false\ngains = ["AP"]\n',
            more=_FUSION + "weights = [0.0, 1]\n"
            'transform = ["auto", "minmax"]\nmethod = "interpolation"\n',  # (no step: the weights are given)
        ),
        encoding="utf-8",
    )
    exp = Experiment.read(path)
    assert exp.figures is False and exp.gains == ("AP",)
    assert exp.fusions["F"] == {
        "systems": ["A", "B"],
        "weights": [0.0, 1],
        "transform": ["auto", "minmax"],
        "method": "interpolation",
    }


def test_a_nul_byte_in_an_experiment_file_is_named_with_its_line(tmp_path):
    path = tmp_path / "nul.toml"
    path.write_bytes(b'collection = "x"\nseed = 1\x00\n[systems.A]\nkind = "dt"\n')
    with pytest.raises(ClirkitError) as info:
        Experiment.read(path)
    assert str(info.value) == (
        f"{path}:2: a NUL byte (column 9): an experiment file is TOML text; remove the NUL bytes (is it a binary file?)"
    )


def _overlap_class():
    """A toy system kind, registered by the test only: documents ranked by the words they share with the query
    (no translation), less the ``top`` most frequent words of the documents, which it learns and keeps."""
    from clirkit.estimator import DEPTH, System, drop_excluded
    from clirkit.run import Run

    class Overlap(System):
        _parameter_constraints = {"top": [int]}
        default_tag = "Overlap"
        keeps_model = True

        def __init__(self, *, top: int = 10) -> None:
            self.top = top

        def fit(self, resources):
            from collections import Counter

            self.documents_ = resources.documents()
            counts = Counter(w for t in self.documents_.texts for w in t.lower().split())
            self.stopwords_ = sorted(w for w, _ in counts.most_common(self.top))
            return self

        def inputs(self, resources):
            return {"documents": resources.record("index")}

        def learned_state(self):
            return {"stopwords": self.stopwords_} if hasattr(self, "stopwords_") else {}

        def restore_state(self, state):
            self.stopwords_ = list(state.get("stopwords", []))

        def restore(self, path, resources):
            super().restore(path, resources)
            self.documents_ = resources.documents()
            return self

        def notes(self, name):
            return [f"{name}: {len(self.stopwords_)} stopwords"]

        def search(self, topics, *, depth=DEPTH, excluded=None, tag=None, quiet=True):
            stop = set(self.stopwords_)
            words = [set(t.lower().split()) - stop for t in self.documents_.texts]
            rows = [
                (q, d, float(len(set(text.lower().split()) & w)))
                for q, text in topics.items()
                for d, w in zip(self.documents_.docids, words)
                if set(text.lower().split()) & w
            ]
            q, d, s = zip(*rows)
            return drop_excluded(
                Run.ranked(list(q), list(d), list(s), tag=tag or self.default_tag, depth=depth), excluded
            )

    return Overlap


def test_a_new_system_kind_runs_through_the_runner_with_no_change_to_it(mini, tmp_path, monkeypatch, capsys):
    from clirkit.estimator import Resources
    from clirkit.experiment import KINDS

    toy = _overlap_class()
    monkeypatch.setitem(KINDS, "toy", toy)
    path = tmp_path / "toy.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\nbaseline = "Toy"\n[systems.Toy]\nkind = "toy"\n'
        'top = 5\n[systems.DT]\nkind = "dt"\n[fusions."Toy+DT"]\nsystems = ["Toy", "DT"]\nstep = 0.5\n',
        encoding="utf-8",
    )
    result = run_experiment(Experiment.read(path), tmp_path / "out", quiet=True)
    c = datasets.load(str(mini))
    own = toy(top=5).fit(Resources(documents=c.documents()))
    write_run(own.search(c.queries("test"), tag="Toy"), tmp_path / "api.run")
    assert kept_run(tmp_path / "out" / "runs" / "toy.test.run.gz") == (tmp_path / "api.run").read_bytes()
    assert [line.split()[0] for line in result.text.split("\n")[3:6]] == ["Toy", "DT", "Toy+DT"]
    assert "  Toy: 5 stopwords" in result.text and (tmp_path / "out" / "models" / "toy.npz").exists()
    model = (tmp_path / "out" / "models" / "toy.npz").stat().st_mtime_ns
    again = run_experiment(Experiment.read(path), tmp_path / "out", quiet=True)  # the model is read back
    assert again.text == result.text and (tmp_path / "out" / "models" / "toy.npz").stat().st_mtime_ns == model
    path.write_text(path.read_text().replace("top = 5", "tops = 5"), encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "bad"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {path}: system 'Toy': unknown key 'tops' (did you mean "
        "'top'?; a toy system's keys: kind, top)\n"
    )


def test_every_key_and_kind_is_listed_by_run_keys_and_documented_in_the_readme(capsys):
    from clirkit.experiment.kinds import KINDS
    from clirkit.experiment.spec import KEYS

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Experiment-file keys", 1)[1].split("\n## ", 1)[0]
    assert main(["run", "--keys"]) == 0
    listed = capsys.readouterr().out
    for table, keys in KEYS.items():
        assert (f"[{table}]" if table else "top level") in listed
        for key in keys:
            assert f"| `{key}` |" in section and f"\n  {key} " in listed, (table, key)
    for kind in (*KINDS, "fusion"):
        assert kind == "fusion" or (f"| kind `{kind}` |" in section and f"\n  kind {kind}:" in listed), kind
        assert main(["run", "--keys", kind]) == 0
        assert capsys.readouterr().out.startswith(f"[{'fusions' if kind == 'fusion' else 'systems'}.NAME] of kind")
    assert main(["run", "--keys", "lucene"]) == 2
    assert capsys.readouterr().err == (
        "clirkit: error: --keys: no system kind 'lucene' (kinds: dt, psq, querypsq, docpsq, boost, scs, bm25, run, or fusion)\n"
    )


def test_a_report_split_the_collection_lacks_is_an_error_before_anything_runs(mini, tmp_path, capsys):
    from clirkit.datasets import CollectionData, write_collection

    c = datasets.load(str(mini))
    docids, texts = c.documents()
    write_collection(
        CollectionData(
            "only-test",
            "standard",
            "en",
            "es",
            "",
            docids,
            texts,
            [],
            [],
            [],
            {"test": c.queries("test")},
            {"test": c.qrels("test")},
        ),
        tmp_path / "c",
    )
    path = tmp_path / "e.toml"
    path.write_text(
        f'collection = "{tmp_path / "c"}"\nreport_splits = ["test", "all"]\n[systems.A]\nkind = "dt"\n',
        encoding="utf-8",
    )
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {path}: report_splits: only-test has no dev split (its splits: test)\n"
    )


def test_every_system_is_fitted_saved_and_loaded_with_the_same_calls(ran, mini, tmp_path):
    """fit(resources), save(path), Class.load(path, resources): the same three calls for DT, PSQ, the boosted
    ranker and SCS, giving the runner's runs byte for byte."""
    from clirkit.estimator import Resources
    from clirkit.systems import DT, PSQ, SCS, Boost

    _, out, _ = ran
    c, table, index, documents = _api_resources(mini)
    splits = ("train", "dev", "test")
    resources = Resources(
        documents=documents,
        index=index,
        table=table,
        topics={s: c.queries(s) for s in splits},
        qrels={s: c.qrels(s) for s in splits},
        source_lang="en",
        target_lang="es",
        seed=3,
    )
    psq = PSQ(target_stopwords_top=20)
    systems = {
        "DT": DT(),
        "PSQ": psq,
        "PSQ-Boost": Boost(
            boosting=Boosting(rounds=30, eval_every=10, beta_grid=(2.0, 5.0)), base=psq, random_state=3, quiet=True
        ),
        "SCS": SCS(shape=Shape(dim=16), schedule=Schedule(epochs=1), random_state=3),
    }
    for name, system in systems.items():
        assert system.fit(resources) is system
        system.save(tmp_path / f"{name}.npz")
        loaded = type(system).load(
            tmp_path / f"{name}.npz", resources, **({"base": psq} if name == "PSQ-Boost" else {})
        )
        write_run(loaded.search(c.queries("test"), tag=name), tmp_path / f"{name}.run")
        assert (tmp_path / f"{name}.run").read_bytes() == kept_run(out / "runs" / f"{name.lower()}.test.run.gz")


KEEP = """collection = "{mini}"
measures = ["AP"]
{keep}
[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"

[fusions."DT+PSQ"]
systems = ["DT", "PSQ"]
step = 0.5
"""


def test_keep_runs_keeps_the_runs_it_names_gzipped_and_the_rest_are_made_in_memory(mini, tmp_path):
    for name, keep in (("all", ""), ("test", 'keep_runs = ["*.test"]'), ("none", "keep_runs = []")):
        (tmp_path / f"{name}.toml").write_text(KEEP.format(mini=mini, keep=keep), encoding="utf-8")
        run_experiment(Experiment.read(tmp_path / f"{name}.toml"), tmp_path / name, quiet=True)
    every = sorted(p.name for p in (tmp_path / "all" / "runs").glob("*.run.gz"))
    assert every == [f"{n}.{s}.run.gz" for n in ("dt", "dt_psq", "psq") for s in ("dev", "test")]
    kept = sorted(p.name for p in (tmp_path / "test" / "runs").glob("*"))
    assert kept == [f"{n}.test.run.gz{j}" for n in ("dt", "dt_psq", "psq") for j in ("", ".json")]
    assert not (tmp_path / "none" / "runs").exists()
    for name in ("dt", "dt_psq", "psq"):  # the fusion tuned on dev runs that were not kept: the same weights
        assert kept_run(tmp_path / "test" / "runs" / f"{name}.test.run.gz") == kept_run(
            tmp_path / "all" / "runs" / f"{name}.test.run.gz"
        )
    assert (tmp_path / "none" / "results.txt").read_bytes() == (tmp_path / "all" / "results.txt").read_bytes()
    with gzip.open(tmp_path / "all" / "runs" / "psq.test.run.gz", "rt") as fh:  # plain TREC lines inside
        assert fh.readline().split()[1::2] == ["Q0", "1", "PSQ"]


@pytest.mark.parametrize(
    "keep, message",
    [
        ('keep_runs = ["PSQ.tset"]', "keep_runs: 'PSQ.tset' matches none of the runs (DT.dev, DT.test, PSQ.dev, "),
        ('keep_runs = "*.test"', 'keep_runs must be a list of patterns of NAME.SPLIT (e.g. keep_runs = ["*.test"]'),
    ],
)
def test_a_keep_runs_pattern_that_matches_no_run_is_one_error_before_the_work(mini, tmp_path, capsys, keep, message):
    path = tmp_path / "k.toml"
    path.write_text(KEEP.format(mini=mini, keep=keep), encoding="utf-8")
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {path}: {message}") and err.count("\n") == 1
    assert not (tmp_path / "out").exists() and not (tmp_path / "out" / "index.npz").exists()


def test_a_keep_runs_pattern_that_matches_no_system_is_refused_as_the_file_is_read(tmp_path):
    path = tmp_path / "k.toml"  # (the collection is not read: its splits would only narrow the runs)
    path.write_text(
        KEEP.format(mini=tmp_path / "no-such-collection", keep='keep_runs = ["nothing.*"]'), encoding="utf-8"
    )
    with pytest.raises(ClirkitError, match=r"keep_runs: 'nothing\.\*' matches none of the runs \(DT\.dev, DT\.test, "):
        Experiment.read(path)
