"""The kinds of index and the scorer of each: one table, by import path, so that no index module imports a
scorer and no scorer module a kind it does not search (a new kind, e.g. a translated index, is one entry).

- :data:`MANIFESTS`: the ``kind`` a manifest file's header names -> the class that reads it
  (:func:`clirkit.retrieval.shards.load_index`); :data:`FILES`, the same for an index in one file other than
  :class:`~clirkit.retrieval.index.Index`;
- :data:`BM25`: an index class -> the class of its BM25 scorer (``index.bm25(**params)``); a subclass takes its
  closest base class's entry.

What the code asks of a kind, each index class answers itself, as class attributes declared on
:class:`~clirkit.retrieval.index.Index` and :class:`~clirkit.retrieval.shards.ShardedIndex`: ``sharded`` (in
shards) and ``translated`` (documents translated into the queries' language); no module asks an index its type.
Of a file not yet read, :func:`translated` answers by the class its kind names.
"""

from __future__ import annotations

import importlib

MANIFESTS: dict[str, str] = {
    "sharded-index": "clirkit.retrieval.shards:ShardedIndex",
    "sharded-projected-index": "clirkit.docpsq:ShardedProjectedIndex",  # documents translated (clirkit.docpsq)
}

FILES: dict[str, str] = {
    "projected-index": "clirkit.docpsq:ProjectedIndex",  # documents translated, in one file (psq --save-index)
}

BM25: dict[str, str] = {
    "clirkit.retrieval.index:Index": "clirkit.retrieval.bm25:BM25",
    "clirkit.retrieval.shards:ShardedIndex": "clirkit.retrieval.shardsearch:ShardedBM25",
}


def resolve(entry: str):
    """The object ``"module:name"`` names (its module imported on first use)."""
    module, _, name = entry.partition(":")
    return getattr(importlib.import_module(module), name)


def manifest_class(kind: str):
    """The class that reads a manifest of ``kind`` (a key of :data:`MANIFESTS`)."""
    return resolve(MANIFESTS[kind])


def file_class(kind: str):
    """The class that reads an index in one file of ``kind`` (a key of :data:`FILES`)."""
    return resolve(FILES[kind])


def bm25(index, **params):
    """BM25 with ``params`` over ``index``, by the scorer :data:`BM25` names for its class."""
    for cls in type(index).__mro__:
        entry = BM25.get(f"{cls.__module__}:{cls.__qualname__}")
        if entry is not None:
            return resolve(entry)(index, **params)
    raise TypeError(f"no BM25 scorer for an index of type {type(index).__name__}")


def translated(kind: str | None) -> bool:
    """Whether an index file whose header names ``kind`` (None: a file of no kind) holds documents translated into
    the queries' language: what the class :data:`FILES` or :data:`MANIFESTS` names for it says (``translated``);
    an index of any other kind does not."""
    entry = FILES.get(kind or "") or MANIFESTS.get(kind or "")
    return entry is not None and bool(resolve(entry).translated)
