"""Per-rank traces in: PyTorch profiler (Kineto) Chrome traces and the project's JSONL (SPEC section 6)."""

from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

MAX_FILE_BYTES = 200 * 1024 * 1024
TRACE_PHASES = ("load", "forward", "backward", "allreduce", "optimizer")
COLLECTIVE_NAMES = {"gloo:all_reduce", "nccl:all_reduce", "c10d::allreduce_", "record_param_comms"}
COLLECTIVE_PREFIXES = ("ncclDevKernel_", "ncclKernel_")
STEP_NAME = re.compile(r"ProfilerStep#(\d+)$")


class TraceError(ValueError):
    """A file that cannot be read as a trace; the message says why, in one line."""


@dataclass(frozen=True)
class Event:
    phase: str
    start_ms: float
    end_ms: float


@dataclass(frozen=True)
class RankStep:
    """One step of one rank, on that rank's own clock."""

    step: int
    start_ms: float
    end_ms: float
    events: tuple[Event, ...]

    @property
    def collectives(self) -> tuple[Event, ...]:
        return tuple(e for e in self.events if e.phase == "allreduce")


@dataclass(frozen=True)
class RankTrace:
    rank: int
    world_size: int | None
    source: str
    kind: str
    steps: tuple[RankStep, ...]


@dataclass(frozen=True)
class FileError:
    source: str
    message: str


def decode(data: bytes) -> str:
    """Bytes to text, gunzipping when the file is gzip whatever its name."""
    if len(data) > MAX_FILE_BYTES:
        raise TraceError(f"{len(data) / 1e6:.0f} MB is over the {MAX_FILE_BYTES // (1024 * 1024)} MB limit")
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TraceError(f"not a readable gzip file ({exc})") from None
        if len(data) > MAX_FILE_BYTES:
            raise TraceError(f"over the {MAX_FILE_BYTES // (1024 * 1024)} MB limit once decompressed")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError("not UTF-8 text (neither JSON nor JSONL)") from None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def kineto_phase(name: str) -> str | None:
    """SPEC section 6's names: DataLoader, DDP (or module) forward, autograd, collectives, optimizer."""
    if name.startswith("enumerate(DataLoader)"):
        return "load"
    if name == "DistributedDataParallel.forward" or name.startswith("nn.Module: DistributedDataParallel"):
        return "forward"
    if name.startswith("autograd::engine::evaluate_function:"):
        return "backward"
    if name in COLLECTIVE_NAMES or name.startswith(COLLECTIVE_PREFIXES):
        return "allreduce"
    if name.startswith("Optimizer.step#"):
        return "optimizer"
    return None


def parse_kineto(obj: dict, source: str) -> RankTrace:
    events = obj.get("traceEvents")
    if not isinstance(events, list):
        raise TraceError("JSON without 'traceEvents': not a PyTorch profiler trace")
    info = obj.get("distributedInfo") if isinstance(obj.get("distributedInfo"), dict) else {}
    rank, world = info.get("rank"), info.get("world_size")
    if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
        raise TraceError("no distributedInfo.rank: record with torch.distributed initialised")
    steps: dict[int, tuple[float, float]] = {}
    phased: list[Event] = []
    module_forward: list[Event] = []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        name, ts, dur = e.get("name"), _number(e.get("ts")), _number(e.get("dur"))
        if not isinstance(name, str) or ts is None or dur is None or dur < 0:
            continue
        start, end = ts / 1000.0, (ts + dur) / 1000.0
        match = STEP_NAME.match(name)
        if match:
            steps[int(match.group(1))] = (start, end)
            continue
        phase = kineto_phase(name)
        if phase:
            phased.append(Event(phase, start, end))
        elif name.endswith(".forward") or name.startswith("nn.Module: "):
            module_forward.append(Event("forward", start, end))
    if not steps:
        raise TraceError("no ProfilerStep#N events: profile with a schedule and call prof.step() each step")
    if not any(e.phase == "forward" for e in phased):
        phased.extend(module_forward)
    return RankTrace(rank, world if isinstance(world, int) else None, source, "kineto", _split(steps, phased))


def _split(windows: dict[int, tuple[float, float]], events: list[Event]) -> tuple[RankStep, ...]:
    ordered = sorted(windows.items(), key=lambda kv: kv[1][0])
    starts = [w[0] for _, w in ordered]
    buckets: list[list[Event]] = [[] for _ in ordered]
    for e in sorted(events, key=lambda e: e.start_ms):
        i = _index_at(starts, e.start_ms)
        if i is not None and e.start_ms < ordered[i][1][1]:
            buckets[i].append(e)
    return tuple(RankStep(step, w[0], w[1], tuple(b)) for (step, w), b in zip(ordered, buckets))


def _index_at(starts: list[float], t: float) -> int | None:
    lo, hi = 0, len(starts)
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1 if lo > 0 else None


def parse_jsonl(text: str, source: str) -> RankTrace:
    rank: int | None = None
    by_step: dict[int, list[Event]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TraceError(f"line {number}: invalid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise TraceError(f"line {number}: expected an object with rank, step, phase, start, end")
        r, step, phase = row.get("rank"), row.get("step"), row.get("phase")
        start, end = _number(row.get("start")), _number(row.get("end"))
        if not isinstance(r, int) or isinstance(r, bool) or r < 0:
            raise TraceError(f"line {number}: 'rank' must be a whole number >= 0")
        if not isinstance(step, int) or isinstance(step, bool):
            raise TraceError(f"line {number}: 'step' must be a whole number")
        if phase not in TRACE_PHASES:
            raise TraceError(f"line {number}: 'phase' must be one of {', '.join(TRACE_PHASES)}")
        if start is None or end is None or end < start:
            raise TraceError(f"line {number}: 'start' and 'end' must be finite seconds with end >= start")
        if rank is None:
            rank = r
        elif r != rank:
            raise TraceError(f"line {number}: rank {r} in a file of rank {rank} (one file per rank)")
        by_step.setdefault(step, []).append(Event(phase, start * 1000.0, end * 1000.0))
    if rank is None or not by_step:
        raise TraceError("no events: an empty JSONL trace")
    steps = tuple(
        RankStep(s, min(e.start_ms for e in evs), max(e.end_ms for e in evs), tuple(sorted(evs, key=lambda e: e.start_ms)))
        for s, evs in sorted(by_step.items())
    )
    return RankTrace(rank, None, source, "jsonl", steps)


def parse_file(source: str, data: bytes) -> RankTrace:
    text = decode(data)
    stripped = text.lstrip()
    if not stripped:
        raise TraceError("empty file")
    if stripped.startswith("{") and "\n{" not in stripped.strip():
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TraceError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
        if isinstance(obj, dict) and "traceEvents" in obj:
            return parse_kineto(obj, source)
        if isinstance(obj, dict) and {"rank", "step", "phase"} <= set(obj):
            return parse_jsonl(text, source)
        raise TraceError("JSON that is not a trace (neither a PyTorch profiler trace nor ddpcore JSONL)")
    if stripped.startswith("{"):
        return parse_jsonl(text, source)
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    raise TraceError("JSON that is not a trace (neither a PyTorch profiler trace nor ddpcore JSONL)")


@dataclass(frozen=True)
class Loaded:
    traces: tuple[RankTrace, ...]
    errors: tuple[FileError, ...]


def load(files: Iterable[tuple[str, bytes]]) -> Loaded:
    """Parse every file; a bad file gets one message and the others still load. One file per rank."""
    traces: dict[int, RankTrace] = {}
    errors: list[FileError] = []
    for source, data in files:
        try:
            trace = parse_file(source, data)
        except TraceError as exc:
            errors.append(FileError(source, str(exc)))
            continue
        if trace.rank in traces:
            errors.append(FileError(source, f"a second file for rank {trace.rank} (first: {traces[trace.rank].source})"))
            continue
        traces[trace.rank] = trace
    return Loaded(tuple(traces[r] for r in sorted(traces)), tuple(errors))
