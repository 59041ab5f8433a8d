"""Values read in order by position (`base.ordered`) give exactly what a sort gives, however they are laid out."""

from array import array

from hypothesis import given
from hypothesis import strategies as st

from ddpcore.base import Ordered, in_order
from ddpcore.base.ordered import SORT_UP_TO

values = st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.0, 1.0]), min_size=1, max_size=400)


@given(values, st.integers(2, 64), st.data())
def test_every_position_is_the_sorted_one(xs, sample, data):
    o, expected = Ordered(array("d", xs), sample=sample), sorted(xs)
    for k in data.draw(st.lists(st.integers(0, len(xs) - 1), max_size=8)):
        assert o[k] == expected[k]
    assert list(o) == expected


@given(values, st.floats(-1e6, 1e6), st.integers(0, 400))
def test_a_prefix_and_its_counts_are_the_sorted_ones(xs, x, count):
    o, expected = Ordered(array("d", xs), sample=8), sorted(xs)
    head = o[:count]
    assert len(head) == min(count, len(xs))
    assert list(head) == expected[:count]
    assert head.count_upto(x) == sum(v <= x for v in expected[:count])


def test_values_laid_out_against_the_sample_are_still_found():
    """A sample taken every k-th value sees only one kind of value when the layout repeats with period k: the
    bracket misses, is widened, and at last every value is sorted."""
    xs = array("d", [0.0 if i % 4 else float(i) for i in range(4000)])
    o = Ordered(xs, sample=1000)
    assert [o[k] for k in (0, 2999, 3000, 3999)] == [sorted(xs)[k] for k in (0, 2999, 3000, 3999)]


def test_few_values_are_simply_sorted():
    assert in_order(array("d", [3.0, 1.0, 2.0])) == [1.0, 2.0, 3.0]
    assert isinstance(in_order(array("d", bytes(8 * (SORT_UP_TO + 1)))), Ordered)
