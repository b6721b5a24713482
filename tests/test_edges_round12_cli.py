"""Issue 40, edge test 12A: the command line and files. An output naming a shard of the sharded index read (or of
the one replaced) is refused before any work (1); a constraint's options are listed sorted (a set's order changes
from run to run) and an experiment file's list is shown as written, not as a tuple (16a); a boost system's
scheduler is an address or a Client, checked when the file is read (6); two processes writing one sharded index:
the second is refused, the index left whole (8); numbers written in other digits than ASCII's (a score '١٢', a
cutoff '١٠', --depth '５') or with '_' are refused, as trec_eval does not read them (12); aggregate names the file
of a run whose scores it cannot fuse, not its tag, which another run may share (16d); a lone carriage return inside
a line, read as a line end, is named where it makes a line's number differ from an editor's (16e); eval's
--baseline is one of the RUNs however its path is written (16f); boost's min_grade is at least 1, as eval's
--rel-threshold (16g); search refuses --source-lang over queries in one language (16h)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_edges_experiment import _refused

from clirkit.boost import BoostRanker
from clirkit.cli import main
from clirkit.constraints import Options, StrOptions
from clirkit.errors import ClirkitError

DOCS = "d1\tla casa es roja\nd2\tel perro come pan\nd3\tel gato duerme\nd4\tbuenos dias amigo\n"


def one_line_error(capsys, prefix: str) -> str:
    captured = capsys.readouterr()
    assert captured.err.startswith(f"clirkit: error: {prefix}") and captured.err.count("\n") == 1, captured.err
    return captured.err


@pytest.fixture
def sharded(tmp_path):
    """A sharded index ``s.npz`` of two shards, a query file and a table es->en, in ``tmp_path``."""
    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tcasa\n", encoding="utf-8")
    (tmp_path / "p.es").write_text("la casa\nel perro\n", encoding="utf-8")
    (tmp_path / "p.en").write_text("the house\nthe dog\n", encoding="utf-8")
    index = str(tmp_path / "s.npz")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", index, "--lang", "es", "--shards", "2", "-q"]) == 0
    table = ["--source", str(tmp_path / "p.es"), "--target", str(tmp_path / "p.en"), "--source-lang", "es"]
    assert main(["ttable", "train", *table, "--target-lang", "en", "-o", str(tmp_path / "t.npz"), "-q"]) == 0
    return tmp_path


def _shards(folder, stem="s"):
    return sorted(str(p) for p in folder.glob(f"{stem}.shard-*.npz"))


# ------------------------------------------------------------------ 1. an output naming a shard of an input


@pytest.mark.parametrize(
    "verb, option",
    [("search", "-o"), ("dt", "-o"), ("psq", "-o"), ("psq", "--save-index")],
)
def test_an_output_naming_a_shard_of_the_index_read_is_refused(sharded, capsys, verb, option):
    index, shards = str(sharded / "s.npz"), _shards(sharded)
    before = {s: open(s, "rb").read() for s in shards}
    args = [verb, "--index", index, "-q"]
    if verb != "search":
        args += ["--table", str(sharded / "t.npz")]
    if option == "-o":
        args += ["--queries", str(sharded / "q.tsv")]
    assert main([*args, option, shards[1]]) == 2
    one_line_error(
        capsys, f"{option} {shards[1]} is also --index {index}'s shard {shards[1]}: writing it would replace"
    )
    assert {s: open(s, "rb").read() for s in _shards(sharded)} == before


def test_an_input_among_the_shards_a_saved_index_replaces_is_refused(sharded, capsys):
    index, shards = str(sharded / "s.npz"), _shards(sharded)
    args = ["psq", "--index", shards[0], "--table", str(sharded / "t.npz"), "--save-index", index, "-q"]
    assert main(args) == 2
    one_line_error(capsys, f"--save-index {index}'s shard {shards[0]} is also --index {shards[0]}")
    assert _shards(sharded) == shards


# ------------------------------------------------------------------ 16a. messages the same from run to run


def test_a_constraints_options_are_listed_sorted():
    assert str(StrOptions(dict.fromkeys(["r", "exact"]).keys())) == "a str among {'exact', 'r'}"
    assert str(Options(int, dict.fromkeys([2, -1, 1]).keys())) == "one of -1, 1, 2"


_PATHS = {k: os.environ[k] for k in ("PATH", "PYTHONPATH") if k in os.environ}


def test_a_refused_choice_reads_the_same_whatever_the_hash_seed():
    code = "from clirkit.boost import BoostRanker\nBoostRanker.from_flat(rule='x').check_params()"
    said = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONHASHSEED": seed, **_PATHS}
        ).stderr.splitlines()[-1]
        for seed in ("1", "2", "3", "4", "5", "6")
    }
    assert said == {
        "clirkit.constraints.InvalidParameterError: The 'rule' parameter of BoostRanker must be a str among "
        "{'exact', 'r'}. Got 'x' instead."
    }


@pytest.mark.parametrize(
    "more, message",
    [
        ("ngram = [1]", "The 'ngram' parameter of BoostRanker must be an int in the range [1, 3]. Got [1] instead."),
        ('rule = "x"', "The 'rule' parameter of BoostRanker must be a str among {'exact', 'r'}. Got 'x' instead."),
    ],
)
def test_an_experiment_files_value_is_shown_as_written(mini, tmp_path, capsys, more, message):
    text = f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.B]\nkind = "boost"\nrounds = 3\n{more}\n'
    _refused(tmp_path, capsys, text, f"system 'B': {message}")


# ------------------------------------------------------------------ 6. a scheduler is an address or a Client

_SCHEDULER = "The 'scheduler' parameter of BoostRanker must be a dask scheduler's address (a str such as "


@pytest.mark.parametrize("value, shown", [("5", "5"), ('["a"]', "['a']"), ('""', "''"), ("true", "True")])
def test_a_boost_scheduler_that_is_no_address_is_refused_when_read(mini, tmp_path, capsys, value, shown):
    more = f'backend = "dask"\nscheduler = {value}\n'
    text = f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.B]\nkind = "boost"\nrounds = 3\n{more}'
    _refused(
        tmp_path,
        capsys,
        text,
        f"system 'B': {_SCHEDULER}'tcp://host:8786') or a distributed.Client. Got {shown} instead.",
    )


@pytest.mark.parametrize("value", [5, 1.5, ["tcp://a:1"], "", "  "])
def test_the_ranker_refuses_a_scheduler_that_is_no_address(value):
    with pytest.raises(ClirkitError, match=f"^{re.escape(_SCHEDULER)}"):
        BoostRanker.from_flat(rounds=3, backend="dask", scheduler=value).check_params()


# ------------------------------------------------------------------ 8. one writer of a sharded index at a time


def _stopped_writer(folder, docs: str) -> subprocess.Popen:
    """``clirkit index DOCS -o s.npz --shards 2`` in another process, stopped (SIGSTOP) once its first shard is
    written: it holds the index's lock."""
    env = {**os.environ, "CLIRKIT_TEST_SIGNAL": "shard-0 SIGSTOP"}
    argv = [sys.executable, "-m", "clirkit", "index", docs, "-o", str(folder / "s.npz"), "--lang", "es"]
    writer = subprocess.Popen([*argv, "--shards", "2", "-q"], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while Path(f"/proc/{writer.pid}/stat").read_text().split(") ")[1][0] != "T":
        assert writer.poll() is None and time.monotonic() < deadline, writer.stderr.read()
        time.sleep(0.05)
    return writer


def _searched(folder, capsys) -> str:
    assert main(["search", "--index", str(folder / "s.npz"), "--queries", str(folder / "q.tsv"), "-o", "-", "-q"]) == 0
    return capsys.readouterr().out


def test_a_second_writer_of_a_sharded_index_is_refused_and_the_index_left_whole(tmp_path, capsys):
    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    (tmp_path / "docs2.tsv").write_text(DOCS.replace("la casa es roja", "casa casa"), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tcasa\n", encoding="utf-8")
    index = str(tmp_path / "s.npz")
    argv = ["index", str(tmp_path / "docs2.tsv"), "-o", index, "--lang", "es", "-q"]
    writer = _stopped_writer(tmp_path, str(tmp_path / "docs.tsv"))
    try:
        assert main([*argv, "--shards", "2"]) == 2
        one_line_error(capsys, f"{index}: another clirkit process ({writer.pid}) is writing this index; wait for it")
        assert main(argv) == 0  # a plain index meanwhile: written, the other writer's shards left to it
    finally:
        writer.send_signal(signal.SIGCONT)
    assert writer.wait(120) == 0, writer.stderr.read()
    assert len(list(tmp_path.glob("s.shard-*.npz"))) == 2 and not list(tmp_path.glob(".s.npz.lock*"))
    first = _searched(tmp_path, capsys)  # the last writer's index, whole
    assert main([*argv[:-1], "-q", "--shards", "2"]) == 0 and _searched(tmp_path, capsys) != first
    killed = _stopped_writer(tmp_path, str(tmp_path / "docs.tsv"))
    killed.kill()  # the lock goes with the process
    killed.wait(60)
    assert main([*argv, "--shards", "2"]) == 0
    assert len(list(tmp_path.glob("s.shard-*.npz"))) == 2 and not list(tmp_path.glob(".s.npz.lock*"))
    assert _searched(tmp_path, capsys) != first


# ------------------------------------------------------------------ 12. numbers in ASCII digits


@pytest.mark.parametrize("score", ["١٢", "２", "1.５"])
def test_a_score_in_other_digits_than_asciis_is_refused(tmp_path, capsys, score):
    from clirkit.formats import read_run

    run = tmp_path / "x.run"
    run.write_text(f"q1 Q0 d1 1 {score} t\nq1 Q0 d2 2 1.0 t\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=f"x.run:1: score '{score}' is not a number"):
        read_run(run)
    (tmp_path / "a.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n", encoding="utf-8")
    assert main(["eval", "--qrels", str(tmp_path / "a.qrels"), str(run), "-m", "AP"]) == 2
    one_line_error(capsys, f"{run}:1: score '{score}' is not a number")


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--depth", "١٠", "--depth must be an integer >= 0 (0: all), got ١٠"),
        ("--depth", "５", "--depth must be an integer >= 0 (0: all), got ５"),
        ("--depth", "1_000", "--depth must be an integer >= 0 (0: all), got 1_000"),
        ("-m", "nDCG@١٠", "unknown measure 'nDCG@١٠': expected NAME, NAME@k or NAME(rel=N)@k"),
        ("-m", "P(rel=١)@10", "measure 'P(rel=١)@10': clirkit's measures take one parameter, rel=N"),
    ],
)
def test_a_number_option_in_other_digits_than_asciis_is_refused(tmp_path, capsys, option, value, message):
    (tmp_path / "a.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n", encoding="utf-8")
    (tmp_path / "x.run").write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1.0 t\n", encoding="utf-8")
    assert main(["eval", "--qrels", str(tmp_path / "a.qrels"), str(tmp_path / "x.run"), option, value]) == 2
    one_line_error(capsys, message)


# ------------------------------------------------------------------ 16d. a run named by its file


def test_aggregate_names_the_file_of_a_run_whose_scores_overflow_not_its_shared_tag(tmp_path, capsys):
    big, ok = tmp_path / "big.run", tmp_path / "ok.run"
    big.write_text("q1 Q0 d1 1 1e308 t\nq1 Q0 d2 2 -1e308 t\n", encoding="utf-8")
    ok.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n", encoding="utf-8")
    assert main(["aggregate", str(ok), str(big), "--weights", "0.5", "0.5", "-o", "-", "-q"]) == 2
    one_line_error(capsys, f"{big}: run 't': the scores of query 'q1' span more than the float range")
    (tmp_path / "a.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    for name, source in (("ok2.run", ok), ("okdev.run", ok), ("bigdev.run", big)):
        (tmp_path / name).write_bytes(source.read_bytes())
    dev = ["--dev-runs", str(tmp_path / "okdev.run"), str(tmp_path / "bigdev.run")]
    tune = ["--tune", *dev, "--dev-qrels", str(tmp_path / "a.qrels")]
    assert main(["aggregate", str(ok), str(tmp_path / "ok2.run"), *tune, "-o", "-", "-q"]) == 2
    one_line_error(capsys, f"{tmp_path / 'bigdev.run'}: run 't': the scores of query 'q1' span more than the float")


# ------------------------------------------------------------------ 16e. a stray carriage return named


def test_a_line_begun_by_a_stray_carriage_return_is_said_to_be(tmp_path, capsys):
    docs = tmp_path / "cr.tsv"
    docs.write_bytes(b"d1\thola\r mundo\nd2\tadios\n")
    assert main(["index", str(docs), "-o", str(tmp_path / "x.npz"), "--lang", "es", "-q"]) == 2
    one_line_error(
        capsys,
        f"{docs}:2: expected docid TAB text, found no tab (line 2 begins at a carriage return inside line 1 as most "
        "editors number lines: a lone CR ends a line; remove it if it should not)",
    )


def test_a_later_line_says_its_number_for_an_editor(tmp_path):
    from clirkit.formats import read_qrels

    qrels = tmp_path / "cr.qrels"
    qrels.write_bytes(b"q1 0 d1 1\rq1 0 d2 0\nq1 0 d3 x\n")
    with pytest.raises(ClirkitError, match=r"cr.qrels:3: .* \(line 3 is line 2 as most editors number lines: a lone"):
        read_qrels(qrels)
    qrels.write_bytes(b"q1 0 d1 1\rq1 0 d3 x\r")  # an old Mac file: every line ends at a CR, as editors show it
    with pytest.raises(ClirkitError, match=r"cr.qrels:2: relevance grade 'x' is not an integer; [^(]*\(0: [^(]*$"):
        read_qrels(qrels)


# ------------------------------------------------------------------ 16f. --baseline compared as a file


def test_eval_baseline_names_a_run_however_its_path_is_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n", encoding="utf-8")
    (tmp_path / "a.run").write_text("q1 Q0 d2 1 2 A\nq1 Q0 d1 2 1 A\n", encoding="utf-8")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 2 B\nq1 Q0 d2 2 1 B\n", encoding="utf-8")
    (tmp_path / "link.run").symlink_to(tmp_path / "b.run")
    common = ["eval", "--qrels", "a.qrels", "a.run", "b.run", "-m", "AP"]
    assert main([*common, "--baseline", "b.run"]) == 0
    expected = capsys.readouterr().out
    for spelling in ("./b.run", str(tmp_path / "b.run"), "link.run"):
        assert main([*common, "--baseline", spelling]) == 0
        assert capsys.readouterr().out == expected
    assert main([*common, "--baseline", "c.run"]) == 2
    one_line_error(capsys, "--baseline c.run is not one of the RUN arguments")


# ------------------------------------------------------------------ 16g. a minimum grade of 0 refused


def test_boost_min_grade_0_is_refused_as_unjudged_documents_have_grade_0(tmp_path, capsys):
    with pytest.raises(ClirkitError, match=re.escape("[1, inf) (unjudged documents have grade 0). Got 0 instead.")):
        BoostRanker.from_flat(min_grade=0).check_params()
    files = ["--queries", "q.tsv", "--qrels", "q.qrels", "--documents", "docs.tsv", "--source-lang", "en"]
    assert main(["boost-train", *files, "--target-lang", "es", "--min-grade", "0", "-o", str(tmp_path / "m.npz")]) == 2
    one_line_error(capsys, "--min-grade (BoostRanker's min_grade) must be an int in the range [1, inf) (unjudged")
    assert not (tmp_path / "m.npz").exists()


# ------------------------------------------------------------------ 16h. search --source-lang over one language


def test_search_refuses_source_lang_over_queries_in_one_language(sharded, capsys):
    index = str(sharded / "s.npz")
    (sharded / "q.jsonl").write_text('{"qid": "q1", "text": "casa"}\n', encoding="utf-8")
    for queries in ("q.tsv", "q.jsonl"):
        path = str(sharded / queries)
        assert main(["search", "--index", index, "--queries", path, "--source-lang", "de", "-o", "-", "-q"]) == 2
        said = one_line_error(capsys, "--source-lang chooses the version of topics given in several languages (")
        assert f"; {path} holds queries in one language, searched as the index analyzes text: drop" in said
    clef = sharded / "clef.txt"
    clef.write_text("<top>\n<num> 1\n<EN-title> house\n<ES-title> casa\n</top>\n", encoding="utf-8")
    assert main(["search", "--index", index, "--queries", str(clef), "--source-lang", "es", "-o", "-", "-q"]) == 0
    assert capsys.readouterr().out.startswith("1 Q0 d1 1 ")
