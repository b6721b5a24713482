"""clirkit.datasets: the bundled nave-en-es files, their builder, and the collections built from ../shared."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from clirkit import datasets
from clirkit.datasets import build_nave
from clirkit.datasets._bible import NT_BOOKS, VerseIndex, book_of, read_verses
from clirkit.datasets._nave import Casing, clean_heading, read_nave, title_case, topic_slug
from clirkit.datasets._runtime import default_shared
from clirkit.datasets._store import describe_counts
from clirkit.datasets.collection import Collection
from clirkit.datasets.parallel import read_parallel, write_parallel
from clirkit.errors import ClirkitError

SHARED = default_shared()
HAVE_SHARED = (SHARED / "data" / "bible").is_dir()
needs_shared = pytest.mark.skipif(
    not HAVE_SHARED, reason=f"shared data folder not found at {SHARED} (set CLIRKIT_SHARED to run this test)"
)
README = Path(datasets.__file__).parent / "README.md"


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """Derived and built collection files go to a temporary cache, never ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLIRKIT_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def _lines(path) -> list[bytes]:
    with (gzip.open if str(path).endswith(".gz") else open)(path, "rb") as fh:
        return fh.read().splitlines()


def _counts_from_files(c: Collection) -> dict:
    """Counts recomputed from the raw files (an oracle independent of the readers and the manifest)."""
    out: dict = {"documents": len(_lines(c.paths["documents"])), "parallel_pairs": len(_lines(c.paths["parallel"]))}
    for split in c.splits:
        grades, n = np.unique(
            np.array(b" ".join(_lines(c.paths["qrels"][split])).split()[3::4], dtype=int), return_counts=True
        )
        out[split] = {
            "queries": len(_lines(c.paths["queries"][split])),
            "qrels": {str(g): int(k) for g, k in zip(grades.tolist(), n.tolist())},
        }
        if "excluded" in c.paths:
            out[split]["excluded"] = len(_lines(c.paths["excluded"][split]))
    return out


# --------------------------------------------------------------------------- verse references

IDS = ["Gen.1.1", "Gen.1.2", "Gen.1.3", "Gen.2.1", "Gen.2.2", "Exod.1.1"]


def test_reference_expands_verse_chapter_and_range_in_verse_order():
    v = VerseIndex(IDS)
    assert v.expand("Gen.1.2") == [1]
    assert v.expand("Gen.2") == [3, 4]
    assert v.expand("Gen.1.2-Gen.2.1") == [1, 2, 3]


def test_reference_range_end_missing_from_versification_still_bounds_it():
    assert VerseIndex(IDS).expand("Gen.1.2-Gen.1.9") == [1, 2]


def test_reference_to_absent_verse_is_empty_and_malformed_is_none():
    v = VerseIndex(IDS)
    assert v.expand("Gen.1.9") == []
    assert v.expand("Lev.1") == []
    assert v.expand("Genesis one") is None
    assert v.expand("Gen.1.1-Exod.1.1") is None


def test_verse_file_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "v.tsv"
    bad.write_text("osis_id\ttext\nGen.1.1\tEn el principio\nGen.1\tsin verso\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"v\.tsv:3: expected Book\.C\.V TAB text"):
        read_verses(bad)
    bad.write_text("osis_id\ttext\nGen.1.1\ta\nGen.1.1\tb\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"v\.tsv:3: verse Gen\.1\.1 appears twice \(first at line 2\)"):
        read_verses(bad)


# --------------------------------------------------------------------------- Nave parsing and cleaning

CASING = Casing(["And Moses said to the priests of God: he meets them in the wilderness for the house of God."])


@pytest.mark.parametrize(
    "raw, expected",
    [
        (
            "→ Meets, Moses in the wilderness and is made spokesman for Moses  ",
            "meets Moses in the wilderness and is made spokesman for Moses",
        ),
        ("→ For God' s house ", "for God's house"),
        ("→ INSTANCES OF <list> <item>Inhabitants</item> <item>Of Heshbon ", "instances of inhabitants of Heshbon"),
        ("1. A judge of Israel ", "a judge of Israel"),
        ("→ Consecration of, to the priesthood ", "consecration of, to the priesthood"),
        ("→ &#8220;Calves of the lips,&#8221; a metaphor ", "“Calves of the lips,” a metaphor"),
        ("→ ", ""),
    ],
)
def test_heading_is_cleaned_to_sentence_case(raw, expected):
    assert clean_heading(raw, CASING) == expected


def test_topic_names_in_title_case_and_as_id_prefix():
    assert title_case("JESUS, THE CHRIST") == "Jesus, the Christ"
    assert title_case("ABED-NEGO") == "Abed-Nego"
    assert title_case("ANGEL OF THE CHURCHES") == "Angel of the Churches"
    assert topic_slug("JESUS, THE CHRIST") == "JESUS_THE_CHRIST"
    assert topic_slug("EASTER (A.V.)") == "EASTER_A_V"


def test_repeated_topic_entries_merge_and_keep_numbering(tmp_path):
    imp = tmp_path / "n.imp"
    imp.write_text(
        '$$$SIN\n<entryFree n="SIN"> <def> <lb/>→ Desert of <ref osisRef="Exod.16.1">Ex 16:1</ref> '
        '<lb/>→ See <ref target="Nave:ZIN">ZIN</ref></def> </entryFree>\n'
        '$$$ABEL\n<entryFree n="ABEL"> <def> <lb/>1. A stone <ref osisRef="1Sam.6.18">1Sa 6:18</ref></def> </entryFree>\n'
        '$$$SIN\n<entryFree n="SIN"> <def> <lb/>→ Degrees in <ref osisRef="Rom.2">Ro 2</ref>; '
        '<ref osisRef="John.19.11-John.19.12">Joh 19:11,12</ref></def> </entryFree>\n',
        encoding="utf-8",
    )
    topics = read_nave(imp)
    assert [t.key for t in topics] == ["SIN", "ABEL"]
    sin = topics[0].subtopics
    assert [s.number for s in sin] == [1, 2, 3]
    assert [s.refs for s in sin] == [["Exod.16.1"], [], ["Rom.2", "John.19.11-John.19.12"]]
    assert sin[2].heading.strip() == "→ Degrees in"


def test_nave_file_without_entry_line_is_an_error(tmp_path):
    imp = tmp_path / "n.imp"
    imp.write_text("$$$SIN\nplain text\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"n\.imp:2: expected an <entryFree> line for topic SIN"):
        read_nave(imp)


def test_topic_split_is_sha256_of_the_name_and_never_changes():
    for name in ("AARON", "JESUS, THE CHRIST", "SIN"):
        bucket = int(hashlib.sha256(name.encode()).hexdigest()[:16], 16) % 100
        expected = "train" if bucket < 80 else "dev" if bucket < 90 else "test"
        assert build_nave.topic_split(name) == expected
    assert [build_nave.topic_split(n) for n in ("AARON", "ABDON", "ABDI")] == ["dev", "train", "test"]


# --------------------------------------------------------------------------- parallel files and manifests


def test_parallel_file_round_trips(tmp_path):
    path = tmp_path / "p.tsv.gz"
    assert (
        write_parallel(
            ["Gen.1.1", "Gen.1.2"], ["In the beginning", "The earth"], ["En el principio", "Y la tierra"], path
        )
        == 2
    )
    assert read_parallel(path) == (
        ["Gen.1.1", "Gen.1.2"],
        ["In the beginning", "The earth"],
        ["En el principio", "Y la tierra"],
    )


def test_parallel_file_errors_name_file_and_line(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("a\tx\ty\nb\tonly two\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"p\.tsv:2: expected 3 tab-separated fields .* got 2"):
        read_parallel(path)
    path.write_text("a\tx\ty\na\tz\tw\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"p\.tsv:2: pair id a appears twice \(first at line 1\)"):
        read_parallel(path)
    with pytest.raises(ClirkitError, match="tab or a line break"):
        write_parallel(["a"], ["x\ty"], ["z"], tmp_path / "q.tsv")
    assert not (tmp_path / "q.tsv").exists()


def test_collection_folder_with_other_format_version_is_refused(tmp_path):
    with pytest.raises(ClirkitError, match="not a clirkit collection folder"):
        Collection(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "clirkit-collection", "version": 99}))
    with pytest.raises(ClirkitError, match="version 99"):
        Collection(tmp_path)


def test_a_folder_that_is_no_collection_or_a_broken_manifest_says_what_to_do(tmp_path):
    # were "X/manifest.json: no such file; X is not a clirkit collection folder", "not a valid manifest (Expecting
    # value: ...)" and "not a clirkit collection manifest", with no fix
    manifest = tmp_path / "manifest.json"
    with pytest.raises(ClirkitError) as err:
        Collection(tmp_path)
    assert str(err.value) == (
        f"{manifest}: no such file; {tmp_path} is not a clirkit collection folder: check the "
        f"path (a collection folder is made by `clirkit collection`)"
    )
    remake = "restore the folder's manifest.json, or make the folder again with `clirkit collection`"
    manifest.write_text('{"format": ', encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Collection(tmp_path)
    assert str(err.value) == (
        f"{manifest}: not a valid manifest (Expecting value: line 1 column 12 (char 11)); {remake}"
    )
    manifest.write_text('{"format": "clirkit-irds"}', encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        Collection(tmp_path)
    assert str(err.value) == (
        f"{manifest}: not a clirkit collection manifest (a JSON object whose format is "
        f"'clirkit-collection'): check the path, or {remake}"
    )


def test_a_manifest_in_utf16_is_named_so_with_iconv(tmp_path):
    # was "not a valid manifest ('utf-8' codec can't decode byte 0xff in position 0: invalid start byte)"
    manifest = tmp_path / "manifest.json"
    manifest.write_bytes('{"format": "clirkit-collection"}\n'.encode("utf-16"))
    with pytest.raises(ClirkitError) as err:
        Collection(tmp_path)
    assert str(err.value) == (
        f"{manifest}:1: not a valid manifest: the file is UTF-16, not UTF-8 (a byte-order mark "
        f"or NUL bytes between the letters); convert it to UTF-8: `iconv -f utf-16 -t utf-8 FILE "
        f"> NEW`; or restore the folder's manifest.json, or make the folder again with `clirkit "
        f"collection`"
    )


def test_a_file_the_manifest_names_missing_says_the_folder_is_incomplete(tmp_path):
    # was "X: no such file" (from the reader, no fix), and for a books subset "X: no such file (needed by ...)"
    import shutil

    folder = tmp_path / "c"
    shutil.copytree(datasets.load().folder, folder)
    (folder / "qrels.dev.txt.gz").unlink()
    collection = Collection(folder)
    assert len(collection.queries("dev")) == collection.counts["dev"]["queries"]  # the other files are read
    with pytest.raises(ClirkitError) as err:
        collection.qrels("dev")
    assert str(err.value) == (
        f"{folder / 'qrels.dev.txt.gz'}: no such file, named by {folder / 'manifest.json'}: "
        f"the collection folder is incomplete; put the file back, or make the folder again "
        f"with `clirkit collection`"
    )
    (folder / "documents.tsv.gz").unlink()
    (folder / "documents.tsv.gz").mkdir()
    with pytest.raises(
        ClirkitError,
        match=r"documents\.tsv\.gz: a folder, named by .*manifest\.json: the collection "
        r"folder is incomplete; put the file back",
    ):
        Collection(folder).documents()


def test_load_refuses_unknown_collection_split_and_variant():
    assert datasets.names()[:3] == ["nave-en-es", "bible-verse-es-en", "multi30k-de-en"]
    assert {"debian-desc-es-en", "gettext-zh-en", "manpages-ru-en"} <= set(datasets.names())
    assert {"debian-desc-ja-en", "debian-desc-ko-en", "gettext-ja-en", "gettext-ko-en", "gettext-th-en"} <= set(
        datasets.names()
    )
    assert datasets.variants("gettext-zh-en") == ["standard", "traditional"]
    with pytest.raises(ClirkitError, match="unknown collection 'nave'"):
        datasets.load("nave")
    with pytest.raises(ClirkitError, match="no variant 'topical'"):
        datasets.load("nave-en-es", variant="topical")
    with pytest.raises(ClirkitError, match="unknown split 'validation'"):
        datasets.load().queries("validation")


def test_load_irds_without_ir_datasets_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import ir_datasets raises ImportError
    with pytest.raises(ClirkitError) as err:
        datasets.load("irds:hc4/fa")
    assert str(err.value) == (
        "irds:hc4/fa: reading ir_datasets collections needs the ir_datasets package: pip install 'clirkit[irds]'"
    )


def test_load_irds_names_are_checked_before_ir_datasets_is_needed(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(ClirkitError, match=r"irds:hc4/fa\?lang=en: unknown option 'lang' \(choose source_lang, "):
        datasets.load("irds:hc4/fa?lang=en")
    with pytest.raises(ClirkitError, match="'irds:' names no ir_datasets dataset"):
        datasets.load("irds:")
    with pytest.raises(ClirkitError, match="has one variant, 'standard', not 'strict'"):
        datasets.load("irds:hc4/fa", variant="strict")


@pytest.mark.parametrize("name", ["bible-verse-es-en", "multi30k-de-en"])
def test_collections_from_shared_say_what_is_missing(tmp_path, name):
    with pytest.raises(ClirkitError, match=f"collection {name} .* {re.escape(str(tmp_path))}/data/.* is missing"):
        datasets.load(name, shared=tmp_path)


# --------------------------------------------------------------------------- the bundled nave-en-es

NAVE_EXPECTED = {
    "standard": {
        "documents": 31084,
        "parallel_pairs": 31077,
        "train": {"queries": 10615, "qrels": {"1": 254451, "2": 164407}},
        "dev": {"queries": 1611, "qrels": {"1": 39015, "2": 28551}},
        "test": {"queries": 1280, "qrels": {"1": 32089, "2": 16024}},
    },
    "strict": {
        "documents": 7955,
        "parallel_pairs": 23129,
        "train": {"queries": 5187, "qrels": {"1": 62789, "2": 48703}},
        "dev": {"queries": 737, "qrels": {"1": 7301, "2": 6464}},
        "test": {"queries": 596, "qrels": {"1": 8084, "2": 3869}},
    },
}


@pytest.fixture(scope="module")
def nave():
    return {v: datasets.load("nave-en-es", variant=v) for v in ("standard", "strict")}


def test_bundled_counts_are_the_documented_ones(nave):
    manifests = {}
    for variant, c in nave.items():
        assert (c.name, c.variant, c.source_lang, c.target_lang) == ("nave-en-es", variant, "en", "es")
        assert _counts_from_files(c) == NAVE_EXPECTED[variant]
        manifests[variant] = json.loads((c.folder / "manifest.json").read_text())
        assert {k: manifests[variant]["counts"][k] for k in NAVE_EXPECTED[variant]} == NAVE_EXPECTED[variant]
    block = _flat(build_nave.describe(manifests))
    assert block in _flat(build_nave.__doc__)
    assert block in _flat(README.read_text(encoding="utf-8"))
    assert manifests["standard"]["counts"]["references_dropped"] == 55


def _judgments(c: Collection, qid: str) -> dict[str, int]:
    for split in c.splits:
        if qid in c.queries(split):
            return c.qrels(split).to_dict()[qid]
    raise AssertionError(f"{qid} in no split")


def test_subtopic_query_text_and_cited_verses_are_grade_2(nave):
    c = nave["standard"]
    assert c.queries("dev")["AARON.5"] == "Aaron: meets Moses in the wilderness and is made spokesman for Moses"
    expected = {f"Exod.4.{v}" for v in (14, 15, 16, 27, 28, 29, 30, 31)} | {"Exod.7.1", "Exod.7.2"}
    # Aaron cites more than 200 verses: a broad topic, so grade 2 only
    assert _judgments(c, "AARON.5") == {d: 2 for d in expected}


def test_other_subtopics_of_the_topic_are_grade_1_with_chapters_expanded(nave):
    c = nave["standard"]
    assert c.queries("test")["ELIPHAZ.2"] == "Eliphaz: friend of Job"
    # <ref osisRef="Job.2.11">, "Job.4", "Job.5", "Job.22" (whole chapters of 21, 27, 30 verses), "Job.42.7-Job.42.9"
    grade2 = {"Job.2.11"} | {f"Job.4.{v}" for v in range(1, 22)} | {f"Job.5.{v}" for v in range(1, 28)}
    grade2 |= {f"Job.22.{v}" for v in range(1, 31)} | {"Job.42.7", "Job.42.8", "Job.42.9"}
    # ELIPHAZ.1 (son of Esau): "Gen.36.4", "Gen.36.10-Gen.36.16", "1Chr.1.35"
    grade1 = {"Gen.36.4", "1Chr.1.35"} | {f"Gen.36.{v}" for v in range(10, 17)}
    assert _judgments(c, "ELIPHAZ.2") == {d: 2 for d in grade2} | {d: 1 for d in grade1}


def test_splits_keep_each_topic_in_one_split(nave):
    c = nave["standard"]
    topics = {s: {q.rsplit(".", 1)[0] for q in c.queries(s)} for s in c.splits}
    assert not topics["train"] & topics["dev"] and not topics["train"] & topics["test"]
    assert not topics["dev"] & topics["test"]
    total = sum(len(t) for t in topics.values())
    assert 0.75 < len(topics["train"]) / total < 0.85
    assert 0.07 < len(topics["test"]) / total < 0.13


def test_every_query_has_a_cited_verse_among_the_documents(nave):
    for c in nave.values():
        docids = set(c.documents()[0])
        for s in ("dev", "test"):
            qrels = c.qrels(s)
            assert set(qrels.docids.tolist()) <= docids
            assert set(qrels.query_ids) == set(c.queries(s))
    standard = nave["standard"]
    assert all(2 in grades.values() for grades in standard.qrels("test").to_dict().values())


def test_strict_searches_new_testament_with_old_testament_pairs(nave):
    standard, strict = nave["standard"], nave["strict"]
    docids, _ = strict.documents()
    assert {book_of(d) for d in docids} <= NT_BOOKS
    assert not {book_of(i) for i in strict.parallel_ids()} & NT_BOOKS
    assert str(strict.paths["documents"]).startswith(os.environ["CLIRKIT_CACHE"])
    for s in ("dev", "test"):
        st, std = strict.qrels(s).to_dict(), standard.qrels(s).to_dict()
        for qid, grades in st.items():
            assert strict.queries(s)[qid] == standard.queries(s)[qid]
            assert grades == {d: g for d, g in std[qid].items() if book_of(d) in NT_BOOKS}
        dropped = set(standard.queries(s)) - set(strict.queries(s))
        assert all(not any(book_of(d) in NT_BOOKS for d in std[q]) for q in dropped)


def test_parallel_pairs_are_english_web_and_spanish_rv1909(nave):
    en, es = nave["standard"].parallel()
    ids = nave["standard"].parallel_ids()
    assert ids[0] == "Gen.1.1"
    assert en[0] == "In the beginning, God created the heavens and the earth."
    assert es[0] == "EN el principio crió Dios los cielos y la tierra."


@pytest.mark.slow
@needs_shared
def test_rebuild_from_shared_gives_the_committed_bytes(tmp_path):
    assert build_nave.main(["--shared", str(SHARED), "-o", str(tmp_path), "--quiet"]) == 0
    committed = Path(datasets.__file__).parent / "data" / "nave-en-es"
    names = sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    for name in names:
        assert (tmp_path / name).read_bytes() == (committed / name).read_bytes(), name


# --------------------------------------------------------------------------- C2 and C3 from ../shared


@needs_shared
def test_bible_verse_counts_are_the_documented_ones():
    from clirkit.datasets import bible_verse

    for variant in ("standard", "topical"):
        c = datasets.load("bible-verse-es-en", variant=variant)
        assert (c.source_lang, c.target_lang) == ("es", "en")
        block = _flat(describe_counts(variant, _counts_from_files(c)))
        assert block in _flat(bible_verse.__doc__)
        assert block in _flat(README.read_text(encoding="utf-8"))
    assert c.counts["queries_with_crossrefs"] == 7758 and c.counts["queries_in_no_split"] == 855


@needs_shared
def test_bible_verse_grades_follow_votes_and_translation_mate():
    c = datasets.load("bible-verse-es-en")
    grade2 = {"John.14.22", "1Pet.1.5", "1Thess.5.23", "1Pet.2.9", "Rom.1.1"}  # 5+ votes
    grade1 = {
        "John.17.19",
        "John.17.11",
        "John.17.12",
        "Eph.5.26",
        "2Tim.4.18",
        "John.17.17",
        "1Pet.1.2",
        "1Cor.6.11",
        "John.6.39",
        "Acts.1.13",
        "John.12.26",
        "John.10.28",
        "John.10.29",
        "John.10.30",
        "Rom.6.22",
        "Acts.27.23",
        "Rom.9.24",
        "2Thess.2.13",
        "2Thess.2.14",
        "1Cor.1.2",
        "Rom.8.30",
        "2Tim.1.9",
        "2Pet.1.1",
        "1Pet.5.10",
        "1Thess.2.12",
        "Luke.6.16",
        "Jas.1.1",
        "Heb.3.1",
        "John.15.16",
        "Rom.16.18",
        "John.17.15",
        "Mark.3.18",
        "Acts.20.32",
        "Matt.10.3",
    }
    expected = {"Jude.1.1": 3} | {d: 2 for d in grade2} | {d: 1 for d in grade1}
    assert c.qrels("test").to_dict()["Jude.1.1"] == expected
    assert c.queries("test")["Jude.1.1"].startswith("JUDAS, siervo de Jesucristo")
    assert not any(q.startswith("John.") for s in c.splits for q in c.queries(s))
    topical = datasets.load("bible-verse-es-en", variant="topical")
    assert topical.qrels("test").to_dict()["Jude.1.1"] == {d: g for d, g in expected.items() if g < 3}
    assert topical.excluded("test")["Jude.1.1"] == {"Jude.1.1"}
    assert not {book_of(i) for i in topical.parallel_ids()} & NT_BOOKS


@needs_shared
def test_multi30k_query_finds_its_own_image_described_in_english():
    from clirkit.datasets import multi30k

    c = datasets.load("multi30k-de-en")
    assert (c.source_lang, c.target_lang) == ("de", "en")
    block = _flat(describe_counts("standard", _counts_from_files(c)))
    assert block in _flat(multi30k.__doc__) and block in _flat(README.read_text(encoding="utf-8"))
    docids, texts = c.documents()
    first = texts[docids.index("1018148011")]
    assert first.startswith(
        "A group of people stand in the back of a truck filled with cotton. "
        "Men are standing on and about a truck carrying a white substance."
    )
    split = multi30k.val_split("1018148011")
    assert c.queries(split)["1018148011"] == "Baumwolllager mit LKW"
    for s in c.splits:
        assert c.qrels(s).to_dict() == {q: {q: 1} for q in c.queries(s)}
    assert not set(c.parallel_ids()) & set(docids)
