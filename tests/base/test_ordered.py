"""Values read in order by position (`base.ordered`) give exactly what a sort gives, however they are laid out."""

from array import array

from hypothesis import given
from hypothesis import strategies as st

from ddpcore.base import SortedRuns, bracket, in_order, sample_of
from ddpcore.base.ordered import SORT_UP_TO

values = st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.0, 1.0]), min_size=0, max_size=60)
rows = st.lists(values, min_size=1, max_size=12).filter(lambda r: sum(map(len, r)) > 0)


def runs_of(xs: list[list[float]]) -> SortedRuns:
    return SortedRuns(array("d", sorted(x)) for x in xs)


@given(rows, st.data())
def test_every_position_across_sorted_runs_is_the_sorted_one(xs, data):
    r, expected = runs_of(xs), sorted(v for x in xs for v in x)
    for k in data.draw(st.lists(st.integers(0, len(expected) - 1), max_size=8)):
        assert r[k] == expected[k]
    assert list(r) == expected


@given(rows, st.floats(-1e6, 1e6), st.integers(0, 400))
def test_a_prefix_and_its_counts_are_the_sorted_ones(xs, x, count):
    r, expected = runs_of(xs), sorted(v for x in xs for v in x)
    head = r[:count]
    assert len(head) == min(count, len(expected))
    assert list(head) == expected[:count]
    assert head.count_upto(x) == sum(v <= x for v in expected[:count])


@given(rows, st.data())
def test_a_bracket_holds_the_places_asked_for(xs, data):
    expected = sorted(v for x in xs for v in x)
    first = data.draw(st.integers(0, len(expected) - 1))
    last = data.draw(st.integers(first, len(expected) - 1))
    lo, hi = bracket([sample_of(sorted(x), 4) for x in xs], (first, last))
    assert sum(v < lo for v in expected) <= first
    assert sum(v <= hi for v in expected) > last


def test_ties_across_runs_are_found():
    xs = [[0.0] * 50 + [1.0], [0.0] * 30, [1.0] * 20, [-1.0]]
    r, expected = runs_of(xs), sorted(v for x in xs for v in x)
    assert [r[k] for k in range(len(expected))] == expected


def test_few_values_are_simply_sorted_and_many_are_read_across_their_rows():
    assert in_order([array("d", [3.0, 1.0]), array("d", [2.0])]) == [1.0, 2.0, 3.0]
    copies = SORT_UP_TO // 1000 + 1
    ordered = in_order([array("d", [float((i * 7919) % 1000) for i in range(1000)])] * copies)
    assert isinstance(ordered, SortedRuns)
    for k in (0, 1, copies, len(ordered) // 2, len(ordered) - 1):
        assert ordered[k] == float(k // copies)
