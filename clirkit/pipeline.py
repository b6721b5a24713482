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

from clirkit.analysis import Analyzer
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


def train_table(source_texts: list[str], target_texts: list[str], source_lang: str, target_lang: str, *,
                iterations: int = 5, quiet: bool = True) -> TranslationTable:
    """IBM Model 1 table p(target word | source word) from aligned texts, tokenized by clirkit's analyzers."""
    source = Analyzer(source_lang).tokenize_many(source_texts, quiet=quiet, desc="tokenizing source")
    target = Analyzer(target_lang).tokenize_many(target_texts, quiet=quiet, desc="tokenizing target")
    return train_ibm1(source, target, iterations=iterations, quiet=quiet)


def index_documents(docids: list[str], texts: list[str], lang: str, *, quiet: bool = True,
                    jobs: int = 1) -> Index:
    """Index documents with the default analyzer of ``lang``."""
    return Index.build(zip(docids, texts), Analyzer(lang), quiet=quiet, jobs=jobs)


def dt_run(index: Index, table: TranslationTable, queries: Mapping[str, str], source_lang: str, *,
           depth: int = 1000, quiet: bool = True, **bm25_params) -> Run:
    """DT with clirkit's 1-best word translation from ``table``, then BM25."""
    from clirkit.bm25 import BM25
    from clirkit.dt import dt_queries

    tokens = Analyzer(source_lang).tokenize_many(list(queries.values()), quiet=quiet)
    sq = dt_queries(list(queries), tokens, table, index.vocabulary)
    return BM25(index, **bm25_params).search(sq, depth=depth, quiet=quiet, tag="DT")


def psq_run(index: Index, table: TranslationTable, queries: Mapping[str, str], source_lang: str, *,
            depth: int = 1000, quiet: bool = True, **bm25_params) -> Run:
    """PSQ with the SPEC's default pruning (L = 0.005, C = 0.95), then BM25 with fractional tf/df."""
    from clirkit.bm25 import BM25
    from clirkit.psq import prepare_table, psq_queries

    tokens = Analyzer(source_lang).tokenize_many(list(queries.values()), quiet=quiet)
    sq = psq_queries(list(queries), tokens, prepare_table(table), index.vocabulary)
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
