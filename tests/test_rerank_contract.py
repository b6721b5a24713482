"""Re-ranking in the system contract (issue 38): ``System.rerank(topics, run) -> Run`` re-scores a first stage's rows
for every system that re-ranks (``reranks``: the boosted ranker, SCS), keeping every row, and is a one-line error for
the others; the boosted ranker's is the model's own re-ranking (``boost-rank --candidates``), SCS's its
``search(rerank=)``."""

from __future__ import annotations

import pytest

from clirkit import datasets
from clirkit.boost import Boosting
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.retrieval.index import Index
from clirkit.scs.params import Schedule, Shape
from clirkit.systems import DT, PSQ, SCS, Boost
from clirkit.translation import train_table


@pytest.fixture(scope="module")
def stage(mini):
    """The mini collection, a PSQ first stage fitted on it, and its run of the test topics (depth 20)."""
    from clirkit.analysis import Analyzer

    c = datasets.load(str(mini))
    en, es = Analyzer("en"), Analyzer("es")
    sources, targets = c.parallel()
    table = train_table(en.tokenize_many(sources), es.tokenize_many(targets), en, es, iterations=2)
    index = Index.build(zip(*c.documents()), es)
    psq = PSQ(translate="queries").fit(Resources(index=index, table=table))
    topics = c.queries("test")
    return c, psq, topics, psq.search(topics, depth=20)


def rows(run) -> set[tuple[str, str]]:
    return set(zip(run.qids.tolist(), run.docids.tolist()))


def test_a_boosted_ranker_reranks_the_rows_as_its_model_does(stage):
    c, psq, topics, first = stage
    boost = Boost(boosting=Boosting(rounds=20, eval_every=10, beta=5.0), random_state=1, quiet=True, base=psq)
    boost.fit(
        Resources(
            topics={"train": c.queries("train"), "dev": c.queries("dev")},
            qrels={"train": c.qrels("train"), "dev": c.qrels("dev")},
            documents=c.documents(),
        )
    )
    assert boost.reranks and boost.rerank_uses_scores()
    run = boost.rerank(topics, first)
    assert rows(run) == rows(first) and run.tag == "Boost"
    model = boost.model_
    queries = dict(zip(topics, model.source_analyzer.tokenize_many(list(topics.values()))))
    expected = model.rerank(first, queries, boost.docids_, boost.doc_tokens_, tag="Boost")
    assert run.docids.tolist() == expected.docids.tolist() and run.scores.tolist() == expected.scores.tolist()


def test_scs_reranks_as_its_search_with_rerank(stage):
    c, _, topics, first = stage
    scs = SCS(shape=Shape(dim=8), schedule=Schedule(epochs=1), random_state=2).fit(
        Resources(topics={"train": c.queries("train")}, qrels={"train": c.qrels("train")}, documents=c.documents())
    )
    assert scs.reranks and not scs.rerank_uses_scores()
    run = scs.rerank(topics, first, tag="SCS")
    assert rows(run) == rows(first)
    expected = scs.search(topics, rerank=first, tag="SCS")
    assert run.docids.tolist() == expected.docids.tolist() and run.scores.tolist() == expected.scores.tolist()


def test_a_system_that_does_not_rerank_says_so_in_one_line(stage):
    _, psq, topics, first = stage
    assert not psq.reranks and not DT.reranks
    with pytest.raises(ClirkitError, match=r"^a PSQ cannot re-rank given results .*use it as a first stage"):
        psq.rerank(topics, first)
