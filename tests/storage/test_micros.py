"""Times kept in microseconds (`storage.Micros`) read exactly as the doubles a version 2 summary gives."""

import pickle
import statistics
from array import array

from hypothesis import given
from hypothesis import strategies as st

from ddpcore.storage.micros import Micros, as_ms, median
from ddpcore.storage.transposed import Transposed

micros = st.lists(st.integers(-(2**31) + 1, 2**31 - 1) | st.sampled_from([0, 1, 999, 1000, 1001]), min_size=1)


@given(micros)
def test_a_column_reads_as_its_values_divided_by_a_thousand(us):
    m = Micros(array("i", us))
    expected = [v / 1000 for v in us]
    assert list(m) == expected == m.tolist() == m.ms().tolist()
    assert [m[i] for i in range(len(us))] == expected
    assert Micros(array("i", us), "f").ms().tolist() == array("f", expected).tolist()


@given(micros)
def test_its_median_is_the_median_of_its_values(us):
    assert median(Micros(array("i", us))) == statistics.median([v / 1000 for v in us])
    assert median(array("d", [v / 1000 for v in us])) == statistics.median([v / 1000 for v in us])


@given(st.lists(micros.filter(lambda c: len(c) >= 3).map(lambda c: c[:3]), min_size=1, max_size=6))
def test_columns_read_across_are_the_values_read_across(columns):
    kept = [Micros(array("i", c)) for c in columns]
    as_doubles = [array("d", [v / 1000 for v in c]) for c in columns]
    for block in (None, 2):
        across, expected = Transposed(kept, "d", block), Transposed(as_doubles, "d", block)
        assert across.same and across.kept == "i"
        assert [across.at(j).tolist() for j in range(3)] == [expected.at(j).tolist() for j in range(3)]


def test_columns_of_mixed_kinds_are_read_item_by_item():
    mixed = [Micros(array("i", [1500, 2])), Micros(array("q", [7, 3_000_000_000_000]))]
    across = Transposed(mixed, "d")
    assert not across.same
    assert across.at(1).tolist() == [0.002, 3_000_000_000.0]


def test_a_column_crosses_a_process_as_it_is():
    m = Micros(array("i", [1, 2, 3]), "f")
    again = pickle.loads(pickle.dumps(m))
    assert again == m and again.typecode == "f" and again.us.typecode == "i"
    assert as_ms(array("q", [5]), "d").tolist() == [0.005]


@given(st.lists(st.integers(0, 2**31 - 1), min_size=1, max_size=40), st.integers(0, 2**52))
def test_offsets_from_a_base_read_as_the_times_themselves(offsets, base):
    """A rank's steps' starts kept as 32-bit offsets read as the 64-bit times: each value, the median, a slice, a
    pickled copy, and across ranks (item by item, since their bases differ)."""
    based = Micros(array("i", offsets), base=base)
    whole = Micros(array("q", [base + v for v in offsets]))
    assert list(based) == list(whole) and based.median() == whole.median()
    assert list(based[1:]) == list(whole[1:]) and list(based.ms()) == list(whole.ms())
    again = pickle.loads(pickle.dumps(based))
    assert again == based and again.base == base
    across = Transposed([based, Micros(array("i", offsets))], "d")
    assert list(across.at(0)) == [whole[0], offsets[0] / 1000]


@given(
    st.lists(st.lists(st.integers(-1000, 1000), min_size=6, max_size=6), min_size=1, max_size=5),
    st.integers(0, 5),
    st.integers(0, 6),
    st.sampled_from([None, 1, 2, 4]),
)
def test_some_rows_are_read_where_they_lie_as_their_copy_is(columns, start, stop, block):
    """`Transposed(..., rows=range(a, b))` reads rows a to b of every column, without copying them out, as a
    Transposed of the columns' slices does: doubles, microseconds and flags alike."""
    rows = range(start, max(start, stop))
    for kept, code in (
        ([array("d", c) for c in columns], "d"),
        ([Micros(array("i", c)) for c in columns], "d"),
        ([bytes(v % 2 for v in c) for c in columns], "B"),
    ):
        where = Transposed(kept, code, block, rows)
        copied = Transposed([c[rows.start : rows.stop] for c in kept], code, block)
        assert where.rows == copied.rows == len(rows)
        for j in range(len(rows)):
            a, b = where.at(j), copied.at(j)
            assert (a if isinstance(a, bytes) else a.tolist()) == (b if isinstance(b, bytes) else b.tolist())
