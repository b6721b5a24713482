"""A boosted ranker's base is a system (issue 38): a run given as ``base`` becomes a :class:`HeldRun` in one place
(:func:`clirkit.boost.base.base_system`), the user's parameter left as given; the ranker trains from every row of a
run it holds and searches a base that searches. The same run as ``base`` or as ``base_run`` gives the same model
file, byte for byte."""

from __future__ import annotations

import numpy as np
import pytest
from test_boost_base import BASE, DOCIDS, DOCS, QRELS, QUERIES

from clirkit.boost import BoostRanker
from clirkit.boost.base import CompactRun, HeldRun, base_system, held_run
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.run import Run
from clirkit.runsystem import RunFile

KW = dict(beta=2.0, hard_negatives=1, rounds=3, negatives=2, bits=20, quiet=True)
TEXTS = {"q1": "god", "q2": "light", "q3": "word", "q4": "god light"}


def part(*qids: str) -> Run:
    """The rows of ``BASE`` for ``qids``, in that order of queries (raw scores)."""
    keep = [i for q in qids for i in np.flatnonzero(BASE.qids == q)]
    return Run(BASE.qids[keep], BASE.docids[keep], BASE.scores[keep], tag=BASE.tag)


def rows(run: Run) -> list[tuple[str, str, float]]:
    return list(zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()))


def test_base_system_leaves_none_and_a_system_as_they_are_and_holds_a_run():
    system = RunFile(run=BASE).fit()
    assert base_system(None) is None and base_system(system) is system
    assert held_run(None) is None and held_run(system) is None  # a system that searches holds no run
    for given in (BASE, [BASE], CompactRun.from_runs([BASE])):
        held = base_system(given)
        assert isinstance(held, HeldRun) and held.run is given
        assert held_run(held).describe() == {"tag": "bm25", "queries": 4, "rows": 8}
    compact = CompactRun.from_runs([BASE])
    assert held_run(base_system(compact)) is compact  # encoded once: a CompactRun as it is


def test_a_held_run_gives_each_topics_rows_in_rank_order_scored_by_f0():
    held = HeldRun(run=[part("q2", "q1"), part("q4")]).fit()
    # q1: 3, 1 -> f0 1, 1/3; q4: 5, 1 -> 1, 1/5; q3 is in no part
    assert rows(held.search({"q4": "", "q1": ""})) == [
        ("q4", "Gen.1.3", 1.0),
        ("q4", "John.1.5", 1 / 5),
        ("q1", "Gen.1.1", 1.0),
        ("q1", "John.1.1", 1 / 3),
    ]
    assert rows(held.search({"q1": ""}, depth=1)) == [("q1", "Gen.1.1", 1.0)]
    assert rows(held.search({"q1": ""}, excluded={"q1": {"Gen.1.1"}})) == [("q1", "John.1.1", 1 / 3)]
    assert held.search({"q1": ""}).tag == "bm25" and held.search({"q1": ""}, tag="base").tag == "base"
    assert len(held.search({"q3": ""})) == 0


def test_a_held_run_says_the_topics_it_has_no_row_for(capsys):
    HeldRun(run=BASE).fit().search({"q1": "", "q9": ""}, quiet=False)
    assert "bm25: the run has no row for 1 of 2 queries" in capsys.readouterr().err


def test_a_held_run_must_be_given_and_fitted():
    with pytest.raises(ClirkitError, match="HeldRun is not fitted"):
        HeldRun(run=BASE).search({"q1": ""})
    with pytest.raises(ClirkitError, match="a held run needs its run"):
        HeldRun().fit()


def test_a_run_given_as_base_gives_the_model_file_of_the_same_run_given_as_base_run(tmp_path):
    as_base = BoostRanker.from_flat(base=BASE, **KW).fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    as_base_run = BoostRanker.from_flat(base=RunFile(run=BASE).fit(), **KW).fit_tokens(
        QUERIES, QRELS, DOCIDS, DOCS, base_run=BASE
    )
    as_base.model_.save(tmp_path / "base.npz")
    as_base_run.model_.save(tmp_path / "base_run.npz")
    assert (tmp_path / "base.npz").read_bytes() == (tmp_path / "base_run.npz").read_bytes()
    assert as_base.model_.from_base and as_base.model_.base["rows"] == 8


def test_fit_from_texts_with_a_run_as_base_trains_on_every_row_and_leaves_the_parameter_as_given():
    docs = [" ".join(d) for d in DOCS]
    ranker = BoostRanker.from_flat(base=BASE, **KW).fit(
        Resources(topics={"train": TEXTS}, qrels={"train": QRELS}, documents=(DOCIDS, docs))
    )
    assert ranker.get_params()["base"] is BASE and ranker.base is BASE
    assert ranker.model_.base == {"normalization": "query-max", "tag": "bm25", "queries": 4, "rows": 8, "made_by": {}}


def test_a_ranker_boosted_from_a_run_re_ranks_that_runs_rows_for_the_topics_searched():
    ranker = BoostRanker.from_flat(base=BASE, **KW).fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    topics = {"q2": "light", "q1": "god"}
    queries = dict(zip(topics, ranker.model_.source_analyzer.tokenize_many(list(topics.values()))))
    expected = ranker.model_.rerank(part("q2", "q1"), queries, DOCIDS, DOCS, tag="Boost")
    got = ranker.search(topics)
    assert rows(got) == rows(expected) and got.tag == "Boost"
    assert np.array_equal(np.unique(got.qids), ["q1", "q2"])


def test_a_base_system_that_searches_still_needs_its_run_for_fit_tokens():
    with pytest.raises(ClirkitError, match=r"^fit_tokens with a base system needs its run \(base_run\); fit makes it$"):
        BoostRanker.from_flat(base=RunFile(run=BASE).fit(), **KW).fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)


def test_a_ranker_boosted_from_a_run_searches_a_split_as_it_searches_its_topics():
    from clirkit.estimator import Resources

    ranker = BoostRanker.from_flat(base=BASE, **KW).fit_tokens(QUERIES, QRELS, DOCIDS, DOCS)
    topics = {"q2": "light", "q1": "god"}
    resources = Resources(topics={"test": topics}, excluded={"test": {"q1": {"Gen.1.1"}}}, quiet=True)
    got = ranker.search_split(resources, "test", tag="Boost")
    assert rows(got) == rows(ranker.search(topics, excluded={"q1": {"Gen.1.1"}}, tag="Boost"))
    assert ("q1", "Gen.1.1") not in {(q, d) for q, d, _ in rows(got)} and len(got) == 3
