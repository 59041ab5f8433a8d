"""What the analysis measures of each rank's step, whether read from a trace (`analysis.facts_of`) or from a
summary (`ddpcore.summary`): plain data, so that summaries need neither the traces nor the analysis to be read."""

from __future__ import annotations

from dataclasses import dataclass

from .intervals import Interval, Spans


@dataclass(frozen=True)
class DeviceTime:
    """GPU time in one step of one rank (ms): every kernel, compute kernels, communication kernels, and the part of
    communication that compute kernels overlapped."""

    busy_ms: float
    compute_ms: float
    comm_ms: float
    overlapped_ms: float

    @property
    def exposed_comm_ms(self) -> float:
        """Communication no compute kernel hid."""
        return self.comm_ms - self.overlapped_ms


@dataclass(frozen=True)
class StepFacts:
    """One rank's step as the analysis uses it, whether read from a trace or from a summary (ddpcore.summary).

    `start_ms` is on the rank's own clock; every other time is in ms from the step's start: its length, its
    period (to the next step's start), its arrival at the gradient collective, its compute (to the last gradient
    launch), its anchor (the end of the gradient collective: the instant every rank shares), the time given to each
    phase within the period, the GPU's time, and for drawing the phase, collective and kernel spans (a summary has
    none of these; it keeps durations, not instants)."""

    step: int
    start_ms: float
    length_ms: float
    period_ms: float
    followed: bool
    arrival_ms: float
    compute_ms: float
    anchor_ms: float
    phases_ms: dict[str, float]
    device: DeviceTime | None
    spans: tuple[Interval, ...] = ()
    comm_spans: Spans = Spans()
    device_spans: Spans = Spans()


@dataclass(frozen=True)
class RankFacts:
    """One rank's steps as the analysis uses them (`facts_of` a trace, or a summary read back)."""

    rank: int
    source: str
    world_size: int | None
    steps: tuple[StepFacts, ...]
