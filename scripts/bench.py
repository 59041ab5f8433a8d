"""python build.py bench: core timings natively and in Pyodide; writes bench/results.json and bench/README.md."""

from __future__ import annotations

import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import build
from scripts import core_timings
from scripts.browser import launch_options
from scripts.tracegen import BIG_RANKS, BIG_STEPS, LONG_STEPS, generated_jsonl, generated_trace

ROOT = build.ROOT

HALF, SLOW = 2, 4
"""CPU throttling rates (Chrome's Emulation.setCPUThrottlingRate): a machine half as fast as this one, and
Lighthouse's mobile profile. The budgets must hold there too."""


def throttle(page, rate: float) -> None:
    """Slow the page's CPU `rate` times (1: full speed), over the Chrome DevTools Protocol."""
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})


BUDGETS = {
    # name: (figure path, limit, unit)
    "input latency p95, 8 GPUs": (("page", "input_latency_ms", "gpus_8", "p95"), 10.0, "ms"),
    "input latency p50, 8 GPUs": (("page", "input_latency_ms", "gpus_8", "p50"), 6.0, "ms"),
    "input latency p95, 16 GPUs": (("page", "input_latency_ms", "gpus_16", "p95"), 10.0, "ms"),
    "input latency p50, 16 GPUs": (("page", "input_latency_ms", "gpus_16", "p50"), 6.0, "ms"),
    f"input latency p95, 8 GPUs, CPU throttled {SLOW}x (Lighthouse's mobile)": (
        ("throttled", f"rate{SLOW}", "input_p95_ms"),
        40.0,
        "ms",
    ),
    "long tasks (> 50 ms) during 10 s of play": (("page", "play", "long_tasks"), 0, ""),
    "JS heap growth, 60 s vs 5 s of play": (
        (
            "page",
            "heap_growth_mb",
        ),
        5.0,
        "MB",
    ),
    "ready vs bare PyScript page, cold (memory snapshot)": (("page", "ready_ratio_cold"), 0.45, "x"),
    "ready vs bare PyScript page, warm (memory snapshot)": (("page", "ready_ratio_warm"), 0.45, "x"),
    "transfer, cold load": (("page", "transfer_mb"), 22.0, "MB"),
    "first paint (pre-rendered diagram), cold": (("page", "first_paint_ms", "cold"), 300.0, "ms"),
    "cluster 1e6 GPUs, native": (("native", "cluster_1e6", "median_ms"), 20.0, "ms"),
    "cluster 1e6 GPUs, Pyodide": (("pyodide", "cluster_1e6", "median_ms"), 50.0, "ms"),
    "cluster sweep (ring + tree), Pyodide, no long task": (("pyodide", "cluster_sweep_both", "median_ms"), 50.0, "ms"),
}
FLOORS = {
    # name: (figure path, lower limit, unit): throughput budgets, where more is better
    f"page, 8 ranks x {LONG_STEPS:,} steps of JSONL read, measured and drawn: speed vs the command line": (
        ("long_run", "jsonl_page_vs_native"),
        0.5,
        "x",
    ),
    "streaming reader throughput vs json.load, native": (("stream", "stream_vs_json_load"), 1.0, "x"),
    "streaming reader throughput, Pyodide vs native": (("stream", "pyodide_vs_native_stream"), 0.4, "x"),
}
CEILINGS = {
    f"page, {LONG_STEPS:,} steps: a new threshold committed, the interaction (Event Timing)": (
        ("long_run", "threshold_interaction_ms"),
        200.0,
        "ms",
    ),
    f"page, {LONG_STEPS:,} steps: the language switched, its longest task": (
        ("long_run", "lang_long_task_ms"),
        200.0,
        "ms",
    ),
    "streaming reader peak memory vs file size": (("stream", "stream_peak_ratio"), 0.25, "x"),
    "page, 8 ranks x 50 MB read in the worker: main-thread long tasks (> 50 ms)": (
        ("stream", "page_parse_long_tasks"),
        0,
        "",
    ),
    f"page, 8 ranks x 50 MB read, CPU throttled {HALF}x: main-thread long tasks (> 50 ms)": (
        ("throttled", f"rate{HALF}", "page_parse_long_tasks"),
        0,
        "",
    ),
    f"page, 4,096 summaries read, CPU throttled {HALF}x: main-thread long tasks (> 50 ms)": (
        ("throttled", f"rate{HALF}", "summaries_4096_long_tasks"),
        0,
        "",
    ),
    "page, 8 ranks x 50 MB: input p95 of the One step controls during the read vs idle": (
        ("stream", "page_parse_input_p95_ratio"),
        2.0,
        "x",
    ),
    "page, 8 ranks x 50 MB: main-thread JS heap": (("page_parse", "page_heap_mb"), 1000, "MB"),
    "4,096 ranks x 200 steps of summaries: analyze vs json.load of them, native": (
        ("summaries", "summaries_4096_vs_json_load"),
        2.0,
        "x",
    ),
    "4,096 ranks x 200 steps: rank x step map drawn, native": (("summaries", "map_4096_render_ms"), 100.0, "ms"),
    "page, 4,096 ranks x 200 steps of summaries read and analysed: main-thread long tasks (> 50 ms)": (
        ("summaries_page", "summaries_4096_long_tasks"),
        0,
        "",
    ),
    "page, 4,096 ranks x 200 steps of summaries: memory they cost the page and its worker (renderer RSS, peak "
    "minus idle)": (
        ("summaries_page", "summaries_4096_memory_mb"),
        500,
        "MB",
    ),
}
NOT_MEASURED: tuple[str, ...] = ()

BENCH_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>ddpcore bench</title>
<script type="module" src="./pyscript/core.js"></script></head><body><pre id="result"></pre>
<mpy-config type="json">{"plugins": %s}</mpy-config>
<script type="py" config="./bench-config.json">
import json, os, sys
sys.path.insert(0, os.path.abspath("bench.zip"))
from pyscript import document
import core_timings
from pyodide.http import pyfetch
result = core_timings.run()
trace = await (await pyfetch("./bench-trace.json")).bytes()
result["stream_s"] = core_timings.stream_seconds(trace)
document.getElementById("result").textContent = json.dumps(result)
</script></body></html>"""


def pyodide_timings(dist: Path, trace: bytes) -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(dist, site)
        config = json.loads((dist / "config.json").read_text())
        build.python_bundle(site / "py" / "bench.zip", skip=("ddpcore/__main__.py", "ddpcore/cli/"))
        shutil.copy2(Path(__file__).with_name("core_timings.py"), site / "core_timings.py")
        config["files"] = {"./py/bench.zip": "./bench.zip", "./core_timings.py": "./core_timings.py"}
        config["interpreter"] = build.PLAIN_START  # its own bundle, not the page's: no snapshot of the page's
        (site / "bench-config.json").write_text(json.dumps(config))
        (site / "bench.html").write_text(BENCH_PAGE % json.dumps(build.PYSCRIPT_PLUGINS_OFF))
        (site / "bench-trace.json").write_bytes(trace)
        server, url = build.serve_in_thread(site)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(**launch_options())
                page = browser.new_page()
                page.goto(url + "bench.html")
                page.wait_for_function("document.getElementById('result').textContent.length > 0", timeout=120_000)
                result = json.loads(page.text_content("#result"))
                browser.close()
        finally:
            server.shutdown()
    return result


BARE_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>bare</title>
<script type="module" src="./pyscript/core.js"></script></head><body><p>bare PyScript page</p>
<mpy-config type="json">{"plugins": %s}</mpy-config>
<script type="py" config="./bare-config.json">
from pyscript import document
document.documentElement.classList.add("ready")
</script></body></html>"""

READY_PROBE = """
window.__ready_ms = null;
new MutationObserver((_, obs) => {
  const root = document.documentElement;
  if (root && root.classList.contains("ready")) { window.__ready_ms = performance.now(); obs.disconnect(); }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["class"] });
window.__long_tasks = [];
window.__long_task_starts = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.__long_tasks.push(e.duration);
      window.__long_task_starts.push(e.startTime);
    }
  }).observe({ type: "longtask", buffered: true });
} catch (e) {}
addEventListener("change", (event) => {
  if (event.target && event.target.type === "file") window.__picked_at = performance.now();
}, true);
"""

INPUT_LATENCY = """async ([selector, values]) => {
  const el = document.querySelector(selector), out = [];
  for (const v of values) {
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
    const t0 = performance.now();
    el.value = v;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    document.body.offsetHeight;
    out.push(performance.now() - t0);
  }
  return out;
}"""

PLAY = """async (seconds) => {
  const frames = [], play = document.querySelector("[data-testid=play]");
  const before = window.__long_tasks.length;
  let last = null, stop = performance.now() + seconds * 1000;
  if (play.getAttribute("aria-pressed") !== "true") play.click();
  await new Promise(resolve => {
    const tick = (t) => {
      if (last !== null) frames.push(t - last);
      last = t;
      if (play.getAttribute("aria-pressed") !== "true") play.click();
      if (t < stop) requestAnimationFrame(tick); else resolve();
    };
    requestAnimationFrame(tick);
  });
  return { frames, long_tasks: window.__long_tasks.slice(before) };
}"""


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0.5, 0.95, …), interpolated between samples as numpy's default does."""
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


OFFLINE_READY = (
    "!('serviceWorker' in navigator) || !document.querySelector('script[src=\"./boot.js\"]') || "
    "navigator.serviceWorker.controller !== null"
)


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


def lookup(results: dict, path: tuple[str, ...]) -> float:
    value = results
    for key in path:
        value = value[key]
    return float(value)


def write_report(results: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2))
    lines = [
        "# Benchmark",
        "",
        f"Written by `python build.py bench` on {results['meta']['date']} ({results['meta']['machine']}).",
        "Figures are medians of repeated runs; machines are noisy, so these are figures, not test assertions.",
        f"This machine ran the native core timings {results['meta']['machine_slowdown']:.2f}x as long as the machine "
        "of the earlier runs (`REFERENCE_NATIVE_MS` in scripts/bench.py): read its milliseconds against the budgets "
        "with that in mind; ratios measured within one run do not depend on it.",
        "",
        "| budget | figure | limit | verdict |",
        "|---|---|---|---|",
    ]
    for table, sign in ((BUDGETS, "≤"), (CEILINGS, "≤"), (FLOORS, "≥")):
        for name, (path, limit, unit) in table.items():
            figure = lookup(results, path)
            shown = f"{figure:.0f}" if not unit else f"{figure:.2f} {unit}"
            ok = figure <= limit if sign == "≤" else figure >= limit
            lines.append(
                f"| {name} | {shown} | {sign} {limit:g} {unit} | {'pass' if ok else 'FAIL'} |".replace(" |", " |")
            )
    page = results["page"]
    lines += [
        "",
        "| page figure | ours | bare PyScript page |",
        "|---|---|---|",
        f"| first paint, cold / warm (ms) | {page['first_paint_ms']['cold']:.0f} / "
        f"{page['first_paint_ms']['warm']:.0f} | "
        f"{page['bare']['first_paint_ms']['cold']:.0f} / {page['bare']['first_paint_ms']['warm']:.0f} |",
        f"| ready (html.ready), cold / warm (ms) | {page['ready_ms']['cold']:.0f} / {page['ready_ms']['warm']:.0f} | "
        f"{page['bare']['ready_ms']['cold']:.0f} / {page['bare']['ready_ms']['warm']:.0f} |",
        f"| ready without the snapshot, cold / warm (ms) | {page['ready_no_snapshot_ms']['cold']:.0f} / "
        f"{page['ready_no_snapshot_ms']['warm']:.0f} | |",
        f"| inside loadPyodide, cold / warm (ms) | {page['load_pyodide_ms']['cold']:.0f} / "
        f"{page['load_pyodide_ms']['warm']:.0f} (without the snapshot "
        f"{page['load_pyodide_no_snapshot_ms']['cold']:.0f} / {page['load_pyodide_no_snapshot_ms']['warm']:.0f}) | "
        f"{page['bare']['load_pyodide_ms']['cold']:.0f} / {page['bare']['load_pyodide_ms']['warm']:.0f} |",
        f"| transfer, cold load (bytes) | {page['transfer_bytes']:,.0f} (snapshot {page['snapshot_bytes']:,.0f}) | |",
        "",
        "| interaction | p50 (ms) | p95 (ms) |",
        "|---|---|---|",
        *(f"| input latency, {k} | {v['p50']:.1f} | {v['p95']:.1f} |" for k, v in page["input_latency_ms"].items()),
        f"| frame interval during play | {page['play']['frame_interval_ms']['p50']:.1f} | "
        f"{page['play']['frame_interval_ms']['p95']:.1f} |",
        "",
        f"Heap: {page['heap_mb']['after_5s']:.1f} MB after 5 s of play, {page['heap_mb']['after_60s']:.1f} MB "
        f"after 60 s.",
    ]
    lines += ["", "| core timing | native median (ms) | Pyodide median (ms) |", "|---|---|---|"]
    for key in results["native"]:
        lines.append(
            f"| {key} | {results['native'][key]['median_ms']:.3f} | {results['pyodide'][key]['median_ms']:.3f} |"
        )
    if NOT_MEASURED:
        lines += ["", "Not measured yet:", "", *(f"- {item}" for item in NOT_MEASURED)]
    lines += [
        "",
        "## Causes found and fixed when budgets failed",
        "",
        "- *Ready 1.18-1.21x the bare page*: every stdlib and app module was compiled from source in wasm at start "
        "(Pyodide ships its stdlib as .py): ~170 ms. The build now compiles the app and the stdlib modules it "
        "imports to "
        "bytecode with the vendored Pyodide itself (`scripts/precompile.mjs`), in one zip: one request instead of 20. "
        "The offline cache's 14 MB precache competed with the first start: it now starts once the page is ready.",
        "- *Input p95 noisy, 10 to 20 ms*: it was measured while the first visit's 14 MB offline precache was still "
        "downloading and being written; interactions are now measured once it has settled (it happens once per build).",
        "- *Input p95 23 ms at 8 GPUs*: unchanged regions were re-rendered (the pre-render is now known to the first "
        "render), the ring was redrawn for every slowdown (memoised), the URL was rewritten inside the input handler "
        "(now deferred to its own task), control values were read back through the JS proxy (now cached), and "
        "start-up objects were scanned by every GC pass (`gc.freeze()` once ready).",
        "- *One 0.8 s long task at the end of reading 8 ranks x 57 MB*: the page unpickled the parsed traces (140k "
        "kernel intervals) and analysed them on its main thread. The worker now measures the traces too and sends only "
        "the measurement, merged spans in flat arrays (2.5 MB, 4 ms to unpickle natively); the page judges it at the "
        "threshold (< 1 ms), unpickles and draws in separate tasks, draws each thin row as one path per kind (the SVG "
        "went from 151 KB to 35 KB), and draws Your traces again only when what it shows changed.",
        "- *4,096 ranks x 200 steps: analyze 8.3x json.load, the page could not load them* (issue 15): one object "
        "per rank-step (819k `StepFacts` when reading, 819k `DrawnRank` when measuring: 320 MB). Summaries are now "
        "read straight into columns (`RankColumns`, arrays, checked column by column with C loops), a step keeps its "
        "ranks as arrays (`StepColumns`) and objects only for the ranks its lanes draw, and the map is made once by "
        "`measure`: 1.5x json.load, the map 58 ms. The fit's bootstrap resampled all 800k rank-steps 200 times "
        "(208 s): it now draws at most 4,096 and scales the spread by sqrt(m/n) (m-out-of-n bootstrap; unchanged "
        "below 4,096 rank-steps), 2.5 s.",
        "- *Long tasks of 0.9 s, 0.9 s and 60-140 ms loading them in the page*: a File's size and its copy to the "
        "worker each cost a file-system call on the page's thread (0.2 ms each); 8,000 progress messages each "
        "redrew 4,096 progress rows; 40 MB unpickled at once. The page now sends the FileList in slices of 64 files, "
        "one task each, and the worker reads the sizes; progress is posted at most every 100 ms, and past 8 files "
        "the list shows one bar for all and one for the file being read; the measurement arrives in parts of "
        "about 50k rank-steps (`reading.transfer`), each unpickled in its own task, then judged, then drawn; a new "
        "threshold's fit runs in the worker that holds the measurement. The browser's own task that builds a "
        "4,096-file FileList (0.9 s, before the `change` event) is not the page's and is not counted.",
        "- *7 long tasks loading 4,096 summaries with the CPU throttled 2x* (issue 22): copying 64 Files to the "
        "worker took 20-97 ms a message at half speed, judging 4,096 ranks x 200 steps 78 ms, and drawing Your "
        "traces 90 ms. The files now go 8 a message, and the judgement (`ddpcore.analysis.verdict.judging`) and the "
        "regions "
        "(`app.drawing`) are made in steps; the page runs all three in slices of 8 ms (`shell.dom.stepped`).",
        "- *Ready 1.1x the bare page* (issue 23): most of it was Python starting. Python now starts from a memory "
        "snapshot made at build time (docs/snapshot.md). The ready figures compare pages alike: no service worker "
        "serves any of them, so warm means the browser's HTTP cache for all three (ours, ours without the "
        "snapshot, the bare page). The snapshot adds its gzipped size to the cold transfer, which stays under "
        "22 MB (the budget above).",
        "- *Ready 0.49x the bare page with the snapshot* (issue 23): Pyodide sizes its memory by the snapshot before "
        "it compiles its WebAssembly, so the snapshot's whole inflation (31 MB, 120-150 ms) came before the compile; "
        "the default view was drawn three times (in the build, at the page's start, at its first render); and "
        "`main.py`'s wiring was compiled from source. The snapshot's container now gives the heap's size in its "
        "first bytes and leaves out its long runs of zeros, and the heap is filled while the wasm compiles; the "
        "snapshot holds the default view drawn; the wiring is `shell/page.py`, compiled in the bundle.",
        "- *Input p50 10-11 ms at 8 and 16 GPUs* (issue 22): started from a snapshot, the page meets its first inputs "
        "before the browser has optimised the interpreter's WebAssembly, and the first 40 inputs took twice as "
        "long as the later ones; and every input replaced the timeline's markup (parse, style, layout of ~170 "
        "elements). The page now draws 40 screens in idle slices once ready and drops them (`warmup.warming`), the "
        "One step view moves in place (`ddpview.markup.patches`: only the attributes and texts that changed are set), "
        "bars are written out directly, and schedules that a slider leaves as they were are kept.",
        "- *1-2 long tasks loading 4,096 summaries with the CPU throttled 2x, after the steps above* (issue 22): the "
        "map was drawn in one step (36 ms at half speed), the drawn analysis was written in one task (34 ms), and "
        "the worker's sizes message made 4,096 progress records at once (15 ms, and 40-60 ms for the message). "
        "The map is drawn 16 rows a step (`map_drawing`), the page writes a step after each region "
        "(`Page.rendering`, leaving to a later render what it has claimed meanwhile), and a file's progress is a "
        "named tuple made in C loops. A long task of 50-95 ms still shows in some runs at the end of the load with "
        "under 15 ms of script in its frame (Long Animation Frames): the browser's own work, not yet found.",
        "- *Input p50 8-10 ms at 8 and 16 GPUs after the in-place update* (issue 22): an input still drew every "
        "lane's bars, though all ranks but the straggler run alike, and the patch walked both markups tag by tag in "
        "Python; the JS side set each bar's start, end, x and width. Lanes that ran alike now share one drawing "
        "(placed by a transform, the GPU's name filled in), what a slider leaves alone (lane frames, axis, legend) is "
        "kept, the patch compares markups cut at each tag in C and reads only the pieces that differ, and a bar "
        "carries its length only: half the instructions per input natively (callgrind), 93 DOM changes a step at "
        "16 GPUs instead of 158. Python in the page's handler runs 5-7x slower than natively (2x in a tight loop): "
        "between inputs the browser lays out and paints, and the interpreter comes back to cold caches.",
        "- *The same long task, on a machine 2.2x slower* (issue 22): per-step timings in the page showed the "
        "measurement's first part (the rank x step map's million numbers, 50 ms to unpickle there), sorts of 4,096 "
        "ranks with Python keys for the ranks table and the exposition, 8 files copied a message (30 ms), and the "
        "page's idle warming drawing One step screens during the read. The map's cells now come in parts of their "
        "own, parts hold 10,000 rank-steps, files go 4 a message, the sorts use C keys, and warming stops when a "
        "read starts.",
        "- *1 long task loading 4,096 summaries at CPU rate 2, on a machine 1.6x slower* (issue 22): per-message "
        "timings in the page showed each progress message (ten a second) walking all 4,096 files to sum the bar "
        "and find the file being read (6-50 ms at rate 2 there), the pick and the sizes making a record per file "
        "(35-80 ms), the map's first step sorting every row by gap (14 ms natively), and the ranks table drawn in "
        "one step. A read's progress is now columns with its sums beside them, moved by each message's changes "
        "(`reading.Progress`), the map sorts 32 rows and draws 48 cells a step, the table 10 rows, and files go 2 a "
        "message. What remains at rate 2 there: the browser's layout of the drawn analysis (35-75 ms, the map's "
        "SVG most of it, with Chrome's autofill forcing it once a form control changes) and stalls of the page's "
        "thread while another core compiles the interpreter's WebAssembly.",
        "- *Input p50/p95 11.5/22.4 ms at 8 GPUs, on a machine 1.6x slower* (issue 22): the idle warming ended "
        "before the browser had optimised the interpreter (the first hundred inputs spent 0.9 s of the renderer's "
        "worker CPU compiling, the next hundred 0.35 s), and when the slowdown crossed 1.0 (a tenth of the bench's "
        "inputs) the waits, the straggler's band and the ideal line appeared or vanished, so the timeline was "
        "written whole. The warming now draws 200 screens (1.8 s of idle slices there), and whatever a slider can "
        'make appear is drawn unshown (`display="none"`, no class or test id) while it shows nothing: no slider '
        "of the One step view changes its regions' shape. A/B, 6 fresh pages each, alternating: 9.4/16.1 ms at 8 "
        "GPUs, 11.8/19.7 at 16 (was 12.0/22.3). Per input there, in the page: 2.8 ms making the screen, 2.5 ms "
        "writing it (1.2 of them the patch), 1.5 ms of wiring and 2 ms of layout. The headless browser's own "
        "threads use about 1.5 of the 2 cores meanwhile (its main thread alone 1 s a hundred inputs).",
        "- *Input p50/p95 10.8/18.5 ms at 8 GPUs, 12.1/22.1 at 16, 52.8 ms p95 at CPU rate 4, on a machine 2.4x "
        "slower* (issue 22): every input drew its screen again (2-2.8 ms in the page) and compared its markups "
        "again (0.9-1.2 ms), though a slider has 21 positions and a drag passes them again and again. The page now "
        "keeps the last 64 views drawn and 128 patches made, and draws the slowdown slider's positions in idle "
        "slices once a setting changes (`warmup.drag_positions`): natively, an input's Python went from 2 ms to 0.3. "
        "A/B, 3 fresh pages each, alternating, on one machine: 10.6/15.6 -> 6.5/13.0 ms at 8 GPUs, 11.1/20.0 -> "
        "7.0/13.8 at 16, 31.0/62.7 -> 23.3/34.8 at rate 4. A view never drawn (a new GPU count's first input, "
        "before its positions are drawn) costs what it did. Tables' borders are in the separate model (the same "
        "lines): the 50-row ranks table lays out in 7 ms, not 9.5. At rate 2 the long tasks remain (50-80 ms; "
        "Long Animation Frames in the page name them): progress messages while the worker holds a core (their "
        "handler 15-48 ms, then 13-35 ms of rendering), the pick's first task (a worker started, 13 ms of forced "
        "layout), and the style and layout of a large read's analysis.",
        "- *2 and 1 long tasks at CPU rate 2 (73-79 ms reading 8 x 50 MB, 54 ms loading 4,096 summaries), input p95 "
        "14 ms at 16 GPUs, on a machine 2.1x slower* (issue 22): per-step timings and Long Animation Frames in the "
        "page named one part of the measurement of 2.2 MB (a real trace's steps carry their ranks' drawn spans, and "
        "parts were cut by a count of steps: 72 ms to unpickle), the step's lanes drawn in one step (37 ms), the "
        "whole analysis styled and laid out in one frame (85 ms), progress messages (15-43 ms each, ten a second, "
        "while the worker holds a core), and, at 16 GPUs, the drawing of the slider's positions starting from 2.9 "
        "while the bench's inputs start from 1.0. Parts are now cut under 256 KiB (32 KiB since: a real JSONL run's "
        "steps are objects, 5 ms natively for 150 kB), lanes drawn a lane a step, a "
        "region of 8,000 characters or more written in a task and laid out in a frame of its own, the ranks table "
        "(below the fold) laid out once scrolled near (`content-visibility: auto`), progress posted every 250 ms, "
        "and each step of the slider's drawing takes the position nearest where the slider is then, ahead of its "
        "move. The bench's own loads at rate 2, run alone: 0, 2 and 4, 3 long tasks before; 1, 3, 2 and 0, 1, 3 "
        "after. What remains is mostly an input in the first 1.5 s of a read (66-87 ms, 8-36 of them forced layout) "
        "while the worker starts its interpreter on the other core.",
        "- *Input p95 10.7 and 11.4 ms at 8 and 16 GPUs, 1 long task loading 4,096 summaries at CPU rate 2, a "
        "threshold's commit a 248 ms interaction in half the runs, on a machine 2.7x slower* (issue 22): the CPU "
        "time of every browser thread, read from /proc around the bench's inputs, showed the browser's own main "
        "thread spending 9-10 ms on each input, as much as the page's: each input rewrote the URL "
        "(`history.replaceState`, handled by the browser as a navigation). The link is now written once the "
        "controls rest (0.3 s; a new view at once): 0.1 ms of the browser's thread an input, 18 ms of CPU in all "
        "instead of 29. Probe builds logging each step and each of Python's collections in the page showed the "
        "unpickling of a long run's measurement meeting collections that grew with the heap to 245 ms each (the "
        "page's Python 3.14 collects incrementally): the collector is now off while a read's measurement is made, "
        "in the worker and in the page, and what it made is then set aside (`gc.freeze`). A threshold's commit "
        "painted nothing until 11,700 steps were judged, and Event Timing counts until the next paint: the note "
        "now answers at once, and the judgement, drawing and writing run in steps (judging yields in each pass over "
        "the steps; two of them had been single steps of 60-230 ms in the page). Your traces kept one drawing, so "
        "a fit arriving meanwhile drew the shown one again and the write drew the new one again (300 ms): two are "
        "kept. A read's progress list was written whole four times a second (every `<progress>` built again); it "
        "moves in place. Chrome's CPU throttling on Linux busy-waits in a signal handler on the page's thread: a "
        "throttled page burns 1.6 s of CPU in 3 s at rate 2 while idle, so on 2 cores rate 2 also takes half a "
        "core from the worker and the browser; what remains there are handlers stretched while the worker, the "
        "raster threads and the browser want both cores.",
        "- *Input p95 12.2 and 10.3 ms at 8 and 16 GPUs (p50 4.5 and 4.6), 1 and 2 long tasks of 52-56 ms at CPU "
        "rate 2, on a machine 2.0x slower; 10.2 and 7.8 ms, 0 and 0, in the next run on the same build (2.7x)* "
        "(issue 22): per-input timings in a probe build named the slowest tenth "
        "of a 16-GPU drag's inputs: its first pass over the slider, each input comparing the timeline's markup "
        "with the last (2-9 ms in the page). The idle preparation of a drag now also makes the patches between "
        "neighbouring positions (`warmup.neighbour_patches`). What an input still costs at rate 1: its Python, 2-3 "
        "ms (one JavaScript call sets some 70 attributes and texts, 0.8 ms of it); the style and layout of the "
        "~130 objects it dirties, 2.5 ms (`contain` on the regions does not shorten it); and, for the slowest "
        "inputs, the page's thread waiting on 2 cores. At rate 2, what crosses 50 ms now and then is the first "
        "frame of the 4,096-rank map (1,600 objects laid out and painted in one frame, 51 ms).",
        "- *Input p95 8.4 and 9.5 ms at 8 and 16 GPUs (p50 6.1 and 5.2), 0 and 1 long tasks (82 ms) at CPU rate "
        "2, on a machine 2.1x slower* (issue 22): the first run with every Pyodide started without WebAssembly "
        "stack switching (`web/pyodide-start.mjs`; docs/snapshot.md says why: Chromium 156's renderer crashed on "
        "those stacks). Long Animation Frames of the 4,096-summary load at rate 2, two pages on this build and two "
        "on the one before it, show the same frames on both: progress messages of 34-59 ms and the map's first "
        "frame, 51-79 ms, now and then past 50 ms.",
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")


STREAM_MB = 50
PAGE_RANKS = 8


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


LONG_PROBE = """() => {
  window.__events = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.interactionId) window.__events.push(e.duration);
  }).observe({ type: "event", durationThreshold: 16, buffered: false });
}"""


def traces_page(p, url: str):  # type: ignore[no-untyped-def]
    """A browser (Playwright's `p`) and its page on Your traces, Python live, no service worker, the long-task
    probe in place."""
    browser = p.chromium.launch(**launch_options())
    context = browser.new_context(viewport={"width": 1360, "height": 1000}, service_workers="block")
    context.add_init_script(READY_PROBE)
    page = context.new_page()
    page.goto(url + "#view=traces")
    page.wait_for_function("window.__ready_ms !== null", timeout=60_000)
    return browser, page


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
                judging = max(page.evaluate("window.__long_tasks").__getitem__(slice(before, None)) or [0.0])
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
        "threshold_judging_task_ms": judging,
        "lang_long_task_ms": lang,
    }


def renderer_mb() -> float | None:
    """Resident memory of Chromium's renderer processes (a page and its workers live in its renderer), in MB; None
    where /proc is not there to read."""
    total, found = 0, False
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if b"--type=renderer" not in (proc / "cmdline").read_bytes():
                continue
            rss = next(line for line in (proc / "status").read_text().splitlines() if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
        total, found = total + int(rss.split()[1]) * 1024, True
    return total / 1e6 if found else None


AFTER_PICK = """window.__long_tasks.filter((_, i) => window.__long_task_starts[i] >= window.__picked_at)"""
"""Long tasks from the page's `change` event on: the browser's own task that builds the FileList (a stat per file,
about 0.2 ms each, before any page code runs, whatever the page does) is not the page's."""


def summaries_page_figures(dist: Path, rate: float = 1) -> dict:
    """4,096 generated summaries picked in Your traces: main-thread long tasks from the pick to the drawn
    analysis, and the renderer's peak memory (sampled every 100 ms); the CPU slowed `rate` times."""
    import threading

    from playwright.sync_api import sync_playwright

    from ddpcore.traces import SUFFIX, summary_bytes
    from scripts.tracegen import big_run

    runs = big_run()
    peak: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for f in runs:
            path = Path(tmp) / f"rank{f.rank}{SUFFIX}"
            path.write_bytes(summary_bytes(f))
            files.append(str(path))
        del runs
        server, url = build.serve_in_thread(dist)
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.1):
                mb = renderer_mb()
                if mb is not None:
                    peak.append(mb)

        try:
            with sync_playwright() as p:
                browser, page = traces_page(p, url)
                page.wait_for_timeout(1000)
                throttle(page, rate)
                idle = renderer_mb()
                sampler = threading.Thread(target=sample, daemon=True)
                sampler.start()
                start = time.perf_counter()
                page.set_input_files("[data-testid=trace-files]", files)
                page.wait_for_selector("[data-testid=rank-step-map]", timeout=900_000)
                page.wait_for_selector("[data-testid=fit-scale-row]", timeout=900_000)
                seconds = time.perf_counter() - start
                page.wait_for_timeout(1000)
                long_tasks = page.evaluate(AFTER_PICK)
                done.set()
                sampler.join()
                straggler = page.inner_text("#trace-summary")
                browser.close()
        finally:
            done.set()
            server.shutdown()
    return {
        "ranks": BIG_RANKS,
        "steps": BIG_STEPS,
        "seconds": seconds,
        "summaries_4096_long_tasks": len(long_tasks),
        "long_task_ms": long_tasks,
        "renderer_idle_mb": idle,
        "renderer_peak_mb": max(peak) if peak else None,
        "summaries_4096_memory_mb": max(peak) - idle if peak and idle is not None else None,
        "names_rank_777": "777" in straggler,
    }


def stream_figures(trace: bytes) -> dict:
    """The streaming reader against json.load of the same file, and its peak memory against the file's size."""
    import tracemalloc

    from ddpcore.traces import chunked, read_trace

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
    """4,096 ranks x 200 steps of generated summaries: analyze (reading included) against gunzip + json.load of
    the same files, and the rank x step map drawn from the analysis."""
    import gzip

    sys.path.insert(0, str(build.WEB))
    from ddpview.views import map_svg

    from ddpcore.analysis import analyze, rank_step_map
    from ddpcore.traces import SUFFIX, load, summary_bytes
    from scripts.tracegen import big_run

    runs = big_run()
    files = [(f"rank{f.rank}{SUFFIX}", summary_bytes(f)) for f in runs]
    json_s = core_timings.best_seconds(lambda: [json.loads(gzip.decompress(data)) for _, data in files], 2)
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
        "json_load_s": json_s,
        "analyze_s": analyze_s,
        "summaries_4096_vs_json_load": analyze_s / json_s,
        "map_4096_render_ms": map_s * 1000,
    }


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


def main(dist: Path, out: Path, quick: bool = False) -> int:
    trace = generated_trace(STREAM_MB * 1024 * 1024)
    results = {
        "page": page_figures(dist, quick),
        "meta": {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        },
        "native": core_timings.run(),
        "pyodide": pyodide_timings(dist, trace),
        "stream": stream_figures(trace),
    }
    results["meta"]["machine_slowdown"] = machine_slowdown(results["native"])
    stream = results["stream"]
    stream["pyodide_vs_native_stream"] = stream["stream_s"] / results["pyodide"].pop("stream_s")
    results["summaries"] = summaries_figures()
    results["summaries_page"] = summaries_page_figures(dist)
    results["page_parse"] = page_parse_figures(dist, trace)
    stream["page_parse_long_tasks"] = results["page_parse"]["page_parse_long_tasks"]
    stream["page_parse_input_p95_ratio"] = results["page_parse"]["page_parse_input_p95_ratio"]
    results["long_run"] = long_run_figures(dist)
    half_parse, half_summaries = page_parse_figures(dist, trace, HALF), summaries_page_figures(dist, HALF)
    results["throttled"] = {
        f"rate{HALF}": {
            "page_parse_long_tasks": half_parse["page_parse_long_tasks"],
            "page_parse_long_task_ms": half_parse["long_task_ms"],
            "summaries_4096_long_tasks": half_summaries["summaries_4096_long_tasks"],
            "summaries_4096_long_task_ms": half_summaries["long_task_ms"],
        },
        f"rate{SLOW}": {"input_p95_ms": results["page"]["throttled_input_ms"]["p95"]},
    }
    write_report(results, out)
    print((out / "README.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), "--quick" in sys.argv[3:]))
