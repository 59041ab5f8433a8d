"""One step at cluster scale: the exact distribution of the slowest rank, from 8 to 1,000,000 GPUs.

Each rank's compute time is nominal x lognormal jitter x (slowdown s with probability p). The step waits
for the maximum over ranks, whose CDF is the product of the per-rank CDFs: F(x)^(N-k) G(x)^k, with k
persistent slow ranks. No rank is sampled; the CDF is evaluated on a log-spaced grid built once per
configuration, so a sweep over N costs one pass over the grid per N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..base import ConfigError
from ..base.params import (
    ALGORITHM,
    CLUSTER_GPUS,
    CLUSTER_SLOWDOWN,
    JITTER_CV,
    MAX_PHASE_MS,
    PERSISTENT,
    PERSISTENT_SLOWDOWN,
    STRAGGLER_PROB,
    check_number,
)
from .comm import Link, ring_time_ms, tree_time_ms
from .config import Phases

__all__ = [
    "ClusterConfig",
    "ClusterResult",
    "HOURS_PER_DAY",
    "MeasuredTiming",
    "SWEEP_MAX",
    "SWEEP_MIN",
    "cluster_allreduce_ms",
    "any_straggles",
    "cluster_step",
    "cluster_sweep",
    "cluster_sweeps",
    "slowest_rank",
    "sweep_sizes",
]

MAX_CLUSTER_GPUS = int(CLUSTER_GPUS.high)
SIGMA_FLOOR = 1e-9
Z_SPAN = 9.0
GRID_STEP = 1 / 12
COARSE_POINTS = 200
ALGORITHMS = ALGORITHM.choices
SWEEP_MIN = 8
SWEEP_MAX = 1_000_000
SWEEP_POINTS = 41
HOURS_PER_DAY = 24.0


@dataclass(frozen=True)
class MeasuredTiming:
    """A measured run's step (ddpcore.fit): each rank's nominal compute, and the rest of the step (the AllReduce
    after the last bucket, the optimizer) held at its measured length at every N, in place of the phases and the
    link's AllReduce: the question is what the stragglers cost, not how the network scales.

    >>> r = cluster_step(ClusterConfig(gpus=8, timing=MeasuredTiming(40.0, 12.0), straggler_prob=0.0))
    >>> round(r.ideal_step_ms, 2), round(r.expected_step_ms, 2)
    (52.0, 53.15)
    """

    compute_ms: float
    other_ms: float

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "compute_ms", check_number("compute_ms", self.compute_ms, 0.0, MAX_PHASE_MS, low_open=True)
        )
        object.__setattr__(self, "other_ms", check_number("other_ms", self.other_ms, 0.0, MAX_PHASE_MS))


@dataclass(frozen=True)
class ClusterConfig:
    """A cluster's straggler model: N ranks, lognormal jitter, transient slowdowns with probability p per rank-step,
    k persistently slow ranks, and the AllReduce algorithm and link.

    >>> c = ClusterConfig(gpus=64, persistent=1)
    >>> c.gpus, c.persistent, c.allreduce
    (64, 1, 'ring')
    """

    gpus: int = CLUSTER_GPUS.default
    phases: Phases = field(default_factory=Phases)
    jitter_cv: float = JITTER_CV.default
    straggler_prob: float = STRAGGLER_PROB.default
    slowdown: float = CLUSTER_SLOWDOWN.default
    persistent: int = PERSISTENT.default
    persistent_slowdown: float = PERSISTENT_SLOWDOWN.default
    allreduce: str = ALGORITHM.default
    link: Link = field(default_factory=Link)
    timing: MeasuredTiming | None = None

    @property
    def compute_ms(self) -> float:
        """A rank's nominal compute: the measured one, else forward + backward."""
        return self.timing.compute_ms if self.timing else self.phases.forward + self.phases.backward

    def __post_init__(self) -> None:
        gpus = CLUSTER_GPUS.check(self.gpus)
        object.__setattr__(self, "gpus", gpus)
        for param in (JITTER_CV, STRAGGLER_PROB, CLUSTER_SLOWDOWN, PERSISTENT_SLOWDOWN, ALGORITHM):
            object.__setattr__(self, param.name, param.check(getattr(self, param.name)))
        object.__setattr__(self, "persistent", PERSISTENT.check(self.persistent, high=gpus))
        if not isinstance(self.phases, Phases):
            raise ConfigError("phases", self.phases, "a Phases value")
        if not isinstance(self.link, Link):
            raise ConfigError("link", self.link, "a Link value")
        if self.timing is not None and not isinstance(self.timing, MeasuredTiming):
            raise ConfigError("timing", self.timing, "a MeasuredTiming value")


@dataclass(frozen=True)
class ClusterResult:
    """One cluster size's step: expected, median and 99th percentile, against the step with no straggler.

    >>> r = cluster_step(ClusterConfig(gpus=64, persistent=1))
    >>> r.gpus, round(r.expected_step_ms, 1), round(r.ideal_step_ms, 1), round(r.efficiency, 2)
    (64, 74.0, 48.0, 0.65)
    """

    gpus: int
    expected_step_ms: float
    p50_step_ms: float
    p99_step_ms: float
    ideal_step_ms: float
    efficiency: float
    p_any_straggler: float
    gpu_hours_lost_per_day: float
    allreduce_ms: float | None
    """None with a measured timing: the AllReduce is then inside the measured rest of the step."""
    expected_compute_ms: float


def _phi(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _log_cdf(weights_centers: tuple[tuple[float, float], ...], sigma: float, mu: float, y: float) -> float:
    """log P(X <= e^y) for a mixture of lognormals, precise both where the CDF is tiny and where it is near 1."""
    cdf = sum(w * _phi((y - c - mu) / sigma) for w, c in weights_centers)
    if cdf < 0.5:
        return math.log(cdf) if cdf > 0 else -math.inf
    tail = sum(w * _phi(-(y - c - mu) / sigma) for w, c in weights_centers)
    return math.log1p(-tail)


@dataclass(frozen=True)
class SlowestRank:
    """The distribution of the slowest rank's compute time, for one per-rank model and any N."""

    nominal_ms: float
    jitter_cv: float
    straggler_prob: float
    slowdown: float
    persistent_slowdown: float

    @cached_property
    def sigma(self) -> float:
        """The lognormal's sigma for the jitter's coefficient of variation: cv² = e^(σ²) − 1 (floored)."""
        return max(math.sqrt(math.log1p(self.jitter_cv**2)), SIGMA_FLOOR)

    @cached_property
    def mu(self) -> float:
        """Jitter has mean 1: a noisy rank is not slower on average."""
        return -(self.sigma**2) / 2

    def _mixture(self, base: float) -> tuple[tuple[float, float], ...]:
        p = self.straggler_prob
        parts = ((1 - p, math.log(self.nominal_ms * base)), (p, math.log(self.nominal_ms * base * self.slowdown)))
        return tuple((w, c) for w, c in parts if w > 0)

    @cached_property
    def normal(self) -> tuple[tuple[float, float], ...]:
        """(weight, log-centre) of an ordinary rank's mixture: nominal, or slowed with probability p."""
        return self._mixture(1.0)

    @cached_property
    def persistent(self) -> tuple[tuple[float, float], ...]:
        """The same mixture for a persistently slow rank."""
        return self._mixture(self.persistent_slowdown)

    @cached_property
    def grid(self) -> tuple[list[float], list[float], list[float]]:
        """x values and per-rank log-CDFs (normal, persistent): dense near each lognormal, coarse between."""
        centers = sorted({c + self.mu for _, c in self.normal + self.persistent})
        span, step = Z_SPAN * self.sigma, GRID_STEP * self.sigma
        ys: set[float] = set()
        for c in centers:
            count = int(round(2 * span / step))
            ys.update(c - span + i * step for i in range(count + 1))
        low, high = centers[0] - span, centers[-1] + span
        coarse = max(int((high - low) / max(span / 4, (high - low) / COARSE_POINTS)), 1)
        ys.update(low + (high - low) * i / coarse for i in range(coarse + 1))
        ordered = sorted(ys)
        xs = [math.exp(y) for y in ordered]
        normal = [_log_cdf(self.normal, self.sigma, self.mu, y) for y in ordered]
        persistent = [_log_cdf(self.persistent, self.sigma, self.mu, y) for y in ordered]
        return xs, normal, persistent

    def log_cdf_max(self, x: float, n_normal: int, n_persistent: int) -> float:
        """log P(slowest ≤ x) = n·log F(x) + k·log G(x): independent ranks, so the max's CDF is F^n·G^k.

        With no jitter and no stragglers every rank takes the nominal time: the max is below 1.1x surely, below 0.9x
        never.

        >>> m = SlowestRank(nominal_ms=26.0, jitter_cv=0.0, straggler_prob=0.0, slowdown=2.0, persistent_slowdown=2.0)
        >>> round(math.exp(m.log_cdf_max(26.0 * 1.1, 1000, 0)), 6), m.log_cdf_max(26.0 * 0.9, 1000, 0) < -100
        (1.0, True)
        >>> round(math.exp(m.log_cdf_max(26.0 * 1.5, 999, 1)), 6)
        0.0
        """
        y = math.log(x)
        total = 0.0
        if n_normal:
            total += n_normal * _log_cdf(self.normal, self.sigma, self.mu, y)
        if n_persistent:
            total += n_persistent * _log_cdf(self.persistent, self.sigma, self.mu, y)
        return total

    def expected_max(self, n_normal: int, n_persistent: int) -> float:
        """E[max] = x_lo + integral of (1 - F_max) over the grid (trapezoid; F_max ~ 0 below x_lo)."""
        xs, normal, persistent = self.grid
        survival = [
            -math.expm1((n_normal * a if n_normal else 0.0) + (n_persistent * b if n_persistent else 0.0))
            for a, b in zip(normal, persistent)
        ]
        area = 0.0
        for i in range(len(xs) - 1):
            area += (xs[i + 1] - xs[i]) * (survival[i] + survival[i + 1]) / 2
        return xs[0] + area

    def quantile_max(self, q: float, n_normal: int, n_persistent: int) -> float:
        """The q-quantile of the max, by bisection on the exact CDF."""
        target = math.log(q)
        xs = self.grid[0]
        lo, hi = xs[0], xs[-1]
        for _ in range(100):
            mid = math.sqrt(lo * hi)
            if self.log_cdf_max(mid, n_normal, n_persistent) < target:
                lo = mid
            else:
                hi = mid
            if hi / lo - 1 < 1e-12:
                break
        return math.sqrt(lo * hi)


def any_straggles(gpus: int, prob: float) -> float:
    """The probability that at least one of `gpus` ranks straggles in a step: 1 − (1 − p)^N.

    >>> round(any_straggles(10_000, 1e-4), 3)
    0.632
    """
    return -math.expm1(gpus * math.log1p(-prob)) if prob < 1 else 1.0


def cluster_allreduce_ms(config: ClusterConfig, gpus: int | None = None) -> float:
    """The configured algorithm's AllReduce time at `gpus` (default: the configured N).

    >>> round(cluster_allreduce_ms(ClusterConfig(gpus=1024)), 2)
    62.17
    """
    n = config.gpus if gpus is None else gpus
    time = ring_time_ms if config.allreduce == "ring" else tree_time_ms
    return time(n, config.link)


def slowest_rank(config: ClusterConfig) -> SlowestRank:
    """The distribution of one rank's compute time that the cluster's configuration implies.

    >>> model = slowest_rank(ClusterConfig(gpus=1000))
    >>> round(model.expected_max(1000, 0), 2), round(model.quantile_max(0.99, 1000, 0), 2)
    (30.05, 53.34)
    """
    return SlowestRank(
        nominal_ms=config.compute_ms,
        jitter_cv=config.jitter_cv,
        straggler_prob=config.straggler_prob,
        slowdown=config.slowdown,
        persistent_slowdown=config.persistent_slowdown,
    )


@dataclass(frozen=True)
class ComputeStats:
    """The slowest rank's compute time at one N: what every algorithm's step shares."""

    expected_ms: float
    p50_ms: float
    p99_ms: float


def compute_stats(model: SlowestRank, gpus: int, persistent: int) -> ComputeStats:
    """Expected, median and p99 of the slowest of `gpus` ranks' compute, `persistent` of them always slow.

    >>> s = compute_stats(slowest_rank(ClusterConfig()), 1000, 0)
    >>> round(s.expected_ms, 2), round(s.p99_ms, 2)
    (30.05, 53.34)
    """
    k = min(persistent, gpus)
    return ComputeStats(
        model.expected_max(gpus - k, k), model.quantile_max(0.5, gpus - k, k), model.quantile_max(0.99, gpus - k, k)
    )


def _result(config: ClusterConfig, model: SlowestRank, n: int, stats: ComputeStats) -> ClusterResult:
    ar = None if config.timing else cluster_allreduce_ms(config, n)
    fixed = config.timing.other_ms if config.timing else config.phases.load + (ar or 0.0) + config.phases.optimizer
    expected = fixed + stats.expected_ms
    ideal = fixed + model.nominal_ms
    efficiency = ideal / expected
    return ClusterResult(
        gpus=n,
        expected_step_ms=expected,
        p50_step_ms=fixed + stats.p50_ms,
        p99_step_ms=fixed + stats.p99_ms,
        ideal_step_ms=ideal,
        efficiency=efficiency,
        p_any_straggler=any_straggles(n, config.straggler_prob),
        gpu_hours_lost_per_day=n * HOURS_PER_DAY * max(0.0, 1 - efficiency),
        allreduce_ms=ar,
        expected_compute_ms=stats.expected_ms,
    )


def cluster_step(config: ClusterConfig, model: SlowestRank | None = None, gpus: int | None = None) -> ClusterResult:
    """The step at one cluster size, computed exactly from the slowest rank's distribution (no sampling).

    >>> r = cluster_step(ClusterConfig(gpus=1000))
    >>> round(r.expected_step_ms, 2), round(r.p99_step_ms, 2), round(r.p_any_straggler, 3)
    (99.02, 122.3, 0.095)
    """
    n = config.gpus if gpus is None else gpus
    model = model or slowest_rank(config)
    return _result(config, model, n, compute_stats(model, n, config.persistent))


def sweep_sizes(low: int = SWEEP_MIN, high: int = SWEEP_MAX, points: int = SWEEP_POINTS) -> list[int]:
    """Log-spaced cluster sizes from `low` to `high`.

    >>> sweep_sizes(8, 8000, 4)
    [8, 80, 800, 8000]
    """
    ratio = high / low
    return sorted({int(round(low * ratio ** (i / (points - 1)))) for i in range(points)})


def cluster_sweep(config: ClusterConfig, sizes: list[int] | None = None) -> list[ClusterResult]:
    """The same model from 8 to 1,000,000 GPUs; the grid is shared, so each size costs one pass.

    >>> [(r.gpus, round(r.expected_step_ms, 1)) for r in cluster_sweep(ClusterConfig(), [8, 1000, 100000])]
    [(8, 44.8), (1000, 99.0), (100000, 5072.6)]
    """
    return cluster_sweeps(config, sizes)[config.allreduce]


def cluster_sweeps(config: ClusterConfig, sizes: list[int] | None = None) -> dict[str, list[ClusterResult]]:
    """The sweep for every AllReduce algorithm; the compute distribution is computed once per size.

    >>> sorted(cluster_sweeps(ClusterConfig(), [8, 1000]))
    ['ring', 'tree']
    """
    model = slowest_rank(config)
    ns = [n for n in (sizes or sweep_sizes()) if n >= max(2, config.persistent)]
    stats = [compute_stats(model, n, config.persistent) for n in ns]
    return {
        alg: [_result(replace(config, allreduce=alg), model, n, st) for n, st in zip(ns, stats)] for alg in ALGORITHMS
    }
