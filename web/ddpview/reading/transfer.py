"""The worker's measurement as the page receives it: pickled in parts, each small enough to unpickle in a few ms,
so that the page never holds its thread 50 ms on one (4,096 ranks x 200 steps measure to 40 MB)."""

from __future__ import annotations

import pickle
from dataclasses import replace
from itertools import chain
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from ddpcore.analysis import Measured

__all__ = [
    "DONE",
    "FITTED",
    "JOB",
    "PERFETTO",
    "ITEMS_PER_PART",
    "MEASURING",
    "PART_BYTES",
    "PROGRESS",
    "RANKS_PER_PART",
    "SIZES",
    "joined",
    "parts",
    "unpickled",
]

SIZES, PROGRESS, MEASURING, DONE, FITTED = "sizes", "progress", "measuring", "done", "fitted"
JOB = "job"
PERFETTO = "perfetto"
"""The kind of the message carrying a job's Perfetto file (its bytes), made in the worker when the page asks."""
"""The first field of the one part a 3D-parallel job's read posts (with DONE): (JOB, what-if, notes, errors, its
worst step's drawing)."""
"""The kinds of message the reading worker posts to the page (its `type`); a message of none of these kinds says
that the worker failed, and why (`message`)."""

ITEMS_PER_PART = 10_000
"""About this many rank-steps (or ranks x 12) in each part of the steps (or of the ranks)."""
RANKS_PER_PART = ITEMS_PER_PART // 50
MAP_ROWS = ("rows", "cost_ms", "gap", "worst")
"""The rank x step map's fields that hold a row per bin of ranks (4,096 ranks x 200 steps: a million numbers, whose
unpickling in one part held the page 50 ms on a slow machine)."""


PART_BYTES = 32 * 1024
"""A part pickled larger than this is cut in two, down to a single item: a step's drawn spans weigh about 7 kB a
rank, so that 1,250 steps of 8 ranks, few items, made a part of 2 MB, 70 ms to unpickle on a slow machine. The
bound is set by the slowest bytes to unpickle, a real JSONL run's steps (their spans are objects, not arrays): 150 kB
of them took 5 ms natively, 32 kB about 1 ms."""


_FRAMED = 16
"""More than the bytes pickle adds around a part, and around each item's bytes in it."""
PARTED = ("ranks", "steps", "map")
"""The measurement's fields that come in parts of their own, in this order, after its head."""


def parts(measured: Measured | None, errors: tuple, outlook: object, fit_error: object) -> list[bytes]:
    """The measurement (with the files' errors and the fit) pickled in parts: first all but its ranks, steps and map
    cells, then its ranks, then its steps, then its map's rows, a slice at a time."""
    if measured is None:
        return [pickle.dumps((None, errors, outlook, fit_error))]
    ranks, steps, cells = measured.ranks, measured.steps, measured.rank_map
    head = replace(measured, steps=(), ranks=(), rank_map=replace(cells, **dict.fromkeys(MAP_ROWS, ())))
    rows = [getattr(cells, name) for name in MAP_ROWS]
    per_step = max(1, ITEMS_PER_PART // max(1, len(ranks)))
    per_row = max(1, ITEMS_PER_PART // max(1, len(cells.steps)))
    return [
        pickle.dumps((head, errors, outlook, fit_error)),
        *_sliced("ranks", len(ranks), RANKS_PER_PART, lambda i, j: ranks[i:j]),
        *_sliced("steps", len(steps), per_step, lambda i, j: steps[i:j]),
        *_sliced("map", len(cells.rows), per_row, lambda i, j: [r[i:j] for r in rows]),
    ]


def _sliced(name: str, count: int, per: int, items: Callable[[int, int], object]) -> list[bytes]:
    """Each item (`items(k, k + 1)`) pickled once, then gathered in order into parts of up to `per` items and
    PART_BYTES (an item larger alone is a part of its own), each pickled as (name, its items' bytes): no item is
    pickled twice (cutting a slice's pickle in two until it fitted pickled 11,700 steps seven times over, 23 s)."""
    out: list[bytes] = []
    group: list[bytes] = []
    size = _FRAMED
    for k in range(count):
        blob = pickle.dumps(items(k, k + 1))
        if group and (len(group) >= per or size + len(blob) + _FRAMED > PART_BYTES):
            out.append(pickle.dumps((name, tuple(group))))
            group, size = [], _FRAMED
        group.append(blob)
        size += len(blob) + _FRAMED
    if group:
        out.append(pickle.dumps((name, tuple(group))))
    return out


def unpickled(blob: bytes) -> object:
    """One part back (the page unpickles each in a task of its own): the head as it was pickled, or (name, its
    items) for a part of the ranks, the steps or the map's rows."""
    part = pickle.loads(blob)
    if len(part) != 2 or part[0] not in PARTED:
        return part
    name, pickled = part
    slices = [pickle.loads(b) for b in pickled]
    if name == "map":
        return name, [list(chain.from_iterable(s[f] for s in slices)) for f in range(len(MAP_ROWS))]
    return name, list(chain.from_iterable(slices))


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
