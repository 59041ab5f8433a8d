"""Every kind of hostile input gets one line, never a traceback: broken files, gzip bombs, odd encodings, arbitrary
bytes and events."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paths import FIXTURES
from runs import jsonl_run as run

from ddpcore.analysis import analyze
from ddpcore.traces import load
from ddpcore.traces import parse as traces
from ddpcore.traces.parse import parse_file
from ddpcore.traces.reader import MAX_JSON_DEPTH, gunzipped, texts

GOOD = run([[0.03, 0.03]] * 3)


def kineto_with(event: dict) -> bytes:
    return json.dumps({"distributedInfo": {"rank": 5}, "traceEvents": [event]}).encode()


NAMES = st.sampled_from(
    [
        "ProfilerStep#1",
        "ProfilerStep#2",
        "ProfilerStep#x",
        "c10d::allreduce_",
        "nccl:all_to_all",
        "record_param_comms",
        "## forward ##",
        "## backward ##",
        "DistributedDataParallel.forward",
        "autograd::engine::evaluate_function: AddBackward0",
        "Optimizer.step#SGD.step",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
        "void gemm<float>",
        "cudaLaunchKernel",
    ]
)


NUMBERS = st.one_of(
    st.integers(-(10**20), 10**20), st.floats(allow_nan=True, allow_infinity=True), st.none(), st.text(max_size=3)
)


EVENTS = st.fixed_dictionaries(
    {
        "ph": st.sampled_from(["X", "X", "X", "s", "f", "M", 1]),
        "name": st.one_of(NAMES, st.integers()),
        "cat": st.sampled_from(["cpu_op", "user_annotation", "gpu_user_annotation", "kernel", "cuda_runtime", "ac2g"]),
        "ts": NUMBERS,
        "dur": NUMBERS,
        "id": NUMBERS,
        "args": st.one_of(st.none(), st.fixed_dictionaries({"correlation": NUMBERS, "Collective name": NUMBERS})),
    }
)


def test_the_buffer_broadcast_and_all_to_all_are_not_arrival():
    def kineto(rank: int, forward_collective_at: float, allreduce_at: float) -> bytes:
        events = [
            {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "ts": 0, "dur": 100_000},
            {"ph": "X", "cat": "cpu_op", "name": "c10d::broadcast_", "ts": 1_000, "dur": 100},
            {"ph": "X", "cat": "user_annotation", "name": "## forward ##", "ts": 500, "dur": 40_000},
            {"ph": "X", "cat": "cpu_op", "name": "c10d::alltoall_base_", "ts": forward_collective_at, "dur": 100},
            {"ph": "X", "cat": "user_annotation", "name": "## backward ##", "ts": 41_000, "dur": 40_000},
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "record_param_comms",
                "ts": allreduce_at,
                "dur": 100,
                "args": {"Collective name": "allreduce"},
            },
            {"ph": "X", "cat": "user_annotation", "name": "## optimizer ##", "ts": 85_000, "dur": 10_000},
        ]
        return json.dumps({"distributedInfo": {"rank": rank, "world_size": 2}, "traceEvents": events}).encode()

    a = analyze(load([("a.json", kineto(0, 2_000, 50_000)), ("b.json", kineto(1, 30_000, 50_000))]).traces)
    assert [x.ready_ms for x in a.steps[0].drawn] == [pytest.approx(50.0), pytest.approx(50.0)]
    assert a.stragglers == ()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("deep.json", b'{"traceEvents": ' + b"[" * 990 + b"]" * 990 + b"}", f"deeper than {MAX_JSON_DEPTH}"),
        ("deep.jsonl", b'{"rank": 0, "x": ' + b"[" * 990 + b"]" * 990 + b"}\n", f"deeper than {MAX_JSON_DEPTH}"),
        ("digits.json", b'{"traceEvents": [], "n": ' + b"1" * 5000 + b"}", "number too long"),
        ("digits.jsonl", b'{"rank": 0, "step": ' + b"1" * 5000 + b"}\n{}", "number too long"),
        ("ts.json", kineto_with({"ph": "X", "name": "ProfilerStep#1", "ts": int("9" * 400), "dur": 1}), "'ts'"),
        ("inf.json", kineto_with({"ph": "X", "name": "ProfilerStep#1", "ts": 1, "dur": 1e308 * 10}), "'dur'"),
        (
            "step.json",
            kineto_with({"ph": "X", "name": "ProfilerStep#" + "7" * 5000, "ts": 1, "dur": 1}),
            "ProfilerStep",
        ),
        ("jstep.jsonl", b'{"rank": 0, "step": ' + b"9" * 400 + b', "phase": "load", "start": 0, "end": 1}', "'step'"),
        ("rank.json", json.dumps({"distributedInfo": {"rank": 10**30}, "traceEvents": []}).encode(), "rank"),
        ("tail.json", b'{"traceEvents": []} {"more": 1}', "extra data"),
    ],
)
def test_hostile_files_get_one_line(name, data, message):
    loaded = load([GOOD[0], (name, data), GOOD[1]])
    assert [t.rank for t in loaded.traces] == [0, 1]
    assert len(loaded.errors) == 1
    error = loaded.errors[0]
    assert error.source == name and message in error.message, error.message
    assert "\n" not in error.message and "Traceback" not in error.message


def test_a_gzip_bomb_stops_while_inflating(monkeypatch):
    """1 GB of zeros in about 1 MB of gzip: reading stops at the limit, having held little more than the limit."""
    monkeypatch.setattr(traces, "MAX_FILE_BYTES", 4 * traces.MIB)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(16 * traces.MIB)
    bomb = b"".join(packer.compress(block) for _ in range(64)) + packer.flush()
    assert len(bomb) < 2 * traces.MIB
    tracemalloc.start()
    try:
        loaded = load([("bomb.json.gz", bomb)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "once decompressed" in loaded.errors[0].message
    assert peak < 4 * traces.MAX_FILE_BYTES


def test_multi_member_gzip_and_truncated_gzip():
    assert b"".join(gunzipped([gzip.compress(b"ab") + gzip.compress(b"cd")], 10)) == b"abcd"
    loaded = load([("cut.json.gz", gzip.compress(b'{"traceEvents": []}')[:-12])])
    assert "gzip" in loaded.errors[0].message


def test_format_is_told_by_content_whatever_the_indentation():
    path = FIXTURES / "ddp4" / "rank1.pt.trace.json.gz"
    obj = json.loads(gzip.decompress(path.read_bytes()))
    compact = parse_file("a.json", path.read_bytes())
    for text in (json.dumps(obj, indent=2), json.dumps(obj, indent=0), "\n\n" + json.dumps(obj, indent="\t")):
        again = parse_file("b.jsonl", text.encode())
        assert again.kind == "kineto" and again.steps == compact.steps


def test_a_utf8_bom_is_accepted():
    data = "\ufeff".encode() + gzip.decompress((FIXTURES / "ddp4" / "rank0.jsonl.gz").read_bytes())
    assert parse_file("bom.jsonl", data).rank == 0
    assert "".join(texts([b"\xef\xbb", b"\xbf{}"])) == "{}"


@given(st.binary(max_size=400))
def test_any_bytes_load_or_get_one_line(data):
    loaded = load([("f.json", data), ("g.json.gz", gzip.compress(data))])
    assert all("\n" not in e.message for e in loaded.errors)


@given(st.lists(st.lists(EVENTS, max_size=12), min_size=2, max_size=3), st.sampled_from([0.01, 0.1, 1.0]))
def test_arbitrary_kineto_events_never_traceback(per_rank, threshold):
    files = [
        (
            f"r{r}.json",
            json.dumps(
                {"distributedInfo": {"rank": r, "world_size": 4}, "traceEvents": events}, allow_nan=True
            ).encode(),
        )
        for r, events in enumerate(per_rank)
    ]
    loaded = load(files)
    assert all("\n" not in e.message for e in loaded.errors)
    if len(loaded.traces) >= 2:
        try:
            a = analyze(loaded.traces, threshold)
        except ValueError as exc:
            assert "step" in str(exc)
        else:
            assert all(0 <= r.gpu.busy <= 1 for r in a.ranks if r.gpu)
