"""Entries of a column picked by a bound, gathered at some places, or put in order: each a pass in C (`compress`,
`map` of a bound method), so that the layers above say which entries they want and not how a C pass finds them.
A column is any sequence of numbers (a list, an `array`, a `Transposed` row).

>>> row = [0.5, 3.0, -1.0, 4.5, 3.0]
>>> where_above(row, 2.0), where_at_least(row, 3.0), where_at_most(row, 0.5), where_equal(row, 3.0)
([1, 3, 4], [1, 3, 4], [0, 2], [1, 4])
>>> gathered(row, [3, 0], "d").tolist(), order_of(row), count_at_most(row, 3.0)
([4.5, 0.5], [2, 0, 1, 4, 3], 4)
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress, repeat
from operator import add, sub

__all__ = [
    "above_or_not",
    "affine",
    "below_at_above",
    "count_at_most",
    "gathered",
    "interleaved",
    "joined",
    "largest_each",
    "largest_each_plus",
    "least_at",
    "least_each",
    "order_of",
    "picked",
    "picked_where_above",
    "scaled",
    "values_above",
    "values_at_most",
    "where_above",
    "where_at_least",
    "where_at_most",
    "where_equal",
    "without_places",
]


def _places(column: Sequence[float], test: Callable[[float], bool]) -> list[int]:
    """The places whose value passes the test (a bound's comparison method), in order, in one C pass."""
    return list(compress(range(len(column)), map(test, column)))


def where_above(column: Sequence[float], bound: float) -> list[int]:
    """The places whose value is above the bound, in order.

    >>> where_above([0.5, 3.0, -1.0, 4.5], 2.0)
    [1, 3]
    """
    return _places(column, float(bound).__lt__)


def where_at_least(column: Sequence[float], bound: float) -> list[int]:
    """The places whose value is at least the bound, in order.

    >>> where_at_least([0.5, 3.0, -1.0, 4.5], 3)
    [1, 3]
    """
    return _places(column, float(bound).__le__)


def where_at_most(column: Sequence[float], bound: float) -> list[int]:
    """The places whose value is at most the bound, in order.

    >>> where_at_most([0.5, 3.0, -1.0, 4.5], 0.5)
    [0, 2]
    """
    return _places(column, float(bound).__ge__)


def where_equal(column: Sequence[float], value: float) -> list[int]:
    """The places holding exactly the value, in order.

    >>> where_equal([3.0, 1.0, 3.0], 3.0)
    [0, 2]
    """
    return _places(column, float(value).__eq__)


def values_above(column: Iterable[float], bound: float) -> Iterator[float]:
    """The values above the bound, in the column's order (`column` is read once when it is not a sequence).

    >>> list(values_above(iter([0.5, 3.0, -1.0, 4.5]), 2.0))
    [3.0, 4.5]
    """
    values = column if isinstance(column, Sequence) else list(column)
    return compress(values, map(float(bound).__lt__, values))


def values_at_most(column: Sequence[float], bound: float) -> Iterator[float]:
    """The values at most the bound, in the column's order.

    >>> list(values_at_most([0.5, 3.0, -1.0, 4.5], 0.5))
    [0.5, -1.0]
    """
    return compress(column, map(float(bound).__ge__, column))


def picked_where_above(values: Sequence[float], by: Sequence[float], bound: float) -> Iterator[float]:
    """The values whose entry in `by` (a column of the same length) is above the bound, in order.

    >>> list(picked_where_above([1.0, 2.0, 3.0], [5.0, -1.0, 0.5], 0.0))
    [1.0, 3.0]
    """
    return compress(values, map(float(bound).__lt__, by))


def count_at_most(column: Iterable[float], bound: float) -> int:
    """How many values are at most the bound.

    >>> count_at_most([0.5, 3.0, -1.0, 4.5], 3.0)
    3
    """
    return sum(map(float(bound).__ge__, column))


def gathered(column: Sequence[float], places: Iterable[int], typecode: str) -> array:
    """The column's values at the places, in the places' order, as an array of `typecode`.

    >>> gathered([0.5, 3.0, -1.0], [2, 0], "d").tolist()
    [-1.0, 0.5]
    """
    return array(typecode, map(column.__getitem__, places))


def without_places(column: Sequence[float], places: Iterable[int]) -> array[float]:
    """The column's values but those at the places, in order, as an array of doubles.

    >>> without_places([0.5, 3.0, -1.0, 4.5], {1, 3}).tolist(), without_places([0.5, 3.0], ()).tolist()
    ([0.5, -1.0], [0.5, 3.0])
    """
    dropped = set(places)
    return array("d", compress(column, (i not in dropped for i in range(len(column)))))


def order_of(column: Sequence[float], places: Iterable[int] | None = None) -> list[int]:
    """The places (all of the column's by default) in the order of their values (ties in place order).

    >>> order_of([3.0, 1.0, 3.0, 0.0]), order_of([3.0, 1.0, 3.0, 0.0], [0, 1, 2])
    ([3, 1, 0, 2], [1, 0, 2])
    """
    return sorted(range(len(column)) if places is None else places, key=column.__getitem__)


def least_at(column: Sequence[float], places: Iterable[int]) -> int:
    """The place, among these, whose value is least (the first of ties).

    >>> least_at([3.0, 1.0, 1.0, 0.0], [0, 1, 2])
    1
    """
    return min(places, key=column.__getitem__)


def scaled(column: Iterable[float], factor: float) -> Iterator[float]:
    """Each value times the factor.

    >>> list(scaled([1.0, 2.5], 2.0))
    [2.0, 5.0]
    """
    return map(float(factor).__mul__, column)


def affine(column: Sequence[float], factor: float, shift: float) -> array[float]:
    """Each value times the factor, less the shift, as an array of doubles.

    >>> affine([1.0, 2.0], 2.0, 0.5).tolist()
    [1.5, 3.5]
    """
    return array("d", map(sub, scaled(column, factor), repeat(shift, len(column))))


def largest_each(columns: Sequence[Sequence[float]]) -> list[float]:
    """Place by place, the largest of some columns of one length (what `map(max, *columns)` gives, the first of equal
    values kept, a NaN where the first holds one): a comparison a place, columns two at a time, five times faster than
    calling `max` at each place.

    >>> largest_each([[1.0, 5.0, 2.0], [3.0, 4.0, 2.0], [0.0, 6.0, 1.0]])
    [3.0, 6.0, 2.0]
    """
    if len(columns) == 1:
        return list(columns[0])
    out = [y if y > x else x for x, y in zip(columns[0], columns[1])]
    for column in columns[2:]:
        out = [y if y > x else x for x, y in zip(out, column)]
    return out


def largest_each_plus(columns: Sequence[Sequence[float]], added: Sequence[float]) -> list[float]:
    """Place by place, the largest of some columns of one length (`largest_each`) plus another column's value there:
    for two columns, one pass instead of three.

    >>> largest_each_plus([[1.0, 5.0], [3.0, 4.0]], [0.5, 0.25]), largest_each_plus([[1.0, 5.0]], [0.5, 0.25])
    ([3.5, 5.25], [1.5, 5.25])
    """
    if len(columns) == 2:
        return [(y if y > x else x) + a for x, y, a in zip(columns[0], columns[1], added)]
    return list(map(add, columns[0] if len(columns) == 1 else largest_each(columns), added))


def joined(columns: Iterable[Sequence[float]]) -> list[float]:
    """The columns end to end, as one list (each copied in C).

    >>> joined([[1.0, 2.0], [3.0]])
    [1.0, 2.0, 3.0]
    """
    out: list[float] = []
    for column in columns:
        out += column
    return out


def interleaved(first: Sequence[float], second: Sequence[float]) -> list[float]:
    """Two columns of one length taken in turn, an entry of each at a time (two C copies).

    >>> interleaved([1.0, 2.0], [8.0, 9.0])
    [1.0, 8.0, 2.0, 9.0]
    """
    out = [0.0] * (2 * len(first))
    out[0::2] = first
    out[1::2] = second
    return out


def least_each(columns: Sequence[Sequence[float]]) -> list[float]:
    """Place by place, the least of some columns of one length (what `map(min, *columns)` gives).

    >>> least_each([[1.0, 5.0], [3.0, 4.0]])
    [1.0, 4.0]
    """
    if len(columns) == 1:
        return list(columns[0])
    out = [y if y < x else x for x, y in zip(columns[0], columns[1])]
    for column in columns[2:]:
        out = [y if y < x else x for x, y in zip(out, column)]
    return out


def above_or_not(values: Iterable[float], bound: float, above: float, otherwise: float) -> Iterator[float]:
    """For each value, `above` when it is above the bound, else `otherwise`.

    >>> list(above_or_not([1.0, 2.0, 3.0], 2.0, 9.0, 0.0))
    [0.0, 0.0, 9.0]
    """
    return map((above, otherwise).__getitem__, map(float(bound).__ge__, values))


def below_at_above(values: Iterable[float], bound: float, below: float, at: float, above: float) -> Iterator[float]:
    """For each value, `below`, `at` or `above` as it lies below, at or above the bound.

    >>> list(below_at_above([1.0, 2.0, 3.0], 2.0, 7.0, 8.0, 9.0))
    [7.0, 8.0, 9.0]
    """
    values = values if isinstance(values, Sequence) else list(values)
    choices = (below, at, above)
    return map(choices.__getitem__, map(add, map(float(bound).__lt__, values), map(float(bound).__le__, values)))


def picked(column: Sequence, rows: Sequence[int]) -> Sequence:
    """A column's values in the given rows: the column itself when they are all its rows, in order, a slice of it
    (its own type, a C copy) when they follow one another, else a list.

    >>> picked(array("d", [1.0, 2.0, 3.0]), range(1, 3)), picked([1.0, 2.0, 3.0], [2, 0])
    (array('d', [2.0, 3.0]), [3.0, 1.0])
    """
    if rows == range(len(column)):
        return column
    if isinstance(rows, range) and rows.step == 1:
        return column[rows.start : rows.stop]
    return [column[i] for i in rows]
