"""clirkit.datasets.debian_deps: the builder's rules on hand-made apt stanzas, and the committed folder.

The stanzas below are cut down from bookworm's own (haruna and mpv depend on libmpv2; libmpv-dev
shares libmpv2's long description; yt-dlp provides youtube-dl; exim4 and postfix both provide
mail-transport-agent). Tests of the committed folder need nothing else; the rebuild test skips
without the apt list files (``/var/lib/apt/lists``: Translation-{en,fr} and amd64 Packages).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from clirkit import datasets
from clirkit.datasets import _apt_lists as apt_lists
from clirkit.datasets import debian_deps, debian_desc
from clirkit.datasets.debian_deps import hub_documents, parse_relations, read_packages, relation_grades, resolve
from clirkit.errors import ClirkitError

DATA = Path(datasets.__file__).parent / "data"
FOLDER = DATA / debian_deps.NAME / debian_deps.VARIANT
SPLITS = ("train", "dev", "test")


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """Anything the reader derives goes to a temporary cache, never ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLIRKIT_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


# --------------------------------------------------------------------------- hand-made stanzas

# package -> (Source, Depends, Recommends, Provides, English description, French description or None)
_LIBMPV_LONG = " mpv is a movie player based on MPlayer and mplayer2. It supports a wide variety of formats."
WORLD = {
    "haruna": (
        "haruna",
        "libmpv2 (>= 0.35), libc6 (>= 2.34), kio | kio-alt",
        "yt-dlp",
        "",
        "video player built with Qt/QML on top of libmpv\n Haruna is an open source video player built "
        "with Qt/QML on top of libmpv.",
        "lecteur vidéo construit avec Qt/QML sur libmpv\n Haruna est un lecteur vidéo libre construit "
        "avec Qt/QML sur libmpv.",
    ),
    "mpv": (
        "mpv",
        "libmpv2 (= 0.35.1-4), libc6, mail-transport-agent",
        "youtube-dl",
        "",
        "video player based on MPlayer/mplayer2\n" + _LIBMPV_LONG.replace("movie", "video"),
        "lecteur vidéo basé sur MPlayer/mplayer2\n mpv est un lecteur vidéo basé sur MPlayer et mplayer2.",
    ),
    "libmpv2": (
        "mpv",
        "libc6 (>= 2.34)",
        "",
        "",
        "video player based on MPlayer/mplayer2 (client library)\n" + _LIBMPV_LONG,
        "lecteur de films basé sur MPlayer/mplayer2 (bibliothèque)\n mpv est un lecteur de films basé "
        "sur MPlayer et mplayer2. Il gère de nombreux formats.",
    ),
    "libmpv-dev": (
        "mpv",
        "libmpv2 (= 0.35.1-4)",
        "",
        "",
        "video player based on MPlayer/mplayer2 (client library development files)\n" + _LIBMPV_LONG,
        None,
    ),
    "kio": (
        "kio",
        "libc6",
        "",
        "",
        "resource and network access abstraction\n KDE Input/Output framework provides a single API.",
        "abstraction d'accès aux ressources et au réseau\n L'infrastructure d'entrée et sortie de KDE "
        "fournit une API unique.",
    ),
    "yt-dlp": (
        "yt-dlp",
        "python3:any, python3-mutagen",
        "",
        "youtube-dl (= 2023.03.04)",
        "downloader of videos from YouTube and other sites\n yt-dlp is a command-line program to download "
        "videos from YouTube.com and many other sites.",
        "téléchargeur de vidéos de YouTube et d'autres sites\n yt-dlp est un programme en ligne de commande "
        "pour télécharger des vidéos de YouTube.com et d'autres sites.",
    ),
    "libc6": (
        "glibc",
        "libgcc-s1",
        "",
        "",
        "GNU C Library: Shared libraries\n Contains the standard libraries that are used by nearly all "
        "programs on the system.",
        "bibliothèque C de GNU : bibliothèques partagées\n Contient les bibliothèques standard utilisées "
        "par presque tous les programmes du système.",
    ),
    "exim4": (
        "exim4",
        "libc6",
        "",
        "mail-transport-agent",
        "metapackage to ease Exim MTA installation\n Exim is a mail transport agent.",
        None,
    ),
    "postfix": (
        "postfix",
        "libc6",
        "",
        "mail-transport-agent",
        "High-performance mail transport agent\n Postfix is Wietse Venema's mail transport agent.",
        None,
    ),
}


def _md5(english: str) -> str:
    return hashlib.md5((english + "\n").encode("utf-8")).hexdigest()


def _packages_text(world=WORLD) -> str:
    out = []
    for name, (source, depends, recommends, provides, english, _) in world.items():
        lines = [f"Package: {name}", f"Source: {source}", "Version: 1.0-1", "Architecture: amd64"]
        lines += [f"Depends: {depends}"] if depends else []
        lines += [f"Recommends: {recommends}"] if recommends else []
        lines += [f"Provides: {provides}"] if provides else []
        lines += [f"Description: {english.splitlines()[0]}", f"Description-md5: {_md5(english)}"]
        out.append("\n".join(lines) + "\n")
    return "\n".join(out)


def _translation_text(lang: str, world=WORLD) -> str:
    out = []
    for name, (*_, english, french) in world.items():
        text = english if lang == "en" else french
        if text is not None:
            out.append(f"Package: {name}\nDescription-md5: {_md5(english)}\nDescription-{lang}: {text}\n")
    return "\n".join(out)


def _sources(world=WORLD) -> tuple[debian_desc.Sources, dict]:
    english = debian_desc.read_translations(_translation_text("en", world), "en", Path("Translation-en"))
    french = debian_desc.read_translations(_translation_text("fr", world), "fr", Path("Translation-fr"))
    text = _packages_text(world)
    sha = {k: "0" * 64 for k in (debian_deps.PACKAGES, "main/i18n/Translation-en", "main/i18n/Translation-fr")}
    src = debian_desc.Sources(english, {"fr": french}, apt_lists.read_sources(text), "Sat, 10 Jun 2023", sha)
    return src, read_packages(text)[0]


def test_parse_relations_keeps_alternatives_and_drops_versions_qualifiers_and_restrictions():
    assert parse_relations("a (>= 1) | b:any, c [amd64],\n d (<< 2:1.0~) | e | f:amd64") == [
        ["a", "b"],
        ["c"],
        ["d", "e", "f"],
    ]
    assert parse_relations("") == []
    assert parse_relations("libstdc++6 (>= 12), python3.11") == [["libstdc++6"], ["python3.11"]]


def test_read_packages_keeps_the_first_stanza_of_a_repeated_name():
    text = _packages_text() + "\nPackage: kio\nVersion: 2.0-1\nDepends: haruna\nDescription-md5: x\n"
    packages, repeated = read_packages(text)
    assert repeated == 1 and len(packages) == len(WORLD)
    assert packages["kio"].relations["Depends"] == [["libc6"]]
    assert packages["yt-dlp"].provides == ("youtube-dl",)


def test_resolve_takes_a_package_or_the_only_provider_of_a_virtual_name():
    packages = read_packages(_packages_text())[0]
    provided = debian_deps.providers(packages)
    assert resolve("kio", packages, provided) == "kio"
    assert resolve("youtube-dl", packages, provided) == "yt-dlp"  # one provider
    assert resolve("mail-transport-agent", packages, provided) is None  # exim4 and postfix
    assert resolve("python3-mutagen", packages, provided) is None  # not in the list


def test_relation_grades_depends_2_recommends_1_every_alternative_no_self():
    packages = read_packages(_packages_text())[0]
    counts: dict = {}
    grades = relation_grades(packages, counts)
    # kio-alt is unknown: the other alternative of the group still counts
    assert grades["haruna"] == {"libmpv2": 2, "libc6": 2, "kio": 2, "yt-dlp": 1}
    assert grades["mpv"] == {"libmpv2": 2, "libc6": 2, "yt-dlp": 1}  # youtube-dl resolved, the MTA dropped
    assert counts["relation_virtual_resolved"] == 1 and counts["relation_virtual_dropped"] == 1
    assert counts["relation_unknown_dropped"] == 4  # kio-alt, python3, python3-mutagen, libgcc-s1
    loop = read_packages("Package: a\nDepends: a, b\nRecommends: b\n\nPackage: b\n")[0]
    assert relation_grades(loop) == {"a": {"b": 2}, "b": {}}  # Depends beats Recommends; no self relation


def test_hub_documents_are_those_judged_for_more_than_the_limit():
    judged = {"q1": {"libc6": 2, "kio": 2}, "q2": {"libc6": 2}, "q3": {"libc6": 1, "kio": 2}}
    assert hub_documents(judged, 2) == {"libc6": 3}
    assert hub_documents(judged, 1) == {"libc6": 3, "kio": 2}
    assert hub_documents(judged, 3) == {}


@pytest.fixture(scope="module")
def small():
    src, packages = _sources()
    return debian_deps.build_collection(src, packages, share=0.25)  # 9 candidates: limit int(2.25) = 2


def _judged(data) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for s in SPLITS:
        q = data.qrels[s]
        for qid, doc, grade in zip(q.qids.tolist(), q.docids.tolist(), q.rels.tolist()):
            out.setdefault(qid, {})[doc] = grade
    return out


def _excluded(data) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for s in SPLITS:
        for qid, doc in zip(data.excluded[s].qids.tolist(), data.excluded[s].docids.tolist()):
            out.setdefault(qid, set()).add(doc)
    return out


def test_documents_are_the_french_full_descriptions(small):
    assert small.docids == ["haruna", "kio", "libc6", "libmpv2", "mpv", "yt-dlp"]
    assert small.doc_texts[1] == (
        "abstraction d'accès aux ressources et au réseau L'infrastructure d'entrée et "
        "sortie de KDE fournit une API unique."
    )
    assert (small.source_lang, small.target_lang) == ("en", "fr")


def test_own_translation_is_excluded_and_never_relevant(small):
    judged, excluded = _judged(small), _excluded(small)
    assert excluded["haruna"] == {"haruna"} and "haruna" not in judged["haruna"]
    for qid, docs in excluded.items():
        assert not docs & set(judged.get(qid, {}))
    # libmpv-dev's only relation is libmpv2, whose French text translates the same English long description
    assert "libmpv-dev" not in judged and small.extra_counts["judgments_own_translation"] == 1


def test_hub_cut_drops_the_document_and_the_queries_left_without_relevant(small):
    # libc6 is judged for haruna, mpv, libmpv2, kio, exim4, postfix: 6 > 2
    assert small.extra_counts["hub_limit"] == 2 and small.extra_counts["hub_documents"] == {"libc6": 6}
    judged = _judged(small)
    assert judged == {"haruna": {"libmpv2": 2, "kio": 2, "yt-dlp": 1}, "mpv": {"libmpv2": 2, "yt-dlp": 1}}
    queries = {q: t for s in SPLITS for q, t in small.queries[s].items()}
    assert set(queries) == {"haruna", "mpv"}
    assert queries["haruna"] == (
        "video player built with Qt/QML on top of libmpv Haruna is an open source video "
        "player built with Qt/QML on top of libmpv."
    )


def test_splits_follow_the_source_package_groups_and_parallel_holds_train_only(small):
    src, _ = _sources()
    split_of = debian_desc.build_documents(src).split_of
    seen: dict[str, str] = {}
    for s in SPLITS:
        for qid in small.queries[s]:
            assert qid not in seen and split_of[qid] == s
            seen[qid] = s
    assert split_of["libmpv2"] == split_of["libmpv-dev"] == split_of["mpv"]  # one source: one split
    for pair_id in small.pair_ids:
        assert split_of[pair_id.split(":")[0]] == "train"
    train_fr = {t.package for t in src.translations["fr"] if split_of[t.package] == "train"}
    assert {p.split(":")[0] for p in small.pair_ids} == train_fr  # every train translation, English first
    english = {d.package: d.short for d in src.english}
    for pair_id, en in zip(small.pair_ids, small.pair_sources):
        if pair_id.endswith(":short"):
            assert en == english[pair_id.split(":")[0]]


# --------------------------------------------------------------------------- the committed folder


@pytest.fixture(scope="module")
def committed():
    c = datasets.load(str(FOLDER))
    return c, {s: c.queries(s) for s in SPLITS}, {s: c.qrels(s) for s in SPLITS}, {s: c.excluded(s) for s in SPLITS}


def test_committed_folder_loads_with_the_counts_of_its_manifest(committed):
    c, queries, qrels, excluded = committed
    assert c.name == debian_deps.NAME and (c.source_lang, c.target_lang) == ("en", "fr")
    ids, texts = c.documents()
    sources, targets = c.parallel()
    assert len(ids) == len(set(ids)) == len(set(texts)) == c.counts["documents"]
    assert len(sources) == len(targets) == c.counts["parallel_pairs"]
    for s in SPLITS:
        assert len(queries[s]) == c.counts[s]["queries"]
        grades, n = np.unique(qrels[s].rels, return_counts=True)
        assert {str(g): int(k) for g, k in zip(grades.tolist(), n.tolist())} == c.counts[s]["qrels"]
        assert sum(map(len, excluded[s].values())) == c.counts[s]["excluded"]
    assert c.counts["train"]["queries"] > 15_000


def test_committed_no_query_judges_its_excluded_documents(committed):
    _, queries, qrels, excluded = committed
    for s in SPLITS:
        for qid, doc in zip(qrels[s].qids.tolist(), qrels[s].docids.tolist()):
            assert doc not in excluded[s].get(qid, ()), (s, qid, doc)
            assert doc != qid  # a package's own document is never relevant
        assert set(excluded[s]) <= set(queries[s])


def test_committed_queries_are_judged_in_one_split_only(committed):
    c, queries, qrels, excluded = committed
    ids = set(c.documents()[0])
    qids = [q for s in SPLITS for q in queries[s]]
    assert len(qids) == len(set(qids))
    for s in SPLITS:
        assert set(qrels[s].qids.tolist()) == set(queries[s])
        assert set(qrels[s].docids.tolist()) <= ids
        assert {d for docs in excluded[s].values() for d in docs} <= ids
    held_out = {t for s in SPLITS[1:] for t in queries[s].values()}
    assert not held_out & set(c.parallel()[0])


def test_source_md_quotes_the_manifest_counts():
    import json

    manifest = json.loads((FOLDER / "manifest.json").read_text(encoding="utf-8"))
    assert (FOLDER.parent / "SOURCE.md").read_text(encoding="utf-8") == debian_deps.source_md(manifest)


def _have_lists() -> bool:
    try:
        for suffix in (
            "main_i18n_Translation-fr",
            "main_i18n_Translation-en",
            "main_binary-amd64_Packages",
            "InRelease",
        ):
            apt_lists.find_list(apt_lists.LISTS_DIR, suffix)
    except ClirkitError:
        return False
    return Path(apt_lists.APT_HELPER).is_file()


@pytest.mark.slow
@pytest.mark.skipif(not _have_lists(), reason=f"apt list files not found in {apt_lists.LISTS_DIR}")
def test_rebuild_gives_the_committed_folder_byte_for_byte(tmp_path):
    assert debian_deps.main(["--quiet", "-o", str(tmp_path)]) == 0
    built, committed = tmp_path / debian_deps.NAME, DATA / debian_deps.NAME
    names = sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file())
    for name in names:
        assert (built / name).read_bytes() == (committed / name).read_bytes(), name
