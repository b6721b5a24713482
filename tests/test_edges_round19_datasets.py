"""Edge cases of round 19 (datasets build): a cache ($CLIRKIT_CACHE) that is a file or cannot be made is one line,
not a traceback; bible-verse-es-en refuses a build with no documents or a split with no queries, naming the file to
blame, and says when verse files are not the documented build's; multi30k-de-en refuses an empty query line; a build
removes the staging folders that killed builds left."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cli_datasets import _gz, _text, fake_multi30k

from clirkit import datasets
from clirkit.cli import main
from clirkit.errors import ClirkitError


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CLIRKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CLIRKIT_SHARED", str(tmp_path / "no-shared"))
    return tmp_path / "cache"


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# 1. a cache that is a file, or cannot be made ------------------------------------------------------------------

ADVICE = "built collections are kept there; set CLIRKIT_CACHE to a folder you can write in"


def test_a_cache_that_is_a_file_is_one_line_from_build_export_and_load(tmp_path, own_cache, monkeypatch, capsys):
    clone = fake_multi30k(tmp_path / "dataset")
    cache = tmp_path / "cachefile"
    cache.write_text("")
    monkeypatch.setenv("CLIRKIT_CACHE", str(cache))
    said = f"$CLIRKIT_CACHE={cache}: is a file, not a folder: {ADVICE}"
    assert main(["datasets", "build", "multi30k-de-en", "--from", str(clone), "-q"]) == 2
    assert _one_error(capsys) == f"clirkit: error: {said}\n"
    # the first use from the shared folder: by export and by load
    fake_multi30k(tmp_path / "shared" / "data" / "multi30k")
    monkeypatch.setenv("CLIRKIT_SHARED", str(tmp_path / "shared"))
    assert main(["datasets", "export", "multi30k-de-en", "-o", str(tmp_path / "out"), "-q"]) == 2
    assert _one_error(capsys) == f"clirkit: error: {said}\n"
    with pytest.raises(ClirkitError) as caught:
        datasets.load("multi30k-de-en")
    assert str(caught.value) == said
    # a cache inside that file names the file
    monkeypatch.setenv("CLIRKIT_CACHE", str(cache / "sub"))
    with pytest.raises(ClirkitError) as caught:
        datasets.build("multi30k-de-en", clone)
    assert str(caught.value) == f"$CLIRKIT_CACHE={cache / 'sub'}: {cache} is a file, not a folder: {ADVICE}"
    assert cache.read_text() == ""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_a_cache_that_cannot_be_made_says_why(tmp_path, own_cache, monkeypatch):
    clone = fake_multi30k(tmp_path / "dataset")
    monkeypatch.setenv("CLIRKIT_CACHE", "/proc/self/nonexist")
    with pytest.raises(ClirkitError) as caught:
        datasets.build("multi30k-de-en", clone)
    assert (
        str(caught.value) == f"$CLIRKIT_CACHE=/proc/self/nonexist: cannot be made: No such file or directory: {ADVICE}"
    )


# 2. bible-verse-es-en: no documents, a split with no queries, verses other than the documented build's -----------

VERSES = {  # a verse of each split's books and one of the Old Testament
    "Gen.1.1": ("EN el principio crió Dios los cielos y la tierra.", "In the beginning, God created the heavens."),
    "Matt.1.1": ("Libro de la generación de Jesucristo.", "The book of the genealogy of Jesus Christ."),
    "Heb.11.17": ("Por fe ofreció Abraham á Isaac.", "By faith, Abraham offered up Isaac."),
    "Rev.22.21": ("La gracia de nuestro Señor sea con todos.", "The grace of the Lord be with all."),
}
REFS = ["Matt.1.1\tGen.1.1\t7", "Heb.11.17\tMatt.1.1\t3", "Rev.22.21\tGen.1.1\t12"]


def _bible(folder: Path, es=VERSES, en=VERSES, refs=REFS) -> Path:
    _text(folder / "spaRV1909eb.tsv", ["osis_id\ttext"] + [f"{v}\t{t[0]}" for v, t in es.items()])
    _text(folder / "engWEB2015eb.tsv", ["osis_id\ttext"] + [f"{v}\t{t[1]}" for v, t in en.items()])
    _text(folder / "cross_references.txt", ["From Verse\tTo Verse\tVotes", *refs])
    return folder


def test_verse_files_other_than_the_documented_ones_are_built_and_said(tmp_path, own_cache, capsys):
    src = _bible(tmp_path / "src")
    assert main(["datasets", "build", "bible-verse-es-en", "--from", str(src), "-q"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"datasets build: {src / name}: its 4 verses are not those of the published build (another Bible or "
        f"version?): the collection built from it differs from the documented one"
        for name in ("spaRV1909eb.tsv", "engWEB2015eb.tsv")
    ]
    assert datasets.load("bible-verse-es-en").qrels("test").to_dict() == {"Rev.22.21": {"Rev.22.21": 3, "Gen.1.1": 2}}


@pytest.mark.parametrize(
    "case, blamed, problem",
    [
        ("empty WEB", "engWEB2015eb.tsv", "no verses (an empty file?): the collection would have no documents"),
        (
            "WEB cut before the NT",
            "engWEB2015eb.tsv",
            "no verse of the train split's books (Matt, Mark, Luke, Acts, Rom, 1Cor, 2Cor, Gal, Eph, Phil, Col): "
            "the train split would have no queries (an empty or truncated file?)",
        ),
        (
            "empty cross references",
            "cross_references.txt",
            "empty: no cross references found; check the path (OpenBible's cross_references.txt holds "
            "'From Verse TAB To Verse TAB Votes' lines)",
        ),
        (
            "no cross reference of the test books",
            "cross_references.txt",
            "no cross reference with votes > 0 from a verse of the test split's books (1Pet, 2Pet, 1John, 2John, "
            "3John, Jude, Rev) to verses of both Bibles: the test split would have no queries (an empty or "
            "truncated file?)",
        ),
    ],
)
def test_a_bible_build_with_no_documents_or_a_split_without_queries_is_refused_naming_the_file(
    tmp_path, own_cache, capsys, case, blamed, problem
):
    src = {
        "empty WEB": lambda: _bible(tmp_path / "src", en={}),
        "WEB cut before the NT": lambda: _bible(tmp_path / "src", en={"Gen.1.1": VERSES["Gen.1.1"]}),
        "empty cross references": lambda: _bible(tmp_path / "src", refs=[]),
        "no cross reference of the test books": lambda: _bible(tmp_path / "src", refs=REFS[:2]),
    }[case]()
    assert main(["datasets", "build", "bible-verse-es-en", "--from", str(src), "-q"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {src / blamed}: {problem}\n"  # one line: no note before it
    assert not list(own_cache.rglob("done")) and not list(own_cache.rglob("built.json"))


# 3. multi30k-de-en: an empty query line ---------------------------------------------------------------------------


def test_an_empty_query_line_in_multi30k_is_refused_naming_file_and_line(tmp_path, own_cache, capsys):
    clone = fake_multi30k(tmp_path / "dataset")
    de = clone / "data/task2/raw/val.1.de.gz"
    _gz(de, ["Ein Hund rennt über das Gras.", "Zwei Kinder spielen im Sand.", "", "Menschen warten."])
    assert main(["datasets", "build", "multi30k-de-en", "--from", str(clone), "-q"]) == 2
    assert _one_error(capsys) == (
        f"clirkit: error: {de}:3: empty line: the query, the first German description of image 13 (line 3 of "
        f"{clone / 'data/task2/image_splits/val_images.txt'}), is missing\n"
    )
    assert not list(own_cache.rglob("done"))


def test_an_image_without_any_english_description_in_multi30k_is_refused(tmp_path, own_cache, capsys):
    clone = fake_multi30k(tmp_path / "dataset")
    for k in range(1, 6):
        _gz(clone / f"data/task2/raw/test_2016.{k}.en.gz", ["A cat sleeps on a sofa.", ""])
    assert main(["datasets", "build", "multi30k-de-en", "--from", str(clone), "-q"]) == 2
    assert _one_error(capsys) == (
        f"clirkit: error: {clone / 'data/task2/raw/test_2016.1.en.gz'}:2: empty line, as in test_2016.2-5.en.gz: "
        f"image 22 has no English description (its document)\n"
    )


# 4. staging folders left by killed builds -----------------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_build_removes_the_staging_folders_of_killed_builds_and_keeps_those_of_running_ones(tmp_path, own_cache):
    from clirkit.datasets import _runtime

    clone = fake_multi30k(tmp_path / "dataset")
    folder = own_cache / "collections" / "multi30k-de-en"
    dead = folder / f".build-{_dead_pid()}.abcd1234"
    running = folder / f".build-{os.getppid()}.abcd1234"
    old_unowned = folder / ".build-k2x9q_7m"  # named by a clirkit of before: no process in the name
    new_unowned = folder / ".build-zz8q1b0p"
    for staging in (dead, running, old_unowned, new_unowned):
        (staging / "standard").mkdir(parents=True)
    past = time.time() - _runtime.STALE_UNOWNED_SECONDS - 60
    os.utime(old_unowned, (past, past))
    built = datasets.build("multi30k-de-en", clone)
    assert not dead.exists() and not old_unowned.exists()
    assert running.is_dir() and new_unowned.is_dir()
    assert (built / "done").is_file()


def test_a_build_stages_in_a_folder_named_with_its_process(tmp_path, own_cache):
    from clirkit.datasets import _runtime

    seen = []

    def build():
        seen.extend(p.name for p in (own_cache / "collections" / "x").iterdir())
        return {}

    source = tmp_path / "source.txt"
    source.write_text("a\n")
    _runtime.build_cached("x", [source], build)
    assert len(seen) == 1 and seen[0].startswith(f".build-{os.getpid()}.")
    after = sorted(p.name for p in (own_cache / "collections" / "x").iterdir())
    assert after == sorted(["built.json", _runtime._fingerprint("x", [source])])
