"""A small recorder for any training loop: step boundaries and phases, written as the project's JSONL.

    rec = Recorder("trace-rank0.jsonl", rank=0)
    for step, batch in enumerate(rec.steps(loader)):      # times the loading of each batch
        with rec.phase("forward"):
            loss = model(batch)
        with rec.phase("backward"):
            loss.backward()
        with rec.phase("optimizer"):
            opt.step()
    rec.close()

Each line is {"rank", "step", "phase", "start", "end"} in wall-clock seconds. It imports no torch: with DDP, wrap
the communication hook (`ddp.register_comm_hook(None, rec.comm_hook(default_hooks.allreduce_hook))`) so every
bucket AllReduce is recorded when it is launched and when it completes, which is where the barrier wait hides.

`summary=PATH` also writes the rank's summary (ddpcore.summary) when the recorder closes, the file a node would
otherwise make with `python -m ddpcore summarize`. `on_step` receives each finished step's times (`StepTimes`):
the Prometheus exporter's `observe` (`ddpcore.exporter`, extra `ddpcore[prometheus]`) makes them live per-rank
metrics in one line:

    rec = Recorder("trace-rank0.jsonl", rank=0, on_step=serve_metrics(9400, rank=0).observe)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..base.phases import RECORDED as PHASES

__all__ = ["Recorder", "StepTimes"]


def summary_of_rows(rows: list[dict[str, Any]], source: str) -> bytes:
    """The summary file (ddpcore.summary) of JSONL rows as the Recorder writes them: the same as `summarize` of the
    JSONL file.

    >>> rows = [{"rank": 0, "step": s, "phase": "forward", "start": s / 10, "end": s / 10 + 0.02} for s in range(1, 4)]
    >>> from ddpcore.traces.columnar import read_columnar
    >>> read_columnar(summary_of_rows(rows, "rank0.jsonl"), "rank0.ddpsum.json.gz").rank
    0
    """
    from ..traces import facts_of, summary_bytes
    from ..traces.parse import JsonlRows, TraceError

    table = JsonlRows()
    for number, row in enumerate(rows, 1):
        table.add(row, number)
    try:
        return summary_bytes(facts_of(table.trace(source)))
    except TraceError as exc:
        raise ValueError(f"summary: {exc}") from None


@dataclass(frozen=True)
class StepTimes:
    """One finished step of one rank, in seconds: its length, its arrival at the first gradient collective (the
    end of the backward when no hook records collectives), the time spent in each phase, and its wait at the
    gradient barrier: from the launch of its last bucket to the end of the last collective (0 without a hook)."""

    step: int
    seconds: float
    arrival_seconds: float
    phases: dict[str, float] = field(default_factory=dict)
    wait_seconds: float = 0.0


class Recorder:
    """Writes one rank's steps and phases as JSONL to a path (which it then owns and closes) or an open text file;
    `on_step`, when given, receives every finished step's `StepTimes`.

    A rank's loop, on a clock that ticks a millisecond a reading:

    >>> import io, itertools
    >>> ticks, out = itertools.count(), io.StringIO()
    >>> with Recorder(out, rank=0, clock=lambda: next(ticks) / 1000) as rec:
    ...     for batch in rec.steps(range(2)):
    ...         with rec.phase("forward"):
    ...             pass
    >>> print(out.getvalue().splitlines()[1])
    {"rank": 0, "step": 0, "phase": "forward", "start": 0.002, "end": 0.003}
    """

    def __init__(
        self,
        path: str | Path | IO[str],
        rank: int,
        clock: Callable[[], float] = time.time,
        on_step: Callable[[StepTimes], None] | None = None,
        summary: str | Path | None = None,
    ) -> None:
        self.rank = rank
        self.step = 0
        self._clock = clock
        self._lock = threading.Lock()
        self._own = isinstance(path, (str, Path))
        self._out: IO[str] = open(path, "w", encoding="utf-8") if isinstance(path, (str, Path)) else path  # noqa: SIM115
        self._on_step = on_step
        self._summary = summary
        self._source = Path(path).name if isinstance(path, (str, Path)) else f"rank{rank}"
        self._rows: list[dict[str, Any]] = []
        self._phases: dict[int, dict[str, float]] = {}
        self._first_launch: dict[int, float] = {}
        self._last_launch: dict[int, float] = {}
        self._release: dict[int, float] = {}
        self._backward_end: dict[int, float] = {}

    def record(self, phase: str, start: float, end: float, step: int | None = None) -> None:
        """Write one phase of one step (default: the current step), times in seconds."""
        if phase not in PHASES:
            raise ValueError(f"phase: got {phase!r}, allowed {', '.join(PHASES)}")
        number = self.step if step is None else step
        line = {
            "rank": self.rank,
            "step": number,
            "phase": phase,
            "start": start,
            "end": end,
        }
        with self._lock:
            self._out.write(json.dumps(line) + "\n")
            if self._summary is not None:
                self._rows.append(line)
            if self._on_step is not None:
                spent = self._phases.setdefault(number, {})
                spent[phase] = spent.get(phase, 0.0) + (end - start)
                if phase == "backward":
                    self._backward_end[number] = end
                if phase == "allreduce":
                    self._release[number] = max(end, self._release.get(number, end))

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the enclosed block as `name` in the current step."""
        start = self._clock()
        try:
            yield
        finally:
            self.record(name, start, self._clock())

    def steps(self, batches: Iterable[Any]) -> Iterator[Any]:
        """Yield batches, recording each fetch as `load` and advancing the step counter; a step ends when the loop
        asks for the next batch."""
        iterator = iter(batches)
        while True:
            start = self._clock()
            try:
                batch = next(iterator)
            except StopIteration:
                return
            self.record("load", start, self._clock())
            yield batch
            self._finish(self.step, start, self._clock())
            self.step += 1

    def _finish(self, step: int, start: float, end: float) -> None:
        if self._on_step is None:
            return
        with self._lock:
            phases = self._phases.pop(step, {})
            launch = self._first_launch.pop(step, None)
            last = self._last_launch.pop(step, None)
            release = self._release.pop(step, None)
            backward_end = self._backward_end.pop(step, None)
        arrival = launch if launch is not None else backward_end if backward_end is not None else end
        wait = max(0.0, release - last) if release is not None and last is not None else 0.0
        self._on_step(StepTimes(step, end - start, arrival - start, phases, wait))

    def comm_hook(self, inner: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        """Wrap a DDP communication hook: record each bucket's AllReduce from launch to completion."""

        # Unannotated on purpose: DDP's register_comm_hook rejects annotations other than its own types.
        def hook(state, bucket):  # type: ignore[no-untyped-def]
            step, start = self.step, self._clock()
            with self._lock:
                self._first_launch.setdefault(step, start)
                self._last_launch[step] = max(start, self._last_launch.get(step, start))
            future = inner(state, bucket)

            def done(fut: Any) -> Any:
                self.record("allreduce", start, self._clock(), step=step)
                return fut.value()

            return future.then(done)

        return hook

    def close(self) -> None:
        """Flush, and close the file if the recorder opened it; write the summary when one was asked for."""
        with self._lock:
            self._out.flush()
            if self._own:
                self._out.close()
            rows, self._rows = self._rows, []
        if self._summary is not None and rows:
            Path(self._summary).write_bytes(summary_of_rows(rows, self._source))

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
