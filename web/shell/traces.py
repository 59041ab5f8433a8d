"""Your traces, DOM side: files picked, dropped or fetched as examples are read here and handed to ddpview.app."""

import asyncio
import pickle

import js
from ddpview import app, i18n
from pyodide.ffi import to_js
from pyscript import window

from .dom import by_id, guarded, in_background, show_error


class TracesShell:
    """Reads trace files into the page's model (`page.model`, shown with `page.update`)."""

    def __init__(self, page):
        self.page = page
        self.worker = None
        self.too_big = []
        self.on_message = guarded(self.on_message_)

    def on_files(self, event):
        in_background(self.read_files(list(event.target.files)))

    def on_drag_over(self, event):
        event.preventDefault()
        by_id("trace-drop").classList.add("over")

    def on_drag_leave(self, event):
        by_id("trace-drop").classList.remove("over")

    def on_drop(self, event):
        event.preventDefault()
        by_id("trace-drop").classList.remove("over")
        in_background(self.read_files(list(event.dataTransfer.files)))

    async def read_files(self, files):
        """Files too large are refused at once; the others are read and parsed in the worker, off the main thread."""
        from ddpcore.traces import MAX_FILE_BYTES, MIB, FileError

        self.too_big, wanted = [], []
        for f in files:
            if int(f.size) > MAX_FILE_BYTES:
                mb, limit = round(int(f.size) / MIB), MAX_FILE_BYTES // MIB
                message = i18n.t("traces.too_big", self.page.model.lang, mb=mb, limit=limit)
                self.too_big.append(FileError(str(f.name), message))
            else:
                wanted.append(f)
        sizes = tuple((str(f.name), int(f.size)) for f in wanted)
        self.page.update(app.loading_traces(self.page.model, len(wanted), sizes))
        if not wanted:
            self.page.update(app.with_measured(self.page.model, None, tuple(self.too_big)))
            return
        message = {"files": wanted, "threshold": self.page.model.traces.threshold}
        self.worker_for().postMessage(to_js(message, dict_converter=js.Object.fromEntries))

    def worker_for(self):
        if self.worker is None:
            self.worker = js.Worker.new(
                "./parse-worker.mjs", to_js({"type": "module"}, dict_converter=js.Object.fromEntries)
            )
            self.worker.onmessage = self.on_message
        return self.worker

    def on_message_(self, event):
        data = event.data
        kind = str(data.type)
        if kind == "progress":
            self.page.update(app.read_progress(self.page.model, int(data.index), int(data.done), int(data.size)))
        elif kind == "read":
            self.page.update(app.file_read(self.page.model, int(data.index), int(data.rank)))
        elif kind == "measuring":
            self.page.update(app.measuring_traces(self.page.model))
        elif kind == "done":
            in_background(self.show(data.bytes.to_bytes()))
        else:
            self.page.update(app.cancel_reading(self.page.model))
            show_error(f"trace reader: {data.message}")

    async def show(self, pickled):
        """The worker's measurement and fit unpickled, then judged and drawn in a task of its own: each well under
        50 ms."""
        measured, errors, outlook, fit_error = pickle.loads(pickled)
        await asyncio.sleep(0)
        model = app.with_measured(self.page.model, measured, (*self.too_big, *errors))
        self.page.update(app.with_fitted(model, outlook, fit_error))

    def on_cancel(self, event):
        """Stop reading: the worker is dropped (a new one starts with the next files); what was shown stays."""
        if self.worker is not None:
            self.worker.terminate()
            self.worker = None
        self.page.update(app.cancel_reading(self.page.model))

    def on_example(self, event):
        in_background(self.load_example(str(event.currentTarget.getAttribute("data-example"))))

    async def load_example(self, name):
        from ddpcore.analysis import measure_loaded
        from ddpcore.traces import load

        names = (await (await window.fetch("./examples/index.json")).json()).to_py()[name]
        self.page.update(app.loading_traces(self.page.model, len(names)))
        contents = []
        for file in names:
            response = await window.fetch(f"./examples/{name}/{file}")
            contents.append((file, (await response.arrayBuffer()).to_bytes()))
        self.page.update(app.with_measured(self.page.model, *measure_loaded(load(contents))))

    def on_copy(self, event):
        button = event.currentTarget
        in_background(self.copy(button, by_id(str(button.getAttribute("data-copy")))))

    async def copy(self, button, source):
        """To the clipboard; where the browser refuses, the text is selected for the user to copy."""
        try:
            await window.navigator.clipboard.writeText(source.textContent)
            button.textContent = i18n.t("traces.copied", self.page.model.lang)
        except Exception:
            window.getSelection().selectAllChildren(source)
