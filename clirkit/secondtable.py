"""The checks of a second translation table interpolated with the first (``table2``, ``--table2``, a reverse
table's ``reverse_table2``): not the first given again, and its query-language words analyzed as the first's.
Each is a :class:`~clirkit.tablefit.SecondTableMismatch`, which the command line names with the second file."""

from __future__ import annotations

from clirkit.tablefit import OLDER, SecondTableMismatch, analyses_differ, same_terms


def same_table(first: str, second: str) -> str:
    """The error of one table given twice, as ``first`` and as ``second`` (what the caller calls them: ``table`` and
    ``table2`` in Python, ``--table`` and ``--table2`` on the command line)."""
    return f"given as {first} and {second}: interpolating a table with itself changes nothing"


def check_second_table(table, table2, names: tuple[str, str] = ("table", "table2")) -> None:
    """:class:`SecondTableMismatch` (:func:`same_table`, named by ``names``) when ``table2`` is ``table``: the same
    table object, or paths of one file (as the command line refuses one file given twice). Tables equal but made
    apart (IBM Model 1 trained here and a file trained alike) are two tables."""
    import os

    from clirkit.fileio import same_file

    if table is None or table2 is None:
        return
    paths = isinstance(table, (str, os.PathLike)) and isinstance(table2, (str, os.PathLike))
    if table2 is table or (paths and same_file(table, table2)):
        raise SecondTableMismatch(same_table(*names))


def check_second_query_words(second, first) -> None:
    """:class:`SecondTableMismatch` when a second table's query-language words (``second``, the analyzer they were
    made by) were analyzed otherwise than the first table's (``first``): its query words would never match."""
    if not same_terms(second, first):
        how = analyses_differ(second, first, "the first table's")
        raise SecondTableMismatch(
            f"its query-language words were analyzed {how}: make both with the same analysis "
            f"({'--stemmer, --keep-case' if how.startswith('as ') else OLDER})"
        )
