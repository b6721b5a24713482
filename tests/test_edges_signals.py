"""Trust at the edges (issue 40, items 8, 10, 11): a term-count file's count beyond ASCII digits or int64 is a
located one-line error; a SIGINT at any point of a command is status 130 and at most one line, never a traceback;
worker processes end with a parent killed by SIGKILL."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.docpsq import read_counts
from clirkit.errors import ClirkitError
from clirkit.retrieval.shards import load_index

SCRIPT = Path(sys.executable).with_name("clirkit")  # the console script, beside the venv's python
KILLED_BY_SIGINT = -signal.SIGINT  # Python's own exit for an interrupt it saw (bpo-1054041): a shell says 130


# 8. psq --background FILE -------------------------------------------------------------------------------------

BAD_COUNTS = {
    "superscript two": "\u00b2",
    "arabic-indic digits": "\u0663\u0664",
    "400 digits": "9" * 400,
    "5000 digits": "1" * 5000,
    "2**63": str(2**63),
}


@pytest.mark.parametrize("count", BAD_COUNTS.values(), ids=BAD_COUNTS.keys())
def test_a_count_beyond_ascii_digits_or_int64_is_a_located_error(tmp_path, count):
    path = tmp_path / "en.cnt"
    path.write_text(f"6 light\n{count} god\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"en\.cnt:2: (expected COUNT TOKEN|count .* is too large)"):
        read_counts(path, Analyzer("en"))
    path.write_text(f"6 light\n{2**63 - 1} god\n0007 lamp\n", encoding="utf-8")  # the largest int64, zeros
    counts, total = read_counts(path, Analyzer("en", stemmer=None))
    assert counts == {"light": 6, "god": 2**63 - 1, "lamp": 7} and total == 2**63 - 1 + 13


@pytest.mark.parametrize("count", ["\u00b2", "9" * 400], ids=["superscript two", "400 digits"])
def test_psq_background_with_a_bad_count_is_one_line_and_status_2(indexed_dir, capsys, count):
    from clirkit.translation import TranslationTable, save_table

    table = TranslationTable.from_triples(
        ["luz", "luz", "dios"],
        ["light", "lamp", "god"],
        [0.7, 0.3, 1.0],
        params={"source_lang": "es", "target_lang": "en"},
    )
    save_table(table, str(indexed_dir / "es2en.npz"))
    (indexed_dir / "q.tsv").write_text("q1\tgod light\n", encoding="utf-8")
    (indexed_dir / "bg.cnt").write_text(f"5 light\n{count} god\n", encoding="utf-8")
    argv = [
        "psq",
        "--index",
        str(indexed_dir / "ix.npz"),
        "--queries",
        str(indexed_dir / "q.tsv"),
        "--table",
        str(indexed_dir / "es2en.npz"),
        "--scoring",
        "lm",
        "--background",
        str(indexed_dir / "bg.cnt"),
        "--source-lang",
        "en",
        "-o",
        str(indexed_dir / "run.txt"),
        "-q",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.match(r"clirkit: error: \S*bg\.cnt:2: ", err), err


# 10. SIGINT ---------------------------------------------------------------------------------------------------


def _documents(folder: Path, n: int = 10) -> Path:
    docs = folder / "docs.tsv"
    docs.write_text(
        "".join(f"d{i:05d}\tla luz de dios y las aguas {i} sobre la tierra\n" for i in range(n)), encoding="utf-8"
    )
    return docs


def _child(code: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    """``code`` run as the command would run (SIGINT at Python's default handler, as from a terminal)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _interrupted(done, *, finished_ok: bool = False) -> None:
    """Status 130 (or killed by SIGINT; or 0 if ``finished_ok``) and at most one line on stderr, no traceback."""
    allowed = (130, KILLED_BY_SIGINT) + ((0,) if finished_ok else ())
    assert done.returncode in allowed, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) <= 1, done.stderr[-2000:]


# a SIGINT raised while importing MODULE (the first argument), in the command run as the console script runs it
# (sys.argv[0] "clirkit", clirkit.cli imported, main called) or as python -m clirkit runs it (runpy, "-m")
AT_IMPORT = """
    import importlib.abc, runpy, signal, sys

    wanted, entry = sys.argv.pop(1), sys.argv.pop(1)

    class Interrupt(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == wanted:
                signal.raise_signal(signal.SIGINT)
            return None

    sys.meta_path.insert(0, Interrupt())
    if entry == "script":
        sys.argv[0] = "clirkit"
        sys.orig_argv = [sys.executable, *sys.argv]  # as the console script is started
        from clirkit.cli import main
        sys.exit(main())
    sys.argv[0] = "-m"
    runpy.run_module("clirkit", run_name="__main__", alter_sys=True)
"""


# (as the script, threading is imported by clirkit/__init__.py before its early handler is set: not here)
@pytest.mark.parametrize(
    "entry, module",
    [
        ("script", "clirkit.cli"),
        ("-m", "clirkit.cli"),
        ("-m", "threading"),
        ("script", "clirkit.cli.index"),
        ("-m", "clirkit.cli.index"),
        ("script", "clirkit.retrieval.index"),
        ("-m", "clirkit.retrieval.index"),
        ("script", "clirkit.parallel"),
    ],
)
def test_a_sigint_while_the_command_imports_is_130_and_one_line(tmp_path, entry, module):
    docs = _documents(tmp_path)
    done = _child(
        AT_IMPORT, module, entry, "index", str(docs), "-o", "ix.npz", "--lang", "es", "--jobs", "2", "-q", cwd=tmp_path
    )
    _interrupted(done)
    assert done.stderr == "clirkit: interrupted\n" or done.returncode == KILLED_BY_SIGINT, done.stderr


# a SIGINT once the work is over: right after main returns (the manifest switched, the status set), or from an
# atexit callback (as Python exits: the workers' shutdown, the threads joined)
AFTER_WORK = """
    import atexit, signal, sys

    when = sys.argv.pop(1)
    sys.argv[0] = "clirkit"
    sys.orig_argv = [sys.executable, *sys.argv]  # as the console script is started
    import clirkit.cli
    from clirkit.cli import main

    if when == "atexit":  # registered during the work, as a verb's imports register the workers' shutdown
        work = clirkit.cli._call

        def registering(args):
            atexit.register(signal.raise_signal, signal.SIGINT)
            return work(args)

        clirkit.cli._call = registering
    status = main()
    if when == "returned":
        signal.raise_signal(signal.SIGINT)
    sys.exit(status)
"""


@pytest.mark.slow
@pytest.mark.parametrize("when", ["returned", "atexit"])
def test_a_sigint_after_the_last_step_is_130_and_the_index_whole(tmp_path, when):
    docs = _documents(tmp_path)
    done = _child(
        AFTER_WORK, when, "index", str(docs), "-o", "ix.npz", "--lang", "es", "--shards", "2", "-q", cwd=tmp_path
    )
    assert done.returncode == 130 and done.stderr == "clirkit: interrupted\n", (done.returncode, done.stderr)
    assert main(["index", str(docs), "-o", str(tmp_path / "again.npz"), "--lang", "es", "--shards", "2", "-q"]) == 0
    shards = sorted(tmp_path.glob("ix.shard-*.npz"))  # the index was written whole before the signal
    assert [p.name.replace("ix", "again", 1) for p in shards] == [p.name for p in sorted(tmp_path.glob("again.s*"))]
    assert all(p.read_bytes() == p.with_name(p.name.replace("ix", "again", 1)).read_bytes() for p in shards)
    assert load_index(tmp_path / "ix.npz").n_docs == 10


def _send_sigint_after(argv: list[str], delay: float, cwd: Path) -> subprocess.CompletedProcess:
    child = subprocess.Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    return subprocess.CompletedProcess(argv, child.returncode, "", err)


def _outside_the_command(stderr: str) -> str | None:
    """Where a traceback comes from when no code of the command (clirkit/__main__.py, clirkit/cli) had run yet:
    ``"site"``, Python's start-up (the site module, here with the editable install's .pth finder, ~30 ms: CPython's
    own fatal error), or ``"package"``, clirkit/__init__.py's imports before it sets its early handler (as the
    script) or runpy locating clirkit.__main__ (``-m``, the package seeing ``-m`` as sys.argv[0]); else None."""
    if "Traceback" not in stderr:
        return None
    if "init_import_site" in stderr or "<frozen site>" in stderr:
        return "site"
    frames = [line for line in stderr.splitlines() if line.strip().startswith("File ")]
    ours = [f for f in frames if "/clirkit/" in f and "site-packages" not in f]
    if all(
        f.endswith('clirkit/__init__.py", line 23, in <module>') or "clirkit/__init__.py" in f for f in ours
    ) and not any("clirkit/__main__.py" in f or "clirkit/cli" in f for f in frames):
        return "package"
    return None


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["script", "-m"])
def test_a_sigint_at_any_delay_is_130_or_done_and_at_most_one_line(tmp_path, entry):
    docs = _documents(tmp_path)
    command = [str(SCRIPT)] if entry == "script" else [sys.executable, "-m", "clirkit"]
    argv = [*command, "index", str(docs), "-o", "ix.npz", "--lang", "es", "--shards", "2", "-q"]
    package = []
    for delay in (0.0, 0.005, 0.02, 0.1, 0.3):
        done = _send_sigint_after(argv, delay, tmp_path)
        where = _outside_the_command(done.stderr)
        if where == "package":
            package.append(delay)
        elif where is None:
            _interrupted(done, finished_ok=True)
    if package:  # known: clirkit/__init__.py (import signal, threading; "-m" unrecognised), not cli or __main__
        pytest.xfail(f"a SIGINT at {package} s landed in clirkit/__init__.py before its early handler")


def test_a_ctrl_c_to_the_process_group_while_workers_start_is_one_line(tmp_path):
    """A terminal's Ctrl-C reaches the whole process group: the loky workers start with SIGINT blocked (the command
    ends them), so none prints a traceback from its imports (10-38 lines before, second edge test P2-3)."""
    docs = tmp_path / "docs.tsv"
    docs.write_text(
        "".join(
            f"d{i:06d}\tla luz {i % 997} de dios {i % 313} y las aguas {i} sobre la tierra\n" for i in range(200_000)
        ),
        encoding="utf-8",
    )
    argv = [sys.executable, "-m", "clirkit", "index", str(docs), "-o", "ix.npz", "--lang", "es", "--jobs", "2", "-q"]
    for delay in (0.5, 1.0, 1.5):
        child = subprocess.Popen(
            argv,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own group, as a terminal's job: the signal goes to every process of it
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        time.sleep(delay)
        os.killpg(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=120)
        assert (child.returncode, err) == (130, "clirkit: interrupted\n"), (delay, err[-2000:])
        assert not (tmp_path / "ix.npz").exists()


# 11. workers end with their parent ----------------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    try:
        import psutil
    except ImportError:  # /proc: every process whose parent chain reaches pid
        parents = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        found, frontier = [], [pid]
        while frontier:
            kids = [p for p, parent in parents.items() if parent in frontier]
            found += kids
            frontier = kids
        return found
    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


KILLED = {
    "index --shards 2 --jobs 2": ["index", "big.tsv", "-o", "ix.npz", "--lang", "es", "--shards", "2", "--jobs", "2"],
    # its documents are tokenized in 2 workers at its default --jobs 1 (round 8: 4 processes left for minutes)
    "boost-train": ["boost-train", "--queries", "q.tsv", "--qrels", "q.qrels", "--documents", "big.tsv"]
    + ["--source-lang", "en", "--target-lang", "es", "--rounds", "5", "-o", "bt.npz"],
    # a script: the analyzer's tokenizing workers (joblib's default backend) were left for minutes (round 12)
    "Analyzer.tokenize_many from Python": [
        "python",
        "-c",
        "from clirkit.analysis import Analyzer\n"
        "texts = open('big.tsv', encoding='utf-8').read().splitlines() * 4\n"
        "Analyzer('es').tokenize_many(texts, jobs=2)\n",
    ],
}


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("verb", KILLED)
def test_workers_end_with_a_command_killed_by_sigkill(tmp_path, verb):
    docs = tmp_path / "big.tsv"
    words = [f"w{i}" for i in range(3000)]
    with open(docs, "w", encoding="utf-8") as f:
        for i in range(40000):
            f.write(f"d{i:06d}\t{' '.join(words[(i * 7 + k * 13) % 3000] for k in range(30))}\n")
    (tmp_path / "q.tsv").write_text("".join(f"q{i}\tw{i} w{i + 5}\n" for i in range(20)), encoding="utf-8")
    (tmp_path / "q.qrels").write_text("".join(f"q{i} 0 d{i:06d} 1\n" for i in range(20)), encoding="utf-8")
    argv = KILLED[verb]
    argv = [sys.executable, *argv[1:]] if argv[0] == "python" else [str(SCRIPT), *argv, "-q"]
    child = subprocess.Popen(
        argv,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            workers = _descendants(child.pid)
            if len(workers) >= 2:  # two tokenizing workers (and loky's resource trackers)
                break
            time.sleep(0.05)
        assert child.poll() is None and len(workers) >= 2, "the index ended before its workers were seen"
        time.sleep(0.3)
        workers = sorted(set(workers) | set(_descendants(child.pid)))
        child.send_signal(signal.SIGKILL)
        child.wait()
        deadline = time.monotonic() + 5  # the grace period
        while time.monotonic() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)], "workers outlived their parent"
    finally:
        for p in [p for p in workers if _alive(p)]:  # a failed test leaves nothing behind
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


# 14. Ctrl-C reaches the whole process group: the workers stay silent, the one line says what was kept -----------

WORKER = """
    import os, signal, sys

    signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, which the command replaces
    sys.argv[0] = os.environ["ARGV0"]  # a worker process (loky, spawn) is given the command's sys.argv
    import clirkit

    print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


@pytest.mark.parametrize("argv0", ["/venv/bin/clirkit", "/site-packages/clirkit/__main__.py"])
def test_a_worker_given_the_commands_argv_keeps_the_default_sigint_handler(tmp_path, monkeypatch, argv0):
    monkeypatch.setenv("ARGV0", argv0)
    done = _child(WORKER, cwd=tmp_path)
    assert done.stdout == "True\n", done.stderr


def test_an_interrupted_run_says_it_kept_the_work_for_the_next_run(mini, tmp_path, monkeypatch, capsys):
    from clirkit.experiment import runner

    made = []

    def make(self, name):
        if made:
            raise KeyboardInterrupt
        made.append(name)
        return real(self, name)

    real = runner.Runner.make
    monkeypatch.setattr(runner.Runner, "make", make)
    path = tmp_path / "exp.toml"
    path.write_text(
        f'collection = "{mini}"\n[systems.DT]\nkind = "dt"\n[systems.PSQ]\nkind = "psq"\n', encoding="utf-8"
    )
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 130
    partial = tmp_path / ".out.partial"
    assert capsys.readouterr().err == (
        f"clirkit: interrupted; the work done so far is kept in {partial}; the same command resumes it\n"
    )
    assert (partial / "runs" / "dt.test.run.gz").exists() and not (tmp_path / "out").exists()
    monkeypatch.setattr(runner.Runner, "make", real)
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 0 and not partial.exists()


_LANDS_IN_THE_PACKAGE = """import sys

def interrupt_the_first_check(frame, event, arg):  # a Ctrl-C whose handler runs at clirkit/__init__.py's first call
    if event == "call" and frame.f_code.co_name == "_is_the_command":
        sys.settrace(None)
        raise KeyboardInterrupt
    return None

sys.settrace(interrupt_the_first_check)
import clirkit
print("not interrupted")
"""


@pytest.mark.parametrize("command", [True, False], ids=["the-command", "a-library"])
def test_a_ctrl_c_landing_in_the_packages_first_lines_is_one_line_for_the_command(tmp_path, command):
    """The window the xfail above meets: a KeyboardInterrupt raised in clirkit/__init__.py before its early handler
    is set. The command says its one line (status 130); a program importing clirkit as a library gets the
    KeyboardInterrupt as Python raises it."""
    script = tmp_path / ("clirkit" if command else "program.py")
    script.write_text(_LANDS_IN_THE_PACKAGE, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    if command:
        assert (done.returncode, done.stdout, done.stderr) == (130, "", "clirkit: interrupted\n")
    else:
        assert done.returncode == -signal.SIGINT and done.stderr.rstrip().endswith("KeyboardInterrupt")


def test_a_ctrl_c_while_numba_holds_its_compiler_lock_waits_for_its_release(monkeypatch):
    """Raised inside numba's compiling or its loading of cached machine code, a Ctrl-C could leave a half-made
    kernel whose call crashed the process (segmentation fault on Ctrl-C in psq): the command's Ctrl-C is held
    until numba releases its compiler lock, then raised; another SIGINT handler (a library's caller) is left as
    it is."""
    pytest.importorskip("numba")
    from numba.core.compiler_lock import global_compiler_lock

    import clirkit.cli as cli
    from clirkit import jit

    jit._hold_interrupts_while_compiling()  # as jit.kernels does when it first imports a module of kernels
    monkeypatch.setattr(cli, "_interrupted", False)
    previous = signal.signal(signal.SIGINT, cli._interrupt)
    try:
        reached = []
        with pytest.raises(KeyboardInterrupt):
            with global_compiler_lock:
                with global_compiler_lock:  # re-entrant: held to the last release
                    signal.raise_signal(signal.SIGINT)
                    reached.append("inner")
                reached.append("outer")
        assert reached == ["inner", "outer"] and signal.getsignal(signal.SIGINT) is cli._interrupt
    finally:
        signal.signal(signal.SIGINT, previous)
    with pytest.raises(KeyboardInterrupt):  # Python's own handler: raised at once, inside
        with global_compiler_lock:
            signal.raise_signal(signal.SIGINT)
            reached.append("not reached")
    assert "not reached" not in reached


_INTERRUPTED_IN_C = """import sys


class PatchTheVerb:  # clirkit.cli's verb replaced, as it is imported, by one a C extension's import interrupts
    def find_spec(self, name, path, target=None):
        if name != "clirkit.cli":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            module._call = interrupted_in_c

        spec.loader.exec_module = exec_module
        return spec


def interrupted_in_c(args):
    import ctypes

    run = ctypes.pythonapi.PyRun_StringFlags  # what a C extension does to run Python code as it is imported
    run.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.py_object, ctypes.py_object, ctypes.c_void_p]
    run.restype = ctypes.py_object
    run(b"raise KeyboardInterrupt\\n", 257, {}, {}, None)  # 257: Py_file_input


sys.meta_path.insert(0, PatchTheVerb())
"""


def test_a_ctrl_c_landing_in_code_a_c_extension_runs_is_status_130_under_python_m(tmp_path):
    """CPython ends ``python -m`` killed by its own SIGINT (status -2, not 130) when a KeyboardInterrupt went through
    PyRun_String, as it does when a Ctrl-C lands in scipy's import (1 in about 15 Ctrl-Cs at 0.4-0.5 s into
    ``index --jobs 2`` on a loaded machine), however it was handled: the command ends with 130 itself."""
    (tmp_path / "sitecustomize.py").write_text(_INTERRUPTED_IN_C, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}  # its sitecustomize, imported as Python starts
    done = subprocess.run(
        [sys.executable, "-m", "clirkit", "datasets"], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path
    )
    assert (done.returncode, done.stderr) == (130, "clirkit: interrupted\n")
