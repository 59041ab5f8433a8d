"""The verdict on the runs recorded for it (tests/fixtures/verdict, `tests/make_traces.py --verdict`): a 3-step
profiler window, a busy machine, a rank slow from mid-run; each against its measured wall times. And what a short
window, a stretch and a cause now say, in the JSON and the text."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paths import FIXTURES
from runs import FORMATS, RunSet

from ddpcore.analysis import analyze
from ddpcore.analysis.verdict import Undecided, cause_message, named_cause, undecided_message
from ddpcore.base.phases import CAUSES
from ddpcore.cli.verdicts import analysis_payload, analysis_text
from ddpcore.traces import simulated_run

RUNS = RunSet(FIXTURES / "verdict")
analysed, truth = RUNS.analysed, RUNS.truth


def growth(name: str, reference: str, steps: list[int]) -> float:
    """How much longer the run's steps took than the reference's, each step's wall time the median rank's."""

    def walls(run: str) -> list[float]:
        w = truth(run)["step_ms"]
        return [statistics.median(ranks[s] for ranks in w.values()) for s in steps]

    return statistics.fmean(walls(name)) - statistics.fmean(walls(reference))


@pytest.mark.parametrize("pattern", FORMATS)
@pytest.mark.parametrize("name", ["window3_clean", "busy_clean"])
def test_clean_runs_name_nobody_and_count_no_transient(name, pattern):
    a = analysed(name, pattern)
    assert a.stragglers == () and a.transient.straggler_steps == 0 and a.undecided == ()
    assert a.straggler_cost_ms == 0


def test_a_rank_twice_as_slow_is_named_in_a_three_step_profiler_window():
    a = analysed("window3_slow", "*.pt.trace.json.gz")
    assert len(a.steps) == 3 and [s.rank for s in a.stragglers] == [2]
    assert a.stragglers[0].cause is not None and a.stragglers[0].cause.kind == "forward"
    assert a.noise.persistent_needed <= len(a.steps), "never an impossible count"


def test_a_moving_straggler_in_a_three_step_window_is_every_step_transient():
    a = analysed("window3_moving", "*.pt.trace.json.gz")
    assert a.stragglers == () and a.transient.straggler_steps == 3


@pytest.mark.parametrize("name", ["window3_slow", "busy_slow"])
def test_a_persistent_straggler_is_named_from_the_step_it_was_slowed_at(name):
    """The delay starts at step 5 (the run's steps 1-4 are its own): the verdict names it from there, and its cost
    is the measured growth of the steps it slowed, over every step."""
    a = analysed(name, "*.jsonl.gz")
    t = truth(name)
    assert [(s.rank, s.from_step, s.to_step) for s in a.stragglers] == [(t["rank"], t["from_step"], None)]
    steps = [s.step for s in a.steps]
    reference = "window3_clean" if name.startswith("window3") else "busy_clean"
    slowed = [s for s in steps if s >= t["from_step"]]
    measured = growth(name, reference, slowed) * len(slowed) / len(steps)
    assert a.straggler_cost_ms == pytest.approx(measured, rel=0.2)


@pytest.mark.parametrize("pattern", FORMATS)
def test_a_heavy_clean_run_on_shared_cores_names_nobody_and_nothing_leads(pattern):
    """Steps long enough that 4 ranks on 2 cores jitter by as much as a sleep: nobody named, no transient step, and
    no step's latest rank leads beyond chance."""
    a = analysed("heavy_clean", pattern)
    assert a.stragglers == () and a.transient.straggler_steps == 0 and a.straggler_cost_ms == 0
    assert not a.noise.leads_beyond_chance


def test_a_moving_straggler_in_shared_core_jitter_is_no_jitter():
    """Rank `step % 4` sleeps 18 ms in steps whose on-time ranks jitter by as much: its rank-steps made chance's own
    tail (the floor was 47 ms). The run's latest ranks lead the next by more than chance, chance is then fitted on
    the ranks on time, most steps are transient, the cost is the measured growth, and no note says that jitter puts
    a rank that far back."""
    a = analysed("heavy_moving", "*.jsonl.gz")
    assert a.stragglers == () and a.noise.leads_beyond_chance
    text = analysis_text(analysis_payload(a, []))
    assert "read as that jitter" not in text
    steps = [s.step for s in a.steps]
    slowed = [s for s in steps if s >= truth("heavy_moving")["from_step"]]
    assert a.transient.fraction >= 0.6
    measured = growth("heavy_moving", "heavy_clean", slowed) * len(slowed) / len(steps)
    assert a.straggler_cost_ms == pytest.approx(measured, rel=0.25)


def test_a_moving_straggler_s_share_is_the_truth_s():
    a = analysed("window3_moving", "*.jsonl.gz")
    steps = [s.step for s in a.steps]
    share = len({s for s, _ in truth("window3_moving")["slowed"] if s in steps}) / len(steps)
    assert a.stragglers == () and a.transient.fraction == pytest.approx(share, abs=0.05)


def test_a_rank_slow_from_mid_run_is_named_with_its_onset():
    a = analysed("onset", "*.jsonl.gz")
    (s,) = a.stragglers
    assert s.rank == truth("onset")["rank"] and abs(s.from_step - truth("onset")["from_step"]) <= 2
    assert s.to_step is None
    late = [step.step for step in a.steps if s.rank in step.late_ranks]
    assert len([n for n in late if n < s.from_step]) <= 1, "before its onset, late only where chance was passed"
    assert len([n for n in late if n >= s.from_step]) >= 0.9 * (a.steps[-1].step - s.from_step + 1)
    payload = analysis_payload(a, [])
    assert payload["stragglers"][0]["from_step"] == s.from_step and payload["stragglers"][0]["to_step"] is None
    assert f"slow from step {s.from_step}" in analysis_text(payload)


def test_a_window_too_short_says_how_many_more_steps_would_decide():
    """A rank 1.6x slow over three steps of noisy ranks is over the threshold in all three, but its lateness is
    not yet past chance: one line says how many more steps as late would name it, and no impossible count."""
    said = 0
    for seed in range(20):
        runs, _ = simulated_run(4, 3, (), 0.0, seed=seed, jitter_cv=0.25)
        a = analyze(runs)
        for u in a.undecided:
            assert 0 < u.more_steps <= 3 * len(a.steps) and u.over_steps >= 2
            said += 1
    text = undecided_message(Undecided(2, 3, 5.08, 2), 3).text()
    assert "2 more step(s) as late would name it a persistent straggler" in text
    assert "rang 2" in undecided_message(Undecided(2, 3, 5.08, 2), 3).text("fr")
    assert said >= 0


def test_a_cause_names_the_part_that_dominates_with_its_share():
    """Two slow ranks' lateness, 77 % forward and 17 % backward, is the forward's; when nothing dominates, mixed."""
    dominant = named_cause({"forward": 14.5, "backward": 3.2, "between_steps": 1.3}, 19.0)
    assert dominant.kind == "forward" and dominant.share == pytest.approx(14.5 / 19.0)
    assert named_cause({"forward": 9.0, "backward": 6.0}, 15.0).kind == "mixed"
    a = analysed("busy_slow", "*.jsonl.gz")
    assert "(9" in analysis_text(analysis_payload(a, [])).splitlines()[1], "the cause's share, after its line"


def test_a_causes_shares_never_add_past_the_whole():
    """Each part's median is taken on its own, and a part where the rank is quicker than the others (here its
    optimizer) takes from the lateness what the others add: the shares are of the parts' excesses then, not of a
    lateness they pass ("forward (100 %; backward 16 %)" read as a contradiction)."""
    cause = named_cause({"forward": 19.0, "backward": 3.0, "optimizer": -3.0}, 19.0)
    assert cause.kind == "forward" and cause.share == pytest.approx(19.0 / 22.0)
    assert cause_message(cause).text() == "19.0 ms a step longer in its forward (86\u202f%; backward 14\u202f%)"
    assert cause_message(cause).text("fr").endswith("(86\u202f% ; backward 14\u202f%)")


@given(
    st.dictionaries(st.sampled_from(CAUSES), st.floats(-50.0, 50.0, allow_nan=False), min_size=1),
    st.floats(0.01, 100.0),
)
def test_a_causes_shares_add_up_to_one_at_most(parts, lateness):
    cause = named_cause(parts, lateness)
    shares = [cause.share_of(ms) for _, ms in cause.largest(len(CAUSES))]
    assert all(0.0 <= s <= 1.0 for s in shares) and sum(shares) <= 1.0 + 1e-9
    assert cause.kind == "mixed" or cause.share == pytest.approx(shares[0])


def test_the_json_gives_the_new_keys_beside_the_old():
    payload = analysis_payload(analysed("onset", "*.jsonl.gz"), [])
    assert {"undecided", "noise", "stragglers", "transient", "cost_parts_ms"} <= set(payload)
    assert {
        "chance_over_threshold",
        "persistent_needed",
        "alpha",
        "mean_needed_ms",
        "leads_beyond_chance",
        "latest_floor_ms",
    } == set(payload["noise"])
    assert payload["noise"]["latest_floor_ms"] is None
    assert {"from_step", "to_step"} <= set(payload["stragglers"][0])


def test_a_transient_bar_past_a_whole_step_is_said_so_in_the_text():
    """The heavy clean run's chance puts a transient straggler's bar past a whole step: the text says that no
    rank-step alone can pass it, rather than give a lateness no rank-step could have; the JSON keeps the figure."""
    a = analysed("heavy_clean", "*.jsonl.gz")
    payload = analysis_payload(a, [])
    assert payload["jitter_floor_ms"] > payload["median_step_ms"]
    text = analysis_text(payload)
    assert "no single rank-step can be a transient one" in text and "a transient one works" not in text
    assert "a transient one works" in analysis_text(analysis_payload(analysed("window3_moving", "*.jsonl.gz"), []))


def test_a_persistent_bar_past_a_whole_step_is_said_so_in_the_text():
    """The same run's chance asks a persistent straggler to work on average more than a whole step beyond the ranks
    on time (117,506 ms against steps of 41 ms): the text says no rank can pass that bar, rather than give it as a
    lateness; a run whose bar lies within a step gives it as one."""
    payload = analysis_payload(analysed("heavy_clean", "*.jsonl.gz"), [])
    assert payload["noise"]["mean_needed_ms"] > payload["median_step_ms"]
    text = analysis_text(payload)
    assert "lets no rank pass that bar" in text and "and works on average" not in text
    ordinary = analysis_text(analysis_payload(analysed("window3_slow", "*.jsonl.gz"), []))
    assert "and works on average" in ordinary and "lets no rank pass that bar" not in ordinary
