"""Topic files read as queries (clirkit.formats.topics through clirkit.formats.read_queries): TREC SGML, CLEF XML,
NTCIR XML and HC4/NeuCLIR JSONL, detected from the content; --query-fields on the command line.

The samples follow the published layouts (TREC ad hoc topics, CLEF ad hoc topics 2000-2003 in SGML and
2004+ in XML, NTCIR CLIR topics, HC4/NeuCLIR topic JSONL), with Nave's topics and Reina-Valera words so
that the command-line tests search the Genesis verses of conftest.py.
"""

from __future__ import annotations

import io
import json
import sys

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.formats import read_queries, read_run

# TREC ad hoc: unclosed field tags, "Number:", "Description:", "Narrative:" labels
TREC = """\
<top>

<num> Number: 401
<title> light

<desc> Description:
Find verses where God makes the light
and separates it from the darkness.

<narr> Narrative:
A relevant verse names the light.

</top>

<top>

<num> Number: 402
<title> Topic: waters

<desc> Description:
The waters above and below the firmament.

<narr> Narrative:
A relevant verse names the waters.

</top>
"""

# the same topics with every tag closed
TREC_CLOSED = """\
<top>
<num>Number: 401</num>
<title>light</title>
<desc>Description: Find verses where God makes the light and separates it from the darkness.</desc>
<narr>Narrative: A relevant verse names the light.</narr>
</top>
<top>
<num>Number: 402</num>
<title>Topic: waters</title>
<desc>Description: The waters above and below the firmament.</desc>
<narr>Narrative: A relevant verse names the waters.</narr>
</top>
"""

TREC_TITLES = {"401": "light", "402": "waters"}
TREC_TITLE_DESC = {
    "401": "light Find verses where God makes the light and separates it from the darkness.",
    "402": "waters The waters above and below the firmament.",
}

# CLEF 2004+ ad hoc topics (XML): <identifier>, <title>, <description>, <narrative>
CLEF = """\
<?xml version="1.0" encoding="UTF-8"?>
<topics>
<topic lang="es">
<identifier>10.2452/141-AH</identifier>
<title>la luz</title>
<description>Encontrar versículos donde Dios crea la luz.</description>
<narrative>Son relevantes los versículos que nombran la luz.</narrative>
</topic>
<topic lang="es">
<identifier>10.2452/142-AH</identifier>
<title>las aguas</title>
<description>Las aguas sobre la expansión.</description>
<narrative>Son relevantes los versículos que nombran las aguas.</narrative>
</topic>
</topics>
"""

# CLEF 2000-2003: SGML with language-prefixed tags, some unclosed
CLEF_SGML = """\
<top>
<num> C041 </num>
<ES-title> la luz </ES-title>
<ES-desc> Encontrar versículos donde Dios crea la luz.
<ES-narr> Son relevantes los versículos que nombran la luz.
</top>
"""

# NTCIR CLIR topics: upper-case tags, a narrative made of <BACK> and <RELE>, <CONC> skipped
NTCIR = """\
<TOPICS>
<TOPIC>
<NUM>0001</NUM>
<SLANG>EN</SLANG>
<TLANG>ES</TLANG>
<TITLE>light</TITLE>
<DESC>Find verses where God makes the light.</DESC>
<NARR>
<BACK>Genesis tells of the creation.</BACK>
<RELE>A relevant verse names the light.</RELE>
</NARR>
<CONC>light, darkness, day</CONC>
</TOPIC>
<TOPIC>
<NUM>0002</NUM>
<TITLE>waters</TITLE>
<DESC>The waters above the firmament.</DESC>
<NARR><RELE>A relevant verse names the waters.</RELE></NARR>
</TOPIC>
</TOPICS>
"""


def hc4_record(tid, entries, **more) -> str:
    return json.dumps({"topic_id": tid, "topics": entries, **more}, ensure_ascii=False)


def hc4_entry(lang, title, desc, source="original", **more) -> dict:
    return {"lang": lang, "source": source, "topic_title": title, "topic_description": desc, **more}


# HC4/NeuCLIR: English originals with Spanish human and machine translations
HC4 = (
    "\n".join(
        [
            hc4_record(
                "101",
                [
                    hc4_entry("eng", "light", "God makes the light"),
                    hc4_entry("spa", "luces (MT)", "Dios hace luces", source="machine translation"),
                    hc4_entry("spa", "la luz", "Dios crea la luz", source="human translation"),
                ],
                narratives={"eng": {"very_valuable": "names the light", "not_valuable": "mentions day"}},
            ),
            hc4_record(
                102,
                [
                    hc4_entry("eng", "waters", "waters above the firmament", topic_narrative="names the waters"),
                    hc4_entry("spa", "las aguas", "las aguas sobre la expansión", source="human translation"),
                ],
            ),
        ]
    )
    + "\n"
)


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def error_of(func, *args, **kwargs) -> str:
    with pytest.raises(ClirkitError) as err:
        func(*args, **kwargs)
    message = str(err.value)
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------- TREC


@pytest.mark.parametrize("text", [TREC, TREC_CLOSED], ids=["unclosed", "closed"])
def test_trec_topics_with_and_without_closing_tags_read_alike(tmp_path, text):
    path = write(tmp_path / "topics.401-402", text)
    assert read_queries(path) == TREC_TITLES
    assert read_queries(path, fields="title,desc") == TREC_TITLE_DESC
    assert read_queries(path, fields="narr") == {
        "401": "A relevant verse names the light.",
        "402": "A relevant verse names the waters.",
    }


def test_the_order_of_query_fields_is_the_order_asked(tmp_path):
    path = write(tmp_path / "topics", TREC)
    assert read_queries(path, fields="desc,title")["402"] == "The waters above and below the firmament. waters"
    assert read_queries(path, fields=["title", "desc"]) == read_queries(path, fields="title+desc") == TREC_TITLE_DESC


def test_trec_topics_are_detected_by_content_whatever_the_name(tmp_path):
    for name in ("topics.jsonl", "q.tsv", "topics.txt"):
        assert read_queries(write(tmp_path / name, TREC)) == TREC_TITLES


def test_trec_topics_with_a_topic_on_one_line_and_mixed_closing(tmp_path):
    text = (
        "<top><num>Number: 7</num><title>luz</title><desc>Description: la luz\n<narr>Narrative: luz</narr>"
        "</top>\n<top>\n<num> 8\n<title> aguas </title>\n<desc> las aguas\n</top>\n"
    )
    path = write(tmp_path / "topics", text)
    assert read_queries(path, fields="title,desc") == {"7": "luz la luz", "8": "aguas las aguas"}


def test_trec_sgml_entities_are_decoded(tmp_path):
    text = "<top>\n<num> 9\n<title> light &amp; darkness &eacute; &#233; &#xE9; AT&T\n</top>\n"
    assert read_queries(write(tmp_path / "topics", text)) == {"9": "light & darkness é é é AT&T"}


def test_a_latin1_trec_file_is_read_as_latin1_and_said_on_stderr(tmp_path, capsys):
    text = "<top>\n<num> 10\n<title> versículos de la creación\n</top>\n"
    path = write(tmp_path / "topics", text, encoding="latin-1")
    assert read_queries(path) == {"10": "versículos de la creación"}
    err = capsys.readouterr().err
    assert f"{path}: not valid UTF-8 (line 3, byte 0xed): read as Latin-1" in err


def test_a_latin1_file_whose_topics_are_malformed_is_one_error_line_that_says_it_was_read_as_latin1(tmp_path, capsys):
    # found by tests/hardening/malformed_matrix.py: the notice and the error were two lines on stderr
    text = "<topics>\n<topic>\n<title> versículos de la creación</title>\n</topic>\n</topics>\n"
    path = write(tmp_path / "topics.xml", text, encoding="latin-1")
    message = error_of(read_queries, path)
    assert message.startswith(f"{path}:2: topic has no <identifier> or <num>")
    assert message.endswith(
        "(the file is not valid UTF-8 (line 3, byte 0xed): read as Latin-1 (ISO-8859-1), the "
        "encoding of old TREC and CLEF topic files)"
    )
    assert capsys.readouterr().err == ""  # said in the error line only


def test_an_hc4_topic_with_a_lone_surrogate_is_refused_not_written_into_a_run(tmp_path):
    # found by tests/hardening/malformed_matrix.py: the id reached write_run, which could not encode it (a traceback)
    path = write(tmp_path / "t.jsonl", json.dumps({"topic_id": "Q\ud800", "topics": [hc4_entry("eng", "l", "d")]}))
    assert (
        error_of(read_queries, path, lang="en")
        == f"{path}:1: \"topic_id\" holds an unpaired surrogate '\\ud800' (not valid Unicode); write the character "
        f"itself, or a valid pair of \\uD8xx\\uDCxx escapes"
    )
    path = write(tmp_path / "t.jsonl", json.dumps({"topic_id": "7", "topics": [hc4_entry("eng", "l\ud800", "d")]}))
    assert error_of(read_queries, path, lang="en").startswith(f'{path}:1: "topic_title" holds an unpaired')


def test_a_utf8_topic_file_says_nothing_on_stderr(tmp_path, capsys):
    read_queries(write(tmp_path / "topics", CLEF))
    assert capsys.readouterr().err == ""


def test_a_latin1_tsv_query_file_is_still_refused(tmp_path):
    path = write(tmp_path / "q.tsv", "q1\tcreación\n", encoding="latin-1")
    assert error_of(read_queries, path).startswith(f"{path}:1: invalid UTF-8")


def test_an_xml_declaration_names_the_encoding(tmp_path, capsys):
    text = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<topics><topic><identifier>1</identifier>'
        "<title>creación</title></topic></topics>\n"
    )
    assert read_queries(write(tmp_path / "t.xml", text, encoding="latin-1")) == {"1": "creación"}
    assert capsys.readouterr().err == ""  # declared, so nothing to say


def test_trec_topics_from_gzip_and_stdin(tmp_path, monkeypatch):
    import gzip

    path = tmp_path / "topics.gz"
    path.write_bytes(gzip.compress(TREC.encode()))
    assert read_queries(path, fields="title,desc") == TREC_TITLE_DESC
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(("\n\n" + NTCIR).encode()), encoding="utf-8"))
    assert read_queries("-") == {"0001": "light", "0002": "waters"}


@pytest.mark.parametrize("fmt", ["auto", "trec"])
@pytest.mark.parametrize("damage", ["truncated", "flipped"])
def test_a_damaged_gzip_topic_file_is_called_a_damaged_gzip_file_with_what_to_do(tmp_path, damage, fmt):
    import gzip
    import re

    data = gzip.compress((TREC * 40).encode())
    half = len(data) // 2
    data = data[:half] if damage == "truncated" else data[:half] + bytes([data[half] ^ 0xFF]) + data[half + 1 :]
    path = tmp_path / "topics.gz"
    path.write_bytes(data)
    assert re.fullmatch(
        rf"{re.escape(str(path))}(:1)?: cannot read: damaged gzip file \(.+\); get the file again, "
        r"or decompress what is left with `gzip -dc` and use that",
        error_of(read_queries, path, fmt=fmt),
    )


def test_stdin_errors_keep_their_line_numbers(monkeypatch):
    text = "\n<top>\n<num> 1\n<title> luz\n</top>\nstray\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))
    assert error_of(read_queries, "-") == (
        "<stdin>:6: text outside <top> ... </top>: 'stray'; remove it, or put it inside a topic's field"
    )


# --------------------------------------------------------------------------- CLEF


def test_clef_xml_topics_with_identifier_and_long_field_names(tmp_path):
    path = write(tmp_path / "topics.xml", CLEF)
    assert read_queries(path) == {"10.2452/141-AH": "la luz", "10.2452/142-AH": "las aguas"}
    assert read_queries(path, fields="title,desc,narr")["10.2452/141-AH"] == (
        "la luz Encontrar versículos donde Dios crea la luz. Son relevantes los versículos que nombran la luz."
    )
    assert read_queries(path, fields="description") == read_queries(path, fields="desc")


def test_clef_sgml_with_language_prefixed_tags(tmp_path):
    path = write(tmp_path / "topics.sgml", CLEF_SGML)
    assert read_queries(path, fields="title,desc") == {"C041": "la luz Encontrar versículos donde Dios crea la luz."}
    assert read_queries(path, fields="narr") == {"C041": "Son relevantes los versículos que nombran la luz."}


def test_clef_topics_in_two_languages_are_chosen_by_the_source_language(tmp_path):
    text = (
        "<topics><topic>\n<num>C041</num>\n<EN-title>light</EN-title>\n<ES-title>la luz</ES-title>\n"
        "<EN-desc>God makes the light.</EN-desc>\n<ES-desc>Dios crea la luz.</ES-desc>\n</topic></topics>\n"
    )
    path = write(tmp_path / "topics.xml", text)
    assert read_queries(path, lang="es", fields="title,desc") == {"C041": "la luz Dios crea la luz."}
    assert read_queries(path, lang="en") == {"C041": "light"}
    assert error_of(read_queries, path) == (
        f"{path}:1: topic C041 is given in several languages (EN, ES): choose one with --source-lang (in Python: read_queries(lang=), Resources(source_lang=))"
    )
    assert error_of(read_queries, path, lang="de") == (
        f"{path}:1: topic C041 is given in several languages (EN, ES); the source language de is not among them: "
        f"choose one with --source-lang (in Python: read_queries(lang=), Resources(source_lang=))"
    )


def test_a_monolingual_prefixed_file_is_read_in_its_language_and_refused_in_another(tmp_path):
    # issue 40 item 2: reading <ES-title> as the English queries was a silent wrong result (HC4 refuses it too)
    path = write(tmp_path / "topics.sgml", CLEF_SGML)
    assert read_queries(path, lang="es") == read_queries(path) == {"C041": "la luz"}
    assert error_of(read_queries, path, lang="en") == (
        f"{path}:1: topic C041 has no version in en (languages: ES); choose one with --source-lang (in Python: read_queries(lang=), Resources(source_lang=))"
    )


# --------------------------------------------------------------------------- NTCIR


def test_ntcir_topics_upper_case_tags_and_nested_narrative(tmp_path):
    path = write(tmp_path / "topics.xml", NTCIR)
    assert read_queries(path) == {"0001": "light", "0002": "waters"}
    got = read_queries(path, fields="title,desc,narr")
    assert got["0001"] == (
        "light Find verses where God makes the light. Genesis tells of the creation. A relevant verse names the light."
    )
    assert got["0002"] == "waters The waters above the firmament. A relevant verse names the waters."


def test_ntcir_missing_field_names_the_ntcir_tag_and_what_to_do(tmp_path):
    text = "<TOPICS><TOPIC>\n<NUM>0003</NUM>\n<TITLE>day</TITLE>\n</TOPIC></TOPICS>\n"
    path = write(tmp_path / "t.xml", text)
    assert error_of(read_queries, path, fields="title,narr") == (
        f"{path}:1: topic 0003 has no <NARR>; ask for fields every topic has with --query-fields, e.g. title"
    )


# --------------------------------------------------------------------------- HC4 / NeuCLIR


def test_hc4_topics_in_the_source_language(tmp_path):
    path = write(tmp_path / "topics.jsonl", HC4)
    assert read_queries(path, lang="en") == {"101": "light", "102": "waters"}
    assert read_queries(path, lang="en", fields="title,desc") == {
        "101": "light God makes the light",
        "102": "waters waters above the firmament",
    }


def test_hc4_prefers_a_human_translation_to_a_machine_one(tmp_path):
    path = write(tmp_path / "topics.jsonl", HC4)
    assert read_queries(path, lang="es") == {"101": "la luz", "102": "las aguas"}
    assert read_queries(path, lang="spa") == read_queries(path, lang="es")  # the file's own code works too


def test_hc4_narrative_from_the_entry_or_the_narratives_of_its_language(tmp_path):
    path = write(tmp_path / "topics.jsonl", HC4)
    assert read_queries(path, lang="en", fields="narr") == {
        "101": "names the light mentions day",
        "102": "names the waters",
    }


def test_hc4_without_a_language_names_the_languages_present(tmp_path):
    path = write(tmp_path / "topics.jsonl", HC4)
    assert error_of(read_queries, path) == (
        f"{path}:1: topic 101 is given in several languages (eng, spa): choose one with --source-lang (in Python: read_queries(lang=), Resources(source_lang=))"
    )
    assert error_of(read_queries, path, lang="fa") == (
        f"{path}:1: topic 101 has no version in fa (languages: eng, spa); choose one with --source-lang "
        f"(in Python: read_queries(lang=), Resources(source_lang=))"
    )


def test_hc4_with_one_language_needs_no_choice_and_any_name(tmp_path):
    path = write(tmp_path / "hc4-topics.txt", hc4_record("7", [hc4_entry("eng", "light", "the light")]) + "\n")
    assert read_queries(path, fields="title,desc") == {"7": "light the light"}


@pytest.mark.parametrize(
    "line, problem",
    [
        (
            json.dumps({"topics": [hc4_entry("eng", "a", "b")]}),
            'topic without "topic_id": give each line its id (HC4/NeuCLIR topics are {"topic_id": ..., "topics": [...]})',
        ),
        (
            hc4_record("101", [hc4_entry("eng", "a", "b")]),
            "query id 101 appears twice (first at line 1): give each topic its own id, or remove the repeated topic",
        ),
        (
            hc4_record("103", [{"lang": "eng", "topic_title": "a"}]),
            'topic 103 (eng) has no "topic_description"; ask for other fields with --query-fields, e.g. title',
        ),
        (
            hc4_record("104", []),
            'topic 104 has an empty "topics" list; give its versions, such as [{"lang": "eng", '
            '"topic_title": "...", "topic_description": "..."}]',
        ),
        (
            '{"qid": "q1", "text": "luz"}',
            'expected an HC4/NeuCLIR topic like the first line ("topic_id" and a "topics" list), found keys: qid, text',
        ),
        # found by tests/hardening/fuzz.py: a "lang" holding a line break was printed, making the message two lines
        (
            hc4_record("105", [hc4_entry("spa", "a", "b"), hc4_entry("\n", "a", "b")]),
            'topic 105: "lang" must be a language code such as "eng", got "\\n"',
        ),
        (
            hc4_record("106", [hc4_entry("", "a", "b")]),
            'topic 106: "lang" must be a language code such as "eng", got ""',
        ),
    ],
)
def test_malformed_hc4_topics_name_file_line_and_problem(tmp_path, line, problem):
    path = write(
        tmp_path / "topics.jsonl", hc4_record("101", [hc4_entry("eng", "light", "the light")]) + "\n" + line + "\n"
    )
    assert error_of(read_queries, path, lang="en", fields="title,desc") == f"{path}:2: {problem}"


# --------------------------------------------------------------------------- errors

NUMBER = "; give each topic its number"  # what a topic without its number is told to do


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("<topics><topic>\n<title>luz</title>\n</topic></topics>\n", 1, "topic has no <identifier> or <num>" + NUMBER),
        ("<TOPICS><TOPIC>\n<TITLE>luz</TITLE>\n</TOPIC></TOPICS>\n", 1, "topic has no <NUM>" + NUMBER),
        ("<top>\n<num> Number: \n<title> luz\n</top>\n", 2, "empty topic number in <num>" + NUMBER),
        (
            "<topics>\n<topic><identifier>1</identifier><title>a</title></topic>\n"
            "<topic><identifier>1</identifier><title>b</title></topic>\n</topics>\n",
            3,
            "query id 1 appears twice (first at line 2): give each topic its own id, or remove the repeated topic",
        ),
        (
            "<topics>\n<topic><identifier>1</identifier><title>a</title><title>b</title></topic>\n</topics>\n",
            2,
            "second <title> in the topic opened at line 2; a topic has one: remove the other, or close the topic before it "
            "with </topic>",
        ),
        (
            "<topics>\n<topic>\n<identifier>1</identifier>\n<title>a</title>\n</topics>\n",
            2,
            "<topic> is never closed by </topic>; add </topic> at the end of the topic",
        ),
        (
            "<TOPICS>\n<TOPIC><NUM>1</NUM><TITLE>a</TITLE></TOPIC>\n<TITLE>b</TITLE>\n</TOPICS>\n",
            3,
            "<TITLE> outside <TOPIC> ... </TOPIC>; put each topic's fields inside <TOPIC> ... </TOPIC>",
        ),
    ],
)
def test_malformed_topic_markup_names_file_line_and_problem(tmp_path, text, line, problem):
    path = write(tmp_path / "topics.xml", text)
    assert error_of(read_queries, path) == f"{path}:{line}: {problem}"


def test_markup_without_topics_says_what_is_expected(tmp_path):
    path = write(tmp_path / "notes.xml", "<?xml version='1.0'?>\n<notes><note>luz</note></notes>\n")
    assert error_of(read_queries, path) == (
        f"{path}: no topics found: expected <top> (TREC), <topic> (CLEF) or <TOPIC> (NTCIR) elements, or give "
        f"queries as qid TAB text"
    )


def test_an_unknown_query_field_names_the_file_and_the_fields(tmp_path):
    path = write(tmp_path / "topics.xml", CLEF)
    assert error_of(read_queries, path, fields="title,summary") == (
        f"{path}: unknown topic field 'summary' (the fields of CLEF topics are title, desc and narr; ask for "
        f"several as title,desc)"
    )
    assert "unknown topic field 'abstract'" in error_of(
        read_queries, write(tmp_path / "h.jsonl", HC4), fields="abstract", lang="en"
    )
    assert "names a field twice" in error_of(read_queries, path, fields="title,title")
    assert "separated by commas" in error_of(read_queries, path, fields="title,,desc")


def test_query_fields_on_plain_jsonl_are_keys_and_desc_finds_description(tmp_path):
    path = write(tmp_path / "q.jsonl", json.dumps({"query_id": "1", "title": "luz", "description": "la luz"}) + "\n")
    assert read_queries(path, fields="title,desc") == {"1": "luz la luz"}
    assert read_queries(path, fields="description") == {"1": "la luz"}
    assert error_of(read_queries, path, fields="summary") == (
        f'{path}:1: no query text key "summary" (found: query_id, title, description); name one of those found'
    )


def test_a_tsv_query_whose_id_looks_like_a_tag_stays_a_tsv_query(tmp_path):
    assert read_queries(write(tmp_path / "q.tsv", "<q1>\tla luz\n")) == {"<q1>": "la luz"}


# --------------------------------------------------------------------------- the command line


@pytest.fixture
def ix(indexed_dir):
    return indexed_dir / "ix.npz"


def search(ix, queries, out, *options) -> int:
    return main(["search", "--index", str(ix), "--queries", str(queries), "-o", str(out), "-q", *options])


def test_search_with_query_fields_title_desc_equals_the_same_text_as_tsv(ix, tmp_path):
    clef = write(tmp_path / "topics.xml", CLEF)
    plain = write(
        tmp_path / "q.tsv",
        "10.2452/141-AH\tla luz Encontrar versículos donde Dios crea la luz.\n"
        "10.2452/142-AH\tlas aguas Las aguas sobre la expansión.\n",
    )
    assert search(ix, clef, tmp_path / "a.run", "--query-fields", "title,desc") == 0
    assert search(ix, plain, tmp_path / "b.run") == 0
    assert (tmp_path / "a.run").read_bytes() == (tmp_path / "b.run").read_bytes()
    assert search(ix, clef, tmp_path / "c.run") == 0  # title only: another run
    assert (tmp_path / "c.run").read_bytes() != (tmp_path / "a.run").read_bytes()


@pytest.mark.parametrize("text", [TREC, TREC_CLOSED, NTCIR], ids=["trec", "trec-closed", "ntcir"])
def test_search_reads_trec_and_ntcir_topics(ix, tmp_path, text):
    spanish = text.replace("light", "luz").replace("waters", "aguas").replace("<SLANG>EN", "<SLANG>ES")
    path = write(tmp_path / "topics", spanish)
    assert search(ix, path, tmp_path / "r.run", "--query-fields", "title") == 0
    assert set(read_run(tmp_path / "r.run").query_ids) <= {"401", "402", "0001", "0002"}


def test_search_chooses_the_hc4_version_in_the_index_language(ix, tmp_path):
    path = write(tmp_path / "topics.jsonl", HC4)
    plain = write(tmp_path / "q.tsv", "101\tla luz Dios crea la luz\n102\tlas aguas las aguas sobre la expansión\n")
    assert search(ix, path, tmp_path / "a.run", "--query-fields", "title,desc") == 0
    assert search(ix, plain, tmp_path / "b.run") == 0
    assert (tmp_path / "a.run").read_bytes() == (tmp_path / "b.run").read_bytes()


def test_psq_chooses_the_hc4_version_by_source_lang(ix, tmp_path):
    table = write(tmp_path / "en-es.txt", "light luz\nwaters aguas\nGod Dios\n")
    path = write(tmp_path / "topics.jsonl", HC4)
    common = ["psq", "--index", str(ix), "--queries", str(path), "--table", str(table), "--table-format", "pairs", "-q"]
    assert main([*common, "--source-lang", "en", "-o", str(tmp_path / "a.run")]) == 0
    plain = write(tmp_path / "q.en.tsv", "101\tlight\n102\twaters\n")
    assert main([*common[:4], str(plain), *common[5:], "--source-lang", "en", "-o", str(tmp_path / "b.run")]) == 0
    assert (tmp_path / "a.run").read_bytes() == (tmp_path / "b.run").read_bytes()


def test_cli_topic_errors_are_one_line(ix, tmp_path, capsys):
    path = write(tmp_path / "topics.xml", CLEF)
    assert search(ix, path, tmp_path / "r.run", "--query-fields", "title,summary") == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"clirkit: error: {path}: unknown topic field 'summary' (the fields of CLEF topics are title, desc "
        f"and narr; ask for several as title,desc)"
    )
    two = write(
        tmp_path / "two.xml",
        "<topics><topic><num>1</num><EN-title>light</EN-title><ES-title>luz</ES-title></topic></topics>\n",
    )
    table = write(tmp_path / "words.txt", "light luz\n")  # a table that does not say its languages
    psq = ["psq", "--index", str(ix), "--queries", str(two), "--table", str(table), "--table-format", "pairs", "-q"]
    assert main([*psq, "-o", str(tmp_path / "p.run")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "given in several languages (EN, ES)" in err and "--source-lang" in err
    assert main([*psq, "--source-lang", "en", "-o", str(tmp_path / "p.run")]) == 0


def test_psq_takes_the_query_language_from_the_table_when_not_given(ix, tmp_path):
    two = write(
        tmp_path / "two.xml",
        "<topics><topic><num>1</num><EN-title>light</EN-title><ES-title>luz</ES-title></topic></topics>\n",
    )
    table = write(tmp_path / "en-es.txt", "light luz\n")  # the name says en -> es
    assert (
        main(
            [
                "psq",
                "--index",
                str(ix),
                "--queries",
                str(two),
                "--table",
                str(table),
                "--table-format",
                "pairs",
                "-o",
                str(tmp_path / "p.run"),
                "-q",
            ]
        )
        == 0
    )
    assert read_run(tmp_path / "p.run").query_ids == ["1"]


@pytest.mark.parametrize("verb", ["search", "dt", "psq", "boost-train", "boost-rank", "scs-train", "scs-score"])
def test_every_verb_reading_queries_has_query_fields(verb, capsys):
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    out = capsys.readouterr().out
    assert "--queries" in out and "--query-fields FIELDS" in out


def test_the_file_loader_of_the_training_verbs_passes_query_fields_and_source_lang(tmp_path, verses_es):
    import argparse
    import shutil

    from clirkit.cli.data import load_data

    topics = write(tmp_path / "topics.jsonl", HC4)
    docs = write(tmp_path / "docs.tsv", "".join(f"{d}\t{t}\n" for d, t in verses_es.items()))
    qrels = write(tmp_path / "q.qrels", "101 0 Gen.1.3 1\n102 0 Gen.1.6 1\n")
    args = argparse.Namespace(
        collection=None,
        queries=str(topics),
        documents=str(docs),
        qrels=str(qrels),
        dev_queries=str(shutil.copy(topics, tmp_path / "dev.jsonl")),  # the training file is refused as dev
        dev_qrels=str(qrels),
        source_lang="es",
        target_lang="es",
        query_fields="title,desc",
        query_id_field=None,
    )
    want = {"101": "la luz Dios crea la luz", "102": "las aguas las aguas sobre la expansión"}
    loaded = load_data(args, qrels=True, dev=True)  # boost-train's
    assert loaded.queries == want and loaded.dev_queries == want
    assert load_data(args, qrels=True).queries == want  # scs-train's


def test_a_byte_order_mark_before_the_first_tag_is_not_taken_for_a_tsv_line(tmp_path):
    path = write(tmp_path / "topics.txt", "\ufeff" + TREC)
    assert read_queries(path) == TREC_TITLES
