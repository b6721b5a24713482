"""Experiment files: reading one and checking every key before anything runs (:class:`Experiment`).

The keys and what they take are listed in :mod:`clirkit.experiment` and by ``clirkit run --keys``. A system's
keys are asked of its class (:mod:`clirkit.experiment.kinds`): its parameters, its ``file_keys`` and the
parameters naming other systems (``system_keys``), so no kind is special here.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import tomllib

from clirkit.constraints import int64_at_least
from clirkit.datasets.plain import KEYS as PLAIN_KEYS
from clirkit.errors import ClirkitError, cut_repr
from clirkit.experiment.keepruns import check_keep_runs
from clirkit.experiment.kinds import KINDS, keys_of, system_class
from clirkit.experiment.systemchecks import check_fusion, check_keys, check_system, check_table_format
from clirkit.experiment.tomlerrors import not_toml
from clirkit.experiment.unusedkeys import (
    check_iterations,
    check_query_side_keys,
    check_table_formats,
    check_train_queries,
)

DEFAULT_MEASURES = ("AP", "PRES@1000", "nDCG@10", "P@10")
REPORT_SPLITS = ("dev", "test", "all")
KEYS: dict[str, dict[str, str]] = {
    "": {
        "name": "the experiment's name (default: the file's name without .toml)",
        "collection": 'a known collection ("nave-en-es"), a collection folder, "irds:ID", or a [collection] '
        "table of plain files",
        "variant": "the known collection's variant (default: its first)",
        "measures": "the report's measures (default: [" + ", ".join(f'"{m}"' for m in DEFAULT_MEASURES) + "])",
        "baseline": "the system or fusion the others are tested against (default: the first)",
        "gains": "measures whose differences to the baseline are listed in points, with p-values",
        "seed": "the seed of the systems, the dev sample and the significance tests (default 0)",
        "jobs": "worker processes (default 1)",
        "dev_queries": "cut the dev split to a seeded sample of this many queries, for everything: the tuning, "
        'the dev runs and the report\'s "dev" and "all" tables (default 0: all)',
        "train_queries": "train on the first N training queries (default 0: all)",
        "report_splits": 'the splits the report has a table for, among "dev", "test" and "all" (dev and test '
        'together; the dev sample with dev_queries) (default ["test"])',
        "figures": "write the PNG figures: true or false (default true)",
        "keep_runs": 'the runs the folder keeps (runs/NAME.SPLIT.run.gz), as patterns of "NAME.SPLIT" (e.g. '
        '["*.test"], ["PSQ.*"]; [] keeps none) (default ["*"]: every run of every system and fusion)',
    },
    "analysis": {
        "stemmer": '"snowball" (the default) or "none": of the index, the trained table, dictionary words and '
        "the texts boost and scs learn from",
        "stopwords": '"none" (the default) or "snowball" (each language\'s Snowball list)',
        "segmenter": '"auto" (the default: each language\'s, ICU words for zh, ja, th; bigrams for ko), "none", '
        '"bigrams", "unigrams+bigrams", "icu", "jieba", "sudachi" or "kiwi": how text written without '
        "spaces becomes terms",
        "chinese_script": '"auto" (the default: simplified for zh), "none", "simplified" or "traditional"',
    },
    "table": {
        "iterations": "IBM Model 1 iterations on the collection's parallel corpus (default 5)",
        "file": "a table or dictionary file to use instead (a path relative to the experiment file)",
        "format": "the format of that file (default auto; as ttable convert --format)",
        "score_column": "which score of a Moses phrase table is the translation probability, counted from 1 "
        "(default 3, p(target given source); as ttable convert --score-column)",
    },
    "collection": {},  # the keys of clirkit.datasets.plain (filled below)
    "systems.NAME": {
        "kind": f"{', '.join(list(KINDS)[:-1])} or {list(KINDS)[-1]}; the other keys are the kind's (clirkit run "
        "--keys KIND): its parameters, and table/table2/table_format/score_column (dt, psq, querypsq, docpsq), "
        "base/parallel_tuples (boost), file (run); a boost's base names one system declared before it, or a "
        'fusion of such systems (e.g. base = "DT+PSQ")',
    },
    "fusions.NAME": {
        "systems": 'the fused systems, at least two (e.g. ["DT", "PSQ"])',
        "method": '"interpolation" (the default) or "borda"',
        "weights": "one weight per system (default: tuned on dev; Borda: equal); given weights need no dev split",
        "step": "grid step of the tuned weights, in (0, 1] (default 0.1)",
        "measure": 'the dev measure the weights maximize (default "AP")',
        "transform": '"auto" (the default), "none", "shift" or "minmax", or one per system',
    },
}
"""Every key of an experiment file, by table ("": the top level), with what it takes (``clirkit run --keys``)."""
KEYS["collection"] = dict(PLAIN_KEYS)
TOP_KEYS = {*KEYS[""], "analysis", "table", "systems", "fusions"}
SHIPPED = Path(__file__).parent.parent / "experiments"


@dataclass
class Experiment:
    """An experiment file, checked.

    Attributes:
        name: the experiment's name (default: the file's stem).
        collection, variant: a known collection name (or a collection folder) and its variant, or the
            ``[collection]`` table of plain files (then ``plain`` is that collection, checked).
        measures, baseline, gains: the report's measures, the run the others are tested against, and the
            measures whose differences to the baseline are listed in points.
        seed, jobs: the seed of every system (unless one sets ``random_state``) and worker processes.
        dev_queries, train_queries: a seeded sample of the dev split (the dev split of everything: tuning, dev
            runs, the report's dev tables) and the first N training
            queries (0: all).
        analysis: ``stemmer`` (``snowball``, ``none``) and ``stopwords`` (``none``, ``snowball``) of the index,
            the trained table and a dictionary's words (:class:`clirkit.analysis.Analyzer`).
        table: IBM Model 1 settings (``iterations``), or a table file to use instead of training one on the
            collection's parallel corpus (``file``, ``format``: a converted dictionary, a table made elsewhere).
        systems: ``{name: {"kind": ..., parameters...}}`` in file order.
        fusions: ``{name: {"systems": [...], "step": ..., "method": ...}}`` in file order.
        report_splits: the splits the report has a table for (``dev``, ``test``, ``all``).
        figures: write the PNG figures.
        keep_runs: the runs written to ``runs/``, as run names ``NAME.SPLIT`` written as they are, or ``fnmatch``
            patterns of them (the others are made in memory only, and made again by a rerun).
        source: the file it was read from (None for a dict).
        top_keys: the top-level keys the file writes (a key written at its default still asks for what it does:
            ``dev_queries`` without a dev split is refused).
    """

    name: str
    collection: str | dict
    variant: str | None = None
    measures: tuple[str, ...] = DEFAULT_MEASURES
    baseline: str | None = None
    gains: tuple[str, ...] = ()
    seed: int = 0
    jobs: int = 1
    dev_queries: int = 0
    train_queries: int = 0
    analysis: dict = field(default_factory=dict)
    table: dict = field(default_factory=dict)
    systems: dict[str, dict] = field(default_factory=dict)
    fusions: dict[str, dict] = field(default_factory=dict)
    figures: bool = True
    source: str | None = None
    report_splits: tuple[str, ...] = ("test",)
    keep_runs: tuple[str, ...] = ("*",)
    plain: Any = None
    top_keys: tuple[str, ...] = ()

    @classmethod
    def read(cls, path: str | os.PathLike[str], **overrides) -> "Experiment":
        """Read and check an experiment file (ClirkitError naming the file and the problem);
        ``overrides``: ``collection``/``variant`` (see :func:`with_overrides`)."""
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise ClirkitError(f"{path}: no such experiment file: check the path") from None
        except IsADirectoryError:
            raise ClirkitError(f"{path}: is a directory, expected an experiment file (TOML)") from None
        except OSError as exc:
            raise ClirkitError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except RecursionError:
            raise ClirkitError(
                f"{path}: not a valid TOML file (nested too deeply); nest arrays and tables less deeply"
            ) from None
        except ValueError as exc:  # bad TOML or UTF-8, integers of more than 4,300 digits
            raise not_toml(path, exc) from None
        data = with_overrides(data, **overrides)
        if overrides.get("variant") is not None and isinstance(data.get("collection"), dict):  # given, not in the file
            raise ClirkitError(
                f"{path}: the variant {overrides['variant']!r} applies to a known collection, not to the file's "
                "[collection] table: leave out the variant (--variant)"
            )
        from clirkit.fileio import display_name

        return cls.from_dict(data, source=str(path), name=display_name(Path(path).stem))  # (bytes as \xNN)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None, name: str = "experiment") -> "Experiment":
        """Check ``data`` (a parsed experiment file) and build the experiment."""
        where = source or "experiment"
        check_keys(where, data, sorted(TOP_KEYS), "the top-level")
        if "collection" not in data:
            raise ClirkitError(f'{where}: no collection: add one (e.g. collection = "nave-en-es")')

        def text(key: str, default, what: str):  # a string, or the default (None: no default)
            value = data.get(key, default)
            if value is not default and not isinstance(value, str):
                raise ClirkitError(f"{where}: {key} must be a string ({what}), got {cut_repr(value)}")
            return value

        written_name = text("name", None, "the experiment's name")
        if written_name is not None and not _named(written_name):
            raise ClirkitError(
                f"{where}: name {written_name!r}: the experiment's name needs a letter or digit and does not start "
                "with a dot (it heads the report)"
            )
        plain = None
        if isinstance(data["collection"], dict):  # [collection]: plain files, relative to the experiment file
            from clirkit.datasets.plain import PlainCollection

            if "variant" in data:
                raise ClirkitError(
                    f"{where}: variant applies to a known collection, not to a [collection] table; remove variant"
                )
            plain = PlainCollection.from_dict(
                data["collection"],
                where=f"{where}: [collection] ",
                base=Path(source).parent if source else None,
                name=re.sub(r"[^\w.+-]+", "-", str(data.get("name", name))),
            )
        for key, what in (
            ("collection", "a collection name or folder, or a [collection] table"),
            ("variant", "a variant name"),
            ("name", "the experiment's name"),
            ("baseline", "a system or fusion name"),
        ):
            if key != "collection" or plain is None:
                text(key, None, what)
        _check_variant(where, data)
        systems, fusions = _systems_and_fusions(where, data, source, None if plain is None else plain_has_dev(plain))

        def integer(key: str, default: int, least: int) -> int:
            value = data.get(key, default)
            if not int64_at_least(value, least):
                raise ClirkitError(f"{where}: {key} must be an integer >= {least} (at most 2**63 - 1), got {value!r}")
            return value

        measures, gains, figures, splits = _report_options(where, data)
        keep_runs = data.get("keep_runs", ["*"])
        if not isinstance(keep_runs, list) or not all(isinstance(k, str) and k for k in keep_runs):
            raise ClirkitError(
                f"{where}: keep_runs must be a list of patterns of NAME.SPLIT (e.g. keep_runs = "
                f'["*.test"]; [] keeps no run), got {cut_repr(keep_runs)}'
            )
        collection = data["collection"] if plain else str(data["collection"])
        exp = cls(
            name=str(data.get("name", name)),
            collection=collection,
            variant=data.get("variant"),
            report_splits=tuple(splits),
            keep_runs=tuple(keep_runs),
            plain=plain,
            measures=tuple(measures),
            baseline=data.get("baseline"),
            gains=tuple(gains),
            seed=integer("seed", 0, 0),
            jobs=integer("jobs", 1, 1),
            dev_queries=integer("dev_queries", 0, 0),
            train_queries=integer("train_queries", 0, 0),
            analysis=_section(where, data, "analysis"),
            table=_section(where, data, "table"),
            systems=systems,
            fusions=fusions,
            figures=figures,
            source=source,
            top_keys=tuple(data),
        )
        names = list(systems) + list(fusions)
        if exp.baseline is not None and exp.baseline not in names:
            raise ClirkitError(f"{where}: baseline {exp.baseline!r} is not a system or fusion of the file")
        check_keep_runs(where, exp.keep_runs, names)  # (on the collection's splits again once it is read)
        _check_analysis_and_table(where, exp)
        check_train_queries(where, exp, written="train_queries" in data)
        if plain is not None:
            _check_split_sizes(where, plain)
        return exp

    def run_names(self) -> list[str]:
        """Systems then fusions, in file order: the rows of the report."""
        return list(self.systems) + list(self.fusions)

    def make_order(self) -> list[str]:
        """The systems and fusions in the order they are made: file order, but a fusion a system names (a
        boosted ranker's ``base``) just before that system."""
        order: list[str] = []
        for name, spec in self.systems.items():
            for key in system_class(spec["kind"]).system_keys:
                named = spec.get(key, [])
                order += [
                    n for n in ([named] if isinstance(named, str) else named) if n in self.fusions and n not in order
                ]
            order.append(name)
        return order + [n for n in self.fusions if n not in order]

    def spec_of(self, name: str) -> tuple[str, dict]:
        """``(kind, keys)`` of the system or fusion ``name`` (a fusion's kind is ``"fusion"``)."""
        if name in self.fusions:
            return "fusion", self.fusions[name]
        return self.systems[name]["kind"], self.systems[name]


def _check_variant(where: str, data: Mapping[str, Any]) -> None:
    """ClirkitError naming the file for a ``variant`` that the known collection it names lacks (a collection folder
    or ``irds:`` says its own when it is read)."""
    from clirkit import datasets

    name, variant = data["collection"], data.get("variant")
    if variant is None or not isinstance(name, str) or name not in datasets.names():
        return
    known = datasets.variants(name)
    if variant not in known:
        raise ClirkitError(f"{where}: collection {name} has no variant {variant!r} (choose {', '.join(known)})")


def _check_split_sizes(where: str, plain) -> None:
    """A ``[collection]`` split rule that leaves a split without queries (``split = {dev = 0.01, test = 0.99}`` of
    14 queries), said before anything runs: the fractions cut the sorted, shuffled query ids as
    :class:`~clirkit.datasets.plain.PlainCollection` cuts them (rounded cumulative fractions), so a split is empty
    here exactly when it would be there."""
    if plain.split is None or isinstance(plain.queries, dict):
        return
    import numpy as np

    from clirkit.formats import read_queries

    n = len(read_queries(plain.queries, fields=plain.query_fields, lang=plain.source_lang))
    sizes = np.diff(np.round(np.cumsum(list(plain.split.values())) * n).astype(int), prepend=0)
    for (split, fraction), size in zip(plain.split.items(), sizes.tolist()):
        if size < 1:
            rule = ", ".join(f"{s} = {f}" for s, f in plain.split.items())
            raise ClirkitError(
                f"{where}: [collection] split = {{{rule}}} leaves the {split} split empty: {fraction} "
                f"of the {n} queries of {plain.queries.name} rounds to none; give {split} a larger "
                f"fraction (one query is {1 / n:.2g} of them), or give the {split} queries a file of "
                f"their own (queries = {{{split} = FILE, test = FILE}})"
            )


def _section(where: str, data: Mapping[str, Any], key: str) -> dict:
    """The table ``[key]`` of an experiment file (empty if absent)."""
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ClirkitError(f"{where}: [{key}] must be a table of keys, got {cut_repr(value)}")
    return dict(value)


def _entry(where: str, what: str, name: str, value) -> dict:
    """The keys of ``[systems.NAME]`` or ``[fusions.NAME]`` (``what``: system or fusion)."""
    if not isinstance(value, dict):
        example = 'kind = "psq"' if what == "system" else 'systems = ["DT", "PSQ"]'
        raise ClirkitError(
            f"{where}: {what} {name!r} must be a table of its keys ([{what}s.{name}] with "
            f"{example}, ...), got {cut_repr(value)}"
        )
    return dict(value)


def plain_has_dev(plain) -> bool:
    """Whether a ``[collection]`` of plain files (checked) has a dev split: a dev queries file, or a dev fraction."""
    return "dev" in (plain.queries if isinstance(plain.queries, dict) else plain.split or {})


def _systems_and_fusions(
    where: str, data: Mapping[str, Any], source: str | None, dev: bool | None = None
) -> tuple[dict, dict]:
    """The ``[systems.NAME]`` and ``[fusions.NAME]`` tables of the experiment file ``source``, each checked, their
    names run tags (``dev``: whether the collection has a dev split, None when not known before it is read)."""
    systems = {str(k): _entry(where, "system", k, v) for k, v in _section(where, data, "systems").items()}
    fusions = {str(k): _entry(where, "fusion", k, v) for k, v in _section(where, data, "fusions").items()}
    if not systems:
        raise ClirkitError(f"{where}: no [systems.NAME] table")
    for fname, spec in fusions.items():
        members = spec.get("systems")
        if not isinstance(members, list) or len(members) < 2 or not all(isinstance(m, str) for m in members):
            raise ClirkitError(
                f"{where}: fusion {fname!r}: systems must list at least two systems (e.g. "
                f'systems = ["DT", "PSQ"]), got {cut_repr(members)}'
            )
        missing = [m for m in members if m not in systems]
        if missing and missing[0] in fusions:
            raise ClirkitError(f"{where}: fusion {fname!r}: {_fusion_named(missing[0], fname, fusions)}")
        if missing:
            raise ClirkitError(f"{where}: fusion {fname!r}: unknown system {missing[0]!r}")
        twice = [m for i, m in enumerate(members) if m in members[:i]]
        if twice:
            raise ClirkitError(
                f"{where}: fusion {fname!r}: system {twice[0]!r} is listed twice: list each fused system once"
            )
        check_keys(f"{where}: fusion {fname!r}", spec, keys_of(system_class("fusion")), "a fusion's")
        check_fusion(spec, f"{where}: fusion {fname!r}")
    for i, (sname, spec) in enumerate(systems.items()):
        before = list(systems)[:i]
        fusions_before = [f for f, fspec in fusions.items() if all(m in before for m in fspec["systems"])]
        check_system(f"{where}: system {sname!r}", spec, before, fusions_before, source, dev)
    blank = [n for n in (*systems, *fusions) if not _named(n)]
    if blank:  # "", "." and ".a" would name hidden files or folders (runs/..dev.run.gz)
        raise ClirkitError(
            f"{where}: {blank[0]!r}: a system or fusion name needs a letter or digit and does not start with a dot "
            "(it names its runs and files)"
        )
    spaced = [n for n in (*systems, *fusions) if any(ch.isspace() for ch in n)]
    if spaced:  # a name is the run tag of its runs, and TREC run tags have no whitespace
        raise ClirkitError(
            f"{where}: {spaced[0]!r}: system and fusion names are run tags: no spaces "
            f"(e.g. {''.join(spaced[0].split()) or 'PSQ'!r})"
        )
    clash = set(systems) & set(fusions)
    if clash:
        raise ClirkitError(f"{where}: {sorted(clash)[0]!r} names both a system and a fusion")
    _check_file_names(where, systems, fusions)
    return systems, fusions


def _named(name: str) -> bool:
    """Whether ``name`` can name a system, a fusion or the experiment: it has a letter or digit and does not
    start with a dot."""
    return any(ch.isalnum() for ch in name) and not name.startswith(".")


def _fusion_named(member: str, fname: str, fusions: Mapping[str, Any]) -> str:
    """Why fusion ``fname`` cannot list the fusion ``member`` among its systems, with ``member``'s systems to list
    instead (when they are a list of names of systems: not of fusions, as in two fusions listing each other)."""
    inner = fusions[member].get("systems")
    instead = (
        f" (list {member}'s systems in {fname} instead: {json.dumps(inner, ensure_ascii=False)})"
        if isinstance(inner, list) and all(isinstance(m, str) and m not in fusions for m in inner)
        else ""
    )
    return f"{member!r} is a fusion; a fusion fuses systems{instead}"


def _check_file_names(where: str, systems: Mapping[str, Any], fusions: Mapping[str, Any]) -> None:
    """Two names of systems or fusions that become the same file name (:func:`~clirkit.experiment.store.file_name`:
    ``PSQ`` and ``psq``, ``DT+PSQ`` and ``dt_psq``) would write each other's runs, models and figures: refused."""
    from clirkit.experiment.store import file_name

    seen: dict[str, tuple[str, str]] = {}
    for what, names in (("system", systems), ("fusion", fusions)):
        for name in names:
            safe = file_name(name)
            if safe in seen:
                other, earlier = seen[safe]
                both = (
                    f"{what}s {earlier!r} and {name!r}" if other == what else f"{other} {earlier!r} and {what} {name!r}"
                )
                raise ClirkitError(f"{where}: {both} would write the same run files ({safe}.*); rename one")
            seen[safe] = (what, name)


def _report_options(where: str, data: Mapping[str, Any]) -> tuple[list, list, bool, list]:
    """``measures``, ``gains``, ``figures`` and ``report_splits``, checked (an unknown measure now, not after
    training)."""
    measures = data.get("measures", list(DEFAULT_MEASURES))
    if not isinstance(measures, list) or not measures or not all(isinstance(m, str) for m in measures):
        raise ClirkitError(f"{where}: measures must be a list of measure names, got {measures!r}")
    from clirkit.measures import DEFAULT_DEPTH, beyond_depth, parse_measures

    try:
        parsed = parse_measures(measures, once="measures")  # AP and MAP are one measure
    except ClirkitError as exc:
        raise ClirkitError(f"{where}: {exc}") from None
    deep = beyond_depth(parsed, DEFAULT_DEPTH)
    if deep is not None:
        raise ClirkitError(
            f"{where}: measures: {deep.label} reads ranks beyond {DEFAULT_DEPTH}, the depth the report evaluates: "
            f"give a cutoff of at most {DEFAULT_DEPTH} (e.g. {deep.kind}@{DEFAULT_DEPTH})"
        )
    gains = data.get("gains", [])
    if not isinstance(gains, list) or not all(isinstance(m, str) for m in gains):
        raise ClirkitError(
            f'{where}: gains must be a list of measure names (e.g. gains = ["AP"]), got {cut_repr(gains)}'
        )
    gains = _measured_gains(where, gains, parsed)
    figures = data.get("figures", True)
    if not isinstance(figures, bool):
        raise ClirkitError(
            f"{where}: figures must be true or false (a TOML boolean, without quotes), got {cut_repr(figures)}"
        )
    splits = data.get("report_splits", ["test"])
    if isinstance(splits, list) and all(s in REPORT_SPLITS for s in splits):
        _once_each(where, "report_splits", splits)
    if not (
        isinstance(splits, list)
        and splits
        and all(s in REPORT_SPLITS for s in splits)
        and len(set(splits)) == len(splits)
    ):
        raise ClirkitError(
            f"{where}: report_splits must list some of {', '.join(map(repr, REPORT_SPLITS))} "
            f'(e.g. report_splits = ["dev", "test", "all"]), got {cut_repr(splits)}'
        )
    return measures, gains, figures, splits


def _measured_gains(where: str, gains: list[str], measures: list) -> list[str]:
    """``gains`` in the spellings of ``measures`` (the parsed measures: ``MAP`` there is ``AP`` here, the column
    the report has); ClirkitError for a gain not among them, or given twice in any spelling."""
    from clirkit.measures import parse_measure, parse_measures

    spelled = {m: m.label for m in measures}
    for gain in gains:
        try:
            measure = parse_measure(gain)
        except ClirkitError:
            measure = None
        if measure not in spelled:
            raise ClirkitError(
                f"{where}: gains measure {gain!r} is not one of the measures ({', '.join(spelled.values())}): add it "
                "to measures or remove it from gains"
            )
    try:
        return [spelled[m] for m in parse_measures(gains, once="gains")] if gains else []
    except ClirkitError as exc:
        raise ClirkitError(f"{where}: {exc}") from None


def _once_each(where: str, key: str, values: list) -> None:
    """ClirkitError ``WHERE: KEY lists 'X' twice: list each once`` for the first value of ``values`` given again."""
    for twice in (v for i, v in enumerate(values) if v in values[:i]):
        raise ClirkitError(f"{where}: {key} lists {twice!r} twice: list each once")


def _check_analysis_and_table(where: str, exp: "Experiment") -> None:
    """The keys and values of the experiment's ``[analysis]`` and ``[table]``."""
    check_keys(f"{where}: [analysis]", exp.analysis, list(KEYS["analysis"]), "its")
    from clirkit.segmenters import CHINESE_SCRIPTS, SEGMENTERS

    for key, allowed in (
        ("stemmer", ("snowball", "none")),
        ("stopwords", ("none", "snowball")),
        ("segmenter", ("auto", "none", *SEGMENTERS)),
        ("chinese_script", ("auto", "none", *CHINESE_SCRIPTS)),
    ):
        if exp.analysis.get(key, allowed[0]) not in allowed:
            raise ClirkitError(
                f"{where}: [analysis]: {key} must be {' or '.join(map(repr, allowed))}, "
                f"got {cut_repr(exp.analysis[key])}"
            )
    check_keys(f"{where}: [table]", exp.table, list(KEYS["table"]), "its")
    iterations = exp.table.get("iterations", 5)
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise ClirkitError(f"{where}: [table]: iterations must be an integer >= 0, got {cut_repr(iterations)}")
    for key in ("file", "format"):
        if not isinstance(exp.table.get(key, ""), str):
            raise ClirkitError(f"{where}: [table]: {key} must be a string, got {cut_repr(exp.table[key])}")
    if "file" in exp.table and not exp.table["file"].strip():
        raise ClirkitError(f"{where}: [table]: file must be a path, not empty (a table or dictionary file)")
    try:
        check_table_format("format", exp.table.get("format"))
    except ClirkitError as exc:
        raise ClirkitError(f"{where}: [table]: {exc}") from None
    check_iterations(where, exp)
    check_table_formats(where, exp)
    check_query_side_keys(where, exp)
    named = [s.get(k) for s in exp.systems.values() for k in ("table", "table2")]
    if "format" in exp.table and "file" not in exp.table and all(n in (None, "ibm1") for n in named):
        raise ClirkitError(
            f"{where}: [table]: format applies to a table file ([table] file, or a system's table = FILE), and "
            "there is none: remove format"
        )
    column = exp.table.get("score_column", 1)
    if isinstance(column, bool) or not isinstance(column, int) or column < 1:
        raise ClirkitError(
            f"{where}: [table]: score_column must be an integer >= 1 (3 = p(t|s) in Moses's order), "
            f"got {cut_repr(column)}"
        )


def with_overrides(
    data: Mapping[str, Any], *, collection: str | None = None, variant: str | None = None, jobs: int | None = None
) -> dict:
    """A parsed experiment file run on another ``collection`` (its default variant unless ``variant``) or
    with other ``jobs``."""
    data = dict(data)
    if jobs is not None:
        data["jobs"] = jobs
    if collection:
        data["collection"] = collection
        data.pop("variant", None)
    if variant is not None:  # "" too: refused as any variant the collection lacks
        data["variant"] = variant
    return data


def shipped(name: str) -> Path:
    """The experiment file ``name`` shipped with clirkit (e.g. ``demo``)."""
    path = SHIPPED / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in SHIPPED.glob("*.toml"))
        raise ClirkitError(f"no shipped experiment {name!r} (shipped: {', '.join(known)})")
    return path
