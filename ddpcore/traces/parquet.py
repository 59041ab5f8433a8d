"""A rank's summary as Parquet (`summarize --format parquet`), for those who query summaries in DuckDB or Spark:
the columns of version 2 and 3 (`summary.COLUMNS`) and the rank, times in ms as doubles, flags as booleans, GPU
times null in a row without kernels. docs/summaries.md shows a DuckDB query over them.

This module needs the extra `ddpcore[parquet]` (pyarrow); nothing else in ddpcore imports it, and the reader does not
read Parquet (analyze reads the columnar summaries: `summarize` without `--format`).
"""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

from .stepfacts import RankColumns
from .summary import FLAGS, named_columns

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
    named = named_columns(table)
    columns: dict[str, pa.Array] = {"rank": pa.array([table.rank] * len(table.step), pa.int32())}
    for name, values in named.items():
        if name == "step":
            columns[name] = pa.array(list(values), pa.int64())
        elif name in FLAGS:
            columns[name] = pa.array([bool(v) for v in values], pa.bool_())
        else:
            columns[name] = pa.array(list(values), pa.float64())
    out = io.BytesIO()
    pq.write_table(pa.table(columns), out, compression="zstd")
    return out.getvalue()
