"""Readers and writers of queries, documents, qrels and TREC runs (SPEC §1).

Fixtures are small real slices of the bundled collection: Reina-Valera 1909
verses with their OSIS ids, Nave's topics as queries, graded qrels.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import sys

import numpy as np
import pytest

from clirkit import formats
from clirkit.errors import ClirkitError
from clirkit.formats import (
    iter_documents,
    read_documents,
    read_qrels,
    read_queries,
    read_run,
    write_documents,
    write_qrels,
    write_queries,
    write_run,
)
from clirkit.run import Qrels, Run

# what the messages say to do (the remedies ending them)
NUL = "; remove the NUL bytes (is it a binary file?)"
LONG = "; check the line: an id is a short name (is a line break or a tab missing?)"
GRADE = "; give an integer grade (0: not relevant; 1, 2, ...: relevant)"

VERSES = {
    "Gen.1.1": "EN el principio crió Dios los cielos y la tierra.",
    "Gen.1.3": "Y dijo Dios: Sea la luz: y fué la luz.",
    "Ps.23.1": "Salmo de David. JEHOVÁ es mi pastor; nada me faltará.",
    "John.3.16": "Porque de tal manera amó Dios al mundo, que ha dado á su Hijo unigénito, para que todo "
    "aquel que en él cree, no se pierda, mas tenga vida eterna.",
}
QUERIES = {
    "AARON.1": "Aaron: lineage of",
    "ABIRAM.1": "Abiram: an Israelite who conspired with Dathan against Moses and Aaron",
    "CREATION.1": "Creation: God the creator of the heavens and the earth",
}

TREC_TOPICS = """\
<top>

<num> Number: 401 
<title> foreign minorities, Germany 

<desc> Description: 
What language and cultural differences impede the integration 
of foreign minorities in Germany?

<narr> Narrative: 
A relevant document will focus on the causes of the lack of
integration in a significant way.

</top>

<top>
<num> Number: 402
<title> behavioral genetics
<desc> Description:
What is happening in the field of behavioral genetics?
<narr> Narrative:
Relevant documents include those on the roles of genetics.
</top>
"""


def write_text(path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def error_of(func, *args, **kwargs) -> str:
    with pytest.raises(ClirkitError) as info:
        func(*args, **kwargs)
    return str(info.value)


def leftovers(folder) -> list[str]:
    return sorted(os.listdir(folder))


# --------------------------------------------------------------------------- queries


def test_tsv_queries_keep_file_order_and_accented_text(tmp_path):
    path = write_text(tmp_path / "q.tsv", "".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    got = read_queries(path)
    assert got == QUERIES
    assert list(got) == list(QUERIES)


def test_tsv_query_text_keeps_tabs_and_surrounding_spaces(tmp_path):
    path = write_text(tmp_path / "q.tsv", "q1\t luz\ttinieblas \r\n")
    assert read_queries(path) == {"q1": " luz\ttinieblas "}


def test_tsv_query_line_without_tab_names_file_and_line(tmp_path):
    path = write_text(tmp_path / "q.tsv", "AARON.1\tAaron: lineage of\nABIRAM.1 Abiram\n")
    assert error_of(read_queries, path) == f"{path}:2: expected qid TAB text, found no tab"


def test_duplicate_query_id_is_an_error_naming_the_first_line(tmp_path):
    path = write_text(tmp_path / "q.tsv", "q1\tluz\nq2\tagua\nq1\ttierra\n")
    assert error_of(read_queries, path) == (
        f"{path}:3: query id q1 appears twice (first at line 1): give each query "
        f"its own id, or remove the repeated query"
    )


def test_query_id_with_whitespace_is_an_error(tmp_path):
    path = write_text(tmp_path / "q.tsv", "q 1\tluz\n")
    assert error_of(read_queries, path) == f"{path}:1: qid 'q 1' contains whitespace"


def test_empty_query_file_is_reported_without_a_line_with_what_a_queries_file_holds(tmp_path):
    path = write_text(tmp_path / "q.tsv", "\n  \n")
    assert error_of(read_queries, path) == (
        f"{path}: empty: no queries found; check the path (a queries file holds "
        f"qid TAB text lines, JSONL records, or TREC, CLEF, NTCIR or HC4 topics)"
    )


def test_invalid_utf8_in_queries_names_file_and_line(tmp_path):
    path = tmp_path / "q.tsv"
    path.write_bytes("q1\tcrió\n".encode() + b"q2\tcri\xf3\n")
    assert re.fullmatch(rf"{re.escape(str(path))}:2: invalid UTF-8.*", error_of(read_queries, path))


def test_jsonl_queries_detected_by_name_and_numeric_ids_become_strings(tmp_path):
    lines = [
        json.dumps({"qid": 7, "text": "JEHOVÁ es mi pastor"}, ensure_ascii=False),
        json.dumps({"qid": "AARON.1", "text": "Aaron: lineage of", "lang": "en"}),
    ]
    path = write_text(tmp_path / "q.jsonl", "\n".join(lines) + "\n")
    assert read_queries(path) == {"7": "JEHOVÁ es mi pastor", "AARON.1": "Aaron: lineage of"}


@pytest.mark.parametrize(
    "line, problem",
    [
        ('{"qid": "q1", "text": "luz"', "invalid JSON: Expecting ',' delimiter (column 28)"),
        ('["q1", "luz"]', "expected a JSON object, got list"),
        ('{"qid": "q1"}', 'missing key "text"'),
        ('{"qid": "q1", "text": 3}', '"text" must be a string, got int'),
        ('{"qid": null, "text": "luz"}', '"qid" must be a string, got NoneType'),
    ],
)
def test_bad_jsonl_query_line_names_file_line_and_problem(tmp_path, line, problem):
    path = write_text(tmp_path / "q.jsonl", '{"qid": "q0", "text": "agua"}\n' + line + "\n")
    assert error_of(read_queries, path) == f"{path}:2: {problem}"


def test_json_array_instead_of_jsonl_is_explained(tmp_path):
    path = write_text(tmp_path / "q.json", '[\n{"qid": "q1", "text": "luz"}\n]\n')
    assert error_of(read_queries, path) == f"{path}:1: expected one JSON object per line (JSONL), found a JSON array"


def test_trec_topics_detected_and_title_is_the_default_field(tmp_path):
    path = write_text(tmp_path / "topics.401-402", TREC_TOPICS)
    assert read_queries(path) == {"401": "foreign minorities, Germany", "402": "behavioral genetics"}


def test_trec_topic_fields_desc_narr_and_title_plus_desc(tmp_path):
    path = write_text(tmp_path / "topics", TREC_TOPICS)
    desc = read_queries(path, field="desc")
    assert desc["401"] == (
        "What language and cultural differences impede the integration of foreign minorities in Germany?"
    )
    assert read_queries(path, field="narr")["402"] == "Relevant documents include those on the roles of genetics."
    both = read_queries(path, field="title+desc")
    assert both["402"] == "behavioral genetics What is happening in the field of behavioral genetics?"


def test_trec_topics_with_closed_tags_clef_language_prefix_and_ignored_fields(tmp_path):
    text = (
        "<top>\n<num>C041</num>\n<ES-title>Pesticidas en alimentos para bebés</ES-title>\n"
        "<ES-desc>Encontrar informes sobre pesticidas.</ES-desc>\n<dom> Domain: Health\n</top>\n"
    )
    path = write_text(tmp_path / "topics.sgml", text)
    assert read_queries(path) == {"C041": "Pesticidas en alimentos para bebés"}
    assert read_queries(path, field="desc") == {"C041": "Encontrar informes sobre pesticidas."}


@pytest.mark.parametrize(
    "text, line, problem",
    [
        (
            "<top>\n<num> Number: 401\n<title> luz\n",
            1,
            "<top> is never closed by </top>; add </top> at the end of the topic",
        ),
        ("<top>\n<title> luz\n</top>\n", 1, "topic has no <num>; give each topic its number"),
        ("<top>\n<num> Number: 401\n<desc> luz\n</top>\n", 1, "topic 401 has no <title>"),
        (
            "<top>\n<num> 401\n<title> a\n</top>\n<top>\n<num> 401\n<title> b\n</top>\n",
            6,
            "query id 401 appears twice (first at line 2): give each topic its own id, or remove the repeated topic",
        ),
        (
            "<top>\n<num> 401\n<title> a\n</top>\nstray words\n",
            5,
            "text outside <top> ... </top>: 'stray words'; remove it, or put it inside a topic's field",
        ),
        (
            "<top>\n<num> 401\n<title> a\n<top>\n",
            4,
            "<top> inside the topic opened at line 1 (missing </top>); close that topic with </top>",
        ),
    ],
)
def test_malformed_trec_topics_name_file_and_line(tmp_path, text, line, problem):
    path = write_text(tmp_path / "topics", text)
    assert error_of(read_queries, path, fmt="trec") == f"{path}:{line}: {problem}"


def test_unknown_topic_field_and_field_on_tsv_are_errors(tmp_path):
    path = write_text(tmp_path / "q.tsv", "q1\tluz\n")
    assert "unknown topic field 'summary'" in error_of(read_queries, path, field="summary")
    assert error_of(read_queries, path, field="desc") == (
        f"{path}: field='desc' applies to TREC topics only; this file is read as TSV"
    )


def test_queries_from_gzip_and_round_trip_through_gzip(tmp_path):
    path = tmp_path / "q.tsv.gz"
    write_queries(QUERIES, path)
    assert gzip.decompress(path.read_bytes()).decode().splitlines()[0] == "AARON.1\tAaron: lineage of"
    assert read_queries(path) == QUERIES


def test_queries_round_trip_tsv_and_jsonl_with_tabs_and_accents(tmp_path):
    queries = dict(QUERIES, **{"Ps.23.1": "JEHOVÁ\tes mi pastor"})
    for name in ("q.tsv", "q.jsonl"):
        write_queries(queries, tmp_path / name)
        assert read_queries(tmp_path / name) == queries


def test_writing_a_query_with_a_line_break_as_tsv_fails_and_leaves_nothing(tmp_path):
    with pytest.raises(ClirkitError, match="line break"):
        write_queries({"q1": "luz", "q2": "luz\ny tinieblas"}, tmp_path / "q.tsv")
    assert leftovers(tmp_path) == []


def test_queries_from_stdin(monkeypatch):
    data = "".join(f"{q}\t{t}\n" for q, t in QUERIES.items()).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert read_queries("-") == QUERIES


def test_trec_topics_from_stdin_are_detected(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TREC_TOPICS.encode()), encoding="utf-8"))
    assert list(read_queries("-")) == ["401", "402"]


def test_stdin_errors_are_located_at_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"q1\tluz\nq2\n"), encoding="utf-8"))
    assert error_of(read_queries, "-") == "<stdin>:2: expected qid TAB text, found no tab"


# --------------------------------------------------------------------------- documents


def test_documents_stream_in_file_order(tmp_path):
    path = write_text(tmp_path / "docs.tsv", "".join(f"{d}\t{t}\n" for d, t in VERSES.items()))
    stream = iter_documents(path)
    assert next(stream) == ("Gen.1.1", VERSES["Gen.1.1"])
    assert list(stream) == list(VERSES.items())[1:]


def test_read_documents_returns_parallel_lists(tmp_path):
    path = write_text(tmp_path / "docs.tsv", "".join(f"{d}\t{t}\n" for d, t in VERSES.items()))
    docids, texts = read_documents(path)
    assert docids == list(VERSES) and texts == list(VERSES.values())


def test_duplicate_docid_is_an_error_in_read_documents(tmp_path):
    path = write_text(tmp_path / "docs.tsv", "Gen.1.1\ta\nGen.1.3\tb\nGen.1.1\tc\n")
    assert error_of(read_documents, path) == (
        f"{path}:3: document id Gen.1.1 appears twice (first at line 1): give "
        f"each document its own id, or remove the repeated document"
    )


def test_document_line_without_tab_and_empty_docid_are_errors(tmp_path):
    path = write_text(tmp_path / "docs.tsv", "Gen.1.1\ta\nGen.1.3 Y dijo Dios\n")
    assert error_of(read_documents, path) == f"{path}:2: expected docid TAB text, found no tab"
    path = write_text(tmp_path / "docs2.tsv", "\tY dijo Dios\n")
    assert error_of(lambda p: list(iter_documents(p)), path) == f"{path}:1: empty docid; give each record its docid"


def test_empty_document_file_is_an_error_saying_what_a_documents_file_holds(tmp_path):
    path = write_text(tmp_path / "docs.tsv", "")
    assert error_of(read_documents, path) == (
        f"{path}: empty: no documents found; check the path (a documents file "
        f"holds docid TAB text lines or JSONL records)"
    )


def test_documents_round_trip_tsv_jsonl_and_gzip(tmp_path):
    docids, texts = list(VERSES), list(VERSES.values())
    texts[1] = "Y dijo Dios:\tSea la luz"
    for name in ("docs.tsv", "docs.jsonl", "docs.tsv.gz", "docs.jsonl.gz"):
        write_documents(docids, texts, tmp_path / name)
        assert read_documents(tmp_path / name) == (docids, texts)
    first = json.loads(gzip.decompress((tmp_path / "docs.jsonl.gz").read_bytes()).splitlines()[0])
    assert first == {"docid": "Gen.1.1", "text": VERSES["Gen.1.1"]}


def test_jsonl_documents_forced_format_and_missing_docid(tmp_path):
    path = write_text(tmp_path / "docs.txt", '{"docid": "Gen.1.1", "text": "luz"}\n{"id": "Gen.1.3", "text": "x"}\n')
    assert error_of(read_documents, path, fmt="jsonl") == f'{path}:2: missing key "docid"'
    assert error_of(read_documents, path, fmt="xml") == "unknown document format 'xml' (choose auto, tsv or jsonl)"


def test_gzip_written_documents_are_byte_identical_across_writes(tmp_path):
    write_documents(list(VERSES), list(VERSES.values()), tmp_path / "a.tsv.gz")
    write_documents(list(VERSES), list(VERSES.values()), tmp_path / "b.tsv.gz")
    assert (tmp_path / "a.tsv.gz").read_bytes() == (tmp_path / "b.tsv.gz").read_bytes()


# --------------------------------------------------------------------------- qrels


def test_four_column_qrels_keep_file_order_and_grades(tmp_path):
    path = write_text(tmp_path / "qrels", "AARON.1 0 Exod.6.16 2\nAARON.1 0 Exod.6.17 1\nABDI.1\t0\t2Chr.29.12\t0\n")
    qrels = read_qrels(path)
    assert qrels.qids.tolist() == ["AARON.1", "AARON.1", "ABDI.1"]
    assert qrels.docids.tolist() == ["Exod.6.16", "Exod.6.17", "2Chr.29.12"]
    assert qrels.rels.tolist() == [2, 1, 0] and qrels.rels.dtype == np.int64


def test_three_column_qrels(tmp_path):
    path = write_text(tmp_path / "qrels", "AARON.1 Exod.6.16 2\nAARON.1 Exod.6.17 -1\n")
    assert read_qrels(path).to_dict() == {"AARON.1": {"Exod.6.16": 2, "Exod.6.17": -1}}


@pytest.mark.parametrize(
    "text, problem",
    [
        ("q1 0 Gen.1.1 1 extra\n", "1: expected 4 columns (qid iter docid rel) or 3, got 5"),
        ("q1 0 Gen.1.1 1\nq1 Gen.1.3 1\n", "2: expected 4 columns (qid iter docid rel) like line 1, got 3"),
        ("q1 Gen.1.1 1\nq1 0 Gen.1.3 1\n", "2: expected 3 columns (qid docid rel) like line 1, got 4"),
        ("q1 0 Gen.1.1 1\nq1 0 Gen.1.3 x\n", "2: relevance grade 'x' is not an integer" + GRADE),
        ("q1 0 Gen.1.1 1.5\n", "1: relevance grade '1.5' is not an integer" + GRADE),
        (
            "7 0 D1 1\n7 0 D2 0\n7 0 D1 2\n",
            "3: docid D1 appears twice for query 7 (first at line 1): a document is "
            "judged once per query; remove one of the two lines",
        ),
    ],
)
def test_bad_qrels_name_file_line_and_problem(tmp_path, text, problem):
    path = write_text(tmp_path / "qrels", text)
    assert error_of(read_qrels, path) == f"{path}:{problem}"


def test_empty_qrels_is_an_error_saying_what_a_qrels_file_holds(tmp_path):
    path = write_text(tmp_path / "qrels", "")
    assert error_of(read_qrels, path) == (
        f"{path}: the qrels judge nothing (no judgment line; a qrels file holds qid iter docid rel lines)"
    )


def test_qrels_round_trip_writes_four_columns_with_iter_zero(tmp_path):
    qrels = Qrels(["AARON.1", "AARON.1", "ABDI.1"], ["Exod.6.16", "Exod.6.17", "2Chr.29.12"], [2, 1, 0])
    write_qrels(qrels, tmp_path / "qrels.txt.gz")
    text = gzip.decompress((tmp_path / "qrels.txt.gz").read_bytes()).decode()
    assert text == "AARON.1 0 Exod.6.16 2\nAARON.1 0 Exod.6.17 1\nABDI.1 0 2Chr.29.12 0\n"
    back = read_qrels(tmp_path / "qrels.txt.gz")
    assert back.to_dict() == qrels.to_dict() and back.qids.tolist() == qrels.qids.tolist()


# --------------------------------------------------------------------------- runs

RUN_TEXT = """\
401 Q0 Gen.1.3 1 12.5 bm25
401 Q0 John.3.16 2 7.25 bm25
402 Q0 Ps.23.1 1 3 bm25
401 Q0 Gen.1.1 3 9.0 bm25
402 Q0 Gen.1.1 2 3 bm25
402 Q0 Gen.1.3 3 4e-1 bm25
"""


def test_run_rows_grouped_by_first_appearance_and_sorted_by_score(tmp_path):
    run = read_run(write_text(tmp_path / "a.run", RUN_TEXT))
    assert run.query_ids == ["401", "402"]
    assert run.docids.tolist() == ["Gen.1.3", "Gen.1.1", "John.3.16", "Ps.23.1", "Gen.1.1", "Gen.1.3"]
    assert run.scores.tolist() == [12.5, 9.0, 7.25, 3.0, 3.0, 0.4]
    assert run.tag == "bm25"


def test_run_score_ties_keep_file_order_not_docid_or_rank_order(tmp_path):
    text = "q1 Q0 Gen.1.3 1 1.0 t\nq1 Q0 Gen.1.1 2 1.0 t\nq1 Q0 Gen.1.2 9 1 t\n"
    run = read_run(write_text(tmp_path / "a.run", text))
    assert run.docids.tolist() == ["Gen.1.3", "Gen.1.1", "Gen.1.2"]


# were "score 'abc' is not a number", "score 'nan' is not a finite number", "rank 'two' is not an integer": no fix
SCORE_FIX = "; give each result a finite score such as 12.5 (column 5: qid Q0 docid rank score tag)"
RANK_FIX = "; give the result's rank as a whole number (1, 2, ...) in column 4"


@pytest.mark.parametrize(
    "line, problem",
    [
        ("401 Q0 Gen.1.2 2 1.0", "expected 6 columns (qid Q0 docid rank score tag), got 5"),
        ("401 Q0 Gen.1.2 2 1.0 bm25 x", "expected 6 columns (qid Q0 docid rank score tag), got 7"),
        ("401 Q0 Gen.1.2 2 abc bm25", "score 'abc' is not a number" + SCORE_FIX),
        ("401 Q0 Gen.1.2 2 1_0 bm25", "score '1_0' is not a number" + SCORE_FIX),
        ("401 Q0 Gen.1.2 2 nan bm25", "score 'nan' is not a finite number" + SCORE_FIX),
        ("401 Q0 Gen.1.2 2 -inf bm25", "score '-inf' is not a finite number" + SCORE_FIX),
        ("401 Q0 Gen.1.2 two 1.0 bm25", "rank 'two' is not an integer" + RANK_FIX),
        ("401 Q0 Gen.1.2 2.0 1.0 bm25", "rank '2.0' is not an integer" + RANK_FIX),
        (
            "401 Q0 Gen.1.3 2 1.0 bm25",
            "docid Gen.1.3 appears twice for query 401 (first at line 1): a run lists a "
            "document once per query; remove one of the two lines",
        ),
    ],
)
def test_bad_run_line_names_file_line_and_problem(tmp_path, line, problem):
    path = write_text(tmp_path / "a.run", "401 Q0 Gen.1.3 1 2.0 bm25\n402 Q0 Gen.1.2 1 1.0 bm25\n" + line + "\n")
    assert error_of(read_run, path) == f"{path}:3: {problem}"


@pytest.mark.parametrize(
    "text",
    [
        "401 Q0 D3 1 12.5 t\n401 Q0 D1 2 12.25 t\n401 Q0 D3 3 1.0 t\n402 Q0 D1 1 3.0 t\n",  # the repeat falls below
        "401 Q0 D3 1 1.0 t\n401 Q0 D1 2 12.25 t\n401 Q0 D3 3 12.5 t\n402 Q0 D1 1 3.0 t\n",  # the first copy does
    ],
    ids=["repeat below", "first copy below"],
)
@pytest.mark.parametrize("depth", [None, 1, 2, 3])
def test_a_repeated_docid_is_reported_whatever_the_depth_keeps(tmp_path, text, depth):
    path = write_text(tmp_path / "a.run", text)
    assert (
        error_of(read_run, path, depth=depth)
        == f"{path}:3: docid D3 appears twice for query 401 (first at line 1): a run lists a document once per query; remove one of the two lines"
    )


def test_same_docid_under_two_queries_is_not_a_duplicate(tmp_path):
    run = read_run(write_text(tmp_path / "a.run", "1 Q0 D1 1 2 t\n2 Q0 D1 1 2 t\n"))
    assert run.docids.tolist() == ["D1", "D1"]


def test_run_line_numbers_count_skipped_blank_lines(tmp_path):
    path = write_text(tmp_path / "a.run", "401 Q0 D1 1 2 t\n\n\n401 Q0 D2 2 x t\n")
    assert error_of(read_run, path) == f"{path}:4: score 'x' is not a number{SCORE_FIX}"


def test_empty_run_file_is_a_run_of_no_rows(tmp_path):
    path = write_text(tmp_path / "a.run", "\n")
    assert len(read_run(path)) == 0


def test_run_write_read_round_trip_is_bit_exact(tmp_path):
    scores = [0.1 + 0.2, 1e-300, -3.5, 5e-324, 1.7976931348623157e308, 2.0 / 3.0, -0.0, 123456789.123456789]
    run = Run.ranked(["q1"] * 5 + ["q2"] * 3, [f"Gen.1.{i}" for i in range(1, 9)], scores, tag="exact")
    write_run(run, tmp_path / "a.run")
    back = read_run(tmp_path / "a.run")
    assert back.docids.tolist() == run.docids.tolist()
    assert back.scores.tobytes() == run.scores.tobytes()
    assert back.tag == "exact"


def test_written_run_has_ranks_repr_scores_and_tag(tmp_path):
    run = Run(["401", "401", "402"], ["Gen.1.3", "Gen.1.1", "Ps.23.1"], [0.1 + 0.2, 1e-300, -3.5], tag="dt")
    write_run(run, tmp_path / "a.run")
    assert (tmp_path / "a.run").read_text().splitlines() == [
        "401 Q0 Gen.1.3 1 0.30000000000000004 dt",
        "401 Q0 Gen.1.1 2 1e-300 dt",
        "402 Q0 Ps.23.1 1 -3.5 dt",
    ]


def test_write_run_depth_and_tag_override(tmp_path):
    run = Run(["401"] * 3 + ["402"] * 2, ["a", "b", "c", "d", "e"], [5, 4, 3, 2, 1], tag="bm25")
    write_run(run, tmp_path / "a.run.gz", depth=2, tag="psq")
    lines = gzip.decompress((tmp_path / "a.run.gz").read_bytes()).decode().splitlines()
    assert [ln.split()[2:4] for ln in lines] == [["a", "1"], ["b", "2"], ["d", "1"], ["e", "2"]]
    assert {ln.split()[5] for ln in lines} == {"psq"}
    assert read_run(tmp_path / "a.run.gz").tag == "psq"


def test_write_run_refuses_ids_and_tags_that_would_break_columns(tmp_path):
    run = Run._unique_rows(np.array(["401"]), np.array(["Gen 1 1"]), np.array([1.0]), tag="t")  # (Run() refuses it)
    assert "document id 'Gen 1 1'" in error_of(write_run, run, tmp_path / "a.run")
    assert "run tag 'my run'" in error_of(write_run, Run(["401"], ["D1"], [1.0]), tmp_path / "a.run", tag="my run")
    assert leftovers(tmp_path) == []


def test_a_large_run_round_trips_through_the_fast_path(tmp_path):
    rng = np.random.default_rng(7)
    nq, k = 20, 500
    qids = np.repeat([f"Q{i}" for i in range(nq)], k)
    docids = np.tile([f"Gen.{i // 31 + 1}.{i % 31 + 1}" for i in range(k)], nq)
    scores = np.round(rng.standard_normal(nq * k), 2)  # many ties
    run = Run.ranked(qids, docids, scores, tag="big")
    write_run(run, tmp_path / "big.run")
    back = read_run(tmp_path / "big.run")
    # ties come back in file order, which is the written (docid ascending) order
    assert back.qids.tolist() == run.qids.tolist()
    assert back.docids.tolist() == run.docids.tolist()
    assert back.scores.tobytes() == run.scores.tobytes()


def test_fast_and_line_by_line_run_parsers_agree_on_good_input(tmp_path):
    path = write_text(tmp_path / "a.run", RUN_TEXT)
    from clirkit.fileio import iter_lines
    from clirkit.formats import runs

    rows = list(iter_lines(path))
    fast = runs._parse_run_fast(rows)
    checked = runs._parse_run_checked(str(path), rows)
    assert fast is not None
    for (codes, ids), (codes2, ids2) in zip(fast[:2], checked[:2]):
        assert codes.tolist() == codes2.tolist() and ids == ids2
    assert fast[2].tobytes() == checked[2].tobytes() and fast[3] == checked[3] == "bm25"


def test_run_from_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN_TEXT.encode()), encoding="utf-8"))
    assert read_run("-").query_ids == ["401", "402"]


# --------------------------------------------------------------------------- atomicity


def test_a_writer_failing_midway_leaves_no_file_and_no_temp_file(tmp_path, monkeypatch):
    from clirkit.formats import ids

    monkeypatch.setattr(ids, "WRITE_CHUNK", 1)  # the first record is written before the failure

    class Exploding(dict):
        def items(self):
            yield "q1", "luz"
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_queries(Exploding(), tmp_path / "q.tsv.gz")
    with pytest.raises(ClirkitError, match="line break"):
        write_documents(["Gen.1.1", "Gen.1.3"], [VERSES["Gen.1.1"], "Y dijo Dios:\nSea la luz"], tmp_path / "d.tsv")
    run = Run._unique_rows(np.array(["401", "402"]), np.array(["Gen.1.1", "Ps 23 1"]), np.array([2.0, 1.0]))
    with pytest.raises(ClirkitError):
        write_run(run, tmp_path / "a.run")
    assert leftovers(tmp_path) == []


def test_a_failed_write_keeps_the_previous_file(tmp_path):
    target = tmp_path / "q.tsv"
    write_queries(QUERIES, target)
    before = target.read_bytes()
    with pytest.raises(ClirkitError):
        write_queries({"q1": "a\nb"}, target)
    assert target.read_bytes() == before and leftovers(tmp_path) == ["q.tsv"]


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"qid": "Q\\ud800", "text": "x"}', "unpaired surrogate"),
        ("[" * 100_000, "JSON nested too deeply"),
        ('{"qid": 1' + "0" * 5000 + ', "text": "x"}', "invalid JSON"),
        ('{"qid": "' + "q" * 1001 + '", "text": "x"}', "qid of 1,001 characters (at most 1,000)"),
    ],
)
def test_hostile_jsonl_lines_are_file_line_errors(tmp_path, line, message):
    path = tmp_path / "q.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        read_queries(path)
    assert str(err.value).startswith(f"{path}:1: ") and message in str(err.value)


def test_a_huge_relevance_grade_is_a_file_line_error(tmp_path):
    path = tmp_path / "big.qrels"
    path.write_text("q1 0 Gen.1.1 1\nq1 0 Gen.1.2 9223372036854775808\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"big.qrels:2: relevance grade '9223372036854775808' is out of range"):
        read_qrels(path)


# --------------------------------------------------------------------------- field names and TSV headers


def jsonl(path, records) -> str:
    return write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


@pytest.mark.parametrize("id_key, text_key", [("doc_id", "text"), ("id", "contents"), ("_id", "text")])
def test_jsonl_documents_with_ir_datasets_pyserini_and_beir_keys_read_like_docid_text(tmp_path, id_key, text_key):
    path = jsonl(tmp_path / "docs.jsonl", [{id_key: d, text_key: t} for d, t in VERSES.items()])
    assert read_documents(path) == (list(VERSES), list(VERSES.values()))
    assert list(iter_documents(path)) == list(VERSES.items())


def test_title_and_text_are_joined_title_first_with_one_space_and_an_empty_title_left_out(tmp_path):
    path = jsonl(
        tmp_path / "corpus.jsonl",
        [
            {"_id": "Ps.23.1", "title": "Salmo de David.", "text": "JEHOVÁ es mi pastor; nada me faltará."},
            {"_id": "Gen.1.1", "title": "", "text": VERSES["Gen.1.1"]},
        ],
    )
    assert read_documents(path)[1] == [VERSES["Ps.23.1"], VERSES["Gen.1.1"]]
    assert formats.TEXT_SEPARATOR == " "


def test_the_first_known_key_wins_docid_before_doc_id_before_id(tmp_path):
    path = jsonl(tmp_path / "docs.jsonl", [{"id": "1", "doc_id": "Gen.1.1", "text": "luz", "contents": "x"}])
    assert read_documents(path) == (["Gen.1.1"], ["luz"])


def test_unknown_keys_are_an_error_naming_the_keys_looked_for_and_found(tmp_path):
    path = jsonl(tmp_path / "docs.jsonl", [{"pid": "Gen.1.1", "body": "luz"}])
    assert error_of(read_documents, path) == (
        f"{path}:1: no document id key (looked for docid, doc_id, id, _id; found: pid, body); name it with id_field="
    )
    path = jsonl(tmp_path / "docs2.jsonl", [{"doc_id": "Gen.1.1", "body": "luz"}])
    assert error_of(read_documents, path) == (
        f"{path}:1: no document text key (looked for title+text, text, contents; found: doc_id, body); "
        "name it with text_fields="  # (Python's keywords; the command line names its options)
    )


def test_named_id_and_text_fields_are_read_and_must_be_present(tmp_path):
    path = jsonl(tmp_path / "docs.jsonl", [{"pid": "Gen.1.1", "head": "Génesis", "body": "luz"}])
    assert read_documents(path, id_field="pid", text_fields="head+body") == (["Gen.1.1"], ["Génesis luz"])
    assert read_documents(path, id_field="pid", text_fields=["body"]) == (["Gen.1.1"], ["luz"])
    assert error_of(read_documents, path, id_field="docid", text_fields="body") == (
        f'{path}:1: no document id key "docid" (found: pid, head, body); name one of those found'
    )
    assert error_of(read_documents, path, id_field="pid", text_fields="body+text") == (
        f'{path}:1: no document text key "text" (found: pid, head, body); name one of those found'
    )
    assert "expected field names" in error_of(read_documents, path, text_fields="title++text")


def test_keys_chosen_on_the_first_record_are_required_of_every_later_one(tmp_path):
    path = jsonl(tmp_path / "docs.jsonl", [{"doc_id": "Gen.1.1", "text": "luz"}, {"docid": "Gen.1.3", "text": "x"}])
    assert error_of(read_documents, path) == f'{path}:2: missing key "doc_id"'


def test_jsonl_queries_with_ir_datasets_topic_keys_use_the_title_or_named_fields(tmp_path):
    path = jsonl(
        tmp_path / "topics.jsonl",
        [{"query_id": "AARON.1", "title": "Aaron: lineage of", "description": "the descendants of Aaron"}],
    )
    assert read_queries(path) == {"AARON.1": "Aaron: lineage of"}
    assert read_queries(path, text_fields="title+description") == {
        "AARON.1": "Aaron: lineage of the descendants of Aaron"
    }
    assert read_queries(path, text_fields="description") == {"AARON.1": "the descendants of Aaron"}
    path = jsonl(tmp_path / "queries.jsonl", [{"_id": "AARON.1", "text": "Aaron: lineage of", "metadata": {}}])
    assert read_queries(path) == {"AARON.1": "Aaron: lineage of"}
    path = jsonl(tmp_path / "bad.jsonl", [{"num": "401", "topic": "luz"}])
    assert error_of(read_queries, path) == (
        f"{path}:1: no query id key (looked for qid, query_id, id, _id; found: num, topic); name it with id_field="
    )
    path = jsonl(tmp_path / "bad2.jsonl", [{"qid": "401", "topic": "luz"}])
    assert error_of(read_queries, path).endswith("found: qid, topic); name it with fields=")


@pytest.mark.parametrize("head", ["docid\ttext", "doc_id\ttext", "id\ttext", "osis_id\ttext", "id\tcontents"])
def test_a_known_tsv_header_is_skipped_and_the_text_keeps_its_tabs(tmp_path, head):
    path = write_text(tmp_path / "docs.tsv", f"{head}\nGen.1.1\tEN el principio\tcrió Dios\nGen.1.3\tluz\n")
    assert read_documents(path) == (["Gen.1.1", "Gen.1.3"], ["EN el principio\tcrió Dios", "luz"])


def test_bible_tsv_with_an_osis_id_header_no_longer_gives_an_extra_pair(tmp_path):
    # the issue: `ttable train --aligned-by id` on the Bible TSVs counted `osis_id -> text` as a pair
    path = write_text(tmp_path / "rv1909.tsv", "osis_id\ttext\n" + "".join(f"{d}\t{t}\n" for d, t in VERSES.items()))
    docids, texts = read_documents(path)
    assert docids == list(VERSES) and "text" not in texts


@pytest.mark.parametrize("head", ["qid\ttext", "query_id\ttext", "query_id\ttitle"])
def test_a_known_query_tsv_header_is_skipped(tmp_path, head):
    path = write_text(tmp_path / "q.tsv", f"{head}\n" + "".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    assert read_queries(path) == QUERIES


def test_header_false_reads_line_one_as_data_and_true_skips_an_unknown_header(tmp_path):
    path = write_text(tmp_path / "docs.tsv", "docid\ttext\nGen.1.1\tluz\n")
    assert read_documents(path, header=False) == (["docid", "Gen.1.1"], ["text", "luz"])
    path = write_text(tmp_path / "passages.tsv", "key\tpara\nGen.1.1\tluz\n")
    assert read_documents(path) == (["key", "Gen.1.1"], ["para", "luz"])  # unknown names: data
    assert read_documents(path, header=True) == (["Gen.1.1"], ["luz"])  # declared: id TAB text


def test_a_wider_tsv_header_names_the_columns_and_every_line_must_match_it(tmp_path):
    # DPR's psgs_w100.tsv layout: id, text, title
    path = write_text(
        tmp_path / "psgs.tsv",
        "id\ttext\ttitle\nPs.23.1\tJEHOVÁ es mi pastor\tSalmo de David.\nGen.1.1\tEN el principio\t\n",
    )
    assert read_documents(path) == (["Ps.23.1", "Gen.1.1"], ["Salmo de David. JEHOVÁ es mi pastor", "EN el principio"])
    assert read_documents(path, text_fields="text")[1] == ["JEHOVÁ es mi pastor", "EN el principio"]
    bad = write_text(tmp_path / "bad.tsv", "id\ttext\ttitle\nPs.23.1\tJEHOVÁ es mi pastor\n")
    assert error_of(read_documents, bad) == f"{bad}:2: expected 3 tab-separated columns like the header (line 1), got 2"


def test_naming_tsv_columns_says_line_one_is_a_header(tmp_path):
    path = write_text(tmp_path / "passages.tsv", "pid\tabstract\ttitle\nGen.1.1\tluz\tGénesis\n")
    assert read_documents(path, id_field="pid", text_fields="abstract") == (["Gen.1.1"], ["luz"])
    assert error_of(read_documents, path, header=True) == (
        f"{path}:1: no document text column (looked for title+text, text, contents, title+body, body, content, "
        "passage; found: pid, abstract, title); name it with text_fields= (header line)"
    )
    assert error_of(read_documents, path, header=False, id_field="pid") == (
        f"{path}: id_field and text_fields name the columns of a TSV header line, and header=False says there is none"
    )


def test_a_tsv_with_only_a_header_is_empty(tmp_path):
    path = write_text(tmp_path / "docs.tsv", "docid\ttext\n")
    assert error_of(read_documents, path).startswith(f"{path}: empty: no documents found; check the path")
    path = write_text(tmp_path / "q.tsv", "qid\ttext\n")
    assert error_of(read_queries, path) == (
        f"{path}: no queries found, only a header line: add the queries below it, one per line"
    )


def test_header_and_fields_that_do_not_apply_are_errors(tmp_path):
    path = jsonl(tmp_path / "docs.jsonl", [{"docid": "Gen.1.1", "text": "luz"}])
    assert error_of(read_documents, path, header=True) == (
        f"{path}: header=True applies to TSV files; this file is read as JSONL"
    )
    topics = write_text(tmp_path / "topics", TREC_TOPICS)
    assert "the text of TREC topics is chosen with field=" in error_of(read_queries, topics, text_fields="title")


def test_error_messages_use_the_header_s_id_name(tmp_path):
    path = write_text(tmp_path / "docs.tsv", "osis_id\ttext\nGen.1.1\tluz\nGen.1.3\n")
    assert error_of(read_documents, path) == f"{path}:3: expected osis_id TAB text, found no tab"


def test_choose_fields_is_the_rule_shared_with_the_ir_datasets_adapter():
    assert formats.choose_fields(("doc_id", "title", "text", "url"), "document") == ("doc_id", ("title", "text"))
    assert formats.choose_fields(("query_id", "title", "description"), "query") == ("query_id", ("title",))
    assert formats.choose_fields(("query_id", "text"), "query") == ("query_id", ("text",))
    with pytest.raises(
        ClirkitError,
        match=r"^no document text field \(looked for title\+text, text, contents; "
        r"found: doc_id, abstract\); use doc_fields$",
    ):
        formats.choose_fields(("doc_id", "abstract"), "document", noun="field", text_hint="use doc_fields")


# --------------------------------------------------------------------------- ids the fuzzer broke (tests/test_fuzz.py)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("q1 0 Gen.1.1 1\nq1 0 " + "G" * 1001 + " 1\n", "2: docid of 1,001 characters (at most 1,000)" + LONG),
        ("q1 0 Gen.1.1 1\n" + "q" * 1001 + " 0 Gen.1.3 1\n", "2: qid of 1,001 characters (at most 1,000)" + LONG),
        ("q1 0 Gen.1.1 1\nq1 0 Gen.1.3\x00 1\n", "2: docid 'Gen.1.3\\x00' contains a NUL character" + NUL),
        ("q1\x00 Gen.1.1 1\n", "1: qid 'q1\\x00' contains a NUL character" + NUL),
    ],
)
def test_a_qrels_id_too_long_or_with_a_nul_is_an_error_not_a_huge_or_truncated_array(tmp_path, text, problem):
    # numpy string arrays are as wide as their longest id and drop trailing NULs: "Gen.1.3\0" became "Gen.1.3"
    path = write_text(tmp_path / "qrels", text)
    assert error_of(read_qrels, path) == f"{path}:{problem}"


@pytest.mark.parametrize(
    "line, problem",
    [
        ("401 Q0 " + "G" * 5000 + " 2 1.0 bm25", "docid of 5,000 characters (at most 1,000)" + LONG),
        ("401\x00 Q0 Gen.1.2 2 1.0 bm25", "qid '401\\x00' contains a NUL character" + NUL),
        ("401 Q0 Gen.1.2\x00 2 1.0 bm25", "docid 'Gen.1.2\\x00' contains a NUL character" + NUL),
    ],
)
def test_a_run_id_too_long_or_with_a_nul_is_an_error(tmp_path, line, problem):
    path = write_text(tmp_path / "a.run", "401 Q0 Gen.1.3 1 2.0 bm25\n402 Q0 Gen.1.2 1 1.0 bm25\n" + line + "\n")
    assert error_of(read_run, path) == f"{path}:3: {problem}"


def test_a_run_tag_too_long_is_an_error_naming_the_first_line(tmp_path):
    path = write_text(tmp_path / "a.run", "401 Q0 Gen.1.3 1 2.0 " + "t" * 1001 + "\n")
    assert error_of(read_run, path) == f"{path}:1: run tag of 1,001 characters (at most 1,000)" + LONG


@pytest.mark.parametrize(
    "path_name, text, problem",
    [
        ("docs.tsv", "Gen.1.1\x00\tEN el principio\n", "1: docid 'Gen.1.1\\x00' contains a NUL character" + NUL),
        (
            "docs.jsonl",
            '{"docid": "Gen.1.1\\u0000", "text": "EN el principio"}\n',
            "1: docid 'Gen.1.1\\x00' contains a NUL character" + NUL,
        ),
    ],
)
def test_a_document_id_with_a_nul_is_an_error(tmp_path, path_name, text, problem):
    path = write_text(tmp_path / path_name, text)
    assert error_of(read_documents, path) == f"{path}:{problem}"


def test_a_trec_topic_number_too_long_is_an_error(tmp_path):
    path = write_text(tmp_path / "topics.txt", "<top>\n<num> Number: " + "4" * 1001 + "\n<title> Aaron\n</top>\n")
    assert error_of(read_queries, path) == f"{path}:2: topic number of 1,001 characters (at most 1,000)" + LONG


def test_nul_bytes_in_a_jsonl_line_are_named_as_nul_bytes(tmp_path):
    path = tmp_path / "docs.jsonl"
    for line in ('{"id": "a", "text": "b"}\x00', '{"id": "a", "text": "b\x00c"}', "\x00\x00"):
        path.write_text('{"id": "z", "text": "y"}\n' + line + "\n", encoding="utf-8")
        with pytest.raises(ClirkitError) as info:
            list(formats.iter_located_documents(path))
        column = line.index("\x00") + 1
        assert str(info.value) == (
            f"{path}:2: a NUL byte (column {column}): JSONL is text; remove the NUL bytes (is it a binary file?)"
        )
