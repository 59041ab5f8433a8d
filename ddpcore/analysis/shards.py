"""A verdict from shards: disjoint sets of one run's ranks, each held where its summaries are read, merged exactly.

No shard can measure its ranks alone: a rank's cost in a step is the median wait of the *other* ranks minus its
own, and chance is quantiles over every rank-step. So a merge asks its shards in rounds (`merge`), and what
crosses between them grows with the steps and the shards, not with the ranks:

- **order statistics** (a step's median, a window of places around it, a quantile of every rank-step): each shard
  sends an evenly spaced sample of its values in order; the samples bound how many values lie below any value, so
  they give a bracket sure to hold the places asked for; each shard then sends how many of its values lie below
  the bracket and those inside it (`order_stats`). Exact: the bracket is a bound, not a guess;
- **maxima, minima, flags and sums**: a value a shard a step (sums as exact as `math.fsum`'s, `sum_parts`);
- **the entries a verdict reads**: in each step the ranks over the threshold, the ranks of least wait and of
  latest first launch (the what-if's maxima), the slowest rank.

The merge then judges a `Measured` whose steps hold only those entries, and the exact middles of their columns
(`StepColumns.waits`, `StepColumns.parts`, as wide as the step's late ranks need): what `judge` reads of a step.
Its verdict is the one `measure` then `judge` give over every rank (tests/analysis/test_shards.py), but for a sum's
last bit in a near tie. Left out: the page's drawn lanes and the map (`Measured.rank_map` is empty), and the fit.

>>> from ddpcore.traces import simulated_run
>>> from ddpcore.analysis import analyze; from ddpcore.analysis.verdict import merge
>>> ranks, slowed = simulated_run(12, 40, persistent=(5,), p=0.02, seed=3)
>>> whole, parts = analyze(ranks), merge([Shard(ranks[:5]), Shard(ranks[5:])])
>>> parts.straggler_rank, parts.straggler_cost_ms == whole.straggler_cost_ms
(5, True)
"""

from __future__ import annotations

import heapq
import math
import statistics
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial, reduce
from itertools import accumulate, chain, repeat
from typing import Any, TypeVar, cast

from ..base import THRESHOLD
from ..base.phases import CAUSES, FORWARD_BACKWARD, LOAD
from ..storage.ordered import SAMPLE, Positions, Sample, SortedRuns, Within, bracket, sample_of, sorted_places, within
from ..storage.picking import gathered, order_of, without_places
from ..storage.transposed import Transposed
from ..storage.whenread import RowsWhenRead
from ..traces import RankColumns, RankFacts, RankTrace, table_of
from ..traces.keeping import WARMUP_STEP, kept_for_verdict
from .caveats import RunFacts, caveats_of
from .chance import (
    KEPT,
    Across,
    Atoms,
    Chance,
    Lateness,
    Lead,
    Middle,
    Place,
    Reference,
    Tail,
    adjusted,
    below_places,
    far_of,
    lateness,
    leads_of,
    lower_look,
    on_time_costs,
    past,
    pooled_runs,
    rank_places,
    recentred,
    serial_of,
    sum_parts,
    suspects_of,
    top_places,
    unmeasured_of,
    with_latest,
    with_top,
)
from .rankmap import RankStepMap
from .rankwise import own_medians_at, rank_summaries
from .results import AnalysisError, Measured, StepColumns, StepSummary, over_threshold
from .rounds import alone_measured, chance_in_rounds, chance_of_others
from .runs import Releases, bound_of, drift, fingerprint, references
from .stepwise import (
    STEP_COLUMNS,
    WAITS_READ,
    CostRows,
    distinct_steps,
    gaps_of,
    read_entries,
    rows_of,
    step_major,
    unmeasured,
    waits_of,
)
from .whatif import retimed_saving

__all__ = ["ROUNDS", "Shard", "ShardRounds", "asked", "asked_each", "measure_shards", "order_stats", "shards_of"]

T = TypeVar("T")


class StepRows(RowsWhenRead[Sequence[float]]):
    """A column of a shard's ranks read a step at a time (`storage.Transposed.at`), each step's values gathered
    from the ranks' own columns where the step is read: held once, in the tables' own types (microseconds in 4
    bytes), not as a second copy in doubles (at 10^7 rank-steps a node, six columns of 8 bytes: 480 MB). The rounds
    read steps in order, a block of them laid side by side at a time."""

    def __init__(self, across: Transposed) -> None:
        self.across = across

    def __len__(self) -> int:
        return self.across.rows

    def row(self, j: int) -> Sequence[float]:
        """Step j's values, in milliseconds."""
        return self.across.at(j)

    def raw(self, j: int) -> Sequence[float]:
        """Step j's values as the ranks keep them (`storage.Micros` for times: converted only where read, a few
        entries of thousands)."""
        return self.across.at(j, ms=False)


READ_AFTER_WAITS = ("period_ms", "compute_ms", "work_ms")
"""The steps' columns the questions after the waits read (`Shard.costs` the periods, through each rank's gaps;
`Shard.entries` these three): the others are let go once the waits are made."""


CHANCE_ONLY = ("work", "adjusted", "recentred", "deviations", "on_time")
"""What a shard holds for chance alone (`rounds.chance_in_rounds`, each rank's `Lateness`): the work a step at a time
(chance reads it over and over: held, not gathered again each time), the sorted copies, pooled values and adjusted
work that the questions after it (`Shard.waits` on) never read. The steps' entries read the work's column once,
where it is (`StepRows`)."""


def asked_each(shards: Sequence[Any], name: str, each: Sequence[tuple]) -> list:
    """Every shard's answer to one question (`name`, with the shard's own arguments `each[k]`), asked of every shard
    before any answer is awaited: shards in other processes or on other nodes (those with an `ask_later`, which
    sends the question and gives what waits for its answer) work at once, and a merge waits for the slowest, not
    for their sum. A shard in this process answers when its answer is awaited.

    >>> from ddpcore.traces import simulated_run
    >>> shards = shards_of(simulated_run(5, 3, seed=1)[0], 2)
    >>> [len(hello["ranks"]) for hello in asked_each(shards, "hello", [(), ()])]
    [3, 2]
    """
    waiting = [
        s.ask_later(name, args) if hasattr(s, "ask_later") else partial(getattr(s, name), *args)
        for s, args in zip(shards, each)
    ]
    return [wait() for wait in waiting]


def asked(shards: Sequence[Any], name: str, *args: object) -> list:
    """Every shard's answer to one question, the same arguments for all (`asked_each`).

    >>> from ddpcore.traces import simulated_run
    >>> [len(hello["ranks"]) for hello in asked(shards_of(simulated_run(5, 3, seed=1)[0], 2), "hello")]
    [3, 2]
    """
    return asked_each(shards, name, [args] * len(shards))


def pooled_sample(count: int) -> int:
    """How many places of a pooled vector of `count` values a shard samples (`Shard.samples`): about the square root
    of its count, SAMPLE at least. A bracket then holds about two square roots of values from each shard, not two
    SAMPLE-ths of them all: a node's million deviations were read place by place with 30,000 values crossing for
    each, a hundred times over.

    >>> pooled_sample(1000), pooled_sample(5_000_000)
    (64, 2236)
    """
    return max(SAMPLE, math.isqrt(count))


class Shard:
    """Some of a run's ranks (their tables, `traces.table_of`), measured where they are read: what a merge asks of
    them, in the order it asks (`merge`). Every answer is plain data, so that it can cross a process or a network
    (`ddpcore.cli.fork`: a forked process; `ddpcore.cli.onray`: a node of a Ray cluster)."""

    def __init__(self, ranks: Sequence[RankTrace | RankFacts | RankColumns]) -> None:
        self.tables = sorted((table_of(r) for r in ranks), key=lambda t: t.rank)
        self.ranks = tuple(t.rank for t in self.tables)
        self.vectors: dict[str, Sequence[Sequence[float]]] = {}
        self.pooled: dict[str, SortedRuns] = {}
        self.ordered: dict[str, list[Sequence[float] | None]] = {}

    def hello(self) -> dict:
        """The shard's ranks, their world sizes and digests (`runs.copies`), the steps all of them have, and which
        parts of the work they keep."""
        parted = all(t.parts_ms is not None for t in self.tables)
        kept = {p for t in self.tables for p in (t.parts_ms or {})}
        distinct = distinct_steps(self.tables)
        steps = set.intersection(*distinct.values()) if distinct else set()
        refs = [Releases.of(self.tables[i]) for i in references(len(self.tables))]
        return {
            "ranks": self.ranks,
            "sources": (self.tables[0].source,) if self.tables else (),
            "releases": refs[:1],
            "bound": bound_of({(i, j): drift(refs[i], refs[j]) for i in range(len(refs)) for j in range(i)}, len(refs)),
            "worlds": sorted({t.world_size for t in self.tables if t.world_size}),
            "digests": [fingerprint(t) for t in self.tables],
            "steps": sorted(steps),
            "parted": parted,
            "parts": [p for p in CAUSES if p in kept],
            "load_marked": any(LOAD in (t.parts_ms or {}) for t in self.tables),
        }

    def begin(self, common: Sequence[int], shared: Sequence[int], parts: Sequence[str] | None) -> dict:
        """Hold the common steps (`shared`, every rank's steps, but a warm-up step) a step at a time across the
        shard's ranks (`StepRows`: read across the ranks' own columns where a step is read, not copied); per step,
        what merges by a flag or an extreme, and per rank its steps not shared. Each rank's own medians are taken
        here, and its table is then kept to what the rounds still read (`kept_for_verdict`), as `analyze` keeps
        it."""
        self.common = list(common)
        self.rows = [rows_of(t, self.common) for t in self.tables]
        major = step_major(self.tables, self.rows, parts)
        self.medians = {t.rank: own_medians_at(t, rows) for t, rows in zip(self.tables, self.rows)}
        self.tables = [kept_for_verdict(t) for t in self.tables]

        def by_step(columns: dict[str, Transposed]) -> dict[str, StepRows]:
            return {name: StepRows(c) for name, c in columns.items()}

        self.columns, flags = by_step(major.columns), by_step(major.flags)
        self.parts = by_step(major.parts) if major.parts is not None else None
        if self.parts is not None:
            self.vectors |= {f"part:{p}": v for p, v in self.parts.items()}
        self.vectors["work"] = list(self.columns["work_ms"])
        self.vectors["period"] = self.columns["period_ms"]
        common_set = set(shared)
        return {
            "extra": [(t.rank, t.source, len(set(t.step) - common_set)) for t in self.tables],
            "released": [all(f) for f in flags["released"]],
            "from_release": [all(f) for f in flags["from_release"]],
            "latest": [max(a) for a in self.columns["arrival_ms"]],
            "longest": [max(p) for p in self.columns["period_ms"]],
            "parts_any": {p: [any(v) for v in by_step] for p, by_step in (self.parts or {}).items()},
            "unmeasured": unmeasured(self.common, self.ranks, self.vectors["work"]),
        }

    def _pool(self, key: str, runs: Sequence[Sequence[float]]) -> int:
        """Hold values pooled over the shard's steps, each step's sorted: read in order where they lie
        (`storage.SortedRuns`), never merged into one array (at 10^8 rank-steps, a merge of each pooled vector took
        minutes and held a second copy); their count."""
        self.pooled[key] = SortedRuns(runs)
        return len(self.pooled[key])

    def samples(self, key: str, wanted: Sequence[object | None] | None = None) -> list[Sample | None]:
        """Each step's values of a vector, sampled in order (of the steps `wanted` holds something for, when given:
        None for the others); or the one pooled vector, sampled at about the square root of its count
        (`pooled_sample`, `SortedRuns.sample`)."""
        if key in self.pooled:
            held = self.pooled[key]
            return [held.sample(pooled_sample(len(held)))]
        return [
            sample_of(o) if o is not None and (wanted is None or w is not None) else None
            for o, w in zip(self._ordered(key, wanted), wanted or repeat(0))
        ]

    def _ordered(self, key: str, wanted: Sequence[object | None] | None = None) -> list[Sequence[float] | None]:
        """A vector's steps sorted, each when first wanted (`wanted`: None at the steps not, and past its end; else
        all of them)."""
        rows = self.ordered.setdefault(key, [None] * len(self.vectors[key]))
        for j, v in enumerate(self.vectors[key]):
            if rows[j] is None and (wanted is None or (j < len(wanted) and wanted[j] is not None)):
                rows[j] = array("d", sorted(v))
        return rows

    def between(
        self, key: str, brackets: Sequence[tuple[float, float] | None], last: bool = False
    ) -> list[Within | None]:
        """Per step, a vector's values against its bracket (`storage.within`: how many below it, the values inside
        it, ties at its ends counted); `last`: the merge reads the vector no more, and its sorted copy is let go."""
        if key in self.pooled:
            held = self.pooled[key]
            return [held.within(*b) if b is not None else None for b in brackets]
        found = [
            within(o, *b) if b is not None and o is not None else None
            for o, b in zip(self._ordered(key, brackets), brackets)
        ]
        if last:
            self.ordered.pop(key, None)
        return found

    def at_places(self, key: str, wanted: Sequence[Positions | None], last: bool = False) -> list[list[float]]:
        """Each vector's sorted values at the wanted places (None: none), read here (`storage.sorted_places` a step
        at a time, `SortedRuns.places` of a pooled one): a shard that holds every rank answers `order_stats` in one
        round, and sorts nothing whole. `last` as `between`'s."""
        if key in self.pooled:
            held = self.pooled[key]
            found = [held.places(w[0], w[1] + 1) if w is not None else [] for w in wanted]
        else:
            found = [
                sorted_places(v, w[0], w[1] + 1) if w is not None else [] for v, w in zip(self.vectors[key], wanted)
            ]
        if last:
            self.ordered.pop(key, None)
        return found

    def count_upto(self, key: str, x: float) -> int:
        """How many values of a pooled vector are at most x."""
        return self.pooled[key].count_upto(x)

    def counts_upto(self, key: str, edges: Sequence[float]) -> list[int]:
        """How many values of a pooled vector are at most each edge."""
        return [self.count_upto(key, x) for x in edges]

    def above(self, key: str, x: float) -> list[float]:
        """The values of a pooled vector above x, in order."""
        return self.pooled[key].above(x)

    def places(self, work_medians: Sequence[float]) -> list[Place]:
        """Each of the shard's ranks' usual place (`chance.rank_places`) against every rank's median work."""
        found = rank_places(self.vectors["work"], work_medians)
        self.offsets = [p.offset for p in found]
        return found

    def work_rows(self) -> tuple[tuple[int, ...], list[list[float]]]:
        """The shard's ranks and each common step's work of them (ms): what chance without each rank is measured on
        (`rounds.chance_of_others`), asked of runs of a few ranks only."""
        return self.ranks, [list(row) for row in self.vectors["work"]]

    def adjust(self, usual: Sequence[float], work_medians: Sequence[float], base: float) -> None:
        """Take each of the shard's ranks' usual offset out of its work (`chance.usual_offsets`), against every
        rank's median work and the ranks on time's place (`chance.on_time_place`): `adjusted`."""
        self.vectors["adjusted"] = adjusted(self.vectors["work"], usual, work_medians, base)

    def unmeasured(self) -> list[int]:
        """Each step's count of the shard's works that are not a positive number (`chance.unmeasured_of`)."""
        work = self.vectors["work"]
        return unmeasured_of(work, range(len(work)))

    def suspects(self, cuts: Sequence[float], far: Sequence[float]) -> list[tuple[int, int]]:
        """Each step's suspects among the shard's ranks (`chance.first_look`, from every rank's cut), and the far ones
        among them (past `far`, left out of chance's fit); how many of each per step."""
        rows = self.vectors["adjusted"]
        self.suspect_rows = [suspects_of(row, cut) for row, cut in zip(rows, cuts)]
        self.far_rows = [far_of(row, gone, cut) for row, gone, cut in zip(rows, self.suspect_rows, far)]
        self.tops: list[int] | None = None
        return self._counted()

    def _counted(self) -> list[tuple[int, int]]:
        return [(len(gone), len(far)) for gone, far in zip(self.suspect_rows, self.far_rows)]

    def suspects_held(self) -> dict[int, int]:
        """How many of the first look's suspects each of the shard's ranks holds (`chance.crowded`), by rank."""
        return dict(Counter(self.ranks[i] for found in self.suspect_rows for i in found))

    def leads(self, crowded: frozenset[int]) -> list[Lead]:
        """Per step, the latest two of the shard's ranks not `crowded` (`chance.leads_of`), entries as ranks."""
        self.gone = frozenset(i for i, r in enumerate(self.ranks) if r in crowded)
        found = leads_of(self.vectors["adjusted"], self.offsets, self.gone, range(len(self.common)))
        return [replace(lead, entry=self.ranks[lead.entry]) if lead.entry >= 0 else lead for lead in found]

    def recentre(self, leads: Sequence[Lead], stride: int) -> int:
        """The shard's works not crowded against every rank's step mean (`chance.recentred`, of every `stride`-th
        step), pooled; their count."""
        rows = self.vectors["adjusted"]
        pooled = recentred(rows, self.offsets, self.gone, leads, stride, range(len(rows)))
        self._pool("recentred", [array("d", sorted(pooled))])
        return len(self.pooled["recentred"])

    def top_places(self, k: int, stride: int) -> list[tuple[float, int]]:
        """The k largest works of the shard's ranks not crowded, offsets out, each with its step index, of every
        `stride`-th step (`chance.top_places`)."""
        rows = self.vectors["adjusted"]
        return top_places(rows, self.offsets, self.gone, k, stride, range(len(rows)))

    def top_suspects(self, tops: Sequence[int]) -> list[tuple[int, int]]:
        """Add each step's latest rank (`rounds.tops_late`: a rank, -1 for none) to its suspects when it is one of
        the shard's, far ones too; how many of each per step."""
        where = {r: i for i, r in enumerate(self.ranks)}
        self.tops = [where.get(top, -1) for top in tops]
        self.suspect_rows = [with_top(gone, i) for gone, i in zip(self.suspect_rows, self.tops)]
        self.far_rows = [with_top(gone, i) for gone, i in zip(self.far_rows, self.tops)]
        return self._counted()

    def sums(self, leave: Sequence[bool]) -> list[tuple[float, float, float]]:
        """Per step, the sum of the shard's work on time (without its suspects where `leave` says so), as exact
        parts (`sum_parts`)."""
        return [
            sum_parts(without_places(row, gone) if out else row)
            for row, gone, out in zip(self.vectors["adjusted"], self.suspect_rows, leave)
        ]

    def deviations(self, references: Sequence[tuple[int, float, bool]]) -> tuple[int, int]:
        """Each rank-step's deviation (`chance.Reference`) against every rank's reference in its step (its count
        and sum, and whether the suspects are left out of it), and the deviations of positive work pooled (what
        chance is fitted on), and without each step's latest rank where `top_suspects` named them
        (`chance.without_top`); their counts."""
        self.references = [
            Reference(count, total, frozenset(gone) if leave else frozenset())
            for (count, total, leave), gone in zip(references, self.suspect_rows)
        ]
        tops = self.tops if self.tops is not None else repeat(-1)
        runs, on_time = pooled_runs(self._deviation_rows(), self.vectors["work"], tops)
        self._pool("deviations", runs)
        if self.tops is not None:
            self._pool("on_time", on_time)
        else:
            self.pooled.pop("on_time", None)
        return len(self.pooled["deviations"]), len(self.pooled.get("on_time", ()))

    def _deviation_rows(self) -> Iterator[array[float]]:
        """Each step's deviations against its reference, a step at a time: made where read, not held (pooled in
        order, they are what chance reads; past the floor, what the costs read)."""
        return map(Reference.deviations, self.references, self.vectors["adjusted"])

    def top_deviations(self) -> dict[int, float]:
        """By step index, the deviation of each step's latest rank (`rounds.tops_late`) that is one of the shard's
        and was measured (`chance.tops_floor` reads them)."""
        if self.tops is None:
            return {}
        rows, work = self.vectors["adjusted"], self.vectors["work"]
        return {j: rows[j][i] - self.references[j].mean for j, i in enumerate(self.tops) if i >= 0 and work[j][i] > 0}

    def lateness(self, tail: Tail, floor: float, top_floor: float = math.inf) -> list[tuple[int, Lateness]]:
        """Each of the shard's ranks' `chance.Lateness` (on its own work), by rank; and, held for the costs, each
        step's entries past the run's floor (`chance.past`), with its latest rank when past `top_floor`
        (`chance.with_latest`), and their deviations (`StepColumns.beyond_ms`), a step's deviations made and let go
        at a time."""
        tops = self.top_deviations() if top_floor < floor and self.tops is not None else {}
        self.beyond_rows = []
        self.beyond_ms: list[dict[int, float]] = []
        for j, row in enumerate(self._deviation_rows()):
            found = past(row, floor)
            if j in tops and self.tops is not None:
                found = with_latest(found, self.tops[j], tops[j], top_floor)
            self.beyond_rows.append(found)
            self.beyond_ms.append(dict(zip(found, gathered(row, found, "d"))))
        return list(zip(self.ranks, lateness(self.vectors["adjusted"], self.references, tail, self.vectors["work"])))

    def waits(
        self, released: Sequence[bool], latest: Sequence[float]
    ) -> list[tuple[float, tuple[float, float, float]]]:
        """Each rank's wait and first launch in each step (`measured.waits_of`, with every rank's flags and latest
        arrival); per step, the shard's earliest end of the earlier collectives and its waits' sum. What only chance
        read (`CHANCE_ONLY`) is let go: no later question reads it."""
        for key in CHANCE_ONLY:
            for held in (self.vectors, self.pooled, self.ordered):
                held.pop(key, None)
        self.wait_rows: list[array[float]] = []
        self.first_rows: list[array[float]] = []
        out = []
        for j, everyone in enumerate(released):
            wait, first, free = waits_of({name: self.columns[name][j] for name in WAITS_READ}, everyone, latest[j])
            self.wait_rows.append(wait)
            self.first_rows.append(first)
            out.append((free, sum_parts(wait)))
        self.vectors["wait"] = list(self.wait_rows)
        self._let_go_after_waits()
        return out

    def _let_go_after_waits(self) -> None:
        """The columns no question after the waits reads (`READ_AFTER_WAITS`), let go from the steps and from the
        tables (at 10^8 rank-steps, 12 bytes a rank-step less while the costs are read)."""
        gone = [name for name in STEP_COLUMNS if name not in READ_AFTER_WAITS]
        self.columns = {name: rows for name, rows in self.columns.items() if name not in gone}
        emptied: dict[str, Any] = dict.fromkeys(gone, ())
        self.tables = [replace(t, **emptied) for t in self.tables]

    def costs(self, middles: Sequence[tuple[int, dict[int, float]]]) -> dict:
        """Each rank-step's cost and gap against every rank's middle wait; per step the shard's slowest rank (its
        cost, rank); per rank its summary; and the pooled on-time costs, each rank's usual cost taken out (what
        `chance.cost_tail` fits). The costs are not held: made again from the waits where read (`CostRows`), and the
        gaps from them (at 10^8 rank-steps, 16 bytes a rank-step less at a node's peak)."""
        total = middles[0][0] if middles else len(self.ranks)
        places = [at for _, at in middles]
        self.cost_rows = CostRows(self.wait_rows, places, total)
        slowest = []
        for cost in self.cost_rows:
            i = cost.index(max(cost))
            slowest.append((cost[i], self.ranks[i]))
        across = Across.of(total, places)
        summaries = rank_summaries(
            self.tables, self.rows, {"wait_ms": self.wait_rows}, {}, medians=self.medians, across=across
        )
        usual = [s.median_cost_ms for s in summaries]
        count = self._pool("costs", on_time_costs(self.cost_rows, self.beyond_rows, usual))
        return {"slowest": slowest, "summaries": summaries, "costs": count}

    def _gaps(self, j: int, cost: Sequence[float]) -> array[float]:
        """Step j's gaps, from its costs."""
        return gaps_of(cost, self.columns["period_ms"][j])

    def over(self, threshold: float) -> list[int]:
        """Per step, how many of the shard's ranks are over the threshold. The pooled on-time costs are let go: the
        merge read their tail in the round before."""
        self.pooled.pop("costs", None)
        self.threshold = float(threshold)
        self.over_rows = [self._over(j, cost) for j, cost in enumerate(self.cost_rows)]
        return [len(o) for o in self.over_rows]

    def _over(self, j: int, cost: Sequence[float]) -> list[int]:
        """Step j's entries over the threshold, as a step's columns read them (`results.over_threshold`)."""
        return over_threshold(
            self._gaps(j, cost), self.columns["period_ms"][j], self.beyond_ms[j].items(), self.threshold
        )

    def _least(self, j: int, over: int) -> Sequence[float]:
        """Step j's smallest waits, as many as `read_entries` reads with `over` entries over the threshold: from the
        sorted copy a merge's rounds left, else picked (`heapq.nsmallest`)."""
        ordered = self.ordered.get("wait")
        held = ordered[j] if ordered is not None else None
        if held is not None:
            return held
        wait = self.wait_rows[j]
        return heapq.nsmallest(min(len(wait), over + KEPT + 1), wait)

    def entries(self, parts: Sequence[Sequence[str] | None], slowest: Sequence[int]) -> list[dict]:
        """Per step, the shard's entries a verdict reads: its ranks over the threshold, its ranks of least wait and
        of latest first launch (as many as its late ranks and one, and KEPT more), and the step's slowest rank; each
        with its columns, and whether it is beyond chance."""
        out = []
        where = {r: i for i, r in enumerate(self.ranks)}
        for j, (over, cost) in enumerate(zip(self.over_rows, self.cost_rows)):
            wait, first = self.wait_rows[j], self.first_rows[j]
            chosen = read_entries(wait, self._least(j, len(over)), first, over)
            if slowest[j] in where:
                chosen.add(where[slowest[j]])
            picked = sorted(chosen)
            beyond = set(self.beyond_rows[j])
            row = {
                "ranks": [self.ranks[i] for i in picked],
                "beyond": [i in beyond for i in picked],
                "beyond_ms": [self.beyond_ms[j][i] for i in picked if i in beyond],
                "period_ms": gathered(self.columns["period_ms"].raw(j), picked, "d"),
                "compute_ms": gathered(self.columns["compute_ms"].raw(j), picked, "d"),
                "cost_ms": gathered(cost, picked, "d"),
                "gap": gathered(self._gaps(j, cost), picked, "d"),
                "wait_ms": gathered(wait, picked, "d"),
                "work_ms": gathered(self.columns["work_ms"].raw(j), picked, "f"),
                "first_ms": gathered(first, picked, "f"),
            }
            if self.parts is not None and parts[j] is not None:
                row["parts_ms"] = {p: gathered(self.parts[p][j], picked, "f") for p in parts[j] or ()}
            out.append(row)
        return out


def order_stats(
    shards: Sequence[Shard], key: str, wanted: Sequence[Positions | None], last: bool = False
) -> list[list[float]]:
    """Each vector's sorted values at the wanted places (None: none wanted), over every shard, in two rounds; `last`:
    the vector is read no more (each shard lets go of its sorted copy: `Shard.between`).

    >>> from ddpcore.traces import simulated_run
    >>> shards = shards_of(simulated_run(6, 4, seed=1)[0], 2)
    >>> steps = shards[0].hello()["steps"]
    >>> _ = [s.begin(steps, steps, None) for s in shards]
    >>> every = sorted(v for s in shards for v in s.vectors["period"][0])
    >>> order_stats(shards, "period", [(1, 3)])[0] == every[1:4]
    True
    """
    if len(shards) == 1:
        return cast(list[list[float]], asked(shards, "at_places", key, wanted, last)[0])
    samples = asked(shards, "samples", key, wanted)
    brackets = [None if w is None else bracket([s[j] for s in samples], w) for j, w in enumerate(wanted)]
    answers = asked(shards, "between", key, brackets, last)
    out: list[list[float]] = []
    for j, w in enumerate(wanted):
        found = [a[j] for a in answers]
        if w is None or any(f is None for f in found):
            out.append([])
            continue
        out.append(Within.joined(cast(list[Within], found)).places(w[0], w[1] + 1))
    return out


class _Known(Sequence[float]):
    """Sorted values known at some places: what `Tail.of` reads of a vector of `length` values. Reading an unknown
    place records it (`wanted`), so that a first pass finds the places to ask for."""

    def __init__(self, length: int, known: dict[int, float] | None = None) -> None:
        self.length, self.known = length, known or {}
        self.wanted: set[int] = set()

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, k):  # type: ignore[no-untyped-def]
        if isinstance(k, slice):
            return _Known(len(range(*k.indices(self.length))), self.known)
        if k not in self.known:
            self.wanted.add(k)
            return 0.0
        return self.known[k]


class _Pooled(Sequence[float]):
    """A vector pooled over every shard, read as if sorted (what `chance.bulk_tail` and `chance.fdr_floor` read):
    a place by a round of `order_stats` (kept once asked), a count and a tail by a question to each shard; a prefix
    (`pooled[:k]`) is the same vector read no further."""

    def __init__(self, shards: Sequence[Shard], key: str, length: int, known: dict[int, float] | None = None):
        self.shards, self.key, self.length = shards, key, length
        self.known = {} if known is None else known

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, k):  # type: ignore[no-untyped-def]
        if isinstance(k, slice):
            start, stop, _ = k.indices(self.length)
            return _Pooled(self.shards, self.key, stop, self.known)
        if k < 0:
            k += self.length
        if k not in self.known:
            self.known[k] = order_stats(self.shards, self.key, [(k, k)])[0][0]
        return self.known[k]

    def count_upto(self, x: float) -> int:
        """How many values are at most x."""
        return min(self.length, sum(asked(self.shards, "count_upto", self.key, x)))

    def above(self, x: float) -> list[float]:
        """The values above x, in order."""
        return sorted(chain.from_iterable(asked(self.shards, "above", self.key, x)))

    def counts_upto(self, edges: Sequence[float]) -> list[int]:
        """How many values are at most each edge, each shard asked once."""
        answers = asked(self.shards, "counts_upto", self.key, edges)
        return [min(self.length, sum(column)) for column in zip(*answers)]


def _pooled_read(shards: Sequence[Shard], key: str, length: int, read: Callable[[Sequence[float]], T]) -> T:
    """`read` (of sorted values, by place) on the first `length` sorted values of a pooled vector: a first pass finds
    the places it reads, then a round of `order_stats` brings each run of them that lie close together
    (`runs_of_places`): the quantiles a tail is fitted through lie far apart, and one window over them all would
    bring nearly every value.

    >>> import random
    >>> from ddpcore.traces import simulated_run
    >>> rng, shards = random.Random(2), shards_of(simulated_run(6, 40, seed=2)[0], 2)
    >>> counts = [s._pool("x", [array("d", sorted(rng.gauss(0.0, 1.0) for _ in range(300)))]) for s in shards]
    >>> every = sorted(v for s in shards for v in s.pooled["x"])
    >>> _pooled_read(shards, "x", len(every), Tail.of) == Tail.of(every)
    True
    """
    probe = _Known(length)
    read(probe)
    places = sorted(probe.wanted)
    if not places:
        return read(probe)
    known: dict[int, float] = {}
    for first, last in runs_of_places(places, pooled_sample(length)):
        known |= dict(zip(range(first, last + 1), order_stats(shards, key, [(first, last)])[0]))
    return read(_Known(length, {k: known[k] for k in places}))


def runs_of_places(places: Sequence[int], gap: int) -> list[Positions]:
    """Sorted places cut into runs read each in a window of its own: a new run where the next place lies more than
    `gap` beyond the last (a window across that gap would bring the values between, a round of its own brings
    about as many as a sample).

    >>> runs_of_places([3, 4, 9, 500, 501, 10_000], 64)
    [(3, 9), (500, 501), (10000, 10000)]
    """
    runs: list[Positions] = []
    for k in places:
        if runs and k - runs[-1][1] <= gap:
            runs[-1] = (runs[-1][0], k)
        else:
            runs.append((k, k))
    return runs


class ShardRounds:
    """`rounds.Rounds` answered over shards of a run's ranks: each question asked of every shard (`Shard`), their
    answers merged exactly (order statistics in rounds, `order_stats`; pooled values read place by place,
    `_Pooled`). Entries are ranks."""

    def __init__(self, shards: Sequence[Shard], ranks: int, steps: int) -> None:
        self.shards, self.n, self.steps = shards, ranks, steps
        self.held_places: list[list[Place]] = []
        self.counts: list[int] = []
        self.skip: list[int] | None = None
        self.tops: list[int] | None = None

    def medians(self) -> list[float]:
        """Each step's median work (over every shard)."""
        wanted = [_median_places(self.n)] * self.steps
        return [_median(v, self.n) for v in order_stats(self.shards, "work", wanted, last=True)]

    def places(self, medians: Sequence[float]) -> list[Place]:
        """Every rank's usual place (over every shard)."""
        self.held_places = asked(self.shards, "places", medians)
        return [p for held in self.held_places for p in held]

    def adjust(self, usual: Sequence[float], medians: Sequence[float], base: float) -> None:
        """Each rank's usual offset taken out of its work (over every shard)."""
        starts = list(accumulate((len(held) for held in self.held_places), initial=0))
        asked_each(self.shards, "adjust", [(usual[a:b], medians, base) for a, b in zip(starts, starts[1:])])

    def unmeasured(self) -> list[int]:
        """Each step's count of works that are not a positive number (over every shard)."""
        self.skip = [sum(counts) for counts in zip(*asked(self.shards, "unmeasured"))]
        return self.skip

    def lower_looks(self, kept: Sequence[int] | None = None) -> list[tuple[float, float]]:
        """Each step's lower look, of its `kept` least measured works when given (over every shard; a step not asked,
        0, nan), its unmeasured ones (the least) left out: its sorted copies are let go after the first look, and a
        look again sorts only the steps asked."""
        skip = self.skip if self.skip is not None else self.unmeasured()
        counts = [self.n - z for z in skip] if kept is None else kept
        wanted = [(min(below_places(m)) + z, below_places(m)[0] + z) if m > 0 else None for m, z in zip(counts, skip)]
        return [
            lower_look(m, dict(zip(range(w[0], w[1] + 1), got)), z) if w is not None else (math.nan, math.nan)
            for m, z, w, got in zip(counts, skip, wanted, order_stats(self.shards, "adjusted", wanted, last=True))
        ]

    def suspects(self, cuts: Sequence[float], far: Sequence[float]) -> list[int]:
        """Each step's suspects held, and the far ones among them (over every shard); how many far ones a step."""
        return self._summed(asked(self.shards, "suspects", cuts, far))

    def _summed(self, answers: Sequence[Sequence[tuple[int, int]]]) -> list[int]:
        """Each step's suspects over every shard kept (`counts`, what its reference leaves out); its far ones."""
        per_step = [tuple(map(sum, zip(*pairs))) for pairs in zip(*answers)]
        self.counts = [held for held, _ in per_step]
        return [far for _, far in per_step]

    def held(self) -> Counter[int]:
        """How many suspects each rank holds (over every shard)."""
        held: Counter[int] = Counter()
        for some in asked(self.shards, "suspects_held"):
            held.update(some)
        return held

    def leads(self, crowded: frozenset[int]) -> list[Lead]:
        """Each step's latest two ranks not crowded (over every shard)."""
        return [reduce(Lead.joined, per_step) for per_step in zip(*asked(self.shards, "leads", crowded))]

    def read_recentred(self, leads: Sequence[Lead], stride: int, read: Callable[[Sequence[float]], T]) -> T:
        """`read` of the works pooled against their steps' means (over every shard)."""
        length = sum(asked(self.shards, "recentre", leads, stride))
        return _pooled_read(self.shards, "recentred", length, read)

    def top_places(self, k: int, stride: int) -> list[tuple[float, int]]:
        """The k largest works not crowded, offsets out, with their steps (over every shard)."""
        return heapq.nlargest(k, chain.from_iterable(asked(self.shards, "top_places", k, stride)))

    def top_suspects(self, tops: Sequence[int]) -> list[int]:
        """Each step's latest rank added to its suspects (over every shard); how many far ones a step."""
        self.tops = list(tops)
        return self._summed(asked(self.shards, "top_suspects", tops))

    def top_deviations(self) -> list[float]:
        """Each step's latest rank's deviation, for the steps whose latest rank was measured (over every shard)."""
        found: dict[int, float] = {}
        for some in asked(self.shards, "top_deviations"):
            found.update(some)
        return [found[j] for j in sorted(found)]

    def deviations(self) -> tuple[Sequence[float], Sequence[float] | None]:
        """Each step's reference is the sum of its ranks on time over every shard (exact parts, `sum_parts`), the
        suspects left out unless none would be left."""
        leave = [0 < c < self.n for c in self.counts]
        parts = asked(self.shards, "sums", leave)
        references = [
            (self.n - c if out else self.n, math.fsum(p for shard in parts for p in shard[j]), out)
            for j, (c, out) in enumerate(zip(self.counts, leave))
        ]
        answers = asked(self.shards, "deviations", references)
        pooled = _Pooled(self.shards, "deviations", sum(total for total, _ in answers))
        if self.tops is None:
            return pooled, None
        return pooled, _Pooled(self.shards, "on_time", sum(kept for _, kept in answers))


def _middles(shards: Sequence[Shard], key: str, n: int, steps: int) -> list[tuple[int, dict[int, float]]]:
    """Each step's sorted values at the three middle places of `n` (what `chance.others_at` reads)."""
    h = (n - 1) // 2
    first, last = max(0, h - 1), min(n - 1, h + 1)
    got = order_stats(shards, key, [(first, last)] * steps)
    return [(n, dict(zip(range(first, last + 1), g))) for g in got]


def _median(values: Sequence[float], n: int) -> float:
    """`statistics.median` from the sorted values at its middle places (`_median_places`)."""
    return values[0] if n % 2 else (values[0] + values[1]) / 2


def _median_places(n: int) -> Positions:
    return (n // 2, n // 2) if n % 2 else (n // 2 - 1, n // 2)


@dataclass(frozen=True)
class _Run:
    """What the shards say first: every rank in order, the common steps, the parts kept, whether a load part is
    marked, the ranks holding the same steps, and the world sizes the files declare."""

    ranks: tuple[int, ...]
    common: list[int]
    parts: list[str] | None
    load_marked: bool
    copies: list[tuple[int, int]]
    worlds: list[int]


def _one_run(hellos: Sequence[dict]) -> None:
    """Refuse shards of different runs (`runs`): each shard kept the largest run among its own files, and its first
    rank's releases must drift from the first shard's within the larger of the two shards' own bounds."""
    first = hellos[0]
    for h in hellos[1:]:
        if not (h["releases"] and first["releases"]):
            continue
        apart = drift(h["releases"][0], first["releases"][0])
        if apart is not None and apart > max(h["bound"], first["bound"]):
            raise AnalysisError(
                "run.shards_apart",
                rank=h["ranks"][0],
                source=h["sources"][0],
                first=first["ranks"][0],
                first_source=first["sources"][0],
                drift=f"{apart:.2f}",
            )


def _run_of(hellos: Sequence[dict]) -> _Run:
    ranks = sorted(r for h in hellos for r in h["ranks"])
    if len(set(ranks)) != len(ranks):
        twice = next(r for r, n in Counter(ranks).items() if n > 1)
        raise AnalysisError("run.shard_twice", rank=twice)
    if len(ranks) < 2:
        raise AnalysisError("run.two_ranks")
    common = set.intersection(*(set(h["steps"]) for h in hellos))
    if not common:
        raise AnalysisError("run.no_common_step")
    _one_run(hellos)
    seen: dict[bytes, int] = {}
    copies = []
    for rank, digest in sorted((r, d) for h in hellos for r, d in zip(h["ranks"], h["digests"])):
        if digest in seen:
            copies.append((seen[digest], rank))
        else:
            seen[digest] = rank
    parted = all(h["parted"] for h in hellos)
    kept = {p for h in hellos for p in h["parts"]}
    return _Run(
        tuple(ranks),
        sorted(common),
        [p for p in CAUSES if p in kept] if parted else None,
        any(h["load_marked"] for h in hellos),
        copies,
        [w for h in hellos for w in h["worlds"]],
    )


ROUNDS = ("steps", "chance", "waits", "middles", "entries")
"""The rounds of `measure_shards`, in order: what its `progress` hears before each."""


def measure_shards(
    shards: Sequence[Shard], threshold: float = THRESHOLD.default, progress: Callable[[str], None] | None = None
) -> Measured:
    """What every shard's ranks measure, kept to the entries a verdict at `threshold` reads (module docstring): the
    one pipeline of a measure at a threshold, whether its ranks are one shard in this process, shards in forked
    processes that read their own files (`parted.measure_parts`, `cli.fork.forked_parts`) or on the nodes of a Ray
    cluster (`cli.onray`). `progress` hears each round's name (ROUNDS) before it.

    >>> from ddpcore.traces import simulated_run
    >>> measured = measure_shards([Shard(simulated_run(4, 6, persistent=(1,), seed=0)[0])], 0.1)
    >>> len(measured.steps), measured.threshold
    (6, 0.1)
    """
    THRESHOLD.check(threshold)
    told = progress or (lambda _: None)
    told("steps")
    run = _run_of(asked(shards, "hello"))
    common = run.common
    warmup = WARMUP_STEP in common and len(common) > 1
    if warmup:
        common = [n for n in common if n != WARMUP_STEP]
    began = asked(shards, "begin", common, run.common, run.parts)
    n, steps = len(run.ranks), len(common)

    told("chance")
    found = chance_in_rounds(ShardRounds(shards, n, steps), n, steps)
    others = chance_of_others(_work_by_rank(asked(shards, "work_rows"), steps)) if alone_measured(n) else ()
    work_tail, floor, total = found.tail, found.floor_ms, found.total
    spread = Atoms.of_sorted(found.pooled)
    lateness_of = dict(chain.from_iterable(asked(shards, "lateness", work_tail, floor, found.top_floor)))
    count, first_bad = 0, None
    for b in began:
        c, f = b["unmeasured"]
        count += c
        if f is not None and (
            first_bad is None or (common.index(f[0]), f[1]) < (common.index(first_bad[0]), first_bad[1])
        ):
            first_bad = f

    told("waits")
    released = [all(b["released"][j] for b in began) for j in range(steps)]
    latest = [max(b["latest"][j] for b in began) for j in range(steps)]
    waited = asked(shards, "waits", released, latest)
    free = [min(w[j][0] for w in waited) for j in range(steps)]
    wait_sums = [math.fsum(part for w in waited for part in w[j][1]) for j in range(steps)]
    costed = asked(shards, "costs", _middles(shards, "wait", n, steps))
    slowest = [max((c["slowest"][j][0], -c["slowest"][j][1]) for c in costed)[1] * -1 for j in range(steps)]
    ranks_counted = Counter(slowest)
    summaries = sorted((r for c in costed for r in c["summaries"]), key=lambda r: r.rank)
    summaries = [replace(r, slowest_count=ranks_counted[r.rank], lateness=lateness_of[r.rank]) for r in summaries]
    cost_tail = _pooled_read(shards, "costs", sum(c["costs"] for c in costed), Tail.of)

    told("middles")
    over = [sum(o) for o in zip(*asked(shards, "over", threshold))]
    widths = [max(KEPT, k) for k in over]
    wait_windows = order_stats(shards, "wait", [_window(n, k) for k in widths], last=True)
    period_medians = [_median(v, n) for v in order_stats(shards, "period", [_median_places(n)] * steps, last=True)]
    step_parts: list[list[str] | None] = [None] * steps
    part_windows: dict[str, list[list[float]]] = {}
    if run.parts is not None:
        step_parts = [[p for p in run.parts if any(b["parts_any"][p][j] for b in began)] for j in range(steps)]
        for p in run.parts:
            wanted = [_window(n, k) if p in sp else None for k, sp in zip(widths, step_parts)]  # type: ignore[operator]
            part_windows[p] = order_stats(shards, f"part:{p}", wanted, last=True)

    told("entries")
    pieces = asked(shards, "entries", step_parts, slowest)
    from_release = [all(b["from_release"][j] for b in began) for j in range(steps)]
    longest = [max(b["longest"][j] for b in began) for j in range(steps)]
    summarised = []
    for j, number in enumerate(common):
        columns = _columns(
            [p[j] for p in pieces],
            step_parts[j],
            released[j] and from_release[j],
            free[j],
            slowest[j],
            Middle(tuple(wait_windows[j]), _window(n, widths[j])[0], n, widths[j]),
            _part_middles(part_windows, j, step_parts[j], n, widths[j]),
        )
        solo = columns.solo_entry
        summarised.append(
            StepSummary(
                step=number,
                slowest_rank=slowest[j],
                median_step_ms=period_medians[j],
                max_step_ms=longest[j],
                gap=columns.gap[solo],
                extra_ms=columns.cost_ms[solo],
                late_ranks=(),
                columns=columns,
                drawn=(),
                released=released[j],
            )
        )
    warnings = caveats_of(
        RunFacts(
            partial=sorted(e for b in began for e in b["extra"]),
            warmup=warmup,
            steps=steps,
            ranks=n,
            world=max(run.worlds, default=0),
            unmeasured=count,
            first_unmeasured=first_bad,
            copies=run.copies,
            unreleased=sum(not r for r in released),
            logged=run.parts is not None and FORWARD_BACKWARD in run.parts,
        )
    )
    periods = [s.median_step_ms for s in summarised]
    return Measured(
        steps=tuple(summarised),
        ranks=tuple(summaries),
        warnings=warnings,
        rank_map=RankStepMap((), (), (), (), ()),
        chance=Chance(
            n,
            work_tail,
            floor,
            cost_tail,
            total,
            spread,
            serial_of(found.places, steps),
            found.tops is not None,
            found.costed,
            others,
            found.top_floor,
            found.spaced,
            found.led,
        ),
        step_ms=statistics.fmean(periods),
        median_step_ms=statistics.median(periods),
        median_gap=statistics.median(s.gap for s in summarised),
        wait_ms_total=statistics.fmean(wait_sums),
        load_marked=run.load_marked,
        threshold=threshold,
    )


def _work_by_rank(parts: Sequence[tuple[Sequence[int], Sequence[Sequence[float]]]], steps: int) -> list[list[float]]:
    """Each step's work of every rank, in rank order, from each shard's ranks and rows (`Shard.work_rows`)."""
    order = sorted((rank, k, i) for k, (ranks, _) in enumerate(parts) for i, rank in enumerate(ranks))
    return [[parts[k][1][j][i] for _, k, i in order] for j in range(steps)]


def _part_middles(
    windows: dict[str, list[list[float]]], j: int, parts: Sequence[str] | None, n: int, kept: int
) -> dict[str, Middle] | None:
    """Step j's middle of each part it spent time in (None when some rank keeps no parts)."""
    if parts is None:
        return None
    return {p: Middle(tuple(windows[p][j]), _window(n, kept)[0], n, kept) for p in parts}


def _window(n: int, kept: int) -> Positions:
    below, end = Middle.window(n, kept)
    return below, end - 1


def _columns(
    pieces: Sequence[dict],
    parts: Sequence[str] | None,
    from_release: bool,
    free: float,
    slowest: int,
    waits: Middle,
    middles: dict[str, Middle] | None,
) -> StepColumns:
    """A step's columns over the entries its shards sent, in rank order, with the step's own middles."""
    ranks = [r for p in pieces for r in p["ranks"]]
    order = order_of(ranks)

    def joined(name: str, typecode: str) -> array:
        every = array(typecode)
        for p in pieces:
            every.extend(p[name])
        return gathered(every, order, typecode)

    wait, first, cost = joined("wait_ms", "d"), joined("first_ms", "f"), joined("cost_ms", "d")
    beyond_all = [b for p in pieces for b in p["beyond"]]
    late_ms = iter([v for p in pieces for v in p["beyond_ms"]])
    beyond_ms = [next(late_ms) if b else math.nan for b in beyond_all]
    in_order_ranks = tuple(ranks[i] for i in order)
    solo = in_order_ranks.index(slowest)
    part_columns: dict[str, Sequence[float]] | None = None
    if parts is not None:
        part_columns = {}
        for name in parts:
            every = array("f")
            for p in pieces:
                every.extend(p["parts_ms"][name])
            part_columns[name] = gathered(every, order, "f")
    return StepColumns(
        ranks=in_order_ranks,
        period_ms=joined("period_ms", "d"),
        compute_ms=joined("compute_ms", "d"),
        cost_ms=cost,
        gap=joined("gap", "d"),
        wait_ms=wait,
        work_ms=joined("work_ms", "f"),
        parts_ms=part_columns,
        from_release=from_release,
        first_ms=first,
        free_ms=free,
        solo_entry=solo,
        solo_saved_ms=retimed_saving(wait, first, free, {solo: cost[solo]}),
        beyond=tuple(k for k, i in enumerate(order) if beyond_all[i]),
        beyond_ms=tuple(beyond_ms[i] for i in order if beyond_all[i]),
        waits=waits,
        parts=middles,
        lowest=tuple(order_of(wait)),
    )


def shards_of(ranks: Sequence[RankTrace | RankFacts | RankColumns], count: int) -> list[Shard]:
    """The ranks cut into `count` shards of consecutive ranks (a test's, or a machine's own processes').

    >>> from ddpcore.traces import simulated_run
    >>> [s.ranks for s in shards_of(simulated_run(5, 3, seed=1)[0], 2)]
    [(0, 1, 2), (3, 4)]
    """
    tables = sorted((table_of(r) for r in ranks), key=lambda t: t.rank)
    size = -(-len(tables) // count)
    return [Shard(tables[k : k + size]) for k in range(0, len(tables), size)]
