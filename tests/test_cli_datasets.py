"""`clirkit datasets`: list the collections, export one as the tour's plain files, build C2 and C3 from downloads."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from clirkit import datasets
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.formats import read_documents, read_qrels, read_queries, read_run


@pytest.fixture(autouse=True)
def no_shared_folder(tmp_path_factory, monkeypatch):
    """A fresh cache and an empty shared folder: what a user has after `pip install`."""
    monkeypatch.setenv("CLIRKIT_CACHE", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("CLIRKIT_SHARED", str(tmp_path_factory.mktemp("no-shared")))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The bundled nave-en-es exported by the command, as the tour's first line does."""
    out = tmp_path_factory.mktemp("export") / "d"
    assert main(["datasets", "export", "nave-en-es", "-o", str(out), "-q"]) == 0
    return out


def _same_qrels(a, b) -> None:
    for field in ("qids", "docids", "rels"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


# --------------------------------------------------------------------------- export


def test_export_writes_the_tour_files_and_each_reads_back_as_the_collection(exported):
    c = datasets.load("nave-en-es")
    names = sorted(p.name for p in exported.iterdir())
    assert names == sorted(
        [
            "docs.tsv",
            "queries.train.tsv",
            "queries.dev.tsv",
            "queries.test.tsv",
            "train.qrels",
            "dev.qrels",
            "test.qrels",
            "parallel.en.txt",
            "parallel.es.txt",
            "README.txt",
        ]
    )
    assert read_documents(exported / "docs.tsv") == c.documents()
    for split in c.splits:
        assert read_queries(exported / f"queries.{split}.tsv") == c.queries(split)
        _same_qrels(read_qrels(exported / f"{split}.qrels"), c.qrels(split))
    english = (exported / "parallel.en.txt").read_text(encoding="utf-8").split("\n")
    spanish = (exported / "parallel.es.txt").read_text(encoding="utf-8").split("\n")
    assert (english[:-1], spanish[:-1]) == c.parallel() and english[-1] == spanish[-1] == ""
    readme = (exported / "README.txt").read_text(encoding="utf-8")
    for name in names:
        assert name == "README.txt" or f"\n{name} " in readme
    assert "31,084 documents (es)" in readme and "1,280 test queries (en)" in readme


def test_export_of_a_variant_with_exclusions_writes_them(tmp_path, mini):
    """A collection folder exports as a named one does; excluded pairs (bible-verse-es-en topical) have a file."""
    c = datasets.load(str(mini))
    data = datasets.CollectionData(
        name="mini",
        variant="topical",
        source_lang="en",
        target_lang="es",
        description="with exclusions",
        docids=c.documents()[0],
        doc_texts=c.documents()[1],
        pair_ids=c.parallel_ids(),
        pair_sources=c.parallel()[0],
        pair_targets=c.parallel()[1],
        queries={s: c.queries(s) for s in c.splits},
        qrels={s: c.qrels(s) for s in c.splits},
        excluded={s: c.qrels(s).subset(list(c.queries(s))[:2]) for s in c.splits},
    )
    datasets.write_collection(data, tmp_path / "topical", compress=False)
    assert main(["datasets", "export", str(tmp_path / "topical"), "-o", str(tmp_path / "d"), "-q"]) == 0
    for split in c.splits:
        pairs = read_qrels(tmp_path / "d" / f"excluded.{split}.qrels")
        expected = datasets.load(str(tmp_path / "topical")).excluded(split)
        assert {q: set(pairs.docids[pairs.qids == q].tolist()) for q in expected} == expected
    assert "pairs to remove from the runs" in (tmp_path / "d" / "README.txt").read_text(encoding="utf-8")


def test_the_tour_chain_runs_on_exported_files_index_ttable_psq_eval(tmp_path, mini, capsys):
    d = tmp_path / "d"
    assert main(["datasets", "export", str(mini), "-o", str(d), "-q"]) == 0
    steps = [
        ["index", f"{d}/docs.tsv", "-o", f"{tmp_path}/es.npz", "--lang", "es", "-j", "1"],
        [
            "ttable",
            "train",
            "--source",
            f"{d}/parallel.en.txt",
            "--target",
            f"{d}/parallel.es.txt",
            "--source-lang",
            "en",
            "--target-lang",
            "es",
            "-o",
            f"{tmp_path}/en-es.npz",
            "-j",
            "1",
        ],
        [
            "ttable",
            "train",
            "--source",
            f"{d}/parallel.es.txt",
            "--target",
            f"{d}/parallel.en.txt",
            "--source-lang",
            "es",
            "--target-lang",
            "en",
            "-o",
            f"{tmp_path}/es-en.npz",
            "-j",
            "1",
        ],
        [
            "psq",
            "--index",
            f"{tmp_path}/es.npz",
            "--queries",
            f"{d}/queries.test.tsv",
            "--table",
            f"{tmp_path}/es-en.npz",
            "--save-index",
            f"{tmp_path}/es.en.npz",
            "-o",
            f"{tmp_path}/psq.run",
        ],
        [
            "psq",
            "--index",
            f"{tmp_path}/es.en.npz",
            "--queries",
            f"{d}/queries.test.tsv",
            "-o",
            f"{tmp_path}/again.run",
        ],
        [
            "psq",
            "--index",
            f"{tmp_path}/es.npz",
            "--queries",
            f"{d}/queries.test.tsv",
            "--table",
            f"{tmp_path}/en-es.npz",
            "-o",
            f"{tmp_path}/psq-q.run",
        ],
        ["eval", "--qrels", f"{d}/test.qrels", f"{tmp_path}/psq.run", "-m", "AP,P@10"],
    ]
    for argv in steps:
        assert main(argv + ["--quiet"]) == 0, argv
    assert (tmp_path / "again.run").read_bytes() == (tmp_path / "psq.run").read_bytes()
    run = read_run(tmp_path / "psq.run")
    assert set(run.query_ids) <= set(read_queries(d / "queries.test.tsv")) and len(run.query_ids) >= 10
    out = capsys.readouterr().out
    assert "AP" in out and "P@10" in out


def test_export_refuses_a_folder_that_is_not_empty_and_force_writes_beside_its_files(tmp_path, mini, capsys):
    d = tmp_path / "d"
    d.mkdir()
    (d / "notes.txt").write_text("mine\n", encoding="utf-8")
    assert main(["datasets", "export", str(mini), "-o", str(d), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{d}: the folder is not empty" in err and "--force" in err
    assert sorted(p.name for p in d.iterdir()) == ["notes.txt"]
    assert main(["datasets", "export", str(mini), "-o", str(d), "--force", "-q"]) == 0
    assert (d / "notes.txt").read_text(encoding="utf-8") == "mine\n" and (d / "docs.tsv").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_an_interrupted_export_leaves_nothing(tmp_path, mini, monkeypatch, capsys):
    import clirkit.formats

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(clirkit.formats, "write_qrels", interrupted)  # after docs and queries are written
    assert main(["datasets", "export", str(mini), "-o", str(tmp_path / "d")]) == 130
    assert capsys.readouterr().err.endswith("clirkit: interrupted\n")
    assert list(tmp_path.iterdir()) == []


def test_export_of_an_unknown_collection_or_variant_is_one_line(tmp_path, capsys):
    assert main(["datasets", "export", "nave-es-en", "-o", str(tmp_path / "d")]) == 2
    assert main(["datasets", "export", "nave-en-es", "--variant", "strikt", "-o", str(tmp_path / "d")]) == 2
    first, second = capsys.readouterr().err.splitlines()
    assert first.startswith("clirkit: error: unknown collection 'nave-es-en' (known: nave-en-es, ")
    assert second == "clirkit: error: collection nave-en-es has no variant 'strikt' (choose standard, strict)"
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- list


def test_list_names_every_collection_with_variants_and_status(capsys):
    assert main(["datasets", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["NAME", "VARIANTS", "STATUS", "DESCRIPTION"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == datasets.names()
    assert "standard, strict" in rows["nave-en-es"] and " bundled " in rows["nave-en-es"]
    assert "English Nave's Topical Bible subtopics -> Spanish Reina-Valera 1909 verses" in rows["nave-en-es"]
    for name in ("bible-verse-es-en", "multi30k-de-en"):
        assert " to build " in rows[name]


# --------------------------------------------------------------------------- build C2 and C3 from downloads


def _gz(path, lines) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))


def _text(path, lines) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


DOGS_EN = [
    "A dog runs across the grass.",
    "Two children play in the sand.",
    "A man rides a red bicycle.",
    "A woman sings on a stage.",
    "A cat sleeps on a sofa.",
    "People wait at a bus stop.",
]
DOGS_DE = [
    "Ein Hund rennt über das Gras.",
    "Zwei Kinder spielen im Sand.",
    "Ein Mann fährt ein rotes Fahrrad.",
    "Eine Frau singt auf einer Bühne.",
    "Eine Katze schläft auf einem Sofa.",
    "Menschen warten an einer Bushaltestelle.",
]


def fake_multi30k(root):
    """A clone of the Multi30K repository in miniature: task 2 val (4 images; 19 falls in dev) and test_2016 (2),
    task 1 train (3)."""
    for part, images in (("val", ["11", "12", "13", "19"]), ("test_2016", ["21", "22"])):
        _text(root / "data/task2/image_splits" / f"{part}_images.txt", [f"{i}.jpg" for i in images])
        offset = 0 if part == "val" else 4
        for k in range(1, 6):
            _gz(root / "data/task2/raw" / f"{part}.{k}.en.gz", DOGS_EN[offset : offset + len(images)])
            _gz(root / "data/task2/raw" / f"{part}.{k}.de.gz", DOGS_DE[offset : offset + len(images)])
    _text(root / "data/task1/image_splits/train.txt", ["31.jpg", "32.jpg", "33.jpg"])
    _gz(root / "data/task1/raw/train.en.gz", DOGS_EN[:3])
    _gz(root / "data/task1/raw/train.de.gz", DOGS_DE[:3])
    return root


def test_build_multi30k_from_a_clone_then_load_finds_it_without_the_sources(tmp_path, capsys):
    clone = fake_multi30k(tmp_path / "dataset")
    with pytest.raises(
        ClirkitError,
        match=r"collection multi30k-de-en is not built yet: build it once with "
        r"`clirkit datasets build multi30k-de-en --from DIR`.*"
        r"https://github\.com/multi30k/dataset",
    ):
        datasets.load("multi30k-de-en")
    assert main(["datasets", "build", "multi30k-de-en", "--from", str(clone), "-q"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "standard: documents 6; parallel pairs 3",
        "  train 3 queries; grade 1: 3",
        "  dev 1 query; grade 1: 1",
        "  test 2 queries; grade 1: 2",
    ]
    import shutil

    shutil.rmtree(clone)
    c = datasets.load("multi30k-de-en")
    assert c.documents() == (["11", "12", "13", "19", "21", "22"], [" ".join([t] * 5) for t in DOGS_EN])
    assert c.queries("dev") == {"19": DOGS_DE[3]}
    assert c.queries("test") == {"21": DOGS_DE[4], "22": DOGS_DE[5]}
    assert main(["datasets", "list"]) == 0
    assert any(
        line.startswith("multi30k-de-en ") and " built " in line for line in capsys.readouterr().out.splitlines()
    )


def test_build_bible_verse_from_one_folder_per_source(tmp_path, capsys):
    verses = {
        "Gen.1.1": (
            "EN el principio crió Dios los cielos y la tierra.",
            "In the beginning, God created the heavens and the earth.",
        ),
        "Matt.1.1": (
            "Libro de la generación de Jesucristo, hijo de David, hijo de Abraham.",
            "The book of the genealogy of Jesus Christ, the son of David, the son of Abraham.",
        ),
        "Matt.1.2": ("Abraham engendró á Isaac.", "Abraham became the father of Isaac."),
        "Heb.11.17": ("Por fe ofreció Abraham á Isaac.", "By faith, Abraham offered up Isaac."),
        "Rev.22.21": ("La gracia de nuestro Señor sea con todos.", "The grace of the Lord be with all."),
    }
    _text(tmp_path / "bible" / "spaRV1909eb.tsv", ["osis_id\ttext"] + [f"{v}\t{es}" for v, (es, _) in verses.items()])
    _text(tmp_path / "bible" / "engWEB2015eb.tsv", ["osis_id\ttext"] + [f"{v}\t{en}" for v, (_, en) in verses.items()])
    _text(
        tmp_path / "openbible" / "cross_references.txt",
        [
            "From Verse\tTo Verse\tVotes\t#www.openbible.info CC-BY 2021-05-31",
            "Matt.1.1\tMatt.1.2\t7",
            "Matt.1.2\tHeb.11.17\t3",
            "Heb.11.17\tMatt.1.2-Matt.1.2\t12",
            "Rev.22.21\tGen.1.1\t0",
            "Rev.22.21\tMatt.1.1\t2",
        ],
    )
    assert (
        main(
            [
                "datasets",
                "build",
                "bible-verse-es-en",
                "--from",
                str(tmp_path / "bible"),
                "--from",
                str(tmp_path / "openbible"),
                "-q",
            ]
        )
        == 0
    )
    assert "standard: documents 5; parallel pairs 1" in capsys.readouterr().out
    c = datasets.load("bible-verse-es-en")
    assert c.qrels("train").to_dict() == {
        "Matt.1.1": {"Matt.1.1": 3, "Matt.1.2": 2},
        "Matt.1.2": {"Matt.1.2": 3, "Heb.11.17": 1},
    }
    assert c.qrels("dev").to_dict() == {"Heb.11.17": {"Heb.11.17": 3, "Matt.1.2": 2}}
    assert datasets.load("bible-verse-es-en", variant="topical").excluded("dev") == {"Heb.11.17": {"Heb.11.17"}}


def test_build_with_a_missing_file_says_which_and_where_to_download_it(tmp_path, capsys):
    clone = fake_multi30k(tmp_path / "dataset")
    (clone / "data/task1/raw/train.de.gz").unlink()
    assert main(["datasets", "build", "multi30k-de-en", "--from", str(clone), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"clirkit: error: {clone}: no data/task1/raw/train.de.gz (1 of 25 source files missing); ")
    assert "https://github.com/multi30k/dataset" in err
    assert main(["datasets", "build", "nave-en-es", "--from", str(clone)]) == 2
    err = capsys.readouterr().err  # one line: the error, no "datasets build: ..." announcement before it
    assert err.startswith("clirkit: error: collection nave-en-es is bundled with clirkit: nothing to build")
    assert err.count("\n") == 1
    assert main(["datasets", "build", "nosuch", "--from", str(clone)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clirkit: error: unknown collection 'nosuch'") and err.count("\n") == 1
    assert not list(datasets.cache_dir().rglob("done"))  # nothing built, not even half


def test_build_help_says_which_files_and_where_to_download_them(capsys):
    with pytest.raises(SystemExit):
        main(["datasets", "build", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for needed in (
        "cross_references.txt",
        "spaRV1909eb.tsv",
        "engWEB2015eb.tsv",
        "sword-text-sparv",
        "https://www.openbible.info/labs/cross-references/",
        "https://github.com/multi30k/dataset",
        "data/task1",
        "data/task2",
    ):
        assert needed in text, needed


def test_a_build_recorded_by_an_older_builder_is_not_used(tmp_path):
    from clirkit.datasets import _runtime

    clone = fake_multi30k(tmp_path / "dataset")
    folder = datasets.build("multi30k-de-en", clone)
    record = folder.parent / _runtime.RECORD
    assert json.loads(record.read_text())["fingerprint"] == folder.name
    record.write_text(json.dumps({"fingerprint": folder.name, "builder_version": _runtime.BUILDER_VERSION - 1}))
    with pytest.raises(ClirkitError, match="not built yet"):
        datasets.load("multi30k-de-en")


def test_the_readme_layout_says_how_a_collection_that_is_not_bundled_arrives(monkeypatch):
    from pathlib import Path

    from clirkit.datasets.collection import cache_dir

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    layout = " ".join(readme.split("\n## Layout", 1)[1].split())
    assert "`clirkit datasets build NAME --from DIR`" in layout and "../shared/data" in layout
    monkeypatch.delenv("CLIRKIT_CACHE")
    assert "the cache (`$CLIRKIT_CACHE`, default `~/.cache/clirkit`)" in layout
    assert cache_dir() == Path.home() / ".cache" / "clirkit"
    assert "at run time" not in layout  # they are built once, not read from ../shared by every run
