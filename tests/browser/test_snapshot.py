"""Python's start from the build's memory snapshot (docs/snapshot.md): made with the pinned Pyodide, used by the
page, and nothing held across it: with a snapshot that fails, the page starts plainly and shows the same."""

from __future__ import annotations

import gzip
import json
import re
import struct

import pytest
from pages import PageWatch, load_example_traces, read_picked_traces
from paths import ROOT

import build

BROKEN = b"not a snapshot"


def test_the_snapshot_is_made_by_the_pinned_pyodide_it_is_shipped_with(dist):
    """Pyodide refuses a snapshot of another build (its build id is in the snapshot's header): the version is
    pinned exactly, the lock and the vendored copy agree with the pin, and the shipped snapshot names the shipped
    Pyodide's build."""
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), "an exact version, no range"
    lock = json.loads((ROOT / "package-lock.json").read_text())["packages"]["node_modules/pyodide"]["version"]
    vendored = json.loads((build.PYODIDE_DIR / "package.json").read_text())["version"]
    assert pinned == lock == vendored

    pyodide_dir = dist / "pyscript" / "pyodide"
    loader = f"./pyscript/pyodide/{build.LOADER}"
    assert json.loads((dist / "config.json").read_text())["interpreter"] == loader
    assert f'from "{loader}"' in (dist / build.WORKER).read_text()
    with gzip.open(pyodide_dir / build.SNAPSHOT) as f:
        magic, _size, count = struct.unpack("<4sII", f.read(12))
        first_offset, _length = struct.unpack("<II", f.read(8))
        f.read(8 * (count - 1))
        header = f.read(48)  # the first part starts at the heap's start: Pyodide's own header
    assert magic == b"DDPS" and first_offset == 0
    words = struct.unpack("<12I", header)
    shipped = re.search(r'BUILD_ID:"([0-9a-f]{64})"', (pyodide_dir / "pyodide.mjs").read_text()).group(1)
    assert "".join(f"{w:08x}" for w in words[4:12]) == shipped


def test_a_build_without_a_snapshot_starts_python_plainly(tmp_path):
    out = build.build(tmp_path / "site", with_snapshot=False)
    assert json.loads((out / "config.json").read_text())["interpreter"] == build.PLAIN_START
    assert f'from "{build.PLAIN_START}"' in (out / build.WORKER).read_text()
    assert not (out / "pyscript" / "pyodide" / build.SNAPSHOT).exists()


def test_a_snapshot_that_cannot_be_made_leaves_the_build_without_one(tmp_path, capsys):
    import zipfile

    bundle = tmp_path / "app.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        zf.writestr("ddpcore/__init__.py", "raise ImportError('cannot start here')")
    assert build.snapshot(bundle, tmp_path) is False
    said = [line for line in capsys.readouterr().out.splitlines() if "snapshot" in line]
    assert len(said) == 1 and "no memory snapshot" in said[0] and "cannot start here" in said[0]
    assert not (tmp_path / build.SNAPSHOT).exists() and not (tmp_path / build.LOADER).exists()


CONTAINER_CHECK = """
import { MAGIC, ZERO_RUN, fill, pack, parts } from "%s";
const streamOf = (bytes, sizes) => new ReadableStream({
  start(controller) {
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const n = sizes[i %% sizes.length];
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    }
    controller.close();
  },
});
const heap = new Uint8Array(6 * ZERO_RUN);
for (let i = 0; i < heap.length; i++) heap[i] = (i * 7919) %% 251 + 1;
heap.fill(0, 0, 16);                                // short runs are kept
heap.fill(0, ZERO_RUN, 2 * ZERO_RUN + 3);            // a long run is left out
heap.fill(0, 3 * ZERO_RUN, 4 * ZERO_RUN - 1);        // one byte short of long: kept
heap.fill(0, 4 * ZERO_RUN + 5);                      // a long run at the end
heap[0] = 9;
const packed = pack(heap);
const out = { parts: parts(heap), packed: packed.length, heap: heap.length, magic: MAGIC };
let sized = null;
await fill(streamOf(packed, [1, 7, 4099, 13, 65536]), (h) => {
  sized = h.length;
  out.sizedFirst = h.every((b) => b === 0);
});
out.sized = sized;
const back = [];
await fill(streamOf(packed, [1000]), (h) => back.push(h));
out.same = back[0].every((b, i) => b === heap[i]);
const failures = {};
for (const [name, bytes] of [
  ["short", packed.slice(0, packed.length - 1)],
  ["long", new Uint8Array([...packed, 1])],
  ["garbage", new TextEncoder().encode("not a snapshot, not at all")],
  ["header only", packed.slice(0, 10)],
]) {
  let given = null;
  try {
    await fill(streamOf(bytes, [333]), (h) => (given = h));
    failures[name] = "filled";
  } catch (error) {
    const cleared = given ? given.slice(0, 4).every((b) => b === 0) : null;
    failures[name] = { why: error.message, handed: given !== null, cleared };
  }
}
out.failures = failures;
console.log(JSON.stringify(out));
"""


def test_the_snapshot_container_gives_the_heap_back_and_a_cut_one_is_refused():
    """The container leaves out only long runs of zeros, sizes the heap from its first bytes, fills it whatever
    the chunks' sizes, and on a short, long or foreign body clears the heap's first bytes (Pyodide's magic number)
    so that Pyodide refuses half a heap and the page starts plainly."""
    import subprocess

    module = (ROOT / "web" / build.HEAP_FORMAT).as_uri()
    result = subprocess.run(
        ["node", "--input-type=module", "-e", CONTAINER_CHECK % module], capture_output=True, text=True, check=True
    )
    out = json.loads(result.stdout)
    run = 65536
    assert out["parts"] == [[0, run], [2 * run + 3, 2 * run + 2]]
    assert out["packed"] == 12 + 8 * 2 + run + 2 * run + 2 < out["heap"]
    assert out["sized"] == out["heap"] and out["sizedFirst"] is True, "handed out at its full size, before filling"
    assert out["same"] is True
    failures = out["failures"]
    assert failures["short"] == {"why": "the snapshot ends early", "handed": True, "cleared": True}
    assert failures["long"] == {"why": "the snapshot is longer than its parts", "handed": True, "cleared": True}
    assert failures["garbage"]["handed"] is False and "not the build's container" in failures["garbage"]["why"]
    assert failures["header only"] == {"why": "the snapshot ends early", "handed": False, "cleared": None}


VIEWS = ("#timeline-view", "#ring-view", "#cost-view")
TRACES = ("#trace-summary", "#trace-ranks", "#trace-map", "#trace-fit")


STACK_SWITCHING = "['Suspending', 'promising', 'Suspender'].filter((name) => name in WebAssembly)"
"""WebAssembly's stack switching API (JSPI) as a scope still holds it: web/pyodide-start.mjs removes it before
Pyodide loads."""


def _shown(browser, site, broken: bool) -> tuple[dict, dict[str, str]]:
    """How Python started, and what the page shows through a walk of every view: controls moved, the example
    traces read and fitted on the page (the fit's bootstrap), picked files read by the worker."""
    context = browser.new_context(locale="en-US")
    if broken:
        context.route(f"**/{build.SNAPSHOT}", lambda route: route.fulfill(status=200, body=BROKEN))
    page = context.new_page()
    fetched: list[str] = []
    page.on("request", lambda r: r.url.endswith(build.SNAPSHOT) and fetched.append(r.url))
    watch = PageWatch(page, site.rstrip("/"))
    page.goto(site + "#gpus=16&slowdown=1.7")
    page.wait_for_selector("html.ready", timeout=60_000)
    start = page.evaluate("globalThis.ddpcoreStart")
    start["modules"] = page.evaluate("ddpcoreModules()").split(",")
    shown = {f"step {s}": page.inner_html(s) for s in VIEWS}
    page.click("[data-testid=view-cluster]")
    page.fill("[data-testid=cluster-gpus]", "4096")
    shown["cluster"] = page.inner_html("#panel-cluster")
    load_example_traces(page)
    page.wait_for_selector("[data-testid=fit-scale-row]")
    start["modules_read"] = page.evaluate("ddpcoreModules()").split(",")
    shown |= {f"example {s}": page.inner_html(s) for s in TRACES}
    read_picked_traces(page)
    page.wait_for_selector("[data-testid=fit-scale-row]")
    shown |= {f"picked {s}": page.inner_html(s) for s in TRACES}
    assert page.workers, "the trace worker is kept for a refit"
    for scope in (page, *page.workers):
        assert scope.evaluate(STACK_SWITCHING) == [], "no Pyodide sees WebAssembly's stack switching (docs/snapshot.md)"
    if broken:  # a body that is no gzip stops its decompression, and the browser may count the request failed
        watch.failed_requests[:] = [url for url in watch.failed_requests if not url.endswith(build.SNAPSHOT)]
    watch.assert_clean()
    context.close()
    assert len(fetched) == 2, "the page's Python and the trace worker's both start from the snapshot"
    return start, shown


TRACES_STACK = ("ddpcore.traces.", "ddpcore.analysis.", "ddpcore.ops.", "ddpview.views.traces", "ddpview.views.fit")
"""Modules of the traces' path: none loads before traces are read."""


@pytest.mark.browser
def test_the_page_shows_the_same_with_and_without_its_snapshot(browser, site):
    """Only what is reachable from globalThis survives a snapshot, and the hash seed and `random` are frozen in
    it: every view, the fit's bootstrap and the worker's reading must not tell the two starts apart. Either way the
    start loads the step model and the page, and the traces' modules load when traces are first read."""
    fast, with_snapshot = _shown(browser, site, broken=False)
    plain, without = _shown(browser, site, broken=True)
    assert fast["snapshot"] is True and plain["snapshot"] is False and plain["why"]
    for start in (fast, plain):
        assert "ddpview.app.model" in start["modules"], "what the page's start loaded, as it says it"
        assert not [m for m in start["modules"] if m.startswith(TRACES_STACK)], "the traces' load on the first read"
        assert "ddpcore.analysis.verdict" in start["modules_read"] and "ddpview.views.traces" in start["modules_read"]
    assert with_snapshot.keys() == without.keys()
    for region, markup in with_snapshot.items():
        assert markup == without[region], region


@pytest.mark.browser
def test_a_snapshot_that_cannot_be_fetched_leaves_a_working_page(browser, site):
    context = browser.new_context()
    context.route(f"**/{build.SNAPSHOT}", lambda route: route.abort())
    page = context.new_page()
    warnings: list[str] = []
    page.on("console", lambda m: m.type == "warning" and warnings.append(m.text))
    watch = PageWatch(page, site.rstrip("/"))
    page.goto(site + "#slowdown=1.5")
    page.wait_for_selector("html.ready", timeout=60_000)
    assert page.evaluate("globalThis.ddpcoreStart.snapshot") is False
    assert any("without its snapshot" in w for w in warnings)
    assert page.get_attribute("[data-testid=step-time]", "data-value") == "57.0"
    load_example_traces(page)
    read_picked_traces(page)
    snapshot = f"{site}pyscript/pyodide/{build.SNAPSHOT}"
    assert watch.failed_requests == [snapshot, snapshot], "the page's start and the worker's, both fell back"
    assert set(watch.console_errors) == {"Failed to load resource: net::ERR_FAILED"}
    watch.failed_requests.clear()
    watch.console_errors.clear()
    watch.assert_clean()
    context.close()


@pytest.mark.browser
def test_a_snapshot_cut_short_is_not_restored_in_half(browser, site, dist):
    """The heap is handed to Pyodide as soon as its size is read, and filled while the wasm compiles: a body that
    stops short must end in a plain start. Cut by its last bytes, the heap misses only memory Pyodide would restore
    without complaint, so only the container's refusal tells the two apart."""
    whole = (dist / "pyscript" / "pyodide" / build.SNAPSHOT).read_bytes()
    context = browser.new_context()
    context.route(f"**/{build.SNAPSHOT}", lambda route: route.fulfill(status=200, body=whole[:-64]))
    page = context.new_page()
    watch = PageWatch(page, site.rstrip("/"))
    page.goto(site + "#slowdown=1.5")
    page.wait_for_selector("html.ready", timeout=60_000)
    start = page.evaluate("globalThis.ddpcoreStart")
    assert start["snapshot"] is False and start["why"]
    assert page.get_attribute("[data-testid=step-time]", "data-value") == "57.0"
    page.fill("[data-testid=gpus]", "16")
    assert page.get_attribute("[data-testid=exchange]", "data-total") == "30"
    watch.failed_requests[:] = [url for url in watch.failed_requests if not url.endswith(build.SNAPSHOT)]
    watch.assert_clean()
    context.close()
