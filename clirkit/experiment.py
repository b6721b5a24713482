"""Experiments declared in a TOML file: train, tune on dev, test once, report (``clirkit run FILE``).

An experiment file names a collection, the systems (:mod:`clirkit.systems`) with their
hyper-parameters, the fusions whose weights are tuned on the dev split, the measures and the
baseline::

    collection = "nave-en-es"          # a known collection, or a collection folder (manifest.json)
    variant = "standard"
    measures = ["AP", "PRES@1000", "nDCG@10", "P@10"]
    baseline = "PSQ"
    gains = ["AP", "PRES@1000"]        # differences to the baseline, in points, with p-values
    dev_queries = 400                  # a seeded sample of the dev split for tuning (0: all)

    [analysis]                         # of documents, queries, parallel text and dictionaries
    stemmer = "snowball"               # "snowball" (the default) or "none"
    stopwords = "none"                 # "none" (the default) or "snowball" (every side's Snowball list)

    [table]                            # IBM Model 1 on the collection's parallel corpus
    iterations = 5                     # (or: file = "en-es.npz", a table or dictionary made elsewhere)

    [systems.PSQ]
    kind = "psq"                       # dt | psq | boost | scs; the other keys are the system's parameters

    [systems.PSQ-MUSE]                 # a dt/psq system may name its own table(s): a file, or "ibm1"
    kind = "psq"
    table = "muse.en-es.npz"
    table2 = "ibm1"                    # interpolated: lam * table + (1 - lam) * table2
    lam = 0.5

    [systems.PSQ-Boost]
    kind = "boost"
    base = "PSQ"                       # boosted from the PSQ system
    rounds = 3000

    [fusions."PSQ+PSQ-Boost"]
    systems = ["PSQ", "PSQ-Boost"]     # interpolation weights tuned on dev MAP
    step = 0.1

:func:`run_experiment` writes into one folder: ``table.npz`` and ``index.npz``, ``models/NAME.npz``,
``runs/NAME.SPLIT.run``, each with a ``.json`` record of what made it (no timings: the same file and seed
give the same bytes; step times are said on stderr) (a rerun whose record is
unchanged reads the artifact instead of making it again), and the report: ``report.md`` (the test
table with significance marks, tuned weights, training notes), ``results.txt`` (the same as text,
what ``clirkit run`` prints) and PNG figures (kappa sweeps, training curves, per-query differences
against the baseline). Each text is tokenized once per analyzer, whichever of the table, the index and the
models reads it first (:func:`clirkit.analysis.cached_tokens`).
"""
from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from clirkit.errors import ClirkitError

KINDS = ("dt", "psq", "boost", "scs")
TABLE_KEYS = ("table", "table2", "table_format")  # a dt/psq system's own tables: files, or "ibm1"
TOP_KEYS = {"name", "collection", "variant", "measures", "baseline", "gains", "seed", "jobs", "dev_queries",
            "train_queries", "analysis", "table", "systems", "fusions", "figures"}
DEFAULT_MEASURES = ("AP", "PRES@1000", "nDCG@10", "P@10")
SHIPPED = Path(__file__).parent / "experiments"


@dataclass
class Experiment:
    """An experiment file, checked.

    Attributes:
        name: the experiment's name (default: the file's stem).
        collection, variant: a known collection name (or a collection folder) and its variant.
        measures, baseline, gains: the report's measures, the run the others are tested against, and the
            measures whose differences to the baseline are listed in points.
        seed, jobs: the seed of every system (unless one sets ``random_state``) and worker processes.
        dev_queries, train_queries: seeded samples of the dev split (tuning) and the first N training
            queries (0: all).
        analysis: ``stemmer`` (``snowball``, ``none``) and ``stopwords`` (``none``, ``snowball``) of the index,
            the trained table and a dictionary's words (:class:`clirkit.analysis.Analyzer`).
        table: IBM Model 1 settings (``iterations``), or a table file to use instead of training one on the
            collection's parallel corpus (``file``, ``format``: a converted dictionary, a table made elsewhere).
        systems: ``{name: {"kind": ..., parameters...}}`` in file order.
        fusions: ``{name: {"systems": [...], "step": ..., "method": ...}}`` in file order.
        figures: write the PNG figures.
        source: the file it was read from (None for a dict).
    """

    name: str
    collection: str
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

    @classmethod
    def read(cls, path: str | os.PathLike[str], **overrides) -> "Experiment":
        """Read and check an experiment file (ClirkitError naming the file and the problem);
        ``overrides``: ``collection``/``variant`` (see :func:`with_overrides`)."""
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise ClirkitError(f"{path}: no such experiment file") from None
        except IsADirectoryError:
            raise ClirkitError(f"{path}: is a directory, expected an experiment file (TOML)") from None
        except OSError as exc:
            raise ClirkitError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except RecursionError:
            raise ClirkitError(f"{path}: not a valid TOML file (nested too deeply)") from None
        except ValueError as exc:  # bad TOML or UTF-8, integers of more than 4,300 digits
            _no_nul_bytes(path)
            problem = " ".join(str(exc).split())
            if "integer string conversion" in problem:
                problem = "an integer of more than 4,300 digits"
            raise ClirkitError(f"{path}: not a valid TOML file ({problem[:200]})") from None
        return cls.from_dict(with_overrides(data, **overrides), source=str(path), name=Path(path).stem)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None, name: str = "experiment") -> "Experiment":
        """Check ``data`` (a parsed experiment file) and build the experiment."""
        where = source or "experiment"
        unknown = sorted(set(data) - TOP_KEYS)
        if unknown:
            raise ClirkitError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(TOP_KEYS))})")
        if "collection" not in data:
            raise ClirkitError(f"{where}: no collection (e.g. collection = \"nave-en-es\")")

        def section(key: str) -> dict:
            value = data.get(key, {})
            if not isinstance(value, dict):
                raise ClirkitError(f"{where}: [{key}] must be a table of keys, got {repr(value)[:40]}")
            return dict(value)

        def entry(what: str, name: str, value) -> dict:  # [systems.NAME] or [fusions.NAME]
            if not isinstance(value, dict):
                example = 'kind = "psq"' if what == "system" else 'systems = ["DT", "PSQ"]'
                raise ClirkitError(f"{where}: {what} {name!r} must be a table of its keys ([{what}s.{name}] with "
                                   f"{example}, ...), got {repr(value)[:40]}")
            return dict(value)

        def text(key: str, default, what: str):  # a string, or the default (None: no default)
            value = data.get(key, default)
            if value is not default and not isinstance(value, str):
                raise ClirkitError(f"{where}: {key} must be a string ({what}), got {repr(value)[:40]}")
            return value

        for key, what in (("collection", "a collection name or folder"), ("variant", "a variant name"),
                          ("name", "the experiment's name"), ("baseline", "a system or fusion name")):
            text(key, None, what)
        systems = {str(k): entry("system", k, v) for k, v in section("systems").items()}
        fusions = {str(k): entry("fusion", k, v) for k, v in section("fusions").items()}
        if not systems:
            raise ClirkitError(f"{where}: no [systems.NAME] table")
        for sname, spec in systems.items():
            kind = spec.get("kind")
            if kind not in KINDS:
                raise ClirkitError(f"{where}: system {sname!r}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
            for key in (*TABLE_KEYS, "base"):
                if key in spec and not isinstance(spec[key], str):
                    what = {"base": "the name of a system declared before it", "table_format": "a table format"}.get(
                        key, 'a table or dictionary file, or "ibm1"')
                    raise ClirkitError(f"{where}: system {sname!r}: {key} must be a string ({what}), got "
                                       f"{repr(spec[key])[:40]}")
            base = spec.get("base")
            if kind == "boost" and base is not None:
                if base not in systems or list(systems).index(base) > list(systems).index(sname):
                    raise ClirkitError(f"{where}: system {sname!r}: base {base!r} must be a system declared before it")
            elif base is not None:
                raise ClirkitError(f"{where}: system {sname!r}: only a boost system has a base")
            tables = [k for k in TABLE_KEYS if k in spec]
            if tables and kind not in ("dt", "psq") or ("table2" in spec and kind != "psq"):
                raise ClirkitError(f"{where}: system {sname!r}: {tables[0]} belongs to a dt or psq system "
                                   "(table2: psq only)")
        for fname, spec in fusions.items():
            members = spec.get("systems")
            if not isinstance(members, list) or len(members) < 2 or not all(isinstance(m, str) for m in members):
                raise ClirkitError(f"{where}: fusion {fname!r}: systems must list at least two systems (e.g. "
                                   f"systems = [\"DT\", \"PSQ\"]), got {repr(members)[:40]}")
            missing = [m for m in members if m not in systems]
            if missing:
                raise ClirkitError(f"{where}: fusion {fname!r}: unknown system {missing[0]!r}")
            extra = sorted(set(spec) - {"systems", "step", "method", "weights", "measure", "transform"})
            if extra:
                raise ClirkitError(f"{where}: fusion {fname!r}: unknown key {extra[0]!r}")
            _check_fusion(spec, f"{where}: fusion {fname!r}")
        spaced = [n for n in (*systems, *fusions) if not n or any(ch.isspace() for ch in n)]
        if spaced:  # a name is the run tag of its runs, and TREC run tags have no whitespace
            raise ClirkitError(f"{where}: {spaced[0]!r}: system and fusion names are run tags: no spaces "
                               f"(e.g. {''.join(spaced[0].split()) or 'PSQ'!r})")
        clash = set(systems) & set(fusions)
        if clash:
            raise ClirkitError(f"{where}: {sorted(clash)[0]!r} names both a system and a fusion")

        def integer(key: str, default: int, least: int) -> int:
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ClirkitError(f"{where}: {key} must be an integer >= {least}, got {value!r}")
            return value

        measures = data.get("measures", list(DEFAULT_MEASURES))
        if not isinstance(measures, list) or not measures or not all(isinstance(m, str) for m in measures):
            raise ClirkitError(f"{where}: measures must be a list of measure names, got {measures!r}")
        from clirkit.measures import parse_measures

        try:
            parse_measures(measures)  # an unknown name is an error now, not after training
        except ClirkitError as exc:
            raise ClirkitError(f"{where}: {exc}") from None
        gains = data.get("gains", [])
        if not isinstance(gains, list) or not all(isinstance(m, str) for m in gains):
            raise ClirkitError(f"{where}: gains must be a list of measure names (e.g. gains = [\"AP\"]), got "
                               f"{repr(gains)[:40]}")
        figures = data.get("figures", True)
        if not isinstance(figures, bool):
            raise ClirkitError(f"{where}: figures must be true or false (a TOML boolean, without quotes), got "
                               f"{repr(figures)[:40]}")
        exp = cls(name=str(data.get("name", name)), collection=str(data["collection"]), variant=data.get("variant"),
                  measures=tuple(measures), baseline=data.get("baseline"),
                  gains=tuple(gains), seed=integer("seed", 0, 0), jobs=integer("jobs", 1, 1),
                  dev_queries=integer("dev_queries", 0, 0), train_queries=integer("train_queries", 0, 0),
                  analysis=section("analysis"), table=section("table"), systems=systems, fusions=fusions,
                  figures=figures, source=source)
        names = list(systems) + list(fusions)
        if exp.baseline is not None and exp.baseline not in names:
            raise ClirkitError(f"{where}: baseline {exp.baseline!r} is not a system or fusion of the file")
        bad = [m for m in exp.gains if m not in exp.measures]
        if bad:
            raise ClirkitError(f"{where}: gains measure {bad[0]!r} is not one of the measures "
                               f"({', '.join(exp.measures)}): add it to measures or remove it from gains")
        unknown = sorted(set(exp.analysis) - {"stemmer", "stopwords"})
        if unknown:
            raise ClirkitError(f"{where}: [analysis]: unknown key {unknown[0]!r} (known: stemmer, stopwords)")
        for key, allowed in (("stemmer", ("snowball", "none")), ("stopwords", ("none", "snowball"))):
            if exp.analysis.get(key, allowed[0]) not in allowed:
                raise ClirkitError(f"{where}: [analysis]: {key} must be {' or '.join(map(repr, allowed))}, "
                                   f"got {repr(exp.analysis[key])[:40]}")
        unknown_table = sorted(set(exp.table) - {"iterations", "file", "format"})
        if unknown_table:
            raise ClirkitError(f"{where}: [table]: unknown key {unknown_table[0]!r}")
        iterations = exp.table.get("iterations", 5)
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
            raise ClirkitError(f"{where}: [table]: iterations must be an integer >= 0, got {repr(iterations)[:40]}")
        for key in ("file", "format"):
            if not isinstance(exp.table.get(key, ""), str):
                raise ClirkitError(f"{where}: [table]: {key} must be a string, got {repr(exp.table[key])[:40]}")
        return exp

    def run_names(self) -> list[str]:
        """Systems then fusions, in file order: the rows of the report."""
        return list(self.systems) + list(self.fusions)


def _no_nul_bytes(path: str | os.PathLike[str]) -> None:
    """Name the first NUL byte of an experiment file that is not valid TOML (tomllib calls it "Expected newline
    or end of document" or the like)."""
    data = Path(path).read_bytes()
    at = data.find(b"\0")
    if at >= 0:
        line, column = data.count(b"\n", 0, at) + 1, at - data.rfind(b"\n", 0, at)
        raise ClirkitError(f"{path}:{line}: a NUL byte (column {column}): an experiment file is TOML text; remove "
                           f"the NUL bytes (is it a binary file?)")


def _check_fusion(spec: Mapping[str, Any], where: str) -> None:
    """The types and values of a fusion's ``step``, ``weights``, ``method``, ``measure`` and ``transform``
    (``where``: the file and the fusion, for the message)."""
    import math

    from clirkit.fusion.interpolation import TRANSFORMS

    def number(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

    n = len(spec["systems"])
    step = spec.get("step", 0.1)
    if not number(step) or not 0 < step <= 1:
        raise ClirkitError(f"{where}: step must be a number in (0, 1] (e.g. step = 0.1), got {repr(step)[:40]}")
    weights = spec.get("weights")
    if weights is not None and not (isinstance(weights, list) and len(weights) == n and all(map(number, weights))):
        raise ClirkitError(f"{where}: weights must list {n} numbers, one per system (or be left out to tune them "
                           f"on dev), got {repr(weights)[:40]}")
    method = spec.get("method", "interpolation")
    if not isinstance(method, str) or method not in ("interpolation", "borda"):
        raise ClirkitError(f"{where}: method must be \"interpolation\" or \"borda\", got {repr(method)[:40]}")
    measure = spec.get("measure", "AP")
    if not isinstance(measure, str):
        raise ClirkitError(f"{where}: measure must be a measure name (e.g. measure = \"AP\"), got {repr(measure)[:40]}")
    from clirkit.measures import parse_measures

    try:
        parse_measures([measure])
    except ClirkitError as exc:
        raise ClirkitError(f"{where}: measure: {exc}") from None
    allowed = ("auto", *TRANSFORMS)
    transform = spec.get("transform", "auto")
    if not (transform in allowed if isinstance(transform, str) else isinstance(transform, list) and len(transform) == n
            and all(isinstance(t, str) and t in allowed for t in transform)):
        raise ClirkitError(f"{where}: transform must be one of {', '.join(map(repr, allowed))} or a list of {n} of "
                           f"them (one per system), got {repr(transform)[:40]}")


def sample(topics: Mapping[str, str], n: int, *, seed: int = 0) -> dict[str, str]:
    """``n`` of ``topics`` drawn without replacement with ``seed``, in their original order (all of them when
    ``n`` is 0 or at least their number): the dev sample an experiment tunes on."""
    import numpy as np

    ids = list(topics)
    if not 0 < n < len(ids):
        return dict(topics)
    picked = np.sort(np.random.default_rng(seed).choice(len(ids), n, replace=False))
    return {ids[i]: topics[ids[i]] for i in picked.tolist()}


def with_overrides(data: Mapping[str, Any], *, collection: str | None = None, variant: str | None = None,
                   jobs: int | None = None) -> dict:
    """A parsed experiment file run on another ``collection`` (its default variant unless ``variant``) or
    with other ``jobs``."""
    data = dict(data)
    if jobs is not None:
        data["jobs"] = jobs
    if collection:
        data["collection"] = collection
        data.pop("variant", None)
    if variant:
        data["variant"] = variant
    return data


def shipped(name: str) -> Path:
    """The experiment file ``name`` shipped with clirkit (e.g. ``demo``)."""
    path = SHIPPED / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in SHIPPED.glob("*.toml"))
        raise ClirkitError(f"no shipped experiment {name!r} (shipped: {', '.join(known)})")
    return path


@dataclass
class Result:
    """What :func:`run_experiment` made: the test runs by name, the report text, the folder."""

    runs: dict
    text: str
    folder: Path
    seconds: dict[str, float]


class _Store:
    """Artifacts of one experiment folder, each beside a ``.json`` record of what made it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        if folder.exists() and not folder.is_dir():
            raise ClirkitError(f"{folder}: exists and is not a folder; give a folder for the output")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file on the way, no permission, a read-only place
            raise ClirkitError(f"{folder}: cannot make the output folder ({exc.strerror or exc})") from None

    def fresh(self, path: Path, record: dict) -> bool:
        """True if ``path`` exists and was made from ``record``."""
        meta = path.with_name(path.name + ".json")
        if not (path.exists() and meta.exists()):
            return False
        try:
            return json.loads(meta.read_text(encoding="utf-8")) == json.loads(json.dumps(record))
        except (json.JSONDecodeError, UnicodeDecodeError):
            return False

    def remember(self, path: Path, record: dict) -> None:
        from clirkit.fileio import atomic_writer

        with atomic_writer(path.with_name(path.name + ".json")) as out:
            out.write(json.dumps(record, indent=1, sort_keys=True) + "\n")


def _digest(values) -> str:
    return hashlib.sha256("\n".join(values).encode("utf-8")).hexdigest()[:16]


def _load_collection(exp: Experiment):
    from clirkit import datasets

    return datasets.load(exp.collection, variant=exp.variant)


def _collection_record(c) -> dict:
    manifest = (c.folder / "manifest.json").read_bytes()
    return {"name": c.name, "variant": c.variant, "manifest": hashlib.sha256(manifest).hexdigest()[:16]}


def run_experiment(exp: Experiment, folder: str | os.PathLike[str], *, quiet: bool = False) -> Result:
    """Run ``exp`` into ``folder`` (see the module docstring); returns the test runs and the report."""
    from clirkit.analysis import cached_tokens
    from clirkit.progress import Steps, say

    out = _Store(Path(folder))
    steps = Steps()
    c = _load_collection(exp)
    say(f"{exp.name}: {c.name} ({c.variant}), {c.source_lang} queries -> {c.target_lang} documents", quiet=quiet)
    ctx = _Context(exp, c, out, steps, quiet)
    with cached_tokens():  # every text tokenized once, whichever table, index or model reads it first
        for name in exp.systems:
            ctx.system_runs(name)
        fusions = {}
        for name, spec in exp.fusions.items():
            with steps.time("fusion (weights tuned on dev)"):
                fusions[name] = ctx.fusion_run(name, spec)
    text = _report(ctx, fusions)
    say("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in steps.seconds.items()), quiet=quiet)
    say(f"runs, models and the report in {out.folder}/", quiet=quiet)
    return Result({n: ctx.runs["test"][n] for n in exp.run_names()}, text, out.folder, dict(steps.seconds))


class _Context:
    """The state of one run of an experiment: collection, resources, systems and their runs."""

    def __init__(self, exp: Experiment, c, out: _Store, steps, quiet: bool) -> None:
        self.exp, self.c, self.out, self.steps, self.quiet = exp, c, out, steps, quiet
        self.collection_record = _collection_record(c)
        self.splits = ("dev", "test") if "dev" in c.splits else ("test",)
        self.queries = {s: c.queries(s) for s in self.splits}
        if "dev" in self.queries:
            self.queries["dev"] = sample(self.queries["dev"], exp.dev_queries, seed=exp.seed)
        self.qrels = {s: c.qrels(s).subset(self.queries[s]) for s in self.splits}
        self.excluded = {s: c.excluded(s) for s in self.splits}
        self.systems: dict[str, Any] = {}
        self.records: dict[str, dict] = {}
        self.runs: dict[str, dict] = {s: {} for s in self.splits}
        self.notes: list[str] = []
        self.curves: dict[str, dict] = {}
        self.sweeps: dict[str, Any] = {}
        self._documents = self._table = self._index = None
        self._tables: dict[tuple, Any] = {}

    # resources ------------------------------------------------------------------------------------

    def documents(self):
        from clirkit.documents import Documents

        if self._documents is None:
            self._documents = Documents(*self.c.documents(), jobs=self.exp.jobs)
        return self._documents

    def analyzer(self, lang: str):
        """The analyzer of the file's ``[analysis]`` for language ``lang``."""
        from clirkit.analysis import Analyzer

        stop = self.exp.analysis.get("stopwords", "none")
        stemmer = self.exp.analysis.get("stemmer", "snowball")
        try:
            return Analyzer(lang, stemmer=None if stemmer == "none" else stemmer,
                            stopwords=None if stop == "none" else stop)
        except ClirkitError as exc:
            raise ClirkitError(f"{self.exp.source or 'experiment'}: [analysis]: {exc}") from None

    def analysis_record(self) -> dict:
        return {"analysis": {side: self.analyzer(lang).to_dict() for side, lang in
                             (("source", self.c.source_lang), ("target", self.c.target_lang))}}

    def table_record(self, given: str | None = None, fmt: str | None = None) -> dict:
        """What a table is made from: a file (``given``, or the file's ``[table] file``) or IBM Model 1 on the
        collection's parallel corpus (``given`` None or ``"ibm1"`` without a ``[table] file``)."""
        from clirkit.fileio import file_digest

        given = self._table_file(given)
        if given is not None:
            path = Path(given)
            if not path.is_file():
                raise ClirkitError(f"{self.exp.source or 'experiment'}: table file {path}: no such file")
            return {"file": str(path.resolve()), "sha256": file_digest(path),
                    "format": fmt or self.exp.table.get("format", "auto"), **self.analysis_record()}
        return {"collection": self.collection_record, "iterations": int(self.exp.table.get("iterations", 5)),
                **self.analysis_record()}

    def _table_file(self, given: str | None) -> str | None:
        """The table file ``given`` names (relative paths are relative to the experiment file's folder)."""
        if given in (None, "ibm1"):
            given = None if given == "ibm1" else self.exp.table.get("file")
        if given is None:
            return None
        path = Path(given)
        if not path.is_absolute() and self.exp.source:
            path = Path(self.exp.source).parent / path
        return str(path)

    def table(self, given: str | None = None, fmt: str | None = None):
        """The table ``given`` (a file, ``"ibm1"``, or None: the experiment's ``[table]``), made or read once."""
        from clirkit.translation import load_table

        path = self._table_file(given)
        if path is not None:  # a given table (a converted dictionary, a table trained elsewhere)
            key = (path, fmt or self.exp.table.get("format", "auto"))
            if key not in self._tables:
                stemmer = self.analyzer(self.c.target_lang).stemmer
                self._tables[key] = load_table(path, key[1], stemmer=stemmer)
            return self._tables[key]
        if self._table is None:
            self._table = self._trained_table()
        return self._table

    def _trained_table(self):
        from clirkit.progress import say
        from clirkit.translation import load_table, save_table, train_table

        path, record = self.out.folder / "table.npz", self.table_record("ibm1")
        if self.out.fresh(path, record):
            return load_table(path)
        with self.steps.time("IBM Model 1"):
            source, target = self.c.parallel()
            analyzers = self.analyzer(self.c.source_lang), self.analyzer(self.c.target_lang)
            tokens = [analyzer.tokenize_many(texts, quiet=self.quiet, jobs=self.exp.jobs, desc=f"tokenizing {side}")
                      for analyzer, texts, side in zip(analyzers, (source, target), ("source", "target"))]
            say(f"training IBM Model 1 on {len(source)} sentence pairs, {record['iterations']} iterations",
                quiet=self.quiet)
            table = train_table(*tokens, *analyzers, iterations=record["iterations"], quiet=self.quiet)
            save_table(table, path)
            self.out.remember(path, record)
        return table

    def index_record(self) -> dict:
        return {"collection": self.collection_record, "lang": self.c.target_lang,
                "analyzer": self.analyzer(self.c.target_lang).to_dict()}

    def index(self):
        from clirkit.index import Index
        from clirkit.progress import say

        if self._index is not None:
            return self._index
        path, record = self.out.folder / "index.npz", self.index_record()
        if self.out.fresh(path, record):
            self._index = Index.load(path)
            return self._index
        with self.steps.time("index"):
            analyzer = self.analyzer(self.c.target_lang)
            say(f"indexing {len(self.documents())} documents", quiet=self.quiet)
            documents = self.documents()
            self._index = Index.from_tokens(documents.docids, documents.tokens(analyzer, quiet=self.quiet), analyzer)
            self._index.save(path)
            self.out.remember(path, record)
        return self._index

    def train_topics(self) -> dict[str, str]:
        topics = self.c.queries("train")
        if self.exp.train_queries:
            topics = dict(list(topics.items())[:self.exp.train_queries])
        return topics

    # systems --------------------------------------------------------------------------------------

    def build(self, name: str):
        """The system ``name`` of the file, unfitted, with the collection's languages and the seed."""
        from clirkit.systems import DT, PSQ, Boost, SCS

        spec = dict(self.exp.systems[name])
        kind = spec.pop("kind")
        for key in TABLE_KEYS:
            spec.pop(key, None)
        if kind in ("dt", "psq"):
            cls = DT if kind == "dt" else PSQ
        else:
            cls = Boost if kind == "boost" else SCS
            spec.setdefault("source_lang", self.c.source_lang)
            spec.setdefault("target_lang", self.c.target_lang)
            spec.setdefault("random_state", self.exp.seed)
            if kind == "boost":
                spec.pop("parallel_tuples", None)
                if "base" in spec:
                    spec["base"] = self.systems[spec["base"]]
                spec.setdefault("quiet", self.quiet)
                spec.setdefault("jobs", self.exp.jobs if spec.get("bags", 1) > 1 else 1)
        for key in ("beta_grid", "thresholds", "mse_targets"):
            if isinstance(spec.get(key), list):
                spec[key] = tuple(spec[key])
        try:
            return cls(**spec)
        except TypeError as exc:
            raise ClirkitError(f"{self.exp.source or 'experiment'}: system {name!r}: {exc}") from None

    def system_record(self, name: str, system) -> dict:
        from clirkit.estimator import jsonable

        spec = self.exp.systems[name]
        params = system.describe()
        params["params"] = {k: v for k, v in params["params"].items() if k not in ("quiet", "jobs", "base")}
        record = {"collection": self.collection_record, "system": params}
        if spec["kind"] in ("dt", "psq", "boost"):
            record["index"] = self.index_record()
        if spec["kind"] in ("dt", "psq"):
            record["table"] = self.table_record(spec.get("table"), spec.get("table_format"))
            if spec.get("table2") is not None:
                record["table2"] = self.table_record(spec["table2"], spec.get("table_format"))
        if spec["kind"] in ("boost", "scs"):
            record["train"] = {"queries": _digest(self.train_topics()), "dev": _digest(self.queries.get("dev", {})),
                               "parallel_tuples": bool(spec.get("parallel_tuples", False))}
        if spec.get("base"):
            record["base"] = self.records[spec["base"]]
        return jsonable(record)

    def system_runs(self, name: str) -> None:
        """Fit system ``name`` (or read its model back) and make (or read back) its dev and test runs."""
        from clirkit.formats import read_run, write_run
        from clirkit.progress import say

        system = self.build(name)
        try:
            system.check_params()
        except ClirkitError as exc:
            raise ClirkitError(f"{self.exp.source or 'experiment'}: system {name!r}: {exc}") from None
        self.systems[name] = system
        record = self.records[name] = self.system_record(name, system)
        paths = {s: self.out.folder / "runs" / f"{_file_name(name)}.{s}.run" for s in self.splits}
        if all(self.out.fresh(p, {**record, "split": s, "queries": _digest(self.queries[s])})
               for s, p in paths.items()) and self.exp.systems[name]["kind"] in ("dt", "psq"):
            for s, p in paths.items():
                self.runs[s][name] = read_run(p)
            self.fit(name, system, record, reuse=True)
            return
        self.fit(name, system, record)
        with self.steps.time(f"{name} retrieval"):
            for s, p in paths.items():
                say(f"{name}: searching {len(self.queries[s])} {s} queries", quiet=self.quiet)
                run = system.search(self.queries[s], excluded=self.excluded[s], tag=name, quiet=self.quiet)
                self.runs[s][name] = run
                p.parent.mkdir(parents=True, exist_ok=True)
                write_run(run, p)
                self.out.remember(p, {**record, "split": s, "queries": _digest(self.queries[s])})

    def fit(self, name: str, system, record: dict, *, reuse: bool = False) -> None:
        """Fit ``system``; a learned model whose record is unchanged is read back instead of trained."""
        from clirkit.progress import say

        spec = self.exp.systems[name]
        kind = spec["kind"]
        if kind == "dt":
            system.fit(self.index(), self.table(spec.get("table"), spec.get("table_format")), quiet=self.quiet)
            return
        if kind == "psq":
            table2 = spec.get("table2")
            system.fit(self.index(), self.table(spec.get("table"), spec.get("table_format")),
                       None if table2 is None else self.table(table2, spec.get("table_format")), quiet=self.quiet)
            return
        path = self.out.folder / "models" / f"{_file_name(name)}.npz"
        documents = self.documents()
        if self.out.fresh(path, record):
            system.load_model(path, documents)
        else:
            with self.steps.time(f"{name} training"):
                train = self.train_topics()
                say(f"{name}: training on {len(train)} queries", quiet=self.quiet)
                if kind == "boost":
                    extra = self.parallel_tuples(documents) if self.exp.systems[name].get("parallel_tuples") else {}
                    dev = {"dev_topics": self.queries["dev"], "dev_qrels": self.qrels["dev"]} if "dev" in self.queries \
                        else {}
                    excluded = {**self.c.excluded("train"), **self.excluded.get("dev", {})}
                    system.fit(train, self.c.qrels("train"), documents, excluded=excluded, **dev, **extra)
                else:
                    system.fit(train, self.c.qrels("train"), documents, quiet=self.quiet, jobs=self.exp.jobs)
            path.parent.mkdir(parents=True, exist_ok=True)
            system.save(path)
            self.out.remember(path, record)
        self.describe_learned(name, kind, system)

    def parallel_tuples(self, documents) -> dict:
        from clirkit.boost.parallel import known_item_queries

        sources, targets = self.c.parallel()
        topics, qrels = known_item_queries(sources, self.c.parallel_ids(), documents.docids, target_texts=targets,
                                           doc_texts=documents.texts)
        return {"extra_topics": topics, "extra_qrels": qrels}

    def describe_learned(self, name: str, kind: str, system) -> None:
        if kind == "boost":
            model = system.model_
            params = model.params
            if model.from_base:
                self.notes.append(f"{name}: beta {model.beta:g} (dev MAP by beta: " + ", ".join(
                    f"{b} {m:.4f}" for b, m in params["beta_dev_map"].items()) +
                    f"), {params['bag_rounds'][0]} rounds, {len(model)} phrase-table entries")
            else:
                self.notes.append(f"{name}: {', '.join(map(str, params['bag_rounds']))} rounds kept, "
                                  f"{len(model)} phrase-table entries")
            curves = {f"{name} bag {i + 1}" if len(params["dev_curves"]) > 1 else name: (c["rounds"], c["map"])
                      for i, c in enumerate(params["dev_curves"]) if c["rounds"]}
            if curves:
                self.curves[f"{name} (dev MAP by boosting round)"] = {"curves": curves, "xlabel": "boosting rounds",
                                                                      "ylabel": "dev MAP"}
        elif kind == "scs":
            history = getattr(system, "history_", [])
            if history:
                losses = [h["loss"] if isinstance(h, dict) else h[0] for h in history]
                self.curves[f"{name} (training loss by epoch)"] = {
                    "curves": {name: (list(range(1, len(losses) + 1)), losses)}, "xlabel": "epochs",
                    "ylabel": "mean training loss", "best": "min"}

    # fusions --------------------------------------------------------------------------------------

    def fusion_run(self, name: str, spec: dict):
        from clirkit.formats import write_run
        from clirkit.systems import Fusion

        members = spec["systems"]
        if "dev" not in self.runs:
            raise ClirkitError(f"fusion {name!r} tunes its weights on dev, and {self.c.name} has no dev split")
        params = {k: (tuple(v) if isinstance(v, list) else v) for k, v in spec.items() if k != "systems"}
        fusion = Fusion([self.systems[m] for m in members], **params)
        fusion.fit_runs([self.runs["dev"][m] for m in members], self.qrels["dev"])
        run = fusion.fuse([self.runs["test"][m] for m in members], tag=name)
        self.runs["test"][name] = run
        path = self.out.folder / "runs" / f"{_file_name(name)}.test.run"
        write_run(run, path)
        self.out.remember(path, {"fusion": {**spec, "weights": fusion.weights_},
                                 "systems": [self.records[m] for m in members]})
        if fusion.sweep_ is not None:
            self.sweeps[name] = fusion.sweep_
        self.notes.append(f"{name}: weights {', '.join(f'{w:g}' for w in fusion.weights_)}" +
                          (f" (dev {fusion.measure} {fusion.dev_score_:.4f})" if fusion.dev_score_ is not None else ""))
        return fusion


def _file_name(name: str) -> str:
    """A run or model name as a file name: lowercase, ``+`` as ``_``, runs of other unsafe characters as one
    ``-`` (``"DT+PSQ(Borda)"`` -> ``dt_psq-borda``)."""
    import re

    safe = re.sub(r"[^a-z0-9_.+-]+", "-", name.lower()).replace("+", "_").strip("-")
    return safe or "run"


def _report(ctx: _Context, fusions: dict) -> str:
    """Write report.md, results.txt and the figures; return the text the command prints."""
    from clirkit.fileio import atomic_writer
    from clirkit.metrics import evaluate
    from clirkit.report import Report, score_table

    exp, c = ctx.exp, ctx.c
    names = exp.run_names()
    baseline = exp.baseline or names[0]
    test_runs = {n: ctx.runs["test"][n] for n in names}
    n_docs = len(ctx.documents()) if ctx._documents is not None else ctx.c.counts.get("documents", "?")
    head = f"{c.name} ({c.variant}), test split: {len(ctx.queries['test'])} queries, {n_docs} documents"
    table = score_table(test_runs, ctx.qrels["test"], exp.measures, baseline=baseline, seed=exp.seed,
                        qrels_label=f"{c.name} test", gains=exp.gains)
    lines = [head, "", table]
    dev_line = _dev_scores(ctx)
    if dev_line:
        lines += ["", dev_line]
    if ctx.notes:
        dev = f" (dev: {len(ctx.queries['dev'])} queries)" if "dev" in ctx.queries else ""
        lines += ["", f"tuned and learned{dev}:"] + [f"  {n}" for n in ctx.notes]
    text = "\n".join(lines)  # step timings go to stderr (run_experiment), so the files are byte-identical
    with atomic_writer(ctx.out.folder / "results.txt") as fh:
        fh.write(text + "\n")
    evaluations = [evaluate(run, ctx.qrels["test"], list(exp.measures), names="given") for run in test_runs.values()]
    report = Report(names, evaluations, baseline=names.index(baseline), seed=exp.seed, qrels=f"{c.name} test")
    figures = _figures(ctx, names, baseline, evaluations, report) if exp.figures else []
    md = [f"# {exp.name}", "", head, "", report.markdown()] + ([dev_line, ""] if dev_line else [])
    if ctx.notes:
        md += ["## Tuned and learned", ""] + [f"- {n}" for n in ctx.notes] + [""]
    if figures:
        md += ["## Figures", ""] + [f"![{title}]({path.name})" for title, path in figures] + [""]
    with atomic_writer(ctx.out.folder / "report.md") as fh:
        fh.write("\n".join(md))
    return text


def _dev_scores(ctx: _Context) -> str:
    """One line with each system's dev score on the first measure: what a choice among settings rests on."""
    from clirkit.metrics import evaluate

    if "dev" not in ctx.runs or not ctx.runs["dev"]:
        return ""
    measure = ctx.exp.measures[0]
    scores = [f"{name} {evaluate(run, ctx.qrels['dev'], [measure], names='given').mean()[measure]:.4f}"
              for name, run in ctx.runs["dev"].items()]
    return f"dev {measure} ({len(ctx.queries['dev'])} queries): " + ", ".join(scores)


def _figures(ctx: _Context, names: list[str], baseline: str, evaluations, report) -> list:
    """The PNG figures: per-query differences against the baseline (first measure), kappa sweeps, curves."""
    from clirkit import plots

    exp, folder, out = ctx.exp, ctx.out.folder, []
    measure = exp.measures[0]
    base = names.index(baseline)
    base_ev = evaluations[base]
    for i, name in enumerate(names):
        if i == base:
            continue
        test = report.tests.get((i, measure))
        path = folder / f"diff-{_file_name(name)}-vs-{_file_name(baseline)}.png"
        plots.per_query_difference(base_ev.qids, evaluations[i].column(measure), base_ev.column(measure), name=name,
                                   baseline=baseline, measure=measure, p_value=None if test is None else test.p_value,
                                   path=path)
        out.append((f"{name} - {baseline}, {measure} per query", path))
    two_way = {n: (s.kappas, s.scores) for n, s in ctx.sweeps.items() if hasattr(s, "kappas")}
    two_way.update({n: ([float(w[0]) for w in s.weights], s.scores) for n, s in ctx.sweeps.items()
                    if not hasattr(s, "kappas") and len(s.weights[0]) == 2})
    if two_way:
        path = plots.kappa_sweep(two_way, measure=ctx.exp.fusions[next(iter(two_way))].get("measure", "AP"),
                                 path=folder / "kappa-sweep.png")
        out.append(("dev score by the weight of the first system", path))
    for title, spec in ctx.curves.items():
        path = folder / f"curve-{_file_name(title.split(' (')[0])}.png"
        plots.training_curves(spec["curves"], xlabel=spec["xlabel"], ylabel=spec["ylabel"], path=path, title=title)
        out.append((title, path))
    return out
