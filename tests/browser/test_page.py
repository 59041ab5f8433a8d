"""End-to-end: the built page in headless Chromium, driven through its controls."""

from __future__ import annotations

import pytest
from pages import expect_hash, value

pytestmark = pytest.mark.browser

REFERENCE = [
    # slowdown, prefetch, step, efficiency, displayed util, useful compute
    ("1", False, 44, 1.0, 38 / 44, 13 / 44),
    ("1.5", False, 57, 44 / 57, 51 / 57, 13 / 57),
    ("2", False, 70, 44 / 70, 64 / 70, 13 / 70),
    ("1", True, 39, 1.0, 38 / 39, 13 / 39),
    ("2", True, 65, 39 / 65, 64 / 65, 13 / 65),
]


def set_slowdown(page, text: str) -> None:
    page.fill("[data-testid=slowdown]", text)


def test_reference_scenarios_through_the_ui(open_page):
    page, watch = open_page()
    assert page.input_value("[data-testid=straggler]") == "2"
    for slowdown, prefetch, step, eff, util, useful in REFERENCE:
        set_slowdown(page, slowdown)
        if page.is_checked("[data-testid=prefetch]") != prefetch:
            page.click("[data-testid=prefetch]")
        assert value(page, "step-time") == pytest.approx(step, abs=1e-9)
        assert value(page, "efficiency") == pytest.approx(eff, abs=1e-9)
        assert value(page, "displayed-util") == pytest.approx(util, abs=1e-9)
        assert value(page, "useful-compute") == pytest.approx(useful, abs=1e-9)
        assert value(page, "ideal-step-time") == pytest.approx(39 if prefetch else 44, abs=1e-9)
        assert value(page, "prefetch-gain") == pytest.approx(5, abs=1e-9)
    assert value(page, "straggler-cost") == pytest.approx(26, abs=1e-9)
    watch.assert_clean()


def test_prerendered_view_is_there_before_python(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site)
    assert page.locator("[data-testid=ring] [data-testid=gpu]").count() == 8
    assert page.locator("[data-testid=timeline] [data-testid=lane]").count() == 8
    assert page.get_attribute("[data-testid=step-time]", "data-value") == "44.0"
    assert page.is_visible("#loading")
    context.close()


def test_fourteen_next_steps_finish_the_ring(open_page):
    page, watch = open_page()
    assert value(page, "exchange") == 0
    for k in range(1, 15):
        page.click("[data-testid=next-step]")
        assert value(page, "exchange") == k
    chunks = page.locator("[data-testid=ring] .chunk")
    assert chunks.count() == 64
    assert page.locator("[data-testid=ring] .chunk[data-final='1']").count() == 64
    assert page.get_attribute("[data-testid=next-step]", "aria-disabled") == "true"
    page.click("[data-testid=next-step]", force=True)  # a button marked disabled, still focusable and clickable
    assert value(page, "exchange") == 14, "Next at the end does nothing"
    page.click("[data-testid=reset]")
    assert value(page, "exchange") == 0
    assert page.locator("[data-testid=ring] .chunk[data-final='1']").count() == 0
    watch.assert_clean()


def test_reduce_scatter_leaves_one_final_chunk_per_gpu(open_page):
    page, _ = open_page()
    for _ in range(7):
        page.click("[data-testid=next-step]")
    assert page.locator("[data-testid=ring] .chunk[data-final='1']").count() == 8
    assert "reduce-scatter 7/7" in page.text_content("[data-testid=stage-label]")
    page.click("[data-testid=next-step]")
    assert "all-gather 1/7" in page.text_content("[data-testid=stage-label]")
    assert page.locator("[data-testid=send]").count() == 8


def test_five_gpus_redraw(open_page):
    page, watch = open_page()
    page.fill("[data-testid=gpus]", "5")
    assert page.locator("[data-testid=ring] [data-testid=gpu]").count() == 5
    assert page.locator("[data-testid=timeline] [data-testid=lane]").count() == 5
    assert page.get_attribute("[data-testid=exchange]", "data-total") == "8"
    assert page.locator("[data-testid=straggler] option").count() == 5
    for _ in range(8):
        page.click("[data-testid=next-step]")
    assert value(page, "exchange") == 8
    assert page.locator("[data-testid=ring] .chunk[data-final='1']").count() == 25
    expect_hash(page, contains="gpus=5")
    watch.assert_clean()


def test_hash_round_trip(open_page):
    page, watch = open_page("#gpus=6&straggler=4&slowdown=1.5&prefetch=1")
    assert page.input_value("[data-testid=gpus]") == "6"
    assert page.input_value("[data-testid=straggler]") == "4"
    assert page.input_value("[data-testid=slowdown]") == "1.5"
    assert page.is_checked("[data-testid=prefetch]")
    assert page.locator("[data-testid=lane].straggler").get_attribute("data-rank") == "4"
    set_slowdown(page, "2")
    expect_hash(page, exact="#gpus=6&straggler=4&slowdown=2&prefetch=1")
    page.select_option("[data-testid=straggler]", "1")
    page.click("[data-testid=prefetch]")
    expect_hash(page, exact="#gpus=6&straggler=1&slowdown=2&prefetch=0")
    page.evaluate("location.hash = '#gpus=8&straggler=2&slowdown=1.5&prefetch=0'")
    page.wait_for_function("document.querySelector('[data-testid=step-time]').dataset.value === '57.0'")
    watch.assert_clean()


COUNT_LINK_WRITES = """() => {
  window.__writes = { pushState: 0, replaceState: 0 };
  for (const name of Object.keys(window.__writes)) {
    const real = history[name].bind(history);
    history[name] = (...args) => { window.__writes[name] += 1; return real(...args); };
  }
}"""


def test_a_drag_writes_the_link_once_the_slider_rests(open_page):
    """A drag's inputs, each in a task of its own, write the URL once, when the slider rests (`app.LINK_AFTER_S`),
    over the same history entry: a write per input cost the browser's own thread about as much as the page's
    update, and browsers refuse too many. A new view is written at once, as an entry of its own."""
    page, watch = open_page("#gpus=8&straggler=2&slowdown=1&prefetch=0")
    expect_hash(page, exact="#gpus=8&straggler=2&slowdown=1&prefetch=0")
    page.evaluate(COUNT_LINK_WRITES)
    page.evaluate(
        """async () => {
          const slider = document.querySelector("[data-testid=slowdown]");
          for (let k = 11; k <= 29; k++) {
            await new Promise((done) => setTimeout(done, 0));
            slider.value = String(k / 10);
            slider.dispatchEvent(new Event("input", { bubbles: true }));
          }
        }"""
    )
    assert page.inner_text("#slowdown-out").startswith("2.9"), "the drag is drawn as it goes"
    expect_hash(page, exact="#gpus=8&straggler=2&slowdown=2.9&prefetch=0")
    assert page.evaluate("window.__writes") == {"pushState": 0, "replaceState": 1}
    page.click("[data-testid=view-cluster]")
    expect_hash(page, contains="view=cluster")
    assert page.evaluate("window.__writes") == {"pushState": 1, "replaceState": 1}
    page.go_back()
    page.wait_for_function("document.querySelector('[data-testid=view-step]').getAttribute('aria-selected') === 'true'")
    expect_hash(page, exact="#gpus=8&straggler=2&slowdown=2.9&prefetch=0")
    watch.assert_clean()


def test_bad_hash_is_clamped_with_a_notice(open_page):
    page, watch = open_page("#gpus=99&straggler=-3&slowdown=banana&prefetch=1")
    assert page.input_value("[data-testid=gpus]") == "16"
    assert page.input_value("[data-testid=straggler]") == "0"
    notices = page.locator("[data-testid=notice]")
    assert notices.count() == 3
    texts = [notices.nth(i).inner_text() for i in range(3)]
    assert ["gpus=99" in texts[0], "straggler=-3" in texts[1], "slowdown=banana" in texts[2]] == [True, True, True]
    expect_hash(page, exact="#gpus=16&straggler=0&slowdown=1&prefetch=1")
    watch.assert_clean()


@pytest.mark.parametrize(("locale", "word"), [("en-US", "Step time"), ("fr-FR", "Durée du pas")])
def test_language_from_browser_and_clean_console(open_page, locale, word):
    page, watch = open_page(locale=locale)
    assert word in page.inner_text("#cost-view")
    assert page.evaluate("document.documentElement.lang") == locale[:2]
    set_slowdown(page, "1.5")
    shown = page.inner_text("[data-testid=efficiency]")
    assert shown == ("77,2\u202f%" if locale == "fr-FR" else "77.2%")
    for _ in range(3):
        page.click("[data-testid=next-step]")
    watch.assert_clean()


def test_language_selector_switches_all_text(open_page):
    page, watch = open_page()
    page.select_option("[data-testid=lang]", "fr")
    assert page.inner_text("#ring-title") == "Ring AllReduce"
    assert page.inner_text("#timeline-title") == "Chronologie d'un pas"
    assert "Durée du pas" in page.inner_text("#cost-view")
    expect_hash(page, contains="lang=fr")
    assert page.inner_text("[data-testid=play]") == "Lecture"
    watch.assert_clean()


def test_play_sweeps_the_playhead_and_runs_the_ring(open_page):
    page, watch = open_page()
    page.click("[data-testid=play]")
    assert page.get_attribute("[data-testid=play]", "aria-pressed") == "true"
    page.wait_for_function(
        "Number(document.querySelector('[data-testid=exchange]').dataset.value) >= 2", timeout=15_000
    )
    x = float(page.get_attribute("[data-testid=playhead]", "x1"))
    assert x > 118
    page.click("[data-testid=play]")
    assert page.get_attribute("[data-testid=play]", "aria-pressed") == "false"
    watch.assert_clean()


def test_reduced_motion_jumps_to_the_end(open_page):
    page, watch = open_page(reduced_motion="reduce")
    assert page.is_visible("#motion-note")
    page.click("[data-testid=play]")
    assert value(page, "exchange") == 14
    watch.assert_clean()


def test_keyboard_operates_the_controls(open_page):
    page, watch = open_page()
    page.focus("[data-testid=slowdown]")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert value(page, "step-time") == pytest.approx(57)
    page.focus("[data-testid=next-step]")
    page.keyboard.press("Enter")
    assert value(page, "exchange") == 1
    for k in range(2, 16):
        page.keyboard.press("Enter")
        assert value(page, "exchange") == min(k, 14)
    assert page.evaluate("document.activeElement.dataset.testid") == "next-step", "focus stays; Enter never resets"
    page.focus("[data-testid=prefetch]")
    page.keyboard.press("Space")
    assert page.is_checked("[data-testid=prefetch]")
    watch.assert_clean()


def test_an_unexpected_failure_shows_in_the_page_as_one_line_with_details(open_page):
    """The example files cannot be fetched (the network failed mid-way): the page says so, it does not go silent."""
    page, _ = open_page("#view=traces", service_workers="block")  # else the offline cache may answer instead
    page.route("**/examples/cpu/*", lambda route: route.abort())
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=errors] details")
    summary = page.inner_text("[data-testid=errors] details summary")
    assert "fetch" in summary.lower() and "\n" not in summary
    assert "Traceback" in page.text_content("[data-testid=errors] details pre")


def test_a_forged_step_option_is_ignored(open_page):
    page, watch = open_page("#view=traces")
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=trace-straggler]")
    page.evaluate("""() => { const s = document.querySelector('[data-testid=trace-step]');
        s.add(new Option('broken', 'not-a-number')); s.value = 'not-a-number';
        s.dispatchEvent(new Event('change')); }""")
    page.select_option("[data-testid=trace-step]", "2")
    step = page.inner_text("[data-testid=trace-step] option[value='2']").split(":")[0].split()[-1]
    assert page.locator("[data-testid=trace-timeline]").get_attribute("aria-label").startswith(f"Measured step {step},")
    watch.assert_clean()


def test_the_measured_h200_fact_beside_the_gauges_once(open_page):
    """The measurement is said once on One step, beside the gauges; the measure table points to it."""
    page, watch = open_page()
    for lang, words in (("en", ("H200", "100%", "33 samples", "0.04%")), ("fr", ("H200", "33 échantillons", "0,04"))):
        page.select_option("[data-testid=lang]", lang)
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
        fact = page.inner_text("[data-testid=h200-fact]")
        table = page.inner_text("#measure-title + .table-wrap")
        for word in words:
            assert word in fact, (lang, word)
        assert "H200" in table and words[2] not in table and page.inner_text("main").count(words[2]) == 1
    watch.assert_clean()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_where_the_straggler_loses_its_time_and_what_prefetch_does(open_page, lang):
    page, watch = open_page(f"#gpus=8&straggler=2&slowdown=2&prefetch=0&lang={lang}")
    page.select_option("[data-testid=lost-in]", "load")
    expect_hash(page, contains="lost=load")
    assert value(page, "straggler-cost") == pytest.approx(26, abs=1e-9)
    assert value(page, "prefetch-gain") == pytest.approx(31, abs=1e-9)
    page.click("[data-testid=prefetch]")
    assert value(page, "straggler-cost") == pytest.approx(0, abs=1e-9)
    lesson = page.inner_text("[data-testid=lesson]")
    assert ("fixes an input straggler" if lang == "en" else "guérit un retardataire d'entrée") in lesson
    page.select_option("[data-testid=lost-in]", "between_steps")
    assert value(page, "straggler-cost") == pytest.approx(26, abs=1e-9)
    assert page.locator("[data-testid=timeline] [data-phase=between_steps]").count() >= 1
    page.select_option("[data-testid=lost-in]", "compute")
    assert value(page, "straggler-cost") == pytest.approx(26, abs=1e-9) and value(page, "prefetch-gain") == 5
    watch.assert_clean()


def test_skip_link_back_and_forward_and_focus_after_the_last_exchange(open_page):
    """The skip link's #main is no view state; Back and Forward move between views; the focus never falls to the
    page's body when "Next exchange" becomes disabled."""
    page, watch = open_page("#gpus=8&straggler=2&slowdown=2&prefetch=0")
    page.click("[data-testid=view-cluster]")
    expect_hash(page, contains="view=cluster")
    page.click("[data-testid=view-traces]")
    expect_hash(page, contains="view=traces")
    page.go_back()
    page.wait_for_function(
        "document.querySelector('[data-testid=view-cluster]').getAttribute('aria-selected') === 'true'"
    )
    page.go_back()
    page.wait_for_function("document.querySelector('[data-testid=view-step]').getAttribute('aria-selected') === 'true'")
    assert value(page, "straggler-cost") == pytest.approx(26, abs=1e-9), "the step view as it was"
    page.go_forward()
    page.wait_for_function(
        "document.querySelector('[data-testid=view-cluster]').getAttribute('aria-selected') === 'true'"
    )
    page.click("[data-testid=view-step]")
    page.evaluate(
        """() => new Promise((done) => {
            addEventListener("hashchange", () => requestAnimationFrame(() => setTimeout(done, 0)), { once: true });
            location.hash = "#main";
        })"""
    )
    assert page.locator("[data-testid=notice]").count() == 0 and page.input_value("[data-testid=gpus]") == "8"
    assert page.get_attribute("[data-testid=view-step]", "aria-selected") == "true"
    page.focus("[data-testid=next-step]")
    for _ in range(14):
        page.keyboard.press("Enter")
    assert page.get_attribute("[data-testid=next-step]", "aria-disabled") == "true"
    assert page.evaluate("document.activeElement.getAttribute('data-testid')") == "next-step", "never Reset"
    watch.assert_clean()


IN_PLACE = ("#timeline-view", "#cost-view")
SHOWN = """(selector) => Array.from(document.querySelector(selector).getElementsByTagName("*"), (e) => [
  e.localName,
  Object.fromEntries(Array.from(e.attributes, (a) => [a.name, a.value]).sort()),
  e.children.length ? "" : e.textContent,
])"""
MARK = """(selector) => { for (const e of document.querySelectorAll(selector)) e.ddpcoreKept = true; }"""
KEPT = """(selector) => Array.from(document.querySelectorAll(selector), (e) => e.ddpcoreKept === true)"""
PLAYHEAD_MOVED = """() => {
  const line = document.getElementById("playhead");
  return line.ddpcoreKept === true && Number(line.getAttribute("x1")) > 118;
}"""
EVERY = "#timeline-view *, #cost-view *"
TIMELINE = "#timeline-view *"


def test_the_one_step_view_moves_in_place(open_page):
    """A slider that keeps the view's shape moves the bars and figures already there (markup.patches), and the page
    then shows what a page opened at that state shows; a change of shape, or the playhead moved by the animation,
    has the region written whole."""
    page, watch = open_page("#slowdown=1.5")
    page.evaluate(MARK, EVERY)
    for slowdown in ("2.9", "1.1", "1.2"):
        set_slowdown(page, slowdown)
    kept = page.evaluate(KEPT, EVERY)
    assert kept and all(kept), "the same elements, moved"
    fresh, _ = open_page("#slowdown=1.2")
    for region in IN_PLACE:
        assert page.evaluate(SHOWN, region) == fresh.evaluate(SHOWN, region), region

    page.fill("[data-testid=gpus]", "16")
    assert not any(page.evaluate(KEPT, TIMELINE)), "16 lanes: written whole"
    page.evaluate(MARK, TIMELINE)
    page.click("[data-testid=play]")
    page.wait_for_function(PLAYHEAD_MOVED, timeout=15_000)
    page.click("[data-testid=play]")
    set_slowdown(page, "2")
    assert not any(page.evaluate(KEPT, TIMELINE)), "after the animation moved the playhead: written whole"
    page.click("[data-testid=reset]")
    fresh, _ = open_page("#gpus=16&slowdown=2")
    for region in IN_PLACE:
        assert page.evaluate(SHOWN, region) == fresh.evaluate(SHOWN, region), region
    watch.assert_clean()
