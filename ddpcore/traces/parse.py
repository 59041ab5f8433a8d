"""Per-rank traces in: PyTorch profiler (Kineto) Chrome traces, the project's JSONL and torchtitan's structured logs
(docs/traces.md).

Host and device stay apart. Steps, phases and collectives come from host events (CPU threads): the host's
`ProfilerStep#N`, never the GPU's copy of it. Kernels, copies and memsets stay on the device side, each attributed
to the step whose host side launched it (the `correlation` id that links a kernel to its launch), else to the step
its start falls in, clipped to that step.

Every file is read defensively: bounded inflation, a nesting-depth guard before any JSON parser runs, bounded
numbers, the format told by the content (not the name or the indentation), and one line of error per bad file.
"""

from __future__ import annotations

import bisect
import math
import re
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Protocol, TypeVar, cast

from ..base import Said
from ..base.intervals import Interval, clip
from ..base.phases import ALLREDUCE, CHECKPOINT, FORWARD_BACKWARD, GC, HOST, LOAD, OPTIMIZER, RECORDED
from ..base.words import Message
from .collectives import RECORD_PARAM_COMMS, UNKNOWN_KIND, WORKER_PREFIXES, collective_kind, kernel_kind, kind_of_op
from .columnar import MAGICS, read_columnar
from .reader import (
    MAX_RANK,
    MAX_STEP,
    MIB,
    READ_CHUNK,
    DepthGuard,
    JsonStream,
    ReadError,
    gunzipped,
    limited,
    texts,
)
from .stepfacts import RankColumns
from .summary import FLAGS, MEASURES, is_summary, read_summary

__all__ = [
    "JsonlRows",
    "COMPUTE_KERNEL",
    "FileError",
    "Loaded",
    "MAX_FILE_BYTES",
    "MEMORY_KERNEL",
    "RankTrace",
    "Ranked",
    "ReadRank",
    "TraceError",
    "TraceStep",
    "chunked",
    "collect",
    "first_per_rank",
    "load",
    "load_streams",
    "parse_file",
    "parse_kineto",
    "read_or_why",
    "inflated",
    "read_trace",
    "steps_in",
]

MAX_FILE_BYTES = 200 * MIB
MAX_TIME_US = 1e17
MAX_TIME_S = MAX_TIME_US / 1e6


DEVICE_CATEGORIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "gpu_user_annotation"})
COMPUTE_KERNEL, MEMORY_KERNEL = "compute", "memory"
"""The kinds of a device event that is not a collective: a compute kernel, or a copy or set of memory."""
AUTOGRAD = "autograd::engine::evaluate_function:"
SKIPPED_OPS = "aten::"
"""PyTorch's operators: never a phase, a collective or a step, and most of a trace (checked before anything else)."""
RUNTIME_CATEGORIES = frozenset({"cuda_runtime", "cuda_driver", "runtime"})
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


TraceError = ReadError
"""A file that cannot be read as a trace; the message says why, in one line."""


@dataclass(frozen=True)
class TraceStep:
    """One step of one rank as recorded, on that rank's own clock (ms).

    `phases` are host intervals named load/forward/backward/optimizer (they may overlap: threads);
    `collectives` are host launches named by kind (allreduce, all_to_all, …); `runs` collectives as a backend's
    worker thread ran them (gloo), from when it got to them to their end; `device` holds GPU work named compute,
    memory or a collective kind, attributed to this step.

    >>> from ddpcore.traces import load
    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(3)).encode()
    >>> got = load([("rank1.jsonl", data), ("bad.jsonl", b"not json")])
    >>> s = got.traces[0].steps[0]
    >>> s.step, s.phases
    (0, (Interval(phase='forward', start_ms=0.0, end_ms=20.0),))
    """

    step: int
    start_ms: float
    end_ms: float
    phases: tuple[Interval, ...]
    collectives: tuple[Interval, ...]
    device: tuple[Interval, ...] = ()
    runs: tuple[Interval, ...] = ()


@dataclass(frozen=True)
class RankTrace:
    """Every step one file holds for one rank; `has_kernels` tells a GPU trace from a CPU-only one.

    >>> from ddpcore.traces import load
    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(3)).encode()
    >>> got = load([("rank1.jsonl", data), ("bad.jsonl", b"not json")])
    >>> t = got.traces[0]
    >>> t.rank, t.source, len(t.steps), t.has_kernels
    (1, 'rank1.jsonl', 3, False)
    """

    rank: int
    world_size: int | None
    source: str
    kind: str
    steps: tuple[TraceStep, ...]
    has_kernels: bool = False


ReadRank = RankTrace | RankColumns
"""What one file holds once read: a trace's events, or a summary's columns."""


def steps_in(read: ReadRank) -> int:
    """How many steps a file read holds: a trace's steps, or a summary's rows.

    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> steps_in(parse_file("rank1.jsonl", "\\n".join(line.format(s=s) for s in range(1, 4)).encode()))
    3
    """
    return len(read.steps) if isinstance(read, RankTrace) else len(read.step)


@dataclass(frozen=True)
class FileError:
    """A file left out, and why (one line, a code and values: `base.words`); `message` is it in English.

    >>> from ddpcore.traces import load
    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(3)).encode()
    >>> got = load([("rank1.jsonl", data), ("bad.jsonl", b"not json")])
    >>> got.errors[0].source, got.errors[0].message
    ('bad.jsonl', 'invalid JSON at line 1: Expecting value')
    """

    source: str
    said: Message

    @property
    def message(self) -> str:
        """Why, in English (the command line's words, and the JSON's)."""
        return self.said.text()


@dataclass(frozen=True)
class Loaded:
    """What `load` returns: the traces (or summaries) that parsed, one per rank, and one error per file that did not.

    >>> from ddpcore.traces import load
    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(3)).encode()
    >>> got = load([("rank1.jsonl", data), ("bad.jsonl", b"not json")])
    >>> len(got.traces), [e.source for e in got.errors]
    (1, ['bad.jsonl'])
    """

    traces: tuple[ReadRank, ...]
    errors: tuple[FileError, ...]


def stream_of(chunks: Iterable[bytes]) -> JsonStream:
    """A file's bytes as a JSON stream: at most MAX_FILE_BYTES read and inflated, nesting checked, UTF-8.

    >>> stream = stream_of([b'{"a": [1, ', b'2]}'])
    >>> stream.value()
    {'a': [1, 2]}
    """
    return _json_stream(inflated(chunks))


def inflated(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """A file's bytes, at most MAX_FILE_BYTES read and inflated.

    >>> import gzip
    >>> b"".join(inflated([gzip.compress(b"abc")]))
    b'abc'
    """
    return gunzipped(limited(chunks, MAX_FILE_BYTES), MAX_FILE_BYTES)


def _json_stream(data: Iterable[bytes]) -> JsonStream:
    guard = DepthGuard()
    return JsonStream(texts(guard.feed(c) for c in data))


PARQUET_MAGIC = b"PAR1"
"""How a Parquet file starts: `summarize --format parquet` writes them for DuckDB or Spark, not for the analysis."""
PARQUET_COLUMNS = tuple(name.encode() for name in (*MEASURES, *FLAGS))
"""Column names of ddpcore's Parquet summaries (`summary`'s) that its footer names: without them, it is not ours."""
PYTORCH_KEYS = frozenset(("schemaVersion", "distributedInfo", "deviceProperties", "traceName"))
"""Top-level keys of a PyTorch profiler trace: a Chrome trace with none of them and no ProfilerStep is another
tool's (a 3D-parallel job's timeline, a browser's)."""
CHROME_LOOK = 64
"""Entries of a JSON array looked at for Chrome events (`ph`) before calling it no trace at all."""


def _ddpcore_parquet(data: bytes) -> bool:
    """Whether a Parquet file's footer (its last 8 bytes give its length) names ddpcore's summary columns."""
    if len(data) < 12 or not data.endswith(PARQUET_MAGIC):
        return False
    size = int.from_bytes(data[-8:-4], "little")
    footer = data[max(0, len(data) - 8 - size) : -8]
    return all(name in footer for name in PARQUET_COLUMNS)


def _foreign(kind: str) -> TraceError:
    """A file of a format ddpcore does not read (`foreign.<kind>`), said with the formats it does read."""
    return TraceError("file.foreign", what=Message.of(f"foreign.{kind}"))


def _opening(data: Iterator[bytes], size: int) -> tuple[bytes, Iterator[bytes]]:
    """The first `size` bytes (fewer when the data ends), and every byte again."""
    head = b""
    for chunk in data:
        head += chunk
        if len(head) >= size:
            break
    return head[:size], chain([head], data)


def _time(value: object, where: int | str, key: str, limit: float) -> float | None:
    """A bounded finite number as float; None when absent or not a number; an error when out of bounds, naming
    where (an event's index, or a line) and the key."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not -limit <= value <= limit:
        if isinstance(where, int):
            raise TraceError("file.event_number", event=where, key=key, limit=f"{limit:.0e}")
        raise TraceError("file.line_number", line=where, key=key, limit=f"{limit:.0e}")
    return float(value)


def _whole(value: object, what: str, low: int, high: int, line: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        if line is None:
            raise TraceError("file.whole", field=what, low=low, high=f"{high:,}")
        raise TraceError("file.line_whole", line=line, key=what, low=low, high=f"{high:,}")
    return value


def _step_number(match: re.Match[str]) -> int:
    digits = match.group(1)
    if len(digits) > len(str(MAX_STEP)):
        raise TraceError("file.step_digits", digits=f"{len(digits):,}", high=f"{MAX_STEP:,}")
    return int(digits)


def host_phase(name: str) -> str | None:
    """The phase a host event marks: the DataLoader, DDP's (or FSDP's) forward, autograd, the optimizer, or a
    `## name ##` user annotation that names one of them.

    >>> host_phase("## data_load ##"), host_phase("Optimizer.step#AdamW.step"), host_phase("## encoder fp8 None ##")
    ('load', 'optimizer', None)
    """
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


def _correlation(e: dict) -> int:
    """The id linking GPU work to the host call that launched it (-1 when absent)."""
    value = _mapping(e.get("args")).get("correlation")
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _rpc_kind(args: dict) -> str | None:
    named = args.get("Collective name")
    return kind_of_op(named) if isinstance(named, str) and named else None


class _KinetoScan:
    """What one pass over the events keeps: host step windows, phases, collectives, launches, device work.

    Events arrive one at a time from the stream; only what the analysis uses is kept, the many small ones (autograd
    ops, kernels, launches) in flat arrays rather than objects."""

    def __init__(self) -> None:
        self.windows: dict[int, list[float]] = {}
        self.phases: list[Interval] = []
        self.backward = array("d")
        self.module_forward: list[Interval] = []
        self.collectives: list[Interval] = []
        self.runs: list[Interval] = []
        self.unnamed_comms: list[Interval] = []
        self.launch_ids = array("q")
        self.launch_ms = array("d")
        self.device: list[tuple[str, float, float, int]] = []
        self.index = 0
        self.negative: tuple[int, str, float] | None = None
        """The first event left out for a negative `dur` (its index, name and value): a profiler's fault, named
        when it leaves the trace without steps."""

    def add(self, e: object) -> None:
        """Keep what one event tells, if anything. Most events are operators that matter to no phase or
        collective (`aten::…`): they are passed over first, before any number is read."""
        index, self.index = self.index, self.index + 1
        if not isinstance(e, dict):
            return
        ph = e.get("ph")
        if ph != "X":
            if ph in ("s", "f") and e.get("cat") == "ac2g":
                flow, ts = e.get("id"), _time(e.get("ts"), index, "ts", MAX_TIME_US)
                if isinstance(flow, int) and not isinstance(flow, bool) and ts is not None:
                    self.launch_ids.append(flow)
                    self.launch_ms.append(ts / 1000.0)
            return
        name = e.get("name")
        if not isinstance(name, str) or name.startswith(SKIPPED_OPS):
            return
        ts = _time(e.get("ts"), index, "ts", MAX_TIME_US)
        dur = _time(e.get("dur"), index, "dur", MAX_TIME_US)
        if ts is None or dur is None:
            return
        if dur < 0:
            if STEP_NAME.match(name):
                raise TraceError("file.negative_step", event=index, name=name[:40], dur=dur)
            self.negative = self.negative or (index, name[:40], dur)
            return
        start, end = ts / 1000.0, (ts + dur) / 1000.0
        cat = e.get("cat")
        cat = cat.lower() if isinstance(cat, str) else ""
        if cat in DEVICE_CATEGORIES:
            if cat != "gpu_user_annotation":
                kind = (kernel_kind(name) or COMPUTE_KERNEL) if cat == "kernel" else MEMORY_KERNEL
                self.device.append((kind, start, end, _correlation(e)))
            return
        if cat in RUNTIME_CATEGORIES:
            correlation = _correlation(e)
            if correlation >= 0:
                self.launch_ids.append(correlation)
                self.launch_ms.append(start)
            return
        match = STEP_NAME.match(name)
        if match:
            window = self.windows.setdefault(_step_number(match), [start, end])
            window[0], window[1] = min(window[0], start), max(window[1], end)
            return
        phase = host_phase(name)
        if phase == "backward" and name.startswith(AUTOGRAD):
            self.backward.extend((start, end))
        elif phase:
            self.phases.append(Interval(phase, start, end))
        elif host_kind := collective_kind(name):
            (self.runs if name.startswith(WORKER_PREFIXES) else self.collectives).append(
                Interval(host_kind, start, end)
            )
        elif name == RECORD_PARAM_COMMS:
            named = _rpc_kind(_mapping(e.get("args")))
            (self.collectives if named else self.unnamed_comms).append(Interval(named or UNKNOWN_KIND, start, end))
        elif name.endswith(".forward") or name.startswith("nn.Module: "):
            self.module_forward.append(Interval("forward", start, end))

    def launches(self) -> dict[int, float]:
        """Launch time by correlation id, for the ids device work refers to (the earliest record of each)."""
        wanted = {c for *_, c in self.device if c >= 0}
        found: dict[int, float] = {}
        for flow, ms in zip(self.launch_ids, self.launch_ms):
            if flow in wanted and ms < found.get(flow, math.inf):
                found[flow] = ms
        return found


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


def _kineto_trace(top: dict, scan: _KinetoScan, source: str) -> RankTrace:
    if not scan.windows and not PYTORCH_KEYS & set(top):
        raise _foreign("chrome")
    info = _mapping(top.get("distributedInfo"))
    if info.get("rank") is None:
        raise TraceError("file.no_rank")
    rank = _whole(info.get("rank"), "distributedInfo.rank", 0, MAX_RANK)
    world = info.get("world_size")
    world = _whole(world, "distributedInfo.world_size", 1, MAX_RANK) if world is not None else None
    if not scan.windows:
        if scan.negative is not None:
            index, name, dur = scan.negative
            raise TraceError("file.no_steps_negative", event=index, name=name, dur=dur)
        raise TraceError("file.no_steps")
    phases = scan.phases
    if not any(p.phase == "forward" for p in phases):
        phases = phases + scan.module_forward
    collectives = scan.collectives + _unnamed(scan.unnamed_comms, scan.collectives)
    ordered = sorted(scan.windows.items(), key=lambda kv: kv[1][0])
    starts = [w[0] for _, w in ordered]

    def step_of(t: float) -> int | None:
        i = bisect.bisect_right(starts, t) - 1
        return i if i >= 0 and t < ordered[i][1][1] else None

    step_phases: list[list[Interval]] = [[] for _ in ordered]
    step_comms: list[list[Interval]] = [[] for _ in ordered]
    step_runs: list[list[Interval]] = [[] for _ in ordered]
    step_device: list[list[Interval]] = [[] for _ in ordered]
    backward: list[list[float]] = [[math.inf, -math.inf] for _ in ordered]
    for bucket, items in ((step_phases, phases), (step_comms, collectives), (step_runs, scan.runs)):
        for item in items:
            i = step_of(item.start_ms)
            if i is not None:
                bucket[i].append(item)
    for k in range(0, len(scan.backward), 2):
        i = step_of(scan.backward[k])
        if i is not None:
            span = backward[i]
            span[0], span[1] = min(span[0], scan.backward[k]), max(span[1], scan.backward[k + 1])
    for i, (low, high) in enumerate(backward):
        if high >= low:
            step_phases[i].append(Interval("backward", low, high))
    launches = scan.launches()
    for kind, start, end, correlation in scan.device:
        launched = launches.get(correlation)
        if launched is not None:
            i = step_of(launched)
            if i is not None:
                step_device[i].append(Interval(kind, start, end))
            continue
        i = bisect.bisect_right(starts, start) - 1
        if i >= 0:
            step_device[i].extend(clip([Interval(kind, start, end)], ordered[i][1][0], ordered[i][1][1]))
    steps = tuple(
        TraceStep(n, w[0], w[1], _backward_envelope(p), tuple(c), tuple(d), tuple(r))
        for (n, w), p, c, d, r in zip(ordered, step_phases, step_comms, step_device, step_runs)
    )
    has_kernels = any(kind != MEMORY_KERNEL for kind, *_ in scan.device)
    return RankTrace(rank, world, source, "kineto", steps, has_kernels=has_kernels)


def _backward_envelope(phases: list[Interval]) -> tuple[Interval, ...]:
    """The backward is recorded as hundreds of autograd ops; it lasts from the first to the last of them (the gaps
    between ops are the autograd engine's own work, hooks such as DDP's bucket launches included)."""
    backward = [p for p in phases if p.phase == "backward"]
    if len(backward) < 2:
        return tuple(phases)
    envelope = Interval("backward", min(p.start_ms for p in backward), max(p.end_ms for p in backward))
    return (*(p for p in phases if p.phase != "backward"), envelope)


def parse_kineto(obj: dict, source: str) -> RankTrace:
    """A PyTorch profiler trace already in memory (a dict): host step windows, phases, collectives, device work.

    >>> steps = [{"ph": "X", "name": f"ProfilerStep#{s}", "ts": s * 1000.0, "dur": 900.0} for s in (1, 2)]
    >>> kineto = {"distributedInfo": {"rank": 2}, "traceEvents": steps}
    >>> t = parse_kineto(kineto, "rank2.json")
    >>> t.rank, t.kind, [(s.step, round(s.end_ms - s.start_ms, 3)) for s in t.steps]
    (2, 'kineto', [(1, 0.9), (2, 0.9)])
    """
    events = obj.get("traceEvents")
    if not isinstance(events, list):
        raise TraceError("file.no_events_list")
    scan = _KinetoScan()
    for e in events:
        scan.add(e)
    return _kineto_trace(obj, scan, source)


class JsonlRows:
    """ddpcore's JSONL, row after row: one `{"rank", "step", "phase", "start", "end"}` each, wall-clock seconds."""

    def __init__(self) -> None:
        self.rank: int | None = None
        self.by_step: dict[int, list[Interval]] = {}

    def add(self, row: object, number: int) -> None:
        """Check one row (`number` is its line) and keep it."""
        if not isinstance(row, dict):
            raise TraceError("file.jsonl_object", line=number)
        r = _whole(row.get("rank"), "rank", 0, MAX_RANK, number)
        step = _whole(row.get("step"), "step", 0, MAX_STEP, number)
        phase = row.get("phase")
        if phase not in RECORDED:
            raise TraceError("file.jsonl_phase", line=number, phases=", ".join(RECORDED))
        start = _time(row.get("start"), str(number), "start", MAX_TIME_S)
        end = _time(row.get("end"), str(number), "end", MAX_TIME_S)
        if start is None or end is None or end < start:
            raise TraceError("file.jsonl_times", line=number)
        if self.rank is None:
            self.rank = r
        elif r != self.rank:
            raise TraceError("file.jsonl_rank", line=number, rank=r, first=self.rank)
        self.by_step.setdefault(step, []).append(Interval(str(phase), start * 1000.0, end * 1000.0))

    def trace(self, source: str) -> RankTrace:
        """The rank's trace, steps in order."""
        if self.rank is None or not self.by_step:
            raise TraceError("file.jsonl_empty")
        steps = []
        for n, items in sorted(self.by_step.items()):
            items.sort(key=lambda i: i.start_ms)
            phases = tuple(i for i in items if i.phase in HOST)
            comms = tuple(
                Interval("allreduce" if i.phase == "allreduce" else UNKNOWN_KIND, i.start_ms, i.end_ms)
                for i in items
                if i.phase not in HOST
            )
            steps.append(TraceStep(n, items[0].start_ms, max(i.end_ms for i in items), phases, comms))
        return RankTrace(self.rank, None, source, "jsonl", tuple(steps))


TITAN_SPANS = {
    "fetching_batch": LOAD,
    "fwd_bwd": FORWARD_BACKWARD,
    "forward_backward": FORWARD_BACKWARD,
    "optim": OPTIMIZER,
    "gc_collect": GC,
    "checkpoint_save": CHECKPOINT,
}
"""torchtitan's spans ddpcore reads, each as the host phase it is; the others (eval, collect_dist_metrics, ...) are
time outside any phase."""
TITAN_STEP = "step"
"""The span of a whole training step in torchtitan's logs."""
TITAN_KEYS = frozenset(("rank", "time_us", "log_type_name"))
"""What a row of torchtitan's structured logs holds, and ddpcore's JSONL does not: how the format is told."""


def is_titan(row: object) -> bool:
    """Whether a JSON object is a row of torchtitan's structured logs.

    >>> is_titan({"rank": 0, "time_us": 1, "log_type_name": "step_start"}), is_titan({"rank": 0, "phase": "load"})
    (True, False)
    """
    return isinstance(row, dict) and set(row) >= TITAN_KEYS


class TitanRows:
    """torchtitan's structured logs (`torchtitan.observability.structured_logger`), row after row: each span a
    `<name>_start` and a `<name>_end` event (`log_type` "event"), paired last in first out by name and task, at
    `time_us` on the wall clock, in the `step` its start was logged in; instants, scalars and spans of no step are
    left out. A step holds its spans (`TITAN_SPANS`) as host phases, and as its barrier the all-reduce of the token
    count that torchtitan runs between the last batch fetched and the forward and backward: a rank is ready when its
    batch is fetched, and released when its fwd_bwd starts. A rank slow inside fwd_bwd leaves no trace (every rank's
    fwd_bwd ends at the gradient all-reduce), which the verdict says (`caveats`, `logged_spans`)."""

    def __init__(self) -> None:
        self.rank: int | None = None
        self.open: dict[tuple[str, object], list[tuple[float, int]]] = {}
        self.by_step: dict[int, list[Interval]] = {}

    def add(self, row: object, number: int) -> None:
        """Check one row (`number` is its line) and keep the span it ends."""
        if not isinstance(row, dict):
            raise TraceError("file.titan_object", line=number)
        r = _whole(row.get("rank"), "rank", 0, MAX_RANK, number)
        if self.rank is None:
            self.rank = r
        elif r != self.rank:
            raise TraceError("file.jsonl_rank", line=number, rank=r, first=self.rank)
        name, step = row.get("log_type_name"), row.get("step")
        if row.get("log_type") != "event" or not isinstance(name, str) or step is None:
            return
        at = _time(row.get("time_us"), str(number), "time_us", MAX_TIME_US)
        if at is None:
            raise TraceError("file.titan_times", line=number)
        step = _whole(step, "step", 0, MAX_STEP, number)
        base, _, edge = name.rpartition("_")
        if base != TITAN_STEP and base not in TITAN_SPANS:
            return
        key = (base, row.get("task_name"))
        if edge == "start":
            self.open.setdefault(key, []).append((at, step))
        elif edge == "end" and self.open.get(key):
            start, began = self.open[key].pop()
            if at < start:
                raise TraceError("file.titan_times", line=number)
            self.by_step.setdefault(began, []).append(Interval(base, start / 1000.0, at / 1000.0))

    def trace(self, source: str) -> RankTrace:
        """The rank's trace, steps in order: those holding a forward and backward."""
        if self.rank is None:
            raise TraceError("file.jsonl_empty")
        steps = []
        for n, spans in sorted(self.by_step.items()):
            phases = tuple(
                sorted(
                    (Interval(TITAN_SPANS[i.phase], i.start_ms, i.end_ms) for i in spans if i.phase in TITAN_SPANS),
                    key=lambda i: i.start_ms,
                )
            )
            computes = [i for i in phases if i.phase == FORWARD_BACKWARD]
            if not computes:
                continue
            released = computes[0].start_ms
            fetched = [i.end_ms for i in phases if i.phase == LOAD and i.end_ms <= released]
            barrier = (Interval(ALLREDUCE, max(fetched), released),) if fetched else ()
            whole = [i for i in spans if i.phase == TITAN_STEP] or list(phases)
            start, end = min(i.start_ms for i in whole), max(i.end_ms for i in whole)
            steps.append(TraceStep(n, start, end, phases, barrier))
        if not steps:
            raise TraceError("file.titan_steps")
        return RankTrace(self.rank, None, source, "torchtitan", tuple(steps))


def _top_object(stream: JsonStream, scan: _KinetoScan) -> dict:
    """The first JSON object, key by key; a `traceEvents` list goes event by event to the scanner (marked None)."""
    top: dict = {}
    stream.expect("{")
    if stream.peek() == "}":
        stream.expect("}")
        return top
    while True:
        key = stream.value()
        if not isinstance(key, str):
            raise TraceError("file.json_at_line", line=stream.line(), reason=Message.of("json.key_not_string"))
        stream.expect(":")
        if key == "traceEvents" and stream.peek() == "[":
            stream.expect("[")
            for event in stream.items():
                scan.add(event)
            top[key] = None
        else:
            top[key] = stream.value()
        if stream.peek() != ",":
            break
        stream.expect(",")
    stream.expect("}")
    return top


def read_trace(source: str, chunks: Iterable[bytes]) -> ReadRank:
    """One file, streamed: the format told by the content (one object holding `traceEvents` is Kineto; one whose
    `format` says so is a ddpcore summary; JSON objects one after another are JSONL), events decoded one at a time
    and kept only when the analysis uses them.

    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(1, 4)).encode()
    >>> t = read_trace("rank1.jsonl", chunked(data, size=7))
    >>> t.rank, t.kind, len(t.steps)
    (1, 'jsonl', 3)
    """
    opening, data = _opening(inflated(chunks), len(MAGICS[0]))
    if opening in MAGICS:
        return read_columnar(b"".join(data), source)
    if opening.startswith(PARQUET_MAGIC):
        raise TraceError("file.parquet") if _ddpcore_parquet(b"".join(data)) else _foreign("parquet")
    stream = _json_stream(data)
    first = stream.peek()
    if not first:
        raise TraceError("file.empty")
    if first != "{":
        value = stream.value()
        if isinstance(value, list) and any(isinstance(e, dict) and "ph" in e for e in value[:CHROME_LOOK]):
            raise _foreign("chrome")
        raise TraceError("file.not_trace")
    scan = _KinetoScan()
    top = _top_object(stream, scan)
    more = stream.peek()
    if is_summary(top):
        if more:
            raise TraceError("file.extra_summary", line=stream.line())
        return read_summary(top, source)
    if "traceEvents" in top:
        if more:
            raise TraceError("file.extra_trace", line=stream.line())
        if top["traceEvents"] is not None:
            raise TraceError("file.no_events_list")
        return _kineto_trace(top, scan, source)
    rows: JsonlRows | TitanRows
    if is_titan(top):
        rows = TitanRows()
    elif not more and not {"rank", "step", "phase"} <= set(top):
        raise TraceError("file.not_trace")
    else:
        rows = JsonlRows()
    rows.add(top, 1)
    while stream.peek():
        line = stream.line()
        try:
            row = stream.value()
        except ReadError as exc:
            reason = dict(exc.message.values).get("reason")
            if reason is None:
                reason = Message.of("json.not_a_trace") if exc.code == "file.nested" else exc.message
            raise TraceError("file.jsonl_line", line=line, reason=reason) from None
        rows.add(row, line)
    return rows.trace(source)


def chunked(data: bytes, size: int = READ_CHUNK) -> Iterator[bytes]:
    """Bytes already in memory, as the stream reads them.

    >>> list(chunked(b"abcdefg", size=3))
    [b'abc', b'def', b'g']
    """
    view = memoryview(data)
    for start in range(0, len(data), size):
        yield bytes(view[start : start + size])


def parse_file(source: str, data: bytes) -> ReadRank:
    """One file's bytes to a rank's trace, or a TraceError whose message is one line.

    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(1, 4)).encode()
    >>> t = parse_file("rank1.jsonl", data)
    >>> t.rank, [s.step for s in t.steps]
    (1, [1, 2, 3])
    """
    return read_trace(source, chunked(data))


def load(files: Iterable[tuple[str, bytes]]) -> Loaded:
    """Parse every file; a bad file gets one message and the others still load. One file per rank.

    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(1, 4)).encode()
    >>> loaded = load([("rank1.jsonl", data), ("notes.txt", b"hello")])
    >>> [t.rank for t in loaded.traces], [e.message for e in loaded.errors]
    ([1], ['invalid JSON at line 1: Expecting value'])
    """
    return load_streams((source, chunked(data)) for source, data in files)


def load_streams(files: Iterable[tuple[str, Iterable[bytes]]]) -> Loaded:
    """As `load`, each file given as the chunks of its bytes (read from disk or a browser's File as they come).

    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(1, 4)).encode()
    >>> loaded = load_streams([("rank1.jsonl", iter([data[:10], data[10:]]))])
    >>> [t.rank for t in loaded.traces], loaded.errors
    ([1], ())
    """
    return collect(read_or_why(source, chunks) for source, chunks in files)


def read_or_why(source: str, chunks: Iterable[bytes], size: int | None = None) -> ReadRank | FileError:
    """One file read, or why it cannot be (one line): every reader (`load`, the CLI's files, the page's worker)
    comes here, so that a failure is worded once. A `size` known beforehand over the limit is refused unread.

    >>> read_or_why("a.json", [b""]).message
    'empty file'
    >>> read_or_why("big.json", [], size=MAX_FILE_BYTES + MIB).message
    '201 MiB is over the 200 MiB limit'
    """
    if size is not None and size > MAX_FILE_BYTES:
        return FileError(source, Message.of("file.too_big", size=size // MIB, mib=MAX_FILE_BYTES // MIB))
    try:
        return read_trace(source, chunks)
    except OSError as exc:
        return FileError(source, Message.of("file.system", reason=exc.strerror or str(exc)))
    except Said as exc:
        return FileError(source, exc.message)
    except ValueError as exc:
        return FileError(source, Message.of("file.system", reason=str(exc)))
    except (OverflowError, RecursionError, MemoryError) as exc:
        return FileError(source, Message.of("file.unreadable", why=type(exc).__name__))


def collect(results: Iterable[ReadRank | FileError]) -> Loaded:
    """Traces and errors in the order given; a second file for a rank is an error.

    >>> line = '{{"rank": 1, "step": {s}, "phase": "forward", "start": {s}.0, "end": {s}.02}}'
    >>> data = "\\n".join(line.format(s=s) for s in range(1, 4)).encode()
    >>> one = parse_file("rank1.jsonl", data)
    >>> loaded = collect([one, parse_file("again.jsonl", data)])
    >>> len(loaded.traces), loaded.errors[0].message
    (1, 'a second file for rank 1 (first: rank1.jsonl)')
    """
    traces, errors = first_per_rank(results)
    return Loaded(tuple(cast(list[ReadRank], traces)), tuple(errors))


class Ranked(Protocol):
    """What `first_per_rank` reads of a file read: its rank and where it came from."""

    @property
    def rank(self) -> int:
        """The rank the file is of."""
        ...

    @property
    def source(self) -> str:
        """Where the file came from (its path or name)."""
        ...


R = TypeVar("R", bound=Ranked)


def first_per_rank(results: Iterable[R | FileError]) -> tuple[list[R], list[FileError]]:
    """Each rank's first file (by rank) and the errors in the order given, a second file for a rank one of them:
    what `collect` keeps of files read in one process, and a run read in parts keeps of what each part read
    (`analysis.parted`).

    >>> from ddpcore.traces import FileError
    >>> from types import SimpleNamespace as S
    >>> kept, errors = first_per_rank([S(rank=2, source="b"), FileError("x", "unreadable"), S(rank=2, source="c")])
    >>> [r.source for r in kept], [e.source for e in errors]
    (['b'], ['x', 'c'])
    """
    firsts: dict[int, R] = {}
    errors: list[FileError] = []
    for result in results:
        if isinstance(result, FileError):
            errors.append(result)
        elif result.rank in firsts:
            first = firsts[result.rank].source
            errors.append(FileError(result.source, Message.of("file.second_for_rank", rank=result.rank, first=first)))
        else:
            firsts[result.rank] = result
    return [firsts[r] for r in sorted(firsts)], errors
