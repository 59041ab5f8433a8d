"""Recorded traces played back as live per-rank metrics: each analysed step, at its measured pace (or faster), in
a loop, so Prometheus rules and a dashboard can be tried without a cluster (`python -m ddpcore replay`).

The frames are plain data (standard library); serving them needs the exporter's extra (`ddpcore.exporter`).

>>> frames = [Frame(0.05, {0: StepTimes(1, 0.05, 0.01)}), Frame(0.06, {0: StepTimes(2, 0.06, 0.02)})]
>>> [f.seconds for f in frames_at(frames, speed=2.0)]
[0.025, 0.03]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from ..analysis import Analysis
from ..traces import RankColumns, RankFacts, RankTrace, table_of
from .instrument import StepTimes

__all__ = ["Frame", "frames_at", "frames_of", "play"]


@dataclass(frozen=True)
class Frame:
    """One step of the run: how long it lasted (s) and what each rank's exporter shows once it has finished."""

    seconds: float
    ranks: dict[int, StepTimes]


def frames_of(analysis: Analysis, ranks: Sequence[RankTrace | RankFacts | RankColumns]) -> list[Frame]:
    """Every analysed step of the ranks analysed as a frame: each rank's period, arrival, phase times and wait at
    the barrier, in seconds.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import analyze
    >>> ranks = simulated_run(8, 30, persistent=(3,), seed=1)[0]
    >>> frames = frames_of(analyze(ranks), ranks)
    >>> len(frames), sorted(frames[0].ranks)[:3], round(frames[0].ranks[3].seconds, 3)
    (30, [0, 1, 2], 0.047)
    """
    tables = [table_of(r) for r in ranks]
    rows = [{n: i for i, n in enumerate(t.step)} for t in tables]
    frames = []
    for s in analysis.steps:
        times = {}
        for t, where in zip(tables, rows):
            i = where[s.step]
            phases = {p: column[i] / 1000 for p, column in t.phases_ms.items()}
            wait = max(0.0, t.anchor_ms[i] - t.compute_ms[i]) / 1000
            times[t.rank] = StepTimes(s.step, t.period_ms[i] / 1000, t.arrival_ms[i] / 1000, phases, wait)
        frames.append(Frame(s.median_step_ms / 1000, dict(sorted(times.items()))))
    return frames


def frames_at(frames: Sequence[Frame], speed: float) -> list[Frame]:
    """The same frames played `speed` times faster (the values shown stay those measured)."""
    return [replace(f, seconds=f.seconds / speed) for f in frames]


def play(
    frames: Sequence[Frame],
    show: Callable[[int, StepTimes], None],
    loops: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Show each frame once its step has lasted its time, in a loop (`loops` times, or until interrupted);
    returns how many frames were shown."""
    shown = 0
    passes: Iterable[int] = range(loops) if loops is not None else iter(int, 1)
    for _ in passes:
        for frame in frames:
            sleep(frame.seconds)
            for rank, times in frame.ranks.items():
                show(rank, times)
            shown += 1
    return shown
