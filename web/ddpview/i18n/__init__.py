"""Text: the page's French and English by key, the core's messages through its one table (ddpcore.base.words),
numbers as each language writes them, and the measured facts the prose quotes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpcore.base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .facts import (  # noqa: F401
        H200_PROBE,
        UtilProbe,
    )
    from .numbers import (  # noqa: F401
        ms,
        number,
        percent,
        signed_percent,
    )
    from .texts import (  # noqa: F401
        H200_EN,
        TEXT,
        pick_lang,
        t,
    )
    from .threshold import (  # noqa: F401
        shown,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "facts": (
        "H200_PROBE",
        "UtilProbe",
    ),
    "numbers": (
        "ms",
        "number",
        "percent",
        "signed_percent",
    ),
    "texts": (
        "H200_EN",
        "TEXT",
        "pick_lang",
        "t",
    ),
    "threshold": ("shown",),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
