"""Slow-motion clock: wall seconds to step milliseconds, lingering on the AllReduce so exchanges can be followed."""

from __future__ import annotations

from dataclasses import dataclass

from ddpcore.ring import exchange_count
from ddpcore.schedule import Schedule, exchange_end_ms, exchanges_done_at

SECONDS_PER_MS = 0.09
ALLREDUCE_STRETCH = 5.0


@dataclass(frozen=True)
class Position:
    t_ms: float
    exchange: int
    done: bool


def duration_s(schedule: Schedule) -> float:
    ar = schedule.config.phases.allreduce
    return SECONDS_PER_MS * (schedule.step_ms - ar + ar * ALLREDUCE_STRETCH)


def position(schedule: Schedule, elapsed_s: float) -> Position:
    """Where the playhead is after `elapsed_s` of play."""
    total = exchange_count(schedule.config.gpus)
    start = schedule.barrier_ms
    ar = schedule.config.phases.allreduce
    before = start * SECONDS_PER_MS
    during = ar * SECONDS_PER_MS * ALLREDUCE_STRETCH
    e = max(elapsed_s, 0.0)
    if e <= before:
        t = e / SECONDS_PER_MS
    elif e <= before + during:
        t = start + (e - before) / (SECONDS_PER_MS * ALLREDUCE_STRETCH)
    else:
        t = start + ar + (e - before - during) / SECONDS_PER_MS
    t = min(t, schedule.step_ms)
    return Position(t, exchanges_done_at(schedule, t, total), e >= duration_s(schedule))


def elapsed_for(schedule: Schedule, t_ms: float) -> float:
    """Inverse of position(): resume play from a playhead set by 'next exchange'."""
    start = schedule.barrier_ms
    ar = schedule.config.phases.allreduce
    if t_ms <= start:
        return t_ms * SECONDS_PER_MS
    if t_ms <= start + ar:
        return start * SECONDS_PER_MS + (t_ms - start) * SECONDS_PER_MS * ALLREDUCE_STRETCH
    return (t_ms - ar + ar * ALLREDUCE_STRETCH) * SECONDS_PER_MS


def playhead_for_exchange(schedule: Schedule, k: int) -> float:
    return exchange_end_ms(schedule, k, exchange_count(schedule.config.gpus))
