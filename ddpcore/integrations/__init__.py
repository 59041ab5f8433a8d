"""Where PyTorch users already are: a Lightning callback and a Hugging Face `TrainerCallback` that write each rank's
steps as ddpcore's JSONL, and a recorder for an Accelerate loop. Each framework is imported only when its
integration is asked for (the extras `ddpcore[lightning]` and `ddpcore[transformers]`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .huggingface import (  # noqa: F401
        accelerate_steps,
        trainer_callback,
    )
    from .lightning import (  # noqa: F401
        lightning_callback,
    )
    from .rankfiles import (  # noqa: F401
        rank_file,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "huggingface": (
        "accelerate_steps",
        "trainer_callback",
    ),
    "lightning": ("lightning_callback",),
    "rankfiles": ("rank_file",),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
