"""The forms in which a user may hand queries to a system's ``search`` (a text, texts, a ``{qid: text}`` dict, a
queries DataFrame, ir_datasets query records), made into one: ``{qid: text}`` (:func:`as_topics`)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from clirkit.errors import ClirkitError

TOPIC_FORMS = (
    "a text, a list of texts, a {qid: text} dict, a DataFrame with qid and query columns, or ir_datasets "
    "queries (namedtuples with query_id and title or text)"
)


def as_topics(topics, *, what: str = "topics") -> Mapping[str, str]:
    """The queries ``topics`` as ``{qid: text}``, from any of :data:`TOPIC_FORMS`:

    - a ``{qid: text}`` mapping: itself (every text must be a str);
    - one text: query ``"1"``; a list or tuple of texts: queries ``"1"``, ``"2"``, ... in order;
    - a pandas DataFrame with ``qid`` and ``query`` columns (PyTerrier's queries frame; a results frame's rows of one
      query, which repeat its text, give it once); a pandas Series ``{qid: text}``;
    - an iterable of ir_datasets query namedtuples (``dataset.queries_iter()``): the id ``query_id`` and the text as
      :func:`clirkit.datasets.load` reads ir_datasets queries (``title``, else ``description``, else ``text``).

    ClirkitError (one line, ``what`` naming the input) for anything else, a query id given twice with two texts, or a
    text that is not a str (a token list, a missing value)."""
    if isinstance(topics, str):
        return {"1": topics}
    if isinstance(topics, Mapping):
        _check_texts(topics.items(), what)
        return topics
    if hasattr(topics, "columns") and hasattr(topics, "itertuples"):  # a pandas DataFrame
        return _frame_topics(topics, what)
    if hasattr(topics, "index") and hasattr(topics, "items") and hasattr(topics, "dtype"):  # a pandas Series
        return _unique_topics(((str(q), t) for q, t in topics.items()), what)
    if isinstance(topics, bytes) or not isinstance(topics, Iterable):
        raise ClirkitError(f"{what}: expected {TOPIC_FORMS}; got {type(topics).__name__}")
    items = list(topics)
    if all(isinstance(t, str) for t in items):
        return {str(i): t for i, t in enumerate(items, 1)}
    if all(isinstance(t, tuple) and hasattr(t, "_fields") for t in items):
        return _record_topics(items, what)
    odd = next(t for t in items if not isinstance(t, str))
    raise ClirkitError(f"{what}: expected {TOPIC_FORMS}; got a {type(topics).__name__} of {type(odd).__name__}")


def _check_texts(pairs: Iterable[tuple[Any, Any]], what: str) -> None:
    for qid, text in pairs:
        if not isinstance(text, str):
            raise ClirkitError(
                f"{what}: the text of query {qid!r} is a {type(text).__name__}, not a str (give each query's text)"
            )


def _unique_topics(pairs: Iterable[tuple[str, Any]], what: str) -> dict[str, str]:
    """``{qid: text}`` of ``(qid, text)`` pairs; a qid repeated with the same text is kept once."""
    out: dict[str, str] = {}
    for qid, text in pairs:
        _check_texts([(qid, text)], what)
        if out.setdefault(qid, text) != text:
            raise ClirkitError(f"{what}: query {qid!r} appears twice with two texts ({out[qid]!r}, {text!r})")
    return out


def _frame_topics(frame, what: str) -> dict[str, str]:
    missing = [c for c in ("qid", "query") if c not in frame.columns]
    if missing:
        raise ClirkitError(
            f"{what}: the DataFrame has no {' and no '.join(missing)} column (its columns: "
            f"{', '.join(map(str, frame.columns)) or 'none'}); a queries frame has qid and query"
        )
    return _unique_topics(zip(frame["qid"].astype(str).tolist(), frame["query"].tolist()), what)


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
    pairs = [(str(getattr(r, id_field)), [getattr(r, f) for f in text_fields]) for r in records]
    for qid, parts in pairs:
        _check_texts([(qid, p) for p in parts], what)
    return _unique_topics(((q, join_text(parts)) for q, parts in pairs), what)
