"""Issue 40, edge test 9: the readers and their messages. A TSV header of common names (PyTerrier's ``qid TAB
query``, ``docid TAB body``, ``qid TAB title TAB desc``) is skipped, and one of unknown names is an error rather
than a query or a document.

The texts are the Genesis verses of conftest.py and Nave's topic words.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_boost_cli import write_files
from test_formats import error_of, write_text

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.formats import read_documents, read_queries
from clirkit.metrics import Evaluation
from clirkit.report import Report
from clirkit.retrieval.index import Index

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


@pytest.mark.parametrize("head", ["qid\tquery_text", "QID\tQUERY_TEXT", "qid\tnotes\ttitle"])
def test_a_query_header_of_unknown_names_is_an_error_naming_the_line_and_what_to_do(tmp_path, head):
    # the reader names its keywords; the command line names its options (tests/test_edges_recheck9_readers.py)
    path = write_text(tmp_path / "q.tsv", f"{head}\n" + query_lines(QUERIES))
    unknown = ", ".join(c for c in head.split("\t") if c in ("query_text", "QUERY_TEXT", "notes"))
    assert error_of(read_queries, path) == (
        f"{path}:1: looks like a header line naming columns clirkit does not detect ({unknown}); "
        "name the text column with fields=, or give header=False if line 1 is a query"
    )


def test_an_unknown_header_is_read_once_its_text_column_is_named_or_header_false_is_said(tmp_path):
    path = write_text(tmp_path / "q.tsv", "qid\tquery_text\n" + query_lines(QUERIES))
    assert read_queries(path, fields="query_text") == QUERIES
    assert read_queries(path, header=False) == {"qid": "query_text", **QUERIES}
    docs = write_text(tmp_path / "docs.tsv", "docid\tpassage_text\nGen.1.3\tluz\n")
    assert error_of(read_documents, docs) == (
        f"{docs}:1: looks like a header line naming columns clirkit does not detect (passage_text); "
        "name the text column with text_fields=, or give header=False if line 1 is a document"
    )
    assert read_documents(docs, text_fields="passage_text") == (["Gen.1.3"], ["luz"])


@pytest.mark.parametrize(
    "first", ["q1\tthe light", "q1\tlight", "qid1\tquery", "Gen.1.1\tid", "id-7\tluz", "key\tpara"]
)
def test_a_first_line_of_real_data_is_still_data(tmp_path, first):
    # only a line of names whose first is an id's name is taken for a header. pid TAB passage was pinned here as
    # data: it is MS MARCO's header (pid, passage), now read as one (tests/test_edges_recheck9_readers.py)
    path = write_text(tmp_path / "q.tsv", f"{first}\n" + query_lines(QUERIES))
    qid, text = first.split("\t")
    assert read_queries(path) == {qid: text, **QUERIES}


def test_a_known_header_naming_a_column_twice_is_still_said_so(tmp_path):
    path = write_text(tmp_path / "q.tsv", "qid\tqid\n" + query_lines(QUERIES))
    assert error_of(read_queries, path) == f"{path}:1: header line names column 'qid' twice"


# --------------------------------------------------------------------------- finding 7: runs to re-score


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A folder with the verses and queries of tests/test_boost_cli.py, a boost model and an SCS model of them, and
    run.txt: the boost model's ranking (every row a query and a document of the files)."""
    folder = tmp_path_factory.mktemp("models")
    q, qrels, docs = write_files(folder)
    data = ["--queries", q, "--documents", docs]
    boost = ["boost-train", *data, "--qrels", qrels, "--rounds", "4", "--negatives", "3", "--bits", "18"]
    assert main([*boost, "-o", str(folder / "b.npz"), "-q"]) == 0
    scs = ["scs-train", *data, "--qrels", qrels, "--dim", "8", "--epochs", "1", "--negatives", "3"]
    assert main([*scs, "-o", str(folder / "s.npz"), "-q"]) == 0
    assert main(["boost-rank", str(folder / "b.npz"), *data, "-o", str(folder / "run.txt"), "-q"]) == 0
    return folder


def rerank_argv(folder, verb: str, run: str) -> list[str]:
    data = ["--queries", str(folder / "q.tsv"), "--documents", str(folder / "docs.tsv")]
    if verb == "boost-rank":
        return [verb, str(folder / "b.npz"), *data, "--candidates", run, "-o", str(folder / "out.run"), "-q"]
    return [verb, str(folder / "s.npz"), *data, "--rerank", run, "-o", str(folder / "out.run"), "-q"]


@pytest.mark.parametrize("verb", ["boost-rank", "scs-score"])
@pytest.mark.parametrize(
    "row, problem",
    [
        ("ZZZ Q0 Gen.1.1 1 5 x", "query 'ZZZ' is not among the queries"),
        ("LIGHT.1 Q0 NOPE.1.1 1 5 x", "document 'NOPE.1.1' is not among the documents"),
    ],
)
def test_a_row_of_a_run_to_rescore_naming_an_unknown_id_is_an_error_at_its_line(
    models, tmp_path, capsys, verb, row, problem
):
    lines = (models / "run.txt").read_text().splitlines()
    run = tmp_path / "c.run"
    run.write_text("\n".join([*lines[:2], row, *lines[2:]]) + "\n")
    assert main(rerank_argv(models, verb, str(run))) == 2
    err = capsys.readouterr().err
    assert err == f"clirkit: error: {run}:3: {problem}: give a run of these queries over these documents\n"
    assert not (models / "out.run").exists()


def test_boost_rank_checks_the_candidates_before_it_tokenizes_the_documents(models, tmp_path, capsys, monkeypatch):
    from clirkit.analysis import Analyzer

    def tokenized(*args, **kwargs):
        raise AssertionError("the documents were tokenized before the candidates were checked")

    run = tmp_path / "c.run"
    run.write_text("LIGHT.1 Q0 NOPE.1.1 1 5 x\n")
    monkeypatch.setattr(Analyzer, "tokenize_many", tokenized)
    assert main(rerank_argv(models, "boost-rank", str(run))) == 2
    assert f"{run}:1: document 'NOPE.1.1'" in capsys.readouterr().err


# --------------------------------------------------------------------------- finding 8: psq's index path first


@pytest.mark.parametrize("index, problem", [("nope.npz", "no such file"), ("junk.npz", "not a clirkit index file")])
def test_psq_without_table_says_the_index_cannot_be_read_not_that_table_is_required(tmp_path, capsys, index, problem):
    (tmp_path / "junk.npz").write_text("not an index\n")
    queries = write_text(tmp_path / "q.tsv", query_lines(QUERIES))
    path = str(tmp_path / index)
    assert main(["psq", "--index", path, "--queries", queries, "-o", str(tmp_path / "x.run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {path}: {problem}") and err.count("\n") == 1
    assert "--table" not in err


def test_psq_without_table_on_an_index_in_the_documents_language_still_asks_for_it(indexed_dir, capsys):
    queries = write_text(indexed_dir / "q.tsv", query_lines(QUERIES))
    argv = ["psq", "--index", str(indexed_dir / "ix.npz"), "--queries", queries, "-o", str(indexed_dir / "x.run")]
    assert main(argv) == 2
    assert capsys.readouterr().err == "clirkit: error: --table is required (unless --index was translated before)\n"


# --------------------------------------------------------------------------- finding 9: '|' in Markdown tables


def test_eval_markdown_escapes_a_pipe_in_a_run_name_and_a_qid(tmp_path, capsys):
    run = write_text(tmp_path / "a|b.run", "LIGHT|1 Q0 Gen.1.3 1 2 t\n")
    qrels = write_text(tmp_path / "q.qrels", "LIGHT|1 0 Gen.1.3 1\n")
    assert main(["eval", "--qrels", qrels, run, "-m", "AP", "--per-query", "--format", "markdown", "--quiet"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:4]
    escaped = run.replace("|", "\\|")
    assert rows == [f"| {escaped} | LIGHT\\|1 | 1.0000 |", f"| {escaped} | all | 1.0000 |"]


def test_a_report_s_markdown_escapes_a_pipe_in_a_system_name():
    # an experiment's report.md is this table, one row per system: [systems."DT|PSQ"]
    evaluation = Evaluation(("AP",), np.array(["LIGHT.1"]), np.array([[0.5]]), "qrels", "t", (), ())
    table = Report(["DT|PSQ"], [evaluation], qrels="qrels").markdown().splitlines()
    assert table[2] == "| DT\\|PSQ | 1 | 0.5000 |"


# --------------------------------------------------------------------------- finding 10: a query named all


@pytest.fixture
def all_query(tmp_path):
    """qrels and a run of two queries, the first named 'all' (AP 1) and the other 'LIGHT.1' (AP 0)."""
    qrels = write_text(tmp_path / "q.qrels", "all 0 Gen.1.1 1\nLIGHT.1 0 Gen.1.3 1\n")
    run = write_text(tmp_path / "r.run", "all Q0 Gen.1.1 1 2 t\nLIGHT.1 Q0 Gen.1.4 1 1 t\n")
    return ["eval", "--qrels", qrels, run, "-m", "AP", "--per-query"]


NOTE = "query 'all' shares its name with the mean row: each run's mean is its last row"


def test_a_per_query_csv_with_a_query_named_all_says_so_on_stderr_and_keeps_the_mean_last(all_query, capsys):
    assert main([*all_query, "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == [f"{all_query[3]},all,1.0", f"{all_query[3]},LIGHT.1,0.0", f"{all_query[3]},all,0.5"]
    assert err == f"eval: {NOTE}\n"
    assert main([*all_query, "--format", "csv", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_per_query_table_with_a_query_named_all_carries_the_note(all_query, capsys, fmt):
    assert main([*all_query, "--format", fmt, "--quiet"]) == 0
    assert NOTE in capsys.readouterr().out


def test_a_table_without_a_query_named_all_has_no_such_note(tmp_path, capsys):
    qrels = write_text(tmp_path / "q.qrels", "LIGHT.1 0 Gen.1.3 1\n")
    run = write_text(tmp_path / "r.run", "LIGHT.1 Q0 Gen.1.3 1 2 t\n")
    assert main(["eval", "--qrels", qrels, run, "-m", "AP", "--per-query", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "shares its name" not in out + err


# --------------------------------------------------------------------------- finding 11: ids no reader accepts

BAD_IDS = [
    ("", "document id '' is empty"),
    ("Gen 1.3", "document id 'Gen 1.3' contains whitespace"),
    ("Gen.1\n3", "document id 'Gen.1\\n3' contains whitespace"),
    ("Gen.1\x003", "document id 'Gen.1\\x003' contains a NUL character"),
    ("G" * 1001, f"document id {'G' * 50 + '...'!r} (1,001 characters) is longer than 1,000 characters"),
]
ANALYZER = Analyzer("es", stemmer=None)


@pytest.mark.parametrize("docid, problem", BAD_IDS)
def test_an_index_built_from_python_refuses_a_docid_no_reader_accepts(docid, problem):
    expected = (
        f"{problem} (document 2 in input order): give each document an id a run can name (non-empty, without "
        "whitespace or NUL, at most 1,000 characters)"
    )
    assert error_of(Index.from_tokens, ["Gen.1.1", docid], [["luz"], ["luz", "aguas"]], ANALYZER) == expected
    assert error_of(Index.build, [("Gen.1.1", "luz"), (docid, "luz aguas")], ANALYZER) == expected


def test_an_index_saved_with_such_a_docid_is_refused_when_opened_naming_the_file(tmp_path, capsys):
    good = Index.from_tokens(["Gen.1.3", "Gen.1.4"], [["luz"], ["luz", "aguas"]], ANALYZER)
    bad = dataclasses.replace(good, docids=np.array(["Gen 1.3", "Gen.1.4"]))  # as built before build checked ids
    bad.save(tmp_path / "ix.npz")
    queries = write_text(tmp_path / "q.tsv", "LIGHT\tluz\n")
    assert main(["search", "--index", str(tmp_path / "ix.npz"), "--queries", queries, "-o", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {tmp_path / 'ix.npz'}: corrupt index: docids holds 'Gen 1.3', which contains whitespace; "
        "rebuild the index with `clirkit index`\n"
    )


@pytest.mark.parametrize("qid", ["LIGHT 1", "LIGHT\t1", ""])
def test_a_pyterrier_first_stage_refuses_a_qid_a_run_cannot_hold(qid):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyterrier", reason="PyTerrier is not installed: pip install 'clirkit[pyterrier]'")
    from clirkit import pyterrier as cpt
    from clirkit.estimator import Resources
    from clirkit.systems import BM25Search

    index = Index.from_tokens(["Gen.1.3", "Gen.1.6"], [["luz"], ["aguas"]], ANALYZER)
    bm25 = cpt.retriever(BM25Search().fit(Resources(index=index)))
    problem = "is empty" if not qid else "contains whitespace"
    frame = pd.DataFrame({"qid": ["WATER.1", qid], "query": ["aguas", "luz"]})
    assert error_of(bm25, frame) == (
        f"Retriever(BM25): the input frame: row 1 has qid {qid!r}, which {problem}; give every row a qid a run "
        "file can hold (non-empty, without whitespace or NUL, at most 1,000 characters)"
    )
