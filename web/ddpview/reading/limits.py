"""What the page holds: a run larger than this is refused after its first file, with the command to run instead,
rather than filling the tab's memory until the browser kills it."""

from __future__ import annotations

from ddpcore.analysis.measured import RUN
from ddpcore.base.words import Message
from ddpcore.traces import FileError

__all__ = ["PAGE_RANK_STEPS", "too_large"]

PAGE_RANK_STEPS = 2_000_000
"""The most rank-steps the page reads: 4,096 ranks x 200 steps (819,200) cost its tab and worker about 500 MB
(bench/README.md), so this is about 1.2 GB."""


def too_large(files: int, first_steps: int) -> FileError | None:
    """Why a run of `files` files, the first read holding `first_steps` steps, is more than the page holds (one
    line, in every language, with the command to run instead), or None.

    >>> too_large(10_000, 1_000).said.text("en")[:61]
    'about 10000 ranks x 1000 steps is more than this page holds ('
    >>> too_large(4_096, 200) is None
    True
    """
    if files * first_steps <= PAGE_RANK_STEPS:
        return None
    return FileError(RUN, Message.of("page.too_large", ranks=files, steps=first_steps, most=PAGE_RANK_STEPS))
