"""Outputs and their inputs at their edges (re-check of edge test 9): ``aggregate --tune`` and a Python fusion
refuse dev runs of which any one has the tag of another run (a partial swap, not only a full one); an experiment's
``kind = "psq"`` places a ``table2`` text file without languages by its words, as ``clirkit psq`` does."""

from __future__ import annotations

import pytest
from test_edges_round9_outputs import _aggregate, _runs, refused_first_swapped
from test_experiment import kept_run
from test_psq_table_file_side import _reverse_table

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment, run_experiment
from clirkit.fileio import atomic_writer, written_together
from clirkit.formats import read_qrels, read_run
from clirkit.fusion.system import crossed_pair
from clirkit.run import first_bad_id
from clirkit.systems import Fusion

# ------------------------------------------------------------------ 10. dev runs paired with the runs: partial swaps


@pytest.mark.parametrize(
    "tags, dev_tags, crossed",
    [
        (("DT", "PSQ", "X"), ("PSQ", "DT", "Y"), (0, 1)),  # two swapped, the third tagged by another tool
        (("DT", "PSQ", "X"), ("DT", "X", "Y"), (1, 2)),  # the second has the third's tag
        (("DT", "PSQ"), ("PSQ", "PSQ"), (0, 1)),  # two dev runs of one run
        (("DT", "PSQ", "X"), ("PSQ", "X", "DT"), (0, 1)),  # a full permutation, as before
        (("DT", "PSQ", "X"), ("DT", "PSQ", "X"), None),
        (("DT", "PSQ", "X"), ("a", "b", "c"), None),  # other tools' tags
        (("DT", "PSQ", "X"), ("DT", "b", "X"), None),
        (("clirkit", "clirkit"), ("clirkit", "clirkit"), None),  # the runs' tags repeat: they say nothing
        (("clirkit", "clirkit", "X"), ("X", "clirkit", "clirkit"), None),
    ],
)
def test_crossed_pair_finds_any_dev_run_with_the_tag_of_another_run(tags, dev_tags, crossed):
    assert crossed_pair(tags, dev_tags) == crossed


def _three(tmp_path, dev_tags):
    """Three test runs (DT, PSQ, X) and their dev runs tagged ``dev_tags``: on dev, the second system finds the
    relevant document, the third never does."""
    runs, devs, qrels = _runs(tmp_path, ("DT", "PSQ"), dev_tags[:2])
    (tmp_path / "t2.run").write_text("t Q0 x2 1 5 X\n", encoding="utf-8")
    (tmp_path / "d2.run").write_text(f"q Q0 bad 1 3 {dev_tags[2]}\n", encoding="utf-8")
    return [*runs, str(tmp_path / "t2.run")], [*devs, str(tmp_path / "d2.run")], qrels


def test_aggregate_tune_refuses_a_partial_swap_of_dev_runs(tmp_path, capsys):
    refused_first_swapped(tmp_path, capsys, *_three(tmp_path, ("PSQ", "DT", "Y")))


def test_aggregate_tune_still_pairs_three_runs_in_order_with_another_tag(tmp_path, capsys):
    runs, devs, qrels = _three(tmp_path, ("DT", "PSQ", "Y"))
    assert main(_aggregate(tmp_path, runs, devs, qrels)[:-1]) == 0  # without -q: the sweep is printed
    assert "best weights 0, 0.9, 0.1 " in capsys.readouterr().out  # the first system gets no weight


def test_a_fusion_refuses_runs_partly_swapped(tmp_path):
    runs, devs, qrels = _three(tmp_path, ("DT", "PSQ", "Y"))  # the third retagged on dev
    fusion = Fusion().fit_runs([read_run(p) for p in devs], read_qrels(qrels))
    test = [read_run(p) for p in runs]
    with pytest.raises(ClirkitError, match=r"^run 1 \(tag 'PSQ'\) is paired with dev run 1 \(tag 'DT'\), which has "):
        fusion.fuse([test[1], test[0], test[2]])


# ------------------------------------------------------------------ 9. psq: a table2 without languages


@pytest.mark.parametrize("padded", [False, True], ids=["its words", "the parallel text's words"])
def test_a_languageless_text_table2_from_the_documents_language_translates_the_documents(mini, tmp_path, padded):
    """``kind = "psq"`` (IBM Model 1 first) with a ``table2`` Moses text file from the documents' language that says
    no languages translates the documents, as ``clirkit psq --table F2E --table2 FILE`` does (re-check of edge test
    9, new problem 9: it went to the query side, AP .2593 against the command's .2822). Padded with pairs of words
    of neither language, the index's terms are too few of its words to place it, and the parallel text's place it."""
    q, table = _reverse_table(mini, tmp_path, "es-en.npz")
    second = tmp_path / "second.lex"
    assert main(["ttable", "convert", str(table), "-o", str(second), "-q"]) == 0
    if padded:
        lines = second.read_text(encoding="utf-8").splitlines(keepends=True)
        words = {line.split()[1] for line in lines}  # its source words (Moses: e f p)
        junk = [f"zq{i}x zr{i}y 1.0\n" for i in range(4 * len(words))]
        second.write_text("".join(lines + junk), encoding="utf-8")
    path = tmp_path / "x.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.PSQ]\nkind = "psq"\ntable2 = "{second}"\n',
        encoding="utf-8",
    )
    run_experiment(Experiment.read(path), tmp_path / "o", quiet=True)
    reverse = tmp_path / "o" / "table.reverse.npz"
    assert reverse.is_file()  # IBM Model 1 trained from the documents' side: the documents are translated
    args = ["psq", "--index", str(tmp_path / "ix.npz"), "--table", str(reverse), "--table2", str(second), "-q"]
    assert main([*args, "--queries", q, "-o", str(tmp_path / "cli.run")]) == 0
    assert (tmp_path / "cli.run").read_bytes() == kept_run(tmp_path / "o" / "runs" / "psq.test.run.gz")


# ------------------------------------------------------------------ R3. two outputs: a Ctrl-C during the renames


def test_a_ctrl_c_during_the_renames_of_written_together_waits_until_all_are_renamed(tmp_path, monkeypatch):
    """(Re-check of edge test 9, R3: a Ctrl-C between two renames left the first output written and the second
    removed.) The Ctrl-C comes after the last rename: both files are there, whole."""
    import os
    import signal
    import threading

    import clirkit.fileio

    replace = os.replace

    def interrupted(src, dst):
        replace(src, dst)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    monkeypatch.setattr(clirkit.fileio.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        with written_together():
            for name in ("a.txt", "b.txt"):
                with atomic_writer(tmp_path / name) as f:
                    f.write(name)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "b.txt"


# ------------------------------------------------------------------ R8. the docid check of every index load


def test_plain_ids_are_checked_without_a_look_at_each_row(monkeypatch):
    """(Re-check of edge test 9, R8: the check of every index load took 0.6 s for 8.8 M ids, a lookup of every
    code point row by row; now ids with no code point that could be a problem are passed on all their code points at
    once: 5 M ids in 0.02 to 0.07 s instead of 0.4 to 0.8 s.)"""
    import numpy as np

    def row_by_row(*args, **kwargs):
        raise AssertionError("looked up row by row")

    monkeypatch.setattr(np, "isin", row_by_row)
    assert first_bad_id(np.array([f"doc-{i:06d}" for i in range(250_000)])) is None


@pytest.mark.parametrize(
    "bad, problem",
    [
        ("", "is empty"),
        ("a b", "contains whitespace"),
        ("a\u3000b", "contains whitespace"),
        ("a\x85b", "contains whitespace"),
        ("a\x00b", "contains a NUL character"),
        ("x" * 1001, "is longer than 1,000 characters"),
        ("a\x01b", None),  # a control character that is no whitespace
        ("ñ\u00a0", "contains whitespace"),
    ],
)
def test_the_first_bad_id_is_found_in_any_slice(bad, problem, monkeypatch):
    import numpy as np

    import clirkit.runinputs

    monkeypatch.setattr(clirkit.runinputs, "_ID_SLICE", 10)
    ids = [f"d{i:07d}" for i in range(30)] + ["é"]  # a code point that is looked at closer, and is fine
    at = 17
    ids[at] = bad
    ids[at + 1] = "late one"  # the first is said
    found = first_bad_id(np.array(ids))
    assert found == ((at, problem) if problem is not None else (at + 1, "contains whitespace"))


# ------------------------------------------------------------------ R14. a run to re-score, checked on its ids


def _data(docids):
    from clirkit.cli.data import Data

    return Data({"q1": "light", "q2": "water"}, None, (docids, ["x"] * len(docids)), None, None, "en", "es", None)


class _Ids(list):
    """Document ids that refuse to be copied into a numpy array."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("a second copy of every docid")


def test_a_run_to_rescore_is_checked_without_a_copy_of_the_docids(tmp_path):
    from clirkit.cli.data import read_run_of

    path = tmp_path / "c.run"
    path.write_text("q1 Q0 d2 1 2 t\nq2 Q0 d1 1 2 t\n\nq2 Q0 d9 2 1 t\n", encoding="utf-8")
    data = _data(_Ids(["d1", "d2", "d3"]))
    with pytest.raises(ClirkitError) as caught:
        read_run_of(str(path), data)
    assert str(caught.value) == (
        f"{path}:4: document 'd9' is not among the documents: give a run of these queries over these documents"
    )
    path.write_text("q1 Q0 d2 1 2 t\nq2 Q0 d1 1 2 t\n", encoding="utf-8")
    assert read_run_of(str(path), data).docids.tolist() == ["d2", "d1"]


def test_a_run_to_rescore_that_changed_since_it_was_read_still_says_what_was_found(tmp_path, monkeypatch):
    """(The fallback said only "names a query or a document not among those given".)"""
    import clirkit.fileio
    from clirkit.cli.data import read_run_of

    path = tmp_path / "c.run"
    path.write_text("q1 Q0 d2 1 2 t\nq7 Q0 d1 1 2 t\n", encoding="utf-8")
    monkeypatch.setattr(clirkit.fileio, "iter_lines", lambda *args, **kwargs: iter(()))  # emptied meanwhile
    with pytest.raises(ClirkitError) as caught:
        read_run_of(str(path), _data(["d1", "d2"]))
    assert (
        str(caught.value)
        == f"{path}: query 'q7' is not among the queries: give a run of these queries over these documents"
    )
