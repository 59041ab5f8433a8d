"""Every input format, read as a stream: bounded bytes and JSON values one at a time (`reader`), collectives by
kind (`collectives`), Kineto and JSONL events to per-step traces (`parse`), files from disk (`files`), what the
analysis measures of each step (`stepfacts`, `tracefacts`) and per-rank summaries (`summary`).

The front door: code outside this package imports only what `__all__` names here, each loaded on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .collectives import (  # noqa: F401
        GRADIENT_KINDS,
        KINDS,
        RECORD_PARAM_COMMS,
        UNKNOWN_KIND,
        WORKER_PREFIXES,
        collective_kind,
        kernel_kind,
        kind_of_op,
    )
    from .columnar import (  # noqa: F401
        COLUMNAR_COLUMNS,
        MAGIC,
        MAX_ROWS,
        encode_columns,
        read_columnar,
        summary_bytes,
    )
    from .files import (  # noqa: F401
        Progress,
        chunks_of,
        files_in,
        read_path,
        read_paths,
    )
    from .keeping import (  # noqa: F401
        WARMUP_STEP,
        GpuGauges,
        Keep,
        KeptColumns,
        OwnMedians,
        kept,
        kept_for_verdict,
        own_medians,
    )
    from .parquet import (  # noqa: F401
        PARQUET_SUFFIX,
        parquet_bytes,
    )
    from .parse import (  # noqa: F401
        COMPUTE_KERNEL,
        MAX_FILE_BYTES,
        MEMORY_KERNEL,
        FileError,
        JsonlRows,
        Loaded,
        RankTrace,
        ReadRank,
        TraceError,
        TraceStep,
        chunked,
        collect,
        inflated,
        load,
        load_streams,
        parse_file,
        parse_kineto,
        read_or_why,
        read_trace,
        steps_in,
    )
    from .reader import (  # noqa: F401
        KIB,
        MAX_JSON_DEPTH,
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
    from .simulated import (  # noqa: F401
        BACKWARD_MS,
        FORWARD_MS,
        OPTIMIZER_MS,
        TRANSFER_MS,
        simulated_run,
    )
    from .stepfacts import (  # noqa: F401
        DEVICE_COLUMNS,
        Column,
        DeviceTime,
        RankColumns,
        RankFacts,
        StepFacts,
        columns_of,
        kept_parts,
    )
    from .summary import (  # noqa: F401
        COLUMNS,
        FLAGS,
        FORMAT,
        GPU,
        JSON_VERSION,
        LOWS,
        MAX_MS,
        MEASURES,
        NUMBERS,
        PARTS,
        SUFFIX,
        VERSION,
        drawn,
        is_summary,
        json_summary_bytes,
        named_columns,
        read_summary,
    )
    from .tracefacts import (  # noqa: F401
        arrival_ms,
        facts_of,
        table_of,
        work_parts,
    )

_LAZY = {
    "collectives": (
        "GRADIENT_KINDS",
        "KINDS",
        "RECORD_PARAM_COMMS",
        "UNKNOWN_KIND",
        "WORKER_PREFIXES",
        "collective_kind",
        "kernel_kind",
        "kind_of_op",
    ),
    "columnar": (
        "COLUMNAR_COLUMNS",
        "MAGIC",
        "MAX_ROWS",
        "encode_columns",
        "read_columnar",
        "summary_bytes",
    ),
    "files": (
        "Progress",
        "chunks_of",
        "files_in",
        "read_path",
        "read_paths",
    ),
    "keeping": (
        "GpuGauges",
        "Keep",
        "KeptColumns",
        "OwnMedians",
        "WARMUP_STEP",
        "kept",
        "kept_for_verdict",
        "own_medians",
    ),
    "parquet": (
        "PARQUET_SUFFIX",
        "parquet_bytes",
    ),
    "parse": (
        "COMPUTE_KERNEL",
        "FileError",
        "JsonlRows",
        "Loaded",
        "MAX_FILE_BYTES",
        "MEMORY_KERNEL",
        "RankTrace",
        "ReadRank",
        "TraceError",
        "TraceStep",
        "chunked",
        "collect",
        "inflated",
        "load",
        "load_streams",
        "parse_file",
        "parse_kineto",
        "read_or_why",
        "read_trace",
        "steps_in",
    ),
    "reader": (
        "DepthGuard",
        "JsonStream",
        "KIB",
        "MAX_JSON_DEPTH",
        "MAX_RANK",
        "MAX_STEP",
        "MIB",
        "READ_CHUNK",
        "ReadError",
        "gunzipped",
        "limited",
        "texts",
    ),
    "simulated": (
        "BACKWARD_MS",
        "FORWARD_MS",
        "OPTIMIZER_MS",
        "TRANSFER_MS",
        "simulated_run",
    ),
    "stepfacts": (
        "Column",
        "DEVICE_COLUMNS",
        "DeviceTime",
        "RankColumns",
        "RankFacts",
        "StepFacts",
        "columns_of",
        "kept_parts",
    ),
    "summary": (
        "COLUMNS",
        "FLAGS",
        "FORMAT",
        "GPU",
        "JSON_VERSION",
        "LOWS",
        "MAX_MS",
        "MEASURES",
        "NUMBERS",
        "PARTS",
        "SUFFIX",
        "VERSION",
        "drawn",
        "is_summary",
        "json_summary_bytes",
        "named_columns",
        "read_summary",
    ),
    "tracefacts": (
        "arrival_ms",
        "facts_of",
        "table_of",
        "work_parts",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
