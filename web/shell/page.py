"""The live page: read events into ddpview.app, write its screen with shell.dom, run the clock.

Every decision lives in ddpview (tested natively); this module is wiring. It lives in the app's bundle, compiled
at build time, so that the page's start compiles nothing of its own (web/main.py only starts it).
"""

import gc
import sys
import traceback

from ddpview import app, warmup
from ddpview.views import IN_PLACE, PRERENDERED_LANG, prerendered
from pyscript import document, window
from pyscript.ffi import create_proxy

from ddpcore.base.steps import finished

from .dom import NEXT_FRAME, Writer, by_id, guarded, in_background, now_s, roved, show_error, stepped, translate_page
from .traces import AfterShell, TracesShell


def slot_of(element):
    return app.slot(str(element.getAttribute("data-key")), str(element.getAttribute("data-scale") or ""))


LAID_OUT_ALONE = 8_000
"""A region written with this much markup or more (hundreds of elements: a large read's map, its ranks table) is
written in a task of its own and laid out in a frame of its own (`dom.NEXT_FRAME` before and after it)."""


class Page:
    """The live page: one model, written into the document after every event."""

    def __init__(self):
        reduced = bool(window.matchMedia("(prefers-reduced-motion: reduce)").matches)
        self.model = app.initial(str(window.location.hash), str(window.navigator.language), reduced)
        drawn = prerendered()
        self.writer = Writer(slot_of, drawn)
        self.written: dict[object, object] = {("region", name): markup for name, markup in drawn.items()}
        self.editing = None
        self.fit_pending = False
        self.commits = 0
        self.hash_timer, self.linked_view = None, self.model.state.view
        self.tick_proxy, self.hash_proxy = create_proxy(self.on_frame), create_proxy(self.write_hash)
        self.threshold_proxy, self.threshold_text = guarded(self.apply_threshold), ""
        self.after_paint = create_proxy(lambda *_: window.setTimeout(self.threshold_proxy, 0))
        self.fit_proxy = guarded(self.fit)
        self.traces = TracesShell(self)
        self.after = AfterShell(self)
        self.prepared = None

    def start(self):
        traces = self.traces
        for name, kind, handler in (
            ("play", "click", self.on_play),
            ("next-step", "click", self.on_next),
            ("reset", "click", self.on_reset),
            ("lang", "change", self.on_lang),
            ("trace-files", "change", traces.on_files),
            ("trace-step", "change", self.on_trace_step),
            ("alert-threshold", "change", self.on_threshold),
            ("panel-traces", "dragover", traces.on_drag_over),
            ("panel-traces", "dragleave", traces.on_drag_leave),
            ("panel-traces", "drop", traces.on_drop),
            ("trace-cancel", "click", traces.on_cancel),
            ("trace-map", "click", traces.on_map),
            ("trace-map", "keydown", traces.on_map_key),
            ("trace-ranks", "click", traces.on_rank_page),
            ("perfetto-download", "click", traces.on_perfetto),
            ("job-perfetto", "click", traces.on_perfetto),
            ("after-files", "change", self.after.on_files),
        ):
            by_id(name).addEventListener(kind, guarded(handler))
        for selector, kinds, handler in (
            ("[data-key]", ("input", "change"), self.on_control),
            ("[role=tab]", ("click",), self.on_tab),
            ("[role=tab]", ("keydown",), self.on_tab_key),
            ("[data-example]", ("click",), traces.on_example),
            ("[data-copy]", ("click",), traces.on_copy),
        ):
            proxy = guarded(handler)
            for element in document.querySelectorAll(selector):
                for kind in kinds:
                    element.addEventListener(kind, proxy)
        window.addEventListener("hashchange", guarded(self.on_hash))
        for element in document.querySelectorAll("[data-enable]"):
            element.disabled = False
        by_id("motion-note").hidden = not self.model.reduced_motion
        if self.model.lang != PRERENDERED_LANG:
            self.apply_language()
        self.render(push_hash=True)
        document.documentElement.classList.add("ready")
        by_id("loading").hidden = True
        gc.freeze()  # the start-up objects live for the page's life: keep them out of every later collection
        self.prepare()
        in_background(stepped(self.warming()))

    def warming(self):
        """`warmup.warming`'s screens written into copies of the One step view's regions out of the document
        (`Writer.detached`), so that an input's whole path has run before the user's first; given up once traces are
        being read: a warming screen is tens of ms on a slow machine, which the read's steps must not wait behind. A
        step after each region written, so that a step stays a few ms."""
        shadow, written = self.writer.detached(), dict(self.written)
        for shown in warmup.warming(self.model):
            app.changes(shown, written)
            for name in IN_PLACE:
                if self.model.traces.loading:
                    return
                shadow.write_region(name, shown.regions[name])
                yield

    def prepare(self):
        """Once the One step view's setting changes (or the page starts), its slowdown slider's every position is
        drawn in idle slices (`warmup.drag_positions`), so that a drag of it looks up what it shows; given up once
        another setting is prepared, another view is shown (the views it draws may push them out of those kept), or
        while traces are being read (their steps go first); prepared again on the way back."""
        setting = warmup.slider_setting(self.model)
        if setting is None:
            self.prepared = None
            return
        if setting == self.prepared or self.model.traces.loading:
            return
        self.prepared = setting

        def current():
            if self.model.traces.loading:
                self.prepared = None
            return self.model if self.prepared == setting == warmup.slider_setting(self.model) else None

        in_background(stepped(warmup.drag_positions(current)))

    def update(self, model, push_hash=None):
        """Show a new model; the link follows changes of state, not of the animation or the traces."""
        finished(self.updating(model, push_hash))

    def updating(self, model, push_hash=None):
        """`update` in steps, a step after each region written (`rendering`)."""
        before, self.model = self.model, model
        if model.lang != before.lang:
            self.apply_language()
        if model.playing and not before.playing:
            window.requestAnimationFrame(self.tick_proxy)
        yield from self.rendering(model.state != before.state if push_hash is None else push_hash)
        self.prepare()

    def on_control(self, event):
        element = event.target
        checkbox = str(element.type) == "checkbox"
        scale = str(element.getAttribute("data-scale") or "")
        text = app.control_text(
            scale, str(element.value), checkbox and bool(element.checked), checkbox, self.model.state.cluster.gpus
        )
        self.editing = slot_of(element) if str(event.type) == "input" else None
        self.written.pop(("value", slot_of(element)), None)
        self.update(app.with_control(self.model, str(element.getAttribute("data-key")), text))
        self.editing = None

    def on_tab(self, event):
        self.update(app.with_view(self.model, str(event.currentTarget.getAttribute("data-view"))))

    def on_tab_key(self, event):
        tab = roved(event, self.writer.tabs, event.currentTarget)
        if tab is not None:
            self.update(app.with_view(self.model, str(tab.getAttribute("data-view"))))

    def on_hash(self, event):
        """A new hash (a link, Back or Forward): a new view is scrolled to."""
        view, model = self.model.state.view, app.with_hash(self.model, str(window.location.hash))
        if model is not self.model:
            self.linked_view = model.state.view
        self.update(model)
        if self.model.state.view != view:
            by_id(f"panel-{self.model.state.view}").scrollIntoView()

    def on_lang(self, event):
        self.update(app.with_lang(self.model, str(by_id("lang").value)))

    def on_play(self, event):
        self.update(app.toggle_play(self.model, now_s()), push_hash=False)

    def on_next(self, event):
        self.update(app.next_exchange(self.model))

    def on_reset(self, event):
        self.update(app.rewind(self.model))

    def on_trace_step(self, event):
        self.update(app.with_trace_step(self.model, str(event.target.value)))

    def on_threshold(self, event):
        """The note says at once that the commit is being applied (the field itself shows nothing new, and a key
        is answered by the next frame it paints); judged once that is painted (a frame, then a task), in steps
        (`thresholding`): 11,700 steps take a judgement of 100-170 ms."""
        self.threshold_text = str(event.target.value)
        self.update(app.threshold_applying(self.model, self.threshold_text), push_hash=False)
        window.requestAnimationFrame(self.after_paint)

    def apply_threshold(self, *_):
        in_background(self.thresholding(self.threshold_text))

    async def thresholding(self, text):
        """The committed threshold judged, Your traces drawn, then written, in steps (`dom.stepped`), over what the
        page shows by then (`app.with_judged`); a newer commit drops this one. Written at once, the regions of a long
        run's verdict were styled and laid out in one frame of 200 ms."""
        self.commits += 1
        commit, model = self.commits, None
        while model is None:
            judged = await stepped(app.threshold_in_steps(self.model, text))
            await stepped(app.drawing(judged))
            if commit != self.commits:
                return
            model = app.with_judged(self.model, judged)
        await stepped(self.updating(model))
        by_id("alert-threshold").value = app.threshold_shown(self.model)

    def on_frame(self, _):
        try:
            before, self.model = self.model, app.tick(self.model, now_s())
            if self.model.frame.exchange != before.frame.exchange or not self.model.playing:
                self.render(push_hash=False)
            else:
                self.writer.move_playhead(app.playhead_x(self.model))
            if self.model.playing:
                window.requestAnimationFrame(self.tick_proxy)
        except Exception:
            self.update(app.rewind(self.model), push_hash=False)
            show_error(traceback.format_exc())

    def apply_language(self):
        translate_page(self.model.lang)
        self.written = {}

    def render(self, push_hash):
        finished(self.rendering(push_hash))

    def rendering(self, push_hash):
        """What changed written, a step after each region, a large one laid out in a frame of its own (NEXT_FRAME):
        Your traces' regions after a large read are tens of kB each, and written in one task, or laid out in one
        frame, they made a long one on a slow machine (`TracesShell.show` runs this in steps). A change a later
        render has claimed meanwhile is left to it."""
        for kind, name, value in app.changes(app.screen(self.model), self.written, self.editing):
            alone = kind == "region" and len(str(value)) >= LAID_OUT_ALONE
            if alone and self.written.get((kind, name)) is value:
                yield NEXT_FRAME
            if self.written.get((kind, name)) is not value:
                continue
            self.writer.write(kind, name, value)
            if kind == "region":
                yield NEXT_FRAME if alone else None
        if push_hash:
            self.link_later()
        if app.fit_due(self.model) and not self.fit_pending:
            self.fit_pending = True
            window.setTimeout(self.fit_proxy, 0)

    def fit(self, *_):
        """The fit, by the worker when it holds the measurement shown, else here in a task of its own once the
        analysis is drawn; a newer analysis is fitted instead."""
        self.fit_pending = False
        if app.fit_due(self.model) and not self.traces.refit(self.model):
            self.update(app.with_outlook(self.model), push_hash=False)

    def link_later(self):
        """The link written in a task of its own, after the DOM update: at once for a new view, else once the
        controls rest (`app.link_after_s`), a drag's inputs each putting it off again."""
        if self.hash_timer is not None:
            window.clearTimeout(self.hash_timer)
        delay = app.link_after_s(self.model.state.view, self.linked_view)
        self.hash_timer = window.setTimeout(self.hash_proxy, round(delay * 1000))

    def write_hash(self, *_):
        """The model's link over the URL's hash: a new history entry for a new view, else the same entry's. A write
        the browser refuses (Safari throws past 100 in 30 s) leaves the link to the next change."""
        self.hash_timer = None
        wanted, view = app.link(self.model), self.model.state.view
        if str(window.location.hash) != wanted:
            try:
                (window.history.pushState if view != self.linked_view else window.history.replaceState)(
                    None, "", wanted
                )
            except Exception:
                return
        self.linked_view = view


def loaded_modules(*_):
    """The app's modules Python has loaded, comma-separated (`ddpcoreModules()` from the console): the traces'
    modules load on the first read, not at the start (docs/snapshot.md)."""
    return ",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("ddpcore", "ddpview")))


def start() -> None:
    """Make the page live; an error is shown on the page, not only in the console."""
    window.ddpcoreModules = create_proxy(loaded_modules)
    try:
        Page().start()
    except Exception:
        show_error(traceback.format_exc())
