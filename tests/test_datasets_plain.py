"""Plain files as a collection (clirkit.datasets.plain): an experiment file's [collection] table and `clirkit
collection` write the same folder; every [collection] form (one topics file split by a seeded rule, files per
split, all test) and every topic format (TSV, TREC SGML, CLEF XML, NTCIR XML, HC4 JSONL) runs through `clirkit
run`, with per-split tables; bad files are one line naming the key or the file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from clirkit import datasets
from clirkit.cli import main
from clirkit.datasets.plain import PlainCollection
from clirkit.errors import ClirkitError


def _desc(title: str) -> str:
    return f"Verses on {title.lower()}"


def _write_topics(path: Path, topics: dict[str, str], fmt: str) -> Path:
    """``topics`` ``{qid: title}`` as a file of ``fmt``, each with a description (and a narrative), written
    from the published descriptions of the formats."""
    if fmt == "tsv":
        text = "".join(f"{q}\t{t} {_desc(t)}\n" for q, t in topics.items())  # title and desc, already joined
    elif fmt == "trec":
        text = "".join(
            f"<top>\n<num> Number: {q}\n<title> {t}\n\n<desc> Description:\n{_desc(t)}\n\n<narr> "
            f"Narrative:\nA relevant verse names it.\n</top>\n\n"
            for q, t in topics.items()
        )
    elif fmt == "clef":
        text = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<topics>\n'
            + "".join(
                f'<topic lang="en">\n  <identifier>{q}</identifier>\n  <title>{t}</title>\n  <description>'
                f"{_desc(t)}</description>\n  <narrative>A relevant verse names it.</narrative>\n</topic>\n"
                for q, t in topics.items()
            )
            + "</topics>\n"
        )
    elif fmt == "ntcir":
        text = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<TOPICS>\n'
            + "".join(
                f"<TOPIC>\n<NUM>{q}</NUM>\n<SLANG>EN</SLANG>\n<TLANG>ES</TLANG>\n<TITLE>{t}</TITLE>\n<DESC>{_desc(t)}"
                f"</DESC>\n<NARR><BACK>Background.</BACK><RELE>A relevant verse names it.</RELE></NARR>\n</TOPIC>\n"
                for q, t in topics.items()
            )
            + "</TOPICS>\n"
        )
    else:  # hc4: one topic per line, versions by language
        text = "".join(
            json.dumps(
                {
                    "topic_id": q,
                    "topics": [
                        {"lang": "eng", "source": "original", "topic_title": t, "topic_description": _desc(t)},
                        {"lang": "spa", "source": "human translation", "topic_title": "x", "topic_description": "y"},
                    ],
                }
            )
            + "\n"
            for q, t in topics.items()
        )
    path.write_text(text.replace("&", "&amp;") if fmt in ("clef", "ntcir") else text, encoding="utf-8")
    return path


def _qrels(path: Path, qrels) -> Path:
    path.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in zip(qrels.qids, qrels.docids, qrels.rels)), encoding="utf-8"
    )
    return path


@pytest.fixture(scope="module")
def files(mini, tmp_path_factory):
    """The mini collection as a user's plain files: docs.tsv, docs.jsonl.gz, topics per split and all in one
    (TREC), qrels per split and all in one, a parallel corpus as id TAB en TAB es and as two files."""
    c = datasets.load(str(mini))
    work = tmp_path_factory.mktemp("plain")
    docids, texts = c.documents()
    (work / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in zip(docids, texts)), encoding="utf-8")
    with gzip.open(work / "docs.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps({"id": d, "text": t}, ensure_ascii=False) + "\n" for d, t in zip(docids, texts))
    topics = {s: c.queries(s) for s in ("train", "dev", "test")}
    for s in topics:
        _write_topics(work / f"{s}.tsv", {q: t for q, t in topics[s].items()}, "tsv")
        _qrels(work / f"{s}.qrels", c.qrels(s))
    evaluated = {**topics["dev"], **topics["test"]}
    for fmt in ("tsv", "trec", "clef", "ntcir", "hc4"):
        _write_topics(work / f"topics.{fmt}", evaluated, fmt)
    (work / "all.qrels").write_text("".join((work / f"{s}.qrels").read_text() for s in ("dev", "test")))
    ids, sources, targets = c.parallel_ids(), *c.parallel()
    (work / "pairs.tsv").write_text(
        "".join(f"{i}\t{s}\t{t}\n" for i, s, t in zip(ids, sources, targets)), encoding="utf-8"
    )
    (work / "en.txt").write_text("".join(s + "\n" for s in sources), encoding="utf-8")
    (work / "es.txt").write_text("".join(t + "\n" for t in targets), encoding="utf-8")
    return work, c


SYSTEMS = """
[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"

[fusions."DT+PSQ"]
systems = ["DT", "PSQ"]
step = 0.5
"""


def _run(work: Path, name: str, collection: str, capsys, *, systems: str = SYSTEMS, top: str = "") -> str:
    (work / f"{name}.toml").write_text(
        f'measures = ["AP"]\nbaseline = "PSQ"\n{top}\n[collection]\n{collection}\n{systems}', encoding="utf-8"
    )
    capsys.readouterr()
    assert main(["run", str(work / f"{name}.toml"), "-o", str(work / name), "-q"]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["tsv", "trec", "clef", "ntcir", "hc4"])
def test_each_topic_format_runs_through_clirkit_run_as_the_same_queries(files, capsys, fmt):
    work, c = files
    fields = "" if fmt == "tsv" else 'query_fields = "title,desc"\n'
    out = _run(
        work,
        f"fmt-{fmt}",
        f'documents = "docs.tsv"\nqueries = "topics.{fmt}"\n{fields}qrels = "all.qrels"\n'
        'source_lang = "en"\ntarget_lang = "es"\nparallel = "pairs.tsv"\nsplit = {dev = 0.5, test = 0.5}\n',
        capsys,
        top='report_splits = ["dev", "test", "all"]',
    )
    queries = {s: datasets.load(str(work / f"fmt-{fmt}" / "collection")).queries(s) for s in ("dev", "test")}
    evaluated = {**c.queries("dev"), **c.queries("test")}
    assert {**queries["dev"], **queries["test"]} == {q: f"{t} {_desc(t)}" for q, t in evaluated.items()}
    assert len(queries["dev"]) == len(queries["test"]) == 12
    heads = [line for line in out.split("\n") if line.startswith("fmt-")]
    assert heads == [
        f"fmt-{fmt} (standard), {what}: {n} queries, 450 documents"
        for what, n in (("dev split", 12), ("test split", 12), ("all queries (dev and test)", 24))
    ]
    assert "tuned and learned (dev: 12 queries):\n  DT+PSQ: weights" in out
    assert (work / f"fmt-{fmt}" / "runs" / "dt_psq.test.run.gz").exists()
    if fmt != "tsv":  # every format gives the queries, the split and so the runs of the TSV
        for run in ("psq.test.run.gz", "dt_psq.dev.run.gz"):
            assert (work / f"fmt-{fmt}" / "runs" / run).read_bytes() == (work / "fmt-tsv" / "runs" / run).read_bytes()


def test_files_per_split_jsonl_documents_and_a_parallel_corpus_in_two_files(files, capsys, mini):
    work, c = files
    out = _run(
        work,
        "by-split",
        'documents = "docs.jsonl.gz"\nqueries = {train = "train.tsv", dev = "dev.tsv", '
        'test = "test.tsv"}\nqrels = {train = "train.qrels", dev = "dev.qrels", test = "test.qrels"}\n'
        'source_lang = "en"\ntarget_lang = "es"\nparallel = ["en.txt", "es.txt"]\nname = "mine"',
        capsys,
        systems=SYSTEMS + '[systems.SCS]\nkind = "scs"\nepochs = 1\ndim = 8\n',
    )
    made = datasets.load(str(work / "by-split" / "collection"))
    assert made.name == "mine" and made.splits == ["train", "dev", "test"] and made.counts["parallel_pairs"] > 0
    assert made.qrels("test").to_dict() == c.qrels("test").to_dict()
    assert out.startswith("mine (standard), test split: 12 queries, 450 documents") and "\nSCS " in out


def test_one_topics_file_without_a_split_is_all_test_with_a_dictionary_and_fixed_weights(files, capsys):
    work, _ = files
    (work / "muse.txt").write_text("light luz\ngod dios\nwaters aguas\nearth tierra\nlord señor\n", encoding="utf-8")
    out = _run(
        work,
        "no-dev",
        'documents = "docs.tsv"\nqueries = "topics.clef"\nqrels = "all.qrels"\nsource_lang = "en"\ntarget_lang = "es"',
        capsys,
        top='[table]\nfile = "muse.txt"\nformat = "muse"',
        systems=SYSTEMS.replace("step = 0.5", "weights = [0.5, 0.5]"),
    )
    assert out.startswith("no-dev (standard), test split: 24 queries") and "DT+PSQ" in out
    assert not (work / "no-dev" / "table.npz").exists()
    assert sorted(p.name for p in (work / "no-dev" / "runs").glob("*.run.gz")) == [
        "dt.test.run.gz",
        "dt_psq.test.run.gz",
        "psq.test.run.gz",
    ]


@pytest.mark.parametrize(
    "collection, systems, message",
    [
        (
            'queries = "topics.trec"\nqrels = "all.qrels"\nparallel = "pairs.tsv"',
            SYSTEMS,
            "fusion 'DT+PSQ': its weights are tuned on dev, and there is no dev split: give the weights",
        ),
        (
            'queries = "topics.trec"\nqrels = "all.qrels"\nsplit = {dev = 0.5, test = 0.5}',
            SYSTEMS,
            "system 'DT': no-parallel has no parallel corpus ([collection] parallel = ...): IBM Model 1 trains on it; "
            "or give a table file",
        ),
        (
            'queries = "topics.trec"\nqrels = "all.qrels"\nparallel = "pairs.tsv"',
            '[systems.B]\nkind = "boost"\n',
            "system 'B': no-parallel has no train split (its splits: test)",
        ),
    ],
)
def test_what_a_collection_lacks_is_said_before_anything_runs(files, capsys, collection, systems, message):
    work, _ = files
    path = work / "lacks.toml"
    path.write_text(
        f'name = "no-parallel"\nmeasures = ["AP"]\n[collection]\ndocuments = "docs.tsv"\n'
        f'source_lang = "en"\ntarget_lang = "es"\n{collection}\n{systems}',
        encoding="utf-8",
    )
    assert main(["run", str(path), "-o", str(work / "lacks"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {path}: {message}") and err.count("\n") == 1
    assert not (work / "lacks").exists() and not (work / ".lacks.partial" / "runs").exists()  # nothing ran


@pytest.mark.parametrize(
    "collection, message",
    [
        (
            'documents = "docs.tsv"\nqueries = "topics.trec"\nqrels = "all.qrels"\nsource_lang = "en"\ntarget_lang = "es"\n'
            'quries = "x"',
            "[collection] unknown key 'quries' (did you mean 'queries'?; the keys: documents, queries,",
        ),
        (
            'documents = "docs.tsv"\nqueries = "topics.trec"\nsource_lang = "en"\ntarget_lang = "es"',
            "[collection] qrels is missing",
        ),
        (
            'documents = "nope.tsv"\nqueries = "topics.trec"\nqrels = "all.qrels"\nsource_lang = "en"\ntarget_lang = "es"',
            "[collection] documents: {work}/nope.tsv: no such file",
        ),
        (
            'documents = "."\nqueries = "topics.trec"\nqrels = "all.qrels"\nsource_lang = "en"\ntarget_lang = "es"',
            "[collection] documents: {work}: is a folder; give a file",
        ),
        (
            'documents = "docs.tsv"\nqueries = "topics.trec"\nqrels = "all.qrels"\nsource_lang = "english"\n'
            'target_lang = "es"',
            "[collection] source_lang: 'english' is not an ISO 639-1 language code",
        ),
        (
            'documents = "docs.tsv"\nqueries = "topics.trec"\nqrels = "all.qrels"\nsource_lang = "en"\ntarget_lang = "es"\n'
            "split = {dev = 0.5, test = 0.6}",
            "[collection] split must be fractions of the queries by split summing to 1",
        ),
        (
            'documents = "docs.tsv"\nqueries = {dev = "dev.tsv"}\nqrels = "all.qrels"\nsource_lang = "en"\n'
            'target_lang = "es"',
            "[collection] queries names no test split",
        ),
        (
            'documents = "docs.tsv"\nqueries = "topics.trec"\nqrels = {test = "test.qrels"}\nsource_lang = "en"\n'
            'target_lang = "es"',
            "[collection] qrels by split needs queries by the same splits (test)",
        ),
        (
            'documents = "docs.tsv"\nqueries = "topics.trec"\nqrels = "all.qrels"\nsource_lang = "en"\ntarget_lang = "es"\n'
            'query_fields = "title,title"',
            "[collection] query_fields: query fields 'title,title' names a field twice",
        ),
        (
            'documents = "docs.tsv"\nqueries = "topics.trec"\nqrels = "all.qrels"\nsource_lang = "en"\ntarget_lang = "es"\n'
            'parallel = ["en.txt"]',
            "[collection] parallel must be a file (id TAB source TAB target), or two files",
        ),
    ],
)
def test_a_bad_collection_table_is_one_line_naming_the_key_before_anything_runs(files, capsys, collection, message):
    work, _ = files
    path = work / "bad.toml"
    path.write_text(f'measures = ["AP"]\n[collection]\n{collection}\n{SYSTEMS}', encoding="utf-8")
    assert main(["run", str(path), "-o", str(work / "bad"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {path}: {message.format(work=work)}") and err.count("\n") == 1
    assert not (work / "bad").exists() and not (work / ".bad.partial").exists()


def test_a_bad_line_in_a_file_is_named_and_nothing_is_written(files, tmp_path, capsys):
    work, _ = files
    (tmp_path / "q.tsv").write_text("q1\tlight\nq2\n", encoding="utf-8")
    path = tmp_path / "e.toml"
    path.write_text(
        f'measures = ["AP"]\n[collection]\ndocuments = "{work / "docs.tsv"}"\nqueries = "q.tsv"\n'
        f'qrels = "{work / "all.qrels"}"\nsource_lang = "en"\ntarget_lang = "es"\n{SYSTEMS}',
        encoding="utf-8",
    )
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {tmp_path / 'q.tsv'}:2: ") and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.toml", "q.tsv"]
    path.write_text(path.read_text().replace('queries = "q.tsv"', f'queries = "{work / "pairs.tsv"}"'))
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2  # not these topics' qrels
    assert capsys.readouterr().err == (
        f"clirkit: error: {work / 'all.qrels'}: judges none of the 450 test queries "
        "(e.g. Gen.1.1): are these the qrels of those topics?\n"
    )


def test_the_collection_verb_writes_the_folder_the_runner_makes(files, tmp_path, capsys, monkeypatch):
    work, _ = files
    monkeypatch.chdir(work)  # paths on the command line are relative to the current folder
    assert (
        main(
            [
                "collection",
                "--documents",
                "docs.tsv",
                "--queries",
                "topics.ntcir",
                "--query-fields",
                "title,desc",
                "--qrels",
                "all.qrels",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "--parallel",
                "pairs.tsv",
                "--split",
                "dev=0.5,test=0.5",
                "-o",
                str(tmp_path / "mine"),
                "-q",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith(f"mine in {tmp_path / 'mine'}: documents 450; parallel pairs ")
    runner = work / "fmt-ntcir" / "collection"  # made by the format test: same files and settings
    if runner.exists():
        for name in ("documents.tsv", "queries.dev.tsv", "queries.test.tsv", "qrels.dev.txt", "parallel.tsv"):
            assert (tmp_path / "mine" / name).read_bytes() == (runner / name).read_bytes()
    assert (
        main(
            [
                "collection",
                "--documents",
                "docs.tsv",
                "--queries",
                "dev=dev.tsv",
                "--queries",
                "test=test.tsv",
                "--qrels",
                "all.qrels",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith("checked: documents 450; parallel pairs 0\n  dev 12 queries")
    assert (
        main(
            [
                "collection",
                "--documents",
                "docs.tsv",
                "--queries",
                "topics.trec",
                "--qrels",
                "all.qrels",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "--split",
                "dev=0.5,tst=0.5",
                "-q",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err.startswith("clirkit: error: --split must be fractions of the queries by split")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("keep", encoding="utf-8")
    assert (
        main(
            [
                "collection",
                "--documents",
                "docs.tsv",
                "--queries",
                "topics.trec",
                "--qrels",
                "all.qrels",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-o",
                str(tmp_path / "notes"),
                "-q",
            ]
        )
        == 2
    )
    assert "notes: holds 'todo.txt', which is not a collection folder" in capsys.readouterr().err
    assert (
        main(
            [
                "collection",
                "--documents",
                "docs.tsv",
                "--queries",
                "topics.trec",
                "--qrels",
                "all.qrels",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-o",
                str(tmp_path / "mine"),
                "-q",
            ]
        )
        == 0
    )
    assert datasets.load(str(tmp_path / "mine")).splits == ["test"]  # replaced as a whole


def test_the_collection_verb_says_what_to_do_of_a_split_left_empty(files, tmp_path, capsys, monkeypatch):
    # was "topics.trec: the split {'dev': 0.001, 'test': 0.999} leaves the dev split empty (24 queries)": the
    # words of the experiment file's check (clirkit.experiment.spec) now, with what to do
    work, _ = files
    monkeypatch.chdir(work)
    assert (
        main(
            [
                "collection",
                "--documents",
                "docs.tsv",
                "--queries",
                "topics.trec",
                "--qrels",
                "all.qrels",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "--split",
                "dev=0.001,test=0.999",
                "-q",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        "clirkit: error: topics.trec: the split {dev = 0.001, test = 0.999} leaves the "
        "dev split empty: 0.001 of the 24 queries rounds to none; give dev a larger "
        "fraction (one query is 0.042 of them), or give the dev queries a file of "
        "their own\n"
    )


def test_a_missing_file_or_key_of_a_collection_table_says_what_to_give(files, capsys):
    # were "[collection] qrels: X: no such file" and "[collection] source_lang is missing: the queries' language
    # (ISO 639-1, e.g. en)", with no fix
    work, _ = files
    path = work / "missing.toml"
    table = 'documents = "docs.tsv"\nqueries = "topics.trec"\nqrels = "nope.qrels"\ntarget_lang = "es"\n'
    for collection, message in (
        (
            table + 'source_lang = "en"',
            f"[collection] qrels: {work / 'nope.qrels'}: no such file: check the path "
            f"(a relative path is read from {work})",
        ),
        (
            table.replace("nope.qrels", "all.qrels"),
            "[collection] source_lang is missing: give the queries' language (ISO 639-1, e.g. en)",
        ),
    ):
        path.write_text(f'measures = ["AP"]\n[collection]\n{collection}\n{SYSTEMS}', encoding="utf-8")
        assert main(["run", str(path), "-o", str(work / "missing"), "-q"]) == 2
        assert capsys.readouterr().err == f"clirkit: error: {path}: {message}\n"
    assert (
        main(
            [
                "collection",
                "--documents",
                str(work / "docs.tsv"),
                "--queries",
                str(work / "topics.trec"),
                "--qrels",
                "nope.qrels",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-q",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == "clirkit: error: --qrels: nope.qrels: no such file: check the path\n"


def test_the_seeded_split_is_by_query_id_whatever_the_file_order(files, tmp_path):
    work, _ = files
    lines = (work / "topics.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "reversed.tsv").write_text("".join(reversed(lines)), encoding="utf-8")

    def split(path, seed=0):
        plain = PlainCollection.from_dict(
            {
                "documents": str(work / "docs.tsv"),
                "queries": str(path),
                "qrels": str(work / "all.qrels"),
                "source_lang": "en",
                "target_lang": "es",
                "split": {"dev": 0.5, "test": 0.5},
                "split_seed": seed,
            },
            where="",
        )
        return {s: set(q) for s, q in plain.read().queries.items()}

    assert split(work / "topics.tsv") == split(tmp_path / "reversed.tsv") != split(work / "topics.tsv", seed=1)
    with pytest.raises(ClirkitError, match="must be an integer >= 0"):
        PlainCollection.from_dict(
            {
                "documents": "docs.tsv",
                "queries": "topics.tsv",
                "qrels": "all.qrels",
                "source_lang": "en",
                "target_lang": "es",
                "split_seed": -1,
            },
            where="",
            base=work,
        )


MUSE = (
    "god dios\nlord señor\nlove amor\nman hombre\nking rey\nheaven cielo\nearth tierra\nwater agua\n"
    "light luz\nfaith fe\nsin pecado\ndeath muerte\nlife vida\nprayer oración\nspirit espíritu\nson hijo\n"
    "father padre\npeople pueblo\nhouse casa\nword palabra\n"
)


def test_the_readme_experiment_runs_as_written_on_files_of_those_names(files, tmp_path, capsys):
    """README "Your own collection": its TOML, verbatim, on CLEF topics, JSONL documents, TREC qrels and a MUSE
    dictionary of the names it gives."""
    import re
    import shutil

    work, _ = files
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Your own collection", 1)[1].split("\n## ", 1)[0]
    toml = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    command = re.search(r"```sh\n(clirkit run my\.toml -o my-run)", section).group(1)
    (tmp_path / "my.toml").write_text(toml, encoding="utf-8")
    shutil.copy(work / "docs.jsonl.gz", tmp_path / "docs.jsonl.gz")
    shutil.copy(work / "topics.clef", tmp_path / "topics.xml")
    shutil.copy(work / "all.qrels", tmp_path / "qrels.txt")
    (tmp_path / "en-es.txt").write_text(MUSE, encoding="utf-8")
    capsys.readouterr()
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(command.split()[1:] + ["-q"]) == 0, capsys.readouterr().err
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert [line.split(": ")[0] for line in out.split("\n") if line.startswith("my ")] == [
        "my (standard), dev split",
        "my (standard), test split",
        "my (standard), all queries (dev and test)",
    ]
    assert "\nDT+PSQ " in out and (tmp_path / "my-run" / "report.md").exists()
    assert readme.count("clirkit collection --documents docs.jsonl.gz --queries topics.xml") == 1


def test_a_moses_phrase_table_is_read_as_the_table_of_a_collection_of_hc4_topics(files, capsys):
    work, _ = files
    with gzip.open(work / "phrase-table.gz", "wt", encoding="utf-8") as fh:  # src ||| tgt ||| 4 scores (p(t|s) 3rd)
        fh.write(
            "light ||| luz ||| 0.5 0.4 0.8 0.3\nlight ||| lumbre ||| 0.2 0.1 0.2 0.1\n"
            "god ||| dios ||| 0.9 0.9 0.9 0.9\nwaters ||| aguas ||| 0.9 0.9 0.9 0.9\n"
        )
    out = _run(
        work,
        "moses",
        'documents = "docs.tsv"\nqueries = "topics.hc4"\nquery_fields = "title,desc"\n'
        'qrels = "all.qrels"\nsource_lang = "en"\ntarget_lang = "es"\nsplit = {dev = 0.5, test = 0.5}',
        capsys,
        top='[table]\nfile = "phrase-table.gz"',
    )
    record = json.loads((work / "moses" / "runs" / "psq.test.run.gz.json").read_text(encoding="utf-8"))
    assert record["table"]["file"].endswith("phrase-table.gz") and "tuned and learned (dev: 12 queries)" in out
    assert not (work / "moses" / "table.npz").exists() and "\nDT+PSQ " in out
