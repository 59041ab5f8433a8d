"""Core timings, run the same way natively and in Pyodide (python build.py bench)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from .cluster import ClusterConfig, cluster_step, cluster_sweeps
from .config import StepConfig
from .metrics import step_metrics
from .ring import exchange_count, exchanges, ring_state


def _timed(fn: Callable[[], object], repeat: int) -> dict[str, float]:
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return {"median_ms": statistics.median(samples), "max_ms": max(samples), "repeat": repeat}


def run(repeat: int = 15) -> dict[str, dict[str, float]]:
    big = ClusterConfig(gpus=1_000_000)
    return {
        "step_8": _timed(lambda: step_metrics(StepConfig(slowdown=2.0)), repeat * 10),
        "ring_64": _timed(lambda: (exchanges(64), ring_state(64, exchange_count(64))), repeat),
        "cluster_1e6": _timed(lambda: cluster_step(big), repeat),
        "cluster_sweep_both": _timed(lambda: cluster_sweeps(big), repeat),
    }
