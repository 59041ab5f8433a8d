"""Your traces, DOM side: files picked, dropped or fetched as examples are read here and handed to ddpview.app."""

from ddpview import app, i18n
from pyscript import window

from .dom import by_id, in_background


class TracesShell:
    """Reads trace files into the page's model (`page.model`, shown with `page.update`)."""

    def __init__(self, page):
        self.page = page

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
        from ddpcore.traces import MAX_FILE_BYTES, MIB, FileError, load

        self.page.update(app.loading_traces(self.page.model, len(files)))
        contents, too_big = [], []
        for f in files:
            if int(f.size) > MAX_FILE_BYTES:
                mb, limit = round(int(f.size) / MIB), MAX_FILE_BYTES // MIB
                message = i18n.t("traces.too_big", self.page.model.lang, mb=mb, limit=limit)
                too_big.append(FileError(str(f.name), message))
            else:
                contents.append((str(f.name), (await f.arrayBuffer()).to_bytes()))
        loaded = load(contents)
        self.page.update(app.with_traces(self.page.model, loaded.traces, (*too_big, *loaded.errors)))

    def on_example(self, event):
        in_background(self.load_example(str(event.currentTarget.getAttribute("data-example"))))

    async def load_example(self, name):
        from ddpcore.traces import load

        names = (await (await window.fetch("./examples/index.json")).json()).to_py()[name]
        self.page.update(app.loading_traces(self.page.model, len(names)))
        contents = []
        for file in names:
            response = await window.fetch(f"./examples/{name}/{file}")
            contents.append((file, (await response.arrayBuffer()).to_bytes()))
        loaded = load(contents)
        self.page.update(app.with_traces(self.page.model, loaded.traces, loaded.errors))

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
