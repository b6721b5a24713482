"""Topics and qrels given to :class:`~clirkit.estimator.Resources` as paths: read when they are paths, as an index
or a table given as a path is opened."""

from __future__ import annotations

import os


def read_if_path(given, what: str, lang: str | None = None):
    """``given`` read as a ``what`` file (``"queries"``, ``"qrels"``) when a path: an ``os.PathLike``, or a str (of
    queries, one naming a file or written as a path: one word with a folder or a topics file's suffix, e.g.
    ``tr.tsv``; another str is one query's text); else ``given`` itself. ``lang``, the queries' language, chooses
    among a topic's versions in several languages (HC4, CLEF), as ``--source-lang`` does."""
    if isinstance(given, os.PathLike) or (isinstance(given, str) and (what == "qrels" or _a_path(given))):
        from clirkit.formats import read_qrels, read_queries

        return read_queries(given, lang=lang) if what == "queries" else read_qrels(given)
    return given


def _a_path(text: str) -> bool:
    """Whether ``text`` names a topics file: an existing file, or one word with a folder or a topics file's suffix
    (a mistyped path is said missing, not searched as a query)."""
    if os.path.isfile(text):
        return True
    word = bool(text) and not any(c.isspace() for c in text)
    return word and ("/" in text or os.sep in text or text.lower().endswith(_TOPIC_SUFFIXES))


_TOPIC_SUFFIXES = (".tsv", ".jsonl", ".json", ".xml", ".sgml", ".trec", ".txt", ".gz")
