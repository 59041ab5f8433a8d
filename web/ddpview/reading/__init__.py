"""Reading traces: the progress of the files a worker reads, drawn, and the worker's measurement as the page receives
it (pickled in parts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpcore.base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .limits import (  # noqa: F401
        PAGE_RANK_STEPS,
        too_large,
    )
    from .progress import (  # noqa: F401
        PROGRESS_ROWS,
        FileProgress,
        Progress,
        being_read,
        progress_html,
        progress_of,
        progressed,
    )
    from .transfer import (  # noqa: F401
        DONE,
        FITTED,
        ITEMS_PER_PART,
        JOB,
        MEASURING,
        PART_BYTES,
        PERFETTO,
        PROGRESS,
        RANKS_PER_PART,
        SIZES,
        joined,
        parts,
        unpickled,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "limits": (
        "PAGE_RANK_STEPS",
        "too_large",
    ),
    "progress": (
        "FileProgress",
        "PROGRESS_ROWS",
        "Progress",
        "being_read",
        "progress_html",
        "progress_of",
        "progressed",
    ),
    "transfer": (
        "DONE",
        "FITTED",
        "ITEMS_PER_PART",
        "JOB",
        "MEASURING",
        "PART_BYTES",
        "PERFETTO",
        "PROGRESS",
        "RANKS_PER_PART",
        "SIZES",
        "joined",
        "parts",
        "unpickled",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
