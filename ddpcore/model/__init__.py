"""The step model: validated inputs (`config`), the AllReduce's cost (`comm`), the ring exchange by exchange
(`ring`), each rank's phases (`schedule`), the step's figures (`metrics`), and the slowest of N ranks at cluster
scale (`cluster`).

The front door: code outside this package imports only what `__all__` names here, each loaded on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .cluster import (  # noqa: F401
        ALGORITHMS,
        COARSE_POINTS,
        GRID_STEP,
        HOURS_PER_DAY,
        MAX_CLUSTER_GPUS,
        SIGMA_FLOOR,
        SWEEP_MAX,
        SWEEP_MIN,
        SWEEP_POINTS,
        Z_SPAN,
        ClusterConfig,
        ClusterResult,
        ComputeStats,
        MeasuredTiming,
        SlowestRank,
        any_straggles,
        cluster_allreduce_ms,
        cluster_step,
        cluster_sweep,
        cluster_sweeps,
        compute_stats,
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
        ALL_GATHER,
        MAX_RING_GPUS,
        REDUCE_SCATTER,
        ChunkState,
        Exchange,
        Transfer,
        allreduce,
        chunk_bounds,
        exchange,
        exchange_count,
        exchanges,
        ring_state,
        run_ring,
        sent_fraction,
        traffic_factor,
    )
    from .schedule import (  # noqa: F401
        MAX_BUCKETS,
        PHASES,
        Bucket,
        RankSchedule,
        Schedule,
        allreduce_ms,
        bucket_sizes,
        build_overlap,
        build_schedule,
        build_sequential,
        exchange_end_ms,
        exchanges_done_at,
    )

_LAZY = {
    "cluster": (
        "ALGORITHMS",
        "COARSE_POINTS",
        "ClusterConfig",
        "ClusterResult",
        "ComputeStats",
        "GRID_STEP",
        "HOURS_PER_DAY",
        "MAX_CLUSTER_GPUS",
        "MeasuredTiming",
        "SIGMA_FLOOR",
        "SWEEP_MAX",
        "SWEEP_MIN",
        "SWEEP_POINTS",
        "SlowestRank",
        "Z_SPAN",
        "any_straggles",
        "cluster_allreduce_ms",
        "cluster_step",
        "cluster_sweep",
        "cluster_sweeps",
        "compute_stats",
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
        "ALL_GATHER",
        "ChunkState",
        "Exchange",
        "MAX_RING_GPUS",
        "REDUCE_SCATTER",
        "Transfer",
        "allreduce",
        "chunk_bounds",
        "exchange",
        "exchange_count",
        "exchanges",
        "ring_state",
        "run_ring",
        "sent_fraction",
        "traffic_factor",
    ),
    "schedule": (
        "Bucket",
        "MAX_BUCKETS",
        "PHASES",
        "RankSchedule",
        "Schedule",
        "allreduce_ms",
        "bucket_sizes",
        "build_overlap",
        "build_schedule",
        "build_sequential",
        "exchange_end_ms",
        "exchanges_done_at",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
