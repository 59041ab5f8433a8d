"""python build.py bench --callbacks: what the framework integrations (`ddpcore.integrations`) cost a training step,
against the same loop without them.

A loop that does no training work calls each callback's hooks in its framework's order (Lightning's fit loop,
Hugging Face's `_inner_training_loop`) for STEPS steps, on a model of PARAMETERS trainable parameters whose
gradient hooks fire once a step, as a backward fires them; the bare loop makes the same calls to hooks that do
nothing. The difference, a step, is what the callback adds to a real step: its hooks, its clock readings and its
JSONL lines (to a real file). What a framework spends calling any callback is not in it (the same with or without
this one). Figures go under `callbacks` in bench/results.json.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ddpcore.integrations.huggingface import TrainerHooks
from ddpcore.integrations.lightning import LightningHooks
from scripts.bench.report import merge_into

STEPS = 2000
PARAMETERS = 200
"""A small transformer's trainable tensors (GPT-2 small has 148)."""
REPEATS = 5


class Handle:
    """What registering a hook returns: `remove` takes the hook off."""

    def __init__(self, hooks: list, hook: Callable) -> None:
        self.hooks, self.hook = hooks, hook

    def remove(self) -> None:
        self.hooks.remove(self.hook)


class Param:
    """A trainable tensor as the callbacks see it: its post-accumulate-grad hooks, called by `ready`."""

    requires_grad = True

    def __init__(self) -> None:
        self.hooks: list = []

    def register_post_accumulate_grad_hook(self, hook: Callable) -> Handle:
        self.hooks.append(hook)
        return Handle(self.hooks, hook)

    def ready(self) -> None:
        for hook in list(self.hooks):
            hook(self)


class Model:
    """A model as the callbacks see it, without torch: its trainable tensors, and forward hooks (Hugging Face's
    callback hooks the model itself). `forward` and `backward` fire the hooks, the time between them passed to
    `run` (ms): the bench runs none, the tests move their clock."""

    def __init__(self, parameters: int = 2) -> None:
        self.params = [Param() for _ in range(parameters)]
        self.pre: list = []
        self.post: list = []

    def parameters(self) -> Iterator[Param]:
        return iter(self.params)

    def register_forward_pre_hook(self, hook: Callable) -> Handle:
        self.pre.append(hook)
        return Handle(self.pre, hook)

    def register_forward_hook(self, hook: Callable) -> Handle:
        self.post.append(hook)
        return Handle(self.post, hook)

    def forward(self, run: Callable[[float], None] = lambda ms: None, ms: float = 0.0) -> None:
        """The forward: its pre-hooks, `ms` of work, its hooks."""
        for hook in list(self.pre):
            hook(self, ())
        run(ms)
        for hook in list(self.post):
            hook(self, (), None)

    def backward(self, run: Callable[[float], None] = lambda ms: None, ms: float = 0.0, wait_ms: float = 0.0) -> None:
        """The backward: `ms` of work, every gradient ready, then `wait_ms` at the barrier before it returns."""
        run(ms)
        for p in self.params:
            p.ready()
        run(wait_ms)


class _Nothing:
    """Hooks that do nothing: the bare loop."""

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: None


def _lightning_seconds(h: Any, folder: Path) -> float:
    model = Model(PARAMETERS)
    trainer = SimpleNamespace(
        global_rank=0, global_step=0, world_size=4, accumulate_grad_batches=1, num_training_batches=STEPS,
        default_root_dir=str(folder),
    )  # fmt: skip
    h.on_train_start(trainer, model)
    h.on_train_epoch_start(trainer, model)
    start = time.perf_counter()
    for index in range(STEPS):
        h.on_train_batch_start(trainer, model, None, index)
        h.on_before_backward(trainer, model, None)
        model.forward()
        model.backward()
        h.on_after_backward(trainer, model)
        h.on_before_optimizer_step(trainer, model, None)
        trainer.global_step += 1
        h.on_train_batch_end(trainer, model, None, None, index)
    took = time.perf_counter() - start
    h.on_train_end(trainer, model)
    return took


def _trainer_seconds(h: Any, folder: Path) -> float:
    model = Model(PARAMETERS)
    args = SimpleNamespace(output_dir=str(folder), process_index=0, world_size=4)
    state = SimpleNamespace(global_step=0)
    h.on_train_begin(args, state, None, model=model)
    start = time.perf_counter()
    for _ in range(STEPS):
        h.on_step_begin(args, state, None)
        model.forward()
        model.backward()
        h.on_pre_optimizer_step(args, state, None)
        h.on_optimizer_step(args, state, None)
        state.global_step += 1
        h.on_step_end(args, state, None)
    took = time.perf_counter() - start
    h.on_train_end(args, state, None)
    return took


def callback_figures() -> dict:
    """Each callback's added microseconds a step (median of REPEATS runs of STEPS steps, less the bare loop's)."""
    figures: dict = {"steps": STEPS, "parameters": PARAMETERS}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, run, make in (
            ("lightning", _lightning_seconds, LightningHooks),
            ("transformers", _trainer_seconds, TrainerHooks),
        ):
            bare = statistics.median(run(_Nothing(), folder) for _ in range(REPEATS))
            hooked = statistics.median(run(make(folder), folder) for _ in range(REPEATS))
            figures[name] = {
                "bare_us_per_step": 1e6 * bare / STEPS,
                "overhead_us_per_step": 1e6 * (hooked - bare) / STEPS,
            }
    return figures


def main(out: Path) -> int:
    """Measure, print and write the figures under `callbacks` in `out`/results.json."""
    figures = callback_figures()
    merge_into(out, "callbacks", figures)
    for name in ("lightning", "transformers"):
        print(f"{name}: {figures[name]['overhead_us_per_step']:.1f} µs a step ({PARAMETERS} parameters' hooks)")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[2])))
