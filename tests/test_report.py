"""clirkit.report: per-run means, paired significance marks and the four layouts (text, markdown, csv, json).

The evaluations are written by hand over six test topics of the bundled nave-en-es collection, so
every mean and every exact randomization p-value is a hand formula: with n queries whose differences
all have one sign, only the all-plus and all-minus sign vectors reach |sum d|, so p = 2 / 2^n.
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.metrics import Evaluation
from clirkit.report import FORMATS, Report, score_table, significance
from clirkit.run import Qrels, Run

QIDS = ["ABDI.1", "ABIRAM.1", "ABIRAM.2", "ABISHAG.1", "ABITAL.1", "ACHOR.1"]
MEASURES = ("AP", "P@10", "RR")
PSQ = {"AP": [0.1, 0.2, 0.3, 0.2, 0.3, 0.4], "P@10": [0.1] * 6, "RR": [1.0, 0.5, 1.0, 0.5, 1.0, 0.5]}
# AP and P@10 better on every query (p = 2/2^6); RR differences -0.5, +0.5, 0, 0, 0, +0.5: every sign vector
# reaches |sum| >= 0.5, so p = 1
BOOST = {"AP": [0.4, 0.5, 0.6, 0.5, 0.4, 0.6], "P@10": [0.3] * 6, "RR": [0.5, 1.0, 1.0, 0.5, 1.0, 1.0]}
P_ALL_BETTER = 2 / 2**6


def _ev(columns, qids=QIDS, *, tag="clirkit", average="qrels", missing=(), ignored=()) -> Evaluation:
    values = np.array([columns[m] for m in MEASURES], dtype=np.float64).T
    return Evaluation(MEASURES, np.array(qids), values, average, tag, tuple(missing), tuple(ignored))


def _report(**kwargs) -> Report:
    kwargs.setdefault("qrels", "qrels.test.txt")
    return Report(["psq.run", "boost.run"], [_ev(PSQ, tag="psq"), _ev(BOOST, tag="boost")], **kwargs)


# ---------------------------------------------------------------------------- significance()


def test_significance_tests_every_run_but_the_baseline_per_measure():
    tests = significance([_ev(PSQ), _ev(BOOST)])
    assert sorted(tests) == [(1, "AP"), (1, "P@10"), (1, "RR")]
    assert tests[(1, "AP")].p_value == P_ALL_BETTER and tests[(1, "AP")].exact
    assert tests[(1, "RR")].p_value == 1.0
    assert tests[(1, "AP")].mean_difference == pytest.approx((0.3 + 0.3 + 0.3 + 0.3 + 0.1 + 0.2) / 6)


def test_significance_pairs_queries_by_id_over_the_common_ones():
    base = _ev({"AP": [0.1, 0.2, 0.3], "P@10": [0.0] * 3, "RR": [0.0] * 3}, ["ABDI.1", "ABIRAM.1", "ACHOR.1"])
    # other order, one query (ABITAL.1) the baseline lacks
    other = _ev({"AP": [0.6, 0.4, 0.9], "P@10": [0.0] * 3, "RR": [0.0] * 3}, ["ACHOR.1", "ABDI.1", "ABITAL.1"])
    result = significance([base, other])[(1, "AP")]
    assert result.n == 2
    assert result.mean_difference == pytest.approx(((0.4 - 0.1) + (0.6 - 0.3)) / 2)


def test_significance_skips_runs_sharing_no_query_and_is_empty_for_none_or_one_run():
    elsewhere = _ev(BOOST, ["GEN.1", "GEN.2", "GEN.3", "GEN.4", "GEN.5", "GEN.6"])
    assert significance([_ev(PSQ), elsewhere]) == {}
    assert significance([_ev(PSQ), _ev(BOOST)], test="none") == {}
    assert significance([_ev(PSQ)]) == {}


def test_significance_against_another_baseline_tests_the_first_run():
    tests = significance([_ev(PSQ), _ev(BOOST)], baseline=1, test="t-test")
    assert sorted(tests) == [(0, "AP"), (0, "P@10"), (0, "RR")]
    # a constant difference: the t statistic is undefined (zero variance), no p-value (round 23)
    assert tests[(0, "P@10")].method == "t-test" and math.isnan(tests[(0, "P@10")].p_value)


# ---------------------------------------------------------------------------- text


def test_text_aligns_ids_left_numbers_right_marks_significant_means_and_ends_with_notes():
    assert _report().text() == (
        "run        queries       AP     P@10      RR\n"
        "psq.run    6         0.2500   0.1000  0.7500\n"
        "boost.run  6        *0.5000  *0.3000  0.8333\n"
        "# qrels qrels.test.txt: mean over the 6 queries of the qrels; a query without run lines scores 0\n"
        "# * = p < 0.05 against psq.run (paired randomization test, exact: all 2^6 = 64 sign vectors, two-sided)\n"
    )


def test_a_mark_needs_p_below_alpha():
    five = {m: v[:5] for m, v in BOOST.items()}
    evs = [_ev({m: v[:5] for m, v in PSQ.items()}, QIDS[:5]), _ev(five, QIDS[:5])]
    # five queries, all better: p = 2/2^5 = 0.0625
    strict = Report(["psq.run", "boost.run"], evs).text().splitlines()
    assert strict[2].split()[2] == "0.4800"  # (0.4 + 0.5 + 0.6 + 0.5 + 0.4) / 5, no star at alpha 0.05
    loose = Report(["psq.run", "boost.run"], evs, alpha=0.1).text().splitlines()
    assert loose[2].split()[2] == "*0.4800"
    assert "# * = p < 0.1 against psq.run" in loose[-1]


def test_the_baseline_is_never_marked_and_the_note_names_it():
    lines = _report(baseline=1).text().splitlines()
    assert lines[1].split() == ["psq.run", "6", "*0.2500", "*0.1000", "0.7500"]  # tested against boost.run
    assert lines[2].split() == ["boost.run", "6", "0.5000", "0.3000", "0.8333"]
    assert "against boost.run" in lines[-1]


def test_no_test_means_no_marks_and_no_significance_note():
    text = _report(test="none").text()
    assert "*" not in text
    assert text.splitlines()[-1].startswith("# qrels qrels.test.txt: mean over the 6 queries")


def test_t_test_note_and_permutation_settings_in_the_note():
    assert _report(test="t-test").text().splitlines()[-2] == "# * = p < 0.05 against psq.run (paired t-test, two-sided)"
    assert "(paired randomization test, exact: all 2^6 = 64 sign vectors, two-sided)" in _report(permutations=64).text()
    assert (  # 2^6 sign vectors are more than 50: 50 drawn
        "(paired randomization test, 50 permutations, seed 7, two-sided)" in _report(permutations=50, seed=7).text()
    )


def test_notes_count_missing_and_ignored_queries_and_word_the_average():
    evs = [_ev(PSQ, missing=["ABDI.1", "ACHOR.1"], average="run"), _ev(BOOST, ignored=["GEN.1"], average="run")]
    notes = [
        line
        for line in Report(["psq.run", "boost.run"], evs, average="run", qrels="q.txt").text().splitlines()
        if line.startswith("#")
    ]
    assert notes[0] == "# qrels q.txt: mean over each run's queries that the qrels judge"
    assert notes[2:] == [
        "# psq.run: 2 qrels queries without run lines",
        "# boost.run: 1 run query not in the qrels, ignored",
    ]


def test_per_query_text_lists_each_query_then_the_mean_as_all():
    lines = _report(per_query=True, test="none").text().splitlines()
    assert lines[0].split() == ["run", "qid", "AP", "P@10", "RR"]
    assert lines[1].split() == ["psq.run", "ABDI.1", "0.1000", "0.1000", "1.0000"]
    assert lines[7].split() == ["psq.run", "all", "0.2500", "0.1000", "0.7500"]
    assert lines[8].split() == ["boost.run", "ABDI.1", "0.4000", "0.3000", "0.5000"]
    assert lines[14].split() == ["boost.run", "all", "0.5000", "0.3000", f"{5 / 6:.4f}"]
    assert len(lines) == 1 + 2 * 7 + 1  # header, 2 x (6 queries + all), one note


# ---------------------------------------------------------------------------- markdown


def test_markdown_table_right_aligns_measures_escapes_stars_and_breaks_note_lines():
    assert _report().markdown() == (
        "| run | queries | AP | P@10 | RR |\n"
        "|---|---|---:|---:|---:|\n"
        "| psq.run | 6 | 0.2500 | 0.1000 | 0.7500 |\n"
        "| boost.run | 6 | \\*0.5000 | \\*0.3000 | 0.8333 |\n"
        "\n"
        "qrels qrels.test.txt: mean over the 6 queries of the qrels; a query without run lines scores 0  \n"
        "\\* = p < 0.05 against psq.run (paired randomization test, exact: all 2^6 = 64 sign vectors, two-sided)\n"
    )


def test_per_query_markdown_has_a_qid_column():
    lines = _report(per_query=True).markdown().splitlines()
    assert lines[0] == "| run | qid | AP | P@10 | RR |"
    assert lines[1] == "|---|---|---:|---:|---:|"
    assert lines[2] == "| psq.run | ABDI.1 | 0.1000 | 0.1000 | 1.0000 |"
    assert lines[8] == "| psq.run | all | 0.2500 | 0.1000 | 0.7500 |"


# ---------------------------------------------------------------------------- csv


def test_csv_keeps_full_precision_and_adds_p_value_columns():
    report = _report()
    rows = list(csv.reader(io.StringIO(report.csv())))
    assert rows[0] == ["run", "queries", "AP", "P@10", "RR", "p(AP)", "p(P@10)", "p(RR)"]
    assert rows[1][:2] == ["psq.run", "6"] and rows[1][5:] == ["", "", ""]  # the baseline is not tested
    assert rows[2][5:] == [repr(P_ALL_BETTER), repr(P_ALL_BETTER), "1.0"]
    # means as repr (no rounding to 4 places, no star)
    for row, ev in zip(rows[1:], report.evs):
        assert [float(c) for c in row[2:5]] == [ev.mean()[m] for m in MEASURES]
    assert float(rows[2][4]) == pytest.approx(5 / 6, abs=1e-15)


def test_csv_without_tests_has_no_p_columns():
    rows = list(csv.reader(io.StringIO(_report(test="none").csv())))
    assert rows[0] == ["run", "queries", "AP", "P@10", "RR"]
    assert len(rows) == 3


def test_csv_leaves_an_undefined_p_value_empty():
    # t-test over a single common query is undefined (NaN)
    one = _ev(BOOST, ["ABDI.1", "GEN.2", "GEN.3", "GEN.4", "GEN.5", "GEN.6"])
    rows = list(csv.reader(io.StringIO(Report(["psq.run", "one.run"], [_ev(PSQ), one], test="t-test").csv())))
    assert rows[2][5:] == ["", "", ""]


def test_per_query_csv_is_tidy_one_row_per_run_and_query_without_a_mean_row():
    rows = list(csv.reader(io.StringIO(_report(per_query=True).csv())))
    assert rows[0] == ["run", "qid", "AP", "P@10", "RR"]
    assert len(rows) == 1 + 2 * 6 and all(r[1] != "all" for r in rows[1:])
    assert rows[1] == ["psq.run", "ABDI.1", "0.1", "0.1", "1.0"]
    assert rows[12] == ["boost.run", "ACHOR.1", "0.6", "0.3", "1.0"]


# ---------------------------------------------------------------------------- json


def test_json_echoes_the_settings_and_gives_means_and_significance_per_run():
    doc = json.loads(_report(depth=100, rel_threshold=2, ties="run").json())
    assert {
        k: doc[k]
        for k in (
            "qrels",
            "average",
            "measures",
            "baseline",
            "test",
            "alpha",
            "permutations",
            "seed",
            "depth",
            "rel_threshold",
            "ties",
        )
    } == {
        "qrels": "qrels.test.txt",
        "average": "qrels",
        "measures": list(MEASURES),
        "baseline": "psq.run",
        "test": "randomization",
        "alpha": 0.05,
        "permutations": 10_000,
        "seed": 0,
        "depth": 100,
        "rel_threshold": 2,
        "ties": "run",
    }
    assert doc["description"] == "mean over the 6 queries of the qrels"
    psq, boost = doc["runs"]
    assert psq["run"] == "psq.run" and psq["tag"] == "psq" and psq["queries"] == 6
    assert psq["mean"] == _ev(PSQ).mean()
    assert "significance" not in psq and "per_query" not in psq
    assert boost["significance"]["AP"] == {
        "test": "randomization",
        "p_value": P_ALL_BETTER,
        "mean_difference": pytest.approx(0.25),
        "queries": 6,
        "significant": True,
    }
    assert boost["significance"]["RR"]["p_value"] == 1.0 and boost["significance"]["RR"]["significant"] is False


def test_json_lists_missing_and_ignored_queries_and_per_query_values():
    evs = [_ev(PSQ, missing=["ACHOR.1"]), _ev(BOOST, ignored=["GEN.1"])]
    doc = json.loads(Report(["psq.run", "boost.run"], evs, per_query=True).json())
    assert doc["runs"][0]["missing_queries"] == ["ACHOR.1"] and doc["runs"][1]["ignored_queries"] == ["GEN.1"]
    assert doc["runs"][1]["per_query"]["ABIRAM.2"] == {"AP": 0.6, "P@10": 0.3, "RR": 1.0}


def test_json_writes_an_undefined_p_value_as_null_and_not_significant():
    one = _ev(BOOST, ["ABDI.1", "GEN.2", "GEN.3", "GEN.4", "GEN.5", "GEN.6"])
    doc = json.loads(Report(["psq.run", "one.run"], [_ev(PSQ), one], test="t-test").json())
    assert doc["runs"][1]["significance"]["AP"]["p_value"] is None
    assert doc["runs"][1]["significance"]["AP"]["significant"] is False


def test_json_of_a_single_run_says_no_test():
    doc = json.loads(Report(["psq.run"], [_ev(PSQ)]).json())
    assert doc["test"] == "none" and "significance" not in doc["runs"][0]


# ---------------------------------------------------------------------------- render


@pytest.mark.parametrize("fmt", FORMATS)
def test_render_dispatches_to_the_format_and_ends_with_a_newline(fmt):
    report = _report()
    out = report.render(fmt)
    assert out == getattr(report, fmt)() and out.endswith("\n") and not out.endswith("\n\n")


def test_render_defaults_to_text():
    assert _report().render() == _report().text()


def test_nan_p_value_never_marks():
    one = _ev(BOOST, ["ABDI.1", "GEN.2", "GEN.3", "GEN.4", "GEN.5", "GEN.6"])
    report = Report(["psq.run", "one.run"], [_ev(PSQ), one], test="t-test")
    assert math.isnan(report.tests[(1, "AP")].p_value)
    assert "*" not in report.text().splitlines()[2]


# ---------------------------------------------------------------------------- score_table

# one judged verse per test topic of nave-en-es (the first line of each topic's qrels)
RELEVANT = {
    "ABDI.1": "2Chr.29.12",
    "ABIRAM.1": "Num.16.1",
    "ABIRAM.2": "Num.16.1",
    "ABISHAG.1": "1Kgs.1.1",
    "ABITAL.1": "2Sam.3.4",
    "ACHOR.1": "Josh.7.26",
}


def _weak_and_strong():
    """The relevant verse at rank 2 (weak: AP 1/2, P@1 0) or rank 1 (strong: AP 1, P@1 1) on every query."""
    qrels = Qrels(list(RELEVANT), list(RELEVANT.values()), [2] * len(RELEVANT))
    qids = [q for q in RELEVANT for _ in range(2)]
    weak = Run(qids, [d for rel in RELEVANT.values() for d in ("Gen.1.1", rel)], [2.0, 1.0] * len(RELEVANT))
    strong = Run(qids, [d for rel in RELEVANT.values() for d in (rel, "Gen.1.1")], [2.0, 1.0] * len(RELEVANT))
    return qrels, weak, strong


def test_score_table_is_the_text_report_of_the_evaluated_runs_without_trailing_newline():
    qrels, weak, strong = _weak_and_strong()
    text = score_table({"weak": weak, "strong": strong}, qrels, ("AP", "P@1"), qrels_label="qrels.test.txt")
    assert text.split("\n") == [
        "run     queries       AP      P@1",
        "weak    6         0.5000   0.0000",
        "strong  6        *1.0000  *1.0000",  # better on all 6 queries: p = 2/2^6
        "# qrels qrels.test.txt: mean over the 6 queries of the qrels; a query without run lines scores 0",
        "# * = p < 0.05 against weak (paired randomization test, exact: all 2^6 = 64 sign vectors, two-sided)",
    ]
    flipped = score_table({"weak": weak, "strong": strong}, qrels, ("AP",), baseline="strong")
    assert flipped.split("\n")[1].split() == ["weak", "6", "*0.5000"] and "against strong" in flipped


def test_score_table_gains_are_mean_differences_in_points_with_p_values():
    qrels, weak, strong = _weak_and_strong()
    text = score_table({"weak": weak, "strong": strong}, qrels, ("AP", "P@1"), gains=("AP", "P@1"))
    # AP 1 - 1/2 = +50 points, P@1 1 - 0 = +100 points, p = 2/2^6 = 0.03125 printed to 4 places
    assert text.split("\n\n")[1].split("\n") == [
        "gains over weak in points:",
        "strong vs weak: AP +50.00 (p 0.0312), P@1 +100.00 (p 0.0312)",
    ]


# ---------------------------------------------------------------------------- misuse


@pytest.mark.parametrize(
    "labels, evs, kwargs, message",
    [
        (["psq.run"], [_ev(PSQ), _ev(BOOST)], {}, "1 labels for 2 evaluations: give one label per evaluation"),
        (["psq.run", "boost.run"], [_ev(PSQ)], {}, "2 labels for 1 evaluations: give one label per evaluation"),
        ([], [], {}, "a report needs at least one evaluation (and its label)"),
        (["psq.run", "x"], [_ev(PSQ), {"AP": 0.1}], {}, "evaluations[1] must be an Evaluation"),
        (["psq.run", 5], [_ev(PSQ), _ev(BOOST)], {}, "labels[1] must be a str, got 5"),
        (
            ["psq.run", "ap.run"],
            [_ev(PSQ), Evaluation(("AP",), np.array(QIDS), np.zeros((6, 1)), "qrels")],
            {},
            "evaluations[1] (ap.run) has the measures AP, evaluations[0] (psq.run) AP, P@10, RR: evaluate every run "
            "with the same measures",
        ),
        (
            ["psq.run", "boost.run"],
            [_ev(PSQ), _ev(BOOST, average="run")],
            {},
            "evaluations[1] (boost.run) was made with average='run', evaluations[0] (psq.run) with "
            "average='qrels': evaluate every run with the same average",
        ),
        (
            ["psq.run"],
            [_ev(PSQ)],
            {"average": "run"},
            "average='run', but the evaluations were made with average='qrels': leave average out",
        ),
        (
            ["psq.run", "boost.run"],
            [_ev(PSQ), _ev(BOOST)],
            {"baseline": 5},
            "baseline must be the index of a run, 0 to 1, got 5",
        ),
        (["psq.run", "boost.run"], [_ev(PSQ), _ev(BOOST)], {"baseline": -1}, "baseline must be the index of a run"),
        (["psq.run", "boost.run"], [_ev(PSQ), _ev(BOOST)], {"baseline": True}, "baseline must be the index of a run"),
        (["psq.run", "boost.run"], [_ev(PSQ), _ev(BOOST)], {"alpha": 2}, "alpha must be a number in (0, 1), got 2"),
        (["psq.run", "boost.run"], [_ev(PSQ), _ev(BOOST)], {"alpha": 0}, "alpha must be a number in (0, 1), got 0"),
        (["psq.run", "boost.run"], [_ev(PSQ), _ev(BOOST)], {"alpha": math.nan}, "alpha must be a number in (0, 1)"),
        (["psq.run", "boost.run"], [_ev(PSQ), _ev(BOOST)], {"test": "wilcoxon"}, "test must be one of randomization"),
    ],
)
def test_misuse_is_a_one_line_error_and_no_run_goes_missing(labels, evs, kwargs, message):
    with pytest.raises(ClirkitError) as err:
        Report(labels, evs, **kwargs)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_an_unknown_format_is_an_error_and_the_average_comes_from_the_evaluations():
    with pytest.raises(ClirkitError, match=r"^format must be one of text, markdown, csv, json, got 'html'$"):
        _report().render("html")
    report = Report(["psq.run"], [_ev(PSQ, average="run")])
    assert report.average == "run" and "mean over each run's queries that the qrels judge" in report.text()
