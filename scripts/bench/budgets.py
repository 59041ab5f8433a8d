"""The bench's budgets, in one table: each names a figure of bench/results.json, its bound and its limit; and the
reference machine that the milliseconds are read against."""

from __future__ import annotations

import statistics
from typing import NamedTuple

from scripts.tracegen import LONG_STEPS

__all__ = [
    "BUDGETS",
    "HALF",
    "NOT_MEASURED",
    "PAGE_RANKS",
    "REFERENCE_NATIVE_MS",
    "JOBS3D_BUDGETS",
    "SCALE_BUDGETS",
    "SLOW",
    "STREAM_MB",
    "Budget",
    "machine_slowdown",
]

HALF, SLOW = 2, 4
"""CPU throttling rates (Chrome's Emulation.setCPUThrottlingRate): a machine half as fast as this one, and
Lighthouse's mobile profile. The budgets must hold there too."""

STREAM_MB = 50
"""The size of the generated profiler trace of one rank that the streaming figures read."""

PAGE_RANKS = 8
"""How many ranks of traces the page reads in the reading figures."""


class Budget(NamedTuple):
    """A limit on one figure: `path` into bench/results.json, `bound` "≤" (at most) or "≥" (at least)."""

    name: str
    path: tuple[str, ...]
    bound: str
    limit: float
    unit: str

    def holds(self, figure: float) -> bool:
        """Whether `figure` is within the limit.

        >>> Budget("x", ("a",), "≥", 0.5, "x").holds(0.4)
        False
        """
        return figure <= self.limit if self.bound == "≤" else figure >= self.limit


def _at_most(name: str, path: tuple[str, ...], limit: float, unit: str = "") -> Budget:
    return Budget(name, path, "≤", limit, unit)


def _at_least(name: str, path: tuple[str, ...], limit: float, unit: str = "") -> Budget:
    return Budget(name, path, "≥", limit, unit)


BUDGETS: tuple[Budget, ...] = (
    _at_most("verdict: false alarms in the worst cell of clean runs", ("verdict", "summary", "false_alarm_max"), 0.01),
    _at_least(
        "verdict: 2x persistent named from 3 steps, up to 64 ranks, cv <= 0.3 (worst cell)",
        ("verdict", "summary", "detect_2x_3steps"),
        0.95,
    ),
    _at_least(
        "verdict: 1.25x persistent named by 30 steps (worst cell)", ("verdict", "summary", "detect_125_30steps"), 0.95
    ),
    _at_most(
        "verdict: transient share's error, p90, where the size is 3x the noise or more (worst cell)",
        ("verdict", "summary", "share_error_p90"),
        0.05,
    ),
    _at_most(
        "verdict: cost's relative error, p90, where the size is 3x the noise or more (worst cell)",
        ("verdict", "summary", "cost_error_p90"),
        0.20,
    ),
    _at_most("input latency p95, 8 GPUs", ("page", "input_latency_ms", "gpus_8", "p95"), 10.0, "ms"),
    _at_most("input latency p50, 8 GPUs", ("page", "input_latency_ms", "gpus_8", "p50"), 6.0, "ms"),
    _at_most("input latency p95, 16 GPUs", ("page", "input_latency_ms", "gpus_16", "p95"), 10.0, "ms"),
    _at_most("input latency p50, 16 GPUs", ("page", "input_latency_ms", "gpus_16", "p50"), 6.0, "ms"),
    _at_most(
        f"input latency p95, 8 GPUs, CPU throttled {SLOW}x (Lighthouse's mobile)",
        ("throttled", f"rate{SLOW}", "input_p95_ms"),
        40.0,
        "ms",
    ),
    _at_most("long tasks (> 50 ms) during 10 s of play", ("page", "play", "long_tasks"), 0),
    _at_most("JS heap growth, 60 s vs 5 s of play", ("page", "heap_growth_mb"), 5.0, "MB"),
    _at_most("ready vs bare PyScript page, cold (memory snapshot)", ("page", "ready_ratio_cold"), 0.45, "x"),
    _at_most("ready vs bare PyScript page, warm (memory snapshot)", ("page", "ready_ratio_warm"), 0.45, "x"),
    _at_most("transfer, cold load", ("page", "transfer_mb"), 22.0, "MB"),
    _at_most("first paint (pre-rendered diagram), cold", ("page", "first_paint_ms", "cold"), 300.0, "ms"),
    _at_most("cluster 1e6 GPUs, native", ("native", "cluster_1e6", "median_ms"), 20.0, "ms"),
    _at_most("cluster 1e6 GPUs, Pyodide", ("pyodide", "cluster_1e6", "median_ms"), 50.0, "ms"),
    _at_most(
        "cluster sweep (ring + tree), Pyodide, no long task", ("pyodide", "cluster_sweep_both", "median_ms"), 50.0, "ms"
    ),
    _at_most(
        f"page, {LONG_STEPS:,} steps: a new threshold committed, the interaction (Event Timing)",
        ("long_run", "threshold_interaction_ms"),
        200.0,
        "ms",
    ),
    _at_most(
        f"page, {LONG_STEPS:,} steps: the language switched, its longest task",
        ("long_run", "lang_long_task_ms"),
        200.0,
        "ms",
    ),
    _at_most("streaming reader peak memory vs file size", ("stream", "stream_peak_ratio"), 0.25, "x"),
    _at_most(
        f"page, {PAGE_RANKS} ranks x {STREAM_MB} MB read in the worker: main-thread long tasks (> 50 ms)",
        ("stream", "page_parse_long_tasks"),
        0,
    ),
    _at_most(
        f"page, {PAGE_RANKS} ranks x {STREAM_MB} MB read, CPU throttled {HALF}x: main-thread long tasks (> 50 ms)",
        ("throttled", f"rate{HALF}", "page_parse_long_tasks"),
        0,
    ),
    _at_most(
        f"page, 4,096 summaries read, CPU throttled {HALF}x: main-thread long tasks (> 50 ms)",
        ("throttled", f"rate{HALF}", "summaries_4096_long_tasks"),
        0,
    ),
    _at_most(
        f"page, {PAGE_RANKS} ranks x {STREAM_MB} MB: input p95 of the One step controls during the read vs idle",
        ("stream", "page_parse_input_p95_ratio"),
        2.0,
        "x",
    ),
    _at_most(
        f"page, {PAGE_RANKS} ranks x {STREAM_MB} MB: main-thread JS heap", ("page_parse", "page_heap_mb"), 1000, "MB"
    ),
    _at_most(
        "4,096 ranks x 200 steps of summaries: analyze vs json.load of them in JSON (version 2), native",
        ("summaries", "summaries_4096_vs_json_load"),
        2.0,
        "x",
    ),
    _at_most(
        "4,096 ranks x 200 steps: rank x step map drawn, native", ("summaries", "map_4096_render_ms"), 100.0, "ms"
    ),
    _at_most(
        "page, 4,096 ranks x 200 steps of summaries read and analysed: main-thread long tasks (> 50 ms)",
        ("summaries_page", "summaries_4096_long_tasks"),
        0,
    ),
    _at_most(
        "page, 4,096 ranks x 200 steps of summaries: memory they cost the page and its worker (renderer RSS, peak "
        "minus idle)",
        ("summaries_page", "summaries_4096_memory_mb"),
        500,
        "MB",
    ),
    _at_least(
        f"page, {PAGE_RANKS} ranks x {LONG_STEPS:,} steps of JSONL read, measured and drawn: speed vs the command line",
        ("long_run", "jsonl_page_vs_native"),
        0.5,
        "x",
    ),
    _at_least("streaming reader throughput vs json.load, native", ("stream", "stream_vs_json_load"), 1.0, "x"),
    _at_least("streaming reader throughput, Pyodide vs native", ("stream", "pyodide_vs_native_stream"), 0.4, "x"),
)
SCALE_BUDGETS: tuple[Budget, ...] = (
    _at_most(
        "10,000 ranks x 1,000 steps of summaries: analyze --json, native",
        ("scale", "ranks_10000", "analyze_s"),
        60,
        "s",
    ),
    _at_most("10,000 ranks x 1,000 steps: analyze's peak memory", ("scale", "ranks_10000", "peak_mb"), 2048, "MB"),
    _at_most(
        "10,000 ranks x 1,000 steps: summaries on disk a rank-step",
        ("scale", "ranks_10000", "bytes_per_rank_step"),
        20,
        "bytes",
    ),
    _at_most("100,000 ranks x 1,000 steps: analyze --json, native", ("scale", "ranks_100000", "analyze_s"), 600, "s"),
    _at_most("100,000 ranks x 1,000 steps: analyze's peak memory", ("scale", "ranks_100000", "peak_mb"), 8192, "MB"),
    _at_most("page, 10,000 ranks x 1,000 steps: until it answers", ("scale", "page_10000", "seconds"), 90, "s"),
    _at_most(
        "page, 10,000 ranks x 1,000 steps: memory (renderer RSS, peak minus idle)",
        ("scale", "page_10000", "memory_mb"),
        1200,
        "MB",
    ),
    _at_most(
        "page, 10,000 ranks x 1,000 steps: main-thread long tasks (> 50 ms)", ("scale", "page_10000", "long_tasks"), 0
    ),
)
"""The budgets of `python build.py bench --scale` (issue 39), kept under `scale` in bench/results.json."""
JOBS3D_BUDGETS: tuple[Budget, ...] = (
    _at_least(
        "3D-parallel what-if: ddpcore's analyze vs the artifact's three scripts (slowest trace)",
        ("jobs3d", "speedup_min"),
        10,
        "x",
    ),
    _at_most("3D-parallel what-if: the page answers SE (128 ranks)", ("jobs3d", "page", "page_s"), 10, "s"),
    _at_most(
        "3D-parallel what-if: main-thread long tasks (> 50 ms) while the page answers SE",
        ("jobs3d", "page", "page_long_tasks"),
        0,
    ),
)
"""`bench --jobs3d --artifact DIR`'s budget (issue 52)."""

BUDGETS = BUDGETS + SCALE_BUDGETS + JOBS3D_BUDGETS
NOT_MEASURED: tuple[str, ...] = ()
"""Budgets of an issue that the bench does not measure yet, listed in its report."""

REFERENCE_NATIVE_MS = {
    "fit_8x40": 14.55,
    "step_8": 0.0785,
    "ring_64": 9.47,
    "cluster_1e6": 1.75,
    "cluster_sweep_both": 11.5,
}
"""The native core timings (median ms) of the machine of the earlier bench runs (the run of 2026-12-01 04:29 UTC): a
run elsewhere says how much slower or faster its machine ran them (`meta.machine_slowdown`), so that its
milliseconds can be read against the budgets."""


def machine_slowdown(native: dict) -> float:
    """The median, over the core timings, of this machine's time over the reference machine's."""
    return statistics.median(native[name]["median_ms"] / ms for name, ms in REFERENCE_NATIVE_MS.items())
