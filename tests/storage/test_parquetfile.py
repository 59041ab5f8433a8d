"""Parquet read with the standard library (`storage.parquetfile`) against pyarrow, the oracle: every layout pyarrow
writes for a flat table (codecs, dictionaries or not, page versions 1 and 2, pages and row groups many, nulls)
reads the same values; what the reader leaves is `ParquetUnread`; a damaged file is `ParquetError`, never another
exception."""

import io
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import FIXTURES

from ddpcore.storage.parquetfile import Coded, ParquetError, ParquetUnread, parquet_columns, unpacked, unsnappy

TYPES = {
    "int32": (pa.int32(), st.integers(-(2**31), 2**31 - 1)),
    "int64": (pa.int64(), st.integers(-(2**63), 2**63 - 1)),
    "float": (pa.float32(), st.floats(width=32, allow_nan=False)),
    "double": (pa.float64(), st.floats(allow_nan=False)),
    "text": (pa.string(), st.text(max_size=6)),
    "flag": (pa.bool_(), st.booleans()),
}
CODECS = ["NONE", "SNAPPY", "GZIP"]


@st.composite
def tables(draw):  # type: ignore[no-untyped-def]
    rows = draw(st.integers(0, 300))
    chosen = draw(st.lists(st.sampled_from(sorted(TYPES)), min_size=1, max_size=4, unique=True))
    columns = {}
    for name in chosen:
        kind, values = TYPES[name]
        few = draw(st.lists(values, min_size=1, max_size=5))
        nulls = draw(st.booleans())
        drawn = draw(st.lists(st.sampled_from(few + ([None] if nulls else [])), min_size=rows, max_size=rows))
        columns[name] = pa.array(drawn, kind)
    return pa.table(columns)


def written(table, **options):  # type: ignore[no-untyped-def]
    out = io.BytesIO()
    pq.write_table(table, out, **options)
    return out.getvalue()


def same(a, b):  # type: ignore[no-untyped-def]
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tables(),
    st.sampled_from(CODECS),
    st.booleans(),
    st.sampled_from(["1.0", "2.0"]),
    st.sampled_from([None, 7, 64]),
    st.sampled_from([1 << 20, 64]),
)
def test_every_flat_layout_pyarrow_writes_reads_as_pyarrow_reads_it(table, codec, dictionary, version, group, page):
    data = written(
        table,
        compression=codec,
        use_dictionary=dictionary,
        data_page_version=version,
        row_group_size=group,
        data_page_size=page,
    )
    got = parquet_columns(data)
    assert list(got) == table.column_names
    for name in table.column_names:
        expected = pq.read_table(io.BytesIO(data)).column(name).to_pylist()
        assert len(got[name]) == len(expected)
        assert all(same(a, b) for a, b in zip(got[name], expected, strict=True)), name


def test_columns_without_nulls_are_arrays_and_codes():
    data = written(pa.table({"n": pa.array([3, 1, 3], pa.int32()), "x": [0.5, 0.25, 2.0], "op": ["a", "b", "a"]}))
    got = parquet_columns(data, ["n", "op", "x"])
    assert got["n"].typecode == "q" and got["x"].typecode == "d"
    assert isinstance(got["op"], Coded) and got["op"].words == ("a", "b") and list(got["op"].codes) == [0, 1, 0]
    assert list(parquet_columns(data, ["x"])) == ["x"]


@pytest.mark.parametrize("name", ["AR", "ST", "SE"])
def test_the_published_traces_read_as_pyarrow_reads_them(name):
    path = FIXTURES / "jobs3d" / f"trace-{name}.parquet"
    got = parquet_columns(path.read_bytes())
    table = pq.read_table(path)
    for column in table.column_names:
        assert list(got[column]) == table.column(column).to_pylist(), column


@pytest.mark.parametrize("codec", ["LZ4", "BROTLI"])
def test_a_codec_not_in_the_standard_library_is_left_to_pyarrow(codec):
    with pytest.raises(ParquetUnread, match="compressed with"):
        parquet_columns(written(pa.table({"a": [1, 2]}), compression=codec))


def test_nested_columns_and_delta_encodings_are_left_to_pyarrow():
    with pytest.raises(ParquetUnread, match="nested"):
        parquet_columns(written(pa.table({"a": [[1], [2, 3]]})))
    delta = written(pa.table({"a": [1, 2, 3]}), use_dictionary=False, column_encoding={"a": "DELTA_BINARY_PACKED"})
    with pytest.raises(ParquetUnread, match="encoding"):
        parquet_columns(delta)


SAMPLE = written(
    pa.table({"step": pa.array(range(40), pa.int64()), "op": ["fwd", "bwd"] * 20, "t": [i / 7 for i in range(40)]}),
    compression="SNAPPY",
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(SAMPLE) - 1), st.integers(0, 255)), min_size=1, max_size=4))
def test_a_damaged_file_reads_or_is_a_parquet_error(flips):
    data = bytearray(SAMPLE)
    for at, value in flips:
        data[at] = value
    try:
        got = parquet_columns(bytes(data))
    except ParquetError:
        return
    assert all(len(v) == len(next(iter(got.values()))) for v in got.values())


@given(st.integers(0, len(SAMPLE)))
def test_a_file_cut_short_is_a_parquet_error(length):
    with pytest.raises(ParquetError):
        parquet_columns(SAMPLE[:length] + (b"PAR1" if length > 8 else b""))


def test_snappy_copies_that_overlap_repeat_their_pattern():
    assert unsnappy(bytes([10, 0]) + b"x" + bytes([0b00010101, 1]), 10) == b"x" * 10
    with pytest.raises(ParquetError):
        unsnappy(bytes([4, 0]) + b"x" + bytes([0b00000001, 5]), 4)


@given(st.integers(1, 32), st.data())
def test_unpacking_gives_back_the_numbers_packed(width, data):
    values = data.draw(st.lists(st.integers(0, 2**width - 1), max_size=100))
    packed = sum(v << (i * width) for i, v in enumerate(values)).to_bytes((len(values) * width + 7) // 8 + 8, "little")
    assert unpacked(packed, width, len(values)) == values
