"""Running independent tasks in parallel: joblib's ``loky`` (worker processes) or ``threading`` backend, or
``dask`` on a distributed cluster.

A task is a ``(function, args, kwargs)`` triple (what ``joblib.delayed`` makes). :func:`run_tasks` gives
the results in task order whatever the backend and the number of workers, so what is made of them (a
bagged model, a merged run) is the same bytes however it ran. Bagging (:mod:`clirkit.boost.bagging`) and
the sharded search (:mod:`clirkit.retrieval.shardsearch`) run through it. joblib and dask are imported only when
tasks run in parallel.

Worker processes end with the process that started them: loky's workers (and so its resource trackers, which
end when their last client does) would otherwise outlive a parent killed by SIGKILL, idle for minutes.
:func:`loky_backend` gives joblib's loky backend with :func:`end_with_parent` as the workers' initializer;
:func:`run_tasks` uses it, and the command makes it joblib's backend for the whole run
(:func:`workers_end_with_parent`), so the tokenizing workers that other modules start through joblib end too.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from contextlib import contextmanager
from functools import partial
from typing import Any, Callable, Iterable, Iterator, Sequence

from clirkit.constraints import Constraint
from clirkit.errors import ClirkitError

BACKENDS = ("loky", "threading", "dask")
SEARCH_BACKEND = "threading"  # how --jobs workers search a sharded index unless told: blocks of queries

Task = tuple[Callable[..., Any], tuple, dict]


class Scheduler(Constraint):
    """A dask scheduler parameter: None (no scheduler), an address (a str that is not blank, ``tcp://host:8786``) or
    a ``distributed.Client`` (distributed is not imported here: a Client exists only once it is)."""

    def is_satisfied_by(self, val) -> bool:
        if val is None or isinstance(val, str):
            return val is None or bool(val.strip())
        distributed = sys.modules.get("distributed")
        return distributed is not None and isinstance(val, distributed.Client)

    def __str__(self) -> str:
        return "a dask scheduler's address (a str such as 'tcp://host:8786') or a distributed.Client"


def check_backend(backend: str) -> None:
    """ClirkitError unless ``backend`` is one of :data:`BACKENDS`."""
    if backend not in BACKENDS:
        raise ClirkitError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")


def check_workers(jobs, backend: str) -> None:
    """ClirkitError, before any work, unless ``jobs`` passes :func:`check_jobs` and ``backend`` is one of
    :data:`BACKENDS`."""
    check_jobs(jobs)
    check_backend(backend)


def check_jobs(jobs) -> None:
    """ClirkitError unless ``jobs`` is an integer >= 1 (a numpy integer too; not ``True``), as ``--jobs`` and an
    experiment's ``jobs`` are, or -1 (joblib's one per core, from Python)."""
    import numpy as np

    if isinstance(jobs, (bool, np.bool_)) or not isinstance(jobs, (int, np.integer)) or not (jobs >= 1 or jobs == -1):
        raise ClirkitError(f"jobs must be an integer >= 1 (or -1: one per core), got {jobs!r}")


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one, else the machine's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def processes(jobs: int) -> int:
    """The workers a pool of ``jobs`` (joblib's ``n_jobs``: -1 is one per core) starts: at most one per core
    (:func:`cores`), and 2 when more than one is asked on a machine of one core (the parallel path stays the one
    asked for). More would only share the cores, each with its start-up and memory (``--jobs 999`` on 2 cores
    started 999 processes of about 40 MB); the results do not depend on it."""
    from joblib import effective_n_jobs

    n = effective_n_jobs(jobs)
    return n if n <= 1 else min(n, max(cores(), 2))


def run_tasks(
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler=None,
    desc: str = "tasks",
    unit: str = "task",
    quiet: bool = True,
    share_arrays: bool = True,
    aborts: list | None = None,
) -> list:
    """The result of every task, in task order.

    Args:
        jobs: joblib workers (``n_jobs``, -1 for one per core); with one job, or one task, the tasks run
            here one after the other. The dask backend uses the cluster's workers whatever ``jobs`` is.
        backend: ``"loky"``, ``"threading"`` or ``"dask"``.
        scheduler: for dask, the scheduler's address (``"tcp://host:8786"``) or a ``distributed.Client``.
        desc, unit, quiet: the progress bar on stderr (none for one task).
        share_arrays: loky's workers read the tasks' arrays above 1 MB from memory-mapped files of a temporary
            folder (joblib's ``max_nbytes``) rather than receive them; without, they are sent (no folder: tasks
            run from a thread other than the main one, which a Ctrl-C can leave behind, leave none).
        aborts: a list given the function that stops the loky workers' tasks (this call then raises): what
            another thread calls to stop this one (joblib aborts so when the thread running it is interrupted).
    """
    check_backend(backend)
    if backend == "dask":
        return run_dask(tasks, scheduler)
    from clirkit.progress import progress

    if jobs == 1 or len(tasks) == 1:
        done = (function(*args, **kwargs) for function, args, kwargs in tasks)
    else:
        from joblib import Parallel

        chosen: Any = backend
        if backend == "loky":
            chosen = loky_backend()
            if aborts is not None:
                aborts.append(partial(chosen.abort_everything, ensure_ready=False))
        mapped = "1M" if share_arrays else None  # (joblib's default: arrays above 1 MB memory-mapped, not sent)
        done = Parallel(n_jobs=processes(jobs), backend=chosen, return_as="generator", max_nbytes=mapped)(tasks)
    return list(progress(done, desc=desc, total=len(tasks), quiet=quiet or len(tasks) == 1, unit=unit))


PARENT_POLL = 0.5  # seconds between a worker's looks at its parent process


def end_with_parent(parent: int) -> None:
    """The initializer of a worker process started by process ``parent``: the worker ends (status 1) as soon as
    it is no longer ``parent``'s child, which is when ``parent`` has ended, however (even by SIGKILL, which leaves
    no time for the executor's own shutdown). A daemon thread looks at the parent every :data:`PARENT_POLL`
    seconds; it changes nothing of what the worker computes."""
    import time

    if os.getppid() != parent:  # the parent ended while this worker was starting
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="clirkit-end-with-parent", daemon=True).start()


def workers_deaf_to_ctrl_c() -> None:
    """Start every loky worker process with SIGINT blocked, for the command (:func:`clirkit.cli.main`), which
    handles Ctrl-C and ends its workers itself: a Ctrl-C sent to the whole process group (the terminal's) no longer
    interrupts a worker while it imports numpy, which printed a traceback per worker. SIGINT is blocked in the
    starting thread around each start (a child keeps the blocked mask through exec); a Ctrl-C the command gets
    meanwhile is delivered when the mask is restored. Once per process; imports joblib."""
    import signal

    from joblib.externals.loky.backend import fork_exec as module

    start = module.fork_exec
    if getattr(start, "blocks_sigint", False) or not hasattr(signal, "pthread_sigmask"):
        return

    def fork_exec(cmd, keep_fds, env=None):
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return start(cmd, keep_fds, env=env)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)

    fork_exec.blocks_sigint = True  # type: ignore[attr-defined]
    module.fork_exec = fork_exec


def loky_backend():
    """joblib's loky backend whose workers end with this process (:func:`end_with_parent`)."""
    from joblib._parallel_backends import LokyBackend

    return LokyBackend(initializer=end_with_parent, initargs=(os.getpid(),))


def active_backend():
    """The joblib backend a ``Parallel`` given no backend should use: :func:`loky_backend` where joblib would
    start plain loky workers (its default, or a plain ``"loky"`` chosen by ``parallel_config``), so that a script
    killed while they work leaves none behind; otherwise ``None``, the backend the caller's ``parallel_config``
    chose (threading, dask, ...)."""
    from joblib._parallel_backends import LokyBackend
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    if isinstance(backend, LokyBackend) and "initializer" not in getattr(backend, "backend_kwargs", {}):
        return loky_backend()
    return None


class Background:
    """``function(*args)`` run in a daemon thread (which the process's exit does not wait for, after a Ctrl-C),
    its result or its error kept for :meth:`result`."""

    def __init__(self, function: Callable, *args) -> None:
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None

        def work() -> None:
            try:
                self._value = function(*args)
            except BaseException as e:  # (raised by result)
                self._error = e
            finally:
                self._done.set()

        threading.Thread(target=work, daemon=True).start()

    def done(self) -> bool:
        return self._done.is_set()

    def result(self, timeout: float | None = None) -> Any:
        """The function's result once it returned (waiting up to ``timeout`` seconds, None: as long as it
        takes; TimeoutError after), its error raised here."""
        if not self._done.wait(timeout):
            raise TimeoutError
        if self._error is not None:
            raise self._error
        return self._value


def ordered_stream(
    function: Callable, items: Iterable, *, jobs: int, argument: Callable = lambda item: item, ahead: int = 2
) -> Iterator[tuple[Any, Any]]:
    """``(item, function(argument(item)))`` for each of ``items``, in order, ``function`` run by ``jobs`` loky
    worker processes (ending with this one, :func:`loky_backend`) on up to ``ahead * jobs`` items beyond the one
    given last: while the caller works on a result, the workers go on with the next items. Only
    ``argument(item)`` is sent to a worker; an error reading ``items`` is raised to the caller. With one job, or
    one item, everything runs here."""
    from collections import deque
    from itertools import chain, islice

    items = iter(items)
    first = list(islice(items, 2))
    items = chain(first, items)
    if jobs == 1 or len(first) < 2:  # one item: no worker to start
        yield from ((item, function(argument(item))) for item in items)
        return
    from joblib import Parallel, delayed

    given: deque = deque()  # the items sent, in order (joblib may read the tasks from one of its threads)

    def tasks():
        for item in items:
            given.append(item)
            yield delayed(function)(argument(item))

    results = Parallel(
        n_jobs=processes(jobs),
        backend=loky_backend(),
        return_as="generator",
        batch_size=1,
        pre_dispatch=f"{ahead}*n_jobs",
    )(tasks())
    for result in results:
        yield given.popleft(), result


def ordered_threads(function: Callable, items: Iterable, *, workers: int, ahead: int = 2) -> Iterator:
    """``function(item)`` for each of ``items``, in order, run by ``workers`` threads on up to ``ahead * workers``
    items beyond the one given last; ``items`` is read here, lazily, as the threads free up (so it may itself
    be another stream's output). With one worker everything runs here, one item after the other. An error of
    a task is raised when its turn comes; the items not yet started are then dropped."""
    if workers <= 1:
        yield from map(function, items)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    pending: deque = deque()
    with ThreadPoolExecutor(workers) as pool:
        try:
            for item in items:
                pending.append(pool.submit(function, item))
                while pending and (len(pending) > ahead * workers or pending[0].done()):
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


@contextmanager
def workers_end_with_parent() -> Iterator[None]:
    """Within the block, joblib's default backend (a ``Parallel`` given no backend) is :func:`loky_backend`, so
    the worker processes started by any module end with this process; after it (or a ClirkitError),
    :func:`end_workers`. loky's resource tracker started in the block cleans up after a killed command without
    its warning (:data:`QUIET_TRACKER`). Imports joblib."""
    import sys

    from joblib import parallel_config

    sys.warnoptions.append(QUIET_TRACKER)  # the tracker's command line repeats this process's -W options
    try:
        with parallel_config(backend=loky_backend()):
            try:
                yield
            except ClirkitError:
                end_workers()
                raise
        end_workers()
    finally:
        sys.warnoptions.remove(QUIET_TRACKER)


@contextmanager
def workers_started(jobs: int, modules: Sequence[str] = (), warm: Callable[[], None] | None = None) -> Iterator[None]:
    """The loky worker processes a pool of ``jobs`` has (:func:`processes`) start, or, started, import ``modules``
    and call ``warm`` (a module-level function: numba's kernels read from its cache by a small task's first calls),
    while this process runs the block: a task each, sent as the block begins, waited for as it ends (a start-up
    of 0.5 s and imports of 0.4 s, paid while this process reads or builds what the workers will then be given).
    Each task waits, up to :data:`MEETING_SECONDS`, for the others to begin (:func:`_met`): a worker done with its
    task would otherwise take the next one, and another worker would start the real work cold. Nothing for one
    job. An error in the block is raised once the tasks are done (about a second): cancelled while loky queued
    them, its manager thread could fail and print a traceback (a KeyError in add_call_item_to_queue)."""
    n = 1 if jobs == 1 else processes(jobs)
    if n < 2:
        yield
        return
    import shutil
    import tempfile

    from joblib import Parallel

    meeting = tempfile.mkdtemp(prefix="clirkit-workers-")
    try:
        pending = Parallel(n_jobs=n, backend=loky_backend(), return_as="generator")(
            [(_imported, (tuple(modules), warm, meeting, n), {}) for _ in range(n)]
        )
        try:
            yield
        except BaseException:
            with contextlib.suppress(Exception):
                for _ in pending:
                    pass
            raise
        for _ in pending:
            pass
    finally:
        shutil.rmtree(meeting, ignore_errors=True)


def _imported(
    modules: tuple[str, ...], warm: Callable[[], None] | None = None, meeting: str | None = None, workers: int = 1
) -> None:
    """Import ``modules`` (in a worker: :func:`workers_started`), call ``warm``, then wait until ``workers`` tasks
    have come to the folder ``meeting`` (:func:`_met`); a module that needs what is not installed (numba) is left
    to the task that needs it."""
    import importlib

    for module in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    if warm is not None:
        with contextlib.suppress(Exception):  # a warm-up only: the task that needs what failed says why
            warm()
    if meeting is not None:
        _met(meeting, workers)


#: How long a start-up task of :func:`workers_started` waits for the others (a worker that never starts).
MEETING_SECONDS = 10.0


def _met(folder: str, workers: int) -> None:
    """Sign in ``folder`` (a file named by this process's id) and wait until ``workers`` processes have, or
    :data:`MEETING_SECONDS` have passed, or the folder is gone (the block ended)."""
    import time

    end = time.monotonic() + MEETING_SECONDS
    with contextlib.suppress(OSError):
        open(os.path.join(folder, str(os.getpid())), "w").close()
    with contextlib.suppress(OSError):
        while time.monotonic() < end and len(os.listdir(folder)) < workers:
            time.sleep(0.005)


#: The -W option given to loky's resource tracker: after a SIGKILL of the command it removed the workers'
#: semaphores and printed four lines of "resource_tracker: There appear to be N leaked semlock objects".
QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def end_workers() -> None:
    """Stop the idle worker processes joblib keeps for reuse, if any were started, and remove their temporary
    folder: a command that ends (or is interrupted after its work) leaves no process or resource behind it. They
    are killed: idle, they have nothing to finish, and their interpreter's own shutdown took 0.2-0.4 s, waited for."""
    import sys

    executor = getattr(sys.modules.get("joblib.externals.loky.reusable_executor"), "_executor", None)
    if executor is None:
        return
    if hasattr(executor, "terminate"):  # joblib's MemmappingExecutor: its temporary folder too
        executor.terminate(kill_workers=True)
    else:
        executor.shutdown(wait=True)


def _dask_client(scheduler):
    """``(client, own)``: a ``distributed.Client`` of ``scheduler`` (an address: a client opened here, ``own``
    True, for the caller to close; or a Client, itself)."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise ClirkitError("the dask backend needs the optional extra: pip install 'clirkit[dask]'") from None
    if scheduler is None:
        raise ClirkitError("the dask backend needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
    if not isinstance(scheduler, str):
        return scheduler, False
    # made apart from its start, so that a start that fails (a malformed address) can close it: else its __del__
    # waits 60 s for a loop that is gone, then prints a traceback
    client = Client.__new__(Client)
    try:
        client.__init__(scheduler, set_as_default=False)
    except BaseException as exc:
        with contextlib.suppress(Exception):
            client.close()
        if isinstance(exc, (OSError, TimeoutError, ValueError)):
            raise ClirkitError(f"cannot reach the dask scheduler at {scheduler!r}: {exc}") from None
        raise
    return client, True


def dask_workers(scheduler) -> int:
    """The number of workers of the dask cluster at ``scheduler`` (an address or a ``distributed.Client``), at
    least 1."""
    client, own = _dask_client(scheduler)
    try:
        return max(1, len(client.scheduler_info().get("workers", {})))
    finally:
        if own:
            client.close()


def run_dask(tasks: Sequence[Task], scheduler) -> list:
    """The results of ``tasks`` run by the workers of the dask cluster at ``scheduler`` (an address, for which
    a client is opened and closed here, or a ``distributed.Client``), through joblib's dask backend."""
    from joblib import Parallel, parallel_config

    client, own = _dask_client(scheduler)
    try:
        with parallel_config(backend="dask", client=client):
            return list(Parallel()(tasks))
    finally:
        if own:
            client.close()
