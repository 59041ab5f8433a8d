"""Hosting: the page runs under its Content-Security-Policy and from a sub-path, as on GitHub Pages."""

from __future__ import annotations

import pytest
from pages import PageWatch, assert_page_works, load_example_traces, read_picked_traces

import build

pytestmark = pytest.mark.browser

CSP_PROBE = (
    "window.__csp = []; addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective));"
)


def test_page_runs_under_its_csp_without_violation(browser, site):
    context = browser.new_context()
    context.add_init_script(CSP_PROBE)
    page = context.new_page()
    watch = PageWatch(page, site.rstrip("/"))
    page.goto(site)
    page.wait_for_selector("html.ready", timeout=60_000)
    csp = page.get_attribute("meta[http-equiv=Content-Security-Policy]", "content")
    assert "default-src 'self'" in csp and "script-src 'self' 'wasm-unsafe-eval'" in csp
    assert page.evaluate("globalThis.ddpcoreStart.snapshot") is True, "Python started from its snapshot"
    page.fill("[data-testid=slowdown]", "2")
    page.click("[data-testid=view-cluster]")
    load_example_traces(page)
    read_picked_traces(page)
    assert page.evaluate("window.__csp") == []
    watch.assert_clean()
    context.close()


def test_site_works_under_a_sub_path(browser, dist, tmp_path):
    (tmp_path / "ddpcore").symlink_to(dist, target_is_directory=True)
    server, root = build.serve_in_thread(tmp_path)
    try:
        context = browser.new_context()
        page = context.new_page()
        watch = PageWatch(page, root.rstrip("/"))
        page.goto(root + "ddpcore/#slowdown=1.5")
        page.wait_for_selector("html.ready", timeout=60_000)
        assert page.evaluate("globalThis.ddpcoreStart.snapshot") is True, "the snapshot found under the sub-path"
        assert_page_works(page, watch, "57.0")
        context.close()
    finally:
        server.shutdown()


def test_the_app_ships_as_bytecode_without_server_modules(dist):
    """A module the bundle's precompile cannot import makes the build fall back to sources (a slower start): the
    bytecode must be there, and the command-line and server modules must not."""
    import zipfile

    names = set(zipfile.ZipFile(dist / "py" / build.BUNDLE).namelist())
    assert {
        "ddpcore/analysis/verdict.pyc",
        "ddpcore/analysis/measured.pyc",
        "ddpcore/analysis/fitting.pyc",
        "ddpview/app/model.pyc",
        "shell/reading.pyc",
    } <= names
    assert not any(n.removesuffix("c") == skip or n.startswith(skip) for n in names for skip in build.WEB_SKIP)
