"""The page reading traces: 8 ranks of a large profiler trace (long tasks and inputs meanwhile), a long JSONL run
against the command line, and 4,096 summaries (long tasks and memory)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import build
from scripts.bench.budgets import PAGE_RANKS
from scripts.bench.probes import (
    AFTER_PICK,
    INPUT_LATENCY,
    LONG_PROBE,
    READY_PROBE,
    RendererPeak,
    percentile,
    throttle,
    traces_page,
)
from scripts.browser import launch_options
from scripts.tracegen import BIG_RANKS, BIG_STEPS, LONG_STEPS, generated_jsonl

__all__ = ["long_run_figures", "page_parse_figures", "summaries_page_figures"]


def page_parse_figures(dist: Path, trace: bytes, rate: float = 1) -> dict:
    """8 ranks of the generated trace dropped on the page: long tasks and input latency of the One step controls
    while the worker reads them, against the same latency idle, and the page's heap; the CPU slowed `rate` times."""
    from playwright.sync_api import sync_playwright

    marker = b'"rank": 0,'
    values = [f"{1 + (i % 20) / 10:.1f}" for i in range(40)]
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for rank in range(PAGE_RANKS):
            path = Path(tmp) / f"rank{rank}.pt.trace.json"
            path.write_bytes(trace.replace(marker, f'"rank": {rank},'.encode(), 1))
            files.append(str(path))
        server, url = build.serve_in_thread(dist)
        options = launch_options()
        options["args"] = [*options["args"], "--enable-precise-memory-info"]
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(**options)
                context = browser.new_context(viewport={"width": 1360, "height": 1000}, service_workers="block")
                context.add_init_script(READY_PROBE)
                page = context.new_page()
                page.goto(url)
                page.wait_for_function("window.__ready_ms !== null", timeout=60_000)
                page.wait_for_timeout(1000)
                throttle(page, rate)
                idle = page.evaluate(INPUT_LATENCY, ["[data-testid=slowdown]", values])
                page.click("[data-testid=view-traces]")
                before = page.evaluate("window.__long_tasks.length")
                start = time.perf_counter()
                page.set_input_files("[data-testid=trace-files]", files)
                page.wait_for_selector("[data-testid=trace-progress-bar]", timeout=60_000)
                page.click("[data-testid=view-step]")
                during = page.evaluate(INPUT_LATENCY, ["[data-testid=slowdown]", values])
                reading = page.locator("[data-testid=trace-progress-bar]").count() > 0
                page.click("[data-testid=view-traces]")
                page.wait_for_selector("[data-testid=trace-step-time]", timeout=600_000)
                seconds = time.perf_counter() - start
                long_tasks = page.evaluate("window.__long_tasks").__getitem__(slice(before, None))
                heap_mb = page.evaluate("performance.memory.usedJSHeapSize") / 1e6
                browser.close()
        finally:
            server.shutdown()
    return {
        "ranks": PAGE_RANKS,
        "mb_per_rank": len(trace) / 1e6,
        "seconds": seconds,
        "still_reading_while_measured": reading,
        "page_parse_long_tasks": len(long_tasks),
        "long_task_ms": long_tasks,
        "input_p95_idle_ms": percentile(idle, 0.95),
        "input_p95_during_ms": percentile(during, 0.95),
        "page_parse_input_p95_ratio": percentile(during, 0.95) / percentile(idle, 0.95),
        "page_heap_mb": heap_mb,
    }


def long_run_figures(dist: Path) -> dict:
    """8 ranks x 11,700 steps of JSONL: read, measured and drawn by the page against `analyze` of the same files
    natively; then, on the page, a threshold committed (the interaction, by Event Timing, and the task that judges
    it) and a language switch (its longest task)."""
    from playwright.sync_api import sync_playwright

    from ddpcore.analysis import judge, measure
    from ddpcore.traces import read_paths

    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for rank in range(PAGE_RANKS):
            path = Path(tmp) / f"rank{rank}.jsonl"
            path.write_bytes(generated_jsonl(rank))
            files.append(str(path))
        start = time.perf_counter()
        judge(measure(read_paths(files).traces))
        native_s = time.perf_counter() - start
        server, url = build.serve_in_thread(dist)
        try:
            with sync_playwright() as p:
                browser, page = traces_page(p, url)
                start = time.perf_counter()
                page.set_input_files("[data-testid=trace-files]", files)
                page.wait_for_selector("[data-testid=trace-step-time]", timeout=1_200_000)
                page_s = time.perf_counter() - start
                page.wait_for_timeout(2000)
                page.evaluate(LONG_PROBE)
                before = page.evaluate("window.__long_tasks.length")
                page.fill("[data-testid=alert-threshold]", "0.3")
                page.press("[data-testid=alert-threshold]", "Enter")
                page.wait_for_function(
                    "document.querySelector('[data-testid=alert-rule]').textContent.includes('> 0.3')"
                )
                page.wait_for_timeout(1000)
                interaction = max(page.evaluate("window.__events") or [0.0])
                judge_in_steps = max(page.evaluate("window.__long_tasks").__getitem__(slice(before, None)) or [0.0])
                before = page.evaluate("window.__long_tasks.length")
                page.select_option("[data-testid=lang]", "fr")
                page.wait_for_timeout(2000)
                lang = max(page.evaluate("window.__long_tasks").__getitem__(slice(before, None)) or [0.0])
                browser.close()
        finally:
            server.shutdown()
    return {
        "ranks": PAGE_RANKS,
        "steps": LONG_STEPS,
        "native_s": native_s,
        "page_s": page_s,
        "jsonl_page_vs_native": native_s / page_s,
        "threshold_interaction_ms": interaction,
        "threshold_judging_task_ms": judge_in_steps,
        "lang_long_task_ms": lang,
    }


def summaries_page_figures(dist: Path, rate: float = 1) -> dict:
    """4,096 generated summaries picked in Your traces: main-thread long tasks from the pick to the drawn
    analysis, and the renderer's peak memory (sampled every 100 ms); the CPU slowed `rate` times."""
    from playwright.sync_api import sync_playwright

    from ddpcore.traces import summary_bytes
    from ddpcore.traces.summary import SUFFIX
    from scripts.tracegen import big_run

    runs = big_run()
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for f in runs:
            path = Path(tmp) / f"rank{f.rank}{SUFFIX}"
            path.write_bytes(summary_bytes(f))
            files.append(str(path))
        del runs
        server, url = build.serve_in_thread(dist)
        try:
            with sync_playwright() as p:
                browser, page = traces_page(p, url)
                page.wait_for_timeout(1000)
                throttle(page, rate)
                with RendererPeak() as memory:
                    start = time.perf_counter()
                    page.set_input_files("[data-testid=trace-files]", files)
                    page.wait_for_selector("[data-testid=rank-step-map]", timeout=900_000)
                    page.wait_for_selector("[data-testid=fit-scale-row]", timeout=900_000)
                    seconds = time.perf_counter() - start
                    page.wait_for_timeout(1000)
                    long_tasks = page.evaluate(AFTER_PICK)
                straggler = page.inner_text("#trace-summary")
                browser.close()
        finally:
            server.shutdown()
    return {
        "ranks": BIG_RANKS,
        "steps": BIG_STEPS,
        "seconds": seconds,
        "summaries_4096_long_tasks": len(long_tasks),
        "long_task_ms": long_tasks,
        "renderer_idle_mb": memory.idle,
        "renderer_peak_mb": memory.peak,
        "summaries_4096_memory_mb": memory.over_idle,
        "names_rank_777": "777" in straggler,
    }
