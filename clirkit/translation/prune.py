"""Pruning and interpolation of translation tables (SPEC §4, steps 1-2), vectorized over CSR rows."""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
import scipy.sparse as sp

from clirkit.sortedunique import sorted_unique
from clirkit.translation.arguments import TableArgumentError, fraction, whole, word_list
from clirkit.translation.table import TranslationTable, normalize_rows

#: Slack when comparing a running sum with the cumulative threshold C, so that options whose
#: probabilities sum to C in exact arithmetic (0.5 + 0.45 = 0.95) count as reaching it.
CUMULATIVE_TOLERANCE = 1e-12


def prune(
    table: TranslationTable,
    *,
    min_prob: float = 0.005,
    cumulative: float | None = 0.95,
    max_options: int | None = None,
    target_stopwords: Iterable[str] | None = None,
    renormalize: bool = True,
) -> TranslationTable:
    """Prune each source word's options as SPEC §4 step 2 says, in this order:

    1. drop options with p(e|f) < ``min_prob`` (L), except that a row whose every option is below L keeps its
       most probable ones (all of a uniform row: a dictionary word with more than 1/L translations);
    2. drop options whose target word is in ``target_stopwords`` (a list of words, not a str);
    3. sort the rest by p descending (ties: dictionary rank, ranked first, then target word ascending,
       as :meth:`TranslationTable.translations`) and keep the shortest prefix
       whose running sum of p reaches ``cumulative`` (C), the option that crosses C included
       (all are kept when they never reach C; ``None`` disables this step);
    4. keep at most ``max_options`` (M) of that prefix (``None``: no limit);
    5. renormalize each row to sum 1 (unless ``renormalize=False``).

    The running sums use the probabilities as they are in the table (before renormalizing).
    A row that loses all its options stays in the vocabulary, empty. The kept options keep their ranks.
    """
    min_prob = fraction("min_prob", min_prob)
    cumulative = None if cumulative is None else fraction("cumulative", cumulative, zero=False)
    max_options = None if max_options is None else whole("max_options", max_options, minimum=1)
    target_stopwords = word_list("target_stopwords", target_stopwords)
    p = table.probs
    rows = np.repeat(np.arange(table.n_source), np.diff(p.indptr))
    cols, vals, rank_keys = p.indices.astype(np.int64), p.data, table._rank_keys()
    keep = vals >= min_prob
    if len(vals) and not keep.all():
        counts = np.diff(p.indptr)
        filled = counts > 0
        row_max = np.zeros(table.n_source)
        row_max[filled] = np.maximum.reduceat(vals, p.indptr[:-1][filled])
        emptied = np.bincount(rows[keep], minlength=table.n_source) == 0
        keep |= emptied[rows] & (vals == row_max[rows])
    if target_stopwords:
        stop_cols = np.flatnonzero(np.isin(table.target_vocab, np.asarray(sorted(set(target_stopwords)), dtype=str)))
        keep &= ~np.isin(cols, stop_cols)
    rows, cols, vals, rank_keys = rows[keep], cols[keep], vals[keep], rank_keys[keep]

    order = np.lexsort((cols, rank_keys, -vals, rows))
    rows, cols, vals, rank_keys = rows[order], cols[order], vals[order], rank_keys[order]
    counts = np.bincount(rows, minlength=table.n_source)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(len(rows)) - starts[rows]  # 0-based position within the row
    keep = np.ones(len(rows), dtype=bool)
    if cumulative is not None and len(rows):
        keep &= _mass_before(vals, starts, counts) < cumulative - CUMULATIVE_TOLERANCE
    if max_options is not None:
        keep &= rank < max_options
    rows, cols, vals, rank_keys = rows[keep], cols[keep], vals[keep], rank_keys[keep]
    matrix = sp.csr_matrix((vals, (rows, cols)), shape=p.shape)
    ranks = None
    if table.ranks is not None:
        ranked = rank_keys < np.iinfo(np.int64).max
        ranks = sp.csr_matrix((rank_keys[ranked], (rows[ranked], cols[ranked])), shape=p.shape, dtype=np.int64)
    if renormalize:
        matrix = normalize_rows(matrix)
    params = {
        **table.params,
        "pruning": {
            "min_prob": min_prob,
            "cumulative": cumulative,
            "max_options": max_options,
            "n_target_stopwords": len(set(target_stopwords)),
            "renormalized": renormalize,
        },
    }
    return TranslationTable(table.source_vocab, table.target_vocab, matrix, params, ranks)


def interpolate(first: TranslationTable, second: TranslationTable, lam: float | np.ndarray = 0.6) -> TranslationTable:
    """p(e|f) = lam p1(e|f) + (1 - lam) p2(e|f) over the union of both tables' words and options,
    then each row renormalized to sum 1 (SPEC §4 step 1). A word known to one table only thus
    keeps that table's distribution (renormalized). ``lam`` is one weight, or one per source word of
    ``first`` (a float array aligned with ``first.source_vocab``, each in [0, 1]: see
    :func:`coverage_weights`; a word the second table lacks then keeps the first's distribution even at 0). The
    result keeps ``first``'s parameters
    (e.g. its analyzers) and records the second table's under ``params["interpolation"]``; its
    languages are the ones either table records (a ClirkitError when they record different ones), and
    its dictionary ranks are the first table's if it has any, else the second's."""
    per_word = np.ndim(lam) > 0
    try:
        weights = np.asarray(lam, dtype=np.float64)
    except (TypeError, ValueError):
        raise TableArgumentError(f"lam must be a number in [0, 1] or one per source word, got {lam!r}") from None
    if per_word and weights.shape != (first.n_source,):
        raise TableArgumentError(
            f"lam: per-word lambdas must be one per source word of the first table ({first.n_source}), "
            f"got shape {weights.shape}"
        )
    if not (np.all(weights >= 0.0) and np.all(weights <= 1.0)):
        raise TableArgumentError(f"lam must be in [0, 1], got {lam if not per_word else 'values outside it'}")
    languages = {}
    for key in ("source_lang", "target_lang"):
        a, b = first.params.get(key), second.params.get(key)
        if a and b and a != b:
            raise TableArgumentError(
                f"the tables do not translate between the same languages: {key} is {a!r} in "
                f"the first, {b!r} in the second"
            )
        languages[key] = a or b or None
    src = sorted_unique(np.concatenate((first.source_vocab, second.source_vocab)))
    tgt = sorted_unique(np.concatenate((first.target_vocab, second.target_vocab)))

    def embed(table: TranslationTable, row_weights: np.ndarray) -> sp.csr_matrix:
        """``table``'s rows scaled by ``row_weights`` (one per row of ``src``), in the union's shape."""
        p = table.probs.tocoo()
        r = np.searchsorted(src, table.source_vocab)[p.row]
        c = np.searchsorted(tgt, table.target_vocab)[p.col]
        return sp.csr_matrix((row_weights[r] * p.data, (r, c)), shape=(len(src), len(tgt)))

    first_weight = np.full(len(src), float(weights) if not per_word else 0.0)
    if per_word:  # a word the second table does not know keeps the first's distribution, whatever its weight
        first_weight[np.searchsorted(src, first.source_vocab)] = np.where(
            np.isin(first.source_vocab, second.source_vocab), weights, 1.0
        )
    matrix = embed(first, first_weight) + embed(second, 1.0 - first_weight)
    matrix.eliminate_zeros()
    recorded = float(weights) if not per_word else "per source word"
    params = {**first.params, **languages, "interpolation": {"lambda": recorded, "second": second.params}}
    ranked = first if first.ranks is not None else second
    ranks = None
    if ranked.ranks is not None:
        r = ranked.ranks.tocoo()
        ranks = sp.csr_matrix(
            (
                r.data,
                (np.searchsorted(src, ranked.source_vocab)[r.row], np.searchsorted(tgt, ranked.target_vocab)[r.col]),
            ),
            shape=(len(src), len(tgt)),
            dtype=np.int64,
        )
    return TranslationTable(src, tgt, normalize_rows(matrix), params, ranks)


def _mass_before(vals: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """For entries grouped by row (row r at ``starts[r]:starts[r]+counts[r]``), the sum of the
    entries before each one in its row, added left to right within the row (exactly as a
    per-row loop would, with no cancellation across rows). Loops over positions, not rows."""
    before = np.zeros_like(vals)
    by_length = np.argsort(-counts, kind="stable")
    row_starts, lengths = starts[by_length], counts[by_length]
    negative_lengths = -lengths  # ascending, for searchsorted
    running = np.zeros(len(row_starts))
    for k in range(1, int(lengths[0]) if len(lengths) else 0):
        n = int(np.searchsorted(negative_lengths, -k, side="left"))  # rows with length > k
        idx = row_starts[:n] + k
        running[:n] += vals[idx - 1]
        before[idx] = running[:n]
    return before


def coverage_weights(table: TranslationTable, counts: Mapping[str, int], *, lam: float, mu: float) -> np.ndarray:
    """Per-word interpolation weights of a trained ``table`` for :func:`interpolate`: ``lam * n / (n + mu)``, n
    the word's count in the parallel text the table was trained on (``counts``: source word -> occurrences;
    an absent word counts 0). A word the corpus saw often keeps the weight ``lam``; a rare one leans on the
    second table (a dictionary), whose translations do not depend on the corpus's domain. ``mu`` is in
    occurrences (the count at which the weight is ``lam / 2``)."""
    n = np.array([counts.get(word, 0) for word in table.source_vocab.tolist()], dtype=np.float64)
    return lam * n / (n + mu) if mu > 0 else np.full(len(n), float(lam))
