"""Edge round 28 (an independent test of the command line): an output folder with no name of its own (``-o .``,
``-o /``) is a one-line error, not a traceback from the resume note; a standard output that cannot be written
(``> /dev/full``) is a one-line error with status 2, whatever the verb writes there (a report, a run)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.experiment.store import staging

FULL = "/dev/full"


@pytest.mark.parametrize("folder", [".", "./", "/", ".."])
def test_staging_of_a_folder_with_no_name_is_a_one_line_error(folder):
    from clirkit.errors import ClirkitError

    with pytest.raises(ClirkitError, match="give a folder name for the output"):
        staging(folder)


@pytest.mark.parametrize("folder", [".", "/"])
def test_run_into_a_folder_with_no_name_says_so_in_one_line(tmp_path, capsys, folder, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--show"]) == 0
    (tmp_path / "x.toml").write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["run", "x.toml", "-o", folder, "-q"]) == 2
    err = capsys.readouterr().err
    assert err == f"clirkit: error: {folder}: give a folder name for the output (e.g. -o results)\n"
    assert sorted(os.listdir(tmp_path)) == ["x.toml"]


def _to_full(argv, cwd):
    with open(FULL, "w") as full:
        return subprocess.run(
            [sys.executable, "-m", "clirkit", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            timeout=120,
        )


@pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full on this system")
@pytest.mark.parametrize("verb", ["report", "run"])
def test_a_standard_output_that_cannot_be_written_is_a_one_line_error(tmp_path, verb):
    if verb == "report":
        argv = ["datasets", "list"]
    else:
        (tmp_path / "d.tsv").write_text("d1\tla casa\nd2\tun perro\n", encoding="utf-8")
        (tmp_path / "q.tsv").write_text("q1\tcasa\n", encoding="utf-8")
        assert main(["index", str(tmp_path / "d.tsv"), "--lang", "es", "-o", str(tmp_path / "ix.npz"), "-q"]) == 0
        argv = ["search", "--index", "ix.npz", "--queries", "q.tsv", "-o", "-", "-q"]
    done = _to_full(argv, tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        "clirkit: error: cannot write to the standard output: No space left on device\n",
    )


@pytest.mark.parametrize(
    "n, seed, error",
    [
        (-1, 0, ValueError),
        (float("nan"), 0, ValueError),
        (2.0, 0, ValueError),
        (True, 0, ValueError),
        (2, -1, ValueError),
        (2, 400.0, ValueError),
    ],
)
def test_sample_refuses_a_count_or_seed_that_is_not_a_whole_number(n, seed, error):
    from clirkit.experiment import sample

    with pytest.raises(error, match=r"sample: (n|seed) must be an integer >= 0"):
        sample({"q1": "a", "q2": "b", "q3": "c"}, n, seed=seed)


def test_sample_refuses_topics_that_are_not_a_mapping():
    from clirkit.experiment import sample

    with pytest.raises(TypeError, match="sample: topics must be a mapping"):
        sample(None, 2)
    assert sample({"q1": "a", "q2": "b", "q3": "c"}, 0) == {"q1": "a", "q2": "b", "q3": "c"}
    assert len(sample({"q1": "a", "q2": "b", "q3": "c"}, 2, seed=1)) == 2


def test_a_ctrl_c_during_a_kernel_call_acts_once_the_kernel_returned(monkeypatch):
    """A Ctrl-C raised while numba boxed a kernel's results (a tuple of arrays) left the tuple with empty slots,
    whose first use crashed the process (SIGSEGV on Ctrl-C in boost-train, search, dt, psq): the command's Ctrl-C
    is held for the whole call (jit.call, the compiled ranker), then raised, the results whole."""
    import signal
    import types

    import clirkit.cli as cli
    from clirkit import jit

    done = []

    def kernel(n):
        signal.raise_signal(signal.SIGINT)  # as if it arrived while the results were boxed
        done.append(n)
        return tuple(range(n))

    module = types.ModuleType("clirkit.fake_kernels")
    module.kernel = kernel
    monkeypatch.setitem(jit._modules, "clirkit.fake_kernels", module)
    monkeypatch.setattr(cli, "_interrupted", False)
    previous = signal.signal(signal.SIGINT, cli._interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            jit.call("clirkit.fake_kernels", "numpy", "kernel", 3)
        assert done == [3] and signal.getsignal(signal.SIGINT) is cli._interrupt
        with pytest.raises(KeyboardInterrupt):
            jit.held(kernel)(2)
        assert done == [3, 2] and signal.getsignal(signal.SIGINT) is cli._interrupt
        assert jit.held(lambda: "no signal")() == "no signal"
    finally:
        signal.signal(signal.SIGINT, previous)


CLEF_ES = '<topics>\n<topic lang="es">\n<identifier>1</identifier>\n<title>la casa</title>\n</topic>\n</topics>\n'
NTCIR_CH = (
    "<TOPICS>\n<TOPIC>\n<NUM>0001</NUM>\n<SLANG>CH</SLANG>\n<TLANG>EN</TLANG>\n<TITLE>x</TITLE>\n</TOPIC>\n</TOPICS>\n"
)


@pytest.mark.parametrize(
    "text, says",
    [
        (CLEF_ES, 'topic 1 is in es (lang="es"), not in en'),
        (NTCIR_CH, "topic 0001 is in zh (<SLANG>CH</SLANG>), not in en"),
    ],
)
def test_topics_declared_in_another_language_are_refused_not_read_as_the_callers(text, says):
    """Item 2 of issue 40, by the topic's own declaration: CLEF's lang attribute and NTCIR's <SLANG> were ignored,
    and the topics read as the queries' language (every word missed, no notice)."""
    from clirkit.errors import ClirkitError
    from clirkit.formats.topics import read_markup_topics

    with pytest.raises(ClirkitError, match=rf"^t.xml:2: {re.escape(says)}; choose one with --source-lang"):
        read_markup_topics("t.xml", text, ["title"], lang="en")
    declared = "zh" if "SLANG" in text else "es"
    assert len(read_markup_topics("t.xml", text, ["title"], lang=declared)) == 1
    assert len(read_markup_topics("t.xml", text, ["title"])) == 1  # no language asked: nothing to compare


def test_empty_queries_of_a_collection_are_said_under_quiet_too(tmp_path, capsys):
    (tmp_path / "d.tsv").write_text("d1\tla casa\nd2\tun perro\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tcasa\nq2\t\nq3\t   \n", encoding="utf-8")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d2 1\n", encoding="utf-8")
    argv = ["collection", "--documents", str(tmp_path / "d.tsv"), "--queries", str(tmp_path / "q.tsv"), "--qrels"]
    argv += [str(tmp_path / "qrels"), "--split", "test=1", "--source-lang", "es", "--target-lang", "es", "-q"]
    assert main([*argv, "-o", str(tmp_path / "col")]) == 0
    assert (
        capsys.readouterr().err == "col: 2 of the 3 test queries are empty (e.g. q2): they find nothing and score 0\n"
    )


def test_a_ctrl_c_cutting_the_import_of_numba_is_no_numba_failure(monkeypatch, capsys):
    """A Ctrl-C landing in numba's import can surface as another error (numpy: "PyCapsule_Import could not import
    module"): the command said "numba failed (...); ... with numpy" before its "interrupted" line."""
    import importlib

    import clirkit.cli as cli
    from clirkit import jit

    def cut(name, *args):
        monkeypatch.setattr(cli, "_interrupted", True)  # as the command's handler sets it
        raise SystemError("PyCapsule_Import could not import module")

    monkeypatch.setattr(importlib, "import_module", cut)
    monkeypatch.delitem(jit._modules, "clirkit.cut_kernels", raising=False)
    monkeypatch.delenv("CLIRKIT_NUMBA", raising=False)
    with pytest.raises(KeyboardInterrupt):
        jit.kernels("clirkit.cut_kernels", "numpy then")
    assert "numba failed" not in capsys.readouterr().err
    jit._modules.pop("clirkit.cut_kernels", None)


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda: _documents(None, None), "docids: expected a sequence of str, got None"),
        (lambda: _documents("d1", None), "docids: expected a sequence of str, got 'd1'"),
        (lambda: _documents(["d1"], 5), "texts: expected a sequence of str, got 5"),
        (lambda: _index_load(None), "expected the path of a clirkit index file (a str or a path), got None"),
        (lambda: _index_load(3), "expected the path of a clirkit index file (a str or a path), got 3"),
        (lambda: _analyzer(5), "stopwords: expected 'snowball', a list of words or None, got 5"),
    ],
)
def test_python_arguments_of_the_wrong_kind_are_one_line_naming_them(make, says):
    """Python's own errors ('NoneType' object is not iterable, os.stat's message) came out of Documents(None, None),
    Index.load(None) and Analyzer(stopwords=5); Index.load(3) read file descriptor 3."""
    from clirkit.errors import ClirkitError

    with pytest.raises(ClirkitError) as err:
        make()
    assert str(err.value) == says


def _documents(docids, texts):
    from clirkit.documents import Documents

    return Documents(docids, texts)


def _index_load(path):
    from clirkit.retrieval.index import Index

    return Index.load(path)


def _analyzer(stopwords):
    from clirkit.analysis import Analyzer

    return Analyzer("en", stopwords=stopwords)


def test_a_fusion_of_one_system_twice_is_refused_as_an_experiment_file_refuses_it():
    from clirkit.errors import ClirkitError
    from clirkit.run import Run
    from clirkit.systems import Fusion, Resources, RunFile

    run = Run.ranked(np.array(["q1", "q1"]), np.array(["d1", "d2"]), np.array([2.0, 1.0]))
    a, b = RunFile(run=run).fit(Resources()), RunFile(run=run).fit(Resources())
    with pytest.raises(ClirkitError, match=r"^systems: member 3 is member 1 again: list each fused system once$"):
        Fusion([a, b, a], method="borda").fit(Resources())
    assert len(Fusion([a, b], method="borda").fit(Resources()).search({"q1": "x"})) == 2


@pytest.mark.parametrize("bits, says", [(4, "give more bits (the default is 30)"), (20, None)])
def test_boost_train_out_of_memory_with_few_bits_asks_for_more_bits(monkeypatch, bits, says):
    """``boost-train --bits 1`` ran out of memory (a bucket holds half of all pairs) and was told to "ask for smaller
    sizes"; with few bits the advice is more bits, with many it is left to the generic message."""
    import argparse

    from clirkit.cli.boost_train import _fit
    from clirkit.errors import ClirkitError
    from clirkit.systems import Boost

    ranker = Boost.from_flat(bits=bits)

    def fit(resources):
        raise MemoryError("Allocation failed (probably too large).")

    monkeypatch.setattr(ranker, "fit", fit)
    args = argparse.Namespace(qrels=None, extra_tuples=None, parallel_tuples=False)
    with pytest.raises(ClirkitError if says else MemoryError) as err:
        _fit(ranker, None, args)
    if says:
        assert str(err.value) == (
            f"out of memory: Allocation failed (probably too large); --bits {bits} hashes every pair into "
            f"{2**bits} buckets, each too large to boost: {says}"
        )
