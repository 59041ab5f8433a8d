"""The worker's measurement as the page receives it: pickled in parts, each small enough to unpickle in a few ms,
so that the page never holds its thread 50 ms on one (4,096 ranks x 200 steps measure to 40 MB)."""

from __future__ import annotations

import pickle
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ddpcore.measured import Measured

SIZES, PROGRESS, MEASURING, DONE, FITTED = "sizes", "progress", "measuring", "done", "fitted"
"""The kinds of message the reading worker posts to the page (its `type`); a message of none of these kinds says
that the worker failed, and why (`message`)."""

ITEMS_PER_PART = 20_000
"""About this many rank-steps (or ranks x 12) in each part of the steps (or of the ranks)."""
RANKS_PER_PART = ITEMS_PER_PART // 50


def parts(measured: Measured | None, errors: tuple, outlook: object, fit_error: str) -> list[bytes]:
    """The measurement (with the files' errors and the fit) pickled in parts: first all but its ranks and steps,
    then its ranks, then its steps, a slice at a time."""
    if measured is None:
        return [pickle.dumps((None, errors, outlook, fit_error))]
    head = replace(measured, steps=(), ranks=())
    ranks, steps = measured.ranks, measured.steps
    per_step = max(1, ITEMS_PER_PART // max(1, len(ranks)))
    return [
        pickle.dumps((head, errors, outlook, fit_error)),
        *(pickle.dumps(("ranks", ranks[k : k + RANKS_PER_PART])) for k in range(0, len(ranks), RANKS_PER_PART)),
        *(pickle.dumps(("steps", steps[k : k + per_step])) for k in range(0, len(steps), per_step)),
    ]


def unpickled(blob: bytes) -> object:
    """One part back (the page unpickles each in a task of its own)."""
    return pickle.loads(blob)


def joined(pieces: list) -> tuple:
    """The unpickled parts put back together: (measured, errors, outlook, fit_error)."""
    (head, errors, outlook, fit_error), *rest = pieces
    if head is None:
        return None, errors, outlook, fit_error
    fields: dict[str, list] = {"ranks": [], "steps": []}
    for name, items in rest:
        fields[name].extend(items)
    return replace(head, ranks=tuple(fields["ranks"]), steps=tuple(fields["steps"])), errors, outlook, fit_error
