"""The retrieval engine: monolingual indexes and their scoring, below every cross-language method.

- :mod:`~clirkit.retrieval.index`: the index (:class:`~clirkit.retrieval.index.Index`: postings, df, lengths)
  and its collection statistics, :mod:`~clirkit.retrieval.tokenlists` the checks of its input's token lists and
  analyzer; :mod:`~clirkit.retrieval.shards` (:class:`~clirkit.retrieval.shards.ShardedIndex`)
  and :mod:`~clirkit.retrieval.shardfiles`: an index in shards and its files;
  :mod:`~clirkit.retrieval.indexkinds`: the one registry of index kinds (translated indexes join it);
- :mod:`~clirkit.retrieval.weightings`: posting weightings as named functions (``bm25``, ``lm``), one registry;
  :mod:`~clirkit.retrieval.bm25params`: BM25's defaults and their constraints;
- :mod:`~clirkit.retrieval.query`: structured queries, the engine's input;
- :mod:`~clirkit.retrieval.bm25`: the engine (precomputed posting weights, sparse row sums, top-k), with its numpy
  twin :mod:`~clirkit.retrieval.topk` and numba kernels :mod:`~clirkit.retrieval.kernels`;
  :mod:`~clirkit.retrieval.lm`: the engine with the ``lm`` weighting;
- :mod:`~clirkit.retrieval.shardsearch` and :mod:`~clirkit.retrieval.rankmerge`: the sharded executor, any weighting.

These modules import nothing of the cross-language layer above them (:mod:`clirkit.dt`, :mod:`clirkit.psq`,
:mod:`clirkit.docpsq`, :mod:`clirkit.tablefit`, :mod:`clirkit.translation`, the systems): tests/test_architecture.py
checks it.
"""
