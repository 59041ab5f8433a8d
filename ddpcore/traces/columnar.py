"""Summaries of versions 3 and 4: the same columns as version 2 (`summary.COLUMNS_V2`; version 4 adds a trainer's
logged phases, `summary.LOGGED_COLUMNS`, and is written only where one of them holds time), kept as arrays, read with
C loops and no Python work a row, so that 10,000 ranks x 1,000 steps read in seconds.

A file is gzip of one line of JSON, the header, then each column's bytes one after another:

    {"format":"ddpcore-summary","version":3,"rank":3,"world_size":8,"source":"rank3.pt.trace.json.gz","steps":200,
     "columns":[{"name":"step","type":"i8","unit":"step","encoding":"delta"}, ...]}\\n<bytes>

Times are whole microseconds (`unit` "us": the profiler's own resolution), in 32-bit integers where they fit and
64-bit where not (`type` "i4" or "i8"); `start_ms` and `step` are kept as differences from the row before
(`encoding` "delta": a run's steps and starts compress to almost nothing); flags are a byte a row ("u1"). Each
column's bytes are little-endian and shuffled into planes (every value's first byte, then every second byte, …),
so that gzip finds the high bytes that neighbouring values share: about 16 bytes a rank-step on disk, against 55
for version 2. A row without GPU time has 0 in `gpu_measured` and zeros in the GPU columns.

An analysis of a version 3 summary equals that of the version 2 summary of the same trace with every time rounded
to the microsecond (docs/summaries.md says what that moves).

>>> from ddpcore.traces import simulated_run
>>> table = read_columnar(summary_bytes(simulated_run(2, 5, seed=1)[0][1]), "rank1.ddpsum.json.gz")
>>> table.rank, list(table.step), round(table.period_ms[1], 3)
(1, [1, 2, 3, 4, 5], 28.493)
"""

from __future__ import annotations

import gzip
import json
import sys
from array import array
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import accumulate
from operator import sub

from ..base.phases import CAUSES, SUMMED
from ..base.words import Message
from ..storage.micros import US_DIGITS, US_PER_MS, Micros
from .reader import MAX_RANK, MAX_STEP, ReadError
from .stepfacts import RankColumns, RankFacts, columns_of
from .summary import (
    COLUMNAR_VERSIONS,
    COLUMNS,
    COLUMNS_V2,
    FLAGS,
    FORMAT,
    GPU,
    LOGGED_COLUMNS,
    LOWS,
    MAX_MS,
    PARTS,
    json_summary_bytes,
    named_columns,
)

__all__ = ["COLUMNAR_COLUMNS", "COLUMNAR_OF", "MAGICS", "MAX_ROWS", "encode_columns", "read_columnar", "summary_bytes"]

COLUMNAR = COLUMNAR_VERSIONS[-1]
"""The newest columnar version."""
MAGICS = tuple(b'{"format":"' + FORMAT.encode() + b'","version":' + str(v).encode() + b"," for v in COLUMNAR_VERSIONS)
"""How a columnar file starts once inflated, one for each version: its header's first keys, written in this order."""
COLUMNAR_COLUMNS = (*COLUMNS, "gpu_measured")
"""The newest version's columns, and whether each row has GPU time (version 2 writes null instead)."""
COLUMNAR_OF = {COLUMNAR_VERSIONS[0]: (*COLUMNS_V2, "gpu_measured"), COLUMNAR: COLUMNAR_COLUMNS}
"""Each columnar version's columns: version 3 holds no logged phase (`summary.LOGGED_COLUMNS`)."""
HEADER_LIMIT = 64 * 1024
"""The largest header read: it holds a few hundred bytes."""
MAX_ROWS = 10**7
"""The most steps one rank's summary may hold."""
TYPES = {"u1": "B", "i4": "i", "i8": "q"}
"""Each column type, as an `array` typecode (little-endian on disk)."""
I4 = 2**31 - 1
_DELTA = ("step", "start_ms")
_FLAGGED = (*FLAGS, "gpu_measured")


def _unit(column: str) -> str:
    return "step" if column == "step" else "flag" if column in _FLAGGED else "us"


def units_of(columns: Sequence[str]) -> dict[str, str]:
    """Each column's unit in a version 3 header: steps, flags, or microseconds.

    >>> units_of(["step", "followed", "period_ms"])
    {'step': 'step', 'followed': 'flag', 'period_ms': 'us'}
    """
    return {c: _unit(c) for c in columns}


def _planes(data: bytes, width: int) -> bytes:
    return data if width == 1 else b"".join(data[i::width] for i in range(width))


def _unplaned(data: bytes, width: int) -> bytes:
    if width == 1:
        return data
    out = bytearray(len(data))
    count = len(data) // width
    for i in range(width):
        out[i::width] = data[i * count : (i + 1) * count]
    return bytes(out)


def _little(values: array) -> bytes:
    if sys.byteorder == "big" and values.itemsize > 1:
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def encode_columns(rank: int, world_size: int | None, source: str, columns: Mapping[str, array]) -> bytes:
    """A columnar summary from whole columns already in their units (`COLUMNAR_COLUMNS`: steps, flags as 0 or 1,
    times in µs), without a Python step a row: generators of large runs write with it directly.

    >>> from array import array
    >>> n = 3
    >>> cols = {c: array("q", [0] * n) for c in COLUMNAR_COLUMNS}
    >>> cols |= {"step": array("q", [1, 2, 3]), "period_ms": array("q", [30_000] * n)}
    >>> read_columnar(encode_columns(0, 2, "r0", cols), "r0").period_ms.tolist()
    [30.0, 30.0, 30.0]
    """
    rows = len(columns["step"])
    logged = any(c in columns and any(columns[c]) for c in LOGGED_COLUMNS)
    version = COLUMNAR if logged else COLUMNAR_VERSIONS[0]
    described, body = [], []
    for name in COLUMNAR_OF[version]:
        values = columns[name]
        if len(values) != rows:
            raise ValueError(f"column {name} has {len(values)} rows, not {rows}")
        if name in _DELTA:
            values = array("q", [values[0], *map(sub, values[1:], values[:-1])]) if rows else array("q")
        if name in _FLAGGED:
            kind = "u1"
        elif name in _DELTA or (values and max(map(abs, (min(values), max(values)))) > I4):
            kind = "i8"
        else:
            kind = "i4"
        packed = array(TYPES[kind], values)
        encoding = "delta" if name in _DELTA else "plain"
        described.append({"name": name, "type": kind, "unit": _unit(name), "encoding": encoding})
        body.append(_planes(_little(packed), packed.itemsize))
    header = {"format": FORMAT, "version": version, "rank": rank, "world_size": world_size, "source": source}
    header |= {"steps": rows, "columns": described}
    line = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"
    return gzip.compress(line + b"".join(body), mtime=0)


def _micro(column: Sequence[float], digits: int = US_DIGITS) -> array:
    return array("q", [round(round(v, digits) * US_PER_MS) for v in column])


def summary_bytes(facts: RankFacts | RankColumns, version: int = COLUMNAR) -> bytes:
    """A rank's summary file (gzipped, byte for byte the same for the same facts): columnar unless asked, version 3
    where no logged phase holds time (`encode_columns`), else 4.

    >>> from ddpcore.traces import simulated_run
    >>> data = summary_bytes(simulated_run(2, 5, seed=1)[0][1])
    >>> gzip.decompress(data).startswith(MAGICS[0])
    True
    """
    if version not in COLUMNAR_VERSIONS:
        return json_summary_bytes(facts, version)
    t = facts if isinstance(facts, RankColumns) else columns_of(facts)
    named = named_columns(t)
    cols: dict[str, array] = {"step": array("q", t.step)}
    for name in COLUMNS[1:]:
        values = named[name]
        if name in FLAGS:
            cols[name] = array("B", map(bool, values))
        elif name in GPU:
            cols[name] = _micro([v or 0.0 for v in values])
        else:
            cols[name] = _micro(values)
    cols["gpu_measured"] = array("B", [v is not None for v in named[GPU[0]]])
    return encode_columns(t.rank, t.world_size, t.source, cols)


def _header(data: bytes) -> tuple[dict, int]:
    end = data.find(b"\n", 0, HEADER_LIMIT)
    if end < 0:
        raise ReadError("file.columnar_header")
    try:
        header = json.loads(data[:end])
    except (ValueError, RecursionError):
        raise ReadError("file.columnar_header") from None
    if not isinstance(header, dict):
        raise ReadError("file.columnar_header")
    return header, end + 1


def _whole(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ReadError("file.summary_whole", where=Message.of("summary.field", field=field), high=high)
    return value


def _described(columns: object, version: int) -> list[tuple[str, str, bool]]:
    """The header's columns as (name, type, delta-encoded), refused unless they are its version's, in order, each
    with a type and encoding it may have."""
    expected = COLUMNAR_OF[version]
    if not isinstance(columns, list) or len(columns) != len(expected):
        raise ReadError("file.summary_columns")
    out = []
    for name, column in zip(expected, columns):
        if not isinstance(column, dict) or column.get("name") != name or column.get("unit") != _unit(name):
            raise ReadError("file.summary_columns")
        kind, encoding = column.get("type"), column.get("encoding")
        allowed = ("u1",) if name in _FLAGGED else ("i8",) if name in _DELTA else ("i4", "i8")
        if kind not in allowed or encoding != ("delta" if name in _DELTA else "plain"):
            raise ReadError("file.summary_columns")
        out.append((name, str(kind), encoding == "delta"))
    return out


_ONE = array("q", [1]).tobytes()
"""A delta of one, as a delta-encoded column's bytes hold it (`_Column.following`: steps that follow one another)."""


class _Column:
    """A column's values as read, with what its bytes already tell: all zero (whose planes need no unplaning), none
    negative (the top byte plane of two's complement is ASCII exactly when no value is negative), so that most
    columns are bounded without a look at each value; and for a delta-encoded one, values that follow one another
    (`following`: a run's steps)."""

    __slots__ = ("values", "zero", "negative", "following")

    def __init__(self, planes: bytes, kind: str, delta: bool) -> None:
        width = array(TYPES[kind]).itemsize
        self.zero = not delta and planes.count(0) == len(planes)
        values = array(TYPES[kind])
        values.frombytes(planes if self.zero else _unplaned(planes, width))
        if sys.byteorder == "big" and width > 1:
            values.byteswap()
        top = planes[len(planes) - len(planes) // width :]
        self.negative = not delta and width > 1 and not top.isascii()
        self.following = delta and len(values) > 1 and values[1:].tobytes() == _ONE * (len(values) - 1)
        if self.following:
            self.values = array("q", range(values[0], values[0] + len(values)))
        else:
            self.values = array("q", accumulate(values)) if delta else values


def _arrays(body: bytes, described: list[tuple[str, str, bool]], rows: int) -> dict[str, _Column]:
    """Each column, from exactly the bytes the header promises (a truncated or longer body is refused)."""
    widths = [array(TYPES[kind]).itemsize for _, kind, _ in described]
    if len(body) != rows * sum(widths):
        raise ReadError("file.columnar_length", expected=rows * sum(widths), found=len(body))
    out, at = {}, 0
    for (name, kind, delta), width in zip(described, widths):
        out[name] = _Column(body[at : at + rows * width], kind, delta)
        at += rows * width
    return out


class _Shared(array):
    """A column of zeros shared by every rank's table (`_zeros`), pickled as its length, so that tables read in
    other processes (`analyze --jobs`) share it again instead of each holding a copy (10^4 ranks: 40 MB a column)."""

    def __reduce_ex__(self, protocol: object) -> tuple:
        return _zeros, (len(self),)


@lru_cache(maxsize=4)
def _zeros(rows: int) -> array:
    """Microseconds of a column all zero, one for all the ranks' columns of that length that are (a run's idle and
    load, a host trace's GPU parts). Nothing writes into a rank's columns.

    >>> import pickle
    >>> pickle.loads(pickle.dumps(_zeros(3))) is _zeros(3)
    True
    """
    return _Shared("i", bytes(4 * rows))


class _Followed(tuple):
    """Every row followed by another step: shared, and pickled as its length, as `_Shared` is."""

    def __reduce__(self) -> tuple:
        return _all_followed, (len(self),)


@lru_cache(maxsize=4)
def _all_followed(rows: int) -> tuple[bool, ...]:
    """Every row followed by another step: one tuple for every rank of that many rows."""
    return _Followed((True,) * rows)


def _steps(values: array) -> Sequence[int]:
    """The steps as read: a range when they follow one another (most runs: no 8 bytes a rank-step), else the
    array, refused when a step appears twice."""
    first = values[0]
    if values == array("q", range(first, first + len(values))):
        return range(first, first + len(values))
    if len(set(values)) != len(values):
        raise ReadError("file.summary_twice")
    return values


def _ms(column: _Column, name: str, typecode: str = "d") -> Micros:
    """A column of microseconds read as ms (`storage.Micros`: kept as read, converted when used; `typecode` "f" reads
    single precision), after the same bounds as version 2's: within ±MAX_MS, and not negative where a duration. A
    32-bit column is within ±MAX_MS by its width. The parts of the work are converted at once (`Micros.ms`): single
    precision takes no more room than the microseconds, and a step reads them across every rank."""
    values = column.values
    if column.zero:
        return Micros(_zeros(len(values)), typecode)
    low = LOWS.get(name, 0.0)
    if column.negative and low >= 0 or values.itemsize > 4 and not low * US_PER_MS <= min(values):
        raise ReadError("file.columnar_range", column=name)
    if values.itemsize > 4 and max(values) > MAX_MS * US_PER_MS:
        raise ReadError("file.columnar_range", column=name)
    return Micros(values, typecode)


def _flags(column: _Column, name: str) -> bytes:
    values = column.values
    if not column.zero and values and max(values) > 1:
        raise ReadError("file.summary_flag", where=Message.of("summary.field", field=name), column=name)
    return values.tobytes()


def _followed(flags: bytes) -> tuple[bool, ...]:
    return _all_followed(len(flags)) if flags.count(1) == len(flags) else tuple(map(bool, flags))


def read_columnar(data: bytes, source: str) -> RankColumns:
    """A version 3 summary, inflated or not, as a rank's columns; one ReadError line for a header or body that is
    not what version 3 writes (a truncated or lying file is refused before any column is read past its end).

    >>> read_columnar(b'{"format":"ddpcore-summary","version":3,"rank":0}', "r0").rank
    Traceback (most recent call last):
    ...
    ddpcore.traces.reader.ReadError: a version 3 ddpcore summary needs its header on its first line
    """
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    header, start = _header(data)
    version = header.get("version")
    if header.get("format") != FORMAT or isinstance(version, bool) or version not in COLUMNAR_OF:
        raise ReadError("file.columnar_header")
    rank = _whole(header.get("rank"), "rank", 0, MAX_RANK)
    world = header.get("world_size")
    world = None if world is None else _whole(world, "world_size", 0, MAX_RANK)
    rows = _whole(header.get("steps"), "steps", 0, MAX_ROWS)
    if not rows:
        raise ReadError("file.summary_empty")
    named = _arrays(data[start:], _described(header.get("columns"), version), rows)
    named |= {c: _Column(bytes(4 * rows), "i4", False) for c in COLUMNAR_COLUMNS if c not in named}
    read_steps = named["step"].values
    low, high = (read_steps[0], read_steps[-1]) if named["step"].following else (min(read_steps), max(read_steps))
    if low < 0 or high > MAX_STEP:
        raise ReadError("file.summary_whole", where=Message.of("summary.field", field="step"), high=MAX_STEP)
    steps = range(low, high + 1) if named["step"].following else _steps(read_steps)
    times = {c: _ms(named[c], c) for c in COLUMNS if c != "step" and c not in FLAGS and c not in PARTS}
    if min(times["period_ms"].us) <= 0:
        raise ReadError("file.summary_period", where=Message.of("summary.field", field="period_ms"))
    measured = _flags(named["gpu_measured"], "gpu_measured")
    device = None
    if any(measured):
        gpu: list[Sequence[float | None]] = [times[c].ms() for c in GPU]
        if not all(measured):
            gpu = [tuple(v if m else None for v, m in zip(c, measured)) for c in gpu]
        device = tuple(gpu)
    return RankColumns(
        rank=rank,
        source=source,
        world_size=world,
        step=steps,
        start_ms=times["start_ms"],
        length_ms=times["length_ms"],
        period_ms=times["period_ms"],
        followed=_followed(_flags(named["followed"], "followed")),
        arrival_ms=times["arrival_ms"],
        compute_ms=times["compute_ms"],
        anchor_ms=times["anchor_ms"],
        phases_ms={p: times[f"{p}_ms"] for p in SUMMED},
        device=device,
        released=_flags(named["released"], "released"),
        from_release=_flags(named["from_release"], "from_release"),
        work_ms=times["work_ms"],
        comm_free_ms=times["comm_free_ms"],
        parts_ms={p: _ms(named[c], c, "f").ms() for p, c in zip(CAUSES, PARTS) if not named[c].zero},
    )
