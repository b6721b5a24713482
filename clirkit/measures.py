"""The measure registry: every measure clirkit computes, defined once.

Each :class:`MeasureDef` holds a measure's canonical name, its other
spellings (ir_measures' and trec_eval's), its cutoff rule, the relevance
level it counts from and the vectorized function that computes it.
:func:`register` adds one; :func:`parse_measure`, the ``-m`` help of
``clirkit eval`` (:data:`MEASURE_NAMES_HELP`) and
:func:`clirkit.metrics.evaluate` all read the registry, so a new measure is
one :func:`register` call in this file.

Names (case-insensitive), as users write them:

- ir_measures' style: ``NAME``, ``NAME@k`` and ``NAME(rel=N)@k``, e.g. ``AP``,
  ``AP@100``, ``nDCG@10``, ``P(rel=2)@10``, ``RR(rel=2)``, ``NumRelRet``.
- trec_eval's style: ``map``, ``recip_rank``, ``Rprec``, ``num_ret``, and the
  cutoff after ``_`` or ``.``: ``P_10``, ``P.10``, ``ndcg_cut_10``,
  ``ndcg_cut.10``, ``map_cut_100``, ``recall_1000``, ``success_10``.

ir_measures' measure objects (``from ir_measures import AP, nDCG, R``: ``AP``, ``nDCG@10``, ``R@1000``,
``P(rel=2)@10``; PyTerrier's ``pyterrier.measures`` are the same objects) are read by their name, which is the
ir_measures spelling above; a parameter clirkit's measures do not have (``nDCG(dcg='exp-log2')``,
``judged_only=True``) is an error, not ignored.

``(rel=N)`` overrides the relevance level of one measure: a document counts
when its grade is >= N, whatever ``rel_threshold`` (or, for ``P_mr`` and
``MRR_mr``, ``main_grade``) says. Measures that use the raw grades (nDCG) or
count every retrieved document (NumRet) take no ``rel``.

A measure's function is called as ``compute(ranking, cutoff, level)`` and
returns one float64 value per query. ``ranking`` is a
:class:`clirkit.metrics.RankedQueries`: the evaluated rows of every query in
final rank order (``rank``, ``grades``, ``group``) with the per-query
reductions the measures need: over the few relevant rows (``hits``,
``count_rows``, ``nth_in_query``, ``first_rank_of``, ``dcg``), which the
measures here use, or over every row (``count``, ``hits_so_far``,
``first_rank``, ``per_row``, ``top``, ``relevant``), which give the same sums;
and ``n_judged``, ``ideal_dcg``, ``divide``. The functions here only combine
those, so this module imports without numpy.
``cutoff`` is the rank cutoff (None: the whole ranking, within ``depth``) and
``level`` the minimum relevant grade (None for measures without a level).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from clirkit.errors import ClirkitError

__all__ = [
    "CUTOFF_RULES",
    "DEFAULT_DEPTH",
    "DEFAULT_MEASURES",
    "LEVELS",
    "MEASURE_NAMES_HELP",
    "REGISTRY",
    "SCS_MEASURES",
    "Measure",
    "MeasureDef",
    "beyond_depth",
    "names_help",
    "parse_measure",
    "parse_measures",
    "register",
    "split_measure_list",
]

CUTOFF_RULES = ("none", "required", "optional")
LEVELS = ("rel", "main")

DEFAULT_MEASURES = ("AP", "PRES@1000", "nDCG@10", "P@10", "RR")
DEFAULT_DEPTH = 1000
"""The ranks per query an evaluation reads unless told otherwise (SPEC §8): :func:`clirkit.metrics.evaluate`'s
default ``depth``, and the depth of an experiment's report."""
SCS_MEASURES = ("P_mr@1", "P_mr@5", "P_r@5", "nDCG@5", "AP", "MRR_mr", "MRR_r")


@dataclass(frozen=True)
class MeasureDef:
    """One measure of the registry.

    Attributes:
        name: canonical spelling, e.g. ``"nDCG"``; the canonical column name is
            ``name``, then ``(rel=N)`` if given, then ``@k`` if there is a cutoff.
        compute: ``compute(ranking, cutoff, level) -> float64 array``, one value per
            query (see the module docstring).
        description: what the measure is, in one sentence.
        aliases: other spellings written like ``name`` (with ``@k`` and ``(rel=N)``),
            e.g. ``("MAP", "map")``.
        trec_names: trec_eval spellings with the cutoff written ``{k}`` after ``_``,
            e.g. ``("map_cut_{k}",)``; each also accepts ``.`` before the cutoff.
        cutoff: ``"none"`` (no cutoff allowed), ``"required"`` or ``"optional"``.
        default_cutoff: cutoff of an ``"optional"`` measure written without one
            (None: the whole ranking).
        level: the relevance level the measure counts from: ``"rel"``
            (``rel_threshold``), ``"main"`` (``main_grade``) or None (none: the
            measure takes no ``(rel=N)``).
    """

    name: str
    compute: Callable[[Any, int | None, int | None], Any]
    description: str
    aliases: tuple[str, ...] = ()
    trec_names: tuple[str, ...] = ()
    cutoff: str = "none"
    default_cutoff: int | None = None
    level: str | None = "rel"

    def spelling(self) -> str:
        """The name with its cutoff rule, as shown in help texts: ``P@k``, ``AP[@k]``, ``RR``."""
        suffix = {"none": "", "required": "@k", "optional": "[@k]"}[self.cutoff]
        return self.name + suffix


@dataclass(frozen=True)
class Measure:
    """A parsed measure name.

    Attributes:
        name: canonical spelling, e.g. ``"nDCG@10"`` or ``"P(rel=2)@10"``.
        kind: the canonical name of its :class:`MeasureDef` (a key of :data:`REGISTRY`).
        cutoff: rank cutoff k (N for PRES), or None for "the whole ranking".
        rel: relevance level given as ``(rel=N)``, or None for the evaluation's
            default (``rel_threshold`` or ``main_grade``, see :attr:`MeasureDef.level`).
        label: the name as the user wrote it (stripped), e.g. ``"P_10"``; not part
            of equality: ``P_10`` and ``P@10`` are the same measure.
    """

    name: str
    kind: str
    cutoff: int | None
    rel: int | None = None
    label: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name)

    @property
    def definition(self) -> MeasureDef:
        """The registry entry of this measure."""
        return REGISTRY[self.kind]

    def level(self, rel_threshold: int, main_grade: int) -> int | None:
        """The minimum relevant grade this measure counts from, given the evaluation's levels."""
        if self.rel is not None:
            return self.rel
        return {"rel": rel_threshold, "main": main_grade, None: None}[self.definition.level]


# --------------------------------------------------------------------------- the registry

REGISTRY: dict[str, MeasureDef] = {}
_AT_SPELLINGS: dict[str, tuple[MeasureDef, str]] = {}  # lowercase spelling -> (definition, spelling)
_TREC_CUT_SPELLINGS: dict[str, tuple[MeasureDef, str]] = {}  # lowercase prefix of "prefix_{k}"


def register(definition: MeasureDef) -> MeasureDef:
    """Add a measure to the registry and return it.

    Raises:
        ValueError: a bad cutoff rule or level, or a spelling that another
            measure already uses (a programming error, not a user's).
    """
    d = definition
    if d.cutoff not in CUTOFF_RULES:
        raise ValueError(f"{d.name}: cutoff must be one of {CUTOFF_RULES}, got {d.cutoff!r}")
    if d.level is not None and d.level not in LEVELS:
        raise ValueError(f"{d.name}: level must be one of {LEVELS} or None, got {d.level!r}")
    if d.default_cutoff is not None and d.cutoff != "optional":
        raise ValueError(f"{d.name}: only an optional cutoff has a default")
    at_names = [d.name, *d.aliases] + [t for t in d.trec_names if "{k}" not in t]
    cut_names = [t for t in d.trec_names if "{k}" in t]
    for t in cut_names:
        if not t.endswith("_{k}") or t.count("{k}") != 1 or d.cutoff == "none":
            raise ValueError(f"{d.name}: trec_eval name {t!r} must end with _{{k}}, on a measure with a cutoff")
    for table, spellings in ((_AT_SPELLINGS, at_names), (_TREC_CUT_SPELLINGS, [t[:-4] for t in cut_names])):
        for s in spellings:
            other = table.get(s.lower())
            if other is not None and other[0].name != d.name:
                raise ValueError(f"{d.name}: spelling {s!r} is already {other[0].name}'s")
    if d.name in REGISTRY:
        raise ValueError(f"measure {d.name} is registered twice")
    REGISTRY[d.name] = d
    for s in at_names:
        _AT_SPELLINGS.setdefault(s.lower(), (d, s))
    for t in cut_names:
        _TREC_CUT_SPELLINGS.setdefault(t[:-4].lower(), (d, t[:-4]))
    return d


# --------------------------------------------------------------------------- the measures


def _average_precision(r, k, level):
    """Sum of P@rank at each relevant row within the cutoff, over the judged relevant count."""
    hits = r.hits(level, k)
    return r.divide(r.count_rows(hits, r.nth_in_query(hits) / r.rank[hits]), r.n_judged(level))


def _pres(r, k, level):
    """PRES (Magdy & Jones 2010) with browsing depth k.

    The n - n_R relevant documents not found within rank k are placed at ranks
    k + i, i = n_R+1..n. Then PRES = 1 - (sum r_i / n - (n+1)/2) / k
    = (n k + n(n+1)/2 - sum r_i) / (n k), computed in exact integers up to one
    final division. 0 when n = 0.
    """
    found = r.hits(level, k)
    n = r.n_judged(level)
    n_found = r.count_rows(found).astype("int64")
    rank_sum = r.count_rows(found, r.rank[found]).astype("int64")
    total = rank_sum + (n - n_found) * k + (n * (n + 1) - n_found * (n_found + 1)) // 2
    numerator = n * k + n * (n + 1) // 2 - total
    return r.divide(numerator.astype("float64"), (n * k).astype("float64"))


def _ndcg(r, k, level):
    """DCG (gain = grade, discount log2(rank+1)) over the DCG of the ideal ranking of all judgments."""
    return r.divide(r.dcg(k), r.ideal_dcg(k))


def _precision(r, k, level):
    """Relevant rows in the top k, divided by k (always k, as trec_eval)."""
    return r.count_rows(r.hits(level, k)) / k


def _recall(r, k, level):
    """Relevant rows in the top k over the judged relevant count."""
    return r.divide(r.count_rows(r.hits(level, k)), r.n_judged(level))


def _reciprocal_rank(r, k, level):
    """1 / rank of the first relevant row within the cutoff, 0 if none."""
    return r.divide(1.0, r.first_rank_of(r.hits(level, k)))


def _r_precision(r, k, level):
    """Relevant rows in the top R over R, R = the judged relevant count."""
    n = r.n_judged(level)
    hits = r.hits(level)
    return r.divide(r.count_rows(hits[r.rank[hits] <= n[r.group[hits]]]), n)


def _success(r, k, level):
    """1 if a relevant row is in the top k, else 0."""
    return (r.count_rows(r.hits(level, k)) > 0) * 1.0


def _num_ret(r, k, level):
    """Rows retrieved (within ``depth``)."""
    return r.count(r.top(None))


def _num_rel(r, k, level):
    """Judged documents with a grade >= level, retrieved or not."""
    return r.n_judged(level) * 1.0


def _num_rel_ret(r, k, level):
    """Relevant rows retrieved (within ``depth``)."""
    return r.count_rows(r.hits(level))


register(
    MeasureDef(
        "AP",
        _average_precision,
        "average precision: sum of P@k at each relevant retrieved rank k within the "
        "cutoff, divided by the number of relevant judged documents (trec_eval map, map_cut_k)",
        aliases=("MAP", "map"),
        trec_names=("map_cut_{k}",),
        cutoff="optional",
    )
)
register(
    MeasureDef(
        "PRES",
        _pres,
        "Magdy & Jones' patent retrieval evaluation score, browsing depth N = the cutoff",
        cutoff="optional",
        default_cutoff=1000,
    )
)
register(
    MeasureDef(
        "nDCG",
        _ndcg,
        "trec_eval's ndcg_cut_k: gain = grade, discount log2(rank+1), ideal ranking from all "
        "judged documents; no cutoff = trec_eval's ndcg",
        trec_names=("ndcg_cut_{k}",),
        cutoff="optional",
        level=None,
    )
)
register(
    MeasureDef(
        "P",
        _precision,
        "precision in the top k, always divided by k (trec_eval P_k)",
        trec_names=("P_{k}",),
        cutoff="required",
    )
)
register(
    MeasureDef(
        "R",
        _recall,
        "recall in the top k: relevant retrieved over relevant judged (trec_eval recall_k)",
        aliases=("recall",),
        trec_names=("recall_{k}",),
        cutoff="optional",
    )
)
register(
    MeasureDef(
        "RR",
        _reciprocal_rank,
        "reciprocal rank of the first relevant document (trec_eval recip_rank)",
        aliases=("MRR", "recip_rank"),
        cutoff="optional",
    )
)
register(
    MeasureDef(
        "Rprec", _r_precision, "precision in the top R, R = number of relevant judged documents (trec_eval Rprec)"
    )
)
register(
    MeasureDef(
        "Success",
        _success,
        "1 if a relevant document is in the top k, else 0 (trec_eval success_k)",
        trec_names=("success_{k}",),
        cutoff="required",
    )
)
register(
    MeasureDef(
        "NumRet",
        _num_ret,
        "number of documents retrieved, within depth (trec_eval num_ret)",
        aliases=("num_ret",),
        level=None,
    )
)
register(
    MeasureDef(
        "NumRel",
        _num_rel,
        "number of relevant judged documents, retrieved or not (trec_eval num_rel)",
        aliases=("num_rel",),
    )
)
register(
    MeasureDef(
        "NumRelRet",
        _num_rel_ret,
        "number of relevant documents retrieved, within depth (trec_eval num_rel_ret)",
        aliases=("num_rel_ret",),
    )
)
register(
    MeasureDef(
        "P_mr",
        _success,
        "SCS paper: 1 if a main-relevant document (grade >= main_grade) is in the top k, else 0 (not divided by k)",
        cutoff="required",
        level="main",
    )
)
register(MeasureDef("P_r", _precision, "SCS paper: precision at k of relevant documents", cutoff="required"))
register(
    MeasureDef(
        "MRR_mr", _reciprocal_rank, "SCS paper: reciprocal rank of the first main-relevant document", level="main"
    )
)
register(MeasureDef("MRR_r", _reciprocal_rank, "SCS paper: reciprocal rank of the first relevant document"))


# the counts of retrieved, relevant or relevant retrieved documents: the same for any order of the documents
_RANK_FREE = (_num_ret, _num_rel, _num_rel_ret)


def depends_on_ranking(measure: Measure) -> bool:
    """Whether ``measure``'s value can change with the order of the documents within the depth (False for the
    counts NumRet, NumRel and NumRelRet): a measure that cannot, cannot choose between rankings of the same
    documents, such as fusion weights."""
    return measure.definition.compute not in _RANK_FREE


def beyond_depth(measures: Iterable[Measure], depth: int | None) -> Measure | None:
    """The first of ``measures`` whose cutoff reads ranks beyond ``depth`` (the ranks an evaluation keeps per
    query; None: all), None when there is none. Such a measure would be computed on the run cut at ``depth``:
    ``R@2000`` at depth 1000 would count a document at rank 1500 as not retrieved. A measure without a cutoff
    reads the ranks within ``depth``, whatever it is."""
    if depth is None:
        return None
    return next((m for m in measures if m.cutoff is not None and m.cutoff > depth), None)


# --------------------------------------------------------------------------- names

# cutoffs and levels in ASCII digits (re.ASCII): int() would read '١٠' as 10, trec_eval does not
_AT_NAME = re.compile(r"(?P<base>[A-Za-z][A-Za-z_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+))?", re.ASCII)
_TREC_CUT_NAME = re.compile(r"(?P<base>[A-Za-z][A-Za-z_]*?)[_.](?P<cutoff>\d+)", re.ASCII)
_PARAM = re.compile(r"\s*(?P<key>[A-Za-z_]+)\s*=\s*(?P<value>-?\d+)\s*", re.ASCII)


def parse_measure(name: str | Measure) -> Measure:
    """Parse a user's measure name (case-insensitive) into a :class:`Measure`.

    ``name`` may be written in ir_measures' style (``P(rel=2)@10``) or in
    trec_eval's (``P_10``, ``P.10``); a :class:`Measure` is returned as is.

    Raises:
        ClirkitError: unknown name (with close matches), missing, forbidden or
            invalid cutoff, or a ``(rel=N)`` the measure does not take.
    """
    if isinstance(name, Measure):
        return name
    text = (_ir_measures_name(name) or str(name)).strip()
    m = _AT_NAME.fullmatch(text)
    if m:
        entry = _AT_SPELLINGS.get(m.group("base").lower())
        if entry is None:
            raise _unknown(text, m.group("base"), "@" + m.group("cutoff") if m.group("cutoff") else "")
        cutoff_text, params = m.group("cutoff"), m.group("params")
    else:
        m = _TREC_CUT_NAME.fullmatch(text)
        entry = _TREC_CUT_SPELLINGS.get(m.group("base").lower()) if m else None
        if entry is None:
            if m:
                raise _unknown(text, m.group("base"), text[len(m.group("base")) :])
            raise _unknown(text, re.match(r"[A-Za-z_]*", text).group(0), None)
        cutoff_text, params = m.group("cutoff"), None
    d = entry[0]
    rel = _parse_rel(text, d, params) if params is not None else None
    cutoff = int(cutoff_text) if cutoff_text is not None else d.default_cutoff
    if d.cutoff == "required" and cutoff is None:
        raise ClirkitError(f"measure {text!r} needs a cutoff, e.g. {d.name}@10")
    if d.cutoff == "none" and cutoff_text is not None:
        raise ClirkitError(f"measure {text!r} takes no cutoff; write {d.name}")
    if cutoff is not None and cutoff < 1:
        raise ClirkitError(f"measure {text!r}: the cutoff must be at least 1")
    canonical = d.name + (f"(rel={rel})" if rel is not None else "") + (f"@{cutoff}" if cutoff is not None else "")
    return Measure(canonical, d.name, cutoff, rel, text)


def _parse_rel(text: str, d: MeasureDef, params: str) -> int:
    """The N of ``(rel=N)``, checked against the measure's definition."""
    m = _PARAM.fullmatch(params)
    if (not m or m.group("key").lower() != "rel") and d.level is None:
        raise ClirkitError(f"measure {text!r}: clirkit's {d.name} takes no parameter; write {d.spelling()}")
    if not m or m.group("key").lower() != "rel":
        raise ClirkitError(
            f"measure {text!r}: clirkit's measures take one parameter, rel=N "
            f"(the minimum relevant grade), e.g. {d.name}(rel=2)"
        )
    if d.level is None:
        leveled = ", ".join(x.name for x in REGISTRY.values() if x.level is not None)
        raise ClirkitError(f"measure {text!r}: {d.name} takes no relevance level; (rel=N) is for {leveled}")
    rel = int(m.group("value"))
    if rel < 1:
        raise ClirkitError(f"measure {text!r}: rel must be at least 1 (unjudged documents have grade 0)")
    return rel


def _unknown(text: str, base: str, tail: str | None) -> ClirkitError:
    """The error for a name the registry does not know, with the spellings closest to it.

    ``base`` is the name part of ``text`` and ``tail`` what follows it (cutoff,
    parameters), or None when ``text`` follows neither naming style.
    """
    low = base.lower()
    if tail is None and low in _AT_SPELLINGS:
        d, spelling = _AT_SPELLINGS[low]
        return ClirkitError(
            f"unknown measure {text!r}: expected NAME, NAME@k or NAME(rel=N)@k with k and N "
            f"whole numbers, e.g. {spelling}{'@10' if d.cutoff != 'none' else ''}"
        )
    trec_style = tail is not None and tail[:1] in ("_", ".")
    k = tail[1:] if tail is not None and re.fullmatch(r"[_.@]\d+", tail) else None
    suggestions: dict[str, list[tuple[MeasureDef, str]]] = {}
    for spelling_low, (d, s) in _AT_SPELLINGS.items():
        if d.cutoff == "none":
            text_s = s
        elif k is not None:
            text_s = f"{s}@{k}"
        elif tail is not None and not trec_style:
            text_s = s + tail
        else:
            text_s = d.spelling()
        suggestions.setdefault(spelling_low, []).append((d, text_s))
    for prefix_low, (d, s) in _TREC_CUT_SPELLINGS.items():
        options = suggestions.setdefault(prefix_low, [])
        options.insert(0 if trec_style else len(options), (d, f"{s}_{k}" if k is not None else f"{s}_k"))
    close: dict[str, str] = {}  # one suggestion per measure, closest spelling first
    for c in difflib.get_close_matches(low, list(suggestions), n=4, cutoff=0.6):
        for d, text_s in suggestions[c]:
            close.setdefault(d.name, text_s)
    hint = f" (did you mean {' or '.join(list(close.values())[:3])}?)" if close else ""
    return ClirkitError(f"unknown measure {text!r}{hint}; known measures: {', '.join(REGISTRY)}")


def _ir_measures_name(value) -> str | None:
    """The name of an ir_measures measure object (``nDCG@10``, ``P(rel=2)@10``), None for anything else: such an
    object has a ``NAME`` and ``params`` and writes itself in ir_measures' spelling (read without importing it)."""
    if isinstance(value, str) or not (hasattr(value, "NAME") and isinstance(getattr(value, "params", None), dict)):
        return None
    return str(value)


def split_measure_list(names: Iterable[str] | str) -> list[str]:
    """The measure names in ``names``: a string or strings, each possibly a comma-separated list.

    Commas inside parentheses (``X(a=1,b=2)``) do not split; empty items are dropped.
    """
    if isinstance(names, str) or _ir_measures_name(names) is not None:
        names = [names]
    out: list[str] = []
    for item in names:
        depth, start = 0, 0
        item = _ir_measures_name(item) or str(item)
        for i, ch in enumerate(item + ","):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            elif ch == "," and depth == 0:
                if item[start:i].strip():
                    out.append(item[start:i].strip())
                start = i + 1
    return out


def parse_measures(names: Iterable[str | Measure] | str, *, once: str | None = None) -> list[Measure]:
    """Parse several names (a list, one comma-separated string, or a mixture; ir_measures objects too).

    A measure given twice (in any spelling: ``P@10`` and ``P_10``) is kept
    once, with the first spelling as its label; with ``once`` (the list's name: ``"measures"``, ``"-m"``) it is a
    ClirkitError naming both spellings, ``-m lists AP twice (as 'AP' and 'MAP'): list each once``.

    Raises:
        ClirkitError: a bad name (see :func:`parse_measure`), no name at all, or ``names`` neither a name nor a
            list or tuple of names.
    """
    if _is_name(names):
        names = [names]
    if not isinstance(names, (list, tuple)):
        raise ClirkitError(
            f'measures must be a measure name or a list or tuple of names (e.g. ["AP", "nDCG@10"]), got {names!r:.40}'
        )
    for i, item in enumerate(names):
        if not _is_name(item):
            raise ClirkitError(f"measures[{i}] must be a measure name (a str), got {item!r:.40}")
    out: list[Measure] = []
    for item in names:
        for part in [item] if isinstance(item, Measure) else split_measure_list(item):
            m = parse_measure(part)
            if m not in out:
                out.append(m)
            elif once is not None:
                first = out[out.index(m)].label
                both = f"{first!r} twice" if first == m.label else f"{m.name} twice (as {first!r} and {m.label!r})"
                raise ClirkitError(f"{once} lists {both}: list each once")
    if not out:
        raise ClirkitError("no measure given")
    return out


def _is_name(value) -> bool:
    """Whether ``value`` names one measure, or several comma-separated: a str, a :class:`Measure` or an
    ir_measures measure object."""
    return isinstance(value, (str, Measure)) or _ir_measures_name(value) is not None


def names_help() -> str:
    """Every measure's spellings, for help texts: ``AP[@k] (MAP, map, map_cut_k), P@k (P_k), ...``."""
    items = []
    for d in REGISTRY.values():
        others = list(d.aliases) + [t.replace("{k}", "k") for t in d.trec_names]
        text = d.spelling()
        if d.default_cutoff is not None:
            others.insert(0, f"default @{d.default_cutoff}")
        items.append(f"{text} ({', '.join(others)})" if others else text)
    leveled = [d.name for d in REGISTRY.values() if d.level is not None]
    return (
        ", ".join(items) + "; trec_eval's _k may be written .k (P.10); (rel=N) sets the minimum relevant "
        f"grade of one measure, e.g. P(rel=2)@10 ({', '.join(leveled)})"
    )


# the built-in measures, as at import; names_help() also lists measures registered later
MEASURE_NAMES_HELP = names_help()
