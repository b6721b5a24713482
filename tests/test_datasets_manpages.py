"""The committed ``manpages-XX-en`` collections and the helpers of their builder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

import clirkit.datasets
from clirkit import datasets
from clirkit.datasets import _manpage_text as manpage_text
from clirkit.datasets import manpages
from clirkit.errors import ClirkitError

DATA = Path(clirkit.datasets.__file__).parent / "data"
LANGS = ("de", "es", "ru")
VARIANTS = ("standard", "english-queries")
DEBS = Path(os.environ.get("CLIRKIT_MANPAGES_DEBS", Path(tempfile.gettempdir()) / "manpages-debs"))


def _load(lang: str, variant: str):
    return datasets.load(str(DATA / f"manpages-{lang}-en" / variant))


@pytest.fixture(scope="module")
def docids() -> set[str]:
    return set(_load("de", "standard").documents()[0])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_counts_match_manifest(lang, variant):
    c = _load(lang, variant)
    assert (c.name, c.variant, c.target_lang) == (f"manpages-{lang}-en", variant, "en")
    assert c.source_lang == (lang if variant == "standard" else "en")
    assert c.splits == ["train", "dev", "test"]
    assert len(c.documents()[0]) == c.counts["documents"]
    assert len(c.parallel()[0]) == c.counts["parallel_pairs"]
    for split in c.splits:
        assert len(c.queries(split)) == c.counts[split]["queries"]
        grades, n = np.unique(c.qrels(split).rels, return_counts=True)
        assert {str(g): int(k) for g, k in zip(grades, n)} == c.counts[split]["qrels"]


@pytest.mark.parametrize("lang", LANGS)
def test_splits_disjoint_and_judgments_valid(lang, docids):
    c = _load(lang, "standard")
    seen: dict[str, str] = {}
    for split in c.splits:
        queries = c.queries(split)
        qrels = c.qrels(split)
        assert all(text.strip() and "\t" not in text for text in queries.values())
        assert set(qrels.qids.tolist()) == set(queries)
        assert set(qrels.docids.tolist()) <= docids
        assert (qrels.rels == 1).all() and len(qrels) == len(queries)  # one relevant page per query
        for qid in queries:
            assert qid not in seen, f"{qid} in {seen.get(qid)} and {split}"
            seen[qid] = split
            assert manpages.page_split(qid) == split
    # a page name is in one split whatever its section (printf.1 and printf.3 together)
    by_name: dict[str, set[str]] = {}
    for qid, split in seen.items():
        by_name.setdefault(qid.rsplit(".", 1)[0], set()).add(split)
    assert all(len(s) == 1 for s in by_name.values())
    # parallel pairs come from train pages only
    train_names = {q.rsplit(".", 1)[0] for q, s in seen.items() if s == "train"}
    pair_pages = {pid.split("#", 1)[0].rsplit(".", 1)[0] for pid in c.parallel_ids()}
    assert pair_pages <= train_names


@pytest.mark.parametrize("lang", LANGS)
def test_english_queries_share_qids_qrels_and_files(lang):
    std, eng = _load(lang, "standard"), _load(lang, "english-queries")
    assert std.paths["documents"].resolve() == eng.paths["documents"].resolve()
    assert std.paths["parallel"].resolve() == eng.paths["parallel"].resolve()
    assert std.paths["documents"].resolve() == (DATA / "manpages-de-en/standard/documents.tsv.gz").resolve()
    for split in std.splits:
        assert list(std.queries(split)) == list(eng.queries(split))
        assert std.qrels(split).to_dict() == eng.qrels(split).to_dict()
        for qid, text in std.queries(split).items():
            assert not manpage_text.same_text(text, eng.queries(split)[qid])  # untranslated ones dropped


def _query(c, qid: str) -> tuple[str, str, dict]:
    for split in c.splits:
        if qid in c.queries(split):
            return split, c.queries(split)[qid], c.qrels(split).to_dict()[qid]
    raise KeyError(qid)


def test_hand_checked_entries():
    de, es, ru = (_load(lang, "standard") for lang in LANGS)
    assert _query(de, "ls.1") == ("dev", "Verzeichnisinhalte auflisten", {"ls.1": 1})
    assert _query(es, "ls.1") == ("dev", "lista el contenido de un directorio", {"ls.1": 1})
    assert _query(ru, "ls.1") == ("dev", "выводит список содержимого каталога", {"ls.1": 1})
    assert _query(de, "open.2") == ("train", "eine Datei öffnen und möglicherweise erzeugen", {"open.2": 1})
    assert _query(es, "grep.1")[1] == "muestran líneas que concuerdan con un patrón"
    assert _query(_load("de", "english-queries"), "ls.1")[1] == "list directory contents"
    # bzip2.1's NAME has three entries; the German one keeps all three descriptions
    assert _query(de, "bzip2.1")[1].count("; ") == 2
    docs = dict(zip(*de.documents()))
    assert docs["ls.1"].startswith("ls [OPTION]... [FILE]... List information about the FILEs")
    assert "list directory contents" not in docs["ls.1"]  # NAME dropped
    assert "Written by" not in docs["ls.1"] and "GNU coreutils online help" not in docs["ls.1"]  # boilerplate
    assert max(len(t.split()) for t in docs.values()) == manpage_text.MAX_WORDS
    pairs = dict(zip(de.parallel_ids(), zip(*de.parallel())))
    assert pairs["open.2#name"] == ("eine Datei öffnen und möglicherweise erzeugen", "open and possibly create a file")


def test_strip_names():
    assert manpage_text.strip_names("ls, dir, vdir - list directory contents") == "list directory contents"
    assert (
        manpage_text.strip_names("printf, fprintf, dprintf, sprintf - formatted output conversion")
        == "formatted output conversion"
    )
    assert (
        manpage_text.strip_names("open, openat, creat — открывает и, возможно, создаёт файл")
        == "открывает и, возможно, создаёт файл"
    )
    assert manpage_text.strip_names("file \u2212 determine file type") == "determine file type"
    assert (
        manpage_text.strip_names(
            "bzip2, bunzip2 - a block-sorting file compressor, v1.0.8\nbzcat - decompresses files to stdout"
        )
        == "a block-sorting file compressor, v1.0.8; decompresses files to stdout"
    )
    assert (
        manpage_text.strip_names("test - check file types\n  and compare values")
        == "check file types and compare values"
    )
    assert manpage_text.strip_names("grep, egrep, fgrep - rgrep - muestran líneas") == "muestran líneas"
    assert (
        manpage_text.strip_names("systemd-journald.service, systemd-journald@.socket - Journal service")
        == "Journal service"
    )
    assert manpage_text.strip_names("x-y") == ""
    assert manpage_text.strip_names("") == ""


def test_parse_sections_and_document_text():
    text = (
        "LS(1)          User Commands          LS(1)\n\n\n\nNAME\n       ls - list directory contents\n\n"
        "DESCRIPTION\n       List information\n       about the FILEs.\n\n       -a, --all\n"
        "              do not ignore\n\nSEE ALSO\n       dir(1)\n\nGNU coreutils 9.1    September 2022    LS(1)\n"
    )
    page = manpage_text.parse_sections(text)
    assert page.sections == [
        ("NAME", [["ls - list directory contents"]]),
        ("DESCRIPTION", [["List information", "about the FILEs."], ["-a, --all", "do not ignore"]]),
        ("SEE ALSO", [["dir(1)"]]),
    ]
    assert manpage_text.name_description(page) == "list directory contents"
    assert manpage_text.document_text(page) == "List information about the FILEs. -a, --all do not ignore"
    # a translated mdoc page has no header nor footer: nothing is lost
    tr = manpage_text.parse_sections(
        "\nBEZEICHNUNG\n     ls — auflisten\n\nBESCHREIBUNG\n     Auflistung.\n\n"
        "     -a\n     nicht ignorieren\n\nSIEHE AUCH\n     dir(1)\n\n"
        "ÜBERSETZUNG\n     Die deutsche Übersetzung\n"
    )
    assert [h for h, _ in tr.sections] == ["BEZEICHNUNG", "BESCHREIBUNG", "SIEHE AUCH", "ÜBERSETZUNG"]
    assert manpage_text.aligned_pairs(tr, page) == [
        ("s2p1", "Auflistung.", "List information about the FILEs."),
        ("s2p2", "-a nicht ignorieren", "-a, --all do not ignore"),
    ]
    assert manpage_text.aligned_pairs(manpage_text.Rendered(tr.sections[:2]), page) is None


def test_page_split_is_by_name():
    assert manpages.page_split("printf.1") == manpages.page_split("printf.3")
    splits = [manpages.page_split(f"page{i}.1") for i in range(2000)]
    share = {s: splits.count(s) / len(splits) for s in ("train", "dev", "test")}
    assert abs(share["train"] - 0.4) < 0.05 and abs(share["dev"] - 0.3) < 0.05


def test_missing_debs_folder(tmp_path):
    with pytest.raises(ClirkitError, match="no such folder"):
        manpages.find_debs(tmp_path / "absent")
    with pytest.raises(ClirkitError, match="no .deb for manpages-de=4.18.1-1"):
        manpages.find_debs(tmp_path)


def _deb(pattern: str) -> Path:
    found = sorted(DEBS.rglob(pattern)) if DEBS.is_dir() else []
    if not found:
        pytest.skip(f"no {pattern} under {DEBS} (set CLIRKIT_MANPAGES_DEBS to the folder of the .deb files)")
    return found[0]


def test_raw_pages_give_the_committed_entries():
    de = manpages.read_pages(_deb("manpages-de_4.18.1-1_all.deb"), "manpages-de")["de"]
    en = manpages.read_pages(_deb("coreutils_9.1-1_*.deb"), "coreutils")["en"]
    assert de["ls.1"].alias is None and en["vdir.1"].alias is None
    page_de, page_en = (manpage_text.parse_sections(manpage_text.render(p["ls.1"].roff)) for p in (de, en))
    assert manpage_text.name_description(page_de) == "Verzeichnisinhalte auflisten"
    docs = dict(zip(*_load("de", "standard").documents()))
    assert manpage_text.document_text(page_en) == docs["ls.1"]
    dev = manpages.read_pages(_deb("manpages-dev_6.03-2_all.deb"), "manpages-dev")["en"]
    assert manpages.resolve("creat.2", dev) == "open.2"  # a .so stub


@pytest.mark.skipif(
    "CLIRKIT_MANPAGES_DEBS" not in os.environ,
    reason="a full rebuild (about 2 minutes) runs only when CLIRKIT_MANPAGES_DEBS names the .deb folder",
)
def test_rebuild_gives_the_committed_bytes(tmp_path):
    assert manpages.main(["--debs", str(DEBS), "-o", str(tmp_path), "--quiet"]) == 0
    for lang in LANGS:
        committed = DATA / f"manpages-{lang}-en"
        names = sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file())
        built = tmp_path / f"manpages-{lang}-en"
        assert names == sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
        for name in names:
            assert (built / name).read_bytes() == (committed / name).read_bytes(), name
