"""Dictionaries as translation tables: the pairs, MUSE, FreeDict and Ding readers on hand-made files
(tests/data/dictionaries), rank order and weights, multi-word entries (split, kept, dropped and counted),
format detection and its error message, the languages stored, and the `ttable` options for them.

The readers are tested on whole words (``stemmer=None``, ``--stemmer none``): what they pin (pairs, ranks,
weights, multi-word entries) does not depend on the analysis of the words; the default analysis of entries
(Snowball stems) is tested in test_defaults.py."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from clirkit.cli import main
from clirkit.datasets._runtime import default_shared
from clirkit.dt import translate_tokens
from clirkit.errors import ClirkitError
from clirkit.translation import (
    dictionary_table,
    ding_entries,
    guess_format,
    languages_from_name,
    load_ding,
    load_freedict,
    load_muse,
    load_pairs,
    load_table,
    save_table,
    train_ibm1,
)

DATA = Path(__file__).parent / "data" / "dictionaries"
DING = DATA / "de-en.ding.txt"
MUSE = DATA / "es-en.dict"
PAIRS = DATA / "es-en.pairs.tsv"
FREEDICT = DATA / "freedict-spa-eng.index"
SHARED = default_shared() / "data"


def words(table, f):
    return [e for e, _ in table.translations(f)]


# ---------------------------------------------------------------------------------------------
# Ding


def test_ding_alternatives_pair_in_order_synonyms_cross_and_markup_goes(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text("Haus {n}; Heim {n} [ugs.] | Häuser {pl} :: house; home (dwelling) | houses\n", encoding="utf-8")
    # '|' alternatives align left to right; ';' synonyms of one alternative pair with each other
    assert list(ding_entries(path)) == [
        ("Haus", "house", 0),
        ("Haus", "home", 0),
        ("Heim", "house", 1),
        ("Heim", "home", 1),
        ("Häuser", "houses", 1),
    ]
    # braces may hold ';' ({went; gone}); placeholders, edge punctuation and the infinitive 'to' go
    path.write_text(
        "gehen {vi} | etw. abholen {vt} | Geh! :: to go {went; gone} | to collect sth. | Go!\n", encoding="utf-8"
    )
    assert list(ding_entries(path)) == [("gehen", "go", 0), ("abholen", "collect", 1), ("Geh", "Go", 1)]
    assert [t for _, t, _ in ding_entries(path, english_right=False)] == ["to go", "to collect", "Go"]


def test_ding_file_counts_pairs_keeps_multiword_sources_as_phrases_splits_multiword_targets():
    table = load_ding(DING, stemmer=None)
    p = table.params
    # pairs per line: Anstalt 2x2 + 2x2 = 8; Haus 1 + 1 + 1 = 3; gehen 4; Licht 2; abholen 1x2 + 1x2 = 4
    assert p["n_pairs_read"] == 21
    assert p["n_multiword_source"] == 3 and p["n_multiword_source_dropped"] == 0  # ein Haus bauen, nach Hause
    # gehen, Licht machen; multi-word targets: abholen -> pick up, abholend -> picking up and the 3 phrases' own
    assert p["n_multiword_target"] == 5
    assert (p["format"], p["weighting"], p["multiword_target"]) == ("ding", "uniform", "split")
    assert (p["source_lang"], p["target_lang"]) == ("de", "en") and p["languages_from"] == "the file name"
    assert "ein" not in table and "licht machen" in table.source_index and "ein haus bauen" in table.source_index
    dropped = load_ding(DING, stemmer=None, multiword_source="drop")
    assert dropped.params["n_multiword_source_dropped"] == 3 and "licht machen" not in dropped.source_index
    # uniform p; the entry where haus is the headword ranks first, then file order
    assert table.translations("haus") == [
        ("house", pytest.approx(1 / 3)),
        ("establishment", pytest.approx(1 / 3)),
        ("institution", pytest.approx(1 / 3)),
    ]
    assert table.translations("gehen") == [("go", 1.0)]
    assert table.translations("licht") == [("light", 1.0)]
    # "pick up" split: its weight 1/2 shared by its two words, which keep its rank (2)
    assert table.translations("abholen") == [("collect", 0.5), ("pick", 0.25), ("up", 0.25)]
    assert translate_tokens(table, [["haus", "abholen", "häuser"]]) == [["house", "collect", "establishments"]]


def test_ding_multiword_targets_kept_as_phrases_or_dropped_by_option():
    phrase = load_ding(DING, multiword_target="phrase", stemmer=None)
    assert phrase.translations("abholen") == [("collect", 0.5), ("pick up", 0.5)]
    dropped = load_ding(DING, multiword_target="drop", stemmer=None)
    assert dropped.translations("abholen") == [("collect", 1.0)]
    assert dropped.params["n_multiword_target"] == 5 and dropped.params["multiword_target"] == "drop"


def test_ding_reversed_reads_english_to_german():
    table = load_ding(DING, reverse=True, stemmer=None)
    assert (table.params["source_lang"], table.params["target_lang"]) == ("en", "de")
    assert table.translations("go") == [("gehen", 1.0)]
    assert table.translations("house") == [("haus", 1.0)]
    assert words(table, "establishment") == ["anstalt", "haus"]
    assert "build" not in table and "pick" not in table  # multi-word sources ("build a house") dropped


@pytest.mark.parametrize(
    "line,problem",
    [
        ("Haus :: house :: home", "expected 'left side :: right side' (Ding format), found 2 ' :: ' separators"),
        ("Haus | Häuser :: house", "2 alternatives ('|') on the left side but 1 on the right"),
        ("Haus {n}", "expected 'left side :: right side' (Ding format), found 0 ' :: ' separators"),
    ],
)
def test_ding_bad_line_reports_file_and_line(tmp_path, line, problem):
    path = tmp_path / "de-en.txt"
    path.write_text(f"# comment :: line\nHaus {{n}} :: house\n{line}\n", encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        load_ding(path)
    assert str(err.value) == f"{path}:3: {problem}"


# ---------------------------------------------------------------------------------------------
# MUSE


def test_muse_keeps_the_file_order_as_rank_and_weighs_by_normalized_inverse_rank_when_asked(tmp_path):
    table = load_muse(MUSE, weighting="rank", stemmer=None)
    # jugador: player, gambler, gamer: p = (1/r) / (1 + 1/2 + 1/3) = 6/11, 3/11, 2/11
    assert table.translations("jugador") == [
        ("player", pytest.approx(6 / 11)),
        ("gambler", pytest.approx(3 / 11)),
        ("gamer", pytest.approx(2 / 11)),
    ]
    assert table.translations("casa") == [("house", pytest.approx(2 / 3)), ("home", pytest.approx(1 / 3))]
    assert table.params["weighting"] == "rank" and (table.params["source_lang"], table.params["target_lang"]) == (
        "es",
        "en",
    )
    # DT takes MUSE's first translation, not the alphabetically first
    assert translate_tokens(table, [["casa", "jugador", "puntos"]]) == [["house", "player", "dots"]]
    # the order matters: the same pairs listed the other way round give the other translations
    lines = MUSE.read_text(encoding="utf-8").splitlines()
    (tmp_path / "es-en.dict").write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    backwards = load_muse(tmp_path / "es-en.dict", stemmer=None)
    assert translate_tokens(backwards, [["casa", "jugador", "puntos"]]) == [["home", "gamer", "stitches"]]
    # uniform weights, the default (chosen across collections, baselines/README.md): every translation ties, and
    # the rank still decides
    uniform = load_muse(MUSE, stemmer=None)
    assert (
        uniform.params["weighting"] == "uniform"
        and load_muse(MUSE, weighting="uniform", stemmer=None).params == uniform.params
    )
    assert uniform.translations("jugador") == [
        ("player", pytest.approx(1 / 3)),
        ("gambler", pytest.approx(1 / 3)),
        ("gamer", pytest.approx(1 / 3)),
    ]
    assert translate_tokens(uniform, [["casa", "jugador", "puntos"]]) == [["house", "player", "dots"]]
    assert translate_tokens(load_muse(tmp_path / "es-en.dict", stemmer=None), [["casa", "jugador", "puntos"]]) == [
        ["home", "gamer", "stitches"]
    ]


def test_muse_reads_its_own_text_form_and_reports_bad_lines(tmp_path):
    (tmp_path / "es-en.txt").write_text("casa house\ncasa home\n", encoding="utf-8")
    table = load_table(tmp_path / "es-en.txt", "muse", stemmer=None)
    assert table.translations("casa") == [("house", pytest.approx(1 / 2)), ("home", pytest.approx(1 / 2))]
    (tmp_path / "bad.dict").write_text("that @ que\nthe los\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"bad.dict:2: expected 'target @ source'"):
        load_muse(tmp_path / "bad.dict")
    (tmp_path / "bad.txt").write_text("que that\nque\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"bad.txt:2: expected 2 fields 'source target' \(MUSE text form\)"):
        load_muse(tmp_path / "bad.txt")


needs_muse = pytest.mark.skipif(not (SHARED / "muse" / "es-en.dict").exists(), reason="../shared/data/muse absent")


@needs_muse
def test_real_muse_slice_lines_are_target_at_source(tmp_path):
    # a slice of the real file, made at test time (MUSE files are not copied into the repository)
    lines = (SHARED / "muse" / "es-en.dict").read_text(encoding="utf-8").splitlines()[:400]
    (tmp_path / "es-en.dict").write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = load_table(tmp_path / "es-en.dict", stemmer=None)
    pairs = [line.split(" @ ") for line in lines]
    first_target, first_source = pairs[0]  # "that @ que": Spanish que -> that
    translations = [t for t, s in pairs if s == first_source]
    assert words(table, first_source) == translations  # most probable first, in the file's order
    assert translate_tokens(table, [[first_source]]) == [[first_target]]


# ---------------------------------------------------------------------------------------------
# plain pairs and FreeDict


def test_pairs_are_uniform_ranked_by_line_with_phrases_split_and_sources_kept_as_phrases(tmp_path):
    table = load_pairs(PAIRS, stemmer=None)
    assert table.translations("luz") == [("light", 0.5), ("lamp", 0.5)]  # line order breaks the tie
    # tierra: earth, land, "dry land" (1/3 each); dry land split: land 1/3 + 1/6, dry 1/6 (rank 3)
    assert table.translations("tierra") == [
        ("land", pytest.approx(0.5)),
        ("earth", pytest.approx(1 / 3)),
        ("dry", pytest.approx(1 / 6)),
    ]
    assert table.params["n_multiword_source"] == 1 and table.params["n_multiword_target"] == 2  # a bordo, dry land
    assert "a" not in table and "a bordo" in table.source_index and table.params["n_pairs_read"] == 7
    path = tmp_path / "dict.txt"
    path.write_text("luz\tlight\nluz light\nluz\tLamp\nDios God\n", encoding="utf-8")
    table = load_pairs(path, stemmer=None)
    assert table.translations("luz") == [("light", 0.5), ("lamp", 0.5)]  # a repeated pair counts once
    assert load_pairs(path, lowercase=False, stemmer=None).translations("Dios") == [("God", 1.0)]
    assert (table.params["source_lang"], table.params["target_lang"], table.params["languages_from"]) == (
        None,
        None,
        None,
    )  # "dict.txt" says nothing
    assert load_pairs(path, source_lang="es", target_lang="en", stemmer=None).params["languages_from"] == "given"
    path.write_text("luz light\nluz\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"dict.txt:2: expected 2 fields"):
        load_pairs(path)
    path.write_text("a bordo\ton board\n", encoding="utf-8")
    assert sorted(load_pairs(path, stemmer=None).translations("a bordo")) == [("board", 0.5), ("on", 0.5)]
    with pytest.raises(ClirkitError, match="no usable translation pairs .* 1 with a multi-word source side"):
        load_pairs(path, multiword_source="drop")


def test_freedict_fixture_senses_labels_examples_and_phrases():
    table = load_freedict(FREEDICT, stemmer=None)
    # casa: house, home, household, "family home" (1/4 each; the phrase split: home gets 1/4 + 1/8)
    assert table.translations("casa") == [("home", 0.375), ("house", 0.25), ("household", 0.25), ("family", 0.125)]
    assert table.translations("luz") == [("light", 0.5), ("lamp", 0.5)]  # quoted example and [lit.] label gone
    assert table.params["n_pairs_read"] == 7 and table.params["n_multiword_source"] == 1  # a bordo: a phrase
    assert (table.params["source_lang"], table.params["target_lang"]) == ("es", "en")  # freedict-spa-eng
    assert not any(w.startswith("00database") for w in table.source_vocab.tolist())
    body = load_freedict(FREEDICT.with_suffix(".dict"), stemmer=None)  # named by its body: the same
    assert body.translations("casa") == table.translations("casa")


def test_freedict_bad_index_line_reports_file_and_line(tmp_path):
    body = b"casa /k/\nhouse, home\n"
    length = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[len(body)]  # dictd base64 digit
    with gzip.open(tmp_path / "x.dict.dz", "wb") as fh:
        fh.write(body)
    (tmp_path / "x.index").write_text(f"casa\tA\t{length}\nluz\tA\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"x.index:2: expected 3 tab-separated fields"):
        load_freedict(tmp_path / "x.index")
    (tmp_path / "x.index").write_text(f"casa\tA\t{length}\n", encoding="utf-8")
    assert load_freedict(tmp_path / "x.index").translations("casa") == [("house", 0.5), ("home", 0.5)]
    (tmp_path / "x.index").write_text("casa\tA\tZZ\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match="runs past the end"):
        load_freedict(tmp_path / "x.index")


def test_a_damaged_compressed_freedict_body_is_one_error_naming_it(tmp_path):
    z = bytearray(gzip.compress(b"casa /k/\nhouse, home\n" * 20, mtime=0))
    z[20] ^= 0xFF  # deflate damage, not a truncation: zlib.error
    (tmp_path / "x.dict.dz").write_bytes(bytes(z))
    (tmp_path / "x.index").write_text("casa\tA\tu\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"x.dict.dz: cannot read the dictionary body"):
        load_freedict(tmp_path / "x.index")


@pytest.mark.parametrize(
    "name, text, problem",
    [
        ("es-en.pairs.tsv", "luz\tlight\n\x00\tearth\n", r"es-en.pairs.tsv:2: '\\x00' contains a NUL character"),
        (
            "es-en.pairs.tsv",
            "luz\tlight\ntierra\t" + "e" * 1001 + "\n",
            "es-en.pairs.tsv:2: an entry of 1,001 characters",
        ),
        ("es-en.dict", "light @ luz\nearth\x00 @ tierra\n", r"es-en.dict:2: 'earth\\x00' contains a NUL character"),
        ("es-en.txt", "luz light\ntierra earth\x00\n", r"es-en.txt:2: 'earth\\x00' contains a NUL character"),
        (
            "de-en.ding.txt",
            "Haus {n} :: house\nLicht\x00 {n} :: light\n",
            r"de-en.ding.txt:2: 'Licht\\x00' contains a NUL",
        ),
    ],
)
def test_a_dictionary_word_with_a_nul_or_of_a_thousand_characters_is_an_error_naming_its_line(
    tmp_path, name, text, problem
):
    # numpy string arrays drop trailing NULs ("earth\0" became "earth", a second "earth") and are as wide as
    # their longest word
    fmt = {"es-en.pairs.tsv": "pairs", "es-en.dict": "muse", "es-en.txt": "muse", "de-en.ding.txt": "ding"}[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ClirkitError, match=problem):
        load_table(tmp_path / name, fmt)


needs_freedict = pytest.mark.skipif(
    not (SHARED / "freedict" / "freedict-spa-eng.index").exists(), reason="../shared/data/freedict absent"
)


@needs_freedict
def test_real_freedict_entries_are_parsed_into_translations():
    table = load_freedict(SHARED / "freedict" / "freedict-spa-eng.index", stemmer=None)
    # entry: "único /ˈuniko/\n1. alone, only, sole, solitary\n2. unique\n"
    assert table.translations("único") == [(e, 0.2) for e in ("alone", "only", "sole", "solitary", "unique")]
    assert "a bordo" in table.source_index and table.params["n_multiword_source"] > 0
    french = load_freedict(SHARED / "freedict" / "freedict-fra-eng.index", stemmer=None)
    # "abattis ... 2.  [cul] giblets": the [cul] label is not a translation
    assert set(words(french, "abattis")) == {"debris", "rubbish", "rubble", "giblets"}
    assert (french.params["source_lang"], french.params["target_lang"]) == ("fr", "en")


def test_dictionary_table_checks_its_options():
    with pytest.raises(ValueError, match="weighting"):
        dictionary_table([("a", "b")], weighting="zipf")
    with pytest.raises(ValueError, match="multiword_target"):
        dictionary_table([("a", "b")], multiword_target="join")
    assert dictionary_table([]).nnz == 0


# ---------------------------------------------------------------------------------------------
# format detection and languages


def test_format_is_detected_from_content_then_name(tmp_path):
    assert guess_format(DING) == ("ding", "the content of its first lines")
    assert guess_format(MUSE)[0] == "muse" and guess_format(PAIRS)[0] == "pairs"
    assert guess_format(FREEDICT) == ("freedict", "the name")
    assert guess_format(FREEDICT.with_suffix(".dict"))[0] == "freedict"  # a .dict beside its .index
    shutil.copy(DING, tmp_path / "table.e2f")  # the name says nothing
    assert guess_format(tmp_path / "table.e2f")[0] == "ding"
    assert load_table(tmp_path / "table.e2f", stemmer=None).translations("gehen") == [("go", 1.0)]
    shutil.copy(MUSE, tmp_path / "muse.txt")
    assert guess_format(tmp_path / "muse.txt")[0] == "muse"
    (tmp_path / "lex.txt").write_text("house casa 0.5\nhome casa 0.5\n", encoding="utf-8")
    assert guess_format(tmp_path / "lex.txt")[0] == "moses"
    save_table(train_ibm1([["casa"]], [["house"]]), tmp_path / "t.bin", "npz")
    assert guess_format(tmp_path / "t.bin") == ("npz", "its content")
    (tmp_path / "mixed.dict").write_text("house @ casa\nhome casa 0.5\n", encoding="utf-8")
    assert guess_format(tmp_path / "mixed.dict")[0] == "muse"  # content fits none: the name


def test_a_failed_guess_is_named_in_the_error(tmp_path):
    path = tmp_path / "de-en.txt"
    path.write_text("A {n} | A-Dur {n} :: A | A major\nAal {m} eel 1 2\n", encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        load_table(path)
    assert str(err.value).startswith(
        f"{path}:1: expected 3 fields 'e f p', got 10 (Moses format, guessed from "
        f"the name; its first lines fit no one format: line 1 ding, line 2 no known "
        f"layout); give --format ding|muse|pairs|freedict"
    )
    with pytest.raises(ClirkitError) as err:
        load_table(path, "moses")  # named: no guess to explain
    assert str(err.value) == f"{path}:1: expected 3 fields 'e f p', got 10"
    with pytest.raises(ClirkitError, match=r"de-en.txt:2: expected 'left side :: right side' \(Ding format\)"):
        load_table(path, "ding")
    # content says pairs for the first lines, a later line does not fit
    path = tmp_path / "es-en.txt"
    path.write_text("luz light\n" * 25 + "luz light lamp\n", encoding="utf-8")
    with pytest.raises(
        ClirkitError,
        match=r"es-en.txt:26: expected 2 fields 'source target', got 3 \(pairs "
        r"format, guessed from the content of its first lines\); give --format "
        r"ding\|muse\|freedict\|moses",
    ):
        load_table(path)


@pytest.mark.parametrize(
    "name,languages",
    [
        ("es-en.dict", ("es", "en")),
        ("de-en.txt", ("de", "en")),
        ("freedict-spa-eng.index", ("es", "en")),
        ("es-en.0-5000.txt", ("es", "en")),
        ("dict_ger_eng.txt", ("de", "en")),
        ("dictionary.txt", None),
        ("en-us.txt", None),
        ("xx-yy.txt", None),
        ("es-es.txt", None),
    ],
)
def test_languages_from_the_file_name(name, languages):
    assert languages_from_name(Path("/some/de-fr") / name) == languages


def test_languages_given_override_the_name_and_a_ding_file_defaults_to_german_english(tmp_path):
    table = load_muse(MUSE, source_lang="ca", stemmer=None)
    assert (table.params["source_lang"], table.params["target_lang"]) == ("ca", "en")
    assert table.params["languages_from"] == "given and the file name"
    shutil.copy(DING, tmp_path / "woerterbuch.txt")
    table = load_table(tmp_path / "woerterbuch.txt")
    assert (table.params["source_lang"], table.params["target_lang"]) == ("de", "en")
    assert table.params["languages_from"] == "Ding's German :: English layout"
    reverse = load_table(tmp_path / "woerterbuch.txt", reverse=True)
    assert (reverse.params["source_lang"], reverse.params["target_lang"]) == ("en", "de")


# ---------------------------------------------------------------------------------------------
# the `ttable` verb with dictionaries


def test_ttable_convert_ding_counts_on_stderr_and_stores_languages_and_ranks(tmp_path, capsys):
    out = tmp_path / "ding.npz"
    assert main(["ttable", "convert", str(DING), "-o", str(out), "--stemmer", "none"]) == 0
    err = capsys.readouterr().err
    assert f"ttable convert: {DING}: 21 Ding pairs -> " in err
    assert (
        "ttable convert: 3 of 21 Ding pairs have a source side of several terms once analyzed: kept as phrases, "
        "which a query matches where their terms stand in a row"
    ) in err
    assert "ttable convert: of 21 pairs: 21 (100.0%) kept, 0 (0.0%) merged" in err
    assert "ttable convert: 5 of 21 Ding pairs have a multi-word target side: split into their words" in err
    assert "languages de -> en (the file name)" in err
    table = load_table(out)
    assert (table.params["source_lang"], table.params["target_lang"]) == ("de", "en")
    assert translate_tokens(table, [["haus"]]) == [["house"]]  # the rank survived the npz
    assert table.params["n_multiword_source"] == 3 and table.params["n_multiword_source_dropped"] == 0


def test_ttable_convert_needs_languages_a_dictionary_cannot_tell(tmp_path, capsys):
    src = tmp_path / "woerter.tsv"
    shutil.copy(PAIRS, src)
    assert main(["ttable", "convert", str(src), "-o", str(tmp_path / "d.npz"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "give --source-lang and --target-lang" in err and not (tmp_path / "d.npz").exists()
    assert (
        main(
            [
                "ttable",
                "convert",
                str(src),
                "-o",
                str(tmp_path / "d.npz"),
                "-q",
                "--source-lang",
                "es",
                "--target-lang",
                "en",
                "--multiword-target",
                "phrase",
                "--weights",
                "rank",
                "--stemmer",
                "none",
            ]
        )
        == 0
    )
    table = load_table(tmp_path / "d.npz")
    assert (table.params["source_lang"], table.params["target_lang"]) == ("es", "en")
    assert words(table, "tierra") == ["earth", "land", "dry land"] and table.params["weighting"] == "rank"
    # Moses text cannot keep the languages nor the ranks: said on stderr
    assert main(["ttable", "convert", str(tmp_path / "d.npz"), "-o", str(tmp_path / "d.e2f")]) == 2  # a space
    assert main(["ttable", "convert", str(MUSE), "-o", str(tmp_path / "m.e2f")]) == 0
    said = "languages and analysis (dt and psq read its words by how they meet the index, and say how) and dictionary ranks are"
    assert f"{said} not kept (write .npz" in capsys.readouterr().err


def test_ttable_prune_of_a_dictionary_keeps_its_languages(tmp_path):
    assert main(["ttable", "prune", str(MUSE), "-o", str(tmp_path / "p.npz"), "--max-options", "1", "-q"]) == 0
    table = load_table(tmp_path / "p.npz")
    assert table.translations("jugador") == [("player", 1.0)] and table.params["target_lang"] == "en"


@pytest.fixture
def parallel(tmp_path):
    (tmp_path / "es.txt").write_text("la casa\nla luz\n", encoding="utf-8")
    (tmp_path / "en.txt").write_text("the house\nthe light\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("verb", ["train", "show", "prune", "convert"])
def test_every_ttable_verb_is_silent_with_q(parallel, capsys, verb):
    tmp = parallel
    args = {
        "train": [
            "--source",
            str(tmp / "es.txt"),
            "--target",
            str(tmp / "en.txt"),
            "--source-lang",
            "es",
            "--target-lang",
            "en",
            "-o",
            str(tmp / "t.npz"),
        ],
        "show": [str(MUSE), "casa", "--stemmer", "none"],
        "prune": [str(MUSE), "-o", str(tmp / "p.npz")],
        "convert": [str(DING), "-o", str(tmp / "c.npz")],
    }[verb]
    assert main(["ttable", verb, *args]) == 0
    assert capsys.readouterr().err != ""  # says something on stderr by default
    assert main(["ttable", verb, *args, "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    if verb == "show":
        assert captured.out.startswith("casa\t(2 translations)\n  house\t0.500000\n  home\t0.500000\n")


def test_reverse_with_the_file_names_own_languages_is_one_error_not_a_mislabelled_table(tmp_path, capsys):
    from clirkit.cli import main

    (tmp_path / "en-es.txt").write_text("light luz\ngod dios\n", encoding="utf-8")
    out = tmp_path / "t.npz"
    args = ["ttable", "convert", str(tmp_path / "en-es.txt"), "-o", str(out), "--reverse", "-q"]
    assert main([*args, "--source-lang", "en", "--target-lang", "es"]) == 2
    err = capsys.readouterr().err
    assert "--reverse makes it es -> en" in err and "give --source-lang es --target-lang en" in err
    assert not out.exists()
    assert main([*args, "--source-lang", "es", "--target-lang", "en"]) == 0  # the table made: es -> en
    assert main(args) == 0  # or neither: the name's, swapped
