"""Fixtures for the browser tests: the built site on an in-process server, and headless Chromium."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import build
from scripts.browser import launch_options


@pytest.fixture(scope="session")
def dist() -> Path:
    """dist/ as `python build.py test` built it, or built now when pytest runs on its own."""
    given = os.environ.get("DDPCORE_DIST")
    if given and (Path(given) / "index.html").exists():
        return Path(given)
    return build.build()


@pytest.fixture(scope="session")
def site(dist):
    server, url = build.serve_in_thread(dist)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(**launch_options())
        yield b
        b.close()


class PageWatch:
    """Collects what the page did that it should not: console errors, failed or foreign requests."""

    def __init__(self, page, origin: str) -> None:
        self.page = page
        self.origin = origin
        self.console_errors: list[str] = []
        self.foreign_requests: list[str] = []
        self.failed_requests: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.console_errors.append(str(e)))
        page.on("request", self._on_request)
        page.on("requestfailed", lambda r: self.failed_requests.append(r.url))

    def _on_request(self, request) -> None:
        url = request.url
        if not (url.startswith(self.origin) or url.startswith("data:") or url.startswith("blob:")):
            self.foreign_requests.append(url)

    def assert_clean(self) -> None:
        assert self.foreign_requests == []
        assert self.failed_requests == []
        assert self.console_errors == []
        assert not self.page.is_visible("[data-testid=errors]")


@pytest.fixture
def open_page(browser, site):
    """open_page(hash='', locale='en-US') -> (page, watch), once Python is live."""
    contexts = []

    def _open(fragment: str = "", locale: str = "en-US", **context_options):
        context = browser.new_context(locale=locale, **context_options)
        contexts.append(context)
        page = context.new_page()
        watch = PageWatch(page, site.rstrip("/"))
        page.goto(site + fragment)
        page.wait_for_selector("html.ready", timeout=60_000)
        return page, watch

    yield _open
    for context in contexts:
        context.close()


def hash_of(page, contains: str = "", exact: str | None = None, timeout: float = 5_000) -> str:
    """The URL hash once it shows the change: the page writes it in its own task, after the DOM update."""
    if exact is not None:
        page.wait_for_function("h => location.hash === h", arg=exact, timeout=timeout)
    else:
        page.wait_for_function("s => location.hash.includes(s)", arg=contains, timeout=timeout)
    return page.evaluate("location.hash")
