"""Translation tables: IBM Model 1 (hand-computed EM and a position-wise oracle), pruning and
interpolation (hand-computed), dictionary ranks and languages, Moses / npz files, the `ttable` verb
(dictionary readers and format detection: test_dictionaries.py)."""

from __future__ import annotations

import shutil
from collections import defaultdict

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.translation import (
    NULL,
    TranslationTable,
    interpolate,
    load_moses,
    load_npz_table,
    load_table,
    prune,
    save_moses,
    save_table,
    train_ibm1,
)

# the classic example (Koehn, Statistical Machine Translation, ch. 4), Spanish -> English
CASA_ES = [["la", "casa"], ["la", "casa", "verde"], ["la", "flor"]]
CASA_EN = [["the", "house"], ["the", "green", "house"], ["the", "flower"]]

# Gen 1:3-5, RV1909 and WEB, tokenized (repeated words on both sides)
GEN_ES = [
    ["y", "dijo", "dios", "sea", "la", "luz", "y", "fué", "la", "luz"],
    [
        "y",
        "vió",
        "dios",
        "que",
        "la",
        "luz",
        "era",
        "buena",
        "y",
        "apartó",
        "dios",
        "la",
        "luz",
        "de",
        "las",
        "tinieblas",
    ],
    ["y", "llamó", "dios", "á", "la", "luz", "día", "y", "á", "las", "tinieblas", "llamó", "noche"],
]
GEN_EN = [
    ["god", "said", "let", "there", "be", "light", "and", "there", "was", "light"],
    [
        "god",
        "saw",
        "the",
        "light",
        "and",
        "saw",
        "that",
        "it",
        "was",
        "good",
        "god",
        "divided",
        "the",
        "light",
        "from",
        "the",
        "darkness",
    ],
    ["god", "called", "the", "light", "day", "and", "the", "darkness", "he", "called", "night"],
]


def naive_ibm1(source, target, iterations):
    """Textbook Model 1 EM, one position at a time (the oracle)."""
    source = [[NULL] + s for s in source]
    t = defaultdict(lambda: 1.0)
    for _ in range(iterations):
        count, total = defaultdict(float), defaultdict(float)
        for fs, es in zip(source, target):
            for e in es:
                z = sum(t[(e, f)] for f in fs)
                for f in fs:
                    c = t[(e, f)] / z
                    count[(e, f)] += c
                    total[f] += c
        t = defaultdict(float, {(e, f): c / total[f] for (e, f), c in count.items()})
    return t


# ---------------------------------------------------------------------------------------------
# IBM Model 1


def test_ibm1_first_iteration_equals_hand_computed_expected_counts():
    table = train_ibm1(CASA_ES, CASA_EN, iterations=1)
    # uniform start: each English word is aligned to each of the l+1 source words (NULL included)
    # with posterior 1/(l+1); pairs have l+1 = 3, 4, 3
    c_la = {"the": 1 / 3 + 1 / 4 + 1 / 3, "house": 1 / 3 + 1 / 4, "green": 1 / 4, "flower": 1 / 3}
    total_la = 2 / 3 + 3 / 4 + 2 / 3
    c_casa = {"the": 1 / 3 + 1 / 4, "house": 1 / 3 + 1 / 4, "green": 1 / 4}
    total_casa = 2 / 3 + 3 / 4
    got = {f: dict(table.translations(f)) for f in table.source_vocab.tolist()}
    assert got["la"] == pytest.approx({e: c / total_la for e, c in c_la.items()}, abs=1e-15)
    assert got[NULL] == got["la"]  # NULL occurs once per pair, like "la"
    assert got["casa"] == pytest.approx({e: c / total_casa for e, c in c_casa.items()}, abs=1e-15)
    assert got["verde"] == pytest.approx({"the": 1 / 3, "green": 1 / 3, "house": 1 / 3}, abs=1e-15)
    assert got["flor"] == pytest.approx({"the": 1 / 2, "flower": 1 / 2}, abs=1e-15)
    assert got["la"]["the"] == pytest.approx(11 / 25, abs=1e-15)


def test_ibm1_equals_positionwise_oracle_on_verses_with_repeated_words():
    table = train_ibm1(GEN_ES, GEN_EN, iterations=5)
    oracle = naive_ibm1(GEN_ES, GEN_EN, 5)
    assert table.nnz == len(oracle)
    for f in table.source_vocab.tolist():
        for e, p in table.translations(f):
            assert p == pytest.approx(oracle[(e, f)], rel=1e-12)


def test_ibm1_converges_to_the_obvious_word_pairs():
    table = train_ibm1(CASA_ES, CASA_EN, iterations=30)
    best = {f: table.translations(f, 1)[0] for f in ("casa", "verde", "flor", "la")}
    assert {f: e for f, (e, _) in best.items()} == {"casa": "house", "verde": "green", "flor": "flower", "la": "the"}
    assert best["casa"][1] > 0.99 and best["flor"][1] > 0.99 and best["verde"][1] > 0.99


def test_ibm1_rows_sum_to_one_and_log_likelihood_never_decreases():
    table = train_ibm1(GEN_ES + CASA_ES, GEN_EN + CASA_EN, iterations=8)
    np.testing.assert_allclose(table.row_sums(), 1.0, rtol=0, atol=1e-12)
    ll = table.params["log_likelihood"]
    assert len(ll) == 8 and all(b >= a - 1e-9 for a, b in zip(ll, ll[1:]))


def test_ibm1_is_deterministic_and_direction_swaps_vocabularies():
    a = train_ibm1(GEN_ES, GEN_EN)
    b = train_ibm1(GEN_ES, GEN_EN)
    assert np.array_equal(a.probs.data, b.probs.data) and np.array_equal(a.probs.indices, b.probs.indices)
    reverse = train_ibm1(GEN_EN, GEN_ES)
    assert "dios" in reverse.target_vocab and "god" in reverse.source_vocab


def test_ibm1_without_null_has_no_null_row():
    table = train_ibm1(CASA_ES, CASA_EN, iterations=1, null=False)
    assert NULL not in table.source_vocab
    assert table.translations("flor") == [("flower", 0.5), ("the", 0.5)]


def test_ibm1_skips_pairs_with_an_empty_side_and_rejects_strings():
    table = train_ibm1(CASA_ES + [[], ["sol"]], CASA_EN + [["sun"], []], iterations=2)
    assert table.params["n_pairs"] == 3 and table.params["n_pairs_skipped"] == 2
    assert "sol" not in table
    with pytest.raises(TypeError, match="list of tokens"):
        train_ibm1(["la casa"], [["the", "house"]])
    with pytest.raises(ValueError, match="2 source sentences but 1"):
        train_ibm1(CASA_ES[:2], CASA_EN[:1])


# ---------------------------------------------------------------------------------------------
# table lookups


def small_table() -> TranslationTable:
    # source word "a": w .5, x .45, y .04, z .01; "b": x .004, y .996; "c": q 1
    return TranslationTable.from_triples(
        ["a", "a", "a", "a", "b", "b", "c"],
        ["w", "x", "y", "z", "x", "y", "q"],
        [0.5, 0.45, 0.04, 0.01, 0.004, 0.996, 1.0],
    )


def test_translations_are_sorted_by_probability_then_word_and_unknown_is_empty():
    table = TranslationTable.from_triples(["f", "f", "f"], ["c", "b", "a"], [0.25, 0.5, 0.25])
    assert table.translations("f") == [("b", 0.5), ("a", 0.25), ("c", 0.25)]
    assert table.translations("f", 1) == [("b", 0.5)]
    assert table.translations("unknown") == [] and "unknown" not in table
    tie = TranslationTable.from_triples(["g", "g"], ["zeta", "alfa"], [0.5, 0.5])
    assert tie.target_vocab[tie.best_targets()[0]] == "alfa"  # no rank, no frequency: alphabetical


def ranked_table() -> TranslationTable:
    # casa: house (rank 1), home (rank 2), hut (unranked), all p = 1/3; luz: light .6 (rank 2), lamp .4 (rank 1)
    return TranslationTable.from_triples(
        ["casa", "casa", "casa", "luz", "luz"],
        ["house", "home", "hut", "light", "lamp"],
        [1 / 3, 1 / 3, 1 / 3, 0.6, 0.4],
        ranks=[1, 2, 0, 2, 1],
    )


def test_ties_are_ordered_by_rank_with_unranked_options_last_and_probability_first():
    table = ranked_table()
    assert [e for e, _ in table.translations("casa")] == ["house", "home", "hut"]
    assert [e for e, _ in table.translations("luz")] == ["light", "lamp"]  # p before rank
    best = table.target_vocab[table.best_targets()].tolist()
    assert dict(zip(table.source_vocab.tolist(), best)) == {"casa": "house", "luz": "light"}
    assert table.entry_ranks().tolist() == [2, 1, 0, 1, 2]  # parallel to probs.data: casa home/house/hut, luz
    # a pair given twice keeps its lowest rank; ranks of cells without a probability are ignored
    twice = TranslationTable.from_triples(["f", "f", "f"], ["b", "a", "b"], [0.25, 0.5, 0.25], ranks=[3, 2, 1])
    assert twice.entry_ranks().tolist() == [2, 1] and twice.translations("f") == [("b", 0.5), ("a", 0.5)]
    with pytest.raises(ValueError, match=">= 1"):
        TranslationTable(table.source_vocab, table.target_vocab, table.probs, {}, -table.ranks)


def test_best_targets_with_frequencies_prefers_present_then_rarest_then_alphabetical():
    # no ranks: e1..e4 tie at .25; frequencies over the target vocabulary (0 = not in the collection)
    table = TranslationTable.from_triples(["f"] * 4, ["able", "bold", "cold", "dull"], [0.25] * 4)
    pick = lambda freq: table.target_vocab[table.best_targets(np.asarray(freq, dtype=float))[0]]  # noqa: E731
    assert pick([0, 0, 0, 0]) == "able"  # nothing known: alphabetical
    assert pick([0, 7, 3, 0]) == "cold"  # present before absent, then the rarest
    assert pick([0, 3, 3, 0]) == "bold"  # equally rare: alphabetical
    ranked = TranslationTable.from_triples(["f"] * 2, ["able", "bold"], [0.5, 0.5], ranks=[2, 1])
    assert ranked.target_vocab[ranked.best_targets(np.array([9.0, 0.0]))[0]] == "bold"  # rank before frequency
    with pytest.raises(ValueError, match="shape"):
        table.best_targets(np.ones(3))


# ---------------------------------------------------------------------------------------------
# pruning and interpolation (SPEC §4)


def test_prune_defaults_keep_the_option_that_crosses_c_then_renormalize():
    pruned = prune(small_table())  # L = 0.005, C = 0.95
    # a: w (.5) then x (.45) reaches .95 -> stop; b: x (.004) < L dropped; y alone
    assert dict(pruned.translations("a")) == pytest.approx({"w": 0.5 / 0.95, "x": 0.45 / 0.95}, abs=1e-15)
    assert pruned.translations("b") == [("y", 1.0)]
    assert pruned.translations("c") == [("q", 1.0)]


def test_prune_cumulative_keeps_the_crossing_option():
    pruned = prune(small_table(), min_prob=0.0, cumulative=0.9)
    # .5 < .9, .5+.45 = .95 crosses .9 -> x is kept, y is not
    assert dict(pruned.translations("a")) == pytest.approx({"w": 0.5 / 0.95, "x": 0.45 / 0.95}, abs=1e-15)
    pruned = prune(small_table(), min_prob=0.0, cumulative=0.99)
    assert dict(pruned.translations("a")) == pytest.approx(
        {"w": 0.5 / 0.99, "x": 0.45 / 0.99, "y": 0.04 / 0.99}, abs=1e-15
    )


def test_prune_stopwords_before_cumulative_and_at_most_m_options():
    pruned = prune(small_table(), min_prob=0.0, cumulative=0.95, target_stopwords=["w"])
    # without w: x .45, y .04, z .01 never reach .95 -> all kept, renormalized by .5
    assert dict(pruned.translations("a")) == pytest.approx({"x": 0.9, "y": 0.08, "z": 0.02}, abs=1e-15)
    pruned = prune(small_table(), min_prob=0.0, cumulative=None, max_options=1)
    assert pruned.translations("a") == [("w", 1.0)] and pruned.translations("b") == [("y", 1.0)]
    raw = prune(small_table(), min_prob=0.04, cumulative=None, renormalize=False)
    assert dict(raw.translations("a")) == {"w": 0.5, "x": 0.45, "y": 0.04}


def test_prune_row_losing_every_option_stays_known_but_empty():
    pruned = prune(small_table(), target_stopwords=["q"])
    assert pruned.translations("c") == [] and "c" in pruned.source_index


def test_prune_equals_a_per_row_python_reference_on_random_tables():
    rng = np.random.default_rng(7)
    dense = rng.dirichlet(np.full(30, 0.3), size=40) * (rng.random((40, 30)) < 0.6)
    table = TranslationTable(
        np.array([f"f{i:02d}" for i in range(40)]), np.array([f"e{j:02d}" for j in range(30)]), sp.csr_matrix(dense)
    )
    pruned = prune(table, min_prob=0.01, cumulative=0.8, max_options=5, target_stopwords=["e03", "e17"])
    for i in range(40):
        options = sorted(
            ((p, f"e{j:02d}") for j, p in enumerate(dense[i]) if p >= 0.01 and j not in (3, 17)),
            key=lambda x: (-x[0], x[1]),
        )
        kept, mass = [], 0.0
        for p, e in options:
            if mass >= 0.8 - 1e-12 or len(kept) == 5:
                break
            kept.append((e, p))
            mass += p
        total = sum(p for _, p in kept)
        expected = [(e, p / total) for e, p in kept]
        got = pruned.translations(f"f{i:02d}")
        assert [e for e, _ in got] == [e for e, _ in expected]
        np.testing.assert_allclose([p for _, p in got], [p for _, p in expected], rtol=1e-13)


def test_interpolate_over_the_union_then_renormalize():
    other = TranslationTable.from_triples(["a", "d"], ["w", "v"], [1.0, 1.0])
    mixed = interpolate(small_table(), other, 0.6)
    assert mixed.source_vocab.tolist() == ["a", "b", "c", "d"]
    # a: .6 * (.5, .45, .04, .01) + .4 * (w: 1) sums to 1 already
    assert dict(mixed.translations("a")) == pytest.approx(
        {"w": 0.6 * 0.5 + 0.4, "x": 0.6 * 0.45, "y": 0.6 * 0.04, "z": 0.6 * 0.01}, abs=1e-15
    )
    # words known to one table keep its (renormalized) distribution
    assert mixed.translations("d") == [("v", 1.0)]
    assert dict(mixed.translations("b")) == pytest.approx({"x": 0.004, "y": 0.996}, abs=1e-15)
    half = TranslationTable.from_triples(["a"], ["u"], [0.5])  # a row summing to .5
    mixed = interpolate(half, other, 0.5)
    assert dict(mixed.translations("a")) == pytest.approx({"u": 0.25 / 0.75, "w": 0.5 / 0.75}, abs=1e-15)
    with pytest.raises(ValueError):
        interpolate(half, other, 1.5)


def test_interpolate_with_one_weight_per_source_word_of_the_first_table():
    other = TranslationTable.from_triples(["a", "d"], ["w", "v"], [1.0, 1.0])
    first = small_table()  # words a, b, c
    mixed = interpolate(first, other, np.array([0.2, 0.9, 0.0]))
    # a: .2 * (.5, .45, .04, .01) + .8 * (w: 1), a full row already
    assert dict(mixed.translations("a")) == pytest.approx(
        {"w": 0.2 * 0.5 + 0.8, "x": 0.2 * 0.45, "y": 0.2 * 0.04, "z": 0.2 * 0.01}, abs=1e-15
    )
    assert mixed.translations("d") == [("v", 1.0)]  # unknown to the first table
    assert mixed.translations("c") == [("q", 1.0)]  # weight 0 but no other option: renormalized
    same = interpolate(first, other, np.full(3, 0.6))
    np.testing.assert_allclose(same.probs.toarray(), interpolate(first, other, 0.6).probs.toarray(), rtol=1e-15)
    assert mixed.params["interpolation"]["lambda"] == "per source word"
    with pytest.raises(ValueError, match="one per source word"):
        interpolate(first, other, np.array([0.5, 0.5]))
    with pytest.raises(ClirkitError, match="lam must be in"):
        interpolate(first, other, np.array([0.5, 1.5, 0.0]))


def test_coverage_weights_lean_on_the_second_table_for_rare_words():
    from clirkit.translation.prune import coverage_weights

    weights = coverage_weights(small_table(), {"a": 90, "b": 10}, lam=0.5, mu=10)
    assert weights.tolist() == pytest.approx([0.5 * 90 / 100, 0.5 * 10 / 20, 0.0])  # c unseen: 0
    assert coverage_weights(small_table(), {}, lam=0.5, mu=0).tolist() == [0.5, 0.5, 0.5]


def test_prune_and_interpolate_keep_ranks_and_languages():
    table = ranked_table()
    table.params.update(source_lang="es", target_lang="en")
    pruned = prune(table, min_prob=0.0, cumulative=0.5)  # casa: house (rank 1) then home crosses .5
    assert [e for e, _ in pruned.translations("casa")] == ["house", "home"]
    assert pruned.translations("luz") == [("light", 1.0)]  # .6 reaches .5 alone
    assert pruned.entry_ranks().tolist() == [2, 1, 2] and pruned.params["source_lang"] == "es"
    assert prune(table, max_options=1).translations("casa") == [("house", 1.0)]
    ibm = TranslationTable.from_triples(["casa"], ["home"], [1.0], {"source_lang": "es", "target_lang": None})
    mixed = interpolate(ibm, table, 0.5)
    assert mixed.params["source_lang"] == "es" and mixed.params["target_lang"] == "en"
    assert mixed.translations("casa")[0] == ("home", pytest.approx(0.5 + 0.5 / 3))
    assert dict(zip(mixed.source_vocab, mixed.target_vocab[mixed.best_targets()]))["luz"] == "light"
    assert mixed.ranks is not None and mixed.entry_ranks().tolist() == table.entry_ranks().tolist()
    german = TranslationTable.from_triples(["haus"], ["house"], [1.0], {"source_lang": "de"})
    with pytest.raises(ValueError, match="source_lang is 'de' in the first, 'es' in the second"):
        interpolate(german, table)


# ---------------------------------------------------------------------------------------------
# Moses and npz files


def assert_same_table(a: TranslationTable, b: TranslationTable) -> None:
    assert a.source_vocab.tolist() == b.source_vocab.tolist()
    assert a.target_vocab.tolist() == b.target_vocab.tolist()
    assert np.array_equal(a.probs.indptr, b.probs.indptr) and np.array_equal(a.probs.indices, b.probs.indices)
    assert np.array_equal(a.probs.data, b.probs.data)


def test_moses_round_trip_is_exact_and_lines_are_e_f_p(tmp_path):
    table = train_ibm1(GEN_ES, GEN_EN, iterations=5)
    path = tmp_path / "lex.e2f"
    save_moses(table, path)
    first = path.read_text(encoding="utf-8").splitlines()[0].split()
    e, f, p = first[0], first[1], float(first[2])
    assert dict(table.translations(f))[e] == p
    assert_same_table(table, load_moses(path))
    save_table(table, tmp_path / "lex.e2f.gz")
    assert_same_table(table, load_table(tmp_path / "lex.e2f.gz"))


def test_npz_round_trip_keeps_params_and_detects_format(tmp_path):
    table = train_ibm1(GEN_ES, GEN_EN, iterations=3)
    save_table(table, tmp_path / "t.npz")
    back = load_table(tmp_path / "t.npz")
    assert_same_table(table, back)
    assert back.params["iterations"] == 3 and back.params["log_likelihood"] == table.params["log_likelihood"]
    assert back.ranks is None and back.params["source_lang"] is None  # nothing told the languages
    shutil.copy(tmp_path / "t.npz", tmp_path / "renamed.bin")
    assert_same_table(table, load_table(tmp_path / "renamed.bin"))  # detected by content


def test_npz_keeps_ranks_and_languages_moses_text_keeps_probabilities(tmp_path):
    table = ranked_table()
    table.params.update(source_lang="es", target_lang="en")
    save_table(table, tmp_path / "t.npz")
    back = load_table(tmp_path / "t.npz")
    assert_same_table(table, back)
    assert back.entry_ranks().tolist() == table.entry_ranks().tolist()
    assert (back.params["source_lang"], back.params["target_lang"]) == ("es", "en")
    with pytest.raises(ClirkitError, match="source language is 'es', not 'de'"):
        load_table(tmp_path / "t.npz", source_lang="de")
    save_table(table, tmp_path / "t.e2f")
    text = load_table(tmp_path / "t.e2f", source_lang="es")
    assert_same_table(table, text)
    assert text.ranks is None and (text.params["source_lang"], text.params["target_lang"]) == ("es", None)
    with pytest.raises(ClirkitError, match="reversing applies to dictionaries"):
        load_table(tmp_path / "t.e2f", reverse=True)


def test_npz_load_rejects_other_kinds_versions_and_inconsistent_shapes(tmp_path):
    from clirkit.npzio import save_npz

    table = small_table()
    arrays = {
        "source_vocab": table.source_vocab,
        "target_vocab": table.target_vocab,
        "indptr": table.probs.indptr,
        "indices": table.probs.indices,
        "data": table.probs.data,
    }
    header = {"n_source": 3, "n_target": 5, "nnz": 7, "params": {}}
    save_npz(tmp_path / "v9.npz", "translation-table", 9, header, arrays)
    with pytest.raises(ClirkitError, match="version 9"):
        load_npz_table(tmp_path / "v9.npz")
    save_npz(tmp_path / "index.npz", "index", 1, header, arrays)
    with pytest.raises(ClirkitError, match="not a clirkit translation-table"):
        load_npz_table(tmp_path / "index.npz")
    save_npz(tmp_path / "shape.npz", "translation-table", 1, {**header, "n_source": 4}, arrays)
    with pytest.raises(ClirkitError, match="corrupt translation table"):
        load_npz_table(tmp_path / "shape.npz")
    save_npz(tmp_path / "cols.npz", "translation-table", 1, header, {**arrays, "indices": arrays["indices"] + 9})
    with pytest.raises(ClirkitError, match="corrupt translation table: indices has 10 at 0, above the maximum 4"):
        load_npz_table(tmp_path / "cols.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ClirkitError, match="junk.npz"):
        load_npz_table(tmp_path / "junk.npz")


def _tampered_table(tmp_path, header=None, **arrays):
    """The npz of small_table with header values and arrays replaced (an array given as None is left out)."""
    import json

    from clirkit.npzio import HEADER_KEY, encode_header

    save_table(small_table(), tmp_path / "good.npz")
    with np.load(tmp_path / "good.npz", allow_pickle=False) as npz:
        meta = json.loads(npz[HEADER_KEY].tobytes().decode("utf-8"))
        data = {k: npz[k] for k in npz.files if k != HEADER_KEY}
    meta.update(header or {})
    data.update(arrays)
    kept = {k: v for k, v in data.items() if v is not None}
    np.savez(tmp_path / "bad.npz", **{HEADER_KEY: encode_header(meta)}, **kept)
    return tmp_path / "bad.npz"


@pytest.mark.parametrize(
    "header, arrays, problem",
    [
        # an unsorted vocabulary loaded, and lookups by bisection (interpolation) found the wrong words
        (
            {},
            {"source_vocab": np.array(["b", "a", "c"])},
            r"source_vocab is not strictly increasing at 1 \('b' then 'a'\)",
        ),
        ({}, {"target_vocab": np.array(["q", "w", "x", "x", "z"])}, r"target_vocab is not strictly increasing at 3"),
        ({}, {"source_vocab": np.array(["", "b", "c"])}, "source_vocab holds an empty word at 0"),
        # a phrase's terms are joined by one space (dictionary phrases); other whitespace is corruption
        ({}, {"source_vocab": np.array(["a", "b  c", "d"])}, r'source_vocab holds a word with whitespace at 1: "b  c"'),
        ({}, {"source_vocab": np.array(["a", "b\tc", "d"])}, r"source_vocab holds a word with whitespace at 1"),
        (
            {},
            {"target_vocab": np.array(["q", "w", "x", "y\x00z", "z"])},
            "target_vocab holds a word with a NUL character at 3",
        ),
        (
            {},
            {"target_vocab": np.array(["q", "w", "x", "y", "z\ud800"])},
            r"target_vocab holds a string that is not valid "
            r"Unicode \(a lone surrogate\) at 4",
        ),
        ({}, {"source_vocab": np.array([1, 2, 3])}, "source_vocab must hold strings, got int64"),
        ({}, {"indices": np.array([0.0, 1, 2, 3, 0, 2, 0])}, "indices must hold integers, got float64"),
        ({}, {"indices": np.array([1, 0, 2, 3, 0, 2, 0])}, r"indices of row 0 are not strictly increasing \(at 1\)"),
        ({}, {"data": np.array([0.5, 0.45, np.nan, 0.01, 0.004, 0.996, 1.0])}, "data has NaN at 2"),
        ({}, {"data": np.array([0.5, 0.45, 2.0, 0.01, 0.004, 0.996, 1.0])}, "data has 2.0 at 2, above the maximum 1"),
        ({}, {"indptr": np.array([[0, 4, 6, 7]])}, r"indptr must be 1-dimensional, got shape \(1, 4\)"),
        ({}, {"ranks": np.array([1, 2, 3])}, r"ranks must have shape \(7,\), got \(3,\)"),
        ({}, {"ranks": np.array([1, 2, 3, 4, 1, 2, -1])}, "ranks has -1 at 6, below the minimum 0"),
        ({"n_source": "3"}, {}, 'header n_source must be an integer >= 0, got "3"'),
        ({"nnz": 8}, {}, "header nnz is 8 but the table holds 7 entries"),
        ({"params": "ibm1"}, {}, 'header params must be an object or null, got "ibm1"'),
        ({"params": {"source_lang": 5}}, {}, "header params.source_lang must be a string or null, got 5"),
        ({"params": {"source_frequent": "la"}}, {}, "header params.source_frequent must be a list of strings or null"),
        ({"params": {"source_analyzer": {"lang": "es"}}}, {}, "header params.source_analyzer: missing lowercase"),
        # two records of one language that disagree: dt and psq analyzed by one, ttable show and --source-lang read
        # the other
        (
            {"params": {"source_lang": "en", "target_lang": "es", "source_analyzer": Analyzer("de").to_dict()}},
            {},
            "header params.source_lang is 'en' but params.source_analyzer.lang is 'de': the table records two source",
        ),
        (
            {"params": {"target_lang": "es", "target_analyzer": Analyzer("pt").to_dict()}},
            {},
            "header params.target_lang is 'es' but params.target_analyzer.lang is 'pt'",
        ),
    ],
)
def test_a_tampered_npz_table_is_one_error_naming_the_problem_never_a_wrong_table(tmp_path, header, arrays, problem):
    path = _tampered_table(tmp_path, header, **arrays)
    with pytest.raises(ClirkitError, match=f"^{path}: corrupt translation table: {problem}") as info:
        load_table(path)
    assert "\n" not in str(info.value)


def test_a_tampered_table_with_null_params_or_no_ranks_still_loads(tmp_path):
    table = load_table(_tampered_table(tmp_path, {"params": None}))
    assert table.translations("b") == [("y", 0.996), ("x", 0.004)] and table.params["source_lang"] is None


@pytest.mark.parametrize(
    "line, problem",
    [
        ("house\x00 casa 0.5", r"t.e2f:2: 'house\\x00' contains a NUL character"),
        ("house " + "c" * 1001 + " 0.5", "t.e2f:2: an entry of 1,001 characters"),
    ],
)
def test_a_moses_word_with_a_nul_or_too_long_names_its_line(tmp_path, line, problem):
    (tmp_path / "t.e2f").write_text(f"light luz 1.0\n{line}\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=problem):
        load_moses(tmp_path / "t.e2f")


P_FIX = "; give p(e|f) as a number from 0 to 1 (e.g. 0.25)"


@pytest.mark.parametrize(
    "line, problem, other_format",
    [
        ("casa house", "expected 3 fields 'e f p', got 2", True),
        ("casa house 0.5 x", "expected 3 fields 'e f p', got 4", True),
        # the matrix's message sample: a repeated pair and a 5,000-digit probability were told to give --format
        ("casa house half", "probability 'half' is not a number" + P_FIX, False),
        ("casa house 1.5", "probability 1.5 is not in [0, 1]" + P_FIX, False),
        ("casa house nan", "probability nan is not in [0, 1]" + P_FIX, False),
        (
            "casa house " + "7" * 5000,
            "probability 7777777777777777777777777777777777777... is not in [0, 1]" + P_FIX,
            False,
        ),
        (
            "casa house 0.5",
            "pair casa house repeats line 1: a table gives each pair one probability; remove one of the two lines",
            False,
        ),
    ],
)
def test_moses_bad_line_reports_file_line_and_what_to_do_and_another_format_only_for_a_line_of_another_shape(
    tmp_path, line, problem, other_format
):
    path = tmp_path / "bad.e2f"
    path.write_text(f"casa house 0.5\nla the 1.0\n{line}\n", encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        load_table(path)
    message = str(err.value)
    assert (message.startswith(f"{path}:3: {problem}"), "--format" in message) == (True, other_format)
    if not other_format:
        assert message == f"{path}:3: {problem}"


def test_random_bytes_named_npz_are_not_a_zip_archive_not_text_to_convert_to_utf8(tmp_path):
    # the matrix's message sample: random bytes given as table.npz were read as text ("convert the file to UTF-8")
    path = tmp_path / "table.npz"
    path.write_bytes(bytes(range(128, 256)) * 8)
    with pytest.raises(ClirkitError) as err:
        load_table(path)
    assert str(err.value) == (
        f"{path}: not a clirkit translation-table file or corrupt (not a zip archive, as every "
        f".npz file is): check the path, or make the table again (`clirkit ttable train`, or "
        f"`ttable convert` of its source)"
    )


def test_a_missing_table_or_a_folder_says_so_whatever_the_format_guessed_from_its_name(tmp_path):
    # was "nothing.e2f: no such file" (no fix) and "FOLDER: is a directory, expected a file"
    with pytest.raises(ClirkitError) as err:
        load_table(tmp_path / "nothing.e2f")
    assert str(err.value) == (
        f"{tmp_path / 'nothing.e2f'}: no such file: check the path (a table is made by `clirkit "
        f"ttable train` or `ttable convert`)"
    )
    (tmp_path / "table.npz").write_bytes(b"")
    with pytest.raises(ClirkitError) as err:
        load_table(tmp_path)
    assert str(err.value) == (
        f"{tmp_path}: is a directory, expected a table or dictionary file: check the path (an "
        f"experiment folder? give {tmp_path / 'table.npz'})"
    )


def test_moses_empty_file_and_words_with_spaces_are_errors(tmp_path):
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match="empty translation table"):
        load_moses(tmp_path / "empty")
    spaced = TranslationTable.from_triples(["a bordo"], ["aboard"], [1.0])
    with pytest.raises(ClirkitError, match="without spaces"):
        save_moses(spaced, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_ibm1_incidences_sorted_by_a_packed_sort_equal_a_stable_argsort():
    from clirkit.translation.ibm1 import _sort_incidences

    rng = np.random.default_rng(0)  # 300 slots in order, each with distinct word pairs (keys < 50)
    sizes = rng.integers(1, 8, 300)
    keys = np.concatenate([rng.choice(50, n, replace=False) for n in sizes])
    slots, nf = np.repeat(np.arange(300), sizes), rng.integers(1, 9, len(keys))
    order = np.argsort(keys, kind="stable")
    expected = keys[order], slots[order], nf[order].astype(np.uint8)
    packed = _sort_incidences(keys.copy(), slots, nf.astype(np.uint8), 50, 300)  # packed into one int64
    fallback = _sort_incidences(keys.copy(), slots, nf.astype(np.uint8), 2**60, 300)  # too wide: np.argsort
    for got in (packed, fallback):
        for a, b in zip(got, expected):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype


def test_ttable_train_tokenizes_in_two_processes_by_default_one_on_one_core(monkeypatch):
    """(and writes the same table file with --jobs 1 and 2: tests/test_determinism.py)"""
    from clirkit import parallel
    from clirkit.cli import build_parser

    argv = ["ttable", "train", "--source", "en.txt", "--target", "es.txt", "-o", "t.npz"]
    for cores, jobs in ((8, 2), (1, 1)):
        monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
        monkeypatch.setattr(parallel.os, "cpu_count", lambda: cores)
        assert build_parser(argv).parse_args(argv).jobs == jobs


# ---------------------------------------------------------------------------------------------
# the `ttable` verb


@pytest.fixture
def parallel_files(tmp_path):
    es = [
        "Y dijo Dios: Sea la luz: y fué la luz.",
        "Y vió Dios que la luz era buena.",
        "Y llamó Dios á la luz Día, y á las tinieblas llamó Noche.",
    ]
    en = [
        'God said, "Let there be light," and there was light.',
        "God saw the light, and saw that it was good.",
        'God called the light "day", and the darkness he called "night".',
    ]
    (tmp_path / "es.txt").write_text("\n".join(es) + "\n", encoding="utf-8")
    (tmp_path / "en.txt").write_text("\n".join(en) + "\n", encoding="utf-8")
    return tmp_path


def test_ttable_train_both_directions_then_show(parallel_files, capsys):
    from clirkit.cli import main

    tmp = parallel_files
    assert (
        main(
            [
                "ttable",
                "train",
                "--source",
                str(tmp / "en.txt"),
                "--target",
                str(tmp / "es.txt"),
                "-o",
                str(tmp / "t.npz"),
                "--direction",
                "both",
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-q",
            ]
        )
        == 0
    )
    e2f, f2e = load_table(tmp / "t.e2f.npz"), load_table(tmp / "t.f2e.npz")
    assert "god" in e2f.source_index and "dios" in e2f.target_vocab
    assert "dios" in f2e.source_index and "god" in f2e.target_vocab
    assert e2f.params["source_analyzer"]["lang"] == "en" and f2e.params["source_analyzer"]["lang"] == "es"
    assert (e2f.params["source_lang"], e2f.params["target_lang"]) == ("en", "es")
    assert (f2e.params["source_lang"], f2e.params["target_lang"]) == ("es", "en")
    np.testing.assert_allclose(e2f.row_sums(), 1.0, atol=1e-12)
    capsys.readouterr()
    assert main(["ttable", "show", str(tmp / "t.e2f.npz"), "light", "nosuchword", "-n", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    best = e2f.translations("light", 2)
    assert out[0].startswith("light\t(") and out[1] == f"  {best[0][0]}\t{best[0][1]:.6f}" and len(out) == 4
    assert out[3].startswith("nosuchword\t(no translations")


def test_ttable_train_refuses_misaligned_files(parallel_files, capsys):
    from clirkit.cli import main

    tmp = parallel_files
    (tmp / "short.txt").write_text("uno\n", encoding="utf-8")
    assert (
        main(
            [
                "ttable",
                "train",
                "--source",
                str(tmp / "en.txt"),
                "--target",
                str(tmp / "short.txt"),
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-o",
                str(tmp / "t.npz"),
                "-q",
            ]
        )
        == 2
    )
    assert "has 3 lines but" in capsys.readouterr().err and not (tmp / "t.npz").exists()


def test_ttable_prune_and_convert_write_what_the_library_computes(tmp_path):
    from clirkit.cli import main

    save_table(small_table(), tmp_path / "t.e2f")
    assert main(["ttable", "prune", str(tmp_path / "t.e2f"), "-o", str(tmp_path / "p.npz"), "--max-options", "1"]) == 0
    assert_same_table(load_table(tmp_path / "p.npz"), prune(small_table(), max_options=1))
    (tmp_path / "d.txt").write_text("luz light\nluz lamp\n", encoding="utf-8")
    assert (
        main(
            [
                "ttable",
                "convert",
                str(tmp_path / "d.txt"),
                "--format",
                "pairs",
                "-o",
                str(tmp_path / "d.e2f"),
                "--source-lang",
                "es",
                "--target-lang",
                "en",
                "-q",
            ]
        )
        == 0
    )
    assert (tmp_path / "d.e2f").read_text(encoding="utf-8") == "lamp luz 0.5\nlight luz 0.5\n"


def test_ttable_show_bad_table_exits_2_with_file_and_line(tmp_path, capsys):
    from clirkit.cli import main

    (tmp_path / "bad.e2f").write_text("casa house 0.5\ncasa\n", encoding="utf-8")
    assert main(["ttable", "show", str(tmp_path / "bad.e2f"), "house"]) == 2
    assert f"{tmp_path / 'bad.e2f'}:2: expected 3 fields" in capsys.readouterr().err


def test_ttable_train_aligned_by_id_joins_the_shared_ids(parallel_files):
    from clirkit.cli import main

    tmp = parallel_files
    (tmp / "es.tsv").write_text(
        "Gen.1.3\tY dijo Dios: Sea la luz.\nGen.1.4\tY vió Dios la luz.\nGen.1.9\tY dijo Dios: Júntense las aguas.\n",
        encoding="utf-8",
    )
    (tmp / "en.tsv").write_text(
        "Gen.1.4\tGod saw the light.\nGen.1.3\tGod said, Let there be light.\n", encoding="utf-8"
    )
    assert (
        main(
            [
                "ttable",
                "train",
                "--source",
                str(tmp / "es.tsv"),
                "--target",
                str(tmp / "en.tsv"),
                "--aligned-by",
                "id",
                "--source-lang",
                "es",
                "--target-lang",
                "en",
                "-o",
                str(tmp / "t.e2f"),
                "-q",
            ]
        )
        == 0
    )
    table = load_table(tmp / "t.e2f")
    assert table.params == {
        "model": "moses",
        "file": str(tmp / "t.e2f"),  # Moses text keeps no params
        "source_lang": None,
        "target_lang": None,
    }
    assert "aguas" not in table.source_index and "júntense" not in table.source_index  # Gen.1.9 has no mate
    assert {e for e, _ in table.translations("luz")} == {"god", "said", "let", "there", "be", "light", "saw", "the"}


def test_a_table_is_written_and_read_by_the_file_functions(tmp_path):
    from clirkit.translation import TranslationTable, load_table, save_table

    table = TranslationTable.from_triples(["light", "light"], ["luz", "lumbre"], [0.75, 0.25])
    save_table(table, tmp_path / "t.npz")
    assert load_table(tmp_path / "t.npz").translations("light") == [("luz", 0.75), ("lumbre", 0.25)]
    assert not hasattr(TranslationTable, "load") and not hasattr(TranslationTable, "save")  # no I/O in the class
