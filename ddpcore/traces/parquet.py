"""A rank's summary as Parquet (`summarize --format parquet`), for those who query summaries in DuckDB or Spark:
the columns of version 2 and 3 (`summary.COLUMNS`) and the rank, times in ms as doubles, flags as booleans, GPU
times null in a row without kernels. docs/summaries.md shows a DuckDB query over them.

This module needs the extra `ddpcore[parquet]` (pyarrow); nothing else in ddpcore imports it, and the reader does not
read Parquet (analyze reads the columnar summaries: `summarize` without `--format`).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from ..base import CAUSES, SUMMED
from .stepfacts import RankColumns
from .summary import FLAGS, GPU, PARTS

__all__ = ["PARQUET_SUFFIX", "parquet_bytes"]

PARQUET_SUFFIX = ".ddpsum.parquet"


def parquet_bytes(table: RankColumns) -> bytes:
    """One rank's summary as a Parquet file: a row per step, `rank` first, then `summary.COLUMNS`.

    >>> from ddpcore.traces import simulated_run, table_of
    >>> data = parquet_bytes(table_of(simulated_run(2, 5, seed=1)[0][1]))
    >>> read = pq.read_table(io.BytesIO(data))
    >>> read.num_rows, read.column_names[:3], read.column("rank").to_pylist()[0]
    (5, ['rank', 'step', 'start_ms'], 1)
    """
    rows = len(table.step)
    kept = table.parts_ms or {}
    columns: dict[str, pa.Array] = {
        "rank": pa.array([table.rank] * rows, pa.int32()),
        "step": pa.array(list(table.step), pa.int64()),
    }
    for name in ("start_ms", "length_ms", "period_ms"):
        columns[name] = pa.array(list(getattr(table, name)), pa.float64())
    flags: dict[str, Sequence[object]] = {
        "followed": table.followed,
        "released": table.released,
        "from_release": table.from_release,
    }
    for name in FLAGS:
        columns[name] = pa.array([bool(v) for v in flags[name]], pa.bool_())
    for name in ("arrival_ms", "compute_ms", "anchor_ms", "work_ms", "comm_free_ms"):
        columns[name] = pa.array(list(getattr(table, name)), pa.float64())
    for p in SUMMED:
        columns[f"{p}_ms"] = pa.array(list(table.phases_ms[p]), pa.float64())
    for p, name in zip(CAUSES, PARTS):
        columns[name] = pa.array(list(kept[p]) if p in kept else [0.0] * rows, pa.float64())
    for i, name in enumerate(GPU):
        columns[name] = pa.array(list(table.device[i]) if table.device else [None] * rows, pa.float64())
    out = io.BytesIO()
    pq.write_table(pa.table(columns), out, compression="zstd")
    return out.getvalue()
