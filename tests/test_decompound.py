"""Tests of clirkit.decompound: Koehn and Knight's frequency-based compound splitting."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.decompound import DUTCH_FILLERS, CompoundSplitter
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.npzchecks import Corrupt

# Counts of lowercased surface tokens (Analyzer("de", stemmer=None).surface_tokens) in the German queries of the
# bundled debian-desc-de-en collection, all splits (pinned by test_lexicon_counts_are_those_of_the_bundled_queries)
COUNTS = {
    "verwaltungsprogramm": 4,
    "verwaltung": 141,
    "programm": 143,
    "entwicklungsdateien": 800,
    "entwicklung": 135,
    "dateien": 315,
    "versionsverwaltungssystem": 1,
    "versionsverwaltung": 3,
    "verwaltungssystem": 1,
    "version": 103,
    "system": 115,
    "befehlszeilenschnittstelle": 8,
    "befehlszeile": 11,
    "schnittstelle": 64,
    "spieleentwicklung": 1,
    "spiele": 8,
    "spiel": 54,
    "webserver": 15,
    "web": 10,
    "server": 94,
    "kriegsführung": 3,
    "hilfswerkzeug": 4,
    "werkzeug": 186,
    "hilfe": 35,
}


@pytest.fixture
def splitter() -> CompoundSplitter:
    return CompoundSplitter(COUNTS)


def german_query_tokens() -> list[list[str]]:
    collection = datasets.load("debian-desc-de-en")
    analyzer = Analyzer("de", stemmer=None)
    return [
        analyzer.surface_tokens(text)
        for split in ("train", "dev", "test")
        for text in collection.queries(split).values()
    ]


def test_lexicon_counts_are_those_of_the_bundled_queries():
    counts = Counter(t for tokens in german_query_tokens() for t in tokens)
    assert {w: counts[w] for w in COUNTS} == COUNTS


def test_split_wins_when_its_geometric_mean_beats_the_whole_words_count(splitter):
    assert math.sqrt(141 * 143) > 4  # verwaltung, programm vs verwaltungsprogramm
    assert splitter.split("verwaltungsprogramm") == ["verwaltung", "programm"]


def test_whole_word_wins_when_its_count_beats_the_geometric_mean(splitter):
    assert math.sqrt(135 * 315) < 800  # entwicklung, dateien vs entwicklungsdateien (206.2 < 800)
    assert splitter.split("entwicklungsdateien") == ["entwicklungsdateien"]


def test_three_parts_win_on_their_cube_root(splitter):
    # version s verwaltung s system: (103 * 141 * 115) ** (1/3) = 118.6, against the two-part splits
    # versionsverwaltung s system: sqrt(3 * 115) = 18.6 and version s verwaltungssystem: sqrt(103 * 1) = 10.1
    assert (103 * 141 * 115) ** (1 / 3) > max(math.sqrt(3 * 115), math.sqrt(103 * 1), 1)
    assert splitter.split("versionsverwaltungssystem") == ["version", "verwaltung", "system"]


def test_max_parts_bounds_the_number_of_parts():
    assert CompoundSplitter(COUNTS, max_parts=2).split("versionsverwaltungssystem") == ["versionsverwaltung", "system"]
    assert CompoundSplitter(COUNTS, max_parts=1).split("verwaltungsprogramm") == ["verwaltungsprogramm"]


def test_fillers_between_parts_are_dropped(splitter):
    assert splitter.split("verwaltungsprogramm") == ["verwaltung", "programm"]  # -s-
    assert math.sqrt(11 * 64) > 8
    assert splitter.split("befehlszeilenschnittstelle") == ["befehlszeile", "schnittstelle"]  # -n-


def test_the_filler_giving_the_higher_product_wins(splitter):
    # spiel -e- entwicklung: sqrt(54 * 135) = 85.4; spiele entwicklung (no filler): sqrt(8 * 135) = 32.9
    assert splitter.split("spieleentwicklung") == ["spiel", "entwicklung"]


def test_only_the_given_fillers_link_parts():
    no_fillers = CompoundSplitter(COUNTS, fillers=("",))
    assert no_fillers.split("verwaltungsprogramm") == ["verwaltungsprogramm"]
    assert no_fillers.split("spieleentwicklung") == ["spiele", "entwicklung"]
    assert CompoundSplitter(COUNTS, fillers=DUTCH_FILLERS).split("befehlszeilenschnittstelle") == [
        "befehlszeilenschnittstelle"
    ]  # no -n- in Dutch


def test_min_part_keeps_short_parts_out():
    assert CompoundSplitter(COUNTS).split("webserver") == ["webserver"]  # "web" has 3 letters
    assert math.sqrt(10 * 94) > 15
    assert CompoundSplitter(COUNTS, min_part=3).split("webserver") == ["web", "server"]


def test_a_word_with_an_unknown_part_stays_whole(splitter):
    assert splitter.split("kriegsführung") == ["kriegsführung"]  # neither krieg nor führung is known
    assert splitter.split("hilfswerkzeug") == ["hilfswerkzeug"]  # hilfe's dropped e is not restored
    assert splitter.split("verwaltungsprogrammierung") == ["verwaltungsprogrammierung"]  # unknown, no split
    assert splitter.split("") == [""]


def test_words_with_digits_or_hyphens_stay_whole():
    splitter = CompoundSplitter({"fenster": 6, "manager": 36, "system": 115, "plan": 9})
    assert splitter.split("x11-fenstermanager") == ["x11-fenstermanager"]
    assert splitter.split("fenster-manager") == ["fenster-manager"]
    assert splitter.split("fenstermanager") == ["fenster", "manager"]


def test_counts_below_min_count_are_unknown():
    splitter = CompoundSplitter(COUNTS, min_count=12)  # befehlszeile (11) is out
    assert splitter.count("befehlszeile") == 0 and splitter.count("schnittstelle") == 64
    assert splitter.split("befehlszeilenschnittstelle") == ["befehlszeilenschnittstelle"]


def test_equal_geometric_means_go_to_fewer_parts():
    # sqrt(90 * 360) == 180 exactly: the word alone wins
    assert CompoundSplitter({"datendateien": 180, "daten": 90, "dateien": 360}).split("datendateien") == [
        "datendateien"
    ]
    assert CompoundSplitter({"datendateien": 179, "daten": 90, "dateien": 360}).split("datendateien") == [
        "daten",
        "dateien",
    ]


def test_equal_products_go_to_the_lexicographically_smallest_parts():
    # spiel -e- entwicklung and spiele entwicklung: both 54 * 135; ("spiel", ...) < ("spiele", ...)
    counts = {"spiele": 54, "spiel": 54, "entwicklung": 135}
    assert CompoundSplitter(counts).split("spieleentwicklung") == ["spiel", "entwicklung"]
    assert CompoundSplitter(dict(reversed(counts.items()))).split("spieleentwicklung") == ["spiel", "entwicklung"]


def test_split_tokens_replaces_each_token_by_its_parts_in_order(splitter):
    tokens = ["ein", "verwaltungsprogramm", "für", "entwicklungsdateien"]
    assert splitter.split_tokens(tokens) == ["ein", "verwaltung", "programm", "für", "entwicklungsdateien"]


def test_from_tokens_counts_every_token():
    tokens = [["datendateien", "daten"], ["daten", "dateien", "dateien"]]
    splitter = CompoundSplitter.from_tokens(tokens)
    assert [splitter.count(w) for w in ("datendateien", "daten", "dateien", "datei")] == [1, 2, 2, 0]
    assert splitter.split("datendateien") == ["daten", "dateien"]  # sqrt(2 * 2) > 1


def test_split_many_on_a_corpus_equals_split_per_token():
    tokens = german_query_tokens()
    splitter = CompoundSplitter.from_tokens(tokens)
    some = tokens[:2000]
    assert splitter.split_many(some) == [[p for t in ts for p in splitter.split(t)] for ts in some]


def test_split_many_completes_on_100k_tokens_of_german():
    analyzer = Analyzer("de", stemmer=None)
    texts, tokens, n = datasets.load("debian-desc-de-en").parallel()[0], [], 0
    for text in texts:
        tokens.append(analyzer.surface_tokens(text))
        n += len(tokens[-1])
        if n >= 100_000:
            break
    splitter = CompoundSplitter.from_tokens(tokens)
    split = splitter.split_many(tokens)
    assert len(split) == len(tokens)
    assert sum(map(len, split)) > n  # some words split


def test_to_arrays_from_arrays_round_trip(tmp_path, splitter):
    arrays = splitter.to_arrays()
    assert arrays["words"].dtype.kind == "U" and arrays["counts"].dtype == np.int64
    assert arrays["words"].tolist() == sorted(COUNTS)
    np.savez(tmp_path / "lexicon.npz", **arrays)
    with np.load(tmp_path / "lexicon.npz", allow_pickle=False) as stored:
        again = CompoundSplitter.from_arrays(dict(stored), **splitter.get_params())
    assert again.to_arrays()["counts"].tolist() == arrays["counts"].tolist()
    assert again.get_params() == splitter.get_params()
    assert [again.split(w) for w in COUNTS] == [splitter.split(w) for w in COUNTS]


def test_from_arrays_rejects_damaged_arrays(splitter):
    arrays = splitter.to_arrays()
    with pytest.raises(Corrupt, match="words is not strictly increasing"):
        CompoundSplitter.from_arrays({**arrays, "words": arrays["words"][::-1]})
    with pytest.raises(Corrupt, match="counts must have shape"):
        CompoundSplitter.from_arrays({**arrays, "counts": arrays["counts"][1:]})
    with pytest.raises(Corrupt, match="below the minimum 0"):
        CompoundSplitter.from_arrays({**arrays, "counts": -arrays["counts"]})


def test_bad_settings_and_inputs_are_rejected():
    with pytest.raises(ClirkitError, match="min_part"):
        CompoundSplitter(COUNTS, min_part=0)
    with pytest.raises(ClirkitError, match="fillers"):
        CompoundSplitter(COUNTS, fillers="s")
    for bad in (-1, True, 1.5, "3"):
        with pytest.raises(ClirkitError, match=f"count of 'daten' must be an integer >= 0, got {bad!r}"):
            CompoundSplitter({"programm": 2, "daten": bad})
    with pytest.raises(TypeError, match="the words of counts must be str, got int"):
        CompoundSplitter({"daten": 2, 7: 1})
    numpy_counts = CompoundSplitter({"daten": np.int64(3), "verwaltung": np.int32(2), "x1": 5})
    assert numpy_counts._lexicon == {"daten": 3, "verwaltung": 2} and type(numpy_counts._lexicon["daten"]) is int
    with pytest.raises(TypeError, match="got a str"):
        CompoundSplitter(COUNTS).split_tokens("verwaltungsprogramm")
    with pytest.raises(TypeError, match="got a str"):
        CompoundSplitter.from_tokens(["daten", "dateien"])


# -- splitting queries against a translation table (DT and PSQ's decompound) ------------------------------------


def german_table():
    """A German -> English table over stemmed terms (Snowball), that knows the parts but not the compounds."""
    from clirkit.translation import TranslationTable

    de = Analyzer("de")
    words = {"verwaltung": "management", "programm": "program", "arbeit": "work", "platz": "place"}
    table = TranslationTable.from_triples([de.tokenize(w)[0] for w in words], list(words.values()), [1.0] * len(words))
    table.params.update(
        source_lang="de",
        target_lang="en",
        model="dictionary",
        source_analyzer=de.to_dict(),
        target_analyzer=Analyzer("en").to_dict(),
    )
    return table


def english_index():
    from clirkit.retrieval.index import Index

    en = Analyzer("en")
    texts = {"d1": "a management program", "d2": "a place of work", "d3": "nothing here"}
    return Index.from_tokens(list(texts), en.tokenize_many(list(texts.values())), en)


def test_the_table_splitter_splits_only_words_the_table_lacks_into_parts_whose_stems_it_has():
    from clirkit.decompound import table_splitter

    table, de = german_table(), Analyzer("de")
    splitter = table_splitter("table", table.source_vocab.tolist(), de)
    assert splitter.split("verwaltungsprogramm") == ["verwaltung", "programm"]
    assert splitter.split("arbeitsplatz") == ["arbeit", "platz"]  # the linking s dropped
    assert splitter.split("programme") == ["programme"]  # its stem is a term: kept whole
    assert splitter.split("kriegsführung") == ["kriegsführung"]  # no known parts
    assert table_splitter("auto", table.source_vocab.tolist(), de) is not None
    assert table_splitter("auto", table.source_vocab.tolist(), Analyzer("es")) is None  # not a compounding language
    assert table_splitter("auto", table.source_vocab.tolist(), Analyzer("nl")) is None  # split only when asked
    assert table_splitter("table", table.source_vocab.tolist(), Analyzer("nl")) is not None
    assert table_splitter("none", table.source_vocab.tolist(), de) is None


@pytest.mark.parametrize("kind", ["DT", "PSQ"])
def test_dt_and_psq_find_the_parts_of_a_compound_query_word_with_decompound(kind):
    from clirkit import systems

    cls = getattr(systems, kind)
    topics = {"q1": "Verwaltungsprogramm", "q2": "Arbeitsplatz"}
    plain = cls(decompound="none").fit(Resources(index=english_index(), table=german_table()))
    assert plain.search(topics).docids.tolist() == []  # the compounds pass through unmatched
    split = cls().fit(Resources(index=english_index(), table=german_table()))  # auto: German queries are split
    assert split.query_tokens(topics) == [["verwalt", "programm"], ["arbeit", "platz"]]
    run = split.search(topics)
    assert run.qids.tolist() == ["q1", "q2"] and run.docids.tolist() == ["d1", "d2"]


def test_the_decompound_option_of_the_dt_verb(tmp_path, capsys):
    from clirkit.cli import main
    from clirkit.formats import read_run
    from clirkit.translation import save_table

    index = tmp_path / "en.npz"
    english_index().save(index)
    save_table(german_table(), tmp_path / "de-en.npz")
    (tmp_path / "q.tsv").write_text("q1\tVerwaltungsprogramm\n", encoding="utf-8")
    for option in ("none", "auto"):
        out = tmp_path / f"{option}.run"
        assert (
            main(
                [
                    "dt",
                    "--index",
                    str(index),
                    "--queries",
                    str(tmp_path / "q.tsv"),
                    "--table",
                    str(tmp_path / "de-en.npz"),
                    "--decompound",
                    option,
                    "-o",
                    str(out),
                    "--quiet",
                ]
            )
            == 0
        )
    assert (tmp_path / "none.run").read_text() == ""  # the compound matched nothing
    assert read_run(tmp_path / "auto.run").docids.tolist() == ["d1"]
    with pytest.raises(SystemExit) as refused:
        main(
            [
                "dt",
                "--index",
                str(index),
                "--queries",
                str(tmp_path / "q.tsv"),
                "--table",
                str(tmp_path / "de-en.npz"),
                "--decompound",
                "yes",
                "-o",
                str(tmp_path / "x.run"),
            ]
        )
    assert refused.value.code == 2
    assert "--decompound" in capsys.readouterr().err
