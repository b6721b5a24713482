"""Build the training collection ``debian-deps-en-fr``: a Debian package's English description -> the
French descriptions of the packages it depends on.

Usage (after enabling French with ``Acquire::Languages`` and running ``apt-get update``)::

    python -m clirkit.datasets.debian_deps -o clirkit/datasets/data

A collection of the boosted ranker's kind (Sokolov et al. 2013 learn from about 100,000 patent
queries): long queries, relevance beyond translation, tens of thousands of training queries. Inputs,
read from the apt list folder (``--lists``, default ``/var/lib/apt/lists``) with
:mod:`clirkit.datasets._apt_lists` and :mod:`clirkit.datasets.debian_desc`'s readers: Debian
bookworm ``main``'s ``i18n/Translation-{en,fr}`` (the DDTP translations, matched to the English
original by ``Description-md5``) and ``binary-amd64/Packages`` (``Depends``, ``Pre-Depends``,
``Recommends``, ``Provides``, ``Source``). Output: ``OUT/debian-deps-en-fr/standard/`` in the layout
of :mod:`clirkit.datasets._store`, with ``excluded`` files as ``bible-verse-es-en`` ``topical``.

- Direction and language: queries in English, documents in French. French has the most DDTP
  translations of bookworm (21,420 packages; German 13,869), and English queries can be every amd64
  package (63,436), where French queries could only be the translated ones: under the same rules
  French -> English gives 15,436 queries (9,396 train) over 61,462 English documents, English ->
  French 30,870 (18,756 train) over 19,478 French documents (English -> German: 32,545, 19,449
  train, over only 13,152 documents).
- Documents: every distinct French description (short description, then the long description's
  paragraphs cleaned by :func:`~clirkit.datasets.debian_desc.clean_paragraphs`, joined with spaces)
  of >= ``MIN_DOC_WORDS`` words, of every package of ``Translation-fr`` whose entry translates the
  current English description (same ``Description-md5``), amd64 or not; docid = the first package
  name (sorted order) holding the text, ``PKG:MD5PREFIX`` when a package is first for two texts.
- Queries: the English description (short then long, the same cleaning) of each amd64 package;
  qid = package name; among packages with the same English text only the first name is kept.
- Relations (:func:`relation_grades`): ``Depends`` and ``Pre-Depends`` give grade 2,
  ``Recommends`` grade 1 (a package named in both keeps the higher). Every alternative of
  ``a | b`` counts with the grade of its field: each satisfies the dependency, so each is the
  kind of software the package needs. Versions, architecture qualifiers (``:any``) and
  restrictions are ignored. A name that is no amd64 package is resolved when exactly one amd64
  package ``Provides`` it (a virtual package with one provider), else dropped; a package's
  relation to itself is dropped.
- Judgments: the document of each related package translated into French. A query's own
  translation is never relevant: the documents translating its English text, or its English long
  description (>= ``MIN_DOC_WORDS`` words, the binary siblings of one source that share it: the
  ``-dev`` package's ``lib`` package), are left out of its judgments and listed in ``excluded``
  (to be removed from runs before evaluating and training), so relevance is beyond translation.
- Hubs: a document judged relevant for more than ``HUB_SHARE`` (1%, ``--hub-share``) of the query
  candidates (libc6, libstdc++6, python3, perl, debconf, ...: what most packages need says little of
  them) is dropped from every judgment (:func:`hub_documents`); queries left without a relevant
  document are dropped. (0.5% gives 17,693 train queries; 2% gives 21,308 but keeps plumbing such
  as debconf, adduser and lsb-base, up to 1,221 queries a document.)
- Splits by source package group exactly as ``debian-desc-XX-en`` (the same function,
  :func:`~clirkit.datasets.debian_desc.build_documents`: source packages whose binaries share an
  English long description grouped; SHA-256 of the group's name mod 100, < 60 train, < 80 dev,
  else test), so a package has the same split in both collections and binary siblings never cross
  splits. The documents are one set shared by the splits (a dev query's dependency may be a train
  package).
- Parallel corpus (source = English, target = French): the train packages' (English, French)
  short descriptions and long descriptions paragraph by paragraph, with debian-desc's leak rules
  (:func:`~clirkit.datasets.debian_desc._parallel`: no text shared with a dev/test package).

The counts are in ``manifest.json`` and ``SOURCE.md`` (origin, licence, InRelease date, SHA-256 of
each input, thresholds, the hub documents dropped).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from clirkit.datasets import debian_desc as dd
from clirkit.datasets._apt_lists import LISTS_DIR, find_list, iter_stanzas, read_list
from clirkit.datasets._store import VariantData, describe_counts, write_variant
from clirkit.errors import ClirkitError
from clirkit.fileio import atomic_writer
from clirkit.progress import say
from clirkit.run import Qrels

NAME = "debian-deps-en-fr"
LANG = "fr"
VARIANT = "standard"
SPLITS = dd.SPLITS
MIN_DOC_WORDS = dd.MIN_DOC_WORDS
HUB_SHARE = 0.01
FIELD_GRADES = (("Pre-Depends", 2), ("Depends", 2), ("Recommends", 1))
PACKAGES = "main/binary-amd64/Packages"
_NAME = re.compile(r"[a-z0-9][a-z0-9+.-]*")


# --------------------------------------------------------------------------- relations


def parse_relations(value: str) -> list[list[str]]:
    """A ``Depends``-style field as groups of alternative package names, in order:
    ``"a (>= 1) | b:any, c [amd64]"`` -> ``[["a", "b"], ["c"]]`` (versions, architecture
    qualifiers and restrictions dropped; continuation lines allowed)."""
    groups = []
    for group in value.split(","):
        names = [m.group(0) for m in (_NAME.match(alt.strip()) for alt in group.split("|")) if m]
        if names:
            groups.append(names)
    return groups


@dataclass(frozen=True)
class Package:
    """One amd64 package of ``Packages``: its ``Description-md5`` and relation fields."""

    name: str
    md5: str
    relations: dict[str, list[list[str]]]  # field (FIELD_GRADES) -> parse_relations
    provides: tuple[str, ...]


def read_packages(text: str) -> tuple[dict[str, Package], int]:
    """``({name: Package}, number of repeated stanzas)`` from a Packages file; the first stanza of a
    name is kept (bookworm's amd64 list repeats 4 names with a second version)."""
    out: dict[str, Package] = {}
    repeated = 0
    for stanza in iter_stanzas(text):
        name = stanza.get("Package")
        if name is None:
            continue
        if name in out:
            repeated += 1
            continue
        relations = {f: parse_relations(stanza.get(f, "")) for f, _ in FIELD_GRADES}
        provides = tuple(n for group in parse_relations(stanza.get("Provides", "")) for n in group)
        out[name] = Package(name, stanza.get("Description-md5", ""), relations, provides)
    return out, repeated


def providers(packages: dict[str, Package]) -> dict[str, set[str]]:
    """``{virtual or real name: packages providing it}``."""
    out: dict[str, set[str]] = {}
    for p in packages.values():
        for name in p.provides:
            out.setdefault(name, set()).add(p.name)
    return out


def resolve(name: str, packages: dict[str, Package], provided: dict[str, set[str]]) -> str | None:
    """The package a relation names: itself when it is a package, else its only provider, else None
    (a virtual package with several providers, or a name nothing in the list has)."""
    if name in packages:
        return name
    found = provided.get(name, ())
    return next(iter(found)) if len(found) == 1 else None


def relation_grades(packages: dict[str, Package], counts: dict[str, int] | None = None) -> dict[str, dict[str, int]]:
    """``{package: {related package: grade}}``: every alternative of ``Depends``/``Pre-Depends``
    (grade 2) and ``Recommends`` (grade 1), resolved by :func:`resolve`, the highest grade kept,
    the package itself dropped. ``counts`` (if given) gets the names ``relation_names``,
    ``relation_virtual_resolved``, ``relation_virtual_dropped`` and ``relation_unknown_dropped``."""
    provided = providers(packages)
    n = {
        "relation_names": 0,
        "relation_virtual_resolved": 0,
        "relation_virtual_dropped": 0,
        "relation_unknown_dropped": 0,
    }
    out: dict[str, dict[str, int]] = {}
    for p in packages.values():
        related: dict[str, int] = {}
        for field, grade in FIELD_GRADES:
            for group in p.relations[field]:
                for name in group:
                    n["relation_names"] += 1
                    target = resolve(name, packages, provided)
                    if target is None:
                        n["relation_virtual_dropped" if name in provided else "relation_unknown_dropped"] += 1
                        continue
                    if target != name:
                        n["relation_virtual_resolved"] += 1
                    if target != p.name:
                        related[target] = max(grade, related.get(target, 0))
        out[p.name] = related
    if counts is not None:
        counts.update(n)
    return out


def hub_documents(judged: dict[str, dict[str, int]], limit: int) -> dict[str, int]:
    """``{docid: number of queries}`` for the documents judged relevant for more than ``limit`` queries."""
    n: dict[str, int] = {}
    for docs in judged.values():
        for d in docs:
            n[d] = n.get(d, 0) + 1
    return {d: c for d, c in sorted(n.items(), key=lambda dc: (-dc[1], dc[0])) if c > limit}


def full_text(d: dd.Description) -> str:
    """A description as one line: the short description, then the long one's paragraphs."""
    return " ".join([d.short, *d.paragraphs]).strip()


# --------------------------------------------------------------------------- building


def documents(
    english: dict[tuple[str, str], dd.Description],
    translations: list[dd.Description],
) -> tuple[list[str], list[str], dict[tuple[str, str], str], list[tuple[dd.Description, dd.Description]]]:
    """``(docids, texts, {(package, md5): docid}, [(translation, English)])`` from a Translation file's
    entries: the entries translating a current English description (first entry per package kept for
    the pairs); one document per distinct full text of >= ``MIN_DOC_WORDS`` words, docid = the first
    package holding it (``PKG:MD5PREFIX`` when that package is first for two texts)."""
    holders: dict[str, list[tuple[str, str]]] = {}
    pairs: list[tuple[dd.Description, dd.Description]] = []
    seen: set[tuple[str, str]] = set()
    paired: set[str] = set()
    for t in translations:
        key = (t.package, t.md5)
        if key not in english or key in seen:
            continue
        seen.add(key)
        if t.package not in paired:
            paired.add(t.package)
            pairs.append((t, english[key]))
        text = full_text(t)
        if len(text.split()) >= MIN_DOC_WORDS:
            holders.setdefault(text, []).append(key)
    first = {text: min(keys) for text, keys in holders.items()}
    taken: dict[str, int] = {}
    for package, _ in first.values():
        taken[package] = taken.get(package, 0) + 1
    docid = {text: p if taken[p] == 1 else f"{p}:{md5[:8]}" for text, (p, md5) in first.items()}
    doc_of = {key: docid[text] for text, keys in holders.items() for key in keys}
    order = sorted(docid.items(), key=lambda kv: kv[1])
    return [d for _, d in order], [t for t, _ in order], doc_of, pairs


def judge(
    queries: dict[str, dd.Description],
    related: dict[str, dict[str, int]],
    doc_of_package: dict[str, str],
    mates: dict[str, set[str]],
    counts: dict[str, int],
) -> dict[str, dict[str, int]]:
    """``{qid: {docid: grade}}`` before the hub cut: the documents of each query's related packages,
    without its translation ``mates`` (counted as ``judgments_own_translation``); related packages
    without a document count as ``relations_untranslated``."""
    out: dict[str, dict[str, int]] = {}
    for q in queries:
        docs: dict[str, int] = {}
        for target, grade in related.get(q, {}).items():
            d = doc_of_package.get(target)
            if d is None:
                counts["relations_untranslated"] += 1
            elif d in mates.get(q, ()):
                counts["judgments_own_translation"] += 1
            else:
                docs[d] = max(grade, docs.get(d, 0))
        if docs:
            out[q] = docs
    return out


def build_collection(src: dd.Sources, packages: dict[str, Package], *, share: float = HUB_SHARE) -> VariantData:
    """The collection in memory from what was read (see the module docstring for the rules)."""
    counts: dict[str, object] = {"amd64_packages": len(packages)}
    english = {(d.package, d.md5): d for d in src.english}
    docids, texts, doc_of, pairs = documents(english, src.translations[LANG])
    counts["translated_packages"] = len(pairs)
    doc_of_package = {p.name: doc_of[(p.name, p.md5)] for p in packages.values() if (p.name, p.md5) in doc_of}

    # queries: the English text of each amd64 package, one package per text (the first name)
    by_text: dict[str, dd.Description] = {}
    n_dup = n_missing = 0
    for p in sorted(packages):
        e = english.get((p, packages[p].md5))
        if e is None or not full_text(e):
            n_missing += 1
        elif full_text(e) in by_text:
            n_dup += 1
        else:
            by_text[full_text(e)] = e
    candidates = {e.package: e for e in by_text.values()}
    counts.update(no_english_description=n_missing, duplicate_query_text=n_dup, query_candidates=len(candidates))

    # translation mates: the documents translating a query's text or its long description
    by_full: dict[str, set[str]] = {}
    by_long: dict[str, set[str]] = {}
    for key, d in doc_of.items():
        e = english[key]
        by_full.setdefault(full_text(e), set()).add(d)
        if len(e.long.split()) >= MIN_DOC_WORDS:
            by_long.setdefault(e.long, set()).add(d)
    mates = {q: by_full.get(full_text(e), set()) | by_long.get(e.long, set()) for q, e in candidates.items()}
    mates = {q: m for q, m in mates.items() if m}

    n = {"relations_untranslated": 0, "judgments_own_translation": 0}
    related = relation_grades(packages, counts)
    judged = judge(candidates, related, doc_of_package, mates, n)
    counts.update(n)
    limit = int(share * len(candidates))
    hubs = hub_documents(judged, limit)
    counts.update(
        hub_share=share,
        hub_limit=limit,
        hub_documents=hubs,
        judgments_hub_dropped=sum(hubs.values()),
        queries_with_relations=len(judged),
    )
    judged = {q: kept for q, docs in judged.items() if (kept := {d: g for d, g in docs.items() if d not in hubs})}
    counts["queries_without_relevant"] = len(candidates) - len(judged)

    split_docs = dd.build_documents(src)  # the English long descriptions: debian-desc's splits and leak checks
    split_of = split_docs.split_of
    queries: dict[str, dict[str, str]] = {s: {} for s in SPLITS}
    qrels: dict[str, Qrels] = {}
    excluded: dict[str, Qrels] = {}
    for s in SPLITS:
        qids = [q for q in sorted(judged) if split_of[q] == s]
        queries[s] = {q: full_text(candidates[q]) for q in qids}
        rows = [(q, d, g) for q in qids for d, g in sorted(judged[q].items())]
        qrels[s] = Qrels(
            np.asarray([r[0] for r in rows]),
            np.asarray([r[1] for r in rows]),
            np.asarray([r[2] for r in rows], dtype=np.int64),
        )
        ex = [(q, d) for q in qids for d in sorted(mates.get(q, ()))]
        excluded[s] = Qrels(
            np.asarray([q for q, _ in ex]), np.asarray([d for _, d in ex]), np.zeros(len(ex), dtype=np.int64)
        )
    words = [len(t.split()) for qs in queries.values() for t in qs.values()]
    counts["median_query_words"] = statistics.median(words) if words else 0

    # parallel corpus: the train packages' (English, French) pairs, debian-desc's leak rules
    held = {s: {t.package: t.short for t, _ in pairs if split_of.get(t.package) == s} for s in SPLITS}
    pair_ids, fr, en, extra = dd._parallel(pairs, split_of, split_docs, held, held, src)
    counts.update(extra)
    counts["split_groups"] = len({split_docs.group_of[q] for q in judged})
    own = (PACKAGES, "main/i18n/Translation-en", f"main/i18n/Translation-{LANG}")
    counts["input_sha256"] = {k: src.sha256[k] for k in sorted(own)}
    counts["release_date"] = src.date
    return VariantData(
        name=NAME,
        variant=VARIANT,
        source_lang="en",
        target_lang=LANG,
        description=(
            "English descriptions of Debian bookworm packages -> French (DDTP) descriptions of the "
            "packages they depend on (grade 2: Depends/Pre-Depends) or recommend (grade 1); "
            "own translations removed (see excluded)"
        ),
        docids=docids,
        doc_texts=texts,
        pair_ids=pair_ids,
        pair_sources=en,
        pair_targets=fr,
        queries=queries,
        qrels=qrels,
        excluded=excluded,
        extra_counts=counts,
    )


def build(lists_dir: str | Path = LISTS_DIR, *, share: float = HUB_SHARE, quiet: bool = False) -> VariantData:
    """Read the apt lists of ``lists_dir`` and build the collection in memory."""
    src = dd.read_sources_from_lists(lists_dir, [LANG], quiet=quiet)
    raw = read_list(find_list(lists_dir, "main_binary-amd64_Packages"))
    if hashlib.sha256(raw).hexdigest() != src.sha256[PACKAGES]:
        raise ClirkitError(f"{lists_dir}: the amd64 Packages file changed while it was read; run the build again")
    packages, repeated = read_packages(raw.decode("utf-8"))
    data = build_collection(src, packages, share=share)
    data.extra_counts["repeated_stanzas"] = repeated
    return data


# --------------------------------------------------------------------------- SOURCE.md


def describe(manifest: dict) -> str:
    """The counts of the collection, as quoted in its ``SOURCE.md``."""
    c = manifest["counts"]
    hubs = ", ".join(f"{d} {n:,}" for d, n in c["hub_documents"].items())
    head = (
        f"{c['amd64_packages']:,} amd64 packages ({c['repeated_stanzas']} repeated stanzas skipped), "
        f"{c['no_english_description']:,} without their "
        f"English description, {c['duplicate_query_text']:,} repeating another package's English text: "
        f"{c['query_candidates']:,} query candidates; {c['translated_packages']:,} packages with a current "
        f"French translation.\n"
        f"relations: {c['relation_names']:,} names in Depends/Pre-Depends/Recommends; "
        f"{c['relation_virtual_resolved']:,} resolved through their only provider, "
        f"{c['relation_virtual_dropped']:,} dropped (virtual, several providers), "
        f"{c['relation_unknown_dropped']:,} dropped (no amd64 package or provider); "
        f"{c['relations_untranslated']:,} related packages without a French document; "
        f"{c['judgments_own_translation']:,} judgments dropped as the query's own translation.\n"
        f"hubs: {len(c['hub_documents'])} documents judged for more than {c['hub_limit']:,} queries "
        f"({c['hub_share']:.0%} of the candidates) dropped, {c['judgments_hub_dropped']:,} judgments: {hubs}.\n"
        f"{c['queries_with_relations']:,} candidates with a related French document before the hub cut, "
        f"{c['queries_without_relevant']:,} without a relevant document after it (dropped); "
        f"median query length {c['median_query_words']:g} words; {c['split_groups']:,} split groups.\n"
        f"parallel: {c['parallel_long_skipped_paragraph_count']:,} long descriptions skipped (paragraph counts "
        f"differ), {c['parallel_skipped_held_out']:,} texts skipped (shared with dev/test)"
    )
    return head + "\n" + describe_counts(VARIANT, c)


def source_md(manifest: dict) -> str:
    """The collection's ``SOURCE.md``: origin, licence, inputs with their SHA-256, rules, counts, rebuild."""
    c = manifest["counts"]
    sums = "\n".join(f"    {digest}  {path}" for path, digest in c["input_sha256"].items())
    return f"""# {NAME}: Debian package descriptions, English -> French descriptions of their dependencies

A training collection for learned cross-language rankers (long queries, relevance beyond
translation, tens of thousands of training queries). Query = the English description (short
and long) of a Debian bookworm amd64 package; documents = the French (DDTP) descriptions of all
translated bookworm `main` packages; relevant = the packages it depends on (`Depends`,
`Pre-Depends`: grade 2) or recommends (`Recommends`: grade 1). The query's own translation (and
its siblings' sharing its English long description) is never relevant: it is listed in
`excluded.<split>.txt.gz`, to be removed from runs before evaluation (`Collection.excluded`).

## Origin

Debian 12 (bookworm) `main`, the archive's package index files: `main/i18n/Translation-en`,
`main/i18n/Translation-fr` and `main/binary-amd64/Packages`, as apt stores them after
`apt-get update` with French enabled, e.g. in `/etc/apt/apt.conf.d/99langs`:

    Acquire::Languages {{ "en"; "fr"; }};

The build used the release whose `InRelease` file is dated {c["release_date"]}; the SHA-256
of each decompressed input file (each equal to the one `InRelease` lists; the builder checks):

{sums}

## Licence

The English descriptions and the relation fields are part of each package's metadata (its
`debian/control` file) and are distributed under that package's licence; every package in `main`
meets the Debian Free Software Guidelines (DFSG). The translations are made by the Debian
Description Translation Project (DDTP) volunteers and distributed by Debian in the archive's
`i18n` files. The project may derive data from Debian packages and commit it
(`clirkit/datasets/README.md`).

## How the files were made

`clirkit/datasets/debian_deps.py` (its docstring has the rules). In short: direction English ->
French because French has the most DDTP translations and English queries cover every package
(French queries would give about half as many); every alternative of `a | b` counts; a virtual
package is resolved only when exactly one amd64 package provides it; documents judged
relevant for more than {c["hub_share"]:.0%} of the query candidates ({c["hub_limit"]:,} queries) are
dropped as uninformative; queries without a relevant document are dropped; splits by source package
group as `debian-desc-XX-en` (the same packages in the same splits), about 60/20/20; the
parallel corpus is the train packages' (English, French) short descriptions and long-description
paragraphs, without texts shared with dev/test packages.

## Counts

{describe(manifest)}

## Rebuild (byte for byte, from the same input files)

    sudo apt-get update     # with Acquire::Languages as above
    python -m clirkit.datasets.debian_deps -o clirkit/datasets/data
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clirkit.datasets.debian_deps", description=__doc__.split("\n")[0])
    parser.add_argument("--lists", default=LISTS_DIR, help="the apt list folder (default: %(default)s)")
    parser.add_argument("-o", "--output", required=True, help=f"output folder (gets {NAME}/{VARIANT})")
    parser.add_argument(
        "--hub-share",
        type=float,
        default=HUB_SHARE,
        help="drop documents judged for more than this share of the queries (default: %(default)s)",
    )
    parser.add_argument("--quiet", action="store_true", help="no messages on stderr")
    args = parser.parse_args(argv)
    try:
        if not 0 < args.hub_share <= 1:
            raise ClirkitError(f"--hub-share must be in (0, 1], got {args.hub_share}")
        data = build(args.lists, share=args.hub_share, quiet=args.quiet)
        folder = Path(args.output) / NAME
        if (folder / VARIANT).is_dir():  # no left-over files from an older build
            shutil.rmtree(folder / VARIANT)
        manifest = write_variant(data, folder / VARIANT)
        with atomic_writer(folder / "SOURCE.md") as out:
            out.write(source_md(manifest))
        say(f"{NAME}:\n{describe(manifest)}", quiet=args.quiet)
    except ClirkitError as exc:
        print(f"debian_deps: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
