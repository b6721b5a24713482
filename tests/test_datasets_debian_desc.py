"""clirkit.datasets.debian_desc: the committed debian-desc-XX-en folders and their builder.

Tests of the committed folders need nothing else; tests that rebuild from the apt list files
(``/var/lib/apt/lists``: Debian bookworm's Translation-{en,de,...} and amd64 Packages) skip when
those files are absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirkit import datasets
from clirkit.datasets import _apt_lists as apt_lists
from clirkit.datasets import debian_desc
from clirkit.datasets.parallel import read_parallel
from clirkit.errors import ClirkitError

DATA = Path(datasets.__file__).parent / "data"
LANGS = ("de", "es", "ru", "fr", "ja", "ko")
SPLITS = ("train", "dev", "test")
VARIANTS = ("standard", "english-queries")


def _have_lists() -> bool:
    try:
        apt_lists.find_list(apt_lists.LISTS_DIR, "main_i18n_Translation-de")
        apt_lists.find_list(apt_lists.LISTS_DIR, "main_i18n_Translation-en")
        apt_lists.find_list(apt_lists.LISTS_DIR, "main_binary-amd64_Packages")
        apt_lists.find_list(apt_lists.LISTS_DIR, "InRelease")
    except ClirkitError:
        return False
    return Path(apt_lists.APT_HELPER).is_file()


needs_lists = pytest.mark.skipif(
    not _have_lists(),
    reason=(f"apt list files not found in {apt_lists.LISTS_DIR} (enable Acquire::Languages de and run apt-get update)"),
)


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """Anything the reader derives goes to a temporary cache, never ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLIRKIT_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def _folder(lang: str, variant: str = "standard") -> Path:
    return DATA / debian_desc.collection_name(lang) / variant


@pytest.fixture(scope="module")
def loaded():
    """``{(lang, variant): (collection, queries by split, qrels by split)}`` for every committed folder."""
    out = {}
    for lang in LANGS:
        for variant in VARIANTS:
            c = datasets.load(str(_folder(lang, variant)))
            out[lang, variant] = (c, {s: c.queries(s) for s in SPLITS}, {s: c.qrels(s) for s in SPLITS})
    return out


@pytest.fixture(scope="module")
def documents(loaded):
    """``{lang: (docids, texts)}`` of each collection's standard variant."""
    return {lang: loaded[lang, "standard"][0].documents() for lang in LANGS}


# --------------------------------------------------------------------------- committed folders


@pytest.mark.parametrize("lang", LANGS)
def test_committed_counts_equal_the_manifest(lang, loaded, documents):
    c, queries, qrels = loaded[lang, "standard"]
    ids, texts = documents[lang]
    sources, targets = c.parallel()
    assert c.name == f"debian-desc-{lang}-en" and (c.source_lang, c.target_lang) == (lang, "en")
    assert len(ids) == len(set(ids)) == len(set(texts)) == c.counts["documents"]
    assert len(sources) == len(targets) == c.counts["parallel_pairs"]
    for s in SPLITS:
        assert len(queries[s]) == c.counts[s]["queries"]
        assert len(qrels[s]) == c.counts[s]["qrels"]["1"] == len(queries[s])  # one relevant document each
    assert c.counts["train"]["queries"] > c.counts["dev"]["queries"] > 300


@pytest.mark.parametrize("lang", LANGS)
def test_no_qid_or_query_text_or_relevant_document_in_two_splits(lang, loaded):
    _, queries, qrels = loaded[lang, "standard"]
    for i, a in enumerate(SPLITS):
        for b in SPLITS[i + 1 :]:
            assert not set(queries[a]) & set(queries[b])
            assert not set(queries[a].values()) & set(queries[b].values())
            assert not set(qrels[a].docids.tolist()) & set(qrels[b].docids.tolist())


@pytest.mark.parametrize("lang", LANGS)
def test_every_judged_document_exists_and_every_query_is_judged(lang, loaded, documents):
    _, queries, qrels = loaded[lang, "standard"]
    docids = set(documents[lang][0])
    for s in SPLITS:
        assert set(qrels[s].docids.tolist()) <= docids
        assert sorted(qrels[s].qids.tolist()) == sorted(queries[s])
        assert set(qrels[s].rels.tolist()) == {1}


@pytest.mark.parametrize("lang", LANGS)
def test_queries_are_translated_and_distinct(lang, loaded):
    _, queries, _ = loaded[lang, "standard"]
    _, english, _ = loaded[lang, "english-queries"]
    texts = [t for s in SPLITS for t in queries[s].values()]
    assert len(texts) == len(set(texts)) and all(texts)
    for s in SPLITS:
        assert all(queries[s][q] != english[s][q] for q in queries[s])


@pytest.mark.parametrize("lang", LANGS)
def test_parallel_corpus_holds_train_packages_only(lang, loaded):
    c, queries, _ = loaded[lang, "standard"]
    ids, sources, targets = read_parallel(c.paths["parallel"])
    held_out_qids = set(queries["dev"]) | set(queries["test"])
    held_out_texts = set(queries["dev"].values()) | set(queries["test"].values())
    packages = {i.split(":")[0] for i in ids}
    assert not packages & held_out_qids
    assert not set(sources) & held_out_texts
    assert len(set(zip(sources, targets))) == len(ids)  # each pair once
    assert all(i.endswith(":short") or i.rsplit(":p", 1)[1].isdigit() for i in ids)


@pytest.mark.parametrize("lang", LANGS)
def test_english_queries_variant_has_the_same_qids_qrels_and_files(lang, loaded):
    std, std_queries, std_qrels = loaded[lang, "standard"]
    eng, eng_queries, eng_qrels = loaded[lang, "english-queries"]
    assert (eng.source_lang, eng.target_lang) == ("en", "en")
    assert eng.paths["documents"].resolve() == std.paths["documents"].resolve()
    assert eng.paths["parallel"].resolve() == std.paths["parallel"].resolve()
    for s in SPLITS:
        assert list(eng_queries[s]) == list(std_queries[s])
        assert eng_qrels[s].qids.tolist() == std_qrels[s].qids.tolist()
        assert eng_qrels[s].docids.tolist() == std_qrels[s].docids.tolist()


def test_coreutils_and_bash_entries_as_read_in_the_raw_files(loaded, documents):
    # Translation-de: "Package: coreutils / Description-de: Grundlegende GNU-Werkzeuge";
    # Translation-en: "Description-en: GNU core utilities / This package contains the basic file, ..."
    _, de, de_qrels = loaded["de", "standard"]
    _, en, _ = loaded["de", "english-queries"]
    assert de["test"]["coreutils"] == "Grundlegende GNU-Werkzeuge"
    assert en["test"]["coreutils"] == "GNU core utilities"
    rows = de_qrels["test"].qids == "coreutils"
    assert de_qrels["test"].docids[rows].tolist() == ["coreutils"]
    text = dict(zip(*documents["de"]))["coreutils"]
    assert text.startswith(
        "This package contains the basic file, shell and text manipulation utilities "
        "which are expected to exist on every operating system. Specifically, this "
        "package includes: arch base64 basename cat"
    )
    assert text.endswith("who whoami yes")
    # bash's German short description is the English one ("GNU Bourne Again SHell"): no German query
    assert all("bash" not in de[s] for s in SPLITS)
    _, ru, _ = loaded["ru", "standard"]
    assert ru["train"]["bash"] == "GNU Bourne Again SHell: оболочка командной строки"
    _, es, _ = loaded["es", "standard"]
    assert es["train"]["tar"] == "Versión de GNU de la utilidad de archivado tar"
    # Translation-ja / Translation-ko, package 0ad: "Description-ja: 古代戦争のリアルタイム戦略ゲーム"
    assert loaded["ja", "standard"][1]["test"]["0ad"] == "古代戦争のリアルタイム戦略ゲーム"
    assert loaded["ko", "standard"][1]["test"]["0ad"] == "고대 전쟁 실시간 전략 게임"


def test_source_md_quotes_the_manifest_counts():
    for lang in LANGS:
        folder = DATA / debian_desc.collection_name(lang)
        manifests = {v: json.loads((folder / v / "manifest.json").read_text(encoding="utf-8")) for v in VARIANTS}
        text = (folder / "SOURCE.md").read_text(encoding="utf-8")
        assert debian_desc.describe(manifests) in text
        assert text == debian_desc.source_md(folder.name, lang, manifests)


# --------------------------------------------------------------------------- builder pieces


def test_clean_paragraphs_splits_on_dot_lines_and_drops_bullets():
    # from Translation-en, package coreutils (shortened) and a bullet list as packages write them
    lines = [
        " This package contains the basic file, shell and text manipulation",
        " utilities which are expected to exist on every operating system.",
        " .",
        " Specifically, this package includes:",
        " arch base64 basename cat",
        " .",
        "  * Accelerometers",
        "  - OCamlbuild",
        " .",
        " .",
    ]
    assert debian_desc.clean_paragraphs(lines) == [
        "This package contains the basic file, shell and text manipulation utilities which are expected "
        "to exist on every operating system.",
        "Specifically, this package includes: arch base64 basename cat",
        "Accelerometers OCamlbuild",
    ]


def test_clean_paragraphs_joins_a_line_break_between_chinese_or_japanese_characters_without_space():
    # Translation-ja, package 2048-qt: a line wrapped inside a sentence; Korean and Latin text keep the space
    lines = [
        " 格子上のタイルをスライドさせて",
        " 合体させ、数字を 2048 にしてください。",
        " .",
        " 고대 전쟁",
        " 실시간 전략 게임",
        " .",
        " Play chess",
        " across 3 boards",
    ]
    assert debian_desc.clean_paragraphs(lines) == [
        "格子上のタイルをスライドさせて合体させ、数字を 2048 にしてください。",
        "고대 전쟁 실시간 전략 게임",
        "Play chess across 3 boards",
    ]


def test_split_keys_group_packages_by_source_and_by_shared_long_description():
    source_of = {"libgcc-s1": "gcc-12", "lib32gcc-s1": "gcc-12", "fonts-liberation": "fonts-liberation"}
    keys = debian_desc.split_keys(
        [
            ("libgcc-s1", "GCC support library"),
            ("lib32gcc-s1", "x"),
            ("lib64gcc-s1", "GCC support library"),  # not on amd64: no Source known
            ("fonts-liberation", "Liberation fonts"),
            ("fonts-liberation2", "Liberation fonts"),
            ("coreutils", ""),
        ],
        source_of,
    )
    assert keys == {
        "libgcc-s1": "gcc-12",
        "lib32gcc-s1": "gcc-12",
        "lib64gcc-s1": "gcc-12",
        "fonts-liberation": "fonts-liberation",
        "fonts-liberation2": "fonts-liberation",
        "coreutils": "coreutils",
    }


def test_package_split_is_a_stable_sha256_bucket():
    assert [debian_desc.package_split(s) for s in ("coreutils", "bash", "tar")] == ["test", "train", "train"]


def test_missing_apt_list_is_a_clirkit_error(tmp_path):
    with pytest.raises(ClirkitError, match="Acquire::Languages"):
        apt_lists.find_list(tmp_path, "main_i18n_Translation-de")
    with pytest.raises(ClirkitError, match="no such folder"):
        apt_lists.find_list(tmp_path / "absent", "main_i18n_Translation-de")
    with pytest.raises(ClirkitError, match="unknown language"):
        debian_desc.build(tmp_path, ["xx"])


# --------------------------------------------------------------------------- from the apt lists


@needs_lists
def test_rebuild_gives_the_committed_german_folders_byte_for_byte(tmp_path):
    assert debian_desc.main(["--langs", "de", "--quiet", "-o", str(tmp_path)]) == 0
    built = tmp_path / "debian-desc-de-en"
    committed = DATA / "debian-desc-de-en"
    names = sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file())
    for name in names:
        assert (built / name).read_bytes() == (committed / name).read_bytes(), name


@needs_lists
def test_no_source_package_has_queries_in_two_splits(loaded):
    text = apt_lists.read_list(apt_lists.find_list(apt_lists.LISTS_DIR, "main_binary-amd64_Packages"))
    source_of = apt_lists.read_sources(text.decode("utf-8"))
    assert source_of["libgcc-s1"] == "gcc-12" and source_of["bash"] == "bash"
    for lang in LANGS:
        _, queries, _ = loaded[lang, "standard"]
        split_of_source: dict[str, set[str]] = {}
        for s in SPLITS:
            for q in queries[s]:
                split_of_source.setdefault(source_of.get(q, q), set()).add(s)
        assert all(len(v) == 1 for v in split_of_source.values()), lang
