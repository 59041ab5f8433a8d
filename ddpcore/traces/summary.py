"""Per-rank summaries: a trace reduced to what the analysis measures of each step (`stepfacts.StepFacts`), small enough
to gather from thousands of nodes, so that each node summarises its own ranks' traces where they lie and the
analysis reads the summaries (`python -m ddpcore summarize`, docs/summaries.md), straight into columns
(`stepfacts.RankColumns`).

A summary is gzipped JSON, one object whose first key is `format` (that is how a reader tells it from a trace):

    {"format": "ddpcore-summary", "version": 2, "rank": 3, "world_size": 8, "source": "rank3.pt.trace.json.gz",
     "columns": ["step", "start_ms", ...], "steps": [[5, 1764460000123.456, 41.2, ...], ...]}

One row per step, in `COLUMNS` order; times in ms, from the step's start but `start_ms` (the rank's clock, to the
µs); the others kept to the ns, so an analysis of summaries equals the analysis of the traces to a nanosecond.
GPU columns are null in a trace without kernels. About 80 bytes a rank-step once gzipped.

Version 2 adds whether a gradient collective gave the release, the rank's work from the previous release to its
readiness, and where that work went (`cause_<part>_ms`, `phases.CAUSES`). Version 1 is still read: its ranks are
judged by the same barrier wait (release minus readiness), without a cause.

>>> COLUMNS[:8]
('step', 'start_ms', 'length_ms', 'period_ms', 'followed', 'released', 'from_release', 'arrival_ms')
"""

from __future__ import annotations

import gzip
import json
import math
from array import array
from collections.abc import Sequence

from ..base.intervals import Interval
from ..base.phases import ALLREDUCE, BACKWARD, CAUSES, FORWARD, LOAD, LOGGED, OPTIMIZER, OTHER_COMM, SUMMED
from ..base.words import Message
from ..storage.micros import US_DIGITS
from .reader import MAX_RANK, MAX_STEP, ReadError
from .stepfacts import DEVICE_COLUMNS, RankColumns, RankFacts, columns_of, kept_parts

__all__ = [
    "COLUMNAR_VERSIONS",
    "COLUMNS",
    "COLUMNS_V2",
    "FLAGS",
    "FORMAT",
    "GPU",
    "LOWS",
    "MAX_MS",
    "MEASURES",
    "NUMBERS",
    "PARTS",
    "SUFFIX",
    "VERSION",
    "drawn",
    "JSON_VERSION",
    "is_summary",
    "json_summary_bytes",
    "named_columns",
    "read_summary",
]

FORMAT = "ddpcore-summary"
COLUMNAR_VERSIONS = (3, 4)
"""The columnar versions (columnar.py): 3 holds ddpcore's phases, 4 a trainer's logged ones beside them (`LOGGED`);
`summary_bytes` writes 3 where those are all zero, so that a reader of version 3 reads every summary it did."""
VERSION = COLUMNAR_VERSIONS[-1]
"""The newest version; versions 1 and 2 are JSON."""
JSON_VERSION = 2
SUFFIX = ".ddpsum.json.gz"
TIMING = ("length_ms", "period_ms")
FLAGS = ("followed", "released", "from_release")
MEASURES = ("arrival_ms", "compute_ms", "anchor_ms", "work_ms", "comm_free_ms")
PHASE_COLUMNS = tuple(f"{p}_ms" for p in SUMMED)
PARTS = tuple(f"cause_{p}_ms" for p in CAUSES)
GPU = tuple(f"gpu_{c}" for c in DEVICE_COLUMNS)
COLUMNS = ("step", "start_ms", *TIMING, *FLAGS, *MEASURES, *PHASE_COLUMNS, *PARTS, *GPU)
"""The newest version's columns."""
LOGGED_COLUMNS = (*(f"{p}_ms" for p in LOGGED), *(f"cause_{p}_ms" for p in LOGGED))
"""The columns of a trainer's logged phases and parts, which versions 1 to 3 do not hold."""
COLUMNS_V2 = tuple(c for c in COLUMNS if c not in LOGGED_COLUMNS)
"""The columns of versions 2 and 3."""
COLUMNS_V1 = tuple(
    c for c in ("step", "start_ms", *TIMING, FLAGS[0], *MEASURES[:3], *PHASE_COLUMNS, *GPU) if c in COLUMNS_V2
)
"""Version 1's columns: no release flags, no work, no parts."""
COLUMNS_OF = {1: COLUMNS_V1, JSON_VERSION: COLUMNS_V2}
NS_DIGITS = 6
MAX_MS = 1e14
DRAWN_IN_ORDER = (LOAD, FORWARD, BACKWARD, ALLREDUCE, OTHER_COMM, OPTIMIZER)
"""A summary keeps durations, not instants: its lanes show the phases end to end, in this order."""


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, NS_DIGITS)


def named_columns(t: RankColumns) -> dict[str, Sequence]:
    """A rank's table by the summary's column names (`COLUMNS`), as every format writes it: times in ms, a part the
    table does not keep as zeros, a GPU column as None in each row without kernels (all of them without kernels).

    >>> from ddpcore.traces import simulated_run, table_of
    >>> named = named_columns(table_of(simulated_run(2, 3, seed=1)[0][1]))
    >>> list(named) == list(COLUMNS), named["cause_load_ms"], named["gpu_busy_ms"]
    (True, [0.0, 0.0, 0.0], [None, None, None])
    """
    rows = len(t.step)
    kept = t.parts_ms or {}
    flags = {"followed": t.followed, "released": t.released, "from_release": t.from_release}
    named: dict[str, Sequence] = {"step": t.step, "start_ms": t.start_ms}
    named |= {c: getattr(t, c) for c in TIMING}
    named |= flags
    named |= {c: getattr(t, c) for c in MEASURES}
    named |= {f"{p}_ms": t.phases_ms[p] for p in SUMMED}
    named |= {c: kept[p] if p in kept else [0.0] * rows for p, c in zip(CAUSES, PARTS)}
    named |= {c: t.device[i] if t.device else [None] * rows for i, c in enumerate(GPU)}
    return named


def _row(named: dict[str, Sequence], i: int, columns: Sequence[str]) -> list[object]:
    def cell(column: str) -> object:
        value = named[column][i]
        if column == "step":
            return value
        if column in FLAGS:
            return bool(value)
        if column == "start_ms":
            return round(value, US_DIGITS)
        return _rounded(float(value) if column in PARTS else value)

    return [cell(c) for c in columns]


def json_summary_bytes(facts: RankFacts | RankColumns, version: int = JSON_VERSION) -> bytes:
    """A rank's summary file in JSON, version 2 (gzipped, byte for byte the same for the same facts): what
    `summary_bytes` wrote before version 3, for tools that want JSON and for the tests of old files.

    >>> from ddpcore.traces import simulated_run
    >>> data = json_summary_bytes(simulated_run(2, 5, seed=1)[0][1])
    >>> import gzip, json
    >>> top = json.loads(gzip.decompress(data))
    >>> top["format"], top["rank"], len(top["steps"])
    ('ddpcore-summary', 1, 5)
    """
    if version != JSON_VERSION:
        raise ValueError(f"JSON summaries are written in version {JSON_VERSION}, not {version}")
    named = named_columns(facts if isinstance(facts, RankColumns) else columns_of(facts))
    if any(any(named[c]) for c in LOGGED_COLUMNS):
        raise ValueError(f"JSON summaries hold no {', '.join(LOGGED)}: write version {VERSION}")
    body = {
        "format": FORMAT,
        "version": JSON_VERSION,
        "rank": facts.rank,
        "world_size": facts.world_size,
        "source": facts.source,
        "columns": list(COLUMNS_V2),
        "steps": [_row(named, i, COLUMNS_V2) for i in range(len(named["step"]))],
    }
    return gzip.compress(json.dumps(body, separators=(",", ":")).encode(), mtime=0)


def is_summary(top: dict) -> bool:
    """The object read is a summary (its `format`), whatever its version.

    >>> is_summary({"format": FORMAT, "version": VERSION}), is_summary({"traceEvents": []})
    (True, False)
    """
    return top.get("format") == FORMAT


def _number(value: object, where: Message, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ReadError("file.summary_number", where=where)
    if not low <= value <= high:
        raise ReadError("file.summary_range", where=where, value=repr(value))
    return float(value)


def _whole(value: object, where: Message, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise ReadError("file.summary_whole", where=where, high=high)
    return value


NUMBERS = {int, float}
LOWS = {c: (0.0 if c in PHASE_COLUMNS or c in PARTS or c in GPU else -MAX_MS) for c in COLUMNS}


def _checked(row: object, number: int, columns: tuple[str, ...]) -> None:
    """Every value of a row within its column's bounds; the first one that is not, named in one line."""
    where = Message.of("summary.row", row=number)
    if not isinstance(row, list) or len(row) != len(columns):
        raise ReadError("file.summary_row", where=where, count=len(columns))
    for column, value in zip(columns, row):
        if column == "step":
            _whole(value, Message.of("summary.row_column", row=number, column="step"), MAX_STEP)
        elif column in FLAGS:
            if not isinstance(value, bool):
                raise ReadError("file.summary_flag", where=where, column=column)
        elif not (column in GPU and value is None):
            _number(value, Message.of("summary.row_column", row=number, column=column), LOWS[column], MAX_MS)
    gpu = row[-len(GPU) :]
    if any(v is None for v in gpu) and not all(v is None for v in gpu):
        raise ReadError("file.summary_gpu", where=where)
    if row[columns.index("period_ms")] <= 0:
        raise ReadError("file.summary_period", where=where)


def _numbers_within(column: tuple, low: float) -> bool:
    """Every value a finite int or float within [low, MAX_MS]: checked with C loops, not a test per value (a
    summary of 4,096 ranks has a million rows)."""
    if not set(map(type, column)) <= NUMBERS:
        return False
    try:
        total = math.fsum(column)
    except (ValueError, OverflowError):
        return False
    return math.isfinite(total) and low <= min(column) and max(column) <= MAX_MS


def _fine(named: dict[str, tuple]) -> bool:
    """The common case, checked column by column: whole steps, boolean flags, every time a finite number in its
    range, periods positive, the GPU columns all numbers or all null in each row."""
    steps = named["step"]
    if set(map(type, steps)) != {int} or min(steps) < 0 or max(steps) > MAX_STEP:
        return False
    if any(set(map(type, named[f])) != {bool} for f in FLAGS if f in named):
        return False
    gpu = [named[c] for c in GPU]
    nulls = [tuple(v is None for v in c) if None in c else None for c in gpu]
    if len(set(nulls)) != 1:
        return False
    if nulls[0] is not None:
        gpu = [tuple(v for v in c if v is not None) for c in gpu]
    timed = [(c, LOWS[k]) for k, c in named.items() if k not in GPU and k != "step" and k not in FLAGS]
    numbers = all(_numbers_within(c, low) for c, low in timed + [(c, LOWS[g]) for c, g in zip(gpu, GPU)] if c)
    return numbers and min(named["period_ms"]) > 0


def _table(rows: list, top: dict, source: str, columns: tuple[str, ...]) -> RankColumns:
    if set(map(type, rows)) != {list} or set(map(len, rows)) != {len(columns)}:
        bad = next(i for i, row in enumerate(rows) if not isinstance(row, list) or len(row) != len(columns))
        _checked(rows[bad], bad + 1, columns)
    named = dict(zip(columns, zip(*rows)))
    if not _fine(named):
        for i, row in enumerate(rows):
            _checked(row, i + 1, columns)
    if len(set(named["step"])) != len(rows):
        raise ReadError("file.summary_twice")
    gpu = [named[c] for c in GPU]
    world = top.get("world_size")

    def floats(column: str) -> array[float]:
        return array("d", named[column]) if column in named else array("d", bytes(8 * len(rows)))

    def flags(column: str, missing: bool) -> bytes:
        """A true-or-false column, a byte a row (a tuple of bools costs 8 bytes a row); a version 1 summary has
        none: `missing` throughout."""
        return bytes(named[column]) if column in named else bytes([missing]) * len(rows)

    return RankColumns(
        rank=_whole(top.get("rank"), Message.of("summary.field", field="rank"), MAX_RANK),
        source=source,
        world_size=None if world is None else _whole(world, Message.of("summary.field", field="world_size"), MAX_RANK),
        step=array("q", named["step"]),
        start_ms=floats("start_ms"),
        length_ms=floats("length_ms"),
        period_ms=floats("period_ms"),
        followed=named["followed"],
        arrival_ms=floats("arrival_ms"),
        compute_ms=floats("compute_ms"),
        anchor_ms=floats("anchor_ms"),
        phases_ms={p: floats(f"{p}_ms") for p in SUMMED},
        device=None if all(v is None for v in gpu[0]) else tuple(tuple(map(_float, c)) for c in gpu),
        released=flags("released", True),
        from_release=flags("from_release", False),
        work_ms=floats("work_ms" if "work_ms" in named else "compute_ms"),
        comm_free_ms=floats("comm_free_ms" if "comm_free_ms" in named else "arrival_ms"),
        parts_ms=kept_parts({p: named.get(c, ()) for p, c in zip(CAUSES, PARTS)}) if PARTS[0] in named else None,
    )


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def drawn(phases: dict[str, float]) -> tuple[Interval, ...]:
    """A summarised step's lanes: its phases end to end in `DRAWN_IN_ORDER` (a summary keeps no instants).

    >>> from ddpcore.base.phases import SUMMED
    >>> phases = dict.fromkeys(SUMMED, 0.0) | {"load": 2.0, "forward": 8.0, "backward": 12.0}
    >>> drawn(phases)[:2]
    (Interval(phase='load', start_ms=0.0, end_ms=2.0), Interval(phase='forward', start_ms=2.0, end_ms=10.0))
    """
    spans, t = [], 0.0
    for p in DRAWN_IN_ORDER:
        if phases[p] > 0:
            spans.append(Interval(p, t, t + phases[p]))
            t += phases[p]
    return tuple(spans)


def read_summary(top: dict, source: str) -> RankColumns:
    """A summary object read back as columns; one ReadError line for anything foreign, malformed or out of range.

    >>> import gzip, json
    >>> from ddpcore.traces import simulated_run
    >>> top = json.loads(gzip.decompress(json_summary_bytes(simulated_run(2, 5, seed=1)[0][1])))
    >>> table = read_summary(top, "rank1.ddpsum.json")
    >>> table.rank, table.source, len(table.step)
    (1, 'rank1.ddpsum.json', 5)
    """
    version = top.get("version")
    if version in COLUMNAR_VERSIONS:
        raise ReadError("file.columnar_header")
    columns = COLUMNS_OF.get(version) if isinstance(version, int) and not isinstance(version, bool) else None
    if columns is None:
        known = ", ".join(map(str, (*COLUMNS_OF, *COLUMNAR_VERSIONS[:-1]))) + f" and {VERSION}"
        raise ReadError("file.summary_version", version=repr(version), known=known)
    if top.get("columns") != list(columns):
        raise ReadError("file.summary_columns")
    rows = top.get("steps")
    if not isinstance(rows, list) or not rows:
        raise ReadError("file.summary_empty")
    return _table(rows, top, source, columns)
