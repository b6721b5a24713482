"""A table's phrases counted in documents whose word order is gone: what translating the documents gives them.

A table's source word may be a phrase of several terms (:mod:`clirkit.translation.phrases`: a Chinese word the
segmenter cuts in two, a Korean word of three syllables made two bigrams, a dictionary's "ice cream"). A query
meets a phrase where its terms stand in a row; an index keeps each document's term counts only, so translating the
documents (:func:`clirkit.docpsq.project`) counts a phrase as often as its rarest term occurs in the document:

    tf(phrase, d) = min over the phrase's terms t of floor(tf(t, d) / m(t))

(``m(t)``: how many times t is in the phrase, 1 but for a Korean "하하하" cut into the bigrams "하하 하하"; the most
occurrences the document can hold; exact when its terms occur only together, as the pieces of one cut word mostly
do). The terms keep their own counts (and translations) beside the phrase's.

Chosen on the dev splits of ``gettext-en-{zh,ja,ko,th}`` (English queries, MUSE dictionary, no-flag ``clirkit psq``
translating the documents; dev MAP): phrases unused .5205 / .5314 / .4092 / .5756; counted and kept beside their
terms .5282 / .5318 / .5694 / .5756; counted and taken from their terms' counts (as joining a phrase in a query takes
its terms) .5265 / .5317 / .5680 / .5756 (below keeping them on zh, p .009, and ko, p .058).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from clirkit.sortedunique import sorted_unique
from clirkit.translation.phrases import PHRASE_JOINER, phrase_rows

#: How a translated index's record says its phrases were counted.
PHRASE_COUNT = "the fewest of their terms' counts"

#: Posting entries gathered at once while phrases are counted (bounds the memory of :func:`phrase_counts`).
GATHER = 1 << 24


def table_phrases(source_vocab: np.ndarray, terms: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The phrases of ``source_vocab`` (a table's sorted source words) whose every term is among ``terms`` (an
    index's sorted terms): ``(their rows in the table, each one's terms as rows of terms)``. The scan over the
    vocabulary is numpy's; only the phrases found are split."""
    words = np.asarray(source_vocab).astype(str)
    rows, members = [], []
    for row in phrase_rows(words).tolist():
        parts = np.asarray(words[row].split(PHRASE_JOINER))
        at = np.searchsorted(terms, parts)
        if np.all(at < len(terms)) and np.array_equal(terms[np.minimum(at, len(terms) - 1)], parts):
            rows.append(row)
            members.append(at)
    return np.asarray(rows, dtype=np.int64), members


def phrase_counts(tf: sp.csr_matrix, members: list[np.ndarray]) -> sp.csr_matrix:
    """Each phrase's count in each document (phrases x documents, float64): the fewest of its terms' counts, a term
    the phrase holds m times counting floor(count / m) (``tf``: terms x documents; ``members``: each phrase's terms
    as rows of ``tf``). Phrases are taken in groups whose terms' postings hold about :data:`GATHER` entries."""
    if not members:
        return sp.csr_matrix((0, tf.shape[1]), dtype=np.float64)
    longest = max(map(len, members))
    # each phrase's terms, the last repeated to the longest phrase's length (a term repeated by the padding keeps
    # its multiplicity in the phrase, so changes no minimum)
    ids = np.stack([np.concatenate([m, np.repeat(m[-1], longest - len(m))]) for m in members])
    times = np.stack([(row[:, None] == np.asarray(m)[None, :]).sum(axis=1) for row, m in zip(ids, members)])
    entries = np.diff(tf.indptr)[ids].sum(axis=1)
    bounds = np.searchsorted(np.cumsum(entries), np.arange(GATHER, entries.sum() + GATHER, GATHER), side="right")
    blocks, start = [], 0
    for stop in sorted_unique(np.append(np.minimum(bounds, len(ids)), len(ids))).tolist():
        if stop > start:
            counts = _held(tf, ids[start:stop, 0], times[start:stop, 0])
            for k in range(1, longest):
                counts = counts.minimum(_held(tf, ids[start:stop, k], times[start:stop, k]))
            blocks.append(sp.csr_matrix(counts))
            start = stop
    out = sp.vstack(blocks, format="csr")
    out.eliminate_zeros()
    return out


def _held(tf: sp.csr_matrix, rows: np.ndarray, times: np.ndarray) -> sp.csr_matrix:
    """The rows ``rows`` of ``tf`` (float64), each divided by how many ``times`` its term is in its phrase and
    rounded down where that is more than once (the occurrences of the phrase the term's count allows)."""
    part = sp.csr_matrix(tf[rows].astype(np.float64))
    if (times > 1).any():
        per_entry = np.repeat(times, np.diff(part.indptr))
        part.data = np.where(per_entry > 1, np.floor(part.data / per_entry), part.data)
    return part


def with_phrases(tf: sp.csr_matrix, members: list[np.ndarray]) -> sp.csr_matrix:
    """``tf`` (terms x documents) with the phrases' counts (:func:`phrase_counts`) as rows after the terms':
    (terms + phrases) x documents, float64. The terms keep their own counts."""
    out = sp.vstack([tf.astype(np.float64), phrase_counts(tf, members)], format="csr")
    out.sort_indices()
    return out
