"""On a phone (390 px wide), in both languages, no view is wider than the screen: figures scale, tables scroll."""

from __future__ import annotations

import pytest
from pages import PageWatch

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_no_horizontal_overflow_at_390_px(browser, site, lang):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    watch = PageWatch(page, site.rstrip("/"))
    page.goto(site + f"#lang={lang}")
    page.wait_for_selector("html.ready", timeout=60_000)
    for view in ("step", "cluster", "traces"):
        page.click(f"[data-testid=view-{view}]")
        if view == "traces":
            page.click("[data-testid=trace-example-gpu]")
            page.wait_for_selector("[data-testid=trace-timeline]")
        widths = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert widths[0] <= widths[1] == PHONE["width"], (view, widths)
        ring = page.locator("[data-testid=ring]")
        if view == "step":
            assert ring.bounding_box()["width"] <= PHONE["width"]
    holder = page.locator("#trace-timeline-view").bounding_box()
    assert holder["x"] >= 0 and holder["x"] + holder["width"] <= PHONE["width"], "the measured step scrolls in place"
    for label in ("#trace-timeline-view .lane-label", "#trace-map .map-label"):
        height = page.locator(label).first.bounding_box()["height"]
        assert height >= 9, (label, height, "a label must stay readable")
    rule = page.locator("[data-testid=alert-rule]")
    assert rule.evaluate("e => getComputedStyle(e).whiteSpace") == "pre", "YAML keeps its indentation"
    watch.assert_clean()
    context.close()
