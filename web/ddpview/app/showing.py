"""What the page shows for a model (`screen`), what must be written of it (`changes`), and its link; Your traces'
drawings kept while they stand."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

from ddpcore.model.ring import exchange_count

from .. import i18n
from ..reading import progress_html
from ..state import encode, texts
from ..views import PROGRESS_REGION, notices_html, regions, straggler_options
from .model import COPYABLE, LOG_SCALE, TRACES_FOUND, Model, TracesModel, slot
from .sliders import slider_from_n
from .traces import APPLYING, fit_due, threshold_note, threshold_shown

__all__ = [
    "DRAWINGS_KEPT",
    "LINK_AFTER_S",
    "Change",
    "Screen",
    "changes",
    "drawing",
    "link",
    "link_after_s",
    "screen",
]


@dataclass(frozen=True)
class Screen:
    """What the document must show: markup by element id, control values by slot, texts, attributes, and `flags`:
    DOM properties set directly (`hidden`, `disabled`, an input's live `value`), not attributes."""

    regions: dict[str, str]
    values: dict[str, str]
    texts: dict[str, str]
    attributes: dict[str, dict[str, str]]
    flags: dict[str, dict[str, bool | str]]
    view: str
    mode: str


def link(model: Model) -> str:
    """The URL hash that reproduces this view."""
    return encode(model.state)


LINK_AFTER_S = 0.3
"""A change within a view is written into the URL once the controls have rested this long. A drag sends an input
every frame, and each `history.replaceState` cost the browser's own main thread about 10 ms here (the One step
view's 100 inputs took as much of the browser's time as of the page's); browsers also limit these calls (Safari
throws past 100 in 30 s)."""


def link_after_s(view: str, linked_view: str) -> float:
    """How long after a change to write the link: a new view at once, as a history entry of its own (Back returns
    to the view before), any other change once the controls rest (LINK_AFTER_S), over the entry it belongs to.

    >>> link_after_s("cluster", "step"), link_after_s("step", "step")
    (0.0, 0.3)
    """
    return 0.0 if view != linked_view else LINK_AFTER_S


DRAWINGS_KEPT = 2
"""Your traces' drawings kept: the one shown, and the one drawn in steps to be shown next (a threshold's
judgement), which an update of the page meanwhile (a fit arriving, a progress message) must not push out: with one
kept, each was drawn again at once, 300 ms for 8 ranks x 11,700 steps."""


@dataclass
class Drawings:
    """Drawings kept by what they show (a key): its first `by_identity` parts told by identity (an analysis or a job:
    comparing two would walk every step), the rest by equality; the `most` last kept."""

    most: int
    by_identity: int
    kept: list[tuple[tuple[object, ...], dict[str, str]]]

    def get(self, key: tuple[object, ...]) -> dict[str, str] | None:
        """The drawing kept for `key`, if any."""
        n = self.by_identity
        return next((m for k, m in self.kept if all(a is b for a, b in zip(k[:n], key[:n])) and k[n:] == key[n:]), None)

    def put(self, key: tuple[object, ...], markup: dict[str, str]) -> None:
        """Keep a drawing, the oldest let go past `most`."""
        self.kept[:] = [(key, markup), *self.kept[: self.most - 1]]


_drawn = Drawings(DRAWINGS_KEPT, 1, [])
_job_drawn = Drawings(1, 3, [])
"""A job's panel and worst step, by the job, its notes and its step, and the language."""


def _traces_markup(t: TracesModel, lang: str) -> dict[str, str]:
    """Your traces' regions, drawn again only when what they show changed: a large GPU step takes tens of ms to
    draw in the page, and progress messages from the worker arrive many times a second while it reads."""
    from ddpcore.base.steps import finished

    finished(_drawing(t, lang))
    return dict(_drawn.get(_drawing_key(t, lang)) or {})


def drawing(model: Model) -> Generator[None, None, None]:
    """Your traces' regions drawn into what `screen` keeps, a region at a time (the map of thousands of ranks takes
    the page tens of ms; a job's worst step, 116 kB for the published SE): the shell gives its thread back between
    them."""
    yield from _drawing(model.traces, model.lang)
    yield from _job_drawing(model.traces, model.lang)


def _job_key(t: TracesModel, lang: str) -> tuple[object, ...]:
    return (t.job, t.job_notes, t.job_step, lang)


def _job_drawing(t: TracesModel, lang: str) -> Generator[None, None, None]:
    """A job's panel and its worst step drawn, a region at a time, and kept while they stand: a page update meanwhile
    (a progress message, a control) draws neither again."""
    from ..views import job_html, job_step_html

    key = _job_key(t, lang)
    if _job_drawn.get(key) is not None:
        return
    if t.job is None:
        _job_drawn.put(key, {"job-panel": "", "job-step": ""})
        return
    panel = job_html(t.job, t.job_notes, lang)
    yield
    step = job_step_html(t.job_step, lang)
    yield
    _job_drawn.put(key, {"job-panel": panel, "job-step": step})


def _drawing_key(t: TracesModel, lang: str) -> tuple[object, ...]:
    return (t.analysis, t.errors, t.step_index, t.threshold, lang, t.rank_page)


def _drawing(t: TracesModel, lang: str) -> Generator[None, None, None]:
    from ..views import traces_region_items

    key = _drawing_key(t, lang)
    if _drawn.get(key) is not None:
        return
    markup = {}
    for item in traces_region_items(t.analysis, t.errors, t.step_index, t.threshold, lang, t.rank_page):
        if item is not None:
            region, html = item
            markup[region] = html
        yield
    _drawn.put(key, markup)


def _region_markup(model: Model, kept: bool) -> dict[str, str]:
    state, lang = model.state, model.lang
    if state.view == "traces":
        from ddpcore.base.steps import finished

        from ..views import compare_html, fit_html

        t = model.traces
        markup = _traces_markup(t, lang)
        markup["trace-fit"] = fit_html(state, t.outlook, t.fit_error, fit_due(model), lang)
        markup["compare-panel"] = compare_html(t.comparison, t.after_errors, t.reading_after, state.compare, lang)
        finished(_job_drawing(t, lang))
        markup |= _job_drawn.get(_job_key(t, lang)) or {}
    else:
        markup = regions(state, model.frame, lang, kept and not model.playing)
    markup[PROGRESS_REGION] = progress_html(model.traces.progress, lang)
    markup["straggler"] = straggler_options(state.gpus, state.straggler, lang)
    markup["notices"] = notices_html(model.notices, lang)
    return markup


def screen(model: Model, kept: bool = True) -> Screen:
    """Everything the page shows for this model (shell/page.py writes only what changed); its view looked up among
    those drawn last (views.page.regions), unless not `kept` or playing: each frame of the play is new, and would
    only push out the views a drag shows."""
    state, lang = model.state, model.lang
    values = dict(texts(state))
    values[slot("n", LOG_SCALE)] = str(slider_from_n(state.cluster.gpus))
    play_key = "ctl.pause" if model.playing else "ctl.play"
    loading = model.traces.loading
    now = model.traces.progress.now
    done, total = model.traces.measured_steps
    status = (
        i18n.t("traces.measuring_steps", lang, n=loading, i=i18n.number(done, lang, 0), m=i18n.number(total, lang, 0))
        if model.traces.measuring and total
        else i18n.t("traces.measuring", lang, n=loading)
        if model.traces.measuring
        else i18n.t("traces.loading_file", lang, i=now + 1, n=loading)
        if loading and now is not None
        else i18n.t("traces.loading", lang, n=loading)
        if loading
        else ""
    )
    return Screen(
        regions=_region_markup(model, kept),
        values=values,
        texts={
            "slowdown-out": f"{i18n.number(state.slowdown, lang, 1)}×",
            "play": i18n.t(play_key, lang),
            "trace-status": status,
            "threshold-note": threshold_note(model),
        },
        attributes={
            "cluster-gpus": {"data-value": str(state.cluster.gpus)},
            "next-step": {"aria-disabled": "true" if model.frame.exchange >= exchange_count(state.gpus) else "false"},
            "play": {"data-i18n": play_key, "aria-pressed": "true" if model.playing else "false"},
            "alert-threshold": {"aria-busy": "true" if model.traces.threshold_hint[0] == APPLYING else "false"},
            "trace-results": {"aria-busy": "true" if loading or model.traces.measuring else "false"},
        },
        flags={
            **{block: {"hidden": model.traces.analysis is None} for block, _ in COPYABLE},
            **{button: dict.fromkeys(("hidden", "disabled"), model.traces.analysis is None) for _, button in COPYABLE},
            "trace-cancel": {"hidden": not loading},
            "job-export": {"hidden": model.traces.job is None},
            **{part: {"hidden": model.traces.analysis is None} for part in TRACES_FOUND},
            "traces-empty": {
                "hidden": model.traces.analysis is not None or model.traces.job is not None or bool(loading)
            },
            "alert-threshold": {"value": threshold_shown(model)},
        },
        view=state.view,
        mode=state.mode,
    )


Change = tuple[str, object, object]
"""(kind, name, value): a region's markup, a control's value, an element's text, attributes or flags, or the view."""


def changes(shown: Screen, written: dict[object, object], editing: str | None = None) -> list[Change]:
    """What must be written to show `shown`, given what was written last (`written` is updated).

    The control being dragged (`editing`) is left alone: writing its value back would fight the user's hand."""
    wanted: list[Change] = [("region", name, markup) for name, markup in shown.regions.items()]
    wanted += [("value", name, value) for name, value in shown.values.items() if name != editing]
    wanted += [("text", name, value) for name, value in shown.texts.items()]
    wanted += [("attr", name, value) for name, value in shown.attributes.items()]
    wanted += [("flag", name, value) for name, value in shown.flags.items()]
    wanted.append(("view", "view", (shown.view, shown.mode)))
    out = []
    for kind, name, value in wanted:
        if written.get((kind, name)) != value:
            written[(kind, name)] = value
            out.append((kind, name, value))
    return out
