"""What to hand to production: the JSONL recorder for a training loop (`instrument`), metric names, rules and a
dashboard (`alerts`), recorded steps played back (`replay`) and the Prometheus exporter (`exporter`, the one module
outside the standard library, behind the `prometheus` extra).

The front door: the layer's public names (`__all__`), each loaded on first use: what a user of ddpcore needs, kept
as it is between releases. The layers above reach the rest of its modules' names by module (`from
..analysis.chance import ALPHA`); code outside ddpcore has no promise that they stay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .alerts import (  # noqa: F401
        dashboard,
        rules_file,
        scrape_config,
    )
    from .exporter import (  # noqa: F401
        serve_metrics,
    )
    from .instrument import (  # noqa: F401
        Recorder,
    )
    from .jobrecorder import (  # noqa: F401
        JobRecorder,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "alerts": (
        "dashboard",
        "rules_file",
        "scrape_config",
    ),
    "exporter": ("serve_metrics",),
    "instrument": ("Recorder",),
    "jobrecorder": ("JobRecorder",),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
