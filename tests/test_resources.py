"""Translation resources besides dictionaries: Moses phrase tables (clirkit.translation.weighted), HLTCOE PSQ
json tables, tables counted from word alignments (clirkit.translation.alignments), Moses lex files, and MUSE's
own ``source target`` files told from plain pairs. Each is read on a small file written here, checked against the
hand formula, then taken end to end: ``clirkit ttable convert`` (or ``from-alignments``) to npz, and ``clirkit
psq`` over a tiny Spanish index (conftest's ``indexed_dir``: Snowball stems); and each reader's errors are one line
``clirkit: error: FILE:LINE: problem``."""

from __future__ import annotations

import gzip
import json

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.translation import guess_format, load_table
from clirkit.translation.alignments import table_from_alignments
from clirkit.translation.weighted import unescape_moses

QUERIES = "q1\tlight\nq2\tdarkness\n"
LIGHT_DOCS = {"Gen.1.3", "Gen.1.4", "Gen.1.5", "John.1.5"}  # the verses with "luz"
DARK_DOCS = {"Gen.1.2", "Gen.1.4", "Gen.1.5", "John.1.5"}  # the verses with "tinieblas"
TOP = {"q1": LIGHT_DOCS, "q2": DARK_DOCS}


def write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


def psq_docs(folder, table, *options) -> dict[str, set[str]]:
    """The documents `clirkit psq` ranks first per query over ``folder``/ix.npz with ``table``: as many as
    there are verses with the query's translation (a split phrase such as "la luz" adds a little "la",
    which finds other verses below them)."""
    write(folder / "q.tsv", QUERIES)
    run = folder / "psq.run"
    assert (
        main(
            [
                "psq",
                "--index",
                str(folder / "ix.npz"),
                "--queries",
                str(folder / "q.tsv"),
                "--table",
                str(table),
                "-o",
                str(run),
                "-q",
                *options,
            ]
        )
        == 0
    )
    ranked: dict[str, list[str]] = {}
    for line in run.read_text(encoding="utf-8").splitlines():
        qid, _, docid, *_ = line.split()
        ranked.setdefault(qid, []).append(docid)
    return {qid: set(docids[: len(TOP[qid])]) for qid, docids in ranked.items()}


def one_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


# ---------------------------------------------------------------------------------------------
# Moses phrase tables

PHRASES = """\
light ||| luz ||| 0.9 0.8 0.6 0.7 ||| 0-0 ||| 10 6 6
light ||| lumbrera ||| 0.5 0.4 0.2 0.3 ||| 0-0 ||| 4 2 2
light ||| la luz ||| 0.5 0.4 0.2 0.3 ||| 0-1 ||| 4 2 2
the light ||| la luz ||| 0.9 0.9 0.9 0.9 ||| 0-0 1-1 ||| 3 3 3
darkness ||| tinieblas ||| 0.7 0.6 0.5 0.4 ||| 0-0 ||| 5 5 5
, ||| , ||| 1 1 1 1 ||| 0-0 ||| 9 9 9
"""


def test_a_phrase_table_reads_p_t_given_s_from_its_third_score_and_handles_phrases_as_dictionaries_do(tmp_path):
    path = write(tmp_path / "en-es.phrase-table", PHRASES)
    assert guess_format(path) == ("phrase-table", "the content of its first lines")
    table = load_table(path, stemmer=None)
    # light: luz 0.6, lumbrera 0.2, "la luz" 0.2 split (la 0.1, luz 0.1): sum 1, nothing to renormalize
    assert dict(table.translations("light")) == pytest.approx({"luz": 0.7, "lumbrera": 0.2, "la": 0.1})
    # darkness: tinieblas 0.5 alone: renormalized to 1
    assert table.translations("darkness") == [("tinieblas", 1.0)]
    p = table.params
    assert (p["model"], p["score_column"], p["source_lang"], p["target_lang"]) == ("phrase-table", 3, "en", "es")
    assert (p["n_entries_read"], p["n_multiword_source_dropped"], p["n_multiword_target"]) == (6, 1, 1)
    assert p["n_without_terms"] == 1 and p["n_rows_renormalized"] == 1  # ", ||| ," ; darkness
    assert table.ranks is None and "the" not in table
    # kept whole or dropped, as --multiword-target says (each row renormalized again)
    phrase = load_table(path, multiword_target="phrase", stemmer=None)
    assert dict(phrase.translations("light")) == pytest.approx({"luz": 0.6, "lumbrera": 0.2, "la luz": 0.2})
    dropped = load_table(path, multiword_target="drop", stemmer=None)
    assert dict(dropped.translations("light")) == pytest.approx({"luz": 0.6 / 0.8, "lumbrera": 0.2 / 0.8})


def test_the_score_column_and_reverse_choose_the_direction_and_gz_is_read(tmp_path):
    path = tmp_path / "en-es.phrase-table.gz"
    path.write_bytes(gzip.compress(PHRASES.encode("utf-8")))
    assert guess_format(path)[0] == "phrase-table"
    # column 4, lex(t|s): luz 0.7, lumbrera 0.3, la luz 0.3 -> / 1.3
    lex = load_table(path, score_column=4, stemmer=None)
    assert dict(lex.translations("light")) == pytest.approx(
        {"luz": 0.85 / 1.3, "lumbrera": 0.3 / 1.3, "la": 0.15 / 1.3}
    )
    # reversed: Spanish -> English, p(s|t) (column 1) by default; "la luz" (twice) a multi-word source: dropped
    back = load_table(path, reverse=True, stemmer=None)
    assert (back.params["source_lang"], back.params["target_lang"], back.params["score_column"]) == ("es", "en", 1)
    assert back.translations("luz") == [("light", 1.0)] and back.translations("tinieblas") == [("darkness", 1.0)]
    assert "la" not in back and back.params["n_multiword_source_dropped"] == 2


def test_a_phrase_table_is_analyzed_as_the_index_and_moses_escapes_are_undone(tmp_path):
    path = write(
        tmp_path / "en-es.phrase-table",
        "light ||| luz ||| 1 1 0.5 1\nlights ||| luz ||| 1 1 0.5 1\nlight ||| lumbreras ||| 1 1 0.5 1\n"
        "light&apos;s ||| luz ||| 1 1 1 1\n",
    )
    table = load_table(path)  # Snowball stems: light and lights merge
    assert table.params["source_analyzer"]["stemmer"] == "snowball"
    assert dict(table.translations("light")) == pytest.approx({"luz": 2 / 3, "lumbrer": 1 / 3})
    assert table.params["n_multiword_source_dropped"] == 1  # light's -> light ' s: several terms
    assert unescape_moses("l&apos;eau &amp; &#124; &lt;b&gt; &quot;x&quot; &#91;1&#93;") == 'l\'eau & | <b> "x" [1]'


def test_a_phrase_table_end_to_end_through_convert_and_psq(indexed_dir, capsys):
    path = write(indexed_dir / "en-es.phrase-table", PHRASES)
    out = indexed_dir / "pt.npz"
    assert main(["ttable", "convert", str(path), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "6 phrase pairs -> 2 source words" in err and "p = score column 3 (p(t|s))" in err
    assert "1 of 6 phrase pairs have a multi-word source side: dropped" in err
    assert "1 of 2 source words had p summing to other than 1: renormalized" in err
    assert load_table(out).params["source_analyzer"]["lang"] == "en"
    found = psq_docs(indexed_dir, out)
    assert found["q1"] == LIGHT_DOCS and found["q2"] == DARK_DOCS
    assert psq_docs(indexed_dir, path) == found  # read directly: languages from the name


@pytest.mark.parametrize(
    "line,problem",
    [
        ("light ||| luz", "expected 'source ||| target ||| scores' (Moses phrase table), found 1 '|||' separators"),
        ("light |||  ||| 0.1 0.2 0.3 0.4", "empty target phrase"),
        (
            "light ||| luz ||| 0.1 0.2",
            "2 scores, no column 3 (--score-column; Moses writes 4: p(s|t) lex(s|t) p(t|s) lex(t|s))",
        ),
        ("light ||| luz ||| 0.1 0.2 x 0.4", "score 'x' (column 3) is not a number"),
        (
            "light ||| luz ||| 0.1 0.2 2.718 0.4",
            "score 2.718 (column 3) is not a probability in [0, 1]; choose the column of p(t|s) with --score-column",
        ),
    ],
)
def test_a_bad_phrase_table_line_is_one_error_naming_file_and_line(tmp_path, capsys, line, problem):
    path = write(tmp_path / "en-es.phrase-table", "darkness ||| tinieblas ||| 1 1 1 1\n" + line + "\n")
    assert main(["ttable", "convert", str(path), "--format", "phrase-table", "-o", str(tmp_path / "t.npz")]) == 2
    assert one_error(capsys).startswith(f"clirkit: error: {path}:2: {problem}")
    assert not (tmp_path / "t.npz").exists()


def test_phrase_table_options_are_refused_where_they_do_not_apply(tmp_path, capsys):
    write(tmp_path / "lex.f2e", "luz light 0.5\n")
    assert (
        main(["ttable", "convert", str(tmp_path / "lex.f2e"), "--score-column", "1", "-o", str(tmp_path / "t.npz")])
        == 2
    )
    assert "--score-column applies to Moses phrase tables, not to a Moses file" in one_error(capsys)
    path = write(tmp_path / "en-es.phrase-table", PHRASES)
    assert main(["ttable", "convert", str(path), "--weights", "rank", "-o", str(tmp_path / "t.npz")]) == 2
    assert "--weights applies to dictionaries" in one_error(capsys)
    assert main(["ttable", "convert", str(path), "--score-column", "0", "-o", str(tmp_path / "t.npz")]) == 2


# a table whose columns disagree: p(t|s) (column 3) says light -> luz, p(s|t) (column 1) light -> aguas
DISAGREE = """\
light ||| luz ||| 0.2 0.5 0.8 0.5 ||| 0-0 ||| 5 2 2
light ||| aguas ||| 0.9 0.5 0.2 0.5 ||| 0-0 ||| 9 2 2
darkness ||| tinieblas ||| 1 1 1 1 ||| 0-0 ||| 5 5 5
"""


@pytest.mark.parametrize("verb", ["dt", "psq"])
def test_dt_and_psq_score_column_give_the_run_of_converting_with_it_first(indexed_dir, capsys, verb):
    path = write(indexed_dir / "en-es.phrase-table", DISAGREE)
    write(indexed_dir / "q.tsv", QUERIES)

    def run(table, *options) -> str:
        out = indexed_dir / f"{verb}.run"
        assert (
            main(
                [
                    verb,
                    "--index",
                    str(indexed_dir / "ix.npz"),
                    "--queries",
                    str(indexed_dir / "q.tsv"),
                    "--table",
                    str(table),
                    "-o",
                    str(out),
                    "-q",
                    *options,
                ]
            )
            == 0
        ), capsys.readouterr().err
        return out.read_text(encoding="utf-8")

    for column in ("1", "3"):
        npz = indexed_dir / f"pt{column}.npz"
        assert main(["ttable", "convert", str(path), "--score-column", column, "-o", str(npz), "-q"]) == 0
        assert run(path, "--score-column", column) == run(npz)
    assert run(path) == run(indexed_dir / "pt3.npz") != run(indexed_dir / "pt1.npz")  # 3 is the default
    first = {line.split()[0]: line.split()[2] for line in reversed(run(path, "--score-column", "1").splitlines())}
    assert first["q1"] in {"Gen.1.6", "Gen.1.7"}  # light -> aguas: the verses of the waters
    assert run(path, "--score-column", "1", "--table-format", "phrase-table") == run(indexed_dir / "pt1.npz")


def test_score_column_of_dt_and_psq_is_refused_without_a_phrase_table(indexed_dir, capsys):
    write(indexed_dir / "q.tsv", QUERIES)
    npz = indexed_dir / "pt.npz"
    assert (
        main(["ttable", "convert", str(write(indexed_dir / "en-es.phrase-table", DISAGREE)), "-o", str(npz), "-q"]) == 0
    )
    base = [
        "--index",
        str(indexed_dir / "ix.npz"),
        "--queries",
        str(indexed_dir / "q.tsv"),
        "-o",
        str(indexed_dir / "x.run"),
        "--score-column",
        "1",
        "-q",
    ]
    for verb in ("dt", "psq"):
        assert main([verb, "--table", str(npz), *base]) == 2
        assert one_error(capsys) == (
            f"clirkit: error: {npz}: --score-column applies to Moses phrase tables, not to a npz file"
        )
    assert main(["dt", "--translated", str(indexed_dir / "q.tsv"), *base]) == 2
    assert one_error(capsys) == "clirkit: error: --score-column applies to a --table that is a Moses phrase table"
    # with two tables it applies to the one that is a phrase table
    assert main(["psq", "--table", str(npz), "--table2", str(indexed_dir / "en-es.phrase-table"), *base]) == 0
    assert (
        main(
            [
                "ttable",
                "convert",
                str(indexed_dir / "en-es.phrase-table"),
                "--score-column",
                "1",
                "-o",
                str(indexed_dir / "pt1.npz"),
                "-q",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "psq",
                "--table",
                str(npz),
                "--table2",
                str(indexed_dir / "pt1.npz"),
                "--index",
                str(indexed_dir / "ix.npz"),
                "--queries",
                str(indexed_dir / "q.tsv"),
                "-o",
                str(indexed_dir / "y.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (indexed_dir / "x.run").read_bytes() == (indexed_dir / "y.run").read_bytes()


def test_an_experiments_score_column_reads_the_phrase_table_as_converting_with_it_does(indexed_dir, capsys):
    """[table] score_column and a system's score_column give the runs of the table converted with
    --score-column; given with a table that is not a phrase table, it is an error before anything runs."""
    work = indexed_dir
    write(work / "en-es.phrase-table", DISAGREE)
    write(work / "q.tsv", QUERIES)
    write(work / "test.qrels", "q1 0 Gen.1.3 1\nq2 0 Gen.1.2 1\n")
    assert (
        main(
            [
                "ttable",
                "convert",
                str(work / "en-es.phrase-table"),
                "--score-column",
                "1",
                "-o",
                str(work / "pt1.npz"),
                "-q",
            ]
        )
        == 0
    )
    collection = (
        '[collection]\ndocuments = "docs.tsv"\nqueries = "q.tsv"\nqrels = "test.qrels"\n'
        'source_lang = "en"\ntarget_lang = "es"\n'
    )

    def runs(name: str, table: str, systems: str) -> dict[str, bytes]:
        write(work / f"{name}.toml", f'measures = ["AP"]\n{table}\n{collection}{systems}')
        assert main(["run", str(work / f"{name}.toml"), "-o", str(work / name), "-q"]) == 0, capsys.readouterr().err
        return {p.name: p.read_bytes() for p in sorted((work / name / "runs").glob("*.run.gz"))}

    systems = '[systems.DT]\nkind = "dt"\n[systems.PSQ]\nkind = "psq"\n'
    converted = runs("npz", '[table]\nfile = "pt1.npz"', systems)
    assert runs("column", '[table]\nfile = "en-es.phrase-table"\nscore_column = 1', systems) == converted
    own = systems.replace('kind = "dt"', 'kind = "dt"\ntable = "en-es.phrase-table"\nscore_column = 1')
    own = own.replace('kind = "psq"', 'kind = "psq"\ntable = "en-es.phrase-table"\nscore_column = 1')
    assert runs("own", "", own) == converted
    assert runs("default", '[table]\nfile = "en-es.phrase-table"', systems) != converted
    write(work / "bad.toml", f'measures = ["AP"]\n[table]\nfile = "pt1.npz"\nscore_column = 1\n{collection}{systems}')
    assert main(["run", str(work / "bad.toml"), "-o", str(work / "bad"), "-q"]) == 2
    assert one_error(capsys) == (
        f"clirkit: error: {work / 'bad.toml'}: system 'DT': score_column applies to a table "
        f"file that is a Moses phrase table, not to {work / 'pt1.npz'} (remove score_column, "
        f"or give the phrase table)"
    )
    assert not (work / "bad").exists()
    write(work / "bad.toml", f'measures = ["AP"]\n[table]\nscore_column = 0\n{collection}{systems}')
    assert main(["run", str(work / "bad.toml"), "-o", str(work / "bad"), "-q"]) == 2
    assert "[table]: score_column must be an integer >= 1" in one_error(capsys)


# ---------------------------------------------------------------------------------------------
# Moses lex files


def test_moses_lex_f2e_lines_e_f_p_are_p_e_given_f_with_f_the_tables_source(tmp_path):
    # Moses writes lex.f2e as "e f p(e|f)": here f = English (the queries'), e = Spanish
    path = write(tmp_path / "lex.f2e", "luz light 0.75\nlumbrera light 0.25\ntinieblas darkness 1.0\n")
    assert guess_format(path)[0] == "moses"
    table = load_table(path, source_lang="en", target_lang="es")
    assert table.translations("light") == [("luz", 0.75), ("lumbrera", 0.25)]
    assert "luz" not in table


# ---------------------------------------------------------------------------------------------
# HLTCOE PSQ json tables

PSQ_TABLE = {"light": {"luz": 0.5, "lumbrera": 0.25, "la luz": 0.25}, "darkness": {"tinieblas": 0.4}}


def test_a_psq_json_table_keeps_its_probabilities_and_renormalizes_rows_that_do_not_sum_to_one(tmp_path):
    path = tmp_path / "en-es.psq.gz"  # told by its content, not its name
    path.write_bytes(gzip.compress(json.dumps(PSQ_TABLE).encode("utf-8")))
    assert guess_format(path) == ("psq-json", "its content (a JSON object)")
    table = load_table(path, stemmer=None)
    assert dict(table.translations("light")) == pytest.approx({"luz": 0.625, "lumbrera": 0.25, "la": 0.125})
    assert table.translations("darkness") == [("tinieblas", 1.0)]  # 0.4 alone: renormalized
    p = table.params
    assert (p["model"], p["n_entries_read"], p["n_multiword_target"], p["n_rows_renormalized"]) == ("psq-json", 4, 1, 1)
    assert (p["source_lang"], p["target_lang"], p["languages_from"]) == ("en", "es", "the file name")


def test_a_psq_json_table_end_to_end_through_convert_and_psq(indexed_dir, capsys):
    path = write(indexed_dir / "table.json", json.dumps(PSQ_TABLE, indent=1))
    out = indexed_dir / "psq.npz"
    assert main(["ttable", "convert", str(path), "-o", str(out), "-q"]) == 2  # no language in the name
    assert "a table whose languages neither its format nor its name tells" in one_error(capsys)
    assert main(["ttable", "convert", str(path), "-o", str(out), "--source-lang", "en", "--target-lang", "es"]) == 0
    assert "4 PSQ table entries -> 2 source words" in capsys.readouterr().err
    found = psq_docs(indexed_dir, out)
    assert found["q1"] == LIGHT_DOCS and found["q2"] == DARK_DOCS


@pytest.mark.parametrize(
    "text,line,problem",
    [
        (
            '{\n "light": {\n  "luz": 0.5,\n  "lumbrera": 1.5\n }\n}',
            4,
            "the probability of 'light' -> 'lumbrera' is 1.5, not in [0, 1]",
        ),
        (
            '{\n "light": {"luz": 0.5},\n "dark": ["tinieblas"]\n}',
            3,
            "the translations of 'dark' must be an object {target word: probability}, found a list",
        ),
        ('{\n "light": {"luz": 0.5},\n "light": {"lumbrera": 0.5}\n}', 3, "source word 'light' given twice"),
        ('{\n "light": {\n  "luz": "0.5"\n }\n}', 3, "the probability of 'light' -> 'luz' is a string, not a number"),
        ('{\n "light": {"luz": 0.5}\n "dark": {}\n}', 3, "invalid JSON: Expecting ',' delimiter"),
        # found by tests/hardening/fuzz.py: each was a traceback (OverflowError, ValueError, RecursionError)
        (
            '{\n "light": {\n  "luz": ' + "7" * 400 + "\n }\n}",
            3,
            "the probability of 'light' -> 'luz' is 7777777777777777777777777777777777777..., not in [0, 1]",
        ),
        (
            '{\n "light": {\n  "luz": ' + "7" * 5000 + "\n }\n}",
            None,
            "invalid JSON for a PSQ table: a number of thousands of digits",
        ),
        ('{"light": ' + "[" * 100_000 + "]" * 100_000 + "}", None, "invalid JSON for a PSQ table: nested too deep"),
        # found by tests/hardening/malformed_matrix.py: read as a pairs dictionary, and a word dropped, each with exit 0
        (
            "[1, 2]\n",
            1,
            "expected a JSON object {source word: {target word: probability}} (HLTCOE PSQ table), found a list",
        ),
        (
            '{\n "light": {\n  "luz": 0.5,\n  "Q\\ud800": 0.5\n }\n}',
            4,
            r"'Q\ud800' holds an unpaired surrogate (not valid Unicode)",
        ),
    ],
)
def test_a_bad_psq_json_table_is_one_error_naming_the_line_of_the_entry(tmp_path, capsys, text, line, problem):
    path = write(tmp_path / "en-es.json", text)
    assert main(["ttable", "convert", str(path), "-o", str(tmp_path / "t.npz")]) == 2
    where = path if line is None else f"{path}:{line}"
    assert one_error(capsys).startswith(f"clirkit: error: {where}: {problem}")


def test_a_psq_json_table_cannot_be_reversed(tmp_path):
    path = write(tmp_path / "en-es.json", json.dumps(PSQ_TABLE))
    with pytest.raises(ClirkitError, match="reversing applies to dictionaries and phrase tables, not to a PSQ"):
        load_table(path, reverse=True)


# ---------------------------------------------------------------------------------------------
# tables from word alignments


@pytest.fixture
def aligned(tmp_path):
    """Three sentence pairs tokenized as an aligner saw them, with eflomal-style links."""
    write(tmp_path / "en.tok", "And God said , Let there be light\nthe light and the lights\ndarkness\n")
    write(tmp_path / "es.tok", "Y dijo Dios : Sea la luz\nla luz y las lumbreras\ntinieblas\n")
    # 1: and-y god-dios said-dijo ,-: light-luz light-la (the 'be' and 'let' unaligned)
    # 2: the-la light-luz and-y the-las lights-lumbreras ; 3: darkness-tinieblas
    write(tmp_path / "links", "0-0 1-2 2-1 3-3 7-6 7-5\n0-0 1-1 2-2 3-3 4-4\n0-0\n")
    return tmp_path


def test_alignment_counts_give_p_e_given_f_over_analyzed_tokens(aligned):
    t = aligned
    table = table_from_alignments(t / "en.tok", t / "es.tok", t / "links", "en", "es", stemmer=None)
    # light: aligned to luz (sentence 1), la (sentence 1), luz (sentence 2): 3 links
    assert dict(table.translations("light")) == pytest.approx({"luz": 2 / 3, "la": 1 / 3})
    assert dict(table.translations("the")) == pytest.approx({"la": 1 / 2, "las": 1 / 2})
    assert table.translations("god") == [("dios", 1.0)]  # lowercased
    p = table.params
    assert (p["n_sentence_pairs"], p["n_links"], p["n_links_without_terms"]) == (3, 12, 1)  # ",-:" dropped
    assert (p["n_source_tokens_unaligned"], p["n_target_tokens_unaligned"]) == (3, 1)  # let there be; sea
    assert (p["source_lang"], p["target_lang"], p["model"]) == ("en", "es", "alignments")
    stemmed = table_from_alignments(t / "en.tok", t / "es.tok", t / "links", "en", "es")
    # Snowball: light and lights are one term; lumbreras -> lumbrer
    assert dict(stemmed.translations("light")) == pytest.approx({"luz": 2 / 4, "la": 1 / 4, "lumbrer": 1 / 4})
    back = table_from_alignments(t / "en.tok", t / "es.tok", t / "links", "en", "es", stemmer=None, reverse=True)
    assert (back.params["source_lang"], back.params["target_lang"]) == ("es", "en")
    assert dict(back.translations("la")) == pytest.approx({"the": 1 / 2, "light": 1 / 2})
    assert back.translations("luz") == [("light", 1.0)]


def test_from_alignments_end_to_end_through_psq(aligned, indexed_dir, capsys):
    t = aligned
    out = t / "al.npz"
    assert (
        main(
            [
                "ttable",
                "from-alignments",
                "--source",
                str(t / "en.tok"),
                "--target",
                str(t / "es.tok"),
                "--alignments",
                str(t / "links"),
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "3 sentence pairs, 12 links (1 with a token without terms: dropped)" in err
    table = load_table(out)
    assert table.params["target_analyzer"]["stemmer"] == "snowball" and "light" in table
    found = psq_docs(indexed_dir, out)
    assert found["q1"] == LIGHT_DOCS and found["q2"] == DARK_DOCS
    # Moses text output too
    assert (
        main(
            [
                "ttable",
                "from-alignments",
                "--source",
                str(t / "en.tok"),
                "--target",
                str(t / "es.tok"),
                "--alignments",
                str(t / "links"),
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "-q",
                "-o",
                str(t / "al.f2e"),
            ]
        )
        == 0
    )
    assert "luz light 0.5\n" in (t / "al.f2e").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "links,es,where,problem",
    [
        ("0-0\n0-0\n", None, "links:3", None),
        (
            "0-0 1-2 2-1 3-3 7-6 7-5\n0-0 1-9\n0-0\n",
            None,
            "links:2",
            "link 1-9: target index 9 is out of range (line 2 of {es} has 5 tokens, indices from 0); check that the text "
            "is tokenized as the aligner saw it and the sides are in the aligner's order (source-target)\n",
        ),
        (
            "0-0 1-2 2-1 3-3 8-6\n0-0\n0-0\n",
            None,
            "links:1",
            "link 8-6: source index 8 is out of range (line 1 of {en} has 8 tokens, indices from 0)",
        ),
        (
            "0-0\n0-0 1:1\n0-0\n",
            None,
            "links:2",
            "'1:1' is not a link 'i-j' (Pharaoh format: the 0-based indices of a "
            "source and a target token, e.g. 0-1); give the aligner's output "
            "(fast_align's, eflomal's) as the alignments file\n",
        ),
        ("0-0\n0-0 1-1 0-0\n0-0\n", None, "links:2", "link 0-0 given twice: remove the repeated link\n"),
        ("0-0\n0-0\n0-0\n", "Y dijo\nla luz\n", "en.tok:3", "{es} has only 2 lines"),
    ],
)
def test_bad_alignments_are_one_error_naming_file_and_line(aligned, capsys, links, es, where, problem):
    # the messages ending with a newline are pinned whole: they said no fix before (not a link, given twice, the
    # line counts)
    t = aligned
    write(t / "links", links)
    if es is not None:
        write(t / "es.tok", es)
    code = main(
        [
            "ttable",
            "from-alignments",
            "--source",
            str(t / "en.tok"),
            "--target",
            str(t / "es.tok"),
            "--alignments",
            str(t / "links"),
            "--source-lang",
            "en",
            "--target-lang",
            "es",
            "-o",
            str(t / "al.npz"),
        ]
    )
    assert code == 2 and not (t / "al.npz").exists()
    error = one_error(capsys)
    if problem is None:  # 2 lines of links for 3 sentence pairs
        assert error == (
            f"clirkit: error: {t / 'en.tok'}:3: {t / 'links'} has only 2 lines: the source, the "
            f"target and the alignments must have one line per sentence pair; give the three files of "
            f"one corpus (an empty sentence as an empty line)"
        )
    else:
        problem = problem.format(en=t / "en.tok", es=t / "es.tok")
        expected = f"clirkit: error: {t / where.split(':')[0]}:{where.split(':')[1]}: {problem}"
        assert error == expected.rstrip("\n") if problem.endswith("\n") else error.startswith(expected)


def test_an_empty_corpus_or_links_between_no_terms_say_what_to_check(aligned):
    # were "en.tok: empty parallel corpus" and "links: no link between two words with terms (1 links read)"
    t = aligned
    for name in ("en.tok", "es.tok", "links"):
        write(t / name, "")
    with pytest.raises(ClirkitError) as err:
        table_from_alignments(t / "en.tok", t / "es.tok", t / "links", "en", "es")
    assert str(err.value) == f"{t / 'en.tok'}: empty parallel corpus: check the path (one sentence a line)"
    write(t / "en.tok", ", the\n")
    write(t / "es.tok", ": la\n")
    write(t / "links", "0-0 1-1\n")
    with pytest.raises(ClirkitError) as err:
        table_from_alignments(t / "en.tok", t / "es.tok", t / "links", "en", "es", stopwords="snowball")
    assert str(err.value) == (
        f"{t / 'links'}: no link between two words with terms (2 links read): check that the "
        f"alignments belong to these files and that the languages are theirs (stopwords and "
        f"stems are chosen by language)"
    )


def test_from_alignments_needs_both_languages(aligned, capsys):
    t = aligned
    assert (
        main(
            [
                "ttable",
                "from-alignments",
                "--source",
                str(t / "en.tok"),
                "--target",
                str(t / "es.tok"),
                "--alignments",
                str(t / "links"),
                "--source-lang",
                "en",
                "-o",
                str(t / "al.npz"),
            ]
        )
        == 2
    )
    assert one_error(capsys) == (
        "clirkit: error: ttable from-alignments needs --target-lang (the analyzers' languages, e.g. en, es)"
    )


# ---------------------------------------------------------------------------------------------
# MUSE's own text form told from plain pairs

MUSE_TEXT = "light luz\nlight lumbrera\ndarkness tinieblas\nand y\nwaters aguas\nwaters agua\n"


def test_a_muse_text_file_is_told_by_its_consecutive_unsorted_translations_and_weighted_uniformly(tmp_path):
    path = write(tmp_path / "en-es.txt", MUSE_TEXT)
    fmt, how = guess_format(path)
    assert fmt == "muse" and "consecutive lines, not in alphabetical order" in how
    table = load_table(path, stemmer=None)
    assert table.params["weighting"] == "uniform"
    assert table.translations("light") == [("luz", pytest.approx(1 / 2)), ("lumbrera", pytest.approx(1 / 2))]
    ranked = load_table(path, stemmer=None, weighting="rank")
    assert ranked.translations("light") == [("luz", pytest.approx(2 / 3)), ("lumbrera", pytest.approx(1 / 3))]
    tabbed = write(tmp_path / "en-es.tsv", MUSE_TEXT.replace(" ", "\t"))  # MUSE's tab-separated files
    assert guess_format(tabbed)[0] == "muse"
    # a word's translations apart, or a multi-word side, or one translation per word: plain pairs
    assert guess_format(write(tmp_path / "a.txt", "light luz\ndarkness tinieblas\nlight lumbrera\n"))[0] == "pairs"
    assert guess_format(write(tmp_path / "b.txt", "light\tla luz\nlight\tlumbrera\n"))[0] == "pairs"
    assert guess_format(write(tmp_path / "c.txt", "light luz\ndarkness tinieblas\n"))[0] == "pairs"


def test_a_file_that_could_be_muse_or_pairs_is_refused_naming_both_formats(tmp_path, capsys):
    path = write(tmp_path / "en-es.txt", "darkness tinieblas\nlight lumbrera\nlight luz\n")  # sorted
    assert main(["ttable", "convert", str(path), "-o", str(tmp_path / "t.npz")]) == 2
    error = one_error(capsys)
    assert "a MUSE dictionary (ranked, likeliest first) or plain pairs?" in error
    assert "Give --format muse or --format pairs" in error
    assert (
        main(
            [
                "ttable",
                "convert",
                str(path),
                "--format",
                "pairs",
                "-o",
                str(tmp_path / "t.npz"),
                "-q",
                "--stemmer",
                "none",
            ]
        )
        == 0
    )
    assert load_table(tmp_path / "t.npz").translations("light") == [("lumbrera", 0.5), ("luz", 0.5)]


def test_a_muse_text_file_end_to_end_through_convert_and_psq(indexed_dir, capsys):
    path = write(indexed_dir / "en-es.txt", MUSE_TEXT)
    out = indexed_dir / "muse.npz"
    assert main(["ttable", "convert", str(path), "-o", str(out)]) == 0
    assert "MUSE pairs" in capsys.readouterr().err and load_table(out).params["format"] == "muse"
    found = psq_docs(indexed_dir, out)
    assert found["q1"] == LIGHT_DOCS and found["q2"] == DARK_DOCS


def test_the_help_describes_muse_lines_as_muse_writes_them(capsys):
    with pytest.raises(SystemExit):
        main(["ttable", "convert", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "muse (MUSE's 'source target' lines, a word's translations on consecutive lines, likeliest first; "
        "or its hunalign copies' 'target @ source')" in text
    )
    assert "lex.f2e" in text and "phrase-table" in text and "psq-json" in text and "--score-column" in text


def _damaged(data: bytes) -> bytes:
    """``data`` gzipped, its deflate stream damaged in the middle (header and length intact)."""
    packed = bytearray(gzip.compress(data, mtime=0))
    for k in range(len(packed) // 3, len(packed) // 3 + 8):
        packed[k] ^= 0x5A
    return bytes(packed)


@pytest.mark.parametrize("kind", ["psq json damaged", "psq json truncated", "freedict body damaged", "moses damaged"])
def test_a_damaged_gzip_table_or_dictionary_is_called_so_with_what_to_do(tmp_path, capsys, kind):
    from pathlib import Path

    psq = json.dumps({"luz": {"light": 0.75, "lamp": 0.25}, "tinieblas": {"darkness": 1.0}}, indent=1).encode() * 3
    if kind.startswith("psq"):
        data = gzip.compress(psq, mtime=0)
        path = tmp_path / "t.json.gz"
        path.write_bytes(_damaged(psq) if kind.endswith("damaged") else data[: len(data) // 2])
        culprit = path
    elif kind.startswith("freedict"):
        data = Path(__file__).parent / "data" / "dictionaries"
        (tmp_path / "f.index").write_bytes((data / "freedict-spa-eng.index").read_bytes())
        culprit = tmp_path / "f.dict.dz"
        culprit.write_bytes(_damaged((data / "freedict-spa-eng.dict").read_bytes()))
        path = tmp_path / "f.index"
    else:
        path = culprit = tmp_path / "t.e2f.gz"
        path.write_bytes(_damaged("".join(f"luz light{i} 0.5\n" for i in range(400)).encode()))
    assert main(["ttable", "show", str(path), "luz", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {culprit}") and err.count("\n") == 1
    assert ": damaged gzip file (" in err and "get the file again, or decompress what is left" in err


def test_a_freedict_body_whose_bytes_moved_against_its_index_is_refused_not_read_shifted(tmp_path, capsys):
    # found by tests/hardening/malformed_matrix.py: 3 bytes inserted in the first entry shifted every later entry, whose
    # translations were read from the wrong bytes (exit 0, another table)
    from pathlib import Path

    data = Path(__file__).parent / "data" / "dictionaries"
    index = tmp_path / "f.index"
    index.write_bytes((data / "freedict-spa-eng.index").read_bytes())
    body = (data / "freedict-spa-eng.dict").read_bytes()
    (tmp_path / "f.dict").write_bytes(body)
    assert main(["ttable", "show", str(index), "casa", "-q"]) == 0
    capsys.readouterr()
    (tmp_path / "f.dict").write_bytes(body[:2] + "\ud800".encode("utf-8", "surrogatepass") + body[2:])
    assert main(["ttable", "show", str(index), "casa", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {index}:") and err.count("\n") == 1
    assert "does not start and end at line ends of f.dict: the index and the body do not match" in err


def test_a_dictionary_unreadable_in_its_first_lines_says_why_not_that_its_guessed_format_does_not_fit(tmp_path, capsys):
    # found by the matrix's message sample: a Latin-1 pairs file was guessed Moses by its name (the sniffer could
    # not read it) and reported as "expected 3 fields 'e f p', got 2"
    path = tmp_path / "en-es.pairs.tsv"
    path.write_bytes("light\tluz\ncreation\tcreación\n".encode("latin-1"))
    assert main(["ttable", "show", str(path), "light", "-q"]) == 2
    assert one_error(capsys).startswith(f"clirkit: error: {path}:2: invalid UTF-8")


def test_a_nul_in_a_word_names_no_other_format_to_try(tmp_path, capsys):
    # found by the matrix's message sample: the error said "give --format ding|muse|pairs|...", no help for a NUL
    path = write(tmp_path / "table.e2f", "luz light 0.5\ntinieblas\x00 darkness 0.5\n")
    assert main(["ttable", "show", str(path), "light", "-q"]) == 2
    err = one_error(capsys)
    assert err == (
        f"clirkit: error: {path}:2: 'tinieblas\\x00' contains a NUL character; remove the NUL bytes (is it "
        f"a binary file?)"
    )  # it said no fix
    path = write(tmp_path / "en-es.json", '{"light": {"luz\\u0000": 1.0}}')
    assert main(["ttable", "show", str(path), "light", "-q"]) == 2
    err = one_error(capsys)
    assert err.startswith(f"clirkit: error: {path}:1: 'luz\\x00' contains a NUL") and "--format" not in err


def test_an_error_in_a_table_whose_content_named_its_format_suggests_no_other_format(tmp_path, capsys):
    # the matrix's message sample: "choose the column of p(t|s) with --score-column ...; give --format ding|muse|..."
    path = write(tmp_path / "en-es.phrase-table", "light ||| luz ||| 0.5 0.5 2.5 0.5\n")
    assert main(["ttable", "show", str(path), "light", "-q"]) == 2
    err = one_error(capsys)
    assert err.endswith("with --score-column (Moses writes p(s|t) lex(s|t) p(t|s) lex(t|s))") and "--format" not in err
    path = write(tmp_path / "en-es.txt", '{"light": {"luz": 2.5}}')
    assert main(["ttable", "show", str(path), "light", "-q"]) == 2
    assert "--format" not in one_error(capsys)
    path = write(tmp_path / "en-es.e2f", "luz light 0.5\ntinieblas darkness\n")  # told by its name: say which
    assert main(["ttable", "show", str(path), "light", "-q"]) == 2
    assert "give --format" in one_error(capsys)


def test_parallel_files_that_do_not_pair_up_say_what_to_give(tmp_path, capsys):
    (tmp_path / "en.txt").write_text("the light\nthe darkness\n", encoding="utf-8")
    (tmp_path / "es.txt").write_text("la luz\n", encoding="utf-8")
    common = ["ttable", "train", "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "t.npz"), "-q"]
    assert main(common + ["--source", str(tmp_path / "en.txt"), "--target", str(tmp_path / "es.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has 2 lines but" in err and "give the two sides of one corpus" in err
    (tmp_path / "en.tsv").write_text("a\tthe light\n", encoding="utf-8")
    (tmp_path / "es.tsv").write_text("b\tla luz\n", encoding="utf-8")
    assert (
        main(
            common + ["--source", str(tmp_path / "en.tsv"), "--target", str(tmp_path / "es.tsv"), "--aligned-by", "id"]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "share no id: give the two sides of one corpus, their lines id TAB text with the same ids" in err
    assert not (tmp_path / "t.npz").exists()


def test_a_utf16_psq_table_and_experiment_file_are_named_utf16(tmp_path, capsys):
    from clirkit.experiment import Experiment

    table = tmp_path / "t.json"
    table.write_bytes('{"luz": {"light": 1.0}}\n'.encode("utf-16"))
    with pytest.raises(ClirkitError, match=r"t.json:1: the file is UTF-16, not UTF-8 .*iconv -f utf-16 -t utf-8"):
        load_table(str(table), "psq-json")
    toml = tmp_path / "e.toml"
    toml.write_bytes('collection = "nave-en-es"\n'.encode("utf-16"))
    with pytest.raises(ClirkitError, match=r"e.toml:1: the file is UTF-16, not UTF-8 as TOML must be; convert"):
        Experiment.read(toml)
