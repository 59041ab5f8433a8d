"""Where an integration writes a rank's JSONL, and the error when its framework is missing."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from functools import cache
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

from ..ops import Recorder
from ..ops.hooked import HookedSteps

__all__ = ["rank_file"]

FOLDER = "ddpcore"
"""The folder, under a framework's own logging directory, that holds one JSONL per rank."""


def rank_file(logs: str | Path, rank: int) -> Path:
    """The JSONL of `rank` under a framework's logging directory `logs`: one file a rank, none more on rank 0.

    >>> rank_file("/tmp/run", 3).as_posix()
    '/tmp/run/ddpcore/rank3.jsonl'
    """
    return Path(logs) / FOLDER / f"rank{rank}.jsonl"


def framework(module: str, extra: str) -> ModuleType:
    """A framework's module, or an ImportError that says which extra installs it.

    >>> framework("no_such_framework_here", "lightning")
    Traceback (most recent call last):
    ...
    ImportError: this ddpcore integration needs no_such_framework_here: pip install "ddpcore[lightning]"
    """
    try:
        return import_module(module)
    except ImportError:
        raise ImportError(f'this ddpcore integration needs {module}: pip install "ddpcore[{extra}]"') from None


@cache
def framework_class(hooks: type, module: str, base: str, extra: str) -> type:
    """`hooks` made a subclass of a framework's callback class (`module`.`base`), so that the framework takes it for
    one of its own: made once, on first use (ImportError, saying which extra installs the framework, without it).

    >>> class Hooks:
    ...     pass
    >>> made = framework_class(Hooks, "collections", "OrderedDict", "none")
    >>> made.__name__, issubclass(made, Hooks), made is framework_class(Hooks, "collections", "OrderedDict", "none")
    ('DdpcoreOrderedDict', True, True)
    """
    return type(f"Ddpcore{base}", (hooks, getattr(framework(module, extra), base)), {"__module__": hooks.__module__})


SHARDED_CLASSES = ("FSDPModule", "FullyShardedDataParallel")
"""The classes a module sharded by FSDP (FSDP2's `fully_shard`, FSDP1's wrapper) is an instance of."""
SHARDED = (
    "ddpcore: this model is sharded by FSDP, whose ranks wait for a slow one at the all-gathers inside their forward, "
    "not at the gradient barrier that these files record: the verdict on them will not name a slow rank; record a "
    "profiler window to see the all-gathers' waits (docs/production.md)"
)
"""What an integration says, once, when the model it hooks is sharded by FSDP."""


def sharded(model: Any) -> bool:
    """Whether any of a model's modules is sharded by FSDP (`SHARDED_CLASSES` in its classes), read by name so that
    nothing of torch is imported.

    >>> class FSDPModule: ...
    >>> class Layer(FSDPModule): ...
    >>> import types
    >>> sharded(types.SimpleNamespace(modules=lambda: [Layer()])), sharded(types.SimpleNamespace(modules=lambda: []))
    (True, False)
    """
    modules = getattr(model, "modules", None)
    if modules is None:
        return False
    return any(c.__name__ in SHARDED_CLASSES for m in modules() for c in type(m).__mro__)


def hooked_steps(path: Path, rank: int, model: Any, clock: Callable[[], float] = time.time) -> HookedSteps:
    """A rank's `HookedSteps` writing to `path` (its folder made), with a post-accumulate-grad hook on each of the
    model's trainable tensors: the last one ready before the backward returns is the rank's readiness. A model sharded
    by FSDP is recorded, with a warning (`SHARDED`): its ranks wait elsewhere than at the gradient barrier.

    >>> import tempfile, types
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     steps = hooked_steps(rank_file(folder, 0), 0, types.SimpleNamespace(parameters=lambda: iter(())))
    ...     steps.close()
    >>> steps.handles
    []
    """
    if sharded(model):
        warnings.warn(SHARDED, stacklevel=3)
    path.parent.mkdir(parents=True, exist_ok=True)
    steps = HookedSteps(Recorder(path, rank=rank, clock=clock), clock)
    ready = steps.grad_ready
    for p in model.parameters():
        if p.requires_grad and hasattr(p, "register_post_accumulate_grad_hook"):
            steps.hooked(p.register_post_accumulate_grad_hook(lambda _: ready()))
    return steps
