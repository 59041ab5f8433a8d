"""What the bench puts into a page and reads from it: the scripts it injects (ready, long tasks, input latency,
play), the browser's CPU throttling and memory, and the quantiles it reports."""

from __future__ import annotations

import statistics
from pathlib import Path

from scripts.browser import launch_options

__all__ = [
    "AFTER_PICK",
    "INPUT_LATENCY",
    "LONG_PROBE",
    "OFFLINE_READY",
    "PLAY",
    "READY_PROBE",
    "RendererPeak",
    "percentile",
    "renderer_mb",
    "throttle",
    "traces_page",
]


def throttle(page, rate: float) -> None:
    """Slow the page's CPU `rate` times (1: full speed), over the Chrome DevTools Protocol."""
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})


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


LONG_PROBE = """() => {
  window.__events = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.interactionId) window.__events.push(e.duration);
  }).observe({ type: "event", durationThreshold: 16, buffered: false });
}"""


def traces_page(p, url: str):
    """A browser (Playwright's `p`) and its page on Your traces, Python live, no service worker, the long-task
    probe in place."""
    browser = p.chromium.launch(**launch_options())
    context = browser.new_context(viewport={"width": 1360, "height": 1000}, service_workers="block")
    context.add_init_script(READY_PROBE)
    page = context.new_page()
    page.goto(url + "#view=traces")
    page.wait_for_function("window.__ready_ms !== null", timeout=60_000)
    return browser, page


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


class RendererPeak:
    """The renderer's memory while the block runs: its resident MB when the block starts (`idle`) and at most
    (`peak`), sampled every 100 ms by a thread; `over_idle` the difference (None where /proc cannot be read)."""

    def __init__(self) -> None:
        import threading

        self.idle: float | None = None
        self.samples: list[float] = []
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self.done.wait(0.1):
            mb = renderer_mb()
            if mb is not None:
                self.samples.append(mb)

    def __enter__(self) -> RendererPeak:
        self.idle = renderer_mb()
        self.sampler.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.done.set()
        self.sampler.join()

    @property
    def peak(self) -> float | None:
        """The most the renderer held while sampled."""
        return max(self.samples) if self.samples else None

    @property
    def over_idle(self) -> float | None:
        """The peak over the idle figure."""
        return self.peak - self.idle if self.peak is not None and self.idle is not None else None
