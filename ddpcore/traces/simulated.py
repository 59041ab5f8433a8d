"""A simulated run with a known truth, as the analysis reads it: the cluster model's jitter, transient slowdowns
and persistently slow ranks made into each rank's steps under a barrier. The tests, the bench and the examples
measure it where real traces would take thousands of files.
"""

from __future__ import annotations

import math
import random

from ..base.phases import CAUSES, SUMMED
from .stepfacts import RankFacts, StepFacts

__all__ = ["BACKWARD_MS", "FORWARD_MS", "OPTIMIZER_MS", "TRANSFER_MS", "simulated_run"]

FORWARD_MS, BACKWARD_MS, OPTIMIZER_MS, TRANSFER_MS = 8.0, 12.0, 3.0, 5.0
"""A generated step's parts: about 28 ms from one release to the next, with no straggler."""


def simulated_run(
    ranks: int,
    steps: int,
    persistent: tuple[int, ...] = (),
    p: float = 0.0,
    seed: int = 0,
    jitter_cv: float = 0.02,
    slowdown: float = 3.0,
    carried: float = 0.0,
    moving: float = 0.0,
) -> tuple[list[RankFacts], set[tuple[int, int]]]:
    """A run of `ranks` x `steps` as the analysis reads it (as summaries would give it): lognormal jitter of
    coefficient of variation `jitter_cv` on each rank-step's forward and backward, the `persistent` ranks 2x
    slower, a `slowdown` with probability p per rank-step; and the (step, rank) pairs slowed by chance. With
    `carried` above 0, each rank carries that share of a step's jitter into the next (an AR(1) series of its log,
    of the same spread), as a noisy neighbour's phases do. With `moving` above 0, one rank a step, the next one
    each step, works that share more (a straggler that moves); its rank-steps are among those slowed.

    Steps keep to what a barrier does: each rank starts its step after the previous release and its optimizer,
    works, is ready, and every rank is released TRANSFER_MS after the last one is ready; so a slowed rank makes
    the others wait, and nobody works past the release.

    >>> ranks, slowed = simulated_run(4, 10, persistent=(2,), seed=1)
    >>> len(ranks), len(ranks[0].steps), slowed
    (4, 10, set())
    >>> [round(r.steps[3].compute_ms, 1) for r in ranks]
    [20.0, 20.0, 39.8, 20.1]
    """
    rng = random.Random(seed)
    sigma = math.sqrt(math.log1p(jitter_cv * jitter_cv))
    slowed = {(n, r) for n in range(1, steps + 1) for r in range(ranks) if rng.random() < p}
    moved = {(n, (n - 1) % ranks) for n in range(1, steps + 1)} if moving else set()
    draws = [[rng.lognormvariate(0.0, sigma) for _ in range(ranks)] for _ in range(steps)]
    if carried and sigma:
        draws = _carried_over(draws, carried, sigma)
    factors = [
        [
            d
            * (2.0 if r in persistent else 1.0)
            * (slowdown if (n, r) in slowed else 1.0)
            * (1.0 + moving if (n, r) in moved else 1.0)
            for r, d in enumerate(row)
        ]
        for n, row in enumerate(draws, start=1)
    ]
    rows: list[list[StepFacts]] = [[] for _ in range(ranks)]
    release = 0.0
    for n, row in enumerate(factors, start=1):
        forward = [FORWARD_MS * f for f in row]
        backward = [BACKWARD_MS * f for f in row]
        start = release + OPTIMIZER_MS
        ready = [start + a + b for a, b in zip(forward, backward)]
        following = max(ready) + TRANSFER_MS
        for r in range(ranks):
            wait = following - ready[r]
            phases = dict.fromkeys(SUMMED, 0.0) | {
                "forward": forward[r],
                "backward": backward[r],
                "allreduce": wait,
                "optimizer": OPTIMIZER_MS,
            }
            parts = dict.fromkeys(CAUSES, 0.0) | {
                "forward": forward[r],
                "backward": backward[r],
                "optimizer": OPTIMIZER_MS,
            }
            rows[r].append(
                StepFacts(
                    step=n,
                    start_ms=start,
                    length_ms=following + OPTIMIZER_MS - start,
                    period_ms=following - release,
                    followed=True,
                    arrival_ms=forward[r] + 0.1 * backward[r],
                    compute_ms=ready[r] - start,
                    anchor_ms=following - start,
                    phases_ms=phases,
                    device=None,
                    comm_free_ms=forward[r] + 0.1 * backward[r],
                    released=True,
                    from_release=n > 1,
                    work_ms=ready[r] - release,
                    parts_ms=parts,
                )
            )
        release = following
    return [RankFacts(r, f"rank{r}", ranks, tuple(rows[r])) for r in range(ranks)], slowed | moved


def _carried_over(draws: list[list[float]], carried: float, sigma: float) -> list[list[float]]:
    """Lognormal draws (of log-spread sigma, steps x ranks) made an AR(1) series over the steps: each rank's log
    carries `carried` of the step before, with the same spread."""
    fresh = math.sqrt(1.0 - carried * carried)
    logs = [math.log(d) / sigma for d in draws[0]]
    out = [list(draws[0])]
    for row in draws[1:]:
        logs = [carried * before + fresh * math.log(d) / sigma for before, d in zip(logs, row)]
        out.append([math.exp(sigma * z) for z in logs])
    return out
