"""Work fanned out over this process and forked ones: a measure's steps, then its ranks, a range at a time
(`storage.Fan`, `forked`); or a run's ranks cut into shards, each held and measured by a forked process of its own
(`forked_shards`), which a measure at a threshold asks as it asks a Ray cluster's nodes (`analysis.measure_shards`).

A forked process starts with the parent's memory, so a task reads the ranks' columns where they already are (shared
until written, and nothing writes them); only its answer is pickled back. The parent's objects are frozen out of the
collector first (`gc.freeze`), so that a child's collections do not touch, and so copy, every page of them. Where
fork is not the way processes start (Windows, macOS: `sys.platform`), or with one job, the work stays in this
process.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from multiprocessing import get_context
from multiprocessing.connection import Connection

from ..analysis import AnalysisError, Shard
from ..storage import Fan
from ..traces import RankColumns

__all__ = ["ForkedShard", "ShardLost", "forked", "forked_shards"]


class ShardLost(Exception):
    """A forked shard's process that ended before it answered (killed, out of memory): one line, and no verdict."""


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


class ForkedShard:
    """Some ranks' `analysis.Shard`, held by a forked process of its own: each question is sent (`ask_later`) and its
    answer waited for when the merge reads it, so that every shard works at once. The process starts with the
    parent's memory (the ranks' tables are not copied, only the pages it writes); it ends when asked (`close`) or
    when the parent is gone. A question that fails there is raised here: an `AnalysisError` as itself (the run's,
    not the process's), anything else as a RuntimeError with the process's traceback."""

    def __init__(self, tables: Sequence[RankColumns]) -> None:
        context = get_context("fork")
        self.ranks = tuple(sorted(t.rank for t in tables))
        self.conn, theirs = context.Pipe()
        gc.freeze()
        try:
            self.process = context.Process(target=_serve, args=(theirs, tables), daemon=True)
            self.process.start()
        finally:
            gc.unfreeze()
        theirs.close()

    def ask_later(self, name: str, args: tuple) -> Callable[[], object]:
        """Send one of `analysis.Shard`'s questions; what waits for its answer."""
        try:
            self.conn.send((name, args))
        except OSError:
            raise self._lost() from None
        return self._answer

    def _answer(self) -> object:
        try:
            ok, value = self.conn.recv()
        except (EOFError, OSError):
            raise self._lost() from None
        if not ok:
            raise value
        return value

    def _lost(self) -> ShardLost:
        self.process.join(timeout=1)
        code = self.process.exitcode
        how = f" (exit status {code})" if code is not None else ""
        return ShardLost(f"the process measuring ranks {_span(self.ranks)} stopped answering{how}: no verdict")

    def __getattr__(self, name: str) -> Callable[..., object]:
        if name.startswith("_") or not callable(getattr(Shard, name, None)):
            raise AttributeError(name)
        return lambda *args: self.ask_later(name, args)()

    def close(self) -> None:
        """End the process (it holds its ranks' tables until then)."""
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.conn.close()
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def _span(ranks: Sequence[int]) -> str:
    return f"{ranks[0]}-{ranks[-1]}" if ranks else "(none)"


def _serve(conn: Connection, tables: Sequence[RankColumns]) -> None:
    """A forked shard's loop: its ranks' `Shard`, then each question answered until None or the parent is gone."""
    shard = Shard(tables)
    del tables
    while True:
        try:
            asked = conn.recv()
        except (EOFError, OSError):
            return
        if asked is None:
            return
        name, args = asked
        try:
            conn.send((True, getattr(shard, name)(*args)))
        except AnalysisError as exc:
            conn.send((False, exc))
        except Exception:
            conn.send((False, RuntimeError(traceback.format_exc())))


def forked_shards(jobs: int) -> Callable[[Sequence[RankColumns]], list[Shard]]:
    """How a measure at a threshold holds a run's ranks (`analysis.measure_loaded`'s `shards`): cut into `jobs`
    shards of consecutive ranks, each in a forked process of its own (`ForkedShard`); one `analysis.Shard` in this
    process with one job, or where fork is not the way processes start. `measure_loaded` closes the forked ones
    after (`ForkedShard.close`).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> tables = [table_of(r) for r in simulated_run(5, 3, seed=1)[0]]
    >>> shards = forked_shards(2)(tables)
    >>> [s.ranks for s in shards], [len(h["ranks"]) for h in [s.hello() for s in shards]]
    ([(0, 1, 2), (3, 4)], [3, 2])
    >>> for s in shards:
    ...     s.close()
    """

    def held(tables: Sequence[RankColumns]) -> list[Shard]:
        count = min(jobs, len(tables))
        if count <= 1 or sys.platform != "linux":
            return [Shard(tables)]
        ordered = sorted(tables, key=lambda t: t.rank)
        size = -(-len(ordered) // count)
        return [ForkedShard(ordered[k : k + size]) for k in range(0, len(ordered), size)]  # type: ignore[misc]

    return held
