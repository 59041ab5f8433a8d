"""Accessibility: labelled, keyboard-operable controls, visible focus, text contrast of at least 4.5:1."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

UNLABELLED = """() => [...document.querySelectorAll('input, select, button, [role=tab]')].filter(el => {
  const name = (el.getAttribute('aria-label') || '').trim()
    || [...(el.labels || [])].map(l => l.textContent.trim()).join('')
    || (el.tagName === 'BUTTON' || el.getAttribute('role') === 'tab' ? el.textContent.trim() : '');
  return !name;
}).map(el => el.id || el.outerHTML.slice(0, 80))"""

LOW_CONTRAST = """() => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  })
    .reduce((acc, v, i) => acc + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = el => {
    for (let e = el; e; e = e.parentElement) {
      if (e instanceof SVGElement && e.tagName !== 'svg') continue;
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || parseFloat(style.opacity) < 1) continue;
    if (el.closest('[disabled], .skip, .visually-hidden')) continue;
    const fg = rgb(el instanceof SVGElement ? style.fill : style.color).slice(0, 3);
    const [a, b] = [lum(fg), lum(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && +style.fontWeight >= 700);
    const what = `${el.tagName}.${el.getAttribute('class') || ''} "${el.textContent.trim().slice(0, 30)}"`;
    if (ratio < (large ? 3 : 4.5)) bad.push(`${what} ${ratio.toFixed(2)}`);
  }
  return bad;
}"""


@pytest.mark.parametrize("view", ["step", "cluster", "traces"])
def test_controls_are_labelled_and_text_has_contrast(open_page, view):
    page, watch = open_page(f"#view={view}&slowdown=2&mode=overlap")
    if view == "traces":
        page.click("[data-testid=trace-example]")
        page.wait_for_selector("[data-testid=trace-straggler]")
    assert page.evaluate(UNLABELLED) == []
    assert page.evaluate(LOW_CONTRAST) == []
    watch.assert_clean()


def test_focus_is_visible_and_everything_is_reachable_by_keyboard(open_page):
    page, watch = open_page()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    seen = set()
    for _ in range(25):
        page.keyboard.press("Tab")
        info = page.evaluate("""() => { const el = document.activeElement, s = getComputedStyle(el);
            return [el.dataset.testid || el.id || el.tagName, s.outlineStyle, s.outlineWidth]; }""")
        if info[0] == "BODY":  # past the last control, focus leaves the page before wrapping round
            continue
        seen.add(info[0])
        assert info[1] != "none" and info[2] != "0px", info
    assert {"view-step", "gpus", "straggler", "slowdown", "prefetch", "mode", "play", "next-step", "reset"} <= seen
    watch.assert_clean()
