"""Build the dev collections ``gettext-XX-en`` from the gettext catalogs of Debian bookworm packages.

Usage::

    mkdir -p gettext-debs && cd gettext-debs && apt-get download NAME=VERSION ... && cd ..
    python -m clirkit.datasets.gettext_catalogs --debs gettext-debs -o clirkit/datasets/data

(the ``apt-get download`` line with every package is :func:`download_command`, also in
``data/gettext-ja-en/SOURCE.md``). Input: the ``.deb`` files of :data:`PACKAGES` (and :data:`EXTRA_PACKAGES`);
their compiled catalogs ``usr/share/locale/LL/LC_MESSAGES/DOMAIN.mo`` for ``LL`` in de, es, ru, zh_CN (and ja,
ko, th, zh_TW) are read straight from the archives by :mod:`clirkit.datasets._gettext_mo` (ar + tar.xz, no
``dpkg-deb`` needed). Output: one folder per language, ``gettext-XX-en/VARIANT/``, in the layout of
:mod:`clirkit.datasets._store`.

- Messages: one per catalog entry; a plural entry gives its singular msgid with ``msgstr[0]``, a
  ``msgctxt`` is dropped. Both sides are cleaned by :func:`clean_message` (of
  :mod:`clirkit.datasets._gettext_cleaning`: format directives, accelerators, markup, command-line
  options, line breaks, trailing colons removed) and kept when :func:`usable` (3 to 60 English words,
  mostly letters, translated, not equal to the English). Fuzzy and untranslated entries are never
  compiled into a ``.mo``, so none are read. The domains in :data:`EXCLUDED_DOMAINS` (time-zone names)
  are skipped. ``usable_messages`` in the manifest counts the kept entries before the merging and
  dropping below.
- Documents (one file for all languages, stored in ``gettext-de-en``): every distinct cleaned English
  msgid kept in any of the four languages, merged by :func:`text_key` (case and punctuation
  folded); docid = ``en.`` + 12 hex digits of SHA-256 of the key; text = its first form in domain order.
- Queries: the cleaned translations; qid = ``DOMAIN.`` + 10 hex digits of SHA-256 of the raw msgid
  (with its context); relevant (grade 1) = the document of its msgid. Translations with the same
  :func:`text_key` are one query: the first split (train, dev, test) keeps it, with all the documents
  its copies in that split translate; copies in a later split are dropped.
- Splits by text domain (the ``.mo`` name): first 8 bytes of SHA-256 of the domain mod 100,
  < 60 train, < 80 dev, else test; so the messages of one program never cross splits.
- Parallel corpus (query language -> English): the train domains' (translation, msgid) pairs,
  distinct pairs once. Dev and test queries whose relevant document's text is the English side of a
  train pair are dropped (counted in the manifest as ``queries_dropped_english_in_train``).
- Later languages, :data:`NEW_LANGUAGES` (``gettext-ja-en``, ``-ko-en``, ``-th-en``, and ``gettext-zh-en``
  variant ``traditional`` from ``zh_TW``): the same rules over :data:`PACKAGES` and :data:`EXTRA_PACKAGES`
  (read for these only, so the four first collections stay as they were). Their documents (stored in
  ``gettext-ja-en``): the shared file as it is, then their English keys not in it (:func:`extended_documents`).
  Combining marks (Thai vowel and tone marks) count as letters, in words, keys and options alike.

Counts of the committed build (also in each ``manifest.json``; tests check them)::

    gettext-de-en: 38,089 usable messages in 64 domains (train 41, dev 9, test 14);
      dropped as English in train: dev 1,751, test 591
    standard: documents 43,347; parallel pairs 25,255
      train 24,434 queries; grade 1: 24,806
      dev 3,499 queries; grade 1: 3,520
      test 5,961 queries; grade 1: 5,997
    gettext-es-en: 41,463 usable messages in 66 domains (train 43, dev 10, test 13);
      dropped as English in train: dev 1,201, test 577
    standard: documents 43,347; parallel pairs 25,557
      train 24,884 queries; grade 1: 25,151
      dev 7,432 queries; grade 1: 7,489
      test 5,367 queries; grade 1: 5,403
    gettext-ru-en: 38,030 usable messages in 61 domains (train 39, dev 8, test 14);
      dropped as English in train: dev 1,155, test 602
    standard: documents 43,347; parallel pairs 20,127
      train 19,352 queries; grade 1: 19,677
      dev 6,808 queries; grade 1: 6,879
      test 7,640 queries; grade 1: 7,702
    gettext-zh-en: 36,619 usable messages in 66 domains (train 41, dev 10, test 15);
      dropped as English in train: dev 1,167, test 590
    standard: documents 43,347; parallel pairs 23,977
      train 23,227 queries; grade 1: 23,577
      dev 3,650 queries; grade 1: 3,687
      test 5,936 queries; grade 1: 6,003

    gettext-ja-en: 36,802 usable messages in 96 domains (train 53, dev 23, test 20);
      dropped as English in train: dev 1,246, test 679
    standard: documents 54,165; parallel pairs 19,335
      train 18,689 queries; grade 1: 18,954
      dev 6,452 queries; grade 1: 6,504
      test 7,546 queries; grade 1: 7,605
    gettext-ko-en: 33,393 usable messages in 82 domains (train 45, dev 20, test 17);
      dropped as English in train: dev 1,223, test 638
    standard: documents 54,165; parallel pairs 18,334
      train 17,694 queries; grade 1: 17,951
      dev 6,395 queries; grade 1: 6,483
      test 5,523 queries; grade 1: 5,562
    gettext-th-en: 14,243 usable messages in 56 domains (train 26, dev 16, test 14);
      dropped as English in train: dev 186, test 462
    standard: documents 54,165; parallel pairs 6,015
      train 5,863 queries; grade 1: 5,950
      dev 4,068 queries; grade 1: 4,105
      test 3,089 queries; grade 1: 3,113
    gettext-zh-en: 38,020 usable messages in 94 domains (train 51, dev 21, test 22);
      dropped as English in train: dev 1,245, test 720
    traditional: documents 54,165; parallel pairs 21,103
      train 20,434 queries; grade 1: 20,725
      dev 6,800 queries; grade 1: 6,886
      test 6,824 queries; grade 1: 6,886
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

from clirkit.datasets._gettext_cleaning import clean_message, text_key, usable
from clirkit.datasets._gettext_mo import deb_catalogs, read_mo, singular
from clirkit.datasets._store import VariantData, describe_counts, write_variant
from clirkit.errors import ClirkitError
from clirkit.progress import say
from clirkit.run import Qrels

SPLITS = ("train", "dev", "test")
# query language -> (collection language code, locale folder under usr/share/locale)
LANGUAGES = {"de": "de", "es": "es", "ru": "ru", "zh": "zh_CN"}
DOCS_FOLDER = "gettext-de-en"  # the collection whose folder stores the shared English documents
# the later languages, read from PACKAGES + EXTRA_PACKAGES: key -> (collection, variant, locale folder)
NEW_LANGUAGES = {
    "ja": ("gettext-ja-en", "standard", "ja"),
    "ko": ("gettext-ko-en", "standard", "ko"),
    "th": ("gettext-th-en", "standard", "th"),
    "zh_TW": ("gettext-zh-en", "traditional", "zh_TW"),
}
NEW_DOCS_FOLDER = "gettext-ja-en"  # stores the later languages' documents: the shared ones, then the new
# domains read but not used, and why
EXCLUDED_DOMAINS = {"gnome-control-center-2.0-timezones": "time zone and city names, not sentences"}

# Debian bookworm (main) binary packages read, as (name, version); all DFSG-free
PACKAGES: tuple[tuple[str, str], ...] = (
    ("apt", "2.6.2"),
    ("aptitude-common", "0.8.13-5"),
    ("bash", "5.2.15-2+b13"),
    ("binutils-common", "2.40-2"),
    ("bison", "2:3.8.2+dfsg-1+b1"),
    ("coreutils", "9.1-1"),
    ("cpio", "2.13+dfsg-7.1"),
    ("debconf-i18n", "1.5.82"),
    ("diffutils", "1:3.8-4"),
    ("dpkg", "1.21.23"),
    ("e2fsprogs-l10n", "1.47.0-2"),
    ("evince-common", "43.1-2+deb12u1"),
    ("evolution-data-server-common", "3.46.4-2+deb12u1"),
    ("findutils", "4.9.0-4"),
    ("gawk", "1:5.2.1-2"),
    ("gedit-common", "44.2-1"),
    ("gettext-base", "0.21-12"),
    ("gettext", "0.21-12"),
    ("git", "1:2.39.5-0+deb12u3"),
    ("gnome-control-center-data", "1:43.6-2~deb12u1"),
    ("gnupg-l10n", "2.2.40-1.1+deb12u2"),
    ("grep", "3.8-5"),
    ("kbd", "2.5.1-1+b1"),
    ("libc-l10n", "2.36-9+deb12u14"),
    ("libglib2.0-data", "2.74.6-2+deb12u9"),
    ("libgpg-error-l10n", "1.46-1"),
    ("libgtk-3-common", "3.24.38-2~deb12u3"),
    ("libgtk2.0-common", "2.24.33-2+deb12u1"),
    ("libnewt0.52", "0.52.23-1+b1"),
    ("libpam-runtime", "1.5.2-6+deb12u2"),
    ("libpopt0", "1.19+dfsg-1"),
    ("login", "1:4.13+dfsg1-1+deb12u2"),
    ("lynx-common", "2.9.0dev.12-1"),
    ("m4", "1.4.19-3"),
    ("make", "4.3-4.1"),
    ("man-db", "2.11.2-2"),
    ("mc-data", "3:4.8.29-2"),
    ("mutt", "2.2.12-0.1~deb12u2"),
    ("nano", "7.2-1+deb12u1"),
    ("nautilus-data", "43.2-1"),
    ("neomutt", "20220429+dfsg1-4.1"),
    ("network-manager", "1.42.4-1+deb12u1"),
    ("polkitd", "122-3"),
    ("procps", "2:4.0.2-3"),
    ("psmisc", "23.6-1"),
    ("sed", "4.9-1+deb12u1"),
    ("sudo", "1.9.13p3-1+deb12u4"),
    ("system-config-printer-common", "1.5.18-1"),
    ("tar", "1.34+dfsg-1.2+deb12u1"),
    ("texinfo", "6.8-6+b1"),
    ("util-linux-locales", "2.38.1-5+deb12u3"),
    ("wdiff", "1.2.2-5"),
    ("wget", "1.21.3-1+deb12u1"),
    ("xfce4-panel", "4.18.2-1"),
)
# bookworm (main) packages read for NEW_LANGUAGES only (chosen for their Thai catalogs), so the four
# first collections stay as they were
EXTRA_PACKAGES: tuple[tuple[str, str], ...] = (
    ("baobab", "43.0-1"),
    ("brasero-common", "3.12.3-2"),
    ("eog", "43.2-1+deb12u1"),
    ("evolution-common", "3.46.4-2+deb12u1"),
    ("file-roller", "43.0-1"),
    ("gdm3", "43.0-3"),
    ("gnome-calculator", "1:43.0.1-2"),
    ("gnome-disk-utility", "43.0-1"),
    ("gnome-keyring", "42.1-1+b2"),
    ("gnome-shell-common", "43.9-0+deb12u2"),
    ("gnome-system-monitor", "42.0-2"),
    ("gnome-terminal-data", "3.46.8-1"),
    ("gucharmap", "1:15.0.2-1"),
    ("gvfs-common", "1.50.3-1+deb12u1"),
    ("libapt-pkg6.0", "2.6.2"),
    ("libgnomekbd-common", "3.28.1-1"),
    ("libsoup-3.0-common", "3.2.3-0+deb12u2"),
    ("libxfce4ui-common", "4.18.2-2"),
    ("mousepad", "0.5.10-2"),
    ("mutter-common", "43.8-0+deb12u1"),
    ("rhythmbox-data", "3.4.6-2"),
    ("ristretto", "0.12.4-1"),
    ("seahorse", "43.0-1"),
    ("thunar-data", "4.18.4-1"),
    ("totem-common", "43.0-2"),
    ("tumbler-common", "4.18.0-1"),
    ("xfce4-appfinder", "4.18.0-1"),
    ("xfce4-notifyd", "0.7.3-1"),
    ("xfce4-power-manager-data", "4.18.1-1"),
    ("xfce4-screenshooter", "1.10.3-1"),
    ("xfce4-session", "4.18.1-1"),
    ("xfce4-settings", "4.18.2-1"),
    ("xfce4-terminal", "1.0.4-1"),
    ("xfdesktop4-data", "4.18.1-1"),
    ("xfwm4", "4.18.0-1"),
    ("zenity-common", "3.44.0-1"),
)


def download_command() -> str:
    """The shell line that fetches :data:`PACKAGES` and :data:`EXTRA_PACKAGES` into the current folder."""
    return "apt-get download " + " ".join(f"{n}={v}" for n, v in PACKAGES + EXTRA_PACKAGES)


# ------------------------------------------------------------------------------------------ ids and splits


def hex_id(text: str, n: int) -> str:
    """The first ``n`` hex digits of SHA-256 of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


def domain_split(domain: str) -> str:
    """The split of a text domain: SHA-256 of its UTF-8 name, first 8 bytes big-endian, mod 100."""
    bucket = int.from_bytes(hashlib.sha256(domain.encode("utf-8")).digest()[:8], "big") % 100
    return "train" if bucket < 60 else "dev" if bucket < 80 else "test"


# ------------------------------------------------------------------------------------------ building


@dataclass
class Message:
    """One kept catalog entry of one language: where from, and both cleaned sides."""

    package: str
    domain: str
    msgid: str  # raw, with context and plural
    english: str
    translation: str


def find_debs(debs_dir: str | Path) -> dict[str, Path]:
    """``{package: path}`` of the ``.deb`` of every entry of :data:`PACKAGES` and :data:`EXTRA_PACKAGES`.

    Raises ClirkitError naming the first package whose file (``NAME_VERSION_ARCH.deb``, ``:`` as
    ``%3a``) is missing, with the command that fetches them all.
    """
    folder = Path(debs_dir)
    if not folder.is_dir():
        raise ClirkitError(f"{folder}: no such folder (give --debs the folder holding the .deb files)")
    out: dict[str, Path] = {}
    for name, version in PACKAGES + EXTRA_PACKAGES:
        found = sorted(folder.glob(f"{name}_{version.replace(':', '%3a')}_*.deb"))
        if not found:
            raise ClirkitError(
                f"{folder}: no {name}_{version}_*.deb; fetch the packages there with: {download_command()}"
            )
        out[name] = found[0]
    return out


def read_messages(debs_dir: str | Path, *, quiet: bool = False) -> dict[str, list[Message]]:
    """The usable messages of every language of :data:`LANGUAGES` (read from :data:`PACKAGES`) and of
    :data:`NEW_LANGUAGES` (also from :data:`EXTRA_PACKAGES`): ``{lang: [Message]}``, in package, domain
    and catalog order. Raises ClirkitError if two packages ship the same domain."""
    new = {loc: key for key, (_, _, loc) in NEW_LANGUAGES.items()}
    locales = {**{loc: lang for lang, loc in LANGUAGES.items()}, **new}
    out: dict[str, list[Message]] = {lang: [] for lang in locales.values()}
    owner: dict[str, str] = {}
    extra = {name for name, _ in EXTRA_PACKAGES}
    for package, path in find_debs(debs_dir).items():
        catalogs = deb_catalogs(path, set(new) if package in extra else set(locales))
        for (locale, domain), data in sorted(catalogs.items()):
            if domain in EXCLUDED_DOMAINS:
                continue
            if owner.setdefault(domain, package) != package:
                raise ClirkitError(f"{path}: domain {domain} also shipped by {owner[domain]}")
            for msgid, msgstr in read_mo(data, f"{path}:{locale}/{domain}.mo"):
                english, translation = (clean_message(s) for s in singular(msgid, msgstr))
                if usable(english, translation):
                    out[locales[locale]].append(Message(package, domain, msgid, english, translation))
    say(
        f"read {len(owner)} domains of {len(PACKAGES) + len(EXTRA_PACKAGES)} packages: "
        + ", ".join(f"{lang} {len(m):,}" for lang, m in out.items())
        + " usable messages",
        quiet=quiet,
    )
    return out


def english_documents(messages: dict[str, list[Message]]) -> tuple[list[str], list[str], dict[str, str]]:
    """The shared documents: ``(docids, texts, {text_key: docid})``, one per distinct English key,
    ordered by (first domain, first text); text = the form met first in that order."""
    first: dict[str, tuple[str, str]] = {}
    for msgs in messages.values():
        for m in msgs:
            k = text_key(m.english)
            if k not in first or (m.domain, m.english) < first[k]:
                first[k] = (m.domain, m.english)
    order = sorted(first, key=lambda k: first[k])
    docid_of: dict[str, str] = {}
    seen: dict[str, str] = {}
    for k in order:
        d = "en." + hex_id(k, 12)
        if d in seen:
            raise ClirkitError(f"document id {d} given to two texts, {seen[d]!r} and {k!r}")
        seen[d] = k
        docid_of[k] = d
    return [docid_of[k] for k in order], [first[k][1] for k in order], docid_of


def extended_documents(
    docids: list[str], doc_texts: list[str], docid_of: dict[str, str], messages: dict[str, list[Message]]
) -> tuple[list[str], list[str], dict[str, str]]:
    """The documents of :data:`NEW_LANGUAGES`: the shared ones as they are, then each English key of
    ``messages`` not among them, ordered as :func:`english_documents` orders its own."""
    ids, texts, new_of = english_documents(
        {k: [m for m in msgs if text_key(m.english) not in docid_of] for k, msgs in messages.items()}
    )
    if set(ids) & set(docids):
        raise ClirkitError(f"document ids {sorted(set(ids) & set(docids))} given to two texts")
    return docids + ids, doc_texts + texts, {**docid_of, **new_of}


def language_variant(
    lang: str,
    msgs: list[Message],
    docid_of: dict[str, str],
    docids: list[str],
    doc_texts: list[str],
    *,
    name: str = "",
    variant: str = "standard",
    script: str = "",
    docs_folder: str = DOCS_FOLDER,
    extra_counts: dict | None = None,
) -> VariantData:
    """The collection ``name`` (default ``gettext-LANG-en``), ``variant``, from one language's messages;
    its documents are stored in ``docs_folder``'s ``standard`` variant (``script``: said in the description)."""
    name = name or f"gettext-{lang}-en"
    by_split: dict[str, list[Message]] = {s: [] for s in SPLITS}
    for m in msgs:
        by_split[domain_split(m.domain)].append(m)
    pairs: dict[tuple[str, str], str] = {}
    for m in by_split["train"]:
        pairs.setdefault((m.translation, m.english), f"{m.domain}.{hex_id(m.msgid, 10)}")
    train_english = {text_key(e) for _, e in pairs}

    seen_query: dict[str, str] = {}  # query text key -> split that kept it
    queries: dict[str, dict[str, str]] = {}
    qrels: dict[str, Qrels] = {}
    dropped_train_english = {s: 0 for s in SPLITS}
    dropped_duplicate = {s: 0 for s in SPLITS}
    for s in SPLITS:
        qid_of: dict[str, str] = {}  # query key -> qid (this split)
        texts: dict[str, str] = {}
        rels: dict[str, list[str]] = {}
        for m in sorted(by_split[s], key=lambda m: (m.domain, m.msgid)):
            ek = text_key(m.english)
            if s != "train" and ek in train_english:
                dropped_train_english[s] += 1
                continue
            qk = text_key(m.translation)
            if seen_query.setdefault(qk, s) != s:
                dropped_duplicate[s] += 1
                continue
            if qk not in qid_of:
                qid = f"{m.domain}.{hex_id(m.msgid, 10)}"
                if qid in texts:
                    raise ClirkitError(f"query id {qid} given twice")
                qid_of[qk] = qid
                texts[qid] = m.translation
                rels[qid] = []
            else:
                dropped_duplicate[s] += 1
            d = docid_of[ek]
            if d not in rels[qid_of[qk]]:
                rels[qid_of[qk]].append(d)
        queries[s] = texts
        rows = [(q, d) for q in texts for d in rels[q]]
        qrels[s] = Qrels([q for q, _ in rows], [d for _, d in rows], [1] * len(rows))
    extra = {
        "packages": len({m.package for m in msgs}),
        "domains": {s: len({m.domain for m in by_split[s]}) for s in SPLITS},
        "usable_messages": len(msgs),
        "queries_dropped_english_in_train": {s: dropped_train_english[s] for s in ("dev", "test")},
        "queries_merged_same_translation": dropped_duplicate,
        **(extra_counts or {}),
    }
    return VariantData(
        name=name,
        variant=variant,
        source_lang=lang,
        target_lang="en",
        description=(
            f"{lang}{script} translation of a program message (Debian gettext catalogs) -> its English "
            "original among the English messages of all the catalogs; grade 1 = the original"
        ),
        docids=docids,
        doc_texts=doc_texts,
        pair_ids=list(pairs.values()),
        pair_sources=[t for t, _ in pairs],
        pair_targets=[e for _, e in pairs],
        queries=queries,
        qrels=qrels,
        extra_counts=extra,
        subsets={}
        if (name, variant) == (docs_folder, "standard")
        else {"documents": f"../../{docs_folder}/standard/documents.tsv.gz"},
    )


def build(debs_dir: str | Path, *, quiet: bool = False) -> dict[tuple[str, str], VariantData]:
    """Build every collection in memory: ``{("gettext-de-en", "standard"): VariantData, ...}``."""
    messages = read_messages(debs_dir, quiet=quiet)
    docids, doc_texts, docid_of = english_documents({lang: messages[lang] for lang in LANGUAGES})
    out = {
        (f"gettext-{lang}-en", "standard"): language_variant(lang, messages[lang], docid_of, docids, doc_texts)
        for lang in LANGUAGES
    }
    shared = len(docids)
    docids, doc_texts, docid_of = extended_documents(
        docids, doc_texts, docid_of, {key: messages[key] for key in NEW_LANGUAGES}
    )
    for key, (name, variant, _) in NEW_LANGUAGES.items():
        lang = key.split("_")[0]
        out[name, variant] = language_variant(
            lang,
            messages[key],
            docid_of,
            docids,
            doc_texts,
            name=name,
            variant=variant,
            script=" (traditional script)" if variant == "traditional" else "",
            docs_folder=NEW_DOCS_FOLDER,
            extra_counts={"documents_shared_with_" + DOCS_FOLDER: shared},
        )
    return out


def describe(manifests: dict[str, dict]) -> str:
    """The counts block quoted in this module's docstring and in ``SOURCE.md`` (``manifests``: any keys)."""
    lines = []
    for manifest in manifests.values():
        name, c = manifest["name"], manifest["counts"]
        d, dropped = c["domains"], c["queries_dropped_english_in_train"]
        lines.append(
            f"{name}: {c['usable_messages']:,} usable messages in {sum(d.values())} domains "
            f"(train {d['train']}, dev {d['dev']}, test {d['test']});"
        )
        lines.append(f"  dropped as English in train: dev {dropped['dev']:,}, test {dropped['test']:,}")
        lines.append(describe_counts(manifest["variant"], c))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m clirkit.datasets.gettext_catalogs", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--debs", required=True, help="the folder holding the .deb files of PACKAGES")
    parser.add_argument(
        "-o", "--output", required=True, help="output folder (gets gettext-XX-en/standard/ for every language)"
    )
    parser.add_argument("--quiet", action="store_true", help="no messages on stderr")
    args = parser.parse_args(argv)
    try:
        collections = build(args.debs, quiet=args.quiet)
        manifests = {key: write_variant(data, Path(args.output).joinpath(*key)) for key, data in collections.items()}
        first = [(f"gettext-{lang}-en", "standard") for lang in LANGUAGES]
        say(describe({k: manifests[k] for k in first}), quiet=args.quiet)
        say(describe({k: m for k, m in manifests.items() if k not in first}), quiet=args.quiet)
    except ClirkitError as exc:
        print(f"gettext_catalogs: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
