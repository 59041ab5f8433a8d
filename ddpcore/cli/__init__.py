"""The command line: each command's arguments and run (`commands`) and what it reports, as JSON and text
(`reports`).

The front door: the layer's public names (`__all__`), each loaded on first use: what a user of ddpcore needs, kept
as it is between releases. The layers above reach the rest of its modules' names by module (`from
..analysis.chance import ALPHA`); code outside ddpcore has no promise that they stay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .commands import (  # noqa: F401
        main,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "commands": ("main",),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
