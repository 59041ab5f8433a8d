"""A trace's steps as the facts the analysis measures (`stepfacts.StepFacts`): run where the traces are read (the
command line, the page's worker, `summarize`), never where a verdict is only judged again.

Every rank leaves a step's gradient collective together: its end is the **release**, an instant every rank shares.
A rank's **readiness** is when its last gradient bucket was ready: the host's launch of the step's last gradient
collective, or on a GPU trace the start of its last gradient kernel (the host runs ahead of the GPU; the kernel
starts once the bucket's gradients are computed, then spins until every rank has joined). Its **wait** at the
barrier, release minus readiness, is a duration on its own clock: no clock sync across hosts is needed.

The time from the previous step's release to this readiness is the rank's **work** for the step, and it is split
into where it went (`phases.CAUSES`): host phases, host time outside any phase (between steps), and on a GPU the
kernels, copies, and the GPU idle while the host launched work. Every rank starts that window at the same instant,
so a rank's excess of work over the others is its lateness, part by part.

>>> from ..base.intervals import Interval
>>> step = TraceStep(1, 100.0, 150.0, (Interval("backward", 110.0, 140.0),),
...                  (Interval("allreduce", 120.0, 125.0), Interval("allreduce", 130.0, 138.0)))
>>> release_of(step), readiness_of(step)
(138.0, 130.0)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base.intervals import Interval, Spans, clip, intersection_ms, merge, partition, union_ms
from ..base.phases import (
    ALLREDUCE,
    BACKWARD,
    BETWEEN_STEPS,
    CAUSES,
    COPIES,
    FORWARD,
    FORWARD_BACKWARD,
    GPU_COMM,
    GPU_COMPUTE,
    HOST,
    HOST_LAUNCH,
    IDLE,
    LOAD,
    MEASURED,
    OTHER_COMM,
)
from .collectives import GRADIENT_KINDS
from .parse import COMPUTE_KERNEL, MEMORY_KERNEL, RankTrace, TraceStep
from .stepfacts import DeviceTime, RankColumns, RankFacts, StepFacts, columns_of

__all__ = ["arrival_ms", "facts_of", "table_of", "work_parts"]

HOST_ORDER = tuple(p for p in MEASURED if p in HOST)
"""Host phases overlap (a DataLoader thread, an async collective): each instant of the work goes to the first, in the
order a measured step gives them (`phases.MEASURED`)."""
GPU_ORDER: tuple[str, ...] = (GPU_COMPUTE, COPIES, LOAD, HOST_LAUNCH)
"""On a GPU, each instant goes to a compute kernel, else a copy, else to what the host was doing while the GPU idled:
loading input, launching work (any other phase), or nothing (between steps)."""


def _gradient_launches(step: TraceStep) -> list[float]:
    """Launches of the step's gradient collectives in the backward (those before it: the buffer broadcast,
    all_to_all, an AllReduce of the loss, are not gradients)."""
    backward = [p for p in step.phases if p.phase == BACKWARD]
    forward = [p for p in step.phases if p.phase == FORWARD]
    after = (
        min(p.start_ms for p in backward) if backward else max(p.end_ms for p in forward) if forward else float("-inf")
    )
    launched = [c.start_ms for c in step.collectives if c.phase in GRADIENT_KINDS and c.start_ms >= after]
    return launched or [c.start_ms for c in step.runs if c.phase in GRADIENT_KINDS and c.start_ms >= after]


def _backward_end(step: TraceStep) -> float:
    backward = [p.end_ms for p in step.phases if p.phase in (BACKWARD, FORWARD_BACKWARD)]
    return max(backward) if backward else step.end_ms


def arrival_ms(step: TraceStep) -> float:
    """Time from the step's start to its first gradient collective: on a GPU its first gradient kernel, else its
    launch in the backward; without any, the end of the backward; without a backward, the step's end. The measure
    from a rank's own step start, kept for traces that give no release (it misses time lost before the step and
    after the first bucket).

    >>> from ddpcore.base.intervals import Interval
    >>> step = TraceStep(1, 100.0, 150.0, (Interval("backward", 110.0, 140.0),), ())
    >>> arrival_ms(step)
    40.0
    """
    kernels = _gradient_kernels(step)
    if kernels:
        return min(k.start_ms for k in kernels) - step.start_ms
    launches = _gradient_launches(step)
    return (min(launches) if launches else _backward_end(step)) - step.start_ms


def _is_comm(kernel: Interval) -> bool:
    return kernel.phase not in (COMPUTE_KERNEL, MEMORY_KERNEL)


def _gradient_kernels(step: TraceStep) -> list[Interval]:
    return [k for k in step.device if k.phase in GRADIENT_KINDS]


def release_of(step: TraceStep) -> float | None:
    """The end of the step's gradient collective on the rank's clock (its NCCL kernel when it ran on a GPU), or None
    when the step has none."""
    kernels = _gradient_kernels(step)
    if kernels:
        return max(k.end_ms for k in kernels)
    host = [c.end_ms for c in (*step.collectives, *step.runs) if c.phase in GRADIENT_KINDS]
    return max(host) if host else None


def comm_free_of(step: TraceStep, release: float | None) -> float:
    """When the rank's gradient collectives other than the last had all ended: the last bucket's transfer cannot
    start before (buckets are reduced one after another). With a single one, its start: then nothing but the
    ranks' readiness holds it.

    >>> from ddpcore.base.intervals import Interval
    >>> step = TraceStep(1, 100.0, 150.0, (Interval("backward", 110.0, 140.0),), ())
    >>> comm_free_of(step, release=None)
    140.0
    """
    if release is not None:
        runs = _gradient_kernels(step) or [c for c in (*step.collectives, *step.runs) if c.phase in GRADIENT_KINDS]
        ends = sorted(c.end_ms for c in runs)
        if len(ends) > 1:
            return ends[-2]
    return step.start_ms + arrival_ms(step)


def readiness_of(step: TraceStep) -> float:
    """When the rank's last gradient bucket was ready: on a GPU, the start of its last gradient kernel (the GPU
    reaches it once the bucket's gradients are computed, unless an earlier bucket's kernel still holds the stream,
    which `comm_free_of` tells); else the host's launch of the last gradient collective; without any, the end of
    the backward."""
    kernels = _gradient_kernels(step)
    if kernels:
        return max(k.start_ms for k in kernels)
    launches = _gradient_launches(step)
    return max(launches) if launches else _backward_end(step)


def _anchor(step: TraceStep, release: float | None) -> float:
    """The instant to align ranks on when drawing: the release, else the end of any collective, else the step's
    end."""
    if release is not None:
        return release
    comms = [k.end_ms for k in step.device if _is_comm(k)] or [c.end_ms for c in (*step.collectives, *step.runs)]
    return max(comms) if comms else step.end_ms


def _comm_phases(step: TraceStep) -> list[Interval]:
    """Host collectives as phases: the gradient ones are `allreduce`, every other kind `other_comm`."""
    return [
        Interval(ALLREDUCE if c.phase in GRADIENT_KINDS else OTHER_COMM, c.start_ms, c.end_ms)
        for c in (*step.collectives, *step.runs)
    ]


def _device_time(step: TraceStep) -> DeviceTime:
    kernels = [k for k in step.device if k.phase != MEMORY_KERNEL]
    compute = merge(k for k in kernels if not _is_comm(k))
    comm = merge(k for k in kernels if _is_comm(k))
    return DeviceTime(
        union_ms(kernels), sum(b - a for a, b in compute), sum(b - a for a, b in comm), intersection_ms(comm, compute)
    )


def _device_spans(step: TraceStep, shift: float) -> Spans:
    kernels = [k for k in step.device if k.phase != MEMORY_KERNEL]
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


def work_parts(steps: Sequence[TraceStep], start_ms: float, end_ms: float, gpu: bool) -> dict[str, float]:
    """Where a rank's time from `start_ms` to `end_ms` went (`phases.CAUSES`, ms), from the steps that cover it.

    A host trace: the host phases, the rest between steps. A GPU trace: compute kernels, copies, and the GPU idle
    named by what its host did meanwhile (loading, launching, or nothing: between steps).

    >>> s = TraceStep(1, 0.0, 30.0, (Interval("load", 5.0, 10.0), Interval("forward", 10.0, 20.0)), ())
    >>> {k: v for k, v in work_parts([s], 0.0, 25.0, gpu=False).items() if v}
    {'load': 5.0, 'forward': 10.0, 'between_steps': 10.0}
    """
    host = [i for s in steps for i in s.phases]
    if gpu:
        kernels = [k for s in steps for k in s.device]
        named = [
            *(Interval(GPU_COMPUTE, k.start_ms, k.end_ms) for k in kernels if k.phase == COMPUTE_KERNEL),
            *(Interval(COPIES, k.start_ms, k.end_ms) for k in kernels if k.phase == MEMORY_KERNEL),
            *(Interval(LOAD if h.phase == LOAD else HOST_LAUNCH, h.start_ms, h.end_ms) for h in host),
        ]
        order = GPU_ORDER
    else:
        named, order = host, HOST_ORDER
    parts = dict.fromkeys(CAUSES, 0.0)
    for i in partition(clip(named, start_ms, end_ms), order):
        parts[i.phase] += i.duration_ms
    parts[BETWEEN_STEPS] = max(0.0, (end_ms - start_ms) - sum(parts.values()))
    return parts


def _step_facts(
    s: TraceStep, period: float, followed: bool, kernels: bool, previous: tuple[TraceStep, float] | None
) -> StepFacts:
    spans = partition(clip([*s.phases, *_comm_phases(s)], s.start_ms, min(s.end_ms, s.start_ms + period)), MEASURED)
    phases = {p: sum(i.duration_ms for i in spans if i.phase == p) for p in MEASURED}
    phases[IDLE] = max(0.0, (s.end_ms - s.start_ms) - sum(phases.values()))
    release = release_of(s)
    ready = readiness_of(s)
    origin, covering = (previous[1], (previous[0], s)) if previous else (s.start_ms, (s,))
    return StepFacts(
        step=s.step,
        start_ms=s.start_ms,
        length_ms=s.end_ms - s.start_ms,
        period_ms=period,
        followed=followed,
        arrival_ms=arrival_ms(s),
        compute_ms=ready - s.start_ms,
        anchor_ms=_anchor(s, release) - s.start_ms,
        comm_free_ms=comm_free_of(s, release) - s.start_ms,
        phases_ms=phases,
        device=_device_time(s) if kernels else None,
        released=release is not None,
        from_release=previous is not None,
        work_ms=ready - origin,
        parts_ms=work_parts(covering, origin, ready, kernels and bool(_gradient_kernels(s))),
        spans=tuple(Interval(i.phase, i.start_ms - s.start_ms, i.end_ms - s.start_ms) for i in spans),
        comm_spans=_comm_spans(s, -s.start_ms),
        device_spans=_device_spans(s, -s.start_ms),
    )


def facts_of(trace: RankTrace | RankFacts) -> RankFacts:
    """A trace's steps with what the analysis measures of each.

    A step's period is the next step's start minus its own when the next step was recorded, else its length. A
    step without a recorded successor is the last of a profiling window, whose GPU work the profiler may have cut
    short: it stops when the host ends the step, while the GPU still runs what the step launched. A step's work is
    counted from the previous step's release when that step was recorded just before it, else from its own start.

    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(1, 4)).encode()
    >>> from ddpcore.traces.parse import parse_file
    >>> facts = facts_of(parse_file("rank1.jsonl", data))
    >>> facts.rank, [s.step for s in facts.steps]
    (1, [1, 2, 3])
    """
    if isinstance(trace, RankFacts):
        return trace
    by_number = {s.step: s for s in trace.steps}
    steps = []
    for s in trace.steps:
        following = by_number.get(s.step + 1)
        followed = following is not None and following.start_ms > s.start_ms
        period = following.start_ms - s.start_ms if following is not None and followed else s.end_ms - s.start_ms
        before = by_number.get(s.step - 1)
        released = release_of(before) if before is not None and before.start_ms < s.start_ms else None
        previous = (before, released) if before is not None and released is not None else None
        steps.append(_step_facts(s, period, followed, trace.has_kernels, previous))
    return RankFacts(trace.rank, trace.source, trace.world_size, tuple(steps))


def table_of(rank: RankTrace | RankFacts | RankColumns) -> RankColumns:
    """Any rank's input as the columns `measure` reads.

    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(1, 4)).encode()
    >>> from ddpcore.traces.parse import parse_file
    >>> table = table_of(parse_file("rank1.jsonl", data))
    >>> table.rank, list(table.step)
    (1, [1, 2, 3])
    """
    return rank if isinstance(rank, RankColumns) else columns_of(facts_of(rank))
