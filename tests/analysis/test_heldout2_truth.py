"""The verdict on a second held-out set of real runs (tests/fixtures/heldout2, `tests/make_traces.py --heldout2`):
recorded in one sitting by a helper that never saw the verdict's code, and scored with the verdict as it stood.
Profiler windows of 5 to 12 steps, delays in the forward, the backward, the optimizer and the input, idle and busy
machines; each against what was injected, in both recordings (the JSONL of every step, the profiler's window). Its
clean runs are checked with the first set's (tests/analysis/test_heldout_truth.py).

Scored as recorded, the verdict missed two runs that a straggler sitting in another's reference explains: rank-steps
slowed at random in the backward on a busy machine (`c_busy_random23_b`: two late ranks in a step made the ranks on
time read early, chance's lower side grew heavy, and its floor, 524 ms against steps of 31, passed none of 27 slowed
steps) and an onset in the window's last 4 steps (`c_onset3_b`). A reference now leaves out what lies
REFERENCE_SUSPECT spreads up, fewer than chance's fit leaves out (`chance.SUSPECT`). The same onset recorded again
(`c_onset3`) is named since a stretch's majority is weighed against a spread without it."""

from __future__ import annotations

import pytest
from paths import FIXTURES
from runs import FORMATS, RunSet

RUNS = RunSet(FIXTURES / "heldout2")
analysed, truth = RUNS.analysed, RUNS.truth

ONE_SLOW = ("c_slow3_w5", "c_busy_small0", "c_opt1_w6", "c_busy_load2")
SPREAD = ("c_busy_moving_bwd", "c_random11", "c_busy_random23", "c_busy_random23_b")
ONSETS = ("c_onset3", "c_onset3_b", "c_busy_onset0")
WHOLE_RUN, WINDOW = FORMATS


def slowed_share(name: str, steps: list[int]) -> float:
    """The share of the analysed steps in which some rank was slowed."""
    delayed = {s for s, _ in truth(name)["slowed"]}
    return len(delayed & set(steps)) / len(steps)


@pytest.mark.parametrize("pattern", FORMATS)
@pytest.mark.parametrize("name", ONE_SLOW)
def test_a_slow_rank_is_named_with_its_cause_wherever_it_sleeps(name, pattern):
    """In the forward, the optimizer or the input; in windows of 5 to 12 steps; idle or busy."""
    a = analysed(name, pattern)
    t = truth(name)
    assert [s.rank for s in a.stragglers] == [t["rank"]] and a.transient.straggler_steps == 0
    (s,) = a.stragglers
    assert s.cause is not None and s.cause.kind == t["cause"]


@pytest.mark.parametrize("pattern", FORMATS)
def test_two_slow_ranks_on_a_busy_machine_are_both_named(pattern):
    a = analysed("c_busy_two02", pattern)
    assert sorted(s.rank for s in a.stragglers) == truth("c_busy_two02")["ranks"]


@pytest.mark.parametrize("name", SPREAD)
def test_stragglers_that_move_or_strike_at_random_are_transient_in_their_share_of_steps(name):
    """Over the whole run: nobody named, and the share of steps held back within a tenth of the truth's. The second
    recording of the busy random run was the miss: none of its slowed steps was found."""
    a = analysed(name, WHOLE_RUN)
    share = slowed_share(name, [s.step for s in a.steps])
    assert a.stragglers == () and a.transient.fraction == pytest.approx(share, abs=0.1)
    assert a.straggler_cost_ms > 0 and a.cost_parts_ms.transient == pytest.approx(a.straggler_cost_ms)


@pytest.mark.parametrize("name", ONSETS)
def test_an_onset_is_named_from_its_step(name):
    a = analysed(name, WHOLE_RUN)
    (s,) = a.stragglers
    assert s.rank == truth(name)["rank"] and abs(s.from_step - truth(name)["from_step"]) <= 2


@pytest.mark.parametrize("name", ONSETS)
def test_an_onset_inside_the_profiler_window_is_named_there_too(name):
    """Rank 3 slow in the last 4 of the window's 12 steps (`c_onset3` and `c_onset3_b`, misses as recorded), rank 0
    in its last 8. In `c_onset3` two of rank 3's four late steps were short of the floor, and were the other ranks'
    chance its majority there was weighed against (`chance.persistence`: the stretch's own majority is left out)."""
    a = analysed(name, WINDOW)
    (s,) = a.stragglers
    assert s.rank == truth(name)["rank"] and abs(s.from_step - truth(name)["from_step"]) <= 2
