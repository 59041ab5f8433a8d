"""Measuring in forked processes (`cli.fork`) gives what measuring in one gives, and runs in several when the run
is large enough to be cut in tasks (on Linux: elsewhere the work stays in this process, and gives the same)."""

import json
import os
import sys

from ddpcore.analysis import judge, measure
from ddpcore.cli.fork import forked
from ddpcore.cli.verdicts import analysis_payload
from ddpcore.storage import TASK_VALUES, ranges
from ddpcore.traces import simulated_run

FORKS = sys.platform == "linux"


def test_a_run_measured_in_forked_processes_is_the_run_measured_in_one():
    ranks, steps = 48, TASK_VALUES // 48 * 2 + 7
    run, _ = simulated_run(ranks, steps, persistent=(5,), p=0.01, seed=4)
    assert len(ranges(steps, ranks)) == 3 and len(ranges(ranks, steps)) >= 2
    pids: set[int] = set()

    def fan(task, some):
        for pid, answer in forked(2)(lambda r: (os.getpid(), task(r)), some):
            pids.add(pid)
            yield answer

    alone, fanned = judge(measure(run), 0.1), judge(measure(run, fan=fan), 0.1)
    assert json.dumps(analysis_payload(fanned, [])) == json.dumps(analysis_payload(alone, []))
    assert alone.straggler_rank == 5
    assert bool(pids - {os.getpid()}) == FORKS


def test_one_job_or_one_task_stays_in_this_process():
    assert forked(1) is map
    assert (forked(2) is map) == (not FORKS)
    parent = os.getpid()
    assert list(forked(2)(lambda r: [os.getpid()], [range(3)])) == [[parent]]
