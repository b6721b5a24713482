"""Experiments declared in a TOML file: train, tune on dev, test, report (``clirkit run FILE``).

An experiment file names a collection, the systems (:mod:`clirkit.systems`) with their
hyper-parameters, the fusions whose weights are tuned on the dev split, the measures and the
baseline (every key: ``clirkit run --keys``, README "Experiment-file keys")::

    collection = "nave-en-es"          # a known collection, a collection folder, or a [collection] table
    variant = "standard"
    measures = ["AP", "PRES@1000", "nDCG@10", "P@10"]
    baseline = "PSQ"
    gains = ["AP", "PRES@1000"]        # differences to the baseline, in points, with p-values
    dev_queries = 400                  # the dev split cut to a seeded sample: tuning, dev runs, reports (0: all)

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

Your own files make a collection with a ``[collection]`` table (:mod:`clirkit.datasets.plain`)::

    [collection]
    documents = "docs.jsonl.gz"        # paths relative to the experiment file
    queries = "topics.xml"             # TSV, JSONL, TREC, CLEF, NTCIR or HC4 topics; or {dev = ..., test = ...}
    query_fields = "title,desc"
    qrels = "qrels.txt"
    source_lang = "en"
    target_lang = "es"
    split = {dev = 0.5, test = 0.5}    # seeded, by query id

:func:`run_experiment` writes into one folder: ``table.npz`` (and ``table.reverse.npz``, the table the other way,
when PSQ translates the documents) and ``index.npz``, ``models/NAME.npz``,
``runs/NAME.SPLIT.run.gz`` (TREC runs, gzip-compressed; ``keep_runs`` chooses which are kept), each with a
``.json`` record of what made it (no timings: the same file and seed give the same bytes; step times are said
on stderr) (a rerun whose record is unchanged reads the artifact instead of making it again), ``collection/``
for a ``[collection]``, and the report:
``report.md`` (a table per split of ``report_splits``, test by default, with significance marks; tuned
weights, training notes), ``results.txt`` (the same as text,
what ``clirkit run`` prints) and PNG figures (kappa sweeps, training curves, per-query differences
against the baseline). Each text is tokenized once per analyzer, whichever of the table, the index and the
models reads it first (:func:`clirkit.analysis.cached_tokens`).

Design: one fit for every system, a runner without per-kind branches
--------------------------------------------------------------------

- **Resources** (:class:`clirkit.estimator.Resources`): what any system's ``fit`` may read (documents,
  index, the translation table(s), topics and qrels by split, the documents each query must not return,
  known-item pairs of the parallel corpus, other systems' runs). Every system is fitted with the same call,
  ``system.fit(resources)``, and takes what it needs; in Python the values are given, in the runner
  (:class:`~clirkit.experiment.artifacts.Artifacts`) each is made on first use, kept for every system
  (``table.npz``, ``index.npz`` and the runs are the runner's cache of artifacts), and recorded. A system's
  own keys of the file that are not parameters (a DT or PSQ's ``table``/``table2``/``table_format``, a boosted
  ranker's ``parallel_tuples``) reach it as the options of a per-system view of the same resources.
- **What the runner asks of a system**: ``params_from(resources, given)`` (the parameters an experiment sets:
  languages, seed), ``inputs(resources)`` (the record of what ``fit`` reads: beside the parameters and the
  collection, the record its runs and model are kept under), ``keeps_model`` with ``save`` and
  ``restore(path, resources)`` (the one load), ``search_split(resources, split)`` (a fusion fuses its systems'
  runs instead of searching again), ``notes(name)`` and ``curves(name)`` for the report. ``file_keys`` and
  ``system_keys`` (the parameters that name other systems: ``base``, a fusion's ``systems``) tell the file
  checks which keys a system has.
- **Kinds -> classes**: one table, :data:`clirkit.experiment.kinds.KINDS`; a new kind is one entry (a test adds
  a toy one), the runner (:mod:`~clirkit.experiment.runner`) builds every system and fusion from it, in
  file order, and has no branch on a kind.
- **Plain files -> the same Collection**: a ``[collection]`` is read, checked and split once and *written* as a
  collection folder (``collection/`` in the output, with :func:`clirkit.datasets._store.write_variant`) rather
  than adapted on every read: one reader serves every collection (the runner, ``--collection`` on every
  verb), topics in any format are parsed once, the drawn split is kept and visible, ``clirkit collection``
  writes the very same folder, and the folder is an artifact like the index (``sources.json`` records the
  files' digests, so a changed file makes it, and everything after it, again).
- **The output folder** (:mod:`~clirkit.experiment.store`) is made beside it and switched in whole at the end,
  so an interrupted rerun leaves the previous results readable and consistent.
- **Modules**: :mod:`~clirkit.experiment.spec` (the file and its checks; a system's and a fusion's in
  :mod:`~clirkit.experiment.systemchecks`), :mod:`~clirkit.experiment.kinds`,
  :mod:`~clirkit.experiment.artifacts` (the runner's resources), :mod:`~clirkit.experiment.runner`,
  :mod:`~clirkit.experiment.report` and :mod:`~clirkit.experiment.store` (the output folder).
"""

from __future__ import annotations

from clirkit.experiment.artifacts import collection_record
from clirkit.experiment.devsample import sample
from clirkit.experiment.kinds import KINDS
from clirkit.experiment.runner import Result, run_experiment
from clirkit.experiment.spec import DEFAULT_MEASURES, Experiment, shipped, with_overrides

__all__ = [
    "DEFAULT_MEASURES",
    "Experiment",
    "KINDS",
    "Result",
    "collection_record",
    "run_experiment",
    "sample",
    "shipped",
    "with_overrides",
]

_collection_record = collection_record  # its name when this package was one module (tests/test_irds.py)
