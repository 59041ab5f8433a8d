"""The step model: validated inputs (`config`), the AllReduce's cost (`comm`), the ring exchange by exchange
(`ring`), each rank's phases (`schedule`), the step's figures (`metrics`), and the slowest of N ranks at cluster
scale (`cluster`).

The front door: code outside this package imports only what `__all__` names here, each loaded on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .cluster import (  # noqa: F401
        HOURS_PER_DAY,
        SWEEP_MAX,
        SWEEP_MIN,
        ClusterConfig,
        ClusterResult,
        MeasuredTiming,
        any_straggles,
        cluster_allreduce_ms,
        cluster_step,
        cluster_sweep,
        cluster_sweeps,
        slowest_rank,
        sweep_sizes,
    )
    from .comm import (  # noqa: F401
        Link,
        algbw_gbps,
        busbw_gbps,
        ring_time_ms,
        tree_time_ms,
    )
    from .config import (  # noqa: F401
        Phases,
        StepConfig,
        default_straggler,
    )
    from .metrics import (  # noqa: F401
        StepMetrics,
        compare_modes,
        displayed_util,
        step_metrics,
        useful_compute,
    )
    from .ring import (  # noqa: F401
        ChunkState,
        Exchange,
        Transfer,
        allreduce,
        chunk_bounds,
        exchange,
        exchange_count,
        exchanges,
        ring_state,
        sent_fraction,
        traffic_factor,
    )
    from .schedule import (  # noqa: F401
        PHASES,
        Bucket,
        Schedule,
        allreduce_ms,
        bucket_sizes,
        build_schedule,
        exchange_end_ms,
        exchanges_done_at,
    )

_LAZY = {
    "cluster": (
        "ClusterConfig",
        "ClusterResult",
        "HOURS_PER_DAY",
        "MeasuredTiming",
        "SWEEP_MAX",
        "SWEEP_MIN",
        "any_straggles",
        "cluster_allreduce_ms",
        "cluster_step",
        "cluster_sweep",
        "cluster_sweeps",
        "slowest_rank",
        "sweep_sizes",
    ),
    "comm": (
        "Link",
        "algbw_gbps",
        "busbw_gbps",
        "ring_time_ms",
        "tree_time_ms",
    ),
    "config": (
        "Phases",
        "StepConfig",
        "default_straggler",
    ),
    "metrics": (
        "StepMetrics",
        "compare_modes",
        "displayed_util",
        "step_metrics",
        "useful_compute",
    ),
    "ring": (
        "ChunkState",
        "Exchange",
        "Transfer",
        "allreduce",
        "chunk_bounds",
        "exchange",
        "exchange_count",
        "exchanges",
        "ring_state",
        "sent_fraction",
        "traffic_factor",
    ),
    "schedule": (
        "Bucket",
        "PHASES",
        "Schedule",
        "allreduce_ms",
        "bucket_sizes",
        "build_schedule",
        "exchange_end_ms",
        "exchanges_done_at",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
