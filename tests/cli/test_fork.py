"""Measuring in forked processes (`cli.fork`: ranges of steps, or shards of the ranks) gives what measuring in one
gives, and runs in several when the run is large enough to be cut in tasks (on Linux: elsewhere the work stays in
this process, and gives the same)."""

import json
import os
import sys
from dataclasses import replace

import pytest

from ddpcore.analysis import AnalysisError, Shard, judge, measure, measure_loaded, measure_shards
from ddpcore.cli.fork import ForkedShard, ShardLost, forked, forked_shards
from ddpcore.cli.verdicts import analysis_payload
from ddpcore.storage import TASK_VALUES, ranges
from ddpcore.traces import SUFFIX, Keep, read_paths, simulated_run, summary_bytes, table_of

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


def test_a_run_measured_in_forked_shards_is_the_run_measured_in_one():
    """`analyze --jobs N` holds the ranks as N shards, each in a process of its own (`forked_shards`), asked the
    rounds a Ray cluster's nodes answer: the verdict of one process, and the shards' processes gone after."""
    run, _ = simulated_run(30, 40, persistent=(7,), p=0.03, seed=5)
    tables = [table_of(r) for r in run]
    shards = forked_shards(3)(tables)
    try:
        assert [len(s.ranks) for s in shards] == [10, 10, 10]
        kinds = {type(s) for s in shards}
        assert kinds == ({ForkedShard} if FORKS else {Shard})
        fanned = judge(measure_shards(shards, 0.1), 0.1)
    finally:
        close(shards)
    alone = judge(measure(run), 0.1)
    assert json.dumps(analysis_payload(fanned, [])) == json.dumps(analysis_payload(alone, []))
    assert alone.straggler_rank == 7
    assert all(not s.process.is_alive() for s in shards if isinstance(s, ForkedShard))


def test_a_forked_shard_that_dies_ends_the_run_in_one_line(capsys, tmp_path):
    """A shard's process killed mid-measure (out of memory, say): one line naming its ranks, no verdict, no
    traceback."""
    if not FORKS:
        return
    run, _ = simulated_run(8, 12, persistent=(1,), seed=2)
    shards = forked_shards(2)([table_of(r) for r in run])
    shards[1].process.kill()
    shards[1].process.join()
    try:
        with pytest.raises(ShardLost, match=r"ranks 4-7 stopped answering \(exit status -9\)"):
            measure_shards(shards, 0.1)
    finally:
        close(shards)


def test_the_run_error_a_forked_shard_meets_is_the_run_s(tmp_path):
    """An analysis error met in a shard's process (a file changed before it was read again) is said as the run's,
    as in one process."""
    run, _ = simulated_run(4, 12, seed=7)
    run = [replace(r, steps=r.steps[:10]) if r.rank else r for r in run]
    for r in run:
        (tmp_path / f"rank{r.rank}{SUFFIX}").write_bytes(summary_bytes(r))
    files = sorted(str(p) for p in tmp_path.glob(f"*{SUFFIX}"))
    loaded = read_paths(files, 1, keep=Keep.VERDICT)
    (tmp_path / f"rank0{SUFFIX}").write_bytes(b"not a summary")
    measured, errors = measure_loaded(loaded, at=0.1, shards=forked_shards(2))
    assert measured is None
    assert errors[-1].message == str(AnalysisError("run.changed", source=files[0]))


def close(shards) -> None:
    for s in shards:
        if isinstance(s, ForkedShard):
            s.close()
