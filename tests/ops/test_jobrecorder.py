"""ddpcore.ops.JobRecorder: a worker's operations as the operation table analyze reads, without torch."""

from __future__ import annotations

import io
import itertools
import json

import pytest

from ddpcore.analysis import job_whatif
from ddpcore.analysis.jobwhatif import job_times, simulated_job
from ddpcore.ops import JobRecorder
from ddpcore.ops.jobrecorder import JobSizes
from ddpcore.traces import read_job


def lines_of(out: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_header_places_and_steps() -> None:
    out, ticks = io.StringIO(), itertools.count()
    rec = JobRecorder(out, rank=3, dp_rank=1, stage=1, sizes=JobSizes(dp=2, pp=2), name="j", clock=lambda: next(ticks))
    for _ in rec.steps(range(2)):
        late = rec.place("backward-send")
        with rec.op("forward-compute", micro_batch=0):
            pass
        with rec.op("forward-compute", micro_batch=1):
            pass
        rec.record("backward-send", 0.0, 1.0, 0, seq=late)
    rec.close()
    head, *ops = lines_of(out)
    assert head == {"job": "j", "dp_size": 2, "pp_size": 2, "tp_size": 1, "dsp_size": 1, "vpp_size": 1}
    assert [(o["step"], o["optype"], o["seq_id"]) for o in ops] == [
        (0, "forward-compute", 0),
        (0, "forward-compute", 1),
        (0, "backward-send", 0),
        (1, "forward-compute", 0),
        (1, "forward-compute", 1),
        (1, "backward-send", 0),
    ]
    assert {o["dp_rank"] for o in ops} == {1} and {o["rank"] for o in ops} == {3}


def test_only_the_first_tensor_parallel_rank_writes_and_bad_calls_raise() -> None:
    out = io.StringIO()
    rec = JobRecorder(out, rank=5, dp_rank=0, stage=0, sizes=JobSizes(dp=1, pp=1, tp=2), tp_rank=1)
    with rec.op("optimizer"):
        pass
    rec.close()
    assert out.getvalue() == ""
    with pytest.raises(ValueError, match="optype"):
        rec.record("forward", 0.0, 1.0)
    with pytest.raises(ValueError, match="outside the job"):
        JobRecorder(io.StringIO(), rank=0, dp_rank=2, stage=0, sizes=JobSizes(dp=2, pp=1))


def test_a_job_written_by_its_workers_is_the_job_analysed() -> None:
    """The JSONL of each worker, read together, is the table it was written from: the same what-if."""
    rows, groups = simulated_job(dp=2, pp=2, steps=4, slow=(1, 0))
    files = {}
    for dp in range(2):
        for stage in range(2):
            out = io.StringIO()
            rec = JobRecorder(out, rank=dp * 2 + stage, dp_rank=dp, stage=stage, sizes=JobSizes(dp=2, pp=2))
            mine = sorted((o for o in rows if (o.dp, o.stage) == (dp, stage)), key=lambda o: (o.step, o.start))
            for step in rec.steps(range(4)):
                for o in (o for o in mine if o.step == step):
                    rec.record(o.optype, 100.0 + o.start, 100.0 + o.end, seq=o.seq)
            rec.close()
            files[f"dp{dp}-stage{stage}.jsonl"] = out.getvalue().encode()
    job = read_job(files)
    assert job.groups.dp == 2 and job.groups.pp == 2 and job.notes == ()
    ours = job_whatif(job_times(job.table, job.groups))
    theirs = job_whatif(job_times(rows, groups))
    assert ours.slowdown == pytest.approx(theirs.slowdown, abs=1e-9)
    assert ours.worst_workers == theirs.worst_workers == ((1, 0),)


def test_workers_that_disagree_on_the_sizes_are_one_line() -> None:
    a, b = io.StringIO(), io.StringIO()
    JobRecorder(a, rank=0, dp_rank=0, stage=0, sizes=JobSizes(dp=1, pp=2)).close()
    JobRecorder(b, rank=1, dp_rank=0, stage=1, sizes=JobSizes(dp=1, pp=3)).close()
    with pytest.raises(ValueError, match="different group sizes"):
        read_job({"a.jsonl": a.getvalue().encode(), "b.jsonl": b.getvalue().encode()})
