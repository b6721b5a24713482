"""Build the bundled collection ``nave-en-es`` (BENCHMARKS.md C1) from the shared Debian-derived data.

Usage::

    python -m clirkit.datasets.build_nave --shared ../shared -o clirkit/datasets/data/nave-en-es

Inputs (``SHARED/data``): ``bible/spaRV1909eb.tsv`` (documents),
``bible/engWEB2015eb.tsv`` (English side of the parallel corpus) and
``nave/nave.imp`` (queries and judgments). Output: one folder per variant
(``standard/``, ``strict/``) in the layout of :mod:`clirkit.datasets._store`.

- Documents: the Spanish Reina-Valera 1909 verses, docid = OSIS id.
- Queries: one per Nave subtopic (``<lb/>`` segment) that cites at least one
  RV1909 verse; qid = ``TOPIC.n`` (topic name in capitals, non-alphanumerics
  as ``_``; ``n`` = the subtopic's position in the topic, counting every
  segment, so ``AARON.5`` is Aaron's fifth line); text = topic name in title
  case + ``": "`` + the cleaned heading, or the topic name alone when the
  heading is empty. The two ``$$$REVERENCE`` and two ``$$$SIN`` entries are
  one topic each, numbered on.
- Judgments: 2 = verse cited by the subtopic (ranges and whole chapters
  expanded over the RV1909 verses), 1 = verse cited by another subtopic of
  the same topic, except in topics citing more than 200 verses (GOD, JESUS,
  CHURCH, ...: too broad for "same topic" to mean relevant, and their grade-1
  rows alone would be 2.4 million), whose queries have grade 2 only.
  References covering no RV1909 verse are dropped.
- Splits by topic: first 8 bytes of SHA-256 of the topic name mod 100,
  < 80 train, < 90 dev, else test.
- Parallel corpus: (English WEB, Spanish RV1909) verse pairs on shared OSIS
  ids. ``standard``: all of them; ``strict``: Old Testament pairs only, with
  New Testament documents only, judgments restricted to them, and queries
  without any relevant New Testament verse dropped.

Counts of the committed build (also in each ``manifest.json``; a test checks
this block against the files)::

    references 77,935 in 13,515 subtopics citing >= 1 verse; 55 dropped (no
    RV1909 verse), leaving 9 subtopics without a verse; 4,671 topics give
    queries; 193 broad topics (> 200 verses) have no grade 1; strict drops
    6,986 queries without a relevant NT verse
    standard: documents 31,084; parallel pairs 31,077
      train 10,615 queries; grade 2: 164,407; grade 1: 254,451
      dev 1,611 queries; grade 2: 28,551; grade 1: 39,015
      test 1,280 queries; grade 2: 16,024; grade 1: 32,089
    strict: documents 7,955; parallel pairs 23,129
      train 5,187 queries; grade 2: 48,703; grade 1: 62,789
      dev 737 queries; grade 2: 6,464; grade 1: 7,301
      test 596 queries; grade 2: 3,869; grade 1: 8,084

The 55 dropped references (22 distinct) are Nave's typos (``Col.8.16``,
``Mark.18.42``), deuterocanon (``Wis.2``, ``PrAzar.1.2``) and verses other
versifications number differently (``Jonah.1.17``, ``2Cor.13.14``, ``Hos.11.12``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import numpy as np

from clirkit.datasets._bible import NT_BOOKS, VerseIndex, book_of, read_verses
from clirkit.datasets._nave import Casing, clean_heading, heading_texts, read_nave, title_case, topic_slug
from clirkit.datasets._store import VariantData, describe_counts, write_variant
from clirkit.errors import ClirkitError
from clirkit.progress import say
from clirkit.run import Qrels
from clirkit.sortedunique import sorted_unique

NAME = "nave-en-es"
SPLITS = ("train", "dev", "test")
# a topic citing more verses than this is too broad for "same topic" to mean relevant: no grade 1
GRADE1_MAX_TOPIC_VERSES = 200


def topic_split(key: str) -> str:
    """The split of a topic: SHA-256 of its UTF-8 name, first 8 bytes big-endian, mod 100."""
    bucket = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % 100
    return "train" if bucket < 80 else "dev" if bucket < 90 else "test"


def _source_paths(shared: str | os.PathLike[str]) -> dict[str, Path]:
    data = Path(shared) / "data"
    paths = {
        "spanish": data / "bible" / "spaRV1909eb.tsv",
        "english": data / "bible" / "engWEB2015eb.tsv",
        "nave": data / "nave" / "nave.imp",
    }
    for p in paths.values():
        if not p.is_file():
            raise ClirkitError(f"{p}: no such file (is --shared the folder holding data/bible and data/nave?)")
    return paths


class _CitedSubtopics:
    """The queries, one per Nave subtopic citing at least one RV1909 verse, in topic order: ``qids``, ``texts``,
    ``splits``, each one's ``topic`` (its position in ``topics``) and cited verse ``positions`` (sorted, distinct);
    and the counts of the references read (``n_refs``), ``dropped`` (covering no verse), the subtopics citing
    (``n_citing``) and those left without a verse (``n_lost_subtopics``)."""

    def __init__(self, topics: list, verses: VerseIndex, casing: Casing, nave_path: Path) -> None:
        self.n_refs = 0
        self.dropped: list[str] = []
        self.n_lost_subtopics = 0
        self.n_citing = 0
        self.qids: list[str] = []
        self.texts: list[str] = []
        self.splits: list[str] = []
        self.topic: list[int] = []
        self.positions: list[np.ndarray] = []
        slugs: dict[str, str] = {}
        for t, topic in enumerate(topics):
            slug = topic_slug(topic.key)
            if slugs.setdefault(slug, topic.key) != topic.key:
                raise ClirkitError(f"topics {slugs[slug]!r} and {topic.key!r} give the same query-id prefix {slug}")
            title = title_case(topic.key)
            split = topic_split(topic.key)
            for sub in topic.subtopics:
                if not sub.refs:
                    continue
                self.n_citing += 1
                found = self._cited(sub.refs, verses, f"{nave_path}: topic {topic.key}")
                if not found:
                    self.n_lost_subtopics += 1
                    continue
                heading = clean_heading(sub.heading, casing)
                self.qids.append(f"{slug}.{sub.number}")
                self.texts.append(f"{title}: {heading}" if heading else title)
                self.splits.append(split)
                self.topic.append(t)
                self.positions.append(np.array(sorted(set(found)), dtype=np.int64))

    def _cited(self, refs: list[str], verses: VerseIndex, where: str) -> list[int]:
        """The verse positions ``refs`` cover, counting the references and keeping those covering none."""
        found: list[int] = []
        for ref in refs:
            self.n_refs += 1
            pos = verses.expand(ref)
            if pos is None:
                raise ClirkitError(f"{where}: malformed reference {ref!r}")
            if not pos:
                self.dropped.append(ref)
            found.extend(pos)
        return found


def _judgments(q_topic: list[int], q_positions: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The judgment rows ``(query, verse position, grade)``, rows per query in verse order: grade 2 = a verse the
    query cites, 1 = one its topic's other queries cite (none in a topic citing more than
    :data:`GRADE1_MAX_TOPIC_VERSES` verses); and the number of such broad topics."""
    q_topic_arr = np.asarray(q_topic)
    bounds = np.flatnonzero(np.diff(np.concatenate(([-1], q_topic_arr, [-1])))).tolist()
    row_q: list[np.ndarray] = []
    row_pos: list[np.ndarray] = []
    row_rel: list[np.ndarray] = []
    n_broad_topics = 0
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        union = sorted_unique(np.concatenate(q_positions[lo:hi]))
        broad = len(union) > GRADE1_MAX_TOPIC_VERSES
        n_broad_topics += broad
        for q in range(lo, hi):
            own = q_positions[q]
            if broad:
                pos, rel = own, np.full(len(own), 2)
            else:
                pos = union
                rel = np.ones(len(union), dtype=np.int64)
                rel[np.searchsorted(union, own)] = 2
            row_q.append(np.full(len(pos), q, dtype=np.int64))
            row_pos.append(pos)
            row_rel.append(rel)
    return np.concatenate(row_q), np.concatenate(row_pos), np.concatenate(row_rel).astype(np.int64), n_broad_topics


def build(shared: str | os.PathLike[str], *, quiet: bool = False) -> dict[str, VariantData]:
    """Build both variants in memory from ``shared/data``; returns ``{"standard": ..., "strict": ...}``."""
    paths = _source_paths(shared)
    es_ids, es_texts = read_verses(paths["spanish"])
    en_ids, en_texts = read_verses(paths["english"])
    topics = read_nave(paths["nave"])
    say(f"read {len(es_ids):,} Spanish and {len(en_ids):,} English verses, {len(topics):,} Nave topics", quiet=quiet)
    verses = VerseIndex(es_ids)
    casing = Casing(en_texts, heading_texts(topics))

    cited = _CitedSubtopics(topics, verses, casing, paths["nave"])
    qids, texts, splits, q_topic = cited.qids, cited.texts, cited.splits, cited.topic
    r_q, r_pos, r_rel, n_broad_topics = _judgments(q_topic, cited.positions)

    qid_arr = np.asarray(qids)
    split_arr = np.asarray(splits)
    es_id_arr = np.asarray(es_ids)
    is_nt = np.fromiter((book_of(v) in NT_BOOKS for v in es_ids), dtype=bool, count=len(es_ids))
    en_text = dict(zip(en_ids, en_texts))
    shared_ids = [v for v in es_ids if v in en_text]
    pair_es = [es_texts[verses.position[v]] for v in shared_ids]
    pair_en = [en_text[v] for v in shared_ids]
    pair_nt = np.fromiter((book_of(v) in NT_BOOKS for v in shared_ids), dtype=bool, count=len(shared_ids))

    extra = {
        "subtopics_citing": cited.n_citing,
        "references": cited.n_refs,
        "references_dropped": len(cited.dropped),
        "dropped": sorted(set(cited.dropped)),
        "subtopics_without_verse": cited.n_lost_subtopics,
        "topics": len(set(q_topic)),
        "broad_topics_without_grade1": n_broad_topics,
    }
    description = (
        "English Nave's Topical Bible subtopics -> Spanish Reina-Valera 1909 verses; "
        "grade 2 = cited by the subtopic, 1 = cited by another subtopic of the topic"
    )

    books = list(dict.fromkeys(book_of(v) for v in es_ids))
    subsets_strict = {
        "documents": {"subset_of": "../standard/documents.tsv.gz", "books": [b for b in books if b in NT_BOOKS]},
        "parallel": {"subset_of": "../standard/parallel.tsv.gz", "books": [b for b in books if b not in NT_BOOKS]},
    }

    def variant(name: str, doc_mask: np.ndarray, pair_mask: np.ndarray, subsets: dict) -> VariantData:
        keep_row = doc_mask[r_pos]
        rq, rp, rr = r_q[keep_row], r_pos[keep_row], r_rel[keep_row]
        alive = np.zeros(len(qids), dtype=bool)
        alive[rq] = True
        queries: dict[str, dict[str, str]] = {}
        qrels: dict[str, Qrels] = {}
        for s in SPLITS:
            in_split = alive & (split_arr == s)
            queries[s] = {qids[i]: texts[i] for i in np.flatnonzero(in_split).tolist()}
            rows = in_split[rq]
            qrels[s] = Qrels(qid_arr[rq[rows]], es_id_arr[rp[rows]], rr[rows])
        docs = np.flatnonzero(doc_mask).tolist()
        pairs = np.flatnonzero(pair_mask).tolist()
        return VariantData(
            name=NAME,
            variant=name,
            source_lang="en",
            target_lang="es",
            description=description,
            docids=[es_ids[i] for i in docs],
            doc_texts=[es_texts[i] for i in docs],
            pair_ids=[shared_ids[i] for i in pairs],
            pair_sources=[pair_en[i] for i in pairs],
            pair_targets=[pair_es[i] for i in pairs],
            queries=queries,
            qrels=qrels,
            extra_counts=dict(extra, queries_dropped_without_relevant_document=int((~alive).sum())),
            subsets=subsets,
        )

    return {
        "standard": variant("standard", np.ones(len(es_ids), dtype=bool), np.ones(len(shared_ids), dtype=bool), {}),
        "strict": variant("strict", is_nt, ~pair_nt, subsets_strict),
    }


def describe(manifests: dict[str, dict]) -> str:
    """The counts block quoted in this module's docstring and in ``datasets/README.md``."""
    c = manifests["standard"]["counts"]
    strict = manifests["strict"]["counts"]
    head = (
        f"references {c['references']:,} in {c['subtopics_citing']:,} subtopics citing >= 1 verse; "
        f"{c['references_dropped']:,} dropped (no RV1909 verse), leaving {c['subtopics_without_verse']:,} "
        f"subtopics without a verse; {c['topics']:,} topics give queries; "
        f"{c['broad_topics_without_grade1']:,} broad topics (> {GRADE1_MAX_TOPIC_VERSES} verses) have no grade 1; "
        f"strict drops {strict['queries_dropped_without_relevant_document']:,} queries without a relevant NT verse"
    )
    return "\n".join([head, describe_counts("standard", c), describe_counts("strict", strict)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clirkit.datasets.build_nave", description=__doc__.split("\n")[0])
    parser.add_argument("--shared", required=True, help="the shared folder holding data/bible and data/nave")
    parser.add_argument("-o", "--output", required=True, help="output folder (gets standard/ and strict/)")
    parser.add_argument("--quiet", action="store_true", help="no messages on stderr")
    args = parser.parse_args(argv)
    try:
        variants = build(args.shared, quiet=args.quiet)
        manifests = {name: write_variant(data, Path(args.output) / name) for name, data in variants.items()}
        say(describe(manifests), quiet=args.quiet)
    except ClirkitError as exc:
        print(f"build_nave: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
