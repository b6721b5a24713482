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


def psq_base_run(index: Index, table: TranslationTable, queries: Mapping[str, str], analyzer: Analyzer, *,
                 batch: int = 1000, excluded: Mapping[str, set[str]] | None = None, extra: list[Run] | None = None,
                 quiet: bool = True):
    """PSQ's run over many queries as a :class:`~clirkit.boost.base.CompactRun` (the base run of
    :func:`boost_from_base`): searched ``batch`` queries at a time, ``excluded`` documents removed
    (e.g. the translation mates of a topical task, as from the dev and test runs), and encoded
    batch by batch, so 10,000 training queries x 1,000 documents never sit in memory as strings.
    ``extra`` runs (e.g. PSQ over the dev queries, already made) are appended as they are."""
    from clirkit.boost.base import CompactRun

    ids = list(queries)

    def batches():
        for a in range(0, len(ids), batch):
            run = psq_run(index, table, {q: queries[q] for q in ids[a:a + batch]}, analyzer, quiet=quiet)
            yield drop_excluded(run, excluded or {})
        yield from extra or []

    return CompactRun.from_runs(batches())


def boost_from_base(train_tokens: Mapping[str, list[str]], train_qrels: Qrels, docids: list[str],
                    doc_tokens: list[list[str]], base, *, dev_tokens: Mapping[str, list[str]],
                    dev_qrels: Qrels, rounds: int = 3000, made_by: dict | None = None, seed: int = 0,
                    quiet: bool = True, **params):
    """A Boost-1g phrase table boosted from a base ranker (``base``: its run over the training and dev
    queries, e.g. :func:`psq_base_run`), with beta tuned on the dev MAP of the re-ranked dev base run
    and early stopping on it; BoostRanker's base-ranker defaults (uniform and hard negatives,
    1/sqrt(length) document weights) with ``max_df`` 0.05 and the dev set scored every 100 rounds.
    ``params`` override BoostRanker's; ``made_by`` says how the base run was made (kept in the
    model). Returns the BoostModel (it re-ranks the base system's runs: ``model.rerank``)."""
    from clirkit.boost import BoostRanker

    settings = {"ngram": 1, "max_df": 0.05, "eval_every": 100, **params}
    ranker = BoostRanker(rounds=rounds, base=base, random_state=seed, quiet=quiet, **settings)
    ranker.fit_tokens(train_tokens, train_qrels, docids, doc_tokens, dev_queries=dev_tokens, dev_qrels=dev_qrels,
                      base_made_by=made_by)
    return ranker.model_


def scs_model(train_tokens: Mapping[str, list[str]], train_qrels: Qrels, docids: list[str],
              doc_tokens: list[list[str]], *, epochs: int = 2, eps: float = 0.25, seed: int = 0,
              quiet: bool = True):
    """The SCS model (SOSL loss, smooth cosine with ``eps``) trained on tokenized training queries."""
    from clirkit.scs import SCSModel

    model = SCSModel(eps=eps, epochs=epochs, random_state=seed)
    return model.fit_tokens(list(train_tokens), list(train_tokens.values()), docids, doc_tokens, train_qrels,
                            quiet=quiet)


def tuned_interpolation(dev_runs: list[Run], test_runs: list[Run], dev_qrels: Qrels, *, step: float = 0.1,
                        tag: str | None = None) -> tuple[Run, list[float], float]:
    """Interpolate ``test_runs`` with the weights that maximize dev MAP (SPEC §6: tuned on dev, then
    frozen). A run with negative scores (boosting, SCS) is shifted per query to be >= 0 first.
    Returns the test run, the weights and the dev MAP they reach."""
    from clirkit.fusion import interpolate, tune_weights

    transforms = ["shift" if min(d.scores.min(initial=0.0), t.scores.min(initial=0.0)) < 0 else "none"
                  for d, t in zip(dev_runs, test_runs)]
    weights, dev_map = tune_weights(dev_runs, dev_qrels, step=step, transform=transforms)
    return (interpolate(test_runs, list(weights), transform=transforms, tag=tag), [float(w) for w in weights],
            float(dev_map))


def drop_excluded(run: Run, excluded: Mapping[str, set[str]]) -> Run:
    """Remove, per query, the documents listed in ``excluded`` (e.g. translation mates of a topical task)."""
    if not excluded:
        return run
    keep = np.fromiter((d not in excluded.get(q, ()) for q, d in zip(run.qids.tolist(), run.docids.tolist())),
                       dtype=bool, count=len(run))
    return Run(run.qids[keep], run.docids[keep], run.scores[keep], tag=run.tag)


def score_table(runs: Mapping[str, Run], qrels: Qrels, measures: tuple[str, ...], *, baseline: str | None = None,
                seed: int = 0, qrels_label: str = "qrels", gains: tuple[str, ...] = ()) -> str:
    """The ``clirkit eval`` text table of ``runs``: one row per run (name, queries, mean of each measure
    over the qrels' queries), ``*`` on means that differ from ``baseline``'s (default: the first run)
    at p < 0.05 in the paired randomization test with ``seed``, then ``#`` notes naming the judgments
    ``qrels_label``. With ``gains`` (some of ``measures``), a blank line and one line per other run:
    its difference to the baseline's mean of each, in points (x 100), with the same test's p-value.
    No trailing newline."""
    from clirkit.metrics import evaluate
    from clirkit.report import Report

    names = list(runs)
    evaluations = [evaluate(run, qrels, measures) for run in runs.values()]
    base = names.index(baseline or names[0])
    report = Report(names, evaluations, baseline=base, seed=seed, qrels=qrels_label)
    text = report.text().rstrip("\n")
    if not gains:
        return text
    lines = [f"gains over {names[base]} in points:"]
    for i, name in enumerate(names):
        if i == base:
            continue
        parts = [f"{m} {100 * (evaluations[i].mean()[m] - evaluations[base].mean()[m]):+.2f}"
                 f" (p {report.tests[(i, m)].p_value:.4f})" for m in gains if (i, m) in report.tests]
        lines.append(f"{name} vs {names[base]}: " + ", ".join(parts))
    return text + "\n\n" + "\n".join(lines)
