"""Measured steps: who arrives late at the gradient collective, how often, and what it costs everyone.

Every rank leaves a step's gradient collective together, so every rank's step lasts about as long: "slowest" cannot
mean the longest step. It means arriving late: the time from the step's start to the launch of the step's first
gradient-synchronising collective in the backward (DDP's bucket AllReduce, FSDP's reduce-scatter). The others wait
for it inside their collectives.

- A rank's **cost** in a step is its arrival minus the median arrival of the *other* ranks (with two ranks, the whole
  gap between them); its **gap** is that cost over the step period: the share of the step the barrier costs.
- A **persistent straggler** is late by at least the threshold in a strict majority of steps (at least two): its
  median gap is then above the threshold, whether or not it is the very latest rank.
- **Transient stragglers** are counted as a share of steps: the steps in which some other rank is that late.
- A step's straggler cost is the latest rank's cost when its gap reaches the threshold (below it, jitter).
  Headline step, cost and efficiency are means over steps, because the mean is what a job pays: a median hides
  exactly the rare slow steps that large jobs have most. Medians are given beside them.

>>> round(gap_of(cost_ms=5.0, period_ms=50.0), 3)
0.1
"""

from __future__ import annotations

import statistics
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import repeat
from operator import itemgetter, sub, truediv

from .collectives import GRADIENT_KINDS
from .intervals import Interval, Spans, clip, intersection_ms, merge, partition, union_ms
from .params import THRESHOLD, check_number
from .phases import ALLREDUCE, GPU_COMM, GPU_COMPUTE, IDLE, MEASURED, OTHER_COMM, SUMMED
from .rankmap import RankStepMap, rank_step_map
from .stepfacts import Column, DeviceTime, RankColumns, RankFacts, StepFacts, columns_of
from .summary import drawn as drawn_spans
from .traces import COMPUTE, MEMORY, FileError, Loaded, RankTrace, TraceStep

DEFAULT_THRESHOLD = THRESHOLD.default
MAX_THRESHOLD = THRESHOLD.high
WARMUP_STEP = 0
DRAWN_ALL = 16
DRAWN_LATEST = 8


WARNINGS = {
    "partial": "rank {rank} ({source}): {extra} step(s) not in every rank's trace, left out",
    "warmup": "step {step} left out: a job's first iteration (DDP builds its buckets, kernels and allocators warm up) "
    "is not a step like the others",
    "one_step": "one step only: a straggler cannot be told from a one-off delay",
    "some_ranks": "{loaded} of {world} ranks loaded: the straggler may be among the others",
}
"""What the analysis warns of, in English; the page says the same in its own language from `code` and `values`."""


class Caveat(str):
    """A warning's English text, carrying its code and values so that a page can translate it."""

    code: str
    values: dict[str, object]

    def __new__(cls, code: str, **values: object) -> Caveat:
        warning = super().__new__(cls, WARNINGS[code].format(**values))
        warning.code, warning.values = code, values
        return warning

    def __reduce__(self) -> tuple:
        return _warning, (self.code, self.values)


def _warning(code: str, values: dict[str, object]) -> Caveat:
    return Caveat(code, **values)


class AnalysisError(ValueError):
    """Traces that load but cannot be compared (fewer than two ranks, no common step)."""


def medians_of_others(values: Sequence[float]) -> list[float]:
    """For each value, the median of all the others, in one sort (a job has thousands of ranks).

    Removing one value shifts the middle of the rest by at most one place, so there are at most three answers: which
    one depends only on where the value falls in the order.

    >>> medians_of_others([10.0, 30.0, 20.0, 40.0])
    [30.0, 20.0, 30.0, 20.0]
    >>> medians_of_others([1.0, 5.0, 2.0])
    [3.5, 1.5, 3.0]
    """
    order = sorted(range(len(values)), key=values.__getitem__)
    ranked = [values[i] for i in order]
    h = (len(values) - 1) // 2
    if len(values) % 2 == 0:
        out = [ranked[h]] * len(values)
        for i in order[: h + 1]:
            out[i] = ranked[h + 1]
        return out
    out = [(ranked[h - 1] + ranked[h]) / 2] * len(values)
    for i in order[:h]:
        out[i] = (ranked[h] + ranked[h + 1]) / 2
    out[order[h]] = (ranked[h - 1] + ranked[h + 1]) / 2
    return out


def gap_of(cost_ms: float, period_ms: float) -> float:
    """The share of the step that a rank's lateness costs."""
    return cost_ms / period_ms if period_ms > 0 else 0.0


@dataclass(frozen=True)
class RankInStep:
    """One rank in one analysed step; `spans`, `device_spans`, `start_ms` and `end_ms` are on the step's common
    clock (ranks aligned on the end of the step's gradient collective), the rest are durations."""

    rank: int
    period_ms: float
    arrival_ms: float
    compute_ms: float
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


@dataclass(frozen=True)
class StepRanks:
    """Every rank in one step, column by column (entry i is rank `ranks[i]`, ranks in order): what the verdict, the
    map and the fit read, without an object per rank (a job has thousands). `by_gap` lists the entries from the
    smallest gap to the largest, so that the ranks late at any threshold are one bisection away."""

    ranks: tuple[int, ...]
    period_ms: Column
    arrival_ms: Column
    compute_ms: Column
    cost_ms: Column
    gap: Column
    wait_ms: Column
    by_gap: Sequence[int]

    def late(self, threshold: float) -> list[int]:
        """Entries whose gap reaches the threshold, in rank order."""
        return sorted(self.by_gap[bisect_left(self.by_gap, threshold, key=self.gap.__getitem__) :])


@dataclass(frozen=True)
class StepSummary:
    """One step across ranks: the latest rank, its cost and gap, and whether that makes a straggler step
    (`late_ranks` is left empty by `measure`, filled by `judge`). `columns` holds every rank, `drawn` the ranks the
    lanes show with their spans: all of them up to DRAWN_ALL, else the DRAWN_LATEST latest and the median one."""

    step: int
    slowest_rank: int
    median_step_ms: float
    max_step_ms: float
    gap: float
    extra_ms: float
    late_ranks: tuple[int, ...]
    columns: StepRanks
    drawn: tuple[RankInStep, ...]

    @property
    def has_straggler(self) -> bool:
        """Some rank was late by at least the threshold."""
        return bool(self.late_ranks)


@dataclass(frozen=True)
class GpuGauges:
    """Over a rank's analysed steps: what nvidia-smi would show, what compute kernels filled, and communication."""

    busy: float
    compute: float
    comm_overlap: float | None
    exposed_comm_ms: float


@dataclass(frozen=True)
class RankSummary:
    """One rank over the analysed steps (`late_steps` is counted by `judge`)."""

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


@dataclass(frozen=True)
class Straggler:
    """A rank late in a strict majority of steps."""

    rank: int
    median_gap: float
    median_cost_ms: float
    late_steps: int


@dataclass(frozen=True)
class Transient:
    """Steps in which a rank other than the persistent stragglers was late by at least the threshold."""

    steps: int
    straggler_steps: int
    fraction: float
    mean_cost_ms: float
    ranks: tuple[int, ...]
    step_numbers: tuple[int, ...]


@dataclass(frozen=True)
class Measured:
    """An analysis before its verdict: steps without their late ranks, ranks without their count of late steps."""

    steps: tuple[StepSummary, ...]
    ranks: tuple[RankSummary, ...]
    warnings: tuple[str, ...]
    rank_map: RankStepMap


@dataclass(frozen=True)
class Analysis:
    """The verdict on a run: per rank, per step, the stragglers, and the headline figures (means over steps)."""

    ranks: tuple[RankSummary, ...]
    steps: tuple[StepSummary, ...]
    stragglers: tuple[Straggler, ...]
    transient: Transient
    threshold: float
    step_ms: float
    median_step_ms: float
    straggler_cost_ms: float
    median_cost_ms: float
    ideal_step_ms: float
    efficiency: float
    median_gap: float
    wait_ms_total: float
    gpu: GpuGauges | None
    warnings: tuple[str, ...]
    rank_map: RankStepMap

    @property
    def straggler_rank(self) -> int | None:
        """The worst persistent straggler, or None when no rank is consistently late."""
        return self.stragglers[0].rank if self.stragglers else None


def _gradient_launches(step: TraceStep) -> list[float]:
    """Launches of the step's gradient collectives in the backward (those before it: the buffer broadcast,
    all_to_all, an AllReduce of the loss, are not gradients)."""
    backward = [p for p in step.phases if p.phase == "backward"]
    forward = [p for p in step.phases if p.phase == "forward"]
    after = (
        min(p.start_ms for p in backward) if backward else max(p.end_ms for p in forward) if forward else float("-inf")
    )
    return [c.start_ms for c in step.collectives if c.phase in GRADIENT_KINDS and c.start_ms >= after]


def _backward_end_ms(step: TraceStep) -> float:
    backward = [p.end_ms for p in step.phases if p.phase == "backward"]
    return (max(backward) if backward else step.end_ms) - step.start_ms


def arrival_ms(step: TraceStep) -> float:
    """Time from the step's start to the launch of its first gradient collective in the backward; without any
    gradient collective, the end of the backward; without a backward, the step's end."""
    launches = _gradient_launches(step)
    return min(launches) - step.start_ms if launches else _backward_end_ms(step)


def compute_ms(step: TraceStep) -> float:
    """Time from the step's start to the launch of its *last* gradient collective in the backward: the rank's own
    compute, whatever the others do.

    DDP launches a bucket's AllReduce as soon as its gradients are ready, and the last one when the backward has
    computed every gradient; the wait for the other ranks comes after (the backward phase itself ends only when
    every bucket is reduced, so its length includes the barrier). Without gradient collectives, as `arrival_ms`."""
    launches = _gradient_launches(step)
    return max(launches) - step.start_ms if launches else _backward_end_ms(step)


def persistent_needed(steps: int) -> int:
    """Late steps that make a rank a persistent straggler: a strict majority, and at least two.

    >>> persistent_needed(39), persistent_needed(2), persistent_needed(1)
    (20, 2, 2)
    """
    return max(2, steps // 2 + 1)


def _is_comm(kernel: Interval) -> bool:
    return kernel.phase not in (COMPUTE, MEMORY)


def _anchor(step: TraceStep) -> float:
    """The instant every rank shares: the end of the step's gradient collective (on the GPU when it ran there)."""
    for items in (
        [k for k in step.device if k.phase in GRADIENT_KINDS],
        [k for k in step.device if _is_comm(k)],
        [c for c in step.collectives if c.phase in GRADIENT_KINDS],
    ):
        if items:
            return max(i.end_ms for i in items)
    return step.end_ms


def _comm_phases(step: TraceStep) -> list[Interval]:
    """Host collectives as phases: the gradient ones are `allreduce`, every other kind `other_comm`."""
    return [
        Interval(ALLREDUCE if c.phase in GRADIENT_KINDS else OTHER_COMM, c.start_ms, c.end_ms) for c in step.collectives
    ]


def _device_time(step: TraceStep) -> DeviceTime:
    kernels = [k for k in step.device if k.phase != MEMORY]
    compute = merge(k for k in kernels if not _is_comm(k))
    comm = merge(k for k in kernels if _is_comm(k))
    return DeviceTime(
        union_ms(kernels), sum(b - a for a, b in compute), sum(b - a for a, b in comm), intersection_ms(comm, compute)
    )


def _device_spans(step: TraceStep, shift: float) -> Spans:
    kernels = [k for k in step.device if k.phase != MEMORY]
    return Spans.of(
        (
            (GPU_COMPUTE, merge(k for k in kernels if not _is_comm(k))),
            (GPU_COMM, merge(k for k in kernels if _is_comm(k))),
        ),
        shift,
    )


def _comm_spans(step: TraceStep, shift: float) -> Spans:
    comms = clip(_comm_phases(step), step.start_ms, step.end_ms)
    return Spans.of(((phase, merge(c for c in comms if c.phase == phase)) for phase in (ALLREDUCE, OTHER_COMM)), shift)


def _step_facts(s: TraceStep, period: float, followed: bool, kernels: bool) -> StepFacts:
    spans = partition(clip([*s.phases, *_comm_phases(s)], s.start_ms, min(s.end_ms, s.start_ms + period)), MEASURED)
    phases = {p: sum(i.duration_ms for i in spans if i.phase == p) for p in MEASURED}
    phases[IDLE] = max(0.0, (s.end_ms - s.start_ms) - sum(phases.values()))
    return StepFacts(
        step=s.step,
        start_ms=s.start_ms,
        length_ms=s.end_ms - s.start_ms,
        period_ms=period,
        followed=followed,
        arrival_ms=arrival_ms(s),
        compute_ms=compute_ms(s),
        anchor_ms=_anchor(s) - s.start_ms,
        phases_ms=phases,
        device=_device_time(s) if kernels else None,
        spans=tuple(Interval(i.phase, i.start_ms - s.start_ms, i.end_ms - s.start_ms) for i in spans),
        comm_spans=_comm_spans(s, -s.start_ms),
        device_spans=_device_spans(s, -s.start_ms),
    )


def facts_of(trace: RankTrace | RankFacts) -> RankFacts:
    """A trace's steps with what the analysis measures of each.

    A step's period is the next step's start minus its own when the next step was recorded, else its length. A
    step without a recorded successor is the last of a profiling window, whose GPU work the profiler may have cut
    short: it stops when the host ends the step, while the GPU still runs what the step launched."""
    if isinstance(trace, RankFacts):
        return trace
    starts = {s.step: s.start_ms for s in trace.steps}
    steps = []
    for s in trace.steps:
        following = starts.get(s.step + 1)
        followed = following is not None and following > s.start_ms
        period = following - s.start_ms if following is not None and followed else s.end_ms - s.start_ms
        steps.append(_step_facts(s, period, followed, trace.has_kernels))
    return RankFacts(trace.rank, trace.source, trace.world_size, tuple(steps))


def table_of(rank: RankTrace | RankFacts | RankColumns) -> RankColumns:
    """Any rank's input as the columns `measure` reads."""
    return rank if isinstance(rank, RankColumns) else columns_of(facts_of(rank))


def drawn_entries(arrival_ms: Sequence[float]) -> list[int]:
    """The entries a step's lanes show: every rank up to DRAWN_ALL, else the DRAWN_LATEST latest to arrive and the
    median one, in rank order."""
    if len(arrival_ms) <= DRAWN_ALL:
        return list(range(len(arrival_ms)))
    by_arrival = sorted(range(len(arrival_ms)), key=arrival_ms.__getitem__)
    return sorted({*by_arrival[-DRAWN_LATEST:], by_arrival[len(by_arrival) // 2]})


def _rank_in_step(rank: int, facts: StepFacts, cost: float, gap: float, wait: float, shift: float) -> RankInStep:
    return RankInStep(
        rank=rank,
        period_ms=facts.period_ms,
        arrival_ms=facts.arrival_ms,
        compute_ms=facts.compute_ms,
        cost_ms=cost,
        gap=gap,
        wait_ms=wait,
        phases_ms=facts.phases_ms,
        spans=tuple(Interval(i.phase, i.start_ms + shift, i.end_ms + shift) for i in facts.spans),
        comm_spans=facts.comm_spans.shifted(shift),
        device_spans=facts.device_spans.shifted(shift),
        device=facts.device,
        start_ms=shift,
        end_ms=facts.length_ms + shift,
        followed=facts.followed,
    )


def _gaps(cost: Sequence[float], period: Sequence[float]) -> array[float]:
    if min(period) > 0:
        return array("d", map(truediv, cost, period))
    return array("d", [gap_of(c, p) for c, p in zip(cost, period)])


def _summarise_step(
    number: int, ranks: tuple[int, ...], rows: Sequence[int], tables: Sequence[RankColumns], by_column: dict
) -> StepSummary:
    """One common step; `by_column` holds, for this step, each rank's value of a column (ranks in order): arrays,
    not lists of floats, since for 4,096 ranks x 200 steps every float object costs 24 bytes more."""
    arrival, period, anchor = by_column["arrival_ms"], by_column["period_ms"], by_column["anchor_ms"]
    cost = array("d", map(sub, arrival, medians_of_others(arrival)))
    gap = _gaps(cost, period)
    latest = max(arrival)
    wait = array("d", map(sub, repeat(latest, len(arrival)), arrival))
    columns = StepRanks(
        ranks,
        period,
        arrival,
        by_column["compute_ms"],
        cost,
        gap,
        wait,
        array("i", sorted(range(len(gap)), key=gap.__getitem__)),
    )
    lead = max(anchor)
    drawn = tuple(
        _rank_in_step(ranks[i], tables[i].facts_at(rows[i], drawn_spans), cost[i], gap[i], wait[i], lead - anchor[i])
        for i in drawn_entries(arrival)
    )
    slowest = arrival.index(latest)
    return StepSummary(
        number, ranks[slowest], statistics.median(period), max(period), gap[slowest], cost[slowest], (), columns, drawn
    )


def _gauges(device: Sequence[DeviceTime], periods: Sequence[float]) -> GpuGauges:
    total = sum(periods)
    comm = sum(d.comm_ms for d in device)
    return GpuGauges(
        busy=min(1.0, sum(d.busy_ms for d in device) / total) if total > 0 else 0.0,
        compute=min(1.0, sum(d.compute_ms for d in device) / total) if total > 0 else 0.0,
        comm_overlap=sum(d.overlapped_ms for d in device) / comm if comm > 0 else None,
        exposed_comm_ms=statistics.fmean(d.exposed_comm_ms for d in device),
    )


def _rank_gauges(table: RankColumns, rows: Sequence[int]) -> GpuGauges | None:
    if table.device is None:
        return None
    with_device = [i for i in rows if table.device[0][i] is not None]
    measured = [i for i in with_device if table.followed[i]] or with_device
    devices = [table.device_at(i) for i in measured]
    return _gauges([d for d in devices if d], [table.period_ms[i] for i in measured]) if measured else None


def _rank_summary(
    table: RankColumns, rows: Sequence[int], mine: dict[str, Sequence[float]], slowest: int
) -> RankSummary:
    """One rank over the common steps (`rows`: their rows in the rank's table; `mine`: its cost, gap and wait in
    each)."""

    def own(column: Column) -> Sequence[float]:
        return _picked(column, rows)

    period = own(table.period_ms)
    return RankSummary(
        rank=table.rank,
        source=table.source,
        median_step_ms=statistics.median(period),
        mean_step_ms=statistics.fmean(period),
        median_phases_ms={p: statistics.median(own(table.phases_ms[p])) for p in SUMMED},
        median_arrival_ms=statistics.median(own(table.arrival_ms)),
        median_wait_ms=statistics.median(mine["wait_ms"]),
        median_gap=statistics.median(mine["gap"]),
        median_cost_ms=statistics.median(mine["cost_ms"]),
        late_steps=0,
        slowest_count=slowest,
        gpu=_rank_gauges(table, rows),
    )


def _transient(steps: Sequence[StepSummary], persistent: set[int]) -> Transient:
    hit = []
    for s in steps:
        others = set(s.late_ranks) - persistent
        if others:
            ranks, cost = s.columns.ranks, s.columns.cost_ms
            hit.append((s, max(cost[bisect_left(ranks, r)] for r in others)))
    return Transient(
        steps=len(steps),
        straggler_steps=len(hit),
        fraction=len(hit) / len(steps),
        mean_cost_ms=statistics.fmean(c for _, c in hit) if hit else 0.0,
        ranks=tuple(sorted({r for s, _ in hit for r in s.late_ranks} - persistent)),
        step_numbers=tuple(s.step for s, _ in hit),
    )


def _common_steps(tables: Sequence[RankColumns], warnings: list[Caveat]) -> list[int]:
    step_sets = {t.rank: set(t.step) for t in tables}
    common = set.intersection(*step_sets.values())
    if not common:
        raise AnalysisError("the ranks' traces share no step number: were they recorded in the same run?")
    for t in tables:
        extra = len(step_sets[t.rank] - common)
        if extra:
            warnings.append(Caveat("partial", rank=t.rank, source=t.source, extra=extra))
    if WARMUP_STEP in common and len(common) > 1:
        common.discard(WARMUP_STEP)
        warnings.append(Caveat("warmup", step=WARMUP_STEP))
    if len(common) == 1:
        warnings.append(Caveat("one_step"))
    return sorted(common)


def _picked(column: Column, rows: Sequence[int]) -> Sequence[float]:
    """A column's values in the given rows (the column itself when they are all its rows, in order)."""
    return column if rows == range(len(column)) else [column[i] for i in rows]


def _rows_of(table: RankColumns, common: list[int]) -> Sequence[int]:
    """The rows of the common steps in a rank's table, in step order."""
    if list(table.step) == common:
        return range(len(common))
    where = {n: i for i, n in enumerate(table.step)}
    return [where[n] for n in common]


STEP_COLUMNS = ("arrival_ms", "period_ms", "anchor_ms", "compute_ms")
RANK_COLUMNS = ("cost_ms", "gap", "wait_ms")


def measure(ranks: Sequence[RankTrace | RankFacts | RankColumns]) -> Measured:
    """Everything the threshold does not change: the ranks' common steps, each rank's arrival, cost and spans.

    The costly part of an analysis (kernel unions over every step of every rank): the page's worker runs it next to
    the reader and hands the page this, which the page judges again at each threshold without the traces. Works on
    columns: a step's ranks are arrays, and only the ranks drawn get an object."""
    if len(ranks) < 2:
        raise AnalysisError("need traces of at least two ranks to compare them")
    tables = sorted((table_of(r) for r in ranks), key=lambda t: t.rank)
    warnings: list[Caveat] = []
    common = _common_steps(tables, warnings)
    worlds = {t.world_size for t in tables if t.world_size}
    if worlds and max(worlds) > len(tables):
        warnings.append(Caveat("some_ranks", loaded=len(tables), world=max(worlds)))
    rows = [_rows_of(t, common) for t in tables]
    order = tuple(t.rank for t in tables)
    by_rank = {name: [_picked(getattr(t, name), r) for t, r in zip(tables, rows)] for name in STEP_COLUMNS}
    steps = tuple(
        _summarise_step(
            n, order, [r[j] for r in rows], tables, {k: array("d", map(itemgetter(j), v)) for k, v in by_rank.items()}
        )
        for j, n in enumerate(common)
    )
    by_step = {name: [getattr(s.columns, name) for s in steps] for name in RANK_COLUMNS}
    slowest = Counter(s.slowest_rank for s in steps)
    summaries = tuple(
        _rank_summary(t, r, {name: list(map(itemgetter(k), v)) for name, v in by_step.items()}, slowest[t.rank])
        for k, (t, r) in enumerate(zip(tables, rows))
    )
    return Measured(steps, summaries, tuple(warnings), rank_step_map(steps))


def judge(measured: Measured, threshold: float = DEFAULT_THRESHOLD) -> Analysis:
    """The verdict at a threshold: who is late in which step, the persistent and transient stragglers, the costs."""
    check_number("threshold", threshold, 0.0, MAX_THRESHOLD, low_open=True)
    steps = tuple(
        replace(s, late_ranks=tuple(s.columns.ranks[i] for i in s.columns.late(threshold))) for s in measured.steps
    )
    late = Counter(r for s in steps for r in s.late_ranks)
    ranks = tuple(replace(r, late_steps=late[r.rank]) if late[r.rank] else r for r in measured.ranks)
    needed = persistent_needed(len(steps))
    stragglers = tuple(
        sorted(
            (Straggler(r.rank, r.median_gap, r.median_cost_ms, r.late_steps) for r in ranks if r.late_steps >= needed),
            key=lambda s: (-s.median_cost_ms, s.rank),
        )
    )
    transient = _transient(steps, {s.rank for s in stragglers})
    counted = [s.extra_ms if s.gap >= threshold else 0.0 for s in steps]
    step_ms = statistics.fmean(s.median_step_ms for s in steps)
    cost = statistics.fmean(counted)
    gauges = [r.gpu for r in ranks if r.gpu is not None]
    return Analysis(
        ranks=ranks,
        steps=steps,
        stragglers=stragglers,
        transient=transient,
        threshold=threshold,
        step_ms=step_ms,
        median_step_ms=statistics.median(s.median_step_ms for s in steps),
        straggler_cost_ms=cost,
        median_cost_ms=statistics.median(counted),
        ideal_step_ms=step_ms - cost,
        efficiency=(step_ms - cost) / step_ms if step_ms > 0 else 1.0,
        median_gap=statistics.median(s.gap for s in steps),
        wait_ms_total=statistics.fmean(sum(s.columns.wait_ms) for s in steps),
        gpu=_mean_gauges(gauges) if len(gauges) == len(ranks) else None,
        warnings=measured.warnings,
        rank_map=measured.rank_map,
    )


def analyze(traces: Sequence[RankTrace | RankFacts | RankColumns], threshold: float = DEFAULT_THRESHOLD) -> Analysis:
    """Compare the ranks' common steps: per step the latest rank and its cost, per rank how often it is late."""
    check_number("threshold", threshold, 0.0, MAX_THRESHOLD, low_open=True)
    return judge(measure(traces), threshold)


def measure_loaded(loaded: Loaded) -> tuple[Measured | None, tuple[FileError, ...]]:
    """The readable files measured; when they cannot be compared, None and why, as one more error line."""
    if not loaded.traces:
        return None, loaded.errors
    try:
        return measure(loaded.traces), loaded.errors
    except AnalysisError as exc:
        return None, (*loaded.errors, FileError("—", str(exc)))


def _mean_gauges(gauges: Sequence[GpuGauges]) -> GpuGauges:
    overlaps = [g.comm_overlap for g in gauges if g.comm_overlap is not None]
    return GpuGauges(
        busy=statistics.fmean(g.busy for g in gauges),
        compute=statistics.fmean(g.compute for g in gauges),
        comm_overlap=statistics.fmean(overlaps) if overlaps else None,
        exposed_comm_ms=statistics.fmean(g.exposed_comm_ms for g in gauges),
    )
