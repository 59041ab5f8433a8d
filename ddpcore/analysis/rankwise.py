"""Each rank over the run's common steps: its own medians (`OwnMedians`, taken once), its summary (`rank_summary`),
a range of ranks at a time; and its table kept to what a verdict at the command line's threshold reads
(`kept_for_verdict`) once those medians are taken: at 10^8 rank-steps, the columns it drops are gigabytes."""

from __future__ import annotations

import statistics
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from itertools import chain
from operator import sub

from ..base import SUMMED
from ..storage import Fan, Micros, Transposed, block_rows, median, ranges
from ..traces import (
    Column,
    FileError,
    RankColumns,
    ReadRank,
    read_path,
    table_of,
)
from .caveats import WARMUP_STEP
from .chance import (
    Across,
)
from .results import AnalysisError, GpuGauges, RankSummary
from .stepwise import RANK_COLUMNS, _common_steps, _picked, gaps_of, rows_of

__all__ = [
    "own_medians_of",
    "own_medians_at",
    "rank_summaries",
    "OwnMedians",
    "kept_for_verdict",
    "KeptColumns",
    "kept_where_read",
]


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
class OwnMedians:
    """What a rank's summary reads of its own columns over the common steps (`own_medians`): known before any step
    is measured, so that a measure kept to one threshold can drop those columns first (`kept_for_verdict`)."""

    median_step_ms: float
    mean_step_ms: float
    median_phases_ms: dict[str, float]
    median_arrival_ms: float
    gpu: GpuGauges | None


def own_medians(table: RankColumns, rows: Sequence[int]) -> OwnMedians:
    """A rank's own medians over the common steps (`rows`: their rows in its table) and its GPU's gauges.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 3, seed=1)[0][0])
    >>> own = own_medians(table, range(3))
    >>> own.median_step_ms == statistics.median(table.period_ms), sorted(own.median_phases_ms)[:2]
    (True, ['allreduce', 'backward'])
    """

    def at_rows(column: Column) -> Sequence[float]:
        return _picked(column, rows)

    period = at_rows(table.period_ms)
    return OwnMedians(
        median(period),
        statistics.fmean(period),
        {p: median(at_rows(table.phases_ms[p])) for p in SUMMED},
        median(at_rows(table.arrival_ms)),
        _rank_gauges(table, rows),
    )


def own_medians_of(tables: Sequence[RankColumns], fan: Fan = map) -> dict[int, OwnMedians]:
    """Every rank's own medians over the ranks' common steps (`own_medians`), by rank, the ranks a range at a time
    through `fan`: taken where the rank was read when it was slimmed there (`KeptColumns`), else from its table, or
    from its file read again when its table was slimmed for other rows than these.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> tables = [table_of(r) for r in simulated_run(3, 4, seed=1)[0]]
    >>> sorted(own_medians_of(tables))
    [0, 1, 2]
    """
    common = _common_steps(tables)[0]

    def owned(some: range) -> list[OwnMedians]:
        return [own_medians_at(tables[k], rows_of(tables[k], common)) for k in some]

    return dict(zip((t.rank for t in tables), chain.from_iterable(fan(owned, ranges(len(tables), len(common))))))


def own_medians_at(table: RankColumns, rows: Sequence[int]) -> OwnMedians:
    """A rank's own medians over some rows of its table (`own_medians`): taken where it was read when it was slimmed
    there for these rows (`KeptColumns`), else from its table, or from its file read again when its table was
    slimmed for other rows (AnalysisError when the file changed since).

    >>> from ddpcore.traces import simulated_run
    >>> thin = kept_where_read(simulated_run(2, 3, seed=1)[0][0])
    >>> own_medians_at(thin, range(3)) == thin.medians[0][1]
    True
    """
    if not isinstance(table, KeptColumns):
        return own_medians(table, rows)
    if isinstance(rows, range) and rows.step == 1:
        for kept, own in table.medians:
            if kept == (rows.start, rows.stop):
                return own
    again = read_path(table.source)
    if isinstance(again, FileError) or again.rank != table.rank:
        raise AnalysisError("run.changed", source=table.source)
    full = table_of(again)
    if list(full.step) != list(table.step):
        raise AnalysisError("run.changed", source=table.source)
    return own_medians(full, rows)


def rank_summary(
    table: RankColumns,
    rows: Sequence[int],
    at_rows: dict[str, Sequence[float]],
    slowest: int,
    own: OwnMedians | None = None,
) -> RankSummary:
    """One rank over the common steps (`rows`: their rows in the rank's table; `mine`: its cost and wait in each,
    and its gap, else found from its cost and period), told how often it was the slowest; `own`: its own medians
    when they were taken before (`own_medians_of`).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 3, seed=1)[0][0])
    >>> mine = {"cost_ms": [1.0, 2.0, 3.0], "gap": [0.1, 0.2, 0.3], "wait_ms": [5.0, 4.0, 3.0]}
    >>> s = rank_summary(table, range(3), mine, slowest=2)
    >>> s.rank, s.median_cost_ms, s.slowest_count
    (0, 2.0, 2)
    """
    o = own or own_medians(table, rows)
    gap = at_rows["gap"] if "gap" in at_rows else gaps_of(at_rows["cost_ms"], _picked(table.period_ms, rows))
    return RankSummary(
        rank=table.rank,
        source=table.source,
        median_step_ms=o.median_step_ms,
        mean_step_ms=o.mean_step_ms,
        median_phases_ms=o.median_phases_ms,
        median_arrival_ms=o.median_arrival_ms,
        median_wait_ms=median(at_rows["wait_ms"]),
        median_gap=median(gap),
        median_cost_ms=median(at_rows["cost_ms"]),
        late_steps=0,
        slowest_count=slowest,
        gpu=o.gpu,
    )


def rank_summaries(
    tables: Sequence[RankColumns],
    rows: Sequence[Sequence[int]],
    by_step: Mapping[str, Sequence[Sequence[float]]],
    slowest: Mapping[int, int],
    fan: Fan = map,
    medians: Mapping[int, OwnMedians] | None = None,
    across: Across | None = None,
) -> list[RankSummary]:
    """Every rank over the common steps (`rank_summary`): `by_step` holds each step's `RANK_COLUMNS` (the gap may
    be left out), entry i rank i, read a rank at a time (`storage.Transposed`), the ranks a range at a time through
    `fan`; `slowest` counts the steps each rank was the slowest of; `medians`: the ranks' own medians, by rank, when
    taken before (`own_medians_of`); `across`: each step's middle places of the waits, when `by_step` holds no costs
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

    def at_rows(k: int) -> dict[str, Sequence[float]]:
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
                at_rows(k),
                slowest.get(tables[k].rank, 0),
                medians[tables[k].rank] if medians is not None else None,
            )
            for k in some
        ]

    return list(chain.from_iterable(fan(ranked, ranges(len(tables), steps, block))))


_UNREAD: dict = {"length_ms": (), "phases_ms": {}, "device": None, "detail": ()}
"""A table's columns that a measure kept to one threshold never reads, emptied (`kept_where_read`,
`kept_for_verdict`)."""


@dataclass(frozen=True)
class KeptColumns(RankColumns):
    """A rank's table slimmed where it was read (`kept_where_read`): what a measure kept to one threshold reads, and its
    steps' starts (the runs' releases), with its own medians (`own_medians`) over the rows a measure takes when every
    rank has the same steps: all of them, or all but the warm-up step (`medians`: (first row, row past the last), and
    the medians)."""

    medians: tuple[tuple[tuple[int, int], OwnMedians], ...] = ()


def kept_where_read(read: ReadRank | FileError) -> ReadRank | FileError:
    """A file read, slimmed where it was read (`KeptColumns`): what crosses back to the measuring process, and what
    it holds, is the columns the steps read, about 44 bytes a rank-step of a version 3 summary where the whole table
    takes 72 (its steps' starts as 32-bit offsets). A file that could not be read is passed on.

    >>> from ddpcore.traces import simulated_run
    >>> thin = kept_where_read(simulated_run(2, 3, seed=1)[0][0])
    >>> thin.phases_ms, [span for span, _ in thin.medians]
    ({}, [(0, 3)])
    """
    if isinstance(read, FileError):
        return read
    table = table_of(read)
    n = len(table.step)
    spans = [(0, n)] + ([(1, n)] if n > 1 and table.step[0] == WARMUP_STEP else [])
    medians = tuple((span, own_medians(table, range(*span))) for span in spans)
    kept = {f.name: getattr(table, f.name) for f in fields(RankColumns)}
    return KeptColumns(**(kept | _UNREAD | {"start_ms": _offsets(table.start_ms)}), medians=medians)


def _offsets(start: Column) -> Column:
    """Steps' starts in 64-bit microseconds as 32-bit offsets from the earliest (`storage.Micros`): the same ms in half
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


def kept_for_verdict(table: RankColumns) -> RankColumns:
    """A rank's table without the columns only its own medians, the lanes and the runs' releases read (start,
    length, phases, GPU time, spans): what a measure kept to one threshold holds once the runs are told apart and
    `own_medians_of` has read them (a table slimmed where it was read keeps only its starts until then). The columns
    kept are the same objects, not copies.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 3, seed=1)[0][0])
    >>> thin = kept_for_verdict(table)
    >>> thin.phases_ms, thin.work_ms is table.work_ms
    ({}, True)
    """
    return replace(table, start_ms=(), **_UNREAD)
