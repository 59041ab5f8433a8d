"""The cluster model fitted to a measured run, and what the run would cost without its stragglers, or at scale.

The cluster model (`ddpcore.cluster`) says each rank computes nominal × lognormal jitter × (s with probability p),
k ranks always slower by s_k, and the step waits for the slowest. Here its parameters are estimated from an analysed
run: per rank and step, the rank's work from the previous release to its readiness (`tracefacts`: its compute,
and whatever else it did before its last gradient bucket was ready), and which rank-steps the verdict found late
(`verdict`: over the threshold, and persistent or later than chance). The fit counts nothing of its own: one
screen, one answer.

- **Each rank-step against the ranks on time**: l = log(work / the median work of the step's ranks on time). Jitter
  makes l a centred normal; a slowdown adds log s.
- **Persistent slow ranks**: the verdict's persistent stragglers. Their slowdown: the median over steps of their
  work over the median of the ranks on time.
- **Transient rank-steps**: the verdict's other late rank-steps. p = slowed / all, with a Wilson 95 % interval;
  s = exp(median of their l).
- **cv** = √(exp(σ²) − 1), σ = 1.4826 × the median absolute deviation of l over the rank-steps on time (the bulk,
  as the verdict measures chance on). Intervals of cv and s: the 2.5 and 97.5 percentiles of each estimator over
  bootstrap resamples of the rank-steps it rests on (the split into slowed and unslowed kept; seeded, so the same
  run gives the same figures).
- **Timing**: nominal compute = the median over steps of the on-time median work × exp(σ²/2) (the model's jitter
  has mean 1); the rest of the step (the AllReduce after the last bucket is ready) = the median over steps of the
  step period minus the slowest rank's work, held at that length at every N.
- A rank-step whose work is not a positive number (a rank ready before the previous release, on a clock that
  jumped) cannot be weighed: it is left out, and the fit says which.

Assumptions: rank-steps are independent (no slowdown shared by a step or a node), the jitter is lognormal, and
the pattern does not change over the run. docs/fit.md says when not to trust the figures.

>>> low, high = wilson_interval(5, 100)
>>> round(low, 4), round(high, 4)
(0.0215, 0.1118)
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain

from ..base import THRESHOLD, Said
from ..base.params import CLUSTER_SLOWDOWN, JITTER_CV, PERSISTENT_SLOWDOWN
from ..base.words import Message, placeholders
from ..model import ClusterConfig, ClusterResult, MeasuredTiming, cluster_step
from ..model.cluster import HOURS_PER_DAY, slowest_rank
from .chance import medians_of_others, others_spread, persistence, quantile, transient_share
from .rounds import beyond_chance
from .verdict import Analysis

__all__ = [
    "BOOTSTRAP_MAX",
    "Fit",
    "FitError",
    "Outlook",
    "RunTimes",
    "SEED",
    "WhatIf",
    "at_scale",
    "bounded",
    "caveat_message",
    "cluster_config",
    "fit",
    "measured_row",
    "outlook",
    "outlook_of",
    "outlook_or_why",
    "predicted",
    "what_if",
    "wilson_interval",
]

MAD_TO_SIGMA = 1.4826
Z95 = 1.959964
RESAMPLES = 200
BOOTSTRAP_MAX = 4096
SEED = 0
SCALE_SIZES = (1_000, 10_000, 100_000)
"""The cluster sizes the run is carried to, besides its own."""
MIN_RANK_STEPS = 100
"""Below this many rank-steps the fit says it rests on few (docs/fit.md)."""
MIN_SLOWED = 5


class FitError(Said):
    """A run that cannot be fitted, and why (`base.words`: `fit.error_few`, `fit.error_compute`).

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import analyze
    >>> print(outlook_or_why(analyze(simulated_run(4, 1)[0])))
    need at least two ranks and two steps to fit a straggler model (got 4 and 1)
    """


@dataclass(frozen=True)
class RunFigures:
    """What the verdict measured of a run (`verdict`), which the fit's what-if and its row at the run's own size
    repeat: one screen, one answer. Step times are means or quantiles over steps (ms); `late_share` is the share of
    steps with a late rank."""

    step_ms: float
    median_step_ms: float
    p99_step_ms: float
    ideal_step_ms: float
    late_share: float

    @staticmethod
    def of_analysis(analysis: Analysis) -> RunFigures:
        """The verdict's figures of the run."""
        periods = sorted(s.median_step_ms for s in analysis.steps)
        return RunFigures(
            analysis.step_ms,
            analysis.median_step_ms,
            quantile(periods, 0.99),
            analysis.ideal_step_ms,
            sum(bool(s.late_ranks) for s in analysis.steps) / len(analysis.steps),
        )


@dataclass(frozen=True)
class RunTimes:
    """A run as the fit reads it: per step, each rank's work and lateness (ms, ranks in `ranks` order), the step's
    period and number. Which rank-steps are late, and which ranks (indices into `ranks`) are persistent
    stragglers: from an analysis, its verdict's; for a run known by its work alone, the same rule applied at the fit's
    threshold (`judged`). From an analysis, also its mean step and its what-if's ideal step: one page, one answer.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import analyze
    >>> run = RunTimes.of_analysis(analyze(ranks))
    >>> run.ranks, len(run.period_ms), [round(w) for w in run.compute_ms[0]]
    ((0, 1, 2, 3), 5, [23, 44, 24, 23])
    """

    ranks: tuple[int, ...]
    compute_ms: tuple[tuple[float, ...], ...]
    cost_ms: tuple[tuple[float, ...], ...]
    period_ms: tuple[float, ...]
    late: tuple[tuple[bool, ...], ...] | None = None
    verdict: RunFigures | None = None
    """From an analysis: what its verdict measured, which the fit's what-if and its row at the run's size repeat."""
    persistent: tuple[int, ...] = ()
    step_numbers: tuple[int, ...] = ()
    beyond: tuple[tuple[bool, ...], ...] | None = None
    """Which rank-steps did more work than chance allows, the persistent stragglers' included: a slow rank can also
    be slowed now and then."""

    @staticmethod
    def of_analysis(analysis: Analysis) -> RunTimes:
        """The analysed steps: each rank's work from the previous release to its readiness (time lost between
        steps included), its lateness at the barrier, and the verdict's late rank-steps, stragglers and what-if.

        Work is counted from the previous release only in steps whose previous step was recorded; the first step of
        a profiling window counts from its own start. The two cannot be mixed as one rank's jitter, so the fit
        reads the steps counted from a release when there are two or more, else every step from its own start."""
        ranks = analysis.steps[0].columns.ranks
        released = [s for s in analysis.steps if s.columns.from_release]
        steps = released if len(released) >= 2 else list(analysis.steps)
        work = [s.columns.work_ms if len(released) >= 2 else s.columns.compute_ms for s in steps]
        slow = {s.rank for s in analysis.stragglers}
        return RunTimes(
            ranks,
            tuple(tuple(w) for w in work),
            tuple(tuple(s.columns.cost_ms) for s in steps),
            tuple(s.median_step_ms for s in steps),
            tuple(tuple(r in s.late_ranks for r in ranks) for s in steps),
            RunFigures.of_analysis(analysis),
            tuple(j for j, r in enumerate(ranks) if r in slow),
            tuple(s.step for s in steps),
            tuple(tuple(j in s.columns.beyond for j in range(len(ranks))) for s in steps),
        )

    @staticmethod
    def of_compute(compute_ms: Sequence[Sequence[float]], period_ms: Sequence[float]) -> RunTimes:
        """A run known by its work alone (a simulation): lateness is work minus the others' median."""
        rows = tuple(tuple(float(x) for x in row) for row in compute_ms)
        costs = tuple(tuple(x - m for x, m in zip(row, medians_of_others(row))) for row in rows)
        return RunTimes(
            tuple(range(len(rows[0]) if rows else 0)),
            rows,
            costs,
            tuple(float(p) for p in period_ms),
            step_numbers=tuple(range(len(rows))),
        )

    def judged(self, threshold: float) -> RunTimes:
        """The run with its late rank-steps and persistent ranks found by the verdict's rule (`verdict`, `chance`):
        over the threshold, and persistent or later than chance."""
        if self.late is not None:
            return self
        beyond = beyond_chance(self.compute_ms)
        over = [[c >= threshold * p for c in row] for row, p in zip(self.cost_ms, self.period_ms)]
        where: dict[int, list[int]] = {}
        for k, row in enumerate(over):
            for j, flag in enumerate(row):
                if flag:
                    where.setdefault(j, []).append(k)
        ranks = len(self.ranks)
        past = Counter(chain.from_iterable(beyond.entries))
        total_past, steps = sum(past.values()), len(self.period_ms)
        stretches = {
            j: found
            for j, ks in where.items()
            if (
                found := persistence(
                    beyond.ranks[j],
                    ks,
                    ranks,
                    beyond.tail,
                    beyond.spread,
                    transient_share(total_past, past[j], ranks, steps),
                    others=others_spread(beyond.spread, beyond.floor_ms, past[j], beyond.total),
                    own=past[j],
                    total=beyond.total,
                    moving_pair=ranks == 2 and beyond.leads,
                )
            )
            is not None
        }
        slow = set(stretches)
        late = tuple(
            tuple(
                flag and ((j in stretches and stretches[j].first <= k < stretches[j].stop) or j in set(entries))
                for j, flag in enumerate(row)
            )
            for k, (row, entries) in enumerate(zip(over, beyond.entries))
        )
        flags = tuple(tuple(j in set(entries) for j in range(len(self.ranks))) for entries in beyond.entries)
        return replace(self, late=late, persistent=tuple(sorted(slow)), beyond=flags)


@dataclass(frozen=True)
class Fit:
    """The cluster model's straggler parameters as the run shows them, with 95 % intervals and their evidence.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import analyze
    >>> fit = outlook_or_why(analyze(ranks)).fit
    >>> fit.gpus, fit.persistent_ranks, round(fit.persistent_slowdown, 2), fit.straggler_prob
    (4, (1,), 1.86, 0.0)
    """

    threshold: float
    gpus: int
    steps: int
    rank_steps: int
    jitter_cv: float
    jitter_cv_interval: tuple[float, float] | None
    straggler_prob: float
    straggler_prob_interval: tuple[float, float]
    slowed_rank_steps: int
    slowdown: float
    slowdown_interval: tuple[float, float] | None
    persistent_ranks: tuple[int, ...]
    persistent_slowdown: float
    compute_ms: float
    other_ms: float
    measured_step_ms: float
    slowed: tuple[tuple[int, int], ...]
    """(step index, rank index) of every transient rank-step."""
    unmeasured: tuple[tuple[int, int], ...] = ()
    """(rank, step) of every rank-step left out, its work not a positive number."""

    @property
    def persistent(self) -> int:
        """How many ranks are always slow."""
        return len(self.persistent_ranks)

    @property
    def caveats(self) -> tuple[str, ...]:
        """Why the figures may not hold (codes for the page's texts): few rank-steps, few slowed ones."""
        out = []
        if self.rank_steps < MIN_RANK_STEPS:
            out.append("few_rank_steps")
        if 0 < self.slowed_rank_steps < MIN_SLOWED:
            out.append("few_slowed")
        if self.unmeasured:
            out.append("unmeasured")
        return tuple(out)

    @property
    def caveat_values(self) -> dict[str, int]:
        """The values the caveats name that are the run's own (the rank-steps left out: how many, the first)."""
        first = self.unmeasured[0] if self.unmeasured else (0, 0)
        return {"count": len(self.unmeasured), "rank": first[0], "step": first[1]}

    @property
    def caveat_messages(self) -> tuple[Message, ...]:
        """The caveats as said (`caveat_message`)."""
        return tuple(caveat_message(code, self.caveat_values) for code in self.caveats)


def caveat_message(code: str, values: Mapping[str, object]) -> Message:
    """A caveat of the fit as said, from its code and the run's values (as `analyze --fit --json` writes them),
    the fit's own limits added.

    >>> caveat_message("few_slowed", {}).text()
    'fewer than 5 slowed rank-steps: the transient slowdown rests on very few'
    >>> caveat_message("unmeasured", {"count": 2, "rank": 3, "step": 12}).text("fr")
    "2 pas-rang(s) laissé(s) de côté, leur travail n'étant pas un nombre positif (premier : rang 3, pas 12)"
    """
    known = {**values, "min_slowed": MIN_SLOWED}
    return Message.of(f"fit.caveat_{code}", **{k: known[k] for k in placeholders(f"fit.caveat_{code}")})


@dataclass(frozen=True)
class WhatIf:
    """The measured steps again, every straggler brought to the median of the other ranks.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import analyze
    >>> w = outlook_or_why(analyze(ranks)).whatif
    >>> round(w.measured_step_ms, 2), round(w.step_ms, 2), round(w.efficiency, 3)
    (47.72, 28.31, 0.593)
    """

    measured_step_ms: float
    step_ms: float
    efficiency: float
    gpu_hours_saved_per_day: float


@dataclass(frozen=True)
class Prediction:
    """The fitted model at the run's own size against what the run measured: the check on the fit."""

    gpus: int
    expected_step_ms: float
    measured_step_ms: float
    error: float


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion k/n (good at small k, unlike the normal one)."""
    if n <= 0:
        raise ValueError("a Wilson interval of no trials")
    phat = k / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def robust_sigma(values: Sequence[float]) -> float:
    """The normal σ that the median absolute deviation implies: far outliers do not move it.

    >>> robust_sigma([-1.0, 0.0, 1.0, 100.0])
    1.4826
    """
    centre = statistics.median(values)
    return MAD_TO_SIGMA * statistics.median(abs(v - centre) for v in values)


def _cv(sigma: float) -> float:
    return math.sqrt(math.expm1(sigma * sigma))


def _bootstrap(
    unslowed: list[float], slowed: list[float], cv: float, slowdown: float, resamples: int, seed: int
) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """95 % intervals of cv and s: each estimator again on resamples (with replacement) of the rank-steps it
    was computed from, the split into slowed and unslowed kept."""
    rng = random.Random(seed)
    cvs = _resampled(unslowed, lambda v: _cv(robust_sigma(v)) if len(v) >= 2 else 0.0, cv, resamples, rng)
    if not slowed:
        return cvs, None
    return cvs, _resampled(slowed, lambda v: math.exp(statistics.median(v)), slowdown, resamples, rng)


def _resampled(
    values: list[float], estimate: Callable[[list[float]], float], whole: float, resamples: int, rng: random.Random
) -> tuple[float, float]:
    """The 2.5 and 97.5 percentiles of `estimate` over resamples of `values`; `whole` is its value on them all.

    Past BOOTSTRAP_MAX values (a job of 4,096 ranks has 800,000 rank-steps), resamples draw BOOTSTRAP_MAX, and the
    spread around `whole` shrinks by √(m/n): the m-out-of-n bootstrap of an estimator whose error falls as 1/√n
    (medians and MADs do). The same as the plain bootstrap up to BOOTSTRAP_MAX."""
    m = min(len(values), BOOTSTRAP_MAX)
    scale = math.sqrt(m / len(values))
    drawn = (estimate(rng.choices(values, k=m)) for _ in range(resamples))
    got = sorted(drawn if m == len(values) else (whole + scale * (e - whole) for e in drawn))
    last = len(got) - 1
    return got[round(0.025 * last)], got[round(0.975 * last)]


def fit(run: RunTimes, threshold: float = THRESHOLD.default, resamples: int = RESAMPLES, seed: int = SEED) -> Fit:
    """The straggler parameters of the run (module docstring); `resamples` 0 leaves the bootstrap intervals out.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> f = fit(RunTimes.of_analysis(a), a.threshold)
    >>> f.persistent_ranks, f.slowed_rank_steps, round(f.straggler_prob, 3)
    ((3,), 7, 0.03)
    """
    THRESHOLD.check(threshold)
    steps, gpus = len(run.compute_ms), len(run.ranks)
    if gpus < 2 or steps < 2:
        raise FitError("fit.error_few", ranks=gpus, steps=steps)
    run = run.judged(threshold)
    persistent = set(run.persistent)
    beyond = run.beyond or tuple((False,) * gpus for _ in range(steps))
    on_time: list[float] = []
    slowed_logs: list[float] = []
    slowed: list[tuple[int, int]] = []
    ratios: list[float] = []
    typicals: list[float] = []
    unmeasured: list[tuple[int, int]] = []
    typical_of: list[float | None] = []
    for t, (row, flags) in enumerate(zip(run.compute_ms, run.late or ())):
        bad = {j for j, x in enumerate(row) if not (x > 0 and math.isfinite(x))}
        unmeasured += [(run.ranks[j], run.step_numbers[t] if run.step_numbers else t) for j in sorted(bad)]
        bulk = [x for j, x in enumerate(row) if j not in bad and j not in persistent and not flags[j]]
        typical = statistics.median(bulk) if bulk else None
        typical_of.append(typical)
        if typical is None:
            continue
        typicals.append(typical)
        for j, x in enumerate(row):
            if j in bad:
                continue
            if j in persistent:
                if not beyond[t][j]:
                    ratios.append(x / typical)
            elif flags[j]:
                slowed_logs.append(math.log(x / typical))
                slowed.append((t, j))
            else:
                on_time.append(math.log(x / typical))
    slow_ratio = statistics.median(ratios) if ratios else 1.0
    for t, (row, typical) in enumerate(zip(run.compute_ms, typical_of)):
        for j in persistent:
            if typical is not None and beyond[t][j] and row[j] > 0 and math.isfinite(row[j]):
                slowed_logs.append(math.log(row[j] / (typical * slow_ratio)))
                slowed.append((t, j))
    if len(on_time) < 2:
        raise FitError("fit.error_compute")
    cv = _cv(robust_sigma(on_time))
    slowdown = math.exp(statistics.median(slowed_logs)) if slowed_logs else 1.0
    cv_interval = slowdown_interval = None
    if resamples > 0:
        cv_interval, slowdown_interval = _bootstrap(on_time, slowed_logs, cv, slowdown, resamples, seed)
    sigma = math.sqrt(math.log1p(cv**2))
    measured = [[x for x in row if x > 0 and math.isfinite(x)] for row in run.compute_ms]
    other = statistics.median(p - max(row) for p, row in zip(run.period_ms, measured) if row)
    rank_steps = sum(len(row) for row, typical in zip(measured, typical_of) if typical is not None)
    return Fit(
        threshold=threshold,
        gpus=gpus,
        steps=steps,
        rank_steps=rank_steps,
        jitter_cv=cv,
        jitter_cv_interval=cv_interval,
        straggler_prob=len(slowed) / rank_steps,
        straggler_prob_interval=wilson_interval(len(slowed), rank_steps),
        slowed_rank_steps=len(slowed),
        slowdown=slowdown,
        slowdown_interval=slowdown_interval,
        persistent_ranks=tuple(run.ranks[j] for j in sorted(persistent)),
        persistent_slowdown=slow_ratio,
        compute_ms=statistics.median(typicals) * math.exp(sigma * sigma / 2),
        other_ms=max(other, 0.0),
        measured_step_ms=run.verdict.step_ms if run.verdict else statistics.fmean(run.period_ms),
        slowed=tuple(slowed),
        unmeasured=tuple(unmeasured),
    )


def what_if(run: RunTimes, fitted: Fit) -> WhatIf:
    """Each step re-timed without its stragglers: from an analysis, its own what-if (`verdict`); for a run known by
    its compute alone, each step shortened by its worst straggler's lateness over the median of the others, the
    stragglers being the persistent ranks and the transient rank-steps the fit found.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> run = RunTimes.of_analysis(a)
    >>> w = what_if(run, fit(run, a.threshold))
    >>> round(w.measured_step_ms, 1), round(w.step_ms, 1)
    (57.5, 28.6)
    """
    measured = statistics.fmean(run.period_ms)
    if run.verdict is not None:
        measured, step = run.verdict.step_ms, run.verdict.ideal_step_ms
        return WhatIf(measured, step, step / measured, len(run.ranks) * HOURS_PER_DAY * (1 - step / measured))
    index = {r: j for j, r in enumerate(run.ranks)}
    persistent = {index[r] for r in fitted.persistent_ranks}
    slowed: dict[int, set[int]] = {}
    for t, j in fitted.slowed:
        slowed.setdefault(t, set()).add(j)
    steps = []
    for t, (costs, period) in enumerate(zip(run.cost_ms, run.period_ms)):
        late = persistent | slowed.get(t, set())
        saved = max((max(costs[j], 0.0) for j in late), default=0.0)
        steps.append(period - saved)
    step = statistics.fmean(steps)
    return WhatIf(measured, step, step / measured, len(run.ranks) * HOURS_PER_DAY * (1 - step / measured))


def _bounded(param_low: float, param_high: float, value: float) -> float:
    return min(max(value, param_low), param_high)


def model_values(fitted: Fit) -> dict[str, tuple[float, float]]:
    """The fitted values the cluster model takes, each kept within the model's range: (fitted, used) by name.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> values = model_values(fit(RunTimes.of_analysis(a), a.threshold))
    >>> sorted(values)
    ['jitter_cv', 'persistent_slowdown', 'slowdown']
    """
    return {
        "jitter_cv": (fitted.jitter_cv, _bounded(JITTER_CV.low, JITTER_CV.high, fitted.jitter_cv)),
        "slowdown": (fitted.slowdown, _bounded(CLUSTER_SLOWDOWN.low, CLUSTER_SLOWDOWN.high, fitted.slowdown)),
        "persistent_slowdown": (
            fitted.persistent_slowdown,
            _bounded(PERSISTENT_SLOWDOWN.low, PERSISTENT_SLOWDOWN.high, fitted.persistent_slowdown),
        ),
    }


def bounded(fitted: Fit) -> dict[str, float]:
    """The fitted values the model cannot take as they are, by name, with the value it uses instead (its range's
    end): the panel says so beside them, and the rows at scale and the Cluster view's link use that.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> bounded(fit(RunTimes.of_analysis(a), a.threshold))
    {}
    """
    return {name: used for name, (value, used) in model_values(fitted).items() if used != value}


def cluster_config(fitted: Fit, gpus: int | None = None) -> ClusterConfig:
    """The cluster model with the fitted parameters (each kept within the model's range) and the run's timing.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> config = cluster_config(fit(RunTimes.of_analysis(a), a.threshold), gpus=1024)
    >>> config.gpus, config.persistent, round(config.persistent_slowdown, 1)
    (1024, 1, 1.9)
    """
    used = {name: u for name, (_, u) in model_values(fitted).items()}
    return ClusterConfig(
        gpus=fitted.gpus if gpus is None else gpus,
        jitter_cv=used["jitter_cv"],
        straggler_prob=fitted.straggler_prob,
        slowdown=used["slowdown"],
        persistent=fitted.persistent,
        persistent_slowdown=used["persistent_slowdown"],
        timing=MeasuredTiming(fitted.compute_ms, fitted.other_ms),
    )


def measured_row(figures: RunFigures, fitted: Fit) -> ClusterResult:
    """The run at its own size as its verdict measured it, in the rows at scale: its mean, median and 99th
    percentile step, its what-if's efficiency and the GPU-hours that loses a day, the share of steps with a late
    rank.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> row = measured_row(RunFigures.of_analysis(a), fit(RunTimes.of_analysis(a), a.threshold))
    >>> row.gpus, round(row.expected_step_ms, 1)
    (8, 57.5)
    """
    efficiency = figures.ideal_step_ms / figures.step_ms if figures.step_ms > 0 else 1.0
    return ClusterResult(
        gpus=fitted.gpus,
        expected_step_ms=figures.step_ms,
        p50_step_ms=figures.median_step_ms,
        p99_step_ms=figures.p99_step_ms,
        ideal_step_ms=figures.ideal_step_ms,
        efficiency=efficiency,
        p_any_straggler=figures.late_share,
        gpu_hours_lost_per_day=fitted.gpus * HOURS_PER_DAY * (1 - efficiency),
        allreduce_ms=None,
        expected_compute_ms=fitted.compute_ms,
    )


def predicted(fitted: Fit, own: ClusterResult | None = None) -> Prediction:
    """The model's expected step at the run's size (`own`, when already computed), against the measured mean step.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> p = predicted(fit(RunTimes.of_analysis(a), a.threshold))
    >>> p.gpus, round(p.expected_step_ms, 1), round(p.measured_step_ms, 1)
    (8, 54.0, 57.5)
    """
    expected = (own or cluster_step(cluster_config(fitted))).expected_step_ms
    return Prediction(fitted.gpus, expected, fitted.measured_step_ms, expected / fitted.measured_step_ms - 1)


def at_scale(fitted: Fit, sizes: Sequence[int] = SCALE_SIZES) -> list[ClusterResult]:
    """The fitted model at the run's own size and at each of `sizes` (the same number of persistently slow ranks:
    one bad GPU is enough to hold back a job of any size). The slowest rank's distribution is built once.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> [r.gpus for r in at_scale(fit(RunTimes.of_analysis(a), a.threshold))]
    [8, 1000, 10000, 100000]
    """
    config = cluster_config(fitted)
    model = slowest_rank(config)
    return [cluster_step(replace(config, gpus=n), model) for n in (fitted.gpus, *sizes) if n >= fitted.persistent]


@dataclass(frozen=True)
class Outlook:
    """All the fit says of a run: the parameters, the run without its stragglers, the check at its own size, and
    the run carried to larger clusters (its first row is the run's own size: from an analysis, as measured).

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> from ddpcore.analysis import analyze
    >>> seen = outlook_or_why(analyze(ranks))
    >>> seen.fit.persistent_ranks, round(seen.whatif.step_ms, 2)
    ((1,), 28.31)
    """

    fit: Fit
    whatif: WhatIf
    check: Prediction
    scale: tuple[ClusterResult, ...]


def outlook_or_why(analysis: Analysis) -> Outlook | FitError:
    """The outlook of an analysis at its own threshold, or the FitError saying why there is none.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> type(outlook_or_why(a)).__name__
    'Outlook'
    """
    try:
        return outlook(RunTimes.of_analysis(analysis), analysis.threshold)
    except FitError as exc:
        return exc


def outlook_of(analysis: Analysis) -> tuple[Outlook | None, Message | None]:
    """`outlook_or_why` as the page keeps it: the outlook, or None and why there is none (said in its language).

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> seen, error = outlook_of(a)
    >>> seen.fit.persistent_ranks, error
    ((3,), None)
    """
    seen = outlook_or_why(analysis)
    return (None, seen.message) if isinstance(seen, FitError) else (seen, None)


def outlook(run: RunTimes, threshold: float = THRESHOLD.default) -> Outlook:
    """The fit and everything derived from it, for the command line and the page alike. From an analysis, the row at
    the run's own size is the run as its verdict measured it; the model's own figure there is the check.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> seen = outlook(RunTimes.of_analysis(a), a.threshold)
    >>> [r.gpus for r in seen.scale], round(seen.whatif.step_ms, 1)
    ([8, 1000, 10000, 100000], 28.6)
    """
    fitted = fit(run, threshold)
    scale = tuple(at_scale(fitted))
    check = predicted(fitted, scale[0])
    if run.verdict is not None:
        scale = (measured_row(run.verdict, fitted), *scale[1:])
    return Outlook(fitted, what_if(run, fitted), check, scale)
