"""Columns read across (a run's ranks by step, or its steps by rank) without a Python step a value."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from operator import itemgetter

__all__ = ["Transposed"]


class Transposed:
    """Columns read across: `at(j)` is the j-th value of every column, in order (the ranks' columns of a value per
    step, read a step at a time; or the steps' columns of a value per rank, read a rank at a time). When the
    columns are arrays of one type and length, their bytes are laid side by side and the values gathered by
    strided slices (C copies, a byte plane at a time), not a Python step a value; else by item.

    >>> from array import array
    >>> Transposed([array("d", [1.0, 2.0]), array("d", [3.0, 4.0])], "d").at(1).tolist()
    [2.0, 4.0]
    >>> Transposed([b"\\x01\\x00", b"\\x01\\x01"], "B").at(1)
    b'\\x00\\x01'
    """

    def __init__(self, columns: Sequence[Sequence], typecode: str) -> None:
        self.typecode, self.width, self.count = typecode, array(typecode).itemsize, len(columns)
        rows = len(columns[0]) if columns else 0
        same = typecode == "B" and all(isinstance(c, bytes) and len(c) == rows for c in columns)
        same = same or all(isinstance(c, array) and c.typecode == typecode and len(c) == rows for c in columns)
        self.columns = columns
        self.joined = b"".join(c if isinstance(c, bytes) else c.tobytes() for c in columns) if same else None  # type: ignore[attr-defined]
        self.stride = rows * self.width

    def at(self, j: int) -> Sequence:
        """The j-th value of every column, in order: bytes for flags ("B"), else an array of the columns' type."""
        if self.joined is None:
            values = map(itemgetter(j), self.columns)
            return bytes(values) if self.typecode == "B" else array(self.typecode, values)
        w = self.width
        if w == 1:
            return self.joined[j :: self.stride]
        gathered = bytearray(w * self.count)
        for b in range(w):
            gathered[b::w] = self.joined[j * w + b :: self.stride]
        out = array(self.typecode)
        out.frombytes(gathered)
        return out
