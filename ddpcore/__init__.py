"""ddpcore: one step of data-parallel GPU training, modelled in the standard library.

The front door: everything public is importable from here. The step model loads with the package (the page's first
paint needs it); the traces path, the fit and the cluster model load on first use, through `__getattr__`, so that
`import ddpcore` costs no more than the step model does.

>>> import ddpcore
>>> ddpcore.StepConfig().gpus, ddpcore.THRESHOLD.default
(8, 0.1)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from .config import Phases, StepConfig
from .metrics import StepMetrics, step_metrics
from .params import THRESHOLD, ConfigError
from .ring import ChunkState, Exchange, Transfer, allreduce, exchange, exchanges, ring_state, traffic_factor
from .schedule import PHASES, Schedule, build_schedule

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .cluster import ClusterConfig, ClusterResult, MeasuredTiming, cluster_step, cluster_sweep, cluster_sweeps  # noqa: F401
    from .comm import Link, ring_time_ms, tree_time_ms  # noqa: F401
    from .files import read_paths  # noqa: F401
    from .fit import Fit, FitError, Outlook, RunTimes, WhatIf, outlook, outlook_of, outlook_or_why  # noqa: F401
    from .instrument import Recorder  # noqa: F401
    from .measured import DrawnRank, Measured, RankSummary, StepColumns, StepSummary, measure, measure_loaded  # noqa: F401
    from .stepfacts import RankColumns, RankFacts, StepFacts  # noqa: F401
    from .summary import summary_bytes  # noqa: F401
    from .tracefacts import facts_of, table_of  # noqa: F401
    from .traces import FileError, Loaded, RankTrace, TraceStep, load, load_streams, read_or_why  # noqa: F401
    from .verdict import Analysis, Cause, analyze, judge  # noqa: F401

_LAZY = {
    "traces": ("FileError", "Loaded", "RankTrace", "TraceStep", "load", "load_streams", "read_or_why"),
    "files": ("read_paths",),
    "tracefacts": ("facts_of", "table_of"),
    "stepfacts": ("RankColumns", "RankFacts", "StepFacts"),
    "summary": ("summary_bytes",),
    "measured": ("DrawnRank", "Measured", "RankSummary", "StepColumns", "StepSummary", "measure", "measure_loaded"),
    "verdict": ("Analysis", "Cause", "analyze", "judge"),
    "fit": ("Fit", "FitError", "Outlook", "RunTimes", "WhatIf", "outlook", "outlook_of", "outlook_or_why"),
    "cluster": ("ClusterConfig", "ClusterResult", "MeasuredTiming", "cluster_step", "cluster_sweep", "cluster_sweeps"),
    "comm": ("Link", "ring_time_ms", "tree_time_ms"),
    "instrument": ("Recorder",),
}
"""Submodule -> the public names it gives, loaded when one of them is first asked for. No name may be a
submodule's own (`fit` the function would be shadowed by `ddpcore.fit` the module once imported): `outlook` fits."""

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
