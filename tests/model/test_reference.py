"""The reference scenarios of docs/model.md, exact."""

import pytest

from ddpcore import StepConfig, build_schedule, step_metrics

SCENARIOS = [
    # slowdown, prefetch, step, efficiency, displayed util, useful compute
    (1.0, False, 44, 1.0, 38 / 44, 13 / 44),
    (1.5, False, 57, 44 / 57, 51 / 57, 13 / 57),
    (2.0, False, 70, 44 / 70, 64 / 70, 13 / 70),
    (1.0, True, 39, 1.0, 38 / 39, 13 / 39),
    (2.0, True, 65, 39 / 65, 64 / 65, 13 / 65),
]


@pytest.mark.parametrize(("slowdown", "prefetch", "step", "eff", "util", "useful"), SCENARIOS)
def test_reference_scenario(slowdown, prefetch, step, eff, util, useful):
    m = step_metrics(StepConfig(stragglers=(2,), slowdown=slowdown, prefetch=prefetch))
    assert m.step_ms == pytest.approx(step, abs=1e-9)
    assert m.efficiency == pytest.approx(eff, abs=1e-9)
    assert m.displayed_util == pytest.approx(util, abs=1e-9)
    assert m.useful_compute == pytest.approx(useful, abs=1e-9)
    assert m.ring_traffic_factor == 1.75
    assert m.prefetch_gain_ms == pytest.approx(5.0, abs=1e-9)


def test_two_x_straggler_costs_26_ms_and_prefetch_gains_5():
    m = step_metrics(StepConfig(slowdown=2.0))
    assert m.straggler_cost_ms == pytest.approx(26.0, abs=1e-9)
    assert m.ideal_step_ms == pytest.approx(44.0, abs=1e-9)
    assert m.wait_ms_total == pytest.approx(7 * 26.0, abs=1e-9)


def test_defaults_are_the_spec_defaults():
    c = StepConfig()
    assert (c.gpus, c.stragglers, c.slowdown, c.prefetch) == (8, (2,), 1.0, False)
    p = c.phases
    assert (p.load, p.forward, p.backward, p.allreduce, p.optimizer) == (6, 10, 16, 10, 2)


def test_straggler_schedule_shape():
    s = build_schedule(StepConfig(slowdown=2.0))
    straggler = s.ranks[2]
    assert [(i.phase, i.start_ms, i.end_ms) for i in straggler.intervals] == [
        ("load", 0, 6),
        ("forward", 6, 26),
        ("backward", 26, 58),
        ("wait", 58, 58),
        ("allreduce", 58, 68),
        ("optimizer", 68, 70),
    ]
    assert s.ranks[0].interval("wait").start_ms == 32
    assert s.ranks[0].interval("wait").end_ms == 58


def test_prefetch_residual_never_exceeds_load():
    from ddpcore import Phases

    c = StepConfig(phases=Phases(load=0.5), prefetch=True, prefetch_residual_ms=1.0)
    assert c.load_effective_ms == 0.5


def test_several_stragglers():
    m = step_metrics(StepConfig(stragglers=(1, 5), slowdown=2.0))
    assert m.step_ms == pytest.approx(70.0)
    assert m.wait_ms_total == pytest.approx(6 * 26.0)


@pytest.mark.parametrize("lost_in", ["compute", "load", "between_steps"])
def test_where_the_straggler_loses_its_time_moves_it_not_its_amount(lost_in):
    """The same 2x straggler, its 26 ms lost computing, loading or between steps: the same cost without prefetch;
    prefetching hides an input straggler whole and does nothing for the others."""
    plain = step_metrics(StepConfig(slowdown=2.0, lost_in=lost_in))
    assert plain.step_ms == 70 and plain.straggler_cost_ms == 26
    prefetched = step_metrics(StepConfig(slowdown=2.0, lost_in=lost_in, prefetch=True))
    if lost_in == "load":
        assert prefetched.straggler_cost_ms == 0 and prefetched.step_ms == 39
        assert plain.prefetch_gain_ms == 26 + 5
    else:
        assert prefetched.straggler_cost_ms == 26 and plain.prefetch_gain_ms == 5
    schedule = build_schedule(StepConfig(slowdown=2.0, lost_in=lost_in))
    first = schedule.ranks[2].intervals[0]
    assert (first.phase, first.duration_ms) == (
        ("between_steps", 26.0) if lost_in == "between_steps" else ("load", 32.0 if lost_in == "load" else 6.0)
    )
    assert schedule.ranks[2].slowdown == (2.0 if lost_in == "compute" else 1.0)
    assert all(r.intervals[-1].end_ms == 70 for r in schedule.ranks), "the barrier ends every rank's step together"


def test_a_straggler_losing_time_between_steps_in_overlap_mode_delays_every_bucket():
    base = step_metrics(StepConfig(mode="overlap", slowdown=2.0))
    paused = step_metrics(StepConfig(mode="overlap", slowdown=2.0, lost_in="between_steps"))
    assert paused.straggler_cost_ms == pytest.approx(26.0, abs=1e-9)
    assert paused.straggler_cost_ms >= base.straggler_cost_ms
