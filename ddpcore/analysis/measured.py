"""Measured steps: how long each rank waited at each step's gradient barrier, and what the threshold does not change.

Every rank leaves a step's gradient collective together (the release), so every rank's step lasts about as long:
"slowest" cannot mean the longest step, nor the latest from its own step start (time lost before the step starts,
or after its first bucket, moves that start or only later buckets). It means the rank that waited least at the
barrier: the others were waiting for it.

- A rank's **wait** in a step is the release minus its readiness (`tracefacts`), on its own clock.
- Its **cost** is the median wait of the *other* ranks minus its own (with two ranks, the whole difference): how
  much later than them it was ready. Its **gap** is that cost over the step period: the share of the step the
  barrier costs.

How late ranks are by chance is measured here too (`chance`), on the ranks that are on time: each rank-step's work
against the other ranks' median, its rank's usual offset taken out, and the floor that the latest of N on-time
ranks passes in one step in a thousand. That does not depend on the threshold either.

This module runs where the traces are read (the command line, the page's worker); `verdict` judges its result at a
threshold, again at each new one, without the traces.

>>> round(gap_of(cost_ms=5.0, period_ms=50.0), 3)
0.1
"""

from __future__ import annotations

import heapq
import math
import statistics
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from itertools import chain, compress, islice, repeat
from operator import le, sub, truediv

from ..base import (
    CAUSES,
    LOAD,
    SUMMED,
    Fan,
    Interval,
    Message,
    Micros,
    Said,
    Spans,
    Transposed,
    block_rows,
    median,
    ranges,
)
from ..traces import (
    Column,
    DeviceTime,
    FileError,
    Loaded,
    RankColumns,
    RankFacts,
    RankTrace,
    ReadRank,
    StepFacts,
    read_path,
    table_of,
)
from ..traces import drawn as drawn_spans
from .caveats import WARMUP_STEP, RunFacts, caveats_of
from .chance import (
    KEPT,
    Across,
    Chance,
    Lateness,
    Middle,
    Tail,
    beyond_chance,
    cost_tail,
    medians_of_others,
    others_of,
)
from .rankmap import MAX_ROWS, Cells, RankStepMap, bins_of, cells_of, map_of
from .runs import copies, runs_of
from .whatif import earliest_free, retimed_saving

__all__ = [
    "AnalysisError",
    "CostRows",
    "DRAWN_ALL",
    "DRAWN_LATEST",
    "DrawnRank",
    "GpuGauges",
    "Measured",
    "NO_CHANCE",
    "RANK_COLUMNS",
    "RUN",
    "RankOwn",
    "RankSummary",
    "SlimColumns",
    "StepMajor",
    "STEP_COLUMNS",
    "STEP_FLAGS",
    "StepsDone",
    "StepColumns",
    "StepSummary",
    "costs_of",
    "drawn_entries",
    "gap_of",
    "gaps_of",
    "measure",
    "measure_loaded",
    "one_run",
    "rank_own",
    "rank_owns",
    "rank_summaries",
    "rank_summary",
    "read_entries",
    "rows_of",
    "slim",
    "slimmed",
    "step_major",
    "unmeasured",
    "waits_of",
]

StepsDone = Callable[[int, int], None]
"""Told the common steps measured so far and their count."""
DRAWN_ALL = 16
DRAWN_LATEST = 8


class AnalysisError(Said):
    """Traces that load but cannot be compared (fewer than two ranks, no common step, runs of the same size)."""


def costs_of(
    wait_ms: Sequence[float], ranked: Sequence[float] | Mapping[int, float] | None = None, total: int | None = None
) -> array[float]:
    """Each rank's cost in a step: the other ranks' median wait at the barrier minus its own (`ranked`: the waits
    sorted, when the caller has them; with `total`, the step's `total` waits sorted, of which `wait_ms` are some, at
    least at their three middle places: `chance.others_at`).

    >>> list(costs_of([20.0, 21.0, 0.5, 19.0]))
    [-1.0, -2.0, 19.5, 1.0]
    """
    if total is None:
        return array("d", map(sub, medians_of_others(wait_ms, ranked), wait_ms))  # type: ignore[arg-type]
    return array("d", map(sub, others_of(wait_ms, total, ranked or {}), wait_ms))


def gap_of(cost_ms: float, period_ms: float) -> float:
    """The share of the step that a rank's lateness costs."""
    return cost_ms / period_ms if period_ms > 0 else 0.0


@dataclass(frozen=True)
class DrawnRank:
    """One rank in one analysed step, as its lane draws it; `spans`, `device_spans`, `start_ms` and `end_ms` are on
    the step's common clock (ranks aligned on the release), `ready_ms` is its readiness from its own step start,
    the rest are durations."""

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


@dataclass(frozen=True)
class StepColumns:
    """Every rank in one step, column by column (entry i is rank `ranks[i]`, ranks in order): what the verdict, the
    map and the fit read, without an object per rank (a job has thousands). `work_ms` is each
    rank's time from the previous release to its readiness; `parts_ms` where it went (None when unknown). For the
    what-if, relative to the release: `first_ms` each rank's first gradient launch, `free_ms` when the earlier
    gradient collectives had ended (the readiness is minus the wait). `beyond`: the entries later than chance
    (`chance`: their work past the run's floor), whatever the threshold. What the ranks on time are measured
    against, whichever few entries are late: the middle of the waits (`waits`) and of each part (`parts`), and the
    entries of the smallest waits (`lowest`). `solo_saved_ms`: the step re-timed with its latest entry `solo_entry`
    on time (the common case at any threshold). All made here once, not at each threshold."""

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
    waits: Middle = Middle((), 0, 0)
    parts: dict[str, Middle] | None = None
    lowest: tuple[int, ...] = ()

    def late(self, threshold: float) -> list[int]:
        """Entries whose gap reaches the threshold, in rank order: one C pass over the gaps (a sort of them, kept
        for bisections, cost more than every threshold a page is given)."""
        return list(compress(range(len(self.gap)), map(float(threshold).__le__, self.gap)))


@dataclass(frozen=True)
class StepSummary:
    """One step across ranks: the latest rank (the one that waited least), its cost and gap, and whether that makes
    a straggler step (`late_ranks` is left empty by `measure`, filled by `judge`, with `saved_ms`: what the step
    would be shorter without them). `columns` holds every rank, `drawn` the ranks the lanes show with their spans:
    all of them up to DRAWN_ALL, else the DRAWN_LATEST latest and the median one. `released`: a gradient collective
    gave every rank its release (else lateness is measured from each rank's own step start)."""

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


@dataclass(frozen=True)
class GpuGauges:
    """Over a rank's analysed steps: what nvidia-smi would show, what compute kernels filled, and communication."""

    busy: float
    compute: float
    comm_overlap: float | None
    exposed_comm_ms: float


@dataclass(frozen=True)
class RankSummary:
    """One rank over the analysed steps (`late_steps`, the steps in which it was late, is counted by `judge`), and
    how late it is over them (`lateness`, `chance.Lateness`: what `judge` weighs for a persistent straggler)."""

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


@dataclass(frozen=True)
class Measured:
    """An analysis before its verdict: steps without their late ranks, ranks without their count of late steps.
    `chance`: how late ranks are by chance alone, measured on the ranks on time. Over the steps, whatever the
    threshold: the mean and median step, the latest rank's median gap, and the mean of each step's waits summed over
    its ranks. `load_marked`: some rank's trace marks its input loading (a profiler trace without the DataLoader's
    annotation shows loading as time outside any phase). `threshold`: the one threshold its steps were kept to, each
    with only the entries a verdict at it reads (`measure`'s `at`); None when every entry is kept."""

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


def drawn_entries(cost_ms: Sequence[float], ordered: Sequence[float] | None = None) -> list[int]:
    """The entries a step's lanes show: every rank up to DRAWN_ALL, else the DRAWN_LATEST latest (the largest
    costs) and the median one, in rank order; ties as a stable sort of the entries by cost places them (the later
    entry the later), from the costs sorted (`ordered`, when the caller has them) and C passes, not a sort of the
    entries.

    >>> drawn_entries([0.0, 12.5, 3.0, 40.0])
    [0, 1, 2, 3]
    >>> drawn_entries([float(c % 7) for c in range(40)])
    [6, 13, 17, 19, 20, 26, 27, 33, 34]
    """
    n = len(cost_ms)
    if n <= DRAWN_ALL:
        return list(range(n))
    if ordered is None:
        ordered = sorted(cost_ms)
    edge = ordered[-DRAWN_LATEST]
    latest = list(compress(range(n), map(edge.__lt__, cost_ms)))
    tied = list(compress(range(n), map(edge.__eq__, cost_ms)))
    latest += tied[len(tied) - (DRAWN_LATEST - len(latest)) :]
    middle = ordered[n // 2]
    place = n // 2 - bisect_left(ordered, middle)
    median = next(islice(compress(range(n), map(middle.__eq__, cost_ms)), place, None))
    return sorted({*latest, median})


def _rank_in_step(rank: int, facts: StepFacts, cost: float, gap: float, wait: float, shift: float) -> DrawnRank:
    return DrawnRank(
        rank=rank,
        period_ms=facts.period_ms,
        ready_ms=facts.compute_ms,
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


def gaps_of(cost: Sequence[float], period: Sequence[float]) -> array[float]:
    """Each entry's gap (`gap_of`), in one C pass when every period is positive.

    >>> list(gaps_of([5.0, 1.0], [50.0, 0.0]))
    [0.1, 0.0]
    """
    if min(period) > 0:
        return array("d", map(truediv, cost, period))
    return array("d", [gap_of(c, p) for c, p in zip(cost, period)])


def waits_of(by_column: dict, released: bool, latest: float) -> tuple[array[float], array[float], float]:
    """Each rank's wait at a step's barrier, its first launch and when its earlier collectives were done (both
    relative to the release), from the step's columns (`by_column`, any of its ranks) and what every rank of it
    says: whether each had a gradient collective (`released`), and the latest arrival. Without one, the step falls
    back to arrivals from each rank's own step start (the wait is then the time to the latest arrival, and the first
    launch and the collectives are left out).

    >>> columns = {"anchor_ms": [30.0, 31.0], "compute_ms": [10.0, 30.5], "arrival_ms": [5.0, 6.0],
    ...            "comm_free_ms": [20.0, 20.0]}
    >>> wait, first, free = waits_of(columns, True, 6.0)
    >>> list(wait), list(first), free
    ([20.0, 0.5], [-25.0, -25.0], -11.0)
    """
    arrival = by_column["arrival_ms"]
    if released:
        anchor, compute = by_column["anchor_ms"], by_column["compute_ms"]
        wait = array("d", map(sub, anchor, compute))
        if min(wait) > 0.0 and all(map(le, arrival, compute)):
            first = array("f", map(sub, arrival, anchor))
        else:
            wait = array("d", map(max, repeat(0.0, len(anchor)), wait))
            first = array("f", map(min, map(sub, arrival, anchor), map(float.__neg__, wait)))
        return wait, first, earliest_free(map(sub, by_column["comm_free_ms"], anchor))
    wait = array("d", map(sub, repeat(latest, len(arrival)), arrival))
    ready = array("f", map(float.__neg__, wait))
    return wait, ready, min(ready)


def _lowest(wait: Sequence[float], ranked: Sequence[float]) -> tuple[int, ...]:
    """The entries of the KEPT + 1 smallest waits, from the smallest (ties in entry order), without a sort of the
    entries: only those up to the (KEPT + 1)-th smallest wait are sorted.

    >>> _lowest([3.0, 1.0, 2.0, 1.0], [1.0, 1.0, 2.0, 3.0])
    (1, 3, 2, 0)
    """
    cutoff = ranked[min(KEPT, len(ranked) - 1)]
    near = compress(range(len(wait)), map(cutoff.__ge__, wait))
    return tuple(sorted(near, key=wait.__getitem__)[: KEPT + 1])


def _summarise_step(
    number: int,
    ranks: tuple[int, ...],
    rows: Sequence[Sequence[int]],
    j: int,
    tables: Sequence[RankColumns],
    by_column: dict,
    parts: dict[str, Column] | None,
    beyond: tuple[int, ...],
    map_rows: tuple[tuple[int, ...], ...],
    at: float | None = None,
    drawing: bool = True,
) -> tuple[StepSummary, array[float], dict[int, float], Cells]:
    """One common step, with its ranks' waits whole and their middle places (all their costs need:
    `chance.middle_places`), and its cells of the map (`rankmap.cells_of`, rows `map_rows`). `by_column` holds,
    for this step, each rank's value of a column (ranks in order): arrays, not lists of floats, since for 4,096
    ranks x 200 steps every float object costs 24 bytes more. The costs need no sort of their own: a smaller wait
    never leaves a smaller median of the others, so the costs of the sorted waits, reversed, are the costs in order
    (`tests/analysis/test_measured_columns.py`). With a threshold `at`, the step's columns keep only the entries a
    verdict at it reads (`read_entries`), and its middles are as wide as its entries over it; `drawing` False
    leaves the lanes out (tables without spans: `slim`)."""
    period, anchor = by_column["period_ms"], by_column["anchor_ms"]
    released = all(by_column["released"])
    wait, first, free = waits_of(by_column, released, max(by_column["arrival_ms"]))
    if at is None:
        ranked: Sequence[float] = sorted(wait)
        middle = Middle.of_sorted(ranked, KEPT)
    else:
        middle = Middle.of(wait, KEPT)
    places = middle.places()
    cost = costs_of(wait, places, len(wait))
    gap = gaps_of(cost, period)
    slowest = cost.index(max(cost))
    over = None if at is None else list(compress(range(len(gap)), map(float(at).__le__, gap)))
    if over is not None and len(over) > KEPT:
        middle = Middle.of(wait, len(over))
    columns = StepColumns(
        ranks,
        period,
        by_column["compute_ms"],
        cost,
        gap,
        wait,
        by_column["work_ms"] if isinstance(by_column["work_ms"], Micros) else array("f", by_column["work_ms"]),
        parts,
        released and all(by_column["from_release"]),
        first,
        free,
        slowest,
        retimed_saving(wait, first, free, {slowest: cost[slowest]}),
        beyond,
        middle,
        {p: Middle.of(v, middle.kept) for p, v in parts.items()} if parts is not None else None,
        _lowest(wait, ranked) if over is None else (),
    )
    if over is not None:
        least = heapq.nsmallest(min(len(wait), len(over) + KEPT + 1), wait)
        columns = _kept_to(columns, sorted(read_entries(wait, least, first, over) | {slowest}))
    lead = max(anchor)
    drawn = tuple(
        _rank_in_step(ranks[i], tables[i].facts_at(rows[i][j], drawn_spans), cost[i], gap[i], wait[i], lead - anchor[i])
        for i in (drawn_entries(cost, costs_of(ranked, ranked)[::-1] if at is None else None) if drawing else ())
    )
    summary = StepSummary(
        number,
        ranks[slowest],
        median(period),
        max(period),
        gap[slowest],
        cost[slowest],
        (),
        columns,
        drawn,
        released,
    )
    return summary, wait, places, cells_of(gap, cost, map_rows)


def read_entries(
    wait: Sequence[float], ranked: Sequence[float], first: Sequence[float], over: Sequence[int]
) -> set[int]:
    """The entries of a step that a verdict at one threshold reads, given those over it (`over`): them, the
    entries of the len(over) + KEPT + 1 least waits (the ranks on time's latest, whichever are late: `ranked` is
    the waits sorted, at least that many of the smallest) and of the len(over) + 1 latest first launches (the
    what-if's bound), ties included. A merge of shards gathers the same entries from each (`shards.Shard.entries`);
    the step's slowest entry is added by the caller.

    >>> sorted(read_entries([5.0, 1.0, 4.0, 3.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0], [-9.0, -2.0, -3.0, -4.0, -5.0], [1]))
    [0, 1, 2, 3, 4]
    """
    few = min(len(wait), len(over) + KEPT + 1)
    least = ranked[few - 1]
    chosen = set(over)
    chosen.update(compress(range(len(wait)), map(least.__ge__, wait)))
    latest = heapq.nlargest(len(over) + 1, first)[-1]
    chosen.update(compress(range(len(first)), map(latest.__le__, first)))
    return chosen


def _kept_to(c: StepColumns, picked: list[int]) -> StepColumns:
    """A step's columns at the entries `picked` alone (in order), with its middles, what-if and entries beyond chance
    as the whole step gave them: what a merge of shards builds (`shards`), and judges as `analyze` does."""

    def kept(column: Sequence[float], typecode: str) -> array:
        return array(typecode, map(column.__getitem__, picked))

    wait = kept(c.wait_ms, "d")
    beyond = set(c.beyond)
    return StepColumns(
        tuple(map(c.ranks.__getitem__, picked)),
        kept(c.period_ms, "d"),
        kept(c.compute_ms, "d"),
        kept(c.cost_ms, "d"),
        kept(c.gap, "d"),
        wait,
        kept(c.work_ms, "f"),
        None if c.parts_ms is None else {p: kept(v, "f") for p, v in c.parts_ms.items()},
        c.from_release,
        kept(c.first_ms, "f"),
        c.free_ms,
        picked.index(c.solo_entry),
        c.solo_saved_ms,
        tuple(k for k, i in enumerate(picked) if i in beyond),
        c.waits,
        c.parts,
        tuple(sorted(range(len(picked)), key=wait.__getitem__)),
    )


def _rank_gauges(table: RankColumns, rows: Sequence[int]) -> GpuGauges | None:
    """A rank's GPU gauges over the given rows that have GPU time, those followed by another step when some are:
    sums and a mean over its columns in C passes (a rank of 1,000 steps had made 1,000 objects), in the rows' order.
    """
    if table.device is None:
        return None
    if isinstance(table.device[0], array) and all(_picked(table.followed, rows)):
        measured: Sequence[int] = rows
    else:
        with_device = [i for i in rows if table.device[0][i] is not None]
        measured = [i for i in with_device if table.followed[i]] or with_device
    if not measured:
        return None
    busy, compute, comm, overlapped = (list(map(float, _picked(c, measured))) for c in table.device)
    total, comm_ms = sum(_picked(table.period_ms, measured)), sum(comm)
    return GpuGauges(
        busy=min(1.0, sum(busy) / total) if total > 0 else 0.0,
        compute=min(1.0, sum(compute) / total) if total > 0 else 0.0,
        comm_overlap=sum(overlapped) / comm_ms if comm_ms > 0 else None,
        exposed_comm_ms=statistics.fmean(map(sub, comm, overlapped)),
    )


@dataclass(frozen=True)
class RankOwn:
    """What a rank's summary reads of its own columns over the common steps (`rank_own`): known before any step
    is measured, so that a measure kept to one threshold can drop those columns first (`slim`)."""

    median_step_ms: float
    mean_step_ms: float
    median_phases_ms: dict[str, float]
    median_arrival_ms: float
    gpu: GpuGauges | None


def rank_own(table: RankColumns, rows: Sequence[int]) -> RankOwn:
    """A rank's own medians over the common steps (`rows`: their rows in its table) and its GPU's gauges.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 3, seed=1)[0][0])
    >>> own = rank_own(table, range(3))
    >>> own.median_step_ms == statistics.median(table.period_ms), sorted(own.median_phases_ms)[:2]
    (True, ['allreduce', 'backward'])
    """

    def mine(column: Column) -> Sequence[float]:
        return _picked(column, rows)

    period = mine(table.period_ms)
    return RankOwn(
        median(period),
        statistics.fmean(period),
        {p: median(mine(table.phases_ms[p])) for p in SUMMED},
        median(mine(table.arrival_ms)),
        _rank_gauges(table, rows),
    )


def rank_owns(tables: Sequence[RankColumns], fan: Fan = map) -> dict[int, RankOwn]:
    """Every rank's own medians over the ranks' common steps (`rank_own`), by rank, the ranks a range at a time
    through `fan`: taken where the rank was read when it was slimmed there (`SlimColumns`), else from its table, or
    from its file read again when its table was slimmed for other rows than these.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> tables = [table_of(r) for r in simulated_run(3, 4, seed=1)[0]]
    >>> sorted(rank_owns(tables))
    [0, 1, 2]
    """
    common = _common_steps(tables)[0]

    def owned(some: range) -> list[RankOwn]:
        return [_own(tables[k], rows_of(tables[k], common)) for k in some]

    return dict(zip((t.rank for t in tables), chain.from_iterable(fan(owned, ranges(len(tables), len(common))))))


def _own(table: RankColumns, rows: Sequence[int]) -> RankOwn:
    if not isinstance(table, SlimColumns):
        return rank_own(table, rows)
    if isinstance(rows, range) and rows.step == 1:
        for kept, own in table.owns:
            if kept == (rows.start, rows.stop):
                return own
    again = read_path(table.source)
    if isinstance(again, FileError) or again.rank != table.rank:
        raise AnalysisError("run.changed", source=table.source)
    full = table_of(again)
    if list(full.step) != list(table.step):
        raise AnalysisError("run.changed", source=table.source)
    return rank_own(full, rows)


_UNREAD: dict = {"length_ms": (), "phases_ms": {}, "device": None, "detail": ()}
"""A table's columns that a measure kept to one threshold never reads, emptied (`slimmed`, `slim`)."""


@dataclass(frozen=True)
class SlimColumns(RankColumns):
    """A rank's table slimmed where it was read (`slimmed`): what a measure kept to one threshold reads, and its
    steps' starts (the runs' releases), with its own medians (`rank_own`) over the rows a measure takes when every
    rank has the same steps: all of them, or all but the warm-up step (`owns`: (first row, row past the last), and
    the medians)."""

    owns: tuple[tuple[tuple[int, int], RankOwn], ...] = ()


def slimmed(read: ReadRank | FileError) -> ReadRank | FileError:
    """A file read, slimmed where it was read (`SlimColumns`): what crosses back to the measuring process, and what
    it holds, is the columns the steps read, about 44 bytes a rank-step of a version 3 summary where the whole table
    takes 72 (its steps' starts as 32-bit offsets). A file that could not be read is passed on.

    >>> from ddpcore.traces import simulated_run
    >>> thin = slimmed(simulated_run(2, 3, seed=1)[0][0])
    >>> thin.phases_ms, [span for span, _ in thin.owns]
    ({}, [(0, 3)])
    """
    if isinstance(read, FileError):
        return read
    table = table_of(read)
    n = len(table.step)
    spans = [(0, n)] + ([(1, n)] if n > 1 and table.step[0] == WARMUP_STEP else [])
    owns = tuple((span, rank_own(table, range(*span))) for span in spans)
    kept = {f.name: getattr(table, f.name) for f in fields(RankColumns)}
    return SlimColumns(**(kept | _UNREAD | {"start_ms": _offsets(table.start_ms)}), owns=owns)


def _offsets(start: Column) -> Column:
    """Steps' starts in 64-bit microseconds as 32-bit offsets from the earliest (`base.Micros`): the same ms in half
    the room, when they span less than 2^31 µs (35 minutes); else as they are.

    >>> _offsets(Micros(array("q", [1_764_460_000_000_000, 1_764_460_000_250_000]))).us
    array('i', [0, 250000])
    """
    if not isinstance(start, Micros) or start.us.typecode != "q" or not start.us or start.base:
        return start
    low = min(start.us)
    if max(start.us) - low >= 2**31:
        return start
    return Micros(array("i", [v - low for v in start.us]), start.typecode, low)


def slim(table: RankColumns) -> RankColumns:
    """A rank's table without the columns only its own medians, the lanes and the runs' releases read (start,
    length, phases, GPU time, spans): what a measure kept to one threshold holds once the runs are told apart and
    `rank_owns` has read them (a table slimmed where it was read keeps only its starts until then). The columns kept
    are the same objects, not copies.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 3, seed=1)[0][0])
    >>> thin = slim(table)
    >>> thin.phases_ms, thin.work_ms is table.work_ms
    ({}, True)
    """
    return replace(table, start_ms=(), **_UNREAD)


def rank_summary(
    table: RankColumns,
    rows: Sequence[int],
    mine: dict[str, Sequence[float]],
    slowest: int,
    own: RankOwn | None = None,
) -> RankSummary:
    """One rank over the common steps (`rows`: their rows in the rank's table; `mine`: its cost and wait in each,
    and its gap, else found from its cost and period), told how often it was the slowest; `own`: its own medians
    when they were taken before (`rank_owns`).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 3, seed=1)[0][0])
    >>> mine = {"cost_ms": [1.0, 2.0, 3.0], "gap": [0.1, 0.2, 0.3], "wait_ms": [5.0, 4.0, 3.0]}
    >>> s = rank_summary(table, range(3), mine, slowest=2)
    >>> s.rank, s.median_cost_ms, s.slowest_count
    (0, 2.0, 2)
    """
    o = own or rank_own(table, rows)
    gap = mine["gap"] if "gap" in mine else gaps_of(mine["cost_ms"], _picked(table.period_ms, rows))
    return RankSummary(
        rank=table.rank,
        source=table.source,
        median_step_ms=o.median_step_ms,
        mean_step_ms=o.mean_step_ms,
        median_phases_ms=o.median_phases_ms,
        median_arrival_ms=o.median_arrival_ms,
        median_wait_ms=median(mine["wait_ms"]),
        median_gap=median(gap),
        median_cost_ms=median(mine["cost_ms"]),
        late_steps=0,
        slowest_count=slowest,
        gpu=o.gpu,
    )


def _common_steps(tables: Sequence[RankColumns]) -> tuple[list[int], list[tuple[int, str, int]], bool]:
    """The steps every rank has, warmup left out; the ranks with steps beyond them (rank, source, how many); whether
    the warmup step was left out. A set of step numbers is made once for each distinct sequence of them, not once a
    rank (100,000 ranks of 1,000 steps: 5 GB of sets and ints)."""
    distinct: dict[Sequence[int], set[int]] = {}
    for t in tables:
        key = t.step if isinstance(t.step, range) else tuple(t.step)
        if key not in distinct:
            distinct[key] = set(key)
    common = set.intersection(*distinct.values())
    if not common:
        raise AnalysisError("run.no_common_step")
    partial = [
        (t.rank, t.source, len(distinct[t.step if isinstance(t.step, range) else tuple(t.step)]) - len(common))
        for t in tables
    ]
    warmup = WARMUP_STEP in common and len(common) > 1
    if warmup:
        common.discard(WARMUP_STEP)
    return sorted(common), partial, warmup


def rank_summaries(
    tables: Sequence[RankColumns],
    rows: Sequence[Sequence[int]],
    by_step: Mapping[str, Sequence[Sequence[float]]],
    slowest: Mapping[int, int],
    fan: Fan = map,
    owns: Mapping[int, RankOwn] | None = None,
    across: Across | None = None,
) -> list[RankSummary]:
    """Every rank over the common steps (`rank_summary`): `by_step` holds each step's `RANK_COLUMNS` (the gap may
    be left out), entry i rank i, read a rank at a time (`base.Transposed`), the ranks a range at a time through
    `fan`; `slowest` counts the steps each rank was the slowest of; `owns`: the ranks' own medians, by rank, when
    taken before (`rank_owns`); `across`: each step's middle places of the waits, when `by_step` holds no costs
    (a rank's are then found from its waits: `chance.Across`).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> tables = [table_of(r) for r in simulated_run(2, 2, seed=1)[0]]
    >>> by_step = {name: [[1.0, 3.0], [2.0, 4.0]] for name in RANK_COLUMNS}
    >>> [s.median_cost_ms for s in rank_summaries(tables, [range(2)] * 2, by_step, {1: 2})]
    [1.5, 3.5]
    """
    steps = len(next(iter(by_step.values()), ()))
    block = block_rows(steps)
    by_rank = {name: Transposed(by_step[name], "d", block) for name in RANK_COLUMNS if name in by_step}

    def mine(k: int) -> dict[str, Sequence[float]]:
        found = {name: v.at(k) for name, v in by_rank.items()}
        if "cost_ms" not in found and across is not None:
            wait = found["wait_ms"]
            found["cost_ms"] = array("d", map(sub, across.others(wait), wait))
        return found

    def ranked(some: range) -> list[RankSummary]:
        return [
            rank_summary(
                tables[k],
                rows[k],
                mine(k),
                slowest.get(tables[k].rank, 0),
                owns[tables[k].rank] if owns is not None else None,
            )
            for k in some
        ]

    return list(chain.from_iterable(fan(ranked, ranges(len(tables), steps, block))))


class CostRows(Sequence[array]):
    """Each step's costs, made when read from its waits and their middle places (`costs_of`): kept whole until the
    ranks are summarised, 10^8 rank-steps' costs would hold 0.8 GB more.

    >>> rows = CostRows([array("d", [20.0, 21.0, 0.5, 19.0])], [Middle.of([0.5, 19.0, 20.0, 21.0]).places()])
    >>> len(rows), list(rows[0])
    (1, [-1.0, -2.0, 19.5, 1.0])
    """

    def __init__(self, waits: Sequence[Sequence[float]], places: Sequence[Mapping[int, float]]) -> None:
        self.waits, self.places = waits, places

    def __len__(self) -> int:
        return len(self.waits)

    def __getitem__(self, j):  # type: ignore[no-untyped-def]
        if isinstance(j, slice):
            return [self[k] for k in range(len(self))[j]]
        wait = self.waits[j]
        return costs_of(wait, self.places[j], len(wait))


def unmeasured(
    common: Sequence[int], ranks: Sequence[int], work: Sequence[Sequence[float]]
) -> tuple[int, tuple[int, int, float] | None]:
    """How many rank-steps did no positive work (a clock that jumped), and the first of them (step, rank, ms), from
    each common step's work (entry i is `ranks[i]`).

    >>> unmeasured([4, 5], [0, 1], [[3.0, 2.0], [-1.0, 0.0]])
    (2, (5, 0, -1.0))
    """
    count, first = 0, None
    for n, row in zip(common, work):
        if min(row, default=1.0) > 0:
            continue
        bad = [i for i, w in enumerate(row) if not w > 0]
        if bad and first is None:
            first = (n, ranks[bad[0]], row[bad[0]])
        count += len(bad)
    return count, first


def _picked(column: Sequence, rows: Sequence[int]) -> Sequence:
    """A column's values in the given rows: the column itself when they are all its rows, in order, a slice of it
    (its own type, a C copy) when they follow one another, else a list.

    >>> _picked(array("d", [1.0, 2.0, 3.0]), range(1, 3)), _picked([1.0, 2.0, 3.0], [2, 0])
    (array('d', [2.0, 3.0]), [3.0, 1.0])
    """
    if rows == range(len(column)):
        return column
    if isinstance(rows, range) and rows.step == 1:
        return column[rows.start : rows.stop]
    return [column[i] for i in rows]


def rows_of(table: RankColumns, common: list[int]) -> Sequence[int]:
    """The rows of the common steps in a rank's table, in step order: a range when they follow one another (a run's
    steps but its warm-up one), which its columns are read by slices of.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 4, seed=1)[0][0])
    >>> rows_of(table, list(table.step)), rows_of(table, list(table.step)[2:]), rows_of(table, list(table.step)[::2])
    (range(0, 4), range(2, 4), [0, 2])
    """
    if list(table.step) == common:
        return range(len(common))
    where = {n: i for i, n in enumerate(table.step)}
    rows = [where[n] for n in common]
    following = range(rows[0], rows[0] + len(rows)) if rows else range(0)
    return following if rows == list(following) else rows


STEP_COLUMNS = ("arrival_ms", "period_ms", "anchor_ms", "compute_ms", "work_ms", "comm_free_ms")
STEP_FLAGS = ("released", "from_release")
RANK_COLUMNS = ("cost_ms", "gap", "wait_ms")


@dataclass(frozen=True)
class StepMajor:
    """Some ranks' columns over their common steps, read a step at a time across the ranks: `STEP_COLUMNS` as
    doubles, `STEP_FLAGS` as bytes, and the parts of the work (None when some rank keeps none)."""

    columns: dict[str, Transposed]
    flags: dict[str, Transposed]
    parts: dict[str, Transposed] | None


def step_major(tables: Sequence[RankColumns], rows: Sequence[Sequence[int]], parts: Sequence[str] | None) -> StepMajor:
    """The ranks' columns over their common steps (`rows`: each rank's rows of them, `rows_of`), laid side by side a
    block of about `base.BLOCK_VALUES` values at a time (`base.Transposed`, `base.block_rows`), not copied whole;
    `parts`: the parts kept, a rank without one reading zeros (None: none).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> tables = [table_of(r) for r in simulated_run(3, 4, seed=1)[0]]
    >>> major = step_major(tables, [range(4)] * 3, None)
    >>> len(major.columns["work_ms"].at(0)), list(major.flags["released"].at(0)), major.parts
    (3, [1, 1, 1], None)
    """
    block = block_rows(len(tables))

    def across(columns: list, typecode: str) -> Transposed:
        return Transposed(columns, typecode, block)

    picked = list(zip(tables, rows))
    return StepMajor(
        {name: across([_picked(getattr(t, name), r) for t, r in picked], "d") for name in STEP_COLUMNS},
        {name: across([_picked(getattr(t, name), r) for t, r in picked], "B") for name in STEP_FLAGS},
        None
        if parts is None
        else {
            p: across(
                [
                    _picked(t.parts_ms[p], r) if t.parts_ms and p in t.parts_ms else array("f", bytes(4 * len(r)))
                    for t, r in picked
                ],
                "f",
            )
            for p in parts
        },
    )


def _at(columns: dict[str, Transposed], j: int, whole: bool = True) -> dict:
    """Step j's value of each column, rank by rank; the work left in microseconds unless `whole` (a step kept to a
    threshold keeps a few entries of it: `_kept_to`)."""
    return {k: v.at(j, whole or k != "work_ms") for k, v in columns.items()}


def _parts_at(parts: dict[str, Transposed], j: int) -> dict[str, Column]:
    """Step j's parts (`phases.CAUSES`), rank by rank, leaving out a part no rank spent time in (a host trace has
    no GPU parts); single precision, since 4,096 ranks x 200 steps hold 8 of them."""
    out: dict[str, Column] = {}
    for p, by_rank in parts.items():
        values = by_rank.at(j)
        if any(values):
            out[p] = values
    return out


def _each_of(count: int) -> list[range]:
    """A step at a time, in this process: progress after each."""
    return [range(j, j + 1) for j in range(count)]


def measure(
    ranks: Sequence[RankTrace | RankFacts | RankColumns],
    progress: StepsDone | None = None,
    fan: Fan = map,
    at: float | None = None,
    owns: Mapping[int, RankOwn] | None = None,
) -> Measured:
    """Everything the threshold does not change: the ranks' common steps, each rank's wait, cost and spans, and how
    late ranks are by chance. `progress` hears how many of the common steps are measured, after each (0 first, once
    chance is measured: for 10^7 rank-steps each part lasts tens of seconds; a range of them at a time when
    `fan` sends them to other processes).

    The costly part of an analysis (kernel unions over every step of every rank): the page's worker runs it next to
    the reader and hands the page this, which the page judges again at each threshold without the traces. Works on
    columns: a step's ranks are arrays, and only the ranks drawn get an object. `fan` (`base.Fan`) runs the steps,
    then the ranks, a range at a time, and so does what chance and the copies read.

    With a threshold `at` (the command line's one), each step keeps only the entries a verdict at it reads, as a
    merge of shards does, and `judge` refuses any other threshold: at 10^8 rank-steps the steps' columns then hold
    tens of MB, not 6 GB.
    `owns`: the ranks' own medians, by rank, when their tables were slimmed first (`rank_owns`, `slim`: then no
    lanes are drawn).

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> m = measure(ranks)
    >>> len(m.ranks), len(m.steps)
    (8, 30)
    """
    if len(ranks) < 2:
        raise AnalysisError("run.two_ranks")
    tables = sorted((table_of(r) for r in ranks), key=lambda t: t.rank)
    common, partial, warmup = _common_steps(tables)
    rows = [rows_of(t, common) for t in tables]
    order = tuple(t.rank for t in tables)
    kept = [t.parts_ms or {} for t in tables]
    parted = all(t.parts_ms is not None for t in tables)
    major = step_major(tables, rows, [p for p in CAUSES if any(p in k for k in kept)] if parted else None)
    by_rank, flags, parts = major.columns, major.flags, major.parts

    block = block_rows(len(tables))

    def work_of(steps: range) -> list[Sequence[float]]:
        return [by_rank["work_ms"].at(j) for j in steps]

    work = list(chain.from_iterable(fan(work_of, ranges(len(common), len(tables), block))))
    beyond = beyond_chance(work, fan)
    if progress is not None:
        progress(0, len(common))
    count, first = unmeasured(common, order, work)
    del work
    copied = copies(tables, fan)
    stepwise = by_rank | flags
    map_rows = bins_of(list(order), MAX_ROWS)

    def summarised(steps: range) -> list[tuple[StepSummary, array[float], dict[int, float], Cells]]:
        return [
            _summarise_step(
                common[j],
                order,
                rows,
                j,
                tables,
                _at(stepwise, j, at is None),
                _parts_at(parts, j) if parts is not None else None,
                beyond.entries[j],
                map_rows,
                at,
                owns is None,
            )
            for j in steps
        ]

    done: list[StepSummary] = []
    waits: list[array[float]] = []
    places: list[dict[int, float]] = []
    cells: list[Cells] = []
    for some in fan(summarised, ranges(len(common), len(tables), block) if fan is not map else _each_of(len(common))):
        for summary, wait, middle, column in some:
            done.append(summary)
            waits.append(wait)
            places.append(middle)
            cells.append(column)
        if progress is not None:
            progress(len(done), len(common))
    steps = tuple(done)
    stepwise, parts = {}, None
    del flags, major
    warnings = caveats_of(
        RunFacts(
            partial=partial,
            warmup=warmup,
            steps=len(common),
            ranks=len(tables),
            world=max((t.world_size or 0 for t in tables), default=0),
            unmeasured=count,
            first_unmeasured=first,
            copies=copied,
            unreleased=sum(not s.released for s in steps),
        )
    )
    slowest = Counter(s.slowest_rank for s in steps)
    summaries = tuple(
        replace(r, lateness=late)
        for r, late in zip(
            rank_summaries(tables, rows, {"wait_ms": waits}, slowest, fan, owns, Across.of(len(tables), places)),
            beyond.ranks,
        )
    )
    periods = [s.median_step_ms for s in steps]
    return Measured(
        steps,
        summaries,
        warnings,
        map_of(common, map_rows, cells),
        Chance(
            len(tables),
            beyond.tail,
            beyond.floor_ms,
            cost_tail(CostRows(waits, places), beyond, [r.median_cost_ms for r in summaries], fan),
            beyond.total,
            beyond.spread,
            beyond.serial,
        ),
        statistics.fmean(periods),
        statistics.median(periods),
        statistics.median(s.gap for s in steps),
        statistics.fmean(math.fsum(w) for w in waits),
        any(LOAD in (t.parts_ms or {}) for t in tables),
        at,
    )


RUN = "—"
"""The source of the one error line that is not one file's: the files read cannot be compared."""


def measure_loaded(
    loaded: Loaded | Callable[[], Loaded],
    progress: StepsDone | None = None,
    fan: Fan = map,
    at: float | None = None,
) -> tuple[Measured | None, tuple[FileError, ...]]:
    """The readable files measured; when they cannot be compared, None and why, as one more error line (source
    RUN): the command line and the page both read a run this way (`one_run`). With a threshold `at`, the measure
    is kept to it (`measure`) and each rank's table slimmed once its own medians are taken (`rank_owns`, `slim`);
    `loaded` is then best a function that reads the files, so that no caller holds their whole tables.

    >>> from ddpcore.traces import Loaded, simulated_run
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> m, errors = measure_loaded(Loaded(tuple(ranks), ()))
    >>> len(m.ranks), errors
    (8, ())
    """
    read = loaded() if callable(loaded) else loaded
    unread = read.errors
    try:
        tables, errors = one_run(read, fan)
        del read  # the tables are slimmed below: nothing here may hold them whole
        if at is None or len(tables) < 2:
            return measure(tables, progress, fan, at), errors
        owns = rank_owns(tables, fan)
        tables = [slim(t) for t in tables]
        return measure(tables, progress, fan, at, owns), errors
    except AnalysisError as exc:
        return None, (*unread, FileError(RUN, exc.message))


def one_run(loaded: Loaded, fan: Fan = map) -> tuple[list[RankColumns], tuple[FileError, ...]]:
    """The readable files' tables, and the errors with a line for each file of another run than the largest one
    (`runs`), naming the run kept; when two runs are as large, AnalysisError (none is analysed).

    >>> from ddpcore.traces import Loaded, simulated_run
    >>> ranks, slowed = simulated_run(4, 10, seed=1)
    >>> tables, errors = one_run(Loaded(tuple(ranks), ()))
    >>> [t.rank for t in tables], errors
    ([0, 1, 2, 3], ())
    """
    tables = sorted((table_of(r) for r in loaded.traces), key=lambda t: t.rank)
    if len(tables) < 2:
        return tables, loaded.errors
    runs = runs_of(tables, fan)
    if runs.kept is None:
        groups = "; ".join(", ".join(t.source for t in g) for g in runs.groups)
        raise AnalysisError("run.runs", count=len(runs.groups), groups=groups)
    kept = ", ".join(t.source for t in runs.kept[:3]) + (", …" if len(runs.kept) > 3 else "")
    others = tuple(
        FileError(t.source, Message.of("file.another_run", count=len(runs.kept), kept=kept)) for t in runs.others
    )
    return list(runs.kept), (*loaded.errors, *others)
