"""Work cut in ranges of steps or ranks, mapped by a `Fan`: in this process (`map`, as in the page), or in others
(the command line forks them: `cli.fork`). A task reads what its caller holds and returns plain data."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

__all__ = ["BLOCK_ROWS", "BLOCK_VALUES", "Fan", "TASK_VALUES", "block_rows", "ranges"]

Fan = Callable[[Callable[[range], list], Sequence[range]], Iterable[list]]
"""Maps a task over ranges, the answers in order."""
BLOCK_VALUES = 1 << 20
"""About how many values of each column are laid side by side at a time to be read across (`storage.Transposed`)."""
TASK_VALUES = BLOCK_VALUES // 8
"""About how many values of each column a task reads: 13 steps of 10^4 ranks, a few hundred ms (progress after
each). What a forked process holds at once is its task's answer, pickled once more: a small task keeps it small,
at the price of laying a block again in each process that reads some of it. A run of a few thousand rank-steps is
one task, never sent to another process."""


BLOCK_ROWS = 32
"""Rows a block holds at least while that stays within 4 x BLOCK_VALUES values: laying a block costs a Python step a
column a value of its width, whatever its rows (34 ms a column for 10^5 ranks), so a block of 10 rows had made that
a sixth of a step's time at 10^5 ranks."""


def block_rows(width: int) -> int:
    """Rows of `width` values that make a block of about BLOCK_VALUES values (`storage.Transposed`), and of BLOCK_ROWS
    at least while they hold no more than 4 x BLOCK_VALUES.

    >>> block_rows(1_000), block_rows(100_000), block_rows(10**7)
    (1048, 32, 1)
    """
    width = max(1, width)
    return max(1, min(BLOCK_ROWS, 4 * BLOCK_VALUES // width), BLOCK_VALUES // width)


def ranges(count: int, width: int, least: int = 1) -> list[range]:
    """`count` items (steps or ranks) cut in ranges of about TASK_VALUES values, `width` values an item, and of
    `least` items at least (a task that reads whole blocks: `block_rows`, so that no two processes lay the same
    block).

    >>> ranges(5, TASK_VALUES // 2), ranges(3, 8), ranges(5, TASK_VALUES, least=2)
    ([range(0, 2), range(2, 4), range(4, 5)], [range(0, 3)], [range(0, 2), range(2, 4), range(4, 5)])
    """
    size = max(1, least, TASK_VALUES // max(1, width))
    return [range(start, min(count, start + size)) for start in range(0, count, size)]
