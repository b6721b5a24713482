"""IBM Model 1 trained by EM, vectorized over the whole corpus with numpy.

Model 1 (Brown et al. 1993) explains each target word e_j of a sentence pair as
translated from one of the source words f_0 = NULL, f_1 .. f_l chosen uniformly,
with probability t(e|f). One EM iteration computes, for every pair k, every
distinct target word e (m_k(e) occurrences) and every distinct source word f
(n_k(f) occurrences, NULL once):

    posterior count   c_k(e, f) = m_k(e) * n_k(f) t(e|f) / Z_k(e),   Z_k(e) = sum_f' n_k(f') t(e|f')
    new table         t(e|f) = sum_k c_k(e, f) / sum_e' sum_k c_k(e', f)

The corpus is laid out once as flat arrays of "incidences" (one per pair k,
distinct target word e of k, distinct source word f of k); an iteration is then
a gather, two ``np.bincount`` and a division, with no Python loop over pairs.

EM starts from the uniform table, so training is deterministic: there is no
seed, and the same corpus always gives the same table.
"""
from __future__ import annotations

from itertools import chain
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from clirkit.progress import progress, say
from clirkit.translation.table import NULL, TranslationTable


def _check_sentences(sentences: Sequence[Sequence[str]], side: str) -> None:
    for k, sentence in enumerate(sentences):
        if isinstance(sentence, str) or not isinstance(sentence, (list, tuple)):
            raise TypeError(f"{side} sentence {k} must be a list of tokens, got {type(sentence).__name__}")


def _count_matrix(sentences: Sequence[Sequence[str]], vocab_index: dict[str, int]) -> sp.csr_matrix:
    """CSR (n_sentences x n_vocab) of token counts, canonical (sorted, summed)."""
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
    cols = np.fromiter((vocab_index[t] for t in chain.from_iterable(sentences)), dtype=np.int64,
                       count=int(lengths.sum()))
    rows = np.repeat(np.arange(len(sentences)), lengths)
    m = sp.csr_matrix((np.ones(len(cols)), (rows, cols)), shape=(len(sentences), len(vocab_index)))
    m.sum_duplicates()
    m.sort_indices()
    return m


def _vocabulary(sentences: Sequence[Sequence[str]], extra: Sequence[str] = ()) -> tuple[np.ndarray, dict]:
    words = sorted(set(chain.from_iterable(sentences)).union(extra))
    return np.asarray(words, dtype=str), {w: i for i, w in enumerate(words)}


def train_ibm1(source: Sequence[Sequence[str]], target: Sequence[Sequence[str]], *,
               iterations: int = 5, null: bool = True, quiet: bool = True) -> TranslationTable:
    """Train t(e|f) (target word e given source word f) with IBM Model 1.

    Args:
        source: tokenized source sentences (each a list of str).
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

    Pairs with an empty side are skipped (counted in ``params["n_pairs_skipped"]``).
    """
    if len(source) != len(target):
        raise ValueError(f"{len(source)} source sentences but {len(target)} target sentences")
    if iterations < 0:
        raise ValueError(f"iterations must be >= 0, got {iterations}")
    _check_sentences(source, "source")
    _check_sentences(target, "target")
    keep = [k for k in range(len(source)) if len(source[k]) and len(target[k])]
    src = [list(source[k]) for k in keep]
    tgt = [list(target[k]) for k in keep]

    src_vocab, src_index = _vocabulary(src, [NULL] if null else [])
    tgt_vocab, tgt_index = _vocabulary(tgt)
    S = _count_matrix(src, src_index)
    if null:
        S = (S + sp.csr_matrix((np.ones(len(src)), (np.arange(len(src)), np.full(len(src), src_index[NULL]))),
                               shape=S.shape)).tocsr()
        S.sort_indices()
    T = _count_matrix(tgt, tgt_index)
    n_src, n_tgt = len(src_vocab), len(tgt_vocab)

    # incidences: for each target slot (pair k, distinct e), every distinct source word of k
    slot_pair = np.repeat(np.arange(len(src)), np.diff(T.indptr))
    reps = np.diff(S.indptr)[slot_pair]
    n_inc = int(reps.sum())
    inc_slot = np.repeat(np.arange(T.nnz, dtype=np.int64), reps)
    block_start = np.cumsum(reps) - reps
    src_entry = np.repeat(S.indptr[:-1][slot_pair] - block_start, reps) + np.arange(n_inc)
    inc_f = S.indices[src_entry].astype(np.int64)
    inc_nf = S.data[src_entry]
    del src_entry, block_start
    keys = inc_f * n_tgt + T.indices[inc_slot].astype(np.int64)
    del inc_f
    pair_keys, inc_pair = np.unique(keys, return_inverse=True)
    inc_pair = inc_pair.ravel().astype(np.int32 if len(pair_keys) < 2**31 else np.int64)
    del keys
    inc_slot = inc_slot.astype(np.int32 if T.nnz < 2**31 else np.int64)
    pair_f = pair_keys // n_tgt
    pair_e = pair_keys % n_tgt
    slot_m = T.data                                   # m_k(e)
    slot_len = np.asarray(S.sum(axis=1)).ravel()[slot_pair]   # l_k (+1 with NULL)

    def slot_mass(t: np.ndarray) -> np.ndarray:
        """Z_k(e) = sum_f n_k(f) t(e|f) for every target slot, and the weighted incidences."""
        num = inc_nf * t[inc_pair]
        return np.bincount(inc_slot, weights=num, minlength=T.nnz), num

    t = np.ones(len(pair_keys))                       # uniform start (the constant cancels)
    log_likelihood = []
    for it in progress(range(iterations), desc="IBM Model 1 EM", total=iterations, quiet=quiet,
                       unit="iter"):
        z, num = slot_mass(t)
        if it:
            log_likelihood.append(float(np.sum(slot_m * np.log(z / slot_len))))
        num *= (slot_m / z)[inc_slot]
        counts = np.bincount(inc_pair, weights=num, minlength=len(pair_keys))
        totals = np.bincount(pair_f, weights=counts, minlength=n_src)
        t = counts / totals[pair_f]
    if iterations == 0:
        t = 1.0 / np.bincount(pair_f, minlength=n_src).astype(np.float64)[pair_f]
    else:
        z, _ = slot_mass(t)
        log_likelihood.append(float(np.sum(slot_m * np.log(z / slot_len))))

    indptr = np.concatenate([[0], np.cumsum(np.bincount(pair_f, minlength=n_src))])
    probs = sp.csr_matrix((t, pair_e, indptr), shape=(n_src, n_tgt))
    params = {"model": "ibm1", "iterations": iterations, "null": null, "init": "uniform",
              "n_pairs": len(src), "n_pairs_skipped": len(source) - len(src),
              "n_incidences": n_inc, "log_likelihood": log_likelihood}
    say(f"IBM Model 1: {len(src)} pairs, {n_src} source x {n_tgt} target words, "
        f"{len(pair_keys)} co-occurring pairs, {iterations} iterations", quiet=quiet)
    return TranslationTable(src_vocab, tgt_vocab, probs, params)


FREQUENT_KEPT = 1000  # source words, most frequent first, recorded in a trained table (query stoplists)


def train_table(source: list[list[str]], target: list[list[str]], source_analyzer, target_analyzer, *,
                iterations: int = 5, null: bool = True, quiet: bool = True) -> TranslationTable:
    """:func:`train_ibm1` on token lists made by ``source_analyzer`` and ``target_analyzer``, recording in
    ``params`` both analyzers' settings (so queries are tokenized as the table's source side was) and the
    :data:`FREQUENT_KEPT` most frequent source words, most frequent first (ties by word): the stoplist of
    the ``source_stopwords_top`` option of DT and PSQ, derived from the corpus, no language resource needed.
    ``params["source_lang"]`` and ``["target_lang"]`` are the two analyzers' languages."""
    from clirkit.analysis import frequent_terms

    table = train_ibm1(source, target, iterations=iterations, null=null, quiet=quiet)
    table.params.update({"source_analyzer": source_analyzer.to_dict(), "target_analyzer": target_analyzer.to_dict(),
                         "source_lang": source_analyzer.lang, "target_lang": target_analyzer.lang,
                         "source_frequent": frequent_terms(source, FREQUENT_KEPT)})
    return table
