"""Checks of the rows of a run and of qrels, each over whole arrays (no Python step per row): a run's scores
finite and in rank order within each query (:func:`check_score_order`), whole-number grades (:func:`whole_grades`),
the query whose rows come in two groups (:func:`split_query`), an empty id (:func:`first_empty`) and a document
listed twice for a query (:func:`repeated_pair` over any rows, :func:`repeated_document` over rows grouped by
query).

Below :mod:`clirkit.run`, which calls them when a Run or Qrels is made; they know nothing of those classes.
"""

from __future__ import annotations

import numpy as np

from clirkit import hashing  # (its functions looked up when called: a test may replace them)
from clirkit.errors import ClirkitError
from clirkit.runinputs import shown, surrogate_rows
from clirkit.sortedunique import sorted_unique

_INT64_END = 2.0**63  # the first float beyond int64 (-2**63 is the lowest int64 and an exact float)
_CELLS = 1 << 21  # hashes sorted at a time by repeated_document (8 MiB)


def check_score_order(qids: np.ndarray, docids: np.ndarray, scores: np.ndarray, starts: np.ndarray) -> None:
    """ClirkitError unless each query's scores (``starts``: the offsets of the queries' rows, then ``len(scores)``)
    do not rise from a row to the next, ties allowed; and for a score that is not a finite number: NaN has no place
    in such an order, and no run file holds an infinity.

    Args:
        qids, docids: the rows' ids (str arrays), named in the message.
        scores: float64, one per row.
        starts: int64, the first row of each query and the number of rows.
    """
    finite = np.isfinite(scores)
    if not finite.all():
        i = int(np.argmin(finite))
        shown = "NaN" if np.isnan(scores[i]) else repr(float(scores[i]))
        raise ClirkitError(
            f"Run score of query {qids[i]}, document {docids[i]} is {shown}: give every row a finite number"
        )
    rising = scores[1:] > scores[:-1]  # (compared, not subtracted: finite scores near 1e308 overflow a difference)
    rising[starts[1:-1] - 1] = False  # a query's first row against the previous query's last
    if rising.any():
        i = int(np.argmax(rising)) + 1
        rank = i - int(starts[np.searchsorted(starts, i, side="right") - 1]) + 1  # within the query
        raise ClirkitError(
            f"Run rows of query {qids[i]} are not in score order (rank {rank} scores {float(scores[i])!r} after "
            f"{float(scores[i - 1])!r}): build it with Run.ranked"
        )


def whole_grades(values, what: str, at=None) -> np.ndarray:
    """``values`` (an array or list of grades) as int64; integers as they are, numbers that are whole and within
    int64 (``1.0``) converted. ClirkitError ``WHAT must be whole numbers (grades), got V`` naming the first that
    is not (``0.5``, NaN; ``1e20``: beyond int64), or ``WHAT is not a number, got V`` (a text, None); ``at(i)``,
    when given, names the row of position ``i`` (``row 3``), added as `` at row 3``."""
    where = (lambda i: f" at {at(i)}") if at is not None else (lambda i: "")
    try:
        given = np.asarray(values)
        if given.dtype.kind == "b":  # True is no grade (numpy would read it as 1)
            raise TypeError
        exact = _exact_integers(given)
        if exact is not None:
            return exact
        grades = np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        flat = list(np.asarray(values, dtype=object).reshape(-1))
        i = next((k for k, v in enumerate(flat) if not _is_float(v)), 0)
        got = f", got {shown(flat[i])}" if flat else ""
        raise ClirkitError(f"{what} is not a number{got}{where(i)}") from None
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(grades) | (grades != np.round(grades)) | (grades < -_INT64_END) | (grades >= _INT64_END)
    if bad.any():
        i = int(np.argmax(bad))
        value, grade = given.reshape(-1)[i], grades.reshape(-1)[i]
        whole = np.isfinite(grade) and grade == np.round(grade)
        rule = "whole numbers (grades) within int64 (|grade| < 2**63)" if whole else "whole numbers (grades)"
        raise ClirkitError(f"{what} must be {rule}, got {getattr(value, 'item', lambda: value)()!r}{where(i)}")
    return grades.astype(np.int64)


def _is_float(value) -> bool:
    """Whether ``float(value)`` works (a number, or a text of one)."""
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _exact_integers(given: np.ndarray) -> np.ndarray | None:
    """``given`` as int64 when it holds integers within int64, converted exactly (no float64 on the way: 2**53 + 1
    stays itself); None when it holds anything else (floats, an integer beyond int64), for the float path to
    judge. An integer dtype is compared in integer space; an object array is converted to int64 and kept when
    every converted value equals its original (Python's comparison, exact for ints: ``0.5`` truncated to 0 is
    not kept)."""
    if given.dtype.kind in "bi":
        return given.astype(np.int64)
    if given.dtype.kind == "u":
        fits = not given.size or given.max() <= np.iinfo(np.int64).max  # (integer against integer: no rounding)
        return given.astype(np.int64) if fits else None
    if given.dtype.kind != "O":
        return None
    try:
        exact = given.astype(np.int64)
    except (TypeError, ValueError, OverflowError):  # NaN, inf, beyond int64, no number
        return None
    return exact if bool((exact == given).all()) else None


def split_query(order: np.ndarray) -> str:
    """The first query of ``order`` (each group's query id, in row order) that owns two groups of rows."""
    _, first, counts = np.unique(order, return_index=True, return_counts=True)
    return str(order[first[counts > 1].min()])


def first_empty(ids: np.ndarray) -> int | None:
    """The position of the first empty id of ``ids`` (a str array), None when there is none: the first code point
    of each id is looked at, and only the ids where it is 0 measured."""
    if not len(ids) or not ids.dtype.itemsize:
        return 0 if len(ids) else None
    ids = np.ascontiguousarray(ids)
    maybe = np.flatnonzero(ids.view(np.uint32)[:: ids.dtype.itemsize // 4] == 0)
    empty = maybe[np.char.str_len(ids[maybe]) == 0] if len(maybe) else maybe
    return int(empty[0]) if len(empty) else None


def first_surrogate(ids: np.ndarray) -> int | None:
    """The position of the first id of ``ids`` (a str array) holding a lone surrogate (U+D800-U+DFFF: no UTF-8
    text, so no run or qrels file, holds one), None when there is none; checked on the code points."""
    if not len(ids) or not ids.dtype.itemsize:
        return None
    bad = surrogate_rows(np.ascontiguousarray(ids).view(np.uint32).reshape(len(ids), -1))
    return int(np.argmax(bad)) if bad.any() else None


def repeated_pair(codes: np.ndarray, docids: np.ndarray) -> tuple[int, int] | None:
    """The first row whose (code, docid) pair an earlier row holds, and that earlier row; None when no pair repeats
    (the readers' test for a repeat, and the writers' for the rows to name). The pairs' 64-bit keys are sorted at
    once; only the few rows whose keys repeat are compared exactly."""
    ordered = hashing.pair_keys(codes, docids)
    ordered.sort()  # (in place: no copy of the keys on the common path, where no pair repeats)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(repeated):
        return None
    rows = np.flatnonzero(np.isin(hashing.pair_keys(codes, docids), repeated))
    first: dict[tuple[int, str], int] = {}
    for row, pair in zip(rows.tolist(), zip(codes[rows].tolist(), docids[rows].tolist())):
        if first.setdefault(pair, row) != row:
            return row, first[pair]
    return None  # (keys equal by a hash collision only)


def repeated_document(
    docids: np.ndarray, starts: np.ndarray, given: np.ndarray | None = None
) -> tuple[int, int] | None:
    """:func:`repeated_pair` of rows grouped by query, about 5 times faster: the first row that repeats the
    document of an earlier row of its group, and that earlier row; None when no group lists a document twice.

    Args:
        docids: the rows' documents (str array).
        starts: int64, the first row of each group and the number of rows (group ``g`` is
            ``starts[g]:starts[g + 1]``).
        given: where each row was given, when the rows were ordered from rows given in another order (a
            ranking): "first" and "earlier" are then in that order, and the rows returned are positions there.

    Each group's 32-bit document hashes are sorted on their own (groups of sizes up to the same power of two
    together, as the rows of one padded matrix): a sort of n rows in groups of k costs n log k, not n log n. Only
    the groups where two hashes meet are compared exactly.
    """
    flagged = _groups_with_equal_hashes(_high_words(hashing.string_hash(docids)), starts)
    if not len(flagged):
        return None
    sizes = np.diff(starts)[flagged]
    rows = np.repeat(starts[flagged], sizes) + _offsets(sizes)
    codes = np.repeat(np.arange(len(flagged)), sizes)
    if given is not None:
        in_given_order = np.argsort(given[rows], kind="stable")
        rows, codes = rows[in_given_order], codes[in_given_order]
    hit = repeated_pair(codes, docids[rows])
    if hit is None:
        return None
    found = (int(rows[hit[0]]), int(rows[hit[1]]))
    return found if given is None else (int(given[found[0]]), int(given[found[1]]))


def _groups_with_equal_hashes(hashes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The groups (ascending) in which two rows have the same hash of ``hashes`` (uint32, one per row).

    The groups of more than 2**(e - 1) and at most 2**e rows are laid out as the rows of a matrix as wide as the
    largest of them, padded with the largest uint32 (a run whose queries all hold ``depth`` rows needs no padding,
    nor a copy before the sort), and sorted along the rows: the first ``size`` cells of a sorted row are then
    that group's hashes (the padding is at least as large as any), so two equal neighbours among them are two
    equal hashes of the group."""
    sizes = np.diff(starts)
    many = np.flatnonzero(sizes > 1)
    exponent = np.frexp((sizes[many] - 1).astype(np.float64))[1]  # 2**exponent >= size > 2**(exponent - 1)
    padded = np.append(hashes, np.uint32(np.iinfo(np.uint32).max))  # the padding at position len(hashes)
    flagged = [many[:0]]
    for e in sorted_unique(exponent).tolist():
        of_class = many[exponent == e]
        for lo in range(0, len(of_class), max(1, _CELLS >> e)):
            groups = of_class[lo : lo + max(1, _CELLS >> e)]
            n, first = sizes[groups], starts[groups]
            width = int(n.max())
            if (n == width).all() and (np.diff(groups) == 1).all():  # consecutive groups of one size
                matrix = np.sort(hashes[first[0] : first[0] + len(groups) * width].reshape(len(groups), width), axis=1)
            else:
                column = np.arange(width)
                cells = np.where(column < n[:, None], first[:, None] + column, len(hashes))
                matrix = padded[cells]
                matrix.sort(axis=1)
            equal = matrix[:, 1:] == matrix[:, :-1]
            if equal.any():  # (rarely: a repeat, a hash collision, or padding beside padding)
                flagged.append(groups[(equal & (np.arange(1, width) < n[:, None])).any(axis=1)])
    return np.sort(np.concatenate(flagged))


def _high_words(hashes: np.ndarray) -> np.ndarray:
    """The high 32 bits of each of ``hashes`` (uint64), seen without a copy: the low bits of a
    :func:`~clirkit.hashing.string_hash` depend on every other code point only."""
    return hashes.view(np.uint32)[1::2] if np.little_endian else hashes.view(np.uint32)[::2]


def _offsets(sizes: np.ndarray) -> np.ndarray:
    """Each row's place within its group, for groups of ``sizes`` rows one after another (int64)."""
    return np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)


def first_appearance_codes(ids: np.ndarray) -> np.ndarray:
    """Code of each id of ``ids`` (a str array): the order of its first appearance (int64), computed
    from the runs of equal consecutive ids, so the cost is in the number of runs, not of rows."""
    change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    starts = np.concatenate(([0], change))
    distinct, first, inverse = np.unique(ids[starts], return_index=True, return_inverse=True)
    code_of_distinct = np.empty(len(distinct), dtype=np.int64)
    code_of_distinct[np.argsort(first, kind="stable")] = np.arange(len(distinct))
    return np.repeat(code_of_distinct[inverse.reshape(-1)], np.diff(np.append(starts, len(ids))))
