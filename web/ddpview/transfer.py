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

ITEMS_PER_PART = 10_000
"""About this many rank-steps (or ranks x 12) in each part of the steps (or of the ranks)."""
RANKS_PER_PART = ITEMS_PER_PART // 50
MAP_ROWS = ("rows", "cost_ms", "gap", "worst")
"""The rank x step map's fields that hold a row per bin of ranks (4,096 ranks x 200 steps: a million numbers, whose
unpickling in one part held the page 50 ms on a slow machine)."""


def parts(measured: Measured | None, errors: tuple, outlook: object, fit_error: str) -> list[bytes]:
    """The measurement (with the files' errors and the fit) pickled in parts: first all but its ranks, steps and map
    cells, then its ranks, then its steps, then its map's rows, a slice at a time."""
    if measured is None:
        return [pickle.dumps((None, errors, outlook, fit_error))]
    ranks, steps, cells = measured.ranks, measured.steps, measured.rank_map
    head = replace(measured, steps=(), ranks=(), rank_map=replace(cells, **dict.fromkeys(MAP_ROWS, ())))
    per_step = max(1, ITEMS_PER_PART // max(1, len(ranks)))
    per_row = max(1, ITEMS_PER_PART // max(1, len(cells.steps)))
    rows = [getattr(cells, name) for name in MAP_ROWS]
    return [
        pickle.dumps((head, errors, outlook, fit_error)),
        *(pickle.dumps(("ranks", ranks[k : k + RANKS_PER_PART])) for k in range(0, len(ranks), RANKS_PER_PART)),
        *(pickle.dumps(("steps", steps[k : k + per_step])) for k in range(0, len(steps), per_step)),
        *(pickle.dumps(("map", [r[k : k + per_row] for r in rows])) for k in range(0, len(cells.rows), per_row)),
    ]


def unpickled(blob: bytes) -> object:
    """One part back (the page unpickles each in a task of its own)."""
    return pickle.loads(blob)


def joined(pieces: list) -> tuple:
    """The unpickled parts put back together: (measured, errors, outlook, fit_error)."""
    (head, errors, outlook, fit_error), *rest = pieces
    if head is None:
        return None, errors, outlook, fit_error
    fields: dict[str, list] = {"ranks": [], "steps": [], **{name: [] for name in MAP_ROWS}}
    for name, items in rest:
        if name == "map":
            for field, rows in zip(MAP_ROWS, items):
                fields[field].extend(rows)
        else:
            fields[name].extend(items)
    cells = replace(head.rank_map, **{name: tuple(fields[name]) for name in MAP_ROWS})
    return (
        replace(head, ranks=tuple(fields["ranks"]), steps=tuple(fields["steps"]), rank_map=cells),
        errors,
        outlook,
        fit_error,
    )
