"""The verdict on a third held-out set of real runs (tests/fixtures/heldout3, `tests/make_traces.py --heldout3`):
recorded in one sitting by a helper that never saw the verdict's code, and scored blind with the verdict as it stood
(19 analyses right of 20). Profiler windows of 4 to 12 steps, idle and busy machines; each against what was
injected, in both recordings (the JSONL of every step, the profiler's window). Its clean runs are checked with the
other sets' (tests/analysis/test_heldout_truth.py).

The one miss, left unasserted: the onset's first recording (`d_onset2_w12`, rank 2 sleeping 15 ms from step 31)
was already about 2 ms late in 14 of its first 30 steps, not injected; the JSONL names it from the start, and the
12-step window, with 3 slowed steps, leaves it undecided. Its second recording is named from step 31 in both."""

from __future__ import annotations

import pytest
from paths import FIXTURES
from runs import FORMATS, RunSet

from ddpcore.analysis.chance import DISCOVERY

RUNS = RunSet(FIXTURES / "heldout3")
analysed, truth = RUNS.analysed, RUNS.truth
WHOLE_RUN, WINDOW = FORMATS

MOVING = ("d_moving_fwd_w10", "d_busy_moving_fwd_w12")


def slowed_steps(name: str, steps: list[int]) -> set[int]:
    """The analysed steps in which some rank was slowed."""
    return {s for s, _ in truth(name)["slowed"]} & set(steps)


@pytest.mark.parametrize("pattern", FORMATS)
@pytest.mark.parametrize("name", MOVING)
def test_a_moving_straggler_is_transient_in_most_of_its_steps(name, pattern):
    """Rank step % 4 sleeping 15 ms in its forward, idle (10-step window) and busy (12): nobody named, and at least
    four in five of the slowed steps counted transient, with a cost."""
    a = analysed(name, pattern)
    slowed = slowed_steps(name, [s.step for s in a.steps])
    found = set(a.transient.step_numbers)
    assert a.stragglers == () and len(found & slowed) >= 0.8 * len(slowed) and a.straggler_cost_ms > 0


@pytest.mark.parametrize("pattern", FORMATS)
def test_rank_steps_slowed_at_random_are_found_and_only_those(pattern):
    """Each rank-step with probability 0.25, 20 ms in the backward: nobody named, two in three of the slowed steps
    found (38 of 39 over the run, 4 of 5 in the 8-step window), and of the steps found no more than the false
    discovery rate the floor is held to (`chance.DISCOVERY`) not slowed (1 of 38 over the run)."""
    a = analysed("d_random_bwd_w8", pattern)
    slowed = slowed_steps("d_random_bwd_w8", [s.step for s in a.steps])
    found = set(a.transient.step_numbers)
    assert a.stragglers == () and len(found) >= 2 / 3 * len(slowed)
    assert len(found - slowed) <= DISCOVERY * len(found)


@pytest.mark.parametrize("pattern", FORMATS)
def test_a_rank_slow_in_its_optimizer_is_named_in_a_four_step_window(pattern):
    a = analysed("d_opt1_w4", pattern)
    assert [s.rank for s in a.stragglers] == [1] and a.transient.straggler_steps == 0


@pytest.mark.parametrize("pattern", FORMATS)
def test_two_slow_ranks_on_a_busy_machine_are_both_named_in_six_steps(pattern):
    a = analysed("d_busy_two03_w6", pattern)
    assert sorted(s.rank for s in a.stragglers) == [0, 3]


@pytest.mark.parametrize("pattern", FORMATS)
def test_an_onset_inside_the_window_is_named_from_its_step(pattern):
    (s,) = analysed("d_onset2_w12_b", pattern).stragglers
    assert s.rank == 2 and abs(s.from_step - 31) <= 2


def test_a_rank_late_before_its_onset_is_named_from_the_start():
    """The onset's first recording: rank 2 was a little late before step 31 too; over the whole run it is named."""
    assert [s.rank for s in analysed("d_onset2_w12", WHOLE_RUN).stragglers] == [2]
