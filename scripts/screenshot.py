"""Screenshot of the real page for the README: python build.py screenshot."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


def main(dist: Path, out: Path) -> None:
    server, url = build.serve_in_thread(dist)
    out.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(**build.chromium_launch_options())
        page = browser.new_page(viewport={"width": 1360, "height": 1700}, device_scale_factor=1)
        page.goto(url + "#gpus=8&straggler=2&slowdown=2&prefetch=0")
        page.wait_for_selector("html.ready", timeout=60_000)
        for _ in range(9):
            page.click("[data-testid=next-step]")
        page.screenshot(path=str(out), clip={"x": 0, "y": 0, "width": 1360, "height": 1620})
        browser.close()
    server.shutdown()
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
