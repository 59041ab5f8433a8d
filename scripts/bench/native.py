"""Native figures of the traces path: the streaming reader against json.load, and 4,096 summaries analysed and
drawn."""

from __future__ import annotations

import json
import sys
import time

import build
from scripts.bench import core_timings
from scripts.tracegen import BIG_RANKS, BIG_STEPS

__all__ = ["stream_figures", "summaries_figures"]


def stream_figures(trace: bytes) -> dict:
    """The streaming reader against json.load of the same file, and its peak memory against the file's size."""
    import tracemalloc

    from ddpcore.traces.parse import chunked, read_trace

    load_s = core_timings.best_seconds(lambda: json.loads(trace))
    stream_s = core_timings.stream_seconds(trace)
    tracemalloc.start()
    read_trace("bench", chunked(trace))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "bytes": len(trace),
        "json_load_s": load_s,
        "stream_s": stream_s,
        "stream_vs_json_load": load_s / stream_s,
        "stream_peak_ratio": peak / len(trace),
    }


def summaries_figures() -> dict:
    """4,096 ranks x 200 steps of generated summaries: analyze (reading included) of the columnar summaries and of
    the JSON ones (version 2), against gunzip + json.load of the JSON ones (the earlier runs' reference), and the
    rank x step map drawn from the analysis."""
    import gzip

    sys.path.insert(0, str(build.WEB))
    from ddpview.views import map_svg

    from ddpcore.analysis import analyze
    from ddpcore.analysis.rankmap import rank_step_map
    from ddpcore.traces import load, summary_bytes
    from ddpcore.traces.summary import JSON_VERSION, SUFFIX
    from scripts.tracegen import big_run

    runs = big_run()
    files = [(f"rank{f.rank}{SUFFIX}", summary_bytes(f)) for f in runs]
    json_files = [(name, summary_bytes(f, JSON_VERSION)) for (name, _), f in zip(files, runs)]
    del runs
    json_s = core_timings.best_seconds(lambda: [json.loads(gzip.decompress(data)) for _, data in json_files], 2)
    start = time.perf_counter()
    analyze(load(json_files).traces)
    analyze_json_s = time.perf_counter() - start
    start = time.perf_counter()
    analysis = analyze(load(files).traces)
    analyze_s = time.perf_counter() - start
    map_s = core_timings.best_seconds(
        lambda: map_svg(rank_step_map(analysis.steps), [s.late_ranks for s in analysis.steps], 0.1, "en"), 3
    )
    return {
        "ranks": BIG_RANKS,
        "steps": BIG_STEPS,
        "bytes": sum(len(data) for _, data in files),
        "json_bytes": sum(len(data) for _, data in json_files),
        "json_load_s": json_s,
        "analyze_s": analyze_s,
        "analyze_json_s": analyze_json_s,
        "summaries_4096_vs_json_load": analyze_s / json_s,
        "map_4096_render_ms": map_s * 1000,
    }
