"""What a failed browser test shows besides its assertion: each page's console and crash, Chromium's own log since
the test began, and the machine's memory and load at that moment (issue 22: a crash must explain itself).

Chromium's stderr reaches us through Playwright's driver: with DEBUG=pw:browser, the driver copies every line the
browser writes to its own stderr, which `started_playwright` points at a log file for the whole session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import deque
from contextlib import contextmanager
from pathlib import Path

CONSOLE_LINES = 200


class PageLog:
    """Every page of the session, with its console, errors and crash, kept from the moment it opens."""

    def __init__(self) -> None:
        self.lines: deque[str] = deque(maxlen=CONSOLE_LINES)
        self.crashes: list[str] = []

    def watch(self, page) -> None:
        """Listen to a new page: its console, its uncaught errors, its renderer's crash."""
        name = f"page {id(page) % 10_000:04d}"
        page.on("console", lambda m: self.lines.append(f"{name} console.{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.lines.append(f"{name} pageerror: {e}"))
        page.on("crash", lambda p: self._crashed(name, p))
        page.on("close", lambda p: self.lines.append(f"{name} closed"))

    def _crashed(self, name: str, page) -> None:
        self.crashes.append(f"{name} crashed at {page.url}")
        self.lines.append(f"{name} CRASHED ({page.url}); machine: {machine_state()}")


class WatchedBrowser:
    """The session's browser, each page it opens (through a context or directly) watched by a PageLog, and each
    context it opens closed by `close_contexts` at the end of its test, even a failed one: a context left open
    keeps its page's Python and its worker's alive (hundreds of MB each) for the rest of the session."""

    def __init__(self, browser, log: PageLog, log_path: Path) -> None:
        self._browser = browser
        self._log = log
        self.log_path = log_path
        """Chromium's stderr for the session (`started_playwright`)."""
        self.contexts: list = []

    def new_context(self, **options):
        """A context whose every page is watched."""
        context = self._browser.new_context(**options)
        context.on("page", self._log.watch)
        self.contexts.append(context)
        return context

    def new_page(self, **options):
        """A page (in a context of its own), watched."""
        page = self._browser.new_page(**options)
        self._log.watch(page)
        self.contexts.append(page.context)
        return page

    def close_contexts(self) -> None:
        """Close every context opened since the last call (closing one already closed does nothing)."""
        for context in self.contexts:
            context.close()
        self.contexts.clear()

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@contextmanager
def started_playwright(log_path: Path):
    """sync_playwright() whose driver writes Chromium's stderr (DEBUG=pw:browser) into `log_path`."""
    from playwright.sync_api import sync_playwright

    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "a", buffering=1, encoding="utf-8") as sink:
        saved_stderr, saved_debug = sys.stderr, os.environ.get("DEBUG")
        os.environ["DEBUG"] = "pw:browser"
        sys.stderr = sink
        try:
            manager = sync_playwright()
            playwright = manager.start()
        finally:
            sys.stderr = saved_stderr
            if saved_debug is None:
                os.environ.pop("DEBUG", None)
            else:
                os.environ["DEBUG"] = saved_debug
        try:
            yield playwright
        finally:
            manager.__exit__(None, None, None)


def machine_state() -> str:
    """Memory available, load, /dev/shm use and the browser processes' resident memory, in one line."""
    meminfo = {}
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            key, _, rest = line.partition(":")
            meminfo[key] = int(rest.split()[0]) // 1024
    shm = shutil.disk_usage("/dev/shm") if os.path.isdir("/dev/shm") else None
    ps = subprocess.run(["ps", "-eo", "rss=,comm="], capture_output=True, text=True, check=False).stdout
    chromium_mb = sum(int(line.split()[0]) for line in ps.splitlines() if "chrom" in line) // 1024
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    shm_text = f", /dev/shm {shm.used // 2**20} of {shm.total // 2**20} MiB used" if shm else ""
    return (
        f"MemAvailable {meminfo.get('MemAvailable', -1)} of {meminfo.get('MemTotal', -1)} MiB, "
        f"load {load} on {os.cpu_count()} CPUs{shm_text}, Chromium processes {chromium_mb} MiB resident"
    )


def log_since(path: Path, offset: int, limit: int = 20_000) -> str:
    """The log's text written since `offset` (its last `limit` characters)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            f.seek(offset)
            text = f.read()
    except OSError as exc:
        return f"(no log: {exc})"
    return text[-limit:]


def log_size(path: Path) -> int:
    """Where the log ends now."""
    try:
        return path.stat().st_size
    except OSError:
        return 0
