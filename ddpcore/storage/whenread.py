"""Rows made when they are read, not held: a sequence whose j-th row is computed from what is held already."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

__all__ = ["RowsWhenRead"]

T = TypeVar("T")


class RowsWhenRead(Sequence[T]):
    """A sequence of rows, each made when read (`row`, for 0 <= j < its length), indexed and sliced as a list is:
    what a shard would otherwise hold as a second copy of every rank-step (8 bytes each, 0.8 GB at 10^8).

    >>> class Squares(RowsWhenRead[int]):
    ...     def __len__(self) -> int:
    ...         return 4
    ...     def row(self, j: int) -> int:
    ...         return j * j
    >>> s = Squares()
    >>> s[-1], s[1:3], list(s)
    (9, [1, 4], [0, 1, 4, 9])
    """

    def __len__(self) -> int:
        raise NotImplementedError

    def row(self, j: int) -> T:
        """Row j, made now (0 <= j < the length)."""
        raise NotImplementedError

    def __getitem__(self, j):  # type: ignore[no-untyped-def]
        if isinstance(j, slice):
            return [self.row(k) for k in range(len(self))[j]]
        n = len(self)
        if j < 0:
            j += n
        if not 0 <= j < n:
            raise IndexError(j)
        return self.row(j)

    def __iter__(self) -> Iterator[T]:
        return map(self.row, range(len(self)))
