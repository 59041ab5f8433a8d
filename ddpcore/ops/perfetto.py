"""An analysis as a Chrome trace-event file (`analyze --perfetto OUT.json`), the format the PyTorch profiler
writes and Perfetto and chrome://tracing open: each rank's steps as measured (its work, its wait at the barrier, and
for the ranks the lanes draw, their phases), the what-if's re-timed steps on their own track, and the verdict's
facts as instant events and counters.

Ranks are aligned on each step's release (their clocks differ; the release is the instant they share): step j's
release follows step j-1's by step j's median step. Times are in µs, as the profiler writes them.

>>> from ddpcore.analysis import analyze
>>> from ddpcore.traces import simulated_run
>>> events = trace_events(analyze(simulated_run(4, 10, persistent=(2,), seed=1)[0]))["traceEvents"]
>>> sorted({e["ph"] for e in events})
['C', 'M', 'X', 'i']
"""

from __future__ import annotations

import math

from ..analysis import Analysis, StepSummary
from ..analysis.jobwhatif import JobTimes, Timeline

__all__ = ["JOB_EVENTS", "PERFETTO_RANKS", "job_trace_events", "trace_events"]

PERFETTO_RANKS = 64
"""Every rank gets a track up to this many; past it, only the ranks the lanes draw (the latest and the median)."""
US = 1000.0


def _x(name: str, pid: int, tid: int, start_ms: float, dur_ms: float, **args: object) -> dict:
    return {
        "name": name,
        "ph": "X",
        "pid": pid,
        "tid": tid,
        "ts": max(0.0, round(start_ms * US, 3)),
        "dur": round(max(0.0, dur_ms) * US, 3),
        "args": args,
    }


def _meta(pid: int, name: str, sort: int, tid: int | None = None) -> list[dict]:
    kind = "thread_name" if tid is not None else "process_name"
    out = [{"name": kind, "ph": "M", "pid": pid, "tid": tid or 0, "args": {"name": name}}]
    if tid is None:
        out.append({"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0, "args": {"sort_index": sort}})
    return out


def _rank_events(step: StepSummary, release_ms: float, shown: set[int] | None) -> list[dict]:
    c = step.columns
    out = []
    for i, rank in enumerate(c.ranks):
        if shown is not None and rank not in shown:
            continue
        wait, work = float(c.wait_ms[i]), float(c.work_ms[i])
        ready = release_ms - wait
        late = rank in step.late_ranks
        out.append(_x("work", rank, 1, ready - work, work, step=step.step, late=late, cost_ms=float(c.cost_ms[i])))
        out.append(_x("wait at the barrier", rank, 1, ready, wait, step=step.step))
    for d in step.drawn:
        if shown is not None and d.rank not in shown:
            continue
        offset = release_ms - (d.start_ms + d.ready_ms + d.wait_ms)
        for span in d.spans:
            out.append(_x(span.phase, d.rank, 2, span.start_ms + offset, span.end_ms - span.start_ms, step=step.step))
    return out


def _origin(step: StepSummary) -> float:
    """Where the first release goes: late enough that every rank's work and every drawn span starts at 0 or later."""
    c = step.columns
    work = max((float(w) + float(k) for w, k in zip(c.wait_ms, c.work_ms)), default=0.0)
    drawn = max(
        (
            d.start_ms + d.ready_ms + d.wait_ms - min((i.start_ms for i in d.spans), default=d.start_ms)
            for d in step.drawn
        ),
        default=0.0,
    )
    return max(work, drawn, 0.0)


def trace_events(analysis: Analysis) -> dict:
    """The analysis as trace events (`traceEvents`, `ph` X, i, C and M, `pid` a rank, `tid` 1 its work and waits,
    2 its phases), with the what-if and the verdict as processes of their own."""
    ranks = [r.rank for r in analysis.ranks]
    whatif_pid, verdict_pid = max(ranks, default=0) + 1, max(ranks, default=0) + 2
    events = [*_meta(verdict_pid, "verdict", 0), *_meta(whatif_pid, "what-if: late rank-steps on time", 1)]
    events += _meta(whatif_pid, "re-timed steps", 0, tid=1)
    shown = None if len(ranks) <= PERFETTO_RANKS else {d.rank for s in analysis.steps for d in s.drawn}
    for r in ranks if shown is None else sorted(shown):
        events += [*_meta(r, f"rank {r}", 2 + r), *_meta(r, "work and barrier", 0, 1), *_meta(r, "phases", 0, 2)]
    release, retimed = _origin(analysis.steps[0]) if analysis.steps else 0.0, 0.0
    for j, s in enumerate(analysis.steps):
        start, release = release, release + (s.median_step_ms if j else 0.0)
        events += _rank_events(s, release, shown)
        shorter = s.median_step_ms - s.saved_ms
        events.append(
            _x(f"step {s.step}", whatif_pid, 1, retimed, shorter, saved_ms=s.saved_ms, measured_ms=s.median_step_ms)
        )
        retimed += shorter
        events.append(
            {
                "name": "straggler cost (ms)",
                "ph": "C",
                "pid": verdict_pid,
                "tid": 0,
                "ts": round(start * US, 3),
                "args": {"saved": round(s.saved_ms, 6), "late ranks": len(s.late_ranks)},
            }
        )
        for rank in s.late_ranks:
            events.append(
                {
                    "name": f"rank {rank} late",
                    "ph": "i",
                    "s": "p",
                    "pid": verdict_pid,
                    "tid": 0,
                    "ts": round(release * US, 3),
                    "args": {"step": s.step, "rank": rank},
                }
            )
    for st in analysis.stragglers:
        cause = st.cause.kind if st.cause else "unknown"
        events.append(
            {
                "name": f"persistent straggler: rank {st.rank} ({cause})",
                "ph": "i",
                "s": "g",
                "pid": verdict_pid,
                "tid": 0,
                "ts": 0.0,
                "args": {
                    "rank": st.rank,
                    "cause": cause,
                    "late_steps": st.late_steps,
                    "median_cost_ms": st.median_cost_ms,
                },
            }
        )
    finite = all(math.isfinite(e.get("ts", 0.0)) and math.isfinite(e.get("dur", 0.0)) for e in events)
    if not finite:
        raise ValueError("a time that is not finite")
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {
            "ddpcore": "analyze --perfetto",
            "step_ms": analysis.step_ms,
            "ideal_step_ms": analysis.ideal_step_ms,
            "stragglers": [s.rank for s in analysis.stragglers],
        },
    }


JOB_EVENTS = 200_000
"""The most operations a job's export draws per timeline (steps past it are left out, and said): Perfetto opens
that many in a few seconds."""
IDEAL_PID = 10_000
"""The ideal timeline's processes are numbered from here (the measured one's are the DP ranks)."""


def _job_lane(times: JobTimes, line: Timeline, pid_base: int, label: str) -> tuple[list[dict], int]:
    """One timeline of a job: a process per DP rank, a thread per stage, its steps one after another (each from the
    end of the one before); the events and how many steps were drawn."""
    events: list[dict] = []
    for d in range(times.dps):
        events += _meta(pid_base + d, f"DP rank {d}, {label}", pid_base + d)
        events += [e for s in range(times.groups.pp) for e in _meta(pid_base + d, f"stage {s}", 0, s)]
    keys = list(line.ends)
    offset, drawn = 0.0, 0
    for t, step in enumerate(times.steps):
        lo, hi = t * times.dps, (t + 1) * times.dps
        if drawn and len(events) + len(keys) * times.dps > JOB_EVENTS:
            break
        for k in keys:
            for i in range(lo, hi):
                start, end = line.starts[k][i], line.ends[k][i]
                events.append(
                    _x(
                        k[0],
                        pid_base + i % times.dps,
                        k[2],
                        (offset + start) * US,
                        (end - start) * US,
                        step=step,
                        seq=k[1],
                    )
                )
        offset += max(max(line.ends[k][lo:hi]) for k in keys) * 1.02
        drawn += 1
    return events, drawn


def job_trace_events(times: JobTimes, measured: Timeline, ideal: Timeline) -> dict:
    """A 3D-parallel job as a Chrome trace-event file: each DP rank's stages as recorded, and the same in the ideal
    (every operation at its typical duration, `analysis.job_timelines`) below, so that Perfetto shows where the
    recorded step loses its time. Times in µs; at most JOB_EVENTS operations per timeline (a note says how many steps
    were drawn).

    >>> from ddpcore.analysis.jobwhatif import job_times, job_timelines, simulated_job
    >>> times = job_times(*simulated_job(dp=2, pp=2, steps=2, slow=(1, 0)))
    >>> events = job_trace_events(times, *job_timelines(times))["traceEvents"]
    >>> sorted({e["pid"] for e in events if e["ph"] == "X"})
    [0, 1, 10000, 10001]
    """
    real, shown = _job_lane(times, measured, 0, "measured")
    typical, _ = _job_lane(times, ideal, IDEAL_PID, "ideal (typical durations)")
    note = {
        "name": f"{shown} of {len(times.steps)} steps drawn",
        "ph": "i",
        "s": "g",
        "pid": 0,
        "tid": 0,
        "ts": 0.0,
    }
    return {"traceEvents": [*real, *typical, note], "displayTimeUnit": "ms"}
