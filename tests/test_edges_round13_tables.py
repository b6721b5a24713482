"""Issue 40, edge test 13b: translation tables' arguments, their checks against an index and the queries."""

from __future__ import annotations

import numpy as np
import pytest

from clirkit.analysis import NORMALIZATION_VERSIONS, Analyzer
from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.retrieval.index import Index
from clirkit.systems import DT, PSQ, DocPSQ, Resources
from clirkit.translation import (
    TranslationTable,
    interpolate,
    load_table,
    prune,
    save_table,
    train_ibm1,
    train_table,
)

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


# --------------------------------------------------------------------------- 13B-19: bad arguments, one-line errors

_T = TranslationTable.from_triples(["a", "a"], ["x", "y"], [0.6, 0.4])
_SRC, _TGT = [["the", "house"], ["big", "house"]], [["la", "casa"], ["casa", "grande"]]


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(lambda: prune(_T, min_prob=1.5), "min_prob must be a number in [0, 1], got 1.5", id="min_prob"),
        pytest.param(lambda: prune(_T, cumulative=0), "cumulative must be a number in (0, 1], got 0", id="cumulative"),
        pytest.param(lambda: prune(_T, max_options=0), "max_options must be an integer >= 1, got 0", id="max_options"),
        pytest.param(lambda: prune(_T, max_options=2.5), "max_options must be an integer >= 1, got 2.5", id="float"),
        pytest.param(lambda: interpolate(_T, _T, lam=2.0), "lam must be in [0, 1], got 2.0", id="lam"),
        pytest.param(lambda: interpolate(_T, _T, lam="x"), "lam must be a number in [0, 1] or one per", id="lam str"),
        pytest.param(
            lambda: train_ibm1(_SRC, _TGT, iterations=2.0), "iterations must be an integer >= 0, got 2.0", id="iter"
        ),
        pytest.param(lambda: train_ibm1(_SRC, _TGT[:1]), "2 source sentences but 1 target sentences", id="lengths"),
        pytest.param(lambda: train_ibm1(_SRC, "la casa"), "target: expected a sequence, got str", id="str corpus"),
        pytest.param(
            lambda: train_ibm1(_SRC, ["la casa", "casa"]), "target: sentence 0 must be a list of tokens", id="str"
        ),
        pytest.param(
            lambda: TranslationTable.from_triples(["a", "b"], ["x"], [0.5]), "2 sources but 1 targets", id="len"
        ),
        pytest.param(
            lambda: TranslationTable.from_triples(["a", "b"], ["x", "y"], [0.5]),
            "probs: expected 2 numbers, one per triple, got shape (1,)",
            id="probs short",
        ),
        pytest.param(
            lambda: TranslationTable.from_triples(["a"], ["x"], ["half"]), "probs: expected 1 numbers", id="probs str"
        ),
        pytest.param(
            lambda: TranslationTable.from_triples(["a"], ["x"], [0.5], ranks=[1, 2]),
            "ranks: expected 1 numbers, one per triple, got shape (2,)",
            id="ranks long",
        ),
        pytest.param(lambda: _T.translations("a", -1), "n must be an integer >= 1, got -1", id="n -1"),
        pytest.param(lambda: _T.translations("a", 0), "n must be an integer >= 1, got 0", id="n 0"),
        pytest.param(lambda: _T.best_targets(np.ones(3)), "target_frequency has shape (3,), expected (2,)", id="freq"),
    ],
)
def test_a_bad_argument_to_a_translation_function_is_a_one_line_clirkit_error(call, message):
    with pytest.raises(ClirkitError) as caught:
        call()
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_train_ibm1_reads_generators_of_sentences_as_their_lists():
    made = train_ibm1((s for s in _SRC), (t for t in _TGT))
    assert made.translations("house", 1) == train_ibm1(_SRC, _TGT).translations("house", 1)
    assert _T.translations("a", 1) == [("x", 0.6)] and _T.translations("a") == [("x", 0.6), ("y", 0.4)]


# --------------------------------------------------------------------------- 13B-17: one table given twice

_EN, _ES = ["the house", "big house", "the dog"], ["la casa", "casa grande", "el perro"]


def _trained(source, target, source_lang, target_lang):
    s, t = Analyzer(source_lang), Analyzer(target_lang)
    return train_table([s.tokenize(x) for x in source], [t.tokenize(x) for x in target], s, t)


@pytest.mark.parametrize("as_path", [False, True], ids=["same object", "same file"])
def test_psq_refuses_one_table_given_as_table_and_table2_as_the_command_does(tmp_path, as_path):
    table, ix = _trained(_EN, _ES, "en", "es"), Index.build([("d1", "casa grande"), ("d2", "el perro")], Analyzer("es"))
    save_table(table, tmp_path / "t.npz")
    table = str(tmp_path / "t.npz") if as_path else table
    second = str(tmp_path / "." / "t.npz") if as_path else table
    message = "given as table and table2: interpolating a table with itself changes nothing"
    with pytest.raises(ClirkitError, match=message):
        PSQ(lam=0.3).fit(Resources(index=ix, table=table, table2=second))
    reverse = _trained(_ES, _EN, "es", "en")
    with pytest.raises(ClirkitError, match="given as reverse_table and reverse_table2: interpolating a table with"):
        DocPSQ(lam=0.3).fit(Resources(index=ix, reverse_table=reverse, reverse_table2=reverse))
    copy = load_table(tmp_path / "t.npz")  # equal, but another table: as another file holding the same
    assert PSQ(lam=0.3).fit(Resources(index=ix, table=table, table2=copy)).search({"q1": "house"}).to_dict()


def test_the_command_refuses_one_table_file_given_twice_with_the_same_message(tmp_path, capsys):
    save_table(_trained(_EN, _ES, "en", "es"), tmp_path / "t.npz")
    Index.build([("d1", "casa grande"), ("d2", "el perro")], Analyzer("es")).save(tmp_path / "ix.npz")
    (tmp_path / "q.tsv").write_text("q1\thouse\n")
    argv = ["psq", "--index", str(tmp_path / "ix.npz"), "--queries", str(tmp_path / "q.tsv"), "-o", "-", "-q"]
    code = main([*argv, "--table", str(tmp_path / "t.npz"), "--table2", str(tmp_path / "t.npz"), "--lambda", "0.3"])
    assert code == 2
    assert "t.npz: given as --table and --table2: interpolating a table with itself changes nothing" in (
        capsys.readouterr().err
    )


# --------------------------------------------------------------------------- 13B-2: a table of an older analysis

_OLD_TR = {"lang": "tr", "lowercase": True, "strip_punctuation": True, "stopwords": [], "stemmer": "snowball"}


@pytest.mark.parametrize(
    "settings, named",
    [
        pytest.param(
            _OLD_TR,
            "with compose=False, normalization_version=1 but the index's terms with compose=True, "
            f"normalization_version={NORMALIZATION_VERSIONS[-1]}",
            id="old file",
        ),
        pytest.param(
            {**_OLD_TR, "compose": True},
            f"with normalization_version=1 but the index's terms with normalization_version={NORMALIZATION_VERSIONS[-1]}",
            id="version only",
        ),
    ],
)
@pytest.mark.parametrize("system", [DT, PSQ])
def test_a_table_analyzed_by_an_older_clirkit_is_refused_naming_the_setting(system, settings, named):
    old = Analyzer.from_dict(settings)
    assert old.tokenize("KIZ") == ["kiz"] and Analyzer("tr").tokenize("KIZ") == ["kız"]  # terms that never meet
    en = Analyzer("en")
    table = train_table(
        [en.tokenize(s) for s in ["the girl came", "a girl", "the house"]],
        [old.tokenize(t) for t in ["KIZ geldi", "bir KIZ", "EV"]],
        en,
        old,
    )
    ix = Index.build([("d1", "KIZ okula gitti"), ("d2", "büyük EV")], Analyzer("tr"))
    with pytest.raises(ClirkitError) as caught:
        system().fit(Resources(index=ix, table=table))
    assert str(caught.value) == (
        f"the table's target words were analyzed {named}: rebuild one of them with the other's analysis (an index "
        f"or table written by an older clirkit: make it again)"
    )
    same = Index.build([("d1", "KIZ okula gitti"), ("d2", "büyük EV")], old)
    assert system().fit(Resources(index=same, table=table)).search({"q": "girl"}).to_dict()["q"].keys() == {"d1"}


# --------------------------------------------------------------------------- 13B-3: a dictionary without its languages


def test_a_dictionary_read_without_target_lang_gives_the_commands_run(tmp_path, capsys):
    (tmp_path / "muse.txt").write_text("lord señor\nlord jehová\nlight luz\nlight lumbre\nlights luces\n")
    docs = [("d1", "el señor"), ("d2", "jehová"), ("d3", "la luz"), ("d4", "la lumbre")]
    (tmp_path / "q.tsv").write_text("q1\tlord\nq2\tlight\nq3\tlights\n")
    ix = Index.build(docs, Analyzer("es"))
    ix.save(tmp_path / "ix.npz")
    topics = {"q1": "lord", "q2": "light", "q3": "lights"}
    for system, verb in ((DT, "dt"), (PSQ, "psq")):
        argv = [verb, "--index", str(tmp_path / "ix.npz"), "--queries", str(tmp_path / "q.tsv"), "-q", "-o", "-"]
        assert (
            main([*argv, "--table", str(tmp_path / "muse.txt"), "--table-format", "muse", "--source-lang", "en"]) == 0
        )
        command = capsys.readouterr().out
        for languages in ({"source_lang": "en"}, {"source_lang": "en", "target_lang": "es"}):
            table = load_table(tmp_path / "muse.txt", "muse", **languages)
            run = system().fit(Resources(index=ix, table=table)).search(topics)
            lines = [
                f"{q} Q0 {d} {i} {s!r} {verb.upper()}"
                for q, ranked in run.to_dict().items()
                for i, (d, s) in enumerate(sorted(ranked.items(), key=lambda x: (-x[1], x[0])), 1)
            ]
            assert "\n".join(lines) + "\n" == command, languages
    table = load_table(tmp_path / "muse.txt", "muse", source_lang="en")
    assert DT().fit(Resources(index=ix, table=table)).search({"q": "lord"}).to_dict()["q"].keys() == {"d1"}  # señor
