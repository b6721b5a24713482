"""Reading and writing the text formats of IR experiments (SPEC §1), one module per artifact:

- :mod:`~clirkit.formats.queries`: ``qid TAB text``, JSONL ``{"qid": ..., "text": ...}``, and topic files
  (:mod:`~clirkit.formats.topics`: TREC ``<top>``, CLEF and NTCIR XML; :mod:`~clirkit.formats.hc4_topics`:
  HC4/NeuCLIR JSONL) told by content;
- :mod:`~clirkit.formats.documents`: ``docid TAB text`` or JSONL ``{"docid": ..., "text": ...}``, streamed;
- the field names other tools use (ir_datasets ``doc_id``/``query_id``, Pyserini
  ``id``/``contents``, BEIR ``_id``/``title``/``text``) are detected (:func:`choose_fields`)
  or named (``id_field=``, ``text_fields=``); a TSV header line (``docid TAB text``) is
  detected or declared (``header=``) and never read as data (:mod:`~clirkit.formats.records`, what queries
  and documents share);
- :mod:`~clirkit.formats.qrels`: TREC ``qid iter docid rel`` or the 3-column ``qid docid rel``;
- :mod:`~clirkit.formats.runs`: TREC ``qid Q0 docid rank score tag``;
- :mod:`~clirkit.formats.ids`, under them all: what an id may be, read or written.

Reading is strict: every problem is a :class:`~clirkit.errors.ClirkitError`
whose message is ``file:line: problem``. All reading goes through
:func:`clirkit.fileio.iter_lines` (``.gz`` and ``-`` for stdin work
everywhere) and all writing through :func:`clirkit.fileio.atomic_writer`
(nothing half-written; a ``.gz`` name is compressed).

This module re-exports the public names of those modules: ``from clirkit.formats import read_run``.
"""

from __future__ import annotations

from clirkit.formats.documents import iter_documents, iter_located_documents, read_documents, write_documents
from clirkit.formats.ids import MAX_ID_LENGTH, check_id
from clirkit.formats.qrels import read_qrels, write_qrels
from clirkit.formats.queries import read_queries, write_queries
from clirkit.formats.records import (
    DOC_ID_FIELDS,
    DOC_TEXT_FIELDS,
    QUERY_ID_FIELDS,
    QUERY_TEXT_FIELDS,
    TEXT_SEPARATOR,
    choose_fields,
    join_text,
    parse_text_fields,
)
from clirkit.formats.runs import read_run, write_run
from clirkit.run import Qrels, Run

__all__ = [
    "DOC_ID_FIELDS",
    "DOC_TEXT_FIELDS",
    "MAX_ID_LENGTH",
    "QUERY_ID_FIELDS",
    "QUERY_TEXT_FIELDS",
    "TEXT_SEPARATOR",
    "Qrels",
    "Run",
    "check_id",
    "choose_fields",
    "iter_documents",
    "iter_located_documents",
    "join_text",
    "parse_text_fields",
    "read_documents",
    "read_qrels",
    "read_queries",
    "read_run",
    "write_documents",
    "write_qrels",
    "write_queries",
    "write_run",
]
