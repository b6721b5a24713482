"""Issue 40, re-check of edge test 9: the readers and their messages. TSV header lines matched without regard to
case, with the names PyTerrier and MS MARCO use (``qid TAB query TAB narr``, ``docno TAB title TAB body``,
``pid TAB passage``); a header error names only what the verb reading the file offers; ``psq --index`` given a
table; backslashes in Markdown cells; the id rule in a frame's message.

The texts are the Genesis verses of conftest.py and Nave's topic words.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_boost_cli import write_files
from test_edges_cli5 import _psq_files
from test_formats import error_of, write_text

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.formats import DOC_TEXT_FIELDS, QUERY_TEXT_FIELDS, read_documents, read_queries
from clirkit.metrics import Evaluation
from clirkit.report import Report
from clirkit.run import Run

ANALYZER = Analyzer("es")


# --------------------------------------------------------------------------- R11: '\' in Markdown cells


def test_a_report_s_markdown_escapes_a_backslash_before_a_pipe():
    # "a\|b" written as "a\\|b" would end the cell at the "|" (GFM): the backslash is escaped first
    evaluation = Evaluation(("AP",), np.array(["LIGHT.1"]), np.array([[0.5]]), "qrels", "t", (), ())
    table = Report(["DT\\|PSQ*"], [evaluation], qrels="qrels").markdown().splitlines()
    assert table[2] == "| DT\\\\\\|PSQ\\* | 1 | 0.5000 |"


# --------------------------------------------------------------------------- R9: the id rule of a frame's message


@pytest.mark.parametrize(
    ("docno", "problem"), [("Gen.1\x00.1", "contains a NUL character"), ("G" * 1001, "is longer than 1,000 characters")]
)
def test_a_frame_s_bad_id_message_states_the_whole_rule(docno, problem):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["LIGHT"], "docno": [docno], "score": [1.0]})
    message = error_of(Run.from_frame, frame)
    assert problem in message
    assert message.endswith(
        "give every row a docno a run file can hold (non-empty, without whitespace or NUL, at most 1,000 characters)"
    )


@pytest.mark.parametrize("column", ["qid", "docno"])
def test_a_nul_at_the_end_of_a_frame_id_is_refused_not_dropped(column):
    # numpy's str arrays drop trailing NULs: "LIGHT\x00" would have become the id "LIGHT", another query's
    pd = pytest.importorskip("pandas")
    ids = {"qid": ["LIGHT", "LIGHT"], "docno": ["Gen.1.1", "Gen.1.2"], "score": [2.0, 1.0]}
    ids[column] = [ids[column][0], ids[column][1] + "\x00"]
    message = error_of(Run.from_frame, pd.DataFrame(ids))
    assert f"row 1 has {column} " in message and "contains a NUL character" in message


# --------------------------------------------------------------------------- new problem 8: a table as psq's --index


def test_psq_given_a_table_as_its_index_says_so_not_that_table_is_required(tmp_path, capsys):
    psq = _psq_files(tmp_path)  # ix.npz, q.tsv and the tables t.npz, t2.npz
    capsys.readouterr()
    table = str(tmp_path / "t.npz")
    argv = [*psq[:1], "--index", table, *psq[3:], "-o", str(tmp_path / "x.run"), "-q"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {table}: not a clirkit index file (its kind is 'translation-table')")
    assert err.count("\n") == 1 and "--table is required" not in err
    assert not (tmp_path / "x.run").exists()


# --------------------------------------------------------------------------- new problems 3 and 6, R5, R16: headers

QUERIES = {"LIGHT": "light", "WATER.1": "waters"}
VERSE = "Gen.1.3\tY dijo Dios: Sea la luz\n"


@pytest.mark.parametrize(
    "head",
    [
        "qid\tquery\tnarr",  # PyTerrier's query column beside a topic's narrative
        "qid\tquestion\tanswer",
        "QID\tTITLE",  # known names in any case
        "Qid\tQuery",
        "qid\tquery\t",  # a trailing tab, as a spreadsheet writes it
        "topic\tquery",  # an id's name that is no known field, before a known text's
        "q-id\tquery",
        "topic_id\ttitle",
    ],
)
def test_a_query_header_of_known_names_in_any_case_or_with_an_id_s_name_is_skipped(tmp_path, head):
    rest = "\t" * (head.count("\t") - 1)  # the third column: a narrative, an answer, or the trailing tab's
    path = write_text(tmp_path / "q.tsv", f"{head}\n" + "".join(f"{q}\t{t}{rest}\n" for q, t in QUERIES.items()))
    assert read_queries(path) == QUERIES


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("docno\ttitle\tbody", "Génesis Y dijo Dios: Sea la luz"),  # title and body joined, as title and text
        ("DOCNO\tTEXT", "Y dijo Dios: Sea la luz"),
        ("id\tbody\turl", "Y dijo Dios: Sea la luz"),
        ("doc_id\tcontent\tlang", "Y dijo Dios: Sea la luz"),
        ("pid\tpassage", "Y dijo Dios: Sea la luz"),  # MS MARCO's names (R16)
    ],
)
def test_a_document_header_of_common_names_in_any_case_is_skipped(tmp_path, head, expected):
    ncols = head.count("\t") + 1
    values = {"title": "Génesis", "url": "http://x", "lang": "es"}
    cells = [values.get(c, "Y dijo Dios: Sea la luz") for c in head.lower().split("\t")[1:]]
    path = write_text(tmp_path / "docs.tsv", f"{head}\nGen.1.3\t" + "\t".join(cells[: ncols - 1]) + "\n")
    assert read_documents(path) == (["Gen.1.3"], [expected])


@pytest.mark.parametrize("first", ["q1\tthe light", "qid1\tquery", "said\tgenesis", "Gen.1.1\ttitle", "id-7\ttext"])
def test_a_first_line_of_real_data_is_still_data_whatever_its_words(tmp_path, first):
    path = write_text(tmp_path / "q.tsv", f"{first}\n" + "".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    qid, text = first.split("\t")
    assert read_queries(path) == {qid: text, **QUERIES}


def test_the_names_added_for_tsv_headers_leave_jsonl_and_ir_datasets_defaults_alone(tmp_path):
    assert DOC_TEXT_FIELDS == (("title", "text"), ("text",), ("contents",))
    assert QUERY_TEXT_FIELDS == (("title",), ("description",), ("text",))
    path = write_text(tmp_path / "docs.jsonl", '{"doc_id": "Gen.1.3", "body": "luz"}\n')
    assert "no document text key (looked for title+text, text, contents;" in error_of(read_documents, path)


# --------------------------------------------------------------------------- new problem 2, R4: what to do, per verb


@pytest.fixture
def header_files(tmp_path):
    """Documents whose header names an unknown text column, queries whose line 1 reads as such a header, and the
    files of psq (tests/test_edges_cli5.py) and of the boost verbs (tests/test_boost_cli.py)."""
    psq = _psq_files(tmp_path)
    q, qrels, docs = write_files(tmp_path)
    headed = write_text(tmp_path / "dh.tsv", "docid\tpassage_text\n" + open(docs, encoding="utf-8").read())
    genesis = write_text(tmp_path / "qid.tsv", "ID\tgenesis\nq1\tred house\n")
    return {"psq": psq, "queries": q, "qrels": qrels, "docs": headed, "genesis": genesis, "dir": tmp_path}


def _error(capsys, argv) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    return err


UNKNOWN = "looks like a header line naming columns clirkit does not detect"


def test_the_index_verb_names_its_own_field_and_header_options(header_files, capsys):
    f = header_files
    err = _error(capsys, ["index", f["docs"], "--lang", "es", "-o", str(f["dir"] / "ix2.npz"), "-q"])
    assert err == (
        f"clirkit: error: {f['docs']}:1: {UNKNOWN} (passage_text); name the text column with --text-fields, "
        "or give --no-header if line 1 is a document\n"
    )


def test_a_verb_without_field_options_says_what_to_change_in_the_documents_file(header_files, capsys):
    f = header_files
    argv = ["boost-train", "--queries", f["queries"], "--qrels", f["qrels"], "--documents", f["docs"]]
    err = _error(capsys, [*argv, "--source-lang", "en", "--target-lang", "es", "-o", str(f["dir"] / "m.npz"), "-q"])
    assert err == (
        f"clirkit: error: {f['docs']}:1: {UNKNOWN} (passage_text); rename the columns, e.g. docid TAB text, "
        "or if line 1 is a document, insert a header line such as docid TAB text above it\n"
    )
    assert "--text-fields" not in err and "--no-header" not in err


def test_a_query_verb_names_query_fields_and_what_to_change_when_line_one_is_a_query(header_files, capsys):
    f = header_files
    psq = [*f["psq"][:3], "--queries", f["genesis"], *f["psq"][5:], "--table", str(f["dir"] / "t.npz")]
    err = _error(capsys, [*psq, "-o", str(f["dir"] / "x.run"), "-q"])
    assert err == (
        f"clirkit: error: {f['genesis']}:1: {UNKNOWN} (genesis); name the text column with --query-fields, "
        "or if line 1 is a query, insert a header line such as qid TAB text above it\n"
    )
    psq[4] = write_text(f["dir"] / "q3.tsv", "qid\tnarr\tdesc\nq1\tabout a house\tred house\n")
    err = _error(capsys, [*psq, "-o", str(f["dir"] / "x.run"), "-q"])
    assert err.endswith(
        "(looked for title, description, text, query, question; found: qid, narr, desc); "
        "name it with --query-fields (header line)\n"
    )
    assert main([*psq, "--query-fields", "desc", "-o", str(f["dir"] / "x.run"), "-q"]) == 0


def test_python_readers_name_their_keywords(header_files):
    f = header_files
    assert error_of(read_documents, f["docs"]).endswith(
        "name the text column with text_fields=, or give header=False if line 1 is a document"
    )
    assert error_of(read_queries, f["genesis"]).endswith(
        "name the text column with fields=, or give header=False if line 1 is a query"
    )
