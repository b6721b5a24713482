"""Edge cases of round 16 (an independent report-only test): a run id or tag holding a lone surrogate is refused
in one line, not a UnicodeEncodeError; documents with no term after the analysis are said at indexing; numbers in
tables and links in alignments are read as files write them (ASCII, no ``_``), as runs and qrels are; a phrase
table that gives a pair twice is refused; a queries file given as a pipe is read once; options are written whole;
``datasets export -o -`` and a Ding line with an empty side are refused naming what is wrong."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.formats.runs import write_run
from clirkit.run import Run


def _write(path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# a lone surrogate in a run ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "qid, docid, tag, says",
    [
        ("q\ud800", "d1", "t", "cannot write query id 'q\\ud800': it contains a lone surrogate"),
        ("q1", "d\udfff", "t", "cannot write document id 'd\\udfff': it contains a lone surrogate"),
        ("q1", "dé\udc80", "t", "cannot write document id 'dé\\udc80': it contains a lone surrogate"),
        ("q1", "d1", "t\ud800", "run tag 't\\ud800' contains a lone surrogate"),
    ],
)
def test_write_run_refuses_a_lone_surrogate_in_one_line_and_writes_nothing(tmp_path, qid, docid, tag, says):
    if tag == "t":  # a Run made from Python refuses such an id itself (round 17)
        with pytest.raises(ClirkitError, match="holding a lone surrogate"):
            Run(np.array([qid]), np.array([docid]), np.array([1.5]))
    run = Run._unique_rows(np.array([qid]), np.array([docid]), np.array([1.5]))  # as rows a reader checked
    with pytest.raises(ClirkitError) as caught:
        write_run(run, tmp_path / "x.run", tag=tag)
    assert says in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "x.run").exists()


# documents with no term ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shards", [[], ["--shards", "2"]])
def test_index_says_how_many_documents_hold_no_term_and_the_first(tmp_path, capsys, shards):
    docs = _write(tmp_path / "d.tsv", "d1\t\nd2\t!!! 😀🎉\nd3\thello world\nd4\tgood day\n")
    assert main(["index", docs, "-o", str(tmp_path / "i.npz"), "--lang", "en", *shards]) == 0
    err = capsys.readouterr().err
    assert (
        "note: 2 of 4 documents hold no term after the analysis (empty, stopwords, punctuation or symbols only; "
        "first: d1): no query can find them" in err
    )
    assert main(["index", docs, "-o", str(tmp_path / "j.npz"), "--lang", "en", "-q", *shards]) == 0
    assert capsys.readouterr().err == ""


def test_index_of_documents_that_all_hold_terms_says_no_note(tmp_path, capsys):
    docs = _write(tmp_path / "d.tsv", "d1\thello\nd2\tworld\n")
    assert main(["index", docs, "-o", str(tmp_path / "i.npz"), "--lang", "en"]) == 0
    assert "hold no term" not in capsys.readouterr().err


# numbers and links as files write them ---------------------------------------------------------------------------


@pytest.mark.parametrize("p", ["٠.٥", "０.５", "0.2_5", "1_0"])
def test_a_moses_table_refuses_a_probability_not_written_in_ascii_digits(tmp_path, capsys, p):
    table = _write(tmp_path / "t.moses", f"house casa 0.5\nhome casa {p}\n")
    argv = ["ttable", "convert", table, "--format", "moses", "--source-lang", "es", "--target-lang", "en"]
    assert main([*argv, "-o", str(tmp_path / "t.npz"), "-q"]) == 2
    assert f"t.moses:2: probability '{p}' is not a number" in _one_line(capsys)
    assert not (tmp_path / "t.npz").exists()


def test_a_phrase_table_refuses_a_score_with_an_underscore_and_a_pair_given_twice(tmp_path, capsys):
    argv = ["ttable", "convert", "--format", "phrase-table", "--source-lang", "es", "--target-lang", "en", "-q"]
    bad = _write(tmp_path / "a.txt", "casa ||| house ||| 0.1 0.2 0.2_5 0.4\n")
    assert main([*argv, bad, "-o", str(tmp_path / "a.npz")]) == 2
    assert "a.txt:1: score '0.2_5' (column 3) is not a number" in _one_line(capsys)
    twice = _write(
        tmp_path / "b.txt",
        "casa ||| house ||| 0.1 0.2 0.3 0.4\ncasa ||| home ||| 0.1 0.2 0.1 0.4\ncasa ||| house ||| 0.1 0.2 0.6 0.4\n",
    )
    assert main([*argv, twice, "-o", str(tmp_path / "b.npz")]) == 2
    assert "b.txt:3: 'casa' ||| 'house' repeats line 1; keep one of the two" in _one_line(capsys)
    assert not (tmp_path / "b.npz").exists()


def test_alignments_refuse_links_in_full_width_digits(tmp_path, capsys):
    en = _write(tmp_path / "en.tok", "the house\nthe dog\n")
    es = _write(tmp_path / "es.tok", "la casa\nel perro\n")
    links = _write(tmp_path / "fw.al", "０-０ 1-1\n0-0 1-1\n")
    argv = ["ttable", "from-alignments", "--source", es, "--target", en, "--alignments", links]
    argv += ["--source-lang", "es", "--target-lang", "en"]
    assert main([*argv, "-o", str(tmp_path / "t.npz"), "-q"]) == 2
    assert "fw.al:1: '０-０' is not a link 'i-j'" in _one_line(capsys)


# a pipe read once ------------------------------------------------------------------------------------------------


def _fifo(path, text: str) -> str:
    os.mkfifo(path)

    def feed() -> None:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)

    threading.Thread(target=feed, daemon=True).start()
    return str(path)


def _in_time(call, seconds: float = 120):
    """``call()``'s value, in a thread given ``seconds`` (a pipe opened a second time blocks for ever)."""
    done: list = []
    worker = threading.Thread(target=lambda: done.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, "blocked: the pipe was opened twice"
    return done[0]


def test_queries_given_as_a_pipe_are_read_once_as_from_a_file(tmp_path, capsys):
    docs = _write(tmp_path / "d.tsv", "d1\thello world\nd2\tgood day\n")
    assert main(["index", docs, "-o", str(tmp_path / "i.npz"), "--lang", "en", "-q"]) == 0
    queries = _write(tmp_path / "q.tsv", "q1\thello\nq2\tday\n")
    base = ["search", "--index", str(tmp_path / "i.npz"), "-q", "--queries"]
    assert main([*base, queries, "-o", str(tmp_path / "file.run")]) == 0
    pipe = _fifo(tmp_path / "pipe", "q1\thello\nq2\tday\n")
    assert _in_time(lambda: main([*base, pipe, "-o", str(tmp_path / "pipe.run")])) == 0
    assert (tmp_path / "pipe.run").read_bytes() == (tmp_path / "file.run").read_bytes()


def test_a_table_given_as_a_pipe_says_its_format_is_the_default_not_guessed_from_the_name(tmp_path, capsys):
    pipe = _fifo(tmp_path / "pipe", "beijing\t北京\n")
    argv = ["ttable", "convert", pipe, "--source-lang", "en", "--target-lang", "zh", "-o", str(tmp_path / "p.npz")]
    assert _in_time(lambda: main([*argv, "-q"])) == 2
    err = _one_line(capsys)
    assert "guessed from the default for stdin and pipes, which are read once; give --format" in err


# options written whole; a folder that is not '-'; a Ding line with an empty side -----------------------------------


def test_an_abbreviated_option_is_refused_not_taken_for_another(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:  # dt has --translated; --translate is psq's
        main(["dt", "--index", "i", "--queries", "q", "--table", "t", "-o", "r", "--translate", "queries"])
    assert exited.value.code == 2
    err = _one_line(capsys)
    assert "unrecognized arguments: --translate queries" in err


def test_datasets_export_refuses_dash_as_its_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", "export", "nave-en-es", "-o", "-", "-q"]) == 2
    assert "- is standard output, and a collection is a folder of files" in _one_line(capsys)
    assert not (tmp_path / "-").exists()


def test_a_ding_line_with_an_empty_side_is_refused_naming_it(tmp_path, capsys):
    ding = _write(tmp_path / "de-en.txt", "Haus {n} :: house\nGarten :: \n")
    argv = ["ttable", "convert", ding, "--format", "ding", "-o", str(tmp_path / "d.npz"), "-q"]
    assert main(argv) == 2
    assert "de-en.txt:2: the right side is empty; give its words or remove the line" in _one_line(capsys)


def test_minmax_of_scores_whose_spread_overflows_names_the_spread_not_the_sum(tmp_path, capsys):
    wide = _write(tmp_path / "a.run", "q1 Q0 d1 1 1e300 A\nq1 Q0 d2 2 -1.7976931348623157e308 A\n")
    plain = _write(tmp_path / "b.run", "q1 Q0 d1 1 2.0 B\nq1 Q0 d2 2 1.0 B\n")
    argv = ["aggregate", wide, plain, "--transform", "minmax", "-o", str(tmp_path / "f.run")]
    assert main(argv) == 2
    err = _one_line(capsys)
    assert "the scores of query 'q1' span more than the float range (the highest minus the lowest overflows)" in err
    assert "a.run" in err and not (tmp_path / "f.run").exists()


def test_ttable_show_of_a_converted_phrase_table_does_not_replay_the_conversions_notes(tmp_path, capsys):
    phrases = _write(tmp_path / "pt.txt", "casa ||| house ||| 0.1 0.2 0.6 0.4\ncasa ||| home ||| 0.1 0.2 0.2 0.4\n")
    argv = ["ttable", "convert", phrases, "--source-lang", "es", "--target-lang", "en", "-o", str(tmp_path / "t.npz")]
    assert main(argv) == 0
    assert "renormalized" in capsys.readouterr().err  # said once, by the conversion
    assert main(["ttable", "show", str(tmp_path / "t.npz"), "casa"]) == 0
    out, err = capsys.readouterr()
    assert "hous" in out and "renormalized" not in err and "phrase pairs" not in err


def test_one_translation_and_one_line_are_said_in_the_singular(tmp_path, capsys):
    table = _write(tmp_path / "t.moses", "house casa 1.0\n")
    assert main(["ttable", "show", table, "casa"]) == 0
    assert capsys.readouterr().out.startswith("casa\t(1 translation)\n  house\t1.000000\n")
    en = _write(tmp_path / "en.tok", "the house\nthe dog\n")
    es = _write(tmp_path / "es.tok", "la casa\n")
    links = _write(tmp_path / "a.al", "0-0 1-1\n0-0 1-1\n")
    argv = ["ttable", "from-alignments", "--source", es, "--target", en, "--alignments", links]
    assert main([*argv, "--source-lang", "es", "--target-lang", "en", "-o", str(tmp_path / "t.npz"), "-q"]) == 2
    assert "es.tok has only 1 line: the source" in _one_line(capsys)
