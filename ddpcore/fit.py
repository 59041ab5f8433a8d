"""The cluster model fitted to a measured run, and what the run would cost without its stragglers, or at scale.

The cluster model (`ddpcore.cluster`) says each rank computes nominal × lognormal jitter × (s with probability p),
k ranks always slower by s_k, and the step waits for the slowest. Here its parameters are estimated from an analysed
run: per rank and step, the rank's work from the previous release to its readiness (`tracefacts`: its compute,
and whatever else it did before its last gradient bucket was ready) and its lateness at the barrier (`cost_ms`).

- **Persistent slow ranks**: the analysis' rule, late by the threshold (a share of the step) in a strict majority
  of steps. Their slowdown: the median over steps of their compute over the median compute of the other ranks.
- **Each rank-step against its rank's median**: l = log(compute / that rank's median compute). Jitter makes l a
  centred normal; a transient slowdown adds log s to a few of them.
- **Jitter**: σ = 1.4826 × the median absolute deviation of l (robust: the slowed rank-steps are few and far out).
- **Transient rank-steps**: late by the analysis' rule (the threshold, beyond jitter), and with l above
  max(Z·σ, log(1 + threshold)). Z = 4: under lognormal jitter, 3 rank-steps in 100,000 pass by chance; no
  rank-step slower than its median by less than the threshold counts, whatever the noise; and a compute slowdown
  that did not make the rank late (it came after its first bucket, and the others waited for no one) costs nothing.
  p = slowed / all, with a Wilson 95 % interval; s = exp(median of their l).
- **cv** = √(exp(σ²) − 1), σ re-estimated on the unslowed rank-steps. Intervals of cv and s: the 2.5 and 97.5
  percentiles of each estimator over bootstrap resamples of the rank-steps it rests on (the split into slowed and
  unslowed kept; seeded, so the same run gives the same figures).
- **Timing**: nominal compute = the median rank's median compute × exp(σ²/2) (the model's jitter has mean 1); the
  rest of the step (the AllReduce after the last bucket is ready) = the median over steps of the step period minus
  the slowest rank's compute, held at that length at every N.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from .cluster import HOURS_PER_DAY, ClusterConfig, ClusterResult, MeasuredTiming, cluster_step, slowest_rank
from .measured import medians_of_others
from .params import CLUSTER_SLOWDOWN, JITTER_CV, PERSISTENT_SLOWDOWN, THRESHOLD
from .verdict import Analysis, persistent_needed

Z_CUT = 4.0
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
CAVEATS = {
    "few_rank_steps": "few rank-steps: the intervals are wide and the model may not hold",
    "few_slowed": f"fewer than {MIN_SLOWED} slowed rank-steps: the transient slowdown rests on very few",
}
"""Why a fit may not hold, in English; the page says the same in its own language from the code."""


class FitError(ValueError):
    """A run that cannot be fitted; the message says why, `code` says it for the page's texts (`few`, `compute`)."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


@dataclass(frozen=True)
class RunTimes:
    """A run as the fit reads it: per step, each rank's compute and lateness (ms, ranks in `ranks` order), and the
    step's period. From an analysis, also which rank-steps its verdict found late, and each step's saving in its
    what-if: the fit then uses the verdict's own, so that one page gives one answer."""

    ranks: tuple[int, ...]
    compute_ms: tuple[tuple[float, ...], ...]
    cost_ms: tuple[tuple[float, ...], ...]
    period_ms: tuple[float, ...]
    late: tuple[tuple[bool, ...], ...] | None = None
    verdict_ms: tuple[float, float] | None = None
    """From an analysis: its mean step and its what-if's ideal step, which the fit's what-if repeats."""

    @staticmethod
    def of_analysis(analysis: Analysis) -> RunTimes:
        """The analysed steps: each rank's work from the previous release to its readiness (time lost between
        steps included), its lateness at the barrier, and the verdict's late rank-steps and what-if.

        Work is counted from the previous release only in steps whose previous step was recorded; the first step of
        a profiling window counts from its own start. The two cannot be mixed as one rank's jitter, so the fit
        reads the steps counted from a release when there are two or more, else every step from its own start."""
        ranks = analysis.steps[0].columns.ranks
        released = [s for s in analysis.steps if s.columns.from_release]
        steps = released if len(released) >= 2 else list(analysis.steps)
        work = [s.columns.work_ms if len(released) >= 2 else s.columns.compute_ms for s in steps]
        return RunTimes(
            ranks,
            tuple(tuple(w) for w in work),
            tuple(tuple(s.columns.cost_ms) for s in steps),
            tuple(s.median_step_ms for s in steps),
            tuple(tuple(r in s.late_ranks for r in ranks) for s in steps),
            (analysis.step_ms, analysis.ideal_step_ms),
        )

    @staticmethod
    def of_compute(compute_ms: Sequence[Sequence[float]], period_ms: Sequence[float]) -> RunTimes:
        """A run known by its compute times alone (a simulation): lateness is compute minus the others' median."""
        rows = tuple(tuple(float(x) for x in row) for row in compute_ms)
        costs = tuple(tuple(x - m for x, m in zip(row, medians_of_others(row))) for row in rows)
        return RunTimes(tuple(range(len(rows[0]) if rows else 0)), rows, costs, tuple(float(p) for p in period_ms))


@dataclass(frozen=True)
class Fit:
    """The cluster model's straggler parameters as the run shows them, with 95 % intervals and their evidence."""

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
        return tuple(out)


@dataclass(frozen=True)
class WhatIf:
    """The measured steps again, every straggler brought to the median of the other ranks."""

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
        raise FitError("few", "no rank-steps")
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


@dataclass(frozen=True)
class _Split:
    cv: float
    slowdown: float
    slowed: tuple[int, ...]


def _split(logs: Sequence[float], late: Sequence[bool], floor: float) -> _Split:
    """Late rank-steps whose compute is past the cut are transient; cv from the others, s from them."""
    cut = max(Z_CUT * robust_sigma(logs), floor)
    slowed = tuple(i for i, v in enumerate(logs) if v > cut and late[i])
    chosen = set(slowed)
    unslowed = [v for i, v in enumerate(logs) if i not in chosen]
    cv = _cv(robust_sigma(unslowed)) if len(unslowed) >= 2 else 0.0
    slowdown = math.exp(statistics.median(logs[i] for i in slowed)) if slowed else 1.0
    return _Split(cv, slowdown, slowed)


def _bootstrap(
    unslowed: list[float], slowed: list[float], split: _Split, resamples: int, seed: int
) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """95 % intervals of cv and s: each estimator again on resamples (with replacement) of the rank-steps it
    was computed from, the split into slowed and unslowed kept."""
    rng = random.Random(seed)
    cvs = _resampled(unslowed, lambda v: _cv(robust_sigma(v)) if len(v) >= 2 else 0.0, split.cv, resamples, rng)
    if not slowed:
        return cvs, None
    return cvs, _resampled(slowed, lambda v: math.exp(statistics.median(v)), split.slowdown, resamples, rng)


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


def _persistent(run: RunTimes, threshold: float) -> tuple[int, ...]:
    late = [0] * len(run.ranks)
    for costs, period in zip(run.cost_ms, run.period_ms):
        for j, cost in enumerate(costs):
            if cost >= threshold * period:
                late[j] += 1
    needed = persistent_needed(len(run.period_ms))
    return tuple(j for j, n in enumerate(late) if n >= needed)


def fit(run: RunTimes, threshold: float = THRESHOLD.default, resamples: int = RESAMPLES, seed: int = SEED) -> Fit:
    """The straggler parameters of the run (module docstring); `resamples` 0 leaves the bootstrap intervals out."""
    THRESHOLD.check(threshold)
    steps, gpus = len(run.compute_ms), len(run.ranks)
    if gpus < 2 or steps < 2:
        raise FitError(
            "few", f"need at least two ranks and two steps to fit a straggler model (got {gpus} and {steps})"
        )
    if any(x <= 0 or not math.isfinite(x) for row in run.compute_ms for x in row):
        raise FitError("compute", "a rank's compute time is not a positive number: the traces hold no usable backward")
    persistent = _persistent(run, threshold)
    columns = list(zip(*run.compute_ms))
    medians = [statistics.median(c) for c in columns]
    logs = [math.log(x / medians[j]) for row in run.compute_ms for j, x in enumerate(row)]
    late = (
        [flag for row in run.late for flag in row]
        if run.late is not None
        else [c >= threshold * p for costs, p in zip(run.cost_ms, run.period_ms) for c in costs]
    )
    floor = math.log1p(threshold)
    split = _split(logs, late, floor)
    normal = [j for j in range(gpus) if j not in persistent] or list(range(gpus))
    slow_ratio = 1.0
    if persistent:
        ratios = []
        for row in run.compute_ms:
            typical = statistics.median(row[j] for j in normal)
            ratios += [row[j] / typical for j in persistent]
        slow_ratio = statistics.median(ratios)
    cv_interval = slowdown_interval = None
    if resamples > 0:
        chosen = set(split.slowed)
        cv_interval, slowdown_interval = _bootstrap(
            [v for i, v in enumerate(logs) if i not in chosen], [logs[i] for i in split.slowed], split, resamples, seed
        )
    sigma = math.sqrt(math.log1p(split.cv**2))
    typical_compute = statistics.median(medians[j] for j in normal)
    other = statistics.median(p - max(row) for p, row in zip(run.period_ms, run.compute_ms))
    return Fit(
        threshold=threshold,
        gpus=gpus,
        steps=steps,
        rank_steps=len(logs),
        jitter_cv=split.cv,
        jitter_cv_interval=cv_interval,
        straggler_prob=len(split.slowed) / len(logs),
        straggler_prob_interval=wilson_interval(len(split.slowed), len(logs)),
        slowed_rank_steps=len(split.slowed),
        slowdown=split.slowdown,
        slowdown_interval=slowdown_interval,
        persistent_ranks=tuple(run.ranks[j] for j in persistent),
        persistent_slowdown=slow_ratio,
        compute_ms=typical_compute * math.exp(sigma * sigma / 2),
        other_ms=max(other, 0.0),
        measured_step_ms=statistics.fmean(run.period_ms),
        slowed=tuple(divmod(i, gpus) for i in split.slowed),
    )


def what_if(run: RunTimes, fitted: Fit) -> WhatIf:
    """Each step re-timed without its stragglers: from an analysis, its own what-if (`verdict`); for a run known by
    its compute alone, each step shortened by its worst straggler's lateness over the median of the others, the
    stragglers being the persistent ranks and the transient rank-steps the fit found."""
    measured = statistics.fmean(run.period_ms)
    if run.verdict_ms is not None:
        measured, step = run.verdict_ms
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


def cluster_config(fitted: Fit, gpus: int | None = None) -> ClusterConfig:
    """The cluster model with the fitted parameters (each kept within the model's range) and the run's timing."""
    return ClusterConfig(
        gpus=fitted.gpus if gpus is None else gpus,
        jitter_cv=_bounded(JITTER_CV.low, JITTER_CV.high, fitted.jitter_cv),
        straggler_prob=fitted.straggler_prob,
        slowdown=_bounded(CLUSTER_SLOWDOWN.low, CLUSTER_SLOWDOWN.high, fitted.slowdown),
        persistent=fitted.persistent,
        persistent_slowdown=_bounded(PERSISTENT_SLOWDOWN.low, PERSISTENT_SLOWDOWN.high, fitted.persistent_slowdown),
        timing=MeasuredTiming(fitted.compute_ms, fitted.other_ms),
    )


def predicted(fitted: Fit, own: ClusterResult | None = None) -> Prediction:
    """The model's expected step at the run's size (`own`, when already computed), against the measured mean step."""
    expected = (own or cluster_step(cluster_config(fitted))).expected_step_ms
    return Prediction(fitted.gpus, expected, fitted.measured_step_ms, expected / fitted.measured_step_ms - 1)


def at_scale(fitted: Fit, sizes: Sequence[int] = SCALE_SIZES) -> list[ClusterResult]:
    """The fitted model at the run's own size and at each of `sizes` (the same number of persistently slow ranks:
    one bad GPU is enough to hold back a job of any size). The slowest rank's distribution is built once."""
    config = cluster_config(fitted)
    model = slowest_rank(config)
    return [cluster_step(replace(config, gpus=n), model) for n in (fitted.gpus, *sizes) if n >= fitted.persistent]


@dataclass(frozen=True)
class Outlook:
    """All the fit says of a run: the parameters, the run without its stragglers, the check at its own size, and
    the run carried to larger clusters (its first row is the run's own size)."""

    fit: Fit
    whatif: WhatIf
    check: Prediction
    scale: tuple[ClusterResult, ...]


def outlook_or_why(analysis: Analysis) -> Outlook | FitError:
    """The outlook of an analysis at its own threshold, or the FitError saying why there is none."""
    try:
        return outlook(RunTimes.of_analysis(analysis), analysis.threshold)
    except FitError as exc:
        return exc


def outlook_of(analysis: Analysis) -> tuple[Outlook | None, str]:
    """`outlook_or_why` as the page keeps it: the outlook, or None and the FitError's code (its texts' key)."""
    seen = outlook_or_why(analysis)
    return (None, seen.code) if isinstance(seen, FitError) else (seen, "")


def outlook(run: RunTimes, threshold: float = THRESHOLD.default) -> Outlook:
    """The fit and everything derived from it, for the command line and the page alike."""
    fitted = fit(run, threshold)
    scale = tuple(at_scale(fitted))
    return Outlook(fitted, what_if(run, fitted), predicted(fitted, scale[0]), scale)
