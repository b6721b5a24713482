"""Collection ``bible-verse-es-en`` (BENCHMARKS.md C2), built at run time from third-party files, never bundled.

Spanish Reina-Valera 1909 New Testament verses are the queries; the English
World English Bible verses of the 66-book canon are the documents; relevance
comes from the crowd-voted OpenBible.info cross references (CC-BY, read from
``shared/data/openbible_crossrefs``, or from the folders given to ``clirkit datasets build
bible-verse-es-en --from DIR``; see :data:`RECIPE`: the Bibles as verse files, or as the OSIS XML that
mod2osis writes of their SWORD modules, converted to the same verses):

- grade 3: the query verse's own English translation (same OSIS id);
- grade 2: a cross-reference target with >= 5 votes; grade 1: 1-4 votes
  (ranges expanded over the WEB verses; rows with votes <= 0 dropped; a
  verse reached twice keeps its highest grade).

Queries are the NT verses with at least one such cross-reference and an
English mate (qid = OSIS id). Splits by book: train = Matt Mark Luke Acts Rom
1Cor 2Cor Gal Eph Phil Col; dev = 1Thess 2Thess 1Tim 2Tim Titus Phlm Heb Jas;
test = 1Pet 2Pet 1John 2John 3John Jude Rev; John is in no split. Parallel
corpus: the Old Testament (RV1909, WEB) verse pairs (source = Spanish).

Variants: ``standard``; ``topical``: the grade-3 mates removed from the qrels
and listed in ``excluded`` (to be removed from the runs before evaluation).

Counts (a test checks them against a fresh build)::

    7,758 queries with cross-references, 855 of them in John (in no split);
    cross-reference rows: 2,839 with votes <= 0 dropped; 112,623 from NT verses
    used, 222 unresolved (source or target not in RV1909/WEB)
    standard: documents 31,095; parallel pairs 23,129
      train 5,369 queries; grade 3: 5,369; grade 2: 33,137; grade 1: 97,731
      dev 809 queries; grade 3: 809; grade 2: 7,545; grade 1: 17,424
      test 725 queries; grade 3: 725; grade 2: 7,109; grade 1: 12,494
    topical: documents 31,095; parallel pairs 23,129
      train 5,369 queries; grade 2: 33,137; grade 1: 97,731; excluded 5,369
      dev 809 queries; grade 2: 7,545; grade 1: 17,424; excluded 809
      test 725 queries; grade 2: 7,109; grade 1: 12,494; excluded 725
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from clirkit.datasets._bible import NT_BOOKS, OSIS_SUFFIXES, VerseIndex, book_of, read_verses, verses_digest
from clirkit.datasets._runtime import Recipe
from clirkit.datasets._store import VariantData
from clirkit.errors import empty_file, located
from clirkit.fileio import display_name, iter_lines
from clirkit.progress import say
from clirkit.run import Qrels

NAME = "bible-verse-es-en"
VARIANTS = ("standard", "topical")
SPLIT_BOOKS = {
    "train": "Matt Mark Luke Acts Rom 1Cor 2Cor Gal Eph Phil Col".split(),
    "dev": "1Thess 2Thess 1Tim 2Tim Titus Phlm Heb Jas".split(),
    "test": "1Pet 2Pet 1John 2John 3John Jude Rev".split(),
}
SOURCES = ("bible/spaRV1909eb.tsv", "bible/engWEB2015eb.tsv", "openbible_crossrefs/cross_references.txt")
# each Bible may be given as the OSIS XML of its SWORD module, as mod2osis writes it: the export the verse files
# were made of (clirkit.datasets._bible.osis_verses makes the same verses of it)
ALTERNATIVES = {
    f"bible/{module}.tsv": tuple(f"bible/{module}{suffix}" for suffix in OSIS_SUFFIXES)
    for module in ("spaRV1909eb", "engWEB2015eb")
}
# the digests of the verses of the shared folder's files (verses_digest): what an OSIS export must give for the
# collection to be the published one, byte for byte
REFERENCE_VERSES = {SOURCES[0]: "de865d7ff3496a95", SOURCES[1]: "fa0c348d1af247e3"}
DESCRIPTION = "Spanish RV1909 NT verses -> English WEB verses"


def read_crossrefs(path: str | os.PathLike[str]) -> list[tuple[str, str, int]]:
    """``(from_verse, to_reference, votes)`` rows of OpenBible's ``cross_references.txt`` (header skipped)."""
    name = display_name(path)
    rows = []
    for lineno, line in iter_lines(path):
        fields = line.split("\t")
        if lineno == 1 and fields[0] == "From Verse":
            continue
        if len(fields) != 3:
            raise located(name, lineno, f"expected 3 tab-separated fields (from, to, votes), got {len(fields)}")
        try:
            votes = int(fields[2])
        except ValueError:
            raise located(name, lineno, f"votes {fields[2]!r} is not an integer") from None
        rows.append((fields[0], fields[1], votes))
    return rows


def _grades(
    crossrefs: list[tuple[str, str, int]], es_pos: dict[str, int], en: VerseIndex
) -> tuple[dict[str, dict[int, int]], int, int, int]:
    """The best grade per (query verse, document position) of the NT cross references (3: the verse's own
    translation), and the numbers of rows used, with votes <= 0 (dropped), and unresolved (source or target not
    in both Bibles)."""
    grades: dict[str, dict[int, int]] = {}
    n_nonpositive = n_unresolved = n_used = 0
    for src, dst, votes in crossrefs:
        if votes <= 0:
            n_nonpositive += 1
            continue
        if book_of(src) not in NT_BOOKS:
            continue
        targets = en.expand(dst)
        if src not in es_pos or src not in en.position or not targets:
            n_unresolved += 1
            continue
        n_used += 1
        g = 2 if votes >= 5 else 1
        row = grades.setdefault(src, {})
        for t in targets:
            if row.get(t, 0) < g:
                row[t] = g
    for src, row in grades.items():
        row[en.position[src]] = 3
    return grades, n_used, n_nonpositive, n_unresolved


def _verses(path: Path, source: str, notes: list[str]) -> tuple[list[str], list[str]]:
    """The verses of the Bible file ``path`` given for ``source`` (a verse file or an OSIS export); when they are not
    the published build's (:data:`REFERENCE_VERSES`), a note saying so is added to ``notes`` (the collection built
    from them is then another one)."""
    ids, texts = read_verses(path)
    if verses_digest(ids, texts) != REFERENCE_VERSES[source]:
        other = "another version of the module?" if str(path).endswith(OSIS_SUFFIXES) else "another Bible or version?"
        notes.append(
            f"datasets build: {display_name(path)}: its {len(ids):,} verses are not those of the published build "
            f"({other}): the collection built from it differs from the documented one"
        )
    return ids, texts


def _refuse_empty(
    files: dict[str, Path], es_ids: list[str], web_ids: list[str], en_ids: list[str], split_queries: dict[str, list]
) -> None:
    """ClirkitError naming the source file to blame when the collection would have no documents (``en_ids``, the
    WEB verses of the books of the Spanish Bible ``es_ids``) or a split would have no queries (``split_queries``:
    ``{split: its queries}``): a file that is empty, truncated or another one than the recipe's."""
    es, web, refs = (display_name(files[s]) for s in SOURCES)
    if not es_ids or not web_ids:
        raise located(
            es if not es_ids else web, None, "no verses (an empty file?): the collection would have no documents"
        )
    if not en_ids:
        raise located(web, None, f"no verse of a book of {es}: the collection would have no documents (another Bible?)")
    for split, queries in split_queries.items():
        if queries:
            continue
        books = set(SPLIT_BOOKS[split])
        blame, problem = next(
            (
                (name, f"no verse of the {split} split's books ({', '.join(SPLIT_BOOKS[split])})")
                for name, ids in ((es, es_ids), (web, en_ids))
                if not any(book_of(v) in books for v in ids)
            ),
            (
                refs,
                f"no cross reference with votes > 0 from a verse of the {split} split's books "
                f"({', '.join(SPLIT_BOOKS[split])}) to verses of both Bibles",
            ),
        )
        raise located(blame, None, f"{problem}: the {split} split would have no queries (an empty or truncated file?)")


def build(files: dict[str, Path]) -> dict[str, VariantData]:
    """Both variants in memory from the source files (``{source: path}``, the sources of :data:`SOURCES`)."""
    notes: list[str] = []
    es_ids, es_texts = _verses(files[SOURCES[0]], SOURCES[0], notes)
    web_ids, web_texts = _verses(files[SOURCES[1]], SOURCES[1], notes)
    crossrefs = read_crossrefs(files[SOURCES[2]])
    if not crossrefs:
        raise empty_file(
            display_name(files[SOURCES[2]]),
            "cross references",
            "OpenBible's cross_references.txt holds 'From Verse TAB To Verse TAB Votes' lines",
        )

    canon = {book_of(v) for v in es_ids}
    keep = [i for i, v in enumerate(web_ids) if book_of(v) in canon]
    en_ids = [web_ids[i] for i in keep]
    en_texts = [web_texts[i] for i in keep]
    en = VerseIndex(en_ids)
    es_pos = {v: i for i, v in enumerate(es_ids)}

    grades, n_used, n_nonpositive, n_unresolved = _grades(crossrefs, es_pos, en)
    query_ids = sorted(grades, key=es_pos.__getitem__)
    book_split = {b: s for s, books in SPLIT_BOOKS.items() for b in books}
    en_id_arr = np.asarray(en_ids)
    ot_pairs = [v for v in es_ids if book_of(v) not in NT_BOOKS and v in en.position]
    split_queries = {s: [q for q in query_ids if book_split.get(book_of(q)) == s] for s in SPLIT_BOOKS}
    _refuse_empty(files, es_ids, web_ids, en_ids, split_queries)
    for note in notes:
        say(note)
    counts = {
        "queries_with_crossrefs": len(query_ids),
        "queries_in_no_split": sum(1 for q in query_ids if book_of(q) not in book_split),
        "nt_crossref_rows_used": n_used,
        "crossref_rows_votes_nonpositive": n_nonpositive,
        "nt_crossref_rows_unresolved": n_unresolved,
    }

    def variant(name: str) -> VariantData:
        topical = name == "topical"
        queries: dict[str, dict[str, str]] = {}
        qrels: dict[str, Qrels] = {}
        excluded: dict[str, Qrels] = {}
        for split in SPLIT_BOOKS:
            qs = split_queries[split]
            q_col: list[str] = []
            d_col: list[int] = []
            r_col: list[int] = []
            kept = []
            for q in qs:
                row = grades[q]
                docs = sorted(d for d, g in row.items() if not (topical and g == 3))
                if not docs:
                    continue
                kept.append(q)
                q_col.extend([q] * len(docs))
                d_col.extend(docs)
                r_col.extend(row[d] for d in docs)
            queries[split] = {q: es_texts[es_pos[q]] for q in kept}
            qrels[split] = Qrels(np.asarray(q_col), en_id_arr[np.asarray(d_col, dtype=np.int64)], np.asarray(r_col))
            excluded[split] = Qrels(np.asarray(kept), np.asarray(kept), np.zeros(len(kept), dtype=np.int64))
        return VariantData(
            name=NAME,
            variant=name,
            source_lang="es",
            target_lang="en",
            description=(
                f"{DESCRIPTION}; 3 = own translation, 2 = "
                "OpenBible cross-reference with >= 5 votes, 1 = 1-4 votes"
                + ("; own translations removed (see excluded)" if topical else "")
            ),
            docids=en_ids,
            doc_texts=en_texts,
            pair_ids=ot_pairs,
            pair_sources=[es_texts[es_pos[v]] for v in ot_pairs],
            pair_targets=[en_texts[en.position[v]] for v in ot_pairs],
            queries=queries,
            qrels=qrels,
            excluded=excluded if topical else None,
            extra_counts=counts,
            subsets={"documents": "../standard/documents.tsv", "parallel": "../standard/parallel.tsv"}
            if topical
            else {},
        )

    return {v: variant(v) for v in VARIANTS}


RECIPE = Recipe(
    NAME,
    SOURCES,
    files="the Reina-Valera 1909 and World English Bible verses (the SWORD modules spaRV1909eb and engWEB2015eb "
    "exported by mod2osis: spaRV1909eb.osis.xml and engWEB2015eb.osis.xml, .gz fine; or verse files "
    "spaRV1909eb.tsv and engWEB2015eb.tsv, 'osis_id TAB text' lines, made of them) and cross_references.txt",
    download="the modules are the Debian and Ubuntu packages sword-text-sparv and sword-text-web (public domain; the "
    "documented build: Debian bookworm's 2.60-1 and 426.0-1), exported with libsword-utils' mod2osis: "
    "`apt-get install libsword-utils sword-text-sparv sword-text-web`, then `mod2osis spaRV1909eb > "
    "spaRV1909eb.osis.xml` and `mod2osis engWEB2015eb > engWEB2015eb.osis.xml` (the build reads them, or the "
    "verse files, as they are, and says if their verses are not the documented build's); cross_references.txt is "
    "OpenBible.info's cross-reference data (CC-BY), https://www.openbible.info/labs/cross-references/ "
    "(cross-references.zip, unzipped)",
    description=DESCRIPTION,
    build=build,
    alternatives=ALTERNATIVES,
)
