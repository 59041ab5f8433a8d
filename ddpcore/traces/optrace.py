"""The operations of a 3D-parallel job (data, pipeline and tensor groups), one row per operation a worker ran in a
step: the table the OSDI 2025 what-if artifact publishes (ByteDance-Seed/StragglerAnalysis, `trace-*.parquet` with
its `meta-*.yaml`). One worker is one (data-parallel rank, pipeline stage): its tensor- and context-parallel peers
run the same operations at the same times, and the table holds one of them.

Parquet is read with the standard library (`storage.parquetfile`), natively and in the page; a file that uses what
that reader does not (nested columns, LZ4 or Brotli pages) goes to pyarrow, the extra `ddpcore[parquet]`, when it is
installed. The group sizes are read from the meta file with the standard library.
"""

from __future__ import annotations

import json
import math
import re
import sys
import zlib
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from ..base.words import Message
from ..storage.parquetfile import Coded, ParquetError, ParquetUnread, parquet_columns

if TYPE_CHECKING:
    from .pipetrace import RankOps

__all__ = [
    "CLOCK_SKEW",
    "GZIP_MAGIC",
    "HEAD",
    "JOB_KINDS",
    "JOB_LOOKS",
    "MOST_BYTES",
    "OP_COLUMNS",
    "JobFile",
    "JobGroups",
    "OpRow",
    "OpTraceError",
    "OpTable",
    "groups_of_meta",
    "job_among",
    "job_file_kind",
    "kind_of_head",
    "op_table",
    "read_job",
    "read_op_lines",
    "read_op_parquet",
    "read_op_timeline",
]

OP_COLUMNS = ("dp_rank", "stage", "rank", "step", "optype", "start_ts", "duration", "seq_id", "mc", "gmc", "mb_id")
"""The columns an operation table holds (the artifact's names)."""

MOST_SECONDS = 86_400.0
"""The longest start or duration read, in seconds: a day. A value beyond it, negative or not finite is an error."""

CLOCK_SKEW = 0.01
"""How far (s) two hosts' clocks may disagree: a communication's transfer, drawn from its latest peer's start, may
read this far below 0 (the artifact's timelines draw such transfers with a negative duration)."""

MOST_GROUP = 1 << 20
"""The largest group size or world size read from a meta file."""


class OpTraceError(ValueError):
    """An operation table or its meta file that cannot be read as one job, with the one line that says why."""


@dataclass(frozen=True)
class OpRow:
    """One operation of one worker in one step: times in seconds, `seq` its place among the worker's operations of
    that type in the step, `chunk` its model chunk (virtual stage, -1 for none) and `virtual` that chunk's place in
    the whole model (the artifact's `gmc`, the virtual stage; -1 unsaid)."""

    dp: int
    stage: int
    rank: int
    step: int
    optype: str
    start: float
    duration: float
    seq: int
    chunk: int = -1
    virtual: int = -1

    @property
    def end(self) -> float:
        """When the operation ended."""
        return self.start + self.duration


@dataclass(frozen=True)
class JobGroups:
    """A job's group sizes: data-parallel, pipeline, tensor-parallel and context-parallel (`dsp` in the artifact),
    virtual stages per pipeline stage, and the world size, their product.

    >>> JobGroups(dp=4, pp=4, tp=4).world
    64
    """

    dp: int = 1
    pp: int = 1
    tp: int = 1
    cp: int = 1
    vpp: int = 1
    name: str = ""

    @property
    def world(self) -> int:
        """How many ranks the job runs on."""
        return self.dp * self.pp * self.tp * self.cp

    @property
    def workers(self) -> int:
        """How many workers the operation table holds: one per data-parallel rank and stage."""
        return self.dp * self.pp


_META_KEYS = {"dp_size": "dp", "pp_size": "pp", "tp_size": "tp", "dsp_size": "cp", "vpp_size": "vpp"}


def groups_of_meta(text: str) -> JobGroups:
    """A job's group sizes from the artifact's meta file (`key: value` lines; `world_size` checked against the
    product).

    >>> groups_of_meta("trial_name: AR\\ndp_size: 4\\npp_size: 4\\ntp_size: 4\\nworld_size: 64\\n")
    JobGroups(dp=4, pp=4, tp=4, cp=1, vpp=1, name='AR')
    >>> groups_of_meta("dp_size: 2\\npp_size: 4\\nworld_size: 6\\n")
    Traceback (most recent call last):
    ...
    ddpcore.traces.optrace.OpTraceError: world_size is 6 but dp × pp × tp × cp is 8
    """
    sizes: dict[str, int] = {}
    name = ""
    world = None
    for number, line in enumerate(text.splitlines(), 1):
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or not key or key.startswith("#"):
            continue
        if key == "trial_name":
            name = value[:80]
            continue
        if key not in _META_KEYS and key != "world_size":
            continue
        try:
            size = int(value)
        except ValueError:
            raise OpTraceError(f"line {number}: {key} is {value[:40]!r}, not a whole number") from None
        if not 1 <= size <= MOST_GROUP:
            raise OpTraceError(f"line {number}: {key} is {size}, outside 1 to {MOST_GROUP}")
        if key == "world_size":
            world = size
        else:
            sizes[_META_KEYS[key]] = size
    groups = JobGroups(**sizes, name=name)
    if world is not None and world != groups.world:
        raise OpTraceError(f"world_size is {world} but dp × pp × tp × cp is {groups.world}")
    return groups


_INTS = {"dp_rank": 0, "stage": 0, "rank": -1, "step": 0, "seq_id": 0, "mc": -1, "gmc": -1}
"""The whole-number columns kept, and the least value each may hold (-1: none)."""
LATEST_START = 1e10
"""The latest start read (s): a clock's seconds since 1970 (a recorder's wall clock) until the year 2286."""
_TIMES = {"start_ts": (0.0, LATEST_START), "duration": (-CLOCK_SKEW, MOST_SECONDS)}
"""The time columns kept (seconds), and the least and most value each may hold."""
MOST_WHOLE = MOST_GROUP * 1024
"""The largest whole number a column may hold (a step, a rank, a place among operations)."""


@dataclass(frozen=True)
class OpTable:
    """An operation table as columns: each operation's worker (`dp`, `stage`, `rank`), `step`, type (an index into
    `names`), `start` and `duration` in seconds, place among its type's (`seq`), model chunk (`chunk`, -1 for
    none) and that chunk's place in the model (`virtual`, -1 unsaid). Columns, not row objects: a job of 10^5
    operations is read and laid out in C passes."""

    dp: array[int]
    stage: array[int]
    rank: array[int]
    step: array[int]
    optype: array[int]
    names: tuple[str, ...]
    start: array[float]
    duration: array[float]
    seq: array[int]
    chunk: array[int]
    virtual: array[int]

    def __len__(self) -> int:
        return len(self.step)

    def rows(self) -> list[OpRow]:
        """The operations as rows (for tests and examples; the analysis reads the columns).

        >>> OpTable.of_rows([OpRow(0, 1, 2, 7, "optimizer", 0.5, 0.25, 0)]).rows()[0].end
        0.75
        """
        names = self.names
        return [
            OpRow(d, s, r, t, names[o], a, b, q, c, v)
            for d, s, r, t, o, a, b, q, c, v in zip(
                self.dp,
                self.stage,
                self.rank,
                self.step,
                self.optype,
                self.start,
                self.duration,
                self.seq,
                self.chunk,
                self.virtual,
            )
        ]

    @staticmethod
    def of_rows(rows: Iterable[OpRow]) -> OpTable:
        """A table of rows, checked as a file's are (`op_table`).

        >>> len(OpTable.of_rows([OpRow(0, 0, 0, 1, "optimizer", 0.0, 0.1, 0)]))
        1
        """
        rows = list(rows)
        return op_table(
            {
                "dp_rank": [o.dp for o in rows],
                "stage": [o.stage for o in rows],
                "rank": [o.rank for o in rows],
                "step": [o.step for o in rows],
                "optype": [o.optype for o in rows],
                "start_ts": [o.start for o in rows],
                "duration": [o.duration for o in rows],
                "seq_id": [o.seq for o in rows],
                "mc": [o.chunk for o in rows],
                "gmc": [o.virtual for o in rows],
            }
        )


def _first_bad(values: Sequence[object], good: Callable[[object], bool]) -> int:
    """The place of the first value that is not `good`."""
    return next(i for i, v in enumerate(values) if not good(v))


def _whole_column(name: str, values: Sequence[object]) -> array[int]:
    """A column of whole numbers, bounded (`_INTS`, MOST_WHOLE)."""
    least = _INTS[name]

    def good(v: object) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and least <= v <= MOST_WHOLE

    if isinstance(values, array) and values.typecode == "q":
        out = values
    elif isinstance(values, array) and values.typecode in "bBhHiIlLQ" or all(map(good, values)):
        out = array("q", values)
    else:
        i = _first_bad(values, good)
        raise OpTraceError(f"row {i}: {name} is {values[i]!r}: not a whole number from {least}")
    if out and not least <= min(out) <= max(out) <= MOST_WHOLE:
        i = _first_bad(out, good)
        raise OpTraceError(f"row {i}: {name} is {out[i]!r}: not a whole number from {least}")
    return out


def _time_column(name: str, values: Sequence[object]) -> array[float]:
    """A column of times in seconds, bounded (`_TIMES`, MOST_SECONDS)."""
    least, most = _TIMES[name]

    def good(v: object) -> bool:
        return isinstance(v, (int, float)) and math.isfinite(v) and least <= v <= most

    out: array[float] | None
    try:
        given = cast("Sequence[float]", values)
        out = given if isinstance(given, array) and given.typecode == "d" else array("d", given)
    except TypeError:
        out = None
    if out is None or not all(map(math.isfinite, out)) or (out and not least <= min(out) <= max(out) <= most):
        i = _first_bad(values, good)
        raise OpTraceError(f"row {i}: {name} is {values[i]!r}: not a time between {least:g} and {most:.0f} s")
    return out


def op_table(columns: Mapping[str, Sequence[object]]) -> OpTable:
    """An operation table from its columns (`OP_COLUMNS`; `mc`, `gmc` and `mb_id` may be missing), each value
    checked and bounded.

    >>> cols = {"dp_rank": [0], "stage": [1], "rank": [2], "step": [7], "optype": ["forward-compute"],
    ...         "start_ts": [0.5], "duration": [0.25], "seq_id": [0], "mc": [0]}
    >>> t = op_table(cols)
    >>> t.names[t.optype[0]], t.start[0] + t.duration[0]
    ('forward-compute', 0.75)
    """
    missing = [c for c in OP_COLUMNS[:8] if c not in columns]
    if missing:
        raise OpTraceError(f"not an operation table: no column {', '.join(missing)}")
    count = len(columns["step"])
    if any(len(columns[c]) != count for c in OP_COLUMNS[:8]):
        raise OpTraceError("the columns are not all as long")
    types = columns["optype"]
    words = types.words if isinstance(types, Coded) else tuple(dict.fromkeys(types))
    for t in words:
        if not isinstance(t, str) or not 0 < len(t) <= 64:
            raise OpTraceError(f"operation type {str(t)[:40]!r}: not a name")
    if len(set(words)) != len(words):
        raise OpTraceError("an operation type named twice in the table's dictionary")
    if isinstance(types, Coded):
        codes = types.codes
        if codes and not 0 <= min(codes) <= max(codes) < len(words):
            raise OpTraceError("operation types that name none")
    else:
        codes = array("q", map({w: i for i, w in enumerate(words)}.__getitem__, types))
    ints = {c: _whole_column(c, columns[c]) for c in ("dp_rank", "stage", "rank", "step", "seq_id")}
    chunk, virtual = columns.get("mc"), columns.get("gmc")
    return OpTable(
        dp=ints["dp_rank"],
        stage=ints["stage"],
        rank=ints["rank"],
        step=ints["step"],
        optype=array("q", codes),
        names=words,  # type: ignore[arg-type]
        start=_time_column("start_ts", columns["start_ts"]),
        duration=_time_column("duration", columns["duration"]),
        seq=ints["seq_id"],
        chunk=_chunks("mc", chunk, count),
        virtual=_chunks("gmc", virtual, count),
    )


def _chunks(name: str, values: Sequence[object] | None, count: int) -> array[int]:
    """A column of model chunks, -1 where none is said (a missing column, a null)."""
    if values is None:
        return array("q", [-1] * count)
    if isinstance(values, array):
        return _whole_column(name, values)
    return _whole_column(name, [-1 if c is None else c for c in values])


_ARRAY_CODES = {
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint8": "B",
    "uint16": "H",
    "uint32": "I",
    "float": "f",
    "double": "d",
}
"""Arrow's primitive types and the `array` typecode of the same layout."""


def _primitive(chunks: Sequence[object], kind: str) -> array[Any]:
    """Arrow arrays of one primitive type without nulls, copied from their value buffers (a C pass)."""
    out = array(_ARRAY_CODES[kind])
    size = out.itemsize
    for chunk in chunks:
        start = chunk.offset * size  # type: ignore[attr-defined]
        out.frombytes(memoryview(chunk.buffers()[1])[start : start + len(chunk) * size])  # type: ignore[attr-defined,arg-type]
    return out


def _arrow_column(column: Any) -> Sequence[object]:
    """An Arrow column's values: primitive columns without nulls from their buffers (`_primitive`), a dictionary
    column of one chunk as its words and codes, anything else as a list."""
    kind = str(column.type)
    if column.null_count == 0 and kind in _ARRAY_CODES:
        return _primitive(column.chunks, kind)
    if kind.startswith("dictionary") and column.null_count == 0 and len(column.chunks) == 1:
        chunk = column.chunks[0]
        codes = _primitive([chunk.indices], str(chunk.indices.type))
        return Coded(tuple(chunk.dictionary.to_pylist()), array("q", codes))
    return list(column.to_pylist())


TABLE_COLUMNS = tuple(c for c in OP_COLUMNS if c != "mb_id")
"""The columns `op_table` reads (a micro-batch's id is told by its sequence number)."""


def read_op_parquet(data: bytes | str) -> OpTable:
    """An operation table from a Parquet file (its bytes or its path), read with the standard library; a file that
    uses what that reader does not goes to pyarrow (`ddpcore[parquet]`) when it is installed.

    >>> import io, pyarrow as pa, pyarrow.parquet as pq
    >>> out = io.BytesIO()
    >>> cols = {"dp_rank": [0], "stage": [0], "rank": [0], "step": [3], "optype": ["optimizer"], "start_ts": [1.5],
    ...         "duration": [0.5], "seq_id": [0]}
    >>> pq.write_table(pa.table(cols), out)
    >>> read_op_parquet(out.getvalue()).rows()[0].end
    2.0
    """
    if isinstance(data, str):
        with open(data, "rb") as f:
            data = f.read()
    try:
        return op_table(parquet_columns(data, TABLE_COLUMNS))
    except ParquetUnread as exc:
        return op_table(_arrow_columns(data, str(exc)))
    except ParquetError as exc:
        raise OpTraceError(f"not a Parquet file: {exc}") from None


def _arrow_columns(data: bytes, unread: str) -> dict[str, Sequence[object]]:
    """A Parquet file's columns of an operation table through pyarrow, for a file that the standard library's reader
    leaves (`unread` says why)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise OpTraceError(
            f'{unread}: pip install "ddpcore[parquet]" reads it (or give the job\'s Chrome timeline)'
        ) from None
    import io

    try:
        source = pq.ParquetFile(io.BytesIO(data))
        names: list[str] = [c for c in source.schema_arrow.names if c in TABLE_COLUMNS]
        table = source.read(columns=names)
    except Exception as exc:  # pyarrow raises many kinds for a file that is not Parquet
        raise OpTraceError(f"not a Parquet file: {str(exc)[:120]}") from None
    return {c: _arrow_column(table.column(c)) for c in names}


MOST_BYTES = 1 << 30
"""The largest job file read (1 GiB as stored)."""

MOST_INFLATED = min(4 << 30, sys.maxsize)
"""The most a gzip'd timeline may inflate to (4 GiB; less in a 32-bit Python, the page's)."""

GZIP_MAGIC, PARQUET_MAGIC = b"\x1f\x8b", b"PAR1"
PIPELINE_MARKS = (b'"c10d::send"', b'"c10d::recv_"')
"""What a rank's profiler trace holds near its top when the rank sends to or receives from another: a pipeline
stage's (a data-parallel rank only all-reduces)."""
JOB_KINDS = ("parquet", "timeline", "oplines", "profile")
"""The kinds of file (`job_file_kind`) that make what they are given a 3D-parallel job's."""
_META_LINE = re.compile(rb"^\s*(dp_size|pp_size|tp_size|dsp_size|vpp_size|world_size)\s*:", re.MULTILINE)
_STAGE_THREAD = re.compile(r"PP rank (\d+)")


def job_file_kind(head: bytes) -> str | None:
    """What a file's first bytes (inflated when gzip'd, 64 KiB are enough) say it is, when it is a job's file:
    "parquet" (an operation table), "timeline" (the artifact's Chrome timeline: a JSON list of events whose args
    carry `seq_id` and `model_chunk`), "oplines" (a worker's operations as `ops.JobRecorder` writes them: a first
    line of group sizes), "meta" (group sizes), "profile" (a PyTorch profiler trace whose rank sends or receives:
    a pipeline stage's, `traces.pipetrace`), "trace" (any other PyTorch profiler trace: a rank's, or a first stage's
    whose first send lies further in); None for anything else.

    >>> job_file_kind(b"PAR1..."), job_file_kind(b"trial_name: AR\\ndp_size: 4\\n"), job_file_kind(b'{"traceEvents"')
    ('parquet', 'meta', None)
    >>> job_file_kind(b'{"distributedInfo": {"rank": 1}, "traceEvents": [{"name": "c10d::recv_"}]}')
    'profile'
    >>> job_file_kind(b'[{"name":"forward-compute","ph":"X","args":{"step":1,"model_chunk":0,"mb_id":0,"seq_id":0}}')
    'timeline'
    """
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    text = head.lstrip()
    if text.startswith(b'{"job":') and b'"pp_size"' in text.split(b"\n", 1)[0]:
        return "oplines"
    if text.startswith(b"[") and b'"seq_id"' in text and b'"model_chunk"' in text:
        return "timeline"
    if text.startswith(b"{") and b'"distributedInfo"' in text:
        return "profile" if any(mark in text for mark in PIPELINE_MARKS) else "trace"
    if not text.startswith((b"{", b"[")) and _META_LINE.search(head):
        return "meta"
    return None


def _inflated(data: bytes) -> bytes:
    """A file's bytes, inflated when gzip'd, within MOST_INFLATED."""
    if not data.startswith(GZIP_MAGIC):
        return data
    out = bytearray()
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        for k in range(0, len(data), 1 << 20):
            out += inflate.decompress(data[k : k + (1 << 20)], min(sys.maxsize, MOST_INFLATED + 1 - len(out)))
            if len(out) > MOST_INFLATED:
                raise OpTraceError(f"inflates beyond {MOST_INFLATED >> 20} MiB")
    except zlib.error as exc:
        raise OpTraceError(f"not a readable gzip file ({exc})") from None
    return bytes(out)


def read_op_timeline(data: bytes) -> OpTable:
    """An operation table from the artifact's Chrome timeline (gzip'd or not): one process per data-parallel rank
    ("DP rank [d]"), one thread per stage and stream ("PP rank s, TP rank t, compute"), each complete event an
    operation (µs; `args`: step, model_chunk, seq_id). A communication is drawn from its transfer's start (its end
    minus its transfer), which is all the what-if reads of it: its figures are the Parquet's.

    >>> thread = {"name": "PP rank 1, TP rank 0, compute"}
    >>> events = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": 3, "args": thread},
    ...           {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "DP rank [2]"}},
    ...           {"name": "optimizer", "ph": "X", "pid": 0, "tid": 3, "ts": 1e6, "dur": 5e5,
    ...            "args": {"step": 7, "model_chunk": 0, "mb_id": -1, "seq_id": 0}}]
    >>> row = read_op_timeline(json.dumps(events).encode()).rows()[0]
    >>> row.dp, row.stage, row.step, row.start, row.end
    (2, 1, 7, 1.0, 1.5)
    """
    try:
        events = json.loads(_inflated(data))
    except (ValueError, UnicodeDecodeError) as exc:
        raise OpTraceError(f"not a JSON timeline ({str(exc)[:80]})") from None
    if not isinstance(events, list):
        events = events.get("traceEvents") if isinstance(events, dict) else None
    if not isinstance(events, list):
        raise OpTraceError("not a timeline: no list of events")
    stage_of: dict[tuple[object, object], int] = {}
    dp_of: dict[object, int] = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "M":
            continue
        name = str((e.get("args") or {}).get("name", ""))
        if e.get("name") == "thread_name" and (m := _STAGE_THREAD.search(name)):
            stage_of[(e.get("pid"), e.get("tid"))] = int(m.group(1))
        elif e.get("name") == "process_name" and (m := re.search(r"DP rank \[?(\d+)", name)):
            dp_of[e.get("pid")] = int(m.group(1))
    columns: dict[str, list[object]] = {c: [] for c in OP_COLUMNS}
    for i, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        where = (e.get("pid"), e.get("tid"))
        given = e.get("args")
        args: dict[str, object] = given if isinstance(given, dict) else {}
        if where not in stage_of:
            raise OpTraceError(f'event {i}: its thread names no pipeline stage ("PP rank s, …")')
        dp = dp_of.get(e.get("pid"), e.get("pid"))
        ts, dur = e.get("ts"), e.get("dur")
        for name, value in (
            ("dp_rank", dp),
            ("stage", stage_of[where]),
            ("rank", -1),
            ("step", args.get("step")),
            ("optype", e.get("name")),
            ("start_ts", ts / 1e6 if isinstance(ts, (int, float)) else ts),
            ("duration", dur / 1e6 if isinstance(dur, (int, float)) else dur),
            ("seq_id", args.get("seq_id")),
            ("mc", args.get("model_chunk", -1)),
            ("gmc", -1),
            ("mb_id", args.get("mb_id", -1)),
        ):
            columns[name].append(value)
    pp = 1 + max((s for s in stage_of.values()), default=0)
    columns["rank"] = [
        d * pp + s if isinstance(d, int) and isinstance(s, int) else -1
        for d, s in zip(columns["dp_rank"], columns["stage"])
    ]
    return op_table(columns)


def read_op_lines(files: Mapping[str, bytes]) -> tuple[OpTable, JobGroups]:
    """An operation table from the JSONL files of a job's workers (`ops.JobRecorder`: a first line of group sizes,
    then one operation a line), and the group sizes, which every file must give alike.

    >>> head = b'{"job": "tiny", "dp_size": 1, "pp_size": 1, "tp_size": 1, "dsp_size": 1, "vpp_size": 1}\\n'
    >>> op = b'{"dp_rank": 0, "stage": 0, "rank": 0, "step": 0, "optype": "optimizer", "start_ts": 1.0, '
    >>> op += b'"duration": 0.5, "seq_id": 0, "mc": 0, "mb_id": -1}\\n'
    >>> table, groups = read_op_lines({"w0.jsonl": head + op})
    >>> len(table), groups.name
    (1, 'tiny')
    """
    columns: dict[str, list[object]] = {c: [] for c in OP_COLUMNS}
    headers: dict[str, JobGroups] = {}
    for name, data in files.items():
        lines = _inflated(data).decode("utf-8", errors="replace").splitlines()
        try:
            head = json.loads(lines[0]) if lines else None
        except ValueError:
            head = None
        if not isinstance(head, dict) or "pp_size" not in head:
            raise OpTraceError(f"{name}: line 1 does not give the job's group sizes")
        text = "\n".join(f"{k}: {v}" for k, v in head.items() if k != "job")
        headers[name] = replace(groups_of_meta(text), name=str(head.get("job") or "")[:80])
        for number, line in enumerate(lines[1:], 2):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError:
                raise OpTraceError(f"{name}: line {number} is not JSON") from None
            if not isinstance(row, dict):
                raise OpTraceError(f"{name}: line {number} is not an operation")
            for c in OP_COLUMNS:
                columns[c].append(row.get(c, -1 if c in ("mc", "gmc", "mb_id") else None))
    sizes = set(headers.values())
    if len(sizes) != 1:
        raise OpTraceError("the workers' files give different group sizes: " + "; ".join(sorted(map(str, sizes)))[:300])
    try:
        return op_table(columns), sizes.pop()
    except OpTraceError as exc:
        raise OpTraceError(f"the workers' operations: {exc}") from None


@dataclass(frozen=True)
class JobFile:
    """A job read from its files: its operations, its group sizes, a line for each thing the files left unsaid (a
    missing meta file), and whether its communications are drawn as their transfers alone (a timeline)."""

    table: OpTable
    groups: JobGroups
    notes: tuple[Message, ...] = ()
    transfers_drawn: bool = False
    left_out: tuple[Message, ...] = ()
    """A line for each file given that is not the job's (a rank's trace, a note), left out."""


def read_job(files: Mapping[str, bytes], ranks: Mapping[str, RankOps] | None = None) -> JobFile:
    """A job from its files (name to bytes): one operation table (Parquet or the artifact's timeline) and at most
    one meta file, its workers' JSONL (`ops.JobRecorder`), or its ranks' PyTorch profiler traces (`pipetrace`: a
    rank a file; `ranks`: some already read where they lie, by file name); any other file is left out with a line
    (`left_out`).
    Without a meta file the data-parallel and pipeline sizes are the table's, tensor and context parallelism 1, said
    in a note; with one, the table is checked against it by `analysis.job_times`.

    >>> meta = b"trial_name: tiny\\ndp_size: 1\\npp_size: 1\\n"
    >>> events = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "PP rank 0, compute"}},
    ...           {"name": "optimizer", "ph": "X", "pid": 0, "tid": 0, "ts": 0, "dur": 1,
    ...            "args": {"step": 1, "model_chunk": 0, "seq_id": 0}}]
    >>> job = read_job({"t.json": json.dumps(events).encode(), "m.yaml": meta})
    >>> job.groups.name, len(job.table), job.notes
    ('tiny', 1, ())
    """
    tables, metas, workers, profiles, traces, left = [], [], [], [], [], []
    for name, data in files.items():
        if len(data) > MOST_BYTES:
            raise OpTraceError(f"{name}: {len(data) >> 20} MiB, beyond the {MOST_BYTES >> 20} MiB read")
        kind = kind_of_head(data[: 1 << 20])
        if kind == "meta":
            metas.append(name)
        elif kind == "oplines":
            workers.append(name)
        elif kind in ("parquet", "timeline"):
            tables.append((name, kind))
        elif kind == "profile":
            profiles.append(name)
        else:
            if kind == "trace":
                traces.append(name)
            left.append(name)
    if profiles or ranks:
        if tables or metas or workers:
            raise OpTraceError("a job's ranks' profiler traces are read alone, without a table, meta or worker file")
        from .pipetrace import op_profiles, read_ranks

        table, groups, notes = op_profiles(
            {**(ranks or {}), **read_ranks({name: files[name] for name in profiles + traces})}
        )
        folder = [*(ranks or {}), *profiles][0].replace("\\", "/").rsplit("/", 2)
        kept = _left_lines(name for name in left if name not in traces)
        return JobFile(table, replace(groups, name=folder[-2] if len(folder) > 1 else ""), notes, False, kept)
    if workers:
        if tables or metas:
            raise OpTraceError("a job is its workers' operation files alone, or one table and its meta file")
        table, groups = read_op_lines({name: files[name] for name in workers})
        return JobFile(table, groups, left_out=_left_lines(left))
    if len(tables) != 1 or len(metas) > 1:
        raise OpTraceError(
            f"a job is one operation table and at most one meta file; given {len(tables)} table(s), "
            f"{len(metas)} meta file(s)"
        )
    name, kind = tables[0]
    try:
        table = read_op_parquet(files[name]) if kind == "parquet" else read_op_timeline(files[name])
    except OpTraceError as exc:
        raise OpTraceError(f"{name}: {exc}") from None
    drawn = kind == "timeline"
    if metas:
        text = files[metas[0]][:65536].decode("utf-8", errors="replace")
        return JobFile(table, groups_of_meta(text), (), drawn, _left_lines(left))
    dp = 1 + max(table.dp, default=0)
    pp = 1 + max(table.stage, default=0)
    return JobFile(
        table,
        replace(JobGroups(dp=dp, pp=pp), name=name.rsplit("/", 1)[-1]),
        (Message.of("job.no_meta", dp=dp, pp=pp),),
        drawn,
        _left_lines(left),
    )


def _left_lines(names: Iterable[str]) -> tuple[Message, ...]:
    """The line said for each file a job leaves out."""
    return tuple(Message.of("job.file_left", name=name) for name in names)


HEAD = 1 << 16
"""How much of a file `kind_of_head` reads (inflated when gzip'd): enough for any job file's first line."""
JOB_LOOKS = 8
"""How many files `job_among` looks into to tell a 3D-parallel job's from per-rank traces (a job is a table and a
meta file, or a file per worker or rank; a folder may hold a note or two besides)."""


def job_among(paths: Sequence[str]) -> bool:
    """Whether files are a 3D-parallel job's, told by content (`kind_of_head`) in the first JOB_LOOKS of them: a
    few looks, whatever the number of ranks; an unreadable file says nothing.

    >>> job_among([])
    False
    """
    for path in paths[:JOB_LOOKS]:
        try:
            with open(path, "rb") as handle:
                head = handle.read(HEAD)
        except OSError:
            continue
        if kind_of_head(head) in JOB_KINDS:
            return True
    return False


def kind_of_head(head: bytes) -> str | None:
    """`job_file_kind` of a file's first bytes as stored (a gzip'd file's inflated first, up to HEAD bytes): what
    `read_job`, `analyze` and the page's reading worker look at.

    >>> import gzip
    >>> kind_of_head(gzip.compress(b"dp_size: 2\\npp_size: 4\\n")), kind_of_head(b"\\x1f\\x8b broken")
    ('meta', None)
    """
    if head.startswith(GZIP_MAGIC):
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head[: 1 << 20], HEAD)
        except zlib.error:
            return None
    return job_file_kind(head[:HEAD])
