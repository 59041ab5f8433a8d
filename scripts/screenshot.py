"""Screenshots of the real page for the README and docs/: python build.py screenshot.

Writes the One step view (`--out`, docs/screenshot.png) and, beside it, Your traces on two real GPU runs:
traces-hta.png (two ranks of a 128-rank TorchRec job), traces-cuda.png (a PyTorch 2.11 H200 trace, and a copy
of it as a second rank); the panel "Your run at scale", in French, on the 8-rank transient run
(fit-transient-fr.png); and the verdict, map and lanes of 4,096 summaries (traces-4096.png)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

import build
from scripts.browser import launch_options
from scripts.tracegen import big_run, gpu_pair

FIXTURES = build.ROOT / "tests" / "fixtures"
WIDTH = 1360


def cuda_files(folder: Path) -> list[str]:
    """The one-GPU trace and its twin as rank 1, written where the file picker can take them."""
    paths = []
    for name, data in gpu_pair():
        (folder / name).write_bytes(data)
        paths.append(str(folder / name))
    return paths


def summary_files(folder: Path) -> list[str]:
    """The bench's generated run, 4,096 ranks x 200 steps with rank 777 persistently late, as summary files."""
    from ddpcore.traces import summary_bytes
    from ddpcore.traces.summary import SUFFIX

    paths = []
    for f in big_run():
        path = folder / f"rank{f.rank}{SUFFIX}"
        path.write_bytes(summary_bytes(f))
        paths.append(str(path))
    return paths


def shoot_traces(
    browser,
    url: str,
    files: list[str],
    out: Path,
    lang: str = "en",
    region: str = "#panel-traces",
    until: str | None = None,
) -> None:
    """Your traces with these files read, clipped to `region` (down to the end of `until` when given)."""
    page = browser.new_page(viewport={"width": WIDTH, "height": 1700}, device_scale_factor=1)
    page.goto(url + f"#view=traces&lang={lang}")
    page.wait_for_selector("html.ready", timeout=60_000)
    page.set_input_files("[data-testid=trace-files]", files)
    page.wait_for_selector("[data-testid=trace-straggler]", timeout=300_000)
    page.wait_for_selector("[data-testid=fit-check], [data-testid=fit-error]", timeout=300_000)
    page.select_option("[data-testid=trace-step]", "1")
    box = page.locator(region).bounding_box()
    end = page.locator(until).bounding_box() if until else box
    height = end["y"] + end["height"] - box["y"]
    page.screenshot(path=str(out), clip={"x": 0, "y": box["y"], "width": WIDTH, "height": height}, full_page=True)
    page.close()
    print(f"wrote {out}")


def main(dist: Path, out: Path) -> None:
    server, url = build.serve_in_thread(dist)
    out.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(**launch_options())
        page = browser.new_page(viewport={"width": WIDTH, "height": 1700}, device_scale_factor=1)
        page.goto(url + "#gpus=8&straggler=2&slowdown=2&prefetch=0")
        page.wait_for_selector("html.ready", timeout=60_000)
        for _ in range(9):
            page.click("[data-testid=next-step]")
        page.screenshot(path=str(out), clip={"x": 0, "y": 0, "width": WIDTH, "height": 1620})
        print(f"wrote {out}")
        shoot_traces(
            browser,
            url,
            [str(p) for p in sorted((FIXTURES / "hta_torchrec").glob("*.json.gz"))],
            out.parent / "traces-hta.png",
        )
        shoot_traces(browser, url, cuda_files(Path(tmp)), out.parent / "traces-cuda.png")
        shoot_traces(
            browser,
            url,
            [str(p) for p in sorted((FIXTURES / "ddp8_transient").glob("*.jsonl.gz"))],
            out.parent / "fit-transient-fr.png",
            lang="fr",
            region="[data-testid=fit-panel]",
        )
        shoot_traces(
            browser,
            url,
            summary_files(Path(tmp)),
            out.parent / "traces-4096.png",
            region="#trace-summary",
            until="#trace-timeline-view",
        )
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
