"""The what-if of one gradient barrier: how much sooner it releases when some ranks do their work sooner.

Every rank is released a transfer after the last one is ready with its last bucket, and the earlier buckets are
reduced one after another: the last bucket's transfer cannot start before they end. So a barrier re-timed with
some ranks sooner releases sooner by how much the latest readiness comes sooner, bounded by when the earlier
buckets end, which itself comes sooner by as much as their last first launch does (after "Understanding Stragglers
in Large Model Training Using What-if Analysis", OSDI 2025). Every time here is relative to the release; a rank's
readiness is minus its wait.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

__all__ = ["earliest_free", "retimed_saving"]


def earliest_free(free_ms: Iterable[float]) -> float:
    """When a step's earlier gradient collectives had ended, from each rank's view of it: a completion callback
    fires when a collective has ended, or later, so the earliest is the best.

    >>> earliest_free([-12.0, -3.5, -20.0])
    -20.0
    """
    return min(free_ms)


def largest_but(values: Sequence[float], moved: dict[int, float]) -> float:
    """The largest of `values` once entry i is `moved[i]`: the moved values and the largest of each run of entries
    between them, each a slice and a C loop (a step has thousands of ranks, and its late ones are few).

    >>> largest_but([3.0, 9.0, 5.0], {1: 1.0}), largest_but([3.0, 9.0, 5.0], {})
    (5.0, 9.0)
    """
    return _extreme_but(values, moved, max)


def smallest_but(values: Sequence[float], moved: dict[int, float]) -> float:
    """The smallest of `values` once entry i is `moved[i]` (as `largest_but`).

    >>> smallest_but([3.0, 1.0, 5.0], {1: 4.0})
    3.0
    """
    return _extreme_but(values, moved, min)


def _extreme_but(values: Sequence[float], moved: dict[int, float], pick: Callable[..., float]) -> float:
    if not moved:
        return pick(values)
    found = [*moved.values()]
    start = 0
    for i in sorted(moved):
        if i > start:
            found.append(pick(values[start:i]))
        start = i + 1
    if start < len(values):
        found.append(pick(values[start:]))
    return pick(found)


def retimed_saving(
    wait_ms: Sequence[float], first_ms: Sequence[float], free_ms: float, earlier_ms: dict[int, float]
) -> float:
    """How much sooner a barrier releases when entry i does its work `earlier_ms[i]` sooner. `first_ms`: each
    rank's first gradient launch; `free_ms`: when the earlier gradient collectives had ended (`earliest_free`).

    A rank late from its first bucket on (it lost time before the backward) moves the earlier buckets too:

    >>> retimed_saving([20.0, 21.0, 2.0], [-25.0, -26.0, -8.0], -5.0, {2: 18.0})
    18.0

    A rank late only after its first bucket does not: the earlier buckets still end 5 ms before the release.

    >>> retimed_saving([20.0, 21.0, 2.0], [-25.0, -26.0, -27.0], -5.0, {2: 18.0})
    3.0
    """
    if not earlier_ms:
        return 0.0
    moved_wait = {i: wait_ms[i] + max(0.0, e) for i, e in earlier_ms.items()}
    moved_first = {i: first_ms[i] - max(0.0, e) for i, e in earlier_ms.items()}
    sooner = max(first_ms) - largest_but(first_ms, moved_first)
    before = max(-min(wait_ms), free_ms)
    after = max(-smallest_but(wait_ms, moved_wait), free_ms - sooner)
    return max(0.0, before - after)
