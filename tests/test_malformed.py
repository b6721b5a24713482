"""Regressions found by ``tests/hardening/malformed_matrix.py`` (every verb x every input kind x every malformed
class): each case here is one that failed there, run through ``clirkit.cli.main`` on small real inputs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.npzio import load_npz, save_npz
from clirkit.scs.params import Shape

ARRAYS = {"docids": np.array(["Gen.1.1", "Gen.1.3"]), "doc_lengths": np.array([10.0, 7.0])}


def _device(path, minor: int):
    """A character device node at ``path`` (1, 3 is /dev/null's, 1, 7 /dev/full's), or skip without the right."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


def test_an_npz_written_onto_a_null_device_is_written_in_place(tmp_path):
    # zipfile trusted tell(), which a null device answers with 0: struct.error from the end record
    node = _device(tmp_path / "ix.npz", 3)
    save_npz(node, "index", 1, {}, ARRAYS)
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_an_npz_written_into_a_fifo_reaches_the_reader_whole(tmp_path):
    fifo = tmp_path / "ix.npz"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
    reader.start()
    save_npz(fifo, "index", 1, {"stats": {"n_docs": 2}}, ARRAYS)
    reader.join(10)
    copy = tmp_path / "copy.npz"
    copy.write_bytes(received[0])
    header, arrays = load_npz(copy, "index", (1,), ("docids",))
    assert header["stats"] == {"n_docs": 2} and arrays["docids"].tolist() == ["Gen.1.1", "Gen.1.3"]


def test_index_onto_a_full_device_is_one_error_line_and_keeps_the_node(indexed_dir, capsys):
    node = _device(indexed_dir / "full.npz", 7)
    assert main(["index", str(indexed_dir / "docs.tsv"), "-o", str(node), "--lang", "es", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {node}: cannot write") and err.count("\n") == 1
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_a_5000_digit_probability_in_a_moses_table_is_cut_in_the_message(tmp_path, capsys):
    table = tmp_path / "table.e2f"
    table.write_text("luz light 0.8\n" + "tinieblas darkness " + "7" * 5000 + "\n", encoding="utf-8")
    assert main(["ttable", "show", str(table), "light", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {table}:2: probability 777") and "... is not in [0, 1]" in err
    assert err.count("\n") == 1 and "7" * 100 not in err


@pytest.fixture
def scs_files(tmp_path, verses_es):
    """A small SCS model trained by ``clirkit scs-train`` on the verses, and the files it was trained on."""
    files = {"docs": tmp_path / "docs.tsv", "queries": tmp_path / "q.tsv", "qrels": tmp_path / "qrels.txt"}
    files["docs"].write_text("".join(f"{d}\t{t}\n" for d, t in verses_es.items()), encoding="utf-8")
    files["queries"].write_text("q1\tlight and darkness\nq2\tthe waters of the expanse\n", encoding="utf-8")
    files["qrels"].write_text("q1 0 Gen.1.3 2\nq1 0 Gen.1.4 1\nq2 0 Gen.1.6 2\nq2 0 Gen.1.7 1\n", encoding="utf-8")
    files["model"] = tmp_path / "scs.npz"
    assert (
        main(
            [
                "scs-train",
                "--queries",
                str(files["queries"]),
                "--documents",
                str(files["docs"]),
                "--qrels",
                str(files["qrels"]),
                "--source-lang",
                "en",
                "--target-lang",
                "es",
                "--dim",
                "4",
                "--epochs",
                "1",
                "--negatives",
                "2",
                "-o",
                str(files["model"]),
                "-q",
            ]
        )
        == 0
    )
    return files


def _scs_score(files, model, out) -> int:
    return main(
        [
            "scs-score",
            str(model),
            "--queries",
            str(files["queries"]),
            "--documents",
            str(files["docs"]),
            "-o",
            str(out),
            "-q",
        ]
    )


def test_scs_score_of_a_model_without_analyzers_names_the_file(scs_files, tamper, tmp_path, capsys):
    # a model trained on tokens (Python API) has no analyzers: the verb said "use score_tokens", naming no file
    model = tamper(scs_files["model"], tmp_path / "tokens.npz", {"query_analyzer": None, "doc_analyzer": None})
    capsys.readouterr()
    assert _scs_score(scs_files, model, tmp_path / "out.run") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {model}: this SCS model was trained on tokens") and err.count("\n") == 1
    assert not (tmp_path / "out.run").exists()


@pytest.mark.parametrize("missing", ["query_analyzer", "doc_analyzer"])
def test_an_scs_model_with_one_analyzer_only_is_corrupt(scs_files, tamper, tmp_path, capsys, missing):
    model = tamper(scs_files["model"], tmp_path / "half.npz", {missing: None})
    capsys.readouterr()
    assert _scs_score(scs_files, model, tmp_path / "out.run") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {model}: corrupt ") and "must both be set, or both null" in err


@pytest.mark.parametrize(
    "docid, problem",
    [
        ("Nowhere.1.1", "document id 'Nowhere.1.1' is not among the documents"),
        ("Gen.1\0.3", "contains a NUL character"),
        ("G" * 20_000, "document id of 20,000 characters"),
    ],
)
def test_an_extra_tuple_naming_no_document_is_an_error_not_a_different_model(
    scs_files, tmp_path, capsys, docid, problem
):
    # the tuple was dropped without a word, and the model trained on the others
    extra = tmp_path / "extra.tsv"
    extra.write_text(f"the light of day\tGen.1.5\t2\nlight and darkness\t{docid}\t1\n", encoding="utf-8")
    out = tmp_path / "boost.npz"
    capsys.readouterr()
    assert (
        main(
            [
                "boost-train",
                "--queries",
                str(scs_files["queries"]),
                "--qrels",
                str(scs_files["qrels"]),
                "--documents",
                str(scs_files["docs"]),
                "--extra-tuples",
                str(extra),
                "--rounds",
                "2",
                "--bits",
                "12",
                "-o",
                str(out),
                "-q",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {extra}:2: ") and problem in err and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("verb", [["run", "none.toml"], ["demo"]])
@pytest.mark.parametrize("folder", ["", "  "])
def test_an_empty_output_folder_is_refused_before_anything_is_read(verb, folder, tmp_path, capsys, monkeypatch):
    # run took -o '' for "no -o" (the file's name), demo wrote its report into the current folder
    monkeypatch.chdir(tmp_path)
    assert main([*verb, "-o", folder, "-q"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: --output-dir must be a folder name, got {folder!r}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["index", "none.tsv", "--lang", "es"],
        ["search", "--index", "none.npz", "--queries", "none.tsv"],
        ["eval", "--qrels", "none.qrels", "none.run"],
        ["ttable", "prune", "none.npz"],
    ],
)
def test_an_empty_output_file_name_is_refused_before_anything_is_read(argv, tmp_path, capsys, monkeypatch):
    # it was "clirkit: error: : is a folder; give a file name to write", naming nothing
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "-o", "", "-q" if argv[0] != "eval" else "--quiet"]) == 2
    assert capsys.readouterr().err == "clirkit: error: -o/--output must be a file name (or - for stdout), got ''\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("lang", ["xx", "Q\ud800", "EN"])
def test_a_table_npz_recording_an_unknown_language_is_corrupt_not_copied_into_a_pruned_table(
    tmp_path, tamper, capsys, lang
):
    moses = tmp_path / "table.e2f"
    moses.write_text("luz light 0.7\nlumbre light 0.3\ntinieblas darkness 1.0\n", encoding="utf-8")
    table = tmp_path / "table.npz"
    assert (
        main(["ttable", "convert", str(moses), "-o", str(table), "--source-lang", "en", "--target-lang", "es", "-q"])
        == 0
    )
    bad = tamper(table, tmp_path / "bad.npz", {"params.source_lang": lang})
    capsys.readouterr()
    assert main(["ttable", "prune", str(bad), "-o", str(tmp_path / "pruned.npz"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {bad}: corrupt translation table: header params.source_lang: ")
    assert "ISO 639-1" in err and err.count("\n") == 1 and not (tmp_path / "pruned.npz").exists()


def test_a_5000_digit_score_in_a_run_is_cut_in_the_message(tmp_path, capsys):
    # eval printed the whole score: an error line of 5,063 characters
    qrels, run = tmp_path / "qrels.txt", tmp_path / "a.run"
    qrels.write_text("q1 0 Gen.1.1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 Gen.1.1 1 " + "7" * 5000 + " tag\n", encoding="utf-8")
    assert main(["eval", "--qrels", str(qrels), str(run), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {run}:1: score '777") and err.count("\n") == 1 and len(err) < 300
    assert err.endswith(
        "is not a finite number; give each result a finite score such as 12.5 (column 5: qid Q0 docid rank score tag)\n"
    )


EXPERIMENT = 'collection = "nowhere"\n\n[table]\niterations = 2\n\n[systems.DT]\nkind = "dt"\n'


@pytest.mark.parametrize(
    "text, problem",
    [
        (
            "deep = " + "[" * 100_000 + "]" * 100_000 + "\n" + EXPERIMENT,
            "not a valid TOML file (nested too deeply); nest arrays and tables less deeply",
        ),
        (
            f"seed = {'7' * 5000}\n" + EXPERIMENT,
            "not a valid TOML file (an integer of more than 4,300 digits); write it with fewer digits",
        ),
        (
            EXPERIMENT.replace("iterations = 2", "iterations = -2"),
            "[table]: iterations must be an integer >= 0, got -2",
        ),
        (
            EXPERIMENT.replace("iterations = 2", 'iterations = "two"'),
            "[table]: iterations must be an integer >= 0, got 'two'",
        ),
        (EXPERIMENT.replace("iterations = 2", "file = 3"), "[table]: file must be a string, got 3"),
    ],
)
def test_a_bad_experiment_file_is_one_error_line_before_anything_runs(tmp_path, capsys, text, problem):
    # RecursionError, ValueError (int digits) at reading; -2 or "two" iterations deep in IBM Model 1 training
    exp = tmp_path / "exp.toml"
    exp.write_text(text, encoding="utf-8")
    assert main(["run", str(exp), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {exp}: {problem}\n"
    assert not (tmp_path / "out").exists()


def test_an_experiment_file_that_is_a_folder_is_one_error_line(tmp_path, capsys):
    (tmp_path / "exp.toml").mkdir()
    assert main(["run", str(tmp_path / "exp.toml"), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err.endswith("exp.toml: is a directory, expected an experiment file (TOML)\n")


@pytest.mark.parametrize("verb", [["run", "EXP"], ["demo", "--baselines-only"]])
@pytest.mark.parametrize(
    "place, problem",
    [
        ("afile", "exists and is not a folder; give a folder for the output"),
        ("afile/out", "AFILE is not a folder (it is a file): give an output path inside a folder"),
        ("afile/sub/out", "AFILE is not a folder (it is a file): give an output path inside a folder"),
    ],
)
def test_an_output_folder_that_cannot_be_made_is_one_error_line(tmp_path, capsys, verb, place, problem):
    # FileExistsError and NotADirectoryError tracebacks from the experiment's folder; a file where a folder of
    # the path should be is named (it was "cannot make the output folder (Not a directory)")
    exp = tmp_path / "exp.toml"
    exp.write_text(EXPERIMENT, encoding="utf-8")
    (tmp_path / "afile").write_bytes(b"keep me\n")
    argv = [str(exp) if a == "EXP" else a for a in verb]
    assert main([*argv, "-o", str(tmp_path / place), "-q"]) == 2
    problem = problem.replace("AFILE", str(tmp_path / "afile"))
    assert capsys.readouterr().err == f"clirkit: error: {tmp_path / place}: {problem}\n"
    assert (tmp_path / "afile").read_bytes() == b"keep me\n"


def test_a_ctrl_c_lost_in_a_callback_is_raised_again():
    # Python ignores a KeyboardInterrupt raised inside some callbacks (the import machinery's): the
    # "unraisable" hook clirkit sets raises SIGINT again, so the run stops with "clirkit: interrupted"
    import sys
    import types

    from clirkit.cli import _keeping_interrupts

    seen = []
    hook = _keeping_interrupts(seen.append)
    assert _keeping_interrupts(hook) is hook  # set once, however many runs in a process
    hook(types.SimpleNamespace(exc_value=ValueError("x")))
    assert len(seen) == 1
    with pytest.raises(KeyboardInterrupt):
        hook(types.SimpleNamespace(exc_value=KeyboardInterrupt()))
        for _ in range(1000):  # the signal handler runs at the next check of the interpreter
            sys.getrecursionlimit()


def test_after_a_ctrl_c_an_error_in_another_thread_prints_nothing(monkeypatch):
    # joblib's executor thread may fail on a work item the interrupted submission left half-made: the command
    # says its one line, not that thread's traceback
    import clirkit.cli as cli

    seen = []
    hook = cli._quiet_after_interrupt(seen.append)
    assert cli._quiet_after_interrupt(hook) is hook
    monkeypatch.setattr(cli, "_interrupted", False)
    hook("an error")
    monkeypatch.setattr(cli, "_interrupted", True)
    hook("an error after the Ctrl-C")
    assert seen == ["an error"]


def test_a_ctrl_c_in_a_finalizer_stops_the_code_after_it_without_a_line_on_stderr():
    # the interpreter calls the hook itself: the KeyboardInterrupt must reach the code that runs on, not be
    # printed as "Exception ignored in sys.unraisablehook" (the hook raising it inside itself)
    code = """
import sys
from clirkit.cli import _keeping_interrupts
sys.unraisablehook = _keeping_interrupts(sys.unraisablehook)
class Finalized:
    def __del__(self):
        raise KeyboardInterrupt
try:
    Finalized()
    for _ in range(100_000):
        pass
    print("not stopped")
except KeyboardInterrupt:
    print("stopped")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.stdout, done.stderr) == ("stopped\n", "")


def test_an_index_header_of_deeply_nested_json_is_one_error_line(indexed_dir, capsys):
    from clirkit.npzio import HEADER_KEY

    bad = indexed_dir / "nested.npz"
    np.savez(bad, **{HEADER_KEY: np.frombuffer(b"[" * 100_000 + b"]" * 100_000, dtype=np.uint8)})
    queries = indexed_dir / "q.tsv"
    queries.write_text("q1\tluz\n", encoding="utf-8")
    assert main(["search", "--index", str(bad), "--queries", str(queries), "-o", str(indexed_dir / "r"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {bad}") and err.count("\n") == 1


def _matrix_module():
    from hardening import malformed_matrix  # tests/hardening/malformed_matrix.py (pytest puts tests/ on the path)

    return malformed_matrix


@pytest.mark.parametrize(
    "line, says",
    [
        ("clirkit: error: ix.npz: corrupt index: docids is empty; rebuild the index with `clirkit index`", True),
        ("clirkit: error: t.dict: could be MUSE or pairs: pass --format muse or --format pairs", True),
        ("clirkit: error: q.tsv:3: query id q1 appears twice (first at line 1)", False),
        ("clirkit: error: docs.tsv:1: invalid UTF-8 (byte 1 of the line)", False),
        (
            "clirkit: error: x.toml: unknown key 'colection' (did you mean 'collection'?; the top-level keys: name)",
            True,
        ),
        ("clirkit: error: t.e2f:3: pair a b repeats line 1: a table gives each pair one probability; keep one", True),
        ("clirkit: error: x.toml:2: not a valid TOML file (Invalid value, column 8); correct the line", True),
        ("clirkit: error: run.txt:4: score 'x' is not a number", False),
    ],
)
def test_the_sample_of_messages_tells_those_that_say_what_to_do(line, says):
    assert _matrix_module().says_what_to_do(line) is says


def test_the_sample_drawn_again_from_a_report_is_the_same_draw(tmp_path):
    import json

    m = _matrix_module()
    slot = m.Slot("index", "documents TSV", [], {}, {})
    results = [
        m.Result(
            m.Case(slot, "input", f"class {k}", "error", [], {}, []),
            "ok-error" if k % 3 else "traceback",
            f"clirkit: error: docs.tsv:{k}: problem {k}",
            0.1,
            "",
        )
        for k in range(60)
    ]
    report = tmp_path / "m.json"
    report.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "verb": r.case.slot.verb,
                        "input": r.case.slot.label,
                        "group": "input",
                        "file": "",
                        "class": r.case.cls,
                        "outcome": r.outcome,
                    }
                    for r in results
                ]
            }
        ),
        encoding="utf-8",
    )
    drawn = m.sampled_cases(str(report), 10, seed=3)
    text = m.sample_text(results, 10, seed=3)
    assert len(drawn) == 10 and [w for w in drawn if f"] {w}\n" in text] == drawn
    assert text.startswith("## 10 error messages drawn at random (seed 3): 0 say what to do")


def test_datasets_export_into_an_unwritable_place_is_one_error_line(tmp_path, capsys):
    # the staging folder's mkdtemp raised PermissionError through to a traceback (-o /sys/x as root)
    target = "/sys/clirkit-unwritable-export" if os.geteuid() == 0 else None
    if target is None:
        ro = tmp_path / "ro"
        ro.mkdir()
        os.chmod(ro, 0o500)
        target = str(ro / "out")
        if os.access(ro, os.W_OK):
            pytest.skip("this user can write in a read-only folder")
    assert main(["datasets", "export", "nave-en-es", "-o", target, "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {target}: cannot write in") and err.count("\n") == 1
    assert "give a folder you can write in" in err


# --------------------------------------------------------------------------------------------------------------
# messages that said no fix in the matrix's sample of 30 (issue 25): each names the file (and line), the problem
# and what to do, is one line and exits 2

HC4_TOPIC = '{"topic_id": "101", "topics": [{"lang": "spa", "topic_title": "luz", "topic_description": "la luz"}]}\n'
TO_UTF8 = "; convert the file to UTF-8 (from Latin-1: `iconv -f latin1 -t utf-8 FILE > NEW`)"


@pytest.mark.parametrize(
    "name, data, argv, message",
    [
        (
            "qrels.txt",
            b"Gen.1 0 Gen.1.3 1\nGen.1 0 Gen.1.4 0\nGen.1 0 Gen.1.3 2\n",
            ["eval", "--qrels", "IN", "RUN", "--quiet"],
            ":3: docid Gen.1.3 appears twice for query Gen.1 (first at line 1): a document is judged once per query; remove "
            "one of the two lines",
        ),
        (
            "qrels.txt",
            b"\n",
            ["eval", "--qrels", "IN", "RUN", "--quiet"],
            ": the qrels judge nothing (no judgment line; a qrels file holds qid iter docid rel lines)",
        ),
        (
            "topics.jsonl",
            (HC4_TOPIC * 2).encode(),
            ["search", "--index", "IX", "--queries", "IN", "-o", "OUT", "-q"],
            ":2: query id 101 appears twice (first at line 1): give each topic its own id, or remove the repeated topic",
        ),
        (
            "topics.ntcir.xml",
            b"",
            ["search", "--index", "IX", "--queries", "IN", "-o", "OUT", "-q"],
            ": empty: no queries found; check the path (a queries file holds qid TAB text lines, JSONL records, or TREC, "
            "CLEF, NTCIR or HC4 topics)",
        ),
        (
            "none.npz",
            None,
            ["search", "--index", "IN", "--queries", "Q", "-o", "OUT", "-q"],
            ": no such file: check the path (an index is made by `clirkit index`)",
        ),
        (
            "table.npz",
            bytes(range(128, 256)) * 8,
            ["ttable", "show", "IN", "light", "-q"],
            ": not a clirkit translation-table file or corrupt (not a zip archive, as every .npz file is): check the path, "
            "or make the table again (`clirkit ttable train`, or `ttable convert` of its source)",
        ),
        (
            "table.e2f",
            b"luz light 0.5\nla the 1.0\nluz light 0.25\n",
            ["ttable", "show", "IN", "light", "-q"],
            ":3: pair luz light repeats line 1: a table gives each pair one probability; remove one of the two lines",
        ),
        (
            "table.e2f",
            b"luz light 0.5\ntinieblas darkness " + b"7" * 5000 + b"\n",
            ["ttable", "show", "IN", "light", "-q"],
            ":2: probability 7777777777777777777777777777777777777... is not in [0, 1]; give p(e|f) as a number from 0 to 1 "
            "(e.g. 0.25)",
        ),
        (
            "en-es.json",
            b'{"light": {"luz": 0.5, "lumbrera": 0.5},\n "dark\xe9": {"tinieblas": 1.0}}',
            ["ttable", "show", "IN", "light", "-q"],
            ":2: invalid UTF-8 (byte 7 of the line)" + TO_UTF8,
        ),
        (
            "en-es.json",
            b'{"light": {"luz": 1.0},\n "light": {"lumbrera": 1.0}}',
            ["ttable", "show", "IN", "light", "-q"],
            ":2: source word 'light' given twice; give all its translations in one object",
        ),
        (
            "en-es.phrase-table",
            b"light ||| luz ||| 0.5 0.5 0.5 0.5\ndark |||  ||| 0.5 0.5 0.5 0.5\n",
            ["ttable", "show", "IN", "light", "-q"],
            ":2: empty target phrase; remove the line or give the phrase",
        ),
        (
            "en-es.dict",
            b"\n",
            ["ttable", "show", "IN", "light", "-q"],
            ": no usable translation pairs in this dictionary (0 pairs read, 0 with a multi-word source side); check the "
            "path (an empty file?)",
        ),
    ],
)
def test_a_message_of_the_sample_names_the_place_the_problem_and_what_to_do(
    indexed_dir, capsys, name, data, argv, message
):
    path = indexed_dir / name
    if data is not None:
        path.write_bytes(data)
    (indexed_dir / "a.run").write_text("Gen.1 Q0 Gen.1.3 1 2.0 t\nGen.1 Q0 Gen.1.4 2 1.0 t\n", encoding="utf-8")
    (indexed_dir / "q.tsv").write_text("q1\tluz\n", encoding="utf-8")
    places = {
        "IN": path,
        "RUN": indexed_dir / "a.run",
        "IX": indexed_dir / "ix.npz",
        "Q": indexed_dir / "q.tsv",
        "OUT": indexed_dir / "out.run",
    }
    assert main([str(places.get(a, a)) for a in argv]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {path}{message}\n"
    assert not (indexed_dir / "out.run").exists()


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '\ufeffcollection = "nowhere"\n',
            ":1: starts with a byte-order mark, which TOML does not allow; save the file as UTF-8 without it",
        ),
        (
            'collection = "nowhere"\r[systems.DT]\rkind = "dt"\r',
            ": its lines end with CR only (an old Mac file), which TOML "
            "does not allow; convert them to LF (`tr '\\r' '\\n' < FILE > "
            "NEW`)",
        ),
        (
            'collection = "nowhere"\nseed = 1\nseed = 2\n',
            ":3: not a valid TOML file (a key or table given twice, column 9); keep one of them",
        ),
        (
            'collection = "nowhere"\nseed = \n',
            ":2: not a valid TOML file (Invalid value, column 8); correct the line "
            '(TOML: key = value, strings in "quotes", tables under [name] headers)',
        ),
        (
            'collection = "Q\\ud800"\n',
            ":1: not a valid TOML file (an escape that is half a character, column 22); write "
            "the character itself, or a valid pair of \\uD8xx\\uDCxx escapes",
        ),
        ('name = "x"\n', ': no collection: add one (e.g. collection = "nave-en-es")'),
    ],
)
def test_an_experiment_file_that_is_not_valid_toml_says_where_and_what_to_do(tmp_path, capsys, text, message):
    exp = tmp_path / "exp.toml"
    exp.write_bytes(text.encode("utf-8", "surrogatepass"))
    assert main(["run", str(exp), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {exp}{message}\n"
    assert not (tmp_path / "out").exists()


def _plain_experiment(folder, verses_es, split: str):
    """An experiment file with a [collection] of plain files in ``folder``: the verses, 5 queries and their qrels,
    split by the rule ``split``."""
    (folder / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in verses_es.items()), encoding="utf-8")
    docids = list(verses_es)
    (folder / "q.tsv").write_text("".join(f"q{i}\tlight\n" for i in range(5)), encoding="utf-8")
    (folder / "qrels.txt").write_text("".join(f"q{i} 0 {docids[i]} 1\n" for i in range(5)), encoding="utf-8")
    exp = folder / "exp.toml"
    exp.write_text(
        f'[collection]\ndocuments = "docs.tsv"\nqueries = "q.tsv"\nqrels = "qrels.txt"\nsource_lang = "en"\n'
        f'target_lang = "es"\nsplit = {split}\n\n[systems.DT]\nkind = "dt"\n',
        encoding="utf-8",
    )
    return exp


@pytest.mark.parametrize(
    "split, message",
    [
        (
            "{dev = 0.05, test = 0.95}",
            "split = {dev = 0.05, test = 0.95} leaves the dev split empty: 0.05 of the 5 queries "
            "of q.tsv rounds to none; give dev a larger fraction (one query is 0.2 of them), or "
            "give the dev queries a file of their own (queries = {dev = FILE, test = FILE})",
        ),
        (
            "{train = 0.05, dev = 0.45, test = 0.5}",
            "split = {train = 0.05, dev = 0.45, test = 0.5} leaves the train split "
            "empty: 0.05 of the 5 queries of q.tsv rounds to none; give train a "
            "larger fraction (one query is 0.2 of them), or give the train queries "
            "a file of their own (queries = {train = FILE, test = FILE})",
        ),
    ],
)
def test_a_collection_split_rule_leaving_a_split_empty_names_the_experiment_file_and_what_to_do(
    tmp_path, capsys, verses_es, split, message
):
    # the message was "q.tsv: the split {'dev': 0.05, 'test': 0.95} leaves the dev split empty (5 queries)", said
    # once the collection was being written: it named neither the experiment file nor what to do
    exp = _plain_experiment(tmp_path, verses_es, split)
    assert main(["run", str(exp), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {exp}: [collection] {message}\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "name, data, argv, message",
    [
        (
            "qrels.txt",
            b"Gen.1 0 Gen.1.3 1\nGen.1 0 Gen.1.3 2\n",
            ["eval", "--qrels", "IN", "RUN", "--quiet"],
            ":2: docid Gen.1.3 appears twice for query Gen.1 (first at line 1): a document is judged once per query; remove "
            "one of the two lines",
        ),
        (
            "table.npz",
            bytes(range(128, 256)) * 8,
            ["ttable", "show", "IN", "light", "-q"],
            ": not a clirkit translation-table file or corrupt (not a zip archive, as every .npz file is): check the path, "
            "or make the table again (`clirkit ttable train`, or `ttable convert` of its source)",
        ),
    ],
)
def test_from_the_command_line_a_fixed_message_is_exit_2_and_one_line_without_a_traceback(
    tmp_path, name, data, argv, message
):
    import subprocess
    import sys

    path = tmp_path / name
    path.write_bytes(data)
    (tmp_path / "a.run").write_text("Gen.1 Q0 Gen.1.3 1 2.0 t\n", encoding="utf-8")
    places = {"IN": str(path), "RUN": str(tmp_path / "a.run")}
    done = subprocess.run(
        [sys.executable, "-m", "clirkit", *[places.get(a, a) for a in argv]],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"clirkit: error: {path}{message}\n")


def test_loading_an_scs_model_into_one_of_other_hyper_parameters_names_one_and_what_to_do(scs_files):
    from clirkit.errors import ClirkitError
    from clirkit.scs.model import SCSModel

    with pytest.raises(ClirkitError) as err:
        SCSModel(shape=Shape(dim=8)).load_model(scs_files["model"])
    assert str(err.value) == (
        f"{scs_files['model']}: saved with other hyper-parameters than this SCS model's (dim: 4, "
        f"not 8); load it with SCSModel.load(path), which takes the file's"
    )
