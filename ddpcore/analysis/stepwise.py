"""A step's arithmetic across its ranks. Every rank leaves a step's gradient collective together (the release):

- a rank's **wait** in a step is the release minus its readiness (`tracefacts`), on its own clock;
- its **cost** is the median wait of the *other* ranks minus its own (with two ranks, the whole difference): how
  much later than them it was ready. Its **gap** is that cost over the step period: the share of the step the
  barrier costs.

Here too: the entries a verdict or a drawing reads of a step, and the steps' columns laid across the ranks
(`step_major`), a step at a time.

>>> round(gap_of(cost_ms=5.0, period_ms=50.0), 3)
0.1
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import le, sub, truediv

from ..base.intervals import Interval
from ..storage.fan import block_rows
from ..storage.micros import median
from ..storage.picking import order_of, picked, where_above, where_at_least, where_at_most, where_equal
from ..storage.transposed import Transposed
from ..storage.whenread import RowsWhenRead
from ..traces import RankColumns, StepFacts
from ..traces.keeping import WARMUP_STEP
from ..traces.stepfacts import Column
from ..traces.summary import drawn as drawn_spans
from .chance import (
    KEPT,
    Middle,
    medians_of_others,
    others_of,
)
from .rankmap import Cells, cells_of
from .results import AnalysisError, DrawnRank, StepColumns, StepSummary, gap_of
from .whatif import earliest_free, retimed_saving

__all__ = [
    "CostRows",
    "costs_of",
    "DRAWN_ALL",
    "drawn_entries",
    "DRAWN_LATEST",
    "gaps_of",
    "RANK_COLUMNS",
    "WAITS_READ",
    "read_entries",
    "rows_of",
    "step_major",
    "unmeasured",
    "waits_of",
]

DRAWN_ALL = 16


DRAWN_LATEST = 8


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
    latest = where_above(cost_ms, edge)
    tied = where_equal(cost_ms, edge)
    latest += tied[len(tied) - (DRAWN_LATEST - len(latest)) :]
    middle = ordered[n // 2]
    place = n // 2 - bisect_left(ordered, middle)
    median = where_equal(cost_ms, middle)[place]
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


WAITS_READ = ("arrival_ms", "anchor_ms", "compute_ms", "comm_free_ms")
"""The columns a step's waits are made of (`waits_of`): a caller converts no other for them."""


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
    return tuple(order_of(wait, where_at_most(wait, cutoff))[: KEPT + 1])


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
    beyond_ms: tuple[float, ...] = (),
) -> tuple[StepSummary, array[float], dict[int, float], Cells]:
    """One common step, with its ranks' waits whole and their middle places (all their costs need:
    `chance.middle_places`), and its cells of the map (`rankmap.cells_of`, rows `map_rows`). `by_column` holds,
    for this step, each rank's value of a column (ranks in order): arrays, not lists of floats, since for 4,096
    ranks x 200 steps every float object costs 24 bytes more. The costs need no sort of their own: a smaller wait
    never leaves a smaller median of the others, so the costs of the sorted waits, reversed, are the costs in order
    (`tests/analysis/test_measured_columns.py`)."""
    period, anchor = by_column["period_ms"], by_column["anchor_ms"]
    released = all(by_column["released"])
    wait, first, free = waits_of(by_column, released, max(by_column["arrival_ms"]))
    ranked: Sequence[float] = sorted(wait)
    middle = Middle.of_sorted(ranked, KEPT)
    places = middle.places()
    cost = costs_of(wait, places, len(wait))
    gap = gaps_of(cost, period)
    slowest = cost.index(max(cost))
    columns = StepColumns(
        ranks=ranks,
        period_ms=period,
        compute_ms=by_column["compute_ms"],
        cost_ms=cost,
        gap=gap,
        wait_ms=wait,
        work_ms=array("f", by_column["work_ms"]),
        parts_ms=parts,
        from_release=released and all(by_column["from_release"]),
        first_ms=first,
        free_ms=free,
        solo_entry=slowest,
        solo_saved_ms=retimed_saving(wait, first, free, {slowest: cost[slowest]}),
        beyond=beyond,
        beyond_ms=beyond_ms,
        waits=middle,
        parts={p: Middle.of(v, middle.kept) for p, v in parts.items()} if parts is not None else None,
        lowest=_lowest(wait, ranked),
    )
    lead = max(anchor)
    drawn = tuple(
        _rank_in_step(ranks[i], tables[i].facts_at(rows[i][j], drawn_spans), cost[i], gap[i], wait[i], lead - anchor[i])
        for i in drawn_entries(cost, costs_of(ranked, ranked)[::-1])
    )
    summary = StepSummary(
        step=number,
        slowest_rank=ranks[slowest],
        median_step_ms=median(period),
        max_step_ms=max(period),
        gap=gap[slowest],
        extra_ms=cost[slowest],
        late_ranks=(),
        columns=columns,
        drawn=drawn,
        released=released,
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
    chosen.update(where_at_most(wait, least))
    latest = heapq.nlargest(len(over) + 1, first)[-1]
    chosen.update(where_at_least(first, latest))
    return chosen


class CostRows(RowsWhenRead[array]):
    """Each step's costs, made when read from its waits and their middle places (`costs_of`; `total`: how many waits
    the places are of, when the waits are some of them, a shard's): kept whole until the ranks are summarised, 10^8
    rank-steps' costs would hold 0.8 GB more.

    >>> rows = CostRows([array("d", [20.0, 21.0, 0.5, 19.0])], [Middle.of([0.5, 19.0, 20.0, 21.0]).places()])
    >>> len(rows), list(rows[0])
    (1, [-1.0, -2.0, 19.5, 1.0])
    """

    def __init__(
        self, waits: Sequence[Sequence[float]], places: Sequence[Mapping[int, float]], total: int | None = None
    ) -> None:
        self.waits, self.places, self.total = waits, places, total

    def __len__(self) -> int:
        return len(self.waits)

    def row(self, j: int) -> array:
        """Step j's costs."""
        wait = self.waits[j]
        return costs_of(wait, self.places[j], self.total or len(wait))


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
    block of about `storage.BLOCK_VALUES` values at a time (`storage.Transposed`, `storage.block_rows`), not copied
    whole; `parts`: the parts kept, a rank without one reading zeros (None: none).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> tables = [table_of(r) for r in simulated_run(3, 4, seed=1)[0]]
    >>> major = step_major(tables, [range(4)] * 3, None)
    >>> len(major.columns["work_ms"].at(0)), list(major.flags["released"].at(0)), major.parts
    (3, [1, 1, 1], None)
    """
    block = block_rows(len(tables))
    lengths = {len(t.step) for t in tables}
    shared = rows[0] if rows and isinstance(rows[0], range) and all(r == rows[0] for r in rows) else None
    where = shared if shared is not None and len(lengths) == 1 else None

    def across(name: str, typecode: str) -> Transposed:
        if where is not None:
            return Transposed([getattr(t, name) for t in tables], typecode, block, where)
        return Transposed([picked(getattr(t, name), r) for t, r in zip(tables, rows)], typecode, block)

    def part(p: str) -> Transposed:
        def column(t: RankColumns, r: Sequence[int]) -> Sequence[float]:
            if t.parts_ms and p in t.parts_ms:
                return t.parts_ms[p] if where is not None else picked(t.parts_ms[p], r)
            return array("f", bytes(4 * (len(t.step) if where is not None else len(r))))

        return Transposed([column(t, r) for t, r in zip(tables, rows)], "f", block, where)

    return StepMajor(
        {name: across(name, "d") for name in STEP_COLUMNS},
        {name: across(name, "B") for name in STEP_FLAGS},
        None if parts is None else {p: part(p) for p in parts},
    )


def _at(columns: dict[str, Transposed], j: int) -> dict:
    """Step j's value of each column, rank by rank."""
    return {k: v.at(j) for k, v in columns.items()}


def _parts_at(parts: dict[str, Transposed], j: int) -> dict[str, Column]:
    """Step j's parts (`phases.CAUSES`), rank by rank, leaving out a part no rank spent time in (a host trace has
    no GPU parts); single precision, since 4,096 ranks x 200 steps hold 8 of them."""
    out: dict[str, Column] = {}
    for p, by_rank in parts.items():
        values = by_rank.at(j)
        if any(values):
            out[p] = values
    return out


def distinct_steps(tables: Sequence[RankColumns]) -> dict[Sequence[int], set[int]]:
    """Each distinct sequence of the ranks' step numbers, with its set: made once for each, not once a rank (100,000
    ranks of 1,000 steps held as sets at once: 5 GB of sets and ints), so that the steps every rank has are their
    intersection.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> [len(s) for s in distinct_steps([table_of(r) for r in simulated_run(3, 4, seed=1)[0]]).values()]
    [4]
    """
    distinct: dict[Sequence[int], set[int]] = {}
    for t in tables:
        key = t.step if isinstance(t.step, range) else tuple(t.step)
        if key not in distinct:
            distinct[key] = set(key)
    return distinct


def _common_steps(tables: Sequence[RankColumns]) -> tuple[list[int], list[tuple[int, str, int]], bool]:
    """The steps every rank has, warmup left out; the ranks with steps beyond them (rank, source, how many); whether
    the warmup step was left out (`distinct_steps`)."""
    distinct = distinct_steps(tables)
    common = set.intersection(*distinct.values()) if distinct else set()
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
