"""Parquet files read with the standard library alone, natively and in the page: the flat tables that the what-if
paper's artifact and most dataframe libraries write. Its metadata (Thrift's compact protocol), pages uncompressed,
Snappy, gzip or (where the standard library has it, Python 3.14) zstd, values PLAIN or dictionary-coded (the RLE /
bit-packed hybrid), data pages of version 1 and 2, columns required or optional. What it does not read (nested or
repeated columns, the LZ4, Brotli and LZO codecs, the DELTA and BYTE_STREAM_SPLIT encodings, INT96) raises
`ParquetUnread`, which a caller may hand to pyarrow; a file that is not Parquet, or is cut short, raises
`ParquetError`. Every size and count read from the file is bounded by the bytes that hold it before it is used.

Why not pyarrow: importing it (and numpy, which it loads) takes longer than reading a 100,000-row operation table
here, and the page has neither.
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

__all__ = ["Coded", "ParquetError", "ParquetUnread", "parquet_columns"]

MAGIC = b"PAR1"
MOST_DEPTH = 32
"""How deep Thrift structures may nest in a file's metadata (Parquet's own nest four deep)."""


class ParquetError(ValueError):
    """A file that is not Parquet, or whose bytes end before what its metadata says they hold."""


class ParquetUnread(ParquetError):
    """A Parquet file that uses what this reader does not read (the module's docstring); pyarrow may."""


@dataclass(frozen=True)
class Coded(Sequence[str]):
    """A column of names held as Parquet holds it: the names once, in order, and each row's place among them."""

    words: tuple[str, ...]
    codes: array[int]

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        return self.words[self.codes[i]]

    def __iter__(self) -> Iterator[str]:
        return map(self.words.__getitem__, self.codes)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """An unsigned LEB128 number at `pos`, and the place after it."""
    out = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        out |= (byte & 0x7F) << shift
        if byte < 0x80:
            return out, pos
        shift += 7
        if shift > 63:
            raise ParquetError("a number in the file longer than 64 bits")


def _zigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


def _thrift_value(data: bytes, pos: int, kind: int, depth: int) -> tuple[Any, int]:
    """A value of Thrift's compact protocol of type `kind`, and the place after it (a boolean as a list's item: a
    structure's booleans are in their field's type)."""
    if depth > MOST_DEPTH:
        raise ParquetError("metadata nested deeper than Parquet's")
    if kind in (1, 2):
        return data[pos] == 1, pos + 1
    if kind == 3:
        return struct.unpack_from("<b", data, pos)[0], pos + 1
    if kind in (4, 5, 6):
        n, pos = _varint(data, pos)
        return _zigzag(n), pos
    if kind == 7:
        return struct.unpack_from("<d", data, pos)[0], pos + 8
    if kind == 8:
        n, pos = _varint(data, pos)
        if pos + n > len(data):
            raise IndexError
        return data[pos : pos + n], pos + n
    if kind in (9, 10):
        head = data[pos]
        pos += 1
        size, element = head >> 4, head & 15
        if size == 15:
            size, pos = _varint(data, pos)
        if size > len(data) - pos:
            raise IndexError
        items = []
        for _ in range(size):
            item, pos = _thrift_value(data, pos, element, depth + 1)
            items.append(item)
        return items, pos
    if kind == 11:
        size, pos = _varint(data, pos)
        if not size:
            return {}, pos
        if 2 * size > len(data) - pos:
            raise IndexError
        types = data[pos]
        pos += 1
        out = {}
        for _ in range(size):
            key, pos = _thrift_value(data, pos, types >> 4, depth + 1)
            out[key], pos = _thrift_value(data, pos, types & 15, depth + 1)
        return out, pos
    if kind == 12:
        return _thrift_struct(data, pos, depth + 1)
    raise ParquetError(f"metadata of an unknown Thrift type {kind}")


def _thrift_struct(data: bytes, pos: int, depth: int = 0) -> tuple[dict[int, Any], int]:
    """A Thrift structure (compact protocol) as its fields by id, and the place after it."""
    if depth > MOST_DEPTH:
        raise ParquetError("metadata nested deeper than Parquet's")
    fields: dict[int, Any] = {}
    last = 0
    while True:
        head = data[pos]
        pos += 1
        if head == 0:
            return fields, pos
        kind, delta = head & 15, head >> 4
        if delta:
            last += delta
        else:
            n, pos = _varint(data, pos)
            last = _zigzag(n)
        if kind in (1, 2):
            fields[last] = kind == 1
        else:
            fields[last], pos = _thrift_value(data, pos, kind, depth)


def unsnappy(data: bytes, size: int) -> bytes:
    """Bytes compressed by Snappy, which must come to `size` bytes.

    >>> unsnappy(bytes([6, 1 - 1 << 2 | 4]) + b"ab" + bytes([0b01, 2]), 6)
    b'ababab'
    """
    try:
        declared, pos = _varint(data, 0)
    except IndexError:
        raise ParquetError("a Snappy block cut short") from None
    if declared != size:
        raise ParquetError(f"a Snappy block of {declared} bytes where its page says {size}")
    view = memoryview(data)
    out = bytearray()
    end = len(data)
    try:
        while pos < end:
            tag = data[pos]
            pos += 1
            kind = tag & 3
            if kind == 0:
                length = tag >> 2
                if length >= 60:
                    extra = length - 59
                    length = int.from_bytes(view[pos : pos + extra], "little")
                    pos += extra
                length += 1
                if pos + length > end or len(out) + length > size:
                    raise IndexError
                out += view[pos : pos + length]
                pos += length
                continue
            if kind == 1:
                length = ((tag >> 2) & 7) + 4
                offset = (tag >> 5) << 8 | data[pos]
                pos += 1
            elif kind == 2:
                length = (tag >> 2) + 1
                offset = data[pos] | data[pos + 1] << 8
                pos += 2
            else:
                length = (tag >> 2) + 1
                offset = int.from_bytes(view[pos : pos + 4], "little")
                pos += 4
            if not 0 < offset <= len(out) or len(out) + length > size:
                raise IndexError
            start = len(out) - offset
            if offset >= length:
                out += out[start : start + length]
            else:
                out += (out[start:] * (length // offset + 1))[:length]
    except IndexError:
        raise ParquetError("a Snappy block that does not decode") from None
    if len(out) != size:
        raise ParquetError("a Snappy block that does not decode")
    return bytes(out)


def _zstd(data: bytes, size: int) -> bytes:
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ParquetUnread("a zstd-compressed Parquet file: this Python has no zstd (3.14 has)") from None
    out: bytes = zstd.ZstdDecompressor().decompress(data, max_length=size + 1)
    return out


def _gzip(data: bytes, size: int) -> bytes:
    try:
        return zlib.decompressobj(47).decompress(data, size + 1)
    except zlib.error:
        raise ParquetError("a gzip-compressed page that does not decode") from None


CODECS = {0: None, 1: unsnappy, 2: _gzip, 6: _zstd}
"""Parquet's compression codecs read here, by number (0: none)."""
CODEC_NAMES = {3: "LZO", 4: "Brotli", 5: "LZ4", 7: "LZ4"}


def _decompressed(data: bytes, codec: int, size: int) -> bytes:
    if codec not in CODECS:
        raise ParquetUnread(f"a Parquet file compressed with {CODEC_NAMES.get(codec, f'codec {codec}')}")
    undo = CODECS[codec]
    out = data if undo is None else undo(data, size)
    if len(out) != size:
        raise ParquetError(f"a page of {len(out)} bytes where its header says {size}")
    return out


def _little(typecode: str, data: bytes | bytearray) -> array[Any]:
    """Numbers stored little-endian (as Parquet stores them) as an array of this machine's order."""
    out = array(typecode)
    out.frombytes(data)
    if sys.byteorder == "big":
        out.byteswap()
    return out


def unpacked(data: bytes | bytearray, width: int, count: int) -> list[int]:
    """`count` unsigned numbers of `width` bits (at most 32) packed least significant bit first, eight to a group of
    `width` bytes (Parquet's bit-packing).

    Each place j of a group is read for every group at once: the eight bytes from its first, taken with a stride of
    a group (a C slice each), make a 64-bit lane per group in one integer, shifted and masked in one operation each.
    A value spans at most five bytes (a shift under 8, at most 32 bits), so no lane reads its neighbour's.

    >>> unpacked(bytes([0b10001000, 0b11000110, 0b11111010]), 3, 8)
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    if width == 0:
        return [0] * count
    if width in (8, 16, 32):
        return _little({8: "B", 16: "H", 32: "I"}[width], data[: count * width // 8]).tolist()
    groups = (count + 7) // 8
    size = groups * width
    padded = bytes(data[:size]).ljust(size + 8, b"\0")
    lane_mask = int.from_bytes(((1 << width) - 1).to_bytes(8, "little") * groups, "little")
    out = array("Q", bytes(64 * groups))
    window = bytearray(8 * groups)
    for j in range(8):
        first, shift = divmod(j * width, 8)
        for k in range(8):
            window[k::8] = padded[first + k : first + k + size : width]
        lanes = (int.from_bytes(window, "little") >> shift) & lane_mask
        out[j::8] = _little("Q", lanes.to_bytes(8 * groups, "little"))
    return out.tolist()[:count]


def hybrid(data: bytes, pos: int, end: int, width: int, count: int, lookup: Sequence[Any] | None = None) -> list[Any]:
    """`count` numbers of `width` bits in Parquet's RLE / bit-packed hybrid, from `pos` up to `end`; with `lookup`,
    each number's entry there instead (a dictionary's codes read as their values). The bit-packed runs are unpacked
    together, in one `unpacked`, then laid between the repeated runs."""
    runs: list[tuple[int, int]] = []
    packed = bytearray()
    got = in_packed = 0
    whole = (width + 7) // 8
    if width > 32:
        raise ParquetError("levels or codes wider than 32 bits")
    try:
        while got < count:
            if pos >= end:
                raise IndexError
            head, pos = _varint(data, pos)
            if head & 1:
                groups = head >> 1
                take = min(groups * 8, count - got)
                if groups * 8 > count - got + 7 or not groups:
                    raise IndexError
                runs.append((-1 - in_packed, take))
                in_packed += groups * 8
                packed += data[pos : min(pos + groups * width, end)].ljust(groups * width, b"\0")
                pos += groups * width
            else:
                take = head >> 1
                if take > count - got or pos + whole > end:
                    raise IndexError
                runs.append((int.from_bytes(data[pos : pos + whole], "little"), take))
                pos += whole
            got += take
        codes = unpacked(packed, width, in_packed)
        if len(runs) == 1 and runs[0][0] < 0:
            del codes[count:]
            out = codes
        else:
            out = []
            for value, take in runs:
                out += codes[-1 - value : -1 - value + take] if value < 0 else [value] * take
        if lookup is None:
            return out
        return list(itemgetter(*out)(lookup)) if len(out) > 1 else [lookup[c] for c in out]
    except IndexError:
        raise ParquetError("levels or codes that run past their page or their dictionary") from None


def _all_present(data: bytes, pos: int, end: int, count: int) -> bool:
    """Whether a column's definition levels (of width 1) say that each of `count` values is there: one run of ones,
    as writers give a column without nulls."""
    try:
        head, at = _varint(data, pos)
    except IndexError:
        return False
    return head & 1 == 0 and head >> 1 >= count and at < end and data[at] == 1


PLAIN_CODES = {1: "i", 2: "q", 4: "f", 5: "d"}
"""Parquet's fixed-width physical types (INT32, INT64, FLOAT, DOUBLE) and the `array` typecode of their layout."""
WIDE_CODES = {1: "q", 2: "q", 4: "d", 5: "d"}
"""The `array` typecode a column of those types is given as: whole numbers as 64-bit, reals as doubles."""
TYPE_NAMES = {0: "BOOLEAN", 1: "INT32", 2: "INT64", 3: "INT96", 4: "FLOAT", 5: "DOUBLE", 6: "BYTE_ARRAY", 7: "FIXED"}


@dataclass(frozen=True)
class _Column:
    name: str
    kind: int
    width: int
    optional: bool


def _plain(data: bytes, pos: int, column: _Column, count: int) -> Sequence[Any]:
    """`count` values PLAIN-encoded from `pos`."""
    if column.kind in PLAIN_CODES:
        end = pos + count * array(PLAIN_CODES[column.kind]).itemsize
        if end > len(data):
            raise ParquetError(f"column {column.name}: values that run past their page")
        return _little(PLAIN_CODES[column.kind], data[pos:end])
    if column.kind == 0:
        if pos + (count + 7) // 8 > len(data):
            raise ParquetError(f"column {column.name}: values that run past their page")
        return [bool(b) for b in unpacked(data[pos:], 1, count)]
    if column.kind == 7:
        size = column.width
        if size <= 0 or pos + count * size > len(data):
            raise ParquetError(f"column {column.name}: values that run past their page")
        return [data[i : i + size] for i in range(pos, pos + count * size, size)]
    if column.kind == 6:
        values: list[bytes] = []
        for _ in range(count):
            n = int.from_bytes(data[pos : pos + 4], "little")
            pos += 4
            if pos + n > len(data):
                raise ParquetError(f"column {column.name}: values that run past their page")
            values.append(data[pos : pos + n])
            pos += n
        return values
    raise ParquetUnread(f"column {column.name}: values of type {TYPE_NAMES.get(column.kind, column.kind)}")


def _column_pages(data: bytes, column: _Column, meta: dict[int, Any], rows: int) -> list[Any]:
    """A column chunk's values, in row order, None where a value is null."""
    codec = meta.get(4, 0)
    count = meta.get(5, 0)
    if count == 0:
        return []
    starts = [o for o in (meta.get(11), meta.get(9)) if isinstance(o, int) and 0 < o < len(data)]
    if not starts or not 0 <= count <= len(data) * 8:
        raise ParquetError(f"column {column.name}: no pages where its metadata says")
    pos = min(starts)
    dictionary: Sequence[Any] | None = None
    parts: list[Sequence[Any]] = []
    read = 0
    while read < count:
        try:
            header, pos = _thrift_struct(data, pos)
        except IndexError:
            raise ParquetError(f"column {column.name}: a page header cut short") from None
        kind, size, stored = header.get(1), header.get(2, -1), header.get(3, -1)
        if not 0 <= stored <= len(data) - pos or not 0 <= size <= 64 * len(data) + 64:
            raise ParquetError(f"column {column.name}: a page larger than the file")
        body = data[pos : pos + stored]
        pos += stored
        if kind == 2:
            page = header.get(7, {})
            n = page.get(1, 0)
            if page.get(2, 0) not in (0, 2) or not 0 <= n <= 8 * size + 8:
                raise ParquetUnread(f"column {column.name}: a dictionary not PLAIN-encoded")
            dictionary = _plain(_decompressed(body, codec, size), 0, column, n)
            continue
        if kind == 0:
            page = header.get(5, {})
            n, encoding = page.get(1, 0), page.get(2, 0)
            plain = _decompressed(body, codec, size)
            at, present = 0, None
            if column.optional:
                if page.get(3, 3) != 3:
                    raise ParquetUnread(f"column {column.name}: levels not RLE-encoded")
                length = int.from_bytes(plain[:4], "little")
                if length > len(plain) - 4:
                    raise ParquetError(f"column {column.name}: levels that run past their page")
                present = None if _all_present(plain, 4, 4 + length, n) else hybrid(plain, 4, 4 + length, 1, n)
                at = 4 + length
        elif kind == 3:
            page = header.get(8, {})
            n, encoding = page.get(1, 0), page.get(4, 0)
            levels, repeats = page.get(5, 0), page.get(6, 0)
            if repeats:
                raise ParquetUnread(f"column {column.name}: repeated values")
            if not 0 <= levels <= min(stored, size):
                raise ParquetError(f"column {column.name}: levels longer than their page")
            values = body[levels:]
            plain = values if not page.get(7, True) else _decompressed(values, codec, size - levels)
            present = None if not column.optional or _all_present(body, 0, levels, n) else hybrid(body, 0, levels, 1, n)
            at = 0
        elif kind == 1:
            continue
        else:
            raise ParquetError(f"column {column.name}: a page of unknown kind {kind}")
        if not 0 <= n <= rows - read:
            raise ParquetError(f"column {column.name}: more values than rows")
        filled = n if present is None else n - present.count(0)
        if filled == n:
            present = None
        if encoding in (2, 8):
            if dictionary is None or at >= len(plain):
                raise ParquetError(f"column {column.name}: dictionary codes without a dictionary")
            width = plain[at]
            got: Any = (
                _CodedPage(dictionary, hybrid(plain, at + 1, len(plain), width, filled))
                if column.kind == 6
                else hybrid(plain, at + 1, len(plain), width, filled, dictionary)
            )
        elif encoding == 0:
            got = _plain(plain, at, column, filled)
        elif encoding == 3 and column.kind == 0:
            length = int.from_bytes(plain[at : at + 4], "little")
            got = [bool(b) for b in hybrid(plain, at + 4, at + 4 + length, 1, filled)]
        else:
            raise ParquetUnread(f"column {column.name}: values of encoding {encoding}")
        parts.append(got if present is None else _with_nulls(got, present))
        read += n
    return parts


@dataclass(frozen=True)
class _CodedPage:
    """A page of names as their codes in the row group's dictionary."""

    dictionary: Sequence[bytes]
    codes: list[int]

    def __len__(self) -> int:
        return len(self.codes)

    def __iter__(self) -> Iterator[bytes]:
        return map(self.dictionary.__getitem__, self.codes)


class _WithNulls(list[Any]):
    """A page's values with None where a value is null."""


def _with_nulls(values: Sequence[Any], present: list[int]) -> _WithNulls:
    """Values placed where `present` says, None elsewhere."""
    given = iter(values)
    return _WithNulls(next(given) if p else None for p in present)


def _joined(column: _Column, parts: list[Any]) -> Sequence[Any]:
    """A column's pages as one column: an array for numbers without nulls, `Coded` for names without nulls, a list
    (None for a null) otherwise."""
    if any(isinstance(p, _WithNulls) for p in parts):
        out: list[Any] = []
        for p in parts:
            out += p
        return [_text(v) if isinstance(v, bytes) and column.kind == 6 else v for v in out]
    if column.kind in WIDE_CODES:
        kind = WIDE_CODES[column.kind]
        if len(parts) == 1 and isinstance(parts[0], array) and parts[0].typecode == kind:
            return parts[0]
        numbers = array(kind)
        for p in parts:
            numbers.extend(p if isinstance(p, array) and p.typecode == kind else array(kind, p))
        return numbers
    if column.kind == 6:
        words: dict[bytes, int] = {}
        codes = array("q")
        for p in parts:
            if isinstance(p, _CodedPage):
                local = [words.setdefault(bytes(w), len(words)) for w in p.dictionary]
                try:
                    codes.extend(
                        array("q", itemgetter(*p.codes)(local) if len(p) > 1 else map(local.__getitem__, p.codes))
                    )
                except IndexError:
                    raise ParquetError(f"column {column.name}: a code beyond its dictionary") from None
            else:
                codes.extend(words.setdefault(bytes(w), len(words)) for w in p)
        return Coded(tuple(map(_text, words)), codes)
    flat: list[Any] = []
    for p in parts:
        flat += p
    return flat


def _text(value: bytes) -> str:
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise ParquetError("a name that is not UTF-8 text") from None


def _schema(elements: list[dict[int, Any]]) -> list[_Column]:
    """The file's columns, which must be flat: no group but the root, nothing repeated."""
    if not elements:
        raise ParquetError("a Parquet file without a schema")
    columns = []
    for e in elements[1:]:
        name = _text(e.get(4, b""))
        if e.get(5):
            raise ParquetUnread(f"column {name}: nested columns")
        if e.get(3, 0) == 2:
            raise ParquetUnread(f"column {name}: repeated values")
        columns.append(_Column(name, e.get(1, -1), e.get(2, 0), e.get(3, 0) == 1))
    return columns


def parquet_columns(data: bytes, names: Collection[str] | None = None) -> dict[str, Sequence[Any]]:
    """A Parquet file's columns (those `names`, when given, that it holds) by name, in the file's order: an `array`
    of 64-bit integers or doubles for numbers without nulls, `Coded` for text without nulls, a list with None for a
    null otherwise; BYTE_ARRAY columns read as UTF-8 text.

    >>> import io, pyarrow as pa, pyarrow.parquet as pq
    >>> out = io.BytesIO()
    >>> pq.write_table(pa.table({"op": ["send", "recv", "send"], "t": [0.5, 1.0, None]}), out)
    >>> cols = parquet_columns(out.getvalue())
    >>> list(cols["op"]), cols["t"]
    (['send', 'recv', 'send'], [0.5, 1.0, None])
    """
    if len(data) < 12 or data[:4] != MAGIC or data[-4:] != MAGIC:
        raise ParquetError("not a Parquet file (no PAR1 at its two ends)")
    try:
        return _columns(bytes(data), names)
    except (IndexError, KeyError, TypeError, AttributeError, ValueError, struct.error, OverflowError) as exc:
        if isinstance(exc, ParquetError):
            raise
        raise ParquetError("a Parquet file whose metadata or pages do not decode") from None


def _columns(data: bytes, names: Collection[str] | None) -> dict[str, Sequence[Any]]:
    """`parquet_columns` of a file that starts and ends as Parquet does."""
    size = int.from_bytes(data[-8:-4], "little")
    if not 0 < size <= len(data) - 12:
        raise ParquetError("a Parquet footer larger than the file")
    try:
        meta, _ = _thrift_struct(data[-8 - size : -8], 0)
    except IndexError:
        raise ParquetError("a Parquet footer cut short") from None
    columns = _schema(meta.get(2, []))
    rows = meta.get(3, 0)
    if not 0 <= rows <= 8 * len(data):
        raise ParquetError(f"a Parquet file that says it holds {rows} rows in {len(data)} bytes")
    wanted = [i for i, c in enumerate(columns) if names is None or c.name in names]
    parts: dict[int, list[Any]] = {i: [] for i in wanted}
    for group in meta.get(4, []):
        chunks = group.get(1, [])
        group_rows = group.get(3, 0)
        if len(chunks) != len(columns) or not 0 <= group_rows <= rows:
            raise ParquetError("a row group whose columns are not the schema's")
        for i in wanted:
            parts[i] += _column_pages(data, columns[i], chunks[i].get(3, {}), group_rows)
    out = {columns[i].name: _joined(columns[i], parts[i]) for i in wanted}
    if any(len(v) != rows for v in out.values()):
        raise ParquetError(f"columns that do not hold the file's {rows} rows")
    return out
