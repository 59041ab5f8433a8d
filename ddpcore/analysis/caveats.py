"""An analysis's warnings: what the run's facts call for (`RunFacts`, `caveats_of`), written once for `measure`
over the ranks of this process and for `merge` over shards, and grouped by kind for reading: 4,000 ranks holding
the same steps make 4,000 warnings of one kind, which a person reads as one line with a count and the first few
ranks (the JSON still lists every one).

>>> said = [Caveat("copies", first=r, second=r + 1) for r in range(0, 40, 2)] + [Caveat("one_step")]
>>> [g.count for g in grouped(said)]
[20, 1]
>>> grouped(said)[0].message().text()
'ranks 0 and 1 hold the same steps to the microsecond: the same file under two rank numbers? (and 19 more like it: \
ranks 2, 3, 4, 5, 6 and 33 more)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..base.words import Message, say
from ..traces.keeping import WARMUP_STEP

__all__ = ["Caveat", "RunFacts", "caveats_of", "grouped"]


class Caveat(str):
    """A warning's English text (`base.words`, `warn.<code>`), carrying its code and values so that a page can say it
    in its language."""

    code: str
    values: dict[str, object]

    def __new__(cls, code: str, **values: object) -> Caveat:
        warning = super().__new__(cls, say(f"warn.{code}", **values))
        warning.code, warning.values = code, values
        return warning

    def __reduce__(self) -> tuple:
        return _warning, (self.code, self.values)


def _warning(code: str, values: dict[str, object]) -> Caveat:
    return Caveat(code, **values)


@dataclass(frozen=True, kw_only=True)
class RunFacts:
    """What a run's warnings are about, however its ranks were read: the ranks holding steps the others lack
    (rank, source, how many), whether the warmup step was left out, the common steps and ranks counted, the largest
    world size the files declare (0: none), how many rank-steps measured nothing and the first of them in step
    then rank order (step, rank, ms), the pairs of ranks holding the same steps, the steps no rank released, and
    whether they are a trainer's logged spans."""

    partial: Sequence[tuple[int, str, int]] = ()
    warmup: bool = False
    steps: int
    ranks: int
    world: int = 0
    unmeasured: int = 0
    first_unmeasured: tuple[int, int, float] | None = None
    copies: Sequence[tuple[int, int]] = ()
    unreleased: int = 0
    logged: bool = False
    """The ranks' forward and backward are one span of a trainer's logs (`phases.FORWARD_BACKWARD`)."""


def caveats_of(facts: RunFacts) -> tuple[Caveat, ...]:
    """The run's warnings, always in this order: partial ranks, warmup, one step, some ranks, unmeasured, copies,
    no release, logged spans.

    >>> [c.code for c in caveats_of(RunFacts(warmup=True, steps=1, ranks=4, world=8, copies=[(0, 1)]))]
    ['warmup', 'one_step', 'some_ranks', 'copies']
    """
    said = [Caveat("partial", rank=rank, source=source, extra=extra) for rank, source, extra in facts.partial if extra]
    if facts.warmup:
        said.append(Caveat("warmup", step=WARMUP_STEP))
    if facts.steps == 1:
        said.append(Caveat("one_step"))
    if facts.world > facts.ranks:
        said.append(Caveat("some_ranks", loaded=facts.ranks, world=facts.world))
    if facts.first_unmeasured is not None:
        step, rank, ms = facts.first_unmeasured
        said.append(Caveat("unmeasured", count=facts.unmeasured, rank=rank, step=step, ms=round(ms, 2)))
    said += [Caveat("copies", first=a, second=b) for a, b in facts.copies]
    if facts.unreleased:
        said.append(Caveat("no_release", steps=facts.unreleased))
    if facts.logged:
        said.append(Caveat("logged_spans"))
    return tuple(said)


GROUPED_FROM = 4
"""Warnings of one kind said one by one up to this many less one; from this many, one line says them all."""
RANKS_NAMED = 5
"""Ranks a grouped line names before saying how many more."""
_RANK_KEYS = ("rank", "first", "second")


@dataclass(frozen=True)
class WarningGroup:
    """Warnings of one kind (`code`; None for a warning without one, always alone): the first of them, how many
    there are, and the ranks the others name, in order."""

    code: str | None
    first: str
    count: int
    ranks: tuple[int, ...] = ()

    def message(self) -> Message:
        """The group as one line: the first warning, and how many more like it for which ranks."""
        said = _said(self.first)
        if self.count == 1:
            return said
        if not self.ranks:
            return Message.of("warn.group_plain", first=said, more=self.count - 1)
        named = tuple(self.ranks[:RANKS_NAMED])
        ranks: object = named
        if len(self.ranks) > RANKS_NAMED:
            ranks = Message.of("warn.ranks_more", ranks=named, more=len(self.ranks) - RANKS_NAMED)
        return Message.of("warn.group", first=said, more=self.count - 1, ranks=ranks)


def _said(warning: str) -> Message:
    code = getattr(warning, "code", None)
    return Message.of(f"warn.{code}", **warning.values) if code else Message.of("warn.plain", text=warning)  # type: ignore[attr-defined]


def _ranks_of(warning: str) -> list[int]:
    values = getattr(warning, "values", {})
    return [v for k in _RANK_KEYS if isinstance(v := values.get(k), int)]


def grouped(warnings: Sequence[str]) -> tuple[WarningGroup, ...]:
    """The warnings in their order, those of a kind that has GROUPED_FROM or more gathered into one group where the
    kind first appears; the others one group each.

    >>> [g.count for g in grouped(["a", "b"])]
    [1, 1]
    """
    by_code: dict[str, list[str]] = {}
    for w in warnings:
        code = getattr(w, "code", None)
        if code:
            by_code.setdefault(code, []).append(w)
    out: list[WarningGroup] = []
    for w in warnings:
        code = getattr(w, "code", None)
        some = by_code.get(code, []) if code else []
        if len(some) < GROUPED_FROM:
            out.append(WarningGroup(code, w, 1, tuple(_ranks_of(w))))
        elif w is some[0]:
            seen: dict[int, None] = {}
            for other in some[1:]:
                seen.update(dict.fromkeys(_ranks_of(other)))
            out.append(WarningGroup(code, w, len(some), tuple(seen)))
    return tuple(out)
