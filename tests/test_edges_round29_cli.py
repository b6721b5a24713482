"""Edge round 29 (an independent test of the command line and the Python API): counts too large for numpy to
address are the one-line out-of-memory error, not a traceback; a boosting step that overflows the tuple weights
stops the boosting without numpy's warnings and says so under --quiet too."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from clirkit.boost.loop import boost
from clirkit.boost.rounds import PairBooster
from clirkit.boost.tuples import Tuples
from clirkit.errors import too_big_as_memory


@pytest.mark.parametrize(
    "make", [lambda: np.zeros((2**40, 2**40)), lambda: np.random.default_rng(0).integers(0, 2, size=(3, 2**62))]
)
def test_an_array_too_big_to_address_is_a_memory_error(make):
    with pytest.raises(MemoryError, match=r"an array larger than memory can address \("):
        with too_big_as_memory():
            make()
    with pytest.raises(ValueError, match="other"), too_big_as_memory():
        raise ValueError("other")


def test_huge_negatives_from_python_are_a_memory_error():
    from clirkit.boost import BoostRanker
    from clirkit.run import Qrels

    queries = {"q1": ["a"], "q2": ["b"]}
    qrels = Qrels(np.array(["q1", "q2"]), np.array(["d1", "d2"]), np.ones(2, np.int64))
    with pytest.raises(MemoryError, match="larger than memory can address"):
        BoostRanker.from_flat(negatives=2**70, quiet=True).fit_tokens(queries, qrels, ["d1", "d2"], [["x"], ["y"]])


@pytest.mark.parametrize("option", [["--negatives", str(2**63 - 1)], ["--grade-pairs", str(2**63 - 1)]])
def test_boost_train_with_a_count_too_big_to_address_is_one_line(tmp_path, capsys, option):
    from clirkit.cli import main

    (tmp_path / "d.tsv").write_text("d1\tla casa\nd2\tun perro\nd3\tel gato\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\thouse\nq2\tdog\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("q1 0 d1 2\nq2 0 d2 1\n", encoding="utf-8")
    argv = ["boost-train", "--documents", str(tmp_path / "d.tsv"), "--queries", str(tmp_path / "q.tsv")]
    argv += ["--qrels", str(tmp_path / "r.txt"), "--source-lang", "en", "--target-lang", "es", "--rounds", "2"]
    assert main([*argv, *option, "-o", str(tmp_path / "m.npz"), "-q"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("clirkit: error: out of memory: an array larger than memory can address (")
        and err.count("\n") == 1
    )
    assert not (tmp_path / "m.npz").exists()


def test_a_step_that_overflows_the_weights_stops_boosting_without_numpys_warnings(capsys):
    Qm = sp.csr_matrix(np.eye(2))
    Dm = sp.csr_matrix(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]))
    tuples = Tuples.from_arrays(np.array([0, 1]), np.array([0, 1]), np.array([1, 2]))
    booster = PairBooster(Qm, Dm, tuples, src_hash=np.array([1, 2], np.uint32), tgt_hash=np.array([3, 4, 5], np.uint32))
    chosen = booster.choose()
    booster.choose = lambda: (chosen[0], -800.0, 1.0)  # a step exp(800 |x|) cannot hold
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = boost(booster, 5, quiet=True)
    assert len(result.alphas) == 0
    assert capsys.readouterr().err == (
        "boosting: stopped before round 1: its step (-800) overflowed the tuple weights (buckets of too many pairs: "
        "more hash bits)\n"
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["eval", "--help"]])
def test_help_or_version_to_an_unwritable_standard_output_is_one_line(argv):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "clirkit", *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120
        )
    assert (done.returncode, done.stderr) == (
        2,
        "clirkit: error: cannot write to the standard output: No space left on device\n",
    )


@pytest.mark.parametrize(
    "call", [lambda a: a.tokenize(None), lambda a: a.tokenize_many("abc"), lambda a: a.tokenize_many([None])]
)
def test_an_analyzer_given_what_is_no_text_is_a_clirkit_error_and_still_a_type_error(call):
    from clirkit.analysis import Analyzer
    from clirkit.errors import ClirkitError

    with pytest.raises(ClirkitError, match="expects a") as err:
        call(Analyzer("en"))
    assert isinstance(err.value, TypeError)


def test_a_clirkit_error_quoting_numpys_words_is_not_out_of_memory():
    from clirkit.errors import ClirkitError

    class Both(ClirkitError, ValueError):
        pass

    with pytest.raises(Both, match="unknown measure 'array is too big'"), too_big_as_memory():
        raise Both("unknown measure 'array is too big'")


def test_help_with_the_standard_output_closed_goes_to_stderr_as_before():
    done = subprocess.run(
        [sys.executable, "-m", "clirkit", "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert done.returncode == 0
    closed = subprocess.run(
        f"{sys.executable} -m clirkit --version >&-", shell=True, stderr=subprocess.PIPE, text=True, timeout=120
    )
    assert (closed.returncode, closed.stderr) == (0, "clirkit 0.2.0\n")


def test_eval_shows_the_progress_of_long_randomization_tests_unless_quiet(tmp_path, capsys, monkeypatch):
    import clirkit.report
    from clirkit.cli import main

    qrels, one, two = tmp_path / "q.qrels", tmp_path / "one.run", tmp_path / "two.run"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(30)), encoding="utf-8")
    one.write_text("".join(f"q{i} Q0 d{i} 1 2.0 a\nq{i} Q0 x 2 1.0 a\n" for i in range(30)), encoding="utf-8")
    two.write_text("".join(f"q{i} Q0 x 1 2.0 b\nq{i} Q0 d{i} 2 1.0 b\n" for i in range(30)), encoding="utf-8")
    argv = ["eval", "--qrels", str(qrels), str(one), str(two), "--permutations", "1000", "-m", "AP"]
    assert main(argv) == 0
    assert "randomization tests" not in capsys.readouterr().err  # 30,000 cells: not long
    monkeypatch.setattr(clirkit.report, "LONG_TESTS", 29_999)
    assert main(argv) == 0
    assert "randomization tests" in capsys.readouterr().err
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_the_randomization_test_reports_each_block_of_sign_vectors_it_weighs():
    import numpy as np

    from clirkit.significance import randomization_test

    rng = np.random.default_rng(0)
    a, b = rng.random(40), rng.random(40)
    seen: list[int] = []
    plain = randomization_test(a, b, permutations=300_000, seed=3)
    assert randomization_test(a, b, permutations=300_000, seed=3, advance=seen.append) == plain
    assert sum(seen) == 300_000 and len(seen) > 1  # blocks, each said as it is done
    seen.clear()
    assert randomization_test(a[:12], b[:12], permutations=10**9, advance=seen.append).permutations == 4096
    assert sum(seen) == 4096  # all 2^12 enumerated
