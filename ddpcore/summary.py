"""Per-rank summaries: a trace reduced to what the analysis measures of each step (`facts.StepFacts`), small enough
to gather from thousands of nodes, so that each node summarises its own ranks' traces where they lie and the
analysis reads the summaries (`python -m ddpcore summarize`, docs/summaries.md).

A summary is gzipped JSON, one object whose first key is `format` (that is how a reader tells it from a trace):

    {"format": "ddpcore-summary", "version": 1, "rank": 3, "world_size": 8, "source": "rank3.pt.trace.json.gz",
     "columns": ["step", "start_ms", ...], "steps": [[5, 1764460000123.456, 41.2, ...], ...]}

One row per step, in `COLUMNS` order; times in ms, from the step's start but `start_ms` (the rank's clock, to the
µs); the others kept to the ns, so an analysis of summaries equals the analysis of the traces to a nanosecond.
GPU columns are null in a trace without kernels. About 60 bytes a rank-step once gzipped.

>>> COLUMNS[:8]
('step', 'start_ms', 'length_ms', 'period_ms', 'followed', 'arrival_ms', 'compute_ms', 'anchor_ms')
"""

from __future__ import annotations

import gzip
import json
import math

from .intervals import Interval
from .phases import ALLREDUCE, BACKWARD, FORWARD, LOAD, OPTIMIZER, OTHER_COMM, SUMMED
from .reader import ReadError
from .stepfacts import DeviceTime, RankFacts, StepFacts

FORMAT = "ddpcore-summary"
VERSION = 1
SUFFIX = ".ddpsum.json.gz"
TIMING = ("length_ms", "period_ms")
MEASURES = ("arrival_ms", "compute_ms", "anchor_ms")
GPU = ("gpu_busy_ms", "gpu_compute_ms", "gpu_comm_ms", "gpu_overlapped_ms")
COLUMNS = ("step", "start_ms", *TIMING, "followed", *MEASURES, *(f"{p}_ms" for p in SUMMED), *GPU)
NS_DIGITS, US_DIGITS = 6, 3
MAX_MS = 1e14
MAX_STEP = 10**12
MAX_RANK = 10**7
DRAWN_IN_ORDER = (LOAD, FORWARD, BACKWARD, ALLREDUCE, OTHER_COMM, OPTIMIZER)
"""A summary keeps durations, not instants: its lanes show the phases end to end, in this order."""


def _row(s: StepFacts) -> list[object]:
    device = s.device
    gpu = [device.busy_ms, device.compute_ms, device.comm_ms, device.overlapped_ms] if device else [None] * len(GPU)
    values = [s.length_ms, s.period_ms]
    measures = [s.arrival_ms, s.compute_ms, s.anchor_ms]
    phases = [s.phases_ms[p] for p in SUMMED]
    return [
        s.step,
        round(s.start_ms, US_DIGITS),
        *(round(v, NS_DIGITS) for v in values),
        s.followed,
        *(round(v, NS_DIGITS) for v in measures),
        *(round(v, NS_DIGITS) for v in phases),
        *(None if v is None else round(v, NS_DIGITS) for v in gpu),
    ]


def summary_bytes(facts: RankFacts) -> bytes:
    """A rank's summary file (gzipped, byte for byte the same for the same facts)."""
    body = {
        "format": FORMAT,
        "version": VERSION,
        "rank": facts.rank,
        "world_size": facts.world_size,
        "source": facts.source,
        "columns": list(COLUMNS),
        "steps": [_row(s) for s in facts.steps],
    }
    return gzip.compress(json.dumps(body, separators=(",", ":")).encode(), mtime=0)


def is_summary(top: dict) -> bool:
    """The object read is a summary (its `format`), whatever its version."""
    return top.get("format") == FORMAT


def _number(value: object, where: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ReadError(f"summary {where}: not a finite number")
    if not low <= value <= high:
        raise ReadError(f"summary {where}: {value!r} out of range")
    return float(value)


def _whole(value: object, where: str, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise ReadError(f"summary {where}: a whole number from 0 to {high}")
    return value


def _drawn(phases: dict[str, float]) -> tuple[Interval, ...]:
    spans, t = [], 0.0
    for p in DRAWN_IN_ORDER:
        if phases[p] > 0:
            spans.append(Interval(p, t, t + phases[p]))
            t += phases[p]
    return tuple(spans)


NUMBER_TYPES = (int, float)
LOWS = {c: (0.0 if c.endswith("_ms") and c[: -len("_ms")] in SUMMED or c in GPU else -MAX_MS) for c in COLUMNS}


def _checked(row: list, number: int) -> None:
    """Every value of a row within its column's bounds; the first one that is not, named in one line. (A row that
    passes takes one generator; only a bad one is looked at column by column.)"""
    where = f"step row {number}"
    for column, value in zip(COLUMNS, row):
        if column == "step":
            _whole(value, f"{where} 'step'", MAX_STEP)
        elif column == "followed":
            if not isinstance(value, bool):
                raise ReadError(f"summary {where}: 'followed' must be true or false")
        elif not (column in GPU and value is None):
            _number(value, f"{where} '{column}'", LOWS[column], MAX_MS)


def _fine(row: list) -> bool:
    """The common case, checked in one pass: whole step, boolean `followed`, every time a finite number in range
    (phases and GPU times not negative), the GPU columns all numbers or all null."""
    gpu = row[-len(GPU) :]
    gpu_null = all(v is None for v in gpu)
    if not gpu_null and any(v is None for v in gpu):
        return False
    if type(row[0]) is not int or not 0 <= row[0] <= MAX_STEP or type(row[4]) is not bool:
        return False
    signed = row[1:4] + row[5:8]
    unsigned = row[8 : 8 + len(SUMMED)] + ([] if gpu_null else gpu)
    return all(type(v) in NUMBER_TYPES and -MAX_MS <= v <= MAX_MS for v in signed) and all(
        type(v) in NUMBER_TYPES and 0 <= v <= MAX_MS for v in unsigned
    )


def _step(row: object, number: int) -> StepFacts:
    if not isinstance(row, list) or len(row) != len(COLUMNS):
        raise ReadError(f"summary step row {number}: expected {len(COLUMNS)} values")
    if not _fine(row):
        _checked(row, number)
        raise ReadError(f"summary step row {number}: the GPU columns must be all numbers or all null")
    step, start, length, period, followed, arrival, compute, anchor = row[:8]
    if period <= 0:
        raise ReadError(f"summary step row {number}: 'period_ms' must be positive")
    phases = dict(zip(SUMMED, map(float, row[8 : 8 + len(SUMMED)])))
    gpu = row[8 + len(SUMMED) :]
    return StepFacts(
        step=step,
        start_ms=float(start),
        length_ms=float(length),
        period_ms=float(period),
        followed=followed,
        arrival_ms=float(arrival),
        compute_ms=float(compute),
        anchor_ms=float(anchor),
        phases_ms=phases,
        device=DeviceTime(*map(float, gpu)) if gpu[0] is not None else None,
        spans=_drawn(phases),
    )


def read_summary(top: dict, source: str) -> RankFacts:
    """A summary object read back; one ReadError line for anything foreign, malformed or out of range."""
    version = top.get("version")
    if version != VERSION:
        raise ReadError(f"a ddpcore summary of version {version!r}: this ddpcore reads version {VERSION}")
    if top.get("columns") != list(COLUMNS):
        raise ReadError("a ddpcore summary whose columns are not those of its version")
    rows = top.get("steps")
    if not isinstance(rows, list) or not rows:
        raise ReadError("a ddpcore summary without steps")
    world = top.get("world_size")
    steps = tuple(_step(row, i + 1) for i, row in enumerate(rows))
    if len({s.step for s in steps}) != len(steps):
        raise ReadError("a ddpcore summary with a step twice")
    return RankFacts(
        rank=_whole(top.get("rank"), "'rank'", MAX_RANK),
        source=source,
        world_size=None if world is None else _whole(world, "'world_size'", MAX_RANK),
        steps=steps,
    )
