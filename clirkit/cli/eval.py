"""``clirkit eval --qrels QRELS RUN [RUN ...]``: measures, per-query values and significance.

Each run is evaluated with :func:`clirkit.metrics.evaluate`; with several runs
each one is compared with the baseline (the first run unless ``--baseline``)
by a paired test over per-query values, and means significantly different at
``--alpha`` are marked with ``*`` (:class:`clirkit.report.Report` lays the table out).
"""
from __future__ import annotations

from argparse import SUPPRESS

from clirkit.cli.common import add_quiet, add_seed, add_verb


def add_parser(sub) -> None:
    from clirkit.metrics import AVERAGES, DEFAULT_MEASURES, MEASURE_NAMES_HELP, TIES
    from clirkit.report import FORMATS, TESTS

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
    p.add_argument("--test", choices=TESTS, default="randomization",
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
    from clirkit.report import Report

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

    text = Report(labels, evaluations, baseline=baseline, alpha=args.alpha, test=args.test,
                  permutations=args.permutations, seed=args.seed, per_query=args.per_query, qrels=args.qrels,
                  average=args.average, depth=args.depth, rel_threshold=args.rel_threshold,
                  ties=args.ties).render(args.format)
    with atomic_writer(args.output) as out:
        out.write(text)
    return 0

