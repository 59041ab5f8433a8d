"""What a 3D-parallel job's stragglers cost: each step re-timed on its dependency graph (`jobgraph`) with every
operation at its typical duration (the ideal), then with one group's real durations put back at a time.

- S, the slowdown: the steps' mean time with real durations over the ideal's (launch gaps taken out of both).
- S by data-parallel rank, by stage, by operation type (sends and receives of a direction as one), each per step
  too: the ideal with that group's real durations, over the ideal.
- M_W, what the worst workers explain: the share of the slowdown removed when the 3 % of workers (at least one)
  whose data-parallel rank and stage both slow the job most run at typical durations; near 1, one worker's problem.
- M_S, what the last stage explains: the same for every worker of the last stage; high when it holds too much of
  the model.
- A stage's load: the least of its workers' compute (forward and backward, a step) over the mean worker's. A stage
  holds too much of the model when every one of its workers computes IMBALANCE times the mean worker's or more: a
  mean over every step and micro-batch, which the jitter of a shared or noisy machine leaves where it is, where it
  puts S and M_S far above 1 on a clean job (beyond the paper).

A typical duration is, per operation type over every worker and step, the mean of a compute and the median of a
communication's transfer; a launch gap is what a worker waited beyond its prerequisites (the host late to issue), left
out so that the slowdown is the workers' durations alone. These are the definitions of "Understanding Stragglers in
Large Model Training Using What-if Analysis" (OSDI 2025), whose artifact's published results `tests` compare with.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from operator import add, sub
from typing import Any

from ..base.words import Message, Ratio, Share, listed
from ..storage.grid import cell_rows
from ..storage.picking import interleaved, joined, largest_each, largest_each_plus, least_each
from ..traces.keeping import WARMUP_STEP
from ..traces.optrace import CLOCK_SKEW, JobGroups, OpRow, OpTable, OpTraceError
from .chance import student_upper
from .jobgraph import BACKWARD, COMM_OPTYPES, FORWARD, P2P_PEER, Key, StepGraph, graph_of
from .odds import ALPHA, binomial_above

__all__ = [
    "DECOMPOSE_FROM",
    "Timeline",
    "JobWhatIf",
    "JobTimes",
    "job_times",
    "job_verdict",
    "job_whatif",
    "JobStepDrawing",
    "job_step_drawing",
    "job_timelines",
    "simulated_job",
]

DECOMPOSE_FROM = 1.03
"""The slowdown from which S is split by rank, stage and type (below it there is little to split)."""

EXPLAINS = 0.5
"""The share of the slowdown a worker or the last stage must explain (M_W, M_S) to be named its cause."""

WORST_SHARE = 0.03
"""The share of workers (at least one) M_W re-times: the worst 3 %."""

IMBALANCE = 1.2
"""The load (a worker's compute over the mean worker's) from which each worker of a stage holding it says that the
stage holds too much of the model: the pipeline runs at its heaviest stage's pace, and moving layers to the mean
would shorten that pace by a sixth or more. A clean job's stages measured here are within 1.13 of the mean with two
DP ranks or more (1.23 with one: a single worker's own jitter); two stages of 3 and 9 layers read 1.28-1.44, a last
stage holding twice the layers 1.24-1.32."""

WARMED_UP = Message.of("job.warmed_up", step=WARMUP_STEP)
"""The line that says a job's first step was left out (`traces.keeping.WARMUP_STEP`): a job recorded from its start
(`ops.JobRecorder`) spends 2 to 9 times a step there, which S would count as slowdown."""

LATE_AT = -CLOCK_SKEW
"""How far (s) an operation may seem to start before what it needs ended, or to end before its group's last member
started, and still be read as it is (two hosts' clocks disagree by that much): beyond, it is read as 0."""

Values = dict[Key, list[float]]


@dataclass(frozen=True)
class JobTimes:
    """A job's operations laid out on its step graph: for each operation of the graph, a value per instance (a step
    and a data-parallel rank: instance t × dps + d), as recorded. `skipped` says, a line each, what was left out."""

    graph: StepGraph
    groups: JobGroups
    steps: tuple[int, ...]
    dps: int
    duration: Values
    transfer: Values
    delay: Values
    workers: dict[tuple[int, int], int]
    skipped: tuple[Message, ...] = ()

    @property
    def instances(self) -> int:
        """How many (step, data-parallel rank) pairs each operation has."""
        return len(self.steps) * self.dps


def _instances(table: OpTable, dps: int) -> tuple[dict[Key, list[int]], list[int], list[Message]]:
    """Each operation's rows, one an instance (a step every worker recorded whole and a data-parallel rank: t × dps
    + d); those steps; a line per step left out. A table that holds each operation once an instance, as a job's
    does, is laid out by `cell_rows`."""
    steps = sorted(set(table.step))
    if not steps:
        raise OpTraceError("no operation in the table")
    grid = cell_rows([list(zip(table.optype, table.seq, table.stage)), table.step, table.dp])
    if grid is not None and grid[0][2] == list(range(dps)):
        (ops, _, _), rows = grid
        width = len(steps) * dps
        return {_key(table, rows[j * width]): rows[j * width : (j + 1) * width] for j in range(len(ops))}, steps, []
    keys = list(zip(map(table.names.__getitem__, table.optype), table.seq, table.stage))
    at = dict(zip(zip(keys, table.dp, table.step), range(len(table))))
    of_rank0: dict[int, set[Key]] = defaultdict(set)
    count: Counter[int] = Counter()
    for k, d, step in at:
        count[step] += 1
        if d == 0:
            of_rank0[step].add(k)
    template = max(steps, key=lambda step: (len(of_rank0[step]), -step))
    shape = of_rank0[template]
    expected = {(k, d) for k in shape for d in range(dps)}
    odd = {step for step in steps if count[step] != len(expected) or of_rank0[step] != shape}
    held: dict[int, set[tuple[Key, int]]] = defaultdict(set)
    for k, d, step in at:
        if step in odd or k not in shape or not 0 <= d < dps:
            held[step].add((k, d))
            odd.add(step)
    kept: list[int] = []
    lines: list[Message] = []
    for step in steps:
        if step not in odd:
            kept.append(step)
            continue
        have = held[step] | {(k, d) for k, d, t in at if t == step}
        missing, extra = expected - have, have - expected
        some = sorted(missing or extra)[0]
        code = "job.step_lacks" if missing else "job.step_extra"
        lines.append(
            Message.of(
                code,
                step=step,
                count=len(missing or extra),
                op=some[0][0],
                seq=some[0][1],
                stage=some[0][2],
                dp=some[1],
            )
        )
    return {k: [at[(k, d, step)] for step in kept for d in range(dps)] for k in shape}, kept, lines


def _key(table: OpTable, row: int) -> Key:
    """The operation a row records."""
    return table.names[table.optype[row]], table.seq[row], table.stage[row]


def job_times(table: OpTable | Sequence[OpRow], groups: JobGroups, transfers_drawn: bool = False) -> JobTimes:
    """A job's operation table laid out on its step graph, with each operation's recorded duration, each
    communication's transfer (its end after its group's latest start) and each operation's launch gap (its start
    after what it needs ended). Workers, stages and steps are checked against the group sizes: a missing stage or
    rank is an error; a step that lacks operations is left out with a line (`skipped`). `transfers_drawn`: each
    communication's row is its transfer alone (the artifact's timelines draw them so), read as it is.

    >>> times = job_times(*simulated_job(dp=2, pp=2, steps=3))
    >>> times.steps, times.instances, len(times.graph.groups)
    ((1, 2, 3), 6, 5)
    """
    if not isinstance(table, OpTable):
        table = OpTable.of_rows(table)
    stages = sorted(set(table.stage))
    dps = sorted(set(table.dp))
    if stages != list(range(groups.pp)):
        raise OpTraceError(f"the table holds stages {listed(stages, 6)} but the job has {groups.pp}")
    if dps != list(range(groups.dp)):
        raise OpTraceError(f"the table holds data-parallel ranks {listed(dps, 6)} but the job has {groups.dp}")
    dp = groups.dp
    rows, steps, skipped = _instances(table, dp)
    if not steps:
        raise OpTraceError("no step holds every worker's operations: " + skipped[0].text())
    skip = 0
    if steps[0] == WARMUP_STEP and len(steps) > 1:
        steps, skip = steps[1:], dp
        skipped = [*skipped, WARMED_UP]
    first = steps[0]
    template = [
        OpRow(
            0,
            k[2],
            table.rank[i],
            first,
            k[0],
            table.start[i],
            table.duration[i],
            k[1],
            table.chunk[i],
            table.virtual[i],
        )
        for k, i in sorted(((k, v[skip]) for k, v in rows.items()), key=lambda kv: kv[1])
    ]
    try:
        graph = graph_of(template, groups.pp, groups.dp * groups.cp > 1)
    except ValueError as exc:
        raise OpTraceError(str(exc)) from None
    place = {k: rows[k][skip:] for k in graph.needs}
    duration = {k: list(map(table.duration.__getitem__, v)) for k, v in place.items()}
    starts = {k: list(map(table.start.__getitem__, v)) for k, v in place.items()}
    ends = {k: list(map(add, starts[k], duration[k])) for k in place}
    transfer: Values = {}
    for g, members in enumerate(graph.groups):
        if transfers_drawn:
            transfer |= {m: _on_time(duration[m]) for m in members}
            continue
        latest = _most(starts, members)
        if graph.dp_synced[g]:
            latest = _across_dp(latest, dp)
        received = [ends[m] for m in members if m[0].endswith("recv")]
        for m in members:
            end = least_each([ends[m], received[0]]) if received and m[0].endswith("send") else ends[m]
            transfer[m] = _on_time(list(map(sub, end, latest)))
    first_start = least_each(list(starts.values()))
    step_start = [min(first_start[t : t + dp]) for t in range(0, len(first_start), dp) for _ in range(dp)]
    delay = {
        k: _on_time(list(map(sub, starts[k], _most(ends, needs) if needs else step_start)))
        for k, needs in graph.needs.items()
    }
    workers = dict(zip(zip(table.dp, table.stage), table.rank))
    return JobTimes(graph, groups, tuple(steps), dp, duration, transfer, delay, workers, tuple(skipped))


def _most(values: Values, keys: Sequence[Key]) -> list[float]:
    """Per instance, the largest value of some operations'."""
    return values[keys[0]] if len(keys) == 1 else largest_each([values[k] for k in keys])


def _on_time(gaps: Sequence[float]) -> list[float]:
    """Gaps read from two clocks: each 0 when more negative than clocks disagree by (LATE_AT)."""
    return [0.0 if g <= LATE_AT else g for g in gaps]


def _across_dp(values: Sequence[float], dps: int) -> list[float]:
    """Each instance's value replaced by the largest over its step's data-parallel ranks."""
    out: list[float] = []
    for t in range(0, len(values), dps):
        top = max(values[t : t + dps])
        out.extend([top] * dps)
    return out


@dataclass(frozen=True)
class Timeline:
    """A re-timed job: each operation's start and end per instance."""

    starts: Values
    ends: Values


def simulate(times: JobTimes, duration: Values, transfer: Values, delay: Values | None) -> Timeline:
    """Each operation's start and end when it starts as soon as what it needs has ended (plus its launch gap, when
    `delay` is given), lasts its `duration`, or for a communication ends its `transfer` after its group's latest
    member started (across the data-parallel ranks for a collective).

    >>> times = job_times(*simulated_job(dp=1, pp=2, steps=1, micro=1))
    >>> line = simulate(times, times.duration, times.transfer, None)
    >>> line.starts[("forward-compute", 0, 1)], [round(t, 6) for t in line.ends[("optimizer", 0, 1)]]
    ([1.1], [6.4])
    """
    return _timed(times, duration, transfer, delay)


def _timed(
    times: JobTimes,
    duration: Values,
    transfer: Values,
    delay: Values | None,
    known: Values | None = None,
    every_start: bool = True,
) -> Timeline:
    """`simulate`, but for the operations whose ends `known` holds (whole groups), taken from it as they are, their
    starts left out (`duration` and `transfer` need not hold them); without `every_start`, only the starts of
    communications are kept."""
    graph, dps = times.graph, times.dps
    zero = [0.0] * len(next(iter(duration.values()), ()))
    starts: Values = {}
    ends: Values = {}

    needs = graph.needs

    def ready(k: Key) -> list[float]:
        before = needs[k]
        at = _most(ends, before) if before else zero
        return at if delay is None else list(map(add, at, delay[k]))

    for unit in graph.order:
        members = (unit,) if not isinstance(unit, int) else graph.groups[unit]
        if known is not None and members[0] in known:
            for m in members:
                ends[m] = known[m]
            continue
        if not isinstance(unit, int):
            if delay is None and not every_start and needs[unit]:
                ends[unit] = largest_each_plus([ends[k] for k in needs[unit]], duration[unit])
                continue
            starts[unit] = start = ready(unit)
            ends[unit] = list(map(add, start, duration[unit]))
            continue
        for m in members:
            starts[m] = ready(m)
        latest = _most(starts, members)
        if graph.dp_synced[unit]:
            latest = _across_dp(latest, dps)
        for m in members:
            ends[m] = list(map(add, latest, transfer[m]))
    return Timeline(starts, ends)


def _step_times(times: JobTimes, line: Timeline, span: bool) -> list[float]:
    """Each step's time: when its last optimizer ended (`span`: its last operation), from the step's start at 0."""
    keys = list(line.ends) if span else [k for k in line.ends if k[0] == "optimizer"]
    ends = largest_each([line.ends[k] for k in keys])
    dps = times.dps
    return [max(ends[t : t + dps]) for t in range(0, len(ends), dps)]


@dataclass(frozen=True)
class JobWhatIf:
    """A 3D-parallel job's what-if (the module's docstring): step times in seconds, slowdowns as ratios (1: no
    slowdown), each breakdown by group label and per step; M_W and M_S with the workers they re-timed.

    Two data-parallel ranks of two stages, the worker of DP rank 0 on stage 1 twice as slow to compute:

    >>> w = job_whatif(job_times(*simulated_job(dp=2, pp=2, steps=3, slow=(0, 1))))
    >>> len(w.step_s), w.worst_workers, round(w.by_dp[0], 2), round(w.by_dp[1], 2), round(w.by_stage[1], 2)
    (3, ((0, 1),), 1.31, 1.0, 1.37)
    """

    groups: JobGroups
    steps: tuple[int, ...]
    step_s: tuple[float, ...]
    nodelay_s: tuple[float, ...]
    ideal_s: tuple[float, ...]
    launch_slowdown: float
    slowdown: float
    step_slowdown: dict[int, float]
    by_dp: dict[int, float] = field(default_factory=dict)
    by_stage: dict[int, float] = field(default_factory=dict)
    by_optype: dict[str, float] = field(default_factory=dict)
    by_dp_step: dict[int, dict[int, float]] = field(default_factory=dict)
    by_stage_step: dict[int, dict[int, float]] = field(default_factory=dict)
    by_optype_step: dict[int, dict[str, float]] = field(default_factory=dict)
    by_worker: dict[tuple[int, int], float] = field(default_factory=dict)
    worst_workers: tuple[tuple[int, int], ...] = ()
    m_w: float = math.nan
    m_s: float = math.nan
    skipped: tuple[Message, ...] = ()
    without_worst_s: float = math.nan
    """The mean step (first start to last end, launch gaps out) with the worst workers at typical durations: what
    fixing them would give (M_W's re-timing)."""
    without_last_s: float = math.nan
    """The same with the last stage at typical durations (M_S's)."""
    last_stage: int = -1
    """The stage M_S re-times: the one holding the model's last layers (`StepGraph.last_stage`; -1: the last)."""
    stage_load: dict[int, float] = field(default_factory=dict)
    """Each stage's load (the module's docstring): the least of its workers' compute over the mean worker's."""
    heavy_stage: int = -1
    """The stage of the largest load (-1: none measured)."""
    without_heavy_s: float = math.nan
    """The mean step with the heavy stage at typical durations (`without_last_s` when it is the last)."""
    m_heavy: float = math.nan
    """The share of the slowdown the heavy stage explains (M_S when it is the last)."""
    stages_together: float | None = None
    """The chance that a DP rank's compute agrees across neighbouring stages, step by step, as much as it does with
    each stage's jitter its own (`together_chance`; None with one DP rank or one stage)."""


def stage_compute(times: JobTimes) -> list[list[float]]:
    """Each stage's compute (forward and backward) per instance (step t, DP rank d at t x dps + d).

    >>> [[round(v, 1) for v in row] for row in stage_compute(job_times(*simulated_job(dp=2, pp=2, steps=1)))]
    [[6.0, 6.0], [6.0, 6.0]]
    """
    out = [[0.0] * times.instances for _ in range(times.groups.pp)]
    for k, values in times.duration.items():
        if k[0] in (FORWARD, BACKWARD):
            out[k[2]] = list(map(add, out[k[2]], values))
    return out


def together_chance(compute: Sequence[Sequence[float]], dps: int) -> float:
    """The chance that neighbouring stages' compute agrees DP rank by DP rank, step by step, as much as `compute`
    (each stage's per instance, `stage_compute`) does or more, when each stage's jitter is its own. Each value is
    taken less its step's mean over the DP ranks and its worker's mean over the steps (a worker slower throughout is
    no step's), the neighbours' pairs pooled into one correlation r over the m = (stages - 1) (dps - 1) (steps - 1)
    values free to vary, fewer where each worker's jitter carries from step to step (Bartlett's (1 + a b) / (1 - a b)
    for lag-one correlations a and b of two neighbours), read by Student's t, r sqrt((m - 2) / (1 - r^2)), of m - 2
    degrees of freedom. Work uneven across DP ranks is the data's: a DP rank given longer sequences is slower on every
    stage they flow through, where one stage's jitter says nothing of its neighbour's. 1 when nothing varies.

    >>> first = [1.0, 2.0, 2.0, 1.0, 1.0, 3.0, 3.0, 1.0, 2.0, 4.0, 4.0, 2.0]
    >>> alike, apart = [first, [2 * v for v in first]], [first, [1.0, 2.0, 1.0, 2.0, 3.0, 1.0, 1.0, 3.0] + first[8:]]
    >>> together_chance(alike, 2), round(together_chance(apart, 2), 2)
    (0.0, 0.5)
    """
    steps = len(compute[0]) // dps if compute else 0
    centred = [_double_centred(row[: steps * dps], dps, steps) for row in compute]
    carried = [_carried(row, dps) for row in centred]
    pairs = list(zip(centred, centred[1:]))
    cross = math.fsum(x * y for a, b in pairs for x, y in zip(a, b))
    scale = math.sqrt(math.fsum(x * x for a, _ in pairs for x in a) * math.fsum(y * y for _, b in pairs for y in b))
    both = math.fsum(a * b for a, b in zip(carried, carried[1:])) / max(1, len(pairs))
    free = (len(compute) - 1) * (dps - 1) * (steps - 1) * (1.0 - both) / (1.0 + both)
    if free < 3.0 or scale <= 0.0:
        return 1.0
    r = cross / scale
    if r >= 1.0:
        return 0.0
    dof = math.floor(free) - 2
    t = r * math.sqrt(dof / (1.0 - r * r))
    return student_upper(t, dof) if t >= 0.0 else 1.0 - student_upper(-t, dof)


def _double_centred(row: Sequence[float], dps: int, steps: int) -> list[float]:
    """A stage's values per instance (t x dps + d) less their step's mean and their DP rank's, plus the whole mean."""
    step_mean = [math.fsum(row[t * dps : (t + 1) * dps]) / dps for t in range(steps)]
    rank_mean = [math.fsum(row[d::dps]) / steps for d in range(dps)]
    whole = math.fsum(row) / len(row) if row else 0.0
    return [v - step_mean[i // dps] - rank_mean[i % dps] + whole for i, v in enumerate(row)]


def _carried(row: Sequence[float], dps: int) -> float:
    """How much of a step's value each DP rank carries into the next, over a stage's centred values (a lag-one
    correlation pooled over the DP ranks, 0 when negative)."""
    square = math.fsum(v * v for v in row)
    lagged = math.fsum(a * b for a, b in zip(row, row[dps:]))
    return max(0.0, lagged / square) if square > 0.0 else 0.0


def stage_loads(times: JobTimes) -> dict[int, float]:
    """Each stage's load: the least of its workers' compute a step (forward and backward) over the mean worker's
    (empty without compute).

    >>> loads = stage_loads(job_times(*simulated_job(dp=2, pp=2, steps=2)))
    >>> {s: round(v, 2) for s, v in loads.items()}
    {0: 1.0, 1: 1.0}
    """
    compute = stage_compute(times)
    work = {(d, s): math.fsum(compute[s][d :: times.dps]) / len(times.steps) for d, s in times.workers}
    mean = math.fsum(work.values()) / len(work) if work else 0.0
    if mean <= 0.0:
        return {}
    least: dict[int, float] = {}
    for (_, stage), v in work.items():
        least[stage] = min(least.get(stage, math.inf), v / mean)
    return dict(sorted(least.items()))


def _typical(times: JobTimes) -> tuple[Values, Values]:
    """Every operation at its type's typical duration: a compute's mean, a communication's median transfer (or its
    median duration where it waits for nobody)."""
    comm = set(times.transfer)
    pooled: dict[str, list[float]] = defaultdict(list)
    for k, values in times.duration.items():
        if k not in comm:
            pooled[k[0]].extend(values)
    pooled_transfer: dict[str, list[float]] = defaultdict(list)
    for k, values in times.transfer.items():
        pooled_transfer[k[0]].extend(values)
    typical = {t: statistics.median(v) if t in COMM_OPTYPES else math.fsum(v) / len(v) for t, v in pooled.items() if v}
    typical_transfer = {t: statistics.median(v) for t, v in pooled_transfer.items() if v}
    n = times.instances
    duration = {k: [typical[k[0]]] * n if k not in comm else list(v) for k, v in times.duration.items()}
    transfer = {k: [typical_transfer[k[0]]] * n for k in times.transfer}
    return duration, transfer


Pick = Callable[[Key], "Sequence[int] | None"]
"""Which instances of an operation take their real values: None for all of them, else the data-parallel ranks."""


def _mixed(
    times: JobTimes, base: tuple[Values, Values], real: tuple[Values, Values], pick: Pick
) -> tuple[Values, Values]:
    """The durations and transfers of `base` but for the operations' instances `pick` chooses, which take `real`'s
    (a data-parallel rank's instances are every `dps`-th)."""
    dps = times.dps
    out: list[Values] = []
    for b, r in zip(base, real):
        mixed: Values = {}
        for k, values in b.items():
            ranks = pick(k)
            if ranks is None:
                mixed[k] = r[k]
            elif not ranks:
                mixed[k] = values
            else:
                row = list(values)
                for d in ranks:
                    row[d::dps] = r[k][d::dps]
                mixed[k] = row
        out.append(mixed)
    return out[0], out[1]


def _all_of(chosen: Callable[[Key], bool]) -> Pick:
    """A pick of every instance of the operations `chosen`, none of the others'."""
    return lambda k: None if chosen(k) else ()


def _picks_any(pick: Pick, key: Key) -> bool:
    """Whether a pick chooses any instance of an operation."""
    ranks = pick(key)
    return ranks is None or len(ranks) > 0


def _on_dp(dp: int) -> Pick:
    """A pick of data-parallel rank `dp`'s instances of every operation."""
    return lambda k: (dp,)


def _on_stage(stage: int, key: Key) -> bool:
    """Whether an operation is of `stage`."""
    return key[2] == stage


def _of_type(label: str, key: Key) -> bool:
    """Whether an operation's type is `label` (`_optype_label`)."""
    return _optype_label(key[0]) == label


def _optype_label(optype: str) -> str:
    """An operation type as S by type names it: the sends and receives of a direction as one."""
    if optype in P2P_PEER:
        return optype.split("-")[0] + "-pp-comm"
    return optype


def job_whatif(times: JobTimes, progress: Callable[[int, int], None] | None = None) -> JobWhatIf:
    """The what-if of a job laid out by `job_times` (the module's docstring). `progress` hears how many of the
    re-timings are done, out of how many.

    The worker of data-parallel rank 1 on stage 0 computes twice as slowly:

    >>> w = job_whatif(job_times(*simulated_job(dp=2, pp=2, steps=3, slow=(1, 0))))
    >>> round(w.slowdown, 2), next(iter(w.by_dp)), next(iter(w.by_stage)), w.worst_workers, round(w.m_w, 2)
    (1.31, 1, 0, ((1, 0),), 1.23)
    """
    real = (times.duration, times.transfer)
    recorded = _step_times(times, simulate(times, times.duration, times.transfer, times.delay), True)
    ideal_values = _typical(times)
    ((nodelay_s, nodelay_span),) = _batch(times, [real])
    # typical durations are the same in every instance: one step's timing is every step's
    ideal_line = _timed(times, _first_step(times, ideal_values[0]), _first_step(times, ideal_values[1]), None)
    ideal_s, ideal_span = (_step_times(times, ideal_line, span) * len(times.steps) for span in (False, True))
    slowdown = statistics.fmean(nodelay_s) / statistics.fmean(ideal_s)
    steps = times.steps
    dps = times.dps
    result = JobWhatIf(
        groups=times.groups,
        steps=steps,
        step_s=tuple(recorded),
        nodelay_s=tuple(nodelay_s),
        ideal_s=tuple(ideal_s),
        launch_slowdown=statistics.fmean(recorded) / statistics.fmean(nodelay_s),
        slowdown=slowdown,
        step_slowdown={s: a / b for s, a, b in zip(steps, nodelay_s, ideal_s)},
        skipped=times.skipped,
    )
    loads = stage_loads(times)
    heavy = max(loads, key=lambda st: loads[st]) if loads else -1
    together = together_chance(stage_compute(times), dps) if dps > 1 and times.groups.pp > 1 else None
    result = replace(result, stage_load=loads, heavy_stage=heavy, stages_together=together)
    if slowdown < DECOMPOSE_FROM:
        return result
    labels: list[tuple[str, object, Pick]] = [
        *(("stage", s, _all_of(partial(_on_stage, s))) for s in range(times.groups.pp)),
        *(("optype", t, _all_of(partial(_of_type, t))) for t in sorted({_optype_label(k[0]) for k in times.duration})),
    ]
    if progress is not None:
        progress(0, 3)
    timed: list[tuple[list[float], list[float]]]
    if dps == 1:
        timed = [(list(nodelay_s), [])]
    else:
        lanes = replace(times, dps=2)
        timed = _batch(lanes, [_beside_ideal(times, ideal_values, d) for d in range(dps)], spans=False)
    if progress is not None:
        progress(1, 3)
    timed += _from_ideal(
        times,
        ideal_line.ends,
        [_mixed(times, ideal_values, real, pick) for _, _, pick in labels],
        [{k for k in times.duration if _picks_any(pick, k)} for _, _, pick in labels],
    )
    labels = [("dp", d, _on_dp(d)) for d in range(dps)] + labels
    by: dict[str, dict[object, float]] = defaultdict(dict)
    per_step: dict[str, dict[int, dict[object, float]]] = defaultdict(lambda: defaultdict(dict))
    mean_ideal = statistics.fmean(ideal_s)
    for (axis, label, _), (step_s, _) in zip(labels, timed):
        by[axis][label] = statistics.fmean(step_s) / mean_ideal
        for s, a, b in zip(steps, step_s, ideal_s):
            per_step[axis][s][label] = a / b
    by_worker = {w: min(by["dp"][w[0]], by["stage"][w[1]]) for w in sorted(times.workers)}
    count = max(1, math.ceil(len(by_worker) * WORST_SHARE))
    worst = sorted(by_worker, key=lambda w: (-by_worker[w], times.workers[w]))[:count]
    if progress is not None:
        progress(2, 3)
    last = times.graph.last_stage
    removed = [
        _mixed(times, real, ideal_values, lambda k: [d for d, st in worst if st == k[2]]),
        _mixed(times, real, ideal_values, _all_of(partial(_on_stage, last))),
    ]
    if heavy not in (-1, last):
        removed.append(_mixed(times, real, ideal_values, _all_of(partial(_on_stage, heavy))))
    (_, worst_removed), (_, last_removed), *beside = _batch(times, removed)
    heavy_removed = beside[0][1] if beside else last_removed
    if progress is not None:
        progress(3, 3)
    m_w = _explained(nodelay_span, ideal_span, worst_removed)
    m_s = _explained(nodelay_span, ideal_span, last_removed)

    def ordered(d: Mapping[Any, float]) -> dict[Any, float]:
        return dict(sorted(d.items(), key=lambda kv: -kv[1]))

    return JobWhatIf(
        **{
            **result.__dict__,
            "by_dp": ordered(by["dp"]),
            "by_stage": ordered(by["stage"]),
            "by_optype": ordered(by["optype"]),
            "by_dp_step": {s: ordered(v) for s, v in per_step["dp"].items()},
            "by_stage_step": {s: ordered(v) for s, v in per_step["stage"].items()},
            "by_optype_step": {s: ordered(v) for s, v in per_step["optype"].items()},
            "by_worker": by_worker,
            "worst_workers": tuple(worst),
            "m_w": m_w,
            "m_s": m_s,
            "without_worst_s": statistics.fmean(worst_removed),
            "without_last_s": statistics.fmean(last_removed),
            "last_stage": last,
            "without_heavy_s": statistics.fmean(heavy_removed),
            "m_heavy": _explained(nodelay_span, ideal_span, heavy_removed),
        }
    )


def job_timelines(times: JobTimes) -> tuple[Timeline, Timeline]:
    """Each operation's start and end per instance, as recorded (re-timed with the recorded durations, transfers and
    launch gaps, which gives back the trace) and in the ideal (typical durations, no launch gap), each step from 0:
    the two timelines the Perfetto export draws side by side.

    >>> measured, ideal = job_timelines(job_times(*simulated_job(dp=2, pp=2, steps=2, slow=(1, 0))))
    >>> key = ("optimizer", 0, 1)
    >>> measured.ends[key][1] > ideal.ends[key][1]
    True
    """
    return (
        simulate(times, times.duration, times.transfer, times.delay),
        simulate(times, *_typical(times), None),
    )


@dataclass(frozen=True)
class JobStepDrawing:
    """One step of a job as the page draws it: each drawn worker's operations (type, stage, DP rank, start, end in
    seconds from the step's start), as recorded and in the ideal; the DP ranks drawn, the slowest first."""

    step: int
    dp_ranks: tuple[int, ...]
    measured: tuple[tuple[str, int, int, float, float], ...]
    ideal: tuple[tuple[str, int, int, float, float], ...]


DRAWN_DP_RANKS = 4
"""The most DP ranks a step's drawing holds: the step's slowest and the lowest others."""


def job_step_drawing(times: JobTimes, measured: Timeline, ideal: Timeline, w: JobWhatIf) -> JobStepDrawing:
    """The job's worst step (the largest slowdown against the ideal) as recorded and in the ideal, for the DP ranks
    that show it: the step's slowest (by `by_dp_step`) and the lowest others, up to DRAWN_DP_RANKS.

    >>> times = job_times(*simulated_job(dp=2, pp=2, steps=2, slow=(1, 0)))
    >>> w = job_whatif(times)
    >>> d = job_step_drawing(times, *job_timelines(times), w)
    >>> d.dp_ranks, len(d.measured) == len(d.ideal)
    ((1, 0), True)
    """
    t = max(range(len(times.steps)), key=lambda j: (w.step_slowdown.get(times.steps[j], 1.0), -j))
    step = times.steps[t]
    by = w.by_dp_step.get(step, {})
    slowest = max(by, key=lambda d: by[d]) if by else 0
    ranks = (slowest, *[d for d in range(times.dps) if d != slowest][: DRAWN_DP_RANKS - 1])

    def ops(line: Timeline) -> tuple[tuple[str, int, int, float, float], ...]:
        return tuple(
            (k[0], k[2], d, line.starts[k][t * times.dps + d], line.ends[k][t * times.dps + d])
            for k in line.ends
            for d in ranks
        )

    return JobStepDrawing(step, ranks, ops(measured), ops(ideal))


def _explained(real: Sequence[float], ideal: Sequence[float], removed: Sequence[float]) -> float:
    """The share of the slowdown that some operations at their typical durations remove, from the steps' spans
    (first start to last end) with real durations, typical ones, and typical ones for those operations alone:
    (real - removed) / (real - ideal)."""
    t_real, t_ideal, t_removed = (statistics.fmean(v) for v in (real, ideal, removed))
    return (t_real - t_removed) / (t_real - t_ideal) if t_real != t_ideal else math.nan


def _batch(
    times: JobTimes,
    scenarios: Sequence[tuple[Values, Values]],
    spans: bool = True,
    ideal: Values | None = None,
    again: Collection[Key] = (),
) -> list[tuple[list[float], list[float]]]:
    """Each scenario's (durations, transfers) re-timed without launch gaps, and its step times: when each step's
    last optimizer ended, and its span. The scenarios are timed as one: each operation's instances of every scenario
    side by side, so that the graph is walked once (Python's cost is per operation, the C loops' per instance).
    Without `spans`, the spans are empty. With `ideal` (each operation's end in the ideal, the same in every
    instance), only the operations `again` are timed, the others ending as in the ideal in every scenario."""
    width = times.instances
    timed = times.duration if ideal is None else again
    duration = {k: joined([sc[0][k] for sc in scenarios]) for k in times.duration if k in timed}
    transfer = {k: joined([sc[1][k] for sc in scenarios]) for k in times.transfer if k in timed}
    known = None
    if ideal is not None:
        known = {k: [v[0]] * (width * len(scenarios)) for k, v in ideal.items() if k not in timed}
    line = _timed(times, duration, transfer, None, known, every_start=False)
    finished = _step_times(times, line, False)
    spanned = _step_times(times, line, True) if spans else []
    per = width // times.dps
    return [(finished[b * per : (b + 1) * per], spanned[b * per : (b + 1) * per]) for b in range(len(scenarios))]


def _from_ideal(
    times: JobTimes, ideal: Values, scenarios: Sequence[tuple[Values, Values]], changed: Sequence[set[Key]]
) -> list[tuple[list[float], list[float]]]:
    """Each scenario's step times (`_batch`, without spans), a scenario being the ideal but for the operations
    `changed` (`ideal`: each operation's end in the ideal): only those and the operations after them are timed again
    (`_after`). The scenarios that time most operations again are timed as one, each other alone."""
    again = [_after(times.graph, c) for c in changed]
    most = [i for i, a in enumerate(again) if 2 * len(a) >= len(times.graph.needs)]
    out: dict[int, tuple[list[float], list[float]]] = {}
    if most:
        together = set().union(*(again[i] for i in most))
        out.update(zip(most, _batch(times, [scenarios[i] for i in most], False, ideal, together)))
    for i, sc in enumerate(scenarios):
        if i not in out:
            out[i] = _batch(times, [sc], False, ideal, again[i])[0]
    return [out[i] for i in range(len(scenarios))]


def _after(graph: StepGraph, changed: Collection[Key]) -> set[Key]:
    """The operations a re-timing times again when `changed` take other values: those, and each operation that
    waits for one of them, through what it needs or its group's members."""
    out: set[Key] = set()
    for unit in graph.order:
        members = graph.groups[unit] if isinstance(unit, int) else (unit,)
        if any(m in changed or not out.isdisjoint(graph.needs[m]) for m in members):
            out.update(members)
    return out


def _first_step(times: JobTimes, values: Values) -> Values:
    """Each operation's values of the first step alone."""
    return {k: v[: times.dps] for k, v in values.items()}


def _beside_ideal(times: JobTimes, ideal: tuple[Values, Values], dp: int) -> tuple[Values, Values]:
    """Data-parallel rank `dp` at its real durations and every other rank at typical ones, as two lanes per step
    (its own, and one for all the others): typical durations are the same for every rank and step, so the other
    ranks run alike, and the collectives that wait for every rank wait for the later of the two lanes."""
    dps = times.dps
    out: list[Values] = []
    for real, typical in zip((times.duration, times.transfer), ideal):
        out.append({k: interleaved(real[k][dp::dps], typical[k][dp::dps]) for k in real})
    return out[0], out[1]


def _parts(by_optype: Mapping[str, float]) -> tuple[str, ...]:
    """The operation types that make most of the slowdown: the worst, and the next when it costs at least half as
    much."""
    ranked = list(by_optype.items())
    return (ranked[0][0],) + tuple(t for t, r in ranked[1:2] if r - 1 >= (ranked[0][1] - 1) / 2)


EVERYWHERE = 0.5
"""The share of the slowdown the least slowing worker's real durations alone must give back for the slowdown to be
in every worker (jitter), not in a place: one slow worker's or stage's leaves the others near 1."""

ONE_RANK_SHARE = 0.75
"""The share of the slowdown one DP rank's real durations alone must give back for the slowdown to be that rank's:
with work uneven across k ranks that take turns, each gives back about a k-th (a half with 2, SE: 38 % with 32)."""


def _uneven(w: JobWhatIf) -> bool:
    """Whether the slowdown is work uneven across data-parallel ranks: no DP rank alone gives back ONE_RANK_SHARE
    of it, and the DP rank slowest in each step is no rank more often than chance makes one of `dp` ranks the
    slowest (a binomial tail at ALPHA over the steps, every rank tested): the slow rank moves; and, with stages, a DP
    rank's compute agrees across neighbouring stages step by step beyond chance (`together_chance` at ALPHA): the
    same data flows through them all, where jitter alike on every DP rank, each taking its turn at the top, is each
    stage's own.

    >>> w = JobWhatIf(JobGroups(dp=2, pp=2), (1,), (1.0,), (1.0,), (1.0,), 1.0, 1.5, {1: 1.5}, stages_together=0.4)
    >>> _uneven(w)
    False
    """
    if w.stages_together is not None and w.stages_together > ALPHA:
        return False
    dps = len(w.by_dp)
    worst_each = [max(v, key=lambda d: v[d]) for v in w.by_dp_step.values() if v]
    if dps < 2 or not worst_each or w.slowdown <= 1.0:
        return False
    if max(w.by_dp.values()) - 1 >= ONE_RANK_SHARE * (w.slowdown - 1):
        return False
    most = max(worst_each.count(d) for d in set(worst_each))
    return binomial_above(len(worst_each), most, 1.0 / dps) > ALPHA / dps


def _stage_alike(w: JobWhatIf, stage: int) -> bool:
    """Whether a stage's workers slow the job alike (each at least half as much as its worst): a stage that holds
    too much of the model is heavy in every DP rank; one slow worker on it is not the stage's (with one DP rank
    the two cannot be told apart, and both are said)."""
    alone = [v - 1 for (d, s), v in w.by_worker.items() if s == stage]
    return len(alone) < 2 or min(alone) >= 0.5 * max(alone)


def _stands_out(w: JobWhatIf, stage: int) -> bool:
    """Whether a share of the slowdown (M_W, M_S) may name a stage's worker or the stage: always with more than one
    DP rank (its peers on the stage tell a slow worker from its stage); with one, only when the stage's load is
    IMBALANCE or more. One worker a stage has no peer, and on a noisy machine its own jitter alone explains half of
    a small slowdown (a clean job of 2 stages read S 1.04, "one worker is slow ... 53 % of the slowdown")."""
    return w.groups.dp > 1 or w.stage_load.get(stage, 0.0) >= IMBALANCE


def job_verdict(w: JobWhatIf) -> tuple[Message, ...]:
    """What a job's what-if says, in order of weight (codes `job.*`): no straggler below DECOMPOSE_FROM; one worker
    when the worst workers explain at least EXPLAINS of the slowdown (M_W); work uneven across data-parallel ranks
    when the slow DP rank moves (`_uneven`); the last stage when its workers slow the job alike (`_stage_alike`) and
    it explains at least EXPLAINS (M_S), both with one DP rank only when the stage's load stands out
    (`_stands_out`); a stage (the last one too, when M_S did not say it) when each of its workers computes IMBALANCE
    times the mean worker's or more (`stage_loads`); in every worker when even the least slowing worker's durations
    alone give back EVERYWHERE of it (jitter); otherwise where the slowdown is largest by stage and type (and
    data-parallel rank, with more than one).

    >>> from ddpcore.traces.optrace import JobGroups
    >>> w = JobWhatIf(JobGroups(dp=2, pp=2), (1,), (1.0,), (1.0,), (1.0,), 1.0, 1.01, {1: 1.01})
    >>> [m.text() for m in job_verdict(w)]
    ['no straggler: the job runs at 1.01× its ideal step']
    """
    ratio = Ratio(w.slowdown)
    if w.slowdown < DECOMPOSE_FROM or not w.by_dp:
        return (Message.of("job.none", ratio=ratio),)
    said: list[Message] = []
    if w.m_w >= EXPLAINS and w.worst_workers and _stands_out(w, w.worst_workers[0][1]):
        dp, stage = w.worst_workers[0]
        parts = _parts(w.by_optype)
        said.append(Message.of("job.worker", dp=dp, stage=stage, parts=parts, ratio=ratio, share=Share(w.m_w)))
    if not said and _uneven(w):
        worst_rank = max(w.by_dp.values())
        worst_each = [max(v, key=lambda d: v[d]) for v in w.by_dp_step.values() if v]
        most = max(worst_each.count(d) for d in set(worst_each))
        said.append(
            Message.of("job.data_parallel", most=most, steps=len(worst_each), rank_ratio=Ratio(worst_rank), ratio=ratio)
        )
    last = w.last_stage if w.last_stage >= 0 else w.groups.pp - 1
    if w.groups.pp > 1 and w.m_s >= EXPLAINS and _stage_alike(w, last) and _stands_out(w, last):
        said.append(Message.of("job.last_stage", stage_ratio=Ratio(w.by_stage[last]), share=Share(w.m_s), stage=last))
    heavy = w.heavy_stage
    load = w.stage_load.get(heavy, 0.0)
    if w.groups.pp > 1 and load >= IMBALANCE and not (heavy == last and said and said[-1].code == "job.last_stage"):
        said.append(
            Message.of(
                "job.heavy_stage",
                stage=heavy,
                load=Ratio(load),
                stage_ratio=Ratio(w.by_stage.get(heavy, 1.0)),
                share=Share(max(0.0, w.m_heavy) if math.isfinite(w.m_heavy) else 0.0),
            )
        )
    least = min(w.by_worker.values(), default=1.0)
    if not said and least - 1 >= EVERYWHERE * (w.slowdown - 1):
        stage = next(iter(w.by_stage))
        said.append(
            Message.of(
                "job.everywhere", ratio=ratio, least=Ratio(least), stage=stage, stage_ratio=Ratio(w.by_stage[stage])
            )
        )
    if not said:
        stage, optype = next(iter(w.by_stage)), next(iter(w.by_optype))
        stage_ratio, optype_ratio = Ratio(w.by_stage[stage]), Ratio(w.by_optype[optype])
        if w.groups.dp == 1:
            said.append(
                Message.of(
                    "job.spread_stages",
                    ratio=ratio,
                    stage=stage,
                    stage_ratio=stage_ratio,
                    optype=optype,
                    optype_ratio=optype_ratio,
                )
            )
        else:
            dp = next(iter(w.by_dp))
            said.append(
                Message.of(
                    "job.spread",
                    ratio=ratio,
                    dp=dp,
                    dp_ratio=Ratio(w.by_dp[dp]),
                    stage=stage,
                    stage_ratio=stage_ratio,
                    optype=optype,
                    optype_ratio=optype_ratio,
                )
            )
    return tuple(said)


def simulated_job(
    dp: int = 2,
    pp: int = 2,
    steps: int = 2,
    micro: int = 2,
    slow: tuple[int, int] | None = None,
    factor: float = 2.0,
    vpp: int = 1,
) -> tuple[list[OpRow], JobGroups]:
    """A GPipe job of `dp` data-parallel ranks and `pp` stages, `micro` micro-batches a step, timed on its own graph
    (forward 1 s, backward 2 s, a transfer 0.1 s, clip and optimizer 0.1 s each), the worker `slow` (dp rank, stage)
    computing `factor` times slower: rows and groups as `job_times` reads them, for examples and tests, its steps
    numbered from 1 (no warm-up to leave out). With `vpp`
    model chunks a stage (an interleaved pipeline: stage s holds chunks s, s + pp, ...), each stage runs its chunks'
    forwards in turn and their backwards in reverse, sends and receives naming no chunk (the artifact's way).

    >>> rows, groups = simulated_job(dp=1, pp=2, steps=1, micro=1)
    >>> sorted((o.start, o.stage, o.optype[0]) for o in rows if o.optype.endswith("compute"))
    [(0.0, 0, 'f'), (1.1, 1, 'f'), (2.1, 1, 'b'), (4.2, 0, 'b')]
    """
    groups = JobGroups(dp=dp, pp=pp, vpp=vpp, name="simulated")
    order: list[tuple[str, int, int]] = []
    chunk_of: dict[Key, int] = {}
    last = pp * vpp - 1
    for stage in range(pp):
        ran: list[tuple[str, int]] = []
        for c in range(vpp):
            for _ in range(micro):
                ran += [("forward-recv", c)] * bool(c * pp + stage) + [("forward-compute", c)]
                ran += [("forward-send", c)] * (c * pp + stage < last)
        for c in reversed(range(vpp)):
            for _ in range(micro):
                ran += [("backward-recv", c)] * (c * pp + stage < last) + [("backward-compute", c)]
                ran += [("backward-send", c)] * bool(c * pp + stage)
        seq: Counter[str] = Counter()
        for optype, c in ran:
            key = (optype, seq[optype], stage)
            seq[optype] += 1
            order.append(key)
            chunk_of[key] = c if optype.endswith("compute") else -1
        order += [("optimizer-clip-main-grad", 0, stage), ("optimizer", 0, stage)]
    chunk_of = chunk_of if vpp > 1 else {}
    template = [
        OpRow(0, st, st, 0, t, float(i), 0.0, seq, chunk_of.get((t, seq, st), -1))
        for i, (t, seq, st) in enumerate(order)
    ]
    graph = graph_of(template, pp, dp > 1)
    base = {"forward-compute": 1.0, "backward-compute": 2.0}
    n = steps * dp
    duration = {
        k: [base.get(k[0], 0.1) * (factor if slow == (i % dp, k[2]) and k[0] in base else 1.0) for i in range(n)]
        for k in graph.needs
    }
    transfer = {k: [0.1] * n for g in graph.groups for k in g}
    laid = JobTimes(graph, groups, tuple(range(steps)), dp, duration, transfer, {}, {})
    line = simulate(laid, duration, transfer, None)
    rows = [
        OpRow(
            i % dp,
            k[2],
            (i % dp) * pp + k[2],
            i // dp + 1,
            k[0],
            round(line.starts[k][i], 9),
            round(line.ends[k][i] - line.starts[k][i], 9),
            k[1],
            chunk_of.get(k, -1),
        )
        for k in graph.needs
        for i in range(n)
    ]
    return rows, groups
