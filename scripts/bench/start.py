"""The page's start and its controls: first paint and ready against a bare PyScript page (with and without the
memory snapshot), the transfer, input latency, play and the heap."""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
from pathlib import Path

import build
from scripts.bench.budgets import SLOW
from scripts.bench.probes import INPUT_LATENCY, OFFLINE_READY, PLAY, READY_PROBE, percentile, throttle
from scripts.browser import launch_options

__all__ = ["page_figures"]


BARE_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>bare</title>
<script type="module" src="./pyscript/core.js"></script></head><body><p>bare PyScript page</p>
<mpy-config type="json">{"plugins": %s}</mpy-config>
<script type="py" config="./bare-config.json">
from pyscript import document
document.documentElement.classList.add("ready")
</script></body></html>"""

TIMED_LOADER = """// The bench's interpreter for the pages without a snapshot: the page's plain start, timed.
import { loadPyodide as load, version } from "./start.mjs";
export { version };
export async function loadPyodide(options) {
  const start = performance.now();
  const pyodide = await load(options);
  globalThis.ddpcoreStart = { snapshot: false, why: "bench", load_ms: performance.now() - start };
  return pyodide;
}
"""


def load_once(context, url: str) -> dict:
    """Cold (fresh context) then warm (reloaded: the browser's HTTP cache) load of one page; no service worker."""
    page = context.new_page()
    figures = {}
    for phase in ("cold", "warm"):
        page.goto(url)
        page.wait_for_function("window.__ready_ms !== null", timeout=60_000)
        figures[phase] = {
            "paint": page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime"),
            "ready": page.evaluate("window.__ready_ms"),
            "load_pyodide": page.evaluate("(globalThis.ddpcoreStart || {}).load_ms"),
            "snapshot": page.evaluate("(globalThis.ddpcoreStart || {}).snapshot"),
            "transfer": page.evaluate(
                "performance.getEntriesByType('navigation').concat("
                "performance.getEntriesByType('resource')).reduce((s, e) => s + (e.transferSize || 0), 0)"
            ),
        }
        page.wait_for_timeout(500)
    return figures


def load_times(browser, urls: dict[str, str], runs: int) -> dict[str, dict]:
    """Runs alternate between the pages, so drift on a noisy machine hits them alike; medians of each. No page is
    served by its service worker: warm means the browser's HTTP cache, for every page alike."""
    samples: dict[str, list[dict]] = {name: [] for name in urls}
    for _ in range(runs):
        for name, url in urls.items():
            context = browser.new_context(service_workers="block")
            context.add_init_script(READY_PROBE)
            samples[name].append(load_once(context, url))
            context.close()
    med = statistics.median
    return {
        name: {
            "first_paint_ms": {p: med(s[p]["paint"] for s in runs_) for p in ("cold", "warm")},
            "ready_ms": {p: med(s[p]["ready"] for s in runs_) for p in ("cold", "warm")},
            "load_pyodide_ms": {p: med(s[p]["load_pyodide"] or 0.0 for s in runs_) for p in ("cold", "warm")},
            "snapshot": all(s[p]["snapshot"] for s in runs_ for p in ("cold", "warm")),
            "transfer_bytes": med(s["cold"]["transfer"] for s in runs_),
        }
        for name, runs_ in samples.items()
    }


def page_figures(dist: Path, quick: bool) -> dict:
    from playwright.sync_api import sync_playwright

    runs = 3 if quick else 7
    snapshot = dist / "pyscript" / "pyodide" / build.SNAPSHOT
    snapshot_bytes = snapshot.stat().st_size if snapshot.exists() else 0
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(dist, site)
        config = json.loads((dist / "config.json").read_text())
        timed = "./pyscript/pyodide/bench-timed.mjs"
        (site / timed).write_text(TIMED_LOADER)
        (site / "bare-config.json").write_text(json.dumps({"interpreter": timed, "plugins": config["plugins"]}))
        (site / "bare.html").write_text(BARE_PAGE % json.dumps(build.PYSCRIPT_PLUGINS_OFF))
        (site / "plain-config.json").write_text(json.dumps({**config, "interpreter": timed}))
        plain_page = (site / "index.html").read_text().replace("./config.json", "./plain-config.json")
        (site / "plain.html").write_text(plain_page)
        server, url = build.serve_in_thread(site)
        options = launch_options()
        options["args"] = [*options["args"], "--enable-precise-memory-info", "--js-flags=--expose-gc"]
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(**options)
                loads = load_times(browser, {"ours": url, "plain": url + "plain.html", "bare": url + "bare.html"}, runs)
                ours, plain, bare = loads["ours"], loads["plain"], loads["bare"]
                context = browser.new_context(viewport={"width": 1360, "height": 1000})
                context.add_init_script(READY_PROBE)
                page = context.new_page()
                page.goto(url)
                page.wait_for_function("window.__ready_ms !== null", timeout=60_000)
                page.wait_for_function(OFFLINE_READY, timeout=60_000)
                page.wait_for_timeout(3000)  # steady state: the one-off offline precache is written and settled
                latency = {}
                values = [f"{1 + (i % 20) / 10:.1f}" for i in range(100)]
                latency["gpus_8"] = page.evaluate(INPUT_LATENCY, ["[data-testid=slowdown]", values])
                page.fill("[data-testid=gpus]", "16")
                latency["gpus_16"] = page.evaluate(INPUT_LATENCY, ["[data-testid=slowdown]", values])
                page.click("[data-testid=view-cluster]")
                sizes = [str(n) for n in (8, 100, 4096, 65536, 1_000_000, 500)] * 5
                latency["cluster"] = page.evaluate(INPUT_LATENCY, ["[data-testid=cluster-gpus]", sizes])
                page.click("[data-testid=view-step]")
                page.fill("[data-testid=gpus]", "8")
                throttle(page, SLOW)
                slow = page.evaluate(INPUT_LATENCY, ["[data-testid=slowdown]", values])
                throttle(page, 1)
                page.fill("[data-testid=gpus]", "8")
                page.fill("[data-testid=slowdown]", "3")
                play = page.evaluate(PLAY, 10)
                heap = []
                for seconds in (5, 55):
                    page.evaluate(PLAY, seconds)
                    page.evaluate("window.gc && window.gc()")
                    heap.append(page.evaluate("performance.memory.usedJSHeapSize") / 1e6)
                browser.close()
        finally:
            server.shutdown()
    return {
        "first_paint_ms": ours["first_paint_ms"],
        "ready_ms": ours["ready_ms"],
        "bare": {k: bare[k] for k in ("first_paint_ms", "ready_ms", "load_pyodide_ms")},
        "ready_ratio_cold": ours["ready_ms"]["cold"] / bare["ready_ms"]["cold"],
        "ready_ratio_warm": ours["ready_ms"]["warm"] / bare["ready_ms"]["warm"],
        "ready_no_snapshot_ms": plain["ready_ms"],
        "load_pyodide_ms": ours["load_pyodide_ms"],
        "load_pyodide_no_snapshot_ms": plain["load_pyodide_ms"],
        "started_from_snapshot": ours["snapshot"],
        "snapshot_bytes": snapshot_bytes,
        "transfer_bytes": ours["transfer_bytes"],
        "transfer_mb": ours["transfer_bytes"] / 1e6,
        "input_latency_ms": {
            k: {"p50": percentile(v, 0.5), "p95": percentile(v, 0.95), "n": len(v)} for k, v in latency.items()
        },
        "play": {
            "seconds": 10,
            "frame_interval_ms": {"p50": percentile(play["frames"], 0.5), "p95": percentile(play["frames"], 0.95)},
            "long_tasks": len(play["long_tasks"]),
            "long_task_ms": play["long_tasks"],
        },
        "heap_mb": {"after_5s": heap[0], "after_60s": heap[1]},
        "heap_growth_mb": heap[1] - heap[0],
        "throttled_input_ms": {"p50": percentile(slow, 0.5), "p95": percentile(slow, 0.95), "n": len(slow)},
    }
