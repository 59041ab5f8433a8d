"""End-to-end: the "Your traces" view reads files in the browser, names the straggler, escapes what it shows."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from pages import PageWatch, commit_threshold, expect_hash, traces_written, value
from paths import FIXTURES

from ddpcore.analysis import analyze
from ddpcore.traces import load

pytestmark = pytest.mark.browser

DDP4 = FIXTURES / "ddp4"
PAYLOAD = '<script>window.__pwned = 1</script><svg onload="window.__pwned = 2">'


def test_example_traces_name_the_straggler(open_page):
    page, watch = open_page("#view=traces")
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=trace-straggler]")
    expected = analyze(load([(p.name, p.read_bytes()) for p in sorted(DDP4.glob("*.pt.trace.json.gz"))]).traces)
    assert value(page, "trace-straggler") == 2
    assert value(page, "trace-straggler-cost") == pytest.approx(expected.straggler_cost_ms, rel=1e-12)
    assert value(page, "trace-gap") == pytest.approx(expected.median_gap, rel=1e-12)
    assert page.locator("[data-testid=trace-timeline] [data-testid=lane]").count() == 4
    assert page.locator("[data-testid=trace-timeline] [data-testid=lane].straggler").get_attribute("data-rank") == "2"
    assert page.locator("[data-testid=trace-timeline] [data-phase=wait]").count() == 4, "every rank waits a little"
    excess = page.locator("[data-testid=trace-timeline] [data-testid=lane].straggler [data-testid=excess]")
    assert float(excess.get_attribute("data-value")) == pytest.approx(expected.steps[0].extra_ms, abs=0.01)
    cause = page.locator("[data-testid=trace-cause][data-rank='2']")
    assert cause.get_attribute("data-kind") == "forward" == expected.stragglers[0].cause.kind
    assert "longer in its forward" in cause.inner_text()
    assert "would not help" in page.inner_text("[data-testid=trace-prefetch]")
    page.wait_for_selector("[data-testid=fit-whatif], [data-testid=fit-error]")
    if page.locator("[data-testid=fit-whatif]").count():
        assert value(page, "fit-whatif") == pytest.approx(value(page, "trace-ideal-step-time"), rel=1e-9)
    page.select_option("[data-testid=lang]", "fr")
    assert "de plus dans son forward" in page.inner_text("[data-testid=trace-cause][data-rank='2']")
    page.select_option("[data-testid=lang]", "en")
    assert page.locator("[data-testid=trace-step] option").count() == len(expected.steps)
    page.select_option("[data-testid=trace-step]", "3")
    assert f"step {expected.steps[3].step}:" in page.inner_text("[data-testid=trace-step]")
    commit_threshold(page, "0.25")
    assert "> 0.25" in page.inner_text("[data-testid=alert-rule]")
    assert 'ddp_barrier_wait_seconds{job="ddp",rank="2"}' in page.inner_text("[data-testid=exposition]")
    watch.assert_clean()


def test_uploaded_files_bad_ones_and_hostile_names(open_page, tmp_path):
    page, watch = open_page("#view=traces")
    hostile = json.loads(gzip.decompress((DDP4 / "rank3.pt.trace.json.gz").read_bytes()))
    for event in hostile["traceEvents"]:
        if event.get("name", "").startswith("aten::"):
            event["name"] = PAYLOAD
    files = []
    for rank in range(3):
        files.append(DDP4 / f"rank{rank}.pt.trace.json.gz")
    evil = tmp_path / f"{PAYLOAD.replace('/', '_')}.json"
    evil.write_text(json.dumps(hostile))
    bad = tmp_path / "broken.json"
    bad.write_text('{"traceEvents": [')
    other = tmp_path / "other.json"
    other.write_text('{"hello": "world"}')
    twice = tmp_path / "again.json.gz"
    twice.write_bytes((DDP4 / "rank0.pt.trace.json.gz").read_bytes())
    timeline = tmp_path / "timeline-AR.json"
    timeline.write_text(json.dumps({"traceEvents": [{"name": "forward-compute", "ph": "X", "ts": 0, "dur": 5}]}))
    page.set_input_files("[data-testid=trace-files]", [str(p) for p in [*files, evil, bad, other, twice, timeline]])
    traces_written(page)
    assert value(page, "trace-straggler") == 2
    errors = page.locator("[data-testid=trace-error]")
    assert errors.count() == 4
    text = page.inner_text("[data-testid=trace-errors]")
    assert "broken.json" in text and "invalid JSON" in text
    assert "other.json" in text and "not a trace" in text
    assert "again.json.gz" in text and "second file for rank 0" in text
    said = text.split("timeline-AR.json")[1].split("\n")[0]
    assert "not a format ddpcore reads" in said and "not a trace" not in said, "a Chrome trace of another tool"
    assert page.locator("[data-testid=trace-rank]").count() == 4
    # textContent: the table is off screen, where content-visibility skips its layout and innerText reads nothing
    assert "<script>" in page.text_content("#trace-ranks"), "the hostile file name is shown as text"
    page.select_option("[data-testid=lang]", "fr")
    french = page.inner_text("[data-testid=trace-errors]")
    assert "JSON invalide" in french and "pas une trace" in french and "second fichier pour le rang 0" in french
    assert "pas un format que ddpcore lit" in french
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#trace-ranks script, #trace-ranks svg").count() == 0
    watch.assert_clean()


def test_copy_buttons_and_dropping_files(browser, site):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    watch = PageWatch(page, site.rstrip("/"))
    page.goto(site + "#view=traces")
    page.wait_for_selector("html.ready", timeout=60_000)
    for block in ("alert-rule", "exposition", "dashboard", "copy-alert", "copy-exposition", "copy-dashboard"):
        assert not page.is_visible(f"[data-testid={block}]"), "nothing to copy before any traces"
    names = [p.name for p in sorted(DDP4.glob("*.jsonl.gz"))]
    payloads = [list((DDP4 / n).read_bytes()) for n in names]
    prevented = page.evaluate(
        """([names, payloads]) => {
        const data = new DataTransfer();
        names.forEach((n, i) => data.items.add(new File([new Uint8Array(payloads[i])], n)));
        const event = new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
        document.querySelector("[data-testid=trace-drop]").dispatchEvent(event);
        return event.defaultPrevented; }""",
        [names, payloads],
    )
    assert prevented, "a drop must not let the browser open the file"
    traces_written(page)
    assert value(page, "trace-straggler") == 2
    first = page.locator("[data-testid=trace-rank] .source").first
    first.scroll_into_view_if_needed()  # the ranks table is laid out once scrolled near (content-visibility)
    assert first.inner_text() == names[2], "latest rank first"
    page.click("[data-testid=copy-alert]")
    page.wait_for_function("document.querySelector('[data-testid=copy-alert]').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == page.inner_text("[data-testid=alert-rule]")
    assert page.inner_text("[data-testid=copy-exposition]") == "Copy", "only the button clicked says so"
    page.wait_for_function("document.querySelector('[data-testid=copy-alert]').textContent === 'Copy'")
    watch.assert_clean()
    context.close()


HTA = FIXTURES / "hta_torchrec"
CUDA = FIXTURES / "gpu1_cuda" / "gpu_rank0.pt.trace.json.gz"


def test_gpu_traces_show_gauges_other_collectives_and_no_false_headline(open_page):
    paths = sorted(HTA.glob("*.json.gz"))
    expected = analyze(load([(p.name, p.read_bytes()) for p in paths]).traces)
    page, watch = open_page("#view=traces")
    page.click("[data-testid=trace-example-gpu]")
    page.wait_for_selector("[data-testid=trace-gpu-busy]")
    licence = page.evaluate("fetch('./examples/gpu/LICENSE-HTA').then(r => r.text())")
    assert "MIT License" in licence, "the third-party example travels with its licence"
    assert value(page, "trace-straggler") == -1
    assert "No persistent straggler" in page.inner_text("[data-testid=trace-straggler]")
    assert value(page, "trace-transient") == pytest.approx(expected.transient.fraction)
    assert value(page, "trace-gpu-busy") == pytest.approx(expected.gpu.busy, rel=1e-12)
    assert value(page, "trace-gpu-compute") == pytest.approx(expected.gpu.compute, rel=1e-12)
    assert value(page, "trace-comm-overlap") == pytest.approx(expected.gpu.comm_overlap, rel=1e-12)
    assert value(page, "trace-step-time") == pytest.approx(expected.step_ms, rel=1e-12)
    timeline = "[data-testid=trace-timeline]"
    assert "other collectives" in page.text_content(f"{timeline} .legend")
    assert page.locator(f"{timeline} [data-phase=other_comm]").count() > 0
    assert page.locator(f"{timeline} [data-phase=gpu_comm]").count() > 0
    assert page.locator(f"{timeline} [data-phase=gpu_compute]").count() > 0
    assert "2 of 128 ranks" in page.inner_text("[data-testid=trace-warning]")
    assert page.locator("[data-testid=trace-gpu-none]").count() == 0
    page.select_option("[data-testid=lang]", "fr")
    page.wait_for_function("document.querySelector('[data-testid=trace-straggler]').textContent.includes('Aucun')")
    assert "autres collectives" in page.text_content(f"{timeline} .legend")
    watch.assert_clean()


def test_cuda_trace_step_is_the_host_step(open_page, tmp_path):
    obj = json.loads(gzip.decompress(CUDA.read_bytes()))
    host = [
        e["dur"] / 1000
        for e in obj["traceEvents"]
        if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#")
    ]
    obj["distributedInfo"]["rank"] = 1
    twin = tmp_path / "gpu_rank1.pt.trace.json"
    twin.write_text(json.dumps(obj, indent=1))
    page, watch = open_page("#view=traces")
    page.set_input_files("[data-testid=trace-files]", [str(CUDA), str(twin)])
    traces_written(page, "[data-testid=trace-gpu-busy]")
    assert value(page, "trace-step-time") == pytest.approx(sum(host) / len(host), rel=0.1)
    assert 0 < value(page, "trace-gpu-compute") <= value(page, "trace-gpu-busy") <= 1
    assert value(page, "trace-comm-overlap") == -1, "no NCCL kernel: no overlap to speak of"
    lanes = page.locator("[data-testid=trace-timeline] [data-testid=lane]")
    assert lanes.count() == 2
    for lane in range(2):
        for phase in ("forward", "backward", "optimizer"):
            assert lanes.nth(lane).locator(f"rect.bar.{phase}[data-phase={phase}]").count() >= 1, (lane, phase)
    watch.assert_clean()


def test_cpu_traces_say_why_there_are_no_gauges_and_the_threshold_decides(open_page):
    page, watch = open_page("#view=traces")
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=trace-gpu-none]")
    assert page.locator("[data-testid=trace-gpu-busy]").count() == 0
    assert value(page, "trace-straggler") == 2
    threshold = round(min(value(page, "trace-gap") + 0.1, 1.0), 2)
    commit_threshold(page, f"{threshold:g}")
    assert value(page, "trace-straggler") == -1
    assert f"> {threshold:g}" in page.inner_text("[data-testid=alert-rule]")
    watch.assert_clean()


def big_traces(tmp_path, megabytes: int = 8) -> list[str]:
    """Two ranks of a generated GPU trace (real H200 events repeated), a few MB each."""
    from scripts.tracegen import generated_trace

    paths = []
    base = json.loads(generated_trace(megabytes * 1024 * 1024))
    for rank in (0, 1):
        base["distributedInfo"]["rank"] = rank
        path = tmp_path / f"big-rank{rank}.pt.trace.json"
        path.write_text(json.dumps(base))
        paths.append(str(path))
    return paths


WATCH_PROGRESS = """() => {
    window.__progress = [];
    window.__progress_text = new Set();
    window.__bars = new Set();
    window.__results_busy = [];
    const results = document.querySelector('[data-testid=trace-results]');
    new MutationObserver(() => window.__results_busy.push(results.ariaBusy))
        .observe(results, { attributes: true, attributeFilter: ['aria-busy'] });
    new MutationObserver(() => {
        for (const bar of document.querySelectorAll('[data-testid=trace-progress-bar]')) {
            window.__progress.push([Number(bar.value), Number(bar.max)]);
            window.__bars.add(bar);
        }
        for (const row of document.querySelectorAll('[data-testid=trace-progress-file]')) {
            window.__progress_text.add(row.textContent);
        }
        window.__progress_text.add(document.getElementById('trace-status').textContent);
    }).observe(document.getElementById('trace-progress'), { subtree: true, childList: true, attributes: true });
}"""


def test_large_files_are_read_off_the_main_thread_with_progress(open_page, tmp_path):
    files = big_traces(tmp_path)
    page, watch = open_page("#view=traces")
    page.evaluate(WATCH_PROGRESS)
    page.set_input_files("[data-testid=trace-files]", files)
    page.wait_for_selector("[data-testid=trace-progress-bar]")
    page.click("[data-testid=view-step]")
    page.wait_for_function("document.querySelector('[data-testid=view-step]').getAttribute('aria-selected') === 'true'")
    still_reading = page.locator("[data-testid=trace-progress-bar]").count() > 0
    page.click("[data-testid=view-traces]")
    traces_written(page, "[data-testid=trace-gpu-busy]")
    partial = {(v, m) for v, m in page.evaluate("window.__progress") if 0 < v < m}
    assert len(partial) >= 2, "the bars moved while the files were read"
    assert page.evaluate("window.__bars.size") <= 2 * len(files), "moved in place: drawn once, and once sized"
    seen = " | ".join(page.evaluate("[...window.__progress_text]"))
    assert "Reading file 1 of 2" in seen and "Reading file 2 of 2" in seen, seen
    assert "big-rank0.pt.trace.json · rank 0" in seen and " MB" in seen, seen
    assert still_reading, "a control answered while the worker read (read on the page's thread, it would wait)"
    assert page.evaluate("window.__results_busy") == ["true", "false"], "busy from the read until written whole"
    assert page.locator("[data-testid=trace-progress-bar]").count() == 0
    assert value(page, "trace-step-time") > 0
    assert page.locator("[data-testid=trace-rank]").count() == 2
    page.wait_for_selector("[data-testid=fit-check]", timeout=30_000)
    assert page.locator("[data-testid=fit-scale-row]").count() == 4, "the worker's fit reached the page"
    watch.assert_clean()


def test_cancel_keeps_the_previous_result(open_page, tmp_path):
    files = big_traces(tmp_path, 12)
    page, watch = open_page("#view=traces")
    page.evaluate(COUNT_TERMINATIONS)
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=trace-straggler]")
    before = page.inner_html("#trace-summary")
    page.set_input_files("[data-testid=trace-files]", files)
    page.wait_for_selector("[data-testid=trace-progress-bar]")
    assert page.is_visible("[data-testid=trace-cancel]")
    page.click("[data-testid=trace-cancel]")
    page.wait_for_function("!document.querySelector('[data-testid=trace-progress-bar]')")
    assert not page.is_visible("[data-testid=trace-cancel]")
    # the reader was dropped: a terminated worker posts nothing, so the cancelled read can never land
    page.wait_for_function("window.__terminated === 1")
    assert page.inner_html("#trace-summary") == before
    assert value(page, "trace-straggler") == 2
    watch.assert_clean()


def test_your_run_at_scale_opens_the_cluster_view_on_it(open_page):
    page, watch = open_page("#view=traces")
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=fit-check]", timeout=30_000)
    expected = float(page.get_attribute("[data-testid=fit-check]", "data-expected"))
    assert page.locator("[data-testid=fit-scale-row]").count() == 4
    assert value(page, "fit-persistent") == 1
    page.focus("[data-testid=fit-open-cluster]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=cluster-timing]")
    assert page.is_visible("[data-testid=cluster-step-time]")
    assert value(page, "cluster-step-time") == pytest.approx(expected, rel=1e-12)
    assert page.input_value("[data-testid=cluster-gpus]") == "4", "the run's own size, not the field's old minimum"
    top = page.evaluate("document.getElementById('panel-cluster').getBoundingClientRect().top")
    assert -2 <= top < page.viewport_size["height"] / 2, "the Cluster view is scrolled to"
    expect_hash(page, contains="cm=")
    page.click("[data-testid=cluster-timing-off]")
    page.wait_for_function("!document.querySelector('[data-testid=cluster-timing]')")
    expect_hash(page, lacks="cm=")
    watch.assert_clean()


def test_the_rank_step_map_opens_a_step(open_page):
    page, watch = open_page("#view=traces")
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=rank-step-map]")
    row = page.locator("[data-testid=map-row]")
    assert row.count() >= 1 and row.first.get_attribute("data-ranks") == "2-2"
    cells = page.locator("[data-testid=map-row] rect")
    target = cells.nth(cells.count() - 1).get_attribute("data-step-index")
    cells.nth(cells.count() - 1).click()
    page.wait_for_function(f"document.querySelector('[data-testid=trace-step]').value === '{target}'")
    page.select_option("[data-testid=trace-step]", "0")
    row.first.focus()
    page.keyboard.press("Enter")
    wanted = row.first.get_attribute("data-step-index")
    page.wait_for_function(f"document.querySelector('[data-testid=trace-step]').value === '{wanted}'")
    watch.assert_clean()


def summaries_in(tmp_path, ranks: int, steps: int, **run) -> tuple[list[str], set]:
    """Generated summaries written as files (their paths), and the rank-steps slowed by chance."""
    from ddpcore.traces import simulated_run, summary_bytes
    from ddpcore.traces.summary import SUFFIX

    runs, slowed = simulated_run(ranks, steps, **run)
    paths = []
    for facts in runs:
        path = tmp_path / f"rank{facts.rank}{SUFFIX}"
        path.write_bytes(summary_bytes(facts))
        paths.append(str(path))
    return paths, slowed


def test_sixty_summaries_page_through_the_ranks_table(open_page, tmp_path):

    paths, _ = summaries_in(tmp_path, 60, 6, persistent=(41,), seed=2)
    page, watch = open_page("#view=traces")
    page.set_input_files("[data-testid=trace-files]", paths)
    traces_written(page, "[data-testid=ranks-next]", timeout=120_000)
    assert value(page, "trace-straggler") == 41
    assert page.locator("[data-testid=trace-rank]").count() == 50
    assert page.locator("[data-testid=trace-lanes-note]").count() == 1
    page.focus("[data-testid=ranks-next]")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('[data-testid=trace-rank]').length === 10")
    assert page.is_disabled("[data-testid=ranks-next]") and not page.is_disabled("[data-testid=ranks-prev]")
    focused = "document.activeElement.getAttribute('data-testid')"
    assert page.evaluate(focused) == "ranks-prev", "focus moves to Previous, never to the page's body"
    watch.assert_clean()


def test_the_map_is_one_tab_stop_with_arrow_keys_inside(open_page, tmp_path):

    paths, slowed = summaries_in(tmp_path, 24, 8, persistent=(5,), p=0.08, seed=4)
    page, watch = open_page("#view=traces")
    page.set_input_files("[data-testid=trace-files]", paths)
    traces_written(page, "[data-testid=rank-step-map]", timeout=120_000)
    rows = page.locator("[data-testid=map-row]")
    assert rows.count() >= 3, slowed
    assert page.locator("[data-testid=map-row][tabindex='0']").count() == 1, "the map is one Tab stop"
    rows.first.focus()
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('data-ranks')") == rows.nth(1).get_attribute("data-ranks")
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.getAttribute('data-ranks')") == rows.last.get_attribute("data-ranks")
    assert page.locator("[data-testid=map-row][tabindex='0']").count() == 1
    watch.assert_clean()


COUNT_REFITS = """() => {
    window.__refits = 0;
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, transfer) {
        if (message && message.refit !== undefined) window.__refits += 1;
        return post.call(this, message, transfer);
    };
}"""


def test_a_new_threshold_is_fitted_by_the_worker_that_read_the_files(open_page):
    page, watch = open_page("#view=traces")
    page.evaluate(COUNT_REFITS)
    page.set_input_files("[data-testid=trace-files]", [str(p) for p in sorted(DDP4.glob("*.pt.trace.json.gz"))])
    page.wait_for_selector("[data-testid=fit-check]", timeout=60_000)
    assert value(page, "fit-persistent") == 1
    page.fill("[data-testid=alert-threshold]", "0.9")
    page.press("[data-testid=alert-threshold]", "Enter")
    page.wait_for_function(
        "document.querySelector('[data-testid=fit-persistent]')?.getAttribute('data-value') === '0.0'", timeout=60_000
    )
    assert page.evaluate("window.__refits") >= 1, "the page asked the worker, which holds the measurement"
    assert page.locator("[data-testid=fit-scale-row]").count() == 4
    watch.assert_clean()


BUSY_AFTER_CHANGE = """() => {
    window.__busy_after_change = [];
    document.addEventListener("change", (event) => window.__busy_after_change.push(event.target.ariaBusy));
}"""
"""Records the field's `aria-busy` when its change event reaches the document, after the page's own handler on the
field: what the commit shows at once, read without racing the judgement that follows it."""


def test_the_threshold_field_shows_what_is_applied(open_page):
    """Typing "15" never applies "1" on the way; a percent is read as one, with a hint; a refused value says so and
    the field goes back to what is applied; French takes a decimal comma."""
    page, watch = open_page("#view=traces")
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=trace-straggler]")
    field = "[data-testid=alert-threshold]"
    page.click(field)
    page.keyboard.press("Control+A")
    page.keyboard.type("15")
    assert "> bool 0.1\n" in page.inner_text("[data-testid=alert-rule]") + "\n", "nothing applied while typing"
    page.evaluate(BUSY_AFTER_CHANGE)
    page.keyboard.press("Enter")
    page.wait_for_function("window.__busy_after_change.length > 0")
    assert page.evaluate("window.__busy_after_change") == ["true"], "the commit is answered in its own event"
    page.wait_for_function("document.querySelector('[data-testid=alert-threshold]').ariaBusy === 'false'")
    assert "> 0.15" in page.inner_text("[data-testid=alert-rule]")
    assert page.input_value(field) == "0.15" and "read as a percent" in page.inner_text("[data-testid=threshold-note]")
    for refused in ("0", "-1", "abc", "1e-9"):
        commit_threshold(page, refused)
        assert f"“{refused}” not applied" in page.inner_text("[data-testid=threshold-note]")
        if refused in ("0", "1e-9"):
            assert "from 1\u202f% to all of it" in page.inner_text("[data-testid=threshold-note]"), "the least is said"
        assert page.input_value(field) == "0.15", "the field shows the threshold still applied"
        assert "> 0.15" in page.inner_text("[data-testid=alert-rule]")
    page.select_option("[data-testid=lang]", "fr")
    page.wait_for_function("document.querySelector('[data-testid=alert-threshold]').value === '0,15'")
    commit_threshold(page, "0,2")
    assert "> 0.2" in page.inner_text("[data-testid=alert-rule]")
    assert page.input_value(field) == "0,2" and page.inner_text("[data-testid=threshold-note]") == ""
    watch.assert_clean()


COUNT_TERMINATIONS = """() => {
    window.__terminated = 0;
    const stop = Worker.prototype.terminate;
    Worker.prototype.terminate = function () { window.__terminated += 1; return stop.call(this); };
}"""


def test_the_last_action_wins(open_page, tmp_path):
    """A read under way is stopped by the next pick, drop, example or Cancel: its worker is dropped, so nothing it
    had coming can land after (a dropped worker posts nothing), and the new files show their own names and sizes."""
    big = big_traces(tmp_path, 12)
    small = [str(p) for p in sorted(DDP4.glob("*.jsonl.gz"))]
    page, watch = open_page("#view=traces")
    page.evaluate(COUNT_TERMINATIONS)
    page.set_input_files("[data-testid=trace-files]", big)
    page.wait_for_selector("[data-testid=trace-progress-bar]")
    page.click("[data-testid=trace-example]")
    page.wait_for_function(
        "document.querySelectorAll('[data-testid=trace-timeline] [data-testid=lane]').length === 4"
        " && !document.querySelector('[data-testid=trace-progress-bar]')"
    )
    assert page.evaluate("window.__terminated") == 1 and not page.is_visible("[data-testid=trace-cancel]")
    assert value(page, "trace-straggler") == 2
    assert page.input_value("[data-testid=trace-files]") == "", "the picker is cleared: the same files can come again"
    page.set_input_files("[data-testid=trace-files]", big)
    page.wait_for_selector("[data-testid=trace-progress-bar]")
    page.set_input_files("[data-testid=trace-files]", small)
    page.wait_for_function(
        "document.querySelector('[data-testid=trace-progress]')?.textContent.includes('rank0.jsonl')"
    )
    progress = page.inner_text("[data-testid=trace-progress]")
    assert "big" not in progress and "MB" not in progress, "the new files' own sizes, in kB"
    traces_written(page)
    assert page.evaluate("window.__terminated") == 2
    assert value(page, "trace-straggler") == 2 and page.locator("[data-testid=trace-rank]").count() == 4
    watch.assert_clean()


DROP = """([target, names, payloads]) => {
    const data = new DataTransfer();
    names.forEach((n, i) => data.items.add(new File([new Uint8Array(payloads[i])], n)));
    const event = new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
    document.querySelector(target).dispatchEvent(event);
    return event.defaultPrevented; }"""


def test_the_whole_view_takes_drops_and_the_rest_of_the_page_ignores_them(open_page):
    """Before traces, Your traces shows the drop zone, the examples and one line; a file dropped anywhere on the
    view is read, and one dropped on another view is never opened in place of the page."""
    page, watch = open_page("#view=traces")
    assert page.is_visible("[data-testid=traces-empty]")
    for hidden in ("trace-step", "trace-results", "fit-panel", "alert-threshold"):
        assert not page.is_visible(f"[data-testid={hidden}]"), f"{hidden} before any traces"
    names = [p.name for p in sorted(DDP4.glob("*.jsonl.gz"))]
    payloads = [list((DDP4 / n).read_bytes()) for n in names]
    assert page.evaluate(DROP, ["[data-testid=traces-empty]", names, payloads]), "a near miss is no navigation"
    traces_written(page)
    assert value(page, "trace-straggler") == 2 and not page.is_visible("[data-testid=traces-empty]")
    page.click("[data-testid=view-step]")
    page.wait_for_function("!location.hash.includes('view=traces')")  # the view's address is written after the click
    url = page.url
    assert page.evaluate(DROP, ["[data-testid=timeline]", names, payloads]), "prevented: the page stays"
    assert page.url == url and page.is_visible("[data-testid=timeline]")
    watch.assert_clean()


def too_many(folder: Path, ranks: int, steps: int) -> list[str]:
    """Summaries of `ranks` x `steps` written straight from columns (each step alike): a run past what the page
    holds, made in a second."""
    from array import array

    from ddpcore.traces.columnar import COLUMNAR_COLUMNS, encode_columns
    from ddpcore.traces.summary import SUFFIX

    folder.mkdir()
    ones = array("q", [1]) * steps
    columns = {c: array("q", bytes(8 * steps)) for c in COLUMNAR_COLUMNS}
    columns |= {"step": array("q", range(1, steps + 1)), "period_ms": ones, "followed": ones, "released": ones}
    paths = []
    for rank in range(ranks):
        path = folder / f"rank{rank}{SUFFIX}"
        path.write_bytes(encode_columns(rank, ranks, path.name, columns))
        paths.append(str(path))
    return paths


def test_the_run_downloads_for_perfetto_and_a_run_too_large_is_refused_by_name(open_page, tmp_path):
    """The Perfetto button saves the analysis shown as trace events (made in the page: no request); a run past what
    the page holds is refused after its first file, in one line naming the command to run."""
    from ddpview.reading import PAGE_RANK_STEPS

    page, watch = open_page("#view=traces")
    paths, _ = summaries_in(tmp_path, 6, 30, persistent=(4,), seed=3)
    page.set_input_files("[data-testid=trace-files]", paths)
    traces_written(page)
    assert page.is_visible("[data-testid=perfetto-download]")
    with page.expect_download() as download:
        page.click("[data-testid=perfetto-download]")
    events = json.loads(Path(download.value.path()).read_text())["traceEvents"]
    assert {e["ph"] for e in events} == {"M", "X", "C", "i"}
    assert any(e["name"].startswith("persistent straggler: rank 4") for e in events)
    page.set_input_files("[data-testid=trace-files]", too_many(tmp_path / "big", 6, PAGE_RANK_STEPS // 6 + 1))
    page.wait_for_function(
        "[...document.querySelectorAll('[data-testid=trace-error]')].some(e => e.textContent.includes('analyze'))",
        timeout=120_000,
    )
    watch.assert_clean()


def test_a_run_after_a_fix_is_compared_with_the_run_shown_in_both_languages(open_page):
    """The run before read, then the run after in the second picker: the panel says who went and whether the step
    moved beyond noise; the link says a comparison is shown; French follows."""
    page, watch = open_page("#view=traces")
    before = [str(p) for p in sorted((FIXTURES / "causes" / "input").glob("*.jsonl.gz"))]
    after = [str(p) for p in sorted((FIXTURES / "causes" / "clean").glob("*.jsonl.gz"))]
    page.set_input_files("[data-testid=trace-files]", before)
    traces_written(page)
    assert page.is_visible("[data-testid=compare-help]")
    page.set_input_files("[data-testid=after-files]", after)
    page.wait_for_selector("[data-testid=compare-went]", timeout=120_000)
    assert page.inner_text("[data-testid=compare-went] td") == "rank 2", "a rank, never a bare number read as a count"
    assert float(page.get_attribute("[data-testid=compare-step]", "data-value")) < -10
    assert "beyond noise" in page.inner_text("[data-testid=compare-verdict]")
    expect_hash(page, contains="cmp=1")
    page.select_option("[data-testid=lang]", "fr")
    page.wait_for_function("document.querySelector('[data-testid=compare-went] th').textContent.includes('partis')")
    watch.assert_clean()


def test_one_story_on_a_screen_in_both_languages(open_page, tmp_path):
    """A 3-step window of a clean run on a busy machine: no rank is named, yet each step's latest rank is a fifth of
    the step behind. Each figure says what it is over and a sentence says why the gap is not named (the jitter the
    run shows, which a straggler moving every step would also make); the French page says the same. Then a run with
    five copies of one file: one warning line for the five, with its count."""
    page, watch = open_page("#view=traces")
    clean = sorted((FIXTURES / "verdict" / "window3_clean").glob("*.pt.trace.json.gz"))
    page.set_input_files("[data-testid=trace-files]", [str(p) for p in clean])
    traces_written(page)
    assert (
        value(page, "trace-straggler") == -1
        and float(page.get_attribute("[data-testid=trace-efficiency]", "data-value")) == 1
    )
    note = page.inner_text("[data-testid=trace-gap-note]")
    assert "behind the median rank" in note and "jitter this run shows" in note
    summary = page.inner_text("#trace-summary")
    assert "without the stragglers named" in summary and "whoever it is" in summary and "all ranks together" in summary
    page.select_option("[data-testid=lang]", "fr")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert "gigue" in page.inner_text("[data-testid=trace-gap-note]")
    assert "ne sont envoyés nulle part" in page.text_content("#panel-traces")
    page.select_option("[data-testid=lang]", "en")
    rows = [json.loads(line) for line in gzip.decompress((DDP4 / "rank0.jsonl.gz").read_bytes()).decode().splitlines()]
    copies = []
    for rank in range(1, 6):
        path = tmp_path / f"copy{rank}.jsonl"
        path.write_text("\n".join(json.dumps({**r, "rank": rank}) for r in rows))
        copies.append(str(path))
    page.set_input_files("[data-testid=trace-files]", [str(DDP4 / "rank0.jsonl.gz"), *copies])
    page.wait_for_selector("[data-testid=trace-warning][data-count]", timeout=120_000)
    traces_written(page)
    warnings = page.locator("[data-testid=trace-warning]")
    line = [warnings.nth(k) for k in range(warnings.count()) if "same steps" in warnings.nth(k).inner_text()]
    assert len(line) == 1 and line[0].get_attribute("data-count") == "5", "five copies, one line"
    assert "(and 4 more like it: ranks 0, 2, 3, 4, 5)" in line[0].inner_text()
    watch.assert_clean()


def test_torchtitan_logs_are_read_in_the_page_with_what_they_cannot_show(open_page):
    """torchtitan's own structured logs of 4 ranks, rank 1 slow to fetch its batch: named with its cause, its
    forward and backward drawn as the one span the logs give, and a warning says what such logs cannot show, in
    both languages."""
    page, watch = open_page("#view=traces")
    logs = sorted((FIXTURES / "titan" / "slow_load").glob("training.global_rank_*.jsonl.gz"))
    page.set_input_files("[data-testid=trace-files]", [str(p) for p in logs])
    traces_written(page)
    assert value(page, "trace-straggler") == 1
    assert "loading its input" in page.inner_text("#trace-summary")
    lanes = page.locator("[data-testid=trace-timeline] [data-testid=lane]")
    assert lanes.count() == 4 and lanes.nth(0).locator("rect.bar.forward_backward").count() >= 1
    warnings = " ".join(page.locator("[data-testid=trace-warning]").all_inner_texts())
    assert "a rank slow inside fwd_bwd is not seen" in warnings
    page.select_option("[data-testid=lang]", "fr")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert "un rang lent dans fwd_bwd n'est pas vu" in " ".join(
        page.locator("[data-testid=trace-warning]").all_inner_texts()
    )
    watch.assert_clean()
