"""A straggler that moves between two ranks (`chance.mirrored_beyond_chance`, read by `rounds.tops_late`): at two
ranks a step's deviations mirror each other, so the gap between the ranks is what is read. Without a straggler that
gap is symmetric and unimodal about its mean, and at least a quarter of the steps lie within half its median
distance of it; a straggler late by d, now one rank now the other, leaves few there. Its false alarms over gaps of
many laws (numpy, and the verdict bench's clean runs), its power, the verdict it gives (every step counted, the cost
against the truth), what it leaves alone (a persistent straggler, one slow from mid-run), and the shard merge."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ddpcore.analysis import analyze
from ddpcore.analysis.chance import ALPHA, MIRRORED_NEAR, mirrored_beyond_chance, mirrored_noise
from ddpcore.analysis.shards import shards_of
from ddpcore.analysis.verdict import merge
from ddpcore.cli.verdicts import analysis_payload
from scripts.bench.verdict import NOISES, Regime, run_of, score, work_of

RUNS = 300


def _draws(rng: np.random.Generator, law: str, shape: tuple[int, int]) -> np.ndarray:
    if law == "normal":
        return rng.standard_normal(shape)
    if law == "uniform":
        return rng.uniform(-1.0, 1.0, shape)
    if law == "lognormal":
        return np.exp(0.5 * rng.standard_normal(shape))
    if law == "student3":
        return rng.standard_t(3, shape)
    if law == "exponential":
        return rng.exponential(1.0, shape)
    z = rng.standard_normal(shape)
    for t in range(1, shape[0]):
        z[t] = 0.8 * z[t - 1] + math.sqrt(1.0 - 0.64) * z[t]
    return z


@pytest.mark.parametrize("steps", [24, 60, 200])
@pytest.mark.parametrize("law", ["normal", "uniform", "lognormal", "student3", "exponential", "carried"])
def test_two_ranks_drawing_one_law_rarely_read_as_a_moving_straggler(law: str, steps: int) -> None:
    """The bound holds for any unimodal gap, so the test is conservative: ALPHA is 0.001, and none of 300 runs of
    any law may fire more than once."""
    rng = np.random.default_rng(steps)
    fired = sum(
        mirrored_beyond_chance([float(g) for g in np.diff(_draws(rng, law, (steps, 2)), axis=1)[:, 0]])
        for _ in range(RUNS)
    )
    assert fired <= 1


@pytest.mark.parametrize(("steps", "lead", "least"), [(60, 6.0, 0.9), (200, 4.0, 0.99)])
@pytest.mark.parametrize("alternating", [True, False])
def test_a_straggler_moving_between_two_ranks_is_read(steps: int, lead: float, least: float, alternating: bool) -> None:
    """Late by `lead` of one rank's spread in every step, the rank that is late alternating or drawn at random."""
    rng = np.random.default_rng(7)
    fired = 0
    for _ in range(RUNS):
        work = rng.standard_normal((steps, 2))
        late = np.arange(steps) % 2 if alternating else rng.integers(0, 2, steps)
        work[np.arange(steps), late] += lead
        fired += mirrored_beyond_chance([float(g) for g in work[:, 0] - work[:, 1]])
    assert fired >= least * RUNS


def test_the_bound_is_a_uniform_gaps():
    """A uniform gap on [-1, 1] puts exactly MIRRORED_NEAR of its draws within half the median distance (1/2) of
    its centre; a normal one more."""
    from statistics import NormalDist

    half_median = NormalDist().inv_cdf(0.75) / 2
    assert MIRRORED_NEAR == 0.25
    assert 2 * NormalDist().cdf(half_median) - 1 > MIRRORED_NEAR


def test_a_window_too_short_never_fires_and_a_step_function_is_not_a_moving_straggler() -> None:
    """Under 25 steps no count reaches ALPHA; a gap that jumps once (one rank slow from mid-run) carries from step to
    step, and is worth one step."""
    assert not mirrored_beyond_chance([(-1.0) ** k * 20.0 for k in range(24)])
    assert mirrored_beyond_chance([(-1.0) ** k * 20.0 for k in range(25)])
    assert (1 - MIRRORED_NEAR) ** 25 < ALPHA < (1 - MIRRORED_NEAR) ** 24
    jump = [0.01 * (k % 3) + (20.0 if k >= 30 else 0.0) for k in range(60)]
    assert not mirrored_beyond_chance(jump)


@pytest.mark.parametrize("noise", NOISES)
def test_the_verdict_bench_clean_two_rank_runs_never_read_mirrored(noise: str) -> None:
    for steps in (30, 200):
        for cv in (0.05, 0.15, 0.3, 0.5):
            for seed in range(12):
                work, _ = work_of(Regime(2, steps, noise, cv, "none"), seed)
                assert not mirrored_beyond_chance([float(g) for g in work[:, 0] - work[:, 1]])


@pytest.mark.parametrize("noise", NOISES)
def test_a_generated_moving_straggler_at_two_ranks_is_counted_and_costed(noise: str) -> None:
    """Six spreads late (cv 0.15) over 200 steps: nearly every step counted, nobody named persistent, the cost within
    20 % of the truth (the step re-timed with the late rank ready when the other is: about half a spread over)."""
    for seed in range(3):
        regime = Regime(2, 200, noise, 0.15, "moving")
        tables, truth = run_of(regime, seed)
        a = analyze(tables, regime.threshold)
        scored = score(a, truth)
        assert not a.stragglers
        assert abs(scored["share_error"]) <= 0.05
        assert abs(scored["cost_error"]) <= 0.2


@pytest.mark.parametrize("kind", ["p2", "onset"])
def test_a_persistent_straggler_of_two_ranks_is_not_read_as_moving(kind: str) -> None:
    regime = Regime(2, 60, "lognormal", 0.15, kind)
    for seed in range(4):
        work, _ = work_of(regime, seed)
        assert not mirrored_beyond_chance([float(g) for g in work[:, 0] - work[:, 1]])


def test_what_chance_is_fitted_on_is_the_gap_without_the_straggler() -> None:
    """The distances from the mean less their median: a straggler 20 late with a spread of 1 leaves a spread of
    about 1 about 0."""
    rng = np.random.default_rng(3)
    gaps = [(-1.0) ** k * 20.0 + float(rng.standard_normal()) * math.sqrt(2) for k in range(400)]
    noise = mirrored_noise(gaps)
    assert noise == sorted(noise)
    assert abs(float(np.median(noise))) < 1e-9
    assert 1.0 < float(np.quantile(noise, 0.9) - np.quantile(noise, 0.1)) / 2.5631 < 1.8


def test_the_shard_merge_reads_a_straggler_moving_between_two_ranks_as_analyze_does() -> None:
    regime = Regime(2, 60, "lognormal", 0.05, "moving")
    tables, _ = run_of(regime, 1)
    whole = analyze(tables)
    assert whole.transient.straggler_steps == 60
    assert analysis_payload(merge(shards_of(tables, 2)), []) == analysis_payload(whole, [])


def test_the_fit_judging_a_run_by_its_work_reads_the_pair_as_the_verdict_does() -> None:
    """`fitting.RunTimes.judged` (a run known by its work alone) applies the verdict's rule: a straggler moving
    between two ranks makes neither persistent (here one of the two is over the threshold in a strict majority of
    the steps by chance), and a rank slow in every step stays so."""
    from ddpcore.analysis.fitting import RunTimes

    for kind, slow in (("moving", ()), ("p2", (1,))):
        work, _ = work_of(Regime(2, 200, "heavy", 0.15, kind), 0)
        rows = [[float(w) for w in row] for row in work]
        run = RunTimes.of_compute(rows, [max(row) for row in rows]).judged(0.1)
        assert run.persistent == slow


def test_the_count_a_persistent_straggler_needs_is_said_as_the_rule_reads_it() -> None:
    """One story: with a straggler moving between two ranks, the JSON's `noise.persistent_needed` is the fair coin's
    count the rule applies, not a strict majority; without one, a strict majority."""
    from ddpcore.analysis.chance import count_needed, majority

    moving = analyze(run_of(Regime(2, 60, "lognormal", 0.05, "moving"), 1)[0])
    clean = analyze(run_of(Regime(2, 60, "lognormal", 0.05, "none"), 1)[0])
    assert moving.noise.leads_beyond_chance and not clean.noise.leads_beyond_chance
    assert moving.noise.persistent_needed == count_needed(60, True) > majority(60)
    assert clean.noise.persistent_needed == majority(60)
