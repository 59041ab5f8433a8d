"""Markup: SVG and HTML made as escaped strings (`svg`), and the patches that change a region in place
(`patch`). Nothing here knows the page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpcore.base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .patches import (  # noqa: F401
        PAIRS_KEPT,
        TEXT,
        Change,
        Patch,
        patch,
        patch_text,
    )
    from .svg import (  # noqa: F401
        AttrValue,
        attrs,
        data_value,
        esc,
        num,
        output,
        svg_figure,
        tag,
        text,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "patches": (
        "Change",
        "PAIRS_KEPT",
        "Patch",
        "TEXT",
        "patch",
        "patch_text",
    ),
    "svg": (
        "AttrValue",
        "attrs",
        "data_value",
        "esc",
        "num",
        "output",
        "svg_figure",
        "tag",
        "text",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
