"""Summaries: a trace reduced to what the analysis measures, read back to the same analysis on every real run: in
JSON (version 2) to the nanosecond, in columns (version 3, the default) to the microsecond. The columnar format's
own bounds are in test_columnar.py."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import FIXTURES
from runs import files

from ddpcore.analysis import analyze
from ddpcore.cli import main
from ddpcore.cli.verdicts import analysis_payload
from ddpcore.traces import facts_of, load, summary_bytes
from ddpcore.traces.columnar import MAGICS
from ddpcore.traces.summary import FORMAT, JSON_VERSION, SUFFIX, VERSION

RUNS = [
    ("ddp4", "*.jsonl.gz"),
    ("ddp4", "*.pt.trace.json.gz"),
    ("ddp8/s1.0", "*.jsonl.gz"),
    ("ddp8/s1.5", "*.pt.trace.json.gz"),
    ("ddp8/s2.0", "*.jsonl.gz"),
    ("ddp8_transient", "*.jsonl.gz"),
    ("ddp8_transient", "*.pt.trace.json.gz"),
    ("hta_torchrec", "*.json.gz"),
]


def summarised(traces, version: int = JSON_VERSION) -> list[tuple[str, bytes]]:
    return [(f"rank{t.rank}{SUFFIX}", summary_bytes(facts_of(t), version)) for t in traces]


TOLERANCE_MS = {JSON_VERSION: 1e-5, VERSION: 0.05}
"""How far a figure of a summary's analysis may be from the trace's: version 2 keeps times to the ns; version 3 to
the µs, and a fitted figure (the jitter floor) moves by a few µs when its inputs do (docs/summaries.md)."""
TIES = ("slowest_rank", "slowest_count")
"""Which rank is the slowest of a step, and how often: ranks within a µs of each other swap (docs/summaries.md)."""


def same(a, b, path: str = "", tolerance: float = TOLERANCE_MS[JSON_VERSION]) -> None:
    """Equal payloads: numbers within `tolerance` (ms, or relative), the rest exactly."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            if tolerance > TOLERANCE_MS[JSON_VERSION] and k in TIES:
                continue
            same(a[k], b[k], f"{path}.{k}", tolerance)
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]", tolerance)
    elif isinstance(a, float) and not isinstance(b, bool):
        assert b == pytest.approx(a, rel=tolerance / 10, abs=tolerance), path
    else:
        assert a == b, path


def payload(traces) -> dict:
    out = analysis_payload(analyze(traces), [])
    for r in out["ranks"]:
        r.pop("source")
    return out


@pytest.mark.parametrize("version", [JSON_VERSION, VERSION])
@pytest.mark.parametrize(("folder", "pattern"), RUNS, ids=[f"{f}:{p}" for f, p in RUNS])
def test_summaries_analyse_as_their_traces(folder, pattern, version):
    traces = load(files(folder, pattern)).traces
    back = load(summarised(traces, version))
    assert back.errors == ()
    same(payload(traces), payload(back.traces), tolerance=TOLERANCE_MS[version])


def test_a_mix_of_summaries_and_traces_analyses_as_the_traces():
    traces = load(files("ddp8/s2.0", "*.jsonl.gz")).traces
    mixed = load(
        [*summarised(traces[:2]), *summarised(traces[2:4], VERSION), *files("ddp8/s2.0", "rank[4-7].jsonl.gz")]
    )
    assert mixed.errors == () and len(mixed.traces) == 8
    same(payload(traces), payload(mixed.traces), tolerance=TOLERANCE_MS[VERSION])


def test_a_summary_is_small_and_a_columnar_one_smaller():
    traces = load(files("ddp8_transient", "*.jsonl.gz")).traces
    json_size, columnar_size = (sum(len(data) for _, data in summarised(traces, v)) for v in (JSON_VERSION, VERSION))
    rank_steps = sum(len(t.steps) for t in traces)
    assert json_size / rank_steps <= 100
    assert columnar_size <= json_size / 2


def test_a_long_columnar_summary_holds_a_rank_step_in_20_bytes():
    """The budget of issue 39 (bench --scale measures it at 10,000 ranks x 1,000 steps): the header's cost spread
    over many steps, a step's times to the µs in shuffled planes."""
    from ddpcore.traces import simulated_run

    ranks, _ = simulated_run(8, 1000, persistent=(3,), p=0.01, seed=4, jitter_cv=0.05)
    assert sum(len(summary_bytes(r)) for r in ranks) / 8000 <= 20


def body(data: bytes) -> dict:
    return json.loads(gzip.decompress(data))


def again(obj: dict) -> bytes:
    return gzip.compress(json.dumps(obj).encode())


def test_foreign_or_malformed_summaries_are_one_line_each_and_the_others_load():
    traces = load(files("ddp4", "*.jsonl.gz")).traces
    good = summarised(traces)
    first = body(good[0][1])
    assert list(first)[0] == "format" and first["format"] == FORMAT
    bad = {
        "future.json.gz": again({**first, "version": VERSION + 1}),
        "columns.json.gz": again({**first, "columns": first["columns"][:-1]}),
        "row.json.gz": again({**first, "steps": [first["steps"][0][:-2]]}),
        "nan.json.gz": gzip.compress(
            json.dumps({**first, "steps": [[*first["steps"][0][:5], "x", *first["steps"][0][6:]]]}).encode()
        ),
        "empty.json.gz": again({**first, "steps": []}),
    }
    loaded = load([*good[1:], *bad.items()])
    assert len(loaded.traces) == 3 and [e.source for e in loaded.errors] == list(bad)
    for e in loaded.errors:
        assert "\n" not in e.message and "summary" in e.message
    assert "versions 1, 2, 3 and 4" in loaded.errors[0].message


@pytest.mark.parametrize(
    ("column", "bad", "says"),
    [
        ("step", -1, "'step'"),
        ("step", 1.5, "'step'"),
        ("followed", 1, "'followed'"),
        ("arrival_ms", "x", "'arrival_ms'"),
        ("arrival_ms", None, "'arrival_ms'"),
        ("backward_ms", -0.5, "'backward_ms'"),
        ("length_ms", 1e20, "'length_ms'"),
        ("period_ms", 0.0, "'period_ms' must be positive"),
        ("period_ms", "x", "'period_ms'"),
        ("start_ms", [], "'start_ms'"),
        ("gpu_busy_ms", 1.0, "GPU columns"),
    ],
)
def test_a_bad_value_deep_in_a_summary_is_named_by_its_row_and_column(column, bad, says):
    """The reader checks whole columns at once; a value that fails is still named by its row and column."""
    from ddpcore.traces.summary import COLUMNS_V2 as COLUMNS

    traces = load(files("ddp8/s2.0", "*.jsonl.gz")).traces
    first = body(summarised(traces)[0][1])
    row = 17
    first["steps"][row][COLUMNS.index(column)] = bad
    loaded = load([("bad.json.gz", again(first))])
    assert [e.source for e in loaded.errors] == ["bad.json.gz"] and not loaded.traces
    message = loaded.errors[0].message
    assert f"step row {row + 1}" in message and says in message and "\n" not in message, message


def test_summarize_writes_one_per_rank_and_analyze_reads_them(tmp_path, capsys):
    paths = [str(p) for p in sorted((FIXTURES / "ddp8" / "s1.5").glob("*.jsonl.gz"))]
    assert main(["summarize", *paths, "-o", str(tmp_path), "--format", "json"]) == 0
    written = sorted(tmp_path.glob(f"*{SUFFIX}"))
    assert [p.name for p in written] == [f"rank{r}{SUFFIX}" for r in range(8)]
    capsys.readouterr()
    assert main(["analyze", *map(str, written), "--fit", "--json"]) == 0
    from_summaries = json.loads(capsys.readouterr().out)
    assert main(["analyze", *paths, "--fit", "--json"]) == 0
    from_traces = json.loads(capsys.readouterr().out)
    for p in (from_summaries, from_traces):
        for r in p["ranks"]:
            r.pop("source")
    same(from_traces, from_summaries)
    assert main(["summarize", str(tmp_path / "missing.json")]) == 1


def test_the_recorder_writes_the_summary_summarize_would(tmp_path):
    from ddpcore.ops import Recorder

    source = load(files("ddp8_transient", "rank3.jsonl.gz")).traces[0]
    jsonl, summary = tmp_path / "rank3.jsonl", tmp_path / "rank3.ddpsum.json.gz"
    with Recorder(jsonl, rank=3, summary=summary) as rec:
        for s in source.steps:
            for i in (*s.phases, *s.collectives):
                rec.record(
                    i.phase if i.phase != "unknown" else "other_comm", i.start_ms / 1000, i.end_ms / 1000, s.step
                )
    from_file = load([("rank3.jsonl", jsonl.read_bytes())]).traces[0]
    assert summary.read_bytes() == summary_bytes(facts_of(from_file))
    assert summary.read_bytes().startswith(b"\x1f\x8b") and gzip.decompress(summary.read_bytes()).startswith(MAGICS[0])
    assert load([("s", summary.read_bytes())]).traces[0].rank == 3


SUMMARY_OF_TRANSIENT = summarised(load(files("ddp8_transient", "rank0.jsonl.gz")).traces)[0][1]


@settings(max_examples=200, deadline=None)
@given(
    row=st.integers(0, 38),
    column=st.integers(0, 18),
    bad=st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**20), 10**20),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=3),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
    ),
)
def test_any_value_anywhere_reads_or_is_one_line(row, column, bad):
    """Whatever a cell holds, the summary reads or gives one error line: never an exception out of `load`."""
    first = body(SUMMARY_OF_TRANSIENT)
    first["steps"][row % len(first["steps"])][column] = bad
    loaded = load([("cell.json.gz", again(first))])
    assert len(loaded.traces) + len(loaded.errors) == 1
    assert all("\n" not in e.message for e in loaded.errors)
