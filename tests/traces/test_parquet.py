"""`summarize --format parquet` (the extra ddpcore[parquet]): the summaries' columns for DuckDB or Spark, and the
query docs/summaries.md shows naming the persistent straggler that `analyze` names."""

from __future__ import annotations

import json
import re

import duckdb
import pyarrow.parquet as pq
import pytest
from paths import FIXTURES, ROOT

from ddpcore.cli import main
from ddpcore.traces.summary import COLUMNS

QUERY = re.search(r"```sql\n(.*?)```", (ROOT / "docs" / "summaries.md").read_text(), re.S)


def summarised(tmp_path, folder: str, pattern: str) -> list[str]:
    paths = [str(p) for p in sorted((FIXTURES / folder).glob(pattern))]
    assert main(["summarize", *paths, "-o", str(tmp_path), "--format", "parquet"]) == 0
    return paths


def test_a_parquet_summary_holds_the_rank_and_every_column(tmp_path):
    summarised(tmp_path, "ddp8/s1.5", "*.jsonl.gz")
    files = sorted(tmp_path.glob("*.ddpsum.parquet"))
    assert len(files) == 8
    table = pq.read_table(files[3])
    assert table.column_names == ["rank", *COLUMNS]
    assert set(table.column("rank").to_pylist()) == {3}
    assert all(v is None for v in table.column("gpu_busy_ms").to_pylist())


@pytest.mark.parametrize(
    ("folder", "pattern"),
    [("ddp8/s1.5", "*.jsonl.gz"), ("ddp8/s2.0", "*.pt.trace.json.gz"), ("noise/two_slow", "*.jsonl.gz")],
)
def test_the_documented_duckdb_query_names_the_straggler_analyze_names(tmp_path, capsys, folder, pattern):
    assert QUERY, "docs/summaries.md shows a DuckDB query in a sql block"
    paths = summarised(tmp_path, folder, pattern)
    capsys.readouterr()
    assert main(["analyze", *paths, "--json"]) == 0
    named = sorted(s["rank"] for s in json.loads(capsys.readouterr().out)["stragglers"])
    assert named
    query = QUERY.group(1).replace("ddpsum/", f"{tmp_path}/")
    found = sorted(row[0] for row in duckdb.sql(query).fetchall())
    assert found == named


def test_parquet_is_told_apart_from_a_trace(tmp_path):
    from ddpcore.traces import load

    summarised(tmp_path, "ddp4", "*.jsonl.gz")
    data = next(tmp_path.glob("*.parquet")).read_bytes()
    message = load([("rank0.ddpsum.parquet", data)]).errors[0].message
    assert "Parquet" in message and "\n" not in message and "summarize without --format parquet" in message
    foreign = pq.write_table  # a Parquet file with other columns: another tool's, whose advice must not be ours
    import io

    import pyarrow as pa

    out = io.BytesIO()
    foreign(pa.table({"dp_rank": [0], "stage": [1], "duration": [2.5]}), out)
    said = load([("trace-AR.parquet", out.getvalue())]).errors[0].message
    assert (
        "not written by ddpcore" in said
        and "not a format ddpcore reads" in said
        and "summarize" not in said.split("It reads")[0]
    )
