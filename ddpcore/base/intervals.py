"""Named time intervals and the little algebra the traces need: union, intersection, exclusive partition.

One type serves the model's schedule and the measured traces: a phase (or kind) name, a start and an end in ms.

>>> union_ms([Interval("k", 0, 4), Interval("k", 2, 6), Interval("k", 10, 11)])
7.0
>>> intersection_ms(merge([Interval("a", 0, 10)]), merge([Interval("b", 5, 20)]))
5.0
>>> [(i.phase, i.start_ms, i.end_ms) for i in partition([Interval("backward", 0, 10), Interval("allreduce", 8, 12)],
...                                                      ("backward", "allreduce"))]
[('backward', 0, 10), ('allreduce', 10, 12)]
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["Interval", "Spans", "clip", "intersection_ms", "merge", "partition", "union_ms"]


class Interval(NamedTuple):
    """A named span of time: `phase` is a phase of a step, or the kind of a collective or a kernel. A named tuple:
    schedules and traces make tens of thousands, and compare and hash them (lanes that ran alike share a drawing)."""

    phase: str
    start_ms: float
    end_ms: float

    @property
    def duration_ms(self) -> float:
        """Length in ms."""
        return self.end_ms - self.start_ms


@dataclass(frozen=True)
class Spans:
    """Disjoint spans grouped by name, each group's bounds in one flat array (start, end, start, end, …).

    A GPU step holds hundreds of merged kernel spans per rank: as Interval objects they would be most of an
    analysis's size, and of the time the page spends unpickling what its worker measured. Iterating gives Intervals.

    >>> s = Spans.of([("compute", [(0.0, 1.0), (2.0, 3.0)])], shift=10.0)
    >>> [(i.phase, i.start_ms, i.end_ms) for i in s], len(s)
    ([('compute', 10.0, 11.0), ('compute', 12.0, 13.0)], 2)
    """

    rows: tuple[tuple[str, array], ...] = ()

    @staticmethod
    def of(groups: Iterable[tuple[str, Iterable[tuple[float, float]]]], shift: float = 0.0) -> Spans:
        """Spans from (name, (start, end) pairs) groups, every bound moved by `shift`."""
        rows = []
        for name, pairs in groups:
            bounds = array("d", (t + shift for pair in pairs for t in pair))
            if bounds:
                rows.append((name, bounds))
        return Spans(tuple(rows))

    def joined(self, gap_ms: float) -> Spans:
        """Spans of a name closer than `gap_ms` made one: drawn at a pixel per `gap_ms`, the gap would not show.

        >>> Spans.of([("k", [(0, 1), (1.2, 2), (5, 6)])]).joined(0.5).rows[0][1].tolist()
        [0.0, 2.0, 5.0, 6.0]
        """
        rows = []
        for name, bounds in self.rows:
            out = array("d", bounds[:2])
            for k in range(2, len(bounds), 2):
                if bounds[k] - out[-1] < gap_ms:
                    out[-1] = max(out[-1], bounds[k + 1])
                else:
                    out.extend(bounds[k : k + 2])
            rows.append((name, out))
        return Spans(tuple(rows))

    def shifted(self, shift: float) -> Spans:
        """Every span moved by `shift` ms."""
        return (
            Spans(tuple((name, array("d", (t + shift for t in bounds))) for name, bounds in self.rows))
            if shift
            else self
        )

    def end_ms(self, default: float) -> float:
        """Where the last span ends (rows are sorted), or `default` when there is none."""
        return max((bounds[-1] for _, bounds in self.rows), default=default)

    def __iter__(self) -> Iterator[Interval]:
        for name, bounds in self.rows:
            for k in range(0, len(bounds), 2):
                yield Interval(name, bounds[k], bounds[k + 1])

    def __len__(self) -> int:
        return sum(len(bounds) // 2 for _, bounds in self.rows)


def merge(intervals: Iterable[Interval]) -> list[tuple[float, float]]:
    """The union of the intervals as sorted, disjoint (start, end) pairs."""
    merged: list[list[float]] = []
    for i in sorted(intervals, key=lambda i: i.start_ms):
        if merged and i.start_ms <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], i.end_ms)
        else:
            merged.append([i.start_ms, i.end_ms])
    return [(a, b) for a, b in merged]


def union_ms(intervals: Iterable[Interval]) -> float:
    """Time covered by at least one interval (overlaps counted once)."""
    return float(sum(b - a for a, b in merge(intervals)))


def intersection_ms(a: Sequence[tuple[float, float]], b: Sequence[tuple[float, float]]) -> float:
    """Time covered by both of two merged unions (as `merge` returns them)."""
    total, i, j = 0.0, 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def clip(intervals: Iterable[Interval], start_ms: float, end_ms: float) -> list[Interval]:
    """The parts of the intervals inside [start_ms, end_ms).

    >>> clip([Interval("forward", 0.0, 10.0), Interval("backward", 10.0, 30.0)], 5.0, 20.0)
    [Interval(phase='forward', start_ms=5.0, end_ms=10.0), Interval(phase='backward', start_ms=10.0, end_ms=20.0)]
    """
    out = []
    for i in intervals:
        a, b = max(i.start_ms, start_ms), min(i.end_ms, end_ms)
        if b > a:
            out.append(Interval(i.phase, a, b))
    return out


def partition(intervals: Iterable[Interval], priority: Sequence[str]) -> list[Interval]:
    """Each instant goes to one phase: the first in `priority` among those running then; others are dropped.

    Measured phases overlap (DDP launches its AllReduce while backward still runs, on another thread); an exclusive
    partition makes a rank's phases add up to at most its step, and shows communication only where nothing else ran.
    """
    rank_of = {p: n for n, p in enumerate(priority)}
    events: list[tuple[float, int, int]] = []
    for i in intervals:
        if i.phase in rank_of and i.end_ms > i.start_ms:
            events.append((i.start_ms, 1, rank_of[i.phase]))
            events.append((i.end_ms, 0, rank_of[i.phase]))
    events.sort()
    active = [0] * len(priority)
    heap: list[int] = []
    out: list[Interval] = []
    current: int | None = None
    since = 0.0
    for t, opening, r in events:
        if opening:
            active[r] += 1
            heapq.heappush(heap, r)
        else:
            active[r] -= 1
        while heap and active[heap[0]] == 0:
            heapq.heappop(heap)
        top = heap[0] if heap else None
        if top != current:
            if current is not None and t > since:
                if out and out[-1].phase == priority[current] and out[-1].end_ms == since:
                    out[-1] = Interval(out[-1].phase, out[-1].start_ms, t)
                else:
                    out.append(Interval(priority[current], since, t))
            current, since = top, t
    return out
