"""The checks of :meth:`clirkit.boost.BoostModel.rerank`'s inputs, made before any work: each wrong input is one
:class:`~clirkit.errors.ClirkitError` line naming the argument and what it expects, not an error from inside numpy
or scipy, nor a run scored with nothing (a negative ``batch_rows`` scores no row)."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from clirkit.errors import ClirkitError, counted
from clirkit.packedrun import PackedRun, check_count
from clirkit.run import Run, check_depth, check_run_tag
from clirkit.runinputs import shown


def check_rerank(candidates, queries, docids, doc_tokens, *, depth, tag, batch_rows) -> None:
    """ClirkitError unless ``candidates`` is a :class:`~clirkit.run.Run` or a
    :class:`~clirkit.packedrun.PackedRun` whose queries all have a text in ``queries`` (``{qid: tokens}``),
    ``docids`` a list of ids with one token list of ``doc_tokens`` each, ``depth`` an integer >= 1 (or None),
    ``tag`` one a run file can hold (:func:`~clirkit.run.check_run_tag`) and ``batch_rows`` an integer >= 1."""
    if not isinstance(candidates, (Run, PackedRun)):
        raise ClirkitError(
            f"rerank: candidates must be a Run or a PackedRun (the run to re-rank: read_run(path), "
            f"Run.from_dict(...)), got {type(candidates).__name__}"
        )
    if not isinstance(queries, Mapping):
        raise ClirkitError(f"rerank: queries must be a mapping {{qid: tokens}}, got {type(queries).__name__}")
    if isinstance(docids, (str, bytes, Mapping)) or _ndim(docids) != 1:
        raise ClirkitError(f"rerank: docids must be a list of document ids, got {shown(docids)}")
    if isinstance(doc_tokens, (str, bytes, Mapping)) or not hasattr(doc_tokens, "__len__"):
        raise ClirkitError(
            f"rerank: doc_tokens must be a list of token lists, one per docid, got {type(doc_tokens).__name__}"
        )
    if len(doc_tokens) != len(docids):
        raise ClirkitError(
            f"rerank: {counted(len(docids), 'docid')} but {counted(len(doc_tokens), 'token list')} in doc_tokens: "
            "give one token list per document, in the order of docids"
        )
    check_depth(depth, every_row=True)
    check_run_tag(tag)
    check_count(batch_rows, "rerank: batch_rows")
    missing = sorted(set(candidates.query_ids) - set(queries))
    if missing:
        raise ClirkitError(f"the candidate run has queries with no text, e.g. {str(missing[0])!r}")


def _ndim(values) -> int:
    """The dimensions of ``values`` as an array (-1 for nested lists of different lengths)."""
    try:
        return np.ndim(values)
    except ValueError:
        return -1
