"""The committed ``gettext-XX-en`` collections and their builder (clirkit.datasets.gettext_catalogs).

Tests of the committed folders (the four first collections and the later languages' NEW) need nothing else;
those that read the Debian packages skip unless the ``.deb`` files are in ``$CLIRKIT_GETTEXT_DEBS`` (default
``gettext-debs`` in the system's temporary folder).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import pytest

from clirkit import datasets
from clirkit.datasets import _gettext_cleaning as cleaning
from clirkit.datasets import _gettext_mo as gettext_mo
from clirkit.datasets import gettext_catalogs as g
from clirkit.errors import ClirkitError

DATA = Path(g.__file__).parent / "data"
NAMES = [f"gettext-{lang}-en" for lang in g.LANGUAGES]
# the later languages: (name, variant), their documents in gettext-ja-en
NEW = [(name, variant) for name, variant, _ in g.NEW_LANGUAGES.values()]
FOLDERS = [(name, "standard") for name in NAMES] + NEW
DEBS = Path(os.environ.get("CLIRKIT_GETTEXT_DEBS", Path(tempfile.gettempdir()) / "gettext-debs"))


def _have_debs() -> bool:
    try:
        g.find_debs(DEBS)
    except ClirkitError:
        return False
    return True


needs_debs = pytest.mark.skipif(
    not _have_debs(),
    reason=f"the Debian packages are not in {DEBS} (set CLIRKIT_GETTEXT_DEBS; see data/gettext-de-en/SOURCE.md)",
)


@pytest.fixture(scope="module")
def collections():
    return {name: datasets.load(str(DATA / name / "standard")) for name in NAMES}


@pytest.fixture(scope="module")
def documents(collections):
    docids, texts = collections["gettext-de-en"].documents()
    return dict(zip(docids, texts))


@pytest.fixture(scope="module")
def new_collections():
    return {key: datasets.load(key[0], variant=key[1]) for key in NEW}


@pytest.fixture(scope="module")
def new_documents(new_collections):
    docids, texts = new_collections["gettext-ja-en", "standard"].documents()
    return dict(zip(docids, texts))


@pytest.fixture(scope="module")
def every(collections, documents, new_collections, new_documents):
    """``[(collection, its documents)]`` for all the committed folders."""
    return [(c, documents) for c in collections.values()] + [(c, new_documents) for c in new_collections.values()]


# ------------------------------------------------------------------------------------------ cleaning


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("Cannot open '%s': %m\n", "Cannot open"),
        ("%s: binary file matches", "binary file matches"),
        ("%1$s copied to %2$s (%3$lu bytes)", "copied to ( bytes)"),
        ("read %<PRIu64> blocks of %-10.3ld, %.*s and %hhd", "read blocks of , and"),
        ("%d%% done", "% done"),
        ("%(name)s is {0} or {count:>5}", "is or"),
        ("%B: error: cannot create veneer for %pA", "error: cannot create veneer for"),
        ("Ungültiges Argument »%s« für „%s“", "Ungültiges Argument für"),
        ("路径“%s”不在“%s”中", "路径 不在 中"),
        ("%s：包含无效的卷编号", "包含无效的卷编号"),
        ("_Open File", "Open File"),
        ("Ö_ffnen", "Öffnen"),
        ("file_name and _Save", "file_name and Save"),
        ("打开文件(_O)", "打开文件"),
        ("&Quit now", "Quit now"),
        ("AT&&T phones", "AT&T phones"),
        ('<b>Bold</b> &amp; <span weight="bold">more</span>', "Bold & more"),
        ("  -B, --before-context=NUM  print NUM lines of leading context\n", "print NUM lines of leading context"),
        ("Try '%s --help' for more information.\n", "Try for more information."),
        ("a well-known x-ray, then:\t\n", "a well-known x-ray, then"),
        ("passphrase not changed%0Asince %s", "passphrase not changed since"),
    ],
)
def test_clean_message(raw, clean):
    assert cleaning.clean_message(raw) == clean


def test_usable_filters():
    assert cleaning.usable("cannot create directory", "das Verzeichnis kann nicht angelegt werden")
    assert not cleaning.usable("cannot remove", "das Entfernen ist nicht möglich")  # 2 words
    assert not cleaning.usable(" ".join(["word"] * 61), "x" * 10)  # > 60 words
    assert not cleaning.usable("Open the file", "open the file")  # untranslated
    assert not cleaning.usable("Open the file", "")  # empty
    assert not cleaning.usable("a b c 0x1234 0x5678 0x9abc ++ -- ||", "a b c")  # mostly not letters
    assert not cleaning.usable("is an FIFO. @i is bad", "ist ein FIFO")  # e2fsck abbreviation code
    assert cleaning.word_count("dir_name: 3 files, a-b") == 5


def test_singular_and_context():
    assert gettext_mo.singular("menu\x04Open file\x00Open files", "Datei öffnen\x00Dateien öffnen") == (
        "Open file",
        "Datei öffnen",
    )


def test_thai_marks_count_as_letters_and_stay():
    # U+0E48 MAI EK and U+0E49 MAI THO are category Mn: no \\w, no isalpha, yet they tell words apart
    assert not "\u0e48".isalpha() and cleaning.text_key("ก่า") != cleaning.text_key("ก้า") == "ก้า"
    assert cleaning.word_count("ไม่มี ใหญ่") == 2
    assert cleaning.usable("Add a new empty item", "เพิ่มรายการเปล่ารายการใหม่")
    # a hyphen after a tone mark is not an option (evolution th: "ตัวพิมพ์ใหญ่-เล็ก", upper and lower case)
    assert cleaning.clean_message("ตัวพิมพ์ใหญ่-เล็ก") == "ตัวพิมพ์ใหญ่-เล็ก"
    assert cleaning.clean_message("--admindir=<ไดเรกทอรี> ใช้") == "ใช้"  # dpkg th: the option with its Thai argument
    assert cleaning.clean_message("เพิ่มความยาวโดย_อัตโนมัติ") == "เพิ่มความยาวโดยอัตโนมัติ"  # xfce4-panel th accelerator


def test_text_key_and_splits():
    assert cleaning.text_key("Open File.") == cleaning.text_key("open file") == "open file"
    assert g.domain_split("coreutils") == "test" and g.domain_split("grep") == "train"
    assert g.domain_split("gnupg2") == "dev"


def _mo(entries: list[tuple[str, str]]) -> bytes:
    """A little-endian .mo file holding ``entries`` (sorted as msgfmt does), header first."""
    entries = sorted([("", "Content-Type: text/plain; charset=UTF-8\n")] + entries)
    ids = [k.encode() for k, _ in entries]
    strs = [v.encode() for _, v in entries]
    n = len(entries)
    start = 28 + 16 * n
    blob, id_tab, str_tab = b"", [], []
    for s in ids:
        id_tab.append((len(s), start + len(blob)))
        blob += s + b"\0"
    for s in strs:
        str_tab.append((len(s), start + len(blob)))
        blob += s + b"\0"
    head = struct.pack("<7I", 0x950412DE, 0, n, 28, 28 + 8 * n, 0, 0)
    return head + b"".join(struct.pack("<2I", *t) for t in id_tab + str_tab) + blob


def test_read_mo_and_deb(tmp_path):
    mo = _mo(
        [
            ("cannot create directory %s", "Verzeichnis %s kann nicht angelegt werden"),
            ("%d file\x00%d files", "%d Datei\x00%d Dateien"),
        ]
    )
    assert gettext_mo.read_mo(mo) == [
        ("%d file\x00%d files", "%d Datei\x00%d Dateien"),
        ("cannot create directory %s", "Verzeichnis %s kann nicht angelegt werden"),
    ]
    with pytest.raises(ClirkitError, match="bad magic"):
        gettext_mo.read_mo(b"\0" * 40)
    # a .deb is an ar archive whose data.tar.xz holds the catalogs
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w:xz") as tar:
        info = tarfile.TarInfo("./usr/share/locale/de/LC_MESSAGES/demo.mo")
        info.size = len(mo)
        tar.addfile(info, io.BytesIO(mo))
    members = [(b"debian-binary", b"2.0\n"), (b"data.tar.xz", tar_bytes.getvalue())]
    ar = b"!<arch>\n" + b"".join(
        name.ljust(16)
        + b"0".ljust(12)
        + b"0".ljust(6)
        + b"0".ljust(6)
        + b"100644".ljust(8)
        + str(len(data)).encode().ljust(10)
        + b"`\n"
        + data
        + (b"\n" if len(data) % 2 else b"")
        for name, data in members
    )
    deb = tmp_path / "demo_1.0_all.deb"
    deb.write_bytes(ar)
    assert gettext_mo.deb_catalogs(deb, {"de", "es"}) == {("de", "demo"): mo}
    (tmp_path / "bad.deb").write_bytes(b"not an archive")
    with pytest.raises(ClirkitError, match="not a Debian package"):
        gettext_mo.deb_catalogs(tmp_path / "bad.deb", {"de"})


def test_missing_debs_named(tmp_path):
    with pytest.raises(ClirkitError, match="apt-get download"):
        g.find_debs(tmp_path)
    with pytest.raises(ClirkitError, match="no such folder"):
        g.find_debs(tmp_path / "absent")


# ------------------------------------------------------------------------------------------ committed folders


def test_counts_match_manifest(every):
    for c, documents in every:
        assert (c.name, c.variant) in FOLDERS and c.target_lang == "en"
        assert c.splits == ["train", "dev", "test"]
        assert c.counts["documents"] == len(documents)
        sources, targets = c.parallel()
        assert c.counts["parallel_pairs"] == len(sources) == len(targets)
        for s in c.splits:
            qrels = c.qrels(s)
            assert c.counts[s]["queries"] == len(c.queries(s)) >= 500
            grades, n = np.unique(qrels.rels, return_counts=True)
            assert c.counts[s]["qrels"] == {str(a): int(b) for a, b in zip(grades.tolist(), n.tolist())}


def test_docstring_counts(collections):
    manifests = {name: json.loads((DATA / name / "standard" / "manifest.json").read_text()) for name in NAMES}
    block = g.describe(manifests)
    assert "".join("    " + line + "\n" for line in block.splitlines()) in g.__doc__
    assert block in (DATA / "gettext-de-en" / "SOURCE.md").read_text(encoding="utf-8").replace("\n    ", "\n")
    new = {f"{n}/{v}": json.loads((DATA / n / v / "manifest.json").read_text()) for n, v in NEW}
    block = g.describe(new)
    assert block.startswith("gettext-ja-en: ") and "\ntraditional: documents " in block
    assert "".join("    " + line + "\n" for line in block.splitlines()) in g.__doc__
    assert block in (DATA / "gettext-ja-en" / "SOURCE.md").read_text(encoding="utf-8").replace("\n    ", "\n")


def test_new_documents_are_the_shared_ones_then_more(collections, new_collections):
    shared = collections["gettext-de-en"].documents()
    docids, texts = new_collections["gettext-ja-en", "standard"].documents()
    assert (docids[: len(shared[0])], texts[: len(shared[1])]) == (list(shared[0]), list(shared[1]))
    assert len(set(docids)) == len(docids) > len(shared[0])
    for c in new_collections.values():
        assert c.counts["documents_shared_with_gettext-de-en"] == len(shared[0])
        assert Path(c.paths["documents"]).resolve() == DATA / "gettext-ja-en" / "standard" / "documents.tsv.gz"
    assert new_collections["gettext-zh-en", "traditional"].source_lang == "zh"


def test_splits_disjoint_and_judged(every):
    for c, documents in every:
        seen: dict[str, str] = {}
        domain_splits: dict[str, set[str]] = {}
        for s in c.splits:
            queries = c.queries(s)
            qrels = c.qrels(s)
            assert set(qrels.qids.tolist()) == set(queries)
            assert set(qrels.docids.tolist()) <= set(documents)
            for qid in queries:
                assert seen.setdefault(qid, s) == s, f"{qid} in {seen[qid]} and {s}"
                domain = qid.rsplit(".", 1)[0]
                domain_splits.setdefault(domain, set()).add(s)
                assert g.domain_split(domain) == s
        assert all(len(v) == 1 for v in domain_splits.values())


def test_dev_test_documents_not_in_parallel(every):
    for c, documents in every:
        _, english = c.parallel()
        train_english = {cleaning.text_key(e) for e in english}
        for s in ("dev", "test"):
            for d in set(c.qrels(s).docids.tolist()):
                assert cleaning.text_key(documents[d]) not in train_english


def test_query_texts_distinct(every):
    for c, _ in every:
        keys = [cleaning.text_key(t) for s in c.splits for t in c.queries(s).values()]
        assert len(keys) == len(set(keys))


def _rels(c, split: str, qid: str) -> list[str]:
    qrels = c.qrels(split)
    return [d for q, d in zip(qrels.qids.tolist(), qrels.docids.tolist()) if q == qid]


@pytest.mark.parametrize(
    "name, split, msgid, query, document",
    [
        # grep 3.8 de.po, as msgunfmt prints it: msgid "%s: binary file matches"
        ("gettext-de-en", "train", "%s: binary file matches", "Übereinstimmungen in Binärdatei", "binary file matches"),
        # coreutils 9.1 de.po: msgid "      --tag             create a BSD-style checksum\n"
        (
            "gettext-de-en",
            "test",
            "      --tag             create a BSD-style checksum\n",
            "Prüfsummen im BSD-Stil erzeugen",
            "create a BSD-style checksum",
        ),
        # coreutils 9.1 de.po: msgid "      --skip-chdir           do not change working directory to %s\n"
        (
            "gettext-de-en",
            "test",
            "      --skip-chdir           do not change working directory to %s\n",
            "das Arbeitsverzeichnis nicht in ändern",
            "do not change working directory to",
        ),
        # coreutils 9.1 de.po: msgid "failed to change group of %s to %s\n"
        (
            "gettext-de-en",
            "test",
            "failed to change group of %s to %s\n",
            "der Wechsel der Gruppe von in fehlgeschlagen",
            "failed to change group of to",
        ),
    ],
)
def test_hand_checked_entries(collections, documents, name, split, msgid, query, document):
    domain = "grep" if split == "train" else "coreutils"
    qid = f"{domain}.{hashlib.sha256(msgid.encode()).hexdigest()[:10]}"
    c = collections[name]
    assert c.queries(split)[qid] == query
    docid = "en." + hashlib.sha256(cleaning.text_key(document).encode()).hexdigest()[:12]
    assert documents[docid] == document
    assert docid in _rels(c, split, qid)


@pytest.mark.parametrize(
    "key, split, domain, msgid, query, document",
    [
        # gedit 44.2 th.po
        (
            ("gettext-th-en", "standard"),
            "test",
            "gedit",
            "A file with the same name already exists. Please use a different name.",
            "มีแฟ้มชื่อเดียวกันอยู่ก่อนแล้ว กรุณาใช้ชื่ออื่น",
            "A file with the same name already exists. Please use a different name.",
        ),
        # xfce4-panel 4.18.2 th.po: msgid "A_utomatically increase the length"
        (
            ("gettext-th-en", "standard"),
            "test",
            "xfce4-panel",
            "A_utomatically increase the length",
            "เพิ่มความยาวโดยอัตโนมัติ",
            "Automatically increase the length",
        ),
        # grep 3.8 ko.po and zh_TW.po: msgid "%s: binary file matches"
        (
            ("gettext-ko-en", "standard"),
            "train",
            "grep",
            "%s: binary file matches",
            "바이너리 파일 일치함",
            "binary file matches",
        ),
        (
            ("gettext-zh-en", "traditional"),
            "train",
            "grep",
            "%s: binary file matches",
            "二進位檔案符合",
            "binary file matches",
        ),
        # grep 3.8 ja.po: msgid "\nMiscellaneous:\n  -s, --no-messages         suppress error messages\n..."
        (
            ("gettext-ja-en", "standard"),
            "train",
            "grep",
            "\nMiscellaneous:\n  -s, --no-messages         suppress error messages\n  -v, --invert-match        select "
            "non-matching lines\n  -V, --version             display version information and exit\n      --help      "
            "          display this help text and exit\n",
            "その他: エラーメッセージを抑止する 一致しない行を選択する バージョン情報を表示して終了する このヘルプを表示して終了する",
            "Miscellaneous: suppress error messages select non-matching lines display version information and exit "
            "display this help text and exit",
        ),
    ],
)
def test_hand_checked_new_entries(new_collections, new_documents, key, split, domain, msgid, query, document):
    qid = f"{domain}.{hashlib.sha256(msgid.encode()).hexdigest()[:10]}"
    c = new_collections[key]
    assert c.queries(split)[qid] == query
    docid = "en." + hashlib.sha256(cleaning.text_key(document).encode()).hexdigest()[:12]
    assert new_documents[docid] == document
    assert docid in _rels(c, split, qid)


def test_english_in_train_dropped(collections):
    # coreutils (test) "cannot create directory %s" -> "das Verzeichnis %s kann nicht angelegt werden" is
    # not a test query: util-linux (train) has the same English, so it is in the parallel corpus
    qid = "coreutils." + hashlib.sha256(b"cannot create directory %s").hexdigest()[:10]
    assert qid not in collections["gettext-de-en"].queries("test")
    _, english = collections["gettext-de-en"].parallel()
    assert "cannot create directory" in english


# ------------------------------------------------------------------------------------------ from the packages


@needs_debs
def test_catalog_read_matches_stdlib_gettext():
    import gettext

    data = gettext_mo.deb_catalogs(g.find_debs(DEBS)["grep"], {"de"})[("de", "grep")]
    ours = dict(gettext_mo.read_mo(data))
    theirs = gettext.GNUTranslations(io.BytesIO(data))
    assert ours["%s: binary file matches"] == "%s: Übereinstimmungen in Binärdatei"
    for msgid, msgstr in ours.items():
        if "\x00" not in msgid and "\x04" not in msgid:
            assert theirs.gettext(msgid) == msgstr


@needs_debs
def test_rebuild_is_byte_identical(tmp_path):
    assert g.main(["--debs", str(DEBS), "-o", str(tmp_path), "--quiet"]) == 0
    for name, variant in FOLDERS:
        committed = DATA / name / variant
        built = tmp_path / name / variant
        names = sorted(p.name for p in committed.iterdir())
        assert names == sorted(p.name for p in built.iterdir())
        for f in names:
            assert (committed / f).read_bytes() == (built / f).read_bytes(), f"{name}/{f} differs"
