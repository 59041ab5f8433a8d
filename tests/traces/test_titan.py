"""torchtitan's structured logs, read as they are (tests/fixtures/titan, `tests/make_titan.py`): 4 ranks on CPU
logged by torchtitan's own logger in its trainer's step shape, clean, with a rank slow to fetch its batch, a rank slow
inside fwd_bwd, and a rank slow to save its checkpoints; each against its measured wall times."""

from __future__ import annotations

import gzip
import json
import statistics

import pytest
from paths import FIXTURES
from runs import RunSet

from ddpcore.analysis import analyze
from ddpcore.base.phases import CHECKPOINT, FORWARD_BACKWARD, LOAD, OPTIMIZER
from ddpcore.cli.verdicts import analysis_payload, analysis_text
from ddpcore.traces import load, read_paths, summary_bytes, table_of
from ddpcore.traces.columnar import MAGICS

RUNS = RunSet(FIXTURES / "titan")
LOGS = "training.global_rank_*.jsonl.gz"


def growth(name: str, steps: list[int]) -> float:
    """How much longer the run's steps took than the clean run's, over `steps`: each step's wall time the median
    rank's (the truth's lists start at step 1)."""

    def walls(run: str) -> float:
        w = RUNS.truth(run)["step_ms"]
        return statistics.fmean(statistics.median(ranks[s - 1] for ranks in w.values()) for s in steps)

    return walls(name) - walls("clean")


def test_each_rank_s_log_is_told_by_its_content_and_read_as_spans():
    read = read_paths(sorted(str(p) for p in (FIXTURES / "titan" / "clean").glob(LOGS)))
    assert not read.errors and [t.rank for t in sorted(read.traces, key=lambda t: t.rank)] == [0, 1, 2, 3]
    for trace in read.traces:
        assert trace.kind == "torchtitan" and [s.step for s in trace.steps] == list(range(1, 61))
        for s in trace.steps:
            assert {p.phase for p in s.phases} >= {LOAD, FORWARD_BACKWARD, OPTIMIZER}
            assert [c.phase for c in s.collectives] == ["allreduce"], "the token count's all-reduce: the barrier"
            assert s.collectives[0].end_ms == min(p.start_ms for p in s.phases if p.phase == FORWARD_BACKWARD)
        assert any(CHECKPOINT in {p.phase for p in s.phases} for s in trace.steps)


def _row(name: str, at: int, step: int = 1, rank: int = 0) -> str:
    return json.dumps(
        {"rank": rank, "step": step, "time_us": at, "log_type": "event", "log_type_name": name, "task_name": None}
    )


def test_a_small_log_is_read_and_bad_rows_are_one_line_each():
    spans = [
        ("step", 0, 100_000),
        ("fetching_batch", 1_000, 11_000),
        ("fwd_bwd", 12_000, 80_000),
        ("optim", 80_000, 90_000),
    ]
    rows = [_row(f"{n}_start", a) for n, a, _ in spans] + [_row(f"{n}_end", b) for n, _, b in reversed(spans)]
    rows.insert(0, json.dumps({"rank": 0, "time_us": 0, "log_type": "instant", "log_type_name": "training_start"}))
    good = "\n".join(rows).encode()
    backwards = "\n".join([_row("fwd_bwd_start", 50_000), _row("fwd_bwd_end", 40_000)]).encode()
    mixed = "\n".join([_row("step_start", 0), _row("step_end", 10, rank=1)]).encode()
    nothing = "\n".join([_row("optim_start", 0), _row("optim_end", 10)]).encode()
    got = load([("r0.jsonl", good), ("back.jsonl", backwards), ("two.jsonl", mixed), ("none.jsonl", nothing)])
    (trace,) = got.traces
    (s,) = trace.steps
    assert [(p.phase, p.start_ms, p.end_ms) for p in s.phases] == [
        (LOAD, 1.0, 11.0),
        (FORWARD_BACKWARD, 12.0, 80.0),
        (OPTIMIZER, 80.0, 90.0),
    ]
    assert [(c.start_ms, c.end_ms) for c in s.collectives] == [(11.0, 12.0)] and (s.start_ms, s.end_ms) == (0.0, 100.0)
    said = {e.source: e.message for e in got.errors}
    assert "line 2: 'time_us' must be finite microseconds" in said["back.jsonl"]
    assert "rank 1 in a file of rank 0" in said["two.jsonl"]
    assert "no step holding a fwd_bwd span" in said["none.jsonl"]
    assert all("\n" not in m for m in said.values())


def test_the_clean_run_names_nobody_and_says_what_such_logs_cannot_show():
    a = RUNS.analysed("clean", LOGS)
    assert a.stragglers == () and a.transient.straggler_steps == 0 and a.straggler_cost_ms == 0
    assert [w.code for w in a.warnings] == ["logged_spans"]
    assert "a rank slow inside fwd_bwd is not seen" in analysis_text(analysis_payload(a, []))


def test_a_rank_slow_to_fetch_its_batch_is_named_with_its_cause_and_cost():
    a = RUNS.analysed("slow_load", LOGS)
    t = RUNS.truth("slow_load")
    assert [(s.rank, s.from_step) for s in a.stragglers] == [(t["rank"], t["from_step"])]
    assert a.stragglers[0].cause is not None and a.stragglers[0].cause.kind == LOAD
    steps = [s.step for s in a.steps]
    slowed = [s for s in steps if s >= t["from_step"]]
    assert a.straggler_cost_ms == pytest.approx(growth("slow_load", slowed) * len(slowed) / len(steps), rel=0.2)


def test_a_rank_slow_inside_fwd_bwd_is_not_seen_and_the_verdict_says_why():
    """Every rank's fwd_bwd ends at the gradient all-reduce: the slow rank's sleep makes the others wait inside
    theirs, and the spans show nobody late. The run grew by about the sleep; the warning says what to record."""
    a = RUNS.analysed("slow_forward", LOGS)
    t = RUNS.truth("slow_forward")
    steps = [s.step for s in a.steps if s.step >= t["from_step"]]
    assert growth("slow_forward", steps) > 0.5 * t["sleep_ms"]
    assert a.stragglers == () and a.straggler_cost_ms == 0
    assert [w.code for w in a.warnings] == ["logged_spans"]
    assert "comm hook" in a.warnings[0] and "profiler window" in a.warnings[0]


def test_a_rank_slow_to_save_its_checkpoints_is_named_in_those_steps_as_checkpoint():
    a = RUNS.analysed("checkpoint", LOGS)
    t = RUNS.truth("checkpoint")
    every = t["checkpoint_every"]
    assert a.stragglers == ()
    assert set(a.transient.step_numbers) == {s + 1 for s in range(every, t["steps"], every) if s >= t["from_step"]}
    assert a.transient.cause is not None and a.transient.cause.kind == CHECKPOINT


def test_summaries_of_the_logs_are_version_4_and_tell_the_same_verdict():
    folder = FIXTURES / "titan" / "slow_load"
    read = read_paths(sorted(str(p) for p in folder.glob(LOGS)))
    summaries = [(f"rank{t.rank}.ddpsum.json.gz", summary_bytes(table_of(t))) for t in read.traces]
    assert all(gzip.decompress(data).startswith(MAGICS[1]) for _, data in summaries)
    again = load(summaries)
    assert not again.errors
    a, b = analyze(read.traces), analyze(again.traces)
    assert [s.rank for s in a.stragglers] == [s.rank for s in b.stragglers]
    assert b.stragglers[0].cause is not None and b.stragglers[0].cause.kind == LOAD
    assert b.straggler_cost_ms == pytest.approx(a.straggler_cost_ms, abs=0.05)
    assert [w.code for w in b.warnings] == ["logged_spans"]


def test_the_shards_pipeline_says_the_same_as_the_whole_measure():
    """A measure kept to one threshold (the command line's, and a Ray run's: `shards`) gives the same verdict and the
    same warning as the page's whole measure."""
    from ddpcore.analysis import judge, measure_loaded
    from ddpcore.analysis.parted import FilesRead, measure_parts

    files = sorted(str(p) for p in (FIXTURES / "titan" / "slow_load").glob(LOGS))
    whole, _ = measure_loaded(read_paths(files))
    kept, _ = measure_parts([FilesRead(files, 0)], 0.1)
    assert whole is not None and kept is not None
    a, b = judge(whole, 0.1), judge(kept, 0.1)
    assert [s.rank for s in a.stragglers] == [s.rank for s in b.stragglers] == [1]
    assert b.straggler_cost_ms == pytest.approx(a.straggler_cost_ms)
    assert [w.code for w in a.warnings] == [w.code for w in b.warnings] == ["logged_spans"]


def test_accumulation_evaluation_and_broken_spans_are_read_as_the_trainer_runs_them():
    """Two micro-batches fetched then two fwd_bwd (gradient accumulation): the barrier runs from the last batch
    fetched to the first fwd_bwd, and both are the step's forward and backward; an eval span, an `_error` record, an
    end with no start and a start with no end are left out."""
    rows = [
        _row("step_start", 0),
        _row("fetching_batch_start", 1_000),
        _row("fetching_batch_end", 3_000),
        _row("fetching_batch_start", 3_500),
        _row("fetching_batch_end", 6_000),
        _row("fwd_bwd_start", 7_000),
        _row("fwd_bwd_error", 8_000),
        _row("fwd_bwd_end", 20_000),
        _row("fwd_bwd_start", 20_500),
        _row("fwd_bwd_end", 35_000),
        _row("optim_end", 36_000),
        _row("eval_start", 40_000),
        _row("eval_end", 60_000),
        _row("gc_collect_start", 61_000),
        _row("step_end", 70_000),
    ]
    (trace,) = load([("r0.jsonl", "\n".join(rows).encode())]).traces
    (s,) = trace.steps
    assert [(p.phase, p.start_ms, p.end_ms) for p in s.phases] == [
        (LOAD, 1.0, 3.0),
        (LOAD, 3.5, 6.0),
        (FORWARD_BACKWARD, 7.0, 20.0),
        (FORWARD_BACKWARD, 20.5, 35.0),
    ]
    assert [(c.start_ms, c.end_ms) for c in s.collectives] == [(6.0, 7.0)] and (s.start_ms, s.end_ms) == (0.0, 70.0)
