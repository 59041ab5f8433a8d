"""Stages' agreement (`jobwhatif.together_chance`) over generated stages' compute, numpy drawing it: jitter each
worker's own, in any of the shapes a shared machine gives it, seldom agrees beyond ALPHA; work uneven by DP rank and
step, the same on every stage, does."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ddpcore.analysis.jobwhatif import together_chance
from ddpcore.analysis.odds import ALPHA

RUNS = 200
SHAPE = (2, 40, 4)
"""Stages, steps, DP ranks."""


def jitter(rng: np.random.Generator, kind: str, cv: float = 0.3) -> np.ndarray:
    """Each worker's compute factor per step, its own: lognormal, Student's t of 3 degrees, a factor shared by the
    step's workers, each worker's own mean, or jitter carrying 0.7 of a step into the next."""
    sigma = math.sqrt(math.log1p(cv * cv))
    z = rng.standard_normal(SHAPE)
    if kind == "heavy":
        return np.maximum(0.05, 1 + cv * rng.standard_t(3, SHAPE) / math.sqrt(3))
    if kind == "shared":
        z = z + rng.standard_normal((1, SHAPE[1], 1))
    if kind == "offsets":
        return (1 + 0.1 * rng.standard_normal((SHAPE[0], 1, SHAPE[2]))) * np.exp(sigma * z)
    if kind == "carried":
        for t in range(1, SHAPE[1]):
            z[:, t] = 0.7 * z[:, t - 1] + math.sqrt(1 - 0.49) * z[:, t]
    return np.exp(sigma * z)


def agree(factors: np.ndarray) -> bool:
    compute = [list(10.0 * factors[s].reshape(-1)) for s in range(SHAPE[0])]
    return together_chance(compute, SHAPE[2]) <= ALPHA


@pytest.mark.parametrize("kind", ["lognormal", "heavy", "shared", "offsets", "carried"])
def test_jitter_each_worker_s_own_seldom_agrees_across_stages(kind: str) -> None:
    """At most 2 % of runs (ALPHA is 0.1 %: 200 runs show a rate that low as 0 to 2 of them)."""
    rng = np.random.default_rng(11)
    assert sum(agree(jitter(rng, kind)) for _ in range(RUNS)) <= 0.02 * RUNS


def test_work_uneven_by_data_parallel_rank_agrees_across_stages() -> None:
    """A DP rank's work 30 % uneven from step to step, the same on both stages, beside jitter of the same size."""
    rng = np.random.default_rng(12)
    uneven = lambda: (1 + 0.3 * rng.standard_normal((1, SHAPE[1], SHAPE[2]))).clip(0.1)  # noqa: E731
    assert sum(agree(jitter(rng, "lognormal") * uneven()) for _ in range(RUNS)) >= 0.95 * RUNS
