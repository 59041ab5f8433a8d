"""Fixtures for the browser tests: the built site on an in-process server, and headless Chromium."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from crashlog import PageLog, WatchedBrowser, log_since, log_size, machine_state, started_playwright
from pages import PageWatch

import build
from scripts.browser import launch_options
from scripts.minidump import crashes_since


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


PAGES = PageLog()
WATCHED: list[WatchedBrowser] = []
"""The session's browser, once started."""
LOG_START = pytest.StashKey[int]()
STARTED = pytest.StashKey[float]()


@pytest.fixture(autouse=True)
def _no_context_outlives_its_test():
    """Whatever a test opened in the browser is closed when it ends, pass or fail."""
    yield
    for browser in WATCHED:
        browser.close_contexts()


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """One headless Chromium for the session; its stderr kept in a log, each page it opens watched (crashlog)."""
    log = tmp_path_factory.getbasetemp() / "chromium.log"
    with started_playwright(log) as p:
        b = p.chromium.launch(**launch_options())
        watched = WatchedBrowser(b, PAGES, log)
        WATCHED.append(watched)
        yield watched
        WATCHED.clear()
        b.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    item.stash[LOG_START] = log_size(WATCHED[0].log_path) if WATCHED else 0
    item.stash[STARTED] = time.time()
    PAGES.lines.clear()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test reports what the pages said, whether one crashed, Chromium's log since the test
    began, the machine's memory and load, and what each crash dump written meanwhile says."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and "browser" in item.fixturenames and WATCHED:
        report.sections.append(("machine", machine_state()))
        report.sections.append(("pages (console, errors, crashes)", "\n".join(PAGES.lines) or "(nothing)"))
        report.sections.append(("chromium log", log_since(WATCHED[0].log_path, item.stash.get(LOG_START, 0))))
        dumps = crashes_since(item.stash.get(STARTED, time.time()))
        if dumps:
            report.sections.append(("crash dumps (scripts/minidump.py)", "\n".join(dumps)))


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
