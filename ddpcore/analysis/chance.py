"""How late ranks are by chance, measured on the ranks that are on time, and what it takes to be late beyond it.

Jitter makes some rank late in every step; the question is whether a rank is later than jitter makes the latest of
N ranks. Chance is measured on the bulk of each step, never on every rank-step: a straggler, however often it moves
between ranks, must not widen its own floor.

- A rank-step's **deviation** is its work (from the previous release to its readiness) minus the median of the
  other ranks' work in that step, once each rank's usual offset is taken out (a rank a little slower in every step
  is no chance: `rank_offsets`). Measured against the *others*, every rank's deviation has the same spread whatever
  N, and a late rank does not move its own reference.
- The deviations' distribution is known by three quantiles (`Tail`): where its upper side is the wider, a shifted
  lognormal (delays only add: compute jitter is skewed, and at thousands of ranks the tail decides), else a normal.
  It is fitted twice (`bulk_tail`): first from the lower side alone, which no straggler reaches; then again on the
  rank-steps within the first floor, so that neither stragglers nor their number move it.
- The **floor** is the deviation the latest of N on-time ranks passes with probability ALPHA in a step
  (`Tail.quantile(1 - ALPHA / N)`): it grows with N, as the latest of N jitter draws does.
- A rank is **persistent** only when it is over the threshold more often than chance allows (`persistent_needed`):
  a binomial test of its count of late steps against the chance that an on-time rank-step is over the threshold,
  at ALPHA over the N ranks; and in a strict majority of steps.

>>> round(Tail(0.0, 1.2816, 1.2816).quantile(0.975), 3)
1.96
>>> persistent_needed(8, 4, 0.3), persistent_needed(60, 4, 0.3), persistent_needed(8, 4, 0.02)
(8, 32, 5)
"""

from __future__ import annotations

import heapq
import math
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress, repeat
from operator import add, ge, getitem, le, lt, sub
from statistics import NormalDist

from ..base import Fan, SortedRuns, Transposed, in_order, median, ranges, sorted_places

__all__ = [
    "ALPHA",
    "Across",
    "Beyond",
    "Chance",
    "KEPT",
    "Middle",
    "OFFSET_QUANTILE",
    "Q_HIGH",
    "Q_LOW",
    "Tail",
    "Top",
    "Z",
    "beyond_chance",
    "bulk_tail",
    "cost_tail",
    "deviations",
    "floor_of",
    "medians_of_others",
    "middle_places",
    "of_positive_work",
    "on_time_costs",
    "others_at",
    "others_of",
    "past",
    "persistent_needed",
    "persistent_ranks",
    "quantile",
    "rank_offsets",
    "top_kept",
]

ALPHA = 0.001
"""The chance that noise alone makes a straggler: a transient one in a step, a persistent one in a run."""
Q_LOW, Q_HIGH = 0.1, 0.9
"""The quantiles a `Tail` is fitted through, with the median."""
_NORMAL = NormalDist()
Z = _NORMAL.inv_cdf(Q_HIGH)
"""How many standard deviations of a normal the 90 % quantile lies above the median (1.2816)."""
KEPT = 16
"""Late entries a step's `Middle` can leave out exactly; more fall back to the whole column."""


def quantile(ordered: Sequence[float], p: float) -> float:
    """The p-quantile of sorted values, interpolated between the two nearest.

    >>> quantile([1.0, 2.0, 3.0, 4.0], 0.5), quantile([1.0, 2.0, 3.0, 4.0], 0.1)
    (2.5, 1.3)
    """
    at = p * (len(ordered) - 1)
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


@dataclass(frozen=True)
class Tail:
    """A chance distribution known by its median and its spreads down to the 10 % and up to the 90 % quantile: a
    shifted lognormal through the three when the upper spread is the larger, else a normal with the lower spread
    (the side no straggler reaches)."""

    median: float
    low: float
    high: float

    @staticmethod
    def of(ordered: Sequence[float], skewed: bool = True) -> Tail:
        """Fitted to sorted values; `skewed` False keeps the normal of the lower side."""
        if not ordered:
            return Tail(0.0, 0.0, 0.0)
        middle = quantile(ordered, 0.5)
        low = middle - quantile(ordered, Q_LOW)
        return Tail(middle, low, quantile(ordered, Q_HIGH) - middle if skewed else low)

    @property
    def shape(self) -> float:
        """The lognormal's σ (0: a normal)."""
        return math.log(self.high / self.low) / Z if self.high > self.low > 0 else 0.0

    @property
    def sigma(self) -> float:
        """The spread of the lower side, as a normal's standard deviation."""
        return (self.low or self.high) / Z

    def quantile(self, p: float) -> float:
        """Where the distribution's p-quantile lies."""
        z = _NORMAL.inv_cdf(p)
        s = self.shape
        if s == 0.0:
            return self.median + self.sigma * z
        return self.median + self.high / math.expm1(s * Z) * math.expm1(s * z)

    def survival(self, x: float) -> float:
        """The chance of a value above x."""
        s = self.shape
        if s == 0.0:
            sigma = self.sigma
            if sigma == 0.0:
                return 0.0 if x > self.median else 1.0
            return 1.0 - _NORMAL.cdf((x - self.median) / sigma)
        w = (x - self.median) * math.expm1(s * Z) / self.high
        return 1.0 - _NORMAL.cdf(math.log1p(w) / s) if w > -1.0 else 1.0


def floor_of(tail: Tail, ranks: int, alpha: float = ALPHA) -> float:
    """The deviation beyond which a rank-step is late beyond chance: the latest of `ranks` on-time ranks passes it
    with probability `alpha` in a step (each with alpha / ranks: a bound that holds whatever their dependence).

    >>> tail = Tail(0.0, 1.2816, 1.2816)
    >>> round(floor_of(tail, 8), 2), round(floor_of(tail, 4096), 2)
    (3.66, 5.03)
    """
    return tail.quantile(1.0 - alpha / max(1, ranks))


def bulk_tail(ordered: Sequence[float], ranks: int) -> tuple[Tail, float]:
    """The chance distribution of the deviations (sorted) and its floor: fitted on the lower side first, then again
    on the deviations within that first floor (the on-time rank-steps).

    >>> import random
    >>> rng = random.Random(0)
    >>> ordered = sorted(rng.gauss(0.0, 1.0) for _ in range(2000))
    >>> tail, spread = bulk_tail(ordered, 8)
    >>> round(tail.quantile(0.9), 1), round(spread, 1)
    (1.3, 4.0)
    """
    first = floor_of(Tail.of(ordered, skewed=False), ranks)
    kept = ordered[: ordered.count_upto(first) if isinstance(ordered, SortedRuns) else bisect_right(ordered, first)]
    tail = Tail.of(kept)
    return tail, floor_of(tail, ranks)


OFFSET_QUANTILE = 0.25
"""A rank's usual place is its lower quartile over steps: a rank late in up to three steps of four keeps the place
of its steps on time, and the quartile's own bias, the same for every rank, cancels between them."""


def rank_offsets(
    by_step: Sequence[Sequence[float]], medians: Iterable[float] | None = None, fan: Fan = map
) -> list[float]:
    """Each rank's usual place: the lower quartile over steps of its value minus the step's median (entry i of each
    step is rank i; `medians`: each step's, when its ranks are not all here, as in a shard). A rank a little slower
    in every step is not jitter, and with two or three ranks the only way to tell a slow rank from chance is over
    time. The medians are taken a range of steps at a time, the quartiles a range of ranks at a time, through
    `fan` (`base.Fan`).

    >>> rank_offsets([[10.0, 20.0, 12.0], [11.0, 21.0, 11.0], [9.0, 19.0, 13.0], [10.0, 20.0, 12.0]])
    [-2.5, 7.5, 0.0]
    """
    if not by_step:
        return []
    ranks = len(by_step[0])
    if medians is None:
        middles = list(chain.from_iterable(fan(partial(_medians_of, by_step), ranges(len(by_step), ranks))))
    else:
        middles = list(medians)
    return list(chain.from_iterable(fan(partial(_offsets_of, by_step, middles), ranges(ranks, len(by_step)))))


def _medians_of(by_step: Sequence[Sequence[float]], steps: range) -> list[float]:
    return [median(by_step[j]) for j in steps]


def _offsets_of(by_step: Sequence[Sequence[float]], middles: Sequence[float], some: range) -> list[float]:
    """`rank_offsets` of some ranks (a range of entries), from their slice of every step."""
    low, high = some.start, some.stop
    centred = [array("d", map(sub, row[low:high], repeat(m, high - low))) for row, m in zip(by_step, middles)]
    by_rank = Transposed(centred, "d")
    return [quantile(sorted(by_rank.at(i)), OFFSET_QUANTILE) for i in range(high - low)]


def medians_of_others(values: Sequence[float], ranked: Sequence[float] | None = None) -> array[float]:
    """For each value, the median of all the others, from one sort of the values (`ranked`, when the caller has it)
    and C loops (a job has thousands of ranks).

    Removing one value shifts the middle of the rest by at most one place, so there are at most three answers, and
    which one depends only on how the value compares with the middle: with an even count, a value up to the upper
    middle `ranked[h]` leaves `ranked[h + 1]`, any other leaves `ranked[h]`; with an odd count, a value below the
    middle leaves the mean of the two above it, the middle itself the mean of its neighbours, a value above it the
    mean of the two below (a tie with the middle gives the same answer whichever tied entry is removed).

    >>> list(medians_of_others([10.0, 30.0, 20.0, 40.0]))
    [30.0, 20.0, 30.0, 20.0]
    >>> list(medians_of_others([1.0, 5.0, 2.0]))
    [3.5, 1.5, 3.0]
    """
    return others_at(values, len(values), sorted(values) if ranked is None else ranked)


def others_at(values: Sequence[float], n: int, ranked: Sequence[float] | Mapping[int, float]) -> array[float]:
    """`medians_of_others` for some of a column's `n` values, from the column's sorted values at the three middle
    places alone (`ranked[(n - 1) // 2 - 1]` to `ranked[(n - 1) // 2 + 1]`: a shard of the ranks knows no more).

    >>> list(others_at([10.0, 40.0], 4, {0: 10.0, 1: 20.0, 2: 30.0}))
    [30.0, 20.0]
    """
    return array("d", others_of(values, n, ranked))


def others_of(values: Iterable[float], n: int, ranked: Sequence[float] | Mapping[int, float]) -> Iterator[float]:
    """`others_at`, one value at a time from C passes: what a cost or a deviation subtracts, without an array of
    them in between (a fifth of the time of both at 10^5 ranks).

    >>> list(others_of([1.0, 5.0, 2.0], 3, [1.0, 2.0, 5.0]))
    [3.5, 1.5, 3.0]
    """
    if n < 2:
        return repeat(math.nan, len(values) if isinstance(values, Sequence) else 0)
    middle, answers = _choices(n, ranked)
    if n % 2 == 0:
        return map(answers.__getitem__, map(middle.__ge__, values))
    return map(answers.__getitem__, map(add, map(middle.__lt__, values), map(middle.__le__, values)))


def _choices(n: int, ranked: Sequence[float] | Mapping[int, float]) -> tuple[float, tuple[float, ...]]:
    """A column's middle value and the medians of the others that a value of it can leave (`medians_of_others`):
    with an even count, one up to the middle and one past it; with an odd count, one below, at and above it."""
    h = (n - 1) // 2
    middle = float(ranked[h])
    if n % 2 == 0:
        return middle, (ranked[h], ranked[h + 1])
    return middle, (
        (ranked[h] + ranked[h + 1]) / 2,
        (ranked[h - 1] + ranked[h + 1]) / 2,
        (ranked[h - 1] + ranked[h]) / 2,
    )


def middle_places(ranked: Sequence[float]) -> dict[int, float]:
    """A column's sorted values at the three middle places: all that `others_at` reads of it.

    >>> middle_places([1.0, 2.0, 3.0, 4.0, 5.0]), middle_places([7.0])
    ({1: 2.0, 2: 3.0, 3: 4.0}, {0: 7.0})
    """
    return {k: ranked[k] for k in _middle_of(len(ranked))}


def _middle_of(n: int) -> range:
    """The three middle places of n sorted values (fewer when n is)."""
    h = (n - 1) // 2
    return range(max(0, h - 1), min(n, h + 2))


@dataclass(frozen=True)
class Across:
    """Columns of `n` values each known by their three middle places (`middle_places`), for the median of the
    others of one entry in every column (a rank in every step: `others`), in C passes across the columns."""

    n: int
    middles: tuple[float, ...]
    answers: tuple[tuple[float, ...], ...]

    @staticmethod
    def of(n: int, places: Sequence[Mapping[int, float]]) -> Across:
        """From each column's middle places."""
        if n < 2:
            return Across(n, (), ())
        chosen = [_choices(n, p) for p in places]
        return Across(n, tuple(c[0] for c in chosen), tuple(c[1] for c in chosen))

    def others(self, values: Sequence[float]) -> Iterator[float]:
        """For value k of column k, the median of the others in that column: `others_at` of each column, entry by
        entry, one at a time from C passes (`others_of`).

        >>> a = Across.of(4, [{0: 10.0, 1: 20.0, 2: 30.0}, {0: 1.0, 1: 2.0, 2: 3.0}])
        >>> list(a.others([10.0, 3.0])), list(others_at([10.0], 4, {0: 10.0, 1: 20.0, 2: 30.0}))
        ([30.0, 2.0], [30.0])
        """
        if self.n < 2:
            return repeat(math.nan, len(values))
        if self.n % 2 == 0:
            picks = map(ge, self.middles, values)
        else:
            picks = map(add, map(lt, self.middles, values), map(le, self.middles, values))
        return map(getitem, self.answers, picks)


def deviations(work: Sequence[Sequence[float]]) -> list[array[float]]:
    """Each step's deviations (entry i is rank i): a rank's work minus the median of the other ranks' work, once
    every rank's usual offset is taken out.

    Rank 3 late by 20 ms in one step of four:

    >>> [list(d) for d in deviations([[10.0] * 4, [10.0] * 4, [10.0] * 4, [10.0, 10.0, 10.0, 30.0]])][3]
    [0.0, 0.0, 0.0, 20.0]
    """
    offsets = rank_offsets(work)
    return [_row_of(done, offsets)[0] for done in work]


def _row_of(done: Sequence[float], offsets: Sequence[float]) -> tuple[array[float], list[float]]:
    """A step's deviations (`deviations`), and its adjusted work sorted."""
    adjusted = array("d", map(sub, done, offsets))
    ranked = sorted(adjusted)
    return array("d", map(sub, adjusted, others_of(adjusted, len(ranked), ranked))), ranked


@dataclass(frozen=True)
class Top:
    """A step's largest deviations: every entry at or above `cutoff` (-inf: every entry), in order, with its
    deviation. The entries past any floor at or above the cutoff are among them (`past_of`)."""

    cutoff: float
    entries: array[int]
    values: array[float]

    @staticmethod
    def of(row: Sequence[float], most: int, ordered: Sequence[float] | None = None) -> Top:
        """The entries of the `most` largest values of a row, ties at the last included (all of them when the row
        holds no more), found by C passes (`ordered`: the row's values sorted, when the caller has them).

        >>> t = Top.of([0.5, 3.0, -1.0, 4.5, 3.0], 2)
        >>> t.cutoff, list(t.entries), list(t.values)
        (3.0, [1, 3, 4], [3.0, 4.5, 3.0])
        >>> Top.of([0.5, 3.0, -1.0, 4.5, 3.0], 2, [-1.0, 0.5, 3.0, 3.0, 4.5]) == t
        True
        """
        if len(row) <= most:
            return Top(-math.inf, array("i", range(len(row))), array("d", row))
        cutoff = heapq.nlargest(most, row)[-1] if ordered is None else ordered[-most]
        entries = array("i", compress(range(len(row)), map(cutoff.__le__, row)))
        return Top(cutoff, entries, array("d", map(row.__getitem__, entries)))

    def past(self, floor: float) -> tuple[int, ...] | None:
        """The entries past the floor (`past`), or None when some may lie below the cutoff.

        >>> Top.of([0.5, 3.0, -1.0, 4.5], 2).past(3.5), Top.of([0.5, 3.0, -1.0, 4.5], 2).past(1.0)
        ((3,), None)
        """
        if floor < self.cutoff:
            return None
        return tuple(i for i, v in zip(self.entries, self.values) if floor < v)


def top_kept(ranks: int) -> int:
    """How many of a step's largest deviations `beyond_chance` keeps while the floor is not known: a step with
    more entries past it is measured again, so this bounds memory, not the answer.

    >>> top_kept(8), top_kept(100_000)
    (16, 1562)
    """
    return max(KEPT, ranks // 64)


def _deviated(
    work: Sequence[Sequence[float]], offsets: Sequence[float], steps: range
) -> list[tuple[Top, array[float]]]:
    """Some steps' largest deviations (`Top`: rows of every rank's would hold 8 bytes a rank-step until the floor
    is known), each with the deviations of its positive work in order. That order needs no sort of its own: a
    larger adjusted work never leaves a larger median of the others, so the deviations of the adjusted works sorted
    are the deviations in order (tests/analysis/test_chance.py)."""
    out = []
    for j in steps:
        done = work[j]
        row, ranked = _row_of(done, offsets)
        positive = _positive(row, done)
        if positive is row:
            ordered = array("d", map(sub, ranked, others_of(ranked, len(ranked), ranked)))
            out.append((Top.of(row, top_kept(len(row)), ordered), ordered))
        else:
            out.append((Top.of(row, top_kept(len(row))), array("d", sorted(positive))))
    return out


@dataclass(frozen=True)
class Beyond:
    """A run's work measured against chance: the deviations' distribution (`tail`) and floor, how many rank-steps
    it rests on, and in each step the entries past the floor, whatever the threshold."""

    tail: Tail
    floor_ms: float
    total: int
    entries: tuple[tuple[int, ...], ...]


def beyond_chance(work: Sequence[Sequence[float]], fan: Fan = map) -> Beyond:
    """Which rank-steps did more work than chance allows (module docstring), from each step's work (entry i of a
    step is rank i). A work that is not a positive number (a rank ready before the previous release: a clock that
    jumped) is no measure of chance, and is left out of it. `fan` maps over ranges of steps (`base.Fan`).

    >>> work = [[20.0, 20.4, 19.8, 20.1]] * 20 + [[20.0, 20.4, 19.8, 45.0]]
    >>> beyond = beyond_chance(work)
    >>> [(n, late) for n, late in enumerate(beyond.entries) if late]
    [(20, (3,))]
    """
    offsets = rank_offsets(work, fan=fan)
    tops: list[Top] = []
    rows: list[array[float]] = []
    for some in fan(partial(_deviated, work, offsets), ranges(len(work), len(work[0]) if work else 0)):
        for top, ordered in some:
            tops.append(top)
            rows.append(ordered)
    tail, floor = bulk_tail(in_order(rows, presorted=True), len(work[0]) if work else 0)
    entries = [top.past(floor) for top in tops]
    return Beyond(
        tail,
        floor,
        sum(map(len, rows)),
        tuple(e if e is not None else past(_row_of(work[j], offsets)[0], floor) for j, e in enumerate(entries)),
    )


def _positive(row: Sequence[float], done: Sequence[float]) -> Sequence[float]:
    """A step's deviations of positive work: the row itself when every work is."""
    return row if min(done, default=1.0) > 0 else array("d", compress(row, map((0.0).__lt__, done)))


def of_positive_work(by_step: Iterable[Sequence[float]], work: Iterable[Sequence[float]]) -> array[float]:
    """Every step's deviations pooled, but those of a work that is not a positive number (`beyond_chance`).

    >>> list(of_positive_work([[1.0, 2.0], [3.0, 4.0]], [[5.0, 0.0], [5.0, 6.0]]))
    [1.0, 3.0, 4.0]
    """
    pooled = array("d")
    for row, done in zip(by_step, work):
        pooled.extend(_positive(row, done))
    return pooled


def past(row: Sequence[float], floor: float) -> tuple[int, ...]:
    """The entries of a step's deviations past the floor.

    >>> past([0.5, 3.0, -1.0, 4.5], 2.0)
    (1, 3)
    """
    return tuple(compress(range(len(row)), map(floor.__lt__, row))) if max(row, default=floor) > floor else ()


def cost_tail(
    cost: Sequence[Sequence[float]] | Iterable[Sequence[float]], beyond: Beyond, usual: Sequence[float], fan: Fan = map
) -> Tail:
    """The chance distribution of an on-time rank-step's cost (each step's costs, entry i is rank i), its rank's
    usual cost (`usual`) taken out: what the threshold is weighed with. Each step's are sorted a range of steps at
    a time through `fan` (`base.Fan`).

    >>> work = [[20.0, 20.4, 19.8, 20.1]] * 20 + [[20.0, 20.4, 19.8, 45.0]]
    >>> beyond = beyond_chance(work)
    >>> tail = cost_tail([[max(w) - v for v in w] for w in work], beyond, [0.0] * 4)
    >>> round(tail.quantile(0.5), 2)
    0.4
    """
    rows = cost if isinstance(cost, Sequence) else list(cost)
    width = len(rows[0]) if rows else 0
    task = partial(_on_time_sorted, rows, beyond.entries, usual)
    return Tail.of(in_order(list(chain.from_iterable(fan(task, ranges(len(rows), width)))), presorted=True))


def _on_time_sorted(
    cost: Sequence[Sequence[float]], late: Sequence[Sequence[int]], usual: Sequence[float], steps: range
) -> list[array[float]]:
    """Some steps' on-time costs (`on_time_costs`), each step's sorted."""
    picked = _on_time_costs((cost[j] for j in steps), (late[j] for j in steps), usual)
    return [array("d", sorted(row)) for row in picked]


def on_time_costs(
    cost: Iterable[Sequence[float]], late: Iterable[Sequence[int]], usual: Sequence[float]
) -> array[float]:
    """Every step's costs pooled, its rank's usual cost taken out of each, but the entries late beyond chance
    (`late`, per step): what `cost_tail` fits.

    >>> list(on_time_costs([[1.0, 5.0], [2.0, 3.0]], [(1,), ()], [0.5, 1.0]))
    [0.5, 1.5, 2.0]
    """
    values = array("d")
    for row in _on_time_costs(cost, late, usual):
        values.extend(row)
    return values


def _on_time_costs(
    cost: Iterable[Sequence[float]], late: Iterable[Sequence[int]], usual: Sequence[float]
) -> Iterator[Iterator[float]]:
    """Each step's on-time costs (`on_time_costs`), one at a time from C passes."""
    for row, gone in zip(cost, late):
        if gone:
            kept = bytearray(b"\x01") * len(row)
            for i in gone:
                kept[i] = 0
            yield compress(map(sub, row, usual), kept)
        else:
            yield map(sub, row, usual)


def persistent_ranks(over: Counter[int], steps: int, ranks: int, chance: float) -> set[int]:
    """The ranks over the threshold in enough steps (`persistent_needed`), from how many steps each was over it.

    >>> from collections import Counter, deque
    >>> persistent_ranks(Counter({3: 30, 5: 2}), steps=30, ranks=8, chance=0.01)
    {3}
    """
    needed = persistent_needed(steps, ranks, chance)
    return {r for r, n in over.items() if n >= needed}


def persistent_needed(steps: int, ranks: int, chance: float, alpha: float = ALPHA) -> int:
    """Late steps that make a rank a persistent straggler: a strict majority of `steps` (at least two), and a count
    that an on-time rank, over the threshold with probability `chance` in each step, reaches with probability at most
    alpha / ranks (a one-sided binomial test, the ranks' chances added). More than `steps` means none can be.

    >>> persistent_needed(39, 8, 0.0)
    20
    """
    majority = max(2, steps // 2 + 1)
    if chance <= 0.0:
        return majority
    if chance >= 1.0:
        return steps + 1
    bound = math.log(alpha / max(1, ranks))
    log_p, log_q = math.log(chance), math.log1p(-chance)
    whole = math.lgamma(steps + 1)
    tail = -math.inf
    for k in range(steps, -1, -1):
        term = whole - math.lgamma(k + 1) - math.lgamma(steps - k + 1) + k * log_p + (steps - k) * log_q
        tail = max(tail, term) + math.log1p(math.exp(-abs(tail - term)))
        if tail > bound:
            return max(majority, k + 1)
    return majority


@dataclass(frozen=True)
class Middle:
    """A step's column around its median, sorted (`values`, `below` of the column's `total` lie under them), so that
    its median without a few late entries is found without the column: at most `kept` of them (KEPT, or as many as a
    merge of shards knows to be late)."""

    values: tuple[float, ...]
    below: int
    total: int
    kept: int = KEPT

    @staticmethod
    def of(column: Sequence[float], kept: int = KEPT) -> Middle:
        """The middle of a column: up to `kept` + 1 values each side of its median (`base.sorted_places`: the
        column is not sorted whole)."""
        below, end = Middle.window(len(column), kept)
        return Middle(tuple(sorted_places(column, below, end)), below, len(column), kept)

    @staticmethod
    def of_sorted(ordered: Sequence[float], kept: int = KEPT) -> Middle:
        """`of` a column already sorted (`kept` + 1 values each side)."""
        below, end = Middle.window(len(ordered), kept)
        return Middle(tuple(ordered[below:end]), below, len(ordered), kept)

    @staticmethod
    def window(total: int, kept: int = KEPT) -> tuple[int, int]:
        """Where a column of `total` values is kept: its sorted places from the first up to the second.

        >>> Middle.window(100), Middle.window(5)
        ((33, 67), (0, 5))
        """
        return max(0, (total - 1) // 2 - kept), min(total, (total + 1) // 2 + kept + 1)

    def places(self) -> dict[int, float]:
        """The column's sorted values at its three middle places (`middle_places`), from the window.

        >>> Middle.of([5.0, 1.0, 4.0, 2.0, 3.0], 1).places() == middle_places([1.0, 2.0, 3.0, 4.0, 5.0])
        True
        """
        return {k: self.values[k - self.below] for k in _middle_of(self.total)}

    def median_without(self, removed: Sequence[float]) -> float | None:
        """The column's median once the entries holding these values are left out (None when too many are).

        >>> Middle.of([1.0, 2.0, 3.0, 4.0, 100.0]).median_without([100.0])
        2.5
        """
        left = self.total - len(removed)
        if len(removed) > self.kept or left <= 0:
            return None
        window = list(self.values)
        below = self.below
        for v in removed:
            if window and v < window[0]:
                below -= 1
            elif window and v > window[-1]:
                continue
            elif v in window:
                window.remove(v)
        low, high = (left - 1) // 2 - below, left // 2 - below
        if low < 0 or high >= len(window):
            return None
        return (window[low] + window[high]) / 2


@dataclass(frozen=True)
class Chance:
    """How late ranks are by chance in a run (`bulk_tail`): the deviation of an on-time rank-step's work, the floor
    that the latest of `ranks` on-time ranks passes with probability ALPHA, and the distribution of an on-time
    rank-step's cost once its rank's usual cost is taken out (what the persistence test weighs the threshold with),
    over `total` rank-steps."""

    ranks: int
    work: Tail
    floor_ms: float
    cost: Tail
    total: int

    def over_threshold(self, threshold: float, periods: Sequence[float]) -> float:
        """The chance that an on-time rank-step is over the threshold: its cost at least `threshold` of the step's
        period, averaged over the steps."""
        if not periods:
            return 0.0
        return math.fsum(self.cost.survival(threshold * p) for p in periods) / len(periods)
