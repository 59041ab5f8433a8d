"""Columns read across (a run's ranks by step, or its steps by rank) without a Python step a value."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from operator import itemgetter

from .micros import Micros, as_ms

__all__ = ["Transposed"]


class Transposed:
    """Columns read across: `at(j)` is the j-th value of every column, in order (the ranks' columns of a value per
    step, read a step at a time; or the steps' columns of a value per rank, read a rank at a time). When the
    columns are arrays of one type and length, their bytes are laid side by side and the values gathered by
    strided slices (C copies, a byte plane at a time), not a Python step a value; else by item.

    With `rows` (consecutive ones), only those rows of every column are read, where they lie: a run's steps but its
    warm-up one are not copied out of each rank's columns (a copy held them twice while a shard measured).

    With `block`, only that many rows of every column are laid side by side at a time (the block holding the row
    read), so that reading the rows in order copies each value once and holds a block, not a second copy of every
    column (10^7 rank-steps of six columns: 480 MB).

    >>> from array import array
    >>> Transposed([array("d", [1.0, 2.0]), array("d", [3.0, 4.0])], "d").at(1).tolist()
    [2.0, 4.0]
    >>> Transposed([b"\\x01\\x00", b"\\x01\\x01"], "B").at(1)
    b'\\x00\\x01'
    >>> [Transposed([array("i", [1, 2, 3]), array("i", [4, 5, 6])], "i", block=2).at(j).tolist() for j in range(3)]
    [[1, 4], [2, 5], [3, 6]]
    >>> Transposed([Micros(array("i", [1500, 20])), Micros(array("i", [7, 8]))], "d").at(0).tolist()
    [1.5, 0.007]
    >>> later = Transposed([array("d", [1.0, 2.0, 3.0]), array("d", [4.0, 5.0, 6.0])], "d", 1, range(1, 3))
    >>> later.rows, [later.at(j).tolist() for j in range(later.rows)]
    (2, [[2.0, 5.0], [3.0, 6.0]])
    """

    def __init__(
        self, columns: Sequence[Sequence], typecode: str, block: int | None = None, rows: range | None = None
    ) -> None:
        self.typecode, self.count = typecode, len(columns)
        length = len(columns[0]) if columns else 0
        span = rows if rows is not None else range(length)
        self.first, self.rows = span.start, len(span)
        self.kept = _kept_as(columns, typecode, length)
        if self.kept != typecode:
            columns = [c.us for c in columns]  # type: ignore[attr-defined]
        self.width = array(self.kept).itemsize
        same = typecode == "B" and all(isinstance(c, bytes) and len(c) == length for c in columns)
        same = same or all(isinstance(c, array) and c.typecode == self.kept and len(c) == length for c in columns)
        self.columns, self.same = columns, same
        self.block = max(1, block) if block else max(1, self.rows)
        self.low = self.high = 0
        self.joined: bytes | None = None
        self.stride = 0

    def _laid(self, j: int) -> None:
        """The block of rows holding row j, laid side by side."""
        self.low = j - j % self.block
        self.high = min(self.rows, self.low + self.block)
        low, high = self.first + self.low, self.first + self.high
        self.joined = b"".join(c[low:high] if isinstance(c, bytes) else c[low:high].tobytes() for c in self.columns)  # type: ignore[attr-defined]
        self.stride = (high - low) * self.width

    def at(self, j: int, ms: bool = True) -> Sequence:
        """The j-th value of every column, in order: bytes for flags ("B"), else an array of the columns' type; with
        `ms` False, microseconds kept as `Micros` (converted only where read: a few entries of 10^5).

        >>> Transposed([Micros(array("i", [1500])), Micros(array("i", [7]))], "d").at(0, ms=False)
        Micros(array('i', [1500, 7]), 'd', 0)
        """
        if not self.same:
            values = map(itemgetter(self.first + j), self.columns)
            return bytes(values) if self.typecode == "B" else array(self.typecode, values)
        if not self.low <= j < self.high or self.joined is None:
            self._laid(j)
        w, k = self.width, j - self.low
        assert self.joined is not None
        if w == 1:
            return self.joined[k :: self.stride]
        gathered = bytearray(w * self.count)
        for b in range(w):
            gathered[b::w] = self.joined[k * w + b :: self.stride]
        out = array(self.kept)
        out.frombytes(gathered)
        if self.kept == self.typecode:
            return out
        return as_ms(out, self.typecode) if ms else Micros(out, self.typecode)


def _kept_as(columns: Sequence[Sequence], typecode: str, rows: int) -> str:
    """The typecode the columns' values are laid in: the microseconds' when every column is `Micros` of the same
    kind, precision and length (each row converted when read across), else the one asked for."""
    first = columns[0] if columns else None
    if isinstance(first, Micros) and first.typecode == typecode:
        kind = first.us.typecode
        if all(
            isinstance(c, Micros) and c.typecode == typecode and c.us.typecode == kind and len(c) == rows and not c.base
            for c in columns
        ):
            return kind
    return typecode
