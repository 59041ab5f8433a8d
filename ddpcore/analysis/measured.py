"""Measured steps: how long each rank waited at each step's gradient barrier, and what the threshold does not change.

Every rank leaves a step's gradient collective together (the release), so every rank's step lasts about as long:
"slowest" cannot mean the longest step, nor the latest from its own step start (time lost before the step starts,
or after its first bucket, moves that start or only later buckets). It means the rank that waited least at the
barrier: the others were waiting for it.

A rank's wait, cost and gap in a step are `stepwise`'s; a rank over the run is `rankwise`'s.

How late ranks are by chance is measured here too (`chance`), on the ranks that are on time: each rank-step's work
against the other ranks' median, its rank's usual offset taken out, and the floor that the latest of N on-time
ranks passes in one step in a thousand. That does not depend on the threshold either.

This module runs where the traces are read (the command line, the page's worker); `verdict` judges its result at a
threshold, again at each new one, without the traces.
"""

from __future__ import annotations

import math
import statistics
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import chain
from typing import TypeVar

from ..base.phases import CAUSES, FORWARD_BACKWARD, LOAD
from ..base.words import Message
from ..storage.fan import Fan, block_rows, ranges
from ..traces import FileError, Loaded, RankColumns, RankFacts, RankTrace, table_of
from ..traces.parse import Ranked
from .caveats import RunFacts, caveats_of
from .chance import Across, Chance, cost_tail
from .rankmap import MAX_ROWS, Cells, bins_of, map_of
from .rankwise import rank_summaries
from .results import AnalysisError, Measured, StepSummary
from .rounds import beyond_chance, chance_of_others
from .runs import copies, runs_of
from .stepwise import CostRows, _at, _common_steps, _parts_at, _summarise_step, rows_of, step_major, unmeasured

__all__ = ["measure", "measure_loaded", "one_run", "RUN"]

StepsDone = Callable[[int, int], None]

"""Told the common steps measured so far and their count."""


def _each_of(count: int) -> list[range]:
    """A step at a time, in this process: progress after each."""
    return [range(j, j + 1) for j in range(count)]


def measure(
    ranks: Sequence[RankTrace | RankFacts | RankColumns],
    progress: StepsDone | None = None,
    fan: Fan = map,
) -> Measured:
    """Everything the threshold does not change: the ranks' common steps, each rank's wait, cost and spans, and how
    late ranks are by chance. `progress` hears how many of the common steps are measured, after each (0 first, once
    chance is measured: for 10^7 rank-steps each part lasts tens of seconds; a range of them at a time when
    `fan` sends them to other processes).

    The costly part of an analysis (kernel unions over every step of every rank): the page's worker runs it next to
    the reader and hands the page this, which the page judges again at each threshold without the traces. Works on
    columns: a step's ranks are arrays, and only the ranks drawn get an object. `fan` (`storage.Fan`) runs the steps,
    then the ranks, a range at a time, and so does what chance and the copies read. A measure kept to one threshold
    (the command line's) is `shards.measure_shards`'s, over the same rounds (`rounds.chance_in_rounds`).

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
    kept_causes = [p for p in CAUSES if any(p in k for k in kept)] if parted else None
    major = step_major(tables, rows, kept_causes)
    by_rank, flags, parts = major.columns, major.flags, major.parts

    block = block_rows(len(tables))

    def work_of(steps: range) -> list[Sequence[float]]:
        return [by_rank["work_ms"].at(j) for j in steps]

    work = list(chain.from_iterable(fan(work_of, ranges(len(common), len(tables), block))))
    beyond = beyond_chance(work, fan)
    others = chance_of_others(work)
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
                _at(stepwise, j),
                _parts_at(parts, j) if parts is not None else None,
                beyond.entries[j],
                map_rows,
                beyond.past_ms[j],
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
            logged=kept_causes is not None and FORWARD_BACKWARD in kept_causes,
        )
    )
    slowest = Counter(s.slowest_rank for s in steps)
    summaries = tuple(
        replace(r, lateness=late)
        for r, late in zip(
            rank_summaries(tables, rows, {"wait_ms": waits}, slowest, fan, across=Across.of(len(tables), places)),
            beyond.ranks,
        )
    )
    periods = [s.median_step_ms for s in steps]
    return Measured(
        steps=steps,
        ranks=summaries,
        warnings=warnings,
        rank_map=map_of(common, map_rows, cells),
        chance=Chance(
            len(tables),
            beyond.tail,
            beyond.floor_ms,
            cost_tail(CostRows(waits, places), beyond.entries, [r.median_cost_ms for r in summaries], fan),
            beyond.total,
            beyond.spread,
            beyond.serial,
            beyond.leads,
            beyond.costed,
            others,
            beyond.top_floor,
            beyond.spaced,
            beyond.led,
        ),
        step_ms=statistics.fmean(periods),
        median_step_ms=statistics.median(periods),
        median_gap=statistics.median(s.gap for s in steps),
        wait_ms_total=statistics.fmean(math.fsum(w) for w in waits),
        load_marked=any(LOAD in (t.parts_ms or {}) for t in tables),
    )


RUN = "—"

"""The source of the one error line that is not one file's: the files read cannot be compared."""


def measure_loaded(
    loaded: Loaded, progress: StepsDone | None = None, fan: Fan = map
) -> tuple[Measured | None, tuple[FileError, ...]]:
    """The readable files' whole measure, which the page judges again at each threshold (`measure`, a step at a time
    through `fan`, told to `progress`); when they cannot be compared, None and why, as one more error line (source
    RUN). A measure at one threshold reads its files in parts instead, where they are measured
    (`parted.measure_parts`), so that no process holds them all.

    >>> from ddpcore.traces import Loaded, simulated_run
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> m, errors = measure_loaded(Loaded(tuple(ranks), ()))
    >>> len(m.ranks), errors, len(m.steps)
    (8, (), 30)
    """
    try:
        tables, errors = one_run(loaded, fan)
        return measure(tables, progress, fan), errors
    except AnalysisError as exc:
        return None, (*loaded.errors, FileError(RUN, exc.message))


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
    kept, others = the_run(runs_of(tables, fan))
    return list(kept), (*loaded.errors, *others)


R = TypeVar("R", bound=Ranked)


def the_run(groups: Sequence[Sequence[R]]) -> tuple[Sequence[R], tuple[FileError, ...]]:
    """The largest of the runs found (groups of ranks read, largest first: `runs.runs_of`, `runs.run_groups`) and a
    line for each file of another; AnalysisError when two are as large (none is analysed): one rule for a run read
    in this process (`one_run`) and for one read in parts (`parted`)."""
    if len(groups) > 1 and len(groups[0]) == len(groups[1]):
        named = "; ".join(", ".join(t.source for t in g) for g in groups)
        raise AnalysisError("run.runs", count=len(groups), groups=named)
    kept = groups[0] if groups else ()
    said = ", ".join(t.source for t in kept[:3]) + (", …" if len(kept) > 3 else "")
    line = Message.of("file.another_run", count=len(kept), kept=said)
    return kept, tuple(FileError(t.source, line) for g in groups[1:] for t in g)
