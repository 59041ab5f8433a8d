"""Fixtures for the browser tests: the built site on an in-process server, and headless Chromium."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pages import PageWatch

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
