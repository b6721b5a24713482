"""Build the dev collections ``manpages-XX-en`` (XX = de, es, ru) from Debian's manual pages.

Usage::

    python -m clirkit.datasets.manpages --debs DIR -o clirkit/datasets/data

``DIR`` holds the ``.deb`` files of :data:`TRANSLATED` and :data:`ENGLISH` (any
file names, found by their control fields; fetch them with the line in
``data/MANPAGES-SOURCE.md``). Output: ``DIR_OUT/manpages-XX-en/{standard,english-queries}/``
in the layout of :mod:`clirkit.datasets._store`.

- Rendering: each page's roff (decoded as UTF-8, else Latin-1) goes through
  ``groff -K utf-8 -t -mandoc -Tutf8 -rLL=2000n -rHY=0 -P-cbou`` (groff 1.22.4,
  ``LC_ALL=C.UTF-8``, a clean environment): lines 2000 ens wide and no
  hyphenation, so each paragraph is one output line; no formatting codes.
  The page header and footer are dropped (see
  :func:`~clirkit.datasets._manpage_text.parse_sections`), a line at column 0
  starts a section, blank lines separate paragraphs.
- Aliases: a symbolic link or a ``.so`` stub is not a page; it resolves to its target.
- Documents: every English page (``usr/share/man/manN/``) of every package, translated or not; docid
  = file name without ``.gz`` (``ls.1``); text = all sections but NAME (dropped entirely, so the
  page name does not give the match away) and the boilerplate ones
  (:data:`~clirkit.datasets._manpage_text.BOILERPLATE`: SEE ALSO, AUTHOR, COPYRIGHT, REPORTING BUGS,
  ...), section headings left out, whitespace collapsed, cut after
  :data:`~clirkit.datasets._manpage_text.MAX_WORDS` words. Shared by the three collections (stored
  once, in ``manpages-de-en/standard``).
- Queries (``standard``): one per translated page (a real file in ``usr/share/man/XX/manN/`` of
  ``manpages-XX``/``manpages-XX-dev``, else of the English package that ships its own translation,
  e.g. ``dpkg``, ``apt``) with an English original; qid = its file name (``ls.1``); text = the
  translated NAME line(s) without the page names
  (:func:`~clirkit.datasets._manpage_text.strip_names`). Dropped: pages whose translated or English
  description is empty, and those whose translated description equals the English one
  (untranslated).
- Judgment: grade 1 for the English page of the same name (after aliases).
- ``english-queries``: the same qids and judgments, query = the English NAME
  description (the monolingual ceiling); documents and parallel corpus are
  the ``standard`` files (so its parallel corpus is still XX -> English).
- Splits by page name (qid without its section): first 8 bytes of SHA-256
  of the UTF-8 name mod 100, < 40 train, < 70 dev, else test (40/30/30
  rather than 50/25/25, so that dev and test of ``manpages-ru-en`` reach 250 queries).
- Parallel corpus (XX -> English), train pages only: the NAME descriptions, and paragraph pairs of
  sections that align (same number of sections once the translator's last section is dropped; same
  number of paragraphs in the section; not NAME nor boilerplate); identical pairs and pairs longer
  than :data:`~clirkit.datasets._manpage_text.MAX_PAIR_WORDS` words are skipped. Pair id
  ``qid#name`` or ``qid#sIpJ`` (section I, paragraph J, from 1).

Counts of the committed build are in ``data/MANPAGES-SOURCE.md`` and each ``manifest.json``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import os
import posixpath
import re
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from clirkit.datasets._manpage_text import (
    MAX_WORDS,
    Rendered,
    aligned_pairs,
    document_text,
    name_description,
    parse_sections,
    render,
    same_text,
)
from clirkit.datasets._store import VariantData, describe_counts, write_variant
from clirkit.errors import ClirkitError
from clirkit.progress import progress, say
from clirkit.run import Qrels

LANGS = ("de", "es", "ru")
SPLITS = ("train", "dev", "test")
DOCS_HOME = "manpages-de-en"  # the collection folder holding the shared documents file

# the translated pages: manpages-l10n 4.18.1 (GPL-3+)
TRANSLATED: dict[str, tuple[str, ...]] = {
    "de": ("manpages-de=4.18.1-1", "manpages-de-dev=4.18.1-1"),
    "es": ("manpages-es=4.18.1-1", "manpages-es-dev=4.18.1-1"),
    "ru": ("manpages-ru=4.18.1-1", "manpages-ru-dev=4.18.1-1"),
}
# the English originals (and a few translations their packages ship themselves); first package wins a name
ENGLISH: tuple[str, ...] = (
    "manpages=6.03-2",
    "manpages-dev=6.03-2",
    "acct=6.6.4-5+b1",
    "anacron=2.3-36",
    "apt=2.6.2",
    "at=3.2.5-1+b1",
    "bash=5.2.15-2+b13",
    "bc=1.07.1-3+b1",
    "bsdextrautils=2.38.1-5+deb12u3",
    "bsdgames=2.17-29+b1",
    "bsdutils=1:2.38.1-5+deb12u3",
    "bzip2=1.0.8-5+b1",
    "console-setup=1.221",
    "coreutils=9.1-1",
    "cpio=2.13+dfsg-7.1",
    "cron=3.0pl1-162",
    "debianutils=5.7-0.5~deb12u1",
    "diffutils=1:3.8-4",
    "dosfstools=4.2-1",
    "dpkg=1.21.23",
    "e2fsprogs=1.47.0-2+b2",
    "ed=1.19-1",
    "eject=2.38.1-5+deb12u3",
    "fdisk=2.38.1-5+deb12u3",
    "file=1:5.44-3",
    "findutils=4.9.0-4",
    "gettext-base=0.21-12",
    "gettext=0.21-12",
    "gpm=1.20.7-10+b1",
    "grep=3.8-5",
    "groff-base=1.22.4-10",
    "grub-common=2.06-13+deb12u2",
    "grub2-common=2.06-13+deb12u2",
    "gzip=1.12-1",
    "hostname=3.23+nmu1",
    "info=6.8-6+b1",
    "inetutils-talkd=2:2.4-2+deb12u3",
    "init-system-helpers=1.65.2+deb12u1",
    "install-info=6.8-6+b1",
    "iproute2=6.1.0-3",
    "iptables=1.8.9-2",
    "kbd=2.5.1-1+b1",
    "kmod=30+20221128-1",
    "less=590-2.1~deb12u2",
    "libc-bin=2.36-9+deb12u14",
    "libsane-common=1.2.1-2",
    "locales=2.36-9+deb12u14",
    "login=1:4.13+dfsg1-1+deb12u2",
    "logrotate=3.21.0-1",
    "make=4.3-4.1",
    "man-db=2.11.2-2",
    "mount=2.38.1-5+deb12u3",
    "mtools=4.0.33-1+really4.0.32-1",
    "mutt=2.2.12-0.1~deb12u2",
    "nano=7.2-1+deb12u1",
    "ncal=12.1.8",
    "ncurses-bin=6.4-4",
    "net-tools=2.10-0.1+deb12u2",
    "nfs-common=1:2.6.2-4+deb12u1",
    "nfs-kernel-server=1:2.6.2-4+deb12u1",
    "openssh-client=1:9.2p1-2+deb12u10",
    "openssh-server=1:9.2p1-2+deb12u10",
    "parted=3.5-3+deb12u1",
    "passwd=1:4.13+dfsg1-1+deb12u2",
    "procmail=3.22-27",
    "procps=2:4.0.2-3",
    "psmisc=23.6-1",
    "psutils=1.17.dfsg-4",
    "recutils=1.9-2",
    "rfkill=2.38.1-5+deb12u3",
    "sane-utils=1.2.1-2",
    "sed=4.9-1+deb12u1",
    "sharutils=1:4.15.2-9",
    "sysstat=12.6.1-1",
    "systemd=252.39-1~deb12u2",
    "systemd-boot=252.39-1~deb12u2",
    "systemd-container=252.39-1~deb12u2",
    "systemd-coredump=252.39-1~deb12u2",
    "systemd-homed=252.39-1~deb12u2",
    "systemd-journal-remote=252.39-1~deb12u2",
    "systemd-oomd=252.39-1~deb12u2",
    "systemd-resolved=252.39-1~deb12u2",
    "systemd-sysv=252.39-1~deb12u2",
    "systemd-timesyncd=252.39-1~deb12u2",
    "systemd-userdbd=252.39-1~deb12u2",
    "sysvinit-utils=3.06-4",
    "tar=1.34+dfsg-1.2+deb12u1",
    "texinfo=6.8-6+b1",
    "thinkfan=1.3.1-4",
    "time=1.9-0.2",
    "udev=252.39-1~deb12u2",
    "usbutils=1:014-1+deb12u1",
    "util-linux=2.38.1-5+deb12u3",
    "util-linux-extra=2.38.1-5+deb12u3",
    "uuid-dev=2.38.1-5+deb12u3",
    "uuid-runtime=2.38.1-5+deb12u3",
    "vorbis-tools=1.4.2-1+b1",
    "wdiff=1.2.2-5",
    "wodim=9:1.1.11-3.4",
    "xz-utils=5.4.1-1+deb12u2",
    "zstd=1.5.4+dfsg2-5",
)
_PAGE_FILE = re.compile(r"[^/]+\.[0-9][^/.]*\.gz")
_SO = re.compile(r"\.so\s+(\S+)")


@dataclass
class Page:
    """One manual page file of a package: its roff source (``roff``) or, for a link or ``.so``
    stub, the docid it stands for (``alias``)."""

    docid: str
    package: str
    roff: bytes | None = None
    alias: str | None = None


# ---------------------------------------------------------------------------- reading the packages


def pinned(spec: str) -> tuple[str, str]:
    """``"name=version"`` -> ``(name, version)``."""
    name, _, version = spec.partition("=")
    return name, version


def find_debs(debs_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """The ``.deb`` file of every pinned package under ``debs_dir`` (searched recursively, identified
    by its Package and Version fields): ``{name: path}``; ClirkitError naming the first missing one."""
    root = Path(debs_dir)
    if not root.is_dir():
        raise ClirkitError(f"{root}: no such folder (--debs names the folder holding the .deb files)")
    found: dict[tuple[str, str], Path] = {}
    for path in sorted(root.rglob("*.deb")):
        out = subprocess.run(["dpkg-deb", "-f", str(path), "Package", "Version"], capture_output=True, text=True)
        fields = dict(line.split(": ", 1) for line in out.stdout.splitlines() if ": " in line)
        if out.returncode == 0 and "Package" in fields:
            found.setdefault((fields["Package"], fields.get("Version", "")), path)
    specs = [s for lang in LANGS for s in TRANSLATED[lang]] + list(ENGLISH)
    missing = [s for s in specs if pinned(s) not in found]
    if missing:
        raise ClirkitError(
            f"{root}: no .deb for {missing[0]} ({len(missing)} of {len(specs)} pinned packages "
            f"missing; fetch them with: apt-get download {' '.join(missing[:3])} ...)"
        )
    return {pinned(s)[0]: found[pinned(s)] for s in specs}


def _alias_target(roff: bytes) -> str | None:
    """The docid a ``.so`` stub stands for (``.so man1/bzip2.1`` -> ``bzip2.1``), or None for a real page."""
    lines = [ln.strip() for ln in roff.decode("latin-1").splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith(('.\\"', "'\\\"", ".\\#"))]
    m = _SO.fullmatch(lines[0]) if len(lines) == 1 else None
    return posixpath.basename(m.group(1)).removesuffix(".gz") if m else None


def read_pages(deb: Path, package: str) -> dict[str, dict[str, Page]]:
    """The manual pages of one package, grouped by language (``"en"`` for ``usr/share/man/manN/``,
    else the folder name, e.g. ``"de"``): ``{lang: {docid: Page}}``."""
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, check=False)
    if data.returncode != 0:
        raise ClirkitError(f"{deb}: dpkg-deb cannot read it ({data.stderr.decode(errors='replace').strip()[:200]})")
    out: dict[str, dict[str, Page]] = {}
    with tarfile.open(fileobj=io.BytesIO(data.stdout)) as tar:
        for member in tar:
            parts = member.name.removeprefix("./").split("/")
            if parts[:3] != ["usr", "share", "man"] or not _PAGE_FILE.fullmatch(parts[-1]):
                continue
            if len(parts) == 5 and parts[3].startswith("man"):
                lang = "en"
            elif len(parts) == 6 and parts[4].startswith("man"):
                lang = parts[3]
            else:
                continue
            docid = parts[-1].removesuffix(".gz")
            if member.issym():
                page = Page(docid, package, alias=posixpath.basename(member.linkname).removesuffix(".gz"))
            elif member.isfile() or member.islnk():
                roff = gzip.decompress(tar.extractfile(member).read())
                page = Page(docid, package, roff=roff, alias=_alias_target(roff))
            else:
                continue
            out.setdefault(lang, {}).setdefault(docid, page)
    return out


def resolve(docid: str, pages: dict[str, Page]) -> str | None:
    """The docid of the real page ``docid`` stands for (following links and ``.so`` stubs), or None."""
    seen = set()
    while docid in pages and pages[docid].alias is not None and docid not in seen:
        seen.add(docid)
        docid = pages[docid].alias
    page = pages.get(docid)
    return docid if page is not None and page.alias is None else None


# ---------------------------------------------------------------------------- splits and rendering


def page_split(docid: str) -> str:
    """The split of a page, by its name (``docid`` without the section): SHA-256 of the UTF-8
    name, first 8 bytes big-endian, mod 100: < 40 train, < 70 dev, else test."""
    name = docid.rsplit(".", 1)[0]
    bucket = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big") % 100
    return "train" if bucket < 40 else "dev" if bucket < 70 else "test"


def render_all(pages: list[Page], *, jobs: int, quiet: bool, desc: str) -> list[Rendered]:
    """Render and parse ``pages`` (real pages only) with ``jobs`` groff processes at a time."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        texts = pool.map(lambda p: parse_sections(render(p.roff)), pages)
        return list(progress(texts, desc=desc, total=len(pages), quiet=quiet, unit="page"))


# ---------------------------------------------------------------------------- the build


def build(debs_dir: str | os.PathLike[str], *, jobs: int = 2, quiet: bool = False) -> dict[str, dict[str, VariantData]]:
    """Build every collection in memory: ``{"manpages-de-en": {"standard": ..., "english-queries": ...}, ...}``."""
    debs = find_debs(debs_dir)
    english: dict[str, Page] = {}
    shipped: dict[str, dict[str, Page]] = {lang: {} for lang in LANGS}  # translations in English packages
    n_shadowed = 0
    for spec in ENGLISH:
        name = pinned(spec)[0]
        by_lang = read_pages(debs[name], name)
        for docid, page in by_lang.get("en", {}).items():
            n_shadowed += docid in english
            english.setdefault(docid, page)
        for lang in LANGS:
            for docid, page in by_lang.get(lang, {}).items():
                shipped[lang].setdefault(docid, page)
    real = sorted(d for d, p in english.items() if p.alias is None)
    say(
        f"{len(english):,} English page files, {len(real):,} real pages ({n_shadowed} names in two packages: "
        f"first kept)",
        quiet=quiet,
    )
    rendered_en = dict(zip(real, render_all([english[d] for d in real], jobs=jobs, quiet=quiet, desc="English")))
    doc_text = {d: document_text(r) for d, r in rendered_en.items()}
    docids = [d for d in real if doc_text[d]]
    texts = [doc_text[d] for d in docids]
    en_desc = {d: name_description(r) for d, r in rendered_en.items()}
    say(f"{len(docids):,} documents ({len(real) - len(docids)} empty pages left out)", quiet=quiet)

    out: dict[str, dict[str, VariantData]] = {}
    for lang in LANGS:
        out[f"manpages-{lang}-en"] = _build_language(
            lang, debs, shipped[lang], english, rendered_en, en_desc, docids, texts, jobs=jobs, quiet=quiet
        )
    return out


def _build_language(
    lang: str,
    debs: dict[str, Path],
    shipped: dict[str, Page],
    english: dict[str, Page],
    rendered_en: dict[str, Rendered],
    en_desc: dict[str, str],
    docids: list[str],
    texts: list[str],
    *,
    jobs: int,
    quiet: bool,
) -> dict[str, VariantData]:
    """The two variants of ``manpages-LANG-en`` from the translated packages and the English pages."""
    translated: dict[str, Page] = {}
    for spec in TRANSLATED[lang]:
        name = pinned(spec)[0]
        for docid, page in read_pages(debs[name], name).get(lang, {}).items():
            translated.setdefault(docid, page)
    n_l10n = sum(p.alias is None for p in translated.values())
    for docid, page in shipped.items():
        translated.setdefault(docid, page)
    is_doc = set(docids)
    candidates: list[tuple[str, str]] = []  # (qid, relevant docid)
    counts = {
        "translated_pages": 0,
        "translated_pages_from_manpages_l10n": n_l10n,
        "without_english_page": 0,
        "without_description": 0,
        "untranslated_description": 0,
    }
    for qid in sorted(translated):
        if translated[qid].alias is not None:
            continue
        counts["translated_pages"] += 1
        target = resolve(qid, english)
        if target is None or target not in is_doc:
            counts["without_english_page"] += 1
            continue
        candidates.append((qid, target))
    rendered_tr = render_all([translated[q] for q, _ in candidates], jobs=jobs, quiet=quiet, desc=lang)

    queries = {s: {} for s in SPLITS}
    en_queries = {s: {} for s in SPLITS}
    rel_rows = {s: ([], []) for s in SPLITS}
    pairs: list[tuple[str, str, str]] = []
    n_unaligned = 0
    n_from_shipped = 0
    for (qid, target), page in zip(candidates, rendered_tr):
        desc, english_desc = name_description(page), en_desc[target]
        if not desc or not english_desc:
            counts["without_description"] += 1
            continue
        if same_text(desc, english_desc):
            counts["untranslated_description"] += 1
            continue
        n_from_shipped += translated[qid].package not in {pinned(s)[0] for s in TRANSLATED[lang]}
        split = page_split(qid)
        queries[split][qid] = desc
        en_queries[split][qid] = english_desc
        rel_rows[split][0].append(qid)
        rel_rows[split][1].append(target)
        if split == "train":
            pairs.append((f"{qid}#name", desc, english_desc))
            aligned = aligned_pairs(page, rendered_en[target])
            if aligned is None:
                n_unaligned += 1
            else:
                pairs.extend((f"{qid}#{suffix}", s, t) for suffix, s, t in aligned)
    qrels = {s: Qrels(rel_rows[s][0], rel_rows[s][1], [1] * len(rel_rows[s][0])) for s in SPLITS}
    counts.update(queries_from_upstream_translations=n_from_shipped, train_pages_with_unaligned_sections=n_unaligned)

    name = f"manpages-{lang}-en"
    docs_file = "../standard/documents.tsv.gz" if name == DOCS_HOME else f"../../{DOCS_HOME}/standard/documents.tsv.gz"
    description = (
        f"{lang} NAME descriptions of Debian manual pages (page names removed) -> English manual pages "
        f"(NAME and boilerplate sections dropped, <= {MAX_WORDS} words); grade 1 = the page's original"
    )

    def variant(variant_name: str, qs: dict[str, dict[str, str]], source_lang: str, subsets: dict) -> VariantData:
        return VariantData(
            name=name,
            variant=variant_name,
            source_lang=source_lang,
            target_lang="en",
            description=description
            if variant_name == "standard"
            else "English NAME descriptions (monolingual ceiling of the standard variant; its parallel corpus is "
            f"still {lang} -> en) -> English manual pages; grade 1 = the page itself",
            docids=docids,
            doc_texts=texts,
            pair_ids=[p[0] for p in pairs],
            pair_sources=[p[1] for p in pairs],
            pair_targets=[p[2] for p in pairs],
            queries=qs,
            qrels=qrels,
            extra_counts=dict(counts),
            subsets=subsets,
        )

    standard_subsets = {} if name == DOCS_HOME else {"documents": docs_file}
    return {
        "standard": variant("standard", queries, lang, standard_subsets),
        "english-queries": variant(
            "english-queries", en_queries, "en", {"documents": docs_file, "parallel": "../standard/parallel.tsv.gz"}
        ),
    }


def describe(manifests: dict[str, dict[str, dict]]) -> str:
    """The counts of every collection and variant as text."""
    blocks = []
    for name, variants in manifests.items():
        c = variants["standard"]["counts"]
        head = (
            f"{name}: {c['translated_pages']:,} translated pages ({c['translated_pages_from_manpages_l10n']:,} "
            f"from manpages-l10n); dropped: {c['without_english_page']:,} without an English page, "
            f"{c['without_description']:,} without a description, {c['untranslated_description']:,} "
            f"untranslated; {c['queries_from_upstream_translations']:,} queries from translations shipped by "
            f"the upstream package; {c['train_pages_with_unaligned_sections']:,} train pages with unaligned "
            f"sections"
        )
        blocks.append("\n".join([head] + [describe_counts(v, m["counts"]) for v, m in variants.items()]))
    return "\n".join(blocks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clirkit.datasets.manpages", description=__doc__.split("\n")[0])
    parser.add_argument("--debs", required=True, help="folder holding the pinned .deb files")
    parser.add_argument("-o", "--output", required=True, help="output folder (gets manpages-XX-en/)")
    parser.add_argument("--jobs", type=int, default=2, help="groff processes at a time")
    parser.add_argument("--quiet", action="store_true", help="no messages on stderr")
    args = parser.parse_args(argv)
    try:
        collections = build(args.debs, jobs=args.jobs, quiet=args.quiet)
        manifests = {
            name: {v: write_variant(data, Path(args.output) / name / v) for v, data in variants.items()}
            for name, variants in collections.items()
        }
        say(describe(manifests), quiet=args.quiet)
    except ClirkitError as exc:
        print(f"manpages: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
