"""The table of clirkit's verbs: the module of each and the line ``clirkit --help`` lists it with."""

VERBS = {
    "demo": ("demo", "the whole pipeline on the bundled collection (the shipped experiment file)"),
    "run": ("run", "run an experiment file (TOML): train, tune on dev, test, report"),
    "collection": ("collection", "a collection folder from plain files (documents, topics, qrels): checked, written"),
    "datasets": ("datasets", "collections: list them, export one as plain files, build one from downloads"),
    "index": ("index", "index documents (sparse term x document counts)"),
    "search": ("search", "monolingual BM25 search of an index"),
    "ttable": ("ttable", "translation tables p(e|f): train (IBM Model 1), show, prune, convert"),
    "dt": ("dt", "direct translation (1-best) + BM25"),
    "psq": ("psq", "probabilistic structured queries + BM25"),
    "eval": ("eval", "evaluate runs against qrels, with significance tests"),
    "scs-train": ("scs_train", "train the SCS neural model"),
    "scs-score": ("scs_score", "rank documents with an SCS model"),
    "aggregate": ("aggregate", "fuse runs: interpolation (weights tuned on dev) or Borda"),
    "boost-train": ("boost_train", "train the boosted ranker (BoostCLIR), standalone or from a base run"),
    "boost-rank": ("boost_rank", "rank or re-rank documents with a boosted model"),
    "boost-show": ("boost_show", "print a boosted model's phrase table"),
}
"""verb -> (module under :mod:`clirkit.cli`, one-line summary), in the order ``clirkit --help`` lists them."""
