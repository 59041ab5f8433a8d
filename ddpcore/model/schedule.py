"""Step schedules: per rank, contiguous phase intervals; sequential (docs/model.md) or DDP overlap."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ..base import ConfigError
from ..base.intervals import Interval
from ..base.phases import BETWEEN_STEPS, OVERLAP_STEP, STEP
from .comm import ring_time_ms
from .config import StepConfig
from .ring import exchange_count

__all__ = [
    "Bucket",
    "PHASES",
    "Schedule",
    "allreduce_ms",
    "bucket_sizes",
    "build_schedule",
    "exchange_end_ms",
    "exchanges_done_at",
]

MAX_BUCKETS = 10_000

PHASES = STEP


@dataclass(frozen=True)
class RankSchedule:
    """One GPU's contiguous phase intervals in a step."""

    rank: int
    slowdown: float
    intervals: tuple[Interval, ...]

    def duration_of(self, phase: str) -> float:
        """Time this GPU spends in `phase` (ms)."""
        return sum(i.duration_ms for i in self.intervals if i.phase == phase)

    def interval(self, phase: str) -> Interval:
        """The (first) interval of `phase`."""
        return next(i for i in self.intervals if i.phase == phase)

    @property
    def paused(self) -> bool:
        """Whether this GPU pauses between steps (its first interval, `BETWEEN_STEPS`)."""
        return self.intervals[0].phase == BETWEEN_STEPS


@dataclass(frozen=True)
class Bucket:
    """One DDP gradient bucket's AllReduce, the same on every rank (one comm stream)."""

    index: int
    mb: float
    ready_ms: float
    start_ms: float
    end_ms: float


@dataclass(frozen=True)
class Schedule:
    """Every GPU's phases in one step, the barrier, and in overlap mode the gradient buckets.

    >>> s = build_schedule(StepConfig(gpus=4))
    >>> s.barrier_ms, [r.rank for r in s.ranks], s.ranks[2].slowdown
    (32.0, [0, 1, 2, 3], 1.0)
    """

    config: StepConfig
    ranks: tuple[RankSchedule, ...]
    barrier_ms: float
    buckets: tuple[Bucket, ...] = ()

    @property
    def step_ms(self) -> float:
        """The step ends when the optimizer does, the same instant on every GPU."""
        return self.ranks[0].intervals[-1].end_ms

    def total(self, phases: tuple[str, ...]) -> float:
        """GPU-ms spent in these phases, summed over GPUs."""
        return sum(i.duration_ms for r in self.ranks for i in r.intervals if i.phase in phases)

    @property
    def paused(self) -> bool:
        """Whether a rank pauses between steps."""
        return any(r.paused for r in self.ranks)

    @property
    def comm_window(self) -> tuple[float, float]:
        """When gradients are on the wire: the AllReduce, or first bucket start to last bucket end."""
        if self.buckets:
            return self.buckets[0].start_ms, self.buckets[-1].end_ms
        ar = self.ranks[0].interval("allreduce")
        return ar.start_ms, ar.end_ms

    @property
    def comm_busy_ms(self) -> float:
        """Time gradients are on the wire: the AllReduce, or the buckets' AllReduces added up."""
        if self.buckets:
            return sum(b.end_ms - b.start_ms for b in self.buckets)
        return self.ranks[0].duration_of("allreduce")

    @property
    def exposed_comm_ms(self) -> float:
        """Communication left on the critical path once the slowest rank has finished its backward."""
        return self.comm_window[1] - self.barrier_ms

    def comm_done_fraction(self, t_ms: float) -> float:
        """Share of the gradients fully reduced by time t (drives the ring animation in both modes)."""
        if not self.buckets:
            start, end = self.comm_window
            return min(max((t_ms - start) / (end - start), 0.0), 1.0)
        total = sum(b.mb for b in self.buckets)
        done = sum(b.mb * min(max((t_ms - b.start_ms) / (b.end_ms - b.start_ms), 0.0), 1.0) for b in self.buckets)
        return done / total


def allreduce_ms(config: StepConfig) -> float:
    """Given directly in ms (docs/model.md), or derived from the link as one ring AllReduce of all gradients.

    >>> round(allreduce_ms(StepConfig()), 2)
    10.0
    """
    return ring_time_ms(config.gpus, config.link) if config.link else config.phases.allreduce


def bucket_sizes(grad_mb: float, bucket_mb: float, first_bucket_mb: float) -> list[float]:
    """PyTorch DDP's buckets: a small first bucket (ready soonest), then bucket_mb each, the rest in the last.

    >>> bucket_sizes(100.0, 25.0, 1.0)
    [1.0, 25.0, 25.0, 25.0, 24.0]
    """
    count = 1 + max(0, math.ceil(round((grad_mb - first_bucket_mb) / bucket_mb, 9)))  # round: 1.0 / (1/3) is 3
    if count > MAX_BUCKETS:
        raise ConfigError("bucket_mb", bucket_mb, f"a size giving at most {MAX_BUCKETS} buckets of {grad_mb:g} MB")
    bounds = [min(first_bucket_mb + k * bucket_mb, grad_mb) for k in range(int(count))]
    bounds[-1] = grad_mb
    return [b - a for a, b in zip([0.0, *bounds], bounds) if b > a]


def _intervals(boundaries: list[float], phases: tuple[str, ...] = PHASES) -> tuple[Interval, ...]:
    return tuple(Interval(name, a, b) for name, a, b in zip(phases, boundaries, boundaries[1:]))


def _ranks(
    slowdowns: list[float], pauses: list[float], bounds: list[list[float]], names: tuple[str, ...] = PHASES
) -> tuple[RankSchedule, ...]:
    """Each rank's phases from its boundaries (its pause first, then one per phase name), with the pause before its
    step (between steps) drawn when it has one. Ranks that run alike (all but the stragglers) share one tuple."""
    ranks = []
    made: dict[tuple[float, ...], tuple[Interval, ...]] = {}
    for r, (s, pause) in enumerate(zip(slowdowns, pauses)):
        key = tuple(bounds[r])
        intervals = made.get(key)
        if intervals is None:
            intervals = _intervals(bounds[r], names)
            if pause > 0:
                intervals = (Interval(BETWEEN_STEPS, 0.0, pause), *intervals)
            made[key] = intervals
        ranks.append(RankSchedule(rank=r, slowdown=s, intervals=intervals))
    return tuple(ranks)


def _starts(config: StepConfig) -> tuple[list[float], list[float], list[float]]:
    """Per rank: its compute slowdown, its pause before the step, and when its loading ends (its forward starts)."""
    slowdowns = [config.slowdown_of(r) for r in range(config.gpus)]
    pauses = [config.pause_of(r) for r in range(config.gpus)]
    return slowdowns, pauses, [pause + config.load_of(r) for r, pause in enumerate(pauses)]


@lru_cache(maxsize=16)
def build_schedule(config: StepConfig) -> Schedule:
    """The step's schedule in the configured mode (sequential, or DDP overlap with buckets). Kept for the last few
    configurations (a schedule is immutable): the metrics ask for the step without its straggler and with and
    without prefetch, which a moving slider mostly leaves as they were.

    >>> s = build_schedule(StepConfig())
    >>> round(s.step_ms, 1), s.config.mode
    (44.0, 'sequential')
    """
    return build_overlap(config) if config.mode == "overlap" else build_sequential(config)


def build_sequential(config: StepConfig) -> Schedule:
    """Every rank computes, waits at the barrier for the slowest, then AllReduce and optimizer together.

    >>> round(build_sequential(StepConfig()).step_ms, 1)
    44.0
    """
    p = config.phases
    slowdowns, pauses, loaded = _starts(config)
    compute_end = [start + s * p.forward + s * p.backward for start, s in zip(loaded, slowdowns)]
    barrier = max(compute_end)
    allreduce_end = barrier + allreduce_ms(config)
    step = allreduce_end + p.optimizer
    bounds = [
        [pauses[r], loaded[r], loaded[r] + s * p.forward, compute_end[r], barrier, allreduce_end, step]
        for r, s in enumerate(slowdowns)
    ]
    ranks = _ranks(slowdowns, pauses, bounds)
    return Schedule(config=config, ranks=ranks, barrier_ms=barrier)


def build_overlap(config: StepConfig) -> Schedule:
    """DDP: buckets fill in reverse layer order during backward; each is reduced once every rank has produced it
    and the previous bucket's AllReduce is done (one comm stream); the optimizer waits for the last bucket.

    >>> from dataclasses import replace
    >>> round(build_overlap(replace(StepConfig(), mode="overlap")).step_ms, 1)
    35.4
    """
    p = config.phases
    link = config.network
    slowdowns, pauses, loaded = _starts(config)
    backward_start = [start + s * p.forward for start, s in zip(loaded, slowdowns)]
    compute_end = [b + s * p.backward for b, s in zip(backward_start, slowdowns)]
    buckets: list[Bucket] = []
    produced, previous_end = 0.0, 0.0
    sizes = bucket_sizes(link.grad_mb, config.bucket_mb, config.first_bucket_mb)
    for index, size in enumerate(sizes):
        produced = link.grad_mb if index == len(sizes) - 1 else produced + size
        share = produced / link.grad_mb
        ready = max(b + s * p.backward * share for b, s in zip(backward_start, slowdowns))
        start = max(ready, previous_end)
        previous_end = start + ring_time_ms(config.gpus, link, size)
        buckets.append(Bucket(index, size, ready, start, previous_end))
    comm_end = previous_end
    step = comm_end + p.optimizer
    bounds = [[pauses[r], loaded[r], backward_start[r], compute_end[r], comm_end, step] for r in range(config.gpus)]
    ranks = _ranks(slowdowns, pauses, bounds, OVERLAP_STEP)
    return Schedule(config=config, ranks=ranks, barrier_ms=max(compute_end), buckets=tuple(buckets))


def exchanges_done_at(schedule: Schedule, t_ms: float) -> int:
    """Ring exchanges finished by time t: the share of gradients reduced, in whole exchanges.

    >>> s = build_schedule(StepConfig())
    >>> exchanges_done_at(s, 0.0), exchanges_done_at(s, s.step_ms)
    (0, 14)
    """
    exchanges = exchange_count(schedule.config.gpus)
    return min(exchanges, int(schedule.comm_done_fraction(t_ms) * exchanges + 1e-9))


def exchange_end_ms(schedule: Schedule, k: int) -> float:
    """When exchange k (1-based) ends; 0 means the start of communication.

    >>> s = build_schedule(StepConfig())
    >>> round(exchange_end_ms(s, 1), 2), exchange_end_ms(s, 14) <= s.step_ms
    (32.71, True)
    """
    exchanges = exchange_count(schedule.config.gpus)
    start, end = schedule.comm_window
    if not schedule.buckets:
        return start + (end - start) * k / exchanges
    target = schedule.config.network.grad_mb * k / exchanges
    done = 0.0
    for b in schedule.buckets:
        if done + b.mb >= target - 1e-12:
            return b.start_ms + (b.end_ms - b.start_ms) * (target - done) / b.mb
        done += b.mb
    return end
