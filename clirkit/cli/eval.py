"""``clirkit eval --qrels QRELS RUN [RUN ...]``: measures, per-query values and significance.

Each run is evaluated with :func:`clirkit.metrics.evaluate`; with several runs
each one is compared with the baseline (the first run unless ``--baseline``)
by a paired test over per-query values, and means significantly different at
``--alpha`` are marked with ``*`` (as in the BoostCLIR slides).
"""
from __future__ import annotations

import csv
import io
import json
import math
from argparse import SUPPRESS

from clirkit.cli.common import add_quiet, add_seed, add_verb

FORMATS = ("text", "markdown", "csv", "json")


def add_parser(sub) -> None:
    from clirkit.metrics import AVERAGES, DEFAULT_MEASURES, MEASURE_NAMES_HELP, TIES

    p = add_verb(sub, "eval", "evaluate runs against qrels (MAP, PRES, nDCG, P@k, RR, ...) with significance tests",
                 run)
    p.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (qid Q0 docid rank score tag)")
    p.add_argument("--qrels", required=True, help="judgments: qid iter docid rel, or qid docid rel")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE", dest="measures", default=SUPPRESS,
                   help=f"measure to report, repeatable or comma-separated; one of {MEASURE_NAMES_HELP} "
                        f"(default: {' '.join(DEFAULT_MEASURES)})")
    p.add_argument("--per-query", action="store_true", help="one row per query (and the mean as qid 'all')")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format")
    p.add_argument("-o", "--output", default="-", help="output file (- for stdout)")
    p.add_argument("--baseline", metavar="RUN", default=SUPPRESS, help="run the others are tested against (default: the first RUN)")
    p.add_argument("--test", choices=("randomization", "t-test", "none"), default="randomization",
                   help="paired significance test over per-query values")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level of the * mark")
    p.add_argument("--permutations", type=int, default=10_000, help="sign vectors of the randomization test")
    add_seed(p)
    p.add_argument("--average", choices=AVERAGES, default="qrels",
                   help="qrels: mean over all qrels queries, a query without run lines scores 0 "
                        "(trec_eval -c); run: mean over the run's judged queries")
    p.add_argument("--depth", type=int, default=1000, help="ranks per query that count (0: all)")
    p.add_argument("--rel-threshold", type=int, default=1, help="minimum grade of a relevant document")
    p.add_argument("--main-grade", type=int, default=2, help="minimum grade of a main-relevant document (P_mr, MRR_mr)")
    p.add_argument("--ties", choices=TIES, default="trec_eval",
                   help="trec_eval: re-sort by float32 score, ties by docid descending; "
                        "run: score order as read (float64), ties in file order")
    add_quiet(p)


def run(args) -> int:
    from clirkit.errors import ClirkitError
    from clirkit.fileio import atomic_writer, display_name
    from clirkit.formats import read_qrels, read_run
    from clirkit.metrics import DEFAULT_MEASURES, evaluate, parse_measures
    from clirkit.progress import say

    specs = parse_measures(getattr(args, "measures", None) or list(DEFAULT_MEASURES))
    if args.permutations < 1:
        raise ClirkitError(f"--permutations must be at least 1, got {args.permutations}")
    if not 0 < args.alpha < 1:
        raise ClirkitError(f"--alpha must be between 0 and 1, got {args.alpha}")
    if args.depth < 0:
        raise ClirkitError(f"--depth must be 0 (all) or positive, got {args.depth}")
    labels = [display_name(r) for r in args.runs]
    baseline = 0
    if getattr(args, "baseline", None) is not None:
        if args.baseline not in labels:
            raise ClirkitError(f"--baseline {args.baseline} is not one of the RUN arguments")
        baseline = labels.index(args.baseline)

    qrels = read_qrels(args.qrels)
    evaluations = []
    for path, label in zip(args.runs, labels):
        run_ = read_run(path)
        try:
            ev = evaluate(run_, qrels, [s.name for s in specs], rel_threshold=args.rel_threshold,
                          main_grade=args.main_grade, depth=args.depth or None, ties=args.ties,
                          average=args.average)
        except ClirkitError as exc:
            raise ClirkitError(f"{label}: {exc}") from None
        if ev.ignored_queries:
            say(f"{label}: {len(ev.ignored_queries)} run queries are not in the qrels and were ignored "
                f"(e.g. {ev.ignored_queries[0]})", quiet=args.quiet)
        if ev.missing_queries and args.average == "qrels":
            say(f"{label}: {len(ev.missing_queries)} qrels queries have no run line and score 0 "
                f"(e.g. {ev.missing_queries[0]})", quiet=args.quiet)
        evaluations.append(ev)

    tests = _significance(evaluations, baseline, args) if len(evaluations) > 1 and args.test != "none" else {}
    report = _Report(labels, evaluations, baseline, tests, args)
    text = {"text": report.text, "markdown": report.markdown, "csv": report.csv, "json": report.json}[args.format]()
    with atomic_writer(args.output) as out:
        out.write(text)
    return 0


def _significance(evaluations, baseline: int, args) -> dict[tuple[int, str], object]:
    """Paired test of every run against the baseline, per measure, over their common queries."""
    import numpy as np

    from clirkit.significance import paired_test

    base = evaluations[baseline]
    out = {}
    for i, ev in enumerate(evaluations):
        if i == baseline:
            continue
        common, bi, ei = np.intersect1d(base.qids, ev.qids, assume_unique=True, return_indices=True)
        if len(common) == 0:
            continue
        for m in ev.measures:
            out[(i, m)] = paired_test(base.column(m)[bi], ev.column(m)[ei], args.test,
                                      permutations=args.permutations, seed=args.seed)
    return out


class _Report:
    """Formats the evaluations of one `clirkit eval` call."""

    def __init__(self, labels, evaluations, baseline, tests, args) -> None:
        self.labels, self.evs, self.baseline, self.tests, self.args = labels, evaluations, baseline, tests, args
        self.measures = list(evaluations[0].measures)

    # ---- pieces
    def _mark(self, i: int, m: str) -> str:
        t = self.tests.get((i, m))
        return "*" if t is not None and t.p_value < self.args.alpha else ""

    def _notes(self) -> list[str]:
        if self.args.average == "qrels":
            over = f"mean over the {self.evs[0].n_queries} queries of the qrels; a query without run lines scores 0"
        else:
            over = "mean over each run's queries that the qrels judge"
        notes = [f"qrels {self.args.qrels}: {over}"]
        if self.tests:
            test = ("paired randomization test, "
                    f"{self.args.permutations} permutations, seed {self.args.seed}"
                    if self.args.test == "randomization" else "paired t-test")
            notes.append(f"* = p < {self.args.alpha:g} against {self.labels[self.baseline]} ({test}, two-sided)")
        for label, ev in zip(self.labels, self.evs):
            if ev.missing_queries:
                notes.append(f"{label}: {len(ev.missing_queries)} qrels queries without run lines")
            if ev.ignored_queries:
                notes.append(f"{label}: {len(ev.ignored_queries)} run queries not in the qrels, ignored")
        return notes

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
            rows.append([label, "all"] + [f"{v:.4f}" for v in ev.values.mean(axis=0).tolist()])
        return rows

    def _table(self) -> tuple[list[str], list[list[str]]]:
        if self.args.per_query:
            return ["run", "qid"] + self.measures, self._per_query_rows()
        return ["run", "queries"] + self.measures, self._summary_rows()

    # ---- formats
    def text(self) -> str:
        header, rows = self._table()
        widths = [max(len(r[j]) for r in [header] + rows) for j in range(len(header))]
        lines = ["  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))).rstrip()
                 for r in [header] + rows]
        return "\n".join(lines + [f"# {n}" for n in self._notes()]) + "\n"

    def markdown(self) -> str:
        header, rows = self._table()
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---", "---"] + ["---:"] * len(self.measures)) + "|"]
        lines += ["| " + " | ".join(c.replace("*", "\\*") for c in r) + " |" for r in rows]
        notes = [n.replace("*", "\\*", 1) if n.startswith("*") else n for n in self._notes()]
        return "\n".join(lines) + "\n\n" + "  \n".join(notes) + "\n"

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        if self.args.per_query:
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
            item = {"run": label, "tag": ev.tag, "queries": ev.n_queries, "mean": ev.mean(),
                    "missing_queries": list(ev.missing_queries), "ignored_queries": list(ev.ignored_queries)}
            if i != self.baseline and self.tests:
                item["significance"] = {
                    m: {"test": t.method, "p_value": _json_float(t.p_value), "mean_difference": t.mean_difference,
                        "queries": t.n, "significant": t.p_value < self.args.alpha}
                    for m in self.measures if (t := self.tests.get((i, m))) is not None}
            if self.args.per_query:
                item["per_query"] = ev.per_query()
            runs.append(item)
        doc = {"qrels": self.args.qrels, "average": self.args.average, "description": self.evs[0].describe(),
               "measures": self.measures, "baseline": self.labels[self.baseline],
               "test": self.args.test if len(self.evs) > 1 else "none", "alpha": self.args.alpha,
               "permutations": self.args.permutations, "seed": self.args.seed, "depth": self.args.depth,
               "rel_threshold": self.args.rel_threshold, "ties": self.args.ties, "runs": runs}
        return json.dumps(doc, indent=2) + "\n"


def _p_text(t) -> str:
    return "" if t is None or math.isnan(t.p_value) else repr(t.p_value)


def _json_float(x: float) -> float | None:
    return None if math.isnan(x) else x
