"""Tables of evaluated runs: mean measures per run, paired significance marks, four formats.

:func:`significance` tests every run against a baseline over their common
queries; :class:`Report` lays the evaluations out as text, markdown, csv or
json (the output of ``clirkit eval``). A mean that differs from the
baseline's at ``alpha`` is marked with ``*`` (as in the BoostCLIR slides).
"""

from __future__ import annotations

import csv
import io
import json
import math
from numbers import Real
from typing import Sequence

import numpy as np

from clirkit.errors import ClirkitError, counted
from clirkit.metrics import Evaluation
from clirkit.progress import counter
from clirkit.significance import TestResult, paired_test, sign_vectors

FORMATS = ("text", "markdown", "csv", "json")
MEAN_ROW = "all"
"""The qid of each run's mean row in a per-query table (trec_eval's)."""
MEAN_ROW_SHARED = f"query {MEAN_ROW!r} shares its name with the mean row: each run's mean is its last row"
TESTS = ("randomization", "t-test", "none")
LONG_TESTS = 2 * 10**9  # sign-vector cells (permutations x queries) of a report's tests beyond which they show progress


def significance(
    evaluations: Sequence[Evaluation],
    baseline: int = 0,
    *,
    test: str = "randomization",
    permutations: int = 10_000,
    seed: int = 0,
    quiet: bool = True,
) -> dict[tuple[int, str], TestResult]:
    """Paired ``test`` of every evaluation against ``evaluations[baseline]``, per measure, over the
    queries the two have in common.

    Returns {(index of the run, measure): TestResult}; no entry for the baseline, for a run sharing
    no query with it, or at all when ``test`` is ``"none"`` or there is a single run. Unless ``quiet``, tests
    of more than :data:`LONG_TESTS` sign-vector cells in all show their progress on stderr (sign vectors weighed,
    with the time left).
    """
    if test == "none" or len(evaluations) < 2:
        return {}
    base = evaluations[baseline]
    pairs = []
    for i, ev in enumerate(evaluations):
        if i == baseline:
            continue
        common, bi, ei = np.intersect1d(base.qids, ev.qids, assume_unique=True, return_indices=True)
        pairs += [(i, m, bi, ei) for m in ev.measures] if len(common) else []
    vectors = [sign_vectors(len(bi), permutations) if test == "randomization" else 0 for _, _, bi, _ in pairs]
    long = sum(len(bi) * v for (_, _, bi, _), v in zip(pairs, vectors)) > LONG_TESTS
    out = {}
    with counter(f"{test} tests", quiet=quiet or not long, unit="vector", total=sum(vectors)) as bar:
        for i, m, bi, ei in pairs:
            a, b = base.column(m)[bi], evaluations[i].column(m)[ei]
            out[(i, m)] = paired_test(a, b, test, permutations=permutations, seed=seed, advance=bar.update)
    return out


class Report:
    """The evaluations of several runs laid out in one of :data:`FORMATS`.

    Args:
        labels: one name per run (file name, system name).
        evaluations: one :class:`~clirkit.metrics.Evaluation` per run (as many as ``labels``, at least one), all
            with the same measures in the same order and the same ``average``.
        baseline: index of the run the others are tested against.
        alpha: significance level of the ``*`` mark, in (0, 1).
        test, permutations, seed: the paired test (see :func:`significance`).
        per_query: one row per query (and the mean as qid ``all``) instead of one row per run.
        qrels: how the judgments are named in the notes and the json (e.g. their path; None: not named).
        average, depth, rel_threshold, ties: the settings the evaluations were made with; ``average`` (None:
            the evaluations') words the notes, all four are echoed in the json.
        quiet: no progress of long tests on stderr (:func:`significance`).

    Raises:
        ClirkitError: any of the above broken (a label without its evaluation would drop a run from the table),
            or ``average`` given and not the evaluations'.
    """

    def __init__(
        self,
        labels: Sequence[str],
        evaluations: Sequence[Evaluation],
        *,
        baseline: int = 0,
        alpha: float = 0.05,
        test: str = "randomization",
        permutations: int = 10_000,
        seed: int = 0,
        per_query: bool = False,
        qrels: str | None = None,
        average: str | None = None,
        depth: int | None = 1000,
        rel_threshold: int = 1,
        ties: str = "trec_eval",
        quiet: bool = True,
    ) -> None:
        self.labels, self.evs, self.baseline = list(labels), list(evaluations), baseline
        average = _check_report(self.labels, self.evs, baseline, alpha, test, average)
        self.alpha, self.test, self.permutations, self.seed = alpha, test, permutations, seed
        self.per_query, self.qrels, self.average = per_query, qrels, average
        self.depth, self.rel_threshold, self.ties = depth, rel_threshold, ties
        self.measures = list(self.evs[0].measures)
        self.tests = significance(self.evs, baseline, test=test, permutations=permutations, seed=seed, quiet=quiet)

    def render(self, fmt: str = "text") -> str:
        """The report in format ``fmt`` (one of :data:`FORMATS`), ending with a newline."""
        if not isinstance(fmt, str) or fmt not in FORMATS:
            raise ClirkitError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        return {"text": self.text, "markdown": self.markdown, "csv": self.csv, "json": self.json}[fmt]()

    def mean_row_shared(self) -> bool:
        """Whether the per-query table has a query named ``all``, the name of each run's mean row too (as in
        trec_eval; the mean stays the last row of each run): :data:`MEAN_ROW_SHARED` is then among the notes."""
        return self.per_query and any((ev.qids == MEAN_ROW).any() for ev in self.evs)

    # ---- pieces
    def _mark(self, i: int, m: str) -> str:
        t = self.tests.get((i, m))
        return "*" if t is not None and t.p_value < self.alpha else ""

    def _notes(self) -> list[str]:
        if self.average == "qrels":
            n = self.evs[0].n_queries
            over = (
                f"mean over the {n} {'query' if n == 1 else 'queries'} of the qrels; a query without run lines scores 0"
            )
        else:
            over = "mean over each run's queries that the qrels judge"
        notes = [f"qrels {self.qrels}: {over}" if self.qrels else f"qrels: {over}"]  # (the qrels' name, if given)
        if self.tests:
            test = self._test_words() if self.test == "randomization" else "paired t-test"
            notes.append(f"* = p < {self.alpha:g} against {self.labels[self.baseline]} ({test}, two-sided)")
        notes += self._untested_notes()
        if self.mean_row_shared():
            notes.append(MEAN_ROW_SHARED)
        for label, ev in zip(self.labels, self.evs):
            if ev.missing_queries:
                notes.append(
                    f"{label}: {counted(len(ev.missing_queries), 'qrels query', 'qrels queries')} without run lines"
                )
            if ev.ignored_queries:
                notes.append(
                    f"{label}: {counted(len(ev.ignored_queries), 'run query', 'run queries')} not in the qrels, ignored"
                )
        return notes

    def _untested_notes(self) -> list[str]:
        """One note per run that a test was asked for and gave no p-value (no ``*`` can mark it): a run sharing no
        judged query with the baseline (``average="run"``), not tested; a t-test over 1 shared query, or whose
        differences from the baseline are the same on every shared query (zero variance), undefined."""
        if self.test == "none" or len(self.evs) < 2:
            return []
        base, notes = self.labels[self.baseline], []
        for i, label in enumerate(self.labels):
            if i == self.baseline:
                continue
            made = {m: self.tests.get((i, m)) for m in self.measures}
            if all(t is None for t in made.values()):
                notes.append(f"{label}: not tested, it shares no judged query with {base}")
                continue
            undefined = [m for m, t in made.items() if t is not None and math.isnan(t.p_value)]
            if not undefined:
                continue
            n = next(t.n for t in made.values() if t is not None)
            if n < 2:
                notes.append(f"{label}: no p-value, it shares 1 query with {base} and the t-test needs 2")
            else:
                notes.append(
                    f"{label}: no p-value for {', '.join(undefined)}: the t-test is undefined, the difference from "
                    f"{base} being the same on each of the {n} shared queries"
                )
        return notes

    def _test_words(self) -> str:
        """What the randomization tests made did: all 2^n sign vectors of the n queries a run shares with the
        baseline (exact) when 2^n <= ``permutations``, else ``permutations`` random ones drawn with ``seed``."""
        made = list(self.tests.values())
        exact = {t.n for t in made if t.exact}
        drawn = f"{self.permutations} permutations, seed {self.seed}"
        if not exact:
            return f"paired randomization test, {drawn}"
        if any(not t.exact for t in made):
            return (
                f"paired randomization test: exact (all 2^n sign vectors of the n queries a run shares with the "
                f"baseline) where 2^n <= {self.permutations}, else {drawn}"
            )
        if len(exact) == 1:
            (n,) = exact
            return f"paired randomization test, exact: all 2^{n} = {2**n:,} sign vectors"
        return (
            "paired randomization test, exact: all 2^n sign vectors of the n queries each run shares with the baseline"
        )

    def _summary_rows(self) -> list[list[str]]:
        rows = []
        for i, (label, ev) in enumerate(zip(self.labels, self.evs)):
            means = ev.mean()
            rows.append([label, str(ev.n_queries)] + [f"{self._mark(i, m)}{means[m]:.4f}" for m in self.measures])
        return rows

    def _per_query_rows(self) -> list[list[str]]:
        rows = []
        for label, ev in zip(self.labels, self.evs):
            for q, vals in zip(ev.qids.tolist(), ev.values.tolist()):
                rows.append([label, q] + [f"{v:.4f}" for v in vals])
            rows.append([label, MEAN_ROW] + [f"{v:.4f}" for v in ev.values.mean(axis=0).tolist()])
        return rows

    def _table(self) -> tuple[list[str], list[list[str]]]:
        if self.per_query:
            return ["run", "qid"] + self.measures, self._per_query_rows()
        return ["run", "queries"] + self.measures, self._summary_rows()

    # ---- formats
    def text(self) -> str:
        header, rows = self._table()
        widths = [max(len(r[j]) for r in [header] + rows) for j in range(len(header))]
        lines = [
            "  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in [header] + rows
        ]
        return "\n".join(lines + [f"# {n}" for n in self._notes()]) + "\n"

    def markdown(self) -> str:
        header, rows = self._table()
        lines = [
            "| " + " | ".join(map(_markdown_cell, header)) + " |",
            "|" + "|".join(["---", "---"] + ["---:"] * len(self.measures)) + "|",
        ]
        lines += ["| " + " | ".join(map(_markdown_cell, r)) + " |" for r in rows]
        notes = [n.replace("*", "\\*", 1) if n.startswith("*") else n for n in self._notes()]
        return "\n".join(lines) + "\n\n" + "  \n".join(notes) + "\n"

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        if self.per_query:
            w.writerow(["run", "qid"] + self.measures)
            for label, ev in zip(self.labels, self.evs):
                for q, vals in zip(ev.qids.tolist(), ev.values.tolist()):
                    w.writerow([label, q] + [repr(v) for v in vals])
        else:
            p_cols = [f"p({m})" for m in self.measures] if self.tests else []
            w.writerow(["run", "queries"] + self.measures + p_cols)
            for i, (label, ev) in enumerate(zip(self.labels, self.evs)):
                means = ev.mean()
                ps = [_p_text(self.tests.get((i, m))) for m in self.measures] if self.tests else []
                w.writerow([label, ev.n_queries] + [repr(means[m]) for m in self.measures] + ps)
        return buf.getvalue()

    def json(self) -> str:
        runs = []
        for i, (label, ev) in enumerate(zip(self.labels, self.evs)):
            item = {
                "run": label,
                "tag": ev.tag,
                "queries": ev.n_queries,
                "mean": ev.mean(),
                "missing_queries": list(ev.missing_queries),
                "ignored_queries": list(ev.ignored_queries),
            }
            made = [t for m in self.measures if (t := self.tests.get((i, m))) is not None]
            if made and self.test == "randomization":  # what was done: every sign vector, or those drawn
                item["exact"], item["sign_vectors"] = made[0].exact, made[0].permutations
            if i != self.baseline and self.tests:
                item["significance"] = {
                    m: {
                        "test": t.method,
                        "p_value": _json_float(t.p_value),
                        "mean_difference": t.mean_difference,
                        "queries": t.n,
                        "significant": t.p_value < self.alpha,
                    }
                    for m in self.measures
                    if (t := self.tests.get((i, m))) is not None
                }
            if self.per_query:
                item["per_query"] = ev.per_query()
            runs.append(item)
        test = self.test if len(self.evs) > 1 else "none"
        doc = {
            "qrels": self.qrels,
            "average": self.average,
            "description": self.evs[0].describe(),
            "measures": self.measures,
            "baseline": self.labels[self.baseline],
            "test": test,
            **{k: getattr(self, k) for k in _READ_BY_TEST.get(test, ())},  # the settings the test made reads
            "depth": self.depth,
            "rel_threshold": self.rel_threshold,
            "ties": self.ties,
            "runs": runs,
        }
        return json.dumps(doc, indent=2) + "\n"


# the settings of the paired test that each test reads (none: no test made, no setting read)
_READ_BY_TEST = {"randomization": ("alpha", "permutations", "seed"), "t-test": ("alpha",)}


def _check_report(labels: list, evaluations: list, baseline, alpha, test, average: str | None) -> str:
    """The ``average`` of a :class:`Report` (None: its evaluations'), once its arguments are known to make one:
    ClirkitError otherwise, naming the argument."""
    if not evaluations:
        raise ClirkitError("a report needs at least one evaluation (and its label)")
    if len(labels) != len(evaluations):
        raise ClirkitError(f"{len(labels)} labels for {len(evaluations)} evaluations: give one label per evaluation")
    for i, (label, ev) in enumerate(zip(labels, evaluations)):
        if not isinstance(ev, Evaluation):
            raise ClirkitError(f"evaluations[{i}] must be an Evaluation (clirkit.metrics.evaluate), got {ev!r:.40}")
        if not isinstance(label, str):
            raise ClirkitError(f"labels[{i}] must be a str, got {label!r:.40}")
    first = evaluations[0]
    for i, ev in enumerate(evaluations[1:], 1):
        if ev.measures != first.measures:
            raise ClirkitError(
                f"evaluations[{i}] ({labels[i]}) has the measures {', '.join(ev.measures)}, evaluations[0] "
                f"({labels[0]}) {', '.join(first.measures)}: evaluate every run with the same measures"
            )
        if ev.average != first.average:
            raise ClirkitError(
                f"evaluations[{i}] ({labels[i]}) was made with average={ev.average!r}, evaluations[0] ({labels[0]}) "
                f"with average={first.average!r}: evaluate every run with the same average"
            )
    if average is not None and average != first.average:
        raise ClirkitError(
            f"average={average!r}, but the evaluations were made with average={first.average!r}: "
            "leave average out (the evaluations' is taken)"
        )
    if isinstance(baseline, bool) or not isinstance(baseline, (int, np.integer)) or not 0 <= baseline < len(labels):
        raise ClirkitError(f"baseline must be the index of a run, 0 to {len(labels) - 1}, got {baseline!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
        raise ClirkitError(f"alpha must be a number in (0, 1), got {alpha!r}")
    if test not in TESTS:
        raise ClirkitError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    return first.average


def _markdown_cell(text: str) -> str:
    """``text`` as a Markdown table cell: ``\\`` (the escape), then ``|`` (a cell's end) and ``*`` (emphasis), escaped
    with a backslash; the backslash first, else ``a\\|b`` would become ``a\\\\|b``, whose ``|`` ends the cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")


def _p_text(t: TestResult | None) -> str:
    return "" if t is None or math.isnan(t.p_value) else repr(t.p_value)


def _json_float(x: float) -> float | None:
    return None if math.isnan(x) else x


def score_table(
    runs,
    qrels,
    measures: Sequence[str],
    *,
    baseline: str | None = None,
    seed: int = 0,
    qrels_label: str = "qrels",
    gains: Sequence[str] = (),
) -> str:
    """The ``clirkit eval`` text table of ``runs`` (``{name: Run}``): one row per run (name, queries, mean of
    each measure over the qrels' queries), ``*`` on means that differ from ``baseline``'s (default: the
    first run) at p < 0.05 in the paired randomization test with ``seed``, then ``#`` notes naming the
    judgments ``qrels_label``. With ``gains`` (some of ``measures``), a blank line and one line per other
    run: its difference to the baseline's mean of each, in points (x 100), with the same test's p-value.
    No trailing newline."""
    from clirkit.metrics import evaluate

    names = list(runs)
    # each run read by name: none is held while the next is read (the runner's are unpacked when read)
    evaluations = [evaluate(runs[name], qrels, list(measures), names="given") for name in names]
    base = names.index(baseline or names[0])
    report = Report(names, evaluations, baseline=base, seed=seed, qrels=qrels_label)
    text = report.text().rstrip("\n")
    if not gains:
        return text
    lines = [f"gains over {names[base]} in points:"]
    for i, name in enumerate(names):
        if i == base:
            continue
        parts = [
            f"{m} {100 * (evaluations[i].mean()[m] - evaluations[base].mean()[m]):+.2f}"
            f" (p {report.tests[(i, m)].p_value:.4f})"
            for m in gains
            if (i, m) in report.tests
        ]
        lines.append(f"{name} vs {names[base]}: " + ", ".join(parts))
    return text + "\n\n" + "\n".join(lines)
