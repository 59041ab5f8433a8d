"""The rows of a table laid on the grid of the values a few of its columns hold (`cell_rows`): a row a cell, found in
C passes (`map` of bound methods over small dicts of each column's values) and one loop of stores, so that the layers
above find rows by what they hold without a dict of tuples built a row at a time.

>>> cell_rows([[1, 0, 1, 0], [5, 5, 7, 7]])
(([0, 1], [5, 7]), [1, 3, 0, 2])
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from itertools import repeat
from operator import add, mul
from typing import Any

__all__ = ["cell_rows"]


def cell_rows(columns: Sequence[Sequence[Hashable]]) -> tuple[tuple[list[Any], ...], list[int]] | None:
    """The rows laid on the grid of their columns' values: each column's distinct values in order, and for each cell
    of the grid (the last column's values varying fastest) the row that holds its values; None unless each cell is
    held by exactly one row.

    >>> cell_rows([[1, 0, 1, 0], [5, 5, 7, 7]])
    (([0, 1], [5, 7]), [1, 3, 0, 2])
    >>> cell_rows([[1, 0, 1], [5, 5, 7]]) is None, cell_rows([[1, 1], [5, 5]]) is None
    (True, True)
    """
    values = tuple(sorted(set(column)) for column in columns)  # type: ignore[type-var]
    cells = math.prod(map(len, values))
    if cells != len(columns[0]):
        return None
    place: list[int] = []
    for column, held in zip(columns, values):
        index = dict(zip(held, range(len(held))))
        at = map(index.__getitem__, column)
        place = list(map(add, map(mul, place, repeat(len(held))), at)) if place else list(at)
    rows = [-1] * cells
    for row, p in enumerate(place):
        rows[p] = row
    return (values, rows) if -1 not in rows else None
