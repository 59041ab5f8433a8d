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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .collectives import GRADIENT_KINDS
from .intervals import Interval, Spans, clip, intersection_ms, merge, partition, union_ms
from .params import THRESHOLD, check_number
from .phases import ALLREDUCE, GPU_COMM, GPU_COMPUTE, IDLE, MEASURED, OTHER_COMM, SUMMED
from .stepfacts import DeviceTime, RankFacts, StepFacts
from .traces import COMPUTE, MEMORY, FileError, Loaded, RankTrace, TraceStep

DEFAULT_THRESHOLD = THRESHOLD.default
MAX_THRESHOLD = THRESHOLD.high
WARMUP_STEP = 0


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
    """For each value, the median of all the others, in O(n log n) (a job has thousands of ranks).

    >>> medians_of_others([10.0, 30.0, 20.0, 40.0])
    [30.0, 20.0, 30.0, 20.0]
    """
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranked = [values[i] for i in order]
    m = len(values) - 1

    def at(j: int, skip: int) -> float:
        return ranked[j if j < skip else j + 1]

    out = [0.0] * len(values)
    for position, i in enumerate(order):
        out[i] = at(m // 2, position) if m % 2 else (at(m // 2 - 1, position) + at(m // 2, position)) / 2
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
class StepSummary:
    """One step across ranks: the latest rank, its cost and gap, and whether that makes a straggler step
    (`late_ranks` is left empty by `measure`, filled by `judge`)."""

    step: int
    slowest_rank: int
    median_step_ms: float
    max_step_ms: float
    gap: float
    extra_ms: float
    late_ranks: tuple[int, ...]
    ranks: tuple[RankInStep, ...]

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


def _summarise_step(number: int, per_rank: dict[int, StepFacts]) -> StepSummary:
    arrivals = {r: f.arrival_ms for r, f in per_rank.items()}
    others = dict(zip(arrivals, medians_of_others(list(arrivals.values()))))
    costs = {r: a - others[r] for r, a in arrivals.items()}
    latest = max(arrivals.values())
    lead = max(f.anchor_ms for f in per_rank.values())
    ranks = []
    for r, f in sorted(per_rank.items()):
        shift = lead - f.anchor_ms
        ranks.append(
            RankInStep(
                rank=r,
                period_ms=f.period_ms,
                arrival_ms=f.arrival_ms,
                compute_ms=f.compute_ms,
                cost_ms=costs[r],
                gap=gap_of(costs[r], f.period_ms),
                wait_ms=latest - f.arrival_ms,
                phases_ms=f.phases_ms,
                spans=tuple(Interval(i.phase, i.start_ms + shift, i.end_ms + shift) for i in f.spans),
                comm_spans=f.comm_spans.shifted(shift),
                device_spans=f.device_spans.shifted(shift),
                device=f.device,
                start_ms=shift,
                end_ms=f.length_ms + shift,
                followed=f.followed,
            )
        )
    slowest = max(ranks, key=lambda x: (x.arrival_ms, -x.rank))
    periods = [x.period_ms for x in ranks]
    return StepSummary(
        number,
        slowest.rank,
        statistics.median(periods),
        max(periods),
        slowest.gap,
        slowest.cost_ms,
        (),
        tuple(ranks),
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


def _rank_summary(trace: RankFacts, mine: Sequence[RankInStep], slowest_count: int) -> RankSummary:
    measured = [x for x in mine if x.device is not None and x.followed] or [x for x in mine if x.device is not None]
    return RankSummary(
        rank=trace.rank,
        source=trace.source,
        median_step_ms=statistics.median(x.period_ms for x in mine),
        mean_step_ms=statistics.fmean(x.period_ms for x in mine),
        median_phases_ms={p: statistics.median(x.phases_ms[p] for x in mine) for p in SUMMED},
        median_arrival_ms=statistics.median(x.arrival_ms for x in mine),
        median_wait_ms=statistics.median(x.wait_ms for x in mine),
        median_gap=statistics.median(x.gap for x in mine),
        median_cost_ms=statistics.median(x.cost_ms for x in mine),
        late_steps=0,
        slowest_count=slowest_count,
        gpu=_gauges([x.device for x in measured if x.device], [x.period_ms for x in measured]) if measured else None,
    )


def _transient(steps: Sequence[StepSummary], persistent: set[int]) -> Transient:
    hit = [
        (s, max(x.cost_ms for x in s.ranks if x.rank in s.late_ranks and x.rank not in persistent))
        for s in steps
        if set(s.late_ranks) - persistent
    ]
    return Transient(
        steps=len(steps),
        straggler_steps=len(hit),
        fraction=len(hit) / len(steps),
        mean_cost_ms=statistics.fmean(c for _, c in hit) if hit else 0.0,
        ranks=tuple(sorted({r for s, _ in hit for r in s.late_ranks} - persistent)),
        step_numbers=tuple(s.step for s, _ in hit),
    )


def _common_steps(traces: Sequence[RankFacts], warnings: list[Caveat]) -> list[int]:
    step_sets = {t.rank: {s.step for s in t.steps} for t in traces}
    common = set.intersection(*step_sets.values())
    if not common:
        raise AnalysisError("the ranks' traces share no step number: were they recorded in the same run?")
    for t in traces:
        extra = len(step_sets[t.rank] - common)
        if extra:
            warnings.append(Caveat("partial", rank=t.rank, source=t.source, extra=extra))
    if WARMUP_STEP in common and len(common) > 1:
        common.discard(WARMUP_STEP)
        warnings.append(Caveat("warmup", step=WARMUP_STEP))
    if len(common) == 1:
        warnings.append(Caveat("one_step"))
    return sorted(common)


def measure(ranks: Sequence[RankTrace | RankFacts]) -> Measured:
    """Everything the threshold does not change: the ranks' common steps, each rank's arrival, cost and spans.

    The costly part of an analysis (kernel unions over every step of every rank): the page's worker runs it next to
    the reader and hands the page this, which the page judges again at each threshold without the traces."""
    if len(ranks) < 2:
        raise AnalysisError("need traces of at least two ranks to compare them")
    traces = [facts_of(r) for r in ranks]
    warnings: list[Caveat] = []
    common = _common_steps(traces, warnings)
    worlds = {t.world_size for t in traces if t.world_size}
    if worlds and max(worlds) > len(traces):
        warnings.append(Caveat("some_ranks", loaded=len(traces), world=max(worlds)))
    by_rank = {t.rank: {f.step: f for f in t.steps} for t in traces}
    steps = tuple(_summarise_step(n, {r: facts[n] for r, facts in by_rank.items()}) for n in common)
    mine: dict[int, list[RankInStep]] = {t.rank: [] for t in traces}
    for summary in steps:
        for x in summary.ranks:
            mine[x.rank].append(x)
    slowest = Counter(summary.slowest_rank for summary in steps)
    summaries = tuple(_rank_summary(t, mine[t.rank], slowest[t.rank]) for t in traces)
    return Measured(steps, summaries, tuple(warnings))


def judge(measured: Measured, threshold: float = DEFAULT_THRESHOLD) -> Analysis:
    """The verdict at a threshold: who is late in which step, the persistent and transient stragglers, the costs."""
    check_number("threshold", threshold, 0.0, MAX_THRESHOLD, low_open=True)
    steps = tuple(replace(s, late_ranks=tuple(x.rank for x in s.ranks if x.gap >= threshold)) for s in measured.steps)
    late = Counter(r for s in steps for r in s.late_ranks)
    ranks = tuple(replace(r, late_steps=late[r.rank]) for r in measured.ranks)
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
        wait_ms_total=statistics.fmean(sum(x.wait_ms for x in s.ranks) for s in steps),
        gpu=_mean_gauges(gauges) if len(gauges) == len(ranks) else None,
        warnings=measured.warnings,
    )


def analyze(traces: Sequence[RankTrace | RankFacts], threshold: float = DEFAULT_THRESHOLD) -> Analysis:
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
