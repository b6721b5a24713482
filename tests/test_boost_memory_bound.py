"""Boosting's memory bound (issue 37 item 3): the pairs streamed, not kept (clirkit.boost.streamed), give the
statistics, rounds and models of the pairs kept; the budget of buckets (``max_buckets``, clirkit.boost.budget)
keeps at most that many, those of most pair occurrences, and a model under it is the model without it, byte for
byte; bad budgets are refused. On a small real slice of nave-en-es (Nave's subtopics, Reina-Valera verses)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

import clirkit.boost.budget as budget
import clirkit.boost.pairmap as pairmap
import clirkit.boost.statistics as statistics
import clirkit.boost.streamed as streamed
from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.boost import Boosting, BoostRanker
from clirkit.boost import params as groups  # its PairFeatures: the ranker's group, not the fitted features
from clirkit.boost.buckets import BucketBitmap
from clirkit.boost.features import (
    PairFeatures,
    hash_strings,
    murmur3_first_block,
    murmur3_first_blocks,
    murmur3_pairs,
    murmur3_second_blocks,
    pair_buckets,
)
from clirkit.boost.rounds import PairBooster
from clirkit.boost.streamed import BucketPairs
from clirkit.boost.tuples import make_tuples
from clirkit.cli import main
from clirkit.constraints import InvalidParameterError

N_QUERIES, N_OTHER_DOCS = 60, 400


@pytest.fixture(scope="module")
def verses():
    """``(queries {qid: tokens}, qrels, docids, doc tokens)``: the first training subtopics of nave-en-es, the
    verses they judge and the first other verses."""
    c = datasets.load("nave-en-es")
    docids, texts = c.documents()
    qrels = c.qrels("train")
    topics = c.queries("train")
    qids = sorted(set(qrels.qids.tolist()))[:N_QUERIES]
    qrels = qrels.subset(qids)
    judged = set(qrels.docids.tolist())
    keep = [i for i, d in enumerate(docids) if d in judged or i < N_OTHER_DOCS]
    src, tgt = Analyzer(c.source_lang), Analyzer(c.target_lang)
    queries = dict(zip(qids, src.tokenize_many([topics[q] for q in qids])))
    return queries, qrels, [docids[i] for i in keep], tgt.tokenize_many([texts[i] for i in keep])


def problem(verses, ngram=2, doc_weighting="binary"):
    """``(Qm, Dm, tuples, src_hash, tgt_hash)`` of the slice (3 negatives a relevant verse)."""
    queries, qrels, docids, doc_tokens = verses
    qids = list(queries)
    f = PairFeatures.fit([queries[q] for q in qids], doc_tokens, ngram=ngram, doc_weighting=doc_weighting)
    tuples = make_tuples(qrels, qids, docids, negatives=3, seed=0, quiet=True)
    return f.Qm, f.Dm, tuples, f.src_hash, f.tgt_hash


def booster(monkeypatch, path, args, bits=22, **kw):
    """A PairBooster of ``args`` (:func:`problem`) set up by ``path``: "grouped" (every pair kept), "streamed"
    (with scipy's products when "numpy" is in the name, with Delta in chunks of 500 entries when "chunk" is),
    or "mapped"."""
    with monkeypatch.context() as m:
        m.setattr(pairmap, "_MAPPED", path == "mapped")
        m.setattr(statistics, "GROUPED_LIMIT", 0 if path.startswith("streamed") else 1 << 62)
        if "numpy" in path:
            m.setattr(pairmap.COMPILED, "off", True)
        if "chunk" in path:
            m.setattr(streamed, "DELTA_LIMIT", 500)
        Q, D, t, sh, th = args
        b = PairBooster(Q, D, t, src_hash=sh, tgt_hash=th, bits=bits, **kw)
        assert (b._finder is not None) == path.startswith("streamed")
        assert (b._map is not None) == (path == "mapped" and b.dropped is None)  # over the budget: the product's
        return b, b.run(15, quiet=True)


def assert_same(a, b):
    (ba, ra), (bb, rb) = a, b
    for name in ("buckets", "alphas", "pair_ptr", "pair_src", "pair_tgt", "loss"):
        np.testing.assert_array_equal(getattr(ra, name), getattr(rb, name))
    assert (ra.n_pairs, ra.n_buckets, ra.info) == (rb.n_pairs, rb.n_buckets, rb.info)
    for name in ("Wp", "Wm", "w", "margin"):
        np.testing.assert_array_equal(getattr(ba, name), getattr(bb, name))


def support_by_bucket(args, bits):
    """Each bucket's pair occurrences, by hand: over the tuples t, the source n-grams i of t's query and the
    target n-grams j where d+ and d- differ, one for the bucket of (i, j)."""
    Q, D, t, sh, th = args
    diff = (D[t.pos] - D[t.neg]).tocsr()
    diff.eliminate_zeros()
    buckets = []
    for r, q in enumerate(t.query):
        src, tgt = Q[q].indices, diff.indices[diff.indptr[r] : diff.indptr[r + 1]]
        buckets.append(pair_buckets(sh, th, np.repeat(src, len(tgt)), np.tile(tgt, len(src)), seed=0, bits=bits))
    ids, counts = np.unique(np.concatenate(buckets), return_counts=True)
    return dict(zip(ids.tolist(), counts.tolist()))


def test_murmur3_is_inverted_in_either_argument():
    """The 8-byte MurmurHash3 of (a, b) gives back b from a's state and a from b: every step is a bijection."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    for seed in (0, 7, 2**32 - 1):
        h = murmur3_pairs(a, b, seed)
        first = murmur3_first_block(a, seed)
        for k in range(len(a)):
            assert murmur3_second_blocks(first[k : k + 1], int(h[k]))[0] == b[k]
            assert murmur3_first_blocks(b[k : k + 1], int(h[k]), seed)[0] == a[k]


@pytest.mark.parametrize("n_sources, n_targets, bits", [(300, 400, 20), (300, 400, 24), (500, 200, 22), (500, 200, 32)])
def test_a_buckets_candidate_pairs_are_every_pair_that_hashes_into_it(n_sources, n_targets, bits):
    """Inverting the hash from the smaller side (sources, or targets) finds, for a bucket, exactly the pairs of
    all S x T that ``pair_buckets`` puts there, in key order."""
    sh = hash_strings([f"s{i}" for i in range(n_sources)], 3)
    th = hash_strings([f"t{j}" for j in range(n_targets)], 3)
    finder = BucketPairs(sh, th, 3, bits)
    assert finder.by_source == (n_sources <= n_targets)
    i, j = np.repeat(np.arange(n_sources), n_targets), np.tile(np.arange(n_targets), n_sources)
    buckets = pair_buckets(sh, th, i, j, seed=3, bits=bits)
    for b in np.unique(buckets)[:: max(1, len(np.unique(buckets)) // 8)]:
        src, tgt = finder.candidates(int(b))
        expected = np.flatnonzero(buckets == b)
        np.testing.assert_array_equal(src * n_targets + tgt, np.sort(i[expected] * n_targets + j[expected]))


@pytest.mark.parametrize("bits, n", [(3, 5), (7, 100), (20, 30_000), (32, 3)])
def test_bitmap_positions_are_the_ranks_of_the_ids_and_minus_one_for_the_others(bits, n):
    """A bucket's compact position is the number of set buckets below it (a binary search of the sorted ids);
    a bucket not set is -1; the id of a position is given back."""
    rng = np.random.default_rng(bits)
    ids = np.unique(rng.integers(0, 2**bits, n, dtype=np.int64))
    if bits == 32:
        ids = np.array([0, 2**31, 2**32 - 1])
    bitmap = BucketBitmap(bits)
    bitmap.add(ids)
    bitmap.add(ids[::2])  # set twice: the same bits
    bitmap.freeze()
    assert len(bitmap) == len(ids)
    np.testing.assert_array_equal(bitmap.ids(), ids)
    asked = np.concatenate([ids, rng.integers(0, 2**bits, 200, dtype=np.int64)])
    at = np.searchsorted(ids, asked)
    there = (at < len(ids)) & (ids[np.minimum(at, len(ids) - 1)] == asked)
    np.testing.assert_array_equal(bitmap.lookup(asked), np.where(there, at, -1))
    assert [bitmap.id_of(k) for k in range(len(ids))] == ids.tolist()


@pytest.mark.parametrize("weighting", ["binary", "idf-length"])
def test_streamed_pairs_give_the_statistics_rounds_and_pairs_of_the_pairs_kept(monkeypatch, verses, weighting):
    """W+/W- of every bucket, each round's bucket, step and pairs (found by inverting the hash), the loss: the
    same bits whether the pairs are kept, mapped, or streamed (compiled products, scipy's, or Delta in chunks
    added through a unit column); the bitmap holds exactly the grouped buckets."""
    args = problem(verses, doc_weighting=weighting)
    grouped = booster(monkeypatch, "grouped", args)
    assert grouped[1].n_pairs > 10_000 and grouped[1].n_buckets > 10_000
    for path in ("streamed", "streamed-numpy", "streamed-chunk-numpy", "mapped"):
        other = booster(monkeypatch, path, args)
        assert_same(grouped, other)
        if path.startswith("streamed"):
            np.testing.assert_array_equal(other[0].index.ids(), grouped[0].bucket_ids)
            for x, y in zip(other[0].full_statistics(), grouped[0].full_statistics()):  # (bincount's order)
                np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-300)
            for k in (0, len(grouped[0].bucket_ids) // 2, len(grouped[0].bucket_ids) - 1):
                for x, y in zip(other[0].pairs_of(k), grouped[0].pairs_of(k)):
                    np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("bits", [22, 16])
def test_the_budget_keeps_the_buckets_of_most_pair_occurrences_every_way(monkeypatch, verses, bits):
    """Past ``max_buckets`` the buckets kept are the most frequent (pair occurrences, ties by ascending id), at
    most the budget; their statistics are those they have without the budget; the pairs and buckets left out
    are counted. Kept, mapped (not: over the budget it falls back to the product) or streamed: the same."""
    args = problem(verses)
    whole = booster(monkeypatch, "grouped", args, bits=bits)
    n_buckets = whole[1].n_buckets
    limit = n_buckets // 3
    support = support_by_bucket(args, bits)
    assert sorted(support) == whole[0].bucket_ids.tolist()
    ranked = sorted(support, key=lambda k: (-min(support[k], 255), k))
    expected = np.sort(np.array(ranked[:limit]))
    results = {}
    paths = ("grouped", "streamed", "streamed-numpy", "mapped") if bits > 16 else ("grouped", "mapped")
    for path in paths:  # (16 bits: a bucket's pairs too costly to find by inverting the hash; the pairs are kept)
        b, r = booster(monkeypatch, path, args, bits=bits, max_buckets=limit)
        ids = b.index.ids() if b._finder is not None else b.bucket_ids
        np.testing.assert_array_equal(ids, expected)
        assert r.n_buckets == len(ids) == limit
        dropped = r.info["dropped"]
        assert dropped["buckets"] == n_buckets - limit and r.n_pairs + dropped["pairs"] == whole[1].n_pairs
        assert dropped["support"] == min(support[ranked[limit - 1]], 255)
        at = np.searchsorted(whole[0].bucket_ids, ids)
        np.testing.assert_allclose(b.full_statistics()[0], whole[0].full_statistics()[0][at], rtol=1e-12)
        results[path] = (b, r)
    for path in paths[1:]:
        assert_same(results["grouped"], results[path])
    # the rounds are the unbounded ones until a bucket left out would have been chosen
    chosen = whole[1].buckets
    out = ~np.isin(chosen, expected)
    first_out = int(np.argmax(out)) if out.any() else len(chosen)
    np.testing.assert_array_equal(results["grouped"][1].buckets[:first_out], chosen[:first_out])


def test_slots_of_several_buckets_above_slot_bits_are_kept_whole_the_same_every_way(monkeypatch, verses):
    """Above ``SLOT_BITS`` the supports are counted per slot of neighbouring buckets: a slot is kept or left out
    whole, the grouped and the streamed set-ups keep the same ones, within the budget."""
    monkeypatch.setattr(budget, "SLOT_BITS", 18)  # slots of 4 buckets at 20 bits
    args = problem(verses)
    kept = booster(monkeypatch, "grouped", args, bits=20, max_buckets=100_000)
    streamed_ = booster(monkeypatch, "streamed", args, bits=20, max_buckets=100_000)
    assert_same(kept, streamed_)
    assert 99_000 < kept[1].n_buckets <= 100_000 and kept[1].info["dropped"]["buckets"] > 0
    np.testing.assert_array_equal(streamed_[0].index.ids(), kept[0].bucket_ids)
    slots = kept[0].bucket_ids.astype(np.int64) >> 2
    whole = booster(monkeypatch, "grouped", args, bits=20)[0].bucket_ids.astype(np.int64) >> 2
    assert np.all(np.isin(whole, slots) == np.isin(whole, np.unique(slots)))  # a slot kept keeps its buckets
    assert np.sum(np.isin(whole, slots)) == len(slots)


def model_bytes(verses, path, **params) -> tuple[str, dict]:
    """The sha256 of the model BoostRanker fits on the slice, and its params."""
    queries, qrels, docids, doc_tokens = verses
    ranker = BoostRanker.from_flat(ngram=2, rounds=15, quiet=True, **params)
    ranker.fit_tokens(queries, qrels, docids, doc_tokens)
    ranker.save(path)
    return hashlib.sha256(path.read_bytes()).hexdigest(), ranker.model_.params


def test_a_model_under_the_budget_is_the_model_without_one_byte_for_byte(monkeypatch, tmp_path, verses):
    """max_buckets at its default, at exactly the buckets the pairs fill, or none, streamed or not: the same model
    file (the budget is recorded only when it leaves something out)."""
    none, params = model_bytes(verses, tmp_path / "none.npz", max_buckets=None)
    n_buckets = params["bag_buckets"][0]
    assert "max_buckets" not in params and "bag_dropped" not in params
    assert model_bytes(verses, tmp_path / "default.npz")[0] == none
    assert model_bytes(verses, tmp_path / "exact.npz", max_buckets=n_buckets)[0] == none
    monkeypatch.setattr(statistics, "GROUPED_LIMIT", 0)
    assert model_bytes(verses, tmp_path / "streamed.npz", max_buckets=n_buckets)[0] == none


def test_a_model_over_the_budget_records_and_says_what_was_left_out(tmp_path, verses, capsys):
    """One line on stderr and the model's params: the budget, and each bag's pairs and buckets left out."""
    queries, qrels, docids, doc_tokens = verses
    ranker = BoostRanker(features=groups.PairFeatures(ngram=2, max_buckets=5000), boosting=Boosting(rounds=5))
    ranker.fit_tokens(queries, qrels, docids, doc_tokens)
    err = capsys.readouterr().err
    line = [x for x in err.splitlines() if "max_buckets" in x]
    assert len(line) == 1 and "max_buckets 5,000 kept the buckets of most pair occurrences" in line[0]
    params = ranker.model_.params
    assert params["max_buckets"] == 5000 and params["bag_buckets"] == [5000]
    dropped = params["bag_dropped"][0]
    assert dropped["buckets"] > 0 and dropped["pairs"] >= dropped["buckets"] and dropped["support"] >= 1
    assert f"{dropped['pairs']:,} pairs in {dropped['buckets']:,} buckets were left out" in line[0]
    ranker.save(tmp_path / "m.npz")
    from clirkit.boost import BoostModel

    assert BoostModel.load(tmp_path / "m.npz").params["bag_dropped"] == params["bag_dropped"]
    json.dumps(params)  # the record is plain JSON


@pytest.mark.parametrize("value", [0, -3, 2.5, "many"])
def test_a_bad_budget_is_refused(value, verses):
    queries, qrels, docids, doc_tokens = verses
    with pytest.raises(InvalidParameterError, match="max_buckets"):
        BoostRanker(features=groups.PairFeatures(max_buckets=value), quiet=True).fit_tokens(
            queries, qrels, docids, doc_tokens
        )


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "lots"])
def test_a_bad_max_buckets_option_exits_2_with_one_line(tmp_path, capsys, value):
    q, qrels, docs = (tmp_path / n for n in ("q.tsv", "qrels.txt", "docs.tsv"))
    q.write_text("Q1\tlight\n", encoding="utf-8")
    qrels.write_text("Q1 0 D1 1\n")
    docs.write_text("D1\tla luz\nD2\tlas aguas\n", encoding="utf-8")
    args = ["boost-train", "--queries", str(q), "--qrels", str(qrels), "--documents", str(docs)]
    assert main([*args, "--max-buckets", value, "-o", str(tmp_path / "m.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--max-buckets" in err[0]
    assert not (tmp_path / "m.npz").exists()
    assert main([*args, "--max-buckets", "none", "--rounds", "2", "-q", "-o", str(tmp_path / "m.npz")]) == 0
