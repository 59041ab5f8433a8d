"""Work fanned out over this process and forked ones (`storage.Fan`): a measure's steps, then its ranks, a range at a
time.

A forked process starts with the parent's memory, so a task reads the ranks' columns where they already are (shared
until written, and nothing writes them); only its answer is pickled back. The parent's objects are frozen out of the
collector first (`gc.freeze`), so that a child's collections do not touch, and so copy, every page of them. Where
fork is not the way processes start (Windows, macOS: `sys.platform`), or with one job, the work stays in this
process.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator, Sequence
from multiprocessing import get_context

from ..storage import Fan

__all__ = ["forked"]

_task: Callable[[range], list] | None = None


def _run(some: range) -> list:
    assert _task is not None
    return _task(some)


def forked(jobs: int) -> Fan:
    """A `Fan` over `jobs` processes, this one and `jobs` - 1 forked (the ranges' answers in order), or `map` when
    they cannot help. This process takes every `jobs`-th range itself while the others work: one process fewer
    to copy the pages it writes of the parent's (at 10^8 rank-steps, 0.6 GB each).

    >>> list(forked(2)(len, [range(3), range(5), range(2)]))
    [3, 5, 2]
    """
    if jobs <= 1 or sys.platform != "linux":
        return map

    def fan(task: Callable[[range], list], ranges: Sequence[range]) -> Iterator[list]:
        global _task
        if len(ranges) <= 1:
            yield from map(task, ranges)
            return
        _task = task
        mine = set(range(0, len(ranges), jobs))
        gc.freeze()
        try:
            with get_context("fork").Pool(min(jobs - 1, len(ranges) - len(mine))) as pool:
                theirs = pool.imap(_run, [r for i, r in enumerate(ranges) if i not in mine])
                for i, some in enumerate(ranges):
                    yield task(some) if i in mine else next(theirs)
        finally:
            gc.unfreeze()
            _task = None

    return fan
