"""A pool starts at most one worker per core, however many ``jobs`` are asked: ``--jobs 999`` on 2 cores started
999 processes of about 40 MB each (an independent edge test, round 6), though the results do not depend on it."""

from __future__ import annotations

import os

from clirkit.analysis import Analyzer
from clirkit.parallel import cores, processes, run_tasks


def test_processes_are_at_most_one_per_core_and_one_when_one_is_asked():
    most = max(cores(), 2)
    assert processes(1) == 1
    assert processes(999) == most
    assert processes(2) == 2
    assert processes(-1) == cores()


def test_a_pool_of_many_jobs_runs_on_at_most_one_process_per_core():
    pids = run_tasks([(os.getpid, (), {})] * 40, jobs=40)
    assert len(set(pids)) <= max(cores(), 2)
    assert os.getpid() not in pids  # still run by workers


def test_tokens_do_not_depend_on_the_jobs_asked():
    texts = [f"the houses number {i} were built" for i in range(5000)]
    analyzer = Analyzer("en")
    assert analyzer.tokenize_many(texts, jobs=64) == analyzer.tokenize_many(texts, jobs=1)


def test_the_commands_resource_tracker_is_started_without_its_leak_warning():
    import subprocess

    from clirkit.parallel import QUIET_TRACKER, workers_end_with_parent

    with workers_end_with_parent():
        assert f"-W{QUIET_TRACKER}" in subprocess._args_from_interpreter_flags()  # as loky starts its tracker
    assert f"-W{QUIET_TRACKER}" not in subprocess._args_from_interpreter_flags()
