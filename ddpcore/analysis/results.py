"""What a measurement answers, for the command line, the page and the verdict: a step's summary and its columns,
a rank's summary over the run, the whole `Measured`, and the error of a run that cannot be measured."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..base import Said
from ..base.intervals import Interval, Spans
from ..storage.picking import where_at_least
from ..traces.keeping import GpuGauges
from ..traces.stepfacts import Column, DeviceTime
from .chance import (
    Chance,
    Lateness,
    Middle,
    Tail,
)
from .rankmap import RankStepMap

__all__ = ["AnalysisError", "DrawnRank", "Measured", "RankSummary", "StepColumns", "StepSummary"]


def gap_of(cost_ms: float, period_ms: float) -> float:
    """The share of the step that a rank's lateness costs."""
    return cost_ms / period_ms if period_ms > 0 else 0.0


class AnalysisError(Said):
    """Traces that load but cannot be compared (fewer than two ranks, no common step, runs of the same size)."""


@dataclass(frozen=True, kw_only=True)
class DrawnRank:
    """One rank in one analysed step, as its lane draws it; `spans`, `device_spans`, `start_ms` and `end_ms` are on
    the step's common clock (ranks aligned on the release), `ready_ms` is its readiness from its own step start,
    the rest are durations.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import analyze
    >>> lane = analyze(ranks).steps[0].drawn[1]
    >>> lane.rank, round(lane.wait_ms, 1), [p for p in lane.phases_ms if lane.phases_ms[p]][:2]
    (1, 5.0, ['forward', 'backward'])
    """

    rank: int
    period_ms: float
    ready_ms: float
    cost_ms: float
    gap: float
    wait_ms: float
    phases_ms: dict[str, float]
    spans: tuple[Interval, ...]
    comm_spans: Spans
    device_spans: Spans
    device: DeviceTime | None
    start_ms: float
    end_ms: float
    followed: bool = True


@dataclass(frozen=True, kw_only=True)
class StepColumns:
    """Every rank in one step, column by column (entry i is rank `ranks[i]`, ranks in order): what the verdict, the
    map and the fit read, without an object per rank (a job has thousands). `work_ms` is each
    rank's time from the previous release to its readiness; `parts_ms` where it went (None when unknown). For the
    what-if, relative to the release: `first_ms` each rank's first gradient launch, `free_ms` when the earlier
    gradient collectives had ended (the readiness is minus the wait). `beyond`: the entries later than chance
    (`chance`: their work past the run's floor), whatever the threshold, and how late each is against the ranks on
    time (`beyond_ms`, ms). What the ranks on time are measured
    against, whichever few entries are late: the middle of the waits (`waits`) and of each part (`parts`), and the
    entries of the smallest waits (`lowest`). `solo_saved_ms`: the step re-timed with its latest entry `solo_entry`
    on time (the common case at any threshold). All made here once, not at each threshold.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import analyze
    >>> c = analyze(ranks).steps[0].columns
    >>> c.ranks, [round(w, 1) for w in c.work_ms], [round(w, 1) for w in c.wait_ms]
    ((0, 1, 2, 3), [23.0, 42.8, 22.9, 22.2], [24.8, 5.0, 24.9, 25.6])
    """

    ranks: tuple[int, ...]
    period_ms: Column
    compute_ms: Column
    cost_ms: Column
    gap: Column
    wait_ms: Column
    work_ms: Column
    parts_ms: dict[str, Column] | None = None
    from_release: bool = False
    first_ms: Column = ()
    free_ms: float = 0.0
    solo_entry: int = -1
    solo_saved_ms: float = 0.0
    beyond: tuple[int, ...] = ()
    beyond_ms: tuple[float, ...] = ()
    waits: Middle = Middle((), 0, 0)
    parts: dict[str, Middle] | None = None
    lowest: tuple[int, ...] = ()

    def late(self, threshold: float) -> list[int]:
        """Entries over the threshold (`over_threshold`), in rank order."""
        return over_threshold(self.gap, self.period_ms, zip(self.beyond, self.beyond_ms), threshold)


def over_threshold(
    gap: Sequence[float], period_ms: Sequence[float], beyond: Iterable[tuple[int, float]], threshold: float
) -> list[int]:
    """A step's entries whose gap reaches the threshold, in order: one C pass over the gaps (a sort of them, kept for
    bisections, cost more than every threshold a page is given); and the entries beyond chance (`beyond`: each with
    its lateness against the step's ranks on time, ms) whose lateness reaches it as a share of their step: where more
    than half the others are late, the others' median wait is a late one's, and the gap misses them all. A step's
    columns (`StepColumns.late`) and a shard's entries (`shards.Shard.over`) read it alike.

    >>> over_threshold([0.5, 0.01, 0.02, 0.0], [40.0] * 4, [(1, 20.0), (2, 1.0)], 0.1)
    [0, 1]
    """
    over = where_at_least(gap, threshold)
    more = [i for i, late_ms in beyond if gap[i] < threshold and gap_of(late_ms, period_ms[i]) >= threshold]
    return sorted(over + more) if more else over


@dataclass(frozen=True, kw_only=True)
class StepSummary:
    """One step across ranks: the latest rank (the one that waited least), its cost and gap, and whether that makes
    a straggler step (`late_ranks` is left empty by `measure`, filled by `judge`, with `saved_ms`: what the step
    would be shorter without them). `columns` holds every rank, `drawn` the ranks the lanes show with their spans:
    all of them up to DRAWN_ALL, else the DRAWN_LATEST latest and the median one. `released`: a gradient collective
    gave every rank its release (else lateness is measured from each rank's own step start).

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import analyze
    >>> s = analyze(ranks).steps[0]
    >>> s.step, s.slowest_rank, s.late_ranks, round(s.gap, 2), round(s.saved_ms, 2)
    (1, 1, (1,), 0.42, 19.79)
    """

    step: int
    slowest_rank: int
    median_step_ms: float
    max_step_ms: float
    gap: float
    extra_ms: float
    late_ranks: tuple[int, ...]
    columns: StepColumns
    drawn: tuple[DrawnRank, ...]
    released: bool = True
    saved_ms: float = 0.0

    @property
    def has_straggler(self) -> bool:
        """Some rank was late by at least the threshold."""
        return bool(self.late_ranks)


@dataclass(frozen=True, kw_only=True)
class RankSummary:
    """One rank over the analysed steps (`late_steps`, the steps in which it was late, is counted by `judge`), and
    how late it is over them (`lateness`, `chance.Lateness`: what `judge` weighs for a persistent straggler).

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import analyze
    >>> r = analyze(ranks).ranks[1]
    >>> r.rank, r.late_steps, round(r.median_gap, 2), round(r.median_cost_ms, 2)
    (1, 6, 0.41, 19.83)
    """

    rank: int
    source: str
    median_step_ms: float
    mean_step_ms: float
    median_phases_ms: dict[str, float]
    median_arrival_ms: float
    median_wait_ms: float
    median_gap: float
    median_cost_ms: float
    late_steps: int
    slowest_count: int
    gpu: GpuGauges | None
    lateness: Lateness | None = None


NO_CHANCE = Chance(0, Tail(0.0, 0.0, 0.0), 0.0, Tail(0.0, 0.0, 0.0), 0)


@dataclass(frozen=True, kw_only=True)
class Measured:
    """An analysis before its verdict: steps without their late ranks, ranks without their count of late steps.
    `chance`: how late ranks are by chance alone, measured on the ranks on time. Over the steps, whatever the
    threshold: the mean and median step, the latest rank's median gap, and the mean of each step's waits summed over
    its ranks. `load_marked`: some rank's trace marks its input loading (a profiler trace without the DataLoader's
    annotation shows loading as time outside any phase). `threshold`: the one threshold its steps were kept to, each
    with only the entries a verdict at it reads (`measure`'s `at`); None when every entry is kept.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import measure
    >>> m = measure(ranks)
    >>> len(m.steps), len(m.ranks), m.warnings, round(m.step_ms, 2)
    (6, 4, (), 47.72)
    """

    steps: tuple[StepSummary, ...]
    ranks: tuple[RankSummary, ...]
    warnings: tuple[str, ...]
    rank_map: RankStepMap
    chance: Chance = NO_CHANCE
    step_ms: float = 0.0
    median_step_ms: float = 0.0
    median_gap: float = 0.0
    wait_ms_total: float = 0.0
    load_marked: bool = True
    threshold: float | None = None
