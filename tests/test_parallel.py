"""clirkit.parallel: tasks run on joblib's loky or threading backend (or dask) and come back in task order."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from clirkit.errors import ClirkitError
from clirkit.parallel import BACKENDS, check_backend, run_tasks


def _square_and_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def _tasks(n: int) -> list:
    return [(_square_and_pid, (x,), {}) for x in range(n)]


@pytest.mark.parametrize("backend", ["loky", "threading"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_results_come_back_in_task_order_whatever_the_backend_and_workers(backend, jobs):
    done = run_tasks(_tasks(7), jobs=jobs, backend=backend)
    assert [square for square, _ in done] == [x * x for x in range(7)]


def test_one_job_or_one_task_runs_in_this_process():
    assert {pid for _, pid in run_tasks(_tasks(3), jobs=1, backend="loky")} == {os.getpid()}
    assert [pid for _, pid in run_tasks(_tasks(1), jobs=2, backend="loky")] == [os.getpid()]


def test_an_unknown_backend_names_the_backends():
    with pytest.raises(ClirkitError, match="unknown backend 'mpi'; choose one of loky, threading, dask"):
        run_tasks(_tasks(2), backend="mpi")
    with pytest.raises(ClirkitError, match="unknown backend"):
        check_backend("processes")
    for backend in BACKENDS:
        check_backend(backend)


def test_the_dask_backend_needs_a_scheduler():
    pytest.importorskip("dask.distributed")
    with pytest.raises(ClirkitError, match="--scheduler ADDRESS"):
        run_tasks(_tasks(2), backend="dask")


def _items_then_error(n: int):
    yield from range(n)
    raise ClirkitError("items.tsv:9: bad line")


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_ordered_stream_gives_each_item_with_its_result_in_order_reading_items_here(jobs):
    from clirkit.parallel import ordered_stream

    got = list(ordered_stream(_square_and_pid, range(11), jobs=jobs, argument=lambda x: x + 1))
    assert [(item, square) for item, (square, _) in got] == [(x, (x + 1) ** 2) for x in range(11)]
    assert ({pid for _, (_, pid) in got} == {os.getpid()}) == (jobs == 1)
    with pytest.raises(ClirkitError, match="items.tsv:9"):  # an error reading the items is raised to the caller
        list(ordered_stream(_square_and_pid, _items_then_error(5), jobs=jobs))


def test_active_backend_ends_loky_workers_with_the_parent_and_keeps_a_chosen_backend():
    from joblib import parallel_config

    from clirkit.parallel import active_backend, end_with_parent, loky_backend

    assert active_backend().backend_kwargs["initializer"] is end_with_parent  # joblib's default: plain loky
    with parallel_config(backend="loky"):
        assert active_backend().backend_kwargs["initializer"] is end_with_parent
    with parallel_config(backend="threading"):
        assert active_backend() is None  # the caller's choice stands
    with parallel_config(backend=loky_backend()):
        assert active_backend() is None  # already ends with its parent (the command's)


@pytest.mark.parametrize("address", ["garbage", " "])
def test_a_malformed_scheduler_address_is_one_line_at_once(address):
    """(Edge round 12, finding 7: the error, then 60 s of nothing and an "Exception ignored ... Traceback" from the
    half-made Client's __del__.)"""
    pytest.importorskip("dask.distributed")
    code = (
        "from clirkit.errors import ClirkitError\nfrom clirkit.parallel import run_tasks\n"
        f"try:\n    run_tasks([(print, (1,), {{}})] * 2, jobs=2, backend='dask', scheduler={address!r})\n"
        "except ClirkitError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=40)
    assert (
        done.stdout == f"cannot reach the dask scheduler at {address!r}: missing port number in address {address!r}\n"
    )
    assert done.stderr == ""


def _imported_here(module: str) -> tuple[bool, int]:
    return module in sys.modules, os.getpid()


def test_workers_started_import_the_modules_while_the_block_runs():
    from clirkit.parallel import end_workers, workers_started

    end_workers()  # fresh workers: none has imported the module yet
    try:
        with workers_started(2, ("clirkit.boost.bagging", "no_such_module_of_clirkit")):
            started = os.getpid()  # the block runs here, the workers start meanwhile
        assert started == os.getpid()
        seen = run_tasks([(_imported_here, ("clirkit.boost.bagging",), {}) for _ in range(4)], jobs=2)
        assert all(imported for imported, _ in seen)
        assert os.getpid() not in {pid for _, pid in seen}
    finally:
        end_workers()


def _sign(folder: str) -> None:
    open(os.path.join(folder, str(os.getpid())), "w").close()


def test_workers_started_warm_each_worker_once(tmp_path):
    """One start-up task per worker, not two in the worker that started first (each waits for the others)."""
    from functools import partial

    from clirkit.parallel import end_workers, workers_started

    end_workers()  # fresh workers, starting one after the other
    try:
        with workers_started(2, (), warm=partial(_sign, str(tmp_path))):
            pass
        signed = {int(name) for name in os.listdir(tmp_path)}
        assert len(signed) == 2 and os.getpid() not in signed
    finally:
        end_workers()


def test_the_boosting_warm_up_reads_the_kernels_a_bag_calls():
    """After warm_kernels, a bag of real size and the dev ranking compile or read no kernel signature more."""
    code = """
import sys, numpy as np
from clirkit.boost import pairmap
if pairmap.kernels() is None:
    print("no numba"); sys.exit(0)
from clirkit.boost.bagging import warm_kernels
warm_kernels()
import clirkit.boost.kernels as bk, clirkit.retrieval.kernels as rk
def signatures():
    found = {(m.__name__, n): getattr(m, n) for m in (bk, rk) for n in dir(m)}
    return {k: len(f.signatures) for k, f in found.items() if hasattr(f, "signatures")}
before = signatures()
from clirkit.boost import BoostRanker
rng = np.random.default_rng(0)
words = [f"w{i}" for i in range(300)]
queries = {f"q{i}": list(rng.choice(words, 4)) for i in range(60)}
docs = [list(rng.choice(words, 30)) for _ in range(200)]
ids = [f"d{i}" for i in range(200)]
from clirkit.run import Qrels
qrels = Qrels(np.array(list(queries)), np.array([ids[(7 * i) % 200] for i in range(60)]), np.ones(60, np.int64))
dev = {q: queries[q] for q in list(queries)[:20]}
BoostRanker.from_flat(rounds=30, quiet=True).fit_tokens(queries, qrels, ids, docs, dev_queries=dev, dev_qrels=qrels)
after = signatures()
print(sorted(k for k in after if after[k] != before.get(k, 0)))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() in ("[]", "no numba")


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_workers_started_does_nothing_for_one_job_and_passes_an_error_on():
    from clirkit.parallel import end_workers, workers_started

    with workers_started(1, ("clirkit.boost.bagging",)):
        pass
    with pytest.raises(ClirkitError, match="in the block"):
        with workers_started(2, ()):
            raise ClirkitError("in the block")
    done = run_tasks(_tasks(3), jobs=2)
    assert [square for square, _ in done] == [0, 1, 4]
    end_workers()
