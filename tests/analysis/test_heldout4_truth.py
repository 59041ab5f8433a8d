"""The verdict on a fourth held-out set of real runs (tests/fixtures/heldout4, `tests/make_heldout4.py`), recorded by
a helper that never saw the verdict's code and scored blind: 17 analyses right of 20 first recordings. Kinds the
other sets do not hold: 8 ranks on 2 cores (clean, one slow, three slow), 2 ranks (clean, slow in the optimizer), a
rank that recovers mid-run, bursts, a slow input pipeline, a 3 ms straggler, a clean run on a busy machine; the
JSONL of every step and a profiler window of 5 to 12 steps each.

The misses, left unasserted:
- the recovery inside the second recording's 12-step window (`e_recover1_b`: rank 1 slow in the window's first 8
  steps, 45-75 % of the step late, then on time): unnamed. Chance's spread, read on 48 rank-steps of a busy
  machine (gaps of 15-49 % by chance in the steps after), holds the slow ones even without rank 1's, and its floor
  lies past a whole step. In the first recording the same is named, weighed against chance without rank 1
  (`chance.Others`), below;
- a false transient in one of three 2-rank clean recordings (`e_clean2`, JSONL: 3 steps of 59, backward);
- the 3 ms straggler in its 8-step window (`e_small0`), under a bar of 7.6 ms (named over the 59 steps).

Noticed, not a verdict's matter: with 8 ranks on 2 cores, a sleeping rank frees a core and the others run faster,
so a step with a straggler was no longer than a clean one; the what-if, which keeps the others' work as measured,
costs the stragglers 4-14 ms a step."""

from __future__ import annotations

import pytest
from paths import FIXTURES
from runs import FORMATS, RunSet

RUNS = RunSet(FIXTURES / "heldout4")
analysed, truth = RUNS.analysed, RUNS.truth
WHOLE_RUN, WINDOW = FORMATS

CLEAN = ("e_clean8", "e_clean8_b", "e_clean4", "e_clean4_busy", "e_clean2_b", "e_clean2_c")
PERSISTENT = ("e_slow8_r5", "e_three8", "e_load3", "e_slow2_r1")


@pytest.mark.parametrize("pattern", FORMATS)
@pytest.mark.parametrize("name", CLEAN)
def test_clean_runs_name_nobody(name, pattern):
    """8, 4 and 2 ranks, idle and busy: nobody named, no transient step, no cost."""
    a = analysed(name, pattern)
    assert a.stragglers == () and a.transient.straggler_steps == 0 and a.straggler_cost_ms == 0


def test_the_false_transients_of_a_two_rank_clean_run_are_few_and_not_named():
    """The one 2-rank recording (of three) with false transient steps: 3 of 59, nobody named."""
    a = analysed("e_clean2", WHOLE_RUN)
    assert a.stragglers == () and a.transient.straggler_steps <= 3
    assert analysed("e_clean2", WINDOW).transient.straggler_steps == 0


@pytest.mark.parametrize("pattern", FORMATS)
@pytest.mark.parametrize("name", PERSISTENT)
def test_persistent_stragglers_are_named_with_their_cause(name, pattern):
    """One of 8, three of 8, a slow input pipeline, a slow optimizer of 2 ranks: exactly the slowed ranks, each
    with the part it sleeps in."""
    a = analysed(name, pattern)
    t = truth(name)
    assert sorted(s.rank for s in a.stragglers) == sorted(t["ranks"])
    assert all(s.cause is not None and s.cause.kind == t["cause"] for s in a.stragglers)


def test_a_rank_that_recovers_is_named_with_both_ends_over_the_run():
    """Rank 1 slow in its backward in steps 10-34, then on time: named from step 10 to step 35, both recordings."""
    for name in ("e_recover1", "e_recover1_b"):
        (s,) = analysed(name, WHOLE_RUN).stragglers
        assert s.rank == 1 and s.cause is not None and s.cause.kind == "backward"
        assert abs(s.from_step - 10) <= 1 and abs(s.to_step - 35) <= 1


def test_a_rank_that_recovers_inside_a_window_is_named_up_to_its_recovery():
    """Rank 1 slow in the window's first 7 steps (28-34), then on time: named up to step 35, weighed against chance
    without it (with 4 ranks its 7 slow rank-steps hold the 90 % quantile chance read on every rank is fitted
    through, which put the bar a rank-step must pass at 150 ms in steps of 30)."""
    (s,) = analysed("e_recover1", WINDOW).stragglers
    assert s.rank == 1 and s.from_step is None and s.to_step == 35


@pytest.mark.parametrize("pattern", FORMATS)
def test_bursts_are_the_ranks(pattern):
    """Rank 2 slow in four bursts of 5 steps: named (one stretch over the bursts), in its forward; in the 10-step
    window, from the burst's first step."""
    a = analysed("e_bursts2", pattern)
    assert [s.rank for s in a.stragglers] == [2]
    assert a.stragglers[0].cause is not None and a.stragglers[0].cause.kind == "forward"
    if pattern == WINDOW:
        assert a.stragglers[0].from_step == 20


def test_a_small_straggler_is_named_over_the_run():
    """Rank 0, 3 ms more in its forward every step (about a tenth of a step): named over 59 steps."""
    assert [s.rank for s in analysed("e_small0", WHOLE_RUN).stragglers] == [0]
