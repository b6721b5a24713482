"""The compiled round from the product (clirkit.boost.productkernels, for tuples whose pairs are not mapped): every
round the same bits as numpy's sparse product, hash and ``np.add.at`` (W+/W-, stored gains, block maxima and
stale marks, weights, margins, chosen buckets and steps), whatever the hash width (buckets of several pairs),
rule, document weights, slice and chunk sizes, renormalization, bucket index (kept pairs or streamed) and budget;
its MurmurHash3 is mmh3's and its bucket positions the indexes' own."""

from __future__ import annotations

import struct

import mmh3
import numpy as np
import pytest
import scipy.sparse as sp
from test_boost_speed_rounds import assert_same as same_rounds
from test_boost_speed_rounds import problem

import clirkit.boost.pairmap as pairmap
import clirkit.boost.productround as productround
import clirkit.boost.rounds as rounds
import clirkit.boost.statistics as statistics
from clirkit.boost.buckets import BucketBitmap, BucketIndex
from clirkit.boost.rounds import PairBooster

needs_numba = pytest.mark.skipif(productround.PRODUCT.kernels() is None, reason="numba is not installed")
pytestmark = needs_numba


def boosted(monkeypatch, compiled, problem_args, rounds_n=40, streamed=False, **kw):
    """``(booster, result)`` of ``rounds_n`` rounds from the product, compiled or with numpy; ``streamed``: the
    pairs streamed (a bucket bitmap), else kept (a bucket index)."""
    with monkeypatch.context() as m:
        m.setattr(pairmap, "_MAPPED", False)
        m.setattr(productround.PRODUCT, "off", not compiled)
        m.setattr(statistics, "GROUPED_LIMIT", 0 if streamed else 1 << 62)
        Q, D, t, sh, th = problem(**problem_args)
        b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, **kw)
        assert b._map is None and (b._finder is not None) == streamed
        result = b.run(rounds_n, quiet=True)
        assert isinstance(b._product, productround.ProductRound) == compiled
        return b, result


def assert_same(a, b):
    """test_boost_speed_rounds's comparison (the rounds, W+/W-, block maxima and stale marks, weights, margins),
    and the stored gains."""
    same_rounds(a, b)
    assert (a[0]._gain is None) == (b[0]._gain is None)
    if a[0]._gain is not None:
        np.testing.assert_array_equal(a[0]._gain, b[0]._gain)


@pytest.mark.parametrize("rule", ["exact", "r"])
@pytest.mark.parametrize(
    "bits, weighted, streamed",
    [(24, True, False), (24, False, False), (5, True, False), (3, False, False), (24, True, True), (24, False, True)],
)
def test_compiled_product_rounds_are_numpys_bit_for_bit(monkeypatch, rule, bits, weighted, streamed):
    """Buckets of several pairs (2**5, 2**3 buckets) add their pairs' sums in the product's order; many blocks, so
    some go stale: the same state after every round. (The pairs are streamed where a bucket's pairs can be found
    by inverting the hash: not in so few buckets.)"""
    monkeypatch.setattr(rounds, "_BLOCK", 4)
    args = {"seed": bits, "weighted": weighted}
    kw = {"bits": bits, "rule": rule, "streamed": streamed}
    assert_same(boosted(monkeypatch, False, args, **kw), boosted(monkeypatch, True, args, **kw))


@pytest.mark.parametrize("slice_entries, pairs_per_chunk", [(7, 1 << 40), (3, 50), (1 << 20, 50)])
def test_slices_chunks_and_renormalization_are_numpys(monkeypatch, slice_entries, pairs_per_chunk):
    """A round's entries in slices of a few (each slice's gains before and after, as ``_add`` takes them), its
    tuples in chunks (each chunk's sums added before the next), the weights divided by their sum every round (the
    stored gains then read and written): the same bits."""
    monkeypatch.setattr(rounds, "_ENTRIES_PER_SLICE", slice_entries)
    monkeypatch.setattr(rounds, "_PAIRS_PER_CHUNK", pairs_per_chunk)
    monkeypatch.setattr(rounds, "_WSUM_RANGE", (0.999999, 1.000001))
    monkeypatch.setattr(rounds, "_BLOCK", 4)
    args = {"seed": 7}
    numpy, compiled = boosted(monkeypatch, False, args, bits=6), boosted(monkeypatch, True, args, bits=6)
    assert compiled[0]._gain is not None
    assert_same(numpy, compiled)


@pytest.mark.parametrize("streamed", [False, True])
def test_a_budget_skips_the_buckets_left_out_as_numpy_does(monkeypatch, streamed):
    """Past ``max_buckets`` the pairs of the buckets left out have no statistics: their entries are skipped."""
    args = {"seed": 2}
    kw = {"bits": 22, "max_buckets": 60, "streamed": streamed}
    numpy, compiled = boosted(monkeypatch, False, args, **kw), boosted(monkeypatch, True, args, **kw)
    assert compiled[0].dropped is not None and compiled[0]._partial
    assert_same(numpy, compiled)


def test_documents_not_in_canonical_form_are_boosted_by_numpy(monkeypatch):
    """The compiled round reads each document row sorted: rows with unsorted columns leave the round to numpy."""
    monkeypatch.setattr(pairmap, "_MAPPED", False)
    Q, D, t, sh, th = problem(seed=1)
    D = sp.csr_matrix(D)
    D.indices[D.indptr[0] : D.indptr[1]] = D.indices[D.indptr[0] : D.indptr[1]][::-1].copy()
    D.has_sorted_indices = False
    assert D.indptr[1] - D.indptr[0] > 1
    b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=20)
    if b.Dm.has_canonical_format:  # (the booster's copy may have been sorted on the way)
        pytest.skip("the documents were made canonical")
    b.run(3, quiet=True)
    assert b._product is False


def test_the_kernels_murmur3_is_mmh3s():
    from clirkit.boost import productkernels

    rng = np.random.default_rng(0)
    pairs = rng.integers(0, 2**32, (500, 2), dtype=np.uint64)
    pairs[:3] = [[0, 0], [2**32 - 1, 2**32 - 1], [1, 2**31]]
    for seed in (0, 1, 2**32 - 1):
        for a, b in pairs:
            got = productkernels._murmur_pair(np.uint64(a), np.uint64(b), np.uint64(seed))
            assert int(got) == mmh3.hash(struct.pack("<II", int(a), int(b)), seed, signed=False)


def test_the_kernels_positions_are_the_indexes():
    """A bucket's compact position in a bitmap (``lookup``) and in a sorted index (``find``), -1 where absent."""
    from clirkit.boost import productkernels
    from clirkit.boost.buckets import _WORDS_PER_BLOCK

    rng = np.random.default_rng(1)
    bits = 20
    ids = np.unique(rng.integers(0, 2**bits, 3000))
    bitmap = BucketBitmap(bits)
    bitmap.add(ids)
    bitmap.freeze()
    index = BucketIndex(ids, bits)
    asked = np.concatenate([ids, rng.integers(0, 2**bits, 3000), [0, 2**bits - 1]])
    expected = index.find(asked)
    np.testing.assert_array_equal(bitmap.lookup(asked), expected)
    for use_bitmap in (True, False):
        at = asked.astype(np.int64)
        productkernels._positions(
            len(at),
            at,
            use_bitmap,
            bitmap.words,
            bitmap.word_rank,
            bitmap.block_rank,
            _WORDS_PER_BLOCK,
            index.ids,
            index.directory,
            index.shift,
        )
        np.testing.assert_array_equal(at, expected)
