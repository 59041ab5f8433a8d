"""The rank × step map: each rank's cost at the barrier in each step, rows binned so that 10,000 ranks fit a screen.

A persistent straggler is a row of late cells, transient stragglers are scattered cells. Rows are ranks in order;
past `max_rows` ranks, consecutive ranks share a row, which keeps, step by step, its worst (latest) rank: binning
never hides a straggler.

>>> bins_of(list(range(10)), 4)
((0, 1, 2), (3, 4, 5), (6, 7, 8), (9,))
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .results import StepSummary

__all__ = ["Cells", "MAX_ROWS", "RankStepMap", "bins_of", "cells_of", "map_of", "rank_step_map"]

MAX_ROWS = 256


@dataclass(frozen=True)
class RankStepMap:
    """Rows of ranks × analysed steps: the worst cost (ms) in each cell, the rank it belongs to, and the gap
    (cost over the step's period) that colours it. Which cells are late is the verdict's to say (`late_cells`)."""

    steps: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    cost_ms: tuple[tuple[float, ...], ...]
    gap: tuple[tuple[float, ...], ...]
    worst: tuple[tuple[int, ...], ...]

    def late_cells(self, late_ranks: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
        """(row, column) of every cell holding a late rank-step, in order, from each step's late ranks (`verdict`:
        the same rank-steps the transient count and the per-step table read)."""
        firsts = [row[0] for row in self.rows]
        cells = {(bisect_right(firsts, r) - 1, j) for j, ranks in enumerate(late_ranks) for r in ranks}
        return sorted(cells)


def bins_of(ranks: list[int], max_rows: int) -> tuple[tuple[int, ...], ...]:
    """Consecutive ranks in at most `max_rows` rows of equal size (the last may be shorter)."""
    size = max(1, math.ceil(len(ranks) / max_rows))
    return tuple(tuple(ranks[k : k + size]) for k in range(0, len(ranks), size))


def rank_step_map(steps: Sequence[StepSummary], max_rows: int = MAX_ROWS) -> RankStepMap:
    """The map of a run's measured steps: per row and step, the row's latest rank (highest gap) and its cost.
    The threshold does not change it: `measure` makes it once, and only the colouring of late cells depends on it.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> m = rank_step_map(a.steps, max_rows=4)
    >>> m.rows
    ((0, 1), (2, 3), (4, 5), (6, 7))
    """
    rows = bins_of(list(steps[0].columns.ranks), max_rows)
    return map_of([s.step for s in steps], rows, [cells_of(s.columns.gap, s.columns.cost_ms, rows) for s in steps])


Cells = tuple[tuple[float, ...], tuple[float, ...], tuple[int, ...]]
"""One step's column of the map: each row's worst cost, its gap and its rank."""


def cells_of(gap: Sequence[float], cost: Sequence[float], rows: Sequence[Sequence[int]]) -> Cells:
    """One step's cells (`Cells`), from its ranks' gaps and costs in rank order (entry i is the i-th rank of the
    rows laid end to end): a row is a run of consecutive entries, so a cell is one `max` over a slice rather than a
    comparison per rank-step in Python. `measure` makes them where the step is measured, even when it keeps no more
    of the step than a verdict reads.

    >>> cells_of([0.1, 0.5, 0.2], [1.0, 5.0, 2.0], ((7, 8), (9,)))
    ((5.0, 2.0), (0.5, 0.2), (8, 9))
    """
    costs, gaps, worst = [], [], []
    low = 0
    for row in rows:
        high = low + len(row)
        chunk = gap[low:high]
        top = max(chunk)
        k = chunk.index(top)
        gaps.append(top)
        costs.append(cost[low + k])
        worst.append(row[k])
        low = high
    return tuple(costs), tuple(gaps), tuple(worst)


def map_of(steps: Sequence[int], rows: tuple[tuple[int, ...], ...], cells: Sequence[Cells]) -> RankStepMap:
    """The map from each step's cells (`cells_of`), step by step.

    >>> map_of([4, 5], ((0,), (1,)), [((1.0, 2.0), (0.1, 0.2), (0, 1)), ((3.0, 4.0), (0.3, 0.4), (0, 1))]).cost_ms
    ((1.0, 3.0), (2.0, 4.0))
    """
    return RankStepMap(
        tuple(steps),
        rows,
        *(tuple(zip(*(c[k] for c in cells))) if cells else tuple(() for _ in rows) for k in range(3)),
    )
