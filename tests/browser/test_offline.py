"""Offline after the first visit: the service worker precaches the build, named by its content hash."""

from __future__ import annotations

import json
import shutil

import pytest
from pages import PageWatch, assert_page_works

import build

pytestmark = pytest.mark.browser

CONTROLLED = "navigator.serviceWorker.controller !== null"  # set once the precache is complete (clients.claim)


def test_page_works_offline_after_one_visit(browser, site):
    context = browser.new_context()
    page = context.new_page()
    page.goto(site + "#slowdown=2")
    page.wait_for_selector("html.ready", timeout=60_000)
    page.wait_for_function(CONTROLLED, timeout=60_000)
    context.set_offline(True)
    watch = PageWatch(page, site.rstrip("/"))
    page.reload()
    page.wait_for_selector("html.ready", timeout=60_000)
    assert page.evaluate("globalThis.ddpcoreStart.snapshot") is True, "the snapshot is precached"
    assert_page_works(page, watch, "70.0")
    context.close()


def test_a_new_build_replaces_the_old_cache(browser, dist, tmp_path):
    site_dir = tmp_path / "site"
    shutil.copytree(dist, site_dir)
    server, root = build.serve_in_thread(site_dir)
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(root)
        page.wait_for_selector("html.ready", timeout=60_000)
        page.wait_for_function(CONTROLLED, timeout=60_000)
        old = json.loads((site_dir / "build.json").read_text())["hash"]
        assert page.evaluate("caches.keys()") == [f"ddpcore-{old}"]
        files = json.loads((site_dir / "precache.json").read_text())
        build.write_service_worker(site_dir, "0123456789abcdef", files)
        page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.update())")
        page.wait_for_function(
            "want => { caches.keys().then(k => { window.__cacheKeys = k.join(); }); "
            "return window.__cacheKeys === want; }",
            arg="ddpcore-0123456789abcdef",
            polling=100,
            timeout=60_000,
        )
        assert page.evaluate("caches.keys()") == ["ddpcore-0123456789abcdef"]
        context.close()
    finally:
        server.shutdown()
