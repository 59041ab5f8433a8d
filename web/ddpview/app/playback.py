"""Slow-motion clock: wall seconds to step milliseconds, lingering while gradients are on the wire."""

from __future__ import annotations

from dataclasses import dataclass

from ddpcore.model import Schedule
from ddpcore.model.schedule import exchange_end_ms, exchanges_done_at

__all__ = ["Position", "duration_s", "elapsed_for", "playhead_for_exchange", "position"]

SECONDS_PER_MS = 0.09
COMM_STRETCH = 5.0


@dataclass(frozen=True)
class Position:
    """Where the animation is: the time on the step's clock, the ring exchange shown, and whether it ended."""

    t_ms: float
    exchange: int
    done: bool


def _segments(schedule: Schedule) -> tuple[float, float, float]:
    """Communication start and end in step time, and the step's length."""
    start, end = schedule.comm_window
    return start, end, schedule.step_ms


def duration_s(schedule: Schedule) -> float:
    """How long the whole step plays, in seconds: the exchanges are stretched so the eye can follow them."""
    start, end, step = _segments(schedule)
    return SECONDS_PER_MS * (step - (end - start) + (end - start) * COMM_STRETCH)


def position(schedule: Schedule, elapsed_s: float) -> Position:
    """Where the playhead is after `elapsed_s` of play."""
    start, end, step = _segments(schedule)
    before = start * SECONDS_PER_MS
    during = (end - start) * SECONDS_PER_MS * COMM_STRETCH
    e = max(elapsed_s, 0.0)
    if e <= before:
        t = e / SECONDS_PER_MS
    elif e <= before + during:
        t = start + (e - before) / (SECONDS_PER_MS * COMM_STRETCH)
    else:
        t = end + (e - before - during) / SECONDS_PER_MS
    t = min(t, step)
    return Position(t, exchanges_done_at(schedule, t), e >= duration_s(schedule))


def elapsed_for(schedule: Schedule, t_ms: float) -> float:
    """Inverse of position(): resume play from a playhead set by 'next exchange'."""
    start, end, _ = _segments(schedule)
    if t_ms <= start:
        return t_ms * SECONDS_PER_MS
    if t_ms <= end:
        return (start + (t_ms - start) * COMM_STRETCH) * SECONDS_PER_MS
    return (t_ms - (end - start) + (end - start) * COMM_STRETCH) * SECONDS_PER_MS


def playhead_for_exchange(schedule: Schedule, k: int) -> float:
    """The step time at which ring exchange k ends: where a step button puts the playhead."""
    return exchange_end_ms(schedule, k)
