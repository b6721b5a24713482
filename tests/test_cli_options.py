"""Bad option values, verb by verb: each stops the verb with exit status 2 and one line on stderr naming the
option, the allowed range and the value, with no traceback and no output written, before any input is read.

The input files named here do not exist: a verb that read its inputs before checking its options would fail
on them instead, and the message would name a file, not the option.

And every default a verb's --help shows is the real one: the "(default: X)" of each option that sets a system's
hyper-parameter, read from the help text as printed, is that parameter's default in the system's class.
"""

from __future__ import annotations

import argparse
import math
import re
import time

import pytest

from clirkit.cli import VERBS, build_parser, main
from clirkit.cli.common import BadValue, finite_float, int_range, param_type, positive_int
from clirkit.cli.params import default_of

# verb -> its arguments with inputs that do not exist; OUT is the output file
BASE = {
    "index": ["none.tsv", "-o", "OUT", "--lang", "es"],
    "search": ["--index", "none.npz", "--queries", "none.tsv", "-o", "OUT"],
    "ttable train": [
        "--source",
        "none.en",
        "--target",
        "none.es",
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "-o",
        "OUT",
    ],
    "ttable show": ["none.npz", "light"],
    "ttable prune": ["none.npz", "-o", "OUT"],
    "ttable convert": ["none.npz", "-o", "OUT"],
    "ttable from-alignments": [
        "--source",
        "none.en",
        "--target",
        "none.es",
        "--alignments",
        "none.align",
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "-o",
        "OUT",
    ],
    "dt": ["--index", "none.npz", "--queries", "none.tsv", "--table", "none.e2f", "-o", "OUT"],
    "psq": ["--index", "none.npz", "--queries", "none.tsv", "--table", "none.e2f", "-o", "OUT"],
    "eval": ["--qrels", "none.qrels", "none.run", "-o", "OUT"],
    "scs-train": ["--queries", "none.tsv", "--documents", "none.tsv", "--qrels", "none.qrels", "-o", "OUT"],
    "scs-score": ["none.npz", "--queries", "none.tsv", "--documents", "none.tsv", "-o", "OUT"],
    "aggregate": ["none1.run", "none2.run", "-o", "OUT"],
    "boost-train": ["--queries", "none.tsv", "--qrels", "none.qrels", "--documents", "none.tsv", "-o", "OUT"],
    "boost-rank": ["none.npz", "--queries", "none.tsv", "--documents", "none.tsv", "-o", "OUT"],
    "boost-show": ["none.npz"],
    "run": ["none.toml", "-o", "OUT"],
    "collection": [
        "--documents",
        "none.tsv",
        "--queries",
        "none.tsv",
        "--qrels",
        "none.qrels",
        "--source-lang",
        "en",
        "--target-lang",
        "es",
        "-o",
        "OUT",
    ],
    "demo": ["-o", "OUT"],
}

BM25 = [
    ("--k1", ["nan", "inf", "-1", "--k1=-inf", "x"], "[0.0, inf)"),
    ("--b", ["2", "nan", "-0.5", "x"], "[0.0, 1.0]"),
    ("--k3", ["-1", "nan", "inf", "x"], "[0.0, inf)"),
    ("--depth", ["0", "-1", "1.5", "x", "99999999999999999999"], ">= 1"),
]
PRUNING = [
    ("--min-prob", ["nan", "1", "-0.1", "inf", "x"], "[0.0, 1.0)"),
    ("--cumulative", ["nan", "0", "1.5", "x"], "(0.0, 1.0]"),
    ("--max-options", ["0", "-1", "2.5", "x"], "[1, inf)"),
]

JOBS = [("--jobs", ["0", "two"], ">= 1")]  # workers searching a sharded index's shards

# verb -> [(option, bad values, what the message says of the allowed range)]; a value with spaces is several
# values of one option, the bad one marked with "!"; a value starting with the option is given as written
TABLE = {
    "index": [
        ("--stopwords-top", ["-1", "1.5", "x"], ">= 0"),
        ("--jobs", ["0", "-3", "two"], ">= 1"),
        ("--shards", ["0", "-2", "x"], ">= 1"),
    ],
    "search": BM25 + JOBS,
    "ttable train": [("--iterations", ["-1", "nan", "x"], ">= 0"), ("--jobs", ["0"], ">= 1")],
    "ttable show": [("-n", ["0", "-1", "x"], ">= 1"), ("--score-column", ["0", "x"], ">= 1")],
    "ttable prune": PRUNING + [("--score-column", ["0"], ">= 1")],
    "ttable convert": [("--score-column", ["0", "-1", "1.5"], ">= 1")],
    "ttable from-alignments": [],
    "dt": BM25 + JOBS + [("--source-stopwords-top", ["-1", "x"], "[0, inf)"), ("--score-column", ["0", "x"], ">= 1")],
    "psq": BM25
    + JOBS
    + PRUNING
    + [
        ("--lambda", ["1.5", "nan", "-0.1", "x"], "[0.0, 1.0]"),
        ("--source-stopwords-top", ["-1"], "[0, inf)"),
        ("--target-stopwords-top", ["-1", "0.5"], "[0, inf)"),
        ("--alpha", ["0", "1", "nan", "x"], "(0.0, 1.0)"),
        ("--shards", ["0", "-2", "x"], ">= 1"),
        ("--score-column", ["0", "1.5"], ">= 1"),
    ],
    "eval": [
        ("--alpha", ["2", "nan", "0", "1", "-0.1", "x"], "in (0, 1)"),
        ("--permutations", ["0", "-5", "1e3", "x"], ">= 1"),
        ("--seed", ["-1", "1.5"], ">= 0"),
        ("--depth", ["-1", "x"], ">= 0 (0: all)"),
        ("--rel-threshold", ["0", "-1"], ">= 1"),
        ("--main-grade", ["0", "x"], ">= 1"),
    ],
    "scs-train": [
        ("--dim", ["0", "-1", "1.5"], "[1, inf)"),
        ("--eps", ["nan", "-1", "inf", "1e+308"], "[0.0, 1000000.0]"),
        ("--thresholds", ["!nan 0.7", "0.2 !nan", "2", "!-1 0.5", "0.2 !inf"], "in (-1, 1)"),
        ("--mse-targets", ["!nan 0 1", "0 !2 1"], "in [-1, 1]"),
        ("--margin", ["nan", "-1", "3"], "[0.0, 2.0]"),
        ("--max-pairs-per-query", ["-1", "x"], ">= 0 (0: all)"),
        ("--init-scale", ["-1", "0", "nan", "inf", "1e+308"], "(0.0, 10.0]"),
        ("--epochs", ["-1", "x"], "[1, inf)"),
        ("--lr", ["0", "-1", "nan", "inf", "1e+308"], "(0.0, 10.0]"),
        ("--batch-size", ["0"], "[1, inf)"),
        ("--negatives", ["-1"], "[0, inf)"),
        ("--seed", ["-1", "x"], ">= 0"),
        ("--jobs", ["0"], ">= 1"),
    ],
    "scs-score": [("--depth", ["0", "x"], ">= 1"), ("--jobs", ["0"], ">= 1")],
    "aggregate": [
        ("--kappa", ["1.5", "nan", "-0.1", "x"], "in [0, 1]"),
        ("--weights", ["!-1 2", "!nan 1", "0.5 !inf"], ">= 0"),
        ("--depth", ["0"], ">= 1"),
        ("--step", ["0", "nan", "1.5", "-0.1", "x"], "(0.0, 1.0]"),
    ],
    "boost-train": [
        ("--beta", ["-1", "nan", "101"], "[0.0, 100.0]"),
        ("--beta-grid", ["nan", "2 !-1", "101"], "in [0, 100]"),
        ("--hard-negatives", ["-1"], "[0, inf)"),
        ("--significance", ["-0.1", "nan", "1.5"], "[0.0, 1.0]"),
        ("--parallel-weight", ["0", "nan", "-1"], "(0.0, inf)"),
        ("--ngram", ["0", "4", "1.5"], "[1, 3]"),
        ("--bits", ["0", "33"], "[1, 32]"),
        ("--max-buckets", ["0", "-1", "1.5", "x"], "[1, inf)"),
        ("--hash-seed", ["-1", "4294967296", "x"], "[0, 4294967295]"),
        ("--max-df", ["0", "nan", "1.5"], "(0.0, 1.0]"),
        ("--rounds", ["0", "x"], "[1, inf)"),
        ("--eps", ["nan", "0", "-1", "inf", "1e+308", "1e-320"], "[1e-12, 1.0]"),
        ("--eval-every", ["0"], "[1, inf)"),
        ("--patience", ["-1"], "[0, inf)"),
        ("--negatives", ["-1"], "[0, inf)"),
        ("--min-grade", ["-1", "0"], "[1, inf) (unjudged documents have grade 0)"),
        ("--grade-pairs", ["-1"], "[0, inf)"),
        ("--max-positives", ["-1"], "[0, inf)"),
        ("--candidate-depth", ["0"], "[1, inf)"),
        ("--bags", ["0"], "[1, inf)"),
        ("--bag-fraction", ["0", "nan", "1.5"], "(0.0, 1.0]"),
        ("--jobs", ["0"], ">= 1"),
        ("--seed", ["-1"], ">= 0"),
    ],
    "boost-rank": [("--depth", ["0"], ">= 1"), ("--batch", ["0", "nan"], ">= 1")],
    "boost-show": [("-n", ["0", "x"], ">= 1"), ("--bag", ["0"], ">= 1")],
    "run": [("--jobs", ["0"], ">= 1")],
    "collection": [("--split-seed", ["-1", "1.5", "x"], ">= 0")],
    "demo": [("--jobs", ["0"], ">= 1")],
    "datasets list": [],
    "datasets export": [],
    "datasets build": [],
}

# checks that involve several options or a value's relation to the others, and non-numeric values
CROSS = [
    ("eval", ["--rel-threshold", "3", "--main-grade", "2"], ["--main-grade", "--rel-threshold", "2"]),
    ("scs-train", ["--thresholds", "0.7", "0.2"], ["--thresholds", "increase", "0.7 0.2"]),
    (
        "scs-train",
        ["--loss", "mse", "--mse-targets", "0", "0.5"],
        ["--mse-targets", "one target per grade (3", "got 2"],
    ),
    ("aggregate", ["--weights", "0.5", "0.6"], ["--weights", "sum to 1", "0.5 0.6"]),
    ("aggregate", ["--weights", "1"], ["--weights", "got 1 weight for 2 runs"]),
    ("aggregate", ["--kappa", "0.5", "--weights", "0.5", "0.5"], ["--kappa", "--weights"]),
    (
        "aggregate",
        ["--tune", "--dev-qrels", "none.qrels", "--dev-runs", "a.dev", "b.dev", "--step", "0.3"],
        ["--step", "divide 1", "0.3"],
    ),
    (
        "aggregate",
        ["--tune", "--dev-qrels", "none.qrels", "--dev-runs", "a.dev", "b.dev", "--step", "1e-9"],
        ["--step", "1,000,000", "1e-09"],
    ),
    ("boost-train", ["--beta", "2"], ["--beta", "--base-run"]),
    ("boost-train", ["--parallel-weight", "2"], ["--parallel-weight", "--extra-tuples"]),
    ("boost-train", ["--parallel-tuples"], ["--parallel-tuples", "--collection"]),
    ("search", ["--tag", "a b"], ["--tag", "no whitespace", "'a b'"]),
    ("aggregate", ["--tag", ""], ["--tag", "non-empty", "''"]),
    (
        "aggregate",
        ["--tune", "--dev-qrels", "none.qrels", "--dev-runs", "a.dev", "b.dev", "--measure", "MAP@x"],
        ["--measure", "unknown measure 'MAP@x'"],
    ),
]


def _cases():
    for verb, rows in TABLE.items():
        for option, values, allowed in rows:
            for value in values:
                given = [value] if value.startswith(option) else [option, *value.replace("!", "").split()]
                tokens = value.split("=", 1)[-1].split()
                shown = next((t[1:] for t in tokens if t.startswith("!")), tokens[0])
                yield pytest.param(verb, given, [option, allowed, shown], id=f"{verb} {' '.join(given)}")
    for verb, given, says in CROSS:
        yield pytest.param(verb, given, says, id=f"{verb} {' '.join(given)}")


def _stop(tmp_path, capsys, verb: str, given: list[str]) -> str:
    """Run the verb with ``given``; assert exit 2, nothing on stdout, no output, under a second; the stderr line."""
    out = tmp_path / "out"
    argv = verb.split() + [str(out) if a == "OUT" else a for a in BASE[verb]] + given
    capsys.readouterr()
    start = time.perf_counter()
    with _no_warnings():
        status = main(argv)
    elapsed = time.perf_counter() - start
    captured = capsys.readouterr()
    assert status == 2, captured.err
    assert captured.out == "" and not out.exists() and list(tmp_path.iterdir()) == []
    assert elapsed < 1.0, f"{elapsed:.2f} s: the option is checked after expensive work"
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("clirkit: error: "), captured.err
    assert "Traceback" not in captured.err and "np.str_" not in captured.err and "none." not in captured.err
    return lines[0]


class _no_warnings:
    """No warning (e.g. a numpy RuntimeWarning) may precede the error line."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings(record=True)
        self._seen = self._catch.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)
        assert not self._seen, [str(w.message) for w in self._seen]


@pytest.mark.parametrize("verb, given, says", list(_cases()))
def test_a_bad_option_value_stops_the_verb_with_one_line_naming_option_range_and_value(
    tmp_path, capsys, verb, given, says
):
    line = _stop(tmp_path, capsys, verb, given)
    for part in says:
        assert part in line, f"{part!r} not in {line!r}"


def _numeric_options(parser: argparse.ArgumentParser) -> dict[str, object]:
    """``{option: type}`` of the options of ``parser`` whose values are numbers."""
    out = {}
    for action in parser._actions:
        if action.option_strings and action.type is not None and action.nargs != 0:
            if action.type in (int, float) or getattr(action.type, "__name__", "") in ("integer", "number"):
                out[max(action.option_strings, key=len)] = action.type
    return out


def _verb_parsers():
    for verb in VERBS:
        sub = next(a for a in build_parser([verb])._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[verb]
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if actions:
            for name, action_parser in actions[0].choices.items():
                yield f"{verb} {name}", action_parser
        else:
            yield verb, parser


@pytest.mark.parametrize("verb, parser", list(_verb_parsers()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_numeric_option_of_every_verb_is_checked_and_in_the_table(verb, parser):
    options = _numeric_options(parser)
    assert [o for o, t in options.items() if t in (int, float)] == [], "a bare int/float type checks no range"
    assert set(options) == {row[0] for row in TABLE[verb]}


def test_the_table_covers_every_verb():
    assert {v.split()[0] for v in TABLE} == set(VERBS)


@pytest.mark.parametrize("text, value", [("3", 3), (" 7", 7), ("9223372036854775807", 2**63 - 1)])
def test_integer_types_accept_integers_in_range(text, value):
    assert positive_int(text) == value


@pytest.mark.parametrize(
    "kind, text, value",
    [
        (finite_float(0, 1), "0", 0.0),
        (finite_float(0, 1), "1", 1.0),
        (finite_float(0, 1), "1e-3", 1e-3),
        (finite_float(0, 1, low_open=True), "0", None),
        (finite_float(), "-1e300", -1e300),
        (int_range(0, 5), "5", 5),
        (int_range(0, 5), "6", None),
        (int_range(1), "1" + "0" * 5000, None),
    ],
)
def test_number_types_return_the_value_or_a_bad_value(kind, text, value):
    got = kind(text)
    assert isinstance(got, BadValue) if value is None else got == value


def test_a_system_parameter_type_names_the_range_of_the_constraint():
    from clirkit.systems import PSQ

    bad = param_type(PSQ, "max_options")("two")
    assert isinstance(bad, BadValue) and bad.message("--max-options") == (
        "--max-options must be an int in the range [1, inf) or 'auto', got two"
    )
    assert param_type(PSQ, "max_options")(" auto") == "auto" and param_type(PSQ, "max_options")("7") == 7
    assert math.isnan(param_type(PSQ, "lam")("nan"))  # NaN parses: PSQ's check refuses it with its range


def test_a_parameter_error_names_the_option_that_set_it_from_its_fields_and_keeps_other_text():
    from clirkit.cli.params import option_message
    from clirkit.constraints import InvalidParameterError

    build_parser(["psq"])  # registers --lambda for PSQ's lam
    error = InvalidParameterError("lam", "PSQ", "a float in the range [0.0, 1.0]", 1.5)
    set_by_option = argparse.Namespace(param__lam=1.5)
    assert (
        option_message(error, set_by_option) == "--lambda (PSQ's lam) must be a float in the range [0.0, 1.0]. "
        "Got 1.5 instead."
    )
    assert option_message(error, argparse.Namespace()) == str(error)  # no such option: scikit-learn's words
    assert option_message("a.tsv:3: expected 4 columns, got 3", set_by_option) == "a.tsv:3: expected 4 columns, got 3"


def test_argparse_errors_of_a_verb_are_one_line_too(capsys):
    with pytest.raises(SystemExit) as done:
        main(["ttable", "prune", "none.npz"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "clirkit ttable prune: error: the following arguments are required: -o/--output "
        "(see clirkit ttable prune --help)\n"
    )


def test_a_repeated_docid_names_the_file_and_the_line_of_its_second_occurrence(tmp_path, capsys):
    docs = tmp_path / "docs.tsv"
    docs.write_text(
        "Gen.1.1\tEN el principio\n\nGen.1.2\tY la tierra\nGen.1.3\tY dijo Dios\n"
        "Gen.1.2\tY vió Dios\nGen.1.1\tY llamó Dios\n",
        encoding="utf-8",
    )
    assert main(["index", str(docs), "-o", str(tmp_path / "ix.npz"), "--lang", "es", "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {docs}:5: document id Gen.1.2 appears twice "
        f"(first at line 3): give each document its own id, or remove the repeated "
        f"document\n"
    )  # it said no fix
    assert not (tmp_path / "ix.npz").exists()


def test_parameters_so_large_that_bm25_overflows_are_an_error_not_a_silent_run(indexed_dir, capsys):
    queries = indexed_dir / "q.tsv"
    queries.write_text("q1\tlas aguas, la luz y la luz\n", encoding="utf-8")  # "aguas": tf 3 in Gen.1.6
    out = indexed_dir / "run.txt"
    for extra in (["--k1", "1e+308"], ["--k3", "1e+308"]):
        with _no_warnings():
            status = main(
                [
                    "search",
                    "--index",
                    str(indexed_dir / "ix.npz"),
                    "--queries",
                    str(queries),
                    "-o",
                    str(out),
                    "-q",
                    *extra,
                ]
            )
        err = capsys.readouterr().err
        assert status == 2 and err.startswith("clirkit: error: BM25 ") and "overflow" in err and not out.exists()


@pytest.mark.parametrize("verb", sorted(BASE))
def test_help_names_values_as_words_and_shows_no_default_for_a_flag(verb, capsys):
    with pytest.raises(SystemExit):
        main([*verb.split(), "--help"])
    text = capsys.readouterr().out
    assert "PARAM__" not in text  # a metavar is the option's name (K1, MIN_PROB), not the parameter's dest
    assert "(default: True)" not in text and "(default: False)" not in text


# --------------------------------------------------------------------------- the defaults --help shows


def shown_defaults(parser: argparse.ArgumentParser, monkeypatch) -> dict[str, str]:
    """``{option: X}`` of the "(default: X)" the --help text shows, each option's entry read as printed (one
    wide line, or its invocation line and the help lines indented below it)."""
    monkeypatch.setenv("COLUMNS", "2000")  # no wrapping inside an entry's help
    entries: list[list[str]] = []
    for line in parser.format_help().splitlines():
        if re.match(r"  -", line):
            entries.append([line])
        elif entries and line.startswith(" " * 8) and line.strip():
            entries[-1].append(line)
        else:
            entries.append([])
    shown = {}
    for entry in filter(None, entries):
        text = " ".join(part.strip() for part in entry)
        invocation = re.split(r"\s{2,}", entry[0].strip())[0]
        found = re.search(r"\(default: (.*)\)$", text)
        for option in re.findall(r"(?:^|, )(--?[\w-]+)", invocation):
            shown[option] = found.group(1) if found else None
    return shown


CASES = list(_verb_parsers())


@pytest.mark.parametrize("label, parser", CASES, ids=[label for label, _ in CASES])
def test_each_help_default_of_a_parameter_is_the_systems(label, parser, monkeypatch):
    shown = shown_defaults(parser, monkeypatch)
    checked = 0
    for action in parser._actions:
        cls = getattr(action, "system", None)
        if cls is None:
            continue
        option = max(action.option_strings, key=len)
        default = default_of(cls, action.dest.removeprefix("param__"))
        expected = list(default) if isinstance(default, tuple) else default
        if action.nargs == 0:  # a flag: its help says what it changes, never "(default: True)" for its parameter
            assert shown[option] not in ("True", "False"), (label, option)
            continue
        if expected is None:  # the help says what none means
            assert shown[option] is None, (label, option)
            continue
        assert shown[option] == str(expected), (label, option, shown[option], expected)
        checked += 1
    if label in ("dt", "psq", "search", "boost-train", "scs-train", "aggregate"):
        assert checked >= 3, label  # the verbs of the systems show their parameters' defaults


def test_the_help_shows_numbers_that_are_zero_as_defaults(monkeypatch):
    from clirkit.datasets.plain import PlainCollection

    parser = dict(CASES)["collection"]
    assert (
        shown_defaults(parser, monkeypatch)["--split-seed"]
        == str(PlainCollection.__dataclass_fields__["split_seed"].default)
        == "0"
    )
    assert shown_defaults(dict(CASES)["dt"], monkeypatch)["--source-stopwords-top"] == "0"
