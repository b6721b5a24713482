"""End-to-end CLIR steps on a collection, shared by ``clirkit demo`` and the experiment recipes.

Each step takes plain objects (a :class:`~clirkit.datasets.collection.Collection`,
an index, a table, queries) and returns one; :class:`Steps` records the wall
time of each step so reports can show it.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Mapping

import numpy as np

from clirkit.analysis import Analyzer, frequent_terms
from clirkit.index import Index
from clirkit.run import Qrels, Run
from clirkit.translation import TranslationTable, train_ibm1


@dataclass
class Steps:
    """Wall time in seconds of named steps, in the order they ran."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def time(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


STOPWORDS_TOP = 100  # size of the corpus-derived stoplists used by the baselines


def tokenize(texts: list[str], lang: str, *, quiet: bool = True, jobs: int = 1, desc: str = "tokenizing"
             ) -> list[list[str]]:
    """Tokenize ``texts`` with the default analyzer of ``lang``."""
    return Analyzer(lang).tokenize_many(texts, quiet=quiet, jobs=jobs, desc=desc)


def train_table(source_tokens: list[list[str]], target_tokens: list[list[str]], *, iterations: int = 5,
                quiet: bool = True) -> TranslationTable:
    """IBM Model 1 table p(target word | source word) from aligned tokenized sentences (all words kept:
    function words absorb alignment mass that would otherwise go to content words' options)."""
    return train_ibm1(source_tokens, target_tokens, iterations=iterations, quiet=quiet)


def query_analyzer(lang: str, source_tokens: list[list[str]], n: int = STOPWORDS_TOP) -> Analyzer:
    """The source-language analyzer for queries: stopwords = the ``n`` most frequent words of the
    parallel corpus's source side (a corpus-derived stoplist, no language resource needed)."""
    return Analyzer(lang, stopwords=frequent_terms(source_tokens, n))


def index_documents(docids: list[str], texts: list[str], lang: str, *, quiet: bool = True,
                    jobs: int = 1) -> Index:
    """Index documents with the default analyzer of ``lang`` (no stopwords: idf weighs them)."""
    return Index.build(zip(docids, texts), Analyzer(lang), quiet=quiet, jobs=jobs)


def dt_run(index: Index, table: TranslationTable, queries: Mapping[str, str], analyzer: Analyzer, *,
           depth: int = 1000, quiet: bool = True, **bm25_params) -> Run:
    """DT with clirkit's 1-best word translation from ``table``, then BM25.

    ``analyzer`` tokenizes the source-language queries (see :func:`query_analyzer`).
    """
    from clirkit.bm25 import BM25
    from clirkit.dt import dt_queries

    tokens = analyzer.tokenize_many(list(queries.values()), quiet=quiet)
    sq = dt_queries(list(queries), tokens, table, index.vocabulary)
    return BM25(index, **bm25_params).search(sq, depth=depth, quiet=quiet, tag="DT")


def psq_run(index: Index, table: TranslationTable, queries: Mapping[str, str], analyzer: Analyzer, *,
            target_stopwords_top: int = STOPWORDS_TOP, depth: int = 1000, quiet: bool = True,
            **bm25_params) -> Run:
    """PSQ with the SPEC's default pruning (L = 0.005, C = 0.95), the ``target_stopwords_top`` most
    frequent index terms removed from the translation options, then BM25 with fractional tf/df.

    Without that removal IBM Model 1's mass on function words (house -> casa .85, la .07,
    de .04) makes every query term look common and matches every document a little: on
    nave-en-es test PSQ falls from MAP .192 to .164, below DT's .185 (baselines/README.md).
    On a small caption collection whose frequent terms are content words (multi30k) the
    removal hurts instead; pass ``target_stopwords_top=0`` there.
    """
    from clirkit.bm25 import BM25
    from clirkit.index import most_frequent_terms
    from clirkit.psq import prepare_table, psq_queries

    tokens = analyzer.tokenize_many(list(queries.values()), quiet=quiet)
    pruned = prepare_table(table, target_stopwords=most_frequent_terms(index, target_stopwords_top))
    sq = psq_queries(list(queries), tokens, pruned, index.vocabulary)
    return BM25(index, **bm25_params).search(sq, depth=depth, quiet=quiet, tag="PSQ")


def drop_excluded(run: Run, excluded: Mapping[str, set[str]]) -> Run:
    """Remove, per query, the documents listed in ``excluded`` (e.g. translation mates of a topical task)."""
    if not excluded:
        return run
    keep = np.fromiter((d not in excluded.get(q, ()) for q, d in zip(run.qids.tolist(), run.docids.tolist())),
                       dtype=bool, count=len(run))
    return Run(run.qids[keep], run.docids[keep], run.scores[keep], tag=run.tag)


def score_table(runs: Mapping[str, Run], qrels: Qrels, measures: tuple[str, ...], *, seed: int = 0) -> str:
    """A plain-text table of mean measures per run, with the paired randomization test
    against the first run (``*``: p < 0.05)."""
    from clirkit.metrics import evaluate
    from clirkit.significance import randomization_test

    evaluations = {name: evaluate(run, qrels, measures) for name, run in runs.items()}
    names = list(runs)
    base = evaluations[names[0]]
    width = max(len(n) for n in names) + 2
    lines = ["system".ljust(width) + "".join(m.rjust(12) for m in base.measures)]
    for name in names:
        ev = evaluations[name]
        cells = []
        for m in ev.measures:
            mark = " "
            if name != names[0]:
                p = randomization_test(ev.column(m), base.column(m), seed=seed).p_value
                mark = "*" if p < 0.05 else " "
            cells.append(f"{ev.mean()[m]:.4f}{mark}".rjust(12))
        lines.append(name.ljust(width) + "".join(cells))
    lines.append(f"({base.describe()}; * = differs from {names[0]} at p < 0.05, paired randomization test)")
    return "\n".join(lines)
