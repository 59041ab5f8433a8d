"""Open the built page again and again, as the browser tests do, and count the renderer crashes, with what each
crash dump says (scripts/minidump.py). With `--stack-switching`, Pyodide is loaded with WebAssembly's stack switching
left in place (web/pyodide-start.mjs removes it): with Chromium's sampling heap profiler forced on (`--browser-arg`,
docs/snapshot.md gives the switch), the crash described there then comes back.

Usage: python3 build.py build && .venv/bin/python -m scripts.reopen [--loads N] [--stack-switching]
       [--browser-arg=SWITCH ...] [DIST]"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import build
from scripts.browser import launch_options
from scripts.minidump import crashes_since

VISITS = ("", "#gpus=16&straggler=2&slowdown=2&prefetch=0", "#view=cluster", "#view=traces")
"""The views opened in turn; One step's are dragged, Your traces reads its example."""
KEEP_STACK_SWITCHING = 'export { loadPyodide, version } from "./pyodide.mjs";\n'


def _noting(crashed: list[int], n: int) -> Callable[[Any], None]:
    """What notes load `n` as crashed when its page crashes (`Page.on("crash")` hands it the page)."""
    return lambda _page: crashed.append(n)


def visit(page, url: str, n: int) -> None:
    """Open one view, wait for Python, then use it as a test would."""
    fragment = VISITS[n % len(VISITS)]
    page.goto(url + fragment)
    page.wait_for_selector("html.ready", timeout=60_000)
    if fragment == "#view=traces":
        page.click("[data-testid=trace-example]")
        page.wait_for_selector("[data-testid=trace-straggler]", timeout=60_000)
    elif fragment != "#view=cluster":
        page.focus("[data-testid=slowdown]")
        for _ in range(10):
            page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dist", nargs="?", type=Path, default=build.DIST)
    parser.add_argument("--loads", type=int, default=40)
    parser.add_argument("--stack-switching", action="store_true", help="leave WebAssembly's JSPI to Pyodide")
    parser.add_argument("--browser-arg", action="append", default=[], help="one more Chromium switch (repeatable)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server, url = build.serve_in_thread(args.dist)
    began, crashed = time.time(), list[int]()
    with sync_playwright() as p:
        options = launch_options()
        options["args"] = [*options["args"], *args.browser_arg]
        browser = p.chromium.launch(**options)
        for n in range(args.loads):
            context = browser.new_context()
            if args.stack_switching:
                context.route(
                    f"**/{build.START}",
                    lambda route: route.fulfill(body=KEEP_STACK_SWITCHING, content_type="text/javascript"),
                )
            page = context.new_page()
            page.on("crash", _noting(crashed, n))
            try:
                visit(page, url, n)
            except Exception as exc:  # a crashed page fails whatever it was waiting for
                print(f"load {n}: {str(exc).splitlines()[0]}", flush=True)
            context.close()
        browser.close()
    server.shutdown()
    print(f"{args.loads} loads, {len(crashed)} crashed renderers {crashed}, {time.time() - began:.0f} s")
    for line in crashes_since(began):
        print("  " + line)


if __name__ == "__main__":
    main()
