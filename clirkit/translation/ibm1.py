"""IBM Model 1 trained by EM, vectorized over the whole corpus with numpy and scipy.sparse.

Model 1 (Brown et al. 1993) explains each target word e_j of a sentence pair as
translated from one of the source words f_0 = NULL, f_1 .. f_l chosen uniformly,
with probability t(e|f). One EM iteration computes, for every pair k, every
distinct target word e (m_k(e) occurrences) and every distinct source word f
(n_k(f) occurrences, NULL once):

    posterior count   c_k(e, f) = m_k(e) * n_k(f) t(e|f) / Z_k(e),   Z_k(e) = sum_f' n_k(f') t(e|f')
    new table         t(e|f) = sum_k c_k(e, f) / sum_e' sum_k c_k(e', f)

The corpus is laid out once as "incidences" (one per pair k, distinct target word e
of k -- a *slot* -- and distinct source word f of k), grouped by word pair (f, e) into
a sparse matrix M (co-occurring word pairs x slots, CSR, slots ascending within a row).
An iteration is then a pass writing n_k(f) t(e|f) into M's values, and two sparse
matrix-vector products over it, with no Python loop over pairs:

    Z = M^T 1,   counts = M (m / Z),   t = counts / (sums of counts by f)

The sums are taken in a fixed order (Z over a slot's source words, ascending; counts
over a word pair's slots, in corpus order; the totals over f's target words, ascending),
so that the table is reproducible bit for bit.

EM starts from the uniform table, so training is deterministic: there is no
seed, and the same corpus always gives the same table.
"""

from __future__ import annotations

from itertools import chain
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.progress import progress, say
from clirkit.translation.arguments import TableArgumentError, sequence, whole
from clirkit.translation.table import NULL, TranslationTable


def _checked_sentences(sentences, side: str) -> list | tuple:
    """``sentences`` as a list or tuple of token lists (an iterable read once); TableArgumentError naming ``side``
    and the first sentence that is not a list (or tuple) of tokens."""
    sentences = sequence(side, sentences)
    for k, sentence in enumerate(sentences):
        if isinstance(sentence, str) or not isinstance(sentence, (list, tuple)):
            raise TableArgumentError(f"{side}: sentence {k} must be a list of tokens, got {type(sentence).__name__}")
    return sentences


def _count_matrix(sentences: Sequence[Sequence[str]], extra: str | None = None) -> tuple[np.ndarray, sp.csr_matrix]:
    """The sorted vocabulary (str array) of ``sentences`` (plus the word ``extra``, added once to every
    sentence) and the CSR (n_sentences x n_vocab) float64 matrix of token counts (canonical: sorted, summed)."""
    flat = list(chain.from_iterable(sentences))
    words = sorted(set(flat).union([extra] if extra is not None else []))
    index = dict(zip(words, range(len(words))))
    n = len(sentences)
    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=n)
    cols = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
    rows = np.repeat(np.arange(n), lengths)
    if extra is not None:
        rows = np.concatenate([rows, np.arange(n)])
        cols = np.concatenate([cols, np.full(n, index[extra])])
    m = sp.csr_matrix((np.ones(len(cols)), (rows, cols)), shape=(n, len(words)))
    m.sum_duplicates()
    m.sort_indices()
    return np.asarray(words, dtype=str), m


def _index_dtype(n: int) -> type:
    return np.int32 if n < 2**31 else np.int64


def _sort_incidences(
    keys: np.ndarray, slots: np.ndarray, nf: np.ndarray, key_max: int, n_slots: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The incidences sorted by word pair, then slot.

    Args:
        keys: int64 array, each incidence's word pair key in [0, ``key_max``) (overwritten).
        slots: integer array, each incidence's slot in [0, ``n_slots``), ascending (incidences come in slot
            order; a slot holds a word pair once).
        nf: unsigned integer array, each incidence's n_k(f).

    Returns:
        ``(keys, slots, nf)`` rearranged so that keys ascend, and slots within a key. When the three fit
        together in 63 bits they are packed into one int64 and sorted by value (several times faster than
        ``np.argsort`` and the gathers it needs), else by ``np.argsort(keys, kind="stable")``.
    """
    key_bits, slot_bits = max(1, key_max - 1).bit_length(), max(1, n_slots - 1).bit_length()
    nf_bits = max(1, int(nf.max(initial=0)).bit_length())
    if key_bits + slot_bits + nf_bits > 63:
        order = np.argsort(keys, kind="stable")
        return keys[order], slots[order], nf[order]
    keys <<= slot_bits
    keys |= slots
    keys <<= nf_bits
    keys |= nf
    keys.sort()
    nf = (keys & ((1 << nf_bits) - 1)).astype(nf.dtype)
    keys >>= nf_bits
    slots = (keys & ((1 << slot_bits) - 1)).astype(slots.dtype)
    keys >>= slot_bits
    return keys, slots, nf


class _WordPairs:
    """The layout EM runs over: the incidences (a sentence pair k, a distinct target word e of k, a distinct source
    word f of k) grouped by word pair (f, e), ascending by f then e, each group in slot order (a slot: a pair k and a
    distinct e of k).

    Attributes:
        M: CSR word pairs x slots, an entry per incidence (its values a work space, n_k(f) t(e|f)).
        pair_f, pair_e: each word pair's source and target word; pair_len: its number of incidences.
        inc_nf: each incidence's n_k(f), in M's order; n_inc: their number.
        slot_m: each slot's m_k(e); slot_len: each slot's l_k (+1 with NULL).
    """

    def __init__(self, S: sp.csr_matrix, T: sp.csr_matrix) -> None:
        n_src, n_tgt, n_slots = S.shape[1], T.shape[1], T.nnz
        # incidences in slot order: for each target slot (pair k, distinct e), every distinct source word of k
        slot_pair = np.repeat(np.arange(S.shape[0]), np.diff(T.indptr))
        reps = np.diff(S.indptr)[slot_pair]
        slot_start = np.cumsum(reps) - reps
        n_inc = int(reps.sum())
        src_entry = np.repeat(S.indptr[:-1][slot_pair] - slot_start, reps)
        src_entry += np.arange(n_inc)
        inc_nf = S.data.astype(np.min_scalar_type(int(S.data.max(initial=0))))[src_entry]  # n_k(f): exact
        keys = S.indices[src_entry].astype(np.int64)
        del src_entry
        keys *= n_tgt
        inc_slot = np.repeat(np.arange(n_slots, dtype=_index_dtype(n_inc)), reps)  # (n_inc >= n_slots)
        keys += T.indices[inc_slot]  # f * n_tgt + e
        # grouped by word pair (the distinct keys, ascending: by f, then e), each group in slot order
        keys, inc_slot, self.inc_nf = _sort_incidences(keys, inc_slot, inc_nf, n_src * n_tgt, n_slots)
        del inc_nf
        first = np.empty(n_inc, dtype=bool)
        first[:1] = True
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
        pair_start = np.flatnonzero(first)
        pair_keys = keys[pair_start]
        del keys, first
        self.n_inc = n_inc
        self.pair_len = np.diff(np.append(pair_start, n_inc))
        self.M = sp.csr_matrix(
            (np.empty(n_inc), inc_slot, np.append(pair_start, n_inc).astype(inc_slot.dtype)),
            shape=(len(pair_keys), n_slots),
        )  # word pairs x slots
        del inc_slot
        self.pair_f = pair_keys // n_tgt
        self.pair_e = pair_keys % n_tgt
        self.slot_m = T.data  # m_k(e)
        self.slot_len = np.asarray(S.sum(axis=1)).ravel()[slot_pair]  # l_k (+1 with NULL)

    def slot_mass(self, t: np.ndarray) -> np.ndarray:
        """Z_k(e) = sum_f n_k(f) t(e|f) for every slot, leaving n_k(f) t(e|f) in M's values."""
        np.multiply(np.repeat(t, self.pair_len), self.inc_nf, out=self.M.data)
        return self.M.T @ np.ones(len(self.pair_f))

    def log_likelihood_of(self, z: np.ndarray) -> float:
        return float(np.sum(self.slot_m * np.log(z / self.slot_len)))


def _em(pairs: _WordPairs, n_src: int, iterations: int, quiet: bool) -> tuple[np.ndarray, list[float]]:
    """t(e|f) of every word pair after ``iterations`` of EM from the uniform start, and the corpus log-likelihood
    after each iteration (none for 0 iterations: t is then uniform over each f's co-occurring e)."""
    pair_f = pairs.pair_f
    t = np.ones(len(pair_f))  # uniform start (the constant cancels)
    log_likelihood = []
    for it in progress(range(iterations), desc="IBM Model 1 EM", total=iterations, quiet=quiet, unit="iter"):
        z = pairs.slot_mass(t)
        if it:
            log_likelihood.append(pairs.log_likelihood_of(z))
        counts = pairs.M @ (pairs.slot_m / z)  # sum_k c_k(e, f) for every word pair
        totals = np.bincount(pair_f, weights=counts, minlength=n_src)
        t = counts / totals[pair_f]
    if iterations == 0:
        t = 1.0 / np.bincount(pair_f, minlength=n_src).astype(np.float64)[pair_f]
    else:
        log_likelihood.append(pairs.log_likelihood_of(pairs.slot_mass(t)))
    return t, log_likelihood


def train_ibm1(
    source: Sequence[Sequence[str]],
    target: Sequence[Sequence[str]],
    *,
    iterations: int = 5,
    null: bool = True,
    quiet: bool = True,
) -> TranslationTable:
    """Train t(e|f) (target word e given source word f) with IBM Model 1.

    Args:
        source: tokenized source sentences (each a list of str; any iterable of them, read once).
        target: tokenized target sentences, aligned with ``source``.
        iterations: EM iterations (5 is the usual setting).
        null: add the NULL source word (spelled ``NULL``) to every source sentence.
        quiet: no progress bar.

    Returns:
        A :class:`TranslationTable` whose rows (source words, NULL included) sum to 1;
        only word pairs that co-occur in some sentence pair have a probability.
        ``params["log_likelihood"]`` lists, after each iteration, the corpus log-likelihood
        sum_k sum_j ln(sum_i t(e_j|f_i) / (l_k + 1)) (without the sentence-length term);
        EM never lets it decrease.

    Pairs with an empty side are skipped (counted in ``params["n_pairs_skipped"]``); no pair at all is a
    :class:`~clirkit.translation.arguments.TableArgumentError` (``source: empty parallel corpus``).
    Memory: about 45 bytes per incidence at the peak, during the layout, 21 while iterating (an incidence
    per sentence pair, distinct target word and distinct source word, ``params["n_incidences"]``: 13M for
    the 31k Bible verse pairs of ``nave-en-es``, a peak of about 570 MB).
    """
    source, target = _checked_sentences(source, "source"), _checked_sentences(target, "target")
    if len(source) != len(target):
        raise TableArgumentError(f"{len(source)} source sentences but {len(target)} target sentences")
    if not source:  # (as ttable train refuses an empty file)
        raise TableArgumentError("source: empty parallel corpus: give at least one pair of sentences")
    iterations = whole("iterations", iterations, minimum=0)
    src = [s for s, e in zip(source, target) if len(s) and len(e)]
    tgt = [e for s, e in zip(source, target) if len(s) and len(e)]

    src_vocab, S = _count_matrix(src, NULL if null else None)
    tgt_vocab, T = _count_matrix(tgt)
    n_src, n_tgt = len(src_vocab), len(tgt_vocab)
    pairs = _WordPairs(S, T)
    t, log_likelihood = _em(pairs, n_src, iterations, quiet)
    pair_f, pair_e, n_inc, n_pairs = pairs.pair_f, pairs.pair_e, pairs.n_inc, len(pairs.pair_f)
    del pairs

    indptr = np.concatenate([[0], np.cumsum(np.bincount(pair_f, minlength=n_src))])
    probs = sp.csr_matrix((t, pair_e, indptr), shape=(n_src, n_tgt))
    params = {
        "model": "ibm1",
        "iterations": iterations,
        "null": null,
        "init": "uniform",
        "n_pairs": len(src),
        "n_pairs_skipped": len(source) - len(src),
        "n_incidences": n_inc,
        "log_likelihood": log_likelihood,
    }
    say(
        f"IBM Model 1: {len(src)} pairs, {n_src} source x {n_tgt} target words, "
        f"{n_pairs} co-occurring pairs, {iterations} iterations",
        quiet=quiet,
    )
    return TranslationTable(src_vocab, tgt_vocab, probs, params)


FREQUENT_KEPT = 1000  # source words, most frequent first, recorded in a trained table (query stoplists)


def train_table(
    source: list[list[str]],
    target: list[list[str]],
    source_analyzer,
    target_analyzer,
    *,
    iterations: int = 5,
    null: bool = True,
    quiet: bool = True,
) -> TranslationTable:
    """:func:`train_ibm1` on token lists made by ``source_analyzer`` and ``target_analyzer``, recording in
    ``params`` both analyzers' settings (so queries are tokenized as the table's source side was) and the
    :data:`FREQUENT_KEPT` most frequent source words, most frequent first (ties by word): the stoplist of
    the ``source_stopwords_top`` option of DT and PSQ, derived from the corpus, no language resource needed.
    ``params["source_lang"]`` and ``["target_lang"]`` are the two analyzers' languages."""
    from clirkit.analysis import frequent_terms

    table = train_ibm1(source, target, iterations=iterations, null=null, quiet=quiet)
    table.params.update(
        {
            "source_analyzer": source_analyzer.to_dict(),
            "target_analyzer": target_analyzer.to_dict(),
            "source_lang": source_analyzer.lang,
            "target_lang": target_analyzer.lang,
            "source_frequent": frequent_terms(source, FREQUENT_KEPT),
        }
    )
    return table
