"""The sequential step schedule: per rank, contiguous phase intervals (SPEC section 2)."""

from __future__ import annotations

from dataclasses import dataclass

from .config import StepConfig

PHASES = ("load", "forward", "backward", "wait", "allreduce", "optimizer")
COMPUTE_PHASES = ("forward", "backward")
RESIDENT_PHASES = ("forward", "backward", "wait", "allreduce", "optimizer")


@dataclass(frozen=True)
class Interval:
    phase: str
    start_ms: float
    end_ms: float

    @property
    def duration_ms(self) -> float:
        return self.end_ms - self.start_ms


@dataclass(frozen=True)
class RankSchedule:
    rank: int
    slowdown: float
    intervals: tuple[Interval, ...]

    def duration_of(self, phase: str) -> float:
        return sum(i.duration_ms for i in self.intervals if i.phase == phase)

    def interval(self, phase: str) -> Interval:
        return next(i for i in self.intervals if i.phase == phase)


@dataclass(frozen=True)
class Schedule:
    config: StepConfig
    ranks: tuple[RankSchedule, ...]
    barrier_ms: float

    @property
    def step_ms(self) -> float:
        return self.ranks[0].intervals[-1].end_ms

    def total(self, phases: tuple[str, ...]) -> float:
        return sum(r.duration_of(p) for r in self.ranks for p in phases)


def _intervals(boundaries: list[float]) -> tuple[Interval, ...]:
    return tuple(Interval(name, a, b) for name, a, b in zip(PHASES, boundaries, boundaries[1:]))


def build_schedule(config: StepConfig) -> Schedule:
    """Every rank computes, waits at the barrier for the slowest, then AllReduce and optimizer together."""
    p = config.phases
    load = config.load_effective_ms
    slowdowns = [config.slowdown_of(r) for r in range(config.gpus)]
    compute_end = [load + s * p.forward + s * p.backward for s in slowdowns]
    barrier = max(compute_end)
    allreduce_end = barrier + p.allreduce
    step = allreduce_end + p.optimizer
    ranks = tuple(
        RankSchedule(
            rank=r,
            slowdown=s,
            intervals=_intervals(
                [0.0, load, load + s * p.forward, compute_end[r], barrier, allreduce_end, step]
            ),
        )
        for r, s in enumerate(slowdowns)
    )
    return Schedule(config=config, ranks=ranks, barrier_ms=barrier)


def exchanges_done_at(schedule: Schedule, t_ms: float, exchanges: int) -> int:
    """Ring exchanges finished by time t, the AllReduce split into equal exchanges."""
    start = schedule.barrier_ms
    duration = schedule.config.phases.allreduce
    if t_ms <= start:
        return 0
    if t_ms >= start + duration:
        return exchanges
    return min(exchanges, int((t_ms - start) / duration * exchanges + 1e-9))


def exchange_end_ms(schedule: Schedule, k: int, exchanges: int) -> float:
    """When exchange k (1-based) ends; 0 means the barrier, the AllReduce's start."""
    return schedule.barrier_ms + schedule.config.phases.allreduce * k / exchanges
