"""clirkit.metrics: trec_eval parity (pytrec_eval as the oracle) under trec_eval's and ir_measures' names, PRES, SCS
measures, bad input."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clirkit import hashing, metrics
from clirkit.errors import ClirkitError
from clirkit.metrics import evaluate, parse_measure
from clirkit.run import Qrels, Run

pytrec_eval = pytest.importorskip("pytrec_eval")

PARITY = {
    "AP": "map",
    "P@5": "P_5",
    "P@10": "P_10",
    "nDCG@10": "ndcg_cut_10",
    "RR": "recip_rank",
    "R@1000": "recall_1000",
}


def _pytrec(run: Run, qrels: Qrels, relevance_level: int = 1) -> dict[str, dict[str, float]]:
    as_dict: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()):
        as_dict.setdefault(q, {})[d] = s
    evaluator = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), set(PARITY.values()), relevance_level=relevance_level)
    return evaluator.evaluate(as_dict)


def _assert_parity(run: Run, qrels: Qrels, relevance_level: int = 1) -> int:
    expected = _pytrec(run, qrels, relevance_level)
    ev = evaluate(run, qrels, list(PARITY), average="run", depth=None, rel_threshold=relevance_level)
    assert sorted(ev.qids.tolist()) == sorted(expected)
    for qid, row in zip(ev.qids.tolist(), ev.values):
        for measure, value in zip(ev.measures, row):
            assert value == pytest.approx(expected[qid][PARITY[measure]], abs=1e-6), (qid, measure)
    return len(expected)


def _random_tied_run(seed: int) -> tuple[Run, Qrels]:
    """Runs full of ties: quantized scores, near-ties below float32 resolution, ties in shuffled order."""
    rng = np.random.default_rng(seed)
    pool = np.array([f"d{i}" for i in range(60)] + [f"D{i}" for i in range(10)] + ["é1", "e10", "e9", "x"])
    qids, docids, scores, qq, qd, qg = [], [], [], [], [], []
    for q in range(40):
        n = int(rng.integers(1, 40))
        docs = rng.choice(pool, n, replace=False)
        s = rng.integers(0, 4, n) / 4.0
        s = s + rng.choice([0.0, 1e-12, 3e-9], n)  # equal once rounded to float32
        rows = rng.permutation(n)  # trec_eval must re-sort whatever the run's order of ties:
        rows = rows[np.argsort(-s[rows], kind="stable")]  # rows in score order (as a Run's are), ties shuffled
        qids += [f"q{q}"] * n
        docids += docs[rows].tolist()
        scores += s[rows].tolist()
        judged = rng.choice(pool, int(rng.integers(1, 25)), replace=False)
        qq += [f"q{q}"] * len(judged)
        qd += judged.tolist()
        qg += rng.integers(-1, 4, len(judged)).tolist()
    qq += ["q_only_nonrelevant", "q_only_nonrelevant"]
    qd += ["d1", "d2"]
    qg += [0, 0]
    qids += ["q_only_nonrelevant"] * 2
    docids += ["d1", "d3"]
    scores += [1.0, 1.0]
    return Run(np.array(qids), np.array(docids), np.array(scores)), Qrels(np.array(qq), np.array(qd), np.array(qg))


@pytest.mark.parametrize("seed", range(4))
def test_matches_pytrec_eval_on_every_query_of_random_runs_with_many_ties(seed):
    run, qrels = _random_tied_run(seed)
    assert _assert_parity(run, qrels) == 41


def test_matches_pytrec_eval_with_relevance_level_2():
    run, qrels = _random_tied_run(7)
    _assert_parity(run, qrels, relevance_level=2)


@pytest.fixture(scope="module")
def bm25_runs_on_the_bundled_collection() -> tuple[Run, Qrels]:
    """A real (weak) CLIR run on nave-en-es: the English test topics searched with BM25 (rank_bm25,
    lowercased whitespace tokens) over Spanish verses, so only names and cognates match; many
    zero-score ties. Documents: every verse judged for the first 40 topics plus 3,000 others."""
    from rank_bm25 import BM25Okapi

    from clirkit import datasets

    collection = datasets.load("nave-en-es")
    queries = dict(list(collection.queries("test").items())[:40])
    qrels = collection.qrels("test").subset(queries)
    ids, texts = collection.documents()
    judged = set(qrels.docids.tolist())
    rng = np.random.default_rng(0)
    keep = sorted(
        set(rng.choice(len(ids), 3000, replace=False).tolist()) | {i for i, d in enumerate(ids) if d in judged}
    )
    ids = [ids[i] for i in keep]
    bm25 = BM25Okapi([texts[i].lower().split() for i in keep])
    qids, docids, scores = [], [], []
    for qid, text in queries.items():
        s = bm25.get_scores(text.lower().replace(":", " ").split())
        top = np.argsort(-s, kind="stable")[:1000]
        qids += [qid] * len(top)
        docids += [ids[i] for i in top]
        scores += s[top].tolist()
    return Run.ranked(qids, docids, scores), qrels


def test_matches_pytrec_eval_on_every_query_of_bm25_runs_on_the_bundled_collection(bm25_runs_on_the_bundled_collection):
    run, qrels = bm25_runs_on_the_bundled_collection
    assert _assert_parity(run, qrels) == 40
    assert evaluate(run, qrels, ["AP"]).mean()["AP"] > 0  # names do match: a real, non-empty ranking


def test_ties_on_float32_scores_are_broken_by_docid_descending_unless_run_order_is_kept():
    # a > b in float64 but equal in float32: trec_eval puts "b" (larger docid) first
    run = Run(np.array(["q", "q"]), np.array(["a", "b"]), np.array([0.5 + 1e-12, 0.5]))
    qrels = Qrels(np.array(["q"]), np.array(["a"]), np.array([1]))
    assert evaluate(run, qrels, ["RR"]).mean()["RR"] == 0.5
    assert evaluate(run, qrels, ["RR"], ties="run").mean()["RR"] == 1.0


def test_ap_p_r_rr_ndcg_by_hand_formula():
    # ranking grades: 2, 0, 1, 0, 1 ; judged relevant: 4 documents (grades 2, 1, 1, 3), one never retrieved
    run = Run(np.array(["q"] * 5), np.array(["a", "b", "c", "d", "e"]), np.array([5.0, 4, 3, 2, 1]))
    qrels = Qrels(np.array(["q"] * 6), np.array(["a", "b", "c", "e", "z", "n"]), np.array([2, 0, 1, 1, 3, -1]))
    ev = evaluate(run, qrels, ["AP", "P@2", "R@3", "RR", "nDCG@3", "nDCG"])
    got = ev.mean()
    assert got["AP"] == pytest.approx((1 / 1 + 2 / 3 + 3 / 5) / 4)
    assert got["P@2"] == pytest.approx(1 / 2)
    assert got["R@3"] == pytest.approx(2 / 4)
    assert got["RR"] == 1.0
    dcg3 = 2 / math.log2(2) + 1 / math.log2(4)
    idcg3 = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert got["nDCG@3"] == pytest.approx(dcg3 / idcg3)
    dcg = dcg3 + 1 / math.log2(6)
    assert got["nDCG"] == pytest.approx(dcg / (idcg3 + 1 / math.log2(5)))


# --------------------------------------------------------------------------- PRES


def _run_with_relevant_at(ranks: list[int], n_relevant: int, length: int) -> tuple[Run, Qrels]:
    docids = np.array([f"d{i:04d}" for i in range(1, length + 1)])
    run = Run(np.array(["q"] * length), docids, np.arange(length, 0, -1, dtype=float))
    rel = [f"d{r:04d}" for r in ranks] + [f"missing{i}" for i in range(n_relevant - len(ranks))]
    return run, Qrels(np.array(["q"] * len(rel)), np.array(rel), np.ones(len(rel), dtype=int))


@pytest.mark.parametrize(
    "ranks, expected", [([1], 0.25), ([50, 51, 53, 54], 0.505), ([1, 2, 3, 4], 1.0), ([1, 98, 99, 100], 0.28)]
)
def test_pres_reproduces_the_four_spec_vectors_exactly(ranks, expected):
    run, qrels = _run_with_relevant_at(ranks, n_relevant=4, length=120)
    assert evaluate(run, qrels, ["PRES@100"]).mean()["PRES@100"] == expected


def test_pres_is_zero_when_no_relevant_document_is_found_within_n_max():
    run, qrels = _run_with_relevant_at([101, 110], n_relevant=3, length=120)
    assert evaluate(run, qrels, ["PRES@100"]).mean()["PRES@100"] == 0.0
    run, qrels = _run_with_relevant_at([], n_relevant=3, length=120)
    assert evaluate(run, qrels, ["PRES"]).mean()["PRES@1000"] == 0.0


def test_pres_default_browsing_depth_is_1000():
    assert parse_measure("PRES").name == "PRES@1000"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_pres_lies_between_n_recall_squared_over_n_max_and_recall(data):
    """Magdy & Jones: with n relevant documents, n_R of them found at distinct ranks <= N_max and
    R = n_R / n, PRES = 1 - (sum r_i / n - (n+1)/2) / N_max (missing ones at N_max + i) satisfies
    n R^2 / N_max <= PRES <= R: = R when the n_R are at ranks 1..n_R, = n R^2 / N_max at the bottom."""
    n_max = data.draw(st.integers(1, 60))
    n = data.draw(st.integers(1, 30))
    found = data.draw(st.lists(st.integers(1, n_max), unique=True, max_size=min(n, n_max)))
    run, qrels = _run_with_relevant_at(sorted(found), n_relevant=n, length=n_max + 5)
    pres = evaluate(run, qrels, [f"PRES@{n_max}"]).mean()[f"PRES@{n_max}"]
    recall = Fraction(len(found), n)
    ranks = sorted(found) + [n_max + i for i in range(len(found) + 1, n + 1)]
    oracle = 1 - (Fraction(sum(ranks), n) - Fraction(n + 1, 2)) / n_max
    assert pres == pytest.approx(float(oracle), abs=1e-12)
    assert float(n * recall**2 / n_max) - 1e-12 <= pres <= float(recall) + 1e-12


# --------------------------------------------------------------------------- SCS measures


def test_scs_graded_measures_on_hand_built_rankings():
    # q1 grades by rank: 1 0 2 1 0 0 ; q2: 0 0 0 0 0 2 ; q3: 2 2 0 1 2 (three MR in the top 5)
    grades = {"q1": [1, 0, 2, 1, 0, 0], "q2": [0, 0, 0, 0, 0, 2], "q3": [2, 2, 0, 1, 2]}
    qids, docids, scores, qq, qd, qg = [], [], [], [], [], []
    for q, gs in grades.items():
        for r, g in enumerate(gs):
            qids.append(q)
            docids.append(f"{q}-d{r}")
            scores.append(10.0 - r)
            if g:
                qq.append(q)
                qd.append(f"{q}-d{r}")
                qg.append(g)
    ev = evaluate(
        Run(np.array(qids), np.array(docids), np.array(scores)),
        Qrels(np.array(qq), np.array(qd), np.array(qg)),
        ["P_mr@1", "P_mr@5", "P_r@5", "MRR_mr", "MRR_r", "nDCG@5"],
        average="run",
    )
    got = ev.per_query()
    assert [got[q]["P_mr@1"] for q in grades] == [0.0, 0.0, 1.0]
    assert [got[q]["P_mr@5"] for q in grades] == [1.0, 0.0, 1.0]  # MR in the top 5, not divided by 5
    assert [got[q]["P_r@5"] for q in grades] == pytest.approx([3 / 5, 0.0, 4 / 5])
    assert [got[q]["MRR_mr"] for q in grades] == pytest.approx([1 / 3, 1 / 6, 1.0])
    assert [got[q]["MRR_r"] for q in grades] == pytest.approx([1.0, 1 / 6, 1.0])
    dcg = 1 + 2 / math.log2(4) + 1 / math.log2(5)
    idcg = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert got["q1"]["nDCG@5"] == pytest.approx(dcg / idcg)


def test_main_grade_option_moves_the_main_relevant_level():
    run = Run(np.array(["q", "q"]), np.array(["a", "b"]), np.array([2.0, 1.0]))
    qrels = Qrels(np.array(["q", "q"]), np.array(["a", "b"]), np.array([2, 3]))
    assert evaluate(run, qrels, ["MRR_mr"]).mean()["MRR_mr"] == 1.0
    assert evaluate(run, qrels, ["MRR_mr"], main_grade=3).mean()["MRR_mr"] == 0.5


# --------------------------------------------------------------------------- averaging


def test_qrels_average_scores_missing_queries_zero_and_run_average_skips_them():
    run = Run(np.array(["q1", "q9"]), np.array(["a", "a"]), np.array([1.0, 1.0]))
    qrels = Qrels(np.array(["q1", "q2", "q3"]), np.array(["a", "a", "x"]), np.array([1, 1, 0]))
    by_qrels = evaluate(run, qrels, ["AP"])
    assert by_qrels.qids.tolist() == ["q1", "q2", "q3"]
    assert by_qrels.values[:, 0].tolist() == [1.0, 0.0, 0.0]
    assert by_qrels.mean()["AP"] == pytest.approx(1 / 3)
    assert by_qrels.missing_queries == ("q2", "q3") and by_qrels.ignored_queries == ("q9",)
    by_run = evaluate(run, qrels, ["AP"], average="run")
    assert by_run.qids.tolist() == ["q1"] and by_run.mean()["AP"] == 1.0
    assert "qrels" in by_qrels.describe() and "run" in by_run.describe()


def test_query_without_relevant_documents_scores_zero_but_numret_counts_its_rows_as_pytrec_eval():
    # the module's docstring: every measure 0 but NumRet (its rows retrieved), as pytrec_eval with grades >= 0
    run = Run(np.array(["q1", "q1", "q2", "q2", "q2"]), np.array(list("axcxy")), np.array([2.0, 1, 3, 2, 1]))
    qrels = Qrels(np.array(["q1", "q2", "q2"]), np.array(["a", "c", "d"]), np.array([1, 0, 0]))
    names = {"NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "AP": "map", "P@5": "P_5"}
    ev = evaluate(run, qrels, list(names), average="run")
    assert ev.per_query()["q2"] == {"NumRet": 3.0, "NumRel": 0.0, "NumRelRet": 0.0, "AP": 0.0, "P@5": 0.0}
    oracle = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), set(names.values())).evaluate(run.to_dict())
    assert {m: oracle["q2"][t] for m, t in names.items()} == ev.per_query()["q2"]


def test_query_with_only_nonrelevant_judgments_scores_zero_and_counts_like_trec_eval():
    run = Run(np.array(["q1", "q2"]), np.array(["a", "b"]), np.array([1.0, 1.0]))
    qrels = Qrels(np.array(["q1", "q2"]), np.array(["a", "b"]), np.array([1, 0]))
    ev = evaluate(run, qrels, ["AP", "nDCG@10", "PRES"], average="run")
    assert ev.per_query()["q2"] == {"AP": 0.0, "nDCG@10": 0.0, "PRES@1000": 0.0}
    assert ev.mean()["AP"] == 0.5
    assert set(_pytrec(run, qrels)) == {"q1", "q2"}


def test_depth_limits_the_ranks_that_count():
    run, qrels = _run_with_relevant_at([3], n_relevant=1, length=10)
    assert evaluate(run, qrels, ["RR"], depth=2).mean()["RR"] == 0.0
    assert evaluate(run, qrels, ["RR"], depth=3).mean()["RR"] == pytest.approx(1 / 3)


def test_a_measure_cutoff_beyond_the_depth_is_refused_naming_the_measure_the_depth_and_the_fix():
    # a relevant document at rank 1500 of 2000: R@2000 at the default depth 1000 would call it not retrieved
    run, qrels = _run_with_relevant_at([1500], n_relevant=1, length=2000)
    for name in ("PRES@2000", "recall_2000", "P@2000", "nDCG@1001"):
        with pytest.raises(ClirkitError) as err:
            evaluate(run, qrels, ["AP", name])
        assert str(err.value) == (
            f"{name} reads ranks beyond depth 1000: give depth >= {name[-4:]} "
            f"(depth={name[-4:]}, or depth=None for every rank)"
        )
    with pytest.raises(ClirkitError, match="^PRES reads ranks beyond depth 999: give depth >= 1000 "):
        evaluate(run, qrels, ["AP", "PRES"], depth=999)  # PRES is PRES@1000
    for depth in (None, 2000):  # SPEC §8: PRES = 1 - (sum of ranks - n(n+1)/2) / (n N_max)
        means = evaluate(run, qrels, ["PRES@2000", "R@2000", "P@2000"], depth=depth).mean()
        assert means == pytest.approx({"PRES@2000": 1 - (1500 - 1) / 2000, "R@2000": 1.0, "P@2000": 1 / 2000})
    # a cutoff within the depth, and the measures without one, as before
    assert evaluate(run, qrels, ["R@1000", "AP", "NumRet"]).mean() == {"R@1000": 0.0, "AP": 0.0, "NumRet": 1000.0}


# --------------------------------------------------------------------------- trec_eval's and ir_measures' names

# spelling -> (pytrec_eval measure, relevance level); the spellings' parsing is pinned in test_measures.py
ALIASES = {
    "P.10": ("P_10", 1),
    "P_10": ("P_10", 1),
    "ndcg_cut.10": ("ndcg_cut_10", 1),
    "ndcg_cut_10": ("ndcg_cut_10", 1),
    "nDCG@10": ("ndcg_cut_10", 1),
    "ndcg": ("ndcg", 1),
    "map": ("map", 1),
    "AP@100": ("map_cut_100", 1),
    "map_cut.5": ("map_cut_5", 1),
    "recip_rank": ("recip_rank", 1),
    "recall.100": ("recall_100", 1),
    "Rprec": ("Rprec", 1),
    "num_rel_ret": ("num_rel_ret", 1),
    "NumRelRet": ("num_rel_ret", 1),
    "num_rel": ("num_rel", 1),
    "num_ret": ("num_ret", 1),
    "NumRet": ("num_ret", 1),
    "success_1": ("success_1", 1),
    "Success@5": ("success_5", 1),
    "success.10": ("success_10", 1),
    "P(rel=2)@10": ("P_10", 2),
    "P(rel=2)@5": ("P_5", 2),
    "AP(rel=2)": ("map", 2),
    "RR(rel=2)": ("recip_rank", 2),
    "Rprec(rel=2)": ("Rprec", 2),
    "NumRelRet(rel=2)": ("num_rel_ret", 2),
    "NumRel(rel=3)": ("num_rel", 3),
    "R(rel=2)@100": ("recall_100", 2),
}
PYTREC_FAMILIES = {
    "P",
    "ndcg_cut",
    "ndcg",
    "map",
    "map_cut",
    "recip_rank",
    "recall",
    "Rprec",
    "num_rel_ret",
    "num_rel",
    "num_ret",
    "success",
}


def pytrec_by_level(run: Run, qrels: Qrels, levels) -> dict[int, dict[str, dict[str, float]]]:
    """pytrec_eval's per-query values of :data:`PYTREC_FAMILIES` at each relevance level."""
    as_dict: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()):
        as_dict.setdefault(q, {})[d] = s
    return {
        level: pytrec_eval.RelevanceEvaluator(qrels.to_dict(), PYTREC_FAMILIES, relevance_level=level).evaluate(as_dict)
        for level in set(levels)
    }


def alias_groups() -> list[list[str]]:
    """:data:`ALIASES` split into lists without two spellings of one measure (those would share a column)."""
    groups: list[list[str]] = []
    for name in ALIASES:
        for group in groups:
            if parse_measure(name) not in [parse_measure(g) for g in group]:
                group.append(name)
                break
        else:
            groups.append([name])
    return groups


@pytest.mark.parametrize("seed", range(3))
def test_trec_eval_and_ir_measures_spellings_match_pytrec_eval_on_every_query(seed):
    run, qrels = _random_tied_run(seed)
    expected = pytrec_by_level(run, qrels, [level for _, level in ALIASES.values()])
    for group in alias_groups():
        ev = evaluate(run, qrels, group, average="run", depth=None, names="given")
        assert ev.measures == tuple(group)
        assert sorted(ev.qids.tolist()) == sorted(expected[1])
        for qid, row in zip(ev.qids.tolist(), ev.values):
            for name, value in zip(ev.measures, row):
                key, level = ALIASES[name]
                assert value == pytest.approx(expected[level][qid][key], abs=1e-6), (qid, name)


def test_new_measures_match_pytrec_eval_on_bm25_runs_on_the_bundled_collection(bm25_runs_on_the_bundled_collection):
    run, qrels = bm25_runs_on_the_bundled_collection
    names = ["Rprec", "num_rel_ret", "num_rel", "num_ret", "success_10", "P(rel=2)@10", "AP@100"]
    expected = pytrec_by_level(run, qrels, [ALIASES.get(n, ("", 1))[1] for n in names])
    ev = evaluate(run, qrels, names, average="run", depth=None, names="given")
    key = {"success_10": ("success_10", 1), **ALIASES}
    for qid, row in zip(ev.qids.tolist(), ev.values):
        for name, value in zip(ev.measures, row):
            assert value == pytest.approx(expected[key[name][1]][qid][key[name][0]], abs=1e-6), (qid, name)


def test_counts_and_r_precision_by_hand_formula():
    # ranking grades: 2, 0, 1, 0, 1 ; judged relevant: 4 documents (grades 2, 1, 1, 3), one never retrieved
    run = Run(np.array(["q"] * 5), np.array(["a", "b", "c", "d", "e"]), np.array([5.0, 4, 3, 2, 1]))
    qrels = Qrels(np.array(["q"] * 6), np.array(["a", "b", "c", "e", "z", "n"]), np.array([2, 0, 1, 1, 3, -1]))
    got = evaluate(
        run,
        qrels,
        ["NumRet", "NumRel", "NumRelRet", "Rprec", "Rprec(rel=2)", "Success@1", "Success(rel=3)@5", "NumRel(rel=2)"],
    ).mean()
    assert (got["NumRet"], got["NumRel"], got["NumRelRet"]) == (5.0, 4.0, 3.0)
    assert got["Rprec"] == 2 / 4  # top 4: grades 2, 0, 1, 0
    assert got["Rprec(rel=2)"] == 1 / 2  # R = 2 (grades 2 and 3): top 2 holds one of them
    assert (got["Success@1"], got["Success(rel=3)@5"], got["NumRel(rel=2)"]) == (1.0, 0.0, 2.0)


def test_rel_parameter_overrides_the_threshold_for_one_measure_only():
    run, qrels = _random_tied_run(5)
    both = evaluate(run, qrels, ["P@10", "P(rel=2)@10", "P(rel=1)@10"], rel_threshold=2)
    by_threshold = evaluate(run, qrels, ["P@10"], rel_threshold=2).column("P@10")
    np.testing.assert_array_equal(both.column("P(rel=2)@10"), by_threshold)
    np.testing.assert_array_equal(both.column("P@10"), by_threshold)
    np.testing.assert_array_equal(both.column("P(rel=1)@10"), evaluate(run, qrels, ["P@10"]).column("P@10"))


def test_columns_are_canonical_by_default_and_as_written_with_names_given():
    run, qrels = _random_tied_run(1)
    canonical = evaluate(run, qrels, ["P_10", "ndcg_cut.10", "map", "PRES", "P@10"])
    assert canonical.measures == ("P@10", "nDCG@10", "AP", "PRES@1000")
    given = evaluate(run, qrels, ["P_10", "ndcg_cut.10", "map", "PRES", "P@10"], names="given")
    assert given.measures == ("P_10", "ndcg_cut.10", "map", "PRES")
    np.testing.assert_array_equal(given.values, canonical.values)
    # any spelling finds a column, whichever way the columns are named
    np.testing.assert_array_equal(given.column("P.10"), canonical.column("P_10"))
    np.testing.assert_array_equal(given.column("ndcg_cut.10"), canonical.column("nDCG@10"))
    with pytest.raises(ClirkitError, match="RR was not computed"):
        given.column("recip_rank")
    with pytest.raises(ClirkitError, match="names must be one of"):
        evaluate(run, qrels, ["AP"], names="pretty")


# --------------------------------------------------------------------------- bad input

QRELS = Qrels(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([1, 0]))


@pytest.mark.parametrize("seed", [5, 6])
def test_measures_summed_over_the_relevant_rows_equal_the_per_row_sums_bit_for_bit(monkeypatch, seed):
    from clirkit import measures

    run, qrels = _random_tied_run(seed)
    made = []
    init = metrics.RankedQueries.__init__
    monkeypatch.setattr(metrics.RankedQueries, "__init__", lambda self, *a: init(self, *a) or made.append(self))
    evaluate(run, qrels, ["AP"], depth=None)
    r = made[0]

    def same(a, b):
        assert np.asarray(a, dtype=np.float64).view(np.uint64).tolist() == np.asarray(b).view(np.uint64).tolist()

    for level in (1, 2, 3):
        hit = r.relevant(level)
        same(measures._num_rel_ret(r, None, level), r.count(hit))
        same(
            measures._r_precision(r, None, level),
            r.divide(r.count(hit & (r.rank <= r.per_row(r.n_judged(level)))), r.n_judged(level)),
        )
        for k in (None, 1, 3, 10, 1000):
            top = r.top(k)
            same(
                measures._average_precision(r, k, level),
                r.divide(r.count(hit * r.hits_so_far(hit) / r.rank * top), r.n_judged(level)),
            )
            same(measures._reciprocal_rank(r, k, level), r.divide(1.0, r.first_rank(hit & top)))
            same(measures._recall(r, k, level), r.divide(r.count(hit & top), r.n_judged(level)))
            gains = np.where(top & (r.grades > 0), r.grades / np.log2(r.rank + 1.0), 0.0)
            same(r.dcg(k), r.count(gains))
            if k is not None:
                same(measures._precision(r, k, level), r.count(hit & top) / k)
                same(measures._success(r, k, level), (r.count(hit & top) > 0) * 1.0)


def test_run_whose_queries_are_all_absent_from_the_qrels_is_an_error():
    run = Run(np.array(["x1", "x2"]), np.array(["a", "a"]), np.array([1.0, 1.0]))
    with pytest.raises(ClirkitError, match="none of the run's 2 queries"):
        evaluate(run, QRELS)


def test_duplicate_docid_in_a_query_is_an_error():
    with pytest.raises(ClirkitError, match="Run row 3 repeats query q1 and document a"):  # refused when made
        Run(np.array(["q1"] * 3), np.array(["a", "c", "a"]), np.array([3.0, 2.0, 1.0]))


def test_same_docid_in_two_queries_is_fine():
    run = Run(np.array(["q1", "q2"]), np.array(["a", "a"]), np.array([1.0, 1.0]))
    qrels = Qrels(np.array(["q1", "q2"]), np.array(["a", "a"]), np.array([1, 1]))
    assert evaluate(run, qrels, ["AP"]).mean()["AP"] == 1.0


def test_nan_score_is_an_error():
    with pytest.raises(ClirkitError, match="document b is NaN"):  # refused when the run is made
        Run(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([1.0, np.nan]))


def test_empty_run_averaged_over_its_queries_and_empty_qrels_are_errors():
    empty = Run(np.array([], dtype=str), np.array([], dtype=str), np.array([]))
    with pytest.raises(ClirkitError, match="run holds no results"):
        evaluate(empty, QRELS, average="run")
    run = Run(np.array(["q1"]), np.array(["a"]), np.array([1.0]))
    with pytest.raises(ClirkitError, match="qrels are empty"):
        evaluate(run, Qrels(np.array([], dtype=str), np.array([], dtype=str), np.array([], dtype=int)))


def test_qrels_judging_a_document_twice_is_an_error():
    run = Run(np.array(["q1"]), np.array(["a"]), np.array([1.0]))
    with pytest.raises(ClirkitError, match="Qrels row 2 repeats query q1 and document a"):  # refused when made
        Qrels(np.array(["q1", "q1"]), np.array(["a", "a"]), np.array([1, 0]))
    qrels = Qrels(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([1, 0]))
    qrels.docids[1] = "a"  # (arrays changed since)
    with pytest.raises(ClirkitError, match="judge document a twice"):
        evaluate(run, qrels)


def test_hash_collisions_fall_back_to_the_exact_join(monkeypatch):
    run, qrels = _random_tied_run(3)
    fast = evaluate(run, qrels, list(PARITY))
    monkeypatch.setattr(hashing, "string_hash", lambda docids: np.zeros(len(docids), dtype=np.uint64))
    slow = evaluate(run, qrels, list(PARITY))
    np.testing.assert_array_equal(fast.values, slow.values)
    with pytest.raises(ClirkitError, match="repeats query q1 and document a"):  # refused when made, exactly
        Run(np.array(["q1"] * 2), np.array(["a", "a"]), np.array([2.0, 1.0]))


@pytest.mark.parametrize(
    "run_docs, judged_docs, expected_rr, exact_join",
    [
        (["b", "cc"], ["a"], 0.0, True),  # unjudged "b" collides with judged "a": a false hit
        # two different run docids collide: not a duplicate (Run made sure), and nothing to join them with
        (["x", "y", "zz"], ["zz"], 1 / 3, False),
        (["a"], ["a", "b"], 1.0, True),  # two different judged docids collide
    ],
)
def test_every_kind_of_hash_collision_is_detected_and_resolved_exactly(
    monkeypatch, run_docs, judged_docs, expected_rr, exact_join
):
    monkeypatch.setattr(hashing, "string_hash", lambda docids: np.char.str_len(docids).astype(np.uint64))
    exact_calls = []
    exact = metrics._lookup_grades_exact
    monkeypatch.setattr(metrics, "_lookup_grades_exact", lambda *a: exact_calls.append(1) or exact(*a))
    run = Run(np.array(["q1"] * len(run_docs)), np.array(run_docs), np.arange(len(run_docs), 0, -1.0))
    qrels = Qrels(np.array(["q1"] * len(judged_docs)), np.array(judged_docs), np.ones(len(judged_docs), int))
    assert evaluate(run, qrels, ["RR"]).mean()["RR"] == pytest.approx(expected_rr)
    assert exact_calls == [1] * exact_join


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((), {"rel_threshold": float("nan")}, "The 'rel_threshold' parameter of evaluate must be an int in the range"),
        ((), {"rel_threshold": 1.5}, "The 'rel_threshold' parameter of evaluate must be an int in the range [1, inf)"),
        ((), {"rel_threshold": None}, "The 'rel_threshold' parameter of evaluate must be an int"),
        (
            (),
            {"main_grade": float("nan")},
            "The 'main_grade' parameter of evaluate must be None or an int in the range [1, ",
        ),
        ((), {"main_grade": True}, "The 'main_grade' parameter of evaluate must be None or an int"),
        ((), {"depth": float("nan")}, "depth must be a whole number >= 1 (or None: every row), got nan"),
        ((), {"depth": 1.5}, "depth must be a whole number >= 1 (or None: every row), got 1.5"),
        ((), {"depth": True}, "depth must be a whole number >= 1 (or None: every row), got True"),
        ((), {"depth": "2"}, "depth must be a whole number >= 1 (or None: every row), got '2'"),
        ((None,), {}, 'measures must be a measure name or a list or tuple of names (e.g. ["AP", "nDCG@10"]), got None'),
        (({"AP"},), {}, "measures must be a measure name or a list or tuple of names"),
        ((["AP", None],), {}, "measures[1] must be a measure name (a str), got None"),
        ((["AP"],), {"ties": ["run"]}, "ties must be one of trec_eval, run, got ['run']"),
    ],
)
def test_options_of_a_wrong_type_or_nan_are_one_line_errors(args, kwargs, message):
    run = Run(np.array(["q1", "q1"]), np.array(["b", "a"]), np.array([2.0, 1.0]))
    qrels = Qrels(np.array(["q1", "q1"]), np.array(["a", "b"]), np.array([2, 1]))
    with pytest.raises(ClirkitError) as err:
        evaluate(run, qrels, *args, **kwargs)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_a_run_or_qrels_of_another_type_is_an_error_naming_the_constructor():
    run = Run(np.array(["q1"]), np.array(["a"]), np.array([1.0]))
    with pytest.raises(
        ClirkitError, match=r"^run: expected a Run \(Run.from_dict\(...\), read_run\(path\)\), got dict$"
    ):
        evaluate({"q1": {"a": 1.0}}, QRELS)
    with pytest.raises(ClirkitError, match=r"^qrels: expected Qrels \(read_qrels\(path\), .*got dict$"):
        evaluate(run, {"q1": {"a": 1}})
    with pytest.raises(ClirkitError, match="^run: expected a Run .*got Qrels$"):
        evaluate(QRELS, run)  # the two swapped


def test_bad_options_are_errors():
    run = Run(np.array(["q1"]), np.array(["a"]), np.array([1.0]))
    for kwargs, message in [
        ({"ties": "x"}, "ties"),
        ({"average": "x"}, "average"),
        ({"depth": 0}, "depth"),
        ({"main_grade": 0}, "main_grade"),
        ({"rel_threshold": 0}, "rel_threshold"),
    ]:
        with pytest.raises(ClirkitError, match=message):
            evaluate(run, QRELS, **kwargs)
