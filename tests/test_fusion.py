"""Fusion methods (SPEC §6): interpolation of sum-normalized scores, Borda, and the shared run alignment.

Tuning (kappa and weight sweeps on dev) is tested in test_tuning.py, the ``aggregate`` verb in
test_cli_aggregate.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.fusion import borda, interpolate, transform_scores
from clirkit.fusion.align import align, factorize
from clirkit.fusion.interpolation import sum_normalized, weighted_sum
from clirkit.run import Run
from clirkit.systems import Fusion


def run_of(rows, tag="r"):
    """rows: list of (qid, docid, score)."""
    q, d, s = zip(*rows)
    return Run.ranked(q, d, s, tag=tag)


def as_dict(run):
    return {(q, d): s for q, d, s in zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist())}


A = run_of([("q1", "Gen.1.1", 3.0), ("q1", "Gen.1.2", 1.0), ("q2", "Exod.1.1", 2.0)], "A")
B = run_of([("q1", "Gen.1.2", 4.0), ("q1", "Gen.1.3", 1.0), ("q3", "Lev.1.1", 5.0)], "B")


def test_interpolation_matches_hand_formula_with_documents_missing_from_one_list():
    fused = interpolate([A, B], kappa=0.3)
    got = as_dict(fused)
    expected = {
        ("q1", "Gen.1.1"): 0.3 * 3 / 4,  # missing from B -> 0 there
        ("q1", "Gen.1.2"): 0.3 * 1 / 4 + 0.7 * 4 / 5,
        ("q1", "Gen.1.3"): 0.7 * 1 / 5,  # missing from A
        ("q2", "Exod.1.1"): 0.3 * 2 / 2,  # query only in A
        ("q3", "Lev.1.1"): 0.7 * 5 / 5,  # query only in B
    }
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-15)
    # rank order within q1 follows the fused scores; queries in first-appearance order
    assert fused.for_query("q1")[0].tolist() == ["Gen.1.2", "Gen.1.1", "Gen.1.3"]
    assert fused.query_ids == ["q1", "q2", "q3"]
    assert fused.tag == "interp:w=0.3,0.7:t=none,none"


def test_three_runs_with_weights_sum_the_weighted_normalized_scores():
    C = run_of([("q1", "Gen.1.3", 2.0), ("q1", "Gen.1.1", 2.0)], "C")
    got = as_dict(interpolate([A, B, C], [0.5, 0.25, 0.25]))
    assert got[("q1", "Gen.1.1")] == pytest.approx(0.5 * 3 / 4 + 0.25 * 2 / 4)
    assert got[("q1", "Gen.1.3")] == pytest.approx(0.25 * 1 / 5 + 0.25 * 2 / 4)


def test_negative_scores_need_an_explicit_transform():
    neg = run_of([("q1", "Gen.1.1", -1.0), ("q1", "Gen.1.2", -3.0), ("q1", "Gen.1.4", 1.0)], "boost")
    with pytest.raises(ClirkitError, match="negative scores") as caught:
        interpolate([A, neg], kappa=0.5)
    assert str(caught.value).endswith('choose a per-query transform with transform="shift" or transform="minmax"')
    assert "--transform" not in str(caught.value)  # (the command line's words: tests/test_cli_aggregate.py)
    # shift: subtract the query's minimum (-3): 2, 0, 4 -> sum 6
    got = as_dict(interpolate([A, neg], kappa=0.5, transform=["none", "shift"]))
    assert got[("q1", "Gen.1.1")] == pytest.approx(0.5 * 3 / 4 + 0.5 * 2 / 6)
    assert got[("q1", "Gen.1.2")] == pytest.approx(0.5 * 1 / 4 + 0.0)
    assert got[("q1", "Gen.1.4")] == pytest.approx(0.5 * 4 / 6)


def test_minmax_and_shift_agree_after_sum_normalization_and_are_recorded_in_the_tag():
    neg = run_of([("q1", "a", -1.0), ("q1", "b", -3.0), ("q1", "c", 1.0), ("q2", "a", -7.0)], "s")
    np.testing.assert_allclose(transform_scores(neg, "minmax"), [1.0, 0.5, 0.0, 0.0])
    np.testing.assert_allclose(transform_scores(neg, "shift"), [4.0, 2.0, 0.0, 0.0])
    shifted = interpolate([neg, neg], kappa=0.5, transform="shift")
    scaled = interpolate([neg, neg], kappa=0.5, transform="minmax")
    np.testing.assert_allclose(shifted.scores, scaled.scores)
    assert scaled.tag.endswith(":t=minmax,minmax")


@pytest.mark.parametrize("kappa, which", [(1.0, 0), (0.0, 1)])
def test_kappa_one_and_zero_reproduce_each_input_ranking(kappa, which):
    rng = np.random.default_rng(7)
    runs = []
    for tag in ("x", "y"):
        q = np.repeat([f"q{i}" for i in range(5)], 30)
        d = np.array([f"d{j}" for j in rng.integers(0, 60, size=150)])
        keep = np.unique(np.char.add(np.char.add(q, " "), d), return_index=True)[1]
        runs.append(Run.ranked(q[keep], d[keep], rng.random(len(keep)).round(2), tag=tag))
    fused = interpolate(runs, kappa=kappa)
    source = runs[which]
    for qid in source.query_ids:
        docs = source.for_query(qid)[0]
        assert fused.for_query(qid)[0][: len(docs)].tolist() == docs.tolist()


def test_depth_cuts_inputs_before_normalizing_and_the_output():
    run = run_of([("q", f"d{i}", float(10 - i)) for i in range(5)])
    got = interpolate([run, run], kappa=0.5, depth=2)
    assert got.docids.tolist() == ["d0", "d1"]
    np.testing.assert_allclose(got.scores, [10 / 19, 9 / 19])


def test_bad_weights_are_user_errors():
    with pytest.raises(ClirkitError, match="sum to 1"):
        interpolate([A, B], [0.5, 0.6])
    with pytest.raises(ClirkitError, match="2 weights for 3 runs"):
        interpolate([A, B, A], [0.5, 0.5])
    with pytest.raises(ClirkitError, match="kappa must be in"):
        interpolate([A, B], kappa=1.5)
    with pytest.raises(ClirkitError, match="unknown score transform"):
        interpolate([A, B], transform="log")


def test_borda_gives_K_minus_rank_plus_one_points_per_list():
    # K = 3: A ranks d1, d2; B ranks d2, d3, d1
    a = run_of([("q", "d1", 9.0), ("q", "d2", 1.0)])
    b = run_of([("q", "d2", -1.0), ("q", "d3", -2.0), ("q", "d1", -5.0)])
    got = borda([a, b], depth=3)
    assert as_dict(got) == {("q", "d1"): 3 + 1, ("q", "d2"): 2 + 3, ("q", "d3"): 0 + 2}
    assert got.docids.tolist() == ["d2", "d1", "d3"]
    weighted = as_dict(borda([a, b], [2.0, 0.5], depth=3))
    assert weighted == {("q", "d1"): 2 * 3 + 0.5 * 1, ("q", "d2"): 2 * 2 + 0.5 * 3, ("q", "d3"): 0.5 * 2}


def test_id_factorization_is_exact_even_when_the_hash_collides(monkeypatch):
    from clirkit.fusion import align as align_module

    ids = np.array(["Gen.1.2", "Gen.1.10", "Exod.3.1", "Gen.1.2", "Gen.1.1"])
    for collide in (False, True):
        if collide:
            monkeypatch.setattr(align_module, "string_hash", lambda v: np.zeros(len(v), dtype=np.uint64))
        uniques, codes, appearance = factorize(ids)
        assert uniques.tolist() == sorted(set(ids.tolist()))
        assert uniques[codes].tolist() == ids.tolist()
        # first-appearance position of each sorted id: Exod.3.1 third, Gen.1.1 fourth, Gen.1.10 second, Gen.1.2 first
        assert appearance.tolist() == [2, 3, 1, 0]


def test_a_list_whose_scores_sum_to_zero_contributes_nothing():
    flat = run_of([("q1", "Gen.1.1", 2.0), ("q1", "Gen.1.5", 2.0)], "flat")  # shift makes both 0
    got = as_dict(interpolate([A, flat], kappa=0.5, transform="shift"))
    assert got[("q1", "Gen.1.5")] == 0.0
    assert got[("q1", "Gen.1.1")] == pytest.approx(0.5 * (3 - 1) / 2)  # A shifted: 2, 0


def test_borda_rejects_a_depth_below_one_and_bad_weights():
    with pytest.raises(ClirkitError, match="depth must be an integer >= 1"):
        borda([A, B], depth=0)
    with pytest.raises(ClirkitError, match="weights must be finite and >= 0"):
        borda([A, B], [1.0, -1.0])
    with pytest.raises(ClirkitError, match=r"weights must be one weight per run, got 1 weight for 2 runs$"):
        borda([A, B], [1.0])


# alignment and the two halves of interpolation (what tuning reuses) ------------------------------


def test_align_numbers_each_query_document_pair_once_across_runs():
    al = align([A, B], depth=None)
    pairs = list(zip(al.uq[al.pair_q].tolist(), al.ud[al.pair_d].tolist()))
    # pairs in (query, docid) order; Gen.1.2 of q1 is one pair shared by A and B
    assert pairs == [("q1", "Gen.1.1"), ("q1", "Gen.1.2"), ("q1", "Gen.1.3"), ("q2", "Exod.1.1"), ("q3", "Lev.1.1")]
    assert al.n_pairs == 5 and al.n_queries == 3
    assert al.pair[0].tolist() == [0, 1, 3] and al.pair[1].tolist() == [1, 2, 4]
    assert al.uq[al.row_query[1]].tolist() == B.qids.tolist()
    # first appearance over A then B: q1, q2, q3
    assert al.query_rank.tolist() == [0, 1, 2]


@pytest.mark.parametrize("depth", [1, 3, 8, 50])
def test_the_top_k_of_the_aligned_pairs_and_their_ranking_are_a_sort_by_score_then_docid_cut_at_depth(depth):
    rng = np.random.default_rng(depth)
    q = np.repeat(["q2", "q1", "q3"], [5, 12, 20])
    d = np.array([f"Gen.1.{i}" for i in rng.permutation(len(q))])
    aligned = align([Run(q, d, np.zeros(len(q)))], None)
    top = aligned.top_k(depth)
    for _ in range(5):
        scores = rng.integers(0, 3, size=aligned.n_pairs) / 2  # many ties, at the cut too
        rows = sorted(
            zip(aligned.uq[aligned.pair_q].tolist(), aligned.ud[aligned.pair_d].tolist(), scores.tolist()),
            key=lambda row: (["q2", "q1", "q3"].index(row[0]), -row[2], row[1]),
        )
        expected = [row for i, row in enumerate(rows) if sum(r[0] == row[0] for r in rows[:i]) < depth]
        mask = top.mask(scores)
        assert sorted(
            zip(
                aligned.uq[aligned.pair_q[mask]].tolist(),
                aligned.ud[aligned.pair_d[mask]].tolist(),
                scores[mask].tolist(),
            )
        ) == sorted(expected)
        ranked = aligned.ranked(scores, depth, "t")
        assert list(zip(ranked.qids.tolist(), ranked.docids.tolist(), ranked.scores.tolist())) == expected


def test_align_cuts_each_run_to_depth_and_needs_a_run():
    al = align([A, B], depth=1)
    assert [len(r) for r in al.runs] == [2, 2]  # A: q1 top 1, q2; B: q1 top 1, q3
    # the rank-2 rows of q1 (A: Gen.1.2, B: Gen.1.3) are cut; Gen.1.2 stays as B's top document
    assert list(zip(al.uq[al.pair_q].tolist(), al.ud[al.pair_d].tolist())) == [
        ("q1", "Gen.1.1"),
        ("q1", "Gen.1.2"),
        ("q2", "Exod.1.1"),
        ("q3", "Lev.1.1"),
    ]
    with pytest.raises(ClirkitError, match="at least one run"):
        align([], depth=10)


def test_sum_normalized_gives_each_list_share_of_its_query_total_on_the_aligned_pairs():
    al = align([A, B], depth=1000)
    normed_a, normed_b = sum_normalized(al, ["none", "none"])
    # pairs: (q1 Gen.1.1), (q1 Gen.1.2), (q1 Gen.1.3), (q2 Exod.1.1), (q3 Lev.1.1)
    np.testing.assert_allclose(normed_a, [3 / 4, 1 / 4, 0, 2 / 2, 0])
    np.testing.assert_allclose(normed_b, [0, 4 / 5, 1 / 5, 0, 5 / 5])


def test_weighted_sum_of_sum_normalized_scores_is_exactly_interpolate():
    al = align([A, B], depth=1000)
    normed = sum_normalized(al, ["none", "shift"])
    got = weighted_sum(al, normed, [0.3, 0.7], ["none", "shift"], depth=1000)
    expected = interpolate([A, B], kappa=0.3, transform=["none", "shift"])
    assert got.tag == expected.tag == "interp:w=0.3,0.7:t=none,shift"
    assert got.qids.tolist() == expected.qids.tolist() and got.docids.tolist() == expected.docids.tolist()
    assert got.scores.tolist() == expected.scores.tolist()  # bit for bit


def test_ids_of_several_arrays_are_coded_as_one_without_the_exact_fallback(monkeypatch):
    from clirkit.fusion import align as align_module

    rng = np.random.default_rng(3)
    parts = [np.array([f"d{i}" for i in rng.integers(0, 50, n)]) for n in (37, 0, 23, 41)]
    monkeypatch.setattr(align_module, "_CHECK_ROWS", 8)  # verification in slices across the parts' bounds
    monkeypatch.setattr(align_module.np, "unique", None)  # the collision fallback must not run
    uniques, codes, appearance = align_module.factorize_parts(parts)
    joined = np.concatenate(parts)
    assert uniques.tolist() == sorted(set(joined.tolist()))
    for part, code in zip(parts, codes):
        assert uniques[code].tolist() == part.tolist()
    first_seen = list(dict.fromkeys(joined.tolist()))
    assert [first_seen.index(u) for u in uniques.tolist()] == appearance.tolist()


def test_a_method_added_to_the_table_is_fused_by_the_fusion_system_by_its_name(monkeypatch):
    # a new method is one function and one entry of METHODS: the Fusion system accepts its name, weighs each
    # run 1 (an untuned method) and calls it with one weight and one transform per run
    from clirkit.fusion import METHODS, Method
    from clirkit.systems import Fusion

    calls = []

    def first_run(runs, weights, *, transforms, depth, tag):
        calls.append((list(weights), list(transforms), depth, tag))
        return runs[0]

    monkeypatch.setitem(METHODS, "first", Method(first_run, tuned=False, weights_sum_to_one=False))
    fusion = Fusion(method="first").fit_runs([A, B], None)
    fusion.check_runs(2)
    assert fusion.fuse([A, B], depth=5, tag="t") is A
    assert calls == [([1.0, 1.0], ["none", "none"], 5, "t")]


def test_the_fusion_system_fuses_run_files_without_systems():
    from clirkit.systems import Fusion

    fused = Fusion(weights=[0.3, 0.7]).fit_runs([A, B], None).fuse([A, B], depth=1000)
    expected = interpolate([A, B], kappa=0.3, tag=fused.tag)
    assert as_dict(fused) == as_dict(expected) and fused.tag == "interp:w=0.3,0.7:t=none,none"


@pytest.mark.parametrize(
    "params, n, says",
    [
        ({}, 1, "a fusion needs at least two runs, got 1"),
        (
            {"weights": [1.0]},
            2,
            "The 'weights' parameter of Fusion must be one weight per run, got 1 weight for 2 runs",
        ),
        ({"weights": [0.5, 0.6]}, 2, "The 'weights' parameter of Fusion must be numbers that sum to 1 (interpolation)"),
        (
            {"step": 0.3},
            2,
            "The 'step' parameter of Fusion must be the step of a grid of weights: weight step must divide 1, got 0.3",
        ),
        (
            {"measure": "MAP@x"},
            2,
            "The 'measure' parameter of Fusion must be a measure of `clirkit eval`: unknown measure 'MAP@x'",
        ),
        ({"transform": ["none"] * 3}, 2, "3 transforms for 2 systems"),
    ],
)
def test_the_parameters_of_a_fusion_are_checked_for_its_runs_before_any_is_read(params, n, says):
    from clirkit.systems import Fusion

    with pytest.raises(ClirkitError) as info:
        Fusion(**params).check_runs(n)
    assert str(info.value).startswith(says)


def test_borda_takes_weights_that_do_not_sum_to_one_and_tunes_none():
    from clirkit.systems import Fusion

    Fusion(method="borda", weights=[1.0, 2.0]).check_runs(2)
    Fusion(method="borda").check_runs(2)  # the default step is no grid: Borda's weights are not tuned
    with pytest.raises(ClirkitError, match="step applies to tuned weights, and borda tunes none"):
        Fusion(method="borda", step=0.3).check_runs(2)  # a step set is refused: it would do nothing


@pytest.mark.parametrize("method", ["interpolation", "borda"])
def test_packed_runs_fuse_into_the_run_their_runs_fuse_into(method):
    """The experiment runner fuses the runs it keeps packed (clirkit.run.PackedRun) without unpacking them."""
    from clirkit.fusion import METHODS
    from clirkit.packedrun import PackedRun

    rng = np.random.default_rng(7)
    docs = np.array([f"d{i:03d}" for i in range(40)])
    runs = []
    for r in range(3):
        qids = [f"q{q}" for q in rng.permutation(6)]
        rows = [(q, d) for q in qids for d in rng.choice(docs, size=rng.integers(1, 25), replace=False)]
        scores = rng.integers(0, 5, len(rows)).astype(float) - (1.0 if r == 2 else 0.0)  # ties; run 2 negative
        runs.append(Run.ranked([q for q, _ in rows], [d for _, d in rows], scores, tag=f"r{r}"))
    kw = {"transforms": ["shift"] * 3, "depth": 10, "tag": None}
    expected = METHODS[method].fuse(runs, [0.2, 0.3, 0.5], **kw)
    got = METHODS[method].fuse([PackedRun(r) for r in runs[:2]] + runs[2:], [0.2, 0.3, 0.5], **kw)
    for name in ("qids", "docids", "scores"):
        assert np.array_equal(getattr(got, name), getattr(expected, name)), name
    assert got.tag == expected.tag


def test_weights_summing_beyond_the_float_range_reach_the_fusions_own_messages():
    with pytest.raises(ClirkitError, match="^Borda points overflow the float range with weights 1e[+]308 1e[+]308"):
        borda([A, B], weights=[1e308, 1e308])
    with pytest.raises(ClirkitError, match=r"^weights must be numbers that sum to 1 \(interpolation\), .*\(sum inf\)$"):
        interpolate([A, B], weights=[1e308, 1e308])
    fusion = Fusion(method="borda", weights=[1e308, 1e308]).fit_runs(None, None, n=2)  # (checked as borda checks)
    with pytest.raises(ClirkitError, match="^Borda points overflow the float range"):
        fusion.fuse([A, B])


# Borda: points in float64, their sums over two runs too
@pytest.mark.parametrize("fuse, deepest", [(interpolate, 2**63 - 1), (borda, 2**52)])
def test_a_depth_beyond_int64_is_refused_in_one_line_and_the_deepest_taken(fuse, deepest):
    with pytest.raises(ClirkitError, match=r"^depth must be at most 2\*\*63 - 1 \(int64\), got 9223372036854775808"):
        fuse([A, B], depth=2**63)
    assert fuse([A, B], depth=deepest).query_ids == ["q1", "q2", "q3"]


def test_fusion_takes_weights_as_a_numpy_array_as_interpolate_does(tmp_path):
    weights = np.array([0.25, 0.75])
    fusion = Fusion(weights=weights).fit_runs(None, None, n=2)
    assert as_dict(fusion.fuse([A, B])) == as_dict(interpolate([A, B], weights=weights))
    assert fusion.weights_ == [0.25, 0.75]
    fusion.save(tmp_path / "f.npz")
    assert Fusion.load(tmp_path / "f.npz").weights == [0.25, 0.75]
    with pytest.raises(ClirkitError, match=r"^The 'weights' parameter of Fusion must be one weight per run"):
        Fusion(weights=np.array([[0.25, 0.75]])).fit_runs(None, None, n=2)
    with pytest.raises(ClirkitError, match=r"^The 'weights' parameter of Fusion must be finite and >= 0, got 'a' 'b'$"):
        Fusion(weights=np.array(["a", "b"])).fit_runs(None, None, n=2)
