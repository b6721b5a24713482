"""Issue 40, edge test 13b: translation tables' arguments, their checks against an index and the queries."""

from __future__ import annotations

import pytest

from clirkit.errors import ClirkitError
from clirkit.translation import TranslationTable, load_table, prune, save_table

# --------------------------------------------------------------------------- 13B-8: probabilities a table may hold


@pytest.mark.parametrize(
    "probs, message",
    [
        pytest.param([float("nan"), 0.5], "probs has NaN at 0", id="NaN"),
        pytest.param([0.5, -0.5], "probs has -0.5 at 1, below the minimum 0", id="negative"),
        pytest.param([1.7, 0.5], "probs has 1.7 at 0, above the maximum 1", id="above 1"),
        pytest.param([0.5, float("inf")], "probs has an infinite value at 1", id="infinite"),
    ],
)
def test_from_triples_refuses_a_probability_load_table_would_refuse(probs, message):
    with pytest.raises(ClirkitError, match=message + ": a probability p"):
        TranslationTable.from_triples(["dog", "cat"], ["perr", "gat"], probs)


def test_from_triples_refuses_a_pair_whose_repeats_sum_above_one_and_keeps_one_that_does_not():
    with pytest.raises(ClirkitError, match=r"the pair \('a', 'x'\) is given several times, its probabilities summing"):
        TranslationTable.from_triples(["a", "a"], ["x", "x"], [0.7, 0.6])
    assert TranslationTable.from_triples(["a", "a", "a"], ["x", "x", "y"], [0.3, 0.2, 0.5]).translations("a") == [
        ("x", 0.5),
        ("y", 0.5),
    ]


def test_a_table_from_triples_saves_and_loads_back(tmp_path):
    table = TranslationTable.from_triples(["dog", "dog", "cat"], ["perr", "can", "gat"], [0.75, 0.25, 1.0])
    save_table(table, tmp_path / "t.npz")
    assert load_table(tmp_path / "t.npz").translations("dog") == [("perr", 0.75), ("can", 0.25)]


# --------------------------------------------------------------------------- 13B-9: a word list given as a str


def test_prune_refuses_a_str_of_target_stopwords_and_drops_the_words_of_a_list():
    table = TranslationTable.from_triples(["dog", "dog", "dog"], ["the", "perr", "e"], [0.5, 0.3, 0.2])
    with pytest.raises(ClirkitError, match=r"target_stopwords: expected a list of words or None, got the str 'the'"):
        prune(table, target_stopwords="the")
    kept = prune(table, target_stopwords=["the"], cumulative=None, min_prob=0).translations("dog")
    assert [e for e, _ in kept] == ["perr", "e"]
    with pytest.raises(ClirkitError, match="target_stopwords: expected a list of words, got an entry of type int"):
        prune(table, target_stopwords=["the", 3])
