"""The view's state: what a link holds (the view, every control's value, bounded as the model's parameters are), read
from and written to the URL's hash."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpcore.base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .urlstate import (  # noqa: F401
        FIELD_BY_KEY,
        FIELDS,
        PAGE_MAX_GPUS,
        PAGE_MAX_SLOWDOWN,
        STATES_KEPT,
        Notice,
        ViewState,
        apply,
        decode,
        encode,
        is_anchor,
        positions,
        texts,
        without_timing,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "urlstate": (
        "FIELDS",
        "FIELD_BY_KEY",
        "Notice",
        "PAGE_MAX_GPUS",
        "PAGE_MAX_SLOWDOWN",
        "STATES_KEPT",
        "ViewState",
        "apply",
        "decode",
        "encode",
        "is_anchor",
        "positions",
        "texts",
        "without_timing",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
