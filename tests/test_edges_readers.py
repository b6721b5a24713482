"""Issue 40's edges of the readers: topic markup (an unclosed comment, topics only in another language, ``<t/>``),
``clirkit search`` choosing the topics' language, and pandas/PyTerrier frames (a missing qid, a score that is not a
number). Each is a one-line ClirkitError naming where, never a silent loss or a traceback.

The topics are Nave's and Reina-Valera's words, as in tests/test_topics.py, so that the command-line tests search
the Genesis verses of conftest.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_topics import error_of, write

from clirkit.cli import main
from clirkit.estimator import Resources
from clirkit.formats import read_queries, read_run
from clirkit.run import Qrels, Run

# one topic per dialect, {n} its number and {title} its title element
TOPIC = {
    "TREC": "<top>\n<num> Number: {n}\n{title}\n<desc> Description: the {n}th topic\n</top>\n",
    "CLEF": "<topic>\n<identifier>{n}</identifier>\n{title}\n<description>the {n}th topic</description>\n</topic>\n",
    "NTCIR": "<TOPIC>\n<NUM>{n}</NUM>\n{title}\n<DESC>the {n}th topic</DESC>\n</TOPIC>\n",
}
TITLE = {"TREC": "<title> {text}", "CLEF": "<title>{text}</title>", "NTCIR": "<TITLE>{text}</TITLE>"}
WRAP = {"TREC": "{}", "CLEF": "<topics>\n{}</topics>\n", "NTCIR": "<TOPICS>\n{}</TOPICS>\n"}
DIALECTS = list(TOPIC)


def topics_file(dialect: str, titles: list[str], between: str = "") -> str:
    """A topic file of ``dialect`` with topics 1, 2, ... titled ``titles``, ``between`` after the first topic."""
    tops = [TOPIC[dialect].format(n=n, title=TITLE[dialect].format(text=t)) for n, t in enumerate(titles, 1)]
    return WRAP[dialect].format(tops[0] + between + "".join(tops[1:]))


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# --------------------------------------------------------------------------- 1. an unterminated <!--


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_comment_never_closed_between_topics_is_an_error_naming_its_line_not_the_later_topics_lost(tmp_path, dialect):
    titles = ["luz", "aguas", "tinieblas", "expansión"]
    assert read_queries(write(tmp_path / "ok", topics_file(dialect, titles, "<!-- kept apart -->\n"))) == {
        "1": "luz",
        "2": "aguas",
        "3": "tinieblas",
        "4": "expansión",
    }
    text = topics_file(dialect, titles, "<!-- topics 2-4 are new\n")
    path = write(tmp_path / "topics", text)
    assert error_of(read_queries, path) == (
        f"{path}:{line_of(text, '<!--')}: comment <!-- is never closed by --> (it would hide the rest of the file); "
        f"close it with -->"
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_comment_never_closed_inside_a_topic_names_its_line(tmp_path, dialect):
    text = topics_file(dialect, ["luz <!-- a note", "aguas"])
    path = write(tmp_path / "topics", text)
    assert error_of(read_queries, path).startswith(f"{path}:{line_of(text, '<!--')}: comment <!-- is never closed")


def test_a_cdata_section_never_closed_is_an_error_too(tmp_path):
    text = topics_file("CLEF", ["<![CDATA[luz", "aguas", "tinieblas"])
    path = write(tmp_path / "topics.xml", text)
    assert error_of(read_queries, path) == (
        f"{path}:{line_of(text, '<![CDATA[')}: CDATA section <![CDATA[ is never closed by ]]> (it would hide the rest "
        f"of the file); close it with ]]>"
    )
    closed = topics_file("CLEF", ["<![CDATA[la luz & más]]>", "aguas"])
    assert read_queries(write(tmp_path / "ok.xml", closed)) == {"1": "la luz & más", "2": "aguas"}


def test_a_comment_never_closed_from_stdin_names_stdin_and_its_line(monkeypatch):
    import io
    import sys

    text = topics_file("TREC", ["luz", "aguas"], "<!--\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))
    assert error_of(read_queries, "-").startswith(f"<stdin>:{line_of(text, '<!--')}: comment <!-- is never closed")


def test_the_command_line_says_the_unclosed_comment_in_one_line_and_exits_2(indexed_dir, capsys):
    text = topics_file("TREC", ["luz", "aguas", "tinieblas"], "<!-- draft\n")
    path = write(indexed_dir / "topics", text)
    out = indexed_dir / "run"
    assert main(["search", "--index", str(indexed_dir / "ix.npz"), "--queries", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"clirkit: error: {path}:{line_of(text, '<!--')}: comment <!-- is never closed by --> (it would "
        f"hide the rest of the file); close it with -->\n"
    )
    assert not out.exists()


# --------------------------------------------------------------------------- 2. topics only in another language


@pytest.mark.parametrize("dialect", DIALECTS)
def test_topics_only_in_another_language_are_refused_naming_the_topic_and_the_languages(tmp_path, dialect):
    text = WRAP[dialect].format(
        {
            "TREC": "<top>\n<num> C041\n<ES-title> la luz\n<ES-desc> Dios crea la luz\n</top>\n",
            "CLEF": "<topic>\n<num>C041</num>\n<ES-title>la luz</ES-title>\n<ES-desc>Dios crea la luz</ES-desc>\n</topic>\n",
            "NTCIR": "<TOPIC>\n<NUM>C041</NUM>\n<ES-TITLE>la luz</ES-TITLE>\n<ES-DESC>Dios crea la luz</ES-DESC>\n"
            "</TOPIC>\n",
        }[dialect]
    )
    path = write(tmp_path / "topics", text)
    top_line = 2 if dialect != "TREC" else 1
    for lang in ("en", "fa"):
        assert error_of(read_queries, path, lang=lang) == (
            f"{path}:{top_line}: topic C041 has no version in {lang} (languages: ES); choose one with --source-lang "
            f"(in Python: read_queries(lang=), Resources(source_lang=))"
        )
    assert read_queries(path, lang="es") == {"C041": "la luz"}  # the language asked for, under either code
    assert read_queries(path, lang="spa") == {"C041": "la luz"}
    assert read_queries(path) == {"C041": "la luz"}  # no language asked: the only one present
    assert read_queries(path, lang="es", fields="title,desc") == {"C041": "la luz Dios crea la luz"}


def test_unprefixed_topics_are_read_whatever_the_language(tmp_path):
    path = write(tmp_path / "topics", topics_file("TREC", ["luz"]))
    assert read_queries(path, lang="en") == read_queries(path, lang="es") == {"1": "luz"}


def test_dt_refuses_spanish_only_topics_for_an_english_to_spanish_table(indexed_dir, capsys):
    table = indexed_dir / "t.tsv"
    table.write_text("light\tluz\t1.0\n", encoding="utf-8")
    path = write(indexed_dir / "topics", "<top>\n<num> C041\n<ES-title> la luz\n</top>\n")
    out = indexed_dir / "run"
    assert (
        main(
            [
                "dt",
                "--index",
                str(indexed_dir / "ix.npz"),
                "--table",
                str(table),
                "--queries",
                str(path),
                "--source-lang",
                "en",
                "-o",
                str(out),
                "-q",
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"clirkit: error: {path}:1: topic C041 has no version in en (languages: ES); "
        f"choose one with --source-lang (in Python: read_queries(lang=), Resources(source_lang=))\n"
    )
    assert not out.exists()


# --------------------------------------------------------------------------- 13. <title/>, search --source-lang


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_empty_element_is_read_alike_with_and_without_a_space(tmp_path, dialect):
    tag = {"TREC": "title", "CLEF": "title", "NTCIR": "TITLE"}[dialect]
    got = {}
    for empty in (f"<{tag}/>", f"<{tag} />"):
        text = WRAP[dialect].format(TOPIC[dialect].format(n=7, title=empty))
        got[empty] = read_queries(write(tmp_path / "topics", text), fields="title,desc")
    assert got[f"<{tag}/>"] == got[f"<{tag} />"] == {"7": "the 7th topic"}


def test_an_empty_prefixed_field_and_an_empty_topic_without_a_space(tmp_path):
    text = "<topics><topic>\n<num>C041</num>\n<ES-title/>\n<ES-desc>la luz</ES-desc>\n</topic></topics>\n"
    assert read_queries(write(tmp_path / "t.xml", text), fields="title,desc", lang="es") == {"C041": "la luz"}
    for empty in ("<topic/>", "<topic />"):
        path = write(tmp_path / "e.xml", f"<topics>\n{empty}\n</topics>\n")
        assert error_of(read_queries, path) == (
            f"{path}:2: empty <topic> element: a topic holds its fields; write them between <topic> and </topic>"
        )


def hc4(tid, *entries) -> str:
    return (
        json.dumps(
            {
                "topic_id": tid,
                "topics": [
                    {"lang": lang, "source": "original", "topic_title": title, "topic_description": title}
                    for lang, title in entries
                ],
            },
            ensure_ascii=False,
        )
        + "\n"
    )


def search(indexed_dir, queries, *more) -> int:
    return main(
        [
            "search",
            "--index",
            str(indexed_dir / "ix.npz"),
            "--queries",
            str(queries),
            "-o",
            str(indexed_dir / "run"),
            *more,
        ]
    )


def test_search_of_english_only_hc4_topics_names_its_own_source_lang_option_and_runs_with_it(indexed_dir, capsys):
    path = write(indexed_dir / "topics.jsonl", hc4("101", ("eng", "Dios light")) + hc4("102", ("eng", "waters")))
    assert search(indexed_dir, path, "-q") == 2
    err = capsys.readouterr().err
    assert err == (
        f"clirkit: error: {path}:1: topic 101 has no version in es (languages: eng); choose one with "
        f"--source-lang (in Python: read_queries(lang=), Resources(source_lang=))\n"
    )
    assert search(indexed_dir, path, "--source-lang", "en") == 0  # the untranslated English topics: BM25's floor
    run = read_run(indexed_dir / "run")
    assert run.query_ids == ["101"] and set(run.docids) == {d for d in run.docids if d.startswith(("Gen", "John"))}
    assert "1 of 2 queries matched no document: 102" in capsys.readouterr().err


def test_search_reads_the_index_languages_version_by_default_and_another_with_source_lang(indexed_dir):
    path = write(indexed_dir / "topics.jsonl", hc4("101", ("eng", "waters"), ("spa", "aguas")))
    assert search(indexed_dir, path, "-q") == 0
    assert set(read_run(indexed_dir / "run").docids) == {"Gen.1.2", "Gen.1.6", "Gen.1.7"}  # the verses of "aguas"
    assert search(indexed_dir, path, "-q", "--source-lang", "en") == 0
    assert (indexed_dir / "run").read_text() == ""  # "waters": no Spanish verse has it


def test_search_help_shows_source_lang(capsys):
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    assert "--source-lang LANG" in capsys.readouterr().out


def test_search_refuses_a_source_lang_that_is_no_language_code(indexed_dir, capsys):
    path = write(indexed_dir / "q.tsv", "q1\tluz\n")
    with pytest.raises(SystemExit) as exited:
        search(indexed_dir, path, "--source-lang", "english!")
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--source-lang" in err and "Traceback" not in err


# --------------------------------------------------------------------------- 6, 9. frames: a missing qid, a text score

pd = pytest.importorskip("pandas")


@pytest.mark.parametrize("missing", [np.nan, None])
def test_a_run_frame_with_a_missing_qid_is_refused_naming_the_row(missing):
    frame = pd.DataFrame(
        {"qid": pd.Series(["q1", missing, "q1"], dtype=object), "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]}
    ).set_axis([10, 11, 12])
    assert error_of(Run.from_frame, frame) == (f"a run frame: row 11 has no qid ({missing!r}); give every row its qid")


@pytest.mark.parametrize("missing", [np.nan, None])
def test_a_qrels_frame_with_a_missing_qid_is_refused_naming_the_row(missing):
    frame = pd.DataFrame({"qid": pd.Series([missing, "q1"], dtype=object), "docno": ["a", "b"], "label": [1, 0]})
    assert error_of(Qrels.from_frame, frame) == (
        f"a qrels frame: row 0 has no qid ({missing!r}); give every row its qid"
    )


def test_a_frame_with_a_missing_qid_in_the_default_string_dtype_is_refused_too():
    frame = pd.DataFrame({"qid": ["q1", None], "docid": ["a", "b"], "score": [1.0, 2.0]})
    assert error_of(Run.from_frame, frame).startswith("a run frame: row 1 has no qid (")


def test_a_run_frame_with_a_missing_docno_is_refused_naming_the_row():
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": pd.Series(["a", None], dtype=object), "score": [1.0, 2.0]})
    assert error_of(Run.from_frame, frame) == "a run frame: row 1 has no docno (None); give every row its docno"


@pytest.mark.parametrize(
    "score, shown", [("high", "'high'"), (None, "None"), (float("nan"), "nan"), (float("inf"), "inf"), ([1.0], "[1.0]")]
)
def test_a_run_frame_with_a_score_that_is_not_a_finite_number_names_the_row_and_the_value(score, shown):
    frame = pd.DataFrame(
        {"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "score": pd.Series([1.5, score, 2.0], dtype=object)}
    ).set_axis(["x", "y", "z"])
    assert error_of(Run.from_frame, frame) == (
        f"a run frame: row 'y' has score {shown}, not a finite number; give every row a number such as 12.5"
    )


def test_numpy_values_are_shown_as_written_in_the_message():
    frame = pd.DataFrame({"qid": [1.0, np.nan], "docno": ["a", "b"], "score": [1.0, np.inf]}).set_axis(
        np.array([4, 5], dtype=np.int64)
    )
    assert error_of(Run.from_frame, frame) == "a run frame: row 5 has no qid (nan); give every row its qid"
    assert error_of(Run.from_frame, frame.assign(qid=[1, 2])) == (
        "a run frame: row 5 has score inf, not a finite number; give every row a number such as 12.5"
    )


def test_a_run_frame_of_numbers_is_still_read_as_before():
    frame = pd.DataFrame(
        {"qid": [1, 1, 2], "docno": ["a", "b", "c"], "score": pd.Series([1, "2.5", 0.5], dtype=object)}
    )
    run = Run.from_frame(frame)
    assert run.qids.tolist() == ["1", "1", "2"] and run.docids.tolist() == ["b", "a", "c"]
    assert run.scores.tolist() == [2.5, 1.0, 0.5]


# --------------------------------------------------------------------------- 6, 9. the PyTerrier adapter


@pytest.fixture
def cpt():
    pytest.importorskip("pyterrier", reason="PyTerrier is not installed: pip install 'clirkit[pyterrier]'")
    from clirkit import pyterrier

    return pyterrier


@pytest.mark.parametrize("missing", [np.nan, None])
def test_a_pyterrier_first_stage_refuses_a_queries_frame_with_a_missing_qid(cpt, index, missing):
    from clirkit.systems import BM25Search

    bm25 = cpt.retriever(BM25Search().fit(Resources(index=index)))
    queries = pd.DataFrame({"qid": pd.Series(["1", missing], dtype=object), "query": ["luz", "aguas"]})
    assert error_of(bm25, queries) == (
        f"Retriever(BM25): the input frame: row 1 has no qid ({missing!r}); give every row its qid"
    )
    assert error_of(cpt.topics_frame, queries) == f"topics: row 1 has no qid ({missing!r}); give every row its qid"
    good = bm25(queries.assign(qid=["1", "2"]))
    assert set(good["qid"]) == {"1", "2"}


def test_a_pyterrier_reranker_refuses_a_missing_qid_or_docno_and_a_text_score_naming_the_row(cpt):
    from clirkit.systems import SCS

    rerank = cpt.reranker(SCS())
    results = pd.DataFrame(
        {
            "qid": ["1", "1", "2"],
            "query": ["luz", "luz", "aguas"],
            "docno": ["Gen.1.3", "Gen.1.4", "Gen.1.6"],
            "score": [3.0, 2.0, 1.0],
            "rank": [0, 1, 0],
        }
    )
    assert error_of(rerank, results.assign(score=pd.Series([3.0, "n/a", 1.0], dtype=object))) == (
        "Reranker(SCS): the input frame: row 1 has score 'n/a', not a finite number; give every row a number such as "
        "12.5"
    )
    assert error_of(rerank, results.assign(qid=pd.Series(["1", None, "2"], dtype=object))) == (
        "Reranker(SCS): the input frame: row 1 has no qid (None); give every row its qid"
    )
    assert error_of(rerank, results.assign(docno=pd.Series(["Gen.1.3", "Gen.1.4", np.nan], dtype=object))) == (
        "Reranker(SCS): the input frame: row 2 has no docno (nan); give every row its docno"
    )


def test_a_pyterrier_learner_refuses_training_topics_with_a_missing_qid(cpt):
    from clirkit.estimator import Resources
    from clirkit.systems import SCS

    learner = cpt.retriever(SCS(), resources=Resources())
    topics = pd.DataFrame({"qid": pd.Series([None, "2"], dtype=object), "query": ["luz", "aguas"]})
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["Gen.1.3"], "label": [1]})
    assert error_of(learner.fit, topics, qrels) == (
        "Retriever(SCS): train topics: row 0 has no qid (None); give every row its qid"
    )
