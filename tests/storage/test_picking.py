"""Place-by-place extremes of columns (`storage.largest_each`, `least_each`): what `map(max, ...)` and
`map(min, ...)` give, bit for bit, NaNs and signed zeros included."""

import math
import struct

from hypothesis import given
from hypothesis import strategies as st

from ddpcore.storage.picking import largest_each, least_each

values = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, math.nan])


@st.composite
def columns(draw):  # type: ignore[no-untyped-def]
    width = draw(st.integers(0, 12))
    return draw(st.lists(st.lists(values, min_size=width, max_size=width), min_size=1, max_size=5))


def bits(column):  # type: ignore[no-untyped-def]
    return [struct.pack("<d", v) for v in column]


@given(columns())
def test_each_place_holds_what_max_and_min_give(cols):
    assert bits(largest_each(cols)) == bits(list(map(max, *cols)) if len(cols) > 1 else cols[0])
    assert bits(least_each(cols)) == bits(list(map(min, *cols)) if len(cols) > 1 else cols[0])


def test_the_columns_given_are_left_alone():
    cols = [[1.0, 5.0], [3.0, 4.0]]
    largest_each(cols)
    least_each(cols)
    assert cols == [[1.0, 5.0], [3.0, 4.0]]
