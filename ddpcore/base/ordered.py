"""Many values read in order, by position, without sorting them all: the quantiles of a run's pooled rank-steps (10^7
or 10^8 of them) found in a few C passes, not in a sorted list of a float object each (32 bytes a value)."""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from itertools import compress
from operator import and_

__all__ = ["Ordered", "in_order"]

SORT_UP_TO = 1_000_000
"""Up to this many values are simply sorted; more are read by position (`Ordered`)."""
SAMPLE = 1 << 16
"""The values sampled (evenly spaced) to bracket a position before counting."""


class Ordered(Sequence[float]):
    """The values as if sorted (the first `length` of them: a sorted prefix), each position found when asked.

    A position k is bracketed between two values of an evenly spaced sample, wide enough that the k-th value falls
    between them unless the values are oddly laid out; one C pass counts the values below the bracket and keeps those
    inside it, and those few are sorted. The window is kept, so that neighbouring positions (a quantile reads two)
    cost nothing more. A bracket that misses is widened, and in the end every value is sorted: the answer is always
    the exact order statistic.

    >>> from array import array
    >>> o = Ordered(array("d", [5.0, 1.0, 4.0, 2.0, 3.0] * 1000), sample=64)
    >>> o[0], o[2500], o[4999], len(o), o.count_upto(2.5)
    (1.0, 3.0, 5.0, 5000, 2000)
    """

    def __init__(self, values: array, length: int | None = None, sample: int = SAMPLE) -> None:
        self.values = values
        self.length = len(values) if length is None else length
        step = max(1, len(values) // sample)
        self.sample = sorted(values[::step])
        self.windows: list[tuple[int, list[float]]] = []

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
        for below, inside in self.windows:
            if below <= k < below + len(inside):
                return inside[k - below]
        return self._found(k)

    def prefix(self, count: int) -> Ordered:
        """The `count` smallest values, in order (the same values, read no further)."""
        view = Ordered.__new__(Ordered)
        view.values, view.length, view.sample = self.values, min(count, self.length), self.sample
        view.windows = self.windows
        return view

    def count_upto(self, x: float) -> int:
        """How many of the values are at most x (within the prefix)."""
        return min(self.length, sum(map(float(x).__ge__, self.values)))

    def _found(self, k: int) -> float:
        n, m = len(self.values), len(self.sample)
        at = k * (m - 1) / max(1, n - 1)
        spread = 4.0 * math.sqrt(m * 0.25) + 8.0
        for widen in (1.0, 4.0):
            low_at, high_at = math.floor(at - widen * spread), math.ceil(at + widen * spread)
            lo = self.sample[low_at] if low_at > 0 else -math.inf
            hi = self.sample[high_at] if high_at < m - 1 else math.inf
            below = sum(map(lo.__gt__, self.values))
            if below > k:
                continue
            inside = sorted(compress(self.values, map(and_, map(lo.__le__, self.values), map(hi.__ge__, self.values))))
            if k < below + len(inside):
                self.windows.append((below, inside))
                return inside[k - below]
        everything = sorted(self.values)
        self.windows.append((0, everything))
        return everything[k]


def in_order(values: array) -> Sequence[float]:
    """The values in order: a sorted list when few, else read by position (`Ordered`).

    >>> from array import array
    >>> in_order(array("d", [2.0, 3.0, 1.0]))
    [1.0, 2.0, 3.0]
    """
    return sorted(values) if len(values) <= SORT_UP_TO else Ordered(values)
