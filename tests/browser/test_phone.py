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


SCROLLERS = """() => [...document.querySelectorAll('#trace-map, #trace-timeline-view, #trace-ranks')].map(box => {
    const cue = box.nextElementSibling;
    return [box.id, box.scrollWidth > box.clientWidth + 1, !!cue && cue.matches('[data-testid=scroll-cue]')
        && cue.offsetParent !== null && cue.innerText.trim().length > 0];
})"""


MARKED = """() => [...document.querySelectorAll('.scroll-cue')].every(cue => {
    const box = cue.previousElementSibling;
    return box.hasAttribute('data-overflows') === box.scrollWidth > box.clientWidth + 1;
})"""
"""boot.js has marked every box as its layout now stands (its observers answer after the region is written)."""


@pytest.mark.parametrize(("lang", "width"), [("en", 390), ("fr", 390), ("en", 1360)])
def test_a_box_that_scrolls_says_so(browser, site, lang, width):
    """At 390 px the rank x step map and the lanes scroll inside their boxes ("steps 1 to 59" cut to "s"): a line
    under each says that it goes on to the right. On a wide screen they fit, and no line says they scroll; a box
    that scrolls there (the ranks table's many columns) says so too."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    watch = PageWatch(page, site.rstrip("/"))
    page.goto(site + f"#view=traces&lang={lang}")
    page.wait_for_selector("html.ready", timeout=60_000)
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=trace-timeline]")
    page.wait_for_function(MARKED)
    boxes = page.evaluate(SCROLLERS)
    assert [b[0] for b in boxes] == ["trace-map", "trace-timeline-view", "trace-ranks"]
    for name, scrolls, cue_shown in boxes:
        assert cue_shown == scrolls, (name, scrolls, "a line says so exactly where the box scrolls")
        if name != "trace-ranks":
            assert scrolls == (width == 390), (name, scrolls)
    if width == 390:
        cue = page.locator("[data-testid=scroll-cue]").first.inner_text()
        assert ("goes on to the right" if lang == "en" else "la suite est à droite") in cue
    watch.assert_clean()
    context.close()
