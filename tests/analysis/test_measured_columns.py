"""A step's columns (`analysis.measured`): the shortcuts that spare a sort give what the sort gives."""

from hypothesis import given
from hypothesis import strategies as st

from ddpcore.analysis.stepwise import costs_of, drawn_entries

waits = st.lists(st.floats(0.0, 1e3) | st.sampled_from([0.0, 1.5, 20.0]), min_size=2, max_size=80)


@given(waits)
def test_the_costs_of_the_sorted_waits_reversed_are_the_costs_sorted(wait):
    ranked = sorted(wait)
    ordered = costs_of(ranked, ranked)
    ordered.reverse()
    assert list(ordered) == sorted(costs_of(wait, ranked))


@given(waits)
def test_the_entries_drawn_are_the_same_given_the_costs_in_order(wait):
    ranked = sorted(wait)
    cost = costs_of(wait, ranked)
    ordered = costs_of(ranked, ranked)
    ordered.reverse()
    assert drawn_entries(cost, ordered) == drawn_entries(cost)
