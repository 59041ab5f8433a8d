"""Measured steps: which rank arrives last at the collective, by how much, and what it costs everyone.

Every rank leaves a step's collective together, so every rank's step lasts about as long: "slowest" cannot mean
the longest step. It means the rank that arrives last at the collective, the longest time from the step's start
to its first collective. With DDP that first collective is launched during backward, and the other ranks' wait
hides inside their collectives: arrival, not duration, shows it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from .traces import TRACE_PHASES, Event, RankStep, RankTrace

DEFAULT_MIN_GAP = 0.05
DRAW_PHASES = (*TRACE_PHASES, "idle")


@dataclass(frozen=True)
class Span:
    phase: str
    start_ms: float
    end_ms: float


@dataclass(frozen=True)
class StepRank:
    """One rank in one step, on the step's common clock (ranks aligned on the end of the step's collective)."""

    rank: int
    step_ms: float
    arrival_ms: float
    wait_ms: float
    phases_ms: dict[str, float]
    spans: tuple[Span, ...]
    start_ms: float
    end_ms: float


@dataclass(frozen=True)
class StepSummary:
    step: int
    slowest_rank: int
    median_step_ms: float
    max_step_ms: float
    gap: float
    extra_ms: float
    ranks: tuple[StepRank, ...]


@dataclass(frozen=True)
class RankSummary:
    rank: int
    source: str
    median_step_ms: float
    median_phases_ms: dict[str, float]
    median_arrival_ms: float
    median_wait_ms: float
    slowest_count: int


@dataclass(frozen=True)
class Analysis:
    ranks: tuple[RankSummary, ...]
    steps: tuple[StepSummary, ...]
    straggler_rank: int | None
    median_gap: float
    step_ms: float
    straggler_cost_ms: float
    ideal_step_ms: float
    efficiency: float
    wait_ms_total: float
    warnings: tuple[str, ...]


class AnalysisError(ValueError):
    """Traces that load but cannot be compared (fewer than two ranks, no common step)."""


def union_ms(events: Sequence[Event]) -> float:
    total, end = 0.0, float("-inf")
    for e in sorted(events, key=lambda e: e.start_ms):
        if e.end_ms > end:
            total += e.end_ms - max(e.start_ms, end)
            end = e.end_ms
    return total


def _spans(step: RankStep, shift: float) -> tuple[Span, ...]:
    """Per phase, merged intervals; the idle gaps between them drawn as idle."""
    spans = []
    for phase in TRACE_PHASES:
        merged: list[list[float]] = []
        for e in sorted((e for e in step.events if e.phase == phase), key=lambda e: e.start_ms):
            if merged and e.start_ms <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e.end_ms)
            else:
                merged.append([e.start_ms, e.end_ms])
        spans.extend(Span(phase, a + shift, b + shift) for a, b in merged)
    return tuple(sorted(spans, key=lambda s: (s.start_ms, s.phase)))


def _arrival(step: RankStep) -> float:
    """Time from the step's start to its first collective; without collectives, to the end of backward."""
    if step.collectives:
        return min(e.start_ms for e in step.collectives) - step.start_ms
    backward = [e.end_ms for e in step.events if e.phase == "backward"]
    return (max(backward) if backward else step.end_ms) - step.start_ms


def _anchor(step: RankStep) -> float:
    """The instant every rank shares: the end of the step's collective (else the step's end)."""
    return max(e.end_ms for e in step.collectives) if step.collectives else step.end_ms


def _summarise_step(step: int, per_rank: dict[int, RankStep]) -> StepSummary:
    arrivals = {r: _arrival(s) for r, s in per_rank.items()}
    latest = max(arrivals.values())
    slowest = max(sorted(arrivals), key=lambda r: arrivals[r])
    median_arrival = statistics.median(arrivals.values())
    lead = max(_anchor(s) - s.start_ms for s in per_rank.values())
    ranks = []
    for r, s in sorted(per_rank.items()):
        shift = lead - _anchor(s)
        phases = {p: union_ms([e for e in s.events if e.phase == p]) for p in TRACE_PHASES}
        phases["idle"] = max(0.0, (s.end_ms - s.start_ms) - union_ms(s.events))
        ranks.append(StepRank(r, s.end_ms - s.start_ms, arrivals[r], latest - arrivals[r], phases, _spans(s, shift),
                              s.start_ms + shift, s.end_ms + shift))
    durations = [x.step_ms for x in ranks]
    gap = latest / median_arrival - 1 if median_arrival > 0 else 0.0
    return StepSummary(step, slowest, statistics.median(durations), max(durations), gap, latest - median_arrival,
                       tuple(ranks))


def analyze(traces: Sequence[RankTrace], min_gap: float = DEFAULT_MIN_GAP) -> Analysis:
    if len(traces) < 2:
        raise AnalysisError("need traces of at least two ranks to compare them")
    warnings = []
    step_sets = {t.rank: {s.step for s in t.steps} for t in traces}
    common = set.intersection(*step_sets.values())
    if not common:
        raise AnalysisError("the ranks' traces share no step number: were they recorded in the same run?")
    for t in traces:
        extra = len(step_sets[t.rank] - common)
        if extra:
            warnings.append(f"rank {t.rank} ({t.source}): {extra} step(s) not in every rank's trace, left out")
    worlds = {t.world_size for t in traces if t.world_size}
    if worlds and max(worlds) > len(traces):
        warnings.append(f"world size {max(worlds)} but {len(traces)} rank(s) loaded: the straggler may be elsewhere")
    by_rank = {t.rank: {s.step: s for s in t.steps} for t in traces}
    steps = tuple(_summarise_step(n, {r: by_rank[r][n] for r in by_rank}) for n in sorted(common))
    ranks = []
    for t in traces:
        mine = [x for s in steps for x in s.ranks if x.rank == t.rank]
        ranks.append(
            RankSummary(
                rank=t.rank,
                source=t.source,
                median_step_ms=statistics.median(x.step_ms for x in mine),
                median_phases_ms={p: statistics.median(x.phases_ms[p] for x in mine) for p in DRAW_PHASES},
                median_arrival_ms=statistics.median(x.arrival_ms for x in mine),
                median_wait_ms=statistics.median(x.wait_ms for x in mine),
                slowest_count=sum(1 for s in steps if s.slowest_rank == t.rank),
            )
        )
    median_gap = statistics.median(s.gap for s in steps)
    top = max(ranks, key=lambda r: (r.slowest_count, -r.rank))
    stands_out = top.slowest_count * 2 >= len(steps) and median_gap >= min_gap
    step_ms = statistics.median(s.max_step_ms for s in steps)
    cost = statistics.median(s.extra_ms for s in steps)
    return Analysis(
        ranks=tuple(ranks),
        steps=steps,
        straggler_rank=top.rank if stands_out else None,
        median_gap=median_gap,
        step_ms=step_ms,
        straggler_cost_ms=cost,
        ideal_step_ms=step_ms - cost,
        efficiency=(step_ms - cost) / step_ms if step_ms > 0 else 1.0,
        wait_ms_total=statistics.median(sum(x.wait_ms for x in s.ranks) for s in steps),
        warnings=tuple(warnings),
    )
