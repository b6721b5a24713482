"""Keys of an experiment file that the rest of the file leaves without effect, refused when the file is read
(:meth:`~clirkit.experiment.spec.Experiment.from_dict`): ``[table] iterations`` when no system trains IBM Model 1,
a system's ``table_format`` when it reads no table file, a psq system's query-side key when it translates the
documents, ``train_queries`` when no system learns.
Each check takes the file's name (``where``, for the message) and the experiment read from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from clirkit.errors import ClirkitError
from clirkit.experiment.kinds import KINDS, system_class

if TYPE_CHECKING:
    from clirkit.experiment.spec import Experiment


def reads_a_table(spec: Mapping[str, Any]) -> bool:
    """Whether a system (its keys ``spec``, checked) translates with a table: its kind has a ``table`` key (dt,
    psq, querypsq, docpsq; not bm25, boost, scs, run)."""
    return "table" in system_class(spec["kind"]).file_keys


def trains_ibm1(spec: Mapping[str, Any], table_file: bool) -> bool:
    """Whether a system (its keys ``spec``) trains IBM Model 1 on the parallel corpus, ``table_file`` saying whether
    ``[table]`` names a file: one naming ``"ibm1"`` (``table`` or ``table2``), or one that leaves out ``table``
    and translates the documents (docpsq, psq with ``translate = "documents"``: its table is trained the other way;
    psq with ``translate = "auto"`` and a ``table2``, which may place it there) or has no ``[table] file`` to read
    instead."""
    if not reads_a_table(spec):
        return False
    table, table2 = spec.get("table"), spec.get("table2")
    if "ibm1" in (table, table2):
        return True
    if table is not None:
        return False
    side = side_written(spec)
    return side == "documents" or not table_file or (side == "auto" and table2 is not None)


def side_written(spec: Mapping[str, Any]) -> str:
    """The side a system (its keys ``spec``) translates as its file says: ``documents`` (docpsq, psq with
    ``translate = "documents"``), ``auto`` (psq left to choose) or ``queries`` (the others)."""
    return {"docpsq": "documents", "psq": spec.get("translate", "auto")}.get(spec["kind"], "queries")


def reads_table_files(spec: Mapping[str, Any], table_file: bool) -> bool:
    """Whether a system (its keys ``spec``) reads a table file: its ``table`` or ``table2`` names one, or it leaves
    out ``table`` on the queries' side (or psq's ``auto``) and ``[table]`` names a file (``table_file``)."""
    if any(spec.get(key) not in (None, "ibm1") for key in ("table", "table2")):
        return True
    return table_file and "table" not in spec and side_written(spec) != "documents"


def check_table_formats(where: str, exp: "Experiment") -> None:
    """ClirkitError for a system's ``table_format`` when it reads no table file (:func:`reads_table_files`): its
    tables are IBM Model 1's, as ``[table] format`` without a file is refused; and for a text format (the system's
    ``table_format``, else ``[table] format``) when every table file it reads is an npz table
    (:func:`~clirkit.translation.tableio.check_named_format`: read as npz, the format would be ignored)."""
    from clirkit.experiment.systemchecks import relative
    from clirkit.translation.tableio import check_named_format

    table_file = "file" in exp.table
    for name, spec in exp.systems.items():
        if "table_format" in spec and not reads_table_files(spec, table_file):
            raise ClirkitError(
                f"{where}: system {name!r}: table_format applies to a table file (the system's table = FILE or "
                "table2 = FILE, or [table] file for a table of the queries), and it reads none: remove table_format"
            )
        key = "table_format" if "table_format" in spec else "[table] format"
        files = [str(spec[k]) for k in ("table", "table2") if spec.get(k) not in (None, "ibm1")]
        if table_file and "table" not in spec and side_written(spec) != "documents":
            files.append(exp.table["file"])
        try:
            check_named_format(
                [relative(f, exp.source) for f in files],
                spec.get("table_format") or exp.table.get("format", "auto"),
                key,
            )
        except ClirkitError as exc:
            raise ClirkitError(f"{where}: system {name!r}: {exc}") from None


def check_iterations(where: str, exp: "Experiment") -> None:
    """ClirkitError for ``[table] iterations`` when no system trains IBM Model 1 (:func:`trains_ibm1`): each reads
    a table file (``[table] file``, or its own ``table = FILE``), or none translates with a table."""
    table_file = "file" in exp.table
    systems = exp.systems.values()
    if "iterations" not in exp.table or any(trains_ibm1(s, table_file) for s in systems):
        return
    translating = [s for s in systems if reads_a_table(s)]
    why = (
        "no system translates with a table"
        if not translating
        else "the table file is read"
        if all(s.get("table") is None for s in translating)
        else "the table files are read"
    )
    raise ClirkitError(
        f"{where}: [table]: iterations applies to IBM Model 1 trained on the parallel corpus, and no system "
        f"trains it ({why}): remove iterations"
    )


def documents_by_default(spec: Mapping[str, Any], table_file: bool) -> bool:
    """Whether a psq system (its keys ``spec``) with ``translate = "auto"`` translates the documents whatever its
    files hold: its table is IBM Model 1, which the runner trains both ways (``table = "ibm1"``, or ``table`` left
    out and no ``[table] file``), and it has no ``table2``
    (:meth:`~clirkit.estimator.Resources.translates_documents`)."""
    table = spec.get("table")
    return "table2" not in spec and (table == "ibm1" or (table is None and not table_file))


def check_query_side_keys(where: str, exp: "Experiment") -> None:
    """ClirkitError for a key of a psq system that only translating the queries reads
    (:data:`~clirkit.psqsystem.QUERY_SIDE_ONLY`: ``mode``, ``target_stopwords_top``, ...) when the system translates
    the documents: with ``translate = "documents"`` (there the key does nothing, even at its default), or with
    ``translate = "auto"`` where it translates the documents (:func:`documents_by_default`), which such a key
    set away from its default would switch to the queries, unsaid: ``translate = "queries"`` says so."""
    from clirkit.psqsystem import QUERY_SIDE_ONLY

    table_file = "file" in exp.table
    for name, spec in exp.systems.items():
        side = side_written(spec)
        if (
            spec["kind"] != "psq"
            or side == "queries"
            or (side == "auto" and not documents_by_default(spec, table_file))
        ):
            continue
        for key in (k for k in QUERY_SIDE_ONLY if k in spec):
            why, fix = (
                ('translate = "documents"', f"remove {key}")
                if side == "documents"
                else (
                    "this psq system translates the documents (through IBM Model 1, trained both ways on the "
                    "parallel corpus)",
                    f'add translate = "queries" to translate the queries, or remove {key}',
                )
            )
            raise ClirkitError(f"{where}: system {name!r}: {key} applies to translating the queries, and {why}: {fix}")


def check_train_queries(where: str, exp: "Experiment", *, written: bool) -> None:
    """ClirkitError for ``train_queries`` (``written`` in the file, even at its default) when no system learns
    from the training queries: none keeps a model (``keeps_model``: boost, scs)."""
    if not written or any(system_class(spec["kind"]).keeps_model for spec in exp.systems.values()):
        return
    learners = " or ".join(kind for kind in KINDS if system_class(kind).keeps_model)
    raise ClirkitError(
        f"{where}: train_queries applies to a system that learns from the training queries (kind {learners}), "
        "and there is none: remove train_queries"
    )
