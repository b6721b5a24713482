"""Rows of a run or of qrels given in other shapes than arrays (pandas frames, records, dicts), checked as the file
readers check theirs: ids present and such as a run file holds (:func:`first_bad_id`, :data:`ID_RULE`), scores
finite numbers (:func:`finite_scores`), a refused row named as the user sees it (:func:`row_label`, :func:`shown`).

Below :mod:`clirkit.run`, which reads its frames and records with them (and names them for its importers).
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from clirkit.errors import ClirkitError, cut_repr

MAX_ID_LENGTH = 1000  # characters; ids live in fixed-width numpy string arrays
ID_RULE = f"non-empty, without whitespace or NUL, at most {MAX_ID_LENGTH:,} characters"
"""What an id must be for every reader to accept it (:func:`first_bad_id`), in messages."""
_SPACE_CODES = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)  # all are below 0x3001
_ID_SLICE = 100_000  # ids checked at a time
_CODE_SLICE = 1 << 22  # code points checked at a time, when no row is looked at


def frame_ids(frame, what: str, value: str, rows: str) -> tuple[np.ndarray, np.ndarray]:
    """The query ids and document ids (``docno``, else ``docid``) of ``frame`` as str arrays; ClirkitError naming
    the columns it lacks (``value``: the other column it needs), or saying it has no row (``rows``: what its rows
    are, ``results``), as for an empty file."""
    columns = getattr(frame, "columns", None)
    if columns is None:
        raise ClirkitError(f"{what}: expected a pandas DataFrame, got {type(frame).__name__}")
    doc = "docno" if "docno" in columns else "docid"
    missing = [c for c in ("qid", doc, value) if c not in columns]
    if missing:
        wanted = " or ".join(("docno", "docid")) if doc in missing else doc
        names = [wanted if c == doc else c for c in missing]
        raise ClirkitError(
            f"{what}: no {', no '.join(names)} column (its columns: {', '.join(map(str, columns)) or 'none'})"
        )
    if len(frame) == 0:
        raise ClirkitError(f"{what}: empty: no {rows} found (it has the columns but no row)")
    check_frame_ids(frame, ("qid", doc), what)
    for column in ("qid", doc):
        if frame[column].dtype.kind == "f":  # 1.0 would become the id "1.0", matching no qrels' "1"
            raise ClirkitError(
                f"{what}: the {column} column holds floating-point numbers ({shown(frame[column].iloc[0])}): "
                f"give ids as strings (or whole numbers)"
            )
    return frame["qid"].astype(str).to_numpy(dtype=str), frame[doc].astype(str).to_numpy(dtype=str)


def id_array(values, what: str) -> np.ndarray:
    """The ids ``values`` (a list, an array) as a str array, whole numbers in decimal; ClirkitError ``WHAT hold
    floating-point numbers (1.0): give ids as strings (or whole numbers)`` for floats (``1.0`` would become the id
    ``"1.0"``, matching no qrels' ``"1"``) and booleans, as a frame's id column (:func:`frame_ids`)."""
    ids = np.asarray(values)
    if ids.size and ids.dtype.kind in "fcb":
        kind = "booleans" if ids.dtype.kind == "b" else "floating-point numbers"
        raise ClirkitError(f"{what} hold {kind} ({shown(ids.flat[0])}): give ids as strings (or whole numbers)")
    if ids.size == 0:
        return np.zeros(0, dtype="<U1")
    return ids if ids.dtype.kind == "U" else ids.astype(str)


def first_bad_id(ids: np.ndarray, *, readable: bool = True) -> tuple[int, str] | None:
    """The position in ``ids`` (a str array) of the first id a run or qrels file cannot hold, and its problem:
    ``is empty``, ``contains whitespace`` or ``contains a lone surrogate`` (no UTF-8 text holds one); with
    ``readable`` also what the readers refuse (:func:`clirkit.formats.check_id`): ``contains a NUL character``,
    ``is longer than 1,000 characters`` (:data:`MAX_ID_LENGTH`). None when there is none. Checked on the code
    points, slice by slice, without a Python string per id (a NUL at an id's end is lost in a numpy string array
    before any check)."""
    ids = np.ascontiguousarray(ids if ids.dtype.kind == "U" else ids.astype(str))
    width = ids.dtype.itemsize // 4
    if not len(ids) or not width:
        return (0, "is empty") if len(ids) else None
    chars = ids.view(np.uint32).reshape(len(ids), width)
    for lo in range(0, len(ids), _ID_SLICE):
        part = chars[lo : lo + _ID_SLICE]
        if _plain(part, ids[lo : lo + _ID_SLICE], readable=readable):
            continue
        found = [
            (part[:, 0] == 0, "is empty"),
            (np.isin(part, _SPACE_CODES).any(axis=1), "contains whitespace"),
            (surrogate_rows(part), "contains a lone surrogate (no UTF-8 text holds one)"),
        ]
        if readable:
            found.append((((part[:, :-1] == 0) & (part[:, 1:] != 0)).any(axis=1), "contains a NUL character"))
            if width > MAX_ID_LENGTH:
                found.append((part[:, MAX_ID_LENGTH] != 0, f"is longer than {MAX_ID_LENGTH:,} characters"))
        rows = [(int(np.argmax(bad)), problem) for bad, problem in found if bad.any()]
        if rows:
            row, problem = min(rows, key=lambda r: r[0])
            return lo + row, problem
    return None


def surrogate_rows(chars: np.ndarray) -> np.ndarray:
    """For each row of a (row, code point) uint32 matrix of ids, whether it holds a lone surrogate (U+D800 to
    U+DFFF, which no UTF-8 text holds)."""
    return ((chars >= 0xD800) & (chars <= 0xDFFF)).any(axis=1)


def _plain(part: np.ndarray, ids: np.ndarray, *, readable: bool) -> bool:
    """Whether the ids ``ids`` (their code points ``part``, 0-padded) surely hold none of :func:`first_bad_id`'s
    problems, seen on all their code points at once (a row at a time is 5 to 10 times slower): none empty, no code
    point from 1 to 32 or from 133 up (every whitespace is one), and, ``readable``, as many code points that are not
    0 as the ids' lengths add up to (no NUL inside), none longer than :data:`MAX_ID_LENGTH`. False: look row by row."""
    lengths = np.char.str_len(ids)
    if not lengths.all():
        return False
    flat, filled = part.reshape(-1), 0
    for lo in range(0, len(flat), _CODE_SLICE):  # a code point of 1 to 32: more of them up to 32 than not 0
        points = flat[lo : lo + _CODE_SLICE]
        nonzero = np.count_nonzero(points)
        if np.count_nonzero(points <= 32) != len(points) - nonzero or (points >= 133).any():
            return False
        filled += nonzero
    return not readable or (filled == int(lengths.sum()) and int(lengths.max()) <= MAX_ID_LENGTH)


READ_COLUMNS = ("qid", "query", "docno", "docid", "score", "label", "rel", "text")  # a frame's columns clirkit reads


def check_frame_ids(frame, columns: Iterable[str], what: str) -> None:
    """ClirkitError naming the first row of the DataFrame ``frame`` whose id in one of ``columns`` is missing (NaN,
    None, NA), which would otherwise become the id ``nan`` or ``None``: ``WHAT: row 3 has no qid (nan); give every
    row its id``, the row named by its index label; or, as text, is no id a run file can hold (empty, with
    whitespace: :func:`first_bad_id`): ``WHAT: row 3 has qid 'a b', which contains
    whitespace; ...``. Columns of more than one level (a pandas MultiIndex), and a column clirkit reads
    (:data:`READ_COLUMNS`) given twice, are refused: ``frame[column]`` is no column of ids there."""
    columns = list(columns)
    if getattr(frame.columns, "nlevels", 1) > 1:
        raise ClirkitError(
            f"{what}: its columns have {frame.columns.nlevels} levels (a MultiIndex: {list(frame.columns)[:3]}); "
            f"give columns of one level, named {', '.join(columns)}"
        )
    names = list(frame.columns)
    repeated = next((c for c in names if c in READ_COLUMNS and names.count(c) > 1), None)
    if repeated is not None:
        raise ClirkitError(
            f"{what}: its column {repeated} appears {names.count(repeated)} times; give each column once"
        )
    for column in columns:
        missing = frame[column].isna().to_numpy()
        if missing.any():
            pos = int(np.flatnonzero(missing)[0])
            raise ClirkitError(
                f"{what}: row {row_label(frame, pos)} has no {column} "
                f"({shown(frame[column].iloc[pos])}); give every row its {column}"
            )
        texts = frame[column].astype(str)
        ids = texts.to_numpy(dtype=str)
        bad = first_bad_id(ids)
        if bad is None:  # a NUL at an id's end is gone from the numpy array: seen in the lengths
            cut = np.flatnonzero(texts.str.len().to_numpy() != np.char.str_len(ids))
            bad = (int(cut[0]), "contains a NUL character") if len(cut) else None
        if bad is not None:
            pos, problem = bad
            raise ClirkitError(
                f"{what}: row {row_label(frame, pos)} has {column} {shown(frame[column].iloc[pos])}, which "
                f"{problem}; give every row a {column} a run file can hold ({ID_RULE})"
            )


def row_label(frame, pos: int) -> str:
    """The index label of row ``pos`` of ``frame``, as the user sees it (``3``, ``'a'``)."""
    return shown(frame.index[pos])


def shown(value) -> str:
    """``value`` as the user wrote it, at most 40 characters: a numpy scalar as its Python value (``nan``, not
    ``np.float64(nan)``)."""
    return cut_repr(value.item() if isinstance(value, np.generic) else value)


def frame_scores(frame, what: str) -> np.ndarray:
    """The ``score`` column of ``frame`` as float64; ClirkitError naming the first row whose score is not a finite
    number (a text, a missing value, an infinity) and its value."""
    return finite_scores(frame["score"].to_numpy(), lambda i: f"{what}: row {row_label(frame, i)}")


def finite_scores(values, row_of) -> np.ndarray:
    """``values`` (a list or array of scores) as float64; ClirkitError ``ROW has score V, not a finite number``
    for the first that is not one (a text, None, NaN, an infinity, an int beyond the float range), ``row_of(i)``
    naming its row."""
    try:
        scores = real_scores(values)
    except (TypeError, ValueError, OverflowError):
        pos = next((i for i, v in enumerate(values) if not _is_number(v)), 0)
    else:
        bad = np.flatnonzero(~np.isfinite(scores))
        if not len(bad):
            return scores
        pos = int(bad[0])
    raise ClirkitError(
        f"{row_of(pos)} has score {shown(values[pos])}, not a finite number; give every row a number such as 12.5"
    )


def real_scores(values) -> np.ndarray:
    """``values`` as float64; TypeError for complex numbers (numpy casts an array of them to its real parts with
    only a warning, which would rank by the real part in silence) and for booleans (read as 1 and 0)."""
    if np.iscomplexobj(values):
        raise TypeError("complex numbers are not scores")
    given = np.asarray(values)
    if given.dtype.kind == "b":
        raise TypeError("booleans are not scores")
    return np.asarray(given, dtype=np.float64)


def _is_number(value) -> bool:
    if np.iscomplexobj(value):
        return False
    try:
        return bool(np.isfinite(float(value)))
    except (TypeError, ValueError, OverflowError):
        return False


def record_columns(records: Iterable, fields: tuple[str, ...], what: str, example: str) -> tuple[list, ...]:
    """The values of ``fields`` over ``records``, one list per field; ClirkitError naming the first record without
    one of them."""
    columns: tuple[list, ...] = tuple([] for _ in fields)
    for n, record in enumerate(records, 1):
        try:
            for column, name in zip(columns, fields):
                column.append(getattr(record, name))
        except AttributeError:
            raise ClirkitError(
                f"{what} (number {n}) has no {name} field: expected {', '.join(fields)} "
                f"(e.g. {example}), got {type(record).__name__}"
            ) from None
    return columns
