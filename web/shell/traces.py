"""Your traces, DOM side: files picked, dropped or fetched as examples are read here and handed to ddpview.app."""

import asyncio
import json
import pickle

import js
from ddpview import app, i18n, reading
from pyodide.ffi import create_once_callable, to_js
from pyscript import window

from .dom import all_of, by_id, guarded, in_background, roved, show_error, stepped
from .heap import set_aside

FILES_PER_MESSAGE = 2
"""Files go to the worker this many at a time, the page's thread given back between messages when it has held it
long enough (`dom.stepped`): copying a File to a worker costs a file-system call (0.2 to 1.5 ms, ten times that on
a slow machine throttled), and 4,096 at once would hold the page for seconds."""


PERFETTO_FILE = "ddpcore-run.perfetto.json"
"""The name the Perfetto download is saved under."""

COPIED_S = 2.0
"""How long a Copy button says "Copied" before it is a Copy button again."""


def posted(worker, files, count, current):
    """The files posted to a reading worker, FILES_PER_MESSAGE a message, a step between messages; stops once
    `current()` is false (a new action started)."""
    for start in range(0, count, FILES_PER_MESSAGE):
        yield
        if not current():
            return
        chunk = files.slice(start, start + FILES_PER_MESSAGE)
        more = start + FILES_PER_MESSAGE < count
        message = {"files": chunk, "more": more}
        worker.postMessage(to_js(message, dict_converter=js.Object.fromEntries))


class TracesShell:
    """Reads trace files into the page's model (`page.model`, shown with `page.update`).

    The last thing the user does wins: a pick, a drop, an example or Cancel starts a new `action`, stops a read under
    way (its worker is dropped; a new one starts), and whatever the earlier one still had coming never lands."""

    def __init__(self, page):
        self.page = page
        self.worker = None
        self.busy = False
        self.action = 0
        self.measured_there = None
        self.refitting = None

    def new_action(self):
        """A new user action: the one before is cancelled (a busy worker is dropped); returns the new one's number."""
        self.action += 1
        if self.busy and self.worker is not None:
            self.worker.terminate()
            self.worker = None
            self.measured_there = self.refitting = None
        self.busy = False
        return self.action

    def on_map(self, event):
        """A late cell (or a row) of the rank × step map opens its step."""
        target = event.target.closest("[data-step-index]")
        if target:
            self.page.update(app.with_trace_step(self.page.model, str(target.getAttribute("data-step-index"))))

    def on_map_key(self, event):
        """The map is one Tab stop: arrows, Home and End move between its rows; Enter or Space opens a row's step."""
        if str(event.key) in ("Enter", " "):
            event.preventDefault()
            self.on_map(event)
            return
        roved(event, all_of("[data-testid=map-row]"), event.target.closest("[data-testid]"))

    def on_rank_page(self, event):
        """A page of the ranks' table picked."""
        target = event.target.closest("[data-rank-page]")
        if target:
            self.page.update(app.with_rank_page(self.page.model, str(target.getAttribute("data-rank-page"))))

    def on_files(self, event):
        """Files picked: read, and the picker cleared, so that picking the same files again reads them again."""
        files = js.Array.from_(event.target.files)
        in_background(self.read_files(files))
        event.target.value = ""

    def on_drag_over(self, event):
        event.preventDefault()
        by_id("trace-drop").classList.add("over")

    def on_drag_leave(self, event):
        by_id("trace-drop").classList.remove("over")

    def on_drop(self, event):
        event.preventDefault()
        by_id("trace-drop").classList.remove("over")
        in_background(self.read_files(js.Array.from_(event.dataTransfer.files)))

    async def read_files(self, files):
        """The picked files (a JS array of File) go to the worker, FILES_PER_MESSAGE files a message. Only the names
        are read here: a File's size costs a file-system call on first use (a second for 4,096 files), so the worker
        reads the sizes, posts them, and refuses the files too large with one line each, as every reader does."""
        names = json.loads(str(js.ddpcoreFileNames(files)))
        action = self.new_action()
        await asyncio.sleep(0)
        if action != self.action:
            return
        self.page.update(app.loading_traces(self.page.model, len(names), tuple((str(n), None) for n in names)))
        self.measured_there = None
        await stepped(self.posting(files, len(names), action))

    def posting(self, files, count, action):
        """The files posted to the worker (started if need be); stops when a new action starts."""
        worker = self.worker_for()
        self.busy = True
        yield from posted(worker, files, count, lambda: action == self.action)

    def sized(self, sizes):
        """The worker's sizes of the files: progress in megabytes (the worker refuses those over the limit)."""
        self.page.update(app.file_sizes(self.page.model, sizes))

    def worker_for(self):
        """The reading worker, started when there is none; once it is dropped, its last messages are ignored."""
        if self.worker is None:
            self.worker = js.Worker.new(
                "./parse-worker.mjs", to_js({"type": "module"}, dict_converter=js.Object.fromEntries)
            )
            worker = self.worker
            self.worker.onmessage = guarded(lambda event: self.on_message(event, worker))
        return self.worker

    def on_message(self, event, worker):
        if worker is not self.worker:
            return
        data = event.data
        kind = str(getattr(data, "type", ""))
        if kind == reading.SIZES:
            self.sized(json.loads(str(data.sizes)))
        elif kind == reading.PROGRESS:
            model = app.files_read(self.page.model, json.loads(str(data.read)))
            self.page.update(app.read_progress(model, int(data.index), int(data.done), int(data.size)))
        elif kind == reading.MEASURING:
            self.page.update(app.measuring_traces(self.page.model, int(data.done), int(data.total)))
        elif kind == reading.DONE:
            self.busy = False
            in_background(self.show(data.parts, self.action))
        elif kind == reading.PERFETTO:
            if data.bytes.length:
                self.save(data.bytes)
        elif kind == reading.FITTED:
            self.refitting = None
            in_background(self.land_fit(*pickle.loads(data.bytes.to_bytes())))
        else:
            self.busy = False
            self.page.update(app.cancel_reading(self.page.model))
            show_error(f"trace reader: {data.message}")

    async def show(self, parts, action):
        """The worker's measurement and fit unpickled part by part, then judged, then drawn (Your traces' markup
        made, which `app` keeps, then written), in steps (`dom.stepped`): no task near 50 ms, even for thousands of
        ranks on a slow machine. What they make lives on, and is kept out of the collector's way (`heap.set_aside`)."""
        with set_aside():
            pieces = await stepped(self.unpickling(parts))
            if action != self.action:
                return
            if pieces and pieces[0][0] == reading.JOB:
                _, whatif, notes, errors, step = pieces[0]
                self.measured_there = None
                model = app.with_job(self.page.model, whatif, notes, errors, step)
                await stepped(app.drawing(model))
                await stepped(self.page.updating(model))
                return
            measured, errors, outlook, fit_error = reading.joined(pieces)
            model = await stepped(app.measured_in_steps(self.page.model, measured, errors))
            model = app.with_fitted(model, outlook, fit_error)
            await stepped(app.drawing(model))
        await asyncio.sleep(0)
        if action != self.action:
            return
        self.measured_there = measured
        await stepped(self.page.updating(model))

    async def land_fit(self, seen, fit_error):
        """The worker's fit shown as a read's verdict is: its panel drawn, then written, in steps (`dom.stepped`), on
        the model of the moment (the page asks for it once the verdict is drawn, so it lands on a page in use)."""
        model = app.with_fitted(self.page.model, seen, fit_error)
        if model is self.page.model:
            return
        await stepped(app.drawing(model))
        await stepped(self.page.updating(app.with_fitted(self.page.model, seen, fit_error), push_hash=False))

    @staticmethod
    def unpickling(parts):
        """The worker's parts unpickled one at a time (`ddpview.reading.transfer`), each dropped once read."""
        pieces = []
        for k in range(parts.length):
            pieces.append(reading.unpickled(parts[k].to_bytes()))
            parts[k] = None
            yield
        return pieces

    def refit(self, model):
        """Ask the worker to fit the measurement it holds at the model's threshold; False when it does not hold the
        one shown (an example, read on the page), and the page fits it itself."""
        t = model.traces
        if self.worker is None or t.measured is None or t.measured is not self.measured_there:
            return False
        if self.refitting != t.threshold:
            self.refitting = t.threshold
            self.worker.postMessage(to_js({"refit": t.threshold}, dict_converter=js.Object.fromEntries))
        return True

    def on_cancel(self, event):
        """Stop reading: a busy worker is dropped (a new one starts with the next files), what it still had coming
        never lands, and what was shown stays."""
        self.new_action()
        self.page.update(app.cancel_reading(self.page.model))

    def on_example(self, event):
        in_background(self.load_example(str(event.currentTarget.getAttribute("data-example"))))

    async def load_example(self, name):
        from ddpcore.analysis import measure_loaded
        from ddpcore.traces import load

        action = self.new_action()
        names = (await (await window.fetch("./examples/index.json")).json()).to_py()[name]
        if action != self.action:
            return
        self.page.update(app.loading_traces(self.page.model, len(names)))
        contents = []
        for file in names:
            response = await window.fetch(f"./examples/{name}/{file}")
            contents.append((file, (await response.arrayBuffer()).to_bytes()))
            if action != self.action:
                return
        self.page.update(app.with_measured(self.page.model, *measure_loaded(load(contents))))

    def on_perfetto(self, event):
        """The analysis shown, as a Perfetto trace-event file the browser saves (made here, from memory); a 3D-parallel
        job's is made by the worker that holds it (its measured and ideal timelines), and saved when it arrives."""
        from ddpcore.ops.perfetto import trace_events

        if self.page.model.traces.job is not None and self.worker is not None:
            self.worker.postMessage(to_js({"perfetto": True}, dict_converter=js.Object.fromEntries))
            return
        analysis = self.page.model.traces.analysis
        if analysis is None:
            return
        self.save(json.dumps(trace_events(analysis), allow_nan=False))

    @staticmethod
    def save(data):
        """Text or a JS byte array saved by the browser as the Perfetto file."""
        blob = js.Blob.new(to_js([data]), to_js({"type": "application/json"}, dict_converter=js.Object.fromEntries))
        url = js.URL.createObjectURL(blob)
        link = js.document.createElement("a")
        link.href, link.download = url, PERFETTO_FILE
        link.click()
        window.setTimeout(create_once_callable(lambda *_: js.URL.revokeObjectURL(url)), 1000)

    def on_copy(self, event):
        button = event.currentTarget
        in_background(self.copy(button, by_id(str(button.getAttribute("data-copy")))))

    async def copy(self, button, source):
        """To the clipboard; where the browser refuses, the text is selected for the user to copy."""
        try:
            await window.navigator.clipboard.writeText(source.textContent)
            button.textContent = i18n.t("traces.copied", self.page.model.lang)
            await asyncio.sleep(COPIED_S)
            button.textContent = i18n.t("traces.copy", self.page.model.lang)
        except Exception:
            window.getSelection().selectAllChildren(source)


class AfterShell:
    """The run after a fix (Your traces' second picker): its files read by a worker of their own (the first one
    keeps the run shown for its refits), then judged and compared with the run shown, in steps (`dom.stepped`).
    A new pick drops a read under way; a result for a run shown no longer is dropped."""

    def __init__(self, page):
        self.page = page
        self.worker = None
        self.action = 0

    def on_files(self, event):
        files = js.Array.from_(event.target.files)
        in_background(self.read(files))
        event.target.value = ""

    def drop_worker(self):
        if self.worker is not None:
            self.worker.terminate()
            self.worker = None

    async def read(self, files):
        self.action += 1
        action = self.action
        self.drop_worker()
        worker = self.worker = js.Worker.new(
            "./parse-worker.mjs", to_js({"type": "module"}, dict_converter=js.Object.fromEntries)
        )
        worker.onmessage = guarded(lambda event: self.on_message(event, worker, action))
        self.page.update(app.reading_after(self.page.model))
        await stepped(posted(worker, files, files.length, lambda: action == self.action))

    def on_message(self, event, worker, action):
        if worker is not self.worker:
            return
        kind = str(event.data.type)
        if kind == reading.DONE:
            in_background(self.show(event.data.parts, action))
        elif kind not in (reading.SIZES, reading.PROGRESS, reading.MEASURING, reading.FITTED):
            self.drop_worker()
            self.page.update(app.after_cancelled(self.page.model))
            show_error(f"trace reader: {event.data.message}")

    async def show(self, parts, action):
        with set_aside():
            pieces = await stepped(TracesShell.unpickling(parts))
            self.drop_worker()
            measured, errors, _, _ = reading.joined(pieces)
            shown = None
            while shown is None:
                made = await stepped(app.after_in_steps(self.page.model, measured, errors))
                if action != self.action:
                    return
                shown = app.with_compared(self.page.model, made)
        self.page.update(shown)
