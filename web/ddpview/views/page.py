"""The page as regions of markup, from the view state: used by the build (pre-render) and the live shell alike."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from ddpcore.model import ClusterConfig, ClusterResult, Link, StepConfig, build_schedule, step_metrics
from ddpcore.model.metrics import compare_modes
from ddpcore.model.ring import exchange_count

from .. import i18n
from ..markup import text
from ..state import PAGE_MAX_SLOWDOWN, STATES_KEPT, Notice, ViewState
from .cost import cost_html, modes_html
from .ring import ring_svg
from .timeline import tick_step, timeline_svg

__all__ = [
    "Frame",
    "IN_PLACE",
    "PATCHED",
    "PRERENDERED_LANG",
    "PROGRESS_REGION",
    "SCREENS_KEPT",
    "axis_max_ms",
    "config_of",
    "notices_html",
    "prerendered",
    "regions",
    "step_regions",
    "straggler_options",
]


@dataclass(frozen=True)
class Frame:
    """Animation position: ring exchanges done and the playhead (None when not shown)."""

    exchange: int = 0
    playhead_ms: float | None = None


@lru_cache(maxsize=8)
def config_of(state: ViewState) -> StepConfig:
    """The model's AllReduce (docs/model.md) in ms in sequential mode; overlap derives bucket times from the link,
    and so does the sequential run it is compared with. Kept for the last few states: an input asks for the new
    state's and the last one's, and a config checks each of its values as it is made."""
    link = Link(bandwidth_gbps=state.bandwidth_gbps) if state.mode == "overlap" else None
    return StepConfig(
        gpus=state.gpus,
        stragglers=(state.straggler,),
        slowdown=state.slowdown,
        lost_in=state.lost_in,
        prefetch=state.prefetch,
        mode=state.mode,
        link=link,
    )


def axis_max_ms(state: ViewState) -> float:
    """A stable axis: the slowest step the controls allow at this GPU count, so bars grow instead of rescaling."""
    worst = build_schedule(
        replace(config_of(state), slowdown=PAGE_MAX_SLOWDOWN, prefetch=False, mode="sequential")
    ).step_ms
    step = tick_step(worst)
    return math.ceil(worst / step) * step


def exchange_html(gpus: int, exchange: int) -> str:
    """The ring's exchange counter: which of the 2(N-1) exchanges is shown."""
    total = exchange_count(gpus)
    return text(
        "output",
        {"data-testid": "exchange", "data-value": exchange, "data-total": total, "class": "value"},
        f"{exchange} / {total}",
    )


@lru_cache(maxsize=8)
def _sweeps(config: ClusterConfig) -> dict[str, list[ClusterResult]]:
    """Moving only N reuses the curves: the sweep does not depend on the current N."""
    from ddpcore.model import cluster_sweeps

    return cluster_sweeps(config)


def cluster_regions(state: ViewState, lang: str) -> dict[str, str]:
    """The Cluster view's markup by element id, for the state's cluster model."""
    from ddpcore.model import cluster_step
    from ddpcore.model.cluster import SWEEP_MAX

    from .cluster import cluster_plot_svg, cluster_values_html, timing_note

    config = state.cluster
    current = cluster_step(config)
    sweeps = _sweeps(replace(config, gpus=SWEEP_MAX, allreduce="ring"))
    return {
        "cluster-plot-view": cluster_plot_svg(sweeps, current, config.allreduce, lang),
        "cluster-values": cluster_values_html(current, lang),
        "cluster-timing": timing_note(state, lang),
    }


SCREENS_KEPT = STATES_KEPT
"""Views drawn that are kept, as many as the states (`urlstate.STATES_KEPT`)."""


def regions(state: ViewState, frame: Frame, lang: str, kept: bool = True) -> dict[str, str]:
    """Element id -> inner markup, for every part of the active view that depends on the state; drawn again, not
    looked up, when not `kept` (the page's idle warming, which must run the drawing code)."""
    return dict(_drawn_regions(state, frame, lang)) if kept else _view_regions(state, frame, lang)


@lru_cache(maxsize=SCREENS_KEPT)
def _drawn_regions(state: ViewState, frame: Frame, lang: str) -> dict[str, str]:
    """The last views drawn are kept (SCREENS_KEPT): a view shown again is not drawn again, and its markup is the
    same string as before, which the page's patch of it finds kept too (markup.patches.patch_text). The page's first
    render asks again for the view the build drew into the page, which the memory snapshot holds already drawn
    (build.SNAPSHOT_WARM)."""
    return _view_regions(state, frame, lang)


def _view_regions(state: ViewState, frame: Frame, lang: str) -> dict[str, str]:
    if state.view == "cluster":
        return cluster_regions(state, lang)
    return step_regions(state, frame, lang)


def step_regions(state: ViewState, frame: Frame, lang: str) -> dict[str, str]:
    """The One step view's markup by element id: timeline, ring, costs and figures at this frame."""
    config = config_of(state)
    schedule = build_schedule(config)
    metrics = step_metrics(config, schedule)
    comparison = modes_html(compare_modes(config), lang) if state.mode == "overlap" else ""
    return {
        "modes-view": comparison,
        "ring-view": ring_svg(state.gpus, frame.exchange, config.stragglers if state.slowdown > 1 else (), lang),
        "timeline-view": timeline_svg(
            schedule, axis_max_ms(state), lang, ideal_ms=metrics.ideal_step_ms, playhead_ms=frame.playhead_ms
        ),
        "cost-view": cost_html(metrics, lang, state.lost_in if state.slowdown > 1 else None),
        "exchange-view": exchange_html(state.gpus, frame.exchange),
    }


IN_PLACE = frozenset({"modes-view", "ring-view", "timeline-view", "cost-view", "exchange-view"})
"""The One step view's regions (those of `step_regions`): the page updates them in place when their shape holds
(markup.patches); no other code changes what is inside them but the playhead's move, which the page accounts for."""

PROGRESS_REGION = "trace-progress"
"""A read's progress list (`reading.progress_html`)."""
PATCHED = IN_PLACE | {PROGRESS_REGION}
"""The regions the page updates in place when their shape holds: the One step view's, and a read's progress, which
the worker's messages move four times a second: written whole, each message built every bar's `<progress>` again
(its shadow tree too), then styled and laid out the list."""

PRERENDERED_LANG = "en"


def prerendered() -> dict[str, str]:
    """The default view as the build writes it into index.html; the page's first render skips what is already there."""
    state = ViewState()
    return {
        **regions(state, Frame(), PRERENDERED_LANG),
        "straggler": straggler_options(state.gpus, state.straggler, PRERENDERED_LANG),
        "notices": "",
    }


@lru_cache(maxsize=STATES_KEPT)
def straggler_options(gpus: int, selected: int, lang: str) -> str:
    """The straggler picker's options, one per GPU, the straggler's selected; kept, since every screen asks."""
    return "".join(
        text("option", {"value": r, "selected": r == selected}, i18n.t("gpu", lang, i=r)) for r in range(gpus)
    )


def _used(used: str, lang: str) -> str:
    """What a link's value became: a number, a word, or one of the notices' own words in the page's language."""
    key = f"notice.{used}"
    return i18n.t(key, lang) if key in i18n.TEXT else used


def notices_html(notices: tuple[Notice, ...], lang: str) -> str:
    """One line per value of the link that could not be used as given, and what was used."""
    return "".join(
        text(
            "li",
            {"data-testid": "notice"},
            i18n.t("notice.clamped", lang, name=n.key, given=n.given, used=_used(n.used, lang)),
        )
        for n in notices
    )
