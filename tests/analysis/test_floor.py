"""The run's floor against chance as far as what was read of it may reach (`chance.as_far_as_read`): the skew's
standard error against a numpy oracle, clean runs of skewed noise that counted transient stragglers before it, and
stragglers that still stand out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ddpcore.analysis import analyze
from ddpcore.analysis.chance import HEAVY_FROM, SKEW_ERROR, Tail, as_far_as_read, fdr_floor, run_floor
from scripts.bench.verdict import Regime, run_of


def test_the_skew_error_is_the_spread_of_a_skew_read_on_normal_draws():
    """`SKEW_ERROR` / sqrt(n) against the standard deviation of log(upper spread / lower spread), each from the
    median to the 90 % and 10 % quantiles, over 4,000 samples of 400 normal draws."""
    rng = np.random.default_rng(7)
    n = 400
    draws = rng.standard_normal((4000, n))
    q10, q50, q90 = np.quantile(draws, [0.1, 0.5, 0.9], axis=1)
    seen = float(np.log((q90 - q50) / (q50 - q10)).std()) * math.sqrt(n)
    assert seen == pytest.approx(SKEW_ERROR, rel=0.06)


def test_a_tail_read_on_few_values_is_left_as_read():
    """Below HEAVY_FROM values a skew's error is not small, and the floor's widening for few values is `predictive`'s;
    from HEAVY_FROM, the upper spread is one standard error of the skew wider, the lower side and the heaviness as
    read."""
    tail = Tail(0.0, 1.0, 1.0, 0.05)
    assert as_far_as_read(tail, HEAVY_FROM - 1) == tail
    far = as_far_as_read(tail, 400)
    assert far.high == pytest.approx(math.exp(SKEW_ERROR / 20.0)) and (far.low, far.heavy) == (1.0, 0.05)


def test_the_floor_is_higher_as_read_than_as_fitted():
    tail = Tail(0.0, 1.2816, 1.2816)
    values = sorted(np.random.default_rng(1).standard_normal(800).tolist())
    assert run_floor(values, tail, 0, 200) > fdr_floor(values, tail)


@pytest.mark.parametrize(
    ("ranks", "steps", "noise", "cv"),
    [(4, 200, "shared", 0.5), (2, 200, "lognormal", 0.5)],
)
def test_clean_runs_of_skewed_noise_count_no_transient(ranks, steps, noise, cv):
    """A shared CPU's noise and a lognormal one, 24 runs of each shape: with the skew taken as it was read, 3 and 2
    of them counted a transient straggler; none now."""
    regime = Regime(ranks, steps, noise, cv, "none")
    counted = [seed for seed in range(24) if analyze(run_of(regime, seed)[0]).transient.straggler_steps]
    assert counted == []


def test_a_rank_step_far_beyond_chance_is_still_transient():
    """Rank-steps ten spreads late (one in a hundred) among 800 of a lognormal at cv 0.1: nobody named, and most of
    them counted, in each of 10 runs."""
    regime = Regime(4, 200, "lognormal", 0.1, "random0.01")
    for seed in range(10):
        tables, truth = run_of(regime, seed)
        a = analyze(tables)
        slowed = round(truth.share * regime.steps)
        assert a.stragglers == () and a.transient.straggler_steps >= slowed - 2 >= 3
