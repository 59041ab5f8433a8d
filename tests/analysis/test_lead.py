"""A straggler that moves from rank to rank, too little late for its rank-steps to stand out alone
(`rounds.tops_late`, `rounds.late_at_top`): each step's latest rank leads the next by more than chance makes the
latest of as many lead. Its false alarms over clean runs of many shapes and noises (the verdict bench's generator,
`work_of`), its power, its expected lead against a numpy oracle, and the shard merge against `analyze`."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddpcore.analysis import analyze, merge, shards_of
from ddpcore.analysis.chance import (
    ALPHA,
    Lead,
    crowded,
    crowded_count,
    expected_lead,
    first_look,
    rank_places,
)
from ddpcore.analysis.rounds import late_at_top
from ddpcore.cli.verdicts import analysis_payload
from ddpcore.traces import simulated_run
from scripts.bench.verdict import NOISES, Regime, work_of


def fires(work: np.ndarray) -> bool:
    rows = [list(map(float, row)) for row in work]
    return late_at_top(rows, rank_places(rows), first_look(rows)) is not None


SHAPES = ((3, 5), (4, 3), (4, 8), (4, 60), (6, 30), (8, 200), (64, 5), (64, 30))


def test_clean_runs_of_every_noise_and_shape_rarely_lead():
    """Over 1,920 clean runs (6 noises x 4 spreads x 8 shapes x 10 seeds), the test is held to ALPHA (0.1 %): two
    at most (expected 1.9)."""
    alarms = []
    for kind in NOISES:
        for cv in (0.05, 0.15, 0.3, 0.5):
            for ranks, steps in SHAPES:
                for seed in range(10):
                    if fires(work_of(Regime(ranks, steps, kind, cv, "none"), seed)[0]):
                        alarms.append((kind, cv, ranks, steps, seed))
    assert len(alarms) <= 2, alarms


@pytest.mark.parametrize("kind", NOISES)
def test_a_straggler_moving_four_spreads_late_leads(kind):
    """A rank a step, the next each step, four times the noise's spread late: found in 4 ranks over 40 steps in at
    least 18 of 20 runs, under every noise (three spreads late takes about 100 steps)."""
    found = 0
    for seed in range(20):
        work = work_of(Regime(4, 40, kind, 0.1, "none"), seed)[0]
        work[np.arange(40), np.arange(40) % 4] += 4 * 0.1 * 20.0
        found += fires(work)
    assert found >= 18


def test_a_rank_slow_from_mid_run_is_no_moving_straggler():
    """A rank slow from mid-run leads in every step after its onset; it holds most of the first look's suspects
    (`crowded`), so it is left out of the test and the other ranks' steps do not lead."""
    for seed in range(10):
        assert not fires(work_of(Regime(4, 200, "lognormal", 0.15, "onset"), seed)[0])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-50.0, 50.0, allow_nan=False), min_size=2, max_size=60),
    st.integers(2, 12),
)
def test_the_expected_lead_is_the_lead_of_sets_of_the_values(values, n):
    """`expected_lead` against the mean lead of 20,000 sets of n of the values (numpy, without replacement)."""
    pooled = sorted(values)
    if len(pooled) < n:
        assert expected_lead(pooled, n) == 0.0
        return
    picks = np.argsort(np.random.default_rng(0).random((20_000, len(pooled))), axis=1)[:, :n]
    draws = np.sort(np.array(pooled)[picks], axis=1)
    oracle = float(np.mean(draws[:, -1] - draws[:, -2]))
    spread = float(np.std(draws[:, -1] - draws[:, -2])) / np.sqrt(20_000)
    assert expected_lead(pooled, n) == pytest.approx(oracle, abs=5 * spread + 1e-9)


def test_a_rank_crowded_with_suspects_is_one_past_the_binomial_tail():
    """With 40 suspects over 4 ranks, 21 on one rank happen by chance once in ALPHA / 4 (1 in 4,000) runs or less."""
    from math import comb

    def above(k: int) -> float:
        return sum(comb(40, c) * 0.25**c * 0.75 ** (40 - c) for c in range(k, 41))

    cut = crowded_count(40, 4)
    assert above(cut) <= ALPHA / 4 < above(cut - 1)
    assert crowded({0: cut, 1: 40 - cut}, 4) == frozenset({0})


def test_leads_join_as_the_two_latest_of_both():
    a, b = Lead(5.0, 4.0, 1, (9.0,), 2), Lead(4.5, 1.0, 7, (5.5,), 2)
    assert a.joined(b) == Lead(5.0, 4.5, 1, (9.0, 5.5), 4)
    assert b.joined(a).first == 5.0 and b.joined(a).second == 4.5 and b.joined(a).entry == 1
    assert a.joined(b).mean == b.joined(a).mean == 14.5 / 4


@pytest.mark.parametrize("shards", [2, 3, 6])
def test_a_moving_straggler_is_costed_and_the_merge_agrees(shards):
    """A straggler moving over 6 ranks, four times the jitter's spread late, in 60 steps: the lead is found, the
    step's cost is no longer zero, and a merge of shards gives the same verdict, field by field."""
    run, _ = simulated_run(6, 60, seed=4, jitter_cv=0.15, moving=0.6)
    whole = analyze(run)
    assert whole.noise.leads_beyond_chance and whole.straggler_cost_ms > 0
    assert analysis_payload(merge(shards_of(run, shards)), []) == analysis_payload(whole, [])


def test_a_clean_run_does_not_lead_and_the_merge_agrees():
    run, _ = simulated_run(6, 60, seed=4, jitter_cv=0.15)
    whole = analyze(run)
    assert not whole.noise.leads_beyond_chance and whole.straggler_cost_ms == 0
    assert analysis_payload(merge(shards_of(run, 3)), []) == analysis_payload(whole, [])
