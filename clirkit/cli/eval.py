"""``clirkit eval --qrels QRELS RUN [RUN ...] [-m MEASURE ...]``: measures, per-query values and significance.

Each run is evaluated with :func:`clirkit.metrics.evaluate`; with several runs
each one is compared with the baseline (the first run unless ``--baseline``)
by a paired test over per-query values, and means significantly different at
``--alpha`` are marked with ``*`` (:class:`clirkit.report.Report` lays the table out).

``-m`` takes one or more names (``-m AP P@10``), repeats (``-m AP -m P@10``)
and comma lists (``-m AP,P@10``), in any spelling of the measure registry
(:mod:`clirkit.measures`: ``P_10``, ``ndcg_cut.10``, ``P(rel=2)@10``, ...);
each column is headed by the name as written. Because ``-m`` takes several
values, RUN files written after it need ``--`` first: ``-m AP P@10 -- a.run``.

``-q`` is refused here: trec_eval's ``-q`` means per-query output
(``--per-query``), clirkit's other verbs read it as ``--quiet``.
"""

from __future__ import annotations

import argparse
from argparse import SUPPRESS

from clirkit.cli.common import add_verb, finite_float, int_range, positive_int, seed_int
from clirkit.cli.params import StoreGiven
from clirkit.errors import nth

USAGE = (
    "%(prog)s --qrels QRELS [options] RUN [RUN ...] [-m MEASURE [MEASURE ...]]\n"
    "       %(prog)s --qrels QRELS [options] -m MEASURE [MEASURE ...] -- RUN [RUN ...]"
)
TREC_EVAL_Q = "-q is trec_eval's per-query flag; here use --per-query (or --quiet to silence progress)"


# the test's options, remembered when given (StoreGiven); --baseline too, which a test alone reads
TEST_OPTIONS = ("alpha", "permutations", "seed", "test", "baseline")


class _RefuseTrecEvalQ(argparse.Action):
    """``-q`` on ``eval``: an error naming ``--per-query`` and ``--quiet``, never a silent ``--quiet``."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=SUPPRESS, help=SUPPRESS)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        parser.error(TREC_EVAL_Q)


def add_parser(sub) -> None:
    from clirkit.measures import DEFAULT_MEASURES, MEASURE_NAMES_HELP
    from clirkit.metrics import AVERAGES, TIES
    from clirkit.report import FORMATS, TESTS

    p = add_verb(
        sub, "eval", "evaluate runs against qrels (MAP, PRES, nDCG, P@k, RR, ...) with significance tests", run
    )
    p.usage = USAGE
    p.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="TREC run files (qid Q0 docid rank score tag); after -m, write -- before them",
    )
    p.add_argument("--qrels", required=True, help="judgments: qid iter docid rel, or qid docid rel")
    p.add_argument(
        "-m",
        "--measure",
        nargs="+",
        action="extend",
        metavar="MEASURE",
        dest="measures",
        default=SUPPRESS,
        help="measures to report: -m AP P@10, -m AP -m P@10 or -m AP,P@10; put -m after the RUNs, "
        "or end its list with -- (-m AP P@10 -- a.run b.run); columns are headed by the names "
        f"as written. Names: {MEASURE_NAMES_HELP} (default: {' '.join(DEFAULT_MEASURES)})",
    )
    p.add_argument(
        "--per-query", action="store_true", help="one row per query and the mean as qid 'all' (trec_eval's -q)"
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="output format")
    p.add_argument("-o", "--output", default="-", help="output file (- for stdout)")
    p.add_argument(
        "--baseline",
        metavar="RUN",
        default=SUPPRESS,
        action=StoreGiven,
        help="run the others are tested against (default: the first RUN)",
    )
    p.add_argument(
        "--test",
        choices=TESTS,
        default="randomization",
        action=StoreGiven,
        help="paired significance test over per-query values",
    )
    p.add_argument(
        "--alpha",
        type=finite_float(0, 1, low_open=True, high_open=True),
        default=0.05,
        action=StoreGiven,
        help="significance level of the * mark (refused when the command makes no test)",
    )
    p.add_argument(
        "--permutations",
        type=positive_int,
        default=10_000,
        action=StoreGiven,
        help="sign vectors of the randomization test (--test randomization only)",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        action=StoreGiven,
        help="random seed of the randomization test, an integer >= 0 (--test randomization only)",
    )
    p.add_argument(
        "--average",
        choices=AVERAGES,
        default="qrels",
        help="qrels: mean over all qrels queries, a query without run lines scores 0 "
        "(trec_eval -c); run: mean over the run's judged queries",
    )
    p.add_argument(
        "--depth",
        type=int_range(0, note="(0: all)"),
        default=1000,
        help="ranks per query that count (0: all); a measure's cutoff must be within it",
    )
    p.add_argument(
        "--rel-threshold",
        type=positive_int,
        default=1,
        help="minimum grade of a relevant document (trec_eval -l); a measure's (rel=N) overrides it",
    )
    p.add_argument(
        "--main-grade",
        type=positive_int,
        default=None,
        help="minimum grade of a main-relevant document, at least --rel-threshold; read only by P_mr and MRR_mr "
        "(default: 2, or --rel-threshold if higher)",
    )
    p.add_argument(
        "--ties",
        choices=TIES,
        default="trec_eval",
        help="trec_eval: re-sort by float32 score, ties by docid descending; "
        "run: score order as read (float64), ties in file order",
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr (-q is refused: see --per-query)")
    p.add_argument("-q", action=_RefuseTrecEvalQ)


def run(args) -> int:
    from clirkit.errors import ClirkitError
    from clirkit.fileio import atomic_writer, check_outputs, display_name
    from clirkit.formats import read_qrels
    from clirkit.measures import DEFAULT_MEASURES, beyond_depth
    from clirkit.progress import say
    from clirkit.report import MEAN_ROW_SHARED, Report

    given = getattr(args, "measures", None)
    specs = _measures(given or list(DEFAULT_MEASURES), args.runs)
    deep = beyond_depth(specs, args.depth or None)
    if deep is not None:
        raise ClirkitError(
            f"{deep.label} reads ranks beyond depth {args.depth}: give depth >= {deep.cutoff} "
            f"(--depth {deep.cutoff}, or 0 for every rank)"
            + ("" if given else f", or measures within it (-m; the default is {' '.join(DEFAULT_MEASURES)})")
        )
    _check_unread(args, specs)
    _check_read_once(args.qrels, args.runs)
    labels = [display_name(r) for r in args.runs]
    baseline = _baseline(getattr(args, "baseline", None), args.runs)
    check_outputs({"-o": args.output}, {"RUN": args.runs, "--qrels": args.qrels})

    qrels = read_qrels(args.qrels)
    # the table's notes say which queries were ignored or missing: said on stderr only when the table on the
    # terminal does not carry them (a CSV or JSON report, or a report written to a file)
    noted = args.format in ("text", "markdown") and str(args.output) == "-"
    evaluations = [
        _evaluation(args, path, label, qrels, specs, args.quiet or noted) for path, label in zip(args.runs, labels)
    ]
    report = Report(
        labels,
        evaluations,
        baseline=baseline,
        alpha=args.alpha,
        test=args.test,
        permutations=args.permutations,
        seed=args.seed,
        per_query=args.per_query,
        qrels=display_name(args.qrels),
        average=args.average,
        depth=args.depth,
        rel_threshold=args.rel_threshold,
        ties=args.ties,
        quiet=args.quiet,
    )
    if report.mean_row_shared() and args.format != "json" and not noted:  # the table's notes do not carry it
        say(f"eval: {MEAN_ROW_SHARED}", quiet=args.quiet)
    text = _per_query_csv(report) if args.per_query and args.format == "csv" else report.render(args.format)
    with atomic_writer(args.output) as out:
        out.write(text)
    return 0


def _check_unread(args, specs: list) -> None:
    """ClirkitError for an option the evaluation would not read: a test option or ``--baseline`` with one RUN (no
    test is made), ``--permutations`` or ``--seed`` with a test other than the randomization test, ``--alpha`` with
    ``--test none``, ``--main-grade`` when no measure of ``specs`` reads it
    (:func:`~clirkit.metricchecks.reads_main_grade`); and for ``--main-grade`` below ``--rel-threshold`` (checked
    first: the values, then whether they are read)."""
    from clirkit.cli.params import given
    from clirkit.errors import ClirkitError
    from clirkit.metricchecks import reads_main_grade

    # --test none asks for no test: given with one RUN, it is what that RUN makes
    test_options = [o for o in TEST_OPTIONS if given(args, o) and not (o == "test" and args.test == "none")]
    if len(args.runs) == 1 and test_options:
        option = test_options[0]
        does = "names the run the others are tested against" if option == "baseline" else "sets the test between runs"
        raise ClirkitError(f"--{option} {does}, and one RUN makes no test: drop --{option}")
    for option in ("permutations", "seed"):
        if option in test_options and args.test != "randomization":
            raise ClirkitError(
                f"--{option} is read only by --test randomization (the test is {args.test}): drop --{option}"
            )
    if "alpha" in test_options and args.test == "none":
        raise ClirkitError("--alpha is the level of the test's * mark, and --test none makes no test: drop --alpha")
    if args.main_grade is None:
        return
    if args.main_grade < args.rel_threshold:
        raise ClirkitError(
            f"--main-grade must be at least --rel-threshold ({args.rel_threshold}), got {args.main_grade}"
        )
    if not reads_main_grade(specs):
        raise ClirkitError(
            "--main-grade is read only by P_mr and MRR_mr (without a (rel=N) of their own), and no measure asked "
            "reads it: drop --main-grade, or ask for one of them (-m P_mr@10)"
        )


def _check_read_once(qrels: str, runs: list[str]) -> None:
    """ClirkitError for standard input (``-``) or a pipe (:func:`~clirkit.fileio.read_once`) given twice among the
    ``runs`` (RUN paths), or both as ``qrels`` (the ``--qrels`` path) and a RUN: its second reading would find it
    exhausted, an empty run scoring 0 on every query (or qrels of no query)."""
    from clirkit.errors import ClirkitError
    from clirkit.fileio import read_once

    seen: dict[str, int] = {}
    for j, path in enumerate(runs):
        path = str(path)
        if path != "-" and not read_once(path):
            continue
        what = "standard input" if path == "-" else "a pipe"
        if path == str(qrels):
            raise ClirkitError(
                f"{path}: given as --qrels and as the {nth(j + 1)} RUN: {what} can be read once, give the qrels "
                "or the run as a file"
            )
        i = seen.setdefault(path, j)
        if i != j:
            raise ClirkitError(
                f"{path}: given twice among the RUNs ({nth(i + 1)} and {nth(j + 1)}): {what} can be read once, "
                "give it once"
            )


def _baseline(given: str | None, runs: list[str]) -> int:
    """The position among the ``runs`` (RUN paths) of the run ``--baseline`` names (``given``; None: the first): the
    same path, or the same file however its path is written (``./x.run``, a link)."""
    from clirkit.errors import ClirkitError
    from clirkit.fileio import same_file

    if given is None:
        return 0
    for i, path in enumerate(runs):
        if str(path) == str(given) or same_file(path, given):
            return i
    raise ClirkitError(f"--baseline {given} is not one of the RUN arguments")


def _evaluation(args, path: str, label: str, qrels, specs: list, quiet: bool):
    """The :func:`~clirkit.metrics.evaluate` of the run file ``path`` (named ``label`` in messages) against
    ``qrels`` with the measures ``specs`` and the options of ``args``, cut at ``--depth`` while read; its run
    queries not in the qrels, and (``--average qrels``) its qrels queries with no run line, said on stderr
    unless ``quiet``; a run file of no results (every judged query scores 0) said on stderr unless ``--quiet``
    (the table's notes do not say it)."""
    from clirkit.errors import ClirkitError, counted
    from clirkit.formats import read_run
    from clirkit.metrics import evaluate
    from clirkit.progress import say

    run_ = read_run(path, depth=args.depth or None)  # cut while reading: rows past the depth never count
    try:
        ev = evaluate(
            run_,
            qrels,
            specs,
            rel_threshold=args.rel_threshold,
            main_grade=args.main_grade,
            depth=args.depth or None,
            ties=args.ties,
            average=args.average,
            names="given",
        )
    except ClirkitError as exc:
        raise ClirkitError(f"{label}: {exc}") from None
    if ev.ignored_queries:
        one = len(ev.ignored_queries) == 1
        say(
            f"{label}: {counted(len(ev.ignored_queries), 'run query', 'run queries')} "
            f"{'is' if one else 'are'} not in the qrels and {'was' if one else 'were'} ignored "
            f"(e.g. {ev.ignored_queries[0]})",
            quiet=quiet,
        )
    if not len(run_):
        say(f"{label}: holds no results: each of the {len(ev.qids)} judged queries scores 0", quiet=args.quiet)
    elif ev.missing_queries and args.average == "qrels":
        one = len(ev.missing_queries) == 1
        say(
            f"{label}: {counted(len(ev.missing_queries), 'qrels query', 'qrels queries')} "
            f"{'has' if one else 'have'} no run line and score{'s' * one} 0 (e.g. {ev.missing_queries[0]})",
            quiet=quiet,
        )
    return ev


def _measures(values: list[str], runs: list[str]) -> list:
    """Parse the ``-m`` values into :class:`~clirkit.measures.Measure` objects.

    A value that is no measure name but an existing file was most likely a RUN
    swallowed by ``-m``: the error says so and shows the ``--`` form.

    Raises:
        ClirkitError: a bad measure name, a measure given twice (in any spelling: ``AP`` and ``MAP``), a run file
            among the measures, or no RUN at all.
    """
    import os

    from clirkit.errors import ClirkitError
    from clirkit.measures import parse_measures, split_measure_list

    names = split_measure_list(values)
    files = [n for n in names if os.path.isfile(n) and not _is_measure(n)]
    if files:
        read = f"{' '.join(files)} came after -m and {'was' if len(files) == 1 else 'were'} read as measure names"
        if runs:
            raise ClirkitError(f"{read}; write the RUN files together, before -m or after a final --")
        measures = " ".join(n for n in names if n not in files)
        raise ClirkitError(
            f"no RUN was given: {read}; end the measure list with -- "
            f"(-m {measures or 'AP'} -- {' '.join(files)}) or put -m after the RUN files"
        )
    if not runs:
        raise ClirkitError("no RUN given (after -m, write -- before the RUN files: -m AP P@10 -- a.run)")
    return parse_measures(names, once="-m")


def _is_measure(name: str) -> bool:
    from clirkit.errors import ClirkitError
    from clirkit.measures import parse_measure

    try:
        parse_measure(name)
    except ClirkitError:
        return False
    return True


def _per_query_csv(report) -> str:
    """The per-query csv of a :class:`~clirkit.report.Report`, each run's rows ending with its mean as
    qid ``all``, as in the text and markdown tables."""
    import csv
    import io

    from clirkit.report import MEAN_ROW

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run", "qid"] + report.measures)
    for label, ev in zip(report.labels, report.evs):
        for q, vals in zip(ev.qids.tolist(), ev.values.tolist()):
            w.writerow([label, q] + [repr(v) for v in vals])
        means = ev.mean()
        w.writerow([label, MEAN_ROW] + [repr(means[m]) for m in report.measures])
    return buf.getvalue()
