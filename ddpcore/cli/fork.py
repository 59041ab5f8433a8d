"""Work fanned out over this process and forked ones: a measure's steps, then its ranks, a range at a time
(`storage.Fan`, `forked`); or a run's files cut into parts, each read, then held and measured, by a forked process of
its own (`forked_parts`), which a measure at a threshold asks as it asks a Ray cluster's nodes
(`analysis.measure_parts`, `analysis.measure_shards`).

A forked task starts with the parent's memory, so it reads the ranks' columns where they already are (shared until
written, and nothing writes them); only its answer is pickled back. A forked part reads its own files instead: a
parent that read them all kept every table mapped in each part it forked. The parent's objects are frozen out of the
collector first (`gc.freeze`), so that a child's collections do not touch, and so copy, every page of them. Where
fork is not the way processes start (Windows, macOS: `sys.platform`), or with one job, the work stays in this
process.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from multiprocessing import get_context
from multiprocessing.connection import Connection
from typing import cast

from ..analysis.parted import LETTING_GO, QUESTIONS, FilesRead, Part
from ..analysis.results import AnalysisError
from ..storage.fan import Fan
from ..traces.files import Progress

__all__ = ["ForkedPart", "Reading", "ShardLost", "forked", "forked_parts", "give_back"]


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


class ForkedPart:
    """Some of a run's files (consecutive ones), read by a forked process of its own (`analysis.FilesRead`), which
    then holds the `Shard` of its ranks in the run: each question is sent (`ask_later`) and its answer waited for
    when it is read, so that every part works at once. The process reads its own files, so that no process holds
    every rank's tables (the parent reads none); it tells how far its reading is (`Reading`), and ends when asked
    (`close`) or when the parent is gone. A question that fails there is raised here: an `AnalysisError` as itself
    (the run's, not the process's), anything else as a RuntimeError with the process's traceback."""

    def __init__(self, files: Sequence[str], first: int, reading: Reading | None = None) -> None:
        context = get_context("fork")
        self.files = (first, first + len(files))
        self.ranks: tuple[int, ...] = ()
        self.reading = reading
        self.stashed: list[tuple[bool, object]] = []
        self.conn, theirs = context.Pipe()
        gc.freeze()
        try:
            self.process = context.Process(target=_serve, args=(theirs, files, first, reading is not None), daemon=True)
            self.process.start()
        finally:
            gc.unfreeze()
        theirs.close()

    def ask_later(self, name: str, args: tuple) -> Callable[[], object]:
        """Send one of `analysis.FilesRead`'s or `analysis.Shard`'s questions; what waits for its answer."""
        try:
            self.conn.send((name, args))
        except OSError:
            raise self._lost() from None
        return self._answer

    def _answer(self) -> object:
        while True:
            try:
                ok, value = self.stashed.pop(0) if self.stashed else self.conn.recv()
            except (EOFError, OSError):
                raise self._lost() from None
            if ok is None:
                self._heard(value)
                continue
            if not ok:
                raise value  # type: ignore[misc]
            return value

    def _heard(self, value: object) -> None:
        if self.reading is not None:
            done, done_bytes = cast(tuple[int, int], value)
            self.reading.heard(self, done, done_bytes)

    def drain(self) -> None:
        """Read the word it has sent of its reading, up to its first answer (kept for when it is awaited)."""
        with contextlib.suppress(EOFError, OSError):
            while not self.stashed and self.conn.poll(0):
                ok, value = self.conn.recv()
                if ok is None:
                    self._heard(value)
                else:
                    self.stashed.append((ok, value))

    def keep(self, indices: Sequence[int]) -> ForkedPart:
        """Its files at these places (its ranks in the run) kept as its shard, asked as one from then on."""
        self.ranks = cast(tuple[int, ...], self.ask_later("keep", (indices,))())
        return self

    def _lost(self) -> ShardLost:
        self.process.join(timeout=1)
        code = self.process.exitcode
        how = f" (exit status {code})" if code is not None else ""
        held = (
            f"measuring ranks {_span(self.ranks)}"
            if self.ranks
            else f"reading files {self.files[0] + 1}-{self.files[1]}"
        )
        return ShardLost(f"the process {held} stopped answering{how}: no verdict")

    def __getattr__(self, name: str) -> Callable[..., object]:
        if name not in QUESTIONS:
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


class Reading:
    """How far the forked parts' reading is, told to `progress` as files and bytes read of all (`traces.Progress`):
    each part says its own at most every TOLD_EVERY_S; when one is heard, the others' pending word is read too."""

    def __init__(self, progress: Progress, files: Sequence[str]) -> None:
        self.progress, self.files = progress, len(files)
        self.total = sum(os.path.getsize(f) if os.path.isfile(f) else 0 for f in files)
        self.parts: list[ForkedPart] = []
        self.done: dict[int, tuple[int, int]] = {}
        self.hearing = False

    def heard(self, part: ForkedPart, done: int, done_bytes: int) -> None:
        """A part's word: its files and bytes read so far (and the other parts' word sent since)."""
        self.done[id(part)] = (done, done_bytes)
        if self.hearing:
            return
        self.hearing = True
        try:
            for other in self.parts:
                if other is not part:
                    other.drain()
        finally:
            self.hearing = False
        files, read = sum(d for d, _ in self.done.values()), sum(b for _, b in self.done.values())
        self.progress(files, self.files, read, self.total)


TOLD_EVERY_S = 0.5
"""How often a forked part tells how far its reading is, at most (and once at its last file)."""


def _span(ranks: Sequence[int]) -> str:
    return f"{ranks[0]}-{ranks[-1]}" if ranks else "(none)"


def _serve(conn: Connection, files: Sequence[str], first: int, tell: bool) -> None:
    """A forked part's loop: its files read (`analysis.FilesRead`, telling how far every TOLD_EVERY_S when asked
    to), then each question answered until None or the parent is gone: the reading's first, its shard's once kept."""
    last = [0.0]

    def told(done: int, count: int, done_bytes: int, _total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= TOLD_EVERY_S or done == count:
            last[0] = now
            conn.send((None, (done, done_bytes)))

    try:
        read: FilesRead | None = FilesRead(files, first, told if tell else None)
        failed = None
    except Exception:
        read, failed = None, RuntimeError(traceback.format_exc())
    while True:
        try:
            asked = conn.recv()
        except (EOFError, OSError):
            return
        if asked is None:
            return
        name, args = asked
        try:
            if failed is not None:
                raise failed
            assert read is not None
            if name == "keep":
                conn.send((True, read.keep(*args).ranks))
                give_back()
                continue
            conn.send((True, getattr(read.shard if read.shard is not None else read, name)(*args)))
            if name in LETTING_GO:
                give_back()
        except AnalysisError as exc:
            conn.send((False, exc))
        except Exception:
            conn.send((False, RuntimeError(traceback.format_exc())))


def give_back() -> None:
    """Memory this process freed given back to the system (glibc's `malloc_trim`; nothing elsewhere). A part lets go
    of whole columns between questions (a table's per-rank arrays, of a few kilobytes each), and the next question
    allocates per-step arrays that those holes do not fit: the freed pages stayed resident (at 10^7 rank-steps in one
    part, 83 MB of its 0.7 GB). Called after the questions that let go (`analysis.LETTING_GO`) alone: a trim walks
    the whole heap."""
    if sys.platform != "linux":
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def forked_parts(files: Sequence[str], jobs: int, progress: Progress | None = None) -> list[Part]:
    """How a measure at a threshold reads a run (`analysis.measure_parts`): its files cut into `jobs` parts of
    consecutive files, each read and then held by a forked process of its own (`ForkedPart`), their reading told to
    `progress`; one part read in this process with one job, or where fork is not the way processes start. The
    caller closes the forked ones after (`ForkedPart.close`).

    >>> import os, tempfile
    >>> from ddpcore.analysis.parted import measure_parts
    >>> from ddpcore.traces import simulated_run, summary_bytes
    >>> with tempfile.TemporaryDirectory() as d:
    ...     paths = [os.path.join(d, f"rank{r.rank}.ddps") for r in simulated_run(5, 3, seed=1)[0]]
    ...     for path, r in zip(paths, simulated_run(5, 3, seed=1)[0]):
    ...         _ = open(path, "wb").write(summary_bytes(r))
    ...     parts = forked_parts(paths, 2)
    ...     measured, errors = measure_parts(parts, 0.1)
    >>> [getattr(p, "ranks", None) for p in parts], len(measured.ranks)
    ([(0, 1, 2), (3, 4)], 5)
    >>> for p in parts:
    ...     p.close()
    """
    count = min(jobs, len(files))
    if count <= 1 or sys.platform != "linux":
        return [FilesRead(files, 0, progress)]
    size = -(-len(files) // count)
    reading = Reading(progress, files) if progress is not None else None
    parts = [ForkedPart(files[k : k + size], k, reading) for k in range(0, len(files), size)]
    if reading is not None:
        reading.parts = parts
    return parts  # type: ignore[return-value]
