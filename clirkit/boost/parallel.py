"""Extra training tuples: known-item queries from a parallel corpus, or (query text, document id, grade) triples.

When the documents are the target side of a sentence- or verse-aligned corpus,
each source sentence is a query whose aligned document is relevant (a known
item), so the phrase table learns pairs for words no training query holds.
"""

from __future__ import annotations

from typing import Container, Mapping, Sequence

import numpy as np

from clirkit.errors import ClirkitError, quoted
from clirkit.run import Qrels

PREFIX = "parallel:"  # query-id prefix of the known-item queries (kept apart from the collection's ids)


def known_item_queries(
    source_texts: Sequence[str],
    pair_ids: Sequence[str],
    docids: Sequence[str],
    *,
    target_texts: Sequence[str] | None = None,
    doc_texts: Sequence[str] | None = None,
    grade: int = 1,
    prefix: str = PREFIX,
) -> tuple[dict[str, str], Qrels]:
    """Known-item queries of the parallel pairs whose id is a document id.

    Args:
        source_texts: the source side of the parallel corpus (query language).
        pair_ids: the id of each pair; a pair is used when its id names a document.
        docids: the collection's document ids.
        target_texts, doc_texts: the target side and the documents' texts; when given, a pair
            is used only if its target text is its document's text (ids that merely collide
            are not alignments).
        grade: relevance grade of the aligned document.
        prefix: prepended to a pair id to make its query id.
    Returns:
        ``({query id: source text}, qrels)`` in corpus order, one judged document per query.
    """
    if len(source_texts) != len(pair_ids):
        raise ClirkitError(f"{len(pair_ids)} parallel pair ids but {len(source_texts)} source sentences")
    text_of = dict(zip(docids, doc_texts)) if doc_texts is not None else None
    known = set(docids)
    keep = [
        i
        for i, pid in enumerate(pair_ids)
        if pid in known
        and source_texts[i].strip()
        and (text_of is None or target_texts is None or text_of[pid].strip() == target_texts[i].strip())
    ]
    if not keep:
        raise ClirkitError(
            "no parallel pair is aligned to a document of the collection "
            "(known-item tuples need documents that are the corpus's target side); leave out "
            "--parallel-tuples for this collection"
        )
    queries = {prefix + pair_ids[i]: source_texts[i] for i in keep}
    ids = [pair_ids[i] for i in keep]
    return queries, Qrels([prefix + d for d in ids], ids, [grade] * len(ids))


_LAYOUT = "give one tuple a line: query text TAB document id TAB grade"
_GRADES = "; give an integer grade (0: not relevant; 1, 2, ...: relevant)"


def read_triples(path: str, known: Container[str] | None = None) -> tuple[dict[str, str], Qrels]:
    """Read ``query text TAB document id TAB grade`` lines (UTF-8, ``.gz`` fine).

    Lines with the same query text make one query (id ``triples:N``, N the line of
    its first appearance). Returns ``({query id: text}, qrels)``; a malformed line
    (a document id that cannot be one, or not in ``known`` when given) raises
    ClirkitError naming the file and line.
    """
    from clirkit.fileio import iter_lines
    from clirkit.formats import check_id

    queries: dict[str, str] = {}
    qid_of: dict[str, str] = {}
    qids, dids, grades = [], [], []
    first: dict[tuple[str, str], int] = {}  # the line of each (query, document) judged
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise ClirkitError(
                f"{path}:{lineno}: expected 3 tab-separated fields 'query text, document id, "
                f"grade', got {len(fields)}; {_LAYOUT}"
            )
        text, docid, grade = fields[0].strip(), fields[1].strip(), fields[2].strip()
        if not text or not docid:
            raise ClirkitError(f"{path}:{lineno}: empty query text or document id; {_LAYOUT}")
        check_id(path, lineno, docid, "document id")
        if known is not None and docid not in known:
            raise ClirkitError(
                f"{path}:{lineno}: document id {docid!r} is not among the documents; give the id of "
                f"one of the training documents (are these tuples of another collection?)"
            )
        try:
            g = int(grade)
        except ValueError:
            raise ClirkitError(f"{path}:{lineno}: grade {quoted(grade)} is not an integer{_GRADES}") from None
        if not -1000 <= g <= 1000:
            raise ClirkitError(f"{path}:{lineno}: grade {g} is out of range (-1000..1000){_GRADES}")
        qid = qid_of.setdefault(text, f"triples:{lineno}")
        queries[qid] = text
        if (qid, docid) in first:
            raise ClirkitError(
                f"{path}:{lineno}: query and document {docid!r} already judged on line "
                f"{first[(qid, docid)]}; keep one of the two lines"
            )
        first[(qid, docid)] = lineno
        qids.append(qid), dids.append(docid), grades.append(g)
    if not qids:
        raise ClirkitError(f"{path}: no (query text, document id, grade) line: check the path ({_LAYOUT})")
    return queries, Qrels(qids, dids, grades)


def merge_queries(parts: Sequence[tuple[Mapping[str, str], Qrels]]) -> tuple[dict[str, str], Qrels]:
    """One ``({query id: text}, qrels)`` from several (e.g. known-item queries and a triples file);
    a query id in two parts is an error."""
    queries: dict[str, str] = {}
    for qs, _ in parts:
        clash = set(queries) & set(qs)
        if clash:
            raise ClirkitError(f"extra query id {sorted(clash)[0]!r} comes from two sources")
        queries.update(qs)
    return queries, Qrels(*(np.concatenate([getattr(r, f) for _, r in parts]) for f in ("qids", "docids", "rels")))
