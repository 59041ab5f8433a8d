"""End-to-end: the "Your traces" view reads files in the browser, names the straggler, escapes what it shows."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ddpcore.analysis import analyze
from ddpcore.traces import load

from conftest import PageWatch

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures" / "ddp4"
PAYLOAD = '<script>window.__pwned = 1</script><svg onload="window.__pwned = 2">'


def value(page, testid: str) -> float:
    return float(page.get_attribute(f"[data-testid={testid}]", "data-value"))


def test_example_traces_name_the_straggler(open_page):
    page, watch = open_page("#view=traces")
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=trace-straggler]")
    expected = analyze(load([(p.name, p.read_bytes()) for p in sorted(FIXTURES.glob("*.pt.trace.json.gz"))]).traces)
    assert value(page, "trace-straggler") == 2
    assert value(page, "trace-straggler-cost") == pytest.approx(expected.straggler_cost_ms, rel=1e-12)
    assert value(page, "trace-gap") == pytest.approx(expected.median_gap, rel=1e-12)
    assert page.locator("[data-testid=trace-timeline] [data-testid=lane]").count() == 4
    assert page.locator("[data-testid=trace-timeline] [data-testid=lane].straggler").get_attribute("data-rank") == "2"
    assert page.locator("[data-testid=trace-timeline] [data-phase=wait]").count() == 3
    assert page.locator("[data-testid=trace-step] option").count() == len(expected.steps)
    page.select_option("[data-testid=trace-step]", "3")
    assert f"step {expected.steps[3].step}:" in page.inner_text("[data-testid=trace-step]")
    page.fill("[data-testid=alert-threshold]", "0.25")
    assert "- 1 > 0.25" in page.inner_text("[data-testid=alert-rule]")
    assert 'ddp_step_arrival_seconds{job="ddp",rank="2"}' in page.inner_text("[data-testid=exposition]")
    watch.assert_clean()


def test_uploaded_files_bad_ones_and_hostile_names(open_page, tmp_path):
    page, watch = open_page("#view=traces")
    hostile = json.loads(gzip.decompress((FIXTURES / "rank3.pt.trace.json.gz").read_bytes()))
    for event in hostile["traceEvents"]:
        if event.get("name", "").startswith("aten::"):
            event["name"] = PAYLOAD
    files = []
    for rank in range(3):
        files.append(FIXTURES / f"rank{rank}.pt.trace.json.gz")
    evil = tmp_path / f"{PAYLOAD.replace('/', '_')}.json"
    evil.write_text(json.dumps(hostile))
    bad = tmp_path / "broken.json"
    bad.write_text('{"traceEvents": [')
    other = tmp_path / "other.json"
    other.write_text('{"hello": "world"}')
    twice = tmp_path / "again.json.gz"
    twice.write_bytes((FIXTURES / "rank0.pt.trace.json.gz").read_bytes())
    page.set_input_files("[data-testid=trace-files]", [str(p) for p in [*files, evil, bad, other, twice]])
    page.wait_for_selector("[data-testid=trace-straggler]")
    assert value(page, "trace-straggler") == 2
    errors = page.locator("[data-testid=trace-error]")
    assert errors.count() == 3
    text = page.inner_text("[data-testid=trace-errors]")
    assert "broken.json" in text and "invalid JSON" in text
    assert "other.json" in text and "not a trace" in text
    assert "again.json.gz" in text and "second file for rank 0" in text
    assert page.locator("[data-testid=trace-rank]").count() == 4
    assert "<script>" in page.inner_text("#trace-ranks"), "the hostile file name is shown as text"
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#trace-ranks script, #trace-ranks svg").count() == 0
    watch.assert_clean()


def test_copy_buttons_and_dropping_files(browser, site):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    watch = PageWatch(page, site.rstrip("/"))
    page.goto(site + "#view=traces")
    page.wait_for_selector("html.ready", timeout=60_000)
    names = [p.name for p in sorted(FIXTURES.glob("*.jsonl.gz"))]
    payloads = [list((FIXTURES / n).read_bytes()) for n in names]
    prevented = page.evaluate("""([names, payloads]) => {
        const data = new DataTransfer();
        names.forEach((n, i) => data.items.add(new File([new Uint8Array(payloads[i])], n)));
        const event = new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
        document.querySelector("[data-testid=trace-drop]").dispatchEvent(event);
        return event.defaultPrevented; }""", [names, payloads])
    assert prevented, "a drop must not let the browser open the file"
    page.wait_for_selector("[data-testid=trace-straggler]")
    assert value(page, "trace-straggler") == 2
    assert page.locator("[data-testid=trace-rank] .source").first.inner_text() == names[0]
    page.click("[data-testid=copy-alert]")
    page.wait_for_function("document.querySelector('[data-testid=copy-alert]').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == page.inner_text("[data-testid=alert-rule]")
    watch.assert_clean()
    context.close()
