"""`analyze --perfetto`: a Chrome trace-event file (the profiler's format) of the steps as measured, the what-if's
re-timed steps and the verdict, checked against the event format and against the analysis it shows."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from paths import FIXTURES

from ddpcore.analysis import analyze
from ddpcore.cli import main
from ddpcore.ops.perfetto import PERFETTO_RANKS, trace_events
from ddpcore.traces import load, simulated_run

PHASES = {"X": {"name", "ph", "pid", "tid", "ts", "dur"}, "i": {"name", "ph", "pid", "tid", "ts", "s"}}
PHASES |= {"C": {"name", "ph", "pid", "tid", "ts", "args"}, "M": {"name", "ph", "pid", "tid", "args"}}


def well_formed(trace: dict) -> list[dict]:
    """The events, each with the fields its phase needs, times finite and not negative, every pid named."""
    events = trace["traceEvents"]
    named = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    for e in events:
        assert PHASES[e["ph"]] <= set(e), e
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        if "ts" in e:
            assert e["ts"] >= 0 and e.get("dur", 0) >= 0
        assert e["pid"] in named
    return events


@pytest.fixture(scope="module")
def run():
    traces = load([(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp8/s2.0").glob("*.pt.trace.json.gz"))])
    analysis = analyze(traces.traces)
    return analysis, trace_events(analysis)


def test_each_rank_works_then_waits_until_the_step_s_release(run):
    analysis, trace = run
    events = well_formed(trace)
    by_rank = defaultdict(list)
    for e in events:
        if e["ph"] == "X" and e["tid"] == 1 and e["pid"] in range(8):
            by_rank[e["pid"]].append(e)
    assert sorted(by_rank) == list(range(8))
    release = by_rank[0][1]["ts"] + by_rank[0][1]["dur"]
    for j, step in enumerate(analysis.steps):
        release += step.median_step_ms * 1000 if j else 0.0
        for rank in range(8):
            work, wait = by_rank[rank][2 * j], by_rank[rank][2 * j + 1]
            assert (work["name"], wait["name"]) == ("work", "wait at the barrier")
            assert work["ts"] + work["dur"] == pytest.approx(wait["ts"], abs=0.01)
            assert wait["ts"] + wait["dur"] == pytest.approx(release, abs=0.01)
            assert work["args"]["late"] == (rank in step.late_ranks)


def test_the_whatif_track_is_each_step_less_what_it_saves_and_the_verdict_is_marked(run):
    analysis, trace = run
    events = well_formed(trace)
    whatif = [e for e in events if e["ph"] == "X" and e["name"].startswith("step ")]
    assert [e["name"] for e in whatif] == [f"step {s.step}" for s in analysis.steps]
    for e, s in zip(whatif, analysis.steps):
        assert e["dur"] == pytest.approx((s.median_step_ms - s.saved_ms) * 1000, abs=0.01)
    assert sum(e["dur"] for e in whatif) / len(whatif) / 1000 == pytest.approx(analysis.ideal_step_ms, rel=0.02)
    late = [e for e in events if e["ph"] == "i" and e["name"].endswith(" late")]
    assert len(late) == sum(len(s.late_ranks) for s in analysis.steps) > 0
    marked = [e for e in events if e["name"].startswith("persistent straggler: rank 2")]
    assert len(marked) == 1 and marked[0]["args"]["cause"] == analysis.stragglers[0].cause.kind
    assert {e["name"] for e in events if e["ph"] == "X" and e["tid"] == 2} >= {"forward", "backward"}


def test_past_64_ranks_only_the_drawn_ranks_get_tracks():
    analysis = analyze(simulated_run(PERFETTO_RANKS + 36, 6, persistent=(7,), seed=2)[0])
    events = well_formed(trace_events(analysis))
    drawn = {d.rank for s in analysis.steps for d in s.drawn}
    shown = {e["pid"] for e in events if e["ph"] == "X" and e["tid"] == 1 and e["name"] == "work"}
    assert shown == drawn and 7 in shown


def test_the_command_writes_it_and_says_so(tmp_path, capsys):
    out = tmp_path / "run.json"
    paths = [str(p) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    assert main(["analyze", *paths, "--perfetto", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["perfetto"] == str(out)
    well_formed(json.loads(out.read_text()))
    assert main(["analyze", *paths, "--perfetto", str(tmp_path / "missing" / "run.json")]) == 1
    assert "missing" in capsys.readouterr().err
