"""Options shared by several verbs, and the argparse types that check option values.

The value types here (numbers, run tags) never raise: a bad value becomes a :class:`BadValue`, and the
verb's run function
(wrapped by :func:`add_verb` or :func:`checked`) stops before doing anything with one line
``clirkit: error: --depth must be an integer >= 1, got 0`` and exit status 2, naming the option, the
allowed range and the value as given, as any other user error (an argparse error exits from inside the
parser). Options that set a system's hyper-parameters are only parsed here (:func:`param_type`): the
system checks their range (``check_params``, called by the verb before it reads its inputs).
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from typing import Callable

from clirkit.cli.params import BadValue
from clirkit.fileio import plain_number

INT64_MAX = 2**63 - 1  # larger integers overflow numpy's int64 arrays


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default in ``--help``, except for required options, positionals, flags and
    options without a default (no "(default: None)")."""

    def _get_help_string(self, action: argparse.Action) -> str:
        help_text = action.help or ""
        if (
            action.required
            or not action.option_strings
            or action.nargs == 0  # a flag: its help says it
            or any(action.default is v for v in (None, False, argparse.SUPPRESS))  # not ==: 0 is a default
            or "%(default)" in help_text
        ):
            return help_text
        return super()._get_help_string(action)


# option types --------------------------------------------------------------------------------------


def _bounds(low, high, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{'<' if high_open else '<='} {high:g}"
    return ""


def _shown(text: str) -> str:
    """The value as typed, quoted when it is not a plain token (empty, spaces, very long)."""
    text = str(text)
    if len(text) > 40:
        return repr(text[:37] + "...")
    return text if text and text.isprintable() and not any(c.isspace() for c in text) else repr(text)


def finite_float(
    low: float | None = None, high: float | None = None, *, low_open: bool = False, high_open: bool = False
) -> Callable[[str], float]:
    """argparse type: a finite number in the given range (``low_open``/``high_open``: bound excluded)."""
    must = " ".join(filter(None, ["a finite number", _bounds(low, high, low_open, high_open)]))

    def parse(text: str):
        try:
            value = float(text) if plain_number(text) else None
        except (TypeError, ValueError):
            value = None
        if (
            value is None
            or not math.isfinite(value)
            or (low is not None and (value < low or (low_open and value == low)))
            or (high is not None and (value > high or (high_open and value == high)))
        ):
            return BadValue(_shown(text), must)
        return value

    parse.__name__ = "number"
    return parse


def int_range(low: int | None = None, high: int | None = INT64_MAX, *, note: str = "") -> Callable[[str], int]:
    """argparse type: an integer in ``[low, high]`` (by default at most 2**63 - 1); ``note`` is added to
    the message, e.g. "(0: all)"."""
    if low is not None and high is not None and high != INT64_MAX:
        bounds = f"in [{low}, {high}]"
    else:
        bounds = f">= {low}" if low is not None else (f"<= {high}" if high != INT64_MAX else "")
    must = " ".join(filter(None, ["an integer", bounds, note]))

    def parse(text: str):
        try:
            value = int(str(text).strip()) if plain_number(text) else None
        except (TypeError, ValueError):  # also 5,000-digit numbers
            value = None
        if value is None:
            return BadValue(_shown(text), must)
        if (low is not None and value < low) or (high is not None and value > high):
            too_big = high == INT64_MAX and value > high
            return BadValue(_shown(text), f"{must} (at most 2**63 - 1)" if too_big else must)
        return value

    parse.__name__ = "integer"
    return parse


positive_int = int_range(1)
"""argparse type: an integer >= 1."""

nonnegative_int = int_range(0)
"""argparse type: an integer >= 0."""

seed_int = int_range(0)
"""argparse type of ``--seed``: an integer >= 0 (numpy's ``default_rng`` seeds)."""


def run_tag(text: str):
    """argparse type of ``--tag``: a run tag (the sixth TREC column), non-empty and without whitespace."""
    if not text or any(c.isspace() for c in text) or not text.isprintable():
        return BadValue(_shown(text), "a run tag: non-empty, printable, no whitespace")
    return text


def folder_name(text: str):
    """argparse type of an output folder option (``-o/--output-dir``): a name, not empty or only spaces (an
    empty ``-o "$DIR"`` would write into the current folder)."""
    if not str(text).strip():
        return BadValue(_shown(text), "a folder name")
    return text


def parsed_number(must: str, *, integer: bool = False) -> Callable[[str], object]:
    """argparse type: text that parses as an integer (``integer``) or a float, whose range is checked
    later by the system it sets (``must`` describes that range in the message of unparsable text)."""

    def parse(text: str):
        try:
            value = (int(str(text).strip()) if integer else float(text)) if plain_number(text) else None
        except (TypeError, ValueError):
            value = None
        if value is None:
            return BadValue(_shown(text), must)
        if integer and abs(value) > INT64_MAX:
            return BadValue(_shown(text), f"{must} (at most 2**63 - 1)")
        return value

    parse.__name__ = "integer" if integer else "number"
    return parse


def param_type(cls, name: str) -> Callable[[str], object]:
    """argparse type of an option that sets hyper-parameter ``name`` of system ``cls``: the text must
    parse as the number its constraint (``cls._parameter_constraints``) names, an int or a float; the
    range itself is checked by the system (``check_params``, before the verb reads its inputs, and again at
    ``fit``), whose message
    names the option (:func:`checked`)."""
    from numbers import Integral

    from clirkit.constraints import Interval, StrOptions
    from clirkit.paramgroups import flat_constraints

    constraints = flat_constraints(cls)[name]
    intervals = [c for c in constraints if isinstance(c, Interval)]
    if not intervals:
        raise TypeError(f"{cls.__name__}.{name} has no numeric interval constraint")
    words = {w for c in constraints if isinstance(c, StrOptions) for w in c.options}  # e.g. "auto"
    number = parsed_number(
        str(intervals[0]) + "".join(f" or {w!r}" for w in sorted(words)),
        integer=issubclass(intervals[0].type, Integral),
    )
    if not words:
        return number

    def parse(text: str):
        return text.strip() if str(text).strip() in words else number(text)

    parse.__name__ = number.__name__
    return parse


def bad_values(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    """The messages of the option values of ``args`` that an option type refused, in option order."""
    found = []
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, BadValue):
                option = max(action.option_strings, key=len) if action.option_strings else action.dest
                found.append(v.message(option))
                break
    return found


def checked(func, parser: argparse.ArgumentParser):
    """``func`` (a verb's run function) preceded by the check of the option values: a value refused by
    its type, or an empty ``-o/--output``, is a ClirkitError naming the option, before any input is read.
    Running out of memory (options asking for huge arrays) is a ClirkitError too. A hyper-parameter's error names
    the option that set it (:func:`clirkit.cli.params.option_message`)."""

    @functools.wraps(func)
    def run(args):
        from clirkit.cli.params import option_message
        from clirkit.errors import ClirkitError, too_big_as_memory

        bad = bad_values(args, parser)
        if bad:
            raise ClirkitError(bad[0])
        output = getattr(args, "output", None)
        if isinstance(output, str) and not output.strip():  # an empty -o "$OUT": the folder "." is no file
            raise ClirkitError(f"-o/--output must be a file name (or - for stdout), got {_shown(output)}")
        try:
            with too_big_as_memory():
                return func(args)
        except MemoryError as exc:  # e.g. numpy asked for 800 TiB by --dim 10**12: a user error, not a bug
            raise ClirkitError(
                f"out of memory: {str(exc).rstrip('.') or 'MemoryError'}; ask for smaller sizes"
            ) from None
        except ClirkitError as exc:  # a hyper-parameter's error names the option that set it
            named = option_message(exc, args)
            if named == str(exc):
                raise
            raise ClirkitError(named) from None

    return run


# shared options ------------------------------------------------------------------------------------


def add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def add_seed(parser: argparse.ArgumentParser, default: int = 0) -> None:
    parser.add_argument("--seed", type=seed_int, default=default, help="random seed (an integer >= 0)")


def add_jobs(
    parser: argparse.ArgumentParser, default: int = 1, help: str = "parallel worker processes (at most one per core)"
) -> None:
    parser.add_argument("-j", "--jobs", type=positive_int, default=default, help=help)


def add_depth(parser: argparse.ArgumentParser, default: int = 1000, help: str = "results per query") -> None:
    parser.add_argument("--depth", type=positive_int, default=default, help=help)


def add_verb(sub, name: str, help: str, func) -> argparse.ArgumentParser:
    """Register a verb with clirkit's help formatter and its run function: ``help`` describes it in
    ``clirkit VERB --help``, the one-line summary of :data:`clirkit.cli.verbs.VERBS` lists it in ``clirkit --help``.
    The run function first checks the option values (:func:`checked`)."""
    from clirkit.cli.verbs import VERBS

    parser = one_line_errors(sub.add_parser(name, help=VERBS[name][1], description=help, formatter_class=HelpFormatter))
    parser.set_defaults(func=checked(func, parser))
    return parser


def add_verb_with_actions(sub, name: str, help: str, actions: list[str]):
    """Register a verb made of actions (``clirkit ttable train``, ``clirkit datasets export``): the verb alone is
    a one-line error naming ``actions``; returns the subparsers to add each action to (``dest="action"``)."""
    named = ", ".join(actions[:-1]) + f" or {actions[-1]}" if len(actions) > 1 else actions[0]
    p = add_verb(sub, name, help, lambda args: args.parser.error(f"choose an action: {named}"))
    p.set_defaults(parser=p)
    return p.add_subparsers(dest="action", metavar="ACTION")


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` whose own errors (a missing option, an unknown choice, a missing value) are one line
    ``clirkit VERB: error: PROBLEM (see clirkit VERB --help)`` and exit status 2, without the usage block; and
    whose options are written whole (an abbreviation is an unknown option: dt took another verb's ``--translate``
    for its own ``--translated``)."""

    def error(message: str):
        parser.exit(2, f"{parser.prog}: error: {message} (see {parser.prog} --help)\n")

    def parse_known_args(args=None, namespace=None):
        repeated = _repeated_option(parser, sys.argv[1:] if args is None else list(args))
        if repeated:
            error(repeated)
        return type(parser).parse_known_args(parser, args, namespace)

    parser.error = error
    parser.parse_known_args = parse_known_args  # (what a verb's parser is called with, as the top one)
    parser.allow_abbrev = False
    return parser


_GATHERING = (argparse._AppendAction, argparse._CountAction, argparse._HelpAction, argparse._VersionAction)
_GATHERING += (argparse._SubParsersAction,)  # actions a repeat adds to (or that end the parse): not a value replaced


def _repeated_option(parser: argparse.ArgumentParser, args: list[str]) -> str | None:
    """The problem of an option of ``parser`` that takes a value given twice in ``args`` (argparse keeps the
    last: ``--kappa 0.5 --kappa 0.2`` fused with 0.2, ``eval --qrels A --qrels B`` judged by B alone), or None.
    Options that gather their values (append, count) and flags may repeat."""
    seen: dict[argparse.Action, tuple[str, str]] = {}
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
        else:  # -o FILE, or -oFILE: the value attached
            name, value = arg[:2], arg[2:]
            eq = "=" if value else ""
        action = parser._option_string_actions.get(name)
        if action is None or action.nargs == 0 or isinstance(action, _GATHERING):
            continue
        value = value if eq else (args[i + 1] if i + 1 < len(args) else "")
        if action in seen:
            first_name, first = seen[action]
            once = f"list its values after one {name}" if action.nargs in ("+", "*") else "give it once"
            return f"{name} is given twice ({first_name} {first}, then {name} {value}): {once}"
        seen[action] = (name, value)
    return None


def language(code: str) -> str:
    """argparse type of a language option: an ISO 639-1 code."""
    from clirkit.languages import check_language

    try:
        return check_language(code)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_language_options(
    group,
    *,
    source_default: str | None = None,
    target_default: str | None = None,
    files_only: bool = False,
    source: bool = True,
    target: bool = True,
) -> None:
    """``--source-lang`` (the queries' language) and ``--target-lang`` (the documents'), the same two
    names on every verb."""
    note = " (files only: a collection knows its languages)" if files_only else ""
    if source:
        group.add_argument(
            "--source-lang",
            type=language,
            default=source_default,
            metavar="LANG",
            help=f"language of the queries / source side, ISO 639-1{note}",
        )
    if target:
        group.add_argument(
            "--target-lang",
            type=language,
            default=target_default,
            metavar="LANG",
            help=f"language of the documents / target side, ISO 639-1{note}",
        )


def add_query_fields(parser: argparse.ArgumentParser) -> None:
    """``--query-fields`` (which fields of the topics, or which JSONL keys / TSV header columns, make a query's
    text) and ``--query-id-field`` (the key of the id in JSONL queries); see
    :func:`clirkit.formats.read_queries`."""
    g = parser.add_argument_group("query fields (TREC, CLEF, NTCIR and HC4/NeuCLIR topics are detected)")
    g.add_argument(
        "--query-fields",
        default=None,
        metavar="FIELDS",
        help="the fields whose text, joined by a space, is the query, comma-separated: of topic files "
        "title, desc, narr (default: title), e.g. title,desc; of JSONL queries or a TSV with a "
        "header, keys or columns (detected: title, description, text, query, question)",
    )
    g.add_argument(
        "--query-id-field",
        default=None,
        metavar="NAME",
        help="JSONL key or TSV column of the query id (qid, query_id, id, _id are detected)",
    )


def query_fields(args: argparse.Namespace, lang: str | None = None) -> dict:
    """The keyword arguments of :func:`clirkit.formats.read_queries` from :func:`add_query_fields`' options;
    ``lang``, the queries' language when the verb knows it, chooses among a topic's languages (HC4)."""
    return {
        "id_field": getattr(args, "query_id_field", None),
        "fields": getattr(args, "query_fields", None),
        "lang": lang,
    }


def check_query_fields_unused(args: argparse.Namespace) -> None:
    """ClirkitError if ``--query-fields``/``--query-id-field`` are given with ``--collection`` (whose queries
    are made already)."""
    from clirkit.errors import ClirkitError

    given = [
        o
        for o, v in (
            ("--query-fields", getattr(args, "query_fields", None)),
            ("--query-id-field", getattr(args, "query_id_field", None)),
        )
        if v is not None
    ]
    if given and getattr(args, "collection", None):
        raise ClirkitError(f"{given[0]} applies to a --queries file; a collection's queries are read as it made them")


def add_stemmer_option(parser, what: str = "") -> None:
    """``--stemmer snowball|none`` (:class:`Analyzer`'s ``stemmer``; read with :func:`stemmer_of`), with
    ``--segmenter`` and ``--chinese-script`` (read with :func:`segmentation_of`); ``what`` says what is analyzed,
    if not the text the verb reads."""
    from clirkit.segmenters import CHINESE_SCRIPTS, SEGMENTERS

    parser.add_argument(
        "--stemmer",
        choices=("snowball", "none"),
        default="snowball",
        help=f"{what}snowball = the language's Snowball stemmer (PyStemmer; languages without one "
        f"are not stemmed), none = whole words",
    )
    parser.add_argument(
        "--segmenter",
        choices=("auto", "none", *SEGMENTERS),
        default="auto",
        help="how text written without spaces becomes terms: auto = the language's default (ICU "
        "words for zh, ja, th, lo, km, my; bigrams for ko; none for other languages), "
        "bigrams / unigrams+bigrams = CJK character n-grams, icu = ICU's word break iterator, "
        "jieba = jieba's Chinese words (pip install 'clirkit[zh]'), sudachi = Sudachi's Japanese "
        "words in dictionary form (clirkit[ja]), kiwi = Kiwi's Korean morphemes (clirkit[ko])",
    )
    parser.add_argument(
        "--chinese-script",
        choices=("auto", "none", *CHINESE_SCRIPTS),
        default="auto",
        help="the script Chinese text is converted to before tokenizing (OpenCC): auto = simplified "
        "for zh, none for other languages",
    )


def segmentation_of(args) -> dict:
    """The Analyzer keywords ``segmenter`` and ``chinese_script`` of :func:`add_stemmer_option`'s options (auto when
    the verb has none)."""
    return {"segmenter": getattr(args, "segmenter", "auto"), "chinese_script": getattr(args, "chinese_script", "auto")}


def add_side_stopword_options(parser, texts: tuple[str, str] = ("the queries'", "the documents'")) -> None:
    """``--source-stopwords`` and ``--target-stopwords``: each side's stopwords, for a verb that analyzes both
    (boost-train, scs-train, ttable train), where ``--stopwords`` names a list for both languages; ``texts``: what
    each side's text is, for the help."""
    for side, text in zip(("source", "target"), texts):
        parser.add_argument(
            f"--{side}-stopwords",
            metavar="LIST",
            default=None,
            help=f"{text} stopwords: none, snowball or a FILE of words in their language, one per line "
            "(default: --stopwords)",
        )


def analyzers_of(args, source_lang: str, target_lang: str) -> tuple:
    """``(query analyzer, document analyzer)`` of :func:`add_analysis_options`'s options (``--stopwords``: a list
    name for both sides) and :func:`add_side_stopword_options`'s (a name or a FILE per side), for a verb that
    analyzes both sides itself (boost-train, scs-train)."""
    from clirkit.analysis import Analyzer

    settings = analysis_settings(args, stopword_files=False)
    sides = []
    for lang, option in ((source_lang, "source_stopwords"), (target_lang, "target_stopwords")):
        given = getattr(args, option, None)
        own = dict(settings)
        if given is not None:
            own["stopwords"] = stopword_option(given, f"--{option.replace('_', '-')}")
        sides.append(Analyzer(lang, **own))
    return tuple(sides)


def stopword_option(value: str | None, option: str = "--stopwords") -> str | list[str] | None:
    """The stopwords an option names, the one reading of every verb's stopword options (``--stopwords``,
    ``--source-stopwords``, ``--target-stopwords``): None for ``none`` or no option, ``"snowball"`` (the Snowball
    project's list, made by the analyzer that uses it), else the words of a FILE (one per line, ``#`` comments;
    a file with no word is an error). A missing or unreadable FILE is a one-line error naming it, an empty value one
    naming ``option``."""
    from clirkit.analysis import read_stopwords
    from clirkit.errors import ClirkitError

    if value is not None and not value.strip():
        raise ClirkitError(f"{option}: an empty value: give none, snowball or a FILE of words")
    if value is None or value in ("none", "snowball"):
        return None if value in (None, "none") else value
    words = read_stopwords(value)
    if not words:
        raise ClirkitError(f"{option}: {value} holds no word (a stopword file has one word a line; none for no list)")
    return words


def listed_file(value: str | None) -> str | None:
    """The FILE a stopword option names (None for ``none``, ``snowball`` or no value): an input file the verb
    reads, for :func:`clirkit.fileio.check_outputs`."""
    return None if value in (None, "none", "snowball") else value


def side_stopword_files(args) -> dict:
    """The FILEs of :func:`add_side_stopword_options`' options (option -> path or None), inputs as
    :func:`listed_file`'s."""
    return {f"--{side}-stopwords": listed_file(getattr(args, f"{side}_stopwords")) for side in ("source", "target")}


def say_unmatched_stopwords(analyzer, given: str | None, *, quiet: bool) -> None:
    """A note on stderr when the stopword FILE ``given`` (an option's value) holds words ``analyzer`` cuts into other
    tokens, which can then never match (none for ``none``, ``snowball`` or no option)."""
    from clirkit.progress import say

    if given in (None, "none", "snowball"):
        return
    unmatched = analyzer.unmatched_stopwords()
    if unmatched:
        bare = analyzer.replace(stopwords=None, stemmer=None)
        shown = ", ".join(f"{w!r} -> {' '.join(bare.surface_tokens(w)) or 'nothing'}" for w in unmatched[:3])
        say(
            f"note: {given}: {len(unmatched)} of {len(analyzer.stopwords)} stopwords are cut by the {analyzer.lang} "
            f"analysis into other tokens and can never match ({shown})",
            quiet=quiet,
        )


def stemmer_of(args) -> str | None:
    """The Analyzer ``stemmer`` of ``--stemmer`` (snowball when the verb has no such option)."""
    return None if getattr(args, "stemmer", "snowball") == "none" else "snowball"


def add_analysis_options(parser, *, stopword_files: bool = True) -> None:
    """``--stemmer`` and ``--stopwords``: the analysis of the text a verb tokenizes (:class:`Analyzer`)."""
    add_stemmer_option(parser)
    what = (
        "none, snowball (the Snowball project's list of the language) or a FILE of words (one per line)"
        if stopword_files
        else "none or snowball (the Snowball project's list of each language)"
    )
    parser.add_argument("--stopwords", metavar="LIST", default="none", help=f"stopwords to drop: {what}")


def analysis_settings(args, *, stopword_files: bool = True) -> dict:
    """The Analyzer keywords ``stemmer`` and ``stopwords`` of :func:`add_analysis_options`'s options (a stopword
    file read; ClirkitError for a file where only a list name is allowed)."""
    from clirkit.errors import ClirkitError

    stopwords = args.stopwords
    if stopwords not in ("none", "snowball") and not stopword_files:
        sides = hasattr(args, "source_stopwords") and hasattr(args, "target_stopwords")
        raise ClirkitError(
            f"--stopwords must be none or snowball, got {stopwords} (the list of each language"
            + ("; a FILE of one language's words: --source-stopwords or --target-stopwords)" if sides else ")")
        )
    stopwords = stopword_option(stopwords)
    return {"stemmer": stemmer_of(args), "stopwords": stopwords, **segmentation_of(args)}
