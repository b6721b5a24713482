"""PSQ (probabilistic structured queries; Darwish & Oard 2003, Ture et al. 2012; SPEC §4).

Each source query term f becomes a distribution p(e|f) over target terms, and BM25 runs on
tf~(f,d) = sum_e p(e|f) tf(e,d) and df~(f) = sum_e p(e|f) df(e), weighted by f's query tf.
This module translates the queries; :mod:`clirkit.docpsq` translates the documents instead (the reference
implementation's way, and :class:`clirkit.systems.PSQ`'s default whenever the table comes from the documents'
language). Each side has its own pruning and scoring, :data:`SIDE_DEFAULTS` (the document side's: L = 1e-4,
C = 0.99, at most 64 options, the smoothed query likelihood of :mod:`clirkit.retrieval.lm`). The steps here, in order:

1. :func:`prepare_table`: optional interpolation of two tables with ``lam`` (0.5), then each row renormalized,
   then pruning (the query side's defaults: min probability L = 0.1, the target stoplists if any, cumulative
   C = 0.95 keeping the option that crosses C, no limit on the number of options; renormalized);
2. :func:`psq_queries`: for each distinct source term of a query, the table row restricted to the
   target index's vocabulary. A source term that is not a source word of the table passes through
   as itself with p = 1 (names, numbers; ``unknown="drop"`` drops it instead). A known term whose
   options were all pruned contributes nothing; a query left with no option at all by the target
   stoplists is translated without them (``unfiltered``), never silently emptied.

Translations absent from the index contribute nothing. By default their probability mass is *kept*
(cclir's choice, clirkit's default): p(e|f) is the model's belief, and when f's likely translations
never occur in the collection the evidence that a document is about f really is weaker;
renormalizing over the in-vocabulary options (Ivory's choice, ``renormalize_in_vocabulary=True``)
would instead inflate rare, often noisy options to full weight (an option of p = 0.01 alone in the
vocabulary becomes p = 1).

IBM Model 1 tables give target function words mass in every row (English "house": casa .85, la .07, de
.04); kept as options, their huge df inflate df~ (flattening the idf of the term) and their tf adds to tf~ in
nearly every document. The query side's L = 0.1 drops most of that tail: across the 14 dev collections it tied
C = 0.6 for the best mean and was the most even across resources (baselines/README.md, "Defaults across
collections"), and the target stoplists
(``target_stopwords="snowball"``, or the N most frequent index terms, ``--target-stopwords-top N``) are options,
off by default: the top 100 index terms, on by default until 2026-11-25, hold content words on the Bible and on
short sentences, and every term of a small collection.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.retrieval.query import StructuredQueries
from clirkit.sortedunique import sorted_unique
from clirkit.translation.phrases import join_phrases
from clirkit.translation.prune import interpolate, prune
from clirkit.translation.table import NULL, TranslationTable, normalize_rows

# PSQ's defaults (clirkit.systems.PSQ reads them), chosen across collection kinds (baselines/README.md)
DEFAULT_MIN_PROB = 0.1
DEFAULT_CUMULATIVE = 0.95
DEFAULT_LAMBDA = 0.5
DOCUMENTS_MIN_PROB, DOCUMENTS_CUMULATIVE, DOCUMENTS_MAX_OPTIONS = 1e-4, 0.99, 64  # the document side's
SIDE_DEFAULTS = {
    "queries": {"min_prob": DEFAULT_MIN_PROB, "cumulative": DEFAULT_CUMULATIVE, "max_options": None, "scoring": "bm25"},
    "documents": {
        "min_prob": DOCUMENTS_MIN_PROB,
        "cumulative": DOCUMENTS_CUMULATIVE,
        "max_options": DOCUMENTS_MAX_OPTIONS,
        "scoring": "lm",
    },
}
"""What PSQ's ``"auto"`` pruning and scoring mean on each side it can translate (``translate``): the query side's
chosen across collection kinds (baselines/README.md, "Defaults across collections"); the document side's the
reference implementation's loose pruning with its smoothed query likelihood, which together were best on dev on
all 14 collections (baselines/README.md, "PSQ over translated documents")."""
MODES = ("psq", "pirkola", "all")


def prepare_table(
    table: TranslationTable,
    table2: TranslationTable | None = None,
    *,
    lam: float = DEFAULT_LAMBDA,
    min_prob: float = DEFAULT_MIN_PROB,
    cumulative: float | None = DEFAULT_CUMULATIVE,
    max_options: int | None = None,
    target_stopwords: Iterable[str] | None = None,
) -> TranslationTable:
    """SPEC §4 steps 1-2: interpolate ``table`` (weight ``lam``) with ``table2`` if given, then prune."""
    if table2 is not None:
        table = interpolate(table, table2, lam)
    return prune(
        table, min_prob=min_prob, cumulative=cumulative, max_options=max_options, target_stopwords=target_stopwords
    )


def project_to_vocabulary(
    table: TranslationTable, vocabulary: Mapping[str, int], *, renormalize: bool = False
) -> sp.csr_matrix:
    """The table's p(e|f) with columns re-indexed to ``vocabulary`` ids (n_source x len(vocabulary));
    options whose target word is not in ``vocabulary`` are dropped, and with ``renormalize``
    each row is rescaled to sum 1 over the options that remain."""
    col_map = np.fromiter(
        (vocabulary.get(w, -1) for w in table.target_vocab.tolist()), dtype=np.int64, count=table.n_target
    )
    p = table.probs
    rows = np.repeat(np.arange(table.n_source), np.diff(p.indptr))
    cols = col_map[p.indices]
    keep = cols >= 0
    matrix = sp.csr_matrix((p.data[keep], (rows[keep], cols[keep])), shape=(table.n_source, len(vocabulary)))
    return normalize_rows(matrix) if renormalize else matrix


def psq_queries(
    qids: Sequence[str],
    token_lists: Sequence[Sequence[str]],
    table: TranslationTable,
    vocabulary: Mapping[str, int],
    *,
    renormalize_in_vocabulary: bool = False,
    unknown: str = "pass",
    mode: str = "psq",
    unfiltered: TranslationTable | None = None,
    quiet: bool = True,
) -> StructuredQueries:
    """Structured queries for tokenized source queries from a (prepared) table.

    Args:
        qids, token_lists: the queries, tokenized with the table's source-side analyzer; the terms of a phrase
            of the table in a row become one term (:func:`clirkit.translation.phrases.join_phrases`).
        table: p(e|f), already interpolated/pruned by :func:`prepare_table`.
        vocabulary: the target index's term -> id.
        renormalize_in_vocabulary: rescale each term's in-vocabulary options to sum 1 (Ivory).
        unknown: ``pass`` (a term unknown to the table matches itself with p = 1) or ``drop``.
        mode: ``psq`` (p(e|f) weights), ``pirkola`` (Pirkola's structured query: a term's translations
            are synonyms, tf~ = sum_e tf(e,d) and df~ = the documents holding any of them, whatever p)
            or ``all`` (every translation its own query term with the source term's query tf: the
            naive dictionary baseline).
        unfiltered: the table prepared as ``table`` but without the target stoplists: a query that ``table`` leaves
            with no option at all (every translation of every word a target stopword) and that has some in
            ``unfiltered`` is translated by ``unfiltered`` instead, never silently emptied; the number of such
            queries is said on stderr, unless ``quiet``.

    Returns:
        One row per distinct source term of each query (in order of first occurrence), with
        its query tf as weight.
    """
    if unknown not in ("pass", "drop"):
        raise ValueError(f"unknown must be 'pass' or 'drop', got {unknown!r}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if len(qids) != len(token_lists):
        raise ValueError(f"{len(qids)} query ids but {len(token_lists)} token lists")
    if any(isinstance(tokens, str) for tokens in token_lists):
        raise TypeError("psq_queries expects lists of tokens, got a str")
    token_lists = join_phrases(token_lists, table.source_vocab)
    terms, weights, owners = [], [], []
    for qi, tokens in enumerate(token_lists):
        counts = Counter(tokens)  # keys in order of first occurrence
        terms.extend(counts)
        weights.extend(counts.values())
        owners.extend([qi] * len(counts))
    owners, weights = np.asarray(owners, dtype=np.int64), np.asarray(weights, dtype=np.float64)
    translated = _translated(terms, table, vocabulary, renormalize_in_vocabulary, unknown)
    if unfiltered is not None:
        translated = _refilled(
            translated, terms, owners, len(qids), unfiltered, vocabulary, renormalize_in_vocabulary, unknown, quiet
        )
    if mode == "pirkola":
        translated.data[:] = 1.0
    elif mode == "all":  # one row per (source term, translation), each a one-to-one term of its own
        counts = np.diff(translated.indptr)
        rows = np.repeat(np.arange(len(terms)), counts)
        one_each = sp.csr_matrix(
            (np.ones(translated.nnz), translated.indices, np.arange(translated.nnz + 1)),
            shape=(translated.nnz, translated.shape[1]),
        )
        names = [f"{terms[r]}->{i}" for r, i in zip(rows.tolist(), translated.indices.tolist())]
        return StructuredQueries(list(qids), owners[rows], weights[rows], one_each, names)
    return StructuredQueries(list(qids), owners, weights, translated, terms, df_union=mode == "pirkola")


def _translated(
    terms: Sequence[str], table: TranslationTable, vocabulary: Mapping[str, int], renormalize: bool, unknown: str
) -> sp.csr_matrix:
    """One row per term: its options in ``table`` over the ``vocabulary``'s ids (a term unknown to the table
    matching itself with p = 1 when ``unknown`` is ``pass``), sorted, no explicit zeros."""
    matrix = project_to_vocabulary(table, vocabulary, renormalize=renormalize)
    rows_of = table.source_index
    table_row = np.fromiter((rows_of.get(t, -1) if t != NULL else -1 for t in terms), dtype=np.int64, count=len(terms))
    known = table_row >= 0
    translated = matrix[np.where(known, table_row, 0)]
    translated = sp.diags(known.astype(np.float64)) @ translated
    if unknown == "pass":
        self_ids = np.fromiter((vocabulary.get(t, -1) for t in terms), dtype=np.int64, count=len(terms))
        passing = np.flatnonzero(~known & (self_ids >= 0))
        translated = translated + sp.csr_matrix(
            (np.ones(len(passing)), (passing, self_ids[passing])), shape=translated.shape
        )
    translated = sp.csr_matrix(translated)
    translated.eliminate_zeros()
    translated.sort_indices()
    return translated


def _refilled(
    translated: sp.csr_matrix,
    terms: Sequence[str],
    owners: np.ndarray,
    n_queries: int,
    unfiltered: TranslationTable,
    vocabulary: Mapping[str, int],
    renormalize: bool,
    unknown: str,
    quiet: bool,
) -> sp.csr_matrix:
    """``translated`` with the rows of each query it leaves empty (no option for any of its terms) made again from
    ``unfiltered``; the number of queries that gains options so is said on stderr (unless ``quiet``)."""
    from clirkit.progress import say

    options = np.bincount(owners, weights=np.diff(translated.indptr), minlength=n_queries)
    rows = np.flatnonzero(options[owners] == 0)
    if not len(rows):
        return translated
    again = _translated([terms[i] for i in rows], unfiltered, vocabulary, renormalize, unknown)
    refilled = sorted_unique(owners[rows][np.diff(again.indptr) > 0])
    if not len(refilled):
        return translated
    place = sp.csr_matrix((np.ones(len(rows)), (rows, np.arange(len(rows)))), shape=(len(terms), len(rows)))
    merged = sp.csr_matrix(translated + place @ again)  # the rows replaced were empty
    merged.sort_indices()
    say(
        f"{len(refilled)} of {n_queries} queries had only target stopwords among their translations: searched with "
        f"all their translations",
        quiet=quiet,
    )
    return merged
