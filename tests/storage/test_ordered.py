"""Values read in order by position (`storage.ordered`) give exactly what a sort gives, however they are laid out;
so do a few sorted places of many values found without a sort of them all (`sorted_places`)."""

import random
import statistics
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from ddpcore.analysis.chance import Middle, middle_places
from ddpcore.storage import ordered
from ddpcore.storage.micros import median
from ddpcore.storage.ordered import SELECTED_FROM, SORT_UP_TO, SortedRuns, bracket, in_order, sample_of, sorted_places

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


LAYOUTS = ("random", "sorted", "reversed", "few values", "one outlier side", "sawtooth")


def laid_out(layout: str, n: int, seed: int) -> array:
    """n doubles laid out in a way a strided sample could misjudge: sorted, in blocks, mostly one value."""
    rng = random.Random(seed)
    base = [rng.gauss(20.0, 1.0) for _ in range(n)]
    if layout == "sorted":
        base.sort()
    elif layout == "reversed":
        base.sort(reverse=True)
    elif layout == "few values":
        base = [float(rng.randrange(3)) for _ in range(n)]
    elif layout == "one outlier side":
        base = [1.0] * (n - n // 3) + [rng.uniform(1e3, 1e4) for _ in range(n // 3)]
    elif layout == "sawtooth":
        base = [float(k % 97) for k in range(n)]
    return array("d", base)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(LAYOUTS), st.integers(SELECTED_FROM, 3 * SELECTED_FROM), st.integers(0, 2**32), st.data())
def test_a_few_sorted_places_are_those_of_the_whole_sort(layout, n, seed, data):
    values = laid_out(layout, n, seed)
    start = data.draw(st.integers(0, n - 1))
    stop = data.draw(st.integers(start, min(n, start + 80)))
    whole = sorted(values)
    assert sorted_places(values, start, stop) == whole[start:stop]
    assert median(values) == statistics.median(values)
    middle, exact = Middle.of(values, 20), Middle.of_sorted(whole, 20)
    assert middle == exact and middle.places() == middle_places(whole)


def test_a_sample_that_misses_the_places_falls_back_to_the_sort(monkeypatch):
    n = 2 * SELECTED_FROM
    values = array("d", [0.0] * n)
    values[1::2] = array("d", [float(k) for k in range(n // 2)])
    assert all(values[k] == 0.0 for k in range(0, n, n // 2048))
    sorts: list[int] = []

    def counted(xs, **kw):
        done = sorted(xs, **kw)
        sorts.append(len(done))
        return done

    monkeypatch.setattr(ordered, "sorted", counted, raising=False)
    start = 3 * n // 4
    assert sorted_places(values, start, start + 5) == sorted(values)[start : start + 5]
    assert sorts[-1] == n


@given(rows, st.data())
def test_runs_each_read_without_one_value_are_the_runs_that_never_held_it(xs, data):
    """`LeftOut` views (a run's value at one place left out where it lies) read across as `SortedRuns` give what
    runs built without those values give: every place, the counts, a bracket's values, the tail and the sample."""
    from ddpcore.storage.ordered import LeftOut

    sorted_xs = [array("d", sorted(x)) for x in xs]
    places = [data.draw(st.integers(-1, len(x) - 1)) for x in sorted_xs]
    views = SortedRuns(LeftOut(x, k) if k >= 0 else x for x, k in zip(sorted_xs, places))
    fewer = [array("d", [v for i, v in enumerate(x) if i != k]) for x, k in zip(sorted_xs, places)]
    built = SortedRuns(fewer)
    expected = sorted(v for x in fewer for v in x)
    assert list(views) == expected and len(views) == len(expected)
    for x, k in zip(sorted_xs, places):
        if k >= 0:
            view = LeftOut(x, k)
            assert list(view[1:]) == list(x[:k] + x[k + 1 :])[1:]
            assert [view[i] for i in range(-len(view), 0)] == list(x[:k] + x[k + 1 :])
    if expected:
        lo, hi = sorted(data.draw(st.lists(st.sampled_from(expected), min_size=2, max_size=2)))
        assert views.count_upto(lo) == built.count_upto(lo)
        assert views.above(lo) == built.above(lo)
        assert views.within(lo, hi).places(0, len(expected)) == built.within(lo, hi).places(0, len(expected))
        assert views.places(0, len(expected)) == expected
        assert views.sample(8) == built.sample(8)
