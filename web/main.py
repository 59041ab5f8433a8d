"""The only code that touches the DOM: read controls, call ddpcore and the views, set the result, run the clock."""

import asyncio
import gc
import os
import sys
import traceback
from dataclasses import replace

sys.path.insert(0, os.path.abspath("ddpapp.zip"))

from ddpview import i18n, playback
from ddpview.page import (
    PRERENDERED_LANG,
    Frame,
    axis_max_ms,
    config_of,
    notices_html,
    prerendered,
    regions,
    straggler_options,
)
from ddpview.sliders import n_from_slider, slider_from_n
from ddpview.timeline_view import TimelineGeometry
from ddpview.urlstate import apply, decode, encode, texts
from pyscript import document, window
from pyscript.ffi import create_proxy

from ddpcore.analysis import DEFAULT_THRESHOLD
from ddpcore.ring import exchange_count
from ddpcore.schedule import build_schedule


def by_id(name):
    return document.getElementById(name)


def slot_of(key, scale):
    """A control's place in the cache of shown values: its hash key, and its scale when it has one."""
    return f"{key}:{scale}" if scale else key


def show_error(message):
    box = by_id("errors")
    pre = document.createElement("pre")
    pre.textContent = message
    box.append(pre)
    box.hidden = False


BACKGROUND = set()
"""Tasks under way: held here so that the event loop's weak references do not let them be collected mid-run."""


def in_background(coroutine):
    """Run a coroutine after the event: what the event carries must be read before, while it is dispatched."""

    async def run():
        try:
            await coroutine
        except Exception:
            show_error(traceback.format_exc())

    task = asyncio.ensure_future(run())
    BACKGROUND.add(task)
    task.add_done_callback(BACKGROUND.discard)


def guarded(handler):
    """Every DOM callback reports Python errors in the page, not only in the console."""

    def run(*args):
        try:
            handler(*args)
        except Exception:
            show_error(traceback.format_exc())

    return create_proxy(run)


class App:
    def __init__(self):
        self.state, self.notices = decode(str(window.location.hash))
        self.lang = self.state.lang or i18n.pick_lang(str(window.navigator.language))
        self.frame = Frame()
        self.playing = False
        self.play_started = 0.0
        self.play_schedule = None
        self.editing = None
        self.geometry = None
        self.reduced_motion = bool(window.matchMedia("(prefers-reduced-motion: reduce)").matches)
        self.tick_proxy = create_proxy(self.tick)
        self.hash_proxy = create_proxy(self.write_hash)
        self.hash_pending = False
        self.controls = [
            (
                element,
                str(element.getAttribute("data-key")),
                str(element.getAttribute("data-scale") or ""),
                str(element.type) == "checkbox",
            )
            for element in document.querySelectorAll("[data-key]")
        ]
        self.control_values = {}
        self.tabs = list(document.querySelectorAll("[role=tab]"))
        self.panels = [
            (p, str(p.getAttribute("data-view-panel"))) for p in document.querySelectorAll("[data-view-panel]")
        ]
        self.mode_parts = [
            (e, str(e.getAttribute("data-show-mode"))) for e in document.querySelectorAll("[data-show-mode]")
        ]
        self.copy_buttons = list(document.querySelectorAll("[data-copy]"))
        self.shown_view = None
        self.elements = {}
        self.shown = prerendered()
        self.analysis = None
        self.trace_inputs = ((), ())
        self.trace_errors = ()
        self.trace_step = 0
        self.threshold = DEFAULT_THRESHOLD

    def start(self):
        on_control = guarded(self.on_control)
        for element, _, _, _ in self.controls:
            element.addEventListener("input", on_control)
            element.addEventListener("change", on_control)
            element.disabled = False
        for name, handler in (
            ("play", self.on_play),
            ("next-step", self.on_next),
            ("reset", self.on_reset),
            ("lang", self.on_lang),
        ):
            by_id(name).addEventListener("change" if name == "lang" else "click", guarded(handler))
            by_id(name).disabled = False
        on_tab, on_tab_key = guarded(self.on_tab), guarded(self.on_tab_key)
        for tab in self.tabs:
            tab.addEventListener("click", on_tab)
            tab.addEventListener("keydown", on_tab_key)
        window.addEventListener("hashchange", guarded(self.on_hash))
        self.start_traces()
        by_id("motion-note").hidden = not self.reduced_motion
        if self.lang != PRERENDERED_LANG:
            self.apply_language()
        self.render()
        document.documentElement.classList.add("ready")
        by_id("loading").hidden = True
        gc.freeze()  # the start-up objects live for the page's life: keep them out of every later collection

    # --- events -------------------------------------------------------------------------------------------------

    def on_control(self, event):
        element = event.target
        key = str(element.getAttribute("data-key"))
        scale = str(element.getAttribute("data-scale") or "")
        if str(element.type) == "checkbox":
            text = "1" if element.checked else "0"
        elif scale == "log-n":
            text = str(n_from_slider(int(float(str(element.value)))))
        else:
            text = str(element.value)
        self.editing = element if str(event.type) == "input" else None
        self.control_values.pop(slot_of(key, scale), None)
        self.set_state(apply(self.state, key, text))
        self.editing = None

    def set_state(self, state, notices=()):
        """A user change clears the link notices; a new link brings its own."""
        self.notices = notices
        if state != self.state:
            if config_of(state) != config_of(self.state):
                self.stop()
                self.frame = Frame()
            self.state = state
        self.render()

    def on_tab(self, event):
        self.set_state(replace(self.state, view=str(event.currentTarget.getAttribute("data-view"))))

    def on_tab_key(self, event):
        tabs = self.tabs
        key = str(event.key)
        if key not in ("ArrowRight", "ArrowLeft", "Home", "End"):
            return
        event.preventDefault()
        index = tabs.index(event.currentTarget) if event.currentTarget in tabs else 0
        index = {"ArrowRight": index + 1, "ArrowLeft": index - 1, "Home": 0, "End": len(tabs) - 1}[key] % len(tabs)
        tabs[index].focus()
        self.set_state(replace(self.state, view=str(tabs[index].getAttribute("data-view"))))

    def on_lang(self, event):
        self.lang = i18n.pick_lang(str(by_id("lang").value))
        self.state = replace(self.state, lang=self.lang)
        self.apply_language()
        self.shown = {}
        self.render()

    def on_hash(self, event):
        state, notices = decode(str(window.location.hash))
        if state.lang and state.lang != self.lang:
            self.lang = state.lang
            self.apply_language()
            self.shown = {}
        self.set_state(state, notices)

    def on_next(self, event):
        self.stop()
        k = min(self.frame.exchange + 1, exchange_count(self.state.gpus))
        self.frame = Frame(k, playback.playhead_for_exchange(build_schedule(config_of(self.state)), k))
        self.render(push_hash=False)

    def on_reset(self, event):
        self.stop()
        self.frame = Frame()
        self.render(push_hash=False)

    def on_play(self, event):
        if self.playing:
            self.stop()
            return
        schedule = build_schedule(config_of(self.state))
        if self.reduced_motion:
            self.frame = Frame(exchange_count(self.state.gpus), schedule.step_ms)
            self.render(push_hash=False)
            return
        at_end = self.frame.playhead_ms is None or self.frame.playhead_ms >= schedule.step_ms
        resume = 0.0 if at_end else playback.elapsed_for(schedule, self.frame.playhead_ms)
        self.playing = True
        self.play_schedule = schedule
        self.play_started = window.performance.now() / 1000.0 - resume
        self.set_play_label()
        window.requestAnimationFrame(self.tick_proxy)

    # --- traces -----------------------------------------------------------------------------------------------------

    def start_traces(self):
        by_id("trace-files").addEventListener("change", guarded(self.on_trace_files))
        on_example = guarded(self.on_trace_example)
        for name in ("trace-example", "trace-example-gpu"):
            by_id(name).addEventListener("click", on_example)
        by_id("trace-step").addEventListener("change", guarded(self.on_trace_step))
        by_id("alert-threshold").addEventListener("input", guarded(self.on_threshold))
        drop = by_id("trace-drop")
        drop.addEventListener("dragover", guarded(self.on_drag_over))
        drop.addEventListener("dragleave", guarded(lambda event: drop.classList.remove("over")))
        drop.addEventListener("drop", guarded(self.on_drop))
        on_copy = guarded(self.on_copy)
        for button in self.copy_buttons:
            button.addEventListener("click", on_copy)
        for name in ("trace-files", "trace-example", "trace-example-gpu", "trace-step", "alert-threshold"):
            by_id(name).disabled = False

    def on_drag_over(self, event):
        event.preventDefault()
        by_id("trace-drop").classList.add("over")

    def on_drop(self, event):
        event.preventDefault()
        by_id("trace-drop").classList.remove("over")
        in_background(self.read_files(list(event.dataTransfer.files)))

    def on_trace_files(self, event):
        in_background(self.read_files(list(event.target.files)))

    async def read_files(self, files):
        from ddpcore.traces import MAX_FILE_BYTES, MB, FileError

        by_id("trace-status").textContent = i18n.t("traces.loading", self.lang, n=len(files))
        contents, too_big = [], []
        for f in files:
            name = str(f.name)
            if int(f.size) > MAX_FILE_BYTES:
                too_big.append(
                    FileError(
                        name,
                        i18n.t("traces.too_big", self.lang, mb=round(int(f.size) / 1e6), limit=MAX_FILE_BYTES // MB),
                    )
                )
                continue
            buffer = await f.arrayBuffer()
            contents.append((name, buffer.to_bytes()))
        self.show_traces(contents, tuple(too_big))

    def on_trace_example(self, event):
        in_background(self.load_example(str(event.currentTarget.getAttribute("data-example"))))

    async def load_example(self, name):
        index = (await (await window.fetch("./examples/index.json")).json()).to_py()
        by_id("trace-status").textContent = i18n.t("traces.loading", self.lang, n=len(index[name]))
        contents = []
        for file in index[name]:
            response = await window.fetch(f"./examples/{name}/{file}")
            contents.append((file, (await response.arrayBuffer()).to_bytes()))
        self.show_traces(contents, ())

    def show_traces(self, contents, errors):
        from ddpcore.traces import load

        loaded = load(contents)
        self.trace_inputs = (loaded.traces, errors + loaded.errors)
        self.trace_step = 0
        by_id("trace-status").textContent = ""
        self.reanalyse()

    def reanalyse(self):
        from ddpview.traces_view import analysed

        self.analysis, self.trace_errors = analysed(*self.trace_inputs, self.threshold)
        for button in self.copy_buttons:
            button.disabled = self.analysis is None
        self.render(push_hash=False)

    def on_trace_step(self, event):
        self.trace_step = int(str(by_id("trace-step").value) or 0)
        self.render(push_hash=False)

    def on_threshold(self, event):
        from ddpcore.alerts import alert_threshold

        try:
            self.threshold = alert_threshold(float(str(by_id("alert-threshold").value)))
        except ValueError:
            return
        self.reanalyse()

    def on_copy(self, event):
        button = event.currentTarget
        in_background(self.copy(button, by_id(str(button.getAttribute("data-copy")))))

    async def copy(self, button, source):
        """To the clipboard; where the browser refuses, the text is selected for the user to copy."""
        try:
            await window.navigator.clipboard.writeText(source.textContent)
            button.textContent = i18n.t("traces.copied", self.lang)
        except Exception:
            window.getSelection().selectAllChildren(source)

    # --- animation clock ------------------------------------------------------------------------------------------

    def stop(self):
        if self.playing:
            self.playing = False
            self.set_play_label()

    def tick(self, now_ms):
        if not self.playing:
            return
        try:
            pos = playback.position(self.play_schedule, now_ms / 1000.0 - self.play_started)
            changed = pos.exchange != self.frame.exchange
            self.frame = Frame(pos.exchange, pos.t_ms)
            if changed:
                self.render(push_hash=False)
            else:
                self.move_playhead(pos.t_ms)
            if pos.done:
                self.stop()
            else:
                window.requestAnimationFrame(self.tick_proxy)
        except Exception:
            self.playing = False
            show_error(traceback.format_exc())

    def move_playhead(self, t_ms):
        line = by_id("playhead")
        if line is None or self.geometry is None:
            return
        x = f"{self.geometry.x_of(t_ms):.2f}"
        line.setAttribute("x1", x)
        line.setAttribute("x2", x)
        line.classList.remove("hidden")

    # --- drawing --------------------------------------------------------------------------------------------------

    def set_play_label(self):
        button = by_id("play")
        key = "ctl.pause" if self.playing else "ctl.play"
        button.setAttribute("data-i18n", key)
        button.textContent = i18n.t(key, self.lang)
        button.setAttribute("aria-pressed", "true" if self.playing else "false")

    def apply_language(self):
        document.documentElement.lang = self.lang
        for element in document.querySelectorAll("[data-i18n]"):
            element.innerHTML = i18n.t(str(element.getAttribute("data-i18n")), self.lang)
        for element in document.querySelectorAll("[data-i18n-attr]"):
            attr, key = str(element.getAttribute("data-i18n-attr")).split(":", 1)
            element.setAttribute(attr, i18n.t(key, self.lang))
        by_id("lang").value = self.lang

    def set_region(self, region, markup):
        if self.shown.get(region) != markup:
            element = self.elements.get(region)
            if element is None:
                element = self.elements[region] = by_id(region)
            element.innerHTML = markup
            self.shown[region] = markup

    def render(self, push_hash=True):
        state = self.state
        if state.view == "step":
            self.geometry = TimelineGeometry(axis_max_ms(state), state.gpus)
        if state.view == "traces":
            from ddpview.traces_view import traces_regions

            markup_of = traces_regions(self.analysis, self.trace_errors, self.trace_step, self.threshold, self.lang)
        else:
            markup_of = regions(state, self.frame, self.lang)
        for region, markup in markup_of.items():
            self.set_region(region, markup)
        self.set_region("straggler", straggler_options(state.gpus, state.straggler, self.lang))
        self.set_region("notices", notices_html(self.notices, self.lang))
        self.sync_view()
        self.sync_controls()
        if push_hash and not self.hash_pending:
            self.hash_pending = True
            window.setTimeout(self.hash_proxy, 0)

    def write_hash(self, *_):
        """Deferred to its own task: a burst of slider input events writes the URL once, after the DOM update."""
        self.hash_pending = False
        new_hash = encode(self.state)
        if str(window.location.hash) != new_hash:
            window.history.replaceState(None, "", new_hash)

    def sync_view(self):
        shown = (self.state.view, self.state.mode)
        if shown == self.shown_view:
            return
        self.shown_view = shown
        for tab in self.tabs:
            selected = str(tab.getAttribute("data-view")) == self.state.view
            tab.setAttribute("aria-selected", "true" if selected else "false")
            tab.tabIndex = 0 if selected else -1
        for panel, view in self.panels:
            panel.hidden = view != self.state.view
        for element, mode in self.mode_parts:
            element.hidden = mode != self.state.mode

    def sync_controls(self):
        values = texts(self.state)
        values[slot_of("n", "log-n")] = str(slider_from_n(self.state.cluster_gpus))
        values["cluster-gpus:data-value"] = str(self.state.cluster_gpus)
        values["slowdown-out"] = f"{i18n.number(self.state.slowdown, self.lang, 1)}×"
        values["next-step:disabled"] = self.frame.exchange >= exchange_count(self.state.gpus)
        changed = {k for k, v in values.items() if self.control_values.get(k) != v}
        if not changed:
            return
        skipped = set()
        for element, key, scale, checkbox in self.controls:
            slot = slot_of(key, scale)
            if slot not in changed:
                continue
            if self.editing is not None and element == self.editing:
                skipped.add(slot)
                continue
            if checkbox:
                element.checked = values[slot] == "1"
            else:
                element.value = values[slot]
        if "cluster-gpus:data-value" in changed:
            by_id("cluster-gpus").setAttribute("data-value", values["cluster-gpus:data-value"])
        if "slowdown-out" in changed:
            by_id("slowdown-out").textContent = values["slowdown-out"]
        if "next-step:disabled" in changed:
            by_id("next-step").disabled = values["next-step:disabled"]
        self.control_values = {k: v for k, v in values.items() if k not in skipped}


try:
    App().start()
except Exception:
    show_error(traceback.format_exc())
