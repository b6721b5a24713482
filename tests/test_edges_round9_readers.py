"""Issue 40, edge test 9: the readers and their messages. A TSV header of common names (PyTerrier's ``qid TAB
query``, ``docid TAB body``, ``qid TAB title TAB desc``) is skipped, and one of unknown names is an error rather
than a query or a document.

The texts are the Genesis verses of conftest.py and Nave's topic words.
"""

from __future__ import annotations

import pytest
from test_formats import error_of, write_text

from clirkit.formats import read_documents, read_queries

QUERIES = {"LIGHT": "light", "WATER.1": "waters"}


def query_lines(queries: dict[str, str]) -> str:
    return "".join(f"{q}\t{t}\n" for q, t in queries.items())


# --------------------------------------------------------------------------- finding 3: TSV header lines


@pytest.mark.parametrize("head", ["qid\tquery", "qid\tdesc", "query_id\tquestion", "qid\tnarr"])
def test_a_query_tsv_header_of_common_names_is_skipped_not_read_as_a_query(tmp_path, head):
    # PyTerrier's topics frame saved with to_csv(sep="\t", index=False) starts "qid TAB query"
    path = write_text(tmp_path / "q.tsv", f"{head}\n" + query_lines(QUERIES))
    assert read_queries(path) == QUERIES


@pytest.mark.parametrize("head", ["docid\tbody", "docno\ttext", "docno\tcontents", "id\tcontent"])
def test_a_document_tsv_header_of_common_names_is_skipped_not_read_as_a_document(tmp_path, head):
    path = write_text(tmp_path / "docs.tsv", f"{head}\nGen.1.3\tY dijo Dios: Sea la luz\n")
    assert read_documents(path) == (["Gen.1.3"], ["Y dijo Dios: Sea la luz"])


def test_a_header_of_title_and_desc_reads_the_title_by_default_and_desc_when_asked(tmp_path):
    path = write_text(tmp_path / "q.tsv", "qid\ttitle\tdesc\nLIGHT\tlight\tthe light of the world\n")
    assert read_queries(path) == {"LIGHT": "light"}
    assert read_queries(path, fields="desc") == {"LIGHT": "the light of the world"}
    assert read_queries(path, fields="title,desc") == {"LIGHT": "light the light of the world"}


@pytest.mark.parametrize("head", ["qid\tquery_text", "QID\tQUERY", "qid\ttitle\tnotes"])
def test_a_query_header_of_unknown_names_is_an_error_naming_the_line_and_what_to_do(tmp_path, head):
    path = write_text(tmp_path / "q.tsv", f"{head}\n" + query_lines(QUERIES))
    unknown = ", ".join(c for c in head.split("\t") if c in ("query_text", "QID", "QUERY", "notes"))
    assert error_of(read_queries, path) == (
        f"{path}:1: looks like a header line naming columns clirkit does not detect ({unknown}); "
        "name the text column with --query-fields (text_fields=), or give header=False if line 1 is a query"
    )


def test_an_unknown_header_is_read_once_its_text_column_is_named_or_header_false_is_said(tmp_path):
    path = write_text(tmp_path / "q.tsv", "qid\tquery_text\n" + query_lines(QUERIES))
    assert read_queries(path, fields="query_text") == QUERIES
    assert read_queries(path, header=False) == {"qid": "query_text", **QUERIES}
    docs = write_text(tmp_path / "docs.tsv", "docid\tpassage\nGen.1.3\tluz\n")
    assert error_of(read_documents, docs) == (
        f"{docs}:1: looks like a header line naming columns clirkit does not detect (passage); "
        "name the text column with --text-fields (text_fields=), or give --no-header (header=False) "
        "if line 1 is a document"
    )
    assert read_documents(docs, text_fields="passage") == (["Gen.1.3"], ["luz"])


@pytest.mark.parametrize(
    "first", ["q1\tthe light", "q1\tlight", "qid1\tquery", "Gen.1.1\tid", "id-7\tluz", "pid\tpassage"]
)
def test_a_first_line_of_real_data_is_still_data(tmp_path, first):
    # only a line of names whose first is an id's name is taken for a header
    path = write_text(tmp_path / "q.tsv", f"{first}\n" + query_lines(QUERIES))
    qid, text = first.split("\t")
    assert read_queries(path) == {qid: text, **QUERIES}


def test_a_known_header_naming_a_column_twice_is_still_said_so(tmp_path):
    path = write_text(tmp_path / "q.tsv", "qid\tqid\n" + query_lines(QUERIES))
    assert error_of(read_queries, path) == f"{path}:1: header line names column 'qid' twice"
