"""What a reading process keeps of each rank it read (`Keep`), declared by the caller and carried out here, where
the rank was read: the whole table, or what a verdict at one threshold reads (`KeptColumns`: the columns the steps
read, the steps' starts as 32-bit offsets, and the rank's own medians, `OwnMedians`, taken before the columns they
read are dropped). At 10^8 rank-steps what is dropped is gigabytes, so it is dropped before it crosses back."""

from __future__ import annotations

import statistics
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from enum import Enum
from operator import sub

from ..base.phases import SUMMED
from ..storage.micros import Micros, median
from ..storage.picking import picked
from .parse import FileError, ReadRank
from .stepfacts import Column, RankColumns
from .tracefacts import table_of

__all__ = [
    "WARMUP_STEP",
    "GpuGauges",
    "Keep",
    "KeptColumns",
    "OwnMedians",
    "kept",
    "kept_for_verdict",
    "own_medians",
]

WARMUP_STEP = 0
"""The step left out of the comparison when others remain: compilation, allocator growth and first-touch costs."""


@dataclass(frozen=True, kw_only=True)
class GpuGauges:
    """Over a rank's analysed steps: what nvidia-smi would show, what compute kernels filled, and communication.

    >>> GpuGauges(busy=0.9, compute=0.6, comm_overlap=0.5, exposed_comm_ms=3.0).busy
    0.9
    """

    busy: float
    compute: float
    comm_overlap: float | None
    exposed_comm_ms: float


def _rank_gauges(table: RankColumns, rows: Sequence[int]) -> GpuGauges | None:
    """A rank's GPU gauges over the given rows that have GPU time, those followed by another step when some are:
    sums and a mean over its columns in C passes (a rank of 1,000 steps had made 1,000 objects), in the rows' order.
    """
    if table.device is None:
        return None
    if isinstance(table.device[0], array) and all(picked(table.followed, rows)):
        measured: Sequence[int] = rows
    else:
        with_device = [i for i in rows if table.device[0][i] is not None]
        measured = [i for i in with_device if table.followed[i]] or with_device
    if not measured:
        return None
    busy, compute, comm, overlapped = (list(map(float, picked(c, measured))) for c in table.device)
    total, comm_ms = sum(picked(table.period_ms, measured)), sum(comm)
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
        return picked(column, rows)

    period = at_rows(table.period_ms)
    return OwnMedians(
        median(period),
        statistics.fmean(period),
        {p: median(at_rows(table.phases_ms[p])) for p in SUMMED},
        median(at_rows(table.arrival_ms)),
        _rank_gauges(table, rows),
    )


class Keep(Enum):
    """What a reading process keeps of each rank it read before sending it back (`files.read_paths`): the whole
    table (`WHOLE`: the page's lanes, every figure at any threshold), or what a verdict at one threshold reads
    (`VERDICT`: `KeptColumns`, about 44 bytes a rank-step of a version 3 summary where the whole table takes 72).

    >>> Keep("verdict") is Keep.VERDICT
    True
    """

    WHOLE = "whole"
    VERDICT = "verdict"


_UNREAD: dict = {"length_ms": (), "phases_ms": {}, "device": None, "detail": ()}
"""A table's columns that a measure kept to one threshold never reads, emptied (`kept`, `kept_for_verdict`)."""


@dataclass(frozen=True)
class KeptColumns(RankColumns):
    """A rank's table kept to what a verdict reads where it was read (`Keep.VERDICT`): what a measure kept to one
    threshold reads, and its steps' starts (the runs' releases), with its own medians (`own_medians`) over the rows a
    measure takes when every rank has the same steps: all of them, or all but the warm-up step (`medians`: (first
    row, row past the last), and the medians)."""

    medians: tuple[tuple[tuple[int, int], OwnMedians], ...] = ()


def kept(read: ReadRank | FileError, keep: Keep) -> ReadRank | FileError:
    """A file read, kept as declared (`Keep`): what crosses back to the measuring process, and what it holds. A file
    that could not be read is passed on.

    >>> from ddpcore.traces import simulated_run
    >>> thin = kept(simulated_run(2, 3, seed=1)[0][0], Keep.VERDICT)
    >>> thin.phases_ms, [span for span, _ in thin.medians]
    ({}, [(0, 3)])
    """
    if isinstance(read, FileError) or keep is Keep.WHOLE:
        return read
    table = table_of(read)
    n = len(table.step)
    spans = [(0, n)] + ([(1, n)] if n > 1 and table.step[0] == WARMUP_STEP else [])
    medians = tuple((span, own_medians(table, range(*span))) for span in spans)
    columns = {f.name: getattr(table, f.name) for f in fields(RankColumns)}
    return KeptColumns(**(columns | _UNREAD | {"start_ms": _offsets(table.start_ms)}), medians=medians)


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
    length, phases, GPU time, spans): what a measure kept to one threshold holds once the runs are told apart and its
    own medians are read. The columns kept are the same objects, not copies.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 3, seed=1)[0][0])
    >>> thin = kept_for_verdict(table)
    >>> thin.phases_ms, thin.work_ms is table.work_ms
    ({}, True)
    """
    return replace(table, start_ms=(), **_UNREAD)
