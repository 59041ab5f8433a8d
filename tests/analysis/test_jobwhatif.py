"""The what-if of a 3D-parallel job against the published results of the OSDI 2025 artifact (tests/fixtures/jobs3d:
ByteDance-Seed/StragglerAnalysis `data/`, Apache-2.0), and its handling of tables that do not hold one job."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddpcore.analysis import job_whatif
from ddpcore.analysis.jobwhatif import (
    JobTimes,
    JobWhatIf,
    job_times,
    job_verdict,
    simulate,
    simulated_job,
    stage_loads,
)
from ddpcore.traces.optrace import OpTraceError, groups_of_meta, op_table, read_op_parquet

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "jobs3d"
TRACES = ("AR", "ST", "SE")
CLOSE = 1e-3


@cache
def laid_out(name: str) -> JobTimes:
    rows = read_op_parquet((HERE / f"trace-{name}.parquet").read_bytes())
    return job_times(rows, groups_of_meta((HERE / f"meta-{name}.yaml").read_text()))


@cache
def whatif(name: str) -> JobWhatIf:
    return job_whatif(laid_out(name))


def published(name: str, kind: str = "result") -> dict:
    return json.loads((HERE / f"{kind}-{name}.json").read_text())


@pytest.mark.parametrize("name", TRACES)
def test_slowdown_and_its_split_are_the_published_ones(name: str) -> None:
    w, ref = whatif(name), published(name)
    assert w.slowdown == pytest.approx(ref["blocking_slowdown"], abs=CLOSE)
    assert w.launch_slowdown == pytest.approx(ref["launch_slowdown"], abs=CLOSE)
    for ours, theirs in (
        (w.by_dp, "blocking_decompose_by_dp_rank"),
        (w.by_stage, "blocking_decompose_by_stage"),
        (w.by_optype, "blocking_decompose_by_optype"),
    ):
        assert {str(k) for k in ours} == set(ref[theirs])
        for k, v in ours.items():
            assert v == pytest.approx(ref[theirs][str(k)], abs=CLOSE), (theirs, k)
    assert [str(k) for k in w.by_stage][0] == next(iter(ref["blocking_decompose_by_stage"]))


@pytest.mark.parametrize("name", TRACES)
def test_per_step_split_is_the_published_one(name: str) -> None:
    w, ref = whatif(name), published(name)
    for s, ratio in w.step_slowdown.items():
        assert ratio == pytest.approx(ref["blocking_step_slowdown"][str(s)], abs=CLOSE)
    for ours, theirs in (
        (w.by_dp_step, "blocking_decompose_by_dp_rank_per_step"),
        (w.by_stage_step, "blocking_decompose_by_stage_per_step"),
    ):
        for s, by in ours.items():
            for k, v in by.items():
                assert v == pytest.approx(ref[theirs][str(s)][str(k)], abs=CLOSE), (theirs, s, k)


@pytest.mark.parametrize("name", TRACES)
def test_m_w_and_m_s_are_the_published_ones(name: str) -> None:
    w = whatif(name)
    assert w.m_w == pytest.approx(published(name, "mw")["Mw"], abs=CLOSE)
    assert w.m_s == pytest.approx(published(name, "ms")["Ms"], abs=CLOSE)


def test_the_verdict_names_each_published_cause() -> None:
    ar, st, se = (job_verdict(whatif(n)) for n in TRACES)
    assert [m.code for m in ar] == ["job.worker"]
    assert dict(ar[0].values)["dp"] == 0 and dict(ar[0].values)["stage"] == 0
    assert dict(ar[0].values)["parts"] == ("backward-compute", "forward-compute")
    assert [m.code for m in st] == ["job.last_stage"] and dict(st[0].values)["stage"] == 3
    assert [m.code for m in se] == ["job.data_parallel", "job.last_stage"]
    for m in (*ar, *st, *se):
        assert "{" not in m.text("fr") and m.text("fr") != m.text("en")


@pytest.mark.parametrize("name", TRACES)
def test_the_graph_replays_the_recorded_step(name: str) -> None:
    """With every operation's recorded duration, transfer and launch gap, the graph re-times each step as recorded:
    the dependencies are the ones the trace ran by."""
    times = laid_out(name)
    line = simulate(times, times.duration, times.transfer, times.delay)
    rows = read_op_parquet((HERE / f"trace-{name}.parquet").read_bytes()).rows()
    starts = {}
    for o in rows:
        starts.setdefault(o.step, []).append(o.start)
    first = {s: min(v) for s, v in starts.items()}
    index = {s: t for t, s in enumerate(times.steps)}
    worst = 0.0
    for o in rows:
        if o.step not in index or (o.optype, o.seq, o.stage) not in line.ends:
            continue
        i = index[o.step] * times.dps + o.dp
        worst = max(worst, abs(line.ends[(o.optype, o.seq, o.stage)][i] - (o.end - first[o.step])))
    assert worst < 0.02


def test_ideal_step_is_no_longer_than_the_slowest_real_step() -> None:
    for name in TRACES:
        w = whatif(name)
        assert all(math.isfinite(v) and v > 0 for v in (*w.ideal_s, *w.nodelay_s))
        assert statistics_mean(w.ideal_s) <= statistics_mean(w.nodelay_s)


def statistics_mean(values: tuple[float, ...]) -> float:
    return math.fsum(values) / len(values)


def small_rows() -> list:
    return read_op_parquet((HERE / "trace-ST.parquet").read_bytes()).rows()


def test_a_step_that_lacks_an_operation_is_left_out_with_a_line() -> None:
    rows = small_rows()
    steps = sorted({o.step for o in rows})
    drop = next(i for i, o in enumerate(rows) if o.step == steps[3] and o.optype == "forward-compute" and o.dp == 1)
    times = job_times(rows[:drop] + rows[drop + 1 :], groups_of_meta((HERE / "meta-ST.yaml").read_text()))
    assert steps[3] not in times.steps and len(times.steps) == len(steps) - 1
    assert len(times.skipped) == 1 and f"step {steps[3]} left out" in times.skipped[0].text()
    assert "forward-compute" in times.skipped[0].text() and "dp rank 1" in times.skipped[0].text()


def test_groups_that_do_not_match_the_table_are_one_line_each() -> None:
    rows = small_rows()
    meta = groups_of_meta((HERE / "meta-ST.yaml").read_text())
    with pytest.raises(OpTraceError, match="stages 0, 1, 2, 3 but the job has 2"):
        job_times(rows, replace(meta, pp=2))
    with pytest.raises(OpTraceError, match="data-parallel ranks 0, 1 but the job has 4"):
        job_times(rows, replace(meta, dp=4))
    with pytest.raises(OpTraceError, match="no step holds every worker's operations: step 23 left out"):
        job_times([replace(o, dp=2) if o.dp == 1 and o.step == 23 else o for o in rows], replace(meta, dp=3))
    with pytest.raises(OpTraceError, match="stages 0, 1, 3"):
        job_times([o for o in rows if o.stage != 2], meta)
    with pytest.raises(OpTraceError, match="world_size is 9"):
        groups_of_meta("dp_size: 2\npp_size: 4\nworld_size: 9\n")
    with pytest.raises(OpTraceError, match="not a whole number"):
        groups_of_meta("dp_size: two\n")


@pytest.mark.parametrize("bad", [float("nan"), -1.0, -0.011, float("inf"), 1e9])
def test_times_read_are_bounded(bad: float) -> None:
    cols = {
        "dp_rank": [0],
        "stage": [0],
        "rank": [0],
        "step": [1],
        "optype": ["optimizer"],
        "start_ts": [0.0],
        "duration": [bad],
        "seq_id": [0],
    }
    with pytest.raises(OpTraceError, match="row 0: duration"):
        op_table(cols)


def test_not_an_operation_table() -> None:
    with pytest.raises(OpTraceError, match="no column"):
        op_table({"step": [1]})
    with pytest.raises(OpTraceError, match="not a Parquet file"):
        read_op_parquet(b"PAR1 but not really")


def test_a_parquet_file_the_standard_library_leaves_goes_to_pyarrow(monkeypatch: pytest.MonkeyPatch) -> None:
    """An LZ4-compressed table (a codec the standard library lacks) is read by pyarrow when it is installed, the
    same table; without it, one line says what to install."""
    import io

    import pyarrow.parquet as pq

    out = io.BytesIO()
    source = pq.read_table(HERE / "trace-ST.parquet")
    pq.write_table(source, out, compression="LZ4")
    assert read_op_parquet(out.getvalue()).rows() == read_op_parquet((HERE / "trace-ST.parquet").read_bytes()).rows()
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(OpTraceError, match=r"compressed with LZ4: pip install \"ddpcore\[parquet\]\" reads it"):
        read_op_parquet(out.getvalue())


@settings(max_examples=25, deadline=None)
@given(
    dp=st.integers(1, 3),
    pp=st.integers(2, 4),
    micro=st.integers(2, 4),
    factor=st.floats(1.5, 3.0),
    data=st.data(),
)
def test_a_slow_worker_is_the_one_named(dp: int, pp: int, micro: int, factor: float, data: st.DataObject) -> None:
    """Whatever the shape of the job, the worker that computes slower is the worst one, and the clean job has no
    slowdown and no diagnosis. (With one micro-batch a pipeline runs its stages one after the other, so a stage
    slower than the mean and one faster cancel in the ideal: micro-batches from 2.)"""
    slow = (data.draw(st.integers(0, dp - 1)), data.draw(st.integers(0, pp - 1)))
    w = job_whatif(job_times(*simulated_job(dp=dp, pp=pp, steps=3, micro=micro, slow=slow, factor=factor)))
    assert w.slowdown > 1.03
    assert max(w.by_stage, key=lambda s: w.by_stage[s]) == slow[1]
    if dp > 1:
        assert w.worst_workers[0] == slow and max(w.by_dp, key=lambda d: w.by_dp[d]) == slow[0]
        assert [m.code for m in job_verdict(w)] == ["job.worker"], "one slow worker, not its stage"
    clean = job_whatif(job_times(*simulated_job(dp=dp, pp=pp, steps=3, micro=micro)))
    assert clean.slowdown == pytest.approx(1.0, abs=1e-9)
    assert [m.code for m in job_verdict(clean)] == ["job.none"]


def test_an_interleaved_job_in_the_artifacts_format_reads_its_no_ops_as_carrying_nothing() -> None:
    """Megatron's interleaved schedule records a send or receive beside every compute (the artifact's format: none
    names its chunk), those at either end of the model carrying nothing, and now and then a receive beyond the step's
    work: read with them, a job gives the figures it gives without them, and the last stage's forward sends feed the
    first stage's next chunk (the ring)."""
    from collections import defaultdict
    from dataclasses import replace

    drawn, groups = simulated_job(dp=2, pp=2, steps=3, micro=2, vpp=2, slow=(1, 0))
    rows = [replace(o, start=o.start + 1.0) for o in drawn]
    bare = job_whatif(job_times(rows, groups))
    assert bare.worst_workers == ((1, 0),) and bare.slowdown > 1.2
    ends = {
        "forward-recv": (0, 0, -1),
        "forward-send": (1, 1, 1),
        "backward-recv": (1, 1, -1),
        "backward-send": (0, 0, 1),
    }
    added = []
    for o in rows:
        for optype, (stage, chunk, side) in ends.items():
            if o.optype == optype.split("-")[0] + "-compute" and (o.stage, o.chunk) == (stage, chunk):
                at = o.start - 2e-3 if side < 0 else o.end + 1e-3
                added.append(replace(o, optype=optype, start=at, duration=1e-3, chunk=-1))
        if o.optype == "optimizer" and o.stage == 0:
            added.append(replace(o, optype="forward-recv", start=o.start - 2e-3, duration=1e-3))
    ordered: dict[tuple, list] = defaultdict(list)
    for o in sorted([*rows, *added], key=lambda o: o.start):
        ordered[(o.dp, o.stage, o.step, o.optype)].append(o)
    padded = [replace(o, seq=n) for same in ordered.values() for n, o in enumerate(same)]
    times = job_times(padded, groups)
    w = job_whatif(times)
    assert w.slowdown == pytest.approx(bare.slowdown, rel=1e-3)
    assert w.by_worker == pytest.approx(bare.by_worker, rel=1e-3) and w.m_w == pytest.approx(bare.m_w, abs=1e-3)
    forward = [g for g in times.graph.groups if len(g) == 2 and g[0][0] == "forward-send"]
    assert {(g[0][2], g[1][2]) for g in forward} == {(0, 1), (1, 0)}


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4), st.integers(2, 4), st.integers(0, 3), st.integers(0, 3), st.floats(1.5, 4.0, allow_nan=False))
def test_one_slow_worker_never_makes_its_stage_heavy(dp: int, pp: int, d: int, s: int, factor: float) -> None:
    """A stage's load is its least loaded worker's: one slow worker among its DP peers leaves every stage at or
    under the mean worker, and the words name the worker, never a stage that holds too much of the model."""
    times = job_times(*simulated_job(dp=dp, pp=pp, steps=2, slow=(d % dp, s % pp), factor=factor))
    assert max(stage_loads(times).values()) <= 1.0 + 1e-9
    said = [m.code for m in job_verdict(job_whatif(times))]
    assert said[0] == "job.worker" and "job.heavy_stage" not in said


def test_with_one_data_parallel_rank_a_slow_worker_is_its_stage_too() -> None:
    """One worker a stage: its load is the stage's, and both are said (they cannot be told apart)."""
    times = job_times(*simulated_job(dp=1, pp=2, steps=3, slow=(0, 1)))
    assert stage_loads(times) == pytest.approx({0: 2 / 3, 1: 4 / 3})
    assert [m.code for m in job_verdict(job_whatif(times))] == ["job.worker", "job.last_stage"]
