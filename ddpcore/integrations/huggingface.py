"""Hugging Face: a `TrainerCallback` that writes each rank's steps as ddpcore's JSONL, and the same for a loop of
your own under Accelerate.

    from ddpcore.integrations import trainer_callback
    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[trainer_callback()])

Each rank writes `<output_dir>/ddpcore/rank<N>.jsonl`. The Trainer has no hook between a micro-batch's forward and
its backward, so the callback hooks the model itself: a forward pre-hook and a forward hook (inside a training step
only, never in evaluation), and each trainable parameter's post-accumulate-grad hook (the rank's readiness at the
barrier). The load is from the last step's end (or its logging, evaluation or checkpoint) to `on_step_begin`; the
backward of a micro-batch that synchronises ends at `on_pre_optimizer_step` (after gradient clipping), the others at
`on_substep_end`; the optimizer runs to `on_optimizer_step`. A step is an optimizer step (`state.global_step`).

In a loop of your own under Accelerate (`accelerate_steps`):

    steps = accelerate_steps(accelerator, model)
    for batch in steps.batches(loader):
        with accelerator.accumulate(model):
            with steps.forward():
                loss = model(**batch).loss
            steps.backward(loss)
            with steps.optimizer():
                optimizer.step()
                optimizer.zero_grad()
    steps.close()
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..ops.hooked import HookedSteps
from .rankfiles import framework_class, hooked_steps, rank_file

__all__ = ["AccelerateSteps", "TrainerHooks", "accelerate_steps", "trainer_callback"]


class TrainerHooks:
    """The callback's events, with `transformers.TrainerCallback`'s signatures, over `HookedSteps`
    (`trainer_callback` makes them a TrainerCallback; tests drive them with a fake trainer and `clock`)."""

    def __init__(self, dirpath: str | Path | None = None, clock: Callable[[], float] = time.time) -> None:
        self.dirpath = dirpath
        self.clock = clock
        self.steps: HookedSteps | None = None
        self._in_step = False
        self._backward = False
        self._ranks = 1

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        """Open the rank's file and hook the model."""
        if model is None:
            return
        rank = int(args.process_index)
        self.steps = hooked_steps(rank_file(self.dirpath or args.output_dir, rank), rank, model, self.clock)
        self._ranks = int(getattr(args, "world_size", 1))
        self.steps.hooked(model.register_forward_pre_hook(self._forward_start))
        self.steps.hooked(model.register_forward_hook(self._forward_end))
        self.steps.resume()

    def _forward_start(self, module: Any, inputs: Any) -> None:
        if self.steps is not None and self._in_step:
            self._backward_ends(sync=False)
            self.steps.forward_start()

    def _backward_ends(self, sync: bool) -> None:
        """The backward of the last forward, if it has not ended yet, ends now (`HookedSteps.backward_end`)."""
        if self.steps is not None and self._backward:
            self.steps.backward_end(sync)
            self._backward = False

    def _forward_end(self, module: Any, inputs: Any, output: Any) -> None:
        if self.steps is not None and self._in_step:
            self.steps.forward_end()
            self._backward = True

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """An optimizer step starts: its batches are fetched by now."""
        if self.steps is not None:
            self._in_step = True
            self.steps.batch_start(int(state.global_step))

    def on_substep_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """A micro-batch that does not synchronise ends."""
        self._backward_ends(sync=False)

    def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The last micro-batch's backward (synchronised) has ended; the optimizer starts."""
        self._backward_ends(sync=self._ranks > 1)
        if self.steps is not None:
            self.steps.optimizer_start()

    def on_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The optimizer's step ends. A Trainer older than `on_pre_optimizer_step` (transformers 4.42 to its
        arrival) ends the backward here instead, and the optimizer goes untimed (in the barrier's time)."""
        self._backward_ends(sync=self._ranks > 1)
        if self.steps is not None:
            self.steps.optimizer_end()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """The step ends."""
        if self.steps is not None:
            self._in_step = False
            self.steps.step_end()

    def _resume(self, *args: Any, **kwargs: Any) -> None:
        if self.steps is not None and not self._in_step:
            self.steps.resume()

    on_log = on_evaluate = on_save = _resume
    """Logging, evaluation and checkpoints after a step are no load of the next: it is counted from their end."""

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Close the rank's file and take the hooks off the model."""
        if self.steps is not None:
            self.steps.close()
            self.steps = None


def trainer_callback(dirpath: str | Path | None = None) -> Any:
    """A `transformers.TrainerCallback` that writes each rank's steps as ddpcore's JSONL under the trainer's
    `output_dir` (or `dirpath`): `TrainerHooks` as the Trainer's own callback class, made on first use. ImportError,
    saying which extra to install, without transformers.

    >>> try:
    ...     made = isinstance(trainer_callback(), TrainerHooks)
    ... except ImportError as missing:
    ...     made = str(missing) == 'this ddpcore integration needs transformers: pip install "ddpcore[transformers]"'
    >>> made
    True
    """
    return framework_class(TrainerHooks, "transformers", "TrainerCallback", "transformers")(dirpath)


class AccelerateSteps:
    """A loop of your own under Accelerate, recorded (the module's docstring): each batch's load, its forward, its
    backward through `accelerator.backward` (synchronised where `accelerator.sync_gradients` says), the optimizer on
    the steps that take one. A step is an optimizer step: the micro-batches of `accelerator.accumulate` add to it."""

    def __init__(
        self, accelerator: Any, model: Any, dirpath: str | Path = ".", clock: Callable[[], float] = time.time
    ) -> None:
        self.accelerator = accelerator
        rank = int(accelerator.process_index)
        self.steps = hooked_steps(rank_file(dirpath, rank), rank, model, clock)
        self.step = 0

    def batches(self, loader: Iterable[Any]) -> Iterator[Any]:
        """The loader's batches, each one's fetch counted as its step's load."""
        self.steps.resume()
        for batch in loader:
            self.steps.batch_start(self.step)
            yield batch

    @contextmanager
    def forward(self) -> Iterator[None]:
        """Time the enclosed forward."""
        self.steps.forward_start()
        yield
        self.steps.forward_end()

    def backward(self, loss: Any) -> None:
        """`accelerator.backward(loss)`, timed; the barrier recorded when it synchronises."""
        self.accelerator.backward(loss)
        synced = bool(self.accelerator.sync_gradients) and int(getattr(self.accelerator, "num_processes", 1)) > 1
        self.steps.backward_end(sync=synced)

    @contextmanager
    def optimizer(self) -> Iterator[None]:
        """Time the enclosed optimizer step where the micro-batch ends a step (Accelerate skips it elsewhere)."""
        taking = bool(self.accelerator.sync_gradients)
        if taking:
            self.steps.optimizer_start()
        yield
        if taking:
            self.steps.step_end()
            self.step += 1

    def close(self) -> None:
        """Close the rank's file and take the gradient hooks off."""
        self.steps.close()


def accelerate_steps(accelerator: Any, model: Any, dirpath: str | Path = ".") -> AccelerateSteps:
    """A loop of your own under Accelerate, recorded as ddpcore's JSONL under `dirpath` (`AccelerateSteps`): no
    import of Accelerate itself.

    An accelerator of 2 processes, rank 1, a model with no trainable tensor, one step of one batch:

    >>> import tempfile, types
    >>> accelerator = types.SimpleNamespace(process_index=1, num_processes=2, sync_gradients=True)
    >>> accelerator.backward = lambda loss: None
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     steps = accelerate_steps(accelerator, types.SimpleNamespace(parameters=lambda: iter(())), folder)
    ...     for batch in steps.batches([0]):
    ...         with steps.forward():
    ...             pass
    ...         steps.backward(None)
    ...         with steps.optimizer():
    ...             pass
    ...     steps.close()
    ...     [line.split('"phase": ')[1].split(",")[0] for line in open(rank_file(folder, 1))]
    ['"load"', '"forward"', '"backward"', '"optimizer"']
    """
    return AccelerateSteps(accelerator, model, dirpath)
