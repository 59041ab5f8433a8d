"""The verdict's rules on synthetic runs where the answer is known: who is late, persistent or not, the cost."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st
from runs import jsonl_run as run

from ddpcore.analysis import analyze
from ddpcore.analysis.chance import medians_of_others
from ddpcore.traces import load


def test_two_ranks_the_cost_is_the_whole_gap():
    a = analyze(load(run([[0.02, 0.05]] * 5)).traces)
    assert [s.rank for s in a.stragglers] == [1]
    assert a.stragglers[0].median_cost_ms == pytest.approx(30.0)
    assert a.straggler_cost_ms == pytest.approx(30.0)
    assert a.stragglers[0].median_gap == pytest.approx(0.3)


def test_a_consistently_late_rank_is_named_though_never_the_latest():
    """At scale a 1.3x rank is rarely the very latest (transients are), yet it sets the pace of most steps."""
    rng = random.Random(7)
    steps = []
    for n in range(40):
        row = [0.03 + rng.gauss(0, 0.0005) for _ in range(16)]
        row[5] = 0.045
        row[n % 16 if n % 16 != 5 else 0] = 0.07
        steps.append(row)
    a = analyze(load(run(steps)).traces)
    assert all(s.slowest_rank != 5 for s in a.steps)
    assert [s.rank for s in a.stragglers] == [5]
    assert a.transient.fraction == 1.0 and 5 not in a.transient.ranks


def test_late_in_half_the_steps_is_not_persistent():
    steps = [[0.03, 0.03, 0.03, 0.06] if n % 2 else [0.03] * 4 for n in range(6)]
    a = analyze(load(run(steps)).traces)
    assert a.stragglers == ()
    assert a.transient.straggler_steps == 3 and a.transient.ranks == (3,)


def test_threshold_decides_what_is_late():
    steps = [[0.03, 0.03, 0.03, 0.038]] * 4
    assert analyze(load(run(steps)).traces, threshold=0.1).stragglers == ()
    assert [s.rank for s in analyze(load(run(steps)).traces, threshold=0.05).stragglers] == [3]


def test_several_persistent_stragglers_worst_first():
    a = analyze(load(run([[0.03, 0.05, 0.03, 0.07, 0.03]] * 4)).traces)
    assert [s.rank for s in a.stragglers] == [3, 1]


def test_phases_never_add_up_to_more_than_the_step():
    a = analyze(load(run([[0.03, 0.05, 0.04]] * 3)).traces)
    for s in a.steps:
        for x in s.drawn:
            assert sum(v for k, v in x.phases_ms.items() if k != "idle") <= x.period_ms + 1e-9


@given(st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.0, 1.0, 2.5]), min_size=2, max_size=40))
def test_medians_of_others_against_the_definition(values):
    """Exactly the definition, ties with the middle included (the values are compared, not their places)."""
    expected = [statistics.median(values[:i] + values[i + 1 :]) for i in range(len(values))]
    assert list(medians_of_others(values)) == expected
