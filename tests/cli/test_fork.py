"""Measuring in forked processes (`cli.fork`: ranges of steps, or shards of the ranks) gives what measuring in one
gives, and runs in several when the run is large enough to be cut in tasks (on Linux: elsewhere the work stays in
this process, and gives the same)."""

import json
import os
import sys
from dataclasses import replace

import pytest
from paths import FIXTURES
from runs import files

from ddpcore.analysis import judge, measure, measure_loaded
from ddpcore.analysis.parted import FilesRead, measure_parts
from ddpcore.analysis.results import AnalysisError
from ddpcore.analysis.shards import measure_shards
from ddpcore.cli.fork import ForkedPart, ShardLost, forked, forked_parts
from ddpcore.cli.verdicts import analysis_payload
from ddpcore.storage.fan import TASK_VALUES, ranges
from ddpcore.traces import read_paths, simulated_run, summary_bytes
from ddpcore.traces.summary import SUFFIX

NOISY = FIXTURES / "noise"

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


def written(folder, ranks) -> list[str]:
    for r in ranks:
        (folder / f"rank{r.rank:03d}{SUFFIX}").write_bytes(summary_bytes(r))
    return sorted(str(p) for p in folder.glob(f"*{SUFFIX}"))


def measured_in_parts(files, jobs, threshold=0.1, progress=None):
    parts = forked_parts(files, jobs, progress)
    try:
        return parts, measure_parts(parts, threshold)
    finally:
        close(parts)


def test_a_run_measured_in_forked_parts_is_the_run_measured_in_one(tmp_path):
    """`analyze --jobs N` cuts the files into N parts, each read, then measured, by a process of its own
    (`forked_parts`), asked the rounds a Ray cluster's nodes answer: the verdict of one process, and the parts'
    processes gone after."""
    run, _ = simulated_run(30, 40, persistent=(7,), p=0.03, seed=5)
    paths = written(tmp_path, run)
    parts, (fanned, errors) = measured_in_parts(paths, 3)
    assert {type(p) for p in parts} == ({ForkedPart} if FORKS else {FilesRead})
    if FORKS:
        assert [p.ranks for p in parts] == [tuple(range(k, k + 10)) for k in (0, 10, 20)]
        assert all(not p.process.is_alive() for p in parts)
    whole, _ = measure_loaded(read_paths(paths, 1))
    alone = judge(whole, 0.1)
    assert errors == ()
    assert json.dumps(analysis_payload(judge(fanned, 0.1), [])) == json.dumps(analysis_payload(alone, []))
    assert alone.straggler_rank == 7


def test_parts_keep_the_files_one_process_keeps(tmp_path):
    """Which files make the run is decided over every part's files, as one process decides it: a second file for a
    rank in another part, an unreadable file and the files of a smaller run are the same lines, in the same order,
    and the run is the same."""
    pattern = "*.jsonl.gz"
    given = [*files(NOISY / "two_slow", pattern)[:3], *files(NOISY / "clean", pattern)[3:]]
    named = [(f"{k:02d}-{name}", data) for k, (name, data) in enumerate(given)]
    named += [("50-unreadable.jsonl", b"not json"), ("90-again.jsonl.gz", given[1][1])]
    for name, data in named:
        (tmp_path / name).write_bytes(data)
    paths = sorted(str(tmp_path / name) for name, _ in named)
    whole, whole_errors = measure_loaded(read_paths(paths, 1))
    for jobs in (1, 2, 3):
        _, (kept, errors) = measured_in_parts(paths, jobs)
        assert [(e.source, e.message) for e in errors] == [(e.source, e.message) for e in whole_errors]
        assert analysis_payload(judge(kept, 0.1), []) == analysis_payload(judge(whole, 0.1), [])
    said = [e.message for e in whole_errors]
    assert len(said) == 3 and "a second file for rank 1" in said[1] and "another run" in said[2]


def test_the_parts_reading_is_told_as_one(tmp_path):
    """Each part tells how far its reading is; the caller hears the files and bytes of all the parts together, up
    to every file."""
    files_ = written(tmp_path, simulated_run(12, 6, seed=3)[0])
    heard = []
    measured_in_parts(files_, 3, progress=lambda *told: heard.append(told))
    total = sum(os.path.getsize(f) for f in files_)
    assert heard[-1] == (12, 12, total, total)
    assert [h[0] for h in heard] == sorted(h[0] for h in heard)


def test_a_forked_part_that_dies_ends_the_run_in_one_line(tmp_path):
    """A part's process killed mid-measure (out of memory, say): one line naming its files while it reads, its
    ranks once it holds them, no verdict, no traceback."""
    if not FORKS:
        return
    files_ = written(tmp_path, simulated_run(8, 12, persistent=(1,), seed=2)[0])
    parts = forked_parts(files_, 2)
    parts[1].process.kill()
    parts[1].process.join()
    try:
        with pytest.raises(ShardLost, match=r"reading files 5-8 stopped answering \(exit status -9\)"):
            measure_parts(parts, 0.1)
    finally:
        close(parts)
    parts = forked_parts(files_, 2)
    try:
        held = [p.keep([h.index for h in p.headers()]) for p in parts]
        parts[1].process.kill()
        parts[1].process.join()
        with pytest.raises(ShardLost, match=r"measuring ranks 4-7 stopped answering \(exit status -9\)"):
            measure_shards(held, 0.1)
    finally:
        close(parts)


def test_the_run_error_a_forked_part_meets_is_the_run_s(tmp_path):
    """An analysis error met in a part's process (a file changed before it was read again) is said as the run's,
    as in one process."""
    run, _ = simulated_run(4, 12, seed=7)
    files_ = written(tmp_path, [replace(r, steps=r.steps[:10]) if r.rank else r for r in run])
    parts = forked_parts(files_, 2)
    try:
        [p.headers() for p in parts]
        (tmp_path / f"rank000{SUFFIX}").write_bytes(b"not a summary")
        measured, errors = measure_parts(parts, 0.1)
    finally:
        close(parts)
    assert measured is None
    assert errors[-1].message == str(AnalysisError("run.changed", source=files_[0]))


def close(parts) -> None:
    for p in parts:
        if isinstance(p, ForkedPart):
            p.close()
