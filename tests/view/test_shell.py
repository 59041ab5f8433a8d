"""The DOM shell's own logic, natively: web/shell runs against stand-ins for Pyodide's `js` and `pyodide.ffi`."""

from __future__ import annotations

import dataclasses
import gzip
import importlib
import json
import pickle
import sys
import types
from concurrent.futures import ThreadPoolExecutor

import pytest
from paths import FIXTURES


class FakeFile:
    """A browser File: a name, a size, and slices of its bytes."""

    def __init__(self, name: str, data: bytes, size: int | None = None) -> None:
        self.name, self.data, self.size = name, data, len(data) if size is None else size

    def slice(self, start: int, end: int) -> bytes:
        return self.data[start:end]


class FakeBuffer(bytes):
    def to_bytes(self) -> bytes:
        return bytes(self)


def fresh_import(monkeypatch, name: str, **stand_ins: dict) -> types.ModuleType:
    """Module `name` imported anew, the browser's modules replaced by stand-ins (`a__b` stands for module a.b)."""
    for module_name, attributes in stand_ins.items():
        module = types.ModuleType(module_name)
        for attribute, value in attributes.items():
            setattr(module, attribute, value)
        monkeypatch.setitem(sys.modules, module_name.replace("__", "."), module)
    monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module(name)


@pytest.fixture
def reading(monkeypatch):
    """shell.reading imported with a fake worker global scope; `posted` collects what it posts to the page."""
    posted: list[dict] = []
    reader = types.SimpleNamespace(readAsArrayBuffer=FakeBuffer)
    js = {
        "postMessage": posted.append,
        "Object": types.SimpleNamespace(fromEntries=dict),
        "FileReaderSync": types.SimpleNamespace(new=lambda: reader),
    }
    to_js = {"to_js": lambda value, **_: value}
    module = fresh_import(monkeypatch, "shell.reading", js=js, pyodide={}, pyodide__ffi=to_js)
    module.posted = posted  # type: ignore[attr-defined]
    return module


def page_shell(monkeypatch) -> types.ModuleType:
    """shell.page imported with no browser: no document, no window, proxies and conversions that change nothing."""
    return fresh_import(
        monkeypatch,
        "shell.page",
        pyscript={"document": None, "window": None},
        pyscript__ffi={"create_proxy": lambda f: f},
        js={},
        pyodide={},
        pyodide__ffi={"to_js": lambda value, **_: value, "create_once_callable": lambda f: f},
    )


def test_progress_is_posted_at_most_every_tick_but_always_at_the_end(reading, monkeypatch):
    clock = iter(k * reading.EVERY_S / 10 for k in range(1000))
    monkeypatch.setattr(reading.time, "monotonic", lambda: next(clock))
    progress = reading.Progress()
    for done in range(100):
        progress.at(0, done, 100)
    assert 8 <= len(reading.posted) <= 11, "100 slices in 10 ticks: about one post a tick"
    progress.file_read(0, 3)
    progress.post(force=True)
    last = reading.posted[-1]
    assert last["type"] == reading.PROGRESS and json.loads(last["read"]) == [[0, 3]] and last["done"] == 99


def test_the_worker_reads_measures_and_refuses_a_file_over_the_limit_with_its_line(reading):
    from ddpview.reading import transfer

    from ddpcore.traces.parse import MAX_FILE_BYTES

    files = [FakeFile(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    files.append(FakeFile("huge.json", b"", size=MAX_FILE_BYTES + 1))
    parts = reading.parse_files(files)
    measured, errors, outlook, fit_error = transfer.joined([transfer.unpickled(p) for p in parts])
    assert [r.rank for r in measured.ranks] == [0, 1, 2, 3]
    assert [(e.source, e.message) for e in errors] == [("huge.json", "200 MiB is over the 200 MiB limit")]
    kinds = [m["type"] for m in reading.posted]
    assert kinds[0] == reading.SIZES and kinds[-1] == reading.MEASURING and reading.PROGRESS in kinds
    last = reading.posted[-1]
    assert last["done"] == last["total"] == len(measured.steps), "the measurement's progress ends at its last step"
    assert json.loads(reading.posted[0]["sizes"])[-1] == MAX_FILE_BYTES + 1
    assert outlook is None and fit_error is None, "the page asks for the fit once the verdict is drawn"
    seen, why = pickle.loads(reading.refit(0.1))
    assert seen is not None or why


def test_a_bad_file_is_one_line_and_the_rest_still_read(reading):
    from ddpview.reading import transfer

    files = [FakeFile(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    files.append(FakeFile("cut.json.gz", gzip.compress(b'{"traceEvents": []}')[:-12]))
    measured, errors, *_ = transfer.joined([transfer.unpickled(p) for p in reading.parse_files(files)])
    assert len(measured.ranks) == 4 and [e.message for e in errors] == ["not a readable gzip file (truncated)"]


@pytest.fixture
def dom(monkeypatch):
    """shell.dom imported with a stand-in for `pyscript` whose clock the test moves."""
    clock = types.SimpleNamespace(ms=0.0)
    window = types.SimpleNamespace(performance=types.SimpleNamespace(now=lambda: clock.ms))
    document = types.SimpleNamespace(visibilityState="visible")
    pyscript = {"document": document, "window": window}
    module = fresh_import(monkeypatch, "shell.dom", pyscript=pyscript, pyscript__ffi={"create_proxy": lambda f: f})
    module.clock, module.document = clock, document  # type: ignore[attr-defined]
    return module


def test_work_in_steps_gives_the_thread_back_every_slice_and_returns_its_result(dom, monkeypatch):
    given_back: list[float] = []

    async def sleep(_: float) -> None:
        given_back.append(dom.clock.ms)

    monkeypatch.setattr(dom.asyncio, "sleep", sleep)
    step_ms = dom.SLICE_S * 1000 / 4

    def work():
        for _ in range(20):
            dom.clock.ms += step_ms
            yield
        return "judged"

    run = dom.stepped(work())
    with pytest.raises(StopIteration) as end:
        run.send(None)  # the stand-in sleep never suspends: one send runs the coroutine to its end
    assert end.value.value == "judged"
    assert given_back == [step_ms * 4 * k for k in range(1, 6)], "back every 4 steps of a quarter slice"


def test_a_step_that_asks_for_a_frame_of_its_own_gets_one_while_the_page_is_seen(dom, monkeypatch):
    """A step that yields NEXT_FRAME (a large region written) gives the thread back for FRAME_S, so that the browser
    lays it out alone, however short the slice so far; a hidden page lays nothing out, and runs on."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(dom.asyncio, "sleep", sleep)

    def work():
        yield None
        yield dom.NEXT_FRAME
        yield None
        yield dom.NEXT_FRAME

    for seen, expected in (("visible", [dom.FRAME_S, dom.FRAME_S]), ("hidden", [])):
        slept.clear()
        dom.document.visibilityState = seen
        with pytest.raises(StopIteration):
            dom.stepped(work()).send(None)
        assert slept == expected, seen


def test_a_large_region_is_laid_out_in_a_frame_of_its_own(monkeypatch):
    """`Page.rendering` asks for a frame of its own after a region of LAID_OUT_ALONE characters or more (a large
    read's map, its ranks table), and for none after a small one or anything but a region."""
    from ddpview import app

    page_module = page_shell(monkeypatch)
    page = page_module.Page.__new__(page_module.Page)
    written: list[tuple[str, str]] = []
    page.writer = types.SimpleNamespace(write=lambda kind, name, value: written.append((kind, name)))
    page.model, page.written, page.editing = app.initial("#view=traces", "en", False), {}, None
    page.fit_pending = True
    large, small = "x" * page_module.LAID_OUT_ALONE, "x"
    shown = app.screen(page.model)
    screen = dataclasses.replace(shown, regions={"trace-map": large, "trace-summary": small})
    monkeypatch.setattr(page_module.app, "screen", lambda model: screen)
    given = list(page.rendering(push_hash=False))
    regions = [name for kind, name in written if kind == "region"]
    assert regions == ["trace-map", "trace-summary"] and len(written) > len(regions)
    assert given == [page_module.NEXT_FRAME, page_module.NEXT_FRAME, None], "a frame before the large one, and after"
    written.clear()
    page.written = {}
    steps = page.rendering(push_hash=False)
    assert next(steps) == page_module.NEXT_FRAME and written == []
    page.written[("region", "trace-map")] = "a newer render's"
    list(steps)
    assert ("region", "trace-map") not in written, "claimed by a newer render during the frame: left to it"
    assert ("region", "trace-summary") in written


def test_the_link_waits_for_the_controls_to_rest_and_a_new_view_is_an_entry_of_its_own(monkeypatch):
    """Each change within a view puts the URL's write off again (`app.LINK_AFTER_S`), and it then replaces the
    entry; a new view is written at once, as a new history entry."""
    from ddpview import app

    page_module = page_shell(monkeypatch)
    calls: list[tuple[str, object]] = []
    timers = iter(range(1, 100))
    history = types.SimpleNamespace(
        pushState=lambda _state, _title, url: calls.append(("push", url)),
        replaceState=lambda _state, _title, url: calls.append(("replace", url)),
    )
    window = types.SimpleNamespace(
        setTimeout=lambda _f, ms: calls.append(("set", ms)) or next(timers),
        clearTimeout=lambda timer: calls.append(("clear", timer)),
        location=types.SimpleNamespace(hash=""),
        history=history,
    )
    monkeypatch.setattr(page_module, "window", window)
    page = page_module.Page.__new__(page_module.Page)
    page.model = app.initial("", "en", False)
    page.hash_timer, page.linked_view, page.hash_proxy = None, page.model.state.view, page.write_hash
    after_ms = round(app.LINK_AFTER_S * 1000)
    page.link_later()
    page.link_later()
    assert calls == [("set", after_ms), ("clear", 1), ("set", after_ms)]
    page.write_hash()
    assert calls[-1] == ("replace", app.link(page.model)) and page.hash_timer is None
    window.location.hash = app.link(page.model)
    page.model = app.with_view(page.model, "cluster")
    calls.clear()
    page.link_later()
    assert calls == [("set", 0)]
    page.write_hash()
    assert calls[-1] == ("push", app.link(page.model)) and page.linked_view == "cluster"

    def refuse(*_):
        calls.append(("refused", None))
        raise RuntimeError("SecurityError: Attempt to use history.replaceState() more than 100 times per 30 seconds")

    history.replaceState = refuse
    page.model = app.with_control(page.model, "slowdown", "2.5")
    page.write_hash()
    assert calls[-1] == ("refused", None) and page.hash_timer is None, "refused: left to the next change"


def test_a_committed_threshold_is_judged_in_steps_and_the_newest_commit_wins(monkeypatch):
    """`Page.thresholding` judges and draws in steps, then writes once, over whatever the page shows by then (a
    slider moved, a step picked meanwhile stay so); of two commits under way, the newer is written; traces read
    anew meanwhile are judged again."""
    import asyncio

    from ddpview import app

    from ddpcore.analysis import measure_loaded
    from ddpcore.traces import load

    page_module = page_shell(monkeypatch)
    steps_taken = []

    async def stepped(steps):
        while True:
            try:
                next(steps)
            except StopIteration as end:
                return end.value
            steps_taken.append(1)
            await asyncio.sleep(0)

    written: list[app.Model] = []
    monkeypatch.setattr(page_module, "stepped", stepped)
    monkeypatch.setattr(page_module, "by_id", lambda _name: types.SimpleNamespace(value=""))
    files = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    measured = app.with_measured(app.initial("#view=traces", "en", False), *measure_loaded(load(files)))
    page = page_module.Page.__new__(page_module.Page)
    page.model, page.commits = measured, 0

    def updating(model, push_hash=None):
        page.model = model
        written.append(model)
        yield

    page.updating = updating

    def committed(*texts, meanwhile=None):
        """The page's models written after `texts` are committed together, `meanwhile` changing the page's model
        after the first step."""
        written.clear()
        page.model = measured

        async def other():
            await asyncio.sleep(0)
            if meanwhile is not None:
                page.model = meanwhile(page.model)

        async def together():
            await asyncio.gather(*(page.thresholding(text) for text in texts), other())

        with ThreadPoolExecutor(1) as pool:  # a thread of its own: a browser test's event loop may be running here
            pool.submit(asyncio.run, together()).result()
        return list(written)

    moved = committed("0.99", meanwhile=lambda m: app.with_control(m, "slowdown", "2.5"))
    assert steps_taken, "judged in steps"
    assert [m.traces.threshold for m in moved] == [0.99] and moved[0].traces.analysis.straggler_rank is None
    assert moved[0].state.slowdown == 2.5, "written over what the page showed by then"
    assert [m.traces.threshold for m in committed("0.99", "0.3")] == [0.3], "the older commit is dropped"
    picked = committed("0.99", meanwhile=lambda m: app.with_trace_step(m, "1"))
    assert [(m.traces.threshold, m.traces.step_index) for m in picked] == [(0.99, 1)], "the step picked stays picked"
    read_again = app.with_measured(measured, *measure_loaded(load(files[:3])))
    reread = committed("0.99", meanwhile=lambda m: read_again)
    assert len(reread) == 1 and reread[0].traces.measured is read_again.traces.measured
    assert reread[0].traces.threshold == 0.99 and len(reread[0].traces.analysis.ranks) == 3, "judged again"


def test_the_idle_warming_gives_up_once_traces_are_being_read(monkeypatch):
    """The page warms the One step view a region a step once idle; a read of traces that starts meanwhile stops it,
    so that the read's steps do not wait behind screens nobody sees."""
    from ddpview import app, warmup

    page_module = page_shell(monkeypatch)
    from ddpview.state import positions
    from ddpview.views import IN_PLACE

    written: list[tuple[str, str]] = []
    shadow = types.SimpleNamespace(write_region=lambda name, markup: written.append((name, markup)))
    page = page_module.Page.__new__(page_module.Page)
    page.writer = types.SimpleNamespace(detached=lambda: shadow)
    page.model, page.written = app.initial("", "en", False), {}
    assert sum(1 for _ in page.warming()) == warmup.WARM_RENDERS * len(IN_PLACE), "a step a region"
    assert len(written) == warmup.WARM_RENDERS * len(IN_PLACE), "every One step region, written where nothing shows"
    timelines = {m for n, m in written if n == "timeline-view"}
    assert {name for name, _ in written} == IN_PLACE and len(timelines) == len(positions("slowdown"))
    steps = page.warming()
    next(steps)
    next(steps)
    page.model = app.loading_traces(page.model, 3)
    assert list(steps) == []


def test_a_new_setting_prepares_the_slowdown_s_drag_once(monkeypatch):
    """The page draws the slowdown slider's positions in the background once per setting (`Page.prepare`): not again
    while the slowdown alone moves; a newer setting, or a read of traces, makes the older preparation give up."""
    from ddpview import app, warmup
    from ddpview.state import positions

    page_module = page_shell(monkeypatch)
    started: list = []
    monkeypatch.setattr(page_module, "in_background", started.append)
    monkeypatch.setattr(page_module, "stepped", lambda steps: steps)
    page = page_module.Page.__new__(page_module.Page)
    page.prepared, page.model = None, app.initial("", "en", False)

    def whole(model):
        return len(list(warmup.drag_positions(lambda: model)))

    page.prepare()
    page.model = app.with_control(page.model, "slowdown", "2.0")
    page.prepare()
    assert len(started) == 1
    next(started[0])
    page.model = app.with_control(page.model, "gpus", "16")
    page.prepare()
    assert len(started) == 2 and list(started[0]) == [], "superseded"
    assert len(list(started[1])) == whole(page.model) > len(positions("slowdown")), "drawn, then patches made"
    page.model = app.with_control(page.model, "gpus", "4")
    page.prepare()
    next(started[2])
    page.model = app.loading_traces(page.model, 3)
    assert list(started[2]) == [], "a read of traces goes first"
    page.prepare()
    assert len(started) == 3, "nor does one start while they are read"
    page.model = app.with_view(page.model, "cluster")
    page.prepare()
    assert len(started) == 3, "nothing to prepare in another view"
    page.model = app.with_view(app.cancel_reading(page.model), "step")
    page.prepare()
    assert len(started) == 4 and len(list(started[3])) == whole(page.model), "prepared again after the read"
    page.model = app.with_view(page.model, "cluster")
    page.prepare()
    page.model = app.with_view(page.model, "step")
    page.prepare()
    assert len(started) == 5, "and on the way back from another view, whose drawings may have pushed them out"
