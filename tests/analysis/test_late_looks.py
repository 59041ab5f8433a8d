"""Chance when many rank-steps are late (`rounds._cuts`): the look under each step's lower median read again on the
ranks on time, a late lower median read from the places under it, kept only where the share late makes it matter;
and a rank-step beyond chance over the threshold against the ranks on time (`StepColumns.late`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import FIXTURES

from ddpcore.analysis import analyze, measure
from ddpcore.analysis.chance import SUSPECT, _below, below_sigmas, look_bias, look_spread, majority_late
from ddpcore.analysis.rounds import InProcess, chance_in_rounds
from ddpcore.analysis.shards import shards_of
from ddpcore.analysis.verdict import merge
from ddpcore.cli.verdicts import analysis_payload
from ddpcore.traces import read_paths
from scripts.bench.verdict import Regime, _drawn, run_of, work_of


@pytest.mark.parametrize("n", [3, 4, 8, 64])
@pytest.mark.parametrize("share", [0.1, 0.3])
def test_the_look_s_bias_is_what_late_ranks_above_do_to_normal_draws(n, share):
    """A numpy oracle: steps of n normal draws, a binomial count of them moved 50 spreads up; the mean of the look's
    distance over every rank (lower median less the middle of the places under it), over the steps whose lower median
    stays on time, against its mean over steps with none moved (`look_bias` reads the order statistics by Blom's
    approximation: within 0.02)."""
    rng = np.random.default_rng(n)
    steps = 200_000 // n
    h = (n - 1) // 2

    def distances(late: float) -> np.ndarray:
        draws = rng.standard_normal((steps, n)) + 50.0 * (rng.random((steps, n)) < late)
        ordered = np.sort(draws, axis=1)
        distance = ordered[:, h] - (ordered[:, (h - 1) // 2] + ordered[:, h // 2]) / 2
        return distance[ordered[:, h] < 25.0]

    seen = float(distances(share).mean() / distances(0.0).mean()) - 1.0
    assert seen == pytest.approx(look_bias(share, n), abs=0.02)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 64), st.floats(0.0, 0.6), st.integers(1, 400))
def test_more_late_rank_steps_never_make_fewer_late_lower_medians(n, share, steps):
    assert majority_late(share, n, steps) <= majority_late(min(1.0, share + 0.05), n, steps)
    assert majority_late(share, n, steps) <= majority_late(share, n, steps + 50)


def test_a_late_lower_median_is_left_out_of_the_spread_only_when_asked():
    looks = [(20.0, 0.75)] * 20 + [(40.0, 15.0)] * 2
    assert look_spread(looks, [4] * 22) > 2.5
    assert look_spread(looks, [4] * 22, late_looks=True) == pytest.approx(0.75 / below_sigmas(4))


def test_a_clean_run_keeps_its_first_look(monkeypatch):
    """The floors of clean runs whose upper side holds many rank-steps past the cuts by chance (lognormal and a
    shared CPU at cv 0.5) are those of looks never read again."""
    import ddpcore.analysis.rounds as rounds

    works = [
        [list(map(float, row)) for row in work_of(Regime(4, 200, noise, 0.5, "none"), seed)[0]]
        for noise in ("lognormal", "shared")
        for seed in range(3)
    ]
    floors = [chance_in_rounds(InProcess(work), 4, 200).floor_ms for work in works]
    first = rounds.suspect_cuts

    def as_first_read(looks, n, sigmas=SUSPECT, kept=None, late_looks=False):
        return first(looks, n, sigmas)

    monkeypatch.setattr(rounds, "suspect_cuts", as_first_read)
    assert [chance_in_rounds(InProcess(work), 4, 200).floor_ms for work in works] == floors


@pytest.mark.parametrize(
    ("ranks", "noise", "cv"), [(4, "lognormal", 0.05), (8, "lognormal", 0.05), (4, "shared", 0.15)]
)
def test_a_random_straggler_in_a_third_of_the_rank_steps_is_counted_and_costed(ranks, noise, cv):
    """A sleep of the whole step's work in a third of the rank-steps, 6 to 20 spreads late: the share of steps struck
    within 0.05 and the cost within a fifth of the truth, in each of 4 runs of 200 steps. Before, the steps with three
    of four late made chance's lower side a sleep wide, and every run read "no straggler"."""
    for seed in range(4):
        tables, truth = run_of(Regime(ranks, 200, noise, cv, "random0.3"), seed)
        a = analyze(tables)
        assert a.stragglers == ()
        assert a.transient.fraction == pytest.approx(truth.share, abs=0.05)
        assert a.straggler_cost_ms == pytest.approx(truth.cost_ms, rel=0.2)


def test_the_late_lower_medians_just_under_the_cut_do_not_widen_the_spread_they_are_cut_at():
    """A random straggler 6.7 spreads late (normal noise of cv 0.15) in a third of the rank-steps of 4 ranks over 200
    steps: measured against the mean of the distances it let in, the cut let every step whose lower median is late
    back in, read the spread 1.85 times what it is, and nothing late (share 0, cost half the truth)."""
    for seed in range(4):
        tables, truth = run_of(Regime(4, 200, "normal", 0.15, "random0.3"), seed)
        a = analyze(tables)
        assert a.transient.fraction == pytest.approx(truth.share, abs=0.08)
        assert a.straggler_cost_ms == pytest.approx(truth.cost_ms, rel=0.1)


def test_three_late_of_four_are_each_late_against_the_one_on_time():
    """In the steps where three of four ranks slept, all three are late: each one's gap against the others' median
    (a late rank's wait) is near 0, its lateness against the rank on time a sleep."""
    regime = Regime(4, 200, "lognormal", 0.05, "random0.3")
    tables, _ = run_of(regime, 0)
    delay = _drawn(regime, 0)[1]
    a = analyze(tables)
    three = [j for j in range(regime.steps) if (delay[j] > 0).sum() == 3]
    assert len(three) >= 5
    for j in three:
        slept = tuple(int(i) for i in np.flatnonzero(delay[j] > 0))
        assert a.steps[j].late_ranks == slept
        assert max(a.steps[j].columns.gap[i] for i in slept) < 0.1


def test_shards_read_the_late_lower_medians_as_the_whole_run_does():
    """The looks read again, over shards that sort only the steps asked again, and the three late of four over the
    threshold in each shard: the merged verdict is the whole one."""
    tables, _ = run_of(Regime(4, 60, "lognormal", 0.05, "random0.3"), 1)
    whole = analysis_payload(analyze(tables), [])
    assert whole["transient"]["straggler_steps"] > 30
    for count in (2, 4):
        assert analysis_payload(merge(shards_of(tables, count)), []) == whole
    assert measure(tables).chance.floor_ms < 20.0


def test_a_work_not_measured_is_left_out_of_its_step_s_look():
    """A rank ready before the previous release (a clock that jumped: its work is not a positive number) is no
    measure of chance: its step's look is that of the ranks measured, as if it were not there."""
    assert _below([[-3.7, 12.8, 13.3, 14.2]], range(1), unmeasured=[1]) == _below([[12.8, 13.3, 14.2]], range(1))
    asked = InProcess([[14.2, 13.3, 12.8, -3.7], [9.6, 15.0, 17.0, 6.7]])
    assert asked.unmeasured() == [1, 0]
    assert asked.lower_looks()[0] == pytest.approx((13.3, 0.5))


def test_a_work_not_measured_no_longer_widens_chance_in_a_profiler_window():
    """The profiler's 8 steps of a random straggler on a busy machine (tests/fixtures/heldout6/rnd_p3_b), one rank-step
    of which reads 3.7 ms before the previous release: taken into its step's look, it read the run's spread five
    times too wide, and chance's floor at 66 ms, more than a whole step."""
    loaded = read_paths(sorted((FIXTURES / "heldout6" / "rnd_p3_b").glob("*.pt.trace.json.gz")))
    m = measure(loaded.traces)
    assert any("not a positive number" in w for w in m.warnings)
    assert m.chance.floor_ms < m.median_step_ms


def test_shards_leave_a_work_not_measured_out_of_its_look_as_the_whole_run_does():
    tables, _ = run_of(Regime(4, 40, "lognormal", 0.15, "random0.1"), 2)
    for step, rank in ((3, 1), (17, 2), (17, 0)):
        tables[rank].work_ms[step] = -2.5
    whole = analysis_payload(analyze(tables), [])
    for count in (2, 4):
        assert analysis_payload(merge(shards_of(tables, count)), []) == whole
