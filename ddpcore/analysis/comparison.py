"""A run before and after a fix, compared: the step's change with its 95 % interval (a bootstrap over steps), the
stragglers that went, stayed or appeared, each rank's lateness and cause, the late ranks' excess by part, and the
check of the what-if: the ideal step predicted from the run before against the step measured after.

>>> from ddpcore.analysis import analyze
>>> from ddpcore.traces import simulated_run
>>> before = analyze(simulated_run(8, 40, persistent=(3,), seed=1)[0])
>>> after = analyze(simulated_run(8, 40, seed=2)[0])
>>> c = compare(before, after)
>>> c.stragglers.went, c.within_noise, abs(round(c.whatif.error, 2))
((3,), False, 0.0)
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from ..base.phases import CAUSES
from ..base.steps import finished
from ..base.words import Message, Ms, Share
from .verdict import Analysis, Cause

__all__ = ["Change", "Comparison", "compare", "comparing", "named_ranks"]

BOOTSTRAP_DRAWS = 2000
"""Resamples of each run's steps for the 95 % interval of a change (seeded: the same runs give the same interval)."""
SEED = 40


@dataclass(frozen=True)
class Change:
    """A figure before and after (ms), their difference, and its 95 % interval."""

    before: float
    after: float
    change: float
    ci95: tuple[float, float]

    @property
    def within_noise(self) -> bool:
        """The interval holds 0: the runs' own variation explains the change."""
        return self.ci95[0] <= 0.0 <= self.ci95[1]


@dataclass(frozen=True)
class StragglerChange:
    """The persistent stragglers before and after, and which went, stayed and appeared."""

    before: tuple[int, ...]
    after: tuple[int, ...]
    went: tuple[int, ...]
    stayed: tuple[int, ...]
    appeared: tuple[int, ...]


@dataclass(frozen=True)
class RankChange:
    """One rank's lateness (its median cost a step, ms) and cause (a persistent straggler's, else None), before and
    after."""

    rank: int
    lateness_before: float | None
    lateness_after: float | None
    cause_before: str | None
    cause_after: str | None


@dataclass(frozen=True)
class WhatIfCheck:
    """The ideal step the run before predicted (every late rank-step on time) against the step measured after;
    `error` is (measured − predicted) / predicted. `tests` says what part of the prediction the run after tests:
    `all` of it when it has no straggler left; the stragglers that `went` when others stay and none appeared;
    `none` when no straggler went or another appeared (the straggler moved)."""

    predicted_step_ms: float
    measured_step_ms: float
    error: float
    tests: str


@dataclass(frozen=True)
class Comparison:
    """Two runs compared (`compare`). `ranks` is empty when their world sizes differ (`notes` says so).

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import analyze
    >>> before = analyze(simulated_run(4, 20, persistent=(2,), seed=0)[0])
    >>> c = compare(before, analyze(simulated_run(4, 20, seed=1)[0]))
    >>> c.stragglers.went, c.step_ms.change < 0, c.within_noise
    ((2,), True, False)
    """

    step_ms: Change
    median_step_ms: Change
    stragglers: StragglerChange
    transient: tuple[float, float]
    ranks: tuple[RankChange, ...]
    parts_ms: dict[str, tuple[float, float]]
    whatif: WhatIfCheck
    notes: tuple[Message, ...]

    @property
    def within_noise(self) -> bool:
        """The mean step's change is within the runs' own variation."""
        return self.step_ms.within_noise


def _steps(analysis: Analysis) -> list[float]:
    return [s.median_step_ms for s in analysis.steps]


def bootstrap_ci(
    before: Sequence[float], after: Sequence[float], statistic: Callable[[Sequence[float]], float]
) -> tuple[float, float]:
    """The 95 % interval of statistic(after) − statistic(before), each run's steps resampled with replacement
    (percentile bootstrap, BOOTSTRAP_DRAWS draws, seeded).

    >>> lo, hi = bootstrap_ci([10.0, 11.0, 9.0, 10.0] * 5, [5.0, 6.0, 4.0, 5.0] * 5, statistics.fmean)
    >>> -5.6 < lo < hi < -4.4
    True
    """
    return finished(_bootstrapping(before, after, statistic))


DRAWS_A_STEP = 100
"""Bootstrap draws between two yields of `comparing`: the page gives its thread back between them."""


def _bootstrapping(
    before: Sequence[float], after: Sequence[float], statistic: Callable[[Sequence[float]], float]
) -> Generator[None, None, tuple[float, float]]:
    rng = random.Random(SEED)
    draws = []
    for k in range(BOOTSTRAP_DRAWS):
        draws.append(statistic(rng.choices(after, k=len(after))) - statistic(rng.choices(before, k=len(before))))
        if k % DRAWS_A_STEP == DRAWS_A_STEP - 1:
            yield
    draws.sort()
    return draws[int(0.025 * (BOOTSTRAP_DRAWS - 1))], draws[int(0.975 * (BOOTSTRAP_DRAWS - 1))]


def _change(
    before: Analysis, after: Analysis, statistic: Callable[[Sequence[float]], float]
) -> Generator[None, None, Change]:
    b, a = statistic(_steps(before)), statistic(_steps(after))
    return Change(b, a, a - b, (yield from _bootstrapping(_steps(before), _steps(after), statistic)))


def late_excess_ms(analysis: Analysis) -> dict[str, float]:
    """The late ranks' excess a step in each part of the work (ms): every persistent straggler's, plus the
    transient late rank-steps' spread over all steps; zero where the traces tell no parts.

    >>> from ddpcore.analysis import analyze
    >>> from ddpcore.traces import simulated_run
    >>> excess = late_excess_ms(analyze(simulated_run(8, 40, persistent=(3,), seed=1)[0]))
    >>> excess["backward"] > excess["forward"] > 0 == excess["load"]
    True
    """
    out = dict.fromkeys(CAUSES, 0.0)
    for s in analysis.stragglers:
        for p, ms in (s.cause.parts_ms if s.cause else {}).items():
            out[p] += ms
    t = analysis.transient
    if t.cause is not None and analysis.steps:
        share = t.straggler_steps / len(analysis.steps)
        for p, ms in t.cause.parts_ms.items():
            out[p] += ms * share
    return out


def _cause(analysis: Analysis) -> dict[int, Cause | None]:
    return {s.rank: s.cause for s in analysis.stragglers}


def _ranks(before: Analysis, after: Analysis) -> tuple[RankChange, ...]:
    late_b = {r.rank: r.median_cost_ms for r in before.ranks}
    late_a = {r.rank: r.median_cost_ms for r in after.ranks}
    cause_b, cause_a = _cause(before), _cause(after)

    def kind(causes: dict[int, Cause | None], rank: int) -> str | None:
        cause = causes.get(rank)
        return cause.kind if cause is not None else None

    return tuple(
        RankChange(rank, late_b.get(rank), late_a.get(rank), kind(cause_b, rank), kind(cause_a, rank))
        for rank in sorted(late_b.keys() | late_a.keys())
    )


def _whatif(before: Analysis, after: Analysis, stragglers: StragglerChange) -> WhatIfCheck:
    predicted, measured = before.ideal_step_ms, after.step_ms
    if not after.stragglers and not after.transient.straggler_steps:
        tests = "all"
    elif stragglers.went and not stragglers.appeared:
        tests = "went"
    else:
        tests = "none"
    return WhatIfCheck(predicted, measured, (measured - predicted) / predicted if predicted > 0 else 0.0, tests)


def named_ranks(ranks: tuple[int, ...] | str, count: int | None = None) -> Message:
    """Ranks as the notes and the page name them: "rank 2", "ranks 2, 5", "no rank", never a bare number that reads as
    a count; `ranks` may be a list already written (with `count`, how many it stands for).

    >>> named_ranks((2,)).text(), named_ranks((2, 5)).text("fr"), named_ranks(()).text()
    ('rank 2', 'rangs 2, 5', 'no rank')
    """
    many = len(ranks) if count is None else count
    if not many:
        return Message.of("ranks.none")
    return Message.of("ranks.one" if many == 1 else "ranks.many", ranks=ranks)


def _verdicts(before: Analysis, after: Analysis) -> Message:
    """What each run's verdict found: what the notes after it rest on, and what tells two readings of one pair of runs
    apart (a profiler trace and a JSONL file of the same job can judge differently)."""
    return Message.of(
        "compare.verdicts",
        before=named_ranks(tuple(s.rank for s in before.stragglers)),
        before_steps=before.transient.straggler_steps,
        after=named_ranks(tuple(s.rank for s in after.stragglers)),
        after_steps=after.transient.straggler_steps,
    )


def _tested(tests: str, stragglers: StragglerChange) -> Message:
    """What the run after tests of the prediction, and why (`WhatIfCheck.tests`)."""
    if tests != "none":
        return Message.of(f"compare.whatif_{tests}")
    if stragglers.appeared:
        moved = "moved" if stragglers.went else "new"
        return Message.of(f"compare.whatif_{moved}", appeared=named_ranks(stragglers.appeared))
    if stragglers.stayed:
        return Message.of("compare.whatif_stayed", stayed=named_ranks(stragglers.stayed))
    return Message.of("compare.whatif_none_before")


def _missed(before: Analysis, step_ms: Change, whatif: WhatIfCheck) -> Message | None:
    """When the run after is faster, beyond noise, than the run before predicted without the stragglers it named, by
    at least the threshold's share of that prediction: what slowed the run before, its verdict did not name (a run
    judged clean predicts its own step)."""
    gain = whatif.predicted_step_ms - whatif.measured_step_ms
    if step_ms.ci95[1] >= 0.0 or gain < before.threshold * whatif.predicted_step_ms:
        return None
    return Message.of("compare.missed", gain=Ms(gain), share=Share(gain / whatif.predicted_step_ms))


def compare(before: Analysis, after: Analysis) -> Comparison:
    """The run after a fix against the run before (both judged at their thresholds): see the module's docstring.

    Rank 1 is slow before the fix and on time after it:

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import analyze
    >>> before, after = (analyze(simulated_run(4, 20, persistent=p, seed=0)[0]) for p in ((1,), ()))
    >>> c = compare(before, after)
    >>> c.stragglers.before, c.stragglers.after, round(c.step_ms.before - c.step_ms.after) > 0
    ((1,), (), True)
    """
    return finished(comparing(before, after))


def comparing(before: Analysis, after: Analysis) -> Generator[None, None, Comparison]:
    """`compare` in steps (a hundred bootstrap draws each): the page gives its thread back between them.

    >>> from ddpcore.analysis import analyze
    >>> from ddpcore.traces import simulated_run
    >>> run = analyze(simulated_run(4, 20, seed=1)[0])
    >>> steps, yields = comparing(run, run), 0
    >>> try:
    ...     while True:
    ...         next(steps)
    ...         yields += 1
    ... except StopIteration as done:
    ...     same = done.value
    >>> yields, same.within_noise, same.stragglers.stayed
    (40, True, ())
    """
    named_b = tuple(s.rank for s in before.stragglers)
    named_a = tuple(s.rank for s in after.stragglers)
    stragglers = StragglerChange(
        named_b,
        named_a,
        tuple(r for r in named_b if r not in named_a),
        tuple(r for r in named_b if r in named_a),
        tuple(r for r in named_a if r not in named_b),
    )
    notes: list[Message] = []
    same_world = {r.rank for r in before.ranks} == {r.rank for r in after.ranks}
    if not same_world:
        notes.append(Message.of("compare.world", before=len(before.ranks), after=len(after.ranks)))
    whatif = _whatif(before, after, stragglers)
    notes += [_verdicts(before, after), _tested(whatif.tests, stragglers)]
    excess_b, excess_a = late_excess_ms(before), late_excess_ms(after)
    step_ms = yield from _change(before, after, statistics.fmean)
    median_step_ms = yield from _change(before, after, statistics.median)
    missed = _missed(before, step_ms, whatif)
    if missed is not None:
        notes.append(missed)
    return Comparison(
        step_ms=step_ms,
        median_step_ms=median_step_ms,
        stragglers=stragglers,
        transient=(before.transient.fraction, after.transient.fraction),
        ranks=_ranks(before, after) if same_world else (),
        parts_ms={p: (excess_b[p], excess_a[p]) for p in CAUSES},
        whatif=whatif,
        notes=tuple(notes),
    )
