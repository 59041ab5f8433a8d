"""The verdict on a measured run at a threshold: who is late, how often, why, and what the step would be without them.

Runs where the verdict is shown (the page judges the worker's measurement again at each threshold), on `measured`.
How late ranks are by chance was measured there, on the ranks on time (`chance`).

- A rank-step is **over the threshold** when its gap reaches it, and **late** when it is also a persistent
  straggler's, or later than chance (its work past the run's floor, which the latest of N on-time ranks passes in
  one step in a thousand). The verdict's transient count, the per-step table and the rank x step map read the same
  late rank-steps.
- A **persistent straggler** is over the threshold in a strict majority of steps, and later than chance by how
  late it is, not only how often (`chance.persistence`: its mean lateness against what the mean of as many on-time
  rank-steps reaches, at one in a thousand over the N ranks): its median gap is then above the threshold, whether
  or not it is the very latest rank. A rank slow in a stretch of the run only is named for that stretch
  (`Straggler.from_step`, `to_step`). A window too short to decide says how many more steps would
  (`Undecided`).
- **Transient stragglers** are counted as a share of steps: the steps in which a rank other than the persistent
  stragglers is late.
- **Why**: a late rank's work from the previous release to its readiness, part by part (`phases.CAUSES`), minus
  the median of the ranks on time in that step (two slow ranks do not hide each other's cause); the part that
  dominates (at least CAUSE_SHARE of the lateness, and CAUSE_LEAD times the next part) names the cause, with its
  share and the next part's, else it is `mixed`.
- **What if**: each step re-timed with every late rank, persistent or transient, ready when the median of the ranks
  on time was. The barrier releases every rank a transfer after the last one is ready, so the step shortens by how
  much earlier the last rank is ready (after "Understanding Stragglers in Large Model Training Using What-if
  Analysis", OSDI 2025, which simulates each step with straggling operations set to their typical duration). That
  saving is the step's straggler cost, split into what the persistent stragglers cost alone and what the transient
  ones add; the ideal step is the step without it. Jitter's own cost, how much later the latest on-time rank is
  than their median, is reported beside it, not in it. Headline step, cost and efficiency are means over steps,
  because the mean is what a job pays: a median hides exactly the rare slow steps that large jobs have most.
  Medians are given beside them.

>>> named_cause({"load": 1.0, "forward": 0.5, "between_steps": 18.5}, lateness_ms=20.0).kind
'between_steps'
"""

from __future__ import annotations

import math
import statistics
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from ..base import THRESHOLD
from ..base.phases import BETWEEN_STEPS, CAUSES, LOAD, MIXED
from ..base.steps import finished
from ..base.words import Message, Ms, Share
from ..storage.picking import least_at
from ..traces import RankColumns, RankFacts, RankTrace
from ..traces.keeping import GpuGauges
from ..traces.stepfacts import Column
from .chance import (
    ALPHA,
    UNDECIDED_WINDOW,
    Chance,
    Lateness,
    Middle,
    Others,
    Persistence,
    beyond_jitter,
    count_needed,
    effective_steps,
    level_of,
    others_spread,
    persistence,
    steps_to_decide,
    transient_share,
)
from .chance import needed as needed_mean
from .measured import measure
from .rankmap import RankStepMap
from .results import Measured, RankSummary, StepColumns, StepSummary
from .shards import Shard, measure_shards
from .whatif import retimed_saving

__all__ = [
    "Analysis",
    "bar_past_step",
    "Cause",
    "CostParts",
    "JUDGED_A_STEP",
    "Noise",
    "Straggler",
    "Transient",
    "Undecided",
    "UndecidedMoving",
    "analyze",
    "cause_message",
    "cause_text",
    "gap_message",
    "judge",
    "judge_in_steps",
    "loading_unmarked",
    "merge",
    "named_cause",
    "on_time",
    "stretch_message",
    "undecided_message",
    "undecided_moving",
    "undecided_moving_message",
    "prefetch_case",
    "prefetch_message",
    "prefetch_text",
    "saved_ms",
]

CAUSE_SHARE = 0.5
"""A part names a rank's cause when it holds at least this share of its lateness (most of it) ..."""
CAUSE_LEAD = 2.0
"""... and at least this many times the next part's excess: it dominates."""


def cause_message(cause: Cause, many: bool = False) -> Message:
    """Why a rank is late, as a message (`base.words`, `cause.<kind>`), e.g. "19.6 ms a step between its optimizer
    and its next step, …"; or why `many` are, in each of their late steps (`causes.<kind>`: the transient
    stragglers); a `mixed` cause lists its largest parts.

    >>> cause = named_cause({"forward": 38.0}, lateness_ms=40.0)
    >>> cause_message(cause).text(), cause_message(cause).text("fr")
    ('38.0 ms a step longer in its forward (95\\u202f%)', '38,0\\u202fms par pas de plus dans son forward (95\\u202f%)')
    >>> cause_message(named_cause({"forward": 14.5, "backward": 3.2}, lateness_ms=19.0)).text()
    '14.5 ms a step longer in its forward (76\u202f%; backward 17\u202f%)'
    >>> cause_message(named_cause({"forward": 14.5, "backward": 0.01}, lateness_ms=19.0)).text()
    '14.5 ms a step longer in its forward (76\u202f%)'

    """
    parts = tuple(Message.of("cause.part_ms", part=Message.of(f"part.{p}"), ms=Ms(v)) for p, v in cause.largest())
    said = Message.of(f"{'causes' if many else 'cause'}.{cause.kind}", ms=Ms(cause.ms), parts=parts)
    if cause.kind == MIXED or cause.lateness_ms <= 0:
        return said
    following = [(p, ms) for p, ms in cause.largest(2)[1:] if ms >= 0.005 * cause.lateness_ms]
    if not following:
        return Message.of("cause.share", cause=said, share=Share(cause.share))
    part, ms = following[0]
    return Message.of(
        "cause.shares",
        cause=said,
        share=Share(cause.share),
        part=Message.of(f"part.{part}"),
        next=Share(cause.share_of(ms)),
    )


def stretch_message(straggler: Straggler) -> Message | None:
    """Where a persistent straggler was slow, when it was not slow over the whole run ("slow from step 35").

    >>> stretch_message(Straggler(1, 0.3, 9.0, 24, None, 35, None)).text()
    'slow from step 35'
    """
    start, stop = straggler.from_step, straggler.to_step
    if start is None and stop is None:
        return None
    if stop is None:
        return Message.of("verdict.from", start=start)
    if start is None:
        return Message.of("verdict.until", stop=stop)
    return Message.of("verdict.from_to", start=start, stop=stop)


def bar_past_step(bar_ms: float, step_ms: float) -> bool:
    """Whether chance puts a straggler's bar past a whole step: a transient one's (the floor: no rank-step alone can
    pass it) or a persistent one's (`Noise.mean_needed_ms`: no rank's mean lateness can). A rank's work lies within
    its step, so only a heavy tail read far out puts a bar there, and the verdict says so rather than give the
    figure as a lateness.

    >>> bar_past_step(40_054.7, 41.0), bar_past_step(7.2, 30.8)
    (True, False)
    """
    return bar_ms > step_ms


def undecided_message(undecided: Undecided, steps: int) -> Message:
    """What a window too short to name a rank would need.

    >>> undecided_message(Undecided(2, 3, 5.08, 2), 3).text()
    'rank 2 is over the threshold in 3 of 3 steps, 5.1 ms a step later ... 2 more step(s) as late would name it ...'

    """
    return Message.of(
        "verdict.undecided",
        rank=undecided.rank,
        over=undecided.over_steps,
        steps=steps,
        ms=Ms(undecided.mean_ms),
        more=undecided.more_steps,
    )


def undecided_moving(chance: Chance) -> UndecidedMoving | None:
    """What a window too short to tell a straggler that moves would need (`chance.Spaced.more_steps`), when each
    step's latest rank is not found late already; None when steps as clear would not tell it within UNDECIDED_WINDOW
    times as many.

    >>> from ddpcore.analysis.chance import Led, Spaced, Tail
    >>> plain = Tail(0.0, 1.0, 1.0)
    >>> undecided_moving(Chance(4, plain, 5.0, plain, 32, spaced=Spaced(8, 8), led=Led(9.0, 2.43, 8)))
    UndecidedMoving(spaced_steps=8, lead_ms=None, steps_read=8, more_steps=2)
    >>> undecided_moving(Chance(64, plain, 5.0, plain, 512, led=Led(9.0, 2.43, 8)))
    UndecidedMoving(spaced_steps=None, lead_ms=9.0, steps_read=8, more_steps=11)
    >>> undecided_moving(Chance(4, plain, 5.0, plain, 32, leads=True, spaced=Spaced(8, 8))) is None
    True
    """
    if chance.leads:
        return None
    spaced, led = chance.spaced.more_steps(UNDECIDED_WINDOW), chance.led.more_steps(UNDECIDED_WINDOW)
    if spaced is not None and (led is None or spaced <= led):
        return UndecidedMoving(chance.spaced.spaced, None, chance.spaced.read, spaced)
    if led is not None:
        return UndecidedMoving(None, chance.led.mean, chance.led.read, led)
    return None


def undecided_moving_message(undecided: UndecidedMoving) -> Message:
    """What a window too short to tell a straggler that moves would need, in words.

    >>> undecided_moving_message(UndecidedMoving(8, None, 8, 2)).text()
    "in 8 of 8 steps the latest rank leads the next by more than twice ...: 2 more step(s) as clear would tell it..."
    >>> undecided_moving_message(UndecidedMoving(None, 9.04, 8, 11)).text()
    "each step's latest rank leads the next by 9.0 ms more than chance ... over 8 steps, ...: 11 more step(s) as ..."
    """
    if undecided.lead_ms is not None:
        return Message.of(
            "verdict.undecided_moving_lead",
            ms=Ms(undecided.lead_ms),
            steps=undecided.steps_read,
            more=undecided.more_steps,
        )
    return Message.of(
        "verdict.undecided_moving",
        spaced=undecided.spaced_steps,
        steps=undecided.steps_read,
        more=undecided.more_steps,
    )


def gap_message(
    median_gap: float,
    threshold: float,
    efficiency: float,
    undecided: bool,
    ranks: int,
    steps: int,
    chance: float,
    named: int = 0,
    leads: bool = False,
) -> Message | None:
    """Why the latest rank's gap is large where the verdict names little of it: each step's latest rank is behind by
    `median_gap` of the step (median), at or over the threshold, while what the stragglers named cost is under half of
    that (1 - `efficiency`). Either the window is too short to tell a rank this late from chance (`undecided`), or the
    jitter the run shows puts some rank of `ranks` that far back (an on-time rank is over the threshold in `chance` of
    the steps: a straggler that moves every step, or ranks sharing cores, widen that jitter itself, and the note says so
    rather than call it chance's); with `named` persistent stragglers, what they cost is said beside it, and nothing
    claims that no rank is later than chance; where each step's latest rank `leads` the next by more than chance, the
    note says a straggler moves between ranks, and what it costs. None when the figures agree.

    >>> gap_message(0.51, 0.1, 1.0, True, 4, 3, 0.02).text()
    "no rank is named late, yet each step's latest rank ... 3 steps are too few to tell a rank this late from chance"
    >>> gap_message(0.3, 0.1, 0.75, False, 4, 30, 0.2) is None
    True
    >>> gap_message(0.3, 0.1, 0.95, False, 4, 54, 0.2, named=2).text()
    "each step's latest rank is 30...the stragglers named cost 5...of a step: with 4 ranks, the jitter this run ..."
    >>> gap_message(0.3, 0.1, 0.91, False, 4, 59, 0.3, leads=True).text()
    "each step's latest rank is 30...leads the next one by more than chance...moves from rank to rank...costs 9..."
    >>> gap_message(0.3, 0.1, 1.0, False, 4, 59, 0.3, leads=True).text()
    "each step's latest rank is 30...moves from rank to rank...what it costs cannot be told apart from the jitter..."
    """
    if median_gap < threshold or 1.0 - efficiency >= median_gap / 2:
        return None
    if leads and efficiency < 1.0:
        return Message.of("verdict.gap_moving", gap=Share(median_gap), cost=Share(1.0 - efficiency), ranks=ranks)
    if leads:
        return Message.of("verdict.gap_moving_uncosted", gap=Share(median_gap), ranks=ranks)
    if named:
        cost = Share(1.0 - efficiency)
        return Message.of("verdict.gap_named", gap=Share(median_gap), cost=cost, ranks=ranks, chance=Share(chance))
    if undecided:
        return Message.of("verdict.gap_few", gap=Share(median_gap), steps=steps)
    return Message.of("verdict.gap_chance", gap=Share(median_gap), ranks=ranks, chance=Share(chance))


def cause_text(cause: Cause, many: bool = False) -> str:
    """One line of why, in English: of one rank, or of `many` (the transient stragglers, in each of their steps).

    >>> cause_text(named_cause({"load": 19.0, "forward": 1.0}, lateness_ms=20.0))
    '19.0 ms a step loading its input (95\u202f%; forward 5\u202f%)'
    >>> cause_text(named_cause({"backward": 19.0}, lateness_ms=20.0), many=True)
    '19.0 ms more than the median rank in each of those steps, in their backward (95\u202f%)'
    """
    return cause_message(cause, many).text()


def prefetch_case(cause: Cause, load_marked: bool) -> str:
    """What prefetching would do for a late rank (`base.words`, `prefetch.<case>`): save time when most of its excess is
    loading its input, perhaps when it is time between steps in traces that mark no loading (a profiler trace
    without the DataLoader's annotation counts loading there), else nothing.

    >>> loading, forward = named_cause({"load": 19.0}, 20.0), named_cause({"forward": 19.0}, 20.0)
    >>> prefetch_case(loading, True), prefetch_case(forward, False)
    ('saves', 'no')
    """
    if cause.main_part == LOAD:
        return "saves"
    if cause.main_part == BETWEEN_STEPS and not load_marked:
        return "maybe"
    return "no"


def prefetch_message(cause: Cause, gain_ms: float, load_marked: bool = True) -> Message:
    """The seed's lesson on this run: prefetching fixes an input straggler and nothing else.

    >>> prefetch_message(named_cause({"load": 19.0}, 20.0), gain_ms=18.5).text()
    'prefetching input would save about 18.5 ms a step'
    """
    return Message.of(
        f"prefetch.{prefetch_case(cause, load_marked)}", ms=Ms(gain_ms), part=Message.of(f"part.{cause.main_part}")
    )


def prefetch_text(cause: Cause, gain_ms: float, load_marked: bool = True) -> str:
    """The lesson, in English.

    >>> prefetch_text(named_cause({"forward": 19.0}, 20.0), gain_ms=0.0)
    'prefetching input would not help: the time is lost in forward'
    """
    return prefetch_message(cause, gain_ms, load_marked).text()


def loading_unmarked(causes: Sequence[Cause | None], load_marked: bool) -> bool:
    """Whether to say that the traces mark no loading: they do not, and a cause's main part is between steps.

    >>> loading_unmarked([named_cause({"between_steps": 19.0}, 20.0)], load_marked=False)
    True
    """
    return not load_marked and any(c is not None and c.main_part == BETWEEN_STEPS for c in causes)


@dataclass(frozen=True)
class Cause:
    """Why a rank is late: its excess over the median of the ranks on time in each part of its work (ms a step,
    `phases.CAUSES`), and the part that explains at least CAUSE_SHARE of its lateness (`kind`), else `mixed`. `ms` is
    that part's excess a step (mixed: the whole lateness), `share` its share of the lateness (mixed: the largest
    part's), of `whole_ms`, so that the parts' shares add up to 1 at most.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> cause = analyze(ranks).stragglers[0].cause
    >>> cause.kind, round(cause.parts_ms["forward"], 1), round(cause.parts_ms["backward"], 1)
    ('mixed', 7.8, 11.8)
    """

    kind: str
    ms: float
    share: float
    parts_ms: dict[str, float]
    lateness_ms: float

    @property
    def whole_ms(self) -> float:
        """What the parts' shares are of: the lateness, or the parts' excesses added when more (each part's median
        is taken on its own, and a part where the rank is quicker than the others takes from the lateness what the
        others add).

        >>> named_cause({"forward": 19.0, "backward": 3.0, "optimizer": -3.0}, 19.0).whole_ms
        22.0
        """
        return _whole_ms(self.parts_ms, self.lateness_ms)

    def share_of(self, ms: float) -> float:
        """A part's share of the lateness (`whole_ms`)."""
        whole = self.whole_ms
        return ms / whole if whole > 0 else 0.0

    def largest(self, most: int = 3) -> list[tuple[str, float]]:
        """The parts with an excess, largest first: what a `mixed` cause lists."""
        return sorted(((p, v) for p, v in self.parts_ms.items() if v > 0), key=lambda pv: -pv[1])[:most]

    @property
    def main_part(self) -> str:
        """Where the time goes: the cause, or for `mixed` its largest part."""
        if self.kind != MIXED:
            return self.kind
        return next(iter(self.largest(1)), (MIXED, 0.0))[0]


@dataclass(frozen=True)
class Straggler:
    """A rank over the threshold in a strict majority of steps and later than chance by its mean lateness
    (`chance.persistence`), and why (None when its traces tell no parts). `from_step` and `to_step`: where it was
    slow in a stretch of the run only, the step it became slow at and the step it was on time again at (None: from
    the first step, or to the last)."""

    rank: int
    median_gap: float
    median_cost_ms: float
    late_steps: int
    cause: Cause | None = None
    from_step: int | None = None
    to_step: int | None = None


@dataclass(frozen=True)
class Undecided:
    """A rank over the threshold in a strict majority of a window too short to name it: how many of the steps, its
    mean lateness (ms a step, against the other ranks' median work), and how many more steps as late as these would
    name it a persistent straggler."""

    rank: int
    over_steps: int
    mean_ms: float
    more_steps: int


@dataclass(frozen=True)
class UndecidedMoving:
    """A window too short to tell a straggler that moves from rank to rank from jitter, by the evidence that needs
    the fewer more steps: of the steps read, how many have their latest rank lead the next by more than twice the
    next's lead over the third (`spaced_steps`, `chance.Spaced`), or how much further, on average, their latest rank
    leads the next than chance makes the latest of as many lead (`lead_ms`, `chance.Led`), the other None; and how
    many more steps as clear would tell it (each step's latest rank then late beyond chance)."""

    spaced_steps: int | None
    lead_ms: float | None
    steps_read: int
    more_steps: int


@dataclass(frozen=True)
class Transient:
    """Steps in which a rank other than the persistent stragglers was late (over the threshold and later than
    chance), and why, over all those late rank-steps together."""

    steps: int
    straggler_steps: int
    fraction: float
    mean_cost_ms: float
    ranks: tuple[int, ...]
    step_numbers: tuple[int, ...]
    cause: Cause | None = None


@dataclass(frozen=True)
class CostParts:
    """A step's straggler cost (means over steps, ms), split: what re-timing the persistent stragglers alone saves,
    what re-timing the transient ones too adds, and lateness beyond chance that no rank-step named holds
    (`unnamed`: how much later the latest rank on time is than chance makes the latest of as many,
    `chance.beyond_jitter`); and beside them, not in them, jitter's own: how much later than the median one chance
    makes the latest on-time rank ready, what as many ranks on time cost."""

    persistent: float
    transient: float
    jitter: float
    unnamed: float = 0.0


@dataclass(frozen=True)
class Noise:
    """What chance allows at this threshold: the share of on-time rank-steps over it (`chance_over_threshold`), the
    steps a persistent straggler is over it in (`persistent_needed`: a strict majority, or between two ranks with a
    straggler moving between them more than a fair coin gives, `chance.count_needed`), the mean lateness over the
    run's steps that it must pass (`mean_needed_ms`: work beyond the other ranks' median, which the mean of as many
    on-time rank-steps passes with probability alpha / ranks), the tests' level `alpha`, and whether each step's
    latest rank leads the next by more than chance makes the latest of as many lead, or the run's largest works fall
    in more of its steps than chance puts them in (`leads_beyond_chance`, `rounds.tops_late`: a straggler that moves
    from rank to rank, whether or not its steps stand out alone), and then the work beyond the others' from which a
    step's latest rank is late, when under the floor (`latest_floor_ms`, `chance.tops_floor`; None otherwise)."""

    chance_over_threshold: float
    persistent_needed: int
    alpha: float = ALPHA
    mean_needed_ms: float = 0.0
    leads_beyond_chance: bool = False
    latest_floor_ms: float | None = None


@dataclass(frozen=True)
class Analysis:
    """The verdict on a run: per rank, per step, the stragglers, and the headline figures (means over steps).
    `prefetch_gain_ms` is what the step would gain if the late ranks' excess loading time were hidden;
    `jitter_floor_ms` how much more than the other ranks' median work a rank-step's work must take to be later than
    chance; `cost_parts_ms` the cost split (`CostParts`); `noise` what chance allows (`Noise`); `load_marked` whether
    the traces mark input loading (a profiler trace without the DataLoader's annotation counts it between steps).

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(4, 6, persistent=(1,), seed=0)
    >>> a = analyze(ranks)
    >>> a.straggler_rank, round(a.straggler_cost_ms, 2), round(a.efficiency, 3), a.transient.straggler_steps
    (1, 19.41, 0.593, 0)
    """

    ranks: tuple[RankSummary, ...]
    steps: tuple[StepSummary, ...]
    stragglers: tuple[Straggler, ...]
    transient: Transient
    threshold: float
    step_ms: float
    median_step_ms: float
    straggler_cost_ms: float
    median_cost_ms: float
    ideal_step_ms: float
    efficiency: float
    median_gap: float
    wait_ms_total: float
    gpu: GpuGauges | None
    warnings: tuple[str, ...]
    rank_map: RankStepMap
    prefetch_gain_ms: float = 0.0
    jitter_floor_ms: float = 0.0
    cost_parts_ms: CostParts = CostParts(0.0, 0.0, 0.0)
    noise: Noise = Noise(0.0, 0)
    load_marked: bool = True
    undecided: tuple[Undecided, ...] = ()
    undecided_moving: UndecidedMoving | None = None

    @property
    def straggler_rank(self) -> int | None:
        """The worst persistent straggler, or None when no rank is consistently late."""
        return self.stragglers[0].rank if self.stragglers else None

    @property
    def too_short(self) -> bool:
        """Whether the window is too short to tell what it shows: a rank late in most steps (`undecided`), or a
        straggler that may move (`undecided_moving`), that more steps as late would tell from chance."""
        return bool(self.undecided) or self.undecided_moving is not None


@dataclass(frozen=True)
class OnTime:
    """What a step's ranks on time did, whichever entries are late: their median wait, the smallest of their waits
    (the latest of them), and their median time in each part of the work (None when unknown)."""

    median_wait_ms: float
    least_wait_ms: float
    parts_ms: dict[str, float] | None


def on_time(columns: StepColumns, late: Sequence[int]) -> OnTime:
    """The ranks on time in a step, from its middles (`measured`); with many late entries, from its columns.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> step = a.steps[5]
    >>> round(on_time(step.columns, [3]).median_wait_ms, 1)
    24.5
    """
    gone = set(late)
    least = next((i for i in columns.lowest if i not in gone), None)
    if least is None:
        least = least_at(columns.wait_ms, (i for i in range(len(columns.wait_ms)) if i not in gone))

    def median(middle: Middle, column: Column) -> float:
        found = middle.median_without([column[i] for i in late])
        if found is not None:
            return found
        kept = [v for i, v in enumerate(column) if i not in gone] or list(column)
        return statistics.median(kept)

    parts = columns.parts_ms
    return OnTime(
        median(columns.waits, columns.wait_ms),
        columns.wait_ms[least],
        None if parts is None or columns.parts is None else {p: median(columns.parts[p], v) for p, v in parts.items()},
    )


def saved_ms(ranks: StepColumns, late: Sequence[int], typical: OnTime | None = None) -> float:
    """The what-if of one step: each late entry ready when the median of the ranks on time was (`typical`, else
    every entry but the late ones). The common case, the latest rank alone late, was re-timed once by `measure`.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import judge, measure
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = judge(measure(ranks))
    >>> step = a.steps[5]
    >>> round(saved_ms(step.columns, [3]), 1)
    18.9
    """
    if not late:
        return 0.0
    if typical is None and len(late) == 1 and late[0] == ranks.solo_entry:
        return ranks.solo_saved_ms
    median = (typical or on_time(ranks, late)).median_wait_ms
    return retimed_saving(ranks.wait_ms, ranks.first_ms, ranks.free_ms, {i: median - ranks.wait_ms[i] for i in late})


def latest_on_time(work_ms: Sequence[float], late: Sequence[int]) -> float:
    """How much more work the latest rank on time did in a step than their median (0 with fewer than two): what
    `chance.beyond_jitter` weighs, on the work chance is fitted on (a rank's wait also holds when it saw the
    previous release, which on CPU runs each rank sees at its own moment).

    >>> latest_on_time([10.0, 12.0, 11.0, 30.0], [3])
    1.0
    """
    gone = set(late)
    kept = [w for i, w in enumerate(work_ms) if i not in gone] if gone else list(work_ms)
    return max(kept) - statistics.median(kept) if len(kept) >= 2 else 0.0


def _whole_ms(parts_ms: dict[str, float], lateness_ms: float) -> float:
    return max(lateness_ms, math.fsum(v for v in parts_ms.values() if v > 0))


def named_cause(parts_ms: dict[str, float], lateness_ms: float) -> Cause:
    """The part that dominates the lateness (at least CAUSE_SHARE of it, and CAUSE_LEAD times the next part's
    excess), else `mixed`.

    >>> named_cause({"forward": 14.5, "backward": 3.2, "between_steps": 1.3}, 19.0).kind
    'forward'
    >>> named_cause({"forward": 9.0, "backward": 6.0}, 15.0).kind
    'mixed'
    """
    parts = {p: parts_ms.get(p, 0.0) for p in CAUSES}
    top, following = sorted(CAUSES, key=lambda p: -parts[p])[:2]
    whole = _whole_ms(parts, lateness_ms)
    share = max(0.0, parts[top] / whole) if lateness_ms > 0 else 0.0
    if share >= CAUSE_SHARE and parts[top] >= CAUSE_LEAD * max(0.0, parts[following]):
        return Cause(top, parts[top], share, parts, lateness_ms)
    return Cause(MIXED, lateness_ms, share, parts, lateness_ms)


def _cause(hits: Sequence[tuple[StepSummary, int]], typical: dict[int, OnTime]) -> Generator[None, None, Cause | None]:
    """The cause over late rank-steps (a step and an entry in it), from the steps whose parts are known, against
    the ranks on time in each (`typical`, by step number); yields after each chunk of them (`_chunks`: a
    persistent straggler of a long run is late in thousands)."""
    known = [(s, i) for s, i in hits if s.columns.from_release and s.columns.parts_ms is not None]
    if not known:
        return None
    excess = dict.fromkeys(CAUSES, 0.0)
    lateness = 0.0
    for chunk in _chunks(known):
        for s, i in chunk:
            them = typical[s.step]
            for p, values in (s.columns.parts_ms or {}).items():
                excess[p] += values[i] - (them.parts_ms or {}).get(p, 0.0)
            lateness += them.median_wait_ms - s.columns.wait_ms[i]
        yield
    n = len(known)
    return named_cause({p: v / n for p, v in excess.items()}, lateness / n)


def _entry(step: StepSummary, rank: int) -> int:
    return bisect_left(step.columns.ranks, rank)


def _transient(steps: Sequence[StepSummary], judged: _LateSteps) -> Generator[None, None, Transient]:
    hit: list[tuple[StepSummary, float]] = []
    late: list[tuple[StepSummary, int]] = []
    ranks: set[int] = set()
    for k, chunk in enumerate(_chunks(steps)):
        for j, s in enumerate(chunk, start=k * JUDGED_A_STEP):
            others = [r for r in s.late_ranks if not judged.persistent_at(r, j)]
            if others:
                entries = [_entry(s, r) for r in others]
                hit.append((s, max(s.columns.cost_ms[i] for i in entries)))
                late.extend((s, i) for i in entries)
                ranks.update(others)
        yield
    cause = yield from _cause(late, judged.typical)
    return Transient(
        steps=len(steps),
        straggler_steps=len(hit),
        fraction=len(hit) / len(steps),
        mean_cost_ms=statistics.fmean(c for _, c in hit) if hit else 0.0,
        ranks=tuple(sorted(ranks)),
        step_numbers=tuple(s.step for s, _ in hit),
        cause=cause,
    )


def _prefetch_saving(step: StepSummary, typical: OnTime) -> float:
    """What the step would gain if its late ranks loaded no slower than the median rank on time (input prefetched)."""
    parts = step.columns.parts_ms
    if not step.late_ranks or not parts or LOAD not in parts or not step.columns.from_release:
        return 0.0
    usual = (typical.parts_ms or {}).get(LOAD, 0.0)
    c = step.columns
    entries = [_entry(step, r) for r in step.late_ranks]
    return retimed_saving(c.wait_ms, c.first_ms, c.free_ms, {i: parts[LOAD][i] - usual for i in entries})


Judging = Generator[None, None, Analysis]
"""A judgement in steps: it yields after each measured step (a step of thousands of ranks re-timed takes a ms or
more), and every JUDGED_A_STEP steps of its other passes over them, so that a page can give its thread back between
them; its value is the Analysis."""

T = TypeVar("T")


JUDGED_A_STEP = 512
"""Steps (or late rank-steps) a pass of `judge_in_steps` goes through between two yields: the pass that checks all
11,700 steps of a long run against the threshold took the page 60-90 ms at once on a slow machine, the prefetch what-if
up to 230 ms."""
RANK_STEPS_A_STEP = 1 << 16
"""Rank-steps whose gaps a pass of `judge_in_steps` compares with the threshold between two yields (one C pass over
a step's gaps: 512 steps of 4,096 ranks at once took 80 ms natively)."""


def _chunks(items: Sequence[T], size: int = JUDGED_A_STEP) -> Iterator[Sequence[T]]:
    """`items` JUDGED_A_STEP (or `size`) at a time: a pass of `judge_in_steps` yields after each."""
    return (items[k : k + size] for k in range(0, len(items), size))


@dataclass(frozen=True)
class _LateSteps:
    """A judgement's passes over the steps: each step with its late ranks and saving, how many steps each rank was
    over the threshold in, the persistent stragglers, what chance allows, the ranks on time in each step with late
    ranks (by step number), and per step what the persistent stragglers alone cost and what jitter did."""

    steps: list[StepSummary]
    over: Counter[int]
    persistent: dict[int, Persistence]
    noise: Noise
    typical: dict[int, OnTime]
    persistent_saved: list[float]
    jitter: list[float]
    undecided: tuple[Undecided, ...]
    latest_work: list[float]
    on_time_count: list[int]

    def persistent_at(self, rank: int, j: int) -> bool:
        """Whether a rank is a persistent straggler in the step of index j."""
        found = self.persistent.get(rank)
        return found is not None and found.first <= j < found.stop


def _late_steps(measured: Measured, threshold: float) -> Generator[None, None, _LateSteps]:
    """Each step with its late ranks and its what-if saving; how many steps each rank is over the threshold in; and
    the persistent stragglers, each with where it is one (`chance.persistence`: over the threshold in a strict
    majority of the steps, and later than chance by its mean lateness, over the run or a stretch of it). A rank-step
    over the threshold is late when it is a persistent straggler's, or beyond chance (`StepColumns.beyond`). Yields
    after each step, and after each chunk of them while finding who is over the threshold (`_chunks`)."""
    where: dict[int, list[int]] = {}
    over: list[list[int]] = []
    count: Counter[int] = Counter()
    for chunk in _chunks(measured.steps, max(1, min(JUDGED_A_STEP, RANK_STEPS_A_STEP // max(1, len(measured.ranks))))):
        over_chunk = [s.columns.late(threshold) for s in chunk]
        for s, entries in zip(chunk, over_chunk):
            j = len(over)
            over.append(entries)
            for i in entries:
                where.setdefault(s.columns.ranks[i], []).append(j)
        yield
    count.update({r: len(js) for r, js in where.items()})
    chance = measured.chance
    steps, ranks = len(measured.steps), len(measured.ranks)
    late_of = _lateness_by_rank(measured)
    past = Counter(s.columns.ranks[i] for s in measured.steps for i in s.columns.beyond)
    total_past = sum(past.values())
    serial = chance.serial
    at = {s.rank: i for i, s in enumerate(measured.ranks)}
    moving_pair = ranks == 2 and chance.leads
    needed_count = count_needed(steps, moving_pair)
    persistent = {}
    undecided = []
    for r, js in where.items():
        lateness = late_of.get(r)
        if lateness is None or len(js) < 2:
            continue
        transient = transient_share(total_past, past[r], ranks, steps)
        others = others_spread(chance.spread, chance.floor_ms, past[r], chance.total)
        found = persistence(
            lateness,
            js,
            ranks,
            chance.work,
            chance.spread,
            transient,
            serial=serial,
            others=others,
            own=past[r],
            total=chance.total,
            moving_pair=moving_pair,
        )
        alone = chance.others[at[r]] if chance.others else None
        if found is None and alone is not None:
            found = _stretch_alone(lateness, js, ranks, chance, alone, transient)
        if found is not None:
            persistent[r] = found
        elif len(js) >= needed_count:
            needed = steps_to_decide(
                lateness, ranks, chance.work, chance.spread, most=UNDECIDED_WINDOW * steps, serial=serial
            )
            if needed is not None:
                undecided.append(Undecided(r, len(js), lateness.mean_ms, needed - steps))
    noise = Noise(
        chance.over_threshold(threshold, [s.median_step_ms for s in measured.steps]),
        needed_count,
        ALPHA,
        needed_mean(chance.work, chance.spread, effective_steps(steps, serial), level_of(ranks))
        if chance.total
        else 0.0,
        chance.leads,
        chance.latest_floor_ms if math.isfinite(chance.latest_floor_ms) else None,
    )
    told = tuple(sorted(undecided, key=lambda u: (-u.mean_ms, u.rank))[:UNDECIDED_SHOWN])
    judged = _LateSteps([], count, persistent, noise, {}, [], [], told, [], [])
    for j, (s, entries) in enumerate(zip(measured.steps, over)):
        c = s.columns
        beyond = set(c.beyond)
        own = [i for i in entries if judged.persistent_at(c.ranks[i], j)]
        late = [i for i in entries if i in beyond or judged.persistent_at(c.ranks[i], j)]
        typical = on_time(c, late)
        saved = saved_ms(c, late) if late == [c.solo_entry] else saved_ms(c, late, typical)
        judged.persistent_saved.append(saved if len(own) == len(late) else saved_ms(c, own, typical))
        judged.jitter.append(max(0.0, typical.median_wait_ms - typical.least_wait_ms))
        if c.from_release:
            kept = latest_on_time(c.work_ms, late)
            judged.latest_work.append(kept)
            judged.on_time_count.append(len(c.ranks) - len(late))
        if late:
            judged.typical[s.step] = typical
        judged.steps.append(_with_late(s, tuple(c.ranks[i] for i in late), saved))
        yield
    return judged


UNDECIDED_SHOWN = 3
"""Ranks a verdict says a longer window would decide, at most (the latest on average first)."""


def _stretch_alone(
    lateness: Lateness, over: list[int], ranks: int, chance: Chance, alone: Others, transient: float
) -> Persistence | None:
    """A rank slow in a stretch of the run only, weighed against chance without it (`chance.Others`: a run of a few
    ranks, where the rank's own late steps widen the chance read on every rank): its stretch alone, never the whole
    run (a rank slow in every step has its offset taken out of chance already, `chance.usual_offsets`). The mean is
    still weighed against every rank-step of the run, its own included: a rank late in two steps of six by pauses of
    400 ms is no slower in the four between them."""
    found = persistence(
        lateness,
        over,
        ranks,
        alone.tail,
        chance.spread,
        transient,
        serial=chance.serial,
        others=alone.spread,
        total=alone.total,
    )
    return found if found is not None and (found.first, found.stop) != (0, lateness.steps) else None


def _lateness_by_rank(measured: Measured) -> dict[int, Lateness]:
    """Each rank's lateness over the run (`chance.Lateness`), by rank (none measured, none given)."""
    return {r.rank: r.lateness for r in measured.ranks if r.lateness is not None}


def _with_late(s: StepSummary, late: tuple[int, ...], saved: float) -> StepSummary:
    """The step with its late ranks and saving (`dataclasses.replace` inspects the fields at every call: 11,700
    steps made it a third of a judgement)."""
    if not late and not s.late_ranks and not saved and not s.saved_ms:
        return s
    return StepSummary(
        step=s.step,
        slowest_rank=s.slowest_rank,
        median_step_ms=s.median_step_ms,
        max_step_ms=s.max_step_ms,
        gap=s.gap,
        extra_ms=s.extra_ms,
        late_ranks=late,
        columns=s.columns,
        drawn=s.drawn,
        released=s.released,
        saved_ms=saved,
    )


def judge(measured: Measured, threshold: float = THRESHOLD.default) -> Analysis:
    """The verdict at a threshold: who is late in which step, the persistent and transient stragglers and why, the
    steps re-timed without them.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> from ddpcore.analysis import measure
    >>> a = judge(measure(ranks))
    >>> [s.rank for s in a.stragglers], a.transient.step_numbers, sorted({n for n, r in slowed if r != 3})
    ([3], (2, 16, 19), [2, 16, 19])
    """
    return finished(judge_in_steps(measured, threshold))


def judge_in_steps(measured: Measured, threshold: float = THRESHOLD.default) -> Judging:
    """`judge` in steps (`Judging`); the threshold is checked at once, before the first step, and so is that the
    steps were measured for it when they were measured for one alone (`measure`'s `at`).

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> from ddpcore.analysis import measure
    >>> from ddpcore.base.steps import finished
    >>> a = finished(judge_in_steps(measure(ranks)))
    >>> [s.rank for s in a.stragglers]
    [3]
    """
    THRESHOLD.check(threshold)
    if measured.threshold is not None and threshold != measured.threshold:
        raise ValueError(
            f"these steps were measured for a threshold of {measured.threshold} alone: judge them at it, or measure"
            " again without one"
        )
    return _judge_steps(measured, threshold)


def _unseen(judged: _LateSteps, transient: Transient) -> bool:
    """Whether a run names nothing late: no persistent straggler, no rank too briefly seen, no transient step (what a
    straggler that moves, too briefly seen, leaves)."""
    return not (judged.persistent or judged.undecided or transient.straggler_steps)


def _judge_steps(measured: Measured, threshold: float) -> Judging:
    judged = yield from _late_steps(measured, threshold)
    steps = judged.steps
    late_count = Counter(r for s in steps for r in s.late_ranks)
    ranks = tuple(replace(r, late_steps=late_count[r.rank]) if late_count[r.rank] else r for r in measured.ranks)
    found = []
    for r in ranks:
        where = judged.persistent.get(r.rank)
        if where is not None:
            hits = []
            for stretch in _chunks(range(where.first, where.stop)):
                hits += [(steps[j], _entry(steps[j], r.rank)) for j in stretch if r.rank in steps[j].late_ranks]
                yield
            cause = yield from _cause(hits, judged.typical)
            found.append(
                Straggler(
                    r.rank,
                    r.median_gap,
                    r.median_cost_ms,
                    r.late_steps,
                    cause,
                    steps[where.first].step if where.first > 0 else None,
                    steps[where.stop].step if where.stop < len(steps) else None,
                )
            )
    stragglers = tuple(sorted(found, key=lambda s: (-s.median_cost_ms, s.rank)))
    transient = yield from _transient(steps, judged)
    prefetch = []
    for chunk in _chunks(steps):
        prefetch += [_prefetch_saving(s, judged.typical[s.step]) for s in chunk if s.late_ranks]
        yield
    saved = [s.saved_ms for s in steps]
    step_ms = measured.step_ms
    persistent_cost = math.fsum(judged.persistent_saved) / len(saved)
    unnamed = beyond_jitter(judged.latest_work, judged.on_time_count, measured.chance.costed) * (
        len(judged.latest_work) / len(saved)
    )
    cost = math.fsum(saved) / len(saved) + unnamed
    gauges = [r.gpu for r in ranks if r.gpu is not None]
    return Analysis(
        ranks=ranks,
        steps=tuple(steps),
        stragglers=stragglers,
        transient=transient,
        threshold=threshold,
        step_ms=step_ms,
        median_step_ms=measured.median_step_ms,
        straggler_cost_ms=cost,
        median_cost_ms=statistics.median(saved),
        ideal_step_ms=step_ms - cost,
        efficiency=(step_ms - cost) / step_ms if step_ms > 0 else 1.0,
        median_gap=measured.median_gap,
        wait_ms_total=measured.wait_ms_total,
        gpu=_mean_gauges(gauges) if len(gauges) == len(ranks) else None,
        warnings=measured.warnings,
        rank_map=measured.rank_map,
        prefetch_gain_ms=math.fsum(prefetch) / len(steps),
        jitter_floor_ms=measured.chance.floor_ms,
        cost_parts_ms=CostParts(
            persistent_cost,
            max(0.0, cost - unnamed - persistent_cost),
            max(0.0, statistics.fmean(judged.jitter) - unnamed),
            unnamed,
        ),
        noise=judged.noise,
        load_marked=measured.load_marked,
        undecided=judged.undecided,
        undecided_moving=undecided_moving(measured.chance) if _unseen(judged, transient) else None,
    )


def analyze(traces: Sequence[RankTrace | RankFacts | RankColumns], threshold: float = THRESHOLD.default) -> Analysis:
    """Compare the ranks' common steps: per step who waited least at the barrier and what that cost, per rank how
    often it is late, and why.

    >>> from ddpcore.traces import simulated_run
    >>> ranks, slowed = simulated_run(8, 30, persistent=(3,), p=0.02, seed=1)
    >>> a = analyze(ranks)
    >>> a.straggler_rank, round(a.stragglers[0].median_cost_ms, 1), a.stragglers[0].cause.kind
    (3, 19.9, 'mixed')
    """
    THRESHOLD.check(threshold)
    return judge(measure(traces), threshold)


def merge(
    shards: Sequence[Shard], threshold: float = THRESHOLD.default, progress: Callable[[str], None] | None = None
) -> Analysis:
    """The verdict over every shard's ranks (`shards.measure_shards`, then `judge`), as `analyze` gives it over all
    of them at once; `progress` hears each round's name (`shards.ROUNDS`), then "verdict".

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis.shards import shards_of
    >>> ranks, slowed = simulated_run(12, 40, persistent=(5,), p=0.02, seed=3)
    >>> whole, parts = analyze(ranks), merge(shards_of(ranks, 2))
    >>> parts.straggler_rank, parts.straggler_cost_ms == whole.straggler_cost_ms
    (5, True)
    """
    THRESHOLD.check(threshold)
    measured = measure_shards(shards, threshold, progress)
    if progress is not None:
        progress("verdict")
    return judge(measured, threshold)


def _mean_gauges(gauges: Sequence[GpuGauges]) -> GpuGauges:
    overlaps = [g.comm_overlap for g in gauges if g.comm_overlap is not None]
    return GpuGauges(
        busy=statistics.fmean(g.busy for g in gauges),
        compute=statistics.fmean(g.compute for g in gauges),
        comm_overlap=statistics.fmean(overlaps) if overlaps else None,
        exposed_comm_ms=statistics.fmean(g.exposed_comm_ms for g in gauges),
    )
