"""What every system's ``search`` takes beside its topics, checked once for all of them (the wrapper of
:class:`~clirkit.estimator.System`): ``depth`` (:func:`search_depth`), ``excluded`` (:func:`as_excluded`,
:func:`drop_excluded`) and ``tag`` (:func:`~clirkit.formats.ids.check_tag`).

A query's excluded documents are left out before its results are cut at ``depth``: a system ranks
:func:`search_depth` documents per query (``depth`` and as many as the most any query excludes), then
:func:`drop_excluded` removes the excluded ones and keeps each query's first ``depth``, so a query has ``depth``
results whenever the collection has them.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.runinputs import shown
from clirkit.topicforms import query_id

MAX_DEPTH = 2**62  # a deeper search is one of every document (and depth + excluded stays within int64)


class Excluded(dict):
    """``{qid: frozenset of docids}`` made by :func:`as_excluded`: every qid a str, every value a set of str."""


def checked_search_options(options: dict[str, Any], qids: Iterable[str]) -> dict[str, Any]:
    """The keyword arguments ``options`` of a search of the queries ``qids``, checked (ClirkitError, one line, before
    any work): ``depth`` a whole number >= 1 (one beyond :data:`MAX_DEPTH` is that: every document),
    ``excluded`` by :func:`as_excluded`, ``tag`` None or one a run file can hold."""
    from clirkit.run import check_depth

    out = dict(options)
    if "depth" in out:
        check_depth(out["depth"])
        out["depth"] = min(int(out["depth"]), MAX_DEPTH)
    if "excluded" in out:
        out["excluded"] = as_excluded(out["excluded"], qids)
    if out.get("tag") is not None:
        from clirkit.formats.ids import check_tag

        check_tag(out["tag"])
    return out


def as_excluded(excluded, qids: Iterable[str]) -> Excluded | None:
    """``excluded`` (``{qid: docids}``, the documents each query must not return) as :class:`Excluded`, for the
    queries ``qids`` only (None when none of them excludes a document). Its qids are matched as topics' are
    (:func:`~clirkit.topicforms.query_id`: the key ``1`` is query ``"1"``); a str value is one docid, and so is each
    str (or whole number) of a set, list or other iterable. ClirkitError for anything else: not a mapping, a qid
    given twice (``1`` and ``"1"``), a value None or not docids."""
    if not excluded:
        return None
    if not isinstance(excluded, Mapping):
        raise ClirkitError(
            f"excluded: expected {{qid: docids}} (the documents each query must not return), got "
            f"{type(excluded).__name__}"
        )
    given: dict[str, Any] = {}
    out: dict[str, frozenset[str]] = {}
    for n, (key, value) in enumerate(excluded.items(), 1):
        qid = key if type(key) is str else query_id(key, "excluded", f"entry {n}")
        if qid in given:
            raise ClirkitError(f"excluded names query {qid!r} twice ({given[qid]!r} and {key!r}); give each query once")
        given[qid] = key
        out[qid] = _docids(value, qid)
    wanted = {q: out[q] for q in qids if out.get(q)}
    return Excluded(wanted) if wanted else None


def _docids(value, qid: str) -> frozenset[str]:
    """The docids of one query's ``excluded`` value: a str is one, else each of an iterable (whole numbers made
    str, as :meth:`~clirkit.retrieval.index.Index.build` makes a document's id)."""
    if isinstance(value, frozenset) and all(type(d) is str for d in value):
        return value
    if isinstance(value, str):
        return frozenset((value,))
    if value is None or isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise ClirkitError(
            f"excluded: query {qid!r} has {shown(value)}, not its documents: give a set of docids, one docid, or "
            f"leave the query out"
        )
    docids = []
    for d in value:
        if isinstance(d, str):
            docids.append(str(d))
        elif isinstance(d, numbers.Integral) and not isinstance(d, bool):
            docids.append(str(int(d)))
        else:
            raise ClirkitError(
                f"excluded: query {qid!r} lists {shown(d)}, a {type(d).__name__}: give document ids as strings"
            )
    return frozenset(docids)


def search_depth(depth: int, excluded: Mapping[str, frozenset[str]] | None) -> int:
    """How many documents per query a system ranks for ``depth`` results without the ``excluded`` ones (checked by
    :func:`as_excluded`): ``depth`` and the most documents any query excludes."""
    return depth + max(map(len, excluded.values()), default=0) if excluded else depth


def drop_excluded(run, excluded, depth: int | None = None):
    """``run`` without, per query, the documents listed in ``excluded`` (``{qid: docids}``, read by
    :func:`as_excluded`), then with ``depth`` its first ``depth`` rows per query (the run itself when nothing is
    left out)."""
    from clirkit.run import Run

    if not isinstance(excluded, Excluded):
        excluded = as_excluded(excluded, run.query_ids)
    keep = np.ones(len(run), dtype=bool)
    for qid, rows in run.groups() if excluded else ():
        docids = excluded.get(qid)
        if docids:
            keep[rows] = ~np.isin(run.docids[rows], np.asarray(sorted(docids), dtype=str))
    if depth is not None:
        kept = np.cumsum(keep)
        sizes = run.query_sizes()
        before = np.concatenate(([0], kept))[np.repeat(np.cumsum(sizes) - sizes, sizes)]
        keep &= kept - before <= depth
    if keep.all():
        return run
    return Run(run.qids[keep], run.docids[keep], run.scores[keep], tag=run.tag)
