"""Which files belong to one run: the ranks of a run share their steps' releases, their step numbers and their
world size; files that do not are another run's.

Every rank of a run leaves a step's gradient collective together, so on two ranks' clocks the releases of the same
steps keep one offset (the clocks' own), give or take a transfer and how late each rank sees the release. Two runs'
releases drift apart by their steps' own variation, step after step. For each pair of ranks, their **drift** is the
interquartile range over their common steps of the offset between their releases, as a share of the step: a few
hundredths within a run of GPUs, a few tenths on CPUs sharing cores (their threads see the release late now and
then), whole steps between two runs.

Two ranks are of one run when their drift is at most DRIFT_OF_A_RUN of a step, or at most NOISE_TIMES the drift of
the run's median rank to its nearest other rank (the run's own noise; no more than a step, and with two ranks the
step is the bound); and when no file says another world size. Each rank is compared with the first; only when that
finds two runs, with up to REFERENCES ranks spread over the files (all of them up to that many), so that 100,000
ranks cost 16 comparisons each at most. The largest set of
ranks so linked is the run; with two sets of the same size there is no telling which is meant.

>>> groups_of({(1, 0): 0.01, (2, 0): 9.0, (2, 1): 9.0}, 3, [None, None, None], bound=0.08)
[[0, 1], [2]]
"""

from __future__ import annotations

import hashlib
import statistics
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import add, sub
from typing import TypeVar

from ..storage.fan import Fan, ranges
from ..storage.micros import Micros, median
from ..traces import RankColumns
from .chance import quantile

T = TypeVar("T")

__all__ = [
    "Drifts",
    "Releases",
    "bound_of",
    "copies",
    "drift",
    "drifts_to",
    "fingerprint",
    "references",
    "run_groups",
    "runs_of",
]

DRIFT_OF_A_RUN = 0.05
"""A drift no run's ranks are ever told apart by: releases seen within a twentieth of a step."""
NOISE_TIMES = 8.0
"""How much more a pair of a run's ranks may drift than its median rank does with its nearest: on the real runs of
tests/fixtures, 1.5 to 10 times (10 only within DRIFT_OF_A_RUN), against 17 to 2,000 times for files of two runs."""


@dataclass(frozen=True)
class Releases:
    """A rank's releases on its own clock, by step (what `drift` compares), and its median step."""

    steps: tuple[int, ...]
    at_ms: tuple[float, ...]
    period_ms: float

    @staticmethod
    def of(t: RankColumns) -> Releases:
        """The releases of a rank's steps: each step's start plus its anchor."""
        return Releases(
            tuple(t.step),
            tuple(map(add, _ms(t.start_ms), _ms(t.anchor_ms))),
            median(t.period_ms) if len(t.period_ms) else 0.0,
        )


def drift(a: Releases, b: Releases) -> float | None:
    """The interquartile range of the offset between two ranks' releases over their common steps, as a share of the
    first one's median step (None without a common step); at most DRIFT_OF_A_RUN for two ranks released at one
    moment (their median offset within half a step) that drift less than a whole step apart, which no run's ranks
    reach. Runs recorded one after the other lie seconds apart on the clock, a run's ranks milliseconds (one host's
    clock, or clocks NTP keeps together); and over a profiler window of a few steps, a rank of a CPU run that sees
    the release late now and then drifts as far from the others as another run's would, with nothing else to tell.

    >>> a = Releases((1, 2, 3, 4), (10.0, 40.0, 70.0, 100.0), 30.0)
    >>> b = Releases((1, 2, 3, 4), (12.0, 42.0, 72.5, 102.0), 30.0)
    >>> round(drift(a, b), 4)
    0.0042
    >>> late = Releases((1, 2, 3, 4), (16.0, 40.0, 76.0, 100.0), 30.0)
    >>> round(drift(a, late), 2), round(drift(a, Releases(late.steps, tuple(x + 5e3 for x in late.at_ms), 30.0)), 2)
    (0.05, 0.2)
    """
    if a.steps == b.steps:
        offsets = sorted(map(sub, a.at_ms, b.at_ms))
    else:
        theirs = dict(zip(b.steps, b.at_ms))
        offsets = sorted(x - theirs[n] for n, x in zip(a.steps, a.at_ms) if n in theirs)
    if not offsets or a.period_ms <= 0:
        return None
    apart = (quantile(offsets, 0.75) - quantile(offsets, 0.25)) / a.period_ms
    at_one_moment = abs(quantile(offsets, 0.5)) <= a.period_ms / 2
    return min(apart, DRIFT_OF_A_RUN) if at_one_moment and apart < 1.0 else apart


REFERENCES = 16
"""Ranks every rank is compared with."""


def references(n: int) -> list[int]:
    """The ranks (indices) every rank is compared with: all of them up to REFERENCES, else that many spread evenly.

    >>> references(4), references(64)[:4]
    ([0, 1, 2, 3], [0, 4, 8, 12])
    """
    return list(range(n)) if n <= REFERENCES else [k * n // REFERENCES for k in range(REFERENCES)]


def bound_of(drifts: dict[tuple[int, int], float | None], n: int) -> float:
    """The drift two ranks of one run stay within (module docstring), from the drifts measured among the
    references.

    >>> bound_of({(1, 0): 0.001, (2, 0): 0.002, (2, 1): 0.001}, 3)
    0.05
    """
    nearest: dict[int, float] = {}
    for (i, j), d in drifts.items():
        if d is not None:
            for k in (i, j):
                nearest[k] = min(nearest.get(k, d), d)
    bound = min(NOISE_TIMES * statistics.median(nearest.values()), 1.0) if n >= 3 and nearest else 1.0
    return max(bound, DRIFT_OF_A_RUN)


def _same_world(a: int | None, b: int | None) -> bool:
    return a is None or b is None or a == b


def groups_of(
    drifts: dict[tuple[int, int], float | None], n: int, worlds: Sequence[int | None], bound: float
) -> list[list[int]]:
    """The sets of ranks (indices) linked as one run, largest first, from the drifts of pairs (None: no common step)
    and each rank's world size (None when unknown)."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for (i, j), d in drifts.items():
        same_world = _same_world(worlds[i], worlds[j])
        if d is not None and d <= bound and same_world:
            parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: (-len(g), g))


def _each(task: Callable[[RankColumns], T], tables: Sequence[RankColumns], fan: Fan) -> list[T]:
    """`task` of every table, the tables a range at a time through `fan` (`storage.Fan`)."""
    return _each_index(lambda i: task(tables[i]), range(len(tables)), len(tables[0].step) if tables else 0, fan)


def runs_of(tables: Sequence[RankColumns], fan: Fan = map) -> list[list[RankColumns]]:
    """The ranks split into the runs they belong to, largest first (`measured.the_run` keeps the largest when it is
    the only one that large).

    The references are compared pairwise (the bound comes from them); every other rank with the first rank of the
    references' largest run, and with every reference only when that one is not its run. Only the references'
    releases are kept: every other rank's are read, compared and dropped a range of ranks at a time through `fan`
    (100,000 ranks' releases held at once, as float objects, took 3 GB).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> ranks = [table_of(r) for r in simulated_run(4, 20, seed=1)[0]]
    >>> [len(run) for run in runs_of(ranks)]
    [4]
    """
    n = len(tables)
    worlds = [t.world_size for t in tables]
    known = {i: Releases.of(tables[i]) for i in references(n)}

    def rest(main: int, bound: float) -> dict[tuple[int, int], float | None]:
        def compared(i: int) -> dict[tuple[int, int], float | None]:
            return drifts_to(i, Releases.of(tables[i]), worlds[i], known, main, worlds[main], bound)

        others = [i for i in range(n) if i not in known]
        return {
            k: d
            for some in _each_index(compared, others, len(tables[0].step) if tables else 0, fan)
            for k, d in some.items()
        }

    return [[tables[i] for i in g] for g in run_groups(n, worlds, known, rest)]


Drifts = dict[tuple[int, int], float | None]
"""Drifts by pair of ranks (indices), None where two ranks have no common step."""


def run_groups(
    n: int,
    worlds: Sequence[int | None],
    known: dict[int, Releases],
    rest: Callable[[int, float], Drifts],
) -> list[list[int]]:
    """The sets of n ranks (indices) linked as one run, largest first (`groups_of`): the references' drifts among
    themselves give the bound and the run the first rank of their largest set belongs to (`main`); `rest(main,
    bound)` gives every other rank's drifts (`drifts_to`), wherever their releases are (this process, or the forked
    parts of a run that each read their own files: `parted`).

    >>> a, b = Releases((1, 2, 3), (0.0, 30.0, 60.0), 30.0), Releases((1, 2, 3), (1e4, 1e4 + 45, 1e4 + 100), 30.0)
    >>> run_groups(3, [None] * 3, {0: a, 1: a, 2: b}, lambda main, bound: {})
    [[0, 1], [2]]
    """
    drifts: Drifts = {(i, j): drift(known[i], known[j]) for i in known for j in known if j < i}
    bound = bound_of(drifts, n)
    main = groups_of(drifts, n, worlds, bound)[0][0]
    drifts.update(rest(main, bound))
    return groups_of(drifts, n, worlds, bound)


def drifts_to(
    i: int,
    mine: Releases,
    world: int | None,
    known: dict[int, Releases],
    main: int,
    main_world: int | None,
    bound: float,
) -> Drifts:
    """Rank i's drift to the main run's first rank; when that does not link them, to every reference too.

    >>> a = Releases((1, 2), (0.0, 30.0), 30.0)
    >>> drifts_to(5, a, None, {0: a, 3: a}, 0, None, 0.05)
    {(5, 0): 0.0}
    """
    near = drift(mine, known[main])
    found: Drifts = {(i, main): near}
    if near is None or near > bound or not _same_world(world, main_world):
        found.update({(i, j): drift(mine, known[j]) for j in known if j != main})
    return found


def _each_index(task: Callable[[int], T], indices: Sequence[int], width: int, fan: Fan) -> list[T]:
    """`task` of each of `indices` (tables of `width` steps), a range of them at a time through `fan`."""

    def some(part: range) -> list[T]:
        return [task(indices[k]) for k in part]

    return list(chain.from_iterable(fan(some, ranges(len(indices), width))))


def copies(tables: Sequence[RankColumns], fan: Fan = map) -> list[tuple[int, int]]:
    """Pairs of ranks whose steps are the same to the last digit (the same file under two rank numbers): two real
    ranks never take the same time to the microsecond, step after step. The digests are made through `fan`.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> ranks = [table_of(r) for r in simulated_run(3, 5, seed=1)[0]]
    >>> from dataclasses import replace
    >>> copies([*ranks, replace(ranks[1], rank=3)])
    [(1, 3)]
    """
    seen: dict[bytes, int] = {}
    pairs = []
    for t, key in zip(tables, _each(fingerprint, tables, fan)):
        if key in seen:
            pairs.append((seen[key], t.rank))
        else:
            seen[key] = t.rank
    return pairs


def fingerprint(t: RankColumns) -> bytes:
    """A digest of a rank's steps, work, periods and readiness, to the last bit: 16 bytes a rank where tuples of
    their floats would hold 128 bytes a rank-step until every rank is seen (10^7 rank-steps: 1.3 GB).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> a, b = (table_of(r) for r in simulated_run(2, 5, seed=1)[0])
    >>> len(fingerprint(a)), fingerprint(a) == fingerprint(a), fingerprint(a) == fingerprint(b)
    (16, True, False)
    """
    digest = hashlib.blake2b(array("q", t.step).tobytes(), digest_size=16)
    for column in (t.work_ms, t.period_ms, t.compute_ms):
        digest.update(_ms(column).tobytes())
    return digest.digest()


def _ms(column: Sequence[float]) -> array[float]:
    """A column as doubles, converted in C loops (`storage.Micros`) or as it is when it already is."""
    if isinstance(column, Micros):
        return column.ms()
    return column if isinstance(column, array) and column.typecode == "d" else array("d", column)
