"""Options that are a system's hyper-parameters: their defaults are read from the system's ``__init__``,
so a verb and the library cannot disagree.

``add_param(group, SystemClass, "k1", "--k1", type=float, help=...)`` registers ``--k1`` with the
default of ``SystemClass(k1=...)``; :func:`params_of` gives back ``{"k1": value, ...}`` for every such
option of the parsed arguments, ready for ``SystemClass(**params)``.
"""

from __future__ import annotations

import argparse
import inspect
import re

_PREFIX = "param__"
_OPTION_OF: dict[str, str] = {}  # hyper-parameter name -> the option that sets it, in this process


def tokenize_jobs() -> int:
    """The default ``--jobs`` of a verb whose work is mostly tokenizing a corpus (``ttable train``, ``index``): 2
    worker processes, 1 on a machine with a single core. sacremoses is pure Python: a second process about halves
    the time on an idle machine, while more would take over a shared one for less (each costs a start-up).
    The tokens, and so the outputs, do not depend on the number of processes."""
    from clirkit.parallel import cores

    return min(2, cores())


def default_of(cls, name: str):
    """The default of hyper-parameter ``name`` of ``cls`` (by its flat name: a group's parameter by its own,
    :func:`~clirkit.paramgroups.flat_defaults`)."""
    from clirkit.paramgroups import flat_defaults

    default = flat_defaults(cls)[name]
    if default is inspect.Parameter.empty:
        raise TypeError(f"{cls.__name__}.{name} has no default")
    return default


class BadValue:
    """The value of an option type for text it refuses: the text and what the option must be."""

    def __init__(self, text: str, must: str) -> None:
        self.text, self.must = text, must

    def message(self, option: str) -> str:
        return f"{option} must be {self.must}, got {self.text}"

    def __repr__(self) -> str:
        return f"BadValue({self.text!r}, {self.must!r})"


def or_none(parse):
    """argparse type: the word ``none`` (None: the parameter's None, as in Python) or what ``parse`` reads."""

    def parse_or_none(text: str):
        if str(text).strip().lower() == "none":
            return None
        value = parse(text)
        return BadValue(value.text, _or_none(value.must)) if isinstance(value, BadValue) else value

    parse_or_none.__name__ = getattr(parse, "__name__", "value")
    return parse_or_none


def _none_word(parse):
    """argparse type of a choices option taking ``none``: the word ``none`` in any case (as :func:`or_none` reads
    it) as the choice ``"none"``, any other text as ``parse`` reads it."""

    def parse_none_word(text: str):
        return "none" if str(text).strip().lower() == "none" else parse(text)

    parse_none_word.__name__ = getattr(parse, "__name__", "value")
    return parse_none_word


def _or_none(must: str) -> str:
    """``must`` (the words of the values an option takes) with ``none`` added: "a, b or none"."""
    head, sep, last = must.rpartition(" or ")
    return f"{head}, {last} or none" if sep else f"{must} or none"


def _takes_none(cls, name: str) -> bool:
    """Whether hyper-parameter ``name`` of ``cls`` may be None and has no string value ``"none"``."""
    from clirkit.constraints import StrOptions
    from clirkit.paramgroups import flat_constraints

    constraints = flat_constraints(cls).get(name)
    if not isinstance(constraints, (list, tuple)) or not any(c is None for c in constraints):
        return False  # e.g. "no_validation"
    return not any(isinstance(c, StrOptions) and "none" in c.options for c in constraints)


class StoreGiven(argparse._StoreAction):
    """argparse's "store", also remembering that the option was given, even at its default value (:func:`given`:
    by its hyper-parameter's name, or by its ``dest`` for an option that sets none, e.g. ``eval --alpha``); the word
    ``none`` given (alone) to an option whose parameter may be None stores None."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(self, "none_word", False):
            values = _none_of(values)
        super().__call__(parser, namespace, values, option_string)
        setattr(namespace, _GIVEN, getattr(namespace, _GIVEN, frozenset()) | {self.dest.removeprefix(_PREFIX)})


def _none_of(values):
    """The value of an option taking ``none``: None for ``none`` (or a list of it alone), a :class:`BadValue` for
    ``none`` among other values, else ``values``."""
    if isinstance(values, list):
        nones = [v is None or v == "none" for v in values]
        if not any(nones):
            return values
        if len(values) == 1:
            return None
        shown = " ".join("none" if n else str(v) for n, v in zip(nones, values))
        return [BadValue(shown, "none alone, or values without none")]
    return None if values == "none" else values


_GIVEN = "given__params"  # the hyper-parameters (and other options, :class:`StoreGiven`) the command line gave


def given(args: argparse.Namespace, name: str) -> bool:
    """Whether the command line gave the option of hyper-parameter ``name``, or of ``dest`` ``name`` stored by
    :class:`StoreGiven` (even at its default value)."""
    return name in getattr(args, _GIVEN, frozenset())


def add_param(group, cls, name: str, *flags: str, **kwargs) -> argparse.Action:
    """Add an option for hyper-parameter ``name`` of ``cls``, defaulting to the class's default
    (a tuple default is shown as a list; ``action='store_true'`` options must default to False)."""
    default = default_of(cls, name)
    none_word = False  # the word `none` stores None: the parameter may be None (its option says so in `--help`)
    if kwargs.get("action") in ("store_true", "store_false"):
        expected = kwargs["action"] == "store_false"
        if default is not expected:
            raise TypeError(f"{cls.__name__}.{name} defaults to {default!r}, not {expected}")
    else:
        kwargs["default"] = list(default) if isinstance(default, tuple) else default
        kwargs.setdefault("action", StoreGiven)
        none_word = _takes_none(cls, name)
        if none_word and "choices" in kwargs and kwargs["action"] is StoreGiven:
            kwargs["choices"] = (*kwargs["choices"], "none")
            kwargs["type"] = _none_word(kwargs.get("type", str))
        elif none_word and "choices" not in kwargs:
            kwargs["type"] = or_none(kwargs.get("type", str))
        if "metavar" not in kwargs and "choices" not in kwargs:  # argparse would show the dest, PARAM__NAME
            kwargs["metavar"] = max(flags, key=len).lstrip("-").replace("-", "_").upper()
    _OPTION_OF[name] = max(flags, key=len)
    action = group.add_argument(*flags, dest=_PREFIX + name, **kwargs)
    action.none_word = none_word
    action.system = cls  # whose default it shows (tests/test_cli_help_defaults.py reads it back from --help)
    return action


# what the readers of :mod:`clirkit.formats` say in their Python keywords, in the words of a verb that reads its
# queries with --query-fields and --query-id-field (:func:`clirkit.cli.common.add_query_fields`)
_QUERY_OPTION_WORDS = (
    (
        re.compile(
            r"id_field, text_fields and header apply to TSV and JSONL queries; the text of (\S+) topics is "
            r"chosen with field= \(--query-fields on the command line\)"
        ),
        r"--query-id-field applies to TSV and JSONL queries (\1 topics have their own ids); their text is chosen with "
        r"--query-fields",
    ),
)
# a JSONL record's id or text key not found, in the reader's words (clirkit.formats.records.choose_fields' hints)
_NO_KEY = re.compile(r"(: no (query|document) (id|text) key \(.*\)); name it with (?:id_field=|text_fields=|fields=)$")


# the remedies of a TSV header line the readers name by their keywords (clirkit.formats.records): to name the text
# column (text_fields= of documents, fields= of queries) and to say that line 1 is data (header=False)
_UNKNOWN_HEADER = re.compile(
    r"; name the text column with (text_fields=|fields=), or give header=False if line (\d+) is a (document|query)$"
)
_NO_TEXT_COLUMN = re.compile(r"; name it with (text_fields=|fields=) \(header line\)$")
# the keys of an experiment file's [collection] table for the readers' keywords (queries: query_fields)
_FILE_KEYS = {"fields=": "query_fields", "text_fields=": "text_fields", "id_field=": "id_field"}
_NO_HEADER = re.compile(r"so (text_fields=|fields=|id_field=) has no column to pick")


def _text_option(keyword: str, args: argparse.Namespace) -> str | None:
    """The verb's option for a reader's keyword naming text fields, None if the verb has none: ``--text-fields``
    (``clirkit index``'s documents), ``--query-fields`` (the verbs reading a queries file)."""
    if keyword == "text_fields=":
        return "--text-fields" if hasattr(args, "text_fields") else None
    return "--query-fields" if hasattr(args, "query_fields") else None


def _id_option(args: argparse.Namespace) -> str | None:
    """The verb's option naming the id column: ``--query-id-field`` (queries), ``--id-field`` (``index``)."""
    return (
        "--query-id-field" if hasattr(args, "query_id_field") else "--id-field" if hasattr(args, "id_field") else None
    )


def _key_words(message: str, args: argparse.Namespace) -> str:
    """A JSONL id or text key's error in the words of the verb: its options where it has them (``--query-id-field``
    and ``--query-fields`` for queries, ``--id-field`` and ``--text-fields`` for documents), else the key of an
    experiment file's ``[collection]`` (``query_fields``; none names an id or a document's text: rename it)."""
    match = _NO_KEY.search(message)
    if match is None:
        return message
    what, part = match.group(2), match.group(3)
    if part == "id":
        option = "--query-id-field" if what == "query" else "--id-field"
        option = option if hasattr(args, option[2:].replace("-", "_")) else None
    else:
        option = _text_option("fields=" if what == "query" else "text_fields=", args)
        option = option or ("query_fields in [collection]" if what == "query" else None)
    remedy = f"name it with {option}" if option else "rename it to one of those looked for"
    return message[: match.start()] + f"{match.group(1)}; {remedy}"


def _header_words(message: str, args: argparse.Namespace) -> str:
    """A TSV header error in the words of the verb: its own options, or, where it has none (documents read by
    other verbs than ``index``, queries whose first line is a query, an experiment file), what to change in the
    file."""
    match = _UNKNOWN_HEADER.search(message)
    if match:
        keyword, line, what = match.groups()
        option, key = _text_option(keyword, args), "docid" if what == "document" else "qid"
        name = f"name the text column with {option}" if option else f"rename the columns, e.g. {key} TAB text"
        no_header = (
            f"give --no-header if line {line} is a {what}"
            if what == "document" and hasattr(args, "header")
            else f"if line {line} is a {what}, insert a header line such as {key} TAB text above it"
        )
        return message[: match.start()] + f"; {name}, or {no_header}"
    match = _NO_HEADER.search(message)
    if match:
        option = _text_option(match.group(1), args) if match.group(1) != "id_field=" else _id_option(args)
        return (
            message[: match.start()]
            + f"so {option or _FILE_KEYS[match.group(1)]} has no column to pick"
            + message[match.end() :]
        )
    match = _NO_TEXT_COLUMN.search(message)
    if match:
        option = _text_option(match.group(1), args)
        remedy = f"name it with {option}" if option else "rename it to one of those looked for"
        return message[: match.start()] + f"; {remedy} (header line)"
    return message


# Python's words for a parameter's string values, "a str among {'auto'}": an option's are typed as words, "'auto'"
_STR_AMONG = re.compile(r"\ba str among \{('[^{}]*')\}")
# a hyper-parameter's keyword with a value in a library message, transform="shift": an option's, --transform shift
_KEYWORD_VALUE = re.compile(r'\b([a-z_][a-z0-9_]*)="([^"\s]*)"')


def option_message(error: BaseException | str, args: argparse.Namespace) -> str:
    """The command line's message of ``error``: a parameter's error (:class:`clirkit.constraints.InvalidParameterError`)
    set by an option of the parsed ``args`` names the option and the parameter, e.g. "--lambda (PSQ's lam) must be
    a float in the range [0.0, 1.0]. Got 1.5 instead." (Python's None said as the option's word ``none``); a queries
    reader's error that names its Python keywords names the verb's options instead ("--query-id-field applies to
    TSV and JSONL queries ..."), and a TSV header's error the verb's options or, where it has none, what to change
    in the file; a keyword with its value that a library message names (``transform="shift"``) is said as the
    verb's option for that hyper-parameter (``--transform shift``) where it has one; any other error keeps its
    text."""
    from clirkit.constraints import InvalidParameterError

    given = {key[len(_PREFIX) :] for key in vars(args) if key.startswith(_PREFIX)}
    if isinstance(error, InvalidParameterError):
        option = _OPTION_OF.get(error.parameter) if error.parameter in given else None
        if not option:
            return str(error)
        allowed = re.sub(r"\bNone\b", "none", error.allowed)  # the word the option takes (:func:`or_none`)
        allowed = _STR_AMONG.sub(lambda m: m.group(1).replace(", ", " or "), allowed)  # the words as typed
        return f"{option} ({error.caller}'s {error.parameter}) must be {allowed}{error.got}"
    message = _key_words(_header_words(str(error), args), args)
    message = _KEYWORD_VALUE.sub(
        lambda m: f"{_OPTION_OF[m[1]]} {m[2]}" if m[1] in given and m[1] in _OPTION_OF else m[0], message
    )
    if hasattr(args, "query_id_field"):
        for words, options in _QUERY_OPTION_WORDS:
            message = words.sub(options, message)
    return message


def params_of(args: argparse.Namespace, *, convert: dict | None = None) -> dict:
    """``{name: value}`` of the hyper-parameter options in ``args`` (by their flat names: a system with groups of
    parameters is made of them by :func:`~clirkit.paramgroups.from_flat`); ``convert`` maps a name to a function
    applied to its value (e.g. ``tuple``)."""
    convert = convert or {}
    out = {}
    for key, value in vars(args).items():
        if key.startswith(_PREFIX):
            name = key[len(_PREFIX) :]
            out[name] = convert[name](value) if name in convert and value is not None else value
    return out
