"""A pipeline job's ranks read from their PyTorch profiler traces (`traces.pipetrace`): what is told from the
sends, receives and process groups, and one line for each trace that cannot make the job."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ddpcore.traces import read_job
from ddpcore.traces.optrace import OpTraceError, job_file_kind, kind_of_head
from ddpcore.traces.pipetrace import read_op_profiles

SLOW = Path(__file__).resolve().parents[1] / "fixtures" / "jobs3d_profiled" / "slow_worker"
DDP = Path(__file__).resolve().parents[1] / "fixtures" / "ddp4"


def traces() -> dict[str, dict]:
    return {p.name: json.loads(gzip.decompress(p.read_bytes())) for p in sorted(SLOW.glob("rank*.pt.trace.json.gz"))}


def encoded(given: dict[str, dict]) -> dict[str, bytes]:
    return {name: json.dumps(top).encode() for name, top in given.items()}


def test_a_pipeline_stage_trace_is_a_job_file_and_a_data_parallel_one_is_not() -> None:
    assert {kind_of_head(p.read_bytes()) for p in SLOW.glob("rank*.gz")} == {"profile"}
    ddp = next(DDP.glob("*.pt.trace.json.gz"))
    assert kind_of_head(ddp.read_bytes()) == "trace"
    assert job_file_kind(b'{"distributedInfo": {"rank": 0}, "traceEvents": []}') == "trace"


def test_a_first_stage_whose_first_send_lies_further_in_is_read_with_the_others() -> None:
    """A first stage's trace may show no send in the bytes looked at first: read with the stages that do."""
    given = traces()
    padding = [{"ph": "X", "name": "aten::empty", "cat": "cpu_op", "ts": 1.0, "dur": 1.0, "tid": 0, "pid": 0}] * 2000
    first = given["rank0.pt.trace.json.gz"]
    first["traceEvents"] = padding + first["traceEvents"]
    files = encoded(given)
    assert kind_of_head(files["rank0.pt.trace.json.gz"]) == "trace"
    job = read_job(files)
    assert {(o.rank, o.stage) for o in job.table.rows()} == {(0, 0), (1, 1), (2, 0), (3, 1)}
    assert job.left_out == ()


def test_the_world_beyond_the_ranks_given_is_said() -> None:
    given = traces()
    for top in given.values():
        top["distributedInfo"]["world_size"] = 8
    _, groups, notes = read_op_profiles(encoded(given))
    assert groups.tp == 2 and [m.text() for m in notes] == [
        "4 ranks' traces of a world of 8: the other 4 read as tensor-parallel peers (TP 2) that run as the ranks given"
    ]
    assert "pairs tensor-parallel (TP 2)" in notes[0].text("fr")


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (lambda g: g.pop("rank3.pt.trace.json.gz"), "rank 2: its sends and receives name peer 1, which is no rank"),
        (lambda g: g.__setitem__("again.json", g["rank1.pt.trace.json.gz"]), "a second trace of rank 1"),
        (lambda g: g["rank1.pt.trace.json.gz"].pop("distributedInfo"), "no distributedInfo"),
        (lambda g: g["rank1.pt.trace.json.gz"]["distributedInfo"].__setitem__("rank", 9), "rank 9 of world size 4"),
        (lambda g: _unshaped(g["rank2.pt.trace.json.gz"]), "rank 2: its sends and receives do not name their peers"),
        (lambda g: _stepless(g["rank0.pt.trace.json.gz"]), "no ProfilerStep#N range"),
    ],
)
def test_a_trace_that_cannot_make_the_job_is_one_line(spoil, said: str) -> None:
    given = traces()
    spoil(given)
    with pytest.raises(OpTraceError, match=said.replace("(", r"\(").replace(")", r"\)")):
        read_op_profiles(encoded(given))


def _unshaped(top: dict) -> None:
    """The trace as the profiler writes it without record_shapes: no concrete inputs."""
    for e in top["traceEvents"]:
        if isinstance(e.get("args"), dict):
            e["args"].pop("Concrete Inputs", None)


def _stepless(top: dict) -> None:
    top["traceEvents"] = [e for e in top["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep#")]


def test_bytes_that_are_no_trace_are_one_line() -> None:
    with pytest.raises(OpTraceError, match="not a JSON trace"):
        read_op_profiles({"x.json": b"{nope"})
    with pytest.raises(OpTraceError, match="no traceEvents"):
        read_op_profiles({"x.json": b'{"distributedInfo": {}}'})


def test_a_schedules_actions_name_each_span_its_virtual_stage_and_pass() -> None:
    """Where the schedule names its actions (`PP:{stage}{action}{mb}`), a send or receive takes the pass and virtual
    stage of the action it lies in, and a compute action starts when the receive it waited for inside it ended."""
    from ddpcore.traces.pipetrace import _event, rank_ops

    peer = {"Concrete Inputs": ["", "", "1", "0"]}
    events = [
        _event("ProfilerStep#3", 0, 100, "user_annotation"),
        _event("PP:2RECV_F0", 1, 2, "user_annotation"),
        _event("c10d::recv_", 1.5, 1, args=peer),
        _event("gloo:recv", 2, 18, "user_annotation"),
        _event("PP:2F0", 5, 25, "user_annotation"),
        _event("PP:2SEND_F0", 31, 2, "user_annotation"),
        _event("c10d::send", 31.5, 1, args=peer),
        _event("gloo:send", 32, 60, "user_annotation"),
        _event("PP:2B0", 40, 20, "user_annotation"),
        _event("aten::mm", 41, 5),
    ]
    spans = {(s.kind, s.way, s.virtual): (s.start, s.end) for s in rank_ops(events).spans}
    assert spans == {
        ("recv", "forward", 2): (1.5, 20.0),
        ("forward", "", 2): (20.0, 30.0),
        ("send", "forward", 2): (31.5, 92.0),
        ("backward", "", 2): (40.0, 60.0),
    }
