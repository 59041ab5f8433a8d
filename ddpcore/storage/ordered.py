"""Many values read in order, by position, without sorting them all: the quantiles of a run's pooled rank-steps (10^7
or 10^8 of them) from its steps' values sorted a step at a time (`SortedRuns`), not from one sorted list of a float
object each (32 bytes a value, and one sort of them all).

The same arithmetic serves values spread over machines (`analysis.shards`): each holder of sorted values sends an
evenly spaced sample of them (`sample_of`); the samples bound how many values lie below any value, so they give a
bracket sure to hold the places asked for (`bracket`); each holder then gives how many of its values lie below the
bracket and those inside it (`inside`). Exact: the bracket is a bound, not a guess.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from operator import add

__all__ = [
    "SAMPLE",
    "SELECTED_FROM",
    "LeftOut",
    "Positions",
    "SortedRuns",
    "Sample",
    "bracket",
    "in_order",
    "inside",
    "sample_of",
    "sorted_places",
    "Within",
    "within",
]

SORT_UP_TO = 1_000_000
"""Up to this many values are simply sorted; more are read across their sorted runs (`SortedRuns`)."""
SAMPLE = 64
"""Places of a run's sorted values sampled to bracket an order statistic: what is then gathered inside the bracket
is about two of its 64ths, whatever the count."""

SELECTED_FROM = 4096
"""From this many values, a few sorted places of them are found without sorting them all (`sorted_places`)."""
_STRIDE_SAMPLE = 2048
"""About how many values `sorted_places` samples to bracket the places: the sample's own sort is a few hundred µs,
and what it leaves inside the bracket about a tenth of the values."""

Positions = tuple[int, int]
"""The first and last sorted place wanted of some values (both included)."""


@dataclass(frozen=True)
class Sample:
    """Sorted values at evenly spaced places (`at`), and how many values there are."""

    count: int
    at: tuple[int, ...]
    values: tuple[float, ...]


def sample_of(ordered: Sequence[float], size: int = SAMPLE) -> Sample:
    """Evenly spaced places of sorted values, the first and the last among them.

    >>> sample_of([1.0, 2.0, 3.0, 4.0, 5.0], 2)
    Sample(count=5, at=(0, 2, 4), values=(1.0, 3.0, 5.0))
    """
    n = len(ordered)
    at = tuple(sorted({k * (n - 1) // size for k in range(size + 1)})) if n else ()
    return Sample(n, at, tuple(ordered[k] for k in at))


def bracket(samples: Sequence[Sample], wanted: Positions) -> tuple[float, float]:
    """Values `lo` and `hi` such that, over all the samples' values, at most `wanted[0]` lie below `lo` and more
    than `wanted[1]` lie at or below `hi`: the wanted places are inside. A sample at place k with value v says that
    at most k values are below v, and at least k + 1 are at or below it.

    >>> bracket([sample_of([1.0, 2.0, 3.0, 4.0, 5.0], 2), sample_of([2.5, 6.0], 2)], (3, 3))
    (3.0, 3.0)
    """
    values = sorted({v for s in samples for v in s.values})

    def most_below(v: float) -> int:
        total = 0
        for s in samples:
            k = bisect_left(s.values, v)
            total += s.at[k] if k < len(s.at) else s.count
        return total

    def least_upto(v: float) -> int:
        total = 0
        for s in samples:
            k = bisect_right(s.values, v)
            total += s.at[k - 1] + 1 if k else 0
        return total

    first, last = wanted
    low, high = 0, len(values)
    while low < high:
        mid = (low + high) // 2
        if most_below(values[mid]) <= first:
            low = mid + 1
        else:
            high = mid
    lo = values[low - 1] if low else -math.inf
    low, high = 0, len(values)
    while low < high:
        mid = (low + high) // 2
        if least_upto(values[mid]) > last:
            high = mid
        else:
            low = mid + 1
    return lo, values[low] if low < len(values) else math.inf


def inside(ordered: Sequence[float], lo: float, hi: float) -> tuple[int, array[float]]:
    """How many sorted values lie below `lo`, and those from `lo` to `hi`.

    >>> inside([1.0, 2.0, 3.0, 4.0], 2.0, 3.5)
    (1, array('d', [2.0, 3.0]))
    """
    start = _left(ordered, lo)
    return start, array("d", ordered[start : _right(ordered, hi)])


@dataclass(frozen=True)
class Within:
    """Sorted values against a bracket from `lo` to `hi` (`within`): how many lie below it, how many equal `lo`,
    those strictly inside it in order, and how many equal `hi`. Ties are counted, not listed: every rank of a step
    has its period, and the bracket of its median would otherwise hold the whole step.

    >>> Within(2.0, 3.0, 1, 2, array("d", [2.5]), 1).places(2, 5)
    [2.0, 2.5, 3.0]
    """

    lo: float
    hi: float
    below: int
    at_lo: int
    middle: array[float]
    at_hi: int

    def places(self, start: int, stop: int) -> list[float]:
        """The values at sorted places `start` to `stop` (exclusive) of all the values, those in the bracket."""
        inner = len(self.middle)
        out = []
        for k in range(start - self.below, stop - self.below):
            if k < self.at_lo:
                out.append(self.lo)
            elif k < self.at_lo + inner:
                out.append(self.middle[k - self.at_lo])
            else:
                out.append(self.hi)
        return out

    @staticmethod
    def joined(found: Sequence[Within]) -> Within:
        """The same over several sets of sorted values against one bracket.

        >>> Within.joined([within([1.0, 2.0], 2.0, 3.0), within([2.0, 2.5], 2.0, 3.0)]).places(1, 4)
        [2.0, 2.0, 2.5]
        """
        first = found[0]
        return Within(
            first.lo,
            first.hi,
            sum(f.below for f in found),
            sum(f.at_lo for f in found),
            array("d", sorted(chain.from_iterable(f.middle for f in found))),
            sum(f.at_hi for f in found),
        )


def within(ordered: Sequence[float], lo: float, hi: float) -> Within:
    """Sorted values against the bracket from `lo` to `hi` (`Within`).

    >>> within([1.0, 2.0, 2.0, 2.5, 3.0, 4.0], 2.0, 3.0).places(1, 5)
    [2.0, 2.0, 2.5, 3.0]
    >>> w = within([5.0, 5.0, 5.0], 5.0, 5.0)
    >>> w.at_lo, len(w.middle), w.at_hi
    (3, 0, 0)
    """
    start = _left(ordered, lo)
    past_lo = _right(ordered, lo)
    if not hi > lo:
        return Within(lo, hi, start, past_lo - start, array("d"), 0)
    first_hi = _left(ordered, hi)
    last = _right(ordered, hi)
    return Within(lo, hi, start, past_lo - start, array("d", ordered[past_lo:first_hi]), last - first_hi)


def _left(run: Sequence[float], v: float) -> int:
    """`bisect_left` of a sorted run; of a `LeftOut` one, found in its whole run (a C search, not one Python call a
    step): the places below v there, less the one left out when it is below v."""
    if isinstance(run, LeftOut):
        k = bisect_left(run.run, v)
        return k - (k > run.at)
    return bisect_left(run, v)


def _right(run: Sequence[float], v: float) -> int:
    """`bisect_right` of a sorted run, as `_left` finds it."""
    if isinstance(run, LeftOut):
        k = bisect_right(run.run, v)
        return k - (k > run.at)
    return bisect_right(run, v)


def _lefts(run: Sequence[float], values: Sequence[float]) -> Iterable[int]:
    """`_left` of each value, in C passes."""
    if isinstance(run, LeftOut):
        at = run.at
        return [k - (k > at) for k in map(bisect_left, repeat(run.run), values)]
    return map(bisect_left, repeat(run), values)


class LeftOut(Sequence[float]):
    """A sorted run read without its value at one place (`at`): the same values but one, not a second copy of them
    (a step's deviations but its latest rank's, pooled beside the step's own: at 10^8 rank-steps, 8 bytes a
    rank-step less).

    >>> from array import array
    >>> run = LeftOut(array("d", [1.0, 2.0, 3.0, 4.0]), 1)
    >>> len(run), list(run), run[1:3], run[-1]
    (3, [1.0, 3.0, 4.0], array('d', [3.0, 4.0]), 4.0)
    """

    __slots__ = ("at", "run")

    def __init__(self, run: array[float], at: int) -> None:
        self.run, self.at = run, at

    def __len__(self) -> int:
        return len(self.run) - 1

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            start, stop, stride = i.indices(len(self))
            if stride != 1:
                return array("d", (self[k] for k in range(start, stop, stride)))
            if stop <= self.at:
                return self.run[start:stop]
            if start >= self.at:
                return self.run[start + 1 : stop + 1]
            return self.run[start : self.at] + self.run[self.at + 1 : stop + 1]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.run[i if i < self.at else i + 1]


class SortedRuns(Sequence[float]):
    """Values held as sorted runs (a run's rank-steps, a step's values sorted apart), read as if all sorted: the
    first `length` of them (a sorted prefix), each position found when asked by bisecting the runs (`bracket`,
    `inside`), never by a pass over every value. The window found is kept, so that neighbouring positions (a
    quantile reads two) cost nothing more.

    >>> from array import array
    >>> r = SortedRuns([array("d", [1.0, 4.0, 5.0]), array("d", [2.0, 3.0])])
    >>> r[0], r[2], r[4], len(r), r.count_upto(2.5), list(r[:2])
    (1.0, 3.0, 5.0, 5, 2, [1.0, 2.0])
    """

    def __init__(self, runs: Iterable[Sequence[float]], length: int | None = None) -> None:
        self.runs = [r for r in runs if len(r)]
        total = sum(map(len, self.runs))
        self.length = total if length is None else min(length, total)
        self.samples: list[Sample] | None = None
        self.windows: list[tuple[int, list[float]]] = []
        self.sampled: tuple[int, Sample] | None = None

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, k):  # type: ignore[no-untyped-def]
        if isinstance(k, slice):
            start, stop, stride = k.indices(self.length)
            if start == 0 and stride == 1:
                return self.prefix(stop)
            return [self[i] for i in range(start, stop, stride)]
        if k < 0:
            k += self.length
        if not 0 <= k < self.length:
            raise IndexError(k)
        for below, values in self.windows:
            if below <= k < below + len(values):
                return values[k - below]
        return self._found(k)

    def prefix(self, count: int) -> SortedRuns:
        """The `count` smallest values, in order (the same runs, read no further)."""
        view = SortedRuns.__new__(SortedRuns)
        view.runs, view.length = self.runs, min(count, self.length)
        view.samples, view.windows, view.sampled = self.samples, self.windows, None
        return view

    def count_upto(self, x: float) -> int:
        """How many of the values are at most x (within the prefix)."""
        return min(self.length, sum(_right(r, x) for r in self.runs))

    def above(self, x: float) -> list[float]:
        """The values above x, in order (of the whole, not a prefix: a tail is read from the top).

        >>> from array import array
        >>> SortedRuns([array("d", [1.0, 4.0, 5.0]), array("d", [2.0, 3.0])]).above(2.5)
        [3.0, 4.0, 5.0]
        """
        return sorted(chain.from_iterable(r[_right(r, x) :] for r in self.runs))

    def sample(self, size: int) -> Sample:
        """About `size` of the values, each at its exact sorted place among all of them (what `bracket` bounds
        with), found without merging the runs: the i-th of R runs gives its values at the fractions (i + j R) / (R
        per) of its length, so that runs of one distribution (a step's deviations, each step's) give evenly spread
        quantiles of the whole, each then placed by bisecting every run (C passes). Kept: a merge of shards asks a
        pooled vector's again at each of its reads.

        >>> from array import array
        >>> SortedRuns([array("d", [1.0, 4.0, 5.0]), array("d", [2.0, 3.0])]).sample(4)
        Sample(count=5, at=(0, 1, 2, 3), values=(1.0, 2.0, 3.0, 4.0))
        """
        if self.sampled is not None and self.sampled[0] == size:
            return self.sampled[1]
        count = len(self.runs)
        per = max(1, -(-size // max(1, count)))
        spread = count * per
        values = sorted(
            {
                r[(j * count + i) * (len(r) - 1) // max(1, spread - 1)]
                for i, r in enumerate(self.runs)
                for j in range(per)
            }
        )
        below = [0] * len(values)
        for r in self.runs:
            below = list(map(add, below, _lefts(r, values)))
        found = Sample(self.length, tuple(below), tuple(values))
        self.sampled = (size, found)
        return found

    def within(self, lo: float, hi: float) -> Within:
        """The values against the bracket from `lo` to `hi` (`within` of each run, joined).

        >>> from array import array
        >>> SortedRuns([array("d", [1.0, 4.0, 5.0]), array("d", [2.0, 3.0])]).within(2.0, 4.0).places(1, 4)
        [2.0, 3.0, 4.0]
        >>> SortedRuns([]).within(2.0, 4.0).below
        0
        """
        if not self.runs:
            return Within(lo, hi, 0, 0, array("d"), 0)
        return Within.joined([within(r, lo, hi) for r in self.runs])

    def places(self, start: int, stop: int) -> list[float]:
        """The values at the sorted places `start` up to `stop`, found together: a bracket of the runs' samples sure
        to hold them (`bracket`), and only what lies inside it sorted.

        >>> from array import array
        >>> SortedRuns([array("d", [1.0, 4.0, 5.0]), array("d", [2.0, 3.0])]).places(1, 4)
        [2.0, 3.0, 4.0]
        """
        below, values = self._window(max(0, start), min(stop, self.length) - 1)
        return values[max(0, start) - below : min(stop, self.length) - below]

    def _window(self, first: int, last: int) -> tuple[int, list[float]]:
        if self.samples is None:
            self.samples = [sample_of(r) for r in self.runs]
        lo, hi = bracket(self.samples, (first, last))
        found = [inside(r, lo, hi) for r in self.runs]
        return sum(b for b, _ in found), sorted(chain.from_iterable(v for _, v in found))

    def _found(self, k: int) -> float:
        below, values = self._window(max(0, k - 1), min(k + 1, self.length - 1))
        self.windows.append((below, values))
        return values[k - below]


def in_order(rows: Iterable[Sequence[float]], presorted: bool = False) -> Sequence[float]:
    """The values of many rows in order: one sorted list when few in all, else each row sorted (unless each is
    already: `presorted`), read across (`SortedRuns`).

    >>> in_order([[2.0, 3.0], [1.0]])
    [1.0, 2.0, 3.0]
    """
    rows = list(rows)
    if sum(map(len, rows)) <= SORT_UP_TO:
        return sorted(chain.from_iterable(rows))
    if not presorted:
        for i, row in enumerate(rows):
            rows[i] = array("d", sorted(row))
    return SortedRuns(rows)


def sorted_places(values: Sequence[float], start: int, stop: int) -> list[float]:
    """`sorted(values)[start:stop]` for a few places of many values (a step's median across 10^5 ranks), without a
    sort of them all: an evenly strided sample of them, sorted, brackets the places; one C pass keeps the values
    from the bracket's low end (those left are the places below it), a second those up to its high end, and only
    these are sorted. The same values in the same order as the whole sort (equal values keep their order, as a stable
    sort keeps it); a bracket that misses the places (a sample unlike the whole) falls back to that sort.

    >>> values = [float((k * 7919) % 10007) for k in range(10007)]
    >>> sorted_places(values, 5001, 5004) == sorted(values)[5001:5004], sorted_places([3.0, 1.0, 2.0], 1, 2)
    (True, [2.0])
    """
    n = len(values)
    start, stop = max(0, start), min(n, stop)
    if stop <= start:
        return []
    if n < SELECTED_FROM:
        return sorted(values)[start:stop]
    sample = sorted(values[:: n // _STRIDE_SAMPLE])
    m, margin = len(sample), 2 * math.isqrt(len(sample)) + 2
    low, high = start * m // n - margin, -(-stop * m // n) + margin
    kept: Sequence[float] = values if low < 0 else list(filter(sample[low].__le__, values))
    below = n - len(kept)
    inner = sorted(kept if high >= m else filter(sample[high].__ge__, kept))
    if below <= start and below + len(inner) >= stop:
        return inner[start - below : stop - below]
    return sorted(values)[start:stop]
