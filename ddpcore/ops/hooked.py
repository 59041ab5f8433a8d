"""A training step's phases told by a framework's hooks, written by a `Recorder`: what the Lightning and Hugging Face
callbacks (`ddpcore.integrations`) share, with no framework of its own.

A framework calls its hooks at the edges of a step's phases; each call here marks an instant, and the time since the
last mark goes to the phase that it closes:

    load       from the last step's end (or the epoch's start) to the batch's start: the data loader's fetch
    forward    from the batch's start to the loss (the backward's start)
    backward   to the last parameter's gradient ready (`grad_ready`, from a post-accumulate-grad hook)
    allreduce  from that gradient to the backward's return, on a step whose gradients are synchronised: the last
               gradient bucket's exchange and the wait at the barrier, where a slow rank's lateness shows
    optimizer  from the optimizer's start to its end

A step is an optimizer step: with gradient accumulation its micro-batches add their load, forward and backward to
the same step, and only the last one synchronises. A loop that is not training (validation, a checkpoint, logging)
runs between `pause` and `resume`, so that its time is never counted as the next step's load.

>>> import io, itertools, json
>>> ticks, out = itertools.count(), io.StringIO()
>>> steps = HookedSteps(Recorder(out, rank=0), clock=lambda: next(ticks) / 1000)
>>> steps.resume(); steps.batch_start(7); steps.forward_end(); steps.grad_ready(); steps.backward_end(sync=True)
>>> steps.optimizer_start(); steps.optimizer_end(); steps.close()
>>> rows = [json.loads(line) for line in out.getvalue().splitlines()]
>>> [(r["phase"], r["step"], round(1000 * (r["end"] - r["start"]))) for r in rows]
[('load', 7, 1), ('forward', 7, 1), ('backward', 7, 1), ('allreduce', 7, 1), ('optimizer', 7, 1)]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .instrument import Recorder

__all__ = ["HookedSteps"]


class HookedSteps:
    """A rank's steps as a framework's hooks tell them (the module's docstring), written to `recorder`; `clock` is
    wall-clock seconds, as the recorder's lines are."""

    def __init__(self, recorder: Recorder, clock: Callable[[], float] = time.time) -> None:
        self.recorder = recorder
        self._clock = clock
        self._mark: float | None = None
        self._grad: float | None = None
        self._optimizing = False
        self.handles: list[Any] = []

    def _close(self, phase: str, now: float) -> None:
        if self._mark is not None and now >= self._mark:
            self.recorder.record(phase, self._mark, now)
        self._mark = now

    def resume(self) -> None:
        """Training starts or resumes (an epoch's start, the end of a validation loop): the next batch's load is
        counted from now."""
        self._mark = self._clock()

    def pause(self) -> None:
        """Training stops for a while (a validation loop): nothing is counted until it resumes or a batch starts."""
        self._mark = None

    def batch_start(self, step: int) -> None:
        """A batch (or a micro-batch of `step`) starts: its load is from the last mark, its forward from now."""
        self.recorder.step = step
        self._close("load", self._clock())
        self._grad = None

    def forward_start(self) -> None:
        """The forward starts (a framework whose batch starts before its fetch ends, Hugging Face's prefetch of an
        accumulation's batches): the time since the last mark is counted in no phase."""
        self._mark = self._clock()
        self._grad = None

    def forward_end(self) -> None:
        """The loss is computed: the forward ends and the backward starts."""
        self._close("forward", self._clock())

    def grad_ready(self) -> None:
        """A parameter's gradient is ready (called from each parameter's post-accumulate-grad hook, on the autograd
        thread): the last one before the backward returns is the rank's readiness at the barrier. One clock reading
        and one assignment (a model's every trainable tensor calls it each backward)."""
        self._grad = self._clock()

    def backward_end(self, sync: bool) -> None:
        """The backward returns; `sync`: its gradients were synchronised across ranks (the last micro-batch of a
        step), so the time from the last gradient ready to now is the barrier's (`allreduce`)."""
        now = self._clock()
        ready, self._grad = self._grad, None
        if sync and ready is not None and self._mark is not None and self._mark <= ready <= now:
            self._close("backward", ready)
            self._close("allreduce", now)
        else:
            self._close("backward", now)

    def optimizer_start(self) -> None:
        """The optimizer's step starts (after gradient clipping, when there is some)."""
        self._mark = self._clock()
        self._optimizing = True

    def optimizer_end(self) -> None:
        """The optimizer's step ends."""
        if self._optimizing:
            self._close("optimizer", self._clock())
        self._optimizing = False

    def step_end(self) -> None:
        """The step ends: the next batch's load is counted from now."""
        self.optimizer_end()
        self._mark = self._clock()

    def hooked(self, handle: Any) -> None:
        """Keep a hook's handle (what registering it returned), to take the hook off at `close`."""
        self.handles.append(handle)

    def close(self) -> None:
        """Take every hook kept off, and close the recorder (its file)."""
        for handle in self.handles:
            handle.remove()
        self.handles = []
        self.recorder.close()
