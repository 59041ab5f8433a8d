"""Invariants of the step model over random valid configurations."""

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ddpcore import PHASES, Phases, StepConfig, build_schedule, step_metrics

durations = st.floats(0.01, 1000, allow_nan=False, allow_infinity=False)


@st.composite
def configs(draw):
    gpus = draw(st.integers(2, 64))
    stragglers = tuple(draw(st.lists(st.integers(0, gpus - 1), min_size=1, max_size=4)))
    return StepConfig(
        gpus=gpus,
        phases=Phases(
            load=draw(st.floats(0, 1000)),
            forward=draw(durations),
            backward=draw(durations),
            allreduce=draw(durations),
            optimizer=draw(durations),
        ),
        stragglers=stragglers,
        slowdown=draw(st.floats(1.0, 10.0)),
        prefetch=draw(st.booleans()),
        prefetch_residual_ms=draw(st.floats(0, 10)),
        tensor_activity=draw(st.floats(0, 1)),
    )


@given(configs())
def test_metric_bounds(c):
    m = step_metrics(c)
    assert m.step_ms >= m.ideal_step_ms
    assert 0 < m.efficiency <= 1
    assert m.displayed_util >= m.useful_compute
    assert 0 <= m.useful_compute <= m.displayed_util <= 1 + 1e-12
    assert m.prefetch_gain_ms >= 0
    assert m.straggler_cost_ms == pytest.approx(m.step_ms - m.ideal_step_ms)


@given(configs())
def test_waits_nonnegative_and_zero_on_slowest(c):
    s = build_schedule(c)
    waits = [r.duration_of("wait") for r in s.ranks]
    assert min(waits) >= 0
    compute_end = [r.interval("backward").end_ms for r in s.ranks]
    slowest = compute_end.index(max(compute_end))
    assert waits[slowest] == 0
    assert step_metrics(c, s).wait_ms_total == pytest.approx(sum(waits))


@given(configs())
def test_phases_contiguous_ordered_and_end_at_step(c):
    s = build_schedule(c)
    for r in s.ranks:
        assert tuple(i.phase for i in r.intervals) == PHASES
        assert r.intervals[0].start_ms == 0
        for a, b in zip(r.intervals, r.intervals[1:]):
            assert a.end_ms == b.start_ms
            assert a.start_ms <= a.end_ms
        assert r.intervals[-1].end_ms == s.step_ms


@given(configs(), st.floats(1.0, 10.0), st.floats(1.0, 10.0))
def test_step_non_decreasing_in_slowdown(c, a, b):
    lo, hi = sorted((a, b))
    assert build_schedule(replace(c, slowdown=lo)).step_ms <= build_schedule(replace(c, slowdown=hi)).step_ms


@given(configs())
def test_traffic_factor(c):
    assert step_metrics(c).ring_traffic_factor == pytest.approx(2 * (c.gpus - 1) / c.gpus)
