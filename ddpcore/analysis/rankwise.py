"""Each rank over the run's common steps: its own medians (`traces.OwnMedians`, taken once, where the rank was read
when it was kept to what a verdict reads: `traces.Keep`) and its summary (`rank_summary`), a range of ranks at a
time."""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import sub

from ..storage.fan import Fan, block_rows, ranges
from ..storage.micros import median
from ..storage.picking import picked
from ..storage.transposed import Transposed
from ..traces import FileError, RankColumns, table_of
from ..traces.files import read_path
from ..traces.keeping import KeptColumns, OwnMedians, own_medians
from .chance import (
    Across,
)
from .results import AnalysisError, RankSummary
from .stepwise import RANK_COLUMNS, gaps_of

__all__ = [
    "own_medians_at",
    "rank_summaries",
]


def own_medians_at(table: RankColumns, rows: Sequence[int]) -> OwnMedians:
    """A rank's own medians over some rows of its table (`own_medians`): taken where it was read when it was slimmed
    there for these rows (`KeptColumns`), else from its table, or from its file read again when its table was
    slimmed for other rows (AnalysisError when the file changed since).

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.traces.keeping import Keep, kept
    >>> thin = kept(simulated_run(2, 3, seed=1)[0][0], Keep.VERDICT)
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
    when they were taken before (`own_medians_at`).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> table = table_of(simulated_run(2, 3, seed=1)[0][0])
    >>> mine = {"cost_ms": [1.0, 2.0, 3.0], "gap": [0.1, 0.2, 0.3], "wait_ms": [5.0, 4.0, 3.0]}
    >>> s = rank_summary(table, range(3), mine, slowest=2)
    >>> s.rank, s.median_cost_ms, s.slowest_count
    (0, 2.0, 2)
    """
    o = own or own_medians(table, rows)
    gap = at_rows["gap"] if "gap" in at_rows else gaps_of(at_rows["cost_ms"], picked(table.period_ms, rows))
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
    taken before (`own_medians_at`); `across`: each step's middle places of the waits, when `by_step` holds no costs
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
