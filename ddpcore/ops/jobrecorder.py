"""A recorder for one worker of a 3D-parallel job (data, pipeline, tensor groups): each operation it runs in a step,
written as the operation table `analyze` reads (`traces.optrace`), one JSONL file per worker.

    rec = JobRecorder("job-dp0-stage1.jsonl", rank=1, dp_rank=0, stage=1, sizes=JobSizes(dp=2, pp=2))
    for step in rec.steps(range(40)):
        for mb in range(4):
            with rec.op("forward-recv"):
                dist.recv(x, prev)
            with rec.op("forward-compute", micro_batch=mb):
                y = stage(x)
            ...
        with rec.op("grads-reduce-scatter"):
            dist.all_reduce(grads, group=dp_group)
        with rec.op("optimizer-clip-main-grad"):
            dist.all_reduce(norm)
        with rec.op("optimizer"):
            opt.step()
    rec.close()

The first line names the job's group sizes; each other line is one operation: `{"dp_rank", "stage", "rank",
"step", "optype", "start_ts", "duration", "seq_id", "mc", "mb_id"}`, seconds on the wall clock. `seq_id` counts the
worker's operations of that type in the step, as the graph pairs them (the k-th forward send of stage s with the
k-th forward receive of stage s + 1). Operation types are the artifact's (`OP_TYPES`). Only one rank of a tensor-
parallel group needs to record (its peers run the same operations at the same times): give `tp_rank` and the others
write nothing.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

__all__ = ["OP_TYPES", "JobRecorder", "JobSizes"]

OP_TYPES = (
    "forward-compute",
    "backward-compute",
    "forward-send",
    "forward-recv",
    "backward-send",
    "backward-recv",
    "params-all-gather",
    "grads-reduce-scatter",
    "separate-grads-all-reduce",
    "layernorm-grads-all-reduce",
    "embedding-grads-all-reduce",
    "gc",
    "optimizer-clip-main-grad",
    "optimizer",
)
"""The operation types a worker records: the dependency graph's (`analysis.jobgraph`)."""


@dataclass(frozen=True)
class JobSizes:
    """A job's group sizes: data-parallel, pipeline, tensor-parallel, context-parallel, virtual stages."""

    dp: int = 1
    pp: int = 1
    tp: int = 1
    cp: int = 1
    vpp: int = 1


class JobRecorder:
    """Writes one worker's operations as JSONL (a path it owns, or an open text file); see the module's docstring.

    >>> import io, itertools
    >>> ticks, out = itertools.count(), io.StringIO()
    >>> rec = JobRecorder(out, rank=1, dp_rank=0, stage=1, sizes=JobSizes(dp=1, pp=2), clock=lambda: next(ticks) / 10)
    >>> for step in rec.steps(range(1)):
    ...     with rec.op("forward-compute", micro_batch=0):
    ...         pass
    >>> rec.close()
    >>> [json.loads(line) for line in out.getvalue().splitlines()][1]["optype"]
    'forward-compute'
    """

    def __init__(
        self,
        path: str | Path | IO[str],
        rank: int,
        dp_rank: int,
        stage: int,
        sizes: JobSizes,
        tp_rank: int = 0,
        name: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not (0 <= dp_rank < sizes.dp and 0 <= stage < sizes.pp and 0 <= tp_rank < sizes.tp):
            raise ValueError(f"dp_rank {dp_rank}, stage {stage}, tp_rank {tp_rank}: outside the job's {sizes}")
        self.rank, self.dp_rank, self.stage, self.step = rank, dp_rank, stage, 0
        self._writes = tp_rank == 0
        self._clock = clock
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._own = isinstance(path, (str, Path)) and self._writes
        self._out: IO[str] | None = (
            (open(path, "w", encoding="utf-8") if isinstance(path, (str, Path)) else path)  # noqa: SIM115
            if self._writes
            else None
        )
        header = {
            "job": name,
            "dp_size": sizes.dp,
            "pp_size": sizes.pp,
            "tp_size": sizes.tp,
            "dsp_size": sizes.cp,
            "vpp_size": sizes.vpp,
        }
        self._write(header)

    def _write(self, line: dict[str, Any]) -> None:
        if self._out is not None:
            with self._lock:
                self._out.write(json.dumps(line) + "\n")

    def place(self, optype: str) -> int:
        """The next place (`seq_id`) of an operation of `optype` in the current step, taken: for an operation
        recorded later than it starts (a send whose completion another thread waits for), so that its place is the
        order the worker issued it in."""
        with self._lock:
            seq = self._counts.get(optype, 0)
            self._counts[optype] = seq + 1
        return seq

    def record(
        self, optype: str, start: float, end: float, micro_batch: int = -1, chunk: int = 0, seq: int | None = None
    ) -> None:
        """Write one operation of the current step, times in seconds, at its place `seq` (by default the next,
        `place`)."""
        if optype not in OP_TYPES:
            raise ValueError(f"optype: got {optype!r}, allowed {', '.join(OP_TYPES)}")
        if seq is None:
            seq = self.place(optype)
        self._write(
            {
                "dp_rank": self.dp_rank,
                "stage": self.stage,
                "rank": self.rank,
                "step": self.step,
                "optype": optype,
                "start_ts": start,
                "duration": max(0.0, end - start),
                "seq_id": seq,
                "mc": chunk,
                "mb_id": micro_batch,
            }
        )

    @contextmanager
    def op(self, optype: str, micro_batch: int = -1, chunk: int = 0) -> Iterator[None]:
        """Time the enclosed block as one operation of `optype` in the current step."""
        start = self._clock()
        try:
            yield
        finally:
            self.record(optype, start, self._clock(), micro_batch, chunk)

    def steps(self, items: Iterable[Any]) -> Iterator[Any]:
        """Yield the items, one step each: the step counter and the operations' places start again with each."""
        for item in items:
            with self._lock:
                self._counts = {}
            yield item
            self.step += 1

    def close(self) -> None:
        """Flush, and close the file if the recorder opened it."""
        if self._out is not None:
            with self._lock:
                self._out.flush()
                if self._own:
                    self._out.close()
