"""clirkit.retrieval.kernels: the compiled BM25 ranking against a plain-numpy oracle, byte for byte.

The oracle (:func:`oracle_rank`) is the contract written the obvious way: each query's row of the documents
starts at 0 and gets its terms' contributions ``w_q * data`` added in term order, in the postings' own
precision (a term held as a dense vector adds the same values: its dense row is its postings scattered into
zeros); the matched documents are those with a posting of a query term; they are ordered by sum descending,
then by document ascending, and the first ``k`` kept. :func:`clirkit.retrieval.kernels.rank_sums` must return the same
counts, documents and sums (same dtype, same bytes) on random batches drawn by hypothesis (float64 and
float32, every contribution positive or not, tiny value sets so that ties abound, ``k`` below and above the
number of documents, empty queries, terms without postings, dense vectors), and on hand-made rows: a row
whose strided sample gives a bound fewer than ``k`` cells reach, all-equal sums, ``k = 1``.

The two helpers are checked against numpy too: ``_sort_descending`` against a stable ``np.lexsort`` (value
descending, ties by position), ``_select`` against ``np.sort(a)[kth]``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from clirkit.retrieval import kernels  # noqa: E402  (after the skip: the module imports numba)
from clirkit.retrieval.kernels import _select, _sort_descending, rank_sums  # noqa: E402

DTYPES = [np.float64, np.float32]
# (posting weights, w_q) drawn from tiny sets: exact binary fractions, whose sums tie often, or rounded ones,
# whose sums depend on the order and precision of the additions; signed sets give contributions < 0 and = 0
TIED = ([0.5, 1.0, 2.0], [0.5, 1.0, 2.0])
INEXACT = ([0.1, 0.2, 0.3, 1 / 3, 0.7], [0.1, 1 / 3, 0.5, 1.0, 3.0])
SIGNED = ([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0], [-1.0, 0.0, 0.5, 1.0, 2.0])
SIGNED_INEXACT = ([-0.3, -0.1, 0.0, 0.1, 1 / 3, 0.7], [-1 / 3, 0.0, 0.1, 1.0, 3.0])
DENSITIES = [0.0, 0.01, 0.1, 0.5, 1.0]  # share of the documents holding a posting of a term


# ---------------------------------------------------------------- the oracle and the kernel's arguments


def oracle_rank(queries: list[list[tuple[np.ndarray, np.ndarray, float]]], n_docs: int, k: int, dtype):
    """``(counts, cols, values)`` of ``queries`` (each a list of (documents, posting weights, w_q) terms):
    sums in term order in ``dtype``, matched = holding a posting, sum descending then document ascending,
    the first ``k``."""
    counts, cols, values = [], [], []
    for terms in queries:
        row = np.zeros(n_docs, dtype=dtype)
        hit = np.zeros(n_docs, dtype=bool)
        for docs, data, w in terms:
            np.add.at(row, docs, dtype(w) * data.astype(dtype))
            hit[docs] = True
        matched = np.flatnonzero(hit)
        top = matched[np.lexsort((matched, -row[matched]))][:k]
        counts.append(len(top))
        cols.append(top)
        values.append(row[top])
    return (
        np.array(counts, dtype=np.int64),
        np.concatenate(cols + [np.zeros(0, np.int64)]).astype(np.int64),
        np.concatenate(values + [np.zeros(0, dtype)]).astype(dtype),
    )


def kernel_rank(queries, n_docs: int, k: int, dtype, positive: bool, dense_terms=frozenset(), floors=None):
    """:func:`rank_sums` of ``queries`` (as :func:`oracle_rank` takes them), given in the layout
    ``BM25._top_rows`` passes: the postings of every query term one after the other in ``indices``/``data``,
    and the terms numbered in ``dense_terms`` (positions in the flattened query terms) also as dense rows."""
    flat = [term for terms in queries for term in terms]
    lengths = np.array([len(docs) for docs, _, _ in flat], dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    indices = np.concatenate([docs for docs, _, _ in flat] + [np.zeros(0, np.int32)]).astype(np.int32)
    data = np.concatenate([d.astype(dtype) for _, d, _ in flat] + [np.zeros(0, dtype)]).astype(dtype)
    weights = np.array([w for _, _, w in flat], dtype=dtype)
    bounds = np.concatenate([[0], np.cumsum([len(terms) for terms in queries])]).astype(np.int64)
    slots = np.full(len(flat), -1, dtype=np.int64)
    dense = np.zeros((len(dense_terms), n_docs), dtype=dtype)
    for slot, t in enumerate(sorted(dense_terms)):
        slots[t] = slot
        dense[slot, flat[t][0]] = flat[t][1].astype(dtype)
    floors = np.full(len(queries), -np.inf) if floors is None else np.asarray(floors, dtype=np.float64)
    return rank_sums(
        bounds, starts, ends, weights, slots, indices, data, dense, int(n_docs), int(k), bool(positive), floors
    )


def above_floors(ranked, floors):
    """``(counts, cols, values)`` less the rows whose value is not above their query's floor."""
    counts, cols, values = ranked
    query = np.repeat(np.arange(len(counts)), counts)
    kept = values.astype(np.float64) > np.asarray(floors)[query]
    return np.bincount(query[kept], minlength=len(counts)).astype(np.int64), cols[kept], values[kept]


def assert_same_bytes(got, expected):
    for name, a, b in zip(("counts", "cols", "values"), got, expected):
        assert a.dtype == b.dtype, name
        assert a.tobytes() == b.tobytes(), f"{name}: got {a.tolist()}, expected {b.tolist()}"


def first_bound_reach(row: np.ndarray, matched: np.ndarray, k: int) -> int:
    """How many matched cells of ``row`` reach the first bound :func:`rank_sums` takes from its strided
    sample (every ``min(_SAMPLE_STRIDE, n // k)``-th cell, the ``_SAMPLE_ABOVE k / stride``-th largest of its
    matched cells); every matched cell when no sample is taken. Checks that a hand-made row makes the kernel
    scan it again."""
    n = len(row)
    kk = min(k, n)
    stride = min(kernels._SAMPLE_STRIDE, n // kk)
    everything = int(np.count_nonzero(matched))
    if stride < 4:
        return everything
    sample = np.sort(row[::stride][matched[::stride]])
    rank = max(1, kernels._SAMPLE_ABOVE * kk // stride)
    if rank >= len(sample):
        return everything
    return int(np.count_nonzero(matched & (row >= sample[len(sample) - rank])))


# ---------------------------------------------------------------- random batches (hypothesis)


@st.composite
def batches(draw):
    """``(queries, n_docs, k, dtype, positive, dense_terms)``: a few queries over a pool of posting rows
    (a row may serve several query terms), postings drawn from a tiny value set."""
    dtype = draw(st.sampled_from(DTYPES))
    positive = draw(st.booleans())
    n_docs = draw(st.integers(1, 300))
    k = draw(st.one_of(st.integers(1, 12), st.integers(1, 400)))
    values, weights = draw(st.sampled_from([TIED, INEXACT] if positive else [SIGNED, SIGNED_INEXACT, TIED]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pool = []
    for density in draw(st.lists(st.sampled_from(DENSITIES), min_size=1, max_size=6)):
        docs = np.flatnonzero(rng.random(n_docs) < density).astype(np.int32)
        pool.append((docs, rng.choice(values, size=len(docs))))
    queries = []
    for _ in range(draw(st.integers(1, 5))):
        rows = draw(st.lists(st.integers(0, len(pool) - 1), max_size=6))
        queries.append([(*pool[r], draw(st.sampled_from(weights))) for r in rows])
    n_terms = sum(len(terms) for terms in queries)
    dense_terms = frozenset()  # read only when positive: ignored otherwise
    if n_terms and draw(st.booleans()):
        dense_terms = frozenset(draw(st.sets(st.integers(0, n_terms - 1), max_size=n_terms)))
    return queries, n_docs, k, dtype, positive, dense_terms


@settings(max_examples=200, deadline=None)
@given(batches())
def test_rank_sums_equals_the_numpy_oracle_byte_for_byte(batch):
    queries, n_docs, k, dtype, positive, dense_terms = batch
    assert_same_bytes(
        kernel_rank(queries, n_docs, k, dtype, positive, dense_terms), oracle_rank(queries, n_docs, k, dtype)
    )


@settings(max_examples=100, deadline=None)
@given(
    n_docs=st.integers(256, 3000),
    k=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from(DTYPES),
    positive=st.booleans(),
)
def test_rank_sums_equals_the_oracle_on_rows_long_enough_to_be_sampled(n_docs, k, seed, dtype, positive):
    # n_docs >= 4 k throughout: the kernel bounds each row from its strided sample
    rng = np.random.default_rng(seed)
    values, weights = TIED if positive else SIGNED
    queries = []
    for _ in range(3):
        terms = []
        for _ in range(rng.integers(1, 4)):
            docs = np.flatnonzero(rng.random(n_docs) < rng.choice(DENSITIES[1:])).astype(np.int32)
            terms.append((docs, rng.choice(values, size=len(docs)), float(rng.choice(weights))))
        queries.append(terms)
    assert_same_bytes(kernel_rank(queries, n_docs, k, dtype, positive), oracle_rank(queries, n_docs, k, dtype))


@settings(max_examples=150, deadline=None)
@given(batch=batches(), seed=st.integers(0, 2**32 - 1))
def test_a_floor_keeps_exactly_the_oracles_rows_above_it(batch, seed):
    # floors drawn among the oracle's own sums (ties with the floor abound), below them all, above them all,
    # and -inf: the kernel keeps the oracle's top k less the rows at or below their query's floor
    queries, n_docs, k, dtype, positive, dense_terms = batch
    expected = oracle_rank(queries, n_docs, k, dtype)
    rng = np.random.default_rng(seed)
    floors = []
    for q, count in enumerate(expected[0].tolist()):
        start = int(expected[0][:q].sum())
        sums = expected[2][start : start + count].astype(np.float64).tolist()
        floors.append(rng.choice(sums + [-np.inf, -1e9, 1e9]))
    assert_same_bytes(
        kernel_rank(queries, n_docs, k, dtype, positive, dense_terms, floors), above_floors(expected, floors)
    )


# ---------------------------------------------------------------- hand-made rows


def unlucky_row(n_docs: int, n_large: int, dtype, signed: bool) -> tuple[np.ndarray, np.ndarray]:
    """A posting in every document: the first ``n_large`` sampled cells (every ``_SAMPLE_STRIDE``-th) large
    and distinct, every other cell small (tied in sevens; if ``signed``, some negative or 0), so that the
    bound the sample gives is one that only a few large cells reach, fewer than k (the test checks it)."""
    docs = np.arange(n_docs, dtype=np.int32)
    data = 1.0 + (docs % 7) * 0.125  # small cells, tied in sevens
    if signed:
        data = np.where(docs % 5 == 1, -data, np.where(docs % 5 == 2, 0.0, data))
    sampled = docs[:: kernels._SAMPLE_STRIDE][:n_large]
    data[sampled] = 1000.0 + np.arange(len(sampled))[::-1]
    return docs, data.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("positive", [True, False])
@pytest.mark.parametrize(
    "n_docs,k,n_large", [(10_000, 10, 157), (6_400, 10, 100), (6_400, 10, 3), (20_000, 50, 20), (4_096, 16, 1)]
)
def test_a_row_whose_sample_bound_fewer_than_k_cells_reach_still_gives_its_top_k(dtype, positive, n_docs, k, n_large):
    docs, data = unlucky_row(n_docs, n_large, dtype, signed=not positive)
    assert first_bound_reach(data, np.ones(n_docs, dtype=bool), k) < k  # the kernel must scan the row again
    queries = [[(docs, data, 1.0)], [(docs[::2], data[::2], 2.0), (docs[::3], data[::3], 0.5)]]
    got = kernel_rank(queries, n_docs, k, dtype, positive)
    assert_same_bytes(got, oracle_rank(queries, n_docs, k, dtype))
    assert got[0].tolist() == [k, k]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("positive", [True, False])
@pytest.mark.parametrize("n_docs,k", [(1, 1), (5, 3), (500, 7), (5_000, 64), (300, 400)])
def test_all_equal_sums_give_the_first_k_documents(dtype, positive, n_docs, k):
    docs = np.arange(0, n_docs, dtype=np.int32)
    value = 1.5 if positive else -1.5
    got = kernel_rank([[(docs, np.full(n_docs, value), 1.0)]], n_docs, k, dtype, positive)
    kk = min(k, n_docs)
    assert got[0].tolist() == [kk]
    assert got[1].tolist() == list(range(kk))
    assert got[2].tolist() == [value] * kk


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("positive", [True, False])
def test_k_1_keeps_the_largest_sum_and_the_smallest_document_among_its_ties(dtype, positive):
    n_docs = 2_000
    docs = np.arange(n_docs, dtype=np.int32)
    data = np.where(docs % 3 == 0, 2.0, 1.0)
    data[[1_500, 777, 1_999]] = 4.0  # the best sum, three times: document 777 first
    queries = [[(docs, data, 1.0)], [(docs[1_000:], data[1_000:], 1.0)], [(docs[:1], data[:1], 3.0)]]
    got = kernel_rank(queries, n_docs, 1, dtype, positive)
    assert_same_bytes(got, oracle_rank(queries, n_docs, 1, dtype))
    assert got[0].tolist() == [1, 1, 1]
    assert got[1].tolist() == [777, 1_500, 0]
    assert got[2].tolist() == [4.0, 4.0, 6.0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("positive", [True, False])
def test_queries_without_terms_or_postings_keep_no_document(dtype, positive):
    n_docs = 100
    none = np.zeros(0, dtype=np.int32)
    some = np.array([3, 40, 99], dtype=np.int32)
    queries = [
        [(none, np.zeros(0), 1.0)],  # a term without postings
        [],  # no terms
        [(some, np.array([1.0, 2.0, 1.0]), 1.0), (none, np.zeros(0), 2.0)],
        [(none, np.zeros(0), 1.0), (none, np.zeros(0), 0.5)],
    ]
    got = kernel_rank(queries, n_docs, 10, dtype, positive)
    assert_same_bytes(got, oracle_rank(queries, n_docs, 10, dtype))
    assert got[0].tolist() == [0, 0, 3, 0]
    assert got[1].tolist() == [40, 3, 99]


def test_a_batch_of_no_queries_keeps_no_document():
    got = kernel_rank([], 10, 3, np.float64, True)
    assert_same_bytes(got, (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)))


def test_a_matched_document_whose_sum_is_0_or_negative_is_kept_when_contributions_are_signed():
    docs = np.array([0, 1, 2, 5], dtype=np.int32)
    queries = [
        [
            (docs, np.array([1.0, 0.0, -2.0, 1.0]), 1.0),
            (docs[:1], np.array([1.0]), -1.0),
            (docs[1:2], np.array([0.0]), -1.0),
        ]
    ]
    got = kernel_rank(queries, 8, 10, np.float64, False)
    assert_same_bytes(got, oracle_rank(queries, 8, 10, np.float64))
    assert got[1].tolist() == [5, 0, 1, 2]  # 1, 1 - 1, 0 + (-1 x 0) and -2; documents 3, 4, 6, 7 unmatched
    assert got[2].tolist() == [1.0, 0.0, 0.0, -2.0]
    assert not np.signbit(got[2][1:3]).any()  # 0 + (-1 x 0) and 1 - 1 are +0, as numpy sums them


@pytest.mark.parametrize("dense", [False, True])
def test_float32_contributions_are_rounded_to_float32_before_they_are_added(dense):
    # 0.05 + 0.3 as float32 sums: 0.35000002; the exact product 3 x 0.1f added in float64 and rounded
    # once would give 0.35
    docs = np.array([2], dtype=np.int32)
    tenth = np.array([0.1], dtype=np.float32)
    queries = [[(docs, tenth, 0.5), (docs, tenth, 3.0)]]
    got = kernel_rank(queries, 4, 1, np.float32, True, frozenset({1}) if dense else frozenset())
    assert_same_bytes(got, oracle_rank(queries, 4, 1, np.float32))
    assert got[2].tolist() == [np.float32(0.35000002)]
    assert got[2][0] != np.float32(np.float64(np.float32(0.05)) + 3.0 * np.float64(tenth[0]))


def test_the_kernel_zeroes_its_row_between_queries():
    # the same postings twice: the second query's sums do not carry the first's
    docs = np.arange(1_000, dtype=np.int32)
    data = (docs % 11 + 1).astype(np.float64)
    queries = [[(docs, data, 1.0)], [(docs, data, 1.0)], [(docs[::7], data[::7], 1.0)]]
    for positive in (True, False):
        got = kernel_rank(queries, 1_000, 5, np.float64, positive)
        assert_same_bytes(got, oracle_rank(queries, 1_000, 5, np.float64))


# ---------------------------------------------------------------- the helpers


def float32_sharing(draw, dtype) -> np.ndarray:
    """Values from a small set (0.0 and -0.0 among them: equal, so they keep their positions), float64 ones
    nudged by a few ulps so that several share a float32 but differ."""
    base = draw(
        st.lists(st.sampled_from([-3.0, -1.0, -1e-3, -0.0, 0.0, 1e-40, 1e-3, 0.5, 1.0, 2.0, 3e38]), max_size=200)
    )
    values = np.array(base, dtype=np.float64)
    if dtype == np.float64:
        steps = np.array(draw(st.lists(st.integers(-3, 3), min_size=len(base), max_size=len(base))))
        for i, s in enumerate(steps.tolist()):
            for _ in range(abs(s)):
                values[i] = np.nextafter(values[i], np.inf if s > 0 else -np.inf)
    return values.astype(dtype)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(DTYPES), spare=st.integers(0, 5))
def test_sort_descending_orders_by_value_then_position_as_a_stable_numpy_sort(data, dtype, spare):
    values = float32_sharing(data.draw, dtype)
    n = len(values)
    padded = np.concatenate([values, np.full(spare, np.nan, dtype=dtype)])  # cells past n are not read
    work = [
        np.empty(n + spare, np.uint32),
        np.empty(n + spare, np.uint32),
        np.empty(n + spare, np.int64),
        np.empty(n + spare, np.int64),
    ]
    got = _sort_descending(padded, n, *work)[:n]
    assert got.tolist() == np.lexsort((np.arange(n), -values)).tolist()


def test_sort_descending_separates_values_sharing_a_float32():
    one = 1.0
    above = np.nextafter(one, 2.0)  # 1 + 2**-52: the float32 of 1.0
    values = np.array([one, above, one, 2.0, above, np.nextafter(one, 0.0), 2.0])
    assert len(set(values.astype(np.float32).tolist())) == 2
    n = len(values)
    got = _sort_descending(
        values, n, np.empty(n, np.uint32), np.empty(n, np.uint32), np.empty(n, np.int64), np.empty(n, np.int64)
    )
    assert got[:n].tolist() == [3, 6, 1, 4, 0, 2, 5]


def test_sort_descending_orders_a_long_run_of_values_sharing_a_float32():
    # 5,000 distinct values in one float32, rising with their position: the worst order for the exact step
    values = 1.0 + np.arange(5_000) * 2.0**-52
    n = len(values)
    assert len(set(values.astype(np.float32).tolist())) == 1
    got = _sort_descending(
        values, n, np.empty(n, np.uint32), np.empty(n, np.uint32), np.empty(n, np.int64), np.empty(n, np.int64)
    )
    assert got[:n].tolist() == list(range(n - 1, -1, -1))


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.sampled_from([-2.0, 0.0, 0.5, 1.0, 1.0, 1.0, 3.0]), min_size=1, max_size=300),
    dtype=st.sampled_from(DTYPES),
    spare=st.integers(0, 5),
    data=st.data(),
)
def test_select_gives_the_kth_smallest_as_numpy_sorts_them(values, dtype, spare, data):
    a = np.array(values + [np.nan] * spare, dtype=dtype)  # cells past n are neither read nor moved
    n = len(values)
    kth = data.draw(st.integers(0, n - 1))
    expected = np.sort(a[:n])[kth]
    got = _select(a, n, kth)
    assert got == expected
    assert np.sort(a[:n]).tobytes() == np.sort(np.array(values, dtype=dtype)).tobytes()  # a permutation
    assert np.isnan(a[n:]).all()


@pytest.mark.parametrize("n", [1, 2, 3, 1_000, 100_000])
def test_select_on_all_equal_values(n):
    a = np.full(n, 0.25)
    for kth in {0, n // 2, n - 1}:
        assert _select(a, n, kth) == 0.25


def test_the_jit_loader_imports_a_module_of_kernels_once_and_falls_back_once_with_one_line(monkeypatch, capsys):
    import types

    from clirkit import jit

    class _NumbaError(Exception):
        pass

    _NumbaError.__module__ = "numba.core.errors"
    calls = []

    def failing(x):
        calls.append(x)
        raise _NumbaError("Failed in nopython mode pipeline\n(step: nopython frontend)")

    fake = types.ModuleType("fake_kernels")
    fake.double, fake.failing = (lambda x: 2 * x), failing
    monkeypatch.setattr(jit, "_modules", {"fake_kernels": fake})
    assert jit.call("fake_kernels", "numpy instead", "double", 21) == (True, 42)
    assert jit.call("fake_kernels", "numpy instead", "failing", 1) == (False, None)
    assert jit.call("fake_kernels", "numpy instead", "double", 21) == (False, None) and calls == [1]
    assert capsys.readouterr().err == (
        "clirkit: numba failed (_NumbaError: Failed in nopython mode pipeline (step: "
        "nopython frontend)); numpy instead\n"
    )
    monkeypatch.setenv("CLIRKIT_NUMBA", "0")
    assert jit.kernels("clirkit.retrieval.kernels", "numpy") is None  # not imported: numba is not loaded


def test_an_error_of_a_kernel_that_is_not_numbas_is_raised_by_the_jit_loader(monkeypatch):
    import types

    from clirkit import jit

    fake = types.ModuleType("fake_kernels")
    fake.broken = lambda: 1 / 0
    monkeypatch.setattr(jit, "_modules", {"fake_kernels": fake})
    with pytest.raises(ZeroDivisionError):
        jit.call("fake_kernels", "numpy", "broken")
