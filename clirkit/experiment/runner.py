"""Running an experiment: every system and fusion built from the table of kinds, recorded, fitted on the
same resources and searched on each split, in file order, with no step that depends on a system's kind (a run
file's rows that its readers would refuse are found as it is built: :mod:`clirkit.experiment.runuses`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from clirkit.errors import ClirkitError
from clirkit.experiment.artifacts import Artifacts, digest
from clirkit.experiment.keepruns import check_keep_runs, keeps
from clirkit.experiment.kinds import system_class
from clirkit.experiment.spec import Experiment
from clirkit.experiment.store import Store, file_name

EXECUTION = ("quiet", "jobs")  # parameters that change how a system runs, not what it makes: not recorded


@dataclass
class Result:
    """What :func:`run_experiment` made: the test runs by name (a mapping that gives each Run when read), the
    report text, the folder."""

    runs: Mapping
    text: str
    folder: Path
    seconds: dict[str, float]


def load_collection(exp: Experiment, out: Store, steps, quiet: bool):
    """The collection the experiment names, or its ``[collection]`` of plain files written as the folder
    ``collection/`` of the output (again only when a file or a setting changed)."""
    from clirkit import datasets
    from clirkit.datasets import Collection

    where = exp.source or "experiment"
    if exp.plain is None:  # the collection is a name (a [collection] table is plain files)
        assert isinstance(exp.collection, str)
        name = collection_folder(exp)
        if os.path.isdir(name):
            out.check_outside(f"{where}: collection {exp.collection}", name)
        return datasets.load(name, variant=exp.variant)
    for path in exp.plain.files():
        out.check_outside(f"{where}: [collection] file {path}", path)
    import shutil

    from clirkit.progress import say

    folder, record = out.folder / "collection", exp.plain.record()
    if not out.fresh(folder, record):
        with steps.time("collection"):
            say(f"reading the [collection] files into {folder.name}/", quiet=quiet)
            if folder.exists():
                shutil.rmtree(folder)
            exp.plain.write(folder, quiet=quiet, record=record)
            out.remember(folder, record)
    return Collection(folder)


def collection_folder(exp: Experiment) -> str:
    """The collection ``exp`` names: a relative folder beside the experiment file (README: paths in an experiment
    file are relative to it), else as given (a known name, ``irds:ID``, a folder given on the command line:
    relative to the current folder)."""
    from clirkit import datasets

    name = str(exp.collection)
    if exp.source is None or name in datasets.names() or name.startswith("irds:") or os.path.isabs(name):
        return name
    beside = os.path.join(os.path.dirname(exp.source), name)
    return beside if os.path.isdir(beside) else name


def run_experiment(exp: Experiment, folder: str | os.PathLike[str], *, quiet: bool = False) -> Result:
    """Run ``exp`` into ``folder`` (see :mod:`clirkit.experiment`); returns the test runs and the report."""
    from clirkit.analysis import cached_tokens
    from clirkit.experiment.report import write_report
    from clirkit.progress import Steps, held_until_checked, say

    out = Store(Path(folder))
    steps = Steps()
    checked = None  # the artifacts recorded when every system was built and its inputs found (out.made)
    try:
        with held_until_checked():  # the collection's language notices, unless a check stops the run
            c = load_collection(exp, out, steps, quiet)
            say(
                f"{exp.name}: {c.name} ({c.variant}), {c.source_lang} queries -> {c.target_lang} documents", quiet=quiet
            )
            runner = Runner(exp, Artifacts(exp, c, out, steps, quiet))
            runner.build_all()
        checked = out.made
        with cached_tokens():  # every text tokenized once, whichever table, index or model reads it first
            for name in exp.make_order():
                try:
                    runner.make(name)
                except ClirkitError as exc:  # a system's fit or search: the file and the system named
                    raise runner.named(name, exc) from None
        text = write_report(runner)
    except BaseException as exc:
        # an error (not Ctrl-C) at a check, or in the work before it recorded an artifact: nothing to resume
        out.abandon(checks_failed=isinstance(exc, ClirkitError) and (checked is None or out.made == checked))
        raise
    folder = out.commit(prune=True)  # what an interrupted run made and this one did not: removed
    say("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in steps.seconds.items()), quiet=quiet)
    say(f"runs, models and the report in {folder}/", quiet=quiet)
    return Result(runner.resources.runs("test"), text, folder, dict(steps.seconds))


class Runner:
    """The systems of one experiment on its resources: built, recorded, fitted (or read back), searched."""

    def __init__(self, exp: Experiment, resources: Artifacts) -> None:
        self.exp, self.resources = exp, resources
        self.where = exp.source or "experiment"
        self.splits = [s for s in ("dev", "test") if s in resources.splits] or ["test"]
        self.systems: dict[str, Any] = {}
        self.views: dict[str, Artifacts] = {}
        self.records: dict[str, dict] = {}
        self.notes: list[str] = []
        self.curves: dict[str, dict] = {}
        self.sweeps: dict[str, Any] = {}

    def build_all(self) -> None:
        """Build and record every system and fusion before anything is fitted: a missing table file, a split
        a system needs and the collection lacks, or a bad parameter stops the run before it starts."""
        wanted = [s for s in self.exp.report_splits if s not in self.splits and s != "all"]
        if wanted or ("all" in self.exp.report_splits and "dev" not in self.splits):
            raise ClirkitError(
                f"{self.where}: report_splits: {self.resources.c.name} has no "
                f"{(wanted or ['dev'])[0]} split (its splits: {', '.join(self.resources.splits)})"
            )
        if "dev_queries" in self.exp.top_keys and "dev" not in self.resources.splits:  # as train_queries unread
            raise ClirkitError(
                f"{self.where}: dev_queries applies to the dev split, and {self.resources.c.name} has none (its "
                f"splits: {', '.join(self.resources.splits)}): remove dev_queries"
            )
        self.check_keep_runs()
        self.learned_from = self.systems_learned_from()
        for name in self.exp.make_order():
            try:
                self.build(name)
            except ClirkitError as exc:
                raise self.named(name, exc) from None

    def systems_learned_from(self) -> set[str]:
        """The systems whose runs of the training split another system learns from: those a ``[systems.NAME]``
        names (a boosted ranker's ``base``), or the systems of a fusion it names."""
        out: set[str] = set()
        for spec in self.exp.systems.values():
            for key in system_class(spec["kind"]).system_keys:
                named = spec.get(key)
                names = [named] if isinstance(named, str) else list(named or [])
                for n in names:
                    out.update(self.exp.fusions[n]["systems"] if n in self.exp.fusions else [n])
        return out

    def check_languages(self, given: Mapping[str, Any]) -> None:
        """A system's ``source_lang`` or ``target_lang`` given in the file names the collection's languages (the
        queries' and the documents'): any other would analyze them as another language."""
        c = self.resources.c
        for key, lang, what in (("source_lang", c.source_lang, "queries"), ("target_lang", c.target_lang, "documents")):
            value = given.get(key)
            if value is not None and lang is not None and value != lang:
                raise ClirkitError(f"{key} = {value!r}, but the collection's {what} are in {lang!r}: leave {key} out")

    def named(self, name: str, exc: ClirkitError) -> ClirkitError:
        """``exc`` of the system or fusion ``name`` as ``FILE: system 'NAME': message`` (as the file's checks
        word theirs); a message that already names the file and a system or fusion is kept as it is."""
        from clirkit.tablefit import SecondTableMismatch, TableMismatch

        message = str(exc)
        if message.startswith((f"{self.where}: system ", f"{self.where}: fusion ")):
            return ClirkitError(message)
        what = "fusion" if name in self.exp.fusions else "system"
        message = self.base_named(name, message.removeprefix(f"{self.where}: "))
        if isinstance(exc, TableMismatch):  # a table's error names its file, as the command line does
            key = "table2" if isinstance(exc, SecondTableMismatch) else "table"
            given = self.exp.systems.get(name, {}).get(key)
            if isinstance(given, str) and given != "ibm1" and not message.startswith(f"{key} "):
                message = f"{key} {given}: {message}"
        return ClirkitError(f"{self.where}: {what} {name!r}: {message}")

    def base_named(self, name: str, message: str) -> str:
        """``message`` of the system ``name`` said of its base run, which the base's search tags with the base's
        name (or its kind's tag, ``'Boost'``, ``'run'``), led by the system or fusion its ``base`` names
        (``base 'B1': ...``)."""
        kind, spec = self.exp.spec_of(name)
        for key in system_class(kind).system_keys:
            named = spec.get(key)
            base = self.systems.get(named) if isinstance(named, str) else None
            if base is None or "base" not in message or message.startswith(f"{key} "):
                continue
            for tag in (named, getattr(base, "default_tag", None)):
                if isinstance(tag, str) and (f"{tag!r}" in message or f"({tag})" in message):
                    return f"{key} {named!r}: {message}"
        return message

    def check_keep_runs(self) -> None:
        """Each pattern of ``keep_runs`` matches a run of the experiment on its splits (:func:`check_keep_runs`)."""
        check_keep_runs(self.where, self.exp.keep_runs, self.exp.run_names(), self.splits)

    def kept(self, name: str, split: str) -> bool:
        """Whether the run of ``name`` on ``split`` is written to the folder (``keep_runs``)."""
        return any(keeps(pattern, f"{name}.{split}") for pattern in self.exp.keep_runs)

    def build(self, name: str) -> None:
        """The system ``name`` of the file, unfitted, with the parameters the experiment sets, and its record."""
        from clirkit.experiment.runuses import check_run_uses
        from clirkit.experiment.systemchecks import check_param_files, param_files
        from clirkit.fileio import file_digest
        from clirkit.paramgroups import from_flat

        kind, spec = self.exp.spec_of(name)
        cls = system_class(kind)
        view = self.resources.for_system({k: spec[k] for k in cls.file_keys if k in spec}, set(spec) - {"kind"})
        view.searched = (["train"] if name in self.learned_from and "train" in view.splits else []) + self.splits
        given = {
            k: tuple(v) if isinstance(v, list) else v
            for k, v in spec.items()
            if k != "kind" and k not in cls.file_keys and k not in cls.system_keys
        }
        self.check_languages(given)
        files = param_files(cls, given, self.exp.source)  # relative to the experiment file, recorded by digest
        check_param_files(files)
        for key, (value, path) in files.items():
            self.resources.out.check_outside(f"{key} {value}", path)
        given.update({k: path for k, (_, path) in files.items()})
        named = {k: spec[k] for k in cls.system_keys if k in spec}  # parameters holding other systems, by name
        given.update(
            {k: self.systems[v] if isinstance(v, str) else [self.systems[n] for n in v] for k, v in named.items()}
        )
        system = from_flat(cls, {**cls.params_from(view, given), **given})  # a group's keys are flat in the file
        system.check_params()
        system.check_inputs(view)
        described = system.describe()
        described["params"] = {
            k: v for k, v in described["params"].items() if k not in EXECUTION and k not in cls.system_keys
        }
        record = {"collection": self.resources.collection, "system": described, **system.inputs(view)}
        record.update({k: {"path": path, "sha256": file_digest(path)} for k, (_, path) in files.items()})
        record.update(
            {k: self.records[v] if isinstance(v, str) else [self.records[n] for n in v] for k, v in named.items()}
        )
        from clirkit.estimator import jsonable

        self.systems[name], self.views[name], self.records[name] = system, view, jsonable(record)
        self.resources.keep(name, system)
        check_run_uses(self, name)  # a run file's rows its readers would refuse after the work started

    def make(self, name: str) -> None:
        """Fit system ``name`` (or read its model back), then make (or read back) its run of each split."""
        from clirkit.formats import read_run
        from clirkit.formats.runs import write_run_blocks
        from clirkit.progress import say

        system, view, record = self.systems[name], self.views[name], self.records[name]
        out = self.resources.out
        self.fit(name, system, view, record)
        for split in self.splits:
            path = out.folder / "runs" / f"{file_name(name)}.{split}.run.gz"
            made_by = {**record, "split": split, "queries": digest(view.topics(split))}
            kept = self.kept(name, split)
            if kept and out.fresh(path, made_by):
                run = read_run(path)
            else:
                with self.resources.steps.time(f"{name} retrieval"):
                    say(f"{name}: searching {len(view.topics(split))} {split} queries", quiet=view.quiet)
                    run = system.search_split(view, split, tag=name, packed=True)
                    if kept and len(run):  # an empty run is not kept: a rerun could not read it back
                        path.parent.mkdir(parents=True, exist_ok=True)
                        write_run_blocks(run.blocks(), path)  # (a block of queries unpacked at a time)
                        out.remember(path, made_by)
            self.resources.keep(name, system, split, run)
        self.notes += system.notes(name)
        self.curves.update(system.curves(name))
        sweep = getattr(system, "sweep_", None)
        if sweep is not None:
            self.sweeps[name] = sweep

    def fit(self, name: str, system, view: Artifacts, record: dict) -> None:
        """Fit ``system`` on ``view``; one that keeps a model reads it back when its record is unchanged."""
        from clirkit.progress import say

        out = self.resources.out
        if not system.keeps_model:
            with self.resources.steps.time(f"{name} fit"):
                system.fit(view)
            return
        path = out.folder / "models" / f"{file_name(name)}.npz"
        if out.fresh(path, record):
            system.restore(path, view)
            return
        with self.resources.steps.time(f"{name} training"):
            say(f"{name}: training", quiet=view.quiet)
            system.fit(view)
        path.parent.mkdir(parents=True, exist_ok=True)
        system.save(path)
        out.remember(path, record)
