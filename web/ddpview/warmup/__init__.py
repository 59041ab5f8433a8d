"""Warm-up and pre-rendering: what the page draws before it is asked, so that it is ready when it is (the default view
written into the HTML at build time, screens drawn once idle, a slider's positions ahead of a drag)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpcore.base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .ahead import (  # noqa: F401
        WARM_RENDERS,
        drag_positions,
        neighbour_patches,
        next_position,
        slider_setting,
        started,
        warming,
    )
    from .prerender import (  # noqa: F401
        fill_template,
        main,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "ahead": (
        "WARM_RENDERS",
        "drag_positions",
        "neighbour_patches",
        "next_position",
        "slider_setting",
        "started",
        "warming",
    ),
    "prerender": (
        "fill_template",
        "main",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
