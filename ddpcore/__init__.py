"""ddpcore: one step of data-parallel GPU training, modelled in the standard library.

The front door: everything public is importable from here. The step model loads with the package (the page's first
paint needs it); the traces path, the fit and the cluster model load on first use, through `__getattr__`, so that
`import ddpcore` costs no more than the step model does.

>>> import ddpcore
>>> ddpcore.StepConfig().gpus, ddpcore.THRESHOLD.default
(8, 0.1)
>>> ddpcore.PHASES
('load', 'forward', 'backward', 'wait', 'allreduce', 'optimizer')
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from .base import THRESHOLD, ConfigError
from .model import (
    PHASES,
    ChunkState,
    Exchange,
    Phases,
    Schedule,
    StepConfig,
    StepMetrics,
    Transfer,
    allreduce,
    build_schedule,
    exchange,
    exchanges,
    ring_state,
    step_metrics,
    traffic_factor,
)

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .analysis import (  # noqa: F401
        Analysis,
        Cause,
        DrawnRank,
        Fit,
        FitError,
        Measured,
        Outlook,
        RankSummary,
        RunTimes,
        StepColumns,
        StepSummary,
        WhatIf,
        analyze,
        judge,
        measure,
        measure_loaded,
        outlook,
        outlook_of,
        outlook_or_why,
    )
    from .model import (  # noqa: F401
        ClusterConfig,
        ClusterResult,
        Link,
        MeasuredTiming,
        cluster_step,
        cluster_sweep,
        cluster_sweeps,
        ring_time_ms,
        tree_time_ms,
    )
    from .ops import Recorder  # noqa: F401
    from .traces import (  # noqa: F401
        FileError,
        Loaded,
        RankColumns,
        RankFacts,
        RankTrace,
        StepFacts,
        TraceStep,
        facts_of,
        load,
        load_streams,
        read_or_why,
        read_paths,
        summary_bytes,
        table_of,
    )

_LAZY = {
    "traces": (
        "FileError",
        "Loaded",
        "RankTrace",
        "TraceStep",
        "load",
        "load_streams",
        "read_or_why",
        "read_paths",
        "facts_of",
        "table_of",
        "RankColumns",
        "RankFacts",
        "StepFacts",
        "summary_bytes",
    ),
    "analysis": (
        "DrawnRank",
        "Measured",
        "RankSummary",
        "StepColumns",
        "StepSummary",
        "measure",
        "measure_loaded",
        "Analysis",
        "Cause",
        "analyze",
        "judge",
        "Fit",
        "FitError",
        "Outlook",
        "RunTimes",
        "WhatIf",
        "outlook",
        "outlook_of",
        "outlook_or_why",
    ),
    "model": (
        "ClusterConfig",
        "ClusterResult",
        "MeasuredTiming",
        "cluster_step",
        "cluster_sweep",
        "cluster_sweeps",
        "Link",
        "ring_time_ms",
        "tree_time_ms",
    ),
    "ops": ("Recorder",),
}
"""Subpackage -> the public names it gives through its front door, loaded when one of them is first asked for."""

_WHERE = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> object:
    """A lazily exported name, imported from its submodule on first use (PEP 562)."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'ddpcore' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    """The public names, lazy ones included."""
    return sorted(__all__)


__all__ = [
    "PHASES",
    "THRESHOLD",
    "ChunkState",
    "ConfigError",
    "Exchange",
    "Phases",
    "Schedule",
    "StepConfig",
    "StepMetrics",
    "Transfer",
    "allreduce",
    "build_schedule",
    "exchange",
    "exchanges",
    "ring_state",
    "step_metrics",
    "traffic_factor",
    *_WHERE,
]
