"""What the analysis measures of each rank's step, whether read from a trace (`analysis.facts_of`) or from a
summary (`ddpcore.summary`): plain data, so that summaries need neither the traces nor the analysis to be read."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields

from ..base.intervals import Interval, Spans
from ..base.phases import CAUSES

__all__ = [
    "Column",
    "DEVICE_COLUMNS",
    "DeviceTime",
    "RankColumns",
    "RankFacts",
    "StepFacts",
    "columns_of",
    "kept_parts",
]


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
    period (to the next step's start), its arrival at the gradient collective (its first launch: the measure from
    the step's own start, for traces that give no release), its compute (to its readiness: its last gradient
    bucket ready), its anchor (the release: the end of the gradient collective, the instant every rank shares), the
    time given to each phase within the period, and the GPU's time. `released` says a gradient collective gave the
    anchor; `comm_free_ms` is when its earlier gradient collectives had all ended (the last bucket's transfer
    cannot start before); `work_ms` is the time from the previous step's release to the readiness (from the step's
    own start when `from_release` is false), and `parts_ms` where it went (`phases.CAUSES`; None from a version 1
    summary). For drawing, the phase, collective and kernel spans (a summary has none: it keeps durations, not
    instants).

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> s = ranks[1].steps[0]
    >>> s.step, round(s.work_ms, 1), round(ranks[0].steps[0].work_ms, 1)
    (1, 42.8, 23.0)
    """

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
    comm_free_ms: float = 0.0
    released: bool = True
    from_release: bool = False
    work_ms: float = 0.0
    parts_ms: dict[str, float] | None = None
    spans: tuple[Interval, ...] = ()
    comm_spans: Spans = Spans()
    device_spans: Spans = Spans()


@dataclass(frozen=True)
class RankFacts:
    """One rank's steps as the analysis uses them (`facts_of` a trace, or a summary read back).

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> ranks[1].rank, ranks[1].world_size, len(ranks[1].steps)
    (1, 4, 6)
    """

    rank: int
    source: str
    world_size: int | None
    steps: tuple[StepFacts, ...]


Column = Sequence[float]
DEVICE_COLUMNS = tuple(f.name for f in fields(DeviceTime))
"""`DeviceTime`'s fields, in order: the GPU columns of a rank's table."""


@dataclass(frozen=True)
class RankColumns:
    """One rank's steps column by column: what `measure` reads, for thousands of ranks without an object per step.

    Row i is step `step[i]`; the columns are `StepFacts`' fields (a summary is read straight into them). `device`
    holds `DEVICE_COLUMNS` (None without kernels; a row without them has None in each); `parts_ms` holds the parts
    any step spent time in (a part left out is zero), None when the source keeps no breakdown (a version 1
    summary); `detail` keeps the steps with their spans when the columns come from a trace, for drawing.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.traces import table_of
    >>> c = table_of(ranks[1])
    >>> c.rank, list(c.step), round(c.work_ms[0], 1)
    (1, [1, 2, 3, 4, 5, 6], 42.8)
    """

    rank: int
    source: str
    world_size: int | None
    step: Sequence[int]
    start_ms: Column
    length_ms: Column
    period_ms: Column
    followed: tuple[bool, ...]
    arrival_ms: Column
    compute_ms: Column
    anchor_ms: Column
    phases_ms: Mapping[str, Column]
    device: tuple[Sequence[float | None], ...] | None
    comm_free_ms: Column
    released: bytes
    """Per row, 1 when a gradient collective gave the release (a byte a row: 4,096 ranks x 200 steps)."""
    from_release: bytes
    work_ms: Column
    parts_ms: Mapping[str, Column] | None
    detail: tuple[StepFacts, ...] = ()

    def device_at(self, i: int) -> DeviceTime | None:
        """Row i's GPU time, or None when the row has none."""
        if self.device is None or self.device[0][i] is None:
            return None
        return DeviceTime(*(float(c[i]) for c in self.device))  # type: ignore[arg-type]

    def facts_at(self, i: int, drawn: Callable[[dict[str, float]], tuple[Interval, ...]]) -> StepFacts:
        """Row i as a step with its spans: the trace's own, else `drawn` from the phase durations."""
        if self.detail:
            return self.detail[i]
        phases = {p: c[i] for p, c in self.phases_ms.items()}
        return StepFacts(
            step=self.step[i],
            start_ms=self.start_ms[i],
            length_ms=self.length_ms[i],
            period_ms=self.period_ms[i],
            followed=self.followed[i],
            arrival_ms=self.arrival_ms[i],
            compute_ms=self.compute_ms[i],
            anchor_ms=self.anchor_ms[i],
            phases_ms=phases,
            device=self.device_at(i),
            comm_free_ms=self.comm_free_ms[i],
            released=bool(self.released[i]),
            from_release=bool(self.from_release[i]),
            work_ms=self.work_ms[i],
            parts_ms=None if self.parts_ms is None else {p: c[i] for p, c in self.parts_ms.items()},
            spans=drawn(phases),
        )


def kept_parts(columns: Mapping[str, Sequence[float]]) -> dict[str, Column]:
    """Where each step's work went, by part (`phases.CAUSES`), in single precision, leaving out a part no step spent
    time in (a host trace has no GPU parts; a summary of 4,096 ranks x 200 steps would hold 8 columns of 819,200).

    >>> sorted(kept_parts({"forward": [8.0, 9.0], "copies": [0.0, 0.0], "load": [1.0, 0.5]}))
    ['forward', 'load']
    """
    return {p: array("f", columns[p]) for p in CAUSES if p in columns and any(columns[p])}


def columns_of(facts: RankFacts) -> RankColumns:
    """A rank's steps as columns, each step kept beside them with its spans.

    >>> from ddpcore.traces import simulated_run
    >>> table = columns_of(simulated_run(2, 5, seed=1)[0][1])
    >>> table.rank, len(table.step), round(table.work_ms[2], 1)
    (1, 5, 22.8)
    """
    steps = facts.steps

    def column(name: str) -> array[float]:
        return array("d", [getattr(s, name) for s in steps])

    devices = [s.device for s in steps]
    device = (
        None
        if all(d is None for d in devices)
        else tuple(tuple(None if d is None else getattr(d, f) for d in devices) for f in DEVICE_COLUMNS)
    )
    phases = {p: array("d", [s.phases_ms[p] for s in steps]) for p in (steps[0].phases_ms if steps else {})}
    known = all(s.parts_ms is not None for s in steps)
    parts = kept_parts({p: [(s.parts_ms or {}).get(p, 0.0) for s in steps] for p in CAUSES}) if known else None
    return RankColumns(
        rank=facts.rank,
        source=facts.source,
        world_size=facts.world_size,
        step=array("q", [s.step for s in steps]),
        start_ms=column("start_ms"),
        length_ms=column("length_ms"),
        period_ms=column("period_ms"),
        followed=tuple(s.followed for s in steps),
        arrival_ms=column("arrival_ms"),
        compute_ms=column("compute_ms"),
        anchor_ms=column("anchor_ms"),
        phases_ms=phases,
        device=device,
        comm_free_ms=column("comm_free_ms"),
        released=bytes(s.released for s in steps),
        from_release=bytes(s.from_release for s in steps),
        work_ms=column("work_ms"),
        parts_ms=parts,
        detail=steps,
    )
