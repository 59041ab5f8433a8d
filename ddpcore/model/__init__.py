"""The step model: validated inputs (`config`), the AllReduce's cost (`comm`), the ring exchange by exchange
(`ring`), each rank's phases (`schedule`), the step's figures (`metrics`), and the slowest of N ranks at cluster
scale (`cluster`).

The front door: the layer's public names (`__all__`), each loaded on first use: what a user of ddpcore needs, kept
as it is between releases. The layers above reach the rest of its modules' names by module (`from
..analysis.chance import ALPHA`); code outside ddpcore has no promise that they stay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .cluster import (  # noqa: F401
        ClusterConfig,
        ClusterResult,
        MeasuredTiming,
        cluster_step,
        cluster_sweep,
        cluster_sweeps,
    )
    from .comm import (  # noqa: F401
        Link,
        ring_time_ms,
        tree_time_ms,
    )
    from .config import (  # noqa: F401
        Phases,
        StepConfig,
    )
    from .metrics import (  # noqa: F401
        StepMetrics,
        step_metrics,
    )
    from .ring import (  # noqa: F401
        ChunkState,
        Exchange,
        Transfer,
        allreduce,
        exchange,
        exchanges,
        ring_state,
        traffic_factor,
    )
    from .schedule import (  # noqa: F401
        PHASES,
        Schedule,
        build_schedule,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "cluster": (
        "ClusterConfig",
        "ClusterResult",
        "MeasuredTiming",
        "cluster_step",
        "cluster_sweep",
        "cluster_sweeps",
    ),
    "comm": (
        "Link",
        "ring_time_ms",
        "tree_time_ms",
    ),
    "config": (
        "Phases",
        "StepConfig",
    ),
    "metrics": (
        "StepMetrics",
        "step_metrics",
    ),
    "ring": (
        "ChunkState",
        "Exchange",
        "Transfer",
        "allreduce",
        "exchange",
        "exchanges",
        "ring_state",
        "traffic_factor",
    ),
    "schedule": (
        "PHASES",
        "Schedule",
        "build_schedule",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
