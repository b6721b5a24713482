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
    return _one_word(text) and ("/" in text or os.sep in text or text.lower().endswith(_TOPIC_SUFFIXES))


def names_a_topics_file(text: str) -> bool:
    """Whether ``text`` is one word with a topics file's suffix (``q.tsv``), or with a folder naming an existing file
    (``data/q``): what a system's ``search`` refuses as one query's text (``AC/DC`` and ``cat`` are searched)."""
    if not _one_word(text):
        return False
    return text.lower().endswith(_TOPIC_SUFFIXES) or (("/" in text or os.sep in text) and os.path.isfile(text))


def _one_word(text: str) -> bool:
    return bool(text) and not any(c.isspace() for c in text)


_TOPIC_SUFFIXES = (".tsv", ".jsonl", ".json", ".xml", ".sgml", ".trec", ".txt", ".gz")
