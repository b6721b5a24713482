"""Build the dev collections ``debian-desc-XX-en`` from Debian's translated package descriptions.

Usage (after enabling the languages with ``Acquire::Languages`` and running ``apt-get update``)::

    python -m clirkit.datasets.debian_desc -o clirkit/datasets/data

Inputs, read from the apt list folder (``--lists``, default ``/var/lib/apt/lists``) by
:mod:`clirkit.datasets._apt_lists`: Debian bookworm ``main``'s
``i18n/Translation-{en,de,es,ru,fr,ja,ko}`` (the DDTP translations, matched to the English original
by ``Description-md5``) and ``binary-amd64/Packages`` (the ``Source`` of each binary package, for
the splits). Output: ``OUT/debian-desc-XX-en/{standard,english-queries}/`` in the layout of
:mod:`clirkit.datasets._store`, one collection per language ``XX``.

- Documents: every distinct English long description (the paragraphs after the short
  description, cleaned by :func:`clean_paragraphs` and joined with spaces) of every package in
  ``Translation-en`` having at least 5 words; docid = the first package name (in sorted order)
  having that text. Untranslated packages' descriptions are the distractors.
- Queries (``standard``): the translated short description of each package of language ``XX``
  whose English long description is a document; qid = package name; dropped when empty or equal
  to the English short description (untranslated); among queries with the same text only the
  package whose name sorts first is kept.
- Judgments: grade 1 = the document holding the package's English long description.
- Splits by source package (``Source:`` of ``Packages``, else the package name), source packages
  whose binaries share a long description grouped under the first source name (:func:`split_keys`;
  e.g. ``lib64gcc-s1``, absent from amd64's ``Packages``, joins ``libgcc-s1`` in the group of the
  gcc toolchains and their cross compilers, the largest: 2,043 packages): first 8 bytes of
  SHA-256 of the group's name mod 100, < 60 train, < 80 dev, else test. Binary siblings never
  cross splits, and no document is the long description of packages in two splits.
- Parallel corpus (source = ``XX``, target = English), train packages only: (translated, English)
  short descriptions, and the long descriptions paragraph by paragraph when both sides have the
  same number of paragraphs (else that long description is skipped). Pairs whose text could leak
  dev/test material are left out: a short-description pair whose translated text is a dev/test
  query or whose English text is a dev/test package's short description, and a long description
  that is also the long description of a package outside train. Repeated (source, target) pairs
  are kept once (siblings share descriptions).
- ``english-queries``: the same qids, splits, judgments and files, with the English short
  description as the query (the monolingual ceiling); its manifest points at the ``standard``
  documents and parallel files.

The counts are in each collection's ``manifest.json`` and in its ``SOURCE.md`` (written by
:func:`source_md`: origin, licence, the InRelease date and the SHA-256 of each input file).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from clirkit.datasets._apt_lists import LISTS_DIR, find_list, inrelease_sha256, iter_stanzas, read_list, read_sources
from clirkit.datasets._store import VariantData, describe_counts, write_variant
from clirkit.errors import ClirkitError
from clirkit.fileio import atomic_writer
from clirkit.progress import say
from clirkit.run import Qrels

# collection language -> the suffix of its Translation file (as apt names it, zh_CN -> zh%5fCN)
LANGUAGES = {"de": "de", "es": "es", "ru": "ru", "fr": "fr", "ja": "ja", "ko": "ko"}
SPLITS = ("train", "dev", "test")
MIN_DOC_WORDS = 5
_BULLET = re.compile(r"^(?:[-*+•o]|\d{1,2}[.)])\s+")


def collection_name(lang: str) -> str:
    """``"de"`` -> ``"debian-desc-de-en"``."""
    return f"debian-desc-{lang}-en"


def package_split(source: str) -> str:
    """The split of a source package: SHA-256 of its UTF-8 name, first 8 bytes big-endian, mod 100."""
    bucket = int.from_bytes(hashlib.sha256(source.encode("utf-8")).digest()[:8], "big") % 100
    return "train" if bucket < 60 else "dev" if bucket < 80 else "test"


def split_keys(packages: list[tuple[str, str]], source_of: dict[str, str]) -> dict[str, str]:
    """``{package: key}`` for ``(package, long description)`` pairs: packages are grouped when they
    share a source package (``source_of``, else the package's own name) or a long description
    (siblings built on other architectures only, renamed sources, the same fonts packaged twice);
    a group's key is the first source name in sorted order. Hashing the key gives the split."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)  # the root is the group's smallest source name

    source = {package: source_of.get(package, package) for package, _ in packages}
    first_with_text: dict[str, str] = {}
    for package, text in packages:
        find(source[package])
        if text:
            union(source[package], first_with_text.setdefault(text, source[package]))
    return {package: find(source[package]) for package, _ in packages}


# --------------------------------------------------------------------------- reading descriptions


def squeeze(text: str) -> str:
    """Whitespace (tabs included) collapsed to single spaces, ends stripped."""
    return " ".join(text.split())


def clean_paragraphs(lines: list[str]) -> list[str]:
    """The paragraphs of a long description (its lines after the short one, each with its leading
    space): `` .`` separates paragraphs; a bullet marker (``*``, ``-``, ``+``, ``•``, ``o``, ``1.``)
    at the start of a line is dropped; lines are joined with spaces, except a line break between two
    Chinese or Japanese characters (scripts written without spaces). Empty paragraphs are dropped."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        body = line[1:] if line[:1] in (" ", "\t") else line
        if body.strip() == ".":
            paragraphs.append(_join_lines(current))
            current = []
            continue
        current.append(_BULLET.sub("", body.strip()))
    paragraphs.append(_join_lines(current))
    return [p for p in paragraphs if p]


# Han, kana and CJK punctuation (full-width forms included): a line break between two of them is no space
_UNSPACED = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uff65]")


def _join_lines(lines: list[str]) -> str:
    """The lines of a paragraph as one line: joined with a space, or with nothing between two
    characters of :data:`_UNSPACED`."""
    out = ""
    for line in filter(None, (squeeze(x) for x in lines)):
        glue = "" if not out or (_UNSPACED.match(out[-1]) and _UNSPACED.match(line[0])) else " "
        out += glue + line
    return out


@dataclass(frozen=True)
class Description:
    """One package description: short description and cleaned long-description paragraphs."""

    package: str
    md5: str
    short: str
    paragraphs: tuple[str, ...]

    @property
    def long(self) -> str:
        """The long description as one line (paragraphs joined with spaces)."""
        return " ".join(self.paragraphs)


def read_translations(text: str, lang: str, path: Path) -> list[Description]:
    """The ``Description-<lang>`` entries of a Translation file, in file order."""
    field = f"Description-{lang}"
    out = []
    for stanza in iter_stanzas(text):
        if "Package" not in stanza or field not in stanza or "Description-md5" not in stanza:
            raise ClirkitError(
                f"{path}: a paragraph lacks Package, Description-md5 or {field} "
                f"(near {stanza.get('Package', '?')!r}); is this a Translation-{lang} file?"
            )
        short, *rest = stanza[field].split("\n")
        out.append(
            Description(stanza["Package"], stanza["Description-md5"], squeeze(short), tuple(clean_paragraphs(rest)))
        )
    return out


# --------------------------------------------------------------------------- building


@dataclass
class Sources:
    """Everything read from the apt lists: English and translated descriptions, sources, checksums."""

    english: list[Description]
    translations: dict[str, list[Description]]
    source_of: dict[str, str]
    date: str
    sha256: dict[str, str]


def read_sources_from_lists(lists_dir: str | Path, langs: list[str], *, quiet: bool = False) -> Sources:
    """Read Translation-en, Translation-XX for ``langs`` and Packages (amd64) from ``lists_dir``;
    record the SHA-256 of each decompressed file and check it against ``InRelease``."""
    date, release = inrelease_sha256(lists_dir)
    sha: dict[str, str] = {}

    def load(suffix: str, archive_path: str) -> tuple[str, Path]:
        path = find_list(lists_dir, suffix)
        raw = read_list(path)
        digest = hashlib.sha256(raw).hexdigest()
        if release.get(archive_path) not in (None, digest):
            raise ClirkitError(
                f"{path}: SHA-256 {digest} differs from InRelease's {release[archive_path]} "
                f"for {archive_path}; run apt-get update"
            )
        sha[archive_path] = digest
        return raw.decode("utf-8"), path

    text, path = load("main_i18n_Translation-en", "main/i18n/Translation-en")
    english = read_translations(text, "en", path)
    translations = {}
    for lang in langs:
        apt_lang = LANGUAGES[lang]
        text, path = load(f"main_i18n_Translation-{apt_lang.replace('_', '%5f')}", f"main/i18n/Translation-{apt_lang}")
        translations[lang] = read_translations(text, apt_lang, path)
    text, _ = load("main_binary-amd64_Packages", "main/binary-amd64/Packages")
    source_of = read_sources(text)
    say(
        f"read {len(english):,} English descriptions, {len(source_of):,} amd64 packages; "
        + ", ".join(f"{lang} {len(t):,}" for lang, t in translations.items()),
        quiet=quiet,
    )
    return Sources(english, translations, source_of, date, sha)


@dataclass
class Documents:
    """The document collection shared by all languages, and how packages map to it."""

    docids: list[str]
    texts: list[str]
    doc_of_text: dict[str, str]  # long description -> docid
    split_of: dict[str, str]  # every English package -> its split
    group_of: dict[str, str]  # every English package -> its split key (see split_keys)
    splits_of_doc: dict[str, set[str]]  # docid -> splits of every package holding it


def build_documents(src: Sources) -> Documents:
    """Distinct English long descriptions of >= ``MIN_DOC_WORDS`` words, docid = the first package name
    holding the text (sorted order), or ``PKG:MD5PREFIX`` when that package is first for two texts."""
    holders: dict[str, list[Description]] = {}
    for d in src.english:
        text = d.long
        if len(text.split()) >= MIN_DOC_WORDS:
            holders.setdefault(text, []).append(d)
    first = {text: min(ds, key=lambda d: (d.package, d.md5)) for text, ds in holders.items()}
    taken: dict[str, int] = {}
    for d in first.values():
        taken[d.package] = taken.get(d.package, 0) + 1
    # a package first in two texts (two versions of its description): PKG:MD5PREFIX for both
    doc_of_text = {
        text: d.package if taken[d.package] == 1 else f"{d.package}:{d.md5[:8]}" for text, d in first.items()
    }
    group_of = split_keys([(d.package, d.long if d.long in holders else "") for d in src.english], src.source_of)
    split_of = {p: package_split(key) for p, key in group_of.items()}
    splits_of_doc = {doc_of_text[t]: {split_of[d.package] for d in ds} for t, ds in holders.items()}
    order = sorted(doc_of_text.items(), key=lambda kv: kv[1])
    return Documents([d for _, d in order], [t for t, _ in order], doc_of_text, split_of, group_of, splits_of_doc)


def _english_by_md5(src: Sources) -> dict[tuple[str, str], Description]:
    """``{(package, Description-md5): English description}``: what a translation entry translates."""
    return {(d.package, d.md5): d for d in src.english}


def build_language(src: Sources, docs: Documents, lang: str) -> dict[str, VariantData]:
    """Both variants of ``debian-desc-<lang>-en``: ``{"standard": ..., "english-queries": ...}``."""
    english = _english_by_md5(src)
    counts = {
        "translated_packages": 0,
        "no_english_match": 0,
        "short_document": 0,
        "untranslated_short": 0,
        "duplicate_query_text": 0,
    }
    seen: set[str] = set()
    pairs: list[tuple[Description, Description]] = []  # (translation, English), first entry per package
    for t in src.translations[lang]:
        if t.package in seen:
            continue
        seen.add(t.package)
        counts["translated_packages"] += 1
        e = english.get((t.package, t.md5))
        if e is None:
            counts["no_english_match"] += 1
            continue
        pairs.append((t, e))

    # queries: translated short descriptions, one package per text (the first name in sorted order)
    by_text: dict[str, tuple[Description, Description]] = {}
    for t, e in sorted(pairs, key=lambda te: te[0].package):
        if e.long not in docs.doc_of_text:
            counts["short_document"] += 1
        elif not t.short or t.short == e.short:
            counts["untranslated_short"] += 1
        elif t.short in by_text:
            counts["duplicate_query_text"] += 1
        else:
            by_text[t.short] = (t, e)
    split_of = docs.split_of
    queries: dict[str, dict[str, str]] = {s: {} for s in SPLITS}
    en_queries: dict[str, dict[str, str]] = {s: {} for s in SPLITS}
    rel: dict[str, list[tuple[str, str]]] = {s: [] for s in SPLITS}
    for t, e in sorted(by_text.values(), key=lambda te: te[0].package):
        s = split_of[t.package]
        queries[s][t.package] = t.short
        en_queries[s][t.package] = e.short
        rel[s].append((t.package, docs.doc_of_text[e.long]))
    qrels = {s: Qrels([q for q, _ in rel[s]], [d for _, d in rel[s]], [1] * len(rel[s])) for s in SPLITS}

    pair_ids, pair_src, pair_tgt, extra = _parallel(pairs, split_of, docs, queries, en_queries, src)
    counts.update(extra)
    if any(len(v) > 1 for v in docs.splits_of_doc.values()):
        raise AssertionError("a document is held by packages of two splits")  # split_keys groups them
    counts["split_groups"] = len(set(docs.group_of[t.package] for t, _ in pairs))
    own = ("main/binary-amd64/Packages", "main/i18n/Translation-en", f"main/i18n/Translation-{LANGUAGES[lang]}")
    counts["input_sha256"] = {k: src.sha256[k] for k in sorted(own)}
    counts["release_date"] = src.date
    name = collection_name(lang)
    standard = VariantData(
        name=name,
        variant="standard",
        source_lang=lang,
        target_lang="en",
        description=(
            f"Debian package short descriptions in {lang} (DDTP translations) -> English long "
            f"descriptions of Debian bookworm packages; grade 1 = the package's own description"
        ),
        docids=docs.docids,
        doc_texts=docs.texts,
        pair_ids=pair_ids,
        pair_sources=pair_src,
        pair_targets=pair_tgt,
        queries=queries,
        qrels=qrels,
        extra_counts=counts,
    )
    english_queries = VariantData(
        name=name,
        variant="english-queries",
        source_lang="en",
        target_lang="en",
        description=(
            "English short descriptions of the same Debian packages -> English long descriptions "
            "(monolingual ceiling of the standard variant)"
        ),
        docids=docs.docids,
        doc_texts=docs.texts,
        pair_ids=pair_ids,
        pair_sources=pair_src,
        pair_targets=pair_tgt,
        queries=en_queries,
        qrels=qrels,
        extra_counts=counts,
        subsets={"documents": "../standard/documents.tsv.gz", "parallel": "../standard/parallel.tsv.gz"},
    )
    return {"standard": standard, "english-queries": english_queries}


def _parallel(
    pairs: list[tuple[Description, Description]],
    split_of: dict[str, str],
    docs: Documents,
    queries: dict[str, dict[str, str]],
    en_queries: dict[str, dict[str, str]],
    src: Sources,
) -> tuple[list[str], list[str], list[str], dict[str, int]]:
    """The train packages' (translated, English) pairs: short descriptions, then long descriptions
    paragraph by paragraph; returns ids (``PKG:short``, ``PKG:p1``, ...), sources, targets, counts."""
    held_out = {q for s in SPLITS[1:] for q in queries[s].values()}
    en_held_out = {d.short for d in src.english if docs.split_of[d.package] != "train"}
    ids: list[str] = []
    sources: list[str] = []
    targets: list[str] = []
    seen: set[tuple[str, str]] = set()
    n = {"parallel_long_skipped_paragraph_count": 0, "parallel_skipped_held_out": 0}

    def add(pair_id: str, s: str, t: str) -> None:
        if s and t and s != t and (s, t) not in seen:
            seen.add((s, t))
            ids.append(pair_id)
            sources.append(s)
            targets.append(t)

    for t, e in sorted(pairs, key=lambda te: te[0].package):
        if split_of[t.package] != "train":
            continue
        if t.short in held_out or e.short in en_held_out:
            n["parallel_skipped_held_out"] += 1
        else:
            add(f"{t.package}:short", t.short, e.short)
        doc = docs.doc_of_text.get(e.long)
        if doc is not None and docs.splits_of_doc[doc] != {"train"}:
            n["parallel_skipped_held_out"] += 1
        elif len(t.paragraphs) != len(e.paragraphs):
            n["parallel_long_skipped_paragraph_count"] += 1
        else:
            for i, (a, b) in enumerate(zip(t.paragraphs, e.paragraphs), 1):
                add(f"{t.package}:p{i}", a, b)
    return ids, sources, targets, n


def build(
    lists_dir: str | Path = LISTS_DIR, langs: list[str] | None = None, *, quiet: bool = False
) -> dict[str, dict[str, VariantData]]:
    """Every collection in memory: ``{"debian-desc-de-en": {"standard": ..., "english-queries": ...}, ...}``."""
    langs = list(LANGUAGES) if langs is None else langs
    for lang in langs:
        if lang not in LANGUAGES:
            raise ClirkitError(f"unknown language {lang!r} (choose {', '.join(LANGUAGES)})")
    src = read_sources_from_lists(lists_dir, langs, quiet=quiet)
    docs = build_documents(src)
    say(f"{len(docs.docids):,} distinct English long descriptions (>= {MIN_DOC_WORDS} words)", quiet=quiet)
    out = {collection_name(lang): build_language(src, docs, lang) for lang in langs}
    shared_docs = f"../../{collection_name(langs[0])}/standard/documents.tsv.gz"
    for lang in langs[1:]:  # one copy of the (language-independent) documents, in the first collection
        for variant in out[collection_name(lang)].values():
            variant.subsets["documents"] = shared_docs
    return out


def describe(manifests: dict[str, dict]) -> str:
    """The counts of one collection's variants, as quoted in its ``SOURCE.md``."""
    c = manifests["standard"]["counts"]
    head = (
        f"{c['translated_packages']:,} translated packages; dropped: {c['no_english_match']:,} without the "
        f"English original, {c['short_document']:,} with an English long description under "
        f"{MIN_DOC_WORDS} words, {c['untranslated_short']:,} untranslated or empty short descriptions, "
        f"{c['duplicate_query_text']:,} repeating another query's text; parallel: "
        f"{c['parallel_long_skipped_paragraph_count']:,} long descriptions skipped (paragraph counts "
        f"differ), {c['parallel_skipped_held_out']:,} texts skipped (shared with dev/test)"
    )
    return "\n".join([head] + [describe_counts(v, m["counts"]) for v, m in manifests.items()])


_LANGUAGE_NAMES = {"de": "German", "es": "Spanish", "ru": "Russian", "fr": "French", "ja": "Japanese", "ko": "Korean"}


def source_md(name: str, lang: str, manifests: dict[str, dict]) -> str:
    """The ``SOURCE.md`` of collection ``name`` (language ``lang``): origin, licence, inputs with
    their SHA-256, how the files were made, the counts and the rebuild command."""
    c = manifests["standard"]["counts"]
    sums = "\n".join(f"    {digest}  {path}" for path, digest in c["input_sha256"].items())
    return f"""# {name}: Debian package descriptions, {_LANGUAGE_NAMES[lang]} short -> English long

Queries are {_LANGUAGE_NAMES[lang]} translations of the one-line short descriptions of Debian
bookworm packages; documents are the English long descriptions of all bookworm `main` packages;
the relevant document (grade 1) is the query's own package's long description. Variant
`english-queries` asks the same questions with the English short descriptions (monolingual
ceiling; its manifest points at the `standard` documents and parallel files).

## Origin

Debian 12 (bookworm) `main`, the archive's package-description index files:
`main/i18n/Translation-en`, `main/i18n/Translation-{LANGUAGES[lang]}` and
`main/binary-amd64/Packages` (the `Source` field of each binary package, for the splits), as apt
stores them after `apt-get update` with the languages enabled, e.g. in
`/etc/apt/apt.conf.d/99langs`:

    Acquire::Languages {{ "en"; "{LANGUAGES[lang]}"; }};

The build used the release whose `InRelease` file is dated {c["release_date"]}; the SHA-256
of each decompressed input file (each equal to the one `InRelease` lists; the builder checks):

{sums}

## Licence

The English descriptions are part of each package's metadata (its `debian/control` file) and
are distributed under that package's licence; every package in `main` meets the Debian Free
Software Guidelines (DFSG). The translations are made by the Debian Description Translation
Project (DDTP) volunteers and distributed by Debian in the archive's `i18n` files. The project
may derive data from Debian packages and commit it (`clirkit/datasets/README.md`).

## How the files were made

`clirkit/datasets/debian_desc.py` (its docstring has the rules). In short: documents = each
distinct English long description of >= {MIN_DOC_WORDS} words (paragraphs joined with spaces,
bullet markers dropped), docid = the first package name holding it; query = the translated
short description, qid = package name, dropped when empty, equal to the English one, or
repeating another query's text (the first package name in sorted order is kept); splits by a
SHA-256 hash of the source package (binary packages sharing a source or a long description are
grouped), about 60/20/20; parallel corpus = (translation, English) short descriptions and
long-description paragraphs (when the paragraph counts agree) of train packages only, without
texts shared with dev/test, each pair once.

## Counts

{describe(manifests)}

## Rebuild (byte for byte, from the same input files)

    sudo apt-get update     # with Acquire::Languages as above
    python -m clirkit.datasets.debian_desc -o clirkit/datasets/data
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clirkit.datasets.debian_desc", description=__doc__.split("\n")[0])
    parser.add_argument("--lists", default=LISTS_DIR, help="the apt list folder (default: %(default)s)")
    parser.add_argument(
        "-o", "--output", required=True, help="output folder (gets debian-desc-XX-en/standard and .../english-queries)"
    )
    parser.add_argument(
        "--langs", default=",".join(LANGUAGES), help="languages, comma-separated (default: %(default)s)"
    )
    parser.add_argument("--quiet", action="store_true", help="no messages on stderr")
    args = parser.parse_args(argv)
    try:
        collections = build(args.lists, [x for x in args.langs.split(",") if x], quiet=args.quiet)
        for name, variants in collections.items():
            folder = Path(args.output) / name
            for stale in ("standard", "english-queries"):  # no left-over files from an older build
                if (folder / stale).is_dir():
                    shutil.rmtree(folder / stale)
            manifests = {v: write_variant(data, folder / v) for v, data in variants.items()}
            with atomic_writer(folder / "SOURCE.md") as out:
                out.write(source_md(name, variants["standard"].source_lang, manifests))
            say(f"{name}:\n{describe(manifests)}", quiet=args.quiet)
    except ClirkitError as exc:
        print(f"debian_desc: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
