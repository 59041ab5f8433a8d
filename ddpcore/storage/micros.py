"""Times kept as a version 3 summary keeps them, whole microseconds, and read as milliseconds: half the memory of
doubles (10^7 rank-steps of 13 time columns: 520 MB less), and no conversion of a column nobody reads whole.

A value read is k / 1000 (the double nearest, as a version 2 summary of the same times reads), rounded to single
precision where the column is kept so (`typecode` "f": the parts of the work). Whole columns are converted in C loops
(`ms`); a median is found on the integers, whose order is the values' (`median`).
"""

from __future__ import annotations

import statistics
import struct
from array import array
from collections.abc import Iterator, Sequence
from functools import lru_cache

from .ordered import SELECTED_FROM, sorted_places

__all__ = ["US_DIGITS", "US_PER_MS", "Micros", "as_ms", "median"]

US_DIGITS = 3
"""Digits of a millisecond a summary keeps: whole microseconds, the profiler's own resolution."""
US_PER_MS = 10**US_DIGITS
_PER = float(US_PER_MS)


@lru_cache(maxsize=16)
def _packer(typecode: str, count: int) -> struct.Struct:
    """Packs `count` floats as `array(typecode)` holds them: a C loop, a fifth faster than building the array from a
    list."""
    return struct.Struct(f"={count}{typecode}")


def as_ms(us: Sequence[int], typecode: str = "d", base: int = 0) -> array:
    """Whole microseconds, each plus `base`, as an array of ms (`typecode` "d" or "f").

    >>> as_ms(array("i", [1500, 3]), "d").tolist(), as_ms(array("i", [1, 2]), "d", base=10**15).tolist()
    ([1.5, 0.003], [1000000000000.001, 1000000000000.002])
    """
    out = array(typecode)
    values = [v / _PER for v in us] if not base else [(v + base) / _PER for v in us]
    out.frombytes(_packer(typecode, len(us)).pack(*values))
    return out


class Micros(Sequence[float]):
    """A time column of whole microseconds (`us`, an int array, each plus `base`), read as ms of `typecode`
    precision. A column of times on a clock (a rank's steps' starts) keeps 32-bit offsets from its first, not
    64-bit times (`traces.Keep.VERDICT`): the same ms, 4 bytes a value fewer.

    >>> m = Micros(array("i", [2500, 1000, 1001]))
    >>> m[0], list(m), len(m), m.median()
    (2.5, [2.5, 1.0, 1.001], 3, 1.001)
    >>> Micros(array("i", [100001]), "f")[0] == array("f", [100.001])[0]
    True
    >>> t = 1_764_460_000_000_000
    >>> list(Micros(array("i", [0, 7]), base=t)) == list(Micros(array("q", [t, t + 7])))
    True
    """

    __slots__ = ("base", "typecode", "us")

    def __init__(self, us: array, typecode: str = "d", base: int = 0) -> None:
        self.us, self.typecode, self.base = us, typecode, base

    def __len__(self) -> int:
        return len(self.us)

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            return Micros(self.us[i], self.typecode, self.base)
        value = (self.us[i] + self.base) / _PER
        return value if self.typecode == "d" else array("f", (value,))[0]

    def __iter__(self) -> Iterator[float]:
        return iter(self.ms())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Micros):
            return self.typecode == other.typecode and self.us == other.us and self.base == other.base
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Micros({self.us!r}, {self.typecode!r}, {self.base!r})"

    def __reduce__(self) -> tuple:
        return Micros, (self.us, self.typecode, self.base)

    def ms(self) -> array:
        """The column in ms, whole."""
        return as_ms(self.us, self.typecode, self.base)

    def tolist(self) -> list[float]:
        """The column in ms, as a list."""
        return self.ms().tolist()

    def constant(self) -> bool:
        """Every value is the first (compared as bytes: no object a value)."""
        return bool(self.us) and self.us[:1].tobytes() * len(self.us) == self.us.tobytes()

    def median(self) -> float:
        """`statistics.median` of the values in ms, found on the integers: the middle one, or the mean of the two
        middle ones each read in ms first (the same double as the median of the values read)."""
        n = len(self.us)
        if n == 0:
            raise statistics.StatisticsError("no median for empty data")
        if self.constant():
            return self[0]
        ordered = sorted(self.us)
        if n % 2:
            return self._read(ordered[n // 2])
        return (self._read(ordered[n // 2 - 1]) + self._read(ordered[n // 2])) / 2

    def _read(self, us: int) -> float:
        value = (us + self.base) / _PER
        return value if self.typecode == "d" else array("f", (value,))[0]


def median(values: Sequence[float]) -> float:
    """`statistics.median`, on the integers of `Micros`, and without a sort when every value is the first (a phase
    a run never enters: a rank's medians are a sort each, 10^4 ranks x 13 of them), told by comparing bytes; of
    many values, from their middle places alone (`ordered.sorted_places`: a step's across 10^5 ranks).

    >>> median(array("d", [3.0, 1.0, 2.0])), median(Micros(array("i", [5, 5]))), median([1.0, 2.0])
    (2.0, 0.005, 1.5)
    """
    if isinstance(values, Micros):
        return values.median()
    if isinstance(values, array) and values and values[:1].tobytes() * len(values) == values.tobytes():
        return float(values[0])
    n = len(values)
    if n < SELECTED_FROM:
        return statistics.median(values)
    middle = sorted_places(values, (n - 1) // 2, n // 2 + 1)
    return middle[0] if n % 2 else (middle[0] + middle[1]) / 2
