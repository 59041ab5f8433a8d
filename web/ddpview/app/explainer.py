"""How the explainer's events change the model: a control moved, a tab, the language, a link edited, the ring
animation's clock."""

from __future__ import annotations

from dataclasses import replace

from ddpcore.model import Schedule, build_schedule
from ddpcore.model.ring import exchange_count

from .. import i18n
from ..state import Notice, ViewState, apply, decode, is_anchor
from ..views import Frame, TimelineGeometry, axis_max_ms, config_of
from . import playback
from .model import LOG_SCALE, Model
from .sliders import N_MAX, N_MIN, n_from_slider, slider_from_n

__all__ = [
    "control_text",
    "next_exchange",
    "playhead_x",
    "rewind",
    "schedule_of",
    "tab_after",
    "tick",
    "toggle_play",
    "with_control",
    "with_hash",
    "with_lang",
    "with_state",
    "with_view",
]


MOVES = {"ArrowRight": 1, "ArrowDown": 1, "ArrowLeft": -1, "ArrowUp": -1}
"""Arrow keys in a group of one Tab stop (the view tabs, the map's rows): one item on, or back."""


def control_text(scale: str, value: str, checked: bool, checkbox: bool, current: int | None = None) -> str:
    """A control's reading as the text its hash key takes. A log slider's position becomes N; where a position's
    step is less than one GPU (at N = 2, 1 % more is still 2), a move off the position `current` shows goes to the
    next whole N that way, so that the arrow keys always move it."""
    if checkbox:
        return "1" if checked else "0"
    if scale == LOG_SCALE:
        try:
            position = int(float(value))
        except ValueError:
            return ""
        n = n_from_slider(position)
        if current is not None and n == current and position != slider_from_n(current):
            n = min(max(current + (1 if position > slider_from_n(current) else -1), N_MIN), N_MAX)
        return str(n)
    return value


def with_state(model: Model, state: ViewState, notices: tuple[Notice, ...] = ()) -> Model:
    """A new state: a user change clears the link's notices; a new step configuration stops and rewinds the play."""
    if state == model.state:
        return replace(model, notices=notices)
    if config_of(state) != config_of(model.state):
        model = replace(model, playing=False, frame=Frame())
    return replace(model, state=state, notices=notices)


def with_control(model: Model, key: str, text: str) -> Model:
    """A control moved: its text is clamped like a link's; unreadable text changes nothing."""
    return with_state(model, apply(model.state, key, text))


def with_view(model: Model, view: str) -> Model:
    """Another tab."""
    return with_state(model, replace(model.state, view=view))


def tab_after(key: str, index: int, count: int) -> int | None:
    """The item of a one-Tab-stop group (the view tabs, the map's rows) that the arrow keys, Home and End move to
    (wrapping round), or None for any other key.

    >>> tab_after("ArrowDown", 3, 4), tab_after("ArrowLeft", 0, 4), tab_after("End", 0, 4), tab_after("a", 0, 4)
    (0, 3, 3, None)
    """
    if key == "Home":
        return 0
    if key == "End":
        return count - 1
    return (index + MOVES[key]) % count if key in MOVES and count else None


def with_lang(model: Model, lang: str) -> Model:
    """The language selector: kept in the link too."""
    lang = i18n.pick_lang(lang)
    return replace(model, lang=lang, state=replace(model.state, lang=lang))


def with_hash(model: Model, fragment: str) -> Model:
    """The user edited the URL hash: its state, its notices, and its language if it names one. An anchor (the skip
    link's "#main") moves the focus, not the view: it changes nothing."""
    if is_anchor(fragment):
        return model
    state, notices = decode(fragment)
    model = replace(model, lang=state.lang or model.lang)
    return with_state(model, state, notices)


def schedule_of(model: Model) -> Schedule:
    """The step the One step view animates."""
    return build_schedule(config_of(model.state))


def next_exchange(model: Model) -> Model:
    """One more ring exchange, the playhead at its end; stops the play."""
    k = min(model.frame.exchange + 1, exchange_count(model.state.gpus))
    return replace(model, playing=False, frame=Frame(k, playback.playhead_for_exchange(schedule_of(model), k)))


def rewind(model: Model) -> Model:
    """Back to before the first exchange."""
    return replace(model, playing=False, frame=Frame())


def toggle_play(model: Model, now_s: float) -> Model:
    """Play from the playhead (from the start once at the end), or pause; reduced motion jumps to the end."""
    if model.playing:
        return replace(model, playing=False)
    schedule = schedule_of(model)
    if model.reduced_motion:
        return replace(model, frame=Frame(exchange_count(model.state.gpus), schedule.step_ms))
    head = model.frame.playhead_ms
    resume = 0.0 if head is None or head >= schedule.step_ms else playback.elapsed_for(schedule, head)
    return replace(model, playing=True, play_origin_s=now_s - resume)


def tick(model: Model, now_s: float) -> Model:
    """The animation clock: where the playhead is now; the play stops at the step's end."""
    if not model.playing:
        return model
    position = playback.position(schedule_of(model), now_s - model.play_origin_s)
    return replace(model, frame=Frame(position.exchange, position.t_ms), playing=not position.done)


def playhead_x(model: Model) -> float | None:
    """The playhead's x in the timeline, or None when it is not shown."""
    head = model.frame.playhead_ms
    return None if head is None else TimelineGeometry(axis_max_ms(model.state), model.state.gpus).x_of(head)
