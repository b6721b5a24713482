"""Pair hashing (MurmurHash3, checked against the mmh3 library) and binary n-gram matrices."""

from __future__ import annotations

import struct

import mmh3
import numpy as np
import scipy.sparse as sp

from clirkit.boost.features import NgramVocabulary, hash_strings, murmur3_pairs, pair_buckets


def test_vectorized_pair_hash_equals_mmh3_of_the_eight_byte_key():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**32, size=500, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, size=500, dtype=np.uint64).astype(np.uint32)
    for seed in (0, 42, 2**32 - 1):
        expected = [mmh3.hash(struct.pack("<II", int(x), int(y)), seed, signed=False) for x, y in zip(a, b)]
        np.testing.assert_array_equal(murmur3_pairs(a, b, seed), np.array(expected, dtype=np.uint32))


def test_string_hash_is_unsigned_mmh3_of_utf8():
    assert hash_strings(["casa", "señor"], 7).tolist() == [
        mmh3.hash("casa", 7, signed=False),
        mmh3.hash("señor".encode("utf-8"), 7, signed=False),
    ]


def test_bucket_of_a_pair_is_the_hash_of_both_strings_modulo_two_to_the_bits():
    src, tgt = ["house", "red"], ["casa", "roja"]
    sh, th = hash_strings(src, 3), hash_strings(tgt, 3)
    got = pair_buckets(sh, th, np.array([0, 1]), np.array([1, 0]), seed=3, bits=10)
    key = lambda s, t: struct.pack("<II", mmh3.hash(s, 3, signed=False), mmh3.hash(t, 3, signed=False))  # noqa
    assert got.tolist() == [
        mmh3.hash(key("house", "roja"), 3, signed=False) % 1024,
        mmh3.hash(key("red", "casa"), 3, signed=False) % 1024,
    ]


def test_ngram_matrix_is_binary_over_unigrams_and_bigrams():
    v = NgramVocabulary()
    X = v.matrix([["la", "casa", "la", "casa"], ["casa"]], 2, grow=True)
    assert v.terms == ["la", "casa", "la casa", "casa la"]
    np.testing.assert_array_equal(X.toarray(), [[1, 1, 1, 1], [0, 1, 0, 0]])


def test_matrix_without_growing_drops_unknown_ngrams():
    v = NgramVocabulary(["casa", "roja"])
    X = v.matrix([["casa", "azul"]], 1, grow=False)
    assert X.shape == (1, 2)
    np.testing.assert_array_equal(X.toarray(), [[1, 0]])


def test_prune_drops_ngrams_above_max_df_and_renumbers():
    v = NgramVocabulary()
    X = v.matrix([["de", "casa"], ["de", "rey"], ["de"], ["rey"]], 1, grow=True)
    Y = v.prune(X, 0.5)
    assert v.terms == ["casa", "rey"] and v.ids == {"casa": 0, "rey": 1}
    assert sp.issparse(Y)
    np.testing.assert_array_equal(Y.toarray(), [[1, 0], [0, 1], [0, 0], [0, 1]])


def test_prune_without_frequent_word_ngrams_drops_bigrams_of_a_dropped_word():
    texts = [["el", "rey", "david"], ["el", "rey"], ["el", "león"], ["rey", "david"]]
    v = NgramVocabulary()
    X = v.matrix(texts, 2, grow=True)
    kept_all = NgramVocabulary(v.terms)
    kept_all.prune(X, 0.6)  # df: el 3, rey 3 > 2.4; el rey 2, rey david 2, david 2, león 1, el león 1
    assert kept_all.terms == ["david", "el rey", "rey david", "león", "el león"]
    Y = v.prune(X, 0.6, frequent_word_ngrams=False)
    assert v.terms == ["david", "león"]  # every bigram holds "el" or "rey"
    np.testing.assert_array_equal(Y.toarray(), [[1, 0], [0, 0], [0, 1], [1, 0]])
