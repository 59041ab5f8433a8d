"""Warm-up: the work the page does once it is idle, so that the user's first inputs find it ready: screens drawn
through an input's whole path, each position of the slowdown slider drawn ahead of a drag, and the patches between
neighbours."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from dataclasses import replace

from ddpcore.base.params import SLOWDOWN

from ..app import Model, Screen, changes, initial, link, screen, with_control
from ..markup import patch_text
from ..state import ViewState, positions
from ..views import IN_PLACE, PRERENDERED_LANG, prerendered

__all__ = [
    "WARM_RENDERS",
    "drag_positions",
    "neighbour_patches",
    "next_position",
    "slider_setting",
    "started",
    "warming",
]


WARM_RENDERS = 200
"""How many screens the page draws once it is idle after its start (see `warming`): 1.8 s of idle slices on a
2-core machine. With 40, the browser was still optimising the interpreter through the first hundred inputs (0.9 s
of its compiler's CPU then, 0.35 s once warm); with 200 it is done before them."""


def warming(model: Model) -> Generator[Screen, None, None]:
    """Screens of the One step view at each position of the slowdown's slider in turn, one a step, each made as an
    input makes it (the slider's text read, the link written) but drawn again, not looked up, for the page to write
    where nothing is shown (shell.page: `Page.warming`). The model is left as it was.

    Started from a memory snapshot, the page runs little Python before its first input, and the browser compiles a
    WebAssembly function's optimised code only once it has run a while, on the machine's other core: the first
    hundred inputs of a slider took half as long again as the next hundred, their thread waiting for the core that
    compiled. The page runs this in idle slices after it is ready (shell.dom.stepped), so that the user's first
    inputs find the interpreter warm."""
    step_view = replace(model, state=replace(model.state, view="step"))
    texts = positions("slowdown")
    for i in range(WARM_RENDERS):
        warm = with_control(step_view, "slowdown", texts[i % len(texts)])
        link(warm)
        yield screen(warm, kept=False)


def slider_setting(model: Model) -> tuple[ViewState, str] | None:
    """What the One step view drawn at any slowdown depends on besides the slowdown: the rest of the state, and the
    language; None when no drag of the slowdown is to be prepared for (another view shown, or the play running)."""
    if model.state.view != "step" or model.playing:
        return None
    return replace(model.state, slowdown=SLOWDOWN.default), model.lang


def next_position(left: Iterable[str], shown: float, heading: float) -> str:
    """Which slowdown position a drag needs drawn next: the one nearest the shown value, and of two as near, the one
    ahead of the drag (`heading`: the sign of its last move; 0 before any), else the first in `left`'s order.

    >>> next_position(["1.0", "2.0", "2.2"], 2.1, heading=-1.0), next_position(["2.0", "2.2"], 2.1, heading=1.0)
    ('2.0', '2.2')
    """
    return min(left, key=lambda text: (round(abs(float(text) - shown), 6), (float(text) - shown) * heading < 0))


def drag_positions(current: Callable[[], Model | None]) -> Generator[None, None, None]:
    """The One step view drawn at each position of the slowdown's slider, a step each, and kept (views.page keeps
    the views drawn): a drag of the slider then looks up what it shows. Each step draws the position nearest where
    the slider is now (`current()`, the page's model at that step; None stops), ahead of the drag first, so that a
    drag under way finds drawn the positions it moves to next. Then the patches between it and its neighbours drawn
    (`neighbour_patches`). The page runs this in idle slices once a setting changes (shell.page: `Page.prepare`)."""
    left, shown, heading = dict.fromkeys(positions("slowdown")), None, 0.0
    drawn: dict[str, Screen] = {}
    while left and (model := current()) is not None:
        if shown is not None and model.state.slowdown != shown:
            heading = model.state.slowdown - shown
        shown = model.state.slowdown
        text = next_position(left, shown, heading)
        del left[text]
        drawn[text] = screen(with_control(model, "slowdown", text))
        yield
        yield from neighbour_patches(drawn, text, current)


def neighbour_patches(
    drawn: dict[str, Screen], text: str, current: Callable[[], Model | None]
) -> Generator[None, None, None]:
    """The patches (markup.patches, kept there) between the One step view at slowdown `text` and at each neighbouring
    position drawn, both ways, a step each (None from `current()` stops): a slider moves a position at a time, and
    the first pass of a drag over a 16-GPU timeline made each input diff its markup, 2-9 ms in the page."""
    order = positions("slowdown")
    at = order.index(text)
    for other in order[max(at - 1, 0) : at + 2]:
        if other == text or other not in drawn:
            continue
        for name in IN_PLACE:
            one, two = drawn[text].regions[name], drawn[other].regions[name]
            for old, new in ((one, two), (two, one)) if one != two else ():
                if current() is None:
                    return
                patch_text(old, new)
                yield


def started() -> None:
    """What the page's start runs before its first input, without a DOM: the default view drawn (`prerendered`, as
    the build writes it into index.html), the first screen and what it writes, and a warming screen. The build's
    memory snapshot runs it once (build.SNAPSHOT_WARM), so the snapshot holds the modules the start needs, drawn
    views kept, and nothing more: the traces' modules load on the first read, with or without the snapshot."""
    prerendered()
    model = initial("", PRERENDERED_LANG, False)
    changes(screen(model), {})
    next(warming(model))
