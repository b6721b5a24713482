"""clirkit.measures: the registry, every spelling of every measure, (rel=N), close-match errors, help text."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from clirkit import measures
from clirkit.errors import ClirkitError
from clirkit.measures import (
    MEASURE_NAMES_HELP,
    REGISTRY,
    Measure,
    MeasureDef,
    beyond_depth,
    names_help,
    parse_measure,
    parse_measures,
    register,
    split_measure_list,
)
from clirkit.run import Qrels, Run

# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("AP", "AP"),
        ("map", "AP"),
        ("MAP", "AP"),
        ("map_cut_10", "AP@10"),
        ("PRES@1000", "PRES@1000"),
        ("nDCG@10", "nDCG@10"),
        ("NDCG@5", "nDCG@5"),
        ("ndcg_cut_10", "nDCG@10"),
        ("P@10", "P@10"),
        ("P_10", "P@10"),
        ("R@1000", "R@1000"),
        ("recall_1000", "R@1000"),
        ("RR", "RR"),
        ("MRR", "RR"),
        ("recip_rank", "RR"),
        ("P_mr@5", "P_mr@5"),
        ("p_r@5", "P_r@5"),
        ("MRR_mr", "MRR_mr"),
        ("mrr_r", "MRR_r"),
    ],
)
def test_measure_names_are_parsed_as_users_write_them(name, canonical):
    assert parse_measure(name).name == canonical


@pytest.mark.parametrize(
    "name, canonical",
    [
        ("P.10", "P@10"),
        ("ndcg_cut.10", "nDCG@10"),
        ("map_cut.100", "AP@100"),
        ("recall.1000", "R@1000"),
        ("AP@100", "AP@100"),
        ("ndcg", "nDCG"),
        ("Rprec", "Rprec"),
        ("num_rel_ret", "NumRelRet"),
        ("NumRelRet", "NumRelRet"),
        ("num_rel", "NumRel"),
        ("num_ret", "NumRet"),
        ("NumRet", "NumRet"),
        ("success_5", "Success@5"),
        ("success.10", "Success@10"),
        ("Success@1", "Success@1"),
        ("P(rel=2)@10", "P(rel=2)@10"),
        ("p( REL = 2 )@10", "P(rel=2)@10"),
        ("RR(rel=3)", "RR(rel=3)"),
        ("AP(rel=2)@100", "AP(rel=2)@100"),
        ("P_mr(rel=3)@5", "P_mr(rel=3)@5"),
    ],
)
def test_trec_eval_and_ir_measures_spellings_are_aliases(name, canonical):
    assert parse_measure(name).name == canonical


def test_every_spelling_of_every_registered_measure_parses_back_to_it():
    for d in REGISTRY.values():
        k = "@10" if d.cutoff != "none" else ""
        for spelling in (d.name, *d.aliases, *(t for t in d.trec_names if "{k}" not in t)):
            assert parse_measure(spelling + k).kind == d.name, spelling
        for t in (t for t in d.trec_names if "{k}" in t):
            for sep in "_.":
                measure = parse_measure(t.replace("_{k}", f"{sep}10"))
                assert (measure.kind, measure.cutoff) == (d.name, 10), t


def test_the_label_keeps_the_spelling_but_equality_is_the_measure():
    m = parse_measure(" P_10 ")
    assert (m.name, m.label) == ("P@10", "P_10")
    assert m == parse_measure("P@10") == parse_measure("p.10")
    assert parse_measure(m) is m
    assert Measure("AP", "AP", None).label == "AP"


def test_rel_sets_the_level_and_otherwise_the_evaluation_decides():
    assert parse_measure("P(rel=3)@10").level(rel_threshold=1, main_grade=2) == 3
    assert parse_measure("P@10").level(rel_threshold=2, main_grade=4) == 2
    assert parse_measure("P_mr@10").level(rel_threshold=2, main_grade=4) == 4
    assert parse_measure("nDCG@10").level(rel_threshold=2, main_grade=4) is None


@pytest.mark.parametrize(
    "name, message",
    [
        ("foo", "unknown measure 'foo'"),
        ("P", "needs a cutoff"),
        ("P@0", "at least 1"),
        ("MRR_mr@5", "takes no cutoff"),
        ("Rprec@10", "takes no cutoff"),
        ("Success", "needs a cutoff"),
        ("nDCG(rel=2)@10", "nDCG takes no relevance level"),
        ("NumRet(rel=2)", "(rel=N) is for AP, PRES, P"),
        ("P(rel=0)@10", "rel must be at least 1"),
        ("P(gain=2)@10", "take one parameter, rel=N"),
        ("MAP@x", "unknown measure 'MAP@x': expected NAME, NAME@k or NAME(rel=N)@k"),
    ],
)
def test_bad_measure_names_give_a_clear_error(name, message):
    with pytest.raises(ClirkitError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_measure(name)


@pytest.mark.parametrize(
    "name, suggestion",
    [
        ("nDGC@10", "nDCG@10"),
        ("ndcg_cutt_10", "ndcg_cut_10"),
        ("recip_rnk", "recip_rank"),
        ("AP_10", "AP@10"),
        ("succes.5", "success_5"),
        ("Rprek", "Rprec"),
        ("num_rell", "num_rel"),
    ],
)
def test_unknown_names_list_close_matches_on_one_line(name, suggestion):
    with pytest.raises(ClirkitError) as info:
        parse_measure(name)
    text = str(info.value)
    assert f"unknown measure {name!r}" in text and "did you mean" in text and suggestion in text
    assert "\n" not in text and "known measures: AP, PRES, nDCG" in text


def test_lists_split_on_commas_outside_parentheses_and_duplicates_keep_the_first_spelling():
    assert split_measure_list(["AP,P@10", " RR ,", "X(a=1,b=2)"]) == ["AP", "P@10", "RR", "X(a=1,b=2)"]
    parsed = parse_measures(["P_10,AP", "P@10", "map", "P(rel=2)@10"])
    assert [m.label for m in parsed] == ["P_10", "AP", "P(rel=2)@10"]
    assert [m.name for m in parse_measures("AP, nDCG@10")] == ["AP", "nDCG@10"]
    with pytest.raises(ClirkitError, match="no measure given"):
        parse_measures(" , ")


@pytest.mark.parametrize(
    "names, said",
    [
        (["P_10,AP", "P@10"], "-m lists P@10 twice (as 'P_10' and 'P@10'): list each once"),
        (["AP", " map "], "-m lists AP twice (as 'AP' and 'map'): list each once"),
        (["AP", "AP"], "-m lists 'AP' twice: list each once"),
    ],
)
def test_a_list_given_once_each_refuses_a_measure_given_twice_naming_both_spellings(names, said):
    with pytest.raises(ClirkitError) as err:
        parse_measures(names, once="-m")
    assert str(err.value) == said
    assert [m.name for m in parse_measures(["AP", "P_10", "P(rel=2)@10"], once="-m")] == ["AP", "P@10", "P(rel=2)@10"]


@pytest.mark.parametrize(
    "names, message",
    [
        (None, 'measures must be a measure name or a list or tuple of names (e.g. ["AP", "nDCG@10"]), got None'),
        (5, 'measures must be a measure name or a list or tuple of names (e.g. ["AP", "nDCG@10"]), got 5'),
        ({"AP", "P@10"}, "measures must be a measure name or a list or tuple of names"),  # (no order for columns)
        (["AP", None], "measures[1] must be a measure name (a str), got None"),
        (("AP", 10), "measures[1] must be a measure name (a str), got 10"),
    ],
)
def test_measures_neither_a_name_nor_a_list_or_tuple_of_names_are_one_line_errors(names, message):
    with pytest.raises(ClirkitError) as err:
        parse_measures(names)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_beyond_depth_names_the_first_measure_whose_cutoff_the_depth_does_not_hold():
    parsed = parse_measures(["AP", "P@10", "recall_2000", "PRES"])
    assert beyond_depth(parsed, 1000).label == "recall_2000"
    assert beyond_depth(parsed, 999).label == "recall_2000"
    assert beyond_depth(parsed[:2] + parsed[3:], 999).label == "PRES"  # PRES@1000
    assert beyond_depth(parsed, 2000) is None and beyond_depth(parsed, None) is None
    assert beyond_depth(parse_measures(["AP", "NumRet", "R"]), 1) is None  # no cutoff: within any depth


# --------------------------------------------------------------------------- the registry


def test_help_text_is_generated_from_the_registry():
    assert MEASURE_NAMES_HELP == names_help()
    for d in REGISTRY.values():
        assert d.spelling() in MEASURE_NAMES_HELP
        for alias in d.aliases:
            assert alias in MEASURE_NAMES_HELP
        for t in d.trec_names:
            assert t.replace("{k}", "k") in MEASURE_NAMES_HELP
    assert "P@k (P_k)" in MEASURE_NAMES_HELP and "PRES[@k] (default @1000)" in MEASURE_NAMES_HELP


@pytest.fixture
def scratch_registry(monkeypatch):
    """The registry's tables, restored after the test."""
    for name in ("REGISTRY", "_AT_SPELLINGS", "_TREC_CUT_SPELLINGS"):
        monkeypatch.setattr(measures, name, dict(getattr(measures, name)))


def test_a_new_measure_is_one_register_call(scratch_registry):
    # relevant documents in the top k, not divided by k
    register(
        MeasureDef(
            "Hits",
            lambda r, k, level: r.count(r.relevant(level) & r.top(k)),
            "relevant documents in the top k",
            aliases=("hits",),
            trec_names=("hits_{k}",),
            cutoff="required",
        )
    )
    from clirkit.metrics import evaluate

    run = Run(np.array(["q"] * 4), np.array(["a", "b", "c", "d"]), np.array([4.0, 3, 2, 1]))
    qrels = Qrels(np.array(["q"] * 3), np.array(["a", "c", "d"]), np.array([1, 2, 1]))
    ev = evaluate(run, qrels, ["Hits@3", "hits.4", "Hits(rel=2)@4"], names="given")
    assert ev.mean() == {"Hits@3": 2.0, "hits.4": 3.0, "Hits(rel=2)@4": 1.0}
    assert "Hits@k (hits, hits_k)" in names_help()


def test_register_refuses_clashing_spellings_and_bad_rules(scratch_registry):
    def f(r, k, level):
        return r.count(r.top(k))

    with pytest.raises(ValueError, match="already AP's"):
        register(MeasureDef("MyAP", f, "x", aliases=("map",)))
    with pytest.raises(ValueError, match="already P's"):
        register(MeasureDef("Prec", f, "x", trec_names=("P_{k}",), cutoff="required"))
    with pytest.raises(ValueError, match="cutoff must be one of"):
        register(MeasureDef("X", f, "x", cutoff="sometimes"))
    with pytest.raises(ValueError, match="level must be one of"):
        register(MeasureDef("X", f, "x", level="strict"))
    with pytest.raises(ValueError, match="only an optional cutoff has a default"):
        register(MeasureDef("X", f, "x", cutoff="required", default_cutoff=10))
    with pytest.raises(ValueError, match="must end with _{k}"):
        register(MeasureDef("X", f, "x", trec_names=("x_{k}",)))
    with pytest.raises(ValueError, match="registered twice"):
        register(MeasureDef("AP", f, "x"))


def test_the_registry_imports_without_numpy():
    code = "import sys, clirkit.measures as m; m.parse_measure('P(rel=2)@10'); print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_metrics_re_exports_the_registry_names():
    from clirkit import metrics

    for name in (
        "parse_measure",
        "parse_measures",
        "Measure",
        "DEFAULT_MEASURES",
        "MEASURE_NAMES_HELP",
        "SCS_MEASURES",
    ):
        assert getattr(metrics, name) is getattr(measures, name)
