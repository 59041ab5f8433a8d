"""The only code that touches the DOM: read controls, call ddpcore and the views, set the result, run the clock."""

import traceback
from dataclasses import replace

from pyscript import document, window
from pyscript.ffi import create_proxy

from ddpcore.ring import exchange_count
from ddpcore.schedule import build_schedule
from ddpcore.urlstate import decode, encode, with_gpus
from ddpview import i18n, playback
from ddpview.page import Frame, axis_max_ms, config_of, notices_html, regions, straggler_options
from ddpview.timeline_view import TimelineGeometry


def by_id(name):
    return document.getElementById(name)


class App:
    def __init__(self):
        self.state, notices = decode(str(window.location.hash))
        self.lang = self.state.lang or i18n.pick_lang(str(window.navigator.language))
        self.frame = Frame()
        self.playing = False
        self.play_started = 0.0
        self.shown = {}
        self.notices = notices
        self.reduced_motion = bool(window.matchMedia("(prefers-reduced-motion: reduce)").matches)
        self.tick_proxy = create_proxy(self.tick)
        self.geometry = None

    def guarded(self, handler):
        def run(event=None):
            try:
                handler(event)
            except Exception:
                show_error(traceback.format_exc())
        return create_proxy(run)

    def start(self):
        for name, event, handler in (
            ("gpus", "input", self.on_gpus),
            ("straggler", "change", self.on_straggler),
            ("slowdown", "input", self.on_slowdown),
            ("prefetch", "change", self.on_prefetch),
            ("play", "click", self.on_play),
            ("next-step", "click", self.on_next),
            ("reset", "click", self.on_reset),
            ("lang", "change", self.on_lang),
        ):
            by_id(name).addEventListener(event, self.guarded(handler))
            by_id(name).disabled = False
        window.addEventListener("hashchange", self.guarded(self.on_hash))
        by_id("motion-note").hidden = not self.reduced_motion
        self.apply_language()
        self.render()
        document.documentElement.classList.add("ready")
        by_id("loading").hidden = True

    def set_state(self, state, notices=()):
        """A user change clears the link notices; a new link brings its own."""
        self.notices = notices
        if state != self.state:
            self.state = state
            self.stop()
            self.frame = Frame()
        self.render()

    def on_gpus(self, event):
        text = str(by_id("gpus").value).strip()
        try:
            gpus = int(float(text))
        except ValueError:
            return
        self.set_state(with_gpus(self.state, gpus))

    def on_straggler(self, event):
        self.set_state(replace(self.state, straggler=int(by_id("straggler").value)))

    def on_slowdown(self, event):
        value = round(float(by_id("slowdown").value), 1)
        self.set_state(replace(self.state, slowdown=value))

    def on_prefetch(self, event):
        self.set_state(replace(self.state, prefetch=bool(by_id("prefetch").checked)))

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

    def schedule(self):
        return build_schedule(config_of(self.state))

    def on_next(self, event):
        self.stop()
        total = exchange_count(self.state.gpus)
        k = min(self.frame.exchange + 1, total)
        self.frame = Frame(k, playback.playhead_for_exchange(self.schedule(), k))
        self.render(push_hash=False)

    def on_reset(self, event):
        self.stop()
        self.frame = Frame()
        self.render(push_hash=False)

    def on_play(self, event):
        if self.playing:
            self.stop()
            self.render(push_hash=False)
            return
        schedule = self.schedule()
        if self.reduced_motion:
            total = exchange_count(self.state.gpus)
            self.frame = Frame(total, schedule.step_ms)
            self.render(push_hash=False)
            return
        done = self.frame.playhead_ms is not None and self.frame.playhead_ms >= schedule.step_ms
        resume = 0.0 if done or self.frame.playhead_ms is None else playback.elapsed_for(schedule, self.frame.playhead_ms)
        self.playing = True
        self.play_schedule = schedule
        self.play_started = window.performance.now() / 1000.0 - resume
        self.set_play_label()
        window.requestAnimationFrame(self.tick_proxy)

    def stop(self):
        if self.playing:
            self.playing = False
            self.set_play_label()

    def tick(self, now_ms):
        if not self.playing:
            return
        try:
            pos = playback.position(self.play_schedule, now_ms / 1000.0 - self.play_started)
            exchange_changed = pos.exchange != self.frame.exchange
            self.frame = Frame(pos.exchange, pos.t_ms)
            if exchange_changed:
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
        by_id("lang").value = self.lang

    def render(self, push_hash=True):
        state = self.state
        self.geometry = TimelineGeometry(axis_max_ms(state), state.gpus)
        for region, markup in regions(state, self.frame, self.lang).items():
            if self.shown.get(region) != markup:
                by_id(region).innerHTML = markup
                self.shown[region] = markup
        self.sync_controls()
        notices = notices_html(self.notices, self.lang)
        if self.shown.get("notices") != notices:
            by_id("notices").innerHTML = notices
            self.shown["notices"] = notices
        if push_hash:
            new_hash = encode(state)
            if str(window.location.hash) != new_hash:
                window.history.replaceState(None, "", new_hash)

    def sync_controls(self):
        state = self.state
        gpus = by_id("gpus")
        if str(gpus.value) != str(state.gpus) and document.activeElement != gpus:
            gpus.value = str(state.gpus)
        options = straggler_options(state.gpus, state.straggler, self.lang)
        if self.shown.get("straggler-options") != options:
            by_id("straggler").innerHTML = options
            self.shown["straggler-options"] = options
        by_id("straggler").value = str(state.straggler)
        by_id("slowdown").value = str(state.slowdown)
        by_id("slowdown-out").textContent = f"{i18n.number(state.slowdown, self.lang, 1)}×"
        by_id("prefetch").checked = state.prefetch
        by_id("next-step").disabled = self.frame.exchange >= exchange_count(state.gpus)


def show_error(message):
    box = by_id("errors")
    pre = document.createElement("pre")
    pre.textContent = message
    box.append(pre)
    box.hidden = False


try:
    App().start()
except Exception:
    show_error(traceback.format_exc())
