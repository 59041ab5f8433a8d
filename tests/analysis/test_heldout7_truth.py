"""The verdict on a seventh held-out set of real runs (tests/fixtures/heldout7, `tests/make_heldout7.py`), recorded
by a helper that never saw the verdict's code and scored blind on 2026-12-07 against the verdict before and after
the floor was held for a tail that may be heavy (`chance.guarded`): clean runs of 3, 4 and 6 ranks (idle; busy; one
beside a CI run taking half the CPU), random stragglers (a rank-step in twenty sleeping 30 ms in its backward, in
seven 12 ms in its forward), a moving one among 3 ranks (22 ms in its backward), a slow rank of 3 (12 ms) and of 4
(25 ms, in a 3-step profiler window), and two slow ranks of 6 (16 ms). 60 steps each, the JSONL of every step and a
profiler window of 3 to 10 steps.

Before and after, over these runs and the eight the set also held (recorded beside the CI run, their truth blurred
by it, not kept): clean analyses with an alarm 5 of 18 before, 3 after (none of the 10 kept); slowed steps found 114
of 264 before, 118 after; steps counted that no rank slept in 12 before, 7 after; every slow rank named by both.

Left unasserted, missed by both: the random stragglers' profiler windows (0 of 1 and 0 of 4 slowed steps counted),
and the moving straggler's 6-step window, costed 14.2 ms a step (22 ms slept) with none of its steps counted."""

from __future__ import annotations

import pytest
from paths import FIXTURES
from runs import FORMATS, RunSet, names_nobody

from ddpcore.analysis.chance import DISCOVERY

RUNS = RunSet(FIXTURES / "heldout7")
analysed, truth, struck_share = RUNS.analysed, RUNS.truth, RUNS.struck_share

CLEAN = ("c3_rq", "c4_rq", "c6_rq", "c4_b", "c6_q")
RANDOM = ("r4_p05_s30_rq", "r3_p15_s12_rq")
SLOW = ("f3_s12", "f4_s25_w3", "two6_s16")


@pytest.mark.parametrize("pattern", FORMATS)
@pytest.mark.parametrize("name", CLEAN)
def test_a_clean_run_names_nobody_and_counts_no_step(name: str, pattern: str) -> None:
    assert names_nobody(analysed(name, pattern))


@pytest.mark.parametrize("name", RANDOM)
def test_random_stragglers_are_counted_over_the_run(name: str) -> None:
    """Nobody named; the share of steps counted within 0.05 of the steps struck, two in three of them found (11 of
    11 and 22 of 23), and no more steps counted that nobody slept in than the false discovery rate allows (0 and 1)."""
    a = analysed(name, FORMATS[0])
    steps = [s.step for s in a.steps]
    struck = {s for s, _ in truth(name)["slowed"]} & set(steps)
    found = set(a.transient.step_numbers)
    assert list(a.stragglers) == []
    assert abs(a.transient.fraction - struck_share(name, steps)) <= 0.05
    assert len(found & struck) >= 2 / 3 * len(struck) and len(found - struck) <= DISCOVERY * len(found)


def test_a_moving_straggler_s_steps_are_counted_over_the_run() -> None:
    a = analysed("m3_s22_bw", FORMATS[0])
    assert list(a.stragglers) == [] and a.transient.fraction == struck_share("m3_s22_bw", [s.step for s in a.steps])


@pytest.mark.parametrize("pattern", FORMATS)
@pytest.mark.parametrize("name", SLOW)
def test_slow_ranks_are_named_and_no_step_is_counted_transient(name: str, pattern: str) -> None:
    assert RUNS.names_the_slow_ranks(name, pattern)


def test_a_moving_straggler_s_window_says_how_many_more_steps_would_tell_it() -> None:
    """The 6-step window of the straggler moving among 3 ranks (22 ms in the backward, beside a busy machine) names
    nothing late; its latest ranks lead the next by 7 ms more than chance makes the latest of 3 lead, on average
    (`chance.Led`), which 3 more steps as clear would make beyond chance. No clean window says so."""
    a = analysed("m3_s22_bw", FORMATS[1])
    assert a.transient.straggler_steps == 0 and a.undecided_moving is not None
    assert a.undecided_moving.spaced_steps is None and a.undecided_moving.lead_ms == pytest.approx(7.0, abs=0.5)
    assert (a.undecided_moving.steps_read, a.undecided_moving.more_steps) == (6, 3)
    for name in CLEAN:
        assert analysed(name, FORMATS[1]).undecided_moving is None
