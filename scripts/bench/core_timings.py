"""Core timings, run the same way natively and in Pyodide (python build.py bench): the bench page loads this file."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from ddpcore.analysis import RunTimes, outlook
from ddpcore.model import ClusterConfig, StepConfig, cluster_step, cluster_sweeps, exchanges, ring_state, step_metrics
from ddpcore.model.ring import exchange_count


def timed(fn: Callable[[], object], repeat: int) -> dict[str, float]:
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return {"median_ms": statistics.median(samples), "max_ms": max(samples), "repeat": repeat}


def simulated_run(ranks: int = 8, steps: int = 40, seed: int = 0) -> RunTimes:
    """A run of `ranks` x `steps` drawn from the cluster model (cv 0.05, p 0.05, s 3): what the fit is timed on."""
    rng = random.Random(seed)
    compute = [
        [26.0 * rng.lognormvariate(0.0, 0.05) * (3.0 if rng.random() < 0.05 else 1.0) for _ in range(ranks)]
        for _ in range(steps)
    ]
    return RunTimes.of_compute(compute, [8.0 + max(row) for row in compute])


def run(repeat: int = 15) -> dict[str, dict[str, float]]:
    """Median and worst time of the core's heaviest calls, in ms."""
    big = ClusterConfig(gpus=1_000_000)
    traced = simulated_run()
    return {
        "fit_8x40": timed(lambda: outlook(traced), repeat),
        "step_8": timed(lambda: step_metrics(StepConfig(slowdown=2.0)), repeat * 10),
        "ring_64": timed(lambda: (exchanges(64), ring_state(64, exchange_count(64))), repeat),
        "cluster_1e6": timed(lambda: cluster_step(big), repeat),
        "cluster_sweep_both": timed(lambda: cluster_sweeps(big), repeat),
    }


def best_seconds(fn: Callable[[], object], repeat: int = 3) -> float:
    """The best of `repeat` timings of fn, in seconds (for runs long enough that the best is the signal)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def stream_seconds(data: bytes, repeat: int = 3) -> float:
    """The best time to read one trace file through the streaming reader, in chunks as a file is read."""
    from ddpcore.traces.parse import chunked, read_trace

    return best_seconds(lambda: read_trace("bench", chunked(data)), repeat)
