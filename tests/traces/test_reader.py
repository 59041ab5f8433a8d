"""The streaming reader: the same traces whatever the chunks, bounded memory, the guards across chunk boundaries."""

from __future__ import annotations

import gzip
import json
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import FIXTURES

from ddpcore.cli import main
from ddpcore.traces import load, read_paths
from ddpcore.traces.files import chunks_of
from ddpcore.traces.parse import chunked, parse_kineto, read_trace
from ddpcore.traces.reader import DepthGuard, ReadError
from scripts.tracegen import generated_trace

TRACES = sorted(
    p
    for p in FIXTURES.rglob("*.gz")
    if "summary" not in p.name
    and not p.parent.name.startswith("jobs3d")
    and not p.parent.parent.name.startswith("jobs3d")
)


@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_same_trace_whatever_the_chunks(path):
    data = path.read_bytes()
    whole = read_trace(path.name, [data])
    for size in (1000, 64 * 1024):
        assert read_trace(path.name, chunked(data, size)) == whole
    raw = gzip.decompress(data)
    assert read_trace(path.name, chunked(raw, 4096)) == whole
    if b"traceEvents" in raw[:4096] or raw.lstrip().startswith(b"{\n"):
        obj = json.loads(raw)
        if isinstance(obj, dict) and "traceEvents" in obj:
            assert parse_kineto(obj, path.name) == whole, "the in-memory reader agrees"
            for layout in (json.dumps(obj), json.dumps(obj, indent=1)):
                assert read_trace(path.name, chunked(layout.encode(), 8192)) == whole


def test_memory_stays_a_small_share_of_the_file(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(generated_trace(50 * 1024 * 1024))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        trace = read_trace(str(path), chunks_of(str(path)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(trace.steps) > 30 and trace.has_kernels
    assert peak < 0.25 * size, f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.0f} MB file"


def test_jobs_give_the_same_answer(capsys):
    paths = [str(p) for p in sorted((FIXTURES / "ddp8" / "s2.0").glob("*.pt.trace.json.gz"))]
    assert main(["analyze", *paths, "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main(["analyze", *paths, "--json", "--jobs", "3"]) == 0
    assert json.loads(capsys.readouterr().out) == one
    assert read_paths(paths, jobs=2) == read_paths(paths, jobs=1)
    assert main(["analyze", *paths, "--jobs", "0"]) == 2


HOSTILE = [
    b'{"traceEvents": ' + b"[" * 990 + b"]" * 990 + b"}",
    b'{"rank": 0, "x": ' + b'"[[[[", ' * 50 + b"1}",
    "\ufeff".encode() + b'{"rank": 0, "step": 1, "phase": "load", "start": 0, "end": 1}\n',
]


@pytest.mark.parametrize("data", HOSTILE)
@pytest.mark.parametrize("size", [1, 2, 5])
def test_guards_hold_across_chunk_boundaries(data, size):
    whole = load([("f", data)])
    expected = whole.errors[0].message if whole.errors else whole.traces[0]
    assert read_or_error(data, size) == expected


def read_or_error(data: bytes, size: int):
    try:
        return read_trace("f", chunked(data, size))
    except ReadError as exc:
        return str(exc)


def test_a_gzip_bomb_fed_in_small_pieces_stops_at_the_limit(monkeypatch):
    from ddpcore.traces import parse as traces

    monkeypatch.setattr(traces, "MAX_FILE_BYTES", 1024 * 1024)
    bomb = gzip.compress(bytes(64 * 1024 * 1024), compresslevel=1)
    message = read_or_error(bomb, 4096)
    assert "once decompressed" in message


def reference_depth(data: bytes) -> int:
    depth = deepest = 0
    inside = escaped = False
    for ch in data.decode():
        if inside:
            escaped, inside = (False, inside) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            inside = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


JSON = st.recursive(
    st.none() | st.integers() | st.text(alphabet='ab[]{}"\\', max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet="k[{", max_size=3), inner, max_size=3),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON, st.integers(1, 9))
def test_depth_guard_never_lets_too_deep_through(value, size):
    data = json.dumps(value).encode()
    deepest = reference_depth(data)
    for limit in (deepest - 1, 2 * deepest + 2):
        guard = DepthGuard(limit)
        try:
            for k in range(0, len(data), size):
                guard.feed(data[k : k + size])
            passed = True
        except ReadError:
            passed = False
        if deepest > limit:
            assert not passed, "nesting over the limit must be refused"
        else:
            assert passed, "well under the limit must pass"


def test_a_bad_row_deep_in_a_long_jsonl_is_named_by_its_line():
    """Line numbers are counted on from the last row's (counting from the buffer's start at every row made reading
    quadratic): they must still be right, across the reader's buffer refills."""
    from ddpcore.traces import load

    row = '{"rank": 0, "step": %d, "phase": "forward", "start": %d.0, "end": %d.5}'
    lines = [row % (n, n, n) for n in range(30_000)]
    lines[24_999] = '{"rank": 0, "step": oops}'
    loaded = load([("long.jsonl", "\n".join(lines).encode())])
    assert loaded.errors[0].message.startswith("line 25000:"), loaded.errors[0].message
