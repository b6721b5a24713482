"""The forms in which a user may hand queries to a system's ``search`` (a text, texts, a ``{qid: text}`` dict, a
queries DataFrame, ir_datasets query records), made into one: ``{qid: text}`` (:func:`as_topics`), every qid a str
(:func:`query_id`)."""

from __future__ import annotations

import numbers
from collections.abc import Set, ValuesView
from typing import Any, Callable, Iterable, Mapping

from clirkit.errors import ClirkitError
from clirkit.givenpaths import names_a_topics_file
from clirkit.runinputs import shown

TOPIC_FORMS = (
    "a text, a list of texts, a {qid: text} dict, a DataFrame with qid and query columns, or ir_datasets "
    "queries (namedtuples with query_id and title or text)"
)
ID_FORMS = "give ids as strings (or whole numbers)"


def as_topics(topics, *, what: str = "topics") -> Mapping[str, str]:
    """The queries ``topics`` as ``{qid: text}``, from any of :data:`TOPIC_FORMS`:

    - a ``{qid: text}`` mapping: itself when every qid is a str (every text must be a str), else a dict of its
      qids made str (:func:`query_id`: ``{1: text}`` is query ``"1"``);
    - one text: query ``"1"`` (not a topics file's path, as :class:`~clirkit.estimator.Resources` reads one:
      :func:`~clirkit.givenpaths.names_a_topics_file`; a ClirkitError says to read it); a list or tuple of texts:
      queries ``"1"``, ``"2"``, ... in order;
    - a pandas DataFrame with ``qid`` and ``query`` columns (PyTerrier's queries frame; a results frame's rows of one
      query, which repeat its text, give it once); a pandas Series ``{qid: text}``;
    - an iterable of ir_datasets query namedtuples (``dataset.queries_iter()``): the id ``query_id`` and the text as
      :func:`clirkit.datasets.load` reads ir_datasets queries (``title``, else ``description``, else ``text``).

    ClirkitError (one line, ``what`` naming the input) for anything else (a set of texts, whose order, and so the
    queries' numbers, would change from run to run; a dict's values, without its qids), a query id given twice
    with two texts (or twice in a mapping, as ``1`` and ``"1"``), a text that is not a str (a token list, a missing
    value), or a qid that is missing (None, NaN, pandas' NA), a float, no str nor whole number, or no id a run file
    can hold (empty, with whitespace: :func:`clirkit.run.first_bad_id`)."""
    if isinstance(topics, str):
        if names_a_topics_file(topics):
            raise ClirkitError(
                f"{what}: {topics!r} is a topics file's path, not a query: read it with "
                f"clirkit.formats.read_queries({topics!r}) (or give the text in a list to search for it)"
            )
        return {"1": topics}
    if isinstance(topics, Mapping):
        _check_texts(topics.items(), what)
        if all(type(q) is str for q in topics):  # the usual dict reaches the system as it is
            _check_ids(list(topics), what)
            return topics
        return _mapping_topics(topics, what)
    if hasattr(topics, "columns") and hasattr(topics, "itertuples"):  # a pandas DataFrame
        return _frame_topics(topics, what)
    if hasattr(topics, "index") and hasattr(topics, "items") and hasattr(topics, "dtype"):  # a pandas Series
        return _unique_topics(_given_ids(topics.items(), what), what)
    if isinstance(topics, Set):
        raise ClirkitError(
            f"{what}: a set ({type(topics).__name__}) has no order, so each query's number would change from run to "
            f"run: give a list or a dict {{qid: text}}"
        )
    if isinstance(topics, ValuesView):
        raise ClirkitError(f"{what}: a dict's values ({type(topics).__name__}) leave its qids behind: give the dict")
    if isinstance(topics, bytes) or not isinstance(topics, Iterable):
        raise ClirkitError(f"{what}: expected {TOPIC_FORMS}; got {type(topics).__name__}")
    items = list(topics)
    if all(isinstance(t, str) for t in items):
        return {str(i): t for i, t in enumerate(items, 1)}
    if all(isinstance(t, tuple) and hasattr(t, "_fields") for t in items):
        return _record_topics(items, what)
    odd = next(t for t in items if not isinstance(t, str))
    raise ClirkitError(f"{what}: expected {TOPIC_FORMS}; got a {type(topics).__name__} of {type(odd).__name__}")


def query_id(qid, what: str, place: str) -> str:
    """``qid`` as the str a run names it by: a str as it is, a whole number (an int, a numpy integer) in decimal.
    ClirkitError ``WHAT: PLACE has no qid (None); ...`` for a missing one (None, NaN, pandas' NA), and ``WHAT: PLACE
    has qid 1.0, a float: give ids as strings (or whole numbers)`` for a float, a bool or anything else
    (``place``: ``query 2``, ``row 3``)."""
    if isinstance(qid, str):
        return str(qid)
    if isinstance(qid, numbers.Integral) and not isinstance(qid, bool):
        return str(int(qid))
    if _missing(qid):
        raise ClirkitError(f"{what}: {place} has no qid ({shown(qid)}); give every query its qid")
    raise ClirkitError(f"{what}: {place} has qid {shown(qid)}, a {type(qid).__name__}: {ID_FORMS}")


def _missing(value) -> bool:
    """Whether ``value`` stands for no value: None, a NaN, pandas' NA or NaT."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, numbers.Real) and value != value


def _check_texts(pairs: Iterable[tuple[Any, Any]], what: str) -> None:
    for qid, text in pairs:
        if not isinstance(text, str):
            raise ClirkitError(
                f"{what}: the text of query {qid!r} is a {type(text).__name__}, not a str (give each query's text)"
            )


def _check_ids(qids: list[str], what: str) -> None:
    """ClirkitError for the first of ``qids`` that no run file can hold (:func:`clirkit.run.first_bad_id`: empty,
    with whitespace or NUL, too long)."""
    import numpy as np

    from clirkit.run import ID_RULE, first_bad_id

    bad = first_bad_id(np.asarray(qids, dtype=str)) if qids else None
    if bad is None and "\0" in "".join(qids):  # a NUL at an id's end is gone from the numpy array
        bad = next(i for i, q in enumerate(qids) if "\0" in q), "contains a NUL character"
    if bad is not None:
        raise ClirkitError(
            f"{what}: query id {shown(qids[bad[0]])} {bad[1]}; give every query an id a run file can hold ({ID_RULE})"
        )


def _given_ids(pairs: Iterable[tuple[Any, Any]], what: str, place: Callable[[int], str] | None = None):
    """``(qid, text)`` of ``pairs``, each qid made a str by :func:`query_id` (``place(i)`` naming the i-th pair,
    from 0: ``query i+1`` by default)."""
    for i, (qid, text) in enumerate(pairs):
        yield query_id(qid, what, place(i) if place else f"query {i + 1}"), text


def _mapping_topics(topics: Mapping, what: str) -> dict[str, str]:
    """``{qid: text}`` of a mapping some of whose qids are not str; a qid given twice (``1`` and ``"1"``) refused."""
    out: dict[str, str] = {}
    given: dict[str, Any] = {}
    for (qid, text), key in zip(_given_ids(topics.items(), what), topics):
        if qid in out:
            raise ClirkitError(f"{what} name query {qid!r} twice ({given[qid]!r} and {key!r}); give each query once")
        out[qid], given[qid] = text, key
    _check_ids(list(out), what)
    return out


def _unique_topics(pairs: Iterable[tuple[str, Any]], what: str) -> dict[str, str]:
    """``{qid: text}`` of ``(qid, text)`` pairs; a qid repeated with the same text is kept once."""
    out: dict[str, str] = {}
    for qid, text in pairs:
        _check_texts([(qid, text)], what)
        if out.setdefault(qid, text) != text:
            raise ClirkitError(f"{what}: query {qid!r} appears twice with two texts ({out[qid]!r}, {text!r})")
    _check_ids(list(out), what)
    return out


def _frame_topics(frame, what: str) -> dict[str, str]:
    from clirkit.run import check_frame_ids

    missing = [c for c in ("qid", "query") if c not in frame.columns]
    if missing:
        raise ClirkitError(
            f"{what}: the DataFrame has no {' and no '.join(missing)} column (its columns: "
            f"{', '.join(map(str, frame.columns)) or 'none'}); a queries frame has qid and query"
        )
    check_frame_ids(frame, ["qid"], what)
    labels = frame.index.tolist()
    pairs = zip(frame["qid"].tolist(), frame["query"].tolist())
    return _unique_topics(_given_ids(pairs, what, lambda i: f"row {shown(labels[i])}"), what)


def _record_topics(records: list, what: str) -> dict[str, str]:
    from clirkit.formats import choose_fields, join_text

    kinds = {type(r) for r in records}
    if len(kinds) > 1:
        raise ClirkitError(f"{what}: records of {len(kinds)} kinds ({', '.join(sorted(k.__name__ for k in kinds))})")
    fields = records[0]._fields
    try:
        id_field, text_fields = choose_fields(
            fields, "query", noun="field", id_hint="give {qid: text} instead", text_hint="give {qid: text} instead"
        )
    except ClirkitError as exc:
        raise ClirkitError(f"{what}: {exc}") from None
    ids = _given_ids(((getattr(r, id_field), None) for r in records), what)
    pairs = [(qid, [getattr(r, f) for f in text_fields]) for (qid, _), r in zip(ids, records)]
    for qid, parts in pairs:
        _check_texts([(qid, p) for p in parts], what)
    return _unique_topics(((q, join_text(parts)) for q, parts in pairs), what)
