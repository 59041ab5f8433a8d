"""Per-rank traces in: PyTorch profiler (Kineto) Chrome traces and the project's JSONL (docs/traces.md).

Host and device stay apart. Steps, phases and collectives come from host events (CPU threads): the host's
`ProfilerStep#N`, never the GPU's copy of it. Kernels, copies and memsets stay on the device side, each attributed
to the step whose host side launched it (the `correlation` id that links a kernel to its launch), else to the step
its start falls in, clipped to that step.

Every file is read defensively: bounded inflation, a nesting-depth guard before any JSON parser runs, bounded
numbers, the format told by the content (not the name or the indentation), and one line of error per bad file.
"""

from __future__ import annotations

import bisect
import json
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from .collectives import RECORD_PARAM_COMMS, UNKNOWN_KIND, collective_kind, kernel_kind, kind_of_op
from .intervals import Interval, clip
from .phases import HOST, RECORDED

MIB = 1024 * 1024
MAX_FILE_BYTES = 200 * MIB
MAX_JSON_DEPTH = 64
MAX_TIME_US = 1e17
MAX_TIME_S = MAX_TIME_US / 1e6
MAX_STEP = 10**12
MAX_RANK = 10**7
INFLATE_CHUNK = MIB


DEVICE_CATEGORIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "gpu_user_annotation"})
COMPUTE, MEMORY = "compute", "memory"
STEP_NAME = re.compile(r"ProfilerStep#(\d+)$")
USER_ANNOTATION = re.compile(r"##\s*(.*?)\s*##$")
USER_PHASES = {
    "data_load": "load",
    "dataload": "load",
    "data_loading": "load",
    "dataloader": "load",
    "load": "load",
    "forward": "forward",
    "fwd": "forward",
    "model_forward": "forward",
    "backward": "backward",
    "bwd": "backward",
    "model_backward": "backward",
    "optimizer": "optimizer",
    "optimizer_step": "optimizer",
    "optim": "optimizer",
    "opt_step": "optimizer",
}
"""TorchRec-style `## name ##` annotations that name a phase; any other annotation is left alone."""


class TraceError(ValueError):
    """A file that cannot be read as a trace; the message says why, in one line."""


@dataclass(frozen=True)
class TraceStep:
    """One step of one rank as recorded, on that rank's own clock (ms).

    `phases` are host intervals named load/forward/backward/optimizer (they may overlap: threads);
    `collectives` are host launches named by kind (allreduce, all_to_all, …); `device` holds GPU work named
    compute, memory or a collective kind, attributed to this step."""

    step: int
    start_ms: float
    end_ms: float
    phases: tuple[Interval, ...]
    collectives: tuple[Interval, ...]
    device: tuple[Interval, ...] = ()


@dataclass(frozen=True)
class RankTrace:
    """Every step one file holds for one rank; `has_kernels` tells a GPU trace from a CPU-only one."""

    rank: int
    world_size: int | None
    source: str
    kind: str
    steps: tuple[TraceStep, ...]
    has_kernels: bool = False


@dataclass(frozen=True)
class FileError:
    """A file left out, and why (one line)."""

    source: str
    message: str


@dataclass(frozen=True)
class Loaded:
    """What `load` returns: the traces that parsed, one per rank, and one error per file that did not."""

    traces: tuple[RankTrace, ...]
    errors: tuple[FileError, ...]


def _limit_text() -> str:
    return f"the {MAX_FILE_BYTES // MIB} MiB limit"


def inflate(data: bytes, limit: int | None = None) -> bytes:
    """Gunzip, member after member, stopping as soon as the output passes `limit` (a zip bomb costs nothing)."""
    limit = MAX_FILE_BYTES if limit is None else limit
    out: list[bytes] = []
    total = 0
    rest = data
    while rest[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(wbits=31)
        pending = rest
        while True:
            try:
                chunk = inflater.decompress(pending, INFLATE_CHUNK)
            except zlib.error as exc:
                raise TraceError(f"not a readable gzip file ({exc})") from None
            total += len(chunk)
            if total > limit:
                raise TraceError(f"over {_limit_text()} once decompressed")
            out.append(chunk)
            pending = inflater.unconsumed_tail
            if inflater.eof:
                break
            if not pending and not chunk:
                raise TraceError("not a readable gzip file (truncated)")
        rest = inflater.unused_data
    return b"".join(out)


_JSON_STRUCTURE = b'"[]{}'
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in _JSON_STRUCTURE)
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_INNERMOST = re.compile(rb"\{\}|\[\]")


def json_depth_exceeds(data: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether any JSON value in `data` nests deeper than `limit`, found without parsing (parsers recurse).

    Strings are dropped first (escapes, then quoted runs), so brackets inside names do not count.

    >>> json_depth_exceeds(b'{"a": [[1], "]]]"]}', 2), json_depth_exceeds(b'{"a": [[1], "]]]"]}', 3)
    (True, False)
    """
    skeleton = _STRING.sub(b"", _ESCAPE.sub(b"", data).translate(None, _NOT_STRUCTURE))
    for _ in range(limit):
        skeleton, removed = _INNERMOST.subn(b"", skeleton)
        if not skeleton or not removed:
            return False
    return bool(skeleton)


def decode(data: bytes) -> str:
    """Bytes to text: gunzipped when the content is gzip whatever the name, bounded, depth-checked, BOM dropped."""
    if len(data) > MAX_FILE_BYTES:
        raise TraceError(f"{len(data) / MIB:.0f} MiB is over {_limit_text()}")
    if data[:2] == b"\x1f\x8b":
        data = inflate(data)
    if json_depth_exceeds(data):
        raise TraceError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels: not a trace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TraceError("not UTF-8 text (neither JSON nor JSONL)") from None


def _time(value: object, what: str, limit: float) -> float | None:
    """A bounded finite number as float; None when absent or not a number; an error when out of bounds."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not -limit <= value <= limit:
        raise TraceError(f"{what}: not a finite number within ±{limit:.0e}")
    return float(value)


def _whole(value: object, what: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise TraceError(f"{what} must be a whole number from {low} to {high:,}")
    return value


def _step_number(match: re.Match[str]) -> int:
    digits = match.group(1)
    if len(digits) > len(str(MAX_STEP)):
        raise TraceError(f"a ProfilerStep number of {len(digits):,} digits: over {MAX_STEP:,}")
    return int(digits)


def host_phase(name: str) -> str | None:
    """The phase a host event marks: the DataLoader, DDP's (or FSDP's) forward, autograd, the optimizer, or a
    `## name ##` user annotation that names one of them."""
    if name.startswith("enumerate(DataLoader)"):
        return "load"
    if name in ("DistributedDataParallel.forward", "FullyShardedDataParallel.forward") or name.startswith(
        ("nn.Module: DistributedDataParallel", "nn.Module: FullyShardedDataParallel")
    ):
        return "forward"
    if name.startswith("autograd::engine::evaluate_function:"):
        return "backward"
    if name.startswith(("Optimizer.step#", "Optimizer.zero_grad#")):
        return "optimizer"
    match = USER_ANNOTATION.match(name)
    if match:
        return USER_PHASES.get(re.sub(r"[\s\-:]+", "_", match.group(1).lower()))
    return None


def _mapping(value: object) -> dict:
    """A JSON object, or an empty one for anything else (a file may put a list or a number where a dict belongs)."""
    return value if isinstance(value, dict) else {}


def _rpc_kind(args: dict) -> str | None:
    named = args.get("Collective name")
    return kind_of_op(named) if isinstance(named, str) and named else None


@dataclass
class _KinetoScan:
    """What one pass over the events keeps: host step windows, phases, collectives, launches, device work."""

    windows: dict[int, list[float]]
    phases: list[Interval]
    module_forward: list[Interval]
    collectives: list[Interval]
    unnamed_comms: list[Interval]
    launches: dict[int, float]
    device: list[tuple[Interval, int | None]]


def _scan_kineto(events: list) -> _KinetoScan:
    scan = _KinetoScan({}, [], [], [], [], {}, [])
    for index, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        if ph in ("s", "f") and e.get("cat") == "ac2g":
            flow, ts = e.get("id"), _time(e.get("ts"), f"event {index}: 'ts'", MAX_TIME_US)
            if isinstance(flow, int) and ts is not None:
                scan.launches[flow] = min(scan.launches.get(flow, ts / 1000.0), ts / 1000.0)
            continue
        if ph != "X":
            continue
        name = e.get("name")
        ts = _time(e.get("ts"), f"event {index}: 'ts'", MAX_TIME_US)
        dur = _time(e.get("dur"), f"event {index}: 'dur'", MAX_TIME_US)
        if not isinstance(name, str) or ts is None or dur is None or dur < 0:
            continue
        start, end = ts / 1000.0, (ts + dur) / 1000.0
        cat = str(e.get("cat", "")).lower()
        args = _mapping(e.get("args"))
        correlation = args.get("correlation")
        correlation = correlation if isinstance(correlation, int) and not isinstance(correlation, bool) else None
        if cat in DEVICE_CATEGORIES:
            if cat != "gpu_user_annotation":
                kind = (kernel_kind(name) or COMPUTE) if cat == "kernel" else MEMORY
                scan.device.append((Interval(kind, start, end), correlation))
            continue
        if correlation is not None and cat in ("cuda_runtime", "cuda_driver", "runtime"):
            scan.launches.setdefault(correlation, start)
        match = STEP_NAME.match(name)
        if match:
            window = scan.windows.setdefault(_step_number(match), [start, end])
            window[0], window[1] = min(window[0], start), max(window[1], end)
            continue
        phase = host_phase(name)
        if phase:
            scan.phases.append(Interval(phase, start, end))
            continue
        host_kind = collective_kind(name)
        if host_kind:
            scan.collectives.append(Interval(host_kind, start, end))
        elif name == RECORD_PARAM_COMMS:
            named = _rpc_kind(args)
            (scan.collectives if named else scan.unnamed_comms).append(Interval(named or UNKNOWN_KIND, start, end))
        elif name.endswith(".forward") or name.startswith("nn.Module: "):
            scan.module_forward.append(Interval("forward", start, end))
    return scan


def _unnamed(unnamed: list[Interval], named: list[Interval]) -> list[Interval]:
    """`record_param_comms` without a collective name is kept only when no named collective overlaps it."""
    spans = sorted((c.start_ms, c.end_ms) for c in named)
    starts = [a for a, _ in spans]
    out = []
    for u in unnamed:
        i = bisect.bisect_right(starts, u.end_ms)
        if not any(b >= u.start_ms for _, b in spans[max(0, i - 64) : i]):
            out.append(u)
    return out


def _backward_envelope(phases: list[Interval]) -> tuple[Interval, ...]:
    """The backward is recorded as hundreds of autograd ops; it lasts from the first to the last of them (the gaps
    between ops are the autograd engine's own work, hooks such as DDP's bucket launches included)."""
    backward = [p for p in phases if p.phase == "backward"]
    if len(backward) < 2:
        return tuple(phases)
    envelope = Interval("backward", min(p.start_ms for p in backward), max(p.end_ms for p in backward))
    return (*(p for p in phases if p.phase != "backward"), envelope)


def parse_kineto(obj: dict, source: str) -> RankTrace:
    """A PyTorch profiler trace: host `ProfilerStep#N` windows, with their phases, collectives and device work."""
    events = obj.get("traceEvents")
    if not isinstance(events, list):
        raise TraceError("JSON without a 'traceEvents' list: not a PyTorch profiler trace")
    info = _mapping(obj.get("distributedInfo"))
    if info.get("rank") is None:
        raise TraceError("no distributedInfo.rank: record with torch.distributed initialised")
    rank = _whole(info.get("rank"), "distributedInfo.rank", 0, MAX_RANK)
    world = info.get("world_size")
    world = _whole(world, "distributedInfo.world_size", 1, MAX_RANK) if world is not None else None
    scan = _scan_kineto(events)
    if not scan.windows:
        raise TraceError("no host ProfilerStep#N events: profile with a schedule and call prof.step() each step")
    if not any(p.phase == "forward" for p in scan.phases):
        scan.phases.extend(scan.module_forward)
    collectives = scan.collectives + _unnamed(scan.unnamed_comms, scan.collectives)
    ordered = sorted(scan.windows.items(), key=lambda kv: kv[1][0])
    starts = [w[0] for _, w in ordered]
    step_phases: list[list[Interval]] = [[] for _ in ordered]
    step_comms: list[list[Interval]] = [[] for _ in ordered]
    step_device: list[list[Interval]] = [[] for _ in ordered]
    for bucket, items in ((step_phases, scan.phases), (step_comms, collectives)):
        for item in items:
            i = bisect.bisect_right(starts, item.start_ms) - 1
            if i >= 0 and item.start_ms < ordered[i][1][1]:
                bucket[i].append(item)
    for kernel, correlation in scan.device:
        launched = scan.launches.get(correlation) if correlation is not None else None
        if launched is not None:
            i = bisect.bisect_right(starts, launched) - 1
            if i >= 0 and launched < ordered[i][1][1]:
                step_device[i].append(kernel)
            continue
        i = bisect.bisect_right(starts, kernel.start_ms) - 1
        if i >= 0:
            step_device[i].extend(clip([kernel], ordered[i][1][0], ordered[i][1][1]))
    steps = tuple(
        TraceStep(n, w[0], w[1], _backward_envelope(p), tuple(c), tuple(d))
        for (n, w), p, c, d in zip(ordered, step_phases, step_comms, step_device)
    )
    return RankTrace(rank, world, source, "kineto", steps, has_kernels=any(k.phase != MEMORY for k, _ in scan.device))


def _jsonl_row(line: str, number: int) -> dict:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TraceError(f"line {number}: invalid JSON ({exc.msg})") from None
    except ValueError:
        raise TraceError(f"line {number}: a number too long to read") from None
    if not isinstance(row, dict):
        raise TraceError(f"line {number}: expected an object with rank, step, phase, start, end")
    return row


def parse_jsonl(text: str, source: str) -> RankTrace:
    """ddpcore's JSONL: one `{"rank", "step", "phase", "start", "end"}` per line, seconds on the wall clock."""
    rank: int | None = None
    by_step: dict[int, list[Interval]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = _jsonl_row(line, number)
        where = f"line {number}: "
        r = _whole(row.get("rank"), where + "'rank'", 0, MAX_RANK)
        step = _whole(row.get("step"), where + "'step'", 0, MAX_STEP)
        phase = row.get("phase")
        if phase not in RECORDED:
            raise TraceError(f"{where}'phase' must be one of {', '.join(RECORDED)}")
        start = _time(row.get("start"), where + "'start'", MAX_TIME_S)
        end = _time(row.get("end"), where + "'end'", MAX_TIME_S)
        if start is None or end is None or end < start:
            raise TraceError(f"{where}'start' and 'end' must be finite seconds with end >= start")
        if rank is None:
            rank = r
        elif r != rank:
            raise TraceError(f"{where}rank {r} in a file of rank {rank} (one file per rank)")
        by_step.setdefault(step, []).append(Interval(str(phase), start * 1000.0, end * 1000.0))
    if rank is None or not by_step:
        raise TraceError("no events: an empty JSONL trace")
    steps = []
    for n, items in sorted(by_step.items()):
        items.sort(key=lambda i: i.start_ms)
        phases = tuple(i for i in items if i.phase in HOST)
        comms = tuple(
            Interval("allreduce" if i.phase == "allreduce" else UNKNOWN_KIND, i.start_ms, i.end_ms)
            for i in items
            if i.phase not in HOST
        )
        steps.append(TraceStep(n, items[0].start_ms, max(i.end_ms for i in items), phases, comms))
    return RankTrace(rank, None, source, "jsonl", tuple(steps))


_SPACE = re.compile(r"\s*")


def parse_text(text: str, source: str) -> RankTrace:
    """Tell the format by the content: one JSON object holding `traceEvents` is Kineto; JSON lines are JSONL."""
    first = _SPACE.match(text).end()  # type: ignore[union-attr]
    if first == len(text):
        raise TraceError("empty file")
    try:
        obj, end = json.JSONDecoder().raw_decode(text, first)
    except json.JSONDecodeError as exc:
        raise TraceError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError:
        raise TraceError("invalid JSON: a number too long to read") from None
    only = _SPACE.match(text, end).end() == len(text)  # type: ignore[union-attr]
    if isinstance(obj, dict) and "traceEvents" in obj:
        if not only:
            line = text.count("\n", 0, end) + 1
            raise TraceError(f"invalid JSON: extra data after the profiler trace (line {line})")
        return parse_kineto(obj, source)
    if isinstance(obj, dict) and (not only or {"rank", "step", "phase"} <= set(obj)):
        return parse_jsonl(text, source)
    raise TraceError("JSON that is not a trace (neither a PyTorch profiler trace nor ddpcore JSONL)")


def parse_file(source: str, data: bytes) -> RankTrace:
    """One file's bytes to a rank's trace, or a TraceError whose message is one line."""
    return parse_text(decode(data), source)


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
        except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
            errors.append(FileError(source, f"could not be read ({type(exc).__name__})"))
            continue
        if trace.rank in traces:
            errors.append(
                FileError(source, f"a second file for rank {trace.rank} (first: {traces[trace.rank].source})")
            )
            continue
        traces[trace.rank] = trace
    return Loaded(tuple(traces[r] for r in sorted(traces)), tuple(errors))
