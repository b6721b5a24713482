"""Edge cases of the seventeenth round of independent testing, and leftovers of the sixteenth: each a one-line
error or notice that names the problem, or a message in the words the count calls for."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.errors import counted


def test_counted_gives_the_singular_for_one():
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(0, "entry", "entries") == "0 entries"
    assert counted(1234, "option") == "1,234 options"


def test_table_reports_of_one_pair_are_in_the_singular(tmp_path, capsys):
    (tmp_path / "pt").write_text("casa ||| house ||| 0.5 0.5 0.9 0.5\n", encoding="utf-8")
    argv = ["ttable", "convert", str(tmp_path / "pt"), "--format", "phrase-table", "--source-lang", "es"]
    assert main([*argv, "--target-lang", "en", "-o", str(tmp_path / "t.npz")]) == 0
    err = capsys.readouterr().err
    assert "1 phrase pair -> 1 source word, 1 option, p = score column 3" in err
    assert "1 x 1 words, 1 entry ->" in err
    (tmp_path / "pt").write_text("casa ||| house ||| 0.5 0.5 0 0.5\n", encoding="utf-8")
    assert main([*argv, "--target-lang", "en", "-o", str(tmp_path / "t.npz")]) == 2
    assert "no usable translations (1 entry read, 0 with a multi-word source side)" in capsys.readouterr().err
    (tmp_path / "d.tsv").write_text("casa\thouse\n", encoding="utf-8")
    argv = ["ttable", "convert", str(tmp_path / "d.tsv"), "--format", "pairs", "--source-lang", "es"]
    assert main([*argv, "--target-lang", "en", "-o", str(tmp_path / "d.npz")]) == 0
    assert "1 dictionary pair -> 1 entry, 1 source word, 1 option (uniform weights)" in capsys.readouterr().err


# the collection of the round's examples: six Spanish documents, six English queries, a dictionary ----------------

DOCS = ["d1\tel perro come carne", "d2\tel gato bebe leche", "d3\tla casa es grande", "d4\tel perro y el gato",
        "d5\tla leche es blanca", "d6\tcarne y leche en la casa"]  # fmt: skip
QUERIES = ["q1\tdog eats", "q2\tcat milk", "q3\tbig house", "q4\twhite milk", "q5\tdog cat", "q6\tmeat house"]
QRELS = ["q1 0 d1 1", "q1 0 d4 1", "q2 0 d2 1", "q2 0 d5 1", "q3 0 d3 1", "q4 0 d5 2", "q5 0 d4 1", "q6 0 d6 1"]
DICTIONARY = ["dog perro", "cat gato", "eats come", "milk leche", "big grande", "house casa", "white blanca"]


def _write(path, lines) -> str:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def _files(folder) -> dict[str, str]:
    return {
        "docs": _write(folder / "docs.tsv", DOCS),
        "queries": _write(folder / "queries.tsv", QUERIES),
        "qrels": _write(folder / "qrels.txt", QRELS),
        "dict": _write(folder / "dict.txt", DICTIONARY),
    }


def _undecodable(folder, stem: str, suffix: str) -> str:
    """A path in ``folder`` whose name holds the byte 0xff (no UTF-8): as Python names it, with a surrogate."""
    import os

    return os.path.join(str(folder), os.fsdecode(stem.encode() + b"\xff" + suffix.encode()))


# T1-T3: a file name with a byte that is no UTF-8, written into a text file -------------------------------------


def test_eval_writes_a_run_named_with_an_undecodable_byte_escaped(tmp_path, capsys):
    import json
    import shutil

    qrels = _write(tmp_path / "qa", ["q1 0 d1 1", "q1 0 d2 0"])
    run = _undecodable(tmp_path, "r", ".run")
    shutil.copy(_write(tmp_path / "plain.run", ["q1 Q0 d1 1 1 t", "q1 Q0 d2 2 0.5 t"]), run)
    other = _write(tmp_path / "rok2", ["q1 Q0 d2 1 1 t", "q1 Q0 d1 2 0.5 t"])
    for fmt in ("text", "csv", "json"):
        out = tmp_path / f"out.{fmt}"
        assert main(["eval", "--qrels", qrels, run, other, "-m", "AP", "--format", fmt, "-o", str(out), "--quiet"]) == 0
        written = out.read_text(encoding="utf-8")
        assert "r\\xff.run" in (" ".join(_strings(json.loads(written))) if fmt == "json" else written)
    capsys.readouterr()


def _strings(value) -> list[str]:
    """Every string of a JSON value (its keys and its values, at any depth)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_an_experiment_file_named_with_an_undecodable_byte_writes_its_report(tmp_path, capsys):
    import shutil

    f = _files(tmp_path)
    text = (
        'measures = ["AP"]\nfigures = false\nbaseline = "DT"\n[collection]\n'
        f'documents = "{f["docs"]}"\nqueries = "{f["queries"]}"\nqrels = "{f["qrels"]}"\n'
        'source_lang = "en"\ntarget_lang = "es"\nsplit = {dev = 0.5, test = 0.5}\n'
        f'[table]\nfile = "{f["dict"]}"\nformat = "muse"\n[systems.DT]\nkind = "dt"\n'
    )
    exp = _undecodable(tmp_path, "e", ".toml")
    shutil.copy(_write(tmp_path / "plain.toml", [text]), exp)
    assert main(["run", exp, "-o", str(tmp_path / "out"), "-q"]) == 0
    assert "e\\xff" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    capsys.readouterr()


def test_a_collection_of_files_named_with_an_undecodable_byte_records_them_escaped(tmp_path, capsys):
    import json
    import shutil

    f = _files(tmp_path)
    queries = _undecodable(tmp_path, "q", ".tsv")
    shutil.copy(f["queries"], queries)
    argv = ["collection", "--documents", f["docs"], "--queries", queries, "--qrels", f["qrels"]]
    assert main([*argv, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "c"), "-q"]) == 0
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text(encoding="utf-8"))
    assert "q\\xff.tsv" in manifest["description"]
    capsys.readouterr()


def test_text_that_utf8_cannot_hold_is_a_one_line_error_and_nothing_is_written(tmp_path):
    from clirkit.errors import ClirkitError
    from clirkit.fileio import atomic_writer, display_name

    with pytest.raises(ClirkitError, match=r"out.txt: cannot write text holding \\ud800 \(a lone surrogate"):
        with atomic_writer(tmp_path / "out.txt") as out:
            out.write("a\ud800b")
    assert not list(tmp_path.iterdir())
    assert display_name("a\udcffb") == "a\\xffb" and display_name("a\ud800") == "a\\ud800"
    assert display_name("-") == "<stdin>" and display_name("été") == "été"


# W1: a collection without parallel text is exported ---------------------------------------------------------------


def test_datasets_export_of_a_collection_without_parallel_text_writes_the_rest_and_says_so(tmp_path, capsys):
    from clirkit import datasets
    from clirkit.errors import ClirkitError

    f = _files(tmp_path)
    argv = ["collection", "--documents", f["docs"], "--queries", f["queries"], "--qrels", f["qrels"]]
    assert main([*argv, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "cn"), "-q"]) == 0
    capsys.readouterr()
    assert main(["datasets", "export", str(tmp_path / "cn"), "-o", str(tmp_path / "dx")]) == 0
    assert "has no parallel text: no parallel.*.txt written" in capsys.readouterr().err
    written = sorted(p.name for p in (tmp_path / "dx").iterdir())
    assert written == ["README.txt", "docs.tsv", "queries.test.tsv", "test.qrels"]
    assert "No parallel text" in (tmp_path / "dx" / "README.txt").read_text(encoding="utf-8")
    with pytest.raises(ClirkitError, match="the collection has no parallel text"):
        datasets.load(str(tmp_path / "cn")).parallel()


# W2: --split fractions are read as the other options read numbers -------------------------------------------------


@pytest.mark.parametrize("split", ["dev=٠.5,test=0.5", "dev=５e-1,test=0.5", "dev=0.2_5,test=0.7_5"])
def test_collection_split_refuses_fractions_not_written_in_ascii_digits(tmp_path, capsys, split):
    f = _files(tmp_path)
    argv = ["collection", "--documents", f["docs"], "--queries", f["queries"], "--qrels", f["qrels"]]
    argv += ["--source-lang", "en", "--target-lang", "es", "--split", split, "-o", str(tmp_path / "c")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a number" in err and not (tmp_path / "c").exists()


# W3: a Ctrl-C while the previous output is removed --------------------------------------------------------------


def test_a_ctrl_c_while_the_previous_output_is_removed_leaves_the_new_output_and_no_staging_folder(
    tmp_path, monkeypatch
):
    import shutil

    from clirkit.experiment import store as store_module
    from clirkit.experiment.store import Store, staging

    target = tmp_path / "out"
    for text in ("old", "new"):
        store = Store(target)
        (store.folder / "report.md").write_text(text, encoding="utf-8")
        if text == "new":
            removing = shutil.rmtree

            def interrupted(path, *args, **kwargs):  # once the new output is switched in
                if str(path).endswith(".out.old") and (target / "report.md").read_text(encoding="utf-8") == "new":
                    raise KeyboardInterrupt
                return removing(path, *args, **kwargs)

            monkeypatch.setattr(store_module.shutil, "rmtree", interrupted)
            with pytest.raises(KeyboardInterrupt):
                store.commit()
            monkeypatch.setattr(store_module.shutil, "rmtree", removing)
        else:
            store.commit()
    assert (target / "report.md").read_text(encoding="utf-8") == "new" and not staging(target).exists()
    assert (tmp_path / ".out.old").exists()  # what the removal left: the next run removes it
    Store(target)
    assert not (tmp_path / ".out.old").exists() and (target / "report.md").read_text(encoding="utf-8") == "new"


# S1: a Ctrl-C as the command ends -----------------------------------------------------------------------------


def test_a_ctrl_c_as_a_command_ends_gives_status_130_or_0_never_death_by_the_signal(tmp_path):
    import signal
    import subprocess
    import sys

    qrels = _write(tmp_path / "qa", ["q1 0 d1 1", "q1 0 d2 0"])
    run = _write(tmp_path / "a.run", ["q1 Q0 d1 1 1 t", "q1 Q0 d2 2 0.5 t"])
    for _ in range(4):
        child = subprocess.Popen(
            [sys.executable, "-m", "clirkit", "eval", "--qrels", qrels, run, "-m", "AP", "--format", "csv"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert child.stdout is not None
        child.stdout.readline(), child.stdout.readline()  # the table is printed: the work is over
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
        assert child.returncode in (0, 130), (child.returncode, err)
        assert err.count(b"\n") <= 1 and b"Traceback" not in err


# messages ----------------------------------------------------------------------------------------------------


def test_a_collection_input_that_is_a_pipe_or_device_is_named_as_such(tmp_path, capsys):
    f = _files(tmp_path)
    argv = ["collection", "--documents", f["docs"], "--queries", "/dev/null", "--qrels", f["qrels"]]
    assert main([*argv, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "/dev/null: is not a regular file (a pipe or a device)" in err


def test_two_fusions_listing_each_other_get_no_suggestion_to_list_the_other(tmp_path, capsys):
    f = _files(tmp_path)
    text = (
        'measures = ["AP"]\n[collection]\n'
        f'documents = "{f["docs"]}"\nqueries = "{f["queries"]}"\nqrels = "{f["qrels"]}"\n'
        'source_lang = "en"\ntarget_lang = "es"\n'
        f'[table]\nfile = "{f["dict"]}"\nformat = "muse"\n[systems.DT]\nkind = "dt"\n'
        '[fusions.F1]\nsystems = ["F2", "DT"]\n[fusions.F2]\nsystems = ["F1", "DT"]\n'
    )
    assert main(["run", _write(tmp_path / "e.toml", [text]), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a fusion; a fusion fuses systems" in err and "instead" not in err


def test_boost_train_names_the_qrels_file_when_none_of_its_judgments_fits_the_files(tmp_path, capsys):
    f = _files(tmp_path)
    other = _write(tmp_path / "other.qrels", ["x1 0 d1 1", "x2 0 d2 1"])
    argv = ["boost-train", "--queries", f["queries"], "--qrels", other, "--documents", f["docs"]]
    assert main([*argv, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "m.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{other}: none of its 2 judgments names a query of {f['queries']}" in err
    assert "(none of its queries is there)" in err and not (tmp_path / "m.npz").exists()


def test_a_moses_table_whose_rows_sum_past_one_is_said_so(tmp_path, capsys):
    table = _write(tmp_path / "lex.e2f", ["perro dog 0.9", "can dog 0.9", "gato cat 0.5"])
    assert main(["ttable", "show", table, "dog", "--source-lang", "en", "--target-lang", "es"]) == 0
    captured = capsys.readouterr()
    assert "1 source word of 2 has p summing to more than 1 (first: dog, 1.8)" in captured.err
    assert "perro\t0.500000" in captured.out


def test_rounds_the_significance_guard_drops_are_said_with_the_reason():
    import numpy as np

    from clirkit.boost.bagging import kept_if_significant
    from clirkit.boost.ranker import _why_none
    from clirkit.boost.result import BoostResult

    result = BoostResult(
        np.array([0, 1]), np.array([0.5, 0.5]), np.array([0, 1, 2]), np.array([1, 2]), np.array([3, 4]),
        np.array([0.9, 0.8]), np.array([1, 2]), np.array([0.30, 0.31]), 2,
    )  # fmt: skip

    class Dev:  # per-query AP of the base (no entry) and of the boosted model: a small, noisy gain
        def per_query(self, src, tgt, weight):
            return np.array([0.2, 0.4, 0.3]) if len(src) == 0 else np.array([0.25, 0.35, 0.32])

    (kept,) = kept_if_significant([result], Dev(), 0.05)
    assert kept.best_round == 0
    why = kept.info["not_kept"]["why"]
    assert kept.info["not_kept"]["rounds"] == 2 and why.startswith("not significantly above the base on dev (p = ")
    note = _why_none({"bag_not_kept": [kept.info["not_kept"]]})
    assert note.startswith(" (the 2 rounds dev chose were not kept: not significantly above") and "the base)" in note
    assert _why_none({}) == ""


def test_a_run_from_python_refuses_lone_surrogate_ids_and_booleans_as_scores_or_grades():
    import numpy as np

    from clirkit.errors import ClirkitError
    from clirkit.run import Qrels, Run

    with pytest.raises(ClirkitError, match=r"Run row 2 has a query id holding a lone surrogate \('b\\ud800'\)"):
        Run(np.array(["a", "b\ud800"]), np.array(["d", "d"]), np.array([1.0, 1.0]))
    with pytest.raises(ClirkitError, match=r"Run row 1 has a document id holding a lone surrogate"):
        Run.from_groups(["q"], [1], ["d\udcff"], [1.0])
    with pytest.raises(ClirkitError, match="Run scores must be numbers"):
        Run(np.array(["a"]), np.array(["d"]), np.array([True]))
    with pytest.raises(ClirkitError, match="Qrels rels is not a number, got True"):
        Qrels(np.array(["a"]), np.array(["d"]), np.array([True]))
    assert len(Run(np.array(["é"]), np.array(["文"]), np.array([1.0]))) == 1  # other non-ASCII ids are ids


def test_eval_and_collection_record_a_qrels_or_input_name_with_an_undecodable_byte_escaped(tmp_path, capsys):
    import json
    import shutil

    qrels = _undecodable(tmp_path, "q", ".qrels")
    shutil.copy(_write(tmp_path / "qa", ["q1 0 d1 1", "q1 0 d2 0"]), qrels)
    run = _write(tmp_path / "a.run", ["q1 Q0 d1 1 1 t", "q1 Q0 d2 2 0.5 t"])
    for fmt in ("text", "markdown", "json"):
        out = tmp_path / f"e.{fmt}"
        assert main(["eval", "--qrels", qrels, run, "-m", "AP", "--format", fmt, "-o", str(out), "--quiet"]) == 0
        written = out.read_text(encoding="utf-8")
        assert "q\\xff.qrels" in (" ".join(_strings(json.loads(written))) if fmt == "json" else written)
    f = _files(tmp_path)
    docs = _undecodable(tmp_path, "d", ".tsv")
    shutil.copy(f["docs"], docs)
    argv = ["collection", "--documents", docs, "--queries", f["queries"], "--qrels", f["qrels"]]
    assert main([*argv, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "c"), "-q"]) == 0
    sources = json.loads((tmp_path / "c" / "sources.json").read_text(encoding="utf-8"))
    assert sources["documents"].endswith("d\\xff.tsv") and any(k.endswith("d\\xff.tsv") for k in sources["sha256"])
    capsys.readouterr()
