"""How late ranks are by chance, measured on the ranks that are on time, and what it takes to be late beyond it.

Jitter makes some rank late in every step; the question is whether a rank is later than jitter makes the latest of
N ranks, and whether a rank is late over the run by more than chance gives as many on-time steps. Chance is
measured on the rank-steps on time, whatever share of them is late: a straggler, however often it moves between
ranks, must not widen its own chance.

- A rank-step's **deviation** is its work (from the previous release to its readiness) minus the median of the
  other ranks' work in that step. Measured against the *others*, every rank's deviation has the same spread
  whatever N, and a late rank does not move its own reference.
- The on-time deviations' distribution (`Tail`: Tukey's g-and-h through the median, the 10 % and 90 % quantiles,
  and its lower quantiles as far out as the rank-steps reach for how heavy the tails are) is fitted by `bulk_tail`
  on the rank-steps left once the late ones are counted and taken from the top: those above a fit of the lower
  half (which no straggler reaches) beyond what chance puts there. It holds while up to half of the rank-steps are
  late (a moving straggler at two ranks, two slow of four).
- The **floor** (`fdr_floor`) is the deviation beyond which rank-steps are late, for the whole run at once
  (Benjamini and Hochberg's step-up rule at ALPHA over every rank-step): noise alone passes it in one run in a
  thousand. When more rank-steps lie a few spreads out than chance puts there (`late_together`: a straggler that
  moves between ranks, none of whose rank-steps stands out alone), the rule is run again at a false discovery
  rate of DISCOVERY, and comes down to where they stand. Until the lower tail is lighter than a Student's t of
  GUARDED_DOF beyond doubt (a few hundred rank-steps cannot tell), the floor for rank-steps late alone is at least
  where such a t puts the budget's rate (`guarded`).
- A rank is **persistent** (`persistence`) when it is over the threshold in a strict majority of the steps and its
  mean deviation is one that the mean of as many on-time deviations passes with probability ALPHA / N at most
  (`mean_needed`, the draws' distributions added exactly): how late, not only how often. A rank slow in a stretch
  of the run only (`Lateness`, Kadane's maximum sum) is named for that stretch when the stretch passes the same
  test, corrected for every stretch the run holds.

>>> round(Tail(0.0, 1.2816, 1.2816).quantile(0.975), 3)
1.96
>>> majority(8), round(mean_needed(Tail(0.0, 1.2816, 1.2816), 8, ALPHA / 4), 2)
(5, 1.26)
"""

from __future__ import annotations

import heapq
import math
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, ge, getitem, le, lt, mul, sub
from statistics import NormalDist

from ..storage.fan import Fan, ranges
from ..storage.micros import median
from ..storage.ordered import LeftOut, in_order, sorted_places
from ..storage.picking import (
    above_or_not,
    affine,
    below_at_above,
    gathered,
    picked_where_above,
    scaled,
    where_above,
    where_at_least,
    without_places,
)
from ..storage.transposed import Transposed
from ..storage.whenread import RowsWhenRead
from .odds import ALPHA, binomial_above, binomial_terms

__all__ = [
    "ALONE_MOST",
    "ALPHA",
    "Others",
    "Adjusted",
    "DISCOVERY",
    "binomial_above",
    "Across",
    "Atoms",
    "adjusted",
    "on_time_place",
    "Chance",
    "KEPT",
    "latest_spread",
    "Lateness",
    "Middle",
    "Place",
    "Persistence",
    "Reference",
    "Tail",
    "Top",
    "beyond_jitter",
    "bulk_tail",
    "cost_tail",
    "fdr_floor",
    "guarded",
    "heavy_readable",
    "lighter_than_student",
    "student_above",
    "late_together",
    "lateness",
    "lateness_of",
    "lag_one",
    "mirrored_beyond_chance",
    "mirrored_gaps",
    "mirrored_noise",
    "count_needed",
    "effective_steps",
    "serial_of",
    "level_of",
    "majority",
    "mean_needed",
    "needed",
    "medians_of_others",
    "middle_places",
    "on_time_costs",
    "others_spread",
    "others_at",
    "others_of",
    "past",
    "persistence",
    "quantile",
    "predictive",
    "rank_places",
    "run_floor",
    "steps_to_decide",
    "below_places",
    "first_look",
    "lower_look",
    "unmeasured_of",
    "suspect_cuts",
    "look_spread",
    "look_bias",
    "look_wander",
    "LOOK_KNOWN",
    "majority_late",
    "below_sigmas",
    "suspects_of",
    "stretches",
    "top_kept",
    "transient_share",
    "usual_offsets",
    "Lead",
    "crowded",
    "crowded_count",
    "expected_lead",
    "lead_beyond_chance",
    "leads_beyond",
    "Spaced",
    "NO_SPACED",
    "HINT_CHANCE",
    "Led",
    "NO_LED",
    "UNDECIDED_WINDOW",
    "leads_of",
    "LEAD_POOLED",
    "pool_stride",
    "recentred",
    "sum_parts",
    "without_top",
    "with_latest",
    "tops_floor",
    "pooled_runs",
]

UNDECIDED_WINDOW = 4
"""How many times as long as the run a window may need to be for a verdict to say it would decide: a rank that
would need more is as late as chance makes ranks, not a straggler too briefly seen."""

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


HEAVY_AT = (0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002, 0.0001)
"""The lower quantiles a tail's heaviness is read at, as far out as the values reach (`HEAVY_BEYOND`): a tail
heavy as a Student's t of few degrees looks nearly normal at its 5 % quantile and three times wider than one a
millionth out, where the floor of thousands of rank-steps lies; read on the lower side, which no straggler
reaches (whatever is left of the late ones on the upper side, taken for heaviness, would hide them all)."""
HEAVY_BEYOND = 8
"""Values a quantile of `HEAVY_AT` needs beyond it to be read: fewer, and one value makes it."""
HEAVY_FROM = 100
"""Values a fit needs before it reads how heavy its tail is (below a hundred, a few values make that quantile)."""


def heavy_readable(count: int) -> tuple[float, ...]:
    """The quantiles of HEAVY_AT that `count` values read a tail's heaviness at: those with HEAVY_BEYOND of them
    beyond.

    >>> heavy_readable(100), heavy_readable(900)
    ((), (0.05, 0.02, 0.01))
    """
    return tuple(p for p in HEAVY_AT if p * count >= HEAVY_BEYOND)


def _upper(z: float) -> float:
    """A standard normal's chance above z, exact far out (no 1 - cdf)."""
    return _NORMAL.cdf(-z)


def _quantiles_covariance(p: float, r: float) -> float:
    """Count times the covariance of the sample's p- and r-quantiles, for normal draws of unit spread."""
    p, r = min(p, r), max(p, r)
    return p * (1 - r) / (_NORMAL.pdf(_NORMAL.inv_cdf(p)) * _NORMAL.pdf(_NORMAL.inv_cdf(r)))


def _skew_error() -> float:
    """The standard error of a `Tail`'s skew read over n normal draws (the log of its upper spread over its lower
    one, each from the median), times sqrt(n): about 2.07."""
    c = _quantiles_covariance
    upper = c(Q_HIGH, Q_HIGH) + c(0.5, 0.5) - 2 * c(0.5, Q_HIGH)
    lower = c(0.5, 0.5) + c(Q_LOW, Q_LOW) - 2 * c(Q_LOW, 0.5)
    both = c(0.5, Q_HIGH) - c(Q_LOW, Q_HIGH) - c(0.5, 0.5) + c(Q_LOW, 0.5)
    return math.sqrt(upper + lower - 2 * both) / Z


SKEW_ERROR = _skew_error()
"""`_skew_error`: a skew read on four hundred values is a tenth off one time in three, and that far out (a
floor of thousands of rank-steps lies four or five spreads up) a tenth of skew moves the floor by a sixth."""


@dataclass(frozen=True)
class Tail:
    """A chance distribution known by its median, its spreads down to the 10 % and up to the 90 % quantile, and
    how heavy its tails are: Tukey's g-and-h, a standard normal z carried to `median + high (e^{gz} - 1) / (e^{gZ} -
    1) e^{h (z^2 - Z^2) / 2}`, its skew g from the two spreads (a shifted lognormal when h is 0; a normal when they
    are equal too) and `heavy` (h) from how far its 1 % quantile lies beyond a normal's (0: no heavier)."""

    median: float
    low: float
    high: float
    heavy: float = 0.0

    @staticmethod
    def of(ordered: Sequence[float], skewed: bool = True, heavy: bool = True, split: bool = False) -> Tail:
        """Fitted to sorted values through their median, 10 % and 90 % quantiles, and, from HEAVY_FROM values, how
        heavy the tails are: the heaviest reading of the lower quantiles of HEAVY_AT with HEAVY_BEYOND values beyond
        them (the lower side's: stragglers make the upper side heavy); `skewed` False keeps the normal of the lower
        side, `heavy` False a light tail. An upper side narrower than the lower one is taken as wide as the lower
        one (a heavy upper tail is read nowhere, and the lower side's spread covers it), unless `split`: the values
        are known to hold no straggler (`rounds.tops_late` took each step's latest out), and, from HEAVY_FROM of them,
        their upper side is a normal of its own spread (ranks sharing cores: a rank given a core of its own runs
        far faster, never as much slower).

        >>> Tail.of([float(v) for v in range(101)])
        Tail(median=50.0, low=40.0, high=40.0, heavy=0.0)
        """
        if not ordered:
            return Tail(0.0, 0.0, 0.0)
        middle = quantile(ordered, 0.5)
        low = middle - quantile(ordered, Q_LOW)
        high = quantile(ordered, Q_HIGH) - middle if skewed else low
        tail = Tail(middle, low, high if split and len(ordered) >= HEAVY_FROM else max(high, low))
        if len(ordered) < HEAVY_FROM or not skewed or not heavy:
            return tail
        count = len(ordered)
        readings = (tail.heavy_of(_NORMAL.inv_cdf(p), quantile(ordered, p), count) for p in heavy_readable(count))
        return replace(tail, heavy=max(readings, default=0.0))

    def heavy_of(self, z: float, value: float, count: int = 0) -> float:
        """How heavy the tails are (h) for the quantile of a normal's z (beyond the 10 % or 90 %) to lie at `value`
        (0 when it lies no further out than a normal through the median and the 10 % quantile puts it: a skew read
        from the upper spread, which stragglers can widen, is not taken for a light lower side), less one standard
        error of that reading over `count` values (a sample's far quantile wanders: taken as it comes, a light tail
        read heavy by chance would hide a straggler far out, as far as the run is long).

        >>> t = Tail(0.0, 1.2816, 1.2816)
        >>> z = _NORMAL.inv_cdf(0.05)
        >>> round(t.heavy_of(z, -2.0), 3), round(t.heavy_of(z, -2.0, 1000), 3)
        (0.368, 0.291)
        """
        light = replace(self, high=self.low, heavy=0.0).at(z) - self.median
        seen = value - self.median
        if not light * seen > 0 or not abs(seen) > abs(light):
            return 0.0
        p = _upper(abs(z))
        wander = math.sqrt(p * (1 - p) / count) / _NORMAL.pdf(z) / abs(z) if count else 0.0
        return max(0.0, 2.0 * (math.log(seen / light) - wander) / (z * z - Z * Z))

    @property
    def shape(self) -> float:
        """The skew g (0: symmetric)."""
        return math.log(self.high / self.low) / Z if self.high > self.low > 0 else 0.0

    @property
    def sigma(self) -> float:
        """The spread of the lower side, as a normal's standard deviation."""
        return (self.low or self.high) / Z

    def quantile(self, p: float) -> float:
        """Where the distribution's p-quantile lies."""
        return self.at(_NORMAL.inv_cdf(p))

    def above(self, p: float) -> float:
        """Where a value lies that a draw passes with chance p (`quantile(1 - p)`, exact however small p is).

        >>> round(Tail(0.0, 1.2816, 1.2816).above(0.025), 2)
        1.96
        """
        return self.at(-_NORMAL.inv_cdf(p))

    def at(self, z: float) -> float:
        """Where the quantile of a standard normal's z lies (`quantile` beyond what a float's 1 - p can hold); an
        upper side narrower than the lower one (`of`'s `split`) is a normal of its own spread."""
        s = self.shape
        if z > 0.0 and 0.0 < self.high < self.low:
            spread = self.high * z / Z
        elif s == 0.0:
            spread = self.sigma * z
        else:
            spread = self.high / math.expm1(s * Z) * math.expm1(min(300.0, s * z))
        if self.heavy:
            spread *= math.exp(min(300.0, self.heavy * (z * z - Z * Z) / 2))
        return self.median + spread

    def z_of(self, x: float) -> float:
        """The standard normal's z whose quantile lies at x (`at`'s inverse)."""
        s = self.shape
        if not self.heavy:
            if s == 0.0:
                sigma = self.high / Z if x > self.median and 0.0 < self.high < self.low else self.sigma
                if sigma == 0.0:
                    return math.inf if x > self.median else -math.inf
                return (x - self.median) / sigma
            w = (x - self.median) * math.expm1(s * Z) / self.high
            return math.log1p(w) / s if w > -1.0 else -math.inf
        zs, xs = _table(self)
        k = bisect_right(xs, x)
        if k == 0:
            return -math.inf if x < xs[0] else zs[0]
        if k == len(xs):
            return math.inf
        x0, x1 = xs[k - 1], xs[k]
        return zs[k - 1] + (zs[k] - zs[k - 1]) * ((x - x0) / (x1 - x0) if x1 > x0 else 0.0)

    def survival(self, x: float) -> float:
        """The chance of a value above x."""
        return _upper(self.z_of(x))

    @property
    def mean(self) -> float:
        """The distribution's mean (above its median when it is skewed or heavy to the right).

        >>> Tail(1.0, 2.0, 2.0).mean, round(Tail(0.0, 1.0, 2.0).mean, 3)
        (1.0, 0.315)
        """
        return self._moments()[0]

    @property
    def sd(self) -> float:
        """The distribution's standard deviation (of its values within a normal's 8.5 either side).

        >>> round(Tail(0.0, 1.2816, 1.2816).sd, 3)
        1.0
        """
        return self._moments()[1]

    def _moments(self) -> tuple[float, float]:
        s = self.shape
        if not self.heavy and s < 5.0 and self.high >= self.low:
            if s == 0.0:
                return self.median, self.sigma
            a = self.high / math.expm1(s * Z)
            return self.median + a * math.expm1(s * s / 2), a * math.sqrt(math.exp(s * s) * math.expm1(s * s))
        zs = [-8.5 + 17.0 * k / 400 for k in range(401)]
        weights = [math.exp(-z * z / 2) for z in zs]
        total = math.fsum(weights)
        values = [self.at(z) for z in zs]
        mean = math.fsum(w * v for w, v in zip(weights, values)) / total
        return mean, math.sqrt(math.fsum(w * (v - mean) ** 2 for w, v in zip(weights, values)) / total)


ORDER_Z = tuple(-9.0 + 0.02 * k for k in range(1051))
"""The normal z's an order statistic's expectation is summed over (`latest_spread`): out to where the latest of
millions of draws lies."""


def _order_weights(n: int, k: int) -> list[float]:
    """The density of the k-th least of n standard normal draws at each z of ORDER_Z (times the grid's step)."""
    log_c = math.lgamma(n + 1) - math.lgamma(k) - math.lgamma(n - k + 1)
    out = []
    for z in ORDER_Z:
        below, above = _NORMAL.cdf(z), _upper(z)
        if below <= 0.0 or above <= 0.0:
            out.append(0.0)
            continue
        log_w = log_c + (k - 1) * math.log(below) + (n - k) * math.log(above) - z * z / 2
        out.append(math.exp(log_w) * 0.02 / math.sqrt(2 * math.pi))
    return out


@lru_cache(maxsize=1024)
def latest_spread(tail: Tail, n: int) -> tuple[float, float]:
    """How much later the latest of n on-time ranks is than their median, in expectation and its standard
    deviation (an upper bound: the two taken as independent), when each rank's work is drawn from the distribution
    of which `tail` is the deviation against the mean of the n - 1 others (so narrower by sqrt((n - 1) / n)). What
    jitter alone costs a step of n ranks: lateness beyond it is a straggler's, named or not.

    >>> [round(v, 2) for v in latest_spread(Tail(0.0, 1.2816, 1.2816), 2)]
    [0.4, 0.72]
    >>> round(latest_spread(Tail(0.0, 1.2816, 1.2816), 1025)[0], 1)
    3.2
    """
    if n < 2:
        return 0.0, 0.0
    narrow = math.sqrt((n - 1) / n)
    values = [tail.at(z) * narrow for z in ORDER_Z]

    def moments(k: int) -> tuple[float, float]:
        weights = _order_weights(n, k)
        mass = math.fsum(weights)
        mean = math.fsum(w * v for w, v in zip(weights, values)) / mass
        return mean, math.fsum(w * (v - mean) ** 2 for w, v in zip(weights, values)) / mass

    top, top_var = moments(n)
    low, low_var = moments((n + 1) // 2)
    high, high_var = moments(n // 2 + 1)
    return top - (low + high) / 2, math.sqrt(top_var + (low_var + high_var) / 4)


def beyond_jitter(latest: Sequence[float], counts: Sequence[int], tail: Tail, alpha: float = ALPHA) -> float:
    """How much later, on average over the steps, the latest rank on time was than chance makes the latest of as
    many (`latest[j]`: how much later than their median, of `counts[j]` ranks; `latest_spread`): lateness no single
    rank-step shows beyond the floor (a straggler too small or too short-lived to be named, a moving one), which
    costs the step all the same. 0 unless the mean passes what the mean of as many steps of chance passes with
    probability alpha, its spread the larger of chance's and the steps' own (a fitted tail reads the latest of many
    ranks a few percent off, and the steps' spread holds that): jitter alone costs nothing beyond itself.

    >>> t = Tail(0.0, 1.2816, 1.2816)
    >>> beyond_jitter([0.9, 0.8, 1.0] * 10, [4] * 30, t), round(beyond_jitter([3.0, 2.6, 3.2], [4] * 3, t), 2)
    (0.0, 2.04)
    """
    if not latest or tail.sigma <= 0.0:
        return 0.0
    expected = [latest_spread(tail, n) for n in counts]
    beyond = [v - e for v, (e, _) in zip(latest, expected)]
    excess = math.fsum(beyond) / len(beyond)
    model = math.fsum(sd * sd for _, sd in expected) / len(beyond)
    seen = math.fsum((b - excess) ** 2 for b in beyond) / (len(beyond) - 1) if len(beyond) > 1 else 0.0
    spread = math.sqrt(max(model, seen) / len(beyond))
    return excess if excess > -_NORMAL.inv_cdf(alpha) * spread else 0.0


TABLE_Z = 12.0
"""How far out, in a normal's standard deviations, a heavy tail's quantiles are tabled to be read back (`Tail.z_of`):
a chance of 1e-33, far below any level a test is run at."""


@lru_cache(maxsize=64)
def _table(tail: Tail) -> tuple[list[float], list[float]]:
    """A heavy tail's quantiles at 4,097 evenly spaced z from -TABLE_Z to TABLE_Z, for `Tail.z_of` to read back
    between them (its inverse has no closed form)."""
    zs = [-TABLE_Z + 2 * TABLE_Z * k / 4096 for k in range(4097)]
    return zs, [tail.at(z) for z in zs]


MEAN_ATOMS = 128
"""How many atoms at most a distribution of sums is laid on to add draws of it exactly (`mean_needed`)."""
_LOW_Z, _HIGH_Z = -2.33, 8.5
"""A deviation's atoms run from its 1 % quantile (what lies below is rounded up to it: a sum's upper tail barely
moves) to the quantile of a normal's 8.5 (chance beyond: 1e-17, far below any level a test is run at)."""
_SKIPPED = 1e-22
"""An atom's chance below which `Atoms.plus` adds nothing of it: a test's level is 1e-12 at the least."""
_NEGLIGIBLE = 1e-17
"""Chance at a sum's ends left to its end atoms (the lower end rounded up, the upper end's rounded down by no more
than this), so that the atoms cover where a sum lies, not where it could."""


@dataclass(frozen=True)
class Atoms:
    """A distribution laid on atoms `low + (m + 1 / 2) * step` with chances `mass` (each value moved to the middle
    of its atom's span, by half a step at most either way), and the chance `far` of a value beyond them all (taken
    as past any bound: a heavy tail far out, where atoms evenly spaced would be too coarse to read)."""

    low: float
    step: float
    mass: tuple[float, ...] = field(repr=False)
    far: float = 0.0

    @staticmethod
    def of_sorted(ordered: Sequence[float]) -> Atoms:
        """The distribution of some sorted values (an empirical one: nothing beyond the largest), on MEAN_ATOMS atoms
        from their 1 % quantile (what lies below is rounded up to it) to their largest.

        >>> a = Atoms.of_sorted([float(v) for v in range(101)])
        >>> round(a.above(0.05), 1), a.above(0.0)
        (95.4, 100.0)
        """
        total = len(ordered)
        if not total:
            return Atoms(-1.0, 1.0, (1.0,))
        low, high = quantile(ordered, 0.01), ordered[total - 1]
        if not high > low:
            return Atoms(high - 1.0, 1.0, (1.0,))
        step = (high - low) / MEAN_ATOMS
        below = _counts_upto(ordered, [low + (m + 1) * step for m in range(MEAN_ATOMS)])
        below[-1] = total
        return Atoms(low, step, tuple(c / total for c in [below[0], *map(sub, below[1:], below[:-1])]))

    def coarser(self, factor: int) -> Atoms:
        """The same distribution on atoms `factor` times as far apart (each span's middle is the middle of the spans
        it joins)."""
        if factor == 1:
            return self
        mass = [math.fsum(self.mass[m : m + factor]) for m in range(0, len(self.mass), factor)]
        return Atoms(self.low, self.step * factor, tuple(mass), self.far)

    def plus(self, other: Atoms) -> Atoms:
        """The distribution of a draw of each added (their atoms made as far apart first), kept to MEAN_ATOMS atoms."""
        step = max(self.step, other.step)
        a, b = self.coarser(round(step / self.step)), other.coarser(round(step / other.step))
        summed = [0.0] * (len(a.mass) + len(b.mass) - 1)
        width = len(b.mass)
        for i, p in enumerate(a.mass):
            if p > _SKIPPED:
                summed[i : i + width] = map(add, summed[i : i + width], scaled(b.mass, p))
        first, last, below = 0, len(summed) - 1, summed[0]
        while below < _NEGLIGIBLE and first < last:
            first += 1
            below += summed[first]
        over = summed[last]
        while over < _NEGLIGIBLE and last > first:
            last -= 1
            over += summed[last]
        kept = summed[first : last + 1]
        kept[0], kept[-1] = below, over if last > first else below
        far = 1.0 - (1.0 - a.far) * (1.0 - b.far)
        out = Atoms(a.low + b.low + step * (0.5 + first), step, tuple(kept), far)
        while len(out.mass) > MEAN_ATOMS:
            out = out.coarser(2)
        return out

    def above(self, p: float) -> float:
        """The least value that the distribution passes with chance at most p (inf when its far values alone
        pass p): the top of the span of the atom where the chance above first passes p."""
        left = self.far
        if left > p:
            return math.inf
        for m in range(len(self.mass) - 1, -1, -1):
            left += self.mass[m]
            if left > p:
                return self.low + (m + 1) * self.step
        return self.low


def _counts_upto(ordered: Sequence[float], edges: Sequence[float]) -> list[int]:
    """How many sorted values are at most each edge."""
    if hasattr(ordered, "counts_upto"):
        return list(ordered.counts_upto(edges))
    return [_count_upto(ordered, x) for x in edges]


FAR_Z = (4.0, 5.0, 6.0, 7.0, _HIGH_Z)
"""Where a tail's atoms may stop (a normal's z), the rest taken as far: the nearest that leaves a test's level
room (`mean_needed`)."""


@lru_cache(maxsize=1024)
def _atoms_of(tail: Tail, top: float) -> Atoms:
    """A `Tail` laid on MEAN_ATOMS atoms between the quantiles of _LOW_Z and `top` (below: rounded up to the first;
    beyond: far)."""
    low, high = tail.at(_LOW_Z), tail.at(top)
    if not high > low:
        return Atoms(tail.median - 1.0, 1.0, (1.0,))
    step = (high - low) / MEAN_ATOMS
    below = [1.0 - tail.survival(low + (m + 1) * step) for m in range(MEAN_ATOMS)]
    mass = [below[0], *map(sub, below[1:], below[:-1])]
    return Atoms(low, step, tuple(max(0.0, m) for m in mass), max(0.0, 1.0 - below[-1]))


@lru_cache(maxsize=4096)
def _sum_of(tail: Tail | Atoms, count: int, top: float) -> Atoms:
    """The distribution of the sum of `count` draws (by doubling: a run of 10^4 steps is 14 additions)."""
    one = tail if isinstance(tail, Atoms) else _atoms_of(tail, top)
    if count == 1:
        return one
    half = _sum_of(tail, count // 2, top)
    twice = half.plus(half)
    return twice.plus(one) if count % 2 else twice


@lru_cache(maxsize=4096)
def mean_needed(tail: Tail | Atoms, count: int, p: float) -> float:
    """The mean of `count` independent draws of a deviation that chance passes with probability at most p, found
    by adding the draws' distributions (laid on atoms, each value within half a step of its own; a tail's atoms stop
    at the first of FAR_Z whose chance beyond, over the draws, is a tenth of p, and what lies beyond counts as past
    any bound). Exact where a normal through the mean and spread would not be: a few draws of a skewed or heavy tail,
    far out. `tail` may be `Atoms` already (an empirical distribution).

    >>> tail = Tail(0.0, 1.2816, 1.2816)
    >>> round(mean_needed(tail, 1, 0.001), 1), round(mean_needed(tail, 4, 0.001), 1)
    (3.1, 1.6)
    """
    if count < 1:
        return math.inf
    top = next((z for z in FAR_Z if count * _upper(z) <= p / 10), _HIGH_Z)
    return _sum_of(tail, count, top if isinstance(tail, Tail) else 0.0).above(p) / count


ROUNDS = 8
"""How many times at most `usual_offsets` finds the slow ranks again."""


SCALE_BOUND = 2.0
"""How many standard errors of a spread read on n values (1 / sqrt(2 n) of it) chance's spreads are widened by: a
run of a few dozen rank-steps reads its spread a quarter too narrow one time in forty, and a floor far out in a
narrow tail names stragglers that are not."""
FEW_LATE = 3
"""Rank-steps past the lower side's floor that `bulk_tail` leaves in: so few barely move three quantiles, and a
light tail fitted on a few dozen values passes that many on-time ones now and then."""


def bulk_tail(ordered: Sequence[float], late: int = 0, split: bool = False) -> Tail:
    """`bulk_fit`'s tail with its spreads widened by SCALE_BOUND standard errors of theirs (`scale_bound` of the
    values it was read on): what the tests read, so that a spread read short on few values passes no chance.

    >>> import random
    >>> rng = random.Random(0)
    >>> clean = sorted(rng.gauss(0.0, 1.0) for _ in range(2000))
    >>> moving = sorted(clean + [rng.gauss(8.0, 1.0) for _ in range(600)])
    >>> round(bulk_tail(clean).quantile(0.9), 2), round(bulk_tail(moving).quantile(0.9), 2)
    (1.37, 1.38)
    """
    return widened(*bulk_fit(ordered, late, split))


def widened(fitted: Tail, kept: int) -> Tail:
    """A fit's spreads widened by SCALE_BOUND standard errors of theirs, read on `kept` values (`scale_bound`).

    >>> widened(Tail(0.0, 1.0, 2.0), 50)
    Tail(median=0.0, low=1.2, high=2.4, heavy=0.0)
    """
    wider = scale_bound(kept)
    return replace(fitted, low=fitted.low * wider, high=fitted.high * wider)


def bulk_fit(ordered: Sequence[float], late: int = 0, split: bool = False) -> tuple[Tail, int]:
    """The chance distribution of the deviations (`ordered`: every rank-step's, sorted), fitted on the rank-steps on
    time (`Tail.of`), so that a straggler in every step, however it moves between ranks, never widens its own
    chance, and how many values it was read on. Left out: the `late` largest (the
    suspects a first look found, `first_look`), or, when more, those past the floor (`fdr_floor`) of a normal
    through the lower side of the rest, which no straggler reaches (a light tail that far out leaves out a
    rank-step on time or two at most, and the three quantiles do not move), FEW_LATE of them at least; at most half.

    >>> bulk_fit([float(v) for v in range(101)])
    (Tail(median=50.0, low=40.0, high=40.0, heavy=0.0), 101)
    """
    total = len(ordered)
    most = total // 2
    first = Tail.of(ordered[: total - min(most, late)], skewed=False, heavy=False)
    beyond = total - _count_upto(ordered, fdr_floor(ordered, first, share=ALPHA))
    kept = total - min(most, max(late, beyond if beyond >= FEW_LATE else 0))
    return _truncated_fit(ordered, kept, split), kept


TRUNCATION_ROUNDS = 4
"""How many times `_truncated_fit` reads back how many of the values left out were chance's."""


def _truncated_fit(ordered: Sequence[float], kept: int, split: bool = False) -> Tail:
    """`Tail.of` the `kept` least of sorted values, the values left out above them being late, less those the fit
    itself puts above the largest kept by chance: each round, that many of the values left out are given back at
    the largest kept (the quantiles read below it are then the whole on-time distribution's), at most as many as
    were left out. Without it, a skew taken for lateness (a tenth of a lognormal's upper tail left out) narrows the
    upper side it was taken from, and the latest of many ranks on time looks later than chance.

    >>> import random
    >>> rng = random.Random(1)
    >>> skewed = sorted(rng.lognormvariate(0.0, 0.5) for _ in range(4000))
    >>> whole, cut = Tail.of(skewed), _truncated_fit(skewed, 3880)
    >>> abs(cut.high / whole.high - 1) < 0.03, Tail.of(skewed[:3880]).high / whole.high < 0.95
    (True, True)
    """
    fitted = Tail.of(ordered[:kept], split=split)
    if kept >= len(ordered) or kept < 1:
        return fitted
    cut = ordered[kept - 1]
    for _ in range(TRUNCATION_ROUNDS):
        above = fitted.survival(cut)
        back = min(len(ordered) - kept, round(kept * above / max(1e-12, 1.0 - above)))
        fitted = Tail.of(_Padded(ordered, kept, back), split=split)
    return fitted


class _Padded(Sequence[float]):
    """The `kept` least of sorted values, then `back` more at the largest of them: read by index only (a merge of
    shards reads its pooled values place by place)."""

    def __init__(self, ordered: Sequence[float], kept: int, back: int) -> None:
        self.ordered, self.kept, self.back = ordered, kept, back

    def __len__(self) -> int:
        return self.kept + self.back

    def __getitem__(self, k):  # type: ignore[no-untyped-def]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self.ordered[min(k, self.kept - 1)]


def _count_upto(ordered: Sequence[float], x: float) -> int:
    """How many sorted values are at most x."""
    return ordered.count_upto(x) if hasattr(ordered, "count_upto") else bisect_right(ordered, x)


def _above(ordered: Sequence[float], x: float) -> Sequence[float]:
    """The sorted values above x, in order."""
    return ordered.above(x) if hasattr(ordered, "above") else ordered[bisect_right(ordered, x) :]


DISCOVERY = 0.05
"""The share of a run's late rank-steps that may be chance's once the run as a whole is late beyond chance: a
straggler that moves between ranks leaves dozens of rank-steps each a few spreads out, none far enough to stand
alone at ALPHA over thousands; once they are known not to be chance together, counting them at this false
discovery rate keeps the transient share within a twentieth, where holding them to ALPHA missed most."""


def _stepped_up(ordered: Sequence[float], tail: Tail, level: float) -> int:
    """How many of the largest values Benjamini and Hochberg's step-up rule passes at `level`."""
    total = len(ordered)
    passed = 0
    for k, value in enumerate(reversed(_above(ordered, tail.quantile(1.0 - level))), start=1):
        if value >= tail.above(level * k / total):
            passed = k
    return passed


SCAN_Z = tuple(2.5 + 0.5 * k for k in range(10))
"""Where, in a normal's standard deviations, `late_together` counts the rank-steps beyond chance's quantile."""
MISFIT = 4.0
"""How many times chance's tail, read through three quantiles and a fourth for its heaviness, may put more
rank-steps beyond a quantile than it says: a count of thousands of rank-steps tells a skew or a tail a few
quantiles do not quite follow from lateness, and that is no straggler."""


def late_together(ordered: Sequence[float], tail: Tail, alpha: float = ALPHA, alone: int = 0) -> bool:
    """Whether past some of chance's quantiles (SCAN_Z) a run holds more rank-steps than chance puts there, with a
    chance of `alpha` over them all, the `alone` largest (late one by one) left out: FEW_LATE of them at least,
    against the more of MISFIT times what the tail says and as many as lie as far out below (what the lower side,
    which no straggler reaches, shows of a tail heavier than the fit's). Dozens of rank-steps a few spreads out (a
    straggler that moves between ranks) are late together though none is alone; a few pauses far out are late
    alone, and leave nothing late together; at two ranks a step's deviations are each other's mirror, and none is.

    >>> tail = Tail(0.0, 1.2816, 1.2816)
    >>> late_together([0.0] * 1000, tail), late_together([0.0] * 970 + [3.2] * 30, tail)
    (False, True)
    >>> late_together([0.0] * 998 + [9.0] * 2, tail), late_together([-3.2] * 30 + [0.0] * 940 + [3.2] * 30, tail)
    (False, False)
    """
    total = len(ordered)
    level = alpha / len(SCAN_Z)
    counts = _counts_upto(ordered, [tail.at(z) for z in SCAN_Z])
    mirrored = _counts_upto(ordered, [math.nextafter(tail.at(-z), -math.inf) for z in SCAN_Z])
    return any(
        binomial_above(total - alone, total - count - alone, min(1.0, max(MISFIT * _upper(z), low / total))) <= level
        for z, count, low in zip(SCAN_Z, counts, mirrored)
        if total - count - alone >= FEW_LATE
    )


def fdr_floor(
    ordered: Sequence[float],
    tail: Tail,
    alpha: float = ALPHA,
    share: float = DISCOVERY,
    together: bool = False,
    centred: Tail | None = None,
    heavier: Tail | None = None,
) -> float:
    """The deviation beyond which rank-steps are late beyond chance, for a whole run at once (`ordered`: every
    rank-step's, sorted). Rank-steps late one by one: the step-up rule of Benjamini and Hochberg at level `alpha`
    (with nothing late, noise alone passes it in one run in 1/alpha, at the tail's 1 - alpha / count quantile).
    Rank-steps late together (`late_together`, at level `alpha`, the ones late alone left out): the same rule at
    the false discovery rate `share`, so that a share `share` at most of the rank-steps counted late are chance's;
    `together` when that is already known (`rounds.tops_late`: each step's latest rank leads beyond chance). `centred`:
    the tail the second rule reads, when `tail` is one as far out as chance may reach (`as_far_as_read`): the
    first rule and the test hold a run's false alarms to `alpha`, the second counts a share of rank-steps, whose
    false discoveries an estimate centred on chance holds to `share` as well as any. `heavier`: the tail the first
    rule reads instead of `tail` (`guarded`), the test still reading `tail` (a tail heavier than the fit's is there
    read from the lower side).

    >>> tail = Tail(0.0, 1.2816, 1.2816)
    >>> round(fdr_floor([0.0] * 1000, tail), 2), round(fdr_floor([0.0] * 900 + [4.0] * 100, tail), 2)
    (4.75, 3.72)
    >>> moving = [0.0] * 970 + [3.2] * 30
    >>> round(fdr_floor(moving, tail), 2), round(fdr_floor(moving, tail, share=ALPHA), 2)
    (2.97, 4.75)
    """
    total = len(ordered)
    if not total:
        return 0.0
    lone = heavier or tail
    late = _stepped_up(ordered, lone, alpha)
    alone = lone.above(alpha * max(1, late) / total)
    if share <= alpha or not (together or late_together(ordered, tail, alpha, late)):
        return alone
    found = centred or tail
    return min(alone, found.above(share * max(1, _stepped_up(ordered, found, share)) / total))


ON_TIME_ABOVE = 0.5
"""Storey's lambda (`tops_floor`): the steps whose latest rank's chance is above it are read as steps whose latest
rank is on time, each such chance counting for 1 / (1 - lambda) steps."""
TOPS_ROUNDS = 4
"""How many times `tops_floor` reads again how many steps' latest ranks are on time, and the chance of each through
it."""
TOPS_MOST = 4096
"""Steps `tops_floor` reads at most (every k-th beyond): its cut is a deviation, which every step is held to."""


def below_as_one_of(h: float, n: int, on_time: float) -> float:
    """F(x), the chance that one on-time draw lies below x, from H(x), the share of the steps' ranks *but their
    latest* that lie below it, when a share `on_time` of the steps have their latest rank on time too. In such a step
    the others are the n - 1 least of n draws, below x with chance (n F - F^n) / (n - 1); in a step whose latest rank
    is late, they are n - 1 draws, below x with chance F. Both increase with F, so H(x) has one F, found by halving.

    >>> round(below_as_one_of(0.5, 4, 0.0), 6), round(below_as_one_of(0.5, 4, 1.0), 3)
    (0.5, 0.38)
    """
    low, high = 0.0, 1.0
    for _ in range(48):
        f = (low + high) / 2
        if (1.0 - on_time) * f + on_time * (n * f - f**n) / (n - 1) < h:
            low = f
        else:
            high = f
    return (low + high) / 2


def top_chance(x: float, others: Tail, n: int, on_time: float) -> float:
    """The chance that the latest of a step's n ranks, all on time, lies x or more above the mean of the others: one
    minus F(x)^n, F read through `below_as_one_of` from `others`, the deviations of the steps' ranks but their latest
    (`Found.costed`), a share `on_time` of the steps having their latest on time.

    At two ranks `others` is what the two ranks' gap would be without a straggler (`mirrored_noise`): the latest
    leads the other by x or more when that gap is that far from 0 either way.

    >>> others = Tail(0.0, 1.2816, 1.2816)
    >>> round(top_chance(1.0, others, 4, 1.0), 3), round(top_chance(3.0, others, 4, 0.0), 4)
    (0.778, 0.0054)
    >>> round(top_chance(1.96, others, 2, 1.0), 3)
    0.05
    """
    if n == 2:
        return min(1.0, 2.0 * others.survival(x))
    return 1.0 - below_as_one_of(1.0 - others.survival(x), n, on_time) ** n


def tops_floor(tops: Sequence[float], others: Tail, n: int, level: float = DISCOVERY) -> float:
    """The deviation from which a step's latest rank is late, once the latest ranks lead beyond chance
    (`rounds.tops_late`: a straggler that moves): the step-up rule of Storey, Taylor and Siegmund over the steps
    (each step's latest rank's deviation `tops`, its chance `top_chance`) at the false discovery rate `level`, with
    the share of steps whose latest is on time read from the chances themselves (those above ON_TIME_ABOVE), and that
    share read again TOPS_ROUNDS times, since it also says what the ranks but the latest are (`below_as_one_of`).
    Never more steps than that share leaves late: where nearly every step's latest is late, the rule's level grows
    until it passes them all, the few on time too, and the share of steps named would be off by theirs. Infinite
    when no step is named.

    A straggler that moves among 4 ranks, about two spreads of the others' deviations late, is late alone in few
    steps (the floor is held to ALPHA over every rank-step), and Benjamini and Hochberg's rule over the steps named a
    third of them: it holds the false discoveries to `level` as if every step could be on time, where almost none
    is. Reading that share first names the steps whose latest is late as a group.

    >>> import random
    >>> rng = random.Random(4)
    >>> others = Tail(0.0, 1.2816, 1.2816)
    >>> moving = [rng.gauss(2.5, 1.0) for _ in range(60)]
    >>> clean = [max(rng.gauss(0.0, 1.0) for _ in range(4)) + 0.4 for _ in range(60)]
    >>> sum(x >= tops_floor(moving, others, 4) for x in moving), tops_floor(clean, others, 4)
    (56, inf)
    """
    read = list(tops[:: -(-len(tops) // TOPS_MOST)]) if tops else []
    m = len(read)
    if not m or n < 2:
        return math.inf
    read.sort(reverse=True)
    on_time, named = 1.0, 0
    for _ in range(TOPS_ROUNDS):
        chances = [top_chance(x, others, n, on_time) for x in read]
        above = sum(p > ON_TIME_ABOVE for p in chances)
        bound = min(m, (1 + above) / (1.0 - ON_TIME_ABOVE))
        late = m - min(m, round(above / (1.0 - ON_TIME_ABOVE)))
        named = min(late, max((k for k, p in enumerate(chances, start=1) if p <= level * k / bound), default=0))
        on_time = bound / m
    return read[named - 1] if named else math.inf


def student_upper(t: float, dof: int) -> float:
    """A Student's t of `dof` degrees of freedom's chance above t >= 0 (closed forms for whole degrees).

    >>> round(student_upper(2.0, 1), 4), round(student_upper(2.0, 4), 4), round(student_upper(3.0, 30), 5)
    (0.1476, 0.0581, 0.00269)
    """
    theta = math.atan(t / math.sqrt(dof))
    c2 = math.cos(theta) ** 2
    if dof % 2:
        term, total = 1.0, 1.0 if dof > 1 else 0.0
        for k in range(3, dof, 2):
            term *= c2 * (k - 1) / k
            total += term
        inside = (2 / math.pi) * (theta + (math.sin(theta) * math.cos(theta) * total if dof > 1 else 0.0))
    else:
        term, total = 1.0, 1.0
        for k in range(2, dof, 2):
            term *= c2 * (k - 1) / k
            total += term
        inside = math.sin(theta) * total
    return max(0.0, (1.0 - inside) / 2)


PREDICTIVE_FROM = 200
"""Degrees of freedom from which chance's spread is taken as known (a Student's t that far out is a normal within
a few percent)."""


def scale_bound(kept: int) -> float:
    """How much `bulk_tail` widens chance's spreads read on `kept` values: SCALE_BOUND standard errors of a spread.

    >>> round(scale_bound(50), 2)
    1.2
    """
    return 1.0 + SCALE_BOUND / math.sqrt(2.0 * max(1, kept))


def predictive(tail: Tail, dof: int, p: float) -> Tail:
    """Chance's tail widened for a spread read on few values: as far out as the chance p, by how much further a
    Student's t of `dof` degrees of freedom lies than a normal (a new draw against a spread estimated from
    dof + 1 draws is such a t), beyond what `bulk_tail` already widened it by (`scale_bound`). A run of four ranks
    and three steps reads its spread on a dozen deviations, and a dozen normal draws are often a third narrower
    than their distribution: a floor taken as known named an on-time rank-step in one such clean run in fourteen.

    >>> round(predictive(Tail(0.0, 1.0, 1.0), 7, 1e-4).low, 2), predictive(Tail(0.0, 1.0, 1.0), 500, 1e-4).low
    (1.24, 1.0)
    """
    if dof >= PREDICTIVE_FROM or p <= 0.0 or tail.sigma <= 0.0:
        return tail
    dof = max(1, dof)
    z = -_NORMAL.inv_cdf(p)
    wider = student_above(p, dof) / z / scale_bound(dof)
    if wider <= 1.0:
        return tail
    return replace(tail, low=tail.low * wider, high=tail.high * wider)


def as_far_as_read(tail: Tail, count: int) -> Tail:
    """Chance's tail as far out as what was read of it on `count` values may put it: its skew one standard error up
    (SKEW_ERROR). A floor thousands of rank-steps out extrapolates the three quantiles the skew is read from: taken
    as it comes, the skew is read short half the time, and the floor with it (a clean run of a shared CPU's noise at
    cv 0.5, 4 ranks x 200 steps, counted a transient straggler one time in eight). From HEAVY_FROM values, as the
    heaviness: on fewer, a skew's standard error is no longer small, and one carried a floor thousands of spreads
    out (a dozen values put it at three steps' length), where `predictive` already widens it for the values it was
    read on.

    >>> round(as_far_as_read(Tail(0.0, 1.0, 1.0), 400).high, 3), as_far_as_read(Tail(0.0, 1.0, 1.0), 99).high
    (1.109, 1.0)
    """
    if count < HEAVY_FROM or tail.low <= 0.0 or tail.high <= 0.0:
        return tail
    return replace(tail, high=tail.high * math.exp(SKEW_ERROR / math.sqrt(count)))


GUARDED_DOF = 4
"""The heaviest tail a run's floor is held for until its own lower tail rules it out (`guarded`): a Student's t of
this many degrees of freedom (its variance finite, its far quantiles several times a normal's)."""
GUARDED_RATE = 10
"""How many times ALPHA the false alarms of such a tail may reach (`guarded`): the floor holds a Student's t of
GUARDED_DOF to ten times the rate it holds the fitted tail to, the share of runs a verdict may be wrong in."""


def student_above(p: float, dof: int) -> float:
    """Where a Student's t of `dof` degrees of freedom lies that a draw passes with chance p (0 < p < 1/2).

    >>> round(student_above(0.025, 4), 3), round(student_above(0.1, 30), 3)
    (2.776, 1.31)
    """
    low, high = 0.0, 1.0
    while student_upper(high, dof) > p and high < 1e12:
        high *= 10
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if student_upper(middle, dof) > p else (low, middle)
    return high


def _student_density(t: float, dof: int) -> float:
    """A Student's t's density at t."""
    half = (dof + 1) / 2
    return math.exp(math.lgamma(half) - math.lgamma(dof / 2) - half * math.log1p(t * t / dof)) / math.sqrt(
        dof * math.pi
    )


def lighter_than_student(ordered: Sequence[float], median: float) -> bool:
    """Whether sorted deviations' lower tail is lighter than a Student's t of GUARDED_DOF beyond doubt: at the
    furthest quantile of HEAVY_AT with HEAVY_BEYOND values beyond it, nearer the median than such a t through the
    median and the 10 % quantile puts it, by SCALE_BOUND standard errors of that quantile read on these values (the
    lower side, which no straggler reaches). A few hundred values tell a t from a normal at the 2 % quantile; fewer
    cannot, whatever they show.

    >>> import random
    >>> rng = random.Random(3)
    >>> normal = sorted(rng.gauss(0.0, 1.0) for _ in range(2000))
    >>> lighter_than_student(normal, 0.0), lighter_than_student(normal[::10], 0.0)
    (True, False)
    """
    count = len(ordered)
    readable = heavy_readable(count)
    if not readable:
        return False
    p = readable[-1]
    unit = (median - quantile(ordered, Q_LOW)) / student_above(Q_LOW, GUARDED_DOF)
    far = student_above(p, GUARDED_DOF)
    wander = math.sqrt(p * (1 - p) / count) / _student_density(far, GUARDED_DOF) * unit
    return quantile(ordered, p) - (median - far * unit) > SCALE_BOUND * wander


def guarded(tail: Tail, ordered: Sequence[float], p: float) -> Tail:
    """Chance's tail made as heavy as needed for its quantile of chance p to lie where a Student's t of GUARDED_DOF
    with the same upper spread puts that of GUARDED_RATE times p, unless the lower tail of the deviations `ordered` is
    lighter than such a t's (`lighter_than_student`): a tail read light on a hundred values is as likely a heavy
    one's, and a floor extrapolated as a normal's five spreads out is passed by such a tail's on-time values in one
    run in six.

    >>> tail = Tail(0.0, 1.2816, 1.2816)
    >>> round(guarded(tail, [-1.0, 0.0, 1.0] * 30, 1e-5).above(1e-5), 2), round(tail.above(1e-5), 2)
    (10.89, 4.27)
    """
    if tail.high <= 0.0 or not 0.0 < p < 1.0 / (2 * GUARDED_RATE) or lighter_than_student(ordered, tail.median):
        return tail
    scale = tail.high / student_above(Q_LOW, GUARDED_DOF)
    target = scale * student_above(GUARDED_RATE * p, GUARDED_DOF)
    z = -_NORMAL.inv_cdf(p)
    now = tail.above(p) - tail.median
    if now <= 0.0 or target <= now or z <= Z:
        return tail
    return replace(tail, heavy=tail.heavy + 2.0 * math.log(target / now) / (z * z - Z * Z))


def run_floor(ordered: Sequence[float], tail: Tail, late: int, steps: int, together: bool = False) -> float:
    """The run's floor (`fdr_floor`, `together` as there) against chance's tail as far as it may reach
    (`as_far_as_read`; centred for the share of late rank-steps once some are) and widened for the values it was
    read on (`predictive`: the rank-steps less the `late` ones taken from the top and one a step, which its
    reference takes), rank-steps late alone held to it made as heavy as a tail not yet read light may be
    (`guarded`).

    >>> tail = Tail(0.0, 1.2816, 1.2816)
    >>> few, many = [0.0] * 12, [0.0] * 9000
    >>> run_floor(few, tail, 0, 3) > fdr_floor(few, tail), run_floor(many, tail, 0, 3) > fdr_floor(many, tail)
    (True, True)
    """
    total = len(ordered)
    dof, p = total - late - steps, ALPHA / max(1, total)
    far = predictive(as_far_as_read(tail, dof), dof, p)
    return fdr_floor(
        ordered, far, together=together, centred=predictive(tail, dof, p), heavier=guarded(far, ordered, p)
    )


OFFSET_QUANTILE = 0.25
"""A rank's usual place is its lower quartile over steps: a rank late in up to three steps of four keeps the place
of its steps on time, and the quartile's own bias, the same for every rank, cancels between them."""
OFFSET_Z = 3.0
"""How many of its own standard errors a rank's usual place must lie above the ranks' median place to be taken out
of what chance is fitted on (`usual_offsets`)."""
QUARTILE_ERROR = math.sqrt(OFFSET_QUANTILE * (1 - OFFSET_QUANTILE)) / _NORMAL.pdf(_NORMAL.inv_cdf(OFFSET_QUANTILE))
"""A lower quartile's standard error over n draws of a normal, times the square root of n, in its sigma (1.36)."""


def iqr_sigmas(n: int) -> float:
    """How many standard deviations the interquartile range of n normal draws spans on average, as `quantile` reads
    it (between the two nearest sorted places; Blom's expected order statistics). Three draws span half their
    range, 0.87 of a standard deviation, not a normal's 1.35: read with the large-sample ratio, a rank's spread over
    a 3-step window is taken for two thirds of what it is, and a rank on time for a slow one.

    >>> round(iqr_sigmas(3), 2), round(iqr_sigmas(10_000), 2)
    (0.87, 1.35)
    """
    if n < 2:
        return math.inf

    def expected(p: float) -> float:
        at = p * (n - 1)
        low = math.floor(at)
        high = min(low + 1, n - 1)
        return _blom(low, n) + (_blom(high, n) - _blom(low, n)) * (at - low)

    return expected(0.75) - expected(0.25)


@dataclass(frozen=True)
class Place:
    """A rank's usual place over the steps (its lower quartile of its value minus the step's median), its spread
    there (the interquartile range), and how much of a step's place it carries into the next (`lag_one`)."""

    offset: float
    spread: float
    serial: float = 0.0


def rank_places(
    by_step: Sequence[Sequence[float]], medians: Iterable[float] | None = None, fan: Fan = map
) -> list[Place]:
    """Each rank's usual place (entry i of each step is rank i; `medians`: each step's, when its ranks are not all
    here, as in a shard). The medians are taken a range of steps at a time, the quartiles a range of ranks at a
    time, through `fan` (`storage.Fan`).

    >>> [p.offset for p in rank_places([[10.0, 20.0, 12.0], [11.0, 21.0, 11.0], [9.0, 19.0, 13.0], [10.0, 20.0, 12.0]])]
    [-2.5, 7.5, 0.0]
    """
    if not by_step:
        return []
    ranks = len(by_step[0])
    if medians is None:
        middles = list(chain.from_iterable(fan(partial(_medians_of, by_step), ranges(len(by_step), ranks))))
    else:
        middles = list(medians)
    return list(chain.from_iterable(fan(partial(_places_of, by_step, middles), ranges(ranks, len(by_step)))))


def _medians_of(by_step: Sequence[Sequence[float]], steps: range) -> list[float]:
    return [median(by_step[j]) for j in steps]


def _places_of(by_step: Sequence[Sequence[float]], middles: Sequence[float], some: range) -> list[Place]:
    """`rank_places` of some ranks (a range of entries), from their slice of every step."""
    low, high = some.start, some.stop
    centred = [array("d", map(sub, row[low:high], repeat(m, high - low))) for row, m in zip(by_step, middles)]
    by_rank = Transposed(centred, "d")
    out = []
    for i in range(high - low):
        series = by_rank.at(i)
        ordered = sorted(series)
        spread = quantile(ordered, 0.75) - quantile(ordered, 0.25)
        out.append(Place(quantile(ordered, OFFSET_QUANTILE), spread, lag_one(series)))
    return out


def usual_offsets(places: Sequence[Place], steps: int) -> list[float]:
    """What is taken out of each rank's work before chance is fitted: the usual place of a rank persistently
    slower than the others beyond what its quartile's own noise allows (OFFSET_Z standard errors, from the other
    ranks' median spread), as its excess over the other ranks' median place (found again until the slow ones hold:
    with two slow of four, the median place of all lies halfway); nothing of any other rank. Two slow ranks of four
    would otherwise make the two on time look early by all their lateness (against a median of the others that holds
    them), and chance bimodal; while a rank's own noise over a few steps, taken out, would make chance narrower
    than it is. Steps that carry their places over (`serial_of`) count as the independent steps they are worth
    (`effective_steps`): read as independent, every rank's wandering would be an offset, and chance too narrow.

    >>> usual_offsets([Place(0.0, 2.0), Place(0.2, 2.0), Place(9.0, 2.0), Place(-0.1, 2.0)], 8)
    [0.0, 0.0, 9.0, 0.0]
    """
    if not places or steps < 1:
        return [0.0] * len(places)
    worth = effective_steps(steps, serial_of(places, steps))
    slow: set[int] = set()
    for _ in range(ROUNDS):
        others = [p for i, p in enumerate(places) if i not in slow]
        base = median([p.offset for p in others])
        sigma = median([p.spread for p in others]) / iqr_sigmas(steps)
        cut = base + OFFSET_Z * QUARTILE_ERROR * sigma / math.sqrt(worth)
        found = {i for i, p in enumerate(places) if p.offset > cut}
        if found == slow:
            break
        slow = found
    return [p.offset - base if i in slow else 0.0 for i, p in enumerate(places)]


def adjusted(
    work: Sequence[Sequence[float]],
    usual: Sequence[float],
    medians: Sequence[float] | None = None,
    base: float = 0.0,
) -> Sequence[Sequence[float]]:
    """Each step's work with each rank's usual offset taken out (the work itself when there is none), down to where
    the ranks on time usually are at most: the step's median (`medians`: each step's, when its ranks are not all
    here, as in a shard) plus their median place over it (`base`, `on_time_place`). A rank slow from some step on
    was on time before it, and its steps there, taken out too, would lie an offset below every rank on time: a
    lower tail no chance has, where chance's heaviness is read.

    >>> [list(row) for row in adjusted([[20.0, 40.0], [20.0, 21.0]], [0.0, 19.0], [20.0, 20.0])]
    [[20.0, 21.0], [20.0, 20.0]]
    """
    slow = tuple(i for i, u in enumerate(usual) if u)
    if not slow:
        return work
    middles = medians if medians is not None else [median(done) for done in work]
    return Adjusted(work, slow, tuple(usual[i] for i in slow), middles, base)


class Adjusted(RowsWhenRead[array]):
    """Each step's work with the slow ranks' usual offsets taken out (`adjusted`), a step made when read: a copy of
    every step held while chance is measured would take 8 bytes a rank-step (800 MB at 10^8 rank-steps) for the few
    ranks it changes, and a row is copied in one C pass."""

    def __init__(
        self,
        work: Sequence[Sequence[float]],
        slow: tuple[int, ...],
        offsets: tuple[float, ...],
        middles: Sequence[float],
        base: float,
    ) -> None:
        self.work, self.slow, self.offsets, self.middles, self.base = work, slow, offsets, middles, base

    def __len__(self) -> int:
        return len(self.work)

    def row(self, j: int) -> array:
        """Step j's work, the slow ranks' offsets taken out."""
        done = self.work[j]
        row = array("d", done)
        top = self.middles[j] + self.base
        for i, offset in zip(self.slow, self.offsets):
            row[i] = max(done[i] - offset, min(done[i], top))
        return row


def on_time_place(places: Sequence[Place], usual: Sequence[float]) -> float:
    """Where the ranks on time usually are against each step's median: the median place `usual_offsets` measured
    the slow ones' offsets from.

    >>> on_time_place([Place(-10.0, 1.0), Place(10.0, 1.0)], [0.0, 20.0])
    -10.0
    """
    return next((p.offset - u for p, u in zip(places, usual) if u), 0.0)


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
        return above_or_not(values, middle, answers[0], answers[1])
    return below_at_above(values, middle, *answers)


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


SUSPECT = 4.5
"""How many standard deviations of a rank's work a rank-step must lie above its step's lower median for chance's fit
to leave it out from the top (`bulk_tail`'s `late`), whatever N: a rank on time taken for a late one there narrows
chance, and a run of three steps reads its distances below the median on three values only."""
REFERENCE_SUSPECT = 4.0
"""How many a rank-step must lie above it to be left out of the reference its step's other ranks are measured
against (`Reference`, `first_look`): fewer than SUSPECT. A straggler the look misses sits in its step's reference and
makes the ranks on time there look early, by its lateness over N - 1; with two of four ranks late in a step, each
sits in the other's reference and the ranks on time read early by as much as a sleep: a heavy lower tail, which lifted
a busy run's floor to 524 ms against steps of 31, past every slowed rank-step (tests/fixtures/heldout2,
`c_busy_random23_b`). A rank on time left out costs its step's reference one of N - 1 ranks, and chance's fit keeps
it. At 3 and 3.5 spreads that run was read right too, but at 3 two ranks slow together by chance on shared cores
(2-3 times the others) were no longer each other's reference and one read late (`noise/random`, step 41)."""


@dataclass(frozen=True)
class Reference:
    """What a step's deviations are measured against: the work of its `count` ranks that a first look found on
    time (every rank but the `suspects`), by its sum (`total`). A rank's deviation is its work minus the mean of the
    *other* ranks on time. Against a middle that held late ones, the ranks on time would look early (with two late
    of four, by all the lateness), and chance would take them for its own tail; and against a mean rather than a
    median, a step's deviations are its ranks' draws of chance recentred, not their spacings (with four ranks, the
    median of the others makes the second least deviation minus the third: a narrow middle, wide sides).

    >>> Reference.of([10.0, 11.0, 30.0, 31.0], (2, 3)).deviations([10.0, 11.0, 30.0, 31.0]).tolist()
    [-1.0, 1.0, 19.5, 20.5]
    """

    count: int
    total: float
    suspects: frozenset[int] = frozenset()

    @staticmethod
    def of(done: Sequence[float], suspects: Iterable[int] = ()) -> Reference:
        """A step's reference, from its work and the entries left out (all of them kept when none would be
        left)."""
        gone = frozenset(suspects)
        if len(done) - len(gone) < 1:
            gone = frozenset()
        kept = list(compress(done, (i not in gone for i in range(len(done))))) if gone else done
        return Reference(len(kept), math.fsum(kept), gone)

    @property
    def mean(self) -> float:
        """The mean work of the ranks on time."""
        return self.total / self.count

    def deviations(self, done: Sequence[float], start: int = 0) -> array[float]:
        """The deviations of some of the step's entries (`done`: their work, the first being entry `start`): of a
        rank on time, its work minus the others' mean, `w n / (n - 1) - total / (n - 1)`, increasing with its work
        (0 for the one rank on time of a step whose others are all late: it has nobody to be late against)."""
        others = self.count - 1
        if others < 1:
            return self._suspects_against_mean(array("d", bytes(8 * len(done))), done, start)
        return self._suspects_against_mean(affine(done, self.count / others, self.total / others), done, start)

    def _suspects_against_mean(self, out: array[float], done: Sequence[float], start: int) -> array[float]:
        """The deviations with each suspect's set to its work minus the mean of the ranks on time."""
        if self.suspects:
            mean = self.mean
            for i in self.suspects:
                if start <= i < start + len(done):
                    out[i - start] = done[i - start] - mean
        return out


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
        entries = array("i", where_at_least(row, cutoff))
        return Top(cutoff, entries, gathered(row, entries, "d"))

    def past(self, floor: float) -> tuple[int, ...] | None:
        """The entries past the floor (`past`), or None when some may lie below the cutoff.

        >>> Top.of([0.5, 3.0, -1.0, 4.5], 2).past(3.5), Top.of([0.5, 3.0, -1.0, 4.5], 2).past(1.0)
        ((3,), None)
        """
        if floor < self.cutoff:
            return None
        return tuple(i for i, v in zip(self.entries, self.values) if floor < v)


def top_kept(ranks: int) -> int:
    """How many of a step's largest deviations `rounds.beyond_chance` keeps while the floor is not known: a step with
    more entries past it is measured again, so this bounds memory, not the answer.

    >>> top_kept(8), top_kept(100_000)
    (16, 1562)
    """
    return max(KEPT, ranks // 64)


def below_places(n: int) -> tuple[int, ...]:
    """The sorted places of a step of n ranks that `lower_look` reads: its lower median's, and the middle ones of
    the places under it.

    >>> below_places(4), below_places(9), below_places(2)
    ((1, 0, 0), (4, 1, 2), (0,))
    """
    h = (n - 1) // 2
    return (h,) if h == 0 else (h, (h - 1) // 2, h // 2)


def lower_look(n: int, at: Mapping[int, float], skip: int = 0) -> tuple[float, float]:
    """A step's lower median (the middle of its n works, the lower one of two) and how far below it the median of
    the places under it lies (nan with none), from its sorted works at `below_places(n)`, each `skip` places on (the
    works not measured, lowest of all, left out).

    >>> lower_look(4, {0: 9.0, 1: 10.0}), lower_look(4, {1: 9.0, 2: 10.0}, skip=1)
    ((10.0, 1.0), (10.0, 1.0))
    """
    places = below_places(n)
    lower = at[places[0] + skip]
    if len(places) == 1:
        return lower, math.nan
    return lower, lower - (at[places[1] + skip] + at[places[2] + skip]) / 2


def _below(
    work: Sequence[Sequence[float]],
    steps: range,
    kept: Sequence[int] | None = None,
    unmeasured: Sequence[int] | None = None,
) -> list[tuple[float, float]]:
    """Some steps' `lower_look`, of their `kept` least measured works when given (0: not asked, nan), the
    `unmeasured` least of each step (works that are not a positive number) left out."""
    out = []
    for j in steps:
        skip = unmeasured[j] if unmeasured is not None else 0
        m = len(work[j]) - skip if kept is None else kept[j]
        if m <= 0:
            out.append((math.nan, math.nan))
            continue
        ranked = sorted(work[j])
        out.append(lower_look(m, ranked, skip))  # type: ignore[arg-type]
    return out


LEAD_NEGLIGIBLE = 1e-18
"""A pooled value's weight in `expected_lead` (against the largest's) below which it and those under it are left
out: where n values put their second largest that low by a chance this small, it moves no lead."""


def expected_lead(pooled: Sequence[float], n: int) -> float:
    """How far the largest of n of the sorted values `pooled` lies ahead of the second largest, on average over every
    set of n of them (a U-statistic: over the m values drawn from one distribution, the unbiased estimate of its n
    draws' lead). The second largest at the k-th value (from 0) leaves C(k, n - 2) sets below it and the largest any
    of the values above, so the sum runs down the values once, with sums of those above.

    >>> expected_lead([0.0, 1.0, 3.0], 2), expected_lead([0.0, 1.0, 3.0], 3), expected_lead([1.0, 2.0], 3)
    (2.0, 2.0, 0.0)
    """
    m = len(pooled)
    if m < n or n < 2:
        return 0.0
    shift = pooled[m - 1]
    above = 0.0
    weights, leads = [], []
    w = 1.0
    for k in range(m - 1, n - 3, -1):
        g = pooled[k] - shift
        count = m - 1 - k
        weights.append(w * count)
        leads.append(w * (above - g * count))
        above += g
        if k == 0:
            break
        w *= (k - (n - 2)) / k
        if w < LEAD_NEGLIGIBLE:
            break
    norm = math.fsum(weights)
    return math.fsum(leads) / norm if norm > 0.0 else 0.0


def sum_parts(values: Sequence[float]) -> tuple[float, float, float]:
    """A sum as three doubles whose own sum is exact but for a part in 2^-150 (`math.fsum` rounds once): sums of
    parts of the values so added give `math.fsum` of every value, but in a near tie (a merge of shards adds its
    shards' this way).

    >>> sum_parts([1e16, 1.0, -1e16, 1e-16])
    (1.0, 1e-16, 0.0)
    """
    first = math.fsum(values)
    second = math.fsum([*values, -first])
    return first, second, math.fsum([*values, -first, -second])


@dataclass(frozen=True)
class Lead:
    """A step's latest work (`first`, of entry `entry`), the next (`second`) and the third (`third`) among its ranks
    not left out, each rank's usual offset taken out, with their sum (exact parts, `sum_parts`) and count
    (`leads_of`): what `rounds.tops_late` tests. A merge of shards joins its shards' (`joined`)."""

    first: float
    second: float
    entry: int
    total: tuple[float, ...]
    count: int
    third: float = -math.inf

    def joined(self, other: Lead) -> Lead:
        """The three latest of two disjoint sets of ranks (entries already the run's ranks), and their sum.

        >>> Lead(9.0, 5.0, 2, (14.0,), 2).joined(Lead(7.0, 1.0, 6, (8.0,), 2))
        Lead(first=9.0, second=7.0, entry=2, total=(14.0, 8.0), count=4, third=5.0)
        """
        high, low = (self, other) if self.first >= other.first else (other, self)
        below = sorted((high.second, high.third, low.first, low.second), reverse=True)
        return Lead(high.first, below[0], high.entry, self.total + other.total, self.count + other.count, below[1])

    @property
    def mean(self) -> float:
        """The mean work of the ranks not left out, offsets taken out."""
        return math.fsum(self.total) / self.count if self.count else 0.0


def _placed(row: Sequence[float], offsets: Sequence[float]) -> array[float]:
    """A step's works, each rank's usual offset taken out."""
    return array("d", map(sub, row, offsets))


def _kept(row: array[float], gone: frozenset[int]) -> array[float]:
    """A row but the entries left out (the row itself when none is)."""
    return without_places(row, gone) if gone else row


def leads_of(
    work: Sequence[Sequence[float]], offsets: Sequence[float], gone: frozenset[int], steps: range
) -> list[Lead]:
    """Some steps' `Lead` among the entries not `gone` (entries are places in the row: a shard's rows hold its own
    ranks).

    >>> leads_of([[10.0, 14.0, 11.0, 30.0]], [0.0, 1.0, 0.0, 0.0], frozenset({3}), range(1))
    [Lead(first=13.0, second=11.0, entry=1, total=(34.0, 0.0, 0.0), count=3, third=10.0)]
    """
    out = []
    for j in steps:
        row = _placed(work[j], offsets)
        kept = _kept(row, gone)
        if gone:
            row = array("d", row)
            for i in gone:
                row[i] = -math.inf
        first = max(row, default=-math.inf)
        entry = row.index(first) if kept else -1
        second, third = (heapq.nlargest(3, row) + [-math.inf] * 3)[1:3]
        out.append(Lead(first, second, entry, sum_parts(kept), len(kept), third))
    return out


LEAD_POOLED = 250_000
"""The most rank-steps `expected_lead` is read on: past it, those of every k-th step only (`pool_stride`), an unbiased
sample of them, 8 MB at most (10^8 rank-steps pooled as floats would take gigabytes)."""


def pool_stride(rank_steps: int) -> int:
    """Every how many steps `recentred` pools a step's works, for at most about LEAD_POOLED of them.

    >>> pool_stride(4 * 60), pool_stride(10**8)
    (1, 400)
    """
    return max(1, -(-rank_steps // LEAD_POOLED))


def recentred(
    work: Sequence[Sequence[float]],
    offsets: Sequence[float],
    gone: frozenset[int],
    leads: Sequence[Lead],
    stride: int,
    steps: range,
) -> list[float]:
    """Some steps' works not `gone`, each rank's usual offset taken out, against their mean over the step (`leads`,
    every rank's), scaled by sqrt(n / (n - 1)) back to the spread of one draw (a mean of n holds one n-th of each):
    the values `expected_lead` draws from; of every `stride`-th step only (`pool_stride`).

    >>> work, none = [[9.0, 10.0, 11.0, 10.0]], frozenset()
    >>> [round(v, 3) for v in recentred(work, [0.0] * 4, none, leads_of(work, [0.0] * 4, none, range(1)), 1, range(1))]
    [-1.155, 0.0, 1.155, 0.0]
    """
    out: list[float] = []
    for j in steps:
        n = leads[j].count
        if n < 2 or j % stride:
            continue
        wider = math.sqrt(n / (n - 1))
        out += affine(_kept(_placed(work[j], offsets), gone), wider, wider * leads[j].mean)
    return out


def lead_beyond_chance(leads: Sequence[Lead], pooled: Sequence[float]) -> bool:
    """Whether the steps' latest ranks lead the next ones by more than chance makes the latest of as many lead
    (`rounds.tops_late`): by their spacings in each step (`Spaced`), or by their mean lead against `expected_lead`
    over the values pooled (`recentred`, sorted; `Led`). Steps of fewer than three ranks are left out.

    >>> pooled = [float(v) for v in range(-20, 21)]
    >>> even = [Lead(20.0 + k % 3, 19.0 + k % 3, 0, (0.0,), 4) for k in range(30)]
    >>> far = [Lead(40.0 + k % 3, 10.0, 0, (0.0,), 4) for k in range(30)]
    >>> lead_beyond_chance(even, pooled), lead_beyond_chance(far, pooled)
    (False, True)
    """
    return leads_beyond(Spaced.of(leads), Led.of(leads, pooled))


def leads_beyond(spaced: Spaced, led: Led) -> bool:
    """Whether either reading of the steps' leads is beyond chance: the gate `rounds.tops_late` opens.

    >>> leads_beyond(Spaced(10, 10), NO_LED), leads_beyond(Spaced(8, 8), Led(2.0, 2.43, 8))
    (True, False)
    """
    return spaced.beyond or led.beyond


@dataclass(frozen=True)
class Led:
    """How much further each step's latest rank leads the next than chance makes the latest of as many lead, over
    the steps read (those of three ranks or more): the mean excess (`mean`, in the work's unit) against
    `expected_lead` over the values pooled, its Student's t on the excesses' own spread, and how many steps."""

    mean: float
    t: float
    read: int

    @staticmethod
    def of(leads: Sequence[Lead], pooled: Sequence[float]) -> Led:
        """The excess over some steps' `Lead` (`pooled`: `recentred`, sorted).

        >>> pooled = [float(v) for v in range(-20, 21)]
        >>> Led.of([Lead(40.0 + k % 3, 10.0, 0, (0.0,), 4) for k in range(30)], pooled).t > 20
        True
        """
        some = [lead for lead in leads if lead.count >= 3]
        if len(some) < 2:
            return NO_LED
        expected = {n: expected_lead(pooled, n) for n in {lead.count for lead in some}}
        seen = [lead.first - lead.second - expected[lead.count] for lead in some]
        mean = math.fsum(seen) / len(seen)
        spread = math.sqrt(math.fsum((v - mean) ** 2 for v in seen) / (len(seen) - 1))
        t = mean / (spread / math.sqrt(len(seen))) if spread > 0.0 else 0.0
        return Led(mean, t, len(seen))

    def chance(self, steps: int | None = None) -> float:
        """The chance of a t as large over the steps read, or over `steps` as clear (the same mean and spread, so a
        t larger by the root of their ratio): a Student's t's one-sided, 1 where the steps do not lead more."""
        if self.t <= 0.0 or self.read < 2:
            return 1.0
        steps = steps or self.read
        return student_upper(self.t * math.sqrt(steps / self.read), steps - 1)

    @property
    def beyond(self) -> bool:
        """Whether the steps lead by more than chance: at ALPHA, on three steps at least."""
        return self.read >= 3 and self.chance() <= ALPHA

    def more_steps(self, most: int = UNDECIDED_WINDOW) -> int | None:
        """How many more steps as clear would make the lead beyond chance (`Spaced.more_steps`'s rule: None when it
        is already, when chance gives such a lead in more than one window of HINT_CHANCE, or past `most` times as
        many steps as were read). The chance falls as steps are added, so the least is found by halving.

        >>> [Led(2.0, t, 8).more_steps() for t in (2.43, 1.0, 6.0)]
        [11, None, None]
        """
        if self.read < 3 or self.beyond or self.chance() > HINT_CHANCE:
            return None
        low, high = 0, (most - 1) * self.read
        if self.chance(self.read + high) > ALPHA:
            return None
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (low, mid) if self.chance(self.read + mid) <= ALPHA else (mid, high)
        return high


NO_LED = Led(0.0, 0.0, 0)
"""No lead read (fewer than two steps of three ranks or more)."""


SPACED_MOST = 8
"""The most ranks a step may have for `spaced_beyond_chance` to read it: up to 8 draws, the lead passes twice the
next spacing in at most half the steps for Student's t down to 3 degrees of freedom (0.50) and for a lognormal of
cv 0.5 (0.49); among more draws a tail heavier than exponential (Student's t of 64 draws: 0.54) passes it more
often. Among more ranks a straggler is a small share of the values `expected_lead` pools, and that test reads it."""


def spaced_beyond_chance(leads: Sequence[Lead]) -> bool:
    """Whether each step's latest rank leads the next by more than twice the next's lead over the third in more
    steps than chance allows, whatever chance's shape. The top spacings of n draws, each times its place from the top
    (the lead, twice the next spacing), are independent draws of one exponential under an exponential tail (Renyi's
    representation), so the first passes the second in half the steps; a lighter tail (normal, bounded) passes it
    less often, and so does a heavier one among a few draws (SPACED_MOST). So a straggler that moves from rank to
    rank is read from the spacings of each step, not against values it is pooled with: at 4 ranks a quarter of
    them are its own. A binomial test against one half at ALPHA, on the steps of 3 to SPACED_MOST ranks whose second
    and third latest differ.

    >>> even = [Lead(3.0 + k % 2, 2.0, 0, (0.0,), 4, 1.0) for k in range(12)]
    >>> ahead = [Lead(9.0, 2.0, 0, (0.0,), 4, 1.0 + k % 2 / 2) for k in range(12)]
    >>> spaced_beyond_chance(even), spaced_beyond_chance(ahead)
    (False, True)
    """
    return Spaced.of(leads).beyond


@dataclass(frozen=True)
class Spaced:
    """How many of the steps `spaced_beyond_chance` reads (`read`: 3 to SPACED_MOST ranks, the second and third
    latest apart) have their latest rank lead the next by more than twice the next's lead over the third
    (`spaced`)."""

    spaced: int
    read: int

    @staticmethod
    def of(leads: Sequence[Lead]) -> Spaced:
        """The count over some steps' `Lead`.

        >>> ahead, close = Lead(9.0, 2.0, 0, (0.0,), 4, 1.0), Lead(3.0, 2.0, 0, (0.0,), 4, 1.0)
        >>> Spaced.of([ahead, close, Lead(9.0, 2.0, 0, (0.0,), 2)])
        Spaced(spaced=1, read=2)
        """
        told = [lead for lead in leads if 3 <= lead.count <= SPACED_MOST and lead.second > lead.third > -math.inf]
        return Spaced(sum(lead.first - lead.second > 2.0 * (lead.second - lead.third) for lead in told), len(told))

    @property
    def beyond(self) -> bool:
        """Whether more of the steps read are spaced than chance allows: a binomial test against one half at ALPHA,
        on three steps at least."""
        return self.read >= 3 and _spaced_chance(self.spaced, self.read) <= ALPHA

    def more_steps(self, most: int = UNDECIDED_WINDOW) -> int | None:
        """How many more steps, as many of them spaced as of these (the same share, rounded down), would make the
        count beyond chance; None when it is already, when chance gives as many spaced in more than one window of
        HINT_CHANCE (3 of 3 steps: one in eight; steps as clear would tell a straggler from chance, but so many
        clean windows saying so would say nothing), or when it would take more than `most` times as many steps as
        were read.

        >>> [Spaced(k, m).more_steps() for k, m in ((8, 8), (6, 6), (7, 8), (4, 8), (10, 10), (3, 3), (5, 6))]
        [2, 4, 13, None, None, None, None]
        """
        if self.read < 1 or _spaced_chance(self.spaced, self.read) > HINT_CHANCE or self.beyond:
            return None
        for more in range(1, (most - 1) * self.read + 1):
            steps = self.read + more
            if steps >= 3 and _spaced_chance(self.spaced * steps // self.read, steps) <= ALPHA:
                return more
        return None


HINT_CHANCE = 0.05
"""The most chance of a window's evidence that its steps' latest ranks lead (`Spaced.more_steps`, `Led.more_steps`)
for the verdict to say how many more steps as clear would tell a straggler that moves: one clean window in twenty
says it at most."""
NO_SPACED = Spaced(0, 0)
"""No step read by the spacing test (fewer than three ranks or steps)."""


def _spaced_chance(spaced: int, read: int) -> float:
    """The chance that at least `spaced` of `read` steps are spaced where each is with chance one half at most."""
    return binomial_above(read, spaced, 0.5)


def mirrored_noise(gaps: Sequence[float]) -> list[float]:
    """What the gaps between two ranks would be without a straggler that moves between them (`mirrored_gaps`, once
    `mirrored_beyond_chance`), sorted: each gap's distance from the gaps' mean less the median distance (the
    straggler's usual lead), which leaves the two draws' own difference. What chance is fitted on at two ranks,
    where the rank on time has no other to be weighed against.

    >>> mirrored_noise([10.0, -11.0, 12.0, -9.0, 10.5])
    [-2.0, -1.5, 0.0, 2.0, 4.0]
    """
    if not gaps:
        return []
    apart = _apart(gaps)
    usual = median(apart)
    return [round(a - usual, 12) for a in apart]


def _apart(gaps: Sequence[float]) -> list[float]:
    """Each gap's distance from the gaps' mean, sorted."""
    centre = math.fsum(gaps) / len(gaps)
    return sorted(abs(g - centre) for g in gaps)


def count_needed(steps: int, moving_pair: bool = False, alpha: float = ALPHA) -> int:
    """How many of `steps` a persistent straggler is over the threshold in at least: a strict majority (`majority`);
    with `moving_pair` (two ranks, a straggler moving between them: `mirrored_beyond_chance`), more than a fair coin
    gives at `level_of` two ranks, since each of the two is then late in about half the steps and one more by chance
    makes a majority.

    >>> count_needed(200), count_needed(200, True), count_needed(59, True)
    (101, 125, 44)
    """
    if not moving_pair:
        return majority(steps)
    level = level_of(2, alpha)
    return next((k for k in range(majority(steps), steps + 1) if binomial_above(steps, k, 0.5) <= level), steps + 1)


MIRRORED_NEAR = 0.25
"""The least share of a step's gaps between two ranks that lie within half their median distance of the gaps'
mean, whatever chance's shape (`mirrored_beyond_chance`): a gap symmetric and unimodal about its centre (the
difference of two ranks' independent draws of one unimodal law) has its distance from the centre of decreasing
density, so at least half of the half under the median lies in its first half. The least is a uniform gap's."""


def mirrored_gaps(leads: Sequence[Lead]) -> list[float]:
    """Each step's latest work less the other's, of a run of two ranks, signed by which rank is latest (+ for the
    first step's latest): the gap between the two ranks, step by step (`Lead` entries are indices in a process,
    ranks in a merge of shards; either way two values).

    >>> mirrored_gaps([Lead(9.0, 5.0, 1, (14.0,), 2), Lead(8.0, 7.0, 0, (15.0,), 2)])
    [4.0, -1.0]
    """
    if not leads:
        return []
    first = leads[0].entry
    return [(lead.first - lead.second) * (1.0 if lead.entry == first else -1.0) for lead in leads]


def mirrored_beyond_chance(gaps: Sequence[float], alpha: float = ALPHA) -> bool:
    """Whether the gaps between two ranks stay away from their centre more steps than chance allows: a straggler
    that moves between two ranks. At two ranks a step's deviations mirror each other, so no rank's value can be
    weighed against the others'; but without a straggler the gap between two ranks' draws of one law is symmetric
    and unimodal about its mean, so at least MIRRORED_NEAR of the steps lie within half the median distance of it.
    A straggler late by d in every step, now one rank now the other, puts the gaps about +d and -d and few near
    their mean. A binomial test at `alpha` of how few lie near, on the steps that many are worth when a gap carries
    into the next (`lag_one`, `effective_steps`): a straggler that changes rank halfway is two persistent ones, not
    a moving one. Needs 25 steps at least at ALPHA (three quarters of the steps far 25 times is one chance in 1,300).

    >>> import random
    >>> rng = random.Random(3)
    >>> mirrored_beyond_chance([rng.gauss(0.0, 1.0) for _ in range(60)])
    False
    >>> mirrored_beyond_chance([(-1) ** k * 20.0 + rng.gauss(0.0, 1.0) for k in range(60)])
    True
    >>> mirrored_beyond_chance([(-1) ** k * 20.0 + rng.gauss(0.0, 1.0) for k in range(8)])
    False
    """
    count = len(gaps)
    if count < 3:
        return False
    apart = _apart(gaps)
    half = median(apart) / 2.0
    if not half > 0.0:
        return False
    near = bisect_left(apart, half)
    worth = effective_steps(count, max(0.0, lag_one(gaps)))
    near = near * worth // count
    return binomial_above(worth, worth - near, 1.0 - MIRRORED_NEAR) <= alpha


OCCUPIED_MOST = 256
"""The most steps `occupied_beyond_chance` reads, every k-th one past it (`occupancy_stride`): its exact law adds
big integers, as many as the square of the steps read."""


def occupancy_stride(steps: int) -> int:
    """Every how many steps the occupancy test reads one, for at most OCCUPIED_MOST of them.

    >>> occupancy_stride(60), occupancy_stride(1000)
    (1, 4)
    """
    return max(1, -(-steps // OCCUPIED_MOST))


@lru_cache(maxsize=1024)
def occupied_at_least(steps: int, n: int, k: int, occupied: int) -> float:
    """The chance that k of `steps` groups of n places, drawn at random, fall in `occupied` groups or more: the ways
    to fill exactly t given groups counted by inclusion and exclusion, in exact integers.

    >>> occupied_at_least(12, 4, 12, 12) == 4**12 / math.comb(48, 12), occupied_at_least(3, 2, 2, 1)
    (True, 1.0)
    """
    ways = 0
    for t in range(max(occupied, 1), min(steps, k) + 1):
        filled = sum((-1) ** i * math.comb(t, i) * math.comb(n * (t - i), k) for i in range(t + 1))
        ways += math.comb(steps, t) * filled
    return ways / math.comb(steps * n, k)


def top_places(
    work: Sequence[Sequence[float]],
    offsets: Sequence[float],
    gone: frozenset[int],
    k: int,
    stride: int,
    steps: range,
) -> list[tuple[float, int]]:
    """Some steps' k largest works of the entries not `gone`, each rank's usual offset taken out, each with its step
    (of every `stride`-th step only): what `occupied_beyond_chance` reads.

    >>> top_places([[1.0, 9.0, 2.0], [8.0, 3.0, 7.0]], [0.0] * 3, frozenset({1}), 2, 1, range(2))
    [(8.0, 1), (7.0, 1)]
    """
    read = range(steps.start + -steps.start % stride, steps.stop, stride)
    return heapq.nlargest(k, ((value, j) for j in read for value in _kept(_placed(work[j], offsets), gone)))


def occupied_beyond_chance(tops: Sequence[tuple[float, int]], steps: int, n: int) -> bool:
    """Whether the k largest of a run's works (`tops`, each with its step; k the `steps` read, each of `n` works
    of ranks not crowded) fall in more distinct steps than k places drawn at random do, at ALPHA
    (`occupied_at_least`). Drawn at random is how any noise places a run's largest works when its rank-steps are
    alike, whatever its shape; a straggler in every step, whichever rank it moves to, puts one of them in each step.
    A shared slowness that makes some steps slower than others puts them in fewer. So no pooled value and no
    fitted tail enters it: at 4 ranks the k largest fall in about 70 % of the steps by chance, and in every one of
    12 steps 2 times in 10,000. Steps of 3 to SPACED_MOST ranks: among more, a moving straggler is a small share
    of the pool, and the mean lead reads it (`lead_beyond_chance`).

    >>> occupied_beyond_chance([(9.0 - j / 100, j) for j in range(12)], 12, 4)
    True
    >>> occupied_beyond_chance([(9.0 - j / 100, j // 2) for j in range(12)], 12, 4)
    False
    """
    if not 3 <= n <= SPACED_MOST or steps < 3 or len(tops) < steps:
        return False
    return occupied_at_least(steps, n, len(tops), len({j for _, j in tops})) <= ALPHA


def crowded_count(suspects: int, ranks: int) -> int:
    """How many of `suspects` rank-steps one rank of `ranks` must hold to hold more than chance gives it, if each
    were any rank's alike: the least count whose binomial upper tail (`binomial_above`) is at most ALPHA / ranks
    (every rank tested), found by halving.

    >>> crowded_count(40, 4), crowded_count(0, 4)
    (21, 1)
    """
    if suspects < 1 or ranks < 2:
        return suspects + 1
    low, high = 1, suspects + 1
    while low < high:
        middle = (low + high) // 2
        if binomial_above(suspects, middle, 1.0 / ranks) <= ALPHA / ranks:
            high = middle
        else:
            low = middle + 1
    return low


def crowded(counts: Mapping[int, int], ranks: int) -> frozenset[int]:
    """The ranks (of `counts`: how many of a first look's suspects each holds) that hold more than chance gives one
    rank of `ranks` (`crowded_count`): a rank slow from some step on, not one that moves.

    >>> sorted(crowded({0: 30, 1: 3, 2: 4}, 4))
    [0]
    """
    cut = crowded_count(sum(counts.values()), ranks)
    return frozenset(r for r, c in counts.items() if c >= cut)


def without_top(
    ordered: array[float], reference: Reference, done: Sequence[float], raw: Sequence[float], top: int
) -> array[float]:
    """A step's deviations of positive work in order (`ordered`) but its latest rank's (`top`, a suspect of its
    reference): what chance is fitted on when a straggler late at the top of each step is found (`rounds.tops_late`).

    >>> done = [10.0, 11.0, 12.0, 30.0]
    >>> reference = Reference.of(done, (3,))
    >>> without_top(array("d", [-1.0, 0.0, 1.0, 19.0]), reference, done, done, 3).tolist()
    [-1.0, 0.0, 1.0]
    """
    if top < 0 or raw[top] <= 0:
        return ordered
    at = bisect_left(ordered, done[top] - reference.mean)
    return ordered[:at] + ordered[at + 1 :]


def first_look(work: Sequence[Sequence[float]], fan: Fan = map) -> list[tuple[int, ...]]:
    """Each step's suspects: the entries whose work lies further above the step's lower median than REFERENCE_SUSPECT
    times the run's typical distance below it (the median over steps of a step's median distance of its ranks under its
    lower median). The lower median and the ranks under it are on time while no more than half a step's ranks are
    late, so neither a straggler nor its number moves this look; it has only to keep late ranks out of the median
    the others are measured against (a rank on time taken for a suspect costs nothing there). Steps of fewer than
    three ranks have none: a median of one other rank cannot leave a late one out.

    >>> first_look([[10.0, 10.4, 9.8, 10.1]] * 5 + [[10.0, 10.4, 30.0, 31.0]])
    [(), (), (), (), (), (2, 3)]
    """
    width = len(work[0]) if work else 0
    if width < 3:
        return [()] * len(work)
    looked = list(chain.from_iterable(fan(partial(_below, work), ranges(len(work), width))))
    return [suspects_of(done, cut) for done, cut in zip(work, suspect_cuts(looked, width, REFERENCE_SUSPECT))]


def _blom(i: int, n: int) -> float:
    """Where the i-th least of n standard normal draws lies, on average (Blom's approximation)."""
    return _NORMAL.inv_cdf((i + 1 - 0.375) / (n + 0.25))


def below_sigmas(n: int) -> float:
    """How many standard deviations a normal step of n ranks puts its lower median above the middle of the places
    under it (`lower_look`'s distance, on average): what turns that distance into a standard deviation.

    >>> round(below_sigmas(4), 2), round(below_sigmas(1000), 2)
    (0.75, 0.67)
    """
    places = below_places(n)
    return math.nan if len(places) == 1 else _look_distance(places, n)


def _look_distance(places: tuple[int, ...], m: int) -> float:
    """Where a normal step of m ranks puts the first of these sorted places above the middle of the other two, on
    average, in standard deviations (Blom's approximation)."""
    return _blom(places[0], m) - (_blom(places[1], m) + _blom(places[2], m)) / 2


LOOK_MEDIAN_FROM = 8
"""Steps from which `look_spread` can leave out the steps whose lower median is late, measured against the median of
their distances: on fewer, the mean of them all (with four ranks and three steps a median of three distances is
now and then a fifth of their usual size, which makes ranks on time suspects)."""
LOOK_ROUNDS = 4
"""How many times `rounds` reads each step's look again on its ranks on time."""
LOOK_KNOWN = 0.125
"""The standard error, over the spread, within which `rounds` reads the looks again on the ranks on time: a cut
REFERENCE_SUSPECT spreads up, read two standard errors narrow, then still lies three spreads up. Read less well (4
ranks: fewer than about 40 steps), a spread read narrow by chance leaves ranks on time out of the looks, which then
read it narrower still (a window of 8 steps of Student's noise left half its rank-steps out)."""


@lru_cache(maxsize=4096)
def _look_shape(m: int) -> tuple[float, float]:
    """For a look over m values: what a normal puts between its lower median and the places under it
    (`below_sigmas`), and where its lower median lies (`_blom`), in standard deviations."""
    if m < 1:
        return math.nan, 0.0
    return below_sigmas(m), _blom(below_places(m)[0], m)


def majority_late(share: float, n: int, steps: int) -> bool:
    """Whether a run whose rank-steps are late in this share has steps with their lower median late, by the
    binomial count of late ranks in a step of n: more than n - 1 - (n - 1) // 2 of them, in one step at least on
    average. A clean run has none (a few rank-steps in a thousand late at most); a random straggler in a third of
    the rank-steps of 4 ranks has 3 or 4 late in a step of twelve.

    >>> majority_late(0.003, 4, 200), majority_late(0.3, 4, 200), majority_late(0.3, 4, 3)
    (False, True, False)
    """
    return steps * binomial_above(n, n - (n - 1) // 2, share) >= 1.0


def look_bias(share: float, n: int) -> float:
    """How much wider than it is a look over every rank of a step reads the spread when this share of the
    rank-steps is late, as a ratio less one: the look's places of n read on the n - k ranks on time (k late, a
    binomial count), over the steps whose lower median is on time: about 0.8 of the share, whatever the number
    of ranks.

    >>> round(look_bias(0.0, 4), 3), round(look_bias(0.25, 4), 2), round(look_bias(0.25, 64), 2)
    (0.0, 0.2, 0.28)
    """
    places = below_places(n)
    if len(places) == 1 or share <= 0.0:
        return 0.0
    if share >= 1.0:
        return 0.0
    term = binomial_terms(n, share)
    total = weight = 0.0
    for k in range(n - places[0]):
        w = term(k)
        total += w * _look_distance(places, n - k)
        weight += w
        if k > n * share and w < _NEGLIGIBLE * weight:
            break
    return total / weight / below_sigmas(n) - 1.0 if weight > 0.0 else 0.0


def look_wander(looked: Sequence[tuple[float, float]], kept: Sequence[int], late_looks: bool = False) -> float:
    """The standard error of `look_spread` over its value, from the distances it reads (0 with fewer than two):
    how far a spread read again may lie from it by chance alone.

    >>> round(look_wander([(0.0, 0.5), (0.0, 1.0), (0.0, 1.5)], [4] * 3), 3)
    0.289
    """
    readings = _held(looked, kept, late_looks)
    if len(readings) < 2:
        return 0.0
    mean = math.fsum(readings) / len(readings)
    spread = math.sqrt(math.fsum((r - mean) ** 2 for r in readings) / (len(readings) - 1))
    return spread / math.sqrt(len(readings)) / mean if mean > 0 else 0.0


def look_spread(looked: Sequence[tuple[float, float]], kept: Sequence[int], late_looks: bool = False) -> float:
    """The run's standard deviation of work on time, from each step's `lower_look` of its `kept` least works: each
    distance over what as many normal draws put there (`below_sigmas`), their mean over the steps (nan: no step
    has places under its lower median). With `late_looks` (`rounds._cuts`), from LOOK_MEDIAN_FROM steps, a step
    whose lower median lies more than REFERENCE_SUSPECT spreads beyond its usual distance (more than half its ranks
    late: its lower median is one of them) is left out, the spread it is measured against read as the median of the
    distances. Not as their mean again: a mean over the steps left in is widened by the late lower medians just
    under the cut, which it then lets in, and with a random straggler 6.7 spreads late in a third of the rank-steps of
    4 ranks it let every such step back in (the spread read 1.85 times what it is, and nothing late).

    >>> round(look_spread([(20.0, 0.75)] * 3, [4] * 3), 3)
    1.0
    >>> round(look_spread([(20.0, 0.75)] * 10 + [(40.0, 20.0)] * 2, [4] * 12, late_looks=True), 3)
    1.0
    """
    readings = _held(looked, kept, late_looks)
    return math.fsum(readings) / len(readings) if readings else math.nan


def _held(looked: Sequence[tuple[float, float]], kept: Sequence[int], late_looks: bool) -> list[float]:
    """The distances `look_spread` reads, each over what as many normal draws put there: every one, or with
    `late_looks` those of the steps whose lower median is on time."""
    seen = [(d, m) for (_, d), m in zip(looked, kept) if d == d]
    readings = [d / _look_shape(m)[0] for d, m in seen]
    if not late_looks or len(readings) < LOOK_MEDIAN_FROM:
        return readings
    spread = median(readings)
    return [r for (d, m), r in zip(seen, readings) if d <= _late_look(m, spread)]


def _late_look(m: int, spread: float) -> float:
    """The distance beyond which a look over m values has a late lower median: REFERENCE_SUSPECT spreads past the
    usual one."""
    return (_look_shape(m)[0] + REFERENCE_SUSPECT) * spread


def suspect_cuts(
    looked: Sequence[tuple[float, float]],
    n: int,
    sigmas: float = SUSPECT,
    kept: Sequence[int] | None = None,
    late_looks: bool = False,
) -> list[float]:
    """Each step's cut above which a rank-step is late to a first look (`first_look`), from its `lower_look` over n
    ranks (over its `kept` least works, when given: the ranks a cut before left on time): its lower median and
    `sigmas` standard deviations (SUSPECT, or REFERENCE_SUSPECT for a reference) of the run's (`look_spread`).
    What lies below the lower median is on time, so no straggler moves it; with `late_looks` (`rounds._cuts`), a
    step whose lower median is itself late (`look_spread`) is read from the places under it, at the usual distance
    below its lower median. A look over fewer ranks than n puts its lower median where fewer draws do: the cut
    lies where n's would.

    >>> [round(c, 2) for c in suspect_cuts([(20.0, 0.5), (21.0, 0.4), (19.0, 0.6)], 4)]
    [23.0, 24.0, 22.0]
    >>> [round(c, 2) for c in suspect_cuts([(20.0, 0.5), (21.0, 0.4), (19.0, 0.6)], 4, REFERENCE_SUSPECT)]
    [22.67, 23.67, 21.67]
    >>> cuts = suspect_cuts([(20.0, 0.75)] * 10 + [(40.0, 20.75)], 4, REFERENCE_SUSPECT, late_looks=True)
    >>> round(cuts[0], 2), round(cuts[-1], 2)
    (24.0, 24.0)
    """
    counts = kept if kept is not None else [n] * len(looked)
    spread = look_spread(looked, counts, late_looks)
    if math.isnan(spread):
        return [math.inf] * len(looked)
    usual = _look_shape(n)[1]
    out = []
    for (lower, d), m in zip(looked, counts):
        below, at = _look_shape(m)
        if late_looks and d == d and d > _late_look(m, spread):
            lower -= d - below * spread
        out.append(lower + (sigmas + usual - at) * spread)
    return out


def suspects_of(done: Sequence[float], cut: float) -> tuple[int, ...]:
    """A step's entries whose work is above the cut.

    >>> suspects_of([20.0, 31.0, 19.5, 40.0], 25.0)
    (1, 3)
    """
    return tuple(where_above(done, cut))


def far_of(done: Sequence[float], suspects: Sequence[int], cut: float) -> tuple[int, ...]:
    """Those of a step's suspects whose work is above a further cut (SUSPECT's, past REFERENCE_SUSPECT's).

    >>> far_of([20.0, 31.0, 19.5, 40.0], (1, 3), 35.0)
    (3,)
    """
    return tuple(i for i in suspects if done[i] > cut)


def with_top(found: Sequence[int], top: int) -> tuple[int, ...]:
    """A step's suspects with its latest rank (`rounds.tops_late`; -1: none) among them, in order.

    >>> with_top((1, 3), 2), with_top((1,), -1)
    ((1, 2, 3), (1,))
    """
    return tuple(sorted({*found, top} - {-1}))


def with_latest(found: Sequence[int], top: int, deviation: float, top_floor: float) -> tuple[int, ...]:
    """A step's entries past the floor (`found`), with its latest rank (`top`) among them when its deviation is at or
    past `top_floor` (`tops_floor`).

    >>> with_latest((1,), 3, 2.5, 2.0), with_latest((1,), 3, 1.5, 2.0)
    ((1, 3), (1,))
    """
    return with_top(found, top) if deviation >= top_floor else tuple(found)


def _deviated(
    work: Sequence[Sequence[float]], raw: Sequence[Sequence[float]], suspects: Sequence[Sequence[int]], steps: range
) -> list[tuple[Top, array[float], Reference]]:
    """Some steps' largest deviations (`Top`: rows of every rank's would hold 8 bytes a rank-step until the floor
    is known), each with the deviations of its positive work in order and its reference. Without suspects that
    order needs no sort of its own: a deviation increases with the work, so the deviations of the works sorted are
    the deviations in order (tests/analysis/test_chance.py). `raw`: the work before any offset was taken out, whose
    sign says whether it was measured."""
    out = []
    for j in steps:
        done = work[j]
        reference = Reference.of(done, suspects[j])
        row = reference.deviations(done)
        positive = _positive(row, raw[j])
        if positive is row and not reference.suspects:
            ordered = reference.deviations(sorted(done))
            out.append((Top.of(row, top_kept(len(row)), ordered), ordered, reference))
        else:
            out.append((Top.of(row, top_kept(len(row))), array("d", sorted(positive)), reference))
    return out


@dataclass(frozen=True)
class Lateness:
    """A rank's lateness over a run's steps: the mean of its deviations (its work minus the mean of the other ranks
    on time, its own offset kept: the offset is what a persistent straggler is) over its `steps`, and what it is at
    least as late as in a strict majority of them (`usual_ms`: a rank late in a few steps only, however late, is no
    later there); its stretch: the steps `first` up to `stop` (indexes) over which it was the furthest beyond one
    spread of chance, with their mean (`stretch_ms`) and majority's (`stretch_usual_ms`): where a rank that became
    slow mid-run was slow; and the means of its deviations before the stretch and after it (`before_ms`,
    `after_ms`: 0 where there are none), which say whether it was on time there; and the least of its deviations
    (`least_ms`, -inf when unknown)."""

    mean_ms: float
    steps: int
    first: int
    stop: int
    stretch_ms: float
    usual_ms: float = 0.0
    stretch_usual_ms: float = 0.0
    before_ms: float = 0.0
    after_ms: float = 0.0
    least_ms: float = -math.inf


def lateness_of(series: Sequence[float], drift: float) -> Lateness:
    """A rank's `Lateness` from its deviations over the steps, its stretch the steps whose deviations' excess over
    `drift` (chance's mean and one spread) adds up to the most (Kadane's maximum sum, in C passes): a rank late from
    some step on, or up to one, gives the steps it was late in.

    >>> late = lateness_of([0.0, 0.1, -0.2, 5.0, 4.8, 5.1, 0.0], drift=1.0)
    >>> round(late.mean_ms, 2), (late.first, late.stop), round(late.stretch_ms, 2), late.usual_ms, late.stretch_usual_ms
    (2.11, (3, 6), 4.97, 0.1, 5.0)
    >>> round(late.before_ms, 2), late.after_ms
    (-0.03, 0.0)
    """
    count = len(series)
    if not count:
        return Lateness(0.0, 0, 0, 0, 0.0)
    sums = list(accumulate(map(sub, series, repeat(drift, count)), initial=0.0))
    lows = list(accumulate(sums, min))
    gains = list(map(sub, islice(sums, 1, None), lows))
    stop = gains.index(max(gains)) + 1
    first = stop - 1 - sums[stop - 1 :: -1].index(lows[stop - 1])
    stretch = list(islice(series, first, stop))
    after = count - stop
    return Lateness(
        math.fsum(series) / count,
        count,
        first,
        stop,
        math.fsum(stretch) / (stop - first),
        _usual(series),
        _usual(stretch),
        math.fsum(islice(series, 0, first)) / first if first else 0.0,
        math.fsum(islice(series, stop, None)) / after if after else 0.0,
        min(series),
    )


def lag_one(series: Sequence[float]) -> float:
    """How much a rank's place in a step (its value against the step's median) carries into the next: their lag-one
    autocorrelation, read so that an AR(1) series of coefficient rho gives about rho. From SERIAL_FROM steps on,
    each place is taken from the rank's mean (which a persistent straggler's offset then leaves alone), and the
    estimate corrected for a short
    series' bias ((n r + 1) / (n - 3): it lies about (1 + 3 rho) / n under rho, Marriott and Pope). Over three or four
    steps, too few to take a mean out, the places are read about 0 (each is already against its step's median),
    scaled by n / (n - 1) for the pair a step fewer. 0 under three steps, or when they do not vary.

    >>> round(lag_one([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), 2), round(lag_one([1.0, -1.0, 1.0, -1.0, 1.0]), 2)
    (1.33, -1.5)
    >>> round(lag_one([1.0, 1.2, 0.9]), 2), lag_one([2.0, 2.0, 2.0, 2.0, 2.0]), lag_one([1.0, 2.0])
    (1.05, 0.0, 0.0)
    """
    count = len(series)
    if count < 3:
        return 0.0
    centre = math.fsum(series) / count if count >= SERIAL_FROM else 0.0
    centred = array("d", map(sub, series, repeat(centre, count)))
    square = math.fsum(map(mul, centred, centred))
    if square <= 0.0:
        return 0.0
    ratio = math.fsum(map(mul, islice(centred, 0, count - 1), islice(centred, 1, None))) / square
    return (count * ratio + 1.0) / (count - 3.0) if count >= SERIAL_FROM else ratio * count / (count - 1.0)


SERIAL_FROM = 5
"""The fewest steps a rank's deviations are taken from their own mean for its serial correlation (`lag_one`): the
correction of that estimate divides by the steps less three."""
SERIAL_Z = 2.0
"""How many standard errors the median of the ranks' serial correlations must be above 0 to be read (`serial_of`):
below, it is what independent steps give by chance, and taken as 0."""
MEDIAN_ERROR = math.sqrt(math.pi / 2)
"""A median's standard error over a mean's, for normal draws (1.25)."""


def lag_one_spread(steps: int) -> float:
    """The standard deviation of `lag_one` over `steps` independent normal draws: the raw lag-one autocorrelation's
    (n - 2)^2 / (n^2 (n - 1)) variance scaled by its bias correction from SERIAL_FROM steps, and below, about 0,
    (n - 1) / (n (n + 2)) scaled by n / (n - 1). What a serial correlation read is weighed against, however alike
    a few ranks' readings happen to be.

    >>> [round(lag_one_spread(n), 2) for n in (3, 4, 5, 8, 30, 200)]
    [0.55, 0.47, 0.75, 0.45, 0.19, 0.07]
    """
    if steps < 3:
        return math.inf
    n = float(steps)
    if steps < SERIAL_FROM:
        return math.sqrt(n / ((n - 1.0) * (n + 2.0)))
    return (n - 2.0) / ((n - 3.0) * math.sqrt(n - 1.0))


def serial_of(places: Sequence[Place], steps: int) -> float:
    """How much a step's lateness carries into the next, for a rank on time: the median over the ranks of their
    serial correlations over `steps` (`Place.serial`, `lag_one`; a straggler's, or a rank slow from some step on,
    left in a minority, moves it little), read when it stands SERIAL_Z of its standard errors above 0, else 0; never
    above SERIAL_MOST. Its standard error is the larger of what the ranks' own spread says and what independent
    steps give (`lag_one_spread`): four ranks whose readings over three steps happen to agree say nothing of the
    steps; 1,024 ranks read it from three steps, four ranks from many. Steps that carry their lateness over (a noisy
    neighbour's phases, a clock drifting) make a rank's mean lateness wander more than as many independent steps do
    (`effective_steps`).

    >>> serial_of([Place(0.0, 1.0, s) for s in (0.6, 0.7, 0.8, 0.65, 0.75)], 200)
    0.7
    >>> serial_of([Place(0.0, 1.0, s) for s in (0.5, 0.6, 0.7, 0.55, 0.65)], 3)
    0.0
    >>> serial_of([Place(0.0, 1.0, s) for s in (-0.5, 0.3, 0.9, 0.1)], 200), serial_of([Place(0.0, 1.0, 0.9)], 200)
    (0.0, 0.0)
    """
    read = sorted(p.serial for p in places)
    if len(read) < 2:
        return 0.0
    middle = median(read)
    seen = (quantile(read, 0.75) - quantile(read, 0.25)) / IQR_SIGMAS
    error = MEDIAN_ERROR * max(seen, lag_one_spread(steps)) / math.sqrt(len(read))
    return min(SERIAL_MOST, middle) if middle > SERIAL_Z * error else 0.0


IQR_SIGMAS = 2 * _NORMAL.inv_cdf(0.75)
"""A normal's interquartile range in its standard deviations (1.35)."""
SERIAL_MOST = 0.95
"""The most serial correlation `effective_steps` reads: past it, a run of any length is one step or two."""


def effective_steps(count: int, serial: float) -> int:
    """How many independent steps a mean over `count` steps is worth when each step's deviation carries `serial` of
    itself into the next (an AR(1) series): count over 1 + 2 sum_k (1 - k / count) serial^k, the variance of such a
    mean against that of as many independent ones; rounded down (a test that counts one step too many passes
    chance's wander more often than it says, one too few is a little slow to decide), one at least.

    >>> effective_steps(30, 0.0), effective_steps(30, 0.7), effective_steps(5, 0.7), effective_steps(3, 0.5)
    (30, 5, 1, 1)
    """
    if serial <= 0.0 or count <= 1:
        return count
    inflation = 1.0 + 2.0 * math.fsum((1.0 - k / count) * serial**k for k in range(1, count))
    return max(1, math.floor(count / inflation + 1e-9))


def _usual(values: Sequence[float]) -> float:
    """What values are at least in a strict majority of them (`majority`-th largest)."""
    return sorted(values)[len(values) - majority(len(values))] if len(values) >= 2 else -math.inf


@lru_cache(maxsize=4096)
def usual_needed(tail: Tail | Atoms, count: int, p: float) -> float:
    """What deviations are at least in a strict majority of `count` of them with probability at most p: the x
    whose chance s above it makes that many of count draws reach it (a binomial tail) at p; `tail` may be `Atoms`
    (an empirical distribution, read at its atoms' tops).

    >>> round(usual_needed(Tail(0.0, 1.2816, 1.2816), 3, 0.001), 2)
    2.09
    """
    need = majority(count)
    if need > count:
        return math.inf
    if isinstance(tail, Atoms):
        chance = tail.far
        for m in range(len(tail.mass) - 1, -1, -1):
            if binomial_above(count, need, chance + tail.mass[m]) > p:
                return tail.low + (m + 1) * tail.step
            chance += tail.mass[m]
        return tail.low
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if binomial_above(count, need, middle) <= p else (low, middle)
    return tail.above(low) if low > 0 else math.inf


def least_needed(tail: Tail, spread: Atoms | None, count: int, p: float) -> float:
    """What the least of `count` deviations is at least with probability at most p: the quantile chance passes with
    probability p ** (1 / count) (each of the draws must pass it), under chance on time and under `spread` when
    known (the larger). A rank that a sleep holds back by the same time in each of a few steps is later than chance
    in every one of them, though its mean is no further out than a few draws of a wide spread reach.

    >>> round(least_needed(Tail(0.0, 1.2816, 1.2816), None, 3, 0.001), 2)
    1.28
    """
    each = p ** (1.0 / count)
    on_time = tail.above(each)
    return on_time if spread is None else max(on_time, spread.above(each))


def usual_of(tail: Tail, spread: Atoms | None, count: int, p: float) -> float:
    """`usual_needed` under chance on time and under every rank-step of the run (`spread`, when known): the larger.

    >>> usual_of(Tail(0.0, 1.0, 1.0), None, 5, 0.001) == usual_needed(Tail(0.0, 1.0, 1.0), 5, 0.001)
    True
    """
    on_time = usual_needed(tail, count, p)
    return on_time if spread is None else max(on_time, usual_needed(spread, count, p))


def _lateness_some(
    work: Sequence[Sequence[float]],
    raw: Sequence[Sequence[float]],
    references: Sequence[Reference],
    drift: float,
    some: range,
) -> list[Lateness]:
    """`lateness_of` for some ranks (a range of entries), from their slice of every step's work and the step's
    reference, what was taken out of each rank-step's work (`adjusted`) given back."""
    low, high = some.start, some.stop
    rows = []
    for done, first, reference in zip(work, raw, references):
        row = reference.deviations(done[low:high], low)
        if done is not first:
            row = array("d", map(add, row, map(sub, first[low:high], done[low:high])))
        rows.append(row)
    by_rank = Transposed(rows, "d")
    return [lateness_of(by_rank.at(i), drift) for i in range(high - low)]


def lateness(
    work: Sequence[Sequence[float]],
    references: Sequence[Reference],
    tail: Tail,
    raw: Sequence[Sequence[float]] | None = None,
    fan: Fan = map,
) -> list[Lateness]:
    """Every rank's `Lateness` (entry i of each step is rank i; a shard's entries are its own, and so are its
    references' suspects), its stretch found beyond chance's mean and one spread, from each step's work (each rank's
    usual offset taken out, `adjusted`, from its `raw` work: what was taken out is given back to each deviation,
    which is then the rank's own work against the others on time) and `Reference`, a range of ranks at a time
    through `fan`.

    >>> work = [[10.0, 10.5, 9.5, 20.0]] * 6
    >>> [round(late.mean_ms, 2) for late in lateness(work, [Reference.of(w, (3,)) for w in work], Tail(0, 1, 1))]
    [0.0, 0.75, -0.75, 10.0]
    """
    if not work:
        return []
    width = len(work[0])
    task = partial(_lateness_some, work, raw if raw is not None else work, references, tail.mean + tail.sd)
    return list(chain.from_iterable(fan(task, ranges(width, len(work)))))


def majority(steps: int) -> int:
    """A strict majority of `steps`, and at least two: the steps a persistent straggler is over the threshold in.

    >>> majority(3), majority(4), majority(1)
    (2, 3, 2)
    """
    return max(2, steps // 2 + 1)


def stretches(steps: int) -> int:
    """How many stretches of consecutive steps a run has: what a stretch's test is corrected for.

    >>> stretches(3)
    6
    """
    return steps * (steps + 1) // 2


@dataclass(frozen=True)
class Persistence:
    """Where a rank is a persistent straggler: the steps `first` up to `stop` (indexes; the whole run, or the
    stretch it was slow in)."""

    first: int
    stop: int


STRETCH_SHARE = 0.25
"""The least share of a run a stretch of lateness must last to make its rank a persistent straggler there: a rank
slow for less is counted with the transient stragglers, step by step (a profiler's start holding a few ranks back
for a few steps is no slow GPU)."""


def shortest_stretch(steps: int, ranks: int, transient: float, alpha: float = ALPHA) -> int:
    """The fewest consecutive steps a stretch needs: STRETCH_SHARE of the run, and more than transient stragglers
    make by chance (with a share `transient` of rank-steps late at random, some rank is late in a strict majority of
    that many steps in a row, somewhere in the run, with probability at most alpha); two at least. More than the
    steps: no stretch can be told from them.

    >>> shortest_stretch(30, 64, 0.1), shortest_stretch(30, 64, 0.0), shortest_stretch(200, 64, 0.0)
    (22, 8, 50)
    >>> shortest_stretch(30, 4, 0.3)
    31
    """
    length = max(2, math.ceil(STRETCH_SHARE * steps))
    if transient <= 0.0:
        return length
    while length <= steps and ranks * steps * binomial_above(length, majority(length), transient) > alpha:
        length += 1
    return length


def transient_share(late: int, own: int, ranks: int, steps: int) -> float:
    """The share of the other ranks' rank-steps past the floor (`late` of the run's, `own` of them the rank's own):
    how often transient stragglers make a rank late, which a stretch must outlast (`shortest_stretch`). A rank's
    own late steps are left out: a rank slow from some step on is past the floor in every step after it, and would
    otherwise make the stretch it must outlast longer than itself.

    >>> transient_share(15, 15, 4, 39), round(transient_share(20, 15, 4, 39), 3)
    (0.0, 0.043)
    """
    return (late - own) / max(1, (ranks - 1) * steps)


@lru_cache(maxsize=256)
def others_spread(spread: Atoms, floor: float, own: int, total: int) -> Atoms:
    """The distribution of every rank-step's deviation (`spread`, of `total` rank-steps) but a rank's `own` past
    the floor: what its majority is weighed against (`persistence`). In the whole spread, a rank slow from mid-run
    makes up the run's late rank-steps itself, four of 32 at four ranks, and three of four draws of the spread that
    late are then chance's: it was never named from its onset. Its own are taken from the atoms past the floor in
    proportion to their mass (the late rank-steps are told apart by count, not by value), and what is left is the
    other ranks' transient stragglers, as `transient_share` counts them.

    >>> spread = Atoms.of_sorted([0.0] * 28 + [10.0] * 4)
    >>> round(spread.above(0.1), 1), round(others_spread(spread, 5.0, 4, 32).above(0.1), 1)
    (10.0, 0.1)
    """
    if own <= 0 or total <= own:
        return spread
    middles = [spread.low + (m + 0.5) * spread.step for m in range(len(spread.mass))]
    late = spread.far + math.fsum(p for x, p in zip(middles, spread.mass) if x > floor)
    gone = min(own / total, late)
    if not late > 0.0 or not gone < 1.0:
        return spread
    kept = 1.0 - gone / late
    mass = tuple((p * kept if x > floor else p) / (1.0 - gone) for x, p in zip(middles, spread.mass))
    return Atoms(spread.low, spread.step, mass, spread.far * kept / (1.0 - gone))


def level_of(ranks: int, alpha: float = ALPHA) -> float:
    """The level each of `persistence`'s tests is run at: alpha over the ranks, halved (its tests read the same
    steps, so that together they pass chance little more often than the two first alone: measured on the verdict's
    grid, 80 clean runs of 8,448 name somebody against 69 with two).

    >>> level_of(4)
    0.000125
    """
    return alpha / (2 * max(1, ranks))


def needed(tail: Tail, spread: Atoms | None, count: int, p: float) -> float:
    """The mean of `count` deviations that chance passes with probability at most p, whether drawn from chance on
    time (`tail`) or from every rank-step of the run (`spread`, when known): the larger (`mean_needed`).

    >>> needed(Tail(0.0, 1.0, 1.0), None, 4, 0.001) == mean_needed(Tail(0.0, 1.0, 1.0), 4, 0.001)
    True
    """
    on_time = mean_needed(tail, count, p)
    return on_time if spread is None else max(on_time, mean_needed(spread, count, p))


def persistence(
    late: Lateness,
    over: Sequence[int],
    ranks: int,
    tail: Tail,
    spread: Atoms | None = None,
    transient: float = 0.0,
    alpha: float = ALPHA,
    serial: float = 0.0,
    others: Atoms | None = None,
    own: int = 0,
    total: int = 0,
    moving_pair: bool = False,
) -> Persistence | None:
    """Whether a rank is a persistent straggler, and where: over the threshold in a strict majority of the steps
    (`over`: the indexes of the steps it is over it in) **and** later than chance by how much, not only how often, by
    any of three tests at alpha / (2 ranks) (`level_of`): what it is at least as late as in a strict majority of its
    steps passes what as many deviations are in a strict majority of them (`usual_of`); or the least of its deviations
    passes what the least of as many is (`least_needed`); or the mean of its deviations passes what the mean of as many
    passes (`needed`); each drawn from chance on time (`tail`) and from the run's rank-steps (with transient
    stragglers, every rank is late now and then, and a persistent one is later than that): for the first two, the
    other ranks' (`others`, `others_spread`: its own late steps would make the majority it must show chance's), for the
    mean, every one (`spread`: a mean carried by a few long pauses of its own is what its own rank-steps give by
    chance). The first holds against transients however large; the second reads a rank held back alike in each step
    of a short window (a sleep), the mean a short window of a noisier one. So a rank twice as slow is named in a
    3-step window, and a rank a little slow needs many steps. A rank slow in a stretch of the run
    only (from some step on, or up to one) is named for that stretch when the stretch passes the same test, corrected
    for every stretch it could have been (`stretches`), is longer than transient stragglers (a share `transient` of the
    rank-steps) make by chance (`shortest_stretch`), and the rest of the run, two steps at least, is on time (one step
    on time says no onset: the first of a profiler's window, counted from its own start, cannot see time lost before
    it). The stretch's majority is weighed against the others' spread with its own majority taken out too: of the
    `total` rank-steps, `others` already lacks the rank's `own` past the floor, and as many more as the majority
    needs are taken from above what the rank is at least as late as there (a rank slow in the last 4 steps of a
    12-step window, two of them short of the floor, made that majority chance's itself). It is said to begin or end
    there only where two steps at least before or after it are on time on their own: a rank slow to the run's end
    whose last step was a little less late is slow to the end, not on time again. Where a step's lateness carries
    into the next (`serial`, `serial_of`), each test counts the steps it reads as the independent steps they are
    worth (`effective_steps`). With `moving_pair` (two ranks, a straggler moving between them: `tops_late`), each
    rank is late in about half the steps, so a rank must be over the threshold in more of them than a fair coin
    gives (`count_needed`).

    >>> tail = Tail(0.0, 1.2816, 1.2816)
    >>> persistence(Lateness(9.0, 3, 0, 3, 9.0), [0, 1, 2], 4, tail)
    Persistence(first=0, stop=3)
    >>> persistence(Lateness(1.0, 3, 0, 3, 1.0), [0, 1, 2], 4, tail) is None
    True
    >>> persistence(Lateness(4.0, 40, 20, 40, 8.0, 0.2, 7.9), list(range(20, 40)), 4, tail)
    Persistence(first=20, stop=40)
    """
    steps = late.steps
    if moving_pair and len(over) < count_needed(steps, True, alpha):
        return None
    level = level_of(ranks, alpha)
    worth = effective_steps(steps, serial)
    usual_spread = spread if others is None else others
    whole = len(over) >= majority(steps) and (
        late.usual_ms > usual_of(tail, usual_spread, worth, level)
        or late.mean_ms > needed(tail, spread, worth, level)
        or late.least_ms > least_needed(tail, usual_spread, worth, level)
    )
    length = late.stop - late.first
    stretch_worth = effective_steps(length, serial)
    inside = sum(late.first <= j < late.stop for j in over)
    rest = steps - length
    stretch_spread = usual_spread
    more = majority(length) - own
    if others is not None and more > 0 and total > own and math.isfinite(late.stretch_usual_ms):
        stretch_spread = others_spread(others, late.stretch_usual_ms, more, total - own)
    stretch = (
        rest >= 2
        and length >= shortest_stretch(steps, ranks, transient, alpha)
        and inside >= majority(length)
        and len(over) - inside < majority(rest)
        and (late.mean_ms * steps - late.stretch_ms * length) / rest < (tail.mean + late.stretch_ms) / 2
        and (
            late.stretch_usual_ms > usual_of(tail, stretch_spread, stretch_worth, level / stretches(steps))
            or late.stretch_ms > needed(tail, spread, stretch_worth, level / stretches(steps))
        )
    )
    if stretch:
        on_time = (tail.mean + late.stretch_ms) / 2
        first = late.first if late.first >= 2 and late.before_ms < on_time else 0
        stop = late.stop if steps - late.stop >= 2 and late.after_ms < on_time else steps
        return Persistence(first, stop)
    return Persistence(0, steps) if whole else None


def steps_to_decide(
    late: Lateness,
    ranks: int,
    tail: Tail,
    spread: Atoms | None = None,
    alpha: float = ALPHA,
    most: int = 100_000,
    serial: float = 0.0,
) -> int | None:
    """How many steps in all would name a rank as late as this one on average (`persistence`'s test of the mean,
    each step worth what `serial` leaves of it), or None when no number of steps would (it is no later than
    chance's mean, or it would take more than `most`).

    >>> steps_to_decide(Lateness(1.0, 3, 0, 3, 1.0), 4, Tail(0.0, 1.2816, 1.2816))
    14
    """
    level = level_of(ranks, alpha)
    if late.mean_ms <= tail.mean:
        return None
    low, high = late.steps, max(1, late.steps)
    while late.mean_ms <= needed(tail, spread, effective_steps(high, serial), level):
        if high >= most:
            return None
        low, high = high, min(most, 2 * high)
    while high - low > 1:
        middle = (low + high) // 2
        passes = late.mean_ms > needed(tail, spread, effective_steps(middle, serial), level)
        low, high = (low, middle) if passes else (middle, high)
    return high


def unmeasured_of(work: Sequence[Sequence[float]], steps: range) -> list[int]:
    """Some steps' count of works that are not a positive number (a rank ready before the previous release: a clock
    that jumped): no measure of chance, and the least of their step's works, whatever offset was taken out.

    >>> unmeasured_of([[1.0, -2.0, 0.0], [3.0, 4.0, 5.0]], range(2))
    [2, 0]
    """
    return [0 if min(work[j], default=1.0) > 0 else sum(1 for w in work[j] if not w > 0) for j in steps]


def _positive(row: Sequence[float], done: Sequence[float]) -> Sequence[float]:
    """A step's deviations of positive work: the row itself when every work is."""
    return row if min(done, default=1.0) > 0 else array("d", picked_where_above(row, done, 0.0))


def pooled_runs(
    by_step: Iterable[Sequence[float]], work: Iterable[Sequence[float]], tops: Iterable[int]
) -> tuple[list[array[float]], list[Sequence[float]]]:
    """Each step's deviations but those of a work that is not a positive number (`rounds.beyond_chance`), sorted a
    step at a time and read as one sorted whole (`storage.SortedRuns`); and the same without the step's entry
    `tops[j]` (-1: none left out): that entry's value left out where it lies in the step's sorted run
    (`storage.LeftOut`), not sorted and held again. The steps are read one at a time (a generator of them is never
    held whole).

    >>> rows, work = [[2.0, 1.0, 3.0], [4.0, 3.0]], [[5.0, 1.0, 1.0], [5.0, 0.0]]
    >>> runs, on_time = pooled_runs(rows, work, [2, 1])
    >>> [list(r) for r in runs], [list(r) for r in on_time]
    ([[1.0, 2.0, 3.0], [4.0]], [[1.0, 2.0], [4.0]])
    """
    runs: list[array[float]] = []
    on_time: list[Sequence[float]] = []
    for row, done, i in zip(by_step, work, tops):
        run = array("d", sorted(_positive(row, done)))
        runs.append(run)
        kept = i >= 0 and (min(done, default=1.0) > 0 or done[i] > 0.0)
        on_time.append(LeftOut(run, bisect_left(run, row[i])) if kept else run)
    return runs, on_time


def past(row: Sequence[float], floor: float) -> tuple[int, ...]:
    """The entries of a step's deviations past the floor.

    >>> past([0.5, 3.0, -1.0, 4.5], 2.0)
    (1, 3)
    """
    return tuple(where_above(row, floor)) if max(row, default=floor) > floor else ()


def cost_tail(
    cost: Sequence[Sequence[float]] | Iterable[Sequence[float]],
    late: Sequence[Sequence[int]],
    usual: Sequence[float],
    fan: Fan = map,
) -> Tail:
    """The chance distribution of an on-time rank-step's cost (each step's costs, entry i is rank i), its rank's
    usual cost (`usual`) taken out, but each step's entries late beyond chance (`late`): what the threshold is
    weighed with. Each step's are sorted a range of steps at a time through `fan` (`storage.Fan`).

    >>> import random
    >>> rng = random.Random(3)
    >>> work = [[rng.gauss(20.0, 0.3) for _ in range(4)] for _ in range(40)] + [[20.0, 20.4, 19.8, 45.0]]
    >>> late = [()] * 40 + [(3,)]
    >>> tail = cost_tail([[max(w) - v for v in w] for w in work], late, [0.0] * 4)
    >>> round(tail.quantile(0.5), 2)
    0.25
    """
    rows = cost if isinstance(cost, Sequence) else list(cost)
    width = len(rows[0]) if rows else 0
    task = partial(_on_time_sorted, rows, late, usual)
    return Tail.of(in_order(list(chain.from_iterable(fan(task, ranges(len(rows), width)))), presorted=True))


def _on_time_sorted(
    cost: Sequence[Sequence[float]], late: Sequence[Sequence[int]], usual: Sequence[float], steps: range
) -> list[array[float]]:
    """Some steps' on-time costs (`on_time_costs`)."""
    return on_time_costs((cost[j] for j in steps), (late[j] for j in steps), usual)


def on_time_costs(
    cost: Iterable[Sequence[float]], late: Iterable[Sequence[int]], usual: Sequence[float]
) -> list[array[float]]:
    """Each step's costs, its rank's usual cost taken out of each, but the entries late beyond chance (`late`, per
    step), sorted a step at a time: what `cost_tail` fits, read as one sorted whole (`storage.SortedRuns`).

    >>> [list(row) for row in on_time_costs([[1.0, 5.0], [3.0, 2.0]], [(1,), ()], [0.5, 1.0])]
    [[0.5], [1.0, 2.5]]
    """
    return [array("d", sorted(row)) for row in _on_time_costs(cost, late, usual)]


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
        """The middle of a column: up to `kept` + 1 values each side of its median (`storage.sorted_places`: the
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


ALONE_MOST = 9
"""The most ranks for which chance is also measured without each rank in turn (`Others`, `rounds.chance_of_others`):
from ten ranks on, one rank holds a tenth of the rank-steps at most, and no longer the 90 % quantile chance's upper
spread is read at; below, a rank slow in a stretch of the run, or a window, does."""


@dataclass(frozen=True)
class Others:
    """Chance measured on every rank but one (`rounds.chance_of_others`): what a rank's stretch is weighed against
    when the run has few ranks (`persistence` of a rank, `ALONE_MOST`), where its own late steps would widen the
    chance it must pass. `tail`: an on-time deviation's distribution; `spread`: every rank-step's deviation of the
    other ranks; `total`: how many rank-steps."""

    tail: Tail
    spread: Atoms
    total: int


@dataclass(frozen=True)
class Chance:
    """How late ranks are by chance in a run (`bulk_tail`): the deviation of an on-time rank-step's work, the floor
    beyond which a rank-step is late (`fdr_floor`), the distribution of an on-time rank-step's cost once its rank's
    usual cost is taken out (what says how often an on-time rank is over a threshold), over `total` rank-steps; and
    each rank's `Lateness` (in rank order), what `persistence` weighs, with `spread`: the distribution of every
    rank-step's deviation, transient stragglers included; `serial`, how much of a step's lateness carries into
    the next (`serial_of`); `leads`, whether each step's latest rank is late beyond chance (`rounds.tops_late`:
    it leads the next by more than chance, or the run's largest works fill more of its steps); `cost_fit`, the
    tail the cost reads when it is not `work` (`rounds.Found.costed`); and `others`, in rank order, chance without
    each rank holding the run's upper tail (`Others`, None for the others: runs of 3 to ALONE_MOST ranks; none
    otherwise); `latest_floor_ms`, where `leads`, the deviation from which a step's latest rank is late when under
    the floor (`tops_floor`; infinite otherwise); `spaced` and `led`, how far the steps' latest ranks lead the next
    (`Spaced`, `Led`: what a window too short to tell a straggler that moves would need)."""

    ranks: int
    work: Tail
    floor_ms: float
    cost: Tail
    total: int
    spread: Atoms = Atoms(-1.0, 1.0, (1.0,))
    serial: float = 0.0
    leads: bool = False
    cost_fit: Tail | None = None
    others: tuple[Others | None, ...] = ()
    latest_floor_ms: float = math.inf
    spaced: Spaced = NO_SPACED
    led: Led = NO_LED

    @property
    def costed(self) -> Tail:
        """The tail the cost's what-if reads (`beyond_jitter`): `cost_fit` where it was fitted apart, `work`
        otherwise."""
        return self.work if self.cost_fit is None else self.cost_fit

    def over_threshold(self, threshold: float, periods: Sequence[float]) -> float:
        """The chance that an on-time rank-step is over the threshold: its cost at least `threshold` of the step's
        period, averaged over the steps."""
        if not periods:
            return 0.0
        return math.fsum(self.cost.survival(threshold * p) for p in periods) / len(periods)
