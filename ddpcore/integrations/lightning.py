"""A Lightning callback that writes each rank's steps as ddpcore's JSONL: one line in `Trainer(callbacks=[...])`.

    from ddpcore.integrations import lightning_callback
    trainer = Trainer(strategy="ddp", callbacks=[lightning_callback()])

Each rank writes `<log_dir>/ddpcore/rank<N>.jsonl` (the trainer's own logging directory, or `dirpath`), then
`python -m ddpcore analyze <log_dir>/ddpcore/*.jsonl`. From Lightning's hooks, in the order its fit loop calls them:
the load between batches, the forward to `on_before_backward`, the backward to the last parameter's gradient
(post-accumulate-grad hooks), the barrier to `on_after_backward` on a step that synchronises, and the optimizer
from `on_before_optimizer_step` to `on_train_batch_end`. A step is an optimizer step (`trainer.global_step`): with
gradient accumulation its micro-batches add to it. A validation loop is kept apart (nothing of it is counted), and
a resumed run goes on with the steps it resumed at. Written for the `ddp` and `fsdp` strategies: where a sharded
model's flat parameters call no gradient hook, the backward runs to `on_after_backward` and no barrier is recorded
(the verdict then reads the step from its start). Lightning runs `fsdp` on GPUs only; the same hooks on an FSDP2 model
on CPU record every phase, but a rank slow in its forward is not named: the others wait for it inside their own
forward, at FSDP's all-gathers, not at the gradient barrier (docs/production.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..ops.hooked import HookedSteps
from .rankfiles import framework_class, hooked_steps, rank_file

__all__ = ["LightningHooks", "lightning_callback"]


class LightningHooks:
    """The callback's hooks, with Lightning's signatures, over `HookedSteps` (`lightning_callback` makes them a
    `lightning.pytorch.Callback`; tests drive them with a fake trainer and `clock`)."""

    def __init__(self, dirpath: str | Path | None = None, clock: Callable[[], float] = time.time) -> None:
        self.dirpath = dirpath
        self.clock = clock
        self.steps: HookedSteps | None = None
        self._batch = 0

    def on_train_start(self, trainer: Any, pl_module: Any) -> None:
        """Open the rank's file and hook each trainable parameter's gradient."""
        logs = self.dirpath or getattr(trainer, "log_dir", None) or trainer.default_root_dir
        self.steps = hooked_steps(rank_file(logs, trainer.global_rank), trainer.global_rank, pl_module, self.clock)

    def on_train_epoch_start(self, trainer: Any, pl_module: Any) -> None:
        """The first batch's load is counted from the epoch's start."""
        if self.steps is not None:
            self.steps.resume()

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int) -> None:
        """A batch starts: its load ends and its forward starts, in the optimizer step it adds to."""
        if self.steps is not None:
            self._batch = batch_idx
            self.steps.batch_start(trainer.global_step)

    def on_before_backward(self, trainer: Any, pl_module: Any, loss: Any) -> None:
        """The loss is computed: the forward ends."""
        if self.steps is not None:
            self.steps.forward_end()

    def on_after_backward(self, trainer: Any, pl_module: Any) -> None:
        """The backward returns; its gradients were synchronised across ranks on an accumulation's last batch (or the
        epoch's), when there are several ranks."""
        if self.steps is not None:
            every = max(1, int(getattr(trainer, "accumulate_grad_batches", 1) or 1))
            last = getattr(trainer, "num_training_batches", None)
            done = self._batch + 1
            stepping = done % every == 0 or (isinstance(last, int) and done == last)
            self.steps.backward_end(sync=stepping and int(getattr(trainer, "world_size", 1)) > 1)

    def on_before_optimizer_step(self, trainer: Any, pl_module: Any, optimizer: Any) -> None:
        """The optimizer's step starts."""
        if self.steps is not None:
            self.steps.optimizer_start()

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        """The batch ends (and the optimizer's step, when it took one)."""
        if self.steps is not None:
            self.steps.step_end()

    def on_validation_start(self, trainer: Any, pl_module: Any) -> None:
        """A validation loop is kept apart from the training steps."""
        if self.steps is not None:
            self.steps.pause()

    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        """Training resumes: the next load is counted from now."""
        if self.steps is not None:
            self.steps.resume()

    def on_train_end(self, trainer: Any, pl_module: Any) -> None:
        """Close the rank's file and take the gradient hooks off."""
        if self.steps is not None:
            self.steps.close()
            self.steps = None


def lightning_callback(dirpath: str | Path | None = None) -> Any:
    """A `lightning.pytorch.Callback` that writes each rank's steps as ddpcore's JSONL under the trainer's logging
    directory (or `dirpath`): `LightningHooks` as Lightning's own callback class, made on first use. ImportError,
    saying which extra to install, without Lightning.

    >>> try:
    ...     made = isinstance(lightning_callback(), LightningHooks)
    ... except ImportError as missing:
    ...     made = str(missing) == 'this ddpcore integration needs lightning.pytorch: pip install "ddpcore[lightning]"'
    >>> made
    True
    """
    return framework_class(LightningHooks, "lightning.pytorch", "Callback", "lightning")(dirpath)
