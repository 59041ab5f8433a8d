"""How late ranks are by chance, measured in rounds of questions over a run's ranks, wherever they are held.

Chance (`chance`) is read on every rank-step at once: a step's median, a rank's usual place, a quantile of every
deviation. So it is measured by questions asked of the ranks in a fixed order (`Rounds`), each answered over all of
them, and `chance_in_rounds` is the one place that says which questions, in which order, and which statistic
decides on each answer. Two kinds of answerers:

- `InProcess`: every rank's work in this process, a range of steps or of ranks at a time through a `storage.Fan`
  (`analyze`, alone or over forked processes: `beyond_chance`);
- `shards.ShardRounds`: shards of the ranks, each where its files are read, their answers merged exactly (a Ray
  cluster's nodes, `shards.merge`).

A change to how chance is measured is made once, here, and both give the same answer (tests/analysis/test_shards.py).
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import Protocol, TypeVar

from ..storage.fan import Fan, ranges
from ..storage.micros import median
from ..storage.ordered import in_order
from ..storage.picking import gathered
from .chance import (
    ALONE_MOST,
    LOOK_KNOWN,
    LOOK_ROUNDS,
    NO_LED,
    NO_SPACED,
    Q_HIGH,
    REFERENCE_SUSPECT,
    SPACED_MOST,
    SUSPECT,
    Atoms,
    Lateness,
    Lead,
    Led,
    Others,
    Place,
    Reference,
    Spaced,
    Tail,
    Top,
    _below,
    _deviated,
    _medians_of,
    adjusted,
    bulk_fit,
    bulk_tail,
    crowded,
    far_of,
    lateness,
    leads_beyond,
    leads_of,
    look_bias,
    look_wander,
    majority_late,
    mirrored_beyond_chance,
    mirrored_gaps,
    mirrored_noise,
    occupancy_stride,
    occupied_beyond_chance,
    on_time_place,
    past,
    pool_stride,
    quantile,
    rank_places,
    recentred,
    run_floor,
    serial_of,
    suspect_cuts,
    suspects_of,
    top_places,
    tops_floor,
    unmeasured_of,
    usual_offsets,
    widened,
    with_latest,
    with_top,
    without_top,
)

__all__ = [
    "Beyond",
    "Found",
    "InProcess",
    "Rounds",
    "beyond_chance",
    "chance_in_rounds",
    "alone_measured",
    "chance_of_others",
    "deviations",
    "holding_the_tail",
    "late_at_top",
]

T = TypeVar("T")


class Rounds(Protocol):
    """The questions chance is measured by, in the order `chance_in_rounds` asks them, each answered over every rank.
    An answerer keeps what it found between questions (the work with offsets taken out, the suspects, the
    references). Entries (`held`, `Lead.entry`, `top_suspects`) are the answerer's own names for its ranks."""

    def medians(self) -> list[float]:
        """Each step's median work."""
        ...

    def places(self, medians: Sequence[float]) -> list[Place]:
        """Every rank's usual place (`chance.rank_places`), in rank order."""
        ...

    def adjust(self, usual: Sequence[float], medians: Sequence[float], base: float) -> None:
        """Take each rank's usual offset out of its work (`chance.adjusted`)."""
        ...

    def unmeasured(self) -> list[int]:
        """Each step's count of works that are not a positive number (`chance.unmeasured_of`), left out of its
        looks."""
        ...

    def lower_looks(self, kept: Sequence[int] | None = None) -> list[tuple[float, float]]:
        """Each step's `chance.lower_look` of the adjusted work, its unmeasured works left out: of its `kept` least
        measured works when given (0: the step is not asked, its look is nan)."""
        ...

    def suspects(self, cuts: Sequence[float], far: Sequence[float]) -> list[int]:
        """Hold each step's suspects (its entries above its cut, left out of its reference) and those of them above
        its `far` cut (left out of chance's fit); how many of those a step."""
        ...

    def held(self) -> Counter[int]:
        """How many suspects each rank holds."""
        ...

    def leads(self, crowded: frozenset[int]) -> list[Lead]:
        """Each step's `Lead` among the ranks not `crowded`."""
        ...

    def read_recentred(self, leads: Sequence[Lead], stride: int, read: Callable[[Sequence[float]], T]) -> T:
        """`read` of the works pooled against their steps' means (`chance.recentred`, sorted)."""
        ...

    def top_places(self, k: int, stride: int) -> list[tuple[float, int]]:
        """The k largest works of the ranks not crowded (as `leads` left them out), each rank's usual offset taken
        out, each with its step index, of every `stride`-th step (`chance.top_places`)."""
        ...

    def top_suspects(self, tops: Sequence[int]) -> list[int]:
        """Add each step's latest rank (-1: none) to its suspects, far ones too; how many far ones a step."""
        ...

    def deviations(self) -> tuple[Sequence[float], Sequence[float] | None]:
        """Every rank-step's deviation against its step's reference (the suspects left out), of positive work,
        sorted; and, when `top_suspects` was asked, the same without each step's latest rank (what chance is then
        fitted on)."""
        ...

    def top_deviations(self) -> list[float]:
        """Once `deviations` was asked after `top_suspects`: the deviation of each step's latest rank against its
        reference, in step order, for the steps whose latest rank was measured (`chance.tops_floor` reads them)."""
        ...


@dataclass(frozen=True)
class Found:
    """What the rounds found: every rank's usual place and offset, where the ranks on time usually are, each step's
    latest rank when a straggler moves among them (None otherwise), how many rank-steps chance's fit left out from
    the top (SUSPECT's suspects), chance's tail, the run's floor, every deviation of positive work (sorted:
    `total` of them), and the tail the cost reads where it is not chance's (`costed`: where each step's latest rank
    is late, the ranks on time's fit as it is, not widened for the tests' sake, since the cost is then a what-if of
    a straggler already found, not a test of one), and, where so, the deviation from which a step's latest rank is
    late (`top_floor`, `chance.tops_floor`; infinite unless under the floor, which names those past it already), and
    how far the steps' latest ranks lead the next (`spaced`, `led`: `tops_late`)."""

    places: list[Place]
    usual: list[float]
    on_time: float
    tops: list[int] | None
    suspects: int
    tail: Tail
    floor_ms: float
    pooled: Sequence[float]
    costed: Tail | None = None
    top_floor: float = math.inf
    spaced: Spaced = NO_SPACED
    led: Led = NO_LED

    @property
    def total(self) -> int:
        """How many rank-steps chance was measured on."""
        return len(self.pooled)


def tops_late(asked: Rounds, ranks: int, steps: int) -> tuple[list[int] | None, Spaced, Led]:
    """Each step's latest rank, when the latest ranks lead the next ones by more than chance makes the latest of as
    many lead (`chance.lead_beyond_chance`: by their spacings, `chance.Spaced`, or their mean lead, `chance.Led`),
    or when a run's largest works fall in more of its steps than chance puts them in (`occupied_late`; None
    otherwise): a straggler that moves to another rank in every step; and both leads' evidence (what a window too
    short to tell would need). The ranks holding more of the first look's suspects than chance gives one rank
    (`chance.crowded`: one slow from some step on) are left out. At two ranks, where a step's deviations mirror each
    other, each step's later rank when the gap between the two stays away from its centre in more steps than chance
    allows (`chance.mirrored_beyond_chance`). Runs of fewer than three steps have none."""
    if steps < 3 or ranks < 2:
        return None, NO_SPACED, NO_LED
    if ranks == 2:
        return _pair_tops(asked)[0], NO_SPACED, NO_LED
    gone = crowded(asked.held(), ranks)
    leads = asked.leads(gone)
    spaced = Spaced.of(leads)
    led = asked.read_recentred(leads, pool_stride(ranks * steps), partial(Led.of, leads))
    if leads_beyond(spaced, led) or occupied_late(asked, ranks - len(gone), steps):
        return [lead.entry for lead in leads], spaced, led
    return None, spaced, led


def _pair_tops(asked: Rounds) -> tuple[list[int] | None, list[float]]:
    """At two ranks: each step's later rank when the gap between the two stays away from its centre in more steps
    than chance allows (`chance.mirrored_beyond_chance`; None otherwise), and the gaps (`chance.mirrored_gaps`)."""
    leads = asked.leads(frozenset())
    gaps = mirrored_gaps(leads)
    return ([lead.entry for lead in leads] if mirrored_beyond_chance(gaps) else None), gaps


def occupied_late(asked: Rounds, width: int, steps: int) -> bool:
    """Whether the run's largest works, one a step read (every `chance.occupancy_stride`-th step), fall in more
    distinct steps than chance puts them in (`chance.occupied_beyond_chance`), among `width` ranks not crowded."""
    if not 3 <= width <= SPACED_MOST:
        return False
    stride = occupancy_stride(steps)
    read = len(range(0, steps, stride))
    return occupied_beyond_chance(asked.top_places(read, stride), read, width)


def chance_in_rounds(asked: Rounds, ranks: int, steps: int) -> Found:
    """How late ranks are by chance in a run of `ranks` ranks and `steps` steps (the `chance` module's docstring),
    from the answers of `asked`: each rank's usual offset taken out (`usual_offsets`), a first look for suspects
    (`suspect_cuts`), a straggler late at the top of each step (`tops_late`), chance fitted on the rank-steps on time
    (`bulk_tail`) and the run's floor (`run_floor`).

    The suspects a step's reference leaves out are those REFERENCE_SUSPECT spreads up; chance's fit leaves out
    fewer, those SUSPECT spreads up (and each step's latest rank when a straggler moves). A straggler that moves to
    another of 4 ranks in each of 40 steps: each step's latest rank is a suspect. One that moves between two ranks
    leaves the rank on time no other to be weighed against: chance is fitted on what the gap between the two would
    be without it (`chance.mirrored_noise`), and so is the floor.

    >>> import random
    >>> rng = random.Random(2)
    >>> work = [[rng.gauss(40.0, 2.0) + 8.0 * (i == j % 4) for i in range(4)] for j in range(40)]
    >>> found = chance_in_rounds(InProcess(work), 4, 40)
    >>> found.tops[:6], found.suspects, found.total
    ([0, 1, 2, 3, 0, 1], 40, 160)
    """
    medians = asked.medians()
    places = asked.places(medians)
    usual = usual_offsets(places, steps)
    base = on_time_place(places, usual)
    asked.adjust(usual, medians, base)
    if ranks >= 3:
        cuts, far = _cuts(asked, ranks, steps)
    else:
        cuts = far = [math.inf] * steps
    counts = asked.suspects(cuts, far)
    gaps: list[float] = []
    if ranks == 2 and steps >= 3:
        (tops, gaps), spaced, led = _pair_tops(asked), NO_SPACED, NO_LED
    else:
        tops, spaced, led = tops_late(asked, ranks, steps)
    if tops is not None:
        counts = asked.top_suspects(tops)
    late = sum(counts)
    pooled, on_time = asked.deviations()
    mirrored = ranks == 2 and tops is not None
    if mirrored:
        on_time = mirrored_noise(gaps)
    costed = None
    if tops is None or on_time is None:
        tail = bulk_tail(pooled, late)
    else:
        costed, kept = bulk_fit(on_time, late - sum(top >= 0 for top in tops), split=True)
        tail = widened(costed, kept)
    if mirrored and on_time is not None:
        floor = run_floor(on_time, tail, 0, 1, together=True)
    else:
        floor = run_floor(pooled, tail, late, steps, together=tops is not None)
    cut = tops_floor(asked.top_deviations(), costed, ranks) if costed is not None else math.inf
    top_floor = cut if cut < floor else math.inf
    return Found(places, usual, base, tops, late, tail, floor, pooled, costed, top_floor, spaced, led)


def _cuts(asked: Rounds, ranks: int, steps: int) -> tuple[list[float], list[float]]:
    """Each step's cuts above which a rank-step is left out of its reference (REFERENCE_SUSPECT) and out of chance's
    fit (SUSPECT), from its lower look (`chance.suspect_cuts`). Late ranks make the look read chance wide: a step with
    more than half its ranks late has a late lower median (three late of four: the rank on time would be measured
    against the three), and fewer late ones move the lower median up among the ranks on time (with a third of 8
    ranks late, it is often the highest but one of five, and the spread reads a third too wide). So the looks are read
    with the late lower medians read from the places under them (`late_looks`), and again, LOOK_ROUNDS times at
    most, on the ranks the reference's cut leaves on time, in the steps where that changed. They are kept where the
    share of rank-steps late makes such steps (`chance.majority_late`) or widens the look by more than its own
    standard error (`chance.look_bias`, `chance.look_wander`); else (a clean run, a few rank-steps late by chance)
    the cuts are the looks' as first read; and so they are where the looks read the spread too loosely
    (`chance.LOOK_KNOWN`). A step's works that are not a positive number (`Rounds.unmeasured`) are in none of its
    looks, nor in the counts they are read over."""
    measured = [ranks - skip for skip in asked.unmeasured()]
    first = looks = asked.lower_looks()
    kept = measured
    as_first_read = suspect_cuts(first, ranks, REFERENCE_SUSPECT, kept), suspect_cuts(first, ranks, SUSPECT, kept)
    if look_wander(looks, kept, late_looks=True) > LOOK_KNOWN:
        return as_first_read
    cuts = suspect_cuts(looks, ranks, REFERENCE_SUSPECT, kept, late_looks=True)
    for _ in range(LOOK_ROUNDS):
        now = [m - k for m, k in zip(measured, asked.suspects(cuts, cuts))]
        asking = [m if m != k else 0 for m, k in zip(now, kept)]
        if not any(asking):
            break
        looks = [old if m == 0 else new for old, new, m in zip(looks, asked.lower_looks(asking), asking)]
        kept = now
        cuts = suspect_cuts(looks, ranks, REFERENCE_SUSPECT, kept, late_looks=True)
    share = (sum(measured) - sum(kept)) / max(sum(measured), 1)
    if majority_late(share, ranks, steps) or look_bias(share, ranks) > look_wander(looks, kept, late_looks=True):
        return cuts, suspect_cuts(looks, ranks, SUSPECT, kept, late_looks=True)
    return as_first_read


class InProcess:
    """`Rounds` answered over every rank's work in this process (`work[j][i]`: step j, entry i), a range of steps or
    of ranks at a time through `fan` (`storage.Fan`). A work that is not a positive number (a rank ready before the
    previous release: a clock that jumped) is no measure of chance, and is left out of it."""

    def __init__(self, work: Sequence[Sequence[float]], fan: Fan = map) -> None:
        self.raw = work
        self.work = work
        self.fan = fan
        self.width = len(work[0]) if work else 0
        self.offsets: list[float] = [0.0] * self.width
        self.skip: list[int] | None = None
        self.gone: frozenset[int] = frozenset()
        self.rows: list[Sequence[int]] = [()] * len(work)
        self.far: list[Sequence[int]] = [()] * len(work)
        self.tops: list[int] | None = None
        self.found: list[tuple[Top, array[float], Reference]] = []

    def _by_steps(self) -> list[range]:
        return ranges(len(self.work), self.width)

    def medians(self) -> list[float]:
        """Each step's median work (a range of steps at a time through the fan)."""
        return list(chain.from_iterable(self.fan(partial(_medians_of, self.raw), self._by_steps())))

    def places(self, medians: Sequence[float]) -> list[Place]:
        """Every rank's usual place (a range of steps at a time through the fan)."""
        found = rank_places(self.raw, medians, self.fan)
        self.offsets = [p.offset for p in found] if len(found) == self.width else [0.0] * self.width
        return found

    def adjust(self, usual: Sequence[float], medians: Sequence[float], base: float) -> None:
        """Each rank's usual offset taken out of its work (a range of steps at a time through the fan)."""
        self.work = adjusted(self.raw, usual, medians, base)

    def unmeasured(self) -> list[int]:
        """Each step's count of works that are not a positive number (a range of steps at a time through the
        fan)."""
        self.skip = list(chain.from_iterable(self.fan(partial(unmeasured_of, self.raw), self._by_steps())))
        return self.skip

    def lower_looks(self, kept: Sequence[int] | None = None) -> list[tuple[float, float]]:
        """Each step's lower look, of its `kept` least measured works when given (a range of steps at a time through
        the fan)."""
        skip = self.skip if self.skip is not None else self.unmeasured()
        task = partial(_below, self.work, kept=kept, unmeasured=skip)
        return list(chain.from_iterable(self.fan(task, self._by_steps())))

    def suspects(self, cuts: Sequence[float], far: Sequence[float]) -> list[int]:
        """Each step's suspects held, and the far ones among them; how many far ones a step."""
        self.rows = [suspects_of(done, cut) for done, cut in zip(self.work, cuts)]
        self.far = [far_of(done, found, cut) for done, found, cut in zip(self.work, self.rows, far)]
        return [len(found) for found in self.far]

    def held(self) -> Counter[int]:
        """How many suspects each rank holds (a range of steps at a time through the fan)."""
        return Counter(i for found in self.rows for i in found)

    def leads(self, crowded: frozenset[int]) -> list[Lead]:
        """Each step's latest two ranks not crowded (a range of steps at a time through the fan)."""
        self.gone = crowded
        task = partial(leads_of, self.work, self.offsets, crowded)
        return list(chain.from_iterable(self.fan(task, self._by_steps())))

    def read_recentred(self, leads: Sequence[Lead], stride: int, read: Callable[[Sequence[float]], T]) -> T:
        """`read` of the works pooled against their steps' means (a range of steps at a time through the fan)."""
        task = partial(recentred, self.work, self.offsets, self.gone, leads, stride)
        return read(sorted(chain.from_iterable(self.fan(task, self._by_steps()))))

    def top_places(self, k: int, stride: int) -> list[tuple[float, int]]:
        """The k largest works not crowded, offsets out, with their steps (a range of steps at a time through the
        fan)."""
        task = partial(top_places, self.work, self.offsets, self.gone, k, stride)
        return heapq.nlargest(k, chain.from_iterable(self.fan(task, self._by_steps())))

    def top_suspects(self, tops: Sequence[int]) -> list[int]:
        """Each step's latest rank added to its suspects and its far ones; how many far ones a step."""
        self.tops = list(tops)
        self.rows = [with_top(found, top) for found, top in zip(self.rows, tops)]
        self.far = [with_top(found, top) for found, top in zip(self.far, tops)]
        return [len(found) for found in self.far]

    def deviations(self) -> tuple[Sequence[float], Sequence[float] | None]:
        """Each step's largest deviations (`chance.Top`), its deviations of positive work in order and its reference
        (`chance.Reference`), kept for `entries`; pooled in order."""
        task = partial(_deviated, self.work, self.raw, self.rows)
        self.found = list(chain.from_iterable(self.fan(task, self._by_steps())))
        ordered = in_order([row for _, row, _ in self.found], presorted=True)
        if self.tops is None:
            return ordered, None
        kept = [
            without_top(row, reference, self.work[j], self.raw[j], self.tops[j])
            for j, (_, row, reference) in enumerate(self.found)
        ]
        return ordered, in_order(kept, presorted=True)

    def _top_deviation(self, j: int) -> float | None:
        """Step j's latest rank's deviation (a suspect of its reference: its work less the others' mean), None when
        the step has none or it was not measured."""
        top = -1 if self.tops is None else self.tops[j]
        if top < 0 or self.raw[j][top] <= 0:
            return None
        return self.work[j][top] - self.found[j][2].mean

    def top_deviations(self) -> list[float]:
        """Each step's latest rank's deviation, for the steps whose latest rank was measured."""
        return [d for d in map(self._top_deviation, range(len(self.found))) if d is not None]

    @property
    def references(self) -> tuple[Reference, ...]:
        """Each step's reference, once `deviations` was asked."""
        return tuple(reference for _, _, reference in self.found)

    def past_ms(self, entries: Sequence[Sequence[int]]) -> tuple[tuple[float, ...], ...]:
        """The deviations of each step's entries past the floor (`entries`), once `deviations` was asked: how late
        each is against its step's ranks on time."""
        return tuple(
            tuple(gathered(reference.deviations(self.work[j]), found, "d")) if found else ()
            for j, ((_, _, reference), found) in enumerate(zip(self.found, entries))
        )

    def entries(self, floor: float, top_floor: float = math.inf) -> tuple[tuple[int, ...], ...]:
        """Each step's entries past the floor, and its latest rank when past `top_floor`, once `deviations` was
        asked."""
        out = []
        for j, (top, _, reference) in enumerate(self.found):
            seen = top.past(floor)
            found = seen if seen is not None else past(reference.deviations(self.work[j]), floor)
            latest = self._top_deviation(j) if top_floor < floor else None
            if latest is not None and self.tops is not None:
                found = with_latest(found, self.tops[j], latest, top_floor)
            out.append(found)
        return tuple(out)


@dataclass(frozen=True)
class Beyond:
    """A run's work measured against chance: the deviations' distribution (`tail`) and floor, how many rank-steps
    it rests on, in each step the entries past the floor, whatever the threshold, each rank's `Lateness`, each
    step's `Reference`, the distribution of every rank-step's deviation, transient stragglers included
    (`spread`: what a rank is late by over the run when it is no later than the others, `persistence`), each
    rank's usual offset taken out (`usual_offsets`), where the ranks on time usually are, down to which it was
    (`on_time_place`), how much of a step's lateness carries into the next (`serial_of`), and whether each step's
    latest rank leads the next by more than chance (`tops_late`: a straggler that moves), the tail the cost
    reads where it is not `tail` (`Found.costed`), the deviation from which a step's latest rank is late
    (`Found.top_floor`), the deviation of each entry past the floor (`past_ms`, as `entries`), and how far the steps'
    latest ranks lead the next (`Found.spaced`, `Found.led`)."""

    tail: Tail
    floor_ms: float
    total: int
    entries: tuple[tuple[int, ...], ...]
    ranks: tuple[Lateness, ...] = ()
    references: tuple[Reference, ...] = ()
    spread: Atoms = Atoms(-1.0, 1.0, (1.0,))
    usual: tuple[float, ...] = ()
    on_time: float = 0.0
    serial: float = 0.0
    leads: bool = False
    costed: Tail | None = None
    top_floor: float = math.inf
    past_ms: tuple[tuple[float, ...], ...] = ()
    spaced: Spaced = NO_SPACED
    led: Led = NO_LED


def beyond_chance(work: Sequence[Sequence[float]], fan: Fan = map) -> Beyond:
    """Which rank-steps did more work than chance allows (the `chance` module's docstring), from each step's work
    (entry i of a step is rank i): `chance_in_rounds` answered in this process (`InProcess`). Each rank's
    `Lateness` is read on its own work (its usual offset given back).

    >>> import random
    >>> rng = random.Random(3)
    >>> work = [[rng.gauss(20.0, 0.3) for _ in range(4)] for _ in range(40)] + [[20.0, 20.4, 19.8, 45.0]]
    >>> beyond = beyond_chance(work)
    >>> [(n, late) for n, late in enumerate(beyond.entries) if late]
    [(40, (3,))]
    """
    asked = InProcess(work, fan)
    found = chance_in_rounds(asked, asked.width, len(work))
    entries = asked.entries(found.floor_ms, found.top_floor)
    return Beyond(
        found.tail,
        found.floor_ms,
        found.total,
        entries,
        tuple(lateness(asked.work, asked.references, found.tail, work, fan)),
        asked.references,
        Atoms.of_sorted(found.pooled),
        tuple(found.usual),
        found.on_time,
        serial_of(found.places, len(work)),
        found.tops is not None,
        found.costed,
        found.top_floor,
        asked.past_ms(entries),
        found.spaced,
        found.led,
    )


def holding_the_tail(work: Sequence[Sequence[float]]) -> list[int]:
    """The ranks (entries) holding more than twice their share of the run's upper tenth (each rank-step's work
    against its step's median, over every rank-step): the ranks whose own late steps can lie where chance's upper
    spread is read (its 90 % quantile). Among a few steps, some rank on time does by chance; among thousands, only
    a rank slow in a stretch of them.

    >>> import random
    >>> rng = random.Random(1)
    >>> holding_the_tail([[rng.gauss(30.0, 1.0) + 3.0 * (i == 1 and j < 7) for i in range(4)] for j in range(12)])
    [1]
    """
    steps = len(work)
    if not steps:
        return []
    places = [[w - m for w in row] for row, m in zip(work, map(median, work))]
    high = quantile(sorted(chain.from_iterable(places)), Q_HIGH)
    held = Counter(i for row in places for i, d in enumerate(row) if d > high)
    return sorted(i for i, count in held.items() if count > 2 * (1 - Q_HIGH) * steps)


def alone_measured(ranks: int) -> bool:
    """Whether a run of `ranks` ranks has chance measured without a rank too (`chance_of_others`): from 3 ranks (with
    two, the other rank is all the chance there is) to ALONE_MOST.

    >>> alone_measured(2), alone_measured(4), alone_measured(64)
    (False, True, False)
    """
    return 3 <= ranks <= ALONE_MOST


def chance_of_others(work: Sequence[Sequence[float]]) -> tuple[Others | None, ...]:
    """Chance without each rank holding the run's upper tail (`holding_the_tail`; None for the others), in rank order
    (entry i of each step is rank i), measured as `chance_in_rounds` measures it over every rank, for runs of 3 to
    ALONE_MOST ranks (none otherwise). Among 4 ranks, one slow in 7 steps of a 12-step window holds the run's 90 %
    quantile: chance read through it puts the bar a rank-step must pass at 150 ms in a 30 ms step, and the rank's own
    stretch is never later than that chance. Measured for those ranks only: for each, chance over the others costs
    as much as over every rank (8 ranks x 20,000 steps: 6.5 s for all eight against 1.2 s for the run's).

    >>> import random
    >>> rng = random.Random(1)
    >>> work = [[rng.gauss(30.0, 1.0) + 3.0 * (i == 1 and j < 7) for i in range(4)] for j in range(12)]
    >>> others, whole = chance_of_others(work), beyond_chance(work).tail
    >>> [o is not None for o in others], others[1].total, round(others[1].tail.high, 2), round(whole.high, 2)
    ([False, True, False, False], 36, 1.83, 2.3)
    """
    ranks = len(work[0]) if work else 0
    if not alone_measured(ranks):
        return ()
    out: list[Others | None] = [None] * ranks
    for i in holding_the_tail(work):
        rows = [[w for k, w in enumerate(row) if k != i] for row in work]
        found = chance_in_rounds(InProcess(rows), ranks - 1, len(rows))
        out[i] = Others(found.tail, Atoms.of_sorted(found.pooled), found.total)
    return tuple(out)


def deviations(work: Sequence[Sequence[float]]) -> list[array[float]]:
    """Each step's deviations (entry i is rank i), as `beyond_chance` measures them: a rank's work, a persistently
    slow rank's usual offset taken out (`usual_offsets`), minus the mean of the other ranks' work on time
    (`Reference`). A rank's own offset is kept: a rank slow in every step is late in
    every step, and `bulk_tail` fits chance on the rank-steps on time whatever share is late.

    Rank 3 late by 20 ms in one step of four:

    >>> [list(d) for d in deviations([[10.0] * 4, [10.0] * 4, [10.0] * 4, [10.0, 10.0, 10.0, 30.0]])][3]
    [0.0, 0.0, 0.0, 20.0]
    """
    beyond = beyond_chance(work)
    taken = adjusted(work, beyond.usual, base=beyond.on_time)
    return [ref.deviations(done) for done, ref in zip(taken, beyond.references)]


def late_at_top(
    work: Sequence[Sequence[float]], places: Sequence[Place], suspects: Sequence[Sequence[int]], fan: Fan = map
) -> tuple[int, ...] | None:
    """`tops_late` of a run's work (each rank's usual place `places`, each step's suspects `suspects`) in this
    process: each step's latest rank (-1 when every rank is left out), when the latest ranks lead the next ones by
    more than chance makes the latest of as many lead; None otherwise. Whatever chance's shape, a step's ranks on
    time are as many draws of it, so the lead of the largest over the second largest has the mean
    `chance.expected_lead` gives over the rank-steps pooled; a rank late in each step, one at a time, leads by more.
    A moving straggler widens the pooled values too, which only makes the test harder to pass.

    >>> import random
    >>> rng = random.Random(2)
    >>> clean = [[rng.gauss(40.0, 2.0) for _ in range(4)] for _ in range(40)]
    >>> moving = [[w + 8.0 * (i == j % 4) for i, w in enumerate(row)] for j, row in enumerate(clean)]
    >>> still, none = [Place(0.0, 2.7)] * 4, [()] * 40
    >>> late_at_top(clean, still, none), late_at_top(moving, still, none)[:6]
    (None, (0, 1, 2, 3, 0, 1))
    """
    asked = InProcess(work, fan)
    asked.offsets = [p.offset for p in places] if len(places) == asked.width else [0.0] * asked.width
    asked.rows = [tuple(found) for found in suspects]
    tops, _, _ = tops_late(asked, asked.width, len(work))
    return None if tops is None else tuple(tops)
